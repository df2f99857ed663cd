//! GNOME on Wayland (GNOME Shell, Mutter): where windows are, raising one and the highlight
//! through treeglass's GNOME Shell extension; keys and clicks through Mutter's remote desktop
//! interface.
//!
//! - The extension (`assets/gnome-extension`, installed by `treeglass gnome-extension
//!   install`, [`extension`]) exports `org.treeglass.Shell1` at `/org/treeglass/Shell` on the
//!   shell's own session bus connection. It is called at the unique name that owns
//!   `org.gnome.Shell`, so whatever answers is the shell itself. It lists the windows (pid,
//!   title, frame and buffer rectangles, the pointer's position), activates one, and draws or
//!   clears the highlight (an `St.Widget` added as chrome that takes no input).
//!   GNOME Shell's own `Eval`, `Introspect` and `Screenshot` are never called: a user's
//!   session refuses them.
//! - Keys: `org.gnome.Mutter.RemoteDesktop`, a session per write (`CreateSession`, `Start`,
//!   `NotifyKeyboardKeysym`, `Stop`). Mutter drops the first key of a session, so a Shift is
//!   pressed first; it drops a keysym its keymap lacks without a word, which the write's
//!   read-back then shows.
//! - Clicks: with PipeWire, a ScreenCast session linked to the remote desktop one
//!   (`remote-desktop-session-id`) records the monitor, and the pointer moves to the stream's
//!   absolute position; without it, relative motion from the bottom-right corner, where Mutter
//!   clamps the pointer (the top-left is the Activities hot corner). Either way the pointer's
//!   position is read back from the extension before the button is pressed, and the session
//!   is stopped as soon as the click is sent (GNOME shows "screen is being shared" while it
//!   runs).
//! - Mutter 45 and later: a session whose introspection offers `ConnectToEIS` gets keys and
//!   clicks through EIS instead (`eis.rs`), after `Start`, with no screen cast; the session
//!   stays open while they are sent and is stopped after.
//!
//! Measured on GNOME Shell 43.9 / Mutter 43.8 (Debian 12). The extension's GNOME 45+ build
//! (ES modules) and the EIS route are not verified on a real GNOME 45 or later session (the
//! EIS route is tested against a double of Mutter 46, `eis_double.rs`).

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use zbus::zvariant::{OwnedObjectPath, Value as ZValue};

use super::{DesktopError, Key};
use super::{Rect, Window};

/// GNOME Shell's D-Bus name.
pub const SHELL: &str = "org.gnome.Shell";
/// The extension's object and interface on the shell's connection.
const PATH: &str = "/org/treeglass/Shell";
const IFACE: &str = "org.treeglass.Shell1";
const RD: &str = "org.gnome.Mutter.RemoteDesktop";
const SC: &str = "org.gnome.Mutter.ScreenCast";
/// The evdev code of the left button.
const BTN_LEFT: i32 = 0x110;
/// Shift_L: the harmless key that Mutter's first-key drop eats.
const SHIFT_L: u32 = 0xffe1;
/// How long one call may take.
const CALL: Duration = Duration::from_secs(3);

/// What doctor and a refused write say when the extension does not answer and is not
/// installed.
pub const EXTENSION_MISSING: &str = "treeglass's GNOME Shell extension does not answer: run \
     `treeglass gnome-extension install`, log out and in again (GNOME Shell on Wayland loads \
     new extensions only when it starts), then `treeglass gnome-extension enable`";

/// What to run when the extension does not answer: enable it when this treeglass's build of
/// it is installed, else [`EXTENSION_MISSING`].
pub fn extension_missing() -> String {
    match extension::installed() {
        Ok(Some(_)) => "treeglass's GNOME Shell extension is installed but does not answer: run \
             `treeglass gnome-extension enable` (if GNOME Shell started before it was \
             installed, log out and in again first)"
            .into(),
        _ => EXTENSION_MISSING.into(),
    }
}

