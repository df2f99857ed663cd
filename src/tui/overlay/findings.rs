//! The findings overlay (`!`): the accessibility findings of the shown tree, worst first,
//! its keys (Enter selects the element) and its drawing. The checks themselves, kept live,
//! and stepping through them in tree order are `tui::findings`'s.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Mode, Section, boxed, path_tail};
use crate::tui::app::{App, Effect};
use crate::tui::view::{pad, severity_style, theme};

/// While it is open: the chosen finding's index in `Report::by_severity`.
#[derive(Debug, Clone, Default)]
pub struct State {
    pub selected: usize,
}

pub(crate) struct Unit;

impl super::Overlay for Unit {
    fn key(&self, app: &mut App, k: KeyEvent, _fx: &mut Vec<Effect>) {
        let n = app.report().map_or(0, |r| r.by_severity.len());
        let Mode::Findings(State { selected }) = &mut app.mode else {
            return;
        };
        match k.code {
            KeyCode::Up | KeyCode::Char('k') => *selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                *selected = (*selected + 1).min(n.saturating_sub(1))
            }
            KeyCode::PageUp => *selected = selected.saturating_sub(10),
            KeyCode::PageDown => *selected = (*selected + 10).min(n.saturating_sub(1)),
            KeyCode::Home => *selected = 0,
            KeyCode::End => *selected = n.saturating_sub(1),
            KeyCode::Enter => {
                let i = *selected;
                app.mode = Mode::Normal;
                let row = app
                    .report()
                    .and_then(|r| r.findings.get(*r.by_severity.get(i)?))
                    .map(|f| f.row);
                if let Some(row) = row {
                    app.go_to_finding(row);
                }
            }
            _ => app.mode = Mode::Normal,
        }
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, over: Rect) {
        if let Mode::Findings(s) = &app.mode {
            render(app, s.selected, frame, over);
        }
    }

    fn help(&self) -> Option<Section> {
        Some((
            "Findings list (!)",
            &[
                ("↑ ↓", "choose a finding (errors first)"),
                ("Enter", "select its element in the tree"),
                ("Esc", "close"),
            ],
        ))
    }
}

impl App {
    /// `!`: the findings overlay.
    pub(crate) fn open_findings(&mut self) {
        if self.view.tree.is_none() {
            self.notice = Some("no tree shown".into());
            return;
        }
        if self.audit_waiting() {
            self.notice = Some("audit: waiting for the whole tree".into());
            return;
        }
        if self.report().is_none() {
            self.notice = Some("audit: checking the changed tree".into());
            return;
        }
        // Start on the selection's worst finding, if it has one.
        let selected = match (self.report(), self.selected_node()) {
            (Some(r), Some((row, _))) => r
                .by_severity
                .iter()
                .position(|&i| r.findings.get(i).is_some_and(|f| f.row == row))
                .unwrap_or(0),
            _ => 0,
        };
        self.mode = Mode::Findings(State { selected });
    }
}

/// The accessibility findings, worst first: severity, rule, the element and its path; only
/// the entries on screen are built (a big tree can have thousands).
fn render(app: &App, selected: usize, frame: &mut Frame<'_>, area: Rect) {
    let w = area.width.saturating_sub(4).clamp(30, 110);
    let h = area.height.saturating_sub(2).max(6);
    let text_w = w.saturating_sub(2) as usize;
    let (Some(r), Some(tree)) = (app.report(), app.view.tree.as_ref()) else {
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
                severity_style(f.rule.severity),
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
        let path = path_tail(path, text_w.saturating_sub(13));
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
