//! Running workflows over the fixture backend: a recorded round trip on a fresh app, the stop at
//! the first failing step (mismatch, not found with near misses, expect), retries only before
//! anything is dispatched, budgets, predicates, secrets masked, and the CLI.
#![allow(clippy::unwrap_used)]

use crate::workflow_support;

use std::process::{Command, Stdio};
use std::sync::Arc;

use serde_json::{Value, json};
use treeglass::app::run::StepOutcome;
use treeglass::backend::Backend;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::model::{Toggle, Value as NodeValue};
use treeglass::session::Session;
use treeglass::workflow::{ExportOptions, Recorder, Workflow};
use treeglass::write::MismatchKind;
use workflow_support::*;

const APP: &str = "treeglass-demo";
const SECRET: &str = "s3cret-for-the-run";

fn backend(f: &FixtureBackend) -> Arc<dyn Backend> {
    Arc::new(f.clone())
}

async fn value_of(f: &FixtureBackend, name: &str) -> Option<NodeValue> {
    let b = backend(f);
    b.read_node(&f.find_by_name(name).unwrap())
        .await
        .unwrap()
        .value
}

/// Records a session on one demo app and exports it.
async fn recorded() -> Workflow {
    let f = FixtureBackend::demo();
    let b = backend(&f);
    let place = place(b.as_ref(), APP).await;
    let session = Session::new(b);
    let mut rec = Recorder::new("round trip");
    for (t, v) in [
        ("text \"Full name\"", "Grace Hopper"),
        ("password-text \"Password\"", "recorded-secret"),
        ("spin-button \"Quantity\"", "42"),
        ("check-box \"Subscribe\"", "true"),
        ("combo-box", "Blue"),
        ("list-item \"Banana\"", "true"),
    ] {
        write_and_record(&session, &place.root, t, v, &mut rec).await;
    }
    invoke_and_record(&session, &place.root, "button \"Press me\"", &mut rec).await;
    let v = rec.export(&ExportOptions::default()).unwrap();
    assert!(!v.to_string().contains("recorded-secret"));
    workflow(&v)
}

#[tokio::test]
async fn a_recorded_workflow_replays_on_a_fresh_app() {
    let wf = recorded().await;
    let f = FixtureBackend::demo();
    let report = run(backend(&f), APP, wf, &[("password", SECRET)]).await;
    assert!(report.passed, "{}", report.text());
    let outcomes: Vec<StepOutcome> = report.steps.iter().map(|s| s.outcome).collect();
    use StepOutcome::*;
    assert_eq!(
        outcomes,
        [
            Verified, Secure, Verified, Verified, Verified, Verified, Verified
        ]
    );
    assert!(
        report
            .steps
            .iter()
            .all(|s| s.expect.as_ref().is_none_or(|e| e.holds))
    );
    assert!(report.terminal.as_ref().unwrap().holds);
    assert_eq!(report.outputs["title"], "Settings — treeglass demo");
    // The app's real state.
    assert_eq!(
        value_of(&f, "Full name").await,
        Some(NodeValue::Text {
            text: "Grace Hopper".into()
        })
    );
    assert_eq!(
        f.secret_of(&f.find_by_name("Password").unwrap()).as_deref(),
        Some(SECRET)
    );
    assert!(matches!(
        value_of(&f, "Quantity").await,
        Some(NodeValue::Number { current, .. }) if current == 42.0
    ));
    assert_eq!(
        value_of(&f, "Subscribe").await,
        Some(NodeValue::Toggle { state: Toggle::On })
    );
    let presses = f.find_by_name("Presses: 1");
    assert!(presses.is_some(), "the button was pressed once");
    // The secret is nowhere in the report.
    let json = serde_json::to_string(&report).unwrap();
    assert!(!json.contains(SECRET));
    assert!(!report.text().contains(SECRET));
    // Running again: idempotent steps say `already`, the click runs again.
    let wf = recorded().await;
    let again = run(backend(&f), APP, wf, &[("password", SECRET)]).await;
    let outcomes: Vec<StepOutcome> = again.steps.iter().map(|s| s.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Already, Secure, Already, Already, Already, Already, Verified
        ]
    );
}

#[tokio::test]
async fn a_transformed_write_stops_the_run_with_mismatch() {
    let f = FixtureBackend::demo();
    let wf = workflow(&doc(
        json!([
            {"id": "shout", "action": "type", "transaction": "idempotent",
             "target": "text \"Shout\"", "text": "hello", "expect": {"textContains": "hello"}},
            {"id": "name", "action": "type", "transaction": "idempotent",
             "target": "text \"Full name\"", "text": "never"}
        ]),
        json!({}),
        json!({"dialogOpen": false}),
    ));
    let report = run(backend(&f), APP, wf, &[]).await;
    assert!(!report.passed);
    assert_eq!(report.steps.len(), 1, "stops at the first failing step");
    let s = &report.steps[0];
    assert_eq!(s.outcome, StepOutcome::Mismatch);
    assert_eq!(s.mismatch, Some(MismatchKind::Transformed));
    assert_eq!(s.observed.as_deref(), Some("\"HELLO\""));
    // JSON carries it typed, as `set --json` does: the text, not its quoted form.
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(v["steps"][0]["observed"], "HELLO");
    assert_eq!(s.attempts, 1);
    assert!(report.terminal.is_none());
    assert!(report.stopped.as_deref().unwrap().contains("shout"));
    assert_eq!(
        value_of(&f, "Full name").await,
        Some(NodeValue::Text {
            text: "Ada Lovelace".into()
        })
    );
}

