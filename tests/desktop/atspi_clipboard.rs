//! The clipboard under the harness's X server: a write is readable by another process (xclip,
//! which shares no code with treeglass) while treeglass keeps serving it; what another process
//! put there is read; bad input changes nothing.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use common::xclip;

use std::process::{Command, Stdio};
use std::time::Duration;

fn tg() -> Command {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
}

/// `treeglass clipboard read --text --json`, which must succeed.
fn read_text() -> serde_json::Value {
    let o = tg()
        .args(["clipboard", "read", "--text", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn written_text_is_readable_by_another_process() {
    common::require_stack();
    // The X clipboard is one per display: nothing else runs meanwhile.
    let _turn = common::turn::alone();
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
    xclip::wait_text("tree glass ✓", "treeglass clipboard write --text");
    let v = read_text();
    assert_eq!(v["text"], "tree glass ✓");
    assert!(v["types"].as_array().unwrap().iter().any(|t| t == "text"));
    let _ = writer.kill();
    let _ = writer.wait();
}

#[test]
fn text_another_process_wrote_is_read() {
    common::require_stack();
    // The X clipboard is one per display: nothing else runs meanwhile.
    let _turn = common::turn::alone();
    xclip::write("put there by xclip ✓");
    let v = read_text();
    assert_eq!(v["text"], "put there by xclip ✓", "{v}");
    assert!(
        v["types"].as_array().unwrap().iter().any(|t| t == "text"),
        "{v}"
    );
}

#[test]
fn image_and_file_writes_offer_their_types() {
    common::require_stack();
    // The X clipboard is one per display: nothing else runs meanwhile.
    let _turn = common::turn::alone();
    let dir = std::env::temp_dir().join(format!("tg-clip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("dot.png");
    image::RgbaImage::from_pixel(3, 2, image::Rgba([255, 0, 0, 255]))
        .save(&png)
        .unwrap();
    let (v, offered) = write_and_look(&["--image", png.to_str().unwrap()], "image/png");
    assert!(
        v["types"].as_array().unwrap().iter().any(|t| t == "image"),
        "{v}"
    );
    assert_eq!(v["image"], serde_json::json!([3, 2]));
    let img = image::load_from_memory(&offered).expect("xclip read a PNG");
    assert_eq!((img.width(), img.height()), (3, 2));
    assert_eq!(img.to_rgba8().get_pixel(0, 0).0, [255, 0, 0, 255]);

    let (v, offered) = write_and_look(&["--file", png.to_str().unwrap()], "text/uri-list");
    assert_eq!(v["files"][0], png.to_str().unwrap());
    let uris = String::from_utf8_lossy(&offered).into_owned();
    assert!(
        uris.lines()
            .any(|l| l.trim_end() == format!("file://{}", png.display())),
        "the file's URI is offered: {uris:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `treeglass clipboard write ARGS --json` and, while it serves the clipboard, reads
/// `target` with xclip; returns treeglass's answer and what xclip read.
fn write_and_look(args: &[&str], target: &str) -> (serde_json::Value, Vec<u8>) {
    let mut writer = tg()
        .args(["clipboard", "write"])
        .args(args)
        .args(["--keep-ms", "4000", "--json"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // The writer prints its answer (one JSON document) before it keeps serving.
    let mut out = std::io::BufReader::new(writer.stdout.take().unwrap());
    let mut doc = String::new();
    let v = loop {
        let mut line = String::new();
        let n = std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        assert!(n > 0, "the writer ended before its answer: {doc}");
        doc.push_str(&line);
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&doc) {
            break v;
        }
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let offered = loop {
        match xclip::read(target) {
            Ok(bytes) if !bytes.is_empty() => break bytes,
            other => assert!(
                std::time::Instant::now() < deadline,
                "xclip never read {target}: {other:?}; offered: {:?}",
                xclip::targets()
            ),
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = writer.kill();
    let _ = writer.wait();
    (v, offered)
}

#[test]
fn bad_input_is_refused_before_the_clipboard_changes() {
    common::require_stack();
    // The X clipboard is one per display: nothing else runs meanwhile.
    let _turn = common::turn::alone();
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
    xclip::wait_text("keep me", "treeglass clipboard write --text");
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
    let v = read_text();
    assert_eq!(v["text"], "keep me");
    assert_eq!(xclip::text().as_deref(), Ok("keep me"));
    let _ = writer.kill();
    let _ = writer.wait();
}
