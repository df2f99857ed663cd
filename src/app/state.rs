//! What of a window's snapshot an answer shows: the tree (folded or raw), or only what is on
//! screen, or a flat list of the elements a person can act on, or of the elements a target
//! matches; down to a depth; and, under a size budget, which part comes first and where the
//! next page starts. `get_window_state` and `tree` both ask it, so the forms mean the same in
//! both, and an answer that is not whole says so, what it left out, and how to get the rest.
//!
//! The cut is the same every time: a tree is paged breadth first (the top levels first, so
//! every page after the first is a set of subtrees whose parents came before), a list in tree
//! order. Pure: it looks at a snapshot, it reads nothing.

use std::collections::BTreeMap;

use crate::fold::{self, Line};
use crate::model::{Snapshot, State};
use crate::selector::{SnapshotIndex, Target};

/// What to show.
#[derive(Debug, Clone, Default)]
pub struct Ask {
    /// Every node, without folding unnamed single-child wrappers into their child.
    pub raw: bool,
    /// Only what is on screen: nodes that are showing, with their ancestors.
    pub showing_only: bool,
    /// A flat list of the elements a person can act on (interactive roles), in tree order.
    pub interactive_only: bool,
    /// A flat list of the elements this target matches (every tier), in tree order.
    pub query: Option<Target>,
    /// Levels shown below the top one (the window, or the asked root).
    pub max_depth: Option<usize>,
    /// The most bytes the answer may take; `None`: no cut.
    pub budget: Option<usize>,
    /// Where this page starts (see [`Shown::next`]).
    pub offset: usize,
}

/// The shape of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Nested, as the tree is.
    Tree,
    /// A flat list of actionable elements.
    Interactive,
    /// A flat list of the elements a target matches.
    Matches,
}

impl Form {
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Tree => "tree",
            Form::Interactive => "interactive",
            Form::Matches => "matches",
        }
    }
}

/// What an answer shows of a snapshot.
#[derive(Debug, Clone)]
pub struct Shown {
    pub form: Form,
    /// This page's lines, in tree order (levels as the folded view has them).
    pub lines: Vec<Line>,
    /// How many lines the ask selects in all (every page).
    pub total: usize,
    /// The position of this page's first line among them (in paging order).
    pub from: usize,
    /// Where the next page starts, when this one is not the last.
    pub next: Option<usize>,
    /// What the ask selects that this page leaves out, by role, (role, count) most first.
    pub omitted: Vec<(String, usize)>,
    /// Lines below `max_depth`, which no page shows.
    pub below_depth: usize,
    /// `showing_only` was asked of a tree whose toolkit does not say what is showing
    /// ([`Snapshot::reports_showing`]): it was not applied, and the answer says so.
    pub showing_unknown: bool,
}

impl Shown {
    /// Whether this answer shows everything the ask selects.
    pub fn whole(&self) -> bool {
        self.next.is_none() && self.from == 0
    }

    pub fn omitted_count(&self) -> usize {
        self.omitted.iter().map(|(_, n)| n).sum()
    }
}

/// Whether a node is one a person acts on: an interactive role, not a repeat of another.
pub fn actionable(snap: &Snapshot, row: usize) -> bool {
    snap.nodes
        .get(row)
        .is_some_and(|n| n.repeat.is_none() && n.role.is_interactive())
}

/// The lines an ask selects, in tree order, and how many were cut by its depth.
fn selected(snap: &Snapshot, ask: &Ask, form: Form) -> (Vec<Line>, usize) {
    // Only what is showing, where the toolkit says what is (else nothing is left out for it).
    let showing_only = ask.showing_only && snap.reports_showing();
    let lines = match form {
        Form::Tree => {
            let keep = showing_only.then(|| snap.showing_mask());
            let hidden = |r: usize| {
                keep.as_ref()
                    .is_some_and(|k| !k.get(r).copied().unwrap_or(false))
            };
            let mut lines = fold::lines(snap, ask.raw, &hidden);
            if let Some(k) = &keep {
                lines.retain(|l| k.get(l.row).copied().unwrap_or(false));
            }
            lines
        }
        Form::Interactive => fold::lines(snap, true, &|_| false)
            .into_iter()
            .filter(|l| actionable(snap, l.row))
            .filter(|l| !showing_only || snap.nodes[l.row].states.has(State::Showing))
            .collect(),
        Form::Matches => {
            let rows: Vec<usize> = match &ask.query {
                Some(t) => crate::selector::match_all(&SnapshotIndex::new(snap), snap, t),
                None => Vec::new(),
            };
            let mut wanted = vec![false; snap.nodes.len()];
            for r in rows {
                if let Some(w) = wanted.get_mut(r) {
                    *w = true;
                }
            }
            fold::lines(snap, true, &|_| false)
                .into_iter()
                .filter(|l| wanted.get(l.row).copied().unwrap_or(false))
                .filter(|l| !ask.interactive_only || actionable(snap, l.row))
                .filter(|l| !showing_only || snap.nodes[l.row].states.has(State::Showing))
                .collect()
        }
    };
    match ask.max_depth {
        Some(d) => {
            let before = lines.len();
            let kept: Vec<Line> = lines
                .into_iter()
                .filter(|l| snap.nodes[l.row].depth as usize <= d)
                .collect();
            let cut = before - kept.len();
            (kept, cut)
        }
        None => (lines, 0),
    }
}

