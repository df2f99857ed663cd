//! The commands that read: `apps`, `tree` (its JSON streamed), `diff`, `find`, `get`, and the
//! `doctor`'s report.

use super::args::{DiffArgs, ElementArgs, FindArgs, GetArgs, TreeArgs};
use super::{Printed, answered, code};
use crate::app::locate::{self, Found, Located, Purpose};
use crate::app::output;
use crate::app::scope::{self, app_gone, not_responding, pick};
use crate::app::{Error, Kind};
use crate::backend::{Backend, Limits};
use crate::model::Truncation;
use crate::session::Session;

/// `treeglass apps`.
pub async fn apps(backend: &dyn Backend, json: bool) -> Result<String, Error> {
    let apps = backend.apps().await?;
    Ok(if json {
        output::json_pretty(&output::apps_json(backend.name(), &apps))
    } else {
        output::apps_text(&apps)
    })
}

/// `treeglass tree`: the text form, or the JSON form streamed as it is written. Exits
/// `APP_GONE` (after printing what was read) when the app left the bus mid-read.
pub async fn tree(session: &Session, args: &TreeArgs) -> Result<(Printed, i32), Error> {
    let backend = session.backend.as_ref();
    let (app, window) = pick(backend, &args.scope.scope()).await?;
    let scoped = args.showing_only || args.interactive_only;
    let limits = Limits {
        max_nodes: args.max_nodes.max(1),
        actions: args.actions,
        // Suggested targets (asked, or shown by a list) may name an element by its label.
        labels: args.targets || scoped,
        ..args.scope.limits()
    };
    // `--root`: the element's subtree alone.
    let (root, under) = match &args.root {
        Some(t) => {
            let target = locate::parse_target(t)?;
            let sub = locate::subtree_root(session, &app, &window, &target, &limits, scope::named)
                .await?;
            (sub.id, Some((sub.path, sub.window)))
        }
        None => (window, None),
    };
    let mut snap = scope::read(backend, &app, &root, &limits).await?;
    if let Some((path, window)) = &under {
        // The subtree's snapshot is named after its root; its answer names its window.
        snap.window = window.clone();
        eprintln!("treeglass: the subtree under {path}");
    }
    let ended = match snap.truncated {
        Some(Truncation::AppGone) => {
            super::warn(&app_gone(&app, "the read").message);
            Some(Kind::AppGone)
        }
        // The read was cut short by `--read-timeout`, or by an app that stopped answering:
        // what was read is printed, and the exit says it is not the whole tree.
        Some(Truncation::Timeout) => {
            super::warn(&format!(
                "the read was cut short after {} by --read-timeout {}: the tree is incomplete",
                crate::model::display::counted(snap.nodes.len(), "node", "nodes"),
                args.scope.read_timeout_ms.unwrap_or_default()
            ));
            Some(Kind::Incomplete)
        }
        Some(Truncation::NotResponding) => {
            super::warn(&format!(
                "{}; the read stopped after {}: the tree is incomplete",
                not_responding(&app).message,
                crate::model::display::counted(snap.nodes.len(), "node", "nodes"),
            ));
            Some(Kind::NotResponding)
        }
        // A cap (the default ones too) or elements that could not be read: what was read is
        // printed, and the exit says it is not the whole tree.
        _ if !snap.complete() => {
            super::warn(&output::incomplete_why(&snap));
            Some(Kind::Incomplete)
        }
        // Whole as meant, yet not every element: said, not an error.
        _ => {
            if let Some(m) = output::left_out_managed(&snap) {
                eprintln!("treeglass: note: {m}");
            }
            None
        }
    };
    if scoped {
        // What is on screen, or the actionable elements: the answer `get_window_state` gives
        // (without its size budget).
        let ask = crate::app::state::Ask {
            raw: args.raw,
            showing_only: args.showing_only,
            interactive_only: args.interactive_only,
            ..Default::default()
        };
        let shown = crate::app::state::show(&snap, &ask, &|_| 0);
        let targets = output::suggested_all(&snap);
        let out = if args.json {
            let mut doc = output::shown_doc(&snap, &shown, &targets, !args.raw);
            if let Some((path, _)) = &under {
                doc["root_path"] = path.as_str().into();
            }
            output::json_pretty(&doc)
        } else {
            output::shown_text(&snap, &shown, &targets, false)
        };
        return Ok((Printed::Text(out), code(ended)));
    }
    if args.baseline {
        let tree = crate::diff::Tree::from_snapshot(&snap).map_err(Error::other)?;
        return Ok((
            Printed::Stream(Box::new(move |out| {
                crate::diff::baseline::write(out, &tree)
            })),
            code(ended),
        ));
    }
    let targets = args.targets.then(|| output::suggested_all(&snap));
    let actions = args.actions;
    let out = if args.json {
        Printed::Stream(Box::new(move |out| {
            output::write_tree_json(out, &snap, targets.as_deref(), actions)
        }))
    } else {
        Printed::Text(output::tree_text(&snap, args.raw, targets.as_deref()))
    };
    Ok((out, code(ended)))
}

