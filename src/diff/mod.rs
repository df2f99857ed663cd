//! `treeglass diff`: what changed between two snapshots of a window's tree (files written by
//! `tree --json`, or one of them read live), so a team can keep an app's accessibility tree
//! under review the way browser engines keep tree dumps.
//!
//! Elements are matched, in order:
//! 1. by id, when the two trees share most ids (the same app process: AT-SPI object paths,
//!    UIA runtime ids);
//! 2. by their path: the chain of (role, name, which of its same-role-and-name siblings) from
//!    the root — what stays the same across runs of an app;
//! 3. what is left, under a matched parent, by role and position among the parent's unmatched
//!    children of that role: a renamed element;
//! 4. what is left, by a role and name found once on each side: a moved element.
//!
//! Everything still unmatched was removed (first tree) or added (second).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value as Json;

use crate::model::{Snapshot, sanitize};

pub mod baseline;
mod file;

/// One element of a tree, as the diff sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: String,
    pub role: String,
    pub name: String,
    pub description: String,
    /// The value as `tree --json` writes it (`null` for none).
    pub value: Json,
    pub states: Vec<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
}

/// A tree in pre-order (row 0 is the root).
#[derive(Debug, Clone, Default)]
pub struct Tree {
    pub window: String,
    pub entries: Vec<Entry>,
}

/// What happened to one element.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Added,
    Removed,
    Changed,
    Moved,
}

/// One field that differs: its name, before, after (as JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    pub field: &'static str,
    pub before: Json,
    pub after: Json,
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub kind: Kind,
    /// The element's id in the second tree (the first for a removed element).
    pub id: String,
    pub role: String,
    /// The name in the second tree (the first for a removed element).
    pub name: String,
    /// The element's path in the second tree (the first for a removed element).
    pub path: String,
    /// Where a moved element was, in the first tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
    /// A target for the element in the second tree, when the tree came from a live read that
    /// can suggest one (a write's change set); `None` for a removed element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

impl Tree {
    /// A tree from a `tree --json` document, however deep (read without recursion).
    pub fn from_json(text: &str) -> Result<Tree, String> {
        file::read(text)
    }

