//! The apps pane: every application on the bus with its windows; the shown window is marked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::Pane;
use crate::tui::app::{App, Effect, Shown};
use crate::tui::keys::Action;
use crate::tui::layout::Place;
use crate::tui::view::{block, fit, pad, theme};

/// The apps pane's state.
#[derive(Debug, Default)]
pub struct State {
    /// The selected entry (see [`App::app_entries`]).
    pub sel: usize,
}

pub(crate) struct Unit;

impl super::Unit for Unit {
    fn place(&self) -> Place {
        Place::Left
    }

    fn takes_focus(&self, area: Rect) -> bool {
        area.width > 0
    }

    fn key(&self, app: &mut App, action: Action, fx: &mut Vec<Effect>) -> bool {
        let entries = app.app_entries();
        let last = entries.len().saturating_sub(1);
        let sel = &mut app.panes.apps.sel;
        match action {
            // A page is the whole list.
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::First
            | Action::Last => *sel = super::step(*sel, last, action, last + 1),
            Action::ExpandOrChild | Action::ToggleExpand | Action::SetValue => app.open_entry(fx),
            Action::CollapseOrParent => {}
            _ => return false,
        }
        true
    }

    fn click(&self, app: &mut App, line: usize, fx: &mut Vec<Effect>) {
        if line < app.app_entries().len() {
            app.panes.apps.sel = line;
            app.open_entry(fx);
        }
    }

    fn help(&self) -> Option<crate::tui::overlay::Section> {
        Some((
            "Apps pane (Tab to it)",
            &[("↑ ↓  Enter →", "choose an app window and show its tree")],
        ))
    }

    fn render(&self, app: &App, frame: &mut Frame<'_>, area: Rect) {
        render(app, frame, area);
    }
}

impl App {
    /// Shows the window of the selected entry (an app entry picks its first window).
    pub(crate) fn open_entry(&mut self, fx: &mut Vec<Effect>) {
        let entries = self.app_entries();
        let Some(e) = entries.get(self.panes.apps.sel).copied() else {
            return;
        };
        let Some(app) = self.apps.get(e.app) else {
            return;
        };
        let w = e.window.unwrap_or(0);
        let Some(win) = app.windows.get(w) else {
            self.notice = Some(format!("{} has no windows", app.name.literal(40)));
            return;
        };
        let shown = Shown {
            app_name: app.name.clone(),
            bus_name: app.bus_name.clone(),
            window: win.id.clone(),
            title: win.name.clone(),
            gone: false,
            exited: false,
            silent_since: None,
        };
        self.show_window(shown, fx);
        self.open_error = None;
        self.focus = Pane::Tree;
    }
}

fn render(app: &App, frame: &mut Frame<'_>, area: Rect) {
    if area.width < 3 || area.height < 3 {
        return;
    }
    let b = block(
        app,
        Some(Pane::Apps),
        Line::from(Span::styled(
            format!(" Apps ({}) ", app.apps.len()),
            theme::LABEL,
        )),
    );
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let width = inner.width as usize;
    let entries = app.app_entries();
    let h = inner.height as usize;
    let offset = app.panes.apps.sel.saturating_sub(h.saturating_sub(1));
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate().skip(offset).take(h) {
        let Some(a) = app.apps.get(e.app) else {
            continue;
        };
        let line = match e.window {
            None => {
                // An app that does not answer says so first: the pane is narrow.
                let mut s = Vec::new();
                if !a.responding {
                    s.push(Span::styled("⚠ ", theme::WARN));
                }
                s.push(Span::styled(a.name.literal(40).into_owned(), theme::NAME));
                if let Some(pid) = a.pid {
                    s.push(Span::styled(format!(" {pid}"), theme::DIM));
                }
                if !a.responding {
                    s.push(Span::styled(" not responding", theme::WARN));
                }
                Line::from(s)
            }
            Some(w) => {
                let Some(win) = a.windows.get(w) else {
                    continue;
                };
                let shown = app.view.shown.as_ref().is_some_and(|s| s.window == win.id);
                let title = if win.name.is_empty() {
                    format!("({})", win.role)
                } else {
                    win.name.literal(60).into_owned()
                };
                Line::from(vec![
                    Span::styled(if shown { " ▶ " } else { "   " }, theme::MATCH),
                    Span::styled(title, if shown { theme::OK } else { theme::LABEL }),
                ])
            }
        };
        let line = fit(line, width);
        out.push(if i == app.panes.apps.sel && app.focus == Pane::Apps {
            pad(line, width).style(theme::selected())
        } else {
            line
        });
    }
    if entries.is_empty() {
        out.push(Line::from(Span::styled(
            if app.apps_loaded {
                "no applications"
            } else {
                "listing…"
            },
            theme::DIM,
        )));
        if let Some(report) = &app.diagnosis {
            out.extend(crate::tui::view::doctor::lines(report, None));
            // Prose in a narrow pane: wrapped, so no fix is cut off at its edge.
            frame.render_widget(Paragraph::new(out).wrap(Wrap { trim: false }), inner);
            return;
        }
    }
    frame.render_widget(Paragraph::new(out), inner);
}

