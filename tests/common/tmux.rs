//! A tmux server of a test's own, for running the TUI as a person would: type keys, read the
//! screen.

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of this test's own (a private socket), torn down on drop.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    pub fn new() -> Tmux {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Tmux {
            socket: format!("tg-e2e-{}-{n}", std::process::id()),
        }
    }

    pub fn run(&self, args: &[&str]) -> String {
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

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "tg"])
    }

    /// Waits until the screen shows `what` (polling the real screen; no fixed sleeps).
    pub fn wait_for(&self, what: &str, timeout: Duration) -> String {
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

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "tg"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "tg", "-l", text]);
    }
}

impl Tmux {
    /// Starts treeglass with `args` in a 160×48 pane.
    pub fn start(&self, args: &[&str]) {
        let mut cmd = format!("{} --backend atspi", env!("CARGO_BIN_EXE_treeglass"));
        for a in args {
            cmd.push_str(&format!(" '{a}'"));
        }
        self.start_shell(&cmd, 160, 48);
    }

    /// Runs the shell command line `cmd` in the pane `tg`, `cols` × `rows`.
    pub fn start_shell(&self, cmd: &str, cols: u16, rows: u16) {
        let (cols, rows) = (cols.to_string(), rows.to_string());
        self.run(&[
            "new-session",
            "-d",
            "-s",
            "tg",
            "-x",
            &cols,
            "-y",
            &rows,
            cmd,
        ]);
    }

    /// Whether the treeglass pane is still there (the session ends when treeglass exits).
    pub fn alive(&self) -> bool {
        Command::new("tmux")
            .args(["-L", &self.socket, "has-session", "-t", "tg"])
            .output()
            .is_ok_and(|o| o.status.success())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}
