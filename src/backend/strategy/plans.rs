//! Every write-plan choice of the UI Automation and AX rules, one row each, through the one
//! [`write_plan`] they share.

use super::*;
use crate::backend::{ax, uia};

fn caps(list: &[Capability]) -> Capabilities {
    list.iter().copied().collect()
}

fn on() -> States {
    States::EMPTY.with(State::Enabled).with(State::Sensitive)
}

fn ro() -> States {
    on().with(State::ReadOnly)
}

fn editable() -> States {
    on().with(State::Editable)
}

fn mixed() -> States {
    on().with(State::Indeterminate)
}

/// Checks every row, (role, capabilities, states, the plan wanted), against a platform's plan.
fn check(
    cases: Vec<(Role, Capabilities, States, WritePlan)>,
    plan: fn(Role, Capabilities, States) -> WritePlan,
) {
    for (role, c, states, want) in cases {
        assert_eq!(plan(role, c, states), want, "{role:?} {c:?} {states:?}");
    }
}

/// The choices both platforms make alike, one row each.
#[test]
fn write_plans_alike() {
    use Capability as C;
    let cases: Vec<(Role, Capabilities, States, WritePlan)> = vec![
        (
            Role::Label,
            caps(&[]),
            on(),
            WritePlan::Refuse(NoWay::NotEditable),
        ),
        (
            Role::Text,
            caps(&[C::SetText]),
            States::EMPTY,
            WritePlan::Refuse(NoWay::Disabled),
        ),
        (
            Role::Text,
            caps(&[C::SetText, C::ReadText]),
            editable(),
            WritePlan::SetValue,
        ),
        (
            Role::PasswordText,
            caps(&[C::SetText]),
            editable(),
            WritePlan::SetValue,
        ),
        (
            Role::Text,
            caps(&[C::ReadText]),
            ro(),
            WritePlan::Refuse(NoWay::ReadOnly),
        ),
        (
            Role::CheckBox,
            caps(&[]),
            on(),
            WritePlan::Refuse(NoWay::NoMethod),
        ),
        (
            Role::RadioButton,
            caps(&[]),
            on(),
            WritePlan::Refuse(NoWay::NoMethod),
        ),
        (
            Role::ComboBox,
            caps(&[C::SetText]),
            editable(),
            WritePlan::SetValue,
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
            Role::Expander,
            caps(&[C::Expand]),
            on(),
            WritePlan::Expand { toggles: false },
        ),
        (
            Role::Expander,
            caps(&[]),
            on(),
            WritePlan::Refuse(NoWay::NoMethod),
        ),
    ];
    check(cases.clone(), |r, c, s| {
        write_plan(&uia::map::RULES, r, c, s)
    });
    check(cases, |r, c, s| write_plan(&ax::map::RULES, r, c, s));
}

