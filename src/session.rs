//! A session: the snapshots one process has taken, so element tokens can be checked (a token
//! from a superseded snapshot is stale; one this process never issued is refused), and fresh
//! resolution of targets that re-reads the tree on accessibility events until it is unique.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock, so tests can run the waits in paused time.
use tokio::time::Instant;

use tokio::sync::broadcast::error::RecvError;

use crate::backend::{Backend, BackendError, Limits};
use crate::model::{Node, NodeId, Role, Snapshot, SnapshotId, Token};
use crate::selector::{Resolution, RoleSpec, Target, resolve, resolve_for_write};

/// The longest a target may be waited for.
pub const MAX_RESOLVE_TIMEOUT: Duration = Duration::from_secs(120);
/// How long `find`/`set` wait for a target to become unique by default.
pub const DEFAULT_RESOLVE_TIMEOUT: Duration = Duration::from_secs(10);
/// Re-read at least this often while waiting, for apps that send no events.
const FALLBACK_TICK: Duration = Duration::from_millis(500);
/// With no wait asked for ([`Wait::WhileChanging`]): how long the app must stay silent after a
/// read before a target that names no single element is answered as it stands.
pub const QUIET: Duration = Duration::from_millis(500);

/// How long a resolution waits for its target to name one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Re-read on every burst of events from the app (and every half second, for apps that
    /// send none) until the target names one element or this long has passed: what a caller
    /// that gave a wait asked for, exactly.
    For(Duration),
    /// Re-read only while the app is changing: the answer comes as soon as [`QUIET`] passes
    /// with no event from the app after a read, or after [`DEFAULT_RESOLVE_TIMEOUT`] of
    /// steady change. An ambiguous or missing target on an app at rest answers at once.
    WhileChanging,
}

impl From<Duration> for Wait {
    fn from(d: Duration) -> Wait {
        Wait::For(d)
    }
}

impl Wait {
    /// The longest this wait may last.
    pub fn limit(self) -> Duration {
        match self {
            Wait::For(d) => d.min(MAX_RESOLVE_TIMEOUT),
            Wait::WhileChanging => DEFAULT_RESOLVE_TIMEOUT,
        }
    }
}
/// After an event, wait this long for the rest of its burst before re-reading.
const COALESCE: Duration = Duration::from_millis(30);

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenRefusal {
    #[error(
        "stale token {token}: the tree was read again since; the current snapshot is {current}"
    )]
    Stale { token: Token, current: SnapshotId },
    #[error(
        "token {0} was not issued by this process; tokens are only valid inside the session that \
         read the tree (a TUI session or a workflow run) — use a target instead"
    )]
    Unknown(Token),
    #[error("token {0} names no row of its snapshot")]
    NoRow(Token),
}

#[derive(Default)]
struct Book {
    /// The newest snapshot per root (window or app).
    latest: HashMap<NodeId, Arc<Snapshot>>,
    /// Which root each snapshot id belongs to, for stale checks.
    roots: HashMap<SnapshotId, NodeId>,
    /// The app each root was read in, as listed when it was picked.
    apps: HashMap<NodeId, crate::backend::AppInfo>,
}

/// Snapshots and tokens of one process over one backend.
pub struct Session {
    pub backend: Arc<dyn Backend>,
    book: Mutex<Book>,
    /// Whether a resolution may first ask the app for the target's candidates
    /// ([`Backend::candidates`]) instead of reading the whole tree. Only for callers that use
    /// nothing of the snapshot but the element and its path (one-shot `find`, `get`, and `set`
    /// without `--record`; not `invoke`, which credits reactions in the element's subtree):
    /// such a snapshot holds the path alone, so targets suggested from it would be unique by
    /// construction.
    pub narrow: std::sync::atomic::AtomicBool,
    /// Where a wait for a target says what it waits for (a one-shot command's progress line).
    progress: Option<Arc<crate::backend::progress::ReadProgress>>,
}

