//! Synthesized input on X11 ([`X11Input`]): finding an application's top-level window by
//! process id, bringing it to the top with keyboard focus (synthesized keys and clicks go to
//! whatever window is focused and on top; with no window manager nothing else raises or focuses
//! it), and its position on screen; keys and clicks through the XTest extension, as the
//! AT-SPI registry's device event controller sends them; and, for the doctor, which processes
//! own a top-level window at all. The X calls are blocking, made on `spawn_blocking`. Nothing
//! here talks to the application itself.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt, EventMask, InputFocus,
    MapState, StackMode, Window as XWindow, WindowClass,
};
use x11rb::rust_connection::RustConnection;

use std::time::{Duration, Instant};

use async_trait::async_trait;

use super::{Coordinates, DesktopError, Input, Key, Rect, Window, keymap};

fn unavailable(what: &str, e: impl std::fmt::Display) -> DesktopError {
    DesktopError::NoInput(format!(
        "X11 {what}: {e} (synthesized input needs an X display)"
    ))
}

struct X {
    conn: RustConnection,
    root: XWindow,
}

impl X {
    fn open() -> Result<X, DesktopError> {
        if std::env::var_os("DISPLAY").is_none() {
            return Err(DesktopError::NoInput(
                "no X display (DISPLAY is not set): synthesized keys and clicks need X11".into(),
            ));
        }
        let (conn, screen) = x11rb::connect(None).map_err(|e| unavailable("connect", e))?;
        let root = conn.setup().roots[screen].root;
        Ok(X { conn, root })
    }

    fn atom(&self, name: &str) -> Result<u32, DesktopError> {
        Ok(self
            .conn
            .intern_atom(false, name.as_bytes())
            .map_err(|e| unavailable("intern_atom", e))?
            .reply()
            .map_err(|e| unavailable("intern_atom", e))?
            .atom)
    }

    fn cardinal(&self, w: XWindow, prop: u32) -> Option<u32> {
        let r = self
            .conn
            .get_property(false, w, prop, AtomEnum::CARDINAL, 0, 1)
            .ok()?
            .reply()
            .ok()?;
        r.value32()?.next()
    }

    fn title(&self, w: XWindow, net_wm_name: u32, utf8: u32) -> String {
        for (prop, ty) in [
            (net_wm_name, utf8),
            (AtomEnum::WM_NAME.into(), AtomEnum::STRING.into()),
        ] {
            if let Some(r) = self
                .conn
                .get_property(false, w, prop, ty, 0, 1024)
                .ok()
                .and_then(|c| c.reply().ok())
                && !r.value.is_empty()
            {
                return String::from_utf8_lossy(&r.value).into_owned();
            }
        }
        String::new()
    }

    /// Top-level candidates: the root's children and (under a reparenting window manager)
    /// their children.
    fn candidates(&self) -> Vec<XWindow> {
        let mut out = Vec::new();
        let Some(top) = self
            .conn
            .query_tree(self.root)
            .ok()
            .and_then(|c| c.reply().ok())
        else {
            return out;
        };
        for w in top.children {
            out.push(w);
            if let Some(kids) = self.conn.query_tree(w).ok().and_then(|c| c.reply().ok()) {
                out.extend(kids.children);
            }
        }
        out
    }

    /// The app's viewable top-level windows (`_NET_WM_PID == pid`), largest first.
    fn toplevels(&self, pid: u32) -> Result<Vec<Window>, DesktopError> {
        let net_wm_pid = self.atom("_NET_WM_PID")?;
        let net_wm_name = self.atom("_NET_WM_NAME")?;
        let utf8 = self.atom("UTF8_STRING")?;
        let mut out = Vec::new();
        for w in self.candidates() {
            if self.cardinal(w, net_wm_pid) != Some(pid) {
                continue;
            }
            let Some(attrs) = self
                .conn
                .get_window_attributes(w)
                .ok()
                .and_then(|c| c.reply().ok())
            else {
                continue;
            };
            if attrs.map_state != MapState::VIEWABLE || attrs.override_redirect {
                continue;
            }
            let Some(geo) = self.conn.get_geometry(w).ok().and_then(|c| c.reply().ok()) else {
                continue;
            };
            let Some(pos) = self
                .conn
                .translate_coordinates(w, self.root, 0, 0)
                .ok()
                .and_then(|c| c.reply().ok())
            else {
                continue;
            };
            out.push(Window {
                id: u64::from(w),
                pid,
                title: self.title(w, net_wm_name, utf8),
                rect: Rect {
                    x: i32::from(pos.dst_x),
                    y: i32::from(pos.dst_y),
                    width: i32::from(geo.width),
                    height: i32::from(geo.height),
                },
                visible: true,
                focused: false,
                native: true,
                tiled: false,
                surface: None,
            });
        }
        out.sort_by_key(|t| std::cmp::Reverse(i64::from(t.rect.width) * i64::from(t.rect.height)));
        Ok(out)
    }
}

