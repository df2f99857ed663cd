//! Observed recording: while it runs, changes the user makes directly in the app (text typed,
//! numbers, toggles, options and selected rows) are seen through accessibility events, re-read,
//! and recorded as observed steps with targets suggested from a fresh snapshot. Bursts
//! coalesce: an element is recorded once it has been quiet for a moment, with its final value.
//! Button presses leave no value behind and are not recorded this way.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock, so the debounce runs in paused time in tests.
use tokio::time::Instant;

use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::oneshot;

use super::record::Recorder;
use crate::backend::{Backend, BackendError, EventKind, Limits};
use crate::model::{Node, NodeId, Role, Snapshot, State, Value};

/// A recorder shared between a watcher task and its owner (the TUI, the CLI).
pub type SharedRecorder = Arc<Mutex<Recorder>>;

/// Knobs of a watch.
#[derive(Debug, Clone, Copy)]
pub struct WatchOptions {
    /// An element is recorded once no event came from it for this long (typing bursts).
    pub quiet: Duration,
    /// How often pending elements are checked.
    pub tick: Duration,
    pub limits: Limits,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            quiet: Duration::from_millis(400),
            tick: Duration::from_millis(100),
            limits: Limits::default(),
        }
    }
}

/// What a watch saw.
#[derive(Debug, Clone, Default, Serialize)]
pub struct WatchSummary {
    /// Events that could mean a value change.
    pub events: usize,
    /// Steps recorded (or updated by coalescing).
    pub recorded: usize,
    /// Events lost because the watcher fell behind (the whole window was re-compared).
    pub lagged: u64,
}

/// A running watch; [`Watch::stop`] ends it and records what is still pending.
pub struct Watch {
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<WatchSummary, BackendError>>,
}

/// What is compared to tell a change: the value and the states a write can change.
#[derive(Debug, Clone, PartialEq)]
struct Observable {
    value: Option<Value>,
    checked: bool,
    pressed: bool,
    selected: bool,
    expanded: bool,
}

fn observable(n: &Node) -> Observable {
    Observable {
        value: n.value.clone(),
        checked: n.states.has(State::Checked),
        pressed: n.states.has(State::Pressed),
        selected: n.states.has(State::Selected),
        expanded: n.states.has(State::Expanded),
    }
}

/// Elements whose changes become steps.
fn recordable(n: &Node) -> bool {
    n.role.is_text()
        || n.role.is_numeric()
        || n.role.is_toggle()
        || n.role.is_choice()
        || n.role.is_selectable_item()
        || n.role == Role::Expander
        || n.states.has(State::Editable)
}

fn interesting(kind: &EventKind) -> bool {
    match kind {
        EventKind::TextChanged
        | EventKind::ValueChanged
        | EventKind::SelectionChanged
        | EventKind::NameChanged => true,
        EventKind::StateChanged { state, .. } => matches!(
            state.as_str(),
            "checked" | "pressed" | "selected" | "expanded" | "indeterminate"
        ),
        _ => false,
    }
}

impl Watch {
    /// Starts watching `root` (a window or an app). The baseline is read before this returns,
    /// so every change made afterwards is seen.
    pub async fn start(
        backend: Arc<dyn Backend>,
        root: NodeId,
        recorder: SharedRecorder,
        opts: WatchOptions,
    ) -> Result<Watch, BackendError> {
        // Subscribe before the baseline read, so no change between the two is missed.
        let events = backend.subscribe();
        let snap = backend.snapshot(&root, &opts.limits).await?;
        let baseline: HashMap<NodeId, Observable> = snap
            .nodes
            .iter()
            .filter(|n| recordable(n))
            .map(|n| (n.id.clone(), observable(n)))
            .collect();
        let (tx, rx) = oneshot::channel();
        let w = Watcher {
            backend,
            root,
            recorder,
            opts,
            baseline,
            pending: HashMap::new(),
            arrivals: 0,
            rescan: false,
            summary: WatchSummary::default(),
        };
        let task = tokio::spawn(w.run(events, rx));
        Ok(Watch {
            stop: Some(tx),
            task,
        })
    }

    /// Stops the watch after recording every pending change.
    pub async fn stop(mut self) -> Result<WatchSummary, BackendError> {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        match (&mut self.task).await {
            Ok(r) => r,
            Err(e) => Err(BackendError::Failed(format!("the watcher stopped: {e}"))),
        }
    }
}

struct Watcher {
    backend: Arc<dyn Backend>,
    root: NodeId,
    recorder: SharedRecorder,
    opts: WatchOptions,
    baseline: HashMap<NodeId, Observable>,
    /// Elements with events not yet looked at: (the order of their first event, the time of
    /// their last). An arrival count, not a time, orders them: events can share an instant.
    pending: HashMap<NodeId, (u64, Instant)>,
    arrivals: u64,
    /// Events were lost: compare the whole window at the next flush.
    rescan: bool,
    summary: WatchSummary,
}

