//! Synthesized keys and clicks on KWin 5.27: `org_kde_kwin_fake_input` (v4: absolute pointer
//! motion in global coordinates since v3, keys since v4). KWin offers the global only to a
//! program its `.desktop` file grants it to (`kwin.rs`, [`super::kwin::grant`]), and takes
//! requests only after `authenticate`. Keys are evdev codes, which KWin turns into symbols
//! with its own keyboard layout: only the characters of a US layout are typed (with Shift
//! where that layout needs it), and a text holding any other is refused before a key is sent.
//! One thread owns the Wayland connection and the device, made on first use and kept while
//! the backend lives (as `wlroots.rs` does, for the same reason: an app binds its pointer
//! only after the seat gains one).

use std::sync::Mutex;
use std::sync::mpsc;
use std::time::Duration;

use wayland_client::globals::{GlobalListContents, registry_queue_init};
use wayland_client::protocol::wl_registry;
use wayland_client::{Connection, Dispatch, EventQueue, QueueHandle, delegate_noop};
use wayland_protocols_plasma::fake_input::client::org_kde_kwin_fake_input::OrgKdeKwinFakeInput;

use super::Key;
use super::keymap;

/// The global, as `wayland-info` names it.
pub const GLOBAL: &str = "org_kde_kwin_fake_input";
/// The oldest version with keys.
const VERSION: u32 = 4;
/// evdev's left button.
const BTN_LEFT: u32 = 0x110;
/// evdev's left Shift.
const KEY_LEFTSHIFT: u32 = 42;
/// How long an app is given to bind its pointer and keyboard after the device is made.
const NEW_DEVICE_SETTLE: Duration = Duration::from_millis(200);

/// Whether KWin offers the global to this program, and at which version (the process's one
/// registry listing: for `kde-grant status`).
pub fn offered() -> Result<Option<u32>, String> {
    Ok(super::wlroots::globals()?
        .into_iter()
        .filter(|(g, _)| g == GLOBAL)
        .map(|(_, v)| v)
        .max())
}

/// The evdev code of a character on a US layout, and whether Shift is held for it.
pub fn us_key(c: char) -> Option<(u32, bool)> {
    const ROWS: [(u32, &str, &str); 4] = [
        (2, "1234567890-=", "!@#$%^&*()_+"),
        (16, "qwertyuiop[]", "QWERTYUIOP{}"),
        (30, "asdfghjkl;'`", "ASDFGHJKL:\"~"),
        (44, "zxcvbnm,./", "ZXCVBNM<>?"),
    ];
    match c {
        ' ' => return Some((57, false)),
        '\\' => return Some((43, false)),
        '|' => return Some((43, true)),
        _ => {}
    }
    for (first, plain, shifted) in ROWS {
        if let Some(i) = plain.chars().position(|p| p == c) {
            return Some((first + i as u32, false));
        }
        if let Some(i) = shifted.chars().position(|p| p == c) {
            return Some((first + i as u32, true));
        }
    }
    None
}

/// The presses that type `text`, or the first character a US layout does not hold.
pub fn presses(text: &str) -> Result<Vec<(u32, bool)>, char> {
    text.chars().map(|c| us_key(c).ok_or(c)).collect()
}

/// The evdev code of a named key.
pub fn key_code(key: Key) -> u32 {
    let sym = keymap::keysym_of_key(key);
    keymap::NAMED
        .iter()
        .find(|(_, s)| *s == sym)
        .map(|(code, _)| *code)
        .unwrap_or(57)
}

enum Job {
    Keys(Vec<(u32, bool)>),
    Click {
        x: i32,
        y: i32,
    },
    /// Make the device now.
    Prepare,
}

type Reply = mpsc::Sender<Result<(), String>>;

/// The connection: the version of the global KWin offers this program, and the owner thread
/// when it offers one.
type Started = (Option<u32>, Option<mpsc::Sender<(Job, Reply)>>);

/// The owner thread's handle. The connection is made on first need, and is also how the
/// backend learns whether KWin offers the global: for every client that connects, KWin looks
/// up its `.desktop` file and, when one grants it something, reads its whole binary (KWin
/// 5.27: 0.5 s for a 41 MB binary, 1.8 s for a 128 MB debug build), so one connection serves
/// both.
#[derive(Default)]
pub struct Device {
    state: Mutex<Option<Result<Started, String>>>,
}

impl Device {
    /// Whether KWin offers the global to this program, and at which version.
    pub fn offered(&self) -> Result<Option<u32>, String> {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        guard
            .get_or_insert_with(start)
            .as_ref()
            .map(|s| s.0)
            .map_err(Clone::clone)
    }

