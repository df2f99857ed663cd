//! Escaping of untrusted strings from applications before they reach a terminal.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as is: C0/C1 controls, DEL, bidi overrides and
/// isolates, zero-width and other invisible format characters that can disguise text.
fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{061C}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
}

/// Escapes control characters, ANSI escape sequences (their ESC byte), bidi overrides and
/// invisible format characters as visible `\n`, `\x1b`, `\u{202e}` forms, and truncates to
/// `max_chars` characters with an ellipsis (`0` = no limit).
pub fn sanitize(s: &str, max_chars: usize) -> Cow<'_, str> {
    let needs_escape = s.chars().any(is_hostile);
    let too_long = max_chars > 0 && s.chars().nth(max_chars).is_some();
    if !needs_escape && !too_long {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len().min(max_chars.max(16) * 4));
    let mut count = 0usize;
    for c in s.chars() {
        let piece: Cow<'_, str> = if is_hostile(c) {
            Cow::Owned(match c {
                '\n' => "\\n".to_string(),
                '\r' => "\\r".to_string(),
                '\t' => "\\t".to_string(),
                c if (c as u32) < 0x100 => format!("\\x{:02x}", c as u32),
                c => format!("\\u{{{:x}}}", c as u32),
            })
        } else {
            let mut b = [0u8; 4];
            Cow::Owned(c.encode_utf8(&mut b).to_string())
        };
        let width = piece.chars().count();
        if max_chars > 0 && count + width > max_chars.saturating_sub(1) && too_long {
            out.push('…');
            return Cow::Owned(out);
        }
        count += width;
        out.push_str(&piece);
    }
    if max_chars > 0 && count > max_chars {
        let mut t: String = out.chars().take(max_chars.saturating_sub(1)).collect();
        t.push('…');
        return Cow::Owned(t);
    }
    Cow::Owned(out)
}

/// A string from an application, quoted for a terminal: `\` and `"` are escaped, then the
/// rest as [`sanitize`] does, within `max_chars` characters of content (`0` = no limit).
pub fn quoted(s: &str, max_chars: usize) -> String {
    let escaped = if s.contains(['\\', '"']) {
        Cow::Owned(s.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        Cow::Borrowed(s)
    };
    format!("\"{}\"", sanitize(&escaped, max_chars))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_is_unambiguous() {
        assert_eq!(quoted("plain", 0), "\"plain\"");
        assert_eq!(quoted("a\"b\\c", 0), "\"a\\\"b\\\\c\"");
        assert_eq!(quoted("esc\x1b[2J", 0), "\"esc\\x1b[2J\"");
    }

    #[test]
    fn escapes_controls_and_bidi() {
        assert_eq!(sanitize("plain", 0), "plain");
        assert_eq!(sanitize("a\x1b[31mred", 0), "a\\x1b[31mred");
        assert_eq!(sanitize("x\u{202e}y", 0), "x\\u{202e}y");
        assert_eq!(sanitize("l1\nl2", 0), "l1\\nl2");
        assert_eq!(sanitize("\u{9b}c", 0), "\\x9bc");
    }

    #[test]
    fn truncates_with_ellipsis() {
        assert_eq!(sanitize("abcdefgh", 5), "abcd…");
        assert_eq!(sanitize("abcde", 5), "abcde");
        let long = "\x07".repeat(100);
        let out = sanitize(&long, 10);
        assert!(out.chars().count() <= 10, "{out}");
        assert!(out.ends_with('…'));
    }
}
