//! Where a write landed: after a write that is not verified (or when asked), what changed in
//! the window between the read that resolved the target and a read right after — values,
//! names, states (the focus among them), elements that appeared or went away, each still there
//! with its target — which of the app's windows opened or closed (the new ones read: a dialog
//! that took the text or the focus), and where the focus is now. The written element's own
//! change is the verdict's, not listed again. A window read whole before the write is needed
//! for the changes; when the app narrowed the target instead (`Session::narrow`: a big
//! window), the window is not read again — only the windows and a focus in a new one are
//! said, and why.

use serde::Serialize;

use crate::backend::{AppInfo, Backend, Limits, WindowInfo};
use crate::diff::{Change, Kind, Tree};
use crate::model::{NodeId, Snapshot, sanitize};
use crate::write::{Outcome, WriteResult};

/// What the window and the app show after the write.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Landed {
    /// Every difference in the window, the written element's own left out.
    pub changes: Vec<Change>,
    /// Windows of the app that opened or closed (their titles).
    pub windows_opened: Vec<String>,
    pub windows_closed: Vec<String>,
    /// The element that holds the keyboard focus after the write (its path).
    pub focus: Option<String>,
    /// Where the input most likely went, in one sentence.
    pub likeliest: Option<String>,
    /// Why the changes are not listed (the window was not read whole before, or after).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_compared: Option<String>,
    /// Elements whose only change is that they came into view or went out of it (`showing`):
    /// the window scrolled. Counted, not listed.
    #[serde(skip_serializing_if = "Scrolled::is_empty")]
    pub scrolled: Scrolled,
    /// Changes beyond the first [`CHANGES_SHOWN`], counted, not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_changes: usize,
    /// The windows that opened, read: what each holds (at most [`OPENED_READ`] windows).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub opened: Vec<Opened>,
}

/// A window that opened with the write, as read right after it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Opened {
    pub title: String,
    /// Its interactive and named elements in tree order (the window itself left out), at
    /// most [`OPENED_LISTED`].
    pub elements: Vec<OpenedElement>,
    /// Elements beyond those listed, counted.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

/// One element of a window that opened.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OpenedElement {
    pub role: String,
    pub name: String,
    pub path: String,
    /// The target a script would name it by, when it has a unique one.
    pub target: Option<String>,
    /// It holds the keyboard focus.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub focused: bool,
}

/// The most elements listed of a window that opened.
pub const OPENED_LISTED: usize = 20;

/// What a window that opened holds, for a person or a script to go on with: its elements that
/// take input or act, and the named text in it (a dialog's message), each with its target.
fn opened_elements(title: String, snap: &Snapshot) -> Opened {
    use crate::model::{Role, State};
    let ix = crate::selector::SnapshotIndex::new(snap);
    let worth = |n: &crate::model::Node| {
        n.states.has(State::Focusable)
            || !n.actions.is_empty()
            || n.is_editable_kind()
            || matches!(
                n.role,
                Role::Label | Role::Heading | Role::Paragraph | Role::Alert
            ) && !n.name.as_str().trim().is_empty()
    };
    let rows: Vec<usize> = (1..snap.nodes.len())
        .filter(|&r| worth(&snap.nodes[r]))
        .collect();
    let elements = rows
        .iter()
        .take(OPENED_LISTED)
        .map(|&row| {
            let n = &snap.nodes[row];
            OpenedElement {
                role: n.role.to_string(),
                name: sanitize(n.name.as_str(), 120).into_owned(),
                path: snap.path_string(row),
                target: crate::selector::suggest_with(&ix, snap, row).map(|t| t.to_string()),
                focused: n.states.has(State::Focused),
            }
        })
        .collect();
    Opened {
        title,
        elements,
        more: rows.len().saturating_sub(OPENED_LISTED),
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The most changes a write's answer lists (a re-render of a big page can change thousands of
/// elements); the rest are counted.
pub const CHANGES_SHOWN: usize = 100;

/// How many elements came into view and went out of it.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Scrolled {
    pub into_view: usize,
    pub out_of_view: usize,
}

impl Scrolled {
    pub fn is_empty(&self) -> bool {
        self.into_view == 0 && self.out_of_view == 0
    }
}

/// Whether a change is only `showing` turning on (`Some(true)`) or off (`Some(false)`).
fn only_showing(c: &Change) -> Option<bool> {
    let [f] = c.fields.as_slice() else {
        return None;
    };
    if c.kind != Kind::Changed || f.field != "states" {
        return None;
    }
    let set = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    match (set(&f.before).as_slice(), set(&f.after).as_slice()) {
        ([], [s]) if s == "showing" => Some(true),
        ([s], []) if s == "showing" => Some(false),
        _ => None,
    }
}

/// What was read before the write.
#[derive(Clone, Copy)]
pub struct Before<'a> {
    /// The app as listed, for the windows that opened or closed (`None`: not said).
    pub app: Option<&'a AppInfo>,
    /// The window (or app) read, and its snapshot, which resolved the target.
    pub root: &'a NodeId,
    pub snapshot: &'a Snapshot,
    /// The app narrowed the target: `snapshot` holds the element's path alone.
    pub narrowed: bool,
}

