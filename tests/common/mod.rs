//! Shared helpers for tests on the real accessibility bus: the harness check, the project's
//! GTK fixture app (with its stdin control protocol as an oracle that is not the a11y tree),
//! and running the treeglass binary.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Fails loudly unless the test runs inside `scripts/a11y-session` (which `scripts/test` does),
/// on X11 or, with `--wayland`, on sway.
pub fn require_stack() {
    if !matches!(
        std::env::var("TREEGLASS_A11Y_SESSION").as_deref(),
        Ok("1" | "wayland")
    ) {
        panic!(
            "this test needs the real accessibility stack: run it inside scripts/a11y-session \
             (scripts/test does that); refusing to skip"
        );
    }
}

/// Whether the test runs on the Wayland session (`scripts/a11y-session --wayland`): apps are
/// started as native Wayland clients there.
pub fn on_wayland() -> bool {
    std::env::var("TREEGLASS_A11Y_SESSION").as_deref() == Ok("wayland")
}

pub fn repo() -> &'static str {
    env!("CARGO_MANIFEST_DIR")
}

/// Runs the treeglass binary with `args`; the AT-SPI backend is forced so a missing bus fails.
pub fn treeglass(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .arg("--backend")
        .arg("atspi")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run treeglass")
}

/// Fails with the command's exit code and both outputs unless it succeeded.
pub fn assert_ok(o: &Output, what: &str) {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "treeglass did not print JSON ({e}); exit {:?}\nstdout: {}\nstderr: {}",
            o.status.code(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// The entry `treeglass apps --json` lists for the app with this pid, if it is registered on
/// the accessibility bus.
pub fn registered_app(pid: u32) -> Option<Value> {
    let v = json_of(&treeglass(&["apps", "--json"]));
    v["apps"]
        .as_array()
        .expect("apps JSON has an apps array")
        .iter()
        .find(|a| a["pid"].as_u64() == Some(pid as u64))
        .cloned()
}

/// Waits up to 20 s until `tree --app APP` reads more than `min` nodes three times in a row
/// with the same count; `Err` with the last count when it never does.
pub fn settled(app: &str, min: u64) -> Result<(), u64> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let (mut last, mut same) = (0u64, 0);
    while Instant::now() < deadline {
        let o = treeglass(&["tree", "--app", app, "--json"]);
        if o.status.success() {
            let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
            let count = v["node_count"].as_u64().unwrap_or(0);
            if count > min && count == last {
                same += 1;
                if same >= 2 {
                    return Ok(());
                }
            } else {
                same = 0;
            }
            last = count;
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    Err(last)
}

/// Panics unless the app with this pid (`what` in messages) is registered on the bus and
/// answers a plain call from an independent client within 2 s, after `after`: registered is
/// not enough, a hung app stays registered.
pub fn assert_answers(pid: u32, what: &str, after: &str) {
    let o = treeglass(&["apps", "--json"]);
    assert!(
        o.status.success(),
        "apps failed after {after}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).expect("apps JSON");
    let Some(app) = v["apps"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["pid"].as_u64() == Some(pid as u64)))
    else {
        panic!("{what} (pid {pid}) is no longer registered on the accessibility bus after {after}");
    };
    let bus = app["bus_name"].as_str().expect("bus_name");
    let o = Command::new("/usr/bin/python3")
        .arg(format!("{}/scripts/app-answers.py", repo()))
        .args([bus, "2000"])
        .output()
        .expect("run scripts/app-answers.py");
    assert!(
        o.status.success(),
        "{what} (pid {pid}) does not ANSWER within 2 s after {after} (an inspector must never \
         hang the app): {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

pub mod liar;
pub mod matrix;
pub mod mcp;
pub mod tmux;
pub mod turn;
pub mod wayland;
pub mod xclip;
pub mod xml;

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A number not handed out before in this test process (for unique names and paths).
pub fn next_id() -> u32 {
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

/// The project's GTK3 fixture app, driven through its stdin protocol.
pub struct FixtureApp {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    pub name: String,
    pub pid: u32,
}

impl FixtureApp {
    /// Starts a fixture app with a unique name and waits until its tree is on the bus and settled.
    pub fn start(tag: &str) -> FixtureApp {
        require_stack();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("tgfix-{tag}-{}-{n}", std::process::id());
        let mut child = Command::new("/usr/bin/python3")
            .arg(format!("{}/tests/fixture_app.py", repo()))
            .arg("--name")
            .arg(&name)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the GTK fixture app (/usr/bin/python3 with python3-gi)");
        let stdin = child.stdin.take().expect("stdin");
        let out: ChildStdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut app = FixtureApp {
            pid: child.id(),
            child,
            stdin,
            lines: rx,
            name,
        };
        let ready = app.read_line(Duration::from_secs(20));
        assert!(
            ready.contains("\"ready\""),
            "fixture app did not get ready: {ready}"
        );
        app.wait_settled();
        app
    }

    fn read_line(&mut self, timeout: Duration) -> String {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => l,
            Err(_) => panic!(
                "fixture app {} said nothing within {timeout:?} (exit: {:?})",
                self.name,
                self.child.try_wait()
            ),
        }
    }

    /// Sends one protocol command and returns its JSON reply.
    pub fn cmd(&mut self, line: &str) -> Value {
        writeln!(self.stdin, "{line}").expect("write to fixture app");
        self.stdin.flush().expect("flush");
        let reply = self.read_line(Duration::from_secs(10));
        serde_json::from_str(&reply).unwrap_or_else(|e| panic!("bad reply {reply:?}: {e}"))
    }

    /// The app's real state (the oracle).
    pub fn state(&mut self) -> Value {
        self.cmd("state")
    }

    /// Waits until treeglass sees the app and its node count holds still.
    pub fn wait_settled(&self) {
        if let Err(last) = settled(&self.app_arg(), 1) {
            panic!(
                "fixture app {} never appeared (or never settled) on the bus (last count {last})",
                self.name
            );
        }
    }

    /// `--app` pattern matching exactly this app.
    pub fn app_arg(&self) -> String {
        format!("^{}$", self.name)
    }

    /// Sends a signal to the app.
    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.pid.to_string())
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{sig} {}", self.pid);
    }

    /// Waits for the app to exit (after a kill).
    pub fn wait_exit(&mut self) {
        let _ = self.child.wait();
    }
}

impl Drop for FixtureApp {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-CONT")
            .arg(self.pid.to_string())
            .status();
        quit_child(&mut self.stdin, &mut self.child);
    }
}

/// Stops an app that takes `quit` on its stdin (the project's own apps): asks, waits up to
/// 3 s, then kills it.
pub fn quit_child(stdin: &mut ChildStdin, child: &mut Child) {
    let _ = writeln!(stdin, "quit");
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Starts `gtk3-widget-factory` (a GtkApplication: one instance per bus) and waits until its
/// tree has settled. Returns the child; the caller kills it.
pub fn start_widget_factory() -> Child {
    require_stack();
    let mut child = Command::new("gtk3-widget-factory")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gtk3-widget-factory (Debian package gtk-3-examples)");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = 0u64;
    let mut same = 0;
    while Instant::now() < deadline {
        let o = treeglass(&["tree", "--app", "^gtk3-widget-factory$", "--json"]);
        if o.status.success() {
            let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
            let count = v["node_count"].as_u64().unwrap_or(0);
            if count > 50 && count == last {
                same += 1;
                if same >= 3 {
                    return child;
                }
            } else {
                same = 0;
            }
            last = count;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("gtk3-widget-factory never settled on the bus");
}

/// Runs the pyatspi reference walk of `app` and returns its JSON.
pub fn pyatspi_walk(app: &str, extra: &[&str]) -> Value {
    let o = Command::new("/usr/bin/python3")
        .arg(format!("{}/scripts/pyatspi-walk.py", repo()))
        .arg(app)
        .arg("--json")
        .args(extra)
        .output()
        .expect("run the pyatspi walker (python3-pyatspi)");
    assert!(
        o.status.success(),
        "pyatspi walk failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("pyatspi walk JSON")
}

/// Flattens a treeglass JSON tree into (role, name) in pre-order.
pub fn flatten(node: &Value, out: &mut Vec<(String, String, u64)>) {
    flatten_with(node, out, false)
}

/// The raw role of a node of a pyatspi walk, in treeglass's words: the role number the app
/// answered, named by treeglass's table (libatspi's own names differ between its versions).
pub fn walk_role(n: &Value) -> String {
    let id = n["role_id"].as_i64().expect("the walk's role_id");
    // The AT-SPI walks run on Linux only; elsewhere this compiles for the shared helpers.
    #[cfg(target_os = "linux")]
    let name = match u32::try_from(id) {
        Ok(id) => treeglass::backend::atspi::raw_role_name(id),
        Err(_) => "?".into(),
    };
    #[cfg(not(target_os = "linux"))]
    let name = format!("role {id}");
    name
}

/// [`flatten`] without the descendants of elements that are not enumerated (`managed`: the
/// visible ones were found by position), the way `scripts/pyatspi-walk.py` walks.
pub fn flatten_enumerated(node: &Value, out: &mut Vec<(String, String, u64)>) {
    flatten_with(node, out, true)
}

fn flatten_with(node: &Value, out: &mut Vec<(String, String, u64)>, enumerated: bool) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        out.push((
            n["raw_role"].as_str().unwrap_or("").to_string(),
            n["name"].as_str().unwrap_or("").to_string(),
            n["row"].as_u64().unwrap_or(0),
        ));
        if enumerated && n.get("managed").is_some() {
            continue;
        }
        if let Some(kids) = n["children"].as_array() {
            for k in kids.iter().rev() {
                stack.push(k);
            }
        }
    }
}
