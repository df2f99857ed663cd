//! macOS Accessibility IO: the platform calls of the AX [`Worker`] over the `accessibility`
//! crate (0.2) and the CoreFoundation types it returns; the [`ThreadBackend`] runs them as the
//! [`Backend`](crate::backend::Backend).
//!
//! **Unverified on real systems.** This module is written against the crates' sources
//! (`accessibility-0.2.0`: `ui_element.rs`, `attribute.rs`, `lib.rs`; `core-foundation-0.10.1`:
//! `base.rs`, `array.rs`, `boolean.rs`, `number.rs`, `string.rs`) but has never been compiled
//! or run on macOS; everything it decides is in the pure [`map`] module, tested everywhere.
//!
//! What the safe API allows, and so what this module does:
//! - Attributes are read one call at a time. `AXUIElementCopyMultipleAttributeValues` (batched
//!   reads) exists only in `accessibility-sys` as an `unsafe` FFI function, and the crate
//!   forbids `unsafe`; attributes are fetched by role so an element costs 8–14 calls.
//! - There are no AX observers: `AXObserverCreate` needs an `extern "C"` callback and a run
//!   loop source, both `unsafe` through `accessibility-sys`. Instead the thread polls the apps
//!   it has read (focused element, window titles) and turns changes into events.
//! - Bounds are not read: `AXPosition`/`AXSize` are `AXValueRef`s that need `AXValueGetValue`.
//! - No keyboard input: the keyboard fallback (`SelectAllText`, `TypeText`) is unsupported.
//!
//! Threading: the worker's thread owns every `AXUIElement` (they are not `Send`); requests
//! reach it over the [`ThreadBackend`]'s channel and only model data comes back. AX calls are
//! synchronous IPC with a messaging timeout (set on the system-wide element), so a hung app
//! costs one timeout and the read is marked [`Truncation::Timeout`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

use accessibility::{AXAttribute, AXUIElement, AXUIElementAttributes, Error as AxError};
use core_foundation::base::{CFType, TCFType};
use core_foundation::boolean::CFBoolean;
use core_foundation::number::CFNumber;
use core_foundation::string::CFString;
use tokio::sync::broadcast;

use super::calls;
use super::map::{self, AxElement, AxValue, ErrorKind};
use crate::backend::record::layout;
use crate::backend::strategy::{MAX_STEPS, Planner, option_rows, step_done, steps_to};
use crate::backend::worker::{Registry, ThreadBackend, Worker};
use crate::backend::{
    AppInfo, BackendError, Event, EventKind, Limits, WindowInfo, WriteAck, WriteOp,
};
use crate::model::{AppText, Node, NodeId, Role, Snapshot, SnapshotId, Truncation, Value};

/// How often the thread polls the apps it has read for focus and window changes.
const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Apps polled for changes; the oldest stops being polled past this many.
const WATCHED_APPS: usize = 4;

/// How long to wait for a pop-up's menu to appear after opening it.
const MENU_WAIT: Duration = Duration::from_secs(1);

/// The macOS Accessibility backend: a handle to the thread that owns all AX elements.
pub type AxBackend = ThreadBackend<AxWorker>;

impl ThreadBackend<AxWorker> {
    /// Starts the AX thread and checks that this process may use the Accessibility API.
    pub async fn connect(timeout: Duration) -> Result<AxBackend, BackendError> {
        ThreadBackend::start(timeout, AxWorker::start).await
    }
}

/// A failed call (`call`, named by [`calls`]: `AXUIElementCopyAttributeValue(kAXChildren)`) as
/// a backend error that names it, its `AXError` and who refused.
fn err(e: AxError, call: &str) -> BackendError {
    match e {
        AxError::Ax(code) => calls::error(call, code),
        other => BackendError::Failed(format!("{call} failed: {other}")),
    }
}

/// `AXRole`, the attribute whose failure fails an element's read.
fn role_call() -> String {
    calls::copy_attribute("AXRole")
}

/// Whether app `pid` answers a cheap call on its application element (its role) within the
/// messaging timeout: what tells a hung app from one silent element.
fn app_answers(pid: i32) -> bool {
    AXUIElement::application(pid).role().is_ok()
}

