//! The recorder: writes, actions, waits and observations — made through treeglass or seen in the
//! app — become workflow steps with the shortest unique target of the moment, the action and
//! transaction of the mapping table, a readable unique id, and an `expect` the step's effect
//! satisfies. Secrets never enter it: a value typed into a password (or otherwise sensitive)
//! field becomes a reference to a sensitive input. Pure data: no IO except loading and saving
//! recording files.
//!
//! Expectations, by action (each holds right after a verified replay of the step):
//! - `type` into a text or number field: `textContains` the typed text (its first line, at most
//!   1024 characters; a number as the toolkit formats it, `42`), since the field's value is
//!   text of the window. Into a sensitive field: `visible` of the target (the text cannot be
//!   read back).
//! - `check` / `uncheck`: `visible` of the target with `[checked]` / `[!checked]` (`[pressed]`
//!   when the toolkit marks "on" that way; `[expanded]` for expanders), which resolves only when
//!   the element is in that state.
//! - `select` of a tab, list or tree row: `visible` of the target with `[selected]`; of a combo
//!   box option: `textContains` the option label (the combo's value is that text).
//! - `clear`: `visible` of the target. `click`: none (an action's effect is app-specific).
//! - `wait`: `visible` of the target (`not visible` for `gone`). `observe`: none.
//!
//! | module | owns |
//! |---|---|
//! | `mapping` | what a write, an action or an observed state becomes as a step |
//! | `mod.rs` | the recorder: steps, inputs, ids, flags; recording files |
//! | `export` | a recording as a validated workflow-v1 document |

mod export;
mod mapping;

pub use export::{ExportError, ExportOptions};
pub use mapping::{Mapping, default_action, map_write, slug};
use mapping::{Stability, expect_for, id_label, stable_alternative, state_value};

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::format::*;
use super::validate;
use crate::model::{AppText, Node, NodeId, Role, Snapshot};
use crate::selector::{
    Grade, Query, Resolution, RoleSpec, SnapshotIndex, Target, matches, resolve, suggest,
};
use crate::write::{Outcome, WriteResult};

/// The recording file format version.
pub const RECORDING_VERSION: u32 = 1;
/// Recording files larger than this are refused.
pub const MAX_RECORDING_BYTES: u64 = 8 << 20;
/// Time allowed per step on top of its resolution timeout, for the write and its read-back.
const WRITE_ALLOWANCE_MS: u64 = 2_000;
/// Extra time for the whole run (preconditions, terminal condition, outputs).
const RUN_ALLOWANCE_MS: u64 = 5_000;

/// One recorded step: the workflow step itself (`step`, exactly as it is exported) and what the
/// recorder knows beyond the exported file: the candidate count of its target, the element's
/// role and name, the verdict it got, and why it is flagged. In a recording file the step's
/// fields sit beside the recorder's (`#[serde(flatten)]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedStep {
    /// `type`: `text` holds the text, or `${inputs.NAME}` for a sensitive field; `select`:
    /// `value` holds the option label (absent when the target itself is selected); `wait`:
    /// `condition` is `visible` or `gone`.
    #[serde(flatten)]
    pub step: Step,
    /// How many elements the target matched in the snapshot it was recorded in (1: unique).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// The element's name when recorded.
    #[serde(default)]
    pub name: AppText,
    /// The write's outcome when recorded (`verified`, `mismatch`, …); none for observed
    /// changes, waits and observations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The change was made by the user in the app and seen through accessibility events.
    #[serde(default)]
    pub observed: bool,
    /// Something is off (verdict not verified/already/secure, target not unique, …): review
    /// or drop the step before exporting.
    #[serde(default)]
    pub flagged: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// Worth knowing but not wrong: a positional target (`#n`) replays correctly only while
    /// the look-alikes before the element stay as they are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The backend element, for telling echoes of our own writes from user changes (never
    /// saved: ids only mean something inside one session).
    #[serde(skip)]
    pub node: Option<NodeId>,
}

