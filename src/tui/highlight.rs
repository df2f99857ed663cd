//! The on-screen highlight, app side: when the frame around the selected element is shown
//! (briefly after the selection moves, held while `o` is on), what it is drawn around (the
//! bounds of the details pane's fresh read), and why it cannot be shown. Pure: the frame
//! window itself is the runtime's (`frame`).

use std::time::Duration;

use super::app::{App, Effect, TimerId};
use crate::model::{Bounds, NodeId};

/// How long the frame stays after the selection moves (unless held).
pub const FLASH: Duration = Duration::from_millis(1500);

/// The highlight's state.
#[derive(Debug, Clone, Default)]
pub struct Highlight {
    /// `o` is on: the frame follows the selection and stays.
    pub held: bool,
    /// What the frame is drawn around now.
    pub shown: Option<Bounds>,
    /// Why the details pane's element, read, has no place on screen (its window's position
    /// is not known), as the backend said.
    pub unplaced: Option<String>,
    /// The element and bounds the last flash was for (a new one flashes again).
    flashed_for: Option<(NodeId, Bounds)>,
    /// The running flash's timer generation.
    flash: Option<u64>,
    flash_gen: u64,
}

/// Why the frame cannot be drawn around `bounds` on a `screen`-sized root window: unknown or
/// empty bounds, or bounds wholly off the screen.
pub fn why_not(bounds: Option<Bounds>, screen: (u32, u32)) -> Option<&'static str> {
    let Some(b) = bounds else {
        return Some("the element has no bounds");
    };
    if b.width <= 0 || b.height <= 0 {
        return Some("the element's bounds are empty (not on screen)");
    }
    let (w, h) = (i64::from(screen.0), i64::from(screen.1));
    let (x, y) = (i64::from(b.x), i64::from(b.y));
    if x + i64::from(b.width) <= 0 || y + i64::from(b.height) <= 0 || x >= w || y >= h {
        return Some("the element's bounds are off the screen");
    }
    None
}

impl App {
    /// The bounds of the selected element as last read fresh (the details pane's read), if
    /// that read is done.
    fn fresh_bounds(&self) -> Option<(NodeId, Option<Bounds>)> {
        let (_, n) = self.selected_node()?;
        self.panes
            .details
            .has_read(&n.id)
            .then(|| (n.id.clone(), n.bounds))
    }

    /// Why the highlight is not drawn for the selection (`None` when it is, or could be).
    pub fn highlight_problem(&self) -> Option<String> {
        match self.config.highlight.as_ref()? {
            Err(why) => Some(why.clone()),
            Ok(screen) => {
                let (_, bounds) = self.fresh_bounds()?;
                if bounds.is_none()
                    && let Some(why) = &self.highlight.unplaced
                {
                    return Some(why.clone());
                }
                why_not(bounds, *screen).map(str::to_string)
            }
        }
    }

    /// `o`: hold the frame on the selection, or let it go.
    pub(super) fn toggle_highlight(&mut self) {
        match &self.config.highlight {
            None => self.notice = Some("the on-screen highlight is not available here".into()),
            Some(Err(why)) => {
                self.notice = Some(format!("no on-screen highlight: {why}"));
            }
            Some(Ok(_)) => {
                self.highlight.held = !self.highlight.held;
                self.notice = Some(if self.highlight.held {
                    "highlight held on the selection (o lets it go)".into()
                } else {
                    "highlight shown briefly on selection changes".into()
                });
            }
        }
    }

    /// The flash timer ran out.
    pub(super) fn highlight_timer(&mut self, generation: u64) {
        if self.highlight.flash == Some(generation) {
            self.highlight.flash = None;
        }
    }

    /// Brings the frame in line with the selection: flashes it when the element (or its
    /// bounds) changed, keeps it while held, takes it away otherwise.
    pub(super) fn sync_highlight(&mut self, fx: &mut Vec<Effect>) {
        let Some(Ok(screen)) = self.config.highlight else {
            return;
        };
        let current = self.fresh_bounds();
        let drawable = current.as_ref().and_then(|(id, b)| {
            b.filter(|b| why_not(Some(*b), screen).is_none())
                .map(|b| (id, b))
        });
        if let Some((id, b)) = &drawable {
            let key = ((*id).clone(), *b);
            if self.highlight.flashed_for.as_ref() != Some(&key) {
                self.highlight.flashed_for = Some(key);
                self.highlight.flash_gen += 1;
                let g = self.highlight.flash_gen;
                self.highlight.flash = Some(g);
                fx.push(Effect::Timer {
                    id: TimerId::HighlightFlash(g),
                    after: FLASH,
                });
            }
        }
        let want = match drawable {
            Some((_, b)) if self.highlight.held || self.highlight.flash.is_some() => Some(b),
            _ => None,
        };
        if want != self.highlight.shown {
            self.highlight.shown = want;
            fx.push(Effect::Highlight(want));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: i32, y: i32, width: i32, height: i32) -> Bounds {
        Bounds {
            x,
            y,
            width,
            height,
        }
    }

    #[test]
    fn what_can_be_framed() {
        let screen = (1600, 1200);
        assert_eq!(why_not(Some(b(10, 10, 50, 20)), screen), None);
        // Partly off screen still shows the part that is on it.
        assert_eq!(why_not(Some(b(-20, 10, 50, 20)), screen), None);
        assert!(why_not(None, screen).is_some());
        assert!(why_not(Some(b(10, 10, 0, 20)), screen).is_some());
        assert!(why_not(Some(b(1600, 10, 50, 20)), screen).is_some());
        assert!(why_not(Some(b(-50, 10, 50, 20)), screen).is_some());
        assert!(why_not(Some(b(10, -2147483648, 50, 20)), screen).is_some());
    }
}
