//! The tree pane's model: one window's snapshot with its target index, the folded (or raw)
//! visible lines, per-node collapse, the "showing" view (nodes that are neither showing nor
//! hold a showing one are left out), the id → row lookup, and in-place patches of single nodes.
//! Pure: no terminal, no IO. Lines are rebuilt only when the tree, folding, collapse or the
//! hidden set changes, never per frame.

use std::collections::HashSet;

use crate::fold::{self, Line};
use crate::model::{Node, NodeId, Snapshot, State};
use crate::selector::SnapshotIndex;

/// FNV-1a: a cheap, stable hash for the id lookup table (collisions are checked by comparing
/// ids, so quality only affects speed).
fn hash_id(id: &NodeId) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.0.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Backend id → row, as a sorted table of (hash, row): about 12 bytes a node.
#[derive(Debug, Default)]
struct IdIndex {
    table: Vec<(u64, u32)>,
}

impl IdIndex {
    fn new(snap: &Snapshot) -> IdIndex {
        let mut table: Vec<(u64, u32)> = snap
            .nodes
            .iter()
            .enumerate()
            .map(|(row, n)| (hash_id(&n.id), row as u32))
            .collect();
        table.sort_unstable();
        IdIndex { table }
    }

    fn get(&self, snap: &Snapshot, id: &NodeId) -> Option<usize> {
        let h = hash_id(id);
        let start = self.table.partition_point(|&(x, _)| x < h);
        self.table[start..]
            .iter()
            .take_while(|&&(x, _)| x == h)
            .map(|&(_, row)| row as usize)
            .find(|&row| snap.nodes.get(row).is_some_and(|n| &n.id == id))
    }
}

/// What a patch of one node changed, so callers redo only the work that depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PatchEffect {
    /// Anything a target can match on (role, name, description, value, states) changed.
    pub matchable: bool,
    /// Anything shown changed.
    pub visible: bool,
    /// The visible lines changed (a node started or stopped showing in the showing view).
    pub lines: bool,
    /// Anything the accessibility rules look at changed: what a target matches on, the
    /// interfaces, the label relation, or bounds where the tree's read had them.
    pub audited: bool,
}

/// One window's tree as the tree pane shows it.
#[derive(Debug)]
pub struct TreeState {
    /// The window (or app) this tree was read from.
    pub root: NodeId,
    pub snap: Snapshot,
    /// Built once per snapshot; patched row by row.
    pub index: SnapshotIndex,
    ids: IdIndex,
    /// Show every node instead of folding unnamed single-child wrappers.
    pub raw: bool,
    /// Leave out nodes that are neither showing nor an ancestor of a showing node (not in the
    /// raw view, which shows every node).
    pub showing_only: bool,
    /// Collapsed nodes, by identity so collapse survives re-reads.
    pub collapsed: HashSet<NodeId>,
    /// When set, rows whose entry is false are hidden (non-matching branches).
    keep: Option<Vec<bool>>,
    /// The visible lines in pre-order (rows strictly increase).
    pub lines: Vec<Line>,
    /// Whether the read that made this tree had bounds (AT-SPI reads do not fetch them; the
    /// details pane's fresh read adds them one element at a time).
    pub bounds_read: bool,
}

impl TreeState {
    /// Indexes a fresh snapshot and lays out its lines.
    pub fn new(
        root: NodeId,
        mut snap: Snapshot,
        raw: bool,
        collapsed: HashSet<NodeId>,
    ) -> TreeState {
        // Readers grow the node list by doubling; a 100,000-node tree would keep ~30% spare.
        snap.nodes.shrink_to_fit();
        let index = SnapshotIndex::new(&snap);
        let ids = IdIndex::new(&snap);
        let bounds_read = snap.nodes.iter().any(|n| n.bounds.is_some());
        let mut t = TreeState {
            bounds_read,
            root,
            snap,
            index,
            ids,
            raw,
            showing_only: false,
            collapsed,
            keep: None,
            lines: Vec::new(),
        };
        t.rebuild_lines();
        t
    }