impl Watcher {
    async fn run(
        mut self,
        mut events: tokio::sync::broadcast::Receiver<crate::backend::Event>,
        mut stop: oneshot::Receiver<()>,
    ) -> Result<WatchSummary, BackendError> {
        let mut tick = tokio::time::interval(self.opts.tick);
        let mut open = true;
        loop {
            tokio::select! {
                _ = &mut stop => break,
                ev = events.recv(), if open => match ev {
                    Ok(ev) => {
                        if interesting(&ev.kind) {
                            self.summary.events += 1;
                            let now = Instant::now();
                            self.arrivals += 1;
                            let seq = self.arrivals;
                            self.pending
                                .entry(ev.source)
                                .and_modify(|e| e.1 = now)
                                .or_insert((seq, now));
                        }
                    }
                    Err(RecvError::Lagged(n)) => {
                        self.summary.lagged += n;
                        self.rescan = true;
                    }
                    Err(RecvError::Closed) => open = false,
                },
                _ = tick.tick() => {
                    let quiet = self.opts.quiet;
                    let now = Instant::now();
                    let due = self.rescan
                        || self.pending.values().any(|(_, last)| now.duration_since(*last) >= quiet);
                    // Another element still busy (typing) waits; the quiet ones go now.
                    if due {
                        self.flush(Some(quiet)).await?;
                    }
                }
            }
        }
        // Drain what arrived before the stop, then record everything pending.
        while let Ok(ev) = events.try_recv() {
            if interesting(&ev.kind) {
                self.arrivals += 1;
                let seq = self.arrivals;
                self.pending
                    .entry(ev.source)
                    .or_insert((seq, Instant::now()));
            }
        }
        self.flush(None).await?;
        Ok(self.summary)
    }

    /// Records pending elements quiet for `quiet` (all when `None`), against one fresh read.
    async fn flush(&mut self, quiet: Option<Duration>) -> Result<(), BackendError> {
        let now = Instant::now();
        let mut due: Vec<(NodeId, u64)> = self
            .pending
            .iter()
            .filter(|(_, (_, last))| quiet.is_none_or(|q| now.duration_since(*last) >= q))
            .map(|(id, (first, _))| (id.clone(), *first))
            .collect();
        if due.is_empty() && !self.rescan {
            return Ok(());
        }
        for (id, _) in &due {
            self.pending.remove(id);
        }
        due.sort_by_key(|(_, first)| *first);
        let snap = match self.backend.snapshot(&self.root, &self.opts.limits).await {
            Ok(s) => s,
            // The window went away: nothing left to record.
            Err(BackendError::Vanished(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut rows: Vec<usize> = Vec::new();
        let add = |row: usize, rows: &mut Vec<usize>| {
            if !rows.contains(&row) {
                rows.push(row);
            }
        };
        if std::mem::take(&mut self.rescan) {
            for (row, n) in snap.nodes.iter().enumerate() {
                if recordable(n) {
                    add(row, &mut rows);
                }
            }
        }
        for (id, _) in &due {
            let Some(row) = snap.row_of(id) else { continue };
            let node = &snap.nodes[row];
            if recordable(node) {
                add(row, &mut rows);
            }
            // A selection container: its items; an option inside a combo box: the combo.
            for &c in &node.children {
                if snap.nodes.get(c).is_some_and(recordable) {
                    add(c, &mut rows);
                }
            }
            for a in snap.ancestry(row).into_iter().rev().skip(1).take(3) {
                if snap.nodes.get(a).is_some_and(recordable) {
                    add(a, &mut rows);
                    break;
                }
            }
        }
        let mut snap = snap;
        for row in rows {
            let id = snap.nodes[row].id.clone();
            // Re-read the element itself: its value now, not the tree read's.
            let fresh = match self.backend.read_node(&id).await {
                Ok(n) => n,
                Err(_) => continue,
            };
            let now = observable(&fresh);
            let changed = match self.baseline.get(&id) {
                Some(before) => *before != now,
                // New since the baseline: recorded only if it holds a user-set state.
                None => false,
            };
            self.baseline.insert(id.clone(), now);
            if !changed {
                continue;
            }
            patch(&mut snap, row, fresh);
            let mut rec = self.recorder.lock().unwrap_or_else(|e| e.into_inner());
            if rec.record_observed(&snap, row).is_some() {
                self.summary.recorded += 1;
            }
        }
        Ok(())
    }
}

/// Puts a freshly read node into the snapshot, keeping its place in the tree.
fn patch(snap: &mut Snapshot, row: usize, fresh: Node) {
    if let Some(slot) = snap.nodes.get_mut(row) {
        *slot = Node {
            parent: slot.parent,
            children: std::mem::take(&mut slot.children),
            depth: slot.depth,
            ..fresh
        };
    }
}
