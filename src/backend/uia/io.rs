//! Windows UI Automation IO: the platform calls of the UIA [`Worker`] over the `uiautomation`
//! crate (0.25); the [`ThreadBackend`] runs them as the [`Backend`](crate::backend::Backend).
//!
//! **Unverified on real systems.** This module is written against the crate's sources
//! (`uiautomation-0.25.1`: `core.rs`, `patterns.rs`, `events/`, `types.rs`, `variants.rs`) but
//! has never been compiled or run on Windows; everything it decides is in the pure [`map`]
//! module, which is tested on every platform.
//!
//! Threading: the worker's thread initialises COM as MTA (`UIAutomation::new`) and owns every
//! COM object (the automation object, cache requests, elements, handlers). Requests reach it
//! over the [`ThreadBackend`]'s channel and only model data (`Node`, `Snapshot`, `AppInfo`)
//! comes back. Event
//! handlers run on UIA's own threads and only send model events into the broadcast channel.
//!
//! Reads are bulk: one `BuildUpdatedCache` with a cache request for every property and
//! pattern-availability flag the mapping needs, `TreeScope::Subtree`, then the cached tree is
//! walked locally (`GetCachedChildren`). Writes carry out the ops the planner made from
//! [`map::RULES`], each op calling the pattern it stands for; only the read-back (in
//! `write::engine`) decides what happened.
//!
//! A partial client (Wine 10's refuses `put_TreeScope` beyond `TreeScope_Element`, and its
//! `FindAll` finds nothing) is read element by element ([`read::Client`]): the top-level
//! windows from `EnumWindows`, each window's element from `ElementFromHandle`, its properties
//! cached alone (or, when that is refused too, read one at a time: the core ones), and what
//! cannot be read named on the element. Every failed call is worded by [`calls`]: the call, its
//! HRESULT, who refused it.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;
use uiautomation::core::{UIAutomation, UICacheRequest, UICondition, UIElement};
use uiautomation::events::{
    CustomEventHandlerFn, CustomFocusChangedEventHandlerFn, CustomPropertyChangedEventHandlerFn,
    CustomStructureChangedEventHandlerFn, UIEventHandler, UIEventType, UIFocusChangedEventHandler,
    UIPropertyChangedEventHandler, UIStructureChangeEventHandler,
};
use uiautomation::patterns::{
    UIExpandCollapsePattern, UIInvokePattern, UIRangeValuePattern, UISelectionItemPattern,
    UITextPattern, UITogglePattern, UIValuePattern, UIWindowPattern,
};
use uiautomation::types::{ExpandCollapseState, StructureChangeType, TreeScope, UIProperty};
use uiautomation::variants::Variant;

use super::calls::{self, Call, Refusal};
use super::map::{self, Pattern, UiaElement, UiaRange};
use super::read::{self, Fault, Provider};
use crate::backend::record::layout;
use crate::backend::strategy::{Capabilities, Capability, Planner, option_rows};
use crate::backend::worker::{Registry, ThreadBackend, Worker};
use crate::backend::{
    AppInfo, BackendError, Event, EventKind, Limits, WindowInfo, WriteAck, WriteOp,
};
use crate::model::{AppText, Bounds, Node, NodeId, Role, Snapshot, Truncation};

/// Properties cached on every element (besides the `Is…PatternAvailable` flags).
const PROPERTIES: &[UIProperty] = &[
    UIProperty::RuntimeId,
    UIProperty::ControlType,
    UIProperty::Name,
    UIProperty::AutomationId,
    UIProperty::ClassName,
    UIProperty::HelpText,
    UIProperty::LocalizedControlType,
    UIProperty::FrameworkId,
    UIProperty::ProcessId,
    UIProperty::IsEnabled,
    UIProperty::HasKeyboardFocus,
    UIProperty::IsKeyboardFocusable,
    UIProperty::IsOffscreen,
    UIProperty::IsPassword,
    UIProperty::IsRequiredForForm,
    UIProperty::IsDataValidForForm,
    UIProperty::WindowIsModal,
    UIProperty::Orientation,
    UIProperty::BoundingRectangle,
    UIProperty::NativeWindowHandle,
    UIProperty::ValueValue,
    UIProperty::ValueIsReadOnly,
    UIProperty::RangeValueValue,
    UIProperty::RangeValueIsReadOnly,
    UIProperty::RangeValueMinimum,
    UIProperty::RangeValueMaximum,
    UIProperty::RangeValueSmallChange,
    UIProperty::ToggleToggleState,
    UIProperty::ExpandCollapseExpandCollapseState,
    UIProperty::SelectionItemIsSelected,
];

/// Properties only newer Windows versions know (1809+); a cache request without them still
/// works, the mapping then sees no heading levels or dialog flags.
const OPTIONAL_PROPERTIES: &[UIProperty] = &[UIProperty::HeadingLevel, UIProperty::IsDialog];

/// The least time [`UiaBackend::connect`] gives the UI Automation thread to start.
const START: Duration = Duration::from_secs(15);

/// Roots with event handlers; the oldest stops being watched past this many.
const WATCHED_ROOTS: usize = 8;

/// The UI Automation backend: a handle to the thread that owns all COM objects.
pub type UiaBackend = ThreadBackend<UiaWorker>;

impl ThreadBackend<UiaWorker> {
    /// Starts the UIA thread (COM MTA) and waits up to `timeout` for it to be ready, and at
    /// least [`START`]: COM's first start in a process reads the class registry and loads UI
    /// Automation's core, which took over 3 s on a loaded machine (under Wine).
    pub async fn connect(timeout: Duration) -> Result<UiaBackend, StartError> {
        ThreadBackend::start(timeout.max(START), |events, _| UiaWorker::new(events)).await
    }
}

/// Why the UI Automation backend did not start.
#[derive(Debug)]
pub enum StartError {
    /// No UI Automation client can be created on this system (`CoCreateInstance(CUIAutomation)`
    /// answered `REGDB_E_CLASSNOTREG`, as under Wine 8): it has no UI Automation at all.
    NoClient(Refusal),
    /// The client is there and did not start.
    Failed(BackendError),
}

impl From<BackendError> for StartError {
    fn from(e: BackendError) -> StartError {
        StartError::Failed(e)
    }
}

impl From<StartError> for BackendError {
    fn from(e: StartError) -> BackendError {
        match e {
            StartError::NoClient(r) => BackendError::Unavailable(r.describe()),
            StartError::Failed(e) => e,
        }
    }
}

/// A refusal that stops the backend from starting.
fn refused_start(r: Refusal) -> StartError {
    if r.call == calls::create_client().name && r.fault.code == map::REGDB_E_CLASSNOTREG {
        StartError::NoClient(r)
    } else {
        StartError::Failed(BackendError::Unavailable(r.describe()))
    }
}

