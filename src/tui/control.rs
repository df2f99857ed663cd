//! Input to the main view: keys through the keymap to actions (the open overlay takes them
//! first), and the mouse (clicks select, the wheel scrolls the pane under the pointer).

use crossterm::event::{KeyEvent, MouseEvent, MouseEventKind};

use super::app::{App, Effect, Pane};
use super::keys::{self, Action};
use super::layout;
use super::overlay::Mode;
use crate::model::State;

/// The status line while F5's read is under way (replaced when it ends).
pub(super) const REREADING: &str = "re-reading";

impl App {
    // ----- keys -----

    pub(super) fn on_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) {
        if self.overlay_key(k, fx) {
            return;
        }
        let Some(action) = keys::action_for(&k) else {
            return;
        };
        self.main_action(action, fx);
    }

    pub(super) fn main_action(&mut self, action: Action, fx: &mut Vec<Effect>) {
        // The focused pane's own keys first (moving in it, opening its entry).
        if self.focus.unit().key(self, action, fx) {
            return;
        }
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.mode = Mode::Help(Default::default()),
            Action::DetailsDown => self.scroll_details(3),
            Action::DetailsUp => self.scroll_details(-3),
            Action::Escape => self.escape(fx),
            Action::Filter => {
                self.mode = Mode::Filter(Default::default());
                self.filter.origin = self.selected_node().map(|(r, _)| r);
                self.focus = Pane::Tree;
            }
            Action::NextMatch => self.jump_match(true, false),
            Action::PrevMatch => self.jump_match(false, false),
            Action::HideNonMatching | Action::ToggleRaw | Action::ShowingOnly => {
                self.tree_view(action)
            }
            Action::Highlight => self.toggle_highlight(),
            Action::WriteChanges => self.open_write_changes(),
            Action::Mark => self.mark_tree(),
            Action::MarkDiff => self.open_mark_diff(),
            Action::Findings => self.open_findings(),
            Action::NextFinding => self.step_finding(true),
            Action::PrevFinding => self.step_finding(false),
            Action::SetValue => self.open_prompt(),
            Action::Invoke => {
                if let Some((_, n)) = self.selected_node() {
                    let id = n.id.clone();
                    self.start_invoke(id, None, fx);
                } else {
                    self.notice = Some("no element selected".into());
                }
            }
            Action::ActionMenu => self.open_action_menu(),
            Action::CopyMenu => {
                if self.selected_node().is_some() {
                    self.open_copy_menu();
                } else {
                    self.notice = Some("no element selected".into());
                }
            }
            Action::FollowFocus => self.toggle_follow_focus(),
            Action::ToggleEvents => self.toggle_events(),
            Action::NextPane | Action::PrevPane => self.cycle_focus(action == Action::NextPane),
            Action::Record => fx.push(Effect::Record {
                start: !self.recording,
            }),
            Action::Export => fx.push(Effect::Export),
            Action::Refresh => {
                fx.push(Effect::LoadApps);
                self.request_snapshot(fx);
                self.notice = Some(REREADING.into());
            }
            Action::CollapseAll | Action::ExpandAll => {
                if let Some(t) = &mut self.view.tree {
                    t.set_all_collapsed(action == Action::CollapseAll);
                    self.relocate_selection();
                }
            }
            // Moving is the focused pane's (above).
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::First
            | Action::Last
            | Action::CollapseOrParent
            | Action::ExpandOrChild
            | Action::ToggleExpand => {}
        }
    }

    /// Esc: a read in progress is stopped first (it keeps what it read); then the filter.
    fn escape(&mut self, fx: &mut Vec<Effect>) {
        if self.pending.snapshot_inflight || self.view.loading {
            // Stopped means stopped: a read asked for while this one ran does not follow it.
            self.pending.snapshot_again = false;
            fx.push(Effect::CancelRead);
        } else if self.filter.active() {
            self.clear_filter();
        }
    }

    /// What of the tree shows: branches without matches hidden, raw or folded, only what is
    /// showing.
    fn tree_view(&mut self, action: Action) {
        match action {
            Action::HideNonMatching => {
                self.filter.hide = !self.filter.hide;
                self.apply_hide();
                self.notice = Some(if self.filter.hide {
                    "hiding branches without matches".into()
                } else {
                    "showing every branch".into()
                });
            }
            Action::ToggleRaw => {
                if let Some(t) = &mut self.view.tree {
                    t.raw = !t.raw;
                    if t.raw {
                        t.showing_only = false;
                    }
                    t.rebuild_lines();
                    let raw = t.raw;
                    self.relocate_selection();
                    self.notice = Some(if raw {
                        "raw tree: every node".into()
                    } else {
                        "folded tree: unnamed single-child wrappers fold into their child".into()
                    });
                }
            }
            Action::ShowingOnly => {
                if let Some(t) = &mut self.view.tree {
                    let on = !t.showing_only;
                    t.set_showing_only(on);
                    self.relocate_selection();
                    self.notice = Some(if on {
                        "showing view: nodes that are not showing (nor hold one that is) are hidden"
                            .into()
                    } else {
                        "every node, showing or not".into()
                    });
                }
            }
            _ => {}
        }
    }

    /// `f`: follow the focus (selecting the focused element now) or stop.
    fn toggle_follow_focus(&mut self) {
        self.follow_focus = !self.follow_focus;
        if self.follow_focus {
            self.notice = Some("following focus".into());
            let focused = self.view.tree.as_ref().and_then(|t| {
                t.snap
                    .nodes
                    .iter()
                    .position(|n| n.states.has(State::Focused))
            });
            if let Some(row) = focused {
                self.select_row(row);
            }
        } else {
            self.notice = Some("not following focus".into());
        }
    }

    // ----- mouse -----

    pub(super) fn on_mouse(&mut self, m: MouseEvent, fx: &mut Vec<Effect>) {
        if !self.mouse_reaches_panes() {
            return;
        }
        let a = self.areas();
        let (x, y) = (m.column, m.row);
        match Pane::at(&a, x, y) {
            Some(pane) => self.pane_mouse(pane, m, fx),
            None => {
                if layout::hit(a.filter, x, y) && matches!(m.kind, MouseEventKind::Down(_)) {
                    self.mode = Mode::Filter(Default::default());
                }
            }
        }
    }
}
