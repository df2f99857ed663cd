//! Linux AT-SPI2 backend: bulk tree reads, events drained continuously, writes through the
//! semantic interfaces. Platform handles stay here; only model data leaves.

mod bus;
mod reader;

use std::time::{Duration, Instant};

use async_trait::async_trait;
use atspi::zbus;
use futures::StreamExt;
use tokio::sync::broadcast;

use self::bus::*;
use super::{
    AppInfo, Backend, BackendError, Event, EventKind, Limits, WindowInfo, WriteAck, WriteOp,
};
use crate::model::{Bounds, Interface, Node, NodeId, Role, Snapshot};

/// The AT-SPI2 backend over one connection to the accessibility bus.
pub struct AtspiBackend {
    caller: Caller,
    actions: reader::ActionCache,
    events: broadcast::Sender<Event>,
    _pump: tokio::task::JoinHandle<()>,
}

impl Drop for AtspiBackend {
    fn drop(&mut self) {
        self._pump.abort();
    }
}

/// Event kinds treeglass asks applications to send (registering only these keeps the noisy
/// bounds-changed stream away).
const EVENTS: &[&str] = &[
    "object:children-changed",
    "object:property-change",
    "object:state-changed",
    "object:text-changed",
    "object:selection-changed",
    "focus:",
    "window:create",
    "window:destroy",
];

impl AtspiBackend {
    /// Connects to the accessibility bus: `AT_SPI_BUS_ADDRESS` or `A11Y_BUS_ADDRESS` when set,
    /// else the address the session bus gives (`org.a11y.Bus.GetAddress`). Fails within `timeout`.
    pub async fn connect(timeout: Duration) -> Result<AtspiBackend, BackendError> {
        let conn = tokio::time::timeout(timeout, open_connection())
            .await
            .map_err(|_| {
                BackendError::Unavailable(format!(
                    "no answer from the accessibility bus within {} ms",
                    timeout.as_millis()
                ))
            })??;
        let caller = Caller::new(conn, Limits::default().call_timeout);
        let (tx, _) = broadcast::channel(4096);
        // The registry only forwards events that some listener registered for.
        let registry = ObjRef::new(REGISTRY, "/org/a11y/atspi/registry");
        for ev in EVENTS {
            let _ = tokio::time::timeout(
                timeout,
                caller.call::<_, ()>(
                    &registry,
                    "org.a11y.atspi.Registry",
                    "RegisterEvent",
                    &(*ev,),
                ),
            )
            .await;
        }
        let pump = tokio::spawn(pump_events(caller.conn.clone(), tx.clone()));
        Ok(AtspiBackend {
            caller,
            actions: Default::default(),
            events: tx,
            _pump: pump,
        })
    }

    fn caller(&self) -> &Caller {
        &self.caller
    }
}

/// Opens a plain connection to the accessibility bus. Only raw calls with deadlines go over
/// it (no proxies that make calls of their own on creation).
async fn open_connection() -> Result<zbus::Connection, BackendError> {
    let unavailable =
        |what: &str, e: zbus::Error| BackendError::Unavailable(format!("{what}: {e}"));
    let address = match ["AT_SPI_BUS_ADDRESS", "A11Y_BUS_ADDRESS"]
        .iter()
        .find_map(|var| {
            std::env::var(var)
                .ok()
                .filter(|a| !a.is_empty())
                .map(|a| (*var, a))
        }) {
        Some((_, addr)) => addr,
        None => {
            if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none()
                && std::env::var_os("XDG_RUNTIME_DIR").is_none()
            {
                return Err(BackendError::Unavailable(
                    "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)".into(),
                ));
            }
            let session = zbus::Connection::session()
                .await
                .map_err(|e| unavailable("session bus", e))?;
            let reply = session
                .call_method(
                    Some("org.a11y.Bus"),
                    "/org/a11y/bus",
                    Some("org.a11y.Bus"),
                    "GetAddress",
                    &(),
                )
                .await
                .map_err(|e| unavailable("org.a11y.Bus.GetAddress", e))?;
            reply
                .body()
                .deserialize::<String>()
                .map_err(|e| BackendError::Unavailable(format!("org.a11y.Bus.GetAddress: {e}")))?
        }
    };
    let addr: zbus::Address = address
        .parse()
        .map_err(|e| unavailable("accessibility bus address", e))?;
    zbus::connection::Builder::address(addr)
        .map_err(|e| unavailable("accessibility bus address", e))?
        .build()
        .await
        .map_err(|e| unavailable("accessibility bus", e))
}

/// Drains every AT-SPI signal into the broadcast channel. An undrained stream would block
/// every other call on the connection, so this runs for the backend's whole life.
async fn pump_events(conn: zbus::Connection, tx: broadcast::Sender<Event>) {
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .build()
        .to_owned();
    let mut stream = match zbus::MessageStream::for_match_rule(rule, &conn, Some(1024)).await {
        Ok(s) => s,
        Err(_) => return,
    };
    while let Some(msg) = stream.next().await {
        let Ok(msg) = msg else { continue };
        if let Some(ev) = convert_event(&msg) {
            let _ = tx.send(ev);
        }
    }
}

