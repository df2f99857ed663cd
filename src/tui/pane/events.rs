//! The events pane: raw accessibility events for the shown window, newest at the bottom.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use std::collections::VecDeque;

use super::Pane;
use crate::tui::app::{App, EVENTS_KEPT, Effect};
use crate::tui::keys::Action;
use crate::tui::layout::Place;
use crate::tui::view::{block, theme};

/// The events pane's state.
#[derive(Debug, Default)]
pub struct State {
    /// The events kept, oldest first (at most `EVENTS_KEPT`).
    pub lines: VecDeque<String>,
    /// Lines scrolled up from the newest.
    pub scroll: usize,
    /// Shown (`v` turns it on and off).
    pub shown: bool,
}

impl State {
    /// Keeps one more event line, dropping the oldest past `EVENTS_KEPT`.
    pub(crate) fn push(&mut self, line: String) {
        if self.lines.len() >= EVENTS_KEPT {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}

pub(crate) struct Unit;

impl super::Unit for Unit {
    fn place(&self) -> Place {
        Place::Bottom
    }

    /// Shown while `v` has it on.
    fn shown(&self, app: &App) -> bool {
        app.panes.events.shown
    }

    fn takes_focus(&self, area: Rect) -> bool {
        area.height > 0
    }

    fn key(&self, app: &mut App, action: Action, _fx: &mut Vec<Effect>) -> bool {
        if !super::moves(action) {
            return false;
        }
        let max = app.panes.events.lines.len().saturating_sub(1);
        // The scroll counts lines up from the newest, at the bottom.
        let scroll = &mut app.panes.events.scroll;
        *scroll = max - super::step(max.saturating_sub(*scroll), max, action, 10);
        true
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, area: Rect) {
        render(app, frame, area);
    }
}

impl App {
    /// `v`: shows or hides the pane (and gives the focus back to the tree when it had it).
    pub(crate) fn toggle_events(&mut self) {
        let shown = &mut self.panes.events.shown;
        *shown = !*shown;
        if !*shown && self.focus == Pane::Events {
            self.focus = Pane::Tree;
        }
    }
}

fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let b = block(
        app,
        Some(Pane::Events),
        Line::from(Span::styled(
            format!(" Events ({}) ", app.panes.events.lines.len()),
            theme::LABEL,
        )),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let h = inner.height as usize;
    let end = app
        .panes
        .events
        .lines
        .len()
        .saturating_sub(app.panes.events.scroll);
    let start = end.saturating_sub(h);
    let out: Vec<Line<'static>> = app
        .panes
        .events
        .lines
        .range(start..end)
        .map(|e| Line::from(Span::raw(crate::model::sanitize(e, 0).into_owned())))
        .collect();
    if out.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled("no events for this window yet", theme::DIM)),
            inner,
        );
    } else {
        frame.render_widget(Paragraph::new(out), inner);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Pane;
    use super::super::testing::{app, draw, rows};

    #[test]
    fn the_newest_events_at_the_bottom_and_scrolled_up_from_there() {
        let mut a = app(120, 40);
        assert_eq!(
            rows(&draw(&a, Pane::Events, 34, 3)),
            [
                "┌ Events (0) ────────────────────┐",
                "│no events for this window yet   │",
                "└────────────────────────────────┘",
            ]
        );
        for e in ["one", "two", "three\u{1b}[2J"] {
            a.panes.events.push(e.into());
        }
        assert_eq!(
            rows(&draw(&a, Pane::Events, 20, 4)),
            [
                "┌ Events (3) ──────┐",
                "│two               │",
                "│three\\x1b[2J      │",
                "└──────────────────┘",
            ]
        );
        a.panes.events.scroll = 1;
        assert_eq!(
            rows(&draw(&a, Pane::Events, 20, 4))[1..3],
            ["│one               │", "│two               │"]
        );
    }

    #[test]
    fn its_keys_scroll_within_what_it_holds() {
        use crate::tui::keys::Action;
        let mut a = app(120, 40);
        for i in 0..5 {
            a.panes.events.push(format!("event {i}"));
        }
        let unit = Pane::Events.unit();
        let mut fx = Vec::new();
        assert!(unit.key(&mut a, Action::PageUp, &mut fx));
        assert_eq!(a.panes.events.scroll, 4);
        assert!(unit.key(&mut a, Action::Down, &mut fx));
        assert_eq!(a.panes.events.scroll, 3);
        assert!(unit.key(&mut a, Action::Last, &mut fx));
        assert_eq!(a.panes.events.scroll, 0);
        assert!(!unit.key(&mut a, Action::SetValue, &mut fx));
        assert!(fx.is_empty());
    }
}
