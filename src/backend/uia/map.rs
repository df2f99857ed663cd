//! Pure UI Automation mapping: control type ids → roles, UIA properties → states, available
//! patterns → interfaces and actions, property values → values, and the choice of a write
//! plan per role. Plain functions over numbers, strings and [`UiaElement`] records (what the
//! IO module reads with one cache request, or what a JSON trace replays). Compiled and tested
//! on every platform.
//!
//! Numbers follow the UIA headers and the `uiautomation` crate (`types::ControlType`,
//! `types::UIProperty`, `patterns::UIPatternType`, `types::ToggleState`,
//! `types::ExpandCollapseState`, `types::HeadingLevel`).

use serde::{Deserialize, Serialize};

use crate::backend::EventKind;
use crate::backend::strategy::{
    Capabilities, Capability, NoWay, WritePlan, enabled, toggle_budget,
};
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
    pub children: Vec<UiaElement>,
}

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
            children: Vec::new(),
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
    n
}

impl crate::backend::record::Record for UiaElement {
    fn children(&self) -> &[UiaElement] {
        &self.children
    }
    fn to_node(&self) -> Node {
        node_from(self)
    }
}

/// The write plan for an element on UIA, from its role, capabilities and states:
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
pub fn write_plan(role: Role, caps: Capabilities, states: States) -> WritePlan {
    use Capability as C;
    let invocable = caps.has(C::Invoke) || caps.has(C::Toggle) || caps.has(C::Expand);
    let takes_value = role.is_text()
        || role.is_numeric()
        || role.is_toggle()
        || role.is_choice()
        || role.is_selectable_item()
        || role == Role::Expander
        || role == Role::Document && caps.has(C::SetText);
    if !takes_value && !invocable {
        return WritePlan::Refuse(NoWay::NotEditable);
    }
    if !enabled(states) {
        return WritePlan::Refuse(NoWay::Disabled);
    }
    let current = if states.has(State::Indeterminate) {
        Some(Toggle::Mixed)
    } else {
        None
    };
    if role.is_text() || role == Role::Document && caps.has(C::SetText) {
        return if states.has(State::ReadOnly) {
            WritePlan::Refuse(NoWay::ReadOnly)
        } else if caps.has(C::SetText) {
            WritePlan::SetValue
        } else if caps.has(C::ReadText) && states.has(State::Editable) {
            WritePlan::Keyboard
        } else {
            WritePlan::Refuse(NoWay::NoMethod)
        };
    }
    if role.is_numeric() {
        return if states.has(State::ReadOnly) {
            WritePlan::Refuse(NoWay::ReadOnly)
        } else if caps.has(C::SetNumber) {
            WritePlan::SetRange
        } else if caps.has(C::SetText) {
            WritePlan::SetValue
        } else {
            WritePlan::Refuse(NoWay::NoMethod)
        };
    }
    match role {
        Role::RadioButton | Role::RadioMenuItem => {
            if caps.has(C::Select) || caps.has(C::Invoke) {
                WritePlan::SelectItem
            } else if caps.has(C::Toggle) {
                WritePlan::Toggle { max_presses: 1 }
            } else {
                WritePlan::Refuse(NoWay::NoMethod)
            }
        }
        r if r.is_toggle() => {
            if caps.has(C::Toggle) || caps.has(C::Invoke) {
                WritePlan::Toggle {
                    max_presses: toggle_budget(r, current),
                }
            } else {
                WritePlan::Refuse(NoWay::NoMethod)
            }
        }
        r if r.is_choice() => {
            if caps.has(C::Expand) {
                WritePlan::OpenMenuAndPick
            } else if caps.has(C::SelectChild) {
                WritePlan::SelectChild
            } else if caps.has(C::SetText) {
                WritePlan::SetValue
            } else {
                WritePlan::Refuse(NoWay::NoMethod)
            }
        }
        r if r.is_selectable_item() => {
            if caps.has(C::Select) {
                WritePlan::SelectItem
            } else {
                WritePlan::Refuse(NoWay::NoMethod)
            }
        }
        Role::Expander => {
            if caps.has(C::Expand) {
                WritePlan::Expand { toggles: false }
            } else if caps.has(C::Toggle) || caps.has(C::Invoke) {
                WritePlan::Expand { toggles: true }
            } else {
                WritePlan::Refuse(NoWay::NoMethod)
            }
        }
        _ => {
            if caps.has(C::Invoke) {
                WritePlan::Invoke
            } else if caps.has(C::Expand) {
                WritePlan::Expand { toggles: false }
            } else {
                WritePlan::Toggle { max_presses: 1 }
            }
        }
    }
}

