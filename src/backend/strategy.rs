//! The one write planner: which calls put a value on an element, for every platform. From the
//! element (role, interfaces, action names, states), its toolkit and where it sits (web
//! content or not), and the requested value, [`plan`] returns the strategies to try in order,
//! each a list of primitive [`WriteOp`]s with the path they take (semantic call, keyboard,
//! pointer) and why. The write engine carries a plan out and verifies it by reading back;
//! backends only perform ops. What a value means and how a read-back is judged stay in the
//! shared rules (`write::rules`).
//!
//! Also here: the neutral `WritePlan` that the UI Automation and AX mappings describe an
//! element's writability with, and the action-preference lists, once.

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

/// The platform a plan is carried out on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Uia,
    Ax,
    Atspi,
    /// The built-in demo app (behaves like AT-SPI without a display).
    Fixture,
}

impl WritePlan {
    /// Whether the plan sends nothing.
    pub fn is_refusal(self) -> bool {
        matches!(self, WritePlan::Refuse(_))
    }

    /// The calls a plan makes on `platform`, for results and docs.
    pub fn method(self, platform: Platform) -> &'static str {
        match (platform, self) {
            (Platform::Uia, WritePlan::SetValue) => "ValuePattern.SetValue",
            (Platform::Uia, WritePlan::Keyboard) => "SetFocus, TextPattern select all, SendInput",
            (Platform::Uia, WritePlan::SetRange) => "RangeValuePattern.SetValue",
            (Platform::Uia, WritePlan::Step) => "RangeValuePattern.SetValue (stepped)",
            (Platform::Uia, WritePlan::Toggle { .. }) => "TogglePattern.Toggle",
            (Platform::Uia, WritePlan::SelectItem) => "SelectionItemPattern.Select",
            (Platform::Uia, WritePlan::SelectChild) => "option SelectionItemPattern.Select",
            (Platform::Uia, WritePlan::OpenMenuAndPick) => {
                "ExpandCollapsePattern.Expand, option SelectionItemPattern.Select, Collapse"
            }
            (Platform::Uia, WritePlan::Expand { toggles: false }) => {
                "ExpandCollapsePattern.Expand/Collapse"
            }
            (Platform::Uia, WritePlan::Expand { toggles: true }) => "TogglePattern.Toggle",
            (Platform::Uia, WritePlan::Invoke) => "InvokePattern.Invoke",
            (Platform::Ax, WritePlan::SetValue) => "AXValue (string)",
            (Platform::Ax, WritePlan::Keyboard) => "AXFocused, keyboard",
            (Platform::Ax, WritePlan::SetRange) => "AXValue (number)",
            (Platform::Ax, WritePlan::Step) => "AXIncrement/AXDecrement",
            (Platform::Ax, WritePlan::Toggle { .. }) => "AXPress",
            (Platform::Ax, WritePlan::SelectItem) => "AXPress or AXSelected",
            (Platform::Ax, WritePlan::SelectChild) => "AXSelectedChildren",
            (Platform::Ax, WritePlan::OpenMenuAndPick) => "AXPress, menu item AXPress",
            (Platform::Ax, WritePlan::Expand { toggles: false }) => "AXExpanded/AXDisclosing",
            (Platform::Ax, WritePlan::Expand { toggles: true }) => "AXPress",
            (Platform::Ax, WritePlan::Invoke) => "AXPress",
            (Platform::Atspi | Platform::Fixture, _) => "see write::plan",
            (_, WritePlan::Refuse(_)) => "none",
        }
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

/// Calls a toolkit answers and ignores, with the evidence: the only cases in which a fallback
/// runs after a dispatched write showed no change.
pub const KNOWN_IGNORED: &[(&str, &str, &str)] = &[
    (
        "Chromium, Firefox",
        "EditableText.SetTextContents on a text field",
        "answers true and changes nothing (measured on Chromium 156's form inputs)",
    ),
    (
        "Qt 5, Qt 6",
        "Value.CurrentValue on a spin box",
        "a QAbstractSpinBox may take the value without committing its text; typed text + Return \
         commits it",
    ),
];

/// What the planner knows about the element and its surroundings.
#[derive(Debug, Clone)]
pub struct Context<'a> {
    pub platform: Platform,
    /// The element, freshly read (with its action names).
    pub node: &'a Node,
    pub toolkit: Option<Toolkit>,
    /// Under a web document (`document web`): a browser's page content.
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

impl Context<'_> {
    fn has(&self, i: Interface) -> bool {
        self.node.interfaces.has(i)
    }

