//! Running a workflow: validated, its inputs checked against what it declares, the scope's
//! window picked, then replayed by the runner through a session; the answers of a validation
//! and of a run (invalid, refused before its first step, or run), in words and JSON.
//!
//! | module | owns |
//! |---|---|
//! | `mod.rs` | the use case: a workflow checked, run in a scope; its answers ([`Run`], [`Validated`]) |
//! | `preflight` | the checks made before a run starts, and why a run did not start |
//! | `runner` | the runner: each step located, written through `app::write`, its `expect` |
//! | `report` | a run's report: step outcomes, predicates, budgets, the text form |

mod preflight;
mod report;
mod runner;

pub use preflight::{RunRefusal, preflight};
pub use report::{
    BudgetUse, PredicateResult, ResolutionInfo, RunReport, StepOutcome, StepReport, StepTimings,
};
pub use runner::{Place, RunOptions, Runner, SHORT_SECRET_CHARS};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value as Json, json};

use crate::app::answer::Answer;
use crate::app::error::{Error, Kind};
use crate::app::scope::{Scope, pick};
use crate::model::display::counted;
use crate::model::sanitize;
use crate::session::Session;
use crate::workflow::Workflow;
use crate::workflow::validate::Validation;

/// How a run ended: not run (invalid, or refused before its first step), or run.
pub enum Ended {
    /// The file is not a valid workflow.
    Invalid(Box<Validation>),
    /// Valid, but refused before its first step (actions a desktop run cannot do, inputs,
    /// no window to run in).
    Refused(RunRefusal),
    /// Run: every step's report.
    Ran(Box<RunReport>),
}

/// The run use case's answer: the workflow file (as named in the words) and how it ended.
pub struct Run {
    pub file: PathBuf,
    pub ended: Ended,
}

impl Run {
    fn not_run(file: &Path, ended: Ended) -> Run {
        Run {
            file: file.to_path_buf(),
            ended,
        }
    }

    /// The report, when the workflow ran.
    pub fn report(&self) -> Option<&RunReport> {
        match &self.ended {
            Ended::Ran(r) => Some(r),
            _ => None,
        }
    }
}

impl Answer for Run {
    fn kind(&self) -> Option<Kind> {
        match &self.ended {
            Ended::Invalid(_) | Ended::Refused(RunRefusal::Invalid(_)) => {
                Some(Kind::WorkflowInvalid)
            }
            Ended::Refused(_) => Some(Kind::WorkflowRefused),
            Ended::Ran(r) => (!r.passed).then_some(Kind::WorkflowFailed),
        }
    }

    fn message(&self) -> String {
        match &self.ended {
            Ended::Invalid(_) => "the workflow is invalid; nothing was run".into(),
            Ended::Refused(r) => sanitize(&r.to_string(), 400).into_owned(),
            Ended::Ran(r) => sanitize(
                r.stopped
                    .as_deref()
                    .unwrap_or("the terminal condition or an output failed"),
                400,
            )
            .into_owned(),
        }
    }

    fn text(&self) -> String {
        match &self.ended {
            Ended::Invalid(v) => format!("{}nothing was run\n", issues_text(&self.file, v)),
            Ended::Refused(r) => {
                let mut out = format!("{}: not run — {r}\n", self.file.display());
                for i in r.issues() {
                    out.push_str(&format!("  error   {}\n", sanitize(&i.to_string(), 400)));
                }
                out
            }
            Ended::Ran(r) => r.text(),
        }
    }

    fn json(&self) -> Json {
        match &self.ended {
            Ended::Invalid(v) => validation_value(&self.file, v),
            Ended::Refused(r) => json!({
                "file": self.file.display().to_string(),
                "valid": false,
                "ran": false,
                "message": r.to_string(),
                "errors": r.issues(),
            }),
            Ended::Ran(r) => serde_json::to_value(r).unwrap_or_default(),
        }
    }

    fn json_text(&self) -> String {
        match &self.ended {
            // In the report's own field order.
            Ended::Ran(r) => crate::json::to_string(r),
            _ => crate::json::to_string(&self.json()),
        }
    }
}

