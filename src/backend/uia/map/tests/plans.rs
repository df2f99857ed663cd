//! Every write-plan choice of the UI Automation mapping.

use super::*;

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
