//! Pure macOS Accessibility mapping: AX role/subrole strings → roles, AX attributes → states,
//! values and interfaces, AX action names ⇄ treeglass action names, and the choice of a write
//! plan per role. Plain functions over strings and [`AxElement`] records (what the IO module
//! reads, or what a JSON trace replays). Compiled and tested on every platform.
//!
//! Strings follow Apple's `AXRoleConstants.h` / `AXAttributeConstants.h` /
//! `AXActionConstants.h` (as the `accessibility-sys` crate spells them).

use serde::{Deserialize, Serialize};

use crate::backend::strategy::{Capability as C, Mapped, NoWay, When, WritePlan, WriteRules};
use crate::backend::{EventKind, WriteOp};
use crate::model::{
    AppText, Bounds, Interface, Interfaces, Node, NodeId, Role, State, States, Toggle, Value,
};

/// AX roles and the role each maps to when no subrole refines it.
pub const ROLES: &[(&str, Role)] = &[
    ("AXApplication", Role::Application),
    ("AXWindow", Role::Window),
    ("AXSheet", Role::Dialog),
    ("AXDialog", Role::Dialog),
    ("AXDrawer", Role::Panel),
    ("AXPopover", Role::Panel),
    ("AXGroup", Role::Group),
    ("AXRadioGroup", Role::Group),
    ("AXSplitGroup", Role::SplitPane),
    ("AXSplitter", Role::Separator),
    ("AXScrollArea", Role::ScrollPane),
    ("AXScrollBar", Role::ScrollBar),
    ("AXLayoutArea", Role::Panel),
    ("AXLayoutItem", Role::Panel),
    ("AXMatte", Role::Panel),
    ("AXTabGroup", Role::TabList),
    ("AXToolbar", Role::ToolBar),
    ("AXStaticText", Role::Label),
    ("AXHeading", Role::Heading),
    ("AXTextField", Role::Text),
    ("AXSecureTextField", Role::PasswordText),
    ("AXTextArea", Role::Text),
    ("AXSearchField", Role::Text),
    ("AXDateField", Role::Text),
    ("AXTimeField", Role::Text),
    ("AXComboBox", Role::ComboBox),
    ("AXPopUpButton", Role::ComboBox),
    ("AXMenuButton", Role::MenuButton),
    ("AXButton", Role::Button),
    ("AXColorWell", Role::Button),
    ("AXDockItem", Role::Button),
    ("AXCheckBox", Role::CheckBox),
    ("AXSwitch", Role::Switch),
    ("AXToggle", Role::ToggleButton),
    ("AXRadioButton", Role::RadioButton),
    ("AXDisclosureTriangle", Role::Expander),
    ("AXSlider", Role::Slider),
    ("AXLevelIndicator", Role::Slider),
    ("AXIncrementor", Role::SpinButton),
    ("AXStepper", Role::SpinButton),
    ("AXProgressIndicator", Role::ProgressBar),
    ("AXBusyIndicator", Role::ProgressBar),
    ("AXRelevanceIndicator", Role::ProgressBar),
    ("AXImage", Role::Image),
    ("AXMenuBar", Role::MenuBar),
    ("AXMenuBarItem", Role::MenuItem),
    ("AXMenu", Role::Menu),
    ("AXMenuItem", Role::MenuItem),
    ("AXList", Role::List),
    ("AXOutline", Role::Tree),
    ("AXBrowser", Role::Tree),
    ("AXTable", Role::Table),
    ("AXGrid", Role::Table),
    ("AXRow", Role::TableRow),
    ("AXColumn", Role::Group),
    ("AXCell", Role::TableCell),
    ("AXLink", Role::Link),
    ("AXWebArea", Role::Document),
    ("AXHelpTag", Role::ToolTip),
    ("AXValueIndicator", Role::Unknown),
    ("AXUnknown", Role::Unknown),
];

