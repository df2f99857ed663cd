//! `treeglass mcp --backend fixture` spoken to raw, on the server's pipes: bad input answered
//! with the JSON-RPC error and id it calls for, never a crash; tool schemas strict draft
//! 2020-12; hostile app strings never raw on the stream; cursors and tokens across apps. (The
//! SDK's side is `mcp_fixture`.)
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::mcp::{McpClient, find_node};
use serde_json::{Value, json};
use treeglass::model::is_hostile;

use super::mcp_fixture::{TOOLS, error_of, fixture};

/// A raw session on the server's pipes: lines in, lines out, nothing in between.
struct Raw {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    /// The server's output lines (with their newline), read on a thread so a line that never
    /// comes fails the test instead of hanging it.
    out: mpsc::Receiver<Vec<u8>>,
    raw: Vec<u8>,
}

/// How long a raw session waits for a line the server owes.
const RAW_WAIT: Duration = Duration::from_secs(30);

impl Raw {
    fn start(backend: &str) -> Raw {
        let mut child = Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(["--backend", backend, "mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, out) = mpsc::channel();
        std::thread::spawn(move || {
            loop {
                let mut line = Vec::new();
                match stdout.read_until(b'\n', &mut line) {
                    Ok(n) if n > 0 && tx.send(line).is_ok() => {}
                    _ => return,
                }
            }
        });
        Raw {
            child,
            stdin,
            out,
            raw: Vec::new(),
        }
    }

    fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&mut self) -> Value {
        let line = match self.out.recv_timeout(RAW_WAIT) {
            Ok(l) => l,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("the server answered nothing within {RAW_WAIT:?}")
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("the server closed its output (it died?)")
            }
        };
        self.raw.extend_from_slice(&line);
        serde_json::from_slice(&line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&line)))
    }

    /// Sends a request and reads until the response with its id (other lines are kept).
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(msg.to_string().as_bytes());
        loop {
            let v = self.recv();
            if v["id"] == id {
                return v;
            }
        }
    }

    fn initialize(&mut self) {
        let r = self.request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}),
        );
        assert_eq!(r["result"]["serverInfo"]["name"], "treeglass", "{r}");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// Closes the input and waits for a clean exit; returns standard error and every byte the
    /// server wrote on its output.
    fn finish(mut self) -> (String, Vec<u8>) {
        drop(self.stdin);
        loop {
            match self.out.recv_timeout(RAW_WAIT) {
                Ok(l) => self.raw.extend_from_slice(&l),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("the server kept its output open after its input closed")
                }
            }
        }
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(
            status.code(),
            Some(0),
            "the server ended with {status}: {err}"
        );
        (err, self.raw)
    }
}

