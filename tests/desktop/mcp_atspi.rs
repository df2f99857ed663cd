//! `treeglass mcp` on the real accessibility bus (inside `scripts/a11y-session`), driven by the
//! MCP Python SDK, against the project's GTK fixture app, whose stdin protocol reports what
//! the app really holds. After every step that touched the app, the app must be alive and
//! still registered on the bus.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::FixtureApp;
use common::mcp::{McpClient, assert_waited_whole, find_node, token_named};
use serde_json::{Value, json};

fn server() -> McpClient {
    McpClient::start("atspi", &["--backend", "atspi"])
}

/// The app is running and `treeglass apps --json` still lists its pid.
fn assert_alive(app: &mut FixtureApp, after: &str) {
    assert!(
        app.cmd("state").is_object(),
        "the fixture app stopped answering after {after}"
    );
    let o = common::treeglass(&["apps", "--json"]);
    assert!(o.status.success(), "apps failed after {after}");
    let v = common::json_of(&o);
    let registered = v["apps"]
        .as_array()
        .is_some_and(|a| a.iter().any(|x| x["pid"].as_u64() == Some(app.pid as u64)));
    assert!(
        registered,
        "the fixture app (pid {}) is no longer registered after {after}",
        app.pid
    );
}

fn scoped(app: &FixtureApp, mut args: Value) -> Value {
    args["app"] = app.app_arg().into();
    args
}

