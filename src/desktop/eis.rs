//! Keys and clicks through EIS, libei's protocol (the `reis` crate), on whatever socket a
//! desktop hands out: Mutter 45 and later (`ConnectToEIS` on a remote desktop session,
//! `gnome.rs`), KWin 6.1 and later (`org.kde.KWin.EIS.RemoteDesktop.connectToEIS`, `kwin.rs`).
//! The desktop keeps the socket's other end; the D-Bus side that gave it stays open while this
//! sends (the desktop drops the EIS client with it).
//!
//! treeglass is a sender: it binds the seat's keyboard, absolute pointer and button
//! capabilities and waits for the devices the server makes, each resumed. Keys are evdev codes
//! of the keymap the server hands out with its keyboard ([`keymap::Parsed`]): a keysym that
//! keymap lacks is refused before any key is pressed. Absolute motion is in the logical
//! layout the pointer's regions describe: a point outside every region is refused before
//! anything is sent (never moved to the nearest edge). Every write ends with a round trip
//! (`ei_connection.sync`), so a server that went away mid-write is an error, not a success.
//!
//! Blocking (a socket of its own): run it on the blocking pool.

use std::os::unix::fs::FileExt;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use reis::ei;
use reis::event::{DeviceCapability, EiEvent};

use super::DesktopError;
use super::keymap::{Parsed, Press};

/// evdev's left button.
pub const BTN_LEFT: u32 = 0x110;
/// How long the server may take to offer its devices, and to answer a round trip.
const WAIT: Duration = Duration::from_secs(3);
/// The name treeglass gives itself to the server.
const NAME: &str = "treeglass";

/// What a write needs from the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    Keyboard,
    Pointer,
    /// Both: a sender held for a whole write ([`Held`]).
    Both,
}

/// How sending went wrong: before anything was sent (the write did not happen), or after
/// part of it went out (it may have partly landed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    NotSent(String),
    Cut(String),
}

impl Failure {
    pub fn text(&self) -> &str {
        match self {
            Failure::NotSent(s) | Failure::Cut(s) => s,
        }
    }
}

struct Dev {
    device: reis::event::Device,
    resumed: bool,
}

/// One EIS connection, as a sender, with the devices the server offered.
pub struct Sender {
    context: ei::Context,
    converter: reis::event::EiEventConverter,
    keyboard: Option<Dev>,
    pointer: Option<Dev>,
    /// The server's keymap, read when the keyboard came.
    keymap: Option<Parsed>,
    sequence: u32,
    /// Why the server went away, once it has.
    gone: Option<String>,
}

fn io(e: impl std::fmt::Display) -> String {
    format!("the EIS connection failed: {e}")
}

