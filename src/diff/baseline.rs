//! Baselines a project keeps in its repository and compares every run against: the fields a
//! comparison leaves out (`--ignore`), and the file `tree --baseline` writes — the tree in
//! its stable form (role, name, description, value, states and children, in tree order; no
//! ids, rows, tokens, snapshot id, timings or bounds, which change from run to run), so it
//! reads well in review and `diff` matches its elements by path.

use std::io::{self, Write};

use super::Tree;

/// What a comparison leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignore {
    pub values: bool,
    pub descriptions: bool,
    /// Every state.
    pub states: bool,
    /// These states (their names as `tree --json` writes them).
    pub some_states: Vec<String>,
}

/// The states a baseline leaves out unless told otherwise: where the focus is and which
/// window is active depend on the window manager and on timing, not on the app.
pub const DEFAULT_IGNORE: &str = "states:focused,states:active";

impl Ignore {
    /// Compares everything.
    pub fn none() -> Ignore {
        Ignore {
            values: false,
            descriptions: false,
            states: false,
            some_states: Vec::new(),
        }
    }

    /// Parses `values,descriptions,states,states:NAME,bounds,none` (comma-separated; `none`
    /// alone compares everything; `bounds` is accepted and changes nothing: bounds are never
    /// compared).
    pub fn parse(list: &str) -> Result<Ignore, String> {
        let mut ig = Ignore::none();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "none" => {}
                "values" | "value" => ig.values = true,
                "descriptions" | "description" => ig.descriptions = true,
                "states" => ig.states = true,
                "bounds" => {}
                _ => match item.strip_prefix("states:").or(item.strip_prefix("state:")) {
                    Some(s) if !s.is_empty() && crate::model::State::from_name(s).is_some() => {
                        ig.some_states.push(s.to_string())
                    }
                    Some(s) => return Err(format!("--ignore: no state is called {s:?}")),
                    None => {
                        return Err(format!(
                            "--ignore: {item:?} is not one of values, descriptions, states, \
                             states:NAME, bounds, none"
                        ));
                    }
                },
            }
        }
        if list.split(',').any(|s| s.trim() == "none") && ig != Ignore::none() {
            return Err("--ignore: none cannot be combined with other fields".into());
        }
        Ok(ig)
    }

    /// Leaves the ignored fields out of every element of `t`.
    pub fn apply(&self, t: &mut Tree) {
        for e in &mut t.entries {
            if self.values {
                e.value = serde_json::Value::Null;
            }
            if self.descriptions {
                e.description.clear();
            }
            if self.states {
                e.states.clear();
            } else if !self.some_states.is_empty() {
                e.states.retain(|s| !self.some_states.contains(s));
            }
        }
    }
}

/// Writes `t` as a baseline file: `{"baseline": 1, "window", "root"}`, each element with its
/// role, name, description, value, states and children, in tree order. Written without
/// recursion (a tree may be deep); the caller ends the file (a newline).
pub fn write(out: &mut dyn Write, t: &Tree) -> io::Result<()> {
    let mut w = crate::json::Writer::new(&mut *out);
    w.begin_object()?;
    w.entry("baseline", &1)?;
    w.entry("window", &t.window)?;
    w.key("root")?;
    if t.entries.is_empty() {
        w.value(&serde_json::Value::Null)?;
    } else {
        let mut open: Vec<(usize, usize)> = vec![(0, 0)];
        open_node(&mut w, t, 0)?;
        while let Some((row, next)) = open.last_mut() {
            if let Some(&child) = t.entries[*row].children.get(*next) {
                *next += 1;
                w.element()?;
                open_node(&mut w, t, child)?;
                open.push((child, 0));
            } else {
                open.pop();
                w.end_array()?;
                w.end_object()?;
            }
        }
    }
    w.end_object()
}

/// Opens element `row`: its fields, then its `children` array.
fn open_node<W: Write>(w: &mut crate::json::Writer<W>, t: &Tree, row: usize) -> io::Result<()> {
    let e = &t.entries[row];
    w.begin_object()?;
    w.entry("role", &e.role)?;
    w.entry("name", &e.name)?;
    w.entry("description", &e.description)?;
    w.entry("value", &e.value)?;
    w.entry("states", &e.states)?;
    w.key("children")?;
    w.begin_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Tree {
        let text = r#"{"window": "W", "root": {"role": "frame", "name": "W", "id": ":1.9/a",
            "states": ["active", "showing"], "children": [
            {"role": "text", "name": "Name", "id": ":1.9/b", "value": {"text": "Ada"},
             "description": "yours", "states": ["focused", "editable"], "children": []},
            {"role": "button", "name": "OK", "id": ":1.9/c", "states": [], "children": []}]}}"#;
        Tree::from_json(text).unwrap()
    }

    #[test]
    fn a_baseline_reads_back_as_the_same_tree_without_ids() {
        let t = tree();
        let mut out = Vec::new();
        write(&mut out, &t).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with('}'), "{text}");
        assert!(!text.contains(":1.9"), "no ids: {text}");
        let back = Tree::from_json(&text).unwrap();
        assert!(super::super::diff(&t, &back).is_empty());
        assert_eq!(back.entries.len(), 3);
        assert_eq!(back.entries[1].value, serde_json::json!({"text": "Ada"}));
    }

    #[test]
    fn ignores_leave_their_fields_out() {
        let mut a = tree();
        let mut b = tree();
        b.entries[1].value = serde_json::json!({"text": "Grace"});
        b.entries[1].states.retain(|s| s != "focused");
        b.entries[0].states.retain(|s| s != "active");
        assert_eq!(super::super::diff(&a, &b).len(), 2);
        let ig = Ignore::parse(DEFAULT_IGNORE).unwrap();
        ig.apply(&mut a);
        ig.apply(&mut b);
        let left = super::super::diff(&a, &b);
        assert_eq!(left.len(), 1, "the value still differs: {left:?}");
        let ig = Ignore::parse("values,states:focused,states:active,bounds").unwrap();
        ig.apply(&mut a);
        ig.apply(&mut b);
        assert!(super::super::diff(&a, &b).is_empty());
    }

    #[test]
    fn bad_ignores_say_what_is_allowed() {
        assert!(
            Ignore::parse("colours")
                .unwrap_err()
                .contains("values, descriptions")
        );
        assert!(Ignore::parse("states:shiny").unwrap_err().contains("shiny"));
        assert!(Ignore::parse("none,values").is_err());
        assert_eq!(Ignore::parse("none").unwrap(), Ignore::none());
    }
}