/// Why a click cannot be sent without the extension.
fn no_clicks(missing: &str) -> String {
    format!(
        "a click needs where the window is on screen, which only treeglass's GNOME Shell \
         extension tells; {missing}"
    )
}

/// One window as the extension reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellWindow {
    pub window: Window,
    /// The client's whole surface (its client-side shadow included).
    pub buffer: Rect,
}

/// What the extension's `Windows` answers.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub windows: Vec<ShellWindow>,
    /// Where the pointer is (global coordinates).
    pub pointer: Option<(i32, i32)>,
    /// Whether GNOME Shell holds the left button pressed (`None`: an older build of the
    /// extension, which does not say).
    pub pressed: Option<bool>,
    /// The screen's size.
    pub screen: Option<(i32, i32)>,
    /// The overview is shown.
    pub overview: bool,
}

fn rect(v: &Value) -> Rect {
    let n = |k: &str| v[k].as_i64().unwrap_or(0) as i32;
    Rect {
        x: n("x"),
        y: n("y"),
        width: n("width"),
        height: n("height"),
    }
}

/// The extension's answer to `Windows`, parsed; windows with no process are left out.
pub fn parse_listing(v: &Value) -> Listing {
    let mut windows = Vec::new();
    for w in v["windows"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let (Some(id), Some(pid)) = (
            w["id"].as_u64(),
            w["pid"]
                .as_u64()
                .filter(|&p| p > 0 && p <= u64::from(u32::MAX)),
        ) else {
            continue;
        };
        windows.push(ShellWindow {
            buffer: rect(&w["buffer"]),
            window: Window {
                id,
                pid: pid as u32,
                title: w["title"].as_str().unwrap_or_default().to_string(),
                rect: rect(&w["frame"]),
                visible: w["shown"].as_bool().unwrap_or(false),
                focused: w["active"].as_bool().unwrap_or(false),
                native: w["wayland"].as_bool().unwrap_or(true),
                tiled: false,
                surface: None,
            },
        });
    }
    let pair = |p: &Value, a: &str, b: &str| Some((p[a].as_i64()? as i32, p[b].as_i64()? as i32));
    Listing {
        windows,
        pointer: pair(&v["pointer"], "x", "y"),
        pressed: v["pointer"]["pressed"].as_bool(),
        screen: pair(&v["screen"], "width", "height"),
        overview: v["overview"].as_bool().unwrap_or(false),
    }
}

impl ShellWindow {
    fn into_window(self) -> Window {
        Window {
            surface: Some(self.buffer),
            ..self.window
        }
    }
}

async fn session_bus() -> Result<zbus::Connection, String> {
    tokio::time::timeout(CALL, zbus::Connection::session())
        .await
        .map_err(|_| "the session bus did not answer within 3 s".to_string())?
        .map_err(|e| format!("cannot connect to the session bus: {e}"))
}

async fn call<B>(
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
    super::call_within(CALL, conn, dest, path, iface, method, body).await
}

/// The unique name that owns `name` on the bus.
async fn owner(conn: &zbus::Connection, name: &str) -> Result<String, String> {
    call(
        conn,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "GetNameOwner",
        &(name,),
    )
    .await?
    .body()
    .deserialize::<String>()
    .map_err(|e| e.to_string())
}

/// treeglass's extension, reached on GNOME Shell's own connection.
pub struct Shell {
    conn: zbus::Connection,
    /// The unique name of `org.gnome.Shell`'s owner: every call goes there.
    shell: String,
}

impl Shell {
    /// Connects, finds GNOME Shell's unique name, and checks that the extension answers there.
    pub async fn connect() -> Result<Shell, String> {
        let conn = session_bus().await?;
        Shell::on(conn).await
    }

    pub async fn on(conn: zbus::Connection) -> Result<Shell, String> {
        let shell = owner(&conn, SHELL)
            .await
            .map_err(|e| format!("GNOME Shell is not on the session bus ({SHELL}: {e})"))?;
        let me = Shell { conn, shell };
        me.version().await.map_err(|e| {
            if e.contains("UnknownMethod") || e.contains("UnknownObject") || e.contains("No such") {
                extension_missing()
            } else {
                format!("treeglass's GNOME Shell extension: {e}")
            }
        })?;
        Ok(me)
    }

