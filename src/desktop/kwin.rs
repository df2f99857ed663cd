//! KDE Plasma on Wayland (KWin): where windows are and raising one, through a KWin script
//! loaded over D-Bus; keys and clicks through KWin's fake input protocol.
//!
//! - Windows: a script is written to a file, loaded with `org.kde.KWin /Scripting
//!   loadScript(path, name)` and run; it lists every window (Plasma 5: `workspace.clientList()`,
//!   Plasma 6: `workspace.windowList()`) with its process, caption, frame and buffer rectangles,
//!   or makes one the active window (Plasma 5 `workspace.activeClient`, Plasma 6
//!   `workspace.activeWindow`), and answers by `callDBus` to this process's own unique name,
//!   on an object made for that one script. An answer from anyone but `org.kde.KWin`'s owner
//!   is ignored. The script is unloaded and its file removed after it answers.
//! - Keys and clicks (`fake_input.rs`): `org_kde_kwin_fake_input`, which KWin 5.27 offers only
//!   to a program whose `.desktop` file names that interface (`treeglass kde-grant install`
//!   writes it, [`grant`]). Absolute pointer motion in global coordinates; keys are evdev codes
//!   that KWin maps through its own layout.
//! - KWin 6.1 and later: `org.kde.KWin.EIS.RemoteDesktop.connectToEIS` (found by its
//!   introspection) gives keys and clicks through EIS (`eis.rs`) with KWin's own keymap and no
//!   grant; chosen before the fake input. The bus connection that asked stays open while
//!   treeglass sends (KWin drops the EIS client with it), then `disconnect(cookie)`.
//!
//! Measured on KWin 5.27.5 (Debian 12). The Plasma 6 names are written from KWin 6's scripting
//! documentation and not verified on a real Plasma 6 session; the EIS route is tested against a
//! double of KWin 6.1 (`eis_double.rs`), not on a real one.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use super::{Rect, Window};

/// KWin's D-Bus name.
pub const SERVICE: &str = "org.kde.KWin";
/// KWin's EIS (6.1 and later).
const EIS_PATH: &str = "/org/kde/KWin/EIS/RemoteDesktop";
const EIS_IFACE: &str = "org.kde.KWin.EIS.RemoteDesktop";
/// How KWin's EIS is named in messages.
const KWIN_EIS: &str = "KWin's EIS";
/// The interface the scripts answer on.
const INBOX: &str = "org.treeglass.KWinScript";
/// How long a script may take to answer (KWin runs it on its main thread).
const SCRIPT_DEADLINE: Duration = Duration::from_secs(3);

/// One window as KWin's script reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KwinWindow {
    /// KWin's id for it (`internalId`, a UUID).
    pub uuid: String,
    pub window: Window,
    /// The client's buffer (its whole surface, a client-side shadow included).
    pub buffer: Rect,
}

/// The script's common part: the windows as KWin knows them, and `report(value)`, which sends
/// a value back as JSON. Plasma 6 names first, Plasma 5's where they are missing.
const PRELUDE: &str = r#"
function tgWindows() {
    return workspace.windowList ? workspace.windowList() : workspace.clientList();
}
function tgActive() {
    return ("activeWindow" in workspace) ? workspace.activeWindow : workspace.activeClient;
}
function tgRect(g) {
    return { x: Math.round(g.x), y: Math.round(g.y), width: Math.round(g.width), height: Math.round(g.height) };
}
function tgShown(c) {
    if (c.minimized) return false;
    if (c.onAllDesktops) return true;
    if (c.desktops !== undefined && workspace.currentDesktop !== undefined && typeof workspace.currentDesktop === "object")
        return c.desktops.indexOf(workspace.currentDesktop) >= 0;
    return c.desktop === workspace.currentDesktop;
}
function tgList() {
    var active = tgActive();
    var out = [];
    var all = tgWindows();
    for (var i = 0; i < all.length; i++) {
        var c = all[i];
        // Layer-shell surfaces (panels, overlays: KWin's popup layer and above) are no app's
        // window, though KWin calls them normal.
        if ((!c.normalWindow && !c.dialog) || c.layer >= 7) continue;
        out.push({ uuid: String(c.internalId), pid: c.pid, caption: String(c.caption),
                   frame: tgRect(c.frameGeometry), buffer: tgRect(c.bufferGeometry),
                   shown: tgShown(c), active: active === c, wayland: !!c.waylandClient || !c.x11Client });
    }
    return out;
}
"#;