impl Sender {
    /// Shakes hands on `socket` and waits until the devices `need` asks for are there and
    /// resumed.
    pub fn connect(socket: UnixStream, need: Need) -> Result<Sender, String> {
        let context = ei::Context::new(socket).map_err(io)?;
        let until = Instant::now() + WAIT;
        let mut handshaker =
            reis::handshake::EiHandshaker::new(NAME, ei::handshake::ContextType::Sender);
        let resp = 'shake: loop {
            wait_readable(&context, until)?;
            context.read().map_err(|e| {
                format!("the EIS server closed the connection during the handshake ({e})")
            })?;
            while let Some(r) = context.pending_event() {
                let ev = match r {
                    reis::PendingRequestResult::Request(ev) => ev,
                    reis::PendingRequestResult::ParseError(e) => return Err(io(e)),
                    reis::PendingRequestResult::InvalidObject(_) => continue,
                };
                if let Some(resp) = handshaker.handle_event(ev).map_err(io)? {
                    break 'shake resp;
                }
            }
        };
        let converter = reis::event::EiEventConverter::new(&context, resp);
        let mut me = Sender {
            context,
            converter,
            keyboard: None,
            pointer: None,
            keymap: None,
            sequence: 0,
            gone: None,
        };
        // Whatever came with the handshake's last message.
        me.take_events()?;
        loop {
            if let Some(why) = &me.gone {
                return Err(why.clone());
            }
            let ready = |d: &Option<Dev>| d.as_ref().is_some_and(|d| d.resumed);
            let keyboard = ready(&me.keyboard) && me.keymap.is_some();
            let have = match need {
                Need::Keyboard => keyboard,
                Need::Pointer => ready(&me.pointer),
                Need::Both => keyboard && ready(&me.pointer),
            };
            if have {
                return Ok(me);
            }
            if Instant::now() >= until {
                let what = match need {
                    Need::Keyboard | Need::Both if me.keyboard.is_some() && me.keymap.is_none() => {
                        "a keyboard with an XKB keymap"
                    }
                    Need::Keyboard => "a keyboard (resumed)",
                    Need::Pointer => "an absolute pointer with buttons (resumed)",
                    Need::Both => "a keyboard and an absolute pointer with buttons (resumed)",
                };
                return Err(format!(
                    "the EIS server offered no {what} within {} s",
                    WAIT.as_secs()
                ));
            }
            me.pump(until)?;
        }
    }

    /// Reads what the server sent, waiting until `until` for something.
    fn pump(&mut self, until: Instant) -> Result<(), String> {
        wait_readable(&self.context, until)?;
        self.read()
    }

    /// Reads what is there without waiting.
    fn read(&mut self) -> Result<(), String> {
        match self.context.read() {
            Ok(_) => {}
            // A close and a reset (the server went away with our frames unread) alike.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::ConnectionReset
                ) =>
            {
                self.gone
                    .get_or_insert_with(|| "the EIS server closed the connection".into());
            }
            Err(e) => return Err(io(e)),
        }
        self.take_events()
    }

    fn take_events(&mut self) -> Result<(), String> {
        while let Some(r) = self.context.pending_event() {
            match r {
                reis::PendingRequestResult::Request(ev) => {
                    self.converter.handle_event(ev).map_err(io)?;
                }
                reis::PendingRequestResult::ParseError(e) => return Err(io(e)),
                reis::PendingRequestResult::InvalidObject(_) => {}
            }
        }
        while let Some(ev) = self.converter.next_event() {
            self.event(ev)?;
        }
        Ok(())
    }

    fn event(&mut self, ev: EiEvent) -> Result<(), String> {
        match ev {
            EiEvent::Disconnected(d) => {
                self.gone = Some(format!(
                    "the EIS server disconnected treeglass ({:?}{})",
                    d.reason,
                    d.explanation.map(|e| format!(": {e}")).unwrap_or_default()
                ));
            }
            EiEvent::SeatAdded(s) => {
                s.seat.bind_capabilities(
                    DeviceCapability::Keyboard
                        | DeviceCapability::PointerAbsolute
                        | DeviceCapability::Button,
                );
                self.context.flush().map_err(io)?;
            }
            EiEvent::DeviceAdded(d) => {
                let dev = d.device;
                if self.keyboard.is_none() && dev.has_capability(DeviceCapability::Keyboard) {
                    if let Some(k) = dev.keymap() {
                        self.keymap = Some(read_keymap(k)?);
                    }
                    self.keyboard = Some(Dev {
                        device: dev.clone(),
                        resumed: false,
                    });
                }
                if self.pointer.is_none()
                    && dev.has_capability(DeviceCapability::PointerAbsolute)
                    && dev.has_capability(DeviceCapability::Button)
                {
                    self.pointer = Some(Dev {
                        device: dev,
                        resumed: false,
                    });
                }
            }
            EiEvent::DeviceRemoved(d) => {
                for slot in [&mut self.keyboard, &mut self.pointer] {
                    if slot.as_ref().is_some_and(|s| s.device == d.device) {
                        *slot = None;
                    }
                }
            }
            EiEvent::DeviceResumed(d) => self.set_resumed(&d.device, true),
            EiEvent::DevicePaused(d) => self.set_resumed(&d.device, false),
            _ => {}
        }
        Ok(())
    }

    fn set_resumed(&mut self, device: &reis::event::Device, resumed: bool) {
        for d in [&mut self.keyboard, &mut self.pointer]
            .into_iter()
            .flatten()
        {
            if &d.device == device {
                d.resumed = resumed;
            }
        }
    }

    /// The keys that type `keysyms` in the server's keymap, or the first keysym it lacks.
    pub fn presses(&self, keysyms: &[u32]) -> Result<Vec<Press>, u32> {
        let Some(map) = &self.keymap else {
            return Err(keysyms.first().copied().unwrap_or(0));
        };
        keysyms.iter().map(|&k| map.press(k).ok_or(k)).collect()
    }

    /// The regions the pointer moves in (logical pixels: x, y, width, height).
    pub fn regions(&self) -> Vec<(u32, u32, u32, u32)> {
        self.pointer
            .as_ref()
            .map(|p| {
                p.device
                    .regions()
                    .iter()
                    .map(|r| (r.x, r.y, r.width, r.height))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Fails when the server went away or paused the device.
    fn check(&mut self, keyboard: bool) -> Result<(), String> {
        self.read()?;
        if let Some(why) = &self.gone {
            return Err(why.clone());
        }
        let dev = if keyboard {
            &self.keyboard
        } else {
            &self.pointer
        };
        match dev {
            Some(d) if d.resumed => Ok(()),
            Some(_) => Err("the EIS server paused the device".into()),
            None => Err("the EIS server removed the device".into()),
        }
    }

    fn flush(&self) -> Result<(), String> {
        let until = Instant::now() + WAIT;
        loop {
            match self.context.flush() {
                Ok(()) => return Ok(()),
                Err(rustix::io::Errno::AGAIN) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(rustix::io::Errno::PIPE | rustix::io::Errno::CONNRESET) => {
                    return Err("the EIS server closed the connection".into());
                }
                Err(e) => return Err(io(e)),
            }
        }
    }

    /// One emulation run on `dev`: `each` sends a group of events, each group a frame.
    fn emulate(
        &mut self,
        keyboard: bool,
        groups: usize,
        mut each: impl FnMut(&reis::event::Device, usize),
    ) -> Result<(), Failure> {
        self.check(keyboard).map_err(Failure::NotSent)?;
        let dev = match keyboard {
            true => self.keyboard.as_ref(),
            false => self.pointer.as_ref(),
        }
        .map(|d| d.device.clone())
        .ok_or_else(|| Failure::NotSent("the EIS server removed the device".into()))?;
        let serial = self.converter.connection().serial();
        self.sequence += 1;
        dev.device().start_emulating(serial, self.sequence);
        for i in 0..groups {
            let serial = self.converter.connection().serial();
            each(&dev, i);
            dev.device().frame(serial, now_us());
            // Nothing went out when the very first write fails; anything later may have
            // landed in part.
            if let Err(e) = self.flush() {
                return Err(match i {
                    0 => Failure::NotSent(e),
                    _ => Failure::Cut(format!("{e} after {i} of {groups} frames")),
                });
            }
            if let Err(e) = self.check(keyboard) {
                return Err(Failure::Cut(format!(
                    "{e} after {} of {groups} frames",
                    i + 1
                )));
            }
        }
        let serial = self.converter.connection().serial();
        dev.device().stop_emulating(serial);
        self.flush().map_err(Failure::Cut)?;
        self.round_trip().map_err(Failure::Cut)
    }

    /// Waits until the server has handled everything sent (`ei_connection.sync`).
    fn round_trip(&mut self) -> Result<(), String> {
        let done = std::rc::Rc::new(std::cell::Cell::new(false));
        let callback = self.converter.connection().connection().sync(1);
        let d = done.clone();
        self.converter
            .add_callback_handler(callback, move |_| d.set(true));
        self.flush()?;
        let until = Instant::now() + WAIT;
        while !done.get() {
            if let Some(why) = &self.gone {
                return Err(why.clone());
            }
            self.pump(until)?;
        }
        Ok(())
    }

    /// Presses and releases each key in turn (Shift held around a key that needs it).
    pub fn keys(&mut self, presses: &[Press]) -> Result<(), Failure> {
        use ei::keyboard::KeyState;
        let presses = presses.to_vec();
        self.emulate(true, presses.len() * 2, |dev, i| {
            let Some(k) = dev.interface::<ei::Keyboard>() else {
                return;
            };
            let p = presses[i / 2];
            if i % 2 == 0 {
                if let Some(s) = p.shift {
                    k.key(s, KeyState::Press);
                }
                k.key(p.code, KeyState::Press);
            } else {
                k.key(p.code, KeyState::Released);
                if let Some(s) = p.shift {
                    k.key(s, KeyState::Released);
                }
            }
        })
    }

    /// Moves to (x, y) in the layout and clicks the left button there. A point in no region
    /// is refused before anything is sent.
    pub fn click(&mut self, x: i32, y: i32) -> Result<(), Failure> {
        use ei::button::ButtonState;
        let regions = self.regions();
        let inside = |&(rx, ry, w, h): &(u32, u32, u32, u32)| {
            let (x, y) = (i64::from(x), i64::from(y));
            let (rx, ry) = (i64::from(rx), i64::from(ry));
            x >= rx && x < rx + i64::from(w) && y >= ry && y < ry + i64::from(h)
        };
        if !regions.iter().any(inside) {
            return Err(Failure::NotSent(format!(
                "({x}, {y}) is outside every region of the EIS pointer ({}): nothing was clicked",
                match regions.is_empty() {
                    true => "it has none".to_string(),
                    false => regions
                        .iter()
                        .map(|(rx, ry, w, h)| format!("{rx}, {ry}, {w}×{h}"))
                        .collect::<Vec<_>>()
                        .join("; "),
                }
            )));
        }
        self.emulate(false, 3, |dev, i| match i {
            0 => {
                if let Some(p) = dev.interface::<ei::PointerAbsolute>() {
                    p.motion_absolute(x as f32, y as f32);
                }
            }
            _ => {
                if let Some(b) = dev.interface::<ei::Button>() {
                    let state = match i {
                        1 => ButtonState::Press,
                        _ => ButtonState::Released,
                    };
                    b.button(BTN_LEFT, state);
                }
            }
        })
    }
}

/// How the desktop's side of a held sender is closed (Mutter's session stopped, KWin told the
/// client is done).
pub type End = Box<dyn FnOnce() -> futures::future::BoxFuture<'static, ()> + Send>;

/// How long a held sender outlives its last use.
const HOLD: Duration = Duration::from_secs(5);

struct Kept {
    held: std::sync::Arc<Held>,
    used: Instant,
    end: Option<End>,
}

/// The sender a desktop holds for the current write ([`Held`]): made by [`Slot::prepare`],
/// used by the keys and clicks that follow, and closed once it has gone unused for a few
/// seconds.
#[derive(Default, Clone)]
pub struct Slot {
    kept: std::sync::Arc<tokio::sync::Mutex<Option<Kept>>>,
}

impl Slot {
    /// Makes the sender unless one is held: `open` gives the socket and how to close the
    /// desktop's side, or `None` where this desktop has no EIS. `Ok(true)`: made now.
    pub async fn prepare<F>(&self, who: &'static str, open: F) -> Result<bool, DesktopError>
    where
        F: std::future::Future<Output = Result<Option<(UnixStream, End)>, DesktopError>>,
    {
        let mut kept = self.kept.lock().await;
        if let Some(k) = kept.as_mut()
            && k.used.elapsed() < HOLD
        {
            k.used = Instant::now();
            return Ok(false);
        }
        if let Some(mut old) = kept.take()
            && let Some(end) = old.end.take()
        {
            end().await;
        }
        let Some((socket, end)) = open.await? else {
            return Ok(false);
        };
        let held = tokio::task::spawn_blocking(move || Held::start(socket, who))
            .await
            .map_err(|e| DesktopError::Failed(format!("the EIS sender failed: {e}")));
        let held = match held {
            Ok(Ok(h)) => h,
            Ok(Err(f)) => {
                end().await;
                return Err(backend_error(f));
            }
            Err(e) => {
                end().await;
                return Err(e);
            }
        };
        *kept = Some(Kept {
            held: std::sync::Arc::new(held),
            used: Instant::now(),
            end: Some(end),
        });
        // Closed once unused for HOLD (a process that ends first closes it by ending).
        let slot = self.kept.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let mut kept = slot.lock().await;
                match kept.as_mut() {
                    None => return,
                    Some(k) if k.used.elapsed() < HOLD => {}
                    Some(_) => {
                        if let Some(end) = kept.take().and_then(|mut k| k.end.take()) {
                            end().await;
                        }
                        return;
                    }
                }
            }
        });
        Ok(true)
    }

    /// The held sender, if there is one still fresh.
    pub async fn held(&self) -> Option<std::sync::Arc<Held>> {
        let mut kept = self.kept.lock().await;
        let k = kept.as_mut().filter(|k| k.used.elapsed() < HOLD)?;
        k.used = Instant::now();
        Some(k.held.clone())
    }

    /// Types `keysyms` with the held sender; `None` when none is held.
    pub async fn keys(&self, keysyms: Vec<u32>) -> Option<Result<(), DesktopError>> {
        let h = self.held().await?;
        Some(blocking(move || h.keys(keysyms)).await)
    }

    /// Clicks with the held sender; `None` when none is held.
    pub async fn click(&self, x: i32, y: i32) -> Option<Result<(), DesktopError>> {
        let h = self.held().await?;
        Some(blocking(move || h.click(x, y)).await)
    }
}

