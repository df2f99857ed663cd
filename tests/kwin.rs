//! KDE Plasma on Wayland, on a real compositor: a headless KWin (5.27 on Debian 12, 6.3 on
//! Debian 13, through scripts/test-trixie) with native Wayland apps — the GTK 3 fixture,
//! gtk4-widget-factory and Chromium (`--ozone-platform=wayland`) — each started once. Keys and
//! clicks through KWin's EIS where KWin offers it (6.1 and later), else its fake input, granted
//! to the binary under test by `treeglass kde-grant install` (never by turning KWin's permission
//! checks off); which one KWin offers is learnt from KWin itself (its D-Bus introspection), not
//! from treeglass. Windows found and raised through KWin's scripting. Every write is verified by treeglass and checked by an
//! independent pyatspi read; where a window is, and the highlight's overlay, are judged by a
//! KWin script of this test's own (its `print` lands in KWin's log), not by treeglass's.
//!
//! This binary brings its own session: outside one, it runs itself again inside `treeglass
//! session --wayland=kwin`, which, under root, runs the whole stack and this binary as an
//! unprivileged user (KWin grants its input by the client's executable, which it cannot see in
//! another user's process). `harness = false`: names on the command line filter the checks;
//! `--list` lists them.
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

mod common;

use std::panic::AssertUnwindSafe;
use std::process::Command;
use std::time::{Duration, Instant};

use common::matrix::{Kit, MatrixApp, QtForm, pyatspi_of, pyatspi_read};
use common::tmux::Tmux;
use common::wayland::{
    checked, fixture_semantic_writes, pyatspi_extents, qt6_combo_by_keyboard, result, verified,
};
use common::{FixtureApp, json_of, treeglass};
use serde_json::Value;

/// The checks, in the order they run (they share the apps).
const CHECKS: &[&str] = &[
    "grant_installed_and_honoured",
    "gtk3_fixture_semantic_writes",
    "gtk4_check_box_by_pointer_where_kwin_put_it",
    "no_grant_sends_nothing",
    "off_screen_click_refused",
    "chromium_textarea_by_keyboard",
    "qt6_combo_box_by_keyboard",
    "doctor_lists_kwins_windows",
    "highlight_held_over_the_element",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        for c in CHECKS {
            println!("{c}: test");
        }
        return;
    }
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
    let in_kwin = std::env::var("TREEGLASS_A11Y_SESSION").as_deref() == Ok("wayland")
        && std::env::var("XDG_CURRENT_DESKTOP").as_deref() == Ok("KDE");
    if !in_kwin {
        let exe = std::env::current_exe().expect("this test's own path");
        let status = Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(["session", "--wayland=kwin", "--"])
            .arg(exe)
            .args(&chosen)
            .status()
            .expect("start treeglass session --wayland=kwin");
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
    granted: bool,
}

impl Apps {
    fn gtk4(&mut self) -> &mut MatrixApp {
        self.grant();
        self.gtk4.get_or_insert_with(|| MatrixApp::start(Kit::Gtk4))
    }
    fn fixture(&mut self) -> &mut FixtureApp {
        self.fixture
            .get_or_insert_with(|| FixtureApp::start("kwin"))
    }
    /// treeglass's own grant, installed once (for the binary under test).
    fn grant(&mut self) {
        if !self.granted {
            let o = treeglass(&["kde-grant", "install"]);
            common::assert_ok(&o, "kde-grant install");
            self.granted = true;
        }
    }
}

