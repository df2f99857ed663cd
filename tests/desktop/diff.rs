//! `treeglass diff`: two `tree --json` files of the demo app (identical, a renamed button, an
//! added row, a moved element, a file that is not a tree), and on the real bus the GTK fixture
//! app read live against a file written before it changed (checked against the app's own
//! state).
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{FixtureApp, json_of, stdout};
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run treeglass")
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "tg-diff-{}-{}",
        std::process::id(),
        common::next_id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_string(v).unwrap()).unwrap();
}

/// The demo app's tree as `tree --json` prints it.
fn demo_tree() -> Value {
    let o = run(&["--backend", "fixture", "tree", "--json"]);
    common::assert_ok(&o, "tree --json on the demo");
    json_of(&o)
}

/// The first node (pre-order) for which `pred` holds, mutably.
fn node_mut<'a>(n: &'a mut Value, pred: &dyn Fn(&Value) -> bool) -> Option<&'a mut Value> {
    if pred(n) {
        return Some(n);
    }
    for c in n["children"].as_array_mut()? {
        if let Some(hit) = node_mut(c, pred) {
            return Some(hit);
        }
    }
    None
}

fn named<'a>(role: &'a str, name: &'a str) -> impl Fn(&Value) -> bool + 'a {
    move |n: &Value| n["role"] == role && n["name"] == name
}

fn diff_json(a: &Path, b: &Path) -> (i32, Value) {
    let o = run(&["diff", a.to_str().unwrap(), b.to_str().unwrap(), "--json"]);
    (o.status.code().unwrap(), json_of(&o))
}

