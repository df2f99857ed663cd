//! The read-only tools: `list_apps`, `get_window_state` (a fresh snapshot, kept by the session
//! so its tokens can be used, folded, with a token and a suggested target per node) and `find`.

use serde_json::Value as Json;

use super::element::{parse_target, patience, resolution_words};
use super::reply::{Fault, Reply};
use super::tools::{AuditArgs, FindArgs, WindowStateArgs};
use crate::app::audit::{self, Audited};
use crate::app::locate::{self, Found, as_reported};
use crate::app::scope::{app_gone, read_kept, read_subtree_kept};
use crate::app::{Answer, Kind, output, pick, state};
use crate::backend::Limits;
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

/// The most findings an MCP audit lists under one rule (each says how many more there are).
pub const AUDIT_PER_RULE: usize = 25;

/// How big an answer may be by default, in bytes of structured content and text together
/// (about 25,000 tokens): peers cap theirs at 500–2,000 elements.
pub const BUDGET_DEFAULT: usize = 100_000;
/// The most an answer may be asked to hold.
pub const BUDGET_MAX: usize = 1_000_000;
/// What the document around the nodes takes (its header, what was left out, how to get more).
const FRAME_BYTES: usize = 3_000;

/// `get_window_state`: the window's tree — or a subtree, what is on screen, the actionable
/// elements, a target's matches — as [`crate::app::state`] shows it within the size budget,
/// every node with its token and suggested target; a cut answer says what it left out and how
/// to get the rest.
pub async fn window_state(session: &Session, args: &WindowStateArgs) -> Result<Reply, Fault> {
    let (app, window) = app_asked(session, args).await?;
    let limits = Limits {
        max_nodes: args.max_nodes.unwrap_or(Limits::default().max_nodes).max(1),
        // Suggested targets may name an element by its label.
        labels: true,
        ..args.scope().limits()
    };
    let budget = args
        .budget_bytes
        .unwrap_or(BUDGET_DEFAULT)
        .clamp(FRAME_BYTES + 1_000, BUDGET_MAX);
    let query = match &args.query {
        Some(q) => Some(parse_target(q)?),
        None => None,
    };
    let mut ask = state::Ask {
        raw: args.raw.unwrap_or(false),
        showing_only: args.showing_only.unwrap_or(false),
        interactive_only: args.interactive_only.unwrap_or(false),
        query,
        max_depth: None,
        budget: Some(budget - FRAME_BYTES),
        offset: 0,
    };
    let (snap, offset, under) = start(session, args, &app, &window, &limits, &ask).await?;
    ask.offset = offset;
    let (doc, text) = page(&snap, &app, under.as_ref(), ask, budget);
    let reply = Reply::ok(doc, text);
    Ok(if snap.truncated == Some(Truncation::AppGone) {
        reply.fault(app_gone(&app, "the read").into())
    } else {
        reply
    })
}

/// The app and window a `get_window_state` call reads: the ones its cursor or root token
/// names when it gives no scope (an agent on a desktop of many apps pages on, or reads a
/// subtree, with the token alone), else the scope's.
async fn app_asked(
    session: &Session,
    args: &WindowStateArgs,
) -> Result<(crate::backend::AppInfo, crate::model::NodeId), Fault> {
    let scope = args.scope();
    let named = match (&args.cursor, &args.root) {
        (Some(c), _) => state::parse_cursor(c).map(|(id, _, _)| id),
        (None, Some(r)) => r
            .as_str()
            .and_then(|s| s.parse::<crate::model::Token>().ok())
            .map(|t| t.snapshot),
        (None, None) => None,
    };
    let known = named
        .filter(|_| !scope.is_set())
        .and_then(|id| session.app_of(id));
    Ok(match known {
        Some(known) => known,
        None => pick(session.backend.as_ref(), &scope).await?,
    })
}

/// A subtree's path in its window and the window's name.
type Under = (String, crate::model::AppText);

/// Where an answer starts: a page of an earlier answer (its snapshot and the line it goes on
/// from), a subtree read now (with its path in the window), or the window read now.
async fn start(
    session: &Session,
    args: &WindowStateArgs,
    app: &crate::backend::AppInfo,
    window: &crate::model::NodeId,
    limits: &Limits,
    ask: &state::Ask,
) -> Result<(std::sync::Arc<Snapshot>, usize, Option<Under>), Fault> {
    Ok(match (&args.cursor, &args.root) {
        (Some(c), _) => {
            let (id, at, shape) = state::parse_cursor(c).ok_or_else(|| {
                Fault::usage(format!(
                    "{} is not a cursor (a next_cursor an answer gave, like s0000002a+412~1f3a09c2)",
                    crate::model::sanitize(c, 40)
                ))
            })?;
            if shape != ask.shape() {
                return Err(Fault::usage(format!(
                    "cursor {} continues an answer asked in another form: give it with the same \
                     raw, showing_only, interactive_only and query as the answer that gave it",
                    crate::model::sanitize(c, 40)
                )));
            }
            let token = crate::model::Token {
                snapshot: id,
                row: 0,
            };
            let (snap, _) = session.token(token).map_err(|e| {
                Fault::new(
                    Kind::Token,
                    format!("cursor {}: {e}", crate::model::sanitize(c, 40)),
                )
                .detail("stale_cursor")
            })?;
            (snap, at, None)
        }
        (None, Some(root)) => {
            let sub = subtree_root(session, app, window, root, limits).await?;
            let snap =
                read_subtree_kept(session, app, &sub.id, &sub.window, limits, as_reported).await?;
            (snap, 0, Some((sub.path, sub.window)))
        }
        (None, None) => (
            read_kept(session, app, window, limits, as_reported).await?,
            0,
            None,
        ),
    })
}

