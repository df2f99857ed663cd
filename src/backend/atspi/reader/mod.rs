//! Reading a whole tree fast and safely: one `Cache.GetItems` call paints most of it, concurrent
//! per-node calls fill its gaps, and a concurrent walk (each element's children read as soon as
//! it is listed) serves apps without a cache (Qt). Only the calls in `calls/` are sent; a property that fails to read costs that
//! field, never the node; an app that leaves the bus ends the read with the reason said.
//!
//! Here the tree read (rounds, layout, the partial tree the inspector paints); in `element` one
//! element's fields, children list, actions, value and label; in `managed` what is read of an
//! element that manages its descendants; in `narrow` a target's candidates as the app finds them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream;

use super::bus::*;
use super::calls::{CacheItemWire, Caller, LIST_MAX, Listable, Unlisted, ValueProp};
use super::toolkit::{Toolkit, normalise_states};
use crate::backend::progress::ReadProgress;
use crate::backend::{BackendError, Limits};
use crate::model::{
    AppText, Interface, Interfaces, Managed, ManagedReason, Node, Role, Snapshot, SnapshotId,
    State, States, Toggle, Truncation, Value, preorder,
};

mod element;
mod managed;
mod narrow;

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
            return Ok(Vec::new());
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

/// What one pass over the known part of the tree found: the layout so far and what is missing.
#[derive(Default)]
struct Pass {
    /// Placed elements in breadth-first order (the root first).
    order: Vec<ObjRef>,
    /// Children of each placed element, in order, already capped.
    kids: HashMap<ObjRef, Vec<ObjRef>>,
    truncated: Option<Truncation>,
    /// Listed elements each cap left out.
    cuts: crate::model::Cuts,
    /// Placed elements whose children list must be fetched.
    need_list: Vec<ObjRef>,
    /// Placed elements not read yet.
    need_raw: Vec<ObjRef>,
    /// Placed, read elements whose extras are not read yet.
    need_extras: Vec<ObjRef>,
    /// Placed elements whose children are not enumerated and whose visible part is not read
    /// yet, with why.
    need_managed: Vec<(ObjRef, Unlisted)>,
    /// Elements a children list named again after they were placed: (the parent whose list
    /// named it, how many of its placed children came before, the element, whether it is an
    /// ancestor of that parent — a cycle).
    repeats: Vec<Repeated>,
}

/// One element named again by a children list (see [`Pass::repeats`]).
#[derive(Debug, Clone)]
struct Repeated {
    parent: ObjRef,
    at: usize,
    element: ObjRef,
    cycle: bool,
}

/// What was read of elements whose children are not enumerated: their summary and the visible
/// descendants placed as their children.
type ManagedKids = HashMap<ObjRef, (Managed, Vec<ObjRef>)>;

