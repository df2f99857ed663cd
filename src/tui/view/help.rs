//! The `?` overlay: every key, generated from the keymap table (main view on the left, the
//! filter bar, prompt, writes pane and mouse on the right; one column on narrow screens).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::theme;
use crate::tui::app::{App, Mode};
use crate::tui::keys::{BINDINGS, MODE_HELP};

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

/// The keys of the filter bar, overlays and mouse.
pub fn mode_lines() -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (section, keys) in MODE_HELP {
        if !out.is_empty() {
            out.push(Line::from(""));
        }
        out.push(Line::from(Span::styled(*section, theme::NAME)));
        for (k, h) in *keys {
            out.push(Line::from(vec![
                Span::styled(format!("  {k:<14}"), theme::MATCH),
                Span::raw(*h),
            ]));
        }
    }
    out
}

pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
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
    let scroll = match app.mode {
        Mode::Help { scroll } => scroll,
        _ => 0,
    };
    for (rect, lines) in cols {
        frame.render_widget(
            Paragraph::new(lines).scroll((scroll.min(max_scroll), 0)),
            rect,
        );
    }
}
