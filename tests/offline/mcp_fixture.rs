//! `treeglass mcp --backend fixture`, no accessibility bus: the MCP Python SDK as the client
//! (tools, schemas, tokens and stale tokens, verdicts and the error taxonomy, secrets absent
//! from everything the server wrote, a recorded workflow replayed by `treeglass workflow run`).
//! Raw JSON-RPC on the server's pipes is `mcp_raw`.
// The MCP Python SDK runs from the venv scripts/install-deps makes: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::Command;

use common::mcp::{McpClient, assert_waited_whole, find_node, token_named};
use serde_json::{Value, json};

pub(crate) const TOOLS: [&str; 13] = [
    "list_apps",
    "get_window_state",
    "find",
    "set_value",
    "invoke",
    "clipboard_read",
    "clipboard_write",
    "workflow_record_start",
    "workflow_record_stop",
    "workflow_validate",
    "workflow_run",
    "audit",
    "doctor",
];

pub(crate) fn fixture() -> McpClient {
    McpClient::start("fixture", &["--backend", "fixture"])
}

pub(crate) fn error_of(r: &Value) -> &Value {
    assert_eq!(r["isError"], true, "expected an error: {r}");
    &r["structuredContent"]["error"]
}

#[test]
fn the_sdk_lists_every_tool_with_a_valid_schema_and_its_effect() {
    let mut c = fixture();
    assert_eq!(c.initialize["serverInfo"]["name"], "treeglass");
    assert_eq!(c.initialize["capabilities"]["tools"], json!({}));
    let listed = c.list_tools();
    assert_eq!(listed["schema_errors"], json!({}), "{listed}");
    let tools = listed["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS);
    for t in tools {
        let name = t["name"].as_str().unwrap();
        assert_eq!(t["inputSchema"]["type"], "object", "{name}");
        assert_eq!(t["inputSchema"]["additionalProperties"], false, "{name}");
        assert!(t["description"].as_str().unwrap().len() > 40, "{name}");
        let a = &t["annotations"];
        let read_only = a["readOnlyHint"].as_bool().unwrap();
        let expect_read_only = [
            "list_apps",
            "get_window_state",
            "find",
            "clipboard_read",
            "workflow_validate",
            "audit",
            "doctor",
        ]
        .contains(&name);
        assert_eq!(read_only, expect_read_only, "{name}: {a}");
        assert!(a["destructiveHint"].is_boolean() && a["idempotentHint"].is_boolean());
        let desc = t["description"].as_str().unwrap();
        if read_only {
            assert!(desc.contains("Read-only"), "{name}: {desc}");
        }
    }
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap();
    assert_eq!(by_name("set_value")["annotations"]["destructiveHint"], true);
    assert_eq!(by_name("set_value")["annotations"]["idempotentHint"], true);
    assert_eq!(by_name("invoke")["annotations"]["idempotentHint"], false);
    let set = &by_name("set_value")["inputSchema"];
    assert_eq!(set["required"], json!(["value"]));
    for p in ["element_token", "target", "value", "timeout_ms"] {
        assert!(set["properties"].get(p).is_some(), "set_value lacks {p}");
    }
    let clip = &by_name("clipboard_write")["inputSchema"]["properties"];
    for p in ["text", "image_path", "file_path"] {
        assert!(clip.get(p).is_some(), "clipboard_write lacks {p}");
    }
    // An unknown tool is a JSON-RPC error, not a tool result.
    let r = c.call("no_such_tool", json!({}));
    assert!(
        r["rpc_error"].as_str().unwrap().contains("unknown tool"),
        "{r}"
    );
    c.close();
}

#[test]
fn audit_answers_the_cli_json_and_its_tokens_work_with_the_other_tools() {
    let mut c = fixture();
    let r = c.call("audit", json!({"app": "demo"}));
    // Findings are exit code 14, like the command line's.
    let e = error_of(&r);
    assert_eq!(e["kind"], "findings", "{r}");
    assert_eq!(e["exit_code"], 14);
    let doc = &r["structuredContent"];
    assert_eq!(doc["complete"], true);
    // The same document as `audit --json`.
    let cli = common::json_of(
        &std::process::Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(["--backend", "fixture", "audit", "--app", "demo", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(doc["summary"]["findings"], cli["summary"]["findings"]);
    assert_eq!(
        doc["rules"].as_array().unwrap().len(),
        cli["rules"].as_array().unwrap().len()
    );
    let missing = doc["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "name-missing")
        .unwrap();
    let f = &missing["findings"][0];
    assert_eq!(f["role"], "text", "{f}");
    // The finding's token is this server's: it writes into the unnamed field.
    let w = c.ok(
        "set_value",
        json!({"element_token": f["token"], "value": "Lyon", "app": "demo"}),
    );
    assert_eq!(w["outcome"], "verified", "{w}");
    // A selection with nothing to find is clean; an unknown rule is bad arguments.
    let clean = c.call("audit", json!({"app": "demo", "rules": ["states"]}));
    assert_eq!(clean["isError"], false, "{clean}");
    assert_eq!(clean["structuredContent"]["summary"]["findings"], 0);
    let bad = c.call("audit", json!({"app": "demo", "rules": ["nonsense"]}));
    assert_eq!(error_of(&bad)["kind"], "bad_arguments");
    c.close();
}

#[test]
fn tokens_write_verified_and_go_stale_when_the_window_is_read_again() {
    let mut c = fixture();
    let apps = c.ok("list_apps", json!({}));
    assert_eq!(apps["backend"], "fixture");
    assert_eq!(apps["apps"][0]["name"], "treeglass-demo");

    let state = c.ok("get_window_state", json!({}));
    assert_eq!(state["complete"], true);
    assert_eq!(state["pid"], 4242);
    let snap = state["snapshot"].as_str().unwrap().to_string();
    let node = find_node(&state["root"], &|n| n["name"] == "Full name").unwrap();
    assert_eq!(node["target"], "text \"Full name\"");
    assert_eq!(node["value"]["text"], "Ada Lovelace");
    let token = node["token"].as_str().unwrap().to_string();
    assert!(token.starts_with(&format!("{snap}:")), "{token}");
    // Folded: the unnamed wrapper around the list is not a node of its own.
    let fruits = find_node(&state["root"], &|n| n["name"] == "Fruits").unwrap();
    assert_eq!(fruits["folded"], 1, "{fruits}");
    let row = fruits["row"].as_u64().unwrap();
    assert!(find_node(&state["root"], &|n| n["row"] == row - 1).is_none());
    assert_eq!(state["shown"], state["node_count"].as_u64().unwrap() - 1);

    let v = c.ok(
        "set_value",
        json!({"element_token": token, "value": "Grace Hopper"}),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    assert_eq!(v["token"], token);
    assert_eq!(v["requested"], "Grace Hopper");
    assert_eq!(v["observed"], "Grace Hopper");
    assert_eq!(v["before"], "Ada Lovelace");
    assert!(v["samples"].as_array().is_some_and(|s| !s.is_empty()));
    // A write by token reads no tree: the token stays valid, and the same value again sends
    // nothing.
    let v = c.ok(
        "set_value",
        json!({"element_token": token, "value": "Grace Hopper"}),
    );
    assert_eq!(v["outcome"], "already", "{v}");
    assert_eq!(v["dispatched"], false);

    // A newer read of the window supersedes the token.
    let again = c.ok("get_window_state", json!({"window": "Settings"}));
    let current = again["snapshot"].as_str().unwrap();
    assert_ne!(current, snap);
    assert_eq!(
        find_node(&again["root"], &|n| n["name"] == "Full name").unwrap()["value"]["text"],
        "Grace Hopper"
    );
    let r = c.call("set_value", json!({"element_token": token, "value": "X"}));
    let e = error_of(&r);
    assert_eq!(e["kind"], "stale_token", "{r}");
    assert_eq!(e["exit_code"], 5);
    assert_eq!(e["current_snapshot"], current);
    assert!(e["message"].as_str().unwrap().contains(current), "{e}");
    assert_eq!(r["structuredContent"]["outcome"], "refused");
    assert_eq!(r["structuredContent"]["dispatched"], false);
    // find reads the window too: the token from get_window_state goes stale, find's is good.
    let f = c.ok(
        "find",
        json!({"target": {"role": "check-box", "query": "Subscribe"}}),
    );
    assert_eq!(f["outcome"], "unique");
    let stale = token_named(&again, "Subscribe");
    let r = c.call("invoke", json!({"element_token": stale}));
    assert_eq!(error_of(&r)["current_snapshot"], f["snapshot"]);
    let v = c.ok("invoke", json!({"element_token": f["token"]}));
    assert_eq!(v["outcome"], "verified", "{v}");
    let state = c.ok("get_window_state", json!({}));
    assert_eq!(
        find_node(&state["root"], &|n| n["name"] == "Subscribe").unwrap()["value"]["state"],
        "on"
    );
    c.close();
}

#[test]
fn errors_carry_the_cli_taxonomy_and_the_server_keeps_serving() {
    let mut c = fixture();
    let kind = |c: &mut McpClient, tool: &str, args: Value| -> (String, i64, Value) {
        let r = c.call(tool, args);
        let e = error_of(&r).clone();
        (
            e["kind"].as_str().unwrap().to_string(),
            e["exit_code"].as_i64().unwrap(),
            r,
        )
    };
    let (k, code, r) = kind(&mut c, "find", json!({"target": "check-box [chekced]"}));
    assert_eq!((k.as_str(), code), ("bad_target", 13));
    assert_eq!(r["structuredContent"]["error"]["column"], 12, "{r}");
    assert!(r["text"].as_str().unwrap().contains("checked"), "{r}");
    let (k, code, r) = kind(&mut c, "find", json!({"target": "button", "wait_ms": 50}));
    assert_eq!((k.as_str(), code), ("ambiguous", 10));
    assert!(r["structuredContent"]["count"].as_u64().unwrap() > 1, "{r}");
    assert!(r["structuredContent"]["candidates"][0]["token"].is_string());
    let (k, code, r) = kind(
        &mut c,
        "find",
        json!({"target": "check-box =\"Subscrbe\"", "wait_ms": 50}),
    );
    assert_eq!((k.as_str(), code), ("not_found", 11));
    assert!(
        !r["structuredContent"]["near_misses"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let (k, code, _) = kind(&mut c, "find", json!({"target": "button", "max_nodes": 3}));
    assert_eq!((k.as_str(), code), ("bad_arguments", 2), "unknown field");
    let (k, code, _) = kind(&mut c, "get_window_state", json!({"app": "no-such-app"}));
    assert_eq!((k.as_str(), code), ("no_such", 3));
    let (k, code, _) = kind(&mut c, "get_window_state", json!({"app": "(unclosed"}));
    assert_eq!((k.as_str(), code), ("bad_arguments", 2));
    // Incomplete: a capped read cannot claim uniqueness.
    let capped = c.call("get_window_state", json!({"max_nodes": 5}));
    assert_eq!(capped["isError"], false);
    assert_eq!(capped["structuredContent"]["complete"], false);
    assert_eq!(capped["structuredContent"]["truncated"], "node_cap");

    for args in [
        json!({"value": "x"}),
        json!({"element_token": "s00000001:1", "target": "button", "value": "x"}),
        json!({"element_token": "nope", "value": "x"}),
        json!({"target": "text \"Shout\""}),
        json!({"target": "text \"Shout\"", "value": ["x"]}),
        json!({"target": 5, "value": "x"}),
    ] {
        let (k, code, r) = kind(&mut c, "set_value", args.clone());
        assert_eq!((k.as_str(), code), ("bad_arguments", 2), "{args}: {r}");
    }
    let (k, code, r) = kind(
        &mut c,
        "set_value",
        json!({"element_token": "sdeadbeef:1", "value": "x"}),
    );
    assert_eq!((k.as_str(), code), ("unknown_token", 5), "{r}");

    // Verdicts that are not a success are errors with the write's own exit code.
    let (k, code, r) = kind(
        &mut c,
        "set_value",
        json!({"target": "text \"Shout\"", "value": "quiet"}),
    );
    assert_eq!((k.as_str(), code), ("mismatch", 20));
    assert_eq!(r["structuredContent"]["mismatch"], "transformed");
    assert_eq!(r["structuredContent"]["observed"], "QUIET");
    let (k, code, r) = kind(
        &mut c,
        "set_value",
        json!({"target": "text \"Locked field\"", "value": "open"}),
    );
    assert_eq!((k.as_str(), code), ("refused", 22));
    assert_eq!(r["structuredContent"]["dispatched"], false);
    let (k, code, r) = kind(
        &mut c,
        "set_value",
        json!({"target": "text \"Slow field\"", "value": "late", "timeout_ms": 300}),
    );
    assert_eq!((k.as_str(), code), ("unconfirmed", 21), "{r}");
    assert_eq!(r["structuredContent"]["error"]["terminal"], true);
    assert_eq!(r["structuredContent"]["dispatched"], true);
    let (k, code, r) = kind(
        &mut c,
        "set_value",
        json!({"target": "button", "value": "x", "wait_ms": 50}),
    );
    assert_eq!((k.as_str(), code), ("ambiguous", 10));
    assert_eq!(r["structuredContent"]["outcome"], "refused");
    // The value is not echoed when the element is unknown (it might be a password field).
    assert_eq!(r["structuredContent"]["requested"], "(not echoed, 1 char)");
    let (k, code, _) = kind(
        &mut c,
        "clipboard_write",
        json!({"text": "a", "file_path": "/etc/hostname"}),
    );
    assert_eq!((k.as_str(), code), ("bad_arguments", 2));
    let (k, code, _) = kind(
        &mut c,
        "clipboard_write",
        json!({"file_path": "relative.txt"}),
    );
    assert_eq!((k.as_str(), code), ("bad_arguments", 2));
    let (k, code, _) = kind(&mut c, "workflow_record_stop", json!({}));
    assert_eq!((k.as_str(), code), ("bad_arguments", 2));
    let (k, code, r) = kind(
        &mut c,
        "workflow_validate",
        json!({"workflow": {"schemaVersion": 1, "name": "x"}}),
    );
    assert_eq!((k.as_str(), code), ("workflow_invalid", 30));
    assert!(
        !r["structuredContent"]["errors"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Still serving.
    let v = c.ok(
        "set_value",
        json!({"target": "check-box \"Subscribe\"", "value": true}),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    let d = c.ok("doctor", json!({}));
    assert_eq!(d["backend"], "fixture");
    assert_eq!(d["healthy"], true);
    c.close();
}

#[test]
fn a_password_is_secure_and_absent_from_everything_the_server_wrote() {
    let secret = "Tr0ub4dor&3-mcp-fixture";
    let mut c = fixture();
    c.ok("workflow_record_start", json!({"name": "login"}));
    let v = c.ok(
        "set_value",
        json!({"target": "password-text \"Password\"", "value": secret}),
    );
    assert_eq!(v["outcome"], "secure", "{v}");
    assert_eq!(v["requested"]["secret"], true, "{v}");
    assert_eq!(v["requested"]["length"], secret.chars().count());
    let state = c.ok("get_window_state", json!({}));
    let pw = find_node(&state["root"], &|n| n["name"] == "Password").unwrap();
    assert_eq!(pw["value"]["kind"], "secret");
    assert_eq!(pw["value"]["length"], secret.chars().count());
    // A refusal that names no element does not echo it either.
    let r = c.call(
        "set_value",
        json!({"target": "text \"No such\"", "value": secret, "wait_ms": 50}),
    );
    assert_eq!(r["isError"], true);
    let wf = c.ok("workflow_record_stop", json!({}));
    let text = wf["steps"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("${inputs."), "{wf}");
    let input = &text["${inputs.".len()..text.len() - 1];
    assert_eq!(wf["inputs"][input]["sensitive"], true, "{wf}");
    // The run's report masks it as well.
    let run = c.ok(
        "workflow_run",
        json!({"workflow": wf, "inputs": {input: secret}}),
    );
    assert_eq!(run["passed"], true, "{run}");
    c.ok("doctor", json!({}));
    let dir = c.dir.clone();
    c.close();
    let transcript = ["stdout", "stderr", "server.log"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    // Not vacuous: the transcript holds the whole session, and the log saw every call.
    assert!(
        transcript.contains("\"outcome\":\"secure\""),
        "{transcript}"
    );
    assert!(transcript.contains("mcp tool call"), "no log lines");
    assert!(
        !transcript.contains(secret),
        "the secret is in the transcript"
    );
    assert!(
        !transcript.contains("Tr0ub4dor"),
        "part of the secret is in the transcript"
    );
}

#[test]
fn a_workflow_recorded_through_the_tools_replays_with_the_cli() {
    let mut c = fixture();
    c.ok("workflow_record_start", json!({"name": "profile"}));
    c.ok(
        "set_value",
        json!({"target": "text \"Full name\"", "value": "Katherine Johnson"}),
    );
    c.ok(
        "set_value",
        json!({"target": "check-box \"Subscribe\"", "value": true}),
    );
    c.ok(
        "set_value",
        json!({"target": "spin-button \"Quantity\"", "value": 7}),
    );
    c.ok("invoke", json!({"target": "button \"Press me\""}));
    let path = c.dir.join("profile.workflow.json");
    let wf = c.ok(
        "workflow_record_stop",
        json!({"path": path.to_str().unwrap()}),
    );
    assert_eq!(wf["schemaVersion"], 1);
    assert_eq!(wf["steps"].as_array().unwrap().len(), 4, "{wf}");
    let on_disk: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(on_disk, wf);
    let v = c.ok("workflow_validate", json!({"path": path.to_str().unwrap()}));
    assert_eq!(v["valid"], true);
    // The file is never replaced.
    c.ok("workflow_record_start", json!({}));
    c.ok("invoke", json!({"target": "button \"Press me\""}));
    let r = c.call(
        "workflow_record_stop",
        json!({"path": path.to_str().unwrap()}),
    );
    assert_eq!(r["isError"], true, "{r}");
    // … and the refused export lost nothing: the recording still runs.
    let again = c.ok("workflow_record_stop", json!({}));
    assert_eq!(again["steps"].as_array().unwrap().len(), 1);
    c.close();

    // A fresh demo app in a new process: the workflow does it all again, verified.
    let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "fixture", "workflow", "run"])
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    });
    assert_eq!(o.status.code(), Some(0), "{report:#}");
    assert_eq!(report["passed"], true);
    let outcomes: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["verified"; 4], "{report:#}");
}

#[test]
fn a_target_on_an_app_at_rest_is_answered_after_one_read_and_a_wait_asked_for_is_kept() {
    let mut c = fixture();
    let r = c.call("find", json!({"target": "check-box"}));
    let doc = &r["structuredContent"];
    assert_eq!(error_of(&r)["kind"], "ambiguous", "{r}");
    assert_eq!(
        (&doc["at_rest"], &doc["reads"]),
        (&json!(true), &json!(1)),
        "{r}"
    );
    let text = r["text"].as_str().unwrap();
    assert!(
        text.contains("not waited for") && text.contains("give wait_ms"),
        "{text}"
    );
    let r = c.call("find", json!({"target": "button =\"Nope\""}));
    let doc = &r["structuredContent"];
    assert_eq!(error_of(&r)["kind"], "not_found", "{r}");
    assert_eq!(
        (&doc["at_rest"], &doc["reads"]),
        (&json!(true), &json!(1)),
        "{r}"
    );
    // MCP's words for the wait, not the command line's.
    let text = r["text"].as_str().unwrap();
    assert!(
        text.contains("wait_ms waits for it to appear") && !text.contains("--wait-ms"),
        "{text}"
    );
    // A write by such a target: refused after one read, nothing sent, and it says why.
    let r = c.call("set_value", json!({"target": "check-box", "value": true}));
    let doc = &r["structuredContent"];
    assert_eq!(doc["dispatched"], false, "{r}");
    let e = error_of(&r);
    assert_eq!(
        (&e["resolution"]["at_rest"], &e["resolution"]["reads"]),
        (&json!(true), &json!(1)),
        "{r}"
    );
    assert!(
        e["message"].as_str().unwrap().contains("not waited for"),
        "{r}"
    );
    // A wait asked for is kept whole.
    let r = c.call(
        "find",
        json!({"target": "button =\"Nope\"", "wait_ms": 700}),
    );
    assert_waited_whole(&r, 700);
    // A unique target says nothing about waiting.
    let r = c.call("find", json!({"target": "button \"Save\""}));
    assert_eq!(r["isError"], false, "{r}");
    assert!(!r["text"].as_str().unwrap().contains("wait"), "{r}");
    c.close();
}