/// Lays out what is known, breadth-first from `root`, within the caps.
fn layout(
    w: &Walk,
    root: &ObjRef,
    limits: &Limits,
    fetched: &HashMap<ObjRef, Vec<ObjRef>>,
    extras: &HashMap<ObjRef, Extras>,
    failed: &HashSet<ObjRef>,
    managed: &ManagedKids,
) -> Pass {
    let mut p = Pass::default();
    let mut seen: HashSet<ObjRef> = [root.clone()].into_iter().collect();
    // Each placed element's parent, to tell a cycle from a second parent.
    let mut parent_of: HashMap<ObjRef, ObjRef> = HashMap::new();
    let mut level = vec![root.clone()];
    p.order.push(root.clone());
    let mut depth = 0usize;
    'levels: while !level.is_empty() {
        let mut next = Vec::new();
        for (at, o) in level.iter().enumerate() {
            match w.nodes.get(o) {
                None => {
                    if !failed.contains(o) {
                        p.need_raw.push(o.clone());
                    }
                    // Discovered but not read yet: lay out below it all the same.
                    if !fetched.contains_key(o) {
                        continue;
                    }
                }
                Some(raw) => {
                    if !extras.contains_key(o) && !failed.contains(o) && needs_extras(raw, limits) {
                        p.need_extras.push(o.clone());
                    }
                    if raw.child_count == 0 && !fetched.contains_key(o) {
                        continue;
                    }
                }
            }
            let mut list = match fetched.get(o) {
                Some(k) => Some(k.clone()),
                None if failed.contains(o) => w.kids_cached_anyway(o),
                None => w.kids_from_cache(o),
            };
            // Never enumerated: an element that manages its descendants or has too many
            // children gets its visible descendants instead.
            // One that claims too many children without managing its descendants is first
            // asked for them one by one (`list_checked`): the claim may be a lie.
            if list.is_none()
                && let Some(raw) = w.nodes.get(o)
                && matches!(listable(raw), Err(Unlisted::TooMany))
                && !raw.states.has(State::ManagesDescendants)
                && !w.many.contains(o)
            {
                if !failed.contains(o) {
                    p.need_list.push(o.clone());
                }
                continue;
            }
            if list.is_none()
                && let Some(raw) = w.nodes.get(o)
                && let Err(why @ (Unlisted::ManagesDescendants | Unlisted::TooMany)) = listable(raw)
            {
                match managed.get(o) {
                    Some((_, shown)) => list = Some(shown.clone()),
                    None => {
                        if !failed.contains(o) {
                            p.need_managed.push((o.clone(), why));
                        }
                        continue;
                    }
                }
            }
            let Some(mut list) = list else {
                if !failed.contains(o) {
                    p.need_list.push(o.clone());
                }
                continue;
            };
            if depth >= limits.max_depth {
                if !list.is_empty() {
                    p.truncated.get_or_insert(Truncation::DepthCap);
                    p.cuts.max_depth += list.len();
                }
                continue;
            }
            if list.len() > limits.max_siblings {
                p.cuts.max_children += list.len() - limits.max_siblings;
                list.truncate(limits.max_siblings);
                p.truncated.get_or_insert(Truncation::SiblingCap);
            }
            let mut placed = Vec::with_capacity(list.len());
            let listed = list.len();
            for (i, k) in list.into_iter().enumerate() {
                if p.order.len() + p.repeats.len() >= limits.max_nodes {
                    p.truncated.get_or_insert(Truncation::NodeCap);
                    // Left out: the rest of this list, and what is known to be listed below
                    // the elements of this level not laid out yet and of the next one.
                    let known = |x: &ObjRef| {
                        fetched
                            .get(x)
                            .map(Vec::len)
                            .or_else(|| w.kids_from_cache(x).map(|k| k.len()))
                            .unwrap_or(0)
                    };
                    p.cuts.max_nodes += listed - i
                        + level[at + 1..].iter().map(known).sum::<usize>()
                        + next.iter().map(known).sum::<usize>();
                    p.kids.insert(o.clone(), placed);
                    break 'levels;
                }
                // Named before (as an ancestor, or under another parent): shown here once more,
                // marked, and never entered again.
                if !seen.insert(k.clone()) {
                    let cycle = is_ancestor(&k, o, &parent_of);
                    p.repeats.push(Repeated {
                        parent: o.clone(),
                        at: placed.len(),
                        element: k,
                        cycle,
                    });
                    continue;
                }
                parent_of.insert(k.clone(), o.clone());
                p.order.push(k.clone());
                next.push(k.clone());
                placed.push(k);
            }
            p.kids.insert(o.clone(), placed);
        }
        level = next;
        depth += 1;
    }
    p
}

/// Whether `root` is neither an app nor one of its windows (its parent is not the app): one
/// `Parent` call. When that cannot be told, it is taken for a window.
async fn below_a_window(c: &Caller, root: &ObjRef) -> bool {
    if root.path == super::calls::ROOT_PATH {
        return false;
    }
    match c.parent(root).await {
        Ok(p) => p.bus == root.bus && p.path != super::calls::ROOT_PATH && !p.is_null(),
        Err(_) => false,
    }
}

