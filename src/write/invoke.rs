//! `invoke`: run one action of an element and report whether the app reacted to *it*. There is
//! no requested value to read back, so the evidence is the app's reaction, counted only where
//! the action can be credited with it: the element itself or its subtree changed or went away,
//! a window, dialog or menu appeared, focus moved, or an element that was quiet before the
//! action changed. A busy app (a clock ticking, a progress label) is sampled before the action,
//! and the elements already changing then are not credited. Focus is credited only when it
//! moves on its own: a window being activated moves focus for reasons of its own, and running
//! an action may focus the element itself.

use crate::model::display::counted;
use std::collections::HashSet;
use std::time::Duration;

use tokio::time::Instant;

use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

use super::engine::{Ended, Placement, Sample, WriteOptions, WriteResult, ms};
use super::rules::{Outcome, Refusal};
use crate::backend::strategy::{Path, default_action};
use crate::backend::{Backend, BackendError, Event, EventKind, WriteOp};
use crate::model::{AppText, Node, NodeId, Role, State, literal};

/// How long the app's background activity is sampled before the action. Elements that change
/// more rarely than this can still be miscredited; the result lists what was credited.
pub const BASELINE: Duration = Duration::from_millis(300);

/// Whether an event is about focus or window activation.
fn focus_kind(ev: &Event) -> bool {
    matches!(ev.kind, EventKind::Focus)
        || matches!(&ev.kind, EventKind::StateChanged { state, .. } if state == "focused" || state == "active")
}

/// Why an event counts as the app's reaction to the action, if it does (a few words).
/// `activated`: a window was activated meanwhile, so focus moves are not the action's.
fn credit(
    ev: &Event,
    id: &NodeId,
    place: &Placement,
    busy: &HashSet<NodeId>,
    activated: bool,
) -> Option<&'static str> {
    if focus_kind(ev) {
        let gained = matches!(ev.kind, EventKind::Focus)
            || matches!(&ev.kind, EventKind::StateChanged { state, on: true } if state == "focused");
        // Losing focus is the other side of something taking it; the element taking it is
        // the action's doing; a window's activation moves focus on its own.
        return (gained && &ev.source != id && !activated).then_some("focus moved");
    }
    if &ev.source == id {
        return Some("the element");
    }
    if matches!(ev.kind, EventKind::WindowOpened | EventKind::WindowClosed) {
        return Some("a window");
    }
    if place.subtree.contains(&ev.source) {
        return Some("its subtree");
    }
    if matches!(ev.kind, EventKind::ChildAdded { .. }) && !busy.contains(&ev.source) {
        return Some("a new child");
    }
    if !busy.contains(&ev.source) {
        return Some("was quiet before");
    }
    None
}

/// What of an element counts as it changing: everything but focus (running an action may
/// focus the element, which is not the app reacting) and the transient pressed/armed look.
fn fingerprint(
    n: &Node,
) -> (
    AppText,
    AppText,
    Option<crate::model::Value>,
    crate::model::States,
) {
    let mut states = n.states;
    for s in [State::Focused, State::Armed, State::Pressed] {
        states.set(s, false);
    }
    (
        n.name.clone(),
        n.description.clone(),
        n.value.clone(),
        states,
    )
}

/// The app an event must come from: the element's bus name (AT-SPI ids start with it) or,
/// for the fixture, any event's app.
fn node_app(node: &Node, ev: &Event) -> String {
    node.id.bus().map_or_else(|| ev.app.clone(), str::to_string)
}

