//! `treeglass doctor` on a desktop like a user's, on the real bus: Firefox ESR and Chromium on
//! local pages, the project's GTK 3 fixture and a windowless GTK service (registered, one
//! node, like a portal) → exit 0 and no warning, though the browsers run content processes and
//! crash handlers that are not on the bus. Then one app with a real window that hides its tree
//! (gtk3-widget-factory with `NO_AT_BRIDGE=1`) → exactly that one flagged, with its window,
//! exit 7. Then the fixture stopped (it owns its bus name and answers nothing) → its line says
//! it is not responding, never that it exited. Every app is started once and checked alive and
//! answering after each step. No timing is asserted.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::matrix::{Kit, MatrixApp};
use common::*;
use serde_json::Value;

/// `doctor`'s exit code, text and JSON.
fn doctor() -> (Option<i32>, String, Value) {
    let text = treeglass(&["doctor"]);
    let json = treeglass(&["doctor", "--json"]);
    assert_eq!(
        text.status.code(),
        json.status.code(),
        "doctor and doctor --json disagree:\n{}",
        stdout(&text)
    );
    (text.status.code(), stdout(&text), json_of(&json))
}

/// The report's lines that are problems (`warn` or `fail`): checks and apps.
fn problems(v: &Value) -> Vec<Value> {
    let bad = |x: &&Value| x["status"] == "warn" || x["status"] == "fail";
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["apps"].as_array().unwrap())
        .filter(bad)
        .cloned()
        .collect()
}

/// The doctor's line for the process `pid`.
fn line_of(v: &Value, pid: u32) -> Option<Value> {
    v["apps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pid"].as_u64() == Some(pid as u64))
        .cloned()
}

/// A child process killed on drop.
struct Owned {
    child: Child,
    what: &'static str,
}

