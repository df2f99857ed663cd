//! The tree pane: the window's folded (or raw) tree, virtualised — only the lines on screen
//! are built — with the match marker, collapse state, a badge on elements with accessibility
//! findings (the worst rule, coloured by its severity) and the selection (or where a vanished
//! selected element was).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::{block, fit, node_spans, pad, theme};
use crate::model::sanitize;
use crate::tui::app::{App, Pane};

pub fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let mut title = vec![Span::styled(" Tree ", theme::LABEL)];
    if let Some(s) = &app.shown {
        // What happened to the window first: a long title must not cut it off.
        if s.exited {
            title.push(Span::styled(" app exited ", theme::gone()));
        } else if let Some(since) = s.silent_since {
            title.push(Span::styled(
                format!(
                    " not responding for {} — retrying ",
                    crate::model::display::seconds(
                        app.clock_ms.saturating_sub(since) / 1000 * 1000
                    )
                ),
                theme::WARN,
            ));
        } else if s.gone {
            title.push(Span::styled(" window closed ", theme::gone()));
        }
        title.push(Span::styled(
            format!("{} ", s.title.literal(50)),
            theme::NAME,
        ));
    }
    let mut right = Vec::new();
    let mut droppable = 0;
    if let Some(t) = &app.tree {
        // Dropped from the first when the border has no room for them and the window's name.
        right.push(Span::styled(
            format!(" {} · {} nodes ·", t.snap.id, t.snap.nodes.len()),
            theme::DIM,
        ));
        let mode = if t.raw {
            "raw"
        } else if t.showing_only {
            "showing"
        } else {
            "folded"
        };
        right.push(Span::styled(format!(" {mode} "), theme::DIM));
        if t.hiding() {
            right.push(Span::styled("· hiding non-matching ", theme::DIM));
        }
        droppable = right.len();
        let partial = t.snap.truncated == Some(crate::model::Truncation::Reading);
        if let Some(n) = app.read_progress.filter(|n| *n > 0) {
            right.push(Span::styled(
                if partial {
                    format!(
                        " reading… {} nodes (Esc stops) ",
                        crate::model::group_digits(n as i64)
                    )
                } else {
                    format!(" re-reading… {} ", crate::model::group_digits(n as i64))
                },
                if partial { theme::WARN } else { theme::DIM },
            ));
        }
        if !t.snap.complete() && !partial {
            right.push(Span::styled(
                format!(
                    " incomplete: {} ",
                    t.snap.truncated.map_or("unreadable nodes", |x| x.as_str())
                ),
                theme::WARN,
            ));
        }
    }
    fit_titles(
        &mut title,
        &mut right,
        droppable,
        usize::from(area.width).saturating_sub(2),
    );
    let mut b = block(app, Some(Pane::Tree), Line::from(title));
    if !right.is_empty() {
        b = b.title_top(Line::from(right).right_aligned());
    }
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let Some(tree) = &app.tree else {
        if let Some(why) = &app.open_error {
            let mut lines = vec![Line::from(Span::styled(
                "cannot open the window asked for on the command line:",
                theme::BAD,
            ))];
            lines.extend(
                why.lines()
                    .map(|l| Line::from(sanitize(l, 200).into_owned())),
            );
            lines.push(Line::from(Span::styled(
                "choose a window in the apps pane (↑ ↓ Enter)",
                theme::DIM,
            )));
            frame.render_widget(Paragraph::new(lines), inner);
            return;
        }
        let silent = app.shown.as_ref().is_some_and(|s| s.silent_since.is_some());
        let msg = match (app.loading, app.read_progress) {
            _ if silent => {
                "the application does not answer accessibility calls (busy or hung); its tree \
                 is read as soon as it answers"
                    .into()
            }
            (true, Some(n)) if n > 0 => format!(
                "reading the tree… {} nodes so far (Esc stops)",
                crate::model::group_digits(n as i64)
            ),
            (true, _) => "reading the tree… (Esc stops)".into(),
            _ => "no window (choose one in the apps pane)".into(),
        };
        frame.render_widget(Paragraph::new(Span::styled(msg, theme::DIM)), inner);
        return;
    };
    let width = inner.width as usize;
    let h = inner.height as usize;
    let sel = app.selection.as_ref();
    let gone_at = sel.filter(|s| s.gone.is_some()).map(|s| s.line);
    // The app does not answer: the last tree it gave, greyed.
    let silent = app.shown.as_ref().is_some_and(|s| s.silent_since.is_some());
    let mut out: Vec<Line<'static>> = Vec::with_capacity(h);
    let mut i = app.tree_offset;
    while out.len() < h {
        let (phantom, li) = match gone_at {
            Some(g) if i == g => (true, g),
            Some(g) if i > g => (false, i - 1),
            _ => (false, i),
        };
        i += 1;
        if phantom {
            let Some(g) = sel.and_then(|s| s.gone.as_ref()) else {
                continue;
            };
            let level = tree.lines.get(li).map_or(0, |l| l.level);
            let mut spans = vec![Span::raw(format!("  {}", "  ".repeat(level)))];
            spans.push(Span::raw("✗ GONE  "));
            for s in node_spans(&g.node) {
                spans.push(Span::raw(s.content.into_owned()));
            }
            out.push(pad(Line::from(spans).style(theme::gone()), width));
            continue;
        }
        let Some(l) = tree.lines.get(li) else {
            break;
        };
        let Some(n) = tree.node(l.row) else {
            break;
        };
        let matched = app.filter.is_match(l.row);
        let mut spans = Vec::with_capacity(10);
        spans.push(if matched {
            Span::styled("● ", theme::MATCH)
        } else {
            Span::raw("  ")
        });
        spans.push(Span::raw("  ".repeat(l.level)));
        let twisty = if n.children.is_empty() {
            "  "
        } else if tree.is_collapsed(l.row) {
            "▸ "
        } else {
            "▾ "
        };
        spans.push(Span::styled(twisty, theme::DIM));
        spans.extend(node_spans(n));
        if l.folded > 0 {
            spans.push(Span::styled(format!("  ⟨{} folded⟩", l.folded), theme::DIM));
        }
        if tree.is_collapsed(l.row) {
            spans.push(Span::styled(
                format!("  … {} children", n.children.len()),
                theme::DIM,
            ));
        }
        // What `tree` says of it besides its fields: children not enumerated, a count that
        // lied, calls it did not answer, a repeat of an element placed elsewhere.
        for note in crate::model::display::notes(n) {
            spans.push(Span::styled(note, theme::WARN));
        }
        if let Some(r) = app.report() {
            let here = r.of_line(l.row, l.folded, |row| tree.node(row).and_then(|n| n.parent));
            if let Some(f) = here.first() {
                let more = if here.len() > 1 {
                    format!(" +{}", here.len() - 1)
                } else {
                    String::new()
                };
                spans.push(Span::styled(
                    format!("  ◆ {}{more}", f.rule.id),
                    super::severity_style(f.rule.severity),
                ));
            }
        }
        if app.unconfirmed.contains(&n.id) {
            spans.push(Span::styled("  ⚠ unconfirmed write", theme::BAD));
        }
        let selected = sel.is_some_and(|s| s.gone.is_none() && s.line == li);
        let line = if silent {
            Line::from(
                spans
                    .into_iter()
                    .map(|s| Span::styled(s.content, theme::DIM))
                    .collect::<Vec<_>>(),
            )
        } else {
            Line::from(spans)
        };
        let line = fit(line, width);
        out.push(if selected {
            pad(line, width).style(theme::selected())
        } else {
            line
        });
    }
    if tree.lines.is_empty() {
        out.push(Line::from(Span::styled(
            "(nothing to show: every branch is hidden)",
            theme::DIM,
        )));
    }
    // A tree this small usually means the toolkit has not exposed the app: say why.
    if tree.snap.nodes.len() <= crate::doctor::TINY_TREE
        && !silent
        && let (Some(report), Some(s)) = (&app.diagnosis, &app.shown)
    {
        let pid = app
            .apps
            .iter()
            .find(|a| a.bus_name == s.bus_name)
            .and_then(|a| a.pid);
        out.push(Line::default());
        out.extend(super::doctor::lines(report, Some((&s.app_name, pid))));
        out.truncate(h);
        // Prose, not tree lines: wrapped, so no fix is cut off at the pane's edge.
        frame.render_widget(Paragraph::new(out).wrap(Wrap { trim: false }), inner);
        return;
    }
    frame.render_widget(Paragraph::new(out), inner);
}