impl Default for RecordedStep {
    /// An observation step with nothing known about it (a base for struct updates).
    fn default() -> RecordedStep {
        RecordedStep {
            step: Step::new("", Action::Observe, Transaction::ReadOnly),
            candidates: None,
            role: None,
            name: AppText::default(),
            verdict: None,
            mismatch: None,
            reason: String::new(),
            observed: false,
            flagged: false,
            flags: Vec::new(),
            warnings: Vec::new(),
            node: None,
        }
    }
}

impl RecordedStep {
    /// The step as it appears in a workflow file.
    pub fn to_step(&self) -> Step {
        let mut s = self.step.clone();
        s.timeout_ms = Some(s.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
        s
    }

    /// One line for listings: `type-full-name  type text "Full name" ← "Ada"  verified`.
    pub fn summary(&self) -> String {
        let mut s = format!("{}  {}", self.step.id, self.step.action.as_str());
        if let Some(t) = &self.step.target {
            s.push(' ');
            s.push_str(&crate::model::sanitize(t, 80));
        }
        if let Some(t) = &self.step.text {
            s.push_str(&format!(" ← {:?}", crate::model::sanitize(t, 60).as_ref()));
        }
        if let Some(v) = &self.step.value {
            s.push_str(&format!(" ← {:?}", crate::model::sanitize(v, 60).as_ref()));
        }
        match (&self.verdict, self.observed) {
            (Some(v), _) => s.push_str(&format!("  {v}")),
            (None, true) => s.push_str("  observed"),
            _ => {}
        }
        if let Some(m) = &self.mismatch {
            s.push_str(&format!(" ({m})"));
        }
        if self.flagged {
            s.push_str(&format!("  ⚑ {}", self.flags.join("; ")));
        }
        if !self.warnings.is_empty() {
            s.push_str(&format!("  ⚠ {}", self.warnings.join("; ")));
        }
        s
    }
}

/// A recording file: the recorder's whole state, appended to by `set/invoke --record`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recording {
    /// Always [`RECORDING_VERSION`].
    pub treeglass_recording: u32,
    pub name: String,
    /// The app and window title seen last.
    #[serde(default)]
    pub app: AppText,
    #[serde(default)]
    pub window: AppText,
    #[serde(default)]
    pub inputs: BTreeMap<String, Input>,
    #[serde(default)]
    pub steps: Vec<RecordedStep>,
}

/// Why a recording could not be loaded, saved or exported.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{path}: not a treeglass recording (line {line}, column {column}): {message}")]
    Parse {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{path}: recording format {found} is not supported (this treeglass reads {RECORDING_VERSION})"
    )]
    Version { path: String, found: u32 },
    #[error("{0} (recordings are limited to {MAX_RECORDING_BYTES} bytes)")]
    TooBig(crate::files::FileError),
    #[error("{0}")]
    File(crate::files::FileError),
    #[error("row {0} is not in the snapshot")]
    NoRow(usize),
    #[error("no step {0}")]
    NoStep(usize),
}

/// The workflow step that brings `row` to the state it is in now, by the recorder's own mapping,
/// target choice and expectation (what the TUI copies as "workflow step"). An element with no
/// value to set but with actions becomes a `click` on it; `None` for anything else.
pub fn step_for_state(snap: &Snapshot, row: usize) -> Option<Step> {
    let node = snap.get(row)?;
    let mut rec = Recorder::new("step");
    let r = Record {
        snap,
        row,
        given: None,
        observed: false,
        result: None,
    };
    // Only elements that take a value through `set` have a state to bring back (a label's text
    // is not typed into it).
    let value = node.is_editable_kind().then(|| state_value(node)).flatten();
    let i = match value {
        Some(raw) => rec.record_value(&r, node, &raw, node.is_secret()),
        None if !node.actions.is_empty() => rec.record_click(&r, node, None),
        None => return None,
    };
    rec.steps.get(i).map(RecordedStep::to_step)
}

