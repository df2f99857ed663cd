//! How AT-SPI names the calls of a write in its result (`EditableText.SetTextContents`,
//! `Action.DoAction(click)`, …).

use crate::backend::WriteOp;
use crate::backend::strategy::interfaces::input_name;
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