/// Whether `element` is `from` or one of its ancestors as laid out (`parent_of`), walked up
/// without recursion; the walk stops at the root (whose parent is not recorded).
fn is_ancestor(element: &ObjRef, from: &ObjRef, parent_of: &HashMap<ObjRef, ObjRef>) -> bool {
    let mut cur = Some(from);
    while let Some(c) = cur {
        if c == element {
            return true;
        }
        cur = parent_of.get(c);
    }
    false
}

/// An element the cache did not know, read whole: its fields, children (`None`: not to be
/// enumerated) and extras.
type Unknown = Result<(RawNode, Option<Vec<ObjRef>>, Extras), BackendError>;

/// One concurrent round's answers.
enum Answer {
    /// A children list, with the child count it went by (`None`: not to be enumerated).
    List(ObjRef, Result<(i32, Option<Vec<ObjRef>>), BackendError>),
    /// The visible part of an element that is not enumerated.
    Managed(ObjRef, Result<(Managed, Vec<RawNode>), BackendError>),
    /// An element the cache did not know, read with its children list and extras.
    Raw(ObjRef, Box<Unknown>),
    /// One of the round's unknown elements and what was read below it ([`read_below`]).
    Below(Vec<Answer>),
    Extras(ObjRef, Result<Extras, BackendError>),
}

/// How many elements the reads of one round may go on to below the unknown elements it was
/// given ([`read_below`]), all branches together. A toolkit without a cache (Qt) is then read
/// in a round or two instead of one round per level, each waiting for its slowest element;
/// what is left past it is read the next round (and a partial tree is shown in between).
const DESCENT: usize = 2_000;

/// How many levels the reads of one round may go on down below an unknown element. Each level
/// is one more future nested in the last, polled through every level above it: a chain of
/// thousands of single children (an app's lie, or a broken bridge) would overflow the stack.
/// What is deeper is read in the next round.
const DESCENT_DEPTH: usize = 32;

/// What the reads below the unknown elements of one round share.
struct Descent<'a> {
    toolkit: Toolkit,
    known: &'a Known,
    limits: &'a Limits,
    actions: &'a ActionCache,
    progress: &'a ReadProgress,
    /// Elements still to be read below this round's own (see [`DESCENT`]).
    budget: std::sync::atomic::AtomicUsize,
    /// One permit per element whose calls are in flight: as many as a round keeps in flight.
    gate: tokio::sync::Semaphore,
    /// Set once the app answered nothing or left: nothing more is started.
    halt: std::sync::atomic::AtomicBool,
}

impl Descent<'_> {
    /// Takes one element of the budget.
    fn take(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        !self.halt.load(Relaxed)
            && !self.progress.cancelled()
            && self
                .budget
                .fetch_update(Relaxed, Relaxed, |b| b.checked_sub(1))
                .is_ok()
    }
}

