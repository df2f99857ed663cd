use super::*;

/// What the extension answered on GNOME Shell 43.9 for gtk4-widget-factory (trimmed).
const LIST: &str = r#"{"windows":[{"id":309122214,"pid":3815,"title":"GTK Widget Factory",
  "frame":{"x":0,"y":32,"width":1405,"height":768},
  "buffer":{"x":-14,"y":20,"width":1433,"height":797},"shown":true,"active":true,
  "wayland":true},{"id":2,"pid":0,"title":"no process","frame":{},"buffer":{}}],
  "pointer":{"x":640,"y":400,"pressed":true},"screen":{"width":1280,"height":800},"overview":false}"#;

#[test]
fn windows_are_read_with_both_rectangles() {
    let l = parse_listing(&serde_json::from_str(LIST).unwrap());
    assert_eq!(l.windows.len(), 1, "a window with no process is left out");
    let w = &l.windows[0];
    assert_eq!((w.window.pid, w.window.id), (3815, 309122214));
    assert_eq!(w.window.rect.y, 32);
    assert_eq!(w.buffer.x, -14);
    assert!(w.window.focused && w.window.visible);
    assert_eq!(l.pointer, Some((640, 400)));
    assert_eq!(l.pressed, Some(true));
    let older = parse_listing(&serde_json::json!({"pointer": {"x": 1, "y": 2}}));
    assert_eq!(older.pressed, None, "an older extension does not say");
    assert_eq!(l.screen, Some((1280, 800)));
}

#[test]
fn each_shell_gets_its_build() {
    use extension::{Build, metadata, script};
    assert_eq!(Build::for_shell("43.9"), Build::Legacy);
    assert_eq!(Build::for_shell("44.2"), Build::Legacy);
    assert_eq!(Build::for_shell("45.0"), Build::Modules);
    assert_eq!(Build::for_shell("47.beta"), Build::Modules);
    let legacy = script(Build::Legacy);
    assert!(legacy.contains("imports.gi") && legacy.contains("function init()"));
    assert!(
        !legacy.contains("import "),
        "no ES module syntax in the 43-44 build"
    );
    let esm = script(Build::Modules);
    assert!(esm.contains("export default class") && !esm.contains("imports.gi"));
    for s in [&legacy, &esm] {
        for private in ["Eval", "Introspect", "Screenshot"] {
            assert!(!s.contains(private), "{private} in the extension");
        }
    }
    assert!(metadata(Build::Legacy).contains(r#"["43", "44"]"#));
    let m: Value = serde_json::from_str(&metadata(Build::Modules)).unwrap();
    assert_eq!(m["uuid"], extension::UUID);
}
