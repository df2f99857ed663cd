//! Writing to one located element: its placement in the snapshot that located it, the value
//! or the action sent through the verified write engine, the element's token and target
//! attached to the verdict, the step recorded (by whoever records), and where a write that is
//! not verified landed; the verdict as an answer ([`Verdict`]).

use serde_json::Value as Json;

use super::answer::Answer;
use super::error::{Error, Kind};
use super::locate::Located;
use super::output;
use super::scope::NOT_RESPONDING_ADVICE;
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

/// A write's answer: its verdict (echoed values capped, where it landed attached as
/// `changes`) and how it ended.
pub struct Verdict {
    pub result: WriteResult,
    pub landed: Option<Landed>,
    kind: Option<Kind>,
}

impl Verdict {
    /// The verdict of a write that was sent: verified, already or secure succeed.
    pub fn of(mut result: WriteResult, landed: Option<Landed>) -> Verdict {
        if let Some(l) = &landed {
            result.changes = serde_json::to_value(l).ok();
        }
        output::cap_echoes(&mut result);
        let kind = match result.outcome {
            Outcome::Verified | Outcome::Already | Outcome::Secure => None,
            Outcome::Mismatch => Some(Kind::Mismatch),
            Outcome::Unconfirmed => Some(Kind::Unconfirmed),
            Outcome::Refused => Some(Kind::Refused),
        };
        Verdict {
            result,
            landed,
            kind,
        }
    }

    /// A write whose element `shown` was named well but could not be located — not unique,
    /// its app does not answer or left: refused, nothing sent, ended as `error` ended.
    /// `requested`: the value as it may be echoed.
    pub fn unlocated(shown: &str, error: &Error, requested: &str) -> Verdict {
        let mut result = WriteResult::refused_unresolved(shown, error.message.clone(), requested);
        if error.kind == Kind::NotResponding {
            result.advice = NOT_RESPONDING_ADVICE.into();
        }
        output::cap_echoes(&mut result);
        Verdict {
            result,
            landed: None,
            kind: Some(error.kind),
        }
    }
}

impl Answer for Verdict {
    fn kind(&self) -> Option<Kind> {
        self.kind
    }

    fn message(&self) -> String {
        self.result.reason.clone()
    }

    /// The verdict, then what changed elsewhere in the window when that was looked at.
    fn text(&self) -> String {
        let mut out = output::write_text(&self.result);
        if let Some(l) = &self.landed {
            out.push_str(&landed::text(l));
        }
        out
    }

    fn json(&self) -> Json {
        output::write_json(&self.result)
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