/// Subroles that change the role: (role, subrole, role). `*` matches any role.
pub const SUBROLES: &[(&str, &str, Role)] = &[
    ("AXWindow", "AXDialog", Role::Dialog),
    ("AXWindow", "AXSystemDialog", Role::Dialog),
    // A secret field is a secret whatever its role says: never echo it.
    ("*", "AXSecureTextField", Role::PasswordText),
    ("AXCheckBox", "AXSwitch", Role::Switch),
    ("AXCheckBox", "AXToggle", Role::ToggleButton),
    ("AXButton", "AXToggle", Role::ToggleButton),
    ("AXButton", "AXSwitch", Role::Switch),
    ("AXRadioButton", "AXTabButton", Role::Tab),
    ("AXRow", "AXOutlineRow", Role::TreeItem),
    ("AXButton", "AXSortButton", Role::ColumnHeader),
];

/// The role for an AX role and subrole.
pub fn role_of(role: &str, subrole: Option<&str>) -> Role {
    if let Some(sub) = subrole
        && let Some((_, _, r)) = SUBROLES
            .iter()
            .find(|(ro, su, _)| *su == sub && (*ro == "*" || *ro == role))
    {
        return *r;
    }
    ROLES
        .iter()
        .find(|(ro, _)| *ro == role)
        .map_or(Role::Unknown, |(_, r)| *r)
}

/// The raw role shown beside the normalised one: the AX role, with the subrole after a colon
/// when there is one (`AXRadioButton:AXTabButton`).
pub fn raw_role(role: &str, subrole: Option<&str>) -> String {
    match subrole {
        Some(s) if !s.is_empty() && s != "AXUnknown" => format!("{role}:{s}"),
        _ => role.to_string(),
    }
}

/// AX actions and the names treeglass uses for them.
pub const ACTIONS: &[(&str, &str)] = &[
    ("AXPress", "press"),
    ("AXIncrement", "increment"),
    ("AXDecrement", "decrement"),
    ("AXConfirm", "confirm"),
    ("AXCancel", "cancel"),
    ("AXShowMenu", "show-menu"),
    ("AXShowAlternateUI", "show-alternate-ui"),
    ("AXShowDefaultUI", "show-default-ui"),
    ("AXRaise", "raise"),
    ("AXPick", "pick"),
    ("AXScrollToVisible", "scroll-to-visible"),
];

/// Actions treeglass adds for settable attributes (AX has no action for them): `select` sets
/// `AXSelected`, `expand`/`collapse` set `AXExpanded` (or `AXDisclosing` on outline rows).
pub const SYNTHETIC_ACTIONS: &[&str] = &["select", "expand", "collapse"];

/// Splits a CamelCase word into lower-case kebab (`ShowAlternateUI` → `show-alternate-ui`).
fn kebab(camel: &str) -> String {
    let chars: Vec<char> = camel.chars().collect();
    let mut out = String::new();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let prev_lower = chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit();
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev_lower || (chars[i - 1].is_uppercase() && next_lower) {
                out.push('-');
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// The treeglass name of an AX action: from [`ACTIONS`], else `AX…` in kebab case; an
/// app-defined action that is not `AX…` (custom actions carry `Name:…` descriptions) keeps its
/// raw name.
pub fn action_name(raw: &str) -> String {
    if let Some((_, n)) = ACTIONS.iter().find(|(r, _)| *r == raw) {
        return n.to_string();
    }
    match raw.strip_prefix("AX") {
        Some(rest) if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric()) => {
            kebab(rest)
        }
        _ => raw.to_string(),
    }
}

/// The AX action for a treeglass action name (inverse of [`action_name`] for `AX…` actions);
/// `None` for the synthetic ones, which set attributes instead.
pub fn raw_action(name: &str) -> Option<String> {
    if SYNTHETIC_ACTIONS.contains(&name) {
        return None;
    }
    if let Some((r, _)) = ACTIONS.iter().find(|(_, n)| *n == name) {
        return Some(r.to_string());
    }
    if name.starts_with("AX") || name.contains(':') {
        return Some(name.to_string());
    }
    let camel: String = name
        .split('-')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| f.to_uppercase().chain(cs).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    (!camel.is_empty()).then(|| format!("AX{camel}"))
}

/// An `AXValue`: AX returns a CFBoolean, CFNumber or CFString for the elements treeglass
/// writes (other value types are left out when read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AxValue {
    Bool(bool),
    Number(f64),
    Text(String),
}

