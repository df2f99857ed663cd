//! Locating one element: a target parsed (with the column of its first error), resolved
//! against fresh reads of the scope's window, or a token checked against the session's
//! snapshots; the resolution as an answer ([`Found`]: its kind, words and JSON), which is
//! also what a target that does not name one element says.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;

use super::answer::Answer;
use super::error::{Error, Kind};
use super::output::{find_json, resolution_text};
use super::scope::{Scope, pick};
use crate::backend::{AppInfo, BackendError, Limits};
use crate::model::{NodeId, Snapshot, Token, sanitize};
use crate::selector::{ParseError, Resolution, Target};
use crate::session::{
    DEFAULT_RESOLVE_TIMEOUT, Fresh, MAX_RESOLVE_TIMEOUT, Session, TokenRefusal, Wait,
};

/// Parses a target given as text; a token is refused (only a session can take one).
pub fn parse_target(raw: &str) -> Result<Target, Error> {
    if let Ok(token) = raw.parse::<Token>() {
        return Err(Error::new(
            Kind::Token,
            TokenRefusal::Unknown(token).to_string(),
        ));
    }
    Target::parse(raw).map_err(|e| target_error(raw, &e))
}

/// A target that does not parse: the error with a caret under its column.
pub fn target_error(raw: &str, e: &ParseError) -> Error {
    Error::new(
        Kind::TargetSyntax,
        format!(
            "bad target: {e}\n  {}\n  {}^",
            sanitize(raw, 200),
            " ".repeat(e.column.saturating_sub(1).min(200))
        ),
    )
}

/// How long a resolution may wait: the default when not asked, never beyond the cap.
pub fn wait(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_RESOLVE_TIMEOUT, Duration::from_millis)
        .min(MAX_RESOLVE_TIMEOUT)
}

/// How a command line resolution waits: exactly `--wait-ms` when given, else only while the
/// app is changing ([`Wait::WhileChanging`]), so a typo or an ambiguous target on an app at
/// rest answers at once.
pub fn patience(ms: Option<u64>) -> Wait {
    ms.map_or(Wait::WhileChanging, |ms| Wait::For(wait(Some(ms))))
}

/// A target's resolution: the `find` answer (not unique is the resolution's kind), and the
/// words of a target that does not name one element.
pub struct Found<'a> {
    pub target: &'a Target,
    pub fresh: &'a Fresh,
}

impl Answer for Found<'_> {
    fn kind(&self) -> Option<Kind> {
        match &self.fresh.resolution {
            Resolution::Unique { .. } => None,
            Resolution::Ambiguous { .. } => Some(Kind::Ambiguous),
            Resolution::NotFound { .. } => Some(Kind::NotFound),
            Resolution::Incomplete { .. } => Some(Kind::Incomplete),
        }
    }

    fn message(&self) -> String {
        self.text().lines().next().unwrap_or_default().to_string()
    }

    fn text(&self) -> String {
        resolution_text(self.target, self.fresh)
    }

    fn json(&self) -> Json {
        find_json(self.target, self.fresh)
    }
}

/// What the element is resolved for: looking, which every match tier may answer, or writing,
/// which takes exact and substring matches only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Look,
    Write,
}

/// How a front end words a backend error during a resolution in a picked app: the command
/// line names the app that does not answer ([`super::scope::named`]); MCP passes the
/// backend's words on.
pub type Naming = fn(&AppInfo, BackendError) -> Error;

/// The backend's own words.
pub fn as_reported(_: &AppInfo, e: BackendError) -> Error {
    e.into()
}

/// A target resolved against fresh reads of the scope's window.
pub struct Resolved {
    pub fresh: Fresh,
    pub app: AppInfo,
    pub root: NodeId,
}

/// Resolves `target` in the window `scope` names, re-reading on events for up to `wait`. A
/// write ([`Purpose::Write`]) resolves with exact and substring matches only.
pub async fn resolve(
    session: &Session,
    target: &Target,
    scope: &Scope,
    wait: Wait,
    limits: &Limits,
    purpose: Purpose,
    naming: Naming,
) -> Result<Resolved, Error> {
    let (app, root) = pick(session.backend.as_ref(), scope).await?;
    let fresh = match purpose {
        Purpose::Write => {
            session
                .resolve_fresh_to_write(&root, target, wait, limits)
                .await
        }
        Purpose::Look => session.resolve_fresh(&root, target, wait, limits).await,
    }
    .map_err(|e| naming(&app, e))?;
    Ok(Resolved { fresh, app, root })
}

/// [`resolve`] for looking only (no write follows, and nothing else of the snapshot is used):
/// the app is asked for the target's candidates first where it can find them (Chromium,
/// Firefox), so a big page is not read whole for one element.
pub async fn look_up(
    session: &Session,
    target: &Target,
    scope: &Scope,
    wait: Wait,
    limits: &Limits,
    naming: Naming,
) -> Result<Resolved, Error> {
    let (app, root) = pick(session.backend.as_ref(), scope).await?;
    let fresh = session
        .resolve_element(&root, target, wait, limits)
        .await
        .map_err(|e| naming(&app, e))?;
    session.keep_app(&root, &app);
    Ok(Resolved { fresh, app, root })
}

