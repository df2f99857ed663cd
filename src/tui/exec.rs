//! Running effects that need the backend or time: each becomes a future that resolves to the
//! message carrying its result. Shared by the terminal runtime and the test harness, so tests
//! exercise the same IO paths as the real program.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::app::write::{Act, send};
use crate::backend::progress::ReadProgress;
use crate::backend::{Backend, Limits};
use crate::write::{self, WriteOptions};

use super::app::{BeforeWrite, Effect, Msg};
use crate::model::NodeId;

/// What the effect runner needs.
pub struct Ctx {
    pub backend: Arc<dyn Backend>,
    pub limits: Limits,
    pub write: WriteOptions,
    /// How far the backend's tree read has got, the tree so far, and Esc's cancel
    /// (`Backend::report_reads`, handed over by the runtime).
    pub reads: Arc<ReadProgress>,
}

impl Ctx {
    /// Defaults for the TUI: trees up to 200,000 nodes (a large document), with the label
    /// relation of every interactive element (the accessibility checks need it to tell an
    /// unnamed field from a labelled one), default write knobs.
    pub fn new(backend: Arc<dyn Backend>) -> Ctx {
        Ctx {
            backend,
            limits: Limits {
                max_nodes: 200_000,
                labels: true,
                ..Limits::default()
            },
            write: WriteOptions::default(),
            reads: Arc::default(),
        }
    }
}

/// A write's change set when it is not verified (`write::landed`), against the tree shown when
/// it started.
async fn changes(
    ctx: &Ctx,
    before: &BeforeWrite,
    node: &NodeId,
    result: &mut write::WriteResult,
    typed: Option<&str>,
) -> Option<Box<write::landed::Landed>> {
    let b = write::landed::Before {
        app: before.app.as_ref(),
        root: &before.root,
        snapshot: &before.snap,
        narrowed: false,
    };
    write::landed::after_write(
        ctx.backend.as_ref(),
        &b,
        node,
        result,
        write::landed::When::Unverified,
        typed,
        if before.secret {
            write::landed::Values::Hidden
        } else {
            write::landed::Values::Shown
        },
    )
    .await
    .map(Box::new)
}

/// A running effect.
pub type Job = Pin<Box<dyn Future<Output = Msg> + Send>>;

/// An effect, sorted: IO that resolves to a message, or one the caller handles itself
/// (clipboard, recorder hooks).
pub enum Work {
    Job(Job),
    Local(Effect),
}

/// Turns an effect into work.
pub fn plan(ctx: &Arc<Ctx>, effect: Effect) -> Work {
    let ctx = ctx.clone();
    match effect {
        Effect::LoadApps => Work::Job(Box::pin(async move { Msg::Apps(ctx.backend.apps().await) })),
        Effect::Diagnose => Work::Job(Box::pin(async move {
            Msg::Diagnosed(ctx.backend.diagnose().await.map(Box::new))
        })),
        Effect::Snapshot { root } => Work::Job(Box::pin(async move {
            let result = ctx.backend.snapshot(&root, &ctx.limits).await.map(Box::new);
            Msg::Snapshot { root, result }
        })),
        Effect::ReadNodes { ids, details } => Work::Job(Box::pin(async move {
            let reads = ids.iter().map(|id| ctx.backend.read_node(id));
            let nodes = futures::future::join_all(reads).await;
            let unplaced = match nodes.first() {
                Some(Ok(n)) if details && n.bounds.is_none() => ctx.backend.screen_note(&n.id),
                _ => None,
            };
            Msg::NodesRead {
                results: ids.into_iter().zip(nodes).collect(),
                details,
                unplaced,
            }
        })),
        Effect::SetValue {
            write,
            node,
            place,
            value,
        } => Work::Job(Box::pin(async move {
            let act = Act::Set(&value);
            let result = send(ctx.backend.as_ref(), &node, &place, act, &ctx.write).await;
            Msg::WriteDone {
                write,
                result: Box::new(result),
            }
        })),
        Effect::Landed {
            write,
            node,
            mut result,
            before,
            typed,
        } => Work::Job(Box::pin(async move {
            let landed = changes(&ctx, &before, &node, &mut result, typed.as_deref()).await;
            Msg::Landed {
                write,
                landed,
                advice: result.advice,
            }
        })),
        Effect::Invoke {
            write,
            node,
            place,
            action,
        } => Work::Job(Box::pin(async move {
            let act = Act::Invoke(action.as_deref());
            let result = send(ctx.backend.as_ref(), &node, &place, act, &ctx.write).await;
            Msg::WriteDone {
                write,
                result: Box::new(result),
            }
        })),
        Effect::CancelRead => Work::Job(Box::pin(async move {
            ctx.reads.cancel();
            Msg::Notice("stopping the read: the tree keeps what was read".into())
        })),
        Effect::AuditFacts { snap, on_screen } => Work::Job(Box::pin(async move {
            let result = ctx.backend.audit_facts(&snap, on_screen).await;
            Msg::AuditFacts { snap, result }
        })),
        Effect::Timer { id, after } => Work::Job(Box::pin(async move {
            tokio::time::sleep(after).await;
            Msg::Timer(id)
        })),
        other @ (Effect::Copy { .. }
        | Effect::WriteCompleted(_)
        | Effect::Record { .. }
        | Effect::Export
        | Effect::Highlight(_)) => Work::Local(other),
    }
}
