//! The one table that turns what each toolkit reports into the model's meaning (so `[enabled]`
//! means the same on GTK 3, GTK 4, Qt and Chromium). Pure: the AT-SPI reader feeds it the
//! app's toolkit (`model::Toolkit`, from `ToolkitName`/`Version`).

pub use crate::model::Toolkit;
use crate::model::{Interface, Interfaces, Role, State, States};

/// One row of the normalisation table: the words docs/toolkits.md prints, and the test
/// [`normalise_states`] runs.
pub struct StateRule {
    pub toolkits: &'static str,
    pub reported: &'static str,
    pub becomes: &'static str,
    pub why: &'static str,
    /// Whether the row applies: the app's toolkit, the element's role, its states as the rows
    /// above have left them, its interfaces.
    pub when: fn(Toolkit, Role, States, Interfaces) -> bool,
    /// The state the row sets.
    pub sets: State,
}

/// The normalisation table, applied row by row in this order by [`normalise_states`] and
/// printed into docs/toolkits.md by [`state_rules_markdown`].
pub const STATE_RULES: &[StateRule] = &[
    StateRule {
        toolkits: "GTK 4",
        reported: "`sensitive`, never `enabled`",
        becomes: "`enabled` + `sensitive`",
        why: "GTK 4.8 never sets `enabled`: `check-box \"Subscribe\" [enabled]` would find nothing \
              on GTK 4",
        when: |tk, _, s, _| tk == Toolkit::Gtk4 && s.has(State::Sensitive),
        sets: State::Enabled,
    },
    StateRule {
        toolkits: "Chromium",
        reported: "a `readonly` input: focusable and `read-only`, neither `enabled` nor \
                   `sensitive`",
        becomes: "`enabled` + `sensitive` + `read-only`",
        why: "Chromium drops `enabled` from a `readonly` input, which a person can still focus, \
              select and copy from: it is read-only, not disabled",
        when: |tk, _, s, _| {
            tk == Toolkit::Chromium
                && s.has(State::ReadOnly)
                && s.has(State::Focusable)
                && !s.has(State::Sensitive)
        },
        sets: State::Enabled,
    },
    StateRule {
        toolkits: "all",
        reported: "`enabled` without `sensitive`",
        becomes: "both",
        why: "Qt and Chromium set `enabled` and `sensitive` together, except where one is \
              missing; one meaning for both words",
        when: |_, _, s, _| s.has(State::Enabled),
        sets: State::Sensitive,
    },
    StateRule {
        toolkits: "all",
        reported: "a text field with EditableText, not `editable`",
        becomes: "`+ read-only`",
        why: "GTK and Qt mark a read-only entry only by the missing `editable`",
        when: |_, role, s, i| {
            role.is_text() && i.has(Interface::EditableText) && !s.has(State::Editable)
        },
        sets: State::ReadOnly,
    },
    StateRule {
        toolkits: "GTK",
        reported: "a spin button with EditableText, not `editable`",
        becomes: "`+ read-only`",
        why: "GTK sets `editable` on editable spin buttons; Qt never sets it on its (editable) \
              spin boxes, so this rule is GTK's",
        when: |tk, role, s, i| {
            role == Role::SpinButton
                && tk.is_gtk()
                && i.has(Interface::EditableText)
                && !s.has(State::Editable)
        },
        sets: State::ReadOnly,
    },
    StateRule {
        toolkits: "all",
        reported: "a text role without EditableText, not `editable`",
        becomes: "`+ read-only`",
        why: "a text that nothing can edit",
        when: |_, role, s, i| {
            role.is_text() && !i.has(Interface::EditableText) && !s.has(State::Editable)
        },
        sets: State::ReadOnly,
    },
];

/// Applies the table: states as the model means them, whichever toolkit reported them.
pub fn normalise_states(toolkit: Toolkit, role: Role, states: &mut States, ifaces: Interfaces) {
    for rule in STATE_RULES {
        if (rule.when)(toolkit, role, *states, ifaces) {
            states.set(rule.sets, true);
        }
    }
}

/// The table as docs/toolkits.md shows it (between its `state-rules` markers).
pub fn state_rules_markdown() -> String {
    let mut out = String::from("| toolkit | reports | becomes | why |\n|---|---|---|---|\n");
    for r in STATE_RULES {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.toolkits, r.reported, r.becomes, r.why
        ));
    }
    out
}

/// How a toolkit's extents relate to its window on Wayland (the desktop layer's placement).
pub use crate::desktop::placement::Origin as SurfaceOrigin;

/// What a quirk makes the backend do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Extents and points are asked in `WINDOW` coordinates (its `SCREEN` ones are wrong) and
    /// placed on screen by the window's origin.
    WindowExtents,
    /// On Wayland, the window's geometry inside the surface is found this way.
    Wayland(SurfaceOrigin),
    /// An element not laid out (not showing) is scrolled into view (`ScrollTo`) before a write.
    ScrollIntoView,
    /// `Cache.GetItems` is not asked: the tree is walked from its root.
    NoCache,
    /// A target's candidates may be asked of the app (`Collection.GetMatches`).
    Narrows,
}

