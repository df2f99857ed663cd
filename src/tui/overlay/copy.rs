//! The copy menu (`y`): what `y` + a key puts on the clipboard, typed, its keys and its
//! drawing. The text is computed here; putting it on the clipboard is the runtime's (off the
//! UI task).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Mode, boxed};
use crate::model::{Node, Toggle, Value, sanitize};
use crate::tui::app::{App, Effect};
use crate::tui::view::theme;

/// While it is open: each item's text, computed once when the menu opens (a workflow step
/// costs a target search on a big tree).
#[derive(Debug, Clone, Default)]
pub struct State {
    pub items: Vec<(CopyKind, Result<String, String>)>,
}

pub(crate) struct Unit;

impl super::Overlay for Unit {
    /// The item's key copies it; any other key closes the menu.
    fn key(&self, app: &mut App, k: KeyEvent, fx: &mut Vec<Effect>) {
        let Mode::Copy(State { items }) = std::mem::take(&mut app.mode) else {
            return;
        };
        let KeyCode::Char(c) = k.code else {
            return;
        };
        let Some(what) = CopyKind::from_key(c) else {
            return;
        };
        match items.into_iter().find(|(k, _)| *k == what) {
            Some((_, Ok(text))) => fx.push(Effect::Copy { what, text }),
            Some((_, Err(e))) => app.notice = Some(format!("cannot copy the {what}: {e}")),
            None => {}
        }
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, over: Rect) {
        if let Mode::Copy(s) = &app.mode {
            render(&s.items, frame, over);
        }
    }
}

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
        let Some(tree) = &self.view.tree else {
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
    pub(crate) fn open_copy_menu(&mut self) {
        let items = CopyKind::ALL
            .into_iter()
            .map(|k| (k, self.copy_text(k)))
            .collect();
        self.mode = Mode::Copy(State { items });
    }
}

fn render(items: &[(CopyKind, Result<String, String>)], frame: &mut Frame<'_>, area: Rect) {
    let mut lines = Vec::new();
    for (what, text) in items {
        let (key, what) = (what.key(), what.label());
        let preview = match text {
            Ok(t) => {
                let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
                Span::styled(sanitize(&one, 48).into_owned(), theme::VALUE)
            }
            Err(e) => Span::styled(format!("({})", sanitize(e, 48)), theme::DIM),
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {key}  "), theme::MATCH),
            Span::styled(format!("{what:<14}"), theme::LABEL),
            preview,
        ]));
    }
    lines.push(Line::from(Span::styled(
        " any other key closes",
        theme::DIM,
    )));
    let inner = boxed(
        frame,
        area,
        76.min(area.width.saturating_sub(2)),
        lines.len() as u16 + 2,
        Line::from(Span::styled(" Copy ", theme::NAME)),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::overlay::Overlay;
    use crate::tui::overlay::testing::draw;
    use crate::tui::pane::testing::{app, rows};
    use crossterm::event::KeyModifiers;

    #[test]
    fn each_item_shows_its_key_and_text_and_its_key_copies_it() {
        let mut a = app(120, 40);
        a.mode = Mode::Copy(State {
            items: vec![
                (CopyKind::Token, Ok("t1:s2".into())),
                (CopyKind::Value, Err("this element has no value".into())),
            ],
        });
        let screen = rows(&draw(&a, 76, 6));
        assert_eq!(
            screen[1].trim().trim_end_matches('│').trim_end(),
            "│ t  token         t1:s2"
        );
        assert_eq!(
            screen[2].trim().trim_end_matches('│').trim_end(),
            "│ v  value         (this element has no value)"
        );
        let mut fx = Vec::new();
        let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        Unit.key(&mut a, key('v'), &mut fx);
        assert!(fx.is_empty());
        assert_eq!(
            a.notice.as_deref(),
            Some("cannot copy the value: this element has no value")
        );
        assert!(matches!(a.mode, Mode::Normal));
        a.mode = Mode::Copy(State {
            items: vec![(CopyKind::Token, Ok("t1:s2".into()))],
        });
        Unit.key(&mut a, key('t'), &mut fx);
        assert!(matches!(
            fx.as_slice(),
            [Effect::Copy { what: CopyKind::Token, text }] if text == "t1:s2"
        ));
    }
}
