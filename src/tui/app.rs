//! The TUI's state and its one place of change: `App::update(Msg) -> Vec<Effect>`. Pure: no
//! terminal and no IO. Keys, mouse, backend results and accessibility events arrive as
//! messages; anything that needs IO (reads, writes, timers, the clipboard, the recorder) leaves
//! as an effect, and its result comes back as a message. Views render from `&App`.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};

use super::input::LineInput;
use super::keys::{self, Action};
use super::layout::{self, Areas};
use super::tree::TreeState;
use crate::backend::{AppInfo, BackendError, Event, EventKind};
use crate::model::{Node, NodeId, Role, Snapshot, SnapshotId, State, Toggle, Value, sanitize};
use crate::target::{ParseError, Target};
use crate::write::{Outcome, Placement, WriteResult};

/// How long accessibility events are gathered before the tree is re-read (one read per burst).
pub const DEBOUNCE: Duration = Duration::from_millis(50);
/// How often the app list is re-read even without events (apps that start or quit).
pub const APPS_POLL: Duration = Duration::from_secs(3);
/// Events kept for the events pane.
const EVENTS_KEPT: usize = 1000;

/// A pane that can hold the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Apps,
    Tree,
    Writes,
    Events,
}

/// Timers the app asks for; each comes back as [`Msg::Timer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerId {
    /// The end of an event burst: apply what it changed.
    Debounce(u64),
    /// Re-read the app list.
    AppsPoll,
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
    /// Single nodes were re-read (after events, or for the details pane).
    NodesRead {
        results: Vec<(NodeId, Result<Node, BackendError>)>,
        details: bool,
    },
    /// A write or invoke finished.
    WriteDone {
        write: u64,
        result: Box<WriteResult>,
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
}

/// IO the app asks the runtime for.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Read the app list → [`Msg::Apps`].
    LoadApps,
    /// Read a window's tree → [`Msg::Snapshot`].
    Snapshot { root: NodeId },
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
    /// Wait, then send [`Msg::Timer`].
    Timer { id: TimerId, after: Duration },
    /// Put text on the clipboard → [`Msg::Copied`].
    Copy { what: &'static str, text: String },
    /// A write or invoke completed: the hook a workflow recorder listens to.
    WriteCompleted(Box<CompletedWrite>),
    /// Start or stop recording → [`Msg::Recording`].
    Record { start: bool },
    /// Export the recording → [`Msg::Notice`].
    Export,
}

/// A finished write or invoke with what a recorder needs to turn it into a workflow step.
#[derive(Debug, Clone)]
pub struct CompletedWrite {
    /// `set` or `invoke`.
    pub kind: WriteKind,
    /// The target written into the step: the shortest unique target when the write started
    /// (the element's token when it had none).
    pub target: String,
    /// The node as the tree held it when the write started.
    pub node: Node,
    /// The value typed, for `set`. For a secret field this is the secret itself: it is handed
    /// over once so a recorder can replace it with a sensitive input, and the TUI drops it.
    pub value: Option<String>,
    pub result: WriteResult,
    /// While recording: the tree the element was in when the write started, and its row.
    pub snapshot: Option<(Arc<Snapshot>, usize)>,
}

/// What a write was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteKind {
    Set,
    Invoke { action: Option<String> },
}

/// One write in the history, with its timeline once it finished.
#[derive(Debug, Clone)]
pub struct WriteEntry {
    pub id: u64,
    pub kind: WriteKind,
    pub node: Node,
    pub target: String,
    pub token: String,
    /// What was asked, for display (a secret shows only its length).
    pub requested: String,
    /// The raw value until the write completes (then handed to the recorder hook and dropped).
    value: Option<String>,
    snapshot: Option<(Arc<Snapshot>, usize)>,
    pub result: Option<WriteResult>,
}

/// The filter bar's uniqueness badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Badge {
    /// No filter.
    None,
    Unique,
    Many(usize),
    NoMatch,
    /// The tree was cut short: `found` nodes match what was read.
    Incomplete {
        found: usize,
    },
    /// The filter does not parse.
    Error,
}

impl Badge {
    pub fn text(self) -> String {
        match self {
            Badge::None => String::new(),
            Badge::Unique => "unique".into(),
            Badge::Many(n) => format!("{n} matches"),
            Badge::NoMatch => "no match".into(),
            Badge::Incomplete { found } => format!("incomplete tree ({found} found)"),
            Badge::Error => "syntax error".into(),
        }
    }
}

/// The filter bar.
#[derive(Debug, Default)]
pub struct Filter {
    pub input: LineInput,
    pub editing: bool,
    pub target: Option<Target>,
    pub error: Option<ParseError>,
    /// Rows in the winning tier, in row (and display) order.
    pub matches: Vec<usize>,
    pub hide: bool,
    pub badge: Option<Badge>,
    /// The row selected when `/` was pressed: typing searches from there.
    origin: Option<usize>,
}

impl Filter {
    pub fn active(&self) -> bool {
        !self.input.text.trim().is_empty()
    }

    pub fn is_match(&self, row: usize) -> bool {
        self.matches.binary_search(&row).is_ok()
    }
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

/// The set-value prompt.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub node: NodeId,
    pub row: usize,
    /// The node's line (escaped).
    pub title: String,
    pub kind: PromptKind,
    /// Said above the input: disabled element, last write unconfirmed, …
    pub warning: Option<String>,
}

#[derive(Debug, Clone)]
pub enum PromptKind {
    Text {
        input: LineInput,
        secret: bool,
    },
    Number {
        input: LineInput,
        min: Option<f64>,
        max: Option<f64>,
        step: Option<f64>,
    },
    Toggle {
        on: bool,
    },
    Options {
        options: Vec<String>,
        selected: usize,
    },
    /// Select a tab, list row or tree row.
    Select,
}

/// The `a` menu: one of the node's actions.
#[derive(Debug, Clone)]
pub struct ActionMenu {
    pub node: NodeId,
    pub actions: Vec<String>,
    pub selected: usize,
}

/// Live-update bookkeeping: what the current burst of events asks for.
#[derive(Debug, Default)]
struct Pending {
    full: bool,
    apps: bool,
    nodes: Vec<NodeId>,
    node_set: HashSet<NodeId>,
    timer: Option<u64>,
    timer_gen: u64,
    snapshot_inflight: bool,
    snapshot_again: bool,
    reads_inflight: bool,
    /// Follow-focus: the element focus moved to.
    focus: Option<NodeId>,
    /// When the app list was last re-read because of an unknown app's event.
    strangers_ms: u64,
}

/// The window whose tree is shown.
#[derive(Debug, Clone)]
pub struct Shown {
    pub app_name: String,
    pub bus_name: String,
    pub window: NodeId,
    pub title: String,
    /// The window left the app list or could not be read any more.
    pub gone: bool,
}

/// Settings passed in by the runtime.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The backend's short name (`atspi`, `fixture`).
    pub backend: String,
    /// A notice shown on a line of its own at the top (e.g. "no bus: showing the demo app").
    pub banner: Option<String>,
}

