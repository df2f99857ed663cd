//! Linux AT-SPI2 backend: bulk tree reads, events drained continuously, writes through the
//! semantic interfaces. Platform handles stay here; only model data leaves. Everything sent to
//! an application goes through `calls/`, the one list of calls the toolkits survive.

mod bus;
mod calls;
pub mod doctor;
mod events;
mod facts;
pub mod method;
pub(crate) mod process;
mod reader;
pub mod roles;
pub mod strategy;
pub mod toolkit;
mod windows;

/// The raw role name treeglass gives AT-SPI role number `raw` (libatspi's own names differ
/// between its versions: role 43 is "push button" in 2.46 and "button" in 2.56; treeglass keeps
/// the first, and targets take both).
pub fn raw_role_name(raw: u32) -> String {
    bus::role_of(raw).1
}

use events::*;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::StreamExt;
use tokio::sync::broadcast;

use self::bus::*;
use self::calls::{Caller, Coords, GoneApps, Listable, ROOT_PATH};
use super::progress::ReadProgress;
use super::{
    AppInfo, Backend, BackendError, Candidates, Event, EventKind, Limits, WindowInfo, WriteAck,
    WriteOp,
};
use crate::desktop;
use crate::model::Toolkit;
use crate::model::{AppText, Bounds, Interface, Node, NodeId, Role, Snapshot};

/// How [`AtspiBackend::until_focused`] waits for an element to have the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Focusing {
    /// Asks for it (GrabFocus) while it waits.
    Grab,
    /// Only looks (something else, a menu opening, gives it).
    Wait,
}

/// The AT-SPI2 backend over one connection to the accessibility bus.
pub struct AtspiBackend {
    caller: Caller,
    actions: reader::ActionCache,
    /// Where tree reads say how far they have got (`Backend::report_reads`; until a front end
    /// hands one over, one nobody looks at).
    progress: Mutex<Arc<ReadProgress>>,
    /// Each app's toolkit, by bus name (read once from its `Application` interface).
    toolkits: Mutex<HashMap<String, Toolkit>>,
    /// Keys, clicks and window positions: X11's, sway's, or none (chosen at connect).
    input: Arc<dyn desktop::Input>,
    /// Why an element read last had no bounds on screen, by node id (at most 256 kept).
    unplaced: Mutex<HashMap<String, String>>,
    /// The window last activated for synthesized input, by bus name (the element's extents
    /// are placed relative to it; a click outside it is refused).
    windows: Mutex<HashMap<String, (desktop::Window, Instant)>>,
    /// Each app as it was last listed while answering, by bus name: an app that stops
    /// answering keeps its name and windows in the list (marked not responding).
    seen: Known,
    /// Event kinds are registered with the registry on the first `subscribe` only: a one-shot
    /// read needs no events, and registering makes every app start sending them.
    registered: std::sync::Once,
    /// Set once the ATK bridges have been told a client is listening (see [`WAKE_EVENT`]).
    awake: tokio::sync::OnceCell<()>,
    events: broadcast::Sender<Event>,
    _pump: tokio::task::JoinHandle<()>,
}

impl Drop for AtspiBackend {
    fn drop(&mut self) {
        self._pump.abort();
    }
}

/// The event kind registered before the first tree read. The ATK bridge (GTK 3, Chromium,
/// Firefox, LibreOffice: every app that goes through at-spi2-atk) creates its
/// `org.a11y.atspi.Cache` only once some client has registered for an event; until then
/// `Cache.GetItems` answers `UnknownMethod` and a tree costs six calls per element instead of
/// one call in all (gtk3-widget-factory: about 10× slower). Registering one kind of event wakes
/// the bridge. A window being created is rare, so the apps send next to nothing because of it;
/// the registration ends with the connection (the registry and the bridges drop a client whose
/// bus name goes away).
const WAKE_EVENT: &str = "window:create";

impl AtspiBackend {
    /// Connects to the accessibility bus: `AT_SPI_BUS_ADDRESS` or `A11Y_BUS_ADDRESS` when set,
    /// else the address the session bus gives (`org.a11y.Bus.GetAddress`). Fails within `timeout`.
    pub async fn connect(timeout: Duration) -> Result<AtspiBackend, BackendError> {
        Self::connect_at(None, timeout).await
    }

