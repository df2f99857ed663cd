//! Recorded UIA trees replayed into snapshots: a JSON trace is the same [`UiaElement`] record
//! the IO module reads with one cache request, so a replay runs the mapping a live read runs.
//!
//! Format: `{"app": "Notepad", "pid": 4242, "root": <UiaElement>}`; every field of an element
//! is optional (see [`UiaElement`] for the defaults). Elements without a `runtime_id` get one
//! made up from their position, so hand-written traces need not invent ids.

use super::map::UiaElement;
use crate::backend::worker::trace::{self, Trace, TraceError, Traced};
use crate::model::Snapshot;

/// A recorded UIA tree.
pub type UiaTrace = Trace<UiaElement>;

impl Traced for UiaElement {
    type Pid = u32;
    const WHAT: &'static str = "a UIA trace";

    /// Runtime ids made up from the position, the trace's process id.
    fn fill(root: &mut UiaElement, pid: u32) {
        fill(root, pid, &mut 1);
    }
}

fn fill(e: &mut UiaElement, pid: u32, next: &mut i32) {
    if e.runtime_id.is_empty() {
        // 42 is what UIA itself puts first in the runtime ids of provider-less elements.
        e.runtime_id = vec![42, pid as i32, *next];
        *next += 1;
    }
    if e.process_id == 0 {
        e.process_id = pid;
    }
    for kid in &mut e.children {
        fill(kid, pid, next);
    }
}

/// Parses a trace and fills in what a hand-written one may leave out (runtime ids, process ids).
pub fn parse_trace(json: &str) -> Result<UiaTrace, TraceError> {
    trace::parse(json)
}

/// Replays a JSON trace into a snapshot with the default limits.
pub fn snapshot_from_trace(json: &str) -> Result<Snapshot, TraceError> {
    trace::snapshot::<UiaElement>(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    #[test]
    fn fills_ids_and_keeps_given_ones() {
        let json = r#"{"app": "A", "pid": 9, "root": {"control_type": 50032, "name": "W",
            "children": [{"control_type": 50000, "name": "OK", "runtime_id": [7, 8]},
                         {"control_type": 50020, "name": "Hi"}]}}"#;
        let snap = snapshot_from_trace(json).unwrap();
        let ids: Vec<&str> = snap.nodes.iter().map(|n| n.id.0.as_str()).collect();
        assert_eq!(ids, ["uia:42.9.1", "uia:7.8", "uia:42.9.2"]);
        assert_eq!(snap.window, "W");
        assert_eq!(snap.app, "A");
        assert_eq!(snap.nodes[1].role, Role::Button);
        assert!(snap.complete());
    }

    #[test]
    fn rejects_unknown_fields_and_patterns() {
        assert!(snapshot_from_trace(r#"{"app": "A", "root": {"colour": 1}}"#).is_err());
        assert!(
            snapshot_from_trace(r#"{"app": "A", "root": {"patterns": ["Teleport"]}}"#).is_err()
        );
        assert!(snapshot_from_trace("[]").is_err());
    }
}
