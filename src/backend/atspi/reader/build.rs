//! The snapshot of a pass (finished or partial) and the elements that could not be read, named.

use super::*;

/// The snapshot of what `pass` placed: the finished read's, or a partial one
/// (`Truncation::Reading`) while it goes on.
pub(super) fn build(
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
pub(super) fn named_lost(w: &Walk, pass: &Pass) -> Vec<crate::model::Unreadable> {
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

pub(super) fn empty_snapshot(started: Instant, why: Truncation) -> Snapshot {
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
