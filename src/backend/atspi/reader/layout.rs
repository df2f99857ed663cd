//! One pass over what is known of the tree: where each element is placed, breadth-first
//! within the caps, what is still missing, and elements named again (repeats and cycles).

use super::*;

/// What one pass over the known part of the tree found: the layout so far and what is missing.
#[derive(Default)]
pub(super) struct Pass {
    /// Placed elements in breadth-first order (the root first).
    pub(super) order: Vec<ObjRef>,
    /// Children of each placed element, in order, already capped.
    pub(super) kids: HashMap<ObjRef, Vec<ObjRef>>,
    pub(super) truncated: Option<Truncation>,
    /// Listed elements each cap left out.
    pub(super) cuts: crate::model::Cuts,
    /// Placed elements whose children list must be fetched.
    pub(super) need_list: Vec<ObjRef>,
    /// Placed elements not read yet.
    pub(super) need_raw: Vec<ObjRef>,
    /// Placed, read elements whose extras are not read yet.
    pub(super) need_extras: Vec<ObjRef>,
    /// Placed elements whose children are not enumerated and whose visible part is not read
    /// yet, with why.
    pub(super) need_managed: Vec<(ObjRef, Unlisted)>,
    /// Elements a children list named again after they were placed: (the parent whose list
    /// named it, how many of its placed children came before, the element, whether it is an
    /// ancestor of that parent — a cycle).
    pub(super) repeats: Vec<Repeated>,
}

/// One element named again by a children list (see [`Pass::repeats`]).
#[derive(Debug, Clone)]
pub(super) struct Repeated {
    pub(super) parent: ObjRef,
    pub(super) at: usize,
    pub(super) element: ObjRef,
    pub(super) cycle: bool,
}

/// What was read of elements whose children are not enumerated: their summary and the visible
/// descendants placed as their children.
pub(super) type ManagedKids = HashMap<ObjRef, (Managed, Vec<ObjRef>)>;

/// Lays out what is known, breadth-first from `root`, within the caps.
pub(super) fn layout(
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
pub(super) async fn below_a_window(c: &Caller, root: &ObjRef) -> bool {
    if root.path == super::super::calls::ROOT_PATH {
        return false;
    }
    match c.parent(root).await {
        Ok(p) => p.bus == root.bus && p.path != super::super::calls::ROOT_PATH && !p.is_null(),
        Err(_) => false,
    }
}

/// Whether `element` is `from` or one of its ancestors as laid out (`parent_of`), walked up
/// without recursion; the walk stops at the root (whose parent is not recorded).
pub(super) fn is_ancestor(
    element: &ObjRef,
    from: &ObjRef,
    parent_of: &HashMap<ObjRef, ObjRef>,
) -> bool {
    let mut cur = Some(from);
    while let Some(c) = cur {
        if c == element {
            return true;
        }
        cur = parent_of.get(c);
    }
    false
}
