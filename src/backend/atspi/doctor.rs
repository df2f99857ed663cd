//! The Linux probe behind `treeglass doctor`: session bus, accessibility bus, `IsEnabled`, the
//! registry, every registered app with the size of its tree, and GUI processes of this session
//! that use a known toolkit but are not on the bus (found through `/proc`, which reads nothing
//! from the apps themselves).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::AtspiBackend;
use super::calls::Caller;
use crate::backend::toolkit::Toolkit;
use crate::backend::{Backend, BackendError, Limits};
use crate::doctor::{AppReport, Check, Report, Status, TINY_TREE, toolkit_hint};
use crate::model::AppText;

const STEP: Duration = Duration::from_secs(3);

/// Runs every check. Never fails: what cannot be reached is a failed check.
pub async fn diagnose() -> Report {
    let mut checks = Vec::new();
    let mut apps = Vec::new();
    env_checks(&mut checks);

    // 1. The session bus.
    let explicit = ["AT_SPI_BUS_ADDRESS", "A11Y_BUS_ADDRESS"]
        .iter()
        .find_map(|v| {
            std::env::var(v)
                .ok()
                .filter(|a| !a.is_empty())
                .map(|a| (*v, a))
        });
    let session = match std::env::var("DBUS_SESSION_BUS_ADDRESS") {
        Err(_) if explicit.is_none() => {
            checks.push(
                Check::new(
                    "session bus",
                    Status::Fail,
                    "DBUS_SESSION_BUS_ADDRESS is not set: no desktop session in this environment",
                )
                .fix(
                    "run treeglass inside the desktop session (or `dbus-run-session`, with \
                     at-spi2-core installed); without one treeglass shows its demo app",
                ),
            );
            None
        }
        _ => match tokio::time::timeout(STEP, zbus::Connection::session()).await {
            Ok(Ok(c)) => {
                checks.push(Check::new("session bus", Status::Ok, "connected"));
                Some(c)
            }
            Ok(Err(e)) => {
                checks.push(Check::new(
                    "session bus",
                    fail_unless(&explicit),
                    e.to_string(),
                ));
                None
            }
            Err(_) => {
                checks.push(Check::new(
                    "session bus",
                    fail_unless(&explicit),
                    "no answer within 3 s",
                ));
                None
            }
        },
    };

    // 2. The accessibility bus and IsEnabled (both asked of the bus launcher on the session bus).
    if let Some(s) = &session {
        let c = Caller::new(s.clone(), STEP, Default::default());
        match c.a11y_bus_address().await {
            Ok(addr) => checks.push(Check::new(
                "accessibility bus",
                Status::Ok,
                format!("org.a11y.Bus answers ({})", short(&addr)),
            )),
            Err(e) => checks.push(
                Check::new("accessibility bus", fail_unless(&explicit), e.to_string()).fix(
                    "install and start at-spi2-core (at-spi-bus-launcher); desktop sessions start \
                     it on login",
                ),
            ),
        }
        match c.a11y_is_enabled().await {
            Ok(true) => checks.push(Check::new(
                "IsEnabled",
                Status::Ok,
                "org.a11y.Status.IsEnabled is true",
            )),
            Ok(false) => checks.push(
                Check::new(
                    "IsEnabled",
                    Status::Warn,
                    "org.a11y.Status.IsEnabled is false: Qt apps (and others that wait for a \
                     screen reader) do not register",
                )
                .fix(
                    "busctl --user set-property org.a11y.Bus /org/a11y/bus org.a11y.Status \
                     IsEnabled b true   (or gsettings set org.gnome.desktop.interface \
                     toolkit-accessibility true), then restart those apps",
                ),
            ),
            Err(e) => checks.push(Check::new(
                "IsEnabled",
                Status::Warn,
                format!("cannot read: {e}"),
            )),
        }
    } else if let Some((var, addr)) = &explicit {
        checks.push(Check::new(
            "accessibility bus",
            Status::Ok,
            format!("{var} names it ({})", short(addr)),
        ));
    } else {
        checks.push(Check::new(
            "accessibility bus",
            Status::Skip,
            "no session bus",
        ));
    }

    // 3. The registry, and every registered app.
    let backend = match AtspiBackend::connect(STEP).await {
        Ok(b) => Some(b),
        Err(e) => {
            checks.push(Check::new("registry", Status::Fail, e.to_string()));
            None
        }
    };
    let mut registered_pids = HashSet::new();
    if let Some(b) = &backend {
        match b.apps().await {
            Ok(list) => {
                checks.push(Check::new(
                    "registry",
                    Status::Ok,
                    format!("answers; {} application(s) registered", list.len()),
                ));
                for a in list {
                    if let Some(p) = a.pid {
                        registered_pids.insert(p);
                    }
                    let toolkit = a.toolkit.as_ref().map(|t| {
                        Toolkit::detect(
                            t.as_str(),
                            a.toolkit_version.as_ref().map_or("", AppText::as_str),
                        )
                    });
                    let limits = Limits {
                        max_nodes: 200,
                        timeout: STEP,
                        ..Limits::default()
                    };
                    let nodes = b.snapshot(&a.id, &limits).await.map(|s| s.nodes.len());
                    let (status, hint) = match &nodes {
                        Ok(n) if *n <= TINY_TREE => {
                            (Status::Warn, Some(toolkit_hint(toolkit, true)))
                        }
                        Ok(_) => (Status::Ok, None),
                        Err(BackendError::AppGone { .. }) => {
                            (Status::Warn, Some("left the bus while being read".into()))
                        }
                        Err(e) => (Status::Warn, Some(format!("cannot read its tree: {e}"))),
                    };
                    apps.push(AppReport {
                        name: a.name.clone(),
                        pid: a.pid,
                        toolkit,
                        toolkit_version: match (&a.toolkit, &a.toolkit_version) {
                            (Some(t), Some(v)) => Some(t.map(|t| format!("{t} {}", v.as_str()))),
                            (Some(t), None) => Some(t.clone()),
                            _ => None,
                        },
                        registered: true,
                        nodes: nodes.ok(),
                        status,
                        hint,
                    });
                }
            }
            Err(e) => checks.push(Check::new("registry", Status::Fail, e.to_string())),
        }
    }

    // 4. GUI processes of this session that are not registered.
    for p in unregistered_gui_processes(&registered_pids) {
        apps.push(p);
    }
    Report {
        backend: "atspi".into(),
        checks,
        apps,
    }
}

