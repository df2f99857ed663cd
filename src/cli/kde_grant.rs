//! `treeglass kde-grant`: the `.desktop` file through which KWin (KDE Plasma on Wayland) offers
//! its fake input, keys and clicks, to this treeglass binary.

use super::args::GrantAction;
use crate::app::Error;

/// Runs the action; the text to print and the exit code (`status`: 1 when the grant is
/// missing or KWin does not honour it).
#[cfg(target_os = "linux")]
pub fn run(action: GrantAction) -> Result<(String, i32), Error> {
    use crate::desktop::{fake_input, kwin::grant};
    let e = Error::other;
    match action {
        GrantAction::Install => {
            let path = grant::install().map_err(e)?;
            let exe = grant::exe().map_err(e)?;
            Ok((
                format!(
                    "installed {}: KWin offers {} to {} (this binary, at this path only) from \
                     the next time it starts\n",
                    path.display(),
                    grant::INTERFACE,
                    exe.display()
                ),
                0,
            ))
        }
        GrantAction::Remove => {
            let path = grant::path().map_err(e)?;
            let text = match grant::remove().map_err(e)? {
                true => format!("removed {}\n", path.display()),
                false => format!("no grant to remove ({} is missing)\n", path.display()),
            };
            Ok((text, 0))
        }
        GrantAction::Status => {
            let path = grant::path().map_err(e)?;
            let exe = grant::exe().map_err(e)?;
            let mut out = match grant::status().map_err(e)? {
                None => format!(
                    "installed: {} grants {} to {}\n",
                    path.display(),
                    grant::INTERFACE,
                    exe.display()
                ),
                Some(why) => format!("not installed: {why}; run `treeglass kde-grant install`\n"),
            };
            let installed = out.starts_with("installed");
            let on_wayland = std::env::var_os("WAYLAND_DISPLAY").is_some_and(|v| !v.is_empty());
            // KWin 6.1 and later: EIS serves every program, with no grant; the grant is for
            // the fake input of KWin 5.27 to 6.0.
            if on_wayland && let Ok((true, version)) = crate::desktop::kwin::eis_offered() {
                out.push_str(&format!(
                    "the route that serves: KWin's EIS ({}org.kde.KWin.EIS.RemoteDesktop), which \
                     KWin 6.1 and later offer to every program: keys and clicks go through it, \
                     and this grant is not needed\n",
                    version.map(|v| format!("KWin {v}; ")).unwrap_or_default()
                ));
                return Ok((out, 0));
            }
            let honoured = if on_wayland {
                match fake_input::offered() {
                    Ok(Some(v)) => {
                        out.push_str(&format!(
                            "the route that serves: the compositor offers {} (version {v}) to \
                             this program (KWin 5.27 to 6.0, with the grant)\n",
                            fake_input::GLOBAL
                        ));
                        true
                    }
                    Ok(None) => {
                        out.push_str(&format!(
                            "the compositor does not offer {} to this program\n",
                            fake_input::GLOBAL
                        ));
                        false
                    }
                    Err(why) => {
                        out.push_str(&format!("the compositor was not asked: {why}\n"));
                        false
                    }
                }
            } else {
                out.push_str("no Wayland display: whether KWin honours the grant was not asked\n");
                installed
            };
            Ok((out, if installed && honoured { 0 } else { 1 }))
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub fn run(_action: GrantAction) -> Result<(String, i32), Error> {
    Err(Error::other(
        "treeglass kde-grant is for KDE Plasma on Wayland: it is only available on Linux",
    ))
}
