//! Pure UI Automation mapping: control type ids → roles, UIA properties → states, available
//! patterns → interfaces and actions, property values → values, and the choice of a write
//! plan per role. Plain functions over numbers, strings and [`UiaElement`] records (what the
//! IO module reads with one cache request, or what a JSON trace replays). Compiled and tested
//! on every platform.
//!
//! Numbers follow the UIA headers and the `uiautomation` crate (`types::ControlType`,
//! `types::UIProperty`, `patterns::UIPatternType`, `types::ToggleState`,
//! `types::ExpandCollapseState`, `types::HeadingLevel`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use super::hresult::*;
use crate::backend::strategy::{Capability as C, Mapped, NoWay, When, WritePlan, WriteRules};
use crate::backend::{EventKind, WriteOp};
use crate::model::{
    AppText, Bounds, Interface, Interfaces, Node, NodeId, Role, State, States, Toggle, Value,
};

/// UIA control types: id, name (as the `uiautomation` crate's `ControlType` spells it), and
/// the role before refinements (see [`role_of`]).
pub const CONTROL_TYPES: &[(i32, &str, Role)] = &[
    (50000, "Button", Role::Button),
    (50001, "Calendar", Role::Table),
    (50002, "CheckBox", Role::CheckBox),
    (50003, "ComboBox", Role::ComboBox),
    (50004, "Edit", Role::Text),
    (50005, "Hyperlink", Role::Link),
    (50006, "Image", Role::Image),
    (50007, "ListItem", Role::ListItem),
    (50008, "List", Role::List),
    (50009, "Menu", Role::Menu),
    (50010, "MenuBar", Role::MenuBar),
    (50011, "MenuItem", Role::MenuItem),
    (50012, "ProgressBar", Role::ProgressBar),
    (50013, "RadioButton", Role::RadioButton),
    (50014, "ScrollBar", Role::ScrollBar),
    (50015, "Slider", Role::Slider),
    (50016, "Spinner", Role::SpinButton),
    (50017, "StatusBar", Role::StatusBar),
    (50018, "Tab", Role::TabList),
    (50019, "TabItem", Role::Tab),
    (50020, "Text", Role::Label),
    (50021, "ToolBar", Role::ToolBar),
    (50022, "ToolTip", Role::ToolTip),
    (50023, "Tree", Role::Tree),
    (50024, "TreeItem", Role::TreeItem),
    (50025, "Custom", Role::Unknown),
    (50026, "Group", Role::Group),
    (50027, "Thumb", Role::Unknown),
    (50028, "DataGrid", Role::Table),
    (50029, "DataItem", Role::TableRow),
    (50030, "Document", Role::Document),
    (50031, "SplitButton", Role::Button),
    (50032, "Window", Role::Window),
    (50033, "Pane", Role::Panel),
    (50034, "Header", Role::Group),
    (50035, "HeaderItem", Role::ColumnHeader),
    (50036, "Table", Role::Table),
    (50037, "TitleBar", Role::Panel),
    (50038, "Separator", Role::Separator),
    (50039, "SemanticZoom", Role::Panel),
    (50040, "AppBar", Role::ToolBar),
];

/// The first and last control type id UIA defines.
pub const CONTROL_TYPE_RANGE: (i32, i32) = (50000, 50040);

/// The control type's name (`"Button"`), or `None` for an id UIA does not define.
pub fn control_type_name(id: i32) -> Option<&'static str> {
    CONTROL_TYPES
        .iter()
        .find(|(i, _, _)| *i == id)
        .map(|(_, n, _)| *n)
}

/// The control type's base role (`Unknown` for an unknown id).
pub fn base_role(id: i32) -> Role {
    CONTROL_TYPES
        .iter()
        .find(|(i, _, _)| *i == id)
        .map_or(Role::Unknown, |(_, _, r)| *r)
}

