//! TUI: live updates — children added (by the app's "Add item" button and by the fixture),
//! a selected element that vanishes is shown as gone, single-node changes applied without a
//! full re-read (and the filter badge recomputed), lost events, follow-focus, the events pane.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyCode;
use insta::assert_snapshot;
use treeglass::backend::fixture::{FixtureBackend, FixtureNode};
use treeglass::backend::{Backend, WriteOp};
use treeglass::model::Value;
use treeglass::tui::Msg;
use treeglass::tui::app::Badge;
use treeglass::tui::harness::Harness;

const WAIT: Duration = Duration::from_secs(5);

async fn start() -> (FixtureBackend, Harness) {
    let b = FixtureBackend::demo();
    let h = Harness::start(Arc::new(b.clone()), 140, 40, None)
        .await
        .unwrap();
    (b, h)
}

#[tokio::test]
async fn pressing_add_item_shows_the_new_child() {
    let (_b, mut h) = start().await;
    assert!(!h.has_node("Item 1"));
    h.select("button \"Add item\"");
    h.key(KeyCode::Char('i'));
    h.until("Item 1 in the tree", WAIT, |a| {
        a.view
            .tree
            .as_ref()
            .is_some_and(|t| t.snap.nodes.iter().any(|n| n.name == "Item 1"))
    })
    .await
    .unwrap();
    h.settle().await.unwrap();
    // The selection stayed on the button (followed by identity, not row).
    assert_eq!(h.app.selected_node().unwrap().1.name, "Add item");
    let screen = h.render();
    assert!(screen.contains("button \"Item 1\""), "{screen}");
    assert_snapshot!("live_child_added", screen);
}

#[tokio::test]
async fn a_child_added_by_the_app_appears() {
    let (b, mut h) = start().await;
    let panel = b.find_by_name("Dynamic items").unwrap();
    let child: FixtureNode =
        serde_json::from_value(serde_json::json!({"role": "check-box", "name": "Injected",
            "actions": ["click"], "value": {"kind": "toggle", "state": "on"}}))
        .unwrap();
    let before = h.app.view.tree.as_ref().unwrap().snap.id;
    b.add_child(&panel, &child).unwrap();
    h.until("the injected child", WAIT, |a| {
        a.view
            .tree
            .as_ref()
            .is_some_and(|t| t.snap.nodes.iter().any(|n| n.name == "Injected"))
    })
    .await
    .unwrap();
    assert_ne!(
        h.app.view.tree.as_ref().unwrap().snap.id,
        before,
        "a structural change re-reads"
    );
}

#[tokio::test]
async fn a_vanished_selection_is_shown_as_gone() {
    let (b, mut h) = start().await;
    let panel = b.find_by_name("Dynamic items").unwrap();
    let child: FixtureNode =
        serde_json::from_value(serde_json::json!({"role": "button", "name": "Ephemeral"})).unwrap();
    let id = b.add_child(&panel, &child).unwrap();
    h.until("Ephemeral", WAIT, |a| {
        a.view
            .tree
            .as_ref()
            .is_some_and(|t| t.snap.nodes.iter().any(|n| n.name == "Ephemeral"))
    })
    .await
    .unwrap();
    h.select("button \"Ephemeral\"");
    let line = h.app.view.selection.as_ref().unwrap().line;
    b.remove(&id).unwrap();
    h.until("the selection to be gone", WAIT, |a| {
        a.view.selection.as_ref().is_some_and(|s| s.gone.is_some())
    })
    .await
    .unwrap();
    h.settle().await.unwrap();
    let sel = h.app.view.selection.as_ref().unwrap();
    assert_eq!(sel.line, line, "kept on its old position");
    assert!(h.app.selected_node().is_none(), "not silently replaced");
    let screen = h.render();
    assert!(screen.contains("✗ GONE  button \"Ephemeral\""), "{screen}");
    assert!(screen.contains("selected element is gone"), "{screen}");
    assert_snapshot!("live_selection_gone", screen);
    // The filter was recomputed against the new tree.
    assert_eq!(h.app.filter.badge, Some(Badge::NoMatch));
    // Moving on selects what is there now.
    h.key(KeyCode::Down);
    assert!(h.app.selected_node().is_some());
    assert!(h.app.view.selection.as_ref().unwrap().gone.is_none());
}

#[tokio::test]
async fn single_node_changes_apply_without_a_full_read() {
    let (b, mut h) = start().await;
    h.filter("\"typed by the user\"");
    h.key(KeyCode::Enter);
    assert_eq!(h.app.filter.badge, Some(Badge::NoMatch));
    let snap = h.app.view.tree.as_ref().unwrap().snap.id;
    let id = b.find_by_name("Full name").unwrap();
    b.user_set(
        &id,
        Value::Text {
            text: "typed by the user".into(),
        },
    )
    .unwrap();
    h.until("the badge to say unique", WAIT, |a| {
        a.filter.badge == Some(Badge::Unique)
    })
    .await
    .unwrap();
    assert_eq!(
        h.app.view.tree.as_ref().unwrap().snap.id,
        snap,
        "patched in place"
    );
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(
        screen.contains("text \"Full name\" = \"typed by the user\""),
        "{screen}"
    );
}

