//! Reading a write back: poll the element until its value holds still for the settle window (or
//! the timeout passes), and after the verdict keep watching it for the watch window, so a field
//! that puts its old value back later is caught. Only these reads are evidence.

use std::time::Duration;

use tokio::time::Instant;

use super::engine::{Sample, WriteOptions, WriteResult, ms};
use super::rules::{Observed, Requested, observe, satisfies};
use crate::backend::{Backend, BackendError, Event};
use crate::model::NodeId;

/// How a read-back ended.
pub enum ReadBack {
    /// The value held still for the settle window.
    Settled(Observed),
    /// The timeout passed while the value still moved, or stayed at `before`.
    TimedOut(Observed),
    /// The element could not be read any more.
    Gone(String),
}

/// What one element's read-back compares.
pub struct Watch<'a> {
    pub backend: &'a dyn Backend,
    pub id: &'a NodeId,
    pub req: &'a Requested,
    pub step: f64,
    pub secret: bool,
    /// When the first op went out (sample times count from here).
    pub dispatch_at: Instant,
    /// The text is being typed key by key (the keyboard path): a value that is the start of
    /// the text asked for may still be arriving, so it does not settle before the timeout.
    pub typing: bool,
}

impl Watch<'_> {
    /// Whether `obs` is a proper start of the text being typed: a busy app (a big web page)
    /// takes the keys one by one, sometimes more than the settle window apart.
    fn still_typing(&self, obs: &Observed) -> bool {
        match (self.typing, self.req, obs) {
            // A secret reads back masked: only its length can say it is still arriving.
            (true, Requested::Text(asked), Observed::Text(got)) if self.secret => {
                got.as_str().chars().count() < asked.chars().count()
            }
            (true, Requested::Text(asked), Observed::Text(got)) => {
                let got = got.as_str();
                got.len() < asked.len() && asked.starts_with(got)
            }
            _ => false,
        }
    }

    /// Polls until the value settles or the timeout passes. `before` is the value the write
    /// started from: a value still equal to it may be a late write, so it is waited for.
    /// Every distinct value is appended to `history` and to the result's samples.
    pub async fn settle(
        &self,
        before: &Observed,
        opts: &WriteOptions,
        res: &mut WriteResult,
        history: &mut Vec<Observed>,
    ) -> ReadBack {
        let deadline = Instant::now() + opts.timeout;
        let mut last: Option<(Observed, Instant)> = None;
        let mut failures = 0;
        loop {
            let now = Instant::now();
            let read = self.backend.read_node(self.id).await;
            let at_ms = ms(self.dispatch_at.elapsed());
            match read {
                Ok(node) => {
                    let obs = observe(&node, self.req);
                    let changed = last.as_ref().is_none_or(|(o, _)| *o != obs);
                    if changed || res.samples.len() < 2 {
                        res.samples.push(Sample {
                            at_ms,
                            value: obs.display(self.secret),
                        });
                    }
                    if changed {
                        history.push(obs.clone());
                        last = Some((obs, now));
                    }
                }
                Err(e @ BackendError::AppGone { .. }) => {
                    res.samples.push(Sample {
                        at_ms,
                        value: format!("({e})"),
                    });
                    return ReadBack::Gone(format!("{e} after the write"));
                }
                Err(BackendError::Vanished(e)) => {
                    res.samples.push(Sample {
                        at_ms,
                        value: format!("(vanished: {e})"),
                    });
                    return ReadBack::Gone(format!("the element vanished after the write ({e})"));
                }
                Err(e) => {
                    failures += 1;
                    res.samples.push(Sample {
                        at_ms,
                        value: format!("(read failed: {e})"),
                    });
                    if failures >= 3 {
                        return ReadBack::Gone(format!("read-back failed: {e}"));
                    }
                }
            }
            if let Some((obs, since)) = &last {
                let held = Instant::now().duration_since(*since);
                // A value still equal to `before` may be a late write: keep waiting for it.
                let moved = obs != before || self.secret && matches!(self.req, Requested::Text(_));
                if held >= opts.settle
                    && (moved || satisfies(self.req, obs, self.step))
                    && !self.still_typing(obs)
                {
                    res.timings.settle_wait_ms += ms(opts.settle);
                    return ReadBack::Settled(obs.clone());
                }
            }
            if Instant::now() >= deadline {
                return match last {
                    Some((obs, _)) => ReadBack::TimedOut(obs),
                    None => ReadBack::Gone("no read-back succeeded before the timeout".into()),
                };
            }
            tokio::time::sleep(
                opts.poll
                    .min(deadline.saturating_duration_since(Instant::now())),
            )
            .await;
        }
    }

    /// Keeps watching the element for `window` after the verdict: re-read on each of its
    /// events, and every `every` in any case (not every toolkit sends one). Returns the first
    /// value that differs from `settled`, with when it was seen.
    pub async fn after_verdict(
        &self,
        settled: &Observed,
        window: Duration,
        every: Duration,
        events: &mut tokio::sync::broadcast::Receiver<Event>,
    ) -> Option<(Observed, f64)> {
        let end = Instant::now() + window;
        loop {
            let now = Instant::now();
            if now >= end {
                return None;
            }
            let wait = every.min(end - now);
            // An event from the element ends the wait early; others are drained.
            let _ = tokio::time::timeout(wait, async {
                loop {
                    match events.recv().await {
                        Ok(ev) if &ev.source == self.id => break,
                        Ok(_) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                        Err(_) => std::future::pending::<()>().await,
                    }
                }
            })
            .await;
            match self.backend.read_node(self.id).await {
                Ok(node) => {
                    let obs = observe(&node, self.req);
                    if obs != *settled {
                        return Some((obs, ms(self.dispatch_at.elapsed())));
                    }
                }
                // Gone after a settled verdict: nothing more to compare.
                Err(_) => return None,
            }
        }
    }
}
