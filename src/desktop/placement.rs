//! Where an element is on a Wayland screen. A Wayland client does not know where its window is,
//! so the extents a toolkit answers are relative to its own window, and not all the same way
//! (measured on headless sway 1.7, pixels checked in `grim` screenshots):
//!
//! - GTK 4: relative to the window's geometry (the window without its client-side shadow);
//! - GTK 3, Qt, Chromium: relative to the surface, which holds the client-side shadow around
//!   the geometry: GTK 3's is uneven (26 px left and right, 23 above, 29 below on a floating
//!   Adwaita window; none when tiled), Chromium's even when tiled (10 px every side) and
//!   uneven when floating (16 px left and right, 9 above, 33 below), Qt's none (sway draws
//!   its decorations).
//!
//! The compositor says where the window's geometry is (sway: the container's content, the
//! geometry centred in it when smaller). What is not said anywhere is where the geometry sits
//! inside the surface; it is found from the app's own tree, by the toolkit's row of
//! `QUIRKS` (the AT-SPI backend's toolkit table): the frame itself when it is the window's size, its
//! children's bounding box (GTK 3 draws its title bar and content exactly over the geometry),
//! or an even inset (Chromium). When none of these fits the window, the position is not known,
//! and nothing is placed by guessing. Pure.

use super::Rect;

/// How a toolkit's extents relate to its window on Wayland, where no client knows its place on
/// screen (measured on headless sway 1.7, positions checked in screenshots; see
/// below).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Relative to the window's geometry, without the client-side shadow.
    Geometry,
    /// Relative to the surface; the geometry is the bounding box of the frame's children.
    SurfaceChildren,
    /// Relative to the surface, with the same shadow inset on every side.
    SurfaceEven,
    /// Relative to the surface; no shadow known: the frame must be the window's size.
    Surface,
}

/// What is known of one window: the app's side (its frame's extents and those of the frame's
/// children on screen, in the app's coordinates) and the compositor's (where the window's
/// content is on screen).
#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub frame: Rect,
    pub children: Vec<Rect>,
    /// The window's content on screen (sway: the container's content rectangle).
    pub content: Rect,
    /// The compositor tiles the window (no client-side shadow is drawn around it).
    pub tiled: bool,
}

/// The offset that takes the app's coordinates to the screen's, and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub dx: i32,
    pub dy: i32,
    pub how: &'static str,
}

impl Placed {
    pub fn apply(&self, r: Rect) -> Rect {
        Rect {
            x: r.x.saturating_add(self.dx),
            y: r.y.saturating_add(self.dy),
            ..r
        }
    }
}

/// The bounding box of the rectangles that have an area and a position (ATK answers
/// `i32::MIN` for the position of what it has not placed).
fn union(rects: &[Rect]) -> Option<Rect> {
    let mut it = rects
        .iter()
        .filter(|r| r.width > 0 && r.height > 0 && r.x != i32::MIN && r.y != i32::MIN);
    let first = *it.next()?;
    let (mut x0, mut y0) = (i64::from(first.x), i64::from(first.y));
    let (mut x1, mut y1) = (x0 + i64::from(first.width), y0 + i64::from(first.height));
    for r in it {
        x0 = x0.min(i64::from(r.x));
        y0 = y0.min(i64::from(r.y));
        x1 = x1.max(i64::from(r.x) + i64::from(r.width));
        y1 = y1.max(i64::from(r.y) + i64::from(r.height));
    }
    let c = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    Some(Rect {
        x: c(x0),
        y: c(y0),
        width: c(x1 - x0),
        height: c(y1 - y0),
    })
}

fn same_size(a: Rect, b: Rect) -> bool {
    a.width == b.width && a.height == b.height
}

