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

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::format::*;
use super::schema::Issue;
use super::validate;
use crate::model::{AppText, Node, NodeId, Role, Snapshot, State, Toggle, Value, format_number};
use crate::selector::{
    Grade, Query, Resolution, RoleSpec, SnapshotIndex, StateReq, Target, matches, resolve, suggest,
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

/// Why a recording could not become a workflow file.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ExportError {
    #[error("nothing to export: the recording has no steps{}", if *.0 > 0 { format!(" left ({} flagged steps were skipped)", .0) } else { String::new() })]
    Empty(usize),
    #[error(
        "the recording has {count} steps; a workflow file holds at most {MAX_STEPS} — drop steps \
         (or split the recording) before exporting"
    )]
    TooManySteps { count: usize },
    #[error("the exported workflow would be invalid:\n{}", issues(.0))]
    Invalid(Vec<Issue>),
    #[error("{0}")]
    Io(String),
}

fn issues(v: &[Issue]) -> String {
    v.iter()
        .map(|i| format!("  {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How to export a recording.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The workflow's name (default: the recording's).
    pub name: Option<String>,
    pub description: Option<String>,
    pub workflow_version: String,
    /// Leave flagged steps out instead of exporting them as they are.
    pub skip_flagged: bool,
    /// `budgets.maxRetries`.
    pub max_retries: u32,
    /// Replaces the derived terminal condition.
    pub terminal: Option<Predicate>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            name: None,
            description: None,
            workflow_version: "1".into(),
            skip_flagged: false,
            max_retries: 2,
            terminal: None,
        }
    }
}

/// The action, `text`/`value` and expectation a write maps to (before secrets are handled).
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    pub action: Action,
    pub transaction: Transaction,
    pub text: Option<String>,
    pub value: Option<String>,
    /// Why the mapping is doubtful (the value does not fit the role).
    pub problem: Option<String>,
}

impl Mapping {
    fn new(action: Action) -> Mapping {
        Mapping {
            action,
            transaction: match action {
                Action::Click => Transaction::NonIdempotent,
                Action::Wait | Action::Observe => Transaction::ReadOnly,
                _ => Transaction::Idempotent,
            },
            text: None,
            value: None,
            problem: None,
        }
    }
}

/// The mapping table of the contract (semantics §5) for a value written into `node`.
pub fn map_write(node: &Node, raw: &str) -> Mapping {
    let role = node.role;
    if role.is_numeric() {
        let mut m = Mapping::new(Action::Type);
        match raw.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => m.text = Some(format_number(v)),
            _ => {
                m.text = Some(raw.trim().to_string());
                m.problem = Some(format!("a {role} takes a number"));
            }
        }
        return m;
    }
    if node.takes_text() {
        if raw.is_empty() {
            return Mapping::new(Action::Clear);
        }
        let mut m = Mapping::new(Action::Type);
        m.text = Some(raw.to_string());
        return m;
    }
    let boolean = crate::write::rules::parse_bool(raw);
    if role.is_toggle() || role == Role::Expander {
        return match boolean {
            Some(true) => Mapping::new(Action::Check),
            Some(false) => Mapping::new(Action::Uncheck),
            None => {
                let mut m = Mapping::new(Action::Check);
                m.problem = Some(format!("a {role} takes true or false"));
                m
            }
        };
    }
    if role.is_choice() {
        let mut m = Mapping::new(Action::Select);
        m.value = Some(raw.trim().to_string());
        if raw.trim().is_empty() {
            m.problem = Some("no option label".into());
            m.value = None;
        }
        return m;
    }
    if role.is_selectable_item() {
        let mut m = Mapping::new(Action::Select);
        if boolean != Some(true) {
            m.problem = Some(format!("a {role} is selected by writing true"));
        }
        return m;
    }
    let mut m = Mapping::new(Action::Type);
    m.text = Some(raw.to_string());
    m.problem = Some(format!("a {role} does not take a value"));
    m
}