/// The element a subtree is read under: its id, its path in the window, and the window's name
/// (a subtree's snapshot is named after its root; its answers name the window it sits in).
pub struct Subtree {
    pub id: NodeId,
    pub path: String,
    pub window: crate::model::AppText,
}

/// The element a subtree read starts at (`tree --root`, `get_window_state` `root`): `target`
/// resolved in `window`, asking the app for its candidates first where it can find them, so
/// nothing else of a big page is read. Its id and its path in the window; a target that does
/// not name one element is the resolution's error.
pub async fn subtree_root(
    session: &Session,
    app: &AppInfo,
    window: &NodeId,
    target: &Target,
    limits: &Limits,
    naming: Naming,
) -> Result<Subtree, Error> {
    let fresh = session
        .resolve_element(window, target, Wait::WhileChanging, limits)
        .await
        .map_err(|e| naming(app, e))?;
    match &fresh.resolution {
        Resolution::Unique { row, .. } => Ok(Subtree {
            id: fresh.snapshot.nodes[*row].id.clone(),
            path: fresh.snapshot.path_string(*row),
            window: fresh.snapshot.window_of(*row),
        }),
        _ => {
            let found = Found {
                target,
                fresh: &fresh,
            };
            Err(Error::new(
                found.kind().unwrap_or(Kind::NotFound),
                format!("root: {}", found.message()),
            ))
        }
    }
}

/// One element of a snapshot the session holds.
pub struct Located {
    pub snap: Arc<Snapshot>,
    pub row: usize,
    /// The target as given, or the element's suggested target when it was named by token.
    pub target: Option<String>,
    /// The window (or app) the snapshot is of, and the app as listed when it was located by
    /// target (for where a write landed).
    pub root: NodeId,
    pub app: Option<AppInfo>,
    /// The app narrowed the target: the snapshot holds the element's path alone.
    pub narrowed: bool,
}

/// An element named well that is not there to write.
#[allow(clippy::large_enum_variant)] // Always boxed in `Missed`.
pub enum Unresolved {
    /// A token the session refuses (stale, not issued here, no such row).
    Token(TokenRefusal),
    /// A target that resolved to no element, or to more than one, or in an incomplete tree.
    Target { target: Target, fresh: Fresh },
}

/// Why an element could not be located: the error, and what was not resolved when the element
/// was named well (`None`: the scope or the bus failed first).
pub struct Missed {
    pub error: Error,
    pub unresolved: Option<Box<Unresolved>>,
}

impl From<Error> for Missed {
    fn from(error: Error) -> Missed {
        Missed {
            error,
            unresolved: None,
        }
    }
}

impl Resolved {
    /// The one element the target names, or why there is not one (the resolution in words).
    pub fn unique(self, target: &Target) -> Result<Located, Missed> {
        let Resolved { fresh, app, root } = self;
        match fresh.resolution.unique_row() {
            Some(row) => Ok(Located {
                snap: fresh.snapshot.clone(),
                row,
                target: Some(target.to_string()),
                root,
                app: Some(app),
                narrowed: fresh.narrowed.is_some(),
            }),
            None => Err(Missed {
                error: {
                    let found = Found {
                        target,
                        fresh: &fresh,
                    };
                    Error::new(
                        found.kind().unwrap_or(Kind::Error),
                        found.text().trim_end().to_string(),
                    )
                },
                unresolved: Some(Box::new(Unresolved::Target {
                    target: target.clone(),
                    fresh,
                })),
            }),
        }
    }
}

/// The element a write names: a token of this session, or a target.
pub enum Element {
    Token(Token),
    Target(Target),
}

impl Element {
    /// How the element was named, for results and refusals.
    pub fn shown(&self) -> String {
        match self {
            Element::Token(t) => t.to_string(),
            Element::Target(t) => t.to_string(),
        }
    }
}

/// Locates `el` to write to it: a token at once, a target against fresh reads of the scope's
/// window (exact and substring matches only).
pub async fn locate(
    session: &Session,
    el: &Element,
    scope: &Scope,
    wait: Wait,
    limits: &Limits,
    naming: Naming,
) -> Result<Located, Missed> {
    match el {
        Element::Token(t) => {
            let (snap, row) = session.token(*t).map_err(|e| Missed {
                error: Error::new(Kind::Token, e.to_string()),
                unresolved: Some(Box::new(Unresolved::Token(e))),
            })?;
            let target = crate::selector::suggest(&snap, row).map(|t| t.to_string());
            let root = snap.nodes[0].id.clone();
            Ok(Located {
                snap,
                row,
                target,
                root,
                app: None,
                narrowed: false,
            })
        }
        Element::Target(target) => {
            resolve(session, target, scope, wait, limits, Purpose::Write, naming)
                .await?
                .unique(target)
        }
    }
}
