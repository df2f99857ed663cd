//! A run's report: how each step execution ended, what a failed resolution found, the
//! predicates' values, the budgets used, and the human-readable form.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::model::{AppText, sanitize};
use crate::selector::{Candidate, Resolution};
use crate::workflow::format::{Action, Step};
use crate::write::{MismatchKind, Outcome};

/// How one step execution ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepOutcome {
    Verified,
    Already,
    Secure,
    Mismatch,
    Unconfirmed,
    Refused,
    NotFound,
    Ambiguous,
    Incomplete,
    /// The step's effect was verified but its `expect` did not hold.
    ExpectFailed,
    /// A `wait` whose condition did not come true in time.
    Timeout,
    /// `when` was false.
    Skipped,
    /// `maxSteps` or `maxDurationMs` was spent before the step could run.
    BudgetExhausted,
    /// The backend failed (bus error) before anything was sent.
    Error,
}

impl StepOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            StepOutcome::Verified => "verified",
            StepOutcome::Already => "already",
            StepOutcome::Secure => "secure",
            StepOutcome::Mismatch => "mismatch",
            StepOutcome::Unconfirmed => "unconfirmed",
            StepOutcome::Refused => "refused",
            StepOutcome::NotFound => "not_found",
            StepOutcome::Ambiguous => "ambiguous",
            StepOutcome::Incomplete => "incomplete",
            StepOutcome::ExpectFailed => "expect_failed",
            StepOutcome::Timeout => "timeout",
            StepOutcome::Skipped => "skipped",
            StepOutcome::BudgetExhausted => "budget_exhausted",
            StepOutcome::Error => "error",
        }
    }

    /// Whether the run goes on after this outcome.
    pub fn passed(self) -> bool {
        matches!(
            self,
            StepOutcome::Verified
                | StepOutcome::Already
                | StepOutcome::Secure
                | StepOutcome::Skipped
        )
    }

    pub(super) fn of(o: Outcome) -> StepOutcome {
        match o {
            Outcome::Verified => StepOutcome::Verified,
            Outcome::Already => StepOutcome::Already,
            Outcome::Secure => StepOutcome::Secure,
            Outcome::Mismatch => StepOutcome::Mismatch,
            Outcome::Unconfirmed => StepOutcome::Unconfirmed,
            Outcome::Refused => StepOutcome::Refused,
        }
    }
}

/// A predicate's value in one evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct PredicateResult {
    /// The predicate, readable (`visible check-box "Subscribe" [checked]`).
    pub predicate: String,
    pub holds: bool,
    /// Why, in a few words.
    pub detail: String,
    /// The predicate key a desktop run cannot evaluate (the predicate then fails).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<&'static str>,
}

/// What a failed resolution found.
#[derive(Debug, Clone, Serialize)]
pub struct ResolutionInfo {
    pub outcome: &'static str,
    pub count: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub near_misses: Vec<Candidate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Timings of one step execution, in milliseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StepTimings {
    pub resolve_ms: f64,
    pub action_ms: f64,
    pub expect_ms: f64,
    pub total_ms: f64,
}

/// The report of one step execution.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The step's index in the file.
    pub index: usize,
    pub id: String,
    pub action: Action,
    /// 1-based repetition, when the step repeats.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub outcome: StepOutcome,
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<MismatchKind>,
    pub reason: String,
    /// The request, the value before and the value observed, as the text report shows them
    /// (quoted text, masked, cut); JSON carries them typed (`*_value`).
    #[serde(skip)]
    pub requested: Option<String>,
    #[serde(skip)]
    pub before: Option<String>,
    #[serde(skip)]
    pub observed: Option<String>,
    /// The same typed, as `set --json` gives them: text, number, boolean, option label (a
    /// secret as `{"secret": true, "length": n}`); a value the run masked or cut stays the
    /// masked or cut text.
    #[serde(rename = "requested", skip_serializing_if = "Option::is_none")]
    pub requested_value: Option<serde_json::Value>,
    #[serde(rename = "before", skip_serializing_if = "Option::is_none")]
    pub before_value: Option<serde_json::Value>,
    #[serde(rename = "observed", skip_serializing_if = "Option::is_none")]
    pub observed_value: Option<serde_json::Value>,
    /// The method the write used (it may name one of the app's actions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<AppText>,
    pub dispatched: bool,
    /// The element, as a token of the run's session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<ResolutionInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<PredicateResult>,
    pub attempts: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    pub timings: StepTimings,
}

impl StepReport {
    /// What the step observed, a description (a read's size, the element a wait found): the
    /// same in the text report and in JSON.
    pub(super) fn observed_text(&mut self, text: String) {
        self.observed_value = Some(serde_json::Value::String(text.clone()));
        self.observed = Some(text);
    }

    pub(super) fn new(index: usize, step: &Step) -> StepReport {
        StepReport {
            index,
            id: step.id.clone(),
            action: step.action,
            repeat: None,
            target: None,
            outcome: StepOutcome::Refused,
            passed: false,
            mismatch: None,
            reason: String::new(),
            requested: None,
            before: None,
            observed: None,
            requested_value: None,
            before_value: None,
            observed_value: None,
            method: None,
            dispatched: false,
            token: None,
            resolution: None,
            expect: None,
            attempts: 0,
            events: Vec::new(),
            timings: StepTimings::default(),
        }
    }

