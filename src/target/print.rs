//! The canonical string form of a target (`Display`), safe to show on a terminal.

use std::fmt::{self, Write};

use super::{RoleSpec, Target};
use crate::model::sanitize;

/// Writes `s` as a double-quoted string. Escapes `"` and `\`, and every character the model's
/// `sanitize` would escape, in the form `sanitize` uses (`\n`, `\x1b`, `\u{202e}`), so the one
/// definition of "hostile to a terminal" lives in the model.
pub(crate) fn write_quoted(out: &mut impl Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    let mut buf = [0u8; 4];
    for c in s.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            _ => out.write_str(&sanitize(c.encode_utf8(&mut buf), 0))?,
        }
    }
    out.write_char('"')
}

/// Writes one clause (role, query, states) without its ancestors.
fn write_clause(f: &mut impl Write, t: &Target) -> fmt::Result {
    let mut sep = "";
    if let Some(role) = &t.role {
        match role {
            RoleSpec::Role(r) => f.write_str(r.as_str())?,
            RoleSpec::Raw(raw) => {
                f.write_str("role:")?;
                write_quoted(f, raw)?;
            }
        }
        sep = " ";
    }
    if let Some(q) = &t.query {
        f.write_str(sep)?;
        f.write_str(q.mode.prefix())?;
        write_quoted(f, &q.text)?;
        sep = " ";
    }
    if !t.states.is_empty() {
        f.write_str(sep)?;
        f.write_char('[')?;
        for (i, s) in t.states.iter().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            if !s.present {
                f.write_char('!')?;
            }
            f.write_str(s.state.as_str())?;
        }
        f.write_char(']')?;
    }
    Ok(())
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, clause) in self.chain().enumerate() {
            if i > 0 {
                f.write_str(" in ")?;
            }
            write_clause(f, clause)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes_terminal_hazards() {
        let mut s = String::new();
        write_quoted(&mut s, "a\"b\\c\nd\u{1b}[31m\u{202e}é").unwrap();
        assert_eq!(s, r#""a\"b\\c\nd\x1b[31m\u{202e}é""#);
        assert!(!s.chars().any(|c| c.is_control()));
    }
}
