//! The terminal side: raw mode, alternate screen and mouse capture (restored on exit, on
//! SIGHUP, SIGINT and SIGTERM, and on panic), the event loop that feeds messages to the app, runs its
//! effects on tokio tasks, and draws at most once per frame interval after draining input.

use std::io::{Stdout, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture, Event,
    EventStream,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::{broadcast, mpsc};

use super::app::{App, CompletedWrite, Config, Effect, Msg, OpenAt};
use super::clip::Clipboard;
use super::exec::{self, Ctx, Work};
use super::view;
use crate::backend::Backend;
use crate::desktop::frame::FrameWindow;
use crate::model::AppText;

/// At most one frame per this interval; input is drained before drawing.
const FRAME: Duration = Duration::from_millis(16);

/// How often a read's progress line is refreshed and its partial tree taken.
const PROGRESS_TICK: Duration = Duration::from_millis(100);

/// A workflow recorder the TUI reports completed writes to (issue 6 provides one). `r` starts
/// and stops it, `w` exports; every answer is a line for the status bar.
pub trait Recorder: Send {
    /// Starts recording writes in `window` of `app`.
    fn start(&mut self, app: &AppText, window: &AppText) -> Result<String, String>;
    /// Stops recording.
    fn stop(&mut self) -> Result<String, String>;
    /// One completed write or invoke (secret values arrive as `None`).
    fn record(&mut self, write: &CompletedWrite);
    /// Writes the workflow file; says where.
    fn export(&mut self) -> Result<String, String>;
}

/// What `run` needs besides the backend.
#[derive(Default)]
pub struct Options {
    /// A notice for the top line (e.g. "no accessibility bus: showing the demo app").
    pub banner: Option<String>,
    pub recorder: Option<Box<dyn Recorder>>,
    /// The window to open first (`--app`, `--pid`, `--window`), or why none matched.
    pub open: Option<Result<OpenAt, String>>,
}

/// Why the TUI stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
    #[error("a background task panicked; the terminal was restored")]
    Panicked,
}

/// How the TUI ended without an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit.
    Quit,
    /// A signal stopped it (the terminal was restored first); the process should exit with
    /// 128 + `number`, as a shell expects of a process a signal ended.
    Signal { number: i32, name: &'static str },
}

/// SIGHUP (the terminal went away), SIGINT and SIGTERM, as one stream of signal numbers.
#[cfg(unix)]
struct Signals {
    hangup: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> std::io::Result<Signals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Signals {
            hangup: signal(SignalKind::hangup())?,
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn recv(&mut self) -> Ended {
        let (number, name) = tokio::select! {
            _ = self.hangup.recv() => (libc::SIGHUP, "SIGHUP"),
            _ = self.interrupt.recv() => (libc::SIGINT, "SIGINT"),
            _ = self.terminate.recv() => (libc::SIGTERM, "SIGTERM"),
        };
        Ended::Signal { number, name }
    }
}

/// Elsewhere: Ctrl-C only (the console's break).
#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> std::io::Result<Signals> {
        Ok(Signals)
    }

    async fn recv(&mut self) -> Ended {
        let _ = tokio::signal::ctrl_c().await;
        Ended::Signal {
            number: 2,
            name: "SIGINT",
        }
    }
}

static PANICKED: AtomicBool = AtomicBool::new(false);

fn restore_terminal() {
    let _ = disable_raw_mode();
    let mut out = std::io::stdout();
    let _ = crossterm::execute!(
        out,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = out.flush();
}

/// Puts the terminal back however the TUI ends.
struct Guard;

impl Guard {
    fn enter() -> std::io::Result<Guard> {
        enable_raw_mode()?;
        let guard = Guard;
        crossterm::execute!(
            std::io::stdout(),
            EnterAlternateScreen,
            EnableMouseCapture,
            EnableBracketedPaste
        )?;
        Ok(guard)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICKED.store(true, Ordering::SeqCst);
        restore_terminal();
        previous(info);
    }));
}

fn term_msg(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) => Some(Msg::Key(k)),
        Event::Mouse(m) => Some(Msg::Mouse(m)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::Paste(s) => Some(Msg::Paste(s)),
        _ => None,
    }
}

