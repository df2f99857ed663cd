//! Structure: what an element says of its place among others — the set a radio button
//! belongs to, the label relations in both directions, its index in its parent, a table's
//! numbering of its cells. None of it is in a snapshot: `audit` reads it for the elements on
//! screen ([`super::Facts`]), and where it was not read these rules are not evaluated.

use super::facts::{Related, Relations};
use super::{Context, Hit, Needs, Rule, Severity, shown};
use crate::model::Role;

/// The relations read of `row`, if they were.
fn relations<'s>(cx: &Context<'s>, row: usize) -> Option<&'s Relations> {
    cx.facts?.relations.as_ref()?.get(&row)
}

pub(super) const RADIO_NO_GROUP: Rule = Rule {
    id: "radio-no-group",
    group: "structure",
    severity: Severity::Warning,
    message: "a radio button belongs to no group",
    standard: "WCAG 1.3.1",
    anchor: "Accerciser RadioInSet",
    help: "A radio button is one choice among several: a screen reader says `2 of 3` and which \
           ones belong together from the group the toolkit reports (a `member-of` relation to \
           the other buttons, or a set position). A button in no group is announced alone, \
           and the user cannot tell what it excludes. Put the buttons in one group (GTK: \
           `join_group`; HTML: the same `name`). Not judged: radio buttons whose relations \
           were not read; GTK 4 and Qt 5/6, whose bridges report no group for any radio \
           button.",
    needs: Needs::Relations,
    check: radio_no_group,
};

fn radio_no_group(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if !matches!(n.role, Role::RadioButton | Role::RadioMenuItem) {
            continue;
        }
        let Some(r) = relations(cx, row) else {
            continue;
        };
        if r.in_set || r.member_of.iter().any(|m| *m != Related::Row(row)) {
            continue;
        }
        out.push(Hit::new(
            row,
            format!(
                "{} has no `member-of` relation to another element and no set position",
                shown(n)
            ),
        ));
    }
}

pub(super) const LABEL_NOT_RECIPROCAL: Rule = Rule {
    id: "label-not-reciprocal",
    group: "structure",
    severity: Severity::Warning,
    message: "a label relation is one-sided",
    standard: "WCAG 1.3.1",
    anchor: "Accerciser ReciprocalRelations",
    help: "`labelled-by` on a field and `label-for` on its label say the same thing from both \
           ends; assistive technology reads either one (a screen reader reading the label \
           follows `label-for` to the field, one reading the field follows `labelled-by`). \
           When only one end says it, half of them miss the label. Set the relation through \
           the toolkit's labelling API (GTK `set_mnemonic_widget`, Qt `setBuddy`, HTML \
           `<label for>`), which sets both. Judged only where both ends are in the window and \
           both ends' relations were read; not on GTK 4, which reports `labelled-by` only.",
    needs: Needs::Relations,
    check: label_not_reciprocal,
};

fn label_not_reciprocal(cx: &Context, out: &mut Vec<Hit>) {
    let nodes = cx.nodes();
    for (row, n) in cx.showing() {
        let Some(r) = relations(cx, row) else {
            continue;
        };
        let mut hit = None;
        for (list, back, says, answer) in [
            (
                &r.labelled_by,
                (|o: &Relations| &o.label_for) as fn(&Relations) -> &Vec<Related>,
                "is labelled by",
                "label-for",
            ),
            (
                &r.label_for,
                (|o: &Relations| &o.labelled_by) as fn(&Relations) -> &Vec<Related>,
                "labels",
                "labelled-by",
            ),
        ] {
            for &t in list {
                let Related::Row(other) = t else { continue };
                let Some(o) = relations(cx, other) else {
                    continue;
                };
                if !back(o).contains(&Related::Row(row)) {
                    hit.get_or_insert_with(|| {
                        format!(
                            "{} {says} {}, which has no `{answer}` back to it",
                            shown(n),
                            nodes.get(other).map(shown).unwrap_or_default()
                        )
                    });
                }
            }
        }
        if let Some(detail) = hit {
            out.push(Hit::new(row, detail));
        }
    }
}

