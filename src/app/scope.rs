//! Which window (or app) a use case works on: `--app`, `--pid`, `--window` (and MCP's `app`,
//! `pid`, `window`) matched against the apps on the bus, and the errors that name an app the way
//! the user knows it.

use std::sync::Arc;
use std::time::Duration;

use regex::Regex;

use super::error::{Error, Kind};
use super::locate::Naming;
use crate::backend::{AppInfo, Backend, BackendError, Limits, Unanswering, WindowInfo};
use crate::model::{NodeId, Snapshot};
use crate::session::Session;

/// Which window (or app) a use case reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// Application name: a case-insensitive regular expression.
    pub app: Option<String>,
    /// Application process id.
    pub pid: Option<u32>,
    /// Window title: a case-insensitive regular expression.
    pub window: Option<String>,
    /// Give up reading the tree after this long.
    pub read_timeout_ms: Option<u64>,
    /// Read the tree down to this depth (`None`: the default, `Limits::default().max_depth`).
    pub max_depth: Option<usize>,
    /// Read at most this many children of one element (`None`: the default,
    /// `Limits::default().max_siblings`).
    pub max_children: Option<usize>,
}

impl Scope {
    /// Whether an app, pid or window was given.
    pub fn is_set(&self) -> bool {
        self.app.is_some() || self.pid.is_some() || self.window.is_some()
    }

    /// The default read limits with the read timeout and depth applied.
    pub fn limits(&self) -> Limits {
        let mut l = Limits::default();
        if let Some(ms) = self.read_timeout_ms {
            l.timeout = Duration::from_millis(ms.max(1));
        }
        if let Some(d) = self.max_depth {
            l.max_depth = d;
        }
        if let Some(n) = self.max_children {
            l.max_siblings = n;
        }
        l
    }

    /// Checks that the patterns are valid regular expressions (a usage error otherwise).
    pub fn check(&self) -> Result<(), Error> {
        if let Some(p) = &self.app {
            regex(p, "app")?;
        }
        if let Some(p) = &self.window {
            regex(p, "window")?;
        }
        Ok(())
    }
}

fn regex(pattern: &str, what: &str) -> Result<Regex, Error> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| Error::usage(format!("bad --{what} pattern: {e}")))
}

/// The app and the root (window or app) that `scope` names. An app that does not answer is
/// `NotResponding`, never "no such app".
pub async fn pick(backend: &dyn Backend, scope: &Scope) -> Result<(AppInfo, NodeId), Error> {
    let (app, root) = pick_any(backend, scope).await?;
    if !app.responding {
        return Err(not_responding(&app));
    }
    Ok((app, root))
}

/// Whether `--app`'s pattern names `app`. An app that does not answer could not say its
/// accessible name: its process name and the words of its command line stand in for it.
fn app_matches(re: &Regex, app: &AppInfo) -> bool {
    re.is_match(app.name.as_str())
        || !app.responding
            && app.pid.is_some_and(|pid| {
                crate::backend::process_words(pid)
                    .iter()
                    .any(|w| re.is_match(w))
            })
}

