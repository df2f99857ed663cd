//! The command line: argument definitions, exit codes, and the commands that print results.
//! The concrete backend is chosen by `main.rs` and handed in as `&dyn Backend`.

pub mod audit;
pub mod output;
pub mod workflow;

use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use regex::Regex;

use crate::backend::{AppInfo, Backend, BackendError, Limits, WindowInfo};
use crate::model::{NodeId, Snapshot, Token, Truncation, sanitize, scrub_lines};
use crate::selector::{Resolution, Target};
use crate::session::{Fresh, MAX_RESOLVE_TIMEOUT, Session, TokenRefusal};
use crate::write::{Outcome, Placement, WriteOptions, WriteResult};

/// Exit codes, documented in `--help`.
pub mod exit {
    pub const OK: i32 = 0;
    pub const ERROR: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const NO_SUCH: i32 = 3;
    pub const BUS_UNAVAILABLE: i32 = 4;
    pub const TOKEN: i32 = 5;
    pub const APP_GONE: i32 = 6;
    pub const DOCTOR: i32 = 7;
    pub const NOT_RESPONDING: i32 = 8;
    pub const DIFFERS: i32 = 9;
    pub const AMBIGUOUS: i32 = 10;
    pub const NOT_FOUND: i32 = 11;
    pub const INCOMPLETE: i32 = 12;
    pub const TARGET_SYNTAX: i32 = 13;
    /// `audit`: findings at or above `--min-severity`.
    pub const AUDIT_FINDINGS: i32 = 14;
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
  6   the application exited or dropped its accessibility connection during the command
  7   doctor: problems found
  8   the application does not answer (it owns its bus name but sent no reply for 1.5 s:
      busy or hung); tree prints what it read first; set/invoke: refused, nothing sent
  9   diff: the trees differ
  10  find/set: target ambiguous        11  target not found
  12  tree incomplete: tree's read was cut short by --read-timeout; find/set: uniqueness
      cannot be claimed
  13  target syntax error
  14  audit: findings at or above --min-severity (an incomplete tree is 12, never 0)
  20  set: mismatch   21  set: unconfirmed (observe before writing again)   22  set: refused
  30  workflow invalid   31  workflow step or terminal condition failed";

/// treeglass — an inspector for desktop accessibility trees with verified writes.
///
/// With no command it opens the interactive inspector: on the AT-SPI accessibility bus when
/// one is reachable, else on the built-in demo app. `--app`, `--pid` and `--window` open it on
/// that window (matched as `tree` matches them); when nothing matches, it opens on the apps
/// pane with the reason.
#[derive(Debug, Parser)]
#[command(name = "treeglass", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// Backend: `atspi` (Linux), `uia` (Windows), `ax` (macOS), `fixture` (the built-in demo
    /// app) or `fixture:PATH` (a fixture JSON file). Default: AT-SPI when an accessibility bus is
    /// reachable, else the demo app (with a notice). `uia` and `ax` are not yet verified on
    /// their systems.
    #[arg(long, global = true, value_name = "BACKEND")]
    pub backend: Option<String>,

    /// Write diagnostics (per-read timings and rounds, every failed call and why, apps leaving
    /// the bus) to FILE, appending. Also `TREEGLASS_LOG=FILE`; `TREEGLASS_LOG_LEVEL=trace` adds
    /// every call. Never written to the terminal.
    #[arg(long, global = true, value_name = "FILE")]
    pub log: Option<std::path::PathBuf>,

    /// The window the inspector opens on (with no command).
    #[command(flatten)]
    pub scope: Scope,

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
    /// Resolve a target: unique (exit 0), ambiguous, not found or incomplete, with candidates.
    #[command(after_help = TARGET_HELP)]
    Find(FindArgs),
    /// Read one element's value (and role, states).
    #[command(after_help = TARGET_HELP)]
    Get(GetArgs),
    /// Write a value into one element and verify it by reading it back.
    #[command(after_help = SET_HELP)]
    Set(SetArgs),
    /// Read or write the system clipboard.
    #[command(subcommand)]
    Clipboard(ClipboardCommand),
    /// Run an action of one element (press, activate, …) and report the app's reaction.
    #[command(after_help = TARGET_HELP)]
    Invoke(InvokeArgs),
    /// Record, export, validate and run workflow files.
    Workflow(workflow::WorkflowArgs),
    /// Compare two snapshots of a tree: files written by `tree --json`, or a file and the
    /// window `--app`/`--pid`/`--window` name, read now. Elements are matched by id where
    /// both come from one run of the app, else by path (role and name from the root); a
    /// renamed element under the same parent and a moved one with a unique role and name are
    /// told apart from added and removed ones.
    #[command(
        after_help = "Exit codes: 0 no differences, 9 the trees differ, 2 bad arguments or a \
                      file that is not a tree, and for a live read those of `tree`."
    )]
    Diff(DiffArgs),
    /// Check one window's accessibility: unnamed controls, names that only repeat the role,
    /// controls out of the keyboard's reach, contradictory states, look-alike siblings, and
    /// interactive elements automation can name only by their place. Findings are grouped by
    /// rule, each with the element's suggested target, path, token and row.
    #[command(after_help = audit::help())]
    Audit(audit::AuditArgs),
    /// Check why trees are missing or tiny: session bus, accessibility bus, IsEnabled, the
    /// registry, every registered app's tree size (or that it is not responding), and apps that
    /// own a top-level window (X11) but have no process on the bus, with what makes each
    /// toolkit's tree appear. Browser helper processes, crash handlers and windowless services
    /// are not flagged; where windows cannot be listed (no X display, native Wayland windows)
    /// no process is, and the `windows` check says so.
    #[command(
        after_help = "Exit codes: 0 all well (checks that could not run are `skip`), 7 problems \
                      found, 2 bad arguments."
    )]
    Doctor {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve treeglass to agents as a Model Context Protocol server on standard input and
    /// output (list_apps, get_window_state, find, set_value, invoke, clipboard_read,
    /// clipboard_write, workflow_record_start/stop, workflow_validate, workflow_run, audit,
    /// doctor).
    /// Element tokens live as long as the server; every answer has the `--json` shape of the
    /// matching command, and errors carry its exit code. `--backend fixture` needs no bus.
    #[command(after_help = MCP_HELP)]
    Mcp,
}