    fn action(&self, prefs: &[&str]) -> Option<AppText> {
        pick_action(&self.node.actions, prefs).cloned()
    }

    /// Synthesized keys and clicks (and raising the window for them) are possible.
    fn can_synthesize(&self) -> bool {
        matches!(self.platform, Platform::Atspi | Platform::Fixture)
    }

    fn tk_is(&self, f: impl Fn(Toolkit) -> bool) -> bool {
        self.toolkit.is_some_and(f)
    }

    /// Focus the element for typing: raise its window, give it keyboard focus.
    fn focus_ops(&self) -> Vec<(Dest, WriteOp)> {
        let mut ops = Vec::new();
        if self.can_synthesize() {
            ops.push((Dest::Element, WriteOp::ActivateWindow(self.window.clone())));
        }
        ops.push((Dest::Element, WriteOp::Focus));
        ops
    }

    /// Focus, select all, type `text` (an empty text: delete the selection). Line breaks are
    /// Return presses, so only a multi-line field takes them (in a single-line one Return
    /// would activate the form); a tab would move the focus away, so none is typed.
    fn typing(&self, text: &str, commit: bool, reason: impl Into<String>) -> Result<Plan, String> {
        if text.contains('\t') {
            return Err(
                "a tab cannot be typed into the field (the key moves the focus away)".into(),
            );
        }
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        if text.contains('\n') && !self.node.states.has(State::MultiLine) {
            return Err(
                "a single-line field cannot hold a line break (typing Return would \
                        activate the form)"
                    .into(),
            );
        }
        let mut ops = self.focus_ops();
        if self.has(Interface::Text) {
            ops.push((Dest::Element, WriteOp::SelectAllText));
        }
        if text.is_empty() {
            ops.push((Dest::Element, WriteOp::Key(super::Key::BackSpace)));
        }
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                ops.push((Dest::Element, WriteOp::Key(super::Key::Return)));
            }
            if !line.is_empty() {
                ops.push((Dest::Element, WriteOp::TypeText(line.to_string())));
            }
        }
        if commit {
            ops.push((Dest::Element, WriteOp::Key(super::Key::Return)));
        }
        Ok(Plan {
            path: Path::Keyboard,
            ops,
            max_sends: 1,
            method: if commit {
                "keyboard (focus, select all, type, Return)".into()
            } else {
                "keyboard (focus, select all, type)".into()
            },
            reason: reason.into(),
            known_ignored: false,
        })
    }
}

fn semantic(op: WriteOp, dest: Dest, reason: impl Into<String>) -> Plan {
    let method = match dest {
        Dest::Element => op.method(),
        Dest::Parent => format!("parent {}", op.method().as_str()).into(),
        Dest::Option(i) => format!("option {i} {}", op.method().as_str()).into(),
        Dest::OptionList => format!("option list {}", op.method().as_str()).into(),
    };
    Plan {
        path: Path::Semantic,
        ops: vec![(dest, op)],
        max_sends: 1,
        method,
        reason: reason.into(),
        known_ignored: false,
    }
}

