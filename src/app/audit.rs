//! Auditing one window: the rules asked for (by id or group) and the minimum severity checked
//! before anything is read, the window read with the label relation, the rules of
//! `crate::audit` run on it, and what the audit ended as.

use std::sync::Arc;

use super::error::{Error, Kind};
use super::locate::Naming;
use super::scope::{Scope, pick, read_kept};
use crate::audit::{self, Options, Read, Severity};
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
            // UI Automation and AX do not read the label relation yet.
            labels: matches!(backend.name(), "atspi" | "fixture"),
            bounds: None,
            toolkit,
        },
        facts: None,
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
