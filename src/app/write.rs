//! Writing to one located element: its placement in the snapshot that located it, the value
//! or the action sent through the verified write engine, the element's token and target
//! attached to the verdict, the step recorded (by whoever records), and where a write that is
//! not verified landed.

use super::error::Kind;
use super::locate::Located;
use crate::backend::Backend;
use crate::model::{NodeId, Snapshot};
use crate::session::Session;
use crate::write::landed::{self, Landed};
use crate::write::{Outcome, Placement, WriteOptions, WriteResult};

/// What is written: a value, or one of the element's actions (`None`: its default one).
#[derive(Debug, Clone, Copy)]
pub enum Act<'a> {
    Set(&'a str),
    Invoke(Option<&'a str>),
}

/// Sends `act` to the element `node` placed at `place`, and judges it (the write engine reads
/// the element fresh, checks preconditions, reads back).
pub async fn send(
    backend: &dyn Backend,
    node: &NodeId,
    place: &Placement,
    act: Act<'_>,
    opts: &WriteOptions,
) -> WriteResult {
    match act {
        Act::Set(value) => crate::write::set_value(backend, node, place, value, opts).await,
        Act::Invoke(action) => crate::write::invoke(backend, node, place, action, opts).await,
    }
}

/// What a write's verdict ended as (`None`: verified, already or secure).
pub fn verdict_kind(r: &WriteResult) -> Option<Kind> {
    match r.outcome {
        Outcome::Verified | Outcome::Already | Outcome::Secure => None,
        Outcome::Mismatch => Some(Kind::Mismatch),
        Outcome::Unconfirmed => Some(Kind::Unconfirmed),
        Outcome::Refused => Some(Kind::Refused),
    }
}

/// The text typed into a field, for telling where it landed (never a secret's).
pub fn typed<'a>(act: Act<'a>, secret: bool) -> Option<&'a str> {
    match act {
        Act::Set(value) if !secret => Some(value),
        _ => None,
    }
}

/// A write that was carried out: the verdict (with its token and target), where it landed
/// when that was looked at, and what the recorder made of it.
pub struct Written<R> {
    pub result: WriteResult,
    pub landed: Option<Landed>,
    pub recorded: R,
}

/// Writes `act` into the element `at` names: placed, sent, judged, recorded by `record`
/// (before anything else reads the window), and, when it is not verified or `changes` asks,
/// followed by what changed elsewhere in the window.
pub async fn write<R>(
    session: &Session,
    at: &Located,
    act: Act<'_>,
    opts: &WriteOptions,
    changes: bool,
    record: impl FnOnce(&Snapshot, usize, &WriteResult) -> R,
) -> Written<R> {
    let backend = session.backend.as_ref();
    let id = at.snap.nodes[at.row].id.clone();
    let place = Placement::of(&at.snap, at.row);
    let mut result = send(backend, &id, &place, act, opts).await;
    result.target = at.target.clone();
    result.token = Some(at.snap.token(at.row).to_string());
    let recorded = record(&at.snap, at.row, &result);
    let landed = landed::after_write(
        backend,
        &landed::Before {
            app: at.app.as_ref(),
            root: &at.root,
            snapshot: &at.snap,
            narrowed: at.narrowed,
        },
        &id,
        &mut result,
        if changes {
            landed::When::Asked
        } else {
            landed::When::Unverified
        },
        typed(act, place.secret),
        if place.secret {
            landed::Values::Hidden
        } else {
            landed::Values::Shown
        },
    )
    .await;
    Written {
        result,
        landed,
        recorded,
    }
}