/// The whole TUI state.
#[derive(Debug)]
pub struct App {
    pub config: Config,
    pub size: (u16, u16),
    pub focus: Pane,
    pub apps: Vec<AppInfo>,
    pub apps_loaded: bool,
    /// Selected entry of the apps pane (see [`App::app_entries`]).
    pub apps_sel: usize,
    pub shown: Option<Shown>,
    pub tree: Option<TreeState>,
    pub loading: bool,
    pub tree_offset: usize,
    pub selection: Option<Selection>,
    /// The shortest unique target of the selection, cached per (snapshot, row, tree version).
    suggestion: Option<((SnapshotId, usize, u64), Option<String>)>,
    /// Bumped whenever the tree's content changes (patch or re-read).
    pub tree_version: u64,
    /// The node the details pane has read fresh (and any error reading it).
    pub details_read: Option<(NodeId, Option<String>)>,
    details_inflight: bool,
    pub filter: Filter,
    pub prompt: Option<Prompt>,
    pub copy_menu: bool,
    pub action_menu: Option<ActionMenu>,
    pub help: bool,
    pub help_scroll: u16,
    pub writes: Vec<WriteEntry>,
    /// Selected write, as an index into `writes`.
    pub writes_sel: usize,
    next_write: u64,
    /// Elements whose last write is unconfirmed: writing again needs care.
    pub unconfirmed: HashSet<NodeId>,
    pub show_events: bool,
    pub events: VecDeque<String>,
    /// Lines scrolled up from the newest event.
    pub events_scroll: usize,
    pub follow_focus: bool,
    pub recording: bool,
    pub notice: Option<String>,
    pending: Pending,
    /// The next scroll puts an off-screen selection in the middle (after jumps).
    center: bool,
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

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 60 {
            break;
        }
    }
    out.trim_end_matches('-').to_string()
}

/// A node's value as plain text for copying (`None` when it has none).
pub fn plain_value(n: &Node) -> Option<String> {
    match n.value.as_ref()? {
        Value::Text { text } => Some(text.clone()),
        Value::Number { current, .. } => Some(crate::model::format_number(*current)),
        Value::Toggle { state } => Some(
            match state {
                Toggle::On => "on",
                Toggle::Off => "off",
                Toggle::Mixed => "mixed",
            }
            .into(),
        ),
        Value::Choice { selected } => selected.clone(),
    }
}

/// The workflow step (workflow v1, semantics §5) that reproduces `node`'s current state.
pub fn workflow_step(node: &Node, target: &str) -> serde_json::Value {
    use serde_json::json;
    let name = if node.name.trim().is_empty() {
        node.role.as_str().to_string()
    } else {
        slug(&node.name)
    };
    let name = if name.is_empty() {
        node.role.as_str().to_string()
    } else {
        name
    };
    let role = node.role;
    if role.is_toggle() {
        let on = node.states.has(State::Checked)
            || matches!(node.value, Some(Value::Toggle { state: Toggle::On }));
        return json!({
            "id": format!("set-{name}"),
            "action": if on { "check" } else { "uncheck" },
            "target": target,
            "transaction": "idempotent",
        });
    }
    if role.is_choice() {
        if let Some(Value::Choice {
            selected: Some(label),
        }) = &node.value
        {
            return json!({
                "id": format!("select-{name}"),
                "action": "select",
                "target": target,
                "value": label,
                "transaction": "idempotent",
            });
        }
    }
    if role.is_selectable_item() {
        return json!({
            "id": format!("select-{name}"),
            "action": "select",
            "target": target,
            "value": "true",
            "transaction": "idempotent",
        });
    }
    if node.is_secret() {
        return json!({
            "id": format!("set-{name}"),
            "action": "type",
            "target": target,
            "text": format!("${{inputs.{}}}", name.replace('-', "_")),
            "transaction": "idempotent",
        });
    }
    if role.is_text() || role.is_numeric() || node.states.has(State::Editable) {
        let text = plain_value(node).unwrap_or_default();
        if text.is_empty() && role.is_text() {
            return json!({
                "id": format!("clear-{name}"),
                "action": "clear",
                "target": target,
                "transaction": "idempotent",
            });
        }
        return json!({
            "id": format!("set-{name}"),
            "action": "type",
            "target": target,
            "text": text,
            "transaction": "idempotent",
        });
    }
    json!({
        "id": format!("click-{name}"),
        "action": "click",
        "target": target,
        "transaction": "non_idempotent",
    })
}