/// A crate error as the read's walk sees it.
pub(super) fn fault(e: uiautomation::Error) -> Fault {
    Fault {
        code: e.code(),
        message: e.message().to_string(),
    }
}

/// What Win32 says of a window found by its handle (`EnumWindows`); zero when not known.
#[derive(Clone, Copy, Default)]
struct Known {
    hwnd: i64,
    pid: u32,
}

/// The same call on the desktop's root element, which tells who refused one a provider was
/// asked ([`calls::party`]).
#[derive(Clone, Copy)]
enum Probe {
    /// None can be made there (it would cost too much, or has no meaning on the desktop).
    None,
    RuntimeId,
    Property(UIProperty),
    Pattern(Pattern),
    FindAll,
}

/// Everything that lives on the UIA thread.
pub struct UiaWorker {
    automation: UIAutomation,
    /// The desktop.
    root: UIElement,
    /// What this client lets a read do.
    client: read::Client,
    /// Element by element, the properties are read one call at a time (the core ones), because
    /// the client refused to cache even one element: why.
    current_reads: Option<Refusal>,
    /// Whole subtree, every property the mapping needs (`None`: the client refuses subtrees).
    subtree: Option<UICacheRequest>,
    /// Whole subtree, the core properties only: for a provider that rejects `subtree`.
    core_subtree: Option<UICacheRequest>,
    /// Properties this UI Automation rejected from the cache requests, each with why: every
    /// element read misses them.
    uncached: Vec<String>,
    /// `FindAll`'s condition for every element, or why the client would not make one.
    all: Result<UICondition, Refusal>,
    /// One element.
    element: UICacheRequest,
    /// Children of the desktop (top-level windows), or why the client refused the request.
    children: Result<UICacheRequest, Refusal>,
    /// How the desktop answered each call it was asked for [`Probe`]'s sake.
    desktop_answers: HashMap<String, Result<(), i32>>,
    /// Ids made up for elements with neither a runtime id nor a window handle.
    made_up: i32,
    /// What Win32 said of each window found by its handle, by id.
    known: HashMap<String, Known>,
    /// Process id and runtime id for event senders.
    event_cache: UICacheRequest,
    registry: Registry<UIElement>,
    watched: VecDeque<(String, UIElement)>,
    structure: UIStructureChangeEventHandler,
    property: UIPropertyChangedEventHandler,
    automation_events: UIEventHandler,
    watched_properties: Vec<UIProperty>,
}

/// A cache request for every property the mapping needs (`core`: only
/// [`map::CORE_PROPERTIES`]), with the pattern-availability flags. Each property is optional:
/// one this UI Automation rejects is left out and named in `rejected` (once per property).
pub(super) fn cache_request(
    automation: &UIAutomation,
    scope: TreeScope,
    core: bool,
    rejected: &mut Vec<String>,
) -> Result<UICacheRequest, Refusal> {
    let req = automation
        .create_cache_request()
        .map_err(|e| Refusal::of(&calls::create_cache_request(), fault(e)))?;
    let wanted = PROPERTIES
        .iter()
        .filter(|p| !core || map::CORE_PROPERTIES.contains(&format!("{p:?}").as_str()));
    for p in wanted {
        if let Err(e) = req.add_property(*p) {
            let named = format!(
                "{p:?} (not cached: {})",
                Refusal::of(&calls::add_property(&format!("{p:?}")), fault(e))
            );
            if !rejected.contains(&named) {
                rejected.push(named);
            }
        }
    }
    if !core {
        for p in OPTIONAL_PROPERTIES {
            let _ = req.add_property(*p);
        }
    }
    for pattern in Pattern::ALL {
        if let Ok(p) = UIProperty::try_from(pattern.availability_property()) {
            let _ = req.add_property(p);
        }
    }
    // The default tree filter is the control view, what Inspect and Narrator show.
    req.set_tree_scope(scope)
        .map_err(|e| Refusal::of(&calls::tree_scope(&format!("{scope:?}")), fault(e)))?;
    Ok(req)
}

/// `GetCurrentPattern` of `pattern` on `root`, for [`Probe::Pattern`]; `None` for a pattern
/// treeglass never asks for.
fn probe_pattern(root: &UIElement, pattern: Pattern) -> Option<uiautomation::Result<()>> {
    Some(match pattern {
        Pattern::Value => root.get_pattern::<UIValuePattern>().map(drop),
        Pattern::RangeValue => root.get_pattern::<UIRangeValuePattern>().map(drop),
        Pattern::Invoke => root.get_pattern::<UIInvokePattern>().map(drop),
        Pattern::Toggle => root.get_pattern::<UITogglePattern>().map(drop),
        Pattern::SelectionItem => root.get_pattern::<UISelectionItemPattern>().map(drop),
        Pattern::ExpandCollapse => root.get_pattern::<UIExpandCollapsePattern>().map(drop),
        Pattern::Text => root.get_pattern::<UITextPattern>().map(drop),
        Pattern::Window => root.get_pattern::<UIWindowPattern>().map(drop),
        _ => return None,
    })
}

/// The visible top-level windows, as `EnumWindows` lists them: each handle with its process.
pub(super) fn top_level_handles() -> Vec<(i64, u32)> {
    let mut out = Vec::new();
    let listed = winsafe::EnumWindows(|hwnd: winsafe::HWND| {
        if hwnd.IsWindowVisible() {
            // A handle as the number Windows uses (32 bits wide, on 64-bit Windows too).
            out.push((
                hwnd.ptr() as isize as i64,
                hwnd.GetWindowThreadProcessId().1,
            ));
        }
        true
    });
    if let Err(e) = listed {
        tracing::warn!("EnumWindows failed: {e}");
    }
    out
}

/// Sends one event from a handler thread (never blocks; lagging receivers lose the oldest).
fn emit(tx: &broadcast::Sender<Event>, kind: EventKind, sender: &UIElement, detail: String) {
    let source = sender
        .get_runtime_id()
        .map(|r| map::node_id(&r))
        .unwrap_or_else(|_| NodeId("uia:?".into()));
    let app = sender
        .get_cached_process_id()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let _ = tx.send(Event {
        kind,
        source,
        app,
        detail: detail.into(),
        at: Some(Instant::now()),
    });
}

/// A variant as an integer (booleans come as 0 / -1), when it is one.
fn variant_int(v: &Variant) -> Option<i64> {
    TryInto::<i64>::try_into(v).ok()
}

