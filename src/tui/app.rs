//! The TUI's state and its one place of change: `App::update(Msg) -> Vec<Effect>`. Pure: no
//! terminal and no IO. Keys, mouse, backend results and accessibility events arrive as
//! messages; anything that needs IO (reads, writes, timers, the clipboard, the recorder, the
//! on-screen highlight) leaves as an effect, and its result comes back as a message. Views
//! render from `&App`.
//!
//! The update is split by concern over sibling modules, each an `impl App` block: `control`
//! (keys and mouse), `nav` (selection and scrolling), `filter`, `writes`, `live` (reads and
//! events), `findings` (the accessibility checks on the shown tree) and `highlight`; each pane
//! (`pane/`) and each overlay (`overlay/`) is a unit of its own.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyEvent, KeyEventKind, MouseEvent};

pub use super::filter::{Badge, Filter};
use super::highlight::Highlight;
use super::layout::{self, Areas};
use super::live::Pending;
pub use super::overlay::Mode;
pub use super::overlay::actions::ActionMenu;
pub use super::overlay::copy::CopyKind;
pub use super::overlay::prompt::{Prompt, PromptKind};
use super::tree::TreeState;
pub use super::writes::{CompletedWrite, WriteEntry, WriteKind};
use crate::backend::{AppInfo, BackendError, Event};
use crate::model::{AppText, Bounds, Node, NodeId, Snapshot, SnapshotId};
use crate::write::{Outcome, Placement, WriteResult};

/// How long accessibility events are gathered before the tree is re-read (one read per burst).
pub const DEBOUNCE: Duration = Duration::from_millis(50);
/// How often the app list is re-read even without events (apps that start or quit).
pub const APPS_POLL: Duration = Duration::from_secs(3);
/// Events kept for the events pane.
pub(super) const EVENTS_KEPT: usize = 1000;

pub use super::pane::Pane;
use super::pane::Panes;

/// Timers the app asks for; each comes back as [`Msg::Timer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerId {
    /// The end of an event burst: apply what it changed.
    Debounce(u64),
    /// Re-read the app list.
    AppsPoll,
    /// The end of the brief on-screen highlight after a selection change.
    HighlightFlash(u64),
    /// A big tree has been quiet long enough to be judged again (`findings::AUDIT_WAIT`).
    Audit,
}

/// Everything that can change the app.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// The app list was read.
    Apps(Result<Vec<AppInfo>, BackendError>),
    /// A window's tree was read.
    Snapshot {
        root: NodeId,
        result: Result<Box<Snapshot>, BackendError>,
    },
    /// What a read still running has placed so far (`Truncation::Reading`).
    Partial {
        root: NodeId,
        snap: Box<Snapshot>,
    },
    /// The platform's diagnosis, when the app list is empty or a window's tree tiny.
    Diagnosed(Option<Box<crate::doctor::Report>>),
    /// Single nodes were re-read (after events, or for the details pane).
    NodesRead {
        results: Vec<(NodeId, Result<Node, BackendError>)>,
        details: bool,
        /// For the details pane's read: why its element has no place on screen (read, but
        /// no bounds the screen knows), when the backend can say.
        unplaced: Option<String>,
    },
    /// A write or invoke finished.
    WriteDone {
        write: u64,
        result: Box<WriteResult>,
    },
    /// The change set of a write that is not verified, and its advice ending with the
    /// likeliest landing place.
    Landed {
        write: u64,
        landed: Option<Box<crate::write::landed::Landed>>,
        advice: String,
    },
    /// An accessibility event from the backend.
    Backend(Box<Event>),
    /// The event stream lost this many events: the tree must be re-read.
    Lagged(u64),
    Timer(TimerId),
    /// The clipboard effect finished (`Ok` says how it was copied).
    Copied(Result<String, String>),
    /// The recorder started or stopped (or could not).
    Recording {
        on: bool,
        message: String,
    },
    /// A one-line message for the status line.
    Notice(String),
    /// What the rules need beyond the tree, read on `snap` (`None`: this backend reads none).
    AuditFacts {
        snap: Arc<Snapshot>,
        result: Result<Option<crate::audit::Facts>, BackendError>,
    },
}

