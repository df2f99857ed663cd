//! Which roles need a name: the table `name-missing` reads, one row per kind of element, each
//! saying where the requirement comes from. Printed by `audit --help` and docs/audit.md.
//!
//! A row matches an element by the kind its raw role says ([`RawKind`], where the normalised
//! role is shared with elements that need no name: an inline frame is a panel, a meter a
//! slider) or by its normalised role; the kind rows are tried first. An element no row matches needs a name when
//! it takes the keyboard focus (WCAG 4.1.2: a user interface component), unless it holds other
//! elements (a focusable list or scroll pane is a container, not a control).

use crate::backend::raw_kind;
use crate::model::{Node, RawKind, Role};

/// What a row asks of an element's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A name of its own or a label relation.
    Own,
    /// As [`Need::Own`], or a named descendant: a screen reader reads the content.
    OwnOrContent,
    /// None: the role tells the user enough, or an empty one is normal.
    Nothing,
}

impl Need {
    pub fn as_str(self) -> &'static str {
        match self {
            Need::Own => "its own name or a label",
            Need::OwnOrContent => "a name, a label or named content",
            Need::Nothing => "no name",
        }
    }
}

/// One row of [`NAME_ROLES`].
#[derive(Debug)]
pub struct NameRole {
    /// Normalised roles the row covers.
    pub roles: &'static [Role],
    /// Kinds of raw role the row covers, tried before the normalised roles.
    pub kinds: &'static [RawKind],
    pub need: Need,
    /// Where the requirement is written.
    pub source: &'static str,
}

/// The table. Sources: WAI-ARIA 1.2 §5.4 (each role's "Accessible Name Required" and "Name
/// From"), HTML-AAM (what a browser maps an HTML element to), WCAG 2.2.
pub static NAME_ROLES: &[NameRole] = &[
    NameRole {
        roles: &[],
        kinds: &[RawKind::InlineFrame],
        need: Need::Own,
        source: "HTML-AAM iframe and frame; WCAG 4.1.2: a frame's title names the document it \
                 holds (axe frame-title); in a page only (Gecko's own frame around the page \
                 is named by the page); one the page made presentational (role none) too, \
                 as both engines still show it as a frame",
    },
    NameRole {
        roles: &[],
        kinds: &[RawKind::EmbeddedObject],
        need: Need::Own,
        source: "HTML-AAM object and embed; WCAG 1.1.1: embedded content needs a text \
                 alternative (axe object-alt)",
    },
    NameRole {
        roles: &[],
        kinds: &[RawKind::NestedDocument],
        need: Need::Own,
        source: "WAI-ARIA Graphics 1.0 graphics-document (name required); a nested document \
                 is announced by its name",
    },
    NameRole {
        roles: &[],
        kinds: &[RawKind::Alert],
        need: Need::Own,
        source: "WAI-ARIA 1.2 §5.4 alertdialog (name required, from author): a toolkit's \
                 message dialog, Chromium's alert dialog; not Gecko's alert, an ARIA alert \
                 (a live region: no name required), nor, in a page, an alert whose ARIA role \
                 (xml-roles, read for the audit) is not alertdialog",
    },
    NameRole {
        roles: &[],
        kinds: &[RawKind::Listbox],
        need: Need::Own,
        source: "WAI-ARIA 1.2 §5.4 listbox (name required, from author)",
    },
    NameRole {
        roles: &[Role::Dialog],
        kinds: &[],
        need: Need::Own,
        source: "WAI-ARIA 1.2 §5.4 dialog (name required, from author)",
    },
    NameRole {
        roles: &[Role::ProgressBar],
        kinds: &[],
        need: Need::Own,
        source: "WAI-ARIA 1.2 §5.4 progressbar (name required, from author)",
    },
    NameRole {
        roles: &[Role::Slider, Role::SpinButton],
        kinds: &[],
        need: Need::Own,
        source: "WAI-ARIA 1.2 §5.4 slider, spinbutton and meter (a level bar): name \
                 required, from author",
    },
    NameRole {
        roles: &[
            Role::Text,
            Role::PasswordText,
            Role::ComboBox,
            Role::MenuButton,
        ],
        kinds: &[],
        need: Need::Own,
        source: "WAI-ARIA 1.2 §5.4 textbox, searchbox and combobox (name required, from \
                 author); HTML: a form control's label",
    },
    NameRole {
        roles: &[Role::CheckBox, Role::RadioButton, Role::Switch],
        kinds: &[],
        need: Need::Own,
        source: "WAI-ARIA 1.2 §5.4 checkbox, radio and switch (name required); a toolkit \
                 names them from their label",
    },
    NameRole {
        roles: &[
            Role::Button,
            Role::ToggleButton,
            Role::Link,
            Role::MenuItem,
            Role::CheckMenuItem,
            Role::RadioMenuItem,
            Role::Tab,
            Role::ListItem,
            Role::TreeItem,
        ],
        kinds: &[],
        need: Need::OwnOrContent,
        source: "WAI-ARIA 1.2 §5.4 button, link, menuitem, menuitemcheckbox, menuitemradio, \
                 tab, option and treeitem (name required, from contents or author)",
    },
    NameRole {
        roles: &[Role::ToolTip],
        kinds: &[],
        need: Need::OwnOrContent,
        source: "WAI-ARIA 1.2 §5.4 tooltip (name required, from contents or author)",
    },
    NameRole {
        roles: &[Role::ScrollBar, Role::TableCell, Role::TableRow],
        kinds: &[],
        need: Need::Nothing,
        source: "WAI-ARIA 1.2 §5.4 scrollbar, cell and row: no name required (a scroll bar \
                 is told by its orientation; a cell may be empty)",
    },
];