/// Microseconds of the monotonic clock (libei's timestamps).
fn now_us() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (t.tv_sec as u64) * 1_000_000 + (t.tv_nsec as u64) / 1_000
}

fn wait_readable(context: &ei::Context, until: Instant) -> Result<(), String> {
    use rustix::event::{PollFd, PollFlags, poll};
    use std::os::fd::AsFd;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "the EIS server did not answer within {} s",
                WAIT.as_secs()
            ));
        }
        let fd = context.as_fd();
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        let ts = rustix::time::Timespec {
            tv_sec: left.as_secs() as i64,
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        match poll(&mut fds, Some(&ts)) {
            Ok(0) => continue,
            Ok(_) => return Ok(()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(io(e)),
        }
    }
}

fn read_keymap(k: &reis::event::Keymap) -> Result<Parsed, String> {
    if !matches!(k.type_, ei::keyboard::KeymapType::Xkb) {
        return Err("the EIS server's keymap is not an XKB keymap".into());
    }
    let fd = k.fd.try_clone().map_err(io)?;
    let file = std::fs::File::from(fd);
    let mut buf = vec![0u8; k.size as usize];
    file.read_exact_at(&mut buf, 0)
        .map_err(|e| format!("cannot read the EIS server's keymap: {e}"))?;
    let text = String::from_utf8_lossy(&buf);
    Parsed::new(text.trim_end_matches('\0')).map_err(|e| format!("the EIS server's keymap: {e}"))
}

