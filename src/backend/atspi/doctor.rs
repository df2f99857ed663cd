//! The Linux probe behind `treeglass doctor`: session bus, accessibility bus, `IsEnabled`, the
//! registry, every registered app with the size of its tree (or that it does not answer), and
//! the apps of this session that own a top-level window but have no process on the bus. Which
//! processes make one app comes from `/proc`, which windows exist and whose they are from the X
//! server (`_NET_WM_PID`): neither asks anything of the apps themselves.
//!
//! A process is flagged only when it is an app that should have a tree: it owns a window and
//! loads a toolkit treeglass knows, and no process of the same app is registered. Browser
//! content processes, crash handlers and windowless services own no window, so they are never
//! problems. Where windows cannot be listed (no X display; native Wayland windows), no process
//! is flagged: the `windows` check says what was not checked, and processes whose environment
//! turns accessibility off are listed as `skip`, which does not count as a problem.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use super::AtspiBackend;
use super::bus::ObjRef;
use super::calls::Caller;
use super::process;
use super::toolkit::toolkit_hint;
use crate::backend::{Backend, BackendError, Limits};
use crate::desktop::{self, OwnedWindow};
use crate::doctor::{AppReport, Check, Report, Status, TINY_TREE, WindowSeen};
use crate::model::Toolkit;
use crate::model::Truncation;

const STEP: Duration = Duration::from_secs(3);

/// Runs every check. Never fails: what cannot be reached is a failed check.
pub async fn diagnose() -> Report {
    let mut checks = Vec::new();
    // `/proc` and the X server are read on a thread of their own while the buses are asked: a
    // display that never answers must not hold up the report (nor the exit: the thread is
    // left behind, not joined).
    let (tx, desktop) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Desktop::read());
    });
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
    let session = session_bus(&mut checks, &explicit).await;

    // 2. The accessibility bus and IsEnabled (both asked of the bus launcher on the session bus).
    a11y_bus(&mut checks, session.as_ref(), &explicit).await;

    // 3. The windows on screen and whose they are.
    let desktop = match tokio::time::timeout(STEP, desktop).await {
        Ok(Ok(d)) => d,
        _ => Desktop {
            procs: Procs::default(),
            windows: Err("the display server did not answer within 3 s".into()),
            source: String::new(),
            compositor: None,
        },
    };
    checks.push(desktop.check());

    // 4. The registry, and every registered app.
    let mut apps = Vec::new();
    let mut registered_pids = HashSet::new();
    registry(&mut checks, &desktop, &mut apps, &mut registered_pids).await;

    // 5. Apps of this session with a window and no process on the bus.
    apps.extend(desktop.unregistered(&registered_pids));
    Report {
        backend: "atspi".into(),
        checks,
        apps,
    }
}

/// The session bus connected to, unless there is none (or it does not answer): its check.
/// `explicit`: the accessibility bus's address named in the environment, which makes a
/// missing session bus a warning rather than a failure.
async fn session_bus(
    checks: &mut Vec<Check>,
    explicit: &Option<(&str, String)>,
) -> Option<zbus::Connection> {
    match std::env::var("DBUS_SESSION_BUS_ADDRESS") {
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
                    fail_unless(explicit),
                    e.to_string(),
                ));
                None
            }
            Err(_) => {
                checks.push(Check::new(
                    "session bus",
                    fail_unless(explicit),
                    "no answer within 3 s",
                ));
                None
            }
        },
    }
}

