//! Benchmarks on the real accessibility bus (run inside `scripts/a11y-session`):
//! full snapshots next to a pyatspi recursive walk of the same apps (the way Accerciser and
//! dogtail read trees), and resolve + write + verified read-back of a text field.
//!
//! `scripts/a11y-session cargo bench --bench atspi`

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use treeglass::backend::atspi::AtspiBackend;
use treeglass::backend::{Backend, Limits};
use treeglass::session::Session;
use treeglass::target::{Resolution, Target};
use treeglass::write::{Outcome, Placement, WriteOptions, set_value};

const RUNS: usize = 21;
const COLD: usize = 5;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn pyatspi_median(app: &str) -> (f64, u64) {
    let o = Command::new("/usr/bin/python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/pyatspi-walk.py"
        ))
        .args([app, "--repeat", &RUNS.to_string(), "--wait", "10"])
        .output()
        .expect("run scripts/pyatspi-walk.py");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "pyatspi walk of {app}: {e}: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (
        v["median_ms"].as_f64().unwrap_or(f64::NAN),
        v["node_count"].as_u64().unwrap_or(0),
    )
}

struct Fixture {
    child: Child,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(cmd: &mut Command, ready_line: bool) -> Fixture {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start app");
    if ready_line {
        let out = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(out)
            .read_line(&mut line)
            .expect("ready line");
        assert!(line.contains("ready"), "fixture did not start: {line}");
    }
    Fixture { child }
}

async fn settled_root(b: &AtspiBackend, app: &str) -> treeglass::model::NodeId {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = 0;
    let mut same = 0;
    loop {
        assert!(Instant::now() < deadline, "{app} never settled on the bus");
        if let Ok(apps) = b.apps().await {
            if let Some(a) = apps.iter().find(|a| a.name == app && !a.windows.is_empty()) {
                let root = a.windows[0].id.clone();
                if let Ok(s) = b.snapshot(&root, &Limits::default()).await {
                    if s.nodes.len() > 1 && s.nodes.len() == last {
                        same += 1;
                        if same >= 3 {
                            return root;
                        }
                    } else {
                        same = 0;
                    }
                    last = s.nodes.len();
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
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
    let fixture_name = format!("tgbench-{}", std::process::id());
    let mut fixture = start(
        Command::new("/usr/bin/python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixture_app.py"))
            .args(["--name", &fixture_name]),
        true,
    );
    let _factory = start(&mut Command::new("gtk3-widget-factory"), false);
    let backend = Arc::new(
        AtspiBackend::connect(Duration::from_secs(5))
            .await
            .expect("connect to the a11y bus"),
    );

    println!("treeglass full snapshot vs pyatspi recursive walk (median of {RUNS}, ms)");
    println!("  treeglass: repeated snapshots on one connection (action names reused per element)");
    println!("  cold: the first snapshot on a new connection (median of {COLD} connections)");
    println!("  nodes: treeglass / pyatspi (without the application node)");
    println!(
        "{:<24} {:>7} {:>10} {:>8} {:>10} {:>8}   goal",
        "app", "nodes", "treeglass", "cold", "pyatspi", "ratio"
    );
    for (app, goal) in [
        (fixture_name.as_str(), "≤ 5 ms"),
        ("gtk3-widget-factory", "≤ 15 ms, ≥ 10×"),
    ] {
        let root = settled_root(&backend, app).await;
        let mut times = Vec::new();
        let mut nodes = 0;
        for _ in 0..RUNS {
            let t = Instant::now();
            let s = backend
                .snapshot(&root, &Limits::default())
                .await
                .expect("snapshot");
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(s.complete(), "incomplete snapshot of {app}");
            nodes = s.nodes.len();
        }
        let ours = median(&mut times);
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
        let cold = median(&mut cold);
        let (theirs, their_nodes) = pyatspi_median(app);
        let label = if app == fixture_name {
            "fixture (GTK3)"
        } else {
            app
        };
        println!(
            "{label:<24} {:>7} {ours:>10.2} {cold:>8.2} {theirs:>10.2} {:>7.1}×   {goal}",
            format!("{nodes}/{}", their_nodes.saturating_sub(1)),
            theirs / ours
        );
    }

    // resolve + write + verified read-back of a text field on the fixture app.
    let session = Session::new(backend.clone());
    let root = settled_root(&backend, &fixture_name).await;
    let target = Target::parse("text \"Full name\"").expect("target");
    let mut totals = Vec::new();
    let mut active = Vec::new();
    let mut resolve_ms = Vec::new();
    for i in 0..RUNS {
        let t = Instant::now();
        let fresh = session
            .resolve_fresh(&root, &target, Duration::from_secs(5), &Limits::default())
            .await
            .expect("resolve");
        let Resolution::Unique { row, .. } = fresh.resolution else {
            panic!("target not unique: {:?}", fresh.resolution.outcome());
        };
        resolve_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        let node = &fresh.snapshot.nodes[row];
        let r = set_value(
            backend.as_ref(),
            &node.id,
            &Placement::default(),
            &format!("value {i}"),
            &WriteOptions::default(),
        )
        .await;
        assert_eq!(r.outcome, Outcome::Verified, "{}", r.reason);
        let total = t.elapsed().as_secs_f64() * 1000.0;
        totals.push(total);
        active.push(total - r.timings.settle_wait_ms);
    }
    let settle = WriteOptions::default().settle.as_millis();
    println!();
    println!("resolve + write + verified read-back, fixture text field (median of {RUNS}, ms)");
    println!(
        "  fresh resolve (snapshot + resolve)        {:>7.2}",
        median(&mut resolve_ms)
    );
    println!(
        "  total, with the {settle} ms settle window     {:>7.2}",
        median(&mut totals)
    );
    println!(
        "  total without the settle wait             {:>7.2}   goal ≤ 30 ms",
        median(&mut active)
    );
    let _ = writeln!(fixture.child.stdin.as_mut().expect("stdin"), "quit");
}
