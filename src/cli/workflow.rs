//! `treeglass workflow …` (validate, run, export, record, steps, drop) and the `--record FILE`
//! option of `set` and `invoke`, which append steps to a recording file.

use crate::model::display::counted;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::{Args, Subcommand};

use super::{Scope, answered, code, warn};
use crate::app::run::{self as use_case, Validated};
use crate::app::{Error, Kind, output, pick};
use crate::backend::Backend;
use crate::model::sanitize;
use crate::session::Session;
use crate::workflow::Workflow;
use crate::workflow::record::{ExportError, ExportOptions, RecordError, Recorder};
use crate::workflow::validate::validate_path;
use crate::workflow::watch::{Watch, WatchOptions};

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
a required output failed, 32 run refused before its first step (inputs missing or bad, what a
desktop run cannot do, no window to run in; nothing was run).";

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
    /// Also write a JUnit XML report to FILE: one test case per step execution (failed with
    /// its verdict and advice), steps that did not run as skipped, a failing precondition or
    /// terminal condition as a failed case. Replaced if it exists.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
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

/// A run refused before its first step: with `--junit`, a report of one failed case that says
/// why, so a CI job shows the failure rather than no tests at all.
fn junit_not_run(args: &RunArgs, done: (String, i32)) -> Result<(String, i32), Error> {
    if let Some(path) = &args.junit {
        let name = crate::files::shown(&args.file);
        let suite = crate::junit::Suite {
            name: format!("workflow {name}"),
            seconds: 0.0,
            cases: vec![crate::junit::Case {
                classname: "treeglass.workflow".into(),
                name: format!("{name}: not run"),
                seconds: 0.0,
                outcome: crate::junit::Outcome::Failed {
                    kind: "not-run".into(),
                    message: done.0.lines().next().unwrap_or("not run").to_string(),
                    detail: done.0.clone(),
                },
            }],
        };
        let exit = crate::junit::save(path, &suite, done.1);
        return Ok((done.0, exit));
    }
    Ok(done)
}

/// A recording that could not be read or written.
fn failed(e: RecordError) -> Error {
    Error::other(e.to_string())
}

/// Reads `--input` and `--inputs-file` values.
fn given_inputs(args: &RunArgs) -> Result<BTreeMap<String, String>, Error> {
    let mut out = BTreeMap::new();
    if let Some(path) = &args.inputs_file {
        let bytes = crate::files::read_capped(path, crate::files::MAX_DOCUMENT_BYTES)
            .map_err(|e| Error::usage(format!("--inputs-file: {e}")))?;
        let v = crate::json::parse_strict(&bytes).map_err(|e| {
            Error::usage(format!(
                "{}: not a JSON object of inputs: {e}",
                path.display()
            ))
        })?;
        let obj = v.as_object().ok_or_else(|| {
            Error::usage(format!("{}: inputs must be a JSON object", path.display()))
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
            Error::usage(format!(
                "--input takes NAME=VALUE, got {:?}",
                sanitize(kv, 60)
            ))
        })?;
        out.insert(k.trim().to_string(), v.to_string());
    }
    Ok(out)
}

/// Validates a workflow file, or says why it cannot be run: the part of `workflow run` that
/// happens before any backend is touched.
fn checked(args: &RunArgs) -> Result<Result<Workflow, (String, i32)>, Error> {
    let v = validate_path(&args.file)?;
    let given = if v.valid_workflow().is_some() {
        given_inputs(args)?
    } else {
        BTreeMap::new()
    };
    Ok(use_case::check(&args.file, &v, &given).map_err(|run| answered(&run, args.json)))
}

/// The workflow commands that need no backend; `None` for the ones that do (`run` answers
/// here only when the file or its inputs are refused, so nothing connects for a bad file).
pub fn without_backend(args: &WorkflowArgs) -> Option<Result<(String, i32), Error>> {
    match &args.command {
        WorkflowCommand::Validate { file, json } => Some(validate(file, *json)),
        WorkflowCommand::Export(a) => Some(export(a)),
        WorkflowCommand::Steps { recording, json } => Some(steps(recording, *json)),
        WorkflowCommand::Drop { recording, steps } => Some(drop_steps(recording, steps)),
        WorkflowCommand::Run(a) => match checked(a) {
            Ok(Ok(_)) => None,
            Ok(Err(done)) => Some(junit_not_run(a, done)),
            Err(f) => Some(Err(f)),
        },
        WorkflowCommand::Record(_) => None,
    }
}

/// The workflow commands that use the backend.
pub async fn with_backend(
    backend: Arc<dyn Backend>,
    progress: Option<Arc<crate::backend::progress::ReadProgress>>,
    args: &WorkflowArgs,
) -> Result<(String, i32), Error> {
    match &args.command {
        WorkflowCommand::Run(a) => run(backend, progress, a).await,
        WorkflowCommand::Record(a) => record(backend, a).await,
        _ => without_backend(args)
            .unwrap_or_else(|| Err(Error::other("unreachable workflow command"))),
    }
}

