//! The `?` overlay: every key, generated from the tables that drive them — the keymap (main
//! view, on the left) and the sections each overlay and pane gives for its own keys, then the
//! mouse (on the right; one column on narrow screens). Arrows scroll it; any other key closes
//! it.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::{Mode, Section};
use crate::tui::app::{App, Effect, Pane};
use crate::tui::keys::{self, Action, BINDINGS};
use crate::tui::view::theme;

/// The help overlay's state: scrolled this many lines.
#[derive(Debug, Clone, Default)]
pub struct State {
    pub scroll: u16,
}

/// The mouse, the same in every pane.
const MOUSE: Section = (
    "Mouse",
    &[
        ("click", "select a line, an app window or a write"),
        ("wheel", "scroll the pane under the pointer"),
    ],
);

pub(crate) struct Unit;

impl super::Overlay for Unit {
    fn key(&self, app: &mut App, k: KeyEvent, _fx: &mut Vec<Effect>) {
        let Mode::Help(State { scroll }) = &mut app.mode else {
            return;
        };
        match k.code {
            KeyCode::Up => *scroll = scroll.saturating_sub(1),
            KeyCode::Down => *scroll = scroll.saturating_add(1),
            KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
            KeyCode::PageDown => *scroll = scroll.saturating_add(10),
            _ => {
                if keys::action_for(&k) == Some(Action::Quit) && k.code != KeyCode::Char('q') {
                    app.quit = true;
                }
                app.mode = Mode::Normal;
            }
        }
    }

    fn holds_focus(&self) -> bool {
        true
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, _over: Rect) {
        render(app, frame, frame.area());
    }
}

/// The sections of keys outside the main view: each overlay's, each pane's, then the mouse.
pub(crate) fn sections() -> Vec<Section> {
    let overlays = Mode::ALL.iter().filter_map(|o| o.help());
    let panes = Pane::ALL.iter().filter_map(|p| p.unit().help());
    overlays.chain(panes).chain([MOUSE]).collect()
}

/// The main view's keys, one line each.
pub fn main_lines() -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled("Main view", theme::NAME))];
    for b in BINDINGS {
        out.push(Line::from(vec![
            Span::styled(format!("  {:<10}", b.label), theme::MATCH),
            Span::raw(b.help),
        ]));
    }
    out
}

/// The keys of the overlays, the panes and the mouse.
pub fn mode_lines() -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (section, keys) in sections() {
        if !out.is_empty() {
            out.push(Line::from(""));
        }
        out.push(Line::from(Span::styled(section, theme::NAME)));
        for (k, h) in keys {
            out.push(Line::from(vec![
                Span::styled(format!("  {k:<14}"), theme::MATCH),
                Span::raw(*h),
            ]));
        }
    }
    out
}

fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 10 || area.height < 5 {
        return;
    }
    let r = area;
    frame.render_widget(Clear, r);
    let b = Block::bordered()
        .border_style(theme::FOCUS_BORDER)
        .title(Span::styled(" Keys ", theme::NAME))
        .title_bottom(
            Line::from(Span::styled(
                " ↑↓ scroll · any other key closes ",
                theme::DIM,
            ))
            .right_aligned(),
        );
    let inner = b.inner(r);
    frame.render_widget(b, r);
    let left = main_lines();
    let right = mode_lines();
    let two = inner.width >= 100;
    let (cols, all): (Vec<(Rect, Vec<Line<'static>>)>, usize) = if two {
        let lw = inner.width / 2;
        let n = left.len().max(right.len());
        (
            vec![
                (Rect { width: lw, ..inner }, left),
                (
                    Rect {
                        x: inner.x + lw,
                        width: inner.width - lw,
                        ..inner
                    },
                    right,
                ),
            ],
            n,
        )
    } else {
        let mut one = left;
        one.push(Line::from(""));
        one.extend(right);
        let n = one.len();
        (vec![(inner, one)], n)
    };
    let max_scroll = (all as u16).saturating_sub(inner.height);
    let scroll = match &app.mode {
        Mode::Help(s) => s.scroll,
        _ => 0,
    };
    for (rect, lines) in cols {
        frame.render_widget(
            Paragraph::new(lines).scroll((scroll.min(max_scroll), 0)),
            rect,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Help lines fit half of a 140-column screen (68 cells).
    #[test]
    fn help_lines_are_short() {
        for b in BINDINGS {
            assert!(12 + b.help.chars().count() <= 68, "{}", b.help);
        }
        for (_, keys) in sections() {
            for (k, h) in keys {
                assert!(k.chars().count() <= 14, "{k}");
                assert!(16 + h.chars().count() <= 68, "{h}");
            }
        }
    }

    /// Each overlay and pane that lists keys lists them once, and the mouse comes last.
    #[test]
    fn sections_come_from_the_overlays_and_panes() {
        let titles: Vec<&str> = sections().iter().map(|s| s.0).collect();
        assert_eq!(
            titles,
            [
                "Filter bar",
                "Set-value prompt",
                "Changes list (c, D)",
                "Findings list (!)",
                "Apps pane (Tab to it)",
                "Writes pane (Tab to it)",
                "Mouse",
            ]
        );
    }
}
