//! The workflow file format (schemaVersion 1) as typed data: what `workflow-v1.schema.json`
//! allows, field for field, so exported files serialise in a readable order and the runner reads
//! them without poking at raw JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The only schema version this build reads and writes.
pub const SCHEMA_VERSION: u64 = 1;
/// The schema's limit on steps.
pub const MAX_STEPS: usize = 64;
/// The schema's limit on `budgets.maxDurationMs` and `timeoutMs`.
pub const MAX_DURATION_MS: u64 = 900_000;
/// The schema's limit on `budgets.maxRetries` and a step's `maxRetries`.
pub const MAX_RETRIES: u32 = 8;
/// The schema's limit on `budgets.maxExtractedBytes`.
pub const MAX_EXTRACTED_BYTES: u64 = 4_194_304;
/// A step's timeout when it gives none (the command line's resolution default too).
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// The schema's limit on predicate strings (`visible`, `titleContains`, `textContains`).
pub const MAX_PREDICATE_CHARS: usize = 1024;

/// A whole workflow file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Workflow {
    pub schema_version: u64,
    pub name: String,
    pub workflow_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub inputs: BTreeMap<String, Input>,
    pub budgets: Budgets,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preconditions: Option<Vec<Predicate>>,
    pub steps: Vec<Step>,
    pub terminal_condition: Predicate,
    pub outputs: BTreeMap<String, Output>,
}

/// The scalar types of inputs and outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    String,
    Integer,
    Number,
    Boolean,
    Url,
}

impl ValueType {
    pub fn as_str(self) -> &'static str {
        match self {
            ValueType::String => "string",
            ValueType::Integer => "integer",
            ValueType::Number => "number",
            ValueType::Boolean => "boolean",
            ValueType::Url => "url",
        }
    }

    /// Whether `v` is a value of this type (as given on the command line).
    pub fn accepts(self, v: &str) -> bool {
        match self {
            ValueType::String => true,
            ValueType::Integer => v.trim().parse::<i64>().is_ok(),
            ValueType::Number => v.trim().parse::<f64>().is_ok_and(f64::is_finite),
            ValueType::Boolean => crate::write::rules::parse_bool(v).is_some(),
            ValueType::Url => v.contains("://"),
        }
    }
}

/// A declared input, referenced from steps as `${inputs.NAME}`. The schema takes the type as
/// either `valueType` or `type` (exactly one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_type: Option<ValueType>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<ValueType>,
    /// Defaults to true (the schema's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive: Option<bool>,
}

impl Input {
    /// A required string input; `sensitive` ones are never stored or echoed.
    pub fn string(sensitive: bool) -> Input {
        Input {
            value_type: None,
            type_: Some(ValueType::String),
            required: Some(true),
            max_length: None,
            sensitive: sensitive.then_some(true),
        }
    }

    pub fn kind(&self) -> ValueType {
        self.type_.or(self.value_type).unwrap_or(ValueType::String)
    }

    pub fn is_required(&self) -> bool {
        self.required.unwrap_or(true)
    }

    pub fn is_sensitive(&self) -> bool {
        self.sensitive.unwrap_or(false)
    }
}

/// Limits a run must stay within.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Budgets {
    /// Step executions (a step with `repeat: 3` counts three).
    pub max_steps: u32,
    /// Deadline for the whole run, from its start.
    pub max_duration_ms: u64,
    /// Retries over the whole run (only after failures where nothing was sent).
    pub max_retries: u32,
    /// Bytes of extracted outputs.
    pub max_extracted_bytes: u64,
}

/// A step's transaction kind: what replaying it twice would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transaction {
    ReadOnly,
    Idempotent,
    ConditionallyIdempotent,
    NonIdempotent,
    Unknown,
}

impl Transaction {
    pub fn as_str(self) -> &'static str {
        match self {
            Transaction::ReadOnly => "read_only",
            Transaction::Idempotent => "idempotent",
            Transaction::ConditionallyIdempotent => "conditionally_idempotent",
            Transaction::NonIdempotent => "non_idempotent",
            Transaction::Unknown => "unknown",
        }
    }
}

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    Navigate,
    Click,
    Type,
    Check,
    Uncheck,
    Select,
    Clear,
    Scroll,
    Wait,
    Observe,
    Screenshot,
    AcceptDialog,
    DismissDialog,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Navigate => "navigate",
            Action::Click => "click",
            Action::Type => "type",
            Action::Check => "check",
            Action::Uncheck => "uncheck",
            Action::Select => "select",
            Action::Clear => "clear",
            Action::Scroll => "scroll",
            Action::Wait => "wait",
            Action::Observe => "observe",
            Action::Screenshot => "screenshot",
            Action::AcceptDialog => "acceptDialog",
            Action::DismissDialog => "dismissDialog",
        }
    }

    /// Whether a desktop run can perform this action. The others belong to browsers
    /// (`navigate`, `scroll`, `screenshot`) or need dialog semantics the tree does not give.
    pub fn desktop_supported(self) -> bool {
        matches!(
            self,
            Action::Click
                | Action::Type
                | Action::Check
                | Action::Uncheck
                | Action::Select
                | Action::Clear
                | Action::Wait
                | Action::Observe
        )
    }

    /// Whether the action needs a `target`.
    pub fn needs_target(self) -> bool {
        matches!(
            self,
            Action::Click
                | Action::Type
                | Action::Check
                | Action::Uncheck
                | Action::Select
                | Action::Clear
                | Action::Wait
        )
    }
}