/// The action `invoke` presses when none is named (the write engine's order).
pub fn default_action(node: &Node) -> Option<AppText> {
    ["click", "press", "activate", "toggle", "select", "expand"]
        .iter()
        .find_map(|p| {
            node.actions
                .iter()
                .find(|a| a.as_str().eq_ignore_ascii_case(p))
        })
        .or_else(|| node.actions.first())
        .cloned()
}

/// `lower-case-words` of `s` joined by `sep`, at most 48 characters; empty when `s` has no
/// letters or digits. The one slug: step ids, input names and exported file names.
pub fn slug(s: &str, sep: char) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with(sep) {
            out.push(sep);
        }
        if out.chars().count() >= 48 {
            break;
        }
    }
    out.trim_end_matches(sep).to_string()
}

/// The readable part of a step id: the element's name, unless the name is only its current
/// value (a combo box named after its option), then its description, else its role.
fn id_label(node: &Node) -> String {
    let value = node.value.as_ref().and_then(Value::as_text);
    let name_is_value = value.is_some_and(|v| v.as_str().trim() == node.name.as_str().trim());
    [
        (!name_is_value).then_some(node.name.as_str()),
        Some(node.description.as_str()),
    ]
    .into_iter()
    .flatten()
    .map(|s| slug(s, '-'))
    .find(|s| !s.is_empty())
    .unwrap_or_else(|| slug(node.role.as_str(), '-'))
}

/// A target with one state required (or forbidden) on its element clause, replacing any
/// requirement on that state it had.
fn with_state(t: &Target, req: StateReq) -> Option<Target> {
    let mut states: Vec<StateReq> = t
        .states()
        .iter()
        .copied()
        .filter(|s| s.state != req.state)
        .collect();
    states.push(req);
    // A state narrows what a position counts: `#2` among checked ones is another element.
    if t.nth().is_some() {
        return None;
    }
    let out = t
        .with_parts(crate::selector::Parts {
            states,
            ..t.parts()
        })
        .ok()?;
    (out.to_string().chars().count() <= crate::selector::MAX_TARGET_CHARS).then_some(out)
}

/// The first line of `s`, trimmed, at most 1024 characters: a `textContains` that holds
/// wherever `s` is shown.
fn contains_text(s: &str) -> Option<String> {
    let line = s.trim().lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(MAX_PREDICATE_CHARS).collect();
    (!cut.is_empty()).then_some(cut)
}

/// The expectation a step's effect satisfies (see the module doc).
fn expect_for(
    action: Action,
    target: Option<&Target>,
    node: Option<&Node>,
    text: Option<&str>,
    value: Option<&str>,
    secret: bool,
) -> Option<Predicate> {
    let target = target?;
    let visible = || Some(Predicate::Visible(target.to_string()));
    let role = node.map(|n| n.role);
    let stateful = |state: State, present: bool| {
        with_state(target, StateReq { state, present })
            .map(|t| Predicate::Visible(t.to_string()))
            .or_else(visible)
    };
    match action {
        Action::Type if secret => visible(),
        Action::Type => text.and_then(contains_text).map(Predicate::TextContains),
        Action::Clear | Action::Wait => visible(),
        Action::Check | Action::Uncheck => {
            let on = action == Action::Check;
            let state = match node {
                Some(n) if n.role == Role::Expander => State::Expanded,
                // A toolkit that marks "on" with `pressed` and not `checked` (seen only while on).
                Some(n) if n.states.has(State::Pressed) && !n.states.has(State::Checked) => {
                    State::Pressed
                }
                _ => State::Checked,
            };
            stateful(state, on)
        }
        Action::Select if role.is_some_and(Role::is_choice) => value
            .and_then(contains_text)
            .map(Predicate::TextContains)
            .or_else(visible),
        Action::Select => stateful(State::Selected, true),
        _ => None,
    }
}

