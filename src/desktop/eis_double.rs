//! Doubles of the desktops whose EIS input Debian 12 cannot run (Mutter 45+, KWin 6.1+), for
//! the tests of `eis.rs` through the real [`super::Input`] implementations: a private
//! `dbus-daemon`, a service on it that plays GNOME Shell (treeglass's extension), Mutter's
//! remote desktop (sessions with `ConnectToEIS`) and KWin's EIS interface, and behind each
//! handed-out socket a `reis` EIS server that records every event it receives.

use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reis::eis;
use reis::request::{DeviceCapability, EisRequest};

/// One US keyboard row: (XKB key name, evdev code, level 1, level 2).
pub const US: &[(&str, u32, &str, &str)] = &[
    ("AE01", 2, "1", "exclam"),
    ("AE02", 3, "2", "at"),
    ("AE03", 4, "3", "numbersign"),
    ("AE04", 5, "4", "dollar"),
    ("AE05", 6, "5", "percent"),
    ("AE06", 7, "6", "asciicircum"),
    ("AE07", 8, "7", "ampersand"),
    ("AE08", 9, "8", "asterisk"),
    ("AE09", 10, "9", "parenleft"),
    ("AE10", 11, "0", "parenright"),
    ("AD01", 16, "q", "Q"),
    ("AD02", 17, "w", "W"),
    ("AD03", 18, "e", "E"),
    ("AD04", 19, "r", "R"),
    ("AD05", 20, "t", "T"),
    ("AD06", 21, "y", "Y"),
    ("AD07", 22, "u", "U"),
    ("AD08", 23, "i", "I"),
    ("AD09", 24, "o", "O"),
    ("AD10", 25, "p", "P"),
    ("AC01", 30, "a", "A"),
    ("AC02", 31, "s", "S"),
    ("AC03", 32, "d", "D"),
    ("AC04", 33, "f", "F"),
    ("AC05", 34, "g", "G"),
    ("AC06", 35, "h", "H"),
    ("AC07", 36, "j", "J"),
    ("AC08", 37, "k", "K"),
    ("AC09", 38, "l", "L"),
    ("AB01", 44, "z", "Z"),
    ("AB02", 45, "x", "X"),
    ("AB03", 46, "c", "C"),
    ("AB04", 47, "v", "V"),
    ("AB05", 48, "b", "B"),
    ("AB06", 49, "n", "N"),
    ("AB07", 50, "m", "M"),
    ("AB08", 51, "comma", "less"),
    ("AB09", 52, "period", "greater"),
];
pub const SHIFT: u32 = 42;

/// A keymap as libxkbcommon writes one (what Mutter and KWin hand out): a US layout's letters,
/// digits and a few more, named keysyms, explicit types on the letters, a keypad key whose
/// second level needs Num Lock (not Shift), and no é anywhere.
pub fn us_keymap() -> String {
    let mut codes = String::new();
    let mut syms = String::new();
    let mut key = |name: &str, code: u32, body: String| {
        codes.push_str(&format!("\t<{name}> = {};\n", code + 8));
        syms.push_str(&format!("\tkey <{name}> {{\t{body} }};\n"));
    };
    for (name, code, l1, l2) in US {
        let body = if l1.len() == 1 && l1.chars().all(|c| c.is_ascii_lowercase()) {
            format!("type= \"ALPHABETIC\", symbols[Group1]= [ {l1}, {l2} ]")
        } else {
            format!("[ {l1}, {l2} ]")
        };
        key(name, *code, body);
    }
    key("SPCE", 57, "[ space ]".into());
    key("RTRN", 28, "[ Return ]".into());
    key("BKSP", 14, "[ BackSpace ]".into());
    key("LFSH", SHIFT, "[ Shift_L ]".into());
    key("UP", 103, "[ Up ]".into());
    key("DOWN", 108, "[ Down ]".into());
    key(
        "KP7",
        71,
        "type= \"KEYPAD\", symbols[Group1]= [ KP_Home, KP_7 ]".into(),
    );
    format!(
        "xkb_keymap {{\nxkb_keycodes \"evdev+aliases(qwerty)\" {{\n\tminimum = 8;\n\tmaximum = \
         255;\n{codes}\talias <LatQ> = <AD01>;\n\tindicator 1 = \"Caps Lock\";\n}};\n\
         xkb_types \"complete\" {{\n\tvirtual_modifiers NumLock;\n\ttype \"ONE_LEVEL\" {{\n\t\t\
         modifiers= none;\n\t\tlevel_name[Level1]= \"Any\";\n\t}};\n}};\n\
         xkb_compatibility \"complete\" {{\n\tinterpret Any+AnyOf(all) {{\n\t\t\
         action= SetMods(modifiers=modMapMods,clearLocks);\n\t}};\n}};\n\
         xkb_symbols \"pc+us+inet(evdev)\" {{\n\tname[Group1]=\"English (US)\";\n{syms}\t\
         modifier_map Shift {{ <LFSH> }};\n}};\n\n}};\n"
    )
}

