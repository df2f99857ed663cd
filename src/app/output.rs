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
        out.push_str("no applications on the accessibility bus\n");
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
        serde_json::json!({ "target": self.target, "grade": self.grade })
    }

    /// `⇒ target  (grade)`.
    pub fn text(&self) -> String {
        format!("⇒ {}  ({})", self.target, self.grade)
    }
}

/// Every node's suggested target and grade, by row (`None` where there is none).
pub fn suggested_all(snap: &Snapshot) -> Vec<Option<Suggested>> {
    crate::selector::suggest_all(snap)
        .iter()
        .map(|t| t.as_ref().map(Suggested::of))
        .collect()
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
        snap.app.quoted(60),
        if snap.window.is_empty() {
            String::new()
        } else {
            format!(" / {}", snap.window.quoted(60))
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
            indentation(line.level),
            node_line(n),
            suggestion
        ));
    }
    out
}

/// Levels of a text tree that are indented; a deeper line shares the last indentation and
/// says its level (`[3000] `), so a tree thousands of levels deep prints in a size that grows
/// with its node count, not with the square of its depth.
pub const TEXT_INDENT_MAX: usize = 40;

fn indentation(level: usize) -> String {
    if level <= TEXT_INDENT_MAX {
        "  ".repeat(level)
    } else {
        format!("{}[{level}] ", "  ".repeat(TEXT_INDENT_MAX))
    }
}

/// Why a snapshot is not the whole tree, for a message: which limit cut it (and the option
/// that raises it), and the elements that could not be read, the silent ones named with their
/// calls (at most 5).
pub fn incomplete_why(snap: &Snapshot) -> String {
    use crate::model::Truncation;
    let counted = crate::model::display::counted;
    let mut parts = Vec::new();
    // Every cap that cut, each with what it left out and the option that raises it.
    let cuts = snap.cuts;
    // A count of 0 beside a cap that fired: the backend did not count what it cut.
    let how_many = |n: usize, beyond: &str| match n {
        0 => format!("elements {beyond} were not read"),
        1 => format!("1 element {beyond} was not read"),
        n => format!("{n} elements {beyond} were not read"),
    };
    if cuts.max_nodes > 0 || snap.truncated == Some(Truncation::NodeCap) {
        let mut s = format!(
            "the read stopped at {} (--max-nodes raises it)",
            counted(snap.nodes.len(), "node", "nodes")
        );
        if cuts.max_nodes > 0 {
            s.push_str(&format!(
                ", leaving out {} it had listed (and what is below them)",
                counted(cuts.max_nodes, "element", "elements")
            ));
        }
        parts.push(s);
    }
    if cuts.max_depth > 0 || snap.truncated == Some(Truncation::DepthCap) {
        parts.push(how_many(cuts.max_depth, "below --max-depth"));
    }
    if cuts.max_children > 0 || snap.truncated == Some(Truncation::SiblingCap) {
        parts.push(how_many(
            cuts.max_children,
            "beyond --max-children (per element)",
        ));
    }
    match snap.truncated {
        None | Some(Truncation::NodeCap | Truncation::DepthCap | Truncation::SiblingCap) => {}
        Some(t) => parts.push(format!("the read was cut short ({})", t.as_str())),
    }
    if snap.unreadable > 0 {
        let mut s = format!(
            "{} could not be read",
            crate::model::display::counted(snap.unreadable, "element", "elements")
        );
        let named: Vec<String> = snap
            .unreadable_elements
            .iter()
            .take(5)
            .map(|u| {
                format!(
                    "{} (listed by {}): {} {}",
                    u.element, u.parent, u.call, u.why
                )
            })
            .collect();
        if !named.is_empty() {
            s.push_str(" — ");
            s.push_str(&named.join("; "));
            if snap.unreadable > named.len() {
                s.push_str(&format!("; and {} more", snap.unreadable - named.len()));
            }
        }
        parts.push(s);
    }
    let partial = snap.partial();
    if partial > 0 {
        let silent: Vec<String> = snap
            .nodes
            .iter()
            .filter_map(|n| {
                n.unanswered_note()
                    .map(|why| format!("{}: {why}", crate::model::display::described(n)))
            })
            .collect();
        let mut s = format!(
            "{} read only in part — ",
            crate::model::display::counted(partial, "element", "elements")
        );
        s.push_str(
            &silent
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("; "),
        );
        if silent.len() > 5 {
            s.push_str(&format!("; and {} more", silent.len() - 5));
        }
        parts.push(s);
    }
    if let Some(m) = left_out_managed(snap) {
        parts.push(m);
    }
    format!("the tree is incomplete: {}", parts.join("; "))
}