#[test]
fn bad_json_rpc_gets_json_rpc_errors_and_never_ends_the_server() {
    let mut s = Raw::start("fixture");
    // Before any request: a notification and a response would end a stricter handshake.
    s.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.send(br#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    s.send(b"this is not json");
    let e = s.recv();
    assert_eq!(e["error"]["code"], -32700, "{e}");
    assert_eq!(e["id"], Value::Null);
    s.send(b"");
    s.initialize();
    s.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":");
    assert_eq!(s.recv()["error"]["code"], -32700);
    s.send(b"\xff\xfe not utf-8");
    assert_eq!(s.recv()["error"]["code"], -32700);
    s.send(br#"{"id": 3}"#);
    assert_eq!(s.recv()["error"]["code"], -32600);
    s.send(br#"[1, 2, 3]"#);
    assert_eq!(s.recv()["error"]["code"], -32600);
    let r = s.request(4, "no/such/method", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let r = s.request(
        5,
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.request(6, "tools/call", json!({"name": "find", "arguments": 5}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = s.request(
        7,
        "tools/call",
        json!({"name": "find", "arguments": {"target": [1]}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    // A line over the cap is refused without being held, and the next one is served.
    let huge = vec![b'x'; treeglass::mcp::stdio::MAX_MESSAGE_BYTES + 1];
    s.send(&huge);
    let e = s.recv();
    assert_eq!(e["error"]["code"], -32600, "{e}");
    let r = s.request(
        8,
        "tools/call",
        json!({"name": "list_apps", "arguments": {}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["apps"][0]["name"],
        "treeglass-demo"
    );
    let (err, _) = s.finish();
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn hostile_app_strings_never_reach_the_stream_raw() {
    let h = |tag: &str| {
        format!(
            "{tag}\x1b]52;c;SGFja2Vk\x07\x1b[2J\u{9b}31m\x7f\u{202e}rev\u{2066}\u{ad}\u{200b}\
             \u{2028}\u{e0041}\r\nINJECTED {tag}"
        )
    };
    let doc = json!({"apps": [{
        "name": "hostile", "toolkit": h("toolkit"),
        "windows": [{
            "role": "frame", "name": h("win"),
            "children": [
                {"role": "text", "name": h("field"), "description": h("desc"),
                 "value": {"kind": "text", "text": h("value")}},
                {"role": "button", "name": h("twin"), "actions": ["click"]},
                {"role": "button", "name": h("twin"), "actions": ["click"]}
            ]
        }]
    }]});
    let path = std::env::temp_dir().join(format!("tg-mcp-hostile-{}.json", std::process::id()));
    std::fs::write(&path, doc.to_string()).unwrap();
    let mut s = Raw::start(&format!("fixture:{}", path.display()));
    s.initialize();
    let calls = [
        ("list_apps", json!({})),
        ("get_window_state", json!({"app": "hostile"})),
        (
            "find",
            json!({"target": "button", "app": "hostile", "wait_ms": 20}),
        ),
        (
            "set_value",
            json!({"target": "text", "value": "plain", "app": "hostile"}),
        ),
        (
            "invoke",
            json!({"target": "button", "app": "hostile", "wait_ms": 20}),
        ),
    ];
    for (i, (tool, args)) in calls.iter().enumerate() {
        let r = s.request(
            10 + i as u64,
            "tools/call",
            json!({"name": tool, "arguments": args}),
        );
        assert!(r["result"].is_object(), "{tool}: {r}");
        // The data is intact once decoded; only its encoding on the wire is escaped.
        if *tool == "get_window_state" {
            let root = &r["result"]["structuredContent"]["root"];
            assert_eq!(root["name"], h("win"));
        }
    }
    let (err, raw) = s.finish();
    let _ = std::fs::remove_file(&path);
    let wire = String::from_utf8(raw).unwrap();
    // Not vacuous: the hostile strings went out (escaped).
    assert!(wire.contains("INJECTED win"), "{wire}");
    for (stream, text) in [("stdout", wire.as_str()), ("stderr", err.as_str())] {
        for (i, c) in text.char_indices() {
            assert!(
                c == '\n' || !is_hostile(c),
                "raw U+{:04X} on {stream} at byte {i}",
                c as u32
            );
        }
    }
}

#[test]
fn the_server_exits_when_the_client_closes_before_saying_anything() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "fixture", "mcp"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the server did not exit")
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// A JSON-RPC error response with `code` whose `id` member is present and equal to `id`.
fn assert_rpc_error(v: &Value, code: i64, id: Value) {
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].is_string(), "{v}");
    // Indexing a missing member gives Null too: the member itself must be there.
    assert_eq!(v.get("id"), Some(&id), "the id member of {v}");
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
}

#[test]
fn invalid_requests_and_parse_errors_carry_the_id_or_null() {
    let mut s = Raw::start("fixture");
    // Before the first request, as after it.
    s.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
    assert_rpc_error(&s.recv(), -32700, Value::Null);
    s.send(br#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#);
    assert_rpc_error(&s.recv(), -32600, Value::Null);
    s.initialize();
    for line in [
        &b"this is not json"[..],
        b"\xff\xfe not utf-8",
        b"{\"id\": 3,",
    ] {
        s.send(line);
        assert_rpc_error(&s.recv(), -32700, Value::Null);
    }
    // JSON-RPC 2.0's own examples, and ids that are not a string or an integer.
    for line in [
        r#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#,
        r#"{"foo":"boo"}"#,
        r#"[1, 2, 3]"#,
        r#"[]"#,
        r#"5"#,
        r#"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":[1],"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
        r#"[{"jsonrpc":"2.0","id":9,"method":"ping"}]"#,
    ] {
        s.send(line.as_bytes());
        let e = s.recv();
        assert_rpc_error(&e, -32600, Value::Null);
        assert!(
            !e["error"]["message"].as_str().unwrap().is_empty(),
            "{line}"
        );
    }
    // An invalid request whose id can be read is answered with that id.
    for (line, id) in [
        (
            r#"{"jsonrpc":"1.0","id":13,"method":"tools/list"}"#,
            json!(13),
        ),
        (r#"{"id":"abc","method":"tools/list"}"#, json!("abc")),
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/list","params":5}"#,
            json!(14),
        ),
        (r#"{"jsonrpc":"2.0","id":15}"#, json!(15)),
        (r#"{"jsonrpc":"2.0","id":16,"method":7}"#, json!(16)),
    ] {
        s.send(line.as_bytes());
        assert_rpc_error(&s.recv(), -32600, id);
    }
    // A notification or a response that cannot be read is not answered (nobody waits for
    // it): the next line out is the answer to the next request.
    s.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized","params":5}"#);
    s.send(br#"{"jsonrpc":"2.0","id":77,"result":5}"#);
    s.send(br#"{"jsonrpc":"2.0","id":20,"method":"ping"}"#);
    let pong = s.recv();
    assert_eq!(pong["id"], 20, "{pong}");
    assert!(pong["result"].is_object(), "{pong}");
    // Over the cap.
    s.send(&vec![b' '; treeglass::mcp::stdio::MAX_MESSAGE_BYTES + 1]);
    assert_rpc_error(&s.recv(), -32600, Value::Null);
    let r = s.request(21, "tools/list", json!({}));
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), TOOLS.len());
    let (err, _) = s.finish();
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_malformed_tool_call_is_invalid_params_and_an_unknown_method_is_not_found() {
    let mut s = Raw::start("fixture");
    s.initialize();
    let mut id = 100;
    let mut call = |s: &mut Raw, params: Option<Value>| {
        id += 1;
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"});
        if let Some(p) = params {
            msg["params"] = p;
        }
        s.send(msg.to_string().as_bytes());
        let r = s.recv();
        (r, id)
    };
    for params in [
        None,
        Some(json!({})),
        Some(json!({"arguments": {}})),
        Some(json!({"name": 5, "arguments": {}})),
        Some(json!({"name": null})),
        Some(json!({"name": "find", "arguments": 5})),
        Some(json!({"name": "find", "arguments": "target"})),
        Some(json!({"name": "find", "arguments": ["button"]})),
        Some(json!({"name": "list_apps", "arguments": true})),
        // The MCP specification's example: an unknown tool is invalid params.
        Some(json!({"name": "no_such_tool", "arguments": {}})),
        Some(json!({"name": "", "arguments": {}})),
    ] {
        let (r, id) = call(&mut s, params.clone());
        assert_rpc_error(&r, -32602, json!(id));
        let msg = r["error"]["message"].as_str().unwrap().to_string();
        assert!(
            !msg.contains("tools/call\"") && msg != "tools/call",
            "{params:?}: {r}"
        );
    }
    // Which part is wrong is said.
    let (r, _) = call(&mut s, Some(json!({"arguments": {}})));
    assert!(
        r["error"]["message"].as_str().unwrap().contains("name"),
        "{r}"
    );
    let (r, _) = call(&mut s, Some(json!({"name": "find", "arguments": 5})));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("arguments"),
        "{r}"
    );
    // Params in the wrong shape elsewhere in a request this server answers.
    let r = s.request(
        200,
        "tools/call",
        json!({"name": "list_apps", "arguments": {}, "_meta": 5}),
    );
    assert_rpc_error(&r, -32602, json!(200));
    let r = s.request(201, "ping", json!({"_meta": 5}));
    assert_rpc_error(&r, -32602, json!(201));
    // A method the server does not have stays -32601, with its params right or wrong.
    let r = s.request(202, "no/such/method", json!({}));
    assert_rpc_error(&r, -32601, json!(202));
    let r = s.request(203, "resources/list", json!({"cursor": 5}));
    assert_rpc_error(&r, -32601, json!(203));
    // Null arguments are no arguments; arguments the tool refuses are its own error.
    let r = s.request(
        204,
        "tools/call",
        json!({"name": "list_apps", "arguments": null}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    let r = s.request(
        205,
        "tools/call",
        json!({"name": "find", "arguments": {"target": [1]}}),
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["error"]["kind"],
        "bad_arguments"
    );
    let (err, _) = s.finish();
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_token_from_another_process_says_how_to_get_a_fresh_one() {
    let mut s = Raw::start("fixture");
    s.initialize();
    // A token of the right form this server never issued (another server's, a TUI's).
    for (i, (tool, args)) in [
        (
            "set_value",
            json!({"element_token": "sdeadbeef:1", "value": "x"}),
        ),
        ("invoke", json!({"element_token": "sdeadbeef:1"})),
    ]
    .into_iter()
    .enumerate()
    {
        let r = s.request(
            300 + i as u64,
            "tools/call",
            json!({"name": tool, "arguments": args}),
        );
        let res = &r["result"];
        assert_eq!(res["isError"], true, "{r}");
        let e = &res["structuredContent"]["error"];
        assert_eq!(e["kind"], "unknown_token", "{r}");
        assert_eq!(e["exit_code"], 5, "{r}");
        assert_eq!(res["structuredContent"]["dispatched"], false, "{r}");
        let msg = e["message"].as_str().unwrap();
        for said in ["sdeadbeef:1", "server", "get_window_state", "find"] {
            assert!(msg.contains(said), "{tool}: {msg:?} lacks {said:?}");
        }
        for wrong in ["TUI session", "workflow run"] {
            assert!(!msg.contains(wrong), "{tool}: {msg:?}");
        }
        let text = res["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("get_window_state"), "{tool}: {text:?}");
    }
    s.finish();
}

/// The formats JSON Schema draft 2020-12 defines (Validation, section 7.3).
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Every schema object inside `schema` (itself included), with its JSON pointer.
fn subschemas<'a>(schema: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>) {
    match schema {
        Value::Object(o) => {
            out.push((at.clone(), schema));
            for (k, v) in o {
                // A default, const, enum or examples value is data, not a schema.
                if ["default", "const", "enum", "examples"].contains(&k.as_str()) {
                    continue;
                }
                let here = format!("{at}/{k}");
                match v {
                    Value::Object(_) if k == "properties" || k == "$defs" => {
                        for (name, s) in v.as_object().unwrap() {
                            subschemas(s, format!("{here}/{name}"), out);
                        }
                    }
                    Value::Object(_) => subschemas(v, here, out),
                    Value::Array(items) => {
                        for (i, s) in items.iter().enumerate() {
                            subschemas(s, format!("{here}/{i}"), out);
                        }
                    }
                    _ => {}
                }
            }
        }
        Value::Array(items) => {
            for (i, s) in items.iter().enumerate() {
                subschemas(s, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The problems of one tool schema under draft 2020-12, checked strictly: the meta-schema, a
/// validator that refuses unknown formats, only the standard formats, and every `default`
/// valid against the schema that declares it.
fn strict_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        problems.push(format!("not a draft 2020-12 schema: {e}"));
    }
    if let Err(e) = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false)
        .build(schema)
    {
        problems.push(format!("refused by a strict validator: {e}"));
    }
    let mut all = Vec::new();
    subschemas(schema, String::new(), &mut all);
    for (at, sub) in all {
        if let Some(f) = sub.get("format")
            && !f.as_str().is_some_and(|f| STANDARD_FORMATS.contains(&f))
        {
            problems.push(format!("{at}: format {f} is not a JSON Schema format"));
        }
        if let Some(d) = sub.get("default") {
            // The declaring schema, with the root's definitions for any $ref in it.
            let mut own = sub.clone();
            if let Some(defs) = schema.get("$defs") {
                own["$defs"] = defs.clone();
            }
            match jsonschema::draft202012::new(&own) {
                Ok(v) => {
                    if let Err(e) = v.validate(d) {
                        problems.push(format!("{at}: default {d} is not valid here: {e}"));
                    }
                }
                Err(e) => problems.push(format!("{at}: not a schema: {e}")),
            }
        }
    }
    problems
}

#[test]
fn tools_list_is_strict_json_schema_2020_12() {
    // Not vacuous: the check catches what the MCP Inspector's strict mode caught.
    let bad = json!({
        "type": "object",
        "properties": {
            "pid": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
            "target": {"default": null, "oneOf": [{"type": "string"}, {"type": "object"}]}
        }
    });
    let found = strict_problems(&bad);
    assert!(found.iter().any(|p| p.contains("uint32")), "{found:?}");
    assert!(
        found
            .iter()
            .any(|p| p.contains("/properties/target: default")),
        "{found:?}"
    );
    let good = json!({"type": "object", "properties": {
        "n": {"type": "integer", "default": 3, "minimum": 0},
        "re": {"type": ["string", "null"], "format": "regex", "default": null}
    }});
    assert_eq!(strict_problems(&good), Vec::<String>::new());

    let mut s = Raw::start("fixture");
    s.initialize();
    let r = s.request(2, "tools/list", json!({}));
    let tools = r["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), TOOLS.len());
    let mut problems = Vec::new();
    for t in tools {
        let name = t["name"].as_str().unwrap();
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = t.get(key) {
                for p in strict_problems(schema) {
                    problems.push(format!("{name} {key}: {p}"));
                }
            }
        }
        assert!(t.get("inputSchema").is_some(), "{name}");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Unsigned integers keep their lower bound without a format.
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap();
    let props = |n: &str| by_name(n)["inputSchema"]["properties"].clone();
    for (tool, prop) in [
        ("get_window_state", "pid"),
        ("get_window_state", "max_nodes"),
        ("find", "wait_ms"),
        ("set_value", "timeout_ms"),
        ("invoke", "wait_ms"),
    ] {
        let p = &props(tool)[prop];
        assert_eq!(p["minimum"], 0, "{tool}.{prop}: {p}");
        assert!(
            p["type"].to_string().contains("integer"),
            "{tool}.{prop}: {p}"
        );
    }
    // What a strict client may send for an optional field (its declared default) is what the
    // server takes. An explicit null, which no schema advertises (one type per schema: an
    // optional field's absence is its default), is taken as absent; an unknown field is not.
    for (tool, args, schema_valid, taken) in [
        (
            "find",
            json!({"target": "button \"Save\"", "wait_ms": 0}),
            true,
            true,
        ),
        (
            "find",
            json!({"target": "button \"Save\"", "app": null, "pid": null, "wait_ms": 0}),
            false,
            true,
        ),
        (
            "set_value",
            json!({"element_token": "sdeadbeef:1", "value": "x"}),
            true,
            true,
        ),
        (
            "set_value",
            json!({"target": null, "element_token": "sdeadbeef:1", "value": "x"}),
            false,
            true,
        ),
        (
            "workflow_validate",
            json!({"workflow": {"schemaVersion": 1, "name": "x"}}),
            true,
            true,
        ),
        (
            "workflow_validate",
            json!({"workflow": null, "path": null, "x": 1}),
            false,
            false,
        ),
    ] {
        let schema = &by_name(tool)["inputSchema"];
        let valid = jsonschema::draft202012::is_valid(schema, &args);
        assert_eq!(valid, schema_valid, "{tool} {args}: {schema}");
        let r = s.request(3, "tools/call", json!({"name": tool, "arguments": args}));
        let kind = &r["result"]["structuredContent"]["error"]["kind"];
        assert_eq!(
            *kind != "bad_arguments",
            taken,
            "{tool} {args}: the schema says valid={valid}, the server: {r}"
        );
    }
    s.finish();
}

#[test]
fn a_cut_answer_pages_on_with_its_cursor_and_only_in_the_form_it_was_asked() {
    let mut c = fixture();
    let first = c.ok("get_window_state", json!({"budget_bytes": 4000}));
    assert_eq!(
        first["complete"], false,
        "the demo window fits in 4 KB: {first}"
    );
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    assert!(first["more"].as_str().unwrap().contains(&cursor));

    // Another form from the same cursor would skip or repeat lines: refused, nothing lost.
    for other in [
        json!({"cursor": cursor, "interactive_only": true}),
        json!({"cursor": cursor, "showing_only": true}),
        json!({"cursor": cursor, "raw": true}),
        json!({"cursor": cursor, "query": "button"}),
    ] {
        let r = c.call("get_window_state", other.clone());
        let e = error_of(&r);
        assert_eq!(e["kind"], "bad_arguments", "{other}: {e}");
        assert!(
            e["message"].as_str().unwrap().contains("another form"),
            "{e}"
        );
    }
    for bad in ["s00000001", "nonsense", "s00000001+3"] {
        let r = c.call("get_window_state", json!({"cursor": bad}));
        assert_eq!(error_of(&r)["kind"], "bad_arguments", "{bad}: {r}");
    }

    // The same form pages on to the end, every line once.
    let mut rows = std::collections::HashSet::new();
    let mut collect = |v: &Value| {
        let mut stack: Vec<&Value> = match v["root"].is_object() {
            true => vec![&v["root"]],
            false => v["roots"].as_array().unwrap().iter().collect(),
        };
        while let Some(n) = stack.pop() {
            assert!(rows.insert(n["row"].as_u64().unwrap()), "{n} twice");
            stack.extend(n["children"].as_array().unwrap().iter());
        }
    };
    collect(&first);
    let mut next = Some(cursor.clone());
    while let Some(at) = next {
        let v = c.ok(
            "get_window_state",
            json!({"cursor": at, "budget_bytes": 4000}),
        );
        collect(&v);
        next = v["next_cursor"].as_str().map(str::to_string);
    }
    assert_eq!(rows.len() as u64, first["selected"].as_u64().unwrap());

    // A newer read of the window makes the cursor stale, as it does its tokens.
    c.ok("get_window_state", json!({}));
    let r = c.call("get_window_state", json!({"cursor": cursor}));
    let e = error_of(&r);
    assert_eq!(e["kind"], "stale_cursor", "{e}");
    assert_eq!(e["exit_code"], 5, "{e}");
    assert!(e["message"].as_str().unwrap().contains("read again"), "{e}");
}

/// On a desktop of several apps, a cursor or a root token names its app: the agent pages on
/// and reads subtrees with it alone, as the answer's `more` says.
#[test]
fn a_cursor_or_a_root_token_needs_no_app_on_a_desktop_of_many() {
    let dir = std::env::temp_dir().join(format!("tg-mcp-two-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let window = |app: &str| {
        let buttons: Vec<Value> = (0..80)
            .map(|i| json!({"role": "button", "name": format!("{app} button {i}")}))
            .collect();
        json!({"name": app, "pid": if app == "one" { 101 } else { 102 }, "windows": [
            {"role": "frame", "name": format!("{app} window"), "children": [
                {"role": "panel", "name": "Buttons", "children": buttons}
            ]}
        ]})
    };
    let path = dir.join("two.json");
    std::fs::write(
        &path,
        json!({"apps": [window("one"), window("two")]}).to_string(),
    )
    .unwrap();
    let spec = format!("fixture:{}", path.display());
    let mut c = McpClient::start("two-apps", &["--backend", &spec]);

    let r = c.call("get_window_state", json!({}));
    assert_eq!(
        error_of(&r)["kind"],
        "bad_arguments",
        "two apps, none named: {r}"
    );
    let first = c.ok(
        "get_window_state",
        json!({"app": "^two$", "budget_bytes": 4000}),
    );
    assert_eq!(first["complete"], false, "{first}");
    let cursor = first["next_cursor"].as_str().unwrap();
    let page = c.ok(
        "get_window_state",
        json!({"cursor": cursor, "budget_bytes": 4000}),
    );
    assert_eq!(page["app"], "two", "{page}");
    let panel = find_node(&first["root"], &|n| n["name"] == "Buttons").unwrap();
    let sub = c.ok(
        "get_window_state",
        json!({"root": panel["token"], "interactive_only": true, "budget_bytes": 1_000_000}),
    );
    assert_eq!(sub["app"], "two", "{sub}");
    assert_eq!(sub["window"], "two window", "{sub}");
    assert_eq!(sub["elements"].as_array().unwrap().len(), 80, "{sub}");
    // A subtree's pages name the window it sits in, the cursor alone given.
    let sub = c.ok(
        "get_window_state",
        json!({"root": panel["token"], "budget_bytes": 4000}),
    );
    assert_eq!(sub["complete"], false, "{sub}");
    let page = c.ok(
        "get_window_state",
        json!({"cursor": sub["next_cursor"], "budget_bytes": 4000}),
    );
    assert_eq!(page["window"], "two window", "{page}");
    assert_eq!(page["app"], "two", "{page}");
    c.close();
    let _ = std::fs::remove_dir_all(&dir);
}
