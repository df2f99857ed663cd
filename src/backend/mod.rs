//! The shared backend layer: one trait every platform implements, with its events, limits and
//! errors. Concrete backends live in submodules; `pick` chooses one.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Serialize;
use tokio::sync::broadcast;

use crate::model::{AppText, Node, NodeId, Role, Snapshot, States};

#[cfg(target_os = "linux")]
pub mod atspi;
/// Off Linux only the AT-SPI backend's tables are compiled: its raw roles (a target may name
/// one, on any platform) and its toolkits (`doctor`'s advice, web documents).
#[cfg(not(target_os = "linux"))]
pub mod atspi {
    pub mod roles;
    pub mod toolkit;
}
pub mod ax;
pub mod fixture;
pub mod pick;
pub mod progress;
#[cfg(test)]
pub(crate) mod readme;
pub mod record;
pub mod strategy;
pub mod uia;
pub mod worker;

/// The words that may stand for process `pid`'s name when its app cannot be asked (it does
/// not answer): its program or script name and its command line's arguments. From `/proc` on
/// Linux; none elsewhere.
pub fn process_words(pid: u32) -> Vec<String> {
    #[cfg(target_os = "linux")]
    {
        atspi::process::words(pid)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        Vec::new()
    }
}

/// A raw role name a backend reports (AT-SPI's `push button`, `page tab list`, …) as the
/// neutral role it stands for; `None` for a word no backend reports. The selector takes these
/// for a target's `role` (the contract accepts the raw toolkit role), so that a typo is still
/// an error, without naming any platform itself.
pub fn raw_role(name: &str) -> Option<Role> {
    let name = name.trim();
    match atspi::roles::role(name) {
        _ if name.is_empty() => None,
        Role::Unknown => None,
        r => Some(r),
    }
}

/// What a raw role a backend reports says beyond its normalised role, as a neutral kind (the
/// audit's rules read these); `None` for most roles.
pub fn raw_kind(raw: &str) -> Option<crate::model::RawKind> {
    atspi::roles::kind(raw)
}

/// The raw role a backend reports for `kind` (AT-SPI's name: the only backend whose raw roles
/// have kinds yet), for docs and for tests that build elements.
pub fn raw_name_of(kind: crate::model::RawKind) -> &'static str {
    atspi::roles::kind_name(kind)
}

/// Whether the element is a browser's page (its raw role's kind is
/// [`crate::model::RawKind::WebDocument`]), so what sits under it is web content.
pub fn is_web_document(node: &Node) -> bool {
    raw_kind(&node.raw_role) == Some(crate::model::RawKind::WebDocument)
}

/// What a backend reads for the audit beyond the tree (see [`Backend::audit_reads`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuditReads {
    /// The label relation (who labels whom), for the rules that need it.
    pub labels: bool,
    /// The facts of a whole read (`audit::Facts`: text leaves, bounds of what is on screen),
    /// asked once per complete read.
    pub facts: bool,
}

