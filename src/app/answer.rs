//! What a use case answers: how it ended (its [`Kind`], or none when it succeeded), the text a
//! person reads and the JSON document a program reads, built once here. The command line
//! prints one of the two forms and exits with the kind's code; MCP sends both, with the kind
//! and the one-line message as its error.

use serde_json::Value as Json;

use super::error::Kind;

/// A use case's answer, in both forms.
pub trait Answer {
    /// How it ended (`None`: it succeeded).
    fn kind(&self) -> Option<Kind>;
    /// Why it did not succeed, in one line (app strings in it escaped).
    fn message(&self) -> String;
    /// The text form (app strings in it escaped).
    fn text(&self) -> String;
    /// The JSON document.
    fn json(&self) -> Json;
    /// The JSON document as the command line prints it (pretty, escaped; fields in the order
    /// of the type they come from where there is one).
    fn json_text(&self) -> String {
        crate::json::to_string(&self.json())
    }
}
