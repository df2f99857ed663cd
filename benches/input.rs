//! Synthesized input, whole process, on every desktop treeglass has an input path for, in one
//! run: a 20-character keyboard write (Chromium's textarea on the project's form page: focus,
//! select all, typed) and a pointer toggle (a gtk4-widget-factory check box: raise, click at the
//! centre), each the whole `treeglass set … --json` process (start, connect, resolve, write,
//! read back, watch), on Xvfb (X11, XTest), a headless sway (sway's IPC, wlroots' virtual
//! keyboard and pointer), a headless KWin 5.27 (a KWin script, KWin's fake input through
//! treeglass's grant) and a headless GNOME Shell 43 (treeglass's extension, Mutter's remote
//! desktop), and, from Debian 13's rootfs (`scripts/trixie`), a headless KWin 6.3 and GNOME
//! Shell 48 (keys and clicks through their EIS). The sessions run at once, each with its own
//! apps, and the rounds alternate between them, so drift in the machine's load hits every
//! column alike.
//!
//! `cargo bench --bench input` (it starts the sessions itself with `treeglass session`; the
//! Debian 13 ones through `scripts/trixie run`, which needs root and the rootfs: without it
//! they are left out, and the run says so). Words after `--` choose sides by any part of their
//! names (`-- 'kwin 6.3' 'shell 48'`); X11, the baseline, always runs. Six sessions at once
//! load a 2-core machine enough to double every figure; fewer sides measure closer to a
//! desktop at rest.

#[allow(unused_imports)]
#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use common::matrix::{Kit, MatrixApp};
use serde_json::{Value, json};

const ROUNDS: usize = 9;

fn main() {
    if std::env::args().any(|a| a == "--inner") {
        inner();
        return;
    }
    // `cargo bench` passes `--bench`. Other words choose sides by name (case aside, any part
    // of it: `cargo bench --bench input -- 'kwin 6.3'`); X11, the baseline, always runs.
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.to_lowercase())
        .collect();
    let exe = std::env::current_exe().expect("this bench's path");
    let treeglass = env!("CARGO_BIN_EXE_treeglass");
    let trixie = trixie_ready();
    if let Err(why) = &trixie {
        println!("KWin 6.3 and GNOME Shell 48 are not measured: {why}");
    }
    let mut sides: Vec<Side> = [
        ("X11 (Xvfb)", None, false),
        ("sway", Some("--wayland=sway"), false),
        ("KWin 5.27", Some("--wayland=kwin"), false),
        ("GNOME Shell 43", Some("--wayland=gnome"), false),
        ("KWin 6.3", Some("--wayland=kwin"), true),
        ("GNOME Shell 48", Some("--wayland=gnome"), true),
    ]
    .into_iter()
    .filter(|(_, _, in_trixie)| !in_trixie || trixie.is_ok())
    .filter(|(name, wayland, _)| {
        wayland.is_none()
            || chosen.is_empty()
            || chosen.iter().any(|c| name.to_lowercase().contains(c))
    })
    .map(|(name, wayland, in_trixie)| {
        let mut cmd = match in_trixie {
            true => {
                let mut c = Command::new(format!("{}/scripts/trixie", env!("CARGO_MANIFEST_DIR")));
                c.args(["run", treeglass]);
                c
            }
            false => Command::new(treeglass),
        };
        cmd.arg("session");
        cmd.args(wayland);
        Side::start(name, cmd.arg("--").arg(&exe))
    })
    .collect();
    let mut rounds: Vec<Vec<Value>> = vec![Vec::new(); sides.len()];
    for _ in 0..ROUNDS {
        for (side, got) in sides.iter_mut().zip(&mut rounds) {
            got.push(side.round());
        }
    }
    println!("\nsynthesized input, whole `treeglass set` process, {ROUNDS} rounds each (ms)\n");
    let names: Vec<String> = sides
        .iter()
        .map(|s| format!("{} median | p90", s.name))
        .collect();
    println!("| write | {} |", names.join(" | "));
    println!("|---|{}", "---|---|".repeat(sides.len()));
    for (key, label) in [
        ("keyboard", "20 characters typed (Chromium textarea)"),
        ("pointer", "check box clicked (gtk4-widget-factory)"),
    ] {
        let cells: Vec<String> = rounds
            .iter()
            .map(|r| {
                let (m, p) = stats(r, key);
                format!("{m:.0} | {p:.0}")
            })
            .collect();
        println!("| {label} | {} |", cells.join(" | "));
    }
    println!(
        "\nEvery write was verified by its read-back (the default settle of 60 ms and watch of \
         600 ms are in every figure)."
    );
}

