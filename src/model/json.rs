//! The JSON forms of nodes and snapshots, shared by the command line (`tree --json`, `get
//! --json`) and the TUI's copy menu, so both print the same fields. A secret's text never
//! appears: only its length.

use serde_json::{Value as Json, json};

use super::{Snapshot, Value};

/// A node's JSON (without children).
pub fn node_json(snap: &Snapshot, row: usize) -> Json {
    let n = &snap.nodes[row];
    let value = match (&n.value, n.is_secret()) {
        (Some(Value::Text { text }), true) => {
            json!({ "kind": "secret", "length": text.chars().count() })
        }
        (Some(v), false) => serde_json::to_value(v).unwrap_or(Json::Null),
        (_, _) => Json::Null,
    };
    json!({
        "row": row,
        "token": snap.token(row).to_string(),
        "role": n.role,
        "raw_role": n.raw_role,
        "name": n.name,
        "description": n.description,
        "value": value,
        "states": n.states,
        "actions": n.actions,
        "interfaces": n.interfaces,
    })
}

/// The snapshot as JSON: metadata and the nested tree. `targets`, when given, adds each
/// node's suggested target (`null` where none is unique); `actions` keeps each node's action
/// names (left out when the read did not ask for them: an empty list would say "none").
pub fn tree_json(snap: &Snapshot, targets: Option<&[Option<String>]>, actions: bool) -> Json {
    // Build bottom-up so deep trees never recurse.
    let mut built: Vec<Option<Json>> = vec![None; snap.nodes.len()];
    for row in (0..snap.nodes.len()).rev() {
        let mut obj = node_json(snap, row);
        if !actions {
            if let Some(o) = obj.as_object_mut() {
                o.remove("actions");
            }
        }
        if let Some(t) = targets {
            obj["target"] = t
                .get(row)
                .cloned()
                .flatten()
                .map_or(Json::Null, Json::String);
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
        "node_count": snap.nodes.len(),
        "unreadable": snap.unreadable,
        "truncated": snap.truncated.map(|t| t.as_str()),
        "read_ms": (snap.read_ms * 100.0).round() / 100.0,
        "root": built.first_mut().and_then(Option::take).unwrap_or(Json::Null),
    })
}
