//! The neutral vocabulary of write planning, shared by every platform: what a planner is told
//! ([`Context`]) and what it answers ([`Plan`]: primitive [`WriteOp`]s, each to a [`Dest`], on
//! a [`Path`]), the neutral [`WritePlan`] and [`Capabilities`] the UI Automation and AX
//! mappings describe an element's writability with, the action-preference lists, option lists
//! and stepping arithmetic, and the [`Planner`] trait each backend's planner implements.
//! Two shapes of planner are here: [`interfaces::ByInterfaces`] (the AT-SPI backend's, with
//! the Linux toolkits' rules in `backend::atspi::strategy`, and the demo app's) and
//! [`Mapped`] (UI Automation's and AX's, each in their `map` module). What a value means and
//! how a read-back is judged stay in the shared rules (`write::rules`).

use serde::Serialize;

use super::WriteOp;
use crate::model::{AppText, Interface, Node, Requested, Role, State, States, Toggle, Toolkit};

/// Why no write can be planned for an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoWay {
    /// The element is disabled.
    Disabled,
    /// The element holds a value but says it cannot be changed (UIA `ValuePattern.IsReadOnly`,
    /// `RangeValuePattern.IsReadOnly`; AX `AXValue` not settable and no stepping actions).
    ReadOnly,
    /// The role takes no value (a label, a pane).
    NotEditable,
    /// The role takes a value but the element exposes no pattern/action that writes it.
    NoMethod,
}

impl NoWay {
    pub fn as_str(self) -> &'static str {
        match self {
            NoWay::Disabled => "disabled",
            NoWay::ReadOnly => "read-only",
            NoWay::NotEditable => "not-editable",
            NoWay::NoMethod => "no-method",
        }
    }
}

/// How a value reaches an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "plan", content = "detail", rename_all = "kebab-case")]
pub enum WritePlan {
    /// Replace the whole text (UIA `ValuePattern.SetValue`; AX set `AXValue` to a string).
    SetValue,
    /// Focus, select all, type: the keyboard fallback for a text field that has no settable
    /// value (UIA edit with `TextPattern` but no `ValuePattern`).
    Keyboard,
    /// Set a number (UIA `RangeValuePattern.SetValue`; AX set `AXValue` to a number).
    SetRange,
    /// Step a number with increment/decrement actions, reading after each press (AX
    /// incrementor or slider whose `AXValue` is not settable). See [`steps_to`].
    Step,
    /// Press until the toggle shows the asked state, at most `max_presses` times, reading
    /// after each press: a check box that may be tri-state (or is mixed now) can need two.
    Toggle { max_presses: u8 },
    /// Select this element (UIA `SelectionItemPattern.Select`; AX `AXPress` on a tab or radio
    /// button, `AXSelected = true` on a row).
    SelectItem,
    /// Select one option of this element directly, without opening anything (UIA container
    /// with `SelectionPattern` but no `ExpandCollapsePattern`).
    SelectChild,
    /// Open the pop-up, choose the single matching option, close it (UIA: `Expand`, option
    /// `SelectionItem.Select`, `Collapse`; AX: `AXPress` the pop-up button, `AXPress` the menu
    /// item, and the menu closes itself).
    OpenMenuAndPick,
    /// Expand or collapse. `toggles`: the only method flips the state (AX disclosure triangle
    /// `AXPress`, a toggle pattern), so it is sent only when the state differs from the request.
    Expand { toggles: bool },
    /// Run the element's default action (UIA `InvokePattern.Invoke`; AX `AXPress`).
    Invoke,
    /// Nothing can be sent.
    Refuse(NoWay),
}

/// A backend's planner: how it writes an element, and how a write's result names what it
/// sent. Each backend brings its own ([`super::Backend::planner`]); a new platform adds one
/// beside its backend and changes nothing here.
pub trait Planner: Sync + std::fmt::Debug {
    /// How a write's result names one op sent through this planner's backend.
    fn method(&self, op: &WriteOp) -> AppText;