/// One step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub id: String,
    pub action: Action,
    pub transaction: Transaction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Predicate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Predicate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_retry: Option<Predicate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dx: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dy: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_dom: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_screenshot: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_form_values: Option<bool>,
}

impl Step {
    /// A step with only the required fields.
    pub fn new(id: impl Into<String>, action: Action, transaction: Transaction) -> Step {
        Step {
            id: id.into(),
            action,
            transaction,
            target: None,
            text: None,
            value: None,
            condition: None,
            timeout_ms: None,
            when: None,
            expect: None,
            before_retry: None,
            idempotency_key: None,
            max_retries: None,
            repeat: None,
            url: None,
            dx: None,
            dy: None,
            include_dom: None,
            include_screenshot: None,
            include_form_values: None,
        }
    }

    /// How many times the step runs.
    pub fn repeats(&self) -> u32 {
        self.repeat.unwrap_or(1).max(1)
    }
}

/// A condition on the app's state. On the desktop: `visible` (a target resolves to exactly one
/// element of a fresh snapshot), `titleContains` (a window title), `textContains` (a node's
/// name or value text in the window), `dialogOpen` (a dialog or alert is open), and
/// `all`/`any`/`not`. The browser predicates are kept so files round-trip, but a desktop run
/// answers them with "unsupported on desktop".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Predicate {
    UrlEquals(String),
    TitleContains(String),
    Visible(String),
    TextContains(String),
    PopupOpened(bool),
    DialogOpen(bool),
    DownloadStarted(bool),
    RevisionEquals(u64),
    All(Vec<Predicate>),
    Any(Vec<Predicate>),
    Not(Box<Predicate>),
}

impl Predicate {
    /// The predicate's key (`visible`, `all`, …).
    pub fn key(&self) -> &'static str {
        match self {
            Predicate::UrlEquals(_) => "urlEquals",
            Predicate::TitleContains(_) => "titleContains",
            Predicate::Visible(_) => "visible",
            Predicate::TextContains(_) => "textContains",
            Predicate::PopupOpened(_) => "popupOpened",
            Predicate::DialogOpen(_) => "dialogOpen",
            Predicate::DownloadStarted(_) => "downloadStarted",
            Predicate::RevisionEquals(_) => "revisionEquals",
            Predicate::All(_) => "all",
            Predicate::Any(_) => "any",
            Predicate::Not(_) => "not",
        }
    }

    /// Visits this predicate and every nested one with its JSON pointer below `at`.
    pub fn walk<'a>(&'a self, at: &str, f: &mut dyn FnMut(&'a Predicate, &str)) {
        f(self, at);
        match self {
            Predicate::All(ps) | Predicate::Any(ps) => {
                for (i, p) in ps.iter().enumerate() {
                    p.walk(&format!("{at}/{}/{i}", self.key()), f);
                }
            }
            Predicate::Not(p) => p.walk(&format!("{at}/not"), f),
            _ => {}
        }
    }

    /// A readable one-line form for reports: `visible check-box "Subscribe" [checked]`.
    pub fn describe(&self) -> String {
        match self {
            Predicate::UrlEquals(s)
            | Predicate::TitleContains(s)
            | Predicate::Visible(s)
            | Predicate::TextContains(s) => {
                format!("{} {}", self.key(), crate::model::sanitize(s, 120))
            }
            Predicate::PopupOpened(b)
            | Predicate::DialogOpen(b)
            | Predicate::DownloadStarted(b) => {
                format!("{} {b}", self.key())
            }
            Predicate::RevisionEquals(n) => format!("revisionEquals {n}"),
            Predicate::All(ps) | Predicate::Any(ps) => format!(
                "{}({})",
                self.key(),
                ps.iter()
                    .map(|p| p.describe())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Predicate::Not(p) => format!("not({})", p.describe()),
        }
    }
}

/// Where an output's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputSource {
    /// Browser only; a desktop run reports it unsupported.
    PageUrl,
    /// The window title.
    PageTitle,
    /// The window's text: node names and values, one per line, secrets left out.
    VisibleText,
}

/// A value extracted at the end of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_type: Option<ValueType>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<ValueType>,
    pub source: OutputSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensitive: Option<bool>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn predicates_use_the_schema_keys() {
        let p: Predicate =
            serde_json::from_str(r#"{"all":[{"visible":"button"},{"not":{"dialogOpen":true}}]}"#)
                .unwrap();
        assert_eq!(
            p,
            Predicate::All(vec![
                Predicate::Visible("button".into()),
                Predicate::Not(Box::new(Predicate::DialogOpen(true)))
            ])
        );
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"all":[{"visible":"button"},{"not":{"dialogOpen":true}}]}"#
        );
        let mut seen = Vec::new();
        p.walk("/expect", &mut |q, at| seen.push((q.key(), at.to_string())));
        assert_eq!(
            seen,
            [
                ("all", "/expect".to_string()),
                ("visible", "/expect/all/0".to_string()),
                ("not", "/expect/all/1".to_string()),
                ("dialogOpen", "/expect/all/1/not".to_string()),
            ]
        );
    }

    #[test]
    fn actions_and_transactions_spell_like_the_schema() {
        assert_eq!(
            serde_json::to_value(Action::AcceptDialog).unwrap(),
            "acceptDialog"
        );
        assert_eq!(
            serde_json::to_value(Transaction::NonIdempotent).unwrap(),
            "non_idempotent"
        );
        assert_eq!(
            serde_json::to_value(OutputSource::PageTitle).unwrap(),
            "page_title"
        );
    }
}