/// Types `keysyms` on `socket` (blocking). A keysym the server's keymap lacks is refused
/// before any key is pressed. `who` names the server in messages (`Mutter's EIS`).
pub fn type_keysyms(socket: UnixStream, keysyms: &[u32], who: &str) -> Result<(), Failure> {
    let mut s = Sender::connect(socket, Need::Keyboard)
        .map_err(|e| Failure::NotSent(format!("{who}: {e}")))?;
    s.type_keysyms(keysyms, who)
}

/// Clicks at (x, y) of the layout on `socket` (blocking).
pub fn click_at(socket: UnixStream, x: i32, y: i32, who: &str) -> Result<(), Failure> {
    let mut s = Sender::connect(socket, Need::Pointer)
        .map_err(|e| Failure::NotSent(format!("{who}: {e}")))?;
    s.click(x, y).map_err(|f| prefix(f, who))
}

impl Sender {
    fn type_keysyms(&mut self, keysyms: &[u32], who: &str) -> Result<(), Failure> {
        let presses = self.presses(keysyms).map_err(|k| {
            Failure::NotSent(format!(
                "{who}: the keymap it types with has no key for {}: nothing was typed",
                describe(k)
            ))
        })?;
        self.keys(&presses).map_err(|f| prefix(f, who))
    }
}

