//! The display servers a session starts: Xvfb, or with `--wayland` sway or KWin (GNOME Shell is
//! `gnome.rs`).

use super::*;

impl Stack {
    pub(super) async fn xvfb(&mut self, signals: &mut Signals) -> Result<(), Stop> {
        // Xvfb picks a free display and writes its number, once it accepts clients, on the
        // descriptor -displayfd names: its standard output, a file here.
        let display_file = self.dir.join("display");
        let out = File::create(&display_file).map_err(|e| {
            Stop::stack(
                "Xvfb",
                format!("cannot create {}: {e}", display_file.display()),
                None,
            )
        })?;
        let i = self.spawn(
            "Xvfb",
            "xvfb.log",
            &[
                "Xvfb",
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1600x1200x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ]
            .map(OsStr::new),
            &[],
            Some(out),
        )?;
        let timeout = self.opts.step_timeout;
        let number = poll(
            "Xvfb",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                let text = std::fs::read_to_string(&display_file).ok()?;
                let line = text.strip_suffix('\n')?;
                (!line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| line.to_string())
            },
        )
        .await?;
        self.env.set("DISPLAY", format!(":{number}"));
        self.step_done(&format!("Xvfb :{number}"));
        Ok(())
    }

    pub(super) async fn sway(
        &mut self,
        user: Option<String>,
        signals: &mut Signals,
    ) -> Result<(), Stop> {
        // One output, no borders (windows are placed by the tests), no Xwayland (every app is
        // a native Wayland client).
        let conf = self.dir.join("sway.conf");
        std::fs::write(
            &conf,
            "output HEADLESS-1 resolution 1600x1200 position 0 0\n\
             default_border none\n\
             default_floating_border none\n\
             xwayland disable\n\
             focus_follows_mouse no\n",
        )
        .and_then(|()| std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o644)))
        .map_err(|e| {
            Stop::stack(
                "sway",
                format!("cannot write {}: {e}", conf.display()),
                None,
            )
        })?;
        let run = self.dir.join("run");
        let runtime = OsString::from(format!("XDG_RUNTIME_DIR={}", run.display()));
        let conf_arg = conf.into_os_string();
        let mut argv: Vec<&OsStr> = Vec::new();
        if let Some(user) = &user {
            argv.extend(["runuser", "-u", user.as_str(), "--"].map(OsStr::new));
        }
        argv.extend(["env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/"].map(OsStr::new));
        argv.push(&runtime);
        argv.extend(
            [
                "WLR_BACKENDS=headless",
                "WLR_RENDERER=pixman",
                "WLR_LIBINPUT_NO_DEVICES=1",
                "WLR_HEADLESS_OUTPUTS=1",
                "sway",
                "-c",
            ]
            .map(OsStr::new),
        );
        argv.push(&conf_arg);
        let i = self.spawn("sway", "sway.log", &argv, &[], None)?;
        let timeout = self.opts.step_timeout;
        let (sock, display) = poll(
            "sway",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                let (sock, display) = sway_sockets(&run)?;
                let ipc = crate::desktop::sway::Ipc::at(&sock);
                let answered = tokio::task::spawn_blocking(move || ipc.version().is_ok())
                    .await
                    .unwrap_or(false);
                answered.then_some((sock, display))
            },
        )
        .await?;
        self.env.set("SWAYSOCK", sock);
        self.env.set("WAYLAND_DISPLAY", display.clone());
        self.env.set("XDG_SESSION_TYPE", "wayland");
        self.env.set("XDG_CURRENT_DESKTOP", "sway");
        self.step_done(&format!("sway {}", display.to_string_lossy()));
        Ok(())
    }

    /// A headless KWin (its virtual backend, QPainter compositing, one 1600x1200 output) on a
    /// display of its own, run from a copy of `kwin_wayland`: the installed one carries the
    /// file capability `cap_sys_resource`, and where the bounding set lacks it (a container)
    /// exec fails with EPERM, even for root; a copy has none. Ready when its Wayland socket is
    /// there and it owns `org.kde.KWin` on the session bus.
    pub(super) async fn kwin(&mut self, signals: &mut Signals) -> Result<(), Stop> {
        let installed = which("kwin_wayland").unwrap_or_else(|| "kwin_wayland".into());
        let copy = self.dir.join("kwin_wayland");
        std::fs::copy(&installed, &copy)
            .and_then(|_| std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)))
            .map_err(|e| {
                Stop::stack(
                    "KWin",
                    format!("cannot copy {} here: {e}", installed.display()),
                    None,
                )
            })?;
        if let Some(user) = &self.run_as {
            let uid = unprivileged_user(user)?;
            let _ = std::os::unix::fs::chown(&copy, Some(uid), None);
        }
        let run = self.dir.join("run");
        let name = "wayland-kwin";
        let i = self.spawn(
            "KWin",
            "kwin.log",
            &[
                copy.as_os_str(),
                OsStr::new("--virtual"),
                OsStr::new("--no-lockscreen"),
                OsStr::new("--no-global-shortcuts"),
                OsStr::new("--socket"),
                OsStr::new(name),
                OsStr::new("--width"),
                OsStr::new("1600"),
                OsStr::new("--height"),
                OsStr::new("1200"),
            ],
            &[("KWIN_COMPOSE", OsStr::new("Q"))],
            None,
        )?;
        let address = self
            .env
            .get("DBUS_SESSION_BUS_ADDRESS")
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default();
        let timeout = self.opts.step_timeout;
        let socket = run.join(name);
        poll(
            "KWin",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                if !socket.exists() {
                    return None;
                }
                let bus = connect(&address).await?;
                let reply = call(
                    &bus,
                    "org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus",
                    "NameHasOwner",
                    &("org.kde.KWin",),
                )
                .await
                .ok()?;
                reply.body().deserialize::<bool>().ok()?.then_some(())
            },
        )
        .await?;
        self.env.set("WAYLAND_DISPLAY", name);
        self.env.set("XDG_SESSION_TYPE", "wayland");
        self.env.set("XDG_CURRENT_DESKTOP", "KDE");
        self.env.set("KDE_SESSION_VERSION", "5");
        self.step_done(&format!("KWin {name}"));
        Ok(())
    }
}

/// sway's IPC socket and its Wayland display's name, once both are in the runtime directory.
pub(super) fn sway_sockets(run: &Path) -> Option<(PathBuf, OsString)> {
    let mut ipc = None;
    let mut display = None;
    for entry in std::fs::read_dir(run).ok()?.flatten() {
        let name = entry.file_name();
        let Some(n) = name.to_str() else { continue };
        let is_socket = entry.file_type().is_ok_and(|t| t.is_socket());
        if !is_socket {
            continue;
        }
        if n.starts_with("sway-ipc.") && n.ends_with(".sock") {
            ipc = Some(entry.path());
        } else if n.starts_with("wayland-") && !n.ends_with(".lock") {
            display = Some(name.clone());
        }
    }
    Some((ipc?, display?))
}
