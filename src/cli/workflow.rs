//! `treeglass workflow …` (validate, run, export, record, steps, drop) and the `--record FILE`
//! option of `set` and `invoke`, which append steps to a recording file.

use crate::model::display::counted;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::json;

use super::{Failure, Scope, exit, output, pick};
use crate::backend::Backend;
use crate::model::{Snapshot, sanitize};
use crate::session::Session;
use crate::workflow::record::{ExportError, ExportOptions, Recorder};
use crate::workflow::run::{Place, RunOptions, Runner, preflight};
use crate::workflow::validate::{Validation, validate_path};
use crate::workflow::watch::{Watch, WatchOptions};
use crate::workflow::{Issue, Workflow};
use crate::write::WriteResult;

const WORKFLOW_HELP: &str = "\
Workflow files follow workflow-v1.schema.json (schemaVersion 1); see the README.

  treeglass set 'text \"Full name\"' Ada --app myapp --record rec.json
  treeglass invoke 'button \"Save\"' --app myapp --record rec.json
  treeglass workflow record --app myapp --seconds 30 -o rec.json   (changes made in the app)
  treeglass workflow steps rec.json            treeglass workflow drop rec.json click-save
  treeglass workflow export rec.json -o flow.json --name \"Fill the form\"
  treeglass workflow validate flow.json
  treeglass workflow run flow.json --app myapp --input password=…

Exit codes: 0 ok (valid; run passed), 1 error, 2 bad arguments, 3 no such app/window,
4 bus unavailable, 30 workflow invalid (nothing was run), 31 a step, the terminal condition or
a required output failed.";

#[derive(Debug, Args)]
#[command(after_help = WORKFLOW_HELP)]
pub struct WorkflowArgs {
    #[command(subcommand)]
    pub command: WorkflowCommand,
}

#[derive(Debug, Subcommand)]
pub enum WorkflowCommand {
    /// Check a workflow file: size (≤ 1 MiB), JSON syntax, schemaVersion, the schema (errors
    /// located by JSON pointer), then targets, inputs, secrets and budgets.
    #[command(after_help = WORKFLOW_HELP)]
    Validate {
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Replay a workflow: fresh resolution and verified writes per step, stopping at the
    /// first step that does not pass; then the terminal condition and the outputs.
    #[command(after_help = WORKFLOW_HELP)]
    Run(RunArgs),
    /// Turn a recording file into a workflow file, validated against the schema before it is
    /// written.
    #[command(after_help = WORKFLOW_HELP)]
    Export(ExportArgs),
    /// Watch an app and record the changes made in it by hand (observed steps), for N seconds
    /// or until Ctrl-C; appends to the recording file.
    #[command(after_help = WORKFLOW_HELP)]
    Record(RecordArgs),
    /// List a recording's steps; flagged ones (⚑) should be reviewed or dropped before export.
    Steps {
        #[arg(value_name = "RECORDING")]
        recording: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove steps from a recording, by id or by 1-based number.
    Drop {
        #[arg(value_name = "RECORDING")]
        recording: PathBuf,
        #[arg(value_name = "STEP", required = true)]
        steps: Vec<String>,
    },
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// An input value, NAME=VALUE (repeatable).
    #[arg(long = "input", value_name = "NAME=VALUE")]
    pub inputs: Vec<String>,
    /// Input values from a JSON object file ({"password": "…"}), for secrets kept off the
    /// command line.
    #[arg(long = "inputs-file", value_name = "FILE")]
    pub inputs_file: Option<PathBuf>,
    #[command(flatten)]
    pub scope: Scope,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[arg(value_name = "RECORDING")]
    pub recording: PathBuf,
    /// The workflow file to write (`-` for standard output).
    #[arg(short = 'o', long = "output", value_name = "WORKFLOW")]
    pub output: PathBuf,
    /// The workflow's name (default: the recording's).
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub description: Option<String>,
    #[arg(long = "workflow-version", default_value = "1")]
    pub workflow_version: String,
    /// Leave flagged steps out.
    #[arg(long)]
    pub skip_flagged: bool,
    /// budgets.maxRetries (0–8).
    #[arg(long = "max-retries", default_value_t = 2)]
    pub max_retries: u32,
    /// The terminal condition as a JSON predicate (default: the window title and the last
    /// step's expectation), e.g. '{"textContains": "Saved"}'.
    #[arg(long, value_name = "JSON")]
    pub terminal: Option<String>,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    #[command(flatten)]
    pub scope: Scope,
    /// How long to watch (at most 3600); Ctrl-C stops earlier.
    #[arg(long, value_name = "N")]
    pub seconds: u64,
    /// The recording file (created, or appended to).
    #[arg(short = 'o', long = "output", value_name = "RECORDING")]
    pub output: PathBuf,
    /// The recording's name (default: the file's stem).
    #[arg(long)]
    pub name: Option<String>,
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
                let secret: Vec<&str> = w
                    .inputs
                    .iter()
                    .filter(|(_, i)| i.is_sensitive())
                    .map(|(k, _)| k.as_str())
                    .collect();
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

fn validation_json(file: &Path, v: &Validation) -> String {
    output::json_pretty(&validation_value(file, v))
}

/// `workflow validate --json`.
pub fn validation_value(file: &Path, v: &Validation) -> serde_json::Value {
    json!({
        "file": file.display().to_string(),
        "valid": v.is_valid(),
        "steps": v.workflow.as_ref().map(|w| w.steps.len()),
        "errors": v.errors,
        "warnings": v.warnings,
    })
}

/// `workflow run --json` for a workflow that was not run (refused before its first step).
pub fn refusal_value(file: &Path, issues: &[Issue], message: &str) -> serde_json::Value {
    json!({
        "file": file.display().to_string(),
        "valid": false,
        "ran": false,
        "message": message,
        "errors": issues,
    })
}

/// Text or JSON for a workflow that was not run.
pub fn refusal_output(file: &Path, issues: &[Issue], message: &str, as_json: bool) -> String {
    if as_json {
        output::json_pretty(&refusal_value(file, issues, message))
    } else {
        let mut out = format!("{}: not run — {message}\n", file.display());
        for i in issues {
            out.push_str(&format!("  error   {}\n", sanitize(&i.to_string(), 400)));
        }
        out
    }
}

/// Reads `--input` and `--inputs-file` values.
fn given_inputs(args: &RunArgs) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = BTreeMap::new();
    if let Some(path) = &args.inputs_file {
        let bytes = crate::files::read_capped(path, crate::files::MAX_DOCUMENT_BYTES)
            .map_err(|e| Failure::new(exit::USAGE, format!("--inputs-file: {e}")))?;
        let v = crate::json::parse_strict(&bytes).map_err(|e| {
            Failure::new(
                exit::USAGE,
                format!("{}: not a JSON object of inputs: {e}", path.display()),
            )
        })?;
        let obj = v.as_object().ok_or_else(|| {
            Failure::new(
                exit::USAGE,
                format!("{}: inputs must be a JSON object", path.display()),
            )
        })?;
        for (k, v) in obj {
            let s = match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.insert(k.clone(), s);
        }
    }
    for kv in &args.inputs {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            Failure::new(
                exit::USAGE,
                format!("--input takes NAME=VALUE, got {:?}", sanitize(kv, 60)),
            )
        })?;
        out.insert(k.trim().to_string(), v.to_string());
    }
    Ok(out)
}

