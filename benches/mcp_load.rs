//! `treeglass mcp` under load on a real app: the MCP Inspector's CLI (pinned, installed by
//! `scripts/install-deps`) in its load mode — `--load --load-concurrency 10 --load-duration
//! 10`: ten calls in flight at once for ten seconds, on one server — calling
//! `get_window_state`, `find` and `set_value` in turn on gtk4-widget-factory (about 900
//! nodes). Prints the Inspector's own summary (calls, errors, latency percentiles at its
//! client) and, for the writes, the verdicts the server logged for them (`--log`: each call's
//! tool, exit code and outcome). After each run the app must be alive and answering, and after
//! the writes it must hold the value written.
//!
//! Goal: no error and no tool error; every write `verified` or `already`.
//!
//! `scripts/a11y-session cargo bench --bench mcp_load`
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]

#[allow(unused_imports)]
#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::process::Command;

use common::matrix::{Gtk4Targets, Kit, MatrixApp};
use serde_json::{Value, json};

const CONCURRENCY: &str = "10";
const SECONDS: &str = "10";

/// The value the writes give the first enabled spin button (it starts at 50).
const VALUE: &str = "42";

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One load run of `tool` with `args`: the Inspector's summary, and the outcomes the server
/// logged, counted.
fn load(tool: &str, args: &Value) -> (Value, BTreeMap<String, usize>) {
    let log = std::env::temp_dir().join(format!(
        "tg-mcp-load-{tool}-{}-{}.log",
        std::process::id(),
        common::next_id()
    ));
    let _ = std::fs::remove_file(&log);
    // The Inspector starts a stdio server with a few variables of its own environment only
    // (HOME, PATH, …): the session's buses and display are passed on by name.
    let mut env = Vec::new();
    for name in [
        "DBUS_SESSION_BUS_ADDRESS",
        "AT_SPI_BUS_ADDRESS",
        "XDG_RUNTIME_DIR",
        "DISPLAY",
        "WAYLAND_DISPLAY",
    ] {
        if let Ok(v) = std::env::var(name) {
            env.push("-e".to_string());
            env.push(format!("{name}={v}"));
        }
    }
    let o = Command::new(common::mcp::inspector())
        .args(["--cli", "--load", "--load-concurrency", CONCURRENCY])
        .args(&env)
        .args(["--load-duration", SECONDS, "--method", "tools/call"])
        .args(["--tool-name", tool, "--tool-args-json", &args.to_string()])
        .args(["--format", "json", env!("CARGO_BIN_EXE_treeglass")])
        .args(["--backend", "atspi", "mcp", "--log"])
        .arg(&log)
        .output()
        .expect("run the MCP Inspector (node)");
    let out: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{tool}: no summary ({e}): {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let mut outcomes = BTreeMap::new();
    for line in std::fs::read_to_string(&log).unwrap_or_default().lines() {
        if !line.contains("mcp tool call") {
            continue;
        }
        let outcome = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("outcome="))
            .unwrap_or("?")
            .trim_matches('"');
        let code = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("exit_code="))
            .unwrap_or("?");
        *outcomes
            .entry(format!("{outcome} (exit {code})"))
            .or_default() += 1;
    }
    let _ = std::fs::remove_file(&log);
    (out["result"].clone(), outcomes)
}

fn main() {
    common::require_stack();
    let mut wf = MatrixApp::start(Kit::Gtk4);
    let pid = wf.pid;
    // Named as treeglass suggests: GTK 4.8 names it after its class, 4.18 not at all.
    let spin = Gtk4Targets::learn(&wf).spin;
    let spin = spin.as_str();
    println!(
        "gtk4-widget-factory (pid {pid}); {} cores; load average before: {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    let runs = [
        ("get_window_state", json!({"pid": pid})),
        ("find", json!({"pid": pid, "target": spin})),
        (
            "set_value",
            json!({"pid": pid, "target": spin, "value": VALUE}),
        ),
    ];
    println!(
        "\n| tool | calls | ok | tool errors | errors | calls/s | p50 ms | p90 ms | p99 ms | max ms | load average after |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut failed = Vec::new();
    let mut verdicts = BTreeMap::new();
    for (tool, args) in &runs {
        let (s, outcomes) = load(tool, args);
        let l = &s["latencyMs"];
        println!(
            "| `{tool}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            s["requests"],
            s["ok"],
            s["toolErrors"],
            s["errors"],
            s["throughput"],
            l["p50"],
            l["p90"],
            l["p99"],
            l["max"],
            load_average()
        );
        if s["toolErrors"] != 0 || s["errors"] != 0 {
            failed.push(format!("{tool}: {s}"));
        }
        if *tool == "set_value" {
            verdicts = outcomes;
        } else {
            eprintln!("  {tool} outcomes: {outcomes:?}");
        }
        wf.assert_alive(&format!("{tool} under load"));
    }
    println!("\nset_value verdicts (server log): {verdicts:?}");
    for v in verdicts.keys() {
        if !(v.starts_with("verified ") || v.starts_with("already ")) {
            failed.push(format!("a write ended {v}"));
        }
    }
    // The writes landed: the app holds the value.
    let o = wf.treeglass(&["get", spin, "--json"]);
    let got: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    let value = got["value"]["current"].as_f64();
    println!("the spin button after the writes: {value:?}");
    if value != VALUE.parse::<f64>().ok() {
        failed.push(format!("the spin button holds {value:?}: {got}"));
    }
    assert!(failed.is_empty(), "goal not met: {failed:#?}");
}
