//! The shortest unique target of a node: what the TUI copies, the recorder writes into
//! workflow steps, and `tree --targets` prints beside every node.

use std::collections::HashMap;

use super::index::SnapshotIndex;
use super::{MAX_TARGET_CHARS, MAX_WITHIN, Query, RoleSpec, StateReq, Target};
use crate::model::{Node, Role, Snapshot, State};

/// States worth naming in a suggestion: ones that describe what an element is rather than
/// what it is doing now, so the target still names it after a toggle, a selection or a focus
/// change (a recorded `check-box "Sync" [checked]` would stop resolving once unchecked).
const STABLE_STATES: &[State] = &[
    State::Editable,
    State::ReadOnly,
    State::Enabled,
    State::Sensitive,
    State::Focusable,
    State::Checkable,
    State::Selectable,
    State::Expandable,
    State::MultiLine,
    State::SingleLine,
    State::Required,
    State::HasPopup,
    State::Modal,
    State::Horizontal,
    State::Vertical,
    State::ManagesDescendants,
];

/// How many ancestors with a suggestion are tried for `in`.
const ANCESTOR_TRIES: usize = 16;

/// How far up `in` looks at all: keeps a node deep under unnamed wrappers from walking its
/// whole ancestry (and a whole-tree pass from going quadratic on deep trees).
const ANCESTOR_STEPS: usize = 64;

type RowsByText = HashMap<Role, HashMap<String, Vec<usize>>>;

/// Rows grouped by role and by role + trimmed name/description, and subtree ranges: enough to
/// count matches of a suggestion's shapes without running a resolution per candidate.
#[derive(Debug)]
pub(crate) struct Groups {
    by_role: HashMap<Role, Vec<usize>>,
    by_name: RowsByText,
    by_desc: RowsByText,
    /// One past the last row of each row's subtree (meaningful when `preorder`).
    subtree_end: Vec<usize>,
    /// Whether rows are laid out in pre-order (every backend's layout): subtrees are then row
    /// ranges. Without it, suggestions never use `in`.
    preorder: bool,
}

fn push_text(map: &mut RowsByText, role: Role, text: &str, row: usize) {
    if text.is_empty() {
        return;
    }
    let by_text = map.entry(role).or_default();
    match by_text.get_mut(text) {
        Some(rows) => rows.push(row),
        None => {
            by_text.insert(text.to_string(), vec![row]);
        }
    }
}

impl Groups {
    pub(crate) fn build(snap: &Snapshot) -> Groups {
        let nodes = &snap.nodes;
        let n = nodes.len();
        let mut by_role: HashMap<Role, Vec<usize>> = HashMap::new();
        let mut by_name = RowsByText::new();
        let mut by_desc = RowsByText::new();
        for (row, node) in nodes.iter().enumerate() {
            by_role.entry(node.role).or_default().push(row);
            push_text(&mut by_name, node.role, node.name.trim(), row);
            push_text(&mut by_desc, node.role, node.description.trim(), row);
        }
        let mut subtree_end: Vec<usize> = (1..=n).collect();
        let mut preorder = true;
        for row in (0..n).rev() {
            match nodes[row].parent {
                Some(p) if p < row => subtree_end[p] = subtree_end[p].max(subtree_end[row]),
                Some(_) => preorder = false,
                None => {}
            }
        }
        // Pre-order means each node's children follow it back to back, subtree after subtree.
        for (row, node) in nodes.iter().enumerate() {
            let mut next = row + 1;
            for &child in &node.children {
                if child != next || nodes.get(child).and_then(|c| c.parent) != Some(row) {
                    preorder = false;
                    break;
                }
                next = subtree_end[child];
            }
            if next != subtree_end[row] {
                preorder = false;
            }
        }
        Groups {
            by_role,
            by_name,
            by_desc,
            subtree_end,
            preorder,
        }
    }

    fn named<'m>(map: &'m RowsByText, role: Role, text: &str) -> &'m [usize] {
        map.get(&role)
            .and_then(|m| m.get(text))
            .map_or(&[], Vec::as_slice)
    }
}

/// Whether the node's name is just its current value (GTK names a combo box after its selected
/// option, some sliders after their number): such a name changes with the value, so a target
/// built on it stops resolving after the next write.
fn name_mirrors_value(node: &Node) -> bool {
    node.value
        .as_ref()
        .and_then(|v| v.as_text())
        .is_some_and(|v| !v.trim().is_empty() && v.trim() == node.name.trim())
}