/// What joins the likeliest landing place to a write's advice.
pub const LIKELIEST: &str = " — likeliest: ";

/// When a write's change set is made ([`after_write`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Only when the write is not verified (where it went is then the question).
    Unverified,
    /// Whenever something was sent (`--changes`).
    Asked,
}

/// Whether a change set shows the values that changed ([`after_write`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    Shown,
    /// A secret was written: every value is left out.
    Hidden,
}

/// What changed elsewhere after a write `r` that sent something and is not verified (or
/// whenever `when` asks); `None` when nothing was sent or it is verified and not asked. A
/// secret written (`Values::Hidden`) leaves every value out of it. A write not verified gets
/// the likeliest landing place at the end of its advice.
pub async fn after_write(
    backend: &dyn Backend,
    before: &Before<'_>,
    written: &NodeId,
    r: &mut WriteResult,
    when: When,
    typed: Option<&str>,
    values: Values,
) -> Option<Landed> {
    let verified = matches!(
        r.outcome,
        Outcome::Verified | Outcome::Already | Outcome::Secure
    );
    if !r.dispatched || verified && when == When::Unverified {
        return None;
    }
    let mut l = landed(backend, before, written, typed, &Limits::default()).await;
    if values == Values::Hidden {
        for c in &mut l.changes {
            for f in &mut c.fields {
                if f.field == "value" {
                    f.before = "(not shown: a secret was written)".into();
                    f.after = "(not shown: a secret was written)".into();
                }
            }
        }
    }
    if !verified && let Some(why) = &l.likeliest {
        r.advice = format!("{}{LIKELIEST}{why}", r.advice);
    }
    Some(l)
}

/// At most this many windows that opened with the write are read (dialogs, popups), each up to
/// [`OPENED_MAX_NODES`] elements: where the focus and the typed text went.
const OPENED_READ: usize = 3;
const OPENED_MAX_NODES: usize = 5_000;

