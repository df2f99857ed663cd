//! Writes and invokes started from the TUI: the history with each one's timeline, what a recorder
//! is handed when one completes, and the elements whose last write was unconfirmed.

use std::collections::HashSet;
use std::sync::Arc;

use super::app::{App, BeforeWrite, Effect};
use crate::model::{AppText, Node, NodeId, Snapshot};
use crate::write::landed::Landed;
use crate::write::{Outcome, Placement, WriteResult};

/// A finished write or invoke with what a recorder needs to turn it into a workflow step.
#[derive(Debug, Clone)]
pub struct CompletedWrite {
    /// `set` or `invoke`.
    pub kind: WriteKind,
    /// The target written into the step: the shortest unique target when the write started
    /// (the element's token when it had none).
    pub target: String,
    /// The node as the tree held it when the write started.
    pub node: Node,
    /// The value typed, for `set`. For a secret field this is the secret itself: it is handed
    /// over once so a recorder can replace it with a sensitive input, and the TUI drops it.
    pub value: Option<String>,
    pub result: WriteResult,
    /// While recording: the tree the element was in when the write started, and its row.
    pub snapshot: Option<(Arc<Snapshot>, usize)>,
}

/// What a write was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteKind {
    Set,
    /// `action`: one of the element's own action names (`None`: its default action).
    Invoke {
        action: Option<AppText>,
    },
}

/// The writes made from the TUI: the history, and the elements written with care next.
#[derive(Debug)]
pub struct Writes {
    /// Oldest first.
    pub entries: Vec<WriteEntry>,
    /// The id of the next write.
    pub(super) next: u64,
    /// Elements whose last write is unconfirmed: writing again needs care.
    pub unconfirmed: HashSet<NodeId>,
}

impl Default for Writes {
    fn default() -> Writes {
        Writes {
            entries: Vec::new(),
            next: 1,
            unconfirmed: HashSet::new(),
        }
    }
}

/// One write in the history, with its timeline once it finished.
#[derive(Debug, Clone)]
pub struct WriteEntry {
    pub id: u64,
    pub kind: WriteKind,
    pub node: Node,
    pub target: String,
    pub token: String,
    /// What was asked, for display: escaped, and a secret shows only its length.
    pub requested: String,
    /// The raw value until the write completes (then handed to the recorder hook and dropped).
    value: Option<String>,
    snapshot: Option<(Arc<Snapshot>, usize)>,
    pub result: Option<WriteResult>,
    /// What changed elsewhere, for a write that is not verified (`write::landed`).
    pub landed: Option<Landed>,
    /// The window is being read again for `landed`.
    pub landed_pending: bool,
    /// What the change set compares with, until the write is done.
    before: Option<Box<BeforeWrite>>,
}

impl App {
    /// What a write's change set will compare with: the shown tree now, shared with the
    /// recorder's copy when recording.
    fn before_write(&self, snap: &Arc<Snapshot>, secret: bool) -> Box<BeforeWrite> {
        let shown = self.view.shown.as_ref();
        Box::new(BeforeWrite {
            app: shown.and_then(|s| self.apps.iter().find(|a| a.bus_name == s.bus_name).cloned()),
            root: shown.map_or_else(|| snap.nodes[0].id.clone(), |s| s.window.clone()),
            snap: snap.clone(),
            secret,
        })
    }

    pub(super) fn target_for(&self, row: usize) -> (String, String) {
        let Some(tree) = &self.view.tree else {
            return (String::new(), String::new());
        };
        let token = tree.snap.token(row).to_string();
        let target = if self.view.selection.as_ref().is_some_and(|s| s.row == row) {
            self.suggestion().map(str::to_string)
        } else {
            crate::selector::suggest_with(&tree.index, &tree.snap, row).map(|t| t.to_string())
        };
        (target.unwrap_or_else(|| token.clone()), token)
    }

    /// A new write in the history, selected, with what its change set compares with and
    /// (while recording) the tree it started in; its id.
    fn push_write(
        &mut self,
        kind: WriteKind,
        node: Node,
        (snap, row): (Arc<Snapshot>, usize),
        requested: String,
        value: Option<String>,
        secret: bool,
    ) -> u64 {
        let (target, token) = self.target_for(row);
        let write = self.writes.next;
        self.writes.next += 1;
        let before = self.before_write(&snap, secret);
        self.writes.entries.push(WriteEntry {
            id: write,
            kind,
            node,
            target,
            token,
            requested,
            value,
            snapshot: self.recording.then_some((snap, row)),
            result: None,
            landed: None,
            landed_pending: false,
            before: Some(before),
        });
        self.panes.writes.sel = self.writes.entries.len() - 1;
        write
    }