macro_rules! patterns {
    ($($variant:ident = $id:literal, $avail:literal),* $(,)?) => {
        /// A UIA control pattern treeglass reads or writes through.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Pattern { $($variant),* }

        impl Pattern {
            /// Every pattern, in declaration order.
            pub const ALL: &'static [Pattern] = &[$(Pattern::$variant),*];

            /// The name, as the `uiautomation` crate's `UIPatternType` spells it.
            pub fn name(self) -> &'static str {
                match self { $(Pattern::$variant => stringify!($variant)),* }
            }

            /// The pattern id (`UIA_PATTERN_ID`, 10000…).
            pub fn id(self) -> i32 {
                match self { $(Pattern::$variant => $id),* }
            }

            /// The `Is…PatternAvailable` property id (`UIA_PROPERTY_ID`, 30000…), cached in
            /// bulk reads to learn which patterns an element has.
            pub fn availability_property(self) -> i32 {
                match self { $(Pattern::$variant => $avail),* }
            }

            /// Parses a name as [`Pattern::name`] prints it.
            pub fn from_name(name: &str) -> Option<Pattern> {
                match name { $(stringify!($variant) => Some(Pattern::$variant),)* _ => None }
            }

            /// The pattern with this id.
            pub fn from_id(id: i32) -> Option<Pattern> {
                match id { $($id => Some(Pattern::$variant),)* _ => None }
            }
        }
    };
}

patterns! {
    Invoke = 10000, 30031,
    Selection = 10001, 30037,
    Value = 10002, 30043,
    RangeValue = 10003, 30033,
    Scroll = 10004, 30034,
    ExpandCollapse = 10005, 30028,
    Grid = 10006, 30030,
    GridItem = 10007, 30029,
    Window = 10009, 30044,
    SelectionItem = 10010, 30036,
    Table = 10012, 30038,
    TableItem = 10013, 30039,
    Text = 10014, 30040,
    Toggle = 10015, 30041,
    ScrollItem = 10017, 30035,
    LegacyIAccessible = 10018, 30090,
}

/// A set of [`Pattern`]; in traces, a list of pattern names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Patterns(pub u32);

impl Patterns {
    pub const EMPTY: Patterns = Patterns(0);

    pub fn has(self, p: Pattern) -> bool {
        self.0 & (1 << p as u32) != 0
    }

    pub fn with(mut self, p: Pattern) -> Self {
        self.0 |= 1 << p as u32;
        self
    }

    pub fn iter(self) -> impl Iterator<Item = Pattern> {
        Pattern::ALL.iter().copied().filter(move |p| self.has(*p))
    }
}

impl FromIterator<Pattern> for Patterns {
    fn from_iter<I: IntoIterator<Item = Pattern>>(iter: I) -> Self {
        iter.into_iter().fold(Patterns::EMPTY, |s, p| s.with(p))
    }
}

impl Serialize for Patterns {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(Pattern::name))
    }
}

impl<'de> Deserialize<'de> for Patterns {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let names = Vec::<String>::deserialize(d)?;
        names
            .iter()
            .map(|n| {
                Pattern::from_name(n)
                    .ok_or_else(|| serde::de::Error::custom(format!("unknown UIA pattern `{n}`")))
            })
            .collect()
    }
}

/// `RangeValuePattern` properties.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UiaRange {
    pub value: f64,
    pub minimum: f64,
    pub maximum: f64,
    pub small_change: f64,
    pub is_read_only: bool,
}

/// `ToggleState` values.
pub const TOGGLE_OFF: i32 = 0;
pub const TOGGLE_ON: i32 = 1;
pub const TOGGLE_INDETERMINATE: i32 = 2;

/// `ExpandCollapseState` values.
pub const EXPAND_COLLAPSED: i32 = 0;
pub const EXPAND_EXPANDED: i32 = 1;
pub const EXPAND_PARTIALLY: i32 = 2;
pub const EXPAND_LEAF: i32 = 3;

/// `OrientationType` values.
pub const ORIENTATION_HORIZONTAL: i32 = 1;
pub const ORIENTATION_VERTICAL: i32 = 2;

