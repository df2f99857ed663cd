//! `set_value` and `invoke`: the element by token or target, the same verified write engine as
//! the command line (`Placement::of` the snapshot it was found in), the same verdict document,
//! and a step for the recorder when one is running.

use std::time::Duration;

use serde_json::Value as Json;

use super::element::{Missed, element, locate};
use super::reply::{Fault, Reply};
use super::server::State;
use super::tools::{InvokeArgs, SetValueArgs};
use crate::app::write::{Act, Verdict, Written, write};
use crate::app::{Element, Error, record};
use crate::model::Snapshot;
use crate::write::{WriteOptions, WriteResult};

/// Longest read-back a call may ask for.
const MAX_READBACK: Duration = Duration::from_secs(60);

fn readback(ms: Option<u64>) -> Duration {
    ms.map_or(WriteOptions::default().timeout, Duration::from_millis)
        .min(MAX_READBACK)
}

/// The value as the engine takes it. The error never repeats the value (it may be a secret).
fn value_text(v: &Json) -> Result<String, Fault> {
    match v {
        Json::String(s) => Ok(s.clone()),
        Json::Bool(b) => Ok(b.to_string()),
        Json::Number(n) => Ok(n.to_string()),
        _ => Err(Fault::usage(
            "value must be a string, a number or a boolean",
        )),
    }
}

/// The reply for a write whose element could not be located: the command line's refusal
/// document (nothing was sent) when the element was named well, else just the error. The value
/// is not echoed, since the field it was meant for (perhaps a password) is unknown.
fn unlocated(el: &Element, missed: Missed, requested: &str) -> Reply {
    if !missed.refusal {
        return missed.fault.into();
    }
    let error = Error::new(missed.fault.kind, missed.fault.message.clone());
    Reply::answer(&Verdict::unlocated(&el.shown(), &error, requested)).fault(missed.fault)
}

/// The verdict as the command line prints it (echoes capped), with its kind, where it landed
/// (`changes`) and the step the recorder added (`recorded`).
fn verdict(w: Written<Option<Json>>) -> Reply {
    let Written {
        result,
        landed,
        recorded,
    } = w;
    let mut reply = Reply::answer(&Verdict::of(result, landed));
    if let Some(step) = recorded {
        reply.structured["recorded"] = step;
    }
    reply
}

/// Records the write as a step when a recorder runs; what it recorded, or why not.
fn record<'a>(
    state: &'a State,
    act: Act<'a>,
) -> impl FnOnce(&Snapshot, usize, &WriteResult) -> Option<Json> + 'a {
    move |snap, row, result| {
        let mut guard = state.recorder();
        let rec = guard.as_mut()?;
        Some(match record::step(rec, act, snap, row, result) {
            Ok(i) => match rec.steps().get(i) {
                Some(s) => serde_json::json!({
                    "step": s.step.id,
                    "flagged": s.flagged,
                    "flags": s.flags,
                }),
                None => Json::Null,
            },
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        })
    }
}

/// `set_value`.
pub async fn set_value(state: &State, args: &SetValueArgs) -> Result<Reply, Fault> {
    let value = value_text(&args.value)?;
    let el = element(args.element_token.as_deref(), args.target.as_ref())?;
    let placeholder = format!(
        "(not echoed, {})",
        crate::model::count(value.chars().count(), "char")
    );
    let session = state.link.session().await?;
    let at = match locate(&session, &el, &args.scope(), args.wait_ms).await {
        Ok(l) => l,
        Err(m) => return Ok(unlocated(&el, m, &placeholder)),
    };
    let opts = WriteOptions {
        timeout: readback(args.timeout_ms),
        force: args.force.unwrap_or(false),
        ..WriteOptions::default()
    };
    let act = Act::Set(&value);
    let w = write(&session, &at, act, &opts, false, record(state, act)).await;
    Ok(verdict(w))
}

/// `invoke`.
pub async fn invoke(state: &State, args: &InvokeArgs) -> Result<Reply, Fault> {
    let el = element(args.element_token.as_deref(), args.target.as_ref())?;
    let action = args.action.as_deref();
    let session = state.link.session().await?;
    let at = match locate(&session, &el, &args.scope(), args.wait_ms).await {
        Ok(l) => l,
        Err(m) => {
            return Ok(unlocated(&el, m, action.unwrap_or("(default action)")));
        }
    };
    let opts = WriteOptions {
        timeout: readback(args.timeout_ms),
        ..WriteOptions::default()
    };
    let act = Act::Invoke(action);
    let w = write(&session, &at, act, &opts, false, record(state, act)).await;
    Ok(verdict(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_text_numbers_or_booleans_and_errors_never_repeat_them() {
        assert_eq!(value_text(&json!("x")).ok().as_deref(), Some("x"));
        assert_eq!(value_text(&json!(5)).ok().as_deref(), Some("5"));
        assert_eq!(value_text(&json!(2.5)).ok().as_deref(), Some("2.5"));
        assert_eq!(value_text(&json!(true)).ok().as_deref(), Some("true"));
        let f = value_text(&json!(["hunter2"])).err();
        assert!(f.is_some_and(|f| !f.message.contains("hunter2")));
    }
}
