//! Recorded UIA trees replayed into snapshots: a JSON trace is the same [`UiaElement`] record
//! the IO module reads with one cache request, and a replay walks it with the walk a live read
//! takes ([`read::build`]), the recorded faults answering as the provider did, then runs the
//! mapping a live read runs.
//!
//! Format: `{"app": "Notepad", "pid": 4242, "root": <UiaElement>}`; every field of an element
//! is optional (see [`UiaElement`] for the defaults). Elements without a `runtime_id` get one
//! made up from their position, so hand-written traces need not invent ids. An element's
//! `faults` (`{"GetCachedChildren": "E_NOTIMPL"}`) are the calls a partial provider refused.

use std::time::Instant;

use super::map::UiaElement;
use super::read;
use crate::backend::record::layout;
use crate::backend::worker::trace::{self, Trace, TraceError, Traced};
use crate::backend::{BackendError, Limits};
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

/// Parses a trace and fills in what a hand-written one may leave out (runtime ids, process ids);
/// refuses faults on calls it does not know or with codes that are not HRESULTs.
pub fn parse_trace(json: &str) -> Result<UiaTrace, TraceError> {
    let trace: UiaTrace = trace::parse(json)?;
    trace
        .root
        .check_faults()
        .map_err(|why| TraceError::Invalid(<UiaElement as Traced>::WHAT, why))?;
    Ok(trace)
}

/// Replays a trace as a live read of its root goes, within `limits`: `Err` where the read
/// itself fails (the root's cache request refused because it is gone or does not answer).
pub fn replay(trace: &UiaTrace, limits: &Limits) -> Result<Snapshot, BackendError> {
    let started = Instant::now();
    let mut provider =
        read::Recorded::new(&trace.root).map_err(|f| f.error("BuildUpdatedCache"))?;
    let mut budget = limits.max_nodes.saturating_sub(1);
    let mut truncated = None;
    let root = read::build(
        &mut provider,
        &trace.root,
        0,
        limits,
        &mut budget,
        &mut truncated,
    );
    let mut snap = layout(&trace.app, &root, limits, started);
    snap.truncated = truncated.or(snap.truncated);
    Ok(snap)
}

/// Replays a JSON trace into a snapshot with the default limits.
pub fn snapshot_from_trace(json: &str) -> Result<Snapshot, TraceError> {
    replay(&parse_trace(json)?, &Limits::default()).map_err(TraceError::Read)
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