    async fn ask<B>(&self, method: &str, body: &B) -> Result<zbus::Message, String>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        call(&self.conn, &self.shell, PATH, IFACE, method, body).await
    }

    /// The extension's and the shell's versions (`{"extension": 2, "shell": "43.9"}`).
    pub async fn version(&self) -> Result<Value, String> {
        let s: String = self
            .ask("Version", &())
            .await?
            .body()
            .deserialize()
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&s).map_err(|e| format!("Version answered oddly: {e}"))
    }

    pub async fn listing(&self) -> Result<Listing, String> {
        let s: String = self
            .ask("Windows", &())
            .await?
            .body()
            .deserialize()
            .map_err(|e| e.to_string())?;
        let v: Value =
            serde_json::from_str(&s).map_err(|e| format!("Windows answered oddly: {e}"))?;
        Ok(parse_listing(&v))
    }

    /// Makes the window the active one; false when it is gone.
    pub async fn activate(&self, id: u64) -> Result<bool, String> {
        self.ask("Activate", &(id,))
            .await?
            .body()
            .deserialize()
            .map_err(|e| e.to_string())
    }

    /// Draws the highlight's frame, `thickness` pixels outside the rectangle.
    pub async fn highlight(&self, r: Rect, thickness: i32) -> Result<(), String> {
        self.ask("Highlight", &(r.x, r.y, r.width, r.height, thickness))
            .await
            .map(|_| ())
    }

    pub async fn clear(&self) -> Result<(), String> {
        self.ask("Clear", &()).await.map(|_| ())
    }

    /// Escape through Mutter's remote desktop (what closes the overview).
    pub async fn press_escape(&self) -> Result<(), String> {
        let rd = Remote::start(&self.conn, false).await?;
        let r = rd.keys(&[0xff1b]).await;
        rd.stop().await;
        r
    }
}

/// Whether a PipeWire daemon is there for Mutter's screen cast (its socket).
pub fn pipewire_running() -> bool {
    let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) else {
        return false;
    };
    let name = std::env::var_os("PIPEWIRE_REMOTE").unwrap_or_else(|| "pipewire-0".into());
    std::path::Path::new(&dir).join(name).exists()
}

/// One Mutter remote desktop session, stopped when done.
struct Remote<'a> {
    conn: &'a zbus::Connection,
    path: String,
    /// The linked screen cast's stream, for absolute pointer motion.
    stream: Option<String>,
    /// The session offers `ConnectToEIS` (Mutter 45 and later): keys and clicks go through
    /// EIS, and no screen cast is linked.
    eis: bool,
}

/// Whether a remote desktop session object offers `ConnectToEIS` (its introspection).
async fn offers_eis(conn: &zbus::Connection, path: &str) -> Result<bool, String> {
    let xml: String = call(
        conn,
        RD,
        path,
        "org.freedesktop.DBus.Introspectable",
        "Introspect",
        &(),
    )
    .await?
    .body()
    .deserialize()
    .map_err(|e| e.to_string())?;
    Ok(xml.contains("\"ConnectToEIS\""))
}