/// What the containers that are not enumerated left out, or `None` when there are none:
/// `1 container is not enumerated by design (…): 12 of 120,000 shown`.
pub fn left_out_managed(snap: &Snapshot) -> Option<String> {
    let m = snap.managed_shown();
    if m.containers == 0 {
        return None;
    }
    Some(format!(
        "{} not enumerated by design (managing its descendants, or claiming too many): {} of {} \
         shown",
        crate::model::display::counted(m.containers, "container is", "containers are"),
        crate::model::group_digits(m.shown as i64),
        crate::model::group_digits(m.claimed)
    ))
}

/// One node as an answer under a size budget shows it: [`node_json`]'s fields less those an
/// agent does not act on (the backend's `id`, `raw_role`, `interfaces`) and less every empty one
/// (a `""` description, a `null` label or value, no actions), with its suggested `target` and,
/// when folding hid wrappers above it, how many (`folded`).
pub fn node_brief(
    snap: &Snapshot,
    row: usize,
    suggested: Option<&Suggested>,
    folded: usize,
) -> Json {
    let mut v = crate::model::json::node_json(snap, row);
    if let Json::Object(m) = &mut v {
        for k in ["id", "raw_role", "interfaces"] {
            m.remove(k);
        }
        m.retain(|_, v| match v {
            Json::Null => false,
            Json::String(s) => !s.is_empty(),
            Json::Array(a) => !a.is_empty(),
            _ => true,
        });
        if let Some(s) = suggested {
            m.insert("target".into(), s.target.clone().into());
            m.insert("grade".into(), serde_json::json!(s.grade));
        }
        if folded > 0 {
            m.insert("folded".into(), folded.into());
        }
    }
    v
}

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

