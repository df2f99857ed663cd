//! Snapshots (one read of one window's tree), their ids, completeness, and element tokens.

use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};

use super::{AppText, Node};

/// A snapshot id, printed `s` + 8 hex digits. Ids never repeat within a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SnapshotId(pub u32);

static NEXT_SNAPSHOT: AtomicU32 = AtomicU32::new(1);

impl SnapshotId {
    /// A fresh id, never handed out before in this process.
    pub fn next() -> SnapshotId {
        SnapshotId(NEXT_SNAPSHOT.fetch_add(1, Ordering::Relaxed))
    }
}

impl std::fmt::Display for SnapshotId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "s{:08x}", self.0)
    }
}

impl std::str::FromStr for SnapshotId {
    type Err = TokenError;
    fn from_str(s: &str) -> Result<Self, TokenError> {
        let hex = s.strip_prefix('s').ok_or(TokenError::Malformed)?;
        if hex.len() != 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(TokenError::Malformed);
        }
        u32::from_str_radix(hex, 16)
            .map(SnapshotId)
            .map_err(|_| TokenError::Malformed)
    }
}

impl Serialize for SnapshotId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SnapshotId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// An element token: `<snapshot>:<row>`, e.g. `s0000002a:11`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Token {
    pub snapshot: SnapshotId,
    pub row: usize,
}

/// A string that is not a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("not an element token (expected s + 8 hex digits, `:`, row number, e.g. s0000002a:11)")]
    Malformed,
}

impl Token {
    /// Whether `s` looks like a token (so callers can tell tokens from targets).
    pub fn looks_like(s: &str) -> bool {
        s.parse::<Token>().is_ok()
    }
}

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.snapshot, self.row)
    }
}

impl std::str::FromStr for Token {
    type Err = TokenError;
    fn from_str(s: &str) -> Result<Self, TokenError> {
        let (snap, row) = s.trim().split_once(':').ok_or(TokenError::Malformed)?;
        if row.is_empty() || row.len() > 9 || !row.bytes().all(|b| b.is_ascii_digit()) {
            return Err(TokenError::Malformed);
        }
        Ok(Token {
            snapshot: snap.parse()?,
            row: row.parse().map_err(|_| TokenError::Malformed)?,
        })
    }
}

impl Serialize for Token {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Which limit cut a snapshot short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    /// More nodes than `max_nodes`.
    NodeCap,
    /// Deeper than `max_depth`.
    DepthCap,
    /// A node with more children than `max_siblings`.
    SiblingCap,
    /// The whole read ran past its deadline (`--read-timeout`).
    Timeout,
    /// The app stopped answering before the read was whole: nothing came back for the call
    /// timeout while calls were waiting (it is busy or hung, and still on the bus).
    NotResponding,
    /// The application left the bus mid-read.
    AppGone,
    /// A partial tree handed over while the read goes on (the inspector paints it).
    Reading,
    /// The user stopped the read (the inspector's Esc): what was read by then.
    Cancelled,
}

impl Truncation {
    pub fn as_str(self) -> &'static str {
        match self {
            Truncation::NodeCap => "node_cap",
            Truncation::DepthCap => "depth_cap",
            Truncation::SiblingCap => "sibling_cap",
            Truncation::Timeout => "timeout",
            Truncation::NotResponding => "not_responding",
            Truncation::AppGone => "app_gone",
            Truncation::Reading => "reading",
            Truncation::Cancelled => "cancelled",
        }
    }
}

/// How many listed elements each cap left unread, by the option that sets the cap (their own
/// descendants were never listed, so they are not counted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Cuts {
    /// Past `--max-nodes`.
    pub max_nodes: usize,
    /// Children of elements at `--max-depth`.
    pub max_depth: usize,
    /// Children of one element past `--max-children`.
    pub max_children: usize,
}

/// What the containers whose children are not enumerated (they manage their descendants, or
/// claim too many) left out: how many containers, how many of their descendants were read
/// (the visible ones), and how many children they claim.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ManagedShown {
    pub containers: usize,
    pub shown: usize,
    pub claimed: i64,
}

/// How many unreadable elements a snapshot names ([`Snapshot::unreadable_elements`]).
pub const UNREADABLE_NAMED: usize = 100;

/// An element the app named (in a children list) that could not be read at all: left out of
/// the tree, named here with the call that failed and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Unreadable {
    /// The element's backend id.
    pub element: String,
    /// The element whose children list named it (its backend id).
    pub parent: String,
    pub call: String,
    pub why: String,
}

