//! `set_value` through `treeglass mcp`, request to response, next to the same write through the
//! command line and the write engine's own time, in one run, on the project's GTK fixture app
//! (run inside `scripts/a11y-session`). The runs interleave, so drift in the machine's load hits
//! every column alike.
//!
//! - engine: `write::set_value` in this process on an element resolved once (no tree read);
//! - MCP, token: a `tools/call set_value` with an element token from `get_window_state`, timed
//!   from writing the request line to reading the response line (a raw JSON-RPC client, so
//!   the figure is the server's and not a client library's);
//! - MCP, target: the same by target (a fresh read and resolution per call);
//! - CLI: the whole `treeglass set … --json` process (start, connect, resolve, write).
//!
//! Every write uses the default read-back: it settles for 60 ms and then watches the element
//! for 600 ms; the "work" figures leave those two waits out.
//!
//! `scripts/a11y-session cargo bench --bench mcp`
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]

#[allow(unused_imports)]
#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use treeglass::backend::Limits;
use treeglass::backend::atspi::AtspiBackend;
use treeglass::selector::Target;
use treeglass::session::Session;
use treeglass::write::{Outcome, Placement, WriteOptions, set_value};

const RUNS: usize = 11;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// A raw JSON-RPC session with `treeglass mcp`.
struct Raw {
    _child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
    next: u64,
}

impl Raw {
    fn start() -> Raw {
        let mut child = Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(["--backend", "atspi", "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start treeglass mcp");
        let stdin = child.stdin.take().expect("stdin");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut raw = Raw {
            _child: child,
            stdin,
            out,
            next: 1,
        };
        raw.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "0"}}),
        );
        raw.line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        raw
    }

    fn line(&mut self, v: &Value) {
        writeln!(self.stdin, "{v}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// One request; its result and the time from writing it to reading its response.
    fn request(&mut self, method: &str, params: Value) -> (Value, f64) {
        let id = self.next;
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let started = Instant::now();
        self.line(&msg);
        loop {
            let mut l = String::new();
            assert!(self.out.read_line(&mut l).expect("read") > 0, "server gone");
            let v: Value = serde_json::from_str(&l).expect("JSON");
            if v["id"] == id {
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                return (v["result"].clone(), ms);
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> (Value, f64) {
        let (r, ms) = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert_eq!(r["isError"], false, "{tool}: {r}");
        (r["structuredContent"].clone(), ms)
    }
}

/// The waits in a write result: settling and watching.
fn waits(r: &Value) -> f64 {
    r["timings"]["settle_wait_ms"].as_f64().unwrap_or(0.0)
        + r["timings"]["watch_ms"].as_f64().unwrap_or(0.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    common::require_stack();
    let mut app = common::FixtureApp::start("benchmcp");
    let scope = app.app_arg();

    // The engine, in this process.
    let backend = Arc::new(
        AtspiBackend::connect(Duration::from_secs(5))
            .await
            .expect("connect to the accessibility bus"),
    );
    let session = Session::new(backend.clone());
    let apps = treeglass::backend::Backend::apps(backend.as_ref())
        .await
        .expect("apps");
    let root = apps
        .iter()
        .find(|a| a.pid == Some(app.pid))
        .and_then(|a| a.windows.first())
        .expect("the fixture app's window")
        .id
        .clone();
    let fresh = session
        .resolve_fresh(
            &root,
            &Target::parse("text \"Full name\"").expect("target"),
            Duration::from_secs(5),
            &Limits::default(),
        )
        .await
        .expect("resolve");
    let row = fresh.resolution.unique_row().expect("unique");
    let place = Placement::of(&fresh.snapshot, row);
    let id = fresh.snapshot.nodes[row].id.clone();

    let mut mcp = Raw::start();

    let (mut engine, mut engine_work) = (Vec::new(), Vec::new());
    let (mut by_token, mut by_token_work, mut overhead) = (Vec::new(), Vec::new(), Vec::new());
    let (mut by_target, mut by_target_work) = (Vec::new(), Vec::new());
    let (mut cli, mut cli_work) = (Vec::new(), Vec::new());
    for i in 0..RUNS {
        let t = Instant::now();
        let r = set_value(
            backend.as_ref(),
            &id,
            &place,
            &format!("engine {i}"),
            &WriteOptions::default(),
        )
        .await;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        assert_eq!(r.outcome, Outcome::Verified, "{}", r.reason);
        engine.push(ms);
        engine_work.push(ms - r.timings.settle_wait_ms - r.timings.watch_ms);

        let (r, ms) = mcp.call(
            "set_value",
            json!({"target": "text \"Full name\"", "value": format!("target {i}"), "app": scope}),
        );
        assert_eq!(r["outcome"], "verified", "{r}");
        by_target.push(ms);
        by_target_work.push(ms - waits(&r));

        // That write read the window: a token from a newer read (not timed).
        let (state, _) = mcp.call("get_window_state", json!({"app": scope}));
        let token = common::mcp::token_named(&state, "Full name");
        let (r, ms) = mcp.call(
            "set_value",
            json!({"element_token": token, "value": format!("token {i}")}),
        );
        assert_eq!(r["outcome"], "verified", "{r}");
        by_token.push(ms);
        by_token_work.push(ms - waits(&r));
        overhead.push(ms - r["timings"]["total_ms"].as_f64().unwrap_or(0.0));

        let t = Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(["--backend", "atspi", "set", "text \"Full name\""])
            .arg(format!("cli {i}"))
            .args(["--app", &scope, "--json"])
            .output()
            .expect("treeglass set");
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let r: Value = serde_json::from_slice(&o.stdout).expect("set JSON");
        assert_eq!(r["outcome"], "verified", "{r}");
        cli.push(ms);
        cli_work.push(ms - waits(&r));
    }
    assert_eq!(app.state()["full_name"], format!("cli {}", RUNS - 1));

    let e = median(&mut engine);
    let ew = median(&mut engine_work);
    let t = median(&mut by_token);
    let tw = median(&mut by_token_work);
    println!("set_value of a text field on the GTK fixture app (median of {RUNS}, ms)");
    println!("{:<44} {:>9} {:>16}", "", "total", "without waits");
    println!(
        "{:<44} {:>9.2} {:>16.2}",
        "engine (in process, element known)", e, ew
    );
    println!(
        "{:<44} {:>9.2} {:>16.2}",
        "MCP set_value by token (request → response)", t, tw
    );
    println!(
        "{:<44} {:>9.2} {:>16.2}",
        "MCP set_value by target (fresh resolution)",
        median(&mut by_target),
        median(&mut by_target_work)
    );
    println!(
        "{:<44} {:>9.2} {:>16.2}",
        "CLI `treeglass set … --json` (whole process)",
        median(&mut cli),
        median(&mut cli_work)
    );
    println!(
        "MCP by token / engine: {:.3}× in total, {:.2}× without the waits   goal ≤ 1.5×",
        t / e,
        tw / ew
    );
    println!(
        "protocol and transport (round trip − the server's own write time): {:.2} ms",
        median(&mut overhead)
    );
}