/// The script that lists the windows.
fn list_script() -> String {
    "report({ windows: tgList(), screen: tgRect(workspace.virtualScreenGeometry) });".into()
}

/// The script that makes the window with this uuid the active one, then lists the windows.
fn activate_script(uuid: &str) -> String {
    format!(
        r#"var want = {uuid};
var all = tgWindows();
var found = false;
for (var i = 0; i < all.length; i++) {{
    var c = all[i];
    if (String(c.internalId) !== want) continue;
    found = true;
    if (c.minimized) c.minimized = false;
    if ("activeWindow" in workspace) workspace.activeWindow = c; else workspace.activeClient = c;
}}
report({{ found: found, windows: tgList(), screen: tgRect(workspace.virtualScreenGeometry) }});"#,
        uuid = Value::String(uuid.to_string())
    )
}

/// The rectangle in a script's answer.
fn rect(v: &Value) -> Rect {
    let n = |k: &str| v[k].as_i64().unwrap_or(0) as i32;
    Rect {
        x: n("x"),
        y: n("y"),
        width: n("width"),
        height: n("height"),
    }
}

/// The windows in a script's answer (`windows`). `id` is a number for each uuid, kept in
/// `ids` so that a window can be named to a later script.
pub fn parse_windows(v: &Value, ids: &mut HashMap<u64, String>) -> Vec<KwinWindow> {
    let mut out = Vec::new();
    for w in v["windows"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let Some(pid) = w["pid"]
            .as_u64()
            .filter(|&p| p > 0 && p <= u64::from(u32::MAX))
        else {
            continue;
        };
        let uuid = w["uuid"].as_str().unwrap_or_default().to_string();
        let id = id_of(&uuid);
        ids.insert(id, uuid.clone());
        out.push(KwinWindow {
            uuid,
            buffer: rect(&w["buffer"]),
            window: Window {
                id,
                pid: pid as u32,
                title: w["caption"].as_str().unwrap_or_default().to_string(),
                rect: rect(&w["frame"]),
                visible: w["shown"].as_bool().unwrap_or(false),
                focused: w["active"].as_bool().unwrap_or(false),
                native: w["wayland"].as_bool().unwrap_or(true),
                tiled: false,
                surface: None,
            },
        });
    }
    out
}

/// A stable number for a KWin uuid (FNV-1a), the window's id in treeglass.
fn id_of(uuid: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in uuid.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h >> 12
}

/// Where a script's answer goes: the one value it reports, from KWin only.
struct Inbox {
    kwin: String,
    tx: Mutex<Option<tokio::sync::oneshot::Sender<String>>>,
}

#[zbus::interface(name = "org.treeglass.KWinScript")]
impl Inbox {
    async fn done(&self, #[zbus(header)] header: zbus::message::Header<'_>, json: String) {
        let from_kwin = header.sender().is_some_and(|s| s.as_str() == self.kwin);
        if !from_kwin {
            return;
        }
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(json);
        }
    }
}

/// KWin's scripting, over a session bus connection of its own.
#[derive(Default)]
pub struct Scripts {
    conn: tokio::sync::OnceCell<zbus::Connection>,
    /// The uuid of each window id handed out.
    ids: Mutex<HashMap<u64, String>>,
    /// The bounding box of every screen, as the last script saw it.
    screen: Mutex<Option<Rect>>,
    serial: AtomicU64,
}

impl Scripts {
    async fn conn(&self) -> Result<&zbus::Connection, String> {
        self.conn
            .get_or_try_init(|| async {
                tokio::time::timeout(Duration::from_secs(3), zbus::Connection::session())
                    .await
                    .map_err(|_| "the session bus did not answer within 3 s".to_string())?
                    .map_err(|e| format!("cannot connect to the session bus: {e}"))
            })
            .await
    }

