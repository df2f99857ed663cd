//! `treeglass mcp`: the third front end. A Model Context Protocol server over stdio (the official
//! Rust SDK, `rmcp`) on the same backend layer, session (snapshots, tokens that go stale when a
//! newer read of their window supersedes them), write engine, recorder and workflow runner as
//! the TUI and the command line, answering in the command line's `--json` shapes and exit-code
//! taxonomy.
//!
//! | module | owns |
//! |---|---|
//! | `tools` | the catalogue: names, descriptions, annotations, input structs and their schemas |
//! | `server` | the server's state and the dispatch of a call to its tool |
//! | `reply` | results (`structuredContent` + text) and tool-level errors (`kind`, `exit_code`) |
//! | `element` | token or target → one element of a snapshot the session holds |
//! | `read` | `list_apps`, `get_window_state`, `find` |
//! | `write` | `set_value`, `invoke` |
//! | `workflow` | the recorder's start and stop, validation, runs |
//! | `system` | the clipboard and the doctor |
//! | `stdio` | the transport around the SDK: input checks, escaped output |

pub mod element;
pub mod read;
pub mod reply;
pub mod server;
pub mod stdio;
pub mod system;
pub mod tools;
pub mod workflow;
pub mod write;

use std::sync::Arc;

pub use server::{Doctor, Server, State};

use crate::app::Error;
use crate::backend::Backend;
use crate::session::Session;

/// Serves MCP on standard input and output until the client closes its end.
pub async fn serve(backend: Arc<dyn Backend>, doctor: Doctor) -> Result<(), Error> {
    let session = Arc::new(Session::new(backend));
    let server = Server::new(State::new(session, doctor));
    stdio::run(server, tokio::io::stdin(), tokio::io::stdout()).await
}
