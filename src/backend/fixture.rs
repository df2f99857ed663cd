//! An in-memory application loaded from JSON that behaves like a real one: writes change values
//! (with the quirks real toolkits show: clamping, upper-casing, late application, read-only
//! fields that answer "ok"), and every change fires events. Always compiled; it backs the demo
//! app and the TUI tests. It is not a stand-in for the real bus in backend tests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::Deserialize;
use tokio::sync::broadcast;

use super::{
    AppInfo, Backend, BackendError, Event, EventKind, Limits, WindowInfo, WriteAck, WriteOp,
};
use crate::model::{
    AppText, Bounds, Interface, Interfaces, Node, NodeId, Role, Snapshot, SnapshotId, State,
    States, Toggle, Truncation, Value,
};

/// The demo app shipped with treeglass (a settings window with every kind of field).
pub const DEMO_APP_JSON: &str = include_str!("../../assets/demo-app.json");

/// How a fixture node reacts to writes, beyond storing the value.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Behaviour {
    /// `upper`: the field upper-cases what it is given, ~50 ms after the write.
    #[serde(default)]
    pub transform: Option<String>,
    /// The field applies a write only after this many milliseconds.
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// The field takes a write, then puts its old value back after this many milliseconds.
    #[serde(default)]
    pub revert_ms: Option<u64>,
    /// Pressing this button: `add-item:<container name>` / `remove-item:<container name>` /
    /// `count:<label name>` (the label's "Presses: N" counter goes up).
    #[serde(default)]
    pub on_press: Option<String>,
}

/// A node as written in fixture JSON.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureNode {
    pub role: Role,
    #[serde(default)]
    pub raw_role: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The name of the element that labels this one (the label relation), when it has one.
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub value: Option<Value>,
    /// States besides the defaults (`enabled sensitive showing visible`, plus `editable
    /// focusable` for text roles).
    #[serde(default)]
    pub states: Vec<String>,
    /// Clears `enabled` and `sensitive`.
    #[serde(default)]
    pub disabled: bool,
    /// Clears `showing` and `visible` (a closed popup menu, a hidden page, or a toolkit's hidden
    /// inner twin of a visible one).
    #[serde(default)]
    pub hidden: bool,
    /// Screen bounds (default: 0,0 100×24).
    #[serde(default)]
    pub bounds: Option<Bounds>,
    /// Text fields: not editable (`read-only`).
    #[serde(default)]
    pub read_only: bool,
    #[serde(default)]
    pub actions: Vec<String>,
    /// Interfaces instead of the role's defaults (e.g. a text field without EditableText,
    /// like a browser's input).
    #[serde(default)]
    pub interfaces: Option<Vec<String>>,
    #[serde(default)]
    pub behaviour: Behaviour,
    #[serde(default)]
    pub children: Vec<FixtureNode>,
    /// The node's level in an app's `outline` (0 = a window); only there.
    #[serde(default)]
    pub level: Option<usize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureApp {
    name: String,
    #[serde(default)]
    pid: Option<u32>,
    #[serde(default)]
    toolkit: Option<String>,
    #[serde(default)]
    toolkit_version: Option<String>,
    #[serde(default)]
    windows: Vec<FixtureNode>,
    /// More windows, as a pre-order list of nodes with levels instead of nested `children`:
    /// trees deeper than JSON nesting allows (serde_json stops at 128 levels).
    #[serde(default)]
    outline: Vec<FixtureNode>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    apps: Vec<FixtureApp>,
}

/// Shared by every node without a behaviour of its own (most of them), so a 100,000-node
/// fixture does not carry 100,000 empty behaviours.
fn no_behaviour() -> Arc<Behaviour> {
    static NONE: std::sync::OnceLock<Arc<Behaviour>> = std::sync::OnceLock::new();
    NONE.get_or_init(|| Arc::new(Behaviour::default())).clone()
}

fn behaviour_of(b: &Behaviour) -> Arc<Behaviour> {
    if b.transform.is_none()
        && b.delay_ms.is_none()
        && b.revert_ms.is_none()
        && b.on_press.is_none()
    {
        no_behaviour()
    } else {
        Arc::new(b.clone())
    }
}

#[derive(Debug, Clone)]
struct Entry {
    node: Node,
    kids: Vec<NodeId>,
    parent: Option<NodeId>,
    app: Arc<str>,
    behaviour: Arc<Behaviour>,
    /// What was really written into a password field; only its length is ever exposed.
    secret: Option<String>,
}

struct AppEntry {
    info: AppInfo,
    windows: Vec<NodeId>,
}

struct State_ {
    nodes: HashMap<NodeId, Entry>,
    apps: Vec<AppEntry>,
    next_id: u64,
}

struct Inner {
    state: Mutex<State_>,
    events: broadcast::Sender<Event>,
    /// Extra latency per call, to model a slow bus in tests and benchmarks.
    latency: Duration,
}

/// The in-memory backend. Cheap to clone (shared state).
#[derive(Clone)]
pub struct FixtureBackend {
    inner: Arc<Inner>,
}

