//! Validating a workflow file, in the order a reader needs the answers: size (before parsing),
//! JSON syntax (line and column) and keys given twice (JSON pointer), schemaVersion, the schema (JSON pointers), then the meaning —
//! targets parse, inputs are declared, secrets are not literal, budgets add up. Nothing in a
//! file that fails here is ever executed.

use std::collections::{BTreeSet, HashSet};
use std::io::Read;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::format::*;
use super::schema::{self, Issue};
use crate::model::Role;
use crate::selector::{RoleSpec, Target};

/// Files larger than this are refused before parsing (1 MiB).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The verdict on one workflow file.
#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    /// Problems that make the file invalid (exit 30); empty when valid.
    pub errors: Vec<Issue>,
    /// Things a desktop run cannot do or that look unintended; the file is still valid.
    pub warnings: Vec<Issue>,
    /// The typed workflow, when the file passed the schema (even if semantic checks failed).
    #[serde(skip)]
    pub workflow: Option<Workflow>,
}

impl Validation {
    fn failed(issue: Issue) -> Validation {
        Validation {
            errors: vec![issue],
            warnings: Vec::new(),
            workflow: None,
        }
    }

    /// Valid: no errors, and the typed workflow is there.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty() && self.workflow.is_some()
    }

    /// The workflow, only when the file is valid.
    pub fn valid_workflow(&self) -> Option<&Workflow> {
        self.workflow.as_ref().filter(|_| self.errors.is_empty())
    }
}

/// Reads and validates a file; the size is checked before anything is parsed, and at most
/// [`MAX_FILE_BYTES`] + 1 bytes are ever read (the file may grow while it is read).
/// Only regular files are read: a FIFO, a device or a directory is refused without blocking.
pub fn validate_path(path: &Path) -> Result<Validation, crate::files::FileError> {
    let (file, meta) = crate::files::open_regular(path)?;
    let len = meta.len();
    if len > MAX_FILE_BYTES {
        return Ok(Validation::failed(too_big(len)));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| crate::files::FileError::Io {
            path: crate::files::shown(path),
            source,
        })?;
    Ok(validate_bytes(&bytes))
}

fn too_big(len: u64) -> Issue {
    Issue::new(
        "",
        "size",
        format!(
            "the file is {len} bytes; workflow files are limited to {MAX_FILE_BYTES} bytes (1 MiB), \
             so it was not parsed"
        ),
    )
}

/// Validates the bytes of a workflow file.
pub fn validate_bytes(bytes: &[u8]) -> Validation {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Validation::failed(too_big(bytes.len() as u64));
    }
    let doc: Value = match crate::json::parse_strict(bytes) {
        Ok(v) => v,
        Err(crate::json::ParseError::DuplicateKey {
            pointer,
            key,
            line,
            column,
        }) => {
            let message = format!(
                "the key {} appears twice in one object (at {}); a reader sees one value and \
                 a parser would take the other, so the file is refused",
                crate::model::quoted(&key, 60),
                crate::model::sanitize(&pointer, 200)
            );
            let mut issue = Issue::new(pointer, "duplicate_key", message);
            issue.line = Some(line);
            issue.column = Some(column);
            return Validation::failed(issue);
        }
        Err(crate::json::ParseError::Syntax(e)) => {
            let full = e.to_string();
            // serde_json appends " at line L column C"; the issue carries them as fields.
            let msg = match full.rfind(" at line ") {
                Some(i) => full[..i].to_string(),
                None => full,
            };
            let mut issue = Issue::new("", "json", format!("not valid JSON: {msg}"));
            issue.line = Some(e.line());
            issue.column = Some(e.column());
            return Validation::failed(issue);
        }
    };
    validate_value(&doc)
}

/// Validates a parsed document.
pub fn validate_value(doc: &Value) -> Validation {
    if let Some(v) = doc.get("schemaVersion")
        && v.as_u64() != Some(SCHEMA_VERSION)
    {
        return Validation::failed(Issue::new(
            "/schemaVersion",
            "schema_version",
            format!(
                "unknown schemaVersion {}: this treeglass reads workflow files of \
                     schemaVersion {SCHEMA_VERSION} only",
                crate::model::sanitize(&v.to_string(), 40)
            ),
        ));
    }
    let errors = schema::check(doc);
    if !errors.is_empty() {
        return Validation {
            errors,
            warnings: Vec::new(),
            workflow: None,
        };
    }
    let wf: Workflow = match serde_json::from_value(doc.clone()) {
        Ok(w) => w,
        Err(e) => {
            return Validation::failed(Issue::new(
                "",
                "schema",
                format!("the file passed the schema but could not be read: {e}"),
            ));
        }
    };
    let (errors, warnings) = semantic(&wf);
    Validation {
        errors,
        warnings,
        workflow: Some(wf),
    }
}

