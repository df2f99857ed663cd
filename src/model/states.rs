//! States and interfaces as small bit sets with canonical kebab-case names.

use serde::{Deserialize, Serialize};

macro_rules! bitset {
    ($(#[$m:meta])* $set:ident, $item:ident, $repr:ty { $($variant:ident => $name:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $item { $($variant),* }

        impl $item {
            /// Every member, in declaration order.
            pub const ALL: &'static [$item] = &[$($item::$variant),*];
            /// Canonical kebab-case name.
            pub fn as_str(self) -> &'static str {
                match self { $($item::$variant => $name),* }
            }
            /// Parses a canonical name.
            pub fn from_name(name: &str) -> Option<$item> {
                match name { $($name => Some($item::$variant),)* _ => None }
            }
        }

        impl std::fmt::Display for $item {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[doc = concat!("A set of [`", stringify!($item), "`].")]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $set(pub $repr);

        impl $set {
            /// The empty set.
            pub const EMPTY: $set = $set(0);
            /// Whether `item` is in the set.
            pub fn has(self, item: $item) -> bool {
                self.0 & (1 << item as u32) != 0
            }
            /// Adds or removes `item`.
            pub fn set(&mut self, item: $item, on: bool) {
                if on { self.0 |= 1 << item as u32 } else { self.0 &= !(1 << item as u32) }
            }
            /// Builder form of [`Self::set`].
            pub fn with(mut self, item: $item) -> Self {
                self.set(item, true);
                self
            }
            /// Members, in declaration order.
            pub fn iter(self) -> impl Iterator<Item = $item> {
                $item::ALL.iter().copied().filter(move |i| self.has(*i))
            }
            /// Members' names.
            pub fn names(self) -> Vec<&'static str> {
                self.iter().map(|i| i.as_str()).collect()
            }
        }

        impl FromIterator<$item> for $set {
            fn from_iter<I: IntoIterator<Item = $item>>(iter: I) -> Self {
                let mut s = $set::EMPTY;
                for i in iter { s.set(i, true); }
                s
            }
        }

        impl Serialize for $set {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.names())
            }
        }

        impl<'de> Deserialize<'de> for $set {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let names = Vec::<String>::deserialize(d)?;
                names.iter().map(|n| $item::from_name(n).ok_or_else(|| {
                    serde::de::Error::custom(format!(concat!("unknown ", stringify!($item), " `{}`"), n))
                })).collect()
            }
        }
    };
}

bitset! {
    /// A state of a node, normalised across toolkits.
    States, State, u64 {
        Enabled => "enabled",
        Sensitive => "sensitive",
        Showing => "showing",
        Visible => "visible",
        Focused => "focused",
        Focusable => "focusable",
        Checkable => "checkable",
        Checked => "checked",
        Indeterminate => "indeterminate",
        Pressed => "pressed",
        Selected => "selected",
        Selectable => "selectable",
        Expanded => "expanded",
        Expandable => "expandable",
        Collapsed => "collapsed",
        Editable => "editable",
        ReadOnly => "read-only",
        Required => "required",
        MultiLine => "multi-line",
        SingleLine => "single-line",
        ManagesDescendants => "manages-descendants",
        Active => "active",
        Modal => "modal",
        Invalid => "invalid",
        Busy => "busy",
        Defunct => "defunct",
        HasPopup => "has-popup",
        Horizontal => "horizontal",
        Vertical => "vertical",
        Visited => "visited",
        Transient => "transient",
        Armed => "armed",
    }
}

bitset! {
    /// An accessibility interface (capability) a node implements.
    Interfaces, Interface, u32 {
        Accessible => "accessible",
        Action => "action",
        Component => "component",
        Document => "document",
        EditableText => "editable-text",
        Hypertext => "hypertext",
        Hyperlink => "hyperlink",
        Image => "image",
        Selection => "selection",
        Table => "table",
        TableCell => "table-cell",
        Text => "text",
        Value => "value",
        Collection => "collection",
        Application => "application",
    }
}

impl State {
    /// A state name written loosely: any case, `_` or a space for `-`, or run together
    /// (`read_only`, `Read Only`, `readonly`, `multiline`): how people and toolkits spell them.
    pub fn from_loose_name(raw: &str) -> Option<State> {
        let norm = raw.to_ascii_lowercase().replace(['_', ' '], "-");
        match norm.as_str() {
            "multiline" => Some(State::MultiLine),
            "singleline" => Some(State::SingleLine),
            "readonly" => Some(State::ReadOnly),
            other => State::from_name(other),
        }
    }
}

impl Interface {
    /// The interface a platform names `EditableText`, `Value`, … (AT-SPI's D-Bus names end in
    /// these: the backend strips its prefix).
    pub fn from_short_name(short: &str) -> Option<Interface> {
        Some(match short {
            "Accessible" => Interface::Accessible,
            "Action" => Interface::Action,
            "Component" => Interface::Component,
            "Document" => Interface::Document,
            "EditableText" => Interface::EditableText,
            "Hypertext" => Interface::Hypertext,
            "Hyperlink" => Interface::Hyperlink,
            "Image" => Interface::Image,
            "Selection" => Interface::Selection,
            "Table" => Interface::Table,
            "TableCell" => Interface::TableCell,
            "Text" => Interface::Text,
            "Value" => Interface::Value,
            "Collection" => Interface::Collection,
            "Application" => Interface::Application,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_ops() {
        let mut s = States::EMPTY.with(State::Enabled).with(State::Checked);
        assert!(s.has(State::Checked));
        s.set(State::Checked, false);
        assert_eq!(s.names(), vec!["enabled"]);
        assert_eq!(State::from_loose_name("read_only"), Some(State::ReadOnly));
        assert_eq!(
            Interface::from_short_name("EditableText"),
            Some(Interface::EditableText)
        );
    }

    #[test]
    fn all_states_fit() {
        assert!(State::ALL.len() <= 64);
        assert!(Interface::ALL.len() <= 32);
    }
}
