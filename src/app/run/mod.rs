//! Running a workflow: validated, its inputs checked against what it declares, the scope's
//! window picked, then replayed by the runner through a session; and the words of a
//! validation and of a workflow that was not run.
//!
//! | module | owns |
//! |---|---|
//! | `mod.rs` | the use case: a workflow checked, run in a scope; the words of a validation |
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
use std::path::Path;
use std::sync::Arc;

use serde_json::{Value as Json, json};

use crate::app::error::{Error, Kind};
use crate::app::scope::{Scope, pick};
use crate::model::display::counted;
use crate::model::sanitize;
use crate::session::Session;
use crate::workflow::validate::Validation;
use crate::workflow::{Issue, Workflow};

/// Why a workflow was not run (nothing was).
pub enum NotRun {
    /// The file is not a valid workflow.
    Invalid(Box<Validation>),
    /// Valid, but refused before its first step (actions a desktop run cannot do, inputs).
    Refused(RunRefusal),
}

impl NotRun {
    pub fn kind(&self) -> Kind {
        Kind::WorkflowInvalid
    }
}

/// The workflow of a validation, when it may run with the inputs `given`.
pub fn check(v: &Validation, given: &BTreeMap<String, String>) -> Result<Workflow, NotRun> {
    let Some(wf) = v.valid_workflow().cloned() else {
        return Err(NotRun::Invalid(Box::new(v.clone())));
    };
    preflight(&wf, given).map_err(NotRun::Refused)?;
    Ok(wf)
}

/// Replays `wf` with the inputs `given` in the window `scope` names, through `session` (whose
/// snapshots the run's tokens belong to).
pub async fn run(
    session: Arc<Session>,
    scope: &Scope,
    wf: Workflow,
    given: BTreeMap<String, String>,
) -> Result<Result<RunReport, NotRun>, Error> {
    let (app, root) = pick(session.backend.as_ref(), scope).await?;
    let place = Place {
        root,
        app: Some(app.id.clone()),
    };
    match Runner::new(session, place, wf, given, RunOptions::default()) {
        Ok(runner) => Ok(Ok(runner.run().await)),
        Err(refusal) => Ok(Err(NotRun::Refused(refusal))),
    }
}

/// What a run ended as (`None`: every step passed and the terminal condition holds).
pub fn report_kind(report: &RunReport) -> Option<Kind> {
    (!report.passed).then_some(Kind::WorkflowFailed)
}

/// What a validation ended as (`None`: valid).
pub fn validation_kind(v: &Validation) -> Option<Kind> {
    (!v.is_valid()).then_some(Kind::WorkflowInvalid)
}

/// Text for a validation.
pub fn issues_text(file: &Path, v: &Validation) -> String {
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
pub fn validation_value(file: &Path, v: &Validation) -> Json {
    json!({
        "file": file.display().to_string(),
        "valid": v.is_valid(),
        "steps": v.workflow.as_ref().map(|w| w.steps.len()),
        "errors": v.errors,
        "warnings": v.warnings,
    })
}

/// `workflow run --json` for a workflow that was not run (refused before its first step).
pub fn refusal_value(file: &Path, issues: &[Issue], message: &str) -> Json {
    json!({
        "file": file.display().to_string(),
        "valid": false,
        "ran": false,
        "message": message,
        "errors": issues,
    })
}

/// The text of a workflow that was not run.
pub fn refusal_text(file: &Path, issues: &[Issue], message: &str) -> String {
    let mut out = format!("{}: not run — {message}\n", file.display());
    for i in issues {
        out.push_str(&format!("  error   {}\n", sanitize(&i.to_string(), 400)));
    }
    out
}