fn convert_event(msg: &zbus::Message) -> Option<Event> {
    let h = msg.header();
    let iface = h.interface()?.as_str().to_string();
    let member = h.member()?.as_str().to_string();
    let sender = h.sender()?.as_str().to_string();
    let path = h.path()?.as_str().to_string();
    if !iface.starts_with("org.a11y.atspi.Event.") {
        return None;
    }
    let body = msg.body();
    let (detail, d1): (String, i32) = match body.deserialize::<zbus::zvariant::Structure<'_>>() {
        Ok(s) => {
            let f = s.fields();
            let detail = f
                .first()
                .and_then(|v| <&str>::try_from(v).ok())
                .unwrap_or("")
                .to_string();
            let d1 = f.get(1).and_then(|v| i32::try_from(v).ok()).unwrap_or(0);
            (detail, d1)
        }
        Err(_) => (String::new(), 0),
    };
    let kind = match (iface.rsplit('.').next().unwrap_or(""), member.as_str()) {
        ("Object", "ChildrenChanged") if detail.starts_with("add") => {
            EventKind::ChildAdded { index: d1 }
        }
        ("Object", "ChildrenChanged") => EventKind::ChildRemoved { index: d1 },
        ("Object", "PropertyChange") => match detail.as_str() {
            "accessible-name" => EventKind::NameChanged,
            "accessible-description" => EventKind::DescriptionChanged,
            "accessible-value" => EventKind::ValueChanged,
            other => EventKind::Other {
                name: format!("property-change:{other}"),
            },
        },
        ("Object", "StateChanged") => EventKind::StateChanged {
            state: detail.clone(),
            on: d1 != 0,
        },
        ("Object", "TextChanged") => EventKind::TextChanged,
        ("Object", "SelectionChanged") => EventKind::SelectionChanged,
        ("Focus", "Focus") => EventKind::Focus,
        ("Window", "Create") => EventKind::WindowOpened,
        ("Window", "Destroy") => EventKind::WindowClosed,
        (_, m) => EventKind::Other {
            name: m.to_string(),
        },
    };
    let obj = ObjRef::new(sender.clone(), path);
    Some(Event {
        kind,
        source: obj.id(),
        app: sender,
        detail,
        at: Some(Instant::now()),
    })
}

