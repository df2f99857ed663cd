//! Every call the AT-SPI backend may send, and nothing else.
//!
//! Any call can kill the app it is sent to: `Properties.GetAll("org.a11y.atspi.Accessible")`
//! segfaults Qt 5.15 and Qt 6.4 apps, `Properties.GetAll("org.a11y.atspi.Value")` aborts
//! Chromium on a slider whose minimum cannot be read. So the rest of the backend has no way to
//! send an arbitrary message: [`Caller`]'s raw `call` is private to this module, and each public
//! method (each in `list.rs`) is one call of the set libatspi itself sends (what Orca and Accerciser use every
//! day), with the toolkits it was seen to handle. `Properties.GetAll` is not among them: a
//! property is read with `Properties.Get`, one at a time, and one that fails costs that field,
//! not the element.
//!
//! "Seen" below means: sent to every element of the app in the test matrix (`tests/matrix_*.rs`:
//! gtk3-widget-factory and the project's GTK 3 fixture, gtk4-widget-factory 4.8, the Qt 5.15
//! widget gallery, qt6ct and a PyQt 6.4 form, Chromium on the project's form page) with the app
//! alive and registered afterwards.
//!
//! Every call has a deadline (the caller's per-call budget, capped by the operation's overall
//! deadline). Errors are sorted into: the element is gone (`Vanished`), the application is gone
//! (`AppGone`, decided by asking the bus daemon whether the app's name still has an owner), no
//! answer in time (`Timeout`), or the toolkit said no (`Failed`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use zbus::zvariant::{OwnedObjectPath, OwnedValue};

use super::bus::{ObjRef, WireRef};
use crate::backend::BackendError;

/// The calls themselves, one public method each.
mod list;

const IFACE_ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const IFACE_ACTION: &str = "org.a11y.atspi.Action";
const IFACE_TEXT: &str = "org.a11y.atspi.Text";
const IFACE_EDITABLE_TEXT: &str = "org.a11y.atspi.EditableText";
const IFACE_VALUE: &str = "org.a11y.atspi.Value";
const IFACE_SELECTION: &str = "org.a11y.atspi.Selection";
const IFACE_COMPONENT: &str = "org.a11y.atspi.Component";
const IFACE_TABLE: &str = "org.a11y.atspi.Table";
const IFACE_APPLICATION: &str = "org.a11y.atspi.Application";
const IFACE_CACHE: &str = "org.a11y.atspi.Cache";
const IFACE_COLLECTION: &str = "org.a11y.atspi.Collection";
const IFACE_PROPS: &str = "org.freedesktop.DBus.Properties";
const IFACE_REGISTRY: &str = "org.a11y.atspi.Registry";
const DBUS: &str = "org.freedesktop.DBus";

/// The registry's bus name (it also owns the desktop root).
pub const REGISTRY: &str = "org.a11y.atspi.Registry";
pub const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";
const CACHE_PATH: &str = "/org/a11y/atspi/cache";
const REGISTRY_PATH: &str = "/org/a11y/atspi/registry";

/// The wire form of a `Cache.GetItems` item (AT-SPI ≥ 2.34): object, app, parent, index in
/// parent, child count, interfaces, name, role, description, states.
pub type CacheItemWire = (
    WireRef,
    WireRef,
    WireRef,
    i32,
    i32,
    Vec<String>,
    String,
    u32,
    String,
    Vec<u32>,
);

/// Above this many children an element is never asked for them, nor walked: the bound is far
/// above any real container seen (a 2,000-row web form has 2,000), far below the virtual
/// children of a spreadsheet (2³¹−1).
pub const LIST_MAX: i32 = 10_000;

/// Why an element's children are not asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unlisted {
    /// It has `manages-descendants`: its children are made on demand (a sheet's cells, a tree
    /// view's rows). Orca and Accerciser never enumerate them; neither does treeglass.
    ManagesDescendants,
    /// It says it has more than [`LIST_MAX`] children.
    TooMany,
    /// Its child count is not known yet (`ChildCount` must be read first).
    CountUnknown,
}