    fn run(&self, job: Job) -> Result<(), String> {
        let (reply, answer) = mpsc::channel();
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let started = guard.get_or_insert_with(start).clone()?;
        let Some(tx) = started.1 else {
            return Err(format!(
                "KWin does not offer {GLOBAL} (version {VERSION}) to this program: {}",
                super::kwin::GRANT_MISSING
            ));
        };
        let sent = tx.send((job, reply)).is_ok();
        if !sent {
            *guard = None;
            return Err("the Wayland connection for input was lost".into());
        }
        drop(guard);
        answer
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| "the Wayland input thread did not answer".to_string())?
    }

    /// Makes the device now, if not yet (before a window is raised: see `wlroots.rs`).
    pub fn prepare(&self) -> Result<(), String> {
        self.run(Job::Prepare)
    }

    /// Presses and releases each evdev code, with Shift held where asked.
    pub fn keys(&self, presses: Vec<(u32, bool)>) -> Result<(), String> {
        self.run(Job::Keys(presses))
    }

    /// A left click at global position (x, y).
    pub fn click(&self, x: i32, y: i32) -> Result<(), String> {
        self.run(Job::Click { x, y })
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

delegate_noop!(State: OrgKdeKwinFakeInput);

struct Owned {
    queue: EventQueue<State>,
    fake: OrgKdeKwinFakeInput,
    /// The device has been made and given time to reach the apps.
    settled: bool,
}

fn start() -> Result<Started, String> {
    let conn = Connection::connect_to_env()
        .map_err(|e| format!("cannot connect to the Wayland display: {e}"))?;
    let (globals, queue) = registry_queue_init::<State>(&conn)
        .map_err(|e| format!("the Wayland display did not list its globals: {e}"))?;
    let listed: Vec<(String, u32)> = globals
        .contents()
        .with_list(|l| l.iter().map(|g| (g.interface.clone(), g.version)).collect());
    let version = listed
        .iter()
        .filter(|(g, _)| g == GLOBAL)
        .map(|(_, v)| *v)
        .max();
    super::wlroots::remember_globals(listed);
    let qh = queue.handle();
    let Ok(fake) = globals.bind::<OrgKdeKwinFakeInput, _, _>(&qh, VERSION..=VERSION, ()) else {
        return Ok((version, None));
    };
    fake.authenticate(
        "treeglass".into(),
        "sends the keys and clicks of the accessibility tests it runs".into(),
    );
    let mut owned = Owned {
        queue,
        fake,
        settled: false,
    };
    owned.sync()?;
    let (tx, rx) = mpsc::channel::<(Job, Reply)>();
    std::thread::Builder::new()
        .name("kwin fake input".into())
        .spawn(move || {
            for (job, reply) in rx {
                let done = match job {
                    Job::Prepare => owned.settle(),
                    Job::Keys(p) => owned.keys(&p),
                    Job::Click { x, y } => owned.click(x, y),
                };
                let failed = done.is_err();
                let _ = reply.send(done);
                if failed {
                    break;
                }
            }
        })
        .map_err(|e| format!("cannot start the Wayland input thread: {e}"))?;
    Ok((version, Some(tx)))
}

impl Owned {
    fn sync(&mut self) -> Result<(), String> {
        self.queue
            .roundtrip(&mut State)
            .map(|_| ())
            .map_err(|e| format!("the Wayland connection failed: {e}"))
    }

    fn settle(&mut self) -> Result<(), String> {
        if !self.settled {
            self.sync()?;
            std::thread::sleep(NEW_DEVICE_SETTLE);
            self.settled = true;
        }
        Ok(())
    }

    fn keys(&mut self, presses: &[(u32, bool)]) -> Result<(), String> {
        self.settle()?;
        for &(code, shift) in presses {
            if shift {
                self.fake.keyboard_key(KEY_LEFTSHIFT, 1);
            }
            self.fake.keyboard_key(code, 1);
            self.fake.keyboard_key(code, 0);
            if shift {
                self.fake.keyboard_key(KEY_LEFTSHIFT, 0);
            }
        }
        self.sync()
    }

    fn click(&mut self, x: i32, y: i32) -> Result<(), String> {
        self.settle()?;
        self.fake
            .pointer_motion_absolute(f64::from(x) + 0.5, f64::from(y) + 0.5);
        // The app learns where the pointer is (enter, motion) before the button comes.
        self.sync()?;
        std::thread::sleep(Duration::from_millis(30));
        self.fake.button(BTN_LEFT, 1);
        self.sync()?;
        std::thread::sleep(Duration::from_millis(30));
        self.fake.button(BTN_LEFT, 0);
        self.sync()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_us_layout_types_ascii_and_nothing_else() {
        assert_eq!(us_key('a'), Some((30, false)));
        assert_eq!(us_key('A'), Some((30, true)));
        assert_eq!(us_key('1'), Some((2, false)));
        assert_eq!(us_key('!'), Some((2, true)));
        assert_eq!(us_key('/'), Some((53, false)));
        assert_eq!(us_key('?'), Some((53, true)));
        assert_eq!(us_key(' '), Some((57, false)));
        assert_eq!(us_key('"'), Some((40, true)));
        assert_eq!(us_key('é'), None);
        assert_eq!(presses("Ada Lovelace").unwrap().len(), 12);
        assert_eq!(presses("Zoë"), Err('ë'));
        assert_eq!(key_code(Key::Return), 28);
        assert_eq!(key_code(Key::BackSpace), 14);
    }
}
