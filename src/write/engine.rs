//! The write driver: fresh read, preconditions, dispatch through the semantic interface (or the
//! keyboard fallback), then read-back polling until the value settles or the timeout passes.
//! A toolkit's "ok" is recorded but never taken as evidence; only the read-back decides.

use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::broadcast::error::TryRecvError;

use super::rules::*;
use crate::backend::{Backend, BackendError, Event, WriteOp};
use crate::model::{Interface, Node, NodeId, Role, Value};

/// Knobs for one write.
#[derive(Debug, Clone, Copy)]
pub struct WriteOptions {
    /// How long read-back may take before the write is judged on what was seen.
    pub timeout: Duration,
    /// A value must hold this long (two reads this far apart) before it counts as settled:
    /// apps that rewrite a value from a deferred handler do so within a few tens of ms.
    pub settle: Duration,
    /// Pause between read-back samples.
    pub poll: Duration,
    /// Send out-of-range numbers anyway (the result then says `clamped`).
    pub force: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            timeout: Duration::from_millis(1500),
            settle: Duration::from_millis(60),
            poll: Duration::from_millis(10),
            force: false,
        }
    }
}

/// One read-back sample.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Milliseconds after dispatch.
    pub at_ms: f64,
    /// The value seen (secrets show only their length), or the read error.
    pub value: String,
}

/// Timings of one write, in milliseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    pub read_before_ms: f64,
    pub dispatch_ms: f64,
    pub readback_ms: f64,
    /// Time spent only waiting for the value to prove stable (part of `readback_ms`).
    pub settle_wait_ms: f64,
    pub total_ms: f64,
}

/// The structured verdict of a write.
#[derive(Debug, Clone, Serialize)]
pub struct WriteResult {
    pub outcome: Outcome,
    pub mismatch: Option<MismatchKind>,
    /// Why, in one sentence.
    pub reason: String,
    /// What to do next, in one line.
    pub advice: String,
    pub target: Option<String>,
    pub token: Option<String>,
    pub node: NodeId,
    pub role: Role,
    pub name: String,
    pub requested: String,
    pub before: Option<String>,
    pub observed: Option<String>,
    /// The method used (interface/action/keyboard), `None` when nothing was sent.
    pub method: Option<String>,
    /// What the toolkit answered to each call (never evidence).
    pub acks: Vec<String>,
    pub dispatched: bool,
    pub samples: Vec<Sample>,
    /// Accessibility events from the element after the write.
    pub events: Vec<String>,
    pub timings: Timings,
}

impl WriteResult {
    fn new(node: &Node, requested: String) -> WriteResult {
        WriteResult {
            outcome: Outcome::Refused,
            mismatch: None,
            reason: String::new(),
            advice: String::new(),
            target: None,
            token: None,
            node: node.id.clone(),
            role: node.role,
            name: node.name.clone(),
            requested,
            before: None,
            observed: None,
            method: None,
            acks: Vec::new(),
            dispatched: false,
            samples: Vec::new(),
            events: Vec::new(),
            timings: Timings::default(),
        }
    }

    fn finish(mut self, outcome: Outcome, reason: impl Into<String>, started: Instant) -> Self {
        self.outcome = outcome;
        self.reason = reason.into();
        self.advice = outcome.advice().to_string();
        self.timings.total_ms = ms(started.elapsed());
        self
    }

    /// A refusal made before anything was read (e.g. the target did not resolve).
    pub fn refused_unresolved(
        target: &str,
        reason: impl Into<String>,
        requested: &str,
    ) -> WriteResult {
        let mut r = WriteResult::new(
            &Node::new(NodeId(String::new()), Role::Unknown, ""),
            format!("{requested:?}"),
        );
        r.target = Some(target.to_string());
        r.outcome = Outcome::Refused;
        r.reason = reason.into();
        r.advice = Outcome::Refused.advice().to_string();
        r
    }
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

/// Where an element sits, from the snapshot it was resolved in.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    pub parent: Option<NodeId>,
    /// Whether the element was a password (or otherwise sensitive) field when resolved.
    pub secret: bool,
}

const TOGGLE_ACTIONS: &[&str] = &["toggle", "click", "press", "activate", "invoke"];
const SELECT_ACTIONS: &[&str] = &["select", "click", "activate", "press", "invoke"];