pub(super) const LABEL_DANGLING: Rule = Rule {
    id: "label-dangling",
    group: "structure",
    severity: Severity::Warning,
    message: "a label relation points at no element of the window",
    standard: "WCAG 1.3.1",
    anchor: "treeglass (label relations)",
    help: "A `labelled-by` or `label-for` relation that leads out of the window (to an element \
           never placed in it, or one that was removed) labels nothing a person sees: a screen \
           reader following it finds no label, or a field that is not there. Point it at the \
           element beside it (GTK `set_mnemonic_widget`, Qt `setBuddy`, HTML `<label for>` \
           with an id in the page), or remove it. Judged only on a window read whole, and not \
           inside an element that manages its descendants (its children are not all read).",
    needs: Needs::Relations,
    check: label_dangling,
};

/// Whether the element sits in one that manages its descendants: its relations may lead to
/// children the read did not list.
fn under_managed(cx: &Context, row: usize) -> bool {
    cx.ancestors(row)
        .any(|(_, a)| a.managed.is_some() || a.states.has(crate::model::State::ManagesDescendants))
}

fn label_dangling(cx: &Context, out: &mut Vec<Hit>) {
    if !cx.snap.complete() {
        return;
    }
    for (row, n) in cx.showing() {
        let Some(r) = relations(cx, row) else {
            continue;
        };
        let out_of = |list: &[Related]| list.contains(&Related::Elsewhere);
        let says = if out_of(&r.labelled_by) {
            "is labelled by"
        } else if out_of(&r.label_for) {
            "labels"
        } else {
            continue;
        };
        if under_managed(cx, row) {
            continue;
        }
        out.push(Hit::new(
            row,
            format!("{} {says} an element that is not in this window", shown(n)),
        ));
    }
}

pub(super) const LABEL_NAME_MISMATCH: Rule = Rule {
    id: "label-name-mismatch",
    group: "structure",
    severity: Severity::Warning,
    message: "a control's name does not hold the text of the label beside it",
    standard: "WCAG 2.5.3",
    anchor: "axe-core label-content-name-mismatch",
    help: "A person who sees \"Town:\" beside a field says \"Town\" to speech control; when \
           the field's accessible name is something else, the command finds nothing (Label in \
           Name). Let the label name it (GTK `set_mnemonic_widget`, Qt `setBuddy`, HTML \
           `<label for>`), or give it a name that starts with the label's words. Judged on a \
           label on screen whose `label-for` leads to a named control in the window; letters \
           and digits are compared, case, mnemonic marks (`_`, `&`) and punctuation aside. \
           Not judged: a control named after its own value (Qt names a combo box after its \
           current item, whatever labels it: the toolkit's naming, not the app's).",
    needs: Needs::Relations,
    check: label_name_mismatch,
};

/// Lower-case words of letters and digits, one space apart: what a person would say of it.
fn spoken(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A label's text with its mnemonic marks taken out (`_Town:`, `&Town:` read "Town:").
fn without_mnemonic(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if (c == '_' || c == '&') && chars.peek().is_some_and(|n| n.is_alphanumeric()) {
            continue;
        }
        out.push(c);
    }
    out
}

