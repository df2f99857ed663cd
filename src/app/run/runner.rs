//! Running a workflow: inputs checked before anything runs, preconditions, then each step with
//! fresh resolution and the verified write engine, its `expect`, the budgets (steps, overall
//! deadline, retries only after failures where nothing was sent), the terminal condition and the
//! outputs — reported step by step with secrets masked.
//!
//! Decisions where the format is silent, for a desktop run:
//! - `type` writes `text`, `clear` writes the empty text, `check`/`uncheck` write true/false,
//!   `select` writes `value` (an option label) or, without one, selects the target itself;
//!   `click` runs the element's default action; `wait` waits up to `timeoutMs` for the target
//!   to resolve to one element (`condition: "gone"`: to resolve to none); `observe` reads the
//!   window. Other actions are refused before the run starts.
//! - A step's `timeoutMs` (default 10 s) bounds its resolution and then its `expect`, which is
//!   polled until it holds; both are cut short by the overall `maxDurationMs` deadline.
//! - Retries: only when nothing was dispatched (not found, ambiguous, incomplete tree, a
//!   refused precondition, a backend error before sending), at most `maxRetries` per run and
//!   the step's own `maxRetries`, and only while `beforeRetry` (if any) holds. Never after
//!   `mismatch`, `unconfirmed` or any dispatched write.
//! - `maxSteps` counts step executions (each repeat counts; retries do not).
//! - `when` false skips the step (it passes); a `when` that uses a browser predicate fails the
//!   step instead of skipping it.
//! - Sensitive input values are masked everywhere in the report, including app text that
//!   happens to contain them; values shorter than 4 characters only where they stand as whole
//!   words (masking every `x` would garble the report without hiding anything).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::preflight::{RunRefusal, preflight};
use super::report::*;
use crate::app::write::{Act, send};
use crate::backend::{BackendError, Limits};
use crate::model::{AppText, NodeId, Role, Snapshot, sanitize};
use crate::selector::{Resolution, Target, resolve_for_write};
use crate::session::Session;
use crate::workflow::format::*;
use crate::workflow::validate::{self, substitute};
use crate::write::{Outcome, Placement, WriteOptions, WriteResult};

/// Secrets shorter than this are masked in reports only where they stand as whole words.
pub const SHORT_SECRET_CHARS: usize = 4;

/// `s` with every occurrence of `word` that is not part of a longer word replaced.
fn mask_words(s: &str, word: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut prev: Option<char> = None;
    while let Some(i) = rest.find(word) {
        let before = rest[..i]
            .chars()
            .next_back()
            .or(if i == 0 { prev } else { None });
        let after = rest[i + word.len()..].chars().next();
        let inside = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..i]);
        if inside(before) || inside(after) {
            out.push_str(word);
        } else {
            out.push_str("(secret)");
        }
        prev = word.chars().next_back();
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

/// Knobs of a run that the file does not set.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    pub write: WriteOptions,
    pub limits: Limits,
    /// Pause before a retry.
    pub retry_pause: Duration,
    /// How long the terminal condition is polled.
    pub terminal_timeout: Duration,
    /// Pause between polls of a predicate.
    pub poll: Duration,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            write: WriteOptions::default(),
            limits: Limits::default(),
            retry_pause: Duration::from_millis(250),
            terminal_timeout: Duration::from_secs(2),
            poll: Duration::from_millis(100),
        }
    }
}

/// Where a run happens: the window (or app) it reads, and its app for dialog checks.
#[derive(Debug, Clone)]
pub struct Place {
    pub root: NodeId,
    /// The app node, when known (`dialogOpen` also looks at the app's other windows).
    pub app: Option<NodeId>,
}

/// What predicates are evaluated against: one fresh read.
struct World {
    snap: Arc<Snapshot>,
    titles: Vec<AppText>,
    dialog: bool,
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 100_000.0).round() / 100.0
}

/// Runs one workflow, step by step. The TUI can call [`Runner::next_step`] to step through;
/// [`Runner::run`] does it all.
pub struct Runner {
    session: Arc<Session>,
    place: Place,
    wf: Workflow,
    inputs: BTreeMap<String, String>,
    /// Values of sensitive inputs, longest first, masked in every report string.
    secrets: Vec<String>,
    opts: RunOptions,
    started: Option<Instant>,
    next: usize,
    steps_run: u32,
    retries: u32,
    reports: Vec<StepReport>,
    preconditions: Vec<PredicateResult>,
    stopped: Option<String>,
}

