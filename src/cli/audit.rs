//! `treeglass audit`: the accessibility checks of `crate::audit` on one window, read now.

use clap::Args;

use super::{Scope, code, warn};
use crate::app::audit::{self, Audited};
use crate::app::scope::{app_gone, named, not_responding};
use crate::app::{Error, output};
use crate::audit::report;
use crate::model::Truncation;
use crate::session::Session;

#[derive(Debug, Args, Default)]
pub struct AuditArgs {
    #[command(flatten)]
    pub scope: Scope,
    /// Print JSON (findings grouped by rule, each with its element's suggested target, path,
    /// token and row; the rules not evaluated and why).
    #[arg(long, conflicts_with = "sarif")]
    pub json: bool,
    /// Print a SARIF 2.1.0 log (for code-scanning dashboards such as GitHub's). Each finding is
    /// placed in a file at line 1, the element in its logical location: the file
    /// --sarif-artifact names, else the app's executable (/proc/PID/exe); with neither, results
    /// have only the logical location (GitHub rejects those) and the log says why.
    #[arg(long)]
    pub sarif: bool,
    /// The file the window comes from (its .ui or source file), for --sarif: run from the
    /// repository root and name it relative to it (GitHub reads relative paths so), or give
    /// it absolute. Must exist.
    #[arg(long = "sarif-artifact", value_name = "PATH", requires = "sarif")]
    pub sarif_artifact: Option<std::path::PathBuf>,
    /// Only these rules: ids or groups (names, keyboard, states, structure, geometry, uniqueness,
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
    /// Also write a JUnit XML report to FILE: one test case per rule evaluated (failed when it
    /// has findings, each listed with its element's target, path and fix), the rules not
    /// evaluated as skipped. Replaced if it exists.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<std::path::PathBuf>,
}

/// The audit as a JUnit suite (see [`AuditArgs::junit`]).
fn junit(a: &crate::audit::Audit, snap: &crate::model::Snapshot) -> crate::junit::Suite {
    use crate::junit::{Case, Outcome};
    let mut cases = Vec::new();
    for rule in &a.evaluated {
        let found: Vec<&crate::audit::Finding> =
            a.findings.iter().filter(|f| f.rule.id == rule.id).collect();
        let outcome = if found.is_empty() {
            Outcome::Passed
        } else {
            let mut detail = format!("{} ({}): {}\n", rule.message, rule.standard, rule.help);
            for f in &found {
                let target = a
                    .targets
                    .get(f.row)
                    .and_then(Option::as_ref)
                    .map_or_else(|| "(no unique target)".to_string(), ToString::to_string);
                detail.push_str(&format!(
                    "\n{target}\n  {}\n  path: {}\n",
                    f.detail,
                    snap.path_string(f.row)
                ));
                if let Some(fix) = &f.fix {
                    detail.push_str(&format!("  fix: {fix}\n"));
                }
            }
            Outcome::Failed {
                kind: rule.severity.as_str().into(),
                message: format!(
                    "{}: {}",
                    crate::model::display::counted(found.len(), "finding", "findings"),
                    rule.message
                ),
                detail,
            }
        };
        cases.push(Case {
            classname: format!("treeglass.audit.{}", rule.group),
            name: rule.id.into(),
            seconds: 0.0,
            outcome,
        });
    }
    for n in &a.not_evaluated {
        cases.push(Case {
            classname: "treeglass.audit".into(),
            name: n.rule.into(),
            seconds: 0.0,
            outcome: Outcome::Skipped {
                message: format!("not evaluated: {}", n.reason),
            },
        });
    }
    crate::junit::Suite {
        name: format!("audit {} — {}", snap.app.as_str(), snap.window.as_str()),
        seconds: snap.read_ms / 1000.0,
        cases,
    }
}

/// What `audit --help` lists after the options: the rules, the checks left out, exit codes.
pub fn help() -> String {
    let mut s = String::from("Rules (id, severity, standard):\n");
    for r in crate::audit::RULES {
        s.push_str(&format!(
            "  {:<24} {:<8} {:<11} {}\n",
            r.id,
            r.severity.as_str(),
            r.standard,
            r.message
        ));
    }
    s.push_str(
        "Elements that are not showing are not judged, except by the name rules, which also \
         judge what a person reaches without its being drawn: in a page, whatever the engine \
         renders (visible, however small or scrolled away); elsewhere, what takes the focus \
         under a parent on screen. After the tree, the audit reads, for the elements on \
         screen, their bounds, index in parent, relations, tables' first cells, what a web \
         engine says of where a name comes from and the characters of unnamed text leaves \
         (where the backend reads them); a rule whose needs were not read, or that a toolkit's bridge cannot \
         be judged by, is reported as not evaluated, with why. Left out:\n",
    );
    for (what, why) in crate::audit::LEFT_OUT {
        s.push_str(&format!("  {what}: {why}\n"));
    }
    s.push_str(
        "\nWhich elements need a name (name-missing; an element no row names needs one when it \
         takes the focus and holds no other elements):\n",
    );
    for l in crate::audit::name_roles::table_lines() {
        s.push_str(&format!("  {l}\n"));
    }
    s.push_str("\nThe same checks in axe-core (web pages) and axe-windows (Windows):\n");
    for l in crate::audit::rule_map::lines() {
        s.push_str(&format!("  {l}\n"));
    }
    s.push_str("axe-core checks an accessibility tree cannot make (keep running axe for them):\n");
    for (rules, why) in crate::audit::rule_map::AXE_NOT_JUDGED {
        s.push_str(&format!("  {rules}: {why}\n"));
    }
    s.push_str(
        "\nExit codes: 0 no findings at or above --min-severity, 14 findings, 12 the tree was \
         not read whole (findings on what was read are printed; never a clean result), 8 the \
         app stopped answering during the read, 6 it exited; 2 bad arguments, 3 no such \
         app/window, 4 bus unavailable.",
    );
    s
}

/// `treeglass audit`.
pub async fn run(session: &Session, args: &AuditArgs) -> Result<(String, i32), Error> {
    if let Some(path) = &args.sarif_artifact {
        // A file that does not exist is a usage error before anything is read.
        audit::sarif_place(Some(path), None, session.backend.is_demo())?;
    }
    let Audited {
        app,
        snap,
        audit: a,
        kind,
    } = audit::run(
        session,
        &args.scope.scope(),
        &args.rules,
        &args.min_severity,
        named,
    )
    .await?;
    match snap.truncated {
        Some(Truncation::AppGone) => warn(&app_gone(&app, "the read").message),
        Some(Truncation::NotResponding) => warn(&format!(
            "{}; the read stopped after {} nodes: the audit covers only what was read",
            not_responding(&app).message,
            snap.nodes.len()
        )),
        _ if !snap.complete() => warn(&format!(
            "the tree is incomplete ({}): the audit covers only what was read",
            output::completeness(&snap).trim()
        )),
        _ => {}
    }
    let out = if args.sarif {
        let place = audit::sarif_place(
            args.sarif_artifact.as_deref(),
            app.pid,
            session.backend.is_demo(),
        )?;
        output::json_pretty(&report::sarif(&a, &snap, &place))
    } else if args.json {
        output::json_pretty(&report::json(&a, &snap))
    } else {
        report::text(&a, &snap)
    };
    let mut exit = code(kind);
    if let Some(path) = &args.junit {
        exit = crate::junit::save(path, &junit(&a, &snap), exit);
    }
    Ok((out, exit))
}
