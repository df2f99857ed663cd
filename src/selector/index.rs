//! A per-snapshot index of folded node text (trimmed, lower-cased name, description, value, and
//! on demand the label relation's text), built once per snapshot and shared by every resolution
//! and suggestion against it.

use std::sync::OnceLock;

use crate::model::{AppText, Snapshot, SnapshotId};

use super::suggest::Groups;

/// Name, description, value: the order queries look at a node's text in.
pub(crate) const FIELDS: usize = 3;

/// Strings stored back to back, each followed by NUL so a search for text without NUL never
/// matches across two of them.
#[derive(Debug, Default)]
pub(crate) struct Column {
    pub(crate) text: String,
    pub(crate) spans: Vec<(usize, usize)>,
}

impl Column {
    fn with_capacity(entries: usize, bytes: usize) -> Column {
        Column {
            text: String::with_capacity(bytes),
            spans: Vec::with_capacity(entries),
        }
    }

    fn push_with(&mut self, f: impl FnOnce(&mut String)) {
        let start = self.text.len();
        f(&mut self.text);
        self.spans.push((start, self.text.len()));
        self.text.push('\0');
    }

    pub(crate) fn get(&self, entry: usize) -> &str {
        self.spans
            .get(entry)
            .and_then(|&(s, e)| self.text.get(s..e))
            .unwrap_or("")
    }
}

/// Replaces the text of `entry` in place, shifting later entries, so the column stays laid
/// out exactly as a fresh build would lay it out (the substring scan relies on that order).
fn splice(col: &mut Column, entry: usize, f: impl FnOnce(&mut String)) {
    let Some(&(start, end)) = col.spans.get(entry) else {
        return;
    };
    let mut fresh = String::new();
    f(&mut fresh);
    if col.text.get(start..end) == Some(fresh.as_str()) {
        return;
    }
    let delta = fresh.len() as isize - (end - start) as isize;
    col.text.replace_range(start..end, &fresh);
    col.spans[entry].1 = start + fresh.len();
    if delta != 0 {
        for span in &mut col.spans[entry + 1..] {
            span.0 = span.0.wrapping_add_signed(delta);
            span.1 = span.1.wrapping_add_signed(delta);
        }
    }
}

/// Lower-cases `s` into `out` one character at a time; queries are folded the same way, so
/// both sides agree even where whole-string lower-casing is context-sensitive (final sigma).
pub(crate) fn fold_into(out: &mut String, s: &str) {
    if s.is_ascii() {
        out.extend(s.chars().map(|c| c.to_ascii_lowercase()));
    } else {
        out.extend(s.chars().flat_map(char::to_lowercase));
    }
}

pub(crate) fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(&mut out, s);
    out
}

/// Folded text of every node of one snapshot. Build it once per snapshot (a 50,000-node tree
/// takes a few milliseconds) and pass it to [`resolve_with`](super::resolve_with),
/// [`matches`](super::matches) and [`suggest_with`](super::suggest_with); an index built for
/// another snapshot is detected and replaced by a fresh one, never trusted.
#[derive(Debug)]
pub struct SnapshotIndex {
    snapshot: SnapshotId,
    len: usize,
    /// Entry `FIELDS * row + field`: trimmed, folded name, description and value text.
    pub(crate) folded: Column,
    /// Entry `FIELDS * row + field`: the same texts trimmed with case kept, for exact matching
    /// (trimming on every query showed up as a fifth of an exact query's time).
    pub(crate) exact: Column,
    /// Entry `row`: the raw toolkit role, trimmed and folded.
    pub(crate) raw_roles: Column,
    /// Role/name groups and subtree ranges, built the first time a suggestion is asked for.
    pub(crate) groups: OnceLock<Groups>,
    /// The label relation's text, built the first time a target asks for a label (few do, and
    /// a 100,000-node tree should not carry two more columns it never uses).
    labels: OnceLock<Labels>,
}

/// Entry `row`: the node's label text, trimmed; empty when it has none.
#[derive(Debug)]
pub(crate) struct Labels {
    pub(crate) exact: Column,
    pub(crate) folded: Column,
}

impl Labels {
    fn build(snap: &Snapshot) -> Labels {
        let n = snap.nodes.len();
        let mut exact = Column::with_capacity(n, n);
        let mut folded = Column::with_capacity(n, n);
        for node in &snap.nodes {
            let text = node
                .label
                .as_ref()
                .map(AppText::as_str)
                .map_or("", str::trim);
            exact.push_with(|t| t.push_str(text));
            folded.push_with(|t| fold_into(t, text));
        }
        Labels { exact, folded }
    }
}

