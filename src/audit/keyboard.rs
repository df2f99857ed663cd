//! Keyboard: what can be reached and used without a pointer.

use super::{Context, Hit, Needs, Rule, Severity, shown};
use crate::model::{Interface, Role, State};

/// Items a composite widget moves between with the arrow keys while it holds the focus (a
/// list's rows, a tab list's tabs, a menu's items): they need not take the focus themselves.
fn item_of_composite(role: Role) -> bool {
    matches!(
        role,
        Role::ListItem
            | Role::TreeItem
            | Role::TableRow
            | Role::TableCell
            | Role::Tab
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
    )
}

pub(super) const ACTION_NOT_FOCUSABLE: Rule = Rule {
    id: "action-not-focusable",
    group: "keyboard",
    severity: Severity::Warning,
    message: "an enabled control has actions but cannot take the keyboard focus",
    standard: "WCAG 2.1.1",
    anchor: "Accerciser ActionIsInteractive",
    help: "A control that can be clicked but never focused cannot be reached with Tab, so a \
           keyboard or switch user cannot operate it. Make it focusable (GTK: \
           set_can_focus; Qt: setFocusPolicy; web: a real <button>, or tabindex=\"0\"). Not \
           judged: items of a composite widget (list and tree rows, cells, tabs, menu \
           items, and anything inside a menu, a combo box or a tool bar — Firefox's tool \
           bars), which the arrow keys reach while their container holds the focus; a \
           control whose focus goes to an inner element (GTK 3's combo box and its button); \
           controls inside a text field (Qt's clear and reveal buttons: the field takes the \
           keys); scroll bars (the view they scroll takes the keys); combo boxes (GTK 3 \
           gives the focus to an inner button it does not expose); level bars (an \
           indicator, which the accessibility bus reports as a slider); a tree view's column headers (GTK 4 \
           exposes them as buttons out of the focus chain); a window's title-bar \
           Minimize, Maximize and Close buttons (GTK 3 keeps them out of the focus chain on \
           purpose: the window manager's keys do the same); disabled controls.",
    needs: Needs::Nothing,
    check: action_not_focusable,
};

fn action_not_focusable(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if !n.role.is_interactive()
            || !n.interfaces.has(Interface::Action)
            || n.states.has(State::Focusable)
            || !n.is_enabled()
            || item_of_composite(n.role)
            || matches!(n.role, Role::ScrollBar | Role::ComboBox)
            || crate::backend::raw_kind(&n.raw_role) == Some(crate::model::RawKind::Meter)
            || title_bar_button(cx, row)
            || column_header(cx, row)
        {
            continue;
        }
        if cx.ancestors(row).any(|(_, a)| {
            matches!(
                a.role,
                Role::Menu | Role::MenuBar | Role::ComboBox | Role::ToolBar
            ) || a.role.is_text()
                || a.managed.is_some()
        }) {
            continue;
        }
        if cx.descendant(row, 3, |d| d.states.has(State::Focusable)) {
            continue;
        }
        out.push(Hit::new(
            row,
            format!("{} has the Action interface and is not focusable", shown(n)),
        ));
    }
}

/// A button right under a tree view (GTK 4 exposes a tree view's column headers as buttons
/// that do not take the focus, in a container named after the class).
fn column_header(cx: &Context, row: usize) -> bool {
    let n = &cx.nodes()[row];
    n.role == Role::Button
        && n.parent.and_then(|p| cx.nodes().get(p)).is_some_and(|p| {
            matches!(p.role, Role::Tree | Role::Table) || p.name.as_str() == "GtkTreeView"
        })
}

/// A window's own Minimize, Maximize, Restore or Close button, near the top of the window
/// (client-side decorations).
fn title_bar_button(cx: &Context, row: usize) -> bool {
    let n = &cx.nodes()[row];
    n.role == Role::Button
        && matches!(
            n.name.as_str().trim(),
            "Minimize" | "Maximize" | "Restore" | "Close" | "Unmaximize"
        )
        && cx.ancestors(row).take(3).any(|(_, a)| is_window(a.role))
}

pub(super) const FOCUSED_NOT_FOCUSABLE: Rule = Rule {
    id: "focused-not-focusable",
    group: "keyboard",
    severity: Severity::Error,
    message: "an element is focused but does not say it is focusable",
    standard: "WCAG 4.1.2",
    anchor: "treeglass (state consistency)",
    help: "`focused` without `focusable` contradicts itself: assistive technology that trusts \
           `focusable` skips the element, and tools cannot tell where the focus may go. Set \
           both states (a custom widget must report `focusable` when it can take the focus). \
           Not judged: documents (Chromium marks its web documents focused, never \
           focusable), windows, and items of a composite widget (Qt 6 marks the current tab \
           of a focused tab bar focused): the toolkit does it, the app cannot change it.",
    needs: Needs::Nothing,
    check: focused_not_focusable,
};