/// The result of resolving a target against fresh reads.
pub struct Fresh {
    pub snapshot: Arc<Snapshot>,
    pub resolution: Resolution,
    /// How many times the tree was read.
    pub reads: usize,
    pub waited: Duration,
    /// Set when the tree was not read: the app found this many candidates (every element of
    /// the target's role in the window), the target was resolved among them, and the snapshot
    /// holds the path from the window to the element alone.
    pub narrowed: Option<usize>,
    /// The wait ended early because the app was at rest ([`Wait::WhileChanging`]).
    pub at_rest: bool,
}

impl Session {
    pub fn new(backend: Arc<dyn Backend>) -> Session {
        Session {
            backend,
            book: Mutex::new(Book::default()),
            narrow: std::sync::atomic::AtomicBool::new(false),
            progress: None,
        }
    }

    /// The session, saying what its waits for a target wait for to `progress` (the front end
    /// shows it), when there is one.
    pub fn reporting(
        self,
        progress: Option<Arc<crate::backend::progress::ReadProgress>>,
    ) -> Session {
        Session { progress, ..self }
    }

    fn book(&self) -> std::sync::MutexGuard<'_, Book> {
        // Plain maps; a panic elsewhere leaves them consistent enough to keep serving.
        self.book.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a snapshot as the newest of `root` (superseding older tokens).
    pub fn record(&self, root: &NodeId, snap: Snapshot) -> Arc<Snapshot> {
        let snap = Arc::new(snap);
        let mut b = self.book();
        b.roots.insert(snap.id, root.clone());
        b.latest.insert(root.clone(), snap.clone());
        snap
    }

    /// Reads `root` and records the snapshot.
    pub async fn snapshot(
        &self,
        root: &NodeId,
        limits: &Limits,
    ) -> Result<Arc<Snapshot>, BackendError> {
        let snap = self.backend.snapshot(root, limits).await?;
        Ok(self.record(root, snap))
    }

    /// Notes the app `root` belongs to, so that a later call naming one of its snapshots
    /// (a token, a cursor) needs no app or window of its own.
    pub fn keep_app(&self, root: &NodeId, app: &crate::backend::AppInfo) {
        self.book().apps.insert(root.clone(), app.clone());
    }

    /// The app and root a snapshot was read in, when its app was noted.
    pub fn app_of(&self, snapshot: SnapshotId) -> Option<(crate::backend::AppInfo, NodeId)> {
        let b = self.book();
        let root = b.roots.get(&snapshot)?;
        Some((b.apps.get(root)?.clone(), root.clone()))
    }

    /// The newest snapshot of `root`, if any.
    pub fn latest(&self, root: &NodeId) -> Option<Arc<Snapshot>> {
        self.book().latest.get(root).cloned()
    }

    /// Resolves a token immediately: only against the snapshot it came from, and only while
    /// that snapshot is the newest of its window.
    pub fn token(&self, token: Token) -> Result<(Arc<Snapshot>, usize), TokenRefusal> {
        let b = self.book();
        let root = b
            .roots
            .get(&token.snapshot)
            .ok_or(TokenRefusal::Unknown(token))?;
        let latest = b.latest.get(root).ok_or(TokenRefusal::Unknown(token))?;
        if latest.id != token.snapshot {
            return Err(TokenRefusal::Stale {
                token,
                current: latest.id,
            });
        }
        if token.row >= latest.nodes.len() {
            return Err(TokenRefusal::NoRow(token));
        }
        Ok((latest.clone(), token.row))
    }

    /// Resolves `target` against fresh reads of `root`, re-reading when the app sends events
    /// (or every half second for apps that send none) until it is unique or the wait ends
    /// ([`Wait`]).
    pub async fn resolve_fresh(
        &self,
        root: &NodeId,
        target: &Target,
        wait: impl Into<Wait>,
        limits: &Limits,
    ) -> Result<Fresh, BackendError> {
        let narrow = self.narrow.load(std::sync::atomic::Ordering::Relaxed);
        self.resolve_fresh_by(root, target, wait.into(), limits, resolve, narrow)
            .await
    }