    /// The strategies for writing `req` into the element, in the order to try them; `Err`
    /// with what is missing when there is none. Refusals of the request itself (disabled,
    /// read-only, wrong kind) are the rules' business and come first.
    fn plan(&self, ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String>;
}

/// The planner of a platform whose mapping decides with one [`WritePlan`] per element (the
/// one place it chooses; its backend then only carries the ops out), with fallbacks where a
/// partial provider refuses a way it listed (see [`with_fallbacks`]).
#[derive(Debug)]
pub struct Mapped {
    pub rules: WriteRules,
    /// How a result names one op sent.
    pub op_method: fn(&WriteOp) -> AppText,
    /// How a result names a plan that is not one action: the platform's calls for it.
    pub plan_method: fn(WritePlan) -> &'static str,
}

impl Mapped {
    /// What `wp` calls on this platform; "none" for a refusal.
    pub fn plan_method(&self, wp: WritePlan) -> &'static str {
        if wp.is_refusal() {
            "none"
        } else {
            (self.plan_method)(wp)
        }
    }
}

impl Planner for Mapped {
    fn method(&self, op: &WriteOp) -> AppText {
        (self.op_method)(op)
    }

    fn plan(&self, ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String> {
        with_fallbacks(self, ctx, req)
    }
}

impl WritePlan {
    /// Whether the plan sends nothing.
    pub fn is_refusal(self) -> bool {
        matches!(self, WritePlan::Refuse(_))
    }
}

macro_rules! caps {
    ($($variant:ident => $doc:literal),* $(,)?) => {
        /// One way an element can be written, in the backend-neutral vocabulary both
        /// platforms map onto (interfaces and action names of a [`Node`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Capability { $(#[doc = $doc] $variant),* }

        impl Capability {
            /// Every capability, in declaration order.
            pub const ALL: &'static [Capability] = &[$(Capability::$variant),*];
        }
    };
}

caps! {
    SetText => "Whole text can be replaced (`editable-text`).",
    ReadText => "Text can be read (`text`).",
    SetNumber => "A number can be set (`value`).",
    SelectChild => "An option can be selected on the container (`selection`).",
    Invoke => "Action `invoke` (UIA InvokePattern).",
    Toggle => "Action `toggle` (UIA TogglePattern).",
    Select => "Action `select` (UIA SelectionItemPattern; AX `AXSelected` settable).",
    Expand => "Actions `expand`/`collapse` (UIA ExpandCollapsePattern; AX `AXExpanded` settable).",
    Press => "Action `press` (AX `AXPress`).",
    Increment => "Action `increment` (AX `AXIncrement`).",
    Decrement => "Action `decrement` (AX `AXDecrement`).",
    ShowMenu => "Action `show-menu` (AX `AXShowMenu`).",
}

/// A set of [`Capability`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities(u16);

impl Capabilities {
    pub const EMPTY: Capabilities = Capabilities(0);

    pub fn has(self, c: Capability) -> bool {
        self.0 & (1 << c as u16) != 0
    }

    pub fn with(mut self, c: Capability) -> Self {
        self.0 |= 1 << c as u16;
        self
    }