impl Runner {
    /// Prepares a run; refuses (running nothing) when the workflow has semantic errors, uses
    /// actions a desktop run cannot do, or inputs are missing or malformed.
    pub fn new(
        session: Arc<Session>,
        place: Place,
        wf: Workflow,
        given: BTreeMap<String, String>,
        opts: RunOptions,
    ) -> Result<Runner, RunRefusal> {
        preflight(&wf, &given)?;
        let mut secrets: Vec<String> = given
            .iter()
            .filter(|(k, v)| !v.is_empty() && wf.inputs.get(*k).is_some_and(Input::is_sensitive))
            .map(|(_, v)| v.clone())
            .collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Ok(Runner {
            session,
            place,
            wf,
            inputs: given,
            secrets,
            opts,
            started: None,
            next: 0,
            steps_run: 0,
            retries: 0,
            reports: Vec::new(),
            preconditions: Vec::new(),
            stopped: None,
        })
    }

    pub fn workflow(&self) -> &Workflow {
        &self.wf
    }

    /// Reports of the steps run so far.
    pub fn reports(&self) -> &[StepReport] {
        &self.reports
    }

    /// Whether no step is left to run (all ran, or the run stopped).
    pub fn is_done(&self) -> bool {
        self.stopped.is_some() || self.next >= self.wf.steps.len()
    }

    /// Masks sensitive input values in report text. Secrets of fewer than
    /// [`SHORT_SECRET_CHARS`] characters are masked only as whole words, so a one-letter
    /// value does not garble every word holding that letter.
    fn mask(&self, s: &str) -> String {
        let mut out = s.to_string();
        for secret in &self.secrets {
            if !out.contains(secret.as_str()) {
                continue;
            }
            if secret.chars().count() >= SHORT_SECRET_CHARS {
                out = out.replace(secret.as_str(), "(secret)");
            } else {
                out = mask_words(&out, secret);
            }
        }
        out
    }

    fn sub(&self, s: &str) -> String {
        substitute(s, &|n| self.inputs.get(n).cloned())
    }

    fn uses_secret(&self, s: &str) -> bool {
        validate::input_refs(s).is_ok_and(|names| {
            names
                .iter()
                .any(|n| self.wf.inputs.get(*n).is_some_and(Input::is_sensitive))
        })
    }

    fn started(&mut self) -> Instant {
        *self.started.get_or_insert_with(Instant::now)
    }

    fn deadline(&mut self) -> Instant {
        self.started() + Duration::from_millis(self.wf.budgets.max_duration_ms)
    }

    fn remaining(&mut self) -> Duration {
        self.deadline().saturating_duration_since(Instant::now())
    }

    async fn world(&self, p: &Predicate) -> Result<World, BackendError> {
        let snap = self
            .session
            .snapshot(&self.place.root, &self.opts.limits)
            .await?;
        let mut titles = Vec::new();
        if !snap.window.is_empty() {
            titles.push(snap.window.clone());
        } else {
            titles.extend(
                snap.nodes
                    .iter()
                    .filter(|n| n.depth <= 1)
                    .filter(|n| {
                        matches!(
                            n.role,
                            Role::Frame | Role::Window | Role::Dialog | Role::Alert
                        )
                    })
                    .map(|n| n.name.clone()),
            );
        }
        let mut dialog = snap
            .nodes
            .iter()
            .any(|n| matches!(n.role, Role::Dialog | Role::Alert));
        let mut needs_apps = false;
        p.walk("", &mut |q, _| {
            needs_apps |= matches!(q, Predicate::DialogOpen(_));
        });
        if needs_apps
            && !dialog
            && let Some(app) = &self.place.app
        {
            let apps = self.session.backend.apps().await?;
            dialog = apps.iter().filter(|a| &a.id == app).any(|a| {
                a.windows
                    .iter()
                    .any(|w| matches!(w.role, Role::Dialog | Role::Alert))
            });
        }
        Ok(World {
            snap,
            titles,
            dialog,
        })
    }

    fn eval(&self, p: &Predicate, w: &World) -> PredicateResult {
        let (holds, detail, unsupported) = self.eval_inner(p, w);
        PredicateResult {
            predicate: self.mask(&p.describe()),
            holds: holds && unsupported.is_none(),
            detail: self.mask(&detail),
            unsupported,
        }
    }