impl AxValue {
    /// The value as a number (booleans as 0/1, numeric strings parsed).
    pub fn as_number(&self) -> Option<f64> {
        match self {
            AxValue::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            AxValue::Number(n) => Some(*n),
            AxValue::Text(t) => t.trim().parse().ok(),
        }
    }

    /// The value as text (numbers without a trailing `.0`).
    pub fn as_text(&self) -> String {
        match self {
            AxValue::Bool(b) => (if *b { "1" } else { "0" }).to_string(),
            AxValue::Number(n) => crate::model::format_number(*n),
            AxValue::Text(t) => t.clone(),
        }
    }
}

/// A toggle's `AXValue`: 0 off, 1 on, 2 mixed.
pub fn toggle_of(v: &AxValue) -> Option<Toggle> {
    let n = v.as_number()?;
    if n == 0.0 {
        Some(Toggle::Off)
    } else if n == 1.0 {
        Some(Toggle::On)
    } else if n == 2.0 {
        Some(Toggle::Mixed)
    } else {
        None
    }
}

/// `AXOrientation` values.
pub const ORIENTATION_HORIZONTAL: &str = "AXHorizontalOrientation";
pub const ORIENTATION_VERTICAL: &str = "AXVerticalOrientation";

/// One element as read from AX (or replayed from a trace). Attributes the element does not
/// have are `None`/empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AxElement {
    /// The node id the IO module gave it (see [`node_id`]); traces leave it out.
    pub id: Option<String>,
    pub role: String,
    pub subrole: Option<String>,
    pub role_description: String,
    pub title: String,
    pub description: String,
    pub help: String,
    pub identifier: String,
    pub placeholder: String,
    pub value: Option<AxValue>,
    /// Whether `AXValue` is settable.
    pub value_settable: bool,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub value_increment: Option<f64>,
    pub enabled: Option<bool>,
    pub focused: Option<bool>,
    pub focused_settable: bool,
    pub selected: Option<bool>,
    pub selected_settable: bool,
    /// `AXExpanded` (or `AXDisclosing` for outline rows).
    pub expanded: Option<bool>,
    pub expanded_settable: bool,
    pub required: Option<bool>,
    pub modal: Option<bool>,
    pub main: Option<bool>,
    pub busy: Option<bool>,
    pub orientation: Option<String>,
    /// Raw action names (`AXPress`, …).
    pub actions: Vec<String>,
    pub bounds: Option<Bounds>,
    pub children: Vec<AxElement>,
    /// What was refused for this element, each with its call, `AXError` and who refused (its
    /// children): the node is read in part (its `unanswered`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

crate::backend::record::recorded!(AxElement, node_from);

impl AxElement {
    fn sub(&self) -> Option<&str> {
        self.subrole.as_deref().filter(|s| !s.is_empty())
    }

    fn has_action(&self, raw: &str) -> bool {
        self.actions.iter().any(|a| a == raw)
    }
}

/// The node id of an element: `ax:<pid>` and its path from the application element (`/w<i>`
/// for the i-th window, `/<i>` for the i-th child), plus `#<n>` when a different element took
/// a path an earlier element had (so an id never names two elements).
pub fn node_id(pid: i32, path: &str, generation: u32) -> NodeId {
    if generation == 0 {
        NodeId(format!("ax:{pid}{path}"))
    } else {
        NodeId(format!("ax:{pid}{path}#{generation}"))
    }
}

