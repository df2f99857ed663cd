//! The AT-SPI write planner, which the demo app (it behaves like an AT-SPI app) shares: which
//! calls put a value on an element. From the element (role, interfaces, action names, states),
//! its toolkit and where it sits (web content or not), and the requested value, [`plan`]
//! returns the strategies to try in order, each a list of primitive [`WriteOp`]s with the path
//! they take (semantic call, keyboard, pointer) and why. The toolkits' quirks live here: GTK 4's
//! check boxes without actions, Qt's combos and spin boxes, the browsers' web content, and
//! [`KNOWN_IGNORED`], the calls a toolkit answers and ignores. The write engine carries a plan
//! out and verifies it by reading back; the backend only performs ops.

use crate::backend::strategy::{
    Context, Dest, EXPAND_ACTIONS, Path, Plan, SELECT_ACTIONS, TOGGLE_ACTIONS, pick_action,
    toggle_budget,
};
use crate::backend::{Key, WriteOp};
use crate::model::{AppText, Interface, Node, Requested, Role, State, Toolkit};

/// Calls a toolkit answers and ignores, with the evidence: the only cases in which a fallback
/// runs after a dispatched write showed no change. The planner marks a plan
/// [`Plan::known_ignored`] by looking its first call up here; the README prints the table.
pub const KNOWN_IGNORED: &[Ignored] = &[
    Ignored {
        toolkits: "Chromium, Firefox",
        call: "EditableText.SetTextContents on a text field",
        evidence: "answers true and changes nothing (measured on Chromium 156's form inputs)",
        applies: |tk, _, op| tk.is_browser() && matches!(op, WriteOp::SetText(_)),
    },
    Ignored {
        toolkits: "Qt 5, Qt 6",
        call: "Value.CurrentValue on a spin box",
        evidence: "a QAbstractSpinBox may take the value without committing its text; typed \
                   text + Return commits it",
        applies: |tk, node, op| {
            tk.is_qt() && node.role == Role::SpinButton && matches!(op, WriteOp::SetNumber(_))
        },
    },
];

/// One row of [`KNOWN_IGNORED`].
pub struct Ignored {
    pub toolkits: &'static str,
    pub call: &'static str,
    pub evidence: &'static str,
    /// Whether the row covers this call on this element of an app of this toolkit.
    pub applies: fn(Toolkit, &Node, &WriteOp) -> bool,
}

/// Whether the toolkit is known to ignore `op` on the element (a row of [`KNOWN_IGNORED`]).
fn known_ignored(ctx: &Context<'_>, op: &WriteOp) -> bool {
    ctx.toolkit
        .is_some_and(|tk| KNOWN_IGNORED.iter().any(|k| (k.applies)(tk, ctx.node, op)))
}

/// [`KNOWN_IGNORED`] as the README shows it (between its `known-ignored` markers).
pub fn known_ignored_markdown() -> String {
    let mut out = String::from("| toolkits | call | evidence |\n|---|---|---|\n");
    for k in KNOWN_IGNORED {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            k.toolkits, k.call, k.evidence
        ));
    }
    out
}

/// What follows the text typed into a field ([`Context::typing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterTyping {
    Nothing,
    /// Return commits it (a Qt spin box takes a typed number only then).
    Return,
}

