//! AT-SPI's role names (`GetRoleName`'s words) as the neutral roles the model knows. Pure, and
//! compiled on every platform: the selector accepts these raw names through
//! [`crate::backend::raw_role`].

use crate::model::{RawKind, Role};

/// Maps a raw AT-SPI role name (`"push button"`, `"page tab list"`, …) to a normalised role.
/// Unknown names map to [`Role::Unknown`]; the raw name stays on the node.
pub fn role(raw: &str) -> Role {
    match raw.to_ascii_lowercase().as_str() {
        "application" => Role::Application,
        "window" => Role::Window,
        "frame" => Role::Frame,
        "dialog" | "file chooser" | "color chooser" | "font chooser" => Role::Dialog,
        "alert" | "notification" => Role::Alert,
        "panel" | "section" | "form" | "landmark" | "article" | "block quote" | "footer"
        | "header" | "info bar" | "internal frame" | "desktop frame" | "root pane"
        | "glass pane" | "option pane" | "page" => Role::Panel,
        "filler" => Role::Filler,
        "scroll pane" => Role::ScrollPane,
        "viewport" => Role::Viewport,
        "grouping" | "group" | "description list" => Role::Group,
        "split pane" => Role::SplitPane,
        "layered pane" => Role::LayeredPane,
        "label" | "static" | "caption" | "footnote" | "description term" | "description value"
        | "mark" | "subscript" | "superscript" | "content insertion" | "content deletion"
        | "suggestion" => Role::Label,
        "heading" => Role::Heading,
        "paragraph" => Role::Paragraph,
        "push button" | "button" | "push button menu" => Role::Button,
        "toggle button" => Role::ToggleButton,
        "check box" => Role::CheckBox,
        "radio button" => Role::RadioButton,
        "switch" => Role::Switch,
        "text" | "entry" | "editbar" | "terminal" | "autocomplete" | "date editor" => Role::Text,
        "password text" => Role::PasswordText,
        "spin button" => Role::SpinButton,
        "slider" | "dial" | "level bar" => Role::Slider,
        "scroll bar" => Role::ScrollBar,
        "progress bar" => Role::ProgressBar,
        "combo box" => Role::ComboBox,
        "menu" | "popup menu" => Role::Menu,
        "menu bar" => Role::MenuBar,
        "menu item" | "tearoff menu item" => Role::MenuItem,
        "check menu item" => Role::CheckMenuItem,
        "radio menu item" => Role::RadioMenuItem,
        "list" | "list box" => Role::List,
        "list item" => Role::ListItem,
        "tree" | "tree table" => Role::Tree,
        "tree item" => Role::TreeItem,
        "table" => Role::Table,
        "table row" => Role::TableRow,
        "table cell" => Role::TableCell,
        "column header" | "table column header" | "row header" | "table row header" => {
            Role::ColumnHeader
        }
        "page tab list" => Role::TabList,
        "page tab" => Role::Tab,
        "separator" => Role::Separator,
        "image" | "image map" => Role::Image,
        "icon" | "desktop icon" => Role::Icon,
        "tool bar" => Role::ToolBar,
        "status bar" => Role::StatusBar,
        "link" => Role::Link,
        "document frame"
        | "document web"
        | "document text"
        | "document spreadsheet"
        | "document presentation"
        | "document email"
        | "html container" => Role::Document,
        "tool tip" => Role::ToolTip,
        "canvas" | "drawing area" | "chart" | "animation" => Role::Canvas,
        _ => Role::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_names_map() {
        assert_eq!(role("push button"), Role::Button);
        assert_eq!(role("page tab list"), Role::TabList);
        assert_eq!(role("password text"), Role::PasswordText);
        assert_eq!(role("list box"), Role::List);
        assert_eq!(role("nonsense"), Role::Unknown);
    }
}

/// AT-SPI's raw roles that say more than their normalised role, as the neutral kinds the
/// audit's rules read.
const KINDS: &[(&str, RawKind)] = &[
    ("internal frame", RawKind::InlineFrame),
    ("embedded", RawKind::EmbeddedObject),
    ("document frame", RawKind::NestedDocument),
    ("alert", RawKind::Alert),
    ("list box", RawKind::Listbox),
    ("static", RawKind::StaticText),
    ("notification", RawKind::LiveAlert),
    ("level bar", RawKind::Meter),
    ("document web", RawKind::WebDocument),
];

/// The neutral kind of a raw AT-SPI role name (any case), if it has one.
pub fn kind(raw: &str) -> Option<RawKind> {
    KINDS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(raw))
        .map(|&(_, k)| k)
}

/// The raw AT-SPI role name of a kind.
pub fn kind_name(kind: RawKind) -> &'static str {
    KINDS
        .iter()
        .find(|&&(_, k)| k == kind)
        .map_or("", |&(name, _)| name)
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn every_kind_has_one_raw_role_that_names_it_back() {
        for k in RawKind::ALL {
            let name = kind_name(k);
            assert!(!name.is_empty(), "{k:?} has no raw role");
            assert_eq!(kind(name), Some(k), "{name}");
            assert_eq!(kind(&name.to_uppercase()), Some(k), "{name} in capitals");
            assert_eq!(KINDS.iter().filter(|(_, x)| *x == k).count(), 1, "{k:?}");
        }
        assert_eq!(kind("push button"), None);
        assert_eq!(kind(""), None);
    }

    #[test]
    fn a_browsers_page_is_a_web_document_and_a_nested_one_is_not() {
        use crate::model::{Node, NodeId};
        let page = |raw: &str| Node::new(NodeId("n".into()), Role::Document, raw);
        assert!(crate::backend::is_web_document(&page("document web")));
        assert!(!crate::backend::is_web_document(&page("document frame")));
        assert!(!crate::backend::is_web_document(&page("")));
    }
}