    /// Connects to the accessibility bus at `address` (D-Bus address syntax), whatever this
    /// process's environment says: `treeglass session` checks the app it started on the bus it
    /// started. Fails within `timeout`.
    pub async fn connect_to(
        address: &str,
        timeout: Duration,
    ) -> Result<AtspiBackend, BackendError> {
        Self::connect_at(Some(address), timeout).await
    }

    async fn connect_at(
        address: Option<&str>,
        timeout: Duration,
    ) -> Result<AtspiBackend, BackendError> {
        let conn = tokio::time::timeout(timeout, open_connection(address))
            .await
            .map_err(|_| {
                BackendError::Unavailable(format!(
                    "no answer from the accessibility bus within {} ms",
                    timeout.as_millis()
                ))
            })??;
        let gone: GoneApps = Arc::new(Mutex::new(HashSet::new()));
        let caller = Caller::new(conn, Limits::default().call_timeout, gone.clone());
        let input = desktop::choose();
        let (tx, _) = broadcast::channel(4096);
        // The pump starts first so that no signal (an app leaving included) is missed.
        let pump = tokio::spawn(pump_events(caller.connection().clone(), tx.clone(), gone));
        Ok(AtspiBackend {
            caller,
            actions: Default::default(),
            progress: Default::default(),
            toolkits: Mutex::new(HashMap::new()),
            input,
            unplaced: Mutex::new(HashMap::new()),
            windows: Mutex::new(HashMap::new()),
            seen: Known::default(),
            registered: std::sync::Once::new(),
            awake: tokio::sync::OnceCell::new(),
            events: tx,
            _pump: pump,
        })
    }