/// One read of one window's (or app's) tree. `nodes` is in pre-order: a node's row is its index.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub id: SnapshotId,
    /// The application's name.
    pub app: AppText,
    /// The window's name (empty when the snapshot is of a whole app).
    pub window: AppText,
    pub nodes: Vec<Node>,
    /// The first limit that cut the read short, if any.
    pub truncated: Option<Truncation>,
    /// Nodes that could not be read (vanished or errored mid-walk); they are left out. (Nodes
    /// read in part, whose element did not answer some calls, are in the tree with those calls
    /// named: [`Snapshot::partial`].)
    pub unreadable: usize,
    /// The unreadable elements by name: each element the app named that is not in the tree,
    /// with the call that failed on it and why (at most [`UNREADABLE_NAMED`]; `unreadable`
    /// counts them all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable_elements: Vec<Unreadable>,
    /// How many listed elements each cap left unread.
    #[serde(default)]
    pub cuts: Cuts,
    /// How long the read took.
    pub read_ms: f64,
}

impl Snapshot {
    /// Whether the tree was read whole: no limit fired, every node was readable and answered
    /// every call.
    pub fn complete(&self) -> bool {
        self.truncated.is_none() && self.unreadable == 0 && self.partial() == 0
    }

    /// Whether the read holds every element of the tree: [`Snapshot::complete`], and no
    /// container left its children out by design (one that manages its descendants shows only
    /// the visible ones: [`Snapshot::managed_shown`]).
    pub fn all_elements(&self) -> bool {
        self.complete() && self.managed_shown().containers == 0
    }

    /// What the containers whose children are not enumerated left out.
    pub fn managed_shown(&self) -> ManagedShown {
        let mut m = ManagedShown::default();
        for n in &self.nodes {
            if let Some(x) = &n.managed {
                m.containers += 1;
                m.shown += x.shown;
                m.claimed = m.claimed.saturating_add(x.child_count.max(0));
            }
        }
        m
    }

    /// One account of what the read left out, for a script to test in one place: listed
    /// elements each cap left unread, elements unreadable (named in `unreadable_elements`),
    /// elements read in part, and the containers not enumerated with how much of them is shown.
    pub fn left_out_json(&self) -> serde_json::Value {
        let m = self.managed_shown();
        // A cap that fired with nothing counted: the backend does not count its cuts (null,
        // not a 0 that would say nothing was cut).
        let cut = |n: usize, t: Truncation| match n {
            0 if self.truncated == Some(t) => serde_json::Value::Null,
            n => n.into(),
        };
        serde_json::json!({
            "by_cap": {
                "max_nodes": cut(self.cuts.max_nodes, Truncation::NodeCap),
                "max_depth": cut(self.cuts.max_depth, Truncation::DepthCap),
                "max_children": cut(self.cuts.max_children, Truncation::SiblingCap),
            },
            "unreadable": self.unreadable,
            "partial": self.partial(),
            "managed": {
                "containers": m.containers,
                "shown": m.shown,
                "of": m.claimed,
            },
        })
    }

    /// How many nodes are read only in part: their element did not answer some calls while its
    /// app answered others (`Node::unanswered`).
    pub fn partial(&self) -> usize {
        self.nodes.iter().filter(|n| n.is_partial()).count()
    }

    /// The node at `row`.
    pub fn get(&self, row: usize) -> Option<&Node> {
        self.nodes.get(row)
    }

    /// The token naming `row` in this snapshot.
    pub fn token(&self, row: usize) -> Token {
        Token {
            snapshot: self.id,
            row,
        }
    }

    /// Rows from the root down to `row` (inclusive).
    pub fn ancestry(&self, row: usize) -> Vec<usize> {
        let mut path = vec![row];
        let mut cur = row;
        while let Some(p) = self.nodes.get(cur).and_then(|n| n.parent) {
            path.push(p);
            cur = p;
        }
        path.reverse();
        path
    }

    /// The name of the window `row` sits in: the snapshot's window, or, in a read of a whole
    /// app (several windows), the top-level element above `row`.
    pub fn window_of(&self, row: usize) -> AppText {
        if !self.window.as_str().is_empty() {
            return self.window.clone();
        }
        let path = self.ancestry(row);
        match (path.first().and_then(|&r| self.nodes.get(r)), path.get(1)) {
            (Some(root), Some(&top)) if root.role == super::Role::Application => self
                .nodes
                .get(top)
                .map(|n| n.name.clone())
                .unwrap_or_default(),
            _ => self.window.clone(),
        }
    }

