//! Reading a whole tree fast and safely: one `Cache.GetItems` call paints most of it, concurrent
//! per-node calls fill its gaps, and a concurrent walk (each element's children read as soon as
//! it is listed) serves apps without a cache (Qt). Only the calls in `calls/` are sent; a property that fails to read costs that
//! field, never the node; an app that leaves the bus ends the read with the reason said.
//!
//! Here the tree read (its phases and the partial tree the inspector paints); in `layout` one
//! pass's placement within the caps; in `descent` the concurrent rounds below the cache; in
//! `build` the snapshot of a pass and the unreadable elements named; in `element` one
//! element's fields, children list, actions, value and label; in `managed` what is read of an
//! element that manages its descendants; in `narrow` a target's candidates as the app finds them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream;

use super::bus::*;
use super::calls::{CacheItemWire, Caller, Coords, LIST_MAX, Listable, Unlisted, ValueProp};
use super::toolkit::{Toolkit, normalise_states};
use crate::backend::progress::ReadProgress;
use crate::backend::{BackendError, Limits};
use crate::model::{
    AppText, Interface, Interfaces, Managed, ManagedReason, Node, Role, Snapshot, SnapshotId,
    State, States, Toggle, Truncation, Value, preorder,
};

mod build;
mod descent;
mod element;
mod layout;
mod managed;
mod narrow;

use build::*;
use descent::*;
use layout::*;

pub use element::*;
pub use managed::*;
pub use narrow::*;

/// How many calls one phase keeps in flight on the connection.
const IN_FLIGHT: usize = 256;

/// How often a read in progress hands the inspector what it has (`ReadProgress::publish`).
const PARTIAL_EVERY: Duration = Duration::from_millis(200);

/// AT-SPI relation type `ATSPI_RELATION_LABELLED_BY`.
const RELATION_LABELLED_BY: u32 = 2;

/// Action names already read, by element. Toolkits fix an element's actions when they create
/// it, so snapshots that ask for actions reuse them; writes always read them afresh.
pub type ActionCache = Arc<Mutex<HashMap<ObjRef, Vec<String>>>>;

/// Bound on remembered elements; the cache starts over past it.
const ACTION_CACHE_MAX: usize = 200_000;

/// What a snapshot reads of an element beyond the cache's fields.
#[derive(Debug, Clone, Default)]
struct Extras {
    actions: Vec<String>,
    value: Option<Value>,
    label: Option<String>,
}

/// Whether an element needs calls beyond its raw fields in this read.
fn needs_extras(raw: &RawNode, limits: &Limits) -> bool {
    has_value(raw.role, raw.states, raw.interfaces)
        || limits.labels
            && crate::audit::name_roles::reads_label(raw.role, &raw.raw_role, raw.states, &raw.name)
        || limits.actions && raw.interfaces.has(Interface::Action)
}

/// An element's value, label (interactive roles, and unnamed elements that may need a name:
/// `name_roles::reads_label`) and, when asked, action names.
async fn read_extras(
    c: &Caller,
    raw: &RawNode,
    toolkit: Toolkit,
    known: &Known,
    limits: &Limits,
    actions: &ActionCache,
) -> Result<Extras, BackendError> {
    let o = &raw.obj;
    let acts = async {
        if !limits.actions || !raw.interfaces.has(Interface::Action) {
            return Ok::<_, BackendError>(Vec::new());
        }
        let cached = actions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(o)
            .cloned();
        if let Some(a) = cached {
            return Ok(a);
        }
        let (a, _) = read_actions(c, o, false).await?;
        let mut cache = actions.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= ACTION_CACHE_MAX {
            cache.clear();
        }
        cache.insert(o.clone(), a.clone());
        Ok(a)
    };
    let val = get_value(c, raw, toolkit, Some(known));
    let label = async {
        if limits.labels
            && crate::audit::name_roles::reads_label(raw.role, &raw.raw_role, raw.states, &raw.name)
        {
            read_label(c, o, Some(known)).await
        } else {
            Ok(None)
        }
    };
    let (a, v, l) = tokio::join!(acts, val, label);
    Ok(Extras {
        actions: a?,
        value: v?,
        label: l?,
    })
}