/// One toolkit quirk: the words docs/toolkits.md prints, and what the code does about it.
pub struct Quirk {
    pub toolkits: &'static str,
    pub session: &'static str,
    pub quirk: &'static str,
    pub treeglass: &'static str,
    pub applies: fn(Toolkit) -> bool,
    pub work: Work,
}

/// The toolkits' quirks the backend works around, one row each, looked up by [`works`] and
/// printed into docs/toolkits.md by [`quirks_markdown`]. (How each toolkit reports states is
/// [`STATE_RULES`]; which calls it answers and ignores is the planner's `KNOWN_IGNORED`.)
pub const QUIRKS: &[Quirk] = &[
    Quirk {
        toolkits: "GTK 4",
        session: "any",
        quirk: "`SCREEN` coordinates are not screen positions: GTK 4.8 answers `GetExtents(SCREEN)` \
                relative to the window (a check box at 14, 442 in a window at 0, 0), GTK 4.18 \
                answers (0, 0) as every element's position, and `GetAccessibleAtPoint(SCREEN)` \
                the same way; `WINDOW` is right on both",
        treeglass: "asks for `WINDOW` extents and points, and adds the window's origin (X11: the \
                    X window's position; Wayland: the compositor's window, below)",
        applies: |tk| tk == Toolkit::Gtk4,
        work: Work::WindowExtents,
    },
    Quirk {
        toolkits: "GTK 4",
        session: "Wayland",
        quirk: "extents are relative to the window's geometry (its client-side shadow left out)",
        treeglass: "adds the compositor's position of the window",
        applies: |tk| tk == Toolkit::Gtk4,
        work: Work::Wayland(SurfaceOrigin::Geometry),
    },
    Quirk {
        toolkits: "GTK 3",
        session: "Wayland",
        quirk: "extents are relative to the surface, which holds an uneven client-side shadow \
                around a floating window (26 px left and right, 23 above, 29 below with \
                Adwaita; none when tiled)",
        treeglass: "floating: takes the window's geometry to be the bounding box of the \
                    frame's showing children (title bar and content), checked against the \
                    compositor's size of the window; tiled: the frame, drawn from its \
                    container's corner when the app cannot shrink to it",
        applies: |tk| tk == Toolkit::Gtk3,
        work: Work::Wayland(SurfaceOrigin::SurfaceChildren),
    },
    Quirk {
        toolkits: "Chromium",
        session: "Wayland",
        quirk: "extents are relative to the surface, which holds a shadow: the same on every \
                side when tiled (10 px), deeper below than above when floating (16 px left and \
                right, 9 above, 33 below)",
        treeglass: "takes off half of the difference between the frame and the compositor's \
                    window when it is the same across and down (tiled and wider than its \
                    container: the smaller of the two); otherwise says the element's place on \
                    screen is not known (no clicks, no highlight)",
        applies: |tk| tk == Toolkit::Chromium,
        work: Work::Wayland(SurfaceOrigin::SurfaceEven),
    },
    Quirk {
        toolkits: "Qt 5, Qt 6",
        session: "Wayland",
        quirk: "`GetExtents(WINDOW)` is relative to the nearest widget window (an MDI \
                sub-window) with wrong sizes (164 × 301 for a 125 × 22 button); `SCREEN` is \
                relative to the surface, which the compositor decorates",
        treeglass: "asks for `SCREEN` extents, as on every toolkit but GTK 4, and requires the frame to \
                    fit the window (centred in it when smaller, as sway draws it)",
        applies: Toolkit::is_qt,
        work: Work::Wayland(SurfaceOrigin::Surface),
    },
    Quirk {
        toolkits: "Firefox",
        session: "any",
        quirk: "an element it has not laid out, or scrolled out of view, is not showing, has no \
                extents and (a control) no actions",
        treeglass: "sends `Component.ScrollTo` before a write and reads the element again",
        applies: |tk| tk == Toolkit::Gecko,
        work: Work::ScrollIntoView,
    },
    Quirk {
        toolkits: "Qt 5, Qt 6",
        session: "any",
        quirk: "`Cache.GetItems` answers in an older form, with no items",
        treeglass: "does not ask it: the tree is read by walking it from the root",
        applies: Toolkit::is_qt,
        work: Work::NoCache,
    },
    Quirk {
        toolkits: "Chromium, Firefox",
        session: "any",
        quirk: "every element is a real one (a page's DOM, the browser's own UI), so \
                `Collection.GetMatches` walks only what the page holds",
        treeglass: "asks the app for a target's candidates by role instead of reading the tree \
                    (every other toolkit has elements made on demand, or no Collection)",
        applies: Toolkit::is_browser,
        work: Work::Narrows,
    },
];