/// Proof that an element may be sent `GetChildren`: it does not manage its descendants and has
/// at most [`LIST_MAX`] children. [`Caller::children`] takes nothing else, so no path can list
/// an element it has not checked.
pub struct Listable<'a>(&'a ObjRef);

impl<'a> Listable<'a> {
    /// Checks an element by what was read of it: its states (raw AT-SPI words or normalised)
    /// and its child count (−1: unknown).
    pub fn check(
        obj: &'a ObjRef,
        manages_descendants: bool,
        child_count: i32,
    ) -> Result<Listable<'a>, Unlisted> {
        if manages_descendants {
            Err(Unlisted::ManagesDescendants)
        } else if child_count < 0 {
            Err(Unlisted::CountUnknown)
        } else if child_count > LIST_MAX {
            Err(Unlisted::TooMany)
        } else {
            Ok(Listable(obj))
        }
    }

    /// An element that claims more than [`LIST_MAX`] children but does not manage its
    /// descendants, to be asked for them one at a time (`GetChildAtIndex`) up to a bound: the
    /// claim may be a lie (a bridge that reports a wrong count), and what it gives is what is
    /// believed. Never an element that manages its descendants (a sheet makes each cell it
    /// is asked for).
    pub fn one_by_one(obj: &'a ObjRef, manages_descendants: bool) -> Option<Listable<'a>> {
        (!manages_descendants).then_some(Listable(obj))
    }

    /// An application's root (`/org/a11y/atspi/accessible/root`), whose children are its
    /// top-level windows, or the registry's desktop, whose children are the applications: no
    /// toolkit manages those.
    pub fn root(obj: &'a ObjRef) -> Option<Listable<'a>> {
        (obj.path == ROOT_PATH).then_some(Listable(obj))
    }
}

/// How long `Cache.GetItems` may take: a big page's cache is marshalled in one reply.
pub const CACHE_CALL: Duration = Duration::from_secs(15);

/// The numeric properties of `org.a11y.atspi.Value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueProp {
    Current,
    Minimum,
    Maximum,
    Increment,
}

impl ValueProp {
    fn name(self) -> &'static str {
        match self {
            ValueProp::Current => "CurrentValue",
            ValueProp::Minimum => "MinimumValue",
            ValueProp::Maximum => "MaximumValue",
            ValueProp::Increment => "MinimumIncrement",
        }
    }
}

/// AT-SPI's coordinate types: what extents and points are measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coords {
    /// The screen's top-left corner (on Wayland, where no client knows its place: the
    /// surface's, per toolkit).
    Screen = 0,
    /// The element's top-level window.
    Window = 1,
}

impl Coords {
    /// The coordinates `toolkit` answers right: `WINDOW` for GTK 4, whose `SCREEN` answers are
    /// not screen positions (4.8: relative to the window; 4.18: (0, 0) for every element);
    /// `SCREEN` for the others (Qt's `WINDOW` is relative to the nearest widget window, with
    /// wrong sizes). The `QUIRKS` table's `WindowExtents` rows.
    pub fn of(toolkit: crate::model::Toolkit) -> Coords {
        if crate::backend::atspi::toolkit::works(
            toolkit,
            crate::backend::atspi::toolkit::Work::WindowExtents,
        ) {
            Coords::Window
        } else {
            Coords::Screen
        }
    }
}

/// Application bus names seen leaving the bus (filled by the event pump from
/// `NameOwnerChanged`), so a failing call can say "the app is gone" without asking.
pub type GoneApps = Arc<Mutex<HashSet<String>>>;

/// When an operation last heard from its app. A bulk read keeps hundreds of calls in flight and
/// a slow toolkit (GTK 4 answers ~1 call per ms) works through them in order, so one call's
/// own wait says nothing about the app: the app is hung only when *nothing* came back for the
/// per-call budget.
#[derive(Debug)]
pub struct Progress {
    origin: Instant,
    /// Microseconds after `origin` of the latest answer.
    last_us: AtomicU64,
}

impl Progress {
    pub fn new() -> Arc<Progress> {
        Arc::new(Progress {
            origin: Instant::now(),
            last_us: AtomicU64::new(0),
        })
    }