/// The workflow of a validation of `file`, when it may run with the inputs `given`; else the
/// answer of a run that did not start.
pub fn check(
    file: &Path,
    v: &Validation,
    given: &BTreeMap<String, String>,
) -> Result<Workflow, Run> {
    let Some(wf) = v.valid_workflow().cloned() else {
        return Err(Run::not_run(file, Ended::Invalid(Box::new(v.clone()))));
    };
    preflight(&wf, given).map_err(|r| Run::not_run(file, Ended::Refused(r)))?;
    Ok(wf)
}

/// Replays `wf` (from `file`) with the inputs `given` in the window `scope` names, through
/// `session` (whose snapshots the run's tokens belong to). The error: the scope could not be
/// picked (no such app, a bus that does not answer).
pub async fn run(
    session: Arc<Session>,
    scope: &Scope,
    file: &Path,
    wf: Workflow,
    given: BTreeMap<String, String>,
) -> Result<Run, Error> {
    let (app, root) = pick(session.backend.as_ref(), scope).await?;
    let place = Place {
        root,
        app: Some(app.id.clone()),
    };
    let ended = match Runner::new(session, place, wf, given, RunOptions::default()) {
        Ok(runner) => Ended::Ran(Box::new(runner.run().await)),
        Err(refusal) => Ended::Refused(refusal),
    };
    Ok(Run::not_run(file, ended))
}

/// A validation of `file`: the `workflow validate` answer.
pub struct Validated<'a> {
    pub file: &'a Path,
    pub validation: &'a Validation,
}

impl Answer for Validated<'_> {
    fn kind(&self) -> Option<Kind> {
        (!self.validation.is_valid()).then_some(Kind::WorkflowInvalid)
    }

    fn message(&self) -> String {
        "the workflow is invalid".into()
    }

    fn text(&self) -> String {
        issues_text(self.file, self.validation)
    }

    fn json(&self) -> Json {
        validation_value(self.file, self.validation)
    }
}

/// Text for a validation.
fn issues_text(file: &Path, v: &Validation) -> String {
    let mut out = String::new();
    if v.is_valid() {
        let wf = v.workflow.as_ref();
        out.push_str(&format!(
            "{}: valid — {}, {}{}\n",
            file.display(),
            counted(wf.map_or(0, |w| w.steps.len()), "step", "steps"),
            counted(wf.map_or(0, |w| w.inputs.len()), "input", "inputs"),
            wf.map(|w| {
                let secret = sensitive_inputs(w);
                if secret.is_empty() {
                    String::new()
                } else {
                    format!(" ({} sensitive)", secret.join(", "))
                }
            })
            .unwrap_or_default()
        ));
    } else {
        out.push_str(&format!(
            "{}: invalid — {} error{}\n",
            file.display(),
            v.errors.len(),
            if v.errors.len() == 1 { "" } else { "s" }
        ));
    }
    for e in &v.errors {
        out.push_str(&format!("  error   {}\n", sanitize(&e.to_string(), 400)));
    }
    for w in &v.warnings {
        out.push_str(&format!("  warning {}\n", sanitize(&w.to_string(), 400)));
    }
    out
}

/// The names of a workflow's sensitive inputs.
pub fn sensitive_inputs(wf: &Workflow) -> Vec<&str> {
    wf.inputs
        .iter()
        .filter(|(_, i)| i.is_sensitive())
        .map(|(k, _)| k.as_str())
        .collect()
}

/// `; sensitive inputs to give at run time: …` after an export's summary, or nothing.
pub fn sensitive_note(wf: &Workflow) -> String {
    let secret = sensitive_inputs(wf);
    if secret.is_empty() {
        String::new()
    } else {
        format!(
            "; sensitive inputs to give at run time: {}",
            secret.join(", ")
        )
    }
}

/// `workflow validate --json`.
fn validation_value(file: &Path, v: &Validation) -> Json {
    json!({
        "file": file.display().to_string(),
        "valid": v.is_valid(),
        "steps": v.workflow.as_ref().map(|w| w.steps.len()),
        "errors": v.errors,
        "warnings": v.warnings,
    })
}
