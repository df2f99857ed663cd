//! `treeglass session` on the real stack (dbus-daemon, Xvfb or sway, at-spi2-core), each run
//! started from a clean environment — no session bus, no display, no accessibility bus: only
//! `PATH` and `HOME` — so that everything CMD finds is the session's own.
//!
//! After every run, nothing the session started may be left: no process whose environment or
//! command line names the session's directory (every component, the app and CMD have it in
//! `XDG_RUNTIME_DIR`, or as `TREEGLASS_A11Y_SESSION_DIR`), and none of the pids `-v` printed —
//! when CMD ends, when it is killed by a signal, when the session itself is sent SIGTERM (with
//! CMD running, and before CMD started), when the app never registers, and when a step fails.
//!
//! Runs are one at a time: each brings a whole stack up.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, mpsc};
use std::time::{Duration, Instant};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

const BIN: &str = env!("CARGO_BIN_EXE_treeglass");
const REPO: &str = env!("CARGO_MANIFEST_DIR");
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// `treeglass session ARGS` with nothing of this process's environment but PATH and HOME, in
/// the repository (`--app-cmd` paths are relative to it).
fn session(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.env_clear()
        .env("PATH", PATH)
        .env(
            "HOME",
            std::env::var("HOME").unwrap_or_else(|_| "/root".into()),
        )
        .current_dir(REPO)
        .arg("session")
        .args(args)
        .stdin(Stdio::null());
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn shown(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        text(&o.stdout),
        text(&o.stderr)
    )
}

/// Runs to the end (at most `limit`: then the session is sent SIGTERM and the test fails).
fn run(cmd: &mut Command, limit: Duration) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start treeglass session");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(o) => o.expect("wait for treeglass session"),
        Err(_) => {
            kill("-TERM", pid);
            panic!("treeglass session did not end within {limit:?}");
        }
    }
}

fn kill(signal: &str, pid: u32) {
    let ok = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {signal} {pid}");
}

/// The session directory `-v` named.
fn session_dir(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("treeglass session: session directory "))
        .unwrap_or_else(|| panic!("no session directory in:\n{stderr}"))
        .trim()
        .to_string()
}

/// Every pid `-v` printed (`pid N`).
fn pids(stderr: &str) -> Vec<u32> {
    let re = regex::Regex::new(r"\bpid (\d+)").unwrap();
    re.captures_iter(stderr)
        .filter_map(|c| c[1].parse().ok())
        .collect()
}

/// Processes that still belong to the session in `dir`: their environment or command line
/// names it.
fn left_behind(dir: &str) -> Vec<String> {
    let me = std::process::id();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let names = |b: &[u8]| b.windows(dir.len()).any(|w| w == dir.as_bytes());
        if names(&env) || names(&cmdline) {
            out.push(format!("pid {pid}: {}", text(&cmdline).replace('\0', " ")));
        }
    }
    out
}

/// Whether process `pid` runs, as a process of the session in `dir`.
fn still_ours(pid: u32, dir: &str) -> bool {
    let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    std::path::Path::new(&format!("/proc/{pid}")).exists()
        && env.windows(dir.len()).any(|w| w == dir.as_bytes())
}

/// Nothing of the session in `dir` runs: no process names it, none of `pids` is there.
fn assert_all_stopped(dir: &str, pids: &[u32], context: &str) {
    assert!(dir.starts_with("/tmp/a11y-session."), "{dir}");
    let left = left_behind(dir);
    assert!(
        left.is_empty(),
        "left running by the session {dir}:\n{}\n{context}",
        left.join("\n")
    );
    for &pid in pids {
        assert!(!still_ours(pid, dir), "pid {pid} still runs\n{context}");
    }
}