    fn touch(&self) {
        let now = self.origin.elapsed().as_micros() as u64;
        self.last_us.fetch_max(now, Ordering::Relaxed);
    }

    fn last(&self) -> Instant {
        self.origin + Duration::from_micros(self.last_us.load(Ordering::Relaxed))
    }
}

/// The call as messages name it: the method, or for `Properties.Get`/`Set` the property
/// (`GetState`, `Name`).
fn member<B: serde::Serialize + zbus::zvariant::DynamicType + Sync>(
    method: &str,
    body: &B,
) -> String {
    if matches!(method, "Get" | "Set") {
        // The property's name is the body's second string.
        if let Ok(v) = serde_json::to_value(body)
            && let Some(p) = v.get(1).and_then(|p| p.as_str())
        {
            return p.to_string();
        }
    }
    method.to_string()
}

/// Hands each method reply to the call that waits for it, by serial number, from one stream of
/// the connection's messages.
///
/// zbus's own `call_method` gives every pending call a receiver of one broadcast channel, so
/// each reply is cloned to and filtered by every call in flight: with hundreds in flight (a bulk
/// read) treeglass spent ~250 µs of CPU per reply and read a big web page at a quarter of the
/// pace Chromium answers. Here a reply costs one map lookup.
struct Router {
    waiting: Mutex<std::collections::HashMap<u32, tokio::sync::oneshot::Sender<zbus::Message>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Router {
    fn start(conn: &zbus::Connection) -> Arc<Router> {
        use futures::StreamExt;
        let mut stream = zbus::MessageStream::from(conn);
        Arc::new_cyclic(|me: &std::sync::Weak<Router>| {
            let me = me.clone();
            let task = tokio::spawn(async move {
                while let Some(msg) = stream.next().await {
                    let Ok(msg) = msg else { continue };
                    let Some(serial) = msg.header().reply_serial() else {
                        continue;
                    };
                    let Some(router) = me.upgrade() else { break };
                    let waiter = router
                        .waiting
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&serial.get());
                    if let Some(w) = waiter {
                        let _ = w.send(msg);
                    }
                }
            });
            Router {
                waiting: Mutex::new(Default::default()),
                task,
            }
        })
    }

    /// Registers a call's serial before it is sent.
    fn expect(&self, serial: u32) -> tokio::sync::oneshot::Receiver<zbus::Message> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(serial, tx);
        rx
    }

    /// Forgets a call that will not be waited for any more (timed out or failed to send).
    fn forget(&self, serial: u32) {
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&serial);
    }
}

impl Drop for Router {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// How long an element found silent is not asked the same call again: the rest of a read, and
/// the reads soon after it (the inspector's re-reads), not forever (an element may recover).
const SILENT_FOR: Duration = Duration::from_secs(60);

/// A call on one element: (bus, path, method or property).
type CallKey = (String, String, String);

/// What the backend learned about elements that do not answer while their app does.
#[derive(Default)]
struct SilentBook {
    /// (bus, path, method) → when its call was found silent, and how long it was waited for.
    calls: Mutex<std::collections::HashMap<CallKey, (Instant, u64)>>,
    /// Per app, one probe at a time; its answer (the app answered) and when, reused while
    /// fresh, so the calls that time out together ask the app once.
    /// (answered, sent, answered or given up at).
    probes: tokio::sync::Mutex<std::collections::HashMap<String, (bool, Instant, Instant)>>,
    /// (bus, interface, raw role) of elements that said they implement an interface and
    /// answered that they do not: their twins (same app, same role) are not asked again.
    lacking: Mutex<HashSet<CallKey>>,
}

/// A connection plus the deadlines of one operation. The only way to send anything.
#[derive(Clone)]
pub struct Caller {
    conn: zbus::Connection,
    router: Arc<Router>,
    pub call_timeout: Duration,
    deadline: Option<Instant>,
    gone: GoneApps,
    progress: Option<Arc<Progress>>,
    silent: Arc<SilentBook>,
}

impl Caller {
    /// Must be called inside the tokio runtime (the reply router is a task on it).
    pub fn new(conn: zbus::Connection, call_timeout: Duration, gone: GoneApps) -> Caller {
        Caller {
            router: Router::start(&conn),
            conn,
            call_timeout,
            deadline: None,
            gone,
            progress: None,
            silent: Arc::default(),
        }
    }

