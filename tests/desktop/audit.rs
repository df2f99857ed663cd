//! `treeglass audit` on the real bus: the project's app with planted defects
//! (`tests/audit_app.py`), one frame per rule holding the defect and one holding its clean
//! twin. Every planted defect is found on its element, nothing is found in a clean twin, and
//! the app is alive, registered and answering afterwards. The app is started once. The TUI's
//! findings (`!`, the status line's count, Enter to the element, `]`) on the same app, in tmux.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use common::{assert_answers, json_of, repo, require_stack, treeglass};
use serde_json::Value;

/// The planted defect of each rule: (rule, role, name) of the element it must be found on.
const PLANTED: &[(&str, &str, &str)] = &[
    ("name-missing", "text", ""),
    ("name-blank", "button", "   "),
    ("name-is-role", "button", "Button"),
    ("name-too-long", "button", "A name that goes on and on"),
    ("image-unnamed", "icon", ""),
    ("heading-empty", "heading", ""),
    ("header-unnamed", "column-header", ""),
    ("action-not-focusable", "button", "Unreachable"),
    ("focused-not-focusable", "button", "Odd focus"),
    ("focus-multiple", "button", "Focus two"),
    ("checked-not-checkable", "button", "Odd check"),
    ("selected-not-selectable", "button", "Odd select"),
    ("expanded-not-expandable", "button", "Odd expand"),
    ("siblings-not-unique", "button", "Apply"),
    ("target-positional", "check-box", "Option"),
    ("radio-no-group", "radio-button", "Lone"),
    ("label-not-reciprocal", "text", "Town"),
    ("label-dangling", "text", "Lane"),
    ("label-name-mismatch", "text", "Zip code"),
    ("index-in-parent", "button", "Misplaced"),
    ("table-index-mismatch", "table", "Orchard"),
    ("bounds-empty", "button", "Flat"),
    ("bounds-outside-parent", "button", "Stray"),
    ("bounds-outside-window", "button", "Far away"),
];

struct AuditApp {
    child: Child,
    stdin: ChildStdin,
    /// Kept open so the app's replies (to `quit`) have somewhere to go.
    _out: BufReader<ChildStdout>,
    name: String,
    pid: u32,
}

impl AuditApp {
    fn start() -> AuditApp {
        AuditApp::start_as("cli")
    }

    /// Started under a name of its own (`tag`), so tests running at once do not share one.
    fn start_as(tag: &str) -> AuditApp {
        require_stack();
        let name = format!("tgaudit-{tag}-{}", std::process::id());
        let mut child = Command::new("/usr/bin/python3")
            .arg(format!("{}/tests/audit_app.py", repo()))
            .args(["--name", &name])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start tests/audit_app.py (/usr/bin/python3 with python3-gi)");
        let stdin = child.stdin.take().expect("stdin");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut ready = String::new();
        out.read_line(&mut ready)
            .expect("read the app's first line");
        assert!(
            ready.contains("\"ready\""),
            "the audit app did not get ready: {ready:?}"
        );
        let app = AuditApp {
            pid: child.id(),
            child,
            stdin,
            _out: out,
            name,
        };
        app.wait_settled();
        app
    }

    fn app_arg(&self) -> String {
        format!("^{}$", self.name)
    }

    fn wait_settled(&self) {
        if let Err(last) = common::settled(&self.app_arg(), 50) {
            panic!("the audit app never settled on the bus (last count {last})");
        }
    }

    fn assert_alive(&mut self, after: &str) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("the audit app DIED after {after}: {status}");
        }
        assert_answers(self.pid, "the audit app", after);
    }

    fn audit(&self, extra: &[&str]) -> std::process::Output {
        let app = self.app_arg();
        let mut args = vec!["audit", "--app", app.as_str()];
        args.extend_from_slice(extra);
        treeglass(&args)
    }
}

impl Drop for AuditApp {
    fn drop(&mut self) {
        common::quit_child(&mut self.stdin, &mut self.child);
    }
}