use super::OwnedWindow;

/// What the X server says of a window, for [`is_app_window`].
#[derive(Debug, Clone, Copy)]
struct Seen {
    input_output: bool,
    override_redirect: bool,
    viewable: bool,
    /// `WM_STATE` is Iconic: a window manager has minimised it.
    iconic: bool,
}

/// Whether a window that carries `_NET_WM_PID` is a window of the app a person sees (shown, or
/// minimised by a window manager). Not: the unmapped, input-only "leader" window GTK, Chromium
/// and Firefox make per process (it carries `_NET_WM_PID` too: a windowless portal has one),
/// override-redirect popups and tooltips, hidden windows.
fn is_app_window(w: Seen) -> bool {
    w.input_output && !w.override_redirect && (w.viewable || w.iconic)
}

/// Every top-level window of this X display that a local process owns (see
/// [`is_app_window`]), with its owner's pid. A window whose `WM_CLIENT_MACHINE` names another
/// host is left out: its pid means nothing here. Err: why the windows could not be listed.
pub fn window_owners() -> Result<Vec<OwnedWindow>, String> {
    if std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty()) {
        return Err("DISPLAY is not set".into());
    }
    let (conn, screen) =
        x11rb::connect(None).map_err(|e| format!("cannot connect to the X display: {e}"))?;
    let x = X {
        root: conn.setup().roots[screen].root,
        conn,
    };
    let atom = |name: &str| -> Result<u32, String> {
        let err = |e: &dyn std::fmt::Display| format!("the X server did not intern {name}: {e}");
        Ok(x.conn
            .intern_atom(false, name.as_bytes())
            .map_err(|e| err(&e))?
            .reply()
            .map_err(|e| err(&e))?
            .atom)
    };
    let net_wm_pid = atom("_NET_WM_PID")?;
    let net_wm_name = atom("_NET_WM_NAME")?;
    let utf8 = atom("UTF8_STRING")?;
    let wm_state = atom("WM_STATE")?;
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let candidates = x.candidates();
    // Every request is sent before the first reply is awaited: one round trip, not hundreds.
    let pids: Vec<_> = candidates
        .iter()
        .map(|w| {
            x.conn
                .get_property(false, *w, net_wm_pid, AtomEnum::CARDINAL, 0, 1)
                .ok()
        })
        .collect();
    let attrs: Vec<_> = candidates
        .iter()
        .map(|w| x.conn.get_window_attributes(*w).ok())
        .collect();
    let mut owned = Vec::new();
    for ((w, pid), attrs) in candidates.into_iter().zip(pids).zip(attrs) {
        let pid = pid
            .and_then(|c| c.reply().ok())
            .and_then(|r| r.value32().and_then(|mut v| v.next()));
        let attrs = attrs.and_then(|c| c.reply().ok());
        if let (Some(pid), Some(a)) = (pid, attrs) {
            owned.push((w, pid, a));
        }
    }
    let mut out = Vec::new();
    for (w, pid, a) in owned {
        let viewable = a.map_state == MapState::VIEWABLE;
        let iconic = !viewable
            && x.conn
                .get_property(false, w, wm_state, AtomEnum::ANY, 0, 1)
                .ok()
                .and_then(|c| c.reply().ok())
                .and_then(|r| r.value32().and_then(|mut v| v.next()))
                == Some(3);
        let seen = Seen {
            input_output: a.class == WindowClass::INPUT_OUTPUT,
            override_redirect: a.override_redirect,
            viewable,
            iconic,
        };
        if !is_app_window(seen) {
            continue;
        }
        let machine = x
            .conn
            .get_property(
                false,
                w,
                AtomEnum::WM_CLIENT_MACHINE,
                AtomEnum::STRING,
                0,
                256,
            )
            .ok()
            .and_then(|c| c.reply().ok())
            .map(|r| String::from_utf8_lossy(&r.value).into_owned())
            .unwrap_or_default();
        if !machine.is_empty() && !host.is_empty() && machine != host {
            continue;
        }
        let geo = x.conn.get_geometry(w).ok().and_then(|c| c.reply().ok());
        out.push(OwnedWindow {
            pid,
            window: u64::from(w),
            label: format!("{w:#x}"),
            width: geo.as_ref().map_or(0, |g| g.width as u32),
            height: geo.as_ref().map_or(0, |g| g.height as u32),
            title: x.title(w, net_wm_name, utf8),
        });
    }
    Ok(out)
}