/// The value that brings `node` to the state it is in now through `set` (what an observed change
/// records), or `None` when it holds nothing recordable: a mixed check box, a deselected row, an
/// element with no value. A sensitive field's text is never read: a non-empty one answers a
/// placeholder that the step replaces with an input reference.
fn state_value(node: &Node) -> Option<String> {
    let secret = node.is_secret();
    let raw = match (&node.value, node.role) {
        (Some(Value::Text { text }), _) if secret => {
            if text.is_empty() {
                String::new()
            } else {
                // Never read: the step refers to an input.
                "\u{1}".into()
            }
        }
        // The app's text becomes the step's value: workflow data, escaped wherever it is shown.
        (Some(Value::Text { text }), _) => text.as_str().to_string(),
        (Some(Value::Number { current, .. }), _) => format_number(*current),
        (
            Some(Value::Toggle {
                state: Toggle::Mixed,
            }),
            _,
        ) => return None,
        (Some(Value::Toggle { state }), _) => (*state == Toggle::On).to_string(),
        (Some(Value::Choice { selected }), _) => selected.as_ref()?.as_str().to_string(),
        (None, r) if r.is_selectable_item() => {
            if !node.states.has(State::Selected) {
                return None;
            }
            "true".into()
        }
        (None, Role::Expander) => node.states.has(State::Expanded).to_string(),
        (None, r) if r.is_toggle() => {
            (node.states.has(State::Checked) || node.states.has(State::Pressed)).to_string()
        }
        _ => return None,
    };
    Some(raw)
}

/// Whether a suggested target survives a change of the element's value.
enum Stability {
    Stable,
    /// The suggestion named the element by its value; this one does not and is unique.
    Replaced(Target),
    /// It names the element by its value (shown) and nothing better is unique.
    ValueNamed(AppText),
}

