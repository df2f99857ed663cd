//! A per-snapshot index of folded node text (trimmed, lower-cased name, description, value),
//! built once per snapshot and shared by every resolution and suggestion against it.

use std::sync::OnceLock;

use crate::model::{Snapshot, SnapshotId};

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
    /// Entry `row`: the value as text, trimmed, case kept (for exact matching).
    pub(crate) values: Column,
    /// Entry `row`: the raw toolkit role, trimmed and folded.
    pub(crate) raw_roles: Column,
    /// Role/name groups and subtree ranges, built the first time a suggestion is asked for.
    pub(crate) groups: OnceLock<Groups>,
}

impl SnapshotIndex {
    pub fn new(snap: &Snapshot) -> SnapshotIndex {
        let n = snap.nodes.len();
        let mut folded = Column::with_capacity(n * FIELDS, n * 32);
        let mut values = Column::with_capacity(n, n * 8);
        let mut raw_roles = Column::with_capacity(n, n * 8);
        for node in &snap.nodes {
            let value = node.value.as_ref().and_then(|v| v.as_text());
            let value = value.as_deref().map_or("", str::trim);
            folded.push_with(|t| fold_into(t, node.name.trim()));
            folded.push_with(|t| fold_into(t, node.description.trim()));
            folded.push_with(|t| fold_into(t, value));
            values.push_with(|t| t.push_str(value));
            raw_roles.push_with(|t| fold_into(t, node.raw_role.trim()));
        }
        SnapshotIndex {
            snapshot: snap.id,
            len: n,
            folded,
            values,
            raw_roles,
            groups: OnceLock::new(),
        }
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

    pub(crate) fn folded_field(&self, row: usize, field: usize) -> &str {
        self.folded.get(row * FIELDS + field)
    }
}
