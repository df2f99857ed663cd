//! The TUI's recorder: completed writes and invokes become steps of a
//! [`workflow::Recorder`](crate::workflow::Recorder); `w` exports them as a workflow-v1 file
//! (validated before it is written) in the current directory.

use std::path::{Path, PathBuf};

use super::app::{CompletedWrite, WriteKind};
use super::runtime::Recorder;
use crate::workflow::{self, ExportOptions};

/// Records into a workflow and exports to `<dir>/<name>.workflow.json`.
pub struct WorkflowRecorder {
    dir: PathBuf,
    rec: Option<workflow::Recorder>,
    recording: bool,
}

impl WorkflowRecorder {
    /// Exports go to `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> WorkflowRecorder {
        WorkflowRecorder {
            dir: dir.into(),
            rec: None,
            recording: false,
        }
    }

    /// The recorder's steps so far (for tests).
    pub fn steps(&self) -> usize {
        self.rec.as_ref().map_or(0, |r| r.steps().len())
    }
}

/// The file name for a recording of `title`: the project's slug, or `recording`.
fn file_stem(title: &str) -> String {
    let s = workflow::slug(title, '-');
    if s.is_empty() { "recording".into() } else { s }
}

/// A path in `dir` named after `name` that does not exist yet.
fn free_path(dir: &Path, name: &str) -> PathBuf {
    let first = dir.join(format!("{name}.workflow.json"));
    if !first.exists() {
        return first;
    }
    (2..10_000)
        .map(|i| dir.join(format!("{name}-{i}.workflow.json")))
        .find(|p| !p.exists())
        .unwrap_or(first)
}

impl Recorder for WorkflowRecorder {
    fn start(&mut self, app: &str, window: &str) -> Result<String, String> {
        let name = file_stem(if window.is_empty() { app } else { window });
        // A new recording per start; the previous one stays exported if it was.
        self.rec = Some(workflow::Recorder::new(name));
        self.recording = true;
        Ok("recording: every write and invoke becomes a step (r stops, w exports)".into())
    }

    fn stop(&mut self) -> Result<String, String> {
        self.recording = false;
        Ok(format!(
            "recording stopped with {} steps; w exports them",
            self.steps()
        ))
    }

    fn record(&mut self, w: &CompletedWrite) {
        let (Some(rec), Some((snap, row))) = (&mut self.rec, &w.snapshot) else {
            return;
        };
        if !self.recording {
            return;
        }
        // Refused writes sent nothing: they are not part of what happened.
        if !w.result.dispatched && w.result.outcome != crate::write::Outcome::Already {
            return;
        }
        let _ = match &w.kind {
            WriteKind::Set => rec.record_write(
                snap,
                *row,
                &w.result,
                w.value.as_deref().unwrap_or(""),
                false,
            ),
            WriteKind::Invoke { action } => {
                rec.record_invoke(snap, *row, &w.result, action.as_deref())
            }
        };
    }

    fn export(&mut self) -> Result<String, String> {
        let Some(rec) = &self.rec else {
            return Err("nothing recorded yet: r starts recording".into());
        };
        let json = rec
            .export(&ExportOptions::default())
            .map_err(|e| e.to_string())?;
        let path = free_path(&self.dir, rec.name());
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(format!(
            "exported {} steps to {}",
            rec.steps().len(),
            path.display()
        ))
    }
}
