//! `treeglass doctor`: why a tree is missing or tiny. The report (checks, apps, hints) is plain
//! data with a text and a JSON form; the platform probe that fills it lives with its backend
//! (`backend::atspi::doctor`), with the per-toolkit advice (`backend::atspi::toolkit`).

use serde::Serialize;

/// The per-toolkit advice (AT-SPI toolkits), which the reports carry.
pub use crate::backend::atspi::toolkit::toolkit_hint;
use crate::model::AppText;
use crate::model::Toolkit;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Works, but something will make some apps' trees missing or tiny.
    Warn,
    /// Nothing can be inspected until this is fixed.
    Fail,
    /// Not checked (an earlier check failed).
    Skip,
}

impl Status {
    fn mark(self) -> &'static str {
        match self {
            Status::Ok => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        }
    }
}

/// One check: what was looked at, what was found, and how to fix it.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Check {
    pub fn new(name: &'static str, status: Status, detail: impl Into<String>) -> Check {
        Check {
            name,
            status,
            detail: detail.into(),
            fix: None,
        }
    }

    pub fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

/// A top-level window a process owns: what makes an unregistered process an app that should
/// have a tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WindowSeen {
    /// The window system's id for it (X11: `0x1a00003`).
    pub id: String,
    pub title: AppText,
}

/// One application: registered on the bus (with its tree size), or seen running with a window
/// of its own without being registered.
#[derive(Debug, Clone, Serialize)]
pub struct AppReport {
    /// The app's name, or its process's (`argv[0]`) when it is not on the bus.
    pub name: AppText,
    pub pid: Option<u32>,
    pub toolkit: Option<Toolkit>,
    /// The toolkit as the app names itself (`GTK 3.24.38`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toolkit_version: Option<AppText>,
    pub registered: bool,
    /// Nodes in its tree (read with a small cap), when registered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<usize>,
    /// False when the app is registered but does not answer (busy or hung; it still owns its
    /// bus name).
    #[serde(skip_serializing_if = "is_true")]
    pub responding: bool,
    /// Its largest top-level window, when windows could be listed and it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowSeen>,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The whole diagnosis.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub backend: String,
    pub checks: Vec<Check>,
    pub apps: Vec<AppReport>,
}

/// A tree this small is a sign the toolkit has not exposed the app's content.
pub const TINY_TREE: usize = 4;

impl Report {
    /// Whether everything is well: no check or app is a warning or a failure (`skip`, what
    /// could not be checked, is said but is not a problem found).
    pub fn healthy(&self) -> bool {
        self.checks
            .iter()
            .map(|c| c.status)
            .chain(self.apps.iter().map(|a| a.status))
            .all(|s| matches!(s, Status::Ok | Status::Skip))
    }

