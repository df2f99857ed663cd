//! Where each pane sits for a terminal size. Pure: the views draw into these areas and the
//! update function uses them for mouse hits and page sizes, so both agree.

use ratatui::layout::Rect;

/// The panes' areas (zero-sized when a pane is not shown).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub banner: Rect,
    pub apps: Rect,
    pub tree: Rect,
    pub details: Rect,
    pub filter: Rect,
    pub writes: Rect,
    pub events: Rect,
    pub status: Rect,
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

/// Lays out a `width` × `height` screen.
pub fn compute(width: u16, height: u16, banner: bool, events: bool) -> Areas {
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
    let apps_w = if width >= 110 { 24 } else { 0 };
    let details_w = if width >= 80 {
        (width * 30 / 100).max(38)
    } else {
        0
    };
    let tree_w = width.saturating_sub(apps_w + details_w);
    a.apps = Rect {
        x: 0,
        y,
        width: apps_w,
        height: if apps_w > 0 { main_h } else { 0 },
    };
    a.tree = Rect {
        x: apps_w,
        y,
        width: tree_w,
        height: main_h,
    };
    a.details = Rect {
        x: apps_w + tree_w,
        y,
        width: details_w,
        height: if details_w > 0 { main_h } else { 0 },
    };
    // Too narrow for a column of its own (80 to 109 columns): the apps pane takes the top
    // third of the details' column, so the apps and windows stay in sight.
    if apps_w == 0 && details_w > 0 && main_h >= 10 {
        let apps_h = (main_h / 3).max(4);
        a.apps = Rect {
            x: a.details.x,
            y,
            width: details_w,
            height: apps_h,
        };
        a.details.y += apps_h;
        a.details.height -= apps_h;
    }
    y += main_h;
    a.filter = full(y, filter_h);
    y += filter_h;
    if events && bottom_h > 0 {
        let half = width / 2;
        a.writes = Rect {
            x: 0,
            y,
            width: half,
            height: bottom_h,
        };
        a.events = Rect {
            x: half,
            y,
            width: width - half,
            height: bottom_h,
        };
    } else {
        a.writes = full(y, bottom_h);
    }
    y += bottom_h;
    a.status = full(y, status_h);
    a
}

/// Whether `(x, y)` lies in `r`.
pub fn hit(r: Rect, x: u16, y: u16) -> bool {
    r.width > 0 && r.height > 0 && x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_tile_the_screen() {
        for (w, h) in [(160, 48), (120, 40), (80, 24), (40, 10), (0, 0)] {
            let a = compute(w, h, true, true);
            let used = a.banner.height
                + a.tree.height
                + a.filter.height
                + a.writes.height
                + a.status.height;
            assert_eq!(used, h, "{w}x{h}");
            let side_apps = if a.apps.x == a.details.x && a.details.width > 0 {
                0
            } else {
                a.apps.width
            };
            assert_eq!(side_apps + a.tree.width + a.details.width, w, "{w}x{h}");
        }
    }

    #[test]
    fn at_80_by_24_the_apps_pane_sits_above_the_details() {
        let a = compute(80, 24, true, true);
        assert!(a.apps.height >= 4, "{a:?}");
        assert_eq!(a.apps.x, a.details.x);
        assert_eq!(a.apps.y + a.apps.height, a.details.y);
        assert_eq!(a.apps.height + a.details.height, a.tree.height);
        assert!(a.details.height >= 6, "{a:?}");
    }
}