    pub(super) fn start_set(
        &mut self,
        row: usize,
        id: NodeId,
        value: String,
        fx: &mut Vec<Effect>,
    ) {
        let Some(tree) = &self.view.tree else {
            return;
        };
        let Some(node) = tree.node(row).filter(|n| n.id == id).cloned() else {
            self.notice = Some("the element changed; select it again".into());
            return;
        };
        let place = Placement::of(&tree.snap, row);
        let secret = node.is_secret();
        let requested = if secret {
            format!(
                "(secret, {})",
                crate::model::count(value.chars().count(), "char")
            )
        } else {
            crate::tui::quoted(&value, 60)
        };
        let snap = Arc::new(tree.snap.clone());
        let write = self.push_write(
            WriteKind::Set,
            node.clone(),
            (snap, row),
            requested,
            Some(value.clone()),
            secret,
        );
        fx.push(Effect::SetValue {
            write,
            node: node.id,
            place,
            value,
        });
    }

    pub(super) fn start_invoke(
        &mut self,
        id: NodeId,
        action: Option<AppText>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(tree) = &self.view.tree else {
            return;
        };
        let Some(row) = tree.row_of(&id) else {
            self.notice = Some("the element is gone".into());
            return;
        };
        let Some(node) = tree.node(row).cloned() else {
            return;
        };
        let place = Placement::of(&tree.snap, row);
        let requested = action
            .as_ref()
            .map_or_else(|| "(default action)".into(), |a| a.literal(0).into_owned());
        let snap = Arc::new(tree.snap.clone());
        let kind = WriteKind::Invoke {
            action: action.clone(),
        };
        let write = self.push_write(kind, node, (snap, row), requested, None, false);
        fx.push(Effect::Invoke {
            write,
            node: id,
            place,
            // Handed back to the app, which matches it against its own names.
            action: action.map(|a| a.as_str().to_string()),
        });
    }

    pub(super) fn on_write_done(
        &mut self,
        write: u64,
        mut result: WriteResult,
        fx: &mut Vec<Effect>,
    ) {
        let Some(i) = self.writes.entries.iter().position(|w| w.id == write) else {
            return;
        };
        let entry = &mut self.writes.entries[i];
        result.target = Some(entry.target.clone());
        result.token = Some(entry.token.clone());
        if result.outcome == Outcome::Unconfirmed {
            self.writes.unconfirmed.insert(entry.node.id.clone());
        } else if result.dispatched {
            self.writes.unconfirmed.remove(&entry.node.id);
        }
        entry.result = Some(result.clone());
        // Not verified: the window is read again for what changed elsewhere, after the verdict
        // is on screen.
        let verified = matches!(
            result.outcome,
            Outcome::Verified | Outcome::Already | Outcome::Secure
        );
        let before = entry.before.take();
        if let Some(before) = before.filter(|_| result.dispatched && !verified) {
            entry.landed_pending = true;
            fx.push(Effect::Landed {
                write,
                node: entry.node.id.clone(),
                result: Box::new(result.clone()),
                typed: entry.value.clone().filter(|_| !before.secret),
                before,
            });
        }
        self.notice = Some(format!(
            "#{} {}{}{}",
            entry.id,
            result.outcome.as_str(),
            result
                .mismatch
                .map(|m| format!(" ({})", m.as_str()))
                .unwrap_or_default(),
            if entry.landed_pending {
                " — reading the window again for what changed elsewhere"
            } else {
                ""
            }
        ));
        fx.push(Effect::WriteCompleted(Box::new(CompletedWrite {
            kind: entry.kind.clone(),
            target: entry.target.clone(),
            node: entry.node.clone(),
            value: entry.value.take(),
            result,
            snapshot: entry.snapshot.take(),
        })));
        // Re-read the element even if the app sent no event.
        let id = entry.node.id.clone();
        self.queue_node(id);
        self.arm(fx);
    }

    /// A write's change set arrived: shown, and its advice now ends with the likeliest
    /// landing place.
    pub(super) fn on_landed(&mut self, write: u64, landed: Option<Landed>, advice: String) {
        let Some(entry) = self.writes.entries.iter_mut().find(|w| w.id == write) else {
            return;
        };
        entry.landed_pending = false;
        if let Some(r) = &mut entry.result {
            r.advice = advice;
            if landed.is_some() {
                self.notice = Some(format!(
                    "#{} {}{} — c: what changed elsewhere",
                    entry.id,
                    r.outcome.as_str(),
                    r.mismatch
                        .map(|m| format!(" ({})", m.as_str()))
                        .unwrap_or_default(),
                ));
            }
        }
        entry.landed = landed;
    }
}
