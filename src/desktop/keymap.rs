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

use super::Key;

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

/// The X keysym of a named key.
pub fn keysym_of_key(key: Key) -> u32 {
    match key {
        Key::Space => 0x20,
        Key::Return => 0xff0d,
        Key::Up => 0xff52,
        Key::Down => 0xff54,
        Key::BackSpace => 0xff08,
    }
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

/// A key to press for a keysym in a keymap someone else made (EIS hands its server's keymap
/// out; a client cannot upload its own): the evdev code, and the evdev code of a Shift key to
/// hold when the keysym is the key's second level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Press {
    pub code: u32,
    pub shift: Option<u32>,
}

/// An XKB keymap in the text format libxkbcommon writes (what Mutter and KWin hand out), read
/// just enough to find keys: each key's evdev code, its type and its first group's symbols.
/// Only the first group is used, and a symbol is reached plain (level 1) or with Shift (level 2
/// of the types where Shift alone selects it); a keysym found nowhere else is not in it.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// (evdev code, type if named, first group's symbols as written).
    keys: Vec<(u32, Option<String>, Vec<String>)>,
}

/// The types in which Shift alone gives level 2 (XKB's standard ones); a key with no explicit
/// type of one or two symbols gets one of these or ONE_LEVEL.
const SHIFT_LEVEL2: [&str; 5] = [
    "TWO_LEVEL",
    "ALPHABETIC",
    "FOUR_LEVEL",
    "FOUR_LEVEL_ALPHABETIC",
    "FOUR_LEVEL_SEMIALPHABETIC",
];

impl Parsed {
    /// Reads the keymap; `Err` when it has no keycodes or no symbols section.
    pub fn new(text: &str) -> Result<Parsed, String> {
        let section = |name: &str| -> Option<&str> {
            let start = text.find(name)?;
            let rest = &text[start..];
            let open = rest.find('{')?;
            // A section ends at the first `};` at its own depth.
            let mut depth = 0usize;
            for (i, c) in rest[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(&rest[open + 1..open + i]);
                        }
                    }
                    _ => {}
                }
            }
            None
        };
        let codes_text = section("xkb_keycodes").ok_or("the keymap has no xkb_keycodes")?;
        let syms_text = section("xkb_symbols").ok_or("the keymap has no xkb_symbols")?;
        let mut codes: std::collections::HashMap<&str, u32> = Default::default();
        let mut aliases = Vec::new();
        for stmt in codes_text.split(';').map(str::trim) {
            if let Some(rest) = stmt.strip_prefix("alias") {
                if let Some((a, b)) = rest.split_once('=') {
                    aliases.push((a.trim(), b.trim()));
                }
            } else if stmt.starts_with('<')
                && let Some((name, n)) = stmt.split_once('=')
                && let Ok(n) = n.trim().parse::<u32>()
            {
                codes.insert(name.trim(), n);
            }
        }
        for (a, b) in aliases {
            if let Some(&n) = codes.get(b) {
                codes.insert(a, n);
            }
        }
        let mut keys = Vec::new();
        let mut rest = syms_text;
        while let Some(at) = rest.find("key <") {
            rest = &rest[at + 4..];
            let Some(end) = rest.find('>') else { break };
            let name = &rest[..=end];
            let Some(open) = rest.find('{') else { break };
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            let body = &rest[open + 1..open + close];
            rest = &rest[open + close..];
            let Some(&xkb) = codes.get(name) else {
                continue;
            };
            let Some(code) = xkb.checked_sub(8) else {
                continue;
            };
            let ty = body.find("type").and_then(|t| {
                let q = body[t..].find('"')? + t + 1;
                let e = body[q..].find('"')? + q;
                Some(body[q..e].to_string())
            });
            // The first group: `symbols[Group1]= [ … ]`, or the first bare `[ … ]`.
            let group = match body.find("symbols[") {
                Some(s) => body[s..].find("]=").map(|e| s + e + 2),
                None => Some(0),
            };
            let syms = group.and_then(|g| {
                let o = body[g..].find('[')? + g + 1;
                let e = body[o..].find(']')? + o;
                Some(
                    body[o..e]
                        .split(',')
                        .map(|s| s.trim().to_string())
                        .collect::<Vec<_>>(),
                )
            });
            if let Some(syms) = syms {
                keys.push((code, ty, syms));
            }
        }
        Ok(Parsed { keys })
    }

    /// The key (and Shift) that types `keysym`, plainly where a key has it on level 1.
    pub fn press(&self, keysym: u32) -> Option<Press> {
        let plain = self
            .keys
            .iter()
            .find(|(_, _, syms)| syms.first().is_some_and(|s| names(s, keysym)));
        if let Some((code, _, _)) = plain {
            return Some(Press {
                code: *code,
                shift: None,
            });
        }
        let shift = self.shift()?;
        self.keys
            .iter()
            .find(|(_, ty, syms)| {
                let by_shift = match ty {
                    Some(t) => SHIFT_LEVEL2.contains(&t.as_str()),
                    None => syms.len() == 2,
                };
                by_shift && syms.get(1).is_some_and(|s| names(s, keysym))
            })
            .map(|(code, _, _)| Press {
                code: *code,
                shift: Some(shift),
            })
    }

    /// A key whose level 1 is Shift_L (or Shift_R).
    fn shift(&self) -> Option<u32> {
        for want in [0xffe1, 0xffe2] {
            if let Some((code, _, _)) = self
                .keys
                .iter()
                .find(|(_, _, s)| s.first().is_some_and(|s| names(s, want)))
            {
                return Some(*code);
            }
        }
        None
    }
}