    /// The same connection for a bulk operation: a call waits as long as the app keeps
    /// answering other calls (up to the overall deadline), and times out only after the app
    /// answered nothing for `call_timeout`.
    pub fn with_progress(&self) -> Caller {
        Caller {
            progress: Some(Progress::new()),
            ..self.clone()
        }
    }

    /// The same connection with a per-call budget and an overall deadline.
    pub fn scoped(&self, call_timeout: Duration, deadline: Instant) -> Caller {
        Caller {
            call_timeout,
            deadline: Some(deadline),
            ..self.clone()
        }
    }

    /// The same connection with an overall deadline.
    pub fn with_deadline(&self, deadline: Instant) -> Caller {
        self.scoped(self.call_timeout, deadline)
    }

    pub fn connection(&self) -> &zbus::Connection {
        &self.conn
    }

    fn budget(&self) -> Duration {
        match self.deadline {
            Some(d) => self
                .call_timeout
                .min(d.saturating_duration_since(Instant::now())),
            None => self.call_timeout,
        }
    }

    /// Whether `bus` was seen leaving the bus.
    pub fn is_gone(&self, bus: &str) -> bool {
        self.gone
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(bus)
    }

    /// Sends one method call and deserializes its reply within the budget. Private on purpose:
    /// everything the backend sends goes through one of the named methods below.
    async fn call<B, R>(
        &self,
        bus: &str,
        path: &str,
        iface: &str,
        method: &str,
        body: &B,
    ) -> Result<R, BackendError>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType + Sync,
        R: DeserializeOwned + zbus::zvariant::Type,
    {
        let what = || format!("{iface}.{method}");
        if bus.starts_with(':') && self.is_gone(bus) {
            return Err(BackendError::AppGone {
                app: bus.to_string(),
                delivered: false,
            });
        }
        // An element that did not answer this call while its app answered others is not asked
        // again (a read would wait for it each time).
        if let Some(ms) = self.known_silent(bus, path, method, body) {
            return Err(self.silent_error(bus, path, method, body, ms));
        }
        let budget = self.budget();
        if budget.is_zero() {
            return Err(BackendError::Timeout {
                what: what(),
                ms: 0,
            });
        }
        let started = Instant::now();
        let msg = zbus::Message::method_call(path, method)
            .and_then(|b| b.destination(bus))
            .and_then(|b| b.interface(iface))
            .and_then(|b| b.build(body))
            .map_err(|e| BackendError::Failed(format!("{}: {e}", what())))?;
        let serial = msg.primary_header().serial_num().get();
        let reply = self.router.expect(serial);
        let fut = async {
            self.conn.send(&msg).await?;
            let msg = reply.await.map_err(|_| {
                zbus::Error::InputOutput(std::io::Error::other("connection closed").into())
            })?;
            match msg.message_type() {
                zbus::message::Type::Error => Err(zbus::Error::from(msg)),
                _ => Ok(msg),
            }
        };
        tokio::pin!(fut);
        let mut answer = match &self.progress {
            None => tokio::time::timeout(budget, fut.as_mut()).await,
            Some(p) => self.await_progress(p, started, fut.as_mut()).await,
        };
        // One element silent, or the whole app? Another object answering says which. An app
        // answers its calls in order: when it answers the probe, sent after this call, it has
        // answered this call first unless the element kept it. Then the app was only busy
        // (its main loop blocked), and this answer, late, is taken: nothing is booked silent.
        let mut app_answers = false;
        if answer.is_err() && path != ROOT_PATH && bus.starts_with(':') {
            app_answers = self.app_answers(bus, started).await;
            if app_answers && let Some(late) = futures::FutureExt::now_or_never(fut.as_mut()) {
                tracing::debug!(bus, path, call = %what(), "answered late: the app was busy");
                answer = Ok(late);
            }
        }
        if !matches!(answer, Ok(Ok(_))) {
            self.router.forget(serial);
        }
        if let Some(p) = &self.progress
            && answer.is_ok()
        {
            p.touch();
        }
        let msg = match answer {
            Err(_) => {
                let ms = started.elapsed().as_millis() as u64;
                tracing::debug!(bus, path, call = %what(), ms, "call timed out");
                if app_answers {
                    self.silent
                        .calls
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(
                            (bus.to_string(), path.to_string(), member(method, body)),
                            (Instant::now(), ms),
                        );
                    let e = self.silent_error(bus, path, method, body, ms);
                    tracing::info!(bus, path, error = %e, "element silent");
                    return Err(e);
                }
                return Err(BackendError::Timeout {
                    what: format!("{} on {bus}", what()),
                    ms: budget.as_millis() as u64,
                });
            }
            Ok(Err(e)) => {
                let err = self.classify(bus, e).await;
                tracing::debug!(bus, path, call = %what(), error = %err, "call failed");
                return Err(err);
            }
            Ok(Ok(m)) => m,
        };
        tracing::trace!(bus, path, call = %what(), us = started.elapsed().as_micros() as u64, "call");
        msg.body().deserialize::<R>().map_err(|e| {
            tracing::debug!(bus, path, call = %what(), error = %e, "bad reply");
            BackendError::BadReply {
                call: member(method, body),
                detail: e.to_string(),
            }
        })
    }

