//! Benchmarks on the real accessibility bus (run inside `scripts/a11y-session`), one run for
//! every app of the toolkit matrix:
//! - treeglass's full snapshot (warm: repeated on one connection; cold: a new connection),
//! - the app's own `Cache.GetItems` call and a pipelined per-level walk (GetRole, Name,
//!   GetChildren of a whole level at once), both raw D-Bus (`scripts/bus-baselines.py`),
//! - a pyatspi recursive walk (the way Accerciser and dogtail read trees), in-process,
//! - the whole `treeglass tree --json` process next to that in-process pyatspi walk;
//!
//! and resolve + write + verified read-back of a text field; then the big trees (the 2,000-row
//! page in Chromium and Firefox, Calc): `tree`, `audit`, `find`, `set`, the inspector, and what
//! each browser itself answers (each kind of call an element's read sends, µs a call).
//!
//! `scripts/a11y-session cargo bench --bench atspi` (`TREEGLASS_BENCH=big` for the big trees
//! alone). With `TREEGLASS_BENCH_BASELINE=PATH` (another build's `treeglass` binary) every
//! whole-process figure is also taken with that binary, runs alternating, and printed beside
//! this build's.
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]

#[allow(unused_imports)]
#[path = "../tests/common/mod.rs"]
mod common;

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::matrix::{Kit, MatrixApp};
use treeglass::backend::atspi::AtspiBackend;
use treeglass::backend::{Backend, Limits};
use treeglass::model::NodeId;
use treeglass::selector::{Resolution, Target};
use treeglass::session::Session;
use treeglass::write::{Outcome, Placement, WriteOptions, set_value};

const RUNS: usize = 21;
const COLD: usize = 5;
const PROCESS_RUNS: usize = 11;

/// The binary whole-process figures are compared with (`TREEGLASS_BENCH_BASELINE`).
fn baseline() -> Option<String> {
    std::env::var("TREEGLASS_BENCH_BASELINE")
        .ok()
        .filter(|p| !p.is_empty())
}

/// This build's binary, then the baseline's when there is one.
fn binaries() -> Vec<String> {
    let mut v = vec![env!("CARGO_BIN_EXE_treeglass").to_string()];
    v.extend(baseline());
    v
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn python(script: &str, args: &[&str]) -> serde_json::Value {
    let o = Command::new("/usr/bin/python3")
        .arg(format!("{}/scripts/{script}", env!("CARGO_MANIFEST_DIR")))
        .args(args)
        .output()
        .expect("run a python baseline");
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{script} {args:?}: {e}: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// The root `tree --pid` reads (the app's only window, or the app), by asking the binary.
fn root_of(pid: u32) -> NodeId {
    let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "atspi", "apps", "--json"])
        .output()
        .expect("treeglass apps");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("apps JSON");
    let app = v["apps"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["pid"].as_u64() == Some(pid as u64)))
        .expect("app on the bus");
    let wins = app["windows"].as_array().expect("windows");
    let id = if wins.len() == 1 {
        wins[0]["id"].as_str()
    } else {
        app["id"].as_str()
    };
    NodeId(id.expect("id").to_string())
}

struct Row {
    label: String,
    nodes: usize,
    warm: f64,
    cold: f64,
    getitems: f64,
    items: u64,
    level: f64,
    pyatspi: f64,
    process: f64,
    /// The same with the baseline binary.
    base_process: Option<f64>,
}