    /// What a mapped node says it can do: its interfaces and action names.
    pub fn of(node: &Node) -> Capabilities {
        let mut caps = Capabilities::EMPTY;
        for (iface, cap) in [
            (Interface::EditableText, Capability::SetText),
            (Interface::Text, Capability::ReadText),
            (Interface::Value, Capability::SetNumber),
            (Interface::Selection, Capability::SelectChild),
        ] {
            if node.interfaces.has(iface) {
                caps = caps.with(cap);
            }
        }
        for action in &node.actions {
            let cap = match action.as_str().to_ascii_lowercase().as_str() {
                "invoke" => Capability::Invoke,
                "toggle" => Capability::Toggle,
                "select" => Capability::Select,
                "expand" | "collapse" => Capability::Expand,
                "press" => Capability::Press,
                "increment" => Capability::Increment,
                "decrement" => Capability::Decrement,
                "show-menu" => Capability::ShowMenu,
                _ => continue,
            };
            caps = caps.with(cap);
        }
        caps
    }
}

impl FromIterator<Capability> for Capabilities {
    fn from_iter<I: IntoIterator<Item = Capability>>(iter: I) -> Self {
        iter.into_iter()
            .fold(Capabilities::EMPTY, |caps, c| caps.with(c))
    }
}

/// Whether a person could use the element (either enabled flag).
pub fn enabled(states: States) -> bool {
    states.has(State::Enabled) || states.has(State::Sensitive)
}

/// How many presses a toggle may need: a check box can be tri-state (on → mixed → off on some
/// toolkits), and a mixed toggle needs one press to leave mixed and maybe one more.
pub fn toggle_budget(role: Role, current: Option<Toggle>) -> u8 {
    if role == Role::CheckBox || current == Some(Toggle::Mixed) {
        2
    } else {
        1
    }
}

/// When a row of [`WriteRules`] holds for an element: it has every capability of `all` and,
/// when `any` is not empty, one of `any`; it is in every state of `states` and in none of
/// `not`.
#[derive(Debug, Clone, Copy)]
pub struct When {
    all: &'static [Capability],
    any: &'static [Capability],
    states: &'static [State],
    not: &'static [State],
}

impl When {
    /// Whatever the element has.
    pub const ALWAYS: When = When {
        all: &[],
        any: &[],
        states: &[],
        not: &[],
    };

    /// It has one of `caps`.
    pub const fn any(caps: &'static [Capability]) -> When {
        When {
            any: caps,
            ..When::ALWAYS
        }
    }

    /// It has every one of `caps`.
    pub const fn all(caps: &'static [Capability]) -> When {
        When {
            all: caps,
            ..When::ALWAYS
        }
    }

    /// It is in every one of `states`.
    pub const fn states(states: &'static [State]) -> When {
        When {
            states,
            ..When::ALWAYS
        }
    }

    /// And it has one of `caps`.
    pub const fn and_any(self, caps: &'static [Capability]) -> When {
        When { any: caps, ..self }
    }

    /// And it is in every one of `states`.
    pub const fn and_in(self, states: &'static [State]) -> When {
        When { states, ..self }
    }

    /// And it is in none of `states`.
    pub const fn and_not(self, states: &'static [State]) -> When {
        When {
            not: states,
            ..self
        }
    }

