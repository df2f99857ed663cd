//! Trees that lie: every command against the project's lying AT-SPI app (`tests/liar_app.py`,
//! no toolkit), one lie at a time, all together, a 10,000-level chain, and lies drawn at
//! random. Nothing may abort, hang, pass its deadline or grow past 200 MB; what could not be
//! read is said, the element that keeps a call unanswered is named with its call, and the app
//! is called not responding only when it answers nothing. The app is started once and its
//! lies are switched while it runs; after every lie it must still answer.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

mod common;

use std::process::{Command, Stdio};
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::liar::Liar;
use serde_json::Value;

/// The one lying app of this binary (tests take turns with it).
static LIAR: LazyLock<Mutex<Liar>> = LazyLock::new(|| Mutex::new(Liar::start(&[])));

fn liar() -> MutexGuard<'static, Liar> {
    LIAR.lock().unwrap_or_else(|e| e.into_inner())
}

/// How one treeglass run ended.
#[derive(Debug)]
struct Ran {
    args: Vec<String>,
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak_mib: u64,
}

impl Ran {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{:?}: not JSON ({e}): {}", self.args, self.stderr))
    }
}

/// The most a command may take here, whatever the app does (a silent element costs 1.5 s per
/// command; a hung app, 1.5 s and a probe).
const DEADLINE: Duration = Duration::from_secs(90);
/// The most memory a command may use, whatever the app sends.
const PEAK_MIB: u64 = 200;

/// Runs treeglass on the liar (`--pid` appended), measuring its peak memory with
/// `/usr/bin/time`; fails on a crash, a panic, a stack overflow, a deadline passed or too much
/// memory.
fn run(pid: u32, args: &[&str]) -> Ran {
    let peak = std::env::temp_dir().join(format!(
        "tg-liar-peak-{}-{}",
        std::process::id(),
        common::next_id()
    ));
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend(["--pid".to_string(), pid.to_string()]);
    let started = Instant::now();
    let mut child = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&peak)
        .arg(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "atspi"])
        .args(&all)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run treeglass under /usr/bin/time (Debian package time)");
    // Read both pipes while waiting, so a big output cannot block the child.
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{all:?} passed its deadline of {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (out_t.join().unwrap(), err_t.join().unwrap());
    let measured = std::fs::read_to_string(&peak).unwrap_or_default();
    let _ = std::fs::remove_file(&peak);
    assert!(
        !measured.contains("terminated by signal"),
        "{all:?} was killed by a signal ({measured}): {stderr}"
    );
    let peak_mib = measured
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .next_back()
        .unwrap_or(0)
        / 1024;
    let r = Ran {
        args: all,
        code: status.code(),
        stdout,
        stderr,
        peak_mib,
    };
    assert!(
        !r.stderr.contains("panicked") && !r.stderr.contains("overflowed its stack"),
        "{:?} crashed: {}",
        r.args,
        r.stderr
    );
    assert_ne!(r.code, Some(101), "{:?} panicked: {}", r.args, r.stderr);
    assert!(
        r.peak_mib <= PEAK_MIB,
        "{:?} used {} MiB (at most {PEAK_MIB})",
        r.args,
        r.peak_mib
    );
    r
}

/// Every command of treeglass against the liar as it lies now. Returns the runs, by name.
fn every_command(l: &mut Liar, scratch: &std::path::Path) -> Vec<(&'static str, Ran)> {
    let pid = l.pid;
    let file = scratch.join(format!("tree-{}.json", common::next_id()));
    let mut out = Vec::new();
    let tree = run(pid, &["tree", "--json"]);
    std::fs::write(&file, &tree.stdout).unwrap();
    let file = file.display().to_string();
    out.push(("tree --json", tree));
    out.push(("tree", run(pid, &["tree"])));
    out.push((
        "find",
        run(pid, &["find", "button \"OK\"", "--wait-ms", "2000"]),
    ));
    out.push((
        "get",
        run(pid, &["get", "check-box \"Check\"", "--wait-ms", "2000"]),
    ));
    out.push((
        "set",
        run(
            pid,
            &["set", "check-box \"Check\"", "true", "--wait-ms", "2000"],
        ),
    ));
    out.push((
        "invoke",
        run(pid, &["invoke", "button \"OK\"", "--wait-ms", "2000"]),
    ));
    out.push(("audit", run(pid, &["audit"])));
    out.push(("diff", run(pid, &["diff", &file])));
    out
}

/// The exit codes a command may end with on a lying app: ok, no such element, the app gone,
/// not responding, differs, ambiguous, not found, incomplete, findings, an element silent,
/// and the write verdicts (mismatch, unconfirmed, refused).
const HONEST: &[i32] = &[0, 3, 6, 8, 9, 10, 11, 12, 14, 15, 20, 21, 22];

