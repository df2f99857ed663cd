//! The TUI end to end on the real bus: treeglass runs in tmux against the project's GTK
//! fixture; the test filters to the text entry, sets a value, sees `verified` on screen, and
//! checks the app really holds the value.
#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;

/// A tmux server of this test's own (a private socket), torn down on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new() -> Tmux {
        Tmux {
            socket: format!("tg-e2e-{}", std::process::id()),
        }
    }

    fn run(&self, args: &[&str]) -> String {
        let o = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("run tmux (Debian package tmux)");
        assert!(
            o.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "tg"])
    }

    /// Waits until the screen shows `what` (polling the real screen; no fixed sleeps).
    fn wait_for(&self, what: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let s = self.screen();
            if s.contains(what) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {what:?}:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "tg"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "tg", "-l", text]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

#[test]
fn filter_set_and_see_verified_on_screen() {
    let mut app = FixtureApp::start("tui");
    let tmux = Tmux::new();
    let cmd = format!("{} --backend atspi", env!("CARGO_BIN_EXE_treeglass"));
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "tg",
        "-x",
        "160",
        "-y",
        "48",
        &cmd,
    ]);
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