    /// [`Session::resolve_fresh`] that asks the app for the target's candidates first where it
    /// can ([`Backend::candidates`]), whatever `narrow` says: for a caller that needs only the
    /// element (a subtree's root) and keeps nothing else of the snapshot.
    pub async fn resolve_element(
        &self,
        root: &NodeId,
        target: &Target,
        wait: impl Into<Wait>,
        limits: &Limits,
    ) -> Result<Fresh, BackendError> {
        self.resolve_fresh_by(root, target, wait.into(), limits, resolve, true)
            .await
    }

    /// [`Session::resolve_fresh`] for a write (`set`, `invoke`, workflow steps, MCP writes):
    /// exact and substring matches only ([`resolve_for_write`]), so a target that matches
    /// only fuzzily keeps waiting and is then refused with the fuzzy matches as suggestions.
    pub async fn resolve_fresh_to_write(
        &self,
        root: &NodeId,
        target: &Target,
        wait: impl Into<Wait>,
        limits: &Limits,
    ) -> Result<Fresh, BackendError> {
        let narrow = self.narrow.load(std::sync::atomic::Ordering::Relaxed);
        self.resolve_fresh_by(root, target, wait.into(), limits, resolve_for_write, narrow)
            .await
    }

    async fn resolve_fresh_by(
        &self,
        root: &NodeId,
        target: &Target,
        wait: Wait,
        limits: &Limits,
        resolve: fn(&Snapshot, &Target) -> Resolution,
        narrow: bool,
    ) -> Result<Fresh, BackendError> {
        let timeout = wait.limit();
        let started = Instant::now();
        let deadline = started + timeout;
        // The label relation costs a call per element: read only for targets that match on it.
        let limits = &Limits {
            labels: limits.labels || target.uses_labels(),
            ..*limits
        };
        // Subscribe before the first read so no change between read and wait is missed.
        let mut events = self.backend.subscribe();
        if narrow && let Some(fresh) = self.resolve_narrowed(root, target, limits, resolve).await? {
            return Ok(fresh);
        }
        let mut reads = 0;
        // What the wait is for, on a terminal's progress line; cleared however this ends.
        let mut said: Option<crate::backend::progress::WaitingFor<'_>> = None;
        loop {
            let snap = self.snapshot(root, limits).await?;
            reads += 1;
            // An app that went silent is not waited for: nothing it holds can be claimed.
            if snap.truncated == Some(crate::model::Truncation::NotResponding) {
                return Err(BackendError::NotResponding {
                    app: crate::backend::Unanswering {
                        name: Some(snap.app.clone()),
                        ..Default::default()
                    },
                    ms: limits.call_timeout.as_millis() as u64,
                });
            }
            let resolution = resolve(&snap, target);
            if matches!(resolution, Resolution::Unique { .. }) || Instant::now() >= deadline {
                return Ok(Fresh {
                    snapshot: snap,
                    resolution,
                    reads,
                    waited: started.elapsed(),
                    narrowed: None,
                    at_rest: false,
                });
            }
            let what = waiting_for(&resolution, target);
            match &said {
                Some(s) => s.say(what),
                None => said = self.progress.as_deref().map(|p| p.wait_for(what, timeout)),
            }
            // With no wait asked for, the app has QUIET to show it is changing.
            let at_rest_answers = wait == Wait::WhileChanging;
            let tick = if at_rest_answers {
                QUIET
            } else {
                FALLBACK_TICK
            }
            .min(deadline.saturating_duration_since(Instant::now()));
            match next_from_app(&mut events, root, &snap.app, tick).await {
                Heard::Event => {
                    // Let the burst finish, then drain it: one re-read per burst.
                    tokio::time::sleep(
                        COALESCE.min(deadline.saturating_duration_since(Instant::now())),
                    )
                    .await;
                    while let Ok(_) | Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) =
                        events.try_recv()
                    {}
                }
                // At rest: with no wait asked for, the target is answered as it stands.
                Heard::Silence | Heard::Closed if at_rest_answers => {
                    return Ok(Fresh {
                        snapshot: snap,
                        resolution,
                        reads,
                        waited: started.elapsed(),
                        narrowed: None,
                        at_rest: true,
                    });
                }
                Heard::Closed => tokio::time::sleep(tick).await,
                Heard::Silence => {}
            }
        }
    }
}