    /// Recomputes the visible lines (after a collapse, raw or hidden-set change).
    pub fn rebuild_lines(&mut self) {
        let snap = &self.snap;
        let collapsed_rows: Vec<bool> = if self.collapsed.is_empty() {
            Vec::new()
        } else {
            snap.nodes
                .iter()
                .map(|n| self.collapsed.contains(&n.id))
                .collect()
        };
        let showing = (self.showing_only && !self.raw).then(|| self.showing_set());
        let keep: Option<Vec<bool>> = match (self.keep.as_deref(), showing) {
            (Some(k), Some(s)) => Some(k.iter().zip(s).map(|(a, b)| *a && b).collect()),
            (Some(k), None) => Some(k.to_vec()),
            (None, s) => s,
        };
        let keep = keep.as_deref();
        // A row outside the kept set hides its whole subtree too (the set holds ancestors of
        // every kept row), so treat it as collapsed and drop it below.
        let is_collapsed = |r: usize| {
            collapsed_rows.get(r).copied().unwrap_or(false)
                || keep.is_some_and(|k| !k.get(r).copied().unwrap_or(false))
        };
        let mut lines = fold::lines(snap, self.raw, &is_collapsed);
        if let Some(k) = keep {
            lines.retain(|l| k.get(l.row).copied().unwrap_or(false));
        }
        self.lines = lines;
    }

    /// Turns the showing view on or off (on leaves the raw view: the raw tree is every node).
    pub fn set_showing_only(&mut self, on: bool) {
        self.showing_only = on;
        if on {
            self.raw = false;
        }
        self.rebuild_lines();
    }

    /// Rows that are showing or hold a showing node, and the root.
    fn showing_set(&self) -> Vec<bool> {
        self.snap.showing_mask()
    }

    /// Hides rows not in `keep` (`None` shows everything).
    pub fn set_keep(&mut self, keep: Option<Vec<bool>>) {
        self.keep = keep;
        self.rebuild_lines();
    }

    /// Whether non-matching branches are hidden.
    pub fn hiding(&self) -> bool {
        self.keep.is_some()
    }

    /// The row of the element with backend id `id`.
    pub fn row_of(&self, id: &NodeId) -> Option<usize> {
        self.ids.get(&self.snap, id)
    }

    pub fn node(&self, row: usize) -> Option<&Node> {
        self.snap.nodes.get(row)
    }

    /// The line showing `row`: its own line, or for a folded wrapper the line it folds into.
    /// `None` when the row is inside a collapsed or hidden subtree.
    pub fn line_of(&self, row: usize) -> Option<usize> {
        let i = self.lines.partition_point(|l| l.row < row);
        let line = self.lines.get(i)?;
        if line.row == row {
            return Some(i);
        }
        // A folded chain: row … line.row is a run of single-child wrappers ending at the line.
        if line.folded > 0 && line.row - row <= line.folded {
            let mut cur = line.row;
            while cur > row {
                cur = self.snap.nodes.get(cur)?.parent?;
            }
            if cur == row {
                return Some(i);
            }
        }
        None
    }

    /// Whether `row` has children in the view (so it can be collapsed or expanded).
    pub fn has_children(&self, row: usize) -> bool {
        self.node(row).is_some_and(|n| !n.children.is_empty())
    }

    pub fn is_collapsed(&self, row: usize) -> bool {
        self.node(row)
            .is_some_and(|n| self.collapsed.contains(&n.id))
    }

    /// Collapses or expands `row`; returns whether anything changed.
    pub fn set_collapsed(&mut self, row: usize, on: bool) -> bool {
        let Some(id) = self.node(row).map(|n| n.id.clone()) else {
            return false;
        };
        if !self.has_children(row) {
            return false;
        }
        let changed = if on {
            self.collapsed.insert(id)
        } else {
            self.collapsed.remove(&id)
        };
        if changed {
            self.rebuild_lines();
        }
        changed
    }

    /// Expands every ancestor of `row` so it is on a line; returns whether lines changed.
    pub fn reveal(&mut self, row: usize) -> bool {
        let mut changed = false;
        let mut cur = self.node(row).and_then(|n| n.parent);
        while let Some(p) = cur {
            if let Some(n) = self.snap.nodes.get(p) {
                changed |= self.collapsed.remove(&n.id);
                cur = n.parent;
            } else {
                break;
            }
        }
        if changed {
            self.rebuild_lines();
        }
        changed
    }

    /// Collapses every node with children below the root (`true`) or expands all (`false`).
    pub fn set_all_collapsed(&mut self, on: bool) {
        if on {
            self.collapsed = self
                .snap
                .nodes
                .iter()
                .skip(1)
                .filter(|n| !n.children.is_empty())
                .map(|n| n.id.clone())
                .collect();
        } else {
            self.collapsed.clear();
        }
        self.rebuild_lines();
    }

