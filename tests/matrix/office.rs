//! LibreOffice on the real bus: Calc's sheet is a table that manages its descendants (about a
//! million rows × 16,384 columns of cells made on demand; enumerating them hung Calc for
//! minutes). Every command treeglass has that reads — `tree`, `tree --targets`, `find`, `get`,
//! a TUI session — runs on Calc and on Writer, and after each the app must still be alive,
//! registered and answer a plain call within 2 s. The sheet is shown for what it is (its size
//! and the cells on screen), never enumerated. Each app is started once for the whole binary.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::matrix::{Kit, MatrixApp};
use common::tmux::Tmux;
use common::*;
use serde_json::Value;

/// The node with this raw role whose name contains `name`, anywhere in a `tree --json` tree.
fn find_node<'a>(n: &'a Value, raw_role: &str, name: &str) -> Option<&'a Value> {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n["raw_role"] == raw_role && n["name"].as_str().is_some_and(|s| s.contains(name)) {
            return Some(n);
        }
        stack.extend(n["children"].as_array().into_iter().flatten());
    }
    None
}

/// A TUI session on the app's window: it opens, filters to `target`, shows `what` (the
/// selected element's details), moves, and quits cleanly.
/// `audit --json` of the app: the tree read whole, every rule judged (nothing left not
/// evaluated), and the app answers afterwards.
fn audited_whole(app: &mut MatrixApp) {
    let o = app.treeglass(&["audit", "--json"]);
    assert!(
        matches!(o.status.code(), Some(0) | Some(14)),
        "audit: {:?} {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json_of(&o);
    assert_eq!(v["complete"], true, "{}", v["truncated"]);
    assert!(
        v["not_evaluated"].as_array().is_some_and(|a| a.is_empty()),
        "{}",
        v["not_evaluated"]
    );
    app.assert_alive("audit");
}

fn tui_session(app: &MatrixApp, target: &str, what: &str) {
    let tmux = Tmux::new();
    tmux.start(&["--pid", &app.pid.to_string()]);
    tmux.wait_for("nodes", Duration::from_secs(30));
    tmux.keys(&["/"]);
    tmux.type_text(target);
    tmux.wait_for("unique", Duration::from_secs(10));
    tmux.keys(&["Enter"]);
    tmux.wait_for(what, Duration::from_secs(10));
    tmux.keys(&["j", "j", "G", "g"]);
    tmux.keys(&["q"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while tmux.alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!tmux.alive(), "the TUI did not quit");
}

#[test]
fn calc_is_read_by_every_command_and_keeps_answering() {
    let _turn = common::turn::shared();
    let mut app = MatrixApp::start(Kit::Calc);
    app.assert_alive("starting");

    let o = app.treeglass(&["tree"]);
    assert_ok(&o, "tree");
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.contains("table \"Sheet Sheet1\""))
        .unwrap_or_else(|| panic!("no sheet in:\n{text}"));
    assert!(
        line.contains("manages its descendants (1,048,576 rows × 16,384 columns); showing the"),
        "{line}"
    );
    assert!(
        text.contains("table-cell \"A1\""),
        "the visible cells are shown"
    );
    app.assert_alive("tree");

    let o = app.treeglass(&["tree", "--targets", "--json"]);
    assert_ok(&o, "tree --targets --json");
    let v = json_of(&o);
    assert_eq!(v["complete"], true, "{}", v["truncated"]);
    let sheet = find_node(&v["root"], "table", "Sheet1").expect("the sheet in JSON");
    let m = &sheet["managed"];
    assert_eq!(m["reason"], "manages-descendants", "{m}");
    assert_eq!(m["rows"], 1_048_576, "{m}");
    assert_eq!(m["columns"], 16_384, "{m}");
    assert_eq!(m["child_count"], 2_147_483_647u64, "{m}");
    let shown = m["shown"].as_u64().unwrap();
    let kids = sheet["children"].as_array().unwrap();
    assert!((20..=200).contains(&shown), "a screenful of cells: {shown}");
    assert_eq!(kids.len() as u64, shown, "the shown cells are its children");
    assert!(
        kids.iter()
            .all(|k| k["raw_role"] == "table cell" && k["children"].as_array().unwrap().is_empty()),
        "only cells, never their descendants"
    );
    assert!(kids.iter().any(|k| k["name"] == "B2"), "B2 is on screen");
    app.assert_alive("tree --targets --json");

    let o = app.treeglass(&["find", r#"table-cell "B2""#, "--json"]);
    assert_ok(&o, "find a visible cell");
    let found = json_of(&o);
    assert_eq!(found["outcome"], "unique");
    // LibreOffice's bridge would walk into the sheet to answer Collection.GetMatches: it is
    // never asked, the tree is read.
    assert!(found.get("narrowed").is_none(), "{found:#}");
    app.assert_alive("find");

    let o = app.treeglass(&["get", r#"table "Sheet Sheet1""#]);
    assert_ok(&o, "get the sheet");
    assert!(
        stdout(&o).contains("table \"Sheet Sheet1\""),
        "{}",
        stdout(&o)
    );
    app.assert_alive("get");

    // The audit's own reads beyond the tree (extents, indexes, relations, the first 4 × 4
    // cells of each table) where a table manages its descendants.
    audited_whole(&mut app);

    tui_session(&app, r#"table "Sheet Sheet1""#, "manages its descendants");
    app.assert_alive("a TUI session");
}

#[test]
fn writer_is_read_by_every_command_and_keeps_answering() {
    let _turn = common::turn::shared();
    let mut app = MatrixApp::start(Kit::Writer);
    app.assert_alive("starting");

    let o = app.treeglass(&["tree"]);
    assert_ok(&o, "tree");
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.contains("document \""))
        .unwrap_or_else(|| panic!("no document in:\n{text}"));
    assert!(line.contains("manages its descendants"), "{line}");
    app.assert_alive("tree");

    let o = app.treeglass(&["tree", "--targets", "--json"]);
    assert_ok(&o, "tree --targets --json");
    let v = json_of(&o);
    assert_eq!(v["complete"], true, "{}", v["truncated"]);
    let doc = find_node(&v["root"], "document text", "").expect("the document in JSON");
    assert_eq!(doc["managed"]["reason"], "manages-descendants");
    let kids = doc["children"].as_array().unwrap();
    assert!(
        kids.iter().any(|k| k["raw_role"] == "paragraph"),
        "the visible paragraph is shown: {kids:?}"
    );
    app.assert_alive("tree --targets --json");

    // A new document: one (empty) paragraph on screen.
    let o = app.treeglass(&["find", "paragraph", "--json"]);
    assert_ok(&o, "find the paragraph");
    app.assert_alive("find");

    let o = app.treeglass(&["get", "paragraph"]);
    assert_ok(&o, "get the paragraph");
    app.assert_alive("get");

    // The audit's own reads beyond the tree on a document that manages its descendants.
    audited_whole(&mut app);

    tui_session(&app, "document", "manages its descendants");
    app.assert_alive("a TUI session");
}
