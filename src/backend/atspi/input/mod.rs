//! Synthesized input and where windows are, per display server: [`Input`], chosen once when the
//! backend connects ([`choose`]). AT-SPI itself only carries the tree and the semantic calls;
//! keys and clicks go through whatever the desktop offers, and no one protocol offers them
//! everywhere:
//!
//! - X11 (`x11.rs`): the window found by `_NET_WM_PID`, raised and focused; keys and clicks
//!   through the registry's device event controller (XTest underneath).
//! - sway and other wlroots compositors with sway's IPC (`sway.rs`, `wlroots.rs`): windows and
//!   focus over the IPC socket; a virtual keyboard and a virtual pointer.
//! - KDE Plasma on Wayland (`kwin.rs`, `fake_input.rs`): windows and raising through a KWin
//!   script over D-Bus; keys and clicks through KWin's EIS on KWin 6.1 and later (`eis.rs`),
//!   else KWin's fake input, which KWin grants by a `.desktop` file (`treeglass kde-grant
//!   install`).
//! - GNOME on Wayland (`gnome.rs`): windows, raising and the highlight through treeglass's
//!   GNOME Shell extension (`treeglass gnome-extension install`); keys and clicks through
//!   Mutter's remote desktop interface (through its EIS on Mutter 45 and later, `eis.rs`).
//! - Wayland compositors without sway's IPC: [`NoInput`],
//!   which refuses before anything is sent and says what would make it work. (The registry's
//!   keys and clicks answer "true" on Wayland and do nothing: at-spi2-core sends them through
//!   XTest only when `$WAYLAND_DISPLAY` is unset.)
//!
//! Every implementation is blocking where its protocol is (run on `spawn_blocking`) and never
//! talks to an application.

pub mod eis;
#[cfg(test)]
mod eis_double;
pub mod fake_input;
pub mod gnome;
pub mod keymap;
pub mod kwin;
pub mod placement;
pub mod sway;
pub mod wlroots;
pub mod x11;

use std::time::Duration;

use async_trait::async_trait;

use super::calls::Caller;
use crate::backend::{BackendError, Key};

/// Runs `f` to completion on a runtime of its own, on a thread of its own: for the blocking
/// parts of [`Input`] (which may be called on an async worker). `asking`: whom the thread
/// asks, for the error when it fails (`KWin`).
pub(crate) fn on_own_runtime<T: Send + 'static>(
    asking: &str,
    f: impl std::future::Future<Output = Result<T, String>> + Send + 'static,
) -> Result<T, String> {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start a runtime: {e}"))?
            .block_on(f)
    })
    .join()
    .map_err(|_| format!("the thread asking {asking} failed"))?
}

/// One D-Bus method call, answered within `within` (whole seconds).
pub(crate) async fn call_within<B>(
    within: Duration,
    conn: &zbus::Connection,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<zbus::Message, String>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    tokio::time::timeout(
        within,
        conn.call_method(Some(dest), path, Some(iface), method, body),
    )
    .await
    .map_err(|_| format!("{iface}.{method}: no answer within {} s", within.as_secs()))?
    .map_err(|e| format!("{iface}.{method}: {e}"))
}

/// A rectangle in pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

impl Rect {
    pub fn contains(&self, x: i32, y: i32) -> bool {
        (self.x..self.x.saturating_add(self.width)).contains(&x)
            && (self.y..self.y.saturating_add(self.height)).contains(&y)
    }
}

/// One top-level window as the display server knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The display server's id (an X window, a sway container).
    pub id: u64,
    /// The process that owns it (`_NET_WM_PID`; the Wayland client's).
    pub pid: u32,
    /// As the window names itself: app text.
    pub title: String,
    /// Where its content is on screen. On X11 the window itself; on sway the container's
    /// content rectangle, in which the window's geometry (no client-side shadow) sits.
    pub rect: Rect,
    /// Shown now (mapped; on a visible workspace).
    pub visible: bool,
    /// It has the keyboard focus (where the display server says).
    pub focused: bool,
    /// A native window of this display server (false: an Xwayland window under a Wayland
    /// compositor).
    pub native: bool,
    /// Placed by a tiling layout (sway's tiled containers; false on X11 and for floating
    /// windows): a toolkit draws no shadow around a tiled window.
    pub tiled: bool,
    /// The client's whole surface on screen (its client-side shadow included), where the
    /// compositor says (KWin's buffer rectangle; `rect` is then its frame).
    pub surface: Option<Rect>,
}

/// A top-level window and the process that owns it, as the doctor lists them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedWindow {
    pub pid: u32,
    pub window: u64,
    /// How the display server names the window (`0x400007` on X11, `con 12` on sway).
    pub label: String,
    pub width: u32,
    pub height: u32,
    /// As the window names itself: app text.
    pub title: String,
}