/// Whether Debian 13's rootfs is made (`scripts/trixie build`), or why its sides cannot run.
fn trixie_ready() -> Result<(), String> {
    let script = format!("{}/scripts/trixie", env!("CARGO_MANIFEST_DIR"));
    let o = Command::new(&script)
        .arg("path")
        .output()
        .map_err(|e| format!("{script}: {e}"))?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).trim().to_string());
    }
    let root = String::from_utf8_lossy(&o.stdout).trim().to_string();
    match std::path::Path::new(&root)
        .join(".treeglass-ready")
        .exists()
    {
        true => Ok(()),
        false => Err(format!(
            "no rootfs at {root} (scripts/trixie build makes it)"
        )),
    }
}

fn stats(rounds: &[Value], key: &str) -> (f64, f64) {
    let mut v: Vec<f64> = rounds
        .iter()
        .map(|r| r[key].as_f64().unwrap_or(f64::NAN))
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[(v.len() * 9).div_ceil(10) - 1])
}

/// One session with the bench running inside it.
struct Side {
    name: &'static str,
    _child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Side {
    fn start(name: &'static str, cmd: &mut Command) -> Side {
        let mut child = cmd
            .arg("--inner")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start treeglass session");
        let stdin = child.stdin.take().expect("stdin");
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut side = Side {
            name,
            _child: child,
            stdin,
            out,
        };
        let ready = side.line();
        assert_eq!(ready["ready"], true, "{name}: {ready}");
        side
    }

    fn line(&mut self) -> Value {
        let mut s = String::new();
        self.out.read_line(&mut s).expect("read");
        serde_json::from_str(&s).unwrap_or_else(|e| panic!("{}: {e}: {s:?}", self.name))
    }

    fn round(&mut self) -> Value {
        writeln!(self.stdin, "go").expect("write");
        self.stdin.flush().expect("flush");
        let r = self.line();
        assert!(r["error"].is_null(), "{}: {r}", self.name);
        r
    }
}

/// On KWin: treeglass's grant of KWin's fake input, honoured (KWin notices a new grant within
/// a few seconds).
fn kwin_grant() {
    let treeglass = env!("CARGO_BIN_EXE_treeglass");
    let run = |what: &str| Command::new(treeglass).args(["kde-grant", what]).output();
    let installed = run("install").expect("run kde-grant install");
    assert!(installed.status.success(), "kde-grant install failed");
    let deadline = Instant::now() + Duration::from_secs(15);
    while !run("status").is_ok_and(|o| o.status.success()) {
        assert!(Instant::now() < deadline, "KWin never honoured the grant");
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Inside a session: the apps, then one round per `go` line.
fn inner() {
    if std::env::var("XDG_CURRENT_DESKTOP").is_ok_and(|d| d == "KDE") {
        kwin_grant();
    }
    let chromium = MatrixApp::start(Kit::Chromium);
    let gtk4 = MatrixApp::start(Kit::Gtk4);
    println!("{}", json!({"ready": true}));
    let texts = ["abcdefghijklmnopqrst", "ABCDEFGHIJKLMNOPQRST"];
    let mut checked = false;
    for (round, line) in std::io::stdin().lock().lines().enumerate() {
        if line.is_err() {
            break;
        }
        let timed = |app: &MatrixApp, target: &str, value: &str| {
            let t = Instant::now();
            let o = app.treeglass(&["set", target, value, "--json"]);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
            (ms, v["outcome"].as_str().unwrap_or("?").to_string())
        };
        let (kbd, ko) = timed(&chromium, "text \"Notes:\"", texts[round % 2]);
        checked = !checked;
        let (ptr, po) = timed(&gtk4, "check-box \"checkbutton\" #2", &checked.to_string());
        let error =
            (ko != "verified" || po != "verified").then(|| format!("keyboard {ko}, pointer {po}"));
        println!(
            "{}",
            json!({"keyboard": kbd, "pointer": ptr, "error": error})
        );
        std::io::stdout().flush().expect("flush");
    }
}
