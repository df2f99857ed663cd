//! The workflow tools: the recorder that `set_value` and `invoke` feed while it runs, its
//! export to a validated workflow-v1 document, validation, and runs that replay a workflow
//! through this server's session with the same verified writes as `treeglass workflow run`.

use std::path::PathBuf;

use serde_json::Value as Json;

use super::reply::{Fault, Reply};
use super::server::State;
use super::tools::{RecordStartArgs, RecordStopArgs, RunArgs, ValidateArgs};
use crate::app::run::{self as use_case, Validated, sensitive_note};
use crate::app::{Error, Kind};
use crate::model::sanitize;
use crate::workflow::record::{ExportError, ExportOptions, Recorder};
use crate::workflow::validate::{Validation, validate_bytes, validate_path};

/// A path an agent gave: absolute, since the server's working directory is not the agent's.
fn absolute(p: &str, what: &str) -> Result<PathBuf, Fault> {
    let path = PathBuf::from(p);
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(Fault::usage(format!(
            "{what} {}: give an absolute path",
            crate::model::quoted(p, 200)
        )))
    }
}

/// `workflow_record_start`.
pub fn record_start(state: &State, args: &RecordStartArgs) -> Result<Reply, Fault> {
    let mut guard = state.recorder();
    if let Some(rec) = guard.as_ref() {
        return Err(Fault::usage(format!(
            "a recording is already running ({} steps); stop it with workflow_record_stop first",
            rec.steps().len()
        )));
    }
    let name = args.name.clone().unwrap_or_else(|| "recording".into());
    let doc = serde_json::json!({ "recording": true, "name": name });
    let text = format!(
        "recording {}: set_value and invoke calls become steps until workflow_record_stop",
        crate::model::quoted(&name, 80)
    );
    *guard = Some(Recorder::new(name));
    Ok(Reply::ok(doc, text))
}

/// `workflow_record_stop`: the exported document (as `workflow export -o -` prints it). A
/// refused export keeps the recording running.
pub fn record_stop(state: &State, args: &RecordStopArgs) -> Result<Reply, Fault> {
    let path = args
        .path
        .as_deref()
        .map(|p| absolute(p, "path"))
        .transpose()?;
    let mut guard = state.recorder();
    let Some(rec) = guard.as_ref() else {
        return Err(Fault::usage(
            "no recording is running (start one with workflow_record_start)",
        ));
    };
    let opts = ExportOptions {
        name: args.name.clone(),
        description: args.description.clone(),
        skip_flagged: args.skip_flagged,
        ..ExportOptions::default()
    };
    let refused = |e: ExportError| match e {
        ExportError::Io(m) => Fault::new(Kind::Error, m),
        e => Fault::new(
            Kind::WorkflowInvalid,
            format!("not exported (the recording keeps running): {e}"),
        ),
    };
    let wf = match &path {
        Some(p) => rec.export_to(p, &opts, crate::files::Existing::Refuse),
        None => rec.export_workflow(&opts),
    }
    .map_err(refused)?;
    let flagged = rec
        .steps()
        .iter()
        .filter(|s| s.flagged && !args.skip_flagged)
        .count();
    *guard = None;
    let text = format!(
        "workflow {}: {} steps{}{}{}",
        crate::model::quoted(&wf.name, 80),
        wf.steps.len(),
        if flagged > 0 {
            format!(", {flagged} flagged (exported as recorded)")
        } else {
            String::new()
        },
        sensitive_note(&wf),
        path.as_ref()
            .map(|p| format!("; written to {}", sanitize(&p.display().to_string(), 300)))
            .unwrap_or_default()
    );
    let doc = serde_json::to_value(&wf).map_err(|e| Fault::new(Kind::Error, e.to_string()))?;
    Ok(Reply::ok(doc, text))
}

/// The workflow named by `path` or given as `workflow`, validated; the name it goes by.
fn validated(path: Option<&str>, doc: Option<&Json>) -> Result<(PathBuf, Validation), Fault> {
    match (path, doc) {
        (Some(p), None) => {
            let path = absolute(p, "path")?;
            let v = validate_path(&path).map_err(|e| Fault::from(Error::from(e)))?;
            Ok((path, v))
        }
        (None, Some(doc)) => {
            // Through its bytes, so the size cap applies as it does to a file.
            let bytes = serde_json::to_vec(doc).map_err(|e| Fault::usage(e.to_string()))?;
            Ok((PathBuf::from("(workflow)"), validate_bytes(&bytes)))
        }
        (Some(_), Some(_)) => Err(Fault::usage("give path or workflow, not both")),
        (None, None) => Err(Fault::usage("give path or workflow")),
    }
}

/// `workflow_validate`: `workflow validate --json`; invalid is exit code 30.
pub fn validate(args: &ValidateArgs) -> Result<Reply, Fault> {
    let (file, validation) = validated(args.path.as_deref(), args.workflow.as_ref())?;
    Ok(Reply::answer(&Validated {
        file: &file,
        validation: &validation,
    }))
}

/// `workflow_run`: `workflow run --json` (every step's report), through this server's session.
pub async fn run(state: &State, args: &RunArgs) -> Result<Reply, Fault> {
    let (file, v) = validated(args.path.as_deref(), args.workflow.as_ref())?;
    let wf = match use_case::check(&file, &v, &args.inputs) {
        Ok(wf) => wf,
        Err(not_run) => return Ok(Reply::answer(&not_run)),
    };
    // Nothing is connected for a workflow that is refused (as `workflow run` does).
    let session = state.link.session().await?;
    let run = use_case::run(session, &args.scope(), &file, wf, args.inputs.clone()).await?;
    Ok(Reply::answer(&run))
}