/// What an EIS server of the double received, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    Key(u32, bool),
    /// Mutter 43's `NotifyKeyboardKeysym`.
    Keysym(u32, bool),
    Motion(f32, f32),
    Button(u32, bool),
}

/// How the double behaves.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The EIS server closes its socket after this many key events.
    pub cut_after_keys: Option<usize>,
    /// The pointer's regions (x, y, width, height).
    pub regions: Vec<(u32, u32, u32, u32)>,
    /// Mutter's sessions are Mutter 43's: no `ConnectToEIS`, keys by keysym.
    pub mutter43: bool,
}

/// What happened on the double's D-Bus side and its EIS servers.
#[derive(Debug, Default)]
pub struct Log {
    pub got: Vec<Got>,
    /// Mutter sessions: (path, started, stopped, connected to EIS).
    pub sessions: Vec<(String, bool, bool, bool)>,
    /// KWin's EIS: cookies handed out and disconnected.
    pub kwin_cookies: Vec<i32>,
    pub kwin_disconnected: Vec<i32>,
}

type Shared = Arc<(Config, Mutex<Log>)>;

fn log(s: &Shared) -> std::sync::MutexGuard<'_, Log> {
    s.1.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serves one EIS connection on its own thread, recording what arrives.
fn eis_server(shared: Shared) -> UnixStream {
    let (ours, theirs) = UnixStream::pair().expect("socketpair");
    std::thread::spawn(move || serve(ours, shared));
    theirs
}

fn readable(ctx: &eis::Context) -> bool {
    use rustix::event::{PollFd, PollFlags, poll};
    let fd = ctx.as_fd();
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    let ts = rustix::time::Timespec {
        tv_sec: 5,
        tv_nsec: 0,
    };
    matches!(poll(&mut fds, Some(&ts)), Ok(n) if n > 0)
}

