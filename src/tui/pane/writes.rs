//! The read-back status pane: the history of writes (newest first) and the selected write's
//! timeline — before, dispatched (method and the toolkit's answer), each read-back sample with
//! its time, events seen, the verdict and one line of advice. Unconfirmed is shown as terminal.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Pane;
use crate::model::sanitize;
use crate::tui::app::{App, Effect, WriteEntry, WriteKind};
use crate::tui::keys::Action;
use crate::tui::layout::Place;
use crate::tui::view::{block, fit, pad, theme};
use crate::write::landed::{LIKELIEST, Landed};
use crate::write::{Outcome, WriteResult};

fn outcome_style(o: Outcome) -> Style {
    match o {
        Outcome::Verified | Outcome::Already | Outcome::Secure => theme::OK,
        Outcome::Mismatch => theme::WARN,
        Outcome::Unconfirmed => theme::gone(),
        Outcome::Refused => theme::BAD,
    }
}

fn verdict(r: &WriteResult) -> String {
    match r.mismatch {
        Some(m) => format!("{} ({})", r.outcome.as_str(), m.as_str()),
        None => r.outcome.as_str().to_string(),
    }
}

fn what(w: &WriteEntry) -> String {
    let node = if w.node.name.is_empty() {
        w.node.role.to_string()
    } else {
        format!("{} {}", w.node.role, w.node.name.quoted(30))
    };
    match &w.kind {
        WriteKind::Set => format!("{node} ← {}", w.requested),
        WriteKind::Invoke { .. } => format!("{node} ▷ {}", sanitize(&w.requested, 30)),
    }
}

fn field(label: &'static str, value: String, style: Style) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<11}"), theme::LABEL),
        Span::styled(value, style),
    ])
}

/// The change set in two lines: what changed elsewhere, and where the input most likely went.
fn elsewhere(l: &Landed, out: &mut Vec<Line<'static>>) {
    let mut parts = Vec::new();
    if let Some(why) = &l.not_compared {
        parts.push(format!("not compared ({})", sanitize(why, 80)));
    } else if l.changes.is_empty() && l.scrolled.is_empty() {
        parts.push("nothing in the window".into());
    } else {
        parts.push(crate::diff::summary(&l.changes));
    }
    if !l.scrolled.is_empty() {
        parts.push(format!(
            "scrolled: {}",
            crate::write::landed::scrolled_text(&l.scrolled)
        ));
    }
    for t in &l.windows_opened {
        parts.push(format!("window opened {}", crate::model::quoted(t, 40)));
    }
    for t in &l.windows_closed {
        parts.push(format!("window closed {}", crate::model::quoted(t, 40)));
    }
    out.push(Line::from(vec![
        Span::styled(format!("{:<11}", "elsewhere"), theme::LABEL),
        Span::styled(parts.join(" · "), theme::WARN),
        Span::styled("   c: list, Enter: go", theme::DIM),
    ]));
}

