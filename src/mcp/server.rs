//! The MCP server: what it says about itself, the tool list, and the dispatch of a call to its
//! tool. A call's arguments are read into the tool's input struct (a bad one is a tool-level
//! `bad_arguments` error the model can correct); an unknown tool, or a call without a tool name
//! or with arguments that are not an object, is a JSON-RPC invalid-params error; a tool that
//! panicked answers with an internal error and the server keeps serving.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

use super::link::Link;
use super::reply::{Fault, Reply};
use super::tools;
use crate::app::Kind;
use crate::doctor::Report;
use crate::workflow::record::Recorder;

/// Runs the diagnosis of the backend the server was started with (`cli::entry` knows which).
pub type Doctor = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Report> + Send>> + Send + Sync>;

/// What the server holds for its whole life: the backend and its session (snapshots and
/// tokens) once connected, the recorder while one runs, the clipboard it serves.
pub struct State {
    pub link: Link,
    recorder: Mutex<Option<Recorder>>,
    clipboard: Mutex<Option<crate::clipboard::Written>>,
    pub doctor: Doctor,
}

impl State {
    pub fn new(link: Link, doctor: Doctor) -> State {
        State {
            link,
            recorder: Mutex::new(None),
            clipboard: Mutex::new(None),
            doctor,
        }
    }

    /// The recorder (a panic elsewhere leaves it as it was: still usable).
    pub fn recorder(&self) -> MutexGuard<'_, Option<Recorder>> {
        self.recorder.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn clipboard(&self) -> MutexGuard<'_, Option<crate::clipboard::Written>> {
        self.clipboard.lock().unwrap_or_else(|e| e.into_inner())
    }
}

