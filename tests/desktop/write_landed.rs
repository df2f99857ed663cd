//! Where a write landed, on the real bus with the project's GTK fixture app: a field that hands
//! its text to another one (the change set names the field that got it), one whose text moves
//! into a dialog it opens (the change set names the dialog and the focus in it), a button whose
//! press adds an element (listed when asked), and a button that does nothing (an empty change
//! set) — each checked against the app's own state.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::{FixtureApp, json_of, stdout, treeglass};
use serde_json::Value;

fn changes(v: &Value) -> &Vec<Value> {
    v["changes"]["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("no change set: {v:#}"))
}

#[test]
fn the_change_set_names_where_the_input_went() {
    let _turn = common::turn::alone();
    let mut app = FixtureApp::start("landed");
    let arg = app.app_arg();

    // "Relay" passes its text on to "Proxy host" and empties itself: not verified, so the
    // change set is there without asking, and names the field that got the text.
    let o = treeglass(&[
        "set",
        "--app",
        &arg,
        "text \"Relay\"",
        "to the proxy",
        "--json",
    ]);
    let v = json_of(&o);
    assert_ne!(v["outcome"], "verified", "{v:#}");
    let got = changes(&v)
        .iter()
        .find(|c| c["name"] == "Proxy host")
        .unwrap_or_else(|| panic!("the field that got the text is not named: {v:#}"));
    assert!(
        got["fields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["field"] == "value" && f["after"].to_string().contains("to the proxy")),
        "{got:#}"
    );
    assert!(
        v["changes"]["likeliest"]
            .as_str()
            .unwrap()
            .contains("text \"Proxy host\""),
        "{v:#}"
    );
    // The advice points there too.
    assert!(
        v["advice"]
            .as_str()
            .unwrap()
            .ends_with("likeliest: the text went into text \"Proxy host\""),
        "{v:#}"
    );
    // The written field's own change is the verdict's, not listed again.
    assert!(changes(&v).iter().all(|c| c["name"] != "Relay"), "{v:#}");
    let st = app.state();
    assert_eq!(st["proxy_host"], "to the proxy", "{st}");
    assert_eq!(st["relay"], "", "{st}");

    // The same as text: a block under the verdict.
    app.cmd("reset");
    let o = treeglass(&["set", "--app", &arg, "text \"Relay\"", "again"]);
    let out = stdout(&o);
    assert!(out.contains("changed elsewhere:"), "{out}");
    assert!(out.contains("likeliest: the text went into"), "{out}");

    // "Coupon" empties itself and opens the dialog "Confirm coupon", whose focused entry holds
    // the text: the change set names the window, the focus in it and the field with the text.
    app.cmd("reset");
    let o = treeglass(&["set", "--app", &arg, "text \"Coupon\"", "SAVE10", "--json"]);
    let v = json_of(&o);
    assert_ne!(v["outcome"], "verified", "{v:#}");
    let l = &v["changes"];
    assert_eq!(
        l["windows_opened"],
        serde_json::json!(["Confirm coupon"]),
        "{v:#}"
    );
    let focus = l["focus"]
        .as_str()
        .unwrap_or_else(|| panic!("no focus: {v:#}"));
    assert!(
        focus.starts_with("dialog \"Confirm coupon\"") && focus.ends_with("text \"Coupon code\""),
        "{focus}"
    );
    let why = l["likeliest"].as_str().unwrap();
    assert!(
        why.contains("text \"Coupon code\"") && why.contains("the focus is there"),
        "{why}"
    );
    // The dialog is read the first time it opens: its elements, each with its target, and
    // the focus among them.
    let opened = &l["opened"][0];
    assert_eq!(opened["title"], "Confirm coupon", "{v:#}");
    let elements = opened["elements"].as_array().unwrap();
    let named = |t: &str| elements.iter().find(|e| e["target"] == t);
    let apply = named("button \"Apply\"").unwrap_or_else(|| panic!("no Apply: {opened:#}"));
    assert!(apply.get("focused").is_none(), "{opened:#}");
    let code = named("text \"Coupon code\"").unwrap_or_else(|| panic!("no field: {opened:#}"));
    assert_eq!(code["focused"], true, "{opened:#}");
    let st = app.state();
    assert_eq!(st["coupon_dialog"], "SAVE10", "{st}");
    assert_eq!(st["coupon"], "", "{st}");
    let o = treeglass(&["set", "--app", &arg, "text \"Coupon\"", "SAVE20"]);
    let out = stdout(&o);
    assert!(out.contains("window opened  \"Confirm coupon\""), "{out}");
    assert!(
        out.contains("                 button \"Apply\"\n"),
        "the dialog's elements under it: {out}"
    );
    assert!(out.contains("focus now      "), "{out}");

    // A verified press lists its effect only when asked: the button it added.
    app.cmd("reset");
    let o = treeglass(&["invoke", "--app", &arg, "button \"Add item\"", "--json"]);
    let v = json_of(&o);
    assert_eq!(v["outcome"], "verified", "{v:#}");
    assert!(v.get("changes").is_none(), "{v:#}");
    let o = treeglass(&[
        "invoke",
        "--app",
        &arg,
        "button \"Add item\"",
        "--json",
        "--changes",
    ]);
    let v = json_of(&o);
    assert!(
        changes(&v)
            .iter()
            .any(|c| c["kind"] == "added" && c["name"] == "Item 2"),
        "{v:#}"
    );
    assert_eq!(app.state()["items"], 2);
    // Each element still there carries the target a script would name it by.
    let added = changes(&v).iter().find(|c| c["name"] == "Item 2").unwrap();
    assert_eq!(added["target"], "button \"Item 2\"", "{added:#}");

    // A button that does nothing: unconfirmed, and nothing changed in the window.
    app.cmd("reset");
    let o = treeglass(&["invoke", "--app", &arg, "button \"Nothing\"", "--json"]);
    let v = json_of(&o);
    assert_eq!(v["outcome"], "unconfirmed", "{v:#}");
    assert!(changes(&v).is_empty(), "{v:#}");
    assert!(
        v["changes"]["windows_opened"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let o = treeglass(&["invoke", "--app", &arg, "button \"Nothing\""]);
    assert!(
        stdout(&o).contains("nothing in the window"),
        "{}",
        stdout(&o)
    );
    let st = app.state();
    assert_eq!(st["items"], 0, "{st}");
    assert_eq!(st["proxy_host"], "", "{st}");
    common::assert_answers(
        app.pid,
        "the fixture app",
        "the writes and their change sets",
    );
}