    fn holds(&self, caps: Capabilities, states: States) -> bool {
        self.all.iter().all(|&c| caps.has(c))
            && (self.any.is_empty() || self.any.iter().any(|&c| caps.has(c)))
            && self.states.iter().all(|&s| states.has(s))
            && !self.not.iter().any(|&s| states.has(s))
    }
}

/// Rows tried in order: the first that holds gives the plan; when none does, nothing can be
/// sent ([`NoWay::NoMethod`]).
pub type Ladder = &'static [(When, WritePlan)];

fn climb(ladder: Ladder, caps: Capabilities, states: States) -> WritePlan {
    ladder
        .iter()
        .find(|(when, _)| when.holds(caps, states))
        .map_or(WritePlan::Refuse(NoWay::NoMethod), |&(_, plan)| plan)
}

/// One platform's answers to what [`write_plan`] asks of an element, kind of role by kind of
/// role, as data: the UIA and AX mappings each have one table (`map::RULES`), which
/// [`write_plan`] reads. Capabilities and states are the element's.
#[derive(Debug, Clone, Copy)]
pub struct WriteRules {
    /// Whether a document is written as text (UIA: when its value is settable); `None`: only
    /// text roles are.
    pub document_as_text: Option<When>,
    /// Whether the element does something when pressed, whatever its role.
    pub invocable: When,
    /// How a text element is written.
    pub text: Ladder,
    /// How a numeric element (slider, spinner, …) is written.
    pub numeric: Ladder,
    /// How a radio button or radio menu item is chosen.
    pub radio: Ladder,
    /// Whether a toggle can be pressed.
    pub toggles: When,
    /// How a choice (combo box, menu button) is set.
    pub choice: Ladder,
    /// Whether a selectable item (tab, list item, row, …) can be selected.
    pub selects: When,
    /// Whether an expander without `Expand` flips when pressed.
    pub flips: When,
    /// Whether any other element is invoked by a press.
    pub presses: When,
    /// What any other element that can neither be pressed nor expanded gets.
    pub last_resort: WritePlan,
}

/// The one shape of a write decision on UIA and AX: an element that takes no value and does
/// nothing when pressed is not editable, a disabled one is refused, then the role decides, in
/// this order: text, numeric, radio, toggle, choice, selectable item, expander, the rest.
pub fn write_plan(rules: &WriteRules, role: Role, caps: Capabilities, states: States) -> WritePlan {
    let text = role.is_text()
        || role == Role::Document
            && rules
                .document_as_text
                .is_some_and(|w| w.holds(caps, states));
    let takes_value = text
        || role.is_numeric()
        || role.is_toggle()
        || role.is_choice()
        || role.is_selectable_item()
        || role == Role::Expander;
    let holds = |w: When| w.holds(caps, states);
    if !takes_value && !holds(rules.invocable) {
        return WritePlan::Refuse(NoWay::NotEditable);
    }
    if !enabled(states) {
        return WritePlan::Refuse(NoWay::Disabled);
    }
    let current = states.has(State::Indeterminate).then_some(Toggle::Mixed);
    if text {
        return climb(rules.text, caps, states);
    }
    if role.is_numeric() {
        return climb(rules.numeric, caps, states);
    }
    let can = |w: When, plan: WritePlan| {
        if holds(w) {
            plan
        } else {
            WritePlan::Refuse(NoWay::NoMethod)
        }
    };
    match role {
        Role::RadioButton | Role::RadioMenuItem => climb(rules.radio, caps, states),
        r if r.is_toggle() => can(
            rules.toggles,
            WritePlan::Toggle {
                max_presses: toggle_budget(r, current),
            },
        ),
        r if r.is_choice() => climb(rules.choice, caps, states),
        r if r.is_selectable_item() => can(rules.selects, WritePlan::SelectItem),
        Role::Expander if caps.has(Capability::Expand) => WritePlan::Expand { toggles: false },
        Role::Expander => can(rules.flips, WritePlan::Expand { toggles: true }),
        _ if holds(rules.presses) => WritePlan::Invoke,
        _ if caps.has(Capability::Expand) => WritePlan::Expand { toggles: false },
        _ => rules.last_resort,
    }
}

/// [`write_plan`] for a mapped node.
pub fn plan_for(rules: &WriteRules, node: &Node) -> WritePlan {
    write_plan(rules, node.role, Capabilities::of(node), node.states)
}

/// The most presses [`WritePlan::Step`] sends for one write.
pub const MAX_STEPS: u32 = 1000;

/// Which way and how many presses bring `current` to `target` with increments of `step`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    /// Increment (true) or decrement.
    pub up: bool,
    /// Presses expected; with an unknown step, [`MAX_STEPS`] (stop when [`step_done`]).
    pub presses: u32,
}

/// Plans a stepped write. Within half a step of the target: no presses.
pub fn steps_to(current: f64, target: f64, step: f64) -> Steps {
    let up = target > current;
    let distance = (target - current).abs();
    let presses = if step > 0.0 && step.is_finite() {
        if distance <= step / 2.0 {
            0
        } else {
            // Bounded by MAX_STEPS, so the float → int cast cannot overflow.
            (distance / step).round().min(MAX_STEPS as f64) as u32
        }
    } else if distance < 1e-9 {
        0
    } else {
        MAX_STEPS
    };
    Steps { up, presses }
}

/// Whether stepping in direction `up` has reached (or passed) `target`.
pub fn step_done(up: bool, current: f64, target: f64, step: f64) -> bool {
    let slack = if step > 0.0 { step / 2.0 } else { 1e-9 };
    if up {
        current >= target - slack
    } else {
        current <= target + slack
    }
}

/// Roles an option of a choice element can have.
pub fn is_option_role(role: Role) -> bool {
    matches!(
        role,
        Role::ListItem | Role::MenuItem | Role::CheckMenuItem | Role::RadioMenuItem
    )
}

