//! The TUI stopped by SIGHUP, SIGINT or SIGTERM: it leaves the alternate screen, shows the
//! cursor, turns mouse tracking off, puts the terminal back in cooked mode and exits with
//! 128 + the signal's number. Runs treeglass in tmux (Debian package tmux) on the built-in demo.
#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of this test's own (a private socket), torn down on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(tag: &str) -> Tmux {
        Tmux {
            socket: format!("tg-sig-{tag}-{}", std::process::id()),
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
        String::from_utf8_lossy(&o.stdout).trim_end().to_string()
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "tg"])
    }

    fn flags(&self) -> String {
        self.run(&[
            "display",
            "-p",
            "-t",
            "tg",
            "alternate=#{alternate_on} cursor=#{cursor_flag} mouse=#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}#{mouse_sgr_flag}",
        ])
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
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// The pid of the shell's one child (treeglass) in the pane, from /proc (no procps needed).
fn treeglass_pid(tmux: &Tmux) -> String {
    let shell = tmux.run(&["display", "-p", "-t", "tg", "#{pane_pid}"]);
    let children: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let pid = e.ok()?.file_name().to_string_lossy().into_owned();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // pid (comm) state ppid …: comm may hold spaces, so split after its ')'.
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .to_string();
            (ppid == shell).then_some(pid)
        })
        .collect();
    assert_eq!(children.len(), 1, "children of {shell}: {children:?}");
    children[0].clone()
}

fn stopped_by(signal: &str, number: i32) {
    let tmux = Tmux::new(signal);
    // After treeglass: its exit status, the tty's canonical-mode flag, then a process that
    // keeps the pane (and its modes) to look at.
    let cmd = format!(
        "{} --backend fixture; echo \"exit=$?\"; stty -a | grep -o -- '-*icanon'; exec cat",
        env!("CARGO_BIN_EXE_treeglass")
    );
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "tg",
        "-x",
        "140",
        "-y",
        "40",
        &cmd,
    ]);
    tmux.wait_for("\"Full name\"", Duration::from_secs(20));
    let before = tmux.flags();
    assert!(
        before.contains("alternate=1") && before.contains("cursor=0") && !before.ends_with("0000"),
        "the TUI should own the terminal: {before}"
    );
    let kill = Command::new("sh")
        .args(["-c", &format!("kill -{signal} {}", treeglass_pid(&tmux))])
        .status()
        .unwrap();
    assert!(kill.success());
    // The stty line comes last: once it shows, everything before it has.
    let screen = tmux.wait_for("icanon", Duration::from_secs(10));
    assert!(
        screen.contains(&format!("exit={}", 128 + number)),
        "{signal}: {screen}"
    );
    assert!(
        screen.contains(&format!("stopped by SIG{signal}")),
        "{signal}: {screen}"
    );
    let canon = screen
        .lines()
        .find(|l| l.trim_end().ends_with("icanon"))
        .unwrap_or_default();
    assert_eq!(canon.trim(), "icanon", "raw mode left on: {screen}");
    let after = tmux.flags();
    assert_eq!(
        after, "alternate=0 cursor=1 mouse=0000",
        "{signal} left the terminal changed"
    );
}

#[test]
fn sighup_restores_the_terminal_and_exits_129() {
    stopped_by("HUP", 1);
}

#[test]
fn sigint_restores_the_terminal_and_exits_130() {
    stopped_by("INT", 2);
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    stopped_by("TERM", 15);
}
