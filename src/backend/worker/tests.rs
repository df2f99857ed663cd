//! The thread-backed backend with a fake worker: what the UIA and AX backends get from it.

use std::sync::mpsc;
use std::time::Duration;

use super::*;
use crate::model::Role;

/// A worker whose calls answer at once, hang until the test ends, or panic, by the id asked.
struct Fake {
    /// Never sent on: a hanging call waits here until the test drops its end.
    gate: mpsc::Receiver<()>,
    events: broadcast::Sender<Event>,
    registry: Registry<u32>,
    stopped: mpsc::Sender<&'static str>,
    /// Neither `Send` nor `Sync`, as the platforms' handles are.
    _handles: std::marker::PhantomData<*const ()>,
}

impl Fake {
    fn act(&mut self, id: &NodeId) {
        match id.0.as_str() {
            "hang" => {
                let _ = self.gate.recv();
            }
            "panic" => panic!("the fake platform crashed"),
            _ => {}
        }
    }
}

impl Worker for Fake {
    const NAME: &'static str = "ax";
    const PLANNER: &'static dyn Planner = &crate::backend::ax::map::PLANNER;
    const SILENT: &'static str = "the fake API did not answer";
    const APPS: (&'static str, Duration) = ("listing fakes", Duration::from_secs(5));
    const CHILDREN: Duration = Duration::from_secs(3);
    const IDLE: Option<Duration> = Some(Duration::from_millis(5));

    fn snapshot_deadline(limits: &Limits) -> Duration {
        limits.timeout
    }

    fn write_deadline(op: &WriteOp, call_timeout: Duration) -> Duration {
        match op {
            WriteOp::SetNumber(_) => call_timeout * 4,
            _ => call_timeout,
        }
    }

    fn apps(&mut self) -> Result<Vec<AppInfo>, BackendError> {
        Ok(Vec::new())
    }

    fn snapshot(&mut self, root: &NodeId, _: &Limits) -> Result<Snapshot, BackendError> {
        self.act(root);
        self.registry.start_read();
        self.registry.insert(root.0.clone(), 1);
        Ok(Snapshot {
            id: SnapshotId::next(),
            app: "Fake".into(),
            window: AppText::default(),
            nodes: vec![Node::new(root.clone(), Role::Window, "window")],
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        })
    }

    fn read_node(&mut self, id: &NodeId) -> Result<Node, BackendError> {
        self.act(id);
        self.registry.lookup(id)?;
        Ok(Node::new(id.clone(), Role::Button, "button"))
    }

    fn children(&mut self, id: &NodeId) -> Result<Vec<Node>, BackendError> {
        self.act(id);
        Ok(Vec::new())
    }

    fn write(&mut self, id: &NodeId, _: &WriteOp) -> WriteAck {
        self.act(id);
        let _ = self.events.send(Event {
            kind: crate::backend::EventKind::Focus,
            source: id.clone(),
            app: "1".into(),
            detail: AppText::default(),
            at: None,
        });
        Ok(true)
    }

    fn idle(&mut self) {
        let _ = self.stopped.send("idle");
    }

    fn stop(&mut self) {
        let _ = self.stopped.send("stop");
    }
}

/// A connected fake, the end that keeps its hanging calls waiting, and what its thread says.
async fn fake() -> (
    ThreadBackend<Fake>,
    mpsc::Sender<()>,
    mpsc::Receiver<&'static str>,
) {
    let (gate_tx, gate) = mpsc::channel();
    let (stopped, said) = mpsc::channel();
    let backend = ThreadBackend::start(Duration::from_secs(60), move |events, _| {
        Ok::<_, BackendError>(Fake {
            gate,
            events,
            registry: Registry::default(),
            stopped,
            _handles: std::marker::PhantomData,
        })
    })
    .await
    .unwrap();
    (backend, gate_tx, said)
}

fn id(s: &str) -> NodeId {
    NodeId(s.into())
}

#[tokio::test]
async fn calls_are_answered_by_the_worker() {
    let (backend, _gate, _) = fake().await;
    assert_eq!(backend.name(), "ax");
    assert!(std::ptr::addr_eq(
        backend.planner(),
        &crate::backend::ax::map::PLANNER
    ));
    assert!(backend.apps().await.unwrap().is_empty());
    let snap = backend
        .snapshot(&id("w"), &Limits::default())
        .await
        .unwrap();
    assert_eq!(snap.app, "Fake");
    assert_eq!(snap.nodes[0].id, id("w"));
    assert!(snap.complete());
    assert_eq!(backend.read_node(&id("w")).await.unwrap().id, id("w"));
    assert!(backend.children(&id("w")).await.unwrap().is_empty());
    let mut events = backend.subscribe();
    assert!(backend.write(&id("w"), &WriteOp::Focus).await.unwrap());
    assert_eq!(events.recv().await.unwrap().source, id("w"));
}

#[tokio::test]
async fn an_element_not_read_is_refused() {
    let (backend, _gate, _) = fake().await;
    let e = backend.read_node(&id("never")).await.unwrap_err();
    assert!(matches!(&e, BackendError::Failed(m)
        if m == "`never` is not an element of this session's reads (take a new snapshot)"));
}

#[tokio::test]
async fn a_call_past_its_deadline_times_out_and_names_itself() {
    let (backend, _gate, _) = fake().await;
    // Connected on the real clock; the deadlines run on the paused one.
    tokio::time::pause();
    let call_timeout = Limits::default().call_timeout;
    match backend.read_node(&id("hang")).await {
        Err(BackendError::Timeout { what, ms }) => {
            assert_eq!(what, "reading an element");
            assert_eq!(ms, (call_timeout * 2).as_millis() as u64);
        }
        other => panic!("{other:?}"),
    }
    match backend.children(&id("hang")).await {
        Err(BackendError::Timeout { what, ms }) => {
            assert_eq!(what, "listing children");
            assert_eq!(ms, 3000);
        }
        other => panic!("{other:?}"),
    }
    // A write is named by the platform's method for the op, with the worker's deadline.
    let op = WriteOp::SetNumber(3.0);
    match backend.write(&id("hang"), &op).await {
        Err(BackendError::Timeout { what, ms }) => {
            assert_eq!(what, crate::backend::ax::map::op_method(&op).as_str());
            assert_eq!(ms, (call_timeout * 4).as_millis() as u64);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_read_past_its_deadline_is_an_empty_timed_out_snapshot() {
    let (backend, _gate, _) = fake().await;
    // Connected on the real clock; the deadlines run on the paused one.
    tokio::time::pause();
    let limits = Limits {
        timeout: Duration::from_secs(2),
        ..Limits::default()
    };
    let snap = backend.snapshot(&id("hang"), &limits).await.unwrap();
    assert!(snap.nodes.is_empty());
    assert_eq!(snap.truncated, Some(Truncation::Timeout));
    assert!(!snap.complete());
}

#[tokio::test]
async fn a_dead_thread_is_unavailable_from_then_on() {
    let (backend, _gate, _) = fake().await;
    let stopped = "the AX thread has stopped";
    let e = backend.read_node(&id("panic")).await.unwrap_err();
    assert!(
        matches!(&e, BackendError::Unavailable(m) if m == stopped),
        "{e:?}"
    );
    let e = backend.apps().await.unwrap_err();
    assert!(
        matches!(&e, BackendError::Unavailable(m) if m == stopped),
        "{e:?}"
    );
}

#[tokio::test]
async fn the_worker_idles_between_requests_and_stops_with_the_backend() {
    let (backend, gate, said) = fake().await;
    assert_eq!(said.recv().unwrap(), "idle");
    drop(backend);
    drop(gate);
    while said.recv().unwrap() != "stop" {}
}

#[tokio::test]
async fn a_worker_that_cannot_start_says_why() {
    let e = ThreadBackend::<Fake>::start(Duration::from_secs(60), |_, _| {
        Err(BackendError::Unavailable("not allowed".into()))
    })
    .await
    .err()
    .unwrap();
    assert!(matches!(&e, BackendError::Unavailable(m) if m == "not allowed"));
    let e = ThreadBackend::<Fake>::start(Duration::from_secs(60), |_, _| {
        panic!("the fake platform crashed while starting")
    })
    .await
    .err()
    .unwrap();
    assert!(
        matches!(&e, BackendError::Unavailable(m) if m == "the AX thread stopped while starting")
    );
}

#[tokio::test(start_paused = true)]
async fn a_worker_that_does_not_start_in_time_is_unavailable() {
    let (gate_tx, gate) = mpsc::channel::<()>();
    let e = ThreadBackend::<Fake>::start(Duration::from_millis(1500), move |_, _| {
        let _ = gate.recv();
        Err(BackendError::Unavailable("gave up".into()))
    })
    .await
    .err()
    .unwrap();
    drop(gate_tx);
    assert!(matches!(&e, BackendError::Unavailable(m)
        if m == "the fake API did not answer within 1500 ms"));
}

#[test]
fn ids_unseen_for_two_reads_go_past_the_cap() {
    let mut reg: Registry<&str> = Registry::with_cap(2);
    reg.start_read();
    reg.insert("a".into(), "A");
    reg.insert("b".into(), "B");
    reg.insert("c".into(), "C");
    reg.start_read();
    // `a` is seen again, in the same place.
    assert!(reg.renew("a", |e| *e == "A"));
    // `b` is somewhere else now: not renewed.
    assert!(!reg.renew("b", |e| *e == "B2"));
    assert!(!reg.renew("zz", |_| true));
    reg.start_read();
    // Over the cap, but everything was seen in the last two reads.
    assert_eq!(reg.len(), 3);
    reg.start_read();
    // Read 4 keeps reads 2 and on: `a` (renewed in read 2) stays, `b` and `c` go.
    assert_eq!(reg.len(), 1);
    assert_eq!(reg.lookup(&id("a")).unwrap(), &"A");
    let e = reg.lookup(&id("b")).unwrap_err();
    assert!(matches!(&e, BackendError::Failed(m)
        if m == "`b` is not an element of this session's reads (take a new snapshot)"));
    assert_eq!(reg.iter().collect::<Vec<_>>(), [("a", &"A")]);
}

#[test]
fn ids_stay_while_under_the_cap() {
    let mut reg: Registry<u8> = Registry::with_cap(10);
    reg.start_read();
    reg.insert("a".into(), 1);
    for _ in 0..5 {
        reg.start_read();
    }
    assert_eq!(reg.get("a"), Some(&1));
    assert!(!reg.is_empty());
}