impl SnapshotIndex {
    pub fn new(snap: &Snapshot) -> SnapshotIndex {
        let n = snap.nodes.len();
        let mut folded = Column::with_capacity(n * FIELDS, n * 32);
        let mut exact = Column::with_capacity(n * FIELDS, n * 32);
        let mut raw_roles = Column::with_capacity(n, n * 8);
        for node in &snap.nodes {
            let value = node.value.as_ref().and_then(|v| v.as_text());
            let value = value.as_ref().map_or("", |v| v.as_str().trim());
            for text in [
                node.name.as_str().trim(),
                node.description.as_str().trim(),
                value,
            ] {
                folded.push_with(|t| fold_into(t, text));
                exact.push_with(|t| t.push_str(text));
            }
            raw_roles.push_with(|t| fold_into(t, node.raw_role.trim()));
        }
        SnapshotIndex {
            snapshot: snap.id,
            len: n,
            folded,
            exact,
            raw_roles,
            groups: OnceLock::new(),
            labels: OnceLock::new(),
        }
    }

    /// The label columns, built on first use.
    pub(crate) fn labels(&self, snap: &Snapshot) -> &Labels {
        self.labels.get_or_init(|| Labels::build(snap))
    }

    /// Whether this index was built from `snap` (same id and node count).
    pub fn covers(&self, snap: &Snapshot) -> bool {
        self.snapshot == snap.id && self.len == snap.nodes.len()
    }

    /// This index when it was built from `snap`; otherwise a fresh one, kept in `slot`.
    pub(crate) fn usable_for<'a>(
        &'a self,
        snap: &Snapshot,
        slot: &'a mut Option<SnapshotIndex>,
    ) -> &'a SnapshotIndex {
        if self.covers(snap) {
            self
        } else {
            slot.insert(SnapshotIndex::new(snap))
        }
    }

    /// Re-indexes one row after its node was replaced in place (same snapshot, same rows; the
    /// TUI applies single-node events this way). `old` is the node as it was, so the
    /// suggestion groups are dropped only when role, name, description or label changed.
    pub fn update_row(&mut self, snap: &Snapshot, row: usize, old: &crate::model::Node) {
        let Some(node) = snap.nodes.get(row) else {
            return;
        };
        if row >= self.len {
            return;
        }
        let value = node.value.as_ref().and_then(|v| v.as_text());
        let value = value.as_ref().map_or("", |v| v.as_str().trim());
        let fields = [
            node.name.as_str().trim(),
            node.description.as_str().trim(),
            value,
        ];
        for (field, text) in fields.into_iter().enumerate() {
            let entry = row * FIELDS + field;
            splice(&mut self.folded, entry, |t| fold_into(t, text));
            splice(&mut self.exact, entry, |t| t.push_str(text));
        }
        splice(&mut self.raw_roles, row, |t| {
            fold_into(t, node.raw_role.trim())
        });
        if old.role != node.role
            || old.name != node.name
            || old.description != node.description
            || old.label != node.label
        {
            self.groups = OnceLock::new();
        }
        if old.label != node.label {
            self.labels = OnceLock::new();
        }
    }

    pub(crate) fn folded_field(&self, row: usize, field: usize) -> &str {
        self.folded.get(row * FIELDS + field)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::backend::fixture::synthetic;
    use crate::model::Value;
    use crate::selector::{Target, matches};

    #[test]
    fn update_row_matches_a_fresh_build() {
        let nodes = synthetic::generate(500, 3);
        let mut snap = Snapshot {
            id: SnapshotId::next(),
            app: "a".into(),
            window: "w".into(),
            nodes,
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        };
        let mut ix = SnapshotIndex::new(&snap);
        let row = snap.nodes.iter().position(|n| n.value.is_some()).unwrap();
        for (name, value) in [
            ("Zebra crossing", "a much longer value than before"),
            ("Z", ""),
        ] {
            let old = snap.nodes[row].clone();
            snap.nodes[row].name = name.into();
            snap.nodes[row].value = Some(Value::Text { text: value.into() });
            ix.update_row(&snap, row, &old);
            let fresh = SnapshotIndex::new(&snap);
            assert_eq!(ix.folded.text, fresh.folded.text);
            assert_eq!(ix.folded.spans, fresh.folded.spans);
            assert_eq!(ix.exact.text, fresh.exact.text);
            assert_eq!(ix.exact.spans, fresh.exact.spans);
            for q in ["zebra", "\"Z\"", "value", "longer", "settings"] {
                let t = Target::parse_lenient(q).unwrap();
                assert_eq!(matches(&ix, &snap, &t), matches(&fresh, &snap, &t), "{q}");
            }
        }
    }
}