/// A problem with an `${inputs.…}` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefError(pub String);

/// The input names referenced as `${inputs.NAME}` in `s`. `NAME` is a letter or `_` followed by
/// letters, digits, `_` or `-`. Other `${…}` text is left alone (it is literal text).
pub fn input_refs(s: &str) -> Result<Vec<&str>, RefError> {
    const OPEN: &str = "${inputs.";
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(OPEN) {
        let after = &rest[i + OPEN.len()..];
        let Some(end) = after.find('}') else {
            return Err(RefError(format!("`{OPEN}` is not closed with `}}`")));
        };
        let name = &after[..end];
        if !valid_input_name(name) {
            return Err(RefError(format!(
                "`{OPEN}{}}}` is not a valid input reference (names are a letter or _ followed \
                 by letters, digits, _ or -)",
                crate::model::sanitize(name, 40)
            )));
        }
        out.push(name);
        rest = &after[end + 1..];
    }
    Ok(out)
}

/// Whether `name` can be referenced as `${inputs.name}`.
pub fn valid_input_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name.len() <= 64
}

/// Replaces every `${inputs.NAME}` with its value; unknown names are left as written (the
/// caller checked them).
pub fn substitute(s: &str, value_of: &dyn Fn(&str) -> Option<String>) -> String {
    const OPEN: &str = "${inputs.";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(OPEN) {
        out.push_str(&rest[..i]);
        let after = &rest[i + OPEN.len()..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match value_of(name) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&rest[i..i + OPEN.len() + end + 1]),
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether a target's element clause asks for a password field.
pub fn targets_password(t: &Target) -> bool {
    match t.role() {
        Some(RoleSpec::Role(r)) => *r == Role::PasswordText,
        Some(RoleSpec::Raw(raw)) => raw.trim().eq_ignore_ascii_case("password text"),
        None => false,
    }
}

/// Wait conditions a desktop run understands: the target becomes unique, or goes away.
pub const WAIT_CONDITIONS: &[&str] = &["visible", "gone"];

/// Collects issues while walking a workflow.
struct Checker<'w> {
    wf: &'w Workflow,
    sensitive: HashSet<&'w str>,
    used: BTreeSet<String>,
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
}

impl Checker<'_> {
    /// Checks the `${inputs.X}` references of `s` and returns the names referenced.
    fn refs(&mut self, s: &str, at: &str) -> Vec<String> {
        match input_refs(s) {
            Ok(names) => {
                let mut refs = Vec::new();
                for n in names {
                    if self.wf.inputs.contains_key(n) {
                        self.used.insert(n.to_string());
                    } else {
                        self.errors.push(Issue::new(
                            at,
                            "input",
                            format!(
                                "`${{inputs.{n}}}` is not declared in /inputs (declared: {})",
                                list_or_none(self.wf.inputs.keys())
                            ),
                        ));
                    }
                    refs.push(n.to_string());
                }
                refs
            }
            Err(RefError(m)) => {
                self.errors.push(Issue::new(at, "input", m));
                Vec::new()
            }
        }
    }

    fn warn_sensitive_refs(&mut self, refs: &[String], at: &str) {
        if refs.iter().any(|r| self.sensitive.contains(r.as_str())) {
            self.warnings.push(Issue::new(
                at,
                "sensitive",
                "a sensitive input in a predicate or target: reports mask it, but the app sees it",
            ));
        }
    }

    /// Parses a target; a target that carries input references may only parse once they are
    /// substituted, so its failure is a warning.
    fn target(&mut self, t: &str, at: &str) -> Option<Target> {
        let refs = self.refs(t, at);
        self.warn_sensitive_refs(&refs, at);
        match Target::parse(t) {
            Ok(parsed) => Some(parsed),
            Err(e) => {
                let message = format!("bad target: {e}");
                if refs.is_empty() {
                    self.errors.push(Issue::new(at, "target", message));
                } else {
                    self.warnings.push(Issue::new(
                        at,
                        "target",
                        format!("{message} (checked again once inputs are substituted)"),
                    ));
                }
                None
            }
        }
    }

    fn predicate(&mut self, p: &Predicate, at: &str) {
        let mut nodes: Vec<(&Predicate, String)> = Vec::new();
        p.walk(at, &mut |q, here| nodes.push((q, here.to_string())));
        for (q, here) in nodes {
            match q {
                Predicate::Visible(t) => {
                    self.target(t, &format!("{here}/visible"));
                }
                Predicate::TitleContains(s)
                | Predicate::TextContains(s)
                | Predicate::UrlEquals(s) => {
                    let ptr = format!("{here}/{}", q.key());
                    let refs = self.refs(s, &ptr);
                    self.warn_sensitive_refs(&refs, &ptr);
                    if matches!(q, Predicate::UrlEquals(_)) {
                        self.warnings.push(unsupported_predicate(q, &here));
                    }
                }
                Predicate::PopupOpened(_)
                | Predicate::DownloadStarted(_)
                | Predicate::RevisionEquals(_) => {
                    self.warnings.push(unsupported_predicate(q, &here));
                }
                _ => {}
            }
        }
    }

    fn step(&mut self, i: usize, step: &Step) {
        let at = format!("/steps/{i}");
        if !step.action.desktop_supported() {
            self.warnings.push(Issue::new(
                format!("{at}/action"),
                "unsupported",
                format!(
                    "`{}` is unsupported on desktop; `workflow run` refuses this file",
                    step.action.as_str()
                ),
            ));
        }
        if step.action.needs_target() && step.target.is_none() {
            self.errors.push(Issue::new(
                at.clone(),
                "step",
                format!("a `{}` step needs a `target`", step.action.as_str()),
            ));
        }
        if step.action == Action::Type && step.text.is_none() {
            self.errors.push(Issue::new(
                at.clone(),
                "step",
                "a `type` step needs `text` (use `clear` to empty a field)",
            ));
        }
        if let (Action::Wait, Some(c)) = (step.action, &step.condition)
            && !WAIT_CONDITIONS.contains(&c.as_str())
        {
            self.warnings.push(Issue::new(
                format!("{at}/condition"),
                "unsupported",
                format!(
                    "wait condition {:?} is unsupported on desktop (use {}); \
                         `workflow run` refuses this file",
                    crate::model::sanitize(c, 60),
                    WAIT_CONDITIONS.join(" or ")
                ),
            ));
        }
        let target_is_password = match &step.target {
            Some(t) => self
                .target(t, &format!("{at}/target"))
                .is_some_and(|t| targets_password(&t)),
            None => false,
        };
        for (field, val) in [("text", &step.text), ("value", &step.value)] {
            let Some(s) = val else { continue };
            let ptr = format!("{at}/{field}");
            let refs = self.refs(s, &ptr);
            if target_is_password && refs.is_empty() && !s.is_empty() {
                self.errors.push(Issue::new(
                    ptr.clone(),
                    "sensitive",
                    "a literal value for a password field: secrets are never stored in workflow \
                     files; declare an input with \"sensitive\": true and use ${inputs.NAME}",
                ));
            }
            let whole_ref = refs.len() == 1 && s.trim() == format!("${{inputs.{}}}", refs[0]);
            if refs.iter().any(|r| self.sensitive.contains(r.as_str())) && !whole_ref {
                self.warnings.push(Issue::new(
                    ptr,
                    "sensitive",
                    "a sensitive input is mixed with other text; the whole value is treated as \
                     secret",
                ));
            }
        }
        if let Some(c) = &step.condition {
            self.refs(c, &format!("{at}/condition"));
        }
        for (field, p) in [
            ("when", &step.when),
            ("expect", &step.expect),
            ("beforeRetry", &step.before_retry),
        ] {
            if let Some(p) = p {
                self.predicate(p, &format!("{at}/{field}"));
            }
        }
        let budgets = self.wf.budgets;
        if let Some(r) = step.max_retries.filter(|r| *r > budgets.max_retries) {
            self.errors.push(Issue::new(
                format!("{at}/maxRetries"),
                "budget",
                format!(
                    "the step allows {r} retries but budgets.maxRetries is {} for the whole run",
                    budgets.max_retries
                ),
            ));
        }
        if let Some(t) = step.timeout_ms.filter(|t| *t > budgets.max_duration_ms) {
            self.errors.push(Issue::new(
                format!("{at}/timeoutMs"),
                "budget",
                format!(
                    "timeoutMs {t} is longer than the whole run may take \
                     (budgets.maxDurationMs {})",
                    budgets.max_duration_ms
                ),
            ));
        }
    }
}