/// [`write_plan`] for a mapped node.
pub fn plan_for(node: &Node) -> WritePlan {
    write_plan(node.role, Capabilities::of(node), node.states)
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

/// `UIA_E_ELEMENTNOTAVAILABLE`: the element is gone.
pub const UIA_E_ELEMENTNOTAVAILABLE: i32 = 0x8004_0201_u32 as i32;
/// `UIA_E_ELEMENTNOTENABLED`: the element is disabled.
pub const UIA_E_ELEMENTNOTENABLED: i32 = 0x8004_0200_u32 as i32;
/// `UIA_E_NOTSUPPORTED`: the pattern or property is not supported.
pub const UIA_E_NOTSUPPORTED: i32 = 0x8004_0204_u32 as i32;
/// `UIA_E_TIMEOUT`: the provider did not answer in time.
pub const UIA_E_TIMEOUT: i32 = 0x8013_1505_u32 as i32;
/// `UIA_E_INVALIDOPERATION`: the call is not valid now (e.g. a read-only value).
pub const UIA_E_INVALIDOPERATION: i32 = 0x8013_1509_u32 as i32;
/// `RPC_E_DISCONNECTED` / `CO_E_OBJNOTCONNECTED`: the providing process went away.
pub const RPC_E_DISCONNECTED: i32 = 0x8001_0108_u32 as i32;
pub const CO_E_OBJNOTCONNECTED: i32 = 0x8004_01FD_u32 as i32;

/// What a failed UIA call means for the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Vanished,
    Timeout,
    Unsupported,
    Failed,
}