    pub(super) fn finish(&mut self, outcome: StepOutcome, reason: impl Into<String>) {
        self.outcome = outcome;
        self.passed = outcome.passed();
        self.reason = reason.into();
    }
}

/// What the run used of its budgets.
#[derive(Debug, Clone, Serialize)]
pub struct BudgetUse {
    pub steps: u32,
    pub max_steps: u32,
    pub retries: u32,
    pub max_retries: u32,
    pub elapsed_ms: u64,
    pub max_duration_ms: u64,
    pub extracted_bytes: u64,
    pub max_extracted_bytes: u64,
}

/// The whole run's report.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub workflow: String,
    pub workflow_version: String,
    /// Every step passed and the terminal condition holds.
    pub passed: bool,
    pub preconditions: Vec<PredicateResult>,
    pub steps: Vec<StepReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal: Option<PredicateResult>,
    pub outputs: BTreeMap<String, serde_json::Value>,
    /// Why the run stopped early.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    pub budget: BudgetUse,
}

/// A resolution that is not unique as a step's outcome, what it found and why the step did
/// not run (after `waited`).
pub(super) fn resolution_failure(
    r: &Resolution,
    waited: Duration,
) -> (StepOutcome, ResolutionInfo, String) {
    let reason = match r {
        Resolution::NotFound { .. } => format!(
            "no element matches the target (waited {} ms)",
            waited.as_millis()
        ),
        Resolution::Ambiguous { count, .. } => {
            format!("{count} elements match the target; a step needs exactly one")
        }
        Resolution::Incomplete { reason, .. } => {
            format!("the tree was read incompletely ({reason}); uniqueness cannot be claimed")
        }
        Resolution::Unique { .. } => String::new(),
    };
    let (outcome, info) = resolution_info(r);
    (outcome, info, reason)
}

fn resolution_info(r: &Resolution) -> (StepOutcome, ResolutionInfo) {
    match r {
        Resolution::Ambiguous { count, candidates } => (
            StepOutcome::Ambiguous,
            ResolutionInfo {
                outcome: "ambiguous",
                count: *count,
                candidates: candidates.clone(),
                near_misses: Vec::new(),
                reason: None,
            },
        ),
        Resolution::NotFound { near_misses, .. } => (
            StepOutcome::NotFound,
            ResolutionInfo {
                outcome: "not_found",
                count: 0,
                candidates: Vec::new(),
                near_misses: near_misses.clone(),
                reason: None,
            },
        ),
        Resolution::Incomplete {
            count,
            candidates,
            near_misses,
            reason,
        } => (
            StepOutcome::Incomplete,
            ResolutionInfo {
                outcome: "incomplete",
                count: *count,
                candidates: candidates.clone(),
                near_misses: near_misses.clone(),
                reason: Some(reason.clone()),
            },
        ),
        Resolution::Unique { .. } => (
            StepOutcome::Verified,
            ResolutionInfo {
                outcome: "unique",
                count: 1,
                candidates: Vec::new(),
                near_misses: Vec::new(),
                reason: None,
            },
        ),
    }
}

impl RunReport {
    /// The human-readable report.
    pub fn text(&self) -> String {
        let mut out = format!(
            "workflow {:?} (version {})\n",
            sanitize(&self.workflow, 80).as_ref(),
            sanitize(&self.workflow_version, 40)
        );
        for p in &self.preconditions {
            out.push_str(&format!(
                "precondition {}: {} — {}\n",
                p.predicate,
                if p.holds { "holds" } else { "FAILS" },
                p.detail
            ));
        }
        for s in &self.steps {
            let rep = s.repeat.map(|r| format!(" #{r}")).unwrap_or_default();
            out.push_str(&format!(
                "{:>3}. {}{}  {}{}  {}  ({} ms{})\n",
                s.index + 1,
                sanitize(&s.id, 60),
                rep,
                s.action.as_str(),
                s.target
                    .as_ref()
                    .map(|t| format!(" {}", sanitize(t, 80)))
                    .unwrap_or_default(),
                match s.mismatch {
                    Some(k) => format!("{} ({})", s.outcome.as_str(), k.as_str()),
                    None => s.outcome.as_str().to_string(),
                },
                s.timings.total_ms.round(),
                if s.attempts > 1 {
                    format!(", {} attempts", s.attempts)
                } else {
                    String::new()
                }
            ));
            out.push_str(&step_detail(s));
        }
        if let Some(t) = &self.terminal {
            out.push_str(&format!(
                "terminal {}: {} — {}\n",
                t.predicate,
                if t.holds { "holds" } else { "FAILS" },
                sanitize(&t.detail, 200)
            ));
        }
        for (k, v) in &self.outputs {
            let shown = match v {
                serde_json::Value::String(s) => format!("{:?}", sanitize(s, 120).as_ref()),
                other => other.to_string(),
            };
            out.push_str(&format!("output {k} = {shown}\n"));
        }
        let passed_steps = self.steps.iter().filter(|s| s.passed).count();
        out.push_str(&format!(
            "{}: {passed_steps}/{} step executions passed, {} retries, {} ms{}\n",
            if self.passed { "PASSED" } else { "FAILED" },
            self.steps.len(),
            self.budget.retries,
            self.budget.elapsed_ms,
            self.stopped
                .as_ref()
                .map(|s| format!(" — stopped: {s}"))
                .unwrap_or_default()
        ));
        out
    }
}