/// The semantic checks of a schema-valid workflow: (errors, warnings).
pub fn semantic(wf: &Workflow) -> (Vec<Issue>, Vec<Issue>) {
    let mut c = Checker {
        wf,
        sensitive: wf
            .inputs
            .iter()
            .filter(|(_, i)| i.is_sensitive())
            .map(|(k, _)| k.as_str())
            .collect(),
        used: BTreeSet::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    for name in wf.inputs.keys() {
        if !valid_input_name(name) {
            c.errors.push(Issue::new(
                format!("/inputs/{}", pointer_escape(name)),
                "input",
                "input names are a letter or _ followed by letters, digits, _ or - (at most 64)",
            ));
        }
    }
    for (i, p) in wf.preconditions.iter().flatten().enumerate() {
        c.predicate(p, &format!("/preconditions/{i}"));
    }
    let mut ids: HashSet<&str> = HashSet::new();
    for (i, step) in wf.steps.iter().enumerate() {
        if !ids.insert(step.id.as_str()) {
            c.errors.push(Issue::new(
                format!("/steps/{i}/id"),
                "step",
                format!(
                    "step id {:?} is used twice; ids must be unique",
                    crate::model::sanitize(&step.id, 60)
                ),
            ));
        }
        c.step(i, step);
    }
    let executions: u64 = wf.steps.iter().map(|s| u64::from(s.repeats())).sum();
    if executions > u64::from(wf.budgets.max_steps) {
        let repeated = wf.steps.iter().any(|s| s.repeats() > 1);
        c.errors.push(Issue::new(
            "/budgets/maxSteps",
            "budget",
            format!(
                "budgets.maxSteps is {} but the workflow runs {executions} step executions \
                 ({} steps{}); raise maxSteps or remove steps",
                wf.budgets.max_steps,
                wf.steps.len(),
                if repeated { ", counting repeats" } else { "" }
            ),
        ));
    }
    let timeouts: u64 = wf
        .steps
        .iter()
        .map(|s| s.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS) * u64::from(s.repeats()))
        .sum();
    if timeouts > wf.budgets.max_duration_ms {
        c.warnings.push(Issue::new(
            "/budgets/maxDurationMs",
            "budget",
            format!(
                "the steps' timeouts add up to {timeouts} ms, more than budgets.maxDurationMs \
                 ({}); a slow run stops when the budget is spent",
                wf.budgets.max_duration_ms
            ),
        ));
    }
    c.predicate(&wf.terminal_condition, "/terminalCondition");
    for (name, out) in &wf.outputs {
        if out.source == OutputSource::PageUrl {
            c.warnings.push(Issue::new(
                format!("/outputs/{}/source", pointer_escape(name)),
                "unsupported",
                "page_url is unsupported on desktop; the output will be empty",
            ));
        }
    }
    for name in wf.inputs.keys() {
        if !c.used.contains(name) {
            c.warnings.push(Issue::new(
                format!("/inputs/{}", pointer_escape(name)),
                "input",
                "declared but never used",
            ));
        }
    }
    (c.errors, c.warnings)
}