    /// How long `method` on (`bus`, `path`) was waited for when it was found silent, if it was
    /// (and not too long ago).
    fn known_silent<B: serde::Serialize + zbus::zvariant::DynamicType + Sync>(
        &self,
        bus: &str,
        path: &str,
        method: &str,
        body: &B,
    ) -> Option<u64> {
        let mut calls = self.silent.calls.lock().unwrap_or_else(|e| e.into_inner());
        // The common case costs one look at an empty map.
        if calls.is_empty() {
            return None;
        }
        let key = (bus.to_string(), path.to_string(), member(method, body));
        match calls.get(&key) {
            Some((at, ms)) if at.elapsed() < SILENT_FOR => Some(*ms),
            Some(_) => {
                calls.remove(&key);
                None
            }
            None => None,
        }
    }

    fn silent_error<B: serde::Serialize + zbus::zvariant::DynamicType + Sync>(
        &self,
        bus: &str,
        path: &str,
        method: &str,
        body: &B,
        ms: u64,
    ) -> BackendError {
        BackendError::Silent {
            element: ObjRef::new(bus, path).id().0,
            call: member(method, body),
            ms,
        }
    }

    /// Whether elements of `raw_role` in the app on `bus` were found to lack `iface` (though
    /// they list it): then their twins are not asked.
    pub fn lacks(&self, bus: &str, iface: &str, raw_role: &str) -> bool {
        let lacking = self
            .silent
            .lacking
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        !lacking.is_empty()
            && lacking.contains(&(bus.to_string(), iface.to_string(), raw_role.to_string()))
    }

    /// Notes that an element of `raw_role` answered `NoInterface` for `iface` (see
    /// [`Caller::lacks`]); the error is passed through.
    pub fn note_lacking<T>(
        &self,
        r: Result<T, BackendError>,
        bus: &str,
        iface: &str,
        raw_role: &str,
    ) -> Result<T, BackendError> {
        if let Err(BackendError::NoInterface(_)) = &r {
            self.silent
                .lacking
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert((bus.to_string(), iface.to_string(), raw_role.to_string()));
        }
        r
    }