/// An attribute the crate has no accessor for.
fn attr(name: &str) -> AXAttribute<CFType> {
    AXAttribute::new(&CFString::new(name))
}

fn cf_bool(v: &CFType) -> Option<bool> {
    v.downcast::<CFBoolean>().map(bool::from).or_else(|| {
        v.downcast::<CFNumber>()
            .and_then(|n| n.to_i64())
            .map(|n| n != 0)
    })
}

fn cf_f64(v: &CFType) -> Option<f64> {
    v.downcast::<CFNumber>().and_then(|n| n.to_f64())
}

fn cf_string(v: &CFType) -> Option<String> {
    v.downcast::<CFString>().map(|s| s.to_string())
}

/// An `AXValue` as the mapping sees it (other CF types are left out).
fn ax_value(v: &CFType) -> Option<AxValue> {
    if let Some(b) = v.downcast::<CFBoolean>() {
        return Some(AxValue::Bool(bool::from(b)));
    }
    if let Some(n) = cf_f64(v) {
        return Some(AxValue::Number(n));
    }
    cf_string(v).map(AxValue::Text)
}

/// An element the session has read, by id.
struct Entry {
    el: AXUIElement,
    pid: i32,
    path: String,
}

/// An app polled for changes.
struct Watch {
    pid: i32,
    app: AXUIElement,
    focused: Option<AXUIElement>,
    windows: Vec<String>,
}

/// Caps and counters of one tree walk.
struct Walk {
    limits: Limits,
    deadline: Instant,
    budget: usize,
    truncated: Option<Truncation>,
    unreadable: usize,
    hung: bool,
}

/// Everything that lives on the AX thread.
pub struct AxWorker {
    registry: Registry<Entry>,
    /// The id currently at each path (`ax:<pid><path>`) and its generation.
    occupants: HashMap<String, (u32, String)>,
    watched: Vec<Watch>,
    events: broadcast::Sender<Event>,
}

impl AxWorker {
    /// Sets the messaging timeout and checks that this process may use the Accessibility API.
    fn start(
        events: broadcast::Sender<Event>,
        call_timeout: Duration,
    ) -> Result<AxWorker, BackendError> {
        let system = AXUIElement::system_wide();
        // On the system-wide element the timeout applies to every element of this process.
        let _ = system.set_messaging_timeout(call_timeout.as_secs_f32());
        if let Err(e @ AxError::Ax(code)) = system.attribute(&attr("AXFocusedApplication"))
            && map::classify_error(code) == ErrorKind::NotTrusted
        {
            return Err(err(e, &calls::copy_attribute("AXFocusedApplication")));
        }
        Ok(AxWorker {
            registry: Registry::default(),
            occupants: HashMap::new(),
            watched: Vec::new(),
            events,
        })
    }

    fn start_read(&mut self) {
        // `occupants` stays: its generations keep a dropped id from ever naming another
        // element.
        self.registry.start_read();
    }

    /// The id of `el` at `path` in app `pid`: the same id as before while the same element sits
    /// there (compared with `CFEqual`), a new generation when another element took the path.
    fn register(&mut self, pid: i32, path: &str, el: &AXUIElement) -> NodeId {
        let base = map::node_id(pid, path, 0).0;
        let generation = match self.occupants.get(&base) {
            Some((g, id)) => {
                let id = id.clone();
                let g = *g;
                if self.registry.renew(&id, |entry| entry.el == *el) {
                    return NodeId(id);
                }
                g + 1
            }
            None => 0,
        };
        let id = map::node_id(pid, path, generation);
        self.registry.insert(
            id.0.clone(),
            Entry {
                el: el.clone(),
                pid,
                path: path.to_string(),
            },
        );
        self.occupants.insert(base, (generation, id.0.clone()));
        id
    }

    fn lookup(&self, id: &NodeId) -> Result<(AXUIElement, i32, String), BackendError> {
        self.registry
            .lookup(id)
            .map(|e| (e.el.clone(), e.pid, e.path.clone()))
    }