impl Context<'_> {
    fn has(&self, i: Interface) -> bool {
        self.node.interfaces.has(i)
    }

    fn action(&self, prefs: &[&str]) -> Option<AppText> {
        pick_action(&self.node.actions, prefs).cloned()
    }

    /// Synthesized keys (after raising the window) can be sent here, or why not.
    fn keyboard(&self) -> Result<(), String> {
        self.input
            .keyboard
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    /// Synthesized clicks can be sent here, or why not.
    fn pointer(&self) -> Result<(), String> {
        self.input
            .pointer
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    fn tk_is(&self, f: impl Fn(Toolkit) -> bool) -> bool {
        self.toolkit.is_some_and(f)
    }

    /// Focus the element for typing: raise its window, give it keyboard focus.
    fn focus_ops(&self) -> Vec<(Dest, WriteOp)> {
        vec![
            (Dest::Element, WriteOp::ActivateWindow(self.window.clone())),
            (Dest::Element, WriteOp::Focus),
        ]
    }

    /// Focus, select all, type `text` (an empty text: delete the selection). Line breaks are
    /// Return presses, so only a multi-line field takes them (in a single-line one Return
    /// would activate the form); a tab would move the focus away, so none is typed.
    fn typing(
        &self,
        text: &str,
        then: AfterTyping,
        reason: impl Into<String>,
    ) -> Result<Plan, String> {
        self.keyboard()
            .map_err(|why| format!("it can only be typed into, and {why}"))?;
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
            ops.push((Dest::Element, WriteOp::Key(Key::BackSpace)));
        }
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                ops.push((Dest::Element, WriteOp::Key(Key::Return)));
            }
            if !line.is_empty() {
                ops.push((Dest::Element, WriteOp::TypeText(line.to_string())));
            }
        }
        if then == AfterTyping::Return {
            ops.push((Dest::Element, WriteOp::Key(Key::Return)));
        }
        Ok(Plan {
            path: Path::Keyboard,
            ops,
            max_sends: 1,
            method: if then == AfterTyping::Return {
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
    let name = super::method::of(&op);
    let method = match dest {
        Dest::Element => name,
        Dest::Parent => format!("parent {}", name.as_str()).into(),
        Dest::Option(i) => format!("option {i} {}", name.as_str()).into(),
        Dest::OptionList => format!("option list {}", name.as_str()).into(),
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

/// AT-SPI's planner: [`plan`], with each op named by [`super::method::of`].
#[derive(Debug)]
pub struct Atspi;

/// The one [`Atspi`] planner, which the AT-SPI and demo backends hand out.
pub static PLANNER: Atspi = Atspi;

impl crate::backend::strategy::Planner for Atspi {
    fn method(&self, op: &WriteOp) -> AppText {
        super::method::of(op)
    }

    fn plan(&self, ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String> {
        plan(ctx, req)
    }
}

/// The strategies for writing `req` into the element, in the order to try them; `Err` with
/// what is missing when there is none. Refusals of the request itself (disabled, read-only,
/// wrong kind) are the rules' business and come first.
pub fn plan(ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String> {
    match req {
        Requested::Text(t) => plan_text(ctx, t),
        Requested::Number(v) => plan_number(ctx, *v),
        Requested::Toggle(want) => plan_toggle(ctx, *want),
        Requested::Option(_) => plan_option(ctx),
        Requested::Select(_) => plan_select(ctx),
        Requested::Expand(want) => plan_expand(ctx, *want),
    }
}

/// Text: the semantic call where there is EditableText (and typing after it where the toolkit
/// ignores it), typing where there is only Text; web content is typed into.
fn plan_text(ctx: &Context<'_>, t: &str) -> Result<Vec<Plan>, String> {
    let node = ctx.node;
    let browser = ctx.tk_is(Toolkit::is_browser);
    if ctx.in_web_content && ctx.has(Interface::Text) {
        return Ok(vec![ctx.typing(
            t,
            AfterTyping::Nothing,
            "web content ignores the semantic text calls: focus, select all, type",
        )?]);
    }
    let mut plans = Vec::new();
    if ctx.has(Interface::EditableText) {
        let mut p = semantic(
            WriteOp::SetText(t.to_string()),
            Dest::Element,
            "the element has EditableText",
        );
        p.known_ignored = known_ignored(ctx, &p.ops[0].1);
        plans.push(p);
    }
    let typable = ctx.has(Interface::Text) || node.states.has(State::Editable);
    if typable && (plans.is_empty() || browser && ctx.keyboard().is_ok()) {
        let typed = ctx.typing(
            t,
            AfterTyping::Nothing,
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

/// A number: Value, typed after it where Qt ignores it; as text without Value.
fn plan_number(ctx: &Context<'_>, v: f64) -> Result<Vec<Plan>, String> {
    let text = crate::model::format_number(v);
    let mut plans = Vec::new();
    if ctx.has(Interface::Value) {
        let mut p = semantic(
            WriteOp::SetNumber(v),
            Dest::Element,
            "the element has Value",
        );
        p.known_ignored = known_ignored(ctx, &p.ops[0].1);
        let typed_fallback =
            p.known_ignored && ctx.keyboard().is_ok() && ctx.has(Interface::EditableText);
        plans.push(p);
        if typed_fallback {
            plans.push(ctx.typing(
                &text,
                AfterTyping::Return,
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

/// A check box, switch or toggle button into a state: the action naming the state, else a
/// toggle action or a click until the state shows.
fn plan_toggle(ctx: &Context<'_>, want: bool) -> Result<Vec<Plan>, String> {
    let node = ctx.node;
    let explicit = if want { "check" } else { "uncheck" };
    if let Some(a) = ctx.action(&[explicit]) {
        return Ok(vec![semantic(
            WriteOp::Action(a),
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
            WriteOp::Action(a),
            Dest::Element,
            "a toggle action, pressed until the state shows",
        );
        p.max_sends = budget;
        return Ok(vec![p]);
    }
    if node.interfaces.has(Interface::Component) {
        ctx.pointer().map_err(|why| {
            format!("it has no toggle action, so it can only be clicked, and {why}")
        })?;
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
        node.actions_listed()
    ))
}

/// An option of a combo box (`ctx.chosen`): the combo's Selection, the option list's, or the
/// option's own action, as each toolkit takes it; Qt's by the keyboard ([`plan_qt_option`]).
fn plan_option(ctx: &Context<'_>) -> Result<Vec<Plan>, String> {
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
    if ctx.tk_is(Toolkit::is_qt) {
        return plan_qt_option(ctx, i);
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
            WriteOp::Action(a.clone()),
            Dest::Option(i),
            "the option's own action",
        )]);
    }
    if ctx.option_list_selection {
        return Ok(vec![list()]);
    }
    Err("no Selection on the combo or its option list, and no action on the option".into())
}

/// Qt's option items answer "Toggle" by highlighting only, and a Qt combo cannot
/// take the focus through AT-SPI (GrabFocus needs a SetFocus action it lacks): its
/// menu is opened, and once the current option has the focus, arrow keys and Return
/// choose.
fn plan_qt_option(ctx: &Context<'_>, i: usize) -> Result<Vec<Plan>, String> {
    ctx.keyboard()
        .map_err(|why| format!("a Qt combo box is chosen from with the keyboard, and {why}"))?;
    let Some(cur) = ctx.current else {
        return Err("the current option is unknown, so the keys to press are".into());
    };
    let Some(open) = ctx.action(&["ShowMenu"]) else {
        return Err("no ShowMenu action to open the combo's menu".into());
    };
    let key = if i > cur { Key::Down } else { Key::Up };
    let mut ops = vec![
        (Dest::Element, WriteOp::ActivateWindow(ctx.window.clone())),
        (Dest::Element, WriteOp::Action(open)),
        (Dest::Option(cur), WriteOp::AwaitFocus),
        (Dest::Element, WriteOp::AwaitMenuKeyboard),
    ];
    // Each arrow is followed by the option it leads to taking the focus: the menu
    // is seen still open, and holding the keyboard, before the next key. A menu
    // that closed under the keys (Qt 6 on sway closed it after one key in two when
    // they came in a burst, and the rest went to the window's focused field) stops
    // the keys there.
    let mut at = cur;
    while at != i {
        at = if i > at { at + 1 } else { at - 1 };
        ops.push((Dest::Element, WriteOp::Key(key)));
        ops.push((Dest::Option(at), WriteOp::AwaitFocus));
    }
    ops.push((Dest::Element, WriteOp::Key(Key::Return)));
    Ok(vec![Plan {
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
    }])
}

/// A list item or tab selected: the parent's Selection, else the element's own action.
fn plan_select(ctx: &Context<'_>) -> Result<Vec<Plan>, String> {
    if let Some(i) = ctx.parent_selection {
        return Ok(vec![semantic(
            WriteOp::SelectChild(i),
            Dest::Parent,
            "the parent has Selection",
        )]);
    }
    match ctx.action(SELECT_ACTIONS) {
        Some(a) => Ok(vec![semantic(
            WriteOp::Action(a),
            Dest::Element,
            "the element's own action",
        )]),
        None => Err("no Selection on the parent and no select action".into()),
    }
}

/// Expanded or collapsed: the action naming it, else an expand action.
fn plan_expand(ctx: &Context<'_>, want: bool) -> Result<Vec<Plan>, String> {
    let explicit = if want { "expand" } else { "collapse" };
    match ctx
        .action(&[explicit])
        .or_else(|| ctx.action(EXPAND_ACTIONS))
    {
        Some(a) => Ok(vec![semantic(
            WriteOp::Action(a),
            Dest::Element,
            "an expand action",
        )]),
        None => Err("no expand/activate action".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::strategy::InputPaths;
    use crate::model::NodeId;

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

    /// Keys and clicks, as on X11.
    static INPUT: std::sync::LazyLock<InputPaths> =
        std::sync::LazyLock::new(|| InputPaths::both("X11"));

    fn ctx<'a>(node: &'a Node, tk: Option<Toolkit>) -> Context<'a> {
        Context {
            planner: &PLANNER,
            input: &INPUT,
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
        assert_eq!(ops(&plans[0]).last(), Some(&WriteOp::Key(Key::BackSpace)));
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
                WriteOp::Key(Key::Return),
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
        assert_eq!(ops(&plans[1]).last(), Some(&WriteOp::Key(Key::Return)));
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
        assert_eq!(ops(p), [WriteOp::Action("check".into())]);
        assert_eq!(p.max_sends, 1);
        // Qt's "Toggle": a check box may be tri-state, so up to two presses.
        let n = el(
            Role::CheckBox,
            &[Interface::Action],
            &["Toggle", "SetFocus"],
            &[],
        );
        let p = &plan(&ctx(&n, Some(Toolkit::Qt5)), &Requested::Toggle(false)).unwrap()[0];
        assert_eq!(ops(p), [WriteOp::Action("Toggle".into())]);
        assert_eq!(p.max_sends, 2);
        // GTK 4.8 check boxes have no action: a click at the centre.
        let n = el(Role::CheckBox, &[Interface::Component], &[], &[]);
        let p = &plan(&ctx(&n, Some(Toolkit::Gtk4)), &Requested::Toggle(true)).unwrap()[0];
        assert_eq!(p.path, Path::Pointer);
        assert_eq!(
            ops(p),
            [WriteOp::ActivateWindow("w".into()), WriteOp::Click]
        );
        // Where the session has no pointer, it is refused, saying why.
        let none = InputPaths::none("GNOME gives no window positions");
        let mut c = ctx(&n, Some(Toolkit::Gtk4));
        c.input = &none;
        let e = plan(&c, &Requested::Toggle(true)).unwrap_err();
        assert!(
            e.contains("can only be clicked") && e.contains("GNOME gives no window positions"),
            "{e}"
        );
    }

    #[test]
    fn typing_is_refused_where_the_session_has_no_keyboard() {
        let none = InputPaths::none("no input path on this compositor");
        // Web content: only typing works.
        let n = el(Role::Text, &[Interface::Text], &[], &[State::Editable]);
        let mut c = ctx(&n, Some(Toolkit::Chromium));
        c.in_web_content = true;
        c.input = &none;
        let e = plan(&c, &Requested::Text("Ada".into())).unwrap_err();
        assert!(
            e.contains("typed into") && e.contains("no input path"),
            "{e}"
        );
        // A browser's own field keeps its semantic plan, without the typed fallback.
        let n = el(Role::Text, TEXT, &[], &[State::Editable]);
        let mut c = ctx(&n, Some(Toolkit::Chromium));
        c.input = &none;
        let plans = plan(&c, &Requested::Text("x".into())).unwrap();
        assert_eq!(plans.len(), 1);
        assert_eq!(plans[0].path, Path::Semantic);
        // A GTK field never needed the keyboard.
        let mut c = ctx(&n, Some(Toolkit::Gtk3));
        c.input = &none;
        assert!(plan(&c, &Requested::Text("x".into())).is_ok());
        // A Qt combo box is chosen from with keys.
        let n = el(Role::ComboBox, &[Interface::Action], &["ShowMenu"], &[]);
        let mut c = ctx(&n, Some(Toolkit::Qt6));
        c.input = &none;
        c.chosen = Some(1);
        c.current = Some(0);
        let e = plan(&c, &Requested::Option("b".into())).unwrap_err();
        assert!(e.contains("keyboard") && e.contains("no input path"), "{e}");
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
        assert_eq!(p.ops, [(Dest::Option(2), WriteOp::Action("select".into()))]);
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
        assert_eq!(p.ops, [(Dest::Option(1), WriteOp::Action("select".into()))]);
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
        let up = WriteOp::Key(Key::Up);
        assert_eq!(keys, [up.clone(), up, WriteOp::Key(Key::Return)]);
        assert_eq!(
            p.ops[1],
            (Dest::Element, WriteOp::Action("ShowMenu".into()))
        );
        assert_eq!(p.ops[2], (Dest::Option(2), WriteOp::AwaitFocus));
        // Every arrow waits for the option it leads to, so no key follows a closed menu.
        assert_eq!(
            p.ops[4..],
            [
                (Dest::Element, WriteOp::Key(Key::Up)),
                (Dest::Option(1), WriteOp::AwaitFocus),
                (Dest::Element, WriteOp::Key(Key::Up)),
                (Dest::Option(0), WriteOp::AwaitFocus),
                (Dest::Element, WriteOp::Key(Key::Return)),
            ]
        );
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
        assert_eq!(ops(p), [WriteOp::Action("click".into())]);
    }

    #[test]
    fn readme_known_ignored() {
        crate::backend::readme::check_section("known-ignored", &known_ignored_markdown());
    }
}
