//! The overlays, each a unit in a file of its own: what it holds while it is open (a variant
//! of [`Mode`]), its keys, its drawing and its rows in the `?` overlay, behind one trait
//! ([`Overlay`]). At most one is open, and it takes every key. The list in [`overlays!`] is
//! the one registration: the update and the view ask the open overlay through
//! [`Mode::overlay`] and never match on which one it is.
//!
//! Adding an overlay: a file here with its `State` and its `Unit` implementing [`Overlay`],
//! and its line in the list below (with its `mod` line, which stays outside the macro so that
//! `cargo fmt` formats the file). Something in the main view opens it by setting
//! `app.mode`.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear};

use super::app::{App, Effect};
use super::view::{centered, theme};

/// A titled list of keys and what they do, as the `?` overlay shows it.
pub(crate) type Section = (&'static str, &'static [(&'static str, &'static str)]);

/// What an overlay is and does. Handlers change the `App` they are given and push the IO they
/// need as effects, like the rest of the update: no IO here.
pub(crate) trait Overlay: Sync {
    /// A key while it is open (it takes every key; closing is setting `app.mode` back to
    /// [`Mode::Normal`]).
    fn key(&self, app: &mut App, k: KeyEvent, fx: &mut Vec<Effect>);
    /// Text pasted while it is open: dropped unless it takes text.
    fn paste(&self, _app: &mut App, _text: &str) {}
    /// Whether the mouse still reaches the panes while it is open.
    fn lets_mouse_through(&self) -> bool {
        false
    }
    /// Whether it takes the focus from the panes (no pane's border shows the focus).
    fn holds_focus(&self) -> bool {
        false
    }
    /// Draws it: over `over` (the tree pane when it is wide enough, so the details stay
    /// readable) or over the whole frame.
    fn render(&self, app: &App, frame: &mut Frame<'_>, over: Rect);
    /// Its section of the `?` overlay, when it has keys to list there.
    fn help(&self) -> Option<Section> {
        None
    }
}

/// The list of overlays: each line `Name: module`, whose file holds `State` and `Unit`; the
/// variant `Mode::Name` holds its `State` while it is open. Their sections of the `?` overlay
/// come in this order.
macro_rules! overlays {
    ($($(#[$doc:meta])* $name:ident: $module:ident,)*) => {
        /// The overlay that takes the keys. At most one is open: opening one closes whatever
        /// was open.
        #[derive(Debug, Clone, Default)]
        pub enum Mode {
            /// The main view: keys go through the keymap.
            #[default]
            Normal,
            $($(#[$doc])* $name($module::State),)*
        }

        impl Mode {
            /// What the open overlay is and does (`None` in the main view).
            pub(crate) fn overlay(&self) -> Option<&'static dyn Overlay> {
                match self {
                    Mode::Normal => None,
                    $(Mode::$name(_) => Some(&$module::Unit),)*
                }
            }

            /// Every overlay, in the list's order.
            pub(crate) const ALL: &'static [&'static dyn Overlay] = &[$(&$module::Unit,)*];
        }
    };
}

pub mod actions;
pub mod changes;
pub mod copy;
pub mod filter;
pub mod findings;
pub mod help;
pub mod prompt;

overlays! {
    /// Typing in the filter bar.
    Filter: filter,
    /// The set-value prompt.
    Prompt: prompt,
    /// A list of changed elements (`c`, `D`).
    Changes: changes,
    /// The findings of the accessibility checks, by severity (`!`).
    Findings: findings,
    /// The `y` menu: the next key chooses what to copy.
    Copy: copy,
    /// The `a` menu: one of the node's actions.
    Actions: actions,
    /// The `?` overlay: every key.
    Help: help,
}

impl App {
    /// A key for the open overlay; `false` when none is open (the main view takes it).
    pub(super) fn overlay_key(&mut self, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
        let Some(o) = self.mode.overlay() else {
            return false;
        };
        o.key(self, k, fx);
        true
    }

    /// Pasted text, for the open overlay (the main view takes none).
    pub(super) fn on_paste(&mut self, text: &str, _fx: &mut Vec<Effect>) {
        if let Some(o) = self.mode.overlay() {
            o.paste(self, text);
        }
    }

    /// Whether the mouse reaches the panes: in the main view, or through the open overlay.
    pub(super) fn mouse_reaches_panes(&self) -> bool {
        self.mode.overlay().is_none_or(|o| o.lets_mouse_through())
    }
}

/// Draws the open overlay, if any.
pub(crate) fn render(app: &App, frame: &mut Frame<'_>, over: Rect) {
    if let Some(o) = app.mode.overlay() {
        o.render(app, frame, over);
    }
}

/// A bordered box of at most `w` × `h` centred in `area`, cleared, with `title`; its inside.
pub(crate) fn boxed(
    frame: &mut Frame<'_>,
    area: Rect,
    w: u16,
    h: u16,
    title: Line<'static>,
) -> Rect {
    let r = centered(area, w, h);
    frame.render_widget(Clear, r);
    let b = Block::bordered()
        .border_style(theme::FOCUS_BORDER)
        .title(title);
    let inner = b.inner(r);
    frame.render_widget(b, r);
    inner
}

/// A path cut at its start to `room` characters, so its end (the element) stays in view.
pub(crate) fn path_tail(path: String, room: usize) -> String {
    let n = path.chars().count();
    if n > room {
        let tail: String = path.chars().skip(n + 1 - room).collect();
        format!("…{tail}")
    } else {
        path
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Drawing the open overlay into a buffer of its own, as ratatui tests its widgets.

    use ratatui::buffer::Buffer;

    use crate::tui::app::App;
    use crate::tui::pane::testing::drawn;

    /// `app`'s open overlay drawn over a `width` × `height` buffer.
    pub fn draw(app: &App, width: u16, height: u16) -> Buffer {
        drawn(width, height, |f| super::render(app, f, f.area()))
    }
}

#[cfg(test)]
mod tests {
    use super::path_tail;

    #[test]
    fn a_long_path_keeps_its_end() {
        assert_eq!(path_tail("frame > panel".into(), 20), "frame > panel");
        assert_eq!(path_tail("frame > panel > text".into(), 10), "…el > text");
        assert_eq!(path_tail("frame".into(), 0), "…");
    }
}