/// IO the app asks the runtime for.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Read the app list → [`Msg::Apps`].
    LoadApps,
    /// Read a window's tree → [`Msg::Snapshot`].
    Snapshot { root: NodeId },
    /// Run the platform's diagnosis (`treeglass doctor`) → [`Msg::Diagnosed`].
    Diagnose,
    /// Re-read single nodes → [`Msg::NodesRead`].
    ReadNodes { ids: Vec<NodeId>, details: bool },
    /// `write::set_value` → [`Msg::WriteDone`].
    SetValue {
        write: u64,
        node: NodeId,
        place: Placement,
        value: String,
    },
    /// `write::invoke` → [`Msg::WriteDone`].
    Invoke {
        write: u64,
        node: NodeId,
        place: Placement,
        action: Option<String>,
    },
    /// `write::landed::after_write` for a write that is not verified → [`Msg::Landed`].
    Landed {
        write: u64,
        node: NodeId,
        result: Box<WriteResult>,
        before: Box<BeforeWrite>,
        /// The text asked for (not for a secret).
        typed: Option<String>,
    },
    /// Wait, then send [`Msg::Timer`].
    Timer { id: TimerId, after: Duration },
    /// Put text on the clipboard → [`Msg::Copied`].
    Copy { what: CopyKind, text: String },
    /// A write or invoke completed: the hook a workflow recorder listens to.
    WriteCompleted(Box<CompletedWrite>),
    /// Start or stop recording → [`Msg::Recording`].
    Record { start: bool },
    /// Export the recording → [`Msg::Notice`].
    Export,
    /// Draw the on-screen frame around these screen bounds, or take it away (`None`).
    Highlight(Option<Bounds>),
    /// Stop the tree read in progress; it ends with what it has (→ [`Msg::Snapshot`]).
    CancelRead,
    /// Read what the accessibility rules need beyond a whole tree (bounds, indexes,
    /// relations, tables) → [`Msg::AuditFacts`].
    AuditFacts {
        snap: Arc<Snapshot>,
        on_screen: crate::model::State,
    },
}

/// What a write's change set compares with (`write::landed`): the shown window's tree when
/// the write started, and its app as listed.
#[derive(Debug, Clone)]
pub struct BeforeWrite {
    pub app: Option<AppInfo>,
    pub root: NodeId,
    pub snap: Arc<Snapshot>,
    /// A secret is being written: the change set shows no values.
    pub secret: bool,
}

/// The selected element, followed by identity across re-reads.
#[derive(Debug, Clone)]
pub struct Selection {
    pub id: NodeId,
    pub row: usize,
    /// The line it is shown on (for a gone element: where it was).
    pub line: usize,
    /// Set when the element vanished: what it was.
    pub gone: Option<Box<Gone>>,
}

/// An element that disappeared while selected.
#[derive(Debug, Clone)]
pub struct Gone {
    pub node: Node,
    pub path: String,
    pub token: String,
    /// The snapshot that no longer holds it.
    pub missing_in: SnapshotId,
}

/// The window whose tree is shown.
#[derive(Debug, Clone)]
pub struct Shown {
    pub app_name: AppText,
    pub bus_name: String,
    pub window: NodeId,
    pub title: AppText,
    /// The window left the app list or could not be read any more.
    pub gone: bool,
    /// Its application exited or dropped its accessibility connection.
    pub exited: bool,
    /// Since when (`App::clock_ms`) its application owns its bus name yet answers nothing
    /// (busy or hung): the last tree stays on screen, greyed, and the app list's poll retries.
    pub silent_since: Option<u64>,
}

/// Settings passed in by the runtime.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The backend's short name, for the status line.
    pub backend: String,
    /// What the backend reads for the audit beyond the tree.
    pub audit_reads: crate::backend::AuditReads,
    /// A notice shown on a line of its own at the top (e.g. "no bus: showing the demo app").
    pub banner: Option<String>,
    /// The window to open first (`--app`, `--pid`, `--window`), or why none matched. `None`:
    /// the active window, else the first there is.
    pub open: Option<Result<OpenAt, String>>,
    /// The on-screen highlight: the screen's size where it works, or why it cannot. `None`:
    /// not offered (headless tests).
    pub highlight: Option<Result<(u32, u32), String>>,
}

/// The window the inspector opens on, as `app::pick` chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAt {
    /// The app's bus name.
    pub bus_name: String,
    /// The window, or the app itself when it has several windows and none was named.
    pub root: NodeId,
}

/// The window shown and the tree pane's view of it.
#[derive(Debug, Default)]
pub struct TreeView {
    pub shown: Option<Shown>,
    pub tree: Option<TreeState>,
    /// A tree read is under way (the first one from the start).
    pub loading: bool,
    /// Nodes read so far by a tree read in flight (set by the runtime while one runs), for the
    /// progress line.
    pub read_progress: Option<usize>,
    /// The first line the tree pane shows.
    pub offset: usize,
    pub selection: Option<Selection>,
    /// The shortest unique target of the selection, cached per (snapshot, row, tree version).
    pub(super) suggestion: Option<((SnapshotId, usize, u64), Option<String>)>,
    /// Bumped whenever the tree's content changes (patch or re-read).
    pub version: u64,
}

