//! Writes that land on every toolkit: each kind of element of the matrix apps written with
//! `treeglass set` / `invoke`, every verdict checked against an independent pyatspi read (and,
//! for the project's Qt form, the form's own state), the path taken checked against the
//! planner's table, and the app checked alive and registered after each write.
//!
//! Synthesized keys and clicks go to whichever window has the focus: the tests of this binary
//! take one lock, so no two of them type at once.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::matrix::{Gtk4Targets, Kit, MatrixApp, QtForm, pyatspi_of};
use serde_json::Value;

/// Keys and clicks go to the one display: nothing else of the binary runs meanwhile.
fn input() -> std::sync::RwLockWriteGuard<'static, ()> {
    common::turn::alone()
}

/// Runs `set` / `invoke` (with `--json`) and returns (exit code, result).
fn run(o: std::process::Output) -> (i32, Value) {
    let code = o.status.code().unwrap_or(-1);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}); exit {code}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    (code, v)
}

fn verified(code: i32, v: &Value, path: &str) {
    assert_eq!(
        (code, v["outcome"].as_str().unwrap_or("?")),
        (0, "verified"),
        "{v:#}"
    );
    assert_eq!(v["path"], path, "{v:#}");
}

fn states(seen: &Value) -> Vec<&str> {
    seen["states"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s.as_str()).collect())
        .unwrap_or_default()
}

/// What the browsers do differently on the same form page: the path that unchecks a check
/// box and the one that checks a radio button (`None`: whichever the planner finds, Gecko's
/// checked box and radio offering no action for it), and how a `<select>` is chosen.
struct Browser {
    kit: Kit,
    uncheck: Option<&'static str>,
    radio: Option<&'static str>,
    select_method: &'static str,
}

/// Verified, on `path` when one is given.
fn verified_on(code: i32, v: &Value, path: Option<&str>) {
    match path {
        Some(p) => verified(code, v, p),
        None => assert_eq!(
            (code, v["outcome"].as_str().unwrap_or("?")),
            (0, "verified"),
            "{v:#}"
        ),
    }
}