    pub fn text(&self) -> String {
        let mut out = format!("treeglass doctor ({} backend)\n", self.backend);
        for c in &self.checks {
            out.push_str(&format!(
                "  [{}] {}: {}\n",
                c.status.mark(),
                c.name,
                c.detail
            ));
            if let Some(f) = &c.fix {
                out.push_str(&format!("         fix: {f}\n"));
            }
        }
        if !self.apps.is_empty() {
            out.push_str("applications:\n");
        }
        for a in &self.apps {
            let tk = match (&a.toolkit_version, a.toolkit) {
                (Some(v), _) => v.literal(40).into_owned(),
                (None, Some(t)) => t.as_str().to_string(),
                (None, None) => "unknown toolkit".into(),
            };
            let state = match (a.registered, a.nodes) {
                (true, _) if !a.responding => "NOT RESPONDING".into(),
                (true, Some(1)) => "1 node".into(),
                (true, Some(n)) => format!("{n} nodes"),
                (true, None) => "registered".into(),
                (false, _) => match &a.window {
                    Some(w) => format!(
                        "NOT on the accessibility bus (window {} {})",
                        w.id,
                        w.title.quoted(40)
                    ),
                    None => "NOT on the accessibility bus".into(),
                },
            };
            out.push_str(&format!(
                "  [{}] {}  pid {}  {}  {}\n",
                a.status.mark(),
                a.name.quoted(60),
                a.pid.map_or("?".into(), |p| p.to_string()),
                tk,
                state
            ));
            if let Some(h) = &a.hint {
                out.push_str(&format!("         {h}\n"));
            }
        }
        out.push_str(if self.healthy() {
            "all well\n"
        } else {
            "problems found (see above)\n"
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn healthy_only_when_everything_is_ok() {
        let mut r = Report {
            backend: "atspi".into(),
            checks: vec![Check::new("session bus", Status::Ok, "unix:path=/x")],
            apps: vec![],
        };
        assert!(r.healthy());
        assert!(r.text().ends_with("all well\n"));
        r.apps.push(AppReport {
            name: "gallery".into(),
            pid: Some(1),
            toolkit: Some(Toolkit::Qt5),
            toolkit_version: None,
            registered: false,
            nodes: None,
            responding: true,
            window: Some(WindowSeen {
                id: "0x400007".into(),
                title: "Gallery".into(),
            }),
            status: Status::Warn,
            hint: Some(toolkit_hint(Some(Toolkit::Qt5), false)),
        });
        assert!(!r.healthy());
        let text = r.text();
        assert!(
            text.contains(r#"NOT on the accessibility bus (window 0x400007 "Gallery")"#),
            "{text}"
        );
        assert!(
            text.contains("QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"),
            "{text}"
        );
    }

    #[test]
    fn hostile_app_names_are_escaped() {
        let r = Report {
            backend: "atspi".into(),
            checks: vec![],
            apps: vec![AppReport {
                name: "evil\u{1b}]52;c;AAAA\u{7}".into(),
                pid: None,
                toolkit: None,
                toolkit_version: Some("GTK\u{1b}[2J".into()),
                registered: true,
                nodes: Some(3),
                responding: true,
                window: Some(WindowSeen {
                    id: "0x1".into(),
                    title: "\u{1b}[31mred".into(),
                }),
                status: Status::Warn,
                hint: None,
            }],
        };
        assert!(!r.text().contains('\u{1b}'));
    }

    #[test]
    fn what_could_not_be_checked_is_said_but_is_no_problem() {
        let mut r = Report {
            backend: "atspi".into(),
            checks: vec![Check::new("windows", Status::Skip, "DISPLAY is not set")],
            apps: vec![AppReport {
                name: "gtk3-widget-factory".into(),
                pid: Some(7),
                toolkit: Some(Toolkit::Gtk3),
                toolkit_version: None,
                registered: false,
                nodes: None,
                responding: true,
                window: None,
                status: Status::Skip,
                hint: Some("its environment has NO_AT_BRIDGE=1".into()),
            }],
        };
        assert!(r.healthy());
        let text = r.text();
        assert!(
            text.contains("[skip] windows: DISPLAY is not set"),
            "{text}"
        );
        assert!(text.ends_with("all well\n"), "{text}");
        r.checks[0].status = Status::Warn;
        assert!(!r.healthy());
    }

    #[test]
    fn a_hung_app_reads_not_responding_and_says_so_in_json() {
        let r = Report {
            backend: "atspi".into(),
            checks: vec![],
            apps: vec![AppReport {
                name: "freeze".into(),
                pid: Some(9),
                toolkit: Some(Toolkit::Gtk3),
                toolkit_version: None,
                registered: true,
                nodes: None,
                responding: false,
                window: None,
                status: Status::Warn,
                hint: Some("does not answer accessibility calls (no reply in 1.5 s)".into()),
            }],
        };
        let text = r.text();
        assert!(text.contains("NOT RESPONDING"), "{text}");
        assert!(!text.contains("exited"), "{text}");
        let v = serde_json::to_value(&r).unwrap_or_default();
        assert_eq!(v["apps"][0]["responding"], false, "{v}");
        // A responding app does not carry the field at all.
        let mut ok = r.clone();
        ok.apps[0].responding = true;
        let v = serde_json::to_value(&ok).unwrap_or_default();
        assert!(v["apps"][0].get("responding").is_none(), "{v}");
    }
}