#[async_trait]
impl Backend for AtspiBackend {
    fn name(&self) -> &'static str {
        "atspi"
    }

    async fn apps(&self) -> Result<Vec<AppInfo>, BackendError> {
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(5));
        let root = ObjRef::new(REGISTRY, ROOT_PATH);
        let apps = reader::get_children(&c, &root).await?;
        let infos = futures::future::join_all(apps.into_iter().map(|a| {
            let c = c.clone();
            async move { app_info(&c, a).await }
        }))
        .await;
        // Apps that vanished or hung while being listed are left out rather than failing all.
        Ok(infos.into_iter().flatten().collect())
    }

    async fn snapshot(&self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError> {
        let obj = ObjRef::from_id(root)?;
        let c = Caller::new(self.caller.conn.clone(), limits.call_timeout);
        let app_obj = ObjRef::new(obj.bus.clone(), ROOT_PATH);
        let name_caller = c.with_deadline(Instant::now() + limits.call_timeout);
        // The app's name travels with the tree read instead of before it.
        let (app_name, snap) = tokio::join!(
            name_caller.prop::<String>(&app_obj, IFACE_ACCESSIBLE, "Name"),
            reader::read_tree(&c, &obj, limits, String::new(), &self.actions)
        );
        let mut snap = snap?;
        snap.app = app_name.unwrap_or_default();
        Ok(snap)
    }

    async fn read_node(&self, id: &NodeId) -> Result<Node, BackendError> {
        let obj = ObjRef::from_id(id)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout * 2);
        let raw = reader::read_raw(&c, &obj).await?;
        let mut node = Node::new(obj.id(), raw.role, raw.raw_role.clone());
        node.name = raw.name.clone();
        node.description = raw.description.clone();
        node.states = raw.states;
        node.interfaces = raw.interfaces;
        let acts = async {
            if raw.interfaces.has(Interface::Action) {
                reader::get_actions(&c, &obj).await
            } else {
                Ok(Vec::new())
            }
        };
        let val = reader::get_value(
            &c,
            &obj,
            raw.role,
            raw.states,
            raw.interfaces,
            &raw.name,
            None,
        );
        let bounds = async {
            if raw.interfaces.has(Interface::Component) {
                c.call::<_, (i32, i32, i32, i32)>(&obj, IFACE_COMPONENT, "GetExtents", &(0u32,))
                    .await
                    .ok()
            } else {
                None
            }
        };
        let (acts, val, bounds) = tokio::join!(acts, val, bounds);
        node.actions = acts.unwrap_or_default();
        node.value = val?;
        node.bounds = bounds.map(|(x, y, width, height)| Bounds {
            x,
            y,
            width,
            height,
        });
        Ok(node)
    }

    async fn children(&self, id: &NodeId) -> Result<Vec<Node>, BackendError> {
        let obj = ObjRef::from_id(id)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(3));
        let kids = reader::get_children(&c, &obj).await?;
        let ids: Vec<NodeId> = kids.iter().map(ObjRef::id).collect();
        let nodes = futures::future::join_all(ids.iter().map(|k| self.read_node(k))).await;
        Ok(nodes.into_iter().flatten().collect())
    }

    async fn write(&self, id: &NodeId, op: &WriteOp) -> WriteAck {
        let obj = ObjRef::from_id(id)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout);
        match op {
            WriteOp::SetText(text) => {
                c.call::<_, bool>(
                    &obj,
                    IFACE_EDITABLE_TEXT,
                    "SetTextContents",
                    &(text.as_str(),),
                )
                .await
            }
            WriteOp::SetNumber(v) => {
                let value = zbus::zvariant::Value::from(*v);
                c.call::<_, ()>(
                    &obj,
                    IFACE_PROPS,
                    "Set",
                    &(IFACE_VALUE, "CurrentValue", value),
                )
                .await
                .map(|_| true)
            }
            WriteOp::DoAction(name) => {
                let acts = reader::get_actions(&c, &obj).await?;
                let index = acts
                    .iter()
                    .position(|a| a.eq_ignore_ascii_case(name))
                    .ok_or_else(|| {
                        BackendError::Unsupported(format!(
                            "no action `{name}` (has: {})",
                            acts.join(", ")
                        ))
                    })?;
                c.call::<_, bool>(&obj, IFACE_ACTION, "DoAction", &(index as i32,))
                    .await
            }
            WriteOp::SelectChild(index) => {
                c.call::<_, bool>(&obj, IFACE_SELECTION, "SelectChild", &(*index as i32,))
                    .await
            }
            WriteOp::Focus => {
                c.call::<_, bool>(&obj, IFACE_COMPONENT, "GrabFocus", &())
                    .await
            }
            WriteOp::SelectAllText => {
                let count: i32 = c.prop(&obj, IFACE_TEXT, "CharacterCount").await?;
                c.call::<_, bool>(&obj, IFACE_TEXT, "SetSelection", &(0i32, 0i32, count))
                    .await
                    .or(c
                        .call::<_, bool>(&obj, IFACE_TEXT, "AddSelection", &(0i32, count))
                        .await)
            }
            WriteOp::TypeText(text) => {
                // KEY_STRING (4): the device event controller types the string as key presses.
                let dec = ObjRef::new(REGISTRY, "/org/a11y/atspi/registry/deviceeventcontroller");
                c.call::<_, ()>(
                    &dec,
                    "org.a11y.atspi.DeviceEventController",
                    "GenerateKeyboardEvent",
                    &(0i32, text.as_str(), 4u32),
                )
                .await
                .map(|_| true)
            }
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }
}

async fn app_info(c: &Caller, app: ObjRef) -> Option<AppInfo> {
    let dbus = ObjRef::new("org.freedesktop.DBus", "/org/freedesktop/DBus");
    let bus_arg = (app.bus.clone(),);
    let (name, kids, pid, toolkit, version) = tokio::join!(
        c.prop::<String>(&app, IFACE_ACCESSIBLE, "Name"),
        reader::get_children(c, &app),
        c.call::<_, u32>(
            &dbus,
            "org.freedesktop.DBus",
            "GetConnectionUnixProcessID",
            &bus_arg
        ),
        c.prop::<String>(&app, IFACE_APPLICATION, "ToolkitName"),
        c.prop::<String>(&app, IFACE_APPLICATION, "Version"),
    );
    let name = name.ok()?;
    let windows = futures::future::join_all(kids.unwrap_or_default().into_iter().map(|w| {
        let c = c.clone();
        async move {
            let (n, r, s) = tokio::join!(
                c.prop::<String>(&w, IFACE_ACCESSIBLE, "Name"),
                c.call::<_, u32>(&w, IFACE_ACCESSIBLE, "GetRole", &()),
                c.call::<_, Vec<u32>>(&w, IFACE_ACCESSIBLE, "GetState", &()),
            );
            Some(WindowInfo {
                id: w.id(),
                name: n.ok()?,
                role: role_of(r.ok()?).0,
                states: states_of(&s.unwrap_or_default()),
            })
        }
    }))
    .await;
    Some(AppInfo {
        id: app.id(),
        name,
        pid: pid.ok(),
        bus_name: app.bus.clone(),
        toolkit: toolkit.ok().filter(|t| !t.is_empty()),
        toolkit_version: version.ok().filter(|v| !v.is_empty()),
        windows: windows
            .into_iter()
            .flatten()
            .filter(|w| w.role != Role::Unknown || !w.name.is_empty())
            .collect(),
    })
}
