//! Nodes, values and the identity of an element in its backend.

use serde::{Deserialize, Serialize};

use super::{AppText, Interfaces, Role, State, States};

/// A backend's handle for one element (AT-SPI: the bus name then the object path,
/// `:1.42/org/a11y/atspi/accessible/7`; fixture: `f:<n>`).
/// Opaque outside the backend that issued it; stable across snapshots while the element lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub String);

impl NodeId {
    /// The bus name of the app that holds the element, where the id carries one (AT-SPI's
    /// `:1.42/org/a11y/...`); `None` for other backends' ids.
    pub fn bus(&self) -> Option<&str> {
        if !self.0.starts_with(':') {
            return None;
        }
        self.0.find('/').map(|i| &self.0[..i])
    }
}

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

/// Why an element's children are not enumerated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ManagedReason {
    /// It has the `manages-descendants` state: its children are made on demand (a
    /// spreadsheet's cells, a tree view's rows); enumerating them can hang the app.
    ManagesDescendants,
    /// It reports more children than any real container has (see the backend's bound).
    TooManyChildren,
}

/// What an element whose children are not enumerated says of them, and how many of its
/// descendants were read instead (the visible ones, found by position on the screen).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Managed {
    pub reason: ManagedReason,
    /// The child count the toolkit reports (LibreOffice Calc's sheet: 2147483647).
    pub child_count: i64,
    /// A table's size as it reports it (`None` for other elements, or when it says nothing).
    #[serde(default)]
    pub rows: Option<i64>,
    #[serde(default)]
    pub columns: Option<i64>,
    /// How many visible descendants were read; they are the element's children in the snapshot.
    pub shown: usize,
}

impl Managed {
    /// `manages its descendants (1,048,576 rows × 16,384 columns); showing the 40 visible`.
    pub fn describe(&self) -> String {
        let why = match self.reason {
            ManagedReason::ManagesDescendants => "manages its descendants",
            ManagedReason::TooManyChildren => "too many children to list",
        };
        let size = match (self.rows, self.columns) {
            (Some(r), Some(c)) => format!("{} rows × {} columns", group_digits(r), group_digits(c)),
            _ => format!("{} children", group_digits(self.child_count)),
        };
        let shown = match self.shown {
            0 => "none of them read".to_string(),
            n => format!("showing the {} visible", group_digits(n as i64)),
        };
        format!("{why} ({size}); {shown}")
    }
}

/// `1 char`, `7 chars`: a count with its noun, singular or plural (nouns with a plain `s`).
pub fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// `1048576` → `1,048,576`.
pub fn group_digits(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A node that stands for an element already in the snapshot: a children list named it again.
/// It is shown where it was named, as a leaf, and never entered; it is not an element of its own
/// (targets, audits and diffs skip it; its id is the element's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeat {
    /// The row where the element is.
    pub of: usize,
    /// The element is an ancestor of this place: the tree has a cycle here. Otherwise it is a
    /// child of two parents.
    pub cycle: bool,
}

/// The current value of a value-bearing node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Value {
    /// Text of an entry or text area. For password fields it is whatever the toolkit exposes
    /// (usually a mask), never what was written.
    Text { text: AppText },
    /// A number within `min..=max`. A bound or step the toolkit could not report is `None`
    /// (Chromium cannot read the minimum of some sliders): unknown, not zero.
    Number {
        current: f64,
        #[serde(default)]
        min: Option<f64>,
        #[serde(default)]
        max: Option<f64>,
        #[serde(default)]
        step: Option<f64>,
    },
    /// A toggle's state.
    Toggle { state: Toggle },
    /// The selected option of a combo box or drop-down (`None` when nothing is selected).
    Choice { selected: Option<AppText> },
}

impl Value {
    /// A short human form for tree rows and status lines.
    pub fn display(&self) -> String {
        match self {
            Value::Text { text } => text.quoted(0),
            Value::Number { current, .. } => format_number(*current),
            Value::Toggle { state } => match state {
                Toggle::On => "on".into(),
                Toggle::Off => "off".into(),
                Toggle::Mixed => "mixed".into(),
            },
            Value::Choice { selected } => match selected {
                Some(s) => s.quoted(0),
                None => "(none)".into(),
            },
        }
    }