/// One element as read from UIA (or replayed from a trace): the cached properties of one
/// element and its children. Optional pattern properties are `None` when the pattern is absent
/// or the property unsupported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UiaElement {
    /// `RuntimeId`: unique on the desktop while the element lives.
    pub runtime_id: Vec<i32>,
    pub control_type: i32,
    pub name: String,
    pub automation_id: String,
    pub class_name: String,
    pub help_text: String,
    pub localized_control_type: String,
    pub framework_id: String,
    pub process_id: u32,
    pub is_enabled: bool,
    pub has_keyboard_focus: bool,
    pub is_keyboard_focusable: bool,
    pub is_offscreen: bool,
    pub is_password: bool,
    pub is_required_for_form: bool,
    pub is_data_valid_for_form: bool,
    pub is_dialog: bool,
    pub window_is_modal: bool,
    /// `OrientationType` (0 none, 1 horizontal, 2 vertical).
    pub orientation: i32,
    /// Heading level 1–9, 0 for none (see [`heading_level`]).
    pub heading_level: u8,
    pub patterns: Patterns,
    /// `ValuePattern.Value` (or, for an edit without it, the `TextPattern` document text).
    pub value: Option<String>,
    pub value_is_read_only: Option<bool>,
    pub range: Option<UiaRange>,
    /// `TogglePattern.ToggleState` (0 off, 1 on, 2 indeterminate).
    pub toggle_state: Option<i32>,
    /// `ExpandCollapsePattern.ExpandCollapseState` (0 collapsed, 1 expanded, 2 partially, 3 leaf).
    pub expand_collapse_state: Option<i32>,
    /// `SelectionItemPattern.IsSelected`.
    pub is_selected: Option<bool>,
    pub bounds: Option<Bounds>,
    /// `NativeWindowHandle`: the window handle of an element that is a window (0 for none).
    #[serde(skip_serializing_if = "is_zero")]
    pub native_window_handle: i64,
    pub children: Vec<UiaElement>,
    /// What was refused for this element, each with its call, HRESULT and who refused: its
    /// children, the cached properties beyond the core ones, its runtime id. The node is read
    /// in part (its `unanswered`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    /// In a trace only: the calls the recorded provider failed on this element, by name
    /// ([`FAULT_CALLS`]), each with its HRESULT as a name (`E_NOTIMPL`) or in hex
    /// (`0x80004001`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub faults: BTreeMap<String, String>,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// The calls a trace may record a fault for ([`UiaElement::faults`]).
pub const FAULT_CALLS: &[&str] = &["BuildUpdatedCache", "GetCachedChildren", "FindAll"];

/// The properties a cache request keeps when the provider rejects the full one: what says
/// what an element is and where (with which patterns it has).
pub const CORE_PROPERTIES: &[&str] = &[
    "RuntimeId",
    "ControlType",
    "Name",
    "ProcessId",
    "IsEnabled",
    "BoundingRectangle",
];

impl UiaElement {
    /// The fault a trace recorded for `call` on this element.
    pub fn fault(&self, call: &str) -> Option<super::read::Fault> {
        let code = parse_hresult(self.faults.get(call)?)?;
        Some(super::read::Fault::new(code))
    }

    /// The element as a read with only [`CORE_PROPERTIES`] (and the pattern flags) sees it.
    pub fn core_only(self) -> UiaElement {
        UiaElement {
            runtime_id: self.runtime_id,
            control_type: self.control_type,
            name: self.name,
            process_id: self.process_id,
            is_enabled: self.is_enabled,
            bounds: self.bounds,
            patterns: self.patterns,
            children: self.children,
            unread: self.unread,
            ..UiaElement::default()
        }
    }

    /// Checks a trace's faults: known calls, readable HRESULTs.
    pub fn check_faults(&self) -> Result<(), String> {
        for (call, code) in &self.faults {
            if !FAULT_CALLS.contains(&call.as_str()) {
                return Err(format!(
                    "unknown call `{call}` in faults (known: {})",
                    FAULT_CALLS.join(", ")
                ));
            }
            if parse_hresult(code).is_none() {
                return Err(format!(
                    "`{code}` for {call} is not an HRESULT (a name such as E_NOTIMPL, or hex)"
                ));
            }
        }
        self.children.iter().try_for_each(UiaElement::check_faults)
    }
}

crate::backend::record::recorded!(UiaElement, node_from);

impl Default for UiaElement {
    fn default() -> Self {
        UiaElement {
            runtime_id: Vec::new(),
            control_type: 0,
            name: String::new(),
            automation_id: String::new(),
            class_name: String::new(),
            help_text: String::new(),
            localized_control_type: String::new(),
            framework_id: String::new(),
            process_id: 0,
            // UIA reports these for nearly every element; a trace that leaves them out means
            // the usual value.
            is_enabled: true,
            has_keyboard_focus: false,
            is_keyboard_focusable: false,
            is_offscreen: false,
            is_password: false,
            is_required_for_form: false,
            is_data_valid_for_form: true,
            is_dialog: false,
            window_is_modal: false,
            orientation: 0,
            heading_level: 0,
            patterns: Patterns::EMPTY,
            value: None,
            value_is_read_only: None,
            range: None,
            toggle_state: None,
            expand_collapse_state: None,
            is_selected: None,
            bounds: None,
            native_window_handle: 0,
            children: Vec::new(),
            unread: Vec::new(),
            faults: BTreeMap::new(),
        }
    }
}