/// The rows of the options of the choice element at `row` (combo box, pop-up button): its
/// nearest descendants that are list or menu items, in tree order, not looking inside an
/// option (a submenu's items belong to that submenu) or inside another choice element.
pub fn option_rows(nodes: &[Node], row: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let Some(root) = nodes.get(row) else {
        return out;
    };
    let mut stack: Vec<usize> = root.children.iter().rev().copied().collect();
    while let Some(r) = stack.pop() {
        let Some(n) = nodes.get(r) else { continue };
        if is_option_role(n.role) {
            out.push(r);
        } else if !n.role.is_choice() {
            stack.extend(n.children.iter().rev().copied());
        }
    }
    out
}

/// Gives choice elements without a readable selection the label of their selected option
/// (UIA combo boxes without `ValuePattern`; AX pop-ups whose menu is open).
pub fn fill_choice_values(nodes: &mut [Node]) {
    for row in 0..nodes.len() {
        if !nodes[row].role.is_choice() {
            continue;
        }
        let known = matches!(
            &nodes[row].value,
            Some(crate::model::Value::Choice { selected: Some(s) }) if !s.is_empty()
        );
        if known {
            continue;
        }
        let selected = option_rows(nodes, row)
            .into_iter()
            .find(|&r| nodes[r].states.has(State::Selected) || nodes[r].states.has(State::Checked))
            .map(|r| nodes[r].name.clone());
        if selected.is_some() || nodes[row].value.is_none() {
            nodes[row].value = Some(crate::model::Value::Choice { selected });
        }
    }
}

// ---- The planner -------------------------------------------------------------------------

/// Action names that flip a toggle, most specific first.
pub const TOGGLE_ACTIONS: &[&str] = &["toggle", "click", "press", "activate", "invoke"];
/// Action names that choose an item (an option, a tab, a row), most specific first.
pub const SELECT_ACTIONS: &[&str] = &["select", "click", "activate", "press", "invoke"];
/// Action names that expand or collapse, after the explicit `expand`/`collapse`.
pub const EXPAND_ACTIONS: &[&str] = &["activate", "click", "press", "toggle"];
/// The action `invoke` runs (and a recorded step replays) when none is named.
pub const DEFAULT_ACTIONS: &[&str] = &["click", "press", "activate", "toggle", "select", "expand"];

/// The first of `prefs` that the element has (case-insensitive), as the element spells it.
pub fn pick_action<'a>(actions: &'a [AppText], prefs: &[&str]) -> Option<&'a AppText> {
    prefs
        .iter()
        .find_map(|p| actions.iter().find(|a| a.as_str().eq_ignore_ascii_case(p)))
}

/// The action `invoke` runs: the named one, else the first default the element has, else its
/// first action.
pub fn default_action(actions: &[AppText]) -> Option<&AppText> {
    pick_action(actions, DEFAULT_ACTIONS).or_else(|| actions.first())
}

/// The way a plan's calls reach the element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Path {
    /// The element's own accessibility interfaces (EditableText, Value, Action, Selection).
    Semantic,
    /// Synthesized keys in the element's (raised, focused) window.
    Keyboard,
    /// A synthesized click at the element's centre.
    Pointer,
}

impl Path {
    pub fn as_str(self) -> &'static str {
        match self {
            Path::Semantic => "semantic",
            Path::Keyboard => "keyboard",
            Path::Pointer => "pointer",
        }
    }
}

/// Where one op of a plan goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Dest {
    /// The element being written.
    Element,
    /// Its parent (a Selection container).
    Parent,
    /// Option `n` of a choice element (as listed to the planner).
    Option(usize),
    /// The list holding a choice element's options (a `<select>`'s `menu` in Firefox).
    OptionList,
}

/// One strategy: ops in order, the path they take, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub path: Path,
    pub ops: Vec<(Dest, WriteOp)>,
    /// Toggles: the ops are sent again (reading back after each) until the asked state shows,
    /// at most this many times in all. 1 for everything else.
    pub max_sends: u8,
    /// How the result names the method (it may hold one of the app's action names).
    pub method: AppText,
    /// Why this strategy was chosen.
    pub reason: String,
    /// The toolkit is known to answer this plan's call and do nothing for this kind of element
    /// (see [`KNOWN_IGNORED`]): when the read-back proves nothing changed, the next plan may
    /// run. Without that knowledge a second, different write never follows one that may have
    /// landed.
    pub known_ignored: bool,
}

