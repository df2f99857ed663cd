//! The one table that turns what each toolkit reports into the model's meaning (so `[enabled]`
//! means the same on GTK 3, GTK 4, Qt and Chromium). Pure: the AT-SPI reader feeds it the
//! app's toolkit (`model::Toolkit`, from `ToolkitName`/`Version`).

pub use crate::model::Toolkit;
use crate::model::{Interface, Interfaces, Role, State, States};

/// One row of the normalisation table, for the README and `doctor`.
pub struct StateRule {
    pub toolkits: &'static str,
    pub reported: &'static str,
    pub becomes: &'static str,
    pub why: &'static str,
}

/// The table [`normalise_states`] implements, in words.
pub const STATE_RULES: &[StateRule] = &[
    StateRule {
        toolkits: "GTK 4",
        reported: "sensitive, no enabled",
        becomes: "enabled + sensitive",
        why: "GTK 4.8 never sets ENABLED; SENSITIVE is its only sign of a usable widget",
    },
    StateRule {
        toolkits: "Chromium",
        reported: "read-only and focusable, neither enabled nor sensitive",
        becomes: "enabled + sensitive + read-only",
        why: "Chromium drops ENABLED from a `readonly` input, which a person can still focus, \
              select and copy from: it is read-only, not disabled",
    },
    StateRule {
        toolkits: "all",
        reported: "enabled, no sensitive",
        becomes: "enabled + sensitive",
        why: "Qt and Chromium set ENABLED and SENSITIVE together, except where one is missing; \
              one meaning for both words",
    },
    StateRule {
        toolkits: "all",
        reported: "text field with EditableText, not editable",
        becomes: "+ read-only",
        why: "GTK and Qt mark a non-editable entry only by the missing EDITABLE state",
    },
    StateRule {
        toolkits: "GTK",
        reported: "spin button with EditableText, not editable",
        becomes: "+ read-only",
        why: "GTK sets EDITABLE on editable spin buttons; Qt never sets it on its (editable) \
              spin boxes, so the rule is GTK's alone",
    },
    StateRule {
        toolkits: "all",
        reported: "text role without EditableText and not editable",
        becomes: "+ read-only",
        why: "a text that nothing can edit",
    },
];

/// Applies the table: states as the model means them, whichever toolkit reported them.
pub fn normalise_states(toolkit: Toolkit, role: Role, states: &mut States, ifaces: Interfaces) {
    if toolkit == Toolkit::Gtk4 && states.has(State::Sensitive) {
        states.set(State::Enabled, true);
    }
    if toolkit == Toolkit::Chromium
        && states.has(State::ReadOnly)
        && states.has(State::Focusable)
        && !states.has(State::Sensitive)
    {
        states.set(State::Enabled, true);
    }
    if states.has(State::Enabled) {
        states.set(State::Sensitive, true);
    }
    let editable_role = role.is_text() || role == Role::SpinButton && toolkit.is_gtk();
    if editable_role && ifaces.has(Interface::EditableText) && !states.has(State::Editable) {
        states.set(State::ReadOnly, true);
    }
    if role.is_text() && !ifaces.has(Interface::EditableText) && !states.has(State::Editable) {
        states.set(State::ReadOnly, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