/// ", incomplete: …" or "".
pub fn completeness(snap: &Snapshot) -> String {
    let mut parts = Vec::new();
    if let Some(t) = snap.truncated {
        parts.push(format!("truncated by {}", t.as_str()));
    }
    if snap.unreadable > 0 {
        parts.push(format!("{} unreadable", snap.unreadable));
    }
    let partial = snap.partial();
    if partial > 0 {
        parts.push(format!("{partial} read in part"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" (incomplete: {})", parts.join(", "))
    }
}

/// Opens a node's object and writes its entries up to its `children` array, which it opens
/// (keys in alphabetical order, as in [`node_json`]).
fn start_node<W: Write>(
    w: &mut crate::json::Writer<W>,
    snap: &Snapshot,
    row: usize,
    actions: bool,
) -> io::Result<()> {
    w.begin_object()?;
    if actions {
        w.entry("actions", &snap.nodes[row].actions)?;
    }
    w.key("children")?;
    w.begin_array()
}

/// Closes a node's `children` array, writes its other entries and closes the node.
fn end_node<W: Write>(
    w: &mut crate::json::Writer<W>,
    snap: &Snapshot,
    row: usize,
    targets: Option<&[Option<Suggested>]>,
) -> io::Result<()> {
    let n = &snap.nodes[row];
    let suggested = targets.map(|t| t.get(row).and_then(Option::as_ref));
    w.end_array()?;
    w.entry("description", &n.description)?;
    if let Some(s) = suggested {
        w.entry("grade", &s.map(|s| s.grade))?;
    }
    w.entry("id", &n.id)?;
    w.entry("interfaces", &n.interfaces)?;
    w.entry("label", &n.label)?;
    if !n.malformed.is_empty() {
        w.entry("malformed", &n.malformed)?;
    }
    if let Some(m) = &n.managed {
        w.entry("managed", m)?;
    }
    w.entry("name", &n.name)?;
    w.entry("raw_role", &n.raw_role)?;
    if !n.refused.is_empty() {
        w.entry("refused", &n.refused)?;
    }
    if let Some(r) = &n.repeat {
        w.entry("repeat", r)?;
    }
    w.entry("role", &n.role)?;
    w.entry("row", &row)?;
    w.entry("states", &n.states)?;
    if let Some(s) = suggested {
        w.entry("target", &s.map(|s| s.target.as_str()))?;
    }
    w.entry("token", &snap.token(row).to_string())?;
    if !n.unanswered.is_empty() {
        w.entry("unanswered", &n.unanswered)?;
    }
    w.entry("value", &value_json(n))?;
    if !n.vanished.is_empty() {
        w.entry("vanished", &n.vanished)?;
    }
    w.end_object()
}

/// Writes the snapshot as JSON: metadata and the nested tree (`children` in every node), keys
/// in alphabetical order, the same fields as [`node_json`]; `targets`, when given, adds each
/// node's suggested target and its grade (`null` where there is none); `actions` keeps each
/// node's action names (left out when the read did not ask for them: an empty list would say
/// "none"). Streamed node by node without recursion: besides the snapshot, only the nodes on
/// the path to the current one are held, however deep or large the tree.
pub fn write_tree_json(
    out: &mut dyn Write,
    snap: &Snapshot,
    targets: Option<&[Option<Suggested>]>,
    actions: bool,
) -> io::Result<()> {
    let mut w = crate::json::Writer::new(out);
    w.begin_object()?;
    w.entry("all_elements", &snap.all_elements())?;
    w.entry("app", &snap.app)?;
    w.entry("complete", &snap.complete())?;
    w.entry("left_out", &snap.left_out_json())?;
    w.entry("node_count", &snap.nodes.len())?;
    w.entry("partial", &snap.partial())?;
    w.entry("read_ms", &((snap.read_ms * 100.0).round() / 100.0))?;
    w.key("root")?;
    if snap.nodes.is_empty() {
        w.value(&Json::Null)?;
    } else {
        // The path to the node being written: each open node's row and its next child's index
        // (two words a level, however big the nodes).
        let mut open: Vec<(usize, usize)> = vec![(0, 0)];
        start_node(&mut w, snap, 0, actions)?;
        while let Some((row, next)) = open.last_mut() {
            if let Some(&child) = snap.nodes[*row].children.get(*next) {
                *next += 1;
                w.element()?;
                start_node(&mut w, snap, child, actions)?;
                open.push((child, 0));
            } else {
                let row = *row;
                open.pop();
                end_node(&mut w, snap, row, targets)?;
            }
        }
    }
    w.entry("snapshot", &snap.id.to_string())?;
    w.entry("truncated", &snap.truncated.map(|t| t.as_str()))?;
    w.entry("unreadable", &snap.unreadable)?;
    if !snap.unreadable_elements.is_empty() {
        w.entry("unreadable_elements", &snap.unreadable_elements)?;
    }
    w.entry("window", &snap.window)?;
    w.end_object()
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
    // Elements whose off-screen descendants were not searched (only their visible ones).
    let managed = managed_rows(snap);
    if !managed.is_empty() {
        v["not_searched"] = managed
            .iter()
            .map(|&row| {
                serde_json::json!({
                    "token": snap.token(row).to_string(),
                    "path": snap.path_string(row),
                    "managed": snap.nodes[row].managed,
                })
            })
            .collect();
    }
    v
}

/// Human form of a resolution.
pub fn resolution_text(target: &Target, fresh: &Fresh) -> String {
    let mut out = String::new();
    let t = target.to_string();
    // A narrowed snapshot holds the element's path alone: nothing suggested from it would be
    // unique for the window.
    let suggested = match fresh.narrowed {
        Some(_) => Vec::new(),
        None => suggestions_for(&fresh.snapshot, resolution_rows(&fresh.resolution)),
    };
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
            if let Some(n) = fresh.narrowed {
                out.push_str(&format!(
                    "searched: {} the application found for the role (Collection); the tree \
                     was not read\n",
                    if n == 1 {
                        "1 element".to_string()
                    } else {
                        format!("{} elements", crate::model::group_digits(n as i64))
                    }
                ));
            }
        }
        Resolution::Ambiguous { count, candidates } => {
            out.push_str(&format!(
                "ambiguous: {count} elements match {t}; candidates:\n"
            ));
            candidate_lines(&mut out, candidates, &suggested);
        }
        Resolution::NotFound {
            count,
            near_misses,
            fuzzy_only,
        } => {
            let after = waited(fresh);
            if *fuzzy_only {
                out.push_str(&format!(
                    "not found: nothing matches {t} exactly or as a substring ({after}); a \
                     write never goes to a fuzzy match — name one of these exactly:\n"
                ));
                candidate_lines(&mut out, near_misses, &suggested);
                out.push_str(&managed_note(&fresh.snapshot));
                return out;
            }
            if *count > 0 {
                out.push_str(&format!(
                    "not found: {t} asks for #{}, but only {count} element{} match without the \
                     position ({after})\n",
                    target.nth().unwrap_or(0),
                    if *count == 1 { "" } else { "s" },
                ));
            } else {
                out.push_str(&format!("not found: nothing matches {t} ({after})\n"));
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
    out.push_str(&managed_note(&fresh.snapshot));
    out
}

/// How long a resolution read and waited, and why it stopped waiting when the app was at
/// rest: "after 2 reads in 1204 ms", or "after 1 read in 503 ms; the app is at rest: --wait-ms
/// waits for it to appear".
fn waited(fresh: &Fresh) -> String {
    let mut s = format!(
        "after {} in {} ms",
        crate::model::count(fresh.reads, "read"),
        fresh.waited.as_millis()
    );
    if fresh.at_rest {
        s.push_str("; the app is at rest: --wait-ms MS waits for it to appear");
    }
    s
}

/// The elements of `snap` whose children were not enumerated (they manage their descendants):
/// their rows, at most [`MANAGED_NOTED`].
fn managed_rows(snap: &Snapshot) -> Vec<usize> {
    snap.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.managed.is_some())
        .map(|(row, _)| row)
        .take(MANAGED_NOTED)
        .collect()
}

/// How many elements that are not enumerated a resolution names.
const MANAGED_NOTED: usize = 5;

/// What a resolution did not search: the off-screen descendants of elements that manage their
/// own (only the visible ones were read). Empty when there are none.
fn managed_note(snap: &Snapshot) -> String {
    let rows = managed_rows(snap);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "not searched: what these elements hold off screen (they manage their descendants; only \
         the visible ones were read):\n",
    );
    for row in rows {
        let n = &snap.nodes[row];
        let what = match n.managed.as_deref() {
            Some(m) => m.describe(),
            None => String::new(),
        };
        out.push_str(&format!(
            "  {}  {}  — {what}\n",
            snap.token(row),
            snap.path_string(row)
        ));
    }
    out
}

