//! Raw AT-SPI calls with deadlines, and conversions from wire types to the model.

use std::time::{Duration, Instant};

use atspi::zbus;
use serde::de::DeserializeOwned;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

use crate::backend::BackendError;
use crate::model::{Interface, Interfaces, NodeId, Role, State, States};

pub const IFACE_ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
pub const IFACE_ACTION: &str = "org.a11y.atspi.Action";
pub const IFACE_TEXT: &str = "org.a11y.atspi.Text";
pub const IFACE_EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
pub const IFACE_VALUE: &str = "org.a11y.atspi.Value";
pub const IFACE_SELECTION: &str = "org.a11y.atspi.Selection";
pub const IFACE_COMPONENT: &str = "org.a11y.atspi.Component";
pub const IFACE_APPLICATION: &str = "org.a11y.atspi.Application";
pub const IFACE_CACHE: &str = "org.a11y.atspi.Cache";
pub const IFACE_PROPS: &str = "org.freedesktop.DBus.Properties";
pub const REGISTRY: &str = "org.a11y.atspi.Registry";
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
pub const CACHE_PATH: &str = "/org/a11y/atspi/cache";
pub const NULL_PATH: &str = "/org/a11y/atspi/null";

/// `(bus name, object path)` as AT-SPI sends object references.
pub type WireRef = (String, OwnedObjectPath);

/// Where an element lives on the bus.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjRef {
    pub bus: String,
    pub path: String,
}

impl ObjRef {
    pub fn new(bus: impl Into<String>, path: impl Into<String>) -> ObjRef {
        ObjRef {
            bus: bus.into(),
            path: path.into(),
        }
    }

    pub fn from_wire(w: &WireRef) -> ObjRef {
        ObjRef::new(w.0.clone(), w.1.as_str())
    }

    /// Null references (`/org/a11y/atspi/null`, or an empty bus name) point nowhere.
    pub fn is_null(&self) -> bool {
        self.path == NULL_PATH || self.bus.is_empty()
    }

    /// The node id: bus name directly followed by the path (`:1.42/org/a11y/atspi/accessible/7`).
    pub fn id(&self) -> NodeId {
        NodeId(format!("{}{}", self.bus, self.path))
    }

    /// Parses a node id made by [`ObjRef::id`].
    pub fn from_id(id: &NodeId) -> Result<ObjRef, BackendError> {
        let s = id.0.as_str();
        let slash = s
            .find('/')
            .ok_or_else(|| BackendError::Failed(format!("`{s}` is not an AT-SPI element id")))?;
        Ok(ObjRef::new(&s[..slash], &s[slash..]))
    }
}

/// A connection plus a shared deadline for one operation.
#[derive(Clone)]
pub struct Caller {
    pub conn: zbus::Connection,
    pub call_timeout: Duration,
    pub deadline: Option<Instant>,
}

impl Caller {
    pub fn new(conn: zbus::Connection, call_timeout: Duration) -> Caller {
        Caller {
            conn,
            call_timeout,
            deadline: None,
        }
    }

    pub fn with_deadline(&self, deadline: Instant) -> Caller {
        Caller {
            deadline: Some(deadline),
            ..self.clone()
        }
    }

    fn budget(&self) -> Duration {
        match self.deadline {
            Some(d) => self
                .call_timeout
                .min(d.saturating_duration_since(Instant::now())),
            None => self.call_timeout,
        }
    }

    /// Calls a method and deserializes its reply, within the call deadline.
    pub async fn call<B, R>(
        &self,
        obj: &ObjRef,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, BackendError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType + Sync,
        R: DeserializeOwned + zbus::zvariant::Type,
    {
        let budget = self.budget();
        if budget.is_zero() {
            return Err(BackendError::Timeout {
                what: format!("{iface}.{method}"),
                ms: 0,
            });
        }
        let fut = self.conn.call_method(
            Some(obj.bus.as_str()),
            obj.path.as_str(),
            Some(iface),
            method,
            body,
        );
        let msg = match tokio::time::timeout(budget, fut).await {
            Err(_) => {
                return Err(BackendError::Timeout {
                    what: format!("{iface}.{method} on {}", obj.bus),
                    ms: budget.as_millis() as u64,
                });
            }
            Ok(Err(e)) => return Err(map_err(e)),
            Ok(Ok(m)) => m,
        };
        msg.body()
            .deserialize::<R>()
            .map_err(|e| BackendError::Failed(format!("{iface}.{method}: bad reply: {e}")))
    }

    /// Reads one property.
    pub async fn prop<R>(&self, obj: &ObjRef, iface: &str, name: &str) -> Result<R, BackendError>
    where
        R: TryFrom<OwnedValue>,
    {
        let v: OwnedValue = self.call(obj, IFACE_PROPS, "Get", &(iface, name)).await?;
        R::try_from(v).map_err(|_| BackendError::Failed(format!("{iface}.{name}: unexpected type")))
    }
}

/// Maps zbus errors: an object or app that is gone is `Vanished`, not a generic failure.
pub fn map_err(e: zbus::Error) -> BackendError {
    let text = e.to_string();
    if let zbus::Error::MethodError(name, _, _) = &e {
        let n = name.as_str();
        if n.ends_with("UnknownObject")
            || n.ends_with("ServiceUnknown")
            || n.ends_with("NoReply")
            || n.ends_with("UnknownMethod") && text.contains("doesn't exist")
            || n.ends_with("Disconnected")
            || n.ends_with("NameHasNoOwner")
        {
            return BackendError::Vanished(text);
        }
    }
    BackendError::Failed(text)
}

/// AT-SPI role number to (normalised, raw name).
pub fn role_of(raw: u32) -> (Role, String) {
    match atspi::Role::try_from(raw) {
        Ok(r) => {
            // libatspi (and so pyatspi, Accerciser) call role 43 "push button"; the crate says "button".
            let name = match r.name() {
                "button" => "push button",
                other => other,
            };
            (Role::from_atspi_name(name), name.to_string())
        }
        Err(_) => (Role::Unknown, format!("role {raw}")),
    }
}

/// AT-SPI state words (`au`, two 32-bit words) to states.
pub fn states_of(words: &[u32]) -> States {
    let bits = words.first().copied().unwrap_or(0) as u64
        | (words.get(1).copied().unwrap_or(0) as u64) << 32;
    let mut out = States::EMPTY;
    for i in 0..64 {
        if bits & (1u64 << i) == 0 {
            continue;
        }
        if let Ok(set) = atspi::StateSet::from_bits(1u64 << i) {
            for s in set.iter() {
                if let Some(ours) = State::from_atspi_name(&s.to_string()) {
                    out.set(ours, true);
                }
            }
        }
    }
    out
}

/// D-Bus interface names to interfaces.
pub fn interfaces_of(names: &[String]) -> Interfaces {
    names
        .iter()
        .filter_map(|n| Interface::from_dbus_name(n))
        .collect()
}

/// Tidies states the way people read them: a text field that is not editable is read-only.
pub fn normalise_states(role: Role, states: &mut States, interfaces: Interfaces) {
    if (role.is_text() || role == Role::SpinButton)
        && interfaces.has(Interface::EditableText)
        && !states.has(State::Editable)
    {
        states.set(State::ReadOnly, true);
    }
    if role.is_text() && !interfaces.has(Interface::EditableText) && !states.has(State::Editable) {
        states.set(State::ReadOnly, true);
    }
}
