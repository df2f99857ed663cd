//! Recorded element trees — read from a platform API in bulk, or replayed from a JSON trace —
//! laid out into a pre-order [`Snapshot`] within [`Limits`]. Shared by the UIA and AX backends
//! so that traces exercise exactly the code path a live read takes.

use std::time::Instant;

use super::Limits;
use super::strategy::fill_choice_values;
use crate::model::{AppText, Node, Role, Snapshot, SnapshotId, Truncation, preorder};

/// One element of a recorded tree.
pub trait Record: Sized {
    /// The element's children, in order.
    fn children(&self) -> &[Self];
    /// The element as a model node (its `children` left empty).
    fn to_node(&self) -> Node;
}

/// Makes a platform's element record a [`Record`]: its children are its `children` field and
/// `$node` maps it (`record::recorded!(AxElement, node_from)`).
macro_rules! recorded {
    ($element:ty, $node:path) => {
        impl $crate::backend::record::Record for $element {
            fn children(&self) -> &[$element] {
                &self.children
            }
            fn to_node(&self) -> $crate::model::Node {
                $node(self)
            }
        }
    };
}
pub(crate) use recorded;

/// A tree the layout walks: its elements by handle (a recorded element itself, a fixture
/// node's id).
pub trait Tree {
    type Item;
    /// The element's children, in order.
    fn children<'a>(&'a self, item: &'a Self::Item) -> &'a [Self::Item];
    /// The element as a model node (its `children` left empty); `None` leaves it out (it is
    /// gone).
    fn node(&self, item: &Self::Item) -> Option<Node>;
}

/// Recorded trees, whose elements hold their children.
struct Records<R>(std::marker::PhantomData<R>);

impl<R: Record> Tree for Records<R> {
    type Item = R;
    fn children<'a>(&'a self, item: &'a R) -> &'a [R] {
        item.children()
    }
    fn node(&self, item: &R) -> Option<Node> {
        Some(item.to_node())
    }
}

/// The one tree-layout walk, for every backend that has its tree at hand (recorded platform
/// reads, traces, the fixture app): breadth-first within `limits` (nodes, depth, siblings), so
/// a capped read keeps the top levels whole, as the AT-SPI reader does. Returns the nodes in
/// pre-order and the first cap that cut the tree.
pub fn walk<T: Tree>(tree: &T, root: &T::Item, limits: &Limits) -> (Vec<Node>, Option<Truncation>) {
    let mut truncated: Option<Truncation> = None;
    let Some(first) = tree.node(root) else {
        return (Vec::new(), None);
    };
    let mut collected: Vec<Node> = vec![first];
    // (element, index in `collected`, depth)
    let mut level: Vec<(&T::Item, usize, usize)> = vec![(root, 0, 0)];
    'levels: while !level.is_empty() {
        let mut next = Vec::new();
        for (item, idx, depth) in level {
            let kids = tree.children(item);
            if kids.is_empty() {
                continue;
            }
            if depth >= limits.max_depth {
                truncated.get_or_insert(Truncation::DepthCap);
                continue;
            }
            let mut kids = kids;
            if kids.len() > limits.max_siblings {
                kids = &kids[..limits.max_siblings];
                truncated.get_or_insert(Truncation::SiblingCap);
            }
            for kid in kids {
                if collected.len() >= limits.max_nodes {
                    truncated.get_or_insert(Truncation::NodeCap);
                    break 'levels;
                }
                let Some(node) = tree.node(kid) else { continue };
                let k = collected.len();
                collected.push(node);
                collected[idx].children.push(k);
                next.push((kid, k, depth + 1));
            }
        }
        level = next;
    }
    (preorder(collected, 0), truncated)
}

/// Lays out the recorded tree under `root` ([`walk`]) into a snapshot, with the choice
/// elements' values filled from their options. `started` is when the read began (for
/// `read_ms`).
pub fn layout<R: Record>(app: &str, root: &R, limits: &Limits, started: Instant) -> Snapshot {
    let (mut nodes, truncated) = walk(&Records(std::marker::PhantomData), root, limits);
    fill_choice_values(&mut nodes);
    snapshot_of(app, nodes, truncated, started)
}

/// A snapshot of `nodes` as [`walk`] laid them out (the root first): its window is the root's
/// name unless the root is the application itself.
pub fn snapshot_of(
    app: &str,
    nodes: Vec<Node>,
    truncated: Option<Truncation>,
    started: Instant,
) -> Snapshot {
    let window = match nodes.first() {
        Some(n) if n.role != Role::Application => n.name.clone(),
        _ => AppText::default(),
    };
    Snapshot {
        id: SnapshotId::next(),
        app: app.into(),
        window,
        nodes,
        truncated,
        unreadable: 0,
        unreadable_elements: Vec::new(),
        cuts: Default::default(),
        read_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::NodeId;
    use std::time::Duration;

    struct R(&'static str, Vec<R>);

    impl Record for R {
        fn children(&self) -> &[R] {
            &self.1
        }
        fn to_node(&self) -> Node {
            let mut n = Node::new(NodeId(self.0.into()), Role::Panel, "panel");
            n.name = self.0.into();
            n
        }
    }

    fn tree() -> R {
        R(
            "root",
            vec![
                R("a", vec![R("a1", vec![R("a1x", vec![])]), R("a2", vec![])]),
                R("b", vec![R("b1", vec![])]),
                R("c", vec![]),
            ],
        )
    }

    fn limits(nodes: usize, depth: usize, siblings: usize) -> Limits {
        Limits {
            max_nodes: nodes,
            max_depth: depth,
            max_siblings: siblings,
            timeout: Duration::from_secs(1),
            call_timeout: Duration::from_secs(1),
            actions: true,
            labels: true,
        }
    }

    fn names(s: &Snapshot) -> Vec<&str> {
        s.nodes.iter().map(|n| n.name.as_str()).collect()
    }

    #[test]
    fn whole_tree_in_preorder() {
        let s = layout("App", &tree(), &Limits::default(), Instant::now());
        assert_eq!(names(&s), ["root", "a", "a1", "a1x", "a2", "b", "b1", "c"]);
        assert!(s.complete());
        assert_eq!(s.window, "root");
        assert_eq!(s.app, "App");
        assert_eq!(s.nodes[3].depth, 3);
        assert_eq!(s.nodes[3].parent, Some(2));
    }

    #[test]
    fn caps_cut_and_say_so() {
        let s = layout("App", &tree(), &limits(4, 128, 100), Instant::now());
        assert_eq!(s.nodes.len(), 4);
        assert_eq!(s.truncated, Some(Truncation::NodeCap));
        // Breadth-first: the first level is whole before going deeper.
        assert_eq!(names(&s), ["root", "a", "b", "c"]);

        let s = layout("App", &tree(), &limits(100, 1, 100), Instant::now());
        assert_eq!(names(&s), ["root", "a", "b", "c"]);
        assert_eq!(s.truncated, Some(Truncation::DepthCap));

        let s = layout("App", &tree(), &limits(100, 128, 2), Instant::now());
        assert_eq!(names(&s), ["root", "a", "a1", "a1x", "a2", "b", "b1"]);
        assert_eq!(s.truncated, Some(Truncation::SiblingCap));
    }
}
