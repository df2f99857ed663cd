//! set_value on the real bus against the project's GTK fixture: one test per behaviour, each
//! asserting the outcome *and* what the app really holds (the fixture's `state` command, an
//! oracle that is not the accessibility tree); then gtk3-widget-factory's own widgets.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::Value;

/// Runs `treeglass set TARGET VALUE --json` against `app` and returns (exit code, result JSON).
fn set(app: &FixtureApp, target: &str, value: &str, extra: &[&str]) -> (i32, Value) {
    let app_arg = app.app_arg();
    let mut args = vec!["set", target, value, "--app", &app_arg, "--json"];
    args.extend_from_slice(extra);
    let o = treeglass(&args);
    let v = json_of(&o);
    (o.status.code().unwrap(), v)
}

fn outcome(v: &Value) -> &str {
    v["outcome"].as_str().unwrap()
}

#[test]
fn text_verified_then_already() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("text");
    let (code, v) = set(&app, "text \"Full name\"", "Grace Hopper", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(v["method"], "EditableText.SetTextContents");
    assert_eq!(v["before"], "");
    assert_eq!(v["requested"], "Grace Hopper");
    assert_eq!(v["observed"], "Grace Hopper");
    assert!(!v["samples"].as_array().unwrap().is_empty());
    assert!(
        v["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e.as_str().unwrap().starts_with("text-changed"))
    );
    assert_eq!(app.state()["full_name"], "Grace Hopper");

    let (code, v) = set(&app, "text \"Full name\"", "Grace Hopper", &[]);
    assert_eq!((code, outcome(&v)), (0, "already"), "{v:#}");
    assert_eq!(v["dispatched"], false);
}

#[test]
fn password_is_secure_and_never_echoed() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("pw");
    let secret = "s3cret-Hunter2";
    let app_arg = app.app_arg();
    for json in [true, false] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_treeglass"));
        cmd.args([
            "--backend",
            "atspi",
            "set",
            "\"Password\"",
            "-",
            "--app",
            &app_arg,
        ]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{secret}\n").as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !all.contains(secret),
            "the secret leaked into the output:\n{all}"
        );
        assert!(
            !all.contains("Hunter2"),
            "part of the secret leaked:\n{all}"
        );
        assert_eq!(o.status.code(), Some(0), "{all}");
        assert!(all.contains("secure"), "{all}");
        assert!(
            all.contains(&format!("(secret, {} chars)", secret.len())),
            "{all}"
        );
    }
    assert_eq!(app.state()["password"], secret);
}

#[test]
fn spin_button_and_slider_verified() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("num");
    let (code, v) = set(&app, "spin-button \"Quantity\"", "42", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(v["method"], "Value.CurrentValue");
    let (code, v) = set(&app, "slider \"Volume\"", "75", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    let s = app.state();
    assert_eq!(s["quantity"], 42.0);
    assert_eq!(s["volume"], 75.0);
}

#[test]
fn slider_out_of_range_is_refused_or_clamped_when_forced() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("clamp");
    let (code, v) = set(&app, "slider \"Volume\"", "1000", &[]);
    assert_eq!((code, outcome(&v)), (22, "refused"), "{v:#}");
    assert!(
        v["reason"].as_str().unwrap().contains("outside 0–100"),
        "{v:#}"
    );
    assert_eq!(v["dispatched"], false);
    assert_eq!(app.state()["volume"], 20.0);

    let (code, v) = set(&app, "slider \"Volume\"", "1000", &["--force"]);
    assert_eq!((code, outcome(&v)), (20, "mismatch"), "{v:#}");
    assert_eq!(v["mismatch"], "clamped");
    assert_eq!(v["observed"], 100.0, "numbers are numbers");
    assert_eq!(v["requested"], 1000.0);
    assert_eq!(app.state()["volume"], 100.0);
}