    /// Runs `body` (after [`PRELUDE`]) as a KWin script and returns what it reported.
    pub async fn run(&self, body: &str) -> Result<Value, String> {
        let conn = self.conn().await?;
        let kwin = owner(conn, SERVICE).await.map_err(|e| {
            format!("KWin is not on the session bus ({SERVICE}: {e}): is this a Plasma session?")
        })?;
        let me = conn
            .unique_name()
            .map(|n| n.to_string())
            .ok_or("no unique name on the session bus")?;
        let n = self.serial.fetch_add(1, Ordering::Relaxed);
        let name = format!("treeglass-{}-{n}", std::process::id());
        let object = format!("/org/treeglass/kwin/s{}_{n}", std::process::id());
        let (tx, rx) = tokio::sync::oneshot::channel();
        let inbox = Inbox {
            kwin,
            tx: Mutex::new(Some(tx)),
        };
        conn.object_server()
            .at(object.as_str(), inbox)
            .await
            .map_err(|e| format!("cannot serve the script's answer: {e}"))?;
        let script = format!(
            "{PRELUDE}\nfunction report(v) {{ callDBus({me}, {object}, {INBOX:?}, \"Done\", \
             JSON.stringify(v)); }}\n{body}\n",
            me = Value::String(me),
            object = Value::String(object.clone()),
        );
        let file = ScriptFile::write(&script)?;
        let path = file.path.to_string_lossy().into_owned();
        let result = async {
            let id: i32 = kcall(
                conn,
                "/Scripting",
                "org.kde.kwin.Scripting",
                "loadScript",
                &(path.as_str(), name.as_str()),
            )
            .await
            .map_err(|e| format!("KWin did not load the script: {e}"))?
            .body()
            .deserialize()
            .map_err(|e| format!("KWin's loadScript answered oddly: {e}"))?;
            if id < 0 {
                return Err("KWin refused to load the script".to_string());
            }
            // Plasma 6 names the script's object /Scripting/ScriptN, Plasma 5 /N.
            let mut ran = Err(String::new());
            for p in [format!("/Scripting/Script{id}"), format!("/{id}")] {
                ran = kcall(conn, &p, "org.kde.kwin.Script", "run", &())
                    .await
                    .map(|_| ());
                if ran.is_ok() {
                    break;
                }
            }
            ran.map_err(|e| format!("KWin did not run the script: {e}"))?;
            let json = tokio::time::timeout(SCRIPT_DEADLINE, rx)
                .await
                .map_err(|_| {
                    format!(
                        "KWin's script did not answer within {} s",
                        SCRIPT_DEADLINE.as_secs()
                    )
                })?
                .map_err(|_| "KWin's script did not answer".to_string())?;
            serde_json::from_str::<Value>(&json)
                .map_err(|e| format!("KWin's script answered something that is not JSON: {e}"))
        }
        .await;
        let _ = kcall(
            conn,
            "/Scripting",
            "org.kde.kwin.Scripting",
            "unloadScript",
            &(name.as_str(),),
        )
        .await;
        let _ = conn
            .object_server()
            .remove::<Inbox, _>(object.as_str())
            .await;
        drop(file);
        result
    }

    /// Every window KWin manages.
    pub async fn windows(&self) -> Result<Vec<KwinWindow>, String> {
        let v = self.run(&list_script()).await?;
        self.saw_screen(&v);
        let mut ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        Ok(parse_windows(&v, &mut ids))
    }

