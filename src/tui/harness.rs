//! A headless driver for tests and benchmarks: the real `App` and the real effect runner over
//! any backend, drawn into a `TestBackend`. Waits are for conditions on the app (a write's
//! verdict, a node appearing), never fixed sleeps.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::text::Span;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::TryRecvError;

use super::app::{App, CompletedWrite, Config, Effect, Msg, TimerId};
use super::exec::{self, Ctx, Job, Work};
use super::view;
use crate::backend::{Backend, Event};
use crate::model::Bounds;

/// The app, its effect runner and a test terminal.
pub struct Harness {
    pub app: App,
    pub terminal: Terminal<TestBackend>,
    pub ctx: Arc<Ctx>,
    jobs: FuturesUnordered<Job>,
    events: broadcast::Receiver<Event>,
    /// Texts put on the (fake) clipboard.
    pub copied: Vec<String>,
    /// Completed writes reported through the recorder hook.
    pub completed: Vec<CompletedWrite>,
    /// Every on-screen highlight change asked for, in order (`None`: taken away).
    pub highlights: Vec<Option<Bounds>>,
    /// How many whole reads of a window the app asked for.
    pub reads: usize,
    /// How many times the app asked for the read in progress to stop.
    pub cancels: usize,
}

/// A condition that did not come true in time, with the screen at that moment.
#[derive(Debug)]
pub struct Timeout {
    pub waited_for: String,
    pub screen: String,
}

impl std::fmt::Display for Timeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "timed out waiting for {}\n{}",
            self.waited_for, self.screen
        )
    }
}

impl Harness {
    /// A harness over `backend` with a `width` × `height` screen; nothing is read yet.
    pub fn new(
        backend: Arc<dyn Backend>,
        width: u16,
        height: u16,
        banner: Option<String>,
    ) -> Harness {
        let config = Config {
            banner,
            ..Config::default()
        };
        Harness::with_config(backend, width, height, config)
    }

    /// A harness with the given settings (the backend's name is filled in).
    pub fn with_config(
        backend: Arc<dyn Backend>,
        width: u16,
        height: u16,
        mut config: Config,
    ) -> Harness {
        let events = backend.subscribe();
        config.backend = backend.name().to_string();
        config.audit_reads = backend.audit_reads();
        let ctx = Arc::new(Ctx::new(backend));
        // A TestBackend cannot fail to build a terminal.
        let terminal = match Terminal::new(TestBackend::new(width, height)) {
            Ok(t) => t,
            Err(e) => match e {},
        };
        Harness {
            app: App::new(config, (width, height)),
            terminal,
            ctx,
            jobs: FuturesUnordered::new(),
            events,
            copied: Vec::new(),
            completed: Vec::new(),
            highlights: Vec::new(),
            reads: 0,
            cancels: 0,
        }
    }

    /// Starts the app and waits until the first window's tree and its details are read.
    pub async fn start(
        backend: Arc<dyn Backend>,
        width: u16,
        height: u16,
        banner: Option<String>,
    ) -> Result<Harness, Timeout> {
        Harness::start_with(Harness::new(backend, width, height, banner)).await
    }

    /// Starts a harness made with [`Harness::with_config`], as [`Harness::start`] does.
    pub async fn start_with(mut h: Harness) -> Result<Harness, Timeout> {
        let fx = h.app.init();
        h.run(fx);
        h.settle().await?;
        Ok(h)
    }

    /// Runs effects: IO becomes jobs, local effects are handled here. The app-list poll is
    /// left out so that [`Harness::settle`] can finish.
    pub fn run(&mut self, effects: Vec<Effect>) {
        for e in effects {
            if matches!(
                e,
                Effect::Timer {
                    id: TimerId::AppsPoll,
                    ..
                }
            ) {
                continue;
            }
            if matches!(e, Effect::Snapshot { .. }) {
                self.reads += 1;
            }
            if matches!(e, Effect::CancelRead) {
                self.cancels += 1;
            }
            match exec::plan(&self.ctx, e) {
                Work::Job(j) => self.jobs.push(j),
                Work::Local(local) => self.local(local),
            }
        }
    }

    fn local(&mut self, e: Effect) {
        let msg = match e {
            Effect::Copy { what, text } => {
                self.copied.push(text);
                Msg::Copied(Ok(format!("copied the {what}")))
            }
            Effect::WriteCompleted(w) => {
                self.completed.push(*w);
                return;
            }
            Effect::Record { start } => Msg::Recording {
                on: start,
                message: if start { "recording" } else { "stopped" }.into(),
            },
            Effect::Export => Msg::Notice("export is the recorder's job".into()),
            Effect::Highlight(b) => {
                self.highlights.push(b);
                return;
            }
            _ => return,
        };
        self.send(msg);
    }

    /// Feeds a message to the app and runs its effects.
    pub fn send(&mut self, msg: Msg) {
        let fx = self.app.update(msg);
        self.run(fx);
    }

    /// Presses one key.
    pub fn key(&mut self, code: KeyCode) {
        self.send(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    /// Presses Ctrl + `c`.
    pub fn ctrl(&mut self, c: char) {
        self.send(Msg::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        )));
    }

