//! Escaping of untrusted strings from applications before they reach a terminal, and the one
//! definition of which characters may never reach it raw (shared with the JSON writer).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Whether `c` must not reach a terminal as is: C0 and C1 controls and DEL (a terminal acts on
/// them: OSC 52 sets the clipboard, CSI clears the screen), line and paragraph separators, bidi
/// embeddings, overrides and isolates (they reorder what follows), and the invisible format
/// characters that can disguise text: soft hyphen, combining grapheme joiner, zero-width
/// characters, Hangul and Mongolian fillers, variation selectors, tag characters and the rest
/// of Unicode's default-ignorable code points.
pub fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{0600}'..='\u{0605}'
                | '\u{061C}'
                | '\u{06DD}'
                | '\u{070F}'
                | '\u{0890}'..='\u{0891}'
                | '\u{08E2}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFFB}'
                | '\u{110BD}'
                | '\u{110CD}'
                | '\u{13430}'..='\u{1343F}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// What an escaper escapes besides the hostile characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Hostile characters only: for text that may already hold escapes (messages built from
    /// escaped pieces, what the user is typing).
    Scrub,
    /// Also `\` → `\\`, so the text `\x1b` cannot pass for an escaped ESC.
    Literal,
    /// Also `"` → `\"`, for a string shown between double quotes.
    Quoted,
}

fn escape_char(c: char, mode: Mode, out: &mut String) {
    use std::fmt::Write;
    match c {
        '\\' if mode != Mode::Scrub => out.push_str("\\\\"),
        '"' if mode == Mode::Quoted => out.push_str("\\\""),
        c if is_hostile(c) => match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Writing into a String cannot fail.
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        },
        c => out.push(c),
    }
}

fn needs_escape(c: char, mode: Mode) -> bool {
    is_hostile(c) || (mode != Mode::Scrub && c == '\\') || (mode == Mode::Quoted && c == '"')
}

/// Escapes `s` for `mode` within `max_chars` output characters (`0` = no limit); when the
/// escaped text is longer it is cut at a character (or escape) boundary and ends in `…`.
fn escape(s: &str, mode: Mode, max_chars: usize) -> Cow<'_, str> {
    let fits = |s: &str| max_chars == 0 || s.chars().nth(max_chars).is_none();
    if !s.chars().any(|c| needs_escape(c, mode)) && fits(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(if max_chars == 0 {
        s.len() + 16
    } else {
        (max_chars * 4).min(s.len() * 4 + 16)
    });
    let mut count = 0usize;
    // The end of the output (bytes) at the last boundary that leaves room for the ellipsis.
    let mut cut = 0usize;
    for c in s.chars() {
        let before = out.len();
        escape_char(c, mode, &mut out);
        count += out[before..].chars().count();
        if max_chars > 0 {
            if count < max_chars {
                cut = out.len();
            } else if count > max_chars {
                out.truncate(cut);
                out.push('…');
                return Cow::Owned(out);
            }
        }
    }
    Cow::Owned(out)
}

/// Makes text safe for a terminal: control characters (so ANSI escape sequences lose their
/// ESC), bidi overrides and invisible format characters become visible `\n`, `\x1b`,
/// `\u{202e}` forms; truncated to `max_chars` characters with an ellipsis (`0` = no limit).
/// Backslashes are left alone, so text that already holds escapes is not escaped twice; an
/// application's own string is shown with [`literal`] or [`quoted`] instead.
pub fn sanitize(s: &str, max_chars: usize) -> Cow<'_, str> {
    escape(s, Mode::Scrub, max_chars)
}

/// An application's string, unambiguous for a terminal without quotes: as [`sanitize`], and a
/// literal `\` is doubled, so the text `\x1b` reads `\\x1b` and never passes for an escape.
pub fn literal(s: &str, max_chars: usize) -> Cow<'_, str> {
    escape(s, Mode::Literal, max_chars)
}

/// An application's string, quoted for a terminal: `\` and `"` are escaped, then the rest as
/// [`sanitize`] does, within `max_chars` characters of content (`0` = no limit).
pub fn quoted(s: &str, max_chars: usize) -> String {
    let inner = escape(s, Mode::Quoted, max_chars);
    let mut out = String::with_capacity(inner.len() + 2);
    out.push('"');
    out.push_str(&inner);
    out.push('"');
    out
}

/// Whole lines of output (several lines, already composed): every hostile character but the
/// line feed is escaped, as [`sanitize`] does. The last guard before text is written to a
/// terminal; the pieces that came from applications were escaped when they were put in.
pub fn scrub_lines(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_hostile(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if c == '\n' {
            out.push(c);
        } else {
            escape_char(c, Mode::Scrub, &mut out);
        }
    }
    Cow::Owned(out)
}

/// A string that came from an application (a name, a description, an action's name, a
/// toolkit's answer). It has no `Display` and does not deref to `str`: it reaches a terminal
/// only through [`literal`] or [`quoted`], and JSON only through the JSON writer, which escapes
/// what a terminal would act on. [`AppText::as_str`] gives the text itself, for matching,
/// comparing and handing back to the application, never for printing. Its `Debug` form is the
/// quoted one.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AppText(String);

impl AppText {
    pub fn new(s: impl Into<String>) -> AppText {
        AppText(s.into())
    }

