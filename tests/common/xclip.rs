//! The X clipboard read and written by xclip, a process that shares no code with treeglass
//! (its clipboard library included): the oracle of the clipboard tests.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the clipboard's owner hands over for `target` (`UTF8_STRING`, `TARGETS`,
/// `image/png`, `text/uri-list`), or why xclip could not get it.
pub fn read(target: &str) -> Result<Vec<u8>, String> {
    let o = Command::new("xclip")
        .args(["-o", "-selection", "clipboard", "-t", target])
        .output()
        .expect("xclip (Debian package xclip; scripts/install-deps installs it)");
    if o.status.success() {
        Ok(o.stdout)
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// The clipboard's text as xclip reads it.
pub fn text() -> Result<String, String> {
    read("UTF8_STRING").map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The targets the clipboard's owner offers, one per line.
pub fn targets() -> Vec<String> {
    read("TARGETS")
        .map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until xclip reads `want` as the clipboard's text; panics with what it read last.
pub fn wait_text(want: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = text();
        if seen.as_deref() == Ok(want) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: xclip never read {want:?} from the clipboard; last: {seen:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Puts `text` on the clipboard from xclip, which serves it from the background until another
/// owner takes the clipboard; returns once xclip reads it back.
pub fn write(text: &str) {
    let mut child = Command::new("xclip")
        .args(["-i", "-selection", "clipboard"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xclip (Debian package xclip; scripts/install-deps installs it)");
    let mut stdin = child.stdin.take().expect("xclip's standard input");
    stdin
        .write_all(text.as_bytes())
        .expect("write the text to xclip");
    drop(stdin);
    // xclip forks to serve the selection and its first process exits.
    let _ = child.wait();
    wait_text(text, "xclip -i");
}
