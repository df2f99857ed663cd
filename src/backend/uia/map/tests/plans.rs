//! Write plans of mapped UI Automation elements (every choice of the rules is in
//! `strategy/plans.rs`).

use super::*;
use crate::backend::strategy::plan_for;

#[test]
fn plans_from_mapped_nodes() {
    let mixed_box = UiaElement {
        name: "Sync".into(),
        toggle_state: Some(2),
        ..el(50002, &[Pattern::Toggle])
    };
    assert_eq!(
        plan_for(&RULES, &node_from(&mixed_box)),
        WritePlan::Toggle { max_presses: 2 }
    );
    let ro_edit = UiaElement {
        value: Some("C:\\".into()),
        value_is_read_only: Some(true),
        ..el(50004, &[Pattern::Value])
    };
    assert_eq!(
        plan_for(&RULES, &node_from(&ro_edit)),
        WritePlan::Refuse(NoWay::ReadOnly)
    );
    let rw_edit = UiaElement {
        value_is_read_only: Some(false),
        ..ro_edit.clone()
    };
    assert_eq!(plan_for(&RULES, &node_from(&rw_edit)), WritePlan::SetValue);
    let combo = el(
        50003,
        &[Pattern::ExpandCollapse, Pattern::Selection, Pattern::Value],
    );
    assert_eq!(
        plan_for(&RULES, &node_from(&combo)),
        WritePlan::OpenMenuAndPick
    );
}