#[test]
fn files_identical_renamed_added_moved_and_bad() {
    let _turn = common::turn::shared();
    let d = dir();
    let (a, b) = (d.join("a.json"), d.join("b.json"));
    let base = demo_tree();
    write(&a, &base);

    // Two reads of the same app: no differences, exit 0.
    write(&b, &demo_tree());
    let o = run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).trim(), "no differences");

    // A button renamed, with the ids of another run: one change, name before → after.
    let mut renamed = base.clone();
    let save = node_mut(&mut renamed["root"], &|n| n["role"] == "button").unwrap();
    let old = save["name"].as_str().unwrap().to_string();
    save["name"] = format!("{old} now").into();
    strip_ids(&mut renamed["root"]);
    write(&b, &renamed);
    let (code, v) = diff_json(&a, &b);
    assert_eq!(code, 9, "{v:#}");
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{v:#}");
    assert_eq!(changes[0]["kind"], "changed");
    assert_eq!(changes[0]["fields"][0]["field"], "name");
    assert_eq!(changes[0]["fields"][0]["before"], old.as_str());
    assert_eq!(changes[0]["fields"][0]["after"], format!("{old} now"));

    // A row added to a list: one added element, under that list.
    let mut added = base.clone();
    let list = node_mut(&mut added["root"], &|n| {
        n["role"] == "list" && n["children"].as_array().is_some_and(|c| !c.is_empty())
    })
    .unwrap();
    let mut row = list["children"][0].clone();
    row["name"] = "A new row".into();
    row["id"] = "new-row".into();
    list["children"].as_array_mut().unwrap().push(row);
    write(&b, &added);
    let (code, v) = diff_json(&a, &b);
    assert_eq!(code, 9);
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{v:#}");
    assert_eq!(changes[0]["kind"], "added");
    assert_eq!(changes[0]["name"], "A new row");
    assert_eq!(v["summary"], "1 difference: 1 added");

    // An element moved to another parent: moved, with where it was.
    let mut moved = base.clone();
    let taken = {
        let parent = node_mut(&mut moved["root"], &|n| {
            n["children"]
                .as_array()
                .is_some_and(|c| c.iter().any(|k| k["role"] == "button" && k["name"] == old))
        })
        .unwrap();
        let kids = parent["children"].as_array_mut().unwrap();
        let i = kids.iter().position(named("button", &old)).unwrap();
        kids.remove(i)
    };
    moved["root"]["children"]
        .as_array_mut()
        .unwrap()
        .push(taken);
    write(&b, &moved);
    let (code, v) = diff_json(&a, &b);
    assert_eq!(code, 9);
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{v:#}");
    assert_eq!(changes[0]["kind"], "moved");
    assert!(
        changes[0]["from"].as_str().unwrap().len() > changes[0]["path"].as_str().unwrap().len(),
        "{v:#}"
    );

    // Not a tree: a usage error naming the file, nothing else printed.
    std::fs::write(&b, "{\"apps\": []}").unwrap();
    let o = run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("b.json") && err.contains("no \"root\""),
        "{err}"
    );
    // No second file and no scope: told what to give.
    let o = run(&["diff", a.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

fn strip_ids(n: &mut Value) {
    n["id"] = "".into();
    if let Some(kids) = n["children"].as_array_mut() {
        for k in kids {
            strip_ids(k);
        }
    }
}

#[test]
fn a_live_window_against_a_file_written_before_it_changed() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("diff");
    let d = dir();
    let before = d.join("before.json");
    let o = common::treeglass(&["tree", "--json", "--app", &app.app_arg()]);
    common::assert_ok(&o, "tree --json");
    std::fs::write(&before, &o.stdout).unwrap();

    // Unchanged: exit 0.
    let o = common::treeglass(&["diff", before.to_str().unwrap(), "--app", &app.app_arg()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );

    // The app renames a button and adds one (its own protocol, not the accessibility tree).
    assert_eq!(app.cmd("rename press Press me now")["ok"], true);
    assert_eq!(app.cmd("add")["ok"], true);
    app.wait_settled();
    let o = common::treeglass(&[
        "diff",
        before.to_str().unwrap(),
        "--app",
        &app.app_arg(),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(9), "{}", stdout(&o));
    let v = json_of(&o);
    let changes = v["changes"].as_array().unwrap();
    let renamed = changes
        .iter()
        .find(|c| c["kind"] == "changed" && c["name"] == "Press me now")
        .unwrap_or_else(|| panic!("the rename is not listed: {v:#}"));
    assert!(
        renamed["fields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["field"] == "name" && f["before"] == "Press me"),
        "{renamed:#}"
    );
    assert!(
        changes
            .iter()
            .any(|c| c["kind"] == "added" && c["name"] == "Item 1"),
        "the added button is not listed: {v:#}"
    );
    // Nothing else is said to have been added or removed.
    assert!(
        changes
            .iter()
            .all(|c| c["kind"] != "removed" && (c["kind"] != "added" || c["name"] == "Item 1")),
        "{v:#}"
    );
    // The app says the same: one item, the new name.
    let st = app.state();
    assert_eq!(st["items"], 1, "{st}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A baseline kept from one run of the app equals the next run's tree with the default
/// ignores (the app started afresh: other ids, other focus), catches a renamed button, and
/// `--update` accepts the change.
#[test]
fn a_baseline_from_one_run_holds_on_the_next_and_catches_a_rename() {
    let _turn = common::turn::shared();
    let d = dir();
    let base = d.join("baseline.json");
    let base_arg = base.to_str().unwrap();
    // The harness names each run's window after the run; an app keeps its title from one run
    // to the next, so both runs are given the same one (the app's own protocol).
    let titled = |app: &mut FixtureApp| {
        assert_eq!(app.cmd("set title treeglass fixture")["ok"], true);
        app.wait_settled();
    };
    {
        let mut first = FixtureApp::start("baseline");
        titled(&mut first);
        let o = common::treeglass(&["tree", "--baseline", "--app", &first.app_arg()]);
        common::assert_ok(&o, "tree --baseline");
        std::fs::write(&base, &o.stdout).unwrap();
        common::assert_answers(first.pid, "the fixture app", "tree --baseline");
    }
    let text = std::fs::read_to_string(&base).unwrap();
    assert!(text.contains("\"baseline\": 1"), "{text}");
    assert!(!text.contains(":1."), "a baseline holds no bus ids");

    let mut app = FixtureApp::start("baseline");
    titled(&mut app);
    let o = common::treeglass(&["diff", base_arg, "--app", &app.app_arg()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "a second run equals the baseline: {}{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );

    assert_eq!(app.cmd("rename press Press me now")["ok"], true);
    app.wait_settled();
    let o = common::treeglass(&["diff", base_arg, "--app", &app.app_arg(), "--json"]);
    assert_eq!(o.status.code(), Some(9), "{}", stdout(&o));
    let v = json_of(&o);
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "only the rename: {v:#}");
    assert_eq!(changes[0]["name"], "Press me now", "{v:#}");

    // Accepted: the file now holds the new name, and the next comparison is equal.
    let o = common::treeglass(&["diff", base_arg, "--app", &app.app_arg(), "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("baseline updated"), "{}", stdout(&o));
    assert!(
        std::fs::read_to_string(&base)
            .unwrap()
            .contains("Press me now")
    );
    let o = common::treeglass(&["diff", base_arg, "--app", &app.app_arg()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // A field the comparison does not know is refused, not ignored.
    let o = common::treeglass(&[
        "diff",
        base_arg,
        "--app",
        &app.app_arg(),
        "--ignore",
        "bogus",
    ]);
    assert_eq!(o.status.code(), Some(2), "a bad --ignore is a usage error");
    assert_eq!(app.state()["presses"], 0);
    common::assert_answers(app.pid, "the fixture app", "the baseline diffs");
    let _ = std::fs::remove_dir_all(&d);
}