/// Every kind of field of `tests/web/form.html` written in one browser, each checked by an
/// independent pyatspi read.
fn web_form_page(b: Browser) {
    let _input = input();
    let mut app = MatrixApp::start(b.kit);
    let set = |app: &MatrixApp, target: &str, value: &str| {
        run(app.treeglass(&["set", target, value, "--json"]))
    };

    // Text input and textarea: typed (web content ignores the semantic text calls).
    let (code, v) = set(&app, "text \"Full name:\"", "Ada Lovelace");
    verified(code, &v, "keyboard");
    assert_eq!(pyatspi_of(app.pid, &v)["text"], "Ada Lovelace");
    app.assert_alive("text input");
    let (code, v) = set(&app, "text \"Full name:\"", "Grace Hopper");
    verified(code, &v, "keyboard");
    assert_eq!(
        pyatspi_of(app.pid, &v)["text"],
        "Grace Hopper",
        "replaced, not appended"
    );
    // Characters no key of the keyboard map types (X11: put on a spare keycode first), and
    // capitals (a second level).
    let (code, v) = set(&app, "text \"Full name:\"", "Zoë Ångström ✓");
    verified(code, &v, "keyboard");
    assert_eq!(pyatspi_of(app.pid, &v)["text"], "Zoë Ångström ✓");
    app.assert_alive("text input, characters beyond the keymap");
    let (code, v) = set(&app, "text \"Notes:\"", "line one\nline two");
    verified(code, &v, "keyboard");
    assert_eq!(pyatspi_of(app.pid, &v)["text"], "line one\nline two");
    app.assert_alive("textarea");

    // Number and range: Value.
    let (code, v) = set(&app, "spin-button \"Quantity:\"", "7");
    verified(code, &v, "semantic");
    assert_eq!(pyatspi_of(app.pid, &v)["value"], 7.0);
    let (code, v) = set(&app, "slider \"Volume:\"", "55");
    verified(code, &v, "semantic");
    assert_eq!(pyatspi_of(app.pid, &v)["value"], 55.0);
    app.assert_alive("number and range");

    // Check box on (the check action) and off, radio button.
    for want in ["true", "false"] {
        let (code, v) = set(&app, "check-box \"Subscribe\"", want);
        verified_on(
            code,
            &v,
            if want == "true" {
                Some("semantic")
            } else {
                b.uncheck
            },
        );
        let seen = pyatspi_of(app.pid, &v);
        assert_eq!(states(&seen).contains(&"checked"), want == "true", "{seen}");
    }
    let (code, v) = set(&app, "radio-button \"Express\"", "true");
    verified_on(code, &v, b.radio);
    assert!(states(&pyatspi_of(app.pid, &v)).contains(&"checked"));
    app.assert_alive("check box and radio");

    // <select>.
    for (want, label) in [("large", "Large"), ("Small", "Small")] {
        let (code, v) = set(&app, "combo-box \"Size:\"", want);
        verified(code, &v, "semantic");
        assert!(
            v["method"].as_str().unwrap().contains(b.select_method),
            "{v:#}"
        );
        assert_eq!(
            pyatspi_of(app.pid, &v)["selected"],
            serde_json::json!([label])
        );
    }
    app.assert_alive("select");

    // A password: written, never echoed.
    let (code, v) = set(&app, "password-text \"PIN:\"", "4711");
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (0, "secure"),
        "{v:#}"
    );
    assert!(!v.to_string().contains("4711"));
    assert_eq!(
        pyatspi_of(app.pid, &v)["text"]
            .as_str()
            .unwrap()
            .chars()
            .count(),
        4
    );

    // Read-only and disabled inputs are refused, nothing sent: pyatspi reads them as the page
    // wrote them.
    for (target, value, was) in [
        ("text \"Order id:\"", "B-2", "A-1"),
        ("text \"Coupon:\"", "FREE", ""),
    ] {
        let (code, v) = set(&app, target, value);
        assert_eq!(
            (code, v["outcome"].as_str().unwrap()),
            (22, "refused"),
            "{v:#}"
        );
        assert_eq!(v["dispatched"], false, "{v:#}");
        assert_eq!(pyatspi_of(app.pid, &v)["text"], was, "{target}");
    }
    app.assert_alive("refusals");

    // Button press: the page's own reaction is credited; a button without a handler is not.
    // The reaction is read with pyatspi: the count the page keeps beside the button.
    assert_eq!(page_count(app.pid), "0");
    let (code, v) = run(app.treeglass(&["invoke", "button \"Add item\"", "--json"]));
    verified(code, &v, "semantic");
    assert_eq!(page_count(app.pid), "1", "{v:#}");
    let (code, v) = run(app.treeglass(&["invoke", "button \"Nothing\"", "--json"]));
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (21, "unconfirmed"),
        "{v:#}"
    );
    app.assert_alive("button presses");
}

/// The page's count of "Add item" presses, read with pyatspi: the text of `#count` where the
/// browser makes the span an element (Chromium), else what follows "Items: " in the text of
/// the paragraph holding it (`#items`: Firefox folds a span into its paragraph's text).
fn page_count(pid: u32) -> String {
    let ids = common::matrix::pyatspi_ids(pid);
    let (id, prefix) = if ids["count"].is_object() {
        ("count", "")
    } else {
        ("items", "Items: ")
    };
    let path = ids[id]["path"]
        .as_str()
        .unwrap_or_else(|| panic!("pyatspi finds neither #count nor #items: {ids}"));
    let v = common::matrix::pyatspi_read(pid, &[path]);
    let text = v[path]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("#{id} has no text: {v}"));
    let count = text
        .split_once(prefix)
        .map(|(_, after)| after.trim())
        .unwrap_or_else(|| panic!("#{id}'s text holds no {prefix:?}: {text:?}"));
    count.to_string()
}

#[test]
fn chromium_form_page() {
    // The option's own select action.
    web_form_page(Browser {
        kit: Kit::Chromium,
        uncheck: Some("semantic"),
        radio: Some("semantic"),
        select_method: "Action.DoAction(select)",
    });
}

#[test]
fn firefox_form_page() {
    // A closed select's option answers its select action and changes nothing; the list
    // holding the options selects it.
    web_form_page(Browser {
        kit: Kit::Firefox,
        uncheck: None,
        radio: None,
        select_method: "option list Selection.SelectChild",
    });
}