fn pick_action<'a>(node: &'a Node, prefs: &[&str]) -> Option<&'a str> {
    prefs.iter().find_map(|p| {
        node.actions
            .iter()
            .find(|a| a.eq_ignore_ascii_case(p))
            .map(String::as_str)
    })
}

/// Option labels of a combo box: its items, or the items of its single menu/list child.
async fn options_of(backend: &dyn Backend, combo: &NodeId) -> Result<Vec<Node>, BackendError> {
    let kids = backend.children(combo).await?;
    if let [only] = kids.as_slice() {
        if matches!(only.role, Role::Menu | Role::List) {
            return backend.children(&only.id).await;
        }
    }
    Ok(kids)
}

/// Sets `raw` on the element `id`: the whole contract of `set_value`.
pub async fn set_value(
    backend: &dyn Backend,
    id: &NodeId,
    place: &Placement,
    raw: &str,
    opts: &WriteOptions,
) -> WriteResult {
    let started = Instant::now();
    let node = match backend.read_node(id).await {
        Ok(n) => n,
        Err(e) => {
            let mut r = WriteResult::new(&Node::new(id.clone(), Role::Unknown, ""), String::new());
            r.requested = if place.secret {
                format!("(secret, {} chars)", raw.chars().count())
            } else {
                format!("{raw:?}")
            };
            return r.finish(
                Outcome::Refused,
                format!("element not readable: {e}"),
                started,
            );
        }
    };
    let secret = place.secret || node.is_secret();
    let mut res = WriteResult::new(
        &node,
        if secret {
            format!("(secret, {} chars)", raw.chars().count())
        } else {
            format!("{raw:?}")
        },
    );
    res.timings.read_before_ms = ms(started.elapsed());
    let req = match plan_request(&node, raw, opts.force) {
        Ok(r) => r,
        Err(refusal) => return res.finish(Outcome::Refused, refusal.to_string(), started),
    };
    res.requested = req.display(secret);
    let before = observe(&node, &req);
    res.before = Some(before.display(secret));
    let step = match node.value {
        Some(Value::Number { step, .. }) => step.unwrap_or(0.0),
        _ => 0.0,
    };
    let min_max = match node.value {
        Some(Value::Number { min, max, .. }) => {
            Some((min.unwrap_or(f64::MIN), max.unwrap_or(f64::MAX)))
        }
        _ => None,
    };
    // A secret's text cannot be read back, so "already" cannot be known: always send.
    if !secret && satisfies(&req, &before, step) {
        res.observed = res.before.clone();
        return res.finish(
            Outcome::Already,
            "the element already held this value; nothing was sent",
            started,
        );
    }

    // Plan the dispatch.
    let mut ops: Vec<(NodeId, WriteOp)> = Vec::new();
    let method: String;
    match &req {
        Requested::Text(t) => {
            if node.interfaces.has(Interface::EditableText) {
                ops.push((id.clone(), WriteOp::SetText(t.clone())));
                method = WriteOp::SetText(String::new()).method();
            } else if node.interfaces.has(Interface::Text) {
                ops.push((id.clone(), WriteOp::Focus));
                ops.push((id.clone(), WriteOp::SelectAllText));
                ops.push((id.clone(), WriteOp::TypeText(t.clone())));
                method = "keyboard fallback (focus, select all, type)".into();
            } else {
                return res.finish(
                    Outcome::Refused,
                    Refusal::NoMethod("no EditableText or Text interface".into()).to_string(),
                    started,
                );
            }
        }
        Requested::Number(v) => {
            if !node.interfaces.has(Interface::Value) {
                return res.finish(
                    Outcome::Refused,
                    Refusal::NoMethod("no Value interface".into()).to_string(),
                    started,
                );
            }
            ops.push((id.clone(), WriteOp::SetNumber(*v)));
            method = WriteOp::SetNumber(0.0).method();
        }
        Requested::Toggle(want) => {
            let explicit = if *want { "check" } else { "uncheck" };
            let action = node
                .actions
                .iter()
                .find(|a| a.eq_ignore_ascii_case(explicit))
                .map(String::as_str)
                .or_else(|| pick_action(&node, TOGGLE_ACTIONS));
            let Some(action) = action else {
                return res.finish(
                    Outcome::Refused,
                    Refusal::NoMethod(format!(
                        "no toggle action (actions: {})",
                        if node.actions.is_empty() {
                            "none".into()
                        } else {
                            node.actions.join(", ")
                        }
                    ))
                    .to_string(),
                    started,
                );
            };
            ops.push((id.clone(), WriteOp::DoAction(action.to_string())));
            method = WriteOp::DoAction(action.to_string()).method();
        }
        Requested::Option(label) => {
            let options = match options_of(backend, id).await {
                Ok(o) => o,
                Err(e) => {
                    return res.finish(
                        Outcome::Refused,
                        format!("cannot list options: {e}"),
                        started,
                    );
                }
            };
            let labels: Vec<String> = options.iter().map(|o| o.name.clone()).collect();
            let index = match choose_option(label, &labels) {
                Ok(i) => i,
                Err(refusal) => return res.finish(Outcome::Refused, refusal.to_string(), started),
            };
            if node.interfaces.has(Interface::Selection) {
                ops.push((id.clone(), WriteOp::SelectChild(index)));
                method = WriteOp::SelectChild(index).method();
            } else if let Some(a) = pick_action(&options[index], SELECT_ACTIONS) {
                ops.push((options[index].id.clone(), WriteOp::DoAction(a.to_string())));
                method = format!("option {}", WriteOp::DoAction(a.to_string()).method());
            } else {
                return res.finish(
                    Outcome::Refused,
                    Refusal::NoMethod(
                        "no Selection on the combo and no action on the option".into(),
                    )
                    .to_string(),
                    started,
                );
            }
        }
        Requested::Select(_) => {
            let via_parent = match &place.parent {
                Some(p) => match backend.read_node(p).await {
                    Ok(parent) if parent.interfaces.has(Interface::Selection) => backend
                        .children(p)
                        .await
                        .ok()
                        .and_then(|kids| kids.iter().position(|k| &k.id == id))
                        .map(|i| (p.clone(), i)),
                    _ => None,
                },
                None => None,
            };
            if let Some((p, i)) = via_parent {
                ops.push((p, WriteOp::SelectChild(i)));
                method = format!("parent {}", WriteOp::SelectChild(i).method());
            } else if let Some(a) = pick_action(&node, SELECT_ACTIONS) {
                ops.push((id.clone(), WriteOp::DoAction(a.to_string())));
                method = WriteOp::DoAction(a.to_string()).method();
            } else {
                return res.finish(
                    Outcome::Refused,
                    Refusal::NoMethod("no Selection on the parent and no select action".into())
                        .to_string(),
                    started,
                );
            }
        }
        Requested::Expand(want) => {
            let explicit = if *want { "expand" } else { "collapse" };
            let action = node
                .actions
                .iter()
                .find(|a| a.eq_ignore_ascii_case(explicit))
                .map(String::as_str)
                .or_else(|| pick_action(&node, &["activate", "click", "press", "toggle"]));
            let Some(action) = action else {
                return res.finish(
                    Outcome::Refused,
                    Refusal::NoMethod("no expand/activate action".into()).to_string(),
                    started,
                );
            };
            ops.push((id.clone(), WriteOp::DoAction(action.to_string())));
            method = WriteOp::DoAction(action.to_string()).method();
        }
    }
    res.method = Some(method);

    // Dispatch, listening to events from here on.
    let mut events = backend.subscribe();
    let dispatch_at = Instant::now();
    let mut ack_failed = false;
    for (target, op) in &ops {
        match dispatch(
            backend,
            target,
            op,
            &mut res,
            dispatch_at,
            "the write may still land",
        )
        .await
        {
            Ok(ok) => ack_failed |= !ok,
            Err((outcome, reason)) => return res.finish(outcome, reason, started),
        }
    }
    res.timings.dispatch_ms = ms(dispatch_at.elapsed());

    // Read-back: poll until the value settles or the timeout passes.
    let mut history: Vec<Observed> = Vec::new();
    let rb = readback(
        backend,
        id,
        &req,
        &before,
        step,
        secret,
        opts,
        dispatch_at,
        &mut res,
        &mut history,
    )
    .await;
    // A mixed check box may need a second press to reach the asked state.
    let rb = match (&req, &rb) {
        (Requested::Toggle(_), ReadBack::Settled(obs))
            if !satisfies(&req, obs, step) && ops.len() == 1 && *obs != before =>
        {
            let (t, op) = &ops[0];
            match backend.write(t, op).await {
                Ok(ok) => res
                    .acks
                    .push(format!("{} (second press) → {ok}", op.method())),
                Err(e) => res
                    .acks
                    .push(format!("{} (second press) → error: {e}", op.method())),
            }
            readback(
                backend,
                id,
                &req,
                obs,
                step,
                secret,
                opts,
                dispatch_at,
                &mut res,
                &mut history,
            )
            .await
        }
        _ => rb,
    };
    res.timings.readback_ms = ms(dispatch_at.elapsed()) - res.timings.dispatch_ms;
    collect_events(&mut events, id, &mut res.events);

    match rb {
        ReadBack::Gone(why) => res.finish(
            Outcome::Unconfirmed,
            format!("no read-back could establish where the write landed: {why}"),
            started,
        ),
        ReadBack::Settled(obs) | ReadBack::TimedOut(obs) if secret => {
            res.observed = Some(obs.display(true));
            let want = match &req {
                Requested::Text(t) => t.chars().count(),
                _ => 0,
            };
            let got = match &obs {
                Observed::Text(t) => t.chars().count(),
                _ => usize::MAX,
            };
            if got == want {
                res.finish(
                    Outcome::Secure,
                    "secret field: the length read back matches; the text itself cannot be read",
                    started,
                )
            } else {
                res.mismatch = Some(if got == 0 || obs == before {
                    MismatchKind::Unchanged
                } else {
                    MismatchKind::Partial
                });
                res.finish(
                    Outcome::Mismatch,
                    format!("secret field: {got} characters read back, {want} were sent"),
                    started,
                )
            }
        }
        ReadBack::Settled(obs) if satisfies(&req, &obs, step) => {
            res.observed = Some(obs.display(secret));
            res.finish(Outcome::Verified, "read-back equals the request", started)
        }
        ReadBack::Settled(obs) | ReadBack::TimedOut(obs) => {
            res.observed = Some(obs.display(secret));
            let kind = classify_mismatch(&req, &before, &history, &obs, min_max);
            if kind == MismatchKind::Unchanged && !ack_failed {
                // Nothing moved and the toolkit did not say no: it may still land later.
                res.finish(
                    Outcome::Unconfirmed,
                    format!(
                        "the value did not change within {} ms and the toolkit reported success; it may still land",
                        opts.timeout.as_millis()
                    ),
                    started,
                )
            } else {
                res.mismatch = Some(kind);
                let how = match kind {
                    MismatchKind::Transformed => "the app changed what it was given",
                    MismatchKind::Partial => "only part of the value landed",
                    MismatchKind::Clamped => "the number was limited to the element's range",
                    MismatchKind::Unchanged => "nothing changed and the toolkit reported failure",
                    MismatchKind::Reverted => "the value changed, then went back",
                };
                res.finish(
                    Outcome::Mismatch,
                    format!("{}: {how}", kind.as_str()),
                    started,
                )
            }
        }
    }
}

