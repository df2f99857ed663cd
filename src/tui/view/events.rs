//! The events pane: raw accessibility events for the shown window, newest at the bottom.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{block, theme};
use crate::tui::app::{App, Pane};

pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let b = block(
        app,
        Some(Pane::Events),
        Line::from(Span::styled(
            format!(" Events ({}) ", app.events.len()),
            theme::LABEL,
        )),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let h = inner.height as usize;
    let end = app.events.len().saturating_sub(app.events_scroll);
    let start = end.saturating_sub(h);
    let out: Vec<Line<'static>> = app
        .events
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
