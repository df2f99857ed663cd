//! The command line's arguments: every command and option (clap), the help texts, and the
//! scope options turned into the application layer's [`app::Scope`].

use clap::{Args, Parser, Subcommand};

use super::{audit, workflow};
use crate::app;
use crate::backend::Limits;

const EXIT_CODES: &str = "\
Exit codes:
  0   ok (find: unique; set: verified, already or secure)
  1   other error
  2   bad arguments
  3   no such app, window or element
  4   no accessibility: the platform's own backend (or the one --backend names) did not
      start; where the platform has none at all, the default is the demo app instead
  5   token refused (stale, or not issued by this process)
  6   the application exited or dropped its accessibility connection during the command
  7   doctor: problems found
  8   the application does not answer (it owns its bus name but sent no reply for 1.5 s:
      busy or hung); tree prints what it read first; set/invoke: refused, nothing sent
  9   diff: the trees differ
  10  find/set: target ambiguous        11  target not found
  12  tree incomplete: tree's read was cut short (--read-timeout, --max-depth, --max-nodes,
      --max-children) or elements could not be read; find/set: uniqueness cannot be claimed
  13  target syntax error
  14  audit: findings at or above --min-severity (an incomplete tree is 12, never 0)
  15  one element does not answer a call while the application answers others (not a hung
      app: that is 8); get prints what it did answer; set/invoke: refused, nothing sent
  20  set: mismatch   21  set: unconfirmed (observe before writing again)   22  set: refused
  30  workflow invalid   31  workflow step or terminal condition failed
  32  workflow run refused before its first step (inputs, desktop support, window)";

/// treeglass — an inspector for desktop accessibility trees with verified writes.
///
/// With no command it opens the interactive inspector on the platform's own accessibility
/// (AT-SPI on Linux, UI Automation on Windows, the Accessibility API on macOS), or where the
/// platform has none at all (no accessibility bus; no UI Automation client) on the built-in
/// demo app, saying so. `--app`, `--pid` and `--window` open it on
/// that window (matched as `tree` matches them); when nothing matches, it opens on the apps
/// pane with the reason.
#[derive(Debug, Parser)]
#[command(name = "treeglass", version, after_help = EXIT_CODES)]
pub struct Cli {
    /// Backend: `atspi` (Linux), `uia` (Windows), `ax` (macOS), `fixture` (the built-in demo
    /// app) or `fixture:PATH` (a fixture JSON file). Default: the platform's own, for every
    /// command, `doctor` and `mcp` alike: `atspi` on Linux (with no accessibility bus, the demo
    /// app, with a notice), `uia` on Windows (with no UI Automation client at all, as under Wine
    /// 8, the demo app, with a notice), `ax` on macOS. `uia` and `ax` are not yet verified on
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
    /// Check why trees are missing or tiny. On Linux: session bus, accessibility bus, IsEnabled,
    /// the registry, every registered app's tree size (or that it is not responding), and apps
    /// that own a top-level window (X11) but have no process on the bus, with what makes each
    /// toolkit's tree appear. Browser helper processes, crash handlers and windowless services
    /// are not flagged; where windows cannot be listed (no X display, native Wayland windows)
    /// no process is, and the `windows` check says so. On Windows: the UI Automation client, the
    /// desktop, one window and one pattern, each failure with its call, HRESULT and who refused
    /// it, a failed read said to have failed. On macOS: whether this process may use the
    /// Accessibility API, and its apps.
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
    /// Print a shell completion script: `source <(treeglass completions bash)`, or save it where
    /// the shell loads completions from (bash: ~/.local/share/bash-completion/completions/treeglass).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), made from the same definitions as `--help`:
    /// `treeglass man > treeglass.1 && man -l treeglass.1`.
    Man,
    /// Run a command inside a private, throw-away accessibility stack (Linux): a session bus,
    /// Xvfb (or with --wayland a headless sway or KWin), the AT-SPI bus and its registry, with
    /// IsEnabled set; optionally an app started and waited for; then CMD. Every process the
    /// session started is stopped when CMD ends.
    #[cfg_attr(target_os = "linux", command(after_help = crate::stack::HELP))]
    Session(SessionArgs),
    /// KDE Plasma on Wayland: install, check or remove the grant through which KWin offers its
    /// fake input (keys and clicks) to this treeglass binary: a `.desktop` file in
    /// $XDG_DATA_HOME/applications (else ~/.local/share/applications) whose `Exec=` is this
    /// binary's exact path and which lists `X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input`.
    /// A binary at another path (a new build, another install) needs its own grant. `status`
    /// exits 1 unless the grant is installed and, on a Wayland display, honoured.
    KdeGrant {
        #[arg(value_enum)]
        action: GrantAction,
    },
    /// GNOME on Wayland: install, enable, check or remove treeglass's GNOME Shell extension,
    /// through which GNOME Shell tells treeglass where windows are, raises them and draws the
    /// highlight (org.treeglass.Shell1 on the shell's own session bus connection). `install`
    /// writes the build for the running (else installed) GNOME Shell, 43-44 or 45 and later,
    /// into $XDG_DATA_HOME/gnome-shell/extensions; GNOME Shell on Wayland loads it the next
    /// time it starts (log out and in), then `enable`. `status` exits 1 unless GNOME Shell
    /// answers through it. Without it, clicks are refused, and keys go only into a window
    /// that is already the active one.
    GnomeExtension {
        #[arg(value_enum)]
        action: ExtensionAction,
    },
    /// Inside `treeglass session --wayland=gnome|kwin` only: holds a keyboard and a pointer on
    /// the desktop's seat (through its EIS) for the life of the session, as a machine's own
    /// keyboard and mouse would be, and sends nothing. Prints `ready` once they are there.
    #[command(hide = true)]
    SessionSeat,
}

