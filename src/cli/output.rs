//! Text and JSON forms of apps, trees and nodes for the command line. Every string that came
//! from an application goes through `sanitize` before it is printed.

use serde_json::{Value as Json, json};

use crate::backend::AppInfo;
use crate::fold;
pub use crate::model::display::{key_states, node_line, value_text};
use crate::model::{Snapshot, Value, quoted, sanitize};
use crate::session::Fresh;
use crate::target::{Candidate, Grade, Resolution, SnapshotIndex, Target, suggest_with};
use crate::write::WriteResult;

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
            "{}  pid {}  {}  {}\n",
            quoted(&a.name, 80),
            a.pid.map_or("?".into(), |p| p.to_string()),
            sanitize(&a.bus_name, 40),
            sanitize(&toolkit, 40)
        ));
        for w in &a.windows {
            out.push_str(&format!("    {} {}\n", w.role, quoted(&w.name, 80)));
        }
    }
    out
}

/// A node's suggested target with its grade, as printed beside the node.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggested {
    pub target: String,
    pub grade: Grade,
}

impl Suggested {
    pub fn of(t: &Target) -> Suggested {
        Suggested {
            target: t.to_string(),
            grade: t.grade(),
        }
    }

    /// `{"target": …, "grade": …}`.
    pub fn json(&self) -> Json {
        json!({ "target": self.target, "grade": self.grade })
    }

    /// `⇒ target  (grade)`.
    pub fn text(&self) -> String {
        format!("⇒ {}  ({})", self.target, self.grade)
    }
}

/// The suggestions of some rows of one snapshot, sharing one index.
pub fn suggestions_for(
    snap: &Snapshot,
    rows: impl IntoIterator<Item = usize>,
) -> Vec<(usize, Suggested)> {
    let ix = SnapshotIndex::new(snap);
    rows.into_iter()
        .filter_map(|row| suggest_with(&ix, snap, row).map(|t| (row, Suggested::of(&t))))
        .collect()
}

pub fn tree_text(snap: &Snapshot, raw: bool, targets: Option<&[Option<Suggested>]>) -> String {
    let mut out = format!(
        "{} {}{} — {} nodes{}\n",
        snap.id,
        quoted(&snap.app, 60),
        if snap.window.is_empty() {
            String::new()
        } else {
            format!(" / {}", quoted(&snap.window, 60))
        },
        snap.nodes.len(),
        completeness(snap)
    );
    for line in fold::lines(snap, raw, &|_| false) {
        let n = &snap.nodes[line.row];
        let suggestion = match targets.map(|t| t.get(line.row).and_then(Option::as_ref)) {
            Some(Some(t)) => format!("    {}", t.text()),
            Some(None) => "    ⇒ (no unique target)".into(),
            None => String::new(),
        };
        out.push_str(&format!(
            "{:>5}  {}{}{}\n",
            line.row,
            "  ".repeat(line.level),
            node_line(n),
            suggestion
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
        "label": n.label,
        "value": value,
        "states": n.states,
        "actions": n.actions,
        "interfaces": n.interfaces,
    })
}

/// The snapshot as JSON: metadata and the nested tree. `targets`, when given, adds each
/// node's suggested target and its grade (`null` where there is none).
pub fn tree_json(snap: &Snapshot, targets: Option<&[Option<Suggested>]>) -> Json {
    // Build bottom-up so deep trees never recurse.
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
        "node_count": snap.nodes.len(),
        "unreadable": snap.unreadable,
        "truncated": snap.truncated.map(|t| t.as_str()),
        "read_ms": (snap.read_ms * 100.0).round() / 100.0,
        "root": built.first_mut().and_then(Option::take).unwrap_or(Json::Null),
    })
}

fn candidate_lines(out: &mut String, cands: &[Candidate], suggested: &[(usize, Suggested)]) {
    for c in cands {
        let hidden = if c.hidden { "; hidden" } else { "" };
        let target = suggested
            .iter()
            .find(|(row, _)| *row == c.row)
            .map(|(_, s)| format!("  {}", s.text()))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {}  {}  ({}{hidden}){target}\n",
            c.token, c.path, c.why
        ));
    }
}

/// The rows a resolution names: its element, candidates and near misses.
pub fn resolution_rows(r: &Resolution) -> Vec<usize> {
    match r {
        Resolution::Unique { row, .. } => vec![*row],
        Resolution::Ambiguous { candidates, .. } => candidates.iter().map(|c| c.row).collect(),
        Resolution::NotFound { near_misses, .. } => near_misses.iter().map(|c| c.row).collect(),
        Resolution::Incomplete {
            candidates,
            near_misses,
            ..
        } => candidates
            .iter()
            .chain(near_misses)
            .map(|c| c.row)
            .collect(),
    }
}