/// The whole TUI state.
#[derive(Debug)]
pub struct App {
    pub config: Config,
    pub size: (u16, u16),
    pub focus: Pane,
    /// Each pane's own state (`pane/`).
    pub panes: Panes,
    pub apps: Vec<AppInfo>,
    pub apps_loaded: bool,
    /// The window shown, its tree and where the view of it is (`nav.rs`, `live.rs`).
    pub view: TreeView,
    /// The accessibility checks on the shown tree and what they need (`findings.rs`).
    pub audit: super::findings::Audit,
    /// The platform's diagnosis, asked for when the app list is empty or a window's tree has
    /// at most `doctor::TINY_TREE` nodes; and what it was asked for (the window, or no apps).
    pub diagnosis: Option<Box<crate::doctor::Report>>,
    pub(super) diagnosis_for: Option<Option<NodeId>>,
    pub filter: Filter,
    /// The overlay that takes the keys, if any.
    pub mode: Mode,
    /// Why the window asked for on the command line could not be opened.
    pub open_error: Option<String>,
    /// The writes made from the TUI and what they came to (`writes.rs`).
    pub writes: super::writes::Writes,
    /// The tree kept to compare with (`m`, `D`).
    pub mark: Option<super::overlay::changes::Mark>,
    pub follow_focus: bool,
    pub recording: bool,
    pub notice: Option<String>,
    pub(super) pending: Pending,
    /// The on-screen highlight of the selection.
    pub highlight: Highlight,
    pub quit: bool,
    /// Milliseconds since start, for event times (set by the runtime; tests leave it 0).
    pub clock_ms: u64,
}

/// One entry of the apps pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppEntry {
    pub app: usize,
    pub window: Option<usize>,
}

impl App {
    pub fn new(config: Config, size: (u16, u16)) -> App {
        App {
            config,
            size,
            focus: Pane::Tree,
            panes: Panes::default(),
            apps: Vec::new(),
            apps_loaded: false,
            view: TreeView {
                loading: true,
                ..TreeView::default()
            },
            audit: Default::default(),
            diagnosis: None,
            diagnosis_for: None,
            filter: Filter::default(),
            mode: Mode::Normal,
            open_error: None,
            writes: Default::default(),
            mark: None,
            follow_focus: false,
            recording: false,
            notice: None,
            pending: Pending::default(),
            highlight: Highlight::default(),
            quit: false,
            clock_ms: 0,
        }
    }

    /// The effects to run at start: read the app list (the first window follows) and poll it.
    pub fn init(&mut self) -> Vec<Effect> {
        vec![
            Effect::LoadApps,
            Effect::Timer {
                id: TimerId::AppsPoll,
                after: APPS_POLL,
            },
        ]
    }

    /// The screen areas for the current size.
    pub fn areas(&self) -> Areas {
        let shown: Vec<(Pane, layout::Place)> = Pane::ALL
            .iter()
            .map(|&p| (p, p.unit()))
            .filter(|(_, u)| u.shown(self))
            .map(|(p, u)| (p, u.place()))
            .collect();
        layout::compute(
            self.size.0,
            self.size.1,
            self.config.banner.is_some(),
            &shown,
        )
    }

    /// How many tree lines fit in the tree pane.
    pub fn tree_height(&self) -> usize {
        layout::inner(self.areas().of(Pane::Tree)).height as usize
    }

    /// The apps pane's entries: each app, then its windows.
    pub fn app_entries(&self) -> Vec<AppEntry> {
        let mut out = Vec::new();
        for (i, a) in self.apps.iter().enumerate() {
            out.push(AppEntry {
                app: i,
                window: None,
            });
            for w in 0..a.windows.len() {
                out.push(AppEntry {
                    app: i,
                    window: Some(w),
                });
            }
        }
        out
    }

    /// The selected node (not when it is gone).
    pub fn selected_node(&self) -> Option<(usize, &Node)> {
        let sel = self.view.selection.as_ref()?;
        if sel.gone.is_some() {
            return None;
        }
        let tree = self.view.tree.as_ref()?;
        tree.node(sel.row).map(|n| (sel.row, n))
    }

