//! The desktop: keys, clicks, where windows are, raising them and the on-screen highlight, one
//! implementation per desktop behind one [`Input`], chosen once ([`choose`]). None of it talks
//! to an application: the accessibility backends carry the tree and the semantic calls, and
//! use this layer for what only the desktop can do (the AT-SPI backend for keys, clicks and
//! places on screen; the inspector for the highlight, [`frame`]). No one protocol offers it
//! everywhere:
//!
//! - X11 (`x11.rs`): the window found by `_NET_WM_PID`, raised and focused; keys and clicks
//!   through the XTest extension.
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
//!   which refuses before anything is sent and says what would make it work.
//!
//! Windows and macOS have no implementation here yet: their backends write semantically.
//! Only the neutral parts (`Input`, `Key`, `Rect`, `frame.rs`, `placement.rs`) compile there.
//! Every implementation is blocking where its protocol is (run on `spawn_blocking`).

#[cfg(target_os = "linux")]
pub mod eis;
#[cfg(all(test, target_os = "linux"))]
mod eis_double;
#[cfg(target_os = "linux")]
pub mod fake_input;
pub mod frame;
#[cfg(target_os = "linux")]
pub mod gnome;
#[cfg(target_os = "linux")]
pub mod keymap;
#[cfg(target_os = "linux")]
pub mod kwin;
pub mod placement;
#[cfg(target_os = "linux")]
pub mod sway;
#[cfg(target_os = "linux")]
pub mod wlroots;
#[cfg(target_os = "linux")]
pub mod x11;

use std::time::Duration;

use async_trait::async_trait;
use serde::Serialize;

/// Why the desktop could not carry input: the accessibility backends pass it on as their own
/// error of the same name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DesktopError {
    /// No way to send synthesized input here (no display, a compositor with no input path, a
    /// window that cannot be found or raised): nothing reached the app.
    #[error("treeglass has no input path: {0}")]
    NoInput(String),
    /// Synthesized input was cut short after part of it went out (the desktop's input server
    /// went away mid-write): some of it may have reached the app.
    #[error("synthesized input was cut short: {0}")]
    InputCut(String),
    /// The desktop answered with an error.
    #[error("{0}")]
    Failed(String),
}

/// Keys the keyboard paths press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Key {
    Space,
    Return,
    Up,
    Down,
    BackSpace,
}

impl Key {
    pub fn name(self) -> &'static str {
        match self {
            Key::Space => "Space",
            Key::Return => "Return",
            Key::Up => "Up",
            Key::Down => "Down",
            Key::BackSpace => "BackSpace",
        }
    }
}

#[cfg(target_os = "linux")]
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

#[cfg(target_os = "linux")]
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

#[cfg(target_os = "linux")]
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

/// The process of the Wayland compositor of this session (`$WAYLAND_DISPLAY`'s socket, by
/// its peer credentials), where there is one: a compositor that registers on the
/// accessibility bus itself (KWin 6 does, with a two-node tree) is the desktop, not an app.
#[cfg(target_os = "linux")]
pub fn compositor_pid() -> Option<u32> {
    let display = std::env::var_os("WAYLAND_DISPLAY").filter(|d| !d.is_empty())?;
    let path = std::path::PathBuf::from(&display);
    let path = match path.is_absolute() {
        true => path,
        false => std::path::PathBuf::from(std::env::var_os("XDG_RUNTIME_DIR")?).join(path),
    };
    let socket = std::os::unix::net::UnixStream::connect(path).ok()?;
    let cred = rustix::net::sockopt::socket_peercred(&socket).ok()?;
    u32::try_from(cred.pid.as_raw_nonzero().get()).ok()
}

#[cfg(target_os = "linux")]
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

#[cfg(target_os = "linux")]
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
    async fn windows_of(&self, pid: u32) -> Result<Vec<Window>, DesktopError>;

    /// Every window with its owner (the doctor's check). `Err`: why they cannot be listed.
    async fn all_windows(&self) -> Result<Vec<Window>, String>;

    /// Keys may go to the active window although this desktop cannot list or raise windows
    /// (GNOME without treeglass's extension): the caller then sends them only when the app
    /// says the element's window is the active one.
    fn keys_to_active_window(&self) -> bool {
        false
    }

    /// Raises the window and gives it the keyboard focus, and checks it has it.
    async fn activate(&self, window: &Window) -> Result<(), DesktopError>;

    /// Makes the input devices a write will use before anything is asked of the app about
    /// where its input goes (`eis::Held` says why). `Ok(true)`: they were made now, and the
    /// app must answer once before anything is sent. Where devices need no making: nothing.
    async fn prepare(&self) -> Result<bool, DesktopError> {
        Ok(false)
    }

    /// Types text (no line breaks or tabs: the planner sends those as keys or refuses them).
    async fn type_text(&self, text: &str) -> Result<(), DesktopError>;

    async fn key(&self, key: Key) -> Result<(), DesktopError>;

    /// A left click at screen position (x, y).
    async fn click(&self, x: i32, y: i32) -> Result<(), DesktopError>;

    /// Waits up to `wait` for an open menu to hold the keyboard. `Ok(None)`: this desktop
    /// cannot tell (the menu's focus, read from the tree, is what counts then).
    async fn wait_menu_keyboard(&self, wait: Duration) -> Result<Option<bool>, DesktopError>;
}

/// The input of this session, from its environment: sway (its IPC socket, `$SWAYSOCK`), KDE
/// Plasma or GNOME on Wayland, the X display without one, else none. Nothing is connected yet.
#[cfg(target_os = "linux")]
pub fn choose() -> std::sync::Arc<dyn Input> {
    let set = |v: &str| std::env::var_os(v).is_some_and(|s| !s.is_empty());
    if set("WAYLAND_DISPLAY") {
        if let Some(ipc) = sway::Ipc::from_env() {
            return std::sync::Arc::new(sway::Sway::new(ipc));
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
        return std::sync::Arc::new(x11::X11Input::new());
    }
    std::sync::Arc::new(NoInput {
        desktop: "no display".into(),
        why: "no display: neither $DISPLAY nor $WAYLAND_DISPLAY is set, so there is no window \
              to send keys or clicks to"
            .into(),
    })
}

/// The input of this session: none yet on this system (its backend writes semantically).
#[cfg(not(target_os = "linux"))]
pub fn choose() -> std::sync::Arc<dyn Input> {
    std::sync::Arc::new(NoInput {
        desktop: std::env::consts::OS.into(),
        why: "treeglass sends no synthesized keys or clicks on this system yet".into(),
    })
}

#[cfg(target_os = "linux")]
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
    #[cfg(target_os = "linux")]
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

    fn refuse(&self) -> DesktopError {
        DesktopError::NoInput(self.why.clone())
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
    async fn windows_of(&self, _pid: u32) -> Result<Vec<Window>, DesktopError> {
        Err(self.refuse())
    }
    async fn all_windows(&self) -> Result<Vec<Window>, String> {
        Err(self.why.clone())
    }
    async fn activate(&self, _w: &Window) -> Result<(), DesktopError> {
        Err(self.refuse())
    }
    async fn type_text(&self, _text: &str) -> Result<(), DesktopError> {
        Err(self.refuse())
    }
    async fn key(&self, _key: Key) -> Result<(), DesktopError> {
        Err(self.refuse())
    }
    async fn click(&self, _x: i32, _y: i32) -> Result<(), DesktopError> {
        Err(self.refuse())
    }
    async fn wait_menu_keyboard(&self, _w: Duration) -> Result<Option<bool>, DesktopError> {
        Err(self.refuse())
    }
}
