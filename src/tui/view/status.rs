//! The banner (e.g. "no accessibility bus: showing the demo app") and the status line: the
//! latest notice or key hints on the left, recording / follow-focus / the findings count /
//! backend on the right.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{fit, pad, theme};
use crate::model::sanitize;
use crate::tui::app::App;

pub fn banner(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let Some(text) = &app.config.banner else {
        return;
    };
    if area.height == 0 {
        return;
    }
    let width = area.width as usize;
    let line = pad(
        fit(
            Line::from(Span::raw(format!(" ⚠ {}", sanitize(text, 300)))),
            width,
        ),
        width,
    )
    .style(theme::banner());
    frame.render_widget(Paragraph::new(line), area);
}

pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.height == 0 {
        return;
    }
    let mut right: Vec<Span<'static>> = Vec::new();
    if app.recording {
        right.push(Span::styled(" ● REC ", theme::gone()));
        right.push(Span::raw(" "));
    }
    if app.follow_focus {
        right.push(Span::styled("follow-focus ", theme::OK));
    }
    // The accessibility checks on the shown tree (`!` lists them).
    if app.audit_waiting() {
        right.push(Span::styled(
            "audit: waiting for the whole tree  ",
            theme::DIM,
        ));
    } else if let Some(r) = app.report() {
        let n = r.findings.len();
        let style = r.worst_overall().map_or(theme::OK, super::severity_style);
        right.push(Span::styled(
            format!(
                "◆ {}  ",
                crate::model::display::counted(n, "finding", "findings")
            ),
            style,
        ));
    }
    right.push(Span::styled(format!("{} ", app.config.backend), theme::DIM));
    let right = Line::from(right);
    let rw = right.width() as u16;
    let left = match &app.notice {
        Some(n) => Line::from(Span::styled(format!(" {}", sanitize(n, 200)), theme::WARN)),
        None => {
            let hint = if app.prompt().is_some() {
                "Enter write and read back · Esc cancel"
            } else if app.filter_editing() {
                "typing a filter · Enter keep · Esc clear · ↑↓ matches"
            } else {
                "? help · / filter · n/N matches · e set · i invoke · y copy · f follow · v events · q quit"
            };
            Line::from(Span::styled(format!(" {hint}"), theme::DIM))
        }
    };
    let lw = area.width.saturating_sub(rw);
    // One blank column between the two sides; the left is cut with an ellipsis.
    let left = fit(left, lw.saturating_sub(1) as usize);
    frame.render_widget(Paragraph::new(left), Rect { width: lw, ..area });
    frame.render_widget(
        Paragraph::new(right),
        Rect {
            x: area.x + lw,
            width: rw.min(area.width),
            ..area
        },
    );
}
