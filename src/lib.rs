//! treeglass: an inspector for desktop accessibility trees with verified writes.
//!
//! Layers point one way, from the front ends (`cli`, `tui`, `mcp`) through `app`, `workflow`,
//! `write` and `session`, `backend` and `audit` down to `model`; ARCHITECTURE.md draws them
//! with their exceptions.

pub mod app;
pub mod audit;
pub mod backend;
pub mod cli;
pub(crate) mod clipboard;
pub mod desktop;
pub(crate) mod diff;
pub mod doctor;
pub(crate) mod files;
pub(crate) mod fold;
pub(crate) mod json;
pub(crate) mod junit;
#[cfg(test)]
mod layers;
pub(crate) mod log;
pub mod mcp;
pub mod model;
#[cfg(test)]
mod neutral;
pub mod selector;
pub mod session;
/// `treeglass session`'s private accessibility stack (Linux: D-Bus, Xvfb or sway, AT-SPI).
#[cfg(target_os = "linux")]
pub(crate) mod stack;
pub mod tui;
pub mod workflow;
pub mod write;
