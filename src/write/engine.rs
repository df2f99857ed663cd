//! The write driver: `set_value` is read → preconditions → plan → dispatch → read-back →
//! verdict → watch, each a small step. The plan comes from the platform's one planner
//! (`Backend::planner`); this module carries it out. A toolkit's "ok" is recorded but
//! never taken as evidence; only the read-back decides.

use std::time::Duration;

use tokio::time::Instant;

use serde::Serialize;

use super::readback::{ReadBack, Watch};
use super::rules::*;
use crate::backend::strategy::{Context, Dest, Path, Plan};
use crate::backend::{Backend, BackendError, WriteOp};
use crate::model::{AppText, Interface, Node, NodeId, Role, Snapshot, Value};

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
    /// After the verdict, keep watching the element this long: a change in it (a validator
    /// that puts the old value back, a debounced handler) turns the verdict into a mismatch.
    /// Zero turns the watch off.
    pub watch: Duration,
    /// Send out-of-range numbers anyway (the result then says `clamped`).
    pub force: bool,
}

/// The default watch window after a verdict. Deferred handlers seen in practice: GTK and Qt
/// idle/timeout callbacks run within tens of ms; web form validators and "revert invalid
/// input" handlers are debounced by 250–500 ms. 600 ms covers those and costs a `set` less
/// than a second in all.
pub const DEFAULT_WATCH: Duration = Duration::from_millis(600);

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            timeout: Duration::from_millis(1500),
            settle: Duration::from_millis(60),
            poll: Duration::from_millis(10),
            watch: DEFAULT_WATCH,
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
    /// Time spent watching after the verdict.
    pub watch_ms: f64,
    pub total_ms: f64,
}

/// A change seen after the verdict, inside the watch window.
#[derive(Debug, Clone, Serialize)]
pub struct LateChange {
    /// Milliseconds after dispatch.
    pub at_ms: f64,
    /// What the element held then (secrets: their length).
    pub value: String,
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
    pub name: AppText,
    /// The request as shown to people (`"text"`, `5`, `true`; secrets by length).
    #[serde(skip)]
    pub requested: String,
    /// The request typed (JSON `requested`): text, number, boolean, option label.
    #[serde(rename = "requested")]
    pub requested_value: serde_json::Value,
    #[serde(skip)]
    pub before: Option<String>,
    #[serde(rename = "before")]
    pub before_value: serde_json::Value,
    #[serde(skip)]
    pub observed: Option<String>,
    #[serde(rename = "observed")]
    pub observed_value: serde_json::Value,
    /// The method used (interface/action/keyboard), `None` when nothing was sent. It may name
    /// one of the app's actions.
    pub method: Option<AppText>,
    /// The path the method took: semantic, keyboard or pointer.
    pub path: Option<Path>,
    /// What the toolkit answered to each call (never evidence), with the method and the
    /// toolkit's own error text.
    pub acks: Vec<AppText>,
    pub dispatched: bool,
    pub samples: Vec<Sample>,
    /// A change after the verdict, within the watch window (the verdict then says so).
    pub changed_after: Option<LateChange>,
    /// Accessibility events from the element after the write.
    pub events: Vec<String>,
    pub timings: Timings,
    /// Where the write landed ([`super::landed`]): set by `set` / `invoke` for a write that
    /// is not verified, or when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<serde_json::Value>,
}