/// One write's input, asked of a [`Held`] sender.
enum Job {
    Keys(Vec<u32>),
    Click(i32, i32),
}

/// An EIS sender kept for the length of a write, on a thread of its own (its connection is
/// not `Send`), with a keyboard and a pointer. The devices EIS makes are new input devices of
/// the desktop's seat: where the seat had none of the kind (a headless session: Mutter 48's
/// and KWin 6.3's seats have no keyboard and no pointer until a client makes one), the seat
/// gains the capability only then, and every app must ask for a new `wl_keyboard` or
/// `wl_pointer` before input reaches it. Input sent at that instant is lost (measured: keys
/// and a click sent as the device resumed never arrived; the seat's capabilities, watched by
/// a client of its own, went from none to keyboard and pointer in the same millisecond).
/// So the devices are made when the write begins (the window raised), and nothing is sent
/// until the app has answered the backend since (its main loop has turned, taking the
/// seat's news with it); the backend's own calls between the two (focus, placement, the hit
/// test) are that answer.
pub struct Held {
    jobs: std::sync::mpsc::Sender<(Job, std::sync::mpsc::Sender<Result<(), Failure>>)>,
}

impl Held {
    /// Connects on `socket` and waits for a keyboard and a pointer (blocking: run it on the
    /// blocking pool). `who` names the server in messages.
    pub fn start(socket: UnixStream, who: &'static str) -> Result<Held, Failure> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (jobs, rx) =
            std::sync::mpsc::channel::<(Job, std::sync::mpsc::Sender<Result<(), Failure>>)>();
        std::thread::spawn(move || {
            let mut s = match Sender::connect(socket, Need::Both) {
                Ok(s) => {
                    let _ = ready_tx.send(Ok(()));
                    s
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            // Until the owner drops its end: then the connection closes with the thread.
            for (job, reply) in rx {
                let r = match job {
                    Job::Keys(k) => s.type_keysyms(&k, who),
                    Job::Click(x, y) => s.click(x, y).map_err(|f| prefix(f, who)),
                };
                let _ = reply.send(r);
            }
        });
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Held { jobs }),
            Ok(Err(e)) => Err(Failure::NotSent(format!("{who}: {e}"))),
            Err(_) => Err(Failure::NotSent(format!("{who}: the EIS sender stopped"))),
        }
    }