/// The process id in a node id made by [`node_id`].
pub fn pid_of(id: &NodeId) -> Option<i32> {
    let rest = id.0.strip_prefix("ax:")?;
    let end = rest.find(['/', '#']).unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The path of the `index`-th child under `parent`'s path.
pub fn child_path(parent: &str, index: usize) -> String {
    format!("{parent}/{index}")
}

/// The path of the `index`-th window of an application.
pub fn window_path(index: usize) -> String {
    format!("/w{index}")
}

/// The name: `AXTitle`, else `AXDescription`, else the text of a static text or heading.
pub fn name_of(e: &AxElement, role: Role) -> String {
    if !e.title.is_empty() {
        e.title.clone()
    } else if !e.description.is_empty() {
        e.description.clone()
    } else if matches!(role, Role::Label | Role::Heading) {
        e.value.as_ref().map(AxValue::as_text).unwrap_or_default()
    } else {
        String::new()
    }
}

/// The description: `AXHelp`, or `AXDescription` when the title is the name.
pub fn description_of(e: &AxElement) -> String {
    if !e.title.is_empty() && !e.description.is_empty() {
        e.description.clone()
    } else {
        e.help.clone()
    }
}

/// Whether the element can step its value with `AXIncrement`/`AXDecrement`.
fn steps(e: &AxElement) -> bool {
    e.has_action("AXIncrement") && e.has_action("AXDecrement")
}

/// The states of an element, from its AX attributes.
pub fn states_of(e: &AxElement, role: Role) -> States {
    let mut s = States::EMPTY;
    // Most elements report AXEnabled; the ones that do not (static text, groups) are usable.
    if e.enabled.unwrap_or(true) {
        s = s.with(State::Enabled).with(State::Sensitive);
    }
    // What AX lists is on screen: hidden views drop out of the tree.
    s = s.with(State::Showing).with(State::Visible);
    if e.focused == Some(true) {
        s = s.with(State::Focused);
    }
    if e.focused_settable {
        s = s.with(State::Focusable);
    }
    if role.is_toggle() {
        s = s.with(State::Checkable);
        match e.value.as_ref().and_then(toggle_of) {
            Some(Toggle::On) => s = s.with(State::Checked),
            Some(Toggle::Mixed) => s = s.with(State::Indeterminate),
            _ => {}
        }
    }
    if role == Role::Tab {
        s = s.with(State::Selectable);
        if e.value.as_ref().and_then(toggle_of) == Some(Toggle::On) {
            s = s.with(State::Selected);
        }
    }
    if role.is_selectable_item() || e.selected_settable {
        s = s.with(State::Selectable);
    }
    if e.selected == Some(true) {
        s = s.with(State::Selected);
    }
    let expanded = if role == Role::Expander {
        e.value
            .as_ref()
            .and_then(toggle_of)
            .map(|t| t == Toggle::On)
            .or(e.expanded)
    } else {
        e.expanded
    };
    match expanded {
        Some(true) => s = s.with(State::Expandable).with(State::Expanded),
        Some(false) => s = s.with(State::Expandable).with(State::Collapsed),
        None => {}
    }
    if role.is_text() {
        s = s.with(if e.value_settable {
            State::Editable
        } else {
            State::ReadOnly
        });
        s = s.with(if e.role == "AXTextArea" {
            State::MultiLine
        } else {
            State::SingleLine
        });
    }
    if role.is_numeric() {
        if e.value_settable {
            s = s.with(State::Editable);
        } else if !steps(e) {
            s = s.with(State::ReadOnly);
        }
    }
    if role == Role::ComboBox && e.value_settable {
        s = s.with(State::Editable);
    }
    if role.is_choice() {
        s = s.with(State::HasPopup);
    }
    if e.required == Some(true) {
        s = s.with(State::Required);
    }
    if e.modal == Some(true) {
        s = s.with(State::Modal);
    }
    if e.main == Some(true) {
        s = s.with(State::Active);
    }
    if e.busy == Some(true) {
        s = s.with(State::Busy);
    }
    match e.orientation.as_deref() {
        Some(ORIENTATION_HORIZONTAL) => s = s.with(State::Horizontal),
        Some(ORIENTATION_VERTICAL) => s = s.with(State::Vertical),
        _ => {}
    }
    s
}

/// Action names for an element: its AX actions by treeglass name, then the synthetic ones its
/// settable attributes allow.
pub fn actions_of(e: &AxElement) -> Vec<String> {
    let mut out: Vec<String> = e.actions.iter().map(|a| action_name(a)).collect();
    if e.selected_settable {
        out.push("select".into());
    }
    if e.expanded_settable {
        out.push("expand".into());
        out.push("collapse".into());
    }
    out
}

/// Interfaces (treeglass's capability vocabulary) an element's attributes stand for: settable
/// text → `editable-text`; a number → `value`; a pop-up with a press/show-menu action →
/// `selection` (treeglass opens the menu and presses the item); tables, cells, documents.
pub fn interfaces_of(e: &AxElement, role: Role) -> Interfaces {
    let mut i = Interfaces::EMPTY.with(Interface::Accessible);
    if e.bounds.is_some() {
        i = i.with(Interface::Component);
    }
    if !e.actions.is_empty() || e.selected_settable || e.expanded_settable {
        i = i.with(Interface::Action);
    }
    if role.is_text() || role == Role::ComboBox && e.value_settable {
        i = i.with(Interface::Text);
        if e.value_settable {
            i = i.with(Interface::EditableText);
        }
    }
    if role.is_numeric() && (e.value_settable || steps(e)) {
        i = i.with(Interface::Value);
    }
    if role.is_choice() && (e.has_action("AXPress") || e.has_action("AXShowMenu")) {
        i = i.with(Interface::Selection);
    }
    match role {
        Role::Table | Role::Tree => i = i.with(Interface::Table),
        Role::TableCell => i = i.with(Interface::TableCell),
        Role::Document => i = i.with(Interface::Document),
        Role::Link => i = i.with(Interface::Hyperlink),
        Role::Image => i = i.with(Interface::Image),
        Role::Application => i = i.with(Interface::Application),
        _ => {}
    }
    i
}

/// The value of an element, by role.
pub fn value_of(e: &AxElement, role: Role) -> Option<Value> {
    if role.is_toggle() {
        return e
            .value
            .as_ref()
            .and_then(toggle_of)
            .map(|state| Value::Toggle { state });
    }
    if role.is_numeric() || role == Role::ProgressBar {
        let current = e.value.as_ref()?.as_number()?;
        return Some(Value::Number {
            current,
            min: e.min_value,
            max: e.max_value,
            step: e.value_increment,
        });
    }
    if role.is_choice() {
        let selected = e
            .value
            .as_ref()
            .map(AxValue::as_text)
            .filter(|s| !s.is_empty())
            .or_else(|| (role == Role::MenuButton && !e.title.is_empty()).then(|| e.title.clone()));
        return Some(Value::Choice {
            selected: selected.map(AppText::from),
        });
    }
    if role.is_text() {
        return Some(Value::Text {
            text: e
                .value
                .as_ref()
                .map(AxValue::as_text)
                .unwrap_or_default()
                .into(),
        });
    }
    None
}

/// The model node of one element (children are laid out by the caller). The id is the one the
/// IO module (or the trace loader) put on the record.
pub fn node_from(e: &AxElement) -> Node {
    let role = role_of(&e.role, e.sub());
    let id = NodeId(e.id.clone().unwrap_or_else(|| "ax:?".into()));
    let mut n = Node::new(id, role, raw_role(&e.role, e.sub()));
    n.name = name_of(e, role).into();
    n.description = description_of(e).into();
    // `label` stays None: neither the element reader nor the recorded traces carry
    // `AXTitleUIElement` yet. Reading it means one more attribute per element in `io.rs`.
    n.states = states_of(e, role);
    n.interfaces = interfaces_of(e, role);
    n.actions = actions_of(e).into_iter().map(AppText::from).collect();
    n.value = value_of(e, role);
    n.bounds = e.bounds;
    n.refused = e.unread.clone();
    n
}

/// AX's answers to [`write_plan`], with actions and settable attributes as capabilities: the
/// write plan for an element on macOS, from its role, capabilities and states ([`plan_for`] for
/// a mapped node), is
///
/// | role | plan |
/// |---|---|
/// | text field, text area, secure field | set `AXValue` when settable, else refused (read-only) |
/// | slider, incrementor | set `AXValue` when settable; else `AXIncrement`/`AXDecrement` steps; else refused |
/// | check box, switch, toggle | `AXPress`, up to twice for a check box or a mixed toggle |
/// | radio button, tab | `AXPress` (selects) |
/// | pop-up button, menu button | `AXPress` to open the menu, `AXPress` the matching item |
/// | combo box | open and pick when it has a press/show-menu action; else set `AXValue` |
/// | row, cell, list item | `AXSelected = true` when settable, else `AXPress` |
/// | disclosure triangle | `AXExpanded` when settable, else `AXPress` (flips) |
/// | button, menu item, link | `AXPress` |
///
/// [`write_plan`]: crate::backend::strategy::write_plan
/// [`plan_for`]: crate::backend::strategy::plan_for
pub const RULES: WriteRules = {
    use WritePlan::*;
    WriteRules {
        document_as_text: None,
        invocable: When::any(&[C::Press, C::Expand, C::ShowMenu]),
        text: &[
            (
                When::any(&[C::SetText]).and_not(&[State::ReadOnly]),
                SetValue,
            ),
            (When::ALWAYS, Refuse(NoWay::ReadOnly)),
        ],
        numeric: &[
            (
                When::all(&[C::SetNumber]).and_in(&[State::Editable]),
                SetRange,
            ),
            (When::all(&[C::Increment, C::Decrement]), Step),
            (When::ALWAYS, Refuse(NoWay::ReadOnly)),
        ],
        radio: &[(When::any(&[C::Press, C::Select]), SelectItem)],
        toggles: When::any(&[C::Press]),
        choice: &[
            (
                When::all(&[C::SelectChild]).and_any(&[C::Press, C::ShowMenu]),
                OpenMenuAndPick,
            ),
            (When::any(&[C::SetText]), SetValue),
        ],
        selects: When::any(&[C::Select, C::Press]),
        flips: When::any(&[C::Press]),
        presses: When::any(&[C::Press]),
        // Invocable without `Press` or `Expand`: only a menu to show, nothing to write.
        last_resort: Refuse(NoWay::NoMethod),
    }
};

/// AX's planner: [`RULES`] decide, [`op_method`] and [`plan_method`] name.
pub static PLANNER: Mapped = Mapped {
    rules: RULES,
    op_method,
    plan_method,
};

/// The AX calls a plan makes, for results and docs.
fn plan_method(wp: WritePlan) -> &'static str {
    match wp {
        WritePlan::SetValue => "AXValue (string)",
        WritePlan::Keyboard => "AXFocused, keyboard",
        WritePlan::SetRange => "AXValue (number)",
        WritePlan::Step => "AXIncrement/AXDecrement",
        WritePlan::Toggle { .. } | WritePlan::Expand { toggles: true } | WritePlan::Invoke => {
            "AXPress"
        }
        WritePlan::SelectItem => "AXPress or AXSelected",
        WritePlan::SelectChild => "AXSelectedChildren",
        WritePlan::OpenMenuAndPick => "AXPress, menu item AXPress",
        WritePlan::Expand { toggles: false } => "AXExpanded/AXDisclosing",
        WritePlan::Refuse(_) => "none",
    }
}

