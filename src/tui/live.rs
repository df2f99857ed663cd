//! Keeping the tree live: the app list, window reads, single-node re-reads after events, event
//! bursts coalesced behind one debounce timer, follow-focus, and the events pane's log.

use std::collections::HashSet;

use super::app::{APPS_POLL, App, DEBOUNCE, Effect, Gone, Pane, TimerId};
use super::tree::TreeState;
use crate::backend::{AppInfo, BackendError, Event, EventKind};
use crate::model::{Node, NodeId, Snapshot, State, sanitize};

/// The notice for a shown window whose app stopped answering.
const SILENT: &str =
    "the application does not answer accessibility calls (busy or hung); retrying every 3 s";

/// Live-update bookkeeping: what the current burst of events asks for.
#[derive(Debug, Default)]
pub(super) struct Pending {
    pub(super) full: bool,
    pub(super) apps: bool,
    pub(super) nodes: Vec<NodeId>,
    pub(super) node_set: HashSet<NodeId>,
    pub(super) timer: Option<u64>,
    pub(super) timer_gen: u64,
    pub(super) snapshot_inflight: bool,
    pub(super) snapshot_again: bool,
    pub(super) reads_inflight: bool,
    /// Follow-focus: the element focus moved to.
    pub(super) focus: Option<NodeId>,
    /// When the app list was last re-read because of an unknown app's event.
    pub(super) strangers_ms: u64,
}

impl App {
    // ----- backend results -----

    pub(super) fn on_apps(&mut self, r: Result<Vec<AppInfo>, BackendError>, fx: &mut Vec<Effect>) {
        let apps = match r {
            Ok(a) => a,
            Err(e) => {
                self.notice = Some(format!("cannot list apps: {e}"));
                return;
            }
        };
        self.apps = apps;
        self.apps_loaded = true;
        if self.apps.is_empty() {
            self.diagnose(None, fx);
        }
        let entries = self.app_entries();
        self.panes.apps.sel = self.panes.apps.sel.min(entries.len().saturating_sub(1));
        let mut answers_again = false;
        match &mut self.view.shown {
            Some(s) => {
                let still = self
                    .apps
                    .iter()
                    .any(|a| a.windows.iter().any(|w| w.id == s.window));
                if !still && !s.gone {
                    s.gone = true;
                    self.notice = Some("the window closed".into());
                }
                if let Some(w) = self
                    .apps
                    .iter()
                    .flat_map(|a| a.windows.iter())
                    .find(|w| w.id == s.window)
                {
                    s.title = w.name.clone();
                    s.gone = false;
                }
                // An app that owns its bus name and answers nothing keeps its window (as last
                // seen); when it answers again, its tree is read again.
                match self.apps.iter().find(|a| a.bus_name == s.bus_name) {
                    Some(a) if !a.responding && s.silent_since.is_none() => {
                        s.silent_since = Some(self.clock_ms);
                        self.notice = Some(SILENT.into());
                    }
                    Some(a) if !a.responding => {}
                    Some(_) if s.silent_since.is_some() => {
                        s.silent_since = None;
                        answers_again = true;
                    }
                    _ => {}
                }
                // The list may have shifted under the cursor: keep it on the shown window.
                if self.focus != Pane::Apps {
                    let window = s.window.clone();
                    if let Some(i) = entries.iter().position(|e| {
                        e.window
                            .and_then(|w| self.apps.get(e.app)?.windows.get(w))
                            .is_some_and(|w| w.id == window)
                    }) {
                        self.panes.apps.sel = i;
                    }
                }
            }
            // The window asked for on the command line is not there: the user chooses.
            None if self.open_error.is_some() => {}
            None => {
                // First list: the window asked for on the command line, else the active
                // window, else the first window there is.
                let windows = || {
                    self.apps.iter().enumerate().flat_map(|(ai, a)| {
                        a.windows.iter().enumerate().map(move |(wi, w)| (ai, wi, w))
                    })
                };
                let pick = match self.config.open.take() {
                    None => windows()
                        .find(|(_, _, w)| w.states.has(State::Active))
                        .or_else(|| windows().next()),
                    Some(Ok(at)) => {
                        // The window itself, else (an app with several windows and none
                        // named) that app's active window, else its first.
                        let of_app = |ai: usize| self.apps.get(ai).is_some_and(|a| a.id == at.root);
                        let found = windows()
                            .find(|(_, _, w)| w.id == at.root)
                            .or_else(|| {
                                windows()
                                    .find(|(ai, _, w)| of_app(*ai) && w.states.has(State::Active))
                            })
                            .or_else(|| windows().find(|(ai, _, _)| of_app(*ai)));
                        if found.is_none() {
                            self.fail_open(
                                "the window chosen on the command line has closed".into(),
                            );
                            return;
                        }
                        found
                    }
                    Some(Err(why)) => {
                        self.fail_open(why);
                        return;
                    }
                }
                .map(|(ai, wi, _)| (ai, wi));
                match pick {
                    Some((ai, wi)) => {
                        self.panes.apps.sel = entries
                            .iter()
                            .position(|e| e.app == ai && e.window == Some(wi))
                            .unwrap_or(0);
                        self.open_entry(fx);
                    }
                    None => {
                        self.view.loading = false;
                        self.notice = Some(crate::backend::pick::NO_WINDOW.into());
                    }
                }
            }
        }
        if answers_again {
            self.notice = Some("the application answers again".into());
            self.request_snapshot(fx);
        }
    }

