//! What changed, as a list to walk: the selected write's change set (`c`: where the input
//! landed) and the shown tree against a marked snapshot (`m` marks, `D` compares). Enter on
//! an element selects it in the tree.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Mode, Section, boxed, path_tail};
use crate::diff::{Change, Kind, Tree};
use crate::model::{NodeId, Snapshot, sanitize};
use crate::tui::app::{App, Effect, Pane};
use crate::tui::view::{pad, theme};
use crate::write::landed::Landed;

/// While it is open: the list.
pub type State = ChangeList;

/// The list overlay.
#[derive(Debug, Clone)]
pub struct ChangeList {
    /// What the list is of (escaped).
    pub title: String,
    /// Lines above the list: windows, focus, the likeliest landing place, why nothing was
    /// compared (escaped).
    pub notes: Vec<String>,
    pub items: Vec<ChangeItem>,
    pub selected: usize,
}

/// One changed element.
#[derive(Debug, Clone)]
pub struct ChangeItem {
    pub kind: Kind,
    /// `role "name"` (escaped).
    pub label: String,
    /// Its path (escaped).
    pub path: String,
    /// `field: before → after`, `target …` (escaped).
    pub details: Vec<String>,
    /// Where to go in the tree (`None`: removed, nothing to go to).
    pub id: Option<NodeId>,
}

/// A tree kept to compare the shown one with.
#[derive(Debug, Clone)]
pub struct Mark {
    pub root: NodeId,
    pub snap: Arc<Snapshot>,
    /// `App::clock_ms` when it was marked.
    pub at_ms: u64,
}

fn items(changes: &[Change]) -> Vec<ChangeItem> {
    changes
        .iter()
        .map(|c| {
            // One change's lines as `treeglass diff` prints them, the path line aside.
            let text = crate::diff::lines(std::slice::from_ref(c), "");
            let details = text
                .lines()
                .skip(1)
                .map(|l| l.trim_start().to_string())
                .collect();
            ChangeItem {
                kind: c.kind.clone(),
                label: if c.name.is_empty() {
                    sanitize(&c.role, 60).into_owned()
                } else {
                    format!(
                        "{} {}",
                        sanitize(&c.role, 60),
                        crate::model::quoted(&c.name, 60)
                    )
                },
                path: sanitize(&c.path, 300).into_owned(),
                details,
                id: (c.kind != Kind::Removed).then(|| NodeId(c.id.clone())),
            }
        })
        .collect()
}

impl ChangeList {
    /// A write's change set.
    pub fn of_write(title: String, l: &Landed) -> ChangeList {
        let mut notes = Vec::new();
        if let Some(why) = &l.not_compared {
            notes.push(format!("not compared: {}", sanitize(why, 300)));
        } else if l.changes.is_empty() && l.scrolled.is_empty() {
            notes.push("nothing changed in the window".into());
        }
        if !l.scrolled.is_empty() {
            notes.push(format!(
                "scrolled: {}",
                crate::write::landed::scrolled_text(&l.scrolled)
            ));
        }
        for w in &l.windows_opened {
            notes.push(format!("window opened: {}", crate::model::quoted(w, 120)));
        }
        for w in &l.windows_closed {
            notes.push(format!("window closed: {}", crate::model::quoted(w, 120)));
        }
        if let Some(f) = &l.focus {
            notes.push(format!("focus now: {}", sanitize(f, 300)));
        }
        if let Some(why) = &l.likeliest {
            notes.push(format!("likeliest: {}", sanitize(why, 400)));
        }
        ChangeList {
            title,
            notes,
            items: items(&l.changes),
            selected: 0,
        }
    }
}

pub(crate) struct Unit;