    /// A tree from a snapshot read now, with the fields `tree --json` writes for it (the same
    /// serializations: role and state names, `value_json`), row for row: both are pre-order.
    pub fn from_snapshot(snap: &Snapshot) -> Result<Tree, String> {
        let text = |v: serde_json::Result<Json>| match v {
            Ok(Json::String(s)) => Ok(s),
            Ok(other) => Err(format!("not a name: {other}")),
            Err(e) => Err(e.to_string()),
        };
        let repeats: Vec<bool> = snap.nodes.iter().map(|n| n.repeat.is_some()).collect();
        let entries = snap
            .nodes
            .iter()
            .map(|n| {
                Ok(Entry {
                    id: n.id.0.clone(),
                    role: text(serde_json::to_value(n.role))?,
                    name: n.name.as_str().to_string(),
                    description: n.description.as_str().to_string(),
                    value: crate::model::json::value_json(n),
                    states: serde_json::from_value(
                        serde_json::to_value(n.states).map_err(|e| e.to_string())?,
                    )
                    .map_err(|e| e.to_string())?,
                    parent: n.parent,
                    children: n.children.clone(),
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(file::without_repeats(
            Tree {
                window: snap.window.as_str().to_string(),
                entries,
            },
            &repeats,
        ))
    }

    /// `role "name" > role "name" > …` from the root to `row`; in a tree deeper than
    /// [`PATH_LEVELS`], the levels above the last ones are counted, not named.
    pub fn path(&self, row: usize) -> String {
        let mut parts = Vec::new();
        let mut at = Some(row);
        let mut above = 0usize;
        while let Some(r) = at {
            if parts.len() < PATH_LEVELS {
                parts.push(label(&self.entries[r]));
            } else {
                above += 1;
            }
            at = self.entries[r].parent;
        }
        if above > 0 {
            parts.push(format!("… {above} levels"));
        }
        parts.reverse();
        parts.join(" > ")
    }
}

/// The most levels a change's path names.
pub const PATH_LEVELS: usize = 32;

/// Each element's path key in both trees: one number per distinct (parent's key, role, name,
/// index among same role-and-name siblings) chain from the root, shared by the two trees, so
/// equal numbers mean equal paths. Linear in the trees' sizes, whatever their depth (a key
/// that spelled out the path would grow with the square of it).
fn path_keys(a: &Tree, b: &Tree) -> (Vec<u32>, Vec<u32>) {
    let mut ids: HashMap<(u32, &str, &str, usize), u32> = HashMap::new();
    let ka = keys_of(a, &mut ids);
    let kb = keys_of(b, &mut ids);
    (ka, kb)
}

/// [`path_keys`] for one tree, numbering new chains in `ids`.
fn keys_of<'t>(t: &'t Tree, ids: &mut HashMap<(u32, &'t str, &'t str, usize), u32>) -> Vec<u32> {
    let mut keys: Vec<u32> = vec![0; t.entries.len()];
    // Per parent, how many children of each (role, name) came before.
    let mut seen: HashMap<(usize, &str, &str), usize> = HashMap::new();
    for (row, e) in t.entries.iter().enumerate() {
        let (parent_key, ordinal) = match e.parent {
            Some(p) if p < row => {
                let n = seen
                    .entry((p, e.role.as_str(), e.name.as_str()))
                    .or_default();
                let ordinal = *n;
                *n += 1;
                (keys[p] + 1, ordinal)
            }
            _ => (0, 0),
        };
        // The root is the window whatever its title says (an app that puts a document's name
        // or a run's number in it): its own name is left out of the paths below it, and a new
        // title shows as the root's change.
        let name = if row == 0 { "" } else { e.name.as_str() };
        let next = ids.len() as u32;
        keys[row] = *ids
            .entry((parent_key, e.role.as_str(), name, ordinal))
            .or_insert(next);
    }
    keys
}

fn label(e: &Entry) -> String {
    if e.name.is_empty() {
        e.role.clone()
    } else {
        format!("{} {}", e.role, crate::model::quoted(&e.name, 80))
    }
}

/// The differences from `a` to `b`, in `b`'s order (removed elements in `a`'s, after).
pub fn diff(a: &Tree, b: &Tree) -> Vec<Change> {
    let mut m = Matching {
        a_to_b: vec![None; a.entries.len()],
        b_taken: vec![false; b.entries.len()],
    };
    m.by_id(a, b);
    m.by_path(a, b);
    m.renamed(a, b);
    m.moved(a, b);
    changes(a, b, &m.a_to_b)
}

/// The elements of `a` matched in `b`, step by step: each step pairs only what the steps
/// before it left unmatched.
struct Matching {
    /// Each element of `a`'s match in `b`.
    a_to_b: Vec<Option<usize>>,
    /// Whether each element of `b` has been matched.
    b_taken: Vec<bool>,
}

impl Matching {
    fn pair(&mut self, ai: usize, bi: usize) {
        self.a_to_b[ai] = Some(bi);
        self.b_taken[bi] = true;
    }

    /// 1. By id, when the trees come from the same process.
    fn by_id(&mut self, a: &Tree, b: &Tree) {
        let b_ids: HashMap<&str, usize> = b
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.id.is_empty())
            .map(|(i, e)| (e.id.as_str(), i))
            .collect();
        let shared = a
            .entries
            .iter()
            .filter(|e| b_ids.contains_key(e.id.as_str()))
            .count();
        if !a.entries.is_empty() && shared * 2 > a.entries.len() {
            for (ai, e) in a.entries.iter().enumerate() {
                if let Some(&bi) = b_ids.get(e.id.as_str()) {
                    self.pair(ai, bi);
                }
            }
        }
    }

    /// 2. By path.
    fn by_path(&mut self, a: &Tree, b: &Tree) {
        let (ka, kb) = path_keys(a, b);
        let b_keys: HashMap<u32, usize> = kb.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        for (ai, key) in ka.iter().enumerate() {
            if self.a_to_b[ai].is_some() {
                continue;
            }
            if let Some(&bi) = b_keys.get(key)
                && !self.b_taken[bi]
            {
                self.pair(ai, bi);
            }
        }
    }

    /// 3. Renamed: under matched parents, by role and position among the unmatched.
    fn renamed(&mut self, a: &Tree, b: &Tree) {
        for ai in 0..a.entries.len() {
            let Some(bi) = self.a_to_b[ai] else {
                continue;
            };
            let left: Vec<usize> = a.entries[ai]
                .children
                .iter()
                .copied()
                .filter(|c| self.a_to_b[*c].is_none())
                .collect();
            let right: Vec<usize> = b.entries[bi]
                .children
                .iter()
                .copied()
                .filter(|c| !self.b_taken[*c])
                .collect();
            let mut used = vec![false; right.len()];
            for role in left
                .iter()
                .map(|c| a.entries[*c].role.clone())
                .collect::<Vec<_>>()
            {
                let l: Vec<usize> = left
                    .iter()
                    .copied()
                    .filter(|c| a.entries[*c].role == role && self.a_to_b[*c].is_none())
                    .collect();
                let r: Vec<usize> = (0..right.len())
                    .filter(|j| !used[*j] && b.entries[right[*j]].role == role)
                    .collect();
                // Only when the counts agree: otherwise something was added or removed too,
                // and which one was renamed cannot be told.
                if l.len() == r.len() {
                    for (x, j) in l.into_iter().zip(r) {
                        used[j] = true;
                        self.pair(x, right[j]);
                    }
                }
            }
        }
    }

    /// 4. Moved: a role and name found once among the unmatched of each side.
    fn moved(&mut self, a: &Tree, b: &Tree) {
        let count = |it: &mut dyn Iterator<Item = (String, String)>| {
            let mut m: HashMap<(String, String), usize> = HashMap::new();
            for k in it {
                *m.entry(k).or_default() += 1;
            }
            m
        };
        let ua = count(
            &mut a
                .entries
                .iter()
                .enumerate()
                .filter(|&(i, e)| self.a_to_b[i].is_none() && !e.name.is_empty())
                .map(|(_, e)| (e.role.clone(), e.name.clone())),
        );
        let ub = count(
            &mut b
                .entries
                .iter()
                .enumerate()
                .filter(|&(i, e)| !self.b_taken[i] && !e.name.is_empty())
                .map(|(_, e)| (e.role.clone(), e.name.clone())),
        );
        for ai in 0..a.entries.len() {
            let e = &a.entries[ai];
            let k = (e.role.clone(), e.name.clone());
            if self.a_to_b[ai].is_some() || ua.get(&k) != Some(&1) || ub.get(&k) != Some(&1) {
                continue;
            }
            if let Some(bi) = (0..b.entries.len()).find(|i| {
                !self.b_taken[*i] && b.entries[*i].role == e.role && b.entries[*i].name == e.name
            }) {
                self.pair(ai, bi);
            }
        }
    }
}

/// What each match says: `b`'s elements added, moved or changed in its order, then `a`'s
/// removed.
fn changes(a: &Tree, b: &Tree, a_to_b: &[Option<usize>]) -> Vec<Change> {
    let change =
        |kind: Kind, e: &Entry, path: String, from: Option<String>, fields: Vec<Field>| Change {
            kind,
            id: e.id.clone(),
            role: e.role.clone(),
            name: e.name.clone(),
            path,
            from,
            fields,
            target: None,
        };
    let mut b_to_a: Vec<Option<usize>> = vec![None; b.entries.len()];
    for (ai, m) in a_to_b.iter().enumerate() {
        if let Some(bi) = m {
            b_to_a[*bi] = Some(ai);
        }
    }
    let mut out = Vec::new();
    for (bi, eb) in b.entries.iter().enumerate() {
        let Some(ai) = b_to_a[bi] else {
            out.push(change(Kind::Added, eb, b.path(bi), None, Vec::new()));
            continue;
        };
        let ea = &a.entries[ai];
        let fields = fields(ea, eb);
        // Its parent is not the match of its old parent: it moved.
        let moved = match (ea.parent, eb.parent) {
            (Some(pa), Some(pb)) => a_to_b[pa] != Some(pb),
            (None, None) => false,
            _ => true,
        };
        if moved {
            out.push(change(
                Kind::Moved,
                eb,
                b.path(bi),
                Some(a.path(ai)),
                fields,
            ));
        } else if !fields.is_empty() {
            out.push(change(Kind::Changed, eb, b.path(bi), None, fields));
        }
    }
    for (ai, ea) in a.entries.iter().enumerate() {
        if a_to_b[ai].is_none() {
            out.push(change(Kind::Removed, ea, a.path(ai), None, Vec::new()));
        }
    }
    out
}

/// The fields of a matched pair that differ.
fn fields(a: &Entry, b: &Entry) -> Vec<Field> {
    let mut out = Vec::new();
    let mut text = |field: &'static str, x: &str, y: &str| {
        if x != y {
            out.push(Field {
                field,
                before: x.into(),
                after: y.into(),
            });
        }
    };
    text("role", &a.role, &b.role);
    text("name", &a.name, &b.name);
    text("description", &a.description, &b.description);
    if a.value != b.value {
        out.push(Field {
            field: "value",
            before: a.value.clone(),
            after: b.value.clone(),
        });
    }
    let gone: Vec<&String> = a.states.iter().filter(|s| !b.states.contains(s)).collect();
    let new: Vec<&String> = b.states.iter().filter(|s| !a.states.contains(s)).collect();
    if !gone.is_empty() || !new.is_empty() {
        out.push(Field {
            field: "states",
            before: gone.into_iter().cloned().collect::<Vec<_>>().into(),
            after: new.into_iter().cloned().collect::<Vec<_>>().into(),
        });
    }
    out
}

/// The differences as text: one line each, fields indented under it, a summary last.
pub fn text(changes: &[Change]) -> String {
    let mut out = lines(changes, "");
    out.push_str(&summary(changes));
    out.push('\n');
    out
}

/// One line per difference (fields indented under it), each line after `indent`.
pub fn lines(changes: &[Change], indent: &str) -> String {
    let mut out = String::new();
    for c in changes {
        let kind = match c.kind {
            Kind::Added => "added  ",
            Kind::Removed => "removed",
            Kind::Changed => "changed",
            Kind::Moved => "moved  ",
        };
        out.push_str(&format!("{indent}{kind}  {}\n", sanitize(&c.path, 400)));
        if let Some(from) = &c.from {
            out.push_str(&format!(
                "{indent}           from {}\n",
                sanitize(from, 400)
            ));
        }
        if let Some(t) = &c.target {
            out.push_str(&format!("{indent}           target {}\n", sanitize(t, 400)));
        }
        for f in &c.fields {
            let show = |v: &Json| match v {
                Json::String(s) => crate::model::quoted(s, 120),
                // A text value by its text; other values as their JSON.
                Json::Object(o) if o.get("text").is_some_and(Json::is_string) => {
                    crate::model::quoted(o["text"].as_str().unwrap_or_default(), 120)
                }
                Json::Array(a) if a.is_empty() => "—".into(),
                Json::Array(a) => a
                    .iter()
                    .map(|s| sanitize(s.as_str().unwrap_or_default(), 40).into_owned())
                    .collect::<Vec<_>>()
                    .join(" "),
                other => sanitize(&other.to_string(), 200).into_owned(),
            };
            let (before, after) = if f.field == "states" {
                (
                    format!("-{}", show(&f.before)),
                    format!("+{}", show(&f.after)),
                )
            } else {
                (show(&f.before), show(&f.after))
            };
            out.push_str(&format!(
                "{indent}           {}: {before} → {after}\n",
                f.field
            ));
        }
    }
    out
}

/// `no differences` or `3 differences: 1 added, 1 removed, 1 changed`.
pub fn summary(changes: &[Change]) -> String {
    if changes.is_empty() {
        return "no differences".into();
    }
    let n = |k: Kind| changes.iter().filter(|c| c.kind == k).count();
    let parts: Vec<String> = [
        (n(Kind::Added), "added"),
        (n(Kind::Removed), "removed"),
        (n(Kind::Changed), "changed"),
        (n(Kind::Moved), "moved"),
    ]
    .into_iter()
    .filter(|(c, _)| *c > 0)
    .map(|(c, w)| format!("{c} {w}"))
    .collect();
    format!(
        "{}: {}",
        crate::model::display::counted(changes.len(), "difference", "differences"),
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree from `(depth, role, name, id)` lines in pre-order.
    fn tree(lines: &[(usize, &str, &str, &str)]) -> Tree {
        let mut t = Tree::default();
        let mut stack: Vec<usize> = Vec::new();
        for (depth, role, name, id) in lines {
            stack.truncate(*depth);
            let row = t.entries.len();
            let parent = stack.last().copied();
            t.entries.push(Entry {
                id: id.to_string(),
                role: role.to_string(),
                name: name.to_string(),
                description: String::new(),
                value: Json::Null,
                states: Vec::new(),
                parent,
                children: Vec::new(),
            });
            if let Some(p) = parent {
                t.entries[p].children.push(row);
            }
            stack.push(row);
        }
        t
    }

    const BASE: &[(usize, &str, &str, &str)] = &[
        (0, "frame", "App", "a0"),
        (1, "panel", "Form", "a1"),
        (2, "button", "Save", "a2"),
        (2, "button", "Cancel", "a3"),
        (1, "list", "Items", "a4"),
        (2, "list-item", "Row 1", "a5"),
        (2, "list-item", "Row 2", "a6"),
    ];

    #[test]
    fn identical_trees_have_no_differences() {
        assert!(diff(&tree(BASE), &tree(BASE)).is_empty());
        assert_eq!(summary(&[]), "no differences");
    }

    #[test]
    fn a_renamed_button_is_one_change_across_runs_and_within_one() {
        let mut renamed = BASE.to_vec();
        renamed[2].2 = "Save as";
        // Other ids (another run of the app): matched by path, then by position.
        let other_run: Vec<_> = renamed
            .iter()
            .map(|(d, r, n, _)| (*d, *r, *n, ""))
            .collect();
        for b in [tree(&renamed), tree(&other_run)] {
            let d = diff(&tree(BASE), &b);
            assert_eq!(d.len(), 1, "{d:#?}");
            assert_eq!(d[0].kind, Kind::Changed);
            assert_eq!(
                d[0].path,
                r#"frame "App" > panel "Form" > button "Save as""#
            );
            assert_eq!(
                d[0].fields,
                [Field {
                    field: "name",
                    before: "Save".into(),
                    after: "Save as".into()
                }]
            );
        }
    }

    #[test]
    fn a_retitled_window_is_one_change_not_a_new_tree() {
        // Another run whose window title carries the run's name.
        let retitled: Vec<_> = BASE
            .iter()
            .enumerate()
            .map(|(i, (d, r, n, _))| (*d, *r, if i == 0 { "App — run 2" } else { *n }, ""))
            .collect();
        let d = diff(&tree(BASE), &tree(&retitled));
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].kind, Kind::Changed);
        assert_eq!(d[0].fields[0].field, "name");
    }

