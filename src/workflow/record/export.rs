//! Export: a recording becomes a workflow-v1 document — the steps chosen, inputs declared,
//! budgets derived from the steps' timeouts, a terminal condition — validated against the
//! schema and the semantic checks before anything is written.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::mapping::contains_text;
use super::{RUN_ALLOWANCE_MS, RecordedStep, Recorder, WRITE_ALLOWANCE_MS};
use crate::workflow::format::*;
use crate::workflow::schema::Issue;
use crate::workflow::validate;

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

impl Recorder {
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
