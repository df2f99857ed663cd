//! Reading a whole tree fast: one `Cache.GetItems` call paints most of it, concurrent per-node
//! calls fill its gaps, and a per-level concurrent walk serves apps whose cache answers empty.

use std::collections::HashMap;
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

/// Reads all of one element but its children, with concurrent calls.
pub async fn read_raw(c: &Caller, obj: &ObjRef) -> Result<RawNode, BackendError> {
    let (role, name, desc, states, ifaces, count) = tokio::join!(
        c.call::<_, u32>(obj, IFACE_ACCESSIBLE, "GetRole", &()),
        c.prop::<String>(obj, IFACE_ACCESSIBLE, "Name"),
        c.prop::<String>(obj, IFACE_ACCESSIBLE, "Description"),
        c.call::<_, Vec<u32>>(obj, IFACE_ACCESSIBLE, "GetState", &()),
        c.call::<_, Vec<String>>(obj, IFACE_ACCESSIBLE, "GetInterfaces", &()),
        c.prop::<i32>(obj, IFACE_ACCESSIBLE, "ChildCount"),
    );
    let (role, raw_role) = role_of(role?);
    let interfaces = interfaces_of(&ifaces?);
    let mut states = states_of(&states?);
    normalise_states(role, &mut states, interfaces);
    Ok(RawNode {
        obj: obj.clone(),
        child_count: count.unwrap_or(-1),
        role,
        raw_role,
        name: name?,
        description: desc.unwrap_or_default(),
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
        let selected = selected_label(c, obj).await.ok().flatten();
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

/// Whole text of a Text element. GTK 4 answers "" to `GetText(0, -1)`, so ask for the count first.
pub async fn get_text(c: &Caller, obj: &ObjRef) -> Result<String, BackendError> {
    let count: i32 = c.prop(obj, IFACE_TEXT, "CharacterCount").await?;
    if count <= 0 {
        return Ok(String::new());
    }
    c.call(obj, IFACE_TEXT, "GetText", &(0i32, count)).await
}

/// The label of a combo box's selected option: the selected child of the combo (or of its menu).
async fn selected_label(c: &Caller, combo: &ObjRef) -> Result<Option<String>, BackendError> {
    let mut holder = combo.clone();
    for _ in 0..2 {
        let n: i32 = c
            .prop(&holder, IFACE_SELECTION, "NSelectedChildren")
            .await
            .unwrap_or(0);
        if n > 0 {
            let sel: WireRef = c
                .call(&holder, IFACE_SELECTION, "GetSelectedChild", &(0i32,))
                .await?;
            let sel = ObjRef::from_wire(&sel);
            if sel.is_null() {
                return Ok(None);
            }
            let role: u32 = c.call(&sel, IFACE_ACCESSIBLE, "GetRole", &()).await?;
            if matches!(role_of(role).0, Role::Menu) {
                holder = sel;
                continue;
            }
            return Ok(Some(c.prop(&sel, IFACE_ACCESSIBLE, "Name").await?));
        }
        // GTK 3 puts the options in a menu child whose Selection holds the choice.
        let kids = get_children(c, &holder).await?;
        match kids.first() {
            Some(menu) if kids.len() == 1 => holder = menu.clone(),
            _ => return Ok(None),
        }
    }
    Ok(None)
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

/// Reads the tree under `root` within `limits`.
pub async fn read_tree(
    caller: &Caller,
    root: &ObjRef,
    limits: &Limits,
    app_name: String,
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

    // Breadth-first by level: each level's missing pieces are fetched concurrently.
    let mut order: Vec<ObjRef> = vec![root.clone()];
    let mut kids_of: HashMap<ObjRef, Vec<ObjRef>> = HashMap::new();
    let mut level: Vec<ObjRef> = vec![root.clone()];
    let mut depth = 0usize;
    let mut seen: std::collections::HashSet<ObjRef> = [root.clone()].into_iter().collect();
    while !level.is_empty() && !w.hung {
        if depth >= limits.max_depth {
            if level
                .iter()
                .any(|o| w.nodes.get(o).is_some_and(|r| r.child_count != 0))
            {
                w.truncated.get_or_insert(Truncation::DepthCap);
            }
            break;
        }
        // Children lists: from the cache where it is whole, else GetChildren.
        let mut need_list = Vec::new();
        for o in &level {
            match w.kids_from_cache(o) {
                Some(k) => {
                    kids_of.insert(o.clone(), k);
                }
                None => {
                    if w.nodes.get(o).is_some_and(|r| r.child_count != 0) {
                        need_list.push(o.clone());
                    }
                }
            }
        }
        let c = caller.clone();
        let lists: Vec<(ObjRef, Result<Vec<ObjRef>, BackendError>)> = stream::iter(need_list)
            .map(|o| {
                let c = c.clone();
                async move {
                    let r = get_children(&c, &o).await;
                    (o, r)
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        for (o, r) in lists {
            match r {
                Ok(k) => {
                    kids_of.insert(o, k);
                }
                Err(e) => w.note_error(&e),
            }
        }
        // Next level, with sibling and node caps; unknown children are read in full.
        let mut next = Vec::new();
        let mut missing = Vec::new();
        'outer: for o in &level {
            let Some(kids) = kids_of.get_mut(o) else {
                continue;
            };
            if kids.len() > limits.max_siblings {
                kids.truncate(limits.max_siblings);
                w.truncated.get_or_insert(Truncation::SiblingCap);
            }
            kids.retain(|k| seen.insert(k.clone()));
            for k in kids.iter() {
                if order.len() + next.len() >= limits.max_nodes {
                    w.truncated.get_or_insert(Truncation::NodeCap);
                    break 'outer;
                }
                if !w.nodes.contains_key(k) {
                    missing.push(k.clone());
                }
                next.push(k.clone());
            }
        }
        let read: Vec<(ObjRef, Result<RawNode, BackendError>)> = stream::iter(missing)
            .map(|o| {
                let c = c.clone();
                async move {
                    let r = read_raw(&c, &o).await;
                    (o, r)
                }
            })
            .buffer_unordered(IN_FLIGHT / 4)
            .collect()
            .await;
        for (o, r) in read {
            match r {
                Ok(raw) => {
                    w.nodes.insert(o, raw);
                }
                Err(e) => w.note_error(&e),
            }
        }
        next.retain(|k| w.nodes.contains_key(k));
        order.extend(next.iter().cloned());
        level = next;
        depth += 1;
    }

    // Actions and values, concurrently for the nodes that have them.
    let index_of: HashMap<ObjRef, usize> = order
        .iter()
        .enumerate()
        .map(|(i, o)| (o.clone(), i))
        .collect();
    let mut nodes: Vec<Node> = order
        .iter()
        .map(|o| {
            w.nodes
                .get(o)
                .map(to_node)
                .unwrap_or_else(|| crate::model::Node::new(o.id(), Role::Unknown, "unknown"))
        })
        .collect();
    for (o, i) in &index_of {
        if let Some(k) = kids_of.get(o) {
            nodes[*i].children = k.iter().filter_map(|k| index_of.get(k).copied()).collect();
        }
    }
    if !w.hung {
        let c = caller.clone();
        let jobs: Vec<(usize, ObjRef, Role, States, Interfaces, String)> = order
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let n = &nodes[i];
                (i, o.clone(), n.role, n.states, n.interfaces, n.name.clone())
            })
            .collect();
        let extras: Vec<(usize, Extras)> =
            stream::iter(jobs)
                .map(|(i, o, role, states, ifaces, name)| {
                    let c = c.clone();
                    async move {
                        let acts = async {
                            if ifaces.has(Interface::Action) {
                                get_actions(&c, &o).await
                            } else {
                                Ok(Vec::new())
                            }
                        };
                        let val = get_value(&c, &o, role, states, ifaces, &name);
                        let (a, v) = tokio::join!(acts, val);
                        (i, a.and_then(|a| Ok((a, v?))))
                    }
                })
                .buffer_unordered(IN_FLIGHT)
                .collect()
                .await;
        for (i, r) in extras {
            match r {
                Ok((acts, val)) => {
                    nodes[i].actions = acts;
                    nodes[i].value = val;
                }
                Err(e) => w.note_error(&e),
            }
        }
    }
    let window = match nodes.first() {
        Some(n) if n.role != Role::Application => n.name.clone(),
        _ => String::new(),
    };
    Ok(Snapshot {
        id: SnapshotId::next(),
        app: app_name,
        window,
        nodes: preorder(nodes, 0),
        truncated: w.truncated,
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