#[test]
fn a_write_by_token_lands_in_the_app_and_superseded_tokens_are_stale() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("mcp-token");
    let mut c = server();
    let apps = c.ok("list_apps", json!({}));
    assert!(
        apps["apps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["pid"].as_u64() == Some(app.pid as u64)),
        "{apps}"
    );
    let state = c.ok("get_window_state", scoped(&app, json!({})));
    assert_eq!(state["complete"], true, "{}", state["truncated"]);
    // A small window comes whole in one answer under the default budget: nothing left out,
    // no next page, every line it selected shown.
    assert_eq!(state["form"], "tree");
    assert_eq!(state["shown"], state["selected"], "{state}");
    assert!(state.get("omitted").is_none() && state.get("next_cursor").is_none());
    assert_eq!(state["pid"].as_u64(), Some(app.pid as u64));
    let node = find_node(&state["root"], &|n| n["name"] == "Full name").unwrap();
    assert_eq!(node["target"], "text \"Full name\"");
    let token = node["token"].as_str().unwrap().to_string();
    assert_alive(&mut app, "get_window_state");

    let v = c.ok(
        "set_value",
        json!({"element_token": token, "value": "Grace Hopper"}),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    assert_eq!(v["path"], "semantic");
    assert_eq!(app.state()["full_name"], "Grace Hopper");
    assert_alive(&mut app, "set_value by token");

    let v = c.ok(
        "set_value",
        json!({"element_token": token, "value": true, "target": null}),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    assert_eq!(app.state()["full_name"], "true");
    assert!(
        v.get("changes").is_none(),
        "a verified write has no change set: {v}"
    );

    // A write that lands elsewhere ("Relay" hands its text to "Proxy host"): the result says
    // where, as `set --json` does.
    let r = c.call(
        "set_value",
        scoped(
            &app,
            json!({"target": "text \"Relay\"", "value": "via mcp"}),
        ),
    );
    let v = &r["structuredContent"];
    assert_ne!(v["outcome"], "verified", "{r}");
    assert!(
        v["changes"]["changes"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["name"] == "Proxy host")),
        "{r}"
    );
    assert_eq!(app.state()["proxy_host"], "via mcp");
    assert_alive(&mut app, "a write that landed elsewhere");

    // A newer read of the same window supersedes the token, and the refusal names it.
    let f = c.ok(
        "find",
        scoped(&app, json!({"target": "check-box \"Subscribe\""})),
    );
    assert_eq!(f["outcome"], "unique");
    let current = f["snapshot"].as_str().unwrap();
    let r = c.call(
        "set_value",
        json!({"element_token": token, "value": "late"}),
    );
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["kind"], "stale_token");
    assert_eq!(e["exit_code"], 5);
    assert_eq!(e["current_snapshot"], current);
    assert_eq!(r["structuredContent"]["dispatched"], false);
    assert_eq!(app.state()["full_name"], "true", "a stale token wrote");
    // find's own token is the current one.
    let v = c.ok(
        "set_value",
        json!({"element_token": f["token"], "value": "on"}),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    assert_eq!(app.state()["subscribe"], true);
    let v = c.ok(
        "invoke",
        scoped(&app, json!({"target": "button \"Press me\""})),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    assert_eq!(app.state()["presses"], 1);
    assert_alive(&mut app, "invoke");
    c.close();
    assert_alive(&mut app, "the session's end");
}

#[test]
fn a_password_is_secure_and_absent_from_the_whole_transcript() {
    let _turn = common::turn::shared();
    let secret = "c0rrect-h0rse-MCP-batt3ry";
    let mut app = FixtureApp::start("mcp-secret");
    let mut c = server();
    let state = c.ok("get_window_state", scoped(&app, json!({})));
    let token = token_named(&state, "Password");
    let v = c.ok(
        "set_value",
        json!({"element_token": token, "value": secret}),
    );
    assert_eq!(v["outcome"], "secure", "{v}");
    assert_eq!(v["requested"]["secret"], true);
    assert_eq!(app.state()["password"], secret, "the write did not land");
    assert_alive(&mut app, "set_value of the password");
    let state = c.ok("get_window_state", scoped(&app, json!({})));
    let pw = find_node(&state["root"], &|n| n["name"] == "Password").unwrap();
    assert_eq!(pw["value"]["kind"], "secret");
    assert_eq!(pw["value"]["length"], secret.len());
    let f = c.ok(
        "find",
        scoped(&app, json!({"target": "password-text \"Password\""})),
    );
    assert_eq!(f["outcome"], "unique");
    // By target, recorded: the step types an input, never the text.
    c.ok("workflow_record_start", json!({}));
    let v = c.ok(
        "set_value",
        scoped(
            &app,
            json!({"target": "password-text \"Password\"", "value": format!("{secret}!")}),
        ),
    );
    assert_eq!(v["outcome"], "secure", "{v}");
    let wf = c.ok("workflow_record_stop", json!({}));
    assert!(
        wf["steps"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("${inputs.")
    );
    assert_alive(&mut app, "the second write");
    let dir = c.dir.clone();
    c.close();
    let transcript = ["stdout", "stderr", "server.log"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        transcript.contains("\"outcome\":\"secure\""),
        "not the session's transcript"
    );
    assert!(transcript.contains("mcp tool call"), "the log is empty");
    assert!(
        !transcript.contains(secret),
        "the secret is in the transcript"
    );
    assert!(
        !transcript.contains("h0rse"),
        "part of the secret is in the transcript"
    );
}

#[test]
fn clipboard_write_then_read_through_the_tools_and_another_process() {
    let _turn = common::turn::alone();
    common::require_stack();
    let mut c = server();
    let text = "tree glass ✓ mcp";
    let w = c.ok("clipboard_write", json!({"text": text}));
    assert!(
        w["types"].as_array().unwrap().iter().any(|t| t == "text"),
        "{w}"
    );
    assert!(
        w.get("text").is_none(),
        "a write does not echo the text: {w}"
    );
    let r = c.ok("clipboard_read", json!({}));
    assert!(r.get("text").is_none(), "text only when asked: {r}");
    let r = c.ok("clipboard_read", json!({"include_text": true}));
    assert_eq!(r["text"], text);
    // The system clipboard: another process (xclip, no code in common with treeglass) reads
    // it while the server serves it, and what that process puts there the server reads.
    common::xclip::wait_text(text, "the server's clipboard_write");
    common::xclip::write("from xclip ✓");
    let r = c.ok("clipboard_read", json!({"include_text": true}));
    assert_eq!(r["text"], "from xclip ✓", "{r}");
    // A second write replaces the first.
    let dir = c.dir.clone();
    let file = dir.join("offered.txt");
    std::fs::write(&file, "x").unwrap();
    let w = c.ok(
        "clipboard_write",
        json!({"file_path": file.to_str().unwrap()}),
    );
    assert!(
        w["types"].as_array().unwrap().iter().any(|t| t == "files"),
        "{w}"
    );
    let r = c.ok("clipboard_read", json!({}));
    assert_eq!(r["files"][0], file.to_str().unwrap());
    let r = c.call("clipboard_write", json!({"image_path": "dot.png"}));
    assert_eq!(r["structuredContent"]["error"]["kind"], "bad_arguments");
    c.close();
}

#[test]
fn a_workflow_recorded_through_the_tools_replays_with_workflow_run() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("mcp-flow");
    let mut c = server();
    c.ok("workflow_record_start", json!({"name": "mcp profile"}));
    for (target, value) in [
        ("text \"Full name\"", json!("Dorothy Vaughan")),
        ("check-box \"Subscribe\"", json!(true)),
        ("spin-button \"Quantity\"", json!(12)),
        ("combo-box \"Colour\"", json!("Blue")),
    ] {
        let v = c.ok(
            "set_value",
            scoped(&app, json!({"target": target, "value": value})),
        );
        assert_eq!(v["outcome"], "verified", "{target}: {v}");
        assert_eq!(v["recorded"]["flagged"], false, "{v}");
        assert_alive(&mut app, target);
    }
    let v = c.ok(
        "invoke",
        scoped(&app, json!({"target": "button \"Press me\""})),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    let path = c.dir.join("mcp.workflow.json");
    let wf = c.ok(
        "workflow_record_stop",
        json!({"path": path.to_str().unwrap()}),
    );
    assert_eq!(wf["steps"].as_array().unwrap().len(), 5, "{wf}");
    let s = app.state();
    assert_eq!(
        (
            &s["full_name"],
            &s["subscribe"],
            &s["quantity"],
            &s["colour"],
            &s["presses"]
        ),
        (
            &json!("Dorothy Vaughan"),
            &json!(true),
            &json!(12.0),
            &json!("Blue"),
            &json!(1)
        )
    );
    c.close();

    app.cmd("reset");
    assert_eq!(app.state()["full_name"], "");
    let o = common::treeglass(&[
        "workflow",
        "run",
        path.to_str().unwrap(),
        "--app",
        &app.app_arg(),
        "--json",
    ]);
    let report = common::json_of(&o);
    assert_eq!(o.status.code(), Some(0), "{report:#}");
    assert_eq!(report["passed"], true);
    let s = app.state();
    assert_eq!(s["full_name"], "Dorothy Vaughan");
    assert_eq!(s["subscribe"], true);
    assert_eq!(s["quantity"], 12.0);
    assert_eq!(s["colour"], "Blue");
    assert_eq!(s["presses"], 1);
    assert_alive(&mut app, "workflow run");

    // The same file through the tool, on the same app.
    app.cmd("reset");
    let mut c = server();
    let v = c.ok("workflow_validate", json!({"path": path.to_str().unwrap()}));
    assert_eq!(v["valid"], true);
    let run = c.ok(
        "workflow_run",
        scoped(&app, json!({"path": path.to_str().unwrap()})),
    );
    assert_eq!(run["passed"], true, "{run}");
    assert_eq!(app.state()["full_name"], "Dorothy Vaughan");
    assert_alive(&mut app, "workflow_run");
    c.close();
}

#[test]
fn verdicts_that_fail_are_tool_errors_with_the_cli_exit_codes() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("mcp-verdicts");
    let mut c = server();
    let r = c.call(
        "set_value",
        scoped(&app, json!({"target": "text \"Shout\"", "value": "quiet"})),
    );
    assert_eq!(r["structuredContent"]["error"]["kind"], "mismatch", "{r}");
    assert_eq!(r["structuredContent"]["error"]["exit_code"], 20);
    assert_eq!(r["structuredContent"]["mismatch"], "transformed");
    assert_eq!(app.state()["shout"], "QUIET");
    assert_alive(&mut app, "mismatch");
    let r = c.call(
        "set_value",
        scoped(
            &app,
            json!({"target": "text \"Locked field\"", "value": "open"}),
        ),
    );
    assert_eq!(r["structuredContent"]["error"]["kind"], "refused", "{r}");
    assert_eq!(r["structuredContent"]["dispatched"], false);
    assert_eq!(app.state()["locked"], "locked");
    let r = c.call(
        "set_value",
        scoped(
            &app,
            json!({"target": "text \"Vanishing field\"", "value": "bye"}),
        ),
    );
    let e = &r["structuredContent"]["error"];
    assert_eq!(
        (&e["kind"], &e["exit_code"]),
        (&json!("unconfirmed"), &json!(21)),
        "{r}"
    );
    assert_eq!(e["terminal"], true);
    assert!(
        r["structuredContent"]["advice"]
            .as_str()
            .unwrap()
            .contains("observe"),
        "{r}"
    );
    assert_eq!(app.state()["vanishing"], false);
    assert_alive(&mut app, "unconfirmed");
    let r = c.call(
        "find",
        scoped(&app, json!({"target": "button", "wait_ms": 100})),
    );
    assert_eq!(r["structuredContent"]["error"]["kind"], "ambiguous", "{r}");
    let r = c.call("get_window_state", json!({"app": "^no-such-app-anywhere$"}));
    assert_eq!(r["structuredContent"]["error"]["kind"], "no_such", "{r}");
    // An audit of the app: the read is whole, every rule is evaluated (bounds, indexes,
    // relations and tables are read for it), and findings are exit code 14.
    let r = c.call("audit", scoped(&app, json!({})));
    let a = &r["structuredContent"];
    assert_eq!(a["complete"], true, "{r}");
    let skipped: Vec<&str> = a["not_evaluated"]
        .as_array()
        .expect("not_evaluated")
        .iter()
        .filter_map(|n| n["rule"].as_str())
        .collect();
    assert!(skipped.is_empty(), "{r}");
    let found = a["summary"]["findings"].as_u64().expect("findings");
    assert_eq!(r["isError"], found > 0, "{r}");
    if found > 0 {
        assert_eq!(a["error"]["kind"], "findings");
        assert_eq!(a["error"]["exit_code"], 14);
    }
    assert_alive(&mut app, "audit");
    // The doctor's verdict depends on what else runs on the bus: problems are exit code 7.
    let r = c.call("doctor", json!({}));
    let d = &r["structuredContent"];
    assert_eq!(d["backend"], "atspi", "{r}");
    assert!(d["checks"].as_array().is_some_and(|c| !c.is_empty()));
    assert_eq!(r["isError"], d["healthy"] == false);
    if r["isError"] == true {
        assert_eq!(d["error"]["kind"], "problems_found");
    }
    c.close();
    assert_alive(&mut app, "the session's end");
}

/// An ambiguous or missing target on an app at rest is answered after one read, without the
/// wait a `wait_ms` asks for; the answer says it did not wait, and why. gtk4-widget-factory,
/// a real app the tests do not drive, at rest.
#[test]
fn on_an_app_at_rest_find_and_set_value_answer_without_waiting_and_say_so() {
    use common::matrix::{Kit, MatrixApp};
    let _turn = common::turn::shared();
    let mut wf = MatrixApp::start(Kit::Gtk4);
    let mut c = server();
    let pid = json!(wf.pid);
    let r = c.call("find", json!({"target": "check-box", "pid": pid}));
    let doc = &r["structuredContent"];
    assert_eq!(doc["error"]["kind"], "ambiguous", "{r}");
    assert_eq!(
        (doc["at_rest"].as_bool(), doc["reads"].as_u64()),
        (Some(true), Some(1)),
        "{r}"
    );
    let text = r["text"].as_str().unwrap();
    assert!(
        text.contains("not waited for") && text.contains("wait_ms"),
        "{text}"
    );
    eprintln!(
        "ambiguous find at rest: {:.0} ms at the client",
        r["ms"].as_f64().unwrap()
    );
    wf.assert_alive("an ambiguous find");

    let r = c.call(
        "find",
        json!({"target": "button =\"No such button\"", "pid": pid}),
    );
    let doc = &r["structuredContent"];
    assert_eq!(doc["error"]["kind"], "not_found", "{r}");
    assert_eq!(
        (doc["at_rest"].as_bool(), doc["reads"].as_u64()),
        (Some(true), Some(1)),
        "{r}"
    );
    eprintln!(
        "missing find at rest: {:.0} ms at the client",
        r["ms"].as_f64().unwrap()
    );

    // A write by such a target is refused the same way: nothing sent, one read.
    let r = c.call(
        "set_value",
        json!({"target": "check-box", "value": true, "pid": pid}),
    );
    let doc = &r["structuredContent"];
    assert_eq!(
        (&doc["outcome"], &doc["dispatched"]),
        (&json!("refused"), &json!(false)),
        "{r}"
    );
    let resolution = &doc["error"]["resolution"];
    assert_eq!(
        (
            resolution["at_rest"].as_bool(),
            resolution["reads"].as_u64()
        ),
        (Some(true), Some(1)),
        "{r}"
    );
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not waited for"),
        "{r}"
    );
    eprintln!(
        "ambiguous set_value at rest: {:.0} ms at the client",
        r["ms"].as_f64().unwrap()
    );
    wf.assert_alive("a refused set_value");

    // A wait asked for is kept whole, at rest or not, and the answer says so.
    let r = c.call(
        "find",
        json!({"target": "button =\"No such button\"", "pid": pid, "wait_ms": 1200}),
    );
    assert_waited_whole(&r, 1200);
    c.close();
    wf.assert_alive("the session's end");
}

/// The fixture app started on a private session bus (its accessibility bus `a11y`), with
/// its stdin protocol; quit on drop.
struct PrivateApp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl PrivateApp {
    fn start(name: &str, session: &str, a11y: &str) -> PrivateApp {
        use std::io::BufRead;
        let mut child = std::process::Command::new("/usr/bin/python3")
            .arg(format!("{}/tests/fixture_app.py", common::repo()))
            .args(["--name", name])
            .env("DBUS_SESSION_BUS_ADDRESS", session)
            .env("AT_SPI_BUS_ADDRESS", a11y)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the GTK fixture app");
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut app = PrivateApp {
            child,
            stdin,
            lines,
        };
        let ready = app.line();
        assert!(ready.contains("\"ready\""), "{ready}");
        app
    }

    fn line(&mut self) -> String {
        self.lines
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| {
                panic!("the fixture app said nothing ({:?})", self.child.try_wait())
            })
    }

    fn state(&mut self) -> Value {
        use std::io::Write;
        writeln!(self.stdin, "state").unwrap();
        serde_json::from_str(&self.line()).unwrap()
    }
}

