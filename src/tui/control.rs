//! Input to the main view: keys through the keymap to actions, the mouse (clicks select, the
//! wheel scrolls the pane under the pointer) and bracketed paste.

use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};

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
        let page = self.tree_height().max(1);
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.mode = Mode::Help { scroll: 0 },
            Action::DetailsDown => self.scroll_details(3),
            Action::DetailsUp => self.scroll_details(-3),
            Action::Escape => {
                // A read in progress is stopped first (it keeps what it read); then the filter.
                if self.pending.snapshot_inflight || self.loading {
                    fx.push(Effect::CancelRead);
                } else if self.filter.active() {
                    self.clear_filter();
                }
            }
            Action::Filter => {
                self.mode = Mode::Filter;
                self.filter.origin = self.selected_node().map(|(r, _)| r);
                self.focus = Pane::Tree;
            }
            Action::NextMatch => self.jump_match(true, false),
            Action::PrevMatch => self.jump_match(false, false),
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
            Action::Highlight => self.toggle_highlight(),
            Action::WriteChanges => self.open_write_changes(),
            Action::Mark => self.mark_tree(),
            Action::MarkDiff => self.open_mark_diff(),
            Action::Findings => self.open_findings(),
            Action::NextFinding => self.step_finding(true),
            Action::PrevFinding => self.step_finding(false),
            Action::SetValue if self.focus == Pane::Apps => self.open_entry(fx),
            Action::SetValue => self.open_prompt(),
            Action::Invoke => {
                if let Some((_, n)) = self.selected_node() {
                    let id = n.id.clone();
                    self.start_invoke(id, None, fx);
                } else {
                    self.notice = Some("no element selected".into());
                }
            }
            Action::ActionMenu => {
                if let Some((_, n)) = self.selected_node() {
                    // Trees are read without action names (they cost a call each); the details
                    // pane's fresh read of the selection brings them.
                    let read = self
                        .details_read
                        .as_ref()
                        .is_some_and(|(id, err)| *id == n.id && err.is_none());
                    if n.actions.is_empty()
                        && !read
                        && n.interfaces.has(crate::model::Interface::Action)
                    {
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
            }
            Action::CopyMenu => {
                if self.selected_node().is_some() {
                    self.open_copy_menu();
                } else {
                    self.notice = Some("no element selected".into());
                }
            }
            Action::FollowFocus => {
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
            Action::ToggleEvents => {
                self.show_events = !self.show_events;
                if !self.show_events && self.focus == Pane::Events {
                    self.focus = Pane::Tree;
                }
            }
            Action::NextPane | Action::PrevPane => {
                let mut panes = Vec::new();
                if self.areas().apps.width > 0 {
                    panes.push(Pane::Apps);
                }
                panes.push(Pane::Tree);
                if self.areas().writes.height > 0 {
                    panes.push(Pane::Writes);
                }
                if self.show_events && self.areas().events.height > 0 {
                    panes.push(Pane::Events);
                }
                let i = panes.iter().position(|p| *p == self.focus).unwrap_or(0);
                let n = panes.len();
                let next = if action == Action::NextPane {
                    (i + 1) % n
                } else {
                    (i + n - 1) % n
                };
                self.focus = panes[next];
            }
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
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::First
            | Action::Last
            | Action::CollapseOrParent
            | Action::ExpandOrChild
            | Action::ToggleExpand => match self.focus {
                Pane::Apps => self.apps_nav(action, fx),
                Pane::Writes => self.writes_nav(action),
                Pane::Events => self.events_nav(action),
                Pane::Tree => self.tree_nav(action, page),
            },
        }
    }

    // ----- mouse and paste -----

    pub(super) fn on_mouse(&mut self, m: MouseEvent, fx: &mut Vec<Effect>) {
        if !matches!(self.mode, Mode::Normal | Mode::Filter) {
            return;
        }
        let a = self.areas();
        let (x, y) = (m.column, m.row);
        let pane = if layout::hit(a.tree, x, y) {
            Some(Pane::Tree)
        } else if layout::hit(a.apps, x, y) {
            Some(Pane::Apps)
        } else if layout::hit(a.writes, x, y) {
            Some(Pane::Writes)
        } else if layout::hit(a.events, x, y) {
            Some(Pane::Events)
        } else {
            None
        };
        let Some(pane) = pane else {
            if layout::hit(a.filter, x, y) && matches!(m.kind, MouseEventKind::Down(_)) {
                self.mode = Mode::Filter;
            }
            if layout::hit(a.details, x, y) {
                match m.kind {
                    MouseEventKind::ScrollDown => self.scroll_details(3),
                    MouseEventKind::ScrollUp => self.scroll_details(-3),
                    _ => {}
                }
            }
            return;
        };
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                match pane {
                    Pane::Tree => {
                        let n = self.tree.as_ref().map_or(0, |t| t.lines.len());
                        let h = self.tree_height();
                        self.tree_offset = if down {
                            (self.tree_offset + 3).min(n.saturating_sub(h))
                        } else {
                            self.tree_offset.saturating_sub(3)
                        };
                        // Keep the selection on screen, as a scrolled list does.
                        if let Some(s) = &self.selection {
                            let line = s
                                .line
                                .clamp(self.tree_offset, self.tree_offset + h.saturating_sub(1));
                            if line != s.line {
                                self.select_line(line);
                            }
                        }
                    }
                    Pane::Events => self.events_nav(if down { Action::Down } else { Action::Up }),
                    Pane::Writes => self.writes_nav(if down { Action::Down } else { Action::Up }),
                    Pane::Apps => self.apps_nav(if down { Action::Down } else { Action::Up }, fx),
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = pane;
                let inner = match pane {
                    Pane::Tree => layout::inner(a.tree),
                    Pane::Apps => layout::inner(a.apps),
                    Pane::Writes => layout::inner(a.writes),
                    Pane::Events => layout::inner(a.events),
                };
                if y < inner.y || y >= inner.y + inner.height {
                    return;
                }
                let i = (y - inner.y) as usize;
                match pane {
                    Pane::Tree => {
                        let line = self.tree_offset + i;
                        let gone_at = self
                            .selection
                            .as_ref()
                            .filter(|s| s.gone.is_some())
                            .map(|s| s.line);
                        let line = match gone_at {
                            Some(g) if line == g => return,
                            Some(g) if line > g => line - 1,
                            _ => line,
                        };
                        if self.tree.as_ref().is_some_and(|t| line < t.lines.len()) {
                            self.select_line(line);
                        }
                    }
                    Pane::Apps => {
                        let n = self.app_entries().len();
                        if i < n {
                            self.apps_sel = i;
                            self.open_entry(fx);
                        }
                    }
                    Pane::Writes => {
                        let n = self.writes.len();
                        if i < n {
                            self.writes_sel = n - 1 - i;
                        }
                    }
                    Pane::Events => {}
                }
            }
            _ => {}
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
