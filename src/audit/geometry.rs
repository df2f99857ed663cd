//! Geometry: where a showing element is on the screen. Needs bounds: the fixture, UI
//! Automation and AX snapshots have them; on AT-SPI `audit` reads them for the elements on
//! screen (one call each, [`super::Facts::bounds`]).

use super::{Context, Hit, Needs, Rule, Severity, is_container, shown};
use crate::model::{Bounds, Node, Role};

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
           separators; elements whose bounds were not read or are not known (ATK's \
           −1, −1, −1, −1); GTK 4, which never says `showing` (what it does not draw says \
           `visible` and is 0×0).",
    needs: Needs::Bounds,
    check: bounds_empty,
};

fn bounds_empty(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if is_container(n.role) || n.role == Role::Separator {
            continue;
        }
        if let Some(b) = cx.bounds(row).filter(empty) {
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
           (popups sit outside their parent), parents without bounds, the pages of page tabs \
           (GTK puts a notebook's page under its tab, whose bounds are the tab's header), and \
           elements outside their window (`bounds-outside-window` reports those).",
    needs: Needs::Bounds,
    check: bounds_outside_parent,
};

/// The showing elements with bounds that are not empty, but for popups and windows (which
/// sit where they like): what the placement rules judge.
fn placed<'s>(cx: &'s Context<'s>) -> impl Iterator<Item = (usize, &'s Node, Bounds)> + 's {
    cx.showing().filter_map(|(row, n)| {
        let popup = matches!(
            n.role,
            Role::Menu | Role::ToolTip | Role::Window | Role::Frame | Role::Dialog | Role::Alert
        );
        let b = cx.bounds(row).filter(|b| !empty(b))?;
        (!popup).then_some((row, n, b))
    })
}

/// `button "X" at 1,2 3×4 is outside panel "Y" at 5,6 7×8`.
fn outside(n: &Node, b: &Bounds, other: &Node, o: &Bounds) -> String {
    format!(
        "{} at {},{} {}×{} is outside {} at {},{} {}×{}",
        shown(n),
        b.x,
        b.y,
        b.width,
        b.height,
        shown(other),
        o.x,
        o.y,
        o.width,
        o.height
    )
}

fn bounds_outside_parent(cx: &Context, out: &mut Vec<Hit>) {
    let nodes = cx.nodes();
    for (row, n, b) in placed(cx) {
        let Some((prow, p)) = n.parent.and_then(|p| Some((p, nodes.get(p)?))) else {
            continue;
        };
        // A page tab holds its page, which is drawn below the tab's own header.
        if matches!(p.role, Role::Application | Role::Tab) || outside_window(cx, row, &b).is_some()
        {
            continue;
        }
        if let Some(pb) = cx.bounds(prow).filter(|b| !empty(b))
            && disjoint(&b, &pb)
        {
            out.push(Hit::new(row, outside(n, &b, p, &pb)));
        }
    }
}

/// The window an element lies wholly outside of, with its bounds.
fn outside_window<'s>(cx: &Context<'s>, row: usize, b: &Bounds) -> Option<(&'s Node, Bounds)> {
    let (wrow, w) = cx.window_of(row)?;
    let wb = cx.bounds(wrow).filter(|b| !empty(b))?;
    disjoint(b, &wb).then_some((w, wb))
}

pub(super) const BOUNDS_OUTSIDE_WINDOW: Rule = Rule {
    id: "bounds-outside-window",
    group: "geometry",
    severity: Severity::Warning,
    message: "a showing element lies wholly outside its window",
    standard: "WCAG 1.3.1",
    anchor: "axe-windows BoundingRectangleContainedInParent, applied to the window",
    help: "An element that says it is showing but lies nowhere in its window is where no one \
           can see or click it: a screen reader announces something that is not there, a \
           magnifier and a pointer go off the window. Usually a `showing` state left on \
           something scrolled or moved away, or bounds in the wrong coordinates. Drop \
           `showing` while it is not drawn, or report where it is. Judged against the window, \
           not the screen (the screen's size is not read). Not judged: menus, tool tips and \
           windows, and windows without bounds.",
    needs: Needs::Bounds,
    check: bounds_outside_window,
};

fn bounds_outside_window(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n, b) in placed(cx) {
        if let Some((w, wb)) = outside_window(cx, row, &b) {
            out.push(Hit::new(row, outside(n, &b, w, &wb)));
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

    #[test]
    fn bounds_outside_window_fires_off_the_window_and_outside_parent_leaves_it_to_it() {
        let mut snap = tree(vec![(
            bounds(n(Role::Panel, "Box"), 0, 0, 100, 100),
            vec![
                bounds(n(Role::Button, "Gone"), -4000, -4000, 40, 20),
                bounds(n(Role::Button, "Stray"), 300, 300, 20, 20),
                bounds(n(Role::Button, "Inside"), 10, 10, 20, 20),
            ],
        )]);
        snap.nodes[0].bounds = Some(crate::model::Bounds {
            x: 0,
            y: 0,
            width: 800,
            height: 600,
        });
        assert_eq!(rows(&snap, "bounds-outside-window"), named(&snap, "Gone"));
        assert_eq!(rows(&snap, "bounds-outside-parent"), named(&snap, "Stray"));
    }

    #[test]
    fn bounds_read_for_the_audit_are_judged_like_the_snapshot_s() {
        let snap = tree(vec![(
            n(Role::Panel, "Box"),
            vec![n(Role::Button, "Flat"), n(Role::Button, "Fine")],
        )]);
        let mut f = super::super::Facts::of(snap.id);
        let b = |w| crate::model::Bounds {
            x: 5,
            y: 5,
            width: w,
            height: 20,
        };
        f.bounds = Some(
            [
                (named(&snap, "Flat")[0], b(0)),
                (named(&snap, "Fine")[0], b(30)),
            ]
            .into_iter()
            .collect(),
        );
        assert!(
            rows(&snap, "bounds-empty").is_empty(),
            "no bounds: not evaluated"
        );
        assert_eq!(rows_with(&snap, "bounds-empty", f), named(&snap, "Flat"));
    }
}