/// The synthesized input the session offers (the backend's [`super::Backend::input`]): for
/// keys and for clicks, the path's name, or why there is none. The planner plans a keyboard or
/// pointer strategy only where its path exists, and otherwise refuses before anything is sent,
/// with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPaths {
    pub keyboard: Result<String, String>,
    pub pointer: Result<String, String>,
}

impl InputPaths {
    /// Neither: `why` for both.
    pub fn none(why: impl Into<String>) -> InputPaths {
        let why = why.into();
        InputPaths {
            keyboard: Err(why.clone()),
            pointer: Err(why),
        }
    }

    /// Both, by `name`.
    pub fn both(name: impl Into<String>) -> InputPaths {
        let name = name.into();
        InputPaths {
            keyboard: Ok(name.clone()),
            pointer: Ok(name),
        }
    }
}

/// What the planner knows about the element and its surroundings.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    /// The backend's planner (names what a plan sends).
    pub planner: &'a dyn Planner,
    /// The keys and clicks this session can synthesize.
    pub input: &'a InputPaths,
    /// The element, freshly read (with its action names).
    pub node: &'a Node,
    pub toolkit: Option<Toolkit>,
    /// Under a web document: a browser's page content.
    pub in_web_content: bool,
    /// The title of the element's window (to raise the right one for synthesized input).
    pub window: &'a AppText,
    /// A choice element's options, freshly read, with the chosen and current indexes.
    pub options: &'a [Node],
    pub chosen: Option<usize>,
    pub current: Option<usize>,
    /// The options sit in one list (the element's only child) that has Selection.
    pub option_list_selection: bool,
    /// The element's index among its parent's children, when the parent has Selection.
    pub parent_selection: Option<usize>,
}

/// The most plans [`with_fallbacks`] makes for one write.
const MAX_FALLBACKS: usize = 4;

/// The mapping's plan for the element, then the plans it would get without each way tried
/// before it, in order (UIA: `ValuePattern` → keyboard; `Toggle` → `Invoke`). A partial
/// provider answers "not implemented" to a pattern or an action it lists (UIA `E_NOTIMPL`,
/// `E_NOINTERFACE`, `UIA_E_NOTSUPPORTED`; AX `kAXErrorActionUnsupported`): the call is refused
/// with nothing sent, and the engine then tries the next plan. A plan that may have landed is
/// never followed by another (the engine's rule), so a fallback runs only after a refusal.
fn with_fallbacks(
    mapped: &Mapped,
    ctx: &Context<'_>,
    req: &Requested,
) -> Result<Vec<Plan>, String> {
    let mut node = ctx.node.clone();
    let mut plans: Vec<Plan> = Vec::new();
    while plans.len() < MAX_FALLBACKS {
        let now = Context {
            node: &node,
            ..ctx.clone()
        };
        let plan = match ops_for(mapped, plan_for(&mapped.rules, &node), &now, req) {
            Ok(mut one) => one.remove(0),
            Err(why) if plans.is_empty() => return Err(why),
            Err(_) => break,
        };
        let used = plan.ops.iter().any(|(_, op)| without_way(&mut node, op));
        plans.push(plan);
        if !used {
            break;
        }
    }
    Ok(plans)
}

/// Takes the way `op` writes (the interface or the action it calls) from `node`, as if the
/// element did not list it; false when `op` calls nothing the element lists (typed keys, a
/// stepped value, an option picked).
fn without_way(node: &mut Node, op: &WriteOp) -> bool {
    let iface = match op {
        WriteOp::SetText(_) => Interface::EditableText,
        WriteOp::SetNumber(_) => Interface::Value,
        WriteOp::Action(a) => {
            let before = node.actions.len();
            node.actions.retain(|x| x != a);
            return node.actions.len() < before;
        }
        _ => return false,
    };
    let had = node.interfaces.has(iface);
    node.interfaces.set(iface, false);
    had
}