#[tokio::test]
async fn lost_events_mean_one_full_read() {
    let (_b, mut h) = start().await;
    h.settle().await.unwrap();
    let snap = h.app.view.tree.as_ref().unwrap().snap.id;
    let reads = h.reads;
    // Three bursts of lost events in a row: one whole read for all of them.
    h.send(Msg::Lagged(500));
    h.send(Msg::Lagged(200));
    h.send(Msg::Lagged(1));
    h.until("a new snapshot", WAIT, |a| {
        a.view.tree.as_ref().is_some_and(|t| t.snap.id != snap)
    })
    .await
    .unwrap();
    h.settle().await.unwrap();
    assert_eq!(h.reads - reads, 1, "lost events cost one whole read");
}

#[tokio::test]
async fn follow_focus_and_the_events_pane() {
    let (b, mut h) = start().await;
    h.key(KeyCode::Char('f'));
    assert!(h.app.follow_focus);
    h.key(KeyCode::Char('v'));
    assert!(h.app.panes.events.shown);
    let slider = b.find_by_name("Volume").unwrap();
    b.write(&slider, &WriteOp::Focus).await.unwrap();
    h.until("the focused slider selected", WAIT, |a| {
        a.selected_node().is_some_and(|(_, n)| n.name == "Volume")
    })
    .await
    .unwrap();
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(screen.contains("focus · slider \"Volume\""), "{screen}");
    assert!(screen.contains("follow-focus"), "{screen}");
    assert_snapshot!("live_follow_focus_events", screen);
}

#[tokio::test]
async fn an_app_leaving_the_bus_says_app_exited_not_window_closed() {
    let (_b, mut h) = start().await;
    let shown = h.app.view.shown.clone().unwrap();
    h.send(Msg::Backend(Box::new(treeglass::backend::Event {
        kind: treeglass::backend::EventKind::AppRemoved,
        source: treeglass::model::NodeId(format!("{}/root", shown.bus_name)),
        app: shown.bus_name.clone(),
        detail: Default::default(),
        at: None,
    })));
    let s = h.app.view.shown.as_ref().unwrap();
    assert!(s.exited && s.gone);
    let screen = h.render();
    assert!(screen.contains("app exited"), "{screen}");
    assert!(!screen.contains("window closed"), "{screen}");
    assert!(
        screen.contains("exited or dropped its accessibility connection"),
        "{screen}"
    );
}

#[tokio::test]
async fn a_tiny_tree_shows_why_from_the_doctor() {
    let (_b, mut h) = start().await;
    // The diagnosis the AT-SPI backend would give for an app that exposes almost nothing.
    let shown = h.app.view.shown.clone().unwrap();
    let report = treeglass::doctor::Report {
        backend: "atspi".into(),
        checks: vec![],
        apps: vec![treeglass::doctor::AppReport {
            name: shown.app_name.clone(),
            pid: None,
            toolkit: Some(treeglass::model::Toolkit::Chromium),
            toolkit_version: None,
            registered: true,
            nodes: Some(3),
            responding: true,
            window: None,
            status: treeglass::doctor::Status::Warn,
            hint: Some(treeglass::doctor::toolkit_hint(
                Some(treeglass::model::Toolkit::Chromium),
                true,
            )),
        }],
    };
    // Only a tiny tree shows it; the demo's is not.
    h.send(Msg::Diagnosed(Some(Box::new(report.clone()))));
    let screen = h.render();
    assert!(!screen.contains("treeglass doctor"), "{screen}");
    let mut snap = h.app.view.tree.as_ref().unwrap().snap.clone();
    snap.nodes.truncate(1);
    snap.nodes[0].children.clear();
    snap.id = treeglass::model::SnapshotId::next();
    h.send(Msg::Snapshot {
        root: shown.window.clone(),
        result: Ok(Box::new(snap)),
    });
    // The tiny tree asked for the diagnosis; this is its answer.
    h.send(Msg::Diagnosed(Some(Box::new(report))));
    let screen = h.render();
    assert!(screen.contains("treeglass doctor"), "{screen}");
    assert!(
        screen.contains("Chromium and Electron expose page content"),
        "{screen}"
    );
    // The whole hint, wrapped at the pane's edge: the flag it names is never cut off.
    assert!(
        screen.contains("--force-renderer-accessibility"),
        "{screen}"
    );
    assert!(screen.contains("screen reader is detected)"), "{screen}");
}