/// A `tree --json` file read as a tree, or a usage error saying why not.
fn tree_file(path: &std::path::Path) -> Result<crate::diff::Tree, Error> {
    let text = crate::files::read_capped_text(path, crate::files::MAX_FIXTURE_BYTES)?;
    crate::diff::Tree::from_json(&text)
        .map_err(|why| Error::usage(format!("{}: {why}", crate::files::shown(path))))
}

/// `treeglass diff`: exit 0 when the trees are the same, `DIFFERS` when not. Two files need
/// no backend (`None`); a live read does.
pub async fn diff(backend: Option<&dyn Backend>, args: &DiffArgs) -> Result<(String, i32), Error> {
    let before = tree_file(&args.before)?;
    let after = match &args.after {
        Some(p) => {
            if args.scope.is_set() {
                return Err(Error::usage(
                    "give a second file or --app/--pid/--window for a live read, not both",
                ));
            }
            tree_file(p)?
        }
        None => {
            if !args.scope.is_set() {
                return Err(Error::usage(
                    "give a second `tree --json` file, or --app/--pid/--window to compare with \
                     the window read now",
                ));
            }
            let backend = backend
                .ok_or_else(|| Error::other("a live read needs an accessibility backend"))?;
            let (app, root) = pick(backend, &args.scope.scope()).await?;
            let snap = scope::read(backend, &app, &root, &args.scope.limits()).await?;
            if let Some(t) = snap.truncated {
                return Err(Error::new(
                    match t {
                        Truncation::NotResponding => Kind::NotResponding,
                        Truncation::AppGone => Kind::AppGone,
                        _ => Kind::Incomplete,
                    },
                    format!(
                        "the window's read was cut short ({}): a diff against part of it would \
                         list what was not read as removed",
                        t.as_str()
                    ),
                ));
            }
            crate::diff::Tree::from_snapshot(&snap).map_err(Error::other)?
        }
    };
    let ignore = crate::diff::baseline::Ignore::parse(&args.ignore).map_err(Error::usage)?;
    // The second tree as read, kept only when it may become the new baseline (`--update`):
    // the comparison leaves the ignored fields out, the baseline keeps them.
    let whole = args.update.then(|| after.clone());
    let (mut a, mut b) = (before, after);
    ignore.apply(&mut a);
    ignore.apply(&mut b);
    let changes = crate::diff::diff(&a, &b);
    let mut ended = (!changes.is_empty()).then_some(Kind::Differs);
    let mut updated = false;
    if let Some(whole) = whole.filter(|_| !changes.is_empty()) {
        let mut text = Vec::new();
        crate::diff::baseline::write(&mut text, &whole).map_err(|e| Error::other(e.to_string()))?;
        text.push(b'\n');
        crate::files::write_atomic(&args.before, &text, crate::files::Existing::Replace)?;
        ended = None;
        updated = true;
    }
    let out = if args.json {
        output::json_pretty(&serde_json::json!({
            "equal": changes.is_empty(),
            "summary": crate::diff::summary(&changes),
            "changes": changes,
            "updated": updated,
        }))
    } else {
        let mut t = crate::diff::text(&changes);
        if updated {
            t.push_str(&format!(
                "baseline updated: {}\n",
                crate::files::shown(&args.before)
            ));
        }
        t
    };
    Ok((out, code(ended)))
}

