//! A target's candidates as the app finds them (`Collection.GetMatches`, the browsers only):
//! each read as resolution needs it, names first where that decides, and the path to the one
//! they name; the app's own per-call answering speed, for the benchmark.

use super::*;

/// The element as a target's resolution sees it: its fields, states and value, and its label
/// relation when `label` (no actions, bounds or children).
pub async fn read_candidate(
    c: &Caller,
    obj: &ObjRef,
    toolkit: Toolkit,
    label: bool,
) -> Result<Node, BackendError> {
    let raw = read_fields(c, obj, toolkit).await?;
    candidate_node(c, raw, toolkit, label).await
}

/// A candidate as [`read_candidate`] reads it, from its fields.
pub(super) async fn candidate_node(
    c: &Caller,
    raw: RawNode,
    toolkit: Toolkit,
    label: bool,
) -> Result<Node, BackendError> {
    let obj = &raw.obj;
    let lab = async {
        if label
            && crate::audit::name_roles::reads_label(raw.role, &raw.raw_role, raw.states, &raw.name)
        {
            read_label(c, obj, None).await
        } else {
            Ok(None)
        }
    };
    let (value, lab) = tokio::join!(get_value(c, &raw, toolkit, None), lab);
    let mut n = to_node(&raw);
    n.value = value?;
    n.label = lab?.map(AppText::from);
    Ok(n)
}

/// Whether an element's interfaces change what a target's resolution sees of it: its value
/// ([`has_value`]) or its normalised states (`normalise_states`: text fields). A toggle's value
/// is its states, a choice's its selection, whatever it implements; any other role has a value
/// through its interfaces only when it is a text, number or progress bar, or says it is
/// editable.
pub(super) fn interfaces_matter(role: Role, states: States) -> bool {
    !(role.is_toggle() || role.is_choice())
        && (role.is_text()
            || role.is_numeric()
            || role == Role::ProgressBar
            || role == Role::SpinButton
            || states.has(State::Editable))
}

/// [`read_candidate`] for an element `Collection.GetMatches` found by one AT-SPI `role` (so it
/// is not asked again): its states, name and description, its interfaces only where
/// [`interfaces_matter`] (otherwise left empty: a candidate serves resolution, which never
/// looks at them; the element it names is read whole on its path), then its value and label.
/// Three calls for a check box instead of five: on a big page the candidates' reads are most
/// of a narrowed `find`.
pub async fn read_match(
    c: &Caller,
    obj: &ObjRef,
    role: u32,
    toolkit: Toolkit,
    label: bool,
) -> Result<Node, BackendError> {
    let (role, raw_role) = role_of(role);
    let (states, name, description) = tokio::join!(c.state(obj), c.name(obj), c.description(obj));
    let mut states = states_of(&states?);
    let interfaces = if interfaces_matter(role, states) {
        interfaces_of(&c.interfaces(obj).await?)
    } else {
        Interfaces::EMPTY
    };
    normalise_states(toolkit, role, &mut states, interfaces);
    let raw = RawNode {
        obj: obj.clone(),
        child_count: -1,
        role,
        raw_role,
        name: field(name, obj, "Name")?,
        description: field(description, obj, "Description")?,
        states,
        interfaces,
        unusable: Unusable::default(),
    };
    candidate_node(c, raw, toolkit, label).await
}

/// Of the elements `Collection.GetMatches` found, those whose name is exactly `exact`
/// (`Target::name_is_exactly`), by one `Name` call each, in their order. A name the toolkit
/// refuses counts as empty, as a full read would take it. `None` when an element could not be
/// read at all (it vanished, the app is slow): the set would not be whole.
pub async fn named_exactly(
    c: &Caller,
    found: Vec<ObjRef>,
    exact: &str,
) -> Result<Option<Vec<ObjRef>>, BackendError> {
    let names: Vec<(ObjRef, Result<String, BackendError>)> = stream::iter(found)
        .map(|o| async move {
            let name = c.name(&o).await;
            let name = field(name, &o, "Name");
            (o, name)
        })
        .buffered(IN_FLIGHT)
        .collect()
        .await;
    let mut kept = Vec::new();
    for (o, name) in names {
        match name {
            Ok(n) if crate::selector::Target::name_is_exactly(&n, exact) => kept.push(o),
            Ok(_) => {}
            Err(e @ BackendError::AppGone { .. }) => return Err(e),
            Err(e) => {
                tracing::debug!(error = %e, "a candidate's name unreadable: reading the tree");
                return Ok(None);
            }
        }
    }
    Ok(Some(kept))
}