/// The recorder, shared with the blocking task that exports.
type SharedRecorder = Arc<std::sync::Mutex<Box<dyn Recorder>>>;

struct Loop {
    app: App,
    ctx: Arc<Ctx>,
    tx: mpsc::UnboundedSender<Msg>,
    clipboard: Clipboard,
    recorder: Option<SharedRecorder>,
    /// The on-screen highlight window (none where it cannot work).
    frame: Option<FrameWindow>,
    started: Instant,
}

/// Locks the recorder; a poisoned lock only means an earlier call panicked.
fn lock(r: &SharedRecorder) -> std::sync::MutexGuard<'_, Box<dyn Recorder>> {
    r.lock().unwrap_or_else(|e| e.into_inner())
}

impl Loop {
    fn handle(&mut self, msg: Msg) {
        self.app.clock_ms = self.started.elapsed().as_millis() as u64;
        let fx = self.app.update(msg);
        self.run(fx);
    }

    fn run(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match exec::plan(&self.ctx, e) {
                Work::Job(job) => {
                    let tx = self.tx.clone();
                    tokio::spawn(async move {
                        match tokio::spawn(job).await {
                            Ok(msg) => {
                                let _ = tx.send(msg);
                            }
                            // The panic hook restored the terminal; wake the loop so it ends.
                            Err(_) => {
                                let _ = tx.send(Msg::Notice("a background task failed".into()));
                            }
                        }
                    });
                }
                Work::Local(e) => {
                    let msg = self.local(e);
                    if let Some(m) = msg {
                        let _ = self.tx.send(m);
                    }
                }
            }
        }
    }

    fn local(&mut self, e: Effect) -> Option<Msg> {
        match e {
            Effect::Copy { what, text } => {
                let (clipboard, tx) = (self.clipboard.clone(), self.tx.clone());
                tokio::spawn(async move {
                    let _ = tx.send(Msg::Copied(clipboard.copy(what, text).await));
                });
                None
            }
            Effect::Highlight(bounds) => {
                if let Some(f) = &self.frame {
                    f.show(bounds);
                }
                None
            }
            Effect::WriteCompleted(w) => {
                if self.app.recording
                    && let Some(r) = &self.recorder
                {
                    lock(r).record(&w);
                }
                None
            }
            Effect::Record { start } => {
                let Some(r) = &self.recorder else {
                    return Some(Msg::Recording {
                        on: false,
                        message: "recording is not available in this build (no workflow recorder)"
                            .into(),
                    });
                };
                let (app, window) = self
                    .app
                    .view
                    .shown
                    .as_ref()
                    .map(|s| (s.app_name.clone(), s.title.clone()))
                    .unwrap_or_default();
                let mut r = lock(r);
                Some(if start {
                    match r.start(&app, &window) {
                        Ok(m) => Msg::Recording {
                            on: true,
                            message: m,
                        },
                        Err(e) => Msg::Recording {
                            on: false,
                            message: format!("cannot record: {e}"),
                        },
                    }
                } else {
                    match r.stop() {
                        Ok(m) => Msg::Recording {
                            on: false,
                            message: m,
                        },
                        Err(e) => Msg::Recording {
                            on: false,
                            message: format!("recording stopped with an error: {e}"),
                        },
                    }
                })
            }
            Effect::Export => {
                let Some(r) = self.recorder.clone() else {
                    return Some(Msg::Notice(
                        "export needs the workflow recorder, which this build does not have".into(),
                    ));
                };
                // Writing the file blocks: off the UI task.
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let done = tokio::task::spawn_blocking(move || lock(&r).export()).await;
                    let _ = tx.send(Msg::Notice(match done {
                        Ok(Ok(m)) => m,
                        Ok(Err(e)) => format!("export failed: {e}"),
                        Err(e) => format!("export failed: {e}"),
                    }));
                });
                None
            }
            _ => None,
        }
    }
}

fn draw(terminal: &mut Terminal<CrosstermBackend<Stdout>>, app: &App) -> std::io::Result<()> {
    terminal.draw(|f| view::render(app, f)).map(|_| ())
}