    fn run(&self, job: Job) -> Result<(), Failure> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.jobs
            .send((job, tx))
            .map_err(|_| Failure::NotSent("the EIS sender stopped".into()))?;
        rx.recv()
            .map_err(|_| Failure::Cut("the EIS sender stopped mid-write".into()))?
    }

    /// Types `keysyms` (blocking).
    pub fn keys(&self, keysyms: Vec<u32>) -> Result<(), Failure> {
        self.run(Job::Keys(keysyms))
    }

    /// Clicks at (x, y) of the layout (blocking).
    pub fn click(&self, x: i32, y: i32) -> Result<(), Failure> {
        self.run(Job::Click(x, y))
    }
}

fn prefix(f: Failure, who: &str) -> Failure {
    match f {
        Failure::NotSent(e) => Failure::NotSent(format!("{who}: {e}")),
        Failure::Cut(e) => Failure::Cut(format!("{who}: {e}")),
    }
}

/// A keysym as a person reads it: its character, else its name, else its number.
pub fn describe(keysym: u32) -> String {
    let k = xkeysym::Keysym::new(keysym);
    match k.key_char().filter(|c| !c.is_control()) {
        Some(c) => format!("'{c}' (keysym {keysym:#x})"),
        None => match k.name() {
            Some(n) => n.trim_start_matches("XK_").to_string(),
            None => format!("keysym {keysym:#x}"),
        },
    }
}