/// How fast the app answers each kind of call an element's read sends: for each kind, every
/// element of `objs` asked at once ([`IN_FLIGHT`] in flight), one kind at a time, in
/// microseconds per call. What a read that asks each element call by call (no cache) cannot
/// beat: the sum of these per element. For the benchmark.
pub async fn call_costs(c: &Caller, objs: &[ObjRef]) -> Vec<(&'static str, f64)> {
    async fn timed<F, Fut, T>(objs: &[ObjRef], f: F) -> f64
    where
        F: Fn(ObjRef) -> Fut,
        Fut: std::future::Future<Output = Result<T, BackendError>>,
    {
        let started = Instant::now();
        let _: Vec<_> = stream::iter(objs.iter().cloned().map(f))
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        started.elapsed().as_secs_f64() * 1e6 / objs.len().max(1) as f64
    }
    vec![
        (
            "GetRole",
            timed(objs, |o| async move { c.role(&o).await }).await,
        ),
        (
            "GetState",
            timed(objs, |o| async move { c.state(&o).await }).await,
        ),
        (
            "GetInterfaces",
            timed(objs, |o| async move { c.interfaces(&o).await }).await,
        ),
        (
            "Name",
            timed(objs, |o| async move { c.name(&o).await }).await,
        ),
        (
            "Description",
            timed(objs, |o| async move { c.description(&o).await }).await,
        ),
        (
            "ChildCount",
            timed(objs, |o| async move { c.child_count(&o).await }).await,
        ),
    ]
}

/// The elements from `root` down to `obj`: `root` first, `obj` last, each read by
/// [`read_candidate`]. Fails when `obj` is not under `root` (within 256 levels).
pub async fn path_to(
    c: &Caller,
    root: &ObjRef,
    obj: &ObjRef,
    toolkit: Toolkit,
    label: bool,
) -> Result<Vec<Node>, BackendError> {
    let mut chain = vec![obj.clone()];
    while chain.last() != Some(root) {
        if chain.len() > 256 {
            return Err(BackendError::Failed(
                "the element is not under the window".into(),
            ));
        }
        let up = c.parent(chain.last().unwrap_or(root)).await?;
        if up.is_null() {
            return Err(BackendError::Failed(
                "the element is not under the window".into(),
            ));
        }
        chain.push(up);
    }
    chain.reverse();
    let nodes =
        futures::future::join_all(chain.iter().map(|o| read_candidate(c, o, toolkit, label))).await;
    nodes.into_iter().collect()
}

/// [`Backend::candidates`](crate::backend::Backend::candidates) on an app whose toolkit narrows
/// (the `QUIRKS` table's `Narrows` rows: Chromium and Firefox, whose every element is a real
/// one, so the ATK bridge's walk of the whole subtree, which goes into elements that manage
/// their descendants, is bounded by what the page holds — not LibreOffice, whose sheet would
/// make a billion cells, not Qt, with no Collection, not GTK, whose tree views make their rows
/// on demand; the caller checks): the root read as a candidate and every element of `role`'s
/// AT-SPI roles that `Collection.GetMatches` finds under it, read by [`read_match`] (by
/// [`read_candidate`] when the role is more than one AT-SPI role); with `named`, only those
/// [`named_exactly`] so. `None` when the set cannot be had whole.
pub async fn candidates(
    c: &Caller,
    obj: &ObjRef,
    role: Role,
    toolkit: Toolkit,
    labels: bool,
    named: Option<&str>,
) -> Result<Option<crate::backend::Candidates>, BackendError> {
    /// More candidates than this cost more to read one by one than the tree does.
    const MAX: usize = 5_000;
    let roles = raw_roles(role);
    if roles.is_empty() {
        return Ok(None);
    }
    let asked = Instant::now();
    let (root_node, found) = tokio::join!(
        read_candidate(c, obj, toolkit, labels),
        c.matches_by_role(obj, &roles)
    );
    let matched_ms = asked.elapsed().as_secs_f64() * 1e3;
    let gone = |e: &BackendError| matches!(e, BackendError::AppGone { .. });
    let (root_node, found) = match (root_node, found) {
        (Ok(r), Ok(f)) => (r, f),
        (Err(e), _) | (_, Err(e)) if gone(&e) => return Err(e),
        (Err(e), _) | (_, Err(e)) => {
            tracing::debug!(error = %e, "no narrowing: reading the tree");
            return Ok(None);
        }
    };
    if found.len() > MAX {
        return Ok(None);
    }
    let searched = found.len();
    let found = match named {
        Some(exact) => match named_exactly(c, found, exact).await? {
            Some(f) => f,
            None => return Ok(None),
        },
        None => found,
    };
    // Found by one AT-SPI role (the usual case): it is not asked again.
    let one_role = match roles.as_slice() {
        [r] => Some(*r),
        _ => None,
    };
    let nodes: Vec<Result<Node, BackendError>> = futures::stream::iter(found)
        .map(|o| {
            let c = c.clone();
            async move {
                match one_role {
                    Some(r) => read_match(&c, &o, r, toolkit, labels).await,
                    None => read_candidate(&c, &o, toolkit, labels).await,
                }
            }
        })
        .buffered(256)
        .collect()
        .await;
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        match n {
            Ok(n) => out.push(n),
            Err(e) if gone(&e) => return Err(e),
            // One candidate unreadable (vanished, refused): the set is not whole.
            Err(e) => {
                tracing::debug!(error = %e, "a candidate unreadable: reading the tree");
                return Ok(None);
            }
        }
    }
    tracing::debug!(
        searched,
        read = out.len(),
        matched_ms,
        read_ms = asked.elapsed().as_secs_f64() * 1e3 - matched_ms,
        "candidates read"
    );
    Ok(Some(crate::backend::Candidates {
        root: root_node,
        nodes: out,
        searched,
    }))
}
