//! Edit distance between short strings, for "did you mean" hints and near misses.

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions) in characters.
/// Callers keep inputs short (names, roles); cost is `a.len() * b.len()`.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    // Near misses compare a query with every name of a big tree: ASCII skips decoding.
    if a.is_ascii() && b.is_ascii() {
        osa(a.as_bytes(), b.as_bytes())
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        osa(&a, &b)
    }
}

fn osa<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() || b.is_empty() {
        return a.len().max(b.len());
    }
    let w = b.len() + 1;
    // Three rolling rows in one buffer: two back is needed for transpositions.
    let mut rows = vec![0usize; 3 * w];
    for (j, cell) in rows[w..2 * w].iter_mut().enumerate() {
        *cell = j;
    }
    let (mut prev2, mut prev, mut cur) = (0, w, 2 * w);
    for i in 1..=a.len() {
        rows[cur] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[prev + j] + 1)
                .min(rows[cur + j - 1] + 1)
                .min(rows[prev + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[prev2 + j - 2] + 1);
            }
            rows[cur + j] = d;
        }
        (prev2, prev, cur) = (prev, cur, prev2);
    }
    rows[prev + b.len()]
}

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
