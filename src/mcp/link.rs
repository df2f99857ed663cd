//! The backend the server works on, connected when a call first needs it rather than before
//! the server answers: `initialize`, `tools/list`, `doctor` and the tools that need no
//! backend answer whatever its state, and a tool that needs it answers the command line's
//! error (same kind, exit code and words) while it cannot start. A failed attempt is tried
//! again by the first call after [`RETRY_AFTER`], so a bus that appears after the server
//! started is connected to without a restart, and a client calling in a loop does not make
//! the server try in a loop.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

// tokio's clock, so the back-off is tested in paused time.
use tokio::time::Instant;

use super::reply::Fault;
use crate::app::{Error, Kind};
use crate::backend::Backend;
use crate::backend::pick::CONNECT_TIMEOUT;
use crate::session::Session;

/// One attempt to connect the backend the server was started for.
pub type Connect = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<Arc<dyn Backend>, Error>> + Send>> + Send + Sync,
>;

/// After a failed attempt, calls within this long get its answer without a new attempt.
pub const RETRY_AFTER: Duration = Duration::from_secs(1);

/// The longest one attempt may take. A backend bounds its own connection by
/// [`CONNECT_TIMEOUT`]; this is the net under it, so a call never waits on a connection for
/// ever.
const ATTEMPT_LIMIT: Duration = Duration::from_secs(CONNECT_TIMEOUT.as_secs() + 2);

enum Linked {
    /// No attempt yet.
    Idle,
    Up(Arc<Session>),
    /// The last attempt failed, at `at`.
    Down {
        error: Error,
        at: Instant,
    },
}

/// The server's backend: connected, or why not and when it is tried again.
pub struct Link {
    connect: Connect,
    /// Held across an attempt: calls that come meanwhile share its outcome.
    linked: tokio::sync::Mutex<Linked>,
}

impl Link {
    /// A backend connected by `connect` when a call needs it.
    pub fn new(connect: Connect) -> Link {
        Link {
            connect,
            linked: tokio::sync::Mutex::new(Linked::Idle),
        }
    }

    /// A backend already connected (the demo app, tests, benchmarks).
    pub fn up(session: Arc<Session>) -> Link {
        let connect: Connect = {
            let backend = session.backend.clone();
            Arc::new(move || {
                let backend = backend.clone();
                Box::pin(async move { Ok(backend) })
            })
        };
        Link {
            connect,
            linked: tokio::sync::Mutex::new(Linked::Up(session)),
        }
    }

    /// The session on the connected backend; connects first when there is none and the last
    /// attempt is older than [`RETRY_AFTER`]. A bad `--backend` (a usage error) is never tried
    /// again: only a restart with another one helps.
    pub async fn session(&self) -> Result<Arc<Session>, Fault> {
        let mut linked = self.linked.lock().await;
        match &*linked {
            Linked::Up(session) => return Ok(session.clone()),
            Linked::Down { error, .. } if error.kind == Kind::Usage => {
                return Err(Fault::from(error.clone()));
            }
            Linked::Down { error, at } => {
                let since = at.elapsed();
                if since < RETRY_AFTER {
                    return Err(unavailable(error, RETRY_AFTER - since));
                }
            }
            Linked::Idle => {}
        }
        let attempt = match tokio::time::timeout(ATTEMPT_LIMIT, (self.connect)()).await {
            Ok(r) => r,
            Err(_) => Err(Error::new(
                Kind::BusUnavailable,
                format!(
                    "the backend did not connect within {} ms",
                    ATTEMPT_LIMIT.as_millis()
                ),
            )),
        };
        match attempt {
            Ok(backend) => {
                tracing::info!(backend = backend.name(), "mcp: backend connected");
                let session = Arc::new(Session::new(backend));
                *linked = Linked::Up(session.clone());
                Ok(session)
            }
            Err(error) => {
                tracing::warn!(
                    kind = error.kind.name(),
                    "mcp: no backend: {}",
                    error.message
                );
                let fault = if error.kind == Kind::Usage {
                    Fault::from(error.clone())
                } else {
                    unavailable(&error, RETRY_AFTER)
                };
                *linked = Linked::Down {
                    error,
                    at: Instant::now(),
                };
                Err(fault)
            }
        }
    }
}