const MCP_HELP: &str = "\
Client configuration (e.g. in an MCP client's server list):
  {\"command\": \"treeglass\", \"args\": [\"mcp\"]}
  {\"command\": \"treeglass\", \"args\": [\"mcp\", \"--backend\", \"fixture\"]}   (the demo app, no bus)

The server runs until its standard input closes; diagnostics go to --log FILE (never the
arguments of a call: they may hold a secret). Exit code 0 when the client closed the session.";

const TARGET_HELP: &str = "\
Targets name elements by meaning:
  [ROLE] [\"QUERY\"] [[STATES]] [labelled-by \"L\"] [after [ROLE] \"T\"] [#N] [in TARGET]
  check-box \"Subscribe\" [enabled !checked] in group \"Preferences\"
  =\"Save\" exact · *\"sav\" substring · ~\"sve\" fuzzy · \"Save\" tiered (exact > substring > fuzzy)
  text labelled-by \"Street:\" (label relation) · text after label \"City:\" (nearest label before it)
  check-box \"checkbutton\" #3 (the 3rd match, in tree order; beyond the matches: not found)
  role:\"push button\" (raw toolkit role) · JSON: {\"role\":\"button\",\"query\":\"Save\",\"nth\":2}
Hidden (not showing) elements match too: ambiguous candidates say which are hidden. With --json,
find adds each candidate's suggested target and grade (stable, contextual, positional).
Element tokens (s0000002a:11) are only valid inside the process that read the tree (a TUI
session or a workflow run); the command line refuses them (exit 5): use a target.

Exit codes: 0 ok/unique, 2 bad arguments, 3 no such app/window, 4 bus unavailable, 5 token
refused, 10 ambiguous, 11 not found, 12 incomplete tree, 13 target syntax error.";

const SET_HELP: &str = "\
Values by role: text fields take the whole text; spin buttons, sliders and scroll bars a
number within min–max; check boxes, switches, toggle and radio buttons true/false, on/off or
1/0; combo boxes an option label (case-insensitive); tabs, list and tree rows `true` (select);
expanders true/false. VALUE `-` reads the value from standard input (for secrets).

Outcomes: verified (read-back equals the request), already (nothing sent), mismatch
(transformed, partial, clamped, unchanged, reverted), unconfirmed (sent, but nothing showed
where it landed: observe before writing again), secure (password: the length matches),
refused (a precondition failed; nothing sent).

Paths: the result says how the value went in: semantic (the element's own interface),
keyboard (its window focused, the element focused, text selected and typed) or pointer (a
click at its centre); the planner picks by toolkit (see the README). Keyboard and pointer need
an X display.

Waits: --wait-ms (default 10 s) is how long the target may take to resolve to one element;
--readback-ms (default 1.5 s) is how long the value is read back after the write; --watch-ms
(default 600 ms, 0: off) is how long the element is watched after the verdict (a change then
turns it into a mismatch). Echoed values are cut to 200 characters; secret fields (password
fields, and text fields named like password, PIN, token, secret…) are never echoed: only their
length.

Exit codes: 0 verified/already/secure, 20 mismatch, 21 unconfirmed, 22 refused, 6 the app
exited during the command, 8 the app does not answer (refused: nothing was sent) (and 2, 3, 4,
5, 10–13 as for find).";

#[derive(Debug, Clone, Subcommand)]
pub enum ClipboardCommand {
    /// List the types the clipboard offers (text, html, image, files).
    Read {
        /// Also print the plain text.
        #[arg(long)]
        text: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Replace the clipboard with exactly one value, then list what it offers. On X11 the
    /// clipboard lives in the writing process: treeglass keeps it until another application
    /// takes the clipboard or --keep-ms passes.
    #[command(group(clap::ArgGroup::new("item").required(true).args(["text", "image", "file"])))]
    Write {
        /// Text to write.
        #[arg(long, value_name = "TEXT")]
        text: Option<String>,
        /// A PNG image to write.
        #[arg(long, value_name = "PATH")]
        image: Option<String>,
        /// A file (absolute path) to offer as a file URL.
        #[arg(long, value_name = "PATH")]
        file: Option<String>,
        /// How long to keep serving the clipboard.
        #[arg(long = "keep-ms", value_name = "MS", default_value_t = 10_000)]
        keep_ms: u64,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `treeglass clipboard`.
pub fn clipboard(cmd: &ClipboardCommand) -> Result<String, Failure> {
    use crate::clipboard::{self as cb, ClipboardError, Item};
    let fail = |e: ClipboardError| {
        let code = match e {
            ClipboardError::Input(_) => exit::USAGE,
            _ => exit::ERROR,
        };
        Failure::new(code, e.to_string())
    };
    let mut owner = None;
    let (contents, json) = match cmd {
        ClipboardCommand::Read { text, json } => (cb::read(*text).map_err(fail)?, *json),
        ClipboardCommand::Write {
            text,
            image,
            file,
            keep_ms,
            json,
        } => {
            let item = match (text, image, file) {
                (Some(t), _, _) => Item::Text(t.clone()),
                (_, Some(i), _) => Item::Image(i.clone()),
                (_, _, Some(f)) => Item::File(f.clone()),
                _ => return Err(Failure::new(exit::USAGE, "give --text, --image or --file")),
            };
            let written = cb::write(&item, Duration::from_millis(*keep_ms)).map_err(fail)?;
            let contents = written.contents.clone();
            owner = Some(written);
            (contents, *json)
        }
    };
    let out = if json {
        output::json_pretty(&serde_json::to_value(&contents).unwrap_or_default())
    } else {
        clipboard_text(&contents)
    };
    // Say what the clipboard holds now, then keep serving it (X11 clipboards live in their owner).
    if let Some(owner) = owner {
        let written = emit(Printed::Text(out), &mut io::stdout().lock());
        owner.serve();
        return match finish(exit::OK, written) {
            exit::OK => Ok(String::new()),
            code => Err(Failure::new(code, "the clipboard was written and served")),
        };
    }
    Ok(out)
}

/// The text form of what the clipboard offers (its text escaped and cut to 2,000 characters).
pub fn clipboard_text(contents: &crate::clipboard::Contents) -> String {
    let mut out = format!(
        "types: {}\n",
        if contents.types.is_empty() {
            "(empty)".to_string()
        } else {
            contents.types.join(", ")
        }
    );
    if let Some(t) = &contents.text {
        out.push_str(&format!("text: {}\n", crate::model::quoted(t, 2000)));
    }
    if let Some((w, h)) = contents.image {
        out.push_str(&format!("image: {w}×{h}\n"));
    }
    for f in &contents.files {
        out.push_str(&format!("file: {}\n", sanitize(f, 500)));
    }
    out
}

/// Where to find one element: a target (or a token) within a scope.
#[derive(Debug, Args, Clone)]
pub struct ElementArgs {
    /// A target (string or JSON form). Tokens are refused: they only live inside a session.
    /// `set` and `invoke` take exact and substring matches only: a target that matches only
    /// fuzzily is refused, with the fuzzy matches listed as suggestions.
    #[arg(value_name = "TARGET")]
    pub target: String,
    #[command(flatten)]
    pub scope: Scope,
    /// How long to wait for the target to resolve to one element (re-reading on events), at
    /// most 120000.
    #[arg(
        long = "wait-ms",
        alias = "resolve-timeout-ms",
        value_name = "MS",
        default_value_t = 10_000
    )]
    pub wait_ms: u64,
    /// Read the tree down to this depth (deeper elements cannot be found).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Resolve on the whole tree, read element by element, even where the app can find the
    /// target's candidates itself (Chromium, Firefox: `Collection.GetMatches` on the role,
    /// then only those elements are read). Both give the same answer; this one is slower.
    /// (`invoke` always reads the tree: it credits reactions in the element's subtree.)
    #[arg(long)]
    pub whole_tree: bool,
}

#[derive(Debug, Args)]
pub struct FindArgs {
    /// A target (string or JSON form).
    #[arg(value_name = "TARGET")]
    pub target: String,
    #[command(flatten)]
    pub scope: Scope,
    /// How long to wait for the target to resolve to one element (re-reading on events), at
    /// most 120000.
    #[arg(
        long = "wait-ms",
        aliases = ["timeout-ms", "resolve-timeout-ms"],
        value_name = "MS",
        default_value_t = 10_000
    )]
    pub wait_ms: u64,
    /// Read the tree down to this depth (deeper elements cannot be found).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Resolve on the whole tree, read element by element, even where the app can find the
    /// target's candidates itself (Chromium, Firefox: `Collection.GetMatches` on the role,
    /// then only those elements are read). Both give the same answer; this one is slower.
    #[arg(long)]
    pub whole_tree: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The first tree: a `tree --json` file.
    #[arg(value_name = "BEFORE")]
    pub before: std::path::PathBuf,
    /// The second tree: a `tree --json` file; without it, the window the scope names, read now.
    #[arg(value_name = "AFTER")]
    pub after: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub scope: Scope,
    /// Print JSON: `{"equal", "summary", "changes": [{kind, role, name, path, from?, fields?}]}`.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GetArgs {
    #[command(flatten)]
    pub element: ElementArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SetArgs {
    #[command(flatten)]
    pub element: ElementArgs,
    /// The value (`-` reads it from standard input).
    #[arg(value_name = "VALUE", allow_hyphen_values = true)]
    pub value: String,
    /// How long to read the value back after writing it before judging the write (the
    /// verdict comes earlier when the value settles).
    #[arg(
        long = "readback-ms",
        alias = "timeout-ms",
        value_name = "MS",
        default_value_t = 1500
    )]
    pub readback_ms: u64,
    /// How long a read-back value must hold before it counts as settled.
    #[arg(long = "settle-ms", value_name = "MS", default_value_t = 60)]
    pub settle_ms: u64,
    /// After the verdict, keep watching the element this long: a change then (a validator
    /// putting the old value back) turns the verdict into a mismatch. 0 turns it off.
    #[arg(long = "watch-ms", value_name = "MS", default_value_t = crate::write::DEFAULT_WATCH.as_millis() as u64)]
    pub watch_ms: u64,
    /// Send an out-of-range number anyway (the outcome then says `clamped`).
    #[arg(long)]
    pub force: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Append this write as a workflow step to a recording file (created when missing).
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    /// Say what changed elsewhere in the window even when the write is verified (it is said
    /// whenever it is not): values, names, states, elements and windows that appeared or
    /// went away, and where the focus is.
    #[arg(long)]
    pub changes: bool,
}

#[derive(Debug, Args)]
pub struct InvokeArgs {
    #[command(flatten)]
    pub element: ElementArgs,
    /// The action's name (default: click, press, activate… whichever the element has).
    #[arg(long, value_name = "NAME")]
    pub action: Option<String>,
    /// How long to watch for the app's reaction after the action.
    #[arg(
        long = "readback-ms",
        alias = "timeout-ms",
        value_name = "MS",
        default_value_t = 1500
    )]
    pub readback_ms: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Append this action as a workflow step to a recording file (created when missing).
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    /// Say what changed elsewhere in the window even when the reaction is verified (it is
    /// said whenever it is not).
    #[arg(long)]
    pub changes: bool,
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
    /// Give up reading the tree after this long (the read then says it was cut short, and
    /// `tree` exits 12). Default: none — a read ends when the tree is whole, or when the app
    /// stops answering (nothing back for 1.5 s: it is not responding).
    #[arg(long = "read-timeout", value_name = "MS")]
    pub read_timeout_ms: Option<u64>,
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
    /// Add each node's suggested shortest unique target and its grade: stable, contextual or
    /// positional (`target` and `grade` in JSON).
    #[arg(long)]
    pub targets: bool,
    /// Also read every node's action names (`actions` in JSON; one call per action, so slow on
    /// big apps). `get` always shows one element's actions.
    #[arg(long)]
    pub actions: bool,
}

