//! Turns on the one display for the tests of a binary, which run at once on threads: a test
//! that sends real keys or clicks, uses the clipboard, or needs the machine to itself takes
//! the display `alone` (nothing else of the binary runs meanwhile, as when each file was a
//! binary of its own); every other test takes it `shared`. Each test takes one of the two
//! first, and only one.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

static DISPLAY: RwLock<()> = RwLock::new(());

/// This test runs beside the binary's other shared tests, never beside one that is alone.
pub fn shared() -> RwLockReadGuard<'static, ()> {
    DISPLAY.read().unwrap_or_else(|e| e.into_inner())
}

/// Nothing else of this binary runs while the guard is held.
pub fn alone() -> RwLockWriteGuard<'static, ()> {
    DISPLAY.write().unwrap_or_else(|e| e.into_inner())
}