impl App {
    pub fn new(config: Config, size: (u16, u16)) -> App {
        App {
            config,
            size,
            focus: Pane::Tree,
            apps: Vec::new(),
            apps_loaded: false,
            apps_sel: 0,
            shown: None,
            tree: None,
            loading: true,
            tree_offset: 0,
            selection: None,
            suggestion: None,
            tree_version: 0,
            details_read: None,
            details_inflight: false,
            filter: Filter::default(),
            prompt: None,
            copy_menu: false,
            action_menu: None,
            help: false,
            help_scroll: 0,
            writes: Vec::new(),
            writes_sel: 0,
            next_write: 1,
            unconfirmed: HashSet::new(),
            show_events: false,
            events: VecDeque::new(),
            events_scroll: 0,
            follow_focus: false,
            recording: false,
            notice: None,
            pending: Pending::default(),
            center: false,
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
        layout::compute(
            self.size.0,
            self.size.1,
            self.config.banner.is_some(),
            self.show_events,
        )
    }

    /// How many tree lines fit in the tree pane.
    pub fn tree_height(&self) -> usize {
        layout::inner(self.areas().tree).height as usize
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
        let sel = self.selection.as_ref()?;
        if sel.gone.is_some() {
            return None;
        }
        let tree = self.tree.as_ref()?;
        tree.node(sel.row).map(|n| (sel.row, n))
    }

    /// The cached shortest unique target of the selection.
    pub fn suggestion(&self) -> Option<&str> {
        self.suggestion.as_ref().and_then(|(_, s)| s.as_deref())
    }

    /// The last write's outcome, if it finished.
    pub fn last_outcome(&self) -> Option<Outcome> {
        self.writes
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
            Msg::NodesRead { results, details } => self.on_nodes(results, details, &mut fx),
            Msg::WriteDone { write, result } => self.on_write_done(write, *result, &mut fx),
            Msg::Backend(ev) => self.on_event(&ev, &mut fx),
            Msg::Lagged(n) => {
                self.log_event(format!("({n} events lost: re-reading the tree)"));
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

    /// Keeps derived state in step: scroll position, suggestion cache, the details read.
    fn after_update(&mut self, fx: &mut Vec<Effect>) {
        self.fix_scroll();
        let key = match (&self.tree, &self.selection) {
            (Some(t), Some(s)) if s.gone.is_none() => Some((t.snap.id, s.row, self.tree_version)),
            _ => None,
        };
        let stale = match (&self.suggestion, key) {
            (Some((k, _)), Some(key)) => *k != key,
            (None, Some(_)) => true,
            (_, None) => self.suggestion.is_some(),
        };
        if stale {
            self.suggestion = key.map(|k| {
                let s = self.tree.as_ref().and_then(|t| {
                    crate::target::suggest_with(&t.index, &t.snap, k.1).map(|t| t.to_string())
                });
                (k, s)
            });
        }
        // The details pane reads the selected node fresh (description, bounds, live value).
        if let Some((_, n)) = self.selected_node() {
            let id = n.id.clone();
            let done = self.details_read.as_ref().is_some_and(|(d, _)| *d == id);
            if !done && !self.details_inflight {
                self.details_inflight = true;
                fx.push(Effect::ReadNodes {
                    ids: vec![id],
                    details: true,
                });
            }
        }
    }

    // ----- keys -----

    fn on_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) {
        if self.help {
            match k.code {
                KeyCode::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                KeyCode::Down => self.help_scroll = self.help_scroll.saturating_add(1),
                KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
                KeyCode::PageDown => self.help_scroll = self.help_scroll.saturating_add(10),
                _ => {
                    if keys::action_for(&k) == Some(Action::Quit) && k.code != KeyCode::Char('q') {
                        self.quit = true;
                    }
                    self.help = false;
                }
            }
            return;
        }
        if self.copy_menu {
            self.copy_menu = false;
            let what = match k.code {
                KeyCode::Char('t') => "token",
                KeyCode::Char('g') => "target",
                KeyCode::Char('v') => "value",
                KeyCode::Char('j') => "node JSON",
                KeyCode::Char('s') => "workflow step",
                _ => return,
            };
            self.copy(what, fx);
            return;
        }
        if let Some(menu) = &mut self.action_menu {
            match k.code {
                KeyCode::Up => menu.selected = menu.selected.saturating_sub(1),
                KeyCode::Down => {
                    menu.selected = (menu.selected + 1).min(menu.actions.len().saturating_sub(1))
                }
                KeyCode::Enter => {
                    let node = menu.node.clone();
                    let action = menu.actions.get(menu.selected).cloned();
                    self.action_menu = None;
                    self.start_invoke(node, action, fx);
                }
                KeyCode::Esc | KeyCode::Char('q') => self.action_menu = None,
                _ => {}
            }
            return;
        }
        if self.prompt.is_some() {
            self.prompt_key(k, fx);
            return;
        }
        if self.filter.editing {
            self.filter_key(k);
            return;
        }
        let Some(action) = keys::action_for(&k) else {
            return;
        };
        self.main_action(action, fx);
    }

    fn main_action(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let page = self.tree_height().max(1);
        match action {
            Action::Quit => self.quit = true,
            Action::Help => {
                self.help = true;
                self.help_scroll = 0;
            }
            Action::Escape => {
                if self.filter.active() {
                    self.clear_filter();
                }
            }
            Action::Filter => {
                self.filter.editing = true;
                self.filter.origin = self.selected_node().map(|(r, _)| r);
                self.focus = Pane::Tree;
            }
            Action::NextMatch => self.jump_match(true, false),
            Action::PrevMatch => self.jump_match(false, false),
            Action::HideNonMatching => {
                self.filter.hide = !self.filter.hide;
                self.apply_hide();
                self.notice = Some(if self.filter.hide {
                    "hiding branches without matches".into()
                } else {
                    "showing every branch".into()
                });
            }
            Action::ToggleRaw => {
                if let Some(t) = &mut self.tree {
                    t.raw = !t.raw;
                    t.rebuild_lines();
                    let raw = t.raw;
                    self.relocate_selection();
                    self.notice = Some(if raw {
                        "raw tree: every node".into()
                    } else {
                        "folded tree: unnamed single-child wrappers fold into their child".into()
                    });
                }
            }
            Action::SetValue if self.focus == Pane::Apps => self.open_entry(fx),
            Action::SetValue => self.open_prompt(),
            Action::Invoke => {
                if let Some((_, n)) = self.selected_node() {
                    let id = n.id.clone();
                    self.start_invoke(id, None, fx);
                } else {
                    self.notice = Some("no element selected".into());
                }
            }
            Action::ActionMenu => {
                if let Some((_, n)) = self.selected_node() {
                    if n.actions.is_empty() {
                        self.notice = Some(format!("a {} here has no actions", n.role));
                    } else {
                        self.action_menu = Some(ActionMenu {
                            node: n.id.clone(),
                            actions: n.actions.iter().map(|a| sanitize(a, 40).into()).collect(),
                            selected: 0,
                        });
                    }
                }
            }
            Action::CopyMenu => {
                if self.selected_node().is_some() {
                    self.copy_menu = true;
                } else {
                    self.notice = Some("no element selected".into());
                }
            }
            Action::FollowFocus => {
                self.follow_focus = !self.follow_focus;
                if self.follow_focus {
                    self.notice = Some("following focus".into());
                    let focused = self.tree.as_ref().and_then(|t| {
                        t.snap
                            .nodes
                            .iter()
                            .position(|n| n.states.has(State::Focused))
                    });
                    if let Some(row) = focused {
                        self.select_row(row);
                    }
                } else {
                    self.notice = Some("not following focus".into());
                }
            }
            Action::ToggleEvents => {
                self.show_events = !self.show_events;
                if !self.show_events && self.focus == Pane::Events {
                    self.focus = Pane::Tree;
                }
            }
            Action::NextPane | Action::PrevPane => {
                let mut panes = Vec::new();
                if self.areas().apps.width > 0 {
                    panes.push(Pane::Apps);
                }
                panes.push(Pane::Tree);
                if self.areas().writes.height > 0 {
                    panes.push(Pane::Writes);
                }
                if self.show_events && self.areas().events.height > 0 {
                    panes.push(Pane::Events);
                }
                let i = panes.iter().position(|p| *p == self.focus).unwrap_or(0);
                let n = panes.len();
                let next = if action == Action::NextPane {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.focus = panes[next];
            }
            Action::Record => fx.push(Effect::Record {
                start: !self.recording,
            }),
            Action::Export => fx.push(Effect::Export),
            Action::Refresh => {
                fx.push(Effect::LoadApps);
                self.request_snapshot(fx);
                self.notice = Some("re-reading".into());
            }
            Action::CollapseAll | Action::ExpandAll => {
                if let Some(t) = &mut self.tree {
                    t.set_all_collapsed(action == Action::CollapseAll);
                    self.relocate_selection();
                }
            }
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::First
            | Action::Last
            | Action::CollapseOrParent
            | Action::ExpandOrChild
            | Action::ToggleExpand => match self.focus {
                Pane::Apps => self.apps_nav(action, fx),
                Pane::Writes => self.writes_nav(action),
                Pane::Events => self.events_nav(action),
                Pane::Tree => self.tree_nav(action, page),
            },
        }
    }

    fn apps_nav(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let entries = self.app_entries();
        let last = entries.len().saturating_sub(1);
        match action {
            Action::Up => self.apps_sel = self.apps_sel.saturating_sub(1),
            Action::Down => self.apps_sel = (self.apps_sel + 1).min(last),
            Action::First | Action::PageUp => self.apps_sel = 0,
            Action::Last | Action::PageDown => self.apps_sel = last,
            Action::ExpandOrChild | Action::ToggleExpand => self.open_entry(fx),
            _ => {}
        }
    }

    /// Shows the window of the selected apps-pane entry (an app entry picks its first window).
    fn open_entry(&mut self, fx: &mut Vec<Effect>) {
        let entries = self.app_entries();
        let Some(e) = entries.get(self.apps_sel).copied() else {
            return;
        };
        let Some(app) = self.apps.get(e.app) else {
            return;
        };
        let w = e.window.unwrap_or(0);
        let Some(win) = app.windows.get(w) else {
            self.notice = Some(format!("{} has no windows", sanitize(&app.name, 40)));
            return;
        };
        let shown = Shown {
            app_name: app.name.clone(),
            bus_name: app.bus_name.clone(),
            window: win.id.clone(),
            title: win.name.clone(),
            gone: false,
        };
        self.show_window(shown, fx);
        self.focus = Pane::Tree;
    }

    fn show_window(&mut self, shown: Shown, fx: &mut Vec<Effect>) {
        let same = self
            .shown
            .as_ref()
            .is_some_and(|s| s.window == shown.window);
        self.shown = Some(shown);
        if !same {
            self.tree = None;
            self.selection = None;
            self.tree_offset = 0;
            self.filter.matches.clear();
            self.events.clear();
            self.loading = true;
            self.pending.snapshot_inflight = false;
        }
        self.request_snapshot(fx);
    }

    fn writes_nav(&mut self, action: Action) {
        // The list shows newest first; `writes_sel` indexes `writes` (oldest first).
        let n = self.writes.len();
        if n == 0 {
            return;
        }
        match action {
            Action::Up => self.writes_sel = (self.writes_sel + 1).min(n - 1),
            Action::Down => self.writes_sel = self.writes_sel.saturating_sub(1),
            Action::First | Action::PageUp => self.writes_sel = n - 1,
            Action::Last | Action::PageDown => self.writes_sel = 0,
            _ => {}
        }
    }

    fn events_nav(&mut self, action: Action) {
        let max = self.events.len().saturating_sub(1);
        match action {
            Action::Up => self.events_scroll = (self.events_scroll + 1).min(max),
            Action::Down => self.events_scroll = self.events_scroll.saturating_sub(1),
            Action::PageUp => self.events_scroll = (self.events_scroll + 10).min(max),
            Action::PageDown => self.events_scroll = self.events_scroll.saturating_sub(10),
            Action::First => self.events_scroll = max,
            Action::Last => self.events_scroll = 0,
            _ => {}
        }
    }

    fn tree_nav(&mut self, action: Action, page: usize) {
        let Some(tree) = &self.tree else {
            return;
        };
        let n = tree.lines.len();
        if n == 0 {
            return;
        }
        let (cur, gone) = match &self.selection {
            Some(s) => (s.line.min(n - 1), s.gone.is_some()),
            None => (0, false),
        };
        // A gone element sits between lines `line - 1` and `line`.
        let target = match action {
            Action::Up => cur.saturating_sub(1),
            Action::Down => {
                if gone {
                    cur
                } else {
                    (cur + 1).min(n - 1)
                }
            }
            Action::PageUp => cur.saturating_sub(page),
            Action::PageDown => (cur + page).min(n - 1),
            Action::First => 0,
            Action::Last => n - 1,
            Action::CollapseOrParent => {
                if gone {
                    cur
                } else {
                    let row = tree.lines[cur].row;
                    if tree.has_children(row) && !tree.is_collapsed(row) {
                        if let Some(t) = &mut self.tree {
                            t.set_collapsed(row, true);
                        }
                        self.relocate_selection();
                        return;
                    }
                    // The parent line: the nearest earlier line with a smaller level.
                    let level = tree.lines[cur].level;
                    (0..cur)
                        .rev()
                        .find(|&i| tree.lines[i].level < level)
                        .unwrap_or(cur)
                }
            }
            Action::ExpandOrChild => {
                if gone {
                    cur
                } else {
                    let row = tree.lines[cur].row;
                    if tree.is_collapsed(row) {
                        if let Some(t) = &mut self.tree {
                            t.set_collapsed(row, false);
                        }
                        self.relocate_selection();
                        return;
                    }
                    let level = tree.lines[cur].level;
                    match tree.lines.get(cur + 1) {
                        Some(l) if l.level > level => cur + 1,
                        _ => cur,
                    }
                }
            }
            Action::ToggleExpand => {
                if !gone {
                    let row = tree.lines[cur].row;
                    let on = !tree.is_collapsed(row);
                    if let Some(t) = &mut self.tree {
                        t.set_collapsed(row, on);
                    }
                    self.relocate_selection();
                }
                return;
            }
            _ => cur,
        };
        self.select_line(target);
    }

    /// Selects the element on `line`.
    pub fn select_line(&mut self, line: usize) {
        let Some(tree) = &self.tree else {
            return;
        };
        let Some(l) = tree.lines.get(line.min(tree.lines.len().saturating_sub(1))) else {
            return;
        };
        let row = l.row;
        let line = line.min(tree.lines.len() - 1);
        let id = tree.snap.nodes[row].id.clone();
        self.selection = Some(Selection {
            id,
            row,
            line,
            gone: None,
        });
    }

    /// Selects `row`, expanding its ancestors so it is on a line (centred when it was off
    /// screen).
    pub fn select_row(&mut self, row: usize) {
        self.center = true;
        let Some(tree) = &mut self.tree else {
            return;
        };
        tree.reveal(row);
        let Some(line) = tree.line_of(row) else {
            return;
        };
        let Some(node) = tree.node(row) else {
            return;
        };
        // A folded wrapper shows on its child's line; select what that line shows.
        let shown_row = tree.lines[line].row;
        let id = if shown_row == row {
            node.id.clone()
        } else {
            tree.snap.nodes[shown_row].id.clone()
        };
        self.selection = Some(Selection {
            id,
            row: shown_row,
            line,
            gone: None,
        });
    }

    /// After lines changed (collapse, raw, hide): find the selection's line again.
    fn relocate_selection(&mut self) {
        let Some(tree) = &self.tree else {
            return;
        };
        let Some(sel) = &self.selection else {
            return;
        };
        if sel.gone.is_some() {
            let max = tree.lines.len();
            if let Some(s) = &mut self.selection {
                s.line = s.line.min(max);
            }
            return;
        }
        match tree.line_of(sel.row) {
            Some(line) => {
                let row = tree.lines[line].row;
                let id = tree.snap.nodes[row].id.clone();
                self.selection = Some(Selection {
                    id,
                    row,
                    line,
                    gone: None,
                });
            }
            None => {
                // Hidden under a collapsed or filtered-out ancestor: select the nearest line
                // above it.
                let i = tree.lines.partition_point(|l| l.row < sel.row);
                self.select_line(i.saturating_sub(1));
            }
        }
    }

    fn fix_scroll(&mut self) {
        let h = self.tree_height().max(1);
        let Some(tree) = &self.tree else {
            self.tree_offset = 0;
            return;
        };
        let extra = usize::from(self.selection.as_ref().is_some_and(|s| s.gone.is_some()));
        let total = tree.lines.len() + extra;
        let line = self.selection.as_ref().map_or(0, |s| s.line);
        let off_screen = line < self.tree_offset || line >= self.tree_offset + h;
        if std::mem::take(&mut self.center) && off_screen {
            self.tree_offset = line.saturating_sub(h / 2);
        } else if line < self.tree_offset {
            self.tree_offset = line;
        } else if line >= self.tree_offset + h {
            self.tree_offset = line + 1 - h;
        }
        self.tree_offset = self.tree_offset.min(total.saturating_sub(h));
    }

    // ----- filter -----

    fn filter_key(&mut self, k: KeyEvent) {
        match k.code {
            KeyCode::Enter => {
                self.filter.editing = false;
                if self.filter.active() {
                    let on_match = self
                        .selected_node()
                        .is_some_and(|(r, _)| self.filter.is_match(r));
                    if !on_match {
                        self.jump_match(true, true);
                    }
                } else {
                    self.clear_filter();
                }
            }
            KeyCode::Esc => self.clear_filter(),
            KeyCode::Down => self.jump_match(true, false),
            KeyCode::Up => self.jump_match(false, false),
            KeyCode::Tab => {}
            _ => {
                if self.filter.input.key(&k) == Some(true) {
                    self.refilter();
                    self.incsearch();
                }
            }
        }
    }

    fn clear_filter(&mut self) {
        self.filter.input = LineInput::default();
        self.filter.editing = false;
        self.refilter();
    }

    /// Re-parses the filter and recomputes matches, badge and the hidden set.
    pub fn refilter(&mut self) {
        let f = &mut self.filter;
        let text = f.input.text.trim();
        if text.is_empty() {
            f.target = None;
            f.error = None;
            f.matches.clear();
            f.badge = None;
        } else {
            match Target::parse_lenient(&f.input.text) {
                Ok(t) => {
                    f.error = None;
                    f.matches = match &self.tree {
                        Some(tree) => crate::target::matches(&tree.index, &tree.snap, &t),
                        None => Vec::new(),
                    };
                    let complete = self.tree.as_ref().is_none_or(|t| t.snap.complete());
                    f.badge = Some(if !complete {
                        Badge::Incomplete {
                            found: f.matches.len(),
                        }
                    } else {
                        match f.matches.len() {
                            0 => Badge::NoMatch,
                            1 => Badge::Unique,
                            n => Badge::Many(n),
                        }
                    });
                    f.target = Some(t);
                }
                Err(e) => {
                    f.error = Some(e);
                    f.target = None;
                    f.badge = Some(Badge::Error);
                    // Keep the previous matches visible while the user is mid-syntax.
                    return;
                }
            }
        }
        self.apply_hide();
    }

    fn apply_hide(&mut self) {
        let Some(tree) = &mut self.tree else {
            return;
        };
        let want = self.filter.hide && self.filter.active() && self.filter.error.is_none();
        if want {
            let keep = tree.keep_set(&self.filter.matches);
            tree.set_keep(Some(keep));
        } else if tree.hiding() {
            tree.set_keep(None);
        } else {
            return;
        }
        self.relocate_selection();
    }

    /// While typing: go to the first match at or after where the search started (wrapping).
    fn incsearch(&mut self) {
        let m = &self.filter.matches;
        let Some(&first) = m.first() else {
            return;
        };
        let from = self.filter.origin.unwrap_or(0);
        let next = m
            .get(m.partition_point(|&x| x < from))
            .copied()
            .unwrap_or(first);
        if self.selected_node().map(|(r, _)| r) != Some(next) {
            self.select_row(next);
        }
    }

    /// Moves to the next (or previous) match after the selection; `inclusive` accepts the
    /// selection itself.
    fn jump_match(&mut self, forward: bool, inclusive: bool) {
        let m = &self.filter.matches;
        if m.is_empty() {
            if self.filter.active() {
                self.notice = Some("no match".into());
            }
            return;
        }
        let cur = self.selected_node().map(|(r, _)| r);
        let next = match cur {
            None => m[0],
            Some(r) => {
                if forward {
                    let i = if inclusive {
                        m.partition_point(|&x| x < r)
                    } else {
                        m.partition_point(|&x| x <= r)
                    };
                    *m.get(i).unwrap_or(&m[0])
                } else {
                    let i = m.partition_point(|&x| x < r);
                    if i == 0 { m[m.len() - 1] } else { m[i - 1] }
                }
            }
        };
        let total = m.len();
        let pos = m.partition_point(|&x| x < next) + 1;
        self.select_row(next);
        if !self.filter.editing {
            self.notice = Some(format!("match {pos} of {total}"));
        }
    }

    // ----- set value -----

    fn open_prompt(&mut self) {
        let Some((row, node)) = self.selected_node() else {
            self.notice = Some("no element selected".into());
            return;
        };
        let title = crate::model::display::node_line(node);
        let mut warning = None;
        if !node.is_enabled() {
            warning = Some("this element is disabled: the write will be refused".to_string());
        } else if node.states.has(State::ReadOnly) {
            warning = Some("this element is read-only: the write will be refused".to_string());
        }
        if self.unconfirmed.contains(&node.id) {
            warning = Some(
                "the last write here was UNCONFIRMED: observe the tree before writing again".into(),
            );
        }
        let role = node.role;
        let kind = if role.is_choice() {
            let options = self.options_of(row);
            let current = match &node.value {
                Some(Value::Choice { selected: Some(s) }) => Some(s.clone()),
                _ => None,
            };
            let selected = current
                .and_then(|c| options.iter().position(|o| *o == c))
                .unwrap_or(0);
            if options.is_empty() {
                self.notice = Some("this combo box lists no options in the tree".into());
                return;
            }
            PromptKind::Options { options, selected }
        } else if role.is_toggle() || role == Role::Expander {
            let on = if role == Role::Expander {
                node.states.has(State::Expanded)
            } else {
                node.states.has(State::Checked)
                    || matches!(node.value, Some(Value::Toggle { state: Toggle::On }))
            };
            PromptKind::Toggle { on }
        } else if role.is_numeric() {
            let (cur, min, max, step) = match node.value {
                Some(Value::Number {
                    current,
                    min,
                    max,
                    step,
                }) => (current, min, max, step),
                _ => (0.0, None, None, None),
            };
            PromptKind::Number {
                input: LineInput::with(crate::model::format_number(cur)),
                min,
                max,
                step,
            }
        } else if role.is_selectable_item() {
            PromptKind::Select
        } else if node.is_editable_kind() {
            let secret = node.is_secret();
            let text = if secret {
                String::new()
            } else {
                match &node.value {
                    Some(Value::Text { text }) => text.clone(),
                    Some(v) => v.as_text().unwrap_or_default(),
                    None => String::new(),
                }
            };
            PromptKind::Text {
                input: LineInput::with(text),
                secret,
            }
        } else {
            self.notice = Some(format!(
                "a {role} does not take a value; {} runs its action",
                keys::label_of(Action::Invoke)
            ));
            return;
        };
        self.prompt = Some(Prompt {
            node: node.id.clone(),
            row,
            title,
            kind,
            warning,
        });
    }

    /// A combo box's option labels from the tree: its items, or its single menu's items.
    fn options_of(&self, row: usize) -> Vec<String> {
        let Some(tree) = &self.tree else {
            return Vec::new();
        };
        let Some(n) = tree.node(row) else {
            return Vec::new();
        };
        let mut kids = n.children.clone();
        if let [only] = kids.as_slice() {
            if tree
                .node(*only)
                .is_some_and(|m| matches!(m.role, Role::Menu | Role::List))
            {
                kids = tree
                    .node(*only)
                    .map(|m| m.children.clone())
                    .unwrap_or_default();
            }
        }
        kids.iter()
            .filter_map(|&k| tree.node(k))
            .map(|k| k.name.clone())
            .collect()
    }

    fn prompt_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) {
        let Some(p) = &mut self.prompt else {
            return;
        };
        match k.code {
            KeyCode::Esc => {
                self.prompt = None;
                return;
            }
            KeyCode::Enter => {
                let value = match &p.kind {
                    PromptKind::Text { input, .. } | PromptKind::Number { input, .. } => {
                        input.text.clone()
                    }
                    PromptKind::Toggle { on } => on.to_string(),
                    PromptKind::Options { options, selected } => {
                        options.get(*selected).cloned().unwrap_or_default()
                    }
                    PromptKind::Select => "true".into(),
                };
                let node = p.node.clone();
                let row = p.row;
                self.prompt = None;
                self.start_set(row, node, value, fx);
                return;
            }
            _ => {}
        }
        match &mut p.kind {
            PromptKind::Text { input, .. } | PromptKind::Number { input, .. } => {
                input.key(&k);
            }
            PromptKind::Toggle { on } => {
                if matches!(
                    k.code,
                    KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right | KeyCode::Tab
                ) {
                    *on = !*on;
                }
            }
            PromptKind::Options { options, selected } => match k.code {
                KeyCode::Up => *selected = selected.saturating_sub(1),
                KeyCode::Down => *selected = (*selected + 1).min(options.len().saturating_sub(1)),
                KeyCode::Home => *selected = 0,
                KeyCode::End => *selected = options.len().saturating_sub(1),
                _ => {}
            },
            PromptKind::Select => {}
        }
    }

    fn target_for(&self, row: usize) -> (String, String) {
        let Some(tree) = &self.tree else {
            return (String::new(), String::new());
        };
        let token = tree.snap.token(row).to_string();
        let target = if self.selection.as_ref().is_some_and(|s| s.row == row) {
            self.suggestion().map(str::to_string)
        } else {
            crate::target::suggest_with(&tree.index, &tree.snap, row).map(|t| t.to_string())
        };
        (target.unwrap_or_else(|| token.clone()), token)
    }

    fn start_set(&mut self, row: usize, id: NodeId, value: String, fx: &mut Vec<Effect>) {
        let Some(tree) = &self.tree else {
            return;
        };
        let Some(node) = tree.node(row).filter(|n| n.id == id).cloned() else {
            self.notice = Some("the element changed; select it again".into());
            return;
        };
        let place = Placement::of(&tree.snap, row);
        let (target, token) = self.target_for(row);
        let secret = node.is_secret();
        let requested = if secret {
            format!("(secret, {} chars)", value.chars().count())
        } else {
            crate::tui::quoted(&value, 60)
        };
        let write = self.next_write;
        self.next_write += 1;
        self.writes.push(WriteEntry {
            id: write,
            kind: WriteKind::Set,
            node: node.clone(),
            target,
            token,
            requested,
            value: Some(value.clone()),
            snapshot: self.recording.then(|| (Arc::new(tree.snap.clone()), row)),
            result: None,
        });
        self.writes_sel = self.writes.len() - 1;
        fx.push(Effect::SetValue {
            write,
            node: node.id,
            place,
            value,
        });
    }

    fn start_invoke(&mut self, id: NodeId, action: Option<String>, fx: &mut Vec<Effect>) {
        let Some(tree) = &self.tree else {
            return;
        };
        let Some(row) = tree.row_of(&id) else {
            self.notice = Some("the element is gone".into());
            return;
        };
        let Some(node) = tree.node(row).cloned() else {
            return;
        };
        let place = Placement::of(&tree.snap, row);
        let (target, token) = self.target_for(row);
        let write = self.next_write;
        self.next_write += 1;
        self.writes.push(WriteEntry {
            id: write,
            kind: WriteKind::Invoke {
                action: action.clone(),
            },
            node,
            target,
            token,
            requested: action.clone().unwrap_or_else(|| "(default action)".into()),
            value: None,
            snapshot: self.recording.then(|| (Arc::new(tree.snap.clone()), row)),
            result: None,
        });
        self.writes_sel = self.writes.len() - 1;
        fx.push(Effect::Invoke {
            write,
            node: id,
            place,
            action,
        });
    }

    fn on_write_done(&mut self, write: u64, mut result: WriteResult, fx: &mut Vec<Effect>) {
        let Some(i) = self.writes.iter().position(|w| w.id == write) else {
            return;
        };
        let entry = &mut self.writes[i];
        result.target = Some(entry.target.clone());
        result.token = Some(entry.token.clone());
        if result.outcome == Outcome::Unconfirmed {
            self.unconfirmed.insert(entry.node.id.clone());
        } else if result.dispatched {
            self.unconfirmed.remove(&entry.node.id);
        }
        entry.result = Some(result.clone());
        self.notice = Some(format!(
            "#{} {}{}",
            entry.id,
            result.outcome.as_str(),
            result
                .mismatch
                .map(|m| format!(" ({})", m.as_str()))
                .unwrap_or_default()
        ));
        fx.push(Effect::WriteCompleted(Box::new(CompletedWrite {
            kind: entry.kind.clone(),
            target: entry.target.clone(),
            node: entry.node.clone(),
            value: entry.value.take(),
            result,
            snapshot: entry.snapshot.take(),
        })));
        // Re-read the element even if the app sent no event.
        let id = entry.node.id.clone();
        self.queue_node(id);
        self.arm(fx);
    }

    // ----- copy -----

    /// The text `y` + key would copy, or why it cannot be copied.
    pub fn copy_text(&self, what: &str) -> Result<String, String> {
        let Some((row, node)) = self.selected_node() else {
            return Err("no element selected".into());
        };
        let Some(tree) = &self.tree else {
            return Err("no tree".into());
        };
        let target = self.suggestion().map(str::to_string);
        match what {
            "token" => Ok(tree.snap.token(row).to_string()),
            "target" => target.ok_or_else(|| "this element has no unique target".into()),
            "value" => {
                if node.is_secret() {
                    return Err("a password field's value is never copied".into());
                }
                plain_value(node).ok_or_else(|| "this element has no value".into())
            }
            "node JSON" => {
                let mut v = crate::cli::output::node_json(&tree.snap, row);
                v["path"] = tree.snap.path_string(row).into();
                v["target"] = target.map_or(serde_json::Value::Null, Into::into);
                v["bounds"] = serde_json::to_value(node.bounds).unwrap_or_default();
                Ok(serde_json::to_string_pretty(&v).unwrap_or_default())
            }
            "workflow step" => {
                let t = target.unwrap_or_else(|| tree.snap.token(row).to_string());
                Ok(serde_json::to_string(&workflow_step(node, &t)).unwrap_or_default())
            }
            _ => Err(format!("nothing called {what}")),
        }
    }

    fn copy(&mut self, what: &'static str, fx: &mut Vec<Effect>) {
        match self.copy_text(what) {
            Ok(text) => fx.push(Effect::Copy { what, text }),
            Err(e) => self.notice = Some(format!("cannot copy the {what}: {e}")),
        }
    }

    // ----- mouse and paste -----

    fn on_mouse(&mut self, m: MouseEvent, fx: &mut Vec<Effect>) {
        if self.help || self.prompt.is_some() || self.copy_menu || self.action_menu.is_some() {
            return;
        }
        let a = self.areas();
        let (x, y) = (m.column, m.row);
        let pane = if layout::hit(a.tree, x, y) {
            Some(Pane::Tree)
        } else if layout::hit(a.apps, x, y) {
            Some(Pane::Apps)
        } else if layout::hit(a.writes, x, y) {
            Some(Pane::Writes)
        } else if layout::hit(a.events, x, y) {
            Some(Pane::Events)
        } else {
            None
        };
        let Some(pane) = pane else {
            if layout::hit(a.filter, x, y) && matches!(m.kind, MouseEventKind::Down(_)) {
                self.filter.editing = true;
            }
            return;
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                match pane {
                    Pane::Tree => {
                        let n = self.tree.as_ref().map_or(0, |t| t.lines.len());
                        let h = self.tree_height();
                        self.tree_offset = if down {
                            (self.tree_offset + 3).min(n.saturating_sub(h))
                        } else {
                            self.tree_offset.saturating_sub(3)
                        };
                        // Keep the selection on screen, as a scrolled list does.
                        if let Some(s) = &self.selection {
                            let line = s
                                .line
                                .clamp(self.tree_offset, self.tree_offset + h.saturating_sub(1));
                            if line != s.line {
                                self.select_line(line);
                            }
                        }
                    }
                    Pane::Events => self.events_nav(if down { Action::Down } else { Action::Up }),
                    Pane::Writes => self.writes_nav(if down { Action::Down } else { Action::Up }),
                    Pane::Apps => self.apps_nav(if down { Action::Down } else { Action::Up }, fx),
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = pane;
                let inner = match pane {
                    Pane::Tree => layout::inner(a.tree),
                    Pane::Apps => layout::inner(a.apps),
                    Pane::Writes => layout::inner(a.writes),
                    Pane::Events => layout::inner(a.events),
                };
                if y < inner.y || y >= inner.y + inner.height {
                    return;
                }
                let i = (y - inner.y) as usize;
                match pane {
                    Pane::Tree => {
                        let line = self.tree_offset + i;
                        let gone_at = self
                            .selection
                            .as_ref()
                            .filter(|s| s.gone.is_some())
                            .map(|s| s.line);
                        let line = match gone_at {
                            Some(g) if line == g => return,
                            Some(g) if line > g => line - 1,
                            _ => line,
                        };
                        if self.tree.as_ref().is_some_and(|t| line < t.lines.len()) {
                            self.select_line(line);
                        }
                    }
                    Pane::Apps => {
                        let n = self.app_entries().len();
                        if i < n {
                            self.apps_sel = i;
                            self.open_entry(fx);
                        }
                    }
                    Pane::Writes => {
                        let n = self.writes.len();
                        if i < n {
                            self.writes_sel = n - 1 - i;
                        }
                    }
                    Pane::Events => {}
                }
            }
            _ => {}
        }
    }

    fn on_paste(&mut self, s: &str, _fx: &mut Vec<Effect>) {
        if let Some(p) = &mut self.prompt {
            if let PromptKind::Text { input, .. } | PromptKind::Number { input, .. } = &mut p.kind {
                input.insert_str(s);
            }
            return;
        }
        if self.filter.editing {
            let one_line: String = s.chars().map(|c| if c == '\n' { ' ' } else { c }).collect();
            self.filter.input.insert_str(&one_line);
            self.refilter();
            self.incsearch();
        }
    }

    // ----- backend results -----

    fn on_apps(&mut self, r: Result<Vec<AppInfo>, BackendError>, fx: &mut Vec<Effect>) {
        let apps = match r {
            Ok(a) => a,
            Err(e) => {
                self.notice = Some(format!("cannot list apps: {e}"));
                return;
            }
        };
        self.apps = apps;
        self.apps_loaded = true;
        let entries = self.app_entries();
        self.apps_sel = self.apps_sel.min(entries.len().saturating_sub(1));
        match &mut self.shown {
            Some(s) => {
                let still = self
                    .apps
                    .iter()
                    .any(|a| a.windows.iter().any(|w| w.id == s.window));
                if !still && !s.gone {
                    s.gone = true;
                    self.notice = Some("the window closed".into());
                }
                if let Some(w) = self
                    .apps
                    .iter()
                    .flat_map(|a| a.windows.iter())
                    .find(|w| w.id == s.window)
                {
                    s.title = w.name.clone();
                    s.gone = false;
                }
                // The list may have shifted under the cursor: keep it on the shown window.
                if self.focus != Pane::Apps {
                    let window = s.window.clone();
                    if let Some(i) = entries.iter().position(|e| {
                        e.window
                            .and_then(|w| self.apps.get(e.app)?.windows.get(w))
                            .is_some_and(|w| w.id == window)
                    }) {
                        self.apps_sel = i;
                    }
                }
            }
            None => {
                // First list: show the active window, else the first window there is.
                let windows = || {
                    self.apps.iter().enumerate().flat_map(|(ai, a)| {
                        a.windows.iter().enumerate().map(move |(wi, w)| (ai, wi, w))
                    })
                };
                let pick = windows()
                    .find(|(_, _, w)| w.states.has(State::Active))
                    .or_else(|| windows().next())
                    .map(|(ai, wi, _)| (ai, wi));
                match pick {
                    Some((ai, wi)) => {
                        self.apps_sel = entries
                            .iter()
                            .position(|e| e.app == ai && e.window == Some(wi))
                            .unwrap_or(0);
                        self.open_entry(fx);
                    }
                    None => {
                        self.loading = false;
                        self.notice = Some("no application with a window on the bus".into());
                    }
                }
            }
        }
    }

    fn request_snapshot(&mut self, fx: &mut Vec<Effect>) {
        let Some(s) = &self.shown else {
            return;
        };
        if self.pending.snapshot_inflight {
            self.pending.snapshot_again = true;
            return;
        }
        self.pending.snapshot_inflight = true;
        self.pending.full = false;
        self.pending.nodes.clear();
        self.pending.node_set.clear();
        fx.push(Effect::Snapshot {
            root: s.window.clone(),
        });
    }

    fn on_snapshot(
        &mut self,
        root: NodeId,
        result: Result<Box<Snapshot>, BackendError>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(shown) = &mut self.shown else {
            return;
        };
        if shown.window != root {
            return;
        }
        self.pending.snapshot_inflight = false;
        self.loading = false;
        match result {
            Ok(snap) => {
                shown.gone = false;
                self.install(root, *snap);
            }
            Err(BackendError::Vanished(_)) => {
                shown.gone = true;
                self.notice = Some("the window is gone".into());
                fx.push(Effect::LoadApps);
            }
            Err(e) => self.notice = Some(format!("cannot read the window: {e}")),
        }
        if self.pending.snapshot_again {
            self.pending.snapshot_again = false;
            self.request_snapshot(fx);
        }
    }

    /// Replaces the tree with a fresh read, keeping folding, collapse, the filter and the
    /// selection (by identity; a vanished element is shown as gone).
    fn install(&mut self, root: NodeId, snap: Snapshot) {
        let (raw, collapsed) = match self.tree.take() {
            Some(old) => {
                // Keep the old tree only long enough to describe a vanished selection.
                let gone = match &self.selection {
                    Some(sel) if sel.gone.is_none() && snap.row_of(&sel.id).is_none() => {
                        old.node(sel.row).map(|n| {
                            Box::new(Gone {
                                node: n.clone(),
                                path: crate::tui::path(&old.snap, sel.row),
                                token: old.snap.token(sel.row).to_string(),
                                missing_in: snap.id,
                            })
                        })
                    }
                    _ => None,
                };
                if let (Some(g), Some(sel)) = (gone, &mut self.selection) {
                    sel.gone = Some(g);
                }
                (old.raw, old.collapsed)
            }
            None => (false, HashSet::new()),
        };
        let tree = TreeState::new(root, snap, raw, collapsed);
        self.tree = Some(tree);
        self.tree_version += 1;
        self.details_read = None;
        self.refilter();
        // Find the selection again.
        match self.selection.clone() {
            None => {
                self.select_line(0);
            }
            Some(sel) => {
                let row = self.tree.as_ref().and_then(|t| t.row_of(&sel.id));
                match row {
                    Some(r) => {
                        self.select_row(r);
                    }
                    None => {
                        // Gone (described above from the old tree): keep its position.
                        let n = self.tree.as_ref().map_or(0, |t| t.lines.len());
                        if let Some(s) = &mut self.selection {
                            s.line = sel.line.min(n);
                        }
                    }
                }
            }
        }
        self.apply_focus();
    }

    fn on_nodes(
        &mut self,
        results: Vec<(NodeId, Result<Node, BackendError>)>,
        details: bool,
        fx: &mut Vec<Effect>,
    ) {
        if details {
            self.details_inflight = false;
        } else {
            self.pending.reads_inflight = false;
        }
        let mut refilter = false;
        let mut changed = false;
        for (id, r) in results {
            match r {
                Ok(node) => {
                    if let Some(t) = &mut self.tree {
                        if let Some(row) = t.row_of(&id) {
                            let e = t.patch(row, node);
                            refilter |= e.matchable;
                            changed |= e.visible;
                        }
                    }
                    if details {
                        self.details_read = Some((id, None));
                    }
                }
                Err(e) => {
                    if matches!(e, BackendError::Vanished(_)) {
                        // It left the tree: the structure changed.
                        self.pending.full = true;
                    }
                    if details {
                        self.details_read = Some((id, Some(e.to_string())));
                    }
                }
            }
        }
        if changed {
            self.tree_version += 1;
        }
        if refilter && self.filter.active() {
            self.refilter();
        }
        self.apply_focus();
        if self.pending.full || !self.pending.nodes.is_empty() {
            self.arm(fx);
        }
    }

    // ----- live updates -----

    fn app_matches(&self, ev: &Event) -> bool {
        self.shown
            .as_ref()
            .is_some_and(|s| ev.app == s.bus_name || ev.app == s.app_name)
    }

    fn log_event(&mut self, line: String) {
        if self.events.len() >= EVENTS_KEPT {
            self.events.pop_front();
        }
        self.events.push_back(line);
    }

    fn queue_node(&mut self, id: NodeId) {
        if self.pending.node_set.insert(id.clone()) {
            self.pending.nodes.push(id);
        }
    }

    fn on_event(&mut self, ev: &Event, fx: &mut Vec<Effect>) {
        let known_app = self
            .apps
            .iter()
            .any(|a| ev.app == a.bus_name || ev.app == a.name);
        let lifecycle = matches!(
            ev.kind,
            EventKind::AppAdded
                | EventKind::AppRemoved
                | EventKind::WindowOpened
                | EventKind::WindowClosed
        );
        // An event from an app the list does not have: it may have just started. Re-list at
        // most once a second for those (some bus clients never show up in the list).
        let stranger =
            !known_app && self.apps_loaded && self.clock_ms >= self.pending.strangers_ms + 1000;
        if lifecycle || stranger {
            if stranger {
                self.pending.strangers_ms = self.clock_ms;
            }
            self.pending.apps = true;
        }
        if !self.app_matches(ev) {
            if self.pending.apps {
                self.arm(fx);
            }
            return;
        }
        let row = self.tree.as_ref().and_then(|t| t.row_of(&ev.source));
        let is_root = self.shown.as_ref().is_some_and(|s| s.window == ev.source);
        if row.is_some() || is_root {
            let who = match (row, &self.tree) {
                (Some(r), Some(t)) => t
                    .node(r)
                    .map(|n| {
                        if n.name.is_empty() {
                            n.role.to_string()
                        } else {
                            format!("{} {}", n.role, crate::tui::quoted(&n.name, 30))
                        }
                    })
                    .unwrap_or_default(),
                _ => sanitize(&ev.source.0, 60).into_owned(),
            };
            let at = self.clock_ms;
            self.log_event(format!(
                "{:>6}.{:03}s {} · {}",
                at / 1000,
                at % 1000,
                ev.summary(),
                who
            ));
        }
        let focus_event = matches!(ev.kind, EventKind::Focus)
            || matches!(&ev.kind, EventKind::StateChanged { state, on: true } if state == "focused");
        if focus_event && self.follow_focus {
            self.pending.focus = Some(ev.source.clone());
        }
        match &ev.kind {
            EventKind::ChildAdded { .. } | EventKind::ChildRemoved { .. } => {
                if row.is_some() || is_root {
                    self.pending.full = true;
                }
            }
            EventKind::WindowClosed if is_root => self.pending.full = true,
            EventKind::AppAdded | EventKind::AppRemoved | EventKind::WindowOpened => {}
            _ => {
                if row.is_some() {
                    self.queue_node(ev.source.clone());
                } else if focus_event && self.follow_focus {
                    // Focus moved to an element the tree does not hold yet.
                    self.pending.full = true;
                }
            }
        }
        if self.pending.full
            || self.pending.apps
            || !self.pending.nodes.is_empty()
            || self.pending.focus.is_some()
        {
            self.arm(fx);
        }
    }

    /// Starts the debounce timer unless one is running.
    fn arm(&mut self, fx: &mut Vec<Effect>) {
        if self.pending.timer.is_some() {
            return;
        }
        self.pending.timer_gen += 1;
        let g = self.pending.timer_gen;
        self.pending.timer = Some(g);
        fx.push(Effect::Timer {
            id: TimerId::Debounce(g),
            after: DEBOUNCE,
        });
    }

    fn on_timer(&mut self, id: TimerId, fx: &mut Vec<Effect>) {
        match id {
            TimerId::AppsPoll => {
                fx.push(Effect::LoadApps);
                fx.push(Effect::Timer {
                    id: TimerId::AppsPoll,
                    after: APPS_POLL,
                });
            }
            TimerId::Debounce(g) => {
                if self.pending.timer != Some(g) {
                    return;
                }
                self.pending.timer = None;
                self.flush(fx);
            }
        }
    }

    /// Applies what the burst asked for: the app list, a full re-read or single-node reads.
    pub fn flush(&mut self, fx: &mut Vec<Effect>) {
        if std::mem::take(&mut self.pending.apps) {
            fx.push(Effect::LoadApps);
        }
        if self.pending.full {
            self.request_snapshot(fx);
            return;
        }
        if !self.pending.nodes.is_empty() {
            if self.pending.reads_inflight {
                self.arm(fx);
                return;
            }
            self.pending.reads_inflight = true;
            self.pending.node_set.clear();
            fx.push(Effect::ReadNodes {
                ids: std::mem::take(&mut self.pending.nodes),
                details: false,
            });
        } else {
            self.apply_focus();
        }
    }

    /// Follow-focus: select the element focus moved to, once the tree holds it.
    fn apply_focus(&mut self) {
        if !self.follow_focus {
            self.pending.focus = None;
            return;
        }
        let Some(id) = self.pending.focus.clone() else {
            return;
        };
        if let Some(row) = self.tree.as_ref().and_then(|t| t.row_of(&id)) {
            self.pending.focus = None;
            self.select_row(row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Interfaces, States};

    fn node(role: Role, name: &str, value: Option<Value>) -> Node {
        let mut n = Node::new(NodeId("x".into()), role, "x");
        n.name = name.into();
        n.value = value;
        n.states = States::EMPTY.with(State::Enabled).with(State::Editable);
        n.interfaces = Interfaces::EMPTY;
        n
    }

    #[test]
    fn workflow_steps_follow_the_mapping() {
        let t = node(
            Role::Text,
            "Full name",
            Some(Value::Text {
                text: "Grace".into(),
            }),
        );
        assert_eq!(
            workflow_step(&t, "text \"Full name\""),
            serde_json::json!({"id":"set-full-name","action":"type","target":"text \"Full name\"",
                "text":"Grace","transaction":"idempotent"})
        );
        let p = node(
            Role::PasswordText,
            "Password",
            Some(Value::Text {
                text: "●●".into()
            }),
        );
        let s = workflow_step(&p, "password-text");
        assert_eq!(s["text"], "${inputs.password}");
        let mut c = node(Role::CheckBox, "Subscribe", None);
        c.states.set(State::Checked, true);
        assert_eq!(workflow_step(&c, "t")["action"], "check");
        let mut b = node(Role::Button, "Save", None);
        b.states = States::EMPTY.with(State::Enabled);
        let s = workflow_step(&b, "button \"Save\"");
        assert_eq!(s["action"], "click");
        assert_eq!(s["transaction"], "non_idempotent");
        assert_eq!(slug("Open recent…"), "open-recent");
    }

    #[test]
    fn badges_read_well() {
        assert_eq!(Badge::Many(3).text(), "3 matches");
        assert_eq!(
            Badge::Incomplete { found: 1 }.text(),
            "incomplete tree (1 found)"
        );
    }
}
