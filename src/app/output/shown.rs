//! A page of shown nodes (`tree` with `--shown`, MCP's pages): as nested JSON and as text.

use super::*;

/// The most levels an answer's tree nests: a line deeper than that below its page root starts a
/// root of its own (with its `parent`), so no document — nor its serialization, nor its drop —
/// nests without bound.
pub const MAX_NEST: usize = 64;

/// The nodes of a page of [`crate::app::state::Shown`]: a tree form as `root` (one top node) or
/// `roots` (several: each with its `parent`'s token and its `path`), a list as `elements` (each
/// with its `path` and its `parent`'s token). Built without recursion.
pub fn shown_nodes(
    snap: &Snapshot,
    shown: &crate::app::state::Shown,
    targets: &[Option<Suggested>],
) -> serde_json::Map<String, Json> {
    use crate::app::state::Form;
    let brief = |l: &fold::Line| {
        node_brief(
            snap,
            l.row,
            targets.get(l.row).and_then(Option::as_ref),
            l.folded,
        )
    };
    let mut out = serde_json::Map::new();
    if shown.form != Form::Tree {
        let elements: Vec<Json> = shown
            .lines
            .iter()
            .map(|l| {
                let mut v = brief(l);
                v["path"] = snap.path_string(l.row).into();
                if let Some(p) = snap.nodes[l.row].parent {
                    v["parent"] = snap.token(p).to_string().into();
                }
                v
            })
            .collect();
        out.insert("elements".into(), Json::Array(elements));
        return out;
    }
    // Open nodes on the path to the current line: (level, depth below its page root, doc).
    let mut open: Vec<(usize, usize, Json)> = Vec::new();
    let mut roots: Vec<Json> = Vec::new();
    let close = |open: &mut Vec<(usize, usize, Json)>, roots: &mut Vec<Json>| {
        if let Some((_, _, done)) = open.pop() {
            match open.last_mut() {
                Some((_, _, parent)) => {
                    if let Some(Json::Array(kids)) = parent.get_mut("children") {
                        kids.push(done);
                    }
                }
                None => roots.push(done),
            }
        }
    };
    for line in &shown.lines {
        while open
            .last()
            .is_some_and(|(level, _, _)| *level >= line.level)
        {
            close(&mut open, &mut roots);
        }
        // Its parent line is open only when it is the line one level up.
        let under = open
            .last()
            .filter(|(level, depth, _)| *level + 1 == line.level && *depth + 1 < MAX_NEST)
            .map(|(_, depth, _)| depth + 1);
        if under.is_none() {
            while !open.is_empty() {
                close(&mut open, &mut roots);
            }
        }
        let mut doc = brief(line);
        doc["children"] = Json::Array(Vec::new());
        if under.is_none() && line.row != 0 {
            if let Some(p) = snap.nodes[line.row].parent {
                doc["parent"] = snap.token(p).to_string().into();
            }
            doc["path"] = snap.path_string(line.row).into();
        }
        open.push((line.level, under.unwrap_or(0), doc));
    }
    while !open.is_empty() {
        close(&mut open, &mut roots);
    }
    if roots.len() == 1 && shown.from == 0 {
        out.insert("root".into(), roots.pop().unwrap_or(Json::Null));
    } else {
        out.insert("roots".into(), Json::Array(roots));
    }
    out
}

/// A page of [`crate::app::state::Shown`] as a JSON document: its nodes ([`shown_nodes`]), what
/// was read (`node_count`, `partial`, `unreadable`, `truncated`), what the ask selected and how
/// much of it this page shows (`form`, `selected`, `shown`, `from`), and, when it is not all,
/// what was left out by role (`omitted`). `complete` only when the read was whole and the page
/// shows all it selected.
pub fn shown_doc(
    snap: &Snapshot,
    shown: &crate::app::state::Shown,
    targets: &[Option<Suggested>],
    folded: bool,
) -> Json {
    let mut doc = Json::Object(shown_nodes(snap, shown, targets));
    doc["app"] = snap.app.as_str().into();
    doc["window"] = snap.window.as_str().into();
    doc["snapshot"] = snap.id.to_string().into();
    doc["read_ms"] = ((snap.read_ms * 100.0).round() / 100.0).into();
    doc["node_count"] = snap.nodes.len().into();
    doc["partial"] = snap.partial().into();
    doc["unreadable"] = snap.unreadable.into();
    if !snap.unreadable_elements.is_empty() {
        doc["unreadable_elements"] =
            serde_json::to_value(&snap.unreadable_elements).unwrap_or(Json::Null);
    }
    doc["truncated"] = snap.truncated.map(|t| t.as_str()).into();
    doc["complete"] = (shown.whole() && snap.complete()).into();
    doc["all_elements"] = (shown.whole() && snap.all_elements()).into();
    doc["left_out"] = snap.left_out_json();
    doc["folded"] = folded.into();
    doc["form"] = shown.form.as_str().into();
    doc["shown"] = shown.lines.len().into();
    doc["selected"] = shown.total.into();
    if shown.below_depth > 0 {
        doc["below_max_depth"] = shown.below_depth.into();
    }
    if shown.showing_unknown {
        doc["showing_unknown"] = SHOWING_UNKNOWN.into();
    }
    if shown.from > 0 {
        doc["from"] = shown.from.into();
    }
    if !shown.whole() {
        let by_role: serde_json::Map<String, Json> = shown
            .omitted
            .iter()
            .map(|(r, n)| (r.clone(), (*n).into()))
            .collect();
        doc["omitted"] = serde_json::json!({"count": shown.omitted_count(), "by_role": by_role});
    }
    doc
}

/// Why `showing_only` was not applied to a tree.
pub const SHOWING_UNKNOWN: &str = "the app does not say which of its elements are showing (its \
     elements are visible and none is showing: GTK 4 marks only its windows): showing_only was \
     not applied";

/// A page as text: the tree lines (indented from the page's shallowest) or the list, each with
/// its suggested target; the paths of a list's elements.
pub fn shown_text(
    snap: &Snapshot,
    shown: &crate::app::state::Shown,
    targets: &[Option<Suggested>],
    tokens: bool,
) -> String {
    use crate::app::state::Form;
    let base = shown.lines.iter().map(|l| l.level).min().unwrap_or(0);
    let mut out = String::new();
    if shown.showing_unknown {
        out.push_str(&format!("note: {SHOWING_UNKNOWN}\n"));
    }
    for l in &shown.lines {
        let n = &snap.nodes[l.row];
        let suggestion = match targets.get(l.row).and_then(Option::as_ref) {
            Some(t) => format!("    {}", t.text()),
            None => String::new(),
        };
        let token = if tokens {
            format!("  {}", snap.token(l.row))
        } else {
            String::new()
        };
        match shown.form {
            Form::Tree => out.push_str(&format!(
                "{:>5}  {}{}{}{token}\n",
                l.row,
                indentation(l.level - base),
                node_line(n),
                suggestion,
            )),
            _ => out.push_str(&format!(
                "{:>5}  {}{}{token}\n        in {}\n",
                l.row,
                node_line(n),
                suggestion,
                snap.path_string(l.row)
            )),
        }
    }
    out
}