/// The node id of an element: `uia:` and its runtime id, dot-separated (`uia:42.1234.7`).
pub fn node_id(runtime_id: &[i32]) -> NodeId {
    let parts: Vec<String> = runtime_id.iter().map(i32::to_string).collect();
    NodeId(format!("uia:{}", parts.join(".")))
}

/// The runtime id in a node id made by [`node_id`].
pub fn runtime_id_of(id: &NodeId) -> Option<Vec<i32>> {
    let rest = id.0.strip_prefix("uia:")?;
    if rest.is_empty() {
        return None;
    }
    rest.split('.').map(|p| p.parse().ok()).collect()
}

/// The `HeadingLevel` property (80050 none, 80051–80059 levels 1–9) as a level, 0 for none.
pub fn heading_level(raw: i32) -> u8 {
    match raw {
        80051..=80059 => (raw - 80050) as u8,
        _ => 0,
    }
}

/// The raw role name: the control type's name, or `ControlType(<id>)` for an unknown id.
pub fn raw_role(control_type: i32) -> String {
    control_type_name(control_type)
        .map(str::to_string)
        .unwrap_or_else(|| format!("ControlType({control_type})"))
}

/// The role of an element: the control type's base role, refined by what UIA says elsewhere
/// (a password edit, a button with a toggle pattern, a dialog window, …).
pub fn role_of(e: &UiaElement) -> Role {
    let base = base_role(e.control_type);
    let p = e.patterns;
    let switch_class = e.class_name.eq_ignore_ascii_case("ToggleSwitch");
    match base {
        Role::Text if e.is_password => Role::PasswordText,
        Role::Button | Role::CheckBox if switch_class && p.has(Pattern::Toggle) => Role::Switch,
        Role::Button if p.has(Pattern::Toggle) && e.control_type == 50000 => Role::ToggleButton,
        Role::Window if e.is_dialog => Role::Dialog,
        Role::MenuItem if p.has(Pattern::Toggle) => Role::CheckMenuItem,
        Role::MenuItem if p.has(Pattern::SelectionItem) => Role::RadioMenuItem,
        Role::Group if p.has(Pattern::ExpandCollapse) => Role::Expander,
        Role::Label if e.heading_level > 0 => Role::Heading,
        other => other,
    }
}

/// The toggle state of a `ToggleState` value.
pub fn toggle_of(raw: i32) -> Option<Toggle> {
    match raw {
        TOGGLE_OFF => Some(Toggle::Off),
        TOGGLE_ON => Some(Toggle::On),
        TOGGLE_INDETERMINATE => Some(Toggle::Mixed),
        _ => None,
    }
}

/// States an `ExpandCollapseState` value stands for.
pub fn expand_states(raw: i32) -> States {
    match raw {
        EXPAND_COLLAPSED => States::EMPTY.with(State::Expandable).with(State::Collapsed),
        EXPAND_EXPANDED | EXPAND_PARTIALLY => {
            States::EMPTY.with(State::Expandable).with(State::Expanded)
        }
        _ => States::EMPTY,
    }
}

/// Roles whose `ValuePattern`, when writable, makes the element an editable text.
fn text_valued(role: Role) -> bool {
    matches!(
        role,
        Role::Text
            | Role::PasswordText
            | Role::Document
            | Role::ComboBox
            | Role::TableCell
            | Role::Unknown
    )
}

/// Whether the element's `ValuePattern` can be written.
fn value_writable(e: &UiaElement) -> bool {
    e.patterns.has(Pattern::Value) && e.value_is_read_only == Some(false)
}

