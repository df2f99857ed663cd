//! The one [`Backend`] over a platform's own thread, shared by UI Automation and AX.
//!
//! Both platforms hand out objects that must stay on the thread that made them (COM objects in
//! an MTA on Windows, `AXUIElement`s on macOS), and both answer synchronously. So each runs a
//! [`Worker`] — its platform's calls, nothing else — on one dedicated thread, and the
//! [`ThreadBackend`] here owns everything around it: the thread, the job channel, each call's
//! deadline, the snapshot a read that overran its deadline turns into, and the event
//! broadcast. Only model data (`Node`, `Snapshot`, `AppInfo`) crosses the channel.
//!
//! The [`Registry`] is what both workers keep per element id between requests: the platform's
//! handle, and in which read it was last seen, so that ids of reads long past are dropped once
//! it holds [`REGISTRY_CAP`] elements.
//!
//! [`trace`] replays a worker's reads recorded as JSON.
//!
//! Compiled and tested on every platform (with a fake worker); the two workers themselves are
//! compiled only on their own systems.

use std::collections::HashMap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::{broadcast, oneshot};

use super::strategy::Planner;
use super::{AppInfo, Backend, BackendError, Event, Limits, WriteAck, WriteOp};
use crate::model::{AppText, Node, NodeId, Snapshot, SnapshotId, Truncation};

pub mod trace;

#[cfg(test)]
pub(crate) mod cases;

/// A platform's calls, run on the thread that owns its objects; see [`ThreadBackend`].
pub trait Worker: 'static {
    /// [`Backend::name`], also the end of its thread's name (`treeglass-uia`); errors name
    /// the thread in capitals ("the UIA thread has stopped").
    const NAME: &'static str;
    /// [`Backend::planner`].
    const PLANNER: &'static dyn Planner;
    /// What a connect that got no answer says, before " within N ms".
    const SILENT: &'static str;
    /// What listing the apps is called when it times out, and how long it may take.
    const APPS: (&'static str, Duration);
    /// How long listing an element's children may take.
    const CHILDREN: Duration;
    /// How often [`Worker::idle`] runs while no request arrives; `None`: never.
    const IDLE: Option<Duration> = None;

    /// How long the backend waits for a whole read.
    fn snapshot_deadline(limits: &Limits) -> Duration;

    /// How long the backend waits for one write (`call_timeout` is the backend's per-call
    /// deadline).
    fn write_deadline(_op: &WriteOp, call_timeout: Duration) -> Duration {
        call_timeout
    }

    fn apps(&mut self) -> Result<Vec<AppInfo>, BackendError>;
    fn snapshot(&mut self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError>;
    fn read_node(&mut self, id: &NodeId) -> Result<Node, BackendError>;
    fn children(&mut self, id: &NodeId) -> Result<Vec<Node>, BackendError>;
    fn write(&mut self, id: &NodeId, op: &WriteOp) -> WriteAck;

    /// Runs between requests every [`Worker::IDLE`] (AX polls its apps for changes here).
    fn idle(&mut self) {}

    /// Runs once when the backend is dropped, on the worker's thread.
    fn stop(&mut self) {}
}

/// One request for the worker's thread, carrying its own reply.
type Job<W> = Box<dyn FnOnce(&mut W) + Send>;

/// A [`Backend`] that is a handle to the thread running a [`Worker`].
pub struct ThreadBackend<W: Worker> {
    jobs: mpsc::Sender<Job<W>>,
    events: broadcast::Sender<Event>,
    call_timeout: Duration,
}

impl<W: Worker> ThreadBackend<W> {
    /// Starts the worker's thread, makes the worker there with `start` (given the event sender
    /// and the per-call deadline), and waits up to `timeout` for it. `start`'s error is the
    /// platform's own (UIA tells a system with no client at all from one that failed); the
    /// thread's failures become it through `From<BackendError>`.
    pub async fn start<F, E>(timeout: Duration, start: F) -> Result<Self, E>
    where
        F: FnOnce(broadcast::Sender<Event>, Duration) -> Result<W, E> + Send + 'static,
        E: From<BackendError> + Send + 'static,
    {
        let call_timeout = Limits::default().call_timeout;
        let (jobs, rx) = mpsc::channel::<Job<W>>();
        let (events, _) = broadcast::channel(4096);
        let (ready_tx, ready_rx) = oneshot::channel::<Result<(), E>>();
        let tx = events.clone();
        let handle = std::thread::Builder::new()
            .name(format!("treeglass-{}", W::NAME))
            .spawn(move || match start(tx, call_timeout) {
                Ok(worker) => {
                    let _ = ready_tx.send(Ok(()));
                    serve(rx, worker);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            })
            .map_err(|e| {
                BackendError::Unavailable(format!("cannot start the {} thread: {e}", thread::<W>()))
            })?;
        match tokio::time::timeout(timeout, ready_rx).await {
            Ok(Ok(Ok(()))) => Ok(ThreadBackend {
                jobs,
                events,
                call_timeout,
            }),
            Ok(Ok(Err(e))) => {
                ended(handle).await;
                Err(e)
            }
            Ok(Err(_)) => {
                ended(handle).await;
                Err(BackendError::Unavailable(format!(
                    "the {} thread stopped while starting",
                    thread::<W>()
                ))
                .into())
            }
            Err(_) => Err(BackendError::Unavailable(format!(
                "{} within {} ms",
                W::SILENT,
                timeout.as_millis()
            ))
            .into()),
        }
    }

    /// Runs `call` on the worker's thread and waits up to `deadline` for its answer. A call
    /// that times out keeps running on the thread (a platform call cannot be cancelled); its
    /// answer is dropped.
    async fn call<T, F>(&self, deadline: Duration, what: &str, call: F) -> Result<T, BackendError>
    where
        T: Send + 'static,
        F: FnOnce(&mut W) -> T + Send + 'static,
    {
        let (reply, rx) = oneshot::channel();
        self.jobs
            .send(Box::new(move |worker: &mut W| {
                let _ = reply.send(call(worker));
            }))
            .map_err(|_| stopped::<W>())?;
        match tokio::time::timeout(deadline, rx).await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(_)) => Err(stopped::<W>()),
            Err(_) => Err(BackendError::Timeout {
                what: what.to_string(),
                ms: deadline.as_millis() as u64,
            }),
        }
    }
}

