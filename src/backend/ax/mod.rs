//! macOS Accessibility (AX) backend. The mapping ([`map`]) and trace replay ([`trace`]) are pure
//! and compiled everywhere, so they are tested on Linux. The IO (`AxBackend`, macOS only;
//! implemented but not yet verified on macOS) reads trees attribute by attribute, polls for
//! changes and writes through `AXValue` and actions, all on one dedicated thread that owns every
//! `AXUIElement`.

pub mod calls;
pub mod doctor;
pub mod map;
pub mod trace;

#[cfg(target_os = "macos")]
mod io;
#[cfg(target_os = "macos")]
pub use io::AxBackend;
