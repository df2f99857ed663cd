//! Reading below what the cache gave: concurrent rounds of children lists, elements the cache
//! did not know and the visible part of elements that are not enumerated.

use super::*;

/// An element the cache did not know, read whole: its fields, children (`None`: not to be
/// enumerated) and extras.
pub(super) type Unknown = Result<(RawNode, Option<Vec<ObjRef>>, Extras), BackendError>;

/// One concurrent round's answers.
pub(super) enum Answer {
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
pub(super) const DESCENT: usize = 2_000;

/// How many levels the reads of one round may go on down below an unknown element. Each level
/// is one more future nested in the last, polled through every level above it: a chain of
/// thousands of single children (an app's lie, or a broken bridge) would overflow the stack.
/// What is deeper is read in the next round.
pub(super) const DESCENT_DEPTH: usize = 32;

/// What the reads below the unknown elements of one round share.
pub(super) struct Descent<'a> {
    pub(super) toolkit: Toolkit,
    pub(super) known: &'a Known,
    pub(super) limits: &'a Limits,
    pub(super) actions: &'a ActionCache,
    pub(super) progress: &'a ReadProgress,
    /// Elements still to be read below this round's own (see [`DESCENT`]).
    pub(super) budget: std::sync::atomic::AtomicUsize,
    /// One permit per element whose calls are in flight: as many as a round keeps in flight.
    pub(super) gate: tokio::sync::Semaphore,
    /// Set once the app answered nothing or left: nothing more is started.
    pub(super) halt: std::sync::atomic::AtomicBool,
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
pub(super) fn read_below<'a>(
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
pub(super) async fn read_listed(
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
