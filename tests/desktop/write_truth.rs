//! Verdicts that cannot be fooled, on the real bus with the project's GTK fixture: a field that
//! puts its old value back 300 ms after a write (a late validator), an app that never stops
//! emitting events (a clock ticking every 100 ms) around `invoke` and `set`. Every verdict is
//! checked against the app's own state (its stdin protocol), not the accessibility tree.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use serde_json::Value;

fn run(app: &FixtureApp, args: &[&str]) -> (i32, Value) {
    let mut all = args.to_vec();
    let arg = app.app_arg();
    all.extend_from_slice(&["--app", &arg, "--json"]);
    let o = treeglass(&all);
    (o.status.code().unwrap_or(-1), json_of(&o))
}

#[test]
fn a_late_validator_turns_verified_into_reverted() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("late");
    let (code, v) = run(&app, &["set", "text \"Validated\"", "hello"]);
    assert_eq!(code, 20, "{v:#}");
    assert_eq!(v["outcome"], "mismatch", "{v:#}");
    assert_eq!(v["mismatch"], "reverted", "{v:#}");
    let at = v["changed_after"]["at_ms"].as_f64().unwrap();
    assert!(at > 0.0, "{v:#}");
    assert_eq!(v["changed_after"]["value"], "\"valid\"", "{v:#}");
    assert_eq!(v["observed"], "valid", "{v:#}");
    assert!(
        v["reason"].as_str().unwrap().contains("after the write"),
        "{v:#}"
    );
    // The samples show it landing first, then going back.
    let samples: Vec<&str> = v["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["value"].as_str().unwrap())
        .collect();
    assert!(samples.contains(&"\"hello\""), "{samples:?}");
    assert!(
        samples
            .last()
            .unwrap()
            .contains("changed after the verdict"),
        "{samples:?}"
    );
    // What the app really holds.
    assert_eq!(app.state()["validated"], "valid");

    // Without the watch the same write reads back as asked: the window is what catches it.
    let (code, v) = run(
        &app,
        &["set", "text \"Validated\"", "again", "--watch-ms", "0"],
    );
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (0, "verified"),
        "{v:#}"
    );
}

#[test]
fn invoke_on_a_busy_app_credits_only_its_own_reactions() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("busy");
    assert_eq!(app.cmd("tick on")["ok"], true);
    // A button without a handler: the clock keeps ticking, and that is not a reaction.
    let (code, v) = run(&app, &["invoke", "button \"Nothing\""]);
    assert_eq!(code, 21, "{v:#}");
    assert_eq!(v["outcome"], "unconfirmed", "{v:#}");
    assert!(
        v["reason"].as_str().unwrap().contains("not credited"),
        "the ticks were seen and set aside: {v:#}"
    );
    assert_eq!(app.state()["presses"], 0);

    // A button whose handler changes a label elsewhere: credited.
    let (code, v) = run(&app, &["invoke", "button \"Press me\""]);
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (0, "verified"),
        "{v:#}"
    );
    assert_eq!(app.state()["presses"], 1);

    // Writes are judged by read-back, never by events: the clock does not matter.
    let (code, v) = run(&app, &["set", "text \"Full name\"", "Busy Bee"]);
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (0, "verified"),
        "{v:#}"
    );
    assert_eq!(app.state()["full_name"], "Busy Bee");
    assert_eq!(app.cmd("tick off")["ok"], true);
}