/// The environment, the buses, IsEnabled and the registry as CMD sees them; CMD's exit status
/// is the session's.
#[test]
fn cmd_sees_the_stack_and_its_status_is_the_sessions() {
    let _one = one_at_a_time();
    let script = r#"
        echo "SESSION=$TREEGLASS_A11Y_SESSION"
        echo "DIR=$TREEGLASS_A11Y_SESSION_DIR"
        echo "DISPLAY=$DISPLAY"
        echo "WAYLAND_DISPLAY=${WAYLAND_DISPLAY-unset}"
        echo "DBUS=$DBUS_SESSION_BUS_ADDRESS"
        echo "A11Y=$A11Y_BUS_ADDRESS"
        echo "RUNTIME=$XDG_RUNTIME_DIR"
        echo "GSETTINGS=$GSETTINGS_BACKEND"
        echo "NO_AT_BRIDGE=${NO_AT_BRIDGE-unset}"
        echo "AT_SPI_BUS_ADDRESS=${AT_SPI_BUS_ADDRESS-unset}"
        test -S "/tmp/.X11-unix/X${DISPLAY#:}" && echo "X socket there"
        dbus-send --session --print-reply=literal --dest=org.a11y.Bus /org/a11y/bus \
            org.freedesktop.DBus.Properties.Get string:org.a11y.Status string:IsEnabled \
            | tr -s ' ' | sed 's/^ */IsEnabled: /'
        dbus-send --bus="$A11Y_BUS_ADDRESS" --print-reply=literal --dest=org.freedesktop.DBus \
            /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
            string:org.a11y.atspi.Registry | tr -s ' ' | sed 's/^ */registry: /'
        /usr/bin/python3 -c 'import pyatspi; d = pyatspi.Registry.getDesktop(0); print("pyatspi desktop:", d.getRoleName(), d.childCount)'
        exit 3
    "#;
    let o = run(
        session(&["-v", "--", "sh", "-c", script])
            .env("NO_AT_BRIDGE", "1")
            .env("AT_SPI_BUS_ADDRESS", "unix:path=/nonexistent"),
        Duration::from_secs(60),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(3), "{all}");
    let out = text(&o.stdout);
    let err = text(&o.stderr);
    let dir = session_dir(&err);
    let line = |key: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("{key} not printed\n{all}"))
            .to_string()
    };
    assert_eq!(line("SESSION"), "1", "{all}");
    assert_eq!(line("DIR"), dir, "{all}");
    assert!(
        regex::Regex::new(r"^:\d+$")
            .unwrap()
            .is_match(&line("DISPLAY")),
        "{all}"
    );
    assert_eq!(line("WAYLAND_DISPLAY"), "unset", "{all}");
    assert_eq!(line("DBUS"), format!("unix:path={dir}/bus"), "{all}");
    assert!(line("A11Y").starts_with("unix:"), "{all}");
    assert_eq!(line("RUNTIME"), format!("{dir}/run"), "{all}");
    assert_eq!(line("GSETTINGS"), "memory", "{all}");
    assert_eq!(line("NO_AT_BRIDGE"), "unset", "{all}");
    assert_eq!(line("AT_SPI_BUS_ADDRESS"), "unset", "{all}");
    assert!(out.contains("X socket there"), "{all}");
    assert!(out.contains("IsEnabled: variant boolean true"), "{all}");
    assert!(out.contains("registry: boolean true"), "{all}");
    assert!(out.contains("pyatspi desktop: desktop frame 0"), "{all}");
    assert!(!std::path::Path::new(&dir).exists(), "{dir} removed\n{all}");
    assert_all_stopped(&dir, &pids(&err), &all);

    let o = run(&mut session(&["--", "true"]), Duration::from_secs(60));
    assert_eq!(o.status.code(), Some(0), "{}", shown(&o));
    assert!(o.stderr.is_empty(), "{}", shown(&o));
}