#[tokio::test]
async fn an_empty_apps_pane_shows_why_from_the_doctor_wrapped() {
    let (_b, mut h) = start().await;
    let report = treeglass::doctor::Report {
        backend: "atspi".into(),
        checks: vec![],
        apps: vec![treeglass::doctor::AppReport {
            name: "gtk3-widget-factory".into(),
            pid: Some(4242),
            toolkit: Some(treeglass::model::Toolkit::Gtk3),
            toolkit_version: None,
            registered: false,
            nodes: None,
            responding: true,
            window: None,
            status: treeglass::doctor::Status::Warn,
            hint: Some("its environment has NO_AT_BRIDGE=1: restart it without".into()),
        }],
    };
    // No app on the bus: the empty list asks for the diagnosis; this is its answer.
    h.send(Msg::Apps(Ok(vec![])));
    h.send(Msg::Diagnosed(Some(Box::new(report))));
    let screen = h.render();
    assert!(screen.contains("no applications"), "{screen}");
    // The apps pane is 22 columns wide: every word of the finding is there, wrapped.
    for words in [
        "gtk3-widget-factory",
        "not on the",
        "NO_AT_BRIDGE=1:",
        "restart it without",
    ] {
        assert!(screen.contains(words), "{words:?} missing:\n{screen}");
    }
}

/// The first n nodes of `snap` in pre-order, as a read still going on would hand them over.
fn partial_of(snap: &treeglass::model::Snapshot, n: usize) -> treeglass::model::Snapshot {
    let mut p = snap.clone();
    p.nodes.truncate(n);
    for node in &mut p.nodes {
        node.children.retain(|c| *c < n);
    }
    p.truncated = Some(treeglass::model::Truncation::Reading);
    p
}

/// The demo app's window opened from the app list, its first read started and left running;
/// with the window and its whole tree.
async fn first_read() -> (
    Harness,
    treeglass::model::NodeId,
    treeglass::model::Snapshot,
) {
    let b = FixtureBackend::demo();
    let apps = b.apps().await.unwrap();
    let window = apps[0].windows[0].id.clone();
    let whole = b
        .snapshot(&window, &treeglass::backend::Limits::default())
        .await
        .unwrap();
    let mut h = Harness::new(Arc::new(b.clone()), 140, 40, None);
    let _ = h.app.init();
    h.send(Msg::Apps(Ok(apps)));
    (h, window, whole)
}

/// What a read stopped with Esc answers: its first `n` nodes of `whole`, cancelled.
fn stopped(window: &treeglass::model::NodeId, whole: &treeglass::model::Snapshot, n: usize) -> Msg {
    let mut snap = partial_of(whole, n);
    snap.truncated = Some(treeglass::model::Truncation::Cancelled);
    Msg::Snapshot {
        root: window.clone(),
        result: Ok(Box::new(snap)),
    }
}

#[tokio::test]
async fn the_first_read_is_painted_as_it_arrives_and_replaced_when_whole() {
    // The app list opens the window: its read starts (and is left running).
    let (mut h, window, whole) = first_read().await;
    assert!(h.app.view.tree.is_none());
    assert!(h.render().contains("reading the tree… (Esc stops)"));

    // What the read has placed so far is painted at once, and the filter works on it.
    let part = partial_of(&whole, 8);
    let last = part.nodes[7].name.as_str().to_string();
    h.send(Msg::Partial {
        root: window.clone(),
        snap: Box::new(part),
    });
    let screen = h.render();
    assert_eq!(
        h.app.view.tree.as_ref().unwrap().snap.nodes.len(),
        8,
        "{screen}"
    );
    assert!(screen.contains(&last), "{screen}");
    assert!(!screen.contains("incomplete: reading"), "{screen}");
    h.filter("button");
    let badge = h.app.filter.badge.unwrap();
    assert!(matches!(badge, Badge::Reading { .. }), "{badge:?}");
    assert!(badge.text().starts_with("reading… ("), "{}", badge.text());

    // A later, bigger part replaces it; the whole tree replaces that.
    h.send(Msg::Partial {
        root: window.clone(),
        snap: Box::new(partial_of(&whole, 20)),
    });
    assert_eq!(h.app.view.tree.as_ref().unwrap().snap.nodes.len(), 20);
    h.settle().await.unwrap();
    let t = h.app.view.tree.as_ref().unwrap();
    assert!(t.snap.complete());
    assert_eq!(t.snap.nodes.len(), whole.nodes.len());
    assert!(!matches!(h.app.filter.badge, Some(Badge::Reading { .. })));

    // A partial arriving after the read ended (or for another window) is not painted.
    h.send(Msg::Partial {
        root: window.clone(),
        snap: Box::new(partial_of(&whole, 5)),
    });
    assert_eq!(
        h.app.view.tree.as_ref().unwrap().snap.nodes.len(),
        whole.nodes.len()
    );
}

