//! Geometry: where a showing element is on the screen. Needs bounds, which AT-SPI snapshots
//! do not read (one call per element); the fixture, UI Automation and AX snapshots have them.

use super::{Context, Hit, Needs, Rule, Severity, is_container, shown};
use crate::model::{Bounds, Role};

fn empty(b: &Bounds) -> bool {
    b.width <= 0 || b.height <= 0
}

pub(super) const BOUNDS_EMPTY: Rule = Rule {
    id: "bounds-empty",
    group: "geometry",
    severity: Severity::Warning,
    message: "a showing element has empty bounds",
    standard: "WCAG 1.3.1",
    anchor: "axe-windows BoundingRectangleNotAllZeros",
    help: "An element that says it is showing but has no width or height cannot be found by \
           a magnifier, a screen reader's review cursor or a pointer click. Report real \
           bounds, or drop `showing` while it is not drawn. Not judged: containers and \
           separators; elements whose bounds were not read.",
    needs: Needs::Bounds,
    check: bounds_empty,
};

fn bounds_empty(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if is_container(n.role) || n.role == Role::Separator {
            continue;
        }
        if let Some(b) = n.bounds.filter(empty) {
            out.push(Hit::new(
                row,
                format!(
                    "{} is {}×{} at {},{}",
                    shown(n),
                    b.width,
                    b.height,
                    b.x,
                    b.y
                ),
            ));
        }
    }
}

fn disjoint(a: &Bounds, b: &Bounds) -> bool {
    let (ax2, ay2) = (a.x as i64 + a.width as i64, a.y as i64 + a.height as i64);
    let (bx2, by2) = (b.x as i64 + b.width as i64, b.y as i64 + b.height as i64);
    ax2 <= b.x as i64 || bx2 <= a.x as i64 || ay2 <= b.y as i64 || by2 <= a.y as i64
}

pub(super) const BOUNDS_OUTSIDE_PARENT: Rule = Rule {
    id: "bounds-outside-parent",
    group: "geometry",
    severity: Severity::Review,
    message: "a showing element lies wholly outside its parent",
    standard: "WCAG 1.3.1",
    anchor: "axe-windows BoundingRectangleContainedInParent",
    help: "A child drawn nowhere near its parent usually means stale bounds or a showing \
           state left on something scrolled or moved away: a screen reader's review cursor \
           and a magnifier go to the wrong place. Not judged: menus, tool tips and windows \
           (popups sit outside their parent), and parents without bounds.",
    needs: Needs::Bounds,
    check: bounds_outside_parent,
};

fn bounds_outside_parent(cx: &Context, out: &mut Vec<Hit>) {
    let nodes = cx.nodes();
    for (row, n) in cx.showing() {
        if matches!(
            n.role,
            Role::Menu | Role::ToolTip | Role::Window | Role::Frame | Role::Dialog | Role::Alert
        ) {
            continue;
        }
        let Some(b) = n.bounds.filter(|b| !empty(b)) else {
            continue;
        };
        let Some(p) = n.parent.and_then(|p| nodes.get(p)) else {
            continue;
        };
        if p.role == Role::Application {
            continue;
        }
        if let Some(pb) = p.bounds.filter(|b| !empty(b))
            && disjoint(&b, &pb)
        {
            out.push(Hit::new(
                row,
                format!(
                    "{} at {},{} {}×{} is outside {} at {},{} {}×{}",
                    shown(n),
                    b.x,
                    b.y,
                    b.width,
                    b.height,
                    shown(p),
                    pb.x,
                    pb.y,
                    pb.width,
                    pb.height
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::model::Role;

    #[test]
    fn bounds_empty_fires_on_a_zero_sized_control() {
        let snap = tree(vec![
            (
                bounds(focusable(n(Role::Button, "Flat")), 10, 10, 0, 20),
                vec![],
            ),
            (
                bounds(focusable(n(Role::Button, "Fine")), 10, 40, 80, 20),
                vec![],
            ),
        ]);
        assert_eq!(rows(&snap, "bounds-empty"), named(&snap, "Flat"));
    }

    #[test]
    fn bounds_outside_parent_fires_on_a_stray_child() {
        let snap = tree(vec![(
            bounds(n(Role::Panel, "Box"), 0, 0, 100, 100),
            vec![
                bounds(n(Role::Button, "Stray"), 500, 500, 20, 20),
                bounds(n(Role::Button, "Inside"), 10, 10, 20, 20),
            ],
        )]);
        assert_eq!(rows(&snap, "bounds-outside-parent"), named(&snap, "Stray"));
    }
}