    fn eval_inner(&self, p: &Predicate, w: &World) -> (bool, String, Option<&'static str>) {
        match p {
            Predicate::Visible(t) => {
                let t = self.sub(t);
                match Target::parse(&t) {
                    Err(e) => (false, format!("bad target: {e}"), None),
                    Ok(target) => match resolve_for_write(&w.snap, &target) {
                        Resolution::Unique { row, .. } => {
                            (true, format!("resolves to {}", w.snap.token(row)), None)
                        }
                        Resolution::Ambiguous { count, .. } => {
                            (false, format!("ambiguous: {count} elements match"), None)
                        }
                        Resolution::NotFound { .. } => (false, "no element matches".into(), None),
                        Resolution::Incomplete { reason, .. } => {
                            (false, format!("incomplete tree: {reason}"), None)
                        }
                    },
                }
            }
            Predicate::TitleContains(s) => {
                let s = self.sub(s);
                let hit = w.titles.iter().any(|t| t.as_str().contains(s.as_str()));
                let shown = w
                    .titles
                    .iter()
                    .map(|t| t.quoted(80))
                    .collect::<Vec<_>>()
                    .join(", ");
                (
                    hit,
                    format!(
                        "window title{} {}",
                        if w.titles.len() == 1 { "" } else { "s" },
                        if shown.is_empty() {
                            "(none)".into()
                        } else {
                            shown
                        }
                    ),
                    None,
                )
            }
            Predicate::TextContains(s) => {
                let s = self.sub(s);
                let hit = w.snap.nodes.iter().position(|n| {
                    n.name.as_str().contains(s.as_str())
                        || (!n.is_secret()
                            && n.value
                                .as_ref()
                                .and_then(|v| v.as_text())
                                .is_some_and(|v| v.as_str().contains(s.as_str())))
                });
                match hit {
                    Some(row) => (true, format!("found in {}", w.snap.path_string(row)), None),
                    None => (
                        false,
                        "no name or value in the window contains it".into(),
                        None,
                    ),
                }
            }
            Predicate::DialogOpen(want) => (
                w.dialog == *want,
                if w.dialog {
                    "a dialog is open".into()
                } else {
                    "no dialog is open".into()
                },
                None,
            ),
            Predicate::UrlEquals(_)
            | Predicate::PopupOpened(_)
            | Predicate::DownloadStarted(_)
            | Predicate::RevisionEquals(_) => (
                false,
                format!("`{}` is unsupported on desktop", p.key()),
                Some(p.key()),
            ),
            Predicate::All(ps) | Predicate::Any(ps) => {
                let all = matches!(p, Predicate::All(_));
                let mut details = Vec::new();
                let mut result = all;
                for q in ps {
                    let (h, d, u) = self.eval_inner(q, w);
                    if u.is_some() {
                        return (false, d, u);
                    }
                    details.push(format!("{}: {}", if h { "holds" } else { "fails" }, d));
                    if all {
                        result &= h;
                    } else {
                        result |= h;
                    }
                }
                (result, details.join("; "), None)
            }
            Predicate::Not(q) => {
                let (h, d, u) = self.eval_inner(q, w);
                (!h, format!("not ({d})"), u)
            }
        }
    }

    /// Evaluates `p` once against a fresh read.
    pub async fn evaluate(&self, p: &Predicate) -> PredicateResult {
        match self.world(p).await {
            Ok(w) => self.eval(p, &w),
            Err(e) => PredicateResult {
                predicate: self.mask(&p.describe()),
                holds: false,
                detail: format!("could not read the window: {e}"),
                unsupported: None,
            },
        }
    }

    /// Polls `p` until it holds or `within` passes (at least one evaluation).
    async fn poll(&self, p: &Predicate, within: Duration) -> PredicateResult {
        let until = Instant::now() + within;
        loop {
            let r = self.evaluate(p).await;
            if r.holds || r.unsupported.is_some() || Instant::now() >= until {
                return r;
            }
            tokio::time::sleep(
                self.opts
                    .poll
                    .min(until.saturating_duration_since(Instant::now())),
            )
            .await;
        }
    }

    /// Evaluates the preconditions (once each); `false` stops the run before any step.
    pub async fn check_preconditions(&mut self) -> bool {
        self.started();
        if !self.preconditions.is_empty() {
            return self.preconditions.iter().all(|p| p.holds);
        }
        let pre = self.wf.preconditions.clone().unwrap_or_default();
        for p in &pre {
            let r = self.evaluate(p).await;
            self.preconditions.push(r);
        }
        let ok = self.preconditions.iter().all(|p| p.holds);
        if !ok {
            self.stopped = Some("a precondition does not hold; no step was run".into());
        }
        ok
    }

