//! sway's IPC (i3's protocol on the socket `$SWAYSOCK`): the windows the compositor shows, each
//! with the process that owns it and where its content sits on screen, and focusing one. A
//! request is the magic `i3-ipc`, its payload's length and type (native-endian u32s) and the
//! payload; the reply has the same header and a JSON body. Blocking, a connection per request,
//! each with a deadline; nothing here talks to an application.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use async_trait::async_trait;

use super::wlroots;
use super::{Coordinates, DesktopError, Input, Key, Rect, Window, keymap};

const MAGIC: &[u8; 6] = b"i3-ipc";
const RUN_COMMAND: u32 = 0;
const GET_TREE: u32 = 4;
const GET_VERSION: u32 = 7;
/// A reply bigger than this is not sway's (a tree of hundreds of windows is a few hundred KB).
const MAX_REPLY: usize = 64 << 20;
const DEADLINE: Duration = Duration::from_secs(2);

/// sway's IPC socket.
#[derive(Debug, Clone)]
pub struct Ipc {
    path: PathBuf,
}

impl Ipc {
    /// The socket `$SWAYSOCK` names, when it is set.
    pub fn from_env() -> Option<Ipc> {
        let path = std::env::var_os("SWAYSOCK").filter(|p| !p.is_empty())?;
        Some(Ipc { path: path.into() })
    }

    /// The socket at `path`: `treeglass session` asks the sway it started whether it answers
    /// before any `$SWAYSOCK` names it.
    pub fn at(path: impl Into<PathBuf>) -> Ipc {
        Ipc { path: path.into() }
    }

    fn request(&self, kind: u32, payload: &str) -> Result<Value, String> {
        let mut s = UnixStream::connect(&self.path)
            .map_err(|e| format!("sway's IPC socket {}: {e}", self.path.display()))?;
        let io = |e: std::io::Error| format!("sway's IPC: {e}");
        s.set_read_timeout(Some(DEADLINE)).map_err(io)?;
        s.set_write_timeout(Some(DEADLINE)).map_err(io)?;
        let mut msg = Vec::with_capacity(14 + payload.len());
        msg.extend_from_slice(MAGIC);
        msg.extend_from_slice(&(payload.len() as u32).to_ne_bytes());
        msg.extend_from_slice(&kind.to_ne_bytes());
        msg.extend_from_slice(payload.as_bytes());
        s.write_all(&msg).map_err(io)?;
        let mut head = [0u8; 14];
        s.read_exact(&mut head).map_err(io)?;
        if &head[..6] != MAGIC {
            return Err("sway's IPC answered something that is not its protocol".into());
        }
        let len = u32::from_ne_bytes([head[6], head[7], head[8], head[9]]) as usize;
        if len > MAX_REPLY {
            return Err(format!("sway's IPC reply claims {len} bytes"));
        }
        let mut body = vec![0u8; len];
        s.read_exact(&mut body).map_err(io)?;
        serde_json::from_slice(&body).map_err(|e| format!("sway's IPC reply is not JSON: {e}"))
    }

    /// The compositor's own words for itself (`sway 1.7`).
    pub fn version(&self) -> Result<String, String> {
        let v = self.request(GET_VERSION, "")?;
        let human = v["human_readable"].as_str().unwrap_or("?");
        Ok(format!("sway {human}"))
    }

    /// Every window sway manages (Wayland and Xwayland ones), in its tree order, and the
    /// bounding box of every output (what absolute pointer motion spans).
    pub fn tree(&self) -> Result<(Vec<Window>, Rect), String> {
        let t = self.request(GET_TREE, "")?;
        Ok((windows(&t), rect(&t["rect"])))
    }

    /// Gives the window (by sway's container id) the keyboard focus, raising it where it is
    /// floating and showing its workspace.
    pub fn focus(&self, con_id: u64) -> Result<(), String> {
        let v = self.request(RUN_COMMAND, &format!("[con_id={con_id}] focus"))?;
        let ok = v
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(|r| r["success"] == true));
        if ok {
            Ok(())
        } else {
            Err(format!(
                "sway refused to focus the window: {}",
                v.get(0)
                    .and_then(|r| r["error"].as_str())
                    .unwrap_or("no reason given")
            ))
        }
    }
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

/// The windows (views) in sway's tree: nodes with a process id. `rect` is the container,
/// `window_rect` the content inside it (relative to `rect`): the content is where the view's
/// window geometry is placed (centred in it when the view is smaller, sway's
/// `view_center_surface`). Walked with a stack: the tree is the compositor's, shallow, but
/// nothing here recurses on data from outside.
pub fn windows(tree: &Value) -> Vec<Window> {
    let mut out = Vec::new();
    let mut stack = vec![(tree, false, false)];
    while let Some((n, scratch, floating)) = stack.pop() {
        // The scratchpad's windows are hidden until shown.
        let scratch = scratch || n["name"] == "__i3_scratch";
        if let Some(pid) = n["pid"].as_u64().filter(|&p| p > 0) {
            let outer = rect(&n["rect"]);
            let inner = rect(&n["window_rect"]);
            out.push(Window {
                id: n["id"].as_u64().unwrap_or(0),
                pid: pid as u32,
                title: n["name"].as_str().unwrap_or("").to_string(),
                rect: Rect {
                    x: outer.x + inner.x,
                    y: outer.y + inner.y,
                    width: inner.width,
                    height: inner.height,
                },
                visible: !scratch && n["visible"].as_bool().unwrap_or(true),
                focused: n["focused"].as_bool().unwrap_or(false),
                native: n["shell"].as_str() != Some("xwayland"),
                tiled: !floating,
                surface: None,
            });
        }
        for key in ["floating_nodes", "nodes"] {
            // A floating container's children float with it.
            let floating = floating || key == "floating_nodes";
            if let Some(kids) = n[key].as_array() {
                stack.extend(kids.iter().rev().map(|k| (k, scratch, floating)));
            }
        }
    }
    out
}

