//! The clipboard under the harness's X server: a write is readable by another process while
//! treeglass keeps serving it; bad input changes nothing.
#![allow(clippy::unwrap_used)]

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

/// The X clipboard is one per display: these tests take turns.
static CLIPBOARD: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn tg() -> Command {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
}

#[test]
fn written_text_is_readable_by_another_process() {
    common::require_stack();
    let _turn = CLIPBOARD.lock().unwrap_or_else(|e| e.into_inner());
    let mut writer = tg()
        .args([
            "clipboard",
            "write",
            "--text",
            "tree glass ✓",
            "--keep-ms",
            "4000",
            "--json",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The writer prints what the clipboard holds before it keeps serving.
    let out = std::io::BufReader::new(writer.stdout.take().unwrap());
    let seen = std::io::BufRead::lines(out)
        .map_while(Result::ok)
        .take(6)
        .any(|l| l.contains("\"types\""));
    assert!(seen, "the writer did not report the clipboard's types");
    let o = tg()
        .args(["clipboard", "read", "--text", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["text"], "tree glass ✓");
    assert!(v["types"].as_array().unwrap().iter().any(|t| t == "text"));
    let _ = writer.kill();
    let _ = writer.wait();
}

#[test]
fn image_and_file_writes_offer_their_types() {
    common::require_stack();
    let _turn = CLIPBOARD.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("tg-clip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("dot.png");
    image::RgbaImage::from_pixel(3, 2, image::Rgba([255, 0, 0, 255]))
        .save(&png)
        .unwrap();
    let o = tg()
        .args([
            "clipboard",
            "write",
            "--image",
            png.to_str().unwrap(),
            "--keep-ms",
            "300",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v["types"].as_array().unwrap().iter().any(|t| t == "image"),
        "{v}"
    );
    assert_eq!(v["image"], serde_json::json!([3, 2]));

    let o = tg()
        .args([
            "clipboard",
            "write",
            "--file",
            png.to_str().unwrap(),
            "--keep-ms",
            "300",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["files"][0], png.to_str().unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_before_the_clipboard_changes() {
    common::require_stack();
    let _turn = CLIPBOARD.lock().unwrap_or_else(|e| e.into_inner());
    let mut writer = tg()
        .args([
            "clipboard",
            "write",
            "--text",
            "keep me",
            "--keep-ms",
            "4000",
        ])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    for args in [
        vec!["clipboard", "write", "--file", "relative/path"],
        vec!["clipboard", "write", "--file", "/no/such/file"],
        vec!["clipboard", "write", "--image", "/no/such.png"],
    ] {
        let o = tg().args(&args).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = tg()
        .args(["clipboard", "read", "--text", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["text"], "keep me");
    let _ = writer.kill();
    let _ = writer.wait();
}