#[test]
fn check_box_true_false_true_is_idempotent() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("check");
    let t = "check-box \"Subscribe\"";
    let (code, v) = set(&app, t, "true", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(app.state()["subscribe"], true);
    let (code, v) = set(&app, t, "on", &[]);
    assert_eq!((code, outcome(&v)), (0, "already"), "{v:#}");
    assert_eq!(
        app.state()["subscribe"],
        true,
        "an idempotent write must not toggle"
    );
    let (code, v) = set(&app, t, "false", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(app.state()["subscribe"], false);
    let (code, v) = set(&app, t, "1", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(app.state()["subscribe"], true);
    let (code, v) = set(&app, t, "perhaps", &[]);
    assert_eq!((code, outcome(&v)), (22, "refused"), "{v:#}");
}

#[test]
fn mixed_check_box_reaches_the_asked_state() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("mixed");
    let (code, v) = set(&app, "check-box \"Mixed option\"", "false", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(v["before"], "mixed");
    let s = app.state();
    assert_eq!(s["mixed"]["inconsistent"], false);
    assert_eq!(s["mixed"]["active"], false);
}

#[test]
fn switch_and_toggle_button() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("switch");
    let (code, v) = set(&app, "\"Dark mode\"", "on", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    let (code, v) = set(&app, "toggle-button \"Bold\"", "true", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    let s = app.state();
    assert_eq!(s["dark_mode"], true);
    assert_eq!(s["bold"], true);
    let (code, v) = set(&app, "\"Dark mode\"", "off", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(app.state()["dark_mode"], false);
}

#[test]
fn combo_option_by_label_and_unknown_option_refused() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("combo");
    let (code, v) = set(&app, "combo-box \"Colour\"", "dark RED", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert_eq!(v["observed"], "Dark Red");
    assert_eq!(app.state()["colour"], "Dark Red");

    let (code, v) = set(&app, "combo-box \"Colour\"", "Purple", &[]);
    assert_eq!((code, outcome(&v)), (22, "refused"), "{v:#}");
    let reason = v["reason"].as_str().unwrap();
    for o in ["Red", "Green", "Blue", "Dark Red"] {
        assert!(reason.contains(&format!("\"{o}\"")), "{reason}");
    }
    assert_eq!(app.state()["colour"], "Dark Red");
}

#[test]
fn read_only_and_disabled_are_refused_and_untouched() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("ro");
    let (code, v) = set(&app, "text \"Account ID\"", "HACKED", &[]);
    assert_eq!((code, outcome(&v)), (22, "refused"), "{v:#}");
    assert!(v["reason"].as_str().unwrap().contains("read-only"));
    // GTK lets a disabled entry's text be changed through AT-SPI: treeglass must refuse it.
    let (code, v) = set(&app, "text \"Locked field\"", "HACKED", &[]);
    assert_eq!((code, outcome(&v)), (22, "refused"), "{v:#}");
    assert!(v["reason"].as_str().unwrap().contains("disabled"));
    let s = app.state();
    assert_eq!(s["account_id"], "ACC-0001");
    assert_eq!(s["locked"], "locked");
}

#[test]
fn upper_casing_field_is_a_transformed_mismatch() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("shout");
    let (code, v) = set(&app, "text \"Shout\"", "hello there", &[]);
    assert_eq!((code, outcome(&v)), (20, "mismatch"), "{v:#}");
    assert_eq!(v["mismatch"], "transformed");
    assert_eq!(v["observed"], "HELLO THERE");
    // The timeline shows the raw text first, then the transformation.
    let samples: Vec<&str> = v["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["value"].as_str().unwrap())
        .collect();
    assert!(samples.contains(&"\"hello there\""), "{samples:?}");
    assert_eq!(app.state()["shout"], "HELLO THERE");
}

#[test]
fn late_field_verified_when_the_timeout_allows_unconfirmed_when_not() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("slow");
    let (code, v) = set(&app, "text \"Slow field\"", "first", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    assert!(
        v["timings"]["readback_ms"].as_f64().unwrap() >= 900.0,
        "{v:#}"
    );
    assert_eq!(app.state()["slow"], "first");

    let (code, v) = set(
        &app,
        "text \"Slow field\"",
        "second",
        &["--readback-ms", "300"],
    );
    assert_eq!((code, outcome(&v)), (21, "unconfirmed"), "{v:#}");
    assert_eq!(v["dispatched"], true);
    assert!(v["advice"].as_str().unwrap().contains("observe"));
    // It did land later: exactly why unconfirmed must never be retried blindly.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let slow = app.state()["slow"].clone();
        if slow == "second" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the late write never landed: {slow}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn target_vanishing_right_after_dispatch_is_unconfirmed() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("vanish");
    let (code, v) = set(&app, "text \"Vanishing field\"", "bye", &[]);
    assert_eq!((code, outcome(&v)), (21, "unconfirmed"), "{v:#}");
    assert!(v["reason"].as_str().unwrap().contains("vanished"), "{v:#}");
    assert_eq!(app.state()["vanishing"], false);
}

#[test]
fn list_row_and_tab_selected() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("select");
    let (code, v) = set(&app, "list-item \"Banana\"", "true", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    let (code, v) = set(&app, "tab \"Advanced\"", "true", &[]);
    assert_eq!((code, outcome(&v)), (0, "verified"), "{v:#}");
    let s = app.state();
    assert_eq!(s["fruits_selected"], "Banana");
    assert_eq!(s["tab"], "Advanced");
}

#[test]
fn unresolvable_targets_are_refused_with_their_exit_codes() {
    let _turn = common::turn::shared();
    let app = FixtureApp::start("unres");
    let (code, v) = set(&app, "text \"No such field\"", "x", &["--wait-ms", "300"]);
    assert_eq!((code, outcome(&v)), (11, "refused"), "{v:#}");
    let (code, v) = set(&app, "text", "x", &["--wait-ms", "300"]);
    assert_eq!((code, outcome(&v)), (10, "refused"), "{v:#}");
    assert!(v["reason"].as_str().unwrap().contains("ambiguous"), "{v:#}");
}

/// Reads one element of gtk3-widget-factory with pyatspi, by its child-index path from the
/// window: an independent reader to check what the app holds after a write.
fn pyatspi_read(path: &[usize]) -> Value {
    let script = r#"
import json, sys, pyatspi
path = json.loads(sys.argv[1])
desk = pyatspi.Registry.getDesktop(0)
app = next(a for a in desk if a is not None and a.name == "gtk3-widget-factory")
node = app.getChildAtIndex(0)
for i in path:
    node = node.getChildAtIndex(i)
out = {"role": node.getRoleName(), "name": node.name,
       "checked": node.getState().contains(pyatspi.STATE_CHECKED)}
try:
    t = node.queryText(); out["text"] = t.getText(0, -1)
except NotImplementedError:
    pass
try:
    out["value"] = node.queryValue().currentValue
except NotImplementedError:
    pass
print(json.dumps(out))
"#;
    let o = Command::new("/usr/bin/python3")
        .args(["-c", script, &serde_json::to_string(path).unwrap()])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "pyatspi read failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn widget_factory_entry_spin_slider_check_box_and_combo() {
    let _turn = common::turn::shared();
    use treeglass::backend::atspi::AtspiBackend;
    use treeglass::backend::{Backend, Limits};
    use treeglass::model::{Role, State, Value as V};
    use treeglass::write::{Outcome, Placement, WriteOptions, set_value};

    let mut wf = start_widget_factory();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let b = AtspiBackend::connect(Duration::from_secs(5)).await.unwrap();
        let apps = b.apps().await.unwrap();
        let app = apps.iter().find(|a| a.name == "gtk3-widget-factory").unwrap();
        let snap = b.snapshot(&app.windows[0].id, &Limits::default()).await.unwrap();
        let enabled = |r: usize| snap.nodes[r].is_enabled();
        let pick = |what: &str, f: &dyn Fn(usize) -> bool| {
            (0..snap.nodes.len()).find(|&r| f(r)).unwrap_or_else(|| panic!("no {what} in gtk3-widget-factory"))
        };
        let text = |r: usize| match &snap.nodes[r].value {
            Some(V::Text { text }) => text.as_str().to_string(),
            _ => String::new(),
        };
        let entry = pick("enabled entry", &|r| {
            snap.nodes[r].role == Role::Text && enabled(r) && text(r) == "entry"
        });
        let spin = pick("spin button", &|r| snap.nodes[r].role == Role::SpinButton && enabled(r));
        let slider = pick("slider 0–100", &|r| {
            snap.nodes[r].role == Role::Slider
                && enabled(r)
                && matches!(snap.nodes[r].value, Some(V::Number { min, max, .. }) if min == Some(0.0) && max == Some(100.0))
        });
        let check = pick("check box", &|r| {
            let n = &snap.nodes[r];
            n.role == Role::CheckBox && enabled(r) && !n.states.has(State::Indeterminate) && !n.states.has(State::Checked)
        });
        let combo = pick("combo box \"Left\"", &|r| snap.nodes[r].role == Role::ComboBox && snap.nodes[r].name == "Left");
        // Child-index path from the window, for the independent pyatspi check.
        let path = |row: usize| -> Vec<usize> {
            let mut p = Vec::new();
            let mut cur = row;
            while let Some(parent) = snap.nodes[cur].parent {
                p.push(snap.nodes[parent].children.iter().position(|&c| c == cur).unwrap());
                cur = parent;
            }
            p.reverse();
            p
        };
        let opts = WriteOptions::default();
        for (row, value) in [(entry, "written by treeglass"), (spin, "7"), (slider, "33"), (check, "true"), (combo, "middle")] {
            let node = &snap.nodes[row];
            let place = Placement::of(&snap, row);
            let r = set_value(&b, &node.id, &place, value, &opts).await;
            assert_eq!(r.outcome, Outcome::Verified, "{} {:?}: {} ({:?})", node.role, value, r.reason, r.samples);
            let seen = pyatspi_read(&path(row));
            match node.role {
                Role::Text => assert_eq!(seen["text"], "written by treeglass", "{seen}"),
                Role::SpinButton => assert_eq!(seen["value"], 7.0, "{seen}"),
                Role::Slider => assert_eq!(seen["value"], 33.0, "{seen}"),
                Role::CheckBox => assert_eq!(seen["checked"], true, "{seen}"),
                Role::ComboBox => assert_eq!(seen["name"], "Middle", "{seen}"),
                _ => unreachable!(),
            }
        }
    });
    let _ = wf.kill();
    let _ = wf.wait();
}