fn serve(stream: UnixStream, shared: Shared) {
    let ctx = eis::Context::new(stream).expect("EIS context");
    let mut hs = reis::handshake::EisHandshaker::new(&ctx, 1);
    let resp = 'shake: loop {
        if !readable(&ctx) || ctx.read().is_err() {
            return;
        }
        while let Some(r) = ctx.pending_request() {
            if let reis::PendingRequestResult::Request(r) = r
                && let Ok(Some(resp)) = hs.handle_request(r)
            {
                break 'shake resp;
            }
        }
    };
    let mut conv = reis::request::EisRequestConverter::new(&ctx, resp, 1);
    let _seat = conv.handle().add_seat(
        Some("default"),
        DeviceCapability::Keyboard | DeviceCapability::PointerAbsolute | DeviceCapability::Button,
    );
    let _ = ctx.flush();
    let keymap = us_keymap();
    let mut keys = 0;
    loop {
        if !readable(&ctx) || ctx.read().is_err() {
            return;
        }
        // One request at a time, each handled before the next is read: a cut comes before
        // anything sent after it is answered (a round trip's sync included).
        while let Some(r) = ctx.pending_request() {
            if let reis::PendingRequestResult::Request(r) = r
                && conv.handle_request(r).is_err()
            {
                return;
            }
            while let Some(req) = conv.next_request() {
                match req {
                    EisRequest::Bind(b) => {
                        let kbd = b.seat.add_device(
                            Some("keyboard"),
                            eis::device::DeviceType::Virtual,
                            DeviceCapability::Keyboard.into(),
                            |d| {
                                let fd = rustix::fs::memfd_create(
                                    "keymap",
                                    rustix::fs::MemfdFlags::CLOEXEC,
                                )
                                .expect("memfd");
                                rustix::io::write(&fd, keymap.as_bytes()).expect("keymap");
                                if let Some(k) = d.interface::<eis::Keyboard>() {
                                    k.keymap(
                                        eis::keyboard::KeymapType::Xkb,
                                        keymap.len() as u32,
                                        fd.as_fd(),
                                    );
                                }
                            },
                        );
                        kbd.resumed();
                        let ptr = b.seat.add_device(
                            Some("pointer"),
                            eis::device::DeviceType::Virtual,
                            DeviceCapability::PointerAbsolute | DeviceCapability::Button,
                            |d| {
                                for &(x, y, w, h) in &shared.0.regions {
                                    d.device().region(x, y, w, h, 1.0);
                                }
                            },
                        );
                        ptr.resumed();
                    }
                    EisRequest::KeyboardKey(k) => {
                        let down = k.state == eis::keyboard::KeyState::Press;
                        log(&shared).got.push(Got::Key(k.key, down));
                        keys += 1;
                        if shared.0.cut_after_keys == Some(keys) {
                            // Dropping the context closes the socket: the server is gone.
                            return;
                        }
                    }
                    EisRequest::PointerMotionAbsolute(m) => {
                        log(&shared)
                            .got
                            .push(Got::Motion(m.dx_absolute, m.dy_absolute));
                    }
                    EisRequest::Button(b) => {
                        let down = b.state == eis::button::ButtonState::Press;
                        log(&shared).got.push(Got::Button(b.button, down));
                    }
                    _ => {}
                }
            }
        }
        let _ = ctx.flush();
    }
}

/// Mutter's `org.gnome.Mutter.RemoteDesktop`.
struct MutterRd {
    shared: Shared,
}

#[zbus::interface(name = "org.gnome.Mutter.RemoteDesktop")]
impl MutterRd {
    async fn create_session(
        &self,
        #[zbus(object_server)] server: &zbus::ObjectServer,
    ) -> zbus::fdo::Result<zbus::zvariant::OwnedObjectPath> {
        let n = {
            let mut l = log(&self.shared);
            let n = l.sessions.len();
            let path = format!("/org/gnome/Mutter/RemoteDesktop/Session/u{n}");
            l.sessions.push((path, false, false, false));
            n
        };
        let path = format!("/org/gnome/Mutter/RemoteDesktop/Session/u{n}");
        let shared = self.shared.clone();
        match self.shared.0.mutter43 {
            true => {
                server
                    .at(path.as_str(), Mutter43Session { shared, n })
                    .await?
            }
            false => {
                server
                    .at(path.as_str(), MutterSession { shared, n })
                    .await?
            }
        };
        zbus::zvariant::OwnedObjectPath::try_from(path)
            .map_err(|e| zbus::fdo::Error::Failed(e.to_string()))
    }
}

/// One Mutter 46 remote desktop session: Start, Stop, ConnectToEIS.
struct MutterSession {
    shared: Shared,
    n: usize,
}

#[zbus::interface(name = "org.gnome.Mutter.RemoteDesktop.Session")]
impl MutterSession {
    async fn start(&self) {
        log(&self.shared).sessions[self.n].1 = true;
    }

    async fn stop(&self) {
        log(&self.shared).sessions[self.n].2 = true;
    }

    #[zbus(name = "ConnectToEIS")]
    async fn connect_to_eis(
        &self,
        _options: std::collections::HashMap<String, zbus::zvariant::OwnedValue>,
    ) -> zbus::fdo::Result<zbus::zvariant::OwnedFd> {
        {
            let mut l = log(&self.shared);
            let s = &mut l.sessions[self.n];
            if !s.1 || s.2 {
                return Err(zbus::fdo::Error::Failed("Session not started".into()));
            }
            s.3 = true;
        }
        let fd: std::os::fd::OwnedFd = eis_server(self.shared.clone()).into();
        Ok(fd.into())
    }

    #[zbus(property)]
    async fn session_id(&self) -> String {
        format!("u{}", self.n)
    }
}

