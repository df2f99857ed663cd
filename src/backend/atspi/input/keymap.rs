//! The keyboard a Wayland virtual keyboard types with: its own XKB keymap, one key per keysym it
//! needs, as wtype does. A virtual keyboard has no layout of its own and the compositor's may
//! not hold a character at all (an `é` on a US layout), so every character typed gets a key of
//! its own whose only symbol is that character; no modifier is ever pressed. Pure: the keymap's
//! text and the keys to press, tested here; `wlroots.rs` uploads and presses them.
//!
//! Toolkits read more than the keysym: Chromium also takes a key's meaning from its evdev code
//! (a space typed on evdev code 1, Escape's, was dropped). So the named keys sit on their own
//! evdev codes, and characters only on the codes of a keyboard's printable keys (digits and
//! letters), never on a modifier's, Escape's, Tab's or a function key's.

use crate::backend::Key;

/// The named keys, each on its evdev code, in every keymap: a run of named keys (a menu's Up,
/// Up, Return) never changes the keymap between two presses, and each key means to the app
/// what its code says.
pub const NAMED: [(u32, u32); 5] = [
    (57, 0x20),    // KEY_SPACE: Space
    (28, 0xff0d),  // KEY_ENTER: Return
    (103, 0xff52), // KEY_UP: Up
    (108, 0xff54), // KEY_DOWN: Down
    (14, 0xff08),  // KEY_BACKSPACE: BackSpace
];

/// The evdev codes characters are typed on: the digit row and the three letter rows of a
/// 105-key keyboard (`1`–`=`, `q`–`]`, `a`–`` ` ``, `\`–`/`) and the extra key beside left
/// Shift. A text with more distinct characters is typed in several keymaps.
const TEXT_CODES: [std::ops::RangeInclusive<u32>; 5] = [2..=13, 16..=27, 30..=41, 43..=53, 86..=86];

fn text_codes() -> impl Iterator<Item = u32> {
    TEXT_CODES.into_iter().flatten()
}

/// The most characters one keymap holds besides the named keys.
pub fn max_text_keys() -> usize {
    text_codes().count()
}

/// The X keysym for a character: Latin-1 keysyms are the code point itself, every other
/// character is its Unicode keysym (`0x0100_0000 + code point`), which XKB and every toolkit
/// turn back into the character.
pub fn keysym_of(c: char) -> u32 {
    let cp = c as u32;
    if (0x20..=0x7e).contains(&cp) || (0xa0..=0xff).contains(&cp) {
        cp
    } else {
        0x0100_0000 + cp
    }
}

/// The keysym of a named key (the same values X11's path presses).
pub fn keysym_of_key(key: Key) -> u32 {
    super::super::method::keysym(key)
}

/// One keymap and the presses typed with it: the evdev code of each keysym, in order (what the
/// virtual keyboard's `key` request takes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The keymap in XKB's text format, NUL-terminated as the protocol wants it.
    pub keymap: String,
    pub presses: Vec<u32>,
}

/// Splits a run of keysyms into chunks, in order: each keymap holds the [`NAMED`] keys and at
/// most [`max_text_keys`] others, one key per distinct keysym.
pub fn chunks(keysyms: &[u32]) -> Vec<Chunk> {
    let pool: Vec<u32> = text_codes().collect();
    let mut out = Vec::new();
    let mut keys: Vec<(u32, u32)> = NAMED.to_vec();
    let mut presses = Vec::new();
    for &sym in keysyms {
        let code = match keys.iter().find(|k| k.1 == sym) {
            Some(k) => k.0,
            None => {
                let code = match pool.get(keys.len() - NAMED.len()) {
                    Some(&c) => c,
                    None => {
                        out.push(Chunk {
                            keymap: keymap_text(&keys),
                            presses: std::mem::take(&mut presses),
                        });
                        keys = NAMED.to_vec();
                        // A fresh keymap's first text code (the pool is a constant's, not
                        // empty).
                        pool[0]
                    }
                };
                keys.push((code, sym));
                code
            }
        };
        presses.push(code);
    }
    if !presses.is_empty() {
        out.push(Chunk {
            keymap: keymap_text(&keys),
            presses,
        });
    }
    out
}