/// What the text report says under a step's line: why, the values, the candidates or near
/// misses, the expectation (each line indented).
fn step_detail(s: &StepReport) -> String {
    let mut out = String::new();
    if !s.reason.is_empty() {
        out.push_str(&format!("       {}\n", sanitize(&s.reason, 300)));
    }
    match (&s.before, &s.observed) {
        (Some(b), Some(o)) => out.push_str(&format!(
            "       requested {}  before {}  observed {}\n",
            s.requested
                .as_deref()
                .map(|r| sanitize(r, 80))
                .unwrap_or_default(),
            sanitize(b, 80),
            sanitize(o, 80)
        )),
        (None, Some(o)) => out.push_str(&format!("       observed {}\n", sanitize(o, 80))),
        _ => {}
    }
    if let Some(r) = &s.resolution {
        for c in r.candidates.iter().take(5) {
            out.push_str(&format!(
                "       candidate  {}  {}\n",
                sanitize(&c.path, 100),
                sanitize(&c.why, 60)
            ));
        }
        for c in r.near_misses.iter().take(5) {
            out.push_str(&format!(
                "       near miss  {}  ({})\n",
                sanitize(&c.path, 100),
                sanitize(&c.why, 80)
            ));
        }
    }
    if let Some(e) = &s.expect {
        out.push_str(&format!(
            "       expect {}: {} — {}\n",
            e.predicate,
            if e.holds { "holds" } else { "FAILS" },
            sanitize(&e.detail, 200)
        ));
    }
    out
}

impl RunReport {
    /// The run as a JUnit suite: a case per precondition that fails, per step execution
    /// (failed with its verdict and what the text report says of it), per step of the file
    /// that did not run (skipped, with why the run stopped), and for the terminal condition.
    /// `steps`: the file's steps, `(id, action)` in order.
    pub fn junit(&self, steps: &[(String, &'static str)]) -> crate::junit::Suite {
        use crate::junit::{Case, Outcome};
        let class = format!("treeglass.workflow.{}", self.workflow);
        let mut cases = Vec::new();
        for p in self.preconditions.iter().filter(|p| !p.holds) {
            cases.push(Case {
                classname: class.clone(),
                name: format!("precondition {}", p.predicate),
                seconds: 0.0,
                outcome: Outcome::Failed {
                    kind: "precondition".into(),
                    message: p.detail.clone(),
                    detail: p.detail.clone(),
                },
            });
        }
        for s in &self.steps {
            let rep = s.repeat.map(|r| format!(" #{r}")).unwrap_or_default();
            let name = format!(
                "{}. {}{rep} {}{}",
                s.index + 1,
                s.id,
                s.action.as_str(),
                s.target
                    .as_ref()
                    .map(|t| format!(" {t}"))
                    .unwrap_or_default()
            );
            let verdict = match s.mismatch {
                Some(k) => format!("{} ({})", s.outcome.as_str(), k.as_str()),
                None => s.outcome.as_str().to_string(),
            };
            cases.push(Case {
                classname: class.clone(),
                name,
                seconds: s.timings.total_ms / 1000.0,
                outcome: if s.passed {
                    Outcome::Passed
                } else {
                    Outcome::Failed {
                        kind: verdict.clone(),
                        message: format!("{verdict}: {}", s.reason),
                        detail: step_detail(s),
                    }
                },
            });
        }
        let reached = self.steps.iter().map(|s| s.index + 1).max().unwrap_or(0);
        let why = self
            .stopped
            .clone()
            .unwrap_or_else(|| "the run stopped before it".into());
        for (i, (id, action)) in steps.iter().enumerate().skip(reached) {
            cases.push(Case {
                classname: class.clone(),
                name: format!("{}. {id} {action}", i + 1),
                seconds: 0.0,
                outcome: Outcome::Skipped {
                    message: format!("not run: {why}"),
                },
            });
        }
        if let Some(t) = &self.terminal {
            cases.push(Case {
                classname: class.clone(),
                name: format!("terminal {}", t.predicate),
                seconds: 0.0,
                outcome: if t.holds {
                    Outcome::Passed
                } else {
                    Outcome::Failed {
                        kind: "terminal".into(),
                        message: t.detail.clone(),
                        detail: t.detail.clone(),
                    }
                },
            });
        }
        crate::junit::Suite {
            name: format!("workflow {}", self.workflow),
            seconds: self.budget.elapsed_ms as f64 / 1000.0,
            cases,
        }
    }
}