/// A fixture file that could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("fixture JSON is invalid: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot read fixture file {0}")]
    File(#[from] crate::files::FileError),
    #[error("unknown state `{0}` in fixture")]
    State(String),
    #[error("unknown interface `{0}` in fixture")]
    Interface(String),
    #[error("fixture outline: {0}")]
    Outline(String),
}

fn lock(inner: &Inner) -> MutexGuard<'_, State_> {
    // A poisoned lock means a panic elsewhere already; the data is plain values, keep going.
    inner.state.lock().unwrap_or_else(|e| e.into_inner())
}

fn default_interfaces(role: Role, has_actions: bool) -> Interfaces {
    let mut i = Interfaces::EMPTY
        .with(Interface::Accessible)
        .with(Interface::Component);
    if role.is_text() {
        i = i.with(Interface::Text).with(Interface::EditableText);
    }
    if role.is_numeric() {
        i = i.with(Interface::Value);
    }
    if role.is_choice() || matches!(role, Role::List | Role::TabList | Role::Tree | Role::Table) {
        i = i.with(Interface::Selection);
    }
    if matches!(role, Role::Label | Role::Paragraph | Role::Heading) {
        i = i.with(Interface::Text);
    }
    if has_actions {
        i = i.with(Interface::Action);
    }
    if role == Role::Application {
        i = i.with(Interface::Application);
    }
    i
}

fn raw_role_for(role: Role) -> String {
    match role {
        Role::Button => "push button".into(),
        Role::List => "list box".into(),
        Role::TabList => "page tab list".into(),
        Role::Tab => "page tab".into(),
        Role::Group => "grouping".into(),
        other => other.as_str().replace('-', " "),
    }
}

impl FixtureBackend {
    /// The built-in demo app.
    pub fn demo() -> FixtureBackend {
        // The demo JSON is compiled in and covered by a unit test; it cannot fail to parse.
        FixtureBackend::from_json(DEMO_APP_JSON).unwrap_or_else(|_| FixtureBackend::empty())
    }

    fn empty() -> FixtureBackend {
        let (tx, _) = broadcast::channel(1024);
        FixtureBackend {
            inner: Arc::new(Inner {
                state: Mutex::new(State_ {
                    nodes: HashMap::new(),
                    apps: Vec::new(),
                    next_id: 1,
                }),
                events: tx,
                latency: Duration::ZERO,
            }),
        }
    }

    /// Loads a fixture from a JSON file (a regular file of at most
    /// [`crate::files::MAX_FIXTURE_BYTES`]).
    pub fn from_path(path: &str) -> Result<FixtureBackend, FixtureError> {
        let text = crate::files::read_capped_text(
            std::path::Path::new(path),
            crate::files::MAX_FIXTURE_BYTES,
        )?;
        FixtureBackend::from_json(&text)
    }

    /// Loads a fixture from JSON text.
    pub fn from_json(text: &str) -> Result<FixtureBackend, FixtureError> {
        let file: FixtureFile = serde_json::from_str(text)?;
        let b = FixtureBackend::empty();
        {
            let mut st = lock(&b.inner);
            for app in file.apps {
                let app_id = NodeId(format!("f:{}", st.next_id));
                st.next_id += 1;
                let mut root = Node::new(app_id.clone(), Role::Application, "application");
                root.name = app.name.as_str().into();
                root.interfaces = default_interfaces(Role::Application, false);
                let mut windows = Vec::new();
                let mut infos = Vec::new();
                for w in &app.windows {
                    if w.level.is_some() {
                        return Err(FixtureError::Outline(
                            "`level` belongs to outline entries, not to nested windows".into(),
                        ));
                    }
                    let wid = insert_tree(&mut st, w, Some(app_id.clone()), &app.name)?;
                    windows.push(wid);
                }
                windows.extend(insert_outline(&mut st, &app.outline, &app_id, &app.name)?);
                for wid in &windows {
                    let e = &st.nodes[wid];
                    infos.push(WindowInfo {
                        id: wid.clone(),
                        name: e.node.name.clone(),
                        role: e.node.role,
                        states: e.node.states,
                    });
                }
                st.nodes.insert(
                    app_id.clone(),
                    Entry {
                        node: root,
                        kids: windows.clone(),
                        parent: None,
                        app: app.name.as_str().into(),
                        behaviour: no_behaviour(),
                        secret: None,
                    },
                );
                st.apps.push(AppEntry {
                    info: AppInfo {
                        id: app_id,
                        name: app.name.as_str().into(),
                        pid: app.pid,
                        bus_name: format!("fixture:{}", app.name),
                        toolkit: Some(app.toolkit.as_deref().unwrap_or("fixture").into()),
                        toolkit_version: app.toolkit_version.as_deref().map(AppText::from),
                        windows: infos,
                        responding: true,
                    },
                    windows,
                });
            }
        }
        Ok(b)
    }

