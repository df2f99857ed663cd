//! The checks made before a run starts, and why a run did not start.

use std::collections::BTreeMap;

use crate::model::sanitize;
use crate::workflow::format::{Action, Workflow};
use crate::workflow::schema::Issue;
use crate::workflow::validate::{self, WAIT_CONDITIONS};

/// Why a run did not start. Nothing was executed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RunRefusal {
    #[error("the workflow is invalid:\n{}", list(.0))]
    Invalid(Vec<Issue>),
    #[error("the workflow uses what a desktop run cannot do:\n{}", list(.0))]
    Unsupported(Vec<Issue>),
    #[error("missing required inputs: {} (give them with --input NAME=VALUE)", .0.join(", "))]
    MissingInputs(Vec<String>),
    #[error("bad inputs:\n{}", list(.0))]
    BadInputs(Vec<Issue>),
}

impl RunRefusal {
    /// The problems, located.
    pub fn issues(&self) -> Vec<Issue> {
        match self {
            RunRefusal::Invalid(v) | RunRefusal::Unsupported(v) | RunRefusal::BadInputs(v) => {
                v.clone()
            }
            RunRefusal::MissingInputs(names) => names
                .iter()
                .map(|n| {
                    Issue::new(
                        format!("/inputs/{}", validate::pointer_escape(n)),
                        "input",
                        "required input not given",
                    )
                })
                .collect(),
        }
    }
}

fn list(v: &[Issue]) -> String {
    v.iter()
        .map(|i| format!("  {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The checks made before a run starts (nothing runs when one fails): semantic validity,
/// actions a desktop run can do, required inputs given, inputs declared and well-typed.
pub fn preflight(wf: &Workflow, given: &BTreeMap<String, String>) -> Result<(), RunRefusal> {
    let (errors, _) = validate::semantic(wf);
    if !errors.is_empty() {
        return Err(RunRefusal::Invalid(errors));
    }
    let mut unsupported = Vec::new();
    for (i, s) in wf.steps.iter().enumerate() {
        if !s.action.desktop_supported() {
            unsupported.push(Issue::new(
                format!("/steps/{i}/action"),
                "unsupported",
                format!("`{}` is unsupported on desktop", s.action.as_str()),
            ));
        }
        if let (Action::Wait, Some(c)) = (s.action, &s.condition)
            && !WAIT_CONDITIONS.contains(&c.as_str())
        {
            unsupported.push(Issue::new(
                format!("/steps/{i}/condition"),
                "unsupported",
                format!(
                    "wait condition {:?} is unsupported on desktop (use {})",
                    sanitize(c, 60),
                    WAIT_CONDITIONS.join(" or ")
                ),
            ));
        }
    }
    if !unsupported.is_empty() {
        return Err(RunRefusal::Unsupported(unsupported));
    }
    let missing: Vec<String> = wf
        .inputs
        .iter()
        .filter(|(k, i)| i.is_required() && !given.contains_key(*k))
        .map(|(k, _)| k.clone())
        .collect();
    if !missing.is_empty() {
        return Err(RunRefusal::MissingInputs(missing));
    }
    let mut bad = Vec::new();
    for (k, v) in given {
        let at = format!("/inputs/{}", validate::pointer_escape(k));
        match wf.inputs.get(k) {
            None => bad.push(Issue::new(
                at,
                "input",
                format!(
                    "the workflow declares no input {:?} (declared: {})",
                    sanitize(k, 60),
                    if wf.inputs.is_empty() {
                        "none".to_string()
                    } else {
                        wf.inputs.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                ),
            )),
            Some(decl) => {
                if !decl.kind().accepts(v) {
                    bad.push(Issue::new(
                        at.clone(),
                        "input",
                        format!("the value is not a {}", decl.kind().as_str()),
                    ));
                }
                if let Some(max) = decl.max_length
                    && v.chars().count() > max as usize
                {
                    bad.push(Issue::new(
                        at,
                        "input",
                        format!("the value is longer than maxLength {max}"),
                    ));
                }
            }
        }
    }
    if !bad.is_empty() {
        return Err(RunRefusal::BadInputs(bad));
    }
    Ok(())
}
