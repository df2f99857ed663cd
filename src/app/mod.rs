//! The application layer: the use cases every front end shares — the command line, the TUI
//! and MCP call them and only say what they return; the workflow runner, the run use case's
//! engine, writes through `write` too. Each returns a typed result or an [`Error`] of one
//! [`Kind`], from which the command line derives its exit code and MCP its error kind.
//!
//! | module | use case |
//! |---|---|
//! | `error` | [`Kind`] (with the exit-code table and MCP's names) and [`Error`] |
//! | `answer` | [`Answer`]: how a use case ended, its text and its JSON, which the front ends display |
//! | `scope` | which app and window: `--app`/`--pid`/`--window` matched, the app named in errors |
//! | `locate` | a target parsed and resolved fresh, or a token checked: one element, or why not |
//! | `write` | set and invoke: placed, sent, judged, token and target attached, recorded, landed |
//! | `record` | a write as a workflow step, into a running recorder or a recording file |
//! | `run` | a workflow validated, its inputs checked, replayed step by step in the scope's window |
//! | `audit` | the accessibility rules on a window read now |
//! | `state` | what of a snapshot an answer shows (tree, on screen, actionable, matches, depth), and its pages under a size budget |
//! | `output` | the text and JSON forms of what they return |

pub mod answer;
pub mod audit;
pub mod error;
pub mod locate;
pub mod output;
pub mod record;
pub mod run;
pub mod scope;
pub mod state;
pub mod write;

pub use answer::Answer;
pub use error::{Error, Kind};
pub use locate::{Element, Located, Missed, Unresolved};
pub use scope::{Scope, pick};
pub use write::Act;