/// Records steps; see the module doc. `Send`, so a TUI or a watcher task can share it behind a
/// mutex.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    name: String,
    app: AppText,
    window: AppText,
    steps: Vec<RecordedStep>,
    inputs: BTreeMap<String, Input>,
}

/// What is being recorded for one element.
struct Record<'a> {
    snap: &'a Snapshot,
    row: usize,
    /// The target the user gave, tried when no unique one can be suggested.
    given: Option<&'a str>,
    observed: bool,
    result: Option<&'a WriteResult>,
}

impl Recorder {
    pub fn new(name: impl Into<String>) -> Recorder {
        Recorder {
            name: name.into(),
            ..Recorder::default()
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    /// Names the app and window being recorded where nothing recorded has named them yet (a
    /// recording of no steps still says what it watched).
    pub fn note_scope(&mut self, app: &AppText, window: &AppText) {
        if self.app.is_empty() {
            self.app = app.clone();
        }
        if self.window.is_empty() {
            self.window = window.clone();
        }
    }

    /// The app and window title seen last.
    pub fn app(&self) -> &AppText {
        &self.app
    }

    pub fn window(&self) -> &AppText {
        &self.window
    }

    pub fn steps(&self) -> &[RecordedStep] {
        &self.steps
    }

    pub fn inputs(&self) -> &BTreeMap<String, Input> {
        &self.inputs
    }

    /// Indices of flagged steps.
    pub fn flagged(&self) -> Vec<usize> {
        (0..self.steps.len())
            .filter(|&i| self.steps[i].flagged)
            .collect()
    }

    /// Removes step `i` (and its sensitive input when no other step uses it).
    pub fn drop_step(&mut self, i: usize) -> Option<RecordedStep> {
        if i >= self.steps.len() {
            return None;
        }
        let step = self.steps.remove(i);
        self.prune_inputs();
        Some(step)
    }

    /// Turns step `i`'s literal text into a sensitive input (the literal is discarded), for
    /// fields the recorder could not tell were secret.
    pub fn mark_sensitive(&mut self, i: usize) -> Result<(), RecordError> {
        let step = self.steps.get(i).ok_or(RecordError::NoStep(i))?;
        if step.step.action != Action::Type
            || step
                .step
                .text
                .as_deref()
                .is_some_and(|t| t.contains("${inputs."))
        {
            return Ok(());
        }
        let input = self.new_input(step.name.clone().as_str(), step.role);
        let step = &mut self.steps[i];
        step.step.text = Some(format!("${{inputs.{input}}}"));
        step.step.expect = step
            .step
            .target
            .as_ref()
            .map(|t| Predicate::Visible(t.clone()));
        Ok(())
    }

    fn prune_inputs(&mut self) {
        let used: HashSet<String> = self
            .steps
            .iter()
            .flat_map(|s| [s.step.text.as_deref(), s.step.value.as_deref()])
            .flatten()
            .filter_map(|t| validate::input_refs(t).ok())
            .flatten()
            .map(str::to_string)
            .collect();
        self.inputs.retain(|k, _| used.contains(k));
    }

    fn unique_id(&self, base: &str) -> String {
        let taken: HashSet<&str> = self.steps.iter().map(|s| s.step.id.as_str()).collect();
        if !taken.contains(base) {
            return base.to_string();
        }
        (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|id| !taken.contains(id.as_str()))
            .unwrap_or_else(|| base.to_string())
    }

    fn new_input(&mut self, name: &str, role: Option<Role>) -> String {
        let mut base = slug(name, '_');
        if base.is_empty() || !base.starts_with(|c: char| c.is_ascii_alphabetic()) {
            base = match role {
                Some(Role::PasswordText) | None => "secret".into(),
                Some(r) => slug(r.as_str(), '_'),
            };
        }
        // Input names are ASCII (the reference syntax); keep what is.
        let base: String = base
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let base = if base.is_empty() {
            "secret".into()
        } else {
            base
        };
        let name = if self.inputs.contains_key(&base) {
            (2..)
                .map(|n| format!("{base}_{n}"))
                .find(|n| !self.inputs.contains_key(n))
                .unwrap_or(base)
        } else {
            base
        };
        self.inputs.insert(name.clone(), Input::string(true));
        name
    }

    fn note_place(&mut self, snap: &Snapshot) {
        if !snap.app.is_empty() {
            self.app = snap.app.clone();
        }
        let title = if !snap.window.is_empty() {
            snap.window.clone()
        } else {
            match snap.nodes.first() {
                Some(n) if matches!(n.role, Role::Frame | Role::Window | Role::Dialog) => {
                    n.name.clone()
                }
                _ => AppText::default(),
            }
        };
        if !title.is_empty() {
            self.window = title;
        }
    }

    /// The target recorded for `row`: the shortest unique one, else the given one if it names
    /// this element, else role and name; with its candidate count and flags.
    fn target_for(r: &Record<'_>) -> (Option<Target>, Option<usize>, Vec<String>) {
        let snap = r.snap;
        let mut flags = Vec::new();
        let count = |t: &Target| match resolve(snap, t) {
            Resolution::Unique { .. } => 1,
            Resolution::Ambiguous { count, .. } | Resolution::Incomplete { count, .. } => count,
            Resolution::NotFound { .. } => 0,
        };
        if let Some(t) = suggest(snap, r.row) {
            if !snap.complete() {
                flags.push("the snapshot was incomplete: uniqueness is not proven".into());
            }
            let t = match stable_alternative(snap, r.row, &t) {
                Stability::Stable => t,
                Stability::Replaced(alt) => alt,
                Stability::ValueNamed(v) => {
                    flags.push(format!(
                        "the target names the element by its current value ({}); it stops \
                         resolving once the value changes",
                        v.quoted(40)
                    ));
                    t
                }
            };
            let n = count(&t);
            return (Some(t), Some(n), flags);
        }
        let node = &snap.nodes[r.row];
        let ix = SnapshotIndex::new(snap);
        let names_row = |t: &Target| matches(&ix, snap, t).contains(&r.row);
        let given = r
            .given
            .and_then(|g| Target::parse(g).ok())
            .filter(|t| t.to_string().chars().count() <= crate::selector::MAX_TARGET_CHARS)
            .filter(|t| names_row(t));
        let built = || {
            let query = (!node.name.as_str().trim().is_empty())
                .then(|| Query::tiered(node.name.as_str()).ok())
                .flatten();
            Target::new(Some(RoleSpec::Role(node.role)), query, Vec::new())
                .ok()
                .filter(|t| t.to_string().chars().count() <= crate::selector::MAX_TARGET_CHARS)
        };
        let t = given.or_else(built);
        let n = t.as_ref().map(count);
        flags.push(format!(
            "no unique target: {} elements match",
            n.unwrap_or(0)
        ));
        (t, n, flags)
    }

    fn push(&mut self, mut step: RecordedStep) -> usize {
        step.flagged = !step.flags.is_empty();
        let positional = step
            .step
            .target
            .as_deref()
            .and_then(|t| Target::parse(t).ok())
            .is_some_and(|t| t.grade() == Grade::Positional);
        if positional {
            step.warnings.push(
                "positional target: it names the element by its place among look-alikes and \
                 breaks if one is added or removed before it"
                    .into(),
            );
        }
        self.steps.push(step);
        self.steps.len() - 1
    }

    /// Records a write made through treeglass: `snap` is the snapshot the element was
    /// resolved in (before the write), `raw` the value as the user gave it (never stored for a
    /// sensitive field). Returns the step's index.
    pub fn record_write(
        &mut self,
        snap: &Snapshot,
        row: usize,
        result: &WriteResult,
        raw: &str,
        observed: bool,
    ) -> Result<usize, RecordError> {
        let node = snap.get(row).ok_or(RecordError::NoRow(row))?;
        let rec = Record {
            snap,
            row,
            given: result.target.as_deref(),
            observed,
            result: Some(result),
        };
        let secret = node.is_secret() || result.outcome == Outcome::Secure;
        Ok(self.record_value(&rec, node, raw, secret))
    }

    fn record_value(&mut self, r: &Record<'_>, node: &Node, raw: &str, secret: bool) -> usize {
        self.note_place(r.snap);
        let (target, candidates, mut flags) = Self::target_for(r);
        let mut m = map_write(node, raw);
        // A watcher may have seen this write's events first: the write's step replaces that
        // observed echo.
        if !r.observed
            && let Some(last) = self.steps.last()
        {
            let echo = last.observed
                && last.node.as_ref() == Some(&node.id)
                && last.step.action == m.action
                && (secret || last.step.text == m.text && last.step.value == m.value);
            if echo {
                self.steps.pop();
                self.prune_inputs();
            }
        }
        if let Some(p) = &m.problem {
            flags.push(p.clone());
        }
        if secret && m.action == Action::Type {
            let input = self.new_input(node.name.as_str(), Some(node.role));
            m.text = Some(format!("${{inputs.{input}}}"));
        }
        let expect = expect_for(
            m.action,
            target.as_ref(),
            Some(node),
            m.text.as_deref(),
            m.value.as_deref(),
            secret,
        );
        let (verdict, mismatch, mut reason) = match r.result {
            Some(res) => {
                if !res.outcome.is_ok() {
                    flags.push(format!("the write was {}", res.outcome.as_str()));
                }
                (
                    Some(res.outcome.as_str().to_string()),
                    res.mismatch.map(|k| k.as_str().to_string()),
                    res.reason.clone(),
                )
            }
            None => (None, None, String::new()),
        };
        if secret && !raw.is_empty() && reason.contains(raw) {
            reason = reason.replace(raw, "(secret)");
        }
        let base = format!("{}-{}", m.action.as_str(), id_label(node));
        let step = RecordedStep {
            step: Step {
                target: target.map(|t| t.to_string()),
                text: m.text,
                value: m.value,
                timeout_ms: Some(DEFAULT_TIMEOUT_MS),
                expect,
                ..Step::new(self.unique_id(&base), m.action, m.transaction)
            },
            candidates,
            role: Some(node.role),
            name: node.name.clone(),
            verdict,
            mismatch,
            reason,
            observed: r.observed,
            flags,
            warnings: Vec::new(),
            node: Some(node.id.clone()),
            ..RecordedStep::default()
        };
        self.push(step)
    }

    /// Records an action run through treeglass (`invoke`): a `click` step. `action` is the
    /// action the user named, if any; a replay presses the element's default action, so a
    /// different named action flags the step.
    pub fn record_invoke(
        &mut self,
        snap: &Snapshot,
        row: usize,
        result: &WriteResult,
        action: Option<&str>,
    ) -> Result<usize, RecordError> {
        let node = snap.get(row).ok_or(RecordError::NoRow(row))?;
        self.note_place(snap);
        let rec = Record {
            snap,
            row,
            given: result.target.as_deref(),
            observed: false,
            result: Some(result),
        };
        Ok(self.record_click(&rec, node, action))
    }

    /// A `click` step on `r`'s element (`action`: the one the user named, if any).
    fn record_click(&mut self, r: &Record<'_>, node: &Node, action: Option<&str>) -> usize {
        let (target, candidates, mut flags) = Self::target_for(r);
        if let Some(a) = action {
            let default = default_action(node);
            if !default
                .as_ref()
                .is_some_and(|d| d.as_str().eq_ignore_ascii_case(a))
            {
                flags.push(format!(
                    "the action `{a}` is not the element's default ({}); a replay runs the default",
                    default.as_ref().map_or("none".into(), |d| d.literal(40))
                ));
            }
        }
        if let Some(result) = r.result
            && !result.outcome.is_ok()
        {
            flags.push(format!("the action was {}", result.outcome.as_str()));
        }
        let name = id_label(node);
        let m = Mapping::new(Action::Click);
        let step = RecordedStep {
            step: Step {
                target: target.map(|t| t.to_string()),
                timeout_ms: Some(DEFAULT_TIMEOUT_MS),
                ..Step::new(
                    self.unique_id(&format!("click-{name}")),
                    m.action,
                    m.transaction,
                )
            },
            candidates,
            role: Some(node.role),
            name: node.name.clone(),
            verdict: r.result.map(|res| res.outcome.as_str().to_string()),
            mismatch: r
                .result
                .and_then(|res| res.mismatch.map(|k| k.as_str().to_string())),
            reason: r.result.map(|res| res.reason.clone()).unwrap_or_default(),
            flags,
            warnings: Vec::new(),
            node: Some(node.id.clone()),
            ..RecordedStep::default()
        };
        self.push(step)
    }

    /// Records an explicit wait for `target` (up to `timeout`).
    pub fn record_wait(&mut self, target: &Target, timeout: Duration) -> usize {
        self.record_wait_for(target, timeout, true)
    }

    /// Records a wait for `target` to become unique (`visible`) or to go away (`!visible`).
    pub fn record_wait_for(&mut self, target: &Target, timeout: Duration, visible: bool) -> usize {
        let ms = (timeout.as_millis() as u64).clamp(1, MAX_DURATION_MS);
        let what = target
            .query()
            .map(|q| slug(q.text(), '-'))
            .filter(|s| !s.is_empty())
            .or_else(|| match target.role() {
                Some(RoleSpec::Role(r)) => Some(slug(r.as_str(), '-')),
                Some(RoleSpec::Raw(r)) => Some(slug(r, '-')),
                None => None,
            })
            .unwrap_or_else(|| "target".into());
        let mut flags = Vec::new();
        if target.to_string().chars().count() > crate::selector::MAX_TARGET_CHARS {
            flags.push("the target is longer than 1024 characters".into());
        }
        let mut expect = expect_for(Action::Wait, Some(target), None, None, None, false);
        if !visible {
            expect = expect.map(|p| Predicate::Not(Box::new(p)));
        }
        let m = Mapping::new(Action::Wait);
        let step = RecordedStep {
            step: Step {
                target: Some(target.to_string()),
                condition: Some(if visible { "visible" } else { "gone" }.into()),
                timeout_ms: Some(ms),
                expect,
                ..Step::new(
                    self.unique_id(&format!("wait-{what}")),
                    m.action,
                    m.transaction,
                )
            },
            flags,
            ..RecordedStep::default()
        };
        self.push(step)
    }

    /// Records an explicit observation (a snapshot of the window).
    pub fn record_observe(&mut self) -> usize {
        let m = Mapping::new(Action::Observe);
        let step = RecordedStep {
            step: Step {
                timeout_ms: Some(DEFAULT_TIMEOUT_MS),
                ..Step::new(self.unique_id("observe"), m.action, m.transaction)
            },
            ..RecordedStep::default()
        };
        self.push(step)
    }

    /// Records a change the user made in the app, seen through accessibility events: `snap` is
    /// a fresh snapshot (after the change) and `row` the element. Returns the index of the
    /// step recorded or updated, or `None` when there is nothing to record: the element holds
    /// no recordable value (a mixed check box, a deselected row), or the change is the echo of
    /// a step just recorded for the same element (a write made through treeglass).
    ///
    /// Bursts coalesce: when the last step is an observed text entry into the same element,
    /// it is updated to the final text instead of adding a step.
    pub fn record_observed(&mut self, snap: &Snapshot, row: usize) -> Option<usize> {
        let node = snap.get(row)?;
        let secret = node.is_secret();
        let raw = state_value(node)?;
        let mapped = map_write(node, &raw);
        // Choosing one radio button unchecks another: a side effect, not a step.
        if mapped.action == Action::Uncheck
            && matches!(node.role, Role::RadioButton | Role::RadioMenuItem)
        {
            return None;
        }
        // The last step for this element: an echo of our own write, or a burst to coalesce.
        if let Some(last) = self
            .steps
            .iter()
            .rposition(|s| s.node.as_ref() == Some(&node.id))
        {
            let prev = &self.steps[last];
            let same = prev.step.action == mapped.action
                && (secret && prev.step.action == Action::Type
                    || prev.step.text == mapped.text && prev.step.value == mapped.value);
            if same {
                return None;
            }
            let is_last = last + 1 == self.steps.len();
            let text_entry = matches!(prev.step.action, Action::Type | Action::Clear)
                && matches!(mapped.action, Action::Type | Action::Clear);
            if is_last && prev.observed && text_entry {
                self.drop_step(last);
            }
        }
        let rec = Record {
            snap,
            row,
            given: None,
            observed: true,
            result: None,
        };
        Some(self.record_value(&rec, node, &raw, secret))
    }

    /// The recording file's content.
    pub fn to_recording(&self) -> Recording {
        Recording {
            treeglass_recording: RECORDING_VERSION,
            name: self.name.clone(),
            app: self.app.clone(),
            window: self.window.clone(),
            inputs: self.inputs.clone(),
            steps: self.steps.clone(),
        }
    }

    /// A recorder continuing a recording file's content.
    pub fn from_recording(r: Recording) -> Recorder {
        Recorder {
            name: r.name,
            app: r.app,
            window: r.window,
            steps: r.steps,
            inputs: r.inputs,
        }
    }

    /// Loads a recording file.
    pub fn load(path: &Path) -> Result<Recorder, RecordError> {
        let shown = crate::files::shown(path);
        let bytes = crate::files::read_capped(path, MAX_RECORDING_BYTES).map_err(|e| match e {
            e @ crate::files::FileError::TooBig { .. } => RecordError::TooBig(e),
            e => RecordError::File(e),
        })?;
        let parse = |e: serde_json::Error| RecordError::Parse {
            path: shown.clone(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        let v = crate::json::parse_strict(&bytes).map_err(|e| match e {
            crate::json::ParseError::Syntax(e) => parse(e),
            crate::json::ParseError::DuplicateKey {
                pointer,
                key,
                line,
                column,
            } => RecordError::Parse {
                path: shown.clone(),
                line,
                column,
                message: format!(
                    "the key {} appears twice at {pointer}",
                    crate::model::quoted(&key, 60)
                ),
            },
        })?;
        match v.get("treeglassRecording").and_then(|v| v.as_u64()) {
            Some(n) if n == u64::from(RECORDING_VERSION) => {}
            Some(n) => {
                return Err(RecordError::Version {
                    path: shown,
                    found: n.min(u64::from(u32::MAX)) as u32,
                });
            }
            None => {
                return Err(RecordError::Parse {
                    path: shown,
                    line: 1,
                    column: 1,
                    message: "no \"treeglassRecording\" version field".into(),
                });
            }
        }
        let rec: Recording = serde_json::from_value(v).map_err(parse)?;
        Ok(Recorder::from_recording(rec))
    }

    /// Loads `path` when it exists, else starts a new recording named after the file.
    pub fn load_or_new(path: &Path) -> Result<Recorder, RecordError> {
        if path.exists() {
            Recorder::load(path)
        } else {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "recording".into());
            Ok(Recorder::new(name))
        }
    }

    /// Saves the recording atomically (see [`crate::files::write_atomic`]).
    pub fn save(&self, path: &Path) -> Result<(), RecordError> {
        let text = crate::json::to_string(&self.to_recording()) + "\n";
        crate::files::write_atomic(path, text.as_bytes(), crate::files::Existing::Replace)
            .map_err(RecordError::File)
    }
}
