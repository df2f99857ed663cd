//! TUI: the accessibility checks on the shown tree — the badge on elements with findings, the
//! details pane's findings with the rule's help, the `!` list by severity and Enter to the
//! element, `]`/`[` through them in tree order, the count in the status line, findings that
//! follow the tree as the app changes, and no audit of a tree still being read.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyCode;
use insta::assert_snapshot;
use treeglass::audit::Severity;
use treeglass::backend::Backend;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::tui::Msg;
use treeglass::tui::app::Mode;
use treeglass::tui::harness::Harness;

const WAIT: Duration = Duration::from_secs(5);

async fn start() -> (FixtureBackend, Harness) {
    let b = FixtureBackend::demo();
    let h = Harness::start(Arc::new(b.clone()), 140, 40, None)
        .await
        .unwrap();
    (b, h)
}

/// The rule ids on the line of the element named `name` (the first one).
fn rules_on(h: &Harness, role: &str, name: &str) -> Vec<&'static str> {
    let t = h.app.view.tree.as_ref().unwrap();
    let row = t
        .snap
        .nodes
        .iter()
        .position(|n| n.role.as_str() == role && n.name == name)
        .unwrap();
    h.app
        .report()
        .unwrap()
        .of_row(row)
        .iter()
        .map(|f| f.rule.id)
        .collect()
}

/// The row of the demo's unnamed field after "City:".
fn city_row(h: &Harness) -> usize {
    let t = h.app.view.tree.as_ref().unwrap();
    let label = t.snap.nodes.iter().position(|n| n.name == "City:").unwrap();
    label + 1
}

