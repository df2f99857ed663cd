//! Synthesized keys and clicks on a wlroots compositor (sway and its kin): a virtual keyboard
//! (`zwp_virtual_keyboard_v1`, typing with a keymap of its own, see `keymap.rs`) and a virtual
//! pointer (`zwlr_virtual_pointer_v1`, absolute motion over the whole output layout, then the
//! left button). One thread owns the Wayland connection and both devices, made on the first
//! use and kept while the backend lives: a seat that had no pointer gains one only when the
//! device is made, and an app binds its own pointer after that news reaches it, so a click sent
//! at once would be lost. The devices go with the connection when the thread ends.

use std::io::Write;
use std::os::fd::AsFd;
use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Duration;

use wayland_client::globals::{GlobalListContents, registry_queue_init};
use wayland_client::protocol::{wl_pointer, wl_registry, wl_seat};
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, delegate_noop};
use wayland_protocols_misc::zwp_virtual_keyboard_v1::client::{
    zwp_virtual_keyboard_manager_v1::ZwpVirtualKeyboardManagerV1,
    zwp_virtual_keyboard_v1::ZwpVirtualKeyboardV1,
};
use wayland_protocols_wlr::virtual_pointer::v1::client::{
    zwlr_virtual_pointer_manager_v1::ZwlrVirtualPointerManagerV1,
    zwlr_virtual_pointer_v1::ZwlrVirtualPointerV1,
};

use super::Rect;
use super::keymap;

/// evdev's left button.
const BTN_LEFT: u32 = 0x110;
/// `wl_keyboard.keymap_format.xkb_v1`.
const XKB_V1: u32 = 1;
/// How long an app is given to bind its pointer after the seat first gained one.
const NEW_DEVICE_SETTLE: Duration = Duration::from_millis(200);

/// The globals the devices and the highlight need, as `wayland-info` names them.
pub const KEYBOARD_GLOBAL: &str = "zwp_virtual_keyboard_manager_v1";
pub const POINTER_GLOBAL: &str = "zwlr_virtual_pointer_manager_v1";
pub const LAYER_SHELL_GLOBAL: &str = "zwlr_layer_shell_v1";

/// Which of them the compositor offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offered {
    pub keyboard: bool,
    pub pointer: bool,
    pub layer_shell: bool,
}

/// Every global the compositor offers this program, with its version: one registry round
/// trip on a connection of its own, once per process (or none: [`remember_globals`]). A
/// connection to KWin costs a program it grants an interface to up to 2.4 s (KWin 5.27 reads
/// its whole binary each time): the doctor's display check, which connected twice, ran past
/// its deadline.
pub fn globals() -> Result<Vec<(String, u32)>, String> {
    GLOBALS
        .get_or_init(|| {
            let conn = Connection::connect_to_env()
                .map_err(|e| format!("cannot connect to the Wayland display: {e}"))?;
            let (globals, _queue) = registry_queue_init::<State>(&conn)
                .map_err(|e| format!("the Wayland display did not list its globals: {e}"))?;
            Ok(globals
                .contents()
                .with_list(|l| l.iter().map(|g| (g.interface.clone(), g.version)).collect()))
        })
        .clone()
}

static GLOBALS: std::sync::OnceLock<Result<Vec<(String, u32)>, String>> =
    std::sync::OnceLock::new();

/// The globals as another connection of this process listed them (KWin's input connection),
/// so that [`globals`] makes none of its own.
pub fn remember_globals(list: Vec<(String, u32)>) {
    let _ = GLOBALS.set(Ok(list));
}

/// What the compositor offers.
pub fn offered() -> Result<Offered, String> {
    let globals = globals()?;
    let has = |name: &str| globals.iter().any(|(g, _)| g == name);
    Ok(Offered {
        keyboard: has(KEYBOARD_GLOBAL),
        pointer: has(POINTER_GLOBAL),
        layer_shell: has(LAYER_SHELL_GLOBAL),
    })
}

enum Job {
    /// Press and release each keysym in order.
    Keys(Vec<u32>),
    /// Move to (x, y) in the layout `bounds` spans, and click the left button.
    Click { x: i32, y: i32, bounds: Rect },
}

type Reply = mpsc::Sender<Result<(), String>>;

/// The owner thread's handle; the thread starts on the first job.
#[derive(Default)]
pub struct Devices {
    tx: Mutex<Option<mpsc::Sender<(Job, Reply)>>>,
}

