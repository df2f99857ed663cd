//! The embedded workflow-v1 JSON Schema and validation against it, with every error located by
//! a JSON pointer. Messages never quote the offending value (it may be a secret or megabytes
//! long); the pointer says where it is.

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;

/// The schema text, a verbatim copy of the published `workflow-v1.schema.json`.
pub const SCHEMA_TEXT: &str = include_str!("../../assets/workflow-v1.schema.json");

/// At most this many schema errors are listed (a broken file can produce thousands).
pub const MAX_SCHEMA_ERRORS: usize = 50;

/// One problem in a workflow file, at a JSON pointer (`""` is the whole document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// RFC 6901 pointer into the document.
    pub pointer: String,
    /// `size`, `json`, `duplicate_key`, `schema_version`, `schema`, `target`, `input`, `sensitive`, `budget`,
    /// `step`, `unsupported`.
    pub kind: &'static str,
    pub message: String,
    /// Where in the schema the rule lives (schema errors only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_path: Option<String>,
    /// Line and column (1-based) for JSON syntax errors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Issue {
    pub fn new(
        pointer: impl Into<String>,
        kind: &'static str,
        message: impl Into<String>,
    ) -> Issue {
        Issue {
            pointer: pointer.into(),
            kind,
            message: message.into(),
            schema_path: None,
            line: None,
            column: None,
        }
    }
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            _ if self.pointer.is_empty() => write!(f, "(document): {}", self.message),
            _ => write!(f, "{}: {}", self.pointer, self.message),
        }
    }
}

/// The parsed schema (parsing the embedded text is checked by a unit test).
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(SCHEMA_TEXT).unwrap_or(Value::Bool(false)))
}

fn validator() -> Result<&'static jsonschema::Validator, String> {
    static VALIDATOR: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| jsonschema::draft202012::new(schema()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

/// Extra words for the errors whose generic message says little (`oneOf` failures).
fn hint(schema_path: &str, pointer: &str) -> Option<&'static str> {
    if !schema_path.ends_with("/oneOf") {
        return None;
    }
    let parts: Vec<&str> = pointer.split('/').skip(1).collect();
    if matches!(parts.as_slice(), ["inputs" | "outputs", _]) {
        Some("give exactly one of `type` and `valueType`")
    } else {
        Some(
            "a predicate has exactly one key: urlEquals, titleContains, visible, textContains \
             (strings of 1–1024 characters), popupOpened, dialogOpen, downloadStarted (booleans), \
             revisionEquals (integer ≥ 0), all/any (1–8 predicates) or not (a predicate)",
        )
    }
}

/// Every schema violation of `doc`, in document order, at most [`MAX_SCHEMA_ERRORS`] (a last
/// issue says how many more there were).
pub fn check(doc: &Value) -> Vec<Issue> {
    let v = match validator() {
        Ok(v) => v,
        Err(e) => {
            return vec![Issue::new(
                "",
                "schema",
                format!("the embedded schema does not compile: {e}"),
            )];
        }
    };
    let mut issues: Vec<Issue> = Vec::new();
    let mut more = 0usize;
    for e in v.iter_errors(doc) {
        if issues.len() >= MAX_SCHEMA_ERRORS {
            more += 1;
            continue;
        }
        let schema_path = e.schema_path.as_str().to_string();
        let pointer = e.instance_path.as_str().to_string();
        let mut message = e.masked_with("the value").to_string();
        if let Some(h) = hint(&schema_path, &pointer) {
            message = format!("{message} — {h}");
        }
        let issue = Issue {
            pointer,
            kind: "schema",
            message,
            schema_path: Some(schema_path),
            line: None,
            column: None,
        };
        if !issues.contains(&issue) {
            issues.push(issue);
        }
    }
    issues.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    if more > 0 {
        issues.push(Issue::new(
            "",
            "schema",
            format!("… and {more} more schema errors"),
        ));
    }
    issues
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn embedded_schema_parses_and_compiles() {
        assert!(schema().is_object());
        assert!(validator().is_ok());
    }

    #[test]
    fn errors_carry_pointers_and_no_values() {
        let doc = json!({
            "schemaVersion": 1, "name": "x", "workflowVersion": "1", "inputs": {},
            "budgets": {"maxSteps": 1, "maxDurationMs": 1, "maxRetries": 0, "maxExtractedBytes": 1},
            "steps": [{"id": "a", "action": "type", "transaction": "idempotent",
                       "target": "s".repeat(2000)}],
            "terminalCondition": {"visible": "button", "dialogOpen": true},
            "outputs": {}
        });
        let issues = check(&doc);
        let ptrs: Vec<&str> = issues.iter().map(|i| i.pointer.as_str()).collect();
        assert!(ptrs.contains(&"/steps/0/target"), "{issues:?}");
        assert!(ptrs.contains(&"/terminalCondition"), "{issues:?}");
        assert!(issues.iter().all(|i| !i.message.contains("sssss")));
    }
}