/// Reads an element the cache did not know ([`read_unknown`]), then, as soon as its children
/// are listed, each of them the same way while the round's budget lasts: no level waits for
/// the slowest element of the level above. Every element is read whole before it is listed
/// (its states and count decide, [`listable`]), exactly as a round would; one that is not to
/// be enumerated gets its visible part read ([`read_managed`]) at once. Each element comes back
/// with its own answers; children left unread are read in the next round.
fn read_below<'a>(
    c: &'a Caller,
    o: ObjRef,
    kids: Option<Vec<ObjRef>>,
    d: &'a Descent<'a>,
    level: usize,
) -> futures::future::BoxFuture<'a, Vec<Answer>> {
    Box::pin(async move {
        let listed = {
            let _permit = d.gate.acquire().await;
            read_listed(c, &o, kids, d.toolkit).await
        };
        let (raw, kids) = match listed {
            Ok(v) => v,
            Err(e) => {
                if matches!(
                    e,
                    BackendError::Timeout { .. } | BackendError::AppGone { .. }
                ) {
                    d.halt.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                return vec![Answer::Raw(o, Box::new(Err(e)))];
            }
        };
        // Not to be enumerated: its visible part, read now rather than in a round of its own.
        let managed = async {
            match (&kids, listable(&raw)) {
                (None, Err(why @ (Unlisted::ManagesDescendants | Unlisted::TooMany))) => {
                    let _permit = d.gate.acquire().await;
                    Some(read_managed(c, &raw, why, d.toolkit).await)
                }
                _ => None,
            }
        };
        let below: Vec<ObjRef> = kids
            .iter()
            .flatten()
            .take_while(|_| level < DESCENT_DEPTH && d.take())
            .cloned()
            .collect();
        let extras = async {
            if needs_extras(&raw, d.limits) {
                let _permit = d.gate.acquire().await;
                read_extras(c, &raw, d.toolkit, d.known, d.limits, d.actions).await
            } else {
                Ok(Extras::default())
            }
        };
        let deeper = futures::future::join_all(
            below
                .into_iter()
                .map(|k| read_below(c, k, None, d, level + 1)),
        );
        let (extras, deeper, managed) = tokio::join!(extras, deeper, managed);
        let mut out = Vec::with_capacity(2 + deeper.iter().map(Vec::len).sum::<usize>());
        // Extras it gave no usable answer for cost those fields, named on it, not the element.
        let mut raw = raw;
        let read = match extras {
            Ok(ex) => Ok((raw, kids, ex)),
            Err(e) => match note_unusable(&mut raw.unusable, "GetText", e) {
                Ok(()) => Ok((raw, kids, Extras::default())),
                Err(e) => Err(e),
            },
        };
        // The element first, so a failure of its visible part is booked on it.
        out.push(Answer::Raw(o.clone(), Box::new(read)));
        if let Some(m) = managed {
            out.push(Answer::Managed(o, m));
        }
        out.extend(deeper.into_iter().flatten());
        out
    })
}