/// The strategies for writing `req` into the element, in the order to try them; `Err` with
/// what is missing when there is none. Refusals of the request itself (disabled, read-only,
/// wrong kind) are the rules' business and come first.
pub fn plan(ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String> {
    let node = ctx.node;
    let browser = ctx.tk_is(Toolkit::is_browser);
    match req {
        Requested::Text(t) => {
            if ctx.in_web_content && ctx.can_synthesize() && ctx.has(Interface::Text) {
                return Ok(vec![ctx.typing(
                    t,
                    false,
                    "web content ignores the semantic text calls: focus, select all, type",
                )?]);
            }
            let mut plans = Vec::new();
            if ctx.has(Interface::EditableText) {
                let mut p = semantic(
                    WriteOp::SetText(t.clone()),
                    Dest::Element,
                    "the element has EditableText",
                );
                p.known_ignored = browser;
                plans.push(p);
            }
            let typable = ctx.has(Interface::Text) || node.states.has(State::Editable);
            if typable && (plans.is_empty() || browser && ctx.can_synthesize()) {
                let typed = ctx.typing(
                    t,
                    false,
                    if plans.is_empty() {
                        "no EditableText: focus, select all, type"
                    } else {
                        "the toolkit ignores EditableText: focus, select all, type"
                    },
                );
                match typed {
                    Ok(p) => plans.push(p),
                    // The semantic call alone, then; or the reason nothing can be typed.
                    Err(e) if plans.is_empty() => return Err(e),
                    Err(_) => {}
                }
            }
            if plans.is_empty() {
                return Err("no EditableText or Text interface".into());
            }
            Ok(plans)
        }
        Requested::Number(v) => {
            let text = crate::model::format_number(*v);
            let mut plans = Vec::new();
            if ctx.has(Interface::Value) {
                let mut p = semantic(
                    WriteOp::SetNumber(*v),
                    Dest::Element,
                    "the element has Value",
                );
                p.known_ignored = ctx.tk_is(Toolkit::is_qt) && node.role == Role::SpinButton;
                plans.push(p);
                if p_needs_typed_fallback(ctx) {
                    plans.push(ctx.typing(
                        &text,
                        true,
                        "Qt spin box that did not take Value: typed text + Return",
                    )?);
                }
            } else if ctx.has(Interface::EditableText) {
                plans.push(semantic(
                    WriteOp::SetText(text),
                    Dest::Element,
                    "no Value: the number as text (EditableText)",
                ));
            }
            if plans.is_empty() {
                return Err("no Value interface".into());
            }
            Ok(plans)
        }
        Requested::Toggle(want) => {
            let explicit = if *want { "check" } else { "uncheck" };
            if let Some(a) = ctx.action(&[explicit]) {
                return Ok(vec![semantic(
                    WriteOp::DoAction(a),
                    Dest::Element,
                    "the element names the action for this state",
                )]);
            }
            let current = match &node.value {
                Some(crate::model::Value::Toggle { state }) => Some(*state),
                _ => None,
            };
            let budget = toggle_budget(node.role, current);
            if let Some(a) = ctx.action(TOGGLE_ACTIONS) {
                let mut p = semantic(
                    WriteOp::DoAction(a),
                    Dest::Element,
                    "a toggle action, pressed until the state shows",
                );
                p.max_sends = budget;
                return Ok(vec![p]);
            }
            if ctx.can_synthesize() && node.interfaces.has(Interface::Component) {
                return Ok(vec![Plan {
                    path: Path::Pointer,
                    ops: vec![
                        (Dest::Element, WriteOp::ActivateWindow(ctx.window.clone())),
                        (Dest::Element, WriteOp::Click),
                    ],
                    max_sends: budget,
                    method: "pointer click at the centre".into(),
                    reason: "no toggle action (GTK 4.8 check boxes and switches expose none): a \
                             click at the element's centre, until the state shows"
                        .into(),
                    known_ignored: false,
                }]);
            }
            Err(format!(
                "no toggle action (actions: {})",
                if node.actions.is_empty() {
                    "none".into()
                } else {
                    node.actions
                        .iter()
                        .map(|a| a.literal(40))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ))
        }
        Requested::Option(_) => {
            let Some(i) = ctx.chosen else {
                return Err("no option chosen".into());
            };
            if ctx.has(Interface::Selection) && !ctx.tk_is(Toolkit::is_qt) {
                return Ok(vec![semantic(
                    WriteOp::SelectChild(i),
                    Dest::Element,
                    "the combo has Selection",
                )]);
            }
            // Qt's option items answer "Toggle" by highlighting only, and a Qt combo cannot
            // take the focus through AT-SPI (GrabFocus needs a SetFocus action it lacks): its
            // menu is opened, and once the current option has the focus, arrow keys and Return
            // choose.
            if ctx.tk_is(Toolkit::is_qt) && ctx.can_synthesize() {
                let Some(cur) = ctx.current else {
                    return Err("the current option is unknown, so the keys to press are".into());
                };
                let Some(open) = ctx.action(&["ShowMenu"]) else {
                    return Err("no ShowMenu action to open the combo's menu".into());
                };
                let key = if i > cur {
                    super::Key::Down
                } else {
                    super::Key::Up
                };
                let mut ops = vec![
                    (Dest::Element, WriteOp::ActivateWindow(ctx.window.clone())),
                    (Dest::Element, WriteOp::DoAction(open)),
                    (Dest::Option(cur), WriteOp::AwaitFocus),
                    (Dest::Element, WriteOp::AwaitMenuKeyboard),
                ];
                for _ in 0..i.abs_diff(cur) {
                    ops.push((Dest::Element, WriteOp::Key(key)));
                }
                ops.push((Dest::Element, WriteOp::Key(super::Key::Return)));
                return Ok(vec![Plan {
                    path: Path::Keyboard,
                    ops,
                    max_sends: 1,
                    method: format!(
                        "keyboard (open the menu, {} × {}, Return)",
                        i.abs_diff(cur),
                        key.name()
                    )
                    .into(),
                    reason: "Qt combos have no Selection and their items' action only \
                             highlights: the open menu takes arrow keys and Return"
                        .into(),
                    known_ignored: false,
                }]);
            }
            // Firefox: a closed <select>'s option answers its select action and changes
            // nothing; the list that holds the options selects it (and the page holds it).
            // Chromium's list answers SelectChild false and changes nothing: there the
            // option's own action does it.
            let list = || {
                semantic(
                    WriteOp::SelectChild(i),
                    Dest::OptionList,
                    "the option list has Selection",
                )
            };
            if ctx.option_list_selection && ctx.tk_is(|t| t == Toolkit::Gecko) {
                return Ok(vec![list()]);
            }
            let option = ctx.options.get(i).ok_or("the option is gone")?;
            if let Some(a) = pick_action(&option.actions, SELECT_ACTIONS) {
                return Ok(vec![semantic(
                    WriteOp::DoAction(a.clone()),
                    Dest::Option(i),
                    "the option's own action",
                )]);
            }
            if ctx.option_list_selection {
                return Ok(vec![list()]);
            }
            Err("no Selection on the combo or its option list, and no action on the option".into())
        }
        Requested::Select(_) => {
            if let Some(i) = ctx.parent_selection {
                return Ok(vec![semantic(
                    WriteOp::SelectChild(i),
                    Dest::Parent,
                    "the parent has Selection",
                )]);
            }
            match ctx.action(SELECT_ACTIONS) {
                Some(a) => Ok(vec![semantic(
                    WriteOp::DoAction(a),
                    Dest::Element,
                    "the element's own action",
                )]),
                None => Err("no Selection on the parent and no select action".into()),
            }
        }
        Requested::Expand(want) => {
            let explicit = if *want { "expand" } else { "collapse" };
            match ctx
                .action(&[explicit])
                .or_else(|| ctx.action(EXPAND_ACTIONS))
            {
                Some(a) => Ok(vec![semantic(
                    WriteOp::DoAction(a),
                    Dest::Element,
                    "an expand action",
                )]),
                None => Err("no expand/activate action".into()),
            }
        }
    }
}

/// Qt spin boxes get a typed fallback behind Value (see [`KNOWN_IGNORED`]).
fn p_needs_typed_fallback(ctx: &Context<'_>) -> bool {
    ctx.tk_is(Toolkit::is_qt)
        && ctx.node.role == Role::SpinButton
        && ctx.can_synthesize()
        && ctx.has(Interface::EditableText)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Interfaces, NodeId, Value, preorder};

    // ---- the planner, one test per toolkit rule ------------------------------------------

    fn el(role: Role, ifaces: &[Interface], actions: &[&str], states: &[State]) -> Node {
        let mut n = Node::new(NodeId("x".into()), role, "x");
        n.interfaces = ifaces.iter().copied().collect();
        n.actions = actions.iter().map(|a| AppText::from(*a)).collect();
        n.states = states.iter().copied().collect();
        n
    }

    /// The window title every test context names.
    static W: std::sync::LazyLock<AppText> = std::sync::LazyLock::new(|| "w".into());

    fn ctx<'a>(node: &'a Node, tk: Option<Toolkit>) -> Context<'a> {
        Context {
            platform: Platform::Atspi,
            node,
            toolkit: tk,
            in_web_content: false,
            window: &W,
            options: &[],
            chosen: None,
            current: None,
            option_list_selection: false,
            parent_selection: None,
        }
    }

    fn ops(p: &Plan) -> Vec<WriteOp> {
        p.ops.iter().map(|(_, op)| op.clone()).collect()
    }

    const TEXT: &[Interface] = &[
        Interface::Text,
        Interface::EditableText,
        Interface::Component,
    ];

    #[test]
    fn gtk_text_is_one_semantic_call_without_fallback() {
        let n = el(Role::Text, TEXT, &[], &[State::Editable]);
        let plans = plan(&ctx(&n, Some(Toolkit::Gtk3)), &Requested::Text("hi".into())).unwrap();
        assert_eq!(plans.len(), 1);
        assert_eq!(plans[0].path, Path::Semantic);
        assert_eq!(ops(&plans[0]), [WriteOp::SetText("hi".into())]);
        assert!(!plans[0].known_ignored);
    }

    #[test]
    fn web_content_text_is_typed() {
        let n = el(Role::Text, &[Interface::Text], &[], &[State::Editable]);
        let mut c = ctx(&n, Some(Toolkit::Chromium));
        c.in_web_content = true;
        let plans = plan(&c, &Requested::Text("Ada".into())).unwrap();
        assert_eq!(plans.len(), 1);
        assert_eq!(plans[0].path, Path::Keyboard);
        assert_eq!(
            ops(&plans[0]),
            [
                WriteOp::ActivateWindow("w".into()),
                WriteOp::Focus,
                WriteOp::SelectAllText,
                WriteOp::TypeText("Ada".into())
            ]
        );
        // Clearing deletes the selection instead of typing nothing.
        let plans = plan(&c, &Requested::Text(String::new())).unwrap();
        assert_eq!(
            ops(&plans[0]).last(),
            Some(&WriteOp::Key(super::super::Key::BackSpace))
        );
    }

    #[test]
    fn a_browser_outside_web_content_falls_back_only_because_it_ignores_editable_text() {
        let n = el(Role::Text, TEXT, &[], &[State::Editable]);
        let plans = plan(
            &ctx(&n, Some(Toolkit::Chromium)),
            &Requested::Text("x".into()),
        )
        .unwrap();
        assert_eq!(plans.len(), 2);
        assert!(plans[0].known_ignored, "the evidence is in KNOWN_IGNORED");
        assert_eq!(plans[1].path, Path::Keyboard);
    }

    #[test]
    fn typing_cannot_hold_what_a_keyboard_would_turn_into_an_action() {
        let n = el(
            Role::Text,
            &[Interface::Text],
            &[],
            &[State::Editable, State::SingleLine],
        );
        let mut c = ctx(&n, Some(Toolkit::Chromium));
        c.in_web_content = true;
        let e = plan(&c, &Requested::Text("a\nb".into())).unwrap_err();
        assert!(e.contains("line break"), "{e}");
        assert!(plan(&c, &Requested::Text("a\tb".into())).is_err());
        // A multi-line field takes line breaks as Return presses.
        let n = el(
            Role::Text,
            &[Interface::Text],
            &[],
            &[State::Editable, State::MultiLine],
        );
        let mut c = ctx(&n, Some(Toolkit::Chromium));
        c.in_web_content = true;
        let plans = plan(&c, &Requested::Text("a\nb".into())).unwrap();
        assert_eq!(
            ops(&plans[0])[3..],
            [
                WriteOp::TypeText("a".into()),
                WriteOp::Key(super::super::Key::Return),
                WriteOp::TypeText("b".into())
            ]
        );
    }

    #[test]
    fn numbers_go_through_value_and_qt_spin_boxes_have_a_typed_fallback() {
        let ifaces = [Interface::Value, Interface::Text, Interface::EditableText];
        let n = el(Role::SpinButton, &ifaces, &[], &[]);
        let plans = plan(&ctx(&n, Some(Toolkit::Gtk3)), &Requested::Number(7.0)).unwrap();
        assert_eq!(plans.len(), 1);
        assert_eq!(ops(&plans[0]), [WriteOp::SetNumber(7.0)]);
        let plans = plan(&ctx(&n, Some(Toolkit::Qt5)), &Requested::Number(7.0)).unwrap();
        assert_eq!(plans.len(), 2);
        assert!(plans[0].known_ignored);
        assert_eq!(plans[1].path, Path::Keyboard);
        assert_eq!(
            ops(&plans[1]).last(),
            Some(&WriteOp::Key(super::super::Key::Return))
        );
        // Sliders have no text to type into: Value alone.
        let s = el(Role::Slider, &[Interface::Value], &[], &[]);
        assert_eq!(
            plan(&ctx(&s, Some(Toolkit::Qt5)), &Requested::Number(3.0))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn toggles_by_named_action_or_pressed_until_the_state_shows() {
        // Chromium names the action for the state.
        let n = el(
            Role::CheckBox,
            &[Interface::Action],
            &["check", "showContextMenu"],
            &[],
        );
        let p = &plan(&ctx(&n, Some(Toolkit::Chromium)), &Requested::Toggle(true)).unwrap()[0];
        assert_eq!(ops(p), [WriteOp::DoAction("check".into())]);
        assert_eq!(p.max_sends, 1);
        // Qt's "Toggle": a check box may be tri-state, so up to two presses.
        let n = el(
            Role::CheckBox,
            &[Interface::Action],
            &["Toggle", "SetFocus"],
            &[],
        );
        let p = &plan(&ctx(&n, Some(Toolkit::Qt5)), &Requested::Toggle(false)).unwrap()[0];
        assert_eq!(ops(p), [WriteOp::DoAction("Toggle".into())]);
        assert_eq!(p.max_sends, 2);
        // GTK 4.8 check boxes have no action: a click at the centre.
        let n = el(Role::CheckBox, &[Interface::Component], &[], &[]);
        let p = &plan(&ctx(&n, Some(Toolkit::Gtk4)), &Requested::Toggle(true)).unwrap()[0];
        assert_eq!(p.path, Path::Pointer);
        assert_eq!(
            ops(p),
            [WriteOp::ActivateWindow("w".into()), WriteOp::Click]
        );
        // Without synthesized input (UI Automation) there is no way.
        let mut c = ctx(&n, None);
        c.platform = Platform::Uia;
        assert!(plan(&c, &Requested::Toggle(true)).is_err());
    }

    #[test]
    fn options_by_selection_by_the_options_action_or_by_keys_on_qt() {
        let opts: Vec<Node> = ["Small", "Medium", "Large"]
            .iter()
            .map(|name| {
                let mut o = el(Role::MenuItem, &[Interface::Action], &["select"], &[]);
                o.name = (*name).into();
                o
            })
            .collect();
        // GTK 3: Selection on the combo.
        let n = el(Role::ComboBox, &[Interface::Selection], &[], &[]);
        let mut c = ctx(&n, Some(Toolkit::Gtk3));
        c.options = &opts;
        c.chosen = Some(2);
        let p = &plan(&c, &Requested::Option("Large".into())).unwrap()[0];
        assert_eq!(p.ops, [(Dest::Element, WriteOp::SelectChild(2))]);
        // Chromium: no Selection; the option's own action.
        let n = el(Role::ComboBox, &[Interface::Action], &["open"], &[]);
        let mut c = ctx(&n, Some(Toolkit::Chromium));
        c.options = &opts;
        c.chosen = Some(2);
        let p = &plan(&c, &Requested::Option("Large".into())).unwrap()[0];
        assert_eq!(
            p.ops,
            [(Dest::Option(2), WriteOp::DoAction("select".into()))]
        );
        // Firefox: the options' list has Selection (a closed select ignores the option's own
        // action): the list selects it. Chromium's list has Selection too, and ignores it.
        let n = el(Role::ComboBox, &[Interface::Action], &["open"], &[]);
        let mut c = ctx(&n, Some(Toolkit::Gecko));
        c.options = &opts;
        c.chosen = Some(1);
        c.option_list_selection = true;
        let p = &plan(&c, &Requested::Option("Medium".into())).unwrap()[0];
        assert_eq!(p.ops, [(Dest::OptionList, WriteOp::SelectChild(1))]);
        assert_eq!(p.method.as_str(), "option list Selection.SelectChild(1)");
        c.toolkit = Some(Toolkit::Chromium);
        let p = &plan(&c, &Requested::Option("Medium".into())).unwrap()[0];
        assert_eq!(
            p.ops,
            [(Dest::Option(1), WriteOp::DoAction("select".into()))]
        );
        // Qt: the items' action only highlights; the menu is opened and arrow keys move from
        // the current option once it has the focus.
        let n = el(
            Role::ComboBox,
            &[Interface::Action],
            &["ShowMenu", "Press"],
            &[],
        );
        let mut c = ctx(&n, Some(Toolkit::Qt6));
        c.options = &opts;
        c.chosen = Some(0);
        c.current = Some(2);
        let p = &plan(&c, &Requested::Option("Small".into())).unwrap()[0];
        assert_eq!(p.path, Path::Keyboard);
        let keys: Vec<WriteOp> = ops(p)
            .into_iter()
            .filter(|o| matches!(o, WriteOp::Key(_)))
            .collect();
        let up = WriteOp::Key(super::super::Key::Up);
        assert_eq!(
            keys,
            [up.clone(), up, WriteOp::Key(super::super::Key::Return)]
        );
        assert_eq!(
            p.ops[1],
            (Dest::Element, WriteOp::DoAction("ShowMenu".into()))
        );
        assert_eq!(p.ops[2], (Dest::Option(2), WriteOp::AwaitFocus));
        // Not knowing where the selection is, the keys to press cannot be known.
        c.current = None;
        assert!(plan(&c, &Requested::Option("Small".into())).is_err());
    }

    #[test]
    fn items_select_through_their_parent_or_their_action() {
        let n = el(Role::Tab, &[Interface::Action], &["click"], &[]);
        let mut c = ctx(&n, Some(Toolkit::Gtk3));
        c.parent_selection = Some(1);
        let p = &plan(&c, &Requested::Select(true)).unwrap()[0];
        assert_eq!(p.ops, [(Dest::Parent, WriteOp::SelectChild(1))]);
        c.parent_selection = None;
        let p = &plan(&c, &Requested::Select(true)).unwrap()[0];
        assert_eq!(ops(p), [WriteOp::DoAction("click".into())]);
    }

    #[test]
    fn the_default_action_prefers_press_like_names() {
        let names = |v: &[&str]| v.iter().map(|s| AppText::from(*s)).collect::<Vec<_>>();
        let pick = |v: &[&str]| default_action(&names(v)).map(|a| a.as_str().to_string());
        assert_eq!(pick(&["SetFocus", "Press"]).as_deref(), Some("Press"));
        assert_eq!(
            pick(&["showContextMenu", "press"]).as_deref(),
            Some("press")
        );
        assert_eq!(pick(&["frobnicate"]).as_deref(), Some("frobnicate"));
        assert_eq!(default_action(&[]), None);
    }

    #[test]
    fn capabilities_from_interfaces_and_actions() {
        let mut n = Node::new(NodeId("x".into()), Role::ComboBox, "x");
        n.interfaces = Interfaces::EMPTY
            .with(Interface::EditableText)
            .with(Interface::Text)
            .with(Interface::Value)
            .with(Interface::Selection);
        n.actions = [
            "invoke",
            "Toggle",
            "select",
            "collapse",
            "press",
            "increment",
            "decrement",
            "show-menu",
            "frobnicate",
        ]
        .iter()
        .map(|s| AppText::from(*s))
        .collect();
        let caps = Capabilities::of(&n);
        for c in Capability::ALL {
            assert!(caps.has(*c), "{c:?}");
        }
        assert_eq!(
            Capabilities::of(&Node::new(NodeId("y".into()), Role::Label, "y")),
            Capabilities::EMPTY
        );
    }

    #[test]
    fn toggle_budgets() {
        for (role, current, want) in [
            (Role::CheckBox, Some(Toggle::Off), 2),
            (Role::CheckBox, Some(Toggle::Mixed), 2),
            (Role::CheckBox, None, 2),
            (Role::Switch, Some(Toggle::On), 1),
            (Role::Switch, Some(Toggle::Mixed), 2),
            (Role::ToggleButton, Some(Toggle::Off), 1),
            (Role::CheckMenuItem, None, 1),
        ] {
            assert_eq!(toggle_budget(role, current), want, "{role:?} {current:?}");
        }
    }

    #[test]
    fn stepping() {
        for (cur, target, step, up, presses) in [
            (0.0, 5.0, 1.0, true, 5),
            (10.0, 4.0, 2.0, false, 3),
            (3.0, 3.2, 1.0, true, 0),
            (0.0, 1.0, 0.25, true, 4),
            (0.0, 1e9, 1.0, true, MAX_STEPS),
            (0.0, 5.0, 0.0, true, MAX_STEPS),
            (5.0, 5.0, 0.0, false, 0),
            (0.0, -2.0, f64::NAN, false, MAX_STEPS),
        ] {
            assert_eq!(
                steps_to(cur, target, step),
                Steps { up, presses },
                "{cur} → {target} by {step}"
            );
        }
        assert!(step_done(true, 4.6, 5.0, 1.0));
        assert!(!step_done(true, 4.4, 5.0, 1.0));
        assert!(step_done(true, 7.0, 5.0, 1.0), "passed counts as done");
        assert!(step_done(false, 3.0, 4.0, 0.0));
        assert!(!step_done(false, 4.5, 4.0, 0.0));
    }

    #[test]
    fn refusal_and_methods() {
        let all = [
            WritePlan::SetValue,
            WritePlan::Keyboard,
            WritePlan::SetRange,
            WritePlan::Step,
            WritePlan::Toggle { max_presses: 2 },
            WritePlan::SelectItem,
            WritePlan::SelectChild,
            WritePlan::OpenMenuAndPick,
            WritePlan::Expand { toggles: false },
            WritePlan::Expand { toggles: true },
            WritePlan::Invoke,
        ];
        for p in all {
            assert!(!p.is_refusal());
            assert_ne!(p.method(Platform::Uia), "none");
            assert_ne!(p.method(Platform::Ax), "none");
        }
        let r = WritePlan::Refuse(NoWay::ReadOnly);
        assert!(r.is_refusal());
        assert_eq!(r.method(Platform::Uia), "none");
        assert_eq!(
            serde_json::to_value(r).unwrap(),
            serde_json::json!({"plan": "refuse", "detail": "read-only"})
        );
        assert_eq!(
            serde_json::to_value(WritePlan::Toggle { max_presses: 2 }).unwrap(),
            serde_json::json!({"plan": "toggle", "detail": {"max_presses": 2}})
        );
        assert_eq!(
            serde_json::to_value(WritePlan::OpenMenuAndPick).unwrap(),
            serde_json::json!({"plan": "open-menu-and-pick"})
        );
        for (w, s) in [
            (NoWay::Disabled, "disabled"),
            (NoWay::ReadOnly, "read-only"),
            (NoWay::NotEditable, "not-editable"),
            (NoWay::NoMethod, "no-method"),
        ] {
            assert_eq!(w.as_str(), s);
        }
    }

    fn node(name: &str, role: Role, kids: Vec<usize>, states: &[State]) -> Node {
        let mut n = Node::new(NodeId(name.into()), role, "x");
        n.name = name.into();
        n.children = kids;
        n.states = states.iter().copied().collect();
        n
    }

    #[test]
    fn options_and_choice_values() {
        // combo > [button "Open", list > [a, b (selected) > [sub-item]], combo "inner" > [x]]
        let nodes = preorder(
            vec![
                node("combo", Role::ComboBox, vec![1, 2, 6], &[]),
                node("Open", Role::Button, vec![], &[]),
                node("list", Role::List, vec![3, 4], &[]),
                node("a", Role::ListItem, vec![], &[]),
                node("b", Role::ListItem, vec![5], &[State::Selected]),
                node("sub", Role::ListItem, vec![], &[]),
                node("inner", Role::ComboBox, vec![7], &[]),
                node("x", Role::ListItem, vec![], &[State::Selected]),
            ],
            0,
        );
        let names = |rows: Vec<usize>| -> Vec<AppText> {
            rows.into_iter().map(|r| nodes[r].name.clone()).collect()
        };
        assert_eq!(names(option_rows(&nodes, 0)), ["a", "b"]);
        let inner = nodes.iter().position(|n| n.name == "inner").unwrap();
        assert_eq!(names(option_rows(&nodes, inner)), ["x"]);
        assert!(option_rows(&nodes, 99).is_empty());

        let mut filled = nodes.clone();
        fill_choice_values(&mut filled);
        assert_eq!(
            filled[0].value,
            Some(Value::Choice {
                selected: Some("b".into())
            })
        );
        assert_eq!(
            filled[inner].value,
            Some(Value::Choice {
                selected: Some("x".into())
            })
        );
        // A known selection is kept.
        let mut kept = nodes.clone();
        kept[0].value = Some(Value::Choice {
            selected: Some("typed".into()),
        });
        fill_choice_values(&mut kept);
        assert_eq!(
            kept[0].value,
            Some(Value::Choice {
                selected: Some("typed".into())
            })
        );
        // Nothing selected: an explicit empty choice.
        let mut none = vec![node("c", Role::ComboBox, vec![], &[])];
        fill_choice_values(&mut none);
        assert_eq!(none[0].value, Some(Value::Choice { selected: None }));
    }
}