/// Raises the window and gives it keyboard focus, so synthesized keys and clicks reach it.
/// With a window manager that supports `_NET_ACTIVE_WINDOW` it is asked to activate the window
/// (it may refuse focus stealing); the window is raised and focused directly as well.
fn activate(window: u32) -> Result<(), DesktopError> {
    let x = X::open()?;
    let active = x.atom("_NET_ACTIVE_WINDOW")?;
    let ev = ClientMessageEvent::new(32, window, active, [2u32, 0, 0, 0, 0]);
    let _ = x.conn.send_event(
        false,
        x.root,
        EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
        ev,
    );
    x.conn
        .configure_window(
            window,
            &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
        )
        .map_err(|e| unavailable("raise", e))?;
    x.conn
        .set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME)
        .map_err(|e| unavailable("set_input_focus", e))?;
    // Round trip: the server has applied both before any synthesized event follows.
    x.conn
        .get_input_focus()
        .map_err(|e| unavailable("get_input_focus", e))?
        .reply()
        .map_err(|e| unavailable("get_input_focus", e))?;
    Ok(())
}

/// Waits until some client holds the keyboard grab (an open menu or combo popup does: then
/// synthesized keys reach it and nothing else), for at most `wait`. Probed by asking for the
/// grab ourselves: "already grabbed" is the answer looked for; a grab we get is released at
/// once. Returns whether the grab was seen.
fn wait_keyboard_grab(wait: Duration) -> Result<bool, DesktopError> {
    use x11rb::protocol::xproto::{GrabMode, GrabStatus};
    let x = X::open()?;
    let until = Instant::now() + wait;
    loop {
        let status = x
            .conn
            .grab_keyboard(
                false,
                x.root,
                x11rb::CURRENT_TIME,
                GrabMode::ASYNC,
                GrabMode::ASYNC,
            )
            .map_err(|e| unavailable("grab_keyboard", e))?
            .reply()
            .map_err(|e| unavailable("grab_keyboard", e))?
            .status;
        if status == GrabStatus::SUCCESS {
            x.conn
                .ungrab_keyboard(x11rb::CURRENT_TIME)
                .map_err(|e| unavailable("ungrab_keyboard", e))?;
            x.conn.flush().map_err(|e| unavailable("flush", e))?;
        } else if status == GrabStatus::ALREADY_GRABBED {
            return Ok(true);
        }
        if Instant::now() >= until {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(15));
    }
}

/// X11: windows from the X server, keys and clicks through XTest.
#[derive(Default)]
pub struct X11Input;

impl X11Input {
    pub fn new() -> X11Input {
        X11Input
    }
}

async fn blocking<T: Send + 'static>(
    what: &'static str,
    f: impl FnOnce() -> Result<T, DesktopError> + Send + 'static,
) -> Result<T, DesktopError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| DesktopError::Failed(format!("{what}: {e}")))?
}

#[async_trait]
impl Input for X11Input {
    fn desktop(&self) -> String {
        let d = std::env::var("DISPLAY").unwrap_or_default();
        format!("X11 display {}", crate::model::sanitize(&d, 40))
    }

    fn keyboard(&self) -> Result<String, String> {
        Ok("X11 (XTest)".into())
    }

    fn pointer(&self) -> Result<String, String> {
        Ok("X11 (XTest)".into())
    }

    fn coordinates(&self) -> Coordinates {
        Coordinates::Screen
    }

    async fn windows_of(&self, pid: u32) -> Result<Vec<Window>, DesktopError> {
        blocking("window lookup", move || X::open()?.toplevels(pid)).await
    }

    async fn all_windows(&self) -> Result<Vec<Window>, String> {
        tokio::task::spawn_blocking(window_owners)
            .await
            .map_err(|e| e.to_string())?
            .map(|owned| {
                owned
                    .into_iter()
                    .map(|w| Window {
                        id: w.window,
                        pid: w.pid,
                        title: w.title,
                        rect: Rect {
                            x: 0,
                            y: 0,
                            width: w.width as i32,
                            height: w.height as i32,
                        },
                        visible: true,
                        focused: false,
                        native: true,
                        tiled: false,
                        surface: None,
                    })
                    .collect()
            })
    }

    async fn activate(&self, window: &Window) -> Result<(), DesktopError> {
        let id = window.id as u32;
        blocking("window activation", move || activate(id)).await
    }