    /// The window asked for on the command line cannot be opened: the apps pane takes the
    /// keys and the reason stays in the tree pane until a window is chosen.
    fn fail_open(&mut self, why: String) {
        self.view.loading = false;
        self.focus = Pane::Apps;
        self.notice = why.lines().next().map(str::to_string);
        self.open_error = Some(why);
    }

    pub(super) fn request_snapshot(&mut self, fx: &mut Vec<Effect>) {
        let Some(s) = &self.view.shown else {
            return;
        };
        if self.pending.snapshot_inflight {
            self.pending.snapshot_again = true;
            return;
        }
        self.pending.snapshot_inflight = true;
        self.pending.full = false;
        self.pending.nodes.clear();
        self.pending.node_set.clear();
        fx.push(Effect::Snapshot {
            root: s.window.clone(),
        });
    }

    pub(super) fn on_snapshot(
        &mut self,
        root: NodeId,
        result: Result<Box<Snapshot>, BackendError>,
        fx: &mut Vec<Effect>,
    ) {
        if self.view.shown.as_ref().is_none_or(|s| s.window != root) {
            return;
        }
        self.pending.snapshot_inflight = false;
        self.view.loading = false;
        if let Ok(snap) = &result
            && snap.truncated == Some(crate::model::Truncation::Cancelled)
            && self.keep_on_stop(snap)
        {
            return;
        }
        let Some(shown) = &mut self.view.shown else {
            return;
        };
        // The app went silent during the read: the tree on screen stays (greyed) rather than
        // being replaced by the part that came back; the app list's poll notices its return.
        let silent = match &result {
            Ok(snap) => snap.truncated == Some(crate::model::Truncation::NotResponding),
            Err(e) => matches!(e, BackendError::NotResponding { .. }),
        };
        if silent {
            if shown.silent_since.is_none() {
                shown.silent_since = Some(self.clock_ms);
            }
            self.notice = Some(SILENT.into());
            if self.view.tree.is_some() || result.is_err() {
                if self.pending.snapshot_again {
                    self.pending.snapshot_again = false;
                }
                return;
            }
        }
        match result {
            Ok(snap) => {
                shown.gone = false;
                if !silent {
                    shown.silent_since = None;
                }
                let tiny = snap.nodes.len() <= crate::doctor::TINY_TREE && !silent;
                // F5's "re-reading" ends with the read it asked for.
                if self.notice.as_deref() == Some(super::control::REREADING) {
                    self.notice = Some(format!(
                        "re-read: {}{}",
                        crate::model::display::counted(snap.nodes.len(), "node", "nodes"),
                        if snap.truncated.is_some() {
                            " (incomplete)"
                        } else {
                            ""
                        }
                    ));
                }
                self.install(root.clone(), *snap);
                if tiny {
                    self.diagnose(Some(root), fx);
                }
            }
            Err(BackendError::AppGone { .. }) => {
                shown.gone = true;
                shown.exited = true;
                self.notice =
                    Some("the application exited or dropped its accessibility connection".into());
                fx.push(Effect::LoadApps);
            }
            Err(BackendError::Vanished(_)) => {
                shown.gone = true;
                self.notice = Some("the window is gone".into());
                fx.push(Effect::LoadApps);
            }
            Err(e) => self.notice = Some(format!("cannot read the window: {e}")),
        }
        if self.pending.snapshot_again {
            self.pending.snapshot_again = false;
            self.request_snapshot(fx);
        }
    }