impl Devices {
    fn run(&self, job: Job) -> Result<(), String> {
        let (reply, answer) = mpsc::channel();
        let mut guard = self.tx.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(start()?);
        }
        let sent = guard
            .as_ref()
            .is_some_and(|tx| tx.send((job, reply)).is_ok());
        if !sent {
            // The thread ended (its connection failed): the next job starts a new one.
            *guard = None;
            return Err("the Wayland connection for input was lost".into());
        }
        drop(guard);
        answer
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| "the Wayland input thread did not answer".to_string())?
    }

    /// Makes the keyboard now, if not yet, with the named keys' keymap: done when a window is
    /// raised, so that neither a new keyboard nor a new keymap reaches an app between the
    /// moment it opens a menu and the keys meant for it.
    pub fn prepare(&self) -> Result<(), String> {
        self.run(Job::Keys(Vec::new()))
    }

    /// Types keysyms (press and release each) into whatever has the keyboard focus.
    pub fn keys(&self, keysyms: Vec<u32>) -> Result<(), String> {
        self.run(Job::Keys(keysyms))
    }

    /// A left click at screen position (x, y); `bounds` is the whole output layout.
    pub fn click(&self, x: i32, y: i32, bounds: Rect) -> Result<(), String> {
        self.run(Job::Click { x, y, bounds })
    }
}

struct State;

impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut State,
        _: &wl_registry::WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<State>,
    ) {
    }
}

delegate_noop!(State: ignore wl_seat::WlSeat);
delegate_noop!(State: ZwpVirtualKeyboardManagerV1);
delegate_noop!(State: ZwpVirtualKeyboardV1);
delegate_noop!(State: ZwlrVirtualPointerManagerV1);
delegate_noop!(State: ZwlrVirtualPointerV1);

struct Owned {
    queue: EventQueue<State>,
    qh: QueueHandle<State>,
    seat: wl_seat::WlSeat,
    keyboards: Option<ZwpVirtualKeyboardManagerV1>,
    pointers: Option<ZwlrVirtualPointerManagerV1>,
    /// Each device is made on its first use: a pointer that appears over an open menu is a
    /// hover, and a Qt menu moves its current option to the item under the pointer (measured
    /// on headless sway: keys for the menu then landed one option off).
    keyboard: Option<ZwpVirtualKeyboardV1>,
    pointer: Option<ZwlrVirtualPointerV1>,
    /// The keymap uploaded last: uploaded again only when a chunk needs another.
    keymap: Option<String>,
}

fn start() -> Result<mpsc::Sender<(Job, Reply)>, String> {
    let conn = Connection::connect_to_env()
        .map_err(|e| format!("cannot connect to the Wayland display: {e}"))?;
    let (globals, queue) = registry_queue_init::<State>(&conn)
        .map_err(|e| format!("the Wayland display did not list its globals: {e}"))?;
    let qh = queue.handle();
    let seat: wl_seat::WlSeat = globals
        .bind(&qh, 1..=7, ())
        .map_err(|e| format!("the compositor has no seat: {e}"))?;
    let mut owned = Owned {
        keyboards: globals.bind(&qh, 1..=1, ()).ok(),
        pointers: globals.bind(&qh, 1..=2, ()).ok(),
        queue,
        qh,
        seat,
        keyboard: None,
        pointer: None,
        keymap: None,
    };
    owned.sync()?;
    let (tx, rx) = mpsc::channel::<(Job, Reply)>();
    std::thread::Builder::new()
        .name("wayland input".into())
        .spawn(move || {
            for (job, reply) in rx {
                let done = match job {
                    Job::Keys(syms) => owned.keys(&syms),
                    Job::Click { x, y, bounds } => owned.click(x, y, bounds),
                };
                let failed = done.is_err();
                let _ = reply.send(done);
                if failed {
                    // A protocol error ends the connection: do not keep a dead one.
                    break;
                }
            }
        })
        .map_err(|e| format!("cannot start the Wayland input thread: {e}"))?;
    Ok(tx)
}

impl Owned {
    /// The events' time: CLOCK_MONOTONIC in milliseconds, the clock the compositor stamps its
    /// own input with. A clock of this process's own would start near 0 in every treeglass
    /// run and go back in time from one run to the next, and toolkits order input by it (Qt
    /// dropped keys from a second run; GTK counts clicks close in time as double clicks).
    fn now(&self) -> u32 {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        (t.tv_sec as u64 * 1000 + t.tv_nsec as u64 / 1_000_000) as u32
    }