/// Sends one primitive write and records the toolkit's answer in `res` (an answer, never
/// evidence). A failed call decides the verdict: no answer means it may still take effect
/// (`unconfirmed`, saying `may_still`); an error after an earlier call went out is
/// `unconfirmed`; an error on the first call means nothing was sent (`refused`).
async fn dispatch(
    backend: &dyn Backend,
    target: &NodeId,
    op: &WriteOp,
    res: &mut WriteResult,
    dispatch_at: Instant,
    may_still: &str,
) -> Result<bool, (Outcome, String)> {
    match backend.write(target, op).await {
        Ok(ok) => {
            res.acks.push(format!("{} → {ok}", op.method()));
            res.dispatched = true;
            Ok(ok)
        }
        Err(BackendError::Timeout { what, ms: waited }) => {
            res.dispatched = true;
            res.acks
                .push(format!("{} → no answer in {waited} ms", op.method()));
            res.timings.dispatch_ms = ms(dispatch_at.elapsed());
            Err((
                Outcome::Unconfirmed,
                format!("{what} did not answer; {may_still}"),
            ))
        }
        Err(e) if res.dispatched => {
            res.acks.push(format!("{} → error: {e}", op.method()));
            Err((Outcome::Unconfirmed, format!("a later call failed: {e}")))
        }
        Err(e) => Err((
            Outcome::Refused,
            format!("the toolkit refused the call: {e}"),
        )),
    }
}

