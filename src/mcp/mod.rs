//! `treeglass mcp`: the third front end. A Model Context Protocol server over stdio (the official
//! Rust SDK, `rmcp`) on the same backend layer, session (snapshots, tokens that go stale when a
//! newer read of their window supersedes them), write engine, recorder and workflow runner as
//! the TUI and the command line, answering in the command line's `--json` shapes and exit-code
//! taxonomy.
//!
//! | module | owns |
//! |---|---|
//! | `tools` | the catalogue: names, descriptions, annotations, input structs and their schemas |
//! | `outputs` | every tool's output schema: its document's fields, and the error it may carry |
//! | `server` | the server's state and the dispatch of a call to its tool |
//! | `link` | the backend: connected when a call needs it, again after a failed attempt |
//! | `reply` | results (`structuredContent` + text) and tool-level errors (`kind`, `exit_code`) |
//! | `element` | token or target → one element of a snapshot the session holds |
//! | `read` | `list_apps`, `get_window_state`, `find` |
//! | `write` | `set_value`, `invoke` |
//! | `workflow` | the recorder's start and stop, validation, runs |
//! | `system` | the clipboard and the doctor |
//! | `stdio` | the transport around the SDK: input checks, escaped output |

pub mod element;
pub mod link;
pub mod outputs;
pub mod read;
pub mod reply;
pub mod server;
pub mod stdio;
pub mod system;
pub mod tools;
pub mod workflow;
pub mod write;

use std::sync::Arc;

pub use link::Link;
pub use server::{Doctor, Server, State};

use crate::app::Error;
use crate::backend::pick;

/// Serves MCP on standard input and output until the client closes its end, on the backend
/// `spec` (`--backend`) names, by default the platform's own. The server answers at once; the
/// backend is connected in the background and again by a later call while it cannot start
/// ([`Link`]). It never stands in the demo app for the desktop: an agent would act on an app
/// that is not there.
pub async fn serve(spec: Option<String>) -> Result<(), Error> {
    let named = spec.clone();
    let connect: link::Connect = Arc::new(move || {
        let spec = named.clone();
        Box::pin(async move {
            match spec.as_deref() {
                Some(s) => pick::named(s).await.map_err(Error::from),
                // No accessibility at all here: the error the platform's backend gives, in
                // the words the command line prints (`--backend atspi apps`), never the demo.
                None => match pick::platform().await.map_err(Error::from)? {
                    pick::Platform::Backend(b) => Ok(b),
                    pick::Platform::None { why, .. } => {
                        Err(Error::new(crate::app::Kind::BusUnavailable, why))
                    }
                },
            }
        })
    });
    let doctor: Doctor = Arc::new(move || {
        let spec = spec.clone();
        Box::pin(async move { pick::doctor(spec.as_deref()).await })
    });
    let server = Server::new(State::new(Link::new(connect), doctor));
    // The first attempt starts now, so the backend (and the events apps send it) is up before
    // the first call that needs it.
    let state = server.state().clone();
    tokio::spawn(async move {
        let _ = state.link.session().await;
    });
    stdio::run(server, tokio::io::stdin(), tokio::io::stdout()).await
}