/// `--app-cmd`: the GTK fixture app is registered and read whole before CMD runs, so CMD's
/// `tree --app` (a one-shot read that does not wait) finds it.
#[test]
fn the_app_is_registered_and_settled_before_cmd() {
    let _one = one_at_a_time();
    let o = run(
        &mut session(&[
            "-v",
            "--app-cmd",
            "/usr/bin/python3 tests/fixture_app.py",
            "--",
            BIN,
            "--backend",
            "atspi",
            "tree",
            "--app",
            "^treeglass-fixture$",
        ]),
        Duration::from_secs(90),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    let out = text(&o.stdout);
    for name in [
        "\"Full name\"",
        "\"Subscribe\"",
        "\"Press me\"",
        "\"Fruits\"",
    ] {
        assert!(out.contains(name), "{name} in the tree\n{all}");
    }
    let err = text(&o.stderr);
    assert!(
        err.contains("registered") && err.contains("settled"),
        "{all}"
    );
    assert_all_stopped(&session_dir(&err), &pids(&err), &all);
}

/// An app that hangs (the fixture's main loop blocked by SIGUSR1, so it acts on no SIGTERM)
/// is killed at the end after its grace, and nothing is left.
#[test]
fn a_hung_app_is_killed_at_the_end() {
    let _one = one_at_a_time();
    // CMD blocks the app's main loop: the app is the process of this session that runs the
    // fixture.
    let freeze = r#"
        for d in /proc/[0-9]*; do
            pid=${d#/proc/}
            tr '\0' '\n' < "$d/environ" 2>/dev/null \
                | grep -qx "TREEGLASS_A11Y_SESSION_DIR=$TREEGLASS_A11Y_SESSION_DIR" || continue
            case "$(tr '\0' ' ' < "$d/cmdline")" in
                "/usr/bin/python3 tests/fixture_app.py"*) kill -USR1 "$pid" && echo "froze $pid" ;;
            esac
        done
        sleep 1
    "#;
    let t = Instant::now();
    let o = run(
        session(&[
            "-v",
            "--app-cmd",
            "/usr/bin/python3 tests/fixture_app.py --name hung",
            "--",
            "sh",
            "-c",
            freeze,
        ])
        .env("FIXTURE_FREEZE_SECONDS", "300"),
        Duration::from_secs(90),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    let stdout = text(&o.stdout);
    let froze: Vec<&str> = stdout.lines().collect();
    assert_eq!(froze.len(), 1, "one app frozen\n{all}");
    let err = text(&o.stderr);
    let app_pid = froze[0].strip_prefix("froze ").unwrap();
    assert!(
        err.contains(&format!(
            "app (pid {app_pid}) ignored SIGTERM; sending SIGKILL"
        )),
        "{all}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(60),
        "{:?}\n{all}",
        t.elapsed()
    );
    assert_all_stopped(&session_dir(&err), &pids(&err), &all);
}

/// CMD killed by SIGKILL: its status is 128+9, and what it left running (a `sleep` in the
/// background, adopted by the session when CMD died) is stopped with the stack.
#[test]
fn cmd_killed_by_a_signal_leaves_nothing_running() {
    let _one = one_at_a_time();
    let o = run(
        &mut session(&[
            "-v",
            "--",
            "sh",
            "-c",
            "sleep 300 & echo \"orphan $!\"; kill -KILL $$",
        ]),
        Duration::from_secs(60),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(137), "{all}");
    let err = text(&o.stderr);
    let dir = session_dir(&err);
    let orphan: u32 = text(&o.stdout)
        .trim()
        .strip_prefix("orphan ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no orphan pid\n{all}"));
    assert!(err.contains("left behind"), "{all}");
    let mut pids = pids(&err);
    pids.push(orphan);
    assert_all_stopped(&dir, &pids, &all);
}

/// Starts a session whose stderr is read line by line as it comes.
fn start(cmd: &mut Command) -> (Child, mpsc::Receiver<String>) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start treeglass session");
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// Collects stderr lines until one contains `what` (at most `limit`).
fn until(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, what: &str, limit: Duration) {
    let end = Instant::now() + limit;
    while !seen.iter().any(|l| l.contains(what)) {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => seen.push(l),
            Err(_) => panic!("no {what:?} within {limit:?}:\n{}", seen.join("\n")),
        }
    }
}