#[tokio::test]
async fn a_renamed_element_stops_the_run_with_not_found_and_near_misses() {
    let f = FixtureBackend::demo();
    f.rename(&f.find_by_name("Subscribe").unwrap(), "Subscibe")
        .unwrap();
    let mut d = doc(
        json!([
            {"id": "name", "action": "type", "transaction": "idempotent",
             "target": "text \"Full name\"", "text": "Grace"},
            {"id": "check-subscribe", "action": "check", "transaction": "idempotent",
             "target": "check-box \"Subscribe\"", "timeoutMs": 300},
            {"id": "never", "action": "click", "transaction": "non_idempotent",
             "target": "button \"Press me\""}
        ]),
        json!({}),
        json!({"dialogOpen": false}),
    );
    d["budgets"]["maxRetries"] = json!(1);
    let report = run(backend(&f), APP, workflow(&d), &[]).await;
    assert!(!report.passed);
    assert_eq!(report.steps.len(), 2);
    let s = &report.steps[1];
    assert_eq!(s.outcome, StepOutcome::NotFound);
    assert!(!s.dispatched);
    // Not found is a failure before dispatch: retried within the budget.
    assert_eq!(s.attempts, 2);
    assert_eq!(report.budget.retries, 1);
    let near = &s.resolution.as_ref().unwrap().near_misses;
    assert!(near.iter().any(|c| c.name == "Subscibe"), "{near:#?}");
    assert!(report.text().contains("near miss"), "{}", report.text());
    assert!(
        f.find_by_name("Presses: 0").is_some(),
        "later steps never ran"
    );
}

#[tokio::test]
async fn retries_never_follow_a_dispatched_write() {
    // A field that applies writes only after 5 s: the write goes out, the read-back sees
    // nothing change, the toolkit said yes -> unconfirmed. Not retried, whatever the budget.
    let json = r#"{"apps": [{"name": "late", "windows": [{"role": "frame", "name": "Late",
        "children": [{"role": "text", "name": "Late field", "behaviour": {"delay_ms": 5000},
                      "value": {"kind": "text", "text": ""}}]}]}]}"#;
    let f = FixtureBackend::from_json(json).unwrap();
    let mut d = doc(
        json!([{"id": "late", "action": "type", "transaction": "idempotent",
                "target": "text \"Late field\"", "text": "x", "maxRetries": 3}]),
        json!({}),
        json!({"dialogOpen": false}),
    );
    d["budgets"]["maxRetries"] = json!(8);
    let report = run(backend(&f), "late", workflow(&d), &[]).await;
    let s = &report.steps[0];
    assert_eq!(s.outcome, StepOutcome::Unconfirmed, "{}", report.text());
    assert!(s.dispatched);
    assert_eq!(s.attempts, 1);
    assert_eq!(report.budget.retries, 0);
    assert!(!report.passed);
}

#[tokio::test]
async fn the_duration_budget_cuts_a_run_short() {
    let f = FixtureBackend::demo();
    let mut d = doc(
        json!([{"id": "ghost", "action": "click", "transaction": "non_idempotent",
                "target": "button \"Ghost\"", "timeoutMs": 600}]),
        json!({}),
        json!({"dialogOpen": false}),
    );
    d["budgets"]["maxRetries"] = json!(8);
    d["budgets"]["maxDurationMs"] = json!(1000);
    let report = run(backend(&f), APP, workflow(&d), &[]).await;
    // Cut short by the budget, not by the step's own timeout (that would be not-found).
    let s = &report.steps[0];
    assert_eq!(s.outcome, StepOutcome::BudgetExhausted, "{}", report.text());
    assert!(s.reason.contains("maxDurationMs"), "{}", s.reason);
    assert!(report.budget.retries < 8);
}

