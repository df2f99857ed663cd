//! The apps pane: every application on the bus with its windows; the shown window is marked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{block, fit, pad, theme};
use crate::tui::app::{App, Pane};

pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let b = block(
        app,
        Some(Pane::Apps),
        Line::from(Span::styled(
            format!(" Apps ({}) ", app.apps.len()),
            theme::LABEL,
        )),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let width = inner.width as usize;
    let entries = app.app_entries();
    let h = inner.height as usize;
    let offset = app.apps_sel.saturating_sub(h.saturating_sub(1));
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate().skip(offset).take(h) {
        let Some(a) = app.apps.get(e.app) else {
            continue;
        };
        let line = match e.window {
            None => {
                // An app that does not answer says so first: the pane is narrow.
                let mut s = Vec::new();
                if !a.responding {
                    s.push(Span::styled("⚠ ", theme::WARN));
                }
                s.push(Span::styled(a.name.literal(40).into_owned(), theme::NAME));
                if let Some(pid) = a.pid {
                    s.push(Span::styled(format!(" {pid}"), theme::DIM));
                }
                if !a.responding {
                    s.push(Span::styled(" not responding", theme::WARN));
                }
                Line::from(s)
            }
            Some(w) => {
                let Some(win) = a.windows.get(w) else {
                    continue;
                };
                let shown = app.shown.as_ref().is_some_and(|s| s.window == win.id);
                let title = if win.name.is_empty() {
                    format!("({})", win.role)
                } else {
                    win.name.literal(60).into_owned()
                };
                Line::from(vec![
                    Span::styled(if shown { " ▶ " } else { "   " }, theme::MATCH),
                    Span::styled(title, if shown { theme::OK } else { theme::LABEL }),
                ])
            }
        };
        let line = fit(line, width);
        out.push(if i == app.apps_sel && app.focus == Pane::Apps {
            pad(line, width).style(theme::selected())
        } else {
            line
        });
    }
    if entries.is_empty() {
        out.push(Line::from(Span::styled(
            if app.apps_loaded {
                "no applications"
            } else {
                "listing…"
            },
            theme::DIM,
        )));
        if let Some(report) = &app.diagnosis {
            out.extend(super::doctor::lines(report, None));
            // Prose in a narrow pane: wrapped, so no fix is cut off at its edge.
            frame.render_widget(Paragraph::new(out).wrap(Wrap { trim: false }), inner);
            return;
        }
    }
    frame.render_widget(Paragraph::new(out), inner);
}