    /// A call that timed out on an app that still owns its bus name: the app is not
    /// responding (busy or hung), named by its process. Other errors pass unchanged.
    async fn silent_or(&self, bus: &str, e: BackendError) -> BackendError {
        let BackendError::Timeout { .. } = e else {
            return e;
        };
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout);
        if !bus.starts_with(':') || c.is_gone(bus) || !c.name_has_owner(bus).await.unwrap_or(false)
        {
            return e;
        }
        let pid = c.unix_pid(bus).await.ok();
        BackendError::NotResponding {
            app: crate::backend::Unanswering {
                name: pid.map(|pid| process::label(pid).unwrap_or_default().into()),
                pid,
                bus: Some(bus.to_string()),
            },
            ms: self.caller.call_timeout.as_millis() as u64,
        }
    }

    /// `r`, from the calls a write makes before it sends anything (the actions' names, the
    /// app's round trip before input, where the element is and what the app places at its
    /// centre). Failed, nothing was sent: it must not read as a write that may have landed. A
    /// call the app did not answer names the app as not responding where it still owns its
    /// name ([`Self::silent_or`]), else says nothing was sent; an app that left never got the
    /// write.
    async fn before_sending<T>(
        &self,
        bus: &str,
        r: Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        let Err(e) = r else { return r };
        Err(match self.silent_or(bus, e).await {
            BackendError::Timeout { what, ms } => BackendError::Unsupported(format!(
                "{what} did not answer in {ms} ms, before anything was sent: nothing was sent"
            )),
            BackendError::AppGone { app, .. } => BackendError::AppGone {
                app,
                delivered: false,
            },
            e => e,
        })
    }

    async fn read_node_of(&self, obj: ObjRef) -> Result<Node, BackendError> {
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout * 2);
        let toolkit = self.toolkit(&c, &obj.bus).await?;
        let raw = reader::read_fields(&c, &obj, toolkit).await?;
        let mut node = Node::new(obj.id(), raw.role, raw.raw_role.clone());
        node.name = raw.name.as_str().into();
        node.description = raw.description.as_str().into();
        node.states = raw.states;
        node.interfaces = raw.interfaces;
        let acts = async {
            if raw.interfaces.has(Interface::Action) {
                reader::read_actions(&c, &obj, true).await
            } else {
                Ok((Vec::new(), Vec::new()))
            }
        };
        let val = reader::get_value(&c, &raw, toolkit, None);
        let label = async {
            if crate::audit::name_roles::reads_label(raw.role, &raw.raw_role, raw.states, &raw.name)
            {
                reader::read_label(&c, &obj, None).await
            } else {
                Ok(None)
            }
        };
        let bounds = async {
            if !raw.interfaces.has(Interface::Component) {
                return None;
            }
            let placed = self.screen_extents(&c, &obj, toolkit).await;
            let mut notes = self.unplaced.lock().unwrap_or_else(|e| e.into_inner());
            let key = obj.id().0;
            match placed {
                Ok(b) => {
                    notes.remove(&key);
                    Some(b)
                }
                Err(e) => {
                    if notes.len() >= 256 {
                        notes.clear();
                    }
                    // Why it has no place on screen: the reason itself, not an input refusal.
                    let why = match e {
                        BackendError::NoInput(why) => why,
                        e => e.to_string(),
                    };
                    notes.insert(key, why);
                    None
                }
            }
        };
        let (acts, val, label, bounds) = tokio::join!(acts, val, label, bounds);
        // A call the element alone did not answer (or answered wrongly) leaves its part
        // unknown and named.
        let mut unanswered = raw.unusable.clone();
        let (actions, labels) = reader::answered(acts, &mut unanswered)?.unwrap_or_default();
        node.actions = actions.into_iter().map(AppText::from).collect();
        node.action_labels = labels.into_iter().map(AppText::from).collect();
        node.value = reader::answered(val, &mut unanswered)?.flatten();
        node.label = reader::answered(label, &mut unanswered)?
            .flatten()
            .map(AppText::from);
        node.bounds = bounds;
        unanswered.onto(&mut node);
        Ok(node)
    }

    async fn children_of(&self, obj: ObjRef) -> Result<Vec<Node>, BackendError> {
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(3));
        let toolkit = self.toolkit(&c, &obj.bus).await?;
        let parent = reader::read_raw(&c, &obj, toolkit).await?;
        // An element that manages its descendants (or has too many) is never enumerated; a
        // small table among them (Qt's combo box keeps its options in a list view that manages
        // its descendants) gives its cells one by one, bounded by the size it reports.
        let kids = match reader::list(&c, &parent).await? {
            Some(kids) => kids,
            None => reader::small_table_cells(&c, &parent).await?,
        };
        let ids: Vec<NodeId> = kids.iter().map(ObjRef::id).collect();
        let nodes = futures::future::join_all(ids.iter().map(|k| self.read_node(k))).await;
        let mut out = Vec::with_capacity(nodes.len());
        for n in nodes {
            match n {
                Ok(n) => out.push(n),
                Err(e @ (BackendError::AppGone { .. } | BackendError::NotResponding { .. })) => {
                    return Err(e);
                }
                // A child that went away while being read is simply not an option any more.
                Err(_) => {}
            }
        }
        Ok(out)
    }

    fn caller(&self) -> &Caller {
        &self.caller
    }

    /// How fast an app answers each kind of call an element's read sends (microseconds per
    /// call, every element asked at once, one kind at a time), measured on the elements of
    /// `role` under `root` that `Collection.GetMatches` finds (the browsers). For the
    /// benchmark, which compares a read without the app's cache with what the app can answer.
    pub async fn call_costs(
        &self,
        root: &NodeId,
        role: Role,
    ) -> Result<Vec<(&'static str, f64)>, BackendError> {
        let obj = ObjRef::from_id(root)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(60));
        let roles = raw_roles(role);
        let found = c.matches_by_role(&obj, &roles).await?;
        Ok(reader::call_costs(&c, &found).await)
    }

    /// Keeps the toolkit an app listing read (its `ToolkitName` and `Version`), so a read that
    /// follows does not ask for it again.
    fn remember_toolkit(&self, info: &AppInfo) {
        let Some(name) = &info.toolkit else { return };
        let version = info.toolkit_version.as_ref().map_or("", |v| v.as_str());
        self.toolkits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(info.bus_name.clone())
            .or_insert_with(|| Toolkit::detect(name.as_str(), version));
    }

    /// Makes ATK bridges build their cache, once per connection (see [`WAKE_EVENT`]). The
    /// registry forwards the registration to every app before it answers, and each app reads
    /// its messages in order, so a `GetItems` sent after the answer finds the cache. A failure
    /// only costs speed: the reader walks the tree instead.
    async fn wake_bridges(&self) {
        self.awake
            .get_or_init(|| async {
                let reg = self
                    .caller()
                    .with_deadline(Instant::now() + Duration::from_secs(1));
                if let Err(e) = reg.register_event(WAKE_EVENT).await {
                    tracing::warn!(event = WAKE_EVENT, error = %e, "RegisterEvent failed");
                }
            })
            .await;
    }

    /// The toolkit of the app on `bus`, read once (its `ToolkitName` and `Version`).
    async fn toolkit(&self, c: &Caller, bus: &str) -> Result<Toolkit, BackendError> {
        if let Some(t) = self
            .toolkits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(bus)
        {
            return Ok(*t);
        }
        let app = ObjRef::new(bus, ROOT_PATH);
        let (name, version) = tokio::join!(c.toolkit_name(&app), c.toolkit_version(&app));
        let tk = match (name, version) {
            (Ok(n), v) => Toolkit::detect(&n, &v.unwrap_or_default()),
            (Err(e @ BackendError::AppGone { .. }), _) => return Err(e),
            // A hung app: the read that follows says so; ask again next time.
            (Err(BackendError::Timeout { .. }), _) => return Ok(Toolkit::Other),
            (Err(_), _) => Toolkit::Other,
        };
        self.toolkits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(bus.to_string(), tk);
        Ok(tk)
    }
}

