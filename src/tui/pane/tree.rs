//! The tree pane: the window's folded (or raw) tree, virtualised — only the lines on screen
//! are built — with the match marker, collapse state, a badge on elements with accessibility
//! findings (the worst rule, coloured by its severity) and the selection (or where a vanished
//! selected element was).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::Pane;
use crate::model::sanitize;
use crate::tui::app::{App, Effect};
use crate::tui::keys::Action;
use crate::tui::layout::Place;
use crate::tui::tree::TreeState;
use crate::tui::view::{block, fit, node_spans, pad, severity_style, theme};

/// The tree pane's own state. The tree itself, the selection and the scroll (`App::view`:
/// `tree`, `selection`, `offset`) are the whole app's: reads, events, the filter, findings
/// and writes all move them.
#[derive(Debug, Default)]
pub struct State {
    /// The next scroll puts an off-screen selection in the middle (after jumps).
    pub(crate) center: bool,
}

pub(crate) struct Unit;

impl super::Unit for Unit {
    fn place(&self) -> Place {
        Place::Middle
    }

    fn takes_focus(&self, _area: Rect) -> bool {
        true
    }

    fn key(&self, app: &mut App, action: Action, _fx: &mut Vec<Effect>) -> bool {
        if !super::moves(action) {
            return false;
        }
        let page = app.tree_height().max(1);
        app.tree_nav(action, page);
        true
    }

    fn wheel(&self, app: &mut App, down: bool, _fx: &mut Vec<Effect>) {
        let n = app.view.tree.as_ref().map_or(0, |t| t.lines.len());
        let h = app.tree_height();
        app.view.offset = if down {
            (app.view.offset + 3).min(n.saturating_sub(h))
        } else {
            app.view.offset.saturating_sub(3)
        };
        // Keep the selection on screen, as a scrolled list does.
        if let Some(s) = &app.view.selection {
            let line = s
                .line
                .clamp(app.view.offset, app.view.offset + h.saturating_sub(1));
            if line != s.line {
                app.select_line(line);
            }
        }
    }

    fn click(&self, app: &mut App, i: usize, _fx: &mut Vec<Effect>) {
        let line = app.view.offset + i;
        let gone_at = app
            .view
            .selection
            .as_ref()
            .filter(|s| s.gone.is_some())
            .map(|s| s.line);
        let line = match gone_at {
            Some(g) if line == g => return,
            Some(g) if line > g => line - 1,
            _ => line,
        };
        if app.view.tree.as_ref().is_some_and(|t| line < t.lines.len()) {
            app.select_line(line);
        }
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, area: Rect) {
        render(app, frame, area);
    }
}

impl App {
    fn tree_nav(&mut self, action: Action, page: usize) {
        let Some(tree) = &self.view.tree else {
            return;
        };
        let n = tree.lines.len();
        if n == 0 {
            return;
        }
        let (cur, gone) = match &self.view.selection {
            Some(s) => (s.line.min(n - 1), s.gone.is_some()),
            None => (0, false),
        };
        // A gone element sits between lines `line - 1` and `line`.
        let target = match action {
            Action::Up => cur.saturating_sub(1),
            Action::Down => {
                if gone {
                    cur
                } else {
                    (cur + 1).min(n - 1)
                }
            }
            Action::PageUp => cur.saturating_sub(page),
            Action::PageDown => (cur + page).min(n - 1),
            Action::First => 0,
            Action::Last => n - 1,
            Action::CollapseOrParent => {
                if gone {
                    cur
                } else {
                    let row = tree.lines[cur].row;
                    if tree.has_children(row) && !tree.is_collapsed(row) {
                        if let Some(t) = &mut self.view.tree {
                            t.set_collapsed(row, true);
                        }
                        self.relocate_selection();
                        return;
                    }
                    // The parent line: the nearest earlier line with a smaller level.
                    let level = tree.lines[cur].level;
                    (0..cur)
                        .rev()
                        .find(|&i| tree.lines[i].level < level)
                        .unwrap_or(cur)
                }
            }
            Action::ExpandOrChild => {
                if gone {
                    cur
                } else {
                    let row = tree.lines[cur].row;
                    if tree.is_collapsed(row) {
                        if let Some(t) = &mut self.view.tree {
                            t.set_collapsed(row, false);
                        }
                        self.relocate_selection();
                        return;
                    }
                    let level = tree.lines[cur].level;
                    match tree.lines.get(cur + 1) {
                        Some(l) if l.level > level => cur + 1,
                        _ => cur,
                    }
                }
            }
            Action::ToggleExpand => {
                if !gone {
                    let row = tree.lines[cur].row;
                    let on = !tree.is_collapsed(row);
                    if let Some(t) = &mut self.view.tree {
                        t.set_collapsed(row, on);
                    }
                    self.relocate_selection();
                }
                return;
            }
            _ => cur,
        };
        self.select_line(target);
    }