/// The accessibility bus and `IsEnabled`, asked of the bus launcher on `session`.
async fn a11y_bus(
    checks: &mut Vec<Check>,
    session: Option<&zbus::Connection>,
    explicit: &Option<(&str, String)>,
) {
    if let Some(s) = session {
        let c = Caller::new(s.clone(), STEP, Default::default());
        match c.a11y_bus_address().await {
            Ok(addr) => checks.push(Check::new(
                "accessibility bus",
                Status::Ok,
                format!("org.a11y.Bus answers ({})", short(&addr)),
            )),
            Err(e) => checks.push(
                Check::new("accessibility bus", fail_unless(explicit), e.to_string()).fix(
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
    } else if let Some((var, addr)) = explicit {
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
}

/// The registry, the input paths, and every registered app (`apps`, with their pids in
/// `registered_pids`).
async fn registry(
    checks: &mut Vec<Check>,
    desktop: &Desktop,
    apps: &mut Vec<AppReport>,
    registered_pids: &mut HashSet<u32>,
) {
    let backend = match AtspiBackend::connect(STEP).await {
        Ok(b) => Some(b),
        Err(e) => {
            checks.push(Check::new("registry", Status::Fail, e.to_string()));
            None
        }
    };
    if let Some(b) = &backend {
        checks.push(b.input_check().await);
    }
    if let Some(b) = &backend {
        let c = b.caller().with_deadline(Instant::now() + STEP);
        match c.desktop_apps().await {
            Ok(list) => {
                checks.push(Check::new(
                    "registry",
                    Status::Ok,
                    format!("answers; {} application(s) registered", list.len()),
                ));
                let reports =
                    futures::future::join_all(list.iter().map(|a| registered_app(b, a, desktop)))
                        .await;
                for r in reports {
                    if let Some(p) = r.pid {
                        registered_pids.insert(p);
                    }
                    apps.push(r);
                }
            }
            Err(e) => checks.push(Check::new("registry", Status::Fail, e.to_string())),
        }
    }
}

/// How a registered app's read ended when it did not end with its tree.
#[derive(Debug, PartialEq, Eq)]
enum Unread {
    /// It still owns its bus name and answered nothing: busy or hung.
    NotResponding,
    /// It exited or dropped its accessibility connection.
    Left,
    /// It answered with an error.
    Failed(String),
}

/// Sorts a failed read: an app that still owns its bus name after a call went unanswered is
/// not responding, never "gone".
async fn unread(c: &Caller, bus: &str, e: BackendError) -> Unread {
    match e {
        BackendError::AppGone { .. } => Unread::Left,
        BackendError::NotResponding { .. } => Unread::NotResponding,
        BackendError::Vanished(m) | BackendError::Failed(m) | BackendError::Unsupported(m) => {
            Unread::Failed(m)
        }
        BackendError::Unavailable(m) => Unread::Failed(m),
        // A timeout (and whatever names a silent app): ask the bus daemon, not the app.
        _ => match c.name_has_owner(bus).await {
            Ok(false) => Unread::Left,
            _ => Unread::NotResponding,
        },
    }
}

/// One registered app: its name, toolkit and tree size (read with a small cap), or why they
/// could not be read; whether it owns a window decides whether a tiny tree is a problem.
async fn registered_app(b: &AtspiBackend, app: &ObjRef, desktop: &Desktop) -> AppReport {
    let c = b.caller().with_deadline(Instant::now() + STEP);
    let (pid, name, tk, version) = tokio::join!(
        c.unix_pid(&app.bus),
        c.name(app),
        c.toolkit_name(app),
        c.toolkit_version(app),
    );
    let pid = pid.ok();
    let (tk, version) = (
        tk.ok().filter(|t| !t.is_empty()),
        version.ok().filter(|v| !v.is_empty()),
    );
    let window = pid.and_then(|p| desktop.window_of_app(p));
    let mut report = AppReport {
        name: match &name {
            Ok(n) => n.as_str().into(),
            // Its accessible name cannot be asked: named the way `ps` would.
            Err(_) => pid.and_then(process::label).unwrap_or_default().into(),
        },
        pid,
        // An app that does not answer is known by what its process loads.
        toolkit: match (tk.as_deref(), pid) {
            (Some(t), _) => Some(Toolkit::detect(t, version.as_deref().unwrap_or(""))),
            (None, Some(p)) => toolkit_of_process(
                std::path::Path::new(&format!("/proc/{p}")),
                &process::cmdline(p),
            ),
            (None, None) => None,
        },
        toolkit_version: match (&tk, &version) {
            (Some(t), Some(v)) => Some(format!("{t} {v}").into()),
            (Some(t), None) => Some(t.as_str().into()),
            _ => None,
        },
        registered: true,
        nodes: None,
        responding: true,
        window: window.map(seen),
        status: Status::Ok,
        hint: None,
    };
    if let Err(e) = name {
        return unread_report(report, unread(&c, &app.bus, e).await, c.call_timeout);
    }
    let limits = Limits {
        max_nodes: 200,
        timeout: STEP,
        ..Limits::default()
    };
    let snap = match b.snapshot(&app.id(), &limits).await {
        Ok(s) => s,
        Err(e) => return unread_report(report, unread(&c, &app.bus, e).await, c.call_timeout),
    };
    let n = snap.nodes.len();
    report.nodes = Some(n);
    match snap.truncated {
        None | Some(Truncation::NodeCap | Truncation::DepthCap | Truncation::SiblingCap) => {}
        Some(Truncation::AppGone) => return unread_report(report, Unread::Left, c.call_timeout),
        Some(Truncation::NotResponding) => {
            report.nodes = None;
            return unread_report(report, Unread::NotResponding, c.call_timeout);
        }
        // Cut short by time: ask once more whether it answers at all.
        Some(_) => {
            let again = b
                .caller()
                .with_deadline(Instant::now() + b.caller().call_timeout);
            match again.name(app).await {
                Ok(_) => {
                    report.hint = Some(format!(
                        "answers, slowly: {n} nodes read in {}, not the whole tree",
                        secs(STEP)
                    ));
                    return report;
                }
                Err(e) => {
                    let why = unread(&again, &app.bus, e).await;
                    report.nodes = None;
                    return unread_report(report, why, again.call_timeout);
                }
            }
        }
    }
    // An element that keeps a call unanswered is not an app that does not answer.
    let partial: Vec<String> = snap
        .nodes
        .iter()
        .filter(|n| n.is_partial())
        .map(|n| {
            format!(
                "{} ({})",
                crate::model::display::described(n),
                n.unanswered
                    .iter()
                    .chain(&n.malformed)
                    .chain(&n.vanished)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    if !partial.is_empty() {
        report.status = Status::Warn;
        report.hint = Some(format!(
            "answers, but {} not: {}{}",
            crate::model::display::counted(partial.len(), "element does", "elements do"),
            partial
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if partial.len() > 3 { ", …" } else { "" }
        ));
        return report;
    }
    if n <= TINY_TREE && pid.is_some() && pid == desktop.compositor {
        // KWin 6 registers itself (a two-node Qt tree): the desktop, not an app keeping its
        // tree back.
        report.hint =
            Some("the compositor itself (it registers a small tree of its own): not an app".into());
        return report;
    }
    if n <= TINY_TREE {
        // A window on screen (or, where not every window can be listed, one in its tree) with
        // next to nothing in it is a toolkit keeping its tree back; a portal or another
        // windowless service has only its application node, and that is all it should have.
        // A window in its own tree counts too: an app may draw where the display server
        // does not list it (the hint then says the tree is small, not that it is a service).
        let window_in_tree = snap.nodes.iter().any(|node| {
            node.parent == Some(0)
                && matches!(
                    node.role,
                    crate::model::Role::Frame
                        | crate::model::Role::Dialog
                        | crate::model::Role::Window
                )
        });
        let has_window = match &desktop.windows {
            Ok(_) => window.is_some() || window_in_tree,
            _ => window.is_some() || n > 1,
        };
        if has_window {
            report.status = Status::Warn;
            report.hint = Some(toolkit_hint(report.toolkit, true));
        } else {
            report.hint = Some(
                "no window of its own: a background service, and a tree this small is all it has"
                    .into(),
            );
        }
    }
    report
}

impl AtspiBackend {
    /// The `display` check: which desktop this is, and how keys, clicks and the highlight
    /// reach it (or why they cannot: refused writes and a missing frame then say the same).
    async fn input_check(&self) -> Check {
        let input = self.input.clone();
        let probed = tokio::task::spawn_blocking(move || {
            (
                input.desktop(),
                input.keyboard(),
                input.pointer(),
                desktop::highlight_here(),
            )
        });
        // A connection to KWin costs a program it grants its input to up to 2.4 s (KWin 5.27
        // reads the program's whole binary, 128 MB for a debug build): twice STEP.
        let Ok(Ok((desktop, keys, clicks, frame))) = tokio::time::timeout(2 * STEP, probed).await
        else {
            return Check::new(
                "display",
                Status::Warn,
                "the display server did not answer within 6 s",
            );
        };
        let said = |r: &Result<String, String>| match r {
            Ok(how) => how.clone(),
            Err(_) => "none".into(),
        };
        let text = format!(
            "{desktop}; keys: {}; clicks: {}; highlight: {}",
            said(&keys),
            said(&clicks),
            said(&frame)
        );
        let mut why: Vec<String> = Vec::new();
        // Each reason once: one that another already says in full is left out.
        for r in [&keys, &clicks, &frame] {
            if let Err(e) = r
                && !why.iter().any(|w| w.contains(e.as_str()))
            {
                why.retain(|w| !e.contains(w.as_str()));
                why.push(e.clone());
            }
        }
        if why.is_empty() {
            Check::new("display", Status::Ok, text)
        } else {
            Check::new("display", Status::Warn, text).fix(why.join("; "))
        }
    }
}

fn unread_report(mut report: AppReport, why: Unread, call_timeout: Duration) -> AppReport {
    report.status = Status::Warn;
    report.hint = Some(match why {
        Unread::NotResponding => {
            report.responding = false;
            format!(
                "not responding: it does not answer accessibility calls (no reply in {}); it \
                 may be busy or hung (it is still registered; a busy app answers again on its \
                 own)",
                secs(call_timeout)
            )
        }
        Unread::Left => "exited or left the accessibility bus while being read".into(),
        Unread::Failed(e) => format!("cannot read its tree: {e}"),
    });
    report
}

fn secs(d: Duration) -> String {
    crate::model::display::seconds(d.as_millis() as u64)
}

fn seen(w: &OwnedWindow) -> WindowSeen {
    WindowSeen {
        id: w.label.clone(),
        title: w.title.as_str().into(),
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

/// What `/proc` and the display server say of this desktop, read once per diagnosis.
struct Desktop {
    procs: Procs,
    /// Every top-level window of the desktop with the process that owns it (from the X server,
    /// or from sway's IPC on sway), or why they could not be listed.
    windows: Result<Vec<OwnedWindow>, String>,
    /// Who listed them (`the X display`, `sway's IPC`).
    source: String,
    /// The Wayland compositor's process, where there is one.
    compositor: Option<u32>,
}

impl Desktop {
    fn read() -> Desktop {
        let (source, windows) = match desktop::window_list() {
            Ok((source, w)) => (source, Ok(w)),
            Err(e) => (String::new(), Err(e)),
        };
        Desktop {
            procs: Procs::read(),
            windows,
            source,
            compositor: desktop::compositor_pid(),
        }
    }

    /// The `windows` check: what was listed, and what could not be checked.
    fn check(&self) -> Check {
        match &self.windows {
            Ok(w) => {
                let owners: HashSet<u32> = w.iter().map(|w| w.pid).collect();
                Check::new(
                    "windows",
                    Status::Ok,
                    format!(
                        "{} top-level window(s) of {} process(es), from {}",
                        w.len(),
                        owners.len(),
                        self.source
                    ),
                )
            }
            Err(e) => Check::new(
                "windows",
                Status::Skip,
                format!(
                    "top-level windows cannot be listed ({e}): an app cannot be told from a \
                     background service, so no process is flagged for not being on the bus; \
                     only those whose environment turns accessibility off are listed"
                ),
            ),
        }
    }

    /// The largest window of the app `pid` belongs to.
    fn window_of_app(&self, pid: u32) -> Option<&OwnedWindow> {
        let app = self.procs.app_of(pid);
        self.windows
            .as_ref()
            .ok()?
            .iter()
            .filter(|w| self.procs.app_of(w.pid) == app)
            .max_by_key(|w| (area(w), std::cmp::Reverse(w.window)))
    }

    /// The apps of this session that are not on the bus and should be: those that own a
    /// window (warnings); where windows cannot be listed, those whose environment turns
    /// accessibility off (`skip`: whether they have a window is not known).
    fn unregistered(&self, registered: &HashSet<u32>) -> Vec<AppReport> {
        let me = std::process::id();
        let session = std::env::var("DBUS_SESSION_BUS_ADDRESS").ok();
        let mut out = Vec::new();
        let mut judged = HashSet::new();
        if let Ok(windows) = &self.windows {
            judged.extend(windows.iter().map(|w| self.procs.app_of(w.pid)));
            for w in windows_off_the_bus(&self.procs, windows, registered, me) {
                out.extend(off_bus_report(w.pid, session.as_deref(), Some(w)));
            }
        }
        if self.windows.is_err() {
            let deadline = Instant::now() + Duration::from_secs(2);
            for pid in apps_off_the_bus(&self.procs, registered, me) {
                if Instant::now() > deadline {
                    break;
                }
                if !judged.contains(&pid) {
                    out.extend(off_bus_report(pid, session.as_deref(), None));
                }
            }
        }
        out
    }
}

fn area(w: &OwnedWindow) -> u64 {
    u64::from(w.width) * u64::from(w.height)
}

/// One process as `/proc` shows it: enough to tell which processes make one app.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Proc {
    ppid: u32,
    /// Its executable; unknown for other users' processes.
    exe: Option<String>,
}

/// The processes of the machine, by pid.
#[derive(Debug, Clone, Default)]
struct Procs(HashMap<u32, Proc>);

impl Procs {
    fn read() -> Procs {
        let mut out = HashMap::new();
        let deadline = Instant::now() + Duration::from_secs(2);
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Procs(out);
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
            let base = entry.path();
            let Some(ppid) = std::fs::read_to_string(base.join("stat"))
                .ok()
                .and_then(|s| parse_ppid(&s))
            else {
                continue;
            };
            let exe = std::fs::read_link(base.join("exe")).ok().map(|p| {
                let p = p.to_string_lossy();
                p.strip_suffix(" (deleted)").unwrap_or(&p).to_string()
            });
            out.insert(pid, Proc { ppid, exe });
        }
        Procs(out)
    }

    /// The app `pid` belongs to, named by its topmost process: up the parent chain as long as
    /// the parent runs the same executable. So a browser and its content processes are one app,
    /// and so are processes its process forked (siblings under it); two copies of a program
    /// started from one shell are two apps, each of which must register.
    fn app_of(&self, pid: u32) -> u32 {
        let mut cur = pid;
        // A chain longer than the table can only be a loop (pids reused while being read).
        for _ in 0..=self.0.len() {
            let Some(p) = self.0.get(&cur) else {
                return cur;
            };
            match (self.0.get(&p.ppid), &p.exe) {
                (Some(parent), Some(exe)) if p.ppid != cur && parent.exe.as_ref() == Some(exe) => {
                    cur = p.ppid
                }
                _ => return cur,
            }
        }
        cur
    }
}

/// The parent pid from `/proc/PID/stat` (`pid (comm) state ppid …`; the command name may hold
/// spaces and parentheses, so the fields are counted after its last `)`).
fn parse_ppid(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// The apps that own a top-level window and have no process on the bus, each with its largest
/// window. Processes are one app as [`Procs::app_of`] says; a window whose pid is no process
/// here (another pid namespace, or gone) and treeglass's own process are left out.
fn windows_off_the_bus<'w>(
    procs: &Procs,
    windows: &'w [OwnedWindow],
    registered: &HashSet<u32>,
    me: u32,
) -> Vec<&'w OwnedWindow> {
    let on_bus: HashSet<u32> = registered.iter().map(|p| procs.app_of(*p)).collect();
    let mut best: std::collections::BTreeMap<u32, &OwnedWindow> = Default::default();
    for w in windows {
        if w.pid == me || !procs.0.contains_key(&w.pid) {
            continue;
        }
        let app = procs.app_of(w.pid);
        if on_bus.contains(&app) {
            continue;
        }
        best.entry(app)
            .and_modify(|b| {
                if (area(w), std::cmp::Reverse(w.window)) > (area(b), std::cmp::Reverse(b.window)) {
                    *b = w;
                }
            })
            .or_insert(w);
    }
    best.into_values().collect()
}

/// Where windows cannot be listed: the top process of every app that has no process on the
/// bus (its helpers and content processes are not apps of their own), in pid order.
fn apps_off_the_bus(procs: &Procs, registered: &HashSet<u32>, me: u32) -> Vec<u32> {
    let on_bus: HashSet<u32> = registered.iter().map(|p| procs.app_of(*p)).collect();
    let mut out: Vec<u32> = procs
        .0
        .keys()
        .copied()
        .filter(|p| *p != me && procs.app_of(*p) == *p && !on_bus.contains(p))
        .collect();
    out.sort_unstable();
    out
}

/// The line for a process of this session that is not on the bus: flagged (`warn`) when it
/// owns `window`; without one, listed (`skip`) only when its environment turns accessibility
/// off. None for processes that are not this user's, are on another session bus, or load no
/// toolkit that could give a tree.
fn off_bus_report(
    pid: u32,
    session: Option<&str>,
    window: Option<&OwnedWindow>,
) -> Option<AppReport> {
    let base = std::path::PathBuf::from(format!("/proc/{pid}"));
    let environ = std::fs::read(base.join("environ")).ok()?;
    let env: Vec<&[u8]> = environ.split(|b| *b == 0).collect();
    let has = |kv: &str| env.contains(&kv.as_bytes());
    let other_session = env
        .iter()
        .filter_map(|kv| kv.strip_prefix(b"DBUS_SESSION_BUS_ADDRESS="))
        .any(|a| Some(a) != session.map(str::as_bytes));
    if other_session {
        return None;
    }
    let args = process::cmdline(pid);
    let toolkit = toolkit_of_process(&base, &args)?;
    let off = switch_off(toolkit).filter(|v| has(v));
    let hint = match (off, window) {
        (Some(v), Some(_)) => format!("its environment has {v}: restart it without"),
        (Some(v), None) => format!(
            "its environment has {v}: if it is an app with a window, restart it without \
             (windows could not be listed, so whether it has one is not known)"
        ),
        (None, Some(_)) => toolkit_hint(Some(toolkit), false),
        (None, None) => return None,
    };
    Some(AppReport {
        name: process::label(pid).unwrap_or_default().into(),
        pid: Some(pid),
        toolkit: Some(toolkit),
        toolkit_version: None,
        registered: false,
        nodes: None,
        responding: true,
        window: window.map(seen),
        status: if window.is_some() {
            Status::Warn
        } else {
            Status::Skip
        },
        hint: Some(hint),
    })
}

/// The environment setting that stops the toolkit registering.
fn switch_off(toolkit: Toolkit) -> Option<&'static str> {
    match toolkit {
        Toolkit::Gtk4 => Some("GTK_A11Y=none"),
        t if t.is_qt() => Some("QT_ACCESSIBILITY=0"),
        // Everything that reaches the bus through the ATK bridge.
        Toolkit::Gtk3
        | Toolkit::Gtk
        | Toolkit::Chromium
        | Toolkit::Gecko
        | Toolkit::LibreOffice
        | Toolkit::Java => Some("NO_AT_BRIDGE=1"),
        _ => None,
    }
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
    // Engines that also load GTK come first: their own name is the better hint.
    [
        ("libxul.so", Toolkit::Gecko),
        ("libmergedlo.so", Toolkit::LibreOffice),
        ("libvcllo.so", Toolkit::LibreOffice),
        ("libawt_xawt.so", Toolkit::Java),
        ("libgtk-4.so", Toolkit::Gtk4),
        ("libgtk-3.so", Toolkit::Gtk3),
        ("libQt6Gui.so", Toolkit::Qt6),
        ("libQt5Gui.so", Toolkit::Qt5),
    ]
    .iter()
    .find(|(lib, _)| maps.contains(lib))
    .map(|(_, tk)| *tk)
}

#[cfg(test)]
mod tests;