    /// A fixture app whose one window holds `nodes` (a pre-order list, e.g. from
    /// [`crate::model::synthetic::generate`]); for benchmarks and scale tests.
    pub fn from_nodes(app: &str, nodes: Vec<Node>) -> FixtureBackend {
        let b = FixtureBackend::empty();
        {
            let mut st = lock(&b.inner);
            let app_id = NodeId("f:app".into());
            let app_name: Arc<str> = app.into();
            let ids: Vec<NodeId> = nodes.iter().map(|n| n.id.clone()).collect();
            // Sized once: growing a 100,000-entry map holds its old and new tables at once.
            st.nodes.reserve(nodes.len() + 1);
            let window_id = ids.first().cloned();
            let mut window_info = Vec::new();
            // Moved, not cloned: a 100,000-node tree would otherwise be held twice.
            for mut node in nodes {
                let kids = node.children.iter().map(|&c| ids[c].clone()).collect();
                let parent = match node.parent {
                    Some(p) => Some(ids[p].clone()),
                    None => Some(app_id.clone()),
                };
                node.children.clear();
                node.parent = None;
                if parent.as_ref() == Some(&app_id) {
                    window_info.push(WindowInfo {
                        id: node.id.clone(),
                        name: node.name.clone(),
                        role: node.role,
                        states: node.states,
                    });
                }
                st.nodes.insert(
                    node.id.clone(),
                    Entry {
                        node,
                        kids,
                        parent,
                        app: app_name.clone(),
                        behaviour: no_behaviour(),
                        secret: None,
                    },
                );
            }
            let mut root = Node::new(app_id.clone(), Role::Application, "application");
            root.name = app.into();
            st.nodes.insert(
                app_id.clone(),
                Entry {
                    node: root,
                    kids: window_id.iter().cloned().collect(),
                    parent: None,
                    app: app_name.clone(),
                    behaviour: no_behaviour(),
                    secret: None,
                },
            );
            st.apps.push(AppEntry {
                info: AppInfo {
                    id: app_id,
                    name: app.into(),
                    pid: None,
                    bus_name: format!("fixture:{app}"),
                    toolkit: Some("fixture".into()),
                    toolkit_version: None,
                    windows: window_info,
                    responding: true,
                },
                windows: window_id.into_iter().collect(),
            });
        }
        b
    }

    /// Adds per-call latency (models a slow bus).
    pub fn with_latency(self, latency: Duration) -> FixtureBackend {
        let st = std::mem::replace(
            &mut *lock(&self.inner),
            State_ {
                nodes: HashMap::new(),
                apps: Vec::new(),
                next_id: 0,
            },
        );
        let (tx, _) = broadcast::channel(1024);
        FixtureBackend {
            inner: Arc::new(Inner {
                state: Mutex::new(st),
                events: tx,
                latency,
            }),
        }
    }

    /// Finds the first node with this name (for tests and scripted changes).
    pub fn find_by_name(&self, name: &str) -> Option<NodeId> {
        let st = lock(&self.inner);
        let mut ids: Vec<&NodeId> = st
            .nodes
            .iter()
            .filter(|(_, e)| e.node.name == name)
            .map(|(id, _)| id)
            .collect();
        ids.sort();
        ids.first().map(|id| (*id).clone())
    }

    /// What the app really holds for a password field (tests only use this as an oracle).
    pub fn secret_of(&self, id: &NodeId) -> Option<String> {
        lock(&self.inner)
            .nodes
            .get(id)
            .and_then(|e| e.secret.clone())
    }

    /// Changes a node's name as the app would (fires `name-changed`).
    pub fn rename(&self, id: &NodeId, name: &str) -> Result<(), BackendError> {
        let ev = {
            let mut st = lock(&self.inner);
            let e = st
                .nodes
                .get_mut(id)
                .ok_or_else(|| BackendError::Vanished(id.to_string()))?;
            e.node.name = name.into();
            event(e, EventKind::NameChanged, name)
        };
        let _ = self.inner.events.send(ev);
        Ok(())
    }

    /// Appends a child to `parent` as the app would (fires `children-changed:add`).
    pub fn add_child(&self, parent: &NodeId, child: &FixtureNode) -> Result<NodeId, BackendError> {
        let (id, ev) = {
            let mut st = lock(&self.inner);
            let app = st
                .nodes
                .get(parent)
                .map(|e| e.app.to_string())
                .ok_or_else(|| BackendError::Vanished(parent.to_string()))?;
            let id = insert_tree(&mut st, child, Some(parent.clone()), &app)
                .map_err(|e| BackendError::Failed(e.to_string()))?;
            let p = st
                .nodes
                .get_mut(parent)
                .ok_or_else(|| BackendError::Vanished(parent.to_string()))?;
            p.kids.push(id.clone());
            let index = p.kids.len() as i32 - 1;
            (id.clone(), event(p, EventKind::ChildAdded { index }, &id.0))
        };
        let _ = self.inner.events.send(ev);
        Ok(id)
    }

