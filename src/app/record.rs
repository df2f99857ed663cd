//! Recording a write as a workflow step: into a recorder that runs (the TUI's, MCP's) or
//! appended to a recording file (`set`/`invoke --record FILE`).

use std::path::Path;

use super::error::Error;
use super::write::Act;
use crate::model::Snapshot;
use crate::workflow::{RecordError, RecordedStep, Recorder};
use crate::write::WriteResult;

/// Adds the write `act` made on `row` of `snap` to `rec` as a step; its index.
pub fn step(
    rec: &mut Recorder,
    act: Act<'_>,
    snap: &Snapshot,
    row: usize,
    result: &WriteResult,
) -> Result<usize, RecordError> {
    match act {
        Act::Set(value) => rec.record_write(snap, row, result, value, false),
        Act::Invoke(action) => rec.record_invoke(snap, row, result, action),
    }
}

/// Appends the write as a step to the recording file at `path` (created when missing); the
/// step as recorded.
pub fn to_file(
    path: &Path,
    act: Act<'_>,
    snap: &Snapshot,
    row: usize,
    result: &WriteResult,
) -> Result<Option<RecordedStep>, Error> {
    let failed = |e: RecordError| Error::other(e.to_string());
    let mut rec = Recorder::load_or_new(path).map_err(failed)?;
    let i = step(&mut rec, act, snap, row, result).map_err(failed)?;
    rec.save(path).map_err(failed)?;
    Ok(rec.steps().get(i).cloned())
}
