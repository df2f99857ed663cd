//! The TUI's recorder: completed writes and invokes become steps of a
//! [`workflow::Recorder`](crate::workflow::Recorder); `w` exports them as a workflow-v1 file
//! (validated before it is written) in the current directory, atomically and never over an
//! existing file.

use std::path::{Path, PathBuf};

use super::app::{CompletedWrite, WriteKind};
use super::runtime::Recorder;
use crate::app::Act;
use crate::model::AppText;
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

/// Writes `text` atomically to the first of `<name>.workflow.json`, `<name>-2.workflow.json`, …
/// in `dir` that is free: an existing file (or anything else) there is never replaced.
fn write_new(dir: &Path, name: &str, text: &str) -> Result<PathBuf, String> {
    use crate::files::{Existing, FileError, write_atomic};
    for i in 1..10_000 {
        let path = if i == 1 {
            dir.join(format!("{name}.workflow.json"))
        } else {
            dir.join(format!("{name}-{i}.workflow.json"))
        };
        match write_atomic(&path, text.as_bytes(), Existing::Refuse) {
            Ok(()) => return Ok(path),
            Err(FileError::Exists { .. } | FileError::WontReplace { .. }) => continue,
            Err(e) => return Err(e.to_string()),
        }
    }
    Err(format!("no free name for {name}.workflow.json"))
}

impl Recorder for WorkflowRecorder {
    fn start(&mut self, app: &AppText, window: &AppText) -> Result<String, String> {
        let name = file_stem(if window.is_empty() { app } else { window }.as_str());
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
        let act = match &w.kind {
            WriteKind::Set => Act::Set(w.value.as_deref().unwrap_or("")),
            WriteKind::Invoke { action } => Act::Invoke(action.as_ref().map(AppText::as_str)),
        };
        let _ = crate::app::record::step(rec, act, snap, *row, &w.result);
    }

    fn export(&mut self) -> Result<String, String> {
        let Some(rec) = &self.rec else {
            return Err("nothing recorded yet: r starts recording".into());
        };
        let json = rec
            .export(&ExportOptions::default())
            .map_err(|e| e.to_string())?;
        let text = crate::json::to_string(&json) + "\n";
        let path = write_new(&self.dir, rec.name(), &text)?;
        Ok(format!(
            "exported {} steps to {}",
            rec.steps().len(),
            crate::files::shown(&path)
        ))
    }
}