    /// A readable path from the root: `frame "Settings" > panel > text "Name"`.
    pub fn path_string(&self, row: usize) -> String {
        self.ancestry(row)
            .into_iter()
            .filter_map(|r| self.nodes.get(r))
            .map(super::display::described)
            .collect::<Vec<_>>()
            .join(" > ")
    }

    /// The row of the node with backend id `id` (the element itself, never a node that
    /// repeats it: `Node::repeat`).
    pub fn row_of(&self, id: &super::NodeId) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| &n.id == id && n.repeat.is_none())
    }

    /// Every node's row by its backend id, for looking many up (`row_of` scans); nodes that
    /// repeat an element are left out.
    pub fn rows_by_id(&self) -> super::FastMap<&super::NodeId, usize> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.repeat.is_none())
            .map(|(r, n)| (&n.id, r))
            .collect()
    }

    /// By row: whether the row is one of `rows` or an ancestor of one (the root always is).
    pub fn with_ancestors(&self, rows: impl IntoIterator<Item = usize>) -> Vec<bool> {
        let mut keep = vec![false; self.nodes.len()];
        for r in rows {
            let mut cur = Some(r);
            while let Some(c) = cur {
                match keep.get_mut(c) {
                    Some(k) if !*k => {
                        *k = true;
                        cur = self.nodes.get(c).and_then(|n| n.parent);
                    }
                    _ => break,
                }
            }
        }
        if let Some(k) = keep.first_mut() {
            *k = true;
        }
        keep
    }

    /// By row: whether the node is showing or holds a showing node (what is on screen, with
    /// what it sits in).
    /// Whether the toolkit says which elements are on screen: false when elements below the
    /// top say `visible` and none says `showing` (GTK 4.8 sets `showing` on its windows only),
    /// so that "only what is showing" would be the window alone.
    pub fn reports_showing(&self) -> bool {
        let below = || {
            self.nodes
                .iter()
                .filter(|n| n.depth > 0 || n.parent.is_some())
        };
        below().any(|n| n.states.has(super::State::Showing))
            || !below().any(|n| n.states.has(super::State::Visible))
    }

    pub fn showing_mask(&self) -> Vec<bool> {
        self.with_ancestors(
            (0..self.nodes.len()).filter(|&r| self.nodes[r].states.has(super::State::Showing)),
        )
    }

    /// Points every node that repeats an element (`Node::repeat`) at the element's row, once
    /// the rows are final. A repeat whose element is not in `nodes` is left pointing at itself.
    pub fn link_repeats(nodes: &mut [Node]) {
        let rows: std::collections::HashMap<super::NodeId, usize> = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.repeat.is_none())
            .map(|(r, n)| (n.id.clone(), r))
            .collect();
        for (row, n) in nodes.iter_mut().enumerate() {
            if let Some(rep) = &mut n.repeat {
                rep.of = rows.get(&n.id).copied().unwrap_or(row);
            }
        }
    }
}