/// An element the cache did not know: its fields, then (unless `kids` are known) its children
/// list, which its states and count allow or not ([`list_counted`]).
async fn read_listed(
    c: &Caller,
    o: &ObjRef,
    kids: Option<Vec<ObjRef>>,
    toolkit: Toolkit,
) -> Result<(RawNode, Option<Vec<ObjRef>>), BackendError> {
    // Fields first: whether the element may be listed depends on its states and count. One
    // gone after answering some calls is kept with what it answered, and not listed.
    let mut raw = read_raw_kept(c, o, toolkit, true, true).await?;
    if !raw.unusable.vanished.is_empty() {
        return Ok((raw, kids.or(Some(Vec::new()))));
    }
    let kids = match kids {
        Some(k) => {
            if raw.child_count <= LIST_MAX {
                raw.child_count = k.len() as i32;
            }
            Some(k)
        }
        None => match list_counted(c, &raw).await {
            Ok((count, kids)) => {
                raw.child_count = count;
                // What it gave is its count, but for a count claimed beyond `LIST_MAX`, which
                // is kept to be shown beside it.
                if let Some(k) = &kids
                    && raw.child_count <= LIST_MAX
                {
                    raw.child_count = k.len() as i32;
                }
                kids
            }
            // Its list unusable (a wrong form, no answer, gone, refused): the element is kept,
            // the call named on it, its children unknown and not asked again.
            Err(e) => {
                note_unusable(&mut raw.unusable, "GetChildren", e)?;
                Some(Vec::new())
            }
        },
    };
    Ok((raw, kids))
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

/// The snapshot of what `pass` placed: the finished read's, or a partial one
/// (`Truncation::Reading`) while it goes on.
fn build(
    w: &Walk,
    pass: &Pass,
    extras: &HashMap<ObjRef, Extras>,
    managed: &ManagedKids,
    truncated: Option<Truncation>,
    started: Instant,
) -> Snapshot {
    let order: Vec<&ObjRef> = pass
        .order
        .iter()
        .filter(|o| w.nodes.contains_key(*o))
        .collect();
    let index_of: HashMap<&ObjRef, usize> =
        order.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    let mut nodes: Vec<Node> = order
        .iter()
        .map(|o| {
            let mut n = w
                .nodes
                .get(*o)
                .map(to_node)
                .unwrap_or_else(|| Node::new(o.id(), Role::Unknown, "unknown"));
            if let Some(ex) = extras.get(*o) {
                n.actions = ex.actions.iter().map(AppText::from).collect();
                n.value = ex.value.clone();
                n.label = ex.label.as_ref().map(AppText::from);
            }
            if let Some(k) = pass.kids.get(*o) {
                n.children = k.iter().filter_map(|k| index_of.get(k).copied()).collect();
            }
            if let Some((m, _)) = managed.get(*o) {
                n.managed = Some(Box::new(m.clone()));
            }
            // A count claimed beyond what it gave (`list_checked`), shown beside its children.
            if let (Some(raw), Some(kids)) = (w.nodes.get(*o), pass.kids.get(*o))
                && raw.child_count > LIST_MAX
                && kids.len() < raw.child_count as usize
                && n.managed.is_none()
            {
                n.child_count_claimed = Some(i64::from(raw.child_count));
            }
            if let Some(u) = w.unanswered.get(*o) {
                u.onto(&mut n);
            }
            n
        })
        .collect();
    // Elements named again: a leaf each, in the place the list named it, its row set below.
    for r in &pass.repeats {
        let (Some(&parent), Some(raw)) = (index_of.get(&r.parent), w.nodes.get(&r.element)) else {
            continue;
        };
        let mut n = to_node(raw);
        n.repeat = Some(Box::new(crate::model::Repeat {
            of: 0,
            cycle: r.cycle,
        }));
        let row = nodes.len();
        nodes.push(n);
        let kids = &mut nodes[parent].children;
        let at = r.at.min(kids.len());
        kids.insert(at, row);
    }
    let window = match nodes.first() {
        Some(n) if n.role != Role::Application => n.name.clone(),
        _ => AppText::default(),
    };
    let mut nodes = if nodes.is_empty() {
        nodes
    } else {
        preorder(std::mem::take(&mut nodes), 0)
    };
    if !pass.repeats.is_empty() {
        crate::model::Snapshot::link_repeats(&mut nodes);
    }
    Snapshot {
        id: SnapshotId::next(),
        app: AppText::default(),
        window,
        nodes,
        truncated,
        // An element lost once and read after all (a cache asked again) is in the tree.
        unreadable: w.lost.keys().filter(|o| !w.nodes.contains_key(*o)).count(),
        unreadable_elements: named_lost(w, pass),
        cuts: pass.cuts,
        read_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}

/// The elements that could not be read at all, each with the element whose list named it, the
/// call that failed and why (the first [`crate::model::UNREADABLE_NAMED`], by id).
fn named_lost(w: &Walk, pass: &Pass) -> Vec<crate::model::Unreadable> {
    if w.lost.is_empty() {
        return Vec::new();
    }
    let mut parent: HashMap<&ObjRef, &ObjRef> = HashMap::new();
    for (p, kids) in &pass.kids {
        for k in kids {
            if w.lost.contains_key(k) {
                parent.insert(k, p);
            }
        }
    }
    let mut out: Vec<crate::model::Unreadable> = w
        .lost
        .iter()
        .filter(|(o, _)| !w.nodes.contains_key(*o))
        .map(|(o, (call, why))| crate::model::Unreadable {
            element: o.id().0,
            parent: parent.get(o).map(|p| p.id().0).unwrap_or_default(),
            call: call.clone(),
            why: why.clone(),
        })
        .collect();
    out.sort_by(|a, b| a.element.cmp(&b.element));
    out.truncate(crate::model::UNREADABLE_NAMED);
    out
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

fn empty_snapshot(started: Instant, why: Truncation) -> Snapshot {
    Snapshot {
        id: SnapshotId::next(),
        app: AppText::default(),
        window: AppText::default(),
        nodes: Vec::new(),
        truncated: Some(why),
        unreadable: 0,
        unreadable_elements: Vec::new(),
        cuts: Default::default(),
        read_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}
