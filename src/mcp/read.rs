//! The read-only tools: `list_apps`, `get_window_state` (a fresh snapshot, kept by the session
//! so its tokens can be used, folded, with a token and a suggested target per node) and `find`.

use serde_json::{Map, Value as Json};

use super::element::parse_target;
use super::reply::{Fault, Reply};
use super::tools::{AuditArgs, FindArgs, WindowStateArgs};
use crate::app::audit::{self, Audited};
use crate::app::locate::{self, as_reported, resolution_kind};
use crate::app::scope::{app_gone, read_kept};
use crate::app::{Kind, output, pick};
use crate::backend::Limits;
use crate::fold;
use crate::model::{Snapshot, Truncation};
use crate::session::Session;

/// `list_apps`: `apps --json`.
pub async fn list_apps(session: &Session) -> Result<Reply, Fault> {
    let backend = session.backend.as_ref();
    let apps = backend.apps().await?;
    Ok(Reply::ok(
        output::apps_json(backend.name(), &apps),
        output::apps_text(&apps),
    ))
}

/// `get_window_state`: `tree --json --targets`, folded unless `raw`, with the app's pid.
pub async fn window_state(session: &Session, args: &WindowStateArgs) -> Result<Reply, Fault> {
    let (app, root) = pick(session.backend.as_ref(), &args.scope()).await?;
    let limits = Limits {
        max_nodes: args.max_nodes.unwrap_or(Limits::default().max_nodes).max(1),
        // Suggested targets may name an element by its label.
        labels: true,
        ..Limits::default()
    };
    let snap = read_kept(session, &app, &root, &limits, as_reported).await?;
    let raw = args.raw.unwrap_or(false);
    let targets = output::suggested_all(&snap);
    let mut doc = tree_json(&snap, &targets, raw);
    doc["pid"] = app.pid.into();
    let text = output::tree_text(&snap, raw, Some(&targets));
    let reply = Reply::ok(doc, text);
    Ok(if snap.truncated == Some(Truncation::AppGone) {
        reply.fault(app_gone(&app, "the read").into())
    } else {
        reply
    })
}

/// `audit`: `audit --json` of a fresh read kept by the session (its tokens can be used with
/// the other tools); findings are exit code 14, a read that was not whole 12, 8 or 6.
pub async fn audit(session: &Session, args: &AuditArgs) -> Result<Reply, Fault> {
    let rules = args.rules.clone().unwrap_or_default();
    let severity = args.min_severity.as_deref().unwrap_or("review");
    let Audited {
        app,
        snap,
        audit: a,
        kind,
    } = audit::run(session, &args.scope(), &rules, severity, as_reported).await?;
    let mut doc = crate::audit::report::json(&a, &snap);
    doc["pid"] = app.pid.into();
    let why = match kind {
        Some(Kind::Findings) => "findings at or above min_severity (see rules)",
        _ => "the tree was not read whole: the audit covers only what was read",
    };
    Ok(Reply::coded(
        doc,
        crate::audit::report::text(&a, &snap),
        kind,
        why,
    ))
}

/// One node as `tree --json` writes it (the `actions` only when the read asked for them), with
/// its suggested `target` and, when folding hid wrappers above it, how many (`folded`).
fn node_doc(
    snap: &Snapshot,
    row: usize,
    targets: &[Option<output::Suggested>],
    folded: usize,
) -> Json {
    let mut v = output::node_json(snap, row);
    if let Json::Object(m) = &mut v {
        if snap.nodes[row].actions.is_empty() {
            m.remove("actions");
        }
        let s = targets.get(row).and_then(Option::as_ref);
        m.insert(
            "target".into(),
            s.map_or(Json::Null, |s| Json::String(s.target.clone())),
        );
        m.insert(
            "grade".into(),
            s.map_or(Json::Null, |s| serde_json::json!(s.grade)),
        );
        if folded > 0 {
            m.insert("folded".into(), folded.into());
        }
        m.insert("children".into(), Json::Array(Vec::new()));
    }
    v
}