/// What a wait for the app's next event heard.
enum Heard {
    /// An event from the app (or events were lost: the app may have changed).
    Event,
    /// Nothing from the app for the whole wait.
    Silence,
    /// No event can come (the backend's stream ended).
    Closed,
}

/// Waits up to `tick` for an event from the app `root` belongs to (by its bus name where
/// the id carries one, else by the app's name); events of other apps are passed over.
async fn next_from_app(
    events: &mut tokio::sync::broadcast::Receiver<crate::backend::Event>,
    root: &NodeId,
    app: &crate::model::AppText,
    tick: Duration,
) -> Heard {
    let until = Instant::now() + tick;
    loop {
        match tokio::time::timeout_at(until, events.recv()).await {
            Ok(Ok(ev)) => {
                let ours = match root.bus() {
                    Some(bus) => ev.app == bus,
                    None => ev.app == app.as_str(),
                };
                if ours {
                    return Heard::Event;
                }
            }
            Ok(Err(RecvError::Lagged(_))) => return Heard::Event,
            Ok(Err(RecvError::Closed)) => return Heard::Closed,
            Err(_) => return Heard::Silence,
        }
    }
}

/// What a wait for `target` is for, in a line: how far from one element it is.
fn waiting_for(resolution: &Resolution, target: &Target) -> String {
    let shown = crate::model::sanitize(&target.to_string(), 80).into_owned();
    match resolution {
        Resolution::Ambiguous { count, .. } => format!(
            "{} match {shown}: waiting for one to be told apart",
            crate::model::count(*count, "element")
        ),
        Resolution::Incomplete { .. } => {
            format!("the tree is incomplete: waiting for a whole read to look for {shown}")
        }
        _ => format!("nothing matches {shown} yet: waiting for it to appear"),
    }
}

impl Session {
    /// Resolves `target` among the candidates the app finds for its role, without reading the
    /// tree: when that names one element, the answer is the path to it. `None` whenever this
    /// cannot be claimed — the backend or app cannot narrow, the target needs more than each
    /// candidate's own fields (an ancestor, a neighbour, a position), or the candidates do not
    /// name exactly one element (then the tree is read and resolution says why, as always).
    /// Uniqueness is judged over the complete candidate set: every element of that role.
    async fn resolve_narrowed(
        &self,
        root: &NodeId,
        target: &Target,
        limits: &Limits,
        resolve: fn(&Snapshot, &Target) -> Resolution,
    ) -> Result<Option<Fresh>, BackendError> {
        let started = Instant::now();
        let Some(RoleSpec::Role(role)) = target.role() else {
            return Ok(None);
        };
        if *role == Role::Unknown
            || target.within().is_some()
            || target.after().is_some()
            || target.nth().is_some()
        {
            return Ok(None);
        }
        let mut named = None;
        // Names first: when one element of the role bears the query's text exactly and passes
        // the other clauses, no other can be named as well (`Target::exact_name`).
        if let Some(exact) = target.exact_name() {
            let Some(c) = self
                .backend
                .candidates(root, *role, limits.labels, Some(exact))
                .await?
            else {
                return Ok(None);
            };
            let flat = flat_snapshot(c.root, c.nodes);
            // Row 0 is the root, read whatever its name: only a named candidate is proof.
            if let Resolution::Unique { row, .. } = resolve(&flat, target)
                && row > 0
            {
                named = Some((flat.nodes[row].id.clone(), c.searched));
            }
        }
        let (id, count) = match named {
            Some(n) => n,
            None => {
                let Some(c) = self
                    .backend
                    .candidates(root, *role, limits.labels, None)
                    .await?
                else {
                    return Ok(None);
                };
                let flat = flat_snapshot(c.root, c.nodes);
                let Resolution::Unique { row, .. } = resolve(&flat, target) else {
                    return Ok(None);
                };
                (flat.nodes[row].id.clone(), c.searched)
            }
        };
        let path = match self.backend.path_to(root, &id, limits.labels).await {
            Ok(p) => p,
            Err(e @ BackendError::AppGone { .. }) => return Err(e),
            Err(e) => {
                tracing::debug!(error = %e, "no path to the candidate: reading the tree");
                return Ok(None);
            }
        };
        // Deeper than the read would go: the tree read decides (and does not find it).
        if path.len() > limits.max_depth + 1 {
            return Ok(None);
        }
        let snap = chain_snapshot(path, started);
        let last = snap.nodes.len().saturating_sub(1);
        let resolution = resolve(&snap, target);
        // Read again for its path, it must still be what the candidates named.
        if resolution.unique_row() != Some(last) {
            return Ok(None);
        }
        tracing::debug!(candidates = count, "resolved among the app's candidates");
        Ok(Some(Fresh {
            snapshot: self.record(root, snap),
            resolution,
            reads: 1,
            waited: started.elapsed(),
            narrowed: Some(count),
            at_rest: false,
        }))
    }
}