impl Owned {
    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn assert_running(&mut self, after: &str) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("{} DIED after {after}: {status}", self.what);
        }
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A GTK 3 process with no window at all, like a portal: it registers, and its tree is its
/// application node.
fn start_windowless_service() -> Owned {
    let child = Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(
            "import gi\n\
             gi.require_version('Gtk', '3.0')\n\
             from gi.repository import GLib, Gtk\n\
             GLib.set_prgname('tg-windowless-service')\n\
             Gtk.init()\n\
             Gtk.main()\n",
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start a windowless GTK service (/usr/bin/python3 with python3-gi)");
    let service = Owned {
        child,
        what: "the windowless service",
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while registered_app(service.pid()).is_none() {
        assert!(
            Instant::now() < deadline,
            "the windowless GTK service never registered"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    service
}

/// gtk3-widget-factory with its accessibility bridge turned off: a real window, no tree.
fn start_hidden_app() -> Owned {
    let child = Command::new("gtk3-widget-factory")
        .env("NO_AT_BRIDGE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gtk3-widget-factory (Debian package gtk-3-examples)");
    Owned {
        child,
        what: "gtk3-widget-factory (NO_AT_BRIDGE=1)",
    }
}

#[test]
fn the_doctor_flags_only_the_app_that_hides_its_tree() {
    let _turn = common::turn::alone();
    require_stack();
    let mut firefox = MatrixApp::start(Kit::FirefoxBigPage);
    let mut chromium = MatrixApp::start(Kit::Chromium);
    let mut fixture = FixtureApp::start("doctor");
    let mut service = start_windowless_service();
    let check_all = |firefox: &mut MatrixApp,
                     chromium: &mut MatrixApp,
                     fixture: &mut FixtureApp,
                     service: &mut Owned,
                     after: &str| {
        firefox.assert_alive(after);
        chromium.assert_alive(after);
        assert!(fixture.state()["title"].is_string(), "fixture state");
        assert_answers(fixture.pid, "the fixture", after);
        service.assert_running(after);
        assert_answers(service.pid(), "the windowless service", after);
    };
    check_all(
        &mut firefox,
        &mut chromium,
        &mut fixture,
        &mut service,
        "starting",
    );

    // 1. A healthy desktop: nothing to report, though the browsers' helpers are off the bus.
    let (code, text, v) = doctor();
    assert_eq!(code, Some(0), "a healthy desktop:\n{text}");
    assert!(
        !text.contains("[warn]") && !text.contains("[FAIL]"),
        "{text}"
    );
    assert!(text.ends_with("all well\n"), "{text}");
    assert_eq!(v["healthy"], true, "{v:#}");
    assert!(problems(&v).is_empty(), "{:#}", Value::from(problems(&v)));
    let windows = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "windows")
        .cloned()
        .unwrap_or_else(|| panic!("no windows check: {v:#}"));
    assert_eq!(windows["status"], "ok", "{windows}");
    for (pid, what) in [
        (firefox.pid, "Firefox"),
        (chromium.pid, "Chromium"),
        (fixture.pid, "the fixture"),
    ] {
        let line = line_of(&v, pid).unwrap_or_else(|| panic!("{what} not listed: {v:#}"));
        assert_eq!(line["registered"], true, "{what}: {line}");
        assert_eq!(line["status"], "ok", "{what}: {line}");
        assert!(
            line["window"]["id"]
                .as_str()
                .is_some_and(|w| w.starts_with("0x")),
            "{what}'s window: {line}"
        );
    }
    // The service: one node, no window, and that is no problem.
    let line = line_of(&v, service.pid()).unwrap_or_else(|| panic!("service not listed: {v:#}"));
    assert_eq!(line["status"], "ok", "{line}");
    assert!(line["nodes"].as_u64().unwrap() <= 4, "{line}");
    assert!(line.get("window").is_none(), "{line}");
    // Only registered apps are listed: no browser helper process appears at all.
    for a in v["apps"].as_array().unwrap() {
        assert_eq!(a["registered"], true, "{a}");
    }
    check_all(
        &mut firefox,
        &mut chromium,
        &mut fixture,
        &mut service,
        "doctor on a healthy desktop",
    );

    // 2. One app with a window hides its tree: that one, and only that one, is flagged.
    let mut hidden = start_hidden_app();
    // Its window is mapped a moment after it starts; until then it is nobody's problem.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        hidden.assert_running("starting");
        let v = json_of(&treeglass(&["doctor", "--json"]));
        if line_of(&v, hidden.pid()).is_some() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the hidden app never appeared in the report: {v:#}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let (code, text, v) = doctor();
    assert_eq!(code, Some(7), "one hidden app:\n{text}");
    let found = problems(&v);
    assert_eq!(found.len(), 1, "exactly one problem:\n{text}");
    let line = &found[0];
    assert_eq!(line["pid"].as_u64(), Some(hidden.pid() as u64), "{text}");
    assert_eq!(line["registered"], false, "{line}");
    assert_eq!(line["toolkit"], "gtk3", "{line}");
    assert!(
        line["window"]["id"]
            .as_str()
            .is_some_and(|w| w.starts_with("0x")),
        "the window that makes it an app: {line}"
    );
    assert!(
        line["hint"]
            .as_str()
            .is_some_and(|h| h.contains("NO_AT_BRIDGE=1")),
        "{line}"
    );
    assert!(
        text.contains("NOT on the accessibility bus (window 0x"),
        "{text}"
    );
    check_all(
        &mut firefox,
        &mut chromium,
        &mut fixture,
        &mut service,
        "doctor with a hidden app",
    );
    hidden.assert_running("doctor");

    // 3. The fixture stops answering (stopped: it still owns its bus name): not responding.
    fixture.signal("STOP");
    let (code, text, v) = doctor();
    fixture.signal("CONT");
    assert_eq!(code, Some(7), "a stopped app:\n{text}");
    let line = line_of(&v, fixture.pid).unwrap_or_else(|| panic!("fixture not listed:\n{text}"));
    assert_eq!(line["registered"], true, "{line}");
    assert_eq!(line["responding"], false, "{line}");
    let hint = line["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("does not answer accessibility calls") && hint.contains("busy or hung"),
        "{line}"
    );
    let fixture_line = text
        .lines()
        .skip_while(|l| !l.contains(&format!("pid {} ", fixture.pid)))
        .take(2)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(fixture_line.contains("NOT RESPONDING"), "{text}");
    for dead in ["exited", "left the", "gone", "NOT on the accessibility bus"] {
        assert!(!fixture_line.contains(dead), "{dead:?}:\n{fixture_line}");
    }
    // Nothing else changed: the hidden app and the fixture are the only problems.
    let mut pids: Vec<u64> = problems(&v)
        .iter()
        .filter_map(|p| p["pid"].as_u64())
        .collect();
    pids.sort_unstable();
    let mut want = vec![fixture.pid as u64, hidden.pid() as u64];
    want.sort_unstable();
    assert_eq!(pids, want, "{text}");
    check_all(
        &mut firefox,
        &mut chromium,
        &mut fixture,
        &mut service,
        "doctor with a stopped app",
    );
    hidden.assert_running("doctor");

    // 4. The hidden app gone and the fixture answering again: all well once more.
    drop(hidden);
    let (code, text, _) = doctor();
    assert_eq!(code, Some(0), "after the hidden app closed:\n{text}");
    check_all(
        &mut firefox,
        &mut chromium,
        &mut fixture,
        &mut service,
        "the last doctor",
    );
}
