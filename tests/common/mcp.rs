//! Driving `treeglass mcp` with a client the project did not write: the MCP Python SDK in the
//! venv `scripts/install-deps` makes, through `tests/mcp_client.py`. The server's standard
//! output, standard error and `--log` file are kept, so a test can search everything it wrote.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The venv's Python (`TREEGLASS_MCP_PYTHON` overrides it).
pub fn python() -> PathBuf {
    let p = std::env::var_os("TREEGLASS_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("{}/.venv-mcp/bin/python", super::repo())));
    assert!(
        p.exists(),
        "{} is missing: run scripts/install-deps (it makes the venv with the MCP Python SDK); \
         refusing to skip",
        p.display()
    );
    p
}

/// A session with `treeglass mcp`, through the SDK.
pub struct McpClient {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    pub dir: PathBuf,
    /// The SDK's `initialize` result.
    pub initialize: Value,
}

impl McpClient {
    /// Starts `treeglass mcp` with `args` (e.g. `["--backend", "atspi"]`), logging at trace
    /// level into the session's directory.
    pub fn start(tag: &str, args: &[&str]) -> McpClient {
        McpClient::start_env(tag, args, &[])
    }

    /// [`McpClient::start`] with the environment changed: `(name, Some(value))` sets a
    /// variable, `(name, None)` removes it (for the client and the server it starts).
    pub fn start_env(tag: &str, args: &[&str], env: &[(&str, Option<&str>)]) -> McpClient {
        let dir = std::env::temp_dir().join(format!(
            "tg-mcp-{tag}-{}-{}",
            std::process::id(),
            super::next_id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        // The server's output passes through tee, so the test sees exactly what it wrote.
        let script = r#"exec 2>>"$TG_ERR"; "$TG" "$@" | tee -a "$TG_OUT""#;
        let mut cmd = Command::new(python());
        for (name, value) in env {
            match value {
                Some(v) => cmd.env(name, v),
                None => cmd.env_remove(name),
            };
        }
        let mut child = cmd
            .arg(format!("{}/tests/mcp_client.py", super::repo()))
            .arg("/bin/sh")
            .arg("-c")
            .arg(script)
            .arg("sh")
            .arg("mcp")
            .args(args)
            .arg("--log")
            .arg(dir.join("server.log"))
            .env("TG", env!("CARGO_BIN_EXE_treeglass"))
            .env("TG_OUT", dir.join("stdout"))
            .env("TG_ERR", dir.join("stderr"))
            .env("TREEGLASS_LOG_LEVEL", "trace")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the MCP client driver");
        let stdin = child.stdin.take().expect("stdin");
        let out = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut c = McpClient {
            child,
            stdin,
            lines: rx,
            dir,
            initialize: Value::Null,
        };
        let ready = c.read(Duration::from_secs(30));
        assert_eq!(ready["ready"], true, "the client did not start: {ready}");
        c.initialize = ready["initialize"].clone();
        c
    }

    fn read(&mut self, timeout: Duration) -> Value {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => serde_json::from_str(&l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")),
            Err(_) => panic!(
                "the MCP client said nothing within {timeout:?} (exit: {:?}); server stderr:\n{}",
                self.child.try_wait(),
                std::fs::read_to_string(self.dir.join("stderr")).unwrap_or_default()
            ),
        }
    }

    fn send(&mut self, cmd: Value) -> Value {
        writeln!(self.stdin, "{cmd}").expect("write to the MCP client");
        self.stdin.flush().expect("flush");
        self.read(Duration::from_secs(120))
    }

    /// `tools/list`: `{"tools": [...], "schema_errors": {...}}`.
    pub fn list_tools(&mut self) -> Value {
        self.send(json!({"op": "list_tools"}))
    }

    /// `tools/call`: `{"isError", "structuredContent", "text", "ms"}`, or `{"rpc_error"}`.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.send(json!({"op": "call", "name": name, "arguments": arguments}))
    }

    /// A call that must succeed; its structured content.
    pub fn ok(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.call(name, arguments.clone());
        assert_eq!(r["isError"], false, "{name} {arguments} failed: {}", r);
        r["structuredContent"].clone()
    }

    /// Everything the server wrote: standard output, standard error and its log.
    pub fn transcript(&self) -> String {
        ["stdout", "stderr", "server.log"]
            .iter()
            .map(|f| std::fs::read_to_string(self.dir.join(f)).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Ends the session and waits for the client (and with it the server) to exit.
    pub fn close(mut self) {
        let _ = self.send(json!({"op": "quit"}));
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "the MCP client ended with {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("the MCP client did not exit after quit");
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The MCP Inspector's command, installed by scripts/install-deps (pinned).
pub fn inspector() -> std::path::PathBuf {
    let p = std::path::PathBuf::from(format!(
        "{}/scripts/inspector/node_modules/.bin/mcp-inspector",
        super::repo()
    ));
    assert!(
        p.exists(),
        "{} is missing: run scripts/install-deps (it installs the MCP Inspector with npm); \
         refusing to skip",
        p.display()
    );
    p
}

/// A `find` answer given a `wait_ms` of `ms`: not answered at rest, the whole wait kept (the
/// window read more than once), and the text says so.
pub fn assert_waited_whole(r: &Value, ms: u64) {
    let doc = &r["structuredContent"];
    assert_eq!(doc["at_rest"], false, "{r}");
    assert!(doc["waited_ms"].as_u64().is_some_and(|w| w >= ms), "{r}");
    assert!(doc["reads"].as_u64().is_some_and(|n| n >= 2), "{r}");
    assert!(
        r["text"]
            .as_str()
            .is_some_and(|t| t.contains("waited the whole wait_ms")),
        "{r}"
    );
}

/// The first node (depth first) of a `get_window_state` tree that `pred` accepts.
pub fn find_node<'a>(root: &'a Value, pred: &dyn Fn(&Value) -> bool) -> Option<&'a Value> {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if pred(n) {
            return Some(n);
        }
        if let Some(kids) = n["children"].as_array() {
            stack.extend(kids.iter().rev());
        }
    }
    None
}

/// The token of the node named `name` in a `get_window_state` document.
pub fn token_named(state: &Value, name: &str) -> String {
    find_node(&state["root"], &|n| n["name"] == name)
        .and_then(|n| n["token"].as_str())
        .unwrap_or_else(|| panic!("no node named {name:?} in {state}"))
        .to_string()
}