/// Where the window's geometry is in the app's coordinates, by the toolkit's rule.
fn geometry(origin: Origin, seen: &Seen) -> Result<(Rect, &'static str), String> {
    let (f, c) = (seen.frame, seen.content);
    if f.width <= 0 || f.height <= 0 {
        return Err("the app gives its window no size".into());
    }
    if same_size(f, c) {
        return Ok((f, "the frame is the window's size"));
    }
    match origin {
        Origin::Geometry => Ok((f, "the toolkit answers relative to its window")),
        Origin::SurfaceChildren => match union(&seen.children) {
            Some(u) if same_size(u, c) => Ok((u, "the window's content measured from the frame")),
            // Tiled, GTK 3 draws no shadow: the frame is the window, which may be bigger
            // than its container when the app cannot shrink to it (sway then draws it from
            // the container's corner, clipped).
            _ if seen.tiled => Ok((f, "a tiled window: the frame, with no shadow around it")),
            // Smaller than the container: a window of fixed size, centred (below).
            Some(u) if u.width <= c.width && u.height <= c.height && f.width <= c.width => {
                Ok((f, "the frame, centred in its container"))
            }
            u => Err(format!(
                "the frame ({}×{}) and its content ({}) are not the window's size ({}×{})",
                f.width,
                f.height,
                u.map_or("nothing showing".into(), |u| format!(
                    "{}×{} at {},{}",
                    u.width, u.height, u.x, u.y
                )),
                c.width,
                c.height
            )),
        },
        Origin::SurfaceEven => {
            let (ix, iy) = (f.width - c.width, f.height - c.height);
            if ix >= 0 && ix == iy {
                Ok((
                    Rect {
                        x: f.x + ix / 2,
                        y: f.y + iy / 2,
                        width: c.width,
                        height: c.height,
                    },
                    "the frame less the toolkit's even shadow",
                ))
            } else if seen.tiled && ix >= 0 && iy >= 0 {
                // Tiled, the shadow is the same on every side, and the window is bigger than
                // its container across or down (the app cannot shrink to it): the other way
                // measures the shadow.
                let inset = ix.min(iy) / 2;
                Ok((
                    Rect {
                        x: f.x + inset,
                        y: f.y + inset,
                        width: f.width - 2 * inset,
                        height: f.height - 2 * inset,
                    },
                    "a tiled window: the frame less its even shadow",
                ))
            } else if f.width <= c.width && f.height <= c.height {
                Ok((f, "the frame, centred in its container"))
            } else {
                // A floating window's drop shadow is deeper below than above (Chromium:
                // 16 px left and right, 9 above, 33 below): how it splits is not known.
                Err(format!(
                    "the frame ({}×{}) is not the window's size ({}×{}) and its shadow is not \
                     the same on every side, so where the window sits in it is not known",
                    f.width, f.height, c.width, c.height
                ))
            }
        }
        Origin::Surface => {
            if f.width <= c.width && f.height <= c.height {
                Ok((f, "the frame, centred in its container"))
            } else {
                Err(format!(
                    "the frame ({}×{}) is bigger than the window ({}×{}), and where this \
                     toolkit puts its window inside its surface is not known",
                    f.width, f.height, c.width, c.height
                ))
            }
        }
    }
}

/// The offset from the app's coordinates to the screen's where the compositor says where the
/// client's whole surface is (KWin's buffer rectangle): a toolkit that answers relative to
/// its surface (every row of `QUIRKS` but the window geometry's) is placed by it, when the
/// frame is the surface's size. `None`: the other rules apply.
pub fn place_on_surface(origin: Origin, frame: Rect, surface: Option<Rect>) -> Option<Placed> {
    let s = surface?;
    (origin != Origin::Geometry && same_size(frame, s) && s.width > 0 && s.height > 0).then(|| {
        Placed {
            dx: s.x - frame.x,
            dy: s.y - frame.y,
            how: "the frame is the surface the compositor places",
        }
    })
}