    #[test]
    fn an_added_row_and_a_removed_one() {
        let mut added = BASE.to_vec();
        added.push((2, "list-item", "Row 3", "a7"));
        let d = diff(&tree(BASE), &tree(&added));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].kind, Kind::Added);
        assert_eq!(d[0].name, "Row 3");
        let d = diff(&tree(&added), &tree(BASE));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].kind, Kind::Removed);
        assert_eq!(summary(&d), "1 difference: 1 removed");
    }

    #[test]
    fn a_moved_element_says_from_where() {
        // Cancel moves from the form to the list, ids kept and not.
        let moved = [
            (0, "frame", "App", "a0"),
            (1, "panel", "Form", "a1"),
            (2, "button", "Save", "a2"),
            (1, "list", "Items", "a4"),
            (2, "list-item", "Row 1", "a5"),
            (2, "list-item", "Row 2", "a6"),
            (2, "button", "Cancel", "a3"),
        ];
        let no_ids: Vec<_> = moved.iter().map(|(d, r, n, _)| (*d, *r, *n, "")).collect();
        for b in [tree(&moved), tree(&no_ids)] {
            let d = diff(&tree(BASE), &b);
            assert_eq!(d.len(), 1, "{d:#?}");
            assert_eq!(d[0].kind, Kind::Moved);
            assert_eq!(d[0].path, r#"frame "App" > list "Items" > button "Cancel""#);
            assert_eq!(
                d[0].from.as_deref(),
                Some(r#"frame "App" > panel "Form" > button "Cancel""#)
            );
        }
    }

    #[test]
    fn states_and_values_are_compared() {
        let a = tree(BASE);
        let mut b = tree(BASE);
        b.entries[2].states = vec!["focused".into()];
        b.entries[5].value = serde_json::json!({"kind": "text", "text": "x"});
        let d = diff(&a, &b);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].fields[0].field, "states");
        assert_eq!(d[1].fields[0].field, "value");
        let t = text(&d);
        assert!(t.contains("states: -— → +focused"), "{t}");
    }

    #[test]
    fn a_snapshot_gives_the_tree_its_tree_json_file_gives() {
        let snap = Snapshot {
            id: crate::model::SnapshotId::next(),
            app: "a".into(),
            window: "w".into(),
            nodes: crate::backend::fixture::synthetic::generate(500, 7),
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        };
        let mut buf = Vec::new();
        crate::app::output::write_tree_json(&mut buf, &snap, None, false).unwrap();
        let file = Tree::from_json(&String::from_utf8(buf).unwrap()).unwrap();
        let live = Tree::from_snapshot(&snap).unwrap();
        assert_eq!(live.entries.len(), 500);
        assert_eq!(live.entries, file.entries);
        assert!(diff(&file, &live).is_empty());
    }

    #[test]
    fn files_that_are_not_trees_are_refused_with_why() {
        assert!(Tree::from_json("{}").unwrap_err().contains("no \"root\""));
        assert!(
            Tree::from_json("[")
                .unwrap_err()
                .contains("not a `tree --json` file")
        );
        assert!(Tree::from_json("{\"root\": {\"children\": [}").is_err());
        assert!(Tree::from_json("{\"root\": {\"name\": \"x\"} x").is_err());
    }

    #[test]
    fn a_file_nested_thousands_deep_is_read_without_recursion() {
        let depth = 20_000;
        let deep = format!(
            "{{\"window\":\"w\",\"root\":{}{}}}",
            "{\"role\":\"panel\",\"children\":[".repeat(depth),
            "]}".repeat(depth)
        );
        let t = Tree::from_json(&deep).unwrap();
        assert_eq!(t.entries.len(), depth);
        assert_eq!(t.entries[depth - 1].parent, Some(depth - 2));
        assert!(diff(&t, &t).is_empty());
    }

    #[test]
    fn repeated_elements_are_left_out() {
        let doc = r#"{"root": {"id": "a", "role": "frame", "children": [
            {"id": "b", "role": "panel", "children": [
                {"id": "a", "role": "frame", "repeat": {"of": 0, "cycle": true}, "children": []},
                {"id": "c", "role": "button", "name": "OK", "children": []}]}]}}"#;
        let t = Tree::from_json(doc).unwrap();
        let ids: Vec<&str> = t.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        assert_eq!(t.entries[1].children, [2]);
        assert_eq!(t.entries[2].parent, Some(1));
    }
}