impl WriteResult {
    pub(super) fn new(node: &Node, requested: String) -> WriteResult {
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
            requested_value: requested.as_str().into(),
            requested,
            before: None,
            before_value: serde_json::Value::Null,
            observed: None,
            observed_value: serde_json::Value::Null,
            method: None,
            path: None,
            acks: Vec::new(),
            dispatched: false,
            samples: Vec::new(),
            changed_after: None,
            changes: None,
            events: Vec::new(),
            timings: Timings::default(),
        }
    }

    pub(super) fn finish(
        mut self,
        outcome: Outcome,
        reason: impl Into<String>,
        started: Instant,
    ) -> Self {
        self.outcome = outcome;
        self.reason = reason.into();
        self.advice = outcome.advice().to_string();
        self.timings.total_ms = ms(started.elapsed());
        self
    }

    fn set_before(&mut self, obs: &Observed, secret: bool) {
        self.before = Some(obs.display(secret));
        self.before_value = obs.json(secret);
    }

    fn set_observed(&mut self, obs: &Observed, secret: bool) {
        self.observed = Some(obs.display(secret));
        self.observed_value = obs.json(secret);
    }

    /// A refusal made before anything was read (e.g. the target did not resolve).
    /// `requested` is shown as given (callers pass a placeholder for secrets).
    pub fn refused_unresolved(
        target: &str,
        reason: impl Into<String>,
        requested: &str,
    ) -> WriteResult {
        let mut r = WriteResult::new(
            &Node::new(NodeId(String::new()), Role::Unknown, ""),
            crate::model::quoted(requested, crate::model::display::ECHO_CHARS),
        );
        r.requested_value = crate::model::echo_json(requested);
        r.target = Some(target.to_string());
        r.outcome = Outcome::Refused;
        r.reason = reason.into();
        r.advice = Outcome::Refused.advice().to_string();
        r
    }
}

pub(super) fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 100.0).round() / 100.0
}

/// Where an element sits, from the snapshot it was resolved in.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    pub parent: Option<NodeId>,
    /// Whether the element was a password (or otherwise sensitive) field when resolved.
    pub secret: bool,
    /// Under a web document ([`crate::backend::is_web_document`]): a browser's page content.
    pub in_web_content: bool,
    /// The title of the element's window.
    pub window: AppText,
    /// The element's descendants (at most [`SUBTREE_MAX`]), whose changes an action can be
    /// credited with.
    pub subtree: Vec<NodeId>,
}

/// Most descendants a placement lists.
pub const SUBTREE_MAX: usize = 2000;

impl Placement {
    /// The placement of `row` in `snap`.
    pub fn of(snap: &Snapshot, row: usize) -> Placement {
        let Some(node) = snap.nodes.get(row) else {
            return Placement::default();
        };
        let mut in_web_content = false;
        let mut window = AppText::default();
        let mut at = node.parent;
        while let Some(p) = at {
            let n = &snap.nodes[p];
            in_web_content |= crate::backend::is_web_document(n);
            if matches!(n.role, Role::Frame | Role::Window | Role::Dialog) {
                window = n.name.clone();
            }
            at = n.parent;
        }
        if window.is_empty() && matches!(node.role, Role::Frame | Role::Window | Role::Dialog) {
            window = node.name.clone();
        }
        let mut subtree = Vec::new();
        let mut stack: Vec<usize> = node.children.clone();
        while let Some(r) = stack.pop() {
            if subtree.len() >= SUBTREE_MAX {
                break;
            }
            subtree.push(snap.nodes[r].id.clone());
            stack.extend(snap.nodes[r].children.iter().copied());
        }
        Placement {
            parent: node.parent.map(|p| snap.nodes[p].id.clone()),
            secret: node.is_secret(),
            in_web_content,
            window,
            subtree,
        }
    }
}

/// Option labels of a combo box: its items, or the items of its single menu/list child.
/// A combo's options, and the list that holds them when they sit in one (its only child).
async fn options_of(
    backend: &dyn Backend,
    combo: &NodeId,
) -> Result<(Vec<Node>, Option<Node>), BackendError> {
    let kids = backend.children(combo).await?;
    if let [only] = kids.as_slice()
        && matches!(only.role, Role::Menu | Role::List)
    {
        return Ok((backend.children(&only.id).await?, Some(only.clone())));
    }
    Ok((kids, None))
}

/// What the planner needs beyond the element: options of a combo (chosen and current), the
/// element's index in a Selection parent. `Err` is a refusal (nothing was sent).
struct Gathered {
    options: Vec<Node>,
    /// The list holding the options, when they sit in one.
    option_list: Option<Node>,
    chosen: Option<usize>,
    current: Option<usize>,
    parent_selection: Option<usize>,
}

