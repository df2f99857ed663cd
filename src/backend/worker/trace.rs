//! Recorded reads replayed into snapshots: a JSON trace holds the same element record a
//! platform's worker reads, so a replay runs the mapping a live read runs. Each platform says
//! what its records are called and what a hand-written trace may leave out ([`Traced`]).
//!
//! Format: `{"app": "Notepad", "pid": 4242, "client": {…}, "root": <element>}`, `pid` and
//! `client` optional.

use std::fmt::Debug;
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::backend::Limits;
use crate::backend::record::{Record, layout};
use crate::model::Snapshot;

/// A platform's element record, as a trace holds it.
pub trait Traced: Record + Serialize + DeserializeOwned {
    /// How the platform numbers processes.
    type Pid: Copy + Default + Debug + Serialize + DeserializeOwned;
    /// What a trace of these is called in errors: "a UIA trace".
    const WHAT: &'static str;
    /// What a trace records of the platform's client library beside the tree (UIA: the calls
    /// it refuses everywhere); `()` where there is nothing to record.
    type Client: Debug + Clone + Default + PartialEq + Serialize + DeserializeOwned;
    /// Fills in what a hand-written trace may leave out (ids, process ids).
    fn fill(root: &mut Self, pid: Self::Pid);
}

/// A recorded tree.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
pub struct Trace<E: Traced> {
    /// The application's name.
    pub app: String,
    /// The process the tree belongs to.
    #[serde(default)]
    pub pid: E::Pid,
    /// The client the tree was read with, when it was not a whole one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<E::Client>,
    pub root: E,
}

/// A trace that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("not {0}: {1}")]
    Json(&'static str, serde_json::Error),
    #[error("not {0}: {1}")]
    Invalid(&'static str, String),
    /// The replayed read failed as the live one would have.
    #[error("{0}")]
    Read(crate::backend::BackendError),
}

/// Parses a trace and fills in what a hand-written one may leave out.
pub fn parse<E: Traced>(json: &str) -> Result<Trace<E>, TraceError> {
    let mut trace: Trace<E> =
        serde_json::from_str(json).map_err(|e| TraceError::Json(E::WHAT, e))?;
    E::fill(&mut trace.root, trace.pid);
    Ok(trace)
}

impl<E: Traced> Trace<E> {
    /// Replays the recorded tree into a snapshot, within `limits`.
    pub fn snapshot(&self, limits: &Limits) -> Snapshot {
        layout(&self.app, &self.root, limits, Instant::now())
    }
}

/// Replays a JSON trace into a snapshot with the default limits.
pub fn snapshot<E: Traced>(json: &str) -> Result<Snapshot, TraceError> {
    Ok(parse::<E>(json)?.snapshot(&Limits::default()))
}