/// How a write's result names an op sent through AX.
pub fn op_method(op: &WriteOp) -> AppText {
    AppText::from(match op {
        WriteOp::SetText(_) => "AXValue (string)".to_string(),
        WriteOp::SetNumber(_) => "AXValue (number)".into(),
        WriteOp::StepTo(_) => "AXIncrement/AXDecrement".into(),
        WriteOp::Action(a) => match a.as_str() {
            "select" => "AXSelected".into(),
            "expand" | "collapse" => format!("AXExpanded ({})", a.as_str()),
            other => raw_action(other).unwrap_or_else(|| format!("action {other}")),
        },
        WriteOp::SelectChild(i) => format!("menu item {i} AXPress"),
        WriteOp::Focus => "AXFocused".into(),
        WriteOp::SelectAllText => "select all (not available)".into(),
        WriteOp::TypeText(_) => "typing (not available)".into(),
        WriteOp::Key(_) => "a key (not available)".into(),
        WriteOp::Click => "a click (not available)".into(),
        WriteOp::ActivateWindow(_) => "raising the window (not available)".into(),
        WriteOp::AwaitFocus => "waiting for the focus (not available)".into(),
        WriteOp::AwaitMenuKeyboard => "waiting for the menu (not available)".into(),
    })
}

/// An application's name from its executable path: the bundle name before `.app`
/// (`/Applications/TextEdit.app/Contents/MacOS/TextEdit` → `TextEdit`), else the file name.
pub fn app_name_from_path(path: &str) -> String {
    if let Some(i) = path.find(".app/") {
        let bundle = &path[..i];
        return bundle.rsplit('/').next().unwrap_or(bundle).to_string();
    }
    path.rsplit('/').next().unwrap_or(path).to_string()
}