async fn gather(
    backend: &dyn Backend,
    node: &Node,
    place: &Placement,
    req: &Requested,
) -> Result<Gathered, String> {
    let mut g = Gathered {
        options: Vec::new(),
        option_list: None,
        chosen: None,
        current: None,
        parent_selection: None,
    };
    match req {
        Requested::Option(label) => {
            (g.options, g.option_list) = options_of(backend, &node.id)
                .await
                .map_err(|e| format!("cannot list options: {e}"))?;
            // A combo's other children (its entry, a button, a panel) are not options.
            g.options
                .retain(|o| crate::backend::strategy::is_option_role(o.role));
            if g.options.is_empty() {
                let why = if backend.toolkit(&node.id).await == Some(crate::model::Toolkit::Gtk4) {
                    " (GTK 4 combo boxes expose neither their options nor their selection: \
                     measured on GTK 4.8 and 4.18; so no write to them could be verified)"
                } else {
                    ""
                };
                return Err(format!(
                    "the combo box exposes no options to choose from{why}"
                ));
            }
            let labels: Vec<AppText> = g.options.iter().map(|o| o.name.clone()).collect();
            g.chosen = Some(choose_option(label, &labels).map_err(|r| r.to_string())?);
            let selected = match &node.value {
                Some(Value::Choice { selected: Some(s) }) => Some(s.clone()),
                _ => None,
            };
            g.current = selected.and_then(|s| labels.iter().position(|l| *l == s));
        }
        Requested::Select(_) => {
            if let Some(p) = &place.parent
                && let Ok(parent) = backend.read_node(p).await
                && parent.interfaces.has(Interface::Selection)
            {
                g.parent_selection = match backend.index_in_parent(&node.id).await {
                    Ok(Some(i)) => Some(i),
                    _ => backend
                        .children(p)
                        .await
                        .ok()
                        .and_then(|kids| kids.iter().position(|k| k.id == node.id)),
                };
            }
        }
        _ => {}
    }
    Ok(g)
}

/// How sending one plan's ops went.
enum Delivery {
    /// Every op went out; `said_no`: the toolkit answered false to one.
    Out { said_no: bool },
    /// Nothing reached the app: the first op was refused or could not be sent.
    NotSent(String),
    /// An op may have landed, but how it ended is unknown (no answer, the app left).
    Unknown(String),
}

