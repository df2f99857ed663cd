//! The TUI end to end on the real bus: treeglass runs in tmux against the project's GTK
//! fixture; the test filters to the text entry, sets a value, sees `verified` on screen, and
//! checks the app really holds the value. `--app` opens on the named app's window (and on the
//! apps pane with the reason when nothing matches), and the on-screen highlight is a real X
//! window at the element's bounds that lets input through and is gone after quitting.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::Tmux;
use common::*;

#[test]
fn filter_set_and_see_verified_on_screen() {
    let _turn = common::turn::alone();
    let mut app = FixtureApp::start("tui");
    let tmux = Tmux::new();
    tmux.start(&[]);
    tmux.wait_for("\"Full name\"", Duration::from_secs(20));

    tmux.keys(&["/"]);
    tmux.type_text("text \"Full name\"");
    let s = tmux.wait_for("unique", Duration::from_secs(10));
    assert!(s.contains("text \"Full name\""), "{s}");
    tmux.keys(&["Enter"]);
    tmux.keys(&["e"]);
    tmux.wait_for("Enter", Duration::from_secs(5));
    tmux.keys(&["C-u"]);
    tmux.type_text("Written in the TUI");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("VERIFIED", Duration::from_secs(10));
    assert!(s.contains("Written in the TUI"), "{s}");
    assert_eq!(app.state()["full_name"], "Written in the TUI");

    tmux.keys(&["q"]);
}

/// A write that lands elsewhere: the writes pane says where, `c` lists the change set and Enter
/// selects the field that got the text; `m` marks the tree, the app adds an element, and `D`
/// lists it and goes to it. Checked against the app's own state.
#[test]
fn where_a_write_landed_and_the_diff_against_a_mark() {
    let _turn = common::turn::alone();
    let mut app = FixtureApp::start("tui-landed");
    let tmux = Tmux::new();
    tmux.start(&["--app", &app.app_arg()]);
    tmux.wait_for("\"Full name\"", Duration::from_secs(20));

    tmux.keys(&["/"]);
    tmux.type_text("text \"Relay\"");
    tmux.wait_for("unique", Duration::from_secs(10));
    tmux.keys(&["Enter", "e"]);
    tmux.wait_for("Enter", Duration::from_secs(5));
    tmux.keys(&["C-u"]);
    tmux.type_text("to the proxy");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("likeliest", Duration::from_secs(15));
    assert!(s.contains("MISMATCH"), "{s}");
    assert!(s.contains("elsewhere"), "{s}");
    assert!(s.contains("c: what changed elsewhere"), "{s}");
    assert_eq!(app.state()["proxy_host"], "to the proxy");

    tmux.keys(&["Escape", "c"]);
    let s = tmux.wait_for("changed elsewhere (", Duration::from_secs(5));
    assert!(s.contains("text \"Proxy host\""), "{s}");
    assert!(s.contains("value: \"\" → \"to the proxy\""), "{s}");
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("target      text \"Proxy host\"", Duration::from_secs(5));
    assert!(!s.contains("changed elsewhere ("), "{s}");

    // Mark, let the app change, compare.
    tmux.keys(&["m"]);
    tmux.wait_for("marked this tree", Duration::from_secs(5));
    app.cmd("add");
    tmux.wait_for("\"Item 1\"", Duration::from_secs(10));
    tmux.keys(&["D"]);
    let s = tmux.wait_for("since the mark", Duration::from_secs(5));
    assert!(s.contains("added"), "{s}");
    assert!(s.contains("added   button \"Item 1\""), "{s}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("target      button \"Item 1\"", Duration::from_secs(5));
    assert_eq!(app.state()["items"], 1);

    tmux.keys(&["q"]);
    assert_answers(
        app.pid,
        "the fixture app",
        "the TUI's writes, change set and diff",
    );
}

#[test]
fn app_option_opens_that_window_at_once() {
    let _turn = common::turn::alone();
    let _first = FixtureApp::start("open-a");
    let second = FixtureApp::start("open-b");
    let tmux = Tmux::new();
    tmux.start(&["--app", &second.app_arg()]);
    // The tree pane's title is the window's: the second app's, not whichever came first.
    let s = tmux.wait_for("\"Full name\"", Duration::from_secs(20));
    assert!(
        s.contains(&format!("Tree treeglass fixture {}", second.name)),
        "{s}"
    );
    tmux.keys(&["q"]);
}