/// Parses `ps -axo pid=,comm=` output into (pid, executable path) pairs.
pub fn parse_ps(listing: &str) -> Vec<(i32, String)> {
    listing
        .lines()
        .filter_map(|line| {
            let (pid, path) = line.trim_start().split_once(char::is_whitespace)?;
            Some((pid.parse().ok()?, path.trim().to_string()))
        })
        .filter(|(_, path)| !path.is_empty())
        .collect()
}

/// Whether a process's executable lives in an application bundle (only those have windows
/// worth listing; asking every daemon would cost a messaging timeout each).
pub fn is_app_bundle(path: &str) -> bool {
    path.contains(".app/Contents/MacOS/")
}

/// Window events from two polls of an application's window titles: titles that appeared are
/// opened windows, titles that went away closed ones (a title that repeats counts each time).
pub fn window_changes(before: &[String], after: &[String]) -> Vec<(EventKind, String)> {
    let mut out = Vec::new();
    let mut left: Vec<&String> = before.iter().collect();
    for t in after {
        match left.iter().position(|b| *b == t) {
            Some(i) => {
                left.remove(i);
            }
            None => out.push((EventKind::WindowOpened, t.clone())),
        }
    }
    out.extend(
        left.into_iter()
            .map(|t| (EventKind::WindowClosed, t.clone())),
    );
    out
}

