//! The set-value prompt (`e`, Enter): a form for the selected element's kind of value — text
//! (a password's is masked), a number with its range, on/off, a combo box's options, or
//! selecting an item — its keys, pasted text and its drawing. Enter starts the write.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Mode, Section, boxed};
use crate::model::{AppText, NodeId, Role, State as NodeState, Toggle, Value};
use crate::model::{format_number, sanitize};
use crate::tui::app::{App, Effect};
use crate::tui::input::LineInput;
use crate::tui::keys::{self, Action};
use crate::tui::view::{pad, theme};

/// While it is open: the prompt.
pub type State = Prompt;

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

pub(crate) struct Unit;

impl super::Overlay for Unit {
    fn key(&self, app: &mut App, k: KeyEvent, fx: &mut Vec<Effect>) {
        let Mode::Prompt(p) = &mut app.mode else {
            return;
        };
        match k.code {
            KeyCode::Esc => {
                app.mode = Mode::Normal;
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
                app.mode = Mode::Normal;
                app.start_set(row, node, value, fx);
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

    /// Pasted text goes into a text or number input.
    fn paste(&self, app: &mut App, text: &str) {
        if let Mode::Prompt(p) = &mut app.mode
            && let PromptKind::Text { input, .. } | PromptKind::Number { input, .. } = &mut p.kind
        {
            input.insert_str(text);
        }
    }

    fn holds_focus(&self) -> bool {
        true
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, over: Rect) {
        if let Mode::Prompt(p) = &app.mode {
            render(p, frame, over);
        }
    }

    fn help(&self) -> Option<Section> {
        Some((
            "Set-value prompt",
            &[
                ("Enter", "write the value, then read it back"),
                ("Esc", "cancel"),
                ("Space ← →", "toggle on/off (toggles)"),
                ("↑ ↓", "choose an option (combo boxes)"),
            ],
        ))
    }
}

impl App {
    pub(crate) fn open_prompt(&mut self) {
        let Some((row, node)) = self.selected_node() else {
            self.notice = Some("no element selected".into());
            return;
        };
        let title = crate::model::display::node_line(node);
        let mut warning = None;
        if !node.is_enabled() {
            warning = Some("this element is disabled: the write will be refused".to_string());
        } else if node.states.has(NodeState::ReadOnly) {
            warning = Some("this element is read-only: the write will be refused".to_string());
        }
        if self.writes.unconfirmed.contains(&node.id) {
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
                node.states.has(NodeState::Expanded)
            } else {
                node.states.has(NodeState::Checked)
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
    pub(crate) fn options_of(&self, row: usize) -> Vec<AppText> {
        let Some(tree) = &self.view.tree else {
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
}

fn render(p: &Prompt, frame: &mut Frame<'_>, area: Rect) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(w) = &p.warning {
        lines.push(Line::from(Span::styled(format!("⚠ {w}"), theme::BAD)));
    }
    let mut cursor: Option<(u16, usize)> = None;
    let hint;
    match &p.kind {
        PromptKind::Text { input, secret } => {
            let label = if *secret { "password: " } else { "text: " };
            let shown = if *secret {
                "•".repeat(input.text.chars().count())
            } else {
                sanitize(&input.text, 0).into_owned()
            };
            cursor = Some((
                lines.len() as u16,
                label.chars().count() + input.cursor_chars(),
            ));
            lines.push(Line::from(vec![
                Span::styled(label, theme::LABEL),
                Span::styled(shown, theme::VALUE),
            ]));
            if *secret {
                lines.push(Line::from(Span::styled(
                    "the field's text is never shown, logged or copied; the read-back compares its length",
                    theme::DIM,
                )));
            }
            hint = "Enter write · Esc cancel · ^U clear";
        }
        PromptKind::Number {
            input,
            min,
            max,
            step,
        } => {
            let label = format!(
                "number {}–{} (step {}): ",
                min.map_or("?".into(), format_number),
                max.map_or("?".into(), format_number),
                step.map_or("?".into(), format_number)
            );
            cursor = Some((
                lines.len() as u16,
                label.chars().count() + input.cursor_chars(),
            ));
            lines.push(Line::from(vec![
                Span::styled(label, theme::LABEL),
                Span::styled(sanitize(&input.text, 0).into_owned(), theme::VALUE),
            ]));
            hint = "Enter write · Esc cancel";
        }
        PromptKind::Toggle { on } => {
            let (a, b) = if *on { ("◉", "○") } else { ("○", "◉") };
            lines.push(Line::from(vec![
                Span::styled(format!("{a} on "), if *on { theme::OK } else { theme::DIM }),
                Span::raw("   "),
                Span::styled(format!("{b} off"), if *on { theme::DIM } else { theme::OK }),
            ]));
            hint = "Space ←→ switch · Enter write · Esc cancel";
        }
        PromptKind::Options { options, selected } => {
            lines.push(Line::from(Span::styled("options:", theme::LABEL)));
            for (i, o) in options.iter().enumerate() {
                let l = Line::from(format!(
                    " {} {}",
                    if i == *selected { "▶" } else { " " },
                    o.literal(60)
                ));
                lines.push(if i == *selected {
                    pad(l, 60).style(theme::selected())
                } else {
                    l
                });
            }
            hint = "↑↓ choose · Enter write · Esc cancel";
        }
        PromptKind::Select => {
            lines.push(Line::from("select this item (writes `true`)"));
            hint = "Enter select · Esc cancel";
        }
    }
    lines.push(Line::from(Span::styled(hint, theme::DIM)));
    let title = Line::from(vec![
        Span::styled(" Set value ", theme::NAME),
        Span::styled(format!("{} ", sanitize(&p.title, 60)), theme::LABEL),
    ]);
    let w = 76.min(area.width.saturating_sub(2));
    let inner = boxed(frame, area, w, lines.len() as u16 + 2, title);
    frame.render_widget(Paragraph::new(lines), inner);
    if let Some((dy, dx)) = cursor {
        let x = (inner.x as usize + dx).min((inner.x + inner.width).saturating_sub(1) as usize);
        frame.set_cursor_position(Position::new(x as u16, inner.y + dy));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::overlay::Overlay;
    use crate::tui::overlay::testing::draw;
    use crate::tui::pane::testing::{app, rows};

    fn open(kind: PromptKind) -> App {
        let mut a = app(120, 40);
        a.mode = Mode::Prompt(Prompt {
            node: NodeId("n".into()),
            row: 0,
            title: "text \"Password\"".into(),
            kind,
            warning: None,
        });
        a
    }

    #[test]
    fn a_password_is_masked_and_said_to_be_never_shown() {
        let a = open(PromptKind::Text {
            input: LineInput::with("hunter2"),
            secret: true,
        });
        let screen = rows(&draw(&a, 100, 7)).join("\n");
        assert!(screen.contains("password: •••••••"), "{screen}");
        assert!(!screen.contains("hunter2"), "{screen}");
        assert!(screen.contains("never shown"), "{screen}");
        assert!(screen.contains(" Set value text \"Password\""), "{screen}");
    }

    #[test]
    fn a_toggle_shows_its_choice_and_paste_goes_only_into_inputs() {
        let mut a = open(PromptKind::Toggle { on: true });
        let screen = rows(&draw(&a, 100, 6)).join("\n");
        assert!(screen.contains("◉ on    ○ off"), "{screen}");
        Unit.paste(&mut a, "text");
        assert!(matches!(
            a.prompt().map(|p| &p.kind),
            Some(PromptKind::Toggle { on: true })
        ));
        let mut a = open(PromptKind::Number {
            input: LineInput::with("4"),
            min: Some(0.0),
            max: Some(10.0),
            step: None,
        });
        Unit.paste(&mut a, "2");
        let screen = rows(&draw(&a, 100, 5)).join("\n");
        assert!(screen.contains("number 0–10 (step ?): 42"), "{screen}");
    }
}