fn timeline(w: &WriteEntry, out: &mut Vec<Line<'static>>) {
    let verb = match &w.kind {
        WriteKind::Set => "set",
        WriteKind::Invoke { .. } => "invoke",
    };
    out.push(Line::from(vec![
        Span::styled(format!("#{} {verb} ", w.id), theme::NAME),
        Span::raw(what(w)),
        Span::styled(format!("   target {}", sanitize(&w.target, 80)), theme::DIM),
    ]));
    let Some(r) = &w.result else {
        out.push(field(
            "verdict",
            "… writing and reading back".into(),
            theme::DIM,
        ));
        return;
    };
    let style = outcome_style(r.outcome);
    out.push(Line::from(vec![
        Span::styled(format!("{:<11}", "verdict"), theme::LABEL),
        Span::styled(verdict(r).to_uppercase(), style),
        Span::raw(format!(" — {}", sanitize(&r.reason, 200))),
    ]));
    // A write not verified ends its advice with the likeliest landing place: its own line.
    let (advice, likeliest) = r
        .advice
        .split_once(LIKELIEST)
        .map_or((r.advice.as_str(), None), |(a, l)| (a, Some(l)));
    if r.outcome == Outcome::Unconfirmed {
        out.push(field(
            "TERMINAL",
            "observe before writing again: the write went out but nothing shows where it landed"
                .into(),
            theme::BAD,
        ));
    } else {
        out.push(field("advice", advice.to_string(), theme::DIM));
    }
    if let Some(l) = likeliest {
        out.push(field(
            "likeliest",
            sanitize(l, 200).into_owned(),
            theme::WARN,
        ));
    }
    if let Some(l) = &w.landed {
        elsewhere(l, out);
    } else if w.landed_pending {
        out.push(field(
            "elsewhere",
            "… reading the window again for what changed".into(),
            theme::DIM,
        ));
    }
    out.push(field(
        "before",
        r.before
            .as_deref()
            .map_or("—".into(), |b| sanitize(b, 100).into_owned()),
        theme::VALUE,
    ));
    let dispatched = match &r.method {
        Some(m) if r.dispatched => {
            if r.acks.is_empty() {
                m.literal(0).into_owned()
            } else {
                // The toolkit's answers, which are recorded but never taken as evidence.
                format!(
                    "{}  (answer, not evidence)",
                    r.acks
                        .iter()
                        .map(|a| a.literal(0))
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            }
        }
        Some(m) => format!("nothing was sent ({} planned)", m.literal(0)),
        None => "nothing was sent".into(),
    };
    out.push(field("dispatched", dispatched, theme::LABEL));
    for s in &r.samples {
        out.push(Line::from(vec![
            Span::styled(format!("{:<11}", "sample"), theme::LABEL),
            Span::styled(
                format!("{:>9}  ", format!("+{:.1} ms", s.at_ms)),
                theme::DIM,
            ),
            Span::styled(sanitize(&s.value, 100).into_owned(), theme::VALUE),
        ]));
    }
    let events = if r.events.is_empty() {
        "none".to_string()
    } else {
        r.events
            .iter()
            .map(|e| sanitize(e, 60).into_owned())
            .collect::<Vec<_>>()
            .join(" · ")
    };
    out.push(field("events", events, theme::DIM));
    if let Some(obs) = &r.observed {
        out.push(field(
            "observed",
            sanitize(obs, 100).into_owned(),
            theme::VALUE,
        ));
    }
}

/// The writes pane's state.
#[derive(Debug, Default)]
pub struct State {
    /// The selected write, as an index into `App::writes` (oldest first; the list shows
    /// newest first).
    pub sel: usize,
}

pub(crate) struct Unit;

impl super::Unit for Unit {
    fn place(&self) -> Place {
        Place::Bottom
    }

    fn takes_focus(&self, area: Rect) -> bool {
        area.height > 0
    }

    fn key(&self, app: &mut App, action: Action, _fx: &mut Vec<Effect>) -> bool {
        if !super::moves(action) {
            return false;
        }
        let n = app.writes.entries.len();
        if n == 0 {
            return true;
        }
        // The list shows the newest first: its top line is the last write. A page is the whole
        // list.
        let sel = &mut app.panes.writes.sel;
        *sel = n - 1 - super::step(n - 1 - *sel, n - 1, action, n);
        true
    }

    fn click(&self, app: &mut App, line: usize, _fx: &mut Vec<Effect>) {
        let n = app.writes.entries.len();
        if line < n {
            app.panes.writes.sel = n - 1 - line;
        }
    }

    fn help(&self) -> Option<crate::tui::overlay::Section> {
        Some((
            "Writes pane (Tab to it)",
            &[("↑ ↓", "browse the history of writes and timelines")],
        ))
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, area: Rect) {
        render(app, frame, area);
    }
}

fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let b = block(
        app,
        Some(Pane::Writes),
        Line::from(Span::styled(
            format!(" Writes ({}) ", app.writes.entries.len()),
            theme::LABEL,
        )),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    if app.writes.entries.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled(
                "no writes yet: e sets a value, i invokes an action; each write is read back",
                theme::DIM,
            )),
            inner,
        );
        return;
    }
    let list_w = (inner.width / 3).clamp(20, 46);
    let list = Rect {
        width: list_w,
        ..inner
    };
    let detail = Rect {
        x: inner.x + list_w + 1,
        width: inner.width.saturating_sub(list_w + 1),
        ..inner
    };
    let h = inner.height as usize;
    let n = app.writes.entries.len();
    // Newest first; keep the selected one on screen.
    let sel_pos = n - 1 - app.panes.writes.sel.min(n - 1);
    let offset = sel_pos.saturating_sub(h.saturating_sub(1));
    let mut lines = Vec::new();
    for (pos, w) in app
        .writes
        .entries
        .iter()
        .rev()
        .enumerate()
        .skip(offset)
        .take(h)
    {
        let (mark, style) = match &w.result {
            Some(r) => (verdict(r), outcome_style(r.outcome)),
            None => ("…".to_string(), theme::DIM),
        };
        let line = Line::from(vec![
            Span::styled(format!("#{} ", w.id), theme::DIM),
            Span::styled(mark, style),
            Span::raw(format!(" {}", what(w))),
        ]);
        let line = fit(line, list_w as usize);
        lines.push(if pos == sel_pos {
            pad(line, list_w as usize).style(theme::selected())
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(lines), list);
    let sep: Vec<Line<'static>> = (0..h)
        .map(|_| Line::from(Span::styled("│", theme::BORDER)))
        .collect();
    frame.render_widget(
        Paragraph::new(sep),
        Rect {
            x: inner.x + list_w,
            width: 1,
            ..inner
        },
    );
    let mut out = Vec::new();
    if let Some(w) = app.writes.entries.get(app.panes.writes.sel) {
        timeline(w, &mut out);
    }
    frame.render_widget(Paragraph::new(out), detail);
}

#[cfg(test)]
mod tests {
    use super::super::Pane;
    use super::super::testing::{app, draw, rows};

    #[test]
    fn no_writes_yet_says_how_to_make_one() {
        let mut a = app(120, 40);
        a.focus = Pane::Writes;
        let buf = draw(&a, Pane::Writes, 40, 3);
        assert_eq!(
            rows(&buf),
            [
                "┏ Writes (0) ━━━━━━━━━━━━━━━━━━━━━━━━━━┓",
                "┃no writes yet: e sets a value, i invok┃",
                "┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛",
            ]
        );
        assert_eq!(
            buf[(0, 0)].fg,
            crate::tui::view::theme::FOCUS_BORDER.fg.unwrap_or_default()
        );
    }
}