    /// One element's attributes (no children), fetched by role.
    fn read_one(&self, el: &AXUIElement) -> Result<AxElement, AxError> {
        let role = el.role()?.to_string();
        let subrole = el
            .subrole()
            .ok()
            .map(|s| s.to_string())
            .filter(|s| !s.is_empty());
        let r = map::role_of(&role, subrole.as_deref());
        let text = |v: Result<CFString, AxError>| v.map(|s| s.to_string()).unwrap_or_default();
        let flag = |name: &str| el.attribute(&attr(name)).ok().as_ref().and_then(cf_bool);
        let settable = |name: &str| el.is_settable(&attr(name)).unwrap_or(false);
        let mut e = AxElement {
            role_description: text(el.role_description()),
            title: text(el.title()),
            description: text(el.description()),
            help: text(el.help()),
            enabled: el.enabled().ok().map(bool::from),
            focused: el.focused().ok().map(bool::from),
            focused_settable: el.is_settable(&AXAttribute::focused()).unwrap_or(false),
            actions: el
                .action_names()
                .map(|names| names.iter().map(|n| n.to_string()).collect())
                .unwrap_or_default(),
            ..AxElement::default()
        };
        let wants_value = r.is_text()
            || r.is_numeric()
            || r.is_toggle()
            || r.is_choice()
            || matches!(
                r,
                Role::Label | Role::Heading | Role::Expander | Role::Tab | Role::ProgressBar
            );
        if wants_value {
            e.value = el.value().ok().as_ref().and_then(ax_value);
            e.value_settable = el.is_settable(&AXAttribute::value()).unwrap_or(false);
        }
        if r.is_numeric() || r == Role::ProgressBar {
            e.min_value = el.min_value().ok().as_ref().and_then(cf_f64);
            e.max_value = el.max_value().ok().as_ref().and_then(cf_f64);
            e.value_increment = el.value_increment().ok().as_ref().and_then(cf_f64);
        }
        if r.is_text() {
            e.placeholder = text(el.placeholder_value());
            e.required = flag("AXRequired");
        }
        if r.is_selectable_item() || matches!(r, Role::Group | Role::Label) {
            e.selected = flag("AXSelected");
            e.selected_settable = e.selected.is_some() && settable("AXSelected");
        }
        let expand_attr = match r {
            Role::TreeItem => Some("AXDisclosing"),
            Role::ComboBox | Role::MenuButton | Role::Expander | Role::Group => Some("AXExpanded"),
            _ => None,
        };
        if let Some(name) = expand_attr {
            e.expanded = flag(name);
            e.expanded_settable = e.expanded.is_some() && settable(name);
        }
        if matches!(r, Role::Window | Role::Dialog) {
            e.modal = flag("AXModal");
            e.main = el.main().ok().map(bool::from);
        }
        if matches!(
            r,
            Role::ScrollBar | Role::Slider | Role::SplitPane | Role::Separator
        ) {
            e.orientation = el
                .attribute(&attr("AXOrientation"))
                .ok()
                .as_ref()
                .and_then(cf_string);
        }
        e.role = role;
        e.subrole = subrole;
        Ok(e)
    }

