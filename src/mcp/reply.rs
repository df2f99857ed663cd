//! What a tool call answers: `structuredContent` in the shape of the CLI's `--json` output and a
//! short text (the CLI's text form), or a tool-level error (`isError: true`) that carries the
//! CLI's exit-code taxonomy as a machine-readable `kind` and the `exit_code` itself.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value as Json, json};

use crate::app::{Answer, Error, Kind};
use crate::model::scrub_lines;

/// Why a call did not do what was asked: the use case's kind (its name and the CLI's exit code
/// go on the wire), a message (app strings in it already escaped, as in the CLI's), and fields
/// that locate the problem (`column` of a bad target, `current_snapshot` of a stale token,
/// `terminal` for `unconfirmed`).
#[derive(Debug, Clone)]
pub struct Fault {
    pub kind: Kind,
    /// A finer name than the kind's (`stale_token` among the token refusals).
    pub detail: Option<&'static str>,
    pub message: String,
    pub extra: Map<String, Json>,
}

/// The finer names an error may carry instead of its kind's (the token refusals), for the
/// output schemas' list of kinds.
pub const DETAILS: [&str; 4] = [
    "stale_token",
    "unknown_token",
    "no_such_row",
    "stale_cursor",
];

impl Fault {
    pub fn new(kind: Kind, message: impl Into<String>) -> Fault {
        Fault {
            kind,
            detail: None,
            message: message.into(),
            extra: Map::new(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Fault {
        Fault::new(Kind::Usage, message)
    }

    pub fn with(mut self, key: &str, value: impl Into<Json>) -> Fault {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// A finer name than the kind's: one of [`DETAILS`].
    pub fn detail(mut self, name: &'static str) -> Fault {
        debug_assert!(DETAILS.contains(&name), "{name} is not in DETAILS");
        self.detail = Some(name);
        self
    }

    /// The name on the wire: the finer one when there is one.
    pub fn name(&self) -> &'static str {
        self.detail.unwrap_or_else(|| self.kind.name())
    }

    fn json(&self) -> Json {
        let mut m = Map::new();
        m.insert("kind".into(), self.name().into());
        m.insert("exit_code".into(), self.kind.exit_code().into());
        m.insert("message".into(), self.message.clone().into());
        if self.kind == Kind::Unconfirmed {
            // The contract's one terminal outcome: the write may have landed anywhere.
            m.insert("terminal".into(), true.into());
        }
        for (k, v) in &self.extra {
            m.insert(k.clone(), v.clone());
        }
        Json::Object(m)
    }
}

impl From<Error> for Fault {
    fn from(e: Error) -> Fault {
        Fault::new(e.kind, e.message)
    }
}

impl From<crate::backend::BackendError> for Fault {
    fn from(e: crate::backend::BackendError) -> Fault {
        Error::from(e).into()
    }
}

/// A tool's answer before it goes on the wire.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The CLI's `--json` document for the same request (an object).
    pub structured: Json,
    /// The CLI's text form, or a one-line summary.
    pub text: String,
    pub fault: Option<Fault>,
}

impl Reply {
    pub fn ok(structured: Json, text: impl Into<String>) -> Reply {
        Reply {
            structured,
            text: text.into(),
            fault: None,
        }
    }

    /// A reply whose document is the CLI's, ended as the use case ended: a failure unless it
    /// succeeded (`None`).
    pub fn coded(
        structured: Json,
        text: impl Into<String>,
        ended: Option<Kind>,
        message: &str,
    ) -> Reply {
        Reply {
            structured,
            text: text.into(),
            fault: ended.map(|kind| Fault::new(kind, message)),
        }
    }

    /// A use case's answer: its JSON, its text, and, unless it succeeded, its kind and message.
    pub fn answer(answer: &impl Answer) -> Reply {
        Reply::coded(
            answer.json(),
            answer.text(),
            answer.kind(),
            &answer.message(),
        )
    }

    pub fn fault(mut self, fault: Fault) -> Reply {
        self.fault = Some(fault);
        self
    }

    /// The wire form: `isError` exactly when the CLI would exit non-zero, with an `error`
    /// object (kind, exit_code, message, …) added to the document.
    pub fn into_result(self) -> CallToolResult {
        let Reply {
            mut structured,
            text,
            fault,
        } = self;
        if !structured.is_object() {
            structured = json!({ "result": structured });
        }
        let mut text = text.trim_end().to_string();
        if let Some(f) = &fault {
            structured["error"] = f.json();
            let head = format!("error: {} (exit code {})", f.name(), f.kind.exit_code());
            text = if text.is_empty() {
                format!("{head}: {}", f.message)
            } else {
                format!("{head}\n{text}")
            };
        }
        // Text carries app strings escaped where they were put in; this catches anything else.
        let text = scrub_lines(&text).into_owned();
        let mut r = if fault.is_some() {
            CallToolResult::error(vec![ContentBlock::text(text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(text)])
        };
        r.structured_content = Some(structured);
        r
    }
}

impl From<Fault> for Reply {
    fn from(f: Fault) -> Reply {
        Reply {
            structured: json!({}),
            text: String::new(),
            fault: Some(f),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn errors_carry_the_exit_code_taxonomy() {
        let r = Reply::from(
            Fault::new(Kind::Token, "stale token s00000001:3")
                .detail("stale_token")
                .with("current_snapshot", "s00000002"),
        )
        .into_result();
        assert_eq!(r.is_error, Some(true));
        let s = r.structured_content.unwrap();
        assert_eq!(s["error"]["kind"], "stale_token");
        assert_eq!(s["error"]["exit_code"], 5);
        assert_eq!(s["error"]["current_snapshot"], "s00000002");

        let r = Reply::coded(
            json!({"outcome": "unconfirmed"}),
            "",
            Some(Kind::Unconfirmed),
            "why",
        )
        .into_result();
        let s = r.structured_content.unwrap();
        assert_eq!(s["outcome"], "unconfirmed");
        assert_eq!(s["error"]["kind"], "unconfirmed");
        assert_eq!(s["error"]["terminal"], true);

        let r = Reply::coded(json!({"outcome": "verified"}), "ok", None, "").into_result();
        assert_eq!(r.is_error, Some(false));
        assert!(r.structured_content.unwrap().get("error").is_none());
        for kind in Kind::ALL {
            assert_ne!(kind.name(), "ok");
        }
    }

    #[test]
    fn text_is_scrubbed() {
        let r = Reply::ok(json!({}), "name \u{1b}[2J\u{202e}").into_result();
        let text = serde_json::to_value(&r.content[0]).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(!text.chars().any(crate::model::is_hostile), "{text:?}");
    }
}