/// How errors name the thread of `W`: `UIA`, `AX`.
fn thread<W: Worker>() -> String {
    W::NAME.to_uppercase()
}

fn stopped<W: Worker>() -> BackendError {
    BackendError::Unavailable(format!("the {} thread has stopped", thread::<W>()))
}

/// The worker's thread: requests in order, [`Worker::idle`] between them; ends when the
/// backend (the only sender) is dropped.
fn serve<W: Worker>(rx: mpsc::Receiver<Job<W>>, mut worker: W) {
    match W::IDLE {
        None => {
            while let Ok(job) = rx.recv() {
                job(&mut worker);
            }
        }
        Some(every) => {
            let mut last = Instant::now();
            loop {
                match rx.recv_timeout(every) {
                    Ok(job) => job(&mut worker),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                if last.elapsed() >= every {
                    worker.idle();
                    last = Instant::now();
                }
            }
        }
    }
    worker.stop();
}

#[async_trait]
impl<W: Worker> Backend for ThreadBackend<W> {
    fn name(&self) -> &'static str {
        W::NAME
    }

    fn planner(&self) -> &'static dyn Planner {
        W::PLANNER
    }

    async fn apps(&self) -> Result<Vec<AppInfo>, BackendError> {
        let (what, deadline) = W::APPS;
        self.call(deadline, what, |w| w.apps()).await?
    }

    async fn snapshot(&self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError> {
        let started = Instant::now();
        let (root, limits) = (root.clone(), *limits);
        match self
            .call(
                W::snapshot_deadline(&limits),
                "reading the tree",
                move |w| w.snapshot(&root, &limits),
            )
            .await
        {
            Ok(r) => r,
            // A hung app gives an incomplete snapshot, not an error.
            Err(BackendError::Timeout { .. }) => Ok(Snapshot {
                id: SnapshotId::next(),
                app: AppText::default(),
                window: AppText::default(),
                nodes: Vec::new(),
                truncated: Some(Truncation::Timeout),
                unreadable: 0,
                unreadable_elements: Vec::new(),
                cuts: Default::default(),
                read_ms: started.elapsed().as_secs_f64() * 1000.0,
            }),
            Err(e) => Err(e),
        }
    }

    async fn read_node(&self, id: &NodeId) -> Result<Node, BackendError> {
        let id = id.clone();
        self.call(self.call_timeout * 2, "reading an element", move |w| {
            w.read_node(&id)
        })
        .await?
    }

    async fn children(&self, id: &NodeId) -> Result<Vec<Node>, BackendError> {
        let id = id.clone();
        self.call(W::CHILDREN, "listing children", move |w| w.children(&id))
            .await?
    }

    async fn write(&self, id: &NodeId, op: &WriteOp) -> WriteAck {
        let deadline = W::write_deadline(op, self.call_timeout);
        let what = W::PLANNER.method(op);
        let (id, op) = (id.clone(), op.clone());
        self.call(deadline, what.as_str(), move |w| w.write(&id, &op))
            .await?
    }

    fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }
}

