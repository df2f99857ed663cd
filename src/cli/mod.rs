//! The command line: argument definitions, exit codes, and the commands that print results.
//! The concrete backend is chosen by `main.rs` and handed in as `&dyn Backend`.

pub mod output;

use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use regex::Regex;

use crate::backend::{AppInfo, Backend, BackendError, Limits, WindowInfo};
use crate::model::NodeId;

/// Exit codes, documented in `--help`.
pub mod exit {
    pub const OK: i32 = 0;
    pub const ERROR: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const NO_SUCH: i32 = 3;
    pub const BUS_UNAVAILABLE: i32 = 4;
    pub const TOKEN: i32 = 5;
    pub const AMBIGUOUS: i32 = 10;
    pub const NOT_FOUND: i32 = 11;
    pub const INCOMPLETE: i32 = 12;
    pub const TARGET_SYNTAX: i32 = 13;
    pub const MISMATCH: i32 = 20;
    pub const UNCONFIRMED: i32 = 21;
    pub const REFUSED: i32 = 22;
    pub const WORKFLOW_INVALID: i32 = 30;
    pub const WORKFLOW_FAILED: i32 = 31;
}

const EXIT_CODES: &str = "\
Exit codes:
  0   ok (find: unique; set: verified, already or secure)
  1   other error
  2   bad arguments
  3   no such app, window or element
  4   accessibility bus unavailable (with --backend atspi)
  5   token refused (stale, or not issued by this process)
  10  find/set: target ambiguous        11  target not found
  12  tree incomplete, uniqueness cannot be claimed
  13  target syntax error
  20  set: mismatch   21  set: unconfirmed (observe before writing again)   22  set: refused
  30  workflow invalid   31  workflow step or terminal condition failed";

/// treeglass — an inspector for desktop accessibility trees with verified writes.
///
/// With no command it opens the interactive inspector: on the AT-SPI accessibility bus when
/// one is reachable, else on the built-in demo app.
#[derive(Debug, Parser)]
#[command(name = "treeglass", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// Backend: `atspi`, `fixture` (the built-in demo app) or `fixture:PATH` (a fixture JSON file).
    /// Default: AT-SPI when an accessibility bus is reachable, else the demo app (with a notice).
    #[arg(long, global = true, value_name = "BACKEND")]
    pub backend: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List applications with pid, bus name, toolkit and windows.
    #[command(after_help = EXIT_CODES)]
    Apps {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print one window's (or app's) tree, folded: unnamed single-child wrappers fold into their child.
    #[command(after_help = EXIT_CODES)]
    Tree(TreeArgs),
}

/// Which window (or app) a command reads.
#[derive(Debug, Args, Clone, Default)]
pub struct Scope {
    /// Application name (regular expression, case-insensitive).
    #[arg(long, value_name = "REGEX")]
    pub app: Option<String>,
    /// Application process id.
    #[arg(long, value_name = "PID", conflicts_with = "app")]
    pub pid: Option<u32>,
    /// Window title (regular expression, case-insensitive). Default: the app's only window, or
    /// the whole app when it has several.
    #[arg(long, value_name = "REGEX")]
    pub window: Option<String>,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    #[command(flatten)]
    pub scope: Scope,
    /// Stop reading after this many nodes (the snapshot says it was truncated).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_nodes)]
    pub max_nodes: usize,
    /// Stop descending below this depth.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Show every node (no folding) in the text form.
    #[arg(long)]
    pub raw: bool,
    /// Print JSON (the full, unfolded tree).
    #[arg(long)]
    pub json: bool,
}

impl Default for TreeArgs {
    fn default() -> Self {
        TreeArgs {
            scope: Scope::default(),
            max_nodes: Limits::default().max_nodes,
            max_depth: Limits::default().max_depth,
            raw: false,
            json: false,
        }
    }
}

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn new(code: i32, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }
}

impl From<BackendError> for Failure {
    fn from(e: BackendError) -> Failure {
        let code = match e {
            BackendError::Unavailable(_) => exit::BUS_UNAVAILABLE,
            BackendError::Vanished(_) => exit::NO_SUCH,
            _ => exit::ERROR,
        };
        Failure::new(code, e.to_string())
    }
}

