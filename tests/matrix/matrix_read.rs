//! Do no harm, on every toolkit: each app of the matrix (GTK 3, GTK 4, Qt 5, Qt 6, Chromium) is
//! read with every read-only command treeglass has, compared with an independent pyatspi walk,
//! and checked to be alive and still registered after each step; finally it is killed in the
//! middle of a read, which must end in the distinct "application exited" error.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::matrix::{Gtk4Targets, Kit, MatrixApp, compare_with_pyatspi};
use common::*;

/// A target that names exactly one element of each app, with what `get` must show of it.
fn known_element(app: &MatrixApp) -> (String, String) {
    let (target, shown) = match app.kit {
        Kit::Gtk3 => ("toggle-button \"Menu\"", "toggle-button \"Menu\""),
        // GTK 4.8 never sets `enabled`: the first enabled spin button (page 1's, at 50) is
        // found only if it is normalised from `sensitive`. Its target is treeglass's own
        // suggestion: GTK 4.8 names it after its class, 4.18 not at all, and whether the
        // spin buttons of the pages not shown are on the bus yet varies from run to run.
        Kit::Gtk4 => return (Gtk4Targets::learn(app).spin, "= 50".to_string()),
        Kit::Qt5 => (
            "check-box \"Tri-state check box\"",
            "check-box \"Tri-state check box\" = mixed",
        ),
        Kit::Qt6 => ("button \"PushButton\"", "button \"PushButton\""),
        Kit::Chromium | Kit::Firefox => ("text \"Full name:\"", "text \"Full name:\" = \"\""),
        Kit::BigPage | Kit::FirefoxBigPage => (
            "check-box \"Row 1500 done\"",
            "check-box \"Row 1500 done\" = off",
        ),
        Kit::Calc | Kit::Writer => unreachable!("the office apps have tests/matrix/office.rs"),
    };
    (target.to_string(), shown.to_string())
}

/// Every read-only command on one app, the app checked after each.
fn reads_do_no_harm(kit: Kit) {
    let _turn = common::turn::shared();
    let mut app = MatrixApp::start(kit);
    app.assert_alive("start");

    let o = app.treeglass(&["tree", "--json"]);
    assert_ok(&o, "tree --json");
    let tree = json_of(&o);
    assert_eq!(
        tree["complete"],
        true,
        "{}: {}",
        kit.label(),
        tree["truncated"]
    );
    app.assert_alive("tree --json");

    // The tree may only be compared while it holds still: read both again until they agree
    // with a fresh treeglass read taken right before the walk.
    let mut attempts = 0;
    loop {
        let o = app.treeglass(&["tree", "--json"]);
        assert_ok(&o, "tree --json");
        let ours = json_of(&o);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compare_with_pyatspi(&app, &ours)
        }));
        attempts += 1;
        match r {
            Ok(()) => break,
            Err(e) if attempts >= 3 => std::panic::resume_unwind(e),
            Err(_) => {}
        }
    }
    app.assert_alive("tree --json and a pyatspi walk");

    let o = app.treeglass(&["tree", "--json", "--actions"]);
    assert_ok(&o, "tree --json --actions");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        !text.contains("\";;\""),
        "action names must be the non-localized ones: {}",
        kit.label()
    );
    let v = json_of(&o);
    let mut any_actions = false;
    let mut stack = vec![&v["root"]];
    while let Some(n) = stack.pop() {
        if let Some(a) = n["actions"].as_array() {
            any_actions |= !a.is_empty();
            for name in a {
                let name = name.as_str().unwrap();
                assert!(
                    !name.trim().is_empty() && name != ";;",
                    "bad action name {name:?}"
                );
            }
        }
        stack.extend(n["children"].as_array().into_iter().flatten());
    }
    assert!(any_actions, "{}: no action names read", kit.label());
    app.assert_alive("tree --json --actions");

    let o = app.treeglass(&["tree", "--targets"]);
    assert_ok(&o, "tree --targets");
    app.assert_alive("tree --targets");

    let o = app.treeglass(&["tree"]);
    assert_ok(&o, "tree");
    app.assert_alive("tree (text)");

    let (target, shown) = known_element(&app);
    let (target, shown) = (target.as_str(), shown.as_str());
    let o = app.treeglass(&["find", target]);
    assert_ok(&o, "find");
    assert!(stdout(&o).starts_with("unique"), "{}", stdout(&o));
    app.assert_alive("find");

    let o = app.treeglass(&["get", target]);
    assert_ok(&o, "get");
    assert!(stdout(&o).contains(shown), "get {target}: {}", stdout(&o));
    app.assert_alive("get");

    let o = app.treeglass(&["get", target, "--json"]);
    assert_ok(&o, "get --json");
    let v = json_of(&o);
    assert!(
        v["actions"].is_array(),
        "get reads the element's actions: {v}"
    );
    app.assert_alive("get --json");

    let o = treeglass(&["doctor", "--json"]);
    let v = json_of(&o);
    let me = v["apps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pid"].as_u64() == Some(app.pid as u64))
        .unwrap_or_else(|| panic!("doctor does not list {}: {v}", kit.label()));
    assert_eq!(me["registered"], true, "{me}");
    assert_eq!(me["status"], "ok", "{}: {me}", kit.label());
    app.assert_alive("doctor");

    kill_mid_read(app);
}