/// Every top-level window of this desktop with its owner's pid, for the doctor (blocking):
/// sway's IPC on sway (Wayland and Xwayland windows alike), the X server on X11. `Err`: why
/// they cannot be listed here.
pub fn window_list() -> Result<(String, Vec<OwnedWindow>), String> {
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if set("WAYLAND_DISPLAY")
        && sway::Ipc::from_env().is_none()
        && current_desktop().contains("kde")
    {
        let list = kwin::window_list()?
            .into_iter()
            .map(|w| OwnedWindow {
                pid: w.window.pid,
                window: w.window.id,
                label: format!("KWin {}", w.uuid),
                width: w.window.rect.width.max(0) as u32,
                height: w.window.rect.height.max(0) as u32,
                title: w.window.title,
            })
            .collect();
        return Ok(("KWin's window list".into(), list));
    }
    if set("WAYLAND_DISPLAY")
        && sway::Ipc::from_env().is_none()
        && current_desktop().contains("gnome")
    {
        let list = gnome::window_list()?
            .into_iter()
            .map(|w| OwnedWindow {
                pid: w.window.pid,
                window: w.window.id,
                label: format!("GNOME Shell {}", w.window.id),
                width: w.window.rect.width.max(0) as u32,
                height: w.window.rect.height.max(0) as u32,
                title: w.window.title,
            })
            .collect();
        return Ok(("GNOME Shell (treeglass's extension)".into(), list));
    }
    if set("WAYLAND_DISPLAY") {
        let Some(ipc) = sway::Ipc::from_env() else {
            return Err(format!(
                "{}: {}",
                NoInput::wayland().desktop,
                WINDOWS_UNKNOWN
            ));
        };
        let (wins, _) = ipc.tree()?;
        let list = wins
            .into_iter()
            .map(|w| OwnedWindow {
                pid: w.pid,
                window: w.id,
                label: format!("con {}", w.id),
                width: w.rect.width.max(0) as u32,
                height: w.rect.height.max(0) as u32,
                title: w.title,
            })
            .collect();
        return Ok(("sway's IPC".into(), list));
    }
    if !set("DISPLAY") {
        return Err("DISPLAY is not set".into());
    }
    x11::window_owners().map(|w| ("the X display".into(), w))
}

/// How the on-screen highlight can be drawn here (blocking: asks a Wayland compositor for its
/// globals), or why it cannot: a layer-shell overlay on Wayland, an X11 frame window on X11.
pub fn highlight_here() -> Result<String, String> {
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if set("WAYLAND_DISPLAY") && current_desktop().contains("gnome") {
        return gnome::highlight_here();
    }
    if set("WAYLAND_DISPLAY") {
        return match wlroots::offered()?.layer_shell {
            true => Ok(format!(
                "a layer-shell overlay ({})",
                wlroots::LAYER_SHELL_GLOBAL
            )),
            false => Err(format!(
                "the compositor offers no layer shell ({}), so nothing can be drawn over other \
                 windows (GNOME has none)",
                wlroots::LAYER_SHELL_GLOBAL
            )),
        };
    }
    if set("DISPLAY") {
        return Ok("an X11 frame window (override-redirect, input-transparent)".into());
    }
    Err("no display: neither $DISPLAY nor $WAYLAND_DISPLAY is set".into())
}

/// Why a Wayland compositor other than sway lists no windows.
const WINDOWS_UNKNOWN: &str = "the compositor does not tell other programs whose its windows are";

/// How the extents a toolkit answers relate to the screen under this display server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coordinates {
    /// They are screen coordinates (X11), but for toolkits that answer relative to their
    /// window anyway (the `QUIRKS` table).
    Screen,
    /// They are relative to the app's own window (Wayland): the window's position comes from
    /// the compositor ([`Input::windows_of`]).
    Window,
}

/// The display server's side of synthesized input.
#[async_trait]
pub trait Input: Send + Sync {
    /// What this desktop is, for messages and `doctor` (`X11 display :1`, `sway 1.7 (Wayland)`).
    fn desktop(&self) -> String;

    /// How keys reach an app here (`Ok`: the path's name in results), or why they cannot.
    fn keyboard(&self) -> Result<String, String>;

    /// How clicks reach an app here, or why they cannot.
    fn pointer(&self) -> Result<String, String>;

    fn coordinates(&self) -> Coordinates;

    /// The windows of process `pid`, largest first.
    async fn windows_of(&self, pid: u32) -> Result<Vec<Window>, BackendError>;

    /// Every window with its owner (the doctor's check). `Err`: why they cannot be listed.
    async fn all_windows(&self) -> Result<Vec<Window>, String>;