/// What `treeglass gnome-extension` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExtensionAction {
    Install,
    Enable,
    Status,
    Remove,
}

/// What `treeglass kde-grant` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GrantAction {
    Install,
    Status,
    Remove,
}

/// `treeglass session`'s options.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["shell", "command"])))]
pub struct SessionArgs {
    /// A headless Wayland compositor instead of Xvfb: `sway` (the default: wlroots' headless
    /// backend, pixman renderer, one 1600x1200 output, no input devices, no Xwayland; run as
    /// root, sway alone runs as an unprivileged user, as it refuses root) or `kwin` (KWin's
    /// virtual backend, QPainter compositing, one 1280x800 output; run as root, the whole
    /// stack and CMD run as the unprivileged user, as in a desktop session: KWin grants its
    /// input interface by the client's executable, which it cannot see in another user's
    /// process), or `gnome` (a headless GNOME Shell, 1280x800, with an empty system bus of its
    /// own, PipeWire, WirePlumber and GIO's key-file settings, and treeglass's GNOME Shell
    /// extension installed and enabled; as with KWin, the whole stack and CMD run as the
    /// unprivileged user). The user is created when missing.
    #[arg(
        long,
        value_name = "COMPOSITOR",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "sway"
    )]
    pub wayland: Option<Compositor>,
    /// The unprivileged user the compositor runs as when the session is started by root
    /// (default: $A11Y_SESSION_USER, else `treeglass-session`).
    #[arg(long, value_name = "NAME", requires = "wayland")]
    pub user: Option<String>,
    /// Start this app inside the stack before CMD, and run CMD only once it is registered on
    /// the accessibility bus, lists a window, and two reads of its tree in a row count the
    /// same nodes. Split into words as a shell would (quotes, backslashes) but run without one:
    /// no variables, pipes or redirections (use `sh -c '…'`). Its output goes to `app.log` in
    /// the session directory; its standard input stays open and empty until the session ends.
    #[arg(long = "app-cmd", value_name = "'CMD ARGS'")]
    pub app_cmd: Option<String>,
    /// How long the --app-cmd app may take to register and settle.
    #[arg(
        long = "app-timeout-ms",
        value_name = "MS",
        default_value_t = 30_000,
        requires = "app_cmd"
    )]
    pub app_timeout_ms: u64,
    /// Print, on standard error, each step's time, the session directory, the pid of every
    /// process started, and what was stopped at the end (also A11Y_SESSION_VERBOSE=1).
    #[arg(short, long)]
    pub verbose: bool,
    /// Open an interactive $SHELL (else /bin/bash) inside the stack instead of CMD.
    #[arg(long)]
    pub shell: bool,
    /// The command to run inside the stack, with its arguments (`--` before it is optional).
    #[arg(
        value_name = "CMD",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        conflicts_with = "shell"
    )]
    pub command: Vec<std::ffi::OsString>,
}

/// The compositor of `treeglass session --wayland`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Compositor {
    Sway,
    Kwin,
    Gnome,
}