/// Where the accessibility bus is: `AT_SPI_BUS_ADDRESS` or `A11Y_BUS_ADDRESS` when set, else
/// what the session bus's `org.a11y.Bus` says.
async fn a11y_address() -> Result<String, BackendError> {
    let unavailable =
        |what: &str, e: zbus::Error| BackendError::Unavailable(format!("{what}: {e}"));
    if let Some(addr) = ["AT_SPI_BUS_ADDRESS", "A11Y_BUS_ADDRESS"]
        .iter()
        .find_map(|var| std::env::var(var).ok().filter(|a| !a.is_empty()))
    {
        return Ok(addr);
    }
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none()
        && std::env::var_os("XDG_RUNTIME_DIR").is_none()
    {
        return Err(BackendError::Unavailable(
            "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)".into(),
        ));
    }
    let session = zbus::Connection::session()
        .await
        .map_err(|e| unavailable("session bus", e))?;
    let c = Caller::new(session, Duration::from_secs(3), Default::default());
    c.a11y_bus_address().await.map_err(|e| {
        BackendError::Unavailable(format!("org.a11y.Bus.GetAddress on the session bus: {e}"))
    })
}

/// Opens a plain connection to the accessibility bus (at `address`, else where
/// [`a11y_address`] finds it). Only the calls of `calls/` go over it (no proxies that make
/// calls of their own on creation).
async fn open_connection(address: Option<&str>) -> Result<zbus::Connection, BackendError> {
    let unavailable =
        |what: &str, e: zbus::Error| BackendError::Unavailable(format!("{what}: {e}"));
    let address = match address {
        Some(a) => a.to_string(),
        None => a11y_address().await?,
    };
    let addr: zbus::Address = address
        .parse()
        .map_err(|e| unavailable("accessibility bus address", e))?;
    zbus::connection::Builder::address(addr)
        .map_err(|e| unavailable("accessibility bus address", e))?
        .build()
        .await
        .map_err(|e| unavailable("accessibility bus", e))
}

