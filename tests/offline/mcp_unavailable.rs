//! `treeglass mcp` with no session bus, through the MCP Python SDK: the server answers
//! `initialize` and `tools/list`, every tool that needs the backend answers the command line's
//! error (kind, exit code and words), the tools that need none work, `doctor` says why, and the
//! server keeps serving. (A bus that appears later is `tests/desktop/mcp_atspi.rs`.)
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use std::process::Command;

use serde_json::{Value, json};

use super::mcp_fixture::{TOOLS, error_of};
use crate::common::mcp::McpClient;

/// No session bus, no accessibility bus, no display: what a server started outside a desktop
/// session sees.
const NO_BUS: [(&str, Option<&str>); 6] = [
    ("DBUS_SESSION_BUS_ADDRESS", None),
    ("XDG_RUNTIME_DIR", None),
    ("AT_SPI_BUS_ADDRESS", None),
    ("A11Y_BUS_ADDRESS", None),
    ("DISPLAY", None),
    ("WAYLAND_DISPLAY", None),
];

/// The command line's error for the platform's backend in the same environment: its exit
/// code and message.
fn cli_error(args: &[&str]) -> (i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treeglass"));
    for (name, _) in NO_BUS {
        cmd.env_remove(name);
    }
    let o = cmd.args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    let message = stderr
        .trim_end()
        .strip_prefix("treeglass: ")
        .unwrap_or_else(|| panic!("no error line: {stderr}"))
        .to_string();
    (o.status.code().unwrap(), message)
}

#[test]
fn with_no_session_bus_the_server_answers_and_every_tool_says_why_as_the_cli_does() {
    let (code, message) = cli_error(&["--backend", "atspi", "apps"]);
    assert_eq!(code, 4, "{message}");
    assert!(message.contains("DBUS_SESSION_BUS_ADDRESS"), "{message}");

    // No --backend: the platform's own, which cannot start here.
    let mut c = McpClient::start_env("nobus", &[], &NO_BUS);
    assert_eq!(c.initialize["serverInfo"]["name"], "treeglass");
    let listed = c.list_tools();
    assert_eq!(listed["schema_errors"], json!({}), "{listed}");
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, TOOLS);

    let workflow = format!(
        "{}/tests/fixtures/workflows/good-demo.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let needs_backend: [(&str, Value); 7] = [
        ("list_apps", json!({})),
        ("get_window_state", json!({})),
        ("find", json!({"target": "button"})),
        ("set_value", json!({"target": "text", "value": "x"})),
        ("invoke", json!({"target": "button"})),
        (
            "workflow_run",
            json!({"path": workflow, "inputs": {"password": "p"}}),
        ),
        ("audit", json!({})),
    ];
    for (tool, args) in &needs_backend {
        let r = c.call(tool, args.clone());
        let e = error_of(&r);
        assert_eq!(e["kind"], "bus_unavailable", "{tool}: {r}");
        assert_eq!(e["exit_code"], code, "{tool}");
        assert_eq!(e["message"], message.as_str(), "{tool}: the CLI's words");
        // When the next call tries again: within the back-off, never later.
        let retry = e["retry_after_ms"].as_u64().unwrap();
        assert!(retry <= 1000, "{tool}: {e}");
        let text = r["text"].as_str().unwrap();
        assert!(
            text.contains("bus_unavailable (exit code 4)") && text.contains(&message),
            "{tool}: {text}"
        );
    }

    // Arguments are read first: a bad one is the model's to correct, bus or no bus. A workflow
    // that cannot run is refused before anything connects (as `workflow run` does).
    let r = c.call("set_value", json!({"target": "text"}));
    assert_eq!(error_of(&r)["kind"], "bad_arguments", "{r}");
    let r = c.call("workflow_run", json!({"workflow": {"name": "x"}}));
    assert_eq!(error_of(&r)["kind"], "workflow_invalid", "{r}");

    // The tools that need no backend work.
    let v = c.ok("workflow_validate", json!({"path": workflow}));
    assert_eq!(v["valid"], true, "{v}");
    c.ok("workflow_record_start", json!({"name": "r"}));
    let r = c.call("workflow_record_stop", json!({}));
    assert_eq!(
        error_of(&r)["kind"],
        "workflow_invalid",
        "nothing recorded: {r}"
    );
    // The clipboard belongs to a display, not to the accessibility bus.
    let r = c.call("clipboard_read", json!({}));
    let e = error_of(&r);
    assert_ne!(e["kind"], "bus_unavailable", "{r}");
    assert!(e["message"].as_str().unwrap().contains("display"), "{r}");

    // doctor says why, as `treeglass doctor --json` does.
    let r = c.call("doctor", json!({}));
    let doc = &r["structuredContent"];
    assert_eq!(error_of(&r)["kind"], "problems_found", "{r}");
    assert_eq!(doc["healthy"], false);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_treeglass"));
    for (name, _) in NO_BUS {
        cmd.env_remove(name);
    }
    let cli = crate::common::json_of(&cmd.args(["doctor", "--json"]).output().unwrap());
    let checks = |d: &Value| -> Vec<(String, String)> {
        d["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_string(),
                    c["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(checks(doc), checks(&cli), "{doc}");
    assert!(
        checks(doc)
            .iter()
            .any(|(name, status)| name == "session bus" && status == "fail"),
        "{doc}"
    );

    // Still serving, still saying why; never the demo app in the desktop's place.
    let again = c.list_tools();
    assert_eq!(again["tools"].as_array().unwrap().len(), TOOLS.len());
    let r = c.call("list_apps", json!({}));
    assert_eq!(error_of(&r)["kind"], "bus_unavailable", "{r}");
    let all = c.transcript();
    assert!(!all.contains("treeglass-demo"), "{all}");
    c.close();
}
