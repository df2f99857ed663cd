//! The copy menu: what `y` + a key puts on the clipboard, typed. The text is computed here;
//! putting it on the clipboard is the runtime's (off the UI task).

use super::app::App;
use super::mode::Mode;
use crate::model::{Node, Toggle, Value};

/// What the copy menu offers, in menu order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    Token,
    Target,
    Value,
    NodeJson,
    WorkflowStep,
}

impl CopyKind {
    pub const ALL: [CopyKind; 5] = [
        CopyKind::Token,
        CopyKind::Target,
        CopyKind::Value,
        CopyKind::NodeJson,
        CopyKind::WorkflowStep,
    ];

    /// The key that chooses it in the menu.
    pub fn key(self) -> char {
        match self {
            CopyKind::Token => 't',
            CopyKind::Target => 'g',
            CopyKind::Value => 'v',
            CopyKind::NodeJson => 'j',
            CopyKind::WorkflowStep => 's',
        }
    }

    pub fn from_key(c: char) -> Option<CopyKind> {
        CopyKind::ALL.into_iter().find(|k| k.key() == c)
    }

    /// How the menu and the status line name it.
    pub fn label(self) -> &'static str {
        match self {
            CopyKind::Token => "token",
            CopyKind::Target => "target",
            CopyKind::Value => "value",
            CopyKind::NodeJson => "node JSON",
            CopyKind::WorkflowStep => "workflow step",
        }
    }
}

impl std::fmt::Display for CopyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A node's value as plain text for copying (`None` when it has none): the app's text as it
/// is, for the clipboard (the copy menu shows it escaped).
pub fn plain_value(n: &Node) -> Option<String> {
    match n.value.as_ref()? {
        Value::Text { text } => Some(text.as_str().to_string()),
        Value::Number { current, .. } => Some(crate::model::format_number(*current)),
        Value::Toggle { state } => Some(
            match state {
                Toggle::On => "on",
                Toggle::Off => "off",
                Toggle::Mixed => "mixed",
            }
            .into(),
        ),
        Value::Choice { selected } => selected.as_ref().map(|s| s.as_str().to_string()),
    }
}

impl App {
    /// The text `y` + key would copy, or why it cannot be copied.
    pub fn copy_text(&self, what: CopyKind) -> Result<String, String> {
        let Some((row, node)) = self.selected_node() else {
            return Err("no element selected".into());
        };
        let Some(tree) = &self.tree else {
            return Err("no tree".into());
        };
        let target = self.suggestion().map(str::to_string);
        match what {
            CopyKind::Token => Ok(tree.snap.token(row).to_string()),
            CopyKind::Target => target.ok_or_else(|| "this element has no unique target".into()),
            CopyKind::Value => {
                if node.is_secret() {
                    return Err("a password field's value is never copied".into());
                }
                plain_value(node).ok_or_else(|| "this element has no value".into())
            }
            CopyKind::NodeJson => {
                let mut v = crate::model::json::node_json(&tree.snap, row);
                v["path"] = tree.snap.path_string(row).into();
                v["target"] = target.map_or(serde_json::Value::Null, Into::into);
                v["bounds"] = serde_json::to_value(node.bounds).unwrap_or_default();
                Ok(serde_json::to_string_pretty(&v).unwrap_or_default())
            }
            CopyKind::WorkflowStep => crate::workflow::step_for_state(&tree.snap, row)
                .ok_or_else(|| "this element has no value to set and no action".to_string())
                .map(|s| serde_json::to_string(&s).unwrap_or_default()),
        }
    }

    /// Opens the copy menu with every item's text.
    pub(super) fn open_copy_menu(&mut self) {
        let items = CopyKind::ALL
            .into_iter()
            .map(|k| (k, self.copy_text(k)))
            .collect();
        self.mode = Mode::Copy(items);
    }
}