/// The writer's error for a failure: not sent is "no input path", cut short may have landed.
pub fn backend_error(f: Failure) -> crate::desktop::DesktopError {
    match f {
        Failure::NotSent(e) => crate::desktop::DesktopError::NoInput(e),
        Failure::Cut(e) => crate::desktop::DesktopError::InputCut(e),
    }
}

/// Runs a blocking EIS write on the blocking pool.
pub async fn blocking(
    f: impl FnOnce() -> Result<(), Failure> + Send + 'static,
) -> Result<(), crate::desktop::DesktopError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| crate::desktop::DesktopError::Failed(format!("the EIS sender failed: {e}")))?
        .map_err(backend_error)
}

#[cfg(test)]
mod tests {
    use super::super::eis_double::{Config, Double, Got, SHIFT, US};
    use super::super::{Input, gnome::Gnome, kwin::Kwin};
    use crate::desktop::DesktopError;

    const TWO_SCREENS: [(u32, u32, u32, u32); 2] = [(0, 0, 1280, 800), (1280, 0, 1920, 1080)];

    fn config() -> Config {
        Config {
            regions: TWO_SCREENS.to_vec(),
            ..Config::default()
        }
    }

    /// The events a US keyboard sends for `text`, from the double's own layout table.
    fn us_events(text: &str) -> Vec<Got> {
        let mut out = Vec::new();
        for c in text.chars() {
            let one = c.to_string();
            let named = match c {
                ' ' => "space",
                ',' => "comma",
                _ => one.as_str(),
            };
            let (code, shift) = if c == ' ' {
                (57, false)
            } else {
                US.iter()
                    .find_map(|&(_, code, l1, l2)| {
                        (l1 == named)
                            .then_some((code, false))
                            .or((l2 == named).then_some((code, true)))
                    })
                    .unwrap_or_else(|| panic!("{c} is not in the double's table"))
            };
            if shift {
                out.push(Got::Key(SHIFT, true));
            }
            out.push(Got::Key(code, true));
            out.push(Got::Key(code, false));
            if shift {
                out.push(Got::Key(SHIFT, false));
            }
        }
        out
    }

    async fn gnome(d: &Double) -> Gnome {
        Gnome::on(d.client.clone())
            .await
            .expect("the double's shell")
    }