/// Whether a symbol as a keymap writes it (`a`, `EuroSign`, `U20AC`, `0x1000e9`) is `keysym`,
/// or the same character under its other keysym (a Unicode keysym and its legacy twin).
fn names(written: &str, keysym: u32) -> bool {
    let same = |k: u32| {
        if let Some(hex) = written.strip_prefix("0x") {
            return u32::from_str_radix(hex, 16) == Ok(k);
        }
        if let Some(hex) = written.strip_prefix('U')
            && hex.len() >= 4
            && let Ok(cp) = u32::from_str_radix(hex, 16)
        {
            return cp + 0x0100_0000 == k || (k < 0x100 && cp == k);
        }
        xkeysym::Keysym::new(k)
            .name()
            .and_then(|n| n.strip_prefix("XK_"))
            == Some(written)
    };
    if same(keysym) {
        return true;
    }
    // A Unicode keysym's legacy twin: U+20AC is also EuroSign (0x20ac). Only that way round:
    // KP_7 is no '7' key.
    if keysym < 0x0100_0000 {
        return false;
    }
    let ch = xkeysym::Keysym::new(keysym).key_char();
    ch.map(|c| xkeysym::Keysym::from_char(c).raw())
        .into_iter()
        .chain(ch.map(|c| 0x0100_0000 + c as u32))
        .filter(|&k| k != keysym)
        .any(same)
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

    #[test]
    fn a_desktops_keymap_is_read_for_plain_and_shifted_keys() {
        let m = Parsed::new(&super::super::eis_double::us_keymap()).unwrap();
        let plain = |code| Some(Press { code, shift: None });
        let shifted = |code| {
            Some(Press {
                code,
                shift: Some(42),
            })
        };
        assert_eq!(m.press(keysym_of('a')), plain(30));
        assert_eq!(m.press(keysym_of('A')), shifted(30));
        assert_eq!(m.press(keysym_of('1')), plain(2));
        assert_eq!(m.press(keysym_of('!')), shifted(2));
        assert_eq!(m.press(keysym_of(' ')), plain(57));
        assert_eq!(m.press(keysym_of_key(Key::Return)), plain(28));
        assert_eq!(m.press(keysym_of_key(Key::Down)), plain(108));
        // Not in it: no key, never a guess.
        assert_eq!(m.press(keysym_of('é')), None);
        assert_eq!(m.press(keysym_of('€')), None);
        // A keypad key's second level needs Num Lock, not Shift.
        assert_eq!(m.press(0xffb7), None, "KP_7");
        assert_eq!(m.press(0xff95), plain(71), "KP_Home");
    }

    #[test]
    fn unicode_and_numeric_keysyms_match_their_characters() {
        let text = "xkb_keymap { xkb_keycodes \"k\" { <A> = 10; <B> = 11; <C> = 12; }; \
                    xkb_symbols \"s\" { key <A> { [ EuroSign ] }; key <B> { [ U00E9 ] }; \
                    key <C> { [ 0x100263a ] }; }; };";
        let m = Parsed::new(text).unwrap();
        assert_eq!(m.press(keysym_of('€')).map(|p| p.code), Some(2));
        assert_eq!(m.press(keysym_of('é')).map(|p| p.code), Some(3));
        assert_eq!(m.press(keysym_of('☺')).map(|p| p.code), Some(4));
        // treeglass's own keymaps (numbers) read back too.
        let own = Parsed::new(&chunks(&[keysym_of('q')])[0].keymap).unwrap();
        assert_eq!(own.press(keysym_of('q')).map(|p| p.code), Some(2));
        assert!(Parsed::new("xkb_keymap { };").is_err());
    }
}