/// How many of `rows` (ascending) lie in `lo..hi`.
fn count_in(rows: &[usize], lo: usize, hi: usize) -> usize {
    rows.partition_point(|&r| r < hi) - rows.partition_point(|&r| r < lo)
}

/// Per-group counts of nodes holding each state, computed once per group and call.
type StateCounts<'g> = HashMap<(Role, Option<&'g str>), [u32; 64]>;

struct Suggester<'g> {
    snap: &'g Snapshot,
    groups: &'g Groups,
    counts: StateCounts<'g>,
}

/// A base shape: role, optionally with the node's name as a tiered query.
struct Base<'g> {
    name: Option<&'g str>,
    rows: &'g [usize],
}

fn fits(t: Target) -> Option<Target> {
    (t.to_string().chars().count() <= MAX_TARGET_CHARS).then_some(t)
}

fn build(role: Role, text: Option<&str>, states: Vec<StateReq>) -> Option<Target> {
    let query = match text {
        Some(t) => Some(Query::tiered(t).ok()?),
        None => None,
    };
    fits(Target::new(Some(RoleSpec::Role(role)), query, states).ok()?)
}

impl<'g> Suggester<'g> {
    fn new(snap: &'g Snapshot, groups: &'g Groups) -> Suggester<'g> {
        Suggester {
            snap,
            groups,
            counts: HashMap::new(),
        }
    }

    fn bases(&self, node: &'g Node) -> Vec<Base<'g>> {
        let g = self.groups;
        let mut bases = Vec::with_capacity(2);
        let name = node.name.trim();
        if !name.is_empty() && !name_mirrors_value(node) {
            bases.push(Base {
                name: Some(name),
                rows: Groups::named(&g.by_name, node.role, name),
            });
        }
        bases.push(Base {
            name: None,
            rows: g.by_role.get(&node.role).map_or(&[], Vec::as_slice),
        });
        bases
    }

    /// Forms without `in`: role + name, role + description, role alone, then role + name or
    /// role alone with one stable state.
    fn local(&mut self, row: usize) -> Option<Target> {
        let node = self.snap.nodes.get(row)?;
        let role = node.role;
        let bases = self.bases(node);
        if let Some(base) = bases.iter().find(|b| b.name.is_some() && b.rows.len() == 1) {
            if let Some(t) = build(role, base.name, Vec::new()) {
                return Some(t);
            }
        }
        // A description is unique only if no node of the role is also named that text: an
        // exact name would win the tier.
        let desc = node.description.trim();
        if !desc.is_empty()
            && Groups::named(&self.groups.by_name, role, desc).is_empty()
            && Groups::named(&self.groups.by_desc, role, desc).len() == 1
        {
            if let Some(t) = build(role, Some(desc), Vec::new()) {
                return Some(t);
            }
        }
        if bases.iter().any(|b| b.name.is_none() && b.rows.len() == 1) {
            if let Some(t) = build(role, None, Vec::new()) {
                return Some(t);
            }
        }
        for base in &bases {
            let counts = self.state_counts(role, base);
            let size = base.rows.len() as u32;
            for present in [true, false] {
                for &state in STABLE_STATES {
                    if node.states.has(state) != present {
                        continue;
                    }
                    let holding = counts[state as usize];
                    let matching = if present { holding } else { size - holding };
                    if matching == 1 {
                        let req = vec![StateReq { state, present }];
                        if let Some(t) = build(role, base.name, req) {
                            return Some(t);
                        }
                    }
                }
            }
        }
        None
    }

    fn state_counts(&mut self, role: Role, base: &Base<'g>) -> [u32; 64] {
        let nodes = &self.snap.nodes;
        *self.counts.entry((role, base.name)).or_insert_with(|| {
            let mut counts = [0u32; 64];
            for &r in base.rows {
                let bits = nodes.get(r).map_or(0, |n| n.states.0);
                for (bit, c) in counts.iter_mut().enumerate() {
                    *c += ((bits >> bit) & 1) as u32;
                }
            }
            counts
        })
    }

    /// `row`'s suggestion, given its ancestors' suggestions by row.
    fn one<'m>(
        &mut self,
        row: usize,
        suggested: impl Fn(usize) -> Option<&'m Target>,
    ) -> Option<Target> {
        match self.local(row) {
            Some(t) => Some(t),
            None => self.via_ancestor(row, suggested),
        }
    }

    /// `base in A`, where A is the suggestion of one of the nearest ancestors: unique there
    /// when the base's group has one row in that ancestor's subtree.
    fn via_ancestor<'m>(
        &self,
        row: usize,
        suggested: impl Fn(usize) -> Option<&'m Target>,
    ) -> Option<Target> {
        if !self.groups.preorder {
            return None;
        }
        let node = self.snap.nodes.get(row)?;
        let bases = self.bases(node);
        let mut cur = node.parent;
        let mut tried = 0;
        for _ in 0..ANCESTOR_STEPS {
            let Some(a) = cur.filter(|&a| a < row) else {
                break;
            };
            cur = self
                .snap
                .nodes
                .get(a)
                .and_then(|n| n.parent)
                .filter(|&p| p < a);
            let end = self.groups.subtree_end.get(a).copied().unwrap_or(a);
            let counts: Vec<usize> = bases.iter().map(|b| count_in(b.rows, a + 1, end)).collect();
            // Farther ancestors hold this subtree and more, so they cannot do better.
            if counts.iter().all(|&c| c > 1) {
                break;
            }
            let Some(outer) = suggested(a) else {
                continue;
            };
            tried += 1;
            if tried > ANCESTOR_TRIES {
                break;
            }
            if outer.depth() + 1 > MAX_WITHIN {
                continue;
            }
            for (base, _) in bases.iter().zip(&counts).filter(|(_, c)| **c == 1) {
                let t = build(node.role, base.name, Vec::new())
                    .and_then(|t| t.inside(outer.clone()).ok())
                    .and_then(fits);
                if t.is_some() {
                    return t;
                }
            }
        }
        None
    }
}

