//! How close a typed word must be to a known one for "did you mean" hints and near misses
//! (the edit distance itself is `strsim`'s).

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions) in characters,
/// from `strsim`. Callers keep inputs short (names, roles); cost is `a.len() * b.len()`.
pub(crate) use strsim::osa_distance as edit_distance;

/// The most edits a "did you mean" suggestion may be away from what was typed.
pub(crate) fn close_enough(typed: &str) -> usize {
    (typed.chars().count() / 3).max(2)
}

/// Names from `known` within [`close_enough`] edits of `typed`, closest first, at most `max`.
pub(crate) fn closest<'a>(
    typed: &str,
    known: impl Iterator<Item = &'a str>,
    max: usize,
) -> Vec<&'a str> {
    let limit = close_enough(typed);
    let typed = typed.to_lowercase();
    let mut scored: Vec<(usize, &str)> = known
        .map(|k| (edit_distance(&typed, k), k))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.into_iter().take(max).map(|(_, k)| k).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("chekced", "checked"), 1);
        assert_eq!(edit_distance("emial", "email"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("caf\u{e9}", "cfa\u{e9}"), 1);
        assert_eq!(edit_distance("\u{e9}t\u{e9}", "ete"), 2);
    }

    #[test]
    fn closest_names() {
        let known = ["checked", "checkable", "enabled"];
        assert_eq!(closest("chekced", known.into_iter(), 3), ["checked"]);
        assert!(closest("zzzzzz", known.into_iter(), 3).is_empty());
    }
}