/// The error of a backend that could not start: the command line's kind and words, and when
/// the next call tries again.
fn unavailable(error: &Error, retry_in: Duration) -> Fault {
    Fault::from(error.clone()).with("retry_after_ms", retry_in.as_millis() as u64)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A connector that fails `failures` times, then connects the demo app; counts attempts.
    fn flaky(failures: usize) -> (Connect, Arc<AtomicUsize>) {
        let attempts = Arc::new(AtomicUsize::new(0));
        let counted = attempts.clone();
        let connect: Connect = Arc::new(move || {
            let n = counted.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                if n < failures {
                    Err(Error::new(
                        Kind::BusUnavailable,
                        "accessibility bus unavailable: no session bus",
                    ))
                } else {
                    Ok(crate::backend::pick::demo())
                }
            })
        });
        (connect, attempts)
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap()
    }

    #[test]
    fn a_failed_attempt_answers_until_the_back_off_ends_then_the_next_call_connects() {
        rt().block_on(async {
            let (connect, attempts) = flaky(2);
            let link = Link::new(connect);
            let f = link.session().await.err().unwrap();
            assert_eq!(f.kind, Kind::BusUnavailable);
            assert_eq!(f.message, "accessibility bus unavailable: no session bus");
            assert_eq!(f.extra["retry_after_ms"], 1000);
            // Calls within the back-off get the same answer, and no attempt is made.
            tokio::time::advance(Duration::from_millis(400)).await;
            for _ in 0..50 {
                let f = link.session().await.err().unwrap();
                assert_eq!(f.extra["retry_after_ms"], 600);
            }
            assert_eq!(attempts.load(Ordering::SeqCst), 1);
            // The first call after it tries again (and fails again here).
            tokio::time::advance(Duration::from_millis(600)).await;
            assert!(link.session().await.is_err());
            assert_eq!(attempts.load(Ordering::SeqCst), 2);
            tokio::time::advance(RETRY_AFTER).await;
            let session = link.session().await.unwrap();
            assert_eq!(session.backend.name(), "fixture");
            assert_eq!(attempts.load(Ordering::SeqCst), 3);
            // Connected: the same session from then on, no attempt more.
            let again = link.session().await.unwrap();
            assert!(Arc::ptr_eq(&session, &again));
            assert_eq!(attempts.load(Ordering::SeqCst), 3);
        });
    }

    #[test]
    fn calls_during_an_attempt_share_it_and_a_bad_backend_name_is_never_tried_again() {
        rt().block_on(async {
            let attempts = Arc::new(AtomicUsize::new(0));
            let counted = attempts.clone();
            let slow: Connect = Arc::new(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                Box::pin(async {
                    tokio::time::sleep(Duration::from_secs(2)).await;
                    Ok(crate::backend::pick::demo())
                })
            });
            let link = Arc::new(Link::new(slow));
            let calls: Vec<_> = (0..5)
                .map(|_| {
                    let link = link.clone();
                    tokio::spawn(async move { link.session().await.is_ok() })
                })
                .collect();
            for c in calls {
                assert!(c.await.unwrap());
            }
            assert_eq!(attempts.load(Ordering::SeqCst), 1);

            let attempts = Arc::new(AtomicUsize::new(0));
            let counted = attempts.clone();
            let bad: Connect = Arc::new(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                Box::pin(async { Err(Error::usage("unknown backend `nope`")) })
            });
            let link = Link::new(bad);
            for _ in 0..3 {
                let f = link.session().await.err().unwrap();
                assert_eq!(f.kind, Kind::Usage);
                assert!(!f.extra.contains_key("retry_after_ms"));
                tokio::time::advance(RETRY_AFTER * 2).await;
            }
            assert_eq!(attempts.load(Ordering::SeqCst), 1);
        });
    }

    #[test]
    fn an_attempt_that_hangs_ends_within_its_limit() {
        rt().block_on(async {
            let hangs: Connect = Arc::new(|| Box::pin(std::future::pending()));
            let link = Link::new(hangs);
            let started = Instant::now();
            let f = link.session().await.err().unwrap();
            assert_eq!(f.kind, Kind::BusUnavailable);
            assert_eq!(started.elapsed(), ATTEMPT_LIMIT);
        });
    }
}