/// One Mutter 43 remote desktop session: no EIS.
struct Mutter43Session {
    shared: Shared,
    n: usize,
}

#[zbus::interface(name = "org.gnome.Mutter.RemoteDesktop.Session")]
impl Mutter43Session {
    async fn start(&self) {
        log(&self.shared).sessions[self.n].1 = true;
    }

    async fn stop(&self) {
        log(&self.shared).sessions[self.n].2 = true;
    }

    async fn notify_keyboard_keysym(&self, keysym: u32, state: bool) {
        log(&self.shared).got.push(Got::Keysym(keysym, state));
    }
}

/// KWin 6.1's `org.kde.KWin.EIS.RemoteDesktop`.
struct KwinEis {
    shared: Shared,
}

#[zbus::interface(name = "org.kde.KWin.EIS.RemoteDesktop")]
impl KwinEis {
    #[zbus(name = "connectToEIS")]
    async fn connect_to_eis(
        &self,
        capabilities: i32,
    ) -> zbus::fdo::Result<(zbus::zvariant::OwnedFd, i32)> {
        if capabilities & 3 != 3 {
            return Err(zbus::fdo::Error::Failed(
                "the double wants keyboard and pointer asked for".into(),
            ));
        }
        let cookie = {
            let mut l = log(&self.shared);
            let c = l.kwin_cookies.len() as i32 + 7;
            l.kwin_cookies.push(c);
            c
        };
        let fd: std::os::fd::OwnedFd = eis_server(self.shared.clone()).into();
        Ok((fd.into(), cookie))
    }

    #[zbus(name = "disconnect")]
    async fn disconnect(&self, cookie: i32) {
        log(&self.shared).kwin_disconnected.push(cookie);
    }
}

/// treeglass's GNOME Shell extension, as far as the input path asks it.
struct Extension;

#[zbus::interface(name = "org.treeglass.Shell1")]
impl Extension {
    async fn version(&self) -> String {
        r#"{"extension": 1, "shell": "46.0"}"#.into()
    }

    async fn windows(&self) -> String {
        r#"{"windows": [], "pointer": {"x": 0, "y": 0}, "screen": {"width": 3200, "height": 1080}, "overview": false}"#.into()
    }
}

/// A private bus with the double on it; both go when this is dropped.
pub struct Double {
    daemon: Child,
    dir: PathBuf,
    /// A client's connection to the bus (what treeglass's code is given).
    pub client: zbus::Connection,
    _service: zbus::Connection,
    shared: Shared,
}

impl Double {
    pub async fn start(config: Config) -> Double {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "treeglass-eis-double-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let socket = dir.join("bus");
        let conf = dir.join("bus.conf");
        std::fs::write(
            &conf,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
                socket.display()
            ),
        )
        .expect("bus config");
        let daemon = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", conf.display()))
            .args(["--nofork", "--nopidfile"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("dbus-daemon must be installed (it is part of the test stack)");
        let address = format!("unix:path={}", socket.display());
        let until = Instant::now() + Duration::from_secs(10);
        while !socket.exists() {
            assert!(Instant::now() < until, "dbus-daemon did not listen in 10 s");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let shared: Shared = Arc::new((config, Mutex::new(Log::default())));
        let service = zbus::connection::Builder::address(address.as_str())
            .expect("address")
            .name("org.gnome.Shell")
            .expect("name")
            .name("org.gnome.Mutter.RemoteDesktop")
            .expect("name")
            .name("org.kde.KWin")
            .expect("name")
            .serve_at("/org/treeglass/Shell", Extension)
            .expect("serve")
            .serve_at(
                "/org/gnome/Mutter/RemoteDesktop",
                MutterRd {
                    shared: shared.clone(),
                },
            )
            .expect("serve")
            .serve_at(
                "/org/kde/KWin/EIS/RemoteDesktop",
                KwinEis {
                    shared: shared.clone(),
                },
            )
            .expect("serve")
            .build()
            .await
            .expect("the double's connection");
        let client = zbus::connection::Builder::address(address.as_str())
            .expect("address")
            .build()
            .await
            .expect("the client's connection");
        Double {
            daemon,
            dir,
            client,
            _service: service,
            shared,
        }
    }

    pub fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        log(&self.shared)
    }
}

impl Drop for Double {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