impl Default for TreeArgs {
    fn default() -> Self {
        TreeArgs {
            scope: Scope::default(),
            max_nodes: Limits::default().max_nodes,
            max_depth: Limits::default().max_depth,
            raw: false,
            json: false,
            targets: false,
            actions: false,
        }
    }
}

/// Output written straight to standard output as it is produced.
pub type Streamed = Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + Send>;

/// What a command prints on standard output.
pub enum Printed {
    Text(String),
    /// Written as it is produced (`tree --json`), never held whole in memory.
    Stream(Streamed),
}

impl From<String> for Printed {
    fn from(s: String) -> Printed {
        Printed::Text(s)
    }
}

/// Writes a command's output. Text passes [`scrub_lines`] on the way: the app strings in it
/// were escaped when they were put in, and this makes sure nothing else slipped through.
pub fn emit(printed: Printed, out: &mut dyn Write) -> io::Result<()> {
    match printed {
        Printed::Text(s) => out.write_all(scrub_lines(&s).as_bytes()),
        Printed::Stream(write) => write(out),
    }?;
    out.flush()
}

/// The exit code once the output is written (`written`): the command's own code when it was
/// written, and also when the reader closed the pipe (it wanted no more, as with `| head`:
/// not an error, and a verdict's code is kept); any other output error is reported and a
/// success becomes 1 (a failure keeps its own code, e.g. a `set` verdict's).
pub fn finish(code: i32, written: io::Result<()>) -> i32 {
    match written {
        Ok(()) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            warn(&format!(
                "cannot write the output: {e}{}",
                if code == exit::OK {
                    String::new()
                } else {
                    format!(" (the command itself ended with exit code {code})")
                }
            ));
            if code == exit::OK { exit::ERROR } else { code }
        }
    }
}

