//! The exclusive overlays — help, copy menu, action menu, set-value prompt, filter editing,
//! the changes and findings lists — as
//! one [`Mode`]: whichever is open takes the keys. The set-value prompt's forms live here too.

use crossterm::event::{KeyCode, KeyEvent};

use super::app::{App, Effect};
use super::copy::CopyKind;
use super::input::LineInput;
use super::keys::{self, Action};
use crate::model::{AppText, NodeId, Role, State, Toggle, Value};

/// The overlay that takes the keys. At most one is open: opening one closes whatever was open.
#[derive(Debug, Clone, Default)]
pub enum Mode {
    /// The main view: keys go through the keymap.
    #[default]
    Normal,
    /// The `?` overlay, scrolled this many lines.
    Help { scroll: u16 },
    /// The `y` menu: the next key chooses what to copy. Each text is computed once, when
    /// the menu opens (a workflow step costs a target search on a big tree).
    Copy(Vec<(CopyKind, Result<String, String>)>),
    /// The `a` menu.
    Actions(ActionMenu),
    /// The set-value prompt.
    Prompt(Prompt),
    /// Typing in the filter bar.
    Filter,
    /// A list of changed elements (`c`, `D`).
    Changes(super::changes::ChangeList),
    /// The findings of the accessibility checks, by severity (`!`); the chosen one's index
    /// in `Report::by_severity`.
    Findings { selected: usize },
}

/// The set-value prompt.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub node: NodeId,
    pub row: usize,
    /// The node's line (escaped).
    pub title: String,
    pub kind: PromptKind,
    /// Said above the input: disabled element, last write unconfirmed, …
    pub warning: Option<String>,
}

#[derive(Debug, Clone)]
pub enum PromptKind {
    Text {
        input: LineInput,
        secret: bool,
    },
    Number {
        input: LineInput,
        min: Option<f64>,
        max: Option<f64>,
        step: Option<f64>,
    },
    Toggle {
        on: bool,
    },
    Options {
        /// The option labels as the app gave them (shown escaped, written as they are).
        options: Vec<AppText>,
        selected: usize,
    },
    /// Select a tab, list row or tree row.
    Select,
}

/// The `a` menu: one of the node's actions.
#[derive(Debug, Clone)]
pub struct ActionMenu {
    pub node: NodeId,
    /// The element's action names as the app gave them (shown escaped, invoked as they are).
    pub actions: Vec<AppText>,
    pub selected: usize,
}

impl App {
    pub(super) fn help_key(&mut self, k: KeyEvent) {
        let Mode::Help { scroll } = &mut self.mode else {
            return;
        };
        match k.code {
            KeyCode::Up => *scroll = scroll.saturating_sub(1),
            KeyCode::Down => *scroll = scroll.saturating_add(1),
            KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
            KeyCode::PageDown => *scroll = scroll.saturating_add(10),
            _ => {
                if keys::action_for(&k) == Some(Action::Quit) && k.code != KeyCode::Char('q') {
                    self.quit = true;
                }
                self.mode = Mode::Normal;
            }
        }
    }