    /// Keys may go to the active window although this desktop cannot list or raise windows
    /// (GNOME without treeglass's extension): the caller then sends them only when the app
    /// says the element's window is the active one.
    fn keys_to_active_window(&self) -> bool {
        false
    }

    /// Raises the window and gives it the keyboard focus, and checks it has it.
    async fn activate(&self, window: &Window) -> Result<(), BackendError>;

    /// Types text (no line breaks or tabs: the planner sends those as keys or refuses them).
    async fn type_text(&self, text: &str) -> Result<(), BackendError>;

    async fn key(&self, key: Key) -> Result<(), BackendError>;

    /// A left click at screen position (x, y).
    async fn click(&self, x: i32, y: i32) -> Result<(), BackendError>;

    /// Waits up to `wait` for an open menu to hold the keyboard. `Ok(None)`: this desktop
    /// cannot tell (the menu's focus, read from the tree, is what counts then).
    async fn wait_menu_keyboard(&self, wait: Duration) -> Result<Option<bool>, BackendError>;
}

/// The input of this session, from its environment: sway (its IPC socket, `$SWAYSOCK`) on
/// Wayland, the X display without one, else none. Nothing is connected yet.
pub fn choose(caller: &Caller) -> std::sync::Arc<dyn Input> {
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if set("WAYLAND_DISPLAY") {
        if let Some(ipc) = sway::Ipc::from_env() {
            return std::sync::Arc::new(Sway::new(ipc));
        }
        if current_desktop().contains("kde") {
            return std::sync::Arc::new(kwin::Kwin::new());
        }
        if current_desktop().contains("gnome") {
            return std::sync::Arc::new(gnome::Gnome::new());
        }
        return std::sync::Arc::new(NoInput::wayland());
    }
    if set("DISPLAY") {
        return std::sync::Arc::new(x11::X11Input::new(caller.clone()));
    }
    std::sync::Arc::new(NoInput {
        desktop: "no display".into(),
        why: "no display: neither $DISPLAY nor $WAYLAND_DISPLAY is set, so there is no window \
              to send keys or clicks to"
            .into(),
    })
}

/// The desktop environment `$XDG_CURRENT_DESKTOP` names, as one word (`gnome`, `kde`).
fn current_desktop() -> String {
    std::env::var("XDG_CURRENT_DESKTOP")
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// A desktop with no input path: every key and click is refused before anything is sent.
pub struct NoInput {
    desktop: String,
    why: String,
}

impl NoInput {
    /// A Wayland session whose compositor treeglass has no input path for (GNOME and KDE
    /// Plasma have their own, [`gnome::Gnome`] and [`kwin::Kwin`]).
    fn wayland() -> NoInput {
        NoInput {
            desktop: "a Wayland compositor".into(),
            why: "this Wayland compositor is not sway ($SWAYSOCK is not set), nor GNOME or KDE \
                  Plasma ($XDG_CURRENT_DESKTOP), and treeglass knows no other way to find, raise \
                  or type into its windows. Semantic writes work; sway, GNOME, KDE Plasma or an \
                  X11 session gives keys and clicks"
                .into(),
        }
    }

    fn refuse(&self) -> BackendError {
        BackendError::NoInput(self.why.clone())
    }
}

#[async_trait]
impl Input for NoInput {
    fn desktop(&self) -> String {
        self.desktop.clone()
    }
    fn keyboard(&self) -> Result<String, String> {
        Err(self.why.clone())
    }
    fn pointer(&self) -> Result<String, String> {
        Err(self.why.clone())
    }
    fn coordinates(&self) -> Coordinates {
        Coordinates::Window
    }
    async fn windows_of(&self, _pid: u32) -> Result<Vec<Window>, BackendError> {
        Err(self.refuse())
    }
    async fn all_windows(&self) -> Result<Vec<Window>, String> {
        Err(self.why.clone())
    }
    async fn activate(&self, _w: &Window) -> Result<(), BackendError> {
        Err(self.refuse())
    }
    async fn type_text(&self, _text: &str) -> Result<(), BackendError> {
        Err(self.refuse())
    }
    async fn key(&self, _key: Key) -> Result<(), BackendError> {
        Err(self.refuse())
    }
    async fn click(&self, _x: i32, _y: i32) -> Result<(), BackendError> {
        Err(self.refuse())
    }
    async fn wait_menu_keyboard(&self, _w: Duration) -> Result<Option<bool>, BackendError> {
        Err(self.refuse())
    }
}

/// sway: windows and focus over its IPC, keys and clicks through wlroots' virtual devices.
pub struct Sway {
    ipc: sway::Ipc,
    devices: std::sync::Arc<wlroots::Devices>,
    /// What the compositor offers, asked on first need.
    offered: std::sync::OnceLock<Result<wlroots::Offered, String>>,
}

impl Sway {
    fn new(ipc: sway::Ipc) -> Sway {
        Sway {
            ipc,
            devices: Default::default(),
            offered: std::sync::OnceLock::new(),
        }
    }

    fn offered(&self) -> Result<wlroots::Offered, String> {
        self.offered.get_or_init(wlroots::offered).clone()
    }

    /// Runs `f` with the IPC socket and the devices on the blocking pool (both protocols are
    /// blocking); its error is why the input could not be sent.
    async fn blocking<T: Send + 'static>(
        &self,
        what: &'static str,
        f: impl FnOnce(&sway::Ipc, &wlroots::Devices) -> Result<T, String> + Send + 'static,
    ) -> Result<T, BackendError> {
        let (ipc, devices) = (self.ipc.clone(), self.devices.clone());
        tokio::task::spawn_blocking(move || f(&ipc, &devices))
            .await
            .map_err(|e| BackendError::Failed(format!("{what}: {e}")))?
            .map_err(|e| BackendError::NoInput(format!("{what}: {e}")))
    }
}

