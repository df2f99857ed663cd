//! The AT-SPI write planner: the planner by interfaces (`backend::strategy::interfaces`) with
//! AT-SPI's names for its calls and the Linux toolkits' rules: [`KNOWN_IGNORED`], the calls a
//! toolkit answers and ignores, Qt's combo boxes chosen from by the keyboard, and Firefox's
//! option lists. The write engine carries a plan out and verifies it by reading back; the
//! backend only performs ops.

use crate::backend::strategy::interfaces::{ByInterfaces, Toolkits};
use crate::backend::strategy::{Context, Dest, Path, Plan, Planner};
use crate::backend::{Key, WriteOp};
use crate::model::{Node, Requested, Role, Toolkit};

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

/// The Linux toolkits' rules, as the planner by interfaces asks them.
#[derive(Debug)]
pub struct LinuxToolkits;

impl Toolkits for LinuxToolkits {
    fn ignores(&self, ctx: &Context<'_>, op: &WriteOp) -> bool {
        known_ignored(ctx, op)
    }

    fn option(&self, ctx: &Context<'_>, i: usize) -> Option<Result<Vec<Plan>, String>> {
        ctx.toolkit
            .is_some_and(Toolkit::is_qt)
            .then(|| plan_qt_option(ctx, i))
    }

    /// Firefox: a closed `<select>`'s option answers its select action and changes nothing;
    /// the list that holds the options selects it (and the page holds it). Chromium's list
    /// answers SelectChild false and changes nothing: there the option's own action does it.
    fn option_list_first(&self, ctx: &Context<'_>) -> bool {
        ctx.toolkit == Some(Toolkit::Gecko)
    }
}

/// AT-SPI's planner, which the AT-SPI backend hands out: each op named by
/// [`super::method::of`], with [`LinuxToolkits`].
pub static PLANNER: ByInterfaces = ByInterfaces {
    name: super::method::of,
    toolkits: &LinuxToolkits,
};

/// [`PLANNER`]'s strategies for writing `req` into the element, in the order to try them.
pub fn plan(ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String> {
    PLANNER.plan(ctx, req)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::strategy::InputPaths;
    use crate::model::{AppText, Interface, NodeId, State};

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