/// The states of an element, from its UIA properties.
pub fn states_of(e: &UiaElement, role: Role) -> States {
    let mut s = States::EMPTY;
    let p = e.patterns;
    if e.is_enabled {
        s = s.with(State::Enabled).with(State::Sensitive);
    }
    if !e.is_offscreen {
        s = s.with(State::Showing).with(State::Visible);
    }
    if e.has_keyboard_focus {
        s = s.with(State::Focused);
    }
    if e.is_keyboard_focusable {
        s = s.with(State::Focusable);
    }
    if p.has(Pattern::Toggle) {
        s = s.with(State::Checkable);
        match e.toggle_state.and_then(toggle_of) {
            Some(Toggle::On) => s = s.with(State::Checked),
            Some(Toggle::Mixed) => s = s.with(State::Indeterminate),
            _ => {}
        }
    }
    if p.has(Pattern::SelectionItem) {
        s = s.with(State::Selectable);
        if e.is_selected == Some(true) {
            s = s.with(State::Selected);
            // A radio button is "checked" when selected.
            if matches!(role, Role::RadioButton | Role::RadioMenuItem) {
                s = s.with(State::Checked);
            }
        }
    }
    if let Some(raw) = e.expand_collapse_state {
        for st in expand_states(raw).iter() {
            s = s.with(st);
        }
    }
    if p.has(Pattern::Value) && text_valued(role) {
        match e.value_is_read_only {
            Some(true) => s = s.with(State::ReadOnly),
            Some(false) => s = s.with(State::Editable),
            None => {}
        }
    }
    if role.is_text() && !p.has(Pattern::Value) {
        // An edit with only TextPattern can still be typed into when it takes focus.
        if p.has(Pattern::Text) && e.is_keyboard_focusable {
            s = s.with(State::Editable);
        } else {
            s = s.with(State::ReadOnly);
        }
    }
    if let Some(r) = e.range
        && r.is_read_only
    {
        s = s.with(State::ReadOnly);
    }
    if role.is_numeric() && !p.has(Pattern::RangeValue) && p.has(Pattern::Value) {
        match e.value_is_read_only {
            Some(true) => s = s.with(State::ReadOnly),
            Some(false) => s = s.with(State::Editable),
            None => {}
        }
    }
    if role == Role::ComboBox {
        s = s.with(State::HasPopup);
    }
    if e.is_required_for_form {
        s = s.with(State::Required);
    }
    if !e.is_data_valid_for_form {
        s = s.with(State::Invalid);
    }
    if e.window_is_modal {
        s = s.with(State::Modal);
    }
    match e.orientation {
        ORIENTATION_HORIZONTAL => s = s.with(State::Horizontal),
        ORIENTATION_VERTICAL => s = s.with(State::Vertical),
        _ => {}
    }
    s
}

/// Interfaces (treeglass's capability vocabulary) an element's patterns stand for:
/// `RangeValue` → `value`; writable `Value` → `editable-text` (and `text`); `Text` → `text`;
/// `Selection` → `selection`; action patterns → `action`; tables and cells.
pub fn interfaces_of(e: &UiaElement, role: Role) -> Interfaces {
    let p = e.patterns;
    let mut i = Interfaces::EMPTY.with(Interface::Accessible);
    if e.bounds.is_some() {
        i = i.with(Interface::Component);
    }
    if [
        Pattern::Invoke,
        Pattern::Toggle,
        Pattern::SelectionItem,
        Pattern::ExpandCollapse,
    ]
    .iter()
    .any(|x| p.has(*x))
    {
        i = i.with(Interface::Action);
    }
    if p.has(Pattern::RangeValue) {
        i = i.with(Interface::Value);
    }
    if p.has(Pattern::Value) && (text_valued(role) || role.is_numeric()) {
        i = i.with(Interface::Text);
        if value_writable(e) {
            i = i.with(Interface::EditableText);
        }
    }
    if p.has(Pattern::Text) {
        i = i.with(Interface::Text);
    }
    if p.has(Pattern::Selection) {
        i = i.with(Interface::Selection);
    }
    if p.has(Pattern::Table) || p.has(Pattern::Grid) {
        i = i.with(Interface::Table);
    }
    if p.has(Pattern::TableItem) || p.has(Pattern::GridItem) {
        i = i.with(Interface::TableCell);
    }
    match role {
        Role::Document => i = i.with(Interface::Document),
        Role::Link => i = i.with(Interface::Hyperlink),
        Role::Image => i = i.with(Interface::Image),
        _ => {}
    }
    i
}