    /// Replaces the node at `row` with a fresh read of it (same element, structure kept) and
    /// updates the target index. Lines do not change: a node's children are not re-read here.
    pub fn patch(&mut self, row: usize, fresh: Node) -> PatchEffect {
        let Some(old) = self.snap.nodes.get(row) else {
            return PatchEffect::default();
        };
        let matchable = old.role != fresh.role
            || old.raw_role != fresh.raw_role
            || old.name != fresh.name
            || old.description != fresh.description
            || old.value != fresh.value
            || old.states != fresh.states;
        let visible = matchable
            || old.actions != fresh.actions
            || old.interfaces != fresh.interfaces
            || old.bounds != fresh.bounds;
        let audited = matchable
            || old.interfaces != fresh.interfaces
            // The bulk read has the label relation of interactive elements only; a fresh read
            // of another element brings its label, which no rule looks at.
            || old.label != fresh.label && crate::audit::interactive(&fresh)
            || self.bounds_read && old.bounds != fresh.bounds;
        if !visible && !audited {
            return PatchEffect::default();
        }
        let showing_flipped = old.states.has(State::Showing) != fresh.states.has(State::Showing);
        let merged = Node {
            parent: old.parent,
            children: old.children.clone(),
            depth: old.depth,
            // A single-node re-read does not look at children: what the read said of them stays.
            managed: old.managed.clone(),
            child_count_claimed: old.child_count_claimed,
            repeat: old.repeat.clone(),
            ..fresh
        };
        let old = std::mem::replace(&mut self.snap.nodes[row], merged);
        if matchable {
            self.index.update_row(&self.snap, row, &old);
        }
        let lines = showing_flipped && self.showing_only && !self.raw;
        if lines {
            self.rebuild_lines();
        }
        PatchEffect {
            matchable,
            visible,
            lines,
            audited,
        }
    }

    /// Rows that are `rows` or an ancestor of one: what stays when non-matching branches hide.
    pub fn keep_set(&self, rows: &[usize]) -> Vec<bool> {
        self.snap.with_ancestors(rows.iter().copied())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;
    use crate::model::{Role, SnapshotId, preorder};

    /// frame "F" > panel (unnamed) > [group "G" > [button "A", button "B"]], frame > label
    /// "C"; none of them says it is enabled.
    pub(crate) fn snap() -> Snapshot {
        let mk = |id: &str, role, name: &str, kids: Vec<usize>| {
            let mut n = Node::new(NodeId(id.into()), role, "x");
            n.name = name.into();
            n.children = kids;
            n
        };
        let nodes = vec![
            mk("f", Role::Frame, "F", vec![1, 4]),
            mk("p", Role::Panel, "", vec![2]),
            mk("g", Role::Group, "G", vec![3, 5]),
            mk("a", Role::Button, "A", vec![]),
            mk("c", Role::Label, "C", vec![]),
            mk("b", Role::Button, "B", vec![]),
        ];
        Snapshot {
            id: SnapshotId::next(),
            app: "app".into(),
            window: "F".into(),
            nodes: preorder(nodes, 0),
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        }
    }

    #[test]
    fn lines_fold_collapse_and_lookup() {
        let t = TreeState::new(NodeId("f".into()), snap(), false, HashSet::new());
        let names: Vec<_> = t
            .lines
            .iter()
            .map(|l| t.node(l.row).unwrap().name.clone())
            .collect();
        assert_eq!(names, ["F", "G", "A", "B", "C"]);
        // The folded panel (row 1) shows on G's line.
        assert_eq!(t.line_of(1), Some(1));
        assert_eq!(t.row_of(&NodeId("b".into())), Some(4));
        let mut t = t;
        assert!(t.set_collapsed(2, true));
        assert_eq!(t.lines.len(), 3);
        assert_eq!(t.line_of(3), None);
        assert!(t.reveal(3));
        assert_eq!(t.lines.len(), 5);
        let keep = t.keep_set(&[4]);
        t.set_keep(Some(keep));
        let rows: Vec<_> = t.lines.iter().map(|l| l.row).collect();
        assert_eq!(rows, [0, 2, 4]);
    }

    #[test]
    fn patch_reports_what_changed() {
        let mut t = TreeState::new(NodeId("f".into()), snap(), false, HashSet::new());
        let mut fresh = t.node(3).unwrap().clone();
        fresh.children.clear();
        fresh.parent = None;
        assert_eq!(t.patch(3, fresh.clone()), PatchEffect::default());
        fresh.name = "A2".into();
        let e = t.patch(3, fresh);
        assert!(e.matchable && e.visible);
        assert_eq!(t.node(3).unwrap().parent, Some(2));
        let target = crate::selector::Target::parse("\"A2\"").unwrap();
        assert_eq!(
            crate::selector::matches(&t.index, &t.snap, &target),
            vec![3]
        );
    }
}