    /// The record tree under `el` (at `path` in app `pid`), within the walk's caps.
    fn walk(
        &mut self,
        el: &AXUIElement,
        pid: i32,
        path: String,
        depth: usize,
        w: &mut Walk,
    ) -> Option<AxElement> {
        if w.hung || Instant::now() >= w.deadline {
            w.truncated.get_or_insert(Truncation::Timeout);
            return None;
        }
        let mut rec = match self.read_one(el) {
            Ok(r) => r,
            Err(e) => {
                match err(e, &role_call()) {
                    // kAXErrorCannotComplete: the app is not responding when its application
                    // element does not answer a cheap call either (as on Linux); otherwise
                    // this element alone is silent.
                    BackendError::Timeout { .. } if !app_answers(pid) => {
                        w.hung = true;
                        w.truncated.get_or_insert(Truncation::NotResponding);
                    }
                    _ => w.unreadable += 1,
                }
                return None;
            }
        };
        rec.id = Some(self.register(pid, &path, el).0);
        let kids = match el.children() {
            Ok(kids) => kids,
            Err(e) => {
                // No children attribute, or no value: a leaf. Anything else is a refusal, named
                // on the element (never a silent leaf).
                if let AxError::Ax(code) = &e
                    && map::classify_error(*code) == ErrorKind::Unsupported
                {
                    return Some(rec);
                }
                let call = calls::copy_attribute("AXChildren");
                rec.unread.push(match e {
                    AxError::Ax(code) => format!("children ({})", calls::failure(&call, code)),
                    other => format!("children ({call} failed: {other})"),
                });
                return Some(rec);
            }
        };
        if kids.is_empty() {
            return Some(rec);
        }
        if depth >= w.limits.max_depth {
            w.truncated.get_or_insert(Truncation::DepthCap);
            return Some(rec);
        }
        for (i, kid) in kids.iter().enumerate() {
            if i >= w.limits.max_siblings {
                w.truncated.get_or_insert(Truncation::SiblingCap);
                break;
            }
            if w.budget == 0 {
                w.truncated.get_or_insert(Truncation::NodeCap);
                break;
            }
            w.budget -= 1;
            if let Some(child) = self.walk(&kid, pid, map::child_path(&path, i), depth + 1, w) {
                rec.children.push(child);
            }
        }
        Some(rec)
    }

    fn read_tree(
        &mut self,
        el: &AXUIElement,
        pid: i32,
        path: &str,
        app: &str,
        limits: &Limits,
    ) -> Result<Snapshot, BackendError> {
        let started = Instant::now();
        let mut w = Walk {
            limits: *limits,
            deadline: started + limits.timeout,
            budget: limits.max_nodes.saturating_sub(1),
            truncated: None,
            unreadable: 0,
            hung: false,
        };
        let root = match self.walk(el, pid, path.to_string(), 0, &mut w) {
            Some(r) => r,
            None => {
                // The root itself could not be read: gone, or the app is hung.
                let e = self.read_one(el).err();
                let cut = if w.hung {
                    Truncation::NotResponding
                } else {
                    Truncation::Timeout
                };
                return match e.map(|e| err(e, &role_call())) {
                    Some(BackendError::Timeout { .. }) | None => Ok(Snapshot {
                        id: SnapshotId::next(),
                        app: app.into(),
                        window: AppText::default(),
                        nodes: Vec::new(),
                        truncated: Some(cut),
                        unreadable: 0,
                        unreadable_elements: Vec::new(),
                        cuts: Default::default(),
                        read_ms: started.elapsed().as_secs_f64() * 1000.0,
                    }),
                    Some(other) => Err(other),
                };
            }
        };
        let mut snap = layout(app, &root, limits, started);
        snap.truncated = w.truncated.or(snap.truncated);
        snap.unreadable = w.unreadable;
        Ok(snap)
    }

