//! Wayland, on a real compositor: a headless sway (wlroots) with native Wayland apps — the GTK 3
//! fixture, gtk4-widget-factory, Chromium (`--ozone-platform=wayland`) and the project's Qt 6
//! form — each started once. Keyboard and pointer writes through sway's virtual devices,
//! verified by treeglass and checked by an independent pyatspi read (or the app's own state);
//! windows placed away from the corner, floating and tiled; the highlight found in a `grim`
//! screenshot and clicked through; `doctor`'s window list; and a desktop with no input path,
//! where nothing is sent.
//!
//! This binary brings its own session: outside one (`TREEGLASS_A11Y_SESSION=wayland`), it runs
//! itself again inside `treeglass session --wayland` (the binary under test, not the
//! repository's wrapper script, which may call cargo), which, under root, runs sway as an
//! unprivileged user (sway refuses root) and the rest, this binary too, as root. So plain
//! `cargo test` covers it, and it fails loudly when sway cannot start. `harness = false`: names on the command line filter the
//! checks; `--list` lists them.
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

mod common;

use std::panic::AssertUnwindSafe;
use std::process::Command;
use std::time::{Duration, Instant};

use common::matrix::{Kit, MatrixApp, QtForm, pyatspi_read};
use common::tmux::Tmux;
use common::wayland::{checked, fixture_semantic_writes, pyatspi_extents, result, verified};
use common::{FixtureApp, json_of, treeglass};
use serde_json::Value;

/// The checks, in the order they run (they share the apps).
const CHECKS: &[&str] = &[
    "gtk3_fixture_semantic_writes",
    "gtk4_check_box_by_pointer_tiled_and_floating",
    "highlight_on_screen_and_clicked_through",
    "doctor_lists_the_compositors_windows",
    "no_input_path_sends_nothing",
    "chromium_textarea_and_input_by_keyboard",
    "qt6_combo_box_by_keyboard",
    "bounds_on_screen_where_the_pixels_are",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for c in CHECKS {
            println!("{c}: test");
        }
        return;
    }
    // Nothing here is ignored; `--ignored` runs nothing.
    if args.iter().any(|a| a == "--ignored") {
        return;
    }
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let chosen: Vec<&str> = CHECKS
        .iter()
        .copied()
        .filter(|c| filters.is_empty() || filters.iter().any(|f| c.contains(f.as_str())))
        .collect();
    if chosen.is_empty() {
        return;
    }
    if std::env::var("TREEGLASS_A11Y_SESSION").as_deref() != Ok("wayland") {
        let exe = std::env::current_exe().expect("this test's own path");
        let status = Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(["session", "--wayland", "--"])
            .arg(exe)
            .args(&chosen)
            .status()
            .expect("start treeglass session --wayland");
        std::process::exit(status.code().unwrap_or(1));
    }
    std::process::exit(run(&chosen));
}

/// The apps, started on first need and shared by the checks.
#[derive(Default)]
struct Apps {
    fixture: Option<FixtureApp>,
    gtk4: Option<MatrixApp>,
    chromium: Option<MatrixApp>,
    qt6: Option<QtForm>,
}

impl Apps {
    fn gtk4(&mut self) -> &mut MatrixApp {
        self.gtk4.get_or_insert_with(|| MatrixApp::start(Kit::Gtk4))
    }
    fn fixture(&mut self) -> &mut FixtureApp {
        self.fixture
            .get_or_insert_with(|| FixtureApp::start("wayland"))
    }
}