fn label_name_mismatch(cx: &Context, out: &mut Vec<Hit>) {
    let nodes = cx.nodes();
    let mut seen = std::collections::HashSet::new();
    for (row, label) in cx.showing() {
        if label.role != crate::model::Role::Label {
            continue;
        }
        let Some(r) = relations(cx, row) else {
            continue;
        };
        let said = spoken(&without_mnemonic(label.name.as_str()));
        if said.is_empty() {
            continue;
        }
        for &t in &r.label_for {
            let Related::Row(field) = t else { continue };
            let Some(f) = nodes.get(field) else { continue };
            if !cx.is_showing(f) || !super::interactive(f) {
                continue;
            }
            let name = spoken(f.name.as_str());
            // Named after its own value (Qt names a combo box so, whatever labels it): the
            // toolkit's naming, not a name the app gave.
            let value_named = f
                .value
                .as_ref()
                .and_then(|v| v.as_text())
                .is_some_and(|v| spoken(v.as_str()) == name);
            if name.is_empty()
                || value_named
                || format!(" {name} ").contains(&format!(" {said} "))
                || !seen.insert(field)
            {
                continue;
            }
            out.push(Hit::new(
                field,
                format!(
                    "{} is named {}, but its label says {}",
                    f.role,
                    f.name.quoted(40),
                    label.name.quoted(40)
                ),
            ));
        }
    }
}

pub(super) const INDEX_IN_PARENT: Rule = Rule {
    id: "index-in-parent",
    group: "structure",
    severity: Severity::Warning,
    message: "an element's index in its parent disagrees with its parent's children",
    standard: "WCAG 4.1.2",
    anchor: "Accerciser ParentChildIndexMatch",
    help: "Assistive technology finds an element's neighbours and says `3 of 5` from the index \
           the element reports in its parent; when the parent holds another element at that \
           index, navigation skips or repeats elements. Usually a custom accessible that \
           computes its index itself. Report the position the parent lists it at. Checked on \
           the elements on screen by asking the parent for its child at that index. Not \
           judged: children of elements that manage their descendants (not asked for their \
           children at all).",
    needs: Needs::Index,
    check: index_in_parent,
};

fn index_in_parent(cx: &Context, out: &mut Vec<Hit>) {
    let Some(index) = cx.facts.and_then(|f| f.index.as_ref()) else {
        return;
    };
    let nodes = cx.nodes();
    for (&row, m) in index {
        let Some(n) = nodes.get(row) else { continue };
        let there = match m.there {
            None => format!(
                "which has no child {} ({} children)",
                m.reported, m.siblings
            ),
            Some(Related::Row(r)) => format!(
                "whose child {} is {}",
                m.reported,
                nodes.get(r).map(shown).unwrap_or_default()
            ),
            Some(Related::Elsewhere) => format!(
                "whose child {} is another element, not in this window's tree",
                m.reported
            ),
        };
        out.push(Hit::new(
            row,
            format!(
                "{} says it is child {} of its parent, {there}",
                shown(n),
                m.reported
            ),
        ));
    }
}

pub(super) const TABLE_INDEX_MISMATCH: Rule = Rule {
    id: "table-index-mismatch",
    group: "structure",
    severity: Severity::Warning,
    message: "a table's cell index does not lead back to its row and column",
    standard: "WCAG 1.3.1",
    anchor: "Accerciser TableRowColIndex",
    help: "A screen reader says where a cell is (`row 2, column 3`) from the table's own \
           numbering: the index of the cell at a row and column, and the row and column of an \
           index. When they disagree, cells are announced in the wrong place and table \
           navigation jumps. Usually a custom table model whose index functions are not each \
           other's inverse. Sampled on the first 4 × 4 cells of each table on screen.",
    needs: Needs::Tables,
    check: table_index_mismatch,
};

fn table_index_mismatch(cx: &Context, out: &mut Vec<Hit>) {
    let Some(tables) = cx.facts.and_then(|f| f.tables.as_ref()) else {
        return;
    };
    let nodes = cx.nodes();
    for (&row, t) in tables {
        let (Some(n), Some(m)) = (nodes.get(row), t.mismatches.first()) else {
            continue;
        };
        out.push(Hit::new(
            row,
            format!(
                "{}: the cell at row {}, column {} has index {}, which the table says is at \
                 row {}, column {} ({} of {} cells sampled disagree)",
                shown(n),
                m.row,
                m.col,
                m.index,
                m.back.0,
                m.back.1,
                t.mismatches.len(),
                t.sampled
            ),
        ));
    }
}