/// AX error codes (`AXError.h`); named, with who says each, in [`super::calls`].
pub const AX_ERROR_FAILURE: i32 = -25200;
pub const AX_ERROR_ILLEGAL_ARGUMENT: i32 = -25201;
pub const AX_ERROR_INVALID_UI_ELEMENT: i32 = -25202;
pub const AX_ERROR_CANNOT_COMPLETE: i32 = -25204;
pub const AX_ERROR_ATTRIBUTE_UNSUPPORTED: i32 = -25205;
pub const AX_ERROR_ACTION_UNSUPPORTED: i32 = -25206;
pub const AX_ERROR_NOT_IMPLEMENTED: i32 = -25208;
pub const AX_ERROR_API_DISABLED: i32 = -25211;
pub const AX_ERROR_NO_VALUE: i32 = -25212;

/// What a failed AX call means for the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The element is gone.
    Vanished,
    /// The app did not answer within the messaging timeout (busy or hung).
    Timeout,
    /// This process is not trusted for accessibility (System Settings › Privacy & Security ›
    /// Accessibility).
    NotTrusted,
    /// The element has no such attribute or action, or no value.
    Unsupported,
    Failed,
}

/// Classifies an `AXError`.
pub fn classify_error(code: i32) -> ErrorKind {
    match code {
        AX_ERROR_INVALID_UI_ELEMENT => ErrorKind::Vanished,
        AX_ERROR_CANNOT_COMPLETE => ErrorKind::Timeout,
        AX_ERROR_API_DISABLED => ErrorKind::NotTrusted,
        AX_ERROR_ATTRIBUTE_UNSUPPORTED
        | AX_ERROR_ACTION_UNSUPPORTED
        | AX_ERROR_NOT_IMPLEMENTED
        | AX_ERROR_NO_VALUE => ErrorKind::Unsupported,
        _ => ErrorKind::Failed,
    }
}

#[cfg(test)]
mod tests;
