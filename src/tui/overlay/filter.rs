//! Typing in the filter bar: its keys (the target is edited, the badge and matches follow
//! each keystroke, arrows move between matches), pasted text, and the bar itself — the target
//! being typed, the uniqueness badge, and a parse error pointing at its column. The filter
//! (its matches, jumping between them, hiding branches) is `tui::filter`'s.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Mode, Section};
use crate::model::sanitize;
use crate::tui::app::{App, Badge, Effect};
use crate::tui::view::{block, theme};

/// Typing in the bar holds nothing of its own: the text is the filter's.
#[derive(Debug, Clone, Default)]
pub struct State;

pub(crate) struct Unit;

impl super::Overlay for Unit {
    fn key(&self, app: &mut App, k: KeyEvent, _fx: &mut Vec<Effect>) {
        match k.code {
            KeyCode::Enter => {
                app.mode = Mode::Normal;
                if app.filter.active() {
                    let on_match = app
                        .selected_node()
                        .is_some_and(|(r, _)| app.filter.is_match(r));
                    if !on_match {
                        app.jump_match(true, true);
                    }
                } else {
                    app.clear_filter();
                }
            }
            KeyCode::Esc => app.clear_filter(),
            KeyCode::Down => app.jump_match(true, false),
            KeyCode::Up => app.jump_match(false, false),
            KeyCode::Tab => {}
            _ => {
                if app.filter.input.key(&k) == Some(true) {
                    app.refilter();
                    app.incsearch();
                }
            }
        }
    }

    /// Pasted text joins the target on one line.
    fn paste(&self, app: &mut App, text: &str) {
        let one_line: String = text
            .chars()
            .map(|c| if c == '\n' { ' ' } else { c })
            .collect();
        app.filter.input.insert_str(&one_line);
        app.refilter();
        app.incsearch();
    }

    /// The tree stays in reach: a click selects a line while the target is typed.
    fn lets_mouse_through(&self) -> bool {
        true
    }

    /// The bar is drawn with the panes, typing or not ([`bar`]).
    fn render(&self, _app: &App, _frame: &mut Frame<'_>, _over: Rect) {}

    fn help(&self) -> Option<Section> {
        Some((
            "Filter bar",
            &[
                ("text", "edit the target; badge and matches update live"),
                ("Enter", "keep the filter and go to the first match"),
                ("Esc", "clear the filter"),
                ("← → Home End", "move the cursor; ^U clears"),
                ("↑ ↓", "previous/next match while typing"),
            ],
        ))
    }
}

/// The filter bar, typing or not: the target, its badge, and a hint or the parse error.
pub(crate) fn bar(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let f = &app.filter;
    let editing = app.filter_editing();
    let title = Line::from(Span::styled(
        if editing {
            " Filter (typing) "
        } else {
            " Filter "
        },
        if editing { theme::OK } else { theme::LABEL },
    ));
    let mut b = block(app, None, title);
    if editing {
        b = b.border_style(theme::FOCUS_BORDER);
    }
    if let Some(badge) = f.badge {
        let style = match badge {
            Badge::Unique => theme::OK,
            Badge::Many(_) | Badge::Incomplete { .. } | Badge::Reading { .. } => theme::WARN,
            Badge::NoMatch | Badge::Error => theme::BAD,
            Badge::None => theme::DIM,
        };
        b = b.title_top(
            Line::from(Span::styled(format!(" {} ", badge.text()), style)).right_aligned(),
        );
    }
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let shown = sanitize(&f.input.text, 0);
    let mut lines = vec![Line::from(vec![
        Span::styled("/ ", theme::MATCH),
        Span::raw(shown.into_owned()),
    ])];
    if let Some(e) = &f.error {
        let col = e.column.saturating_sub(1);
        lines.push(Line::from(vec![
            Span::raw(" ".repeat(2 + col)),
            Span::styled(format!("^ column {}: {}", e.column, e.message), theme::BAD),
        ]));
    } else if f.active() {
        let hint = if f
            .target
            .as_ref()
            .is_some_and(|t| t.query().is_some() && t.role().is_none() && t.states().is_empty())
            && !f.input.text.contains('"')
        {
            format!(
                "text search for {} · ",
                crate::tui::quoted(f.input.text.trim(), 60)
            )
        } else {
            String::new()
        };
        lines.push(Line::from(Span::styled(
            format!("{hint}n/N next/prev · H hide non-matching · Enter keep · Esc clear"),
            theme::DIM,
        )));
    } else if editing {
        lines.push(Line::from(Span::styled(
            "a target: button \"Save\" · text [editable] in group \"Profile\" · or plain text",
            theme::DIM,
        )));
    } else {
        lines.push(Line::from(Span::styled(
            "/ to filter by target or text",
            theme::DIM,
        )));
    }
    frame.render_widget(Paragraph::new(lines), inner);
    if editing {
        let x = inner.x + 2 + f.input.cursor_chars() as u16;
        frame.set_cursor_position(Position::new(
            x.min(inner.x + inner.width.saturating_sub(1)),
            inner.y,
        ));
    }
}
