//! The highlight on X11: an override-redirect window named `treeglass highlight`, shaped (X
//! SHAPE extension) into a hollow frame around the element and given an empty input shape, so
//! every click goes through it to the app underneath. The X server destroys it with
//! treeglass's connection.

use std::sync::mpsc;

use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shape::{self, ConnectionExt as _, SK, SO};
use x11rb::protocol::xproto::{
    AtomEnum, ClipOrdering, ConfigureWindowAux, ConnectionExt as _, CreateWindowAux, PropMode,
    Rectangle, StackMode, Window, WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use super::{Cmd, FrameWindow, WINDOW_NAME};
use super::{THICKNESS, frame_geometry};
use crate::model::Bounds;

pub fn start() -> Result<(FrameWindow, (u32, u32)), String> {
    let display = std::env::var("DISPLAY").ok();
    let session = std::env::var("XDG_SESSION_TYPE").ok();
    if let Some(why) = super::unsupported_here(display.as_deref(), session.as_deref()) {
        return Err(why);
    }
    let shown = display.unwrap_or_default();
    let (conn, screen_num) = x11rb::connect(None)
        .map_err(|e| format!("cannot connect to the X display {shown}: {e}"))?;
    let x_err = |e: &dyn std::fmt::Display| format!("X display {shown}: {e}");
    // Without SHAPE the frame would be a solid window that swallows clicks.
    let has_shape = conn
        .extension_information(shape::X11_EXTENSION_NAME)
        .map_err(|e| x_err(&e))?
        .is_some();
    if !has_shape {
        return Err("the X server lacks the SHAPE extension".into());
    }
    let screen = conn
        .setup()
        .roots
        .get(screen_num)
        .ok_or_else(|| x_err(&"no such screen"))?
        .clone();
    let color = conn
        .alloc_color(screen.default_colormap, 0xffff, 0x1000, 0x6000)
        .map_err(|e| x_err(&e))?
        .reply()
        .map(|r| r.pixel)
        .unwrap_or(screen.white_pixel);
    let win = conn.generate_id().map_err(|e| x_err(&e))?;
    conn.create_window(
        x11rb::COPY_DEPTH_FROM_PARENT,
        win,
        screen.root,
        0,
        0,
        1,
        1,
        0,
        WindowClass::INPUT_OUTPUT,
        x11rb::COPY_FROM_PARENT,
        &CreateWindowAux::new()
            .override_redirect(1)
            .background_pixel(color),
    )
    .map_err(|e| x_err(&e))?;
    conn.change_property8(
        PropMode::REPLACE,
        win,
        AtomEnum::WM_NAME,
        AtomEnum::STRING,
        WINDOW_NAME.as_bytes(),
    )
    .map_err(|e| x_err(&e))?;
    // An empty input shape: the pointer never lands on the frame.
    conn.shape_rectangles(SO::SET, SK::INPUT, ClipOrdering::UNSORTED, win, 0, 0, &[])
        .map_err(|e| x_err(&e))?;
    conn.flush().map_err(|e| x_err(&e))?;
    let size = (
        u32::from(screen.width_in_pixels),
        u32::from(screen.height_in_pixels),
    );
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("highlight".into())
        .spawn(move || serve(conn, win, rx))
        .map_err(|e| format!("cannot start the highlight thread: {e}"))?;
    Ok((
        FrameWindow {
            tx,
            thread: Some(thread),
        },
        size,
    ))
}

/// X takes 16-bit coordinates and sizes; anything larger is clipped by the screen anyway.
fn rect(x: i32, y: i32, w: i32, h: i32) -> Rectangle {
    Rectangle {
        x: x.clamp(i16::MIN.into(), i16::MAX.into()) as i16,
        y: y.clamp(i16::MIN.into(), i16::MAX.into()) as i16,
        width: w.clamp(1, u16::MAX.into()) as u16,
        height: h.clamp(1, u16::MAX.into()) as u16,
    }
}

fn place(conn: &RustConnection, win: Window, b: Bounds) -> Result<(), String> {
    let g = frame_geometry(b);
    let outer = rect(g.x, g.y, g.width, g.height);
    let (w, h, t) = (i32::from(outer.width), i32::from(outer.height), THICKNESS);
    // The visible part: four bars along the edges, nothing over the element itself.
    let bars = [
        rect(0, 0, w, t),
        rect(0, h - t, w, t),
        rect(0, t, t, h - 2 * t),
        rect(w - t, t, t, h - 2 * t),
    ];
    let e = |e: x11rb::errors::ConnectionError| e.to_string();
    conn.configure_window(
        win,
        &ConfigureWindowAux::new()
            .x(i32::from(outer.x))
            .y(i32::from(outer.y))
            .width(u32::from(outer.width))
            .height(u32::from(outer.height))
            .stack_mode(StackMode::ABOVE),
    )
    .map_err(e)?;
    conn.shape_rectangles(
        SO::SET,
        SK::BOUNDING,
        ClipOrdering::UNSORTED,
        win,
        0,
        0,
        &bars,
    )
    .map_err(e)?;
    conn.map_window(win).map_err(e)?;
    conn.flush().map_err(e)
}

fn serve(conn: RustConnection, win: Window, rx: mpsc::Receiver<Cmd>) {
    // A closed channel (the TUI is gone) ends the thread like `Quit`.
    while let Ok(cmd) = rx.recv() {
        let ok = match cmd {
            Cmd::Show(b) => place(&conn, win, b).is_ok(),
            Cmd::Hide => conn.unmap_window(win).is_ok() && conn.flush().is_ok(),
            Cmd::Quit => break,
        };
        if !ok {
            return;
        }
    }
    let _ = conn.destroy_window(win);
    let _ = conn.flush();
}