async fn measure(backend: &AtspiBackend, label: &str, pid: u32) -> Row {
    let root = root_of(pid);
    let mut warm = Vec::new();
    let mut nodes = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let s = backend
            .snapshot(&root, &Limits::default())
            .await
            .expect("snapshot");
        warm.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(
            s.complete(),
            "incomplete snapshot of {label}: {:?}",
            s.truncated
        );
        nodes = s.nodes.len();
    }
    let mut cold = Vec::new();
    for _ in 0..COLD {
        let fresh = AtspiBackend::connect(Duration::from_secs(5))
            .await
            .expect("connect");
        let t = Instant::now();
        let s = fresh
            .snapshot(&root, &Limits::default())
            .await
            .expect("snapshot");
        cold.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(s.complete());
    }
    let pid_s = pid.to_string();
    let base = python("bus-baselines.py", &["--pid", &pid_s, "--repeat", "11"]);
    let walk = python(
        "pyatspi-walk.py",
        &["--pid", &pid_s, "--repeat", &RUNS.to_string()],
    );
    let bins = binaries();
    let mut process: Vec<Vec<f64>> = vec![Vec::new(); bins.len()];
    for _ in 0..PROCESS_RUNS {
        for (bin, times) in bins.iter().zip(process.iter_mut()) {
            let t = Instant::now();
            let o = Command::new(bin)
                .args(["--backend", "atspi", "tree", "--json", "--pid", &pid_s])
                .output()
                .expect("treeglass tree");
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
    }
    Row {
        label: label.to_string(),
        nodes,
        warm: median(&mut warm),
        cold: median(&mut cold),
        getitems: base["getitems_ms"].as_f64().unwrap_or(f64::NAN),
        items: base["getitems_items"].as_u64().unwrap_or(0),
        level: base["level_walk_ms"].as_f64().unwrap_or(f64::NAN),
        pyatspi: walk["median_ms"].as_f64().unwrap_or(f64::NAN),
        process: median(&mut process[0]),
        base_process: process.get_mut(1).map(|t| median(t)),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    if std::env::var("TREEGLASS_A11Y_SESSION").as_deref() != Ok("1") {
        eprintln!(
            "run inside the accessibility stack: scripts/a11y-session cargo bench --bench atspi"
        );
        std::process::exit(2);
    }
    let backend = Arc::new(
        AtspiBackend::connect(Duration::from_secs(5))
            .await
            .expect("connect to the a11y bus"),
    );
    // `TREEGLASS_BENCH=big`: only the big trees.
    if std::env::var("TREEGLASS_BENCH").as_deref() == Ok("big") {
        big_bench();
        return;
    }
    let mut rows = Vec::new();
    {
        let fixture = common::FixtureApp::start("bench");
        rows.push(measure(&backend, "GTK 3 fixture", fixture.pid).await);
    }
    for kit in Kit::ALL {
        // One app at a time: each is measured alone on the machine's two cores.
        let app = MatrixApp::start(kit);
        rows.push(measure(&backend, kit.label(), app.pid).await);
    }

    println!(
        "Full snapshots (median of {RUNS}; cold: first snapshot on a new connection, median of {COLD}), ms"
    );
    println!("  GetItems: the app's own Cache.GetItems call; level walk: pipelined per-level");
    println!("  GetRole + Name + GetChildren (raw D-Bus); pyatspi: recursive walk, in-process;");
    println!("  process: the whole `treeglass tree --json` command (median of {PROCESS_RUNS});");
    println!("  py/level: pyatspi over the level walk, the most any reader that asks each element");
    println!("  at least its role, name and children can gain on pyatspi with this app.");
    if baseline().is_some() {
        println!("  base: the same process with the baseline binary, runs alternating.");
    }
    println!(
        "{:<22} {:>6} {:>8} {:>8} {:>9} {:>6} {:>8} {:>8} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "app",
        "nodes",
        "warm",
        "cold",
        "GetItems",
        "items",
        "level",
        "pyatspi",
        "process",
        "warm/GI",
        "py/proc",
        "py/level",
        "base",
        "py/base"
    );
    for r in &rows {
        let (base, py_base) = match r.base_process {
            Some(b) => (format!("{b:.2}"), format!("{:.2}×", r.pyatspi / b)),
            None => ("—".into(), "—".into()),
        };
        println!(
            "{:<22} {:>6} {:>8.2} {:>8.2} {:>9.2} {:>6} {:>8.2} {:>8.2} {:>9.2} {:>7.2}× {:>8.2}× {:>8.2}× {:>9} {:>9}",
            r.label,
            r.nodes,
            r.warm,
            r.cold,
            r.getitems,
            r.items,
            r.level,
            r.pyatspi,
            r.process,
            r.warm / r.getitems,
            r.pyatspi / r.process,
            r.pyatspi / r.level,
            base,
            py_base
        );
    }
    println!("goals: warm ≤ 2× GetItems where the cache answers; ≤ the level walk where it does");
    println!("not (Qt); the whole process ≥ 3× faster than the in-process pyatspi walk on");
    println!("gtk3-widget-factory, gtk4-widget-factory and Chromium (stretch 10×).");

    write_bench(&backend).await;
    big_bench();
}

/// The whole process of the `treeglass` binary `bin` with `args`: seconds and peak RSS in MB
/// (`/usr/bin/time`).
fn timed_binary(bin: &str, args: &[&str]) -> (f64, f64, std::process::Output) {
    let t = Instant::now();
    let o = Command::new("/usr/bin/time")
        .args(["-f", "peak-kb %M"])
        .arg(bin)
        .args(["--backend", "atspi"])
        .args(args)
        .output()
        .expect("/usr/bin/time treeglass (Debian package time)");
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr);
    let kb: f64 = err
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak-kb "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN);
    (secs, kb / 1024.0, o)
}