fn run(chosen: &[&str]) -> i32 {
    println!("\nrunning {} checks on headless sway", chosen.len());
    let mut apps = Apps::default();
    let mut failed = Vec::new();
    for name in chosen {
        let started = Instant::now();
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| match *name {
            "gtk3_fixture_semantic_writes" => gtk3_fixture_semantic_writes(&mut apps),
            "gtk4_check_box_by_pointer_tiled_and_floating" => gtk4_pointer(&mut apps),
            "highlight_on_screen_and_clicked_through" => highlight(&mut apps),
            "doctor_lists_the_compositors_windows" => doctor(&mut apps),
            "no_input_path_sends_nothing" => no_input_path(&mut apps),
            "chromium_textarea_and_input_by_keyboard" => chromium(&mut apps),
            "qt6_combo_box_by_keyboard" => qt6(&mut apps),
            "bounds_on_screen_where_the_pixels_are" => bounds_on_screen(&mut apps),
            other => panic!("no check {other}"),
        }));
        let ok = r.is_ok();
        println!(
            "test {name} ... {} ({:.1} s)",
            if ok { "ok" } else { "FAILED" },
            started.elapsed().as_secs_f64()
        );
        if !ok {
            failed.push(*name);
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        chosen.len() - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        0
    } else {
        println!("failures: {failed:?}");
        101
    }
}

// ---- helpers ----------------------------------------------------------------------------

/// The element a write result names, read by pyatspi: it must be found, with the role and
/// name the result gives.
fn read_back(pid: u32, v: &Value) -> Value {
    let id = v["node"].as_str().expect("the result names its node");
    let path = id.find('/').map_or(id, |i| &id[i..]);
    let seen = pyatspi_read(pid, &[id])[path].clone();
    assert!(!seen.is_null(), "pyatspi did not find {id}: {v:#}");
    assert_eq!(
        seen["name"], v["name"],
        "pyatspi's element is the one written"
    );
    seen
}