/// Elements kept for later reads and writes; past this many, ids not seen in the last two reads
/// go.
pub const REGISTRY_CAP: usize = 200_000;

/// The elements a worker has read, by id: the platform's handle (`E`, with whatever else the
/// platform keeps per element) and the read it was last seen in. Reads are counted by
/// [`Registry::start_read`]; once more than the cap are held, those not seen in the last two
/// reads are dropped, and their ids answer [`Registry::lookup`] with the error a stale id gets.
pub struct Registry<E> {
    entries: HashMap<String, (E, u64)>,
    generation: u64,
    cap: usize,
}

impl<E> Default for Registry<E> {
    fn default() -> Self {
        Registry::with_cap(REGISTRY_CAP)
    }
}

impl<E> Registry<E> {
    /// A registry that starts dropping old ids past `cap` elements.
    pub fn with_cap(cap: usize) -> Self {
        Registry {
            entries: HashMap::new(),
            generation: 0,
            cap,
        }
    }

    /// Counts one more read; drops the ids not seen in the last two when over the cap.
    pub fn start_read(&mut self) {
        self.generation += 1;
        if self.entries.len() > self.cap {
            let keep = self.generation.saturating_sub(2);
            self.entries.retain(|_, (_, seen)| *seen >= keep);
        }
    }

    /// Remembers `entry` under `id`, seen in this read.
    pub fn insert(&mut self, id: String, entry: E) {
        self.entries.insert(id, (entry, self.generation));
    }

    /// Marks `id` seen in this read when `same` says its entry is still the element meant;
    /// whether it did.
    pub fn renew(&mut self, id: &str, same: impl FnOnce(&E) -> bool) -> bool {
        match self.entries.get_mut(id) {
            Some((entry, seen)) if same(entry) => {
                *seen = self.generation;
                true
            }
            _ => false,
        }
    }

    pub fn get(&self, id: &str) -> Option<&E> {
        self.entries.get(id).map(|(e, _)| e)
    }

    /// The entry of `id`, or the error an id this session did not read (or has dropped) gets.
    pub fn lookup(&self, id: &NodeId) -> Result<&E, BackendError> {
        self.get(&id.0).ok_or_else(|| {
            BackendError::Failed(format!(
                "`{id}` is not an element of this session's reads (take a new snapshot)"
            ))
        })
    }

    /// Every id held, with its entry (in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &E)> {
        self.entries.iter().map(|(id, (e, _))| (id.as_str(), e))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Waits (up to 5 s) for a worker thread that failed to start to end. The process may exit
/// right after: exiting while that thread still tears down its platform state (COM, under
/// Wine) hung the process at exit.
async fn ended(thread: std::thread::JoinHandle<()>) {
    let joined = tokio::task::spawn_blocking(move || thread.join());
    let _ = tokio::time::timeout(Duration::from_secs(5), joined).await;
}

#[cfg(test)]
mod tests;