    async fn type_text(&self, text: &str) -> Result<(), DesktopError> {
        let syms: Vec<u32> = text.chars().map(keymap::keysym_of).collect();
        blocking("XTest keys", move || xtest::keysyms(&syms)).await
    }

    async fn key(&self, key: Key) -> Result<(), DesktopError> {
        let sym = keymap::keysym_of_key(key);
        blocking("XTest keys", move || xtest::keysyms(&[sym])).await
    }

    async fn click(&self, x: i32, y: i32) -> Result<(), DesktopError> {
        blocking("XTest click", move || xtest::click(x, y)).await
    }

    async fn wait_menu_keyboard(&self, wait: Duration) -> Result<Option<bool>, DesktopError> {
        blocking("keyboard grab probe", move || wait_keyboard_grab(wait))
            .await
            .map(Some)
    }
}

/// Keys and clicks through the XTest extension, as the AT-SPI registry's device event
/// controller sends them (`registryd/deviceeventcontroller-x11.c`): a keysym the keyboard map
/// has is pressed on its keycode (with Shift for its second level); one it lacks is first put
/// on a spare keycode (one the map leaves empty). Spare keycodes are not given back at the
/// end: an app reads the map when it sees the change, possibly after the last key, and must
/// still find the keysym there (a key no keyboard sends is harmless).
mod xtest {
    use x11rb::connection::{Connection, RequestConnection};
    use x11rb::protocol::xproto::ConnectionExt as _;
    use x11rb::protocol::xtest::ConnectionExt as _;

    use super::{DesktopError, X, unavailable};

    const KEY_PRESS: u8 = 2;
    const KEY_RELEASE: u8 = 3;
    const BUTTON_PRESS: u8 = 4;
    const BUTTON_RELEASE: u8 = 5;
    const MOTION: u8 = 6;
    const SHIFT_L: u32 = 0xffe1;

    fn with_xtest() -> Result<X, DesktopError> {
        let x = X::open()?;
        let has = x
            .conn
            .extension_information(x11rb::protocol::xtest::X11_EXTENSION_NAME)
            .map_err(|e| unavailable("XTEST", e))?
            .is_some();
        if !has {
            return Err(DesktopError::NoInput(
                "the X server has no XTEST extension, so keys and clicks cannot be synthesized"
                    .into(),
            ));
        }
        Ok(x)
    }

    fn fake(x: &X, kind: u8, detail: u8, at: (i16, i16)) -> Result<(), DesktopError> {
        x.conn
            .xtest_fake_input(kind, detail, x11rb::CURRENT_TIME, x.root, at.0, at.1, 0)
            .map_err(|e| unavailable("XTest FakeInput", e))?;
        Ok(())
    }

    /// A keycode, and whether Shift is held with it.
    pub(super) type Press = (u8, bool);

    /// Where each keysym is typed (keycode 0: nowhere, no spare keycode was left), and the
    /// spare keycodes given a keysym.
    pub(super) fn plan(
        first: u8,
        per: usize,
        map: &[u32],
        wanted: &[u32],
    ) -> (Vec<Press>, Vec<(u8, u32)>) {
        let code = |i: usize| first.saturating_add(i as u8);
        let mut spare = (0..map.len() / per.max(1))
            .filter(|&i| map[i * per..(i + 1) * per].iter().all(|&s| s == 0))
            .map(code)
            .collect::<Vec<u8>>()
            .into_iter();
        let mut added: Vec<(u8, u32)> = Vec::new();
        let mut out = Vec::new();
        for &sym in wanted {
            let found = (0..map.len() / per.max(1)).find_map(|i| {
                let row = &map[i * per..(i + 1) * per];
                match row.iter().position(|&s| s == sym) {
                    Some(0) => Some((code(i), false)),
                    Some(1) => Some((code(i), true)),
                    _ => None,
                }
            });
            let at = found
                .or_else(|| {
                    added
                        .iter()
                        .find(|(_, s)| *s == sym)
                        .map(|(c, _)| (*c, false))
                })
                .or_else(|| {
                    let c = spare.next()?;
                    added.push((c, sym));
                    Some((c, false))
                });
            // No spare keycode left: typed as nothing would be a lie; the caller refuses.
            out.push(at.unwrap_or((0, false)));
        }
        (out, added)
    }

