//! The shortest unique target of a node, graded: what the TUI copies, the recorder writes into
//! workflow steps, and `tree --targets` and `find --json` print beside every node.

use std::collections::HashMap;

use super::index::SnapshotIndex;
use super::print::printed_len_bound;
use super::resolve::{NONE, nearest_before};
use super::{Grade, MAX_TARGET_CHARS, MAX_WITHIN, Neighbour, Parts, Query, RoleSpec, StateReq};
use super::{Target, TargetError};
use crate::model::{AppText, FastMap, Node, Role, Snapshot, State, States, Value, format_number};

/// States worth naming in a suggestion: ones that describe what an element is rather than
/// what it is doing now, so the target still names it after a toggle, a selection or a focus
/// change (a recorded `check-box "Sync" [checked]` would stop resolving once unchecked).
/// `showing` is last: it changes when a page is switched, but it is what tells an on-screen
/// element from its hidden twin.
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
    State::Showing,
];

/// Within an ancestor, states are looked at row by row only when at most this many rows share
/// the node's role (and name) there.
const SCOPED_STATE_ROWS: usize = 16;

/// How many ancestors with a suggestion are tried for `in`.
const ANCESTOR_TRIES: usize = 16;

/// How far up `in` looks for an ancestor's suggestion: keeps a node deep under unnamed
/// wrappers from walking its whole ancestry (and a whole-tree pass from going quadratic on deep
/// trees). The nearest uniquely named ancestor is found at any depth without walking.
const ANCESTOR_STEPS: usize = 64;

/// Rows that share a role and one trimmed text (name, description, label, or the neighbour
/// label's name), and each row's group.
#[derive(Debug, Default)]
struct Grouping {
    of_row: Vec<u32>,
    rows: Vec<Vec<usize>>,
}