/// A line on standard error, prefixed `treeglass: `. An error writing it is ignored: there is
/// nowhere left to report it, and it must not turn into a panic.
pub fn warn(message: &str) {
    let _ = writeln!(io::stderr().lock(), "treeglass: {}", scrub_lines(message));
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
            BackendError::AppGone { .. } => exit::APP_GONE,
            BackendError::NotResponding { .. } => exit::NOT_RESPONDING,
            _ => exit::ERROR,
        };
        Failure::new(code, e.to_string())
    }
}

impl From<crate::files::FileError> for Failure {
    /// A file that is not a regular file, too big or in the way is bad input (exit 2); a
    /// failing read or write is an error (exit 1).
    fn from(e: crate::files::FileError) -> Failure {
        use crate::files::FileError;
        let code = match e {
            FileError::Io { .. } => exit::ERROR,
            _ => exit::USAGE,
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

/// `reading… 12,480 nodes` on standard error while a tree read runs for more than a second,
/// refreshed four times a second, erased when the command is done.
pub struct ProgressLine {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    pub fn start() -> ProgressLine {
        use std::sync::atomic::Ordering;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut since: Option<std::time::Instant> = None;
            let mut shown = false;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                match crate::backend::progress::READ.nodes() {
                    Some(n) => {
                        let t = *since.get_or_insert_with(std::time::Instant::now);
                        if t.elapsed() >= Duration::from_secs(1) {
                            eprint!(
                                "\rreading… {} nodes\x1b[K",
                                crate::model::group_digits(n as i64)
                            );
                            shown = true;
                        }
                    }
                    None => since = None,
                }
            }
            if shown {
                eprint!("\r\x1b[K");
            }
        });
        ProgressLine {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Scope {
    /// Whether any of `--app`, `--pid`, `--window` was given.
    pub fn is_set(&self) -> bool {
        self.app.is_some() || self.pid.is_some() || self.window.is_some()
    }

    /// The default read limits with `--read-timeout` applied.
    pub fn limits(&self) -> Limits {
        let mut l = Limits::default();
        if let Some(ms) = self.read_timeout_ms {
            l.timeout = Duration::from_millis(ms.max(1));
        }
        l
    }
}

/// Checks that `scope`'s patterns are valid regular expressions (a usage error otherwise).
pub fn check_scope(scope: &Scope) -> Result<(), Failure> {
    if let Some(p) = &scope.app {
        regex(p, "app")?;
    }
    if let Some(p) = &scope.window {
        regex(p, "window")?;
    }
    Ok(())
}

/// The app and the root (window or app) that `scope` names. An app that does not answer is
/// `NOT_RESPONDING`, never "no such app".
pub async fn pick(backend: &dyn Backend, scope: &Scope) -> Result<(AppInfo, NodeId), Failure> {
    let (app, root) = pick_any(backend, scope).await?;
    if !app.responding {
        return Err(not_responding(&app));
    }
    Ok((app, root))
}

/// Whether `--app`'s pattern names `app`. An app that does not answer could not say its
/// accessible name: its process name and the words of its command line stand in for it.
fn app_matches(re: &Regex, app: &AppInfo) -> bool {
    re.is_match(app.name.as_str())
        || !app.responding
            && app.pid.is_some_and(|pid| {
                crate::backend::process_words(pid)
                    .iter()
                    .any(|w| re.is_match(w))
            })
}

async fn pick_any(backend: &dyn Backend, scope: &Scope) -> Result<(AppInfo, NodeId), Failure> {
    // By pid alone the app can be found without describing every other app.
    if let (None, Some(pid)) = (&scope.app, scope.pid)
        && let Some(app) = backend.app_by_pid(pid).await?
    {
        tracing::debug!(pid, "app found by pid");
        return pick_root(app, scope);
    }
    let apps = backend.apps().await?;
    tracing::debug!(apps = apps.len(), "apps listed");
    let app_re = scope.app.as_deref().map(|p| regex(p, "app")).transpose()?;
    let candidates: Vec<&AppInfo> = apps
        .iter()
        .filter(|a| match (&app_re, scope.pid) {
            (Some(re), _) => app_matches(re, a),
            (None, Some(pid)) => a.pid == Some(pid),
            (None, None) => !a.windows.is_empty(),
        })
        .collect();
    let list = |apps: &[&AppInfo]| {
        apps.iter()
            .map(|a| {
                format!(
                    "  {} (pid {}){}",
                    a.name.literal(60),
                    a.pid.map_or("?".into(), |p| p.to_string()),
                    if a.responding {
                        ""
                    } else {
                        " — not responding"
                    }
                )
            })
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
                        .map(|a| format!(" --app {}", crate::model::quoted(a, 100)))
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
                .filter(|a| {
                    scope
                        .app
                        .as_deref()
                        .is_some_and(|p| a.name.as_str().eq_ignore_ascii_case(p))
                })
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
    pick_root(app, scope)
}

/// The root `scope` names in `app`: the window matching `--window`, else the app's only
/// window, else the whole app.
fn pick_root(app: AppInfo, scope: &Scope) -> Result<(AppInfo, NodeId), Failure> {
    let root = match &scope.window {
        Some(p) => {
            let re = regex(p, "window")?;
            let wins: Vec<&WindowInfo> = app
                .windows
                .iter()
                .filter(|w| re.is_match(w.name.as_str()))
                .collect();
            match wins.as_slice() {
                [one] => one.id.clone(),
                [] => {
                    return Err(Failure::new(
                        exit::NO_SUCH,
                        format!(
                            "no window of {} matches --window {}; windows: {}",
                            app.name.quoted(60),
                            crate::model::quoted(p, 100),
                            app.windows
                                .iter()
                                .map(|w| w.name.quoted(60))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
                many => {
                    // Prefer an exact title over partial matches.
                    match many
                        .iter()
                        .find(|w| w.name.as_str().eq_ignore_ascii_case(p))
                    {
                        Some(w) => w.id.clone(),
                        None => {
                            return Err(Failure::new(
                                exit::USAGE,
                                format!(
                                    "{} windows match --window {}; be more specific",
                                    many.len(),
                                    crate::model::quoted(p, 100)
                                ),
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
        output::json_pretty(&apps_json(backend.name(), &apps))
    } else {
        output::apps_text(&apps)
    })
}

/// `apps --json`.
pub fn apps_json(backend: &str, apps: &[AppInfo]) -> serde_json::Value {
    serde_json::json!({ "backend": backend, "apps": apps })
}

/// The failure for an app that owns its bus name and answers nothing.
pub fn not_responding(app: &AppInfo) -> Failure {
    named(
        app,
        BackendError::NotResponding {
            app: String::new(),
            ms: Limits::default().call_timeout.as_millis() as u64,
        },
    )
}

/// What to do about a write refused because its app does not answer.
pub const NOT_RESPONDING_ADVICE: &str = "nothing was sent; the app is busy or hung: try again \
     when it answers (`treeglass apps` says \"not responding\" until then)";

/// A backend error, with an app that does not answer named the way the user knows it.
pub fn named(app: &AppInfo, e: BackendError) -> Failure {
    match e {
        BackendError::NotResponding { ms, .. } => BackendError::NotResponding {
            app: format!("the application {}", app.label()),
            ms,
        }
        .into(),
        e => e.into(),
    }
}

/// The failure for an app that left the bus during `what`, naming it the way the user knows it.
pub fn app_gone(app: &AppInfo, what: &str) -> Failure {
    Failure::new(
        exit::APP_GONE,
        format!(
            "the application {} (pid {}) exited or dropped its accessibility connection during {what}",
            app.name.quoted(60),
            app.pid.map_or("?".into(), |p| p.to_string())
        ),
    )
}

/// `treeglass tree`: the text form, or the JSON form streamed as it is written. Exits
/// `APP_GONE` (after printing what was read) when the app left the bus mid-read.
pub async fn tree(backend: &dyn Backend, args: &TreeArgs) -> Result<(Printed, i32), Failure> {
    let (app, root) = pick(backend, &args.scope).await?;
    let limits = Limits {
        max_nodes: args.max_nodes.max(1),
        max_depth: args.max_depth,
        actions: args.actions,
        labels: args.targets,
        ..args.scope.limits()
    };
    let snap = match backend.snapshot(&root, &limits).await {
        Ok(s) => s,
        Err(BackendError::AppGone { .. }) => return Err(app_gone(&app, "the read")),
        Err(e) => return Err(named(&app, e)),
    };
    let code = match snap.truncated {
        Some(Truncation::AppGone) => {
            eprintln!("treeglass: {}", app_gone(&app, "the read").message);
            exit::APP_GONE
        }
        // The read was cut short by `--read-timeout`, or by an app that stopped answering:
        // what was read is printed, and the exit says it is not the whole tree. (The caps are
        // the caller's own choice and exit 0.)
        Some(Truncation::Timeout) => {
            eprintln!(
                "treeglass: the read was cut short after {} by --read-timeout {}: the tree is \
                 incomplete",
                crate::model::display::counted(snap.nodes.len(), "node", "nodes"),
                args.scope.read_timeout_ms.unwrap_or_default()
            );
            exit::INCOMPLETE
        }
        Some(Truncation::NotResponding) => {
            eprintln!(
                "treeglass: {}; the read stopped after {}: the tree is incomplete",
                not_responding(&app).message,
                crate::model::display::counted(snap.nodes.len(), "node", "nodes"),
            );
            exit::NOT_RESPONDING
        }
        _ => exit::OK,
    };
    let targets: Option<Vec<Option<output::Suggested>>> = args.targets.then(|| {
        crate::selector::suggest_all(&snap)
            .into_iter()
            .map(|t| t.as_ref().map(output::Suggested::of))
            .collect()
    });
    let actions = args.actions;
    let out = if args.json {
        Printed::Stream(Box::new(move |out| {
            output::write_tree_json(out, &snap, targets.as_deref(), actions)
        }))
    } else {
        Printed::Text(output::tree_text(&snap, args.raw, targets.as_deref()))
    };
    Ok((out, code))
}

/// Parses a target argument; tokens get their own refusal.
fn parse_target(raw: &str) -> Result<Target, Failure> {
    if let Ok(token) = raw.parse::<Token>() {
        return Err(Failure::new(
            exit::TOKEN,
            TokenRefusal::Unknown(token).to_string(),
        ));
    }
    Target::parse(raw).map_err(|e| target_failure(raw, &e))
}

/// A target that does not parse: the error with a caret under its column.
pub fn target_failure(raw: &str, e: &crate::selector::ParseError) -> Failure {
    Failure::new(
        exit::TARGET_SYNTAX,
        format!(
            "bad target: {e}\n  {}\n  {}^",
            sanitize(raw, 200),
            " ".repeat(e.column.saturating_sub(1).min(200))
        ),
    )
}

fn resolve_timeout(ms: u64) -> Duration {
    Duration::from_millis(ms).min(MAX_RESOLVE_TIMEOUT)
}

/// Exit code for a resolution.
pub fn resolution_code(r: &Resolution) -> i32 {
    match r {
        Resolution::Unique { .. } => exit::OK,
        Resolution::Ambiguous { .. } => exit::AMBIGUOUS,
        Resolution::NotFound { .. } => exit::NOT_FOUND,
        Resolution::Incomplete { .. } => exit::INCOMPLETE,
    }
}

/// A `tree --json` file read as a tree, or a usage error saying why not.
fn tree_file(path: &std::path::Path) -> Result<crate::diff::Tree, Failure> {
    let text = crate::files::read_capped_text(path, crate::files::MAX_FIXTURE_BYTES)?;
    crate::diff::Tree::from_json(&text)
        .map_err(|why| Failure::new(exit::USAGE, format!("{}: {why}", crate::files::shown(path))))
}

/// `treeglass diff`: exit 0 when the trees are the same, `DIFFERS` when not. Two files need
/// no backend (`None`); a live read does.
pub async fn diff(
    backend: Option<&dyn Backend>,
    args: &DiffArgs,
) -> Result<(String, i32), Failure> {
    let before = tree_file(&args.before)?;
    let after = match &args.after {
        Some(p) => {
            if args.scope.is_set() {
                return Err(Failure::new(
                    exit::USAGE,
                    "give a second file or --app/--pid/--window for a live read, not both",
                ));
            }
            tree_file(p)?
        }
        None => {
            if !args.scope.is_set() {
                return Err(Failure::new(
                    exit::USAGE,
                    "give a second `tree --json` file, or --app/--pid/--window to compare with \
                     the window read now",
                ));
            }
            let backend = backend.ok_or_else(|| {
                Failure::new(exit::ERROR, "a live read needs an accessibility backend")
            })?;
            let (app, root) = pick(backend, &args.scope).await?;
            let snap = backend
                .snapshot(&root, &args.scope.limits())
                .await
                .map_err(|e| match e {
                    BackendError::AppGone { .. } => app_gone(&app, "the read"),
                    e => named(&app, e),
                })?;
            if let Some(t) = snap.truncated {
                return Err(Failure::new(
                    match t {
                        Truncation::NotResponding => exit::NOT_RESPONDING,
                        Truncation::AppGone => exit::APP_GONE,
                        _ => exit::INCOMPLETE,
                    },
                    format!(
                        "the window's read was cut short ({}): a diff against part of it would \
                         list what was not read as removed",
                        t.as_str()
                    ),
                ));
            }
            crate::diff::Tree::from_snapshot(&snap).map_err(|e| Failure::new(exit::ERROR, e))?
        }
    };
    let changes = crate::diff::diff(&before, &after);
    let code = if changes.is_empty() {
        exit::OK
    } else {
        exit::DIFFERS
    };
    let out = if args.json {
        output::json_pretty(&serde_json::json!({
            "equal": changes.is_empty(),
            "summary": crate::diff::summary(&changes),
            "changes": changes,
        }))
    } else {
        crate::diff::text(&changes)
    };
    Ok((out, code))
}

/// `treeglass find`.
pub async fn find(session: &Session, args: &FindArgs) -> Result<(String, i32), Failure> {
    let (target, fresh, _, _) = resolve_arg(
        session,
        &args.target,
        &args.scope,
        args.wait_ms,
        args.max_depth,
        false,
    )
    .await?;
    let code = resolution_code(&fresh.resolution);
    let out = if args.json {
        output::json_pretty(&find_json(&target, &fresh))
    } else {
        output::resolution_text(&target, &fresh)
    };
    Ok((out, code))
}

/// `find --json`: the resolution, the target, the snapshot it was resolved in, how many reads
/// and how long it took.
pub fn find_json(target: &Target, fresh: &Fresh) -> serde_json::Value {
    let mut v = output::resolution_json(&fresh.resolution, &fresh.snapshot);
    if let Some(n) = fresh.narrowed {
        // The snapshot holds the element's path alone: no suggestion from it is unique.
        if let Some(o) = v.as_object_mut() {
            o.remove("suggestion");
        }
        v["narrowed"] = serde_json::json!({ "candidates": n });
    }
    if let Some(row) = fresh.resolution.unique_row() {
        v["id"] = serde_json::to_value(&fresh.snapshot.nodes[row].id).unwrap_or_default();
    }
    v["target"] = target.to_string().into();
    v["snapshot"] = fresh.snapshot.id.to_string().into();
    v["reads"] = fresh.reads.into();
    v["waited_ms"] = (fresh.waited.as_millis() as u64).into();
    v
}

/// Parses a target argument and resolves it against fresh reads of the scope's window.
/// A write (`to_write`) resolves with exact and substring matches only.
async fn resolve_arg(
    session: &Session,
    raw: &str,
    scope: &Scope,
    timeout_ms: u64,
    max_depth: usize,
    to_write: bool,
) -> Result<(Target, Fresh, AppInfo, NodeId), Failure> {
    let target = parse_target(raw)?;
    let (app, root) = pick(session.backend.as_ref(), scope).await?;
    let limits = Limits {
        max_depth,
        ..scope.limits()
    };
    let timeout = resolve_timeout(timeout_ms);
    let fresh = if to_write {
        session
            .resolve_fresh_to_write(&root, &target, timeout, &limits)
            .await
    } else {
        session
            .resolve_fresh(&root, &target, timeout, &limits)
            .await
    }
    .map_err(|e| named(&app, e))?;
    Ok((target, fresh, app, root))
}

/// Where a resolved element was found: its app, the window read, and whether the app
/// narrowed the target (the snapshot then holds the element's path alone).
struct Found {
    app: AppInfo,
    root: NodeId,
    narrowed: bool,
}

/// Resolves an element argument to one node of a fresh snapshot, or fails with the
/// resolution's exit code.
async fn element(
    session: &Session,
    args: &ElementArgs,
    to_write: bool,
) -> Result<(Target, Arc<Snapshot>, usize, Found), Failure> {
    let (target, fresh, app, root) = resolve_arg(
        session,
        &args.target,
        &args.scope,
        args.wait_ms,
        args.max_depth,
        to_write,
    )
    .await?;
    let found = Found {
        app,
        root,
        narrowed: fresh.narrowed.is_some(),
    };
    match fresh.resolution.unique_row() {
        Some(row) => Ok((target, fresh.snapshot, row, found)),
        None => Err(Failure::new(
            resolution_code(&fresh.resolution),
            output::resolution_text(&target, &fresh)
                .trim_end()
                .to_string(),
        )),
    }
}

/// `treeglass get`.
pub async fn get(session: &Session, args: &GetArgs) -> Result<String, Failure> {
    let (target, snap, row, _) = element(session, &args.element, false).await?;
    let node = session.backend.read_node(&snap.nodes[row].id).await?;
    let mut fresh = (*snap).clone();
    fresh.nodes[row] = crate::model::Node {
        parent: snap.nodes[row].parent,
        children: snap.nodes[row].children.clone(),
        depth: snap.nodes[row].depth,
        ..node
    };
    Ok(if args.json {
        let mut v = output::node_json(&fresh, row);
        v["target"] = target.to_string().into();
        v["bounds"] = serde_json::to_value(fresh.nodes[row].bounds).unwrap_or_default();
        output::json_pretty(&v)
    } else {
        format!("{}\n", output::node_line(&fresh.nodes[row]))
    })
}

/// The exit code of a write's verdict.
pub fn write_code(r: &WriteResult) -> i32 {
    match r.outcome {
        Outcome::Verified | Outcome::Already | Outcome::Secure => exit::OK,
        Outcome::Mismatch => exit::MISMATCH,
        Outcome::Unconfirmed => exit::UNCONFIRMED,
        Outcome::Refused => exit::REFUSED,
    }
}

/// A write result as printed: echoed values capped, then text or JSON.
fn write_output(mut r: WriteResult, json: bool) -> String {
    output::cap_echoes(&mut r);
    if json {
        output::json_pretty(&write_json(&r))
    } else {
        output::write_text(&r)
    }
}

/// `set --json` / `invoke --json` of a result whose echoes are capped ([`output::cap_echoes`]).
pub fn write_json(r: &WriteResult) -> serde_json::Value {
    serde_json::to_value(r).unwrap_or_default()
}

/// `treeglass set`.
pub async fn set(session: &Session, args: &SetArgs) -> Result<(String, i32), Failure> {
    let value = if args.value == "-" {
        let bytes = crate::files::read_capped_from(
            std::io::stdin().lock(),
            crate::files::MAX_STDIN_VALUE_BYTES,
            "standard input",
        )
        .map_err(|e| Failure::new(exit::USAGE, format!("cannot read the value: {e}")))?;
        let s = String::from_utf8(bytes).map_err(|_| {
            Failure::new(exit::USAGE, "the value on standard input is not UTF-8 text")
        })?;
        s.strip_suffix('\n').map(str::to_string).unwrap_or(s)
    } else {
        args.value.clone()
    };
    let opts = WriteOptions {
        timeout: Duration::from_millis(args.readback_ms),
        settle: Duration::from_millis(args.settle_ms),
        watch: Duration::from_millis(args.watch_ms),
        force: args.force,
        ..WriteOptions::default()
    };
    let (target, snap, row, found) = match element(session, &args.element, true).await {
        Ok(x) => x,
        Err(f)
            if f.code != exit::USAGE
                && f.code != exit::TOKEN
                && f.code != exit::TARGET_SYNTAX
                && f.code != exit::NO_SUCH
                && f.code != exit::BUS_UNAVAILABLE =>
        {
            // Resolution failed: a refusal, with the resolution's own exit code.
            if args.record.is_some() {
                warn("not recorded: the target did not resolve to one element");
            }
            // The value as given; one read from standard input may be a secret: its length.
            let shown = if args.value == "-" {
                format!("(from standard input, {} chars)", value.chars().count())
            } else {
                value.clone()
            };
            let mut r =
                WriteResult::refused_unresolved(&args.element.target, f.message.clone(), &shown);
            if f.code == exit::NOT_RESPONDING {
                r.advice = NOT_RESPONDING_ADVICE.into();
            }
            let out = write_output(r, args.json);
            return Ok((out, f.code));
        }
        Err(f) => return Err(f),
    };
    let node = &snap.nodes[row];
    let place = Placement::of(&snap, row);
    let mut r =
        crate::write::set_value(session.backend.as_ref(), &node.id, &place, &value, &opts).await;
    r.target = Some(target.to_string());
    r.token = Some(snap.token(row).to_string());
    let mut code = write_code(&r);
    if let Some(path) = &args.record
        && let Err(f) = workflow::record_write(path, &snap, row, &r, &value)
    {
        warn(&format!("not recorded: {}", f.message));
        code = if code == exit::OK { f.code } else { code };
    }
    let typed = (!place.secret).then_some(value.as_str());
    let landed = crate::write::landed::after_write(
        session.backend.as_ref(),
        &crate::write::landed::Before {
            app: Some(&found.app),
            root: &found.root,
            snapshot: &snap,
            narrowed: found.narrowed,
        },
        &node.id,
        &mut r,
        args.changes,
        typed,
        place.secret,
    )
    .await;
    Ok((with_landed(r, landed, args.json), code))
}

/// The write's output with where it landed: `changes` in JSON, a `changed elsewhere:` block
/// in text.
fn with_landed(
    mut r: WriteResult,
    landed: Option<crate::write::landed::Landed>,
    json: bool,
) -> String {
    if let Some(l) = &landed {
        r.changes = serde_json::to_value(l).ok();
    }
    let mut out = write_output(r, json);
    if !json && let Some(l) = &landed {
        out.push_str(&crate::write::landed::text(l));
    }
    out
}

/// `treeglass invoke`.
pub async fn invoke(session: &Session, args: &InvokeArgs) -> Result<(String, i32), Failure> {
    let (target, snap, row, found) = element(session, &args.element, true).await?;
    let opts = WriteOptions {
        timeout: Duration::from_millis(args.readback_ms),
        ..WriteOptions::default()
    };
    let place = Placement::of(&snap, row);
    let id = snap.nodes[row].id.clone();
    let mut r = crate::write::invoke(
        session.backend.as_ref(),
        &id,
        &place,
        args.action.as_deref(),
        &opts,
    )
    .await;
    r.target = Some(target.to_string());
    r.token = Some(snap.token(row).to_string());
    let mut code = write_code(&r);
    if let Some(path) = &args.record
        && let Err(f) = workflow::record_invoke(path, &snap, row, &r, args.action.as_deref())
    {
        warn(&format!("not recorded: {}", f.message));
        code = if code == exit::OK { f.code } else { code };
    }
    let landed = crate::write::landed::after_write(
        session.backend.as_ref(),
        &crate::write::landed::Before {
            app: Some(&found.app),
            root: &found.root,
            snapshot: &snap,
            narrowed: found.narrowed,
        },
        &id,
        &mut r,
        args.changes,
        None,
        place.secret,
    )
    .await;
    Ok((with_landed(r, landed, args.json), code))
}

/// `treeglass doctor`: the report and its exit code.
pub fn doctor(report: crate::doctor::Report, json: bool) -> (String, i32) {
    let code = if report.healthy() {
        exit::OK
    } else {
        exit::DOCTOR
    };
    let out = if json {
        output::json_pretty(&doctor_json(&report))
    } else {
        report.text()
    };
    (out, code)
}

/// `doctor --json`.
pub fn doctor_json(report: &crate::doctor::Report) -> serde_json::Value {
    let mut v = serde_json::to_value(report).unwrap_or_default();
    v["healthy"] = report.healthy().into();
    v
}

/// How long to wait for the accessibility bus before falling back to the demo app.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
