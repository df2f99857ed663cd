//! Reading a whole tree fast: one `Cache.GetItems` call paints most of it, concurrent per-node
//! calls fill its gaps, and a per-level concurrent walk serves apps whose cache answers empty.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures::StreamExt;
use futures::stream;
use zbus::zvariant::OwnedValue;

use super::bus::*;
use crate::backend::{BackendError, Limits};
use crate::model::{
    Interface, Interfaces, Node, Role, Snapshot, SnapshotId, State, States, Toggle, Truncation,
    Value, preorder,
};
use atspi::zbus;

/// How many calls one phase keeps in flight on the connection.
const IN_FLIGHT: usize = 256;

/// One element as read off the bus, before layout.
#[derive(Debug, Clone)]
pub struct RawNode {
    pub obj: ObjRef,
    pub child_count: i32,
    pub role: Role,
    pub raw_role: String,
    pub name: String,
    pub description: String,
    pub states: States,
    pub interfaces: Interfaces,
}

/// The wire form of a `Cache.GetItems` item (AT-SPI ≥ 2.34):
/// object, app, parent, index in parent, child count, interfaces, name, role, description, states.
type CacheItemWire = (
    WireRef,
    WireRef,
    WireRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// Reads all of one element but its children, with concurrent calls (four: role, the
/// Accessible properties in one `GetAll`, states, interfaces).
pub async fn read_raw(c: &Caller, obj: &ObjRef) -> Result<RawNode, BackendError> {
    let (role, props, states, ifaces) = tokio::join!(
        c.call::<_, u32>(obj, IFACE_ACCESSIBLE, "GetRole", &()),
        c.call::<_, HashMap<String, OwnedValue>>(obj, IFACE_PROPS, "GetAll", &(IFACE_ACCESSIBLE,)),
        c.call::<_, Vec<u32>>(obj, IFACE_ACCESSIBLE, "GetState", &()),
        c.call::<_, Vec<String>>(obj, IFACE_ACCESSIBLE, "GetInterfaces", &()),
    );
    let (role, raw_role) = role_of(role?);
    let interfaces = interfaces_of(&ifaces?);
    let mut states = states_of(&states?);
    normalise_states(role, &mut states, interfaces);
    let props = props?;
    let text = |k: &str| {
        props
            .get(k)
            .and_then(|v| String::try_from(v.try_clone().ok()?).ok())
            .unwrap_or_default()
    };
    Ok(RawNode {
        obj: obj.clone(),
        child_count: props
            .get("ChildCount")
            .and_then(|v| i32::try_from(v.try_clone().ok()?).ok())
            .unwrap_or(-1),
        role,
        raw_role,
        name: text("Name"),
        description: text("Description"),
        states,
        interfaces,
    })
}

/// The children of an element, in order.
pub async fn get_children(c: &Caller, obj: &ObjRef) -> Result<Vec<ObjRef>, BackendError> {
    let kids: Vec<WireRef> = c.call(obj, IFACE_ACCESSIBLE, "GetChildren", &()).await?;
    Ok(kids
        .iter()
        .map(ObjRef::from_wire)
        .filter(|k| !k.is_null())
        .collect())
}

/// Action names of an element.
pub async fn get_actions(c: &Caller, obj: &ObjRef) -> Result<Vec<String>, BackendError> {
    let acts: Vec<(String, String, String)> = c.call(obj, IFACE_ACTION, "GetActions", &()).await?;
    Ok(acts.into_iter().map(|(name, _, _)| name).collect())
}

/// The current value of a value-bearing element, chosen by role and interfaces.
pub async fn get_value(
    c: &Caller,
    obj: &ObjRef,
    role: Role,
    states: States,
    interfaces: Interfaces,
    name: &str,
    known: Option<&Known>,
) -> Result<Option<Value>, BackendError> {
    if role.is_toggle() {
        let state = if states.has(State::Indeterminate) {
            Toggle::Mixed
        } else if states.has(State::Checked) || states.has(State::Pressed) {
            Toggle::On
        } else {
            Toggle::Off
        };
        return Ok(Some(Value::Toggle { state }));
    }
    if interfaces.has(Interface::Value) && (role.is_numeric() || !interfaces.has(Interface::Text)) {
        let all: HashMap<String, OwnedValue> =
            c.call(obj, IFACE_PROPS, "GetAll", &(IFACE_VALUE,)).await?;
        let num = |k: &str| {
            all.get(k)
                .and_then(|v| f64::try_from(v.try_clone().ok()?).ok())
                .unwrap_or(0.0)
        };
        return Ok(Some(Value::Number {
            current: num("CurrentValue"),
            min: num("MinimumValue"),
            max: num("MaximumValue"),
            step: num("MinimumIncrement"),
        }));
    }
    if role.is_choice() {
        let selected = selected_label(c, obj, known).await.ok().flatten();
        return Ok(Some(Value::Choice {
            selected: selected.or_else(|| (!name.is_empty()).then(|| name.to_string())),
        }));
    }
    if interfaces.has(Interface::Text)
        && (role.is_text() || interfaces.has(Interface::EditableText))
    {
        return Ok(Some(Value::Text {
            text: get_text(c, obj).await?,
        }));
    }
    Ok(None)
}

/// Whole text of a Text element: `GetText(0, -1)` in one call; GTK 4 answers "" to that, so
/// an empty answer is checked against `CharacterCount`.
pub async fn get_text(c: &Caller, obj: &ObjRef) -> Result<String, BackendError> {
    let all: String = c.call(obj, IFACE_TEXT, "GetText", &(0i32, -1i32)).await?;
    if !all.is_empty() {
        return Ok(all);
    }
    let count: i32 = c.prop(obj, IFACE_TEXT, "CharacterCount").await?;
    if count <= 0 {
        return Ok(String::new());
    }
    c.call(obj, IFACE_TEXT, "GetText", &(0i32, count)).await
}

/// Roles and names already read in this snapshot, so value reads can skip calls for them.
pub type Known = HashMap<ObjRef, (Role, String)>;

/// The label of a combo box's selected option: the combo's selected child, or (GTK 3) the
/// selected child of the menu the combo selects.
async fn selected_label(
    c: &Caller,
    combo: &ObjRef,
    known: Option<&Known>,
) -> Result<Option<String>, BackendError> {
    let mut holder = combo.clone();
    for _ in 0..2 {
        let sel: Option<WireRef> = c
            .call(&holder, IFACE_SELECTION, "GetSelectedChild", &(0i32,))
            .await
            .ok();
        let sel = sel.map(|w| ObjRef::from_wire(&w)).filter(|o| !o.is_null());
        let Some(sel) = sel else {
            // No selection on this level: GTK 3 keeps it on the combo's only (menu) child.
            let kids = get_children(c, &holder).await?;
            match kids.as_slice() {
                [menu] if holder == *combo => {
                    holder = menu.clone();
                    continue;
                }
                _ => return Ok(None),
            }
        };
        let (role, name) = match known.and_then(|k| k.get(&sel)) {
            Some((r, n)) => (*r, Some(n.clone())),
            None => {
                let raw: u32 = c.call(&sel, IFACE_ACCESSIBLE, "GetRole", &()).await?;
                (role_of(raw).0, None)
            }
        };
        if role == Role::Menu {
            holder = sel;
            continue;
        }
        return Ok(Some(match name {
            Some(n) => n,
            None => c.prop(&sel, IFACE_ACCESSIBLE, "Name").await?,
        }));
    }
    Ok(None)
}

/// Action names already read, by element. Toolkits fix an element's actions when they create
/// it, so snapshots reuse them; writes always read them afresh.
pub type ActionCache = Arc<Mutex<HashMap<ObjRef, Vec<String>>>>;

/// Bound on remembered elements; the cache starts over past it.
const ACTION_CACHE_MAX: usize = 200_000;

/// An element's action names (from the cache when known) and value.
async fn read_extras(
    c: &Caller,
    o: &ObjRef,
    info: (Role, States, Interfaces, String),
    known: &Known,
    actions: &ActionCache,
) -> Extras {
    let (role, states, ifaces, name) = info;
    let cached = actions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(o)
        .cloned();
    let acts = async {
        match cached {
            Some(a) => Ok(a),
            None if ifaces.has(Interface::Action) => {
                let a = get_actions(c, o).await?;
                let mut cache = actions.lock().unwrap_or_else(|e| e.into_inner());
                if cache.len() >= ACTION_CACHE_MAX {
                    cache.clear();
                }
                cache.insert(o.clone(), a.clone());
                Ok(a)
            }
            None => Ok(Vec::new()),
        }
    };
    let val = get_value(c, o, role, states, ifaces, &name, Some(known));
    let (a, v) = tokio::join!(acts, val);
    Ok((a?, v?))
}

/// Turns a raw node into a model node (children are filled by layout).
fn to_node(raw: &RawNode) -> Node {
    let mut n = Node::new(raw.obj.id(), raw.role, raw.raw_role.clone());
    n.name = raw.name.clone();
    n.description = raw.description.clone();
    n.states = raw.states;
    n.interfaces = raw.interfaces;
    n
}

/// A node's action names and value, or why they could not be read.
type Extras = Result<(Vec<String>, Option<Value>), BackendError>;

struct Walk {
    caller: Caller,
    nodes: HashMap<ObjRef, RawNode>,
    /// Children by parent, from the cache: (index in parent, child).
    cached_kids: HashMap<ObjRef, Vec<(i32, ObjRef)>>,
    truncated: Option<Truncation>,
    unreadable: usize,
    hung: bool,
}

impl Walk {
    fn note_error(&mut self, e: &BackendError) {
        match e {
            BackendError::Timeout { .. } => {
                self.hung = true;
                self.truncated.get_or_insert(Truncation::Timeout);
            }
            _ => self.unreadable += 1,
        }
    }

    async fn load_cache(&mut self, bus: &str) -> Result<(), BackendError> {
        let cache = ObjRef::new(bus, CACHE_PATH);
        let items: Vec<CacheItemWire> =
            match self.caller.call(&cache, IFACE_CACHE, "GetItems", &()).await {
                Ok(items) => items,
                // Toolkits without the cache (or with the legacy signature) are walked instead.
                Err(BackendError::Failed(_)) => return Ok(()),
                Err(e) => return Err(e),
            };
        for (obj, _app, parent, index, children, ifaces, name, role, desc, states) in items {
            let obj = ObjRef::from_wire(&obj);
            let parent = ObjRef::from_wire(&parent);
            let (role, raw_role) = role_of(role);
            let interfaces = interfaces_of(&ifaces);
            let mut st = states_of(&states);
            normalise_states(role, &mut st, interfaces);
            if !parent.is_null() {
                self.cached_kids
                    .entry(parent.clone())
                    .or_default()
                    .push((index, obj.clone()));
            }
            self.nodes.insert(
                obj.clone(),
                RawNode {
                    obj,
                    child_count: children,
                    role,
                    raw_role,
                    name,
                    description: desc,
                    states: st,
                    interfaces,
                },
            );
        }
        Ok(())
    }

    /// Children of `obj` from the cache when the cache is whole for it.
    fn kids_from_cache(&self, obj: &ObjRef) -> Option<Vec<ObjRef>> {
        let raw = self.nodes.get(obj)?;
        if raw.states.has(State::ManagesDescendants) || raw.child_count < 0 {
            return None;
        }
        let mut kids = self.cached_kids.get(obj).cloned().unwrap_or_default();
        if kids.len() != raw.child_count as usize || kids.iter().any(|(i, _)| *i < 0) {
            return None;
        }
        kids.sort_by_key(|(i, _)| *i);
        Some(kids.into_iter().map(|(_, k)| k).collect())
    }
}

/// What one pass over the known part of the tree found: the layout so far and what is missing.
#[derive(Default)]
struct Pass {
    /// Placed elements in breadth-first order (the root first).
    order: Vec<ObjRef>,
    /// Children of each placed element, in order, already capped.
    kids: HashMap<ObjRef, Vec<ObjRef>>,
    truncated: Option<Truncation>,
    /// Placed elements whose children list must be fetched.
    need_list: Vec<ObjRef>,
    /// Placed elements not read yet.
    need_raw: Vec<ObjRef>,
    /// Placed, read elements whose actions and value are not read yet.
    need_extras: Vec<ObjRef>,
}

/// Lays out what is known, breadth-first from `root`, within the caps.
fn layout(
    w: &Walk,
    root: &ObjRef,
    limits: &Limits,
    fetched: &HashMap<ObjRef, Vec<ObjRef>>,
    extras: &HashMap<ObjRef, Extras>,
    failed: &HashSet<ObjRef>,
) -> Pass {
    let mut p = Pass::default();
    let mut seen: HashSet<ObjRef> = [root.clone()].into_iter().collect();
    let mut level = vec![root.clone()];
    p.order.push(root.clone());
    let mut depth = 0usize;
    'levels: while !level.is_empty() {
        let mut next = Vec::new();
        for o in &level {
            let Some(raw) = w.nodes.get(o) else {
                if !failed.contains(o) {
                    p.need_raw.push(o.clone());
                }
                continue;
            };
            if !extras.contains_key(o) && !failed.contains(o) {
                p.need_extras.push(o.clone());
            }
            if raw.child_count == 0 {
                continue;
            }
            let list = match fetched.get(o) {
                Some(k) => Some(k.clone()),
                None => w.kids_from_cache(o),
            };
            let Some(mut list) = list else {
                if !failed.contains(o) {
                    p.need_list.push(o.clone());
                }
                continue;
            };
            if depth >= limits.max_depth {
                if !list.is_empty() {
                    p.truncated.get_or_insert(Truncation::DepthCap);
                }
                continue;
            }
            if list.len() > limits.max_siblings {
                list.truncate(limits.max_siblings);
                p.truncated.get_or_insert(Truncation::SiblingCap);
            }
            list.retain(|k| seen.insert(k.clone()));
            let mut placed = Vec::with_capacity(list.len());
            for k in list {
                if p.order.len() >= limits.max_nodes {
                    p.truncated.get_or_insert(Truncation::NodeCap);
                    p.kids.insert(o.clone(), placed);
                    break 'levels;
                }
                p.order.push(k.clone());
                next.push(k.clone());
                placed.push(k);
            }
            p.kids.insert(o.clone(), placed);
        }
        level = next;
        depth += 1;
    }
    p
}

