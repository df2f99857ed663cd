//! `treeglass audit`: the accessibility checks of `crate::audit` on one window, read now.

use clap::Args;

use super::{Failure, Scope, app_gone, exit, named, not_responding, output, pick};
use crate::audit::{self, Options, Read, Severity};
use crate::backend::{Backend, BackendError, Limits};
use crate::model::{Snapshot, Truncation};

#[derive(Debug, Args, Default)]
pub struct AuditArgs {
    #[command(flatten)]
    pub scope: Scope,
    /// Print JSON (findings grouped by rule, each with its element's suggested target, path,
    /// token and row; the rules not evaluated and why).
    #[arg(long, conflicts_with = "sarif")]
    pub json: bool,
    /// Print a SARIF 2.1.0 log (for code-scanning dashboards).
    #[arg(long)]
    pub sarif: bool,
    /// Only these rules: ids or groups (names, keyboard, states, geometry, uniqueness,
    /// automation), comma-separated or repeated.
    #[arg(long, value_name = "RULES", num_args = 1..)]
    pub rules: Vec<String>,
    /// Leave out findings below this severity: review (default: everything), warning or error.
    /// The exit code counts what is reported.
    #[arg(
        long = "min-severity",
        value_name = "SEVERITY",
        default_value = "review"
    )]
    pub min_severity: String,
}

/// What `audit --help` lists after the options: the rules, the checks left out, exit codes.
pub fn help() -> String {
    let mut s = String::from("Rules (id, severity, standard):\n");
    for r in audit::RULES {
        s.push_str(&format!(
            "  {:<24} {:<8} {:<11} {}\n",
            r.id,
            r.severity.as_str(),
            r.standard,
            r.message
        ));
    }
    s.push_str(
        "Elements that are not showing are not judged. Geometry needs bounds, which AT-SPI \
         reads do not include: there it is reported as not evaluated. Left out (the snapshot \
         does not hold what they need):\n",
    );
    for (what, why) in audit::LEFT_OUT {
        s.push_str(&format!("  {what}: {why}\n"));
    }
    s.push_str(
        "\nExit codes: 0 no findings at or above --min-severity, 14 findings, 12 the tree was \
         not read whole (findings on what was read are printed; never a clean result), 8 the \
         app stopped answering during the read, 6 it exited; 2 bad arguments, 3 no such \
         app/window, 4 bus unavailable.",
    );
    s
}

/// The options `args` asks for, or a usage error.
pub fn options(
    rules: &[String],
    min_severity: &str,
    backend: &dyn Backend,
    toolkit: Option<crate::model::Toolkit>,
) -> Result<Options, Failure> {
    let min_severity = Severity::from_name(min_severity).ok_or_else(|| {
        Failure::new(
            exit::USAGE,
            format!(
                "unknown severity `{}` (review, warning or error)",
                crate::model::sanitize(min_severity, 40)
            ),
        )
    })?;
    audit::select(rules).map_err(|e| Failure::new(exit::USAGE, e))?;
    Ok(Options {
        rules: rules.to_vec(),
        min_severity,
        read: Read {
            // UI Automation and AX do not read the label relation yet.
            labels: matches!(backend.name(), "atspi" | "fixture"),
            bounds: None,
            toolkit,
        },
    })
}

/// The read an audit makes: the scope's limits, with the label relation of every interactive
/// element (`name-missing` needs it).
pub fn limits(scope: &Scope) -> Limits {
    Limits {
        labels: true,
        ..scope.limits()
    }
}

/// The exit code of an audit: an incomplete read first (never a clean result), then findings.
pub fn code(a: &audit::Audit, snap: &Snapshot) -> i32 {
    match snap.truncated {
        Some(Truncation::AppGone) => exit::APP_GONE,
        Some(Truncation::NotResponding) => exit::NOT_RESPONDING,
        _ if !snap.complete() => exit::INCOMPLETE,
        _ if !a.findings.is_empty() => exit::AUDIT_FINDINGS,
        _ => exit::OK,
    }
}

/// `treeglass audit`.
pub async fn run(backend: &dyn Backend, args: &AuditArgs) -> Result<(String, i32), Failure> {
    options(&args.rules, &args.min_severity, backend, None)?;
    let (app, root) = pick(backend, &args.scope).await?;
    let toolkit = backend.toolkit(&root).await;
    let opts = options(&args.rules, &args.min_severity, backend, toolkit)?;
    let snap = match backend.snapshot(&root, &limits(&args.scope)).await {
        Ok(s) => s,
        Err(BackendError::AppGone { .. }) => return Err(app_gone(&app, "the read")),
        Err(e) => return Err(named(&app, e)),
    };
    let a = audit::audit(&snap, &opts).map_err(|e| Failure::new(exit::USAGE, e))?;
    let code = code(&a, &snap);
    match snap.truncated {
        Some(Truncation::AppGone) => super::warn(&app_gone(&app, "the read").message),
        Some(Truncation::NotResponding) => super::warn(&format!(
            "{}; the read stopped after {} nodes: the audit covers only what was read",
            not_responding(&app).message,
            snap.nodes.len()
        )),
        _ if !snap.complete() => super::warn(&format!(
            "the tree is incomplete ({}): the audit covers only what was read",
            output::completeness(&snap).trim()
        )),
        _ => {}
    }
    let out = if args.sarif {
        output::json_pretty(&audit::report::sarif(&a, &snap))
    } else if args.json {
        output::json_pretty(&audit::report::json(&a, &snap))
    } else {
        audit::report::text(&a, &snap)
    };
    Ok((out, code))
}
