//! An application whose every string is hostile (OSC 52 clipboard writes, CSI screen clears,
//! window retitling, C1 controls, DEL, bidi overrides and isolates, invisible characters, a
//! literal `\x1b`, and a line break followed by a fake output line) is read through every
//! subcommand, in text and JSON, on success and error paths. No output may carry a raw
//! control, bidi or invisible character, and no app string may start a line of its own.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use serde_json::json;
use treeglass::model::is_hostile;

/// A hostile string, tagged so a test can tell which field it came from.
fn h(tag: &str) -> String {
    format!(
        "{tag}\x1b]52;c;SGFja2Vk\x07\x1b[2J\x1b]0;title\x07\u{9b}31m\x7f\u{202e}rev\u{2066}\
         \u{ad}\u{34f}\u{180e}\u{3164}\u{2028}\u{2029}\u{e0041}\u{fe0f}\\x1b\r\nINJECTED {tag}"
    )
}

fn fixture() -> serde_json::Value {
    json!({"apps": [{
        "name": h("app"),
        "toolkit": h("toolkit"),
        "toolkit_version": h("version"),
        "windows": [{
            "role": "frame", "name": h("win"), "description": h("windesc"),
            "children": [
                {"role": "label", "name": h("label")},
                {"role": "text", "name": h("field"), "raw_role": h("rawrole"),
                 "description": h("fielddesc"), "value": {"kind": "text", "text": h("value")}},
                {"role": "combo-box", "name": h("combo"), "actions": ["press"],
                 "states": ["has-popup", "focusable"],
                 "value": {"kind": "choice", "selected": h("opt1")},
                 "children": [{"role": "menu", "children": [
                     {"role": "menu-item", "name": h("opt1"), "actions": ["click"],
                      "states": ["selectable", "selected"]},
                     {"role": "menu-item", "name": h("opt2"), "actions": ["click"],
                      "states": ["selectable"]}
                 ]}]},
                {"role": "check-box", "name": h("check"), "actions": ["click"],
                 "value": {"kind": "toggle", "state": "off"}},
                {"role": "link", "name": h("link"), "actions": ["click", h("action")]},
                {"role": "button", "name": h("twin"), "actions": ["click"]},
                {"role": "button", "name": h("twin"), "actions": ["click"]},
                {"role": "panel", "name": h("panel"), "children": [
                    {"role": "text", "name": h("PIN"), "value": {"kind": "text", "text": h("pin")}}
                ]}
            ]
        }]
    }]})
}

struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("tg-hostile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Runs treeglass on the hostile fixture with no bus or display reachable.
fn run(fixture: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treeglass"));
    cmd.arg("--backend")
        .arg(format!("fixture:{}", fixture.display()))
        .args(args)
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("A11Y_BUS_ADDRESS")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(s) = stdin {
        input.write_all(s.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

/// Fails on a raw hostile character or a line an app string started.
fn check(what: &str, o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_ne!(o.status.code(), Some(101), "{what} panicked:\n{err}");
    assert!(!err.contains("panicked"), "{what}:\n{err}");
    for (stream, text) in [("stdout", &out), ("stderr", &err)] {
        for (i, c) in text.char_indices() {
            assert!(
                c == '\n' || !is_hostile(c),
                "{what}: raw U+{:04X} on {stream} at byte {i}:\n{}",
                c as u32,
                text.escape_debug()
            );
        }
        for line in text.lines() {
            assert!(
                !line.trim_start().starts_with("INJECTED"),
                "{what}: an app string started a line on {stream}: {line:?}"
            );
        }
    }
    format!("{out}{err}")
}

#[test]
fn every_subcommand_escapes_what_a_hostile_app_sends() {
    let s = Scratch::new();
    let fx = PathBuf::from(s.path("hostile.json"));
    std::fs::write(&fx, serde_json::to_vec(&fixture()).unwrap()).unwrap();
    let rec = s.path("rec.json");
    let flow = s.path("flow.json");
    let rec2 = s.path("observed.json");
    let bad_flow = s.path("bad-flow.json");
    let action = h("action");
    let typed = h("typed");

    // Reading: apps, trees, targets, elements, and the error paths that name the app.
    let mut runs: Vec<(String, Vec<String>, Option<String>)> = Vec::new();
    let mut add = |args: &[&str]| {
        runs.push((
            args.join(" "),
            args.iter().map(|a| a.to_string()).collect(),
            None,
        ))
    };
    add(&["apps"]);
    add(&["apps", "--json"]);
    add(&["tree"]);
    add(&["tree", "--raw", "--targets"]);
    add(&["tree", "--json", "--targets"]);
    add(&["tree", "--app", "app", "--window", "win"]);
    add(&["tree", "--window", "nomatch"]);
    add(&["tree", "--app", "nomatch"]);
    add(&["tree", "--pid", "999999"]);
    add(&["tree", "--window", "."]);
    add(&["find", "text \"field\""]);
    add(&["find", "text \"field\"", "--json"]);
    add(&["find", "button", "--wait-ms", "0"]);
    add(&["find", "button", "--wait-ms", "0", "--json"]);
    add(&["find", "\"rev\"", "--wait-ms", "0"]);
    add(&["find", "check-box \"nothing like it\"", "--wait-ms", "0"]);
    add(&[
        "find",
        "check-box \"nothing like it\"",
        "--wait-ms",
        "0",
        "--json",
    ]);
    add(&["find", "check-box \"unclosed"]);
    add(&["get", "text \"field\""]);
    add(&["get", "text \"field\"", "--json"]);
    add(&["get", "combo-box"]);
    add(&["get", "text \"PIN\"", "--json"]);
    add(&["get", "button", "--wait-ms", "0"]);
    // Writing: values, refusals with option lists, actions named by the app.
    add(&["set", "text \"field\"", &typed]);
    add(&["set", "text \"field\"", &typed, "--json"]);
    add(&["set", "combo-box", "nope"]);
    add(&["set", "combo-box", "nope", "--json"]);
    add(&["set", "check-box", "maybe"]);
    add(&["set", "button", "x", "--wait-ms", "0"]);
    add(&["set", "text \"field\"", &typed, "--record", &rec]);
    add(&["set", "check-box", "true", "--record", &rec]);
    add(&["set", "text \"PIN\"", "4321", "--record", &rec]);
    add(&["invoke", "link"]);
    add(&["invoke", "link", "--action", &action, "--json"]);
    add(&["invoke", "link", "--action", &action, "--record", &rec]);
    add(&["invoke", "link", "--action", "no-such-action"]);
    add(&["invoke", "button", "--wait-ms", "0"]);
    // Workflows: the recording, its export, validation and a run, and watching the app.
    add(&["workflow", "steps", &rec]);
    add(&["workflow", "steps", &rec, "--json"]);
    add(&["workflow", "export", &rec, "-o", "-"]);
    add(&[
        "workflow",
        "export",
        &rec,
        "-o",
        &flow,
        "--name",
        &h("name"),
    ]);
    add(&["workflow", "validate", &flow]);
    add(&["workflow", "validate", &flow, "--json"]);
    add(&["workflow", "validate", &bad_flow]);
    add(&["workflow", "validate", &bad_flow, "--json"]);
    add(&["workflow", "run", &flow, "--app", "app"]);
    add(&["workflow", "run", &flow, "--app", "app", "--json"]);
    add(&["workflow", "run", &bad_flow, "--app", "app"]);
    add(&["workflow", "drop", &rec, "no-such-step"]);
    add(&[
        "workflow",
        "record",
        "--app",
        "app",
        "--seconds",
        "1",
        "-o",
        &rec2,
    ]);
    add(&["workflow", "drop", &rec, "1"]);
    // The clipboard, without a display: its error paths.
    add(&["clipboard", "read", "--text"]);
    add(&["clipboard", "write", "--text", &typed]);
    runs.push((
        "set text - (stdin)".into(),
        vec!["set".into(), "text \"field\"".into(), "-".into()],
        Some(h("stdin")),
    ));

    // An invalid workflow file full of hostile strings.
    std::fs::write(
        &bad_flow,
        serde_json::to_vec(&json!({
            "schemaVersion": 1, "name": h("flowname"), "workflowVersion": h("v"),
            "inputs": {}, "budgets": {"maxSteps": 1, "maxDurationMs": 1000, "maxRetries": 0,
                                      "maxExtractedBytes": 1},
            "steps": [{"id": h("id"), "action": "type", "transaction": "idempotent",
                       "target": format!("text \"{}", h("t")), "text": h("text")}],
            "terminalCondition": {"textContains": h("cond")},
            "outputs": {}
        }))
        .unwrap(),
    )
    .unwrap();

    let mut seen = String::new();
    for (what, args, stdin) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&fx, &args, stdin.as_deref());
        seen.push_str(&check(what, &o));
    }
    // Not vacuous: the hostile strings were printed, escaped.
    for shown in [
        "app\\x1b]52;c;SGFja2Vk\\x07",
        "\\u{202e}rev\\u{2066}",
        "\\\\x1b\\r\\nINJECTED",
        "action\\x1b]52",
        "\\u001b]52;c;SGFja2Vk\\u0007",
        "\\u009b31m\\u007f\\u202erev",
    ] {
        assert!(seen.contains(shown), "never printed {shown:?}");
    }
    // The PIN field's value is a secret: never printed, never recorded.
    assert!(
        !seen.contains("pin\\x1b") && !seen.contains("4321"),
        "a secret was echoed"
    );
    let recording = std::fs::read_to_string(&rec).unwrap();
    assert!(!recording.contains("4321"), "{recording}");
}

#[tokio::test]
async fn the_inspector_shows_hostile_strings_escaped() {
    use treeglass::backend::fixture::FixtureBackend;
    use treeglass::tui::harness::Harness;
    let b = FixtureBackend::from_json(&fixture().to_string()).unwrap();
    let mut h = Harness::start(Arc::new(b), 200, 60, None).await.unwrap();
    for target in ["text \"field\"", "combo-box", "link", "text \"PIN\""] {
        h.select(target);
        h.settle().await.unwrap();
        let screen = h.render();
        for c in screen.chars() {
            assert!(
                c == '\n' || !is_hostile(c),
                "raw U+{:04X} on screen:\n{}",
                c as u32,
                screen.escape_debug()
            );
        }
        assert!(screen.contains("\\x1b]52"), "{screen}");
        // A literal backslash is doubled: the text `\x1b` is not an escaped ESC.
        assert!(screen.contains("\\\\x1b"), "{screen}");
        assert!(
            !screen.contains("pin\\x1b"),
            "the PIN's value is shown:\n{screen}"
        );
    }
    // Copying the secret's value is refused; its workflow step types an input.
    h.select("text \"PIN\"");
    assert!(
        h.app
            .copy_text(treeglass::tui::app::CopyKind::Value)
            .is_err()
    );
    let step = h
        .app
        .copy_text(treeglass::tui::app::CopyKind::WorkflowStep)
        .unwrap();
    assert!(step.contains("${inputs."), "{step}");
    assert!(
        !step.contains("pin\\u001b") && !step.contains("pin\u{1b}"),
        "{step}"
    );
}