/// Waits for the session to end (at most `limit`), with the rest of its stderr.
fn finish(
    mut child: Child,
    rx: &mpsc::Receiver<String>,
    seen: &mut Vec<String>,
    limit: Duration,
) -> Option<i32> {
    let end = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            while let Ok(l) = rx.recv_timeout(Duration::from_millis(500)) {
                seen.push(l);
            }
            return status.code();
        }
        if Instant::now() >= end {
            kill("-KILL", child.id());
            panic!(
                "the session did not end within {limit:?}:\n{}",
                seen.join("\n")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// SIGTERM to `treeglass session` while CMD runs: CMD gets it (its status, 128+15, is the
/// session's), then the stack is stopped.
#[test]
fn sigterm_to_the_session_reaches_cmd_and_stops_the_stack() {
    let _one = one_at_a_time();
    let (child, rx) = start(&mut session(&["-v", "--", "sh", "-c", "sleep 300; exit 0"]));
    let pid = child.id();
    let mut seen = Vec::new();
    until(&rx, &mut seen, "CMD: pid", Duration::from_secs(60));
    let t = Instant::now();
    kill("-TERM", pid);
    let code = finish(child, &rx, &mut seen, Duration::from_secs(30));
    let err = seen.join("\n");
    assert_eq!(code, Some(143), "{err}");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "{:?}\n{err}",
        t.elapsed()
    );
    assert_all_stopped(&session_dir(&err), &pids(&err), &err);
}

/// SIGTERM before CMD started (while the app is waited for): exit 128+15, the app and the
/// stack stopped, CMD never run.
#[test]
fn sigterm_before_cmd_stops_the_app_and_the_stack() {
    let _one = one_at_a_time();
    let (child, rx) = start(&mut session(&[
        "-v",
        "--app-cmd",
        "sleep 300",
        "--app-timeout-ms",
        "60000",
        "--",
        "sh",
        "-c",
        "echo CMD ran >&2",
    ]));
    let pid = child.id();
    let mut seen = Vec::new();
    until(&rx, &mut seen, "app: started, pid", Duration::from_secs(60));
    kill("-TERM", pid);
    let code = finish(child, &rx, &mut seen, Duration::from_secs(30));
    let err = seen.join("\n");
    assert_eq!(code, Some(143), "{err}");
    assert!(!err.contains("CMD ran"), "{err}");
    let dir = session_dir(&err);
    assert_all_stopped(&dir, &pids(&err), &err);
    assert!(!std::path::Path::new(&dir).exists(), "{dir} removed\n{err}");
}

/// An app that never registers (it sleeps) fails the session with 98 once its timeout has
/// passed, says which step and why, keeps the logs, runs no CMD and leaves nothing running.
#[test]
fn an_app_that_never_registers_fails_within_its_timeout() {
    let _one = one_at_a_time();
    let t = Instant::now();
    let o = run(
        &mut session(&[
            "-v",
            "--app-cmd",
            "sleep 300",
            "--app-timeout-ms",
            "2000",
            "--",
            "sh",
            "-c",
            "echo CMD ran",
        ]),
        Duration::from_secs(60),
    );
    let took = t.elapsed();
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(98), "{all}");
    assert!(took >= Duration::from_secs(2), "{took:?}\n{all}");
    assert!(took < Duration::from_secs(20), "{took:?}\n{all}");
    let err = text(&o.stderr);
    assert!(err.contains("step 'app' failed"), "{all}");
    assert!(
        err.contains("registered on the accessibility bus within 2000 ms"),
        "{all}"
    );
    assert!(!text(&o.stdout).contains("CMD ran"), "{all}");
    let dir = session_dir(&err);
    assert!(err.contains(&format!("logs kept in {dir}")), "{all}");
    assert_all_stopped(&dir, &pids(&err), &all);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An app that exits at once fails the session with 98, with its status and its output.
#[test]
fn an_app_that_exits_fails_with_its_output() {
    let _one = one_at_a_time();
    let o = run(
        &mut session(&[
            "-v",
            "--app-cmd",
            "sh -c 'echo no display for me >&2; exit 4'",
            "--",
            "sh",
            "-c",
            "echo CMD ran",
        ]),
        Duration::from_secs(60),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(98), "{all}");
    let err = text(&o.stderr);
    assert!(err.contains("step 'app' failed"), "{all}");
    assert!(
        err.contains("exited (status 4) before it registered"),
        "{all}"
    );
    assert!(err.contains("    no display for me"), "{all}");
    assert!(!text(&o.stdout).contains("CMD ran"), "{all}");
    let dir = session_dir(&err);
    assert_all_stopped(&dir, &pids(&err), &all);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A directory of stand-ins put first on PATH.
fn fake_bin(files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "treeglass-session-test-{}-{}",
        std::process::id(),
        files.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, body) in files {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// A step of the stack that fails is exit 97 with the step named: Xvfb not on PATH (nothing
/// started), and an Xvfb that dies at once (its log's last lines shown, the session bus
/// already started stopped again).
#[test]
fn a_failing_step_is_97_and_named() {
    let _one = one_at_a_time();
    // Only dbus-daemon and a shell: no Xvfb.
    let bin = fake_bin(&[(
        "dbus-daemon",
        "#!/bin/sh\nexec /usr/bin/dbus-daemon \"$@\"\n",
    )]);
    let o = run(
        session(&["--", "true"]).env("PATH", &bin),
        Duration::from_secs(30),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(97), "{all}");
    assert!(
        text(&o.stderr).contains("step 'Xvfb' failed: 'Xvfb' is not on PATH"),
        "{all}"
    );
    let _ = std::fs::remove_dir_all(&bin);

    let bin = fake_bin(&[
        (
            "Xvfb",
            "#!/bin/sh\necho 'Fatal server error: no screens today' >&2\nexit 1\n",
        ),
        ("unused", ""),
    ]);
    let path = format!("{}:{PATH}", bin.display());
    let o = run(
        session(&["-v", "--", "sh", "-c", "echo CMD ran"]).env("PATH", &path),
        Duration::from_secs(30),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(97), "{all}");
    let err = text(&o.stderr);
    assert!(err.contains("step 'Xvfb' failed"), "{all}");
    assert!(
        err.contains("exited (status 1) before it was ready"),
        "{all}"
    );
    assert!(
        err.contains("    Fatal server error: no screens today"),
        "{all}"
    );
    assert!(!text(&o.stdout).contains("CMD ran"), "{all}");
    let dir = session_dir(&err);
    assert!(err.contains(&format!("logs kept in {dir}")), "{all}");
    assert_all_stopped(&dir, &pids(&err), &all);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&bin);
}

/// Bad arguments are exit 2, and nothing is started.
#[test]
fn usage_errors_are_2() {
    let _one = one_at_a_time();
    for (args, says) in [
        (&[][..], "required"),
        (&["--shell", "--", "true"][..], "cannot be used"),
        (&["--user", "x", "--", "true"][..], "--wayland"),
        (
            &["--app-cmd", "app > log", "--", "true"][..],
            "needs a shell",
        ),
        (&["--app-cmd", "app 'x", "--", "true"][..], "unterminated"),
        (&["--app-timeout-ms", "5", "--", "true"][..], "--app-cmd"),
    ] {
        let o = run(&mut session(args), Duration::from_secs(10));
        let all = shown(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {all}");
        assert!(text(&o.stderr).contains(says), "{args:?}: {says}: {all}");
        assert!(!text(&o.stderr).contains("session directory"), "{all}");
    }
}

/// The repository's wrapper passes everything on (the binary named by TREEGLASS_BIN, so that
/// it builds nothing here).
#[test]
fn the_wrapper_script_runs_the_session() {
    let _one = one_at_a_time();
    let mut cmd = Command::new(format!("{REPO}/scripts/a11y-session"));
    cmd.env_clear()
        .env("PATH", PATH)
        .env("TREEGLASS_BIN", BIN)
        .args(["sh", "-c", "echo \"$TREEGLASS_A11Y_SESSION\"; exit 5"])
        .stdin(Stdio::null());
    let o = run(&mut cmd, Duration::from_secs(60));
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(5), "{all}");
    assert_eq!(text(&o.stdout).trim(), "1", "{all}");
}

/// `--wayland`: a headless sway (as an unprivileged user when run as root), its sockets in
/// the runtime directory, and nothing left afterwards.
#[test]
fn wayland_session_has_a_compositor() {
    let _one = one_at_a_time();
    let o = run(
        &mut session(&[
            "-v",
            "--wayland",
            "--",
            "sh",
            "-c",
            "echo \"$WAYLAND_DISPLAY $XDG_SESSION_TYPE $XDG_CURRENT_DESKTOP \
             $TREEGLASS_A11Y_SESSION ${DISPLAY-nodisplay}\"; \
             test -S \"$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY\" && test -S \"$SWAYSOCK\" && \
             swaymsg -t get_outputs | grep -c HEADLESS-1",
        ]),
        Duration::from_secs(60),
    );
    let all = shown(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    let out = text(&o.stdout);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        regex::Regex::new(r"^wayland-\d+ wayland sway wayland nodisplay$")
            .unwrap()
            .is_match(first),
        "{all}"
    );
    assert_eq!(out.lines().nth(1), Some("1"), "one headless output\n{all}");
    let err = text(&o.stderr);
    assert_all_stopped(&session_dir(&err), &pids(&err), &all);
}