    /// A read stopped with Esc: the tree on screen stays. A re-read leaves the last tree as it
    /// was (the stopped read has less of it); the first read's painted part is what was
    /// read, and says so (unless the stopped read came back with more). False when there is
    /// nothing on screen to keep.
    fn keep_on_stop(&mut self, stopped: &Snapshot) -> bool {
        use crate::model::display::counted;
        let Some(t) = &mut self.view.tree else {
            return false;
        };
        if t.snap.truncated == Some(crate::model::Truncation::Reading) {
            if stopped.nodes.len() > t.snap.nodes.len() {
                return false;
            }
            t.snap.truncated = Some(crate::model::Truncation::Cancelled);
            self.notice = Some(format!(
                "read stopped: what it had read is shown ({})",
                counted(t.snap.nodes.len(), "node", "nodes")
            ));
        } else {
            // "Whole" only when it was: the last read may itself have been cut short.
            self.notice = Some(format!(
                "read stopped: the tree shown is the last {} ({})",
                if t.snap.complete() {
                    "whole read"
                } else {
                    "read, incomplete"
                },
                counted(t.snap.nodes.len(), "node", "nodes")
            ));
        }
        true
    }

    /// Paints what the first read of the shown window has placed so far. A window already
    /// shown keeps its last whole tree until the new read is whole.
    pub(super) fn on_partial(&mut self, root: NodeId, snap: Snapshot) {
        let Some(shown) = &self.view.shown else {
            return;
        };
        let partial_shown = self
            .view
            .tree
            .as_ref()
            .is_none_or(|t| t.snap.truncated == Some(crate::model::Truncation::Reading));
        if shown.window != root || !self.pending.snapshot_inflight || !partial_shown {
            return;
        }
        self.install(root, snap);
    }

    /// Replaces the tree with a fresh read, keeping folding, collapse, the filter and the
    /// selection (by identity; a vanished element is shown as gone).
    pub(super) fn install(&mut self, root: NodeId, snap: Snapshot) {
        let (raw, collapsed, showing_only) = match self.view.tree.take() {
            Some(old) => {
                // Keep the old tree only long enough to describe a vanished selection.
                let gone = match &self.view.selection {
                    Some(sel) if sel.gone.is_none() && snap.row_of(&sel.id).is_none() => {
                        old.node(sel.row).map(|n| {
                            Box::new(Gone {
                                node: n.clone(),
                                path: crate::tui::path(&old.snap, sel.row),
                                token: old.snap.token(sel.row).to_string(),
                                missing_in: snap.id,
                            })
                        })
                    }
                    _ => None,
                };
                if let (Some(g), Some(sel)) = (gone, &mut self.view.selection) {
                    sel.gone = Some(g);
                }
                (old.raw, old.collapsed, old.showing_only)
            }
            None => (false, HashSet::new(), false),
        };
        let mut tree = TreeState::new(root, snap, raw, collapsed);
        if showing_only {
            tree.set_showing_only(true);
        }
        self.view.tree = Some(tree);
        self.view.version += 1;
        self.audit.version += 1;
        self.panes.details.read = None;
        self.refilter();
        // Find the selection again.
        match self.view.selection.clone() {
            None => {
                self.select_line(0);
            }
            Some(sel) => {
                let row = self.view.tree.as_ref().and_then(|t| t.row_of(&sel.id));
                match row {
                    Some(r) => {
                        self.select_row(r);
                    }
                    None => {
                        // Gone (described above from the old tree): keep its position.
                        let n = self.view.tree.as_ref().map_or(0, |t| t.lines.len());
                        if let Some(s) = &mut self.view.selection {
                            s.line = sel.line.min(n);
                        }
                    }
                }
            }
        }
        self.apply_focus();
    }

