//! Validating workflow files: the sample good and bad files, every kind of error with its
//! location (line/column for JSON, JSON pointers after that), 4 MB files, budgets, missing
//! inputs, and the guarantee that nothing runs from a file that fails validation.
#![allow(clippy::unwrap_used)]

use crate::workflow_support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use serde_json::{Value, json};
use treeglass::app::run::{RunOptions, RunRefusal, Runner, preflight};
use treeglass::backend::Backend;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::model::Value as NodeValue;
use treeglass::session::Session;
use treeglass::workflow::{
    MAX_FILE_BYTES, Validation, Workflow, validate_bytes, validate_path, validate_value,
};
use workflow_support::*;

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/workflows")
        .join(name)
}

fn check(name: &str) -> Validation {
    validate_path(&sample(name)).unwrap()
}

fn pointers(v: &Validation) -> Vec<&str> {
    v.errors.iter().map(|e| e.pointer.as_str()).collect()
}

/// Runs the binary with no accessibility bus reachable: any attempt to connect fails (exit 4).
fn treeglass_offline(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(args)
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("A11Y_BUS_ADDRESS")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn good_samples_are_valid() {
    for f in ["good-demo.json", "needs-input.json", "browser-only.json"] {
        let v = check(f);
        assert!(v.is_valid(), "{f}: {:#?}", v.errors);
    }
    let v = check("browser-only.json");
    let warned: Vec<&str> = v.warnings.iter().map(|w| w.pointer.as_str()).collect();
    assert!(warned.contains(&"/steps/0/action"), "{warned:?}");
    assert!(
        warned.contains(&"/terminalCondition/urlEquals"),
        "{warned:?}"
    );
}

#[test]
fn malformed_json_is_located_by_line_and_column() {
    let v = check("bad-json.json");
    assert!(!v.is_valid());
    let e = &v.errors[0];
    assert_eq!((e.kind, e.line, e.column), ("json", Some(5), Some(36)));
    assert!(
        e.to_string()
            .starts_with("line 5, column 36: not valid JSON"),
        "{e}"
    );
    // Empty and truncated input too.
    for bad in ["", "{", "[1,2", "{\"a\": tru}", "\u{feff}{}"] {
        let v = validate_bytes(bad.as_bytes());
        assert_eq!(v.errors[0].kind, "json", "{bad:?}");
        assert!(v.errors[0].line.is_some(), "{bad:?}");
    }
}

#[test]
fn schema_violations_are_located_by_json_pointer() {
    let v = check("bad-schema.json");
    let p = pointers(&v);
    for want in [
        "/name",
        "/budgets/maxSteps",
        "/steps/0/action",
        "/steps/1",
        "/inputs/who",
        "/terminalCondition",
    ] {
        assert!(p.contains(&want), "{want} missing from {p:?}");
    }
    assert!(v.errors.iter().all(|e| e.kind == "schema"));
    let extra = v.errors.iter().find(|e| e.pointer == "/steps/1").unwrap();
    assert!(extra.message.contains("colour"), "{}", extra.message);
    let pred = v
        .errors
        .iter()
        .find(|e| e.pointer == "/terminalCondition" && e.message.contains("oneOf"))
        .unwrap();
    assert!(pred.message.contains("exactly one key"), "{}", pred.message);
    // A non-object and a missing field.
    let v = validate_value(&json!([1, 2]));
    assert_eq!(pointers(&v), [""]);
    let mut d = doc(
        json!([{"id": "a", "action": "observe", "transaction": "read_only"}]),
        json!({}),
        json!({"dialogOpen": false}),
    );
    d.as_object_mut().unwrap().remove("budgets");
    let v = validate_value(&d);
    assert!(v.errors[0].message.contains("budgets"), "{:?}", v.errors);
}

#[test]
fn schema_errors_never_echo_values() {
    let secret = "correct horse battery staple";
    let d = doc(
        json!([{"id": "a", "action": "type", "transaction": "idempotent",
                "target": "password-text", "text": secret, "value": ""}]),
        json!({}),
        json!({"dialogOpen": false}),
    );
    let v = validate_value(&d);
    assert_eq!(pointers(&v), ["/steps/0/value"]);
    let all = serde_json::to_string(&v.errors).unwrap();
    assert!(!all.contains(secret));
}

#[test]
fn unknown_schema_version_is_stated_plainly() {
    let v = check("bad-version.json");
    assert_eq!(
        v.errors.len(),
        1,
        "only the version is reported: {:?}",
        v.errors
    );
    assert_eq!(v.errors[0].pointer, "/schemaVersion");
    assert_eq!(v.errors[0].kind, "schema_version");
    assert!(
        v.errors[0].message.contains("unknown schemaVersion 2"),
        "{}",
        v.errors[0].message
    );
    let v = validate_value(&json!({"schemaVersion": "1"}));
    assert!(v.errors[0].message.contains("unknown schemaVersion \"1\""));
}

#[test]
fn semantic_errors_are_located() {
    let v = check("bad-semantics.json");
    let by = |p: &str| {
        v.errors
            .iter()
            .filter(|e| e.pointer == p)
            .map(|e| e.kind)
            .collect::<Vec<_>>()
    };
    assert_eq!(by("/steps/0/text"), ["input"], "{:#?}", v.errors);
    assert_eq!(by("/steps/1/text"), ["sensitive"]);
    assert_eq!(by("/steps/2/id"), ["step"]);
    assert_eq!(by("/steps/2/target"), ["target"]);
    assert_eq!(by("/steps/2/maxRetries"), ["budget"]);
    assert_eq!(by("/steps/2/timeoutMs"), ["budget"]);
    assert_eq!(by("/budgets/maxSteps"), ["budget"]);
    assert_eq!(by("/terminalCondition/visible"), ["target"]);
    let missing = v
        .errors
        .iter()
        .find(|e| e.pointer == "/steps/0/text")
        .unwrap();
    assert!(
        missing.message.contains("inputs.missing"),
        "{}",
        missing.message
    );
}

#[test]
fn steps_over_the_budget_are_refused() {
    let v = check("over-budget.json");
    assert_eq!(pointers(&v), ["/budgets/maxSteps"]);
    assert!(
        v.errors[0].message.contains("4 step executions"),
        "{}",
        v.errors[0].message
    );
    // More than 64 steps breaks the schema itself.
    let steps: Vec<Value> = (0..65)
        .map(|i| json!({"id": format!("s{i}"), "action": "observe", "transaction": "read_only"}))
        .collect();
    let v = validate_value(&doc(json!(steps), json!({}), json!({"dialogOpen": false})));
    assert!(pointers(&v).contains(&"/steps"), "{:?}", v.errors);
    assert!(
        pointers(&v).contains(&"/budgets/maxSteps"),
        "{:?}",
        v.errors
    );
}

#[test]
fn four_megabyte_files_are_refused_before_parsing() {
    let dir = std::env::temp_dir().join(format!("tg-wf-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.json");
    // Valid JSON, so only the size can be the reason.
    let mut big = String::from("{\"schemaVersion\": 1, \"pad\": \"");
    big.push_str(&"x".repeat(4 * 1024 * 1024));
    big.push_str("\"}");
    std::fs::write(&path, &big).unwrap();
    let v = validate_path(&path).unwrap();
    assert_eq!(v.errors.len(), 1);
    assert_eq!(v.errors[0].kind, "size");
    assert!(
        v.errors[0].message.contains("1 MiB"),
        "{}",
        v.errors[0].message
    );
    assert!(validate_bytes(big.as_bytes()).errors[0].kind == "size");
    // Just under the limit parses (and then fails the schema, not the size check).
    let mut under = String::from("{\"pad\": \"");
    under.push_str(&"x".repeat(MAX_FILE_BYTES as usize - 20));
    under.push_str("\"}");
    assert_eq!(validate_bytes(under.as_bytes()).errors[0].kind, "schema");
    let o = treeglass_offline(&["workflow", "validate", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(30), "{}", text(&o));
    assert!(text(&o).contains("1 MiB"), "{}", text(&o));
    let o = treeglass_offline(&[
        "--backend",
        "atspi",
        "workflow",
        "run",
        path.to_str().unwrap(),
        "--app",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(30), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_validate_reports_pointers_and_exit_codes() {
    let o = treeglass_offline(&[
        "workflow",
        "validate",
        sample("good-demo.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("valid — 6 steps"), "{}", text(&o));
    let o = treeglass_offline(&[
        "workflow",
        "validate",
        "--json",
        sample("bad-semantics.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(30));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert!(
        v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["pointer"] == "/steps/1/text" && e["kind"] == "sensitive"),
        "{v}"
    );
    let o = treeglass_offline(&[
        "workflow",
        "validate",
        sample("bad-json.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(30));
    assert!(text(&o).contains("line 5, column 36"), "{}", text(&o));
    let o = treeglass_offline(&["workflow", "validate", "/nonexistent/flow.json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

#[test]
fn nothing_runs_from_an_invalid_file_not_even_a_bus_connection() {
    // With no bus reachable, a valid file gets as far as connecting (exit 4)…
    let good = sample("good-demo.json");
    let o = treeglass_offline(&[
        "--backend",
        "atspi",
        "workflow",
        "run",
        good.to_str().unwrap(),
        "--app",
        "x",
        "--input",
        "password=x",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o));
    // …while every invalid file is refused before that.
    for f in [
        "bad-json.json",
        "bad-schema.json",
        "bad-version.json",
        "bad-semantics.json",
        "over-budget.json",
        "browser-only.json",
    ] {
        let o = treeglass_offline(&[
            "--backend",
            "atspi",
            "workflow",
            "run",
            sample(f).to_str().unwrap(),
            "--app",
            "x",
        ]);
        // A valid file that asks what a desktop run cannot do is refused (32), the rest are
        // invalid (30).
        let refused = f == "browser-only.json";
        assert_eq!(
            o.status.code(),
            Some(if refused { 32 } else { 30 }),
            "{f}: {}",
            text(&o)
        );
        assert!(
            text(&o).contains("not run") || text(&o).contains("nothing was run"),
            "{f}: {}",
            text(&o)
        );
        assert!(!text(&o).contains("accessibility bus"), "{f}: {}", text(&o));
    }
}

#[test]
fn missing_inputs_are_listed_before_anything_runs() {
    let o = treeglass_offline(&[
        "--backend",
        "atspi",
        "workflow",
        "run",
        sample("needs-input.json").to_str().unwrap(),
        "--app",
        "x",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(32), "{}", text(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let ptrs: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pointer"].as_str().unwrap())
        .collect();
    // `quantity` is optional.
    assert_eq!(ptrs, ["/inputs/name", "/inputs/password"]);
    assert!(v["message"].as_str().unwrap().contains("name, password"));
    // Undeclared and ill-typed inputs are refused too.
    let wf: Workflow = check("needs-input.json").workflow.unwrap();
    let given = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    assert!(preflight(&wf, &given(&[("name", "A"), ("password", "p")])).is_ok());
    match preflight(
        &wf,
        &given(&[("name", "A"), ("password", "p"), ("quantity", "lots")]),
    ) {
        Err(RunRefusal::BadInputs(v)) => assert_eq!(v[0].pointer, "/inputs/quantity"),
        other => panic!("{other:?}"),
    }
    match preflight(
        &wf,
        &given(&[("name", "A"), ("password", "p"), ("nme", "B")]),
    ) {
        Err(RunRefusal::BadInputs(v)) => assert!(v[0].message.contains("declares no input")),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_refused_run_leaves_the_app_untouched() {
    let fixture = FixtureBackend::demo();
    let backend: Arc<dyn Backend> = Arc::new(fixture.clone());
    let full_name = fixture.find_by_name("Full name").unwrap();
    let before = backend.read_node(&full_name).await.unwrap().value;
    // Step 1 would work; step 2 is not possible on a desktop: the run must not start at all.
    let d = doc(
        json!([
            {"id": "name", "action": "type", "transaction": "idempotent",
             "target": "text \"Full name\"", "text": "Changed"},
            {"id": "go", "action": "navigate", "transaction": "idempotent", "url": "https://x.org"}
        ]),
        json!({}),
        json!({"dialogOpen": false}),
    );
    let wf = workflow(&d);
    let place = place(backend.as_ref(), "treeglass-demo").await;
    let session = Arc::new(Session::new(backend.clone()));
    let r = Runner::new(session, place, wf, BTreeMap::new(), RunOptions::default());
    assert!(matches!(r, Err(RunRefusal::Unsupported(_))));
    let after = backend.read_node(&full_name).await.unwrap().value;
    assert_eq!(before, after);
    assert_eq!(
        after,
        Some(NodeValue::Text {
            text: "Ada Lovelace".into()
        })
    );
}

#[test]
fn duplicate_keys_are_refused_with_their_pointer() {
    // A reviewer reads the first "target"; a parser that keeps the last would click the second.
    let good = std::fs::read_to_string(sample("good-demo.json")).unwrap();
    let bad = good.replacen(
        "\"target\": \"button \\\"Press me\\\"\",",
        "\"target\": \"button \\\"Press me\\\"\", \"target\": \"button \\\"Add item\\\"\",",
        1,
    );
    assert_ne!(
        bad, good,
        "the sample changed: the duplicate was not inserted"
    );
    let v = validate_bytes(bad.as_bytes());
    assert!(!v.is_valid());
    assert_eq!(v.errors.len(), 1, "{:#?}", v.errors);
    let e = &v.errors[0];
    assert_eq!(
        (e.kind, e.pointer.as_str()),
        ("duplicate_key", "/steps/5/target")
    );
    assert!(e.line.is_some() && e.column.is_some());
    assert!(e.to_string().contains("/steps/5/target"), "{e}");
    // Nested objects and the document's top level too.
    for (doc, pointer) in [
        (
            r#"{"schemaVersion": 1, "schemaVersion": 1}"#,
            "/schemaVersion",
        ),
        (
            r#"{"terminalCondition": {"all": [{"not": {"dialogOpen": true, "dialogOpen": false}}]}}"#,
            "/terminalCondition/all/0/not/dialogOpen",
        ),
    ] {
        let v = validate_bytes(doc.as_bytes());
        assert_eq!(pointers(&v), vec![pointer], "{doc}");
    }

    let dir = std::env::temp_dir().join(format!("tg-dup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dup.json");
    std::fs::write(&path, &bad).unwrap();
    let o = treeglass_offline(&["workflow", "validate", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(30), "{}", text(&o));
    assert!(text(&o).contains("/steps/5/target"), "{}", text(&o));
    // Nothing runs from it (not even a connection to the bus).
    let o = treeglass_offline(&[
        "--backend",
        "atspi",
        "workflow",
        "run",
        path.to_str().unwrap(),
        "--app",
        "x",
    ]);
    assert_eq!(o.status.code(), Some(30), "{}", text(&o));
    // An inputs file with a key given twice is refused too.
    let inputs = dir.join("inputs.json");
    std::fs::write(&inputs, r#"{"password": "a", "password": "b"}"#).unwrap();
    let o = treeglass_offline(&[
        "--backend",
        "fixture",
        "workflow",
        "run",
        sample("good-demo.json").to_str().unwrap(),
        "--inputs-file",
        inputs.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("duplicate key"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}