fn swaymsg(args: &[&str]) -> String {
    let o = Command::new("swaymsg")
        .args(args)
        .output()
        .expect("run swaymsg");
    assert!(
        o.status.success(),
        "swaymsg {args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The content rectangle sway gives the window of process `pid` (x, y, width, height), read
/// from `swaymsg -t get_tree` — the test's own reading, not treeglass's.
fn sway_rect(pid: u32) -> (i64, i64, i64, i64) {
    let tree: Value = serde_json::from_str(&swaymsg(&["-t", "get_tree", "-r"])).unwrap();
    let mut stack = vec![&tree];
    while let Some(n) = stack.pop() {
        if n["pid"].as_u64() == Some(u64::from(pid)) {
            let (r, w) = (&n["rect"], &n["window_rect"]);
            let i = |v: &Value, k: &str| v[k].as_i64().unwrap();
            return (
                i(r, "x") + i(w, "x"),
                i(r, "y") + i(w, "y"),
                i(w, "width"),
                i(w, "height"),
            );
        }
        for k in ["nodes", "floating_nodes"] {
            if let Some(a) = n[k].as_array() {
                stack.extend(a);
            }
        }
    }
    panic!("sway shows no window of process {pid}");
}

/// Floats the window of `pid` and moves it to (x, y), then waits until sway says it is there.
fn float_at(pid: u32, x: i64, y: i64) {
    swaymsg(&[&format!(
        "[pid={pid}] floating enable, move position {x} {y}"
    )]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while sway_rect(pid).0 != x || sway_rect(pid).1 != y {
        assert!(
            Instant::now() < deadline,
            "sway never moved {pid} to {x},{y}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // The app draws at its new size before it is read.
    std::thread::sleep(Duration::from_millis(300));
}

fn tile(pid: u32) {
    swaymsg(&[&format!("[pid={pid}] floating disable")]);
    std::thread::sleep(Duration::from_millis(300));
}

// ---- the checks -------------------------------------------------------------------------

/// Reads, targets and semantic writes need no input path: unchanged on Wayland.
fn gtk3_fixture_semantic_writes(apps: &mut Apps) {
    let app = apps.fixture();
    fixture_semantic_writes(app);
    let arg = app.app_arg();
    let (code, v) = result(treeglass(&[
        "set",
        "spin-button \"Quantity\"",
        "42",
        "--app",
        &arg,
        "--json",
    ]));
    verified(code, &v, "semantic");
    assert_eq!(app.state()["quantity"].as_f64(), Some(42.0));
    common::assert_answers(app.pid, "the GTK 3 fixture", "semantic writes on Wayland");
}

/// GTK 4.8's check boxes have no action: a click at the centre through the virtual pointer,
/// with the window tiled at the corner, then floating away from it (where a position taken
/// from the app alone would miss).
fn gtk4_pointer(apps: &mut Apps) {
    let app = apps.gtk4();
    let pid = app.pid;
    for (placed, target, want) in [
        ("tiled", "check-box \"checkbutton\" #2", "true"),
        ("floating", "check-box \"checkbutton\" #2", "false"),
        ("floating", "check-box \"checkbutton\" #1", "false"),
        ("floating", "check-box \"checkbutton\" #1", "true"),
    ] {
        if placed == "floating" && sway_rect(pid).0 != 217 {
            float_at(pid, 217, 133);
        }
        let (code, v) = result(app.treeglass(&["set", target, want, "--json"]));
        verified(code, &v, "pointer");
        // The input path used is named in the acks.
        let acks = v["acks"].to_string();
        assert!(
            acks.contains("via Wayland virtual pointer (sway)"),
            "{acks}"
        );
        assert_eq!(
            checked(&read_back(pid, &v)),
            want == "true",
            "{placed} {target}"
        );
        app.assert_alive(&format!("a pointer write ({placed})"));
    }
}

/// The TUI's highlight: held on a check box of the floating GTK 4 window, its pixels in a
/// screenshot just outside the element's bounds (from pyatspi's extents and sway's window
/// position, not treeglass's), and a click at the element's centre landing through it.
fn highlight(apps: &mut Apps) {
    let app = apps.gtk4();
    let pid = app.pid;
    float_at(pid, 217, 133);
    let (wx, wy, _, _) = sway_rect(pid);
    // The element's extents as pyatspi reads them (GTK 4: relative to its window).
    let o = treeglass(&[
        "find",
        "check-box \"checkbutton\" #2",
        "--pid",
        &pid.to_string(),
        "--json",
    ]);
    let found = json_of(&o);
    assert_eq!(found["outcome"], "unique", "{found:#}");
    let id = found["id"]
        .as_str()
        .unwrap_or_else(|| panic!("find names the node: {found:#}"))
        .to_string();
    let extents = pyatspi_extents(pid, &id);
    let (ex, ey, ew, eh) = (extents[0] + wx, extents[1] + wy, extents[2], extents[3]);

    let tmux = Tmux::new();
    tmux.start(&["--pid", &pid.to_string()]);
    tmux.wait_for("GTK Widget Factory", Duration::from_secs(30));
    tmux.keys(&["/"]);
    tmux.type_text("check-box \"checkbutton\" #2");
    tmux.wait_for("unique", Duration::from_secs(10));
    tmux.keys(&["Enter"]);
    tmux.keys(&["o"]);
    let s = tmux.wait_for("framed on screen (held", Duration::from_secs(10));
    assert!(!s.contains("highlight  none"), "{s}");

    // The frame's colour, THICKNESS pixels just outside the element on all four sides.
    let t = i64::from(treeglass::desktop::frame::THICKNESS);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let shot = screenshot();
        let at = |x: i64, y: i64| shot.pixel(x, y);
        let frame = [
            at(ex + ew / 2, ey - t + 1),
            at(ex + ew / 2, ey + eh + t - 2),
            at(ex - t + 1, ey + eh / 2),
            at(ex + ew + t - 2, ey + eh / 2),
        ];
        let inside = at(ex + ew / 2, ey + eh / 2);
        if frame.iter().all(|p| *p == FRAME_RGB) && inside != FRAME_RGB {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no frame around ({ex}, {ey}, {ew}×{eh}) in the screenshot: {frame:?}, inside \
             {inside:?}\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // A click at the centre goes through the overlay to the check box.
    let before = checked(&pyatspi_read(pid, &[&id])[&id[id.find('/').unwrap()..]]);
    let want = (!before).to_string();
    let (code, v) =
        result(app.treeglass(&["set", "check-box \"checkbutton\" #2", &want, "--json"]));
    verified(code, &v, "pointer");
    assert_eq!(checked(&read_back(pid, &v)), !before, "the click landed");
    tmux.keys(&["q"]);
    // The overlay goes with the TUI.
    let deadline = Instant::now() + Duration::from_secs(10);
    while screenshot().pixel(ex + ew / 2, ey - t + 1) == FRAME_RGB {
        assert!(Instant::now() < deadline, "the frame outlived the TUI");
        std::thread::sleep(Duration::from_millis(200));
    }
    app.assert_alive("the highlight");
}

/// The highlight's colour (as `frame/wayland.rs` draws it).
const FRAME_RGB: [u8; 3] = [0xff, 0x10, 0x60];

/// A `grim` screenshot, decoded.
struct Shot {
    width: i64,
    rgb: Vec<u8>,
}

impl Shot {
    fn pixel(&self, x: i64, y: i64) -> [u8; 3] {
        let i = ((y * self.width + x) * 3) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

/// A `grim` screenshot of the whole output, as a binary PPM.
fn screenshot_ppm() -> Vec<u8> {
    let o = Command::new("grim")
        .args(["-t", "ppm", "-"])
        .output()
        .expect("run grim");
    assert!(
        o.status.success(),
        "grim: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn screenshot() -> Shot {
    // PPM: a header and raw RGB, nothing to decode but the header.
    let data = screenshot_ppm();
    let mut fields = Vec::new();
    let mut i = 0;
    while fields.len() < 4 {
        while data[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        while !data[i].is_ascii_whitespace() {
            i += 1;
        }
        fields.push(String::from_utf8_lossy(&data[start..i]).into_owned());
    }
    assert_eq!(fields[0], "P6", "grim wrote a binary PPM");
    let width: i64 = fields[1].parse().unwrap();
    Shot {
        width,
        rgb: data[i + 1..].to_vec(),
    }
}

/// `doctor` on sway: the compositor and its input and highlight paths, every window with its
/// owner from sway's IPC, and no app flagged that is on the bus.
fn doctor(apps: &mut Apps) {
    let fixture_pid = apps.fixture().pid;
    let gtk4_pid = apps.gtk4().pid;
    let o = treeglass(&["doctor", "--json"]);
    let v = json_of(&o);
    let check = |name: &str| -> Value {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} check: {v:#}"))
    };
    let windows = check("windows");
    assert_eq!(windows["status"], "ok", "{windows:#}");
    assert!(
        windows["detail"]
            .as_str()
            .unwrap()
            .contains("from sway's IPC"),
        "{windows:#}"
    );
    let display = check("display");
    assert_eq!(display["status"], "ok", "{display:#}");
    let d = display["detail"].as_str().unwrap();
    for want in [
        "sway 1.7 (Wayland)",
        "keys: Wayland virtual keyboard (sway)",
        "clicks: Wayland virtual pointer (sway)",
        "highlight: a layer-shell overlay",
    ] {
        assert!(d.contains(want), "{want:?} in {d}");
    }
    for pid in [fixture_pid, gtk4_pid] {
        let app = v["apps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["pid"].as_u64() == Some(u64::from(pid)))
            .unwrap_or_else(|| panic!("doctor lists {pid}: {v:#}"));
        assert_eq!(app["status"], "ok", "{app:#}");
        assert!(
            app["window"]["id"].as_str().unwrap().starts_with("con "),
            "{app:#}"
        );
    }
    let flagged: Vec<&Value> = v["apps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["status"] != "ok" && a["status"] != "skip")
        .collect();
    assert!(flagged.is_empty(), "no false warning: {flagged:#?}");
}

/// A Wayland desktop treeglass has no input path for (GNOME, told by the environment, without
/// sway's socket): a write that needs the pointer is refused before anything is sent, naming
/// the desktop, and the check box is as it was.
fn no_input_path(apps: &mut Apps) {
    let app = apps.gtk4();
    let pid = app.pid;
    let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "atspi", "set", "check-box \"checkbutton\" #2"])
        .arg("--pid")
        .arg(pid.to_string())
        .args(["true", "--json"])
        .env_remove("SWAYSOCK")
        .env("XDG_CURRENT_DESKTOP", "GNOME")
        .output()
        .expect("run treeglass");
    // Whatever the box holds now, ask for the other state: a refusal must leave it.
    let (code, v) = result(o);
    if v["outcome"] == "already" {
        return no_input_path_other(app);
    }
    assert_eq!(v["outcome"], "refused", "{v:#}");
    assert_ne!(code, 0);
    let why = v["reason"].as_str().unwrap_or_default().to_string() + &v.to_string();
    assert!(why.contains("GNOME"), "names the desktop: {v:#}");
    assert!(
        !why.contains("toolkit refused"),
        "no toolkit was asked: {v:#}"
    );
    assert_eq!(v["dispatched"], false, "{v:#}");
    assert!(!checked(&read_back(pid, &v)), "nothing was sent");
    app.assert_alive("a refused write");
}

fn no_input_path_other(app: &mut MatrixApp) {
    let pid = app.pid;
    let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "atspi", "set", "check-box \"checkbutton\" #2"])
        .arg("--pid")
        .arg(pid.to_string())
        .args(["false", "--json"])
        .env_remove("SWAYSOCK")
        .env("XDG_CURRENT_DESKTOP", "GNOME")
        .output()
        .expect("run treeglass");
    let (_, v) = result(o);
    assert_eq!(v["outcome"], "refused", "{v:#}");
    assert!(v.to_string().contains("GNOME"), "{v:#}");
    assert!(checked(&read_back(pid, &v)), "nothing was sent");
}

/// Web content ignores the semantic text calls: typed through the virtual keyboard, into a
/// floating window away from the corner.
fn chromium(apps: &mut Apps) {
    let app = apps
        .chromium
        .get_or_insert_with(|| MatrixApp::start(Kit::Chromium));
    let pid = app.pid;
    for (target, text) in [
        ("text \"Full name:\"", "Ada Lovelace"),
        ("text \"Full name:\"", "Grace Hopper"),
        ("text \"Notes:\"", "line one\nline two"),
    ] {
        let (code, v) = result(app.treeglass(&["set", target, text, "--json"]));
        verified(code, &v, "keyboard");
        assert!(
            v["acks"]
                .to_string()
                .contains("via Wayland virtual keyboard (sway)"),
            "{v:#}"
        );
        assert_eq!(read_back(pid, &v)["text"], text, "replaced, not appended");
        app.assert_alive("a keyboard write");
    }
    app.assert_alive("writes on Wayland");
}

/// A Qt combo box is chosen from with keys, on the focused combo's open menu.
fn qt6(apps: &mut Apps) {
    let app = apps.qt6.get_or_insert_with(|| QtForm::start(6));
    for (now, label) in [("Red", "Dark Red"), ("Dark Red", "Green")] {
        let (code, v) =
            result(app.treeglass(&["set", &format!("combo-box \"{now}\""), label, "--json"]));
        verified(code, &v, "keyboard");
        assert_eq!(app.state()["colour"], label, "{v:#}");
    }
    let (code, v) = result(app.treeglass(&["set", "text \"Full name\"", "Ada", "--json"]));
    verified(code, &v, "semantic");
    assert_eq!(app.state()["full_name"], "Ada");
    app.assert_alive("Qt writes on Wayland");
}

/// Where treeglass says an element is on screen (`get --json`'s bounds) is where the app drew
/// it: a text field's border is found in a screenshot exactly on the bounds' top and left
/// edges (darker than the pixels 3 px outside and 3 px inside them). For each way a toolkit's
/// extents relate to its window: GTK 3's uneven shadow (floating) and none (tiled),
/// Chromium's even inset (tiled) and its uneven one (floating: no place given, and why), Qt's
/// decorated surface (floating away from the corner).
fn bounds_on_screen(apps: &mut Apps) {
    // No window floats over the ones measured.
    if let Some(g) = &apps.gtk4 {
        tile(g.pid);
    }
    let fixture = apps.fixture();
    let (pid, arg) = (fixture.pid, fixture.app_arg());
    float_at(pid, 301, 207);
    edges_hold("GTK 3 floating", &["--app", &arg], "text \"Full name\"");
    tile(pid);
    edges_hold("GTK 3 tiled", &["--app", &arg], "text \"Full name\"");
    let chromium = apps
        .chromium
        .get_or_insert_with(|| MatrixApp::start(Kit::Chromium));
    let pid = chromium.pid;
    edges_hold(
        "Chromium tiled",
        &["--pid", &pid.to_string()],
        "text \"Full name:\"",
    );
    // Floating, its shadow is deeper below than above: no place is guessed, and `get` says
    // why.
    float_at(pid, 160, 90);
    let v = json_of(&treeglass(&[
        "get",
        "text \"Full name:\"",
        "--pid",
        &pid.to_string(),
        "--json",
    ]));
    assert!(v["bounds"].is_null(), "{v:#}");
    let why = v["bounds_unknown"].as_str().unwrap_or_default();
    assert!(why.contains("not the same on every side"), "{v:#}");
    tile(pid);
    let qt = apps.qt6.get_or_insert_with(|| QtForm::start(6));
    let pid = qt.pid;
    float_at(pid, 250, 180);
    edges_hold(
        "Qt 6 floating",
        &["--pid", &pid.to_string()],
        "text \"Full name\"",
    );
    tile(pid);
}

/// Fails unless the field's border is on the top and left edges of its bounds, read again
/// (bounds and screenshot) for up to 5 s while the app redraws after a move.
fn edges_hold(what: &str, scope: &[&str], target: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match edges(what, scope, target) {
            Ok(()) => return,
            Err(e) if Instant::now() >= deadline => {
                let _ = std::fs::write(
                    format!(
                        "{}/edges-{}.ppm",
                        std::env::temp_dir().display(),
                        what.replace(' ', "-")
                    ),
                    screenshot_ppm(),
                );
                panic!("{e}");
            }
            Err(_) => std::thread::sleep(Duration::from_millis(250)),
        }
    }
}

fn edges(what: &str, scope: &[&str], target: &str) -> Result<(), String> {
    let mut args = vec!["get", target, "--json"];
    args.extend_from_slice(scope);
    let v = json_of(&treeglass(&args));
    let b = &v["bounds"];
    let n = |k: &str| {
        b[k].as_i64()
            .ok_or_else(|| format!("{what}: no bounds: {v:#}"))
    };
    let (x, y, w, h) = (n("x")?, n("y")?, n("width")?, n("height")?);
    let shot = screenshot();
    let lum = |p: [u8; 3]| i64::from(p[0]) + i64::from(p[1]) + i64::from(p[2]);
    // The darkest of the pixels at the edge and one either side (a 1 px border may fall on
    // either side of a fractional edge).
    let edge =
        |xs: [i64; 3], ys: [i64; 3]| (0..3).map(|i| lum(shot.pixel(xs[i], ys[i]))).min().unwrap();
    let (mx, my) = (x + w / 2, y + h / 2);
    let top = edge([mx, mx, mx], [y - 1, y, y + 1]);
    // Inside, the brightest of a short run along the edge: the field's background, between
    // the strokes of any text it holds.
    let brightest = |pts: Vec<(i64, i64)>| {
        pts.into_iter()
            .map(|(x, y)| lum(shot.pixel(x, y)))
            .max()
            .unwrap()
    };
    let top_in = brightest((-5..=5).map(|d| (mx + d, y + 4)).collect());
    let top_out = lum(shot.pixel(mx, y - 4));
    let left = edge([x - 1, x, x + 1], [my, my, my]);
    let left_in = brightest((-5..=5).map(|d| (x + 4, my + d)).collect());
    let left_out = lum(shot.pixel(x - 4, my));
    if top + 30 < top_out && top + 30 < top_in && left + 30 < left_out && left + 30 < left_in {
        Ok(())
    } else {
        Err(format!(
            "{what}: no border on the edges of ({x}, {y}, {w}×{h}): top {top} (outside \
             {top_out}, inside {top_in}), left {left} (outside {left_out}, inside {left_in})"
        ))
    }
}