/// Classifies an HRESULT (the `uiautomation` crate's `Error::code`).
pub fn classify_hresult(code: i32) -> ErrorKind {
    match code {
        UIA_E_ELEMENTNOTAVAILABLE | RPC_E_DISCONNECTED | CO_E_OBJNOTCONNECTED => {
            ErrorKind::Vanished
        }
        UIA_E_TIMEOUT => ErrorKind::Timeout,
        UIA_E_NOTSUPPORTED | UIA_E_ELEMENTNOTENABLED | UIA_E_INVALIDOPERATION => {
            ErrorKind::Unsupported
        }
        _ => ErrorKind::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(control_type: i32, patterns: &[Pattern]) -> UiaElement {
        UiaElement {
            runtime_id: vec![42, 7],
            control_type,
            patterns: patterns.iter().copied().collect(),
            ..UiaElement::default()
        }
    }

    /// Every control type id UIA defines, with the role treeglass gives it (written out here,
    /// not read from the table, so a change to the table is a visible test change).
    #[test]
    fn every_control_type() {
        let expected: &[(i32, &str, Role)] = &[
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
        assert_eq!(expected.len(), CONTROL_TYPES.len());
        let (lo, hi) = CONTROL_TYPE_RANGE;
        assert_eq!((hi - lo + 1) as usize, expected.len(), "every id in range");
        for &(id, name, role) in expected {
            assert_eq!(control_type_name(id), Some(name), "{id}");
            assert_eq!(base_role(id), role, "{name}");
            assert_eq!(raw_role(id), name);
            // With no refining property the element's role is the base role.
            assert_eq!(role_of(&el(id, &[])), role, "{name}");
            assert_eq!(node_from(&el(id, &[])).raw_role, name);
        }
        for unknown in [0, 49999, 50041, -1] {
            assert_eq!(control_type_name(unknown), None);
            assert_eq!(base_role(unknown), Role::Unknown);
            assert_eq!(raw_role(unknown), format!("ControlType({unknown})"));
        }
    }

    #[test]
    fn role_refinements() {
        let cases: Vec<(UiaElement, Role)> = vec![
            (
                UiaElement {
                    is_password: true,
                    ..el(50004, &[Pattern::Value])
                },
                Role::PasswordText,
            ),
            (el(50000, &[Pattern::Toggle]), Role::ToggleButton),
            (
                UiaElement {
                    class_name: "ToggleSwitch".into(),
                    ..el(50000, &[Pattern::Toggle])
                },
                Role::Switch,
            ),
            (
                UiaElement {
                    class_name: "ToggleSwitch".into(),
                    ..el(50002, &[Pattern::Toggle])
                },
                Role::Switch,
            ),
            // A split button with a toggle stays a button.
            (el(50031, &[Pattern::Toggle]), Role::Button),
            (
                UiaElement {
                    is_dialog: true,
                    ..el(50032, &[Pattern::Window])
                },
                Role::Dialog,
            ),
            (el(50011, &[Pattern::Toggle]), Role::CheckMenuItem),
            (el(50011, &[Pattern::SelectionItem]), Role::RadioMenuItem),
            (el(50026, &[Pattern::ExpandCollapse]), Role::Expander),
            (
                UiaElement {
                    heading_level: 2,
                    ..el(50020, &[])
                },
                Role::Heading,
            ),
            // Password only refines edits.
            (
                UiaElement {
                    is_password: true,
                    ..el(50020, &[])
                },
                Role::Label,
            ),
        ];
        for (e, want) in cases {
            assert_eq!(role_of(&e), want, "{e:?}");
        }
    }

    #[test]
    fn every_pattern() {
        let expected: &[(Pattern, &str, i32, i32)] = &[
            (Pattern::Invoke, "Invoke", 10000, 30031),
            (Pattern::Selection, "Selection", 10001, 30037),
            (Pattern::Value, "Value", 10002, 30043),
            (Pattern::RangeValue, "RangeValue", 10003, 30033),
            (Pattern::Scroll, "Scroll", 10004, 30034),
            (Pattern::ExpandCollapse, "ExpandCollapse", 10005, 30028),
            (Pattern::Grid, "Grid", 10006, 30030),
            (Pattern::GridItem, "GridItem", 10007, 30029),
            (Pattern::Window, "Window", 10009, 30044),
            (Pattern::SelectionItem, "SelectionItem", 10010, 30036),
            (Pattern::Table, "Table", 10012, 30038),
            (Pattern::TableItem, "TableItem", 10013, 30039),
            (Pattern::Text, "Text", 10014, 30040),
            (Pattern::Toggle, "Toggle", 10015, 30041),
            (Pattern::ScrollItem, "ScrollItem", 10017, 30035),
            (
                Pattern::LegacyIAccessible,
                "LegacyIAccessible",
                10018,
                30090,
            ),
        ];
        assert_eq!(expected.len(), Pattern::ALL.len());
        for &(p, name, id, avail) in expected {
            assert_eq!(p.name(), name);
            assert_eq!(p.id(), id);
            assert_eq!(p.availability_property(), avail);
            assert_eq!(Pattern::from_name(name), Some(p));
            assert_eq!(Pattern::from_id(id), Some(p));
        }
        assert_eq!(Pattern::from_name("Dock"), None);
        assert_eq!(Pattern::from_id(10011), None);
        let set: Patterns = [Pattern::Toggle, Pattern::Invoke].into_iter().collect();
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, r#"["Invoke","Toggle"]"#);
        assert_eq!(serde_json::from_str::<Patterns>(&json).unwrap(), set);
        assert!(serde_json::from_str::<Patterns>(r#"["Nope"]"#).is_err());
    }

    #[test]
    fn ids_round_trip() {
        let id = node_id(&[42, -3, 7]);
        assert_eq!(id.0, "uia:42.-3.7");
        assert_eq!(runtime_id_of(&id), Some(vec![42, -3, 7]));
        assert_eq!(runtime_id_of(&NodeId("uia:".into())), None);
        assert_eq!(runtime_id_of(&NodeId("uia:1.x".into())), None);
        assert_eq!(runtime_id_of(&NodeId(":1.2/org/a11y".into())), None);
    }

    #[test]
    fn heading_levels() {
        for (raw, level) in [(80050, 0), (80051, 1), (80059, 9), (80060, 0), (0, 0)] {
            assert_eq!(heading_level(raw), level, "{raw}");
        }
    }

    #[test]
    fn toggle_and_expand_values() {
        assert_eq!(toggle_of(0), Some(Toggle::Off));
        assert_eq!(toggle_of(1), Some(Toggle::On));
        assert_eq!(toggle_of(2), Some(Toggle::Mixed));
        assert_eq!(toggle_of(3), None);
        assert_eq!(expand_states(0).names(), ["expandable", "collapsed"]);
        assert_eq!(expand_states(1).names(), ["expanded", "expandable"]);
        assert_eq!(expand_states(2).names(), ["expanded", "expandable"]);
        assert_eq!(expand_states(3), States::EMPTY);
        assert_eq!(expand_states(9), States::EMPTY);
    }

    /// One property at a time: the states each UIA property adds.
    #[test]
    fn every_state_property() {
        let base = el(50000, &[Pattern::Invoke]);
        let st = |e: &UiaElement| {
            let role = role_of(e);
            states_of(e, role)
        };
        assert_eq!(
            st(&base).names(),
            ["enabled", "sensitive", "showing", "visible"]
        );
        let cases: Vec<(UiaElement, State, bool)> = vec![
            (
                UiaElement {
                    is_enabled: false,
                    ..base.clone()
                },
                State::Enabled,
                false,
            ),
            (
                UiaElement {
                    is_enabled: false,
                    ..base.clone()
                },
                State::Sensitive,
                false,
            ),
            (
                UiaElement {
                    is_offscreen: true,
                    ..base.clone()
                },
                State::Showing,
                false,
            ),
            (
                UiaElement {
                    is_offscreen: true,
                    ..base.clone()
                },
                State::Visible,
                false,
            ),
            (
                UiaElement {
                    has_keyboard_focus: true,
                    ..base.clone()
                },
                State::Focused,
                true,
            ),
            (
                UiaElement {
                    is_keyboard_focusable: true,
                    ..base.clone()
                },
                State::Focusable,
                true,
            ),
            (
                UiaElement {
                    is_required_for_form: true,
                    ..base.clone()
                },
                State::Required,
                true,
            ),
            (
                UiaElement {
                    is_data_valid_for_form: false,
                    ..base.clone()
                },
                State::Invalid,
                true,
            ),
            (
                UiaElement {
                    window_is_modal: true,
                    ..el(50032, &[Pattern::Window])
                },
                State::Modal,
                true,
            ),
            (
                UiaElement {
                    orientation: 1,
                    ..el(50015, &[Pattern::RangeValue])
                },
                State::Horizontal,
                true,
            ),
            (
                UiaElement {
                    orientation: 2,
                    ..el(50015, &[Pattern::RangeValue])
                },
                State::Vertical,
                true,
            ),
            (
                UiaElement {
                    toggle_state: Some(1),
                    ..el(50002, &[Pattern::Toggle])
                },
                State::Checked,
                true,
            ),
            (
                UiaElement {
                    toggle_state: Some(0),
                    ..el(50002, &[Pattern::Toggle])
                },
                State::Checked,
                false,
            ),
            (
                UiaElement {
                    toggle_state: Some(2),
                    ..el(50002, &[Pattern::Toggle])
                },
                State::Indeterminate,
                true,
            ),
            (el(50002, &[Pattern::Toggle]), State::Checkable, true),
            (
                UiaElement {
                    is_selected: Some(true),
                    ..el(50019, &[Pattern::SelectionItem])
                },
                State::Selected,
                true,
            ),
            (
                el(50019, &[Pattern::SelectionItem]),
                State::Selectable,
                true,
            ),
            (
                UiaElement {
                    is_selected: Some(true),
                    ..el(50013, &[Pattern::SelectionItem])
                },
                State::Checked,
                true,
            ),
            (
                UiaElement {
                    expand_collapse_state: Some(1),
                    ..el(50024, &[Pattern::ExpandCollapse])
                },
                State::Expanded,
                true,
            ),
            (
                UiaElement {
                    expand_collapse_state: Some(0),
                    ..el(50024, &[Pattern::ExpandCollapse])
                },
                State::Collapsed,
                true,
            ),
            (
                UiaElement {
                    value_is_read_only: Some(true),
                    ..el(50004, &[Pattern::Value])
                },
                State::ReadOnly,
                true,
            ),
            (
                UiaElement {
                    value_is_read_only: Some(false),
                    ..el(50004, &[Pattern::Value])
                },
                State::Editable,
                true,
            ),
            (
                UiaElement {
                    is_keyboard_focusable: true,
                    ..el(50004, &[Pattern::Text])
                },
                State::Editable,
                true,
            ),
            (el(50004, &[Pattern::Text]), State::ReadOnly, true),
            (
                UiaElement {
                    range: Some(UiaRange {
                        is_read_only: true,
                        ..UiaRange::default()
                    }),
                    ..el(50015, &[Pattern::RangeValue])
                },
                State::ReadOnly,
                true,
            ),
            (
                UiaElement {
                    range: Some(UiaRange::default()),
                    ..el(50015, &[Pattern::RangeValue])
                },
                State::ReadOnly,
                false,
            ),
            (
                UiaElement {
                    value_is_read_only: Some(true),
                    ..el(50016, &[Pattern::Value])
                },
                State::ReadOnly,
                true,
            ),
            (el(50003, &[]), State::HasPopup, true),
            // A button's value pattern says nothing about editability.
            (
                UiaElement {
                    value_is_read_only: Some(false),
                    ..el(50000, &[Pattern::Value])
                },
                State::Editable,
                false,
            ),
        ];
        for (e, state, want) in cases {
            assert_eq!(st(&e).has(state), want, "{state:?} for {e:?}");
        }
    }

    #[test]
    fn interfaces_and_actions() {
        let all = el(
            50000,
            &[
                Pattern::Invoke,
                Pattern::Toggle,
                Pattern::SelectionItem,
                Pattern::ExpandCollapse,
            ],
        );
        assert_eq!(
            actions_of(all.patterns),
            ["invoke", "toggle", "select", "expand", "collapse"]
        );
        for a in ["invoke", "toggle", "select", "expand", "collapse"] {
            assert!(action_pattern(a).is_some(), "{a}");
        }
        assert_eq!(action_pattern("Invoke"), Some(Pattern::Invoke));
        assert_eq!(action_pattern("press"), None);
        assert!(actions_of(Patterns::EMPTY).is_empty());

        let iface = |e: &UiaElement| interfaces_of(e, role_of(e)).names();
        assert_eq!(iface(&el(50020, &[])), ["accessible"]);
        assert_eq!(iface(&all), ["accessible", "action"]);
        assert_eq!(
            iface(&UiaElement {
                bounds: Some(Bounds {
                    x: 0,
                    y: 0,
                    width: 1,
                    height: 1
                }),
                ..el(50020, &[])
            }),
            ["accessible", "component"]
        );
        assert_eq!(
            iface(&el(50015, &[Pattern::RangeValue])),
            ["accessible", "value"]
        );
        assert_eq!(
            iface(&UiaElement {
                value_is_read_only: Some(false),
                ..el(50004, &[Pattern::Value])
            }),
            ["accessible", "editable-text", "text"]
        );
        assert_eq!(
            iface(&UiaElement {
                value_is_read_only: Some(true),
                ..el(50004, &[Pattern::Value])
            }),
            ["accessible", "text"]
        );
        assert_eq!(
            iface(&el(50030, &[Pattern::Text])),
            ["accessible", "document", "text"]
        );
        assert_eq!(
            iface(&el(50008, &[Pattern::Selection])),
            ["accessible", "selection"]
        );
        assert_eq!(
            iface(&el(50028, &[Pattern::Grid, Pattern::Table])),
            ["accessible", "table"]
        );
        assert_eq!(
            iface(&el(50029, &[Pattern::GridItem, Pattern::TableItem])),
            ["accessible", "table-cell"]
        );
        assert_eq!(
            iface(&el(50005, &[Pattern::Invoke])),
            ["accessible", "action", "hyperlink"]
        );
        assert_eq!(iface(&el(50006, &[])), ["accessible", "image"]);
        // Patterns treeglass does not write through add nothing.
        assert_eq!(
            iface(&el(
                50033,
                &[
                    Pattern::Scroll,
                    Pattern::ScrollItem,
                    Pattern::Window,
                    Pattern::LegacyIAccessible
                ]
            )),
            ["accessible"]
        );
    }

    #[test]
    fn values_by_role() {
        let check = |state| UiaElement {
            toggle_state: Some(state),
            ..el(50002, &[Pattern::Toggle])
        };
        assert_eq!(
            value_of(&check(2), Role::CheckBox),
            Some(Value::Toggle {
                state: Toggle::Mixed
            })
        );
        assert_eq!(
            value_of(&check(1), Role::CheckBox),
            Some(Value::Toggle { state: Toggle::On })
        );
        let radio = UiaElement {
            is_selected: Some(false),
            ..el(50013, &[Pattern::SelectionItem])
        };
        assert_eq!(
            value_of(&radio, Role::RadioButton),
            Some(Value::Toggle { state: Toggle::Off })
        );
        assert_eq!(value_of(&el(50002, &[]), Role::CheckBox), None);
        let slider = UiaElement {
            range: Some(UiaRange {
                value: 30.0,
                minimum: 0.0,
                maximum: 100.0,
                small_change: 1.0,
                is_read_only: false,
            }),
            ..el(50015, &[Pattern::RangeValue])
        };
        assert_eq!(
            value_of(&slider, Role::Slider),
            Some(Value::Number {
                current: 30.0,
                min: Some(0.0),
                max: Some(100.0),
                step: Some(1.0)
            })
        );
        let spinner = UiaElement {
            value: Some(" 12 ".into()),
            value_is_read_only: Some(false),
            ..el(50016, &[Pattern::Value])
        };
        assert!(matches!(
            value_of(&spinner, Role::SpinButton),
            Some(Value::Number { current, .. }) if current == 12.0
        ));
        assert_eq!(
            value_of(
                &UiaElement {
                    value: Some("abc".into()),
                    ..spinner.clone()
                },
                Role::SpinButton
            ),
            None
        );
        let combo = UiaElement {
            value: Some("Blue".into()),
            ..el(50003, &[Pattern::Value, Pattern::ExpandCollapse])
        };
        assert_eq!(
            value_of(&combo, Role::ComboBox),
            Some(Value::Choice {
                selected: Some("Blue".into())
            })
        );
        assert_eq!(
            value_of(
                &UiaElement {
                    value: Some(String::new()),
                    ..combo
                },
                Role::ComboBox
            ),
            Some(Value::Choice { selected: None })
        );
        let edit = UiaElement {
            value: Some("hello".into()),
            value_is_read_only: Some(false),
            ..el(50004, &[Pattern::Value])
        };
        assert_eq!(
            value_of(&edit, Role::Text),
            Some(Value::Text {
                text: "hello".into()
            })
        );
        assert_eq!(value_of(&el(50000, &[Pattern::Invoke]), Role::Button), None);
    }

    fn caps(list: &[Capability]) -> Capabilities {
        list.iter().copied().collect()
    }

    fn on() -> States {
        States::EMPTY.with(State::Enabled).with(State::Sensitive)
    }

    /// Every write-strategy choice, one row each.
    #[test]
    fn every_write_plan() {
        use Capability as C;
        let ro = on().with(State::ReadOnly);
        let editable = on().with(State::Editable);
        let mixed = on().with(State::Indeterminate);
        let cases: Vec<(Role, Capabilities, States, WritePlan)> = vec![
            // Not a value-bearing role, nothing to run.
            (
                Role::Label,
                caps(&[]),
                on(),
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            (
                Role::Panel,
                caps(&[C::SelectChild]),
                on(),
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            // Disabled.
            (
                Role::Text,
                caps(&[C::SetText]),
                States::EMPTY,
                WritePlan::Refuse(NoWay::Disabled),
            ),
            (
                Role::Button,
                caps(&[C::Invoke]),
                States::EMPTY,
                WritePlan::Refuse(NoWay::Disabled),
            ),
            // Text.
            (
                Role::Text,
                caps(&[C::SetText, C::ReadText]),
                editable,
                WritePlan::SetValue,
            ),
            (
                Role::PasswordText,
                caps(&[C::SetText]),
                editable,
                WritePlan::SetValue,
            ),
            (
                Role::Text,
                caps(&[C::ReadText]),
                ro,
                WritePlan::Refuse(NoWay::ReadOnly),
            ),
            (
                Role::Text,
                caps(&[C::ReadText]),
                editable,
                WritePlan::Keyboard,
            ),
            (
                Role::Text,
                caps(&[]),
                on(),
                WritePlan::Refuse(NoWay::NoMethod),
            ),
            (
                Role::Document,
                caps(&[C::SetText]),
                editable,
                WritePlan::SetValue,
            ),
            (
                Role::Document,
                caps(&[C::ReadText]),
                on(),
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            // Numbers.
            (
                Role::Slider,
                caps(&[C::SetNumber]),
                on(),
                WritePlan::SetRange,
            ),
            (
                Role::SpinButton,
                caps(&[C::SetNumber, C::SetText]),
                on(),
                WritePlan::SetRange,
            ),
            (
                Role::ScrollBar,
                caps(&[C::SetNumber]),
                on(),
                WritePlan::SetRange,
            ),
            (
                Role::Slider,
                caps(&[C::SetNumber]),
                ro,
                WritePlan::Refuse(NoWay::ReadOnly),
            ),
            (
                Role::SpinButton,
                caps(&[C::SetText]),
                editable,
                WritePlan::SetValue,
            ),
            (
                Role::SpinButton,
                caps(&[]),
                on(),
                WritePlan::Refuse(NoWay::NoMethod),
            ),
            // Toggles, including the mixed check box.
            (
                Role::CheckBox,
                caps(&[C::Toggle]),
                on(),
                WritePlan::Toggle { max_presses: 2 },
            ),
            (
                Role::CheckBox,
                caps(&[C::Toggle]),
                mixed,
                WritePlan::Toggle { max_presses: 2 },
            ),
            (
                Role::Switch,
                caps(&[C::Toggle]),
                on(),
                WritePlan::Toggle { max_presses: 1 },
            ),
            (
                Role::ToggleButton,
                caps(&[C::Toggle]),
                mixed,
                WritePlan::Toggle { max_presses: 2 },
            ),
            (
                Role::CheckMenuItem,
                caps(&[C::Invoke]),
                on(),
                WritePlan::Toggle { max_presses: 1 },
            ),
            (
                Role::CheckBox,
                caps(&[]),
                on(),
                WritePlan::Refuse(NoWay::NoMethod),
            ),
            // Radio buttons select.
            (
                Role::RadioButton,
                caps(&[C::Select]),
                on(),
                WritePlan::SelectItem,
            ),
            (
                Role::RadioMenuItem,
                caps(&[C::Invoke]),
                on(),
                WritePlan::SelectItem,
            ),
            (
                Role::RadioButton,
                caps(&[C::Toggle]),
                on(),
                WritePlan::Toggle { max_presses: 1 },
            ),
            (
                Role::RadioButton,
                caps(&[]),
                on(),
                WritePlan::Refuse(NoWay::NoMethod),
            ),
            // Combo boxes.
            (
                Role::ComboBox,
                caps(&[C::Expand, C::SelectChild]),
                on(),
                WritePlan::OpenMenuAndPick,
            ),
            (
                Role::ComboBox,
                caps(&[C::Expand, C::SetText]),
                editable,
                WritePlan::OpenMenuAndPick,
            ),
            (
                Role::ComboBox,
                caps(&[C::SelectChild]),
                on(),
                WritePlan::SelectChild,
            ),
            (
                Role::ComboBox,
                caps(&[C::SetText]),
                editable,
                WritePlan::SetValue,
            ),
            (
                Role::ComboBox,
                caps(&[]),
                on(),
                WritePlan::Refuse(NoWay::NoMethod),
            ),
            (
                Role::MenuButton,
                caps(&[C::Expand, C::Invoke]),
                on(),
                WritePlan::OpenMenuAndPick,
            ),
            // Selectable items.
            (Role::Tab, caps(&[C::Select]), on(), WritePlan::SelectItem),
            (
                Role::ListItem,
                caps(&[C::Select, C::Invoke]),
                on(),
                WritePlan::SelectItem,
            ),
            (
                Role::TreeItem,
                caps(&[C::Select, C::Expand]),
                on(),
                WritePlan::SelectItem,
            ),
            (
                Role::TableRow,
                caps(&[C::Select]),
                on(),
                WritePlan::SelectItem,
            ),
            (
                Role::TableCell,
                caps(&[C::Select]),
                on(),
                WritePlan::SelectItem,
            ),
            (
                Role::ListItem,
                caps(&[C::Invoke]),
                on(),
                WritePlan::Refuse(NoWay::NoMethod),
            ),
            // Expanders.
            (
                Role::Expander,
                caps(&[C::Expand]),
                on(),
                WritePlan::Expand { toggles: false },
            ),
            (
                Role::Expander,
                caps(&[C::Toggle]),
                on(),
                WritePlan::Expand { toggles: true },
            ),
            (
                Role::Expander,
                caps(&[C::Invoke]),
                on(),
                WritePlan::Expand { toggles: true },
            ),
            (
                Role::Expander,
                caps(&[]),
                on(),
                WritePlan::Refuse(NoWay::NoMethod),
            ),
            // Buttons and the rest.
            (Role::Button, caps(&[C::Invoke]), on(), WritePlan::Invoke),
            (
                Role::Button,
                caps(&[C::Invoke, C::Expand]),
                on(),
                WritePlan::Invoke,
            ),
            (
                Role::Button,
                caps(&[C::Expand]),
                on(),
                WritePlan::Expand { toggles: false },
            ),
            (Role::MenuItem, caps(&[C::Invoke]), on(), WritePlan::Invoke),
            (Role::Link, caps(&[C::Invoke]), on(), WritePlan::Invoke),
            (
                Role::Button,
                caps(&[C::Toggle]),
                on(),
                WritePlan::Toggle { max_presses: 1 },
            ),
        ];
        for (role, c, states, want) in cases {
            assert_eq!(
                write_plan(role, c, states),
                want,
                "{role:?} {c:?} {states:?}"
            );
        }
    }

    #[test]
    fn plans_from_mapped_nodes() {
        let mixed_box = UiaElement {
            name: "Sync".into(),
            toggle_state: Some(2),
            ..el(50002, &[Pattern::Toggle])
        };
        assert_eq!(
            plan_for(&node_from(&mixed_box)),
            WritePlan::Toggle { max_presses: 2 }
        );
        let ro_edit = UiaElement {
            value: Some("C:\\".into()),
            value_is_read_only: Some(true),
            ..el(50004, &[Pattern::Value])
        };
        assert_eq!(
            plan_for(&node_from(&ro_edit)),
            WritePlan::Refuse(NoWay::ReadOnly)
        );
        let rw_edit = UiaElement {
            value_is_read_only: Some(false),
            ..ro_edit.clone()
        };
        assert_eq!(plan_for(&node_from(&rw_edit)), WritePlan::SetValue);
        let combo = el(
            50003,
            &[Pattern::ExpandCollapse, Pattern::Selection, Pattern::Value],
        );
        assert_eq!(plan_for(&node_from(&combo)), WritePlan::OpenMenuAndPick);
    }

    #[test]
    fn hresults() {
        assert_eq!(UIA_E_ELEMENTNOTAVAILABLE, -2147220991);
        for (code, kind) in [
            (UIA_E_ELEMENTNOTAVAILABLE, ErrorKind::Vanished),
            (RPC_E_DISCONNECTED, ErrorKind::Vanished),
            (CO_E_OBJNOTCONNECTED, ErrorKind::Vanished),
            (UIA_E_TIMEOUT, ErrorKind::Timeout),
            (UIA_E_NOTSUPPORTED, ErrorKind::Unsupported),
            (UIA_E_ELEMENTNOTENABLED, ErrorKind::Unsupported),
            (UIA_E_INVALIDOPERATION, ErrorKind::Unsupported),
            (0, ErrorKind::Failed),
            (4, ErrorKind::Failed),
        ] {
            assert_eq!(classify_hresult(code), kind, "{code:#x}");
        }
    }

    #[test]
    fn apps() {
        assert_eq!(app_id(4242).0, "uia:app:4242");
        assert_eq!(app_pid(&app_id(4242)), Some(4242));
        assert_eq!(app_pid(&node_id(&[42, 1])), None);
        assert_eq!(
            runtime_id_of(&app_id(1)),
            None,
            "app ids are not runtime ids"
        );
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(app_name(&t(&["Untitled - Notepad"])), "Notepad");
        assert_eq!(
            app_name(&t(&["a - b - Visual Studio Code"])),
            "Visual Studio Code"
        );
        assert_eq!(app_name(&t(&["Calculator"])), "Calculator");
        assert_eq!(app_name(&t(&["", "Options", "Doc - Contoso"])), "Contoso");
        assert_eq!(app_name(&t(&[])), "");
    }

    #[test]
    fn events() {
        for (change, want) in [
            (0, EventKind::ChildAdded { index: -1 }),
            (3, EventKind::ChildAdded { index: -1 }),
            (1, EventKind::ChildRemoved { index: -1 }),
            (4, EventKind::ChildRemoved { index: -1 }),
            (
                2,
                EventKind::Other {
                    name: "children-invalidated".into(),
                },
            ),
            (
                5,
                EventKind::Other {
                    name: "children-reordered".into(),
                },
            ),
            (
                9,
                EventKind::Other {
                    name: "structure-changed:9".into(),
                },
            ),
        ] {
            assert_eq!(structure_event(change), want, "{change}");
        }
        let st = |s: &str, on: bool| EventKind::StateChanged {
            state: s.into(),
            on,
        };
        for (prop, new, want) in [
            (30005, None, EventKind::NameChanged),
            (30013, None, EventKind::DescriptionChanged),
            (30045, None, EventKind::ValueChanged),
            (30047, Some(3), EventKind::ValueChanged),
            (30086, Some(1), st("checked", true)),
            (30086, Some(0), st("checked", false)),
            (30086, Some(2), st("indeterminate", true)),
            (30010, Some(0), st("enabled", false)),
            (30008, Some(1), st("focused", true)),
            (30079, Some(1), st("selected", true)),
            (30070, Some(1), st("expanded", true)),
            (30070, Some(2), st("expanded", true)),
            (30070, Some(0), st("expanded", false)),
            (30022, Some(1), st("showing", false)),
            (
                30010,
                None,
                EventKind::Other {
                    name: "property-changed:30010".into(),
                },
            ),
        ] {
            assert_eq!(property_event(prop, new), want, "{prop} {new:?}");
        }
        for p in WATCHED_PROPERTIES {
            assert!(
                !matches!(property_event(*p, Some(1)), EventKind::Other { .. }),
                "{p}"
            );
        }
        for (id, want) in [
            (20016, EventKind::WindowOpened),
            (20017, EventKind::WindowClosed),
            (20015, EventKind::TextChanged),
            (20012, EventKind::SelectionChanged),
            (20010, EventKind::SelectionChanged),
            (20011, EventKind::SelectionChanged),
            (20013, EventKind::SelectionChanged),
            (20005, EventKind::Focus),
            (
                20009,
                EventKind::Other {
                    name: "invoked".into(),
                },
            ),
            (
                20003,
                EventKind::Other {
                    name: "menu-opened".into(),
                },
            ),
            (
                20007,
                EventKind::Other {
                    name: "menu-closed".into(),
                },
            ),
            (
                20099,
                EventKind::Other {
                    name: "event:20099".into(),
                },
            ),
        ] {
            assert_eq!(automation_event(id), want, "{id}");
        }
    }
}