#[async_trait]
impl Backend for AtspiBackend {
    fn name(&self) -> &'static str {
        "atspi"
    }

    fn planner(&self) -> &'static dyn super::strategy::Planner {
        &strategy::PLANNER
    }

    fn audit_reads(&self) -> super::AuditReads {
        super::AuditReads {
            labels: true,
            facts: true,
        }
    }

    fn input(&self) -> super::strategy::InputPaths {
        super::strategy::InputPaths {
            keyboard: self.input.keyboard(),
            pointer: self.input.pointer(),
        }
    }

    fn screen_note(&self, id: &NodeId) -> Option<String> {
        self.unplaced
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&id.0)
            .cloned()
    }

    fn op_method(&self, op: &WriteOp) -> AppText {
        let method = method::of(op);
        let path = match op {
            WriteOp::TypeText(_) | WriteOp::Key(_) => self.input.keyboard(),
            WriteOp::Click => self.input.pointer(),
            _ => return method,
        };
        match path {
            Ok(p) => format!("{} via {p}", method.as_str()).into(),
            Err(_) => method,
        }
    }

    async fn app_by_pid(&self, pid: u32) -> Result<Option<AppInfo>, BackendError> {
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(5));
        let apps = c.desktop_apps().await?;
        // The bus daemon knows each app's process: nothing is asked of the apps themselves.
        let pids = futures::future::join_all(apps.iter().map(|a| c.unix_pid(&a.bus))).await;
        let Some(app) = apps
            .into_iter()
            .zip(pids)
            .find_map(|(a, p)| (p.ok() == Some(pid)).then_some(a))
        else {
            return Ok(None);
        };
        let info = app_info(&c, app, &self.seen).await;
        if let Some(i) = &info {
            self.remember_toolkit(i);
        }
        Ok(info)
    }

    async fn diagnose(&self) -> Option<crate::doctor::Report> {
        Some(doctor::diagnose().await)
    }

    async fn toolkit(&self, id: &NodeId) -> Option<Toolkit> {
        let obj = ObjRef::from_id(id).ok()?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout);
        self.toolkit(&c, &obj.bus).await.ok()
    }

    async fn apps(&self) -> Result<Vec<AppInfo>, BackendError> {
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(5));
        let apps = c.desktop_apps().await?;
        let infos = futures::future::join_all(apps.into_iter().map(|a| {
            let c = c.clone();
            let seen = &self.seen;
            async move { app_info(&c, a, seen).await }
        }))
        .await;
        // Apps that vanished or hung while being listed are left out rather than failing all.
        let infos: Vec<AppInfo> = infos.into_iter().flatten().collect();
        for i in infos.iter().filter(|i| i.responding) {
            self.remember_toolkit(i);
        }
        Ok(infos)
    }

    async fn snapshot(&self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError> {
        let obj = ObjRef::from_id(root)?;
        let started = Instant::now();
        let c = self
            .caller()
            .scoped(limits.call_timeout, started + limits.timeout);
        let app_obj = ObjRef::new(obj.bus.clone(), ROOT_PATH);
        let (toolkit, ()) = tokio::join!(self.toolkit(&c, &obj.bus), self.wake_bridges());
        let toolkit = toolkit?;
        // The app's name travels with the tree read instead of before it.
        let progress = self
            .progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let (app_name, snap) = tokio::join!(
            c.name(&app_obj),
            reader::read_tree(&c, &obj, limits, toolkit, &self.actions, &progress)
        );
        let mut snap = snap?;
        snap.app = app_name.unwrap_or_default().into();
        Ok(snap)
    }

    fn report_reads(&self, progress: Arc<ReadProgress>) {
        *self.progress.lock().unwrap_or_else(|e| e.into_inner()) = progress;
    }

    async fn read_node(&self, id: &NodeId) -> Result<Node, BackendError> {
        let obj = ObjRef::from_id(id)?;
        match self.read_node_of(obj.clone()).await {
            Err(e) => Err(self.silent_or(&obj.bus, e).await),
            ok => ok,
        }
    }

    async fn bring_into_view(&self, node: &Node) -> Option<(Node, String)> {
        use crate::model::State;
        // Gecko only (see `Caller::scroll_to`): an element it has not laid out is not
        // showing and has no extents (and a control among them no actions); one scrolled out
        // of the view is not showing, and a click at its centre would land outside the page.
        let in_view = |n: &Node| {
            n.states.has(State::Showing) && n.bounds.is_some_and(|b| b.width > 0 && b.height > 0)
        };
        let needs = !node.states.has(State::Showing) && node.interfaces.has(Interface::Component);
        if !needs {
            return None;
        }
        let obj = ObjRef::from_id(&node.id).ok()?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout);
        if !toolkit::works(
            self.toolkit(&c, &obj.bus).await.ok()?,
            toolkit::Work::ScrollIntoView,
        ) {
            return None;
        }
        let said = match c.scroll_to(&obj).await {
            Ok(said) => said,
            Err(e) => {
                tracing::debug!(error = %e, "ScrollTo failed");
                return None;
            }
        };
        // Gecko lays the element out and scrolls on its next refresh: read it again until it
        // is showing, with extents.
        let until = Instant::now() + Duration::from_millis(500);
        let mut again = None;
        while Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
            match self.read_node(&node.id).await {
                Ok(n) if in_view(&n) => {
                    again = Some(n);
                    break;
                }
                Ok(n) => again = Some(n),
                Err(_) => break,
            }
        }
        let sent =
            format!("Component.ScrollTo(anywhere) → {said} (off screen: scrolled into view first)");
        again.map(|n| (n, sent))
    }

    async fn children(&self, id: &NodeId) -> Result<Vec<Node>, BackendError> {
        let obj = ObjRef::from_id(id)?;
        match self.children_of(obj.clone()).await {
            Err(e) => Err(self.silent_or(&obj.bus, e).await),
            ok => ok,
        }
    }

    async fn index_in_parent(&self, id: &NodeId) -> Result<Option<usize>, BackendError> {
        let obj = ObjRef::from_id(id)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout);
        match c.index_in_parent(&obj).await {
            Ok(i) => Ok(usize::try_from(i).ok()),
            Err(e) => Err(self.silent_or(&obj.bus, e).await),
        }
    }

    async fn audit_facts(
        &self,
        snap: &Snapshot,
        on_screen: crate::model::State,
    ) -> Result<Option<crate::audit::Facts>, BackendError> {
        let Some(root) = snap.nodes.first() else {
            return Ok(None);
        };
        let obj = ObjRef::from_id(&root.id)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(600));
        let coords = calls::Coords::of(self.toolkit(&c, &obj.bus).await?);
        match facts::read(&c, snap, on_screen, coords).await {
            Ok(f) => Ok(Some(f)),
            Err(e) => Err(self.silent_or(&obj.bus, e).await),
        }
    }

    async fn candidates(
        &self,
        root: &NodeId,
        role: Role,
        labels: bool,
        named: Option<&str>,
    ) -> Result<Option<Candidates>, BackendError> {
        let obj = ObjRef::from_id(root)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(10));
        let toolkit = self.toolkit(&c, &obj.bus).await?;
        if !toolkit::works(toolkit, toolkit::Work::Narrows) {
            return Ok(None);
        }
        reader::candidates(&c, &obj, role, toolkit, labels, named).await
    }

    async fn path_to(
        &self,
        root: &NodeId,
        id: &NodeId,
        labels: bool,
    ) -> Result<Vec<Node>, BackendError> {
        let (root, obj) = (ObjRef::from_id(root)?, ObjRef::from_id(id)?);
        let c = self
            .caller()
            .with_deadline(Instant::now() + Duration::from_secs(10));
        let toolkit = self.toolkit(&c, &obj.bus).await?;
        reader::path_to(&c, &root, &obj, toolkit, labels).await
    }

    async fn write(&self, id: &NodeId, op: &WriteOp) -> WriteAck {
        let obj = ObjRef::from_id(id)?;
        let c = self
            .caller()
            .with_deadline(Instant::now() + self.caller.call_timeout);
        match op {
            WriteOp::SetText(text) => c.set_text_contents(&obj, text).await,
            WriteOp::SetNumber(v) => c.set_current_value(&obj, *v).await.map(|_| true),
            WriteOp::StepTo(_) => Err(BackendError::Unsupported("stepping (AX only)".into())),
            WriteOp::Action(name) => {
                let (names, _) = self
                    .before_sending(&obj.bus, reader::read_actions(&c, &obj, false).await)
                    .await?;
                let index = names
                    .iter()
                    .position(|a| a.eq_ignore_ascii_case(name.as_str()))
                    .ok_or_else(|| {
                        BackendError::Unsupported(format!(
                            "no action `{}` (has: {})",
                            name.literal(40),
                            names
                                .iter()
                                .map(|n| crate::model::literal(n, 40))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })?;
                c.do_action(&obj, index as i32).await
            }
            WriteOp::SelectChild(index) => c.select_child(&obj, *index as i32).await,
            // Keys go to whatever has the focus: the element must be seen focused before any
            // is sent. A toolkit that just got its window activated may refuse the first
            // GrabFocus, so it is asked again while the element does not say it is focused.
            WriteOp::Focus => match self.until_focused(&c, &obj, Focusing::Grab).await? {
                (true, _) => Ok(true),
                (false, answer) => Err(BackendError::Unsupported(format!(
                    "the element did not take the keyboard focus (GrabFocus answered {answer}); \
                     no key was sent"
                ))),
            },
            WriteOp::AwaitMenuKeyboard => {
                match self
                    .input
                    .wait_menu_keyboard(Duration::from_millis(800))
                    .await?
                {
                    Some(true) => Ok(true),
                    Some(false) => Err(BackendError::Unsupported(
                        "the menu never took the keyboard; no key was sent".into(),
                    )),
                    // The display server cannot tell (Wayland): the current option was
                    // already seen focused in the tree (the plan's `AwaitFocus`).
                    None => Ok(true),
                }
            }
            WriteOp::AwaitFocus => match self.until_focused(&c, &obj, Focusing::Wait).await? {
                (true, _) => Ok(true),
                (false, _) => Err(BackendError::Unsupported(
                    "the element never took the keyboard focus; no further key was sent".into(),
                )),
            },
            WriteOp::SelectAllText => self.select_all(&c, &obj).await,
            WriteOp::TypeText(text) => {
                self.before_sending(&obj.bus, self.prepare_input(&c, &obj).await)
                    .await?;
                Ok(self.input.type_text(text).await.map(|_| true)?)
            }
            WriteOp::Key(k) => {
                self.before_sending(&obj.bus, self.prepare_input(&c, &obj).await)
                    .await?;
                Ok(self.input.key(*k).await.map(|_| true)?)
            }
            WriteOp::ActivateWindow(title) => {
                // The devices the keys and clicks will come from, made first: everything the
                // write asks of the app from here on (its window, focus, placement) is the
                // app's answer since (`desktop::eis::Held`).
                self.input.prepare().await?;
                let win = match self.window_of(&c, &obj.bus, title.as_str()).await {
                    Ok(w) => w,
                    Err(BackendError::NoInput(why)) if self.input.keys_to_active_window() => {
                        return self.already_active(&c, &obj, title, why).await;
                    }
                    Err(e) => return Err(e),
                };
                if !win.visible {
                    return Err(BackendError::NoInput(format!(
                        "the window {} is not shown (another workspace, or hidden)",
                        crate::model::quoted(&win.title, 60)
                    )));
                }
                self.input.activate(&win).await?;
                self.windows
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(obj.bus.clone(), (win, Instant::now()));
                Ok(true)
            }
            WriteOp::Click => {
                // Made before the placement and the hit test, which the app answers.
                self.input.prepare().await?;
                let (x, y) = self
                    .before_sending(&obj.bus, self.click_point(&c, &obj).await)
                    .await?;
                // The window the plan raised: a centre outside it (an element scrolled out of
                // its view) would be a click on whatever is there instead.
                if let Some(w) = self.raised(&obj.bus)
                    && !w.rect.contains(x, y)
                {
                    let r = w.rect;
                    return Err(BackendError::Unsupported(format!(
                        "the element's centre ({x}, {y}) is outside its window ({}, {}, {}×{}): \
                         it is scrolled out of view, and a click there would land on something \
                         else",
                        r.x, r.y, r.width, r.height
                    )));
                }
                Ok(self.input.click(x, y).await.map(|_| true)?)
            }
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<Event> {
        let rx = self.events.subscribe();
        self.registered.call_once(|| {
            // The registry only forwards events that some listener registered for.
            let reg = self
                .caller()
                .with_deadline(Instant::now() + Duration::from_secs(3));
            tokio::spawn(async move {
                let done =
                    futures::future::join_all(EVENTS.iter().map(|ev| reg.register_event(ev))).await;
                for (ev, r) in EVENTS.iter().zip(done) {
                    if let Err(e) = r {
                        tracing::warn!(event = ev, error = %e, "RegisterEvent failed");
                    }
                }
            });
        });
        rx
    }
}

/// Apps as last listed while answering, by bus name.
type Known = Mutex<HashMap<String, AppInfo>>;

/// One app with its windows. `None` when it left the bus while being listed; an app that is
/// still on the bus but answers nothing is listed as not responding (with what was last seen
/// of it, else its process name).
async fn app_info(c: &Caller, app: ObjRef, seen: &Known) -> Option<AppInfo> {
    let windows_of = Listable::root(&app);
    let kids = async {
        match &windows_of {
            Some(l) => c.children(l).await,
            None => Ok(Vec::new()),
        }
    };
    let (name, kids, pid, toolkit, version) = tokio::join!(
        c.name(&app),
        kids,
        c.unix_pid(&app.bus),
        c.toolkit_name(&app),
        c.toolkit_version(&app),
    );
    let name: AppText = match name {
        Ok(n) => n.into(),
        Err(BackendError::Timeout { .. }) => {
            // Owning its name yet silent: busy or hung, not gone.
            if c.is_gone(&app.bus) || !c.name_has_owner(&app.bus).await.unwrap_or(false) {
                return None;
            }
            let pid = pid.ok();
            let last = seen
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&app.bus)
                .cloned();
            tracing::debug!(bus = %app.bus, pid, "app not responding");
            return Some(match last {
                Some(info) => AppInfo {
                    responding: false,
                    ..info
                },
                None => AppInfo {
                    id: app.id(),
                    name: pid
                        .and_then(process::label)
                        .unwrap_or_else(|| app.bus.clone())
                        .into(),
                    pid,
                    bus_name: app.bus.clone(),
                    toolkit: None,
                    toolkit_version: None,
                    windows: Vec::new(),
                    responding: false,
                },
            });
        }
        // Gone, or not an application's root after all: not listed.
        Err(BackendError::AppGone { .. } | BackendError::Vanished(_)) => return None,
        // A name it cannot give (a wrong type, a refusal): listed by what its process is.
        Err(e) => {
            tracing::debug!(bus = %app.bus, error = %e, "app name unreadable");
            pid.as_ref()
                .ok()
                .and_then(|p| process::label(*p))
                .unwrap_or_else(|| app.bus.clone())
                .into()
        }
    };
    let windows = futures::future::join_all(kids.unwrap_or_default().into_iter().map(|w| {
        let c = c.clone();
        async move {
            let (n, r, s) = tokio::join!(c.name(&w), c.role(&w), c.state(&w));
            Some(WindowInfo {
                id: w.id(),
                // A window whose name cannot be read is still a window.
                name: n.unwrap_or_default().into(),
                role: role_of(r.ok()?).0,
                states: states_of(&s.unwrap_or_default()),
            })
        }
    }))
    .await;
    let info = AppInfo {
        id: app.id(),
        name,
        pid: pid.ok(),
        bus_name: app.bus.clone(),
        toolkit: toolkit.ok().filter(|t| !t.is_empty()).map(AppText::from),
        toolkit_version: version.ok().filter(|v| !v.is_empty()).map(AppText::from),
        windows: windows
            .into_iter()
            .flatten()
            .filter(|w| w.role != Role::Unknown || !w.name.is_empty())
            .collect(),
        responding: true,
    };
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(app.bus.clone(), info.clone());
    Some(info)
}