/// Big trees, whole process: the 2,000-row page in Chromium and in Firefox, and LibreOffice
/// Calc: a complete `tree --json` (median of 3) beside an in-process pyatspi walk of the same
/// app (one walk: it takes seconds), nodes per second, peak RSS; `find` and `set` of row 1,500
/// on the pages (median of 3; set alternates true and false).
fn big_bench() {
    const BIG_RUNS: usize = 3;
    println!();
    println!(
        "Big trees, whole process (median of {BIG_RUNS}; pyatspi: one in-process walk), seconds"
    );
    println!(
        "{:<20} {:>6} {:>7} {:>7} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "app",
        "nodes",
        "tree",
        "audit",
        "nodes/s",
        "peak MB",
        "pyatspi",
        "py/tg",
        "find",
        "find/wt",
        "set",
        "paint",
        "whole",
        "TUI MB"
    );
    for kit in [Kit::BigPage, Kit::FirefoxBigPage, Kit::Calc] {
        // One app that cannot be measured (it never settles) costs its row, not the others.
        let row = std::panic::catch_unwind(|| big_row(kit));
        match row {
            Ok(line) => println!("{line}"),
            Err(_) => println!(
                "{:<20} could not be measured (see the message above)",
                kit.label()
            ),
        }
    }
    println!(
        "find: `find` as it runs (the browsers narrow the candidates); find/wt: the same with"
    );
    println!("--whole-tree (the tree read, as on every other toolkit).");
    println!("paint / whole: the inspector (`treeglass --pid N` in a tmux pane, polled every");
    println!("20 ms) from start to its first tree lines, and to the whole tree (the read's");
    println!("progress gone from the title); TUI MB: its peak RSS after a filter on the whole");
    println!("tree. set: the default command, with its 600 ms watch after the verdict.");
    println!("audit: `treeglass audit --json`, whole process (the tree with label relations, then");
    println!("every rule).");
    if baseline().is_some() {
        println!("baseline: the same commands with the baseline binary, runs alternating.");
    }
    println!("goals: a complete read of the page ≥ 3× faster than the pyatspi walk (stretch");
    println!("10×); find and set of one element on the page ≤ 1 s; first paint ≤ 1 s.");
}

