//! Recorded AX trees replayed into snapshots: a JSON trace is the same [`AxElement`] record the
//! IO module reads, so a replay runs the mapping a live read runs.
//!
//! Format: `{"app": "TextEdit", "pid": 501, "root": <AxElement>}`; every field of an element is
//! optional (see [`AxElement`]). Ids are made from each element's path the way the IO module
//! makes them: the root is `ax:<pid>` when it is the application, `ax:<pid>/w0` when it is a
//! window, and the i-th child of a node adds `/<i>`.

use super::map::{AxElement, child_path, node_id, window_path};
use crate::backend::worker::trace::{self, Trace, TraceError, Traced};
use crate::model::Snapshot;

/// A recorded AX tree.
pub type AxTrace = Trace<AxElement>;

impl Traced for AxElement {
    type Pid = i32;
    const WHAT: &'static str = "an AX trace";
    type Client = ();

    /// Every element without an id gets its path id.
    fn fill(root: &mut AxElement, pid: i32) {
        let root_path = if root.role == "AXApplication" {
            String::new()
        } else {
            window_path(0)
        };
        fill(root, pid, &root_path);
    }
}

fn fill(e: &mut AxElement, pid: i32, path: &str) {
    if e.id.is_none() {
        e.id = Some(node_id(pid, path, 0).0);
    }
    for (i, kid) in e.children.iter_mut().enumerate() {
        fill(kid, pid, &child_path(path, i));
    }
}

/// Parses a trace and gives every element without an id its path id.
pub fn parse_trace(json: &str) -> Result<AxTrace, TraceError> {
    trace::parse(json)
}

/// Replays a JSON trace into a snapshot with the default limits.
pub fn snapshot_from_trace(json: &str) -> Result<Snapshot, TraceError> {
    trace::snapshot::<AxElement>(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    #[test]
    fn path_ids() {
        let json = r#"{"app": "A", "pid": 5, "root": {"role": "AXWindow", "title": "W",
            "children": [{"role": "AXGroup", "children": [{"role": "AXButton", "title": "OK"}]},
                         {"role": "AXStaticText", "value": "Hi", "id": "ax:5/custom"}]}}"#;
        let snap = snapshot_from_trace(json).unwrap();
        let ids: Vec<&str> = snap.nodes.iter().map(|n| n.id.0.as_str()).collect();
        assert_eq!(ids, ["ax:5/w0", "ax:5/w0/0", "ax:5/w0/0/0", "ax:5/custom"]);
        assert_eq!(snap.nodes[2].role, Role::Button);
        assert_eq!(snap.nodes[3].name, "Hi");
        let app = r#"{"app": "A", "pid": 5, "root": {"role": "AXApplication", "title": "A",
            "children": [{"role": "AXWindow"}]}}"#;
        let snap = snapshot_from_trace(app).unwrap();
        assert_eq!(snap.nodes[0].id.0, "ax:5");
        assert_eq!(snap.nodes[1].id.0, "ax:5/0");
        assert_eq!(snap.window, "");
    }

    #[test]
    fn rejects_unknown_fields() {
        assert!(snapshot_from_trace(r#"{"app": "A", "root": {"rolle": "AXButton"}}"#).is_err());
        assert!(snapshot_from_trace("{}").is_err());
    }
}