/// Validates a workflow file, or says why it cannot be run: the part of `workflow run` that
/// happens before any backend is touched.
fn checked(args: &RunArgs) -> Result<Result<Workflow, (String, i32)>, Failure> {
    let v = validate_path(&args.file).map_err(Failure::from)?;
    let Some(wf) = v.valid_workflow().cloned() else {
        let out = if args.json {
            validation_json(&args.file, &v)
        } else {
            format!("{}nothing was run\n", issues_text(&args.file, &v))
        };
        return Ok(Err((out, exit::WORKFLOW_INVALID)));
    };
    let given = given_inputs(args)?;
    if let Err(refusal) = preflight(&wf, &given) {
        let out = refusal_output(
            &args.file,
            &refusal.issues(),
            &refusal.to_string(),
            args.json,
        );
        return Ok(Err((out, exit::WORKFLOW_INVALID)));
    }
    Ok(Ok(wf))
}

/// The workflow commands that need no backend; `None` for the ones that do (`run` answers
/// here only when the file or its inputs are refused, so nothing connects for a bad file).
pub fn without_backend(args: &WorkflowArgs) -> Option<Result<(String, i32), Failure>> {
    match &args.command {
        WorkflowCommand::Validate { file, json } => Some(validate(file, *json)),
        WorkflowCommand::Export(a) => Some(export(a)),
        WorkflowCommand::Steps { recording, json } => Some(steps(recording, *json)),
        WorkflowCommand::Drop { recording, steps } => Some(drop_steps(recording, steps)),
        WorkflowCommand::Run(a) => match checked(a) {
            Ok(Ok(_)) => None,
            Ok(Err(done)) => Some(Ok(done)),
            Err(f) => Some(Err(f)),
        },
        WorkflowCommand::Record(_) => None,
    }
}

