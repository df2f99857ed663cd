//! The project's lying AT-SPI app (`tests/liar_app.py`: no toolkit, straight on D-Bus), driven
//! through its stdin protocol: lies switched on and off while it runs, its real state and the
//! calls it received as the oracle.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

pub struct Liar {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    pub pid: u32,
    pub bus: String,
}

impl Liar {
    /// Starts the app with these lies on, and waits until it has registered.
    pub fn start(lies: &[&str]) -> Liar {
        Liar::start_with(lies, &[])
    }

    /// The same, with its frame also a real X11 window that records the clicks it gets
    /// (`--window`; `clicks`).
    pub fn start_windowed(lies: &[&str]) -> Liar {
        Liar::start_with(lies, &["--window"])
    }

    fn start_with(lies: &[&str], flags: &[&str]) -> Liar {
        super::require_stack();
        let name = format!("liar-{}-{}", std::process::id(), super::next_id());
        let mut cmd = Command::new("/usr/bin/python3");
        cmd.arg(format!("{}/tests/liar_app.py", super::repo()))
            .args(["--name", &name])
            .args(flags);
        for l in lies {
            cmd.args(["--lie", l]);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start tests/liar_app.py (python3-gi)");
        let stdin = child.stdin.take().expect("stdin");
        let out = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let ready: Value = serde_json::from_str(
            &rx.recv_timeout(Duration::from_secs(30))
                .expect("the liar app did not say it was ready"),
        )
        .expect("ready JSON");
        assert_eq!(ready["ready"], true, "{ready}");
        Liar {
            pid: ready["pid"].as_u64().expect("pid") as u32,
            bus: ready["bus"].as_str().expect("bus").to_string(),
            child,
            stdin,
            lines: rx,
        }
    }

    /// One command of the protocol and its answer.
    pub fn cmd(&mut self, line: &str) -> Value {
        writeln!(self.stdin, "{line}").expect("write to the liar app");
        self.stdin.flush().expect("flush");
        let l = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the liar app did not answer {line:?}"));
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("bad answer {l:?}: {e}"))
    }

    /// Every lie off, then these on.
    pub fn only(&mut self, lies: &[&str]) {
        let v = self.cmd("lie none");
        assert_eq!(v["ok"], true, "{v}");
        for l in lies {
            let v = self.cmd(&format!("lie {l}"));
            assert_eq!(v["ok"], true, "lie {l}: {v}");
        }
    }

    pub fn state(&mut self) -> Value {
        self.cmd("state")
    }

    /// The calls received since the last reset, by method.
    pub fn calls(&mut self) -> Value {
        self.cmd("calls")
    }

    /// `--pid N` for a treeglass command.
    pub fn pid_arg(&self) -> String {
        self.pid.to_string()
    }
}

impl Drop for Liar {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(40));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
