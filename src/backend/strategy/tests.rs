//! The neutral planning vocabulary: the UIA and AX planners, actions, capabilities, stepping,
//! options.

use super::*;
use crate::model::{Interfaces, NodeId, Value, preorder};

#[test]
fn uia_and_ax_plans_are_their_mappings_write_plan_carried_out() {
    let w: AppText = "w".into();
    let input = InputPaths::none("UI Automation plans no synthesized input here");
    let (uia, ax) = (
        &crate::backend::uia::map::PLANNER,
        &crate::backend::ax::map::PLANNER,
    );
    let ctx = |node| Context {
        planner: uia,
        input: &input,
        node,
        toolkit: None,
        in_web_content: false,
        window: &w,
        options: &[],
        chosen: Some(1),
        current: None,
        option_list_selection: false,
        parent_selection: None,
    };
    let mut text = Node::new(NodeId("t".into()), Role::Text, "edit");
    text.interfaces = Interfaces::EMPTY
        .with(Interface::EditableText)
        .with(Interface::Text);
    text.states = [State::Enabled, State::Editable].into_iter().collect();
    let plans = uia
        .plan(&ctx(&text), &Requested::Text("hi".into()))
        .unwrap();
    // `SetValue`, then typing for a provider that refuses it (E_NOTIMPL).
    assert_eq!(plans.len(), 2);
    assert_eq!(
        plans[0].ops,
        [(Dest::Element, WriteOp::SetText("hi".into()))]
    );
    assert_eq!(
        plans[1].ops,
        [
            (Dest::Element, WriteOp::Focus),
            (Dest::Element, WriteOp::SelectAllText),
            (Dest::Element, WriteOp::TypeText("hi".into())),
        ]
    );
    assert_eq!(plans[0].method.as_str(), "ValuePattern.SetValue");
    assert_eq!(
        uia.method(&plans[0].ops[0].1).as_str(),
        "ValuePattern.SetValue"
    );
    // A stepper whose value cannot be set is stepped on AX.
    let mut spin = Node::new(NodeId("s".into()), Role::SpinButton, "AXIncrementor");
    spin.actions = ["increment", "decrement"].map(AppText::from).to_vec();
    spin.states = [State::Enabled].into_iter().collect();
    let mut c = ctx(&spin);
    c.planner = ax;
    let plans = ax.plan(&c, &Requested::Number(4.0)).unwrap();
    assert_eq!(plans[0].ops, [(Dest::Element, WriteOp::StepTo(4.0))]);
    assert_eq!(plans[0].method.as_str(), "AXIncrement/AXDecrement");
    // A disabled element: nothing to send.
    let mut off = text.clone();
    off.states = States::EMPTY;
    assert!(uia.plan(&ctx(&off), &Requested::Text("hi".into())).is_err());
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
        assert_ne!(crate::backend::uia::map::PLANNER.plan_method(p), "none");
        assert_ne!(crate::backend::ax::map::PLANNER.plan_method(p), "none");
    }
    let r = WritePlan::Refuse(NoWay::ReadOnly);
    assert!(r.is_refusal());
    assert_eq!(crate::backend::uia::map::PLANNER.plan_method(r), "none");
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
