//! How fast a private accessibility stack comes up and goes away: `treeglass session` beside
//! the shell script it replaced (`benches/support/a11y-session-shell`, the same stack started
//! and polled with dbus-send and a fork per check) and the stock tools (`xvfb-run -a
//! dbus-run-session`, the accessibility bus and the registry then activated by a call to each,
//! as an app would). The rounds alternate between the three, so drift in the machine's load
//! hits every column alike. Each run starts from a clean environment (PATH and HOME only).
//!
//! Per run: *ready* — from the start of the process to CMD's first instruction (CMD prints the
//! clock; for the stock tools, once the registry answers on the accessibility bus) — and
//! *total* — the whole process, stopping included. Also counted: processes left running
//! afterwards (found by a marker in their environment, then stopped).
//!
//! `cargo bench --bench session` (`TREEGLASS_BENCH_ROUNDS=N`, default 10). It needs no
//! session around it: each run makes its own.
// It runs against the real AT-SPI bus: Linux only.
#![cfg_attr(not(target_os = "linux"), no_main)]
#![cfg(target_os = "linux")]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// CMD: the wall clock in nanoseconds, when it runs.
const CLOCK: &str = "date +%s%N";

/// Inside `xvfb-run -a dbus-run-session`: the accessibility bus (activating the launcher on
/// the session bus), IsEnabled, and the registry (activated on the accessibility bus), then
/// the clock.
const STOCK: &str = r#"
set -e
addr=$(dbus-send --session --print-reply=literal --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress | tr -d ' ')
dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus \
    org.freedesktop.DBus.Properties.Set string:org.a11y.Status string:IsEnabled variant:boolean:true >/dev/null
dbus-send --bus="$addr" --print-reply --dest=org.a11y.atspi.Registry \
    /org/a11y/atspi/registry org.freedesktop.DBus.Peer.Ping >/dev/null
date +%s%N
"#;

struct Contender {
    name: &'static str,
    argv: Vec<String>,
    ready: Vec<f64>,
    total: Vec<f64>,
    failures: usize,
    left: usize,
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rounds: usize = std::env::var("TREEGLASS_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let repo = env!("CARGO_MANIFEST_DIR");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut contenders = vec![
        Contender::new(
            "treeglass session",
            s(&[
                env!("CARGO_BIN_EXE_treeglass"),
                "session",
                "--",
                "sh",
                "-c",
                CLOCK,
            ]),
        ),
        Contender::new(
            "the shell script it replaced",
            vec![
                format!("{repo}/benches/support/a11y-session-shell"),
                "--".into(),
                "sh".into(),
                "-c".into(),
                CLOCK.into(),
            ],
        ),
        Contender::new(
            "xvfb-run -a dbus-run-session",
            s(&[
                "xvfb-run",
                "-a",
                "dbus-run-session",
                "--",
                "sh",
                "-c",
                STOCK,
            ]),
        ),
    ];
    for round in 0..rounds {
        for c in &mut contenders {
            c.run(round);
        }
    }
    println!(
        "\na private accessibility stack (session bus, X display, accessibility bus, registry, \
         IsEnabled), {rounds} rounds each, alternating (ms)\n"
    );
    println!("| | ready median | p90 | total median | p90 | failed | left running |");
    println!("|---|---|---|---|---|---|---|");
    for c in &mut contenders {
        let (rm, rp) = stats(&mut c.ready);
        let (tm, tp) = stats(&mut c.total);
        println!(
            "| {} | {rm:.0} | {rp:.0} | {tm:.0} | {tp:.0} | {} | {} |",
            c.name, c.failures, c.left
        );
    }
    let (ready, _) = stats(&mut contenders[0].ready);
    println!(
        "\ntreeglass session ready in {ready:.0} ms (median): {} the 2 s budget",
        if ready <= 2000.0 { "within" } else { "OVER" }
    );
}

impl Contender {
    fn new(name: &'static str, argv: Vec<String>) -> Contender {
        Contender {
            name,
            argv,
            ready: Vec::new(),
            total: Vec::new(),
            failures: 0,
            left: 0,
        }
    }

    fn run(&mut self, round: usize) {
        let marker = format!("treeglass-bench-session-{}-{round}", std::process::id());
        let start_wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let t = Instant::now();
        let out = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .env_clear()
            .env("PATH", PATH)
            .env(
                "HOME",
                std::env::var("HOME").unwrap_or_else(|_| "/root".into()),
            )
            .env("TREEGLASS_BENCH_MARKER", &marker)
            .stdin(Stdio::null())
            .output();
        let total = t.elapsed();
        let out = match out {
            Ok(o) if o.status.success() => o,
            Ok(o) => {
                eprintln!(
                    "{}: exit {:?}: {}",
                    self.name,
                    o.status.code(),
                    String::from_utf8_lossy(&o.stderr)
                );
                self.failures += 1;
                self.left += stop_marked(&marker);
                return;
            }
            Err(e) => {
                eprintln!("{}: {e}", self.name);
                self.failures += 1;
                return;
            }
        };
        let printed: Option<u128> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok());
        match printed {
            Some(ns) => {
                let ready = Duration::from_nanos((ns.saturating_sub(start_wall.as_nanos())) as u64);
                self.ready.push(ready.as_secs_f64() * 1000.0);
                self.total.push(total.as_secs_f64() * 1000.0);
            }
            None => {
                eprintln!(
                    "{}: no clock printed: {}",
                    self.name,
                    String::from_utf8_lossy(&out.stdout)
                );
                self.failures += 1;
            }
        }
        self.left += stop_marked(&marker);
    }
}

/// Stops the processes whose environment holds `marker` (left running by a run); how many.
fn stop_marked(marker: &str) -> usize {
    let marked = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .filter(|p| p.bytes().all(|b| b.is_ascii_digit()))
                    .filter(|p| {
                        std::fs::read(format!("/proc/{p}/environ")).is_ok_and(|env| {
                            env.windows(marker.len()).any(|w| w == marker.as_bytes())
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    // Give what is on its way out a moment.
    std::thread::sleep(Duration::from_millis(200));
    let left = marked();
    if !left.is_empty() {
        let _ = Command::new("kill").arg("-KILL").args(&left).status();
    }
    left.len()
}

fn stats(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[(v.len() * 9).div_ceil(10) - 1])
}