    /// Makes the window with this id the active one; the windows after it.
    pub async fn activate(&self, id: u64) -> Result<Vec<KwinWindow>, String> {
        let uuid = self
            .ids
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id)
            .cloned()
            .ok_or("the window is not one KWin listed")?;
        let v = self.run(&activate_script(&uuid)).await?;
        if v["found"] != true {
            return Err("the window is gone".into());
        }
        self.saw_screen(&v);
        let mut ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        Ok(parse_windows(&v, &mut ids))
    }

    fn saw_screen(&self, v: &Value) {
        let r = rect(&v["screen"]);
        if r.width > 0 && r.height > 0 {
            *self.screen.lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        }
    }

    /// The bounding box of every screen, as the last script saw it.
    pub fn screen(&self) -> Option<Rect> {
        *self.screen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether KWin offers EIS to other programs (KWin 6.1 and later:
    /// `org.kde.KWin.EIS.RemoteDesktop`, by its introspection).
    pub async fn offers_eis(&self) -> bool {
        let Ok(conn) = self.conn().await else {
            return false;
        };
        let Ok(reply) = kcall(
            conn,
            EIS_PATH,
            "org.freedesktop.DBus.Introspectable",
            "Introspect",
            &(),
        )
        .await
        else {
            return false;
        };
        reply
            .body()
            .deserialize::<String>()
            .is_ok_and(|xml| xml.contains(EIS_IFACE) && xml.contains("\"connectToEIS\""))
    }

    /// An EIS socket for keyboard and pointer, and its cookie (for `disconnect`). KWin keeps
    /// the EIS client while this connection to the bus stays.
    pub async fn connect_to_eis(&self) -> Result<(std::os::unix::net::UnixStream, i32), String> {
        let conn = self.conn().await?;
        // The portal's device types: keyboard 1, pointer 2.
        let (fd, cookie): (zbus::zvariant::OwnedFd, i32) =
            kcall(conn, EIS_PATH, EIS_IFACE, "connectToEIS", &(3_i32,))
                .await?
                .body()
                .deserialize()
                .map_err(|e| format!("connectToEIS answered oddly: {e}"))?;
        Ok((std::os::fd::OwnedFd::from(fd).into(), cookie))
    }

    /// Tells KWin the EIS client with this cookie is done.
    pub async fn disconnect_eis(&self, cookie: i32) {
        if let Ok(conn) = self.conn().await {
            let _ = kcall(conn, EIS_PATH, EIS_IFACE, "disconnect", &(cookie,)).await;
        }
    }

    /// KWin's version (`5.27.5`), from its support information.
    pub async fn version(&self) -> Result<String, String> {
        let conn = self.conn().await?;
        let info: String = kcall(conn, "/KWin", "org.kde.KWin", "supportInformation", &())
            .await?
            .body()
            .deserialize()
            .map_err(|e| e.to_string())?;
        info.lines()
            .find_map(|l| l.strip_prefix("KWin version: "))
            .map(|v| v.trim().to_string())
            .ok_or_else(|| "KWin did not say its version".into())
    }
}

/// A D-Bus call to KWin, answered within 3 s.
async fn kcall<B>(
    conn: &zbus::Connection,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<zbus::Message, String>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    super::call_within(
        Duration::from_secs(3),
        conn,
        SERVICE,
        path,
        iface,
        method,
        body,
    )
    .await
}

/// The unique name that owns `name` on the bus.
async fn owner(conn: &zbus::Connection, name: &str) -> Result<String, String> {
    let reply = tokio::time::timeout(
        Duration::from_secs(3),
        conn.call_method(
            Some("org.freedesktop.DBus"),
            "/org/freedesktop/DBus",
            Some("org.freedesktop.DBus"),
            "GetNameOwner",
            &(name,),
        ),
    )
    .await
    .map_err(|_| "no answer within 3 s".to_string())?
    .map_err(|e| e.to_string())?;
    reply
        .body()
        .deserialize::<String>()
        .map_err(|e| e.to_string())
}

/// The script's file, readable by KWin (which may run as another user), removed when dropped.
struct ScriptFile {
    dir: PathBuf,
    path: PathBuf,
}

impl ScriptFile {
    fn write(text: &str) -> Result<ScriptFile, String> {
        use std::io::Write;
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let base = std::env::var_os("XDG_RUNTIME_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = base.join(format!(
            "treeglass-kwin-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::DirBuilder::new()
            .mode(0o711)
            .create(&dir)
            .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        let path = dir.join("script.js");
        let made = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()));
        let file = ScriptFile { dir, path };
        made.map_err(|e| format!("cannot write {}: {e}", file.path.display()))?;
        Ok(file)
    }
}

impl Drop for ScriptFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The input grant: the `.desktop` file through which KWin offers `org_kde_kwin_fake_input` to
/// this program (KWin 5.27 finds it by its `Exec=`, this binary's exact path).
pub mod grant {
    use std::path::{Path, PathBuf};