/// `find --json`: the resolution, the target, the snapshot it was resolved in, how many reads
/// and how long it took.
pub fn find_json(target: &Target, fresh: &Fresh) -> Json {
    let mut v = resolution_json(&fresh.resolution, &fresh.snapshot);
    if let Some(n) = fresh.narrowed {
        // The snapshot holds the element's path alone: no suggestion from it is unique.
        if let Some(o) = v.as_object_mut() {
            o.remove("suggestion");
        }
        v["narrowed"] = serde_json::json!({ "candidates": n });
    }
    if let Some(row) = fresh.resolution.unique_row() {
        v["id"] = serde_json::to_value(&fresh.snapshot.nodes[row].id).unwrap_or_default();
    }
    v["target"] = target.to_string().into();
    v["snapshot"] = fresh.snapshot.id.to_string().into();
    v["reads"] = fresh.reads.into();
    v["waited_ms"] = (fresh.waited.as_millis() as u64).into();
    v
}

/// `set --json` / `invoke --json` of a result whose echoes are capped ([`cap_echoes`]).
pub fn write_json(r: &WriteResult) -> Json {
    serde_json::to_value(r).unwrap_or_default()
}

/// Cuts every echoed value of `r` to [`ECHO_CHARS`] characters.
pub fn cap_echoes(r: &mut WriteResult) {
    cap(&mut r.requested);
    for v in [&mut r.before, &mut r.observed].into_iter().flatten() {
        cap(v);
    }
    for s in &mut r.samples {
        cap(&mut s.value);
    }
}