struct Walk {
    nodes: HashMap<ObjRef, RawNode>,
    /// Children by parent, from the cache: (index in parent, child).
    cached_kids: HashMap<ObjRef, Vec<(i32, ObjRef)>>,
    truncated: Option<Truncation>,
    unreadable: usize,
    /// The read must stop: a call timed out (the app is hung) or the app left the bus.
    stop: bool,
    failed_calls: usize,
    /// The read's own deadline: a call that times out before it means the app went silent.
    deadline: Instant,
    /// Calls elements did not answer (or answered wrongly) while the app answered others,
    /// beyond their fields (children lists, values, actions): named on the element.
    unanswered: HashMap<ObjRef, Unusable>,
    /// Elements named by a children list that could not be read at all: the call that failed
    /// and why. Left out of the tree, counted in `unreadable` and named in the snapshot.
    lost: HashMap<ObjRef, (String, String)>,
    /// Elements claiming too many children that were asked for them one by one and did have
    /// that many (at least `ONE_BY_ONE`): their visible part is read instead.
    many: HashSet<ObjRef>,
}

/// Why a read that got no answer stops: its deadline passed (`--read-timeout`), or, before
/// that, the app answered nothing for the call timeout (busy or hung).
fn silence(deadline: Instant) -> Truncation {
    if Instant::now() >= deadline {
        Truncation::Timeout
    } else {
        Truncation::NotResponding
    }
}

impl Walk {
    /// A read with nothing known yet, ending at `deadline`.
    fn new(deadline: Instant) -> Walk {
        Walk {
            nodes: HashMap::new(),
            cached_kids: HashMap::new(),
            truncated: None,
            unreadable: 0,
            stop: false,
            failed_calls: 0,
            deadline,
            unanswered: HashMap::new(),
            lost: HashMap::new(),
            many: HashSet::new(),
        }
    }

    /// Books one failed call on an element (`default` names it where the error does not): a
    /// timeout or the app leaving stops the read (and says why); an element already read keeps
    /// what it answered, the call named on it (no answer, a wrong form or an error, found gone);
    /// an element not read at all is unreadable, left out and named ([`Walk::lost`]).
    fn note_error(&mut self, o: &ObjRef, e: &BackendError, default: &str) {
        self.failed_calls += 1;
        tracing::debug!(bus = %o.bus, path = %o.path, error = %e, "element unreadable");
        match e {
            BackendError::Timeout { .. } => {
                self.stop = true;
                let why = silence(self.deadline);
                self.truncated.get_or_insert(why);
            }
            BackendError::AppGone { .. } => {
                self.stop = true;
                // The app leaving outranks any limit: it is why the tree is short.
                self.truncated = Some(Truncation::AppGone);
            }
            // Read before: what that call gives is unread, and said so on it.
            e if self.nodes.contains_key(o) => {
                let _ = note_unusable(
                    self.unanswered.entry(o.clone()).or_default(),
                    default,
                    e.clone(),
                );
            }
            e => {
                if self.lost.contains_key(o) {
                    return;
                }
                self.unreadable += 1;
                self.lost
                    .insert(o.clone(), (call_named(e, default), why_short(e)));
            }
        }
    }

    fn load_cache(&mut self, items: Vec<CacheItemWire>, toolkit: Toolkit) {
        for (obj, _app, parent, index, children, ifaces, name, role, desc, states) in items {
            let obj = ObjRef::from_wire(&obj);
            let parent = ObjRef::from_wire(&parent);
            let (role, raw_role) = role_of(role);
            let interfaces = interfaces_of(&ifaces);
            let mut st = states_of(&states);
            normalise_states(toolkit, role, &mut st, interfaces);
            if !parent.is_null() {
                self.cached_kids
                    .entry(parent.clone())
                    .or_default()
                    .push((index, obj.clone()));
            }
            self.nodes.insert(
                obj.clone(),
                RawNode {
                    obj,
                    child_count: children,
                    role,
                    raw_role,
                    name,
                    description: desc,
                    states: st,
                    interfaces,
                    unusable: Unusable::default(),
                },
            );
        }
    }