    fn sync(&mut self) -> Result<(), String> {
        self.queue
            .roundtrip(&mut State)
            .map(|_| ())
            .map_err(|e| format!("the Wayland connection failed: {e}"))
    }

    /// The virtual keyboard, made with the named keys' keymap on first use.
    fn keyboard(&mut self) -> Result<ZwpVirtualKeyboardV1, String> {
        if let Some(k) = &self.keyboard {
            return Ok(k.clone());
        }
        let manager = self
            .keyboards
            .as_ref()
            .ok_or_else(|| format!("the compositor offers no {KEYBOARD_GLOBAL}"))?;
        let k = manager.create_virtual_keyboard(&self.seat, &self.qh, ());
        self.keyboard = Some(k.clone());
        self.upload(&keymap::named_keymap())?;
        self.sync()
            .map_err(|e| format!("the compositor refused the virtual keyboard: {e}"))?;
        Ok(k)
    }

    /// The virtual pointer, made on first use.
    fn pointer(&mut self) -> Result<ZwlrVirtualPointerV1, String> {
        if let Some(p) = &self.pointer {
            return Ok(p.clone());
        }
        let manager = self
            .pointers
            .as_ref()
            .ok_or_else(|| format!("the compositor offers no {POINTER_GLOBAL}"))?;
        let p = manager.create_virtual_pointer(Some(&self.seat), &self.qh, ());
        self.sync()
            .map_err(|e| format!("the compositor refused the virtual pointer: {e}"))?;
        std::thread::sleep(NEW_DEVICE_SETTLE);
        self.pointer = Some(p.clone());
        Ok(p)
    }

    fn keys(&mut self, syms: &[u32]) -> Result<(), String> {
        let keyboard = self.keyboard()?;
        for chunk in keymap::chunks(syms) {
            if self.keymap.as_deref() != Some(chunk.keymap.as_str()) {
                self.upload(&chunk.keymap)?;
            }
            for key in chunk.presses {
                let t = self.now();
                keyboard.key(t, key, 1);
                keyboard.key(t, key, 0);
            }
            // The compositor has taken every key before a keymap replaces this one.
            self.sync()?;
        }
        Ok(())
    }

    fn upload(&mut self, keymap: &str) -> Result<(), String> {
        let Some(keyboard) = &self.keyboard else {
            return Err("no virtual keyboard".into());
        };
        {
            let fd = rustix::fs::memfd_create("treeglass-keymap", rustix::fs::MemfdFlags::CLOEXEC)
                .map_err(|e| format!("cannot make the keymap's memory file: {e}"))?;
            let mut file = std::fs::File::from(fd);
            file.write_all(keymap.as_bytes())
                .map_err(|e| format!("cannot write the keymap: {e}"))?;
            keyboard.keymap(XKB_V1, file.as_fd(), keymap.len() as u32);
            keyboard.modifiers(0, 0, 0, 0);
        }
        self.keymap = Some(keymap.to_string());
        Ok(())
    }

    fn click(&mut self, x: i32, y: i32, bounds: Rect) -> Result<(), String> {
        let (rx, ry) = (x - bounds.x, y - bounds.y);
        if rx < 0 || ry < 0 || rx >= bounds.width || ry >= bounds.height {
            return Err(format!(
                "({x}, {y}) is outside every output ({}, {}, {}×{})",
                bounds.x, bounds.y, bounds.width, bounds.height
            ));
        }
        let pointer = self.pointer()?;
        let t = self.now();
        pointer.motion_absolute(
            t,
            rx as u32,
            ry as u32,
            bounds.width as u32,
            bounds.height as u32,
        );
        pointer.frame();
        // The app learns where the pointer is (enter, motion) before the button comes.
        self.sync()?;
        std::thread::sleep(Duration::from_millis(30));
        let t = self.now();
        pointer.button(t, BTN_LEFT, wl_pointer::ButtonState::Pressed);
        pointer.frame();
        self.sync()?;
        std::thread::sleep(Duration::from_millis(30));
        let t = self.now();
        pointer.button(t, BTN_LEFT, wl_pointer::ButtonState::Released);
        pointer.frame();
        self.sync()
    }
}
