//! treeglass: an inspector for desktop accessibility trees with verified writes.
//!
//! Layers point one way: `model ← target ← backend ← write ← workflow ← tui/cli`.

pub mod backend;
pub mod cli;
pub mod fold;
pub mod model;
pub mod session;
pub mod target;
pub mod write;