fn unsupported_predicate(p: &Predicate, at: &str) -> Issue {
    Issue::new(
        format!("{at}/{}", p.key()),
        "unsupported",
        format!(
            "`{}` is unsupported on desktop; evaluating it fails the run",
            p.key()
        ),
    )
}

fn list_or_none<'a>(names: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<&str> = names.map(String::as_str).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Escapes a key for a JSON pointer (RFC 6901).
pub fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn input_references() {
        assert_eq!(
            input_refs("a ${inputs.x} b ${inputs.y_2}").unwrap(),
            ["x", "y_2"]
        );
        assert_eq!(input_refs("${other} $x").unwrap(), Vec::<&str>::new());
        assert!(input_refs("${inputs.x").is_err());
        assert!(input_refs("${inputs.}").is_err());
        assert!(input_refs("${inputs.a b}").is_err());
        let v = |n: &str| (n == "x").then(|| "X".to_string());
        assert_eq!(
            substitute("<${inputs.x}|${inputs.y}>", &v),
            "<X|${inputs.y}>"
        );
    }

    #[test]
    fn password_targets() {
        assert!(targets_password(
            &Target::parse("password-text \"Password\"").unwrap()
        ));
        assert!(targets_password(
            &Target::parse("role:\"Password Text\"").unwrap()
        ));
        assert!(!targets_password(
            &Target::parse("text \"Password\"").unwrap()
        ));
    }
}
