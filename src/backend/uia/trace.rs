//! Recorded UIA trees replayed into snapshots: a JSON trace is the same [`UiaElement`] record
//! the IO module reads with one cache request, and a replay walks it with the walk a live read
//! takes ([`read::build`]), the recorded faults answering as the provider did, then runs the
//! mapping a live read runs.
//!
//! Format: `{"app": "Notepad", "pid": 4242, "root": <UiaElement>}`; every field of an element
//! is optional (see [`UiaElement`] for the defaults). Elements without a `runtime_id` get one
//! made up from their position, so hand-written traces need not invent ids. An element's
//! `faults` (`{"GetCachedChildren": "E_NOTIMPL"}`) are the calls a partial provider refused.
//! A trace read with a partial client says so in `client` ([`UiaClient`]): the calls it
//! refuses everywhere, whether its `FindAll` finds nothing, and how many top-level windows
//! `EnumWindows` found.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::calls::{self, Call, Refusal};
use super::map::{self, UiaElement};
use super::read::{self, Fault};
use crate::backend::record::layout;
use crate::backend::worker::trace::{self, Trace, TraceError, Traced};
use crate::backend::{BackendError, Limits};
use crate::model::Snapshot;

/// A recorded UIA tree.
pub type UiaTrace = Trace<UiaElement>;

/// The UI Automation client a trace was read with, when it was not a whole one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UiaClient {
    /// Calls the client refuses wherever they are made, the desktop included, each with its
    /// HRESULT (`"put_TreeScope(TreeScope_Subtree)": "E_NOTIMPL"`); keys are [`CLIENT_CALLS`].
    pub refuses: BTreeMap<String, String>,
    /// `FindAll` answers no element, wherever it is asked.
    pub find_all_finds_nothing: bool,
    /// The visible top-level windows `EnumWindows` found.
    pub top_level_windows: usize,
}

/// The calls [`UiaClient::refuses`] may name: the method, with the scope for `put_TreeScope`
/// (every `GetCurrentPattern(…)` is one key; `FindAll` stands for `FindAllBuildCache` too).
pub const CLIENT_CALLS: &[&str] = &[
    "put_TreeScope(TreeScope_Subtree)",
    "put_TreeScope(TreeScope_Children)",
    "GetCachedChildren",
    "FindAll",
    "GetRuntimeId",
    "GetCurrentPattern",
    "BuildUpdatedCache",
];

impl UiaClient {
    /// The trace's key for `call` (every `GetCurrentPattern(…)` is one key).
    fn key(call: &Call) -> Option<&'static str> {
        let short = call.name.rsplit("::").next().unwrap_or(&call.name);
        let method = short.split('(').next().unwrap_or(short);
        let key = match method {
            "put_TreeScope" => short,
            "FindAllBuildCache" => "FindAll",
            other => other,
        };
        CLIENT_CALLS.iter().copied().find(|k| *k == key)
    }

    /// The HRESULT the client refuses `call` with, if it does.
    pub fn refused(&self, call: &Call) -> Option<Fault> {
        let code = self.refuses.get(Self::key(call)?)?;
        map::parse_hresult(code).map(Fault::new)
    }

    /// `call`'s refusal, when the client refuses it (with who refused, as the desktop tells).
    pub fn refusal(&self, call: &Call) -> Option<Refusal> {
        self.refused(call)
            .map(|f| Refusal::new(call, f, || Some(self.desktop_answer(call))))
    }

    /// How `call` fares on the desktop: refused as the client refuses it, else answered.
    pub fn desktop_answer(&self, call: &Call) -> Result<(), i32> {
        match self.refused(call) {
            Some(f) => Err(f.code),
            None => Ok(()),
        }
    }

    /// The refusal of a write's first call, the pattern it needs (`Value` for
    /// `ValuePattern.SetValue`), when the client refuses patterns: what the write answers.
    pub fn write_refusal(&self, pattern: &str) -> Option<Refusal> {
        self.refusal(&calls::pattern(pattern))
    }

    /// Checks the keys and HRESULTs.
    fn check(&self) -> Result<(), String> {
        for (key, code) in &self.refuses {
            if !CLIENT_CALLS.contains(&key.as_str()) {
                return Err(format!(
                    "unknown call `{key}` in client.refuses (known: {})",
                    CLIENT_CALLS.join(", ")
                ));
            }
            if map::parse_hresult(code).is_none() {
                return Err(format!("`{code}` for {key} is not an HRESULT"));
            }
        }
        Ok(())
    }
}

impl Traced for UiaElement {
    type Pid = u32;
    const WHAT: &'static str = "a UIA trace";
    type Client = UiaClient;

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
        .and_then(|()| trace.client.as_ref().map_or(Ok(()), UiaClient::check))
        .map_err(|why| TraceError::Invalid(<UiaElement as Traced>::WHAT, why))?;
    Ok(trace)
}

/// Replays a trace as a live read of its root goes, within `limits`: `Err` where the read
/// itself fails (the root's cache request refused because it is gone or does not answer).
pub fn replay(trace: &UiaTrace, limits: &Limits) -> Result<Snapshot, BackendError> {
    let started = Instant::now();
    let client = trace.client.clone().unwrap_or_default();
    let mut provider = read::Recorded::new(&trace.root, &client).map_err(|r| r.error())?;
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