/// The row for `n`, if any.
pub fn row_of(n: &Node) -> Option<&'static NameRole> {
    row_for(n.role, &n.raw_role)
}

/// The row for an element of this normalised and raw role, if any.
fn row_for(role: Role, raw_role: &str) -> Option<&'static NameRole> {
    let kind = raw_kind(raw_role);
    NAME_ROLES
        .iter()
        .find(|r| kind.is_some_and(|k| r.kinds.contains(&k)))
        .or_else(|| NAME_ROLES.iter().find(|r| r.roles.contains(&role)))
}

/// What `n` needs of its name: its row's, or [`Need::Own`] for a focusable element that is not
/// a container, [`Need::Nothing`] for anything else.
pub fn need_of(n: &Node) -> Need {
    need_for(n.role, &n.raw_role, n.states)
}

/// [`need_of`] of an element known by its roles and states alone (a read in progress).
fn need_for(role: Role, raw_role: &str, states: crate::model::States) -> Need {
    match row_for(role, raw_role) {
        Some(r) => r.need,
        None if super::interactive_as(role, states) => Need::Own,
        None => Need::Nothing,
    }
}

/// Whether a read should ask an element for its label relation so the name rules can judge
/// it: every interactive role (a label names it in targets too), and any other unnamed
/// element that may need a name (a progress bar, a dialog, a frame, or anything focusable
/// that holds no other elements) — without its label, an element labelled by a relation
/// would be called unnamed.
pub fn reads_label(role: Role, raw_role: &str, states: crate::model::States, name: &str) -> bool {
    if role.is_interactive() {
        return true;
    }
    if !name.trim().is_empty() {
        return false;
    }
    need_for(role, raw_role, states) != Need::Nothing
}

/// A kind as the table prints it: its name and the raw role that has it.
fn kind_said(k: RawKind, quote: &str) -> String {
    format!(
        "{quote}{}{quote} (raw role {quote}{}{quote})",
        k.as_str(),
        crate::backend::raw_name_of(k)
    )
}

/// The table as text, for `audit --help` and docs/audit.md: one line per row.
pub fn table_lines() -> Vec<String> {
    NAME_ROLES
        .iter()
        .map(|r| {
            let mut names: Vec<String> = r.kinds.iter().map(|k| kind_said(*k, "")).collect();
            names.extend(r.roles.iter().map(|x| x.as_str().to_string()));
            format!("{}: {}. {}", names.join(", "), r.need.as_str(), r.source)
        })
        .collect()
}

/// The table as docs/audit.md prints it.
pub fn table_markdown() -> String {
    let mut s = String::from("| roles | needs | why |\n|---|---|---|\n");
    for r in NAME_ROLES {
        let mut names: Vec<String> = r.kinds.iter().map(|k| kind_said(*k, "`")).collect();
        names.extend(r.roles.iter().map(|x| format!("`{}`", x.as_str())));
        s.push_str(&format!(
            "| {} | {} | {} |\n",
            names.join(", "),
            r.need.as_str(),
            r.source
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_name_roles() {
        crate::backend::readme::check_section("name-roles", &table_markdown());
    }
    use crate::audit::testing::*;

    #[test]
    fn raw_rows_win_over_normalised_roles() {
        // An internal frame is a panel when normalised; the raw row judges it.
        let frame = of_kind(n(Role::Panel, ""), RawKind::InlineFrame);
        assert_eq!(need_of(&frame), Need::Own);
        assert_eq!(need_of(&n(Role::Panel, "")), Need::Nothing);
        // A notification (an ARIA alert) needs no name; an alert dialog does.
        let note = of_kind(n(Role::Alert, ""), RawKind::LiveAlert);
        assert_eq!(need_of(&note), Need::Nothing);
        let alert = of_kind(n(Role::Alert, ""), RawKind::Alert);
        assert_eq!(need_of(&alert), Need::Own);
    }

    #[test]
    fn a_focusable_element_no_row_names_needs_a_name_unless_it_is_a_container() {
        assert_eq!(need_of(&focusable(n(Role::Label, ""))), Need::Own);
        assert_eq!(need_of(&focusable(n(Role::List, ""))), Need::Nothing);
        assert_eq!(need_of(&focusable(n(Role::TableCell, ""))), Need::Nothing);
    }

    #[test]
    fn every_row_cites_its_source_and_covers_something() {
        for r in NAME_ROLES {
            assert!(!r.roles.is_empty() || !r.kinds.is_empty(), "{r:?}");
            assert!(r.source.len() > 20, "{r:?}");
        }
        assert_eq!(table_lines().len(), NAME_ROLES.len());
    }
}