/// Action names (the engine's vocabulary) for an element's patterns, in this order:
/// `invoke`, `toggle`, `select`, `expand`, `collapse`.
pub fn actions_of(p: Patterns) -> Vec<String> {
    let mut out = Vec::new();
    for (pattern, names) in [
        (Pattern::Invoke, &["invoke"][..]),
        (Pattern::Toggle, &["toggle"][..]),
        (Pattern::SelectionItem, &["select"][..]),
        (Pattern::ExpandCollapse, &["expand", "collapse"][..]),
    ] {
        if p.has(pattern) {
            out.extend(names.iter().map(|n| n.to_string()));
        }
    }
    out
}

/// The pattern an action name from [`actions_of`] runs.
pub fn action_pattern(action: &str) -> Option<Pattern> {
    match action.to_ascii_lowercase().as_str() {
        "invoke" => Some(Pattern::Invoke),
        "toggle" => Some(Pattern::Toggle),
        "select" => Some(Pattern::SelectionItem),
        "expand" | "collapse" => Some(Pattern::ExpandCollapse),
        _ => None,
    }
}

/// The value of an element, by role: toggles from `ToggleState`, numbers from
/// `RangeValuePattern` (or a numeric `ValuePattern`), text from `ValuePattern`, a combo box's
/// selection from its `ValuePattern` (filled from the selected option later when absent).
pub fn value_of(e: &UiaElement, role: Role) -> Option<Value> {
    if role.is_toggle() {
        if let Some(t) = e.toggle_state.and_then(toggle_of) {
            return Some(Value::Toggle { state: t });
        }
        if let Some(sel) = e.is_selected {
            return Some(Value::Toggle {
                state: if sel { Toggle::On } else { Toggle::Off },
            });
        }
        return None;
    }
    if role.is_numeric() || role == Role::ProgressBar {
        if let Some(r) = e.range {
            return Some(Value::Number {
                current: r.value,
                min: Some(r.minimum),
                max: Some(r.maximum),
                step: Some(r.small_change),
            });
        }
        // A spinner with only a string value: a number without known bounds.
        let n = e.value.as_deref()?.trim().parse::<f64>().ok()?;
        return Some(Value::Number {
            current: n,
            min: None,
            max: None,
            step: None,
        });
    }
    if role.is_choice() {
        return Some(Value::Choice {
            selected: e
                .value
                .as_deref()
                .filter(|v| !v.is_empty())
                .map(AppText::from),
        });
    }
    if role.is_text() || role == Role::Document || value_writable(e) && text_valued(role) {
        return e
            .value
            .as_deref()
            .map(|text| Value::Text { text: text.into() });
    }
    None
}

/// The model node of one element (children are laid out by the caller).
pub fn node_from(e: &UiaElement) -> Node {
    let role = role_of(e);
    let mut n = Node::new(node_id(&e.runtime_id), role, raw_role(e.control_type));
    n.name = e.name.as_str().into();
    n.description = e.help_text.as_str().into();
    // `label` stays None: neither the element reader nor the recorded traces carry
    // `LabeledBy` yet. Reading it means one more element property per node in `io.rs`.
    n.states = states_of(e, role);
    n.interfaces = interfaces_of(e, role);
    n.actions = actions_of(e.patterns)
        .into_iter()
        .map(AppText::from)
        .collect();
    n.value = value_of(e, role);
    n.bounds = e.bounds;
    n.refused = e.unread.clone();
    n
}