/// The shortest unique target for `row`, building a one-off index; see [`suggest_with`].
pub fn suggest(snap: &Snapshot, row: usize) -> Option<Target> {
    suggest_with(&SnapshotIndex::new(snap), snap, row)
}

/// A target that resolves to exactly `row` in `snap`, judged on the nodes present (an
/// incomplete snapshot's suggestion is unique among what was read; resolving it there still
/// answers `Incomplete`). Tried in this order, the first that is unique wins:
/// 1. role + name (`button "Save"`), then role + description;
/// 2. role alone (`slider`);
/// 3. either of those with one stable state (`text "Name" [editable]`); states that change
///    with use (checked, selected, focused, expanded, …) are never suggested;
/// 4. role + name, or role alone, `in` the suggestion of the nearest ancestor that has one.
///
/// Values are never used: they change with every write. `None` when nothing works, e.g. for
/// identical unnamed siblings; the canonical string is at most 1024 characters.
pub fn suggest_with(ix: &SnapshotIndex, snap: &Snapshot, row: usize) -> Option<Target> {
    let mut slot = None;
    let ix = ix.usable_for(snap, &mut slot);
    let groups = ix.groups.get_or_init(|| Groups::build(snap));
    let mut s = Suggester::new(snap, groups);
    if let Some(t) = s.local(row) {
        return Some(t);
    }
    if !groups.preorder || row >= snap.nodes.len() {
        return None;
    }
    // Suggest the ancestors root first: each may need its own ancestors' suggestions.
    let mut path = Vec::new();
    let mut cur = snap.nodes[row].parent;
    while let Some(a) = cur {
        path.push(a);
        cur = snap.nodes.get(a).and_then(|n| n.parent);
    }
    let mut memo: HashMap<usize, Option<Target>> = HashMap::with_capacity(path.len());
    for &a in path.iter().rev() {
        let t = s.one(a, |r| memo.get(&r).and_then(Option::as_ref));
        memo.insert(a, t);
    }
    s.via_ancestor(row, |r| memo.get(&r).and_then(Option::as_ref))
}

/// [`suggest`] for every row, sharing the work (each node's ancestors are suggested once).
pub fn suggest_all(snap: &Snapshot) -> Vec<Option<Target>> {
    suggest_all_with(&SnapshotIndex::new(snap), snap)
}

/// [`suggest_with`] for every row.
pub fn suggest_all_with(ix: &SnapshotIndex, snap: &Snapshot) -> Vec<Option<Target>> {
    let mut slot = None;
    let ix = ix.usable_for(snap, &mut slot);
    let groups = ix.groups.get_or_init(|| Groups::build(snap));
    let mut s = Suggester::new(snap, groups);
    let mut out: Vec<Option<Target>> = Vec::with_capacity(snap.nodes.len());
    for row in 0..snap.nodes.len() {
        // Pre-order puts every ancestor before its descendants, so `out` already holds it.
        let t = s.one(row, |r| out.get(r).and_then(Option::as_ref));
        out.push(t);
    }
    out
}