fn check_honest(what: &str, runs: &[(&str, Ran)]) {
    for (name, r) in runs {
        let code = r.code.unwrap_or(-1);
        assert!(
            HONEST.contains(&code),
            "{what}: {name} ended with {code}: {}\n{}",
            r.stderr,
            r.stdout.chars().take(2000).collect::<String>()
        );
        // A tree that is not whole says so, on stderr or in its JSON.
        if code == 12 {
            let said = |s: &str| s.contains("incomplete") || s.contains("cut short");
            assert!(
                said(&r.stderr) || said(&r.stdout),
                "{what}: {name} exits 12 without saying what was not read: {}",
                r.stderr
            );
        }
    }
}

/// A test's scratch directory (the files its commands write), removed when the test ends.
struct Scratch(std::path::PathBuf);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A scratch directory of this test's own (tests take turns with the liar, and each holds it
/// while its directory lives).
fn scratch() -> Scratch {
    let d = std::env::temp_dir().join(format!(
        "tg-liar-{}-{}",
        std::process::id(),
        common::next_id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// After a lie: the app answers, its lies off.
fn recovered(l: &mut Liar, after: &str) {
    l.only(&[]);
    common::assert_answers(l.pid, "the liar app", after);
}

#[test]
fn each_lie_alone_every_command_ends_honestly() {
    let mut l = liar();
    let dir = scratch();
    for lie in [
        "cycle",
        "deep=400",
        "silent-element=Slow",
        "silent-element=Slow:GetState",
        "silent-method=GetState",
        "bad-signature=GetState",
        "bad-signature=GetChildren",
        "bad-signature=GetRole",
        "bad-signature=GetItems",
        "bad-signature=Name",
        "huge-strings",
        "huge-arrays=children",
        "huge-arrays=states",
        "bad-text",
        "invalid-utf8",
        "flip-names",
        "vanish-children",
        "vanish-children=half",
        "child-count=1000000",
        "no-interface=Value",
        "no-interface=Text",
        "dangling",
        "tiny-window",
        "slow=30",
        "stale-cache",
        "gdbus-errors",
        "bad-signature=*",
        "bad-signature=Body:GetChildren",
        "flicker",
        "vanish-after-name",
        "refuse-past-end",
        "manages",
    ] {
        l.only(&[lie]);
        let runs = every_command(&mut l, &dir);
        check_honest(lie, &runs);
        // Nothing here makes the app answer nothing: it is never called not responding.
        for (name, r) in &runs {
            assert_ne!(
                r.code,
                Some(8),
                "{lie}: {name} called the app hung: {}",
                r.stderr
            );
            assert!(
                !r.stderr.contains("does not answer accessibility calls"),
                "{lie}: {name}: {}",
                r.stderr
            );
        }
        recovered(&mut l, lie);
    }
}

#[test]
fn a_cycle_is_shown_once_marked_and_never_entered_again() {
    let mut l = liar();
    l.only(&["cycle"]);
    let pid = l.pid;
    let r = run(pid, &["tree"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout
            .contains("frame \"Liar\" ⟲ cycle: its own ancestor (row 0)"),
        "{}",
        r.stdout
    );
    let v = run(pid, &["tree", "--json"]).json();
    let body = &v["root"]["children"][0];
    let again = body["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["repeat"].is_object())
        .unwrap_or_else(|| panic!("no repeat under Body: {body:#}"));
    assert_eq!(again["repeat"]["cycle"], true);
    assert_eq!(again["repeat"]["of"], 0);
    assert_eq!(again["children"].as_array().unwrap().len(), 0);
    // Targets name the element, never its repeat: the frame is unique.
    let f = run(pid, &["find", "frame \"Liar\"", "--json"]).json();
    assert_eq!(f["outcome"], "unique", "{f:#}");
    assert_eq!(f["row"], 0);
    // A file with the cycle diffs equal to the live tree.
    let dir = scratch();
    let file = dir.join("cycle.json");
    std::fs::write(&file, run(pid, &["tree", "--json"]).stdout).unwrap();
    let d = run(pid, &["diff", file.to_str().unwrap()]);
    assert_eq!(d.code, Some(0), "{}{}", d.stdout, d.stderr);
    recovered(&mut l, "a cycle");
}

#[test]
fn a_silent_element_is_named_with_its_call_and_the_rest_is_read() {
    let mut l = liar();
    // Without its cache the app is read element by element, so the silent call is met.
    l.only(&["silent-element=Slow:GetState", "bad-signature=GetItems"]);
    let pid = l.pid;
    let t = run(pid, &["tree"]);
    assert_eq!(t.code, Some(12), "{}", t.stderr);
    assert!(
        t.stdout.contains("button \"Slow\" ⚠ no answer to GetState"),
        "{}",
        t.stdout
    );
    for other in ["button \"OK\"", "check-box \"Check\"", "text \"Field\""] {
        assert!(t.stdout.contains(other), "{other} read: {}", t.stdout);
    }
    assert!(
        t.stderr
            .contains("button \"Slow\": GetState did not answer (the app answers other calls)"),
        "{}",
        t.stderr
    );
    let v = run(pid, &["tree", "--json"]).json();
    assert_eq!(v["complete"], false);
    assert_eq!(v["partial"], 1);
    // Another element resolves and is written as usual.
    let f = run(pid, &["find", "button \"OK\""]);
    assert_eq!(f.code, Some(0), "{}{}", f.stdout, f.stderr);
    let s = run(pid, &["set", "check-box \"Check\"", "true", "--json"]);
    assert_eq!(s.json()["outcome"], "verified", "{}", s.stdout);
    assert_eq!(l.state()["checked"], true);
    // The silent one: read in part (exit 15), and nothing is written to it.
    let g = run(pid, &["get", "button \"Slow\""]);
    assert_eq!(g.code, Some(15), "{}{}", g.stdout, g.stderr);
    assert!(g.stderr.contains("GetState did not answer"), "{}", g.stderr);
    let presses = l.state()["presses"]["Slow"].clone();
    let i = run(pid, &["invoke", "button \"Slow\"", "--json"]);
    assert_eq!(i.json()["outcome"], "refused", "{}", i.stdout);
    assert_eq!(i.json()["dispatched"], false);
    assert_eq!(l.state()["presses"]["Slow"], presses, "nothing was sent");
    // The doctor: it answers, one element does not.
    let d = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "atspi", "doctor", "--json"])
        .output()
        .unwrap();
    let d: Value = serde_json::from_slice(&d.stdout).unwrap();
    let me = d["apps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pid"].as_u64() == Some(u64::from(pid)))
        .unwrap_or_else(|| panic!("doctor lists the liar: {d:#}"));
    assert_ne!(me["responding"], false, "{me:#}");
    assert_eq!(me["status"], "warn", "{me:#}");
    assert!(
        me["hint"]
            .as_str()
            .unwrap_or_default()
            .contains("answers, but 1 element does not: button \"Slow\" (GetState)"),
        "{me:#}"
    );
    l.only(&[]);
    let _ = l.state();
    common::assert_answers(pid, "the liar app", "a silent element");
}

#[test]
fn an_app_that_answers_nothing_is_not_responding() {
    let mut l = liar();
    let pid = l.pid;
    l.only(&["silent-after=0"]);
    for args in [
        vec!["tree"],
        vec!["find", "button \"OK\"", "--wait-ms", "1000"],
    ] {
        let r = run(pid, &args);
        assert_eq!(r.code, Some(8), "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("does not answer accessibility calls"),
            "{}",
            r.stderr
        );
    }
    let v = l.cmd("wake");
    assert_eq!(v["ok"], true);
    recovered(&mut l, "a hung spell");
}

#[test]
fn a_count_that_lies_is_shown_beside_what_was_given() {
    let mut l = liar();
    l.only(&["child-count=1000000"]);
    let r = run(l.pid, &["tree"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stdout
            .contains("panel \"Body\" — says it has 1,000,000 children, gave 5"),
        "{}",
        r.stdout
    );
    for kid in ["button \"OK\"", "button \"Slow\"", "label \"Status\""] {
        assert!(r.stdout.contains(kid), "{kid}: {}", r.stdout);
    }
    l.cmd("calls reset");
    let r = run(l.pid, &["tree"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let calls = l.calls()["by_method"].clone();
    assert!(
        calls["GetChildAtIndex"].as_u64().unwrap_or(0) <= 64,
        "asked one by one, not a million times: {calls}"
    );
    recovered(&mut l, "a lying count");
}

#[test]
fn a_chain_ten_thousand_deep_is_read_audited_and_diffed() {
    let mut l = liar();
    l.only(&["deep=10000"]);
    let pid = l.pid;
    let dir = scratch();
    let t = run(pid, &["tree", "--json", "--max-depth", "20000"]);
    assert_eq!(t.code, Some(0), "{}", t.stderr);
    // Deeper than a JSON parser here goes (serde_json stops at 128): the document's head
    // holds its counts, and treeglass's own `diff` reads it whole below.
    let head: String = t.stdout.chars().take(800).collect();
    assert!(head.contains("\"complete\": true"), "{head}");
    assert!(head.contains("\"node_count\": 10007"), "{head}");
    assert!(t.stdout.contains("\"name\": \"Level 10000\""));
    let file = dir.join("deep.json");
    std::fs::write(&file, &t.stdout).unwrap();
    let a = run(pid, &["audit", "--max-depth", "20000"]);
    assert!(matches!(a.code, Some(0 | 14)), "{}{}", a.stdout, a.stderr);
    let d = run(
        pid,
        &["diff", file.to_str().unwrap(), "--max-depth", "20000"],
    );
    assert_eq!(d.code, Some(0), "{}{}", d.stdout, d.stderr);
    // The text form too, at the default depth: cut, and said so.
    let cut = run(pid, &["tree"]);
    assert_eq!(cut.code, Some(12), "{}", cut.stderr);
    assert!(cut.stderr.contains("--max-depth"), "{}", cut.stderr);
    recovered(&mut l, "a deep chain");
}

#[test]
fn every_lie_at_once_ends_honestly() {
    let mut l = liar();
    l.only(&[
        "cycle",
        "deep=300",
        "silent-element=Slow:GetState",
        "bad-signature=GetItems",
        "huge-strings=1",
        "bad-text",
        "flip-names",
        "vanish-children=half",
        "no-interface=Value",
        "dangling",
        "tiny-window",
        "stale-cache",
    ]);
    let runs = every_command(&mut l, &scratch());
    check_honest("every lie", &runs);
    recovered(&mut l, "every lie at once");
}

#[test]
fn mcp_and_the_inspector_survive_the_lies() {
    let mut l = liar();
    l.only(&[
        "cycle",
        "silent-element=Slow:GetState",
        "bad-signature=GetItems",
    ]);
    let pid = l.pid;
    let mut c = common::mcp::McpClient::start("liar", &["--backend", "atspi"]);
    let r = c.call(
        "get_window_state",
        serde_json::json!({"pid": pid, "raw": true}),
    );
    let doc = r["structuredContent"].to_string();
    assert!(doc.contains("\"cycle\":true"), "{r}");
    assert!(doc.contains("\"unanswered\":[\"GetState\"]"), "{r}");
    // What was left out, in one place; the per-element cap is a read parameter.
    let v = &r["structuredContent"];
    assert_eq!(v["left_out"]["partial"], 1, "{r}");
    assert_eq!(v["all_elements"], false, "{r}");
    l.only(&["vanish-after-name", "bad-signature=GetItems"]);
    let r = c.call(
        "get_window_state",
        serde_json::json!({"pid": pid, "raw": true, "max_children": 2}),
    );
    let v = &r["structuredContent"];
    assert_eq!(v["truncated"], "sibling_cap", "{r}");
    assert_eq!(v["left_out"]["by_cap"]["max_children"], 3, "{r}");
    assert!(r.to_string().contains("\"vanished\":["), "{r}");
    c.close();
    l.only(&[
        "cycle",
        "silent-element=Slow:GetState",
        "bad-signature=GetItems",
    ]);
    // The inspector: the tree with both marks, and it quits at once.
    let tmux = common::tmux::Tmux::new();
    tmux.start(&["--pid", &pid.to_string()]);
    let s = tmux.wait_for("⟲ cycle", Duration::from_secs(30));
    assert!(s.contains("no answer to GetState"), "{s}");
    tmux.keys(&["q"]);
    recovered(&mut l, "MCP and the inspector");
}

/// Lies drawn at random, several at once.
#[path = "liar/random.rs"]
mod random;

/// Every element the liar handed out (`exposed`) is in the tree `tree --json` printed (by
/// path), or named in its `unreadable_elements`, and nothing else is; a read no cap cut.
fn accounted(pid: u32, l: &mut Liar, what: &str) -> Value {
    l.cmd("calls reset");
    let r = run(pid, &["tree", "--json"]);
    // An app that fell silent has no whole tree to account for: the read says it does not
    // answer (exit 8), with what it read before (cut short) or nothing when it read nothing.
    // Only a liar told to fall silent may be called so.
    if r.code == Some(8) {
        let lies = l.state()["lies"].to_string();
        assert!(
            lies.contains("silent-after"),
            "{what}: tree --json called the app hung ({lies}): {}",
            r.stderr
        );
        if r.stdout.is_empty() {
            return Value::Null;
        }
        let v = r.json();
        assert_eq!(v["truncated"], "not_responding", "{what}: {v:#}");
        return v;
    }
    // A chain deeper than serde_json parses (deep=N, read whole in its own test) is not
    // accounted here.
    let v: Value = match serde_json::from_str::<Value>(&r.stdout) {
        Err(e) if e.to_string().contains("recursion limit") => return Value::Null,
        _ => r.json(),
    };
    let said = l.cmd("exposed");
    if said["over"] == true || !v["truncated"].is_null() {
        return v;
    }
    let paths = |key: &str| -> std::collections::BTreeSet<String> {
        said[key]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: the liar's `exposed` has no {key}: {said}"))
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    let (exposed, withdrawn) = (paths("paths"), paths("withdrawn"));
    let path_of = |id: &str| -> String {
        id.find("/org/a11y")
            .map(|i| id[i..].to_string())
            .unwrap_or_else(|| id.to_string())
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![&v["root"]];
    while let Some(n) = stack.pop() {
        if let Some(id) = n["id"].as_str() {
            seen.insert(path_of(id));
        }
        stack.extend(n["children"].as_array().into_iter().flatten());
    }
    let named: Vec<String> = v["unreadable_elements"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|u| path_of(u["element"].as_str().unwrap()))
        .collect();
    assert_eq!(
        named.len(),
        v["unreadable"].as_u64().unwrap() as usize,
        "{what}: every unreadable element named: {v:#}"
    );
    for n in &named {
        assert!(
            seen.insert(n.clone()),
            "{what}: {n} both in the tree and unreadable"
        );
    }
    // The app's root is the window's parent, outside a window's tree.
    let root = "/org/a11y/atspi/accessible/root";
    let (mut seen, mut exposed) = (seen, exposed);
    seen.remove(root);
    exposed.remove(root);
    // A child that its parent's last list left out (handed out before by the cache or an
    // earlier list) is no longer the parent's: the list supersedes, the reader drops it.
    // Nothing else may be missing, and nothing the app did not hand out may appear.
    let missing: std::collections::BTreeSet<_> = exposed.difference(&seen).cloned().collect();
    assert!(
        seen.is_subset(&exposed) && missing.is_subset(&withdrawn),
        "{what}: the tree and the unreadable elements are what the app exposed, less what a \
         parent's last list withdrew ({withdrawn:?}): seen {seen:?}, exposed {exposed:?}; \
         stderr: {}",
        r.stderr
    );
    v
}

/// A node of `tree --json` by its name, anywhere under the root.
fn node_named<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    let mut stack = vec![&v["root"]];
    while let Some(n) = stack.pop() {
        if n["name"] == name {
            return Some(n);
        }
        stack.extend(n["children"].as_array().into_iter().flatten());
    }
    None
}

#[test]
fn a_children_list_in_a_wrong_form_keeps_its_element_named() {
    let mut l = liar();
    let pid = l.pid;
    // Walked (no cache), so "Body" is read whole, its list with it.
    l.only(&["bad-signature=GetItems", "bad-signature=Body:GetChildren"]);
    let t = run(pid, &["tree"]);
    assert_eq!(t.code, Some(12), "{}{}", t.stdout, t.stderr);
    assert!(
        t.stdout
            .contains("panel \"Body\" ⚠ wrong answer to GetChildren"),
        "{}",
        t.stdout
    );
    assert!(
        t.stderr
            .contains("panel \"Body\": GetChildren gave a wrong answer"),
        "{}",
        t.stderr
    );
    let v = accounted(pid, &mut l, "Body's list in a wrong form");
    let body = node_named(&v, "Body").unwrap_or_else(|| panic!("Body kept: {v:#}"));
    assert_eq!(body["malformed"], serde_json::json!(["GetChildren"]));
    assert_eq!(v["complete"], false);
    // The same with the cache: Body's list comes from it, nothing is lost.
    l.only(&["bad-signature=Body:GetChildren"]);
    accounted(pid, &mut l, "Body's list in a wrong form, with the cache");
    recovered(&mut l, "a list in a wrong form");
}

#[test]
fn an_index_past_the_real_children_is_the_counts_lie() {
    let mut l = liar();
    let pid = l.pid;
    for lies in [
        &["child-count=1000000", "refuse-past-end"][..],
        &[
            "child-count=1000000",
            "refuse-past-end",
            "bad-signature=GetItems",
        ][..],
    ] {
        l.only(lies);
        let t = run(pid, &["tree"]);
        assert_eq!(t.code, Some(0), "{lies:?}: {}{}", t.stdout, t.stderr);
        assert!(
            t.stdout
                .contains("panel \"Body\" — says it has 1,000,000 children, gave 5"),
            "{lies:?}: {}",
            t.stdout
        );
        for kid in ["button \"OK\"", "check-box \"Check\"", "label \"Status\""] {
            assert!(t.stdout.contains(kid), "{lies:?}: {kid}: {}", t.stdout);
        }
        let v = accounted(pid, &mut l, &format!("{lies:?}"));
        assert_eq!(v["unreadable"], 0, "{v:#}");
        // Another element is found for sure.
        let f = run(pid, &["find", "button \"OK\""]);
        assert_eq!(f.code, Some(0), "{lies:?}: {}{}", f.stdout, f.stderr);
    }
    recovered(&mut l, "a count that lies, refused past its end");
}

#[test]
fn what_an_element_answered_before_it_vanished_is_kept() {
    let mut l = liar();
    let pid = l.pid;
    l.only(&["bad-signature=GetItems", "vanish-after-name"]);
    let t = run(pid, &["tree"]);
    assert_eq!(t.code, Some(12), "{}{}", t.stdout, t.stderr);
    for kid in ["\"OK\"", "\"Slow\"", "\"Check\"", "\"Field\"", "\"Status\""] {
        let line = t
            .stdout
            .lines()
            .find(|x| x.contains(kid))
            .unwrap_or_else(|| panic!("{kid} kept: {}", t.stdout));
        assert!(line.contains("⚠ vanished during the read ("), "{line}");
    }
    assert!(
        t.stderr.contains("it vanished during the read"),
        "{}",
        t.stderr
    );
    l.only(&["bad-signature=GetItems", "vanish-after-name"]);
    let v = accounted(pid, &mut l, "children gone after their name");
    assert_eq!(v["unreadable"], 0, "{v:#}");
    let ok = node_named(&v, "OK").unwrap_or_else(|| panic!("OK kept: {v:#}"));
    assert!(!ok["vanished"].as_array().unwrap().is_empty(), "{ok:#}");
    // Nothing is written to an element that vanished.
    l.only(&["bad-signature=GetItems", "vanish-after-name"]);
    let presses = l.state()["presses"]["OK"].clone();
    let i = run(pid, &["invoke", "button \"OK\""]);
    assert_eq!(i.code, Some(12), "{}{}", i.stdout, i.stderr);
    assert!(
        i.stderr.contains("uniqueness cannot be claimed"),
        "{}",
        i.stderr
    );
    assert_eq!(l.state()["presses"]["OK"], presses, "nothing was sent");
    recovered(&mut l, "children gone after their name");
}

#[test]
fn an_element_that_answers_nothing_is_named_unreadable() {
    let mut l = liar();
    let pid = l.pid;
    l.only(&["dangling"]);
    let t = run(pid, &["tree"]);
    assert_eq!(t.code, Some(12), "{}{}", t.stdout, t.stderr);
    assert!(
        t.stderr.contains("1 element could not be read — ")
            && t.stderr
                .contains("/org/a11y/atspi/accessible/999999999 (listed by ")
            && t.stderr.contains("found no such object"),
        "{}",
        t.stderr
    );
    let v = accounted(pid, &mut l, "a dangling child");
    let u = &v["unreadable_elements"][0];
    assert!(
        u["parent"].as_str().unwrap().ends_with("/accessible/2"),
        "{u}"
    );
    assert!(!u["call"].as_str().unwrap().is_empty(), "{u}");
    recovered(&mut l, "a dangling child");
}

#[test]
fn new_lies_are_accounted_for_by_tree_and_find() {
    let mut l = liar();
    let pid = l.pid;
    for lies in [
        &["bad-signature=*"][..],
        &["bad-signature=*", "bad-signature=GetItems"][..],
        &["flicker"][..],
        &["flicker", "bad-signature=GetItems"][..],
        // A count that disagrees with the cache sends the reader to Body's flickering list,
        // which withdraws the child the cache named.
        &["flicker", "dangling"][..],
        &["flicker", "child-count=9"][..],
        &["flip-names", "bad-signature=GetItems"][..],
        &["vanish-after-name"][..],
        &["vanish-children=half", "bad-signature=GetItems"][..],
        &["refuse-past-end", "child-count=7"][..],
        // Body's own list unanswered, its count disagreeing with the cache: the children the
        // cache named are kept.
        &["silent-element=Body:GetChildren", "child-count=7"][..],
        &["bad-signature=Body:GetChildren", "child-count=7"][..],
    ] {
        l.only(lies);
        accounted(pid, &mut l, &format!("{lies:?}"));
        l.only(lies);
        let dir = scratch();
        let runs = vec![
            ("tree", run(pid, &["tree"])),
            (
                "find",
                run(pid, &["find", "button \"OK\"", "--wait-ms", "1000"]),
            ),
            ("audit", run(pid, &["audit"])),
        ];
        check_honest(&format!("{lies:?}"), &runs);
        let _ = dir;
        recovered(&mut l, &format!("{lies:?}"));
    }
}

#[test]
fn every_cap_is_named_and_the_account_says_what_was_left_out() {
    let mut l = liar();
    let pid = l.pid;
    // The per-element cap: an option, named where it cuts, counted in the account.
    l.only(&[]);
    let t = run(pid, &["tree", "--max-children", "3"]);
    assert_eq!(t.code, Some(12), "{}{}", t.stdout, t.stderr);
    assert!(
        t.stderr
            .contains("2 elements beyond --max-children (per element) were not read"),
        "{}",
        t.stderr
    );
    let v = run(pid, &["tree", "--json", "--max-children", "3"]).json();
    assert_eq!(v["truncated"], "sibling_cap");
    assert_eq!(v["left_out"]["by_cap"]["max_children"], 2, "{v:#}");
    assert_eq!(v["complete"], false);
    assert_eq!(v["all_elements"], false);
    // The depth cap, counted the same way: Body's five children.
    let v = run(pid, &["tree", "--json", "--max-depth", "1"]).json();
    assert_eq!(v["left_out"]["by_cap"]["max_depth"], 5, "{v:#}");
    // A whole read: nothing left out.
    let v = run(pid, &["tree", "--json"]).json();
    assert_eq!(v["complete"], true);
    assert_eq!(v["all_elements"], true);
    assert_eq!(
        v["left_out"],
        serde_json::json!({"by_cap": {"max_nodes": 0, "max_depth": 0, "max_children": 0},
            "unreadable": 0, "partial": 0,
            "managed": {"containers": 0, "shown": 0, "of": 0}})
    );
    // A container that manages its descendants: complete as meant, yet not all of it, and
    // said in one place.
    l.only(&["manages", "child-count=120000"]);
    let t = run(pid, &["tree"]);
    assert_eq!(t.code, Some(0), "{}{}", t.stdout, t.stderr);
    assert!(
        t.stderr.contains("1 container is not enumerated by design")
            && t.stderr.contains("of 120,000 shown"),
        "{}",
        t.stderr
    );
    let v = run(pid, &["tree", "--json"]).json();
    assert_eq!(v["complete"], true, "{v:#}");
    assert_eq!(v["all_elements"], false, "{v:#}");
    assert_eq!(v["left_out"]["managed"]["containers"], 1, "{v:#}");
    assert_eq!(v["left_out"]["managed"]["of"], 120_000, "{v:#}");
    recovered(&mut l, "caps and a managed container");
}

/// The elements a busy spell (`stall MS  renamed`) renames: the liar's key, the name.
const BUSY: [(&str, &str); 5] = [
    ("ok", "OK"),
    ("slow", "Slow"),
    ("check", "Check"),
    ("field", "Field"),
    ("status", "Status"),
];

/// The names a busy spell changed, back as they were.
fn names_back(l: &mut Liar) {
    for (key, name) in BUSY {
        assert_eq!(l.cmd(&format!("rename {key} {name}"))["ok"], true);
    }
}

#[test]
fn a_busy_app_heals_in_the_inspector_without_f5() {
    let mut l = liar();
    l.only(&[]);
    let pid = l.pid;
    let tmux = common::tmux::Tmux::new();
    tmux.start(&["--pid", &pid.to_string()]);
    tmux.wait_for("label \"Status\"", Duration::from_secs(30));
    // The app renames its elements (events go out at once), then its main loop is blocked
    // longer than a call's timeout (1.5 s): the inspector's reads of them time out, and the
    // app answers again before the probe that follows gives up.
    let v = l.cmd("stall 2500  renamed");
    assert_eq!(v["ok"], true, "{v}");
    for (_, name) in BUSY {
        let s = tmux.wait_for(&format!("\"{name} renamed\""), Duration::from_secs(4));
        assert!(!s.contains("no answer to"), "{s}");
    }
    tmux.keys(&["q"]);
    names_back(&mut l);
    recovered(&mut l, "a busy spell");
}

/// The same busy spell for a long-running MCP server and a workflow's wait: what went
/// unanswered while the whole app was busy is asked again at the next read, so the server's
/// next answer and the wait see the elements as they are now, and nothing is left marked as
/// not answering.
#[test]
fn a_busy_app_heals_for_mcp_and_a_workflows_wait() {
    let mut l = liar();
    l.only(&[]);
    let pid = l.pid;
    let mut c = common::mcp::McpClient::start("busy", &["--backend", "atspi"]);
    let first = c.ok("get_window_state", serde_json::json!({"pid": pid}));
    assert!(first.to_string().contains("Status"), "{first}");
    // A workflow waiting for the renamed label, started before the app gets busy.
    let dir = scratch();
    let file = dir.join("busy-wait.json");
    let doc = serde_json::json!({
        "schemaVersion": 1,
        "name": "busy",
        "workflowVersion": "1",
        "inputs": {},
        "budgets": {"maxSteps": 1, "maxDurationMs": 60000, "maxRetries": 0,
                    "maxExtractedBytes": 4096},
        "steps": [{"id": "wait-status", "action": "wait", "transaction": "read_only",
                   "target": "label \"Status renamed\"", "condition": "visible",
                   "timeoutMs": 30000}],
        "terminalCondition": {"visible": "label \"Status renamed\""},
        "outputs": {"title": {"type": "string", "source": "page_title"}}
    });
    std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let workflow = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "atspi", "workflow", "run"])
        .arg(&file)
        .args(["--pid", &pid.to_string(), "--json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start treeglass workflow run");
    // The busy spell starts once the workflow is in its wait: it reads the window again every
    // 500 ms (the app's call count grows over more than a second), its start (the window
    // picked, a read) long done.
    let received = |l: &mut Liar| l.calls()["received"].as_u64().unwrap_or_default();
    let (mut last, mut first_growth, started) = (received(&mut l), None, Instant::now());
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = received(&mut l);
        if now > last {
            let since = *first_growth.get_or_insert_with(Instant::now);
            if since.elapsed() > Duration::from_millis(1200) {
                break;
            }
        }
        last = now;
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the workflow never read the window again and again"
        );
    }
    // The server reads while the app's main loop is blocked (the app renames its elements,
    // then blocks for longer than a call's timeout).
    let (go, ready) = std::sync::mpsc::channel::<()>();
    let during = std::thread::spawn(move || {
        ready.recv().unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let r = c.call("get_window_state", serde_json::json!({"pid": pid}));
        (c, r)
    });
    go.send(()).unwrap();
    let v = l.cmd("stall 2500  renamed");
    assert_eq!(v["ok"], true, "{v}");
    let (mut c, during) = during.join().unwrap();
    let after = c.ok("get_window_state", serde_json::json!({"pid": pid}));
    c.close();
    let out = workflow.wait_with_output().unwrap();
    // The names back first, so that a failure below leaves the app as the others expect it.
    names_back(&mut l);
    // Whatever the read during the spell could say, it names no element by a name it never
    // had.
    assert!(!during.to_string().contains("renamed renamed"), "{during}");
    // The next read: every element as it was then, none of them left unasked.
    let text = after.to_string();
    for (_, name) in BUSY {
        assert!(
            text.contains(&format!("\"{name} renamed\"")),
            "{name}: {after:#}"
        );
    }
    assert!(!text.contains("unanswered"), "{after:#}");
    assert_eq!(after["complete"], true, "{after:#}");
    // The wait saw the renamed label.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "workflow run printed no JSON ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["steps"][0]["outcome"], "verified", "{report:#}");
    recovered(&mut l, "a busy spell under MCP and a workflow");
}

/// A click goes only to a point the app itself places inside the named element: the liar's
/// frame is a real window here, its check box has no action (as GTK 4's), so `set` clicks it.
/// Where the app's screen coordinates lie (every element at (0, 0), as GTK 4.18 answers), or
/// its extents and its hit test disagree, the write is refused and no click is sent; every
/// click that is sent lands inside the check box, where the window draws it.
#[test]
fn a_click_lands_only_where_the_app_places_its_element() {
    let mut l = Liar::start_windowed(&["actionless"]);
    let clicks = |l: &mut Liar| {
        let v = l.cmd("clicks");
        assert_eq!(v["window"], true, "the liar's window did not open: {v}");
        v["clicks"].as_array().unwrap().clone()
    };
    let set = |pid: u32, value: &str| run(pid, &["set", "check-box \"Check\"", value, "--json"]);

    // Truthful coordinates: the click lands, on the check box.
    let r = set(l.pid, "true");
    assert_eq!(r.code, Some(0), "{r:?}");
    let v = r.json();
    assert_eq!(v["outcome"], "verified", "{v:#}");
    assert_eq!(v["path"], "pointer", "{v:#}");
    assert_eq!(l.state()["checked"], true);
    let sent = clicks(&mut l);
    assert_eq!(sent.len(), 1, "one click: {sent:?}");
    let (x, y) = (sent[0][0].as_i64().unwrap(), sent[0][1].as_i64().unwrap());
    assert!(
        (110..230).contains(&x) && (180..204).contains(&y),
        "the click at ({x}, {y}) is outside the check box (110, 180, 120×24)"
    );

    // Screen coordinates that lie: refused, nothing sent, the box as it was.
    for lies in [
        &["actionless", "screen-zero"][..],
        &["actionless", "misplaced=150"],
    ] {
        l.only(lies);
        let r = set(l.pid, "false");
        let v = r.json();
        assert_eq!(
            (r.code, v["outcome"].as_str()),
            (Some(22), Some("refused")),
            "{lies:?}: {v:#}"
        );
        let why = v["reason"].as_str().unwrap_or("");
        assert!(
            why.contains("(0, 0)") || why.contains("a click there would land on something else"),
            "{lies:?}: the refusal says why: {why}"
        );
        assert_eq!(clicks(&mut l).len(), 1, "{lies:?}: no click was sent");
        assert_eq!(l.state()["checked"], true, "{lies:?}: the box is untouched");
        // Nor is the element given a false place on screen.
        let r = run(l.pid, &["get", "check-box \"Check\"", "--json"]);
        let g = r.json();
        if lies.contains(&"screen-zero") {
            assert!(g["bounds"].is_null(), "{lies:?}: bounds from a lie: {g:#}");
        }
        recovered(&mut l, &format!("{lies:?}"));
    }

    // An element, or the whole app, that does not answer where the element is or what is at
    // its centre: no click, and never a write that "may have landed".
    for lies in [
        &["actionless", "silent-method=GetExtents"][..],
        &["actionless", "silent-method=GetAccessibleAtPoint"],
        &["actionless", "hang-on=GetExtents"],
        &["actionless", "hang-on=GetAccessibleAtPoint"],
    ] {
        l.only(lies);
        let r = set(l.pid, "false");
        let v = r.json();
        assert_eq!(v["outcome"], "refused", "{lies:?}: {v:#}");
        assert_eq!(v["dispatched"], false, "{lies:?}: {v:#}");
        let why = v["reason"].as_str().unwrap_or("");
        assert!(
            ["did not answer", "does not answer", "timed out"]
                .iter()
                .any(|w| why.contains(w)),
            "{lies:?}: the refusal says the app did not answer: {why}"
        );
        l.cmd("wake");
        assert_eq!(clicks(&mut l).len(), 1, "{lies:?}: no click was sent");
        assert_eq!(l.state()["checked"], true, "{lies:?}: the box is untouched");
        recovered(&mut l, &format!("{lies:?}"));
    }
}
