//! Graded targets on the real bus: every interactive node (the model's `Role::is_interactive`)
//! of the GTK 3 fixture app, gtk3-widget-factory and gtk4-widget-factory gets a suggested target
//! from `tree --targets`, and `find` resolves that target, on a fresh read, back to the same
//! node. The grades are reported (the positional share is a figure to watch, not a pass/fail
//! line), and after each test the app is still alive and still registered on the bus.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;
use treeglass::backend::atspi::AtspiBackend;
use treeglass::cli::{FindArgs, Scope};
use treeglass::model::Role;
use treeglass::session::Session;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// One interactive node as `tree --targets --json` printed it.
struct Suggested {
    row: u64,
    role: String,
    name: String,
    target: String,
    grade: String,
    /// The platform's id of the node.
    id: Value,
}

/// What one app's check found.
#[derive(Debug, Default)]
struct Report {
    nodes: u64,
    interactive: usize,
    stable: usize,
    contextual: usize,
    positional: usize,
    /// Of the first 60 interactive nodes (the measure), how many have a target.
    first_60_with_target: usize,
    first_60: usize,
    /// How many resolved among the candidates the app found (`Collection.GetMatches`).
    narrowed: usize,
    failures: Vec<String>,
}

impl Report {
    fn line(&self, app: &str) -> String {
        let share = |n: usize| 100.0 * n as f64 / self.interactive.max(1) as f64;
        format!(
            "{app}: {} nodes, {} interactive — {} stable ({:.0}%), {} contextual ({:.0}%), {} \
             positional ({:.0}%); first {}: {} with a target, {} without; {} resolved among the \
             app's candidates",
            self.nodes,
            self.interactive,
            self.stable,
            share(self.stable),
            self.contextual,
            share(self.contextual),
            self.positional,
            share(self.positional),
            self.first_60,
            self.first_60_with_target,
            self.first_60 - self.first_60_with_target,
            self.narrowed
        )
    }
}

/// The interactive nodes of `app`'s tree with their suggested targets, in tree order.
fn suggestions(app: &str) -> (u64, Vec<Suggested>) {
    let o = treeglass(&["tree", "--app", &format!("^{app}$"), "--targets", "--json"]);
    assert!(o.status.success(), "tree --targets: {}", stdout(&o));
    let v = json_of(&o);
    assert_eq!(v["complete"], true, "{app}: the tree was not read whole");
    let mut out = Vec::new();
    let mut stack = vec![&v["root"]];
    while let Some(n) = stack.pop() {
        let role = n["role"].as_str().unwrap().to_string();
        if Role::from_name(&role).is_some_and(Role::is_interactive) {
            out.push(Suggested {
                row: n["row"].as_u64().unwrap(),
                name: n["name"].as_str().unwrap_or("").to_string(),
                target: n["target"].as_str().unwrap_or("").to_string(),
                grade: n["grade"].as_str().unwrap_or("").to_string(),
                id: n["id"].clone(),
                role,
            });
        }
        if let Some(kids) = n["children"].as_array() {
            stack.extend(kids.iter().rev());
        }
    }
    (v["node_count"].as_u64().unwrap(), out)
}

/// Runs `find` (the command's own code, in this process, on one bus connection) for every
/// interactive node's suggested target and checks that it names that node; a sample also goes
/// through the `treeglass find` binary.
fn check(app: &str) -> Report {
    check_with(app, false)
}

