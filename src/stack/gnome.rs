//! `treeglass session --wayland=gnome`: a headless GNOME Shell, with what it needs around it —
//! an empty system bus of its own (GNOME Shell does not start without one), PipeWire and
//! WirePlumber (Mutter's screen cast, through which clicks are placed), GIO's key-file settings
//! (treeglass's extension enabled, no animations, no idle lock), and treeglass's extension
//! installed in the session's home. Like KWin's, the whole stack runs as one user: GNOME
//! Shell loads extensions from its own user's home.

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use super::{Signals, Stack, Stop, connect, poll, unprivileged_user, walk};
use crate::desktop::gnome::{Shell, extension};

/// The settings GNOME Shell starts with (GIO's key-file backend).
fn keyfile() -> String {
    format!(
        "[org/gnome/shell]\nenabled-extensions=['{}']\ndisable-user-extensions=false\n\
         welcome-dialog-last-shown-version='999'\n\n[org/gnome/desktop/interface]\n\
         enable-animations=false\n\n[org/gnome/desktop/session]\nidle-delay=uint32 0\n\n\
         [org/gnome/desktop/screensaver]\nlock-enabled=false\nidle-activation-enabled=false\n",
        extension::UUID
    )
}

impl Stack {
    /// Its settings and the extension, in the session's home (prepared as KWin's is).
    fn prepare_gnome_home(&mut self) -> Result<(), Stop> {
        let fail = |what: &Path, e: String| {
            Stop::stack(
                "GNOME Shell",
                format!("cannot prepare {}: {e}", what.display()),
                None,
            )
        };
        let home = self.dir.join("home");
        let settings = home.join(".config/glib-2.0/settings");
        std::fs::create_dir_all(&settings).map_err(|e| fail(&settings, e.to_string()))?;
        std::fs::write(settings.join("keyfile"), keyfile())
            .map_err(|e| fail(&settings, e.to_string()))?;
        self.env.set("GSETTINGS_BACKEND", "keyfile");
        // The extension goes where `treeglass gnome-extension install` puts it.
        let version = std::process::Command::new("gnome-shell")
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        let build = extension::Build::for_shell(version.split_whitespace().last().unwrap_or(""));
        let data = home.join(".local/share");
        let dir = data.join("gnome-shell/extensions").join(extension::UUID);
        std::fs::create_dir_all(&dir).map_err(|e| fail(&dir, e.to_string()))?;
        std::fs::write(dir.join("extension.js"), extension::script(build))
            .and_then(|()| std::fs::write(dir.join("metadata.json"), extension::metadata(build)))
            .map_err(|e| fail(&dir, e.to_string()))?;
        if let Some(user) = &self.run_as {
            let uid = unprivileged_user(user)?;
            for entry in walk(&home) {
                std::os::unix::fs::chown(&entry, Some(uid), None)
                    .map_err(|e| fail(&entry, e.to_string()))?;
            }
        }
        Ok(())
    }

    /// The system bus, PipeWire, WirePlumber and GNOME Shell; ready when the extension answers
    /// on the shell's connection and the overview it starts in is closed.
    pub(super) async fn gnome(&mut self, signals: &mut Signals) -> Result<(), Stop> {
        self.prepare_gnome_home()?;
        let timeout = self.opts.step_timeout;
        // An empty system bus: GNOME Shell's login manager throws without one.
        let (address, _bus) = self
            .dbus_daemon("system bus", "system_bus", "system-bus.log", true, signals)
            .await?;
        self.env.set("DBUS_SYSTEM_BUS_ADDRESS", address);
        self.step_done("system bus");

        let run = self.dir.join("run");
        let i = self.spawn(
            "PipeWire",
            "pipewire.log",
            &[OsStr::new("pipewire")],
            &[],
            None,
        )?;
        let pw = run.join("pipewire-0");
        poll(
            "PipeWire",
            &mut self.components[i],
            timeout,
            signals,
            async || pw.exists().then_some(()),
        )
        .await?;
        self.spawn(
            "WirePlumber",
            "wireplumber.log",
            &[OsStr::new("wireplumber")],
            &[],
            None,
        )?;
        self.step_done("PipeWire and WirePlumber");

        let name = "wayland-gnome";
        // A test's own oracle may take screenshots through GNOME Shell's private interfaces,
        // which only `--unsafe-mode` opens to other programs; treeglass never calls them.
        let unsafe_mode = std::env::var_os("TREEGLASS_GNOME_UNSAFE_MODE").is_some_and(|v| v == "1");
        let mut argv: Vec<&OsStr> = [
            "gnome-shell",
            "--headless",
            "--wayland",
            "--no-x11",
            "--wayland-display",
            name,
            "--virtual-monitor",
            "1600x1200",
        ]
        .map(OsStr::new)
        .to_vec();
        if unsafe_mode {
            argv.push(OsStr::new("--unsafe-mode"));
        }
        let i = self.spawn(
            "GNOME Shell",
            "gnome-shell.log",
            &argv,
            &[
                ("LIBGL_ALWAYS_SOFTWARE", OsStr::new("1")),
                ("XDG_SESSION_TYPE", OsStr::new("wayland")),
                ("XDG_CURRENT_DESKTOP", OsStr::new("GNOME")),
            ],
            None,
        )?;
        let session = self
            .env
            .get("DBUS_SESSION_BUS_ADDRESS")
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default();
        let wayland = run.join(name);
        let shell = poll(
            "GNOME Shell",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                if !wayland.exists() {
                    return None;
                }
                Shell::on(connect(&session).await?).await.ok()
            },
        )
        .await?;
        // It starts in the overview, shown once its start-up is done (the extension may answer
        // before): Escape, through Mutter's remote desktop, closes it.
        let mut seen_open = false;
        let mut closed = false;
        let waited = std::time::Instant::now();
        while waited.elapsed() < Duration::from_secs(10) {
            match shell.listing().await.map(|l| l.overview) {
                Ok(true) => {
                    seen_open = true;
                    let _ = shell.press_escape().await;
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Ok(false) if seen_open || waited.elapsed() > Duration::from_secs(5) => {
                    closed = true;
                    break;
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        if !closed {
            return Err(Stop::stack(
                "GNOME Shell",
                "its overview did not close (Escape through Mutter's remote desktop)",
                None,
            ));
        }
        self.env.set("WAYLAND_DISPLAY", name);
        self.env.set("XDG_SESSION_TYPE", "wayland");
        self.env.set("XDG_CURRENT_DESKTOP", "GNOME");
        self.step_done(&format!("GNOME Shell {name}"));
        Ok(())
    }
}