/// Whether the toolkit has a quirk that makes the backend do `work`.
pub fn works(toolkit: Toolkit, work: Work) -> bool {
    QUIRKS
        .iter()
        .any(|q| q.work == work && (q.applies)(toolkit))
}

/// How the toolkit's extents relate to its window on Wayland.
pub fn wayland_origin(toolkit: Toolkit) -> SurfaceOrigin {
    QUIRKS
        .iter()
        .find_map(|q| match q.work {
            Work::Wayland(o) if (q.applies)(toolkit) => Some(o),
            _ => None,
        })
        .unwrap_or(SurfaceOrigin::Surface)
}

/// The table as docs/toolkits.md shows it (between its `quirks` markers).
pub fn quirks_markdown() -> String {
    let mut out =
        String::from("| toolkit | session | quirk | what treeglass does |\n|---|---|---|---|\n");
    for q in QUIRKS {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            q.toolkits, q.session, q.quirk, q.treeglass
        ));
    }
    out
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
    fn readme_state_rules() {
        crate::backend::readme::check_section("state-rules", &state_rules_markdown());
    }

    #[test]
    fn readme_quirks() {
        crate::backend::readme::check_section("quirks", &quirks_markdown());
    }

    #[test]
    fn detects_toolkits_by_name_and_major_version() {
        assert_eq!(Toolkit::detect("GTK", "3.24.38"), Toolkit::Gtk3);
        assert_eq!(Toolkit::detect("GTK", "4.8.3"), Toolkit::Gtk4);
        assert_eq!(Toolkit::detect("Qt", "5.15.8"), Toolkit::Qt5);
        assert_eq!(Toolkit::detect("Qt", "6.4.2"), Toolkit::Qt6);
        assert_eq!(Toolkit::detect("Chromium", "156.0"), Toolkit::Chromium);
        assert_eq!(Toolkit::detect("Gecko", "115"), Toolkit::Gecko);
        assert_eq!(Toolkit::detect("VCL", "7.4"), Toolkit::LibreOffice);
        assert_eq!(Toolkit::detect("", ""), Toolkit::Other);
    }

    fn norm(tk: Toolkit, role: Role, states: &[State], ifaces: &[Interface]) -> States {
        let mut s: States = states.iter().copied().collect();
        normalise_states(tk, role, &mut s, ifaces.iter().copied().collect());
        s
    }

    #[test]
    fn gtk4_sensitive_means_enabled() {
        let s = norm(Toolkit::Gtk4, Role::CheckBox, &[State::Sensitive], &[]);
        assert!(s.has(State::Enabled));
        // Only on GTK 4: elsewhere a missing ENABLED is a disabled widget.
        let s = norm(Toolkit::Gtk3, Role::CheckBox, &[State::Sensitive], &[]);
        assert!(!s.has(State::Enabled));
        let s = norm(Toolkit::Gtk4, Role::CheckBox, &[], &[]);
        assert!(!s.has(State::Enabled) && !s.has(State::Sensitive));
    }

    #[test]
    fn chromium_readonly_inputs_are_enabled() {
        let st = [State::Focusable, State::ReadOnly, State::Showing];
        let s = norm(Toolkit::Chromium, Role::Text, &st, &[Interface::Text]);
        assert!(s.has(State::Enabled) && s.has(State::ReadOnly));
        // A disabled input (no focusable) stays disabled.
        let s = norm(
            Toolkit::Chromium,
            Role::Text,
            &[State::Editable],
            &[Interface::Text],
        );
        assert!(!s.has(State::Enabled));
    }

    #[test]
    fn enabled_implies_sensitive() {
        let s = norm(Toolkit::Qt5, Role::Button, &[State::Enabled], &[]);
        assert!(s.has(State::Sensitive));
    }

    #[test]
    fn qt_spin_boxes_are_not_read_only() {
        let ifaces = [Interface::Text, Interface::EditableText, Interface::Value];
        let s = norm(Toolkit::Qt5, Role::SpinButton, &[State::Enabled], &ifaces);
        assert!(!s.has(State::ReadOnly));
        let s = norm(Toolkit::Gtk3, Role::SpinButton, &[State::Enabled], &ifaces);
        assert!(s.has(State::ReadOnly));
    }

    #[test]
    fn non_editable_text_is_read_only() {
        let s = norm(
            Toolkit::Gtk3,
            Role::Text,
            &[State::Enabled],
            &[Interface::Text, Interface::EditableText],
        );
        assert!(s.has(State::ReadOnly));
        let s = norm(
            Toolkit::Chromium,
            Role::Text,
            &[State::Enabled, State::Editable],
            &[Interface::Text],
        );
        assert!(!s.has(State::ReadOnly));
    }
}
