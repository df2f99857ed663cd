//! The TUI's clipboard: the system clipboard through arboard when there is a display, else the
//! terminal's clipboard through OSC 52 (crossterm's). Copying blocks (X11 clipboard
//! negotiation), so it runs on the blocking pool, never on the UI task; the arboard handle is
//! kept between copies so X11 keeps serving what was copied.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crossterm::clipboard::CopyToClipboard;

use super::overlay::copy::CopyKind;

/// The system clipboard handle, shared with the blocking tasks that use it.
#[derive(Clone, Default)]
pub struct Clipboard {
    system: Arc<Mutex<Option<arboard::Clipboard>>>,
}

impl Clipboard {
    /// Puts `text` on the clipboard; says how, or why it could not.
    pub async fn copy(&self, what: CopyKind, text: String) -> Result<String, String> {
        let system = self.system.clone();
        tokio::task::spawn_blocking(move || copy_blocking(&system, what, &text))
            .await
            .map_err(|e| e.to_string())?
    }
}

fn copy_blocking(
    system: &Mutex<Option<arboard::Clipboard>>,
    what: CopyKind,
    text: &str,
) -> Result<String, String> {
    // A poisoned lock only means an earlier copy panicked; the handle is still usable.
    let mut guard = system.lock().unwrap_or_else(|e| e.into_inner());
    if guard.is_none() {
        *guard = arboard::Clipboard::new().ok();
    }
    if let Some(c) = guard.as_mut()
        && c.set_text(text.to_string()).is_ok()
    {
        return Ok(format!("copied the {what} to the clipboard"));
    }
    drop(guard);
    let mut out = std::io::stdout();
    crossterm::execute!(out, CopyToClipboard::to_clipboard_from(text))
        .and_then(|()| out.flush())
        .map_err(|e| e.to_string())?;
    Ok(format!(
        "copied the {what} through the terminal (OSC 52; no display for the system clipboard)"
    ))
}

#[cfg(test)]
mod tests {
    use crossterm::Command;

    use super::*;

    /// The sequence terminals take: OSC 52 for the clipboard selection, base64 text.
    #[test]
    fn osc52_sequence() {
        let mut s = String::new();
        CopyToClipboard::to_clipboard_from("hi")
            .write_ansi(&mut s)
            .unwrap_or_default();
        assert_eq!(s, "\x1b]52;c;aGk=\x1b\\");
    }
}
