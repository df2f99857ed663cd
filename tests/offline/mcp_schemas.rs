//! `treeglass mcp --backend fixture`: its tool schemas as clients the project did not write see
//! them. Every answer — errors included — against its tool's `outputSchema`, by the MCP Python
//! SDK (which validates a result that is not an error itself), by an independent validator
//! (Debian's `python3-jsonschema`), and by the MCP Inspector's CLI (AJV, which validates every
//! result that carries structured content); and the Inspector's `--strict` portability lint of
//! `tools/list`, which must find nothing.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

use serde_json::{Value, json};

use super::mcp_fixture::{TOOLS, fixture};
use crate::common;

/// Calls on the demo app covering every tool, successes and failures: the answers a client
/// meets.
fn calls() -> Vec<(&'static str, Value)> {
    let workflows = format!("{}/tests/fixtures/workflows", common::repo());
    vec![
        ("list_apps", json!({})),
        ("get_window_state", json!({})),
        ("get_window_state", json!({"budget_bytes": 4000})),
        ("get_window_state", json!({"interactive_only": true})),
        ("get_window_state", json!({"query": "button"})),
        ("get_window_state", json!({"app": "no such app"})),
        ("find", json!({"target": "button \"Save\""})),
        ("find", json!({"target": "check-box"})),
        ("find", json!({"target": "button =\"Nope\""})),
        ("find", json!({"target": "button [checkd"})),
        (
            "set_value",
            json!({"target": "text \"Full name\"", "value": "Grace"}),
        ),
        (
            "set_value",
            json!({"target": "text \"Full name\"", "value": "Grace"}),
        ),
        (
            "set_value",
            json!({"target": "text \"Shout\"", "value": "quiet"}),
        ),
        (
            "set_value",
            json!({"target": "password-text", "value": "s3cret"}),
        ),
        ("set_value", json!({"target": "check-box", "value": true})),
        (
            "set_value",
            json!({"element_token": "s0000ffff:1", "value": 1}),
        ),
        ("invoke", json!({"target": "button \"Add item\""})),
        ("invoke", json!({"target": "button"})),
        ("clipboard_read", json!({})),
        ("clipboard_write", json!({"text": "x", "file_path": "/x"})),
        ("workflow_record_start", json!({"name": "r"})),
        ("workflow_record_stop", json!({})),
        (
            "workflow_validate",
            json!({"path": format!("{workflows}/good-demo.json")}),
        ),
        (
            "workflow_validate",
            json!({"path": format!("{workflows}/bad-schema.json")}),
        ),
        (
            "workflow_run",
            json!({"path": format!("{workflows}/good-demo.json"), "inputs": {"password": "p"}}),
        ),
        (
            "workflow_run",
            json!({"path": format!("{workflows}/good-demo.json")}),
        ),
        ("audit", json!({})),
        ("doctor", json!({})),
    ]
}

#[test]
fn every_answer_on_the_demo_validates_against_its_output_schema() {
    let mut c = fixture();
    let listed = c.list_tools();
    assert_eq!(listed["schema_errors"], json!({}), "{listed}");
    let tools = listed["tools"].as_array().unwrap();
    let schemas: serde_json::Map<String, Value> = tools
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap().to_string();
            let schema = t
                .get("outputSchema")
                .unwrap_or_else(|| panic!("{name}: none"));
            (name, schema.clone())
        })
        .collect();
    assert_eq!(schemas.len(), TOOLS.len());

    let mut answers = Vec::new();
    let mut errors = 0;
    for (tool, args) in calls() {
        let r = c.call(tool, args.clone());
        // The SDK validated every answer that is not an error: one that did not conform would
        // be its RuntimeError here.
        assert!(r.get("rpc_error").is_none(), "{tool} {args}: {r}");
        // The text stays for clients that read only text.
        assert!(!r["text"].as_str().unwrap().is_empty(), "{tool} {args}");
        let doc = r["structuredContent"].clone();
        assert!(doc.is_object(), "{tool} {args}: {r}");
        if r["isError"] == true {
            errors += 1;
            assert!(doc["error"]["kind"].is_string(), "{tool}: {doc}");
        }
        answers.push(json!({"tool": tool, "args": args, "doc": doc}));
    }
    assert!(errors >= 10, "the calls must include failures: {errors}");

    // An independent validator: Debian's python3-jsonschema, not the SDK's venv.
    let dir = std::env::temp_dir().join(format!("tg-mcp-schemas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("answers.json");
    std::fs::write(
        &input,
        json!({"schemas": schemas, "answers": answers}).to_string(),
    )
    .unwrap();
    let script = r#"
import json, sys
import jsonschema
d = json.load(open(sys.argv[1]))
problems = []
for a in d["answers"]:
    schema = d["schemas"][a["tool"]]
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    for e in v.iter_errors(a["doc"]):
        problems.append("%s %s: %s at %s" % (a["tool"], json.dumps(a["args"]), e.message, list(e.path)))
    for key in a["doc"]:
        if key not in schema["properties"]:
            problems.append("%s: %s is not in its output schema" % (a["tool"], key))
print(json.dumps({"checked": len(d["answers"]), "problems": problems}))
"#;
    let o = Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(&input)
        .output()
        .expect("/usr/bin/python3 with python3-jsonschema");
    common::assert_ok(&o, "python3-jsonschema");
    let report = common::json_of(&o);
    assert_eq!(report["checked"], answers.len());
    assert_eq!(report["problems"], json!([]), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
    c.close();
}

/// The Inspector's CLI on `treeglass --backend fixture mcp`, with `args` before the server.
fn inspect(args: &[&str]) -> Output {
    Command::new(common::mcp::inspector())
        .arg("--cli")
        .args(args)
        .args(["--format", "json", env!("CARGO_BIN_EXE_treeglass")])
        .args(["--backend", "fixture", "mcp"])
        .output()
        .expect("run the MCP Inspector (node)")
}

#[test]
fn the_mcp_inspector_finds_no_portability_problem_and_takes_every_answer() {
    let o = inspect(&["--method", "tools/list", "--strict"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let listed: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Findings would be listed beside the result, and counted on standard error.
    assert!(listed.get("schemaFindings").is_none(), "{listed}");
    assert!(
        !stderr.contains("warning") && !stderr.contains("error"),
        "{stderr}"
    );
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), TOOLS.len());
    for t in tools {
        assert!(t["outputSchema"]["properties"].is_object(), "{t}");
    }

    // Its client checks every answer that carries structured content against the tool's
    // output schema (AJV), errors included, and fails the call when it does not conform.
    for (tool, args) in calls() {
        // The recorder and the clipboard keep state across calls: one server per call here.
        if matches!(tool, "workflow_record_stop") {
            continue;
        }
        let o = inspect(&[
            "--method",
            "tools/call",
            "--tool-name",
            tool,
            "--tool-args-json",
            &args.to_string(),
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        let out: Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{tool} {args}: {e}: {stderr}"));
        let result = &out["result"];
        assert!(result["structuredContent"].is_object(), "{tool}: {out}");
        // 0: the call succeeded; 5: the tool answered isError, and said so. Anything else
        // (a schema violation among them) is the Inspector refusing the answer.
        let expected = if result["isError"] == true { 5 } else { 0 };
        assert_eq!(o.status.code(), Some(expected), "{tool} {args}: {stderr}");
    }
}