impl<'a> Remote<'a> {
    /// Creates and starts a session; with `stream`, a linked screen cast of the monitor first.
    async fn start(conn: &'a zbus::Connection, stream: bool) -> Result<Remote<'a>, String> {
        let path: OwnedObjectPath = call(
            conn,
            RD,
            "/org/gnome/Mutter/RemoteDesktop",
            RD,
            "CreateSession",
            &(),
        )
        .await
        .map_err(|e| format!("Mutter's remote desktop: {e}"))?
        .body()
        .deserialize()
        .map_err(|e| e.to_string())?;
        let mut me = Remote {
            conn,
            path: path.to_string(),
            stream: None,
            eis: false,
        };
        match offers_eis(conn, &me.path).await {
            Ok(eis) => me.eis = eis,
            Err(e) => {
                me.stop().await;
                return Err(e);
            }
        }
        if stream && !me.eis {
            match me.link_stream().await {
                Ok(s) => me.stream = Some(s),
                Err(e) => {
                    me.stop().await;
                    return Err(e);
                }
            }
        }
        if let Err(e) = me.call("Start", &()).await {
            me.stop().await;
            return Err(e);
        }
        Ok(me)
    }

    async fn link_stream(&self) -> Result<String, String> {
        let id: zbus::zvariant::OwnedValue = call(
            self.conn,
            RD,
            &self.path,
            "org.freedesktop.DBus.Properties",
            "Get",
            &(format!("{RD}.Session"), "SessionId"),
        )
        .await?
        .body()
        .deserialize()
        .map_err(|e| e.to_string())?;
        let id = String::try_from(id).map_err(|e| format!("SessionId: {e}"))?;
        let mut opts: HashMap<&str, ZValue> = HashMap::new();
        opts.insert("remote-desktop-session-id", ZValue::from(id));
        let sc: OwnedObjectPath = call(
            self.conn,
            SC,
            "/org/gnome/Mutter/ScreenCast",
            SC,
            "CreateSession",
            &(opts,),
        )
        .await?
        .body()
        .deserialize()
        .map_err(|e| e.to_string())?;
        let none: HashMap<&str, ZValue> = HashMap::new();
        let stream: OwnedObjectPath = call(
            self.conn,
            SC,
            sc.as_str(),
            &format!("{SC}.Session"),
            "RecordMonitor",
            &("", none),
        )
        .await?
        .body()
        .deserialize()
        .map_err(|e| e.to_string())?;
        Ok(stream.to_string())
    }

    async fn call<B>(&self, method: &str, body: &B) -> Result<zbus::Message, String>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        call(
            self.conn,
            RD,
            &self.path,
            &format!("{RD}.Session"),
            method,
            body,
        )
        .await
    }

    async fn keysym(&self, sym: u32, down: bool) -> Result<(), String> {
        self.call("NotifyKeyboardKeysym", &(sym, down))
            .await
            .map(|_| ())
    }

    /// Presses and releases each keysym, after the Shift that Mutter drops.
    async fn keys(&self, syms: &[u32]) -> Result<(), String> {
        self.keysym(SHIFT_L, true).await?;
        self.keysym(SHIFT_L, false).await?;
        // Mutter sets the session's virtual keyboard up on its first event, after it answers.
        // Nothing public says when that is done: Mutter 43's remote desktop session has no
        // property for its devices, AT-SPI sees no keys on Wayland, and the seat's modifier
        // state (GNOME Shell's `get_pointer`, through the extension) would show the Shift only
        // if it was not the key dropped, and keys must go without the extension too. So this
        // one stays a fixed wait.
        tokio::time::sleep(Duration::from_millis(50)).await;
        for &s in syms {
            self.keysym(s, true).await?;
            self.keysym(s, false).await?;
        }
        Ok(())
    }

    async fn stop(&self) {
        let _ = self.call("Stop", &()).await;
    }

    /// The session's EIS socket (after `Start`); the session stays open while it is used.
    async fn connect_to_eis(&self) -> Result<std::os::unix::net::UnixStream, DesktopError> {
        let none: HashMap<&str, ZValue> = HashMap::new();
        let fd: zbus::zvariant::OwnedFd = self
            .call("ConnectToEIS", &(none,))
            .await
            .map_err(|e| DesktopError::NoInput(format!("Mutter's remote desktop: {e}")))?
            .body()
            .deserialize()
            .map_err(|e| DesktopError::NoInput(format!("ConnectToEIS answered oddly: {e}")))?;
        Ok(std::os::fd::OwnedFd::from(fd).into())
    }
}

/// How Mutter's EIS is named in messages.
const MUTTER_EIS: &str = "Mutter's EIS";