impl super::Overlay for Unit {
    fn key(&self, app: &mut App, k: KeyEvent, _fx: &mut Vec<Effect>) {
        let Mode::Changes(list) = &mut app.mode else {
            return;
        };
        match k.code {
            KeyCode::Up | KeyCode::Char('k') => list.selected = list.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                list.selected = (list.selected + 1).min(list.items.len().saturating_sub(1))
            }
            KeyCode::Enter => {
                let item = list.items.get(list.selected).cloned();
                app.mode = Mode::Normal;
                match item {
                    Some(ChangeItem { id: Some(id), .. }) => app.go_to(&id),
                    Some(_) => app.notice = Some("it was removed: nothing to go to".into()),
                    None => {}
                }
            }
            _ => app.mode = Mode::Normal,
        }
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, over: Rect) {
        if let Mode::Changes(list) = &app.mode {
            render(list, frame, over);
        }
    }

    fn help(&self) -> Option<Section> {
        Some((
            "Changes list (c, D)",
            &[
                ("↑ ↓", "choose a changed element"),
                ("Enter", "select it in the tree"),
                ("Esc", "close"),
            ],
        ))
    }
}

impl App {
    /// `c`: the selected write's change set.
    pub(crate) fn open_write_changes(&mut self) {
        let Some(w) = self.writes.entries.get(self.panes.writes.sel) else {
            self.notice = Some("no writes yet".into());
            return;
        };
        let Some(l) = &w.landed else {
            self.notice = Some(match &w.result {
                None => format!("#{} is still writing", w.id),
                Some(r) if !r.dispatched => format!("#{}: nothing was sent", w.id),
                Some(_) => format!(
                    "#{} is {}: no change set (one is made when a write is not verified)",
                    w.id,
                    w.result.as_ref().map_or("", |r| r.outcome.as_str())
                ),
            });
            return;
        };
        let title = format!("#{} changed elsewhere", w.id);
        self.mode = Mode::Changes(ChangeList::of_write(title, l));
    }

    /// `m`: keep the shown tree to compare with later.
    pub(crate) fn mark_tree(&mut self) {
        let (Some(tree), Some(shown)) = (&self.view.tree, &self.view.shown) else {
            self.notice = Some("no tree to mark".into());
            return;
        };
        if !tree.snap.complete() {
            self.notice = Some("the tree is not read whole yet: nothing marked".into());
            return;
        }
        self.mark = Some(Mark {
            root: shown.window.clone(),
            snap: Arc::new(tree.snap.clone()),
            at_ms: self.clock_ms,
        });
        self.notice = Some(format!(
            "marked this tree ({}): D shows what changed since",
            crate::model::display::counted(tree.snap.nodes.len(), "node", "nodes")
        ));
    }

    /// `D`: the shown tree against the mark.
    pub(crate) fn open_mark_diff(&mut self) {
        let Some(mark) = &self.mark else {
            self.notice = Some("no mark: m marks the shown tree".into());
            return;
        };
        let (Some(tree), Some(shown)) = (&self.view.tree, &self.view.shown) else {
            self.notice = Some("no tree shown".into());
            return;
        };
        if shown.window != mark.root {
            self.notice = Some("the mark is of another window: m marks this one".into());
            return;
        }
        if !tree.snap.complete() {
            self.notice = Some("the tree is not read whole yet: compare when it is".into());
            return;
        }
        let (a, b) = match (
            Tree::from_snapshot(&mark.snap),
            Tree::from_snapshot(&tree.snap),
        ) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                self.notice = Some(format!("cannot compare: {e}"));
                return;
            }
        };
        let changes = crate::diff::diff(&a, &b);
        let secs = self.clock_ms.saturating_sub(mark.at_ms) / 1000;
        let notes = vec![crate::diff::summary(&changes)];
        self.mode = Mode::Changes(ChangeList {
            title: format!("since the mark ({secs} s ago)"),
            notes,
            items: items(&changes),
            selected: 0,
        });
    }

    /// Selects the element `id` in the tree.
    fn go_to(&mut self, id: &NodeId) {
        let Some(row) = self.view.tree.as_ref().and_then(|t| t.row_of(id)) else {
            self.notice = Some("it is not in the shown tree (another window, or gone)".into());
            return;
        };
        self.focus = Pane::Tree;
        self.select_row(row);
    }
}

/// The list of changed elements: notes on top, then each element with its fields; the
/// selected one is kept on screen.
fn render(list: &ChangeList, frame: &mut Frame<'_>, area: Rect) {
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
        let path = path_tail(item.path.clone(), text_w.saturating_sub(13));
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