#[tokio::test]
async fn waits_repeats_conditions_and_predicates() {
    let f = FixtureBackend::demo();
    let mut d = doc(
        json!([
            {"id": "add", "action": "click", "transaction": "non_idempotent",
             "target": "button \"Add item\"", "repeat": 2},
            {"id": "wait-item-2", "action": "wait", "transaction": "read_only",
             "target": "button \"Item 2\"", "condition": "visible", "timeoutMs": 2000},
            {"id": "remove", "action": "click", "transaction": "non_idempotent",
             "target": "button \"Remove item\""},
            {"id": "wait-gone", "action": "wait", "transaction": "read_only",
             "target": "button \"Item 2\"", "condition": "gone", "timeoutMs": 2000},
            {"id": "skipped", "action": "check", "transaction": "idempotent",
             "target": "check-box \"Subscribe\"", "when": {"dialogOpen": true}},
            {"id": "look", "action": "observe", "transaction": "read_only"},
            {"id": "name", "action": "type", "transaction": "idempotent",
             "target": "text \"Full name\"", "text": "Grace",
             "expect": {"textContains": "Nope"}, "timeoutMs": 300}
        ]),
        json!({}),
        json!({"all": [{"visible": "button \"Item 1\""}, {"not": {"visible": "button \"Item 2\""}}]}),
    );
    d["budgets"]["maxSteps"] = json!(8);
    let report = run(backend(&f), APP, workflow(&d), &[]).await;
    let got: Vec<(&str, Option<u32>, StepOutcome)> = report
        .steps
        .iter()
        .map(|s| (s.id.as_str(), s.repeat, s.outcome))
        .collect();
    use StepOutcome::*;
    assert_eq!(
        got,
        [
            ("add", Some(1), Verified),
            ("add", Some(2), Verified),
            ("wait-item-2", None, Verified),
            ("remove", None, Verified),
            ("wait-gone", None, Verified),
            ("skipped", None, Skipped),
            ("look", None, Verified),
            ("name", None, ExpectFailed),
        ],
        "{}",
        report.text()
    );
    assert_eq!(report.budget.steps, 8 - 1, "the skipped step did not count");
    assert!(!report.passed);
    // Without the failing expect, the terminal condition is evaluated and holds.
    d["steps"].as_array_mut().unwrap().pop();
    d["steps"].as_array_mut().unwrap()[0]["repeat"] = json!(1);
    let f = FixtureBackend::demo();
    let report = run(backend(&f), APP, workflow(&d), &[]).await;
    assert!(
        !report.passed,
        "only one item was added: Item 2 never appears"
    );
    assert_eq!(report.steps[1].outcome, NotFound);
}

#[tokio::test]
async fn unsupported_predicates_fail_clearly_and_secrets_stay_masked() {
    let f = FixtureBackend::demo();
    let mut d = doc(
        json!([{"id": "pw", "action": "type", "transaction": "idempotent",
                "target": "password-text \"Password\"", "text": "${inputs.pw}",
                "expect": {"visible": "password-text \"Password\""}}]),
        json!({"pw": {"type": "string", "sensitive": true}}),
        json!({"any": [{"urlEquals": "https://x.org/"}, {"textContains": "${inputs.pw}"}]}),
    );
    d["steps"].as_array_mut().unwrap().push(json!(
        {"id": "name", "action": "type", "transaction": "idempotent",
         "target": "text \"Full name\"", "text": "${inputs.pw}"}));
    d["budgets"]["maxSteps"] = json!(2);
    let report = run(backend(&f), APP, workflow(&d), &[("pw", SECRET)]).await;
    assert_eq!(report.steps[0].outcome, StepOutcome::Secure);
    // A plain text field given a sensitive input is written as a secret: judged by length.
    assert_eq!(report.steps[1].outcome, StepOutcome::Secure);
    assert_eq!(
        report.steps[1].requested.as_deref(),
        Some("(secret, 18 chars)")
    );
    let t = report.terminal.as_ref().unwrap();
    assert!(!t.holds);
    assert_eq!(t.unsupported, Some("urlEquals"));
    assert!(t.detail.contains("unsupported on desktop"), "{}", t.detail);
    assert!(!report.passed);
    let json = serde_json::to_string(&report).unwrap();
    assert!(!json.contains(SECRET), "{json}");
    assert!(!report.text().contains(SECRET));
}

#[test]
fn the_cli_runs_the_sample_workflow_on_the_demo_app() {
    let sample = format!(
        "{}/tests/fixtures/workflows/good-demo.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args([
                "--backend",
                "fixture",
                "workflow",
                "run",
                &sample,
                "--app",
                APP,
            ])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let o = run(&["--input", &format!("password={SECRET}"), "--json"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.contains(SECRET));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["passed"], true);
    assert_eq!(v["steps"].as_array().unwrap().len(), 6);
    assert_eq!(v["steps"][1]["outcome"], "secure");
    assert_eq!(v["terminal"]["holds"], true);
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(32));
    assert!(String::from_utf8_lossy(&o.stdout).contains("missing required inputs: password"));
    // A failing run exits 31 and prints the per-step report.
    let dir = std::env::temp_dir().join(format!("tg-wf-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut d: Value = serde_json::from_str(&std::fs::read_to_string(&sample).unwrap()).unwrap();
    d["steps"][0]["target"] = json!("text \"Surname\"");
    d["steps"][0]["timeoutMs"] = json!(200);
    let path = dir.join("broken.json");
    std::fs::write(&path, d.to_string()).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args([
            "--backend",
            "fixture",
            "workflow",
            "run",
            path.to_str().unwrap(),
        ])
        .args(["--app", APP, "--input", "password=x"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(31), "{out}");
    assert!(out.contains("not_found") && out.contains("FAILED"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