/// The answer's document and text for `ask`, within `budget` bytes as they go on the wire.
fn page(
    snap: &Snapshot,
    app: &crate::backend::AppInfo,
    under: Option<&Under>,
    mut ask: state::Ask,
    budget: usize,
) -> (Json, String) {
    // Targets are suggested for the lines an answer may hold only, as they are costed.
    let suggester = crate::selector::RowSuggester::new(None, snap);
    let made: std::cell::RefCell<Vec<Option<crate::selector::Target>>> =
        std::cell::RefCell::new(vec![None; snap.nodes.len()]);
    let suggested = |row: usize| {
        let mut m = made.borrow_mut();
        suggester.fill_rows(&mut m, [row]);
        m.get(row)
            .cloned()
            .flatten()
            .map(|t| output::Suggested::of(&t))
    };
    let cost = |l: &crate::fold::Line| {
        let s = suggested(l.row);
        let doc = output::node_brief(snap, l.row, s.as_ref(), l.folded);
        let path = if ask.interactive_only || ask.query.is_some() {
            2 * snap.path_string(l.row).len()
        } else {
            0
        };
        // The node in both forms, its nesting, and the text line around it.
        doc.to_string().len()
            + crate::model::display::node_line(&snap.nodes[l.row]).len()
            + s.map_or(0, |s| s.target.len())
            + path
            + 64
    };
    // The answer as written; its size measured as it goes on the wire (both forms, escaped).
    // The costs above are estimates: an answer over its budget is taken again with less room.
    let window = match under {
        Some((_, window)) => window.clone(),
        None => snap.window.clone(),
    };
    let raw = ask.raw;
    let answer = |ask: &state::Ask| {
        let shown = state::show(snap, ask, &cost);
        let targets: Vec<Option<output::Suggested>> = {
            let m = made.borrow();
            m.iter()
                .map(|t| t.as_ref().map(output::Suggested::of))
                .collect()
        };
        let mut doc = output::shown_doc(snap, &shown, &targets, !raw);
        doc["pid"] = app.pid.into();
        doc["budget_bytes"] = budget.into();
        doc["window"] = window.as_str().into();
        if let Some((path, _)) = under {
            doc["root_path"] = path.as_str().into();
        }
        let more = more(snap, &shown, ask);
        if !shown.whole() {
            if let Some(n) = shown.next {
                doc["next_cursor"] = state::cursor(snap, n, ask).into();
            }
            doc["more"] = more.clone().into();
        }
        let mut text = format!(
            "{} {}{} — {} of {} {} in this answer{}\n",
            snap.id,
            snap.app.quoted(60),
            if window.is_empty() {
                String::new()
            } else {
                format!(" / {}", window.quoted(60))
            },
            shown.lines.len(),
            shown.total,
            match shown.form {
                state::Form::Tree => "lines",
                _ => "elements",
            },
            output::completeness(snap)
        );
        if let Some((path, _)) = under {
            text.push_str(&format!("under {path}\n"));
        }
        text.push_str(&output::shown_text(snap, &shown, &targets, true));
        if !shown.whole() {
            text.push_str(&more);
            text.push('\n');
        }
        let size = crate::json::escape_compact(&doc.to_string()).len()
            + crate::json::escape_compact(&Json::from(text.as_str()).to_string()).len();
        (doc, text, size, shown.lines.len())
    };
    let (mut doc, mut text, mut size, mut lines) = answer(&ask);
    let mut room = ask.budget.unwrap_or(budget);
    for _ in 0..6 {
        if size <= budget || lines <= 1 {
            break;
        }
        // Room in proportion to what the last try came to, and a twentieth less: the costs
        // miss what depends on the page (the path of a line whose parent is not on it).
        room = (room as f64 * budget as f64 / size as f64 * 0.95) as usize;
        ask.budget = Some(room);
        (doc, text, size, lines) = answer(&ask);
    }
    (doc, text)
}