    /// Removes a node and its subtree (fires `children-changed:remove` on its parent).
    pub fn remove(&self, id: &NodeId) -> Result<(), BackendError> {
        let ev = {
            let mut st = lock(&self.inner);
            let parent = st
                .nodes
                .get(id)
                .ok_or_else(|| BackendError::Vanished(id.to_string()))?
                .parent
                .clone();
            let mut stack = vec![id.clone()];
            while let Some(cur) = stack.pop() {
                if let Some(e) = st.nodes.remove(&cur) {
                    stack.extend(e.kids);
                }
            }
            let mut ev = None;
            if let Some(p) = parent.and_then(|p| st.nodes.get_mut(&p)) {
                let index = p.kids.iter().position(|k| k == id).map_or(-1, |i| i as i32);
                p.kids.retain(|k| k != id);
                ev = Some(event(p, EventKind::ChildRemoved { index }, &id.0));
            }
            for app in &mut st.apps {
                app.windows.retain(|w| w != id);
                app.info.windows.retain(|w| &w.id != id);
            }
            ev
        };
        if let Some(ev) = ev {
            let _ = self.inner.events.send(ev);
        }
        Ok(())
    }

    /// Sets a node's value as a user typing in the app would (fires the matching event); used
    /// to demonstrate observed changes.
    pub fn user_set(&self, id: &NodeId, value: Value) -> Result<(), BackendError> {
        let evs = {
            let mut st = lock(&self.inner);
            let e = st
                .nodes
                .get_mut(id)
                .ok_or_else(|| BackendError::Vanished(id.to_string()))?;
            store_value(e, value)
        };
        for ev in evs {
            let _ = self.inner.events.send(ev);
        }
        Ok(())
    }

    async fn pause(&self) {
        if !self.inner.latency.is_zero() {
            tokio::time::sleep(self.inner.latency).await;
        }
    }

    fn emit(&self, evs: Vec<Event>) {
        for ev in evs {
            let _ = self.inner.events.send(ev);
        }
    }
}

fn event(e: &Entry, kind: EventKind, detail: &str) -> Event {
    Event {
        kind,
        source: e.node.id.clone(),
        app: e.app.to_string(),
        detail: detail.into(),
        at: Some(Instant::now()),
    }
}

fn insert_tree(
    st: &mut State_,
    f: &FixtureNode,
    parent: Option<NodeId>,
    app: &str,
) -> Result<NodeId, FixtureError> {
    let id = NodeId(format!("f:{}", st.next_id));
    st.next_id += 1;
    let mut node = Node::new(
        id.clone(),
        f.role,
        f.raw_role.clone().unwrap_or_else(|| raw_role_for(f.role)),
    );
    node.name = f.name.as_str().into();
    node.description = f.description.as_str().into();
    node.label = f.label.as_deref().map(AppText::from);
    node.actions = f.actions.iter().map(AppText::from).collect();
    node.interfaces = match &f.interfaces {
        Some(names) => names
            .iter()
            .map(|n| Interface::from_name(n).ok_or_else(|| FixtureError::Interface(n.clone())))
            .collect::<Result<_, _>>()?,
        None => default_interfaces(f.role, !f.actions.is_empty()),
    };
    let mut states = if f.hidden {
        States::EMPTY
    } else {
        States::EMPTY.with(State::Showing).with(State::Visible)
    };
    if !f.disabled {
        states = states.with(State::Enabled).with(State::Sensitive);
    }
    if f.role.is_text() || f.role == Role::SpinButton {
        states = states.with(State::Focusable).with(State::SingleLine);
        if f.read_only {
            states = states.with(State::ReadOnly);
        } else {
            states = states.with(State::Editable);
        }
    }
    if f.role.is_toggle() {
        states = states.with(State::Checkable).with(State::Focusable);
    }
    for s in &f.states {
        let st_ = State::from_name(s).ok_or_else(|| FixtureError::State(s.clone()))?;
        states.set(st_, true);
    }
    node.states = states;
    node.value = f.value.clone();
    if let Some(Value::Toggle { state }) = &node.value {
        node.states.set(State::Checked, *state == Toggle::On);
        node.states
            .set(State::Indeterminate, *state == Toggle::Mixed);
    }
    let mut secret = None;
    if f.role == Role::PasswordText
        && let Some(Value::Text { text }) = &node.value
    {
        secret = Some(text.as_str().to_string());
        node.value = Some(Value::Text {
            text: mask(text.as_str()).into(),
        });
    }
    node.bounds = Some(f.bounds.unwrap_or(Bounds {
        x: 0,
        y: 0,
        width: 100,
        height: 24,
    }));
    let mut kids = Vec::new();
    for c in &f.children {
        if c.level.is_some() {
            return Err(FixtureError::Outline(
                "`level` belongs to outline entries, not to nested children".into(),
            ));
        }
        kids.push(insert_tree(st, c, Some(id.clone()), app)?);
    }
    st.nodes.insert(
        id.clone(),
        Entry {
            node,
            kids,
            parent,
            app: app.into(),
            behaviour: behaviour_of(&f.behaviour),
            secret,
        },
    );
    Ok(id)
}