enum ReadBack {
    /// The value held still for the settle window.
    Settled(Observed),
    /// The timeout passed while the value still moved, or stayed at `before`.
    TimedOut(Observed),
    /// The element could not be read any more.
    Gone(String),
}

#[allow(clippy::too_many_arguments)]
async fn readback(
    backend: &dyn Backend,
    id: &NodeId,
    req: &Requested,
    before: &Observed,
    step: f64,
    secret: bool,
    opts: &WriteOptions,
    dispatch_at: Instant,
    res: &mut WriteResult,
    history: &mut Vec<Observed>,
) -> ReadBack {
    let deadline = Instant::now() + opts.timeout;
    let mut last: Option<(Observed, Instant)> = None;
    let mut failures = 0;
    loop {
        let now = Instant::now();
        let read = backend.read_node(id).await;
        let at_ms = ms(dispatch_at.elapsed());
        match read {
            Ok(node) => {
                let obs = observe(&node, req);
                let changed = last.as_ref().is_none_or(|(o, _)| *o != obs);
                if changed || res.samples.len() < 2 {
                    res.samples.push(Sample {
                        at_ms,
                        value: obs.display(secret),
                    });
                }
                if changed {
                    history.push(obs.clone());
                    last = Some((obs, now));
                }
            }
            Err(BackendError::Vanished(e)) => {
                res.samples.push(Sample {
                    at_ms,
                    value: format!("(vanished: {e})"),
                });
                return ReadBack::Gone(format!("the element vanished after the write ({e})"));
            }
            Err(e) => {
                failures += 1;
                res.samples.push(Sample {
                    at_ms,
                    value: format!("(read failed: {e})"),
                });
                if failures >= 3 {
                    return ReadBack::Gone(format!("read-back failed: {e}"));
                }
            }
        }
        if let Some((obs, since)) = &last {
            let held = Instant::now().duration_since(*since);
            // A value still equal to `before` may be a late write: keep waiting for it.
            let moved = obs != before || secret && matches!(req, Requested::Text(_));
            if held >= opts.settle && (moved || satisfies(req, obs, step)) {
                res.timings.settle_wait_ms = ms(opts.settle);
                return ReadBack::Settled(obs.clone());
            }
        }
        if Instant::now() >= deadline {
            return match last {
                Some((obs, _)) => ReadBack::TimedOut(obs),
                None => ReadBack::Gone("no read-back succeeded before the timeout".into()),
            };
        }
        tokio::time::sleep(
            opts.poll
                .min(deadline.saturating_duration_since(Instant::now())),
        )
        .await;
    }
}

