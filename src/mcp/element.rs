//! Which element a call means: a target (string or JSON object, parsed with the column of the
//! first error) resolved fresh within the call's scope, or an element token checked against the
//! session's snapshots (stale once a newer read of its window supersedes it).

use serde_json::Value as Json;

use super::reply::Fault;
use crate::app::locate::{self, Element, Located, Unresolved, as_reported, target_error};
use crate::app::{Kind, Scope, output};
use crate::backend::Limits;
use crate::model::{Token, sanitize};
use crate::selector::Target;
use crate::session::{Fresh, QUIET, Session, TokenRefusal, Wait};

/// Parses a `target` argument: a string in the target language or the JSON object form.
pub fn parse_target(v: &Json) -> Result<Target, Fault> {
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
    Target::parse(&raw)
        .map_err(|e| Fault::from(target_error(&raw, &e)).with("column", e.column as u64))
}

/// The element a write names: exactly one of `element_token` and `target`.
pub fn element(token: Option<&str>, target: Option<&Json>) -> Result<Element, Fault> {
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

/// Why an element could not be located. `refusal` is true when the element was named well but
/// is not there to write (a stale token, a target that is ambiguous, missing or uncertain): a
/// write then answers with a `refused` verdict, as the command line does.
pub struct Missed {
    pub fault: Fault,
    pub refusal: bool,
}

/// The refusal of a token, with the current snapshot named when it is stale.
pub fn token_fault(e: TokenRefusal) -> Fault {
    match e {
        TokenRefusal::Stale { current, .. } => Fault::new(Kind::Token, e.to_string())
            .detail("stale_token")
            .with("current_snapshot", current.to_string()),
        // The session's wording is the command line's; an MCP client's tokens come from this
        // server, and a restarted server has issued none of them.
        TokenRefusal::Unknown(token) => Fault::new(
            Kind::Token,
            format!(
                "token {token} was not issued by this server: tokens are valid only within the \
                 MCP server process that issued them (a restarted server has none of its \
                 predecessor's); call get_window_state or find again for a fresh token, or pass \
                 a target"
            ),
        )
        .detail("unknown_token"),
        TokenRefusal::NoRow(_) => Fault::new(Kind::Token, e.to_string()).detail("no_such_row"),
    }
}

/// How a resolution waits, as on the command line: exactly `wait_ms` when given (at most
/// 120000), else only while the app is changing, so an ambiguous or missing target on an app
/// at rest answers after one read and one quiet spell.
pub fn patience(wait_ms: Option<u64>) -> Wait {
    locate::patience(wait_ms)
}

/// Why a resolution that names no single element answered when it did, in a line: not waited
/// for (the app is at rest), the whole `wait_ms`, or as long as the app kept changing. `None`
/// for a unique one.
pub fn wait_note(fresh: &Fresh, wait_ms: Option<u64>) -> Option<String> {
    if fresh.resolution.unique_row().is_some() {
        return None;
    }
    let reads = crate::model::count(fresh.reads, "read");
    let ms = fresh.waited.as_millis();
    Some(if fresh.at_rest {
        format!(
            "not waited for: the app sent no event for {} ms after the read ({reads} in {ms} \
             ms; it is at rest); give wait_ms to wait for an element to appear",
            QUIET.as_millis()
        )
    } else if wait_ms.is_some() {
        format!("waited the whole wait_ms: {reads} in {ms} ms")
    } else {
        format!(
            "read again while the app kept changing: {reads} in {ms} ms (at most {} s without \
             wait_ms)",
            Wait::WhileChanging.limit().as_secs()
        )
    })
}

/// A resolution in MCP's words: the command line's, with `wait_ms` for the wait, and why it
/// answered when it did.
pub fn resolution_words(target: &Target, fresh: &Fresh, wait_ms: Option<u64>) -> String {
    let mut text = output::resolution_text_with(target, fresh, "wait_ms");
    if let Some(note) = wait_note(fresh, wait_ms) {
        text.push_str(&note);
        text.push('\n');
    }
    text
}

/// Locates `el`: a token at once, a target against fresh reads of the scope's window.
pub async fn locate(
    session: &Session,
    el: &Element,
    scope: &Scope,
    wait_ms: Option<u64>,
) -> Result<Located, Missed> {
    locate::locate(
        session,
        el,
        scope,
        patience(wait_ms),
        &Limits::default(),
        as_reported,
    )
    .await
    .map_err(|m| match m.unresolved.map(|u| *u) {
        None => Missed {
            fault: m.error.into(),
            refusal: false,
        },
        Some(Unresolved::Token(e)) => Missed {
            fault: token_fault(e),
            refusal: true,
        },
        Some(Unresolved::Target { target, fresh }) => Missed {
            fault: Fault::new(
                m.error.kind,
                resolution_words(&target, &fresh, wait_ms).trim_end(),
            )
            .with("resolution", output::find_json(&target, &fresh)),
            refusal: true,
        },
    })
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
            g.to_string(),
            Target::parse("button \"Save\"").unwrap().to_string()
        );
        let f = parse_target(&json!("button [checkd")).err().unwrap();
        assert_eq!(f.kind, Kind::TargetSyntax);
        assert!(f.extra["column"].as_u64().unwrap() > 1);
        let f = parse_target(&json!({"role": "buton"})).err().unwrap();
        assert_eq!(f.kind, Kind::TargetSyntax);
        assert!(f.extra.contains_key("column"));
        assert_eq!(parse_target(&json!(5)).err().unwrap().kind, Kind::Usage);
        assert_eq!(
            parse_target(&json!("s0000002a:3")).err().unwrap().kind,
            Kind::Usage
        );
    }

    #[test]
    fn exactly_one_of_token_and_target() {
        assert!(matches!(
            element(Some("s0000002a:3"), None),
            Ok(Element::Token(_))
        ));
        assert!(element(None, None).is_err());
        assert!(element(Some("s0000002a:3"), Some(&json!("button"))).is_err());
        assert_eq!(element(Some("nope"), None).err().unwrap().kind, Kind::Usage);
    }
}