    /// Children of `obj` the cache named, whatever its count says: for an element whose own
    /// list could not be read, what the cache told of its children is kept.
    fn kids_cached_anyway(&self, obj: &ObjRef) -> Option<Vec<ObjRef>> {
        if self
            .nodes
            .get(obj)
            .is_some_and(|r| r.states.has(State::ManagesDescendants))
        {
            return None;
        }
        let mut kids = self.cached_kids.get(obj)?.clone();
        kids.sort_by_key(|(i, _)| *i);
        Some(kids.into_iter().map(|(_, k)| k).collect())
    }

    /// Children of `obj` from the cache when the cache is whole for it.
    fn kids_from_cache(&self, obj: &ObjRef) -> Option<Vec<ObjRef>> {
        let raw = self.nodes.get(obj)?;
        if raw.states.has(State::ManagesDescendants) || raw.child_count < 0 {
            return None;
        }
        let mut kids = self.cached_kids.get(obj).cloned().unwrap_or_default();
        if kids.len() != raw.child_count as usize || kids.iter().any(|(i, _)| *i < 0) {
            return None;
        }
        kids.sort_by_key(|(i, _)| *i);
        Some(kids.into_iter().map(|(_, k)| k).collect())
    }
}

/// Below this many elements missing from a cache, reading them one by one beats asking the
/// whole cache again.
const REQUERY_MIN: usize = 32;

/// Reads the tree under `root` within `limits`: paint from the cache, then fetch everything
/// still missing (children lists of gaps, unknown elements, values, labels and actions when
/// asked) in concurrent rounds; below the elements the cache did not know, a round goes on
/// down as each children list comes back ([`read_below`], up to [`DESCENT`] elements). How far
/// it has got, and the tree so far when asked for, go to `progress`, whose cancel stops it.
///
/// GTK 4 puts an element in its cache only once something on the bus referred to it, so a
/// first read finds most of a GTK 4 window missing. Where the cache answered but misses many
/// elements, the missing part is first *discovered* with children lists alone (one call per
/// element instead of six), then the cache is asked again and now holds them.
pub async fn read_tree(
    caller: &Caller,
    root: &ObjRef,
    limits: &Limits,
    toolkit: Toolkit,
    actions: &ActionCache,
    progress: &ReadProgress,
) -> Result<Snapshot, BackendError> {
    let started = Instant::now();
    let _reading = progress.start();
    let mut r = TreeRead {
        caller: caller
            .with_deadline(started + limits.timeout)
            .with_progress(),
        root,
        limits,
        toolkit,
        actions,
        progress,
        started,
        w: Walk::new(started + limits.timeout),
        fetched: HashMap::new(),
        extras: HashMap::new(),
        failed: HashSet::new(),
        managed: HashMap::new(),
        published: started,
        published_nodes: 0,
    };
    tracing::debug!(bus = %root.bus, path = %root.path, toolkit = toolkit.as_str(), "read started");
    if progress.wants_partials() {
        r.first_paint().await;
    }
    let cache_answered = match r.cache().await? {
        Ok(answered) => answered,
        Err(why) => return Ok(empty_snapshot(started, why)),
    };
    let t_cache = started.elapsed();
    let cached = r.w.nodes.len();
    if let Err(why) = r.root(cache_answered).await? {
        return Ok(empty_snapshot(started, why));
    }
    // Only GTK 4 adds elements to its cache as they are referred to; elsewhere a discovery
    // round would be a round for nothing.
    let mut discovering = cache_answered && toolkit == Toolkit::Gtk4;
    let mut rounds = 0;
    let pass = loop {
        let mut pass = r.pass();
        progress.set(pass.order.len());
        if progress.cancelled() {
            r.w.stop = true;
            r.w.truncated = Some(Truncation::Cancelled);
        }
        if rounds == 0 && r.w.nodes.len() <= limits.max_nodes {
            r.widen_first_round(&mut pass);
        }
        // While discovering, unknown elements only get their children listed; once nothing
        // below is undiscovered, the cache is asked again (when enough is missing).
        let undiscovered: Vec<ObjRef> = if discovering {
            pass.need_raw
                .iter()
                .filter(|o| !r.fetched.contains_key(*o))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        if discovering && undiscovered.is_empty() && pass.need_list.is_empty() {
            discovering = false;
            if pass.need_raw.len() >= REQUERY_MIN && !r.w.stop {
                r.ask_cache_again(pass.need_raw.len()).await;
                continue;
            }
        }
        let idle = pass.need_list.is_empty()
            && pass.need_raw.is_empty()
            && pass.need_extras.is_empty()
            && pass.need_managed.is_empty();
        if idle || r.w.stop {
            break pass;
        }
        r.publish_between_rounds(&pass);
        rounds += 1;
        tracing::debug!(
            round = rounds,
            at_ms = started.elapsed().as_secs_f64() * 1000.0,
            lists = pass.need_list.len(),
            unknown = pass.need_raw.len(),
            discover = undiscovered.len(),
            extras = pass.need_extras.len(),
            managed = pass.need_managed.len(),
            "read round"
        );
        let unknown = if discovering {
            None
        } else {
            Some(pass.need_raw.as_slice())
        };
        let answers = r.round(&pass, unknown, &undiscovered).await;
        r.take(answers);
    };
    let truncated = r.w.truncated.or(pass.truncated);
    let snap = r.snapshot(&pass, truncated);
    tracing::info!(
        bus = %root.bus,
        toolkit = toolkit.as_str(),
        nodes = snap.nodes.len(),
        cached,
        cache_ms = t_cache.as_secs_f64() * 1000.0,
        total_ms = started.elapsed().as_secs_f64() * 1000.0,
        rounds,
        failed_calls = r.w.failed_calls,
        unreadable = r.w.unreadable,
        truncated = truncated.map(|t| t.as_str()).unwrap_or("no"),
        "read finished"
    );
    Ok(snap)
}

/// One tree read under way ([`read_tree`]): what it asks with, and what it has gathered.
struct TreeRead<'a> {
    caller: Caller,
    root: &'a ObjRef,
    limits: &'a Limits,
    toolkit: Toolkit,
    actions: &'a ActionCache,
    progress: &'a ReadProgress,
    started: Instant,
    w: Walk,
    /// Children lists read from the elements themselves, by parent.
    fetched: HashMap<ObjRef, Vec<ObjRef>>,
    extras: HashMap<ObjRef, Extras>,
    /// Elements whose reads failed (counted unreadable, left out).
    failed: HashSet<ObjRef>,
    managed: ManagedKids,
    /// When the inspector was last handed a partial tree, and of how many nodes.
    published: Instant,
    published_nodes: usize,
}

