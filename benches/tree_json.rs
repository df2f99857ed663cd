//! Measures `treeglass tree --json` on a generated 200,000-node tree and on a 5,000-level chain
//! (fixture files): wall time, peak RSS and output size of the binary from before the JSON
//! output was streamed and of this build, in one run, beside the goal (peak memory of the
//! output ≤ 2× the snapshot's own size). Asserts nothing (`cargo bench --bench tree_json`).
//!
//! The "before" binary is `$TREEGLASS_BEFORE`: a path to a treeglass binary, or a git revision
//! that is built (release, once, cached under `target/bench-tree-json/`). By default it is the
//! parent of the commit that introduced streaming (found by its subject line).
//!
//! Peak RSS of a child process needs `wait4`, which the standard library does not offer without
//! `unsafe` (forbidden in this crate); a few lines of python3 (a test dependency already) run
//! each measured process and report it.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use treeglass::backend::fixture::FixtureBackend;
use treeglass::backend::fixture::synthetic;
use treeglass::backend::{Backend, Limits};
use treeglass::model::{AppText, Node, Snapshot, Value};

const WIDE_NODES: usize = 200_000;
const CHAIN_DEPTH: usize = 5_000;
/// The subject of the commit that made `tree --json` stream; "before" is its parent.
const STREAMING_COMMIT: &str = "^Hardening: escaper, one JSON writer";

/// Runs argv[1:] with stdout counted and stderr discarded; prints "seconds maxrss_kb bytes code".
const RUSAGE: &str = r#"
import os, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
n = 0
while True:
    b = p.stdout.read(1 << 20)
    if not b:
        break
    n += len(b)
_, status, ru = os.wait4(p.pid, 0)
print(time.monotonic() - t, ru.ru_maxrss, n, os.waitstatus_to_exitcode(status))
"#;

fn work_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("bench-tree-json");
    std::fs::create_dir_all(&dir).expect("create the bench directory");
    dir
}

/// One outline entry of a fixture file for `n`.
fn entry(n: &Node) -> serde_json::Value {
    let mut e = serde_json::json!({
        "level": n.depth,
        "role": n.role,
        "name": n.name,
    });
    if let Some(v @ (Value::Text { .. } | Value::Number { .. } | Value::Toggle { .. })) = &n.value {
        e["value"] = serde_json::to_value(v).unwrap_or_default();
    }
    if !n.actions.is_empty() {
        e["actions"] = serde_json::to_value(&n.actions).unwrap_or_default();
    }
    e
}

fn write_fixture(path: &Path, app: &str, nodes: &[Node]) {
    let doc = serde_json::json!({"apps": [{
        "name": app,
        "outline": nodes.iter().map(entry).collect::<Vec<_>>(),
    }]});
    std::fs::write(path, serde_json::to_vec(&doc).unwrap_or_default()).expect("write fixture");
}

fn chain(depth: usize) -> Vec<Node> {
    (0..depth)
        .map(|i| {
            let mut n = Node::new(
                treeglass::model::NodeId(format!("c:{i}")),
                if i == 0 {
                    treeglass::model::Role::Frame
                } else {
                    treeglass::model::Role::Panel
                },
                "panel",
            );
            n.name = format!("level {i}").into();
            n.depth = i as u32;
            n
        })
        .collect()
}

fn limits() -> Limits {
    Limits {
        max_nodes: WIDE_NODES + 10,
        max_depth: CHAIN_DEPTH + 10,
        max_siblings: WIDE_NODES,
        ..Limits::default()
    }
}

/// What the snapshot holds on the heap: nodes and every string and list they own.
fn snapshot_bytes(snap: &Snapshot) -> usize {
    let s = std::mem::size_of::<String>();
    snap.nodes.capacity() * std::mem::size_of::<Node>()
        + snap
            .nodes
            .iter()
            .map(|n| {
                n.id.0.capacity()
                    + n.raw_role.capacity()
                    + n.name.capacity()
                    + n.description.capacity()
                    + match &n.value {
                        Some(Value::Text { text }) => text.capacity(),
                        Some(Value::Choice { selected: Some(t) }) => t.capacity(),
                        _ => 0,
                    }
                    + n.actions.capacity() * s
                    + n.actions.iter().map(AppText::capacity).sum::<usize>()
                    + n.children.capacity() * std::mem::size_of::<usize>()
            })
            .sum::<usize>()
}

/// The snapshot `tree` takes of the fixture's window, read in this process.
fn snapshot_of(fixture: &Path) -> Snapshot {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let b = Arc::new(
            FixtureBackend::from_path(fixture.to_str().unwrap_or_default()).expect("load fixture"),
        );
        let apps = b.apps().await.expect("apps");
        b.snapshot(&apps[0].windows[0].id, &limits())
            .await
            .expect("snapshot")
    })
}

fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git")
        .arg("-C")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The "before" binary: a path, or a revision built once into the bench directory.