/// A resolution's JSON with the suggested target and grade of its element (`suggestion`) and
/// of each candidate and near miss.
pub fn resolution_json(r: &Resolution, snap: &Snapshot) -> Json {
    let suggested = suggestions_for(snap, resolution_rows(r));
    let find = |row: &Json| {
        row.as_u64()
            .and_then(|row| suggested.iter().find(|(r, _)| *r as u64 == row))
            .map_or(Json::Null, |(_, s)| s.json())
    };
    let mut v = serde_json::to_value(r).unwrap_or_default();
    if let Resolution::Unique { .. } = r {
        v["suggestion"] = find(&v["row"]);
    }
    for list in ["candidates", "near_misses"] {
        if let Some(items) = v.get_mut(list).and_then(Json::as_array_mut) {
            for item in items {
                item["suggestion"] = find(&item["row"]);
            }
        }
    }
    v
}

/// Human form of a resolution.
pub fn resolution_text(target: &Target, fresh: &Fresh) -> String {
    let mut out = String::new();
    let t = target.to_string();
    let suggested = suggestions_for(&fresh.snapshot, resolution_rows(&fresh.resolution));
    match &fresh.resolution {
        Resolution::Unique {
            row,
            token,
            why,
            path,
            ..
        } => {
            out.push_str(&format!("unique: {token} (row {row})  {path}  ({why})\n"));
            if let Some((_, s)) = suggested.first() {
                out.push_str(&format!("suggested target: {}  ({})\n", s.target, s.grade));
            }
        }
        Resolution::Ambiguous { count, candidates } => {
            out.push_str(&format!(
                "ambiguous: {count} elements match {t}; candidates:\n"
            ));
            candidate_lines(&mut out, candidates, &suggested);
        }
        Resolution::NotFound { count, near_misses } => {
            if *count > 0 {
                out.push_str(&format!(
                    "not found: {t} asks for #{}, but only {count} element{} match without the \
                     position (after {} reads in {} ms)\n",
                    target.nth().unwrap_or(0),
                    if *count == 1 { "" } else { "s" },
                    fresh.reads,
                    fresh.waited.as_millis()
                ));
            } else {
                out.push_str(&format!(
                    "not found: nothing matches {t} (after {} reads in {} ms)\n",
                    fresh.reads,
                    fresh.waited.as_millis()
                ));
            }
            if !near_misses.is_empty() {
                out.push_str(if *count > 0 {
                    "matches:\n"
                } else {
                    "closest:\n"
                });
                candidate_lines(&mut out, near_misses, &suggested);
            }
        }
        Resolution::Incomplete {
            count,
            candidates,
            near_misses,
            reason,
        } => {
            out.push_str(&format!(
                "incomplete tree ({reason}): {count} matches in what was read; uniqueness cannot be claimed\n"
            ));
            candidate_lines(&mut out, candidates, &suggested);
            if !near_misses.is_empty() {
                out.push_str("closest:\n");
                candidate_lines(&mut out, near_misses, &suggested);
            }
        }
    }
    out
}

/// Human form of a write result: before → dispatched → samples → verdict.
pub fn write_text(r: &WriteResult) -> String {
    let mut out = String::new();
    let what = match (&r.target, &r.token) {
        (Some(t), Some(k)) => format!("{t}  ({k}, {})", r.role),
        (Some(t), None) => t.clone(),
        _ => r.node.to_string(),
    };
    out.push_str(&format!("element:    {what}\n"));
    out.push_str(&format!("requested:  {}\n", r.requested));
    if let Some(b) = &r.before {
        out.push_str(&format!("before:     {b}\n"));
    }
    if r.dispatched {
        out.push_str(&format!(
            "dispatched: {} ({} ms){}\n",
            r.method.as_deref().unwrap_or("?"),
            r.timings.dispatch_ms,
            if r.acks.is_empty() {
                String::new()
            } else {
                format!("  toolkit said: {}", r.acks.join("; "))
            }
        ));
    } else {
        out.push_str("dispatched: nothing was sent\n");
    }
    for s in &r.samples {
        out.push_str(&format!("  +{:>7.1} ms  {}\n", s.at_ms, s.value));
    }
    if !r.events.is_empty() {
        out.push_str(&format!("events:     {}\n", r.events.join(", ")));
    }
    if let Some(o) = &r.observed {
        out.push_str(&format!("observed:   {o}\n"));
    }
    let kind = r
        .mismatch
        .map(|k| format!(" ({})", k.as_str()))
        .unwrap_or_default();
    out.push_str(&format!(
        "verdict:    {}{kind} — {}\n            {}\n",
        r.outcome.as_str(),
        sanitize(&r.reason, 300),
        r.advice
    ));
    out
}