impl UiaWorker {
    fn new(events: broadcast::Sender<Event>) -> Result<UiaWorker, StartError> {
        // Initialises COM on this thread as MTA and creates the CUIAutomation object.
        let automation = UIAutomation::new().map_err(|e| {
            // The crate starts COM first: a mode already set is CoInitializeEx's answer.
            let call = if e.code() == map::RPC_E_CHANGED_MODE {
                calls::co_initialize()
            } else {
                calls::create_client()
            };
            refused_start(Refusal::of(&call, fault(e)))
        })?;
        let root = automation
            .get_root_element()
            .map_err(|e| refused_start(Refusal::of(&calls::root_element(), fault(e))))?;
        let mut uncached = Vec::new();
        let element = cache_request(&automation, TreeScope::Element, false, &mut uncached)
            .map_err(refused_start)?;
        let mut client = read::Client::default();
        let (subtree, core_subtree) =
            match cache_request(&automation, TreeScope::Subtree, false, &mut uncached) {
                Ok(full) => {
                    let core = cache_request(&automation, TreeScope::Subtree, true, &mut uncached)
                        .map_err(refused_start)?;
                    (Some(full), Some(core))
                }
                Err(refused) => {
                    client.no_subtree = Some(refused);
                    (None, None)
                }
            };
        let children = cache_request(&automation, TreeScope::Children, false, &mut uncached);
        let all = automation
            .create_true_condition()
            .map_err(|e| Refusal::of(&calls::true_condition(), fault(e)));
        let mut current_reads = None;
        if let Some(refused) = &client.no_subtree {
            tracing::warn!("this UI Automation client reads element by element: {refused}");
            // Whether it caches even one element.
            if let Err(e) = root.build_updated_cache(&element) {
                let r = Refusal::of(&calls::build_cache("TreeScope_Element"), fault(e));
                tracing::warn!("properties are read one call at a time: {r}");
                current_reads = Some(r);
            }
        }
        let event_cache = automation
            .create_cache_request()
            .map_err(|e| refused_start(Refusal::of(&calls::create_cache_request(), fault(e))))?;
        for p in [UIProperty::ProcessId, UIProperty::RuntimeId] {
            if let Err(e) = event_cache.add_property(p) {
                tracing::debug!(
                    "events: {}",
                    Refusal::of(&calls::add_property(&format!("{p:?}")), fault(e))
                );
            }
        }

        let tx = events.clone();
        let structure: Box<CustomStructureChangedEventHandlerFn> = Box::new(
            move |sender: &UIElement, change: StructureChangeType, _: Option<&[i32]>| {
                emit(
                    &tx,
                    map::structure_event(change as i32),
                    sender,
                    String::new(),
                );
                Ok(())
            },
        );
        let tx = events.clone();
        let property: Box<CustomPropertyChangedEventHandlerFn> = Box::new(
            move |sender: &UIElement, property: UIProperty, value: Variant| {
                let kind = map::property_event(property as i32, variant_int(&value));
                // Names are shown; values are not (a password field's would be a secret).
                let detail = if kind == EventKind::NameChanged {
                    TryInto::<String>::try_into(&value).unwrap_or_default()
                } else {
                    String::new()
                };
                emit(&tx, kind, sender, detail);
                Ok(())
            },
        );
        let tx = events.clone();
        let auto: Box<CustomEventHandlerFn> =
            Box::new(move |sender: &UIElement, event: UIEventType| {
                emit(
                    &tx,
                    map::automation_event(event as i32),
                    sender,
                    String::new(),
                );
                Ok(())
            });
        let tx = events.clone();
        let focus: Box<CustomFocusChangedEventHandlerFn> = Box::new(move |sender: &UIElement| {
            emit(&tx, EventKind::Focus, sender, String::new());
            Ok(())
        });
        let automation_events = UIEventHandler::from(auto);
        let focus = UIFocusChangedEventHandler::from(focus);
        // Events are best effort: reads and writes work without them (the read-back polls).
        if let Err(e) = automation.add_focus_changed_event_handler(Some(&event_cache), &focus) {
            tracing::debug!("no focus events: {}", fault(e).describe());
        }
        for event in [
            UIEventType::Window_WindowOpened,
            UIEventType::Window_WindowClosed,
        ] {
            if let Err(e) = automation.add_automation_event_handler(
                event,
                &root,
                TreeScope::Subtree,
                Some(&event_cache),
                &automation_events,
            ) {
                tracing::debug!("no {event:?} events: {}", fault(e).describe());
            }
        }
        let watched_properties = map::WATCHED_PROPERTIES
            .iter()
            .filter_map(|p| UIProperty::try_from(*p).ok())
            .collect();
        Ok(UiaWorker {
            automation,
            root,
            client,
            current_reads,
            subtree,
            core_subtree,
            uncached,
            all,
            element,
            children,
            desktop_answers: HashMap::new(),
            made_up: 0,
            known: HashMap::new(),
            event_cache,
            registry: Registry::default(),
            watched: VecDeque::new(),
            structure: UIStructureChangeEventHandler::from(structure),
            property: UIPropertyChangedEventHandler::from(property),
            automation_events,
            watched_properties,
        })
    }

    /// Remembers `el` under its id for later reads and writes.
    fn register(&mut self, id: &NodeId, el: &UIElement) {
        self.registry.insert(id.0.clone(), el.clone());
    }

    fn lookup(&self, id: &NodeId) -> Result<UIElement, BackendError> {
        self.registry.lookup(id).cloned()
    }

    /// `call` failed with `e`: who refused it, asking the desktop `probe` when the HRESULT
    /// leaves it open (once per call; the answer is kept).
    fn refusal(&mut self, call: &Call, e: uiautomation::Error, probe: Probe) -> Refusal {
        let root = &self.root;
        let element = &self.element;
        let all = &self.all;
        let answers = &mut self.desktop_answers;
        Refusal::new(call, fault(e), || {
            if let Some(a) = answers.get(&call.name) {
                return Some(*a);
            }
            let answer = match probe {
                Probe::None => return None,
                Probe::RuntimeId => root.get_runtime_id().map(drop),
                Probe::Property(p) => root.get_property_value(p).map(drop),
                Probe::Pattern(p) => probe_pattern(root, p)?,
                Probe::FindAll => match all {
                    Ok(all) => root
                        .find_all_build_cache(TreeScope::Children, all, element)
                        .map(drop),
                    Err(_) => return None,
                },
            }
            .map_err(|e| e.code());
            answers.insert(call.name.clone(), answer);
            Some(answer)
        })
    }

    /// The control pattern `pattern` of `el`, or the refusal of `GetCurrentPattern` as an error.
    fn pattern_refused(&mut self, pattern: Pattern, e: uiautomation::Error) -> BackendError {
        self.refusal(&calls::pattern(pattern.name()), e, Probe::Pattern(pattern))
            .error()
    }

