//! Text and JSON forms of apps, trees and nodes for the command line. Every string that came
//! from an application goes through `sanitize` before it is printed.

use serde_json::{Value as Json, json};

use crate::backend::AppInfo;
use crate::fold;
use crate::model::{Node, Snapshot, State, Value, sanitize};

/// Pretty JSON (serialising plain data cannot fail; an empty object stands in if it ever did).
pub fn json_pretty(v: &Json) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "{}".into())
}

pub fn apps_text(apps: &[AppInfo]) -> String {
    let mut out = String::new();
    if apps.is_empty() {
        out.push_str("no applications on the accessibility bus\n");
    }
    for a in apps {
        let toolkit = match (&a.toolkit, &a.toolkit_version) {
            (Some(t), Some(v)) => format!("{t} {v}"),
            (Some(t), None) => t.clone(),
            _ => "unknown toolkit".into(),
        };
        out.push_str(&format!(
            "{:?}  pid {}  {}  {}\n",
            sanitize(&a.name, 80),
            a.pid.map_or("?".into(), |p| p.to_string()),
            sanitize(&a.bus_name, 40),
            sanitize(&toolkit, 40)
        ));
        for w in &a.windows {
            out.push_str(&format!("    {} {:?}\n", w.role, sanitize(&w.name, 80)));
        }
    }
    out
}

/// States worth showing on a tree line (all states are in JSON and the details pane).
pub fn key_states(n: &Node) -> Vec<&'static str> {
    let mut out = Vec::new();
    if !n.is_enabled() {
        out.push("disabled");
    }
    for s in [
        State::Focused,
        State::Checked,
        State::Indeterminate,
        State::Pressed,
        State::Selected,
        State::Expanded,
        State::ReadOnly,
        State::Required,
        State::Invalid,
    ] {
        if n.states.has(s) {
            out.push(s.as_str());
        }
    }
    out
}

/// A node's value for display; secrets are never shown, only their length.
pub fn value_text(n: &Node) -> Option<String> {
    let v = n.value.as_ref()?;
    if n.is_secret() {
        if let Value::Text { text } = v {
            return Some(format!("(secret, {} chars)", text.chars().count()));
        }
    }
    Some(sanitize(&v.display(), 60).into_owned())
}

/// One tree line: `row  role "name" = value [states]`.
pub fn node_line(n: &Node) -> String {
    let mut s = n.role.to_string();
    if !n.name.is_empty() {
        s.push_str(&format!(" {:?}", sanitize(&n.name, 80).as_ref()));
    }
    if let Some(v) = value_text(n) {
        s.push_str(" = ");
        s.push_str(&v);
    }
    let states = key_states(n);
    if !states.is_empty() {
        s.push_str(&format!(" [{}]", states.join(" ")));
    }
    s
}

pub fn tree_text(snap: &Snapshot, raw: bool) -> String {
    let mut out = format!(
        "{} {:?}{} — {} nodes{}\n",
        snap.id,
        sanitize(&snap.app, 60).as_ref(),
        if snap.window.is_empty() {
            String::new()
        } else {
            format!(" / {:?}", sanitize(&snap.window, 60).as_ref())
        },
        snap.nodes.len(),
        completeness(snap)
    );
    for line in fold::lines(snap, raw, &|_| false) {
        let n = &snap.nodes[line.row];
        out.push_str(&format!(
            "{:>5}  {}{}\n",
            line.row,
            "  ".repeat(line.level),
            node_line(n)
        ));
    }
    out
}

/// ", incomplete: …" or "".
pub fn completeness(snap: &Snapshot) -> String {
    let mut parts = Vec::new();
    if let Some(t) = snap.truncated {
        parts.push(format!("truncated by {}", t.as_str()));
    }
    if snap.unreadable > 0 {
        parts.push(format!("{} unreadable", snap.unreadable));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" (incomplete: {})", parts.join(", "))
    }
}

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
/// node's suggested target (`null` where none is unique).
pub fn tree_json(snap: &Snapshot, targets: Option<&[Option<String>]>) -> Json {
    // Build bottom-up so deep trees never recurse.
    let mut built: Vec<Option<Json>> = vec![None; snap.nodes.len()];
    for row in (0..snap.nodes.len()).rev() {
        let mut obj = node_json(snap, row);
        if let Some(t) = targets {
            obj["target"] = t.get(row).cloned().flatten().map_or(Json::Null, Json::String);
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