/// One concurrent round's answers.
enum Answer {
    List(ObjRef, Result<Vec<ObjRef>, BackendError>),
    Raw(
        ObjRef,
        Box<Result<RawNode, BackendError>>,
        Option<Extras>,
        Option<Result<Vec<ObjRef>, BackendError>>,
    ),
    Extras(ObjRef, Extras),
}

/// Reads the tree under `root` within `limits`: paint from the cache, then fetch everything
/// still missing (children lists of gaps, unknown elements, actions and values) in concurrent
/// rounds, one round per level of elements the cache did not know.
pub async fn read_tree(
    caller: &Caller,
    root: &ObjRef,
    limits: &Limits,
    app_name: String,
    actions: &ActionCache,
) -> Result<Snapshot, BackendError> {
    let started = Instant::now();
    let caller = caller.with_deadline(started + limits.timeout);
    let mut w = Walk {
        caller: caller.clone(),
        nodes: HashMap::new(),
        cached_kids: HashMap::new(),
        truncated: None,
        unreadable: 0,
        hung: false,
    };
    if let Err(e) = w.load_cache(&root.bus).await {
        match e {
            BackendError::Timeout { .. } => {
                return Ok(empty_snapshot(app_name, started, Truncation::Timeout));
            }
            BackendError::Vanished(_) => return Err(e),
            other => w.note_error(&other),
        }
    }
    let t_cache = started.elapsed();
    if !w.nodes.contains_key(root) {
        match read_raw(&caller, root).await {
            Ok(r) => {
                w.nodes.insert(root.clone(), r);
            }
            Err(BackendError::Timeout { .. }) => {
                return Ok(empty_snapshot(app_name, started, Truncation::Timeout));
            }
            Err(e) => return Err(e),
        }
    }

    let mut fetched: HashMap<ObjRef, Vec<ObjRef>> = HashMap::new();
    let mut extras: HashMap<ObjRef, Extras> = HashMap::new();
    let mut failed: HashSet<ObjRef> = HashSet::new();
    let mut rounds = 0;
    let pass = loop {
        let mut pass = layout(&w, root, limits, &fetched, &extras, &failed);
        if rounds == 0 && w.nodes.len() <= limits.max_nodes {
            // First round: everything the cache knows whose children or extras are missing,
            // reachable yet or not, so gaps below gaps do not cost a round each.
            let mut listed: HashSet<ObjRef> = pass.need_list.iter().cloned().collect();
            let mut extra: HashSet<ObjRef> = pass.need_extras.iter().cloned().collect();
            for (o, raw) in &w.nodes {
                if raw.child_count != 0
                    && w.kids_from_cache(o).is_none()
                    && listed.insert(o.clone())
                {
                    pass.need_list.push(o.clone());
                }
                if extra.insert(o.clone()) {
                    pass.need_extras.push(o.clone());
                }
            }
        }
        let idle =
            pass.need_list.is_empty() && pass.need_raw.is_empty() && pass.need_extras.is_empty();
        if idle || w.hung {
            break pass;
        }
        rounds += 1;
        if std::env::var_os("TREEGLASS_TRACE_READ").is_some() {
            eprintln!(
                "  round {rounds} at {:?}: {} lists, {} raw, {} extras",
                started.elapsed(),
                pass.need_list.len(),
                pass.need_raw.len(),
                pass.need_extras.len()
            );
        }
        let c = caller.clone();
        let mut jobs: Vec<(u8, ObjRef)> = Vec::new();
        jobs.extend(pass.need_list.iter().map(|o| (0u8, o.clone())));
        jobs.extend(pass.need_raw.iter().map(|o| (1u8, o.clone())));
        jobs.extend(pass.need_extras.iter().map(|o| (2u8, o.clone())));
        let infos: HashMap<ObjRef, (Role, States, Interfaces, String)> = pass
            .need_extras
            .iter()
            .filter_map(|o| {
                w.nodes
                    .get(o)
                    .map(|r| (o.clone(), (r.role, r.states, r.interfaces, r.name.clone())))
            })
            .collect();
        let known: Arc<Known> = Arc::new(
            w.nodes
                .iter()
                .map(|(o, r)| (o.clone(), (r.role, r.name.clone())))
                .collect(),
        );
        let answers: Vec<Answer> = stream::iter(jobs)
            .map(|(kind, o)| {
                let c = c.clone();
                let info = infos.get(&o).cloned();
                let known = known.clone();
                let actions = actions.clone();
                async move {
                    match kind {
                        0 => {
                            let r = get_children(&c, &o).await;
                            Answer::List(o, r)
                        }
                        1 => {
                            // An element the cache did not know: read it, then its actions and
                            // value in the same task, saving a round.
                            let r = read_raw(&c, &o).await;
                            let (extras, list) = match &r {
                                Ok(raw) => {
                                    let info =
                                        (raw.role, raw.states, raw.interfaces, raw.name.clone());
                                    // Its children list too, so the level below costs no round.
                                    let list = async {
                                        if raw.child_count != 0 {
                                            Some(get_children(&c, &o).await)
                                        } else {
                                            None
                                        }
                                    };
                                    let (e, l) = tokio::join!(
                                        read_extras(&c, &o, info, &known, &actions),
                                        list
                                    );
                                    (Some(e), l)
                                }
                                Err(_) => (None, None),
                            };
                            Answer::Raw(o, Box::new(r), extras, list)
                        }
                        _ => {
                            let info = info.unwrap_or((
                                Role::Unknown,
                                States::EMPTY,
                                Interfaces::EMPTY,
                                String::new(),
                            ));
                            let r = read_extras(&c, &o, info, &known, &actions).await;
                            Answer::Extras(o, r)
                        }
                    }
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        for a in answers {
            match a {
                Answer::List(o, Ok(k)) => {
                    fetched.insert(o, k);
                }
                Answer::Raw(o, r, ex, list) => match *r {
                    Ok(raw) => {
                        w.nodes.insert(o.clone(), raw);
                        match list {
                            Some(Ok(k)) => {
                                fetched.insert(o.clone(), k);
                            }
                            Some(Err(e)) => {
                                w.note_error(&e);
                                failed.insert(o.clone());
                            }
                            None => {}
                        }
                        match ex {
                            Some(Err(e)) => {
                                w.note_error(&e);
                                failed.insert(o.clone());
                                extras.insert(o, Err(e));
                            }
                            Some(ok) => {
                                extras.insert(o, ok);
                            }
                            None => {}
                        }
                    }
                    Err(e) => {
                        w.note_error(&e);
                        failed.insert(o);
                    }
                },
                Answer::Extras(o, r) => {
                    if let Err(e) = &r {
                        w.note_error(e);
                        failed.insert(o.clone());
                    }
                    extras.insert(o, r);
                }
                Answer::List(o, Err(e)) => {
                    w.note_error(&e);
                    failed.insert(o);
                }
            }
        }
    };
    let truncated = w.truncated.or(pass.truncated);

    let order: Vec<ObjRef> = pass
        .order
        .into_iter()
        .filter(|o| w.nodes.contains_key(o))
        .collect();
    let index_of: HashMap<&ObjRef, usize> = order.iter().enumerate().map(|(i, o)| (o, i)).collect();
    let mut nodes: Vec<Node> = order
        .iter()
        .map(|o| {
            let mut n = w
                .nodes
                .get(o)
                .map(to_node)
                .unwrap_or_else(|| Node::new(o.id(), Role::Unknown, "unknown"));
            if let Some(Ok((acts, val))) = extras.get(o) {
                n.actions = acts.clone();
                n.value = val.clone();
            }
            if let Some(k) = pass.kids.get(o) {
                n.children = k.iter().filter_map(|k| index_of.get(k).copied()).collect();
            }
            n
        })
        .collect();
    if std::env::var_os("TREEGLASS_TRACE_READ").is_some() {
        eprintln!(
            "read: {} nodes ({} known) cache {:?} total {:?} in {rounds} rounds",
            nodes.len(),
            w.nodes.len(),
            t_cache,
            started.elapsed(),
        );
    }
    let window = match nodes.first() {
        Some(n) if n.role != Role::Application => n.name.clone(),
        _ => String::new(),
    };
    let nodes = if nodes.is_empty() {
        nodes
    } else {
        preorder(std::mem::take(&mut nodes), 0)
    };
    Ok(Snapshot {
        id: SnapshotId::next(),
        app: app_name,
        window,
        nodes,
        truncated,
        unreadable: w.unreadable,
        read_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}

fn empty_snapshot(app: String, started: Instant, why: Truncation) -> Snapshot {
    Snapshot {
        id: SnapshotId::next(),
        app,
        window: String::new(),
        nodes: Vec::new(),
        truncated: Some(why),
        unreadable: 0,
        read_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}