    /// The record of one element (its own properties only): from its cache, or, where the
    /// client caches nothing, read one call at a time. `known`: what Win32 said of a window
    /// found by its handle (its handle and process), which stands in for reads the client
    /// refuses: a window's id is then the one Windows gives it (`42` and its handle). Every read
    /// refused and not stood in for is named on the record.
    fn record(&mut self, el: &UIElement, known: Known) -> UiaElement {
        let (mut rec, mut refused) = match self.current_reads.clone() {
            Some(why) => self.record_current(el, &why),
            None => self.record_cached(el),
        };
        if known.hwnd != 0 {
            rec.native_window_handle = known.hwnd;
            refused.retain(|(name, _)| name != "NativeWindowHandle");
        }
        if known.pid != 0 && refused.iter().any(|(name, _)| name == "ProcessId") {
            rec.process_id = known.pid;
            refused.retain(|(name, _)| name != "ProcessId");
        }
        rec.unread.extend(read::refused_reads(&refused));
        let runtime_id = el
            .get_runtime_id()
            .map_err(|e| self.refusal(&calls::runtime_id(), e, Probe::RuntimeId));
        match read::identity(runtime_id, rec.native_window_handle) {
            Ok(id) => rec.runtime_id = id,
            Err(refused) => {
                self.made_up += 1;
                rec.runtime_id = vec![0, self.made_up];
                rec.unread.push(read::made_up_id(&refused));
            }
        }
        rec
    }

    /// The core properties of `el`, each read with its own call, as the client caches nothing
    /// (`why`): the record, what is left unread said on it, and each refused read.
    fn record_current(
        &mut self,
        el: &UIElement,
        why: &Refusal,
    ) -> (UiaElement, Vec<(String, Refusal)>) {
        let mut refused: Vec<(String, Refusal)> = Vec::new();
        let mut rec = UiaElement {
            unread: vec![format!(
                "properties other than {} (read one call at a time: {why})",
                map::CORE_PROPERTIES.join(", ")
            )],
            ..UiaElement::default()
        };
        macro_rules! current {
            ($name:literal, $probe:expr, $read:expr) => {
                match $read {
                    Ok(v) => Some(v),
                    Err(e) => {
                        let r = self.refusal(&calls::current($name), e, Probe::Property($probe));
                        refused.push(($name.to_string(), r));
                        None
                    }
                }
            };
        }
        rec.control_type = current!(
            "ControlType",
            UIProperty::ControlType,
            el.get_control_type()
        )
        .map_or(0, |t| t as i32);
        rec.name = current!("Name", UIProperty::Name, el.get_name()).unwrap_or_default();
        rec.process_id =
            current!("ProcessId", UIProperty::ProcessId, el.get_process_id()).unwrap_or(0);
        rec.is_enabled =
            current!("IsEnabled", UIProperty::IsEnabled, el.is_enabled()).unwrap_or(true);
        rec.bounds = current!(
            "BoundingRectangle",
            UIProperty::BoundingRectangle,
            el.get_bounding_rectangle()
        )
        .map(|r| Bounds {
            x: r.get_left(),
            y: r.get_top(),
            width: r.get_width(),
            height: r.get_height(),
        });
        rec.native_window_handle = current!(
            "NativeWindowHandle",
            UIProperty::NativeWindowHandle,
            el.get_native_window_handle()
        )
        .map_or(0, |h| Into::<isize>::into(h) as i64);
        (rec, refused)
    }

