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
mod buses;
mod compositors;
mod dirs;
mod gnome;
mod help;
pub use help::HELP;
pub mod procs;
pub mod words;

use buses::*;
use dirs::*;

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
        if matches!(
            self.opts.wayland,
            Some(Compositor::Kwin) | Some(Compositor::Gnome)
        ) {
            self.seat(signals).await?;
            self.step_done("seat");
        }
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

    /// A keyboard and a pointer on the headless compositor's seat for the life of the session
    /// (`treeglass session-seat`), as a machine's own devices would be: a headless GNOME or
    /// KWin has none, and apps take synthesized input only from a device they have seen the
    /// seat gain. Where the compositor offers no EIS (GNOME 43, KWin 5.27), it holds nothing.
    async fn seat(&mut self, signals: &mut Signals) -> Result<(), Stop> {
        let exe = std::env::current_exe()
            .map_err(|e| Stop::stack("seat", format!("cannot find treeglass itself: {e}"), None))?;
        let out_path = self.dir.join("seat.out");
        let out = File::create(&out_path)
            .map_err(|e| Stop::stack("seat", format!("cannot write {out_path:?}: {e}"), None))?;
        let i = self.spawn(
            "seat (treeglass session-seat)",
            "seat.log",
            &[exe.as_os_str(), OsStr::new("session-seat")],
            &[],
            Some(out),
        )?;
        let timeout = self.opts.step_timeout;
        poll(
            "seat (a keyboard and a pointer on the compositor's seat)",
            &mut self.components[i],
            timeout,
            signals,
            async || {
                std::fs::read_to_string(&out_path)
                    .ok()?
                    .starts_with("ready")
                    .then_some(())
            },
        )
        .await
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
