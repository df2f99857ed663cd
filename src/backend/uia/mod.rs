//! Windows UI Automation backend. The mapping ([`map`]) and trace replay ([`trace`]) are pure
//! and compiled everywhere, so they are tested on Linux. The IO (`UiaBackend`, Windows only;
//! implemented but not yet verified on Windows) reads trees with one cache request, drains UIA
//! events and writes through patterns, all on one dedicated MTA thread that owns every COM
//! object.

pub mod calls;
pub mod doctor;
pub mod hresult;
pub mod map;
pub mod read;
pub mod trace;

#[cfg(windows)]
mod io;
#[cfg(windows)]
pub use io::{StartError, UiaBackend};
#[cfg(windows)]
mod probe;
#[cfg(windows)]
pub use probe::diagnose;
