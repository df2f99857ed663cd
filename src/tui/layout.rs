//! Where each pane sits for a terminal size, from the place each pane asks for
//! (`Unit::place`). Pure: the views draw into these areas and the update function uses them
//! for mouse hits and page sizes, so both agree.

use ratatui::layout::Rect;

use super::pane::Pane;

/// Where a pane sits. Each place is shared among the panes shown there, in the order of the
/// panes' list (`panes!`): stacked in a column, side by side in the bottom strip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The column left of the tree, 24 wide from 110 columns; from 80 to 109 columns the top
    /// third of the side column, so what is there stays in sight.
    Left,
    /// The middle, between the two columns.
    Middle,
    /// The column right of the middle: 30% of the width (at least 38) from 80 columns.
    Side,
    /// The strip under the filter bar, when there are at least 18 lines for the panes, the
    /// filter bar and the bottom (6 to 12 high as the screen grows).
    Bottom,
}

/// The screen's areas: the banner, the filter bar, the status line and each pane's
/// (zero-sized when it is not shown).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub banner: Rect,
    pub filter: Rect,
    pub status: Rect,
    panes: [Rect; Pane::ALL.len()],
}

impl Areas {
    /// `pane`'s area.
    pub fn of(&self, pane: Pane) -> Rect {
        self.panes[pane as usize]
    }
}

/// Inside a bordered block.
pub fn inner(r: Rect) -> Rect {
    Rect {
        x: r.x.saturating_add(1),
        y: r.y.saturating_add(1),
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}

/// Lays out a `width` × `height` screen for the panes `shown`, each in its place, in the
/// panes' order.
pub fn compute(width: u16, height: u16, banner: bool, shown: &[(Pane, Place)]) -> Areas {
    let mut a = Areas::default();
    let mut y = 0u16;
    let full = |y: u16, h: u16| Rect {
        x: 0,
        y,
        width,
        height: h,
    };
    if banner && height > 0 {
        a.banner = full(0, 1);
        y = 1;
    }
    let status_h = u16::from(height > y);
    let rest = height.saturating_sub(y + status_h);
    let filter_h = 4.min(rest);
    let bottom_h = if rest >= 36 {
        12
    } else if rest >= 26 {
        10
    } else if rest >= 18 {
        6
    } else {
        0
    };
    let main_h = rest.saturating_sub(filter_h + bottom_h);
    let left_w = if width >= 110 { 24 } else { 0 };
    let side_w = if width >= 80 {
        (width * 30 / 100).max(38)
    } else {
        0
    };
    let middle_w = width.saturating_sub(left_w + side_w);
    let mut left = Rect {
        x: 0,
        y,
        width: left_w,
        height: if left_w > 0 { main_h } else { 0 },
    };
    let middle = Rect {
        x: left_w,
        y,
        width: middle_w,
        height: main_h,
    };
    let mut side = Rect {
        x: left_w + middle_w,
        y,
        width: side_w,
        height: if side_w > 0 { main_h } else { 0 },
    };
    // Too narrow for a left column (80 to 109 columns): what goes there takes the top third
    // of the side column.
    let anything_left = shown.iter().any(|&(_, p)| p == Place::Left);
    if left_w == 0 && side_w > 0 && main_h >= 10 && anything_left {
        let left_h = (main_h / 3).max(4);
        left = Rect {
            x: side.x,
            y,
            width: side_w,
            height: left_h,
        };
        side.y += left_h;
        side.height -= left_h;
    }
    y += main_h;
    a.filter = full(y, filter_h);
    y += filter_h;
    let bottom = full(y, bottom_h);
    y += bottom_h;
    a.status = full(y, status_h);
    for (place, r) in [
        (Place::Left, left),
        (Place::Middle, middle),
        (Place::Side, side),
        (Place::Bottom, bottom),
    ] {
        let here: Vec<Pane> = shown
            .iter()
            .filter(|&&(_, p)| p == place)
            .map(|&(pane, _)| pane)
            .collect();
        for (i, pane) in here.iter().enumerate() {
            a.panes[*pane as usize] = share(r, i, here.len(), place == Place::Bottom);
        }
    }
    a
}

/// The `i`th of `n` equal shares of `r`: side by side, or stacked.
fn share(r: Rect, i: usize, n: usize, side_by_side: bool) -> Rect {
    let cut = |len: u16, k: usize| (len as usize * k / n) as u16;
    if side_by_side {
        let (x0, x1) = (cut(r.width, i), cut(r.width, i + 1));
        Rect {
            x: r.x + x0,
            width: x1 - x0,
            ..r
        }
    } else {
        let (y0, y1) = (cut(r.height, i), cut(r.height, i + 1));
        Rect {
            y: r.y + y0,
            height: y1 - y0,
            ..r
        }
    }
}

/// Whether `(x, y)` lies in `r`.
pub fn hit(r: Rect, x: u16, y: u16) -> bool {
    r.width > 0 && r.height > 0 && x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pane in its place, as the inspector shows them all.
    fn all() -> Vec<(Pane, Place)> {
        Pane::ALL.iter().map(|&p| (p, p.unit().place())).collect()
    }

    #[test]
    fn areas_tile_the_screen() {
        for (w, h) in [(160, 48), (120, 40), (80, 24), (40, 10), (0, 0)] {
            let a = compute(w, h, true, &all());
            let used = a.banner.height
                + a.of(Pane::Tree).height
                + a.filter.height
                + a.of(Pane::Writes).height
                + a.status.height;
            assert_eq!(used, h, "{w}x{h}");
            let (apps, details) = (a.of(Pane::Apps), a.of(Pane::Details));
            let side_apps = if apps.x == details.x && details.width > 0 {
                0
            } else {
                apps.width
            };
            assert_eq!(
                side_apps + a.of(Pane::Tree).width + details.width,
                w,
                "{w}x{h}"
            );
            // The bottom strip is shared side by side, the writes on the left.
            let (writes, events) = (a.of(Pane::Writes), a.of(Pane::Events));
            if writes.height > 0 {
                assert_eq!((writes.width, events.x), (w / 2, w / 2), "{w}x{h}");
                assert_eq!(writes.width + events.width, w, "{w}x{h}");
            }
        }
    }

    #[test]
    fn at_80_by_24_the_apps_pane_sits_above_the_details() {
        let a = compute(80, 24, true, &all());
        let (apps, details, tree) = (a.of(Pane::Apps), a.of(Pane::Details), a.of(Pane::Tree));
        assert!(apps.height >= 4, "{a:?}");
        assert_eq!(apps.x, details.x);
        assert_eq!(apps.y + apps.height, details.y);
        assert_eq!(apps.height + details.height, tree.height);
        assert!(details.height >= 6, "{a:?}");
    }

    #[test]
    fn a_pane_not_shown_has_no_area_and_leaves_its_place_to_the_others() {
        let without_events: Vec<_> = all()
            .into_iter()
            .filter(|&(p, _)| p != Pane::Events)
            .collect();
        let a = compute(120, 40, false, &without_events);
        assert_eq!(a.of(Pane::Events), Rect::default());
        assert_eq!(a.of(Pane::Writes).width, 120);
        // With nothing in the left place, the side column keeps its whole height at 100
        // columns.
        let no_left: Vec<_> = all()
            .into_iter()
            .filter(|&(_, p)| p != Place::Left)
            .collect();
        let a = compute(100, 30, false, &no_left);
        assert_eq!(a.of(Pane::Details).height, a.of(Pane::Tree).height);
    }
}
