//! Element references on the bus and conversions from AT-SPI wire values to the model.

use zbus::zvariant::OwnedObjectPath;

use crate::backend::BackendError;
use crate::model::{Interface, Interfaces, NodeId, Role, State, States};

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

/// The highest AT-SPI role number (`ATSPI_ROLE_LAST_DEFINED` − 1 in at-spi2-core 2.46 is 129;
/// a little room for newer ones).
pub const ROLE_MAX: u32 = 140;

/// Every AT-SPI role number that [`role_of`] maps to `role`.
pub fn raw_roles(role: Role) -> Vec<u32> {
    (0..=ROLE_MAX).filter(|r| role_of(*r).0 == role).collect()
}

/// AT-SPI role number to (normalised, raw name).
pub fn role_of(raw: u32) -> (Role, String) {
    match atspi_common::Role::try_from(raw) {
        Ok(r) => {
            // libatspi (and so pyatspi, Accerciser) call role 43 "push button"; the crate says "button".
            let name = match r.name() {
                "button" => "push button",
                other => other,
            };
            (super::roles::role(name), name.to_string())
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
        if let Ok(set) = atspi_common::StateSet::from_bits(1u64 << i) {
            for s in set.iter() {
                if let Some(ours) = State::from_loose_name(&s.to_string()) {
                    out.set(ours, true);
                }
            }
        }
    }
    out
}

/// Maps a D-Bus interface name (`org.a11y.atspi.EditableText`) to an interface.
pub fn interface_of(raw: &str) -> Option<Interface> {
    Interface::from_short_name(raw.rsplit('.').next().unwrap_or(raw))
}

/// D-Bus interface names to interfaces.
pub fn interfaces_of(names: &[String]) -> Interfaces {
    names.iter().filter_map(|n| interface_of(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbus_interface_names() {
        assert_eq!(
            interface_of("org.a11y.atspi.EditableText"),
            Some(Interface::EditableText)
        );
    }
}