    /// The write's Mutter session was started, given an EIS socket (or not, `eis`) and
    /// stopped; so was the one that asked whether Mutter offers EIS (never started).
    fn sessions_stopped(d: &Double, eis: bool) {
        let l = d.log();
        assert!(
            l.sessions.iter().all(|s| s.2),
            "left open: {:?}",
            l.sessions
        );
        let started: Vec<_> = l.sessions.iter().filter(|s| s.1).collect();
        assert_eq!(started.len(), 1, "{:?}", l.sessions);
        let (path, _, _, connected) = started[0];
        assert_eq!(*connected, eis, "{path}: ConnectToEIS");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn mutter_types_a_20_character_text_through_eis_with_its_keymap() {
        let d = Double::start(config()).await;
        let text = "Hello, World 2024 ok";
        assert_eq!(text.chars().count(), 20);
        let g = gnome(&d).await;
        // What doctor says of the input route.
        let k = g.keyboard().expect("a keyboard");
        let p = g.pointer().expect("a pointer");
        assert!(
            k.contains("Mutter EIS") && p.contains("Mutter EIS"),
            "{k}; {p}"
        );
        g.type_text(text).await.expect("typed");
        assert_eq!(d.log().got, us_events(text));
        sessions_stopped(&d, true);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn mutter_clicks_at_the_absolute_position_in_its_region() {
        let d = Double::start(config()).await;
        // On the second screen, which starts at x = 1280.
        gnome(&d).await.click(1500, 300).await.expect("clicked");
        assert_eq!(
            d.log().got,
            [
                Got::Motion(1500.0, 300.0),
                Got::Button(272, true),
                Got::Button(272, false)
            ]
        );
        sessions_stopped(&d, true);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_point_outside_every_region_is_refused_with_nothing_sent() {
        let d = Double::start(config()).await;
        // Below the first screen (800 high), left of the second.
        let e = gnome(&d).await.click(100, 900).await.expect_err("refused");
        match &e {
            DesktopError::NoInput(why) => assert!(
                why.contains("outside every region") && why.contains("1280, 0, 1920×1080"),
                "{why}"
            ),
            e => panic!("not a refusal: {e:?}"),
        }
        assert!(d.log().got.is_empty(), "{:?}", d.log().got);
        sessions_stopped(&d, true);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_keysym_missing_from_the_keymap_is_not_sent_nor_reported_sent() {
        let d = Double::start(config()).await;
        let e = gnome(&d)
            .await
            .type_text("café")
            .await
            .expect_err("refused");
        match &e {
            DesktopError::NoInput(why) => {
                assert!(
                    why.contains("'é'") && why.contains("nothing was typed"),
                    "{why}"
                )
            }
            e => panic!("not a refusal: {e:?}"),
        }
        assert!(d.log().got.is_empty(), "{:?}", d.log().got);
        sessions_stopped(&d, true);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_server_gone_mid_write_is_an_error_that_says_part_may_have_landed() {
        let d = Double::start(Config {
            cut_after_keys: Some(5),
            ..config()
        })
        .await;
        let e = gnome(&d)
            .await
            .type_text("Hello, World 2024 ok")
            .await
            .expect_err("cut short");
        match &e {
            DesktopError::InputCut(why) => {
                assert!(why.contains("closed the connection"), "{why}")
            }
            e => panic!("not a cut-short error: {e:?}"),
        }
        assert_eq!(d.log().got.len(), 5);
        sessions_stopped(&d, true);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_mutter_session_without_eis_keeps_the_keysym_route() {
        let d = Double::start(Config {
            mutter43: true,
            ..config()
        })
        .await;
        let g = gnome(&d).await;
        let k = g.keyboard().expect("a keyboard");
        assert_eq!(k, "Mutter remote desktop keyboard");
        g.type_text("ab").await.expect("typed");
        let down_up = |k: u32| [Got::Keysym(k, true), Got::Keysym(k, false)];
        let want: Vec<Got> = [0xffe1, 0x61, 0x62].into_iter().flat_map(down_up).collect();
        assert_eq!(d.log().got, want);
        sessions_stopped(&d, false);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn kwin_offers_eis_and_keys_and_clicks_go_there() {
        let d = Double::start(config()).await;
        let kwin = Kwin::on(d.client.clone());
        let k = tokio::task::block_in_place(|| kwin.keyboard()).expect("a keyboard");
        assert!(k.contains("EIS"), "{k}");
        kwin.type_text("Ok, 42").await.expect("typed");
        assert_eq!(d.log().got, us_events("Ok, 42"));
        kwin.click(20, 790).await.expect("clicked");
        let e = kwin.click(3200, 10).await.expect_err("off every screen");
        assert!(matches!(e, DesktopError::NoInput(_)), "{e:?}");
        let e = kwin.type_text("é").await.expect_err("not in the keymap");
        assert!(matches!(e, DesktopError::NoInput(_)), "{e:?}");
        let l = d.log();
        assert_eq!(
            l.got[us_events("Ok, 42").len()..],
            [
                Got::Motion(20.0, 790.0),
                Got::Button(272, true),
                Got::Button(272, false)
            ]
        );
        // One EIS client per write, each told done.
        assert_eq!(l.kwin_cookies.len(), 4);
        assert_eq!(l.kwin_disconnected, l.kwin_cookies);
        assert!(l.sessions.is_empty(), "KWin's route made a Mutter session");
    }
}