const MCP_HELP: &str = "\
Client configuration (e.g. in an MCP client's server list):
  {\"command\": \"treeglass\", \"args\": [\"mcp\"]}
  {\"command\": \"treeglass\", \"args\": [\"mcp\", \"--backend\", \"fixture\"]}   (the demo app, no bus)

The server answers at once, whatever the state of its backend (by default the platform's own;
never the demo app in its place): while the backend cannot start (no session bus yet), every
tool that reads or writes an app answers the error the command line gives (bus_unavailable,
exit code 4, the same words), doctor says why, and the first call a second after a failed
attempt connects once it can.

A target that names no single element on an app at rest is answered after one read, without
waiting; wait_ms waits that long for an element about to appear. Every tool declares an output
schema, and its structuredContent (errors included) conforms to it.

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

Exit codes: 0 ok/unique, 2 bad arguments, 3 no such app/window, 4 no accessibility, 5 token
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

Waits: --wait-ms (default 10 s) is how long the target may take to resolve to one element (on
a terminal, a wait past its first second says what it waits for on standard error);
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
    /// Wait exactly this long for the target to name one element, re-reading on the app's
    /// events and every half second (at most 120000). Without it, a target that does not name
    /// one element is read again only while the app is changing: the answer comes once the
    /// app has sent no event for 500 ms (at most 10 s).
    #[arg(long = "wait-ms", alias = "resolve-timeout-ms", value_name = "MS")]
    pub wait_ms: Option<u64>,
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
    /// Wait exactly this long for the target to name one element, re-reading on the app's
    /// events and every half second (at most 120000). Without it, a target that does not name
    /// one element is read again only while the app is changing: the answer comes once the
    /// app has sent no event for 500 ms (at most 10 s).
    #[arg(
        long = "wait-ms",
        aliases = ["timeout-ms", "resolve-timeout-ms"],
        value_name = "MS"
    )]
    pub wait_ms: Option<u64>,
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
    /// Fields left out of the comparison, comma-separated: `values`, `descriptions`,
    /// `states`, `states:NAME` (one state), `bounds` (never compared), or `none` to compare
    /// everything. Where the focus is and which window is active depend on the window manager
    /// and on timing, so they are left out by default.
    #[arg(long, value_name = "FIELDS", default_value = crate::diff::baseline::DEFAULT_IGNORE)]
    pub ignore: String,
    /// When the trees differ, write the second one (the live read, or AFTER) over BEFORE as a
    /// baseline (`tree --baseline`'s form) and exit 0: accept the change. Equal trees leave
    /// BEFORE as it is.
    #[arg(long)]
    pub update: bool,
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

/// Which window (or app) a command reads, and how deep.
#[derive(Debug, Args, Clone)]
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
    /// Read the tree down to this depth: deeper elements are not read (nor found), and the
    /// tree says it was cut (exit 12).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_depth)]
    pub max_depth: usize,
    /// Read at most this many children of one element: the rest are not read (nor found), and
    /// the tree says it was cut (exit 12). Elements that manage their descendants (big lists,
    /// tables) are never enumerated; their visible part is read instead, whatever this says.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_siblings)]
    pub max_children: usize,
}

impl Default for Scope {
    fn default() -> Self {
        Scope {
            app: None,
            pid: None,
            window: None,
            read_timeout_ms: None,
            max_depth: Limits::default().max_depth,
            max_children: Limits::default().max_siblings,
        }
    }
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    #[command(flatten)]
    pub scope: Scope,
    /// Stop reading after this many nodes (the snapshot says it was truncated).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_nodes)]
    pub max_nodes: usize,
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
    /// Only the subtree under the element this target names (resolved in the window first:
    /// where the app can find it by its role, nothing else is read).
    #[arg(long, value_name = "TARGET")]
    pub root: Option<String>,
    /// Only what is on screen: nodes that are showing, with what they sit in.
    #[arg(long)]
    pub showing_only: bool,
    /// A flat list of the elements a person can act on (buttons, fields, check boxes, options,
    /// links, …), each with its suggested target and path.
    #[arg(long, conflicts_with = "raw")]
    pub interactive_only: bool,
    /// Print the tree as a baseline to keep in a repository and compare with `diff`: role,
    /// name, description, value, states and children in tree order, and nothing that changes
    /// from run to run (ids, rows, tokens, snapshot id, timings, bounds). JSON; `diff` matches
    /// its elements by path.
    #[arg(
        long,
        conflicts_with_all = ["json", "targets", "actions", "showing_only", "interactive_only", "raw"]
    )]
    pub baseline: bool,
}

impl Default for TreeArgs {
    fn default() -> Self {
        TreeArgs {
            scope: Scope::default(),
            max_nodes: Limits::default().max_nodes,
            raw: false,
            json: false,
            targets: false,
            actions: false,
            root: None,
            showing_only: false,
            interactive_only: false,
            baseline: false,
        }
    }
}

impl Scope {
    /// Whether any of `--app`, `--pid`, `--window` was given.
    pub fn is_set(&self) -> bool {
        self.scope().is_set()
    }

    /// The window (or app) these options name, for the application layer.
    pub fn scope(&self) -> app::Scope {
        app::Scope {
            app: self.app.clone(),
            pid: self.pid,
            window: self.window.clone(),
            read_timeout_ms: self.read_timeout_ms,
            max_depth: Some(self.max_depth),
            max_children: Some(self.max_children),
        }
    }

    /// The default read limits with `--read-timeout` applied.
    pub fn limits(&self) -> Limits {
        self.scope().limits()
    }
}