/// Every other write-strategy choice on UIA, one row each.
#[test]
fn every_uia_write_plan() {
    use Capability as C;
    let cases: Vec<(Role, Capabilities, States, WritePlan)> = vec![
        // Not a value-bearing role, nothing to run.
        (
            Role::Panel,
            caps(&[C::SelectChild]),
            on(),
            WritePlan::Refuse(NoWay::NotEditable),
        ),
        // Disabled.
        (
            Role::Button,
            caps(&[C::Invoke]),
            States::EMPTY,
            WritePlan::Refuse(NoWay::Disabled),
        ),
        // Text.
        (
            Role::Text,
            caps(&[C::ReadText]),
            editable(),
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
            editable(),
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
            ro(),
            WritePlan::Refuse(NoWay::ReadOnly),
        ),
        (
            Role::SpinButton,
            caps(&[C::SetText]),
            editable(),
            WritePlan::SetValue,
        ),
        (
            Role::SpinButton,
            caps(&[]),
            on(),
            WritePlan::Refuse(NoWay::NoMethod),
        ),
        // Toggles, including the mixed() check box.
        (
            Role::CheckBox,
            caps(&[C::Toggle]),
            on(),
            WritePlan::Toggle { max_presses: 2 },
        ),
        (
            Role::CheckBox,
            caps(&[C::Toggle]),
            mixed(),
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
            mixed(),
            WritePlan::Toggle { max_presses: 2 },
        ),
        (
            Role::CheckMenuItem,
            caps(&[C::Invoke]),
            on(),
            WritePlan::Toggle { max_presses: 1 },
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
            editable(),
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
    check(cases, |r, c, s| write_plan(&uia::map::RULES, r, c, s));
}

/// Every other write-strategy choice on AX, one row each.
#[test]
fn every_ax_write_plan() {
    use Capability as C;
    let cases: Vec<(Role, Capabilities, States, WritePlan)> = vec![
        (
            Role::Group,
            caps(&[C::Select]),
            on(),
            WritePlan::Refuse(NoWay::NotEditable),
        ),
        // Text.
        (
            Role::Text,
            caps(&[C::SetText]),
            ro(),
            WritePlan::Refuse(NoWay::ReadOnly),
        ),
        // Numbers: settable value, stepping, neither.
        (
            Role::Slider,
            caps(&[C::SetNumber]),
            editable(),
            WritePlan::SetRange,
        ),
        (
            Role::SpinButton,
            caps(&[C::SetNumber, C::Increment, C::Decrement]),
            editable(),
            WritePlan::SetRange,
        ),
        (
            Role::SpinButton,
            caps(&[C::SetNumber, C::Increment, C::Decrement]),
            on(),
            WritePlan::Step,
        ),
        (
            Role::Slider,
            caps(&[C::Increment, C::Decrement]),
            on(),
            WritePlan::Step,
        ),
        (
            Role::SpinButton,
            caps(&[C::Increment]),
            on(),
            WritePlan::Refuse(NoWay::ReadOnly),
        ),
        (
            Role::Slider,
            caps(&[]),
            ro(),
            WritePlan::Refuse(NoWay::ReadOnly),
        ),
        // Toggles, including the mixed() check box.
        (
            Role::CheckBox,
            caps(&[C::Press]),
            on(),
            WritePlan::Toggle { max_presses: 2 },
        ),
        (
            Role::CheckBox,
            caps(&[C::Press]),
            mixed(),
            WritePlan::Toggle { max_presses: 2 },
        ),
        (
            Role::Switch,
            caps(&[C::Press]),
            on(),
            WritePlan::Toggle { max_presses: 1 },
        ),
        (
            Role::Switch,
            caps(&[C::Press]),
            mixed(),
            WritePlan::Toggle { max_presses: 2 },
        ),
        (
            Role::ToggleButton,
            caps(&[C::Press]),
            on(),
            WritePlan::Toggle { max_presses: 1 },
        ),
        // Radio buttons and tabs select by pressing.
        (
            Role::RadioButton,
            caps(&[C::Press]),
            on(),
            WritePlan::SelectItem,
        ),
        (Role::Tab, caps(&[C::Press]), on(), WritePlan::SelectItem),
        // Pop-up buttons, menu buttons, combo boxes.
        (
            Role::ComboBox,
            caps(&[C::Press, C::SelectChild]),
            on(),
            WritePlan::OpenMenuAndPick,
        ),
        (
            Role::MenuButton,
            caps(&[C::Press, C::SelectChild]),
            on(),
            WritePlan::OpenMenuAndPick,
        ),
        (
            Role::ComboBox,
            caps(&[C::ShowMenu, C::SelectChild, C::SetText]),
            editable(),
            WritePlan::OpenMenuAndPick,
        ),
        (
            Role::ComboBox,
            caps(&[C::Press]),
            on(),
            WritePlan::Refuse(NoWay::NoMethod),
        ),
        // Rows, cells, list items.
        (
            Role::ListItem,
            caps(&[C::Press]),
            on(),
            WritePlan::SelectItem,
        ),
        (
            Role::TableCell,
            caps(&[]),
            on(),
            WritePlan::Refuse(NoWay::NoMethod),
        ),
        // Disclosure triangles.
        (
            Role::Expander,
            caps(&[C::Press]),
            on(),
            WritePlan::Expand { toggles: true },
        ),
        // Buttons, menu items, links.
        (Role::Button, caps(&[C::Press]), on(), WritePlan::Invoke),
        (Role::MenuItem, caps(&[C::Press]), on(), WritePlan::Invoke),
        (Role::Link, caps(&[C::Press]), on(), WritePlan::Invoke),
        (
            Role::Group,
            caps(&[C::Expand]),
            on(),
            WritePlan::Expand { toggles: false },
        ),
        (
            Role::Button,
            caps(&[C::ShowMenu]),
            on(),
            WritePlan::Refuse(NoWay::NoMethod),
        ),
        (
            Role::Button,
            caps(&[C::Press]),
            States::EMPTY,
            WritePlan::Refuse(NoWay::Disabled),
        ),
    ];
    check(cases, |r, c, s| write_plan(&ax::map::RULES, r, c, s));
}