impl Drop for PrivateApp {
    fn drop(&mut self) {
        common::quit_child(&mut self.stdin, &mut self.child);
    }
}

/// The processes whose environment names `needle` (the private bus and what it started).
fn processes_naming(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

/// `treeglass mcp` started before its session bus exists: it answers, says the bus is not
/// there, and a call after the bus appears connects (no restart); an app that starts then is
/// listed and written to.
#[test]
fn a_session_bus_that_appears_after_the_server_started_is_connected_by_a_later_call() {
    let _turn = common::turn::shared();
    common::require_stack();
    let dir = std::env::temp_dir().join(format!(
        "tg-late-bus-{}-{}",
        std::process::id(),
        common::next_id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let address = format!("unix:path={}/bus", dir.display());
    // No --backend: the platform's own. Its session bus is not there yet.
    let env = [
        ("DBUS_SESSION_BUS_ADDRESS", Some(address.as_str())),
        ("AT_SPI_BUS_ADDRESS", None),
        ("A11Y_BUS_ADDRESS", None),
    ];
    let mut c = McpClient::start_env("late", &[], &env);
    assert_eq!(c.list_tools()["tools"].as_array().unwrap().len(), 13);
    let r = c.call("list_apps", json!({}));
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["kind"], "bus_unavailable", "{r}");
    assert!(
        e["message"].as_str().unwrap().contains("session bus"),
        "{r}"
    );
    let doctor = c.call("doctor", json!({}));
    assert_eq!(doctor["structuredContent"]["healthy"], false, "{doctor}");

    // What the bus starts (the accessibility bus launcher) keeps to its own runtime directory
    // and no display: the launcher of the session's own bus puts its socket in
    // $XDG_RUNTIME_DIR/at-spi and its address on the X root window, which a second one would
    // take over (and remove when it exits).
    let runtime = dir.join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    std::fs::set_permissions(
        &runtime,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let mut bus = std::process::Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--nopidfile"])
        .arg(format!("--address={address}"))
        .env("DBUS_SESSION_BUS_ADDRESS", &address)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("dbus-daemon");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !dir.join("bus").exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the private bus never came up"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The first call after the back-off the error named connects: no polling.
    let retry = e["retry_after_ms"].as_u64().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(retry));
    let apps = c.ok("list_apps", json!({}));
    assert_eq!(apps["backend"], "atspi", "{apps}");
    assert_eq!(apps["apps"], json!([]), "a new bus has no apps yet: {apps}");

    // An app that starts on it is listed, and a write to it lands (its own state says so).
    let a11y = std::process::Command::new("dbus-send")
        .arg(format!("--bus={address}"))
        .args([
            "--print-reply=literal",
            "--dest=org.a11y.Bus",
            "/org/a11y/bus",
        ])
        .arg("org.a11y.Bus.GetAddress")
        .output()
        .unwrap();
    common::assert_ok(&a11y, "org.a11y.Bus.GetAddress");
    let a11y = String::from_utf8_lossy(&a11y.stdout).trim().to_string();
    let name = format!("tgfix-late-{}", std::process::id());
    let mut app = PrivateApp::start(&name, &address, &a11y);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let apps = c.ok("list_apps", json!({}));
        if apps["apps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == name.as_str())
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{name} never registered: {apps}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let v = c.ok(
        "set_value",
        json!({"app": format!("^{name}$"), "target": "text \"Full name\"", "value": "Late Bus"}),
    );
    assert_eq!(v["outcome"], "verified", "{v}");
    assert_eq!(app.state()["full_name"], "Late Bus");
    c.close();
    drop(app);

    // Everything the private bus started goes with it.
    let _ = std::process::Command::new("kill")
        .arg(bus.id().to_string())
        .status();
    let _ = bus.wait();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = processes_naming(&address);
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running on the private bus: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