/// The workflow commands that use the backend.
pub async fn with_backend(
    backend: Arc<dyn Backend>,
    args: &WorkflowArgs,
) -> Result<(String, i32), Failure> {
    match &args.command {
        WorkflowCommand::Run(a) => run(backend, a).await,
        WorkflowCommand::Record(a) => record(backend, a).await,
        _ => without_backend(args)
            .unwrap_or_else(|| Err(Failure::new(exit::ERROR, "unreachable workflow command"))),
    }
}

fn validate(file: &Path, as_json: bool) -> Result<(String, i32), Failure> {
    let v = validate_path(file).map_err(Failure::from)?;
    let code = if v.is_valid() {
        exit::OK
    } else {
        exit::WORKFLOW_INVALID
    };
    let out = if as_json {
        validation_json(file, &v)
    } else {
        issues_text(file, &v)
    };
    Ok((out, code))
}

async fn run(backend: Arc<dyn Backend>, args: &RunArgs) -> Result<(String, i32), Failure> {
    let wf = match checked(args)? {
        Ok(wf) => wf,
        Err(done) => return Ok(done),
    };
    let given = given_inputs(args)?;
    let (app, root) = pick(backend.as_ref(), &args.scope).await?;
    let session = Arc::new(Session::new(backend));
    let place = Place {
        root,
        app: Some(app.id.clone()),
    };
    let runner = match Runner::new(session, place, wf, given, RunOptions::default()) {
        Ok(r) => r,
        Err(refusal) => {
            let out = refusal_output(
                &args.file,
                &refusal.issues(),
                &refusal.to_string(),
                args.json,
            );
            return Ok((out, exit::WORKFLOW_INVALID));
        }
    };
    let report = runner.run().await;
    let code = if report.passed {
        exit::OK
    } else {
        exit::WORKFLOW_FAILED
    };
    let out = if args.json {
        crate::json::to_string(&report) + "\n"
    } else {
        report.text()
    };
    Ok((out, code))
}

fn export(args: &ExportArgs) -> Result<(String, i32), Failure> {
    let rec =
        Recorder::load(&args.recording).map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    let opts = ExportOptions {
        name: args.name.clone(),
        description: args.description.clone(),
        workflow_version: args.workflow_version.clone(),
        skip_flagged: args.skip_flagged,
        max_retries: args.max_retries,
        terminal: match &args.terminal {
            Some(t) => Some(serde_json::from_str(t).map_err(|e| {
                Failure::new(
                    exit::USAGE,
                    format!("--terminal is not a predicate ({{\"visible\": TARGET}}, …): {e}"),
                )
            })?),
            None => None,
        },
    };
    let flagged: Vec<String> = rec
        .steps()
        .iter()
        .filter(|s| s.flagged && !args.skip_flagged)
        .map(|s| format!("  ⚑ {}", sanitize(&s.summary(), 200)))
        .collect();
    let refused = |e: ExportError| match e {
        ExportError::Io(m) => Failure::new(exit::ERROR, m),
        e => Failure::new(exit::WORKFLOW_INVALID, format!("not exported: {e}")),
    };
    if args.output.as_os_str() == "-" {
        let wf = rec.export_workflow(&opts).map_err(refused)?;
        warn_flagged(&flagged);
        let text = crate::json::to_string(&wf) + "\n";
        return Ok((text, exit::OK));
    }
    let wf = rec
        .export_to(&args.output, &opts, crate::files::Existing::Replace)
        .map_err(refused)?;
    warn_flagged(&flagged);
    let secret: Vec<&str> = wf
        .inputs
        .iter()
        .filter(|(_, i)| i.is_sensitive())
        .map(|(k, _)| k.as_str())
        .collect();
    Ok((
        format!(
            "wrote {}: workflow {:?}, {} steps{}\n",
            args.output.display(),
            sanitize(&wf.name, 80).as_ref(),
            wf.steps.len(),
            if secret.is_empty() {
                String::new()
            } else {
                format!(
                    "; sensitive inputs to give at run time: {}",
                    secret.join(", ")
                )
            }
        ),
        exit::OK,
    ))
}

fn warn_flagged(flagged: &[String]) {
    if !flagged.is_empty() {
        super::warn(&format!(
            "exported {} flagged step{} as recorded (review them, or export with \
             --skip-flagged):\n{}",
            flagged.len(),
            if flagged.len() == 1 { "" } else { "s" },
            flagged.join("\n")
        ));
    }
}

fn steps(path: &Path, as_json: bool) -> Result<(String, i32), Failure> {
    let rec = Recorder::load(path).map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    if as_json {
        return Ok((
            output::json_pretty(&serde_json::to_value(rec.to_recording()).unwrap_or_default()),
            exit::OK,
        ));
    }
    let mut out = format!(
        "recording {:?}: {} steps{}\n",
        sanitize(rec.name(), 80).as_ref(),
        rec.steps().len(),
        match rec.flagged().len() {
            0 => String::new(),
            n => format!(", {n} flagged"),
        }
    );
    for (i, s) in rec.steps().iter().enumerate() {
        out.push_str(&format!("{:>3}. {}\n", i + 1, sanitize(&s.summary(), 300)));
    }
    Ok((out, exit::OK))
}

