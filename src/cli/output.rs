//! Text and JSON forms of apps, trees and nodes for the command line. Every string that came
//! from an application goes through `sanitize` before it is printed.

use serde_json::Value as Json;

use crate::backend::AppInfo;
use crate::fold;
pub use crate::model::display::{key_states, node_line, value_text};
pub use crate::model::json::{node_json, tree_json};
use crate::model::{Snapshot, quoted, sanitize};
use crate::session::Fresh;
use crate::target::{Candidate, Resolution, Target};
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

pub fn tree_text(snap: &Snapshot, raw: bool, targets: Option<&[Option<String>]>) -> String {
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
        let suggestion = match targets.map(|t| t.get(line.row).cloned().flatten()) {
            Some(Some(t)) => format!("    ⇒ {t}"),
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

fn candidate_lines(out: &mut String, cands: &[Candidate]) {
    for c in cands {
        out.push_str(&format!("  {}  {}  ({})\n", c.token, c.path, c.why));
    }
}

/// Human form of a resolution.
pub fn resolution_text(target: &Target, fresh: &Fresh) -> String {
    let mut out = String::new();
    let t = target.to_string();
    match &fresh.resolution {
        Resolution::Unique {
            row,
            token,
            why,
            path,
            ..
        } => {
            out.push_str(&format!("unique: {token} (row {row})  {path}  ({why})\n"));
        }
        Resolution::Ambiguous { count, candidates } => {
            out.push_str(&format!(
                "ambiguous: {count} elements match {t}; candidates:\n"
            ));
            candidate_lines(&mut out, candidates);
        }
        Resolution::NotFound { near_misses } => {
            out.push_str(&format!(
                "not found: nothing matches {t} (after {} reads in {} ms)\n",
                fresh.reads,
                fresh.waited.as_millis()
            ));
            if !near_misses.is_empty() {
                out.push_str("closest:\n");
                candidate_lines(&mut out, near_misses);
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
            candidate_lines(&mut out, candidates);
            if !near_misses.is_empty() {
                out.push_str("closest:\n");
                candidate_lines(&mut out, near_misses);
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
            "dispatched: {} [{} path] ({} ms){}\n",
            r.method.as_deref().unwrap_or("?"),
            r.path.map_or("?", |p| p.as_str()),
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