/// One row of [`big_bench`].
fn big_row(kit: Kit) -> String {
    const BIG_RUNS: usize = 3;
    let app = MatrixApp::start(kit);
    let pid = app.pid.to_string();
    let bins = binaries();
    let n = bins.len();
    // Per binary: tree, find, find --whole-tree and set times; runs alternate between binaries.
    let (mut tree, mut f, mut fw, mut w) = (
        vec![Vec::new(); n],
        vec![Vec::new(); n],
        vec![Vec::new(); n],
        vec![Vec::new(); n],
    );
    let (mut peak, mut nodes) = (vec![0.0f64; n], vec![0u64; n]);
    let mut audit = vec![Vec::new(); n];
    for _ in 0..BIG_RUNS {
        for (b, bin) in bins.iter().enumerate() {
            let (secs, mb, o) = timed_binary(bin, &["tree", "--json", "--pid", &pid]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("tree JSON");
            assert_eq!(v["complete"], true, "{}: {}", kit.label(), v["truncated"]);
            nodes[b] = v["node_count"].as_u64().unwrap_or(0);
            tree[b].push(secs);
            peak[b] = peak[b].max(mb);
            // The audit reads the tree with the label relation, then runs every rule: exit 0
            // (clean) or 14 (findings); a cut read (12) is not a figure.
            let (secs, _, o) = timed_binary(bin, &["audit", "--json", "--pid", &pid]);
            assert!(
                matches!(o.status.code(), Some(0 | 14)),
                "audit: {:?} {}",
                o.status.code(),
                String::from_utf8_lossy(&o.stderr)
            );
            audit[b].push(secs);
        }
    }
    let walk = python("pyatspi-walk.py", &["--pid", &pid, "--repeat", "1"]);
    let py = walk["median_ms"].as_f64().unwrap_or(f64::NAN) / 1000.0;
    let mut refused = None;
    if kit.is_big_page() {
        let target = r#"check-box "Row 1500 done""#;
        let mut writes = 0usize;
        for _ in 0..BIG_RUNS {
            for (b, bin) in bins.iter().enumerate() {
                let (secs, _, o) = timed_binary(bin, &["find", target, "--pid", &pid]);
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
                f[b].push(secs);
                let (secs, _, o) =
                    timed_binary(bin, &["find", target, "--pid", &pid, "--whole-tree"]);
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
                fw[b].push(secs);
                // A refused write is reported, not timed, and not tried again.
                if refused.is_some() {
                    continue;
                }
                // Every set changes the value: true and false alternate over all runs.
                let value = if writes.is_multiple_of(2) {
                    "true"
                } else {
                    "false"
                };
                writes += 1;
                let (secs, _, o) = timed_binary(bin, &["set", target, value, "--pid", &pid]);
                if !o.status.success() {
                    refused = Some(String::from_utf8_lossy(&o.stdout).into_owned());
                    continue;
                }
                w[b].push(secs);
            }
        }
        if let Some(why) = &refused {
            eprintln!("{}: set not timed: {why}", kit.label());
        }
    }
    let timed = |v: &mut Vec<f64>| {
        if v.is_empty() {
            "—".to_string()
        } else {
            format!("{:.2}", median(v))
        }
    };
    // What the app answers: a read call by call (no cache) cannot beat this per element.
    let costs = kit.is_big_page().then(|| call_costs(app.pid));
    let (paint, whole, tui_mb) = tui_paint(&pid);
    let mut lines = Vec::new();
    for b in 0..n {
        let t = median(&mut tree[b]);
        let set = match (&refused, kit.is_big_page()) {
            (Some(_), _) => "refused".to_string(),
            (None, true) => timed(&mut w[b]),
            (None, false) => "—".to_string(),
        };
        let (label, tui) = if b == 0 {
            (
                kit.label().to_string(),
                format!("{paint:>7.2} {whole:>7.2} {tui_mb:>7.1}"),
            )
        } else {
            (
                "  baseline".to_string(),
                format!("{:>7} {:>7} {:>7}", "", "", ""),
            )
        };
        lines.push(format!(
            "{:<20} {:>6} {:>7.2} {:>7.2} {:>8.0} {:>8.1} {:>8.2} {:>5.1}× {:>7} {:>7} {:>7} {}",
            label,
            nodes[b],
            t,
            median(&mut audit[b]),
            nodes[b] as f64 / t,
            peak[b],
            py,
            py / t,
            timed(&mut f[b]),
            timed(&mut fw[b]),
            set,
            tui
        ));
    }
    if let Some(costs) = costs {
        let sum: f64 = costs.iter().map(|(_, us)| us).sum();
        let each: Vec<String> = costs
            .iter()
            .map(|(kind, us)| format!("{kind} {us:.0}"))
            .collect();
        lines.push(format!(
            "  the app's answers, µs a call (every check box asked at once, one kind at a time): {}; \
             Σ {sum:.0} µs an element: {:.2} s for the page asked call by call",
            each.join(" · "),
            sum * nodes[0] as f64 / 1e6
        ));
    }
    lines.join("\n")
}

/// [`AtspiBackend::call_costs`] on the check boxes of `pid`'s window, on a connection and
/// runtime of its own (the big trees' part runs outside the bench's runtime).
fn call_costs(pid: u32) -> Vec<(&'static str, f64)> {
    let root = root_of(pid);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().expect("a runtime");
        rt.block_on(async {
            let b = AtspiBackend::connect(Duration::from_secs(5))
                .await
                .expect("connect to the a11y bus");
            b.call_costs(&root, treeglass::model::Role::CheckBox)
                .await
                .expect("the app's call costs")
        })
    })
    .join()
    .expect("the call-cost thread")
}

