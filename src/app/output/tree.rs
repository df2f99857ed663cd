//! A tree as text and as streamed JSON, one node in brief, and what a snapshot left out.

use super::*;

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

pub(super) fn indentation(level: usize) -> String {
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
