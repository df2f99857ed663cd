//! The canonical string form of a target (`Display`), safe to show on a terminal.

use std::fmt::{self, Write};

use super::{Query, RoleSpec, Target};
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

/// Writes a query: its mode's prefix and the quoted text.
fn write_query(f: &mut impl Write, q: &Query) -> fmt::Result {
    f.write_str(q.mode.prefix())?;
    write_quoted(f, &q.text)
}

/// Writes one clause (role, query, states, label, neighbour, position) without its ancestors.
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
        write_query(f, q)?;
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
        sep = " ";
    }
    if let Some(label) = &t.label {
        f.write_str(sep)?;
        f.write_str("labelled-by ")?;
        write_query(f, label)?;
        sep = " ";
    }
    if let Some(after) = &t.after {
        f.write_str(sep)?;
        write!(f, "after {} ", after.role.as_str())?;
        write_query(f, &after.query)?;
        sep = " ";
    }
    if let Some(n) = t.nth {
        write!(f, "{sep}#{n}")?;
    }
    Ok(())
}

/// The most characters a printed string can take per byte of its text: an escape such as
/// `\u{10ffff}` is ten characters for a character of at least one byte.
const MAX_ESCAPED_PER_BYTE: usize = 10;

/// An upper bound on the length of the canonical string, in characters, computed without
/// printing: suggestions build thousands of targets whose printed form is far below the
/// limit, and printing each just to count it was a large part of their cost.
pub(crate) fn printed_len_bound(t: &Target) -> usize {
    let quoted = |text: &str| 3 + MAX_ESCAPED_PER_BYTE * text.len();
    t.chain()
        .map(|c| {
            let role = match &c.role {
                Some(RoleSpec::Role(r)) => r.as_str().len(),
                Some(RoleSpec::Raw(raw)) => 5 + quoted(raw),
                None => 0,
            };
            let states: usize = c
                .states
                .iter()
                .map(|s| s.state.as_str().len() + 2)
                .sum::<usize>()
                + 2;
            let label = c.label.as_ref().map_or(0, |q| 12 + quoted(&q.text));
            let after = c
                .after
                .as_ref()
                .map_or(0, |a| 7 + a.role.as_str().len() + quoted(&a.query.text));
            let query = c.query.as_ref().map_or(0, |q| quoted(&q.text));
            // Separators, `#` and up to ten digits, and " in ".
            role + query + states + label + after + 8 + 12 + 4
        })
        .sum()
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
    use crate::model::{Role, State};
    use crate::selector::{Neighbour, Parts, Query, QueryMode, StateReq};
    use proptest::prelude::*;

    fn hostile_text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just('a'),
                Just('"'),
                Just('\\'),
                Just('\u{1b}'),
                Just('\u{9b}'),
                Just('\u{202e}'),
                Just('\u{e0001}'),
                Just('\u{10ffff}'),
                any::<char>(),
            ],
            1..40,
        )
        .prop_map(|v| v.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// Suggestions skip printing a target when this bound says it fits: it must never be
        /// below the real length.
        #[test]
        fn the_length_bound_holds(
            texts in prop::collection::vec(hostile_text(), 4),
            raw in any::<bool>(),
            depth in 1usize..4,
        ) {
            let q = |t: &str| Query::new(t, QueryMode::Fuzzy).ok();
            let parts = || Parts {
                role: Some(if raw { RoleSpec::Raw(texts[0].clone()) } else {
                    RoleSpec::Role(Role::RadioMenuItem)
                }),
                query: q(&texts[1]),
                states: vec![StateReq::must_not(State::ManagesDescendants),
                             StateReq::must(State::MultiLine)],
                label: q(&texts[2]),
                after: q(&texts[3]).map(|q| Neighbour::new(Role::RadioMenuItem, q)),
                nth: Some(u32::MAX),
            };
            let Ok(mut t) = Target::from_parts(parts()) else { return Ok(()); };
            for _ in 1..depth {
                let Ok(inner) = Target::from_parts(parts()) else { return Ok(()); };
                t = inner.inside(t).unwrap();
            }
            let printed = t.to_string().chars().count();
            prop_assert!(printed_len_bound(&t) >= printed, "{} < {printed}", printed_len_bound(&t));
        }
    }

    #[test]
    fn quoting_escapes_terminal_hazards() {
        let mut s = String::new();
        write_quoted(&mut s, "a\"b\\c\nd\u{1b}[31m\u{202e}é").unwrap();
        assert_eq!(s, r#""a\"b\\c\nd\x1b[31m\u{202e}é""#);
        assert!(!s.chars().any(|c| c.is_control()));
    }
}