/// Runs one action of an element (press, activate, …) and reports what changed.
pub async fn invoke(
    backend: &dyn Backend,
    id: &NodeId,
    place: &Placement,
    action: Option<&str>,
    opts: &WriteOptions,
) -> WriteResult {
    let started = Instant::now();
    let (node, mut res, op) = match prepare(backend, id, action, started).await {
        Ok(ready) => ready,
        Err(refused) => return refused,
    };
    let fingerprint_before = fingerprint(&node);
    // Sample the app's background activity first.
    let mut events = backend.subscribe();
    let busy = baseline(&mut events, &node).await;
    let dispatch_at = Instant::now();
    if let Err(e) = dispatch(backend, id, &op, &mut res).await {
        return res.finish(e.outcome, e.reason, started);
    }
    res.timings.dispatch_ms = ms(dispatch_at.elapsed());
    let (seen, lost) = watch(&mut events, &node, id, place, &busy, opts, dispatch_at).await;
    let (credited, uncredited) = name_credited(backend, &seen, id, place, &busy, &mut res).await;
    let ignored = lost + uncredited;
    let after = backend.read_node(id).await;
    res.timings.readback_ms = ms(dispatch_at.elapsed()) - res.timings.dispatch_ms;
    let background = if ignored > 0 {
        format!(
            "; {} not credited (focus changes, elements already changing before)",
            counted(ignored, "event", "events")
        )
    } else {
        String::new()
    };
    match after {
        Ok(n) => {
            let line = crate::model::display::node_line(&n);
            res.samples.push(Sample {
                at_ms: ms(dispatch_at.elapsed()),
                value: line.clone(),
            });
            let changed = fingerprint(&n) != fingerprint_before;
            res.observed = Some(line.clone());
            res.observed_value = line.into();
            if changed || credited > 0 {
                res.finish(
                    Outcome::Verified,
                    format!(
                        "the app reacted ({}{}{background})",
                        counted(credited, "event", "events"),
                        if changed { ", the element changed" } else { "" }
                    ),
                    started,
                )
            } else {
                res.finish(
                    Outcome::Unconfirmed,
                    format!(
                        "no reaction the action can be credited with within {} ms{background}",
                        opts.timeout.as_millis()
                    ),
                    started,
                )
            }
        }
        // The element going away is itself a reaction (a dialog's button closing it).
        Err(BackendError::Vanished(_)) => res.finish(
            Outcome::Verified,
            format!(
                "the element went away after the action ({}{background})",
                counted(credited, "event", "events")
            ),
            started,
        ),
        Err(e) => res.finish(
            Outcome::Unconfirmed,
            format!("read after the action failed: {e}"),
            started,
        ),
    }
}

/// The element read fresh and the action chosen among its own (`action`, else its default):
/// the element, its result so far and the op to send, or the finished result of a refusal
/// (unreadable, unanswered, disabled, no such action).
async fn prepare(
    backend: &dyn Backend,
    id: &NodeId,
    action: Option<&str>,
    started: Instant,
) -> Result<(Node, WriteResult, WriteOp), WriteResult> {
    // `requested` is shown as is: the action asked for, escaped; JSON has it unescaped.
    let asked = action.unwrap_or("(default action)");
    let new_result = |node: &Node| {
        let mut r = WriteResult::new(node, literal(asked, 80).into_owned());
        r.requested_value = asked.into();
        r
    };
    let node = match backend.read_node(id).await {
        Ok(n) => n,
        Err(e) => {
            let r = new_result(&Node::new(id.clone(), Role::Unknown, ""));
            return Err(r.finish(
                Outcome::Refused,
                format!("element not readable: {e}"),
                started,
            ));
        }
    };
    let chosen = match action {
        Some(a) => node
            .actions
            .iter()
            .find(|x| x.as_str().eq_ignore_ascii_case(a))
            .cloned(),
        None => default_action(&node.actions).cloned(),
    };
    let mut res = new_result(&node);
    res.before = Some(crate::model::display::node_line(&node));
    if let Some(why) = node.unanswered_note() {
        return Err(res.finish(
            Outcome::Refused,
            super::rules::Refusal::Unanswered(why).to_string(),
            started,
        ));
    }
    if !node.is_enabled() {
        return Err(res.finish(Outcome::Refused, Refusal::Disabled.to_string(), started));
    }
    let Some(chosen) = chosen else {
        let have = node.actions_listed();
        return Err(res.finish(
            Outcome::Refused,
            format!("no such action (actions: {have})"),
            started,
        ));
    };
    res.requested = chosen.literal(80).into_owned();
    res.requested_value = chosen.as_str().into();
    let op = WriteOp::Action(chosen);
    res.method = Some(backend.planner().method(&op));
    res.path = Some(Path::Semantic);
    Ok((node, res, op))
}

/// The elements of the element's app that change on their own ([`BASELINE`] of events).
async fn baseline(events: &mut broadcast::Receiver<Event>, node: &Node) -> HashSet<NodeId> {
    let mut busy: HashSet<NodeId> = HashSet::new();
    let baseline_end = Instant::now() + BASELINE;
    while let Ok(got) = tokio::time::timeout_at(baseline_end, events.recv()).await {
        match got {
            Ok(ev) if ev.app == node_app(node, &ev) => {
                busy.insert(ev.source);
            }
            Ok(_) | Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => break,
        }
    }
    busy
}