/// What went wrong talking to an accessibility backend.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BackendError {
    /// No accessibility bus (or API) could be reached. Said in the platform's words
    /// ([`pick::UNAVAILABLE`]).
    #[error("{unavailable}: {0}", unavailable = pick::UNAVAILABLE)]
    Unavailable(String),
    /// The element is gone (the app removed it); the app itself is still there.
    #[error("element vanished: {0}")]
    Vanished(String),
    /// The application exited or dropped its accessibility connection (its bus name has no
    /// owner any more). `delivered`: the call reached the app before it went (so a write may
    /// have landed); false when it was never sent or the bus could not deliver it.
    #[error("the application ({app}) exited or dropped its accessibility connection")]
    AppGone { app: String, delivered: bool },
    /// A call did not answer before its deadline; a write may still land.
    #[error("timed out{}: {what}", after_ms(*ms))]
    Timeout { what: String, ms: u64 },
    /// The application still owns its bus name (it is running and registered) but answered
    /// nothing for `ms`: busy or hung. Not "gone": it usually comes back on its own.
    #[error(
        "{app} does not answer accessibility calls (no reply in {}); it may be busy or hung",
        crate::model::display::seconds(*ms)
    )]
    NotResponding { app: Unanswering, ms: u64 },
    /// One element did not answer a call in time while its application answered another call
    /// (its root's `Name`) at once: the element is silent, the app is not hung. `element` is
    /// the element's id; front ends word it with the element's role and name where they know
    /// them ([`BackendError::about`]).
    #[error(
        "{element}: {call} did not answer in {}; the app answers other calls",
        crate::model::display::seconds(*ms)
    )]
    Silent {
        element: String,
        call: String,
        ms: u64,
    },
    /// A call was answered in a form it never has (a wrong D-Bus signature): what it would
    /// have said of the element is unknown. `call` is the method or property.
    #[error("{call} answered in a wrong form: {detail}")]
    BadReply { call: String, detail: String },
    /// The element does not implement the interface a call was sent on (at-spi2-atk: "Method
    /// … on interface … doesn't exist"; GDBus: "No such interface"): it is there, it lacks it.
    #[error("the element does not implement {0}")]
    NoInterface(String),
    /// The element does not support what was asked.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// treeglass has no way to send synthesized input here (no display, a compositor it has no
    /// input path for, a window it cannot find or raise): nothing reached the app.
    #[error("treeglass has no input path: {0}")]
    NoInput(String),
    /// Synthesized input was cut short after part of it went out (the desktop's input server
    /// went away mid-write): some of it may have reached the app.
    #[error("synthesized input was cut short: {0}")]
    InputCut(String),
    /// The backend answered with an error.
    #[error("{0}")]
    Failed(String),
}

/// ` after N ms`, or nothing where the time is not known (0: a platform's own timeout).
fn after_ms(ms: u64) -> String {
    if ms == 0 {
        String::new()
    } else {
        format!(" after {ms} ms")
    }
}

impl BackendError {
    /// The same error with the element it names described as a person knows it
    /// (`button "Slow"` rather than its bus name and path), where this error names one.
    pub fn about(self, node: &Node) -> BackendError {
        match self {
            BackendError::Silent { element, call, ms } if element == node.id.0 => {
                BackendError::Silent {
                    element: crate::model::display::described(node),
                    call,
                    ms,
                }
            }
            e => e,
        }
    }
}

/// Caps that keep a read bounded on huge or hung apps.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_nodes: usize,
    pub max_depth: usize,
    pub max_siblings: usize,
    /// Deadline for the whole read. By default there is none in practice (ten minutes): a read
    /// ends when the tree is whole, when the app stops answering (nothing back for
    /// `call_timeout`, and its root's `Name` does not answer either: the snapshot says
    /// `not_responding`), or when the app leaves.
    /// `--read-timeout` sets a real one for scripts.
    pub timeout: Duration,
    /// Deadline for one bus call.
    pub call_timeout: Duration,
    /// Also read every node's action names (one call per action on AT-SPI: slow on big apps).
    /// Off by default: writes, `invoke` and the details pane read one element's actions fresh.
    pub actions: bool,
    /// Also read the label relation (`labelled-by`) of every interactive node (`Node::label`):
    /// one call per node, slow on GTK 4. Targets that match on labels and suggestions that may
    /// use them ask for it; `read_node` always reads it.
    pub labels: bool,
}

impl Default for Limits {
    fn default() -> Self {
        // Real apps seen: 30–1000 nodes, depth ≤ 40; a 4,000-row page in Chromium 52,000, all
        // of them in the browser's cache at once; an office document can reach 100k. The cap
        // bounds a lying tree, not a big one: depth, siblings and cycles are bounded apart.
        Limits {
            max_nodes: 200_000,
            max_depth: 128,
            max_siblings: 5_000,
            timeout: Duration::from_secs(600),
            call_timeout: Duration::from_millis(1500),
            actions: false,
            labels: false,
        }
    }
}

/// One top-level window of an application.
#[derive(Debug, Clone, Serialize)]
pub struct WindowInfo {
    pub id: NodeId,
    pub name: AppText,
    pub role: Role,
    pub states: States,
}