/// Runs the TUI on the current terminal until the user quits or a signal stops it; the
/// terminal is restored either way before this returns.
pub async fn run(backend: Arc<dyn Backend>, opts: Options) -> Result<Ended, TuiError> {
    super::view::theme::set_no_colour(super::view::theme::no_colour_asked());
    install_panic_hook();
    // Listening before the terminal changes: a signal in between must not leave it raw.
    let mut signals = Signals::new()?;
    let _guard = Guard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    terminal.clear()?;
    let size = terminal.size()?;
    let mut bus = backend.subscribe();
    let (tx, mut rx) = mpsc::unbounded_channel();
    // A simulated app's elements have made-up bounds: a frame on the real screen would lie.
    let start = if backend.is_demo() {
        Err("the fixture app's elements are not on the screen".to_string())
    } else {
        FrameWindow::start()
    };
    let (frame, highlight) = match start {
        Ok((f, screen)) => (Some(f), Ok(screen)),
        Err(why) => (None, Err(why)),
    };
    let config = Config {
        backend: backend.name().to_string(),
        audit_reads: backend.audit_reads(),
        banner: opts.banner,
        open: opts.open,
        highlight: Some(highlight),
    };
    let mut lp = Loop {
        app: App::new(config, (size.width, size.height)),
        ctx: Arc::new(Ctx::new(backend)),
        tx,
        clipboard: Clipboard::default(),
        recorder: opts.recorder.map(|r| Arc::new(std::sync::Mutex::new(r))),
        frame,
        started: Instant::now(),
    };
    // The tree is painted as it arrives.
    lp.ctx.reads.want_partials();
    lp.ctx.backend.report_reads(lp.ctx.reads.clone());
    let fx = lp.app.init();
    lp.run(fx);
    let mut input = EventStream::new();
    let mut bus_open = true;
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    let mut ended = Ended::Quit;
    loop {
        if PANICKED.load(Ordering::SeqCst) {
            return Err(TuiError::Panicked);
        }
        if lp.app.quit {
            break;
        }
        if dirty {
            let due = last_draw.is_none_or(|t| t.elapsed() >= FRAME);
            if due {
                draw(&mut terminal, &lp.app)?;
                dirty = false;
                last_draw = Some(Instant::now());
            }
        }
        let wait = match (dirty, last_draw) {
            (true, Some(t)) => FRAME.saturating_sub(t.elapsed()),
            _ => Duration::from_secs(3600),
        };
        // While a tree read runs, its progress line is redrawn ten times a second and the
        // tree it has read so far is taken (`Ctx::reads`).
        let reading = lp.app.pending.snapshot_inflight || lp.app.view.loading;
        let wait = if reading {
            wait.min(PROGRESS_TICK)
        } else {
            wait
        };
        tokio::select! {
            ev = input.next() => match ev {
                Some(Ok(ev)) => {
                    if let Some(m) = term_msg(ev) {
                        lp.handle(m);
                        dirty = true;
                    }
                }
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
            Some(msg) = rx.recv() => {
                lp.handle(msg);
                dirty = true;
            }
            r = bus.recv(), if bus_open => {
                match r {
                    Ok(ev) => lp.handle(Msg::Backend(Box::new(ev))),
                    Err(broadcast::error::RecvError::Lagged(n)) => lp.handle(Msg::Lagged(n)),
                    Err(broadcast::error::RecvError::Closed) => bus_open = false,
                }
                dirty = true;
            }
            _ = tokio::time::sleep(wait) => {
                let now = if reading { lp.ctx.reads.nodes() } else { None };
                if now != lp.app.view.read_progress {
                    lp.app.view.read_progress = now;
                    dirty = true;
                }
                if reading && let Some((root, snap)) = lp.ctx.reads.take_partial() {
                    lp.handle(Msg::Partial { root, snap: Box::new(snap) });
                    dirty = true;
                }
            }
            signal = signals.recv() => {
                ended = signal;
                break;
            }
        }
        // Coalesce: take everything already waiting before the next frame.
        for _ in 0..10_000 {
            let msg = match rx.try_recv() {
                Ok(m) => m,
                Err(_) => match bus.try_recv() {
                    Ok(ev) => Msg::Backend(Box::new(ev)),
                    Err(broadcast::error::TryRecvError::Lagged(n)) => Msg::Lagged(n),
                    Err(_) => break,
                },
            };
            lp.handle(msg);
            dirty = true;
        }
    }
    drop(terminal);
    Ok(ended)
}