    pub(crate) fn fix_scroll(&mut self) {
        let h = self.tree_height().max(1);
        let Some(tree) = &self.view.tree else {
            self.view.offset = 0;
            return;
        };
        let extra = usize::from(
            self.view
                .selection
                .as_ref()
                .is_some_and(|s| s.gone.is_some()),
        );
        let total = tree.lines.len() + extra;
        let line = self.view.selection.as_ref().map_or(0, |s| s.line);
        let off_screen = line < self.view.offset || line >= self.view.offset + h;
        if std::mem::take(&mut self.panes.tree.center) && off_screen {
            self.view.offset = line.saturating_sub(h / 2);
        } else if line < self.view.offset {
            self.view.offset = line;
        } else if line >= self.view.offset + h {
            self.view.offset = line + 1 - h;
        }
        self.view.offset = self.view.offset.min(total.saturating_sub(h));
    }
}

fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let (mut title, mut right, droppable) = titles(app);
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
    let Some(tree) = &app.view.tree else {
        frame.render_widget(Paragraph::new(no_tree(app)), inner);
        return;
    };
    let h = inner.height as usize;
    let silent = app
        .view
        .shown
        .as_ref()
        .is_some_and(|s| s.silent_since.is_some());
    let mut out = lines(app, tree, inner.width as usize, h);
    if tree.lines.is_empty() {
        out.push(Line::from(Span::styled(
            "(nothing to show: every branch is hidden)",
            theme::DIM,
        )));
    }
    // A tree this small usually means the toolkit has not exposed the app: say why.
    if tree.snap.nodes.len() <= crate::doctor::TINY_TREE
        && !silent
        && let (Some(report), Some(s)) = (&app.diagnosis, &app.view.shown)
    {
        let pid = app
            .apps
            .iter()
            .find(|a| a.bus_name == s.bus_name)
            .and_then(|a| a.pid);
        out.push(Line::default());
        out.extend(crate::tui::view::doctor::lines(
            report,
            Some((&s.app_name, pid)),
        ));
        out.truncate(h);
        // Prose, not tree lines: wrapped, so no fix is cut off at the pane's edge.
        frame.render_widget(Paragraph::new(out).wrap(Wrap { trim: false }), inner);
        return;
    }
    frame.render_widget(Paragraph::new(out), inner);
}

/// The pane's titles: the left (what happened to the window, its name), the right (the
/// snapshot's figures, the reading and incomplete warnings) and how many of the right's first
/// spans may be dropped for room.
fn titles(app: &App) -> (Vec<Span<'static>>, Vec<Span<'static>>, usize) {
    let mut title = vec![Span::styled(" Tree ", theme::LABEL)];
    if let Some(s) = &app.view.shown {
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
    if let Some(t) = &app.view.tree {
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
        if let Some(n) = app.view.read_progress.filter(|n| *n > 0) {
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
            // What the read left out, as the account of `tree --json` counts it: the cap that
            // cut it, the elements that could not be read, those read only in part.
            let mut why: Vec<String> = t.snap.truncated.iter().map(|x| x.as_str().into()).collect();
            if t.snap.unreadable > 0 {
                why.push(format!("{} unreadable", t.snap.unreadable));
            }
            let part = t.snap.partial();
            if part > 0 {
                why.push(format!("{part} read in part"));
            }
            right.push(Span::styled(
                format!(" incomplete: {} ", why.join(", ")),
                theme::WARN,
            ));
        }
    }
    (title, right, droppable)
}

/// What the pane says while there is no tree: why the window asked for could not be opened,
/// that the app does not answer, the read's progress, or that no window is chosen.
fn no_tree(app: &App) -> Vec<Line<'static>> {
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
        return lines;
    }
    let silent = app
        .view
        .shown
        .as_ref()
        .is_some_and(|s| s.silent_since.is_some());
    let msg = match (app.view.loading, app.view.read_progress) {
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
    vec![Line::from(Span::styled(msg, theme::DIM))]
}