#[tokio::test]
async fn esc_stops_a_read_in_progress_before_it_clears_the_filter() {
    let (_b, mut h) = start().await;
    h.filter("button");
    h.key(KeyCode::Enter);
    assert!(h.app.filter.active());
    // A re-read is running: Esc stops it and leaves the filter.
    let reads = h.reads;
    h.key(KeyCode::F(5));
    assert_eq!(h.reads, reads + 1, "F5 asks for a read");
    assert_eq!(h.cancels, 0);
    h.key(KeyCode::Esc);
    assert_eq!(h.cancels, 1, "Esc during the read asks for it to stop");
    assert!(h.app.filter.active());
    h.settle().await.unwrap();
    assert!(
        h.render().contains("stopping the read"),
        "the status line says the read is being stopped:\n{}",
        h.render()
    );
    // Nothing is reading any more: Esc clears the filter, and stops nothing.
    h.key(KeyCode::Esc);
    assert!(!h.app.filter.active());
    assert_eq!(h.cancels, 1, "no read to stop");
}

#[tokio::test]
async fn a_stopped_re_read_keeps_the_last_whole_tree() {
    let (b, mut h) = start().await;
    let window = b.apps().await.unwrap()[0].windows[0].id.clone();
    let whole = h.app.view.tree.as_ref().unwrap().snap.clone();
    assert!(whole.complete());
    h.key(KeyCode::F(5));
    h.key(KeyCode::Esc);
    assert_eq!(h.cancels, 1);
    // The stopped read comes back with what it had read: less than the tree on screen.
    h.send(stopped(&window, &whole, 3));
    let t = h.app.view.tree.as_ref().unwrap();
    assert_eq!(t.snap.id, whole.id, "the last whole read stays");
    assert_eq!(t.snap.nodes.len(), whole.nodes.len());
    let screen = h.render();
    assert!(
        screen.contains(&format!(
            "read stopped: the tree shown is the last whole read ({} nodes)",
            whole.nodes.len()
        )),
        "{screen}"
    );
    assert!(!screen.contains("incomplete"), "{screen}");
}

#[tokio::test]
async fn a_stopped_first_read_keeps_what_it_painted() {
    let (mut h, window, whole) = first_read().await;
    h.send(Msg::Partial {
        root: window.clone(),
        snap: Box::new(partial_of(&whole, 8)),
    });
    h.key(KeyCode::Esc);
    assert_eq!(h.cancels, 1, "Esc stops the first read too");
    // Stopped while it waited for the app's cache, the read has nothing of its own.
    h.send(stopped(&window, &whole, 0));
    let t = h.app.view.tree.as_ref().unwrap();
    assert_eq!(t.snap.nodes.len(), 8, "what was painted stays");
    assert_eq!(
        t.snap.truncated,
        Some(treeglass::model::Truncation::Cancelled)
    );
    let screen = h.render();
    assert!(screen.contains("incomplete: cancelled"), "{screen}");
    assert!(
        screen.contains("read stopped: what it had read is shown (8 nodes)"),
        "{screen}"
    );
}

#[tokio::test]
async fn a_read_asked_for_while_a_stopped_one_ran_does_not_follow_it() {
    let (_b, mut h) = start().await;
    let reads = h.reads;
    h.key(KeyCode::F(5));
    // Asked again while the first runs: it would follow the first.
    h.key(KeyCode::F(5));
    h.key(KeyCode::Esc);
    h.settle().await.unwrap();
    assert_eq!(h.reads, reads + 1, "stopped means stopped");
    // Without the stop, it follows.
    h.key(KeyCode::F(5));
    h.key(KeyCode::F(5));
    h.settle().await.unwrap();
    assert_eq!(h.reads, reads + 3);
}

#[tokio::test]
async fn a_stopped_re_read_does_not_call_an_incomplete_tree_whole() {
    let (b, mut h) = start().await;
    let window = b.apps().await.unwrap()[0].windows[0].id.clone();
    // The tree on screen is itself what a stopped first read had.
    h.app.view.tree.as_mut().unwrap().snap.truncated =
        Some(treeglass::model::Truncation::Cancelled);
    let shown = h.app.view.tree.as_ref().unwrap().snap.clone();
    h.key(KeyCode::F(5));
    h.key(KeyCode::Esc);
    h.send(stopped(&window, &shown, 2));
    let screen = h.render();
    assert!(
        screen.contains(&format!(
            "read stopped: the tree shown is the last read, incomplete ({} nodes)",
            shown.nodes.len()
        )),
        "{screen}"
    );
    assert!(!screen.contains("whole read"), "{screen}");
}