/// The inspector on `pid`'s window, whole process: seconds to the first frame with tree lines
/// (a node line under the window's frame), to the whole tree (no read progress in the tree
/// pane's title), and its peak RSS in MB once the tree is whole and filtered.
fn tui_paint(pid: &str) -> (f64, f64, f64) {
    let tmux = common::tmux::Tmux::new();
    let t = Instant::now();
    tmux.start(&["--pid", pid]);
    let (mut paint, mut whole) = (f64::NAN, f64::NAN);
    while t.elapsed() < Duration::from_secs(120) {
        let screen = tmux.screen();
        let top = screen.lines().next().unwrap_or_default();
        if paint.is_nan() && screen.contains("▾ frame") {
            paint = t.elapsed().as_secs_f64();
        }
        if !paint.is_nan() && top.contains(" nodes · ") && !top.contains("reading…") {
            whole = t.elapsed().as_secs_f64();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // One filter over the whole tree, then the process's peak memory.
    tmux.keys(&["/"]);
    tmux.type_text("check-box");
    std::thread::sleep(Duration::from_millis(500));
    let peak = tmux
        .run(&["list-panes", "-t", "tg", "-F", "#{pane_pid}"])
        .trim()
        .parse::<u32>()
        .ok()
        .and_then(|p| std::fs::read_to_string(format!("/proc/{p}/status")).ok())
        .and_then(|st| {
            let line = st.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(f64::NAN, |kb| kb / 1024.0);
    tmux.keys(&["Escape", "q"]);
    (paint, whole, peak)
}

/// One write path measured: resolve fresh, write, read back to `verified`; the settle wait is
/// left out (the watch after the verdict is off), as the goals say.
struct PathRow {
    label: &'static str,
    path: &'static str,
    resolve: f64,
    active: f64,
    total: f64,
    goal: &'static str,
}

async fn measure_path(
    backend: &Arc<AtspiBackend>,
    root: &NodeId,
    label: &'static str,
    target: &str,
    values: &[String],
    goal: &'static str,
) -> PathRow {
    let session = Session::new(backend.clone());
    let target = Target::parse(target).expect("target");
    let opts = WriteOptions {
        watch: Duration::ZERO,
        ..WriteOptions::default()
    };
    let (mut resolve, mut active, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let mut path = "";
    for i in 0..RUNS {
        let t = Instant::now();
        let fresh = session
            .resolve_fresh(root, &target, Duration::from_secs(5), &Limits::default())
            .await
            .expect("resolve");
        let Resolution::Unique { row, .. } = fresh.resolution else {
            panic!(
                "{label}: target not unique: {:?}",
                fresh.resolution.outcome()
            );
        };
        resolve.push(t.elapsed().as_secs_f64() * 1000.0);
        let node = &fresh.snapshot.nodes[row];
        let place = Placement::of(&fresh.snapshot, row);
        let value = &values[i % values.len()];
        let r = set_value(backend.as_ref(), &node.id, &place, value, &opts).await;
        assert_eq!(r.outcome, Outcome::Verified, "{label}: {}", r.reason);
        path = r.path.map_or("?", |p| p.as_str());
        let all = t.elapsed().as_secs_f64() * 1000.0;
        total.push(all);
        active.push(all - r.timings.settle_wait_ms);
    }
    PathRow {
        label,
        path,
        resolve: median(&mut resolve),
        active: median(&mut active),
        total: median(&mut total),
        goal,
    }
}

/// resolve + write + verified read-back, per path, on the fixture app, Chromium and GTK 4.
async fn write_bench(backend: &Arc<AtspiBackend>) {
    let mut rows = Vec::new();
    {
        let fixture = common::FixtureApp::start("benchw");
        let root = root_of(fixture.pid);
        let values: Vec<String> = (0..2).map(|i| format!("value {i}")).collect();
        rows.push(
            measure_path(
                backend,
                &root,
                "fixture text",
                "text \"Full name\"",
                &values,
                "≤ 30 ms",
            )
            .await,
        );
    }
    {
        let app = MatrixApp::start(Kit::Chromium);
        let root = root_of(app.pid);
        let numbers: Vec<String> = ["7", "8"].iter().map(|s| s.to_string()).collect();
        rows.push(
            measure_path(
                backend,
                &root,
                "Chromium number",
                "spin-button \"Quantity:\"",
                &numbers,
                "≤ 30 ms",
            )
            .await,
        );
        // 20 characters, typed.
        let texts: Vec<String> = ["Ada Lovelace, London", "Grace Hopper, New Yo"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        rows.push(
            measure_path(
                backend,
                &root,
                "Chromium text (20 chars)",
                "text \"Full name:\"",
                &texts,
                "≤ 150 ms",
            )
            .await,
        );
    }
    {
        let app = MatrixApp::start(Kit::Gtk4);
        let root = root_of(app.pid);
        let toggles: Vec<String> = ["true", "false"].iter().map(|s| s.to_string()).collect();
        rows.push(
            measure_path(
                backend,
                &root,
                "GTK 4 check box",
                "check-box \"checkbutton\" #2",
                &toggles,
                "—",
            )
            .await,
        );
    }
    let settle = WriteOptions::default().settle.as_millis();
    println!();
    println!(
        "resolve + write + verified read-back, per path (median of {RUNS}, ms; the {settle} ms settle wait excluded from \"work\")"
    );
    println!(
        "{:<26} {:>9} {:>9} {:>9} {:>10}   goal (work)",
        "element", "path", "resolve", "work", "with wait"
    );
    for r in rows {
        println!(
            "{:<26} {:>9} {:>9.2} {:>9.2} {:>10.2}   {}",
            r.label, r.path, r.resolve, r.active, r.total, r.goal
        );
    }
}