#[cfg(test)]
mod tests {
    use ratatui::style::Color;

    use super::super::Pane;
    use super::super::testing::{app, draw, rows};
    use crate::backend::{AppInfo, WindowInfo};
    use crate::model::{NodeId, Role, States};

    fn gedit(responding: bool) -> AppInfo {
        AppInfo {
            id: NodeId("app".into()),
            name: "gedit".into(),
            pid: Some(42),
            bus_name: ":1.5".into(),
            toolkit: None,
            toolkit_version: None,
            windows: vec![WindowInfo {
                id: NodeId("w".into()),
                name: "Notes".into(),
                role: Role::Frame,
                states: States::default(),
            }],
            responding,
        }
    }

    #[test]
    fn each_app_then_its_windows_the_focused_selection_in_reverse() {
        let mut a = app(120, 40);
        a.apps = vec![gedit(true)];
        a.apps_loaded = true;
        a.focus = Pane::Apps;
        a.panes.apps.sel = 1;
        let buf = draw(&a, Pane::Apps, 26, 5);
        assert_eq!(
            rows(&buf),
            [
                "┏ Apps (1) ━━━━━━━━━━━━━━┓",
                "┃gedit 42                ┃",
                "┃   Notes                ┃",
                "┃                        ┃",
                "┗━━━━━━━━━━━━━━━━━━━━━━━━┛",
            ]
        );
        // The selected entry is marked across the pane, the other is not.
        for x in 1..25 {
            assert_eq!(buf[(x, 2)].bg, Color::Blue, "column {x}");
            assert_eq!(buf[(x, 1)].bg, Color::Reset, "column {x}");
        }
    }

    #[test]
    fn an_app_that_does_not_answer_says_so_first_and_the_shown_window_is_marked() {
        let mut a = app(120, 40);
        a.apps = vec![gedit(false)];
        a.apps_loaded = true;
        a.view.shown = Some(crate::tui::app::Shown {
            app_name: "gedit".into(),
            bus_name: ":1.5".into(),
            window: NodeId("w".into()),
            title: "Notes".into(),
            gone: false,
            exited: false,
            silent_since: None,
        });
        let buf = draw(&a, Pane::Apps, 34, 4);
        assert_eq!(
            rows(&buf),
            [
                "┌ Apps (1) ──────────────────────┐",
                "│⚠ gedit 42 not responding       │",
                "│ ▶ Notes                        │",
                "└────────────────────────────────┘",
            ]
        );
    }

    #[test]
    fn no_apps_yet_then_none() {
        let mut a = app(120, 40);
        assert_eq!(
            rows(&draw(&a, Pane::Apps, 20, 3))[1],
            "│listing…          │"
        );
        a.apps_loaded = true;
        assert_eq!(
            rows(&draw(&a, Pane::Apps, 20, 3))[1],
            "│no applications   │"
        );
    }
}
