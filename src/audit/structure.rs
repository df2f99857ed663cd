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
}