/// Builds a pre-order snapshot from nodes collected in any order, where each node's
/// `children` holds indices into `collected`. Parents, depths and children are rewritten to rows.
/// Nodes unreachable from `root` are dropped; cycles are broken (a node is placed once).
pub fn preorder(collected: Vec<Node>, root: usize) -> Vec<Node> {
    let n = collected.len();
    if root >= n {
        return Vec::new();
    }
    let mut slots: Vec<Option<Node>> = collected.into_iter().map(Some).collect();
    let mut out: Vec<Node> = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    // (index in `collected`, parent row, depth)
    let mut stack: Vec<(usize, Option<usize>, u32)> = vec![(root, None, 0)];
    while let Some((idx, parent, depth)) = stack.pop() {
        if placed[idx] {
            continue;
        }
        placed[idx] = true;
        let Some(mut node) = slots[idx].take() else {
            continue;
        };
        let row = out.len();
        let kids = std::mem::take(&mut node.children);
        node.parent = parent;
        node.depth = depth;
        if let Some(p) = parent {
            out[p].children.push(row);
        }
        out.push(node);
        for &k in kids.iter().rev() {
            if k < n && !placed[k] {
                stack.push((k, Some(row), depth + 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeId, Role};

    #[test]
    fn token_round_trip() {
        let t: Token = "s0000002a:11".parse().unwrap();
        assert_eq!(t.snapshot, SnapshotId(42));
        assert_eq!(t.row, 11);
        assert_eq!(t.to_string(), "s0000002a:11");
        for bad in [
            "",
            "s2a:1",
            "x0000002a:1",
            "s0000002a:",
            "s0000002a:x",
            "s0000002a",
        ] {
            assert!(bad.parse::<Token>().is_err(), "{bad}");
        }
    }

    #[test]
    fn ids_never_repeat() {
        let a = SnapshotId::next();
        let b = SnapshotId::next();
        assert_ne!(a, b);
    }

    #[test]
    fn preorder_layout() {
        let mk = |name: &str, kids: Vec<usize>| {
            let mut n = Node::new(NodeId(name.into()), Role::Panel, "panel");
            n.name = name.into();
            n.children = kids;
            n
        };
        // collected out of order: 0=b, 1=root, 2=a, 3=a1
        let nodes = vec![
            mk("b", vec![]),
            mk("root", vec![2, 0]),
            mk("a", vec![3]),
            mk("a1", vec![]),
        ];
        let out = preorder(nodes, 1);
        let names: Vec<_> = out.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["root", "a", "a1", "b"]);
        assert_eq!(out[0].children, vec![1, 3]);
        assert_eq!(out[2].parent, Some(1));
        assert_eq!(out[2].depth, 2);
    }

    #[test]
    fn the_window_an_element_sits_in() {
        let mk = |role, name: &str, kids: Vec<usize>| {
            let mut n = Node::new(NodeId(name.into()), role, "x");
            n.name = name.into();
            n.children = kids;
            n
        };
        // app > (frame "One" > button "b"), (frame "Two")
        let nodes = vec![
            mk(Role::Application, "app", vec![1, 3]),
            mk(Role::Frame, "One", vec![2]),
            mk(Role::Button, "b", vec![]),
            mk(Role::Frame, "Two", vec![]),
        ];
        let mut snap = Snapshot {
            id: SnapshotId(1),
            app: "app".into(),
            window: AppText::default(),
            nodes: preorder(nodes, 0),
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        };
        assert_eq!(snap.window_of(2).as_str(), "One");
        assert_eq!(snap.window_of(3).as_str(), "Two");
        assert_eq!(
            snap.window_of(0).as_str(),
            "",
            "the app itself is in no window"
        );
        snap.window = "One".into();
        assert_eq!(snap.window_of(2).as_str(), "One");
    }
}

#[cfg(test)]
mod left_out {
    use super::*;
    use crate::model::{Managed, ManagedReason, NodeId, Role};

    fn snap(nodes: Vec<Node>, truncated: Option<Truncation>, cuts: Cuts) -> Snapshot {
        Snapshot {
            id: SnapshotId(1),
            app: Default::default(),
            window: Default::default(),
            nodes,
            truncated,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts,
            read_ms: 0.0,
        }
    }

    #[test]
    fn a_cap_that_cut_without_a_count_is_null_never_zero() {
        let root = Node::new(NodeId("r".into()), Role::Frame, "frame");
        let s = snap(
            vec![root.clone()],
            Some(Truncation::NodeCap),
            Cuts::default(),
        );
        let j = s.left_out_json();
        assert!(j["by_cap"]["max_nodes"].is_null(), "{j}");
        assert_eq!(j["by_cap"]["max_depth"], 0);
        let s = snap(
            vec![root],
            Some(Truncation::SiblingCap),
            Cuts {
                max_children: 7,
                ..Cuts::default()
            },
        );
        assert_eq!(s.left_out_json()["by_cap"]["max_children"], 7);
        assert!(!s.complete() && !s.all_elements());
    }

    #[test]
    fn a_managed_container_is_complete_but_not_all_elements() {
        let mut list = Node::new(NodeId("l".into()), Role::List, "list");
        list.managed = Some(Box::new(Managed {
            reason: ManagedReason::ManagesDescendants,
            child_count: 120_000,
            rows: None,
            columns: None,
            shown: 12,
        }));
        let s = snap(vec![list], None, Cuts::default());
        assert!(s.complete());
        assert!(!s.all_elements());
        let m = &s.left_out_json()["managed"];
        assert_eq!(
            (m["containers"].clone(), m["shown"].clone(), m["of"].clone()),
            (1.into(), 12.into(), 120_000.into())
        );
    }
}
