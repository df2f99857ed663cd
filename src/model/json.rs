//! The JSON forms of nodes and snapshots, shared by the command line (`tree --json`, `get
//! --json`) and the TUI's copy menu, so both print the same fields. A secret's text never
//! appears: only its length.

use serde_json::{Value as Json, json};

use super::{Node, Snapshot, Value};

/// A node's `value` in JSON: a secret shows only its length.
pub fn value_json(n: &Node) -> Json {
    match (&n.value, n.is_secret()) {
        (Some(Value::Text { text }), true) => {
            json!({ "kind": "secret", "length": text.as_str().chars().count() })
        }
        (Some(v), false) => serde_json::to_value(v).unwrap_or(Json::Null),
        (_, _) => Json::Null,
    }
}

/// A node's JSON (without children). The streamed `tree --json` (`cli::output`) writes the
/// same fields.
pub fn node_json(snap: &Snapshot, row: usize) -> Json {
    let n = &snap.nodes[row];
    let value = value_json(n);
    let mut out = json!({
        "row": row,
        "token": snap.token(row).to_string(),
        "role": n.role,
        "raw_role": n.raw_role,
        "name": n.name,
        "description": n.description,
        "id": n.id,
        "label": n.label,
        "value": value,
        "states": n.states,
        "actions": n.actions,
        "interfaces": n.interfaces,
    });
    // Only on elements whose children are not enumerated (see `Node::managed`).
    if let Some(m) = &n.managed {
        out["managed"] = serde_json::to_value(m).unwrap_or(Json::Null);
    }
    // Only on nodes that repeat an element placed elsewhere (see `Node::repeat`).
    if let Some(r) = &n.repeat {
        out["repeat"] = serde_json::to_value(r).unwrap_or(Json::Null);
    }
    // Only on elements that did not answer some calls (see `Node::unanswered`).
    if !n.unanswered.is_empty() {
        out["unanswered"] = json!(n.unanswered);
    }
    if !n.malformed.is_empty() {
        out["malformed"] = json!(n.malformed);
    }
    if !n.vanished.is_empty() {
        out["vanished"] = json!(n.vanished);
    }
    if !n.refused.is_empty() {
        out["refused"] = json!(n.refused);
    }
    out
}
