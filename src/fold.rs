//! The folded view of a snapshot: unnamed single-child wrappers (panels, fillers, scroll panes)
//! collapse into their child. Folding is display-only; every node keeps its row.

use crate::model::Snapshot;

/// Whether `row` folds into its only child.
pub fn folds(snap: &Snapshot, row: usize) -> bool {
    snap.get(row).is_some_and(|n| {
        n.role.is_wrapper()
            && n.name.as_str().trim().is_empty()
            && n.children.len() == 1
            && row != 0
    })
}

/// One visible line of the folded tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub row: usize,
    /// Indentation level in the folded view.
    pub level: usize,
    /// How many wrappers folded into this line.
    pub folded: usize,
}

/// The visible lines, in order. `raw` shows every node; `collapsed(row)` hides a node's subtree.
pub fn lines(snap: &Snapshot, raw: bool, collapsed: &dyn Fn(usize) -> bool) -> Vec<Line> {
    let mut out = Vec::with_capacity(snap.nodes.len());
    if snap.nodes.is_empty() {
        return out;
    }
    // (row, level, folded wrappers above)
    let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, 0)];
    while let Some((row, level, folded)) = stack.pop() {
        let Some(node) = snap.get(row) else { continue };
        if !raw && folds(snap, row) {
            stack.push((node.children[0], level, folded + 1));
            continue;
        }
        out.push(Line { row, level, folded });
        if collapsed(row) {
            continue;
        }
        for &c in node.children.iter().rev() {
            stack.push((c, level + 1, 0));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeId, Role, SnapshotId, preorder};

    #[test]
    fn wrappers_fold_into_their_child() {
        let mk = |role, name: &str, kids: Vec<usize>| {
            let mut n = Node::new(NodeId(name.into()), role, "x");
            n.name = name.into();
            n.children = kids;
            n
        };
        // frame > panel(unnamed) > filler(unnamed) > button
        let mut nodes = vec![
            mk(Role::Frame, "F", vec![1]),
            mk(Role::Panel, "", vec![2]),
            mk(Role::Filler, "", vec![3]),
            mk(Role::Button, "B", vec![]),
        ];
        nodes[1].id = NodeId("p".into());
        nodes[2].id = NodeId("f".into());
        let snap = Snapshot {
            id: SnapshotId::next(),
            app: "a".into(),
            window: "F".into(),
            nodes: preorder(nodes, 0),
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        };
        let folded = lines(&snap, false, &|_| false);
        assert_eq!(
            folded,
            vec![
                Line {
                    row: 0,
                    level: 0,
                    folded: 0
                },
                Line {
                    row: 3,
                    level: 1,
                    folded: 2
                }
            ]
        );
        assert_eq!(lines(&snap, true, &|_| false).len(), 4);
        assert_eq!(lines(&snap, false, &|r| r == 0).len(), 1);
    }
}