/// What `ask` shows of `snap`: the form, then the page that fits `ask.budget` when `cost(line)`
/// is what a line adds to the answer, starting at `ask.offset`.
pub fn show(snap: &Snapshot, ask: &Ask, cost: &dyn Fn(&Line) -> usize) -> Shown {
    // Every scope asked is applied: a query's matches, only the actionable ones with
    // `interactive_only`, only those on screen with `showing_only`.
    let form = if ask.query.is_some() {
        Form::Matches
    } else if ask.interactive_only {
        Form::Interactive
    } else {
        Form::Tree
    };
    let (lines, below_depth) = selected(snap, ask, form);
    let total = lines.len();
    // Paging order: breadth first for a tree (ties in tree order), tree order for a list.
    let mut order: Vec<usize> = (0..lines.len()).collect();
    if form == Form::Tree {
        order.sort_by_key(|&i| (lines[i].level, i));
    }
    let from = ask.offset.min(total);
    let mut take = 0usize;
    let mut spent = 0usize;
    for &i in &order[from..] {
        let c = cost(&lines[i]);
        if let Some(b) = ask.budget
            && take > 0
            && spent + c > b
        {
            break;
        }
        spent += c;
        take += 1;
    }
    let mut page: Vec<usize> = order[from..from + take].to_vec();
    page.sort_unstable();
    let mut by_role: BTreeMap<String, usize> = BTreeMap::new();
    for &i in order[..from].iter().chain(&order[from + take..]) {
        *by_role
            .entry(snap.nodes[lines[i].row].role.as_str().to_string())
            .or_default() += 1;
    }
    let mut omitted: Vec<(String, usize)> = by_role.into_iter().collect();
    omitted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Shown {
        form,
        lines: page.into_iter().map(|i| lines[i]).collect(),
        total,
        from,
        next: (from + take < total).then_some(from + take),
        omitted,
        below_depth,
        showing_unknown: ask.showing_only && !snap.reports_showing(),
    }
}

/// A cursor: the snapshot a page came from, where the next page starts, and the shape asked
/// (`s0000002a+412~1f3a09c2`). Only valid while that snapshot is the newest of its window, and
/// only with the same shape: a page taken in another form would skip or repeat lines.
pub fn cursor(snap: &Snapshot, next: usize, ask: &Ask) -> String {
    format!("{}+{next}~{:08x}", snap.id, ask.shape())
}

/// Reads a cursor: (snapshot id, offset, shape).
pub fn parse_cursor(s: &str) -> Option<(crate::model::SnapshotId, usize, u32)> {
    let (snap, rest) = s.split_once('+')?;
    let (at, shape) = rest.split_once('~')?;
    let token: crate::model::Token = format!("{snap}:0").parse().ok()?;
    if shape.len() != 8 {
        return None;
    }
    Some((
        token.snapshot,
        at.parse().ok()?,
        u32::from_str_radix(shape, 16).ok()?,
    ))
}

