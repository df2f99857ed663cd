//! Drawing: the whole screen — the banner, each pane (`pane/`, each drawing itself), the filter
//! bar, the status line and the open overlay (`overlay/`, drawing itself) — from `&App` only, and what the panes share (the
//! theme, a pane's block, fitting and wrapping lines). Nothing here changes state; everything
//! from applications is escaped (`model::sanitize`) before drawing.

pub(crate) mod doctor;
mod status;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType};

use super::app::{App, Pane};

/// Draws the whole screen.
pub fn render(app: &App, frame: &mut Frame<'_>) {
    let a = app.areas();
    status::banner(app, frame, a.banner);
    super::pane::render(app, frame, &a);
    super::overlay::filter::bar(app, frame, a.filter);
    status::render(app, frame, a.status);
    // Overlays sit over the tree pane (when it is wide enough) so the details stay readable.
    let tree = a.of(Pane::Tree);
    let over = if tree.width >= 50 { tree } else { frame.area() };
    super::overlay::render(app, frame, over);
    if theme::no_colour() {
        // No colour reaches the terminal at all: crossterm writes a colour change under
        // NO_COLOR as a reset of every attribute, which would end the selection's reverse
        // video at the first coloured word.
        for cell in frame.buffer_mut().content.iter_mut() {
            cell.fg = Color::Reset;
            cell.bg = Color::Reset;
        }
    }
}

/// Colours and styles in one place.
pub mod theme {
    use super::*;

    pub const ROLE: Style = Style::new().fg(Color::Cyan);
    pub const NAME: Style = Style::new().fg(Color::White).add_modifier(Modifier::BOLD);
    pub const VALUE: Style = Style::new().fg(Color::Green);
    pub const STATES: Style = Style::new().fg(Color::Yellow);
    pub const DIM: Style = Style::new().fg(Color::DarkGray);
    pub const LABEL: Style = Style::new().fg(Color::Gray);
    pub const MATCH: Style = Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD);
    const SELECTED: Style = Style::new().bg(Color::Blue).fg(Color::White);
    const GONE: Style = Style::new()
        .bg(Color::Red)
        .fg(Color::White)
        .add_modifier(Modifier::BOLD);
    pub const OK: Style = Style::new().fg(Color::Green).add_modifier(Modifier::BOLD);
    pub const WARN: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
    pub const BAD: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
    const BANNER: Style = Style::new()
        .bg(Color::Yellow)
        .fg(Color::Black)
        .add_modifier(Modifier::BOLD);
    /// Reverse video, for what a background colour marks when there is no colour.
    const REVERSE: Style = Style::new().add_modifier(Modifier::REVERSED);

    /// Whether colour is off. The terminal backend then drops every colour (it honours
    /// `NO_COLOR` itself), so what only a background marked needs reverse video. Set once when
    /// the inspector starts ([`super::super::runtime::run`]), from the environment.
    static NO_COLOUR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    pub fn no_colour() -> bool {
        NO_COLOUR.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Turns colour off or on for every pane (tests draw both ways).
    pub fn set_no_colour(off: bool) {
        NO_COLOUR.store(off, std::sync::atomic::Ordering::Relaxed);
    }

    /// `NO_COLOR` set and not empty (no-color.org).
    pub fn no_colour_asked() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }

    fn marked(coloured: Style, plain: Style) -> Style {
        if no_colour() { plain } else { coloured }
    }

    /// The selected row of a list or the tree.
    pub fn selected() -> Style {
        marked(SELECTED, REVERSE)
    }

    /// An element that is gone, an app that exited, a write nobody confirmed, recording.
    pub fn gone() -> Style {
        marked(GONE, REVERSE.add_modifier(Modifier::BOLD))
    }

    /// The demo banner.
    pub fn banner() -> Style {
        marked(BANNER, REVERSE.add_modifier(Modifier::BOLD))
    }
    pub const FOCUS_BORDER: Style = Style::new().fg(Color::Cyan);
    pub const BORDER: Style = Style::new().fg(Color::DarkGray);
}

/// A pane's bordered block, highlighted when it has the focus.
pub(crate) fn block<'a>(app: &App, pane: Option<Pane>, title: Line<'a>) -> Block<'a> {
    let focused = pane.is_some_and(|p| p == app.focus)
        && !app.mode.overlay().is_some_and(|o| o.holds_focus())
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

/// The longest start of `text` that takes at most `columns` on screen.
pub(crate) fn cut_to(text: &str, columns: usize) -> String {
    let mut used = 0;
    let mut cut = String::new();
    for c in text.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + cw > columns {
            break;
        }
        used += cw;
        cut.push(c);
    }
    cut
}

/// A line cut to `width` columns, ending in an ellipsis where text was cut (the spans keep
/// their styles; what does not fit is dropped).
pub(crate) fn fit(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width || width == 0 {
        return line;
    }
    let room = width - 1;
    let mut used = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        if used + span.width() <= room {
            used += span.width();
            spans.push(span);
            continue;
        }
        let cut = cut_to(&span.content, room - used);
        let style = span.style;
        if !cut.is_empty() {
            spans.push(ratatui::text::Span::styled(cut, style));
        }
        spans.push(ratatui::text::Span::styled("…", style));
        break;
    }
    Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    }
}

/// A line wrapped to `width` columns at word boundaries (a word longer than a line is cut),
/// its continuation lines indented to where its text starts: under a field's value when its
/// first span is a label padded with spaces (`name        …`), else under its first
/// character. Styles are kept span by span.
pub(crate) fn wrap_indented(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthChar;
    if line.width() <= width || width < 8 {
        return vec![line];
    }
    let first = line.spans.first().map(|s| s.content.as_ref()).unwrap_or("");
    let indent = if line.spans.len() > 1 && first.ends_with(' ') && first.trim_end().len() < 16 {
        line.spans[0].width()
    } else {
        first.len() - first.trim_start().len()
    }
    .min(width / 2);
    // (char, style) cells, then break them into rows.
    let cells: Vec<(char, ratatui::style::Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let mut rows: Vec<Vec<(char, ratatui::style::Style)>> = Vec::new();
    let mut i = 0;
    let mut room = width;
    while i < cells.len() {
        // As many cells as fit, then back up to the last space if there is one.
        let (mut end, mut used) = (i, 0);
        while end < cells.len() {
            let w = cells[end].0.width().unwrap_or(0);
            if used + w > room {
                break;
            }
            used += w;
            end += 1;
        }
        if end < cells.len()
            && let Some(sp) = (i + 1..end).rev().find(|&j| cells[j].0 == ' ')
        {
            end = sp + 1;
        }
        let end = end.max(i + 1);
        rows.push(cells[i..end].to_vec());
        i = end;
        // The next row starts at a word, not at the spaces between.
        while i < cells.len() && cells[i].0 == ' ' {
            i += 1;
        }
        room = width - indent;
    }
    rows.into_iter()
        .enumerate()
        .map(|(n, row)| {
            let mut spans: Vec<ratatui::text::Span<'static>> = Vec::new();
            if n > 0 && indent > 0 {
                spans.push(ratatui::text::Span::raw(" ".repeat(indent)));
            }
            let mut cur = String::new();
            let mut style = row.first().map(|c| c.1).unwrap_or_default();
            for (c, st) in row {
                if st != style && !cur.is_empty() {
                    spans.push(ratatui::text::Span::styled(std::mem::take(&mut cur), style));
                }
                style = st;
                cur.push(c);
            }
            if !cur.is_empty() {
                spans.push(ratatui::text::Span::styled(cur, style));
            }
            Line::from(spans).style(line.style)
        })
        .collect()
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