/// One application on the bus.
#[derive(Debug, Clone, Serialize)]
pub struct AppInfo {
    pub id: NodeId,
    pub name: AppText,
    pub pid: Option<u32>,
    pub bus_name: String,
    /// The toolkit's own name and version for itself (`Application.ToolkitName`, `Version`).
    pub toolkit: Option<AppText>,
    pub toolkit_version: Option<AppText>,
    pub windows: Vec<WindowInfo>,
    /// False when the app owns its bus name but answered nothing while being listed (busy or
    /// hung). Its `name` and `windows` are then the last ones seen by this process, or, when
    /// none were, its process name and no windows.
    pub responding: bool,
}

/// An application that does not answer, as far as it is known: what a
/// [`BackendError::NotResponding`] names. Its words are made in one place, its `Display`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unanswering {
    /// Its name (the accessible one, or its process's).
    pub name: Option<AppText>,
    pub pid: Option<u32>,
    /// Its bus name, said when nothing else is known.
    pub bus: Option<String>,
}

impl Unanswering {
    /// An app as listed.
    pub fn of(app: &AppInfo) -> Unanswering {
        Unanswering {
            name: Some(app.name.clone()),
            pid: app.pid,
            bus: Some(app.bus_name.clone()),
        }
    }
}

impl std::fmt::Display for Unanswering {
    /// `the application "gedit" (pid 1234)`, `the application on :1.42`, or `the application`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the application")?;
        match (&self.name, self.pid, &self.bus) {
            (Some(name), pid, _) => {
                write!(f, " {}", name.quoted(60))?;
                match pid {
                    Some(pid) => write!(f, " (pid {pid})"),
                    None => Ok(()),
                }
            }
            (None, Some(pid), _) => write!(f, " (pid {pid})"),
            (None, None, Some(bus)) => write!(f, " on {bus}"),
            (None, None, None) => Ok(()),
        }
    }
}

impl AppInfo {
    /// How messages name the app: `"gedit" (pid 1234)`.
    pub fn label(&self) -> String {
        format!(
            "{} (pid {})",
            self.name.quoted(60),
            self.pid.map_or("?".into(), |p| p.to_string())
        )
    }
}

/// The kind of an accessibility event, normalised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum EventKind {
    ChildAdded {
        index: i32,
    },
    ChildRemoved {
        index: i32,
    },
    NameChanged,
    DescriptionChanged,
    /// `state` as the app named it in the signal.
    StateChanged {
        state: AppText,
        on: bool,
    },
    ValueChanged,
    TextChanged,
    SelectionChanged,
    Focus,
    WindowOpened,
    WindowClosed,
    AppAdded,
    AppRemoved,
    /// An event kind treeglass does not act on, named from the signal (its detail is the
    /// app's).
    Other {
        name: AppText,
    },
}

/// One accessibility event from an application.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub kind: EventKind,
    /// The element the event is about.
    pub source: NodeId,
    /// The element's app (bus name or fixture app name).
    pub app: String,
    /// Short detail for the events pane (e.g. the child's id, the changed text length), as
    /// the app sent it.
    pub detail: AppText,
    /// When the backend received it (`None` for events made up in tests), for ordering.
    #[serde(skip)]
    pub at: Option<Instant>,
}

impl Event {
    /// A one-line description for the events pane and write timelines.
    pub fn summary(&self) -> String {
        let kind = match &self.kind {
            EventKind::ChildAdded { index } => format!("child-added[{index}]"),
            EventKind::ChildRemoved { index } => format!("child-removed[{index}]"),
            EventKind::StateChanged { state, on } => {
                format!(
                    "state-changed:{}={}",
                    state.literal(40),
                    if *on { 1 } else { 0 }
                )
            }
            EventKind::Other { name } => name.literal(60).into_owned(),
            other => serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string))
                .unwrap_or_default(),
        };
        if self.detail.is_empty() {
            kind
        } else {
            format!("{kind} {}", self.detail.literal(60))
        }
    }
}