    /// Runs the next step (every repetition of it) and returns its reports; `None` when the
    /// run is done. Stops the run at the first execution that does not pass.
    pub async fn next_step(&mut self) -> Option<Vec<StepReport>> {
        if self.preconditions.is_empty() && self.wf.preconditions.is_some() {
            self.check_preconditions().await;
        }
        self.started();
        if self.is_done() {
            return None;
        }
        let index = self.next;
        self.next += 1;
        let step = self.wf.steps[index].clone();
        let mut out = Vec::new();
        if let Some(when) = &step.when {
            let r = self.evaluate(when).await;
            if let Some(key) = r.unsupported {
                let mut rep = StepReport::new(index, &step);
                rep.finish(
                    StepOutcome::Refused,
                    format!("`when` uses `{key}`, which is unsupported on desktop"),
                );
                self.stopped = Some(format!(
                    "step {} ({}) did not pass",
                    index + 1,
                    sanitize(&step.id, 60)
                ));
                self.reports.push(rep.clone());
                return Some(vec![rep]);
            }
            if !r.holds {
                let mut rep = StepReport::new(index, &step);
                rep.finish(
                    StepOutcome::Skipped,
                    format!("`when` does not hold: {}", r.detail),
                );
                self.reports.push(rep.clone());
                return Some(vec![rep]);
            }
        }
        let repeats = step.repeats();
        for k in 1..=repeats {
            let mut rep = self.execute(index, &step).await;
            if repeats > 1 {
                rep.repeat = Some(k);
            }
            let passed = rep.passed;
            self.reports.push(rep.clone());
            out.push(rep);
            if !passed {
                if self.stopped.is_none() {
                    self.stopped = Some(format!(
                        "step {} ({}) did not pass",
                        index + 1,
                        sanitize(&step.id, 60)
                    ));
                }
                break;
            }
        }
        Some(out)
    }

