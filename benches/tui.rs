//! Measures the TUI on a generated 100,000-node tree on the fixture backend, drawn into a
//! 200×60 `TestBackend`: a keystroke in the filter bar to the next frame, a scroll step, a
//! single-node event applied and drawn, and peak RSS. Prints medians beside the goals;
//! asserts nothing (`cargo bench --bench tui`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::backend::fixture::synthetic;
use treeglass::model::{NodeId, Role, Value};
use treeglass::tui::harness::Harness;

const NODES: usize = 100_000;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut v: Vec<Duration>) -> (f64, f64, usize) {
    v.sort();
    let n = v.len();
    (ms(v[n / 2]), ms(v[(n * 9 / 10).min(n - 1)]), n)
}

fn report(what: &str, samples: Vec<Duration>, goal_ms: f64) {
    let (med, p90, n) = median(samples);
    let ok = if med <= goal_ms { "ok" } else { "OVER" };
    println!(
        "{what:<52} median {med:>7.2} ms   p90 {p90:>7.2} ms   (n={n:>3})   goal ≤ {goal_ms} ms  {ok}"
    );
}

/// Peak resident set size in MB (VmHWM), when /proc says.
fn peak_rss_mb() -> Option<f64> {
    status_mb("VmHWM:")
}

/// A `/proc/self/status` figure in MB.
fn status_mb(key: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Changes one text node's value as the user typing in the app would, then times the event's
/// handling: drained, its node re-read, tree and index patched, and the frame drawn.
async fn event(h: &mut Harness, b: &FixtureBackend, texts: &[NodeId], i: usize) -> Duration {
    let id = &texts[(i * 7919) % texts.len()];
    let _ = b.user_set(
        id,
        Value::Text {
            text: format!("changed {i}").into(),
        },
    );
    let t = Instant::now();
    h.drain_events();
    h.flush_now().await;
    h.draw();
    t.elapsed()
}

async fn bench() {
    let started = Instant::now();
    let nodes = synthetic::generate(NODES, 1);
    let texts: Vec<NodeId> = nodes
        .iter()
        .filter(|n| n.role == Role::Text)
        .map(|n| n.id.clone())
        .collect();
    let n = nodes.len();
    let backend = FixtureBackend::from_nodes("bench", nodes);
    let made = started.elapsed();
    let app_rss = status_mb("VmRSS:");
    let t = Instant::now();
    let mut h = Harness::start(Arc::new(backend.clone()), 200, 60, None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let opened = t.elapsed();
    h.draw();
    println!(
        "treeglass TUI bench: {n} nodes, {} folded lines, 200×60 TestBackend",
        h.app.view.tree.as_ref().map_or(0, |t| t.lines.len())
    );
    println!(
        "  (generate + fixture load {:.0} ms; first read, index and layout {:.0} ms)",
        ms(made),
        ms(opened)
    );

    // Scroll: one step down, then the frame.
    let mut scroll = Vec::new();
    for i in 0..201 {
        let t = Instant::now();
        h.key(if i % 50 == 49 {
            KeyCode::PageDown
        } else {
            KeyCode::Down
        });
        h.draw();
        scroll.push(t.elapsed());
    }
    report("scroll step → frame", scroll, 5.0);

    // Filter keystrokes: typing a target and text queries, and deleting.
    let mut keys = Vec::new();
    h.key(KeyCode::Char('/'));
    for text in ["text \"Network\"", "Apply 4242", "colour settings 9"] {
        for c in text.chars() {
            let t = Instant::now();
            h.key(KeyCode::Char(c));
            h.draw();
            keys.push(t.elapsed());
        }
        for _ in 0..text.chars().count() {
            let t = Instant::now();
            h.key(KeyCode::Backspace);
            h.draw();
            keys.push(t.elapsed());
        }
    }
    report("filter keystroke → frame", keys, 16.0);
    h.key(KeyCode::Esc);

    // A single node's text changes: the 50 ms coalescing wait is policy, not cost, and is
    // skipped.
    let mut plain = Vec::new();
    for i in 0..31 {
        plain.push(event(&mut h, &backend, &texts, i).await);
    }
    report("single-node event → applied and drawn", plain, 5.0);
    h.key(KeyCode::Char('/'));
    for c in "\"changed 3\"".chars() {
        h.key(KeyCode::Char(c));
    }
    h.key(KeyCode::Enter);
    let mut filtered = Vec::new();
    for i in 100..131 {
        filtered.push(event(&mut h, &backend, &texts, i).await);
    }
    report("  … with a filter active (badge recomputed)", filtered, 5.0);
    let badge = h.app.filter.badge.map(|b| b.text()).unwrap_or_default();
    println!("  (filter badge after the events: {badge})");

    match peak_rss_mb() {
        Some(mb) => {
            println!(
                "{:<52} {mb:>7.1} MB{:>37}goal ≤ 150 MB  {}",
                "peak RSS (VmHWM), whole process",
                "",
                if mb <= 150.0 { "ok" } else { "OVER" }
            );
            if let Some(app) = app_rss {
                println!(
                    "  of which the in-process fixture app (before the TUI started): {app:.1} MB; \
                     the TUI's growth: {:.1} MB",
                    mb - app
                );
            }
        }
        None => println!("peak RSS: /proc/self/status not readable"),
    }
}

fn main() {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cannot start tokio: {e}");
            return;
        }
    };
    rt.block_on(bench());
}
