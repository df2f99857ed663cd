//! A value as asked for by a write, once interpreted for the element's role: shared by the
//! write rules (preconditions, read-back) and the write planner.

use super::display::ECHO_CHARS;
use super::{format_number, quoted};

/// A value as asked for, interpreted for the element's role.
#[derive(Debug, Clone, PartialEq)]
pub enum Requested {
    Text(String),
    Number(f64),
    Toggle(bool),
    /// An option label of a combo box / drop-down.
    Option(String),
    /// `true` selects a tab, list row, tree row or cell.
    Select(bool),
    /// `true` expands an expander.
    Expand(bool),
}

impl Requested {
    /// How the request is shown; a secret shows only its length, a long text its first
    /// [`ECHO_CHARS`] characters (the whole value is in the app, not in the result).
    pub fn display(&self, secret: bool) -> String {
        match self {
            Requested::Text(t) if secret => {
                format!("(secret, {})", super::count(t.chars().count(), "char"))
            }
            Requested::Text(t) => quoted(t, ECHO_CHARS),
            Requested::Number(n) => format_number(*n),
            Requested::Toggle(b) | Requested::Select(b) | Requested::Expand(b) => b.to_string(),
            Requested::Option(o) => quoted(o, ECHO_CHARS),
        }
    }

    /// The request as typed JSON: text as a string, a number as a number, a boolean as a
    /// boolean, an option as its label; a secret as `{"secret": true, "length": N}`.
    pub fn json(&self, secret: bool) -> serde_json::Value {
        match self {
            Requested::Text(t) if secret => secret_json(t.chars().count()),
            Requested::Text(t) | Requested::Option(t) => echo_json(t),
            Requested::Number(n) => number_json(*n),
            Requested::Toggle(b) | Requested::Select(b) | Requested::Expand(b) => (*b).into(),
        }
    }
}

/// A text in JSON, cut to [`ECHO_CHARS`] characters (ending in `…` when cut).
pub fn echo_json(t: &str) -> serde_json::Value {
    let mut s = t.to_string();
    super::display::cap_echo(&mut s);
    s.into()
}

/// A secret in JSON: only its length.
pub fn secret_json(length: usize) -> serde_json::Value {
    serde_json::json!({ "secret": true, "length": length })
}

/// A number in JSON (a non-finite one, which JSON cannot hold, as null).
pub fn number_json(n: f64) -> serde_json::Value {
    serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, serde_json::Value::Number)
}