const INSTRUCTIONS: &str = "\
treeglass reads desktop accessibility trees and writes values with read-back verification.
Start with list_apps, then get_window_state (app/pid/window) for a window's tree: every node has
an element token (<snapshot>:<row>) and a suggested target. An answer holds at most budget_bytes
(100000 by default); a big window is cut breadth first and says what it left out and how to get
it: scope the read with root (a token or target), interactive_only, showing_only, query or
max_depth, or page on with cursor. To act on one element in a big window, find it by target.
Write with set_value or invoke, by element_token or by target (e.g. check-box \"Subscribe\" in
group \"Preferences\"). A target that names no single element on an app at rest is answered after
one read (ambiguous with candidates, or not found with near misses); give wait_ms to wait for an
element the app is about to show. A token is valid only while its snapshot is the newest read of its
window: any later read (get_window_state, find, a write by target) makes it stale, and the error
names the current snapshot. Verdicts: verified, already, secure (passwords; never echoed),
mismatch, refused (nothing sent: fix the input) and unconfirmed (terminal: read the tree again
before anything else; never write again blindly). Errors carry structuredContent.error {kind,
exit_code, message}; while the accessibility backend cannot start, tools that need it answer
bus_unavailable (doctor says why) and a later call connects once it can.";

/// The `treeglass mcp` server.
#[derive(Clone)]
pub struct Server {
    state: Arc<State>,
}

impl Server {
    pub fn new(state: State) -> Server {
        Server {
            state: Arc::new(state),
        }
    }

    pub fn state(&self) -> &Arc<State> {
        &self.state
    }
}

/// Reads a call's arguments into the tool's input struct.
fn args<T: DeserializeOwned>(tool: &str, raw: Option<rmcp::model::JsonObject>) -> Result<T, Fault> {
    serde_json::from_value(Json::Object(raw.unwrap_or_default())).map_err(|e| {
        Fault::usage(format!(
            "bad arguments for {tool}: {}",
            crate::model::sanitize(&e.to_string(), 400)
        ))
    })
}

/// Runs one tool call. A tool that reads or writes an app needs the backend: its arguments
/// are read first (a bad one is the model's to correct, whatever the backend's state), then
/// the session is had from the [`Link`] (an error while the backend cannot start).
pub async fn call(state: Arc<State>, tool: &str, raw: Option<rmcp::model::JsonObject>) -> Reply {
    let s = state.as_ref();
    let result = match tool {
        "list_apps" => match args::<tools::NoArgs>(tool, raw) {
            Ok(_) => match s.link.session().await {
                Ok(session) => super::read::list_apps(&session).await,
                Err(f) => Err(f),
            },
            Err(f) => Err(f),
        },
        "get_window_state" => match args(tool, raw) {
            Ok(a) => match s.link.session().await {
                Ok(session) => super::read::window_state(&session, &a).await,
                Err(f) => Err(f),
            },
            Err(f) => Err(f),
        },
        "find" => match args(tool, raw) {
            Ok(a) => match s.link.session().await {
                Ok(session) => super::read::find(&session, &a).await,
                Err(f) => Err(f),
            },
            Err(f) => Err(f),
        },
        "set_value" => match args(tool, raw) {
            Ok(a) => super::write::set_value(s, &a).await,
            Err(f) => Err(f),
        },
        "invoke" => match args(tool, raw) {
            Ok(a) => super::write::invoke(s, &a).await,
            Err(f) => Err(f),
        },
        "clipboard_read" => match args(tool, raw) {
            Ok(a) => super::system::clipboard_read(&a).await,
            Err(f) => Err(f),
        },
        "clipboard_write" => match args(tool, raw) {
            Ok(a) => super::system::clipboard_write(s, &a).await,
            Err(f) => Err(f),
        },
        "workflow_record_start" => {
            args(tool, raw).and_then(|a| super::workflow::record_start(s, &a))
        }
        "workflow_record_stop" => args(tool, raw).and_then(|a| super::workflow::record_stop(s, &a)),
        "workflow_validate" => args(tool, raw).and_then(|a| super::workflow::validate(&a)),
        "workflow_run" => match args(tool, raw) {
            Ok(a) => super::workflow::run(s, &a).await,
            Err(f) => Err(f),
        },
        "audit" => match args(tool, raw) {
            Ok(a) => match s.link.session().await {
                Ok(session) => super::read::audit(&session, &a).await,
                Err(f) => Err(f),
            },
            Err(f) => Err(f),
        },
        "doctor" => match args::<tools::NoArgs>(tool, raw) {
            Ok(_) => super::system::doctor(s).await,
            Err(f) => Err(f),
        },
        other => Err(Fault::usage(format!(
            "unknown tool {}",
            crate::model::quoted(other, 80)
        ))),
    };
    result.unwrap_or_else(Reply::from)
}

fn is_tool(name: &str) -> bool {
    tools::all().iter().any(|t| t.name == name)
}

/// The methods this server answers.
const METHODS: [&str; 4] = ["initialize", "ping", "tools/list", "tools/call"];

/// Why the params of a request for one of [`METHODS`] could not be read (`None` for another
/// method): for `tools/call`, the part that is wrong.
pub fn params_fault(method: &str, params: Option<&Json>) -> Option<String> {
    match method {
        "tools/call" => Some(call_params_fault(params)),
        m if METHODS.contains(&m) => Some(format!("Invalid params for {m}")),
        _ => None,
    }
}

/// Which part of a `tools/call`'s params is wrong, in the words of the MCP schema.
fn call_params_fault(params: Option<&Json>) -> String {
    let Some(Json::Object(p)) = params else {
        return "Invalid params: tools/call needs params {\"name\": a tool's name, \
                \"arguments\": an object}"
            .into();
    };
    if !p.get("name").is_some_and(Json::is_string) {
        return "Invalid params: tools/call needs params.name, a tool's name (a string)".into();
    }
    if p.get("arguments")
        .is_some_and(|a| !a.is_object() && !a.is_null())
    {
        return "Invalid params: tools/call's params.arguments must be an object (the tool's \
                input)"
            .into();
    }
    match serde_json::from_value::<CallToolRequestParams>(Json::Object(p.clone())) {
        Err(e) => format!(
            "Invalid params for tools/call: {}",
            crate::model::sanitize(&e.to_string(), 200)
        ),
        Ok(_) => "Invalid params for tools/call".into(),
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("treeglass", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::all()))
    }

    /// The SDK hands over as a custom request a request whose method it knows but whose params
    /// it could not read: for a method this server answers, that is invalid params (-32602),
    /// not an unknown method.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match params_fault(&request.method, request.params.as_ref()) {
            Some(why) => Err(ErrorData::invalid_params(why, None)),
            None => Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "Method not found: {}",
                    crate::model::quoted(&request.method, 80)
                ),
                None,
            )),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        // An unknown tool is a request that cannot be routed: a JSON-RPC error (MCP: -32602).
        if !is_tool(&name) {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {}", crate::model::quoted(&name, 80)),
                None,
            ));
        }
        let started = Instant::now();
        let state = self.state.clone();
        let tool = name.clone();
        // Its own task: a panic in a tool ends that call, never the server.
        let reply =
            match tokio::spawn(async move { call(state, &tool, request.arguments).await }).await {
                Ok(r) => r,
                Err(e) => {
                    tracing::error!(tool = %name, "tool call failed: {e}");
                    Reply::from(Fault::new(
                        Kind::Error,
                        format!("internal error in {name}; the server keeps serving"),
                    ))
                }
            };
        // Arguments are never logged: they may hold a secret. A verdict or a resolution's
        // outcome is a word of this server's (`verified`, `ambiguous`, …), never an app's.
        let outcome = reply
            .structured
            .get("outcome")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("-");
        tracing::info!(
            tool = %name,
            exit_code = reply.fault.as_ref().map_or(0, |f| f.kind.exit_code()),
            outcome,
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "mcp tool call"
        );
        Ok(reply.into_result().into())
    }
}
