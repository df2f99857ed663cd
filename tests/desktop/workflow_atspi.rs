//! Workflows on the real accessibility bus against the project's GTK fixture: a session
//! recorded through the recorder (text, password, spin, check box, combo, button), exported,
//! checked by an independent validator (Python jsonschema), replayed by the CLI on a reset app
//! and checked against the app's own state; observed recording of changes made in the app;
//! failure reports (a renamed element, a transformed write).
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;
use crate::workflow_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use treeglass::backend::Backend;
use treeglass::backend::atspi::AtspiBackend;
use treeglass::session::Session;
use treeglass::workflow::{Action, ExportOptions, Recorder, Watch, WatchOptions};
use workflow_support::*;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn connect() -> Arc<dyn Backend> {
    Arc::new(
        AtspiBackend::connect(Duration::from_secs(5))
            .await
            .expect("connect to the accessibility bus"),
    )
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tg-wf-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Validates `file` against the schema with Python's jsonschema (Draft 2020-12): an
/// implementation independent of the crate the exporter uses.
fn python_validate(file: &Path) {
    let schema = format!("{}/assets/workflow-v1.schema.json", repo());
    let script = "import json, sys\n\
        from jsonschema import Draft202012Validator as V\n\
        schema = json.load(open(sys.argv[1]))\n\
        V.check_schema(schema)\n\
        doc = json.load(open(sys.argv[2]))\n\
        errors = list(V(schema).iter_errors(doc))\n\
        for e in errors: print(e.json_path, e.message)\n\
        sys.exit(1 if errors else 0)\n";
    let o = Command::new("/usr/bin/python3")
        .args(["-c", script, &schema, file.to_str().unwrap()])
        .output()
        .expect("run /usr/bin/python3 with python3-jsonschema");
    assert!(
        o.status.success(),
        "Python jsonschema rejects {}:\n{}{}",
        file.display(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

fn run_cli(file: &Path, app: &FixtureApp, inputs: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec![
        "workflow".to_string(),
        "run".into(),
        file.to_str().unwrap().into(),
        "--app".into(),
        app.app_arg(),
        "--json".into(),
    ];
    for i in inputs {
        args.push("--input".into());
        args.push((*i).into());
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = treeglass(&refs);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let v = serde_json::from_str(&out).unwrap_or_else(|e| {
        panic!(
            "workflow run did not print JSON ({e}); exit {:?}\n{out}\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (o.status.code(), v, out)
}

fn outcomes(report: &Value) -> Vec<String> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["outcome"].as_str().unwrap().to_string())
        .collect()
}

const SECRET: &str = "pa55-word-not-in-files";

#[test]
fn a_recorded_session_round_trips_on_the_real_bus() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("wfrt");
    let dir = temp_dir("rt");
    let file = dir.join("flow.json");
    let rec = runtime().block_on(async {
        let backend = connect().await;
        let place = place(backend.as_ref(), &app.app_arg()).await;
        let session = Session::new(backend);
        let mut rec = Recorder::new("fixture round trip");
        for (target, value) in [
            ("text \"Full name\"", "Grace Hopper"),
            ("password-text \"Password\"", SECRET),
            ("spin-button \"Quantity\"", "42"),
            ("check-box \"Subscribe\"", "true"),
            ("combo-box \"Colour\"", "Blue"),
        ] {
            let r = write_and_record(&session, &place.root, target, value, &mut rec).await;
            assert!(r.outcome.is_ok(), "{target}: {:?} {}", r.outcome, r.reason);
        }
        let r = invoke_and_record(&session, &place.root, "button \"Press me\"", &mut rec).await;
        assert!(r.outcome.is_ok(), "press: {:?} {}", r.outcome, r.reason);
        rec
    });
    let got: Vec<(&str, Action)> = rec
        .steps()
        .iter()
        .map(|s| (s.step.id.as_str(), s.step.action))
        .collect();
    assert_eq!(
        got,
        [
            ("type-full-name", Action::Type),
            ("type-password", Action::Type),
            ("type-quantity", Action::Type),
            ("check-subscribe", Action::Check),
            ("select-colour", Action::Select),
            ("click-press-me", Action::Click),
        ]
    );
    assert!(rec.flagged().is_empty(), "{:#?}", rec.steps());
    assert!(rec.steps().iter().all(|s| s.candidates == Some(1)));
    let wf = rec.export_workflow(&ExportOptions::default()).unwrap();
    let text = serde_json::to_string_pretty(&wf).unwrap();
    std::fs::write(&file, &text).unwrap();
    assert!(
        !text.contains(SECRET),
        "the password is in the file:\n{text}"
    );
    python_validate(&file);
    let o = treeglass(&["workflow", "validate", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    // Reset the app, replay, and ask the app (not the tree) what it holds.
    assert_eq!(app.cmd("reset")["ok"], true);
    let (code, report, out) = run_cli(&file, &app, &[&format!("password={SECRET}")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(report["passed"], true);
    assert_eq!(
        outcomes(&report),
        [
            "verified", "secure", "verified", "verified", "verified", "verified"
        ]
    );
    assert_eq!(report["terminal"]["holds"], true, "{out}");
    assert!(!out.contains(SECRET), "the password is in the report");
    let state = app.state();
    assert_eq!(state["full_name"], "Grace Hopper");
    assert_eq!(state["password"], SECRET);
    assert_eq!(state["quantity"], 42.0);
    assert_eq!(state["subscribe"], true);
    assert_eq!(state["colour"], "Blue");
    assert_eq!(state["presses"], 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn changes_made_in_the_app_are_recorded_and_replayed() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("wfobs");
    let dir = temp_dir("obs");
    let file = dir.join("observed.json");
    let secret = "typed-in-the-app";
    let rt = runtime();
    let (rec, summary) = rt.block_on(async {
        let backend = connect().await;
        let place = place(backend.as_ref(), &app.app_arg()).await;
        let shared = Arc::new(Mutex::new(Recorder::new("observed")));
        let watch = Watch::start(
            backend.clone(),
            place.root.clone(),
            shared.clone(),
            WatchOptions::default(),
        )
        .await
        .unwrap();
        // The user works in the app; treeglass only watches.
        for (i, cmd) in [
            "set full_name Ada Observed".to_string(),
            format!("set password {secret}"),
            "set quantity 17".into(),
            "set subscribe true".into(),
            "set colour Green".into(),
            "set tab Advanced".into(),
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(app.cmd(cmd)["ok"], true, "{cmd}");
            // The next change comes once the watcher has recorded this one, as a user's would.
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            loop {
                let steps = shared.lock().unwrap().steps().len();
                if steps > i {
                    break;
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "{cmd}: the watcher recorded {steps} steps, not {}",
                    i + 1
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        let summary = watch.stop().await.unwrap();
        let rec = shared.lock().unwrap().clone();
        (rec, summary)
    });
    let got: Vec<(&str, Action, Option<&str>, Option<&str>)> = rec
        .steps()
        .iter()
        .map(|s| {
            (
                s.step.id.as_str(),
                s.step.action,
                s.step.text.as_deref(),
                s.step.value.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("type-full-name", Action::Type, Some("Ada Observed"), None),
            (
                "type-password",
                Action::Type,
                Some("${inputs.password}"),
                None
            ),
            ("type-quantity", Action::Type, Some("17"), None),
            ("check-subscribe", Action::Check, None, None),
            ("select-colour", Action::Select, None, Some("Green")),
            ("select-advanced", Action::Select, None, None),
        ],
        "{summary:?}\n{:#?}",
        rec.steps()
    );
    assert!(rec.steps().iter().all(|s| s.observed && !s.flagged));
    let wf = rec.export_workflow(&ExportOptions::default()).unwrap();
    let text = serde_json::to_string_pretty(&wf).unwrap();
    assert!(!text.contains(secret));
    std::fs::write(&file, &text).unwrap();
    python_validate(&file);

    assert_eq!(app.cmd("reset")["ok"], true);
    let (code, report, out) = run_cli(&file, &app, &[&format!("password={secret}")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(report["passed"], true);
    let state = app.state();
    assert_eq!(state["full_name"], "Ada Observed");
    assert_eq!(state["password"], secret);
    assert_eq!(state["quantity"], 17.0);
    assert_eq!(state["subscribe"], true);
    assert_eq!(state["colour"], "Green");
    assert_eq!(state["tab"], "Advanced");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_renamed_element_stops_the_run_with_not_found_and_near_misses() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("wfren");
    let dir = temp_dir("ren");
    let file = dir.join("flow.json");
    let title = app.state()["title"].as_str().unwrap().to_string();
    let d = doc(
        json!([
            {"id": "type-full-name", "action": "type", "transaction": "idempotent",
             "target": "text \"Full name\"", "text": "Grace", "timeoutMs": 3000,
             "expect": {"textContains": "Grace"}},
            {"id": "check-subscribe", "action": "check", "transaction": "idempotent",
             "target": "check-box \"Subscribe\"", "timeoutMs": 1500,
             "expect": {"visible": "check-box \"Subscribe\" [checked]"}},
            {"id": "click-press-me", "action": "click", "transaction": "non_idempotent",
             "target": "button \"Press me\"", "timeoutMs": 3000}
        ]),
        json!({}),
        json!({"titleContains": title}),
    );
    std::fs::write(&file, serde_json::to_string_pretty(&d).unwrap()).unwrap();
    assert_eq!(app.cmd("rename subscribe Subscibe")["ok"], true);
    let (code, report, out) = run_cli(&file, &app, &[]);
    assert_eq!(code, Some(31), "{out}");
    assert_eq!(outcomes(&report), ["verified", "not_found"], "{out}");
    let step = &report["steps"][1];
    assert_eq!(step["dispatched"], false);
    let near = step["resolution"]["near_misses"].as_array().unwrap();
    assert!(
        near.iter()
            .any(|c| c["name"] == "Subscibe" && c["role"] == "check-box"),
        "{out}"
    );
    assert!(
        report["stopped"]
            .as_str()
            .unwrap()
            .contains("check-subscribe")
    );
    let state = app.state();
    assert_eq!(state["full_name"], "Grace");
    assert_eq!(state["subscribe"], false);
    assert_eq!(state["presses"], 0, "no step after the failing one ran");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_transformed_write_reports_mismatch() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("wfmis");
    let dir = temp_dir("mis");
    let file = dir.join("flow.json");
    let d = doc(
        json!([
            {"id": "type-shout", "action": "type", "transaction": "idempotent",
             "target": "text \"Shout\"", "text": "hello", "timeoutMs": 3000,
             "expect": {"textContains": "hello"}},
            {"id": "type-full-name", "action": "type", "transaction": "idempotent",
             "target": "text \"Full name\"", "text": "never", "timeoutMs": 3000}
        ]),
        json!({}),
        json!({"dialogOpen": false}),
    );
    std::fs::write(&file, serde_json::to_string_pretty(&d).unwrap()).unwrap();
    let (code, report, out) = run_cli(&file, &app, &[]);
    assert_eq!(code, Some(31), "{out}");
    assert_eq!(outcomes(&report), ["mismatch"], "{out}");
    assert_eq!(report["steps"][0]["mismatch"], "transformed");
    // Typed, as `set --json` gives it: the text, not its quoted form.
    assert_eq!(report["steps"][0]["observed"], "HELLO");
    assert_eq!(report["steps"][0]["requested"], "hello");
    assert_eq!(
        report["steps"][0]["attempts"], 1,
        "never retried after a dispatched write"
    );
    let state = app.state();
    assert_eq!(state["shout"], "HELLO");
    assert_eq!(state["full_name"], "");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_cli_records_writes_and_observed_changes_then_exports_and_runs() {
    let _turn = common::turn::shared();
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let mut app = FixtureApp::start("wfcli");
    let dir = temp_dir("cli");
    let rec = dir.join("rec.json");
    let flow = dir.join("flow.json");
    let rec_s = rec.to_str().unwrap();
    let app_arg = app.app_arg();
    for (target, value) in [
        ("text \"Full name\"", "Linus"),
        ("password-text \"Password\"", SECRET),
    ] {
        let o = treeglass(&["set", target, value, "--app", &app_arg, "--record", rec_s]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    }
    let o = treeglass(&[
        "invoke",
        "button \"Press me\"",
        "--app",
        &app_arg,
        "--record",
        rec_s,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("recorded step click-press-me"));

    // Observed: the command watches while the user (here: the fixture protocol) works.
    let mut watcher = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args([
            "--backend",
            "atspi",
            "workflow",
            "record",
            "--app",
            &app_arg,
        ])
        .args(["--seconds", "4", "-o", rec_s])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(watcher.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("recording changes"), "{line}");
    assert_eq!(app.cmd("set subscribe true")["ok"], true);
    assert_eq!(app.cmd("set quantity 64")["ok"], true);
    let out = watcher.wait_with_output().unwrap();
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{printed}");
    assert!(printed.contains("recorded 2 observed steps"), "{printed}");

    let o = treeglass(&["workflow", "steps", rec_s]);
    let listing = stdout(&o);
    for id in [
        "type-full-name",
        "type-password",
        "click-press-me",
        "check-subscribe",
        "type-quantity",
    ] {
        assert!(listing.contains(id), "{id} missing:\n{listing}");
    }
    assert!(!std::fs::read_to_string(&rec).unwrap().contains(SECRET));
    let o = treeglass(&[
        "workflow",
        "export",
        rec_s,
        "-o",
        flow.to_str().unwrap(),
        "--name",
        "cli",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout(&o).contains("sensitive inputs to give at run time: password"));
    python_validate(&flow);
    assert!(!std::fs::read_to_string(&flow).unwrap().contains(SECRET));

    assert_eq!(app.cmd("reset")["ok"], true);
    let (code, report, out) = run_cli(&flow, &app, &[&format!("password={SECRET}")]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(report["passed"], true);
    let state = app.state();
    assert_eq!(state["full_name"], "Linus");
    assert_eq!(state["password"], SECRET);
    assert_eq!(state["presses"], 1);
    assert_eq!(state["subscribe"], true);
    assert_eq!(state["quantity"], 64.0);
    std::fs::remove_dir_all(&dir).unwrap();
}
