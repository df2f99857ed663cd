//! Input to the main view: keys through the keymap to actions, the mouse (clicks select, the
//! wheel scrolls the pane under the pointer) and bracketed paste.

use crossterm::event::{KeyEvent, MouseEvent, MouseEventKind};

use super::app::{App, Effect, Pane};
use super::keys::{self, Action};
use super::layout;
use super::mode::{ActionMenu, Mode, PromptKind};
use crate::model::State;

/// The status line while F5's read is under way (replaced when it ends).
pub(super) const REREADING: &str = "re-reading";

impl App {
    // ----- keys -----

    pub(super) fn on_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) {
        match &self.mode {
            Mode::Normal => {}
            Mode::Help { .. } => return self.help_key(k),
            Mode::Copy(_) => return self.copy_key(k, fx),
            Mode::Actions(_) => return self.action_key(k, fx),
            Mode::Prompt(_) => return self.prompt_key(k, fx),
            Mode::Filter => return self.filter_key(k),
            Mode::Changes(_) => return self.changes_key(k),
            Mode::Findings { .. } => return self.findings_key(k),
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
            Action::Help => self.mode = Mode::Help { scroll: 0 },
            Action::DetailsDown => self.scroll_details(3),
            Action::DetailsUp => self.scroll_details(-3),
            Action::Escape => self.escape(fx),
            Action::Filter => {
                self.mode = Mode::Filter;
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
                if let Some(t) = &mut self.tree {
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
        if self.pending.snapshot_inflight || self.loading {
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
                if let Some(t) = &mut self.tree {
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
                if let Some(t) = &mut self.tree {
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

    /// `a`: the selection's actions, once they are read.
    fn open_action_menu(&mut self) {
        let Some((_, n)) = self.selected_node() else {
            return;
        };
        // Trees are read without action names (they cost a call each); the details pane's
        // fresh read of the selection brings them.
        let read = self
            .panes
            .details
            .read
            .as_ref()
            .is_some_and(|(id, err)| *id == n.id && err.is_none());
        if n.actions.is_empty() && !read && n.interfaces.has(crate::model::Interface::Action) {
            self.notice = Some("reading its actions — press a again".into());
        } else if n.actions.is_empty() {
            self.notice = Some(format!("a {} here has no actions", n.role));
        } else {
            self.mode = Mode::Actions(ActionMenu {
                node: n.id.clone(),
                actions: n.actions.clone(),
                selected: 0,
            });
        }
    }

    /// `f`: follow the focus (selecting the focused element now) or stop.
    fn toggle_follow_focus(&mut self) {
        self.follow_focus = !self.follow_focus;
        if self.follow_focus {
            self.notice = Some("following focus".into());
            let focused = self.tree.as_ref().and_then(|t| {
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

    // ----- mouse and paste -----

    pub(super) fn on_mouse(&mut self, m: MouseEvent, fx: &mut Vec<Effect>) {
        if !matches!(self.mode, Mode::Normal | Mode::Filter) {
            return;
        }
        let a = self.areas();
        let (x, y) = (m.column, m.row);
        match Pane::at(&a, x, y) {
            Some(pane) => self.pane_mouse(pane, m, fx),
            None => {
                if layout::hit(a.filter, x, y) && matches!(m.kind, MouseEventKind::Down(_)) {
                    self.mode = Mode::Filter;
                }
            }
        }
    }

    pub(super) fn on_paste(&mut self, s: &str, _fx: &mut Vec<Effect>) {
        if let Mode::Prompt(p) = &mut self.mode {
            if let PromptKind::Text { input, .. } | PromptKind::Number { input, .. } = &mut p.kind {
                input.insert_str(s);
            }
            return;
        }
        if matches!(self.mode, Mode::Filter) {
            let one_line: String = s.chars().map(|c| if c == '\n' { ' ' } else { c }).collect();
            self.filter.input.insert_str(&one_line);
            self.refilter();
            self.incsearch();
        }
    }
}