/// The offset from the app's coordinates to the screen's, or why it cannot be known.
pub fn place(origin: Origin, seen: &Seen) -> Result<Placed, String> {
    let (g, how) = geometry(origin, seen)?;
    let c = seen.content;
    // sway centres a view smaller than its container (`view_center_surface`): integer halves.
    let cx = ((c.width - g.width) / 2).max(0);
    let cy = ((c.height - g.height) / 2).max(0);
    Ok(Placed {
        dx: c.x + cx - g.x,
        dy: c.y + cy - g.y,
        how,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x: i32, y: i32, width: i32, height: i32) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    // Every case below was measured on headless sway 1.7; the check box positions were found
    // in a `grim` screenshot.

    #[test]
    fn a_surface_the_compositor_places_places_surface_relative_toolkits_only() {
        // KWin 5.27: a GTK 3 window's frame is its whole surface, shadow included.
        let surface = Some(r(-69, -12, 1419, 829));
        let p = place_on_surface(Origin::SurfaceChildren, r(0, 0, 1419, 829), surface).unwrap();
        assert_eq!((p.dx, p.dy), (-69, -12));
        assert!(place_on_surface(Origin::Geometry, r(0, 0, 1419, 829), surface).is_none());
        assert!(place_on_surface(Origin::Surface, r(0, 0, 1391, 800), surface).is_none());
        assert!(place_on_surface(Origin::SurfaceEven, r(0, 0, 1419, 829), None).is_none());
    }

    #[test]
    fn gtk4_floating_is_its_windows_position() {
        // gtk4-widget-factory floating at 200,150: a check box the app puts at 14,413 was
        // drawn at 214,563.
        let seen = Seen {
            frame: r(0, 0, 1391, 900),
            children: vec![],
            content: r(200, 150, 1391, 900),
            tiled: false,
        };
        let p = place(Origin::Geometry, &seen).unwrap();
        assert_eq!(p.apply(r(14, 413, 110, 18)), r(214, 563, 110, 18));
    }

    #[test]
    fn gtk3_floating_loses_its_uneven_shadow() {
        // gtk3-widget-factory floating at 300,250 (1415×732): its surface is 1467×784, the
        // title bar starts at 26,23; tiled, the same check box was at 10,505, floating 36,528.
        let seen = Seen {
            frame: r(0, 0, 1467, 784),
            children: vec![
                r(26, 23, 1415, 47),
                r(26, 70, 1415, 685),
                r(i32::MIN, i32::MIN, 1, 1),
            ],
            content: r(300, 250, 1415, 732),
            tiled: false,
        };
        let p = place(Origin::SurfaceChildren, &seen).unwrap();
        assert_eq!(p.apply(r(36, 528, 118, 22)), r(310, 755, 118, 22));
        // Tiled: no shadow, the frame is the window.
        let tiled = Seen {
            frame: r(0, 0, 1600, 1200),
            children: vec![r(0, 0, 1600, 47)],
            content: r(0, 0, 1600, 1200),
            tiled: true,
        };
        let p = place(Origin::SurfaceChildren, &tiled).unwrap();
        assert_eq!(p.apply(r(10, 505, 118, 22)), r(10, 505, 118, 22));
        // Tiled in a container narrower than the app can shrink to (the fixture, 806 wide,
        // in a 534-wide container at 1066,0): drawn from the container's corner.
        // Its padding (12 px) is no shadow: the frame's child is inset.
        let narrow = Seen {
            frame: r(0, 0, 806, 1200),
            children: vec![r(12, 12, 782, 1176)],
            content: r(1066, 0, 534, 1200),
            tiled: true,
        };
        let p = place(Origin::SurfaceChildren, &narrow).unwrap();
        assert_eq!(p.apply(r(80, 23, 200, 30)), r(1146, 23, 200, 30));
        // The same window floating: the inset child is not the window's size, and a shadow
        // is not guessed.
        let floating = Seen {
            tiled: false,
            ..narrow
        };
        assert!(place(Origin::SurfaceChildren, &floating).is_err());
    }

    #[test]
    fn chromium_loses_its_even_shadow() {
        // Chromium tiled at 0,0 (1600×1200): surface 1620×1220; a check box at 30,475 was
        // drawn at 20,465.
        let seen = Seen {
            frame: r(0, 0, 1620, 1220),
            children: vec![r(0, 0, 1620, 1220)],
            content: r(0, 0, 1600, 1200),
            tiled: true,
        };
        let p = place(Origin::SurfaceEven, &seen).unwrap();
        assert_eq!(p.apply(r(30, 475, 13, 14)), r(20, 465, 13, 14));
    }

    #[test]
    fn chromium_tiled_narrower_than_it_can_shrink_to_keeps_its_even_shadow() {
        // Four windows tiled side by side: Chromium's container is 400 wide, its window 500
        // (its minimum) and its surface 520 × 1220: drawn from the container's corner.
        let seen = Seen {
            frame: r(0, 0, 520, 1220),
            children: vec![r(0, 0, 520, 1220)],
            content: r(0, 0, 400, 1200),
            tiled: true,
        };
        let p = place(Origin::SurfaceEven, &seen).unwrap();
        assert_eq!((p.dx, p.dy), (-10, -10));
        // Floating, the same sizes are not taken as an even shadow.
        let floating = Seen {
            tiled: false,
            ..seen
        };
        assert!(place(Origin::SurfaceEven, &floating).is_err());
    }

    #[test]
    fn chromium_floating_has_an_uneven_shadow_that_is_not_guessed() {
        // Floating at 160,90 (968×858): surface 1000×900, a field the app puts at 158,223 was
        // drawn at 302,304 (insets 16 left, 9 above). Halving the difference would put it
        // 12 px too low: no place is given at all.
        let seen = Seen {
            frame: r(0, 0, 1000, 900),
            children: vec![r(0, 0, 1000, 900)],
            content: r(160, 90, 968, 858),
            tiled: false,
        };
        let e = place(Origin::SurfaceEven, &seen).unwrap_err();
        assert!(e.contains("not the same on every side"), "{e}");
    }

    #[test]
    fn a_fixed_size_window_is_centred_in_its_container() {
        let seen = Seen {
            frame: r(0, 0, 400, 300),
            children: vec![r(0, 0, 400, 300)],
            content: r(0, 0, 1600, 1200),
            tiled: false,
        };
        for origin in [Origin::Geometry, Origin::Surface, Origin::SurfaceChildren] {
            let p = place(origin, &seen).unwrap();
            assert_eq!((p.dx, p.dy), (600, 450), "{origin:?}");
        }
    }

    #[test]
    fn an_unknown_shadow_is_not_guessed() {
        let seen = Seen {
            frame: r(0, 0, 1467, 784),
            children: vec![r(0, 0, 1467, 784)],
            content: r(300, 250, 1415, 732),
            tiled: false,
        };
        let e = place(Origin::Surface, &seen).unwrap_err();
        assert!(e.contains("not known"), "{e}");
        let e = place(Origin::SurfaceChildren, &seen).unwrap_err();
        assert!(e.contains("not the window's size"), "{e}");
        assert!(place(Origin::Geometry, &Seen::default()).is_err());
    }
}