    /// Presses and releases the keys that type `syms`, in order.
    pub(super) fn keysyms(syms: &[u32]) -> Result<(), DesktopError> {
        let x = with_xtest()?;
        let setup = x.conn.setup();
        let (first, last) = (setup.min_keycode, setup.max_keycode);
        let count = last - first + 1;
        let reply = x
            .conn
            .get_keyboard_mapping(first, count)
            .map_err(|e| unavailable("GetKeyboardMapping", e))?
            .reply()
            .map_err(|e| unavailable("GetKeyboardMapping", e))?;
        let per = usize::from(reply.keysyms_per_keycode);
        let mut wanted = syms.to_vec();
        wanted.push(SHIFT_L);
        let (at, added) = plan(first, per, &reply.keysyms, &wanted);
        let shift = at.last().copied().unwrap_or((0, false)).0;
        let at = &at[..syms.len()];
        if let Some(i) = at.iter().position(|(c, _)| *c == 0) {
            return Err(DesktopError::NoInput(format!(
                "the X keyboard map has no room for keysym {:#x} (no empty keycode left):                  nothing was typed",
                syms[i]
            )));
        }
        for (code, sym) in &added {
            let mut row = vec![0u32; per.max(2)];
            row[0] = *sym;
            row[1] = *sym;
            x.conn
                .change_keyboard_mapping(1, *code, row.len() as u8, &row)
                .map_err(|e| unavailable("ChangeKeyboardMapping", e))?;
        }
        if !added.is_empty() {
            // The new map is the server's before the first key that needs it.
            x.conn
                .get_input_focus()
                .map_err(|e| unavailable("GetInputFocus", e))?
                .reply()
                .map_err(|e| unavailable("GetInputFocus", e))?;
        }
        for &(code, shifted) in at {
            if shifted && shift == 0 {
                return Err(DesktopError::NoInput(
                    "the X keyboard map has no Shift key: nothing more was typed".into(),
                ));
            }
            if shifted {
                fake(&x, KEY_PRESS, shift, (0, 0))?;
            }
            fake(&x, KEY_PRESS, code, (0, 0))?;
            fake(&x, KEY_RELEASE, code, (0, 0))?;
            if shifted {
                fake(&x, KEY_RELEASE, shift, (0, 0))?;
            }
        }
        sync(&x)
    }

    /// Moves the pointer to (x, y) on the screen and clicks the first button there.
    pub(super) fn click(px: i32, py: i32) -> Result<(), DesktopError> {
        let x = with_xtest()?;
        let at = (
            i16::try_from(px).map_err(|_| off_screen(px, py))?,
            i16::try_from(py).map_err(|_| off_screen(px, py))?,
        );
        fake(&x, MOTION, 0, at)?;
        fake(&x, BUTTON_PRESS, 1, (0, 0))?;
        fake(&x, BUTTON_RELEASE, 1, (0, 0))?;
        sync(&x)
    }

    fn off_screen(px: i32, py: i32) -> DesktopError {
        DesktopError::NoInput(format!(
            "({px}, {py}) is off every X screen: nothing was sent"
        ))
    }

    /// One round trip: the server has taken every event before this returns.
    fn sync(x: &X) -> Result<(), DesktopError> {
        x.conn
            .get_input_focus()
            .map_err(|e| unavailable("GetInputFocus", e))?
            .reply()
            .map_err(|e| unavailable("GetInputFocus", e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_shown_or_minimised_output_windows_are_an_apps() {
        let shown = Seen {
            input_output: true,
            override_redirect: false,
            viewable: true,
            iconic: false,
        };
        assert!(is_app_window(shown));
        // Minimised by a window manager: still the app's window.
        assert!(is_app_window(Seen {
            viewable: false,
            iconic: true,
            ..shown
        }));
        // The per-process leader window: input-only and never mapped.
        assert!(!is_app_window(Seen {
            input_output: false,
            viewable: false,
            ..shown
        }));
        // A tooltip or a popup menu.
        assert!(!is_app_window(Seen {
            override_redirect: true,
            ..shown
        }));
        // Withdrawn (hidden, not minimised).
        assert!(!is_app_window(Seen {
            viewable: false,
            ..shown
        }));
    }

    #[test]
    fn keysyms_go_to_their_level_or_to_a_spare_keycode() {
        // Keycodes 8..=11, two keysyms each: a/A, b/B, nothing, Shift_L.
        let map = [0x61, 0x41, 0x62, 0x42, 0, 0, 0xffe1, 0];
        let (at, added) = xtest::plan(8, 2, &map, &[0x61, 0x42, 0xe2, 0xe2, 0xffe1]);
        assert_eq!(
            at,
            vec![(8, false), (9, true), (10, false), (10, false), (11, false)]
        );
        assert_eq!(added, vec![(10, 0xe2)]);
        // No spare keycode for a second missing keysym: keycode 0, refused by the caller.
        let (at, _) = xtest::plan(8, 2, &map, &[0xe2, 0xe3]);
        assert_eq!(at, vec![(10, false), (0, false)]);
    }
}
