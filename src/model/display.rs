//! One-line human forms of nodes, shared by the CLI, the TUI and write results. Secrets show
//! only their length; app strings are sanitized.

use super::{Node, State, Value, quoted, sanitize};

/// Values echoed in results (requested, before, observed, samples) are cut to this many
/// characters in text and JSON output: a 10 MB value is in the app, not in every line of a log.
pub const ECHO_CHARS: usize = 200;

/// Cuts `s` to [`ECHO_CHARS`] characters, the last one an ellipsis. Cut only after secrets
/// were masked: a cut secret would no longer be recognised.
pub fn cap_echo(s: &mut String) {
    if s.chars().nth(ECHO_CHARS).is_some() {
        let end = s
            .char_indices()
            .nth(ECHO_CHARS - 1)
            .map_or(s.len(), |(i, _)| i);
        s.truncate(end);
        s.push('…');
    }
}

/// States worth showing on a tree line (all states are in JSON and the details pane).
pub fn key_states(n: &Node) -> Vec<&'static str> {
    let mut out = Vec::new();
    if !n.is_enabled() {
        out.push("disabled");
    }
    for s in [
        State::Focused,
        State::Checked,
        State::Indeterminate,
        State::Pressed,
        State::Selected,
        State::Expanded,
        State::ReadOnly,
        State::Required,
        State::Invalid,
    ] {
        if n.states.has(s) {
            out.push(s.as_str());
        }
    }
    out
}

/// A node's value for display; secrets are never shown, only their length.
pub fn value_text(n: &Node) -> Option<String> {
    let v = n.value.as_ref()?;
    if n.is_secret() {
        if let Value::Text { text } = v {
            return Some(format!("(secret, {} chars)", text.chars().count()));
        }
    }
    Some(sanitize(&v.display(), 60).into_owned())
}

/// One tree line: `row  role "name" = value [states]`.
pub fn node_line(n: &Node) -> String {
    let mut s = n.role.to_string();
    if !n.name.is_empty() {
        s.push_str(&format!(" {}", quoted(&n.name, 80)));
    }
    if let Some(v) = value_text(n) {
        s.push_str(" = ");
        s.push_str(&v);
    }
    let states = key_states(n);
    if !states.is_empty() {
        s.push_str(&format!(" [{}]", states.join(" ")));
    }
    s
}