/// The window and the candidates below it, each a child of the window (the structure is not
/// the tree's: only each candidate's own fields are resolved on).
fn flat_snapshot(root: Node, found: Vec<Node>) -> Snapshot {
    let mut nodes = Vec::with_capacity(found.len() + 1);
    nodes.push(Node {
        parent: None,
        depth: 0,
        children: (1..=found.len()).collect(),
        ..root
    });
    nodes.extend(found.into_iter().map(|n| Node {
        parent: Some(0),
        depth: 1,
        children: Vec::new(),
        ..n
    }));
    whole(nodes, 0.0)
}

/// The path from the window down to one element, as a snapshot: each node the only child of
/// the one before.
fn chain_snapshot(path: Vec<Node>, started: Instant) -> Snapshot {
    let n = path.len();
    let nodes = path
        .into_iter()
        .enumerate()
        .map(|(i, node)| Node {
            parent: i.checked_sub(1),
            depth: i as u32,
            children: if i + 1 < n { vec![i + 1] } else { Vec::new() },
            ..node
        })
        .collect();
    whole(nodes, started.elapsed().as_secs_f64() * 1000.0)
}

/// A snapshot of `nodes` (row 0 the window, or the app) that lost nothing.
fn whole(nodes: Vec<Node>, read_ms: f64) -> Snapshot {
    let window = match nodes.first() {
        Some(r) if r.role != Role::Application => r.name.clone(),
        _ => Default::default(),
    };
    Snapshot {
        id: SnapshotId::next(),
        app: Default::default(),
        window,
        nodes,
        truncated: None,
        unreadable: 0,
        unreadable_elements: Vec::new(),
        cuts: Default::default(),
        read_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::fixture::FixtureBackend;

    /// Presses the demo's "Add item" after `delay` (it adds "Item N"), on a task of its own.
    fn press_add_item_after(
        backend: &Arc<FixtureBackend>,
        delay: Duration,
    ) -> tokio::task::JoinHandle<()> {
        let backend = backend.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let add = backend.find_by_name("Add item").unwrap();
            backend
                .write(&add, &crate::backend::WriteOp::Action("click".into()))
                .await
                .unwrap();
        })
    }

    /// A runtime whose clock is paused: timers fire as soon as nothing else can run, so the
    /// waits below are exact and no test depends on the machine's speed.
    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap()
    }

    #[test]
    fn tokens_resolve_only_against_the_newest_snapshot_of_their_window() {
        rt().block_on(async {
            let backend = Arc::new(FixtureBackend::demo());
            let session = Session::new(backend.clone());
            let window = backend.apps().await.unwrap()[0].windows[0].id.clone();
            let first = session.snapshot(&window, &Limits::default()).await.unwrap();
            let token = first.token(3);
            let (snap, row) = session.token(token).unwrap();
            assert_eq!((snap.id, row), (first.id, 3));
            assert_eq!(
                session.token(first.token(100_000)).unwrap_err(),
                TokenRefusal::NoRow(first.token(100_000))
            );
            let second = session.snapshot(&window, &Limits::default()).await.unwrap();
            let err = session.token(token).unwrap_err();
            assert_eq!(
                err,
                TokenRefusal::Stale {
                    token,
                    current: second.id
                }
            );
            assert!(err.to_string().contains(&second.id.to_string()), "{err}");
            // A token this session never issued is refused, never resolved elsewhere.
            let foreign = Token {
                snapshot: SnapshotId(0xdead_beef),
                row: 1,
            };
            assert_eq!(
                session.token(foreign).unwrap_err(),
                TokenRefusal::Unknown(foreign)
            );
        });
    }

    #[test]
    fn fresh_resolution_waits_for_an_element_that_appears() {
        rt().block_on(async {
            let backend = Arc::new(FixtureBackend::demo());
            let session = Session::new(backend.clone());
            let window = backend.apps().await.unwrap()[0].windows[0].id.clone();
            let target = Target::parse("button \"Item 1\"").unwrap();
            let adder = press_add_item_after(&backend, Duration::from_millis(200));
            let fresh = session
                .resolve_fresh(&window, &target, Duration::from_secs(5), &Limits::default())
                .await
                .unwrap();
            adder.await.unwrap();
            assert_eq!(fresh.resolution.outcome(), "unique");
            assert!(fresh.reads >= 2);
            // In paused time: the element appeared at 200 ms, and the event woke the wait (the
            // fallback re-read would have come at the tick, 500 ms).
            assert!(
                fresh.waited >= Duration::from_millis(200),
                "{:?}",
                fresh.waited
            );
            assert!(fresh.waited < FALLBACK_TICK, "{:?}", fresh.waited);

            let missing = Target::parse("button =\"Item 9\"").unwrap();
            let fresh = session
                .resolve_fresh(
                    &window,
                    &missing,
                    Duration::from_millis(300),
                    &Limits::default(),
                )
                .await
                .unwrap();
            assert_eq!(fresh.resolution.outcome(), "not_found");
        });
    }

    #[test]
    fn with_no_wait_asked_an_app_at_rest_is_answered_after_one_quiet_spell() {
        rt().block_on(async {
            let backend = Arc::new(FixtureBackend::demo());
            let session = Session::new(backend.clone());
            let window = backend.apps().await.unwrap()[0].windows[0].id.clone();
            let limits = Limits::default();

            // Ambiguous on a demo nobody touches: one read, then one quiet spell.
            let three = Target::parse("check-box \"checkbutton\"").unwrap();
            let fresh = session
                .resolve_fresh(&window, &three, Wait::WhileChanging, &limits)
                .await
                .unwrap();
            assert_eq!(fresh.resolution.outcome(), "ambiguous");
            assert_eq!(fresh.reads, 1);
            assert!(fresh.at_rest);
            assert_eq!(fresh.waited, QUIET);

            // Missing, the same.
            let missing = Target::parse("button =\"Item 9\"").unwrap();
            let fresh = session
                .resolve_fresh(&window, &missing, Wait::WhileChanging, &limits)
                .await
                .unwrap();
            assert_eq!(fresh.resolution.outcome(), "not_found");
            assert_eq!((fresh.reads, fresh.at_rest), (1, true));

            // An app that changes within the quiet spell is read again: the element that
            // appears at 200 ms is found.
            let adder = press_add_item_after(&backend, Duration::from_millis(200));
            let item = Target::parse("button \"Item 1\"").unwrap();
            let fresh = session
                .resolve_fresh(&window, &item, Wait::WhileChanging, &limits)
                .await
                .unwrap();
            adder.await.unwrap();
            assert_eq!(fresh.resolution.outcome(), "unique");
            assert_eq!((fresh.reads, fresh.at_rest), (2, false));

            // A wait asked for is kept whole, at rest or not.
            let fresh = session
                .resolve_fresh(&window, &missing, Duration::from_secs(3), &limits)
                .await
                .unwrap();
            assert_eq!(fresh.resolution.outcome(), "not_found");
            assert!(!fresh.at_rest);
            assert!(fresh.waited >= Duration::from_secs(3), "{:?}", fresh.waited);
            assert!(fresh.reads >= 6, "{}", fresh.reads);
        });
    }
}