/// Sends a plan's ops in order, recording the toolkit's answers. Classifies delivery
/// honestly: an error on the first op that never reached the app (or that the toolkit
/// refused) is "not sent"; no answer, or the app leaving after the request went out, is
/// "unknown" (the write may have landed).
async fn send(
    backend: &dyn Backend,
    id: &NodeId,
    place: &Placement,
    options: &[Node],
    option_list: Option<&NodeId>,
    plan: &Plan,
    res: &mut WriteResult,
) -> Delivery {
    let mut said_no = false;
    let mut any_out = false;
    for (dest, op) in &plan.ops {
        let target = match dest {
            Dest::Element => id.clone(),
            Dest::Parent => match &place.parent {
                Some(p) => p.clone(),
                None => return Delivery::NotSent("the element has no parent".into()),
            },
            Dest::Option(i) => match options.get(*i) {
                Some(o) => o.id.clone(),
                None => return Delivery::NotSent("the option is gone".into()),
            },
            Dest::OptionList => match option_list {
                Some(l) => (*l).clone(),
                None => return Delivery::NotSent("the option list is gone".into()),
            },
        };
        let method = backend.op_method(op);
        let shown = match dest {
            Dest::Option(i) => method.map(|m| format!("option {i} {m}")),
            Dest::OptionList => method.map(|m| format!("option list {m}")),
            Dest::Parent => method.map(|m| format!("parent {m}")),
            Dest::Element => method,
        };
        // Raising and focusing a window or the element, or selecting its text, changes no
        // value: it does not count as having sent the write.
        let preparatory = matches!(
            op,
            WriteOp::ActivateWindow(_)
                | WriteOp::Focus
                | WriteOp::AwaitFocus
                | WriteOp::AwaitMenuKeyboard
                | WriteOp::SelectAllText
        );
        match backend.write(&target, op).await {
            Ok(ok) => {
                res.acks.push(shown.map(|m| format!("{m} → {ok}")));
                said_no |= !ok && !preparatory;
                if !preparatory {
                    any_out = true;
                    res.dispatched = true;
                }
            }
            Err(BackendError::Timeout { what, ms: waited }) => {
                res.acks
                    .push(shown.map(|m| format!("{m} → no answer in {waited} ms")));
                if preparatory && !any_out {
                    return Delivery::NotSent(format!("{what} did not answer"));
                }
                res.dispatched = true;
                return Delivery::Unknown(format!(
                    "{what} did not answer; the write may still land"
                ));
            }
            Err(BackendError::AppGone {
                app,
                delivered: true,
            }) if !preparatory || any_out => {
                res.acks
                    .push(shown.map(|m| format!("{m} → the app left before answering")));
                res.dispatched = true;
                return Delivery::Unknown(format!(
                    "the application ({app}) exited or dropped its accessibility connection after \
                     the write was sent; it may have landed"
                ));
            }
            Err(BackendError::InputCut(why)) => {
                res.acks
                    .push(shown.map(|m| format!("{m} → cut short: {why}")));
                res.dispatched = true;
                return Delivery::Unknown(format!(
                    "synthesized input was cut short ({why}); part of it may have landed"
                ));
            }
            Err(e) => {
                res.acks.push(shown.map(|m| format!("{m} → error: {e}")));
                if any_out {
                    return Delivery::Unknown(format!("a later call failed: {e}"));
                }
                return Delivery::NotSent(match e {
                    // treeglass could not send it: no toolkit was asked.
                    BackendError::NoInput(why) => format!("nothing was sent: {why}"),
                    // The app, or the element, did not answer what was asked before sending.
                    e @ (BackendError::NotResponding { .. }
                    | BackendError::Silent { .. }
                    | BackendError::AppGone { .. }
                    | BackendError::Vanished(_)) => format!("nothing was sent: {e}"),
                    e => format!("the toolkit refused the call: {e}"),
                });
            }
        }
    }
    Delivery::Out { said_no }
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
    // 1, 2. Read the element fresh; preconditions (nothing is sent when one fails).
    let (node, mut res, asked) = match prepare(backend, id, place, raw, opts, started).await {
        Ok(ready) => ready,
        Err(done) => return done,
    };
    // 3. Plan.
    let (gathered, plans) = match plan(backend, id, place, node, &asked.req, &mut res).await {
        Ok(planned) => planned,
        Err(reason) => return res.finish(Outcome::Refused, reason, started),
    };
    // 4. Dispatch and read back, plan by plan.
    let mut events = backend.subscribe();
    let dispatch_at = Instant::now();
    let mut watch = Watch {
        backend,
        id,
        req: &asked.req,
        step: asked.step,
        secret: asked.secret,
        dispatch_at,
        typing: false,
    };
    let carried =
        match carry_out(&mut watch, &asked, place, &gathered, &plans, opts, &mut res).await {
            Ok(c) => c,
            Err(end) => return res.finish(end.outcome, end.reason, started),
        };
    res.timings.readback_ms = ms(dispatch_at.elapsed()) - res.timings.dispatch_ms;
    // 5. The verdict.
    let mut res = verdict(res, &asked, &carried, opts, started);
    collect_events(&mut events, id, &mut res.events);
    // 6. Watch after the verdict.
    if !opts.watch.is_zero() && matches!(res.outcome, Outcome::Verified | Outcome::Secure) {
        let settled = carried.history.last().unwrap_or(&asked.before);
        res = watch_after(&watch, &asked, settled, opts, &mut events, res, started).await;
        collect_events(&mut events, id, &mut res.events);
    }
    res.timings.total_ms = ms(started.elapsed());
    res
}

