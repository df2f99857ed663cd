//! Measures target resolution on a 50,000-node generated tree: index build, then role, exact,
//! substring, state, ancestor and fuzzy queries, and suggestions for every node. Prints
//! median and p90 beside the goals; asserts nothing (`cargo bench --bench resolve`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use treeglass::model::{Snapshot, SnapshotId, synthetic};
use treeglass::target::{Resolution, SnapshotIndex, Target, resolve_with, suggest_all_with};

const RUNS: usize = 31;

fn snapshot(n: usize) -> Snapshot {
    Snapshot {
        id: SnapshotId::next(),
        app: "bench".into(),
        window: "Generated settings".into(),
        nodes: synthetic::generate(n, 1),
        truncated: None,
        unreadable: 0,
        read_ms: 0.0,
    }
}

/// Median and p90 of `runs` timings of `f`, in milliseconds.
fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let p90 = ((runs * 9).div_ceil(10)).clamp(1, runs) - 1;
    (ms(samples[runs / 2]), ms(samples[p90]))
}

fn outcome(r: &Resolution) -> (String, usize) {
    match r {
        Resolution::Unique { .. } => ("unique".into(), 1),
        Resolution::Ambiguous { count, .. } => ("ambiguous".into(), *count),
        Resolution::NotFound { near_misses } => {
            (format!("not_found ({} near)", near_misses.len()), 0)
        }
        Resolution::Incomplete { count, .. } => ("incomplete".into(), *count),
    }
}

fn main() {
    let snap = snapshot(50_000);
    let n = snap.nodes.len();
    println!("target resolution on a generated tree of {n} nodes, {RUNS} runs each\n");

    let (med, p90) = time(RUNS, || SnapshotIndex::new(&snap));
    println!("index build: median {med:.2} ms, p90 {p90:.2} ms (once per snapshot)\n");
    let ix = SnapshotIndex::new(&snap);

    let queries: &[(&str, &str, f64)] = &[
        ("role only", "check-box", 5.0),
        ("exact", r#""Email""#, 5.0),
        ("substring", r#""value 123""#, 5.0),
        ("role + states", "check-box [checked !focused]", 5.0),
        ("within", r#"check-box in group "settings 4242""#, 5.0),
        (
            "within, 3 levels",
            r#"text in group "settings 4242" in panel in frame"#,
            5.0,
        ),
        ("fuzzy (forced)", r#"~"emvl""#, 20.0),
        ("fuzzy (tiered fall-through)", r#""emvl""#, 20.0),
        (
            "not found + near misses",
            r#"check-box "Enabel Emial""#,
            20.0,
        ),
    ];
    println!(
        "{:<28} {:<48} {:>22} {:>7} {:>9} {:>9} {:>7}",
        "kind", "target", "outcome", "count", "median", "p90", "goal"
    );
    for (kind, text, goal) in queries {
        let target = match Target::parse(text) {
            Ok(t) => t,
            Err(e) => {
                println!("{kind}: {text} does not parse: {e}");
                continue;
            }
        };
        let (name, count) = outcome(&resolve_with(&ix, &snap, &target));
        let (med, p90) = time(RUNS, || resolve_with(&ix, &snap, &target));
        let mark = if p90 <= *goal { "ok" } else { "OVER" };
        println!(
            "{kind:<28} {text:<48} {name:>22} {count:>7} {med:>6.2} ms {p90:>6.2} ms {:>4} ms {mark}",
            goal
        );
    }

    println!();
    for size in [1_000, 10_000, 50_000] {
        let s = snapshot(size);
        let (med, p90) = time(if size > 10_000 { 5 } else { RUNS }, || {
            // A fresh index each run, as the CLI's `tree --targets` builds one per snapshot.
            let ix = SnapshotIndex::new(&s);
            suggest_all_with(&ix, &s)
        });
        let ix = SnapshotIndex::new(&s);
        let found = suggest_all_with(&ix, &s).iter().flatten().count();
        println!(
            "suggest_all on {} nodes (index included): median {med:.2} ms, p90 {p90:.2} ms; \
             {found} suggested (goal: well under 1000 ms for 1000 nodes)",
            s.nodes.len()
        );
    }
}