/// The tree's lines on screen, from `TreeView::offset`: a vanished selection where it was,
/// then each line's node with its marks.
fn lines(app: &App, tree: &TreeState, width: usize, h: usize) -> Vec<Line<'static>> {
    let sel = app.view.selection.as_ref();
    let gone_at = sel.filter(|s| s.gone.is_some()).map(|s| s.line);
    // The app does not answer: the last tree it gave, greyed.
    let silent = app
        .view
        .shown
        .as_ref()
        .is_some_and(|s| s.silent_since.is_some());
    let mut out: Vec<Line<'static>> = Vec::with_capacity(h);
    let mut i = app.view.offset;
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
        let selected = sel.is_some_and(|s| s.gone.is_none() && s.line == li);
        let line = fit(line_of(app, tree, l, n, silent), width);
        out.push(if selected {
            pad(line, width).style(theme::selected())
        } else {
            line
        });
    }
    out
}

/// One line of the tree: the match marker, indent and twisty, the node, what is folded or
/// collapsed into it, its notes, its worst finding and an unconfirmed write; greyed when the
/// app does not answer.
fn line_of(
    app: &App,
    tree: &TreeState,
    l: &crate::fold::Line,
    n: &crate::model::Node,
    silent: bool,
) -> Line<'static> {
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
                severity_style(f.rule.severity),
            ));
        }
    }
    if app.writes.unconfirmed.contains(&n.id) {
        spans.push(Span::styled("  ⚠ unconfirmed write", theme::BAD));
    }
    if silent {
        Line::from(
            spans
                .into_iter()
                .map(|s| Span::styled(s.content, theme::DIM))
                .collect::<Vec<_>>(),
        )
    } else {
        Line::from(spans)
    }
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
    let mut cut = crate::tui::view::cut_to(&name.content, keep);
    cut.push_str("… ");
    name.content = cut.into();
}

#[cfg(test)]
mod tests {
    use super::super::testing::{app, draw, rows};
    use super::*;
    use crate::model::{NodeId, Snapshot, SnapshotId};

    /// The tree of `tui::tree`'s tests, under a snapshot id of its own.
    fn with_tree() -> App {
        let snap = Snapshot {
            id: SnapshotId(0x2a),
            ..crate::tui::tree::tests::snap()
        };
        let mut a = app(120, 40);
        a.view.loading = false;
        a.view.tree = Some(TreeState::new(
            NodeId("f".into()),
            snap,
            false,
            Default::default(),
        ));
        a
    }

    #[test]
    fn the_folded_tree_with_its_figures_and_the_selection_marked() {
        let mut a = with_tree();
        a.select_line(2);
        let buf = draw(&a, Pane::Tree, 48, 8);
        assert_eq!(
            rows(&buf),
            [
                "┏ Tree ━━━━━━━━━━ s0000002a · 6 nodes · folded ┓",
                "┃  ▾ frame \"F\" [disabled]                      ┃",
                "┃    ▾ group \"G\" [disabled]  ⟨1 folded⟩        ┃",
                "┃        button \"A\" [disabled]                 ┃",
                "┃        button \"B\" [disabled]                 ┃",
                "┃      label \"C\" [disabled]                    ┃",
                "┃                                              ┃",
                "┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛",
            ]
        );
        assert_eq!(buf[(1, 3)].bg, ratatui::style::Color::Blue);
        assert_eq!(buf[(1, 2)].bg, ratatui::style::Color::Reset);
    }

    #[test]
    fn without_a_tree_it_says_what_is_happening() {
        let mut a = app(120, 40);
        assert_eq!(
            rows(&draw(&a, Pane::Tree, 36, 3))[1],
            "┃reading the tree… (Esc stops)     ┃"
        );
        a.view.loading = false;
        assert_eq!(
            rows(&draw(&a, Pane::Tree, 46, 3))[1],
            "┃no window (choose one in the apps pane)     ┃"
        );
    }

    #[test]
    fn a_click_selects_the_line_and_the_wheel_keeps_it_on_screen() {
        let mut a = with_tree();
        let unit = Pane::Tree.unit();
        let mut fx = Vec::new();
        unit.click(&mut a, 3, &mut fx);
        assert_eq!(a.view.selection.as_ref().map(|s| s.line), Some(3));
        assert!(unit.key(&mut a, Action::Up, &mut fx));
        assert_eq!(a.view.selection.as_ref().map(|s| s.line), Some(2));
        assert!(!unit.key(&mut a, Action::SetValue, &mut fx));
        assert!(fx.is_empty());
    }

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
