//! The filter: a target (or plain text) typed live, its matches and uniqueness badge, jumping
//! between matches and hiding branches without matches. Typing in the bar, and the bar
//! itself, are `overlay::filter`'s.

use super::app::App;
use super::input::LineInput;
use super::overlay::Mode;
use crate::selector::{ParseError, Target};

/// The filter bar's uniqueness badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Badge {
    /// No filter.
    None,
    Unique,
    Many(usize),
    NoMatch,
    /// The tree was cut short: `found` nodes match what was read.
    Incomplete {
        found: usize,
    },
    /// The tree is still being read: `found` nodes match what has come so far.
    Reading {
        found: usize,
    },
    /// The filter does not parse.
    Error,
}

impl Badge {
    pub fn text(self) -> String {
        match self {
            Badge::None => String::new(),
            Badge::Unique => "unique".into(),
            Badge::Many(n) => format!("{n} matches"),
            Badge::NoMatch => "no match".into(),
            Badge::Incomplete { found } => format!("incomplete tree ({found} found)"),
            Badge::Reading { found } => format!("reading… ({found} found so far)"),
            Badge::Error => "syntax error".into(),
        }
    }
}

/// The filter bar.
#[derive(Debug, Default)]
pub struct Filter {
    pub input: LineInput,
    pub target: Option<Target>,
    pub error: Option<ParseError>,
    /// Rows in the winning tier, in row (and display) order.
    pub matches: Vec<usize>,
    pub hide: bool,
    pub badge: Option<Badge>,
    /// The row selected when `/` was pressed: typing searches from there.
    pub(super) origin: Option<usize>,
}

impl Filter {
    pub fn active(&self) -> bool {
        !self.input.text.trim().is_empty()
    }

    pub fn is_match(&self, row: usize) -> bool {
        self.matches.binary_search(&row).is_ok()
    }
}

impl App {
    pub(super) fn clear_filter(&mut self) {
        self.filter.input = LineInput::default();
        if matches!(self.mode, Mode::Filter(_)) {
            self.mode = Mode::Normal;
        }
        self.refilter();
    }

    /// Re-parses the filter and recomputes matches, badge and the hidden set.
    pub fn refilter(&mut self) {
        let f = &mut self.filter;
        let text = f.input.text.trim();
        if text.is_empty() {
            f.target = None;
            f.error = None;
            f.matches.clear();
            f.badge = None;
        } else {
            match Target::parse_lenient(&f.input.text) {
                Ok(t) => {
                    f.error = None;
                    f.matches = match &self.view.tree {
                        Some(tree) => crate::selector::matches(&tree.index, &tree.snap, &t),
                        None => Vec::new(),
                    };
                    let complete = self.view.tree.as_ref().is_none_or(|t| t.snap.complete());
                    let reading = self.view.tree.as_ref().is_some_and(|t| {
                        t.snap.truncated == Some(crate::model::Truncation::Reading)
                    });
                    f.badge = Some(if reading {
                        Badge::Reading {
                            found: f.matches.len(),
                        }
                    } else if !complete {
                        Badge::Incomplete {
                            found: f.matches.len(),
                        }
                    } else {
                        match f.matches.len() {
                            0 => Badge::NoMatch,
                            1 => Badge::Unique,
                            n => Badge::Many(n),
                        }
                    });
                    f.target = Some(t);
                }
                Err(e) => {
                    f.error = Some(e);
                    f.target = None;
                    f.badge = Some(Badge::Error);
                    // Keep the previous matches visible while the user is mid-syntax.
                    return;
                }
            }
        }
        self.apply_hide();
    }

    pub(super) fn apply_hide(&mut self) {
        let Some(tree) = &mut self.view.tree else {
            return;
        };
        let want = self.filter.hide && self.filter.active() && self.filter.error.is_none();
        if want {
            let keep = tree.keep_set(&self.filter.matches);
            tree.set_keep(Some(keep));
        } else if tree.hiding() {
            tree.set_keep(None);
        } else {
            return;
        }
        self.relocate_selection();
    }

    /// While typing: go to the first match at or after where the search started (wrapping).
    pub(super) fn incsearch(&mut self) {
        let m = &self.filter.matches;
        let Some(&first) = m.first() else {
            return;
        };
        let from = self.filter.origin.unwrap_or(0);
        let next = m
            .get(m.partition_point(|&x| x < from))
            .copied()
            .unwrap_or(first);
        if self.selected_node().map(|(r, _)| r) != Some(next) {
            self.select_row(next);
        }
    }

    /// Moves to the next (or previous) match after the selection; `inclusive` accepts the
    /// selection itself.
    pub(super) fn jump_match(&mut self, forward: bool, inclusive: bool) {
        let m = &self.filter.matches;
        if m.is_empty() {
            if self.filter.active() {
                self.notice = Some("no match".into());
            }
            return;
        }
        let cur = self.selected_node().map(|(r, _)| r);
        let next = match cur {
            None => m[0],
            Some(r) => {
                if forward {
                    let i = if inclusive {
                        m.partition_point(|&x| x < r)
                    } else {
                        m.partition_point(|&x| x <= r)
                    };
                    *m.get(i).unwrap_or(&m[0])
                } else {
                    let i = m.partition_point(|&x| x < r);
                    if i == 0 { m[m.len() - 1] } else { m[i - 1] }
                }
            }
        };
        let total = m.len();
        let pos = m.partition_point(|&x| x < next) + 1;
        self.select_row(next);
        if !self.filter_editing() {
            self.notice = Some(format!("match {pos} of {total}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn badges_read_well() {
        assert_eq!(Badge::Many(3).text(), "3 matches");
        assert_eq!(
            Badge::Incomplete { found: 1 }.text(),
            "incomplete tree (1 found)"
        );
    }
}
