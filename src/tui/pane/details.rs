//! The details pane: everything about the selected node — role (normalised and raw), name,
//! description, label relation, value with its range, all states, interfaces, actions, bounds (read fresh),
//! path, token, the suggested shortest unique target with its grade and the element's
//! accessibility findings (rule, message, what is wrong here, the rule's help) — or that the
//! element is gone.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::model::{AppText, Node, NodeId, Value, display, format_number, sanitize};
use crate::selector::{Grade, Target};
use crate::tui::app::{App, Effect};
use crate::tui::layout::Place;
use crate::tui::view::{block, theme, wrap_indented};

/// The details pane's state.
#[derive(Debug, Default)]
pub struct State {
    /// How far it is scrolled, and for which element (another selection starts at the top).
    pub scrolled: Option<(NodeId, usize)>,
    /// The node it has read fresh (and any error reading it).
    pub read: Option<(NodeId, Option<String>)>,
    /// Its fresh read is under way.
    pub(crate) inflight: bool,
}

impl State {
    /// Whether its fresh read of `id` is done and answered (it brings what a tree read leaves
    /// out: action names, bounds).
    pub(crate) fn has_read(&self, id: &NodeId) -> bool {
        self.read
            .as_ref()
            .is_some_and(|(read, err)| read == id && err.is_none())
    }
}

/// It never takes the focus: J and K (and the wheel) scroll it from anywhere.
pub(crate) struct Unit;

impl super::Unit for Unit {
    fn place(&self) -> Place {
        Place::Side
    }

    fn takes_focus(&self, _area: Rect) -> bool {
        false
    }

    fn wheel(&self, app: &mut App, down: bool, _fx: &mut Vec<Effect>) {
        app.scroll_details(if down { 3 } else { -3 });
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, area: Rect) {
        render(app, frame, area);
    }
}

impl App {
    /// The pane's scroll for the current selection.
    pub fn details_scroll(&self) -> usize {
        match (&self.panes.details.scrolled, &self.view.selection) {
            (Some((id, n)), Some(sel)) if *id == sel.id => *n,
            _ => 0,
        }
    }

    /// Scrolls the pane by `delta` lines, within what it holds at its size.
    pub(crate) fn scroll_details(&mut self, delta: isize) {
        let Some(id) = self.view.selection.as_ref().map(|s| s.id.clone()) else {
            return;
        };
        let inner = crate::tui::layout::inner(self.areas().of(super::Pane::Details));
        if inner.height == 0 {
            return;
        }
        let lines = wrapped(self, inner.width as usize).len();
        let max = lines.saturating_sub(inner.height as usize);
        let now = self.details_scroll();
        let next = now.saturating_add_signed(delta).min(max);
        self.panes.details.scrolled = Some((id, next));
    }
}

fn field(label: &'static str, value: String, style: ratatui::style::Style) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<12}"), theme::LABEL),
        Span::styled(value, style),
    ])
}

fn or_none(s: &AppText) -> String {
    if s.is_empty() {
        "—".into()
    } else {
        s.literal(200).into_owned()
    }
}