/// How a write ended before its verdict: refused (nothing sent) or unconfirmed.
pub(super) struct Ended {
    pub outcome: Outcome,
    pub reason: String,
}

/// The request as checked against the element before anything is sent.
struct Asked {
    req: Requested,
    /// What the element held.
    before: Observed,
    /// A number's step and range.
    step: f64,
    min_max: Option<(f64, f64)>,
    /// The value is a secret (shown by its length only, never read back as text).
    secret: bool,
}

/// Steps 1 and 2: the element read fresh, the request parsed and checked against it. The
/// element, the result so far and the request, or the finished result: refused (unreadable, a
/// precondition failed) or `already` (it holds the value; nothing is sent).
async fn prepare(
    backend: &dyn Backend,
    id: &NodeId,
    place: &Placement,
    raw: &str,
    opts: &WriteOptions,
    started: Instant,
) -> Result<(Node, WriteResult, Asked), WriteResult> {
    let shown_raw = |secret: bool| {
        if secret {
            format!(
                "(secret, {})",
                crate::model::count(raw.chars().count(), "char")
            )
        } else {
            crate::model::quoted(raw, crate::model::display::ECHO_CHARS)
        }
    };
    let node = match backend.read_node(id).await {
        Ok(n) => n,
        Err(e) => {
            let mut r = WriteResult::new(
                &Node::new(id.clone(), Role::Unknown, ""),
                shown_raw(place.secret),
            );
            r.requested_value = if place.secret {
                crate::model::secret_json(raw.chars().count())
            } else {
                crate::model::echo_json(raw)
            };
            return Err(r.finish(
                Outcome::Refused,
                format!("element not readable: {e}"),
                started,
            ));
        }
    };
    let secret = place.secret || node.is_secret();
    let mut res = WriteResult::new(&node, shown_raw(secret));
    res.requested_value = if secret {
        crate::model::secret_json(raw.chars().count())
    } else {
        crate::model::echo_json(raw)
    };
    res.timings.read_before_ms = ms(started.elapsed());
    let req = match plan_request(&node, raw, opts.force) {
        Ok(r) => r,
        Err(refusal) => return Err(res.finish(Outcome::Refused, refusal.to_string(), started)),
    };
    res.requested = req.display(secret);
    res.requested_value = req.json(secret);
    let before = observe(&node, &req);
    res.set_before(&before, secret);
    let (step, min_max) = match node.value {
        Some(Value::Number { step, min, max, .. }) => (
            step.unwrap_or(0.0),
            Some((min.unwrap_or(f64::MIN), max.unwrap_or(f64::MAX))),
        ),
        _ => (0.0, None),
    };
    // A secret's text cannot be read back, so "already" cannot be known: always send.
    if !secret && satisfies(&req, &before, step) {
        res.set_observed(&before, secret);
        return Err(res.finish(
            Outcome::Already,
            "the element already held this value; nothing was sent",
            started,
        ));
    }
    let asked = Asked {
        req,
        before,
        step,
        min_max,
        secret,
    };
    Ok((node, res, asked))
}

