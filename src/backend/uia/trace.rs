//! Recorded UIA trees replayed into snapshots: a JSON trace is the same [`UiaElement`] record
//! the IO module reads with one cache request, so a replay runs the mapping a live read runs.
//!
//! Format: `{"app": "Notepad", "pid": 4242, "root": <UiaElement>}`; every field of an element
//! is optional (see [`UiaElement`] for the defaults). Elements without a `runtime_id` get one
//! made up from their position, so hand-written traces need not invent ids.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::map::UiaElement;
use crate::backend::Limits;
use crate::backend::record::layout;
use crate::model::Snapshot;

/// A recorded UIA tree.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiaTrace {
    /// The application's name.
    pub app: String,
    /// The process the tree belongs to.
    #[serde(default)]
    pub pid: u32,
    pub root: UiaElement,
}

/// A trace that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("not a UIA trace: {0}")]
    Json(#[from] serde_json::Error),
}

/// Parses a trace and fills in what a hand-written one may leave out (runtime ids, process ids).
pub fn parse_trace(json: &str) -> Result<UiaTrace, TraceError> {
    let mut trace: UiaTrace = serde_json::from_str(json)?;
    let mut next = 1;
    fill(&mut trace.root, trace.pid, &mut next);
    Ok(trace)
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

/// Replays a recorded tree into a snapshot, within `limits`.
pub fn snapshot_from(trace: &UiaTrace, limits: &Limits) -> Snapshot {
    layout(&trace.app, &trace.root, limits, Instant::now())
}

/// Replays a JSON trace into a snapshot with the default limits.
pub fn snapshot_from_trace(json: &str) -> Result<Snapshot, TraceError> {
    Ok(snapshot_from(&parse_trace(json)?, &Limits::default()))
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