/// A complete XKB keymap with one key per (evdev code, keysym): XKB's keycode is the evdev
/// code + 8, and the key carries only that keysym, written as a number (never below 10: XKB
/// reads 0–9 as digit keysyms; every keysym here is at least 0x20).
pub fn keymap_text(keys: &[(u32, u32)]) -> String {
    let max = keys.iter().map(|k| k.0 + 8).max().unwrap_or(8).max(9);
    let mut s = String::from("xkb_keymap {\nxkb_keycodes \"treeglass\" {\nminimum = 8;\n");
    s.push_str(&format!("maximum = {max};\n"));
    for (code, _) in keys {
        s.push_str(&format!("<K{code}> = {};\n", code + 8));
    }
    s.push_str("};\n");
    s.push_str("xkb_types \"treeglass\" { include \"complete\" };\n");
    s.push_str("xkb_compatibility \"treeglass\" { include \"complete\" };\n");
    s.push_str("xkb_symbols \"treeglass\" {\n");
    for (code, sym) in keys {
        s.push_str(&format!("key <K{code}> {{ [ {sym:#x} ] }};\n"));
    }
    s.push_str("};\n};\n\0");
    s
}

/// The keymap with only the named keys: the keyboard's first.
pub fn named_keymap() -> String {
    keymap_text(&NAMED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_is_the_code_point_and_the_rest_is_unicode() {
        assert_eq!(keysym_of('a'), 0x61);
        assert_eq!(keysym_of(' '), 0x20);
        assert_eq!(keysym_of('é'), 0xe9);
        assert_eq!(keysym_of('€'), 0x0100_20ac);
        assert_eq!(keysym_of('日'), 0x0100_65e5);
        // Below 0x20 (controls) is never typed as itself: the planner sends Return for line
        // breaks and refuses tabs; a stray one still gets a Unicode keysym, not a control key.
        assert_eq!(keysym_of('\u{1}'), 0x0100_0001);
    }

    #[test]
    fn each_distinct_keysym_gets_one_printable_key() {
        let syms: Vec<u32> = "abca".chars().map(keysym_of).collect();
        let c = chunks(&syms);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].presses, [2, 3, 4, 2]);
        assert!(c[0].keymap.contains("<K2> = 10;"));
        assert!(c[0].keymap.contains("key <K2> { [ 0x61 ] };"));
        assert!(c[0].keymap.contains("key <K4> { [ 0x63 ] };"));
        // The highest keycode is Down's (108 + 8).
        assert!(c[0].keymap.contains("maximum = 116;"));
        assert!(c[0].keymap.ends_with('\0'));
    }

    #[test]
    fn named_keys_keep_their_own_codes_and_one_keymap() {
        let code = |k: Key| chunks(&[keysym_of_key(k)])[0].presses[0];
        assert_eq!(code(Key::Space), 57);
        assert_eq!(code(Key::Return), 28);
        assert_eq!(code(Key::Up), 103);
        assert_eq!(code(Key::Down), 108);
        assert_eq!(code(Key::BackSpace), 14);
        // One keymap for every run of named keys: nothing to upload between two presses.
        let up = chunks(&[keysym_of_key(Key::Up)]);
        assert_eq!(up[0].keymap, named_keymap());
        // A space typed in a text is the Space key.
        assert_eq!(chunks(&[keysym_of(' ')])[0].presses, [57]);
    }

    #[test]
    fn no_character_lands_on_a_key_with_a_meaning_of_its_own() {
        // Escape, Tab, the modifiers, Caps Lock and the function keys.
        let special = [1, 15, 29, 42, 54, 56, 58, 59, 60, 87, 88, 97, 100, 125, 126];
        let text: String = (0..200u32)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let syms: Vec<u32> = text.chars().map(keysym_of).collect();
        for c in chunks(&syms) {
            for p in &c.presses {
                assert!(!special.contains(p), "{p}");
                assert!(!NAMED.iter().any(|n| n.0 == *p), "{p}");
            }
        }
    }

    #[test]
    fn a_text_with_more_distinct_characters_than_a_keymap_holds_is_split_in_order() {
        let per = max_text_keys();
        assert_eq!(per, 48);
        let text: String = (0..120u32)
            .map(|i| char::from_u32(0x4e00 + i).unwrap())
            .collect();
        let syms: Vec<u32> = text.chars().map(keysym_of).collect();
        let c = chunks(&syms);
        assert_eq!(c.len(), 3);
        assert_eq!(c.iter().map(|c| c.presses.len()).sum::<usize>(), 120);
        // The first character of the second keymap is the 49th, on the first text code.
        assert_eq!(c[1].presses[0], 2);
        let first = format!(
            "key <K2> {{ [ {:#x} ] }}",
            0x0100_0000 + 0x4e00 + per as u32
        );
        assert!(c[1].keymap.contains(&first), "{}", c[1].keymap);
    }

    #[test]
    fn nothing_to_type_is_no_keymap() {
        assert!(chunks(&[]).is_empty());
    }
}
