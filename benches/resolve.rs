//! Measures target resolution on a 50,000-node generated tree: index build, then role, exact,
//! substring, state, ancestor, fuzzy, position, label and neighbour queries, and graded
//! suggestions for every node. Prints median and p90 beside the goals; asserts nothing
//! (`cargo bench --bench resolve`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use treeglass::backend::fixture::synthetic;
use treeglass::model::{Role, Snapshot, SnapshotId};
use treeglass::selector::{
    Grade, Resolution, SnapshotIndex, Target, resolve_with, suggest_all_with,
};

const RUNS: usize = 31;

/// The generated tree, with each form's text field labelled by the form's label (the label
/// relation a toolkit reports for a mnemonic label).
fn snapshot(n: usize) -> Snapshot {
    let mut nodes = synthetic::generate(n, 1);
    for row in 0..nodes.len() {
        let label = nodes[row]
            .children
            .windows(2)
            .filter(|w| nodes[w[0]].role == Role::Label && nodes[w[1]].role == Role::Text)
            .map(|w| (w[1], nodes[w[0]].name.clone()))
            .collect::<Vec<_>>();
        for (text, name) in label {
            nodes[text].label = Some(name);
        }
    }
    Snapshot {
        id: SnapshotId::next(),
        app: "bench".into(),
        window: "Generated settings".into(),
        nodes,
        truncated: None,
        unreadable: 0,
        unreadable_elements: Vec::new(),
        cuts: Default::default(),
        read_ms: 0.0,
    }
}

/// CPU time this thread has run, from the scheduler's accounting (Linux), so figures taken on
/// a shared, busy machine can be told apart from time spent waiting for a core.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Mean CPU time of `runs` runs of `f`, in milliseconds, when the system reports it. A mean
/// over the whole loop, because the scheduler updates the figure only at its ticks.
fn cpu_time<T>(runs: usize, mut f: impl FnMut() -> T) -> Option<f64> {
    let start = thread_cpu()?;
    for _ in 0..runs {
        black_box(f());
    }
    let spent = thread_cpu()?.saturating_sub(start);
    Some(spent.as_secs_f64() * 1000.0 / runs as f64)
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
        Resolution::NotFound {
            near_misses, count, ..
        } => (format!("not_found ({} near)", near_misses.len()), *count),
        Resolution::Incomplete { count, .. } => ("incomplete".into(), *count),
    }
}

fn main() {
    // `cargo bench --bench resolve -- suggest` runs only the suggestion figures.
    let only_suggest = std::env::args().skip(1).any(|a| a == "suggest");
    if !only_suggest {
        queries();
    }
    suggestions();
}

fn queries() {
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
        ("position", r#"check-box "Enable Email" #42"#, 5.0),
        (
            "position beyond the count",
            r#"check-box "Enable Email" #9999"#,
            5.0,
        ),
        ("label relation", r#"text labelled-by "Email:""#, 5.0),
        (
            "label + within",
            r#"text labelled-by *":" in group "settings 4242""#,
            5.0,
        ),
        ("neighbour", r#"check-box after label "Email:""#, 5.0),
        (
            "neighbour + name + position",
            r#"spin-button "Email count" after label "Email:" #7"#,
            5.0,
        ),
        (
            "within a deep named ancestor",
            r#"check-box "Enable Email" in frame "Generated settings""#,
            5.0,
        ),
    ];
    println!(
        "{:<28} {:<48} {:>22} {:>7} {:>9} {:>9} {:>9} {:>7}",
        "kind", "target", "outcome", "count", "median", "p90", "mean CPU", "goal"
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
        let cpu = cpu_time(RUNS, || resolve_with(&ix, &snap, &target))
            .map_or("—".into(), |c| format!("{c:>6.2} ms"));
        let mark = if p90 <= *goal { "ok" } else { "OVER" };
        println!(
            "{kind:<28} {text:<48} {name:>22} {count:>7} {med:>6.2} ms {p90:>6.2} ms {cpu:>9} {:>4} ms {mark}",
            goal
        );
    }
}

fn suggestions() {
    println!();
    for size in [1_000, 10_000, 50_000] {
        let s = snapshot(size);
        let runs = if size > 10_000 { 11 } else { RUNS };
        // A fresh index each run, as the CLI's `tree --targets` builds one per snapshot.
        let run = || suggest_all_with(&SnapshotIndex::new(&s), &s);
        let (med, p90) = time(runs, run);
        let cpu = cpu_time(runs, run).map_or("—".into(), |c| format!("{c:.1} ms"));
        let ix = SnapshotIndex::new(&s);
        let all = suggest_all_with(&ix, &s);
        let grade = |g: Grade| all.iter().flatten().filter(|t| t.grade() == g).count();
        let goal = if size == 50_000 {
            "goal ≤ 100 ms"
        } else {
            ""
        };
        println!(
            "suggest_all on {} nodes (index included): median {med:.2} ms, p90 {p90:.2} ms, \
             mean CPU time {cpu}; {} suggested: {} stable, {} contextual, {} positional  {goal}",
            s.nodes.len(),
            all.iter().flatten().count(),
            grade(Grade::Stable),
            grade(Grade::Contextual),
            grade(Grade::Positional),
        );
    }
}
