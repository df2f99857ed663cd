//! Uniqueness: elements a person can reach must be told apart.

use super::{Context, Hit, Needs, Rule, Severity};
use crate::model::{FastMap, Role, State};

pub(super) const SIBLINGS_NOT_UNIQUE: Rule = Rule {
    id: "siblings-not-unique",
    group: "uniqueness",
    severity: Severity::Warning,
    message: "focusable siblings share one role and one name",
    standard: "WCAG 2.4.6",
    anchor: "axe-windows SiblingUniqueAndFocusable",
    help: "Six check boxes all announced \"checkbutton check box\" cannot be told apart by a \
           screen reader user, nor named by automation except by their place. Give each a \
           name saying what it does. Not judged: table cells (their row and column tell them \
           apart), unnamed elements (name-missing judges them).",
    needs: Needs::Nothing,
    check: siblings_not_unique,
};

fn siblings_not_unique(cx: &Context, out: &mut Vec<Hit>) {
    let nodes = cx.nodes();
    for parent in nodes {
        if parent.children.len() < 2 {
            continue;
        }
        let mut groups: FastMap<(Role, &str), Vec<usize>> = FastMap::default();
        for &c in &parent.children {
            let Some(n) = nodes.get(c) else { continue };
            let name = n.name.as_str().trim();
            if name.is_empty()
                || n.role == Role::TableCell
                || !n.states.has(State::Focusable)
                || !cx.is_showing(n)
            {
                continue;
            }
            groups.entry((n.role, name)).or_default().push(c);
        }
        let mut groups: Vec<_> = groups.into_values().filter(|g| g.len() > 1).collect();
        groups.sort();
        for rows in groups {
            for (i, &r) in rows.iter().enumerate() {
                let n = &nodes[r];
                out.push(Hit::new(
                    r,
                    format!(
                        "{} of {} sibling {} elements named {}",
                        i + 1,
                        rows.len(),
                        n.role,
                        n.name.quoted(40)
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::model::Role;

    #[test]
    fn siblings_not_unique_fires_on_look_alikes_only() {
        let snap = tree(vec![
            (
                n(Role::Panel, "Twins"),
                vec![
                    focusable(n(Role::CheckBox, "checkbutton")),
                    focusable(n(Role::CheckBox, "checkbutton")),
                ],
            ),
            (
                n(Role::Panel, "Distinct"),
                vec![
                    focusable(n(Role::CheckBox, "Bold")),
                    focusable(n(Role::CheckBox, "Italic")),
                    // Same name, other role.
                    focusable(n(Role::Button, "Bold")),
                ],
            ),
        ]);
        assert_eq!(
            rows(&snap, "siblings-not-unique"),
            named(&snap, "checkbutton")
        );
    }
}