/// The keysyms that type `text`.
fn keysyms(text: &str) -> Vec<u32> {
    text.chars().map(keymap::keysym_of).collect()
}

#[async_trait]
impl Input for Sway {
    fn desktop(&self) -> String {
        match self.ipc.version() {
            Ok(v) => format!("{v} (Wayland)"),
            Err(_) => "sway (Wayland; its IPC does not answer)".into(),
        }
    }

    fn keyboard(&self) -> Result<String, String> {
        match self.offered()?.keyboard {
            true => Ok("Wayland virtual keyboard (sway)".into()),
            false => Err(format!(
                "this compositor offers no {} (keys cannot be synthesized)",
                wlroots::KEYBOARD_GLOBAL
            )),
        }
    }

    fn pointer(&self) -> Result<String, String> {
        match self.offered()?.pointer {
            true => Ok("Wayland virtual pointer (sway)".into()),
            false => Err(format!(
                "this compositor offers no {} (clicks cannot be synthesized)",
                wlroots::POINTER_GLOBAL
            )),
        }
    }

    fn coordinates(&self) -> Coordinates {
        Coordinates::Window
    }

    async fn windows_of(&self, pid: u32) -> Result<Vec<Window>, BackendError> {
        let mut w = self
            .blocking("sway's window list", |ipc, _| ipc.tree())
            .await?
            .0;
        w.retain(|w| w.pid == pid);
        w.sort_by_key(|w| std::cmp::Reverse(i64::from(w.rect.width) * i64::from(w.rect.height)));
        Ok(w)
    }

    async fn all_windows(&self) -> Result<Vec<Window>, String> {
        let ipc = self.ipc.clone();
        tokio::task::spawn_blocking(move || ipc.tree().map(|t| t.0))
            .await
            .map_err(|e| e.to_string())?
    }

    async fn activate(&self, window: &Window) -> Result<(), BackendError> {
        let id = window.id;
        self.blocking("raising the window", move |ipc, devices| {
            devices.prepare()?;
            ipc.focus(id)?;
            // sway applies a command before it answers; the tree says whether it took.
            let until = std::time::Instant::now() + Duration::from_millis(500);
            loop {
                let (all, _) = ipc.tree()?;
                match all.iter().find(|w| w.id == id) {
                    Some(w) if w.focused && w.visible => return Ok(()),
                    None => return Err("the window is gone".into()),
                    Some(_) if std::time::Instant::now() >= until => {
                        return Err("sway did not give the window the focus".into());
                    }
                    Some(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        })
        .await
    }

    async fn type_text(&self, text: &str) -> Result<(), BackendError> {
        self.keyboard().map_err(BackendError::NoInput)?;
        let syms = keysyms(text);
        self.blocking("the virtual keyboard", move |_, d| d.keys(syms))
            .await
    }

    async fn key(&self, key: Key) -> Result<(), BackendError> {
        self.keyboard().map_err(BackendError::NoInput)?;
        let sym = keymap::keysym_of_key(key);
        self.blocking("the virtual keyboard", move |_, d| d.keys(vec![sym]))
            .await
    }

    async fn click(&self, x: i32, y: i32) -> Result<(), BackendError> {
        self.pointer().map_err(BackendError::NoInput)?;
        self.blocking("the virtual pointer", move |ipc, d| {
            let (_, layout) = ipc.tree()?;
            d.click(x, y, layout)
        })
        .await
    }

    async fn wait_menu_keyboard(&self, _wait: Duration) -> Result<Option<bool>, BackendError> {
        // A Wayland popup's keyboard grab is the compositor's business and not observable.
        Ok(None)
    }
}