    /// The text as the application gave it, for matching, comparing, measuring and sending
    /// back to the application; never for printing (use [`AppText::literal`] or
    /// [`AppText::quoted`]).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// See [`literal`].
    pub fn literal(&self, max_chars: usize) -> Cow<'_, str> {
        literal(&self.0, max_chars)
    }

    /// See [`quoted`].
    pub fn quoted(&self, max_chars: usize) -> String {
        quoted(&self.0, max_chars)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The bytes it holds on the heap (for measuring a snapshot's size).
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// A new app string built from this one (a method naming an action, `<method> → true`):
    /// what is made of an app's text stays an app's text.
    pub fn map(&self, f: impl FnOnce(&str) -> String) -> AppText {
        AppText(f(&self.0))
    }

    /// Mutable access for the code that builds the text (joining label names, cutting a
    /// long value); the result is still an application's string.
    pub fn as_mut_string(&mut self) -> &mut String {
        &mut self.0
    }
}

impl std::fmt::Debug for AppText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.quoted(0))
    }
}

impl From<String> for AppText {
    fn from(s: String) -> AppText {
        AppText(s)
    }
}

impl From<&str> for AppText {
    fn from(s: &str) -> AppText {
        AppText(s.to_string())
    }
}

impl From<&String> for AppText {
    fn from(s: &String) -> AppText {
        AppText(s.clone())
    }
}

impl std::borrow::Borrow<str> for AppText {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for AppText {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for AppText {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for AppText {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<AppText> for str {
    fn eq(&self, other: &AppText) -> bool {
        self == other.0
    }
}

impl PartialEq<AppText> for &str {
    fn eq(&self, other: &AppText) -> bool {
        *self == other.0
    }
}

impl PartialEq<AppText> for String {
    fn eq(&self, other: &AppText) -> bool {
        *self == other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_is_unambiguous() {
        assert_eq!(quoted("plain", 0), "\"plain\"");
        assert_eq!(quoted("a\"b\\c", 0), "\"a\\\"b\\\\c\"");
        assert_eq!(quoted("esc\x1b[2J", 0), "\"esc\\x1b[2J\"");
        // The text `\x1b` and an ESC never look alike.
        assert_ne!(quoted("\\x1b", 0), quoted("\x1b", 0));
        assert_ne!(literal("\\x1b", 0), literal("\x1b", 0));
        assert_eq!(literal("\\x1b", 0), "\\\\x1b");
    }

    #[test]
    fn escapes_controls_and_bidi() {
        assert_eq!(sanitize("plain", 0), "plain");
        assert_eq!(sanitize("a\x1b[31mred", 0), "a\\x1b[31mred");
        assert_eq!(sanitize("x\u{202e}y", 0), "x\\u{202e}y");
        assert_eq!(sanitize("l1\nl2", 0), "l1\\nl2");
        assert_eq!(sanitize("\u{9b}c", 0), "\\x9bc");
        assert_eq!(sanitize("del\x7f", 0), "del\\x7f");
        // sanitize leaves backslashes for text that already holds escapes.
        assert_eq!(sanitize("a\\nb", 0), "a\\nb");
    }

    #[test]
    fn escapes_every_invisible_character_the_terminal_would_hide() {
        for c in [
            '\u{00AD}',
            '\u{034F}',
            '\u{180E}',
            '\u{3164}',
            '\u{2028}',
            '\u{2029}',
            '\u{200B}',
            '\u{2066}',
            '\u{2069}',
            '\u{FE0F}',
            '\u{FEFF}',
            '\u{E0001}',
            '\u{E0041}',
            '\u{E007F}',
            '\u{E0100}',
            '\u{115F}',
            '\u{FFA0}',
        ] {
            let s = format!("a{c}b");
            let out = sanitize(&s, 0);
            assert!(!out.contains(c), "U+{:04X} passed raw", c as u32);
            assert!(out.starts_with('a') && out.ends_with('b'), "{out}");
        }
        // Ordinary text, accents and CJK stay as they are.
        for ok in ["Grüße", "日本語", "émoji ☕", "Ωmega"] {
            assert_eq!(sanitize(ok, 0), ok);
        }
    }

    #[test]
    fn truncates_with_ellipsis() {
        assert_eq!(sanitize("abcdefgh", 5), "abcd…");
        assert_eq!(sanitize("abcde", 5), "abcde");
        let long = "\x07".repeat(100);
        let out = sanitize(&long, 10);
        assert!(out.chars().count() <= 10, "{out}");
        assert!(out.ends_with('…'));
        // Cut at an escape's boundary, never inside it.
        assert_eq!(sanitize("ab\x1bcdef", 6), "ab…");
        assert_eq!(quoted(&"x".repeat(1_000_000), 8), "\"xxxxxxx…\"");
    }

    #[test]
    fn scrub_lines_keeps_line_feeds_only() {
        assert_eq!(
            scrub_lines("a\nb\x1b]52;c;x\x07\n"),
            "a\nb\\x1b]52;c;x\\x07\n"
        );
        assert_eq!(scrub_lines("a\\x1b\n"), "a\\x1b\n");
        assert_eq!(scrub_lines("r\rx\u{202e}"), "r\\rx\\u{202e}");
    }

    #[test]
    fn app_text_shows_only_escaped() {
        let t = AppText::new("evil\x1b[2J\"");
        assert_eq!(format!("{t:?}"), "\"evil\\x1b[2J\\\"\"");
        assert_eq!(t.literal(0), "evil\\x1b[2J\"");
        assert_eq!(t.as_str(), "evil\x1b[2J\"");
        assert_eq!(t, "evil\x1b[2J\"");
        assert_eq!(
            serde_json::to_string(&t).ok().as_deref(),
            Some("\"evil\\u001b[2J\\\"\"")
        );
    }
}
