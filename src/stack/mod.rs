//! `treeglass session`: a private, throw-away accessibility stack, a command run inside it, and
//! every process it started stopped afterwards.
//!
//! The stack, in order, each step polled until it answers (at most `step_timeout` each):
//!
//! 1. a private session bus: `dbus-daemon` with a configuration that has no service
//!    directory (nothing is activated: a call to a missing name fails at once instead of
//!    hanging), listening in the session directory;
//! 2. the display: `Xvfb` on a free display (`-displayfd`), or a headless sway (wlroots'
//!    headless backend and pixman renderer, one 1600x1200 output, no input devices, no
//!    Xwayland) — as root, sway (which refuses root) alone runs as an unprivileged user;
//! 3. `at-spi-bus-launcher --launch-immediately`, which starts the accessibility bus (ready
//!    when `org.a11y.Bus.GetAddress` gives an address and that bus answers);
//! 4. `org.a11y.Status.IsEnabled` set to true (Qt needs it; GTK registers regardless);
//! 5. `at-spi2-registryd` on that bus (ready when it owns `org.a11y.atspi.Registry`);
//! 6. with `--app-cmd`, the app (`app.rs`): ready when it is registered, lists a window and two
//!    reads of its tree in a row count the same nodes;
//!
//! then CMD, in this process's process group (the terminal's signals reach it as usual), with
//! the session's environment. The components and the app run in process groups of their own:
//! a Ctrl-C meant for CMD does not take the stack away under it.
//!
//! The bus checks go over zbus, the display's over its own socket (Xvfb's `-displayfd`,
//! sway's IPC): nothing is forked to poll. Stopping is `procs.rs`: components in reverse
//! order, each one's descendants first (so that it can reap them), SIGTERM then SIGKILL; then
//! whatever was left behind below this process, which is the subreaper of its descendants.

mod app;
mod gnome;
pub mod procs;
pub mod words;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::Signal;

/// Exit code: the stack could not be brought up.
pub const STACK_FAILED: i32 = 97;
/// Exit code: the `--app-cmd` app exited, never registered, showed no window or never settled.
pub const APP_FAILED: i32 = 98;
/// Exit code: CMD was found but could not be run (as a shell says it).
pub const CANNOT_EXECUTE: i32 = 126;
/// Exit code: CMD was not found (as a shell says it).
pub const NOT_FOUND: i32 = 127;

/// The accessibility bus launcher and the registry daemon (Debian's at-spi2-core).
pub const LAUNCHER: &str = "/usr/libexec/at-spi-bus-launcher";
pub const REGISTRYD: &str = "/usr/libexec/at-spi2-registryd";

/// The unprivileged user sway runs as when the session is started by root.
pub const DEFAULT_USER: &str = "treeglass-session";

/// Variables removed from everything the session starts (and set again where the session
/// has its own value).
const CLEARED: &[&str] = &[
    "NO_AT_BRIDGE",
    "AT_SPI_BUS_ADDRESS",
    "A11Y_BUS_ADDRESS",
    "WAYLAND_DISPLAY",
    "DISPLAY",
    "SWAYSOCK",
    "DBUS_SESSION_BUS_ADDRESS",
    "SESSION_MANAGER",
    "XDG_SESSION_TYPE",
    "XDG_CURRENT_DESKTOP",
    "TREEGLASS_A11Y_SESSION",
    "TREEGLASS_A11Y_SESSION_DIR",
];

/// How often a step that is not ready yet is asked again.
const POLL: Duration = Duration::from_millis(10);

/// The headless Wayland compositor of `--wayland`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compositor {
    Sway,
    Kwin,
    Gnome,
}

/// What `treeglass session` was asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// A headless Wayland compositor instead of Xvfb.
    pub wayland: Option<Compositor>,
    /// The user the compositor runs as when started by root (with KWin, the whole stack).
    pub user: String,
    /// The app to start inside the stack before CMD, split into words.
    pub app: Option<Vec<String>>,
    /// How long the app may take to register and settle.
    pub app_timeout: Duration,
    /// How long each step of the stack may take.
    pub step_timeout: Duration,
    /// Step timings and pids on standard error.
    pub verbose: bool,
    /// CMD and its arguments (the shell with `--shell`).
    pub command: Vec<OsString>,
}