    pub(super) fn copy_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) {
        let Mode::Copy(items) = std::mem::take(&mut self.mode) else {
            return;
        };
        let KeyCode::Char(c) = k.code else {
            return;
        };
        let Some(what) = CopyKind::from_key(c) else {
            return;
        };
        match items.into_iter().find(|(k, _)| *k == what) {
            Some((_, Ok(text))) => fx.push(Effect::Copy { what, text }),
            Some((_, Err(e))) => self.notice = Some(format!("cannot copy the {what}: {e}")),
            None => {}
        }
    }

    pub(super) fn action_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) {
        let Mode::Actions(menu) = &mut self.mode else {
            return;
        };
        match k.code {
            KeyCode::Up => menu.selected = menu.selected.saturating_sub(1),
            KeyCode::Down => {
                menu.selected = (menu.selected + 1).min(menu.actions.len().saturating_sub(1))
            }
            KeyCode::Enter => {
                let node = menu.node.clone();
                let action = menu.actions.get(menu.selected).cloned();
                self.mode = Mode::Normal;
                self.start_invoke(node, action, fx);
            }
            KeyCode::Esc | KeyCode::Char('q') => self.mode = Mode::Normal,
            _ => {}
        }
    }

    // ----- set value -----

    pub(super) fn open_prompt(&mut self) {
        let Some((row, node)) = self.selected_node() else {
            self.notice = Some("no element selected".into());
            return;
        };
        let title = crate::model::display::node_line(node);
        let mut warning = None;
        if !node.is_enabled() {
            warning = Some("this element is disabled: the write will be refused".to_string());
        } else if node.states.has(State::ReadOnly) {
            warning = Some("this element is read-only: the write will be refused".to_string());
        }
        if self.unconfirmed.contains(&node.id) {
            warning = Some(
                "the last write here was UNCONFIRMED: observe the tree before writing again".into(),
            );
        }
        let role = node.role;
        let kind = if role.is_choice() {
            let options = self.options_of(row);
            let current = match &node.value {
                Some(Value::Choice { selected: Some(s) }) => Some(s.clone()),
                _ => None,
            };
            let selected = current
                .and_then(|c| options.iter().position(|o| *o == c))
                .unwrap_or(0);
            if options.is_empty() {
                self.notice = Some("this combo box lists no options in the tree".into());
                return;
            }
            PromptKind::Options { options, selected }
        } else if role.is_toggle() || role == Role::Expander {
            let on = if role == Role::Expander {
                node.states.has(State::Expanded)
            } else {
                node.states.has(State::Checked)
                    || matches!(node.value, Some(Value::Toggle { state: Toggle::On }))
            };
            PromptKind::Toggle { on }
        } else if role.is_numeric() {
            let (cur, min, max, step) = match node.value {
                Some(Value::Number {
                    current,
                    min,
                    max,
                    step,
                }) => (current, min, max, step),
                _ => (0.0, None, None, None),
            };
            PromptKind::Number {
                input: LineInput::with(crate::model::format_number(cur)),
                min,
                max,
                step,
            }
        } else if role.is_selectable_item() {
            PromptKind::Select
        } else if node.is_editable_kind() {
            let secret = node.is_secret();
            let text = if secret {
                String::new()
            } else {
                // The field's text, to be edited: the input line shows it escaped.
                match &node.value {
                    Some(v) => v.as_text().unwrap_or_default().as_str().to_string(),
                    None => String::new(),
                }
            };
            PromptKind::Text {
                input: LineInput::with(text),
                secret,
            }
        } else {
            self.notice = Some(format!(
                "a {role} does not take a value; {} runs its action",
                keys::label_of(Action::Invoke)
            ));
            return;
        };
        self.mode = Mode::Prompt(Prompt {
            node: node.id.clone(),
            row,
            title,
            kind,
            warning,
        });
    }

    /// A combo box's option labels from the tree: its items, or its single menu's items.
    pub(super) fn options_of(&self, row: usize) -> Vec<AppText> {
        let Some(tree) = &self.tree else {
            return Vec::new();
        };
        let Some(n) = tree.node(row) else {
            return Vec::new();
        };
        let mut kids = n.children.clone();
        if let [only] = kids.as_slice()
            && tree
                .node(*only)
                .is_some_and(|m| matches!(m.role, Role::Menu | Role::List))
        {
            kids = tree
                .node(*only)
                .map(|m| m.children.clone())
                .unwrap_or_default();
        }
        kids.iter()
            .filter_map(|&k| tree.node(k))
            .map(|k| k.name.clone())
            .collect()
    }

    pub(super) fn prompt_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) {
        let Mode::Prompt(p) = &mut self.mode else {
            return;
        };
        match k.code {
            KeyCode::Esc => {
                self.mode = Mode::Normal;
                return;
            }
            KeyCode::Enter => {
                let value = match &p.kind {
                    PromptKind::Text { input, .. } | PromptKind::Number { input, .. } => {
                        input.text.clone()
                    }
                    PromptKind::Toggle { on } => on.to_string(),
                    // The option's own label is the value asked for: matched against the
                    // combo's options when the write is planned.
                    PromptKind::Options { options, selected } => options
                        .get(*selected)
                        .map(|o| o.as_str().to_string())
                        .unwrap_or_default(),
                    PromptKind::Select => "true".into(),
                };
                let node = p.node.clone();
                let row = p.row;
                self.mode = Mode::Normal;
                self.start_set(row, node, value, fx);
                return;
            }
            _ => {}
        }
        match &mut p.kind {
            PromptKind::Text { input, .. } | PromptKind::Number { input, .. } => {
                input.key(&k);
            }
            PromptKind::Toggle { on } => {
                if matches!(
                    k.code,
                    KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right | KeyCode::Tab
                ) {
                    *on = !*on;
                }
            }
            PromptKind::Options { options, selected } => match k.code {
                KeyCode::Up => *selected = selected.saturating_sub(1),
                KeyCode::Down => *selected = (*selected + 1).min(options.len().saturating_sub(1)),
                KeyCode::Home => *selected = 0,
                KeyCode::End => *selected = options.len().saturating_sub(1),
                _ => {}
            },
            PromptKind::Select => {}
        }
    }
}