fn qt_form(qt: u8) {
    let _input = input();
    let mut app = QtForm::start(qt);
    let set = |app: &QtForm, target: &str, value: &str| {
        run(app.treeglass(&["set", target, value, "--json"]))
    };

    let (code, v) = set(&app, "text \"Full name\"", "Ada Lovelace");
    verified(code, &v, "semantic");
    assert_eq!(app.state()["full_name"], "Ada Lovelace");
    assert_eq!(pyatspi_of(app.pid, &v)["text"], "Ada Lovelace");
    app.assert_alive("line edit");

    let (code, v) = set(&app, "password-text \"Password\"", "s3cret");
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (0, "secure"),
        "{v:#}"
    );
    assert!(!v.to_string().contains("s3cret"));
    assert_eq!(app.state()["password"], "s3cret");

    let (code, v) = set(&app, "spin-button \"Quantity\"", "42");
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(app.state()["quantity"], 42, "{v:#}");
    assert_eq!(pyatspi_of(app.pid, &v)["value"], 42.0);
    let (code, v) = set(&app, "slider \"Volume\"", "77");
    verified(code, &v, "semantic");
    assert_eq!(app.state()["volume"], 77);
    app.assert_alive("spin box and slider");

    for want in [true, false] {
        let (code, v) = set(&app, "check-box \"Subscribe\"", &want.to_string());
        verified(code, &v, "semantic");
        assert_eq!(app.state()["subscribe"], want);
    }
    // The tri-state box, from partially checked to each state and back.
    assert_eq!(app.state()["tristate"], "partial");
    for (want, shown) in [("true", "on"), ("false", "off"), ("true", "on")] {
        let (code, v) = set(&app, "check-box \"Tri-state\"", want);
        verified(code, &v, "semantic");
        assert_eq!(app.state()["tristate"], shown, "{v:#}");
    }
    app.assert_alive("check boxes");

    // The combo box: keys on the focused combo, both directions. Qt names a combo after its
    // current text, whatever its accessible name says.
    for (now, label) in [("Red", "Dark Red"), ("Dark Red", "Green")] {
        let (code, v) = set(&app, &format!("combo-box \"{now}\""), label);
        verified(code, &v, "keyboard");
        assert_eq!(app.state()["colour"], label, "{v:#}");
    }
    app.assert_alive("combo box");

    let (code, v) = run(app.treeglass(&["invoke", "button \"Press me\"", "--json"]));
    verified(code, &v, "semantic");
    assert_eq!(app.state()["presses"], 1);
    app.assert_alive("button press");
}

#[test]
fn qt5_form() {
    qt_form(5);
}

#[test]
fn qt6_form() {
    qt_form(6);
}

fn checked(seen: &Value) -> bool {
    states(seen).contains(&"checked")
}