impl Grouping {
    /// Groups the rows by role and `text(row)`, already trimmed (empty texts stay out). Keys
    /// borrow the snapshot, so building copies no string.
    fn build<'s>(snap: &'s Snapshot, text: impl Fn(usize) -> Option<&'s str>) -> Grouping {
        Grouping::build_keyed(snap, text).0
    }

    /// [`Grouping::build`], also returning the group id of each role + text.
    fn build_keyed<'s>(
        snap: &'s Snapshot,
        text: impl Fn(usize) -> Option<&'s str>,
    ) -> (Grouping, FastMap<(Role, &'s str), u32>) {
        let mut ids: FastMap<(Role, &'s str), u32> = FastMap::default();
        let mut g = Grouping {
            of_row: vec![NONE; snap.nodes.len()],
            rows: Vec::new(),
        };
        for (row, node) in snap.nodes.iter().enumerate() {
            // A node repeating an element placed elsewhere is not one of its own.
            if node.repeat.is_some() {
                continue;
            }
            let Some(t) = text(row).filter(|t| !t.is_empty()) else {
                continue;
            };
            let next = g.rows.len() as u32;
            let id = *ids.entry((node.role, t)).or_insert(next);
            if id == next {
                g.rows.push(Vec::new());
            }
            g.rows[id as usize].push(row);
            g.of_row[row] = id;
        }
        (g, ids)
    }

    /// The rows in `row`'s group (ascending), or none.
    fn rows_of(&self, row: usize) -> &[usize] {
        self.of_row
            .get(row)
            .and_then(|&id| self.rows.get(id as usize))
            .map_or(&[], Vec::as_slice)
    }

    fn id(&self, row: usize) -> u32 {
        self.of_row.get(row).copied().unwrap_or(NONE)
    }
}

/// Rows grouped by role and by role + trimmed name / description / label / neighbour's name,
/// subtree ranges and each row's nearest uniquely named ancestor: enough to count matches of a
/// suggestion's shapes without running a resolution per candidate, and without hashing a
/// string once the groups are built.
#[derive(Debug)]
pub(crate) struct Groups {
    /// Rows of each role, by `Role as usize`.
    by_role: Vec<Vec<usize>>,
    name: Grouping,
    desc: Grouping,
    label: Grouping,
    /// By role and the name of the nearest named label before the row among its siblings.
    after: Grouping,
    /// Whether a node of the row's role is named exactly the row's description (an exact
    /// name would win the tier, so the description cannot name the row).
    desc_is_a_name: Vec<bool>,
    /// Whether a suggestion may use the row's name: not blank, and not just its value.
    name_usable: Vec<bool>,
    /// Where the trimmed name lies in each row's name (byte offsets), so suggestions do not
    /// trim it again each time they look.
    name_span: Vec<(u32, u32)>,
    /// Each row's nearest named label before it among its siblings (`NONE`: none).
    after_label: Vec<u32>,
    /// Each row's nearest proper ancestor whose role + name is unique (`NONE`: none; only
    /// filled when `preorder`).
    unique_ancestor: Vec<u32>,
    /// One past the last row of each row's subtree (meaningful when `preorder`).
    subtree_end: Vec<usize>,
    /// Whether rows are laid out in pre-order (every backend's layout): subtrees are then row
    /// ranges. Without it, suggestions never use `in`.
    preorder: bool,
}

impl Groups {
    pub(crate) fn build(snap: &Snapshot) -> Groups {
        let nodes = &snap.nodes;
        let n = nodes.len();
        let after_label = nearest_before(snap, Role::Label);
        let mut by_role: Vec<Vec<usize>> = vec![Vec::new(); Role::ALL.len()];
        for (row, node) in nodes.iter().enumerate() {
            if node.repeat.is_none() {
                by_role[node.role as usize].push(row);
            }
        }
        // Trimmed once: the groups, the neighbours' names and the suggestions all use them.
        let trimmed: Vec<&str> = nodes.iter().map(|node| node.name.as_str().trim()).collect();
        let name_span = nodes
            .iter()
            .zip(&trimmed)
            .map(|(node, t)| {
                let start = t.as_ptr() as usize - node.name.as_str().as_ptr() as usize;
                (start as u32, (start + t.len()) as u32)
            })
            .collect();
        let (name, names) = Grouping::build_keyed(snap, |r| Some(trimmed[r]));
        let desc = Grouping::build(snap, |r| Some(nodes[r].description.as_str().trim()));
        let label = Grouping::build(snap, |r| {
            nodes[r].label.as_ref().map(AppText::as_str).map(str::trim)
        });
        let after = Grouping::build(snap, |r| trimmed.get(after_label[r] as usize).copied());
        let desc_is_a_name = nodes
            .iter()
            .map(|node| {
                let d = node.description.as_str().trim();
                !d.is_empty() && names.contains_key(&(node.role, d))
            })
            .collect();
        drop(names);
        let name_usable: Vec<bool> = nodes
            .iter()
            .zip(&trimmed)
            .map(|(node, t)| !t.is_empty() && !value_is(node, t))
            .collect();
        drop(trimmed);
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
        let mut unique_ancestor = vec![NONE; n];
        if preorder {
            for (row, node) in nodes.iter().enumerate() {
                if let Some(p) = node.parent {
                    let uniquely_named = name_usable[p] && name.rows_of(p).len() == 1;
                    unique_ancestor[row] = if uniquely_named {
                        p as u32
                    } else {
                        unique_ancestor[p]
                    };
                }
            }
        }
        Groups {
            by_role,
            name,
            desc,
            label,
            after,
            desc_is_a_name,
            name_usable,
            name_span,
            after_label,
            unique_ancestor,
            subtree_end,
            preorder,
        }
    }

    fn role_rows(&self, role: Role) -> &[usize] {
        self.by_role.get(role as usize).map_or(&[], Vec::as_slice)
    }
}

/// Whether the node's (trimmed) name is just its current value (GTK names a combo box after
/// its selected option, some sliders after their number): such a name changes with the value,
/// so a target built on it stops resolving after the next write. Compares without building
/// the value's text, except for a number whose name looks like one.
fn value_is(node: &Node, name: &str) -> bool {
    match &node.value {
        Some(Value::Text { text }) => text.as_str().trim() == name,
        Some(Value::Choice {
            selected: Some(text),
        }) => text.as_str().trim() == name,
        Some(Value::Number { current, .. }) => {
            name.starts_with(|c: char| c.is_ascii_digit() || c == '-')
                && format_number(*current) == name
        }
        _ => false,
    }
}

/// How many of `rows` (ascending) lie in `lo..hi`.
fn count_in(rows: &[usize], lo: usize, hi: usize) -> usize {
    rows.partition_point(|&r| r < hi) - rows.partition_point(|&r| r < lo)
}

/// `rows[lo..hi]` by value: the part of an ascending row list inside a row range.
fn within(rows: &[usize], lo: usize, hi: usize) -> &[usize] {
    let start = rows.partition_point(|&r| r < lo);
    let end = rows.partition_point(|&r| r < hi).max(start);
    &rows[start..end]
}

/// Per-group counts of nodes holding each state, computed once per group and call; keyed by
/// role and name group (`NONE`: the role alone).
type StateCounts = FastMap<(Role, u32), [u32; STABLE_STATES.len()]>;

struct Suggester<'g> {
    snap: &'g Snapshot,
    groups: &'g Groups,
    counts: StateCounts,
}