/// GNOME on Wayland: the extension for windows, Mutter's remote desktop for input.
#[derive(Default)]
pub struct Gnome {
    /// The session bus, for the extension and Mutter alike.
    bus: tokio::sync::OnceCell<zbus::Connection>,
    shell: tokio::sync::OnceCell<Shell>,
    /// What answers (asked on first need, for the synchronous parts).
    probed: OnceLock<Probe>,
    /// The EIS sender held for the current write (Mutter 45 and later).
    eis: super::eis::Slot,
}

/// What answers on this GNOME session.
#[derive(Debug, Clone)]
struct Probe {
    /// Mutter's remote desktop, or why not.
    remote: Result<(), String>,
    /// GNOME Shell's version through the extension, or why it does not answer (what to run).
    shell: Result<String, String>,
    /// Mutter's remote desktop sessions offer `ConnectToEIS` (Mutter 45 and later).
    eis: bool,
}

/// [`super::on_own_runtime`], asking GNOME Shell.
fn on_own_runtime<T: Send + 'static>(
    f: impl std::future::Future<Output = Result<T, String>> + Send + 'static,
) -> Result<T, String> {
    super::on_own_runtime("GNOME Shell", f)
}

/// Every window GNOME Shell shows, with its owner (blocking: the doctor's list).
pub fn window_list() -> Result<Vec<ShellWindow>, String> {
    on_own_runtime(async { Ok(Shell::connect().await?.listing().await?.windows) })
}

/// The highlight path here, or why there is none (blocking).
pub fn highlight_here() -> Result<String, String> {
    on_own_runtime(async {
        Shell::connect().await?;
        Ok("treeglass's GNOME Shell extension (a frame added as shell chrome)".to_string())
    })
}

/// Whether Mutter's remote desktop is there, and GNOME Shell's version as the extension says
/// (blocking).
fn probe() -> Probe {
    on_own_runtime(async {
        let conn = session_bus().await?;
        let remote = owner(&conn, RD).await.map(|_| ()).map_err(|e| {
            format!(
                "Mutter's remote desktop ({RD}), through which GNOME takes synthesized keys \
                     and clicks, is not on the session bus: {e}"
            )
        });
        // A session made and stopped unstarted (no input, nothing shared) says whether
        // Mutter offers EIS.
        let eis = remote.is_ok() && eis_offered(&conn).await;
        let shell = match Shell::on(conn).await {
            Ok(shell) => shell
                .version()
                .await
                .map(|v| v["shell"].as_str().unwrap_or("?").to_string()),
            Err(e) => Err(e),
        };
        Ok(Probe { remote, shell, eis })
    })
    .unwrap_or_else(|e| Probe {
        remote: Err(e.clone()),
        shell: Err(e),
        eis: false,
    })
}

/// Whether Mutter's remote desktop sessions offer `ConnectToEIS` (a session is created,
/// introspected and stopped without being started).
async fn eis_offered(conn: &zbus::Connection) -> bool {
    let Ok(reply) = call(
        conn,
        RD,
        "/org/gnome/Mutter/RemoteDesktop",
        RD,
        "CreateSession",
        &(),
    )
    .await
    else {
        return false;
    };
    let Ok(path) = reply.body().deserialize::<OwnedObjectPath>() else {
        return false;
    };
    let eis = offers_eis(conn, path.as_str()).await.unwrap_or(false);
    let _ = call(
        conn,
        RD,
        path.as_str(),
        &format!("{RD}.Session"),
        "Stop",
        &(),
    )
    .await;
    eis
}

impl Gnome {
    pub fn new() -> Gnome {
        Gnome::default()
    }

