//! The doctor's findings inside the inspector: shown under a tiny tree and in an empty apps
//! pane, the checks that are not well and what makes the app's toolkit expose its tree.

use ratatui::text::{Line, Span};

use super::theme;
use crate::doctor::{Report, Status};
use crate::model::{AppText, sanitize};

/// Lines for `report`: the checks that are not `ok`, then the apps — all of them, or only the
/// one whose pid or name is `app` — with their hints.
pub fn lines(report: &Report, app: Option<(&AppText, Option<u32>)>) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(
        "why the tree may be missing or tiny (treeglass doctor):",
        theme::LABEL,
    ))];
    for c in report.checks.iter().filter(|c| c.status != Status::Ok) {
        let style = if c.status == Status::Fail {
            theme::BAD
        } else {
            theme::WARN
        };
        out.push(Line::from(vec![
            Span::styled(format!("  {}: ", c.name), style),
            Span::raw(sanitize(&c.detail, 200).into_owned()),
        ]));
        if let Some(f) = &c.fix {
            out.push(Line::from(Span::styled(
                format!("    fix: {}", sanitize(f, 300)),
                theme::DIM,
            )));
        }
    }
    let wanted = |a: &crate::doctor::AppReport| match app {
        None => true,
        Some((name, pid)) => match (pid, a.pid) {
            (Some(p), Some(q)) => p == q,
            _ => a.name == *name,
        },
    };
    for a in report.apps.iter().filter(|a| wanted(a)) {
        let state = match (a.registered, a.nodes) {
            (true, Some(n)) => format!("{n} nodes"),
            (true, None) => "registered".into(),
            (false, _) => "not on the accessibility bus".into(),
        };
        out.push(Line::from(vec![
            Span::styled(format!("  {} ", a.name.literal(40)), theme::NAME),
            Span::styled(state, theme::DIM),
        ]));
        if let Some(h) = &a.hint {
            out.push(Line::from(Span::raw(format!("    {}", sanitize(h, 300)))));
        }
    }
    if out.len() == 1 {
        out.push(Line::from(Span::styled(
            "  all checks pass: the app exposes no more than this",
            theme::DIM,
        )));
    }
    out
}