/// A base shape: role, optionally with the node's name as a tiered query.
struct Base<'g> {
    name: Option<&'g str>,
    /// The name's group, or `NONE` for the role alone.
    group: u32,
    rows: &'g [usize],
}

/// A shape beyond role and name: the node's label relation or its neighbour label, with the
/// rows of the role that share it — and share the name too, when the shape has one. The
/// intersection with the name's rows is counted lazily and stops early: a common name beside
/// a common label (every "Name" field after a "Name:" label) would otherwise cost the product
/// of two large groups per node.
struct Related<'g> {
    name: Option<&'g str>,
    label: Option<&'g str>,
    after: Option<&'g str>,
    rows: &'g [usize],
    /// The name's rows, when the shape has a name.
    named: Option<&'g [usize]>,
}

impl Related<'_> {
    /// Rows of the shape in `lo..hi`, counted up to `cap`.
    fn count(&self, lo: usize, hi: usize, cap: usize) -> usize {
        let rows = within(self.rows, lo, hi);
        let Some(named) = self.named else {
            return rows.len().min(cap);
        };
        let named = within(named, lo, hi);
        let (small, large) = if rows.len() <= named.len() {
            (rows, named)
        } else {
            (named, rows)
        };
        small
            .iter()
            .filter(|r| large.binary_search(r).is_ok())
            .take(cap)
            .count()
    }

    /// Whether the shape has exactly one row in `lo..hi`.
    fn one_in(&self, lo: usize, hi: usize) -> bool {
        self.count(lo, hi, 2) == 1
    }

    /// `row`'s 1-based place among the shape's rows, and how many there are.
    fn place(&self, row: usize) -> Option<(usize, usize)> {
        let before = self.count(0, row, usize::MAX);
        let all = self.count(0, usize::MAX, usize::MAX);
        (self.count(row, row + 1, 1) == 1).then_some((before + 1, all))
    }
}

fn fits(t: Target) -> Option<Target> {
    let fits = printed_len_bound(&t) <= MAX_TARGET_CHARS
        || t.to_string().chars().count() <= MAX_TARGET_CHARS;
    fits.then_some(t)
}

/// A tiered query of `text`, refused when `text` alone is longer than a target may be (an app
/// may name an element with megabytes: no target could hold it, and printing one to find out
/// would cost its length each time).
fn tiered(text: Option<&str>) -> Result<Option<Query>, TargetError> {
    match text {
        Some(t) if t.len() > MAX_TARGET_CHARS && t.chars().count() > MAX_TARGET_CHARS => {
            Err(super::TargetError::TooLong(t.chars().count()))
        }
        _ => text.map(Query::tiered).transpose(),
    }
}

