//! The action menu (`a`): one of the selected element's actions to invoke, its keys and its
//! drawing.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Mode, boxed};
use crate::model::{AppText, NodeId};
use crate::tui::app::{App, Effect};
use crate::tui::view::{pad, theme};

/// While it is open: the menu.
pub type State = ActionMenu;

/// The `a` menu: one of the node's actions.
#[derive(Debug, Clone)]
pub struct ActionMenu {
    pub node: NodeId,
    /// The element's action names as the app gave them (shown escaped, invoked as they are).
    pub actions: Vec<AppText>,
    pub selected: usize,
}

pub(crate) struct Unit;

impl super::Overlay for Unit {
    fn key(&self, app: &mut App, k: KeyEvent, fx: &mut Vec<Effect>) {
        let Mode::Actions(menu) = &mut app.mode else {
            return;
        };
        match k.code {
            KeyCode::Up => menu.selected = menu.selected.saturating_sub(1),
            KeyCode::Down => {
                menu.selected = (menu.selected + 1).min(menu.actions.len().saturating_sub(1))
            }
            KeyCode::Enter => {
                let node = menu.node.clone();
                let action = menu.actions.get(menu.selected).cloned();
                app.mode = Mode::Normal;
                app.start_invoke(node, action, fx);
            }
            KeyCode::Esc | KeyCode::Char('q') => app.mode = Mode::Normal,
            _ => {}
        }
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, over: Rect) {
        if let Mode::Actions(m) = &app.mode {
            render(m, frame, over);
        }
    }
}

impl App {
    /// `a`: the selection's actions, once they are read.
    pub(crate) fn open_action_menu(&mut self) {
        let Some((_, n)) = self.selected_node() else {
            return;
        };
        // Trees are read without action names (they cost a call each); the details pane's
        // fresh read of the selection brings them.
        let read = self.panes.details.has_read(&n.id);
        if n.actions.is_empty() && !read && n.interfaces.has(crate::model::Interface::Action) {
            self.notice = Some("reading its actions — press a again".into());
        } else if n.actions.is_empty() {
            self.notice = Some(format!("a {} here has no actions", n.role));
        } else {
            self.mode = Mode::Actions(ActionMenu {
                node: n.id.clone(),
                actions: n.actions.clone(),
                selected: 0,
            });
        }
    }
}

fn render(m: &ActionMenu, frame: &mut Frame<'_>, area: Rect) {
    let mut lines = Vec::new();
    for (i, a) in m.actions.iter().enumerate() {
        let l = Line::from(format!(" {}", a.literal(40)));
        lines.push(if i == m.selected {
            pad(l, 40).style(theme::selected())
        } else {
            l
        });
    }
    lines.push(Line::from(Span::styled(
        " ↑↓ choose · Enter invoke · Esc cancel",
        theme::DIM,
    )));
    let inner = boxed(
        frame,
        area,
        44,
        lines.len() as u16 + 2,
        Line::from(Span::styled(" Invoke action ", theme::NAME)),
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
    fn the_menu_lists_the_actions_escaped_and_moves_within_them() {
        let mut a = app(120, 40);
        a.mode = Mode::Actions(ActionMenu {
            node: NodeId("n".into()),
            actions: vec!["press".into(), "show\u{1b}[2Jmenu".into()],
            selected: 0,
        });
        assert_eq!(
            rows(&draw(&a, 44, 5)),
            [
                "┌ Invoke action ───────────────────────────┐",
                "│ press                                    │",
                "│ show\\x1b[2Jmenu                          │",
                "│ ↑↓ choose · Enter invoke · Esc cancel    │",
                "└──────────────────────────────────────────┘",
            ]
        );
        let mut fx = Vec::new();
        for _ in 0..3 {
            Unit.key(
                &mut a,
                KeyEvent::new(KeyCode::Down, KeyModifiers::NONE),
                &mut fx,
            );
        }
        assert_eq!(a.action_menu().map(|m| m.selected), Some(1));
        Unit.key(
            &mut a,
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
            &mut fx,
        );
        assert!(matches!(a.mode, Mode::Normal));
        assert!(fx.is_empty());
    }
}
