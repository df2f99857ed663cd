//! TUI: the filter bar — the uniqueness badge (unique, N matches, no match, incomplete tree),
//! parse errors at their column, match highlights, hiding non-matching branches, n/N.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crossterm::event::KeyCode;
use insta::assert_snapshot;
use treeglass::backend::Limits;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::tui::app::Badge;
use treeglass::tui::harness::Harness;

async fn demo() -> Harness {
    Harness::start(Arc::new(FixtureBackend::demo()), 140, 40, None)
        .await
        .unwrap()
}

#[tokio::test]
async fn unique_target() {
    let mut h = demo().await;
    h.filter("text \"Full name\"");
    assert_eq!(h.app.filter.badge, Some(Badge::Unique));
    // Typing moved the selection to the match.
    assert_eq!(h.app.selected_node().unwrap().1.name, "Full name");
    h.settle().await.unwrap();
    assert_snapshot!("filter_unique", h.render());
}

#[tokio::test]
async fn ambiguous_target_with_hidden_branches() {
    let mut h = demo().await;
    h.select("button");
    assert_eq!(h.app.filter.badge, Some(Badge::Many(6)));
    assert_eq!(h.app.selected_node().unwrap().1.name, "Save");
    h.key(KeyCode::Char('n'));
    assert_eq!(h.app.selected_node().unwrap().1.name, "Open");
    h.key(KeyCode::Char('N'));
    h.key(KeyCode::Char('N'));
    // N from the first match wraps to the last.
    assert_eq!(h.app.selected_node().unwrap().1.name, "Press me");
    h.key(KeyCode::Char('H'));
    let t = h.app.view.tree.as_ref().unwrap();
    assert!(t.hiding());
    assert!(t.lines.len() <= 10, "{} lines", t.lines.len());
    h.settle().await.unwrap();
    assert_snapshot!("filter_ambiguous_hidden", h.render());
    h.key(KeyCode::Char('H'));
    assert!(!h.app.view.tree.as_ref().unwrap().hiding());
}

#[tokio::test]
async fn no_match() {
    let mut h = demo().await;
    h.filter("check-box \"Nonexistent\"");
    assert_eq!(h.app.filter.badge, Some(Badge::NoMatch));
    assert!(h.app.filter.matches.is_empty());
    let screen = h.render();
    assert!(screen.contains(" no match "), "{screen}");
}

#[tokio::test]
async fn parse_error_points_at_the_column() {
    let mut h = demo().await;
    h.filter("text [editable");
    assert_eq!(h.app.filter.badge, Some(Badge::Error));
    let e = h.app.filter.error.clone().unwrap();
    h.settle().await.unwrap();
    let screen = h.render();
    let caret = screen
        .lines()
        .find(|l| l.contains("^ column"))
        .unwrap()
        .to_string();
    // The caret sits under the column the error names ("/ " + column - 1 + the border).
    let input_line = screen
        .lines()
        .find(|l| l.contains("/ text [editable"))
        .unwrap();
    let start = input_line.find("/ ").unwrap() + 2;
    assert_eq!(caret.find('^').unwrap(), start + e.column - 1, "{caret}");
    assert_snapshot!("filter_parse_error", screen);
    // Fixing it brings the badge back.
    h.type_str("]");
    assert_eq!(h.app.filter.badge, Some(Badge::Many(9)));
}

#[tokio::test]
async fn plain_text_is_a_query() {
    let mut h = demo().await;
    h.filter("proxy");
    // Substring matches beat fuzzy ones: two names contain "proxy", the third "Proxy host".
    assert_eq!(h.app.filter.badge, Some(Badge::Many(3)));
    h.key(KeyCode::Esc);
    assert_eq!(h.app.filter.badge, None);
    assert!(h.app.filter.matches.is_empty());
}

#[tokio::test]
async fn incomplete_tree_never_claims_unique() {
    let b = FixtureBackend::demo();
    let mut h = Harness::new(Arc::new(b), 140, 40, None);
    // Breadth-first, as every backend lays a capped tree out: 40 of the demo's 58 nodes reach
    // the profile group's fields.
    std::sync::Arc::get_mut(&mut h.ctx).unwrap().limits = Limits {
        max_nodes: 40,
        ..Limits::default()
    };
    let fx = h.app.init();
    h.run(fx);
    h.settle().await.unwrap();
    h.filter("text \"Full name\"");
    assert_eq!(h.app.filter.badge, Some(Badge::Incomplete { found: 1 }));
    let screen = h.render();
    assert!(screen.contains("incomplete tree (1 found)"), "{screen}");
    assert!(screen.contains("incomplete: node_cap"), "{screen}");
}
