//! The real AT-SPI bus on the X11 desktop that `scripts/a11y-session` starts: the project's own
//! apps (the GTK 3 fixture with its stdin oracle, the audit app) and the GTK widget factories,
//! read and written by every command, the inspector in tmux and MCP; each app checked alive,
//! registered and answering after every step.
//!
//! The modules' tests run at once on threads, and each takes the display (`common::turn`)
//! first. Alone, with nothing else of the binary running meanwhile, as when each file was a
//! binary of its own: what uses the clipboard, the highlight window and the click through it,
//! focus in a dialog, an app made to hang, `doctor` (which judges the whole desktop), and the
//! cache check (which any other client's event registration would spoil). Every other test
//! shares the display with the rest, as the tests of one file always did. The lying app lives
//! as long as its binary (`tests/liar.rs`), and every command that reads the desktop would
//! meet it: it stays a binary of its own.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]

#[path = "../common/mod.rs"]
mod common;
#[path = "../workflow_support/mod.rs"]
mod workflow_support;

mod atspi_cache;
mod atspi_clipboard;
mod atspi_find;
mod atspi_set;
mod atspi_targets;
mod atspi_tree;
mod audit;
mod ci_example;
mod diff;
mod doctor;
mod mcp_atspi;
mod not_responding;
mod tui_e2e;
mod workflow_atspi;
mod write_landed;
mod write_truth;