#[cfg(test)]
mod tests {

    use super::super::facts::{CellMismatch, Facts, IndexMismatch, Related, Relations, TableCheck};
    use super::super::testing::*;
    use crate::model::{Role, Snapshot};

    fn facts(snap: &Snapshot) -> Facts {
        let mut f = Facts::of(snap.id);
        f.relations = Some(Default::default());
        f.index = Some(Default::default());
        f.tables = Some(Default::default());
        f
    }

    fn row(snap: &Snapshot, name: &str) -> usize {
        named(snap, name)[0]
    }

    #[test]
    fn radio_no_group_fires_on_a_lone_radio_button_only() {
        let snap = tree(vec![(
            n(Role::Panel, "Box"),
            vec![
                n(Role::RadioButton, "Alone"),
                n(Role::RadioButton, "Left"),
                n(Role::RadioButton, "Right"),
                n(Role::RadioButton, "Web"),
                n(Role::RadioButton, "Unread"),
            ],
        )]);
        let (alone, left, right, web) = (
            row(&snap, "Alone"),
            row(&snap, "Left"),
            row(&snap, "Right"),
            row(&snap, "Web"),
        );
        let mut f = facts(&snap);
        let rels = f.relations.as_mut().unwrap();
        // A group of one names only itself.
        rels.insert(
            alone,
            Relations {
                member_of: vec![Related::Row(alone)],
                ..Relations::default()
            },
        );
        for (a, b) in [(left, right), (right, left)] {
            rels.insert(
                a,
                Relations {
                    member_of: vec![Related::Row(a), Related::Row(b)],
                    ..Relations::default()
                },
            );
        }
        rels.insert(
            web,
            Relations {
                in_set: true,
                ..Relations::default()
            },
        );
        assert_eq!(rows_with(&snap, "radio-no-group", f.clone()), vec![alone]);
        // Without the relations read, it is not evaluated (and finds nothing).
        assert!(rows(&snap, "radio-no-group").is_empty());
    }

    #[test]
    fn label_not_reciprocal_fires_on_both_ends_of_a_one_sided_relation() {
        let snap = tree(vec![(
            n(Role::Panel, "Form"),
            vec![
                n(Role::Label, "Street label"),
                n(Role::Text, "Street"),
                n(Role::Label, "City label"),
                n(Role::Text, "City"),
                n(Role::Label, "Zip label"),
                n(Role::Text, "Zip"),
            ],
        )]);
        let r = |name| row(&snap, name);
        let mut f = facts(&snap);
        let rels = f.relations.as_mut().unwrap();
        // Street: both ends say it.
        rels.insert(
            r("Street"),
            Relations {
                labelled_by: vec![Related::Row(r("Street label"))],
                ..Relations::default()
            },
        );
        rels.insert(
            r("Street label"),
            Relations {
                label_for: vec![Related::Row(r("Street"))],
                ..Relations::default()
            },
        );
        // City: only the field says it.
        rels.insert(
            r("City"),
            Relations {
                labelled_by: vec![Related::Row(r("City label"))],
                ..Relations::default()
            },
        );
        rels.insert(r("City label"), Relations::default());
        // Zip: only the label says it, and the field's relations were not read: not judged.
        rels.insert(
            r("Zip label"),
            Relations {
                label_for: vec![Related::Row(r("Zip")), Related::Elsewhere],
                ..Relations::default()
            },
        );
        assert_eq!(
            rows_with(&snap, "label-not-reciprocal", f.clone()),
            vec![r("City")]
        );
        // Read, and one-sided: the label is found too.
        f.relations
            .as_mut()
            .unwrap()
            .insert(r("Zip"), Relations::default());
        assert_eq!(
            rows_with(&snap, "label-not-reciprocal", f),
            vec![r("City"), r("Zip label")]
        );
    }