/// [`check`], letting `find` ask the app for the candidates of each target's role where it can
/// (`narrow`, as the `treeglass find` command does).
fn check_with(app: &str, narrow: bool) -> Report {
    let (nodes, list) = suggestions(app);
    let mut r = Report {
        nodes,
        interactive: list.len(),
        first_60: list.len().min(60),
        ..Report::default()
    };
    r.first_60_with_target = list
        .iter()
        .take(60)
        .filter(|s| !s.target.is_empty())
        .count();
    rt().block_on(async {
        let backend = Arc::new(AtspiBackend::connect(Duration::from_secs(5)).await.unwrap());
        let session = Session::new(backend);
        session
            .narrow
            .store(narrow, std::sync::atomic::Ordering::Relaxed);
        for (i, s) in list.iter().enumerate() {
            match s.grade.as_str() {
                "stable" => r.stable += 1,
                "contextual" => r.contextual += 1,
                "positional" => r.positional += 1,
                other => r.failures.push(format!(
                    "row {} ({} {:?}): grade {other:?}",
                    s.row, s.role, s.name
                )),
            }
            if s.target.is_empty() {
                r.failures.push(format!(
                    "row {} ({} {:?}): no target",
                    s.row, s.role, s.name
                ));
                continue;
            }
            let args = FindArgs {
                target: s.target.clone(),
                scope: Scope {
                    app: Some(format!("^{app}$")),
                    ..Scope::default()
                },
                wait_ms: Some(5_000),
                json: true,
                whole_tree: false,
            };
            let found = match treeglass::cli::find(&session, &args).await {
                Ok((out, 0)) => serde_json::from_str::<Value>(&out).unwrap(),
                Ok((out, code)) => {
                    r.failures
                        .push(format!("{} (row {}): exit {code}: {out}", s.target, s.row));
                    continue;
                }
                Err(f) => {
                    r.failures
                        .push(format!("{} (row {}): {}", s.target, s.row, f.message));
                    continue;
                }
            };
            if found.get("narrowed").is_some() {
                r.narrowed += 1;
                // Narrowed: the snapshot is the path alone; the node is named by its id.
                if found["id"] != s.id {
                    r.failures.push(format!(
                        "{} narrowed to {} {} (suggested for row {}, {})",
                        s.target, found["id"], found["path"], s.row, s.id
                    ));
                }
            } else if found["row"].as_u64() != Some(s.row) {
                r.failures.push(format!(
                    "{} named row {} but was suggested for row {}",
                    s.target, found["row"], s.row
                ));
            }
            if i % 15 == 0 {
                let o = treeglass(&[
                    "find",
                    &s.target,
                    "--app",
                    &format!("^{app}$"),
                    "--wait-ms",
                    "5000",
                    "--json",
                ]);
                let v = json_of(&o);
                // The command may narrow (Chromium): its snapshot is then the path alone, so
                // the element is compared by id, not by row.
                if o.status.code() != Some(0) || v["id"] != s.id {
                    r.failures.push(format!(
                        "treeglass find {}: exit {:?}, id {} (want {}, row {})",
                        s.target,
                        o.status.code(),
                        v["id"],
                        s.id,
                        s.row
                    ));
                }
            }
        }
    });
    r
}

/// `treeglass apps --json` lists an app of this name and pid.
fn registered(app: &str, pid: u32) -> bool {
    common::registered_app(pid).is_some_and(|a| a["name"] == app)
}

fn assert_all_resolve(app: &str, r: &Report) {
    eprintln!("{}", r.line(app));
    assert!(
        r.failures.is_empty(),
        "{app}: {} of {} interactive nodes failed:\n  {}",
        r.failures.len(),
        r.interactive,
        r.failures.join("\n  ")
    );
    assert_eq!(r.stable + r.contextual + r.positional, r.interactive);
}