/// sway: windows and focus over its IPC, keys and clicks through wlroots' virtual devices.
pub struct Sway {
    ipc: Ipc,
    devices: std::sync::Arc<super::wlroots::Devices>,
    /// What the compositor offers, asked on first need.
    offered: std::sync::OnceLock<Result<wlroots::Offered, String>>,
}

impl Sway {
    pub(super) fn new(ipc: Ipc) -> Sway {
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
        f: impl FnOnce(&Ipc, &wlroots::Devices) -> Result<T, String> + Send + 'static,
    ) -> Result<T, DesktopError> {
        let (ipc, devices) = (self.ipc.clone(), self.devices.clone());
        tokio::task::spawn_blocking(move || f(&ipc, &devices))
            .await
            .map_err(|e| DesktopError::Failed(format!("{what}: {e}")))?
            .map_err(|e| DesktopError::NoInput(format!("{what}: {e}")))
    }
}

/// The keysyms that type `text`.
pub(super) fn keysyms(text: &str) -> Vec<u32> {
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

    async fn windows_of(&self, pid: u32) -> Result<Vec<Window>, DesktopError> {
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

    async fn activate(&self, window: &Window) -> Result<(), DesktopError> {
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

    async fn type_text(&self, text: &str) -> Result<(), DesktopError> {
        self.keyboard().map_err(DesktopError::NoInput)?;
        let syms = keysyms(text);
        self.blocking("the virtual keyboard", move |_, d| d.keys(syms))
            .await
    }

    async fn key(&self, key: Key) -> Result<(), DesktopError> {
        self.keyboard().map_err(DesktopError::NoInput)?;
        let sym = keymap::keysym_of_key(key);
        self.blocking("the virtual keyboard", move |_, d| d.keys(vec![sym]))
            .await
    }

    async fn click(&self, x: i32, y: i32) -> Result<(), DesktopError> {
        self.pointer().map_err(DesktopError::NoInput)?;
        self.blocking("the virtual pointer", move |ipc, d| {
            let (_, layout) = ipc.tree()?;
            d.click(x, y, layout)
        })
        .await
    }

    async fn wait_menu_keyboard(&self, _wait: Duration) -> Result<Option<bool>, DesktopError> {
        // A Wayland popup's keyboard grab is the compositor's business and not observable.
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What sway 1.7 answered to `get_tree` for a tiled gtk3-widget-factory and a floating
    /// gtk4-widget-factory at 200,150 (trimmed to the fields read).
    const TREE: &str = r#"{"id":1,"name":"root","rect":{"x":0,"y":0,"width":1600,"height":1200},
      "nodes":[
        {"id":2,"name":"__i3","nodes":[{"id":3,"name":"__i3_scratch","nodes":[],"floating_nodes":[
          {"id":9,"name":"hidden","pid":77,"rect":{"x":0,"y":0,"width":10,"height":10},
           "window_rect":{"x":0,"y":0,"width":10,"height":10},"visible":false}]}]},
        {"id":4,"name":"HEADLESS-1","rect":{"x":0,"y":0,"width":1600,"height":1200},
         "nodes":[{"id":5,"name":"1","nodes":[
           {"id":6,"name":"gtk3-widget-factory","pid":8549,"shell":"xdg_shell","focused":true,
            "visible":true,
            "rect":{"x":0,"y":0,"width":1600,"height":1200},
            "window_rect":{"x":0,"y":0,"width":1600,"height":1200}}],
          "floating_nodes":[
           {"id":7,"name":"GTK Widget Factory","pid":6957,"shell":"xdg_shell","visible":true,
            "rect":{"x":200,"y":150,"width":1391,"height":900},
            "window_rect":{"x":2,"y":2,"width":1387,"height":896}}]}]}]}"#;

    #[test]
    fn views_are_listed_with_their_content_on_screen() {
        let t: Value = serde_json::from_str(TREE).unwrap();
        let w = windows(&t);
        assert_eq!(w.len(), 3);
        let hidden = w.iter().find(|w| w.pid == 77).unwrap();
        assert!(!hidden.visible, "the scratchpad is not on screen");
        let tiled = w.iter().find(|w| w.pid == 8549).unwrap();
        assert!(tiled.focused && tiled.visible && tiled.native && tiled.tiled);
        let floating = w.iter().find(|w| w.pid == 6957).unwrap();
        assert!(!floating.tiled);
        assert_eq!(
            floating.rect,
            Rect {
                x: 202,
                y: 152,
                width: 1387,
                height: 896
            },
            "the content is the container less its border"
        );
        assert_eq!(floating.id, 7);
        assert_eq!(
            rect(&t["rect"]),
            Rect {
                x: 0,
                y: 0,
                width: 1600,
                height: 1200
            }
        );
    }
}