#[test]
fn gtk4_widget_factory() {
    let _input = input();
    let mut app = MatrixApp::start(Kit::Gtk4);
    let set = |app: &MatrixApp, target: &str, value: &str| {
        run(app.treeglass(&["set", target, value, "--json"]))
    };

    let t = Gtk4Targets::learn(&app);
    eprintln!("gtk4-widget-factory's targets: {t:?}");

    // Text and spin: the semantic calls GTK 4 honours.
    let (code, v) = set(&app, &t.entry, "hello gtk4");
    verified(code, &v, "semantic");
    assert_eq!(pyatspi_of(app.pid, &v)["text"], "hello gtk4");
    let (code, v) = set(&app, &t.spin, "42");
    verified(code, &v, "semantic");
    assert_eq!(pyatspi_of(app.pid, &v)["value"], 42.0);
    let (code, v) = set(&app, &t.password, "hunter22");
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (0, "secure"),
        "{v:#}"
    );
    assert!(!v.to_string().contains("hunter22"));
    // It landed: GTK 4 hands a password entry's text to any AT-SPI client as it is (which is
    // why treeglass never reads it back nor prints it), so pyatspi reads the secret.
    assert_eq!(pyatspi_of(app.pid, &v)["text"], "hunter22");
    app.assert_alive("text, spin, password");

    // Check boxes expose no action on GTK 4: a click at the centre, on and off.
    for (target, want) in [
        (&t.off_box, "true"),
        (&t.off_box, "false"),
        (&t.on_box, "false"),
    ] {
        let (code, v) = set(&app, target, want);
        verified(code, &v, "pointer");
        assert_eq!(
            checked(&pyatspi_of(app.pid, &v)),
            want == "true",
            "{target}"
        );
    }
    // The mixed one: GTK 4 keeps a check button inconsistent until the app clears it (the
    // widget factory never does), so a click changes nothing that can be read: the honest
    // verdict is unconfirmed, and no second click follows one that showed no change.
    let (code, v) = set(&app, &t.mixed_box, "true");
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (21, "unconfirmed"),
        "{v:#}"
    );
    assert_eq!(v["acks"].as_array().unwrap().len(), 2, "one click: {v:#}");
    assert!(states(&pyatspi_of(app.pid, &v)).contains(&"indeterminate"));
    app.assert_alive("check boxes");

    // The switch has a toggle action.
    for want in ["true", "false"] {
        let (code, v) = set(&app, &t.switch, want);
        verified(code, &v, "semantic");
        assert_eq!(checked(&pyatspi_of(app.pid, &v)), want == "true");
    }
    app.assert_alive("switch");

    // Combo boxes expose neither their options nor their selection: refused, with why.
    let (code, v) = set(&app, &t.combo, "anything");
    assert_eq!(
        (code, v["outcome"].as_str().unwrap()),
        (22, "refused"),
        "{v:#}"
    );
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("GTK 4 combo boxes expose neither"),
        "{v:#}"
    );
    app.assert_alive("combo refusal");
}

/// Two of gtk4-widget-factory's identical check boxes are recorded by position, exported, and
/// replayed on a fresh instance: exactly those two change (checked with pyatspi).
#[test]
fn gtk4_identical_check_boxes_record_and_replay() {
    let _input = input();
    let dir = std::env::temp_dir().join(format!("tg-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rec = dir.join("rec.json");
    let flow = dir.join("flow.json");
    let _ = std::fs::remove_file(&rec);
    let _ = std::fs::remove_file(&flow);
    // Every "checkbutton" check box's checked state in tree order, read with pyatspi (the
    // elements found by the ids treeglass's tree gives them).
    let boxes = |app: &MatrixApp| -> Vec<bool> {
        let o = app.treeglass(&["tree", "--json"]);
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let mut ids = Vec::new();
        let mut stack = vec![&v["root"]];
        while let Some(n) = stack.pop() {
            if n["role"] == "check-box" && n["name"] == "checkbutton" {
                ids.push(n["id"].as_str().unwrap().to_string());
            }
            if let Some(k) = n["children"].as_array() {
                stack.extend(k.iter().rev());
            }
        }
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let seen = common::matrix::pyatspi_read(app.pid, &refs);
        refs.iter()
            .map(|id| checked(&seen[&id[id.find('/').unwrap()..]]))
            .collect()
    };

    let mut first = MatrixApp::start(Kit::Gtk4);
    let t = Gtk4Targets::learn(&first);
    let before = boxes(&first);
    let rec_s = rec.to_str().unwrap();
    for (target, value) in [(&t.off_box, "true"), (&t.on_box, "false")] {
        let (code, v) = run(first.treeglass(&["set", target, value, "--json", "--record", rec_s]));
        assert_eq!(code, 0, "{v:#}");
    }
    let changed = boxes(&first);
    first.assert_alive("recording");
    drop(first);
    let o = common::treeglass(&[
        "workflow",
        "export",
        rec_s,
        "-o",
        flow.to_str().unwrap(),
        "--name",
        "two identical check boxes",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let mut fresh = MatrixApp::start(Kit::Gtk4);
    assert_eq!(boxes(&fresh), before, "a fresh app starts as the first did");
    let o = fresh.treeglass(&["workflow", "run", flow.to_str().unwrap()]);
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let after = boxes(&fresh);
    assert_eq!(
        after, changed,
        "the replay touched exactly the two recorded check boxes"
    );
    let differ: Vec<usize> = (0..after.len())
        .filter(|&i| after[i] != before[i])
        .collect();
    assert_eq!(differ.len(), 2, "{before:?} → {after:?}");
    fresh.assert_alive("replay");
    let _ = std::fs::remove_dir_all(&dir);
}