/// Reads the window again and says what changed since `before` (see the module's doc), and
/// reads the windows that opened with the write. `typed`: the text the write asked for, to
/// find the element it went into.
pub async fn landed(
    backend: &dyn Backend,
    before: &Before<'_>,
    written: &NodeId,
    typed: Option<&str>,
    limits: &Limits,
) -> Landed {
    let Before {
        app,
        root,
        snapshot: before,
        narrowed,
    } = *before;
    let mut out = Landed::default();
    // The app's windows, then and now; the new ones read whole (they are small).
    let mut opened: Vec<(String, Tree)> = Vec::new();
    if let Some(app) = app
        && let Some(pid) = app.pid
        && let Ok(Some(now)) = backend.app_by_pid(pid).await
    {
        let title = |w: &WindowInfo| sanitize(w.name.as_str(), 120).into_owned();
        let new: Vec<&WindowInfo> = now
            .windows
            .iter()
            .filter(|w| !app.windows.iter().any(|o| o.id == w.id))
            .collect();
        out.windows_opened = new.iter().map(|w| title(w)).collect();
        out.windows_closed = app
            .windows
            .iter()
            .filter(|w| !now.windows.iter().any(|o| o.id == w.id))
            .map(title)
            .collect();
        let small = Limits {
            max_nodes: OPENED_MAX_NODES.min(limits.max_nodes),
            ..*limits
        };
        for w in new.into_iter().take(OPENED_READ) {
            if let Ok(s) = backend.snapshot(&w.id, &small).await
                && let Ok(t) = Tree::from_snapshot(&s)
            {
                out.opened.push(opened_elements(title(w), &s));
                opened.push((title(w), t));
            }
        }
    }
    let new_focus = opened
        .iter()
        .find_map(|(_, t)| t.entries.iter().position(focused).map(|row| t.path(row)));
    if narrowed {
        // The window is big (the app found the target's candidates): it is not read again.
        out.focus = new_focus;
        out.not_compared = Some(
            "the window was not read whole before the write (the app found the target's \
             candidates): run with --whole-tree to list what changed"
                .into(),
        );
        out.likeliest = likeliest(&out, &opened, typed, false);
        return out;
    }
    let after = match backend.snapshot(root, limits).await {
        Ok(s) if s.complete() => s,
        Ok(s) => {
            out.focus = new_focus;
            out.not_compared = Some(format!(
                "the window's read after the write was cut short ({})",
                s.truncated.map_or("unreadable elements", |t| t.as_str())
            ));
            out.likeliest = likeliest(&out, &opened, typed, false);
            return out;
        }
        Err(e) => {
            out.focus = new_focus;
            out.not_compared = Some(format!("the window could not be read after the write: {e}"));
            out.likeliest = likeliest(&out, &opened, typed, false);
            return out;
        }
    };
    let Ok(b) = Tree::from_snapshot(&after) else {
        return out;
    };
    let focus_row = b.entries.iter().position(focused);
    let on_written = focus_row.is_some_and(|row| b.entries[row].id == written.0);
    out.focus = focus_row.map(|row| b.path(row)).or(new_focus);
    if !before.complete() {
        out.not_compared = Some("the window's read before the write was not whole".into());
    } else if let Ok(a) = Tree::from_snapshot(before) {
        for c in crate::diff::diff(&a, &b) {
            if c.id == written.0 {
                continue;
            }
            match only_showing(&c) {
                Some(true) => out.scrolled.into_view += 1,
                Some(false) => out.scrolled.out_of_view += 1,
                None => out.changes.push(c),
            }
        }
        // Each element still there (of those listed) gets the target a script would name it by.
        if !out.changes.is_empty() {
            let ix = crate::selector::SnapshotIndex::new(&after);
            let rows = after.rows_by_id();
            for c in out.changes.iter_mut().take(CHANGES_SHOWN) {
                if c.kind == Kind::Removed {
                    continue;
                }
                c.target = rows
                    .get(&NodeId(c.id.clone()))
                    .and_then(|&row| crate::selector::suggest_with(&ix, &after, row))
                    .map(|t| t.to_string());
            }
        }
    }
    out.likeliest = likeliest(&out, &opened, typed, on_written);
    if out.changes.len() > CHANGES_SHOWN {
        out.more_changes = out.changes.len() - CHANGES_SHOWN;
        out.changes.truncate(CHANGES_SHOWN);
    }
    out
}

fn focused(e: &crate::diff::Entry) -> bool {
    e.states.iter().any(|s| s == "focused")
}

/// Whether a value (as `tree --json` writes it) holds the typed text.
fn holds(value: &serde_json::Value, typed: &str) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains(typed),
        serde_json::Value::Object(o) => o
            .get("text")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|s| s.contains(typed)),
        _ => false,
    }
}

/// The likeliest place the input went: an element of the window whose value now holds the
/// typed text, else one in a window that opened, else a window that opened, else the focus
/// (`on_written`: the focus is on the written element itself).
fn likeliest(
    l: &Landed,
    opened: &[(String, Tree)],
    typed: Option<&str>,
    on_written: bool,
) -> Option<String> {
    let focus_there = |path: &str| {
        if l.focus.as_deref() == Some(path) {
            " — the focus is there"
        } else {
            ""
        }
    };
    if let Some(t) = typed.filter(|t| !t.is_empty()) {
        let holder = l.changes.iter().find(|c| {
            c.kind != Kind::Removed
                && c.fields
                    .iter()
                    .any(|f| f.field == "value" && holds(&f.after, t))
        });
        if let Some(c) = holder {
            // Named by its target when it has one (the path is in the list of changes).
            return Some(format!(
                "the text went into {}{}",
                sanitize(c.target.as_deref().unwrap_or(&c.path), 300),
                focus_there(&c.path)
            ));
        }
        for (title, tree) in opened {
            if let Some(row) = tree.entries.iter().position(|e| holds(&e.value, t)) {
                let path = tree.path(row);
                return Some(format!(
                    "the text went into {} (in the window {} that opened){}",
                    sanitize(&path, 300),
                    crate::model::quoted(title, 120),
                    focus_there(&path)
                ));
            }
        }
    }
    if let Some(w) = l.windows_opened.first() {
        return Some(format!(
            "a window opened: {}{}",
            crate::model::quoted(w, 120),
            l.focus
                .as_ref()
                .map(|f| format!(" — the focus is on {}", sanitize(f, 300)))
                .unwrap_or_default()
        ));
    }
    if on_written && l.changes.is_empty() {
        return Some(
            "nothing else changed and the focus is on the written element: the input went \
             there (the verdict says what it holds)"
                .into(),
        );
    }
    l.focus
        .as_ref()
        .map(|f| format!("the focus is on {}", sanitize(f, 300)))
}