/// Freezes the app as soon as treeglass's read of it has started, kills it, and expects the
/// distinct app-gone error (exit 6) in bounded time, without a panic. A read that finished
/// before the freeze landed (small, fast apps) is retried.
fn kill_mid_read(mut app: MatrixApp) {
    let kit = app.kit;
    for attempt in 0..30 {
        let log = std::env::temp_dir().join(format!(
            "tg-kill-{}-{}-{attempt}.log",
            std::process::id(),
            next_id()
        ));
        let _ = std::fs::remove_file(&log);
        let mut child = Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(["--backend", "atspi", "--log"])
            .arg(&log)
            .args(["tree", "--json", "--pid", &app.pid.to_string()])
            .env("TREEGLASS_LOG_LEVEL", "debug")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run treeglass");
        // Wait for the read to start (the log says so), then freeze the app at once.
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut frozen = false;
        while Instant::now() < deadline {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains("read started") {
                app.signal("STOP");
                frozen = true;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        if frozen {
            // Replies the app sent before it froze may still be in flight: let them land, so
            // a read they completed is seen as finished (and retried) rather than killed.
            std::thread::sleep(Duration::from_millis(100));
        }
        let finished_first = child.try_wait().unwrap().is_some()
            || std::fs::read_to_string(&log)
                .unwrap_or_default()
                .contains("read finished");
        if !frozen || finished_first {
            if frozen {
                app.signal("CONT");
            }
            let _ = child.wait();
            continue;
        }
        // Mid-read, with the app frozen: kill it.
        app.signal("KILL");
        let status = app.wait_exit();
        assert!(!status.success(), "{status}");
        let started = Instant::now();
        let code = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s.code();
            }
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "{}: treeglass did not end after the app was killed mid-read",
                kit.label()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(
            code,
            Some(6),
            "{}: exit {code:?}, stderr: {err}",
            kit.label()
        );
        assert!(
            err.contains("exited or dropped its accessibility connection during the read"),
            "{}: {err}",
            kit.label()
        );
        assert!(!err.contains("panicked"), "{err}");
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            log_text.contains("left the accessibility bus")
                || log_text.contains("app_gone")
                || log_text.contains("exited"),
            "the log says why: {log_text}"
        );
        let _ = std::fs::remove_file(&log);
        return;
    }
    panic!(
        "{}: never caught a read in progress in 30 attempts",
        kit.label()
    );
}

#[test]
fn gtk3_reads_do_no_harm() {
    reads_do_no_harm(Kit::Gtk3);
}

#[test]
fn gtk4_reads_do_no_harm() {
    reads_do_no_harm(Kit::Gtk4);
}

#[test]
fn qt5_reads_do_no_harm() {
    reads_do_no_harm(Kit::Qt5);
}

#[test]
fn qt6_reads_do_no_harm() {
    reads_do_no_harm(Kit::Qt6);
}

#[test]
fn chromium_reads_do_no_harm() {
    reads_do_no_harm(Kit::Chromium);
}

#[test]
fn firefox_reads_do_no_harm() {
    reads_do_no_harm(Kit::Firefox);
}