    pub(super) fn on_nodes(
        &mut self,
        results: Vec<(NodeId, Result<Node, BackendError>)>,
        details: bool,
        fx: &mut Vec<Effect>,
    ) {
        if details {
            self.panes.details.inflight = false;
        } else {
            self.pending.reads_inflight = false;
        }
        let mut refilter = false;
        let mut changed = false;
        let mut lines = false;
        let mut audited = false;
        for (id, r) in results {
            match r {
                Ok(node) => {
                    if let Some(t) = &mut self.view.tree
                        && let Some(row) = t.row_of(&id)
                    {
                        let e = t.patch(row, node);
                        refilter |= e.matchable;
                        changed |= e.visible;
                        lines |= e.lines;
                        audited |= e.audited;
                    }
                    if details {
                        self.panes.details.read = Some((id, None));
                    }
                }
                Err(e) => {
                    if matches!(e, BackendError::Vanished(_)) {
                        // It left the tree: the structure changed.
                        self.pending.full = true;
                    }
                    if details {
                        self.panes.details.read = Some((id, Some(e.to_string())));
                    }
                }
            }
        }
        if lines {
            self.relocate_selection();
        }
        if changed {
            self.view.version += 1;
        }
        if audited {
            self.audit.version += 1;
        }
        if refilter && self.filter.active() {
            self.refilter();
        }
        self.apply_focus();
        if self.pending.full || !self.pending.nodes.is_empty() {
            self.arm(fx);
        }
    }

    // ----- live updates -----

    pub(super) fn app_matches(&self, ev: &Event) -> bool {
        self.view
            .shown
            .as_ref()
            .is_some_and(|s| ev.app == s.bus_name || ev.app == s.app_name)
    }

    pub(super) fn log_event(&mut self, line: String) {
        self.panes.events.push(line);
    }

    pub(super) fn queue_node(&mut self, id: NodeId) {
        if self.pending.node_set.insert(id.clone()) {
            self.pending.nodes.push(id);
        }
    }

    /// Asks for the platform's diagnosis once for `what` (a window with a tiny tree, or `None`:
    /// no apps at all).
    pub(super) fn diagnose(&mut self, what: Option<NodeId>, fx: &mut Vec<Effect>) {
        if self.diagnosis_for.as_ref() != Some(&what) {
            self.diagnosis_for = Some(what);
            self.diagnosis = None;
            fx.push(Effect::Diagnose);
        }
    }