/// Human form of a write result: before → dispatched → samples → verdict. The method and the
/// toolkit's answers came from the app and are escaped here; the echoed values were escaped
/// by the write engine.
pub fn write_text(r: &WriteResult) -> String {
    let mut out = String::new();
    // The element written, by its own role and name; the target as typed after it (a target
    // can be a substring of the name).
    let what = match (&r.target, &r.token) {
        (Some(t), Some(k)) => {
            let named = if r.name.is_empty() {
                r.role.to_string()
            } else {
                format!("{} {}", r.role, r.name.quoted(80))
            };
            format!("{named}  ({k}; target {})", sanitize(t, 0))
        }
        (Some(t), None) => sanitize(t, 0).into_owned(),
        _ => literal(&r.node.0, 0).into_owned(),
    };
    out.push_str(&format!("element:    {what}\n"));
    out.push_str(&format!(
        "requested:  {}\n",
        sanitize(&r.requested, ECHO_CHARS)
    ));
    if let Some(b) = &r.before {
        out.push_str(&format!("before:     {}\n", sanitize(b, ECHO_CHARS)));
    }
    if r.dispatched {
        out.push_str(&format!(
            "dispatched: {} [{} path] ({} ms){}\n",
            r.method.as_ref().map_or("?".into(), |m| m.literal(120)),
            r.path.map_or("?", |p| p.as_str()),
            r.timings.dispatch_ms,
            if r.acks.is_empty() {
                String::new()
            } else {
                format!(
                    "  toolkit said: {}",
                    r.acks
                        .iter()
                        .map(|a| a.literal(200))
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            }
        ));
    } else {
        out.push_str("dispatched: nothing was sent\n");
    }
    for s in &r.samples {
        out.push_str(&format!(
            "  +{:>7.1} ms  {}\n",
            s.at_ms,
            sanitize(&s.value, ECHO_CHARS)
        ));
    }
    if !r.events.is_empty() {
        out.push_str(&format!(
            "events:     {}\n",
            r.events
                .iter()
                .map(|e| sanitize(e, 120))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(o) = &r.observed {
        out.push_str(&format!("observed:   {}\n", sanitize(o, ECHO_CHARS)));
    }
    let kind = r
        .mismatch
        .map(|k| format!(" ({})", k.as_str()))
        .unwrap_or_default();
    // A reason may span lines (a refusal lists candidates): each line is sanitized on its own
    // and indented under the first, as `find` prints the same list.
    let reason = r
        .reason
        .lines()
        .take(REASON_LINES)
        .map(|l| sanitize(l, 300).into_owned())
        .collect::<Vec<_>>()
        .join("\n            ");
    out.push_str(&format!(
        "verdict:    {}{kind} — {reason}\n            {}\n",
        r.outcome.as_str(),
        r.advice
    ));
    out
}

/// The most lines of a write's reason printed (a refusal's candidate list is capped before).
const REASON_LINES: usize = 16;

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