fn drop_steps(path: &Path, which: &[String]) -> Result<(String, i32), Failure> {
    let mut rec = Recorder::load(path).map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    let mut indices = Vec::new();
    for w in which {
        let i = rec
            .steps()
            .iter()
            .position(|s| &s.step.id == w)
            .or_else(|| {
                w.parse::<usize>()
                    .ok()
                    .filter(|n| *n >= 1 && *n <= rec.steps().len())
                    .map(|n| n - 1)
            })
            .ok_or_else(|| {
                Failure::new(
                    exit::USAGE,
                    format!("no step {:?} in {}", sanitize(w, 60), path.display()),
                )
            })?;
        indices.push(i);
    }
    indices.sort_unstable();
    indices.dedup();
    let mut dropped = Vec::new();
    for i in indices.into_iter().rev() {
        if let Some(s) = rec.drop_step(i) {
            dropped.push(s.step.id);
        }
    }
    rec.save(path)
        .map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    dropped.reverse();
    Ok((
        format!(
            "dropped {} from {}; {} steps left\n",
            dropped.join(", "),
            path.display(),
            rec.steps().len()
        ),
        exit::OK,
    ))
}

async fn record(backend: Arc<dyn Backend>, args: &RecordArgs) -> Result<(String, i32), Failure> {
    if args.seconds == 0 || args.seconds > 3600 {
        return Err(Failure::new(exit::USAGE, "--seconds takes 1 to 3600"));
    }
    let mut rec = Recorder::load_or_new(&args.output)
        .map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    if let Some(n) = &args.name {
        rec.set_name(n.clone());
    }
    let before = rec.steps().len();
    let (app, root) = pick(backend.as_ref(), &args.scope).await?;
    let shared = Arc::new(Mutex::new(rec));
    let watch = Watch::start(backend, root, shared.clone(), WatchOptions::default()).await?;
    super::warn(&format!(
        "recording changes made in {} for {} s (Ctrl-C stops earlier)",
        app.name.quoted(60),
        args.seconds
    ));
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_secs(args.seconds)) => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    let summary = watch.stop().await?;
    let rec = shared.lock().unwrap_or_else(|e| e.into_inner()).clone();
    rec.save(&args.output)
        .map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    let mut out = format!(
        "recorded {} observed step{} into {} ({} seen{})\n",
        rec.steps().len().saturating_sub(before),
        if rec.steps().len().saturating_sub(before) == 1 {
            ""
        } else {
            "s"
        },
        args.output.display(),
        counted(summary.events, "event", "events"),
        if summary.lagged > 0 {
            format!(", {} lost and re-compared", summary.lagged)
        } else {
            String::new()
        }
    );
    for (i, s) in rec.steps().iter().enumerate().skip(before) {
        out.push_str(&format!("{:>3}. {}\n", i + 1, sanitize(&s.summary(), 300)));
    }
    Ok((out, exit::OK))
}

/// `set --record FILE`: appends the write as a step (nothing when the target did not resolve).
pub fn record_write(
    path: &Path,
    snap: &Snapshot,
    row: usize,
    result: &WriteResult,
    raw: &str,
) -> Result<(), Failure> {
    let mut rec =
        Recorder::load_or_new(path).map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    let i = rec
        .record_write(snap, row, result, raw, false)
        .map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    rec.save(path)
        .map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    note(path, &rec, i);
    Ok(())
}

/// `invoke --record FILE`: appends the action as a `click` step.
pub fn record_invoke(
    path: &Path,
    snap: &Snapshot,
    row: usize,
    result: &WriteResult,
    action: Option<&str>,
) -> Result<(), Failure> {
    let mut rec =
        Recorder::load_or_new(path).map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    let i = rec
        .record_invoke(snap, row, result, action)
        .map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    rec.save(path)
        .map_err(|e| Failure::new(exit::ERROR, e.to_string()))?;
    note(path, &rec, i);
    Ok(())
}

fn note(path: &Path, rec: &Recorder, i: usize) {
    if let Some(s) = rec.steps().get(i) {
        super::warn(&format!(
            "recorded step {} into {}{}",
            sanitize(&s.step.id, 80),
            path.display(),
            if s.flagged {
                format!(" (flagged: {})", sanitize(&s.flags.join("; "), 200))
            } else {
                String::new()
            }
        ));
    }
}
