//! The text and JSON forms of what the use cases return — apps, trees, nodes, resolutions,
//! write verdicts, the doctor's report, the clipboard — shared by the command line (its output
//! and `--json`) and MCP (its text and `structuredContent`). Every string that came from an
//! application goes through `sanitize` before it is printed.

use std::io::{self, Write};

use serde_json::Value as Json;

use crate::backend::AppInfo;
use crate::fold;
use crate::model::display::cap_echo as cap;
pub use crate::model::display::{ECHO_CHARS, key_states, node_line, value_text};
pub use crate::model::json::node_json;
use crate::model::json::value_json;
use crate::model::{Snapshot, literal, sanitize};
use crate::selector::{Candidate, Grade, Resolution, SnapshotIndex, Target, suggest_with};
use crate::session::Fresh;
use crate::write::WriteResult;

mod find;
mod shown;
mod targets;
mod tree;
mod write;

pub use find::*;
pub use shown::*;
pub use targets::*;
pub use tree::*;
pub use write::*;

/// Pretty, terminal-safe JSON through the one JSON writer ([`crate::json`]).
pub fn json_pretty(v: &Json) -> String {
    crate::json::to_string(v)
}

/// `apps --json`.
pub fn apps_json(backend: &str, apps: &[AppInfo]) -> Json {
    serde_json::json!({ "backend": backend, "apps": apps })
}

/// `doctor --json`.
pub fn doctor_json(report: &crate::doctor::Report) -> Json {
    let mut v = serde_json::to_value(report).unwrap_or_default();
    v["healthy"] = report.healthy().into();
    v
}

/// The text form of what the clipboard offers (its text escaped and cut to 2,000 characters).
pub fn clipboard_text(contents: &crate::clipboard::Contents) -> String {
    let mut out = format!(
        "types: {}\n",
        if contents.types.is_empty() {
            "(empty)".to_string()
        } else {
            contents.types.join(", ")
        }
    );
    if let Some(t) = &contents.text {
        out.push_str(&format!("text: {}\n", crate::model::quoted(t, 2000)));
    }
    if let Some((w, h)) = contents.image {
        out.push_str(&format!("image: {w}×{h}\n"));
    }
    for f in &contents.files {
        out.push_str(&format!("file: {}\n", sanitize(f, 500)));
    }
    out
}

pub fn apps_text(apps: &[AppInfo]) -> String {
    let mut out = String::new();
    if apps.is_empty() {
        out.push_str(&format!(
            "no applications {}\n",
            crate::backend::pick::APPS_ARE
        ));
    }
    for a in apps {
        let toolkit = match (&a.toolkit, &a.toolkit_version) {
            (Some(t), Some(v)) => t.map(|t| format!("{t} {}", v.as_str())),
            (Some(t), None) => t.clone(),
            _ => "unknown toolkit".into(),
        };
        if !a.responding {
            // Nothing could be asked: the name is the last one seen, else the process's.
            out.push_str(&format!(
                "{}  pid {}  {}  not responding: no reply in {}; busy or hung\n",
                a.name.quoted(80),
                a.pid.map_or("?".into(), |p| p.to_string()),
                sanitize(&a.bus_name, 40),
                crate::model::display::seconds(
                    crate::backend::Limits::default().call_timeout.as_millis() as u64
                ),
            ));
        } else {
            out.push_str(&format!(
                "{}  pid {}  {}  {}\n",
                a.name.quoted(80),
                a.pid.map_or("?".into(), |p| p.to_string()),
                sanitize(&a.bus_name, 40),
                toolkit.literal(40)
            ));
        }
        for w in &a.windows {
            out.push_str(&format!("    {} {}\n", w.role, w.name.quoted(80)));
        }
    }
    out
}

/// The demo app's window, read whole (for tests).
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) async fn demo_window() -> Snapshot {
    use crate::backend::{Backend, Limits};
    let b = crate::backend::fixture::FixtureBackend::demo();
    let apps = b.apps().await.unwrap();
    b.snapshot(&apps[0].windows[0].id, &Limits::default())
        .await
        .unwrap()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::is_hostile;
    use serde_json::json;

    fn hostile_free(s: &str) -> bool {
        s.chars().all(|c| c == '\n' || !is_hostile(c))
    }

    /// The tree JSON as it was built before it was streamed: one `serde_json::Value`.
    fn tree_value(snap: &Snapshot, targets: Option<&[Option<Suggested>]>) -> Json {
        let mut built: Vec<Option<Json>> = vec![None; snap.nodes.len()];
        for row in (0..snap.nodes.len()).rev() {
            let mut obj = node_json(snap, row);
            if let Some(t) = targets {
                let s = t.get(row).and_then(Option::as_ref);
                obj["target"] = s.map_or(Json::Null, |s| Json::String(s.target.clone()));
                obj["grade"] = s.map_or(Json::Null, |s| json!(s.grade));
            }
            let kids: Vec<Json> = snap.nodes[row]
                .children
                .iter()
                .filter_map(|&c| built[c].take())
                .collect();
            obj["children"] = Json::Array(kids);
            built[row] = Some(obj);
        }
        json!({
            "snapshot": snap.id.to_string(),
            "app": snap.app,
            "window": snap.window,
            "complete": snap.complete(),
            "all_elements": snap.all_elements(),
            "left_out": snap.left_out_json(),
            "node_count": snap.nodes.len(),
            "partial": snap.partial(),
            "unreadable": snap.unreadable,
            "truncated": snap.truncated.map(|t| t.as_str()),
            "read_ms": (snap.read_ms * 100.0).round() / 100.0,
            "root": built.first_mut().and_then(Option::take).unwrap_or(Json::Null),
        })
    }

    #[tokio::test]
    async fn streamed_tree_json_is_the_same_document_byte_for_byte() {
        let snap = demo_window().await;
        let targets = suggested_all(&snap);
        for t in [None, Some(targets.as_slice())] {
            let mut out = Vec::new();
            write_tree_json(&mut out, &snap, t, true).unwrap();
            let streamed = String::from_utf8(out).unwrap();
            assert_eq!(
                streamed,
                serde_json::to_string_pretty(&tree_value(&snap, t)).unwrap()
            );
        }
    }

    #[test]
    fn write_text_escapes_what_the_app_sent_and_caps_values() {
        let mut r = crate::write::WriteResult::refused_unresolved("button", "why", "x");
        r.requested = "act\x1b]52;c;aGk=\x07ion\u{202e}".replace("\\x1b", "\x1b");
        r.requested = "act\u{1b}]52;c;aGk=\u{7}ion\u{202e}".into();
        r.method = Some("press(\u{1b}[2J)".into());
        r.acks = vec!["press(\u{1b}[2J) → error: \u{9b}31m".into()];
        r.dispatched = true;
        r.events = vec!["other:\u{1b}[H on :1.2/\u{2066}".into()];
        let out = write_text(&r);
        assert!(hostile_free(&out), "{out}");
        assert!(out.contains("act\\x1b]52"), "{out}");
        let mut big = crate::write::WriteResult::refused_unresolved("text", "why", "x");
        big.requested = format!("{:?}", "v".repeat(10_000_000));
        big.before = Some("b".repeat(1_000_000));
        cap_echoes(&mut big);
        assert!(big.requested.chars().count() <= ECHO_CHARS);
        assert!(big.before.as_ref().unwrap().ends_with('…'));
        assert!(write_text(&big).len() < 2_000);
    }
}
