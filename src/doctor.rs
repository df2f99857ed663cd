//! `treeglass doctor`: why a tree is missing or tiny. The report (checks, apps, hints) is plain
//! data with a text and a JSON form; the platform probe that fills it lives with its backend
//! (`backend::atspi::doctor`). The per-toolkit advice is one table, here.

use serde::Serialize;

use crate::backend::toolkit::Toolkit;
use crate::model::AppText;

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

/// One application: registered on the bus (with its tree size), or seen running without
/// being registered.
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
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
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
    /// Whether everything is well (no check or app worse than `ok`).
    pub fn healthy(&self) -> bool {
        self.checks.iter().all(|c| c.status == Status::Ok)
            && self.apps.iter().all(|a| a.status == Status::Ok)
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
                (true, Some(n)) => format!("{n} nodes"),
                (true, None) => "registered".into(),
                (false, _) => "NOT on the accessibility bus".into(),
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

/// What makes a toolkit's tree appear, for an app whose tree is missing or tiny.
pub fn toolkit_hint(toolkit: Option<Toolkit>, registered: bool) -> String {
    match toolkit {
        Some(Toolkit::Chromium) => "Chromium and Electron expose page content only when started \
             with --force-renderer-accessibility (or when a screen reader is detected)"
            .into(),
        Some(t) if t.is_qt() => {
            if registered {
                "Qt builds its tree on demand; if it stays tiny, restart the app with \
                 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"
                    .into()
            } else {
                "Qt registers only when org.a11y.Status.IsEnabled is true when it starts, or \
                 with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 in its environment; restart it after \
                 fixing either"
                    .into()
            }
        }
        Some(t) if t.is_gtk() => "GTK registers unless NO_AT_BRIDGE=1 (GTK 3) or GTK_A11Y=none \
             (GTK 4) is in its environment; restart it without them"
            .into(),
        Some(Toolkit::Java) => "Java apps need the ATK wrapper (Debian: libatk-wrapper-java-jni) \
             and assistive_technologies=org.GNOME.Accessibility.AtkWrapper in \
             accessibility.properties"
            .into(),
        Some(Toolkit::Gecko) => "Firefox exposes its tree when accessibility is not disabled \
             (accessibility.force_disabled = 0 in about:config)"
            .into(),
        _ => "the toolkit exposes no more than this; check its accessibility settings".into(),
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
            status: Status::Warn,
            hint: Some(toolkit_hint(Some(Toolkit::Qt5), false)),
        });
        assert!(!r.healthy());
        let text = r.text();
        assert!(text.contains("NOT on the accessibility bus"), "{text}");
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
                status: Status::Warn,
                hint: None,
            }],
        };
        assert!(!r.text().contains('\u{1b}'));
    }
}
