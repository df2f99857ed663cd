//! The toolkit matrix on the real bus (`tests/common/matrix.rs`): GTK 3 and 4, Qt 5 and 6,
//! Chromium and Firefox, the big page and LibreOffice, each started inside the private stack
//! and checked alive, registered and answering after every step. Run inside
//! `scripts/a11y-session`.
//!
//! The modules' tests run at once on threads: each takes the display shared or alone
//! (`common::turn`); the writes' keys and clicks, and the big page's browsers, run alone.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]

#[path = "../common/mod.rs"]
mod common;

mod audit_web;
mod big_page;
mod matrix_read;
mod matrix_write;
mod office;