    /// The record of one cached element (its own properties only), and each cached read that
    /// failed, named by its call (a property this client rejected from the request is already
    /// in `uncached`, and one only newer Windows versions know is not missed).
    fn record_cached(&self, el: &UIElement) -> (UiaElement, Vec<(String, Refusal)>) {
        let refused = std::cell::RefCell::new(Vec::<(String, Refusal)>::new());
        // A typed getter (`get_CachedName`), or `GetCachedPropertyValue` for the rest.
        let read = |name: &str, call: Call, r: uiautomation::Result<Variant>| match r {
            Ok(v) => Some(v),
            Err(e) => {
                let rejected = self
                    .uncached
                    .iter()
                    .any(|u| u.starts_with(&format!("{name} ")));
                let optional = OPTIONAL_PROPERTIES.iter().any(|p| format!("{p:?}") == name);
                if !rejected && !optional {
                    refused
                        .borrow_mut()
                        .push((name.to_string(), Refusal::of(&call, fault(e))));
                }
                None
            }
        };
        let typed =
            |name: &str, r: uiautomation::Result<Variant>| read(name, calls::cached(name), r);
        let prop = |p: UIProperty| {
            let name = format!("{p:?}");
            read(
                &name,
                calls::cached_property(&name),
                el.get_cached_property_value(p),
            )
        };
        let boolean = |p: UIProperty| prop(p).and_then(|v| TryInto::<bool>::try_into(v).ok());
        let int = |p: UIProperty| prop(p).and_then(|v| TryInto::<i32>::try_into(v).ok());
        let float = |p: UIProperty| prop(p).and_then(|v| TryInto::<f64>::try_into(v).ok());
        let string = |p: UIProperty| prop(p).and_then(|v| TryInto::<String>::try_into(v).ok());
        let text = |name: &str, r: uiautomation::Result<String>| {
            typed(name, r.map(Variant::from)).and_then(|v| TryInto::<String>::try_into(v).ok())
        };
        let flag = |name: &str, r: uiautomation::Result<bool>| {
            typed(name, r.map(Variant::from)).and_then(|v| TryInto::<bool>::try_into(v).ok())
        };
        // The pattern flags, as one: when the client refuses them, which patterns the element
        // has is unknown, not "none".
        let mut flags_refused = None;
        let mut patterns = map::Patterns::EMPTY;
        for pattern in Pattern::ALL {
            let Ok(p) = UIProperty::try_from(pattern.availability_property()) else {
                continue;
            };
            match el.get_cached_property_value(p) {
                Ok(v) if TryInto::<bool>::try_into(&v).unwrap_or(false) => {
                    patterns = patterns.with(*pattern);
                }
                Ok(_) => {}
                Err(e) => {
                    flags_refused.get_or_insert_with(|| {
                        Refusal::of(&calls::cached_property(&format!("{p:?}")), fault(e))
                    });
                }
            }
        }
        let range = patterns.has(Pattern::RangeValue).then(|| UiaRange {
            value: float(UIProperty::RangeValueValue).unwrap_or(0.0),
            minimum: float(UIProperty::RangeValueMinimum).unwrap_or(0.0),
            maximum: float(UIProperty::RangeValueMaximum).unwrap_or(0.0),
            small_change: float(UIProperty::RangeValueSmallChange).unwrap_or(0.0),
            is_read_only: boolean(UIProperty::RangeValueIsReadOnly).unwrap_or(false),
        });
        let mut value = patterns
            .has(Pattern::Value)
            .then(|| string(UIProperty::ValueValue))
            .flatten();
        let control_type = match el.get_cached_control_type() {
            Ok(t) => t as i32,
            Err(e) => {
                refused.borrow_mut().push((
                    "ControlType".into(),
                    Refusal::of(&calls::cached("ControlType"), fault(e)),
                ));
                0
            }
        };
        if value.is_none() && patterns.has(Pattern::Text) && map::base_role(control_type).is_text()
        {
            // An edit without ValuePattern: its text from the TextPattern (one live call).
            value = el
                .get_pattern::<UITextPattern>()
                .and_then(|t| t.get_document_range())
                .and_then(|r| r.get_text(-1))
                .ok();
        }
        let bounds = match el.get_cached_bounding_rectangle() {
            Ok(r) => Some(Bounds {
                x: r.get_left(),
                y: r.get_top(),
                width: r.get_width(),
                height: r.get_height(),
            }),
            Err(e) => {
                refused.borrow_mut().push((
                    "BoundingRectangle".into(),
                    Refusal::of(&calls::cached("BoundingRectangle"), fault(e)),
                ));
                None
            }
        };
        let process_id = typed("ProcessId", el.get_cached_process_id().map(Variant::from))
            .and_then(|v| TryInto::<i32>::try_into(v).ok())
            .map_or(0, |p| p as u32);
        let native_window_handle = match el.get_cached_native_window_handle() {
            Ok(h) => Into::<isize>::into(h) as i64,
            Err(e) => {
                refused.borrow_mut().push((
                    "NativeWindowHandle".into(),
                    Refusal::of(&calls::cached("NativeWindowHandle"), fault(e)),
                ));
                0
            }
        };
        let rec = UiaElement {
            runtime_id: Vec::new(),
            control_type,
            name: text("Name", el.get_cached_name()).unwrap_or_default(),
            automation_id: text("AutomationId", el.get_cached_automation_id()).unwrap_or_default(),
            class_name: text("ClassName", el.get_cached_classname()).unwrap_or_default(),
            help_text: text("HelpText", el.get_cached_help_text()).unwrap_or_default(),
            localized_control_type: text(
                "LocalizedControlType",
                el.get_cached_localized_control_type(),
            )
            .unwrap_or_default(),
            framework_id: text("FrameworkId", el.get_cached_framework_id()).unwrap_or_default(),
            process_id,
            is_enabled: flag("IsEnabled", el.is_cached_enabled()).unwrap_or(true),
            has_keyboard_focus: flag("HasKeyboardFocus", el.has_cached_keyboard_focus())
                .unwrap_or(false),
            is_keyboard_focusable: flag("IsKeyboardFocusable", el.is_cached_keyboard_focusable())
                .unwrap_or(false),
            is_offscreen: flag("IsOffscreen", el.is_cached_offscreen()).unwrap_or(false),
            is_password: flag("IsPassword", el.is_cached_password()).unwrap_or(false),
            is_required_for_form: flag("IsRequiredForForm", el.is_cached_required_for_form())
                .unwrap_or(false),
            is_data_valid_for_form: flag("IsDataValidForForm", el.is_cached_data_valid_for_form())
                .unwrap_or(true),
            is_dialog: boolean(UIProperty::IsDialog).unwrap_or(false),
            window_is_modal: patterns
                .has(Pattern::Window)
                .then(|| boolean(UIProperty::WindowIsModal))
                .flatten()
                .unwrap_or(false),
            orientation: int(UIProperty::Orientation).unwrap_or(0),
            heading_level: int(UIProperty::HeadingLevel).map_or(0, map::heading_level),
            patterns,
            value,
            value_is_read_only: patterns
                .has(Pattern::Value)
                .then(|| boolean(UIProperty::ValueIsReadOnly))
                .flatten(),
            range,
            toggle_state: patterns
                .has(Pattern::Toggle)
                .then(|| int(UIProperty::ToggleToggleState))
                .flatten(),
            expand_collapse_state: patterns
                .has(Pattern::ExpandCollapse)
                .then(|| int(UIProperty::ExpandCollapseExpandCollapseState))
                .flatten(),
            is_selected: patterns
                .has(Pattern::SelectionItem)
                .then(|| boolean(UIProperty::SelectionItemIsSelected))
                .flatten(),
            bounds,
            native_window_handle,
            children: Vec::new(),
            unread: self.uncached.clone(),
            faults: Default::default(),
        };
        let mut refused = refused.into_inner();
        if let Some(r) = flags_refused {
            refused.push(("the Is…PatternAvailable flags".into(), r));
        }
        (rec, refused)
    }

    /// The record tree under `el`, read with one cross-process call (`BuildUpdatedCache`) and
    /// walked by [`read::build`]; registers every element it includes. A provider that rejects
    /// the full cache request is read again with the core properties only.
    fn read_tree(
        &mut self,
        el: &UIElement,
        known: Known,
        depth: usize,
        limits: &Limits,
        budget: &mut usize,
        truncated: &mut Option<Truncation>,
    ) -> Result<UiaElement, BackendError> {
        let (Some(subtree), Some(core_subtree)) = (self.subtree.clone(), self.core_subtree.clone())
        else {
            // Element by element: `el` with its own properties fresh, its children found live.
            let el = self.one(el)?;
            let mut live = self.live();
            live.known = Some(known);
            return Ok(read::build(
                &mut live, &el, depth, limits, budget, truncated,
            ));
        };
        let (cached, core_only) = match el.build_updated_cache(&subtree) {
            Ok(c) => (c, None),
            Err(e) => {
                let rejected =
                    self.refusal(&calls::build_cache("TreeScope_Subtree"), e, Probe::None);
                if matches!(
                    map::classify_hresult(rejected.fault.code),
                    map::ErrorKind::Vanished | map::ErrorKind::Timeout
                ) {
                    return Err(rejected.error());
                }
                let cached = el.build_updated_cache(&core_subtree).map_err(|e| {
                    self.refusal(
                        &calls::build_cache("TreeScope_Subtree, the core properties"),
                        e,
                        Probe::None,
                    )
                    .error()
                })?;
                (cached, Some(rejected))
            }
        };
        let request = if core_only.is_some() {
            Request::CoreSubtree
        } else {
            Request::Subtree
        };
        let mut live = Live {
            worker: self,
            request,
            core_only,
            known: Some(known),
        };
        Ok(read::build(
            &mut live, &cached, depth, limits, budget, truncated,
        ))
    }

