//! An app that is alive and on the bus but answers nothing (its main loop blocked): every
//! command says "not responding" within its bound — never "no such app", "closed", "gone" or
//! "exited" — a write is refused with nothing sent, the inspector keeps the last tree (greyed)
//! and recovers on its own when the app answers again. On the real bus, with the project's
//! GTK 3 fixture frozen on demand (`freeze SECONDS`).
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]

use crate::common;

use std::time::{Duration, Instant};

use common::tmux::Tmux;
use common::{FixtureApp, json_of, stdout, treeglass};

const WORDS_OF_DEATH: &[&str] = &["no application matches", "closed", "gone", "GONE", "exited"];

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Fails if `text` tells the user the app or its window went away.
fn assert_not_dead(text: &str, what: &str) {
    for w in WORDS_OF_DEATH {
        assert!(
            !text.contains(w),
            "{what} says {w:?} of a hung app:\n{text}"
        );
    }
}

/// Exit 8 with the app named by its process and the reason, nothing about it being gone.
fn assert_not_responding(o: &std::process::Output, what: &str, pid: u32) {
    let all = format!("{}{}", stdout(o), stderr(o));
    assert_eq!(o.status.code(), Some(8), "{what}: exit code\n{all}");
    assert!(
        all.contains("does not answer accessibility calls") && all.contains(&pid.to_string()),
        "{what} does not say the app (pid {pid}) does not answer:\n{all}"
    );
    assert_not_dead(&all, what);
}

/// Waits until the app answers a read again, then checks it is whole.
fn wait_thawed(app: &FixtureApp) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let o = treeglass(&["tree", "--app", &app.app_arg()]);
        if o.status.success() {
            assert!(stdout(&o).contains("text \"Full name\""), "{}", stdout(&o));
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the fixture never answered again: {}",
            stderr(&o)
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn a_hung_app_is_not_responding_everywhere_and_comes_back() {
    let _turn = common::turn::alone();
    let mut app = FixtureApp::start("hung");
    let arg = app.app_arg();
    let pid = app.pid.to_string();

    // The inspector is open on the app's window before it hangs.
    let tmux = Tmux::new();
    tmux.start(&["--app", &arg]);
    tmux.wait_for("text \"Full name\"", Duration::from_secs(20));

    // Long enough for every command below (each waits 1.5 s for an answer) and the
    // inspector's poll; the test waits for the thaw instead of guessing it.
    assert_eq!(app.cmd("freeze 25")["ok"], true);

    let o = treeglass(&["apps"]);
    common::assert_ok(&o, "apps");
    let line = stdout(&o)
        .lines()
        .find(|l| l.contains(&format!("pid {pid} ")))
        .unwrap_or_else(|| panic!("apps dropped the hung app:\n{}", stdout(&o)))
        .to_string();
    assert!(line.contains("not responding"), "{line}");
    assert!(
        line.contains("fixture_app.py"),
        "named by its process: {line}"
    );

    let o = treeglass(&["apps", "--json"]);
    let v = json_of(&o);
    let listed = v["apps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pid"].as_u64() == Some(app.pid as u64))
        .unwrap_or_else(|| panic!("apps --json dropped the hung app: {v}"));
    assert_eq!(listed["responding"], false, "{listed}");

    assert_not_responding(&treeglass(&["tree", "--app", &arg]), "tree --app", app.pid);
    assert_not_responding(&treeglass(&["tree", "--pid", &pid]), "tree --pid", app.pid);
    assert_not_responding(
        &treeglass(&["find", "--app", &arg, "text \"Full name\""]),
        "find",
        app.pid,
    );
    assert_not_responding(
        &treeglass(&["get", "--pid", &pid, "text \"Full name\""]),
        "get",
        app.pid,
    );
    let o = treeglass(&[
        "set",
        "--app",
        &arg,
        "text \"Full name\"",
        "written while hung",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(8), "set: {}", stderr(&o));
    let r = json_of(&o);
    assert_eq!(r["outcome"], "refused", "{r}");
    assert_eq!(r["dispatched"], false, "{r}");
    assert!(
        r["reason"]
            .as_str()
            .unwrap()
            .contains("does not answer accessibility calls"),
        "{r}"
    );
    assert_not_dead(&r.to_string(), "set --json");

    // The inspector kept the tree and says why it does not change.
    let screen = tmux.wait_for("not responding for", Duration::from_secs(20));
    assert!(
        screen.contains("text \"Full name\""),
        "tree kept:\n{screen}"
    );
    assert_not_dead(&screen, "the inspector");

    // The app comes back: everything works again, and nothing was written while it hung.
    wait_thawed(&app);
    assert_eq!(
        app.state()["full_name"],
        "",
        "a refused write changed the field"
    );
    let screen = tmux.wait_for("answers again", Duration::from_secs(20));
    assert!(!screen.contains("not responding"), "{screen}");
    assert!(screen.contains("text \"Full name\""), "{screen}");
    let o = treeglass(&["apps"]);
    assert!(
        stdout(&o).contains(&format!("\"{}\"  pid {pid} ", app.name)),
        "listed by its own name again:\n{}",
        stdout(&o)
    );
    tmux.keys(&["q"]);
}
