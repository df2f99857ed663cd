//! Automation readiness (treeglass's own rule): can a script or an agent name the element
//! in a way that survives the next release?

use super::{Context, Hit, Needs, Rule, Severity};

use crate::model::{FastMap, Role};
use crate::selector::Grade;

pub(super) const TARGET_POSITIONAL: Rule = Rule {
    id: "target-positional",
    group: "automation",
    severity: Severity::Review,
    message: "an interactive element can be named only by its place among look-alikes",
    standard: "WCAG 4.1.2",
    anchor: "treeglass (suggested targets)",
    help: "The element's best target is positional (`check-box \"checkbutton\" #3`): no role, \
           name, description, stable state, label or uniquely named ancestor tells it apart, \
           so a test, a workflow or an agent breaks as soon as a look-alike is added before \
           it — and a screen reader user cannot tell it from its look-alikes either. The \
           finding says what would make it stable: a distinct name, or a label relation.",
    needs: Needs::Nothing,
    check: target_positional,
};

/// Whether the rule judges `n`: an interactive element on screen (`on_screen`: see
/// [`Context::on_screen`]). The audit suggests targets for these before the rules run.
pub(super) fn judged(n: &crate::model::Node, on_screen: crate::model::State) -> bool {
    n.states.has(on_screen) && n.role.is_interactive()
}

fn target_positional(cx: &Context, out: &mut Vec<Hit>) {
    let nodes = cx.nodes();
    let mut same: FastMap<(Role, &str), usize> = FastMap::default();
    for n in nodes {
        *same.entry((n.role, n.name.as_str().trim())).or_default() += 1;
    }
    for (row, n) in nodes.iter().enumerate() {
        if !judged(n, cx.on_screen) || cx.grade(row) != Some(Grade::Positional) {
            continue;
        }
        let name = n.name.as_str().trim();
        let mirrors = n
            .value
            .as_ref()
            .and_then(|v| v.as_text())
            .is_some_and(|v| v.as_str().trim() == name);
        let (detail, fix) = if name.is_empty() {
            (
                format!("unnamed {}: nothing but its place tells it apart", n.role),
                "give it an accessible name (or a label relation) that says what it does"
                    .to_string(),
            )
        } else if mirrors {
            (
                format!(
                    "{}'s name {} only mirrors its value, which changes",
                    n.role,
                    n.name.quoted(40)
                ),
                "give it a name of its own (or a label relation), not its current value"
                    .to_string(),
            )
        } else {
            let k = same.get(&(n.role, name)).copied().unwrap_or(1);
            (
                format!(
                    "{} {} is one of {k} with that role and name",
                    n.role,
                    n.name.quoted(40)
                ),
                format!(
                    "give each of the {k} a distinct name, or a label relation to its own label"
                ),
            )
        };
        let mut hit = Hit::new(row, detail);
        hit.fix = Some(fix);
        out.push(hit);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::model::Role;

    #[test]
    fn target_positional_fires_on_look_alikes_without_context() {
        let snap = tree(vec![
            (
                n(Role::Panel, ""),
                vec![
                    focusable(n(Role::CheckBox, "checkbutton")),
                    focusable(n(Role::CheckBox, "checkbutton")),
                ],
            ),
            (
                n(Role::Panel, ""),
                vec![focusable(n(Role::CheckBox, "Bold"))],
            ),
        ]);
        assert_eq!(
            rows(&snap, "target-positional"),
            named(&snap, "checkbutton")
        );
    }

    #[test]
    fn target_positional_does_not_fire_inside_a_uniquely_named_group() {
        let snap = tree(vec![
            (
                n(Role::Panel, "Left"),
                vec![focusable(n(Role::CheckBox, "checkbutton"))],
            ),
            (
                n(Role::Panel, "Right"),
                vec![focusable(n(Role::CheckBox, "checkbutton"))],
            ),
        ]);
        assert!(rows(&snap, "target-positional").is_empty());
    }
}