    /// The cached shortest unique target of the selection.
    pub fn suggestion(&self) -> Option<&str> {
        self.view
            .suggestion
            .as_ref()
            .and_then(|(_, s)| s.as_deref())
    }

    /// The open set-value prompt.
    pub fn prompt(&self) -> Option<&Prompt> {
        match &self.mode {
            Mode::Prompt(p) => Some(p),
            _ => None,
        }
    }

    /// The open action menu.
    pub fn action_menu(&self) -> Option<&ActionMenu> {
        match &self.mode {
            Mode::Actions(m) => Some(m),
            _ => None,
        }
    }

    /// Whether the filter bar takes the keys.
    pub fn filter_editing(&self) -> bool {
        matches!(self.mode, Mode::Filter(_))
    }

    /// The last write's outcome, if it finished.
    pub fn last_outcome(&self) -> Option<Outcome> {
        self.writes
            .entries
            .last()
            .and_then(|w| w.result.as_ref())
            .map(|r| r.outcome)
    }

    /// Handles one message; returns the IO to run.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut fx = Vec::new();
        match msg {
            Msg::Key(k) => {
                if k.kind != KeyEventKind::Release {
                    self.notice = None;
                    self.on_key(k, &mut fx);
                }
            }
            Msg::Mouse(m) => self.on_mouse(m, &mut fx),
            Msg::Paste(s) => self.on_paste(&s, &mut fx),
            Msg::Resize(w, h) => self.size = (w, h),
            Msg::Apps(r) => self.on_apps(r, &mut fx),
            Msg::Snapshot { root, result } => self.on_snapshot(root, result, &mut fx),
            Msg::Partial { root, snap } => self.on_partial(root, *snap),
            Msg::NodesRead {
                results,
                details,
                unplaced,
            } => {
                if details {
                    self.highlight.unplaced = unplaced;
                }
                self.on_nodes(results, details, &mut fx)
            }
            Msg::Diagnosed(report) => self.diagnosis = report,
            Msg::AuditFacts { snap, result } => self.on_audit_facts(&snap, result, &mut fx),
            Msg::WriteDone { write, result } => self.on_write_done(write, *result, &mut fx),
            Msg::Landed {
                write,
                landed,
                advice,
            } => self.on_landed(write, landed.map(|l| *l), advice),
            Msg::Backend(ev) => self.on_event(&ev, &mut fx),
            Msg::Lagged(n) => {
                self.log_event(format!(
                    "({} lost: re-reading the tree)",
                    crate::model::display::counted(n as usize, "event", "events")
                ));
                self.pending.full = true;
                self.pending.apps = true;
                self.arm(&mut fx);
            }
            Msg::Timer(id) => self.on_timer(id, &mut fx),
            Msg::Copied(r) => {
                self.notice = Some(match r {
                    Ok(s) => s,
                    Err(e) => format!("copy failed: {e}"),
                })
            }
            Msg::Recording { on, message } => {
                self.recording = on;
                self.notice = Some(message);
            }
            Msg::Notice(s) => self.notice = Some(s),
        }
        self.after_update(&mut fx);
        fx
    }

    /// Keeps derived state in step: scroll position, suggestion cache, the findings, the
    /// details read.
    fn after_update(&mut self, fx: &mut Vec<Effect>) {
        self.fix_scroll();
        self.sync_findings(fx);
        let key = match (&self.view.tree, &self.view.selection) {
            (Some(t), Some(s)) if s.gone.is_none() => Some((t.snap.id, s.row, self.view.version)),
            _ => None,
        };
        let stale = match (&self.view.suggestion, key) {
            (Some((k, _)), Some(key)) => *k != key,
            (None, Some(_)) => true,
            (_, None) => self.view.suggestion.is_some(),
        };
        if stale {
            self.view.suggestion = key.map(|k| {
                let s = self.view.tree.as_ref().and_then(|t| {
                    crate::selector::suggest_with(&t.index, &t.snap, k.1).map(|t| t.to_string())
                });
                (k, s)
            });
        }
        // The details pane reads the selected node fresh (description, bounds, live value).
        if let Some((_, n)) = self.selected_node() {
            let id = n.id.clone();
            let done = self
                .panes
                .details
                .read
                .as_ref()
                .is_some_and(|(d, _)| *d == id);
            if !done && !self.panes.details.inflight {
                self.panes.details.inflight = true;
                fx.push(Effect::ReadNodes {
                    ids: vec![id],
                    details: true,
                });
            }
        }
        self.sync_highlight(fx);
    }
}