/// `12 elements came into view, 9 went out of it`.
pub fn scrolled_text(s: &Scrolled) -> String {
    format!(
        "{} came into view, {} went out of it",
        crate::model::display::counted(s.into_view, "element", "elements"),
        s.out_of_view
    )
}

/// The `changed elsewhere:` block of `set` / `invoke` text output.
pub fn text(l: &Landed) -> String {
    let mut out = String::from("changed elsewhere:\n");
    if let Some(why) = &l.not_compared {
        out.push_str(&format!("  (not compared: {why})\n"));
    } else if l.changes.is_empty() && l.scrolled.is_empty() {
        out.push_str("  nothing in the window\n");
    } else {
        out.push_str(&crate::diff::lines(&l.changes, "  "));
        if l.more_changes > 0 {
            out.push_str(&format!(
                "  … and {} more\n",
                crate::model::display::counted(l.more_changes, "change", "changes")
            ));
        }
    }
    if !l.scrolled.is_empty() {
        out.push_str(&format!(
            "  scrolled       {}\n",
            scrolled_text(&l.scrolled)
        ));
    }
    for w in &l.windows_opened {
        out.push_str(&format!(
            "  window opened  {}\n",
            crate::model::quoted(w, 120)
        ));
        // What it holds, when it was read: each element by the target a script would use.
        if let Some(o) = l.opened.iter().find(|o| &o.title == w) {
            for e in &o.elements {
                out.push_str(&format!(
                    "                 {}{}\n",
                    sanitize(e.target.as_deref().unwrap_or(&e.path), 200),
                    if e.focused { "  [focused]" } else { "" }
                ));
            }
            if o.more > 0 {
                out.push_str(&format!(
                    "                 … and {} more\n",
                    crate::model::display::counted(o.more, "element", "elements")
                ));
            }
        }
    }
    for w in &l.windows_closed {
        out.push_str(&format!(
            "  window closed  {}\n",
            crate::model::quoted(w, 120)
        ));
    }
    if let Some(f) = &l.focus {
        out.push_str(&format!("  focus now      {}\n", sanitize(f, 300)));
    }
    // The likeliest landing place is not repeated here: it ends the verdict's advice (and a
    // verified write landed where it was asked to).
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::Field;
    use serde_json::json;

    fn change(before: serde_json::Value, after: serde_json::Value) -> Change {
        Change {
            kind: Kind::Changed,
            id: "a".into(),
            role: "text".into(),
            name: "Row 1 name".into(),
            path: "text \"Row 1 name\"".into(),
            from: None,
            fields: vec![Field {
                field: "states",
                before,
                after,
            }],
            target: None,
        }
    }

    #[test]
    fn only_a_showing_flip_counts_as_scrolled() {
        assert_eq!(
            only_showing(&change(json!([]), json!(["showing"]))),
            Some(true)
        );
        assert_eq!(
            only_showing(&change(json!(["showing"]), json!([]))),
            Some(false)
        );
        // Anything more is a change to list.
        assert_eq!(
            only_showing(&change(json!(["showing", "focused"]), json!([]))),
            None
        );
        assert_eq!(only_showing(&change(json!([]), json!(["checked"]))), None);
        let mut c = change(json!([]), json!(["showing"]));
        c.fields.push(Field {
            field: "value",
            before: json!("a"),
            after: json!("b"),
        });
        assert_eq!(only_showing(&c), None);
    }
}