/// UIA's answers to [`write_plan`], with patterns as capabilities: the write plan for an
/// element on UIA, from its role, capabilities and states ([`plan_for`] for a mapped node: the
/// one choice of how it is written, which [`PLANNER`] turns into ops and
/// the backend only carries out), is
///
/// | role | plan |
/// |---|---|
/// | text, password, document | `ValuePattern.SetValue`; read-only value → refused; edit with only `TextPattern` → keyboard |
/// | slider, spinner, scroll bar | `RangeValuePattern.SetValue` (read-only → refused); a spinner with only a writable `ValuePattern` → `SetValue` |
/// | check box, switch, toggle button, check menu item | `TogglePattern.Toggle` (or `Invoke`) up to twice for a check box or a mixed toggle |
/// | radio button / radio menu item | `SelectionItemPattern.Select` (or `Toggle`, or `Invoke`) |
/// | combo box / menu button | `ExpandCollapse` + option `Select` + collapse; without `ExpandCollapse`: `Selection`; an editable combo without either: `SetValue` |
/// | tab, list item, tree item, data item, cell | `SelectionItemPattern.Select` |
/// | expander | `ExpandCollapsePattern` (or a press that flips it) |
/// | anything else with `Invoke` | `InvokePattern.Invoke` |
///
/// [`write_plan`]: crate::backend::strategy::write_plan
/// [`plan_for`]: crate::backend::strategy::plan_for
pub const RULES: WriteRules = {
    use WritePlan::*;
    WriteRules {
        document_as_text: Some(When::any(&[C::SetText])),
        invocable: When::any(&[C::Invoke, C::Toggle, C::Expand]),
        text: &[
            (When::states(&[State::ReadOnly]), Refuse(NoWay::ReadOnly)),
            (When::any(&[C::SetText]), SetValue),
            (
                When::all(&[C::ReadText]).and_in(&[State::Editable]),
                Keyboard,
            ),
        ],
        numeric: &[
            (When::states(&[State::ReadOnly]), Refuse(NoWay::ReadOnly)),
            (When::any(&[C::SetNumber]), SetRange),
            (When::any(&[C::SetText]), SetValue),
        ],
        radio: &[
            (When::any(&[C::Select, C::Invoke]), SelectItem),
            (When::any(&[C::Toggle]), Toggle { max_presses: 1 }),
        ],
        toggles: When::any(&[C::Toggle, C::Invoke]),
        choice: &[
            (When::any(&[C::Expand]), OpenMenuAndPick),
            (When::any(&[C::SelectChild]), SelectChild),
            (When::any(&[C::SetText]), SetValue),
        ],
        selects: When::any(&[C::Select]),
        flips: When::any(&[C::Toggle, C::Invoke]),
        presses: When::any(&[C::Invoke]),
        // Invocable without `Invoke` or `Expand`: it has `Toggle`.
        last_resort: Toggle { max_presses: 1 },
    }
};

/// UI Automation's planner: [`RULES`] decide, [`op_method`] and [`plan_method`] name.
pub static PLANNER: Mapped = Mapped {
    rules: RULES,
    op_method,
    plan_method,
};

/// The UI Automation calls a plan makes, for results and docs.
fn plan_method(wp: WritePlan) -> &'static str {
    match wp {
        WritePlan::SetValue => "ValuePattern.SetValue",
        WritePlan::Keyboard => "SetFocus, TextPattern select all, SendInput",
        WritePlan::SetRange => "RangeValuePattern.SetValue",
        WritePlan::Step => "RangeValuePattern.SetValue (stepped)",
        WritePlan::Toggle { .. } | WritePlan::Expand { toggles: true } => "TogglePattern.Toggle",
        WritePlan::SelectItem => "SelectionItemPattern.Select",
        WritePlan::SelectChild => "option SelectionItemPattern.Select",
        WritePlan::OpenMenuAndPick => {
            "ExpandCollapsePattern.Expand, option SelectionItemPattern.Select, Collapse"
        }
        WritePlan::Expand { toggles: false } => "ExpandCollapsePattern.Expand/Collapse",
        WritePlan::Invoke => "InvokePattern.Invoke",
        WritePlan::Refuse(_) => "none",
    }
}

/// How a write's result names an op sent through UI Automation.
pub fn op_method(op: &WriteOp) -> AppText {
    AppText::from(match op {
        WriteOp::SetText(_) => "ValuePattern.SetValue".to_string(),
        WriteOp::SetNumber(_) => "RangeValuePattern.SetValue".into(),
        WriteOp::Action(a) => match action_pattern(a.as_str()) {
            Some(Pattern::Invoke) => "InvokePattern.Invoke".into(),
            Some(Pattern::Toggle) => "TogglePattern.Toggle".into(),
            Some(Pattern::SelectionItem) => "SelectionItemPattern.Select".into(),
            Some(Pattern::ExpandCollapse) if a.as_str().eq_ignore_ascii_case("collapse") => {
                "ExpandCollapsePattern.Collapse".into()
            }
            Some(Pattern::ExpandCollapse) => "ExpandCollapsePattern.Expand".into(),
            _ => format!("action {}", a.as_str()),
        },
        WriteOp::SelectChild(i) => format!("option {i} SelectionItemPattern.Select"),
        WriteOp::Focus => "SetFocus".into(),
        WriteOp::SelectAllText => "TextPattern select all".into(),
        WriteOp::TypeText(_) => "SendInput (typed text)".into(),
        WriteOp::StepTo(_) => "stepping".into(),
        WriteOp::Key(_) => "a key".into(),
        WriteOp::Click => "a click".into(),
        WriteOp::ActivateWindow(_) => "raising the window".into(),
        WriteOp::AwaitFocus => "waiting for the focus".into(),
        WriteOp::AwaitMenuKeyboard => "waiting for the menu".into(),
    })
}