/// Brings the stack up, runs CMD in it, stops everything, and returns the exit code.
pub async fn run(opts: Options) -> i32 {
    let mut signals = match Signals::new() {
        Ok(s) => s,
        Err(e) => {
            warn(&format!("cannot handle signals: {e}"));
            return STACK_FAILED;
        }
    };
    if let Err(e) = procs::become_subreaper() {
        warn(&format!(
            "cannot become the reaper of what the session leaves behind ({e}): processes \
             whose parent exits are not stopped at the end"
        ));
    }
    if let Err(stop) = check_tools(&opts) {
        return stop.report(None);
    }
    let mut stack = match Stack::new(opts) {
        Ok(s) => s,
        Err(stop) => return stop.report(None),
    };
    let code = match stack.bring_up(&mut signals).await {
        Ok(()) => stack.run_command(&mut signals).await,
        Err(stop) => {
            if matches!(stop, Stop::Failed { .. }) {
                stack.keep_dir = true;
            }
            stop.report(Some(&stack.dir))
        }
    };
    stack.teardown().await;
    code
}

/// Why the session ended before CMD ran.
#[derive(Debug)]
enum Stop {
    /// A step failed: `code` is [`STACK_FAILED`] or [`APP_FAILED`]; `log` is the step's log.
    Failed {
        code: i32,
        step: String,
        reason: String,
        log: Option<PathBuf>,
    },
    /// Signal `n` arrived before CMD started.
    Signal(i32),
}

impl Stop {
    fn stack(step: &str, reason: impl Into<String>, log: Option<&Path>) -> Stop {
        Stop::Failed {
            code: STACK_FAILED,
            step: step.into(),
            reason: reason.into(),
            log: log.map(Path::to_path_buf),
        }
    }

    /// Says on standard error why the session stopped; returns the exit code.
    fn report(self, dir: Option<&Path>) -> i32 {
        match self {
            Stop::Signal(n) => {
                warn(&format!("stopped by signal {n} before CMD started"));
                128 + n
            }
            Stop::Failed {
                code,
                step,
                reason,
                log,
            } => {
                let mut out = format!("step '{step}' failed: {reason}\n");
                if let Some(log) = log {
                    let tail = tail(&log, 25);
                    if !tail.is_empty() {
                        out.push_str(&format!("--- last lines of {} ---\n", log.display()));
                        for line in tail.lines() {
                            out.push_str(&format!("    {line}\n"));
                        }
                        out.push_str("---\n");
                    }
                }
                if let Some(dir) = dir {
                    out.push_str(&format!("logs kept in {}\n", dir.display()));
                }
                for line in out.lines() {
                    warn(line);
                }
                code
            }
        }
    }
}

/// The last `n` lines of a log (escaped: a log may hold anything).
fn tail(path: &Path, n: usize) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(n);
    crate::model::scrub_lines(&lines[from..].join("\n")).into_owned()
}

/// A line on standard error, prefixed `treeglass session: `.
fn warn(message: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "treeglass session: {}",
        crate::model::scrub_lines(message)
    );
}

/// SIGINT, SIGTERM and SIGHUP (which stop the session, or go to CMD while it runs), and
/// SIGCHLD (a child exited: no need to wait for the next poll).
struct Signals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
    child: tokio::signal::unix::Signal,
}

enum Sig {
    Stop(i32),
    Child,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
            hangup: signal(SignalKind::hangup())?,
            child: signal(SignalKind::child())?,
        })
    }

    /// The next signal (cancel-safe).
    async fn next(&mut self) -> Sig {
        tokio::select! {
            _ = self.interrupt.recv() => Sig::Stop(libc::SIGINT),
            _ = self.terminate.recv() => Sig::Stop(libc::SIGTERM),
            _ = self.hangup.recv() => Sig::Stop(libc::SIGHUP),
            _ = self.child.recv() => Sig::Child,
        }
    }

    /// Sleeps for `d`, or less when a child exits; `Err(n)` when signal `n` asks to stop.
    async fn sleep(&mut self, d: Duration) -> Result<(), i32> {
        tokio::select! {
            _ = tokio::time::sleep(d) => Ok(()),
            s = self.next() => match s {
                Sig::Stop(n) => Err(n),
                Sig::Child => Ok(()),
            },
        }
    }
}