fn build(role: Role, text: Option<&str>, states: Vec<StateReq>) -> Option<Target> {
    fits(Target::new(Some(RoleSpec::Role(role)), tiered(text).ok()?, states).ok()?)
}

fn build_related(role: Role, r: &Related<'_>, nth: Option<usize>) -> Option<Target> {
    let parts = Parts {
        role: Some(RoleSpec::Role(role)),
        query: tiered(r.name).ok()?,
        label: tiered(r.label).ok()?,
        after: tiered(r.after).ok()?.map(Neighbour::label),
        nth: match nth {
            Some(n) => Some(u32::try_from(n).ok()?),
            None => None,
        },
        ..Parts::default()
    };
    fits(Target::from_parts(parts).ok()?)
}

impl<'g> Suggester<'g> {
    fn new(snap: &'g Snapshot, groups: &'g Groups) -> Suggester<'g> {
        Suggester {
            snap,
            groups,
            counts: FastMap::default(),
        }
    }

    /// The node's name when a suggestion may use it.
    fn name(&self, row: usize) -> Option<&'g str> {
        let g = self.groups;
        if !g.name_usable.get(row).copied().unwrap_or(false) {
            return None;
        }
        let (start, end) = g.name_span.get(row).copied()?;
        self.snap.nodes[row]
            .name
            .as_str()
            .get(start as usize..end as usize)
    }

    /// Role + name (when the name may be used), then role alone.
    fn bases(&self, row: usize) -> [Option<Base<'g>>; 2] {
        let g = self.groups;
        let named = self.name(row).map(|name| Base {
            name: Some(name),
            group: g.name.id(row),
            rows: g.name.rows_of(row),
        });
        let role = Base {
            name: None,
            group: NONE,
            rows: g.role_rows(self.snap.nodes[row].role),
        };
        [named, Some(role)]
    }

    /// The label and neighbour shapes of `row`: label, then neighbour, each with the name
    /// first, then without.
    fn related(&self, row: usize) -> Vec<Related<'g>> {
        let g = self.groups;
        let Some(node) = self.snap.nodes.get(row) else {
            return Vec::new();
        };
        let name = self.name(row);
        let named_rows = name.map(|_| g.name.rows_of(row));
        let mut out = Vec::new();
        let label = node.label.as_ref().map(AppText::as_str).map(str::trim);
        let after = self
            .snap
            .nodes
            .get(g.after_label.get(row).copied().unwrap_or(NONE) as usize)
            .map(|l| l.name.as_str().trim());
        for (by, text, is_label) in [(&g.label, label, true), (&g.after, after, false)] {
            let rows = by.rows_of(row);
            let Some(text) = text.filter(|_| !rows.is_empty()) else {
                continue;
            };
            let (label, after) = if is_label {
                (Some(text), None)
            } else {
                (None, Some(text))
            };
            if let Some(named) = named_rows {
                out.push(Related {
                    name,
                    label,
                    after,
                    rows,
                    named: Some(named),
                });
            }
            out.push(Related {
                name: None,
                label,
                after,
                rows,
                named: None,
            });
        }
        out
    }

    /// Forms without `in`: role + name, role + description, role alone, then role + name or
    /// role alone with one stable state.
    fn local(&mut self, row: usize) -> Option<Target> {
        let node = self.snap.nodes.get(row)?;
        let role = node.role;
        let bases = self.bases(row);
        let bases = bases.iter().flatten();
        if let Some(base) = bases
            .clone()
            .find(|b| b.name.is_some() && b.rows.len() == 1)
            && let Some(t) = build(role, base.name, Vec::new())
        {
            return Some(t);
        }
        // A description is unique only if no node of the role is also named that text: an
        // exact name would win the tier.
        let desc = node.description.as_str().trim();
        if !desc.is_empty()
            && !self.groups.desc_is_a_name[row]
            && self.groups.desc.rows_of(row).len() == 1
            && let Some(t) = build(role, Some(desc), Vec::new())
        {
            return Some(t);
        }
        if bases.clone().any(|b| b.name.is_none() && b.rows.len() == 1)
            && let Some(t) = build(role, None, Vec::new())
        {
            return Some(t);
        }
        for base in bases {
            let counts = self.state_counts(role, base);
            let size = base.rows.len() as u32;
            for present in [true, false] {
                for (i, &state) in STABLE_STATES.iter().enumerate() {
                    if node.states.has(state) != present {
                        continue;
                    }
                    let holding = counts[i];
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

    /// How many of the base's rows hold each of [`STABLE_STATES`].
    fn state_counts(&mut self, role: Role, base: &Base<'g>) -> [u32; STABLE_STATES.len()] {
        let nodes = &self.snap.nodes;
        *self.counts.entry((role, base.group)).or_insert_with(|| {
            let mut counts = [0u32; STABLE_STATES.len()];
            for &r in base.rows {
                let states = nodes.get(r).map_or(States::EMPTY, |n| n.states);
                for (c, &state) in counts.iter_mut().zip(STABLE_STATES) {
                    *c += u32::from(states.has(state));
                }
            }
            counts
        })
    }

    /// `labelled-by` and `after` forms, unique in the whole tree.
    fn by_relation(&self, row: usize) -> Option<Target> {
        let role = self.snap.nodes.get(row)?.role;
        self.related(row)
            .iter()
            .filter(|r| r.one_in(0, usize::MAX))
            .find_map(|r| build_related(role, r, None))
    }

    /// The nearest ancestor whose role + name is unique in the tree, with its target.
    fn unique_ancestor(&self, row: usize) -> Option<(usize, Target)> {
        let a = *self.groups.unique_ancestor.get(row)?;
        let node = self.snap.nodes.get(a as usize)?;
        let t = build(node.role, self.name(a as usize), Vec::new())?;
        Some((a as usize, t))
    }

    /// The first shape of `row` with exactly one row in the subtree of its ancestor `a`: role +
    /// name, role alone, either with one stable state, the label, the neighbour. Counts first
    /// and builds once: most nodes reach this, and most find a shape. A shape that is not unique
    /// in `a` is not unique in any ancestor of `a` either (its subtree only holds more).
    fn scoped(&self, row: usize, a: usize) -> Option<Target> {
        let node = self.snap.nodes.get(row)?;
        let role = node.role;
        let (lo, hi) = (a + 1, self.groups.subtree_end.get(a).copied().unwrap_or(a));
        let bases = self.bases(row);
        let bases = bases.iter().flatten();
        if let Some(t) = bases
            .clone()
            .filter(|b| count_in(b.rows, lo, hi) == 1)
            .find_map(|b| build(role, b.name, Vec::new()))
        {
            return Some(t);
        }
        for base in bases {
            let rows = within(base.rows, lo, hi);
            // Looked at row by row, so only where a few look-alikes share the subtree.
            if rows.len() > SCOPED_STATE_ROWS {
                continue;
            }
            let holds = |r: usize, state: State| self.snap.nodes[r].states.has(state);
            for present in [true, false] {
                for &state in STABLE_STATES {
                    if node.states.has(state) != present {
                        continue;
                    }
                    let matching = rows.iter().filter(|&&r| holds(r, state) == present);
                    if matching.count() == 1 {
                        let req = vec![StateReq { state, present }];
                        if let Some(t) = build(role, base.name, req) {
                            return Some(t);
                        }
                    }
                }
            }
        }
        self.related(row)
            .iter()
            .filter(|r| r.one_in(lo, hi))
            .find_map(|r| build_related(role, r, None))
    }

    /// A shape `in` the nearest uniquely named ancestor, however deep.
    fn in_unique_ancestor(&self, row: usize) -> Option<Target> {
        let a = *self.groups.unique_ancestor.get(row)? as usize;
        let inner = self.scoped(row, a)?;
        let (_, outer) = self.unique_ancestor(row)?;
        if outer.depth() + 1 > MAX_WITHIN {
            return None;
        }
        fits(inner.inside(outer).ok()?)
    }

    /// Everything short of an ancestor's suggestion and a position.
    fn first(&mut self, row: usize) -> Option<Target> {
        self.local(row)
            .or_else(|| self.by_relation(row))
            .or_else(|| self.in_unique_ancestor(row))
    }

    /// `row`'s suggestion, given its ancestors' suggestions by row.
    fn one<'m>(
        &mut self,
        row: usize,
        suggested: impl Fn(usize) -> Option<&'m Target>,
    ) -> Option<Target> {
        // A node repeating an element has none: the element's own row has it.
        if self.snap.nodes.get(row).is_none_or(|n| n.repeat.is_some()) {
            return None;
        }
        self.first(row)
            .or_else(|| self.via_ancestor(row, suggested))
            .or_else(|| self.positional(row))
    }

    /// A shape `in A`, where A is the suggestion of one of the nearest ancestors (not a
    /// positional one): see [`Suggester::scoped`] for the shapes.
    fn via_ancestor<'m>(
        &self,
        row: usize,
        suggested: impl Fn(usize) -> Option<&'m Target>,
    ) -> Option<Target> {
        if !self.groups.preorder {
            return None;
        }
        let mut cur = self.snap.nodes.get(row)?.parent;
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
            // Farther ancestors hold this subtree and more, so they cannot do better.
            let inner = self.scoped(row, a)?;
            let Some(outer) = suggested(a).filter(|t| t.grade() != Grade::Positional) else {
                continue;
            };
            tried += 1;
            if tried > ANCESTOR_TRIES {
                break;
            }
            if outer.depth() + 1 > MAX_WITHIN {
                continue;
            }
            if let Some(t) = inner.inside(outer.clone()).ok().and_then(fits) {
                return Some(t);
            }
        }
        None
    }

    /// The last resort, which always works: the node's place among its look-alikes. Tried over
    /// role + name, label, neighbour, role inside the nearest uniquely named ancestor (when
    /// that narrows anything), and role alone; the one with the fewest look-alikes before the
    /// node wins (a smaller number changes less often), then the one with the fewest
    /// look-alikes in all, then the earlier. `None` only for a row not in the snapshot.
    fn positional(&self, row: usize) -> Option<Target> {
        let node = self.snap.nodes.get(row)?;
        let role = node.role;
        let plain = |rows: &'g [usize]| Related {
            name: None,
            label: None,
            after: None,
            rows,
            named: None,
        };
        // (position, look-alikes in scope, target)
        let mut options: Vec<(usize, usize, Option<Target>)> = Vec::new();
        if let Some(name) = self.name(row) {
            let shape = Related {
                name: Some(name),
                ..plain(self.groups.name.rows_of(row))
            };
            if let Some((k, size)) = shape.place(row) {
                options.push((k, size, build_related(role, &shape, Some(k))));
            }
        }
        for r in self.related(row).iter().filter(|r| r.name.is_none()) {
            if let Some((k, size)) = r.place(row) {
                options.push((k, size, build_related(role, r, Some(k))));
            }
        }
        let role_rows = self.groups.role_rows(role);
        if let Some((a, outer)) = self.unique_ancestor(row) {
            let end = self.groups.subtree_end.get(a).copied().unwrap_or(a);
            let size = count_in(role_rows, a + 1, end);
            if size < role_rows.len() {
                let k = count_in(role_rows, a + 1, row) + 1;
                let t = build_related(role, &plain(role_rows), Some(k))
                    .and_then(|t| t.inside(outer).ok())
                    .and_then(fits);
                options.push((k, size, t));
            }
        }
        // `role #n` is a role name and a number, far below the length limit: it always builds.
        if let Some((k, size)) = plain(role_rows).place(row) {
            options.push((k, size, build_related(role, &plain(role_rows), Some(k))));
        }
        options
            .into_iter()
            .enumerate()
            .filter_map(|(i, (k, size, t))| t.map(|t| ((k, size, i), t)))
            .min_by_key(|(key, _)| *key)
            .map(|(_, t)| t)
    }
}

