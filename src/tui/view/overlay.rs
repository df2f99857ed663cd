//! Overlays over the main view: the set-value prompt (text, number with its range, toggle,
//! option picker; password input is masked), the copy menu, the action menu, the changes list
//! and the findings list.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::{centered, pad, theme};
use crate::diff::Kind;
use crate::model::{format_number, sanitize};
use crate::tui::app::{ActionMenu, App, CopyKind, Mode, Prompt, PromptKind};
use crate::tui::changes::ChangeList;

pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    match &app.mode {
        Mode::Prompt(p) => prompt(p, frame, area),
        Mode::Copy(items) => copy_menu(items, frame, area),
        Mode::Actions(m) => action_menu(m, frame, area),
        Mode::Changes(list) => changes(list, frame, area),
        Mode::Findings { selected } => findings(app, *selected, frame, area),
        Mode::Normal | Mode::Help { .. } | Mode::Filter => {}
    }
}

fn boxed(frame: &mut Frame<'_>, area: Rect, w: u16, h: u16, title: Line<'static>) -> Rect {
    let r = centered(area, w, h);
    frame.render_widget(Clear, r);
    let b = Block::bordered()
        .border_style(theme::FOCUS_BORDER)
        .title(title);
    let inner = b.inner(r);
    frame.render_widget(b, r);
    inner
}

