//! TUI: the folded tree, raw view, collapse/expand, the details pane, help overlay, and the
//! demo banner — driven by keys over the fixture backend's demo app, checked with snapshots.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crossterm::event::KeyCode;
use insta::assert_snapshot;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::tui::app::Mode;
use treeglass::tui::harness::Harness;

async fn demo() -> Harness {
    Harness::start(Arc::new(FixtureBackend::demo()), 140, 40, None)
        .await
        .unwrap()
}

#[tokio::test]
async fn opens_on_the_folded_tree() {
    let mut h = demo().await;
    let t = h.app.view.tree.as_ref().unwrap();
    // The unnamed scroll pane folds into its list.
    let raw_lines = t.snap.nodes.len();
    assert!(t.lines.len() < raw_lines, "{} lines", t.lines.len());
    assert_snapshot!("folded_tree", h.render());
    // The bottom of the tree: the scroll pane folded into the list "Fruits".
    h.key(KeyCode::End);
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(screen.contains("list \"Fruits\"  ⟨1 folded⟩"), "{screen}");
    assert_snapshot!("folded_tree_bottom", screen);
}

#[tokio::test]
async fn raw_view_shows_every_node() {
    let mut h = demo().await;
    h.key(KeyCode::Char('T'));
    let t = h.app.view.tree.as_ref().unwrap();
    assert_eq!(t.lines.len(), t.snap.nodes.len());
    h.key(KeyCode::Char('T'));
    let t = h.app.view.tree.as_ref().unwrap();
    assert!(t.lines.len() < t.snap.nodes.len());
}

#[tokio::test]
async fn collapse_and_expand() {
    let mut h = demo().await;
    let all = h.app.view.tree.as_ref().unwrap().lines.len();
    // Go to the tab list and collapse it.
    h.select("tab-list");
    h.key(KeyCode::Left);
    let collapsed = h.app.view.tree.as_ref().unwrap().lines.len();
    assert!(collapsed < all - 20, "{collapsed} of {all}");
    h.settle().await.unwrap();
    assert_snapshot!("collapsed_tab_list", h.render());
    // Right expands it again; a second Right goes to its first child.
    h.key(KeyCode::Right);
    assert_eq!(h.app.view.tree.as_ref().unwrap().lines.len(), all);
    h.key(KeyCode::Right);
    assert_eq!(h.app.selected_node().unwrap().1.name, "General");
    // Left on a leaf-less expanded node collapses; Space toggles back.
    h.key(KeyCode::Char(' '));
    assert!(h.app.view.tree.as_ref().unwrap().lines.len() < all);
    h.key(KeyCode::Char(' '));
    assert_eq!(h.app.view.tree.as_ref().unwrap().lines.len(), all);
    // Collapse all, expand all.
    h.key(KeyCode::Char('-'));
    assert!(h.app.view.tree.as_ref().unwrap().lines.len() < 15);
    h.key(KeyCode::Char('+'));
    assert_eq!(h.app.view.tree.as_ref().unwrap().lines.len(), all);
}

#[tokio::test]
async fn details_pane_shows_everything_about_a_node() {
    let mut h = demo().await;
    h.select("spin-button \"Quantity\"");
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(screen.contains("(min 0, max 100, step 1)"), "{screen}");
    assert!(
        screen.contains("target      spin-button \"Quantity\""),
        "{screen}"
    );
    assert_snapshot!("details_spin_button", screen);
}

#[tokio::test]
async fn help_overlay_lists_every_key() {
    let mut h = demo().await;
    h.key(KeyCode::Char('?'));
    assert!(matches!(h.app.mode, Mode::Help(_)));
    let screen = h.render();
    for b in treeglass::tui::keys::BINDINGS.iter().take(20) {
        assert!(screen.contains(b.help), "missing {:?}\n{screen}", b.help);
    }
    assert_snapshot!("help_overlay", screen);
    // Scrolling shows the rest; any other key closes.
    for _ in 0..40 {
        h.key(KeyCode::Down);
    }
    let rest = h.render();
    for b in treeglass::tui::keys::BINDINGS.iter().skip(20) {
        assert!(rest.contains(b.help), "missing {:?}\n{rest}", b.help);
    }
    h.key(KeyCode::Char('x'));
    assert!(!matches!(h.app.mode, Mode::Help(_)));
}

#[tokio::test]
async fn demo_banner_is_visible() {
    let mut h = Harness::start(
        Arc::new(FixtureBackend::demo()),
        140,
        40,
        Some("No accessibility bus (test): showing the built-in demo app.".into()),
    )
    .await
    .unwrap();
    let screen = h.render();
    let first = screen.lines().next().unwrap();
    assert!(first.contains("showing the built-in demo app"), "{first}");
}

#[tokio::test]
async fn hostile_names_are_escaped() {
    let b = FixtureBackend::demo();
    let save = b.find_by_name("Save").unwrap();
    b.rename(&save, "Sa\x1b[31mve\u{202e}txt\nX").unwrap();
    let mut h = Harness::start(Arc::new(b), 140, 40, None).await.unwrap();
    let screen = h.render();
    assert!(
        screen.contains(r#"button "Sa\x1b[31mve\u{202e}txt\nX""#),
        "{screen}"
    );
    assert!(!screen.contains('\x1b') && !screen.contains('\u{202e}'));
}

#[tokio::test]
async fn resize_and_mouse() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    use treeglass::tui::Msg;
    let mut h = demo().await;
    // Click the fourth tree line (the pane starts at y = 0; its border takes a row).
    let tree = h.app.areas().of(treeglass::tui::app::Pane::Tree);
    h.send(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: tree.x + 5,
        row: tree.y + 4,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(h.app.view.selection.as_ref().unwrap().line, 3);
    for _ in 0..5 {
        h.send(Msg::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: tree.x + 5,
            row: tree.y + 4,
            modifiers: KeyModifiers::NONE,
        }));
    }
    assert!(h.app.view.offset > 0);
    // A small terminal still draws.
    h.send(Msg::Resize(60, 16));
    h.terminal.backend_mut().resize(60, 16);
    let screen = h.render();
    assert!(screen.lines().count() == 16);
}

#[tokio::test]
async fn apps_pane_opens_a_window() {
    use treeglass::tui::app::Pane;
    let mut h = demo().await;
    h.key(KeyCode::BackTab);
    assert_eq!(h.app.focus, Pane::Apps);
    h.key(KeyCode::Up);
    h.key(KeyCode::Enter);
    assert!(h.app.prompt().is_none());
    assert_eq!(h.app.focus, Pane::Tree);
    h.settle().await.unwrap();
    assert!(h.app.view.tree.is_some());
    // Tab cycles apps → tree → writes → apps.
    h.key(KeyCode::Tab);
    assert_eq!(h.app.focus, Pane::Writes);
    h.key(KeyCode::Tab);
    assert_eq!(h.app.focus, Pane::Apps);
}
