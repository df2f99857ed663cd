//! treeglass: an inspector for desktop accessibility trees with verified writes.
//!
//! Layers point one way, from the front ends (`cli`, `tui`, `mcp`) through `app`, `workflow`,
//! `write` and `session`, `backend` and `audit` down to `model`; ARCHITECTURE.md draws them
//! with their exceptions.

pub mod app;
pub mod audit;
pub mod backend;
pub mod cli;
pub mod clipboard;
pub mod diff;
pub mod doctor;
pub mod files;
pub mod fold;
pub mod json;
pub mod junit;
pub mod log;
pub mod mcp;
pub mod model;
#[cfg(test)]
mod neutral;
pub mod selector;
pub mod session;
/// `treeglass session`'s private accessibility stack (Linux: D-Bus, Xvfb or sway, AT-SPI).
#[cfg(target_os = "linux")]
pub mod stack;
pub mod tui;
pub mod workflow;
pub mod write;