#[tokio::test]
async fn the_demo_apps_planted_findings_badge_the_tree_and_count_in_the_status() {
    let (_b, mut h) = start().await;
    let r = h.app.report().expect("audited once the tree was read");
    // As `treeglass audit` on the demo: 1 error, 6 warnings, 3 review.
    assert_eq!(r.counts, [1, 6, 3]);
    assert!(r.complete);
    let mut ids: Vec<&str> = r.findings.iter().map(|f| f.rule.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(
        ids,
        [
            "name-is-role",
            "name-missing",
            "siblings-not-unique",
            "target-positional"
        ]
    );
    assert_eq!(
        rules_on(&h, "check-box", "checkbutton"),
        ["name-is-role", "siblings-not-unique", "target-positional"],
        "the worst first"
    );
    assert_eq!(
        r.worst(city_row(&h)),
        Some(Severity::Error),
        "the unnamed field"
    );
    h.key(KeyCode::End);
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(
        screen.contains("check-box \"checkbutton\" = off  ◆ name-is-role +2"),
        "{screen}"
    );
    assert!(screen.contains("text = \"\"  ◆ name-missing "), "{screen}");
    assert!(screen.contains("◆ 10 findings  fixture"), "{screen}");
    // Elements without findings have no badge.
    assert!(!screen.contains("status-bar \"Ready\"  ◆"), "{screen}");
}

#[tokio::test]
async fn the_details_pane_lists_the_selections_findings_with_the_rules_help() {
    let (_b, mut h) = start().await;
    h.select("check-box \"checkbutton\"");
    h.settle().await.unwrap();
    let screen = h.render();
    // On top: each finding, what is wrong here and how to fix it.
    assert!(
        screen.contains("│◆ warning name-is-role: check-box is"),
        "{screen}"
    );
    assert!(screen.contains("│◆ review target-positional:"), "{screen}");
    assert!(
        screen.contains("│  fix: give each of the 3 a distinct"),
        "{screen}"
    );
    assert_snapshot!("audit_details", screen);
    // At the end: each rule's message, standard and help (a taller screen shows where each
    // begins).
    let b = FixtureBackend::demo();
    let mut h = Harness::start(Arc::new(b), 140, 90, None).await.unwrap();
    h.select("check-box \"checkbutton\"");
    h.settle().await.unwrap();
    let screen = h.render();
    let flat: String = screen
        .lines()
        .map(|l| l.split('│').nth(3).unwrap_or("").trim().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    for id in ["name-is-role", "siblings-not-unique", "target-positional"] {
        let rule = treeglass::audit::rule(id).unwrap();
        let words: Vec<&str> = rule.help.split_whitespace().collect();
        let start = words[..4].join(" ");
        assert!(flat.contains(&start), "{start:?} in {flat}");
        assert!(
            flat.contains(&format!("{id} ({}, {})", rule.severity, rule.standard)),
            "{flat}"
        );
    }
}

#[tokio::test]
async fn bang_lists_findings_by_severity_and_enter_selects_the_element() {
    let (_b, mut h) = start().await;
    h.key(KeyCode::Char('!'));
    assert!(matches!(h.app.mode, Mode::Findings(ref s) if s.selected == 0));
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(screen.contains("Accessibility findings (10)"), "{screen}");
    assert!(
        screen.contains("10 findings (1 error, 6 warnings, 3 review)"),
        "{screen}"
    );
    // Errors first, then warnings, then review; each with the element's label and path.
    let pos = |s: &str| screen.find(s).unwrap_or_else(|| panic!("{s} in {screen}"));
    assert!(pos("error   name-missing") < pos("warning name-is-role"));
    assert!(pos("warning siblings-not-unique") < pos("review  target-positional"));
    // Each names its element by its suggested target, and says where it is.
    assert!(
        screen.contains("error   name-missing         text after label \"City:\""),
        "{screen}"
    );
    assert!(
        screen.contains("name-is-role         check-box \"checkbutton\" #2"),
        "{screen}"
    );
    assert!(
        screen.contains("in frame \"Settings — treeglass demo\" > group \"Shipping\" "),
        "{screen}"
    );
    assert_snapshot!("audit_list", screen);

    // Enter on the error: the unnamed field is selected.
    h.key(KeyCode::Enter);
    assert!(matches!(h.app.mode, Mode::Normal));
    assert_eq!(h.app.selected_node().unwrap().0, city_row(&h));

    // Down twice: the second name-is-role finding, on the second check box.
    h.key(KeyCode::Char('!'));
    assert!(
        matches!(h.app.mode, Mode::Findings(ref s) if s.selected == 0),
        "opens on the selection's worst finding"
    );
    h.key(KeyCode::Down);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    let boxes: Vec<usize> = {
        let t = h.app.view.tree.as_ref().unwrap();
        (0..t.snap.nodes.len())
            .filter(|&r| t.snap.nodes[r].name == "checkbutton")
            .collect()
    };
    assert_eq!(h.app.selected_node().unwrap().0, boxes[1]);
    // Esc closes without moving.
    h.key(KeyCode::Char('!'));
    h.key(KeyCode::Esc);
    assert!(matches!(h.app.mode, Mode::Normal));
    assert_eq!(h.app.selected_node().unwrap().0, boxes[1]);
}

#[tokio::test]
async fn brackets_step_through_elements_with_findings_in_tree_order() {
    let (_b, mut h) = start().await;
    let (boxes, city) = {
        let t = h.app.view.tree.as_ref().unwrap();
        let boxes: Vec<usize> = (0..t.snap.nodes.len())
            .filter(|&r| t.snap.nodes[r].name == "checkbutton")
            .collect();
        (boxes, city_row(&h))
    };
    assert_eq!(h.app.selected_node().unwrap().0, 0, "starts on the window");
    let mut seen = Vec::new();
    for _ in 0..4 {
        h.key(KeyCode::Char(']'));
        seen.push(h.app.selected_node().unwrap().0);
    }
    assert_eq!(seen, [boxes[0], boxes[1], boxes[2], city]);
    assert_eq!(
        h.app.notice.as_deref(),
        Some("element 4 of 4 with findings: name-missing")
    );
    // Wraps to the first; `[` goes back, wrapping to the last.
    h.key(KeyCode::Char(']'));
    assert_eq!(h.app.selected_node().unwrap().0, boxes[0]);
    h.key(KeyCode::Char('['));
    assert_eq!(h.app.selected_node().unwrap().0, city);
    h.key(KeyCode::Char('['));
    assert_eq!(h.app.selected_node().unwrap().0, boxes[2]);
    // Collapsed branches open to show the element (the selection moved up to the group).
    h.key(KeyCode::Char('-'));
    h.key(KeyCode::Char(']'));
    assert_eq!(h.app.selected_node().unwrap().0, boxes[0]);
    assert!(
        h.app
            .view
            .tree
            .as_ref()
            .unwrap()
            .line_of(boxes[0])
            .is_some()
    );
}

#[tokio::test]
async fn findings_follow_the_tree_as_the_app_changes() {
    let (b, mut h) = start().await;
    let city = city_row(&h);
    let id = h.app.view.tree.as_ref().unwrap().snap.nodes[city]
        .id
        .clone();
    assert_eq!(h.app.report().unwrap().worst(city), Some(Severity::Error));
    let snap = h.app.view.tree.as_ref().unwrap().snap.id;

    // The app names the field: its finding goes, without a full read.
    b.rename(&id, "City").unwrap();
    h.until("the name-missing finding to go", WAIT, |a| {
        a.report().is_some_and(|r| r.counts == [0, 6, 3])
    })
    .await
    .unwrap();
    assert_eq!(
        h.app.view.tree.as_ref().unwrap().snap.id,
        snap,
        "patched in place"
    );
    assert!(h.app.report().unwrap().of_row(city).is_empty());
    h.settle().await.unwrap();
    assert!(h.render().contains("◆ 9 findings"));

    // A check box renamed to its role: a finding appears on it.
    let undo = b.find_by_name("Subscribe").unwrap();
    b.rename(&undo, "check box").unwrap();
    h.until("a name-is-role finding on it", WAIT, |a| {
        a.report().is_some_and(|r| r.counts[1] == 7)
    })
    .await
    .unwrap();
    let row = h.app.view.tree.as_ref().unwrap().row_of(&undo).unwrap();
    let ids: Vec<&str> = h
        .app
        .report()
        .unwrap()
        .of_row(row)
        .iter()
        .map(|f| f.rule.id)
        .collect();
    assert_eq!(ids, ["name-is-role"]);
}

#[tokio::test]
async fn moving_the_selection_does_not_run_the_audit_again() {
    let (_b, mut h) = start().await;
    let version = h.app.audit.version;
    for _ in 0..5 {
        h.key(KeyCode::Down);
        h.settle().await.unwrap();
    }
    assert_eq!(
        h.app.audit.version, version,
        "the details pane's fresh reads change nothing the rules look at"
    );
}

/// A tree over `AUDIT_AT_ONCE` nodes is judged once it is quiet: an event is applied at once,
/// its findings follow after the wait, and meanwhile the last ones stay (same rows).
#[tokio::test]
async fn a_big_tree_is_judged_once_it_is_quiet() {
    use treeglass::backend::fixture::synthetic;
    use treeglass::model::{Role, Value};
    let nodes = synthetic::generate(treeglass::tui::findings::AUDIT_AT_ONCE + 2_000, 1);
    let text = nodes
        .iter()
        .find(|n| n.role == Role::Text)
        .map(|n| n.id.clone())
        .unwrap();
    let b = FixtureBackend::from_nodes("big", nodes);
    let mut h = Harness::start(Arc::new(b.clone()), 140, 40, None)
        .await
        .unwrap();
    let judged = h.app.audit.findings.as_ref().map(|f| f.key).unwrap();
    assert!(
        h.app.report().is_some(),
        "judged after the first read's quiet time"
    );
    b.user_set(
        &text,
        Value::Text {
            text: "changed".into(),
        },
    )
    .unwrap();
    h.drain_events();
    h.flush_now().await;
    assert!(h.app.audit.version > judged.1, "the change is applied");
    assert_eq!(
        h.app.audit.findings.as_ref().unwrap().key,
        judged,
        "not judged yet"
    );
    assert!(
        h.app.report().is_some(),
        "the last findings stay: same snapshot"
    );
    h.settle().await.unwrap();
    assert_eq!(
        h.app.audit.findings.as_ref().unwrap().key,
        (judged.0, h.app.audit.version),
        "judged once quiet"
    );
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

#[tokio::test]
async fn a_tree_still_being_read_is_not_judged() {
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
    h.send(Msg::Partial {
        root: window.clone(),
        snap: Box::new(partial_of(&whole, 20)),
    });
    assert!(h.app.audit_waiting());
    assert!(h.app.report().is_none());
    let screen = h.render();
    assert!(
        screen.contains("audit: waiting for the whole tree"),
        "{screen}"
    );
    h.key(KeyCode::Char('!'));
    assert!(matches!(h.app.mode, Mode::Normal));
    assert_eq!(
        h.app.notice.as_deref(),
        Some("audit: waiting for the whole tree")
    );
    h.settle().await.unwrap();
    assert!(!h.app.audit_waiting());
    assert_eq!(h.app.report().unwrap().findings.len(), 10);
}