    /// Reads `el`'s subtree in one cross-process call and lays it out.
    fn read_subtree(
        &mut self,
        el: &UIElement,
        known: Known,
        app: &str,
        limits: &Limits,
    ) -> Result<Snapshot, BackendError> {
        let started = Instant::now();
        let mut budget = limits.max_nodes.saturating_sub(1);
        let mut truncated = None;
        let root = self.read_tree(el, known, 0, limits, &mut budget, &mut truncated)?;
        let mut snap = layout(app, &root, limits, started);
        snap.truncated = truncated.or(snap.truncated);
        Ok(snap)
    }

    /// `el` ready for [`Worker::record`]: cached alone, or as it is where the client caches
    /// nothing.
    fn one(&mut self, el: &UIElement) -> Result<UIElement, BackendError> {
        if self.current_reads.is_some() {
            return Ok(el.clone());
        }
        el.build_updated_cache(&self.element).map_err(|e| {
            self.refusal(&calls::build_cache("TreeScope_Element"), e, Probe::None)
                .error()
        })
    }

    /// Top-level windows of the desktop, each as (element, record): the desktop's children,
    /// or from a client whose `FindAll` finds nothing, the windows `EnumWindows` lists.
    fn top_level(&mut self) -> Result<Vec<(UIElement, UiaElement)>, BackendError> {
        let wins: Vec<(UIElement, Known)> = match (&self.children, &self.client.no_subtree) {
            (Ok(req), None) => {
                let req = req.clone();
                let cached = self.root.build_updated_cache(&req).map_err(|e| {
                    self.refusal(&calls::build_cache("TreeScope_Children"), e, Probe::None)
                        .error()
                })?;
                read::children(&mut self.live(), &cached)
                    .map_err(|why| BackendError::Failed(format!("top-level windows: {why}")))?
                    .into_iter()
                    .map(|w| (w, Known::default()))
                    .collect()
            }
            // Element by element: the desktop's children found live, unless this client's
            // FindAll is known to find nothing; then, and when it finds none, the windows
            // EnumWindows lists. Windows FindAll did not find make it known to find nothing.
            _ => {
                let found = match self.client.find_all_blind {
                    Some(_) => Vec::new(),
                    None => {
                        let root = self.root.clone();
                        read::children(&mut self.live(), &root).map_err(|why| {
                            BackendError::Failed(format!("top-level windows: {why}"))
                        })?
                    }
                };
                if found.is_empty() {
                    let (windows, listed) = self.windows_by_handle()?;
                    if !windows.is_empty() {
                        self.client.find_all_blind = read::Client::find_all_is_blind(0, listed);
                    }
                    windows
                } else {
                    found.into_iter().map(|w| (w, Known::default())).collect()
                }
            }
        };
        let mut out = Vec::with_capacity(wins.len());
        for (w, known) in wins {
            let rec = self.record(&w, known);
            if rec.name.is_empty() && rec.control_type != 50032 {
                continue;
            }
            let id = map::node_id(&rec.runtime_id);
            if known.hwnd != 0 {
                self.known.insert(id.0.clone(), known);
            }
            self.register(&id, &w);
            out.push((w, rec));
        }
        Ok(out)
    }

    /// The visible top-level windows `EnumWindows` lists, each as its element
    /// (`ElementFromHandle`, cached alone where the client caches) with what Win32 says of it.
    /// A window whose element is refused is left out and logged with the refusal; when every
    /// one is, the refusal is the answer (never "no windows"). With how many were listed.
    fn windows_by_handle(&mut self) -> Result<(Vec<(UIElement, Known)>, usize), BackendError> {
        let handles = top_level_handles();
        let mut out = Vec::new();
        let mut last = None;
        for (hwnd, pid) in &handles {
            let handle = uiautomation::types::Handle::from(*hwnd as isize);
            let el = match self.automation.element_from_handle(handle) {
                Ok(el) => self.one(&el),
                Err(e) => Err(self.refusal(&calls::from_handle(), e, Probe::None).error()),
            };
            match el {
                Ok(el) => out.push((
                    el,
                    Known {
                        hwnd: *hwnd,
                        pid: *pid,
                    },
                )),
                Err(e) => {
                    tracing::warn!("window {hwnd:#x} of process {pid} left out: {e}");
                    last = Some(e);
                }
            }
        }
        match last {
            Some(e) if out.is_empty() => Err(BackendError::Failed(format!(
                "EnumWindows lists {} visible top-level window{}, and UI Automation gave none \
                 of them: {e}",
                handles.len(),
                if handles.len() == 1 { "" } else { "s" }
            ))),
            _ => Ok((out, handles.len())),
        }
    }

    /// Watches `el`'s subtree for structure, property and automation events.
    fn watch(&mut self, id: &NodeId, el: &UIElement) {
        if self.watched.iter().any(|(w, _)| *w == id.0) {
            return;
        }
        if self.watched.len() >= WATCHED_ROOTS
            && let Some((_, old)) = self.watched.pop_front()
        {
            let _ = self
                .automation
                .remove_structure_changed_event_handler(&old, &self.structure);
            let _ = self
                .automation
                .remove_property_changed_event_handler(&old, &self.property);
            for id in map::WATCHED_EVENTS {
                if let Ok(ev) = UIEventType::try_from(*id) {
                    let _ = self.automation.remove_automation_event_handler(
                        ev,
                        &old,
                        &self.automation_events,
                    );
                }
            }
        }
        let cache = Some(&self.event_cache);
        let _ = self.automation.add_structure_changed_event_handler(
            el,
            TreeScope::Subtree,
            cache,
            &self.structure,
        );
        let _ = self.automation.add_property_changed_event_handler(
            el,
            TreeScope::Subtree,
            cache,
            &self.property,
            &self.watched_properties,
        );
        for id in map::WATCHED_EVENTS {
            if let Ok(ev) = UIEventType::try_from(*id) {
                let _ = self.automation.add_automation_event_handler(
                    ev,
                    el,
                    TreeScope::Subtree,
                    cache,
                    &self.automation_events,
                );
            }
        }
        self.watched.push_back((id.0.clone(), el.clone()));
    }

