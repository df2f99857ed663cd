//! The keymap: one table maps keys to actions and is also the help overlay's text, so the two
//! cannot drift apart.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key does in the main view (each overlay and pane lists its own keys: `Overlay::help`,
/// `Unit::help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    CollapseOrParent,
    ExpandOrChild,
    ToggleExpand,
    CollapseAll,
    ExpandAll,
    ToggleRaw,
    ShowingOnly,
    Highlight,
    Filter,
    NextMatch,
    PrevMatch,
    HideNonMatching,
    SetValue,
    Invoke,
    ActionMenu,
    WriteChanges,
    Mark,
    MarkDiff,
    Findings,
    NextFinding,
    PrevFinding,
    CopyMenu,
    FollowFocus,
    ToggleEvents,
    DetailsDown,
    DetailsUp,
    NextPane,
    PrevPane,
    Record,
    Export,
    Refresh,
    Help,
    Quit,
    Escape,
}

/// A key: code plus the modifiers that must be held (Shift is ignored for characters, since
/// the character itself says it: `N` is Shift-n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
}

const fn k(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: true,
    }
}

const fn code(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

/// One row of the keymap: the keys, how the help shows them, what they do.
pub struct Binding {
    pub keys: &'static [Key],
    pub label: &'static str,
    pub action: Action,
    pub help: &'static str,
}

/// Every key of the main view, in help order.
pub const BINDINGS: &[Binding] = &[
    Binding {
        keys: &[code(KeyCode::Up), k('k')],
        label: "↑ k",
        action: Action::Up,
        help: "previous line",
    },
    Binding {
        keys: &[code(KeyCode::Down), k('j')],
        label: "↓ j",
        action: Action::Down,
        help: "next line",
    },
    Binding {
        keys: &[code(KeyCode::PageUp)],
        label: "PgUp",
        action: Action::PageUp,
        help: "page up",
    },
    Binding {
        keys: &[code(KeyCode::PageDown)],
        label: "PgDn",
        action: Action::PageDown,
        help: "page down",
    },
    Binding {
        keys: &[code(KeyCode::Home), k('g')],
        label: "Home g",
        action: Action::First,
        help: "first line",
    },
    Binding {
        keys: &[code(KeyCode::End), k('G')],
        label: "End G",
        action: Action::Last,
        help: "last line",
    },
    Binding {
        keys: &[code(KeyCode::Left), k('h')],
        label: "← h",
        action: Action::CollapseOrParent,
        help: "collapse, or go to the parent",
    },
    Binding {
        keys: &[code(KeyCode::Right), k('l')],
        label: "→ l",
        action: Action::ExpandOrChild,
        help: "expand, or go to the first child",
    },
    Binding {
        keys: &[k(' ')],
        label: "Space",
        action: Action::ToggleExpand,
        help: "collapse/expand the selected node",
    },
    Binding {
        keys: &[k('-')],
        label: "-",
        action: Action::CollapseAll,
        help: "collapse everything below the window",
    },
    Binding {
        keys: &[k('+'), k('=')],
        label: "+",
        action: Action::ExpandAll,
        help: "expand everything",
    },
    Binding {
        keys: &[k('T')],
        label: "T",
        action: Action::ToggleRaw,
        help: "raw tree ⇄ folded tree (wrappers fold into their child)",
    },
    Binding {
        keys: &[k('s')],
        label: "s",
        action: Action::ShowingOnly,
        help: "only what is showing (and its ancestors) ⇄ everything",
    },
    Binding {
        keys: &[k('o')],
        label: "o",
        action: Action::Highlight,
        help: "hold the on-screen frame around the selection (X11)",
    },
    Binding {
        keys: &[k('/')],
        label: "/",
        action: Action::Filter,
        help: "filter: type a target (or plain text)",
    },
    Binding {
        keys: &[k('n')],
        label: "n",
        action: Action::NextMatch,
        help: "next match",
    },
    Binding {
        keys: &[k('N')],
        label: "N",
        action: Action::PrevMatch,
        help: "previous match",
    },
    Binding {
        keys: &[k('H')],
        label: "H",
        action: Action::HideNonMatching,
        help: "hide/show branches without matches",
    },
    Binding {
        keys: &[k('e'), code(KeyCode::Enter)],
        label: "e Enter",
        action: Action::SetValue,
        help: "set the value (text, number, toggle, option)",
    },
    Binding {
        keys: &[k('i')],
        label: "i",
        action: Action::Invoke,
        help: "invoke the default action (press/activate)",
    },
    Binding {
        keys: &[k('a')],
        label: "a",
        action: Action::ActionMenu,
        help: "choose one of the node's actions to invoke",
    },
    Binding {
        keys: &[k('c')],
        label: "c",
        action: Action::WriteChanges,
        help: "what the selected write changed elsewhere; Enter: go",
    },
    Binding {
        keys: &[k('m')],
        label: "m",
        action: Action::Mark,
        help: "mark the tree, to compare it later (D)",
    },
    Binding {
        keys: &[k('D')],
        label: "D",
        action: Action::MarkDiff,
        help: "what changed since the mark; Enter: go to it",
    },
    Binding {
        keys: &[k('!')],
        label: "!",
        action: Action::Findings,
        help: "accessibility findings by severity; Enter: go to it",
    },
    Binding {
        keys: &[k(']')],
        label: "]",
        action: Action::NextFinding,
        help: "next element with findings (tree order)",
    },
    Binding {
        keys: &[k('[')],
        label: "[",
        action: Action::PrevFinding,
        help: "previous element with findings",
    },
    Binding {
        keys: &[k('y')],
        label: "y",
        action: Action::CopyMenu,
        help: "copy: token, target, value, node JSON, workflow step",
    },
    Binding {
        keys: &[k('f')],
        label: "f",
        action: Action::FollowFocus,
        help: "follow focus: select the focused element as focus moves",
    },
    Binding {
        keys: &[k('v')],
        label: "v",
        action: Action::ToggleEvents,
        help: "show/hide the raw events pane",
    },
    Binding {
        keys: &[k('J')],
        label: "J",
        action: Action::DetailsDown,
        help: "scroll the details pane down",
    },
    Binding {
        keys: &[k('K')],
        label: "K",
        action: Action::DetailsUp,
        help: "scroll the details pane up",
    },
    Binding {
        keys: &[code(KeyCode::Tab)],
        label: "Tab",
        action: Action::NextPane,
        help: "next pane (apps, tree, writes, events)",
    },
    Binding {
        keys: &[code(KeyCode::BackTab)],
        label: "S-Tab",
        action: Action::PrevPane,
        help: "previous pane",
    },
    Binding {
        keys: &[k('r')],
        label: "r",
        action: Action::Record,
        help: "start/stop recording writes as a workflow",
    },
    Binding {
        keys: &[k('w')],
        label: "w",
        action: Action::Export,
        help: "export the recorded workflow",
    },
    Binding {
        keys: &[code(KeyCode::F(5)), ctrl('r')],
        label: "F5 ^R",
        action: Action::Refresh,
        help: "re-read the window and the app list",
    },
    Binding {
        keys: &[k('?')],
        label: "?",
        action: Action::Help,
        help: "this help",
    },
    Binding {
        keys: &[k('q'), ctrl('c')],
        label: "q ^C",
        action: Action::Quit,
        help: "quit",
    },
    Binding {
        keys: &[code(KeyCode::Esc)],
        label: "Esc",
        action: Action::Escape,
        help: "close an overlay, stop a read, clear the filter",
    },
];

/// The main-view action for a key press.
pub fn action_for(ev: &KeyEvent) -> Option<Action> {
    let ctrl_held = ev.modifiers.contains(KeyModifiers::CONTROL);
    BINDINGS
        .iter()
        .find(|b| {
            b.keys
                .iter()
                .any(|key| key.code == ev.code && key.ctrl == ctrl_held)
        })
        .map(|b| b.action)
}

/// The help label of an action's keys (for hints in the status line).
pub fn label_of(action: Action) -> &'static str {
    BINDINGS
        .iter()
        .find(|b| b.action == action)
        .map_or("", |b| b.label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice() {
        let mut seen: Vec<Key> = Vec::new();
        for b in BINDINGS {
            for key in b.keys {
                assert!(!seen.contains(key), "{key:?} bound twice");
                seen.push(*key);
            }
        }
    }

    #[test]
    fn lookups() {
        let ev = KeyEvent::new(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert_eq!(action_for(&ev), Some(Action::PrevMatch));
        let ev = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&ev), Some(Action::Quit));
        let ev = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(action_for(&ev), Some(Action::WriteChanges));
        let ev = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        assert_eq!(action_for(&ev), None);
        assert_eq!(label_of(Action::Help), "?");
    }
}