fn focused_not_focusable(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.nodes().iter().enumerate() {
        if n.states.has(State::Focused)
            && !n.states.has(State::Focusable)
            && n.role != Role::Document
            && !is_window(n.role)
            && !item_of_composite(n.role)
        {
            out.push(Hit::new(
                row,
                format!("{} is focused, not focusable", shown(n)),
            ));
        }
    }
}

fn is_window(role: Role) -> bool {
    matches!(
        role,
        Role::Frame | Role::Window | Role::Dialog | Role::Alert | Role::Application
    )
}

pub(super) const FOCUS_MULTIPLE: Rule = Rule {
    id: "focus-multiple",
    group: "keyboard",
    severity: Severity::Error,
    message: "more than one element in a window says it has the keyboard focus",
    standard: "WCAG 2.4.7",
    anchor: "treeglass (state consistency)",
    help: "Only one element of a window has the keyboard focus. When several report \
           `focused`, a screen reader announces the wrong one and the user cannot tell \
           where keys will go. A widget must drop `focused` (and emit the state change) \
           when the focus leaves it.",
    needs: Needs::Nothing,
    check: focus_multiple,
};

fn focus_multiple(cx: &Context, out: &mut Vec<Hit>) {
    let nodes = cx.nodes();
    // The nearest window of each focused element.
    let mut by_window: Vec<(usize, Vec<usize>)> = Vec::new();
    for (row, n) in nodes.iter().enumerate() {
        if !n.states.has(State::Focused) || is_window(n.role) {
            continue;
        }
        let window = cx
            .ancestors(row)
            .find(|(_, a)| is_window(a.role))
            .map_or(0, |(r, _)| r);
        match by_window.iter_mut().find(|(w, _)| *w == window) {
            Some((_, rows)) => rows.push(row),
            None => by_window.push((window, vec![row])),
        }
    }
    for (window, rows) in by_window {
        if rows.len() < 2 {
            continue;
        }
        let others = |me: usize| -> String {
            rows.iter()
                .filter(|&&r| r != me)
                .take(3)
                .map(|&r| shown(&nodes[r]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for &r in &rows {
            out.push(Hit::new(
                r,
                format!(
                    "one of {} focused elements in {} (also {})",
                    rows.len(),
                    nodes.get(window).map(shown).unwrap_or_default(),
                    others(r)
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::model::{Interface, Role, State};

    fn actionable(mut n: crate::model::Node) -> crate::model::Node {
        n.interfaces.set(Interface::Action, true);
        n
    }

    #[test]
    fn action_not_focusable_fires_on_a_button_out_of_the_tab_order() {
        let snap = tree(vec![
            (actionable(n(Role::Button, "Stuck")), vec![]),
            (focusable(actionable(n(Role::Button, "Fine"))), vec![]),
            (
                without(
                    without(actionable(n(Role::Button, "Off")), State::Enabled),
                    State::Sensitive,
                ),
                vec![],
            ),
            (
                focusable(n(Role::List, "Fruits")),
                vec![actionable(n(Role::ListItem, "Apple"))],
            ),
            (
                n(Role::Menu, "File"),
                vec![actionable(n(Role::Button, "In a menu"))],
            ),
        ]);
        let got = rows(&snap, "action-not-focusable");
        assert_eq!(got, named(&snap, "Stuck"));
    }

    #[test]
    fn focused_not_focusable_fires_without_the_ability() {
        let snap = tree(vec![
            (with(n(Role::Button, "Odd"), State::Focused), vec![]),
            (
                with(focusable(n(Role::Button, "Fine")), State::Focused),
                vec![],
            ),
        ]);
        assert_eq!(rows(&snap, "focused-not-focusable"), named(&snap, "Odd"));
    }

    #[test]
    fn focus_multiple_fires_on_two_focused_elements_only() {
        let one = tree(vec![
            (with(focusable(n(Role::Text, "A")), State::Focused), vec![]),
            (focusable(n(Role::Text, "B")), vec![]),
        ]);
        assert!(rows(&one, "focus-multiple").is_empty());
        let two = tree(vec![
            (with(focusable(n(Role::Text, "A")), State::Focused), vec![]),
            (with(focusable(n(Role::Text, "B")), State::Focused), vec![]),
        ]);
        assert_eq!(rows(&two, "focus-multiple"), vec![1, 2]);
    }
}