/// The node id of an application (all top-level windows of one process): `uia:app:<pid>`.
pub fn app_id(pid: u32) -> NodeId {
    NodeId(format!("uia:app:{pid}"))
}

/// The process id in an id made by [`app_id`].
pub fn app_pid(id: &NodeId) -> Option<u32> {
    id.0.strip_prefix("uia:app:")?.parse().ok()
}

/// An application's name from its window titles: Windows titles read `Document - App`, so the
/// part after the last ` - ` of the first title that has one, else the first title.
pub fn app_name(titles: &[String]) -> String {
    titles
        .iter()
        .find_map(|t| t.rsplit_once(" - ").map(|(_, app)| app.trim().to_string()))
        .filter(|a| !a.is_empty())
        .or_else(|| titles.iter().find(|t| !t.is_empty()).cloned())
        .unwrap_or_default()
}

/// The event a `StructureChangeType` (0 child added … 5 reordered) stands for.
pub fn structure_event(change: i32) -> EventKind {
    match change {
        0 | 3 => EventKind::ChildAdded { index: -1 },
        1 | 4 => EventKind::ChildRemoved { index: -1 },
        2 => EventKind::Other {
            name: "children-invalidated".into(),
        },
        5 => EventKind::Other {
            name: "children-reordered".into(),
        },
        other => EventKind::Other {
            name: format!("structure-changed:{other}").into(),
        },
    }
}

/// Property ids treeglass listens to for property-changed events.
pub const WATCHED_PROPERTIES: &[i32] = &[
    30005, // Name
    30013, // HelpText
    30045, // ValueValue
    30047, // RangeValueValue
    30086, // ToggleToggleState
    30010, // IsEnabled
    30008, // HasKeyboardFocus
    30079, // SelectionItemIsSelected
    30070, // ExpandCollapseExpandCollapseState
    30022, // IsOffscreen
];

/// The event a property change stands for; `new` is the new value as an integer when it is one
/// (booleans as 0/1).
pub fn property_event(property: i32, new: Option<i64>) -> EventKind {
    let state = |name: &str, on: bool| EventKind::StateChanged {
        state: name.into(),
        on,
    };
    match (property, new) {
        (30005, _) => EventKind::NameChanged,
        (30013, _) => EventKind::DescriptionChanged,
        (30045 | 30047, _) => EventKind::ValueChanged,
        (30086, Some(2)) => state("indeterminate", true),
        (30086, Some(v)) => state("checked", v == 1),
        (30010, Some(v)) => state("enabled", v != 0),
        (30008, Some(v)) => state("focused", v != 0),
        (30079, Some(v)) => state("selected", v != 0),
        (30070, Some(v)) => state("expanded", v == 1 || v == 2),
        (30022, Some(v)) => state("showing", v == 0),
        (p, _) => EventKind::Other {
            name: format!("property-changed:{p}").into(),
        },
    }
}

/// Automation event ids treeglass listens to on the roots it reads.
pub const WATCHED_EVENTS: &[i32] = &[20009, 20012, 20015, 20003, 20007];

/// The event a UIA automation event id (`UIA_EVENT_ID`) stands for.
pub fn automation_event(id: i32) -> EventKind {
    match id {
        20016 => EventKind::WindowOpened,
        20017 => EventKind::WindowClosed,
        20015 => EventKind::TextChanged,
        20010..=20013 => EventKind::SelectionChanged,
        20005 => EventKind::Focus,
        20009 => EventKind::Other {
            name: "invoked".into(),
        },
        20003 => EventKind::Other {
            name: "menu-opened".into(),
        },
        20007 => EventKind::Other {
            name: "menu-closed".into(),
        },
        other => EventKind::Other {
            name: format!("event:{other}").into(),
        },
    }
}

#[cfg(test)]
mod tests;
