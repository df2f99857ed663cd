//! The selection: the tree pane's selected element (by line, by row, kept across collapse,
//! folding and hiding), and the window shown. Moving in each pane is the pane's own
//! (`pane/`).

use super::app::{App, Effect, Selection, Shown};

impl App {
    pub(crate) fn show_window(&mut self, shown: Shown, fx: &mut Vec<Effect>) {
        let same = self
            .view
            .shown
            .as_ref()
            .is_some_and(|s| s.window == shown.window);
        self.view.shown = Some(shown);
        if !same {
            self.view.tree = None;
            self.view.selection = None;
            self.view.offset = 0;
            self.filter.matches.clear();
            self.panes.events.lines.clear();
            self.view.loading = true;
            self.pending.snapshot_inflight = false;
        }
        self.request_snapshot(fx);
    }

    /// Selects the element on `line`.
    pub fn select_line(&mut self, line: usize) {
        let Some(tree) = &self.view.tree else {
            return;
        };
        let Some(l) = tree.lines.get(line.min(tree.lines.len().saturating_sub(1))) else {
            return;
        };
        let row = l.row;
        let line = line.min(tree.lines.len() - 1);
        let id = tree.snap.nodes[row].id.clone();
        self.view.selection = Some(Selection {
            id,
            row,
            line,
            gone: None,
        });
    }

    /// Selects `row`, expanding its ancestors so it is on a line (centred when it was off
    /// screen).
    pub fn select_row(&mut self, row: usize) {
        self.panes.tree.center = true;
        let Some(tree) = &mut self.view.tree else {
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
        self.view.selection = Some(Selection {
            id,
            row: shown_row,
            line,
            gone: None,
        });
    }

    /// After lines changed (collapse, raw, hide): find the selection's line again.
    pub(super) fn relocate_selection(&mut self) {
        let Some(tree) = &self.view.tree else {
            return;
        };
        let Some(sel) = &self.view.selection else {
            return;
        };
        if sel.gone.is_some() {
            let max = tree.lines.len();
            if let Some(s) = &mut self.view.selection {
                s.line = s.line.min(max);
            }
            return;
        }
        match tree.line_of(sel.row) {
            Some(line) => {
                let row = tree.lines[line].row;
                let id = tree.snap.nodes[row].id.clone();
                self.view.selection = Some(Selection {
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
}
