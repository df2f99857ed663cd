//! Measures `treeglass audit`'s rules engine on a generated 50,000-node snapshot (and 1,000 and
//! 10,000), with made-up facts of the audit's own reads so every rule runs: suggested targets
//! where the audit needs them (the index included), then every rule. Some
//! defects are planted so the rules have work to report (every 40th text field unnamed, every
//! 25th button named like its role, look-alike check boxes). Prints median and p90 beside the
//! goal (≤ 100 ms at 50,000 nodes) and the findings per rule; asserts nothing
//! (`cargo bench --bench audit`).

use std::hint::black_box;
use std::time::Instant;

use std::sync::Arc;

use treeglass::audit::facts::Relations;
use treeglass::audit::{self, Facts, Options};
use treeglass::backend::fixture::synthetic;
use treeglass::model::{Bounds, Role, Snapshot, SnapshotId, State};
use treeglass::selector::{SnapshotIndex, suggest_all_with, suggest_rows_with};

const RUNS: usize = 11;

/// CPU time the process has used, every thread counted (the audit makes its suggestions on a
/// second thread), threads that ended included: `/proc/self/stat`'s user and system time, in
/// the kernel's fixed 100 ticks a second. So a figure taken on a busy machine can be told
/// apart from time spent waiting for a core.
fn cpu_ms() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces): state is the 3rd, utime the 14th.
    let rest = &text[text.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 * 10.0)
}

fn snapshot(n: usize) -> Snapshot {
    let mut nodes = synthetic::generate(n, 1);
    let (mut texts, mut buttons, mut checks) = (0, 0, 0);
    for node in nodes.iter_mut() {
        match node.role {
            Role::Text => {
                texts += 1;
                if texts % 40 == 0 {
                    node.name = "".into();
                }
            }
            Role::Button => {
                buttons += 1;
                if buttons % 25 == 0 {
                    node.name = "Button".into();
                }
            }
            Role::CheckBox => {
                checks += 1;
                if checks % 30 == 0 {
                    node.name = "checkbutton".into();
                }
            }
            _ => {}
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

/// What an AT-SPI audit reads beyond the snapshot, made up for it: bounds for every element
/// (the window's, and a box inside it; every 500th button 0 wide), the relations of every
/// interactive element and label (none), no index or table mismatch. So every rule runs.
fn facts(s: &Snapshot) -> Facts {
    let mut f = Facts::of(s.id);
    let mut buttons = 0;
    f.bounds = Some(
        s.nodes
            .iter()
            .enumerate()
            .map(|(row, n)| {
                let (mut x, mut y, mut width, mut height) = (10, 10, 100, 20);
                if row == 0 {
                    (x, y, width, height) = (0, 0, 1600, 1200);
                }
                if n.role == Role::Button {
                    buttons += 1;
                    if buttons % 500 == 0 {
                        width = 0;
                    }
                }
                (
                    row,
                    Bounds {
                        x,
                        y,
                        width,
                        height,
                    },
                )
            })
            .collect(),
    );
    f.relations = Some(
        s.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.role.is_interactive() || n.role == Role::Label)
            .map(|(row, _)| (row, Relations::default()))
            .collect(),
    );
    f.index = Some(Default::default());
    f.tables = Some(Default::default());
    f
}

fn main() {
    for size in [1_000, 10_000, 50_000] {
        let s = snapshot(size);
        let opts = Options {
            facts: Some(Arc::new(facts(&s))),
            ..Options::default()
        };
        let mut times: Vec<f64> = (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                black_box(audit::audit(&s, &opts).expect("every rule"));
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let (med, p90) = (times[RUNS / 2], times[(RUNS * 9) / 10]);
        let cpu = cpu_ms().and_then(|start| {
            for _ in 0..RUNS {
                black_box(audit::audit(&s, &opts).expect("every rule"));
            }
            Some((cpu_ms()? - start) / RUNS as f64)
        });
        let cpu = cpu.map_or("—".to_string(), |c| format!("{c:.1} ms"));
        let a = audit::audit(&s, &opts).expect("every rule");
        let goal = if size == 50_000 {
            if p90 <= 100.0 {
                "goal ≤ 100 ms: ok"
            } else {
                "goal ≤ 100 ms: OVER"
            }
        } else {
            ""
        };
        println!(
            "audit of {} nodes (suggestions and {} rules): median {med:.2} ms, p90 \
             {p90:.2} ms, mean CPU time {cpu}; {} findings  {goal}",
            s.nodes.len(),
            a.evaluated.len(),
            a.findings.len()
        );
        let counts: Vec<String> = audit::RULES
            .iter()
            .map(|r| (r.id, a.count_of(r.id)))
            .filter(|(_, n)| *n > 0)
            .map(|(id, n)| format!("{id} {n}"))
            .collect();
        println!("    {}", counts.join(", "));
        if size == 50_000 {
            // Where the time goes, each part on its own: the suggestions (with an index, as
            // the TUI has one), then each rule on top. The audit makes its suggestions on a
            // second thread while the other rules run, so the parts add up to more than it.
            let median = |f: &dyn Fn()| {
                let mut t: Vec<f64> = (0..RUNS)
                    .map(|_| {
                        let s = Instant::now();
                        f();
                        s.elapsed().as_secs_f64() * 1000.0
                    })
                    .collect();
                t.sort_by(f64::total_cmp);
                t[RUNS / 2]
            };
            // The previous version suggested a target for every row; this one for the
            // interactive elements on screen (and, after the rules, the rows with findings).
            let every = median(&|| {
                black_box(suggest_all_with(&SnapshotIndex::new(&s), &s));
            });
            let suggest = median(&|| {
                black_box(suggest_rows_with(&SnapshotIndex::new(&s), &s, |r| {
                    let n = &s.nodes[r];
                    n.states.has(State::Showing) && n.role.is_interactive()
                }));
            });
            let index = median(&|| {
                black_box(SnapshotIndex::new(&s));
            });
            let groups = median(&|| {
                black_box(suggest_rows_with(&SnapshotIndex::new(&s), &s, |_| false));
            });
            let mut parts = vec![format!(
                "suggestions {suggest:.1} ms (the index {index:.1}, its groups {:.1}; of every \
                 row, as before: {every:.1} ms)",
                groups - index
            )];
            for r in audit::RULES {
                let one = Options {
                    rules: vec![r.id.to_string()],
                    ..opts.clone()
                };
                let t = median(&|| {
                    black_box(audit::audit(&s, &one).expect("rule"));
                });
                parts.push(format!("{} {:.1}", r.id, (t - suggest).max(0.0)));
            }
            println!("    of which: {} (ms)", parts.join(", "));
        }
    }
}