    /// The value as plain text for matching queries (`None` for toggles).
    pub fn as_text(&self) -> Option<AppText> {
        match self {
            Value::Text { text } => Some(text.clone()),
            Value::Number { current, .. } => Some(format_number(*current).into()),
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

/// Words that make a text field secret even when the toolkit does not say so.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passphrase",
    "passcode",
    "passwd",
    "pwd",
    "pin",
    "secret",
    "token",
    "otp",
    "cvv",
    "cvc",
];

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
    pub name: AppText,
    pub description: AppText,
    /// The accessible names of the elements that label this one (AT-SPI `labelled-by`, UIA
    /// `LabeledBy`, AX `AXTitleUIElement`), joined with a space when there are several; `None`
    /// when the element has no such relation.
    #[serde(default)]
    pub label: Option<AppText>,
    pub value: Option<Value>,
    pub states: States,
    pub interfaces: Interfaces,
    /// Action names as the toolkit names them for programs (`click`, `press`, `check`): what
    /// writes match on and workflow files store. Empty when not read (AT-SPI snapshots read
    /// them only when asked; `Backend::read_node` always does).
    pub actions: Vec<AppText>,
    /// The toolkit's localized action names, for display only (same order as `actions`; empty
    /// when not read). Some bridges fill them with `;;` or nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub action_labels: Vec<AppText>,
    pub bounds: Option<Bounds>,
    /// Set on an element whose children are not enumerated (it manages its descendants, or
    /// has too many): what it says of them; its `children` are the visible ones read instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed: Option<Box<Managed>>,
    /// The child count the element claimed, when it gave fewer children than that (a bridge
    /// reporting a wrong count): its `children` are what it gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_count_claimed: Option<i64>,
    /// Set on a node that repeats an element placed elsewhere in the snapshot (see [`Repeat`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<Box<Repeat>>,
    /// Calls this element did not answer while its application answered others (`GetState`,
    /// `Name`): the fields they give are unknown, not empty. Never asked again in the same read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<String>,
    /// Calls this element answered in a form they never have (a wrong type), or with an error
    /// where an answer is due (a children list refused): their fields are unknown too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub malformed: Vec<String>,
    /// Calls that found the element gone during the read (`UnknownObject`): what it answered
    /// before is kept, the fields those calls give are unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vanished: Vec<String>,
    /// What the element's provider refused to give, each with why (UIA: the call and its
    /// HRESULT, `children (GetCachedChildren: 0x80004001 (E_NOTIMPL): …)`): unknown too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
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
            name: AppText::default(),
            description: AppText::default(),
            label: None,
            value: None,
            states: States::EMPTY,
            interfaces: Interfaces::EMPTY,
            actions: Vec::new(),
            action_labels: Vec::new(),
            bounds: None,
            managed: None,
            child_count_claimed: None,
            repeat: None,
            unanswered: Vec::new(),
            malformed: Vec::new(),
            vanished: Vec::new(),
            refused: Vec::new(),
            parent: None,
            children: Vec::new(),
            depth: 0,
        }
    }

    /// Whether it gave no usable answer to `call` (none, or one in a wrong form).
    pub fn lacks_answer(&self, call: &str) -> bool {
        self.unanswered
            .iter()
            .chain(&self.malformed)
            .chain(&self.vanished)
            .any(|c| c == call)
    }

    /// Whether some of its fields are unknown: calls it did not answer, answered wrongly, that
    /// found it gone, or that its provider refused.
    pub fn is_partial(&self) -> bool {
        !self.unanswered.is_empty()
            || !self.malformed.is_empty()
            || !self.vanished.is_empty()
            || !self.refused.is_empty()
    }

    /// Why nothing may be written to it, when some calls that say what it is gave no usable
    /// answer: `GetState did not answer (the app answers other calls)`.
    pub fn unanswered_note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.unanswered.is_empty() {
            parts.push(format!(
                "{} did not answer (the app answers other calls)",
                self.unanswered.join(", ")
            ));
        }
        if !self.malformed.is_empty() {
            parts.push(format!(
                "{} gave a wrong answer (a wrong form or an error)",
                self.malformed.join(", ")
            ));
        }
        if !self.vanished.is_empty() {
            parts.push(format!(
                "it vanished during the read ({} found it gone)",
                self.vanished.join(", ")
            ));
        }
        if !self.refused.is_empty() {
            parts.push(format!("refused: {}", self.refused.join("; ")));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Its action names for a message: each quoted (at most 40 characters), comma-separated;
    /// `none` when it has none.
    pub fn actions_listed(&self) -> String {
        if self.actions.is_empty() {
            return "none".into();
        }
        self.actions
            .iter()
            .map(|a| a.literal(40))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Enabled for input: AT-SPI and GTK report `enabled` and `sensitive` separately; either
    /// missing means a person could not use the element.
    pub fn is_enabled(&self) -> bool {
        self.states.has(State::Enabled) || self.states.has(State::Sensitive)
    }

    /// The one secrecy rule: whether the node's value is a secret that is never shown, copied,
    /// logged, recorded or echoed (only its length is). A password field is; so is a field that
    /// takes text and whose name or description has a word like password, PIN, token, secret
    /// or "API key" — toolkits often do not mark those as passwords.
    pub fn is_secret(&self) -> bool {
        if self.role == Role::PasswordText {
            return true;
        }
        if !self.takes_text() {
            return false;
        }
        let words = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect()
        };
        let mut all = words(self.name.as_str());
        all.extend(words(self.description.as_str()));
        all.iter().any(|w| SECRET_WORDS.contains(&w.as_str()))
            || all.windows(2).any(|p| p[0] == "api" && p[1] == "key")
    }

    /// Whether the node takes text (a text role, or an editable element that takes neither a
    /// number nor a choice).
    pub fn takes_text(&self) -> bool {
        self.role.is_text()
            || self.states.has(State::Editable) && !self.role.is_numeric() && !self.role.is_choice()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn node(role: Role, name: &str, description: &str) -> Node {
        let mut n = Node::new(NodeId("n".into()), role, "");
        n.name = name.into();
        n.description = description.into();
        n
    }

    #[test]
    fn one_rule_decides_what_is_secret() {
        assert!(node(Role::PasswordText, "Anything", "").is_secret());
        assert!(node(Role::Text, "PIN", "").is_secret());
        assert!(node(Role::Text, "API key", "").is_secret());
        assert!(node(Role::Text, "Access token", "").is_secret());
        assert!(node(Role::Text, "Code", "your one-time OTP").is_secret());
        assert!(!node(Role::Text, "Shipping address", "").is_secret());
        assert!(
            !node(Role::Text, "Spinner", "").is_secret(),
            "whole words only"
        );
        // Only fields that take text: a check box named "Remember password" has no secret.
        assert!(!node(Role::CheckBox, "Remember password", "").is_secret());
        assert!(!node(Role::Button, "Show PIN", "").is_secret());
    }
}

#[cfg(test)]
mod managed_tests {
    use super::*;

    #[test]
    fn describes_a_sheet_and_a_long_list() {
        let sheet = Managed {
            reason: ManagedReason::ManagesDescendants,
            child_count: 2_147_483_647,
            rows: Some(1_048_576),
            columns: Some(16_384),
            shown: 40,
        };
        assert_eq!(
            sheet.describe(),
            "manages its descendants (1,048,576 rows × 16,384 columns); showing the 40 visible"
        );
        let list = Managed {
            reason: ManagedReason::TooManyChildren,
            child_count: 12_000,
            rows: None,
            columns: None,
            shown: 0,
        };
        assert_eq!(
            list.describe(),
            "too many children to list (12,000 children); none of them read"
        );
        assert_eq!(group_digits(-1234), "-1,234");
        assert_eq!(group_digits(999), "999");
    }
}
