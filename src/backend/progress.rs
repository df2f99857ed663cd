//! How far the tree read in progress has got, for a progress line: one-shot commands print it
//! on standard error when that is a terminal (`reading… 12,480 nodes`), the TUI shows it while
//! it waits for a window's tree — and, on that line, what a one-shot command waits for while a
//! target is not yet one element. The front end that shows it makes a [`ReadProgress`] and
//! hands it to its backend ([`Backend::report_reads`](super::Backend::report_reads)) and its
//! session (`Session::reporting`); the backend's reads set it as their rounds come back, the
//! session's waits for a target say what they wait for; nothing else depends on it.
//!
//! The inspector also asks for the tree as it arrives ([`ReadProgress::want_partials`]): a
//! backend that reads in rounds publishes what it has placed so far, marked
//! `Truncation::Reading`, and the inspector paints it until the whole tree comes. And it can
//! stop a read ([`ReadProgress::cancel`]): the read sends nothing more and ends with what it
//! has, marked `Truncation::Cancelled`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::model::{NodeId, Snapshot};

/// One front end's view of its backend's tree reads and its session's waits (shared as an
/// `Arc`).
#[derive(Default)]
pub struct ReadProgress {
    /// Reads running now.
    active: AtomicUsize,
    /// Nodes placed so far by the latest round of a running read.
    nodes: AtomicUsize,
    /// Whether anyone shows partial trees (only the inspector does: building one costs).
    partials: AtomicBool,
    /// The newest partial tree, with the root it is of.
    partial: Mutex<Option<(NodeId, Snapshot)>>,
    /// The running reads are to stop.
    cancel: AtomicBool,
    /// What a session waits for while a target is not yet one element (set by the
    /// resolution's wait, cleared when it ends).
    waiting: Mutex<Option<Waiting>>,
}

/// Marks a read as running until dropped.
pub struct Reading<'a>(&'a ReadProgress);

impl ReadProgress {
    /// Starts counting one read.
    pub fn start(&self) -> Reading<'_> {
        if self.active.fetch_add(1, Ordering::Relaxed) == 0 {
            self.cancel.store(false, Ordering::Relaxed);
        }
        self.nodes.store(0, Ordering::Relaxed);
        Reading(self)
    }

    /// Nodes placed so far.
    pub fn set(&self, nodes: usize) {
        self.nodes.store(nodes, Ordering::Relaxed);
    }

    /// Nodes placed so far by the running read, `None` when none runs.
    pub fn nodes(&self) -> Option<usize> {
        (self.active.load(Ordering::Relaxed) > 0).then(|| self.nodes.load(Ordering::Relaxed))
    }

    /// Asks reads to publish partial trees from now on.
    pub fn want_partials(&self) {
        self.partials.store(true, Ordering::Relaxed);
    }

    pub fn wants_partials(&self) -> bool {
        self.partials.load(Ordering::Relaxed)
    }

    /// A read's tree so far (replacing an older one not taken yet).
    pub fn publish(&self, root: NodeId, snap: Snapshot) {
        *self.partial.lock().unwrap_or_else(|e| e.into_inner()) = Some((root, snap));
    }

    /// The newest partial tree not taken yet.
    pub fn take_partial(&self) -> Option<(NodeId, Snapshot)> {
        self.partial
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Stops the running reads (they end with what they have). No effect when none runs.
    pub fn cancel(&self) {
        if self.active.load(Ordering::Relaxed) > 0 {
            self.cancel.store(true, Ordering::Relaxed);
        }
    }

    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        let p = self.0;
        if p.active.fetch_sub(1, Ordering::Relaxed) == 1 {
            p.cancel.store(false, Ordering::Relaxed);
            p.partial.lock().unwrap_or_else(|e| e.into_inner()).take();
        }
    }
}

/// One wait for a target.
#[derive(Debug, Clone)]
pub struct Waiting {
    /// What it waits for (`2 elements match check-box "checkbutton": waiting for one`).
    pub what: String,
    /// When it started, on the wall clock.
    pub since: std::time::Instant,
    /// How long it may last.
    pub limit: std::time::Duration,
}

/// Marks a wait for a target until dropped.
pub struct WaitingFor<'a>(&'a ReadProgress);

impl ReadProgress {
    /// Starts a wait of at most `limit`, for `what`.
    pub fn wait_for(&self, what: String, limit: std::time::Duration) -> WaitingFor<'_> {
        *self.waiting.lock().unwrap_or_else(|e| e.into_inner()) = Some(Waiting {
            what,
            since: std::time::Instant::now(),
            limit,
        });
        WaitingFor(self)
    }

    /// The wait for a target under way, if any.
    pub fn waiting(&self) -> Option<Waiting> {
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

impl WaitingFor<'_> {
    /// What the wait is for now (the target went from no match to two, say).
    pub fn say(&self, what: String) {
        if let Some(w) = self
            .0
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            w.what = what;
        }
    }
}

impl Drop for WaitingFor<'_> {
    fn drop(&mut self) {
        *self.0.waiting.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