fn prompt(p: &Prompt, frame: &mut Frame<'_>, area: Rect) {
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

fn copy_menu(items: &[(CopyKind, Result<String, String>)], frame: &mut Frame<'_>, area: Rect) {
    let mut lines = Vec::new();
    for (what, text) in items {
        let (key, what) = (what.key(), what.label());
        let preview = match text {
            Ok(t) => {
                let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
                Span::styled(sanitize(&one, 48).into_owned(), theme::VALUE)
            }
            Err(e) => Span::styled(format!("({})", sanitize(e, 48)), theme::DIM),
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {key}  "), theme::MATCH),
            Span::styled(format!("{what:<14}"), theme::LABEL),
            preview,
        ]));
    }
    lines.push(Line::from(Span::styled(
        " any other key closes",
        theme::DIM,
    )));
    let inner = boxed(
        frame,
        area,
        76.min(area.width.saturating_sub(2)),
        lines.len() as u16 + 2,
        Line::from(Span::styled(" Copy ", theme::NAME)),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

fn action_menu(m: &ActionMenu, frame: &mut Frame<'_>, area: Rect) {
    let mut lines = Vec::new();
    for (i, a) in m.actions.iter().enumerate() {
        let l = Line::from(format!(" {}", a.literal(40)));
        lines.push(if i == m.selected {
            pad(l, 40).style(theme::selected())
        } else {
            l
        });
    }
    lines.push(Line::from(Span::styled(
        " ↑↓ choose · Enter invoke · Esc cancel",
        theme::DIM,
    )));
    let inner = boxed(
        frame,
        area,
        44,
        lines.len() as u16 + 2,
        Line::from(Span::styled(" Invoke action ", theme::NAME)),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The list of changed elements: notes on top, then each element with its fields; the
/// selected one is kept on screen.
fn changes(list: &ChangeList, frame: &mut Frame<'_>, area: Rect) {
    let w = area.width.saturating_sub(4).clamp(30, 110);
    let h = area.height.saturating_sub(2).max(6);
    let text_w = w.saturating_sub(2) as usize;
    let mut head: Vec<Line<'static>> = list
        .notes
        .iter()
        .map(|n| Line::from(Span::styled(format!(" {n}"), theme::LABEL)))
        .collect();
    head.push(Line::from(Span::styled(
        " ↑↓ choose · Enter go to it in the tree · Esc close",
        theme::DIM,
    )));
    let mut body: Vec<Line<'static>> = Vec::new();
    let mut sel_line = 0;
    for (i, item) in list.items.iter().enumerate() {
        let (mark, style) = match item.kind {
            Kind::Added => ("added  ", theme::OK),
            Kind::Removed => ("removed", theme::BAD),
            Kind::Changed => ("changed", theme::WARN),
            Kind::Moved => ("moved  ", theme::WARN),
        };
        if i == list.selected {
            sel_line = body.len();
        }
        let l = Line::from(vec![
            Span::styled(format!(" {mark} "), style),
            Span::raw(item.label.clone()),
        ]);
        body.push(if i == list.selected {
            pad(l, text_w).style(theme::selected())
        } else {
            l
        });
        // The path ends with the element itself: keep its end in view.
        let room = text_w.saturating_sub(13);
        let n = item.path.chars().count();
        let path = if n > room {
            let tail: String = item.path.chars().skip(n + 1 - room).collect();
            format!("…{tail}")
        } else {
            item.path.clone()
        };
        body.push(Line::from(Span::styled(
            format!("          in {path}"),
            theme::DIM,
        )));
        for d in &item.details {
            body.push(Line::from(Span::styled(
                format!("          {d}"),
                theme::DIM,
            )));
        }
    }
    let room = (h as usize).saturating_sub(head.len() + 2).max(1);
    let skip = sel_line.saturating_sub(room.saturating_sub(3));
    let mut lines = head;
    lines.extend(body.into_iter().skip(skip).take(room));
    let inner = boxed(
        frame,
        area,
        w,
        (lines.len() as u16 + 2).min(h),
        Line::from(Span::styled(
            format!(" {} ({}) ", list.title, list.items.len()),
            theme::NAME,
        )),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The accessibility findings, worst first: severity, rule, the element and its path; only
/// the entries on screen are built (a big tree can have thousands).
fn findings(app: &App, selected: usize, frame: &mut Frame<'_>, area: Rect) {
    let w = area.width.saturating_sub(4).clamp(30, 110);
    let h = area.height.saturating_sub(2).max(6);
    let text_w = w.saturating_sub(2) as usize;
    let (Some(r), Some(tree)) = (app.report(), app.tree.as_ref()) else {
        // The tree changed under the open list and is not judged yet (a big one).
        let inner = boxed(
            frame,
            area,
            w,
            3,
            Line::from(Span::styled(" Accessibility findings ", theme::NAME)),
        );
        frame.render_widget(
            Paragraph::new(Span::styled(
                " audit: checking the changed tree…",
                theme::DIM,
            )),
            inner,
        );
        return;
    };
    let mut head: Vec<Line<'static>> = Vec::new();
    let mut summary = r.summary();
    if !r.complete {
        summary.push_str(" — the tree was not read whole: only what was read is judged");
    }
    head.push(Line::from(Span::styled(
        format!(" {summary}"),
        theme::LABEL,
    )));
    if !r.not_evaluated.is_empty() {
        let ids: Vec<&str> = r.not_evaluated.iter().map(|n| n.rule).collect();
        head.push(Line::from(Span::styled(
            format!(
                " not evaluated: {} ({})",
                ids.join(", "),
                r.not_evaluated[0].reason
            ),
            theme::DIM,
        )));
    }
    head.push(Line::from(Span::styled(
        " ↑↓ choose · Enter go to it in the tree · Esc close",
        theme::DIM,
    )));
    // Two lines an entry; the chosen one kept on screen.
    let room = ((h as usize).saturating_sub(head.len() + 2) / 2).max(1);
    let skip = selected.saturating_sub(room.saturating_sub(2));
    let mut lines = head;
    let shown: Vec<(usize, &crate::audit::Finding)> = r
        .by_severity
        .iter()
        .enumerate()
        .skip(skip)
        .take(room)
        .filter_map(|(i, &fi)| Some((i, r.findings.get(fi)?)))
        .collect();
    let id_w = r
        .findings
        .iter()
        .map(|f| f.rule.id.len())
        .max()
        .unwrap_or(0);
    for (i, f) in shown {
        let l = Line::from(vec![
            Span::styled(
                format!(" {:<8}", f.rule.severity.as_str()),
                super::severity_style(f.rule.severity),
            ),
            Span::styled(format!("{:<id_w$}  ", f.rule.id), theme::NAME),
            Span::raw(r.label(&tree.snap, f.row)),
        ]);
        lines.push(if i == selected {
            pad(l, text_w).style(theme::selected())
        } else {
            l
        });
        // Where it is: the path to its parent (the element itself is on the line above).
        let parent = tree.node(f.row).and_then(|n| n.parent);
        let path = parent.map_or_else(
            || "(the window)".into(),
            |p| crate::tui::path(&tree.snap, p),
        );
        let room = text_w.saturating_sub(13);
        let n = path.chars().count();
        let path = if n > room {
            let tail: String = path.chars().skip(n + 1 - room).collect();
            format!("…{tail}")
        } else {
            path
        };
        lines.push(Line::from(Span::styled(
            format!("          in {path}"),
            theme::DIM,
        )));
    }
    if r.findings.is_empty() {
        lines.push(Line::from(Span::styled(
            " nothing found by the rules that ran",
            theme::OK,
        )));
    }
    let inner = boxed(
        frame,
        area,
        w,
        (lines.len() as u16 + 2).min(h),
        Line::from(Span::styled(
            format!(" Accessibility findings ({}) ", r.findings.len()),
            theme::NAME,
        )),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}