/// Inserts an app's outline (pre-order, each entry one level below its parent at most) without
/// recursion, so a chain thousands of levels deep loads; returns the windows (level 0).
fn insert_outline(
    st: &mut State_,
    outline: &[FixtureNode],
    app_id: &NodeId,
    app: &str,
) -> Result<Vec<NodeId>, FixtureError> {
    let mut windows = Vec::new();
    let mut open: Vec<(usize, NodeId)> = Vec::new();
    for (i, f) in outline.iter().enumerate() {
        let Some(level) = f.level else {
            return Err(FixtureError::Outline(format!("entry {i} has no `level`")));
        };
        while open.last().is_some_and(|(l, _)| *l >= level) {
            open.pop();
        }
        let deepest = open.last().map_or(0, |(l, _)| l + 1);
        if level > deepest {
            return Err(FixtureError::Outline(format!(
                "entry {i} is at level {level}, but the deepest level it can take is {deepest}"
            )));
        }
        let parent = open.last().map(|(_, id)| id.clone());
        let id = insert_tree(
            st,
            f,
            Some(parent.clone().unwrap_or_else(|| app_id.clone())),
            app,
        )?;
        match parent.and_then(|p| st.nodes.get_mut(&p)) {
            Some(p) => p.kids.push(id.clone()),
            None => windows.push(id.clone()),
        }
        open.push((level, id));
    }
    Ok(windows)
}

fn mask(text: &str) -> String {
    "●".repeat(text.chars().count())
}

/// Stores a value as the app holds it and returns the events that change fires.
fn store_value(e: &mut Entry, value: Value) -> Vec<Event> {
    let mut evs = Vec::new();
    match value {
        Value::Text { text } => {
            let shown = if e.node.role == Role::PasswordText {
                e.secret = Some(text.as_str().to_string());
                mask(text.as_str()).into()
            } else {
                text
            };
            evs.push(event(e, EventKind::TextChanged, "delete"));
            evs.push(event(e, EventKind::TextChanged, "insert"));
            e.node.value = Some(Value::Text { text: shown });
        }
        Value::Number { current, .. } => {
            if let Some(Value::Number {
                current: cur,
                min,
                max,
                ..
            }) = &mut e.node.value
            {
                *cur = current.clamp(min.unwrap_or(f64::MIN), max.unwrap_or(f64::MAX));
            }
            evs.push(event(e, EventKind::ValueChanged, ""));
        }
        Value::Toggle { state } => {
            e.node.value = Some(Value::Toggle { state });
            let checked = state == Toggle::On;
            if e.node.states.has(State::Checked) != checked {
                e.node.states.set(State::Checked, checked);
                evs.push(event(
                    e,
                    EventKind::StateChanged {
                        state: "checked".into(),
                        on: checked,
                    },
                    "",
                ));
            }
            if e.node.states.has(State::Indeterminate) != (state == Toggle::Mixed) {
                e.node
                    .states
                    .set(State::Indeterminate, state == Toggle::Mixed);
                evs.push(event(
                    e,
                    EventKind::StateChanged {
                        state: "indeterminate".into(),
                        on: state == Toggle::Mixed,
                    },
                    "",
                ));
            }
        }
        Value::Choice { selected } => {
            e.node.value = Some(Value::Choice { selected });
            evs.push(event(e, EventKind::SelectionChanged, ""));
        }
    }
    evs
}