    /// On a bus connection of the caller's (GNOME Shell and Mutter on it).
    pub async fn on(conn: zbus::Connection) -> Result<Gnome, String> {
        let shell = Shell::on(conn.clone()).await?;
        let v = shell.version().await?;
        let eis = eis_offered(&conn).await;
        let version = v["shell"].as_str().unwrap_or("?").to_string();
        Ok(Gnome {
            bus: tokio::sync::OnceCell::new_with(Some(conn)),
            shell: tokio::sync::OnceCell::new_with(Some(shell)),
            probed: OnceLock::from(Probe {
                remote: Ok(()),
                shell: Ok(version),
                eis,
            }),
            eis: Default::default(),
        })
    }

    fn probed(&self) -> Probe {
        self.probed.get_or_init(probe).clone()
    }

    async fn bus(&self) -> Result<&zbus::Connection, DesktopError> {
        self.bus
            .get_or_try_init(session_bus)
            .await
            .map_err(DesktopError::NoInput)
    }

    async fn shell(&self) -> Result<&Shell, DesktopError> {
        let conn = self.bus().await?.clone();
        self.shell
            .get_or_try_init(|| Shell::on(conn))
            .await
            .map_err(DesktopError::NoInput)
    }

    async fn listing(&self) -> Result<Listing, DesktopError> {
        self.shell()
            .await?
            .listing()
            .await
            .map_err(|e| DesktopError::NoInput(format!("GNOME Shell's window list: {e}")))
    }