async fn pick_any(backend: &dyn Backend, scope: &Scope) -> Result<(AppInfo, NodeId), Error> {
    // By pid alone the app can be found without describing every other app.
    if let (None, Some(pid)) = (&scope.app, scope.pid)
        && let Some(app) = backend.app_by_pid(pid).await?
    {
        tracing::debug!(pid, "app found by pid");
        return pick_root(app, scope);
    }
    let apps = backend.apps().await?;
    tracing::debug!(apps = apps.len(), "apps listed");
    let app_re = scope.app.as_deref().map(|p| regex(p, "app")).transpose()?;
    let candidates: Vec<&AppInfo> = apps
        .iter()
        .filter(|a| match (&app_re, scope.pid) {
            (Some(re), _) => app_matches(re, a),
            (None, Some(pid)) => a.pid == Some(pid),
            (None, None) => !a.windows.is_empty(),
        })
        .collect();
    let list = |apps: &[&AppInfo]| {
        apps.iter()
            .map(|a| {
                format!(
                    "  {} (pid {}){}",
                    a.name.literal(60),
                    a.pid.map_or("?".into(), |p| p.to_string()),
                    if a.responding {
                        ""
                    } else {
                        " — not responding"
                    }
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let app = match candidates.as_slice() {
        [] => {
            let all: Vec<&AppInfo> = apps.iter().collect();
            return Err(Error::new(
                Kind::NoSuch,
                format!(
                    "no application matches{}; applications {}:\n{}",
                    scope
                        .app
                        .as_deref()
                        .map(|a| format!(" --app {}", crate::model::quoted(a, 100)))
                        .or(scope.pid.map(|p| format!(" --pid {p}")))
                        .unwrap_or_default(),
                    crate::backend::pick::where_apps_are(backend),
                    list(&all)
                ),
            ));
        }
        [one] => (*one).clone(),
        many => {
            // An exact (case-insensitive) name match wins over partial regex matches.
            let exact: Vec<&&AppInfo> = many
                .iter()
                .filter(|a| {
                    scope
                        .app
                        .as_deref()
                        .is_some_and(|p| a.name.as_str().eq_ignore_ascii_case(p))
                })
                .collect();
            match exact.as_slice() {
                [one] => (**one).clone(),
                _ => {
                    return Err(Error::usage(format!(
                        "{} applications match; choose one with --app or --pid:\n{}",
                        many.len(),
                        list(many)
                    )));
                }
            }
        }
    };
    pick_root(app, scope)
}

/// The root `scope` names in `app`: the window matching `--window`, else the app's only
/// window, else the whole app.
fn pick_root(app: AppInfo, scope: &Scope) -> Result<(AppInfo, NodeId), Error> {
    let root = match &scope.window {
        Some(p) => {
            let re = regex(p, "window")?;
            let wins: Vec<&WindowInfo> = app
                .windows
                .iter()
                .filter(|w| re.is_match(w.name.as_str()))
                .collect();
            match wins.as_slice() {
                [one] => one.id.clone(),
                [] => {
                    return Err(Error::new(
                        Kind::NoSuch,
                        format!(
                            "no window of {} matches --window {}; windows: {}",
                            app.name.quoted(60),
                            crate::model::quoted(p, 100),
                            app.windows
                                .iter()
                                .map(|w| w.name.quoted(60))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
                many => {
                    // Prefer an exact title over partial matches.
                    match many
                        .iter()
                        .find(|w| w.name.as_str().eq_ignore_ascii_case(p))
                    {
                        Some(w) => w.id.clone(),
                        None => {
                            return Err(Error::usage(format!(
                                "{} windows match --window {}; be more specific",
                                many.len(),
                                crate::model::quoted(p, 100)
                            )));
                        }
                    }
                }
            }
        }
        None => match app.windows.as_slice() {
            [one] => one.id.clone(),
            _ => app.id.clone(),
        },
    };
    Ok((app, root))
}

/// The error for an app that owns its bus name and answers nothing.
pub fn not_responding(app: &AppInfo) -> Error {
    named(
        app,
        BackendError::NotResponding {
            app: Unanswering::of(app),
            ms: Limits::default().call_timeout.as_millis() as u64,
        },
    )
}

/// What to do about a write refused because its app does not answer.
pub const NOT_RESPONDING_ADVICE: &str = "nothing was sent; the app is busy or hung: try again \
     when it answers (`treeglass apps` says \"not responding\" until then)";

/// A backend error, with an app that does not answer named the way the user knows it.
pub fn named(app: &AppInfo, e: BackendError) -> Error {
    match e {
        BackendError::NotResponding { ms, .. } => BackendError::NotResponding {
            app: Unanswering::of(app),
            ms,
        }
        .into(),
        e => e.into(),
    }
}

/// The error for an app that left the bus during `what`, naming it the way the user knows it.
pub fn app_gone(app: &AppInfo, what: &str) -> Error {
    Error::new(
        Kind::AppGone,
        format!(
            "the application {} (pid {}) exited or dropped its accessibility connection during {what}",
            app.name.quoted(60),
            app.pid.map_or("?".into(), |p| p.to_string())
        ),
    )
}

/// The error of a read of `app` that failed: the app named when it left during the read;
/// any other error worded by `naming`.
fn read_error(app: &AppInfo, e: BackendError, naming: Naming) -> Error {
    match e {
        BackendError::AppGone { .. } => app_gone(app, "the read"),
        e => naming(app, e),
    }
}

/// Reads the tree under `root` of `app` in one go (no session: nothing keeps it), with the
/// app named in the error when it leaves or stops answering.
pub async fn read(
    backend: &dyn Backend,
    app: &AppInfo,
    root: &NodeId,
    limits: &Limits,
) -> Result<Snapshot, Error> {
    backend
        .snapshot(root, limits)
        .await
        .map_err(|e| read_error(app, e, named))
}

/// [`read_kept`] of a subtree: the snapshot is named after the window the subtree sits in (as
/// read, a snapshot is named after its root), so that every page of its answers names it.
pub async fn read_subtree_kept(
    session: &Session,
    app: &AppInfo,
    root: &NodeId,
    window: &crate::model::AppText,
    limits: &Limits,
    naming: Naming,
) -> Result<Arc<Snapshot>, Error> {
    let mut snap = session
        .backend
        .snapshot(root, limits)
        .await
        .map_err(|e| read_error(app, e, naming))?;
    snap.window = window.clone();
    let snap = session.record(root, snap);
    session.keep_app(root, app);
    Ok(snap)
}

/// Reads the tree under `root` of `app` and keeps it in the session (its tokens can be used
/// afterwards); an error worded by `naming`, the app named when it left during the read.
pub async fn read_kept(
    session: &Session,
    app: &AppInfo,
    root: &NodeId,
    limits: &Limits,
    naming: Naming,
) -> Result<Arc<Snapshot>, Error> {
    let snap = session
        .snapshot(root, limits)
        .await
        .map_err(|e| read_error(app, e, naming))?;
    session.keep_app(root, app);
    Ok(snap)
}
