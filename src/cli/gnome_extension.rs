//! `treeglass gnome-extension`: treeglass's GNOME Shell extension, through which GNOME on
//! Wayland tells treeglass where windows are, raises them and draws the highlight.

use super::args::ExtensionAction;
use crate::app::Error;

/// Runs the action; the text to print and the exit code (`status`: 1 unless GNOME Shell
/// answers through the extension).
#[cfg(target_os = "linux")]
pub async fn run(action: ExtensionAction) -> Result<(String, i32), Error> {
    use crate::desktop::gnome::{Shell, extension};
    let e = Error::other;
    match action {
        ExtensionAction::Install => {
            let (version, from) = shell_version().await.map_err(e)?;
            let build = extension::Build::for_shell(&version);
            let dir = extension::install(build).map_err(e)?;
            let which = match build {
                extension::Build::Legacy => "GNOME Shell 43 and 44",
                extension::Build::Modules => "GNOME Shell 45 and later",
            };
            Ok((
                format!(
                    "installed {} ({which}; GNOME Shell {version}, {from})\nGNOME Shell on Wayland \
                     loads a new extension only when it starts: log out and in again, then run \
                     `treeglass gnome-extension enable`\n",
                    dir.display()
                ),
                0,
            ))
        }
        ExtensionAction::Enable => {
            let conn = zbus::Connection::session()
                .await
                .map_err(|x| e(format!("cannot connect to the session bus: {x}")))?;
            let reply = conn
                .call_method(
                    Some("org.gnome.Shell"),
                    "/org/gnome/Shell",
                    Some("org.gnome.Shell.Extensions"),
                    "EnableExtension",
                    &(extension::UUID,),
                )
                .await
                .map_err(|x| e(format!("GNOME Shell did not enable the extension: {x}")))?;
            let done: bool = reply.body().deserialize().map_err(|x| e(x.to_string()))?;
            if !done {
                return Ok((
                    format!(
                        "GNOME Shell did not enable {}: is it installed (`treeglass \
                         gnome-extension install`), and was GNOME Shell started since?\n",
                        extension::UUID
                    ),
                    1,
                ));
            }
            Ok((format!("enabled {}\n", extension::UUID), 0))
        }
        ExtensionAction::Remove => {
            let dir = extension::dir().map_err(e)?;
            Ok((
                match extension::remove().map_err(e)? {
                    true => format!("removed {}\n", dir.display()),
                    false => format!("nothing to remove ({} is missing)\n", dir.display()),
                },
                0,
            ))
        }
        ExtensionAction::Status => {
            let dir = extension::dir().map_err(e)?;
            let mut out = match extension::installed().map_err(e)? {
                Some(b) => format!("installed: {} ({b:?} build)\n", dir.display()),
                None if dir.exists() => format!(
                    "{} holds another version: run `treeglass gnome-extension install`\n",
                    dir.display()
                ),
                None => format!(
                    "not installed: run `treeglass gnome-extension install`\n ({} is missing)\n",
                    dir.display()
                ),
            };
            let answers = match Shell::connect().await {
                Ok(shell) => {
                    let v = shell.version().await.unwrap_or_default();
                    out.push_str(&format!(
                        "GNOME Shell {} answers through it (extension version {})\n",
                        v["shell"].as_str().unwrap_or("?"),
                        v["extension"]
                    ));
                    true
                }
                Err(why) => {
                    out.push_str(&format!("{why}\n"));
                    false
                }
            };
            Ok((out, if answers { 0 } else { 1 }))
        }
    }
}

/// The running GNOME Shell's version (its `ShellVersion` property), else the installed one's.
#[cfg(target_os = "linux")]
async fn shell_version() -> Result<(String, &'static str), String> {
    if let Ok(conn) = zbus::Connection::session().await
        && let Ok(p) = zbus::Proxy::new(
            &conn,
            "org.gnome.Shell",
            "/org/gnome/Shell",
            "org.gnome.Shell",
        )
        .await
        && let Ok(v) = p.get_property::<String>("ShellVersion").await
    {
        return Ok((v, "the running shell"));
    }
    let o = std::process::Command::new("gnome-shell")
        .arg("--version")
        .output()
        .map_err(|e| format!("GNOME Shell is neither running nor installed: {e}"))?;
    let text = String::from_utf8_lossy(&o.stdout);
    text.split_whitespace()
        .last()
        .map(|v| (v.to_string(), "gnome-shell --version"))
        .ok_or_else(|| format!("gnome-shell --version said {text:?}"))
}

#[cfg(not(target_os = "linux"))]
pub async fn run(_action: ExtensionAction) -> Result<(String, i32), Error> {
    Err(Error::other(
        "treeglass gnome-extension is for GNOME on Wayland: it is only available on Linux",
    ))
}