    /// Whether the app on `bus` answers a cheap call on another object (its root's `Name`)
    /// within the per-call budget, sent after a call sent at `since`. Asked once for all the
    /// calls that time out together (a probe sent after each of them was).
    async fn app_answers(&self, bus: &str, since: Instant) -> bool {
        let mut probes = self.silent.probes.lock().await;
        if let Some((answered, sent, at)) = probes.get(bus)
            && at.elapsed() < self.call_timeout
            && *sent >= since
        {
            return *answered;
        }
        let sent = Instant::now();
        let probe = Caller {
            progress: None,
            ..self.clone()
        };
        // Boxed: `call` awaits this probe, and the probe is a `call` (on the root, which is
        // never probed for, so it goes no deeper).
        let name = Box::pin(probe.call::<_, OwnedValue>(
            bus,
            ROOT_PATH,
            IFACE_PROPS,
            "Get",
            &(IFACE_ACCESSIBLE, "Name"),
        ));
        let answered = !matches!(
            name.await,
            Err(BackendError::Timeout { .. } | BackendError::AppGone { .. })
        );
        tracing::debug!(bus, answered, "probed the app with its root's Name");
        probes.insert(bus.to_string(), (answered, sent, Instant::now()));
        answered
    }

    /// Waits for `fut` until the overall deadline, or until the app has answered nothing (to any
    /// call of this operation) for `call_timeout`.
    async fn await_progress<F, T>(
        &self,
        p: &Progress,
        started: Instant,
        fut: F,
    ) -> Result<T, tokio::time::error::Elapsed>
    where
        F: std::future::Future<Output = T>,
    {
        tokio::pin!(fut);
        let hard = self.deadline.unwrap_or(started + self.call_timeout);
        loop {
            let stall = p.last().max(started) + self.call_timeout;
            let wake = stall.min(hard);
            match tokio::time::timeout_at(wake.into(), &mut fut).await {
                Ok(v) => return Ok(v),
                Err(elapsed) => {
                    let now = Instant::now();
                    if now >= hard || now >= p.last().max(started) + self.call_timeout {
                        return Err(elapsed);
                    }
                }
            }
        }
    }

    /// Sorts a failed call: the element gone, the whole application gone, or a refusal.
    async fn classify(&self, bus: &str, e: zbus::Error) -> BackendError {
        let text = e.to_string();
        let name = match &e {
            zbus::Error::MethodError(name, _, _) => name.as_str().to_string(),
            _ => String::new(),
        };
        // NoReply: the app had the message and left (or never answered); the others: the
        // message never reached it.
        let no_reply = name.ends_with("NoReply")
            || name.ends_with("Disconnected")
            || matches!(e, zbus::Error::InputOutput(_));
        let undelivered = name.ends_with("ServiceUnknown") || name.ends_with("NameHasNoOwner");
        if (no_reply || undelivered) && bus.starts_with(':') {
            if self.is_gone(bus) || !self.name_has_owner(bus).await.unwrap_or(true) {
                self.gone
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(bus.to_string());
                return BackendError::AppGone {
                    app: bus.to_string(),
                    delivered: no_reply,
                };
            }
            if no_reply {
                // Still on the bus, yet no answer: as good as a timeout (a write may land).
                return BackendError::Timeout {
                    what: format!("no reply from {bus}: {text}"),
                    ms: 0,
                };
            }
            return BackendError::Vanished(text);
        }
        // at-spi2-atk: UnknownObject for a path with no object, UnknownMethod "… doesn't exist"
        // for an interface (or method) the object lacks; GDBus (GTK 4): UnknownMethod for both,
        // "Object does not exist at path" or "No such interface".
        if name.ends_with("UnknownObject") || text.contains("Object does not exist at path") {
            return BackendError::Vanished(text);
        }
        if name.ends_with("UnknownMethod")
            && (text.contains("doesn't exist") || text.contains("No such interface"))
        {
            return BackendError::NoInterface(text);
        }
        BackendError::Failed(text)
    }

    /// `Properties.Get` of one property.
    async fn get<R>(&self, obj: &ObjRef, iface: &str, prop: &str) -> Result<R, BackendError>
    where
        R: TryFrom<OwnedValue>,
    {
        let v: OwnedValue = self
            .call(&obj.bus, &obj.path, IFACE_PROPS, "Get", &(iface, prop))
            .await?;
        R::try_from(v).map_err(|_| BackendError::BadReply {
            call: prop.to_string(),
            detail: "a value of another type".into(),
        })
    }

    // ---- Cache ------------------------------------------------------------------------------
}
