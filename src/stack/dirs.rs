//! The session directory, its runtime directory and home, the unprivileged user the stack runs
//! as when started by root, and how a component is started as that user.

use super::*;

impl Stack {
    /// The runtime directory, and the environment every step starts from. With `--wayland`
    /// as root: the user sway runs as (made when missing), who owns the runtime directory.
    pub(super) fn prepare_dir(&mut self) -> Result<Option<String>, Stop> {
        let run = self.dir.join("run");
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&run)
            .map_err(|e| {
                Stop::stack(
                    "runtime dir",
                    format!("cannot create {}: {e}", run.display()),
                    None,
                )
            })?;
        let mut sway_user = None;
        if matches!(
            self.opts.wayland,
            Some(Compositor::Kwin | Compositor::Gnome)
        ) {
            return self.prepare_kwin_dir(run).map(|()| None);
        }
        if self.opts.wayland.is_some() && rustix::process::geteuid().is_root() {
            let user = self.opts.user.clone();
            let uid = unprivileged_user(&user)?;
            // sway's user reaches the runtime directory (and its configuration) through the
            // session directory, and owns the runtime directory.
            std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o711))
                .and_then(|()| std::os::unix::fs::chown(&run, Some(uid), None))
                .map_err(|e| {
                    Stop::stack(
                        "runtime dir",
                        format!("cannot give {} to {user}: {e}", run.display()),
                        None,
                    )
                })?;
            sway_user = Some(user);
        }
        self.env.set("XDG_RUNTIME_DIR", run);
        self.env.set("GSETTINGS_BACKEND", "memory");
        Ok(sway_user)
    }

    /// A command for `program`, through `runuser` when the stack runs as another user.
    pub(super) fn command(&self, program: &OsStr) -> Command {
        match &self.run_as {
            Some(user) => {
                let mut cmd = Command::new("runuser");
                // -m: the session's environment, HOME included, as it is given.
                cmd.args(["-m", "-u", user.as_str(), "--"]).arg(program);
                cmd
            }
            None => Command::new(program),
        }
    }

    /// KWin's session directory: a home of its own (KWin and KDE's frameworks write their
    /// configuration and caches there, and read the input grant from its applications
    /// directory) and, started by root, the whole directory given to the unprivileged user
    /// every process of the stack runs as.
    pub(super) fn prepare_kwin_dir(&mut self, run: PathBuf) -> Result<(), Stop> {
        let home = self.dir.join("home");
        let fail = |what: &Path, e: std::io::Error| {
            Stop::stack(
                "runtime dir",
                format!("cannot prepare {}: {e}", what.display()),
                None,
            )
        };
        for d in [".config", ".local/share/applications", ".cache"] {
            std::fs::create_dir_all(home.join(d)).map_err(|e| fail(&home, e))?;
        }
        if rustix::process::geteuid().is_root() {
            let user = self.opts.user.clone();
            let uid = unprivileged_user(&user)?;
            for entry in walk(&self.dir) {
                std::os::unix::fs::chown(&entry, Some(uid), None).map_err(|e| fail(&entry, e))?;
            }
            self.run_as = Some(user);
            // That account's login shell is nologin: a program in the session that starts
            // `$SHELL` (tmux, an editor, a terminal) gets a working one instead.
            self.env.set("SHELL", "/bin/sh");
        }
        self.env.set("XDG_RUNTIME_DIR", run);
        self.env.set("GSETTINGS_BACKEND", "memory");
        self.env.set("XDG_CONFIG_HOME", home.join(".config"));
        self.env.set("XDG_DATA_HOME", home.join(".local/share"));
        self.env.set("XDG_CACHE_HOME", home.join(".cache"));
        self.env.set("HOME", home);
        Ok(())
    }
}

/// The uid of `user`, made (a system user without a home or a login shell) when missing.
pub(super) fn unprivileged_user(user: &str) -> Result<u32, Stop> {
    let uid = |user: &str| -> Option<u32> {
        let out = Command::new("id").args(["-u", user]).output().ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    };
    if let Some(id) = uid(user) {
        return Ok(id);
    }
    warn(&format!(
        "creating the unprivileged user '{user}' to run sway (it refuses root)"
    ));
    let made = Command::new("useradd")
        .args([
            "--system",
            "--no-create-home",
            "--shell",
            "/usr/sbin/nologin",
            user,
        ])
        .stdout(Stdio::null())
        .output();
    match made {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            return Err(Stop::stack(
                "user",
                format!(
                    "useradd {user}: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ),
                None,
            ));
        }
        Err(e) => return Err(Stop::stack("user", format!("useradd {user}: {e}"), None)),
    }
    uid(user).ok_or_else(|| Stop::stack("user", format!("no uid for '{user}' after useradd"), None))
}

/// A new directory `/tmp/a11y-session.XXXXXXXX`, mode 700 (short on purpose: a Unix socket's
/// path is limited to 108 bytes, and the buses and sway listen in it).
pub(super) fn make_dir() -> std::io::Result<PathBuf> {
    use std::hash::{BuildHasher, Hasher};
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut last = None;
    for attempt in 0u32..64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(attempt);
        h.write_u32(std::process::id());
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default(),
        );
        let mut n = h.finish();
        let suffix: String = (0..8)
            .map(|_| {
                let c = CHARS[(n % CHARS.len() as u64) as usize] as char;
                n /= CHARS.len() as u64;
                c
            })
            .collect();
        let path = PathBuf::from(format!("/tmp/a11y-session.{suffix}"));
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
}

/// `dir` and everything below it (not following links).
pub(super) fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        let d = out[i].clone();
        i += 1;
        if std::fs::symlink_metadata(&d).is_ok_and(|m| m.is_dir())
            && let Ok(entries) = std::fs::read_dir(&d)
        {
            out.extend(entries.flatten().map(|e| e.path()));
        }
    }
    out
}
