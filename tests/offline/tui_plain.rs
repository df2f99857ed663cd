//! The inspector without colour (`NO_COLOR`) and at 80×24, drawn into a test buffer: the
//! selection is reverse video, text cut at a pane's edge ends in an ellipsis, the apps pane
//! stays in sight and the status line keeps its two sides apart. One test: colour is off for
//! the whole process once set, so the test runs in a process of its own.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};
use treeglass::backend::fixture::FixtureBackend;
use treeglass::tui::harness::Harness;

/// The row of the buffer whose text contains `needle`, and the column where it starts.
fn find(h: &Harness, needle: &str) -> Option<(u16, u16)> {
    let buf = h.terminal.backend().buffer();
    for y in 0..buf.area.height {
        let row: Vec<&str> = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        let text: String = row.concat();
        if let Some(i) = text.find(needle) {
            let col = text[..i].chars().count() as u16;
            return Some((col, y));
        }
    }
    None
}

#[tokio::test]
async fn without_colour_and_at_80_by_24_the_screen_still_reads() {
    if !crate::alone("tui_plain::without_colour_and_at_80_by_24_the_screen_still_reads") {
        return;
    }
    // As `NO_COLOR=1` makes the inspector do when it starts.
    treeglass::tui::view::theme::set_no_colour(true);
    let banner = "no accessibility bus (accessibility bus unavailable: no session bus \
                  (DBUS_SESSION_BUS_ADDRESS is not set)); showing the built-in demo app"
        .to_string();
    let mut h = Harness::start(Arc::new(FixtureBackend::demo()), 80, 24, Some(banner))
        .await
        .unwrap();
    h.select("text \"Full name\"");
    h.settle().await.unwrap();
    let screen = h.render();

    // The selected row: reverse video, and no colour at all.
    let (x, y) = find(&h, "text \"Full name\"").unwrap_or_else(|| panic!("{screen}"));
    let cell = &h.terminal.backend().buffer()[(x, y)];
    assert!(
        cell.modifier.contains(Modifier::REVERSED),
        "the selection is reverse video without colour: {cell:?}\n{screen}"
    );
    assert_eq!(cell.bg, Color::Reset, "{cell:?}");
    // No colour anywhere on the screen: a colour change would reach the terminal as a reset
    // of every attribute, the reverse video included.
    let buf = h.terminal.backend().buffer();
    assert!(
        buf.content
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset),
        "a coloured cell without colour"
    );
    // Another row is not.
    let (x, y) = find(&h, "text \"Account ID\"").unwrap_or_else(|| panic!("{screen}"));
    let other = &h.terminal.backend().buffer()[(x, y)];
    assert!(!other.modifier.contains(Modifier::REVERSED), "{other:?}");

    // 80×24: the apps pane stays, above the details.
    assert!(screen.contains("Apps (1)"), "{screen}");
    assert!(screen.contains("Details"), "{screen}");
    // Cut text ends in an ellipsis: the banner is longer than the screen is wide.
    let first = screen.lines().next().unwrap();
    assert!(
        first.ends_with('…'),
        "the banner cut with an ellipsis: {first:?}"
    );
    // The status line: the hints cut with an ellipsis, a blank before the backend's name.
    let status = screen.lines().last().unwrap();
    assert!(status.contains("y… ◆ 10 findings"), "{status:?}");

    // The details pane scrolls by keyboard: J moves it, K brings it back.
    let top = screen.clone();
    h.key(KeyCode::Char('J'));
    let scrolled = h.render();
    assert_ne!(scrolled, top, "J scrolls the details");
    assert!(scrolled.contains("Details 4–"), "{scrolled}");
    h.key(KeyCode::Char('K'));
    assert_eq!(h.render(), top, "K scrolls back");
}