fn collect_events(
    rx: &mut tokio::sync::broadcast::Receiver<Event>,
    id: &NodeId,
    out: &mut Vec<String>,
) {
    loop {
        match rx.try_recv() {
            Ok(ev) if &ev.source == id => out.push(ev.summary()),
            Ok(_) => {}
            Err(TryRecvError::Lagged(n)) => out.push(format!("({n} events dropped)")),
            Err(_) => break,
        }
        if out.len() >= 50 {
            break;
        }
    }
}

/// Runs one action of an element (press, activate, …) and reports what changed. There is no
/// requested value to compare with, so the evidence is the app's reaction: any accessibility
/// event from the app or a change of the element within the settle window after the call.
pub async fn invoke(
    backend: &dyn Backend,
    id: &NodeId,
    action: Option<&str>,
    opts: &WriteOptions,
) -> WriteResult {
    let started = Instant::now();
    let node = match backend.read_node(id).await {
        Ok(n) => n,
        Err(e) => {
            let r = WriteResult::new(&Node::new(id.clone(), Role::Unknown, ""), "(action)".into());
            return r.finish(
                Outcome::Refused,
                format!("element not readable: {e}"),
                started,
            );
        }
    };
    let chosen = match action {
        Some(a) => node
            .actions
            .iter()
            .find(|x| x.eq_ignore_ascii_case(a))
            .cloned(),
        None => pick_action(
            &node,
            &["click", "press", "activate", "toggle", "select", "expand"],
        )
        .map(str::to_string)
        .or_else(|| node.actions.first().cloned()),
    };
    let mut res = WriteResult::new(&node, action.unwrap_or("(default action)").to_string());
    res.before = Some(crate::model::display::node_line(&node));
    if !node.is_enabled() {
        return res.finish(Outcome::Refused, Refusal::Disabled.to_string(), started);
    }
    let Some(chosen) = chosen else {
        let have = if node.actions.is_empty() {
            "none".into()
        } else {
            node.actions.join(", ")
        };
        return res.finish(
            Outcome::Refused,
            format!("no such action (actions: {have})"),
            started,
        );
    };
    res.requested = chosen.clone();
    let op = WriteOp::DoAction(chosen.clone());
    res.method = Some(op.method());
    let mut events = backend.subscribe();
    let dispatch_at = Instant::now();
    if let Err((outcome, reason)) = dispatch(
        backend,
        id,
        &op,
        &mut res,
        dispatch_at,
        "the action may still run",
    )
    .await
    {
        return res.finish(outcome, reason, started);
    }
    res.timings.dispatch_ms = ms(dispatch_at.elapsed());
    // Watch for the app's reaction until it has been quiet for the settle window.
    let deadline = dispatch_at + opts.timeout;
    let mut app_events = 0usize;
    let mut last_event = dispatch_at;
    loop {
        let quiet = Instant::now().duration_since(last_event);
        if (app_events > 0 && quiet >= opts.settle) || Instant::now() >= deadline {
            break;
        }
        let wait = opts.poll.max(Duration::from_millis(5));
        match tokio::time::timeout(wait, events.recv()).await {
            Ok(Ok(ev)) => {
                if ev.app == node_app(&node, &ev) {
                    app_events += 1;
                    last_event = Instant::now();
                    if res.events.len() < 50 {
                        res.events
                            .push(format!("{} on {}", ev.summary(), ev.source));
                    }
                }
            }
            Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(n))) => {
                app_events += n as usize;
                last_event = Instant::now();
            }
            Ok(Err(_)) => break,
            Err(_) => {}
        }
    }
    let after = backend.read_node(id).await;
    res.timings.readback_ms = ms(dispatch_at.elapsed()) - res.timings.dispatch_ms;
    match after {
        Ok(n) => {
            let line = crate::model::display::node_line(&n);
            res.samples.push(Sample {
                at_ms: ms(dispatch_at.elapsed()),
                value: line.clone(),
            });
            let changed = Some(&line) != res.before.as_ref();
            res.observed = Some(line);
            if changed || app_events > 0 {
                res.finish(
                    Outcome::Verified,
                    format!(
                        "the app reacted ({app_events} events{})",
                        if changed { ", the element changed" } else { "" }
                    ),
                    started,
                )
            } else {
                res.finish(
                    Outcome::Unconfirmed,
                    format!(
                        "no reaction from the app within {} ms",
                        opts.timeout.as_millis()
                    ),
                    started,
                )
            }
        }
        // The element going away is itself a reaction (a dialog's button closing it).
        Err(BackendError::Vanished(_)) => res.finish(
            Outcome::Verified,
            format!("the element went away after the action ({app_events} events)"),
            started,
        ),
        Err(e) => res.finish(
            Outcome::Unconfirmed,
            format!("read after the action failed: {e}"),
            started,
        ),
    }
}

/// The app an event must come from to count as a reaction to an action on `node`: the
/// element's bus name (AT-SPI ids start with it) or, for the fixture, any event's app.
fn node_app(node: &Node, ev: &Event) -> String {
    match node.id.0.find('/') {
        Some(i) if node.id.0.starts_with(':') => node.id.0[..i].to_string(),
        _ => ev.app.clone(),
    }
}