/// Step 3: the plans, made on the element as the toolkit shows it once it is in view (a
/// browser may give an element it has not laid out no actions and no place on screen), with
/// what the planner needs gathered. `Err` is a refusal (nothing was sent).
async fn plan(
    backend: &dyn Backend,
    id: &NodeId,
    place: &Placement,
    node: Node,
    req: &Requested,
    res: &mut WriteResult,
) -> Result<(Gathered, Vec<Plan>), String> {
    let node = match backend.bring_into_view(&node).await {
        Some((again, sent)) => {
            res.acks.push(sent.into());
            again
        }
        None => node,
    };
    let gathered = gather(backend, &node, place, req).await?;
    let toolkit = backend.toolkit(id).await;
    let input = backend.input();
    let ctx = Context {
        planner: backend.planner(),
        input: &input,
        node: &node,
        toolkit,
        in_web_content: place.in_web_content,
        window: &place.window,
        options: &gathered.options,
        chosen: gathered.chosen,
        current: gathered.current,
        option_list_selection: gathered
            .option_list
            .as_ref()
            .is_some_and(|l| l.interfaces.has(Interface::Selection)),
        parent_selection: gathered.parent_selection,
    };
    let plans = ctx
        .planner
        .plan(&ctx, req)
        .map_err(|why| Refusal::NoMethod(why).to_string())?;
    Ok((gathered, plans))
}

/// What carrying out the plans came to.
struct Carried {
    rb: ReadBack,
    /// The values read back, in order.
    history: Vec<Observed>,
    /// The toolkit answered false to a call.
    said_no: bool,
}

/// Step 4: each plan's ops sent (a toggle's pressed until it shows the state asked, up to the
/// plan's sends) and read back until the value settles. The next plan runs only when nothing
/// of this one was sent, or when the read-back proves nothing changed and the toolkit is known
/// to ignore the call. `Err`: refused (nothing sent) or unconfirmed (how it ended is unknown).
async fn carry_out(
    watch: &mut Watch<'_>,
    asked: &Asked,
    place: &Placement,
    gathered: &Gathered,
    plans: &[Plan],
    opts: &WriteOptions,
    res: &mut WriteResult,
) -> Result<Carried, Ended> {
    let (backend, id, req, step) = (watch.backend, watch.id, &asked.req, asked.step);
    let mut history: Vec<Observed> = Vec::new();
    let mut said_no = false;
    let mut rb = None;
    'plans: for (i, plan) in plans.iter().enumerate() {
        let has_next = i + 1 < plans.len();
        res.method = Some(plan.method.clone());
        res.path = Some(plan.path);
        watch.typing = plan.path == crate::backend::strategy::Path::Keyboard;
        let mut from = asked.before.clone();
        for press in 1..=plan.max_sends.max(1) {
            let list = gathered.option_list.as_ref().map(|l| &l.id);
            match send(backend, id, place, &gathered.options, list, plan, res).await {
                Delivery::Out { said_no: no } => said_no |= no,
                Delivery::NotSent(why) if !res.dispatched && has_next => {
                    res.acks
                        .push(format!("({why}; trying the next strategy)").into());
                    continue 'plans;
                }
                Delivery::NotSent(why) if !res.dispatched => {
                    return Err(Ended {
                        outcome: Outcome::Refused,
                        reason: why,
                    });
                }
                Delivery::NotSent(why) | Delivery::Unknown(why) => {
                    res.timings.dispatch_ms = ms(watch.dispatch_at.elapsed());
                    return Err(Ended {
                        outcome: Outcome::Unconfirmed,
                        reason: why,
                    });
                }
            }
            if press == 1 {
                res.timings.dispatch_ms = ms(watch.dispatch_at.elapsed());
            }
            let got = watch.settle(&from, opts, res, &mut history).await;
            match &got {
                // A toggle that moved but not to the asked state (off → mixed): press again.
                ReadBack::Settled(obs)
                    if press < plan.max_sends
                        && !satisfies(req, obs, step)
                        && *obs != from
                        && matches!(req, Requested::Toggle(_)) =>
                {
                    from = obs.clone();
                    continue;
                }
                // The toolkit is known to ignore this call and the read-back proves nothing
                // changed: the next strategy may run.
                ReadBack::Settled(obs) | ReadBack::TimedOut(obs)
                    if *obs == asked.before && plan.known_ignored && has_next && !said_no =>
                {
                    res.acks.push(plan.method.map(|m| {
                        format!(
                            "(nothing changed: {m} is known to be ignored here; trying the next \
                             strategy)"
                        )
                    }));
                    continue 'plans;
                }
                _ => {}
            }
            rb = Some(got);
            break 'plans;
        }
    }
    Ok(Carried {
        rb: rb.unwrap_or_else(|| ReadBack::Gone("no strategy could be carried out".into())),
        history,
        said_no,
    })
}

