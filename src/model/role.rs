//! Normalised roles and the mapping from raw toolkit role names.

use serde::{Deserialize, Serialize};

macro_rules! roles {
    ($($variant:ident => $name:literal),* $(,)?) => {
        /// A role normalised across toolkits. The raw toolkit role is kept beside it on every node.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Role { $($variant),* }

        impl Role {
            /// Every role, in declaration order.
            pub const ALL: &'static [Role] = &[$(Role::$variant),*];

            /// The canonical kebab-case name used in targets, JSON and the TUI.
            pub fn as_str(self) -> &'static str {
                match self { $(Role::$variant => $name),* }
            }

            /// Parses a canonical name (exactly as [`Role::as_str`] prints it).
            pub fn from_name(name: &str) -> Option<Role> {
                match name { $($name => Some(Role::$variant),)* _ => None }
            }
        }
    };
}

roles! {
    Application => "application",
    Window => "window",
    Frame => "frame",
    Dialog => "dialog",
    Alert => "alert",
    Panel => "panel",
    Filler => "filler",
    ScrollPane => "scroll-pane",
    Viewport => "viewport",
    Group => "group",
    SplitPane => "split-pane",
    LayeredPane => "layered-pane",
    Label => "label",
    Heading => "heading",
    Paragraph => "paragraph",
    Button => "button",
    ToggleButton => "toggle-button",
    CheckBox => "check-box",
    RadioButton => "radio-button",
    Switch => "switch",
    Text => "text",
    PasswordText => "password-text",
    SpinButton => "spin-button",
    Slider => "slider",
    ScrollBar => "scroll-bar",
    ProgressBar => "progress-bar",
    ComboBox => "combo-box",
    MenuButton => "menu-button",
    Menu => "menu",
    MenuBar => "menu-bar",
    MenuItem => "menu-item",
    CheckMenuItem => "check-menu-item",
    RadioMenuItem => "radio-menu-item",
    List => "list",
    ListItem => "list-item",
    Tree => "tree",
    TreeItem => "tree-item",
    Table => "table",
    TableRow => "table-row",
    TableCell => "table-cell",
    ColumnHeader => "column-header",
    TabList => "tab-list",
    Tab => "tab",
    Expander => "expander",
    Separator => "separator",
    Image => "image",
    Icon => "icon",
    ToolBar => "tool-bar",
    StatusBar => "status-bar",
    Link => "link",
    Document => "document",
    ToolTip => "tool-tip",
    Canvas => "canvas",
    Unknown => "unknown",
}

impl Role {
    /// Roles whose value is text.
    pub fn is_text(self) -> bool {
        matches!(self, Role::Text | Role::PasswordText)
    }
    /// Roles whose value is a number within min–max.
    pub fn is_numeric(self) -> bool {
        matches!(self, Role::SpinButton | Role::Slider | Role::ScrollBar)
    }
    /// Roles whose value is a boolean toggled by an action.
    pub fn is_toggle(self) -> bool {
        matches!(
            self,
            Role::CheckBox
                | Role::Switch
                | Role::ToggleButton
                | Role::RadioButton
                | Role::CheckMenuItem
                | Role::RadioMenuItem
        )
    }
    /// Roles whose value is one option among several.
    pub fn is_choice(self) -> bool {
        matches!(self, Role::ComboBox | Role::MenuButton)
    }
    /// Roles selected by writing `true` (tabs, rows, cells).
    pub fn is_selectable_item(self) -> bool {
        matches!(
            self,
            Role::Tab | Role::ListItem | Role::TreeItem | Role::TableRow | Role::TableCell
        )
    }
    /// Unnamed containers of this role fold into their only child in the folded view.
    pub fn is_wrapper(self) -> bool {
        matches!(
            self,
            Role::Panel
                | Role::Filler
                | Role::ScrollPane
                | Role::Viewport
                | Role::Group
                | Role::LayeredPane
                | Role::Unknown
        )
    }
    /// Roles a person interacts with; used to pick what gets a suggested target first.
    pub fn is_interactive(self) -> bool {
        self.is_text()
            || self.is_numeric()
            || self.is_toggle()
            || self.is_choice()
            || self.is_selectable_item()
            || matches!(
                self,
                Role::Button | Role::MenuItem | Role::Link | Role::Expander
            )
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Role {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Role::from_name(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown role `{s}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Role::ALL {
            assert_eq!(Role::from_name(r.as_str()), Some(*r));
        }
    }
}

/// What an element's raw role says beyond the [`Role`] it normalises to, where a rule needs
/// the difference (an inline frame is a panel once normalised, but needs a name). Each backend
/// maps its own raw roles to these ([`crate::backend::raw_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RawKind {
    /// A frame holding another document: HTML's iframe and frame, or a browser's own frame
    /// around the page.
    InlineFrame,
    /// Embedded content: HTML's object and embed.
    EmbeddedObject,
    /// A document inside another (a graphics document).
    NestedDocument,
    /// An alert as a toolkit shows it: a message dialog, Chromium's alert dialog, Gecko's ARIA
    /// alert.
    Alert,
    /// A list box.
    Listbox,
    /// A run of static text (Gecko shows an image whose alt text is blank as one).
    StaticText,
    /// An ARIA alert as a live region, which needs no name.
    LiveAlert,
    /// A level bar: an indicator, which normalises to a slider.
    Meter,
    /// A browser's page: what sits under it is web content, which ignores the semantic text
    /// calls.
    WebDocument,
}

impl RawKind {
    /// Every kind, in a fixed order.
    pub const ALL: [RawKind; 9] = [
        RawKind::InlineFrame,
        RawKind::EmbeddedObject,
        RawKind::NestedDocument,
        RawKind::Alert,
        RawKind::Listbox,
        RawKind::StaticText,
        RawKind::LiveAlert,
        RawKind::Meter,
        RawKind::WebDocument,
    ];

    /// The kind's name in docs and help.
    pub fn as_str(self) -> &'static str {
        match self {
            RawKind::InlineFrame => "inline-frame",
            RawKind::EmbeddedObject => "embedded-object",
            RawKind::NestedDocument => "nested-document",
            RawKind::Alert => "alert",
            RawKind::Listbox => "listbox",
            RawKind::StaticText => "static-text",
            RawKind::LiveAlert => "live-alert",
            RawKind::Meter => "meter",
            RawKind::WebDocument => "web-document",
        }
    }
}
