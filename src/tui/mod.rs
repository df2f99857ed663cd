//! The interactive inspector: `app` (state and `update(Msg) -> Vec<Effect>`, pure, split by
//! concern over `control`, `nav`, `filter`, `findings`, `writes`, `live` and `highlight`),
//! `tree` (the tree pane's model), `pane` (each pane a unit: its state, keys, mouse and
//! drawing), `overlay` (each overlay a unit: its state, keys, drawing and help rows), `view`
//! (the screen and what the panes share), `keys` (the main view's keymap and its help), `exec` (effects against the backend), `runtime` (the terminal and
//! event loop), `frame` (the on-screen highlight) and `harness` (the same app and
//! effects, headless, for tests and benchmarks). The TUI never names a concrete backend: it
//! runs on any `Arc<dyn Backend>`.

pub mod app;
mod clip;
mod control;
pub mod exec;
pub mod filter;
pub mod findings;
pub mod harness;
pub mod highlight;
pub mod input;
pub mod keys;
pub mod layout;
mod live;
mod nav;
pub mod overlay;
pub mod pane;
pub mod record;
pub mod runtime;
pub mod tree;
pub mod view;
pub mod writes;

pub use app::{App, Effect, Msg};
pub use record::WorkflowRecorder;
pub use runtime::{Ended, Options, Recorder, TuiError, run};
pub use writes::CompletedWrite;

/// An application's string for the terminal, in double quotes: `\\` and `"` escaped, then
/// controls, bidi and invisible characters ([`crate::model::quoted`]), so the text `\x1b` never
/// passes for an escaped ESC.
pub fn quoted(s: &str, max_chars: usize) -> String {
    crate::model::quoted(s, max_chars)
}

/// A readable path from the window to `row`: `frame "Settings" > panel > text "Name"`.
pub fn path(snap: &crate::model::Snapshot, row: usize) -> String {
    snap.ancestry(row)
        .into_iter()
        .filter_map(|r| snap.nodes.get(r))
        .map(|n| {
            if n.name.is_empty() {
                n.role.as_str().to_string()
            } else {
                format!("{} {}", n.role, n.name.quoted(40))
            }
        })
        .collect::<Vec<_>>()
        .join(" > ")
}
