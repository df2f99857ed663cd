//! The panes, each a unit in a file of its own: its state (a field of [`Panes`]), where it
//! sits, whether Tab reaches it, its keys, its wheel, its clicks and its drawing, behind one
//! trait ([`Unit`]). The list in [`panes!`] is the one registration: the update and the view
//! ask a pane through `Pane::unit` and never match on which pane it is.
//!
//! Adding a pane: a file here with its `State` (`Default`) and its `Unit` implementing
//! [`Unit`] (its place on the screen among them), and its line in the list below (with its
//! `mod` line, which stays outside the macro so that `cargo fmt` formats the file).

use crossterm::event::MouseEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::app::{App, Effect};
use super::keys::Action;
use super::layout::{Areas, Place};
use super::overlay::Section;

/// What a pane is and does. Handlers change the `App` they are given and push the IO they
/// need as effects, like the rest of the update: no IO here.
pub(crate) trait Unit: Sync {
    /// Where it sits on the screen; the layout gives it its share of that place.
    fn place(&self) -> Place;
    /// Whether it is on the screen now (a pane that is not has no area).
    fn shown(&self, _app: &App) -> bool {
        true
    }
    /// Whether Tab stops at it when it has `area` (a click on it then gives it the focus too).
    fn takes_focus(&self, area: Rect) -> bool;
    /// An action of the keymap while it has the focus; `true` when it was the pane's own
    /// (moving in the pane, opening its entry), else the main view handles it.
    fn key(&self, _app: &mut App, _action: Action, _fx: &mut Vec<Effect>) -> bool {
        false
    }
    /// The mouse wheel over it: a line down or up, as the arrow keys move in it, unless the
    /// pane scrolls otherwise.
    fn wheel(&self, app: &mut App, down: bool, fx: &mut Vec<Effect>) {
        self.key(app, if down { Action::Down } else { Action::Up }, fx);
    }
    /// A left click on line `line` of its inside (the pane already has the focus when it
    /// takes it).
    fn click(&self, _app: &mut App, _line: usize, _fx: &mut Vec<Effect>) {}
    /// Draws it into `area` from `&App` only.
    fn render(&self, app: &App, frame: &mut Frame<'_>, area: Rect);
    /// Its section of the `?` overlay, when it has keys of its own to list there.
    fn help(&self) -> Option<Section> {
        None
    }
}

/// The list of panes: each line `Name: module`, whose file holds `State` and `Unit`. Tab
/// goes through them in this order.
macro_rules! panes {
    ($($pane:ident: $module:ident,)*) => {
        /// A pane (the keyboard focus is one that takes it).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Pane {
            $($pane,)*
        }

        impl Pane {
            /// Every pane, in Tab order.
            pub const ALL: &'static [Pane] = &[$(Pane::$pane,)*];

            /// What the pane is and does.
            pub(crate) fn unit(self) -> &'static dyn Unit {
                match self {
                    $(Pane::$pane => &$module::Unit,)*
                }
            }
        }

        /// Each pane's own state.
        #[derive(Debug, Default)]
        pub struct Panes {
            $(pub $module: $module::State,)*
        }
    };
}

pub mod apps;
pub mod details;
pub mod events;
pub mod tree;
pub mod writes;

panes! {
    Apps: apps,
    Tree: tree,
    Details: details,
    Writes: writes,
    Events: events,
}

impl Pane {
    /// The pane under the pointer at `(x, y)`, if any.
    pub(crate) fn at(areas: &Areas, x: u16, y: u16) -> Option<Pane> {
        Pane::ALL
            .iter()
            .copied()
            .find(|&p| super::layout::hit(areas.of(p), x, y))
    }
}

/// Whether `action` moves in the focused pane (up, down, by page, to either end, into or out
/// of a branch): every pane takes these, so they never reach the main view.
pub(crate) fn moves(action: Action) -> bool {
    matches!(
        action,
        Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::First
            | Action::Last
            | Action::CollapseOrParent
            | Action::ExpandOrChild
            | Action::ToggleExpand
    )
}

/// Where a moving action takes a list's position (0 at the top, `last` at the bottom): a line
/// up or down, `page` lines up or down, or to either end; other actions leave it.
pub(crate) fn step(pos: usize, last: usize, action: Action, page: usize) -> usize {
    match action {
        Action::Up => pos.saturating_sub(1),
        Action::Down => (pos + 1).min(last),
        Action::PageUp => pos.saturating_sub(page),
        Action::PageDown => (pos + page).min(last),
        Action::First => 0,
        Action::Last => last,
        _ => pos,
    }
}

/// Draws every pane in its area.
pub(crate) fn render(app: &App, frame: &mut Frame<'_>, areas: &Areas) {
    for &p in Pane::ALL {
        p.unit().render(app, frame, areas.of(p));
    }
}

impl App {
    /// The next (or previous) pane Tab reaches from the focused one.
    pub(super) fn cycle_focus(&mut self, forward: bool) {
        let areas = self.areas();
        let panes: Vec<Pane> = Pane::ALL
            .iter()
            .copied()
            .filter(|&p| p.unit().takes_focus(areas.of(p)))
            .collect();
        let n = panes.len();
        if n == 0 {
            return;
        }
        let i = panes.iter().position(|p| *p == self.focus).unwrap_or(0);
        let next = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.focus = panes[next];
    }

    /// The wheel or a click over a pane.
    pub(super) fn pane_mouse(&mut self, pane: Pane, m: MouseEvent, fx: &mut Vec<Effect>) {
        use crossterm::event::{MouseButton, MouseEventKind};
        let unit = pane.unit();
        match m.kind {
            MouseEventKind::ScrollDown => unit.wheel(self, true, fx),
            MouseEventKind::ScrollUp => unit.wheel(self, false, fx),
            MouseEventKind::Down(MouseButton::Left) => {
                let area = self.areas().of(pane);
                if !unit.takes_focus(area) {
                    return;
                }
                self.focus = pane;
                let inner = super::layout::inner(area);
                if m.row < inner.y || m.row >= inner.y + inner.height {
                    return;
                }
                unit.click(self, (m.row - inner.y) as usize, fx);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Drawing one pane into a buffer of its own, as ratatui tests its widgets.

    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::buffer::Buffer;

    use super::Pane;
    use crate::tui::app::{App, Config};

    /// An app on a `width` × `height` screen with nothing read yet.
    pub fn app(width: u16, height: u16) -> App {
        App::new(Config::default(), (width, height))
    }

    /// `pane` drawn from `app` into a `width` × `height` buffer.
    pub fn draw(app: &App, pane: Pane, width: u16, height: u16) -> Buffer {
        drawn(width, height, |f| pane.unit().render(app, f, f.area()))
    }

    /// What `draw` draws into a `width` × `height` buffer of its own.
    pub fn drawn(width: u16, height: u16, draw: impl FnOnce(&mut ratatui::Frame<'_>)) -> Buffer {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test backend");
        terminal.draw(draw).expect("draw");
        terminal.backend().buffer().clone()
    }

    /// The buffer's rows as text, trailing spaces kept.
    pub fn rows(buf: &Buffer) -> Vec<String> {
        let area = buf.area;
        (area.y..area.y + area.height)
            .map(|y| {
                (area.x..area.x + area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect()
            })
            .collect()
    }
}