/// The shortest unique target for `row`, building a one-off index; see [`suggest_with`].
pub fn suggest(snap: &Snapshot, row: usize) -> Option<Target> {
    suggest_with(&SnapshotIndex::new(snap), snap, row)
}

/// A target that resolves to exactly `row` in `snap`, judged on the nodes present (an
/// incomplete snapshot's suggestion is unique among what was read; resolving it there still
/// answers `Incomplete`). Tried in this order, the first that is unique wins:
/// 1. role + name (`button "Save"`), then role + description, then role alone (`slider`):
///    [`Grade::Stable`];
/// 2. either of those with one state that does not change with use (`text "Name" [editable]`,
///    `button "OK" [showing]` — an on-screen element beats its hidden twin); states that do
///    (checked, selected, focused, expanded, …) are never suggested;
/// 3. the label relation (`text labelled-by "Street:"`), then the nearest named label before it
///    among its siblings (`text after label "City:"`), each with the name first;
/// 4. role + name, role, label or neighbour `in` the nearest ancestor whose role + name is
///    unique, however deep (`check-box "checkbutton" in frame "Options"`);
/// 5. role + name or role alone `in` the suggestion of one of the nearest ancestors that has a
///    non-positional one — 2 to 5 are [`Grade::Contextual`];
/// 6. a position (`check-box "checkbutton" #3`): [`Grade::Positional`], which always works.
///
/// Values are never used: they change with every write. A name that only mirrors the value (a
/// combo box named after its option) is not used either. Every suggestion resolves to `row`
/// itself, so it never names a hidden twin of the selected element; `None` only for a row that
/// is not in the snapshot. The canonical string is at most 1024 characters.
pub fn suggest_with(ix: &SnapshotIndex, snap: &Snapshot, row: usize) -> Option<Target> {
    if snap.nodes.get(row).is_none_or(|n| n.repeat.is_some()) {
        return None;
    }
    let mut slot = None;
    let ix = ix.usable_for(snap, &mut slot);
    let groups = ix.groups.get_or_init(|| Groups::build(snap));
    let mut s = Suggester::new(snap, groups);
    if let Some(t) = s.first(row) {
        return Some(t);
    }
    if groups.preorder {
        // Suggest the ancestors root first: each may need its own ancestors' suggestions.
        let mut path = Vec::new();
        let mut cur = snap.nodes[row].parent;
        while let Some(a) = cur.filter(|&a| a < snap.nodes.len()) {
            path.push(a);
            cur = snap.nodes[a].parent.filter(|&p| p < a);
        }
        let mut memo: HashMap<usize, Option<Target>> = HashMap::with_capacity(path.len());
        for &a in path.iter().rev() {
            let t = s.one(a, |r| memo.get(&r).and_then(Option::as_ref));
            memo.insert(a, t);
        }
        if let Some(t) = s.via_ancestor(row, |r| memo.get(&r).and_then(Option::as_ref)) {
            return Some(t);
        }
    }
    s.positional(row)
}