impl TreeRead<'_> {
    /// What is placed so far, and what is still to read.
    fn pass(&self) -> Pass {
        layout(
            &self.w,
            self.root,
            self.limits,
            &self.fetched,
            &self.extras,
            &self.failed,
            &self.managed,
        )
    }

    /// The snapshot of what `pass` placed.
    fn snapshot(&self, pass: &Pass, truncated: Option<Truncation>) -> Snapshot {
        build(
            &self.w,
            pass,
            &self.extras,
            &self.managed,
            truncated,
            self.started,
        )
    }

    /// The inspector's first paint ([`preview`]), handed over at once.
    async fn first_paint(&mut self) {
        preview(
            &self.caller,
            self.root,
            self.toolkit,
            &mut self.w,
            &mut self.fetched,
        )
        .await;
        let pass = self.pass();
        self.progress.set(pass.order.len());
        self.progress.publish(
            self.root.id(),
            self.snapshot(&pass, Some(Truncation::Reading)),
        );
    }

    /// The cache call: `Ok(Ok(whether the cache answered))`, or `Ok(Err(why))` when the read
    /// ends here with nothing (cancelled, or the app answered nothing).
    async fn cache(&mut self) -> Result<Result<bool, Truncation>, BackendError> {
        let (caller, root, toolkit) = (&self.caller, self.root, self.toolkit);
        // Qt's bridge has no cache of the kind asked for (the `QUIRKS` table): not asked, it
        // is walked from the start. Nor is it asked for a subtree below a window (one row of a
        // page): the cache describes the whole app (Firefox takes seconds on a big page), and
        // the subtree is read element by element from its root instead.
        let cache = async {
            if super::toolkit::works(toolkit, super::toolkit::Work::NoCache) {
                Err(BackendError::Unsupported("Qt has no Cache.GetItems".into()))
            } else if below_a_window(caller, root).await {
                Err(BackendError::Unsupported("a subtree is walked".into()))
            } else {
                caller.cache_items(&root.bus).await
            }
        };
        let Some(cache) = unless_cancelled(cache, self.progress).await else {
            return Ok(Err(Truncation::Cancelled));
        };
        let cache_answered = match cache {
            Ok(items) => {
                let any = !items.is_empty();
                self.w.load_cache(items, toolkit);
                any
            }
            Err(BackendError::Timeout { .. }) => return Ok(Err(silence(self.w.deadline))),
            Err(e @ BackendError::AppGone { .. }) => return Err(e),
            // Toolkits without the cache (or with the legacy signature) are walked instead.
            Err(e) => {
                tracing::debug!(bus = %root.bus, error = %e, "no cache; walking");
                false
            }
        };
        Ok(Ok(cache_answered))
    }

    /// The root's own fields when the cache did not have them, and its children list from the
    /// element itself when the cache answered (`Ok(Err(why))`: the app answered nothing).
    async fn root(&mut self, cache_answered: bool) -> Result<Result<(), Truncation>, BackendError> {
        let (caller, root, toolkit) = (&self.caller, self.root, self.toolkit);
        if !self.w.nodes.contains_key(root) {
            match read_raw(caller, root, toolkit).await {
                Ok(r) => {
                    self.w.nodes.insert(root.clone(), r);
                }
                Err(BackendError::Timeout { .. }) => return Ok(Err(silence(self.w.deadline))),
                Err(e) => return Err(e),
            }
        }
        // The root's children always come from the element itself: GTK 4's cache says its
        // application has none.
        if cache_answered && let Some(root_raw) = self.w.nodes.get(root).cloned() {
            let root_raw = RawNode {
                child_count: -1,
                ..root_raw
            };
            match list_counted(caller, &root_raw).await {
                Ok((_, Some(k))) => {
                    self.fetched.insert(root.clone(), k);
                }
                Ok((count, None)) => {
                    if let Some(r) = self.w.nodes.get_mut(root) {
                        r.child_count = count;
                    }
                }
                Err(BackendError::Timeout { .. }) => return Ok(Err(silence(self.w.deadline))),
                Err(e @ BackendError::AppGone { .. }) => return Err(e),
                Err(e) => self.w.note_error(root, &e, "GetChildren"),
            }
        }
        Ok(Ok(()))
    }

    /// First round: everything the cache knows whose children or extras are missing, reachable
    /// yet or not, so gaps below gaps do not cost a round each.
    fn widen_first_round(&self, pass: &mut Pass) {
        let mut listed: HashSet<ObjRef> = pass.need_list.iter().cloned().collect();
        let mut extra: HashSet<ObjRef> = pass.need_extras.iter().cloned().collect();
        for (o, raw) in &self.w.nodes {
            if raw.child_count != 0
                && self.w.kids_from_cache(o).is_none()
                && matches!(listable(raw), Ok(_) | Err(Unlisted::CountUnknown))
                && listed.insert(o.clone())
            {
                pass.need_list.push(o.clone());
            }
            if needs_extras(raw, self.limits) && extra.insert(o.clone()) {
                pass.need_extras.push(o.clone());
            }
        }
    }

    /// The cache asked again once discovery has made the app put `missing` elements in it.
    async fn ask_cache_again(&mut self, missing: usize) {
        match self.caller.cache_items(&self.root.bus).await {
            Ok(items) => {
                let mut fresh = Walk::new(self.w.deadline);
                fresh.load_cache(items, self.toolkit);
                tracing::debug!(missing, cached = fresh.nodes.len(), "cache asked again");
                self.w.nodes.extend(fresh.nodes);
                self.w.cached_kids = fresh.cached_kids;
            }
            Err(e) => self.w.note_error(self.root, &e, "GetItems"),
        }
    }

    /// Another round follows: the inspector paints what is read so far, at most five times a
    /// second (or when it doubled).
    fn publish_between_rounds(&mut self, pass: &Pass) {
        if !self.progress.wants_partials() {
            return;
        }
        let n = pass.order.len();
        let grown = n >= self.published_nodes + self.published_nodes / 4 + 100;
        if grown && self.published.elapsed() >= PARTIAL_EVERY || n >= 2 * self.published_nodes + 100
        {
            self.published = Instant::now();
            self.published_nodes = n;
            let partial = self.snapshot(pass, Some(Truncation::Reading));
            self.progress.publish(self.root.id(), partial);
        }
    }

    /// One concurrent round: the children lists `pass` needs (and those of `undiscovered`
    /// elements), the `unknown` elements read whole with what is below them, extras, and the
    /// visible part of elements not enumerated. A cancelled read sends nothing more; what is in
    /// flight comes back.
    async fn round(
        &self,
        pass: &Pass,
        unknown: Option<&[ObjRef]>,
        undiscovered: &[ObjRef],
    ) -> Vec<Answer> {
        let (toolkit, limits, progress) = (self.toolkit, self.limits, self.progress);
        let known: Arc<Known> = Arc::new(
            self.w
                .nodes
                .iter()
                .map(|(o, r)| (o.clone(), (r.role, r.name.clone())))
                .collect(),
        );
        let mut jobs: Vec<(u8, ObjRef)> = Vec::new();
        jobs.extend(pass.need_list.iter().map(|o| (0u8, o.clone())));
        match unknown {
            None => jobs.extend(undiscovered.iter().map(|o| (0u8, o.clone()))),
            Some(u) => jobs.extend(u.iter().map(|o| (1u8, o.clone()))),
        }
        jobs.extend(pass.need_extras.iter().map(|o| (2u8, o.clone())));
        let whys: HashMap<ObjRef, Unlisted> = pass.need_managed.iter().cloned().collect();
        jobs.extend(pass.need_managed.iter().map(|(o, _)| (3u8, o.clone())));
        let raws: HashMap<ObjRef, RawNode> = pass
            .need_extras
            .iter()
            .chain(&pass.need_list)
            .chain(whys.keys())
            .filter_map(|o| self.w.nodes.get(o).map(|r| (o.clone(), r.clone())))
            .collect();
        let raws = Arc::new(raws);
        let descent = Descent {
            toolkit,
            known: &known,
            limits,
            actions: self.actions,
            progress,
            budget: DESCENT
                .min(limits.max_nodes.saturating_sub(self.w.nodes.len()))
                .into(),
            gate: tokio::sync::Semaphore::new(IN_FLIGHT),
            halt: false.into(),
        };
        let descent = &descent;
        let answers: Vec<Answer> = stream::iter(jobs)
            .take_while(|_| futures::future::ready(!progress.cancelled()))
            .map(|(kind, o)| {
                let c = self.caller.clone();
                let known = known.clone();
                let raws = raws.clone();
                let actions = self.actions.clone();
                let kids = self.fetched.get(&o).cloned();
                let why = whys.get(&o).copied();
                async move {
                    match kind {
                        0 => {
                            let r = match raws.get(&o) {
                                Some(raw) => list_counted(&c, raw).await,
                                None => discover(&c, &o).await,
                            };
                            Answer::List(o, r)
                        }
                        3 => {
                            let r = match (raws.get(&o), why) {
                                (Some(raw), Some(why)) => read_managed(&c, raw, why, toolkit).await,
                                _ => Err(BackendError::Failed("not read".into())),
                            };
                            Answer::Managed(o, r)
                        }
                        1 => Answer::Below(read_below(&c, o, kids, descent, 0).await),
                        _ => {
                            let r = match raws.get(&o) {
                                Some(raw) => {
                                    read_extras(&c, raw, toolkit, &known, limits, &actions).await
                                }
                                None => Ok(Extras::default()),
                            };
                            Answer::Extras(o, r)
                        }
                    }
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        answers
            .into_iter()
            .flat_map(|a| match a {
                Answer::Below(read) => read,
                a => vec![a],
            })
            .collect()
    }

    /// A round's answers, into the walk (a failed read counts its element unreadable).
    fn take(&mut self, answers: Vec<Answer>) {
        let w = &mut self.w;
        for a in answers {
            match a {
                Answer::List(o, Ok((_, Some(k)))) => {
                    self.fetched.insert(o, k);
                }
                Answer::List(o, Ok((count, None))) => match w.nodes.get_mut(&o) {
                    // Now known not to be enumerated.
                    Some(r) if count >= 0 => {
                        r.child_count = count;
                        if count > LIST_MAX {
                            w.many.insert(o);
                        }
                    }
                    // Its count unreadable: kept, the call named on it, not listed.
                    Some(_) => {
                        w.unanswered
                            .entry(o.clone())
                            .or_default()
                            .malformed
                            .push("ChildCount".into());
                        self.failed.insert(o);
                    }
                    // Not read yet (discovery): its own read decides.
                    None => {}
                },
                Answer::Managed(o, Ok((m, shown))) => {
                    let kids = shown.iter().map(|r| r.obj.clone()).collect();
                    for r in shown {
                        w.nodes.entry(r.obj.clone()).or_insert(r);
                    }
                    self.managed.insert(o, (m, kids));
                }
                Answer::Raw(o, r) => match *r {
                    Ok((raw, kids, ex)) => {
                        w.nodes.insert(o.clone(), raw);
                        if let Some(kids) = kids {
                            self.fetched.insert(o.clone(), kids);
                        }
                        self.extras.insert(o, ex);
                    }
                    Err(e) => {
                        w.note_error(&o, &e, "GetRole");
                        self.failed.insert(o);
                    }
                },
                // Flattened by the round.
                Answer::Below(_) => {}
                Answer::Extras(o, Ok(ex)) => {
                    self.extras.insert(o, ex);
                }
                Answer::Extras(o, Err(e)) => {
                    w.note_error(&o, &e, "GetText");
                    self.failed.insert(o);
                }
                Answer::List(o, Err(e)) => {
                    w.note_error(&o, &e, "GetChildren");
                    self.failed.insert(o);
                }
                Answer::Managed(o, Err(e)) => {
                    w.note_error(&o, &e, "GetExtents");
                    self.failed.insert(o);
                }
            }
        }
    }
}

/// How deep and how big the inspector's first paint is (see [`preview`]).
const PREVIEW_DEPTH: usize = 4;
const PREVIEW_NODES: usize = 200;

/// The inspector's first paint: the top levels under `root`, read element by element, before
/// the cache call, which takes seconds on a big page and which a toolkit answering on one
/// thread (Chromium) would answer first. Bounded by [`PREVIEW_DEPTH`] and [`PREVIEW_NODES`];
/// what it reads stays in the walk. Any failure ends it quietly: the read proper decides.
async fn preview(
    c: &Caller,
    root: &ObjRef,
    toolkit: Toolkit,
    w: &mut Walk,
    fetched: &mut HashMap<ObjRef, Vec<ObjRef>>,
) {
    let mut level = vec![root.clone()];
    for depth in 0..PREVIEW_DEPTH {
        let last = depth + 1 == PREVIEW_DEPTH;
        let read = futures::future::join_all(level.iter().map(|o| async move {
            let raw = read_raw(c, o, toolkit).await?;
            let kids = if last { None } else { list(c, &raw).await? };
            Ok::<_, BackendError>((raw, kids))
        }))
        .await;
        let mut next = Vec::new();
        for (o, r) in level.iter().zip(read) {
            let Ok((raw, kids)) = r else {
                return;
            };
            w.nodes.insert(o.clone(), raw);
            if let Some(k) = kids {
                next.extend(k.iter().cloned());
                fetched.insert(o.clone(), k);
            }
        }
        next.truncate(PREVIEW_NODES.saturating_sub(w.nodes.len()));
        if next.is_empty() {
            return;
        }
        level = next;
    }
}

/// `fut`'s answer, or `None` as soon as the reads are cancelled (`ReadProgress::cancel`): a
/// long call (a big page's cache takes seconds) is not waited for.
async fn unless_cancelled<T>(
    fut: impl std::future::Future<Output = T>,
    progress: &ReadProgress,
) -> Option<T> {
    tokio::pin!(fut);
    loop {
        tokio::select! {
            r = &mut fut => return Some(r),
            _ = tokio::time::sleep(Duration::from_millis(50)) => {
                if progress.cancelled() {
                    return None;
                }
            }
        }
    }
}