fn before_binary(dir: &Path) -> Result<PathBuf, String> {
    let spec = match std::env::var("TREEGLASS_BEFORE") {
        Ok(s) => s,
        Err(_) => {
            let streaming = git(&["log", "-1", "--format=%H", "--grep", STREAMING_COMMIT])
                .ok_or("no commit introducing streaming found; set TREEGLASS_BEFORE")?;
            format!("{streaming}^")
        }
    };
    if Path::new(&spec).is_file() {
        return Ok(PathBuf::from(spec));
    }
    let rev = git(&["rev-parse", &spec]).ok_or(format!("{spec}: not a binary or a revision"))?;
    let bin = dir.join(format!("treeglass-{}", &rev[..12]));
    if bin.is_file() {
        return Ok(bin);
    }
    let src = dir.join("before-src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    eprintln!("building the before binary ({}) once…", &rev[..12]);
    let archive = format!(
        "git -C '{}' archive {rev} | tar -x -C '{}'",
        env!("CARGO_MANIFEST_DIR"),
        src.display()
    );
    let ok = Command::new("sh")
        .args(["-c", &archive])
        .status()
        .map_err(|e| e.to_string())?
        .success();
    if !ok {
        return Err(format!("git archive {rev} failed"));
    }
    let ok = Command::new("cargo")
        .args(["build", "--release", "--locked", "--bin", "treeglass"])
        .current_dir(&src)
        .env("CARGO_TARGET_DIR", dir.join("before-target"))
        .status()
        .map_err(|e| e.to_string())?
        .success();
    if !ok {
        return Err(format!("building {rev} failed"));
    }
    std::fs::copy(dir.join("before-target/release/treeglass"), &bin).map_err(|e| e.to_string())?;
    Ok(bin)
}

struct Run {
    secs: f64,
    peak_mb: f64,
    bytes: u64,
    code: i32,
}

fn measure(bin: &Path, fixture: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg(RUSAGE)
        .arg(bin)
        .arg("--backend")
        .arg(format!("fixture:{}", fixture.display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = cmd.spawn().expect("python3");
    let mut out = String::new();
    let _ = child.stdout.take().map(|mut s| s.read_to_string(&mut out));
    let _ = child.wait();
    let f: Vec<f64> = out
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    Run {
        secs: f.first().copied().unwrap_or(f64::NAN),
        peak_mb: f.get(1).copied().unwrap_or(f64::NAN) / 1024.0,
        bytes: f.get(2).copied().unwrap_or(0.0) as u64,
        code: f.get(3).copied().unwrap_or(-1.0) as i32,
    }
}

/// The median time of `runs` runs, with the peak RSS and size of the last.
fn median(bin: &Path, fixture: &Path, args: &[&str], runs: usize) -> Run {
    let mut all: Vec<Run> = (0..runs).map(|_| measure(bin, fixture, args)).collect();
    all.sort_by(|a, b| a.secs.total_cmp(&b.secs));
    all.swap_remove(all.len() / 2)
}

/// A `/proc/self/status` figure in MB.
fn status_mb(key: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Memory the JSON output itself needs, measured in this process: the peak RSS while the
/// snapshot is written to a sink, over the RSS before (the peak is reset first through
/// `/proc/self/clear_refs`). The writing runs on a new thread: the allocator gives it an arena
/// of its own, so it cannot hide its allocations in memory the fixture's loading freed.
/// `None` where /proc cannot say.
fn output_growth_mb(snap: &Snapshot) -> Option<f64> {
    let before = status_mb("VmRSS:")?;
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    std::thread::scope(|s| {
        s.spawn(|| treeglass::app::output::write_tree_json(&mut std::io::sink(), snap, None, false))
            .join()
            .ok()
    })?
    .ok()?;
    Some(status_mb("VmHWM:")? - before)
}

fn mb(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

fn main() {
    let runs: usize = std::env::var("TREEGLASS_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let dir = work_dir();
    let wide = dir.join("wide-200k.json");
    let deep = dir.join("chain-5000.json");
    write_fixture(&wide, "wide", &synthetic::generate(WIDE_NODES, 7));
    write_fixture(&deep, "deep", &chain(CHAIN_DEPTH));
    let after = PathBuf::from(env!("CARGO_BIN_EXE_treeglass"));
    let before = match before_binary(&dir) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("no before binary: {e}");
            None
        }
    };
    println!(
        "tree --json, {runs} runs each (median time; peak RSS of the whole process, which \
         also holds the in-process fixture app)"
    );
    if let Some(b) = &before {
        println!("before: {}\nafter:  {}", b.display(), after.display());
    }
    let args = [
        "tree",
        "--json",
        "--max-nodes",
        "200010",
        "--max-depth",
        "5010",
    ];
    for (name, fixture) in [("200,000-node tree", &wide), ("5,000-level chain", &deep)] {
        let snap = snapshot_of(fixture);
        let snap_mb = mb(snapshot_bytes(&snap) as f64);
        let nodes = snap.nodes.len();
        let growth = output_growth_mb(&snap);
        drop(snap);
        // The same binary reading the fixture and printing its app list: the part of the peak
        // that is the in-process fixture app (in real use the app is another process).
        let base = median(&after, fixture, &["apps"], runs);
        let new = median(&after, fixture, &args, runs);
        let old = before.as_ref().map(|b| median(b, fixture, &args, runs));
        println!(
            "\n{name}: {nodes} nodes, snapshot {snap_mb:.1} MB; reading the fixture alone peaks at {:.1} MB",
            base.peak_mb
        );
        for (label, r) in [("before", old.as_ref()), ("after", Some(&new))] {
            if let Some(r) = r {
                println!(
                    "  {label:<6}  {:>8.2} s  peak RSS {:>8.1} MB  output {:>9.1} MB  exit {}",
                    r.secs,
                    r.peak_mb,
                    mb(r.bytes as f64),
                    r.code
                );
            }
        }
        match growth {
            Some(g) => println!(
                "  writing the JSON adds {g:.1} MB to the snapshot's {snap_mb:.1} MB: \
                 {:.2}× the snapshot in all   goal ≤ 2×  {}",
                (snap_mb + g) / snap_mb,
                if g <= snap_mb { "ok" } else { "OVER" }
            ),
            None => println!("  (no /proc: the output's own memory was not measured)"),
        }
    }
}