impl Ask {
    /// What decides which lines an answer holds and in what order (not the budget, nor where
    /// a page starts), as a 32-bit FNV-1a hash.
    pub fn shape(&self) -> u32 {
        let text = format!(
            "{}{}{}{:?}|{}",
            u8::from(self.raw),
            u8::from(self.showing_only),
            u8::from(self.interactive_only),
            self.max_depth,
            self.query
                .as_ref()
                .map(|q| q.to_string())
                .unwrap_or_default()
        );
        text.bytes().fold(0x811c_9dc5_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeId, Role, SnapshotId, preorder};

    /// frame > (panel "P" > 4 buttons), text, check-box
    fn snap() -> Snapshot {
        let mk = |role, name: &str, kids: Vec<usize>| {
            let mut n = Node::new(NodeId(name.into()), role, "x");
            n.name = name.into();
            n.children = kids;
            n.states.set(State::Showing, true);
            n
        };
        let mut nodes = vec![
            mk(Role::Frame, "F", vec![1, 6, 7]),
            mk(Role::Panel, "P", vec![2, 3, 4, 5]),
            mk(Role::Button, "b1", vec![]),
            mk(Role::Button, "b2", vec![]),
            mk(Role::Button, "b3", vec![]),
            mk(Role::Button, "b4", vec![]),
            mk(Role::Text, "t", vec![]),
            mk(Role::CheckBox, "c", vec![]),
        ];
        nodes[5].states = Default::default();
        Snapshot {
            id: SnapshotId(7),
            app: "a".into(),
            window: "F".into(),
            nodes: preorder(nodes, 0),
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        }
    }

    fn rows(s: &Shown, snap: &Snapshot) -> Vec<String> {
        s.lines
            .iter()
            .map(|l| snap.nodes[l.row].name.as_str().to_string())
            .collect()
    }

    #[test]
    fn a_budget_cuts_breadth_first_and_pages_on_without_repeating_or_skipping() {
        let s = snap();
        let one = |_: &Line| 10;
        let mut ask = Ask {
            budget: Some(55),
            ..Ask::default()
        };
        let p1 = show(&s, &ask, &one);
        // F, then its children (P, t, c), then the first button.
        assert_eq!(rows(&p1, &s), ["F", "P", "b1", "t", "c"]);
        assert_eq!(p1.next, Some(5));
        assert_eq!(p1.omitted, [("button".to_string(), 3)]);
        let mut seen = rows(&p1, &s);
        while let Some(n) = show(&s, &ask, &one).next {
            ask.offset = n;
            let p = show(&s, &ask, &one);
            seen.extend(rows(&p, &s));
        }
        seen.sort();
        assert_eq!(seen, ["F", "P", "b1", "b2", "b3", "b4", "c", "t"]);
    }

    #[test]
    fn lists_scopes_and_depths() {
        let s = snap();
        let free = |_: &Line| 1;
        let interactive = show(
            &s,
            &Ask {
                interactive_only: true,
                ..Ask::default()
            },
            &free,
        );
        assert_eq!(interactive.form, Form::Interactive);
        assert_eq!(rows(&interactive, &s), ["b1", "b2", "b3", "b4", "t", "c"]);
        let showing = show(
            &s,
            &Ask {
                interactive_only: true,
                showing_only: true,
                ..Ask::default()
            },
            &free,
        );
        assert!(!rows(&showing, &s).contains(&"b4".to_string()));
        let shallow = show(
            &s,
            &Ask {
                max_depth: Some(1),
                ..Ask::default()
            },
            &free,
        );
        assert_eq!(rows(&shallow, &s), ["F", "P", "t", "c"]);
        assert_eq!(shallow.below_depth, 4);
        assert!(shallow.whole());
        let q = show(
            &s,
            &Ask {
                query: Some("button \"b2\"".parse().unwrap()),
                ..Ask::default()
            },
            &free,
        );
        assert_eq!(rows(&q, &s), ["b2"]);
        // A query and interactive_only together: the matches a person can act on.
        let both = |q: &str| {
            let shown = show(
                &s,
                &Ask {
                    query: Some(q.parse().unwrap()),
                    interactive_only: true,
                    ..Ask::default()
                },
                &free,
            );
            assert_eq!(shown.form, Form::Matches);
            rows(&shown, &s)
        };
        assert_eq!(both("button \"b2\""), ["b2"]);
        assert!(both("panel \"P\"").is_empty());
    }

    #[test]
    fn showing_only_is_not_applied_where_the_toolkit_does_not_say() {
        let ask = Ask {
            showing_only: true,
            ..Ask::default()
        };
        let all = |_: &Line| 1;
        // Said: the one node that is not showing is left out.
        let said = show(&snap(), &ask, &all);
        assert!(!said.showing_unknown);
        assert!(!rows(&said, &snap()).contains(&"b4".to_string()));
        // Not said (GTK 4): only the window shows, everything under it is visible.
        let mut s = snap();
        for n in s.nodes.iter_mut().skip(1) {
            n.states = Default::default();
            n.states.set(State::Visible, true);
        }
        let unsaid = show(&s, &ask, &all);
        assert!(unsaid.showing_unknown);
        assert_eq!(unsaid.total, s.nodes.len(), "nothing left out for it");
        let text = crate::app::output::shown_text(&s, &unsaid, &vec![None; s.nodes.len()], false);
        assert!(text.starts_with("note: the app does not say"), "{text}");
    }

    #[test]
    fn cursors_round_trip_and_carry_the_shape_asked() {
        let s = snap();
        let tree = Ask::default();
        let listed = Ask {
            interactive_only: true,
            ..Ask::default()
        };
        let c = cursor(&s, 412, &tree);
        assert!(c.starts_with("s00000007+412~"), "{c}");
        assert_eq!(parse_cursor(&c), Some((SnapshotId(7), 412, tree.shape())));
        // Another form, another query, another depth: another shape; the budget is not one.
        let queried = |q: &str| Ask {
            query: Some(q.parse().unwrap()),
            ..Ask::default()
        };
        let shapes = [
            tree.shape(),
            listed.shape(),
            queried("button").shape(),
            queried("text").shape(),
            Ask {
                max_depth: Some(2),
                ..Ask::default()
            }
            .shape(),
        ];
        for (i, a) in shapes.iter().enumerate() {
            for b in &shapes[i + 1..] {
                assert_ne!(a, b);
            }
        }
        let budgeted = Ask {
            budget: Some(10),
            offset: 3,
            ..Ask::default()
        };
        assert_eq!(budgeted.shape(), tree.shape());
        for bad in [
            "s00000007",
            "x+1~00000000",
            "s00000007+1",
            "s00000007+1~zz",
            "s00000007+1~0",
        ] {
            assert_eq!(parse_cursor(bad), None, "{bad}");
        }
    }
}