    /// A whole application: its top-level windows under one application node.
    fn app_snapshot(
        &mut self,
        root: &NodeId,
        pid: u32,
        limits: &Limits,
    ) -> Result<Snapshot, BackendError> {
        let started = Instant::now();
        let windows: Vec<(UIElement, UiaElement)> = self
            .top_level()?
            .into_iter()
            .filter(|(_, r)| r.process_id == pid)
            .collect();
        if windows.is_empty() {
            return Err(BackendError::Vanished(format!(
                "no windows of process {pid}"
            )));
        }
        let titles: Vec<String> = windows.iter().map(|(_, r)| r.name.clone()).collect();
        let name = map::app_name(&titles);
        let mut budget = limits.max_nodes.saturating_sub(1);
        let mut truncated = None;
        let mut app = UiaElement {
            name: name.clone(),
            process_id: pid,
            ..UiaElement::default()
        };
        for (w, r) in &windows {
            if budget == 0 {
                truncated.get_or_insert(Truncation::NodeCap);
                break;
            }
            budget -= 1;
            let known = self
                .known
                .get(&map::node_id(&r.runtime_id).0)
                .copied()
                .unwrap_or_default();
            let rec = self.read_tree(w, known, 1, limits, &mut budget, &mut truncated)?;
            app.children.push(rec);
        }
        let mut snap = layout(&name, &app, limits, started);
        if let Some(first) = snap.nodes.first_mut() {
            first.id = root.clone();
            first.role = Role::Application;
            first.raw_role = "Application".into();
        }
        snap.window = AppText::default();
        snap.truncated = truncated.or(snap.truncated);
        Ok(snap)
    }

    /// A fresh record and node of one element (no children).
    fn fresh(&mut self, id: &NodeId) -> Result<(UIElement, Node), BackendError> {
        let el = self.lookup(id)?;
        let one = self.one(&el)?;
        let known = self.known.get(&id.0).copied().unwrap_or_default();
        let mut node = map::node_from(&self.record(&one, known));
        node.id = id.clone();
        Ok((el, node))
    }

    /// The options of a choice element as (node, element), from its subtree. `expand`: open
    /// the pop-up first (`OpenMenuAndPick`); otherwise it is opened only when no option is
    /// realised yet. Returns whether this call expanded it, so the caller can collapse it.
    fn options(
        &mut self,
        el: &UIElement,
        expand: bool,
    ) -> Result<(Vec<(Node, UIElement)>, bool), BackendError> {
        let limits = Limits::default();
        let ec = el.get_pattern::<UIExpandCollapsePattern>().ok();
        let mut expanded = false;
        if expand && let Some(ec) = &ec {
            expanded = ec.expand().is_ok();
        }
        let mut snap = self.read_subtree(el, Known::default(), "", &limits)?;
        let mut rows = option_rows(&snap.nodes, 0);
        // Virtualised drop-downs realise their items only when open.
        if rows.is_empty()
            && !expanded
            && let Some(ec) = &ec
            && ec.expand().is_ok()
        {
            expanded = true;
            snap = self.read_subtree(el, Known::default(), "", &limits)?;
            rows = option_rows(&snap.nodes, 0);
        }
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let node = snap.nodes[r].clone();
            let item = self.lookup(&node.id)?;
            out.push((node, item));
        }
        Ok((out, expanded))
    }

    /// Collapses a pop-up that is still open (most close by themselves on selection).
    fn collapse(el: &UIElement) {
        if let Ok(ec) = el.get_pattern::<UIExpandCollapsePattern>()
            && matches!(
                ec.get_state(),
                Ok(ExpandCollapseState::Expanded | ExpandCollapseState::PartiallyExpanded)
            )
        {
            let _ = ec.collapse();
        }
    }

    /// The direct children of an element as (node, element).
    fn child_elements(&mut self, el: &UIElement) -> Result<Vec<(Node, UIElement)>, BackendError> {
        let cached = match (&self.children, &self.client.no_subtree) {
            (Ok(req), None) => {
                let req = req.clone();
                el.build_updated_cache(&req).map_err(|e| {
                    self.refusal(&calls::build_cache("TreeScope_Children"), e, Probe::None)
                        .error()
                })?
            }
            _ => el.clone(),
        };
        let kids = read::children(&mut self.live(), &cached)
            .map_err(|why| BackendError::Failed(format!("listing children: {why}")))?;
        let mut out = Vec::with_capacity(kids.len());
        for k in kids {
            let n = map::node_from(&self.record(&k, Known::default()));
            self.register(&n.id, &k);
            out.push((n, k));
        }
        Ok(out)
    }
}

impl UiaWorker {
    /// The worker as the read's walk calls it, for one level of children (each found child
    /// cached on its own).
    fn live(&mut self) -> Live<'_> {
        Live {
            worker: self,
            request: Request::Element,
            core_only: None,
            known: None,
        }
    }
}

/// The cache request children found live are read with.
#[derive(Clone, Copy)]
enum Request {
    Subtree,
    CoreSubtree,
    Element,
}

/// Live elements as [`read::build`] walks them.
struct Live<'w> {
    worker: &'w mut UiaWorker,
    request: Request,
    /// The full cache request was rejected (why): elements carry the core properties only.
    core_only: Option<Refusal>,
    /// What Win32 says of the first element recorded (the read's root), when it is a window.
    known: Option<Known>,
}

impl Provider for Live<'_> {
    type El = UIElement;

    fn client(&self) -> &read::Client {
        &self.worker.client
    }

    fn record(&mut self, el: &UIElement) -> UiaElement {
        let known = self.known.take().unwrap_or_default();
        let mut rec = self.worker.record(el, known);
        if let Some(r) = &self.core_only {
            rec.unread.push(read::core_only(r));
        }
        self.worker.register(&map::node_id(&rec.runtime_id), el);
        rec
    }

    fn cached_children(&mut self, el: &UIElement) -> Result<Vec<UIElement>, Refusal> {
        el.get_cached_children()
            .map_err(|e| Refusal::of(&calls::cached_children(), fault(e)))
    }

    fn find_children(&mut self, el: &UIElement) -> Result<Vec<UIElement>, Refusal> {
        let request = match self.request {
            Request::Subtree => self.worker.subtree.clone(),
            Request::CoreSubtree => self.worker.core_subtree.clone(),
            Request::Element => None,
        }
        .unwrap_or_else(|| self.worker.element.clone());
        let all = self.worker.all.clone()?;
        let found = match (self.worker.current_reads.is_some(), self.request) {
            // Nothing is cached on this client: the children as they are.
            (true, Request::Element) => el.find_all(TreeScope::Children, &all),
            _ => el.find_all_build_cache(TreeScope::Children, &all, &request),
        };
        match found {
            Ok(kids) => Ok(kids),
            // A null array (the crate's code 0): no element found.
            Err(e) if e.code() == 0 => Ok(Vec::new()),
            Err(e) => Err(self
                .worker
                .refusal(&calls::find_children(), e, Probe::FindAll)),
        }
    }
}