impl FixtureBackend {
    fn snapshot_sync(&self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError> {
        let started = Instant::now();
        let st = lock(&self.inner);
        let root_entry = st
            .nodes
            .get(root)
            .ok_or_else(|| BackendError::Vanished(root.to_string()))?;
        let mut nodes: Vec<Node> = Vec::new();
        let mut truncated = None;
        let mut stack: Vec<(NodeId, Option<usize>, u32)> = vec![(root.clone(), None, 0)];
        while let Some((id, parent, depth)) = stack.pop() {
            let Some(e) = st.nodes.get(&id) else { continue };
            if nodes.len() >= limits.max_nodes {
                truncated.get_or_insert(Truncation::NodeCap);
                break;
            }
            let row = nodes.len();
            let mut node = e.node.clone();
            node.parent = parent;
            node.depth = depth;
            if let Some(p) = parent {
                nodes[p].children.push(row);
            }
            nodes.push(node);
            if depth as usize >= limits.max_depth {
                if !e.kids.is_empty() {
                    truncated.get_or_insert(Truncation::DepthCap);
                }
                continue;
            }
            let kids = if e.kids.len() > limits.max_siblings {
                truncated.get_or_insert(Truncation::SiblingCap);
                &e.kids[..limits.max_siblings]
            } else {
                &e.kids[..]
            };
            for k in kids.iter().rev() {
                stack.push((k.clone(), Some(row), depth + 1));
            }
        }
        let app = root_entry.app.to_string();
        let window = if root_entry.node.role == Role::Application {
            AppText::default()
        } else {
            root_entry.node.name.clone()
        };
        Ok(Snapshot {
            id: SnapshotId::next(),
            app: app.into(),
            window,
            nodes,
            truncated,
            unreadable: 0,
            read_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    fn write_sync(&self, id: &NodeId, op: &WriteOp) -> WriteAck {
        let mut later: Option<(u64, Value)> = None;
        let mut transform: Option<(u64, Value)> = None;
        let mut evs = Vec::new();
        {
            let mut st = lock(&self.inner);
            let e = st
                .nodes
                .get(id)
                .ok_or_else(|| BackendError::Vanished(id.to_string()))?
                .clone();
            let role = e.node.role;
            match op {
                WriteOp::SetText(text) => {
                    if !e.node.interfaces.has(Interface::EditableText) {
                        return Err(BackendError::Unsupported("no EditableText".into()));
                    }
                    // Like GTK: a read-only entry answers true and keeps its text.
                    if e.node.states.has(State::ReadOnly) {
                        return Ok(true);
                    }
                    let v = Value::Text {
                        text: text.as_str().into(),
                    };
                    if let (Some(ms), Some(old)) = (e.behaviour.revert_ms, e.node.value.clone()) {
                        transform = Some((ms, old));
                    }
                    if let Some(ms) = e.behaviour.delay_ms {
                        later = Some((ms, v));
                    } else {
                        if e.behaviour.transform.as_deref() == Some("upper") {
                            transform = Some((
                                50,
                                Value::Text {
                                    text: text.to_uppercase().into(),
                                },
                            ));
                        }
                        let entry = st
                            .nodes
                            .get_mut(id)
                            .ok_or_else(|| BackendError::Vanished(id.to_string()))?;
                        evs = store_value(entry, v);
                    }
                }
                WriteOp::SetNumber(x) => {
                    if !e.node.interfaces.has(Interface::Value) {
                        return Err(BackendError::Unsupported("no Value interface".into()));
                    }
                    let v = Value::Number {
                        current: *x,
                        min: None,
                        max: None,
                        step: None,
                    };
                    if let Some(ms) = e.behaviour.delay_ms {
                        later = Some((ms, v));
                    } else if let Some(entry) = st.nodes.get_mut(id) {
                        evs = store_value(entry, v);
                    }
                }
                WriteOp::Action(name) => {
                    if !e.node.actions.iter().any(|a| a == name) {
                        return Err(BackendError::Unsupported(format!(
                            "no action `{}`",
                            name.literal(40)
                        )));
                    }
                    evs = self.press(&mut st, id, role);
                }
                WriteOp::SelectChild(index) => {
                    if !e.node.interfaces.has(Interface::Selection) {
                        return Err(BackendError::Unsupported("no Selection interface".into()));
                    }
                    evs = select_child(&mut st, id, *index);
                }
                WriteOp::Focus => {
                    for other in st.nodes.values_mut() {
                        other.node.states.set(State::Focused, false);
                    }
                    if let Some(entry) = st.nodes.get_mut(id) {
                        entry.node.states.set(State::Focused, true);
                        evs.push(event(entry, EventKind::Focus, ""));
                    }
                }
                WriteOp::SelectAllText
                | WriteOp::ActivateWindow(_)
                | WriteOp::AwaitFocus
                | WriteOp::AwaitMenuKeyboard => {}
                // The demo app's input devices: a click or Space presses what it lands on.
                WriteOp::Click | WriteOp::Key(super::Key::Space) => {
                    evs = self.press(&mut st, id, role);
                }
                WriteOp::Key(_) => {}
                WriteOp::TypeText(text) => {
                    if !role.is_text() || e.node.states.has(State::ReadOnly) {
                        return Ok(true);
                    }
                    if let Some(entry) = st.nodes.get_mut(id) {
                        evs = store_value(
                            entry,
                            Value::Text {
                                text: text.as_str().into(),
                            },
                        );
                    }
                }
            }
        }
        self.emit(evs);
        for (ms, v) in [later, transform].into_iter().flatten() {
            let me = self.clone();
            let id = id.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                let evs = {
                    let mut st = lock(&me.inner);
                    match st.nodes.get_mut(&id) {
                        Some(e) => store_value(e, v),
                        None => Vec::new(),
                    }
                };
                me.emit(evs);
            });
        }
        Ok(true)
    }

    /// Pressing a node: toggles flip, items get selected in their container, buttons run
    /// their scripted effect.
    fn press(&self, st: &mut State_, id: &NodeId, role: Role) -> Vec<Event> {
        let Some(e) = st.nodes.get(id).cloned() else {
            return Vec::new();
        };
        if role.is_toggle() {
            let now = match e.node.value {
                Some(Value::Toggle { state: Toggle::On }) => Toggle::Off,
                // GTK: pressing a mixed check box clears the mixed state and turns it on.
                _ => Toggle::On,
            };
            return st
                .nodes
                .get_mut(id)
                .map(|e| store_value(e, Value::Toggle { state: now }))
                .unwrap_or_default();
        }
        if role.is_selectable_item() || role == Role::MenuItem {
            if let Some(parent) = e.parent.clone() {
                let index = st
                    .nodes
                    .get(&parent)
                    .and_then(|p| p.kids.iter().position(|k| k == id));
                if let Some(index) = index {
                    return select_child(st, &parent, index);
                }
            }
            return Vec::new();
        }
        if role == Role::Expander {
            let open = !e.node.states.has(State::Expanded);
            if let Some(entry) = st.nodes.get_mut(id) {
                entry.node.states.set(State::Expanded, open);
                entry.node.states.set(State::Collapsed, !open);
                return vec![event(
                    entry,
                    EventKind::StateChanged {
                        state: "expanded".into(),
                        on: open,
                    },
                    "",
                )];
            }
            return Vec::new();
        }
        let Some(effect) = e.behaviour.on_press.clone() else {
            return Vec::new();
        };
        // `count:` names its label by prefix, since the label's name changes with each press.
        let counting = effect.starts_with("count:");
        let find = |st: &State_, name: &str| {
            st.nodes
                .iter()
                .filter(|(_, x)| {
                    x.app == e.app
                        && (x.node.name == name
                            || (counting && x.node.name.as_str().starts_with(name)))
                })
                .map(|(id, _)| id.clone())
                .min()
        };
        let mut evs = Vec::new();
        if let Some(container) = effect.strip_prefix("add-item:") {
            if let Some(cid) = find(st, container) {
                let n = st.nodes.get(&cid).map_or(0, |c| c.kids.len()) + 1;
                let child = FixtureNode {
                    role: Role::Button,
                    raw_role: None,
                    name: format!("Item {n}"),
                    description: String::new(),
                    label: None,
                    value: None,
                    states: vec!["focusable".into()],
                    disabled: false,
                    hidden: false,
                    bounds: None,
                    read_only: false,
                    actions: vec!["click".into()],
                    interfaces: None,
                    behaviour: Behaviour::default(),
                    children: vec![],
                    level: None,
                };
                let app = e.app.to_string();
                if let Ok(nid) = insert_tree(st, &child, Some(cid.clone()), &app)
                    && let Some(c) = st.nodes.get_mut(&cid)
                {
                    c.kids.push(nid.clone());
                    let index = c.kids.len() as i32 - 1;
                    evs.push(event(c, EventKind::ChildAdded { index }, &nid.0));
                }
            }
        } else if let Some(container) = effect.strip_prefix("remove-item:") {
            if let Some(cid) = find(st, container) {
                let last = st.nodes.get(&cid).and_then(|c| c.kids.last().cloned());
                if let Some(last) = last {
                    let mut stack = vec![last.clone()];
                    while let Some(cur) = stack.pop() {
                        if let Some(x) = st.nodes.remove(&cur) {
                            stack.extend(x.kids);
                        }
                    }
                    if let Some(c) = st.nodes.get_mut(&cid) {
                        c.kids.pop();
                        let index = c.kids.len() as i32;
                        evs.push(event(c, EventKind::ChildRemoved { index }, &last.0));
                    }
                }
            }
        } else if let Some(label) = effect.strip_prefix("count:")
            && let Some(lid) = find(st, label)
            && let Some(l) = st.nodes.get_mut(&lid)
        {
            let n: u64 = l
                .node
                .name
                .as_str()
                .rsplit(' ')
                .next()
                .and_then(|x| x.parse().ok())
                .unwrap_or(0);
            l.node.name = format!("Presses: {}", n + 1).into();
            evs.push(event(l, EventKind::NameChanged, l.node.name.as_str()));
        }
        evs
    }
}

/// Selects child `index` of a container: tabs, list rows, and a combo box's options (the
/// options are the items of the combo's menu, so the combo's own value follows).
fn select_child(st: &mut State_, container: &NodeId, index: usize) -> Vec<Event> {
    let Some(c) = st.nodes.get(container).cloned() else {
        return Vec::new();
    };
    let mut evs = Vec::new();
    // A combo's options sit under its menu child.
    let (items_parent, items) = if c.node.role.is_choice() {
        match c.kids.first().and_then(|m| st.nodes.get(m)) {
            Some(menu) => (menu.node.id.clone(), menu.kids.clone()),
            None => (container.clone(), c.kids.clone()),
        }
    } else {
        (container.clone(), c.kids.clone())
    };
    let Some(chosen) = items.get(index).cloned() else {
        return evs;
    };
    for (i, k) in items.iter().enumerate() {
        if let Some(item) = st.nodes.get_mut(k) {
            let sel = i == index;
            if item.node.states.has(State::Selected) != sel {
                item.node.states.set(State::Selected, sel);
                evs.push(event(
                    item,
                    EventKind::StateChanged {
                        state: "selected".into(),
                        on: sel,
                    },
                    "",
                ));
            }
        }
    }
    let label = st.nodes.get(&chosen).map(|x| x.node.name.clone());
    // The combo that owns this menu (or this container itself) shows the chosen label.
    let owner = if items_parent != *container {
        Some(container.clone())
    } else if c.node.role == Role::Menu {
        c.parent.clone()
    } else {
        None
    };
    if let Some(owner) = owner {
        if let Some(o) = st.nodes.get_mut(&owner)
            && o.node.role.is_choice()
        {
            o.node.name = label.clone().unwrap_or_default();
            evs.extend(store_value(o, Value::Choice { selected: label }));
        }
    } else if let Some(o) = st.nodes.get_mut(container) {
        evs.push(event(o, EventKind::SelectionChanged, ""));
    }
    evs
}

#[async_trait]
impl Backend for FixtureBackend {
    fn platform(&self) -> super::strategy::Platform {
        super::strategy::Platform::Fixture
    }

    fn name(&self) -> &'static str {
        "fixture"
    }

    fn is_demo(&self) -> bool {
        true
    }

    async fn apps(&self) -> Result<Vec<AppInfo>, BackendError> {
        self.pause().await;
        let st = lock(&self.inner);
        Ok(st
            .apps
            .iter()
            .map(|a| {
                let mut info = a.info.clone();
                info.windows = a
                    .windows
                    .iter()
                    .filter_map(|w| st.nodes.get(w))
                    .map(|e| WindowInfo {
                        id: e.node.id.clone(),
                        name: e.node.name.clone(),
                        role: e.node.role,
                        states: e.node.states,
                    })
                    .collect();
                info
            })
            .collect())
    }

    async fn snapshot(&self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError> {
        self.pause().await;
        self.snapshot_sync(root, limits)
    }

    async fn read_node(&self, id: &NodeId) -> Result<Node, BackendError> {
        self.pause().await;
        let st = lock(&self.inner);
        st.nodes
            .get(id)
            .map(|e| e.node.clone())
            .ok_or_else(|| BackendError::Vanished(id.to_string()))
    }

    async fn children(&self, id: &NodeId) -> Result<Vec<Node>, BackendError> {
        self.pause().await;
        let st = lock(&self.inner);
        let e = st
            .nodes
            .get(id)
            .ok_or_else(|| BackendError::Vanished(id.to_string()))?;
        Ok(e.kids
            .iter()
            .filter_map(|k| st.nodes.get(k).map(|x| x.node.clone()))
            .collect())
    }

    async fn write(&self, id: &NodeId, op: &WriteOp) -> WriteAck {
        self.pause().await;
        self.write_sync(id, op)
    }

    fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.inner.events.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_parses() {
        FixtureBackend::from_json(DEMO_APP_JSON).expect("demo app JSON must load");
    }

    fn lines(b: &FixtureBackend, limits: &Limits) -> Vec<String> {
        let st = lock(&b.inner);
        let root = st.apps[0].windows[0].clone();
        drop(st);
        let snap = b.snapshot_sync(&root, limits).expect("snapshot");
        snap.nodes
            .iter()
            .map(|n| format!("{} {} {}", n.depth, n.role, n.name.as_str()))
            .collect()
    }

    #[test]
    fn an_outline_builds_the_same_tree_as_nesting() {
        let nested = FixtureBackend::from_json(
            r#"{"apps":[{"name":"a","windows":[{"role":"frame","name":"w","children":[
                {"role":"panel","children":[{"role":"button","name":"b1"}]},
                {"role":"label","name":"l"}]}]}]}"#,
        )
        .expect("nested");
        let outline = FixtureBackend::from_json(
            r#"{"apps":[{"name":"a","outline":[
                {"level":0,"role":"frame","name":"w"},
                {"level":1,"role":"panel"},
                {"level":2,"role":"button","name":"b1"},
                {"level":1,"role":"label","name":"l"}]}]}"#,
        )
        .expect("outline");
        let limits = Limits::default();
        assert_eq!(lines(&nested, &limits), lines(&outline, &limits));
        assert_eq!(lines(&outline, &limits).len(), 4);
    }

    #[test]
    fn an_outline_carries_a_chain_deeper_than_json_nesting() {
        let entries: Vec<String> = (0..5000)
            .map(|l| format!(r#"{{"level":{l},"role":"panel","name":"n{l}"}}"#))
            .collect();
        let text = format!(
            r#"{{"apps":[{{"name":"deep","outline":[{}]}}]}}"#,
            entries.join(",")
        );
        let b = FixtureBackend::from_json(&text).expect("deep outline");
        let limits = Limits {
            max_depth: 10_000,
            ..Limits::default()
        };
        let got = lines(&b, &limits);
        assert_eq!(got.len(), 5000);
        assert_eq!(got[4999], "4999 panel n4999");
    }

    #[test]
    fn outline_levels_are_checked() {
        for (bad, why) in [
            (r#"[{"level":1,"role":"frame"}]"#, "level 1"),
            (
                r#"[{"level":0,"role":"frame"},{"level":2,"role":"panel"}]"#,
                "level 2",
            ),
            (r#"[{"role":"frame"}]"#, "no `level`"),
        ] {
            let text = format!(r#"{{"apps":[{{"name":"a","outline":{bad}}}]}}"#);
            let err = FixtureBackend::from_json(&text)
                .err()
                .expect(bad)
                .to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
        let nested_level = r#"{"apps":[{"name":"a","windows":[{"role":"frame","children":[{"level":1,"role":"panel"}]}]}]}"#;
        assert!(FixtureBackend::from_json(nested_level).is_err());
    }
}