/// Step 6: the element watched for `opts.watch` after a verdict of verified or secure, from
/// the value it `settled` on: a change then turns the verdict into a mismatch (reverted, or
/// transformed).
async fn watch_after(
    watch: &Watch<'_>,
    asked: &Asked,
    settled: &Observed,
    opts: &WriteOptions,
    events: &mut tokio::sync::broadcast::Receiver<crate::backend::Event>,
    mut res: WriteResult,
    started: Instant,
) -> WriteResult {
    let t = Instant::now();
    let late = watch
        .after_verdict(settled, opts.watch, Duration::from_millis(50), events)
        .await;
    res.timings.watch_ms = ms(t.elapsed());
    let Some((obs, at_ms)) = late else {
        return res;
    };
    let shown = obs.display(asked.secret);
    res.changed_after = Some(LateChange {
        at_ms,
        value: shown.clone(),
    });
    res.samples.push(Sample {
        at_ms,
        value: format!("{shown} (changed after the verdict)"),
    });
    res.set_observed(&obs, asked.secret);
    res.mismatch = Some(if obs == asked.before {
        MismatchKind::Reverted
    } else {
        MismatchKind::Transformed
    });
    let how = if obs == asked.before {
        "went back to what it held before"
    } else {
        "changed again"
    };
    let kind = res.mismatch.map_or("", MismatchKind::as_str);
    res.finish(
        Outcome::Mismatch,
        format!(
            "{kind}: the value {how} {at_ms:.0} ms after the write, after it had read \
             back as asked"
        ),
        started,
    )
}

/// Step 5: the outcome, from what the read-back settled on.
fn verdict(
    mut res: WriteResult,
    asked: &Asked,
    carried: &Carried,
    opts: &WriteOptions,
    started: Instant,
) -> WriteResult {
    let (req, before, step, min_max, secret) = (
        &asked.req,
        &asked.before,
        asked.step,
        asked.min_max,
        asked.secret,
    );
    let (history, said_no) = (&carried.history, carried.said_no);
    match &carried.rb {
        ReadBack::Gone(why) => res.finish(
            Outcome::Unconfirmed,
            format!("no read-back could establish where the write landed: {why}"),
            started,
        ),
        ReadBack::Settled(obs) | ReadBack::TimedOut(obs) if secret => {
            res.set_observed(obs, true);
            let want = match req {
                Requested::Text(t) => t.chars().count(),
                _ => 0,
            };
            let got = match obs {
                Observed::Text(t) => t.as_str().chars().count(),
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
        ReadBack::Settled(obs) if satisfies(req, obs, step) => {
            res.set_observed(obs, secret);
            res.finish(Outcome::Verified, "read-back equals the request", started)
        }
        ReadBack::Settled(obs) | ReadBack::TimedOut(obs) => {
            res.set_observed(obs, secret);
            let kind = classify_mismatch(req, before, history, obs, min_max);
            if kind == MismatchKind::Unchanged && !said_no {
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

/// Events from the element since the write, for the result.
pub(super) fn collect_events(
    rx: &mut tokio::sync::broadcast::Receiver<crate::backend::Event>,
    id: &NodeId,
    out: &mut Vec<String>,
) {
    use tokio::sync::broadcast::error::TryRecvError;
    loop {
        match rx.try_recv() {
            Ok(ev) if &ev.source == id => out.push(ev.summary()),
            Ok(_) => {}
            Err(TryRecvError::Lagged(n)) => out.push(format!(
                "({} dropped)",
                crate::model::display::counted(n as usize, "event", "events")
            )),
            Err(_) => break,
        }
        if out.len() >= 50 {
            break;
        }
    }
}

#[cfg(test)]
mod tests;