/// The ops that carry a mapping's [`WritePlan`] out for `req`, as one semantic (or, for
/// [`WritePlan::Keyboard`], keyboard) strategy named by the planner's `plan_method`.
pub fn ops_for(
    mapped: &Mapped,
    wp: WritePlan,
    ctx: &Context<'_>,
    req: &Requested,
) -> Result<Vec<Plan>, String> {
    let node = ctx.node;
    let action = |prefs: &[&str]| pick_action(&node.actions, prefs).cloned();
    let missing = |what: &str| format!("no {what} action (plan: {})", mapped.plan_method(wp));
    let (path, ops, max_sends) = match (wp, req) {
        (WritePlan::Refuse(why), _) => {
            return Err(format!("nothing can write it ({})", why.as_str()));
        }
        (WritePlan::SetValue, Requested::Text(t) | Requested::Option(t)) => {
            (Path::Semantic, vec![WriteOp::SetText(t.clone())], 1)
        }
        (WritePlan::SetValue, Requested::Number(v)) => (
            Path::Semantic,
            vec![WriteOp::SetText(crate::model::format_number(*v))],
            1,
        ),
        (WritePlan::Keyboard, Requested::Text(t)) => {
            if t.is_empty() || t.contains(['\n', '\r', '\t']) {
                return Err(
                    "only text without line breaks or tabs can be typed here, and not nothing"
                        .into(),
                );
            }
            let mut ops = vec![WriteOp::Focus];
            if node.interfaces.has(Interface::Text) {
                ops.push(WriteOp::SelectAllText);
            }
            ops.push(WriteOp::TypeText(t.clone()));
            (Path::Keyboard, ops, 1)
        }
        (WritePlan::SetRange, Requested::Number(v)) => {
            (Path::Semantic, vec![WriteOp::SetNumber(*v)], 1)
        }
        (WritePlan::Step, Requested::Number(v)) => (Path::Semantic, vec![WriteOp::StepTo(*v)], 1),
        (WritePlan::Toggle { max_presses }, Requested::Toggle(_)) => {
            let a = action(TOGGLE_ACTIONS).ok_or_else(|| missing("toggle"))?;
            (Path::Semantic, vec![WriteOp::Action(a)], max_presses)
        }
        (WritePlan::SelectItem, Requested::Select(_) | Requested::Toggle(_)) => {
            let a = action(SELECT_ACTIONS).ok_or_else(|| missing("select"))?;
            (Path::Semantic, vec![WriteOp::Action(a)], 1)
        }
        (WritePlan::SelectChild | WritePlan::OpenMenuAndPick, Requested::Option(_)) => {
            let i = ctx.chosen.ok_or("no option chosen")?;
            (Path::Semantic, vec![WriteOp::SelectChild(i)], 1)
        }
        (WritePlan::Expand { .. }, Requested::Expand(want)) => {
            let explicit = if *want { "expand" } else { "collapse" };
            let a = action(&[explicit])
                .or_else(|| action(EXPAND_ACTIONS))
                .or_else(|| action(&["invoke"]))
                .ok_or_else(|| missing("expand"))?;
            (Path::Semantic, vec![WriteOp::Action(a)], 1)
        }
        (wp, _) => {
            return Err(format!(
                "the element is written by {}, which does not take this value",
                mapped.plan_method(wp)
            ));
        }
    };
    // A plan carried out by one action is named by the action it sends (a toggle pressed
    // through `InvokePattern` is not `TogglePattern.Toggle`).
    let method = match ops.as_slice() {
        [op @ WriteOp::Action(_)] => mapped.method(op),
        _ => mapped.plan_method(wp).into(),
    };
    Ok(vec![Plan {
        path,
        ops: ops.into_iter().map(|op| (Dest::Element, op)).collect(),
        max_sends,
        reason: format!("the element's {}", method.literal(60)),
        method,
        known_ignored: false,
    }])
}

pub mod interfaces;

#[cfg(test)]
mod plans;

#[cfg(test)]
mod tests;
