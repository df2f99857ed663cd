//! Nodes, values and the identity of an element in its backend.

use serde::{Deserialize, Serialize};

use super::{Interfaces, Role, State, States};

/// A backend's handle for one element (AT-SPI: `bus-name:object-path`; fixture: `f:<n>`).
/// Opaque outside the backend that issued it; stable across snapshots while the element lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub String);

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The tri-state of a toggle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Toggle {
    Off,
    On,
    Mixed,
}

/// The current value of a value-bearing node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Value {
    /// Text of an entry or text area. For password fields it is whatever the toolkit exposes
    /// (usually a mask), never what was written.
    Text { text: String },
    /// A number within `min..=max`.
    Number {
        current: f64,
        min: f64,
        max: f64,
        #[serde(default)]
        step: f64,
    },
    /// A toggle's state.
    Toggle { state: Toggle },
    /// The selected option of a combo box or drop-down (`None` when nothing is selected).
    Choice { selected: Option<String> },
}

impl Value {
    /// A short human form for tree rows and status lines.
    pub fn display(&self) -> String {
        match self {
            Value::Text { text } => super::quoted(text, 0),
            Value::Number { current, .. } => format_number(*current),
            Value::Toggle { state } => match state {
                Toggle::On => "on".into(),
                Toggle::Off => "off".into(),
                Toggle::Mixed => "mixed".into(),
            },
            Value::Choice { selected } => match selected {
                Some(s) => super::quoted(s, 0),
                None => "(none)".into(),
            },
        }
    }

    /// The value as plain text for matching queries (`None` for toggles).
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Text { text } => Some(text.clone()),
            Value::Number { current, .. } => Some(format_number(*current)),
            Value::Choice { selected } => selected.clone(),
            Value::Toggle { .. } => None,
        }
    }
}

/// Prints a number without a trailing `.0` when it is integral.
pub fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Screen bounds in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

/// One element of a snapshot. `parent` and `children` are rows in the same snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub id: NodeId,
    pub role: Role,
    pub raw_role: String,
    pub name: String,
    pub description: String,
    /// The accessible names of the elements that label this one (AT-SPI `labelled-by`, UIA
    /// `LabeledBy`, AX `AXTitleUIElement`), joined with a space when there are several; `None`
    /// when the element has no such relation.
    #[serde(default)]
    pub label: Option<String>,
    pub value: Option<Value>,
    pub states: States,
    pub interfaces: Interfaces,
    pub actions: Vec<String>,
    pub bounds: Option<Bounds>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub depth: u32,
}

impl Node {
    /// A node with only identity and role; the rest empty.
    pub fn new(id: NodeId, role: Role, raw_role: impl Into<String>) -> Node {
        Node {
            id,
            role,
            raw_role: raw_role.into(),
            name: String::new(),
            description: String::new(),
            label: None,
            value: None,
            states: States::EMPTY,
            interfaces: Interfaces::EMPTY,
            actions: Vec::new(),
            bounds: None,
            parent: None,
            children: Vec::new(),
            depth: 0,
        }
    }

    /// Enabled for input: AT-SPI and GTK report `enabled` and `sensitive` separately; either
    /// missing means a person could not use the element.
    pub fn is_enabled(&self) -> bool {
        self.states.has(State::Enabled) || self.states.has(State::Sensitive)
    }

    /// Whether the node is a secret field whose text must never be echoed.
    pub fn is_secret(&self) -> bool {
        self.role == Role::PasswordText
    }

    /// Whether the node takes a value through `set`.
    pub fn is_editable_kind(&self) -> bool {
        self.role.is_text()
            || self.role.is_numeric()
            || self.role.is_toggle()
            || self.role.is_choice()
            || self.role.is_selectable_item()
            || self.role == Role::Expander
            || self.states.has(State::Editable)
    }
}
