//! The highlight on GNOME: GNOME Shell has no layer shell, so treeglass's GNOME Shell extension
//! draws the frame (an `St.Widget` added as chrome that takes no input), asked over D-Bus on
//! the shell's own connection. The extension takes the frame away when this process leaves the
//! bus, so it never outlives treeglass.

use std::sync::mpsc;

use super::THICKNESS;
use super::{Cmd, FrameWindow};
use crate::desktop::Rect;
use crate::desktop::gnome::Shell;

pub fn start() -> Result<(FrameWindow, (u32, u32)), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("GNOME highlight: cannot start a runtime: {e}"))?;
    let (shell, screen) = std::thread::scope(|s| {
        s.spawn(|| {
            runtime.block_on(async {
                let shell = Shell::connect().await?;
                let screen = shell.listing().await?.screen;
                Ok::<_, String>((shell, screen))
            })
        })
        .join()
        .map_err(|_| "GNOME highlight: the thread asking GNOME Shell failed".to_string())?
    })?;
    let (w, h) = screen.ok_or("GNOME Shell did not say the screen's size")?;
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("highlight".into())
        .spawn(move || {
            runtime.block_on(async {
                while let Ok(cmd) = rx.recv() {
                    let ok = match cmd {
                        Cmd::Show(b) => shell
                            .highlight(
                                Rect {
                                    x: b.x,
                                    y: b.y,
                                    width: b.width,
                                    height: b.height,
                                },
                                THICKNESS,
                            )
                            .await
                            .is_ok(),
                        Cmd::Hide => shell.clear().await.is_ok(),
                        Cmd::Quit => break,
                    };
                    if !ok {
                        return;
                    }
                }
                let _ = shell.clear().await;
            })
        })
        .map_err(|e| format!("GNOME highlight: cannot start its thread: {e}"))?;
    Ok((
        FrameWindow::serving(tx, thread),
        (w.max(0) as u32, h.max(0) as u32),
    ))
}
