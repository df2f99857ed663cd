//! How AT-SPI names the calls of a write in its result (`EditableText.SetTextContents`,
//! `Action.DoAction(click)`, …), and the X keysyms of the keys the keyboard paths press.

use crate::backend::strategy::interfaces::input_name;
use crate::backend::{Key, WriteOp};
use crate::model::AppText;

/// The method an op is for results; never includes the written text itself. An app's string,
/// since it may hold the action's name.
pub fn of(op: &WriteOp) -> AppText {
    AppText::from(match op {
        WriteOp::SetText(_) => "EditableText.SetTextContents".into(),
        WriteOp::SetNumber(_) => "Value.CurrentValue".into(),
        WriteOp::StepTo(_) => "increment/decrement actions".into(),
        WriteOp::Action(a) => format!("Action.DoAction({})", a.as_str()),
        WriteOp::SelectChild(i) => format!("Selection.SelectChild({i})"),
        WriteOp::Focus => "Component.GrabFocus".into(),
        WriteOp::SelectAllText => "Text.AddSelection".into(),
        input => return input_name(input).unwrap_or_default(),
    })
}

/// The X keysym of a key (the registry's `GenerateKeyboardEvent` takes it as the keycode).
pub fn keysym(key: Key) -> u32 {
    match key {
        Key::Space => 0x20,
        Key::Return => 0xff0d,
        Key::Up => 0xff52,
        Key::Down => 0xff54,
        Key::BackSpace => 0xff08,
    }
}
