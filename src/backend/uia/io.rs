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

use std::collections::VecDeque;
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
    UITextPattern, UITogglePattern, UIValuePattern,
};
use uiautomation::types::{ExpandCollapseState, StructureChangeType, TreeScope, UIProperty};
use uiautomation::variants::Variant;

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
    pub async fn connect(timeout: Duration) -> Result<UiaBackend, BackendError> {
        ThreadBackend::start(timeout.max(START), |events, _| {
            UiaWorker::new(events).map_err(|e| {
                BackendError::Unavailable(format!(
                    "UI Automation: {}",
                    map::describe_error(e.code(), e.message())
                ))
            })
        })
        .await
    }
}

/// Maps a crate error (an HRESULT in `code`) to a backend error that names it.
fn err(e: uiautomation::Error, what: &str) -> BackendError {
    map::backend_error(e.code(), e.message(), what)
}

/// A crate error as the read's walk sees it.
pub(super) fn fault(e: uiautomation::Error) -> Fault {
    Fault {
        code: e.code(),
        message: e.message().to_string(),
    }
}

/// Everything that lives on the UIA thread.
pub struct UiaWorker {
    automation: UIAutomation,
    /// Whole subtree, every property the mapping needs.
    subtree: UICacheRequest,
    /// Whole subtree, the core properties only: for a provider that rejects `subtree`.
    core_subtree: UICacheRequest,
    /// Properties this UI Automation rejected from the cache requests, each with why: every
    /// element read misses them.
    uncached: Vec<String>,
    /// `FindAll`'s condition for every element.
    all: UICondition,
    /// One element.
    element: UICacheRequest,
    /// Children of the desktop (top-level windows).
    children: UICacheRequest,
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
) -> uiautomation::Result<UICacheRequest> {
    let req = automation.create_cache_request()?;
    let wanted = PROPERTIES
        .iter()
        .filter(|p| !core || map::CORE_PROPERTIES.contains(&format!("{p:?}").as_str()));
    for p in wanted {
        if let Err(e) = req.add_property(*p) {
            let named = format!(
                "{p:?} (not cached: {})",
                map::describe_error(e.code(), e.message())
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
    req.set_tree_scope(scope)?;
    Ok(req)
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
    fn new(events: broadcast::Sender<Event>) -> uiautomation::Result<UiaWorker> {
        // Initialises COM on this thread as MTA and creates the CUIAutomation object.
        let automation = UIAutomation::new()?;
        let mut uncached = Vec::new();
        let subtree = cache_request(&automation, TreeScope::Subtree, false, &mut uncached)?;
        let core_subtree = cache_request(&automation, TreeScope::Subtree, true, &mut uncached)?;
        let element = cache_request(&automation, TreeScope::Element, false, &mut uncached)?;
        let children = cache_request(&automation, TreeScope::Children, false, &mut uncached)?;
        let all = automation.create_true_condition()?;
        let event_cache = automation.create_cache_request()?;
        event_cache.add_property(UIProperty::ProcessId)?;
        event_cache.add_property(UIProperty::RuntimeId)?;

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
        let _ = automation.add_focus_changed_event_handler(Some(&event_cache), &focus);
        let desktop = automation.get_root_element()?;
        for event in [
            UIEventType::Window_WindowOpened,
            UIEventType::Window_WindowClosed,
        ] {
            let _ = automation.add_automation_event_handler(
                event,
                &desktop,
                TreeScope::Subtree,
                Some(&event_cache),
                &automation_events,
            );
        }
        let watched_properties = map::WATCHED_PROPERTIES
            .iter()
            .filter_map(|p| UIProperty::try_from(*p).ok())
            .collect();
        Ok(UiaWorker {
            automation,
            subtree,
            core_subtree,
            uncached,
            all,
            element,
            children,
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

    /// The record of one cached element (its own properties only).
    fn record(&self, el: &UIElement) -> UiaElement {
        let prop = |p: UIProperty| el.get_cached_property_value(p).ok();
        let boolean = |p: UIProperty| prop(p).and_then(|v| TryInto::<bool>::try_into(v).ok());
        let int = |p: UIProperty| prop(p).and_then(|v| TryInto::<i32>::try_into(v).ok());
        let float = |p: UIProperty| prop(p).and_then(|v| TryInto::<f64>::try_into(v).ok());
        let string = |p: UIProperty| prop(p).and_then(|v| TryInto::<String>::try_into(v).ok());
        let patterns = Pattern::ALL
            .iter()
            .copied()
            .filter(|pat| {
                UIProperty::try_from(pat.availability_property())
                    .ok()
                    .and_then(boolean)
                    .unwrap_or(false)
            })
            .collect::<map::Patterns>();
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
        let control_type = int(UIProperty::ControlType).unwrap_or(0);
        if value.is_none() && patterns.has(Pattern::Text) && map::base_role(control_type).is_text()
        {
            // An edit without ValuePattern: its text from the TextPattern (one live call).
            value = el
                .get_pattern::<UITextPattern>()
                .and_then(|t| t.get_document_range())
                .and_then(|r| r.get_text(-1))
                .ok();
        }
        UiaElement {
            runtime_id: el.get_runtime_id().unwrap_or_default(),
            control_type,
            name: el.get_cached_name().unwrap_or_default(),
            automation_id: el.get_cached_automation_id().unwrap_or_default(),
            class_name: el.get_cached_classname().unwrap_or_default(),
            help_text: el.get_cached_help_text().unwrap_or_default(),
            localized_control_type: el.get_cached_localized_control_type().unwrap_or_default(),
            framework_id: el.get_cached_framework_id().unwrap_or_default(),
            process_id: el.get_cached_process_id().map_or(0, |p| p as u32),
            is_enabled: el.is_cached_enabled().unwrap_or(true),
            has_keyboard_focus: el.has_cached_keyboard_focus().unwrap_or(false),
            is_keyboard_focusable: el.is_cached_keyboard_focusable().unwrap_or(false),
            is_offscreen: el.is_cached_offscreen().unwrap_or(false),
            is_password: el.is_cached_password().unwrap_or(false),
            is_required_for_form: el.is_cached_required_for_form().unwrap_or(false),
            is_data_valid_for_form: el.is_cached_data_valid_for_form().unwrap_or(true),
            is_dialog: boolean(UIProperty::IsDialog).unwrap_or(false),
            window_is_modal: boolean(UIProperty::WindowIsModal).unwrap_or(false),
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
            bounds: el.get_cached_bounding_rectangle().ok().map(|r| Bounds {
                x: r.get_left(),
                y: r.get_top(),
                width: r.get_width(),
                height: r.get_height(),
            }),
            children: Vec::new(),
            unread: self.uncached.clone(),
            faults: Default::default(),
        }
    }

    /// The record tree under `el`, read with one cross-process call (`BuildUpdatedCache`) and
    /// walked by [`read::build`]; registers every element it includes. A provider that rejects
    /// the full cache request is read again with the core properties only.
    fn read_tree(
        &mut self,
        el: &UIElement,
        depth: usize,
        limits: &Limits,
        budget: &mut usize,
        truncated: &mut Option<Truncation>,
    ) -> Result<UiaElement, BackendError> {
        let (cached, core_only) = match el.build_updated_cache(&self.subtree) {
            Ok(c) => (c, None),
            Err(e) => {
                let rejected = fault(e);
                if matches!(
                    map::classify_hresult(rejected.code),
                    map::ErrorKind::Vanished | map::ErrorKind::Timeout
                ) {
                    return Err(rejected.error("BuildUpdatedCache"));
                }
                let cached = el
                    .build_updated_cache(&self.core_subtree)
                    .map_err(|e| err(e, "BuildUpdatedCache (core properties)"))?;
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
        };
        Ok(read::build(
            &mut live, &cached, depth, limits, budget, truncated,
        ))
    }

    /// Reads `el`'s subtree in one cross-process call and lays it out.
    fn read_subtree(
        &mut self,
        el: &UIElement,
        app: &str,
        limits: &Limits,
    ) -> Result<Snapshot, BackendError> {
        let started = Instant::now();
        let mut budget = limits.max_nodes.saturating_sub(1);
        let mut truncated = None;
        let root = self.read_tree(el, 0, limits, &mut budget, &mut truncated)?;
        let mut snap = layout(app, &root, limits, started);
        snap.truncated = truncated.or(snap.truncated);
        Ok(snap)
    }

    /// Top-level windows of the desktop, each as (element, record).
    fn top_level(&mut self) -> Result<Vec<(UIElement, UiaElement)>, BackendError> {
        let desktop = self
            .automation
            .get_root_element()
            .map_err(|e| err(e, "desktop"))?;
        let cached = desktop
            .build_updated_cache(&self.children)
            .map_err(|e| err(e, "top-level windows"))?;
        let wins = read::children(&mut self.live(), &cached)
            .map_err(|why| BackendError::Failed(format!("top-level windows: {why}")))?;
        let mut out = Vec::with_capacity(wins.len());
        for w in wins {
            let rec = self.record(&w);
            if rec.name.is_empty() && rec.control_type != 50032 {
                continue;
            }
            self.register(&map::node_id(&rec.runtime_id), &w);
            out.push((w, rec));
        }
        Ok(out)
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
        for (w, _) in &windows {
            if budget == 0 {
                truncated.get_or_insert(Truncation::NodeCap);
                break;
            }
            budget -= 1;
            let rec = self.read_tree(w, 1, limits, &mut budget, &mut truncated)?;
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
        let cached = el
            .build_updated_cache(&self.element)
            .map_err(|e| err(e, "reading the element"))?;
        let mut node = map::node_from(&self.record(&cached));
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
        let mut snap = self.read_subtree(el, "", &limits)?;
        let mut rows = option_rows(&snap.nodes, 0);
        // Virtualised drop-downs realise their items only when open.
        if rows.is_empty()
            && !expanded
            && let Some(ec) = &ec
            && ec.expand().is_ok()
        {
            expanded = true;
            snap = self.read_subtree(el, "", &limits)?;
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
        let cached = el
            .build_updated_cache(&self.children)
            .map_err(|e| err(e, "listing children"))?;
        let kids = read::children(&mut self.live(), &cached)
            .map_err(|why| BackendError::Failed(format!("listing children: {why}")))?;
        let mut out = Vec::with_capacity(kids.len());
        for k in kids {
            let n = map::node_from(&self.record(&k));
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
    core_only: Option<Fault>,
}

impl Provider for Live<'_> {
    type El = UIElement;

    fn record(&mut self, el: &UIElement) -> UiaElement {
        let mut rec = self.worker.record(el);
        if let Some(f) = &self.core_only {
            rec.unread.push(read::core_only(f));
        }
        self.worker.register(&map::node_id(&rec.runtime_id), el);
        rec
    }

    fn cached_children(&mut self, el: &UIElement) -> Result<Vec<UIElement>, Fault> {
        el.get_cached_children().map_err(fault)
    }

    fn find_children(&mut self, el: &UIElement) -> Result<Vec<UIElement>, Fault> {
        let request = match self.request {
            Request::Subtree => &self.worker.subtree,
            Request::CoreSubtree => &self.worker.core_subtree,
            Request::Element => &self.worker.element,
        };
        el.find_all_build_cache(TreeScope::Children, &self.worker.all, request)
            .map_err(fault)
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
        let snap = self.read_subtree(&el, &map::app_name(&titles), limits)?;
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
        let done = |r: uiautomation::Result<()>| r.map(|()| true).map_err(|e| err(e, &what));
        match op {
            // The planner chose the pattern (`map::RULES`); the op names it.
            WriteOp::SetText(text) => done(
                el.get_pattern::<UIValuePattern>()
                    .and_then(|p| p.set_value(text)),
            ),
            WriteOp::SetNumber(v) => done(
                el.get_pattern::<UIRangeValuePattern>()
                    .and_then(|p| p.set_value(*v)),
            ),
            WriteOp::Action(name) => match map::action_pattern(name.as_str()) {
                Some(Pattern::Invoke) => {
                    done(el.get_pattern::<UIInvokePattern>().and_then(|p| p.invoke()))
                }
                Some(Pattern::Toggle) => {
                    done(el.get_pattern::<UITogglePattern>().and_then(|p| p.toggle()))
                }
                Some(Pattern::SelectionItem) => done(
                    el.get_pattern::<UISelectionItemPattern>()
                        .and_then(|p| p.select()),
                ),
                Some(Pattern::ExpandCollapse) => {
                    let p = el
                        .get_pattern::<UIExpandCollapsePattern>()
                        .map_err(|e| err(e, &what))?;
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
                el.get_pattern::<UITextPattern>()
                    .and_then(|t| t.get_document_range())
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
