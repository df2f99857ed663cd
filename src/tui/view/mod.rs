//! Drawing: one file per pane, each `render(app, frame, area)` from `&App` only. Nothing here
//! changes state; everything from applications is escaped (`model::sanitize`) before drawing.

mod apps;
mod details;
mod doctor;
mod events;
mod filter;
mod help;
mod overlay;
mod status;
mod tree;
mod writes;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType};

use super::app::{App, Mode, Pane};

/// Draws the whole screen.
pub fn render(app: &App, frame: &mut Frame<'_>) {
    let a = app.areas();
    status::banner(app, frame, a.banner);
    apps::render(app, frame, a.apps);
    tree::render(app, frame, a.tree);
    details::render(app, frame, a.details);
    filter::render(app, frame, a.filter);
    writes::render(app, frame, a.writes);
    events::render(app, frame, a.events);
    status::render(app, frame, a.status);
    // Overlays sit over the tree pane (when it is wide enough) so the details stay readable.
    let over = if a.tree.width >= 50 {
        a.tree
    } else {
        frame.area()
    };
    overlay::render(app, frame, over);
    if matches!(app.mode, Mode::Help { .. }) {
        help::render(app, frame, frame.area());
    }
}

/// Colours and styles in one place.
pub(crate) mod theme {
    use super::*;

    pub const ROLE: Style = Style::new().fg(Color::Cyan);
    pub const NAME: Style = Style::new().fg(Color::White).add_modifier(Modifier::BOLD);
    pub const VALUE: Style = Style::new().fg(Color::Green);
    pub const STATES: Style = Style::new().fg(Color::Yellow);
    pub const DIM: Style = Style::new().fg(Color::DarkGray);
    pub const LABEL: Style = Style::new().fg(Color::Gray);
    pub const MATCH: Style = Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD);
    pub const SELECTED: Style = Style::new().bg(Color::Blue).fg(Color::White);
    pub const GONE: Style = Style::new()
        .bg(Color::Red)
        .fg(Color::White)
        .add_modifier(Modifier::BOLD);
    pub const OK: Style = Style::new().fg(Color::Green).add_modifier(Modifier::BOLD);
    pub const WARN: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
    pub const BAD: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
    pub const BANNER: Style = Style::new()
        .bg(Color::Yellow)
        .fg(Color::Black)
        .add_modifier(Modifier::BOLD);
    pub const FOCUS_BORDER: Style = Style::new().fg(Color::Cyan);
    pub const BORDER: Style = Style::new().fg(Color::DarkGray);
}

/// A pane's bordered block, highlighted when it has the focus.
pub(crate) fn block<'a>(app: &App, pane: Option<Pane>, title: Line<'a>) -> Block<'a> {
    let focused = pane.is_some_and(|p| p == app.focus)
        && !matches!(app.mode, Mode::Prompt(_) | Mode::Help { .. })
        && !(app.filter_editing() && pane == Some(Pane::Tree));
    Block::bordered()
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Plain
        })
        .border_style(if focused {
            theme::FOCUS_BORDER
        } else {
            theme::BORDER
        })
        .title(title)
}

/// The colour of a finding's severity: error red, warning yellow, review dim.
pub(crate) fn severity_style(s: crate::audit::Severity) -> Style {
    match s {
        crate::audit::Severity::Error => theme::BAD,
        crate::audit::Severity::Warning => theme::WARN,
        crate::audit::Severity::Review => theme::DIM,
    }
}

/// A rectangle of at most `w` × `h` centred in `r`.
pub(crate) fn centered(r: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(r.width);
    let h = h.min(r.height);
    Rect {
        x: r.x + (r.width - w) / 2,
        y: r.y + (r.height - h) / 2,
        width: w,
        height: h,
    }
}

/// A node as styled spans: `role "name" = value [states]`, escaped.
pub(crate) fn node_spans(n: &crate::model::Node) -> Vec<ratatui::text::Span<'static>> {
    use crate::model::display;
    use ratatui::text::Span;
    let mut spans = vec![Span::styled(n.role.as_str(), theme::ROLE)];
    if !n.name.is_empty() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(n.name.quoted(80), theme::NAME));
    }
    if let Some(v) = display::value_text(n) {
        spans.push(Span::styled(" = ", theme::DIM));
        spans.push(Span::styled(v, theme::VALUE));
    }
    let states = display::key_states(n);
    if !states.is_empty() {
        spans.push(Span::styled(
            format!(" [{}]", states.join(" ")),
            theme::STATES,
        ));
    }
    spans
}

/// Pads `line` with spaces to `width` cells so a background style fills the row.
pub(crate) fn pad(mut line: Line<'static>, width: usize) -> Line<'static> {
    let used = line.width();
    if used < width {
        line.spans
            .push(ratatui::text::Span::raw(" ".repeat(width - used)));
    }
    line
}
