//! Which element a call means: a target (string or JSON object, parsed with the column of the
//! first error) resolved fresh within the call's scope, or an element token checked against the
//! session's snapshots (stale once a newer read of its window supersedes it).

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;

use super::reply::Fault;
use crate::backend::{AppInfo, Limits};
use crate::cli::{self, Scope, exit};
use crate::model::{NodeId, Snapshot, Token, sanitize};
use crate::selector::Target;
use crate::session::{DEFAULT_RESOLVE_TIMEOUT, MAX_RESOLVE_TIMEOUT, Session, TokenRefusal};

/// A target as given: its parsed form and the text it was given as (for messages and results).
pub struct Given {
    pub target: Target,
    pub raw: String,
}

/// Parses a `target` argument: a string in the target language or the JSON object form.
pub fn parse_target(v: &Json) -> Result<Given, Fault> {
    let raw = match v {
        Json::String(s) => {
            if s.parse::<Token>().is_ok() {
                return Err(Fault::usage(format!(
                    "{} is an element token: pass it as element_token, not as target",
                    sanitize(s, 40)
                )));
            }
            s.clone()
        }
        // The JSON form parses from its text, so errors carry a column like the string form.
        Json::Object(_) => serde_json::to_string(v).unwrap_or_default(),
        _ => {
            return Err(Fault::usage(
                "target must be a string (check-box \"Subscribe\") or an object ({\"role\": …})",
            ));
        }
    };
    match Target::parse(&raw) {
        Ok(target) => Ok(Given { target, raw }),
        Err(e) => Err(Fault::from(cli::target_failure(&raw, &e)).with("column", e.column as u64)),
    }
}

/// The element a write names.
pub enum Element {
    Token(Token),
    Target(Given),
}

impl Element {
    /// Exactly one of `element_token` and `target`.
    pub fn of(token: Option<&str>, target: Option<&Json>) -> Result<Element, Fault> {
        match (token, target) {
            (Some(t), None) => t.parse::<Token>().map(Element::Token).map_err(|e| {
                Fault::usage(format!(
                    "element_token {}: {e}",
                    crate::model::quoted(t, 40)
                ))
            }),
            (None, Some(t)) => parse_target(t).map(Element::Target),
            (Some(_), Some(_)) => Err(Fault::usage("give element_token or target, not both")),
            (None, None) => Err(Fault::usage("give element_token or target")),
        }
    }

    /// How the element was named, for results and refusals.
    pub fn shown(&self) -> String {
        match self {
            Element::Token(t) => t.to_string(),
            Element::Target(g) => g.target.to_string(),
        }
    }
}

/// One element of a snapshot this session holds.
pub struct Located {
    pub snap: Arc<Snapshot>,
    pub row: usize,
    /// The target as given, or the element's suggested target when it was named by token.
    pub target: Option<String>,
    /// The window (or app) the snapshot is of, and the app as listed when it was located by
    /// target (for where a write landed).
    pub root: NodeId,
    pub app: Option<AppInfo>,
}

/// Why an element could not be located. `refusal` is true when the element was named well but
/// is not there to write (a stale token, a target that is ambiguous, missing or uncertain): a
/// write then answers with a `refused` verdict, as the command line does.
pub struct Missed {
    pub fault: Fault,
    pub refusal: bool,
}

impl From<Fault> for Missed {
    fn from(fault: Fault) -> Missed {
        Missed {
            fault,
            refusal: false,
        }
    }
}

/// The refusal of a token, with the current snapshot named when it is stale.
pub fn token_fault(e: TokenRefusal) -> Fault {
    match e {
        TokenRefusal::Stale { current, .. } => Fault::new(exit::TOKEN, e.to_string())
            .kind("stale_token")
            .with("current_snapshot", current.to_string()),
        // The session's wording is the command line's; an MCP client's tokens come from this
        // server, and a restarted server has issued none of them.
        TokenRefusal::Unknown(token) => Fault::new(
            exit::TOKEN,
            format!(
                "token {token} was not issued by this server: tokens are valid only within the \
                 MCP server process that issued them (a restarted server has none of its \
                 predecessor's); call get_window_state or find again for a fresh token, or pass \
                 a target"
            ),
        )
        .kind("unknown_token"),
        TokenRefusal::NoRow(_) => Fault::new(exit::TOKEN, e.to_string()).kind("no_such_row"),
    }
}

/// The longest wait a call may ask for.
pub fn wait(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_RESOLVE_TIMEOUT, Duration::from_millis)
        .min(MAX_RESOLVE_TIMEOUT)
}

/// Locates `el`: a token at once, a target against fresh reads of the scope's window.
pub async fn locate(
    session: &Session,
    el: &Element,
    scope: &Scope,
    wait_ms: Option<u64>,
) -> Result<Located, Missed> {
    match el {
        Element::Token(t) => {
            let (snap, row) = session.token(*t).map_err(|e| Missed {
                fault: token_fault(e),
                refusal: true,
            })?;
            let target = crate::selector::suggest(&snap, row).map(|t| t.to_string());
            let root = snap.nodes[0].id.clone();
            Ok(Located {
                snap,
                row,
                target,
                root,
                app: None,
            })
        }
        Element::Target(g) => {
            let (app, root) = cli::pick(session.backend.as_ref(), scope)
                .await
                .map_err(Fault::from)?;
            let fresh = session
                .resolve_fresh_to_write(&root, &g.target, wait(wait_ms), &Limits::default())
                .await
                .map_err(Fault::from)?;
            match fresh.resolution.unique_row() {
                Some(row) => Ok(Located {
                    snap: fresh.snapshot,
                    row,
                    target: Some(g.target.to_string()),
                    root,
                    app: Some(app),
                }),
                None => Err(Missed {
                    fault: Fault::new(
                        cli::resolution_code(&fresh.resolution),
                        cli::output::resolution_text(&g.target, &fresh)
                            .trim_end()
                            .to_string(),
                    )
                    .with("resolution", cli::find_json(&g.target, &fresh)),
                    refusal: true,
                }),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn targets_parse_from_strings_and_objects_with_columns() {
        assert!(parse_target(&json!("check-box \"Subscribe\"")).is_ok());
        let g = parse_target(&json!({"role": "button", "query": "Save"})).unwrap();
        assert_eq!(
            g.target.to_string(),
            Target::parse("button \"Save\"").unwrap().to_string()
        );
        let f = parse_target(&json!("button [checkd")).err().unwrap();
        assert_eq!(f.code, exit::TARGET_SYNTAX);
        assert!(f.extra["column"].as_u64().unwrap() > 1);
        let f = parse_target(&json!({"role": "buton"})).err().unwrap();
        assert_eq!(f.code, exit::TARGET_SYNTAX);
        assert!(f.extra.contains_key("column"));
        assert_eq!(parse_target(&json!(5)).err().unwrap().code, exit::USAGE);
        assert_eq!(
            parse_target(&json!("s0000002a:3")).err().unwrap().code,
            exit::USAGE
        );
    }

    #[test]
    fn exactly_one_of_token_and_target() {
        assert!(matches!(
            Element::of(Some("s0000002a:3"), None),
            Ok(Element::Token(_))
        ));
        assert!(Element::of(None, None).is_err());
        assert!(Element::of(Some("s0000002a:3"), Some(&json!("button"))).is_err());
        assert_eq!(
            Element::of(Some("nope"), None).err().unwrap().code,
            exit::USAGE
        );
    }
}