impl Worker for UiaWorker {
    const NAME: &'static str = "uia";
    const PLANNER: &'static dyn Planner = &super::map::PLANNER;
    const SILENT: &'static str = "UI Automation did not start";
    const APPS: (&'static str, Duration) = ("listing top-level windows", Duration::from_secs(5));
    const CHILDREN: Duration = Duration::from_secs(3);

    fn snapshot_deadline(limits: &Limits) -> Duration {
        limits.timeout
    }

    fn apps(&mut self) -> Result<Vec<AppInfo>, BackendError> {
        self.registry.start_read();
        let mut apps: Vec<AppInfo> = Vec::new();
        for (_, rec) in self.top_level()? {
            let pid = rec.process_id;
            let node = map::node_from(&rec);
            let window = WindowInfo {
                id: node.id.clone(),
                name: node.name.clone(),
                role: node.role,
                states: node.states,
            };
            match apps.iter_mut().find(|a| a.pid == Some(pid)) {
                Some(app) => app.windows.push(window),
                None => apps.push(AppInfo {
                    id: map::app_id(pid),
                    name: AppText::default(),
                    pid: Some(pid),
                    bus_name: format!("pid:{pid}"),
                    toolkit: (!rec.framework_id.is_empty())
                        .then(|| AppText::from(rec.framework_id.as_str())),
                    toolkit_version: None,
                    windows: vec![window],
                    responding: true,
                }),
            }
        }
        for app in &mut apps {
            let titles: Vec<String> = app
                .windows
                .iter()
                .map(|w| w.name.as_str().to_string())
                .collect();
            app.name = map::app_name(&titles).into();
        }
        Ok(apps)
    }

    fn snapshot(&mut self, root: &NodeId, limits: &Limits) -> Result<Snapshot, BackendError> {
        self.registry.start_read();
        if let Some(pid) = map::app_pid(root) {
            return self.app_snapshot(root, pid, limits);
        }
        let el = self.lookup(root)?;
        let titles: Vec<String> = el.get_cached_name().into_iter().collect();
        let known = self.known.get(&root.0).copied().unwrap_or_default();
        let snap = self.read_subtree(&el, known, &map::app_name(&titles), limits)?;
        self.watch(root, &el);
        Ok(snap)
    }

    fn read_node(&mut self, id: &NodeId) -> Result<Node, BackendError> {
        self.fresh(id).map(|(_, n)| n)
    }

    /// Children as the engine lists them: a choice element's options (listing them may open
    /// its pop-up for a moment), else the direct children.
    fn children(&mut self, id: &NodeId) -> Result<Vec<Node>, BackendError> {
        let (el, node) = self.fresh(id)?;
        let listed = if node.role.is_choice() {
            let (options, expanded) = self.options(&el, false)?;
            if expanded {
                Self::collapse(&el);
            }
            options
        } else {
            self.child_elements(&el)?
        };
        Ok(listed.into_iter().map(|(n, _)| n).collect())
    }

    fn write(&mut self, id: &NodeId, op: &WriteOp) -> WriteAck {
        let (el, node) = self.fresh(id)?;
        let what = super::map::op_method(op).as_str().to_string();
        // A pattern's method refused: it was asked of the app, through the client.
        let done = |r: uiautomation::Result<()>| {
            r.map(|()| true)
                .map_err(|e| Refusal::of(&calls::pattern_method(&what), fault(e)).error())
        };
        // The pattern itself refused: who refused is asked of the desktop.
        macro_rules! pattern {
            ($ty:ty, $pattern:expr) => {
                el.get_pattern::<$ty>()
                    .map_err(|e| self.pattern_refused($pattern, e))?
            };
        }
        match op {
            // The planner chose the pattern (`map::RULES`); the op names it.
            WriteOp::SetText(text) => {
                done(pattern!(UIValuePattern, Pattern::Value).set_value(text))
            }
            WriteOp::SetNumber(v) => {
                done(pattern!(UIRangeValuePattern, Pattern::RangeValue).set_value(*v))
            }
            WriteOp::Action(name) => match map::action_pattern(name.as_str()) {
                Some(Pattern::Invoke) => done(pattern!(UIInvokePattern, Pattern::Invoke).invoke()),
                Some(Pattern::Toggle) => done(pattern!(UITogglePattern, Pattern::Toggle).toggle()),
                Some(Pattern::SelectionItem) => {
                    done(pattern!(UISelectionItemPattern, Pattern::SelectionItem).select())
                }
                Some(Pattern::ExpandCollapse) => {
                    let p = pattern!(UIExpandCollapsePattern, Pattern::ExpandCollapse);
                    done(if name.as_str().eq_ignore_ascii_case("collapse") {
                        p.collapse()
                    } else {
                        p.expand()
                    })
                }
                _ => Err(BackendError::Unsupported(format!(
                    "no action `{}` (has: {})",
                    name.literal(40),
                    node.actions
                        .iter()
                        .map(|a| a.literal(40))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            },
            WriteOp::SelectChild(index) => {
                // The same listing `children` gave the engine, so the index names the same item.
                // A pop-up is opened for the pick (and closed after) where it can be.
                let open = node.role.is_choice() && Capabilities::of(&node).has(Capability::Expand);
                let (items, expanded) = if node.role.is_choice() {
                    self.options(&el, open)?
                } else {
                    (self.child_elements(&el)?, false)
                };
                let result = match items.get(*index) {
                    Some((_, item)) => match item.get_pattern::<UISelectionItemPattern>() {
                        Ok(sel) => done(sel.select()),
                        Err(_) => done(
                            item.get_pattern::<UIInvokePattern>()
                                .and_then(|p| p.invoke()),
                        ),
                    },
                    None => Err(BackendError::Unsupported(format!(
                        "item {index} is gone ({} items now)",
                        items.len()
                    ))),
                };
                if open || expanded {
                    Self::collapse(&el);
                }
                result
            }
            WriteOp::Focus => done(el.set_focus()),
            WriteOp::SelectAllText => done(
                pattern!(UITextPattern, Pattern::Text)
                    .get_document_range()
                    .and_then(|r| r.select()),
            ),
            // Focuses the element, then types through SendInput.
            WriteOp::TypeText(text) => done(el.send_text(text, 10)),
            // The planner sends these on AT-SPI (and stepping on AX) only.
            WriteOp::StepTo(_)
            | WriteOp::Key(_)
            | WriteOp::Click
            | WriteOp::ActivateWindow(_)
            | WriteOp::AwaitFocus
            | WriteOp::AwaitMenuKeyboard => Err(BackendError::Unsupported(format!(
                "{} is not planned on Windows",
                super::map::op_method(op).as_str()
            ))),
        }
    }

    fn stop(&mut self) {
        let _ = self.automation.remove_all_event_handlers();
    }
}