fn node_lines(n: &Node, out: &mut Vec<Line<'static>>) {
    out.push(Line::from(vec![
        Span::styled(format!("{:<12}", "role"), theme::LABEL),
        Span::styled(n.role.as_str(), theme::ROLE),
        Span::styled(
            format!("  (raw: {})", crate::model::literal(&n.raw_role, 40)),
            theme::DIM,
        ),
    ]));
    out.push(field("name", or_none(&n.name), theme::NAME));
    out.push(field("description", or_none(&n.description), theme::VALUE));
    if let Some(label) = &n.label {
        out.push(field("labelled by", or_none(label), theme::NAME));
    }
    let value = match &n.value {
        None => "—".to_string(),
        Some(Value::Number {
            current,
            min,
            max,
            step,
        }) => format!(
            "{}  (min {}, max {}, step {})",
            format_number(*current),
            min.map_or("unreadable".into(), format_number),
            max.map_or("unreadable".into(), format_number),
            step.map_or("unreadable".into(), format_number)
        ),
        // A static element's text, in full here even where the tree line leaves it out.
        Some(Value::Text { text }) if !display::value_bearing(n) && !n.is_secret() => {
            let shown = match display::embedded_marked(text) {
                Some(t) => t.quoted(200),
                None => format!(
                    "({} embedded objects: its children)",
                    text.as_str()
                        .chars()
                        .filter(|c| *c == display::EMBEDDED_OBJECT)
                        .count()
                ),
            };
            out.push(field("text", shown, theme::VALUE));
            "—".to_string()
        }
        Some(_) => display::value_text(n).unwrap_or_else(|| "—".into()),
    };
    out.push(field("value", value, theme::VALUE));
    out.push(field("states", n.states.names().join(" "), theme::STATES));
    out.push(field(
        "interfaces",
        n.interfaces.names().join(" "),
        theme::LABEL,
    ));
    let actions = if n.actions.is_empty() {
        "—".to_string()
    } else {
        n.actions
            .iter()
            .map(|a| a.literal(30).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    out.push(field("actions", actions, theme::LABEL));
}

/// The suggested target with its grade; a positional one is shown as a warning, since it breaks
/// when a look-alike is added or removed before the element.
fn target_line(t: &str) -> Line<'static> {
    let grade = Target::parse(t).map(|t| t.grade()).ok();
    let style = match grade {
        Some(Grade::Positional) => theme::WARN,
        _ => theme::OK,
    };
    let mut spans = vec![
        Span::styled(format!("{:<12}", "target"), theme::LABEL),
        Span::styled(t.to_string(), style),
    ];
    if let Some(g) = grade {
        spans.push(Span::styled(format!("  ({g})"), theme::DIM));
    }
    Line::from(spans)
}

fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let inner = crate::tui::layout::inner(area);
    let lines = wrapped(app, inner.width as usize);
    let h = inner.height as usize;
    let scroll = app.details_scroll().min(lines.len().saturating_sub(h));
    let mut title = vec![Span::styled(" Details ", theme::LABEL)];
    if lines.len() > h {
        // Where the view is, and the keys that move it.
        title.push(Span::styled(
            format!(
                "{}–{} of {} (J/K) ",
                scroll + 1,
                (scroll + h).min(lines.len()),
                lines.len()
            ),
            theme::DIM,
        ));
    }
    let b = block(app, None, Line::from(title));
    frame.render_widget(b, area);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).take(h).collect();
    frame.render_widget(Paragraph::new(shown), inner);
}

/// The pane's lines at `width` columns: long lines wrapped at word boundaries, a field's
/// continuation lines aligned under its value. The scroll keys count these.
pub(crate) fn wrapped(app: &App, width: usize) -> Vec<Line<'static>> {
    content(app)
        .into_iter()
        .flat_map(|l| wrap_indented(l, width))
        .collect()
}