#[test]
fn app_option_without_a_match_opens_the_apps_pane_with_the_reason() {
    let _turn = common::turn::alone();
    let app = FixtureApp::start("open-none");
    let tmux = Tmux::new();
    tmux.start(&["--app", "^no-such-app-here$"]);
    let s = tmux.wait_for("cannot open the window asked for", Duration::from_secs(20));
    assert!(s.contains("no application matches"), "{s}");
    // The apps pane lists what is there; choosing it opens its window.
    let s = tmux.wait_for(&app.name, Duration::from_secs(10));
    assert!(s.contains("Apps ("), "{s}");
    tmux.keys(&["q"]);
}

/// The highlight window as `xwininfo` sees it: id, x, y, width, height, viewable.
fn frame_window() -> Option<(u32, i32, i32, i32, i32, bool)> {
    let o = Command::new("xwininfo")
        .args(["-name", treeglass::desktop::frame::WINDOW_NAME])
        .output()
        .expect("run xwininfo (Debian package x11-utils)");
    if !o.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&o.stdout);
    let num = |key: &str| -> i32 {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(i32::MIN)
    };
    let id = text
        .split("Window id: 0x")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|h| u32::from_str_radix(h, 16).ok())?;
    Some((
        id,
        num("Absolute upper-left X:"),
        num("Absolute upper-left Y:"),
        num("Width:"),
        num("Height:"),
        text.contains("Map State: IsViewable"),
    ))
}

/// The input shape of window `id` (empty: every click goes through it).
fn input_shape(id: u32) -> Vec<x11rb::protocol::xproto::Rectangle> {
    use x11rb::protocol::shape::{ConnectionExt as _, SK};
    let (conn, _) = x11rb::connect(None).expect("connect to the test X display");
    conn.shape_get_rectangles(id, SK::INPUT)
        .expect("send ShapeGetRectangles")
        .reply()
        .expect("ShapeGetRectangles reply")
        .rectangles
}

#[test]
fn highlight_frames_the_element_on_screen_and_goes_with_the_tui() {
    let _turn = common::turn::alone();
    let mut app = FixtureApp::start("highlight");
    // Where the entry is, as GTK laid it out (the app's word, not the accessibility tree's).
    let g = app.cmd("geometry full_name");
    let at = |k: &str| g[k].as_i64().unwrap_or_else(|| panic!("geometry {k}: {g}")) as i32;
    let (x, y, w, h) = (at("x"), at("y"), at("width"), at("height"));
    assert!(w > 0 && h > 0, "the entry is laid out: {g}");
    // treeglass reads the same bounds.
    let o = treeglass(&[
        "get",
        "text \"Full name\"",
        "--app",
        &app.app_arg(),
        "--json",
    ]);
    let b = json_of(&o)["bounds"].clone();
    assert_eq!(
        b,
        serde_json::json!({"x": x, "y": y, "width": w, "height": h}),
        "treeglass's bounds of the entry are not where GTK put it: {g}"
    );
    let t = treeglass::desktop::frame::THICKNESS;
    let want = (x - t, y - t, w + 2 * t, h + 2 * t);

    let tmux = Tmux::new();
    tmux.start(&["--app", &app.app_arg()]);
    tmux.wait_for("\"Full name\"", Duration::from_secs(20));
    tmux.keys(&["/"]);
    tmux.type_text("text \"Full name\"");
    tmux.wait_for("unique", Duration::from_secs(10));
    tmux.keys(&["Enter"]);
    tmux.keys(&["o"]);
    tmux.wait_for("framed on screen (held", Duration::from_secs(10));
    let deadline = Instant::now() + Duration::from_secs(10);
    let id = loop {
        match frame_window() {
            Some((id, fx, fy, fw, fh, true)) if (fx, fy, fw, fh) == want => break id,
            other => assert!(
                Instant::now() < deadline,
                "no viewable frame at {want:?}; xwininfo: {other:?}\n{}",
                tmux.screen()
            ),
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        input_shape(id).is_empty(),
        "the frame must let clicks through"
    );

    // Letting go takes it off the screen; quitting destroys it.
    tmux.keys(&["o"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while frame_window().is_some_and(|f| f.5) {
        assert!(Instant::now() < deadline, "the frame stayed after o");
        std::thread::sleep(Duration::from_millis(100));
    }
    tmux.keys(&["o"]);
    tmux.wait_for("framed on screen (held", Duration::from_secs(10));
    tmux.keys(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.alive() || frame_window().is_some() {
        assert!(
            Instant::now() < deadline,
            "treeglass did not exit, or its frame window outlived it"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_answers(app.pid, "the fixture app", "the highlight");
}
