//! The cost of a write's change set (`write::landed`), whole process, side by side with the
//! write alone, on the real bus: Chromium on a generated form page of 80 rows (about 1,000
//! nodes) and of 2,000 rows (about 26,000). For each: `set` of one text field; with
//! `--changes` (on Chromium the app narrows the target, so the window is not read again: only
//! the app's windows); with `--whole-tree` (the window read whole to resolve); and with both
//! (the window read again after the write and compared).
//!
//! `scripts/a11y-session cargo bench --bench landed`
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]

#[allow(unused_imports)]
#[path = "../tests/common/mod.rs"]
mod common;

use std::process::Command;
use std::time::Instant;

use common::matrix::MatrixApp;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// One whole `treeglass set … --json` process: seconds, and its JSON.
fn set(pid: &str, target: &str, value: &str, extra: &[&str]) -> (f64, serde_json::Value) {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args([
            "--backend",
            "atspi",
            "set",
            "--pid",
            pid,
            target,
            value,
            "--json",
        ])
        .args(extra)
        .output()
        .expect("run treeglass set");
    let secs = t.elapsed().as_secs_f64();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "set {target} {extra:?}: {e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    assert_eq!(v["outcome"], "verified", "{v:#}");
    (secs, v)
}

fn row(rows: usize, runs: usize) -> String {
    let mut app = MatrixApp::start_page(rows);
    let pid = app.pid.to_string();
    let o = app.treeglass(&["tree", "--json"]);
    let tree: serde_json::Value = serde_json::from_slice(&o.stdout).expect("tree JSON");
    let nodes = tree["node_count"].as_u64().unwrap_or(0);
    let row = rows * 3 / 4;
    let target = format!("text \"Row {row} name\"");
    let variants: [&[&str]; 4] = [
        &[],
        &["--changes"],
        &["--whole-tree"],
        &["--whole-tree", "--changes"],
    ];
    let mut cells = Vec::new();
    let mut run = 0;
    for extra in variants {
        let mut t = Vec::new();
        for _ in 0..runs {
            run += 1;
            let (secs, v) = set(&pid, &target, &format!("value {run}"), extra);
            if extra.contains(&"--changes") {
                let l = &v["changes"];
                assert!(l.is_object(), "no change set: {v:#}");
                // Read whole before: compared; narrowed: said why not.
                assert_eq!(
                    l.get("not_compared").is_none(),
                    extra.contains(&"--whole-tree"),
                    "{l:#}"
                );
            }
            t.push(secs);
        }
        cells.push(median(&mut t));
    }
    app.assert_alive("the change-set writes");
    format!(
        "{:<22}{:>8}{:>10.2}{:>14.2}{:>12.2}{:>18.2}",
        format!("Chromium {rows} rows"),
        nodes,
        cells[0],
        cells[1],
        cells[2],
        cells[3]
    )
}

fn main() {
    println!();
    println!("Change set cost, whole process (median of 5 on 80 rows, 3 on 2,000), seconds");
    println!(
        "{:<22}{:>8}{:>10}{:>14}{:>12}{:>18}",
        "page", "nodes", "set", "set+changes", "set/wt", "set/wt+changes"
    );
    println!("{}", row(80, 5));
    println!("{}", row(2_000, 3));
    println!();
    println!("set: narrowed resolve (the app finds the candidates), write, read-back, watch;");
    println!("+changes: the app's windows listed again (the narrowed window is not re-read);");
    println!("/wt: the window read whole to resolve; /wt+changes: read again after the write and");
    println!("compared with the first read.");
}