    /// A remote desktop session on the session bus (which needs no extension).
    async fn remote(&self, stream: bool) -> Result<Remote<'_>, DesktopError> {
        Remote::start(self.bus().await?, stream)
            .await
            .map_err(DesktopError::NoInput)
    }

    /// Waits until the extension sees the pointer at (x, y).
    async fn pointer_at(&self, x: i32, y: i32) -> Result<(), DesktopError> {
        let until = std::time::Instant::now() + Duration::from_millis(1000);
        loop {
            let l = self.listing().await?;
            if l.pointer == Some((x, y)) {
                return Ok(());
            }
            if std::time::Instant::now() >= until {
                return Err(DesktopError::NoInput(format!(
                    "Mutter did not move the pointer to {x}, {y} (GNOME Shell has it at {}): \
                     nothing was clicked",
                    l.pointer
                        .map(|(a, b)| format!("{a}, {b}"))
                        .unwrap_or_else(|| "no position".into())
                )));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Presses and releases each keysym in one session: through EIS where the session offers
    /// it, else by Mutter's keysym calls. The session is stopped when they are sent.
    async fn keysyms(&self, syms: Vec<u32>) -> Result<(), DesktopError> {
        if let Some(r) = self.eis.keys(syms.clone()).await {
            return r;
        }
        let rd = self.remote(false).await?;
        let r = match rd.eis {
            true => match rd.connect_to_eis().await {
                Ok(socket) => {
                    super::eis::blocking(move || {
                        super::eis::type_keysyms(socket, &syms, MUTTER_EIS)
                    })
                    .await
                }
                Err(e) => Err(e),
            },
            false => rd
                .keys(&syms)
                .await
                .map_err(|e| DesktopError::NoInput(format!("Mutter's remote desktop: {e}"))),
        };
        rd.stop().await;
        r
    }

    async fn click_in(&self, rd: &Remote<'_>, x: i32, y: i32) -> Result<(), DesktopError> {
        let fail = |e: String| DesktopError::NoInput(format!("Mutter's remote desktop: {e}"));
        match &rd.stream {
            Some(stream) => {
                // The first motion of a session may be dropped too: moved twice.
                for _ in 0..2 {
                    rd.call(
                        "NotifyPointerMotionAbsolute",
                        &(stream.as_str(), f64::from(x), f64::from(y)),
                    )
                    .await
                    .map_err(fail)?;
                }
            }
            None => {
                // Clamped at the bottom-right corner, then back by the difference.
                let (w, h) = self.listing().await?.screen.ok_or_else(|| {
                    DesktopError::NoInput("GNOME Shell did not say the screen's size".into())
                })?;
                rd.call("NotifyPointerMotionRelative", &(1e5_f64, 1e5_f64))
                    .await
                    .map_err(fail)?;
                self.pointer_at(w - 1, h - 1).await?;
                rd.call(
                    "NotifyPointerMotionRelative",
                    &(f64::from(x - (w - 1)), f64::from(y - (h - 1))),
                )
                .await
                .map_err(fail)?;
            }
        }
        self.pointer_at(x, y).await?;
        // The app sees the pointer enter before the button (a GTK 4 check box pressed in the
        // same instant as the pointer arrived was focused but not toggled). What the app has
        // seen is not observable from here: GNOME Shell already has the pointer there
        // (`pointer_at`), and AT-SPI tells no hover. So this one stays a fixed wait.
        tokio::time::sleep(Duration::from_millis(50)).await;
        rd.call("NotifyPointerButton", &(BTN_LEFT, true))
            .await
            .map_err(fail)?;
        // The release goes out whatever happened to the press: a button left down would hold
        // the app's pointer grab.
        let down = self.button_seen(true).await;
        let up = rd.call("NotifyPointerButton", &(BTN_LEFT, false)).await;
        let seen_up = self.button_seen(false).await;
        down?;
        up.map_err(fail)?;
        seen_up
    }

    /// Waits until GNOME Shell holds the left button pressed (or released), as the extension
    /// reads it from the seat: Mutter has then delivered the button to the app under the
    /// pointer. An older extension, which does not say, is given 50 ms instead.
    async fn button_seen(&self, pressed: bool) -> Result<(), DesktopError> {
        let until = std::time::Instant::now() + Duration::from_millis(1000);
        loop {
            match self.listing().await?.pressed {
                None => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    return Ok(());
                }
                Some(p) if p == pressed => return Ok(()),
                Some(_) if std::time::Instant::now() >= until => {
                    return Err(DesktopError::NoInput(format!(
                        "GNOME Shell never saw the button {}",
                        if pressed { "pressed" } else { "released" }
                    )));
                }
                Some(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            }
        }
    }
}

#[async_trait::async_trait]
impl super::Input for Gnome {
    fn desktop(&self) -> String {
        match self.probed().shell {
            Ok(v) => format!("GNOME Shell {v} (Mutter, Wayland)"),
            Err(_) => "GNOME (Mutter, Wayland)".into(),
        }
    }

    fn keyboard(&self) -> Result<String, String> {
        let p = self.probed();
        p.remote?;
        let route = match p.eis {
            true => "Mutter EIS keyboard (libei, through the remote desktop session)",
            false => "Mutter remote desktop keyboard",
        };
        Ok(match p.shell {
            Ok(_) => route.into(),
            // Keys need no position: they may go to a window the app says is active.
            Err(_) => format!(
                "{route}, into the window that is already active (without treeglass's GNOME \
                 Shell extension, no other can be raised)"
            ),
        })
    }

    fn keys_to_active_window(&self) -> bool {
        let p = self.probed();
        p.remote.is_ok() && p.shell.is_err()
    }

    fn pointer(&self) -> Result<String, String> {
        let p = self.probed();
        p.shell.map_err(|e| no_clicks(&e))?;
        p.remote?;
        if p.eis {
            return Ok(
                "Mutter EIS pointer (libei, absolute, through the remote desktop session)".into(),
            );
        }
        Ok(if pipewire_running() {
            "Mutter remote desktop pointer (absolute, through a screen cast stream)".into()
        } else {
            "Mutter remote desktop pointer (relative, from the bottom-right corner; no PipeWire)"
                .into()
        })
    }

    fn coordinates(&self) -> super::Coordinates {
        super::Coordinates::Window
    }

    async fn windows_of(&self, pid: u32) -> Result<Vec<Window>, DesktopError> {
        let mut w: Vec<Window> = self
            .listing()
            .await?
            .windows
            .into_iter()
            .filter(|w| w.window.pid == pid)
            .map(ShellWindow::into_window)
            .collect();
        w.sort_by_key(|w| std::cmp::Reverse(i64::from(w.rect.width) * i64::from(w.rect.height)));
        Ok(w)
    }

    async fn all_windows(&self) -> Result<Vec<Window>, String> {
        Ok(self
            .listing()
            .await
            .map_err(|e| e.to_string())?
            .windows
            .into_iter()
            .map(ShellWindow::into_window)
            .collect())
    }

    async fn activate(&self, window: &Window) -> Result<(), DesktopError> {
        let id = window.id;
        let found = self
            .shell()
            .await?
            .activate(id)
            .await
            .map_err(|e| DesktopError::NoInput(format!("raising the window: {e}")))?;
        if !found {
            return Err(DesktopError::NoInput(
                "raising the window: the window is gone".into(),
            ));
        }
        let until = std::time::Instant::now() + Duration::from_millis(1000);
        loop {
            let l = self.listing().await?;
            // The overview takes input until it is wholly hidden (GNOME Shell 48 still had it
            // for a click sent while it closed: the check box took the focus, not the click).
            match l.windows.iter().find(|w| w.window.id == id) {
                Some(w) if w.window.focused && w.window.visible && !l.overview => return Ok(()),
                None => {
                    return Err(DesktopError::NoInput(
                        "raising the window: the window is gone".into(),
                    ));
                }
                Some(_) if std::time::Instant::now() >= until => {
                    return Err(DesktopError::NoInput(match l.overview {
                        true => "raising the window: GNOME Shell's overview did not close".into(),
                        false => "raising the window: GNOME Shell did not make it the active \
                                  window"
                            .into(),
                    }));
                }
                Some(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    async fn type_text(&self, text: &str) -> Result<(), DesktopError> {
        let syms: Vec<u32> = text.chars().map(super::keymap::keysym_of).collect();
        self.keysyms(syms).await
    }

    async fn key(&self, key: Key) -> Result<(), DesktopError> {
        self.keysyms(vec![super::keymap::keysym_of_key(key)]).await
    }

    async fn prepare(&self) -> Result<bool, DesktopError> {
        // Mutter before 45 (known from the probe the write's planning made): no EIS, and no
        // session is made to learn it again.
        if self.probed.get().is_some_and(|p| !p.eis) {
            return Ok(false);
        }
        let conn = self.bus().await?.clone();
        self.eis
            .prepare(MUTTER_EIS, async move {
                let rd = Remote::start(&conn, false)
                    .await
                    .map_err(DesktopError::NoInput)?;
                if !rd.eis {
                    rd.stop().await;
                    return Ok(None);
                }
                let socket = match rd.connect_to_eis().await {
                    Ok(s) => s,
                    Err(e) => {
                        rd.stop().await;
                        return Err(e);
                    }
                };
                let path = rd.path.clone();
                let end: super::eis::End = Box::new(move || {
                    Box::pin(async move {
                        let rd = Remote {
                            conn: &conn,
                            path,
                            stream: None,
                            eis: true,
                        };
                        rd.stop().await;
                    })
                });
                Ok(Some((socket, end)))
            })
            .await
    }

    async fn click(&self, x: i32, y: i32) -> Result<(), DesktopError> {
        if let Some(r) = self.eis.click(x, y).await {
            return r;
        }
        let rd = match self.remote(pipewire_running()).await {
            Ok(rd) => rd,
            // No screen cast (PipeWire gone since): the relative route.
            Err(_) if pipewire_running() => self.remote(false).await?,
            Err(e) => return Err(e),
        };
        let r = match rd.eis {
            true => match rd.connect_to_eis().await {
                Ok(socket) => {
                    super::eis::blocking(move || super::eis::click_at(socket, x, y, MUTTER_EIS))
                        .await
                }
                Err(e) => Err(e),
            },
            false => self.click_in(&rd, x, y).await,
        };
        rd.stop().await;
        r
    }

    async fn wait_menu_keyboard(&self, _wait: Duration) -> Result<Option<bool>, DesktopError> {
        Ok(None)
    }
}

pub mod extension;

#[cfg(test)]
mod tests;