/// A primitive write. Write strategies (text, number, toggle, option…) are planned above the
/// backend from these; the backend only performs them and reports the toolkit's answer, which is
/// never evidence that anything changed.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteOp {
    /// Replace the whole text (EditableText).
    SetText(String),
    /// Set the current value (Value).
    SetNumber(f64),
    /// Step the number to this value with the element's increment and decrement actions,
    /// reading it after each press: a stepper whose value cannot be set (AX).
    StepTo(f64),
    /// Run a named action, e.g. `click`, `toggle`, `activate`, `press`: one of the element's
    /// own action names.
    Action(AppText),
    /// Select the child at `index` of a Selection container.
    SelectChild(usize),
    /// Give the element keyboard focus.
    Focus,
    /// Select all of the element's text (Text selection), for keyboard fallbacks.
    SelectAllText,
    /// Type text through synthesized keyboard events into the focused element.
    TypeText(String),
    /// Press and release one key (synthesized) in the focused window.
    Key(Key),
    /// Click (button 1) at the centre of the element through the synthesized pointer.
    Click,
    /// Raise the element's window and give it keyboard focus: synthesized keys and clicks go
    /// to the focused window on top. Holds the window's title, to pick among the app's windows.
    ActivateWindow(AppText),
    /// Send nothing; wait (briefly) until the element says it has the keyboard focus, and fail
    /// if it never does: keys are sent only where they are known to land.
    AwaitFocus,
    /// Send nothing; wait (briefly) until an open menu or popup holds the keyboard, so the keys
    /// that follow reach it; fail if none does.
    AwaitMenuKeyboard,
}

pub use crate::desktop::Key;

impl From<crate::desktop::DesktopError> for BackendError {
    fn from(e: crate::desktop::DesktopError) -> BackendError {
        use crate::desktop::DesktopError as D;
        match e {
            D::NoInput(why) => BackendError::NoInput(why),
            D::InputCut(why) => BackendError::InputCut(why),
            D::Failed(why) => BackendError::Failed(why),
        }
    }
}

/// The backend answered `false` or an error to a write. Success (`Ok`) only means the call went
/// out; only a read-back proves the effect.
pub type WriteAck = Result<bool, BackendError>;

/// What [`Backend::candidates`] found: the root read as a candidate, the candidates it
/// returns, and how many elements of the role the app found in all.
#[derive(Debug, Clone)]
pub struct Candidates {
    pub root: Node,
    pub nodes: Vec<Node>,
    pub searched: usize,
}

/// The one layer every platform implements.
#[async_trait]
pub trait Backend: Send + Sync {
    /// Short name for messages (`atspi`, `fixture`).
    fn name(&self) -> &'static str;

    /// This backend's planner: how it writes, and how results name what it sent.
    fn planner(&self) -> &'static dyn strategy::Planner;

    /// The keys and clicks this session can synthesize (what the planner may plan with), or
    /// why not. None by default.
    fn input(&self) -> strategy::InputPaths {
        strategy::InputPaths::none("this backend synthesizes no keys or clicks")
    }

    /// Why the element with this id, as last read by [`Backend::read_node`], has no bounds
    /// on screen though it has extents (its window's position is not known), where the
    /// backend can say.
    fn screen_note(&self, _id: &NodeId) -> Option<String> {
        None
    }

    /// How a write's result names one op sent here (the platform's name for it; a backend
    /// with more than one input path says which carried it).
    fn op_method(&self, op: &WriteOp) -> AppText {
        self.planner().method(op)
    }

    /// The application with this process id, when it is on the bus. Where the platform can,
    /// without describing every other app.
    async fn app_by_pid(&self, pid: u32) -> Result<Option<AppInfo>, BackendError> {
        Ok(self.apps().await?.into_iter().find(|a| a.pid == Some(pid)))
    }

    /// The toolkit of the app `id` belongs to, when known.
    async fn toolkit(&self, _id: &NodeId) -> Option<crate::model::Toolkit> {
        None
    }

    /// Why trees may be missing or tiny (`treeglass doctor`), where the platform can tell.
    async fn diagnose(&self) -> Option<crate::doctor::Report> {
        None
    }

    /// Whether this backend simulates its apps (the built-in demo, a fixture file): nothing of
    /// it is on a screen, so the UI neither frames its elements nor takes its bounds as real.
    fn is_demo(&self) -> bool {
        false
    }

    /// What this backend reads for the audit beyond the tree itself.
    fn audit_reads(&self) -> AuditReads {
        AuditReads::default()
    }

