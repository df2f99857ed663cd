//! What the Wayland test binaries (`tests/wayland.rs` on sway, `tests/kwin.rs` on KWin,
//! `tests/gnome.rs` on GNOME Shell) share:
//! a write's result and its checks, the GTK 3 fixture's semantic writes, and pyatspi's reading
//! of an element's extents.

use std::process::{Command, Output};

use serde_json::Value;

/// `set --json` / `invoke --json`: (exit code, result).
pub fn result(o: Output) -> (i32, Value) {
    let code = o.status.code().unwrap_or(-1);
    (code, super::json_of(&o))
}

/// Fails unless the write was verified, on `path`.
pub fn verified(code: i32, v: &Value, path: &str) {
    assert_eq!(
        (code, v["outcome"].as_str().unwrap_or("?")),
        (0, "verified"),
        "{v:#}"
    );
    assert_eq!(v["path"], path, "{v:#}");
}

/// Whether an element pyatspi read is checked.
pub fn checked(seen: &Value) -> bool {
    seen["states"]
        .as_array()
        .is_some_and(|a| a.iter().any(|s| s == "checked"))
}

/// pyatspi's extents of the element with this treeglass id, relative to its window.
pub fn pyatspi_extents(pid: u32, id: &str) -> Vec<i64> {
    let path = &id[id.find('/').expect("a treeglass id has a path")..];
    let script = format!(
        r#"
import pyatspi, json, sys
for app in pyatspi.Registry.getDesktop(0):
    if app is None or app.get_process_id() != {pid}: continue
    stack = [app]
    while stack:
        n = stack.pop()
        if n.path == "{path}":
            e = n.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
            print(json.dumps([e.x, e.y, e.width, e.height])); sys.exit(0)
        stack.extend(c for c in n if c is not None)
sys.exit(1)
"#
    );
    let o = Command::new("/usr/bin/python3")
        .args(["-c", &script])
        .output()
        .expect("run pyatspi");
    assert!(o.status.success(), "pyatspi found no {id}");
    serde_json::from_slice(&o.stdout).expect("pyatspi printed JSON")
}

/// The GTK 3 fixture's semantic writes, which need no input path: its name field and its check
/// box both ways, each verified and checked against the app's own state.
pub fn fixture_semantic_writes(app: &mut super::FixtureApp) {
    let arg = app.app_arg();
    let (code, v) = result(super::treeglass(&[
        "set",
        "text \"Full name\"",
        "Grace Hopper",
        "--app",
        &arg,
        "--json",
    ]));
    verified(code, &v, "semantic");
    assert_eq!(app.state()["full_name"], "Grace Hopper");
    for want in [true, false] {
        let (code, v) = result(super::treeglass(&[
            "set",
            "check-box \"Subscribe\"",
            &want.to_string(),
            "--app",
            &arg,
            "--json",
        ]));
        verified(code, &v, "semantic");
        assert_eq!(app.state()["subscribe"], want);
    }
}

/// The Qt 6 form's combo box chosen from by keyboard (it has no semantic way: ShowMenu, then
/// keys on the open menu), there and back, each verified, named by an independent pyatspi
/// read and held by the form itself; `via` is the keyboard path the result must name. The form
/// is alive, registered and answering after.
pub fn qt6_combo_by_keyboard(app: &mut super::matrix::QtForm, via: &str) {
    let was = app.state()["colour"]
        .as_str()
        .expect("the form names its colour")
        .to_string();
    let want = if was == "Green" { "Dark Red" } else { "Green" };
    for (now, label) in [(was.as_str(), want), (want, was.as_str())] {
        let (code, v) =
            result(app.treeglass(&["set", &format!("combo-box \"{now}\""), label, "--json"]));
        verified(code, &v, "keyboard");
        assert!(v["acks"].to_string().contains(via), "{v:#}");
        assert_eq!(
            super::matrix::pyatspi_of(app.pid, &v)["name"],
            label,
            "{v:#}"
        );
        assert_eq!(app.state()["colour"], label, "{v:#}");
        app.assert_alive("a Qt 6 keyboard write");
    }
    super::assert_answers(app.pid, "the Qt 6 form", "keyboard writes");
}