/// Every finding of an `audit --json` answer, flattened.
fn findings(v: &Value) -> Vec<&Value> {
    v["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(|r| r["findings"].as_array().expect("findings"))
        .collect()
}

/// The frame ("<rule> defect" / "<rule> clean") a finding's element is in.
fn frame_of(f: &Value) -> Option<String> {
    let path = f["path"].as_str().expect("path");
    path.split(" > ")
        .filter_map(|step| step.strip_prefix("panel \""))
        .filter_map(|s| s.strip_suffix('"'))
        .find(|s| s.ends_with(" defect") || s.ends_with(" clean"))
        .map(str::to_string)
}

#[test]
fn planted_defects_are_found_on_their_elements_and_clean_twins_are_clean() {
    let _turn = common::turn::shared();
    let mut app = AuditApp::start();

    let o = app.audit(&["--json"]);
    let v = json_of(&o);
    assert_eq!(
        o.status.code(),
        Some(14),
        "findings exit 14: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(v["complete"], true, "the app's tree is read whole");
    let all = findings(&v);
    // Bounds, indexes, relations and tables are read for the audit: every rule is judged.
    assert!(
        v["not_evaluated"].as_array().is_some_and(|a| a.is_empty()),
        "every rule evaluated on AT-SPI: {}",
        v["not_evaluated"]
    );
    assert_eq!(
        v["facts_unreadable"], 0,
        "every read of the audit's own answered"
    );

    for (rule, role, name) in PLANTED {
        let defect = format!("{rule} defect");
        let hits: Vec<&&Value> = all
            .iter()
            .filter(|f| f["rule"] == *rule && frame_of(f).as_deref() == Some(defect.as_str()))
            .collect();
        assert!(
            hits.iter().any(|f| f["role"] == *role
                && f["name"].as_str().is_some_and(|n| n.starts_with(name))
                && (!name.is_empty() || f["name"] == "")),
            "{rule}: the planted {role} {name:?} in {defect:?} is not found; findings of the \
             rule: {:#?}",
            all.iter()
                .filter(|f| f["rule"] == *rule)
                .map(|f| (&f["path"], &f["name"]))
                .collect::<Vec<_>>()
        );
        // Each finding names its element: a target that `find` resolves to it alone.
        let f = hits[0];
        let target = f["target"].as_str().expect("target");
        let found = json_of(&treeglass(&[
            "find",
            target,
            "--app",
            &app.app_arg(),
            "--json",
        ]));
        assert_eq!(found["outcome"], "unique", "{rule}: {target}: {found}");
        assert_eq!(found["id"], f["id"], "{rule}: {target} names its element");
        assert!(
            f["token"]
                .as_str()
                .is_some_and(|t| t.ends_with(&format!(":{}", f["row"].as_u64().expect("row"))))
        );
    }

    // Nothing in a clean twin, whatever the rule.
    let in_clean: Vec<(&Value, &Value)> = all
        .iter()
        .filter(|f| frame_of(f).is_some_and(|fr| fr.ends_with(" clean")))
        .map(|f| (&f["rule"], &f["path"]))
        .collect();
    assert!(
        in_clean.is_empty(),
        "findings in clean twins: {in_clean:#?}"
    );
    // And nothing outside the frames: the window itself is clean.
    let stray: Vec<&Value> = all
        .iter()
        .filter(|f| frame_of(f).is_none())
        .map(|f| &f["path"])
        .collect();
    assert!(stray.is_empty(), "findings outside the frames: {stray:#?}");
    app.assert_alive("audit --json");

    // The text form: findings grouped by rule with target, path, token and row; a summary.
    let o = app.audit(&[]);
    assert_eq!(o.status.code(), Some(14));
    let text = String::from_utf8_lossy(&o.stdout);
    for (rule, _, _) in PLANTED {
        assert!(text.contains(&format!("  {rule}  ")), "{rule} in:\n{text}");
    }
    assert!(text.contains("⇒ ") && text.contains("path: ") && text.contains("  row "));
    let last = text.lines().last().expect("summary");
    assert!(
        last.contains(&format!("{} findings", all.len())),
        "summary: {last}"
    );

    // A threshold and a selection change what counts; a clean selection exits 0.
    let o = app.audit(&["--json", "--min-severity", "error"]);
    assert_eq!(o.status.code(), Some(14));
    let errors = json_of(&o);
    assert!(findings(&errors).iter().all(|f| f["severity"] == "error"));
    assert!(!findings(&errors).is_empty());
    // One review rule below a warning threshold: nothing counts.
    let clean = ["--rules", "name-too-long", "--min-severity", "warning"];
    let o = app.audit(&[&["--json"][..], &clean].concat());
    assert_eq!(
        o.status.code(),
        Some(0),
        "nothing at or above the threshold"
    );
    let o = app.audit(&["--rules", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));

    // SARIF 2.1.0: every finding a result, with the rule's level.
    let o = app.audit(&["--sarif"]);
    assert_eq!(o.status.code(), Some(14));
    let s = json_of(&o);
    assert_eq!(s["version"], "2.1.0");
    let results = s["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), all.len());
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "name-missing" && r["level"] == "error")
    );
    // No --sarif-artifact: each result is placed in the app's executable (/proc/PID/exe).
    assert!(results.iter().all(|r| {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .is_some_and(|u| !u.is_empty())
    }));
    assert_eq!(s["runs"][0]["invocations"][0]["executionSuccessful"], true);

    // A read cut short is never a clean result: exit 12, and SARIF says the run failed.
    let o = app.audit(&["--json", "--read-timeout", "1"]);
    assert_eq!(
        o.status.code(),
        Some(12),
        "an incomplete read: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(json_of(&o)["complete"], false);
    let o = app.audit(&[&["--sarif", "--read-timeout", "1"][..], &clean].concat());
    assert_eq!(o.status.code(), Some(12), "even with nothing to find");
    assert_eq!(
        json_of(&o)["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    app.assert_alive("every audit");
}

/// The findings counts in docs/audit.md: every matrix app audited once, its findings per rule printed,
/// each app checked alive, registered and answering after it. Starts six real apps, so it is
/// not part of the default run: `scripts/a11y-session cargo test --test audit -- --ignored
/// --nocapture`.
/// The TUI on the same app: the status line counts what `audit` finds, `!` lists the planted
/// defects worst first, Enter selects the element (its findings top the details pane), `]`
/// steps on; the app answers afterwards.
#[test]
fn the_tui_shows_the_planted_findings() {
    let _turn = common::turn::shared();
    let mut app = AuditApp::start_as("tui");
    let v = json_of(&app.audit(&["--json"]));
    let total = findings(&v).len();
    assert!(total > 13, "{total} findings");
    let tmux = common::tmux::Tmux::new();
    tmux.start(&["--app", &app.app_arg()]);
    let count = format!("◆ {total} findings");
    let s = tmux.wait_for(&count, Duration::from_secs(30));
    assert!(s.contains("◆ "), "badges on the tree: {s}");

    tmux.keys(&["!"]);
    let s = tmux.wait_for(
        &format!("Accessibility findings ({total})"),
        Duration::from_secs(5),
    );
    // The inspector reads what the rules need beyond the tree, as `audit` does.
    assert!(!s.contains("not evaluated"), "{s}");
    // Worst first: the errors of the planted frames head the list.
    let first = s
        .lines()
        .find(|l| l.contains(" error   ") || l.contains(" warning ") || l.contains(" review  "))
        .expect("a finding line");
    assert!(first.contains(" error   "), "errors first: {first}\n{s}");
    for rule in [
        "name-missing",
        "name-blank",
        "focused-not-focusable",
        "focus-multiple",
    ] {
        assert!(s.contains(rule), "{rule} in the list: {s}");
    }
    tmux.keys(&["Enter"]);
    let s = tmux.wait_for("│◆ error ", Duration::from_secs(5));
    assert!(!s.contains("Accessibility findings ("), "closed: {s}");
    tmux.keys(&["]"]);
    tmux.wait_for("with findings: ", Duration::from_secs(5));
    tmux.keys(&["q"]);
    app.assert_alive("the TUI's audit");
}

#[test]
#[ignore = "starts every matrix app (minutes): run it to refresh the counts in docs/audit.md"]
fn matrix_apps_audited_findings_per_rule() {
    let _turn = common::turn::shared();
    use common::matrix::{Kit, MatrixApp};
    let kits = [
        Kit::Gtk3,
        Kit::Gtk4,
        Kit::Qt5,
        Kit::Qt6,
        Kit::Chromium,
        Kit::Firefox,
    ];
    for kit in kits {
        let mut app = MatrixApp::start(kit);
        let o = app.treeglass(&["audit", "--json"]);
        let v = json_of(&o);
        let code = o.status.code();
        assert!(
            matches!(code, Some(0) | Some(14)),
            "{}: audit exit {code:?}: {}",
            kit.label(),
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(v["complete"], true, "{}: the read is whole", kit.label());
        let counts: Vec<String> = v["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .filter(|r| r["count"].as_u64().unwrap_or(0) > 0)
            .map(|r| format!("{} {}", r["id"].as_str().unwrap_or("?"), r["count"]))
            .collect();
        println!(
            "{}: {} nodes; {}",
            kit.label(),
            v["node_count"],
            if counts.is_empty() {
                "no findings".to_string()
            } else {
                counts.join(", ")
            }
        );
        for r in v["rules"].as_array().expect("rules") {
            for f in r["findings"].as_array().expect("findings") {
                println!(
                    "    {} ⇒ {}  | {}  | {}",
                    r["id"].as_str().unwrap_or("?"),
                    f["target"].as_str().unwrap_or("?"),
                    f["detail"].as_str().unwrap_or("?"),
                    f["path"].as_str().unwrap_or("?")
                );
            }
        }
        app.assert_alive("audit");
    }
}
