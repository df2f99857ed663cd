//! The UI Automation mapping tables, entry by entry (every write-plan choice is in
//! `strategy/plans.rs`).

use super::*;
use crate::backend::worker::cases;

mod plans;

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
    cases::states(cases, st);
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

#[test]
fn hresults() {
    assert_eq!(UIA_E_ELEMENTNOTAVAILABLE, -2147220991);
    cases::codes(
        &[
            (UIA_E_ELEMENTNOTAVAILABLE, ErrorKind::Vanished),
            (RPC_E_DISCONNECTED, ErrorKind::Vanished),
            (CO_E_OBJNOTCONNECTED, ErrorKind::Vanished),
            (UIA_E_TIMEOUT, ErrorKind::Timeout),
            (UIA_E_NOTSUPPORTED, ErrorKind::Unsupported),
            (UIA_E_ELEMENTNOTENABLED, ErrorKind::Unsupported),
            (UIA_E_INVALIDOPERATION, ErrorKind::Unsupported),
            (E_NOTIMPL, ErrorKind::Unsupported),
            (E_NOINTERFACE, ErrorKind::Unsupported),
            (REGDB_E_CLASSNOTREG, ErrorKind::Failed),
            (0x8000_4005_u32 as i32, ErrorKind::Failed),
            (0, ErrorKind::Failed),
            (4, ErrorKind::Failed),
        ],
        classify_hresult,
    );
}

#[test]
fn errors_carry_their_hresult_and_name() {
    for (code, message, text) in [
        (
            REGDB_E_CLASSNOTREG,
            "",
            "0x80040154 (REGDB_E_CLASSNOTREG): no UI Automation client is registered on this \
             system",
        ),
        (
            REGDB_E_CLASSNOTREG,
            "Class not registered",
            "0x80040154 (REGDB_E_CLASSNOTREG): no UI Automation client is registered on this \
             system",
        ),
        (E_NOTIMPL, "", "0x80004001 (E_NOTIMPL): not implemented"),
        (
            UIA_E_ELEMENTNOTAVAILABLE,
            "",
            "0x80040201 (UIA_E_ELEMENTNOTAVAILABLE): the element is no longer available",
        ),
        // A code the table does not name keeps the system's text, or says it has none.
        (
            0x8007_0490_u32 as i32,
            "Element not found. ",
            "0x80070490: Element not found.",
        ),
        (
            0x8007_0490_u32 as i32,
            "",
            "0x80070490: no description from the system",
        ),
        // The crate's own errors are not HRESULTs.
        (1, "element not found", "element not found"),
        (0, "", "error 0"),
    ] {
        assert_eq!(describe_error(code, message), text, "{code:#x}");
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