/// What the pane says of the selection, unwrapped.
fn content(app: &App) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = Vec::new();
    let Some(sel) = &app.view.selection else {
        out.push(Line::from(Span::styled("nothing selected", theme::DIM)));
        return out;
    };
    if let Some(g) = &sel.gone {
        out.push(Line::from(Span::styled(
            " ✗ selected element is gone ",
            theme::gone(),
        )));
        out.push(Line::from(Span::styled(
            format!("it is not in snapshot {}; last seen:", g.missing_in),
            theme::DIM,
        )));
        node_lines(&g.node, &mut out);
        out.push(field("path", g.path.clone(), theme::DIM));
        out.push(field("token", format!("{} (stale)", g.token), theme::DIM));
        out.push(Line::from(Span::styled(
            "move the selection to go on",
            theme::DIM,
        )));
        return out;
    }
    let (Some(tree), Some((row, n))) = (&app.view.tree, app.selected_node()) else {
        return out;
    };
    // Its accessibility findings first (what is wrong here, and the fix), the rules' help at
    // the end.
    let here = app.report().map_or(&[][..], |r| r.of_row(row));
    for f in here {
        out.push(Line::from(vec![
            Span::styled(
                format!("◆ {} ", f.rule.severity.as_str()),
                crate::tui::view::severity_style(f.rule.severity),
            ),
            Span::styled(f.rule.id, theme::NAME),
            Span::styled(format!(": {}", sanitize(&f.detail, 300)), theme::VALUE),
        ]));
        if let Some(fix) = &f.fix {
            out.push(Line::from(Span::styled(
                format!("  fix: {}", sanitize(fix, 300)),
                theme::VALUE,
            )));
        }
    }
    node_lines(n, &mut out);
    let bounds = match n.bounds {
        Some(b) => format!("{},{}  {}×{}", b.x, b.y, b.width, b.height),
        None => "—".into(),
    };
    let fresh = match &app.panes.details.read {
        Some((id, None)) if *id == n.id => "",
        Some((id, Some(_))) if *id == n.id => "  (read failed)",
        _ => "  (reading…)",
    };
    out.push(Line::from(vec![
        Span::styled(format!("{:<12}", "bounds"), theme::LABEL),
        Span::raw(bounds),
        Span::styled(fresh, theme::DIM),
    ]));
    if let Some(why) = app.highlight_problem() {
        out.push(field(
            "highlight",
            format!("none: {}", sanitize(&why, 120)),
            theme::DIM,
        ));
    } else if app.highlight.shown.is_some() {
        out.push(field(
            "highlight",
            if app.highlight.held {
                "framed on screen (held; o lets go)".into()
            } else {
                "framed on screen".into()
            },
            theme::OK,
        ));
    }
    if let Some(m) = &tree.snap.nodes[row].managed {
        // Its children were not enumerated (that can hang the app): say what was read instead.
        out.push(field("children", m.describe(), theme::WARN));
    }
    out.push(field("path", crate::tui::path(&tree.snap, row), theme::DIM));
    out.push(field(
        "token",
        tree.snap.token(row).to_string(),
        theme::LABEL,
    ));
    out.push(match app.suggestion() {
        Some(t) => target_line(t),
        None => field("target", "(no unique target)".into(), theme::WARN),
    });
    out.push(field(
        "id",
        crate::model::literal(&n.id.0, 80).into_owned(),
        theme::DIM,
    ));
    if let Some((_, Some(err))) = &app.panes.details.read {
        out.push(Line::from(Span::styled(
            format!("fresh read failed: {}", sanitize(err, 120)),
            theme::BAD,
        )));
    }
    let mut hint = Vec::new();
    if n.is_editable_kind() {
        hint.push("e set value");
    }
    if !n.actions.is_empty() {
        hint.push("i invoke");
    }
    hint.push("y copy");
    out.push(Line::from(""));
    out.push(Line::from(Span::styled(hint.join(" · "), theme::DIM)));
    for f in here {
        let rule = f.rule;
        out.push(Line::from(""));
        out.push(Line::from(vec![
            Span::styled(rule.id, crate::tui::view::severity_style(rule.severity)),
            Span::styled(
                format!(" ({}, {}): {}", rule.severity, rule.standard, rule.message),
                theme::LABEL,
            ),
        ]));
        out.push(Line::from(Span::styled(rule.help, theme::DIM)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Pane;
    use super::super::testing::{app, draw, rows};

    #[test]
    fn the_selected_element_and_where_the_view_is_when_it_scrolls() {
        let mut a = app(120, 40);
        let snap = crate::model::Snapshot {
            id: crate::model::SnapshotId(0x2b),
            ..crate::tui::tree::tests::snap()
        };
        a.view.tree = Some(crate::tui::tree::TreeState::new(
            crate::model::NodeId("f".into()),
            snap,
            false,
            Default::default(),
        ));
        a.select_line(2);
        let buf = draw(&a, Pane::Details, 40, 8);
        let before = rows(&buf);
        assert_eq!(
            before,
            [
                "┌ Details 1–6 of 15 (J/K) ─────────────┐",
                "│role        button  (raw: x)          │",
                "│name        A                         │",
                "│description —                         │",
                "│value       —                         │",
                "│states                                │",
                "│interfaces                            │",
                "└──────────────────────────────────────┘",
            ]
        );
        // Scrolled for this element: the title says where the view is.
        a.panes.details.scrolled = Some((crate::model::NodeId("a".into()), 3));
        let after = rows(&draw(&a, Pane::Details, 40, 8));
        assert_eq!(after[0], "┌ Details 4–9 of 15 (J/K) ─────────────┐");
        assert_eq!(after[1..3], before[4..6]);
        // Another selection starts at the top.
        a.select_line(3);
        assert!(rows(&draw(&a, Pane::Details, 40, 8))[0].contains(" 1–6 of "));
    }

    #[test]
    fn nothing_selected() {
        let a = app(120, 40);
        assert_eq!(
            rows(&draw(&a, Pane::Details, 24, 3)),
            [
                "┌ Details ─────────────┐",
                "│nothing selected      │",
                "└──────────────────────┘",
            ]
        );
    }
}