fn regex(pattern: &str, what: &str) -> Result<Regex, Failure> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| Failure::new(exit::USAGE, format!("bad --{what} pattern: {e}")))
}

/// The app and the root (window or app) that `scope` names.
pub async fn pick(backend: &dyn Backend, scope: &Scope) -> Result<(AppInfo, NodeId), Failure> {
    let apps = backend.apps().await?;
    let app_re = scope.app.as_deref().map(|p| regex(p, "app")).transpose()?;
    let candidates: Vec<&AppInfo> = apps
        .iter()
        .filter(|a| match (&app_re, scope.pid) {
            (Some(re), _) => re.is_match(&a.name),
            (None, Some(pid)) => a.pid == Some(pid),
            (None, None) => !a.windows.is_empty(),
        })
        .collect();
    let list = |apps: &[&AppInfo]| {
        apps.iter()
            .map(|a| format!("  {} (pid {})", crate::model::sanitize(&a.name, 60), a.pid.map_or("?".into(), |p| p.to_string())))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let app = match candidates.as_slice() {
        [] => {
            let all: Vec<&AppInfo> = apps.iter().collect();
            return Err(Failure::new(
                exit::NO_SUCH,
                format!(
                    "no application matches{}; applications on the bus:\n{}",
                    scope
                        .app
                        .as_deref()
                        .map(|a| format!(" --app {a:?}"))
                        .or(scope.pid.map(|p| format!(" --pid {p}")))
                        .unwrap_or_default(),
                    list(&all)
                ),
            ));
        }
        [one] => (*one).clone(),
        many => {
            // An exact (case-insensitive) name match wins over partial regex matches.
            let exact: Vec<&&AppInfo> = many
                .iter()
                .filter(|a| scope.app.as_deref().is_some_and(|p| a.name.eq_ignore_ascii_case(p)))
                .collect();
            match exact.as_slice() {
                [one] => (**one).clone(),
                _ => {
                    return Err(Failure::new(
                        exit::USAGE,
                        format!(
                            "{} applications match; choose one with --app or --pid:\n{}",
                            many.len(),
                            list(many)
                        ),
                    ));
                }
            }
        }
    };
    let root = match &scope.window {
        Some(p) => {
            let re = regex(p, "window")?;
            let wins: Vec<&WindowInfo> = app.windows.iter().filter(|w| re.is_match(&w.name)).collect();
            match wins.as_slice() {
                [one] => one.id.clone(),
                [] => {
                    return Err(Failure::new(
                        exit::NO_SUCH,
                        format!(
                            "no window of {} matches --window {p:?}; windows: {}",
                            app.name,
                            app.windows
                                .iter()
                                .map(|w| format!("{:?}", crate::model::sanitize(&w.name, 60)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
                many => {
                    // Prefer an exact title over partial matches.
                    match many.iter().find(|w| w.name.eq_ignore_ascii_case(p)) {
                        Some(w) => w.id.clone(),
                        None => {
                            return Err(Failure::new(
                                exit::USAGE,
                                format!("{} windows match --window {p:?}; be more specific", many.len()),
                            ));
                        }
                    }
                }
            }
        }
        None => match app.windows.as_slice() {
            [one] => one.id.clone(),
            _ => app.id.clone(),
        },
    };
    Ok((app, root))
}

/// `treeglass apps`.
pub async fn apps(backend: &dyn Backend, json: bool) -> Result<String, Failure> {
    let apps = backend.apps().await?;
    Ok(if json {
        output::json_pretty(&serde_json::json!({ "backend": backend.name(), "apps": apps }))
    } else {
        output::apps_text(&apps)
    })
}

/// `treeglass tree`.
pub async fn tree(backend: &dyn Backend, args: &TreeArgs) -> Result<String, Failure> {
    let (_, root) = pick(backend, &args.scope).await?;
    let limits = Limits {
        max_nodes: args.max_nodes.max(1),
        max_depth: args.max_depth,
        ..Limits::default()
    };
    let snap = backend.snapshot(&root, &limits).await?;
    Ok(if args.json {
        output::json_pretty(&output::tree_json(&snap, None))
    } else {
        output::tree_text(&snap, args.raw)
    })
}

/// How long to wait for the accessibility bus before falling back to the demo app.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
