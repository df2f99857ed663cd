//! `get_window_state`'s read forms through `treeglass mcp`, bytes and seconds, on the real bus:
//! Chromium on the 2,000-row page (about 26,000 nodes), gtk4-widget-factory and LibreOffice
//! Calc's new sheet. Beside them, in the same run, the whole tree as `tree --json` gives it
//! (one process: start, read, print; every field, pretty-printed): what an unbounded answer
//! grows with. (Before answers had a budget, `get_window_state` gave the whole folded tree:
//! 13.4–14.9 MB on the big page.)
//!
//! Forms: the default answer (100 KB budget, cut breadth first); `interactive_only`;
//! `showing_only`; `query` (a target's matches); `root` (the subtree under the first match's
//! parent, by token); the default answer's next page (`cursor`). Bytes are the answer as an
//! agent reads it: structured content and text together. Seconds are the client's, request to
//! response (the MCP Python SDK; median of 3). Asserts nothing but that each call answers.
//!
//! `scripts/a11y-session cargo bench --bench mcp_forms`
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]

#[allow(unused_imports)]
#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use common::matrix::{Kit, MatrixApp};
use common::mcp::McpClient;
use serde_json::{Value, json};

const RUNS: usize = 3;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn size(r: &Value) -> usize {
    r["structuredContent"].to_string().len() + r["text"].as_str().unwrap_or_default().len()
}

/// One form: median seconds, bytes, and what the answer says of itself.
fn form(c: &mut McpClient, label: &str, args: Value) -> Value {
    let mut secs = Vec::new();
    let mut last = Value::Null;
    for _ in 0..RUNS {
        let t = Instant::now();
        let r = c.call("get_window_state", args.clone());
        secs.push(t.elapsed().as_secs_f64());
        assert_eq!(r["isError"], false, "{label}: {r}");
        last = r;
    }
    let v = &last["structuredContent"];
    println!(
        "  {label:<16} {:>8.2} s {:>12} B   {:>6} of {:>6} lines   complete {}",
        median(&mut secs),
        size(&last),
        v["shown"],
        v["selected"],
        v["complete"]
    );
    last
}

fn bench(kit: Kit, query: &str) {
    let mut app = match kit {
        Kit::BigPage => MatrixApp::start_page(2_000),
        k => MatrixApp::start(k),
    };
    println!("\n{} (pid {})", kit.label(), app.pid);

    let mut secs = Vec::new();
    let mut bytes = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let o = app.treeglass(&["tree", "--json"]);
        secs.push(t.elapsed().as_secs_f64());
        assert!(
            o.status.success() || o.status.code() == Some(12),
            "tree --json failed"
        );
        bytes = o.stdout.len();
    }
    println!(
        "  {:<16} {:>8.2} s {:>12} B   (the whole tree, every field)",
        "tree --json",
        median(&mut secs),
        bytes
    );

    let pid = app.pid;
    let mut c = McpClient::start("bench-forms", &["--backend", "atspi"]);
    let first = form(&mut c, "default", json!({"pid": pid}));
    form(
        &mut c,
        "interactive_only",
        json!({"pid": pid, "interactive_only": true}),
    );
    form(
        &mut c,
        "showing_only",
        json!({"pid": pid, "showing_only": true}),
    );
    let q = form(&mut c, "query", json!({"pid": pid, "query": query}));
    match q["structuredContent"]["elements"][0]["parent"].as_str() {
        // The token is of the last query read, which nothing has superseded.
        Some(parent) => {
            form(&mut c, "root (a token)", json!({"root": parent}));
        }
        None => println!("  root: the query matched nothing with a parent"),
    }
    // A cursor is valid while its snapshot is the newest: read the default again for it.
    let first = match first["structuredContent"]["next_cursor"].as_str() {
        Some(_) => c.call("get_window_state", json!({"pid": pid})),
        None => first,
    };
    match first["structuredContent"]["next_cursor"].as_str() {
        Some(cursor) => {
            let t = Instant::now();
            let r = c.call("get_window_state", json!({"cursor": cursor}));
            assert_eq!(r["isError"], false, "cursor: {r}");
            println!(
                "  {:<16} {:>8.2} s {:>12} B   {:>6} of {:>6} lines   (one run: a cursor pages once)",
                "next page",
                t.elapsed().as_secs_f64(),
                size(&r),
                r["structuredContent"]["shown"],
                r["structuredContent"]["selected"],
            );
        }
        None => println!("  next page: the default answer was whole"),
    }
    c.close();
    app.assert_alive("the bench");
}

fn main() {
    println!("get_window_state's forms: seconds (median of {RUNS}) and bytes of the answer");
    bench(Kit::BigPage, r#"check-box "Row 1200 done""#);
    bench(Kit::Gtk4, "check-box");
    bench(Kit::Calc, "button");
}