/// The snapshot as `tree --json --targets` lays it out, over the folded lines (every line a
/// node; a wrapper folded away leaves its child in its place). Built level by level without
/// recursion.
pub fn tree_json(snap: &Snapshot, targets: &[Option<output::Suggested>], raw: bool) -> Json {
    let lines = fold::lines(snap, raw, &|_| false);
    // Open nodes on the path to the current line, with their levels.
    let mut open: Vec<(usize, Json)> = Vec::new();
    let mut root = Json::Null;
    let close = |open: &mut Vec<(usize, Json)>, root: &mut Json| {
        if let Some((_, done)) = open.pop() {
            match open.last_mut() {
                Some((_, parent)) => {
                    if let Some(Json::Array(kids)) = parent.get_mut("children") {
                        kids.push(done);
                    }
                }
                None => *root = done,
            }
        }
    };
    for line in &lines {
        while open.last().is_some_and(|(level, _)| *level >= line.level) {
            close(&mut open, &mut root);
        }
        open.push((line.level, node_doc(snap, line.row, targets, line.folded)));
    }
    while !open.is_empty() {
        close(&mut open, &mut root);
    }
    let mut m = Map::new();
    m.insert("app".into(), snap.app.as_str().into());
    m.insert("complete".into(), snap.complete().into());
    m.insert("folded".into(), (!raw).into());
    m.insert("node_count".into(), snap.nodes.len().into());
    m.insert("partial".into(), snap.partial().into());
    m.insert(
        "read_ms".into(),
        ((snap.read_ms * 100.0).round() / 100.0).into(),
    );
    m.insert("root".into(), root);
    m.insert("shown".into(), lines.len().into());
    m.insert("snapshot".into(), snap.id.to_string().into());
    m.insert(
        "truncated".into(),
        snap.truncated.map(|t| t.as_str()).into(),
    );
    m.insert("unreadable".into(), snap.unreadable.into());
    m.insert("window".into(), snap.window.as_str().into());
    Json::Object(m)
}

/// `find`: `find --json`; not unique is an error with the resolution's exit code.
pub async fn find(session: &Session, args: &FindArgs) -> Result<Reply, Fault> {
    let target = parse_target(&args.target)?;
    let resolved = locate::resolve(
        session,
        &target,
        &args.scope(),
        locate::wait(args.wait_ms),
        &Limits::default(),
        false,
        as_reported,
    )
    .await?;
    let fresh = &resolved.fresh;
    let text = output::resolution_text(&target, fresh);
    let message = text.lines().next().unwrap_or_default().to_string();
    Ok(Reply::coded(
        output::find_json(&target, fresh),
        text,
        resolution_kind(&fresh.resolution),
        &message,
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_folded_tree_keeps_every_shown_node_once_with_its_token_and_target() {
        let snap = output::demo_window().await;
        let targets = output::suggested_all(&snap);
        for raw in [false, true] {
            let doc = tree_json(&snap, &targets, raw);
            let mut rows = Vec::new();
            let mut stack = vec![&doc["root"]];
            while let Some(n) = stack.pop() {
                let row = n["row"].as_u64().unwrap() as usize;
                assert_eq!(n["token"], snap.token(row).to_string());
                assert_eq!(
                    n["target"].as_str(),
                    targets[row].as_ref().map(|s| s.target.as_str())
                );
                rows.push(row);
                stack.extend(n["children"].as_array().unwrap().iter());
            }
            rows.sort_unstable();
            let shown: Vec<usize> = fold::lines(&snap, raw, &|_| false)
                .iter()
                .map(|l| l.row)
                .collect();
            let mut expected = shown.clone();
            expected.sort_unstable();
            assert_eq!(rows, expected);
            assert_eq!(doc["shown"], shown.len());
            if raw {
                assert_eq!(rows.len(), snap.nodes.len());
            }
        }
    }
}