/// The element a `root` names — a token of this server's reads, or a target resolved in the
/// window ([`locate::subtree_root`]) — and its path in the window.
async fn subtree_root(
    session: &Session,
    app: &crate::backend::AppInfo,
    window: &crate::model::NodeId,
    root: &Json,
    limits: &Limits,
) -> Result<locate::Subtree, Fault> {
    if let Some(t) = root
        .as_str()
        .and_then(|s| s.parse::<crate::model::Token>().ok())
    {
        let (snap, row) = session
            .token(t)
            .map_err(|e| Fault::new(Kind::Token, format!("root: {e}")).detail("stale_token"))?;
        return Ok(locate::Subtree {
            id: snap.nodes[row].id.clone(),
            path: snap.path_string(row),
            window: snap.window_of(row),
        });
    }
    let target = parse_target(root)?;
    Ok(locate::subtree_root(session, app, window, &target, limits, as_reported).await?)
}

/// How to get what a cut answer left out, naming the parameters.
fn more(snap: &Snapshot, shown: &state::Shown, ask: &state::Ask) -> String {
    let left: Vec<String> = shown
        .omitted
        .iter()
        .take(6)
        .map(|(r, n)| format!("{} {r}", crate::model::group_digits(*n as i64)))
        .collect();
    let mut s = format!(
        "This answer holds {} of {} ({}); left out: {}{}.",
        shown.lines.len(),
        shown.total,
        match shown.form {
            state::Form::Tree => "breadth first",
            _ => "in tree order",
        },
        left.join(", "),
        if shown.omitted.len() > 6 { ", …" } else { "" }
    );
    if let Some(n) = shown.next {
        s.push_str(&format!(
            " Next page: get_window_state with cursor=\"{}\" (and the same raw, showing_only, \
             interactive_only and query).",
            state::cursor(snap, n, ask)
        ));
    }
    s.push_str(
        " Or scope it: root=<a token or target> for one subtree, interactive_only=true for the \
         actionable elements, showing_only=true for what is on screen, query=<a target> for its \
         matches, max_depth=<levels>.",
    );
    s
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
    // Findings listed per rule are capped (their count is not): an answer an agent can read.
    let mut doc = crate::audit::report::json_capped(&a, &snap, Some(AUDIT_PER_RULE));
    doc["pid"] = app.pid.into();
    let why = match kind {
        Some(Kind::Findings) => "findings at or above min_severity (see rules)",
        _ => "the tree was not read whole: the audit covers only what was read",
    };
    Ok(Reply::coded(
        doc,
        crate::audit::report::text_capped(&a, &snap, Some(AUDIT_PER_RULE)),
        kind,
        why,
    ))
}

/// `find`: `find --json`; not unique is an error with the resolution's exit code. Waits as the
/// command line does ([`patience`]), and says why it answered when it did.
pub async fn find(session: &Session, args: &FindArgs) -> Result<Reply, Fault> {
    let target = parse_target(&args.target)?;
    let resolved = locate::look_up(
        session,
        &target,
        &args.scope(),
        patience(args.wait_ms),
        &args.scope().limits(),
        as_reported,
    )
    .await?;
    let found = Found {
        target: &target,
        fresh: &resolved.fresh,
    };
    let text = resolution_words(&target, &resolved.fresh, args.wait_ms);
    let message = text.lines().next().unwrap_or_default().to_string();
    Ok(Reply::coded(found.json(), text, found.kind(), &message))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::app::state::{Ask, show};

    #[tokio::test]
    async fn a_page_keeps_every_shown_node_once_with_its_token_and_target() {
        let snap = output::demo_window().await;
        let targets = output::suggested_all(&snap);
        for raw in [false, true] {
            let ask = Ask {
                raw,
                ..Ask::default()
            };
            let shown = show(&snap, &ask, &|_| 1);
            let doc = Json::Object(output::shown_nodes(&snap, &shown, &targets));
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
            let mut expected: Vec<usize> = crate::fold::lines(&snap, raw, &|_| false)
                .iter()
                .map(|l| l.row)
                .collect();
            expected.sort_unstable();
            assert_eq!(rows, expected);
            if raw {
                assert_eq!(rows.len(), snap.nodes.len());
            }
        }
    }

    #[tokio::test]
    async fn a_cut_page_lists_its_subtrees_with_their_parents() {
        let snap = output::demo_window().await;
        let targets = output::suggested_all(&snap);
        let ask = Ask {
            budget: Some(5),
            offset: 5,
            ..Ask::default()
        };
        let shown = show(&snap, &ask, &|_| 1);
        let doc = Json::Object(output::shown_nodes(&snap, &shown, &targets));
        let roots = doc["roots"].as_array().unwrap();
        assert!(!roots.is_empty());
        for r in roots {
            let parent: crate::model::Token = r["parent"].as_str().unwrap().parse().unwrap();
            let row = r["row"].as_u64().unwrap() as usize;
            assert_eq!(snap.nodes[row].parent, Some(parent.row));
            assert!(r["path"].as_str().unwrap().contains(" > "));
        }
    }
}