/// [`suggest`] for every row, sharing the work (each node's ancestors are suggested once).
pub fn suggest_all(snap: &Snapshot) -> Vec<Option<Target>> {
    suggest_all_with(&SnapshotIndex::new(snap), snap)
}

/// [`suggest_with`] for the rows `wanted` picks: by row, `None` for every other row. Each
/// wanted row's suggestion is the one [`suggest_all_with`] gives it; the ancestors a
/// suggestion may go through are suggested once and shared (and are `Some` too). An audit
/// needs the suggestions of its interactive elements and of the rows it has findings on, not
/// of every container and text of a 50,000-node tree.
pub fn suggest_rows_with(
    ix: &SnapshotIndex,
    snap: &Snapshot,
    wanted: impl Fn(usize) -> bool,
) -> Vec<Option<Target>> {
    let mut out = vec![None; snap.nodes.len()];
    RowSuggester::new(Some(ix), snap).fill(&mut out, wanted);
    out
}

/// Suggestions for some rows of one snapshot, asked in turns: the groups a suggestion counts
/// with are built once (or taken from an index that has them), and no index is needed — an
/// audit of a fresh read has no other use for the index's columns.
pub struct RowSuggester<'s> {
    snap: &'s Snapshot,
    groups: GroupsRef<'s>,
}

