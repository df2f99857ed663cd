//! The on-screen highlight: a hollow frame around the selected element that every click goes
//! through, drawn by the display server's own means — on Wayland a layer-shell overlay
//! (`frame/wayland.rs`: four bars on the overlay layer, an empty input region, no keyboard),
//! on X11 an override-redirect window shaped into a frame (`frame/x11.rs`). One thread owns the
//! connection; the TUI only sends it bounds. Dropping the handle takes the frame away, and the
//! display server takes it away anyway when the process ends (its connection closes), so the
//! frame never outlives treeglass — not on a panic or a signal either.

use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::model::Bounds;

/// The X11 frame window's name (what `xwininfo -name` finds), and the Wayland overlay's
/// layer-shell namespace.
pub const WINDOW_NAME: &str = "treeglass highlight";

/// The frame's line width in pixels; it is drawn outside the element's bounds.
pub const THICKNESS: i32 = 3;

/// The frame window's geometry for `bounds`: `THICKNESS` pixels outside them on every side.
pub fn frame_geometry(b: Bounds) -> Bounds {
    Bounds {
        x: b.x - THICKNESS,
        y: b.y - THICKNESS,
        width: b.width + 2 * THICKNESS,
        height: b.height + 2 * THICKNESS,
    }
}

// Read and made only by the drawing threads, which exist on Linux.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(super) enum Cmd {
    Show(Bounds),
    Hide,
    Quit,
}

/// The highlight window's owner thread.
pub struct FrameWindow {
    tx: mpsc::Sender<Cmd>,
    thread: Option<JoinHandle<()>>,
}

impl FrameWindow {
    /// Connects to the display server and makes what draws the frame (nothing shown yet);
    /// answers the screen's size (on Wayland, the bounding box of the outputs), or why the
    /// highlight cannot work here.
    pub fn start() -> Result<(FrameWindow, (u32, u32)), String> {
        imp::start()
    }

    /// The handle of a thread that draws the frame (`Show`/`Hide`) until `Quit`.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    pub(super) fn serving(tx: mpsc::Sender<Cmd>, thread: JoinHandle<()>) -> FrameWindow {
        FrameWindow {
            tx,
            thread: Some(thread),
        }
    }

    /// Draws the frame around `bounds` (screen coordinates), or takes it away.
    pub fn show(&self, bounds: Option<Bounds>) {
        // The thread only ends on `Quit` or an X error; then there is nothing left to show.
        let _ = self.tx.send(match bounds {
            Some(b) => Cmd::Show(b),
            None => Cmd::Hide,
        });
    }
}

impl Drop for FrameWindow {
    fn drop(&mut self) {
        let _ = self.tx.send(Cmd::Quit);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Why the highlight cannot work in this environment, judged from the environment alone.
pub fn unsupported_here(display: Option<&str>, session_type: Option<&str>) -> Option<String> {
    if session_type.is_some_and(|t| t.eq_ignore_ascii_case("wayland")) {
        return Some(
            "a Wayland session: an X11 window cannot be placed over other apps' windows".into(),
        );
    }
    if display.is_none_or(str::is_empty) {
        return Some("no X display ($DISPLAY is not set)".into());
    }
    None
}

#[cfg(target_os = "linux")]
mod gnome;
#[cfg(target_os = "linux")]
mod wayland;
#[cfg(target_os = "linux")]
mod x11;

#[cfg(target_os = "linux")]
mod imp {
    use super::FrameWindow;

    /// treeglass's extension on GNOME, the layer-shell overlay on other Wayland compositors, the
    /// frame window on X11.
    pub fn start() -> Result<(FrameWindow, (u32, u32)), String> {
        let gnome = std::env::var("XDG_CURRENT_DESKTOP")
            .is_ok_and(|d| d.to_ascii_lowercase().contains("gnome"));
        if std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty()) && gnome {
            super::gnome::start()
        } else if std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty()) {
            super::wayland::start()
        } else {
            super::x11::start()
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::FrameWindow;

    pub fn start() -> Result<(FrameWindow, (u32, u32)), String> {
        Err(
            "the on-screen highlight is drawn with X11 or Wayland, which this system does not use"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frame_surrounds_the_bounds() {
        let b = |x, y, width, height| Bounds {
            x,
            y,
            width,
            height,
        };
        assert_eq!(frame_geometry(b(10, 20, 30, 40)), b(7, 17, 36, 46));
    }

    #[test]
    fn environments_without_x11_are_named() {
        assert!(unsupported_here(None, None).unwrap().contains("DISPLAY"));
        assert!(unsupported_here(Some(""), None).is_some());
        assert!(
            unsupported_here(Some(":0"), Some("wayland"))
                .unwrap()
                .contains("Wayland")
        );
        assert_eq!(unsupported_here(Some(":0"), Some("x11")), None);
        assert_eq!(unsupported_here(Some(":99"), None), None);
    }
}