/// One process the session started and owns.
struct Component {
    name: String,
    child: Child,
    log: PathBuf,
}

/// The environment everything inside the session gets, built up step by step.
#[derive(Default)]
struct Env {
    vars: Vec<(&'static str, OsString)>,
}

impl Env {
    fn set(&mut self, key: &'static str, value: impl Into<OsString>) {
        let value = value.into();
        match self.vars.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((key, value)),
        }
    }

    fn get(&self, key: &str) -> Option<&OsStr> {
        self.vars
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.as_os_str())
    }

    fn apply(&self, cmd: &mut Command) {
        for k in CLEARED {
            cmd.env_remove(k);
        }
        for (k, v) in &self.vars {
            cmd.env(k, v);
        }
    }
}

struct Stack {
    opts: Options,
    dir: PathBuf,
    keep_dir: bool,
    env: Env,
    components: Vec<Component>,
    /// The `--app-cmd` app, and the write end of its standard input (closed first at the end:
    /// an app that quits on end of input quits gently).
    app: Option<(Component, Option<ChildStdin>)>,
    a11y_address: String,
    /// With KWin started by root: the user every process of the stack, and CMD, runs as.
    run_as: Option<String>,
    t0: Instant,
    t_step: Instant,
}

impl Stack {
    fn new(opts: Options) -> Result<Stack, Stop> {
        let t0 = Instant::now();
        let dir = make_dir().map_err(|e| {
            Stop::stack(
                "session directory",
                format!("cannot create it in /tmp: {e}"),
                None,
            )
        })?;
        let stack = Stack {
            opts,
            dir,
            keep_dir: false,
            env: Env::default(),
            components: Vec::new(),
            app: None,
            a11y_address: String::new(),
            run_as: None,
            t0,
            t_step: t0,
        };
        stack.say(&format!("session directory {}", stack.dir.display()));
        Ok(stack)
    }

    /// A line on standard error with `-v`.
    fn say(&self, message: &str) {
        if self.opts.verbose {
            warn(message);
        }
    }

    /// With `-v`: how long the step took, and the total so far.
    fn step_done(&mut self, what: &str) {
        let now = Instant::now();
        self.say(&format!(
            "{what:<24} {:5} ms (total {:5} ms)",
            (now - self.t_step).as_millis(),
            (now - self.t0).as_millis()
        ));
        self.t_step = now;
    }

