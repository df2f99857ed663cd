//! States and structure: a state must come with the ability to hold it.

use super::{Context, Hit, Needs, Rule, Severity, shown};
use crate::model::{Role, State};

pub(super) const CHECKED_NOT_CHECKABLE: Rule = Rule {
    id: "checked-not-checkable",
    group: "states",
    severity: Severity::Warning,
    message: "an element is checked but neither checkable nor a toggle",
    standard: "WCAG 4.1.2",
    anchor: "treeglass (state consistency)",
    help: "A `checked` (or `indeterminate`) element that is not `checkable` is announced as \
           checked by some screen readers and not by others, and tools cannot tell whether \
           it can be toggled. Report `checkable` with `checked`, or use a toggle role. Not \
           judged: check boxes, radio and toggle buttons, switches and check or radio menu \
           items — the role says they can be checked (GTK 3 never reports `checkable`); \
           table cells (GTK 3 exposes a tree view's check box cell as a checked table cell, \
           and the app cannot change that).",
    needs: Needs::Nothing,
    check: checked_not_checkable,
};

fn checked_not_checkable(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        let checked = n.states.has(State::Checked) || n.states.has(State::Indeterminate);
        if checked
            && !n.states.has(State::Checkable)
            && !n.role.is_toggle()
            && n.role != Role::TableCell
        {
            out.push(Hit::new(
                row,
                format!("{} is checked, not checkable", shown(n)),
            ));
        }
    }
}

pub(super) const SELECTED_NOT_SELECTABLE: Rule = Rule {
    id: "selected-not-selectable",
    group: "states",
    severity: Severity::Warning,
    message: "an element is selected but not selectable",
    standard: "WCAG 4.1.2",
    anchor: "treeglass (state consistency)",
    help: "`selected` without `selectable` tells assistive technology the selection cannot \
           change — yet it is there. Report `selectable` on every item that can be selected \
           (or drop `selected` from one that cannot).",
    needs: Needs::Nothing,
    check: selected_not_selectable,
};

fn selected_not_selectable(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if n.states.has(State::Selected) && !n.states.has(State::Selectable) {
            out.push(Hit::new(
                row,
                format!("{} is selected, not selectable", shown(n)),
            ));
        }
    }
}

pub(super) const EXPANDED_NOT_EXPANDABLE: Rule = Rule {
    id: "expanded-not-expandable",
    group: "states",
    severity: Severity::Warning,
    message: "an element is expanded but not expandable",
    standard: "WCAG 4.1.2",
    anchor: "treeglass (state consistency)",
    help: "`expanded` without `expandable` makes a screen reader announce \"expanded\" on \
           something the user cannot collapse. Report `expandable` with `expanded` and \
           `collapsed`. Not judged: expanders (the role says it).",
    needs: Needs::Nothing,
    check: expanded_not_expandable,
};

fn expanded_not_expandable(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if n.states.has(State::Expanded)
            && !n.states.has(State::Expandable)
            && n.role != Role::Expander
        {
            out.push(Hit::new(
                row,
                format!("{} is expanded, not expandable", shown(n)),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::model::{Role, State};

    #[test]
    fn checked_not_checkable_fires_on_a_checked_button_only() {
        let snap = tree(vec![
            (with(n(Role::Button, "Odd"), State::Checked), vec![]),
            (with(n(Role::CheckBox, "Fine"), State::Checked), vec![]),
            (
                with(
                    with(n(Role::Button, "Also fine"), State::Checked),
                    State::Checkable,
                ),
                vec![],
            ),
        ]);
        assert_eq!(rows(&snap, "checked-not-checkable"), named(&snap, "Odd"));
    }

    #[test]
    fn selected_not_selectable_fires_without_the_ability() {
        let snap = tree(vec![
            (with(n(Role::ListItem, "Odd"), State::Selected), vec![]),
            (
                with(
                    with(n(Role::ListItem, "Fine"), State::Selected),
                    State::Selectable,
                ),
                vec![],
            ),
        ]);
        assert_eq!(rows(&snap, "selected-not-selectable"), named(&snap, "Odd"));
    }

    #[test]
    fn expanded_not_expandable_fires_without_the_ability() {
        let snap = tree(vec![
            (with(n(Role::Button, "Odd"), State::Expanded), vec![]),
            (
                with(
                    with(n(Role::Button, "Fine"), State::Expanded),
                    State::Expandable,
                ),
                vec![],
            ),
            (
                with(n(Role::Expander, "Also fine"), State::Expanded),
                vec![],
            ),
        ]);
        assert_eq!(rows(&snap, "expanded-not-expandable"), named(&snap, "Odd"));
    }
}