    /// One execution of a step: budget checks, attempts with retries, then `expect`.
    async fn execute(&mut self, index: usize, step: &Step) -> StepReport {
        let started = Instant::now();
        let mut rep = StepReport::new(index, step);
        if self.steps_run >= self.wf.budgets.max_steps {
            rep.finish(
                StepOutcome::BudgetExhausted,
                format!("budgets.maxSteps ({}) is spent", self.wf.budgets.max_steps),
            );
            self.stopped = Some(rep.reason.clone());
            return rep;
        }
        self.steps_run += 1;
        let step_retries = step.max_retries.unwrap_or(self.wf.budgets.max_retries);
        let mut used_here = 0u32;
        loop {
            if self.remaining().is_zero() {
                rep.finish(
                    StepOutcome::BudgetExhausted,
                    format!(
                        "budgets.maxDurationMs ({} ms) is spent",
                        self.wf.budgets.max_duration_ms
                    ),
                );
                self.stopped = Some(rep.reason.clone());
                break;
            }
            rep.attempts += 1;
            let retryable = self.attempt(step, &mut rep).await;
            if rep.passed || !retryable {
                break;
            }
            if self.retries >= self.wf.budgets.max_retries || used_here >= step_retries {
                if rep.attempts > 1 || self.wf.budgets.max_retries > 0 {
                    rep.reason = format!(
                        "{} (after {} attempts; retry budget spent)",
                        rep.reason, rep.attempts
                    );
                }
                break;
            }
            if let Some(br) = &step.before_retry {
                let r = self.evaluate(br).await;
                if !r.holds {
                    rep.reason = format!(
                        "{} (not retried: beforeRetry fails: {})",
                        rep.reason, r.detail
                    );
                    break;
                }
            }
            self.retries += 1;
            used_here += 1;
            tokio::time::sleep(self.opts.retry_pause.min(self.remaining())).await;
        }
        if rep.passed
            && let Some(expect) = &step.expect
        {
            let t = Instant::now();
            let within = Duration::from_millis(step.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
                .min(self.remaining());
            let r = self.poll(expect, within).await;
            rep.timings.expect_ms = ms(t.elapsed());
            if !r.holds {
                let why = match r.unsupported {
                    Some(k) => format!("`{k}` is unsupported on desktop"),
                    None => format!("expect {} does not hold: {}", r.predicate, r.detail),
                };
                rep.expect = Some(r);
                rep.finish(StepOutcome::ExpectFailed, why);
            } else {
                rep.expect = Some(r);
            }
        }
        rep.timings.total_ms = ms(started.elapsed());
        rep.reason = self.mask(&rep.reason);
        rep
    }

    /// One attempt; returns whether a failure may be retried (nothing was dispatched).
    async fn attempt(&mut self, step: &Step, rep: &mut StepReport) -> bool {
        let timeout = Duration::from_millis(step.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
            .min(self.remaining());
        if step.action == Action::Observe {
            return self.observe(rep).await;
        }
        let Some(raw_target) = &step.target else {
            rep.finish(StepOutcome::Refused, "the step has no target");
            return false;
        };
        let target_text = self.sub(raw_target);
        rep.target = Some(self.mask(&target_text));
        let target = match Target::parse(&target_text) {
            Ok(t) => t,
            Err(e) => {
                rep.finish(StepOutcome::Refused, format!("bad target: {e}"));
                return false;
            }
        };
        if step.action == Action::Wait && step.condition.as_deref() == Some("gone") {
            return self.wait_gone(&target, timeout, rep).await;
        }
        let t = Instant::now();
        let fresh = self
            .session
            .resolve_fresh_to_write(&self.place.root, &target, timeout, &self.opts.limits)
            .await;
        rep.timings.resolve_ms += ms(t.elapsed());
        let fresh = match fresh {
            Ok(f) => f,
            Err(e) => {
                rep.finish(
                    StepOutcome::Error,
                    format!("could not read the window: {e}"),
                );
                return true;
            }
        };
        let row = match &fresh.resolution {
            Resolution::Unique { row, .. } => *row,
            other => {
                let (outcome, info, reason) = resolution_failure(other, fresh.waited);
                rep.resolution = Some(self.mask_info(info));
                rep.finish(outcome, reason);
                return true;
            }
        };
        rep.resolution = None;
        let snap = fresh.snapshot;
        let node = &snap.nodes[row];
        rep.token = Some(snap.token(row).to_string());
        if step.action == Action::Wait {
            rep.observed_text(crate::model::display::node_line(node));
            rep.finish(StepOutcome::Verified, "the target resolves to one element");
            return false;
        }
        let secret_input = [&step.text, &step.value]
            .into_iter()
            .flatten()
            .any(|s| self.uses_secret(s));
        let place = Placement {
            secret: node.is_secret() || secret_input,
            ..Placement::of(&snap, row)
        };
        let t = Instant::now();
        let raw = match step.action {
            Action::Type => self.sub(step.text.as_deref().unwrap_or("")),
            Action::Clear => String::new(),
            Action::Check => "true".into(),
            Action::Uncheck => "false".into(),
            _ => step
                .value
                .as_deref()
                .map(|v| self.sub(v))
                .unwrap_or_else(|| "true".into()),
        };
        // `click` runs the element's default action; every other action writes a value.
        let act = match step.action {
            Action::Click => Act::Invoke(None),
            _ => Act::Set(&raw),
        };
        let result: WriteResult = send(
            self.session.backend.as_ref(),
            &node.id,
            &place,
            act,
            &self.opts.write,
        )
        .await;
        rep.timings.action_ms = ms(t.elapsed());
        self.report_write(&result, rep);
        rep.finish(StepOutcome::of(result.outcome), self.mask(&result.reason));
        // Nothing was sent: safe to try again (e.g. the element becomes enabled).
        !result.dispatched && result.outcome == Outcome::Refused
    }

    /// An `observe` step: the window read; returns whether a failure may be retried.
    async fn observe(&mut self, rep: &mut StepReport) -> bool {
        let t = Instant::now();
        let r = self
            .session
            .snapshot(&self.place.root, &self.opts.limits)
            .await;
        rep.timings.action_ms = ms(t.elapsed());
        match r {
            Ok(snap) => {
                rep.observed_text(format!(
                    "{} nodes{}",
                    snap.nodes.len(),
                    if snap.complete() { "" } else { " (incomplete)" }
                ));
                rep.finish(StepOutcome::Verified, "the window was read");
                false
            }
            Err(e) => {
                rep.finish(
                    StepOutcome::Error,
                    format!("could not read the window: {e}"),
                );
                true
            }
        }
    }

    /// What a write step's report says of the write's result: the values (masked, cut, typed
    /// where the run did neither), the method, whether it was sent, the events.
    fn report_write(&self, result: &WriteResult, rep: &mut StepReport) {
        // Masked first, then cut: a cut secret would no longer be recognised.
        let echo = |s: &str| {
            let mut m = self.mask(s);
            crate::model::display::cap_echo(&mut m);
            m
        };
        rep.requested = Some(echo(&result.requested));
        rep.before = result.before.as_deref().map(echo);
        rep.observed = result.observed.as_deref().map(echo);
        // Typed in JSON, unless the run masked or cut it: then the text it shows.
        let typed = |shown: &Option<String>, raw: Option<&str>, value: &serde_json::Value| {
            let shown = shown.as_ref()?;
            let unmasked = match value {
                serde_json::Value::String(s) => self.mask(s) == *s,
                _ => true,
            };
            Some(
                if raw == Some(shown.as_str()) && unmasked && !value.is_null() {
                    value.clone()
                } else {
                    serde_json::Value::String(shown.clone())
                },
            )
        };
        rep.requested_value = typed(
            &rep.requested,
            Some(result.requested.as_str()),
            &result.requested_value,
        );
        rep.before_value = typed(&rep.before, result.before.as_deref(), &result.before_value);
        rep.observed_value = typed(
            &rep.observed,
            result.observed.as_deref(),
            &result.observed_value,
        );
        rep.method = result.method.clone();
        rep.dispatched = result.dispatched;
        rep.mismatch = result.mismatch;
        rep.events = result
            .events
            .iter()
            .take(20)
            .map(|e| self.mask(e))
            .collect();
    }

    fn mask_info(&self, mut info: ResolutionInfo) -> ResolutionInfo {
        for c in info
            .candidates
            .iter_mut()
            .chain(info.near_misses.iter_mut())
        {
            c.name = self.mask(&c.name);
            c.path = self.mask(&c.path);
            c.why = self.mask(&c.why);
        }
        info
    }

    async fn wait_gone(
        &mut self,
        target: &Target,
        timeout: Duration,
        rep: &mut StepReport,
    ) -> bool {
        let t = Instant::now();
        let until = t + timeout;
        loop {
            match self
                .session
                .snapshot(&self.place.root, &self.opts.limits)
                .await
            {
                Ok(snap) => {
                    if let Resolution::NotFound { .. } = resolve_for_write(&snap, target) {
                        rep.timings.resolve_ms = ms(t.elapsed());
                        rep.finish(StepOutcome::Verified, "the target is gone");
                        return false;
                    }
                }
                Err(BackendError::Vanished(_)) => {
                    rep.timings.resolve_ms = ms(t.elapsed());
                    rep.finish(StepOutcome::Verified, "the window is gone");
                    return false;
                }
                Err(e) => {
                    rep.finish(
                        StepOutcome::Error,
                        format!("could not read the window: {e}"),
                    );
                    return true;
                }
            }
            if Instant::now() >= until {
                rep.timings.resolve_ms = ms(t.elapsed());
                rep.finish(
                    StepOutcome::Timeout,
                    format!("the target still resolves after {} ms", timeout.as_millis()),
                );
                return false;
            }
            tokio::time::sleep(self.opts.poll).await;
        }
    }

    /// Runs the remaining steps, then evaluates the terminal condition and extracts outputs.
    pub async fn run(mut self) -> RunReport {
        self.check_preconditions().await;
        while self.next_step().await.is_some() {}
        self.finish().await
    }

    /// Ends the run: the terminal condition (only when every step passed) and the outputs.
    pub async fn finish(mut self) -> RunReport {
        let all_steps = self.stopped.is_none()
            && self.next >= self.wf.steps.len()
            && self.reports.iter().all(|r| r.passed);
        let mut terminal = None;
        if all_steps {
            let within = self.opts.terminal_timeout;
            terminal = Some(self.poll(&self.wf.terminal_condition.clone(), within).await);
        }
        let (outputs, extracted, output_problem) = self.outputs().await;
        let terminal_ok = terminal.as_ref().is_some_and(|t| t.holds);
        let mut stopped = self.stopped.clone();
        if all_steps && !terminal_ok {
            stopped = Some("the terminal condition does not hold".into());
        }
        if let (None, Some(p)) = (&stopped, &output_problem) {
            stopped = Some(p.clone());
        }
        let elapsed = self.started().elapsed();
        RunReport {
            workflow: self.wf.name.clone(),
            workflow_version: self.wf.workflow_version.clone(),
            passed: all_steps && terminal_ok && output_problem.is_none(),
            preconditions: self.preconditions.clone(),
            steps: self.reports.clone(),
            terminal,
            outputs,
            stopped,
            budget: BudgetUse {
                steps: self.steps_run,
                max_steps: self.wf.budgets.max_steps,
                retries: self.retries,
                max_retries: self.wf.budgets.max_retries,
                elapsed_ms: elapsed.as_millis() as u64,
                max_duration_ms: self.wf.budgets.max_duration_ms,
                extracted_bytes: extracted,
                max_extracted_bytes: self.wf.budgets.max_extracted_bytes,
            },
        }
    }

    /// Extracts the outputs within `maxExtractedBytes`; sensitive ones are reported masked.
    async fn outputs(&self) -> (BTreeMap<String, serde_json::Value>, u64, Option<String>) {
        let mut out = BTreeMap::new();
        let mut problem = None;
        if self.wf.outputs.is_empty() {
            return (out, 0, None);
        }
        let snap = self
            .session
            .snapshot(&self.place.root, &self.opts.limits)
            .await
            .ok();
        let mut budget = self.wf.budgets.max_extracted_bytes;
        let mut used = 0u64;
        for (name, o) in &self.wf.outputs {
            let text: Option<String> = match (o.source, &snap) {
                (OutputSource::PageUrl, _) => None,
                (_, None) => None,
                // The app's text becomes output data (JSON, escaped by the JSON writer).
                (OutputSource::PageTitle, Some(s)) => Some(if s.window.is_empty() {
                    s.nodes
                        .first()
                        .map(|n| n.name.as_str().to_string())
                        .unwrap_or_default()
                } else {
                    s.window.as_str().to_string()
                }),
                (OutputSource::VisibleText, Some(s)) => Some(
                    s.nodes
                        .iter()
                        .flat_map(|n| {
                            let value = if n.is_secret() {
                                None
                            } else {
                                n.value.as_ref().and_then(|v| v.as_text())
                            };
                            [(!n.name.is_empty()).then(|| n.name.clone()), value]
                        })
                        .flatten()
                        .map(|t| t.as_str().to_string())
                        .filter(|t| !t.trim().is_empty())
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
            };
            let Some(mut text) = text else {
                if o.required.unwrap_or(false) {
                    problem = Some(format!(
                        "required output {name:?} could not be extracted{}",
                        if o.source == OutputSource::PageUrl {
                            " (page_url is unsupported on desktop)"
                        } else {
                            ""
                        }
                    ));
                }
                out.insert(name.clone(), serde_json::Value::Null);
                continue;
            };
            if text.len() as u64 > budget {
                let mut cut = budget as usize;
                while cut > 0 && !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                if problem.is_none() && o.required.unwrap_or(false) {
                    problem = Some(format!(
                        "output {name:?} was cut to fit budgets.maxExtractedBytes"
                    ));
                }
            }
            budget -= text.len() as u64;
            used += text.len() as u64;
            let kind = o.type_.or(o.value_type).unwrap_or(ValueType::String);
            let value = match kind {
                ValueType::Integer => text
                    .trim()
                    .parse::<i64>()
                    .map(serde_json::Value::from)
                    .unwrap_or(serde_json::Value::String(text.clone())),
                ValueType::Number => text
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map(serde_json::Value::Number)
                    .unwrap_or(serde_json::Value::String(text.clone())),
                ValueType::Boolean => crate::write::rules::parse_bool(&text)
                    .map(serde_json::Value::Bool)
                    .unwrap_or(serde_json::Value::String(text.clone())),
                _ => serde_json::Value::String(self.mask(&text)),
            };
            let value = if o.sensitive.unwrap_or(false) {
                serde_json::Value::String(format!("(sensitive, {} bytes)", text.len()))
            } else {
                value
            };
            out.insert(name.clone(), value);
        }
        (out, used, problem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_secrets_are_masked_as_words_only() {
        assert_eq!(mask_words("text x, x", "x"), "text (secret), (secret)");
        assert_eq!(mask_words("xx x", "x"), "xx (secret)");
        assert_eq!(mask_words("pin 12 in 123", "12"), "pin (secret) in 123");
    }
}