/// Sends the action, with the toolkit's answer kept in `res`: no answer, or the app leaving
/// after the call reached it, is unconfirmed (it may have run); a refusal is refused.
async fn dispatch(
    backend: &dyn Backend,
    id: &NodeId,
    op: &WriteOp,
    res: &mut WriteResult,
) -> Result<(), Ended> {
    let method = res.method.clone().unwrap_or_default();
    match backend.write(id, op).await {
        Ok(ok) => {
            res.acks.push(method.map(|m| format!("{m} → {ok}")));
            res.dispatched = true;
            Ok(())
        }
        Err(BackendError::Timeout { what, ms: waited }) => {
            res.dispatched = true;
            res.acks
                .push(method.map(|m| format!("{m} → no answer in {waited} ms")));
            Err(Ended {
                outcome: Outcome::Unconfirmed,
                reason: format!("{what} did not answer; the action may still run"),
            })
        }
        Err(
            e @ BackendError::AppGone {
                delivered: true, ..
            },
        ) => {
            res.dispatched = true;
            Err(Ended {
                outcome: Outcome::Unconfirmed,
                reason: format!("{e} after the action was sent; it may have run"),
            })
        }
        Err(BackendError::InputCut(why)) => {
            res.dispatched = true;
            res.acks
                .push(method.map(|m| format!("{m} → cut short: {why}")));
            Err(Ended {
                outcome: Outcome::Unconfirmed,
                reason: format!("synthesized input was cut short ({why}); the action may have run"),
            })
        }
        Err(e) => Err(Ended {
            outcome: Outcome::Refused,
            reason: format!("the toolkit refused the call: {e}"),
        }),
    }
}

/// Watches for a reaction the action can be credited with, until it has been quiet for the
/// settle window (or the timeout): the app's events seen, and how many were lost.
async fn watch(
    events: &mut broadcast::Receiver<Event>,
    node: &Node,
    id: &NodeId,
    place: &Placement,
    busy: &HashSet<NodeId>,
    opts: &WriteOptions,
    dispatch_at: Instant,
) -> (Vec<Event>, usize) {
    let deadline = dispatch_at + opts.timeout;
    let mut seen: Vec<Event> = Vec::new();
    let mut credited = 0usize;
    let mut lost = 0usize;
    let mut last_credit = dispatch_at;
    loop {
        let now = Instant::now();
        if credited > 0 && now.duration_since(last_credit) >= opts.settle || now >= deadline {
            break;
        }
        let wait = opts.poll.max(Duration::from_millis(5));
        match tokio::time::timeout(wait, events.recv()).await {
            Ok(Ok(ev)) if ev.app == node_app(node, &ev) => {
                // Provisional credit decides when the app has gone quiet; the final one is
                // given once every event is known ([`name_credited`]).
                if credit(&ev, id, place, busy, false).is_some() {
                    last_credit = Instant::now();
                    credited += 1;
                }
                if seen.len() < 10_000 {
                    seen.push(ev);
                }
            }
            Ok(Ok(_)) => {}
            // Events were lost: what they were cannot be told, so none is credited.
            Ok(Err(RecvError::Lagged(n))) => lost += n as usize,
            Ok(Err(RecvError::Closed)) => break,
            Err(_) => {}
        }
    }
    (seen, lost)
}

/// The final credit, once every event is known (a window activated meanwhile takes focus
/// moves from the action): the credited events into `res.events`, each on its element named as
/// it is now. Returns how many were credited and how many not.
async fn name_credited(
    backend: &dyn Backend,
    seen: &[Event],
    id: &NodeId,
    place: &Placement,
    busy: &HashSet<NodeId>,
    res: &mut WriteResult,
) -> (usize, usize) {
    let activated = seen.iter().any(
        |ev| matches!(&ev.kind, EventKind::StateChanged { state, on: true } if state == "active"),
    );
    let (mut credited, mut ignored) = (0usize, 0usize);
    // Each credited element named as it is now (role and name, read once each; at most
    // NAMED of them), else by its id.
    const NAMED: usize = 10;
    let mut names: std::collections::HashMap<NodeId, String> = std::collections::HashMap::new();
    // One read that does not answer ends the naming: an app that stops answering is not
    // asked ten times.
    let mut naming = true;
    for ev in seen {
        let Some(why) = credit(ev, id, place, busy, activated) else {
            ignored += 1;
            continue;
        };
        credited += 1;
        if res.events.len() >= 50 {
            continue;
        }
        if naming && !names.contains_key(&ev.source) && names.len() < NAMED {
            let shown = match backend.read_node(&ev.source).await {
                Ok(n) if n.name.is_empty() => n.role.to_string(),
                Ok(n) => format!("{} {}", n.role, n.name.quoted(40)),
                Err(e) => {
                    naming = !matches!(
                        e,
                        BackendError::Timeout { .. }
                            | BackendError::NotResponding { .. }
                            | BackendError::Silent { .. }
                            | BackendError::AppGone { .. }
                    );
                    ev.source.to_string()
                }
            };
            names.insert(ev.source.clone(), shown);
        }
        let on = names
            .get(&ev.source)
            .cloned()
            .unwrap_or_else(|| ev.source.to_string());
        res.events.push(format!("{} on {on} ({why})", ev.summary()));
    }
    (credited, ignored)
}