    /// The interface the grant names.
    pub const INTERFACE: &str = "org_kde_kwin_fake_input";
    const FILE: &str = "treeglass-kwin-input.desktop";

    /// Where the grant is: the user's applications directory.
    pub fn path() -> Result<PathBuf, String> {
        let data = std::env::var_os("XDG_DATA_HOME")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|h| !h.is_empty())
                    .map(|h| PathBuf::from(h).join(".local/share"))
            })
            .ok_or("neither $XDG_DATA_HOME nor $HOME is set")?;
        Ok(data.join("applications").join(FILE))
    }

    /// This binary's path, as KWin sees it (`/proc/PID/exe`).
    pub fn exe() -> Result<PathBuf, String> {
        std::env::current_exe()
            .and_then(std::fs::canonicalize)
            .map_err(|e| format!("cannot tell where this program is: {e}"))
    }

    /// The file's text for the binary at `exe`.
    pub fn text(exe: &Path) -> String {
        // `Exec=` is split as a shell would: a path with spaces or quotes is quoted.
        let p = exe.to_string_lossy();
        let exec = if p
            .chars()
            .any(|c| c.is_whitespace() || "\"'\\$`".contains(c))
        {
            format!(
                "\"{}\"",
                p.replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('$', "\\$")
                    .replace('`', "\\`")
            )
        } else {
            p.into_owned()
        };
        format!(
            "[Desktop Entry]\nType=Application\nName=treeglass (KWin input grant)\n\
             Comment=Lets treeglass send keys and clicks to the apps it tests\n\
             Exec={exec}\nNoDisplay=true\nX-KDE-Wayland-Interfaces={INTERFACE}\n"
        )
    }

    /// Whether the grant is installed for this binary: `Ok(None)` yes, `Ok(Some(why))` no.
    pub fn status() -> Result<Option<String>, String> {
        let path = path()?;
        let exe = exe()?;
        match std::fs::read_to_string(&path) {
            Ok(t) if t == text(&exe) => Ok(None),
            Ok(_) => Ok(Some(format!(
                "{} names another program or is not treeglass's",
                path.display()
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(Some(format!("{} is missing", path.display())))
            }
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes the grant for this binary; returns its path.
    pub fn install() -> Result<PathBuf, String> {
        let path = path()?;
        let exe = exe()?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        }
        let tmp = path.with_extension("desktop.new");
        std::fs::write(&tmp, text(&exe))
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    }

    /// Removes the grant; whether there was one.
    pub fn remove() -> Result<bool, String> {
        let path = path()?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What KWin 5.27.5's script answered for gtk4-widget-factory (trimmed).
    const LIST: &str = r#"{"windows":[
      {"uuid":"{cfc10bce-10a6-4877-9862-14452575fcd4}","pid":15223,"caption":"GTK Widget Factory",
       "frame":{"x":-55,"y":0,"width":1391,"height":800},
       "buffer":{"x":-69,"y":-12,"width":1419,"height":829},"shown":true,"active":true,"wayland":true},
      {"uuid":"{x}","pid":0,"caption":"no process","frame":{},"buffer":{},"shown":true}]}"#;

    #[test]
    fn windows_are_read_with_both_rectangles() {
        let v: Value = serde_json::from_str(LIST).unwrap();
        let mut ids = HashMap::new();
        let w = parse_windows(&v, &mut ids);
        assert_eq!(w.len(), 1, "a window with no process is left out");
        let g = &w[0];
        assert_eq!(g.window.pid, 15223);
        assert!(g.window.focused && g.window.visible && g.window.native);
        assert_eq!(
            g.window.rect,
            Rect {
                x: -55,
                y: 0,
                width: 1391,
                height: 800
            }
        );
        assert_eq!(g.buffer.x, -69);
        assert_eq!(ids[&g.window.id], g.uuid);
    }

    #[test]
    fn the_grant_names_the_exact_path() {
        let t = grant::text(std::path::Path::new("/opt/tree glass/treeglass"));
        assert!(t.contains("Exec=\"/opt/tree glass/treeglass\"\n"), "{t}");
        assert!(t.contains("X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"));
        let t = grant::text(std::path::Path::new("/usr/bin/treeglass"));
        assert!(t.contains("Exec=/usr/bin/treeglass\n"), "{t}");
    }

    #[test]
    fn the_activate_script_quotes_the_uuid() {
        let s = activate_script("{a\"b}");
        assert!(s.contains(r#"var want = "{a\"b}";"#), "{s}");
    }
}

/// What doctor and a refused write say when the grant is missing.
pub const GRANT_MISSING: &str = "KWin offers it only to programs a .desktop file grants it to: \
     run `treeglass kde-grant install` (once per treeglass binary), then start treeglass again";

/// KDE Plasma on Wayland: windows and raising through KWin's scripting, keys and clicks
/// through its fake input.
#[derive(Default)]
pub struct Kwin {
    scripts: std::sync::Arc<Scripts>,
    device: std::sync::Arc<super::fake_input::Device>,
    /// Whether KWin offers the fake input to this program, asked on first need.
    offered: std::sync::OnceLock<Result<Option<u32>, String>>,
    version: std::sync::OnceLock<Result<String, String>>,
    /// Whether KWin offers EIS (6.1 and later), asked on first need: keys and clicks go
    /// there, before the fake input and its grant.
    eis: std::sync::OnceLock<bool>,
    /// The scripts' connection was the caller's ([`Kwin::on`]), made on a runtime that lives.
    given_bus: bool,
    /// The EIS sender held for the current write (KWin 6.1 and later).
    held: super::eis::Slot,
}

/// [`super::on_own_runtime`], asking KWin.
fn on_own_runtime<T: Send + 'static>(
    f: impl std::future::Future<Output = Result<T, String>> + Send + 'static,
) -> Result<T, String> {
    super::on_own_runtime("KWin", f)
}

/// Whether KWin offers EIS to other programs (blocking; KWin 6.1 and later), and its version
/// when it says.
pub fn eis_offered() -> Result<(bool, Option<String>), String> {
    on_own_runtime(async {
        let s = Scripts::default();
        Ok((s.offers_eis().await, s.version().await.ok()))
    })
}

/// Every window KWin shows, with its owner (blocking: the doctor's list).
pub fn window_list() -> Result<Vec<KwinWindow>, String> {
    on_own_runtime(async { Scripts::default().windows().await })
}

/// The layout KWin types with, when its configuration names one other than US: keys are
/// evdev codes, so another layout would type other characters.
fn foreign_layout() -> Option<String> {
    let dir = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    let text = std::fs::read_to_string(dir.join("kxkbrc")).ok()?;
    let mut used = true;
    let mut first = None;
    for line in text.lines() {
        if let Some(v) = line.trim().strip_prefix("Use=") {
            used = v.trim() == "true";
        }
        if let Some(v) = line.trim().strip_prefix("LayoutList=") {
            first = v.split(',').next().map(|s| s.trim().to_string());
        }
    }
    first.filter(|l| used && !l.is_empty() && l != "us")
}

impl Kwin {
    pub fn new() -> Kwin {
        Kwin::default()
    }

    /// On a bus connection of the caller's (KWin on it).
    pub fn on(conn: zbus::Connection) -> Kwin {
        Kwin {
            scripts: std::sync::Arc::new(Scripts {
                conn: tokio::sync::OnceCell::new_with(Some(conn)),
                ..Default::default()
            }),
            given_bus: true,
            ..Default::default()
        }
    }

    /// Whether KWin offers EIS (blocking on first call).
    fn eis(&self) -> bool {
        *self.eis.get_or_init(|| {
            let scripts = self.probe_scripts();
            on_own_runtime(async move { Ok(scripts.offers_eis().await) }).unwrap_or(false)
        })
    }

    /// Scripts for a question asked on a runtime of its own: a connection of their own, made
    /// and dropped there (a connection's tasks end with the runtime it was made on, so the
    /// backend's own must not be made there); a caller's connection when one was given.
    fn probe_scripts(&self) -> std::sync::Arc<Scripts> {
        match self.given_bus {
            true => self.scripts.clone(),
            false => std::sync::Arc::new(Scripts::default()),
        }
    }

    /// Sends through KWin's EIS: a socket for this write, `f` on it on the blocking pool, and
    /// KWin told the client is done.
    async fn through_eis(
        &self,
        f: impl FnOnce(std::os::unix::net::UnixStream) -> Result<(), super::eis::Failure>
        + Send
        + 'static,
    ) -> Result<(), DesktopError> {
        let (socket, cookie) = self
            .scripts
            .connect_to_eis()
            .await
            .map_err(|e| DesktopError::NoInput(format!("{KWIN_EIS}: {e}")))?;
        let r = super::eis::blocking(move || f(socket)).await;
        self.scripts.disconnect_eis(cookie).await;
        r
    }

    fn offered(&self) -> Result<Option<u32>, String> {
        self.offered.get_or_init(|| self.device.offered()).clone()
    }

    /// How keys and clicks are sent here, or why they cannot be.
    fn path(&self) -> Result<String, String> {
        if self.eis() {
            return Ok("KWin EIS".into());
        }
        match self.offered()? {
            Some(v) if v >= 4 => Ok("KWin fake input".into()),
            Some(v) => Err(format!(
                "KWin offers {} version {v}, and keys need version 4 (KWin 5.24 or later)",
                super::fake_input::GLOBAL
            )),
            None => Err(format!(
                "KWin does not offer {} to this program. {GRANT_MISSING}",
                super::fake_input::GLOBAL
            )),
        }
    }

    async fn blocking<T: Send + 'static>(
        &self,
        what: &'static str,
        f: impl FnOnce(&super::fake_input::Device) -> Result<T, String> + Send + 'static,
    ) -> Result<T, DesktopError> {
        let device = self.device.clone();
        tokio::task::spawn_blocking(move || f(&device))
            .await
            .map_err(|e| DesktopError::Failed(format!("{what}: {e}")))?
            .map_err(|e| DesktopError::NoInput(format!("{what}: {e}")))
    }

    async fn windows(&self) -> Result<Vec<KwinWindow>, DesktopError> {
        self.scripts
            .windows()
            .await
            .map_err(|e| DesktopError::NoInput(format!("KWin's window list: {e}")))
    }
}

use super::{DesktopError, Key};

#[async_trait::async_trait]
impl super::Input for Kwin {
    fn desktop(&self) -> String {
        let v = self.version.get_or_init(|| {
            let scripts = self.probe_scripts();
            on_own_runtime(async move { scripts.version().await })
        });
        match v {
            Ok(v) => format!("KDE Plasma (KWin {v}, Wayland)"),
            Err(_) => "KDE Plasma (KWin, Wayland; KWin does not answer on D-Bus)".into(),
        }
    }

    fn keyboard(&self) -> Result<String, String> {
        if self.eis() {
            return Ok("KWin EIS keyboard (libei, KWin's own keymap)".into());
        }
        self.path()?;
        if let Some(l) = foreign_layout() {
            return Err(format!(
                "KWin types with the '{l}' keyboard layout, and treeglass sends keys as a US \
                 layout's: make US the first layout to type by keyboard"
            ));
        }
        Ok("KWin fake input keyboard".into())
    }

    fn pointer(&self) -> Result<String, String> {
        if self.eis() {
            return Ok("KWin EIS pointer (libei, absolute)".into());
        }
        self.path().map(|_| "KWin fake input pointer".into())
    }

    fn coordinates(&self) -> super::Coordinates {
        super::Coordinates::Window
    }

    async fn windows_of(&self, pid: u32) -> Result<Vec<Window>, DesktopError> {
        let mut w: Vec<Window> = self
            .windows()
            .await?
            .into_iter()
            .filter(|w| w.window.pid == pid)
            .map(KwinWindow::into_window)
            .collect();
        w.sort_by_key(|w| std::cmp::Reverse(i64::from(w.rect.width) * i64::from(w.rect.height)));
        Ok(w)
    }

    async fn all_windows(&self) -> Result<Vec<Window>, String> {
        Ok(self
            .scripts
            .windows()
            .await?
            .into_iter()
            .map(KwinWindow::into_window)
            .collect())
    }

    async fn activate(&self, window: &Window) -> Result<(), DesktopError> {
        self.path().map_err(DesktopError::NoInput)?;
        if !self.eis() {
            self.blocking("KWin's fake input", |d| d.prepare()).await?;
        }
        let id = window.id;
        let until = std::time::Instant::now() + Duration::from_millis(1000);
        let mut wins = self
            .scripts
            .activate(id)
            .await
            .map_err(|e| DesktopError::NoInput(format!("raising the window: {e}")))?;
        loop {
            match wins.iter().find(|w| w.window.id == id) {
                Some(w) if w.window.focused && w.window.visible => return Ok(()),
                None => {
                    return Err(DesktopError::NoInput(
                        "raising the window: the window is gone".into(),
                    ));
                }
                Some(_) if std::time::Instant::now() >= until => {
                    return Err(DesktopError::NoInput(
                        "raising the window: KWin did not make it the active window".into(),
                    ));
                }
                Some(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    wins = self.windows().await?;
                }
            }
        }
    }

    async fn prepare(&self) -> Result<bool, DesktopError> {
        if !self.eis() {
            return Ok(false);
        }
        let scripts = self.scripts.clone();
        self.held
            .prepare(KWIN_EIS, async move {
                let (socket, cookie) = scripts
                    .connect_to_eis()
                    .await
                    .map_err(|e| DesktopError::NoInput(format!("{KWIN_EIS}: {e}")))?;
                let end: super::eis::End =
                    Box::new(move || Box::pin(async move { scripts.disconnect_eis(cookie).await }));
                Ok(Some((socket, end)))
            })
            .await
    }

    async fn type_text(&self, text: &str) -> Result<(), DesktopError> {
        self.keyboard().map_err(DesktopError::NoInput)?;
        if self.eis() {
            let syms: Vec<u32> = text.chars().map(super::keymap::keysym_of).collect();
            if let Some(r) = self.held.keys(syms.clone()).await {
                return r;
            }
            return self
                .through_eis(move |s| super::eis::type_keysyms(s, &syms, KWIN_EIS))
                .await;
        }
        let presses = super::fake_input::presses(text).map_err(|c| {
            DesktopError::NoInput(format!(
                "KWin's fake input presses keys of KWin's own (US) layout, which has no {}: \
                 nothing was typed",
                crate::model::quoted(&c.to_string(), 10)
            ))
        })?;
        self.blocking("KWin's fake input", move |d| d.keys(presses))
            .await
    }

    async fn key(&self, key: Key) -> Result<(), DesktopError> {
        self.keyboard().map_err(DesktopError::NoInput)?;
        if self.eis() {
            let sym = super::keymap::keysym_of_key(key);
            if let Some(r) = self.held.keys(vec![sym]).await {
                return r;
            }
            return self
                .through_eis(move |s| super::eis::type_keysyms(s, &[sym], KWIN_EIS))
                .await;
        }
        let code = super::fake_input::key_code(key);
        self.blocking("KWin's fake input", move |d| d.keys(vec![(code, false)]))
            .await
    }

    async fn click(&self, x: i32, y: i32) -> Result<(), DesktopError> {
        self.pointer().map_err(DesktopError::NoInput)?;
        if self.eis() {
            if let Some(r) = self.held.click(x, y).await {
                return r;
            }
            // The pointer's regions are the screens: a point in none is refused there.
            return self
                .through_eis(move |s| super::eis::click_at(s, x, y, KWIN_EIS))
                .await;
        }
        // KWin keeps the pointer on the screens: a point off them would click at their edge.
        let screen = match self.scripts.screen() {
            Some(s) => s,
            None => {
                self.windows().await?;
                self.scripts.screen().ok_or_else(|| {
                    DesktopError::NoInput("KWin did not say where its screens are".into())
                })?
            }
        };
        if !screen.contains(x, y) {
            return Err(DesktopError::NoInput(format!(
                "({x}, {y}) is outside every screen ({}, {}, {}×{}): nothing was clicked",
                screen.x, screen.y, screen.width, screen.height
            )));
        }
        self.blocking("KWin's fake input", move |d| d.click(x, y))
            .await
    }

    async fn wait_menu_keyboard(&self, _wait: Duration) -> Result<Option<bool>, DesktopError> {
        Ok(None)
    }
}

impl KwinWindow {
    fn into_window(self) -> Window {
        Window {
            surface: Some(self.buffer),
            ..self.window
        }
    }
}