fn fail_unless(explicit: &Option<(&str, String)>) -> Status {
    if explicit.is_some() {
        Status::Warn
    } else {
        Status::Fail
    }
}

fn short(addr: &str) -> String {
    crate::model::sanitize(addr, 80).into_owned()
}

/// Variables in treeglass's own environment that stop apps started from it registering.
fn env_checks(checks: &mut Vec<Check>) {
    let mut bad = Vec::new();
    if std::env::var("NO_AT_BRIDGE").is_ok_and(|v| v == "1") {
        bad.push("NO_AT_BRIDGE=1 (GTK 3 apps will not register)");
    }
    if std::env::var("GTK_A11Y").is_ok_and(|v| v == "none") {
        bad.push("GTK_A11Y=none (GTK 4 apps will not register)");
    }
    if std::env::var("QT_ACCESSIBILITY").is_ok_and(|v| v == "0") {
        bad.push("QT_ACCESSIBILITY=0 (Qt apps will not register)");
    }
    if bad.is_empty() {
        checks.push(Check::new(
            "environment",
            Status::Ok,
            "nothing here stops apps started from this shell registering",
        ));
    } else {
        checks.push(
            Check::new("environment", Status::Warn, bad.join("; "))
                .fix("unset them before starting the apps you want to inspect"),
        );
    }
}

/// Processes of this user and this session bus that load a known toolkit but are not on the
/// accessibility bus.
fn unregistered_gui_processes(registered: &HashSet<u32>) -> Vec<AppReport> {
    let mut out = Vec::new();
    let Ok(session) = std::env::var("DBUS_SESSION_BUS_ADDRESS") else {
        return out;
    };
    let me = std::process::id();
    let deadline = Instant::now() + Duration::from_secs(2);
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        if Instant::now() > deadline {
            break;
        }
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me || registered.contains(&pid) {
            continue;
        }
        let base = entry.path();
        let Ok(environ) = std::fs::read(base.join("environ")) else {
            continue;
        };
        let env: Vec<&[u8]> = environ.split(|b| *b == 0).collect();
        let has = |kv: &str| env.contains(&kv.as_bytes());
        if !has(&format!("DBUS_SESSION_BUS_ADDRESS={session}")) {
            continue;
        }
        let cmdline = std::fs::read(base.join("cmdline")).unwrap_or_default();
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let Some(toolkit) = toolkit_of_process(&base, &args) else {
            continue;
        };
        let name = args
            .first()
            .map(|a| a.rsplit('/').next().unwrap_or(a).to_string())
            .unwrap_or_default();
        let mut hint = toolkit_hint(Some(toolkit), false);
        if toolkit.is_gtk() && has("NO_AT_BRIDGE=1") {
            hint = "its environment has NO_AT_BRIDGE=1: restart it without".into();
        } else if toolkit.is_gtk() && has("GTK_A11Y=none") {
            hint = "its environment has GTK_A11Y=none: restart it without".into();
        } else if toolkit.is_qt() && has("QT_ACCESSIBILITY=0") {
            hint = "its environment has QT_ACCESSIBILITY=0: restart it without".into();
        }
        out.push(AppReport {
            name: name.into(),
            pid: Some(pid),
            toolkit: Some(toolkit),
            toolkit_version: None,
            registered: false,
            nodes: None,
            status: Status::Warn,
            hint: Some(hint),
        });
    }
    out
}

/// The toolkit a process loads, from its executable and mapped libraries. Chromium's helper
/// processes (`--type=renderer`, …) are not apps.
fn toolkit_of_process(base: &std::path::Path, args: &[String]) -> Option<Toolkit> {
    let exe = std::fs::read_link(base.join("exe")).ok()?;
    let exe_name = exe.file_name()?.to_string_lossy().to_ascii_lowercase();
    if ["chromium", "chrome", "electron"]
        .iter()
        .any(|n| exe_name.contains(n))
    {
        if args.iter().any(|a| a.starts_with("--type=")) {
            return None;
        }
        return Some(Toolkit::Chromium);
    }
    let maps = std::fs::read_to_string(base.join("maps")).ok()?;
    [
        ("libgtk-4.so", Toolkit::Gtk4),
        ("libgtk-3.so", Toolkit::Gtk3),
        ("libQt6Gui.so", Toolkit::Qt6),
        ("libQt5Gui.so", Toolkit::Qt5),
    ]
    .iter()
    .find(|(lib, _)| maps.contains(lib))
    .map(|(_, tk)| *tk)
}
