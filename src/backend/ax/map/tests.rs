//! The AX mapping tables, entry by entry (every write-plan choice is in `strategy/plans.rs`).

use super::*;
use crate::backend::strategy::plan_for;
use crate::backend::worker::cases;

fn el(role: &str, subrole: Option<&str>) -> AxElement {
    AxElement {
        id: Some("ax:1/0".into()),
        role: role.into(),
        subrole: subrole.map(str::to_string),
        enabled: Some(true),
        ..AxElement::default()
    }
}

/// Every AX role treeglass knows, written out (not read from the table).
#[test]
fn every_role() {
    let expected: &[(&str, Role)] = &[
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
    assert_eq!(expected.len(), ROLES.len());
    for &(raw, role) in expected {
        assert_eq!(role_of(raw, None), role, "{raw}");
        // An unrelated subrole changes nothing.
        assert_eq!(role_of(raw, Some("AXStandardWindow")), role, "{raw}");
        assert_eq!(node_from(&el(raw, None)).role, role, "{raw}");
        assert_eq!(raw_role(raw, None), raw);
    }
    assert_eq!(role_of("AXNewFangled", None), Role::Unknown);
    assert_eq!(role_of("", None), Role::Unknown);
}

#[test]
fn every_subrole() {
    let expected: &[(&str, &str, Role)] = &[
        ("AXWindow", "AXDialog", Role::Dialog),
        ("AXWindow", "AXSystemDialog", Role::Dialog),
        ("AXTextField", "AXSecureTextField", Role::PasswordText),
        ("AXCheckBox", "AXSwitch", Role::Switch),
        ("AXCheckBox", "AXToggle", Role::ToggleButton),
        ("AXButton", "AXToggle", Role::ToggleButton),
        ("AXButton", "AXSwitch", Role::Switch),
        ("AXRadioButton", "AXTabButton", Role::Tab),
        ("AXRow", "AXOutlineRow", Role::TreeItem),
        ("AXButton", "AXSortButton", Role::ColumnHeader),
    ];
    assert_eq!(expected.len(), SUBROLES.len());
    for &(raw, sub, role) in expected {
        assert_eq!(role_of(raw, Some(sub)), role, "{raw}:{sub}");
        assert_eq!(raw_role(raw, Some(sub)), format!("{raw}:{sub}"));
    }
    // The secure subrole wins on any role.
    assert_eq!(
        role_of("AXComboBox", Some("AXSecureTextField")),
        Role::PasswordText
    );
    // Subroles that do not change the role.
    for (raw, sub, role) in [
        ("AXWindow", "AXStandardWindow", Role::Window),
        ("AXWindow", "AXFloatingWindow", Role::Window),
        ("AXRow", "AXTableRow", Role::TableRow),
        ("AXTextField", "AXSearchField", Role::Text),
        ("AXButton", "AXCloseButton", Role::Button),
        ("AXList", "AXContentList", Role::List),
        // A tab subrole only refines radio buttons.
        ("AXButton", "AXTabButton", Role::Button),
    ] {
        assert_eq!(role_of(raw, Some(sub)), role, "{raw}:{sub}");
    }
    assert_eq!(raw_role("AXButton", Some("")), "AXButton");
    assert_eq!(raw_role("AXButton", Some("AXUnknown")), "AXButton");
}

#[test]
fn every_action() {
    let expected: &[(&str, &str)] = &[
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
    assert_eq!(expected.len(), ACTIONS.len());
    for &(raw, name) in expected {
        assert_eq!(action_name(raw), name);
        assert_eq!(raw_action(name).as_deref(), Some(raw));
        // The generic conversion agrees with the table.
        assert_eq!(kebab(&raw[2..]), name, "{raw}");
    }
    // Unlisted AX actions go through the generic conversion both ways.
    assert_eq!(action_name("AXZoomWindow"), "zoom-window");
    assert_eq!(raw_action("zoom-window").as_deref(), Some("AXZoomWindow"));
    // App-defined actions keep their raw name.
    let custom = "Name:Copy Link\nTarget:0x0\nSelector:(null)";
    assert_eq!(action_name(custom), custom);
    assert_eq!(raw_action(custom).as_deref(), Some(custom));
    assert_eq!(action_name("AX"), "AX");
    for s in SYNTHETIC_ACTIONS {
        assert_eq!(raw_action(s), None, "{s}");
    }
    assert_eq!(raw_action(""), None);
}

#[test]
fn ids() {
    assert_eq!(node_id(501, "", 0).0, "ax:501");
    assert_eq!(node_id(501, "/w0/3", 0).0, "ax:501/w0/3");
    assert_eq!(node_id(501, "/w0/3", 2).0, "ax:501/w0/3#2");
    assert_eq!(pid_of(&node_id(501, "/w0/3", 2)), Some(501));
    assert_eq!(pid_of(&node_id(77, "", 0)), Some(77));
    assert_eq!(pid_of(&NodeId("uia:1.2".into())), None);
    assert_eq!(child_path("/w0", 3), "/w0/3");
    assert_eq!(window_path(1), "/w1");
}

#[test]
fn values_and_toggles() {
    for (v, t) in [
        (AxValue::Number(0.0), Some(Toggle::Off)),
        (AxValue::Number(1.0), Some(Toggle::On)),
        (AxValue::Number(2.0), Some(Toggle::Mixed)),
        (AxValue::Bool(true), Some(Toggle::On)),
        (AxValue::Bool(false), Some(Toggle::Off)),
        (AxValue::Text("1".into()), Some(Toggle::On)),
        (AxValue::Number(3.0), None),
        (AxValue::Text("yes".into()), None),
    ] {
        assert_eq!(toggle_of(&v), t, "{v:?}");
    }
    assert_eq!(AxValue::Number(50.0).as_text(), "50");
    assert_eq!(AxValue::Bool(true).as_text(), "1");
    let parsed: Vec<AxValue> = serde_json::from_str(r#"[true, 2, 0.5, "x"]"#).unwrap();
    assert_eq!(
        parsed,
        [
            AxValue::Bool(true),
            AxValue::Number(2.0),
            AxValue::Number(0.5),
            AxValue::Text("x".into())
        ]
    );
}

#[test]
fn names_and_descriptions() {
    let mut e = el("AXButton", None);
    e.title = "OK".into();
    e.description = "confirms".into();
    e.help = "Press to confirm".into();
    assert_eq!(name_of(&e, Role::Button), "OK");
    assert_eq!(description_of(&e), "confirms");
    e.title.clear();
    assert_eq!(name_of(&e, Role::Button), "confirms");
    assert_eq!(description_of(&e), "Press to confirm");
    let mut t = el("AXStaticText", None);
    t.value = Some(AxValue::Text("Hello".into()));
    assert_eq!(name_of(&t, Role::Label), "Hello");
    // A text field's value is its value, not its name.
    let mut f = el("AXTextField", None);
    f.value = Some(AxValue::Text("typed".into()));
    assert_eq!(name_of(&f, Role::Text), "");
}

/// One attribute at a time: the states each AX attribute adds.
#[test]
fn every_state_attribute() {
    let st = |e: &AxElement| states_of(e, role_of(&e.role, e.sub()));
    assert_eq!(
        st(&el("AXButton", None)).names(),
        ["enabled", "sensitive", "showing", "visible"]
    );
    let with = |mut e: AxElement, f: &dyn Fn(&mut AxElement)| {
        f(&mut e);
        e
    };
    let cases: Vec<(AxElement, State, bool)> = vec![
        (
            with(el("AXButton", None), &|e| e.enabled = Some(false)),
            State::Enabled,
            false,
        ),
        (
            with(el("AXButton", None), &|e| e.enabled = Some(false)),
            State::Sensitive,
            false,
        ),
        (
            with(el("AXGroup", None), &|e| e.enabled = None),
            State::Enabled,
            true,
        ),
        (
            with(el("AXButton", None), &|e| e.focused = Some(true)),
            State::Focused,
            true,
        ),
        (
            with(el("AXButton", None), &|e| e.focused_settable = true),
            State::Focusable,
            true,
        ),
        (
            with(el("AXCheckBox", None), &|e| {
                e.value = Some(AxValue::Number(1.0))
            }),
            State::Checked,
            true,
        ),
        (
            with(el("AXCheckBox", None), &|e| {
                e.value = Some(AxValue::Number(0.0))
            }),
            State::Checked,
            false,
        ),
        (
            with(el("AXCheckBox", None), &|e| {
                e.value = Some(AxValue::Number(2.0))
            }),
            State::Indeterminate,
            true,
        ),
        (el("AXCheckBox", None), State::Checkable, true),
        (
            with(el("AXCheckBox", Some("AXSwitch")), &|e| {
                e.value = Some(AxValue::Bool(true))
            }),
            State::Checked,
            true,
        ),
        (
            with(el("AXRadioButton", None), &|e| {
                e.value = Some(AxValue::Number(1.0))
            }),
            State::Checked,
            true,
        ),
        (
            with(el("AXRadioButton", Some("AXTabButton")), &|e| {
                e.value = Some(AxValue::Number(1.0))
            }),
            State::Selected,
            true,
        ),
        (
            el("AXRadioButton", Some("AXTabButton")),
            State::Checkable,
            false,
        ),
        (el("AXRow", None), State::Selectable, true),
        (
            with(el("AXRow", None), &|e| e.selected = Some(true)),
            State::Selected,
            true,
        ),
        (
            with(el("AXGroup", None), &|e| e.selected_settable = true),
            State::Selectable,
            true,
        ),
        (
            with(el("AXRow", Some("AXOutlineRow")), &|e| {
                e.expanded = Some(true)
            }),
            State::Expanded,
            true,
        ),
        (
            with(el("AXRow", Some("AXOutlineRow")), &|e| {
                e.expanded = Some(false)
            }),
            State::Collapsed,
            true,
        ),
        (
            with(el("AXComboBox", None), &|e| e.expanded = Some(false)),
            State::Expandable,
            true,
        ),
        (
            with(el("AXDisclosureTriangle", None), &|e| {
                e.value = Some(AxValue::Number(1.0))
            }),
            State::Expanded,
            true,
        ),
        (
            with(el("AXDisclosureTriangle", None), &|e| {
                e.value = Some(AxValue::Number(0.0))
            }),
            State::Collapsed,
            true,
        ),
        (
            with(el("AXTextField", None), &|e| e.value_settable = true),
            State::Editable,
            true,
        ),
        (el("AXTextField", None), State::ReadOnly, true),
        (el("AXTextField", None), State::SingleLine, true),
        (el("AXTextArea", None), State::MultiLine, true),
        (
            with(el("AXSlider", None), &|e| e.value_settable = true),
            State::Editable,
            true,
        ),
        (el("AXSlider", None), State::ReadOnly, true),
        (
            with(el("AXIncrementor", None), &|e| {
                e.actions = vec!["AXIncrement".into(), "AXDecrement".into()]
            }),
            State::ReadOnly,
            false,
        ),
        (
            with(el("AXComboBox", None), &|e| e.value_settable = true),
            State::Editable,
            true,
        ),
        (el("AXPopUpButton", None), State::HasPopup, true),
        (
            with(el("AXTextField", None), &|e| e.required = Some(true)),
            State::Required,
            true,
        ),
        (
            with(el("AXWindow", None), &|e| e.modal = Some(true)),
            State::Modal,
            true,
        ),
        (
            with(el("AXWindow", None), &|e| e.main = Some(true)),
            State::Active,
            true,
        ),
        (
            with(el("AXGroup", None), &|e| e.busy = Some(true)),
            State::Busy,
            true,
        ),
        (
            with(el("AXSlider", None), &|e| {
                e.orientation = Some(ORIENTATION_HORIZONTAL.into())
            }),
            State::Horizontal,
            true,
        ),
        (
            with(el("AXSplitGroup", None), &|e| {
                e.orientation = Some(ORIENTATION_VERTICAL.into())
            }),
            State::Vertical,
            true,
        ),
    ];
    cases::states(cases, st);
}

#[test]
fn interfaces_and_actions() {
    let iface = |e: &AxElement| interfaces_of(e, role_of(&e.role, e.sub())).names();
    assert_eq!(iface(&el("AXStaticText", None)), ["accessible"]);
    let mut b = el("AXButton", None);
    b.actions = vec!["AXPress".into(), "AXShowMenu".into()];
    assert_eq!(iface(&b), ["accessible", "action"]);
    assert_eq!(actions_of(&b), ["press", "show-menu"]);
    let mut row = el("AXRow", None);
    row.selected_settable = true;
    row.expanded_settable = true;
    assert_eq!(actions_of(&row), ["select", "expand", "collapse"]);
    assert_eq!(iface(&row), ["accessible", "action"]);
    let mut tf = el("AXTextField", None);
    assert_eq!(iface(&tf), ["accessible", "text"]);
    tf.value_settable = true;
    assert_eq!(iface(&tf), ["accessible", "editable-text", "text"]);
    let mut inc = el("AXIncrementor", None);
    assert_eq!(iface(&inc), ["accessible"]);
    inc.actions = vec!["AXIncrement".into(), "AXDecrement".into()];
    assert_eq!(iface(&inc), ["accessible", "action", "value"]);
    let mut slider = el("AXSlider", None);
    slider.value_settable = true;
    assert_eq!(iface(&slider), ["accessible", "value"]);
    let mut popup = el("AXPopUpButton", None);
    assert_eq!(iface(&popup), ["accessible"]);
    popup.actions = vec!["AXPress".into()];
    assert_eq!(iface(&popup), ["accessible", "action", "selection"]);
    let mut combo = el("AXComboBox", None);
    combo.value_settable = true;
    assert_eq!(iface(&combo), ["accessible", "editable-text", "text"]);
    assert_eq!(iface(&el("AXTable", None)), ["accessible", "table"]);
    assert_eq!(iface(&el("AXOutline", None)), ["accessible", "table"]);
    assert_eq!(iface(&el("AXCell", None)), ["accessible", "table-cell"]);
    assert_eq!(iface(&el("AXWebArea", None)), ["accessible", "document"]);
    assert_eq!(iface(&el("AXLink", None)), ["accessible", "hyperlink"]);
    assert_eq!(iface(&el("AXImage", None)), ["accessible", "image"]);
    assert_eq!(
        iface(&el("AXApplication", None)),
        ["accessible", "application"]
    );
    let mut framed = el("AXGroup", None);
    framed.bounds = Some(Bounds {
        x: 0,
        y: 0,
        width: 5,
        height: 5,
    });
    assert_eq!(iface(&framed), ["accessible", "component"]);
}

#[test]
fn values_by_role() {
    let val = |e: &AxElement| value_of(e, role_of(&e.role, e.sub()));
    let mut cb = el("AXCheckBox", None);
    cb.value = Some(AxValue::Number(2.0));
    assert_eq!(
        val(&cb),
        Some(Value::Toggle {
            state: Toggle::Mixed
        })
    );
    cb.value = None;
    assert_eq!(val(&cb), None);
    let mut slider = el("AXSlider", None);
    slider.value = Some(AxValue::Number(0.25));
    slider.min_value = Some(0.0);
    slider.max_value = Some(1.0);
    slider.value_increment = Some(0.05);
    assert_eq!(
        val(&slider),
        Some(Value::Number {
            current: 0.25,
            min: Some(0.0),
            max: Some(1.0),
            step: Some(0.05)
        })
    );
    let mut inc = el("AXIncrementor", None);
    inc.value = Some(AxValue::Text("7".into()));
    assert!(matches!(
        val(&inc),
        Some(Value::Number { current, min, max, step })
            if current == 7.0 && min.is_none() && max.is_none() && step.is_none()
    ));
    let mut popup = el("AXPopUpButton", None);
    popup.value = Some(AxValue::Text("Medium".into()));
    assert_eq!(
        val(&popup),
        Some(Value::Choice {
            selected: Some("Medium".into())
        })
    );
    let mut mb = el("AXMenuButton", None);
    mb.title = "Sort by Name".into();
    assert_eq!(
        val(&mb),
        Some(Value::Choice {
            selected: Some("Sort by Name".into())
        })
    );
    let mut tf = el("AXTextField", None);
    assert_eq!(
        val(&tf),
        Some(Value::Text {
            text: AppText::default()
        })
    );
    tf.value = Some(AxValue::Text("hi".into()));
    assert_eq!(val(&tf), Some(Value::Text { text: "hi".into() }));
    assert_eq!(val(&el("AXButton", None)), None);
    assert_eq!(val(&el("AXDisclosureTriangle", None)), None);
}

#[test]
fn plans_from_mapped_nodes() {
    let mut popup = el("AXPopUpButton", None);
    popup.actions = vec!["AXPress".into()];
    popup.value = Some(AxValue::Text("Medium".into()));
    assert_eq!(
        plan_for(&RULES, &node_from(&popup)),
        WritePlan::OpenMenuAndPick
    );
    let mut inc = el("AXIncrementor", None);
    inc.actions = vec!["AXIncrement".into(), "AXDecrement".into()];
    assert_eq!(plan_for(&RULES, &node_from(&inc)), WritePlan::Step);
    inc.value_settable = true;
    assert_eq!(plan_for(&RULES, &node_from(&inc)), WritePlan::SetRange);
    let mut mixed = el("AXCheckBox", None);
    mixed.actions = vec!["AXPress".into()];
    mixed.value = Some(AxValue::Number(2.0));
    assert_eq!(
        plan_for(&RULES, &node_from(&mixed)),
        WritePlan::Toggle { max_presses: 2 }
    );
    let secure = AxElement {
        value_settable: true,
        ..el("AXTextField", Some("AXSecureTextField"))
    };
    let n = node_from(&secure);
    assert!(n.is_secret());
    assert_eq!(plan_for(&RULES, &n), WritePlan::SetValue);
}

#[test]
fn errors() {
    cases::codes(
        &[
            (AX_ERROR_INVALID_UI_ELEMENT, ErrorKind::Vanished),
            (AX_ERROR_CANNOT_COMPLETE, ErrorKind::Timeout),
            (AX_ERROR_API_DISABLED, ErrorKind::NotTrusted),
            (AX_ERROR_ATTRIBUTE_UNSUPPORTED, ErrorKind::Unsupported),
            (AX_ERROR_ACTION_UNSUPPORTED, ErrorKind::Unsupported),
            (AX_ERROR_NOT_IMPLEMENTED, ErrorKind::Unsupported),
            (AX_ERROR_NO_VALUE, ErrorKind::Unsupported),
            (AX_ERROR_FAILURE, ErrorKind::Failed),
            (AX_ERROR_ILLEGAL_ARGUMENT, ErrorKind::Failed),
        ],
        classify_error,
    );
}

#[test]
fn apps_and_windows() {
    for (path, name, bundle) in [
        (
            "/System/Applications/TextEdit.app/Contents/MacOS/TextEdit",
            "TextEdit",
            true,
        ),
        (
            "/Applications/Visual Studio Code.app/Contents/MacOS/Electron",
            "Visual Studio Code",
            true,
        ),
        (
            "/Applications/Xcode.app/Contents/Developer/Applications/Simulator.app/Contents/MacOS/Simulator",
            "Xcode",
            true,
        ),
        ("/usr/sbin/cfprefsd", "cfprefsd", false),
        ("launchd", "launchd", false),
    ] {
        assert_eq!(app_name_from_path(path), name, "{path}");
        assert_eq!(is_app_bundle(path), bundle, "{path}");
    }
    let listing = "  1 /sbin/launchd\n 8123 /System/Applications/TextEdit.app/Contents/MacOS/TextEdit\n\
                       9301 /System/Applications/System Settings.app/Contents/MacOS/System Settings\n\
                       junk\n 77 \n";
    assert_eq!(
        parse_ps(listing),
        vec![
            (1, "/sbin/launchd".to_string()),
            (
                8123,
                "/System/Applications/TextEdit.app/Contents/MacOS/TextEdit".to_string()
            ),
            (
                9301,
                "/System/Applications/System Settings.app/Contents/MacOS/System Settings"
                    .to_string()
            ),
        ]
    );
    let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        window_changes(&t(&["A", "B"]), &t(&["B", "C"])),
        vec![
            (EventKind::WindowOpened, "C".to_string()),
            (EventKind::WindowClosed, "A".to_string())
        ]
    );
    assert!(window_changes(&t(&["A", "A"]), &t(&["A", "A"])).is_empty());
    assert_eq!(
        window_changes(&t(&["A", "A"]), &t(&["A"])),
        vec![(EventKind::WindowClosed, "A".to_string())]
    );
}