fn validate(file: &Path, as_json: bool) -> Result<(String, i32), Error> {
    let validation = validate_path(file)?;
    Ok(answered(
        &Validated {
            file,
            validation: &validation,
        },
        as_json,
    ))
}

async fn run(
    backend: Arc<dyn Backend>,
    progress: Option<Arc<crate::backend::progress::ReadProgress>>,
    args: &RunArgs,
) -> Result<(String, i32), Error> {
    let wf = match checked(args)? {
        Ok(wf) => wf,
        Err(done) => return junit_not_run(args, done),
    };
    let given = given_inputs(args)?;
    let steps: Vec<(String, &'static str)> = wf
        .steps
        .iter()
        .map(|s| (s.id.clone(), s.action.as_str()))
        .collect();
    let session = Arc::new(Session::new(backend).reporting(progress));
    let run = use_case::run(session, &args.scope.scope(), &args.file, wf, given).await?;
    let done = answered(&run, args.json);
    match (run.report(), &args.junit) {
        (None, _) => junit_not_run(args, done),
        (Some(report), Some(path)) => {
            let exit = crate::junit::save(path, &report.junit(&steps), done.1);
            Ok((done.0, exit))
        }
        (Some(_), None) => Ok(done),
    }
}

fn export(args: &ExportArgs) -> Result<(String, i32), Error> {
    let rec = Recorder::load(&args.recording).map_err(failed)?;
    let opts = ExportOptions {
        name: args.name.clone(),
        description: args.description.clone(),
        workflow_version: args.workflow_version.clone(),
        skip_flagged: args.skip_flagged,
        max_retries: args.max_retries,
        terminal: match &args.terminal {
            Some(t) => Some(serde_json::from_str(t).map_err(|e| {
                Error::usage(format!(
                    "--terminal is not a predicate ({{\"visible\": TARGET}}, …): {e}"
                ))
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
        ExportError::Io(m) => Error::other(m),
        e => Error::new(Kind::WorkflowInvalid, format!("not exported: {e}")),
    };
    if args.output.as_os_str() == "-" {
        let wf = rec.export_workflow(&opts).map_err(refused)?;
        warn_flagged(&flagged);
        let text = crate::json::to_string(&wf) + "\n";
        return Ok((text, code(None)));
    }
    let wf = rec
        .export_to(&args.output, &opts, crate::files::Existing::Replace)
        .map_err(refused)?;
    warn_flagged(&flagged);
    Ok((
        format!(
            "wrote {}: workflow {:?}, {} steps{}\n",
            args.output.display(),
            sanitize(&wf.name, 80).as_ref(),
            wf.steps.len(),
            use_case::sensitive_note(&wf)
        ),
        code(None),
    ))
}

fn warn_flagged(flagged: &[String]) {
    if !flagged.is_empty() {
        warn(&format!(
            "exported {} flagged step{} as recorded (review them, or export with \
             --skip-flagged):\n{}",
            flagged.len(),
            if flagged.len() == 1 { "" } else { "s" },
            flagged.join("\n")
        ));
    }
}

fn steps(path: &Path, as_json: bool) -> Result<(String, i32), Error> {
    let rec = Recorder::load(path).map_err(failed)?;
    if as_json {
        return Ok((
            output::json_pretty(&serde_json::to_value(rec.to_recording()).unwrap_or_default()),
            code(None),
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
    Ok((out, code(None)))
}

fn drop_steps(path: &Path, which: &[String]) -> Result<(String, i32), Error> {
    let mut rec = Recorder::load(path).map_err(failed)?;
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
                Error::usage(format!(
                    "no step {:?} in {}",
                    sanitize(w, 60),
                    path.display()
                ))
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
    rec.save(path).map_err(failed)?;
    dropped.reverse();
    Ok((
        format!(
            "dropped {} from {}; {} left\n",
            dropped.join(", "),
            path.display(),
            crate::model::count(rec.steps().len(), "step")
        ),
        code(None),
    ))
}

async fn record(backend: Arc<dyn Backend>, args: &RecordArgs) -> Result<(String, i32), Error> {
    if args.seconds == 0 || args.seconds > 3600 {
        return Err(Error::usage("--seconds takes 1 to 3600"));
    }
    let mut rec = Recorder::load_or_new(&args.output).map_err(failed)?;
    if let Some(n) = &args.name {
        rec.set_name(n.clone());
    }
    let before = rec.steps().len();
    let (app, root) = pick(backend.as_ref(), &args.scope.scope()).await?;
    let window = app
        .windows
        .iter()
        .find(|w| w.id == root)
        .map(|w| w.name.clone())
        .unwrap_or_default();
    rec.note_scope(&app.name, &window);
    let shared = Arc::new(Mutex::new(rec));
    let watch = Watch::start(backend, root, shared.clone(), WatchOptions::default()).await?;
    warn(&format!(
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
    rec.save(&args.output).map_err(failed)?;
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
    Ok((out, code(None)))
}