/// Fits the pane's two titles in its top border (`width` columns between the corners), where
/// the right one would otherwise be drawn over the left: the window's name goes before the
/// snapshot's figures (the right's first `droppable` spans), which are dropped one by one from
/// the first; then the name is cut, with an ellipsis. What is wrong with the window (the left's
/// first words) and the reading or incomplete warnings (the right's last) are kept.
fn fit_titles(
    left: &mut [Span<'_>],
    right: &mut Vec<Span<'_>>,
    mut droppable: usize,
    width: usize,
) {
    let used = |l: &[Span<'_>], r: &[Span<'_>]| {
        l.iter().chain(r).map(Span::width).sum::<usize>() + usize::from(!r.is_empty())
    };
    while droppable > 0 && used(left, right) > width {
        right.remove(0);
        droppable -= 1;
    }
    let over = used(left, right).saturating_sub(width);
    if over == 0 || left.len() < 2 {
        return;
    }
    let name = left.last_mut().expect("two spans");
    let keep = name.width().saturating_sub(over + 2);
    let mut cut = super::cut_to(&name.content, keep);
    cut.push_str("… ");
    name.content = cut.into();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span<'_>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn the_windows_name_is_kept_before_the_figures_and_cut_with_an_ellipsis_last() {
        let left = || {
            vec![
                Span::raw(" Tree "),
                Span::raw("treeglass fixture tgfix-open-b-15703-2 "),
            ]
        };
        let right = || {
            vec![
                Span::raw(" s00000002 · 65 nodes ·"),
                Span::raw(" folded "),
                Span::raw(" re-reading… 65 "),
            ]
        };
        // Room for both: nothing changes.
        let (mut l, mut r) = (left(), right());
        fit_titles(&mut l, &mut r, 2, 120);
        assert_eq!(text(&l), " Tree treeglass fixture tgfix-open-b-15703-2 ");
        assert_eq!(r.len(), 3);
        // The pane of the failing run (86 columns): the figures go, the name stays whole.
        let (mut l, mut r) = (left(), right());
        fit_titles(&mut l, &mut r, 2, 86);
        assert_eq!(text(&l), " Tree treeglass fixture tgfix-open-b-15703-2 ");
        assert_eq!(text(&r), " folded  re-reading… 65 ");
        // Narrower still: the name is cut, with an ellipsis, and the warning kept.
        let (mut l, mut r) = (left(), right());
        fit_titles(&mut l, &mut r, 2, 40);
        assert_eq!(text(&r), " re-reading… 65 ");
        let width: usize = l.iter().chain(&r).map(Span::width).sum::<usize>() + 1;
        assert!(width <= 40, "{} | {}", text(&l), text(&r));
        assert!(text(&l).starts_with(" Tree treeglass"), "{}", text(&l));
        assert!(text(&l).ends_with("… "), "{}", text(&l));
    }
}