enum GroupsRef<'s> {
    Index(&'s Groups),
    Own(Box<Groups>),
}

impl<'s> RowSuggester<'s> {
    /// Over `snap`, with `ix`'s groups when it was built from `snap`.
    pub fn new(ix: Option<&'s SnapshotIndex>, snap: &'s Snapshot) -> RowSuggester<'s> {
        let groups = match ix.filter(|ix| ix.covers(snap)) {
            Some(ix) => GroupsRef::Index(ix.groups.get_or_init(|| Groups::build(snap))),
            None => GroupsRef::Own(Box::new(Groups::build(snap))),
        };
        RowSuggester { snap, groups }
    }

    /// Fills the `None` entries of `out` (by row) that `wanted` picks, and their ancestors'.
    pub fn fill(&self, out: &mut [Option<Target>], wanted: impl Fn(usize) -> bool) {
        let n = self.snap.nodes.len().min(out.len());
        self.fill_rows(out, (0..n).filter(|&r| wanted(r)));
    }

    /// Fills the `None` entries of `out` (by row) for `rows`, in the order given, and their
    /// ancestors' (a suggestion may go through them): a page of a big tree asks for its rows
    /// only.
    pub fn fill_rows(&self, out: &mut [Option<Target>], rows: impl IntoIterator<Item = usize>) {
        let snap = self.snap;
        let groups = match &self.groups {
            GroupsRef::Index(g) => g,
            GroupsRef::Own(g) => g.as_ref(),
        };
        let mut s = Suggester::new(snap, groups);
        let n = snap.nodes.len().min(out.len());
        let mut path = Vec::new();
        for row in rows {
            if row >= n || out[row].is_some() {
                continue;
            }
            // Its ancestors first, root first, as `suggest_all_with`'s pre-order has them.
            path.clear();
            if groups.preorder {
                let mut cur = snap.nodes[row].parent.filter(|&p| p < row);
                while let Some(a) = cur.filter(|&a| out[a].is_none()) {
                    path.push(a);
                    cur = snap.nodes[a].parent.filter(|&p| p < a);
                }
            }
            for &r in path.iter().rev().chain(std::iter::once(&row)) {
                let t = s.one(r, |x| out.get(x).and_then(Option::as_ref));
                out[r] = t;
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::fixture::synthetic;
    use crate::model::SnapshotId;

    #[test]
    fn suggestions_of_some_rows_are_those_of_every_row() {
        let snap = Snapshot {
            id: SnapshotId::next(),
            app: "synthetic".into(),
            window: "synthetic".into(),
            nodes: synthetic::generate(3_000, 7),
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        };
        let ix = SnapshotIndex::new(&snap);
        let all = suggest_all_with(&ix, &snap);
        let wanted = |r: usize| r % 7 == 3 || snap.nodes[r].role.is_interactive();
        let some = suggest_rows_with(&ix, &snap, wanted);
        let mut checked = 0;
        for (r, t) in some.iter().enumerate() {
            if wanted(r) {
                assert_eq!(t, &all[r], "row {r}");
                checked += 1;
            } else if t.is_some() {
                // Only an ancestor of a wanted row is suggested besides them.
                assert_eq!(t, &all[r], "ancestor row {r}");
            }
        }
        assert!(checked > 500, "{checked}");
        assert!(
            some.iter().filter(|t| t.is_none()).count() > 0,
            "not every row"
        );
    }
}