    async fn bring_up(&mut self, signals: &mut Signals) -> Result<(), Stop> {
        let sway_user = self.prepare_dir()?;
        self.step_done("environment");
        let session = self.session_bus(signals).await?;
        self.step_done("session bus");
        match self.opts.wayland {
            Some(Compositor::Sway) => self.sway(sway_user, signals).await?,
            Some(Compositor::Kwin) => self.kwin(signals).await?,
            Some(Compositor::Gnome) => self.gnome(signals).await?,
            None => self.xvfb(signals).await?,
        }
        let a11y = self.a11y_bus(&session, signals).await?;
        self.step_done("a11y bus");
        set_enabled(&session).await.map_err(|e| {
            Stop::stack(
                "set org.a11y.Status.IsEnabled",
                format!("Properties.Set was refused: {e}"),
                None,
            )
        })?;
        self.step_done("IsEnabled=true");
        self.registryd(&a11y, signals).await?;
        self.step_done("registryd");
        drop((session, a11y));
        self.env.set(
            "TREEGLASS_A11Y_SESSION",
            if self.opts.wayland.is_some() {
                "wayland"
            } else {
                "1"
            },
        );
        self.env.set(
            "TREEGLASS_A11Y_SESSION_DIR",
            self.dir.as_os_str().to_owned(),
        );
        let show = |k| {
            self.env
                .get(k)
                .map(|v| v.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        self.say(&format!(
            "ready in {} ms: DISPLAY={} WAYLAND_DISPLAY={} DBUS_SESSION_BUS_ADDRESS={} \
             A11Y_BUS_ADDRESS={}",
            self.t0.elapsed().as_millis(),
            show("DISPLAY"),
            show("WAYLAND_DISPLAY"),
            show("DBUS_SESSION_BUS_ADDRESS"),
            self.a11y_address
        ));
        if self.opts.verbose {
            self.say_processes();
        }
        if let Some(argv) = self.opts.app.clone() {
            app::start(self, &argv, signals).await?;
            self.step_done("app");
        }
        // A signal that came while no step had to wait still stops the session before CMD.
        while let Some(s) = futures::FutureExt::now_or_never(signals.next()) {
            if let Sig::Stop(n) = s {
                return Err(Stop::Signal(n));
            }
        }
        Ok(())
    }

    /// With `-v`: every process the stack runs, with the processes each one started.
    fn say_processes(&self) {
        let table = procs::all();
        for c in &self.components {
            let below: Vec<String> = procs::descendants(c.child.id() as i32, &table)
                .iter()
                .map(|p| format!("pid {}", p.pid))
                .collect();
            let below = if below.is_empty() {
                String::new()
            } else {
                format!(", which runs {}", below.join(", "))
            };
            self.say(&format!("{}: pid {}{below}", c.name, c.child.id()));
        }
    }

    /// The runtime directory, and the environment every step starts from. With `--wayland`
    /// as root: the user sway runs as (made when missing), who owns the runtime directory.
    fn prepare_dir(&mut self) -> Result<Option<String>, Stop> {
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
    fn command(&self, program: &OsStr) -> Command {
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
    fn prepare_kwin_dir(&mut self, run: PathBuf) -> Result<(), Stop> {
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

    /// Starts a component: its output to `log` in the session directory (standard output to
    /// `stdout` when given), no input, a process group of its own, the session's environment
    /// with `extra` on top.
    fn spawn(
        &mut self,
        name: &str,
        log: &str,
        argv: &[&OsStr],
        extra: &[(&str, &OsStr)],
        stdout: Option<File>,
    ) -> Result<usize, Stop> {
        let log = self.dir.join(log);
        let cannot = |e: std::io::Error| {
            Stop::stack(
                name,
                format!("cannot start {}: {e}", argv[0].to_string_lossy()),
                None,
            )
        };
        let err = File::create(&log).map_err(cannot)?;
        let out = match stdout {
            Some(f) => f,
            None => err.try_clone().map_err(cannot)?,
        };
        let mut cmd = self.command(argv[0]);
        cmd.args(&argv[1..]);
        self.env.apply(&mut cmd);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let child = cmd.spawn().map_err(cannot)?;
        self.say(&format!("{name}: started, pid {}", child.id()));
        self.components.push(Component {
            name: name.to_string(),
            child,
            log,
        });
        Ok(self.components.len() - 1)
    }

    async fn session_bus(&mut self, signals: &mut Signals) -> Result<zbus::Connection, Stop> {
        // KWin's session (its own user, when started by root) is asked by this process.
        let any_user = self.run_as.is_some();
        let (address, bus) = self
            .dbus_daemon("session bus", "bus", "session-bus.log", any_user, signals)
            .await?;
        self.env.set("DBUS_SESSION_BUS_ADDRESS", address);
        Ok(bus)
    }

    /// A private bus daemon (`what`: `session bus`, `system bus`) listening on `socket` in the
    /// session's directory, logging to `log`; `any_user`: other users may connect too. Its
    /// address and a connection to it, once it accepts one.
    async fn dbus_daemon(
        &mut self,
        what: &'static str,
        socket: &str,
        log: &str,
        any_user: bool,
        signals: &mut Signals,
    ) -> Result<(String, zbus::Connection), Stop> {
        let socket = self.dir.join(socket);
        let conf = socket.with_extension("conf");
        let text = format!(
            r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">{}
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
            socket.display(),
            if any_user {
                "\n    <allow user=\"*\"/>"
            } else {
                ""
            }
        );
        std::fs::write(&conf, text).map_err(|e| {
            Stop::stack(what, format!("cannot write {}: {e}", conf.display()), None)
        })?;
        let address = format!("unix:path={}", socket.display());
        let config = OsString::from(format!("--config-file={}", conf.display()));
        let i = self.spawn(
            what,
            log,
            &[
                OsStr::new("dbus-daemon"),
                &config,
                OsStr::new("--nofork"),
                OsStr::new("--nopidfile"),
            ],
            &[],
            None,
        )?;
        let timeout = self.opts.step_timeout;
        let bus = poll(
            what,
            &mut self.components[i],
            timeout,
            signals,
            async || {
                if !socket.exists() {
                    return None;
                }
                connect(&address).await
            },
        )
        .await?;
        Ok((address, bus))
    }

    async fn xvfb(&mut self, signals: &mut Signals) -> Result<(), Stop> {
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

    async fn sway(&mut self, user: Option<String>, signals: &mut Signals) -> Result<(), Stop> {
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
                let ipc = crate::backend::atspi::input::sway::Ipc::at(&sock);
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

    /// A headless KWin (its virtual backend, QPainter compositing, one 1280x800 output) on a
    /// display of its own, run from a copy of `kwin_wayland`: the installed one carries the
    /// file capability `cap_sys_resource`, and where the bounding set lacks it (a container)
    /// exec fails with EPERM, even for root; a copy has none. Ready when its Wayland socket is
    /// there and it owns `org.kde.KWin` on the session bus.
    async fn kwin(&mut self, signals: &mut Signals) -> Result<(), Stop> {
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
                OsStr::new("1280"),
                OsStr::new("--height"),
                OsStr::new("800"),
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

    /// The launcher, the address of the bus it started, and a connection to that bus.
    async fn a11y_bus(
        &mut self,
        session: &zbus::Connection,
        signals: &mut Signals,
    ) -> Result<zbus::Connection, Stop> {
        let i = self.spawn(
            "at-spi-bus-launcher",
            "bus-launcher.log",
            &[OsStr::new(LAUNCHER), OsStr::new("--launch-immediately")],
            &[],
            None,
        )?;
        let timeout = self.opts.step_timeout;
        let address = poll(
            "at-spi-bus-launcher (org.a11y.Bus.GetAddress)",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                let reply = call(
                    session,
                    "org.a11y.Bus",
                    "/org/a11y/bus",
                    "org.a11y.Bus",
                    "GetAddress",
                    &(),
                )
                .await
                .ok()?;
                let address: String = reply.body().deserialize().ok()?;
                let address = address.trim();
                (!address.is_empty()).then(|| address.to_string())
            },
        )
        .await?;
        self.env.set("A11Y_BUS_ADDRESS", address.clone());
        self.a11y_address = address.clone();
        poll(
            &format!("accessibility bus ({address})"),
            &mut self.components[i],
            timeout,
            signals,
            async || connect(&address).await,
        )
        .await
    }

    async fn registryd(
        &mut self,
        a11y: &zbus::Connection,
        signals: &mut Signals,
    ) -> Result<(), Stop> {
        // AT_SPI_BUS_ADDRESS in its environment only.
        let address = OsString::from(&self.a11y_address);
        let i = self.spawn(
            "at-spi2-registryd",
            "registryd.log",
            &[OsStr::new(REGISTRYD)],
            &[("AT_SPI_BUS_ADDRESS", &address)],
            None,
        )?;
        let timeout = self.opts.step_timeout;
        poll(
            "at-spi2-registryd (org.a11y.atspi.Registry)",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                let reply = call(
                    a11y,
                    "org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus",
                    "NameHasOwner",
                    &("org.a11y.atspi.Registry",),
                )
                .await
                .ok()?;
                reply.body().deserialize::<bool>().ok()?.then_some(())
            },
        )
        .await
    }

    /// Runs CMD with the session's environment and waits for it, passing SIGINT, SIGTERM and
    /// SIGHUP on to it (SIGKILL from the third on). Returns its exit code.
    async fn run_command(&mut self, signals: &mut Signals) -> i32 {
        let argv = &self.opts.command;
        let mut cmd = self.command(&argv[0]);
        cmd.args(&argv[1..]);
        self.env.apply(&mut cmd);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                warn(&format!("cannot run {}: {e}", argv[0].to_string_lossy()));
                return if e.kind() == std::io::ErrorKind::NotFound {
                    NOT_FOUND
                } else {
                    CANNOT_EXECUTE
                };
            }
        };
        self.say(&format!("CMD: pid {}", child.id()));
        let mut known: Vec<u32> = self.components.iter().map(|c| c.child.id()).collect();
        known.extend(self.app.as_ref().map(|(a, _)| a.child.id()));
        known.push(child.id());
        let mut signalled = 0;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    let code = exit_code(status);
                    self.say(&format!("CMD exited with {code}"));
                    return code;
                }
                Ok(None) => {}
                Err(e) => {
                    warn(&format!("cannot wait for CMD: {e}"));
                    return 1;
                }
            }
            tokio::select! {
                s = signals.next() => match s {
                    Sig::Child => {
                        // Orphans adopted while CMD runs are reaped as they exit.
                        procs::reap_orphans(&known);
                    }
                    Sig::Stop(n) => {
                        signalled += 1;
                        let sig = if signalled >= 3 {
                            Signal::KILL
                        } else {
                            Signal::from_named_raw(n).unwrap_or(Signal::TERM)
                        };
                        procs::signal_child(child.id(), sig);
                    }
                },
                _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
        }
    }

    /// Stops the app, then the components in reverse start order, then whatever was left
    /// behind below this process; removes the session directory unless a step failed.
    async fn teardown(&mut self) {
        let t = Instant::now();
        if let Some((app, stdin)) = self.app.take() {
            drop(stdin);
            self.stop(app).await;
        }
        while let Some(c) = self.components.pop() {
            self.stop(c).await;
        }
        self.sweep().await;
        if !self.keep_dir {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        self.say(&format!("stopped in {} ms", t.elapsed().as_millis()));
    }

    /// Stops one process the session started: the processes it started first (so that it
    /// can still reap them), then itself; SIGTERM, then SIGKILL after 1 s (its descendants)
    /// or 2 s (itself).
    async fn stop(&self, mut c: Component) {
        if let Ok(Some(_)) = c.child.try_wait() {
            // It exited already; what it left is the sweep's.
            return;
        }
        let pid = c.child.id() as i32;
        let below = procs::descendants(pid, &procs::all());
        let stubborn = procs::stop_all(&below, Duration::from_secs(1)).await;
        if !stubborn.is_empty() {
            self.say(&format!(
                "{}: processes it started ignored SIGTERM; sent SIGKILL",
                c.name
            ));
        }
        procs::signal_child(c.child.id(), Signal::TERM);
        if !wait_child(&mut c.child, Duration::from_secs(2)).await {
            self.say(&format!(
                "{} (pid {pid}) ignored SIGTERM; sending SIGKILL",
                c.name
            ));
            procs::signal_child(c.child.id(), Signal::KILL);
            let _ = c.child.wait();
        }
    }

    /// Stops and reaps every process still below this one: orphans the session adopted (what
    /// CMD or a component left running when it exited). Their own children come up to this
    /// process as they go, so it repeats until none is left (a few rounds at most).
    async fn sweep(&self) {
        let me = procs::me();
        for _ in 0..5 {
            let table = procs::all();
            let orphans: Vec<procs::Proc> =
                table.iter().copied().filter(|p| p.ppid == me).collect();
            if orphans.is_empty() {
                return;
            }
            let mut victims = Vec::new();
            for o in &orphans {
                victims.extend(procs::descendants(o.pid, &table));
            }
            victims.extend(orphans.iter().copied().filter(|p| !p.exited()));
            if !victims.is_empty() {
                self.say(&format!(
                    "stopping {} process(es) left behind: {}",
                    victims.len(),
                    victims
                        .iter()
                        .map(|p| format!("pid {}", p.pid))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            procs::stop_all(&victims, Duration::from_secs(1)).await;
            for o in &orphans {
                procs::reap(o);
            }
        }
    }
}

/// Every program the stack needs, before anything is started.
fn check_tools(opts: &Options) -> Result<(), Stop> {
    let (display, tool, package) = match opts.wayland {
        Some(Compositor::Sway) => ("sway", "sway", "sway"),
        Some(Compositor::Kwin) => ("KWin", "kwin_wayland", "kwin-wayland"),
        Some(Compositor::Gnome) => ("GNOME Shell", "gnome-shell", "gnome-shell"),
        None => ("Xvfb", "Xvfb", "xvfb"),
    };
    let mut tools = vec![
        ("session bus", "dbus-daemon", "dbus-daemon"),
        (display, tool, package),
    ];
    if opts.wayland.is_some() && rustix::process::geteuid().is_root() {
        // The compositor (with KWin, the whole stack) runs as the unprivileged user through
        // runuser.
        tools.push((display, "runuser", "util-linux"));
    }
    for (step, tool, package) in tools {
        if which(tool).is_none() {
            return Err(Stop::stack(
                step,
                format!("'{tool}' is not on PATH (apt-get install {package})"),
                None,
            ));
        }
    }
    for (step, path) in [
        ("at-spi-bus-launcher", LAUNCHER),
        ("at-spi2-registryd", REGISTRYD),
    ] {
        if !is_executable(Path::new(path)) {
            return Err(Stop::stack(
                step,
                format!("{path} is missing (apt-get install at-spi2-core)"),
                None,
            ));
        }
    }
    Ok(())
}

/// Polls `check` until it gives a value; fails the step when the component exits first or
/// `timeout` passes, and stops on SIGINT, SIGTERM or SIGHUP.
async fn poll<T>(
    step: &str,
    c: &mut Component,
    timeout: Duration,
    signals: &mut Signals,
    mut check: impl AsyncFnMut() -> Option<T>,
) -> Result<T, Stop> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = check().await {
            return Ok(v);
        }
        if let Ok(Some(status)) = c.child.try_wait() {
            if let Some(v) = check().await {
                return Ok(v);
            }
            return Err(Stop::stack(
                step,
                format!(
                    "{} (pid {}) exited ({}) before it was ready",
                    c.name,
                    c.child.id(),
                    describe(status)
                ),
                Some(&c.log),
            ));
        }
        if Instant::now() >= deadline {
            return Err(Stop::stack(
                step,
                format!("not ready after {} ms", timeout.as_millis()),
                Some(&c.log),
            ));
        }
        signals.sleep(POLL).await.map_err(Stop::Signal)?;
    }
}

/// Waits up to `timeout` for the direct child to exit, and reaps it.
async fn wait_child(child: &mut Child, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return true,
            Ok(None) => {}
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A process's status as a shell reports it: its exit status, or 128 + the signal that
/// killed it.
pub fn exit_code(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        (None, None) => 1,
    }
}

/// `status 3`, `killed by signal 9`.
fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("status {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        (None, None) => status.to_string(),
    }
}

/// One method call, answered within a second.
async fn call<B>(
    conn: &zbus::Connection,
    dest: &str,
    path: &str,
    iface: &str,
    method: &str,
    body: &B,
) -> Result<zbus::Message, String>
where
    B: serde::Serialize + zbus::zvariant::DynamicType,
{
    crate::backend::atspi::input::call_within(
        Duration::from_secs(1),
        conn,
        dest,
        path,
        iface,
        method,
        body,
    )
    .await
}

/// A connection to the bus at `address`, when it answers within a second.
async fn connect(address: &str) -> Option<zbus::Connection> {
    let addr: zbus::Address = address.parse().ok()?;
    let open = async {
        zbus::connection::Builder::address(addr)
            .ok()?
            .build()
            .await
            .ok()
    };
    tokio::time::timeout(Duration::from_secs(1), open)
        .await
        .ok()
        .flatten()
}

/// `org.a11y.Status.IsEnabled = true` on the session bus's `org.a11y.Bus`.
async fn set_enabled(session: &zbus::Connection) -> Result<(), String> {
    let value = zbus::zvariant::Value::from(true);
    tokio::time::timeout(
        Duration::from_secs(3),
        session.call_method(
            Some("org.a11y.Bus"),
            "/org/a11y/bus",
            Some("org.freedesktop.DBus.Properties"),
            "Set",
            &("org.a11y.Status", "IsEnabled", value),
        ),
    )
    .await
    .map_err(|_| "no answer within 3 s".to_string())?
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// sway's IPC socket and its Wayland display's name, once both are in the runtime directory.
fn sway_sockets(run: &Path) -> Option<(PathBuf, OsString)> {
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

/// The uid of `user`, made (a system user without a home or a login shell) when missing.
fn unprivileged_user(user: &str) -> Result<u32, Stop> {
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
fn make_dir() -> std::io::Result<PathBuf> {
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
fn walk(dir: &Path) -> Vec<PathBuf> {
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

/// Where `tool` is on `$PATH`.
fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
