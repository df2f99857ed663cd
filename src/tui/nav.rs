//! Moving around: the tree pane's selection (by line, by row, kept across collapse, folding and
//! hiding), scrolling, the apps pane (choosing the shown window), the writes and events panes.

use super::app::{App, Effect, Pane, Selection, Shown};
use super::keys::Action;

impl App {
    pub(super) fn apps_nav(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let entries = self.app_entries();
        let last = entries.len().saturating_sub(1);
        match action {
            Action::Up => self.apps_sel = self.apps_sel.saturating_sub(1),
            Action::Down => self.apps_sel = (self.apps_sel + 1).min(last),
            Action::First | Action::PageUp => self.apps_sel = 0,
            Action::Last | Action::PageDown => self.apps_sel = last,
            Action::ExpandOrChild | Action::ToggleExpand => self.open_entry(fx),
            _ => {}
        }
    }

    /// Shows the window of the selected apps-pane entry (an app entry picks its first window).
    pub(super) fn open_entry(&mut self, fx: &mut Vec<Effect>) {
        let entries = self.app_entries();
        let Some(e) = entries.get(self.apps_sel).copied() else {
            return;
        };
        let Some(app) = self.apps.get(e.app) else {
            return;
        };
        let w = e.window.unwrap_or(0);
        let Some(win) = app.windows.get(w) else {
            self.notice = Some(format!("{} has no windows", app.name.literal(40)));
            return;
        };
        let shown = Shown {
            app_name: app.name.clone(),
            bus_name: app.bus_name.clone(),
            window: win.id.clone(),
            title: win.name.clone(),
            gone: false,
            exited: false,
            silent_since: None,
        };
        self.show_window(shown, fx);
        self.open_error = None;
        self.focus = Pane::Tree;
    }

    pub(super) fn show_window(&mut self, shown: Shown, fx: &mut Vec<Effect>) {
        let same = self
            .shown
            .as_ref()
            .is_some_and(|s| s.window == shown.window);
        self.shown = Some(shown);
        if !same {
            self.tree = None;
            self.selection = None;
            self.tree_offset = 0;
            self.filter.matches.clear();
            self.events.clear();
            self.loading = true;
            self.pending.snapshot_inflight = false;
        }
        self.request_snapshot(fx);
    }

    pub(super) fn writes_nav(&mut self, action: Action) {
        // The list shows newest first; `writes_sel` indexes `writes` (oldest first).
        let n = self.writes.len();
        if n == 0 {
            return;
        }
        match action {
            Action::Up => self.writes_sel = (self.writes_sel + 1).min(n - 1),
            Action::Down => self.writes_sel = self.writes_sel.saturating_sub(1),
            Action::First | Action::PageUp => self.writes_sel = n - 1,
            Action::Last | Action::PageDown => self.writes_sel = 0,
            _ => {}
        }
    }

    pub(super) fn events_nav(&mut self, action: Action) {
        let max = self.events.len().saturating_sub(1);
        match action {
            Action::Up => self.events_scroll = (self.events_scroll + 1).min(max),
            Action::Down => self.events_scroll = self.events_scroll.saturating_sub(1),
            Action::PageUp => self.events_scroll = (self.events_scroll + 10).min(max),
            Action::PageDown => self.events_scroll = self.events_scroll.saturating_sub(10),
            Action::First => self.events_scroll = max,
            Action::Last => self.events_scroll = 0,
            _ => {}
        }
    }

    pub(super) fn tree_nav(&mut self, action: Action, page: usize) {
        let Some(tree) = &self.tree else {
            return;
        };
        let n = tree.lines.len();
        if n == 0 {
            return;
        }
        let (cur, gone) = match &self.selection {
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
                        if let Some(t) = &mut self.tree {
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
                        if let Some(t) = &mut self.tree {
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
                    if let Some(t) = &mut self.tree {
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

    /// Selects the element on `line`.
    pub fn select_line(&mut self, line: usize) {
        let Some(tree) = &self.tree else {
            return;
        };
        let Some(l) = tree.lines.get(line.min(tree.lines.len().saturating_sub(1))) else {
            return;
        };
        let row = l.row;
        let line = line.min(tree.lines.len() - 1);
        let id = tree.snap.nodes[row].id.clone();
        self.selection = Some(Selection {
            id,
            row,
            line,
            gone: None,
        });
    }

    /// Selects `row`, expanding its ancestors so it is on a line (centred when it was off
    /// screen).
    pub fn select_row(&mut self, row: usize) {
        self.center = true;
        let Some(tree) = &mut self.tree else {
            return;
        };
        tree.reveal(row);
        let Some(line) = tree.line_of(row) else {
            return;
        };
        let Some(node) = tree.node(row) else {
            return;
        };
        // A folded wrapper shows on its child's line; select what that line shows.
        let shown_row = tree.lines[line].row;
        let id = if shown_row == row {
            node.id.clone()
        } else {
            tree.snap.nodes[shown_row].id.clone()
        };
        self.selection = Some(Selection {
            id,
            row: shown_row,
            line,
            gone: None,
        });
    }

    /// After lines changed (collapse, raw, hide): find the selection's line again.
    pub(super) fn relocate_selection(&mut self) {
        let Some(tree) = &self.tree else {
            return;
        };
        let Some(sel) = &self.selection else {
            return;
        };
        if sel.gone.is_some() {
            let max = tree.lines.len();
            if let Some(s) = &mut self.selection {
                s.line = s.line.min(max);
            }
            return;
        }
        match tree.line_of(sel.row) {
            Some(line) => {
                let row = tree.lines[line].row;
                let id = tree.snap.nodes[row].id.clone();
                self.selection = Some(Selection {
                    id,
                    row,
                    line,
                    gone: None,
                });
            }
            None => {
                // Hidden under a collapsed or filtered-out ancestor: select the nearest line
                // above it.
                let i = tree.lines.partition_point(|l| l.row < sel.row);
                self.select_line(i.saturating_sub(1));
            }
        }
    }

    pub(super) fn fix_scroll(&mut self) {
        let h = self.tree_height().max(1);
        let Some(tree) = &self.tree else {
            self.tree_offset = 0;
            return;
        };
        let extra = usize::from(self.selection.as_ref().is_some_and(|s| s.gone.is_some()));
        let total = tree.lines.len() + extra;
        let line = self.selection.as_ref().map_or(0, |s| s.line);
        let off_screen = line < self.tree_offset || line >= self.tree_offset + h;
        if std::mem::take(&mut self.center) && off_screen {
            self.tree_offset = line.saturating_sub(h / 2);
        } else if line < self.tree_offset {
            self.tree_offset = line;
        } else if line >= self.tree_offset + h {
            self.tree_offset = line + 1 - h;
        }
        self.tree_offset = self.tree_offset.min(total.saturating_sub(h));
    }
}