    fn app_name(pid: i32, fallback: &str) -> String {
        AXUIElement::application(pid)
            .title()
            .map(|t| t.to_string())
            .ok()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| fallback.to_string())
    }

    fn watch(&mut self, pid: i32) {
        if self.watched.iter().any(|w| w.pid == pid) {
            return;
        }
        if self.watched.len() >= WATCHED_APPS {
            self.watched.remove(0);
        }
        let app = AXUIElement::application(pid);
        let windows = window_titles(&app);
        self.watched.push(Watch {
            pid,
            app,
            focused: None,
            windows,
        });
    }

    fn fresh(&mut self, id: &NodeId) -> Result<(AXUIElement, Node, i32, String), BackendError> {
        let (el, pid, path) = self.lookup(id)?;
        let mut rec = self.read_one(&el).map_err(|e| err(e, &role_call()))?;
        rec.id = Some(id.0.clone());
        Ok((el, map::node_from(&rec), pid, path))
    }

    /// Opens a pop-up (`AXPress`, or `AXShowMenu` for a combo box) and waits for its items.
    fn open_menu(
        &mut self,
        el: &AXUIElement,
        node: &Node,
        pid: i32,
        path: &str,
        limits: &Limits,
    ) -> Result<Option<Snapshot>, BackendError> {
        let opener = if node.actions.iter().any(|a| a == "press") {
            "AXPress"
        } else if node.actions.iter().any(|a| a == "show-menu") {
            "AXShowMenu"
        } else {
            return Ok(None);
        };
        el.perform_action(&CFString::new(opener))
            .map_err(|e| err(e, &calls::perform_action(opener)))?;
        let until = Instant::now() + MENU_WAIT;
        loop {
            let snap = self.read_tree(el, pid, path, "", limits)?;
            if !option_rows(&snap.nodes, 0).is_empty() || Instant::now() >= until {
                return Ok(Some(snap));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The options of a choice element as (node, element), and whether this call opened its
    /// menu. `open`: open the menu first (picking); otherwise it is opened only when no item is
    /// readable, since a closed pop-up button usually shows none.
    fn options(
        &mut self,
        el: &AXUIElement,
        node: &Node,
        pid: i32,
        path: &str,
        open: bool,
    ) -> Result<(Vec<(Node, AXUIElement)>, bool), BackendError> {
        let limits = Limits {
            max_depth: 4,
            ..Limits::default()
        };
        let mut opened = false;
        let mut snap = None;
        if open {
            snap = self.open_menu(el, node, pid, path, &limits)?;
            opened = snap.is_some();
        }
        let mut snap = match snap {
            Some(s) => s,
            None => self.read_tree(el, pid, path, "", &limits)?,
        };
        if option_rows(&snap.nodes, 0).is_empty()
            && !opened
            && let Some(s) = self.open_menu(el, node, pid, path, &limits)?
        {
            snap = s;
            opened = true;
        }
        let mut out = Vec::new();
        for r in option_rows(&snap.nodes, 0) {
            let n = snap.nodes[r].clone();
            let (item, _, _) = self.lookup(&n.id)?;
            out.push((n, item));
        }
        Ok((out, opened))
    }

    /// Closes a menu this backend opened: `AXCancel` on the element holding the options.
    fn close_menu(&self, options: &[(Node, AXUIElement)]) {
        let Some((first, _)) = options.first() else {
            return;
        };
        // The holder sits one path step above its items; `occupants` knows its current id.
        let Ok((_, pid, path)) = self.lookup(&first.id) else {
            return;
        };
        let Some((parent, _)) = path.rsplit_once('/') else {
            return;
        };
        let base = map::node_id(pid, parent, 0).0;
        if let Some(entry) = self
            .occupants
            .get(&base)
            .and_then(|(_, id)| self.registry.get(id))
        {
            let _ = entry.el.perform_action(&CFString::new("AXCancel"));
        }
    }

    /// Steps a number with `AXIncrement`/`AXDecrement`, reading after each press; stops when
    /// the target is reached or passed, or when a press no longer moves the value (a limit).
    fn step(&self, el: &AXUIElement, node: &Node, target: f64) -> WriteAck {
        let Some(Value::Number { current, step, .. }) = node.value else {
            return Err(BackendError::Unsupported("no numeric value to step".into()));
        };
        let step = step.unwrap_or(0.0);
        let plan = steps_to(current, target, step);
        let name = if plan.up {
            "AXIncrement"
        } else {
            "AXDecrement"
        };
        let action = CFString::new(name);
        let mut last = current;
        for _ in 0..plan.presses.min(MAX_STEPS) {
            el.perform_action(&action)
                .map_err(|e| err(e, &calls::perform_action(name)))?;
            let now = el
                .value()
                .ok()
                .as_ref()
                .and_then(ax_value)
                .and_then(|v| v.as_number());
            match now {
                Some(n) if step_done(plan.up, n, target, step) => break,
                Some(n) if n == last => break,
                Some(n) => last = n,
                None => break,
            }
        }
        Ok(true)
    }

    /// Turns changes in the watched apps (focused element, window titles) into events.
    fn poll(&mut self) {
        let mut out: Vec<(EventKind, NodeId, i32, String)> = Vec::new();
        for i in 0..self.watched.len() {
            let pid = self.watched[i].pid;
            let focused = self.watched[i]
                .app
                .attribute(&attr("AXFocusedUIElement"))
                .ok()
                .and_then(|v| v.downcast::<AXUIElement>());
            if focused.is_some() && focused != self.watched[i].focused {
                let source = focused
                    .as_ref()
                    .and_then(|f| {
                        self.registry
                            .iter()
                            .find(|(_, e)| e.pid == pid && e.el == *f)
                            .map(|(id, _)| NodeId(id.to_string()))
                    })
                    .unwrap_or_else(|| map::node_id(pid, "/?", 0));
                out.push((EventKind::Focus, source, pid, String::new()));
            }
            self.watched[i].focused = focused;
            let titles = window_titles(&self.watched[i].app);
            for (kind, title) in map::window_changes(&self.watched[i].windows, &titles) {
                out.push((kind, map::node_id(pid, "", 0), pid, title));
            }
            self.watched[i].windows = titles;
        }
        for (kind, source, pid, detail) in out {
            let _ = self.events.send(Event {
                kind,
                source,
                app: pid.to_string(),
                detail: detail.into(),
                at: Some(Instant::now()),
            });
        }
    }
}

impl Worker for AxWorker {
    const NAME: &'static str = "ax";
    const PLANNER: &'static dyn Planner = &super::map::PLANNER;
    const SILENT: &'static str = "the Accessibility API did not answer";
    const APPS: (&'static str, Duration) = ("listing applications", Duration::from_secs(10));
    const CHILDREN: Duration = Duration::from_secs(4);
    const IDLE: Option<Duration> = Some(POLL_INTERVAL);

    /// The thread keeps its own deadline; this one only guards against a stuck thread.
    fn snapshot_deadline(limits: &Limits) -> Duration {
        limits.timeout + limits.call_timeout
    }

    /// Stepping and opening menus take several round trips.
    fn write_deadline(op: &WriteOp, call_timeout: Duration) -> Duration {
        match op {
            WriteOp::SetNumber(_) | WriteOp::SelectChild(_) => call_timeout * 4,
            _ => call_timeout,
        }
    }

    fn apps(&mut self) -> Result<Vec<AppInfo>, BackendError> {
        self.start_read();
        let out = std::process::Command::new("/bin/ps")
            .args(["-axo", "pid=,comm="])
            .output()
            .map_err(|e| BackendError::Failed(format!("/bin/ps -axo pid=,comm= failed: {e}")))?;
        let listing = String::from_utf8_lossy(&out.stdout);
        let mut apps = Vec::new();
        for (pid, path) in map::parse_ps(&listing) {
            if !map::is_app_bundle(&path) {
                continue;
            }
            let app = AXUIElement::application(pid);
            let windows = match app.windows() {
                Ok(w) => w,
                Err(e) => match err(e, &calls::copy_attribute("AXWindows")) {
                    // Not trusted: nothing will work; say so instead of listing nothing.
                    unavailable @ BackendError::Unavailable(_) => return Err(unavailable),
                    // Apps without an AX server or windows are left out.
                    _ => continue,
                },
            };
            let app_id = self.register(pid, "", &app);
            let mut infos = Vec::new();
            for (i, win) in windows.iter().enumerate() {
                let id = self.register(pid, &map::window_path(i), &win);
                let Ok(rec) = self.read_one(&win) else {
                    continue;
                };
                let node = map::node_from(&rec);
                infos.push(WindowInfo {
                    id,
                    name: node.name,
                    role: node.role,
                    states: node.states,
                });
            }
            apps.push(AppInfo {
                id: app_id,
                name: Self::app_name(pid, &map::app_name_from_path(&path)).into(),
                pid: u32::try_from(pid).ok(),
                bus_name: format!("pid:{pid}"),
                toolkit: None,
                toolkit_version: None,
                windows: infos,
                responding: true,
            });
        }
        Ok(apps)
    }

    fn snapshot(&mut self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError> {
        self.start_read();
        let (el, pid, path) = self.lookup(root)?;
        let name = Self::app_name(pid, &format!("pid {pid}"));
        let snap = self.read_tree(&el, pid, &path, &name, limits)?;
        self.watch(pid);
        Ok(snap)
    }

    fn read_node(&mut self, id: &NodeId) -> Result<Node, BackendError> {
        self.fresh(id).map(|(_, n, _, _)| n)
    }

    /// Children as the engine lists them: a choice element's options (listing them opens its
    /// menu on screen for a moment), else the direct children.
    fn children(&mut self, id: &NodeId) -> Result<Vec<Node>, BackendError> {
        let (el, node, pid, path) = self.fresh(id)?;
        if node.role.is_choice() {
            let (options, opened) = self.options(&el, &node, pid, &path, false)?;
            if opened {
                self.close_menu(&options);
            }
            return Ok(options.into_iter().map(|(n, _)| n).collect());
        }
        let kids = el
            .children()
            .map_err(|e| err(e, &calls::copy_attribute("AXChildren")))?;
        let mut out = Vec::new();
        for (i, kid) in kids.iter().enumerate() {
            let kid_id = self.register(pid, &map::child_path(&path, i), &kid);
            if let Ok(mut rec) = self.read_one(&kid) {
                rec.id = Some(kid_id.0);
                out.push(map::node_from(&rec));
            }
        }
        Ok(out)
    }

    fn write(&mut self, id: &NodeId, op: &WriteOp) -> WriteAck {
        let (el, node, pid, path) = self.fresh(id)?;
        // Each write names its own call when it fails.
        let done =
            |call: String, r: Result<(), AxError>| r.map(|()| true).map_err(|e| err(e, &call));
        let set = calls::set_attribute;
        match op {
            // The planner chose how (`map::RULES`); the op says it.
            WriteOp::SetText(text) => done(
                set("AXValue"),
                el.set_value(CFString::new(text).as_CFType()),
            ),
            WriteOp::SetNumber(v) => {
                done(set("AXValue"), el.set_value(CFNumber::from(*v).as_CFType()))
            }
            WriteOp::StepTo(v) => self.step(&el, &node, *v),
            WriteOp::Action(name) => match name.as_str() {
                "select" => done(
                    set("AXSelected"),
                    el.set_attribute(&attr("AXSelected"), CFBoolean::true_value().as_CFType()),
                ),
                "expand" | "collapse" => {
                    let on = if name == "expand" {
                        CFBoolean::true_value()
                    } else {
                        CFBoolean::false_value()
                    };
                    let which = if node.role == Role::TreeItem {
                        "AXDisclosing"
                    } else {
                        "AXExpanded"
                    };
                    done(set(which), el.set_attribute(&attr(which), on.as_CFType()))
                }
                other => match map::raw_action(other) {
                    Some(raw) => done(
                        calls::perform_action(&raw),
                        el.perform_action(&CFString::new(&raw)),
                    ),
                    None => Err(BackendError::Unsupported(format!(
                        "no action `{}`",
                        crate::model::literal(other, 40)
                    ))),
                },
            },
            // Planned for pop-ups only (`WritePlan::OpenMenuAndPick`).
            WriteOp::SelectChild(index) => {
                // Listed the way `children` listed them for the engine, menu open.
                let (options, _) = self.options(&el, &node, pid, &path, true)?;
                match options.get(*index) {
                    // Pressing a menu item chooses it and closes the menu.
                    Some((_, item)) => done(
                        calls::perform_action("AXPress"),
                        item.perform_action(&CFString::new("AXPress")),
                    ),
                    None => Err(BackendError::Unsupported(format!(
                        "option {index} is gone ({} options now)",
                        options.len()
                    ))),
                }
            }
            WriteOp::Focus => done(
                set("AXFocused"),
                el.set_attribute(&AXAttribute::focused(), CFBoolean::true_value()),
            ),
            WriteOp::SelectAllText
            | WriteOp::TypeText(_)
            | WriteOp::Key(_)
            | WriteOp::Click
            | WriteOp::ActivateWindow(_)
            | WriteOp::AwaitFocus
            | WriteOp::AwaitMenuKeyboard => Err(BackendError::Unsupported(
                "keyboard and pointer input are not available on the AX backend".into(),
            )),
        }
    }

    fn idle(&mut self) {
        self.poll();
    }
}

fn window_titles(app: &AXUIElement) -> Vec<String> {
    app.windows()
        .map(|ws| {
            ws.iter()
                .map(|w| w.title().map(|t| t.to_string()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default()
}