/// What an element argument asks for: a target within a scope, with its waits.
pub(super) struct Wanted<'a> {
    target: &'a str,
    scope: &'a super::Scope,
    wait_ms: Option<u64>,
}

impl ElementArgs {
    pub(super) fn wanted(&self) -> Wanted<'_> {
        Wanted {
            target: &self.target,
            scope: &self.scope,
            wait_ms: self.wait_ms,
        }
    }
}

impl FindArgs {
    fn wanted(&self) -> Wanted<'_> {
        Wanted {
            target: &self.target,
            scope: &self.scope,
            wait_ms: self.wait_ms,
        }
    }
}

/// Resolves a target argument against fresh reads of the scope's window (every match tier;
/// a write resolves with exact and substring matches only).
async fn resolve(
    session: &Session,
    wanted: Wanted<'_>,
    purpose: Purpose,
) -> Result<(crate::selector::Target, locate::Resolved), Error> {
    let target = locate::parse_target(wanted.target)?;
    let limits = wanted.scope.limits();
    let resolved = locate::resolve(
        session,
        &target,
        &wanted.scope.scope(),
        locate::patience(wanted.wait_ms),
        &limits,
        purpose,
        scope::named,
    )
    .await?;
    Ok((target, resolved))
}

/// The one element an element argument names (a write: exact and substring matches only).
pub(super) async fn element(
    session: &Session,
    args: &ElementArgs,
    purpose: Purpose,
) -> Result<Located, Error> {
    let (target, resolved) = resolve(session, args.wanted(), purpose).await?;
    resolved.unique(&target).map_err(|m| m.error)
}

/// `treeglass find`.
pub async fn find(session: &Session, args: &FindArgs) -> Result<(String, i32), Error> {
    let (target, resolved) = resolve(session, args.wanted(), Purpose::Look).await?;
    let found = Found {
        target: &target,
        fresh: &resolved.fresh,
    };
    Ok(answered(&found, args.json))
}

/// `treeglass get`.
pub async fn get(session: &Session, args: &GetArgs) -> Result<(String, i32), Error> {
    let at = element(session, &args.element, Purpose::Look).await?;
    let (target, snap, row) = (at.target.clone().unwrap_or_default(), &at.snap, at.row);
    let node = session.backend.read_node(&snap.nodes[row].id).await?;
    // What the element did not answer is printed as unknown, and the exit says so.
    let silent = (!node.unanswered.is_empty()).then_some(Kind::ElementSilent);
    let mut fresh = (**snap).clone();
    fresh.nodes[row] = crate::model::Node {
        parent: snap.nodes[row].parent,
        children: snap.nodes[row].children.clone(),
        depth: snap.nodes[row].depth,
        ..node
    };
    let out = if args.json {
        let mut v = output::node_json(&fresh, row);
        v["target"] = target.into();
        v["bounds"] = serde_json::to_value(fresh.nodes[row].bounds).unwrap_or_default();
        if fresh.nodes[row].bounds.is_none()
            && let Some(why) = session.backend.screen_note(&fresh.nodes[row].id)
        {
            // Why an element with extents has no place on screen (its window's position is
            // not known): the backend's words, about app text already escaped there.
            v["bounds_unknown"] = why.into();
        }
        output::json_pretty(&v)
    } else {
        format!("{}\n", output::node_line(&fresh.nodes[row]))
    };
    if let Some(why) = fresh.nodes[row].unanswered_note() {
        super::warn(&format!(
            "{}: {why}",
            crate::model::display::described(&fresh.nodes[row])
        ));
    }
    Ok((out, code(silent)))
}

/// `treeglass doctor`: the report and its exit code.
pub fn doctor(report: crate::doctor::Report, json: bool) -> (String, i32) {
    let ended = (!report.healthy()).then_some(Kind::ProblemsFound);
    let out = if json {
        output::json_pretty(&output::doctor_json(&report))
    } else {
        report.text()
    };
    (out, code(ended))
}