fn run(chosen: &[&str]) -> i32 {
    println!("\nrunning {} checks on headless KWin", chosen.len());
    let mut apps = Apps::default();
    let mut failed = Vec::new();
    for name in chosen {
        let started = Instant::now();
        let r = std::panic::catch_unwind(AssertUnwindSafe(|| match *name {
            "grant_installed_and_honoured" => grant(&mut apps),
            "gtk3_fixture_semantic_writes" => gtk3_fixture_semantic_writes(&mut apps),
            "gtk4_check_box_by_pointer_where_kwin_put_it" => gtk4_pointer(&mut apps),
            "no_grant_sends_nothing" => no_grant(&mut apps),
            "off_screen_click_refused" => off_screen(&mut apps),
            "chromium_textarea_by_keyboard" => chromium(&mut apps),
            "qt6_combo_box_by_keyboard" => {
                apps.grant();
                let app = apps.qt6.get_or_insert_with(|| QtForm::start(6));
                qt6_combo_by_keyboard(app, &route("keyboard"));
            }
            "doctor_lists_kwins_windows" => doctor(&mut apps),
            "highlight_held_over_the_element" => highlight(&mut apps),
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

/// Runs `js` as a KWin script of this test's own, loaded with `dbus-send`; `out(value)` in it
/// prints the value, which is read back from KWin's log (its standard error, in the session
/// directory). Returns every value printed, in order.
fn kwin_script(js: &str) -> Vec<Value> {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::var("TREEGLASS_A11Y_SESSION_DIR").expect("inside the session");
    let marker = format!("tgtest{}x{n}", std::process::id());
    let path = format!("{dir}/{marker}.js");
    let script = format!(
        "function out(v) {{ print(\"{marker} \" + JSON.stringify(v)); }}\n{js}\nprint(\"{marker} end\");\n"
    );
    std::fs::write(&path, script).unwrap();
    let send = |args: &[&str]| -> String {
        let o = Command::new("dbus-send")
            .args(["--session", "--print-reply", "--dest=org.kde.KWin"])
            .args(args)
            .output()
            .expect("run dbus-send");
        assert!(
            o.status.success(),
            "dbus-send {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let loaded = send(&[
        "/Scripting",
        "org.kde.kwin.Scripting.loadScript",
        &format!("string:{path}"),
        &format!("string:{marker}"),
    ]);
    let id: i64 = loaded
        .split_whitespace()
        .skip_while(|w| *w != "int32")
        .nth(1)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("loadScript answered {loaded}"));
    // Plasma 6 names a script's object /Scripting/ScriptN, Plasma 5 /N.
    let plasma6 = Command::new("dbus-send")
        .args(["--session", "--print-reply", "--dest=org.kde.KWin"])
        .args([&format!("/Scripting/Script{id}"), "org.kde.kwin.Script.run"])
        .output()
        .expect("run dbus-send")
        .status
        .success();
    if !plasma6 {
        send(&[&format!("/{id}"), "org.kde.kwin.Script.run"]);
    }
    let log = format!("{dir}/kwin.log");
    let deadline = Instant::now() + Duration::from_secs(10);
    let prefix = format!("js: {marker} ");
    let values = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .collect();
        if lines.last() == Some(&"end") {
            break lines[..lines.len() - 1]
                .iter()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
        }
        assert!(
            Instant::now() < deadline,
            "KWin never ran the test's script"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    send(&[
        "/Scripting",
        "org.kde.kwin.Scripting.unloadScript",
        &format!("string:{marker}"),
    ]);
    let _ = std::fs::remove_file(&path);
    values
}

/// Every window KWin has (all kinds), as this test's own script reads them: pid, caption,
/// frame geometry, whether it is a normal window.
fn kwin_windows() -> Vec<Value> {
    kwin_script(
        r#"var all = workspace.windowList ? workspace.windowList() : workspace.clientList();
var active = ("activeWindow" in workspace) ? workspace.activeWindow : workspace.activeClient;
for (var i = 0; i < all.length; i++) {
    var c = all[i], g = c.frameGeometry;
    out({pid: c.pid, caption: String(c.caption), normal: c.normalWindow, active: active === c,
         x: g.x, y: g.y, width: g.width, height: g.height, layer: c.layer, rc: String(c.resourceClass)});
}"#,
    )
}

/// Moves the window of process `pid` so that its frame's corner is at (x, y), and waits until
/// KWin says it is there.
fn move_to(pid: u32, x: i64, y: i64) {
    kwin_script(&format!(
        r#"var all = workspace.windowList ? workspace.windowList() : workspace.clientList();
for (var i = 0; i < all.length; i++) {{
    var c = all[i];
    if (c.pid !== {pid}) continue;
    var g = c.frameGeometry;
    c.frameGeometry = {{x: {x}, y: {y}, width: g.width, height: g.height}};
}}"#
    ));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let w = kwin_windows();
        if w.iter()
            .any(|w| w["pid"] == pid && w["x"] == x && w["y"] == y)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "KWin never moved {pid} to {x},{y}: {w:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The app draws at its new place before it is read.
    std::thread::sleep(Duration::from_millis(300));
}

fn frame_of(pid: u32) -> (i64, i64) {
    let w = kwin_windows();
    let w = w
        .iter()
        .find(|w| w["pid"] == pid && w["normal"] == true)
        .unwrap_or_else(|| panic!("KWin shows no window of {pid}: {w:?}"));
    (w["x"].as_i64().unwrap(), w["y"].as_i64().unwrap())
}

/// Whether KWin offers EIS (6.1 and later), asked of KWin with `dbus-send`: keys and clicks go
/// through it then, with no grant; else through its fake input, with the grant.
fn kwin_has_eis() -> bool {
    let o = Command::new("dbus-send")
        .args(["--session", "--print-reply", "--dest=org.kde.KWin"])
        .args([
            "/org/kde/KWin/EIS/RemoteDesktop",
            "org.freedesktop.DBus.Introspectable.Introspect",
        ])
        .output()
        .expect("run dbus-send");
    o.status.success() && String::from_utf8_lossy(&o.stdout).contains("connectToEIS")
}

/// What the acks of a write name as its route here: KWin's EIS or its fake input.
fn route(device: &str) -> String {
    match kwin_has_eis() {
        true => format!("via KWin EIS {device}"),
        false => format!("via KWin fake input {device}"),
    }
}

// ---- the checks -------------------------------------------------------------------------

/// `kde-grant install` writes the grant, and KWin then offers its fake input to this binary
/// (and `status` says so); a copy of the binary at another path is offered nothing. Where KWin
/// offers EIS (6.1 and later), `status` says that EIS is the route and the grant not needed.
fn grant(apps: &mut Apps) {
    apps.grant();
    if kwin_has_eis() {
        let o = treeglass(&["kde-grant", "status"]);
        let out = common::stdout(&o);
        assert!(o.status.success(), "{out}");
        assert!(
            out.contains("the route that serves: KWin's EIS") && out.contains("not needed"),
            "{out}"
        );
        return;
    }
    // KWin notices a new .desktop file within a few seconds.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let o = treeglass(&["kde-grant", "status"]);
        let out = common::stdout(&o);
        if o.status.success() {
            assert!(out.contains("offers org_kde_kwin_fake_input"), "{out}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "KWin never honoured the grant: {out}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Reads, targets and semantic writes need no input path.
fn gtk3_fixture_semantic_writes(apps: &mut Apps) {
    let app = apps.fixture();
    fixture_semantic_writes(app);
    common::assert_answers(app.pid, "the GTK 3 fixture", "semantic writes on KWin");
}

/// GTK 4.8's check boxes have no action: a click at the centre through KWin's fake input,
/// with the window where KWin first put it, then moved away from the corner by this test's
/// own KWin script (where a position taken from the app alone would miss).
fn gtk4_pointer(apps: &mut Apps) {
    let app = apps.gtk4();
    let pid = app.pid;
    for (moved, target, want) in [
        (false, "check-box \"checkbutton\" #2", "true"),
        (true, "check-box \"checkbutton\" #2", "false"),
        (true, "check-box \"checkbutton\" #1", "false"),
        (true, "check-box \"checkbutton\" #1", "true"),
    ] {
        if moved && frame_of(pid) != (117, 63) {
            move_to(pid, 117, 63);
        }
        let (code, v) = result(app.treeglass(&["set", target, want, "--json"]));
        verified(code, &v, "pointer");
        let acks = v["acks"].to_string();
        assert!(acks.contains(&route("pointer")), "{acks}");
        assert_eq!(
            checked(&pyatspi_of(pid, &v)),
            want == "true",
            "moved {moved}: {target}"
        );
        app.assert_alive(&format!("a pointer write (moved {moved})"));
    }
}

/// A binary KWin has not granted its input to (a copy of treeglass at another path): a write
/// that needs the pointer is refused before anything is sent, says what to run, and the check
/// box is as it was. Where KWin offers EIS, which needs no grant, the copy's write goes through
/// it and is verified.
fn no_grant(apps: &mut Apps) {
    let app = apps.gtk4();
    let pid = app.pid;
    let dir = std::env::var("TREEGLASS_A11Y_SESSION_DIR").unwrap();
    let copy = format!("{dir}/treeglass-ungranted");
    std::fs::copy(env!("CARGO_BIN_EXE_treeglass"), &copy).unwrap();
    let target = "check-box \"checkbutton\" #2";
    let id = json_of(&app.treeglass(&["find", target, "--json"]))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = &id[id.find('/').unwrap()..];
    let was = checked(&pyatspi_read(pid, &[&id])[path]);
    let o = Command::new(&copy)
        .args(["--backend", "atspi", "set", target, &(!was).to_string()])
        .args(["--pid", &pid.to_string(), "--json"])
        .output()
        .expect("run the copy");
    let (code, v) = result(o);
    if kwin_has_eis() {
        verified(code, &v, "pointer");
        assert!(v["acks"].to_string().contains(&route("pointer")), "{v:#}");
        assert_eq!(checked(&pyatspi_read(pid, &[&id])[path]), !was);
        let _ = std::fs::remove_file(&copy);
        app.assert_alive("a write without the grant, through EIS");
        return;
    }
    assert_eq!(v["outcome"], "refused", "{v:#}");
    assert_ne!(code, 0);
    assert_eq!(v["dispatched"], false, "{v:#}");
    let all = v.to_string();
    assert!(all.contains("kde-grant install"), "says what to run: {v:#}");
    assert!(
        !all.contains("toolkit refused"),
        "no toolkit was asked: {v:#}"
    );
    assert_eq!(
        checked(&pyatspi_read(pid, &[&id])[path]),
        was,
        "nothing was sent"
    );
    let doctor = Command::new(&copy)
        .args(["--backend", "atspi", "doctor", "--json"])
        .output()
        .unwrap();
    let d = json_of(&doctor);
    let display = d["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "display")
        .cloned()
        .unwrap();
    assert_eq!(display["status"], "warn", "{display:#}");
    assert!(
        display.to_string().contains("kde-grant install"),
        "{display:#}"
    );
    let _ = std::fs::remove_file(&copy);
    app.assert_alive("a refused write");
}

/// A window moved off the screen (by this test's KWin script): a click at its check box would
/// land on the screen's edge, so it is refused before anything is sent, and the box is as it
/// was.
fn off_screen(apps: &mut Apps) {
    let app = apps.gtk4();
    let pid = app.pid;
    let target = "check-box \"checkbutton\" #2";
    let id = json_of(&app.treeglass(&["find", target, "--json"]))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let path = &id[id.find('/').unwrap()..];
    let was = checked(&pyatspi_read(pid, &[&id])[path]);
    move_to(pid, -1300, 63);
    let (code, v) = result(app.treeglass(&["set", target, &(!was).to_string(), "--json"]));
    assert_ne!(code, 0, "{v:#}");
    assert_ne!(v["outcome"], "verified", "{v:#}");
    assert_eq!(v["dispatched"], false, "{v:#}");
    let said = v.to_string();
    assert!(
        said.contains("outside every screen") || said.contains("outside every region"),
        "{v:#}"
    );
    assert_eq!(
        checked(&pyatspi_read(pid, &[&id])[path]),
        was,
        "nothing was clicked"
    );
    move_to(pid, 117, 63);
    app.assert_alive("an off-screen click refused");
}

/// Web content ignores the semantic text calls: typed through KWin's keyboard (EIS or fake
/// input).
fn chromium(apps: &mut Apps) {
    apps.grant();
    let app = apps
        .chromium
        .get_or_insert_with(|| MatrixApp::start(Kit::Chromium));
    let pid = app.pid;
    for (target, text) in [
        ("text \"Full name:\"", "Ada Lovelace"),
        ("text \"Notes:\"", "line one\nline two"),
        ("text \"Notes:\"", "The quick brown fox"),
    ] {
        let (code, v) = result(app.treeglass(&["set", target, text, "--json"]));
        verified(code, &v, "keyboard");
        assert!(v["acks"].to_string().contains(&route("keyboard")), "{v:#}");
        assert_eq!(pyatspi_of(pid, &v)["text"], text, "replaced, not appended");
        app.assert_alive("a keyboard write");
    }
    // A character KWin's US layout cannot type is refused before any key is sent.
    let (code, v) = result(app.treeglass(&["set", "text \"Full name:\"", "Zoë", "--json"]));
    assert_ne!(code, 0, "{v:#}");
    assert_eq!(v["dispatched"], false, "{v:#}");
    assert_eq!(
        pyatspi_of(pid, &v)["text"],
        "Ada Lovelace",
        "nothing was typed"
    );
    app.assert_alive("writes on KWin");
}

/// `doctor` on KWin: the desktop and its version, the input and highlight paths, every
/// window with its owner from KWin's list, and no app flagged that is on the bus.
fn doctor(apps: &mut Apps) {
    let fixture_pid = apps.fixture().pid;
    let gtk4_pid = apps.gtk4().pid;
    let v = json_of(&treeglass(&["doctor", "--json"]));
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
            .contains("from KWin's window list"),
        "{windows:#}"
    );
    let display = check("display");
    assert_eq!(display["status"], "ok", "{display:#}");
    let d = display["detail"].as_str().unwrap();
    let keys = format!("keys: {}", route("keyboard").trim_start_matches("via "));
    let clicks = format!("clicks: {}", route("pointer").trim_start_matches("via "));
    for want in [
        "KDE Plasma (KWin ",
        keys.as_str(),
        clicks.as_str(),
        "highlight: a layer-shell overlay",
    ] {
        assert!(d.contains(want), "{want:?} in {d}");
    }
    // Every window KWin lists (this test's own reading) is in the doctor's, by pid.
    let theirs: Vec<u32> = kwin_windows()
        .iter()
        .filter(|w| w["normal"] == true)
        .map(|w| w["pid"].as_u64().unwrap() as u32)
        .collect();
    for pid in [fixture_pid, gtk4_pid] {
        assert!(theirs.contains(&pid), "KWin lists {pid}: {theirs:?}");
        let app = v["apps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["pid"].as_u64() == Some(u64::from(pid)))
            .unwrap_or_else(|| panic!("doctor lists {pid}: {v:#}"));
        assert_eq!(app["status"], "ok", "{app:#}");
        assert!(
            app["window"]["id"].as_str().unwrap().starts_with("KWin "),
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

/// The TUI's highlight on a check box of the moved GTK 4 window: while it is held, KWin's own
/// list (this test's script) shows a window of the TUI's process framing the element's
/// rectangle (pyatspi's extents plus KWin's frame position); it goes when the TUI quits.
fn highlight(apps: &mut Apps) {
    let app = apps.gtk4();
    let pid = app.pid;
    move_to(pid, 117, 63);
    let (wx, wy) = frame_of(pid);
    let target = "check-box \"checkbutton\" #2";
    let found = json_of(&treeglass(&[
        "find",
        target,
        "--pid",
        &pid.to_string(),
        "--json",
    ]));
    assert_eq!(found["outcome"], "unique", "{found:#}");
    let id = found["id"].as_str().unwrap().to_string();
    let e = pyatspi_extents(pid, &id);
    let (ex, ey, ew, eh) = (e[0] + wx, e[1] + wy, e[2], e[3]);

    let tmux = Tmux::new();
    tmux.start(&["--pid", &pid.to_string()]);
    tmux.wait_for("GTK Widget Factory", Duration::from_secs(30));
    tmux.keys(&["/"]);
    tmux.type_text(target);
    tmux.wait_for("unique", Duration::from_secs(10));
    tmux.keys(&["Enter"]);
    tmux.keys(&["o"]);
    let s = tmux.wait_for("framed on screen (held", Duration::from_secs(10));
    assert!(!s.contains("highlight  none"), "{s}");
    // treeglass's overlay: windows of the class "treeglass" on KWin's overlay layer, the top
    // one (10 in KWin 5.27, 9 in 6.3: learnt from KWin's own list as the highest layer, above
    // the apps' normal one).
    let overlay =
        |w: &Value, top: i64| w["rc"] == "treeglass" && w["layer"].as_i64() == Some(top) && top > 2;
    let t = i64::from(treeglass::desktop::frame::THICKNESS);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let all = kwin_windows();
        let top = all
            .iter()
            .filter_map(|w| w["layer"].as_i64())
            .max()
            .unwrap_or(0);
        let strips: Vec<[i64; 4]> = all
            .iter()
            .filter(|w| overlay(w, top))
            .map(|w| ["x", "y", "width", "height"].map(|k| w[k].as_i64().unwrap()))
            .collect();
        // Together they are the element's rectangle grown by the frame's thickness, and none
        // covers the element's centre (clicks and the view go through).
        let union = strips.iter().fold(None::<[i64; 4]>, |u, r| {
            let (x1, y1) = (r[0] + r[2], r[1] + r[3]);
            Some(match u {
                None => [r[0], r[1], x1, y1],
                Some(u) => [u[0].min(r[0]), u[1].min(r[1]), u[2].max(x1), u[3].max(y1)],
            })
        });
        let (cx, cy) = (ex + ew / 2, ey + eh / 2);
        let covers = strips
            .iter()
            .any(|r| (r[0]..r[0] + r[2]).contains(&cx) && (r[1]..r[1] + r[3]).contains(&cy));
        if union == Some([ex - t, ey - t, ex + ew + t, ey + eh + t]) && !covers {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "KWin shows no overlay around ({ex}, {ey}, {ew}×{eh}): {strips:?} of {all:#?}\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    tmux.keys(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while kwin_windows().iter().any(|w| w["rc"] == "treeglass") {
        assert!(Instant::now() < deadline, "the overlay outlived the TUI");
        std::thread::sleep(Duration::from_millis(200));
    }
    app.assert_alive("the highlight");
}
