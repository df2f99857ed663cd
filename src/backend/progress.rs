//! How far the tree read in progress has got, for a progress line: one-shot commands print it
//! on standard error when that is a terminal (`reading… 12,480 nodes`), the TUI shows it while
//! it waits for a window's tree. One counter for the process: backends set it as a read's
//! rounds come back; nothing else depends on it.

use std::sync::atomic::{AtomicUsize, Ordering};

pub struct ReadProgress {
    /// Reads running now.
    active: AtomicUsize,
    /// Nodes placed so far by the latest round of a running read.
    nodes: AtomicUsize,
}

/// The process's read progress.
pub static READ: ReadProgress = ReadProgress {
    active: AtomicUsize::new(0),
    nodes: AtomicUsize::new(0),
};

/// Marks a read as running until dropped.
pub struct Reading(());

impl ReadProgress {
    /// Starts counting one read.
    pub fn start(&'static self) -> Reading {
        self.active.fetch_add(1, Ordering::Relaxed);
        self.nodes.store(0, Ordering::Relaxed);
        Reading(())
    }

    /// Nodes placed so far.
    pub fn set(&self, nodes: usize) {
        self.nodes.store(nodes, Ordering::Relaxed);
    }

    /// Nodes placed so far by the running read, `None` when none runs.
    pub fn nodes(&self) -> Option<usize> {
        (self.active.load(Ordering::Relaxed) > 0).then(|| self.nodes.load(Ordering::Relaxed))
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        READ.active.fetch_sub(1, Ordering::Relaxed);
    }
}
