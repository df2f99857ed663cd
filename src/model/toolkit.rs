//! Which toolkit built an application: the reader normalises what it reports by it, and the
//! write planner picks the strategies it is known to honour.

use serde::{Deserialize, Serialize};

/// A toolkit family, with the major version where behaviour differs by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Toolkit {
    Gtk3,
    Gtk4,
    /// GTK of another major version (2).
    Gtk,
    Qt5,
    Qt6,
    /// Qt of another major version.
    Qt,
    /// Chromium and everything built on it (Chrome, Electron apps, CEF).
    Chromium,
    /// Firefox, Thunderbird.
    Gecko,
    /// LibreOffice (its VCL toolkit).
    LibreOffice,
    /// Java Swing/AWT through the ATK wrapper.
    Java,
    Other,
}

impl Toolkit {
    /// From the app's `Application.ToolkitName` and `Application.Version`.
    pub fn detect(name: &str, version: &str) -> Toolkit {
        let major = version
            .trim()
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|m| m.parse::<u32>().ok());
        let n = name.trim().to_ascii_lowercase();
        match n.as_str() {
            "gtk" | "gail" => match major {
                Some(3) => Toolkit::Gtk3,
                Some(4) => Toolkit::Gtk4,
                _ => Toolkit::Gtk,
            },
            "qt" => match major {
                Some(5) => Toolkit::Qt5,
                Some(6) => Toolkit::Qt6,
                _ => Toolkit::Qt,
            },
            "chromium" | "chrome" | "electron" => Toolkit::Chromium,
            "gecko" | "firefox" | "mozilla" => Toolkit::Gecko,
            "vcl" | "libreoffice" => Toolkit::LibreOffice,
            n if n.contains("java") || n.starts_with("j2se") => Toolkit::Java,
            _ => Toolkit::Other,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Toolkit::Gtk3 => "gtk3",
            Toolkit::Gtk4 => "gtk4",
            Toolkit::Gtk => "gtk",
            Toolkit::Qt5 => "qt5",
            Toolkit::Qt6 => "qt6",
            Toolkit::Qt => "qt",
            Toolkit::Chromium => "chromium",
            Toolkit::Gecko => "gecko",
            Toolkit::LibreOffice => "libreoffice",
            Toolkit::Java => "java",
            Toolkit::Other => "other",
        }
    }

    pub fn is_qt(self) -> bool {
        matches!(self, Toolkit::Qt5 | Toolkit::Qt6 | Toolkit::Qt)
    }

    pub fn is_gtk(self) -> bool {
        matches!(self, Toolkit::Gtk3 | Toolkit::Gtk4 | Toolkit::Gtk)
    }

    /// Browser engines, whose page content (under a `document web`) ignores the semantic text
    /// calls.
    pub fn is_browser(self) -> bool {
        matches!(self, Toolkit::Chromium | Toolkit::Gecko)
    }
}
