//! `--app-cmd`: the app started inside the stack before CMD, and the wait until it can be
//! read — checked through the project's own AT-SPI backend on the session's accessibility
//! bus: an application whose process is the app's (or one the app started) is registered,
//! lists a window, and two reads of its tree in a row, [`SETTLE_GAP`] apart, are whole and
//! count the same nodes.
//!
//! The app's output goes to `app.log` in the session directory; its standard input is a pipe
//! that stays open, empty, until the session ends (an app that quits at the end of its input
//! neither quits at once nor outlives the session).

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::{APP_FAILED, Component, Signals, Stack, Stop, describe, procs};
use crate::backend::atspi::AtspiBackend;
use crate::backend::{AppInfo, Backend, Limits};
use crate::model::literal;

/// Between two reads of the app's tree.
const SETTLE_GAP: Duration = Duration::from_millis(200);

/// How far the app got, for the error when it gets no further.
enum Phase {
    NotRegistered,
    NoWindow(String),
    Reading { name: String, last: String },
}

/// The app's step failed (exit code [`APP_FAILED`]), with its output's last lines.
fn failed(reason: String, log: &Path) -> Stop {
    Stop::Failed {
        code: APP_FAILED,
        step: "app".into(),
        reason,
        log: Some(log.to_path_buf()),
    }
}

/// Starts the app and waits until it is registered and settled.
pub(super) async fn start(
    stack: &mut Stack,
    argv: &[String],
    signals: &mut Signals,
) -> Result<(), Stop> {
    let log = stack.dir.join("app.log");
    let cannot = |e: std::io::Error| {
        failed(
            format!("cannot start {}: {e}", literal(&argv[0], 200)),
            &log,
        )
    };
    let err = File::create(&log).map_err(cannot)?;
    let out = err.try_clone().map_err(cannot)?;
    let mut cmd = stack.command(argv[0].as_ref());
    cmd.args(&argv[1..]);
    stack.env.apply(&mut cmd);
    cmd.stdin(Stdio::piped())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let mut child = cmd.spawn().map_err(cannot)?;
    let stdin = child.stdin.take();
    stack.say(&format!("app: started, pid {}", child.id()));
    let waited = settle(
        &mut child,
        argv,
        &stack.a11y_address,
        stack.opts.app_timeout,
        &log,
        signals,
    )
    .await;
    // Held by the session from now on, whatever the wait says: the end stops it.
    stack.app = Some((
        Component {
            name: "app".into(),
            child,
            log,
        },
        stdin,
    ));
    stack.say(&waited?);
    Ok(())
}

/// Waits until the app is registered and settled: what it found, for `-v`.
async fn settle(
    child: &mut Child,
    argv: &[String],
    a11y_address: &str,
    timeout: Duration,
    log: &Path,
    signals: &mut Signals,
) -> Result<String, Stop> {
    let deadline = Instant::now() + timeout;
    let pid = child.id();
    let backend = AtspiBackend::connect_to(a11y_address, Duration::from_secs(3))
        .await
        .map_err(|e| failed(format!("cannot connect to the accessibility bus: {e}"), log))?;
    let mut phase = Phase::NotRegistered;
    let mut previous: Option<usize> = None;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let when = match &phase {
                Phase::NotRegistered => "before it registered on the accessibility bus",
                Phase::NoWindow(_) => "before it showed a window",
                Phase::Reading { .. } => "before its tree settled",
            };
            return Err(failed(
                format!(
                    "{} (pid {pid}) exited ({}) {when}",
                    literal(&argv.join(" "), 200),
                    describe(status)
                ),
                log,
            ));
        }
        match ours(&backend, pid).await {
            None => {
                phase = Phase::NotRegistered;
                previous = None;
            }
            Some(info) if info.windows.is_empty() => {
                phase = Phase::NoWindow(info.label());
                previous = None;
            }
            Some(info) => {
                let name = info.label();
                let limits = Limits {
                    timeout: deadline
                        .saturating_duration_since(Instant::now())
                        .max(Duration::from_millis(100)),
                    ..Limits::default()
                };
                let last = match backend.snapshot(&info.id, &limits).await {
                    Ok(snap) if snap.complete() => {
                        let n = snap.nodes.len();
                        if previous == Some(n) {
                            return Ok(format!(
                                "app: {name} registered, {} window(s), {n} nodes twice in a \
                                 row: settled",
                                info.windows.len()
                            ));
                        }
                        previous = Some(n);
                        format!("{n} nodes")
                    }
                    Ok(snap) => {
                        previous = None;
                        format!("a read of {} nodes that was not whole", snap.nodes.len())
                    }
                    Err(e) => {
                        previous = None;
                        format!("a read that failed: {e}")
                    }
                };
                phase = Phase::Reading { name, last };
            }
        }
        if Instant::now() >= deadline {
            let ms = timeout.as_millis();
            let reason = match phase {
                Phase::NotRegistered => format!(
                    "no application of pid {pid} (or of a process it started) registered on \
                     the accessibility bus within {ms} ms"
                ),
                Phase::NoWindow(name) => {
                    format!("{name} registered but listed no window within {ms} ms")
                }
                Phase::Reading { name, last } => format!(
                    "the tree of {name} did not settle within {ms} ms (two reads in a row \
                     must count the same nodes; the last was {last})"
                ),
            };
            return Err(failed(reason, log));
        }
        signals.sleep(SETTLE_GAP).await.map_err(Stop::Signal)?;
    }
}

/// The application on the bus whose process is `pid` or one of its descendants.
async fn ours(backend: &AtspiBackend, pid: u32) -> Option<AppInfo> {
    let mut pids = vec![pid];
    pids.extend(
        procs::descendants(pid as i32, &procs::all())
            .iter()
            .map(|p| p.pid as u32),
    );
    let apps = backend.apps().await.ok()?;
    apps.into_iter()
        .filter(|a| a.responding)
        .find(|a| a.pid.is_some_and(|p| pids.contains(&p)))
}