    /// Types each character of `s` as a key press.
    pub fn type_str(&mut self, s: &str) {
        for c in s.chars() {
            let code = match c {
                '\n' => KeyCode::Enter,
                '\x1b' => KeyCode::Esc,
                c => KeyCode::Char(c),
            };
            self.key(code);
        }
    }

    /// Opens the filter bar and replaces its text with `text` (without pressing Enter).
    pub fn filter(&mut self, text: &str) {
        self.key(KeyCode::Char('/'));
        self.ctrl('u');
        self.type_str(text);
    }

    /// Filters for `target` and presses Enter: the first match is selected.
    pub fn select(&mut self, target: &str) {
        self.filter(target);
        self.key(KeyCode::Enter);
    }

    /// Whether the tree holds a node named `name`.
    pub fn has_node(&self, name: &str) -> bool {
        self.app
            .view
            .tree
            .as_ref()
            .is_some_and(|t| t.snap.nodes.iter().any(|n| n.name == name))
    }

    /// Waits for the newest write to finish and returns its outcome.
    pub async fn verdict(&mut self) -> Result<crate::write::Outcome, Timeout> {
        self.until("the write's verdict", Duration::from_secs(10), |a| {
            a.last_outcome().is_some()
        })
        .await?;
        self.app.last_outcome().ok_or_else(|| Timeout {
            waited_for: "a verdict".into(),
            screen: String::new(),
        })
    }

    /// Applies every event the backend has sent so far.
    pub fn drain_events(&mut self) {
        loop {
            match self.events.try_recv() {
                Ok(ev) => self.send(Msg::Backend(Box::new(ev))),
                Err(TryRecvError::Lagged(n)) => self.send(Msg::Lagged(n)),
                Err(_) => break,
            }
        }
    }

    /// Runs jobs and events until `pred` holds, or fails after `timeout` with the screen.
    pub async fn until(
        &mut self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&App) -> bool,
    ) -> Result<(), Timeout> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            self.drain_events();
            if pred(&self.app) {
                return Ok(());
            }
            tokio::select! {
                Some(msg) = self.jobs.next() => self.send(msg),
                r = self.events.recv() => match r {
                    Ok(ev) => self.send(Msg::Backend(Box::new(ev))),
                    Err(broadcast::error::RecvError::Lagged(n)) => self.send(Msg::Lagged(n)),
                    Err(broadcast::error::RecvError::Closed) => {}
                },
                _ = tokio::time::sleep_until(deadline) => {
                    return Err(Timeout { waited_for: what.to_string(), screen: self.render() });
                }
            }
        }
    }

    /// Runs until no job is left and no event is waiting (at most 10 s).
    pub async fn settle(&mut self) -> Result<(), Timeout> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            self.drain_events();
            match tokio::time::timeout(
                deadline.saturating_duration_since(Instant::now()),
                self.jobs.next(),
            )
            .await
            {
                Ok(Some(msg)) => self.send(msg),
                Ok(None) => {
                    // Let spawned backend work (late writes, transforms) post its events.
                    tokio::task::yield_now().await;
                    self.drain_events();
                    if self.jobs.is_empty() {
                        return Ok(());
                    }
                }
                Err(_) => {
                    return Err(Timeout {
                        waited_for: "the app to settle".into(),
                        screen: self.render(),
                    });
                }
            }
        }
    }

    /// Applies the pending burst now instead of after the debounce, awaiting the single-node
    /// reads it asks for (benchmarks measure an event's cost without the deliberate wait).
    pub async fn flush_now(&mut self) {
        let mut fx = Vec::new();
        self.app.flush(&mut fx);
        for e in fx {
            match exec::plan(&self.ctx, e) {
                Work::Job(j) => {
                    let msg = j.await;
                    self.send(msg);
                }
                Work::Local(l) => self.local(l),
            }
        }
    }

    /// Draws a frame.
    pub fn draw(&mut self) {
        let app = &self.app;
        // Drawing into a TestBackend cannot fail.
        let _ = self.terminal.draw(|f| view::render(app, f));
    }

    /// Draws a frame and returns it as text (see [`screen_text`]).
    pub fn render(&mut self) -> String {
        self.draw();
        screen_text(self.terminal.backend())
    }
}

/// The test screen as text, one line per row, trailing spaces trimmed, with run-to-run
/// differences made stable: snapshot ids become `s########` and read-back times `+t ms`.
pub fn screen_text(backend: &TestBackend) -> String {
    let buf = backend.buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        let mut skip = 0usize;
        for x in 0..buf.area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = buf[(x, y)].symbol();
            line.push_str(sym);
            skip = Span::raw(sym).width().saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    redact(&out)
}

/// Replaces what differs between runs: snapshot ids and timings.
pub fn redact(s: &str) -> String {
    use std::sync::OnceLock;
    static RES: OnceLock<Option<(regex::Regex, regex::Regex)>> = OnceLock::new();
    let res = RES.get_or_init(|| {
        Some((
            regex::Regex::new(r"\bs[0-9a-f]{8}\b").ok()?,
            regex::Regex::new(r" *\+[0-9]+\.[0-9] ms").ok()?,
        ))
    });
    match res {
        Some((ids, times)) => {
            let s = ids.replace_all(s, "s########");
            times.replace_all(&s, " +t ms").into_owned()
        }
        None => s.to_string(),
    }
}