    /// Applications with their windows.
    async fn apps(&self) -> Result<Vec<AppInfo>, BackendError>;

    /// Reads the tree under `root` (a window or an app) within `limits`. A vanished node or a
    /// hung app yields an incomplete snapshot, not an error; an error means nothing could be read.
    async fn snapshot(&self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError>;

    /// Where this backend's tree reads say how far they have got, publish the tree so far and
    /// look for a cancel from now on: the front end that shows a read's progress makes it (the
    /// command line's progress line, the TUI's partial trees and Esc). A backend that reads a
    /// tree in one step has nothing to say and ignores it.
    fn report_reads(&self, _progress: std::sync::Arc<progress::ReadProgress>) {}

    /// Re-reads one element (name, states, value, actions; not its children). `Vanished` when
    /// it is gone.
    async fn read_node(&self, id: &NodeId) -> Result<Node, BackendError>;

    /// The children of `id` as freshly read nodes (for option lists of combo boxes). Empty for
    /// an element whose children must not be enumerated (it manages its descendants).
    async fn children(&self, id: &NodeId) -> Result<Vec<Node>, BackendError>;

    /// The element's index among its parent's children, as the toolkit says (`None`: this
    /// backend cannot say without listing the parent). Selecting a row of a list that manages
    /// its descendants needs it: the list is never enumerated.
    async fn index_in_parent(&self, _id: &NodeId) -> Result<Option<usize>, BackendError> {
        Ok(None)
    }

    /// The candidates of a target whose role is `role`, found under `root` by the app itself
    /// in one call where it can be asked safely: `root` and every element below it with that
    /// role, each read as a target's resolution needs it (fields, states, value; the label
    /// relation when `labels`), in document order, with no children. `None`: this backend or
    /// this app cannot narrow (read the tree instead). The set is complete or not given.
    ///
    /// With `named`, every candidate's name is read first and only those named exactly so
    /// (`Target::name_is_exactly`) are read further and returned; `searched` still counts them
    /// all. On a big page that is one call per candidate instead of three or more.
    async fn candidates(
        &self,
        _root: &NodeId,
        _role: Role,
        _labels: bool,
        _named: Option<&str>,
    ) -> Result<Option<Candidates>, BackendError> {
        Ok(None)
    }

    /// What `audit` reads beyond `snap` for the elements on screen (`on_screen`: the state
    /// that says so for this toolkit): bounds, each element's own index in its parent,
    /// relations, tables' numbering ([`crate::audit::Facts`]). `None`: this backend reads none
    /// of it, and the rules that need it are not evaluated. An app that stops answering or
    /// leaves meanwhile is an error, as in a read.
    async fn audit_facts(
        &self,
        _snap: &Snapshot,
        _on_screen: crate::model::State,
    ) -> Result<Option<crate::audit::Facts>, BackendError> {
        Ok(None)
    }

    /// Before a write to `node` (as [`Backend::read_node`] read it): where the toolkit
    /// exposes an element it has not laid out (off screen) without what a write needs (its
    /// actions, its place on screen), the backend asks the toolkit to scroll it into view and
    /// reads it again. `Some((node read again, what was sent))` when it did; `None` when
    /// nothing was needed or possible (the write then goes on, or is refused, on `node`).
    async fn bring_into_view(&self, _node: &Node) -> Option<(Node, String)> {
        None
    }

    /// The elements from `root` down to `id` (`root` first, `id` last), read as
    /// [`Backend::candidates`] reads them, with no children.
    async fn path_to(
        &self,
        _root: &NodeId,
        _id: &NodeId,
        _labels: bool,
    ) -> Result<Vec<Node>, BackendError> {
        Err(BackendError::Unsupported("paths to an element".into()))
    }

    /// Performs one primitive write. See [`WriteAck`].
    async fn write(&self, id: &NodeId, op: &WriteOp) -> WriteAck;

    /// Events from every app; receivers that lag lose the oldest events (and are told so by
    /// `RecvError::Lagged`, which callers treat as "refresh everything").
    fn subscribe(&self) -> broadcast::Receiver<Event>;
}
