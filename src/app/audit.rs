//! Auditing one window: the rules asked for (by id or group) and the minimum severity checked
//! before anything is read, the window read with the label relation, the rules of
//! `crate::audit` run on it, what the audit ended as, and the file a SARIF log places it in.

use std::sync::Arc;

use super::error::{Error, Kind};
use super::locate::Naming;
use super::scope::{Scope, pick, read_kept};
use crate::audit::{self, Options, Read, Severity, report};
use crate::backend::{AppInfo, Backend, Limits};
use crate::model::{Snapshot, Truncation};
use crate::session::Session;

/// The options the rules and the severity name, or a usage error.
pub fn options(
    rules: &[String],
    min_severity: &str,
    backend: &dyn Backend,
    toolkit: Option<crate::model::Toolkit>,
) -> Result<Options, Error> {
    let min_severity = Severity::from_name(min_severity).ok_or_else(|| {
        Error::usage(format!(
            "unknown severity `{}` (review, warning or error)",
            crate::model::sanitize(min_severity, 40)
        ))
    })?;
    audit::select(rules).map_err(Error::usage)?;
    Ok(Options {
        rules: rules.to_vec(),
        min_severity,
        read: Read {
            labels: backend.audit_reads().labels,
            bounds: None,
            toolkit,
        },
        facts: None,
    })
}

/// The read an audit makes: the scope's limits, with the label relation of every interactive
/// element and of every unnamed element that may need a name (`name-missing` needs it).
pub fn limits(scope: &Scope) -> Limits {
    Limits {
        labels: true,
        ..scope.limits()
    }
}

/// What an audit ended as: an incomplete read first (never a clean result), then findings.
pub fn kind(a: &audit::Audit, snap: &Snapshot) -> Option<Kind> {
    match snap.truncated {
        Some(Truncation::AppGone) => Some(Kind::AppGone),
        Some(Truncation::NotResponding) => Some(Kind::NotResponding),
        _ if !snap.complete() => Some(Kind::Incomplete),
        _ if !a.findings.is_empty() => Some(Kind::Findings),
        _ => None,
    }
}

/// An audit of the window a scope names, read now (and kept by the session: its tokens can
/// be used afterwards).
pub struct Audited {
    pub app: AppInfo,
    pub snap: Arc<Snapshot>,
    pub audit: audit::Audit,
    /// `None`: the tree was read whole and nothing at or above the severity was found.
    pub kind: Option<Kind>,
}

/// Audits the window `scope` names with `rules` (none: every rule) at or above
/// `min_severity`.
pub async fn run(
    session: &Session,
    scope: &Scope,
    rules: &[String],
    min_severity: &str,
    naming: Naming,
) -> Result<Audited, Error> {
    let backend = session.backend.as_ref();
    options(rules, min_severity, backend, None)?;
    let (app, root) = pick(backend, scope).await?;
    let toolkit = backend.toolkit(&root).await;
    let mut opts = options(rules, min_severity, backend, toolkit)?;
    let snap = read_kept(session, &app, &root, &limits(scope), naming).await?;
    // What the rules need beyond the snapshot, read only when the snapshot is whole (a partial
    // read ends the audit as incomplete whatever else is found).
    if snap.complete() {
        let facts = backend
            .audit_facts(&snap, audit::on_screen(toolkit))
            .await
            .map_err(Error::from)?;
        opts.facts = facts.map(Arc::new);
    }
    let a = audit::audit(&snap, &opts).map_err(Error::usage)?;
    let kind = kind(&a, &snap);
    Ok(Audited {
        app,
        snap,
        audit: a,
        kind,
    })
}

/// Where `audit --sarif` places its results: the file `named` (`--sarif-artifact`), which
/// must exist, else the executable of the app's process when it can be read
/// (`/proc/PID/exe`; not for a `demo` backend, whose pids are no processes here), else
/// nowhere, and why. Never a path that does not exist.
pub fn sarif_place(
    named: Option<&std::path::Path>,
    pid: Option<u32>,
    demo: bool,
) -> Result<report::Place, Error> {
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    let working_dir = cwd.as_deref().map(|c| report::file_uri(c, true));
    let artifact = match named {
        Some(path) => {
            let shown = crate::model::sanitize(&path.to_string_lossy(), 200).into_owned();
            let real = std::fs::canonicalize(path)
                .map_err(|e| Error::usage(format!("--sarif-artifact {shown}: {e}")))?;
            if !real.is_file() {
                return Err(Error::usage(format!(
                    "--sarif-artifact {shown}: not a file"
                )));
            }
            Ok(report::Artifact::at(
                &real,
                cwd.as_deref(),
                "the file named by --sarif-artifact",
            ))
        }
        None if demo => Err(
            "no --sarif-artifact, and the fixture backend's apps are not processes on this machine"
                .to_string(),
        ),
        None => executable(pid).map(|exe| {
            report::Artifact::at(
                &exe,
                cwd.as_deref(),
                format!(
                    "the executable of the audited application's process (pid {})",
                    pid.unwrap_or_default()
                ),
            )
        }),
    };
    Ok(report::Place {
        artifact,
        working_dir,
    })
}

/// The executable a process runs, if it still exists, or why it is not known.
fn executable(pid: Option<u32>) -> Result<std::path::PathBuf, String> {
    let pid = pid.ok_or("no --sarif-artifact, and the application's pid is not known")?;
    let link = format!("/proc/{pid}/exe");
    let exe = std::fs::read_link(&link)
        .map_err(|e| format!("no --sarif-artifact, and {link} could not be read: {e}"))?;
    // A replaced or deleted executable reads as `… (deleted)`: not a file that exists.
    std::fs::canonicalize(&exe)
        .ok()
        .filter(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "no --sarif-artifact, and the executable of pid {pid} ({}) no longer exists",
                crate::model::sanitize(&exe.to_string_lossy(), 200)
            )
        })
}

#[cfg(test)]
mod tests {
    #[cfg(target_os = "linux")]
    #[test]
    fn a_live_process_is_placed_in_its_executable_and_a_fixture_app_nowhere() {
        let me = std::process::id();
        let place = super::sarif_place(None, Some(me), false).unwrap();
        let art = place.artifact.unwrap();
        let exe = std::fs::canonicalize(std::env::current_exe().unwrap()).unwrap();
        let uri = art.uri.clone();
        assert!(
            exe.to_string_lossy()
                .ends_with(uri.trim_start_matches("file://")),
            "{uri} for {exe:?}"
        );
        assert!(art.what.contains(&format!("pid {me}")));
        let place = super::sarif_place(None, Some(me), true).unwrap();
        assert!(place.artifact.unwrap_err().contains("fixture"));
        let place = super::sarif_place(None, None, false).unwrap();
        assert!(place.artifact.unwrap_err().contains("pid is not known"));
        assert!(super::sarif_place(Some("no/such/file.ui".as_ref()), None, false).is_err());
    }
}