/// Starts gtk4-widget-factory (with the cairo renderer: no GL under Xvfb) and waits until its
/// tree holds still.
fn start_gtk4_widget_factory() -> Child {
    require_stack();
    let mut child = Command::new("gtk4-widget-factory")
        .env("GSK_RENDERER", "cairo")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gtk4-widget-factory (Debian package gtk-4-examples)");
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut last, mut same) = (0u64, 0);
    while Instant::now() < deadline {
        let o = treeglass(&["tree", "--app", "^gtk4-widget-factory$", "--json"]);
        if o.status.success() {
            let count = json_of(&o)["node_count"].as_u64().unwrap_or(0);
            if count > 100 && count == last {
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
    panic!("gtk4-widget-factory never settled on the bus");
}

/// Kills a child we started, after checking it survived the test and is still on the bus.
fn assert_alive_then_stop(mut child: Child, app: &str) {
    let pid = child.id();
    let exited = child.try_wait().unwrap();
    let on_bus = exited.is_none() && registered(app, pid);
    let _ = child.kill();
    let _ = child.wait();
    assert!(exited.is_none(), "{app} exited during the test: {exited:?}");
    assert!(
        on_bus,
        "{app} (pid {pid}) is no longer registered on the bus"
    );
}

#[test]
fn fixture_every_interactive_node_resolves_back() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("targets");
    let r = check(&app.name);
    // Alive: it answers its control protocol, and the registry still lists it.
    assert!(app.state()["title"].is_string());
    assert!(registered(&app.name, app.pid), "{} left the bus", app.name);
    assert!(r.interactive >= 25, "{}", r.interactive);
    assert_all_resolve("the GTK 3 fixture", &r);
}

#[test]
fn gtk3_widget_factory_every_interactive_node_resolves_back() {
    let _turn = common::turn::shared();
    let wf = start_widget_factory();
    let r = check("gtk3-widget-factory");
    assert_alive_then_stop(wf, "gtk3-widget-factory");
    assert!(r.interactive > 100, "{}", r.interactive);
    assert_all_resolve("gtk3-widget-factory", &r);
}

#[test]
fn gtk4_widget_factory_every_interactive_node_resolves_back() {
    let _turn = common::turn::shared();
    let wf = start_gtk4_widget_factory();
    let r = check("gtk4-widget-factory");
    assert_alive_then_stop(wf, "gtk4-widget-factory");
    assert!(r.interactive > 200, "{}", r.interactive);
    assert_all_resolve("gtk4-widget-factory", &r);
}

#[test]
fn qt5_gallery_every_interactive_node_resolves_back() {
    let _turn = common::turn::shared();
    let mut app = common::matrix::MatrixApp::start(common::matrix::Kit::Qt5);
    let r = check("gallery");
    app.assert_alive("every suggestion resolved");
    // Its item views manage their descendants: only the visible cells are read (the table's
    // 100 empty cells sit in a hidden tab).
    assert!(r.interactive > 30, "{}", r.interactive);
    assert_all_resolve("the Qt 5 gallery", &r);
}

#[test]
fn chromium_every_interactive_node_resolves_back() {
    let _turn = common::turn::shared();
    let mut app = common::matrix::MatrixApp::start(common::matrix::Kit::Chromium);
    let r = check("Chromium");
    app.assert_alive("every suggestion resolved");
    assert!(r.interactive > 20, "{}", r.interactive);
    assert_all_resolve("Chromium (the form page and the browser's own UI)", &r);
    // Again with the candidates found by Chromium (Collection.GetMatches on each role): every
    // target names the same element, and most were narrowed (not those with an ancestor, a
    // neighbour or a position).
    let n = check_with("Chromium", true);
    app.assert_alive("every suggestion resolved among Chromium's candidates");
    assert_all_resolve("Chromium, narrowed", &n);
    assert!(
        n.narrowed * 2 > n.interactive,
        "{} of {}",
        n.narrowed,
        n.interactive
    );
}

#[test]
fn firefox_every_interactive_node_resolves_back() {
    let _turn = common::turn::shared();
    let mut app = common::matrix::MatrixApp::start(common::matrix::Kit::Firefox);
    let r = check("Firefox");
    app.assert_alive("every suggestion resolved");
    assert!(r.interactive > 20, "{}", r.interactive);
    assert_all_resolve("Firefox (the form page and the browser's own UI)", &r);
    // Again with the candidates found by Firefox (Collection.GetMatches on each role).
    let n = check_with("Firefox", true);
    app.assert_alive("every suggestion resolved among Firefox's candidates");
    assert_all_resolve("Firefox, narrowed", &n);
    assert!(
        n.narrowed * 2 > n.interactive,
        "{} of {}",
        n.narrowed,
        n.interactive
    );
}