    #[test]
    fn index_and_table_mismatches_are_reported_on_their_element() {
        let snap = tree(vec![(
            n(Role::Panel, "Box"),
            vec![
                n(Role::Button, "Odd"),
                n(Role::Button, "Even"),
                n(Role::Table, "Grid"),
                n(Role::Table, "Sound"),
            ],
        )]);
        let mut f = facts(&snap);
        f.index.as_mut().unwrap().insert(
            row(&snap, "Odd"),
            IndexMismatch {
                reported: 7,
                there: None,
                siblings: 2,
            },
        );
        let tables = f.tables.as_mut().unwrap();
        tables.insert(
            row(&snap, "Grid"),
            TableCheck {
                sampled: 4,
                mismatches: vec![CellMismatch {
                    row: 0,
                    col: 1,
                    index: 1,
                    back: (1, 0),
                }],
            },
        );
        tables.insert(
            row(&snap, "Sound"),
            TableCheck {
                sampled: 4,
                mismatches: vec![],
            },
        );
        assert_eq!(
            rows_with(&snap, "index-in-parent", f.clone()),
            vec![row(&snap, "Odd")]
        );
        assert_eq!(
            rows_with(&snap, "table-index-mismatch", f.clone()),
            vec![row(&snap, "Grid")]
        );
        // Facts of another snapshot are never used.
        let mut other = f;
        other.snapshot = Some(crate::model::SnapshotId::next());
        assert!(rows_with(&snap, "index-in-parent", other).is_empty());
    }

    #[test]
    fn label_dangling_fires_on_a_relation_out_of_the_window() {
        let snap = tree(vec![(
            n(Role::Panel, "Form"),
            vec![n(Role::Text, "Street"), n(Role::Text, "City")],
        )]);
        let r = |name| row(&snap, name);
        let mut f = facts(&snap);
        let rels = f.relations.as_mut().unwrap();
        rels.insert(
            r("Street"),
            Relations {
                labelled_by: vec![Related::Elsewhere],
                ..Relations::default()
            },
        );
        rels.insert(r("City"), Relations::default());
        assert_eq!(rows_with(&snap, "label-dangling", f), vec![r("Street")]);
    }

    #[test]
    fn label_name_mismatch_fires_when_the_name_leaves_the_label_out() {
        let snap = tree(vec![(
            n(Role::Panel, "Form"),
            vec![
                n(Role::Label, "_Town:"),
                n(Role::Text, "Postcode"),
                n(Role::Label, "&Street:"),
                n(Role::Text, "Street name"),
                n(Role::Label, "E-mail"),
                n(Role::Text, "e mail address"),
            ],
        )]);
        let r = |name| row(&snap, name);
        let mut f = facts(&snap);
        let rels = f.relations.as_mut().unwrap();
        for (label, field) in [
            ("_Town:", "Postcode"),
            ("&Street:", "Street name"),
            ("E-mail", "e mail address"),
        ] {
            rels.insert(
                r(label),
                Relations {
                    label_for: vec![Related::Row(r(field))],
                    ..Relations::default()
                },
            );
        }
        assert_eq!(
            rows_with(&snap, "label-name-mismatch", f),
            vec![r("Postcode")]
        );
        // A control named after its own value (Qt's combo boxes) is the toolkit's naming.
        let mut combo = n(Role::ComboBox, "Fusion");
        combo.value = Some(crate::model::Value::Choice {
            selected: Some("Fusion".into()),
        });
        let snap = tree(vec![(
            n(Role::Panel, "Form"),
            vec![n(Role::Label, "&Style:"), combo],
        )]);
        let mut f = facts(&snap);
        f.relations.as_mut().unwrap().insert(
            row(&snap, "&Style:"),
            Relations {
                label_for: vec![Related::Row(row(&snap, "Fusion"))],
                ..Relations::default()
            },
        );
        assert!(rows_with(&snap, "label-name-mismatch", f).is_empty());
    }
}