    pub(super) fn on_event(&mut self, ev: &Event, fx: &mut Vec<Effect>) {
        // The shown window's app left the bus: say so, not "window closed".
        if ev.kind == EventKind::AppRemoved
            && let Some(s) = &mut self.view.shown
            && s.bus_name == ev.app
            && !s.exited
        {
            s.gone = true;
            s.exited = true;
            self.notice =
                Some("the application exited or dropped its accessibility connection".into());
        }
        let known_app = self
            .apps
            .iter()
            .any(|a| ev.app == a.bus_name || ev.app == a.name);
        let lifecycle = matches!(
            ev.kind,
            EventKind::AppAdded
                | EventKind::AppRemoved
                | EventKind::WindowOpened
                | EventKind::WindowClosed
        );
        // An event from an app the list does not have: it may have just started. Re-list at
        // most once a second for those (some bus clients never show up in the list).
        let stranger =
            !known_app && self.apps_loaded && self.clock_ms >= self.pending.strangers_ms + 1000;
        if lifecycle || stranger {
            if stranger {
                self.pending.strangers_ms = self.clock_ms;
            }
            self.pending.apps = true;
        }
        if !self.app_matches(ev) {
            if self.pending.apps {
                self.arm(fx);
            }
            return;
        }
        let row = self.view.tree.as_ref().and_then(|t| t.row_of(&ev.source));
        let is_root = self
            .view
            .shown
            .as_ref()
            .is_some_and(|s| s.window == ev.source);
        if row.is_some() || is_root {
            let who = match (row, &self.view.tree) {
                (Some(r), Some(t)) => t
                    .node(r)
                    .map(|n| match &ev.kind {
                        // The tree still holds the old name: name the element as it is now.
                        EventKind::NameChanged
                            if !ev.detail.is_empty() && ev.detail.as_str() != n.name.as_str() =>
                        {
                            format!(
                                "{} {} (was {})",
                                n.role,
                                ev.detail.quoted(30),
                                n.name.quoted(30)
                            )
                        }
                        _ if n.name.is_empty() => n.role.to_string(),
                        _ => format!("{} {}", n.role, n.name.quoted(30)),
                    })
                    .unwrap_or_default(),
                _ => sanitize(&ev.source.0, 60).into_owned(),
            };
            let at = self.clock_ms;
            self.log_event(format!(
                "{:>6}.{:03}s {} · {}",
                at / 1000,
                at % 1000,
                ev.summary(),
                who
            ));
        }
        let focus_event = matches!(ev.kind, EventKind::Focus)
            || matches!(&ev.kind, EventKind::StateChanged { state, on: true } if state == "focused");
        if focus_event && self.follow_focus {
            self.pending.focus = Some(ev.source.clone());
        }
        match &ev.kind {
            EventKind::ChildAdded { .. } | EventKind::ChildRemoved { .. } => {
                if row.is_some() || is_root {
                    self.pending.full = true;
                }
            }
            EventKind::WindowClosed if is_root => self.pending.full = true,
            EventKind::AppAdded | EventKind::AppRemoved | EventKind::WindowOpened => {}
            _ => {
                if row.is_some() {
                    self.queue_node(ev.source.clone());
                } else if focus_event && self.follow_focus {
                    // Focus moved to an element the tree does not hold yet.
                    self.pending.full = true;
                }
            }
        }
        if self.pending.full
            || self.pending.apps
            || !self.pending.nodes.is_empty()
            || self.pending.focus.is_some()
        {
            self.arm(fx);
        }
    }

    /// Starts the debounce timer unless one is running.
    pub(super) fn arm(&mut self, fx: &mut Vec<Effect>) {
        if self.pending.timer.is_some() {
            return;
        }
        self.pending.timer_gen += 1;
        let g = self.pending.timer_gen;
        self.pending.timer = Some(g);
        fx.push(Effect::Timer {
            id: TimerId::Debounce(g),
            after: DEBOUNCE,
        });
    }

    pub(super) fn on_timer(&mut self, id: TimerId, fx: &mut Vec<Effect>) {
        match id {
            TimerId::AppsPoll => {
                fx.push(Effect::LoadApps);
                fx.push(Effect::Timer {
                    id: TimerId::AppsPoll,
                    after: APPS_POLL,
                });
            }
            TimerId::HighlightFlash(g) => self.highlight_timer(g),
            TimerId::Audit => self.audit_timer(fx),
            TimerId::Debounce(g) => {
                if self.pending.timer != Some(g) {
                    return;
                }
                self.pending.timer = None;
                self.flush(fx);
            }
        }
    }

    /// Applies what the burst asked for: the app list, a full re-read or single-node reads.
    pub fn flush(&mut self, fx: &mut Vec<Effect>) {
        if std::mem::take(&mut self.pending.apps) {
            fx.push(Effect::LoadApps);
        }
        if self.pending.full {
            self.request_snapshot(fx);
            return;
        }
        if !self.pending.nodes.is_empty() {
            if self.pending.reads_inflight {
                self.arm(fx);
                return;
            }
            self.pending.reads_inflight = true;
            self.pending.node_set.clear();
            fx.push(Effect::ReadNodes {
                ids: std::mem::take(&mut self.pending.nodes),
                details: false,
            });
        } else {
            self.apply_focus();
        }
    }

    /// Follow-focus: select the element focus moved to, once the tree holds it.
    pub(super) fn apply_focus(&mut self) {
        if !self.follow_focus {
            self.pending.focus = None;
            return;
        }
        let Some(id) = self.pending.focus.clone() else {
            return;
        };
        if let Some(row) = self.view.tree.as_ref().and_then(|t| t.row_of(&id)) {
            self.pending.focus = None;
            self.select_row(row);
        }
    }
}