/// Toolkits often name a combo box after its selected option (GTK does unless the app sets a
/// name), so `combo-box "Red"` stops resolving once Blue is chosen. When the suggestion's query
/// is the element's current value, a target by description, by role alone, or by role inside
/// the parent's suggestion is preferred if it is unique.
fn stable_alternative(snap: &Snapshot, row: usize, t: &Target) -> Stability {
    let Some(node) = snap.get(row) else {
        return Stability::Stable;
    };
    let Some(value) = node.value.as_ref().and_then(Value::as_text) else {
        return Stability::Stable;
    };
    let value_named = t.query().is_some_and(|q| {
        !value.as_str().trim().is_empty() && q.text().trim() == value.as_str().trim()
    });
    if !value_named {
        return Stability::Stable;
    }
    let role = Some(RoleSpec::Role(node.role));
    let mut tries: Vec<Target> = Vec::new();
    let desc = node.description.as_str().trim();
    if !desc.is_empty()
        && desc != value.as_str().trim()
        && let Ok(q) = Query::tiered(desc)
    {
        tries.extend(Target::new(role.clone(), Some(q), Vec::new()).ok());
    }
    tries.extend(Target::new(role.clone(), None, Vec::new()).ok());
    if let Some(outer) = node.parent.and_then(|p| suggest(snap, p)) {
        for base in tries.clone() {
            tries.extend(base.inside(outer.clone()).ok());
        }
    }
    let unique_here =
        |c: &Target| matches!(resolve(snap, c), Resolution::Unique { row: r, .. } if r == row);
    match tries.into_iter().find(|c| {
        c.to_string().chars().count() <= crate::selector::MAX_TARGET_CHARS && unique_here(c)
    }) {
        Some(alt) => Stability::Replaced(alt),
        None => Stability::ValueNamed(value),
    }
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

    /// The steps that an export with `opts` would write.
    fn chosen(&self, opts: &ExportOptions) -> Vec<&RecordedStep> {
        self.steps
            .iter()
            .filter(|s| !(opts.skip_flagged && s.flagged))
            .collect()
    }

    /// The workflow this recording exports to, validated against the schema and the semantic
    /// checks; see [`Recorder::export`].
    pub fn export_workflow(&self, opts: &ExportOptions) -> Result<Workflow, ExportError> {
        let chosen = self.chosen(opts);
        if chosen.is_empty() {
            return Err(ExportError::Empty(self.steps.len()));
        }
        if chosen.len() > MAX_STEPS {
            return Err(ExportError::TooManySteps {
                count: chosen.len(),
            });
        }
        let steps: Vec<Step> = chosen.iter().map(|s| s.to_step()).collect();
        let used: HashSet<&str> = steps
            .iter()
            .flat_map(|s| [s.text.as_deref(), s.value.as_deref()])
            .flatten()
            .filter_map(|t| validate::input_refs(t).ok())
            .flatten()
            .collect();
        let inputs: BTreeMap<String, Input> = self
            .inputs
            .iter()
            .filter(|(k, _)| used.contains(k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let duration: u64 = steps
            .iter()
            .map(|s| s.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS) + WRITE_ALLOWANCE_MS)
            .sum::<u64>()
            + RUN_ALLOWANCE_MS;
        let budgets = Budgets {
            max_steps: steps.len() as u32,
            max_duration_ms: duration.clamp(1, MAX_DURATION_MS),
            max_retries: opts.max_retries.min(MAX_RETRIES),
            max_extracted_bytes: 65_536,
        };
        let terminal = opts
            .terminal
            .clone()
            .unwrap_or_else(|| self.derived_terminal(&steps));
        let observed = chosen.iter().filter(|s| s.observed).count();
        let description = opts.description.clone().unwrap_or_else(|| {
            let place = match (self.app.is_empty(), self.window.is_empty()) {
                (false, false) => format!(" from {:?} / {:?}", self.app, self.window),
                (false, true) => format!(" from {:?}", self.app),
                _ => String::new(),
            };
            format!(
                "Recorded with treeglass{place}: {} steps{}.",
                steps.len(),
                if observed > 0 {
                    format!(" ({observed} observed in the app)")
                } else {
                    String::new()
                }
            )
        });
        let name = opts
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| self.name.clone());
        let name = if name.trim().is_empty() {
            "recording".to_string()
        } else {
            name.chars().take(128).collect()
        };
        let mut outputs = BTreeMap::new();
        outputs.insert(
            "title".to_string(),
            Output {
                value_type: None,
                type_: Some(ValueType::String),
                source: OutputSource::PageTitle,
                required: None,
                sensitive: None,
            },
        );
        let wf = Workflow {
            schema_version: SCHEMA_VERSION,
            name,
            workflow_version: opts.workflow_version.chars().take(128).collect(),
            description: Some(description.chars().take(4096).collect()),
            inputs,
            budgets,
            preconditions: None,
            steps,
            terminal_condition: terminal,
            outputs,
        };
        let doc = serde_json::to_value(&wf)
            .map_err(|e| ExportError::Invalid(vec![Issue::new("", "schema", e.to_string())]))?;
        let v = validate::validate_value(&doc);
        if !v.errors.is_empty() {
            return Err(ExportError::Invalid(v.errors));
        }
        Ok(wf)
    }

    /// The workflow file's JSON: validated against the embedded schema (and the semantic
    /// checks) before it is returned, so an invalid file is never written. Refuses an empty
    /// recording and more than 64 steps.
    pub fn export(&self, opts: &ExportOptions) -> Result<serde_json::Value, ExportError> {
        let wf = self.export_workflow(opts)?;
        serde_json::to_value(&wf)
            .map_err(|e| ExportError::Invalid(vec![Issue::new("", "schema", e.to_string())]))
    }

    /// Exports and writes the workflow file atomically (pretty JSON, fields in schema order);
    /// nothing is written when the export is refused. For the TUI's `w`.
    pub fn export_to(
        &self,
        path: &Path,
        opts: &ExportOptions,
        existing: crate::files::Existing,
    ) -> Result<Workflow, ExportError> {
        let wf = self.export_workflow(opts)?;
        let text = crate::json::to_string(&wf) + "\n";
        crate::files::write_atomic(path, text.as_bytes(), existing)
            .map_err(|e| ExportError::Io(e.to_string()))?;
        Ok(wf)
    }

    /// Step `i` as it would appear in a workflow file (for copying one step).
    pub fn step_json(&self, i: usize) -> Option<serde_json::Value> {
        self.steps
            .get(i)
            .and_then(|s| serde_json::to_value(s.to_step()).ok())
    }

    /// The window title, and the last step's expectation: both hold when the run is done.
    fn derived_terminal(&self, steps: &[Step]) -> Predicate {
        let mut parts = Vec::new();
        if let Some(t) = contains_text(self.window.as_str()) {
            parts.push(Predicate::TitleContains(t));
        }
        if let Some(e) = steps.last().and_then(|s| s.expect.clone()) {
            parts.push(e);
        }
        match parts.len() {
            0 => Predicate::Not(Box::new(Predicate::DialogOpen(true))),
            1 => parts.remove(0),
            _ => Predicate::All(parts),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::{NodeId, States};

    fn node(role: Role, name: &str, states: &[State]) -> Node {
        let mut n = Node::new(NodeId("x".into()), role, "x");
        n.name = name.into();
        n.states = states.iter().copied().collect::<States>();
        n
    }

    #[test]
    fn mapping_table() {
        let text = node(Role::Text, "Full name", &[State::Editable]);
        let m = map_write(&text, "Ada");
        assert_eq!(
            (m.action, m.transaction),
            (Action::Type, Transaction::Idempotent)
        );
        assert_eq!(m.text.as_deref(), Some("Ada"));
        assert_eq!(map_write(&text, "").action, Action::Clear);
        let spin = node(Role::SpinButton, "Quantity", &[]);
        assert_eq!(map_write(&spin, " 42.0 ").text.as_deref(), Some("42"));
        assert!(map_write(&spin, "many").problem.is_some());
        let cb = node(Role::CheckBox, "Subscribe", &[]);
        assert_eq!(map_write(&cb, "on").action, Action::Check);
        assert_eq!(map_write(&cb, "0").action, Action::Uncheck);
        assert!(map_write(&cb, "maybe").problem.is_some());
        let combo = node(Role::ComboBox, "Colour", &[]);
        let m = map_write(&combo, "Blue");
        assert_eq!(
            (m.action, m.value.as_deref()),
            (Action::Select, Some("Blue"))
        );
        let tab = node(Role::Tab, "Advanced", &[]);
        let m = map_write(&tab, "true");
        assert_eq!((m.action, m.value.as_deref()), (Action::Select, None));
        let exp = node(Role::Expander, "More", &[]);
        assert_eq!(map_write(&exp, "false").action, Action::Uncheck);
        assert_eq!(
            Mapping::new(Action::Click).transaction,
            Transaction::NonIdempotent
        );
        assert_eq!(
            Mapping::new(Action::Wait).transaction,
            Transaction::ReadOnly
        );
        assert_eq!(
            Mapping::new(Action::Observe).transaction,
            Transaction::ReadOnly
        );
    }

    #[test]
    fn slugs_and_ids() {
        assert_eq!(slug("Full name", '-'), "full-name");
        assert_eq!(slug("  Über—Größe!! ", '-'), "über-größe");
        assert_eq!(slug("***", '-'), "");
        let mut r = Recorder::new("t");
        let a = r.record_observe();
        let b = r.record_observe();
        assert_eq!(r.steps()[a].step.id, "observe");
        assert_eq!(r.steps()[b].step.id, "observe-2");
    }

    #[test]
    fn state_targets() {
        let t = Target::parse("check-box \"Sub\" [!checked] in group \"G\"").unwrap();
        let on = with_state(&t, StateReq::must(State::Checked)).unwrap();
        assert_eq!(on.to_string(), "check-box \"Sub\" [checked] in group \"G\"");
    }
}
