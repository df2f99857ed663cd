//! One-line human forms of nodes, shared by the CLI, the TUI and write results. Secrets show
//! only their length; app strings are sanitized.
//!
//! Which values are shown: a value-bearing element's (text fields, numbers, toggles, choices,
//! progress bars, anything editable) always; any other element's text only when it adds to its
//! name (a browser gives every heading and label its name again as text, and every container a
//! run of U+FFFC). U+FFFC, the embedded-object character that stands for a child element, is
//! shown as `⟨obj⟩` (`⟨obj×3⟩` for a run); text made only of it is not shown at all.

use super::{AppText, Node, Role, State, Value, sanitize};

/// U+FFFC OBJECT REPLACEMENT CHARACTER: a child element's place in its parent's text.
pub const EMBEDDED_OBJECT: char = '\u{FFFC}';

/// Whether the node's role (or its `editable` state) makes its value what the node is about.
pub fn value_bearing(n: &Node) -> bool {
    n.role.is_text()
        || n.role.is_numeric()
        || n.role.is_toggle()
        || n.role.is_choice()
        || n.role == Role::ProgressBar
        || n.states.has(State::Editable)
}

/// `text` with each run of U+FFFC shown as `⟨obj⟩` / `⟨obj×N⟩`; `None` when it holds U+FFFC
/// and nothing else (white space aside): a container's text that only stands for its children.
pub fn embedded_marked(text: &AppText) -> Option<AppText> {
    let text = text.as_str();
    if !text.contains(EMBEDDED_OBJECT) {
        return Some(text.into());
    }
    if text
        .chars()
        .all(|c| c == EMBEDDED_OBJECT || c.is_whitespace())
    {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut run = 0usize;
    let flush = |out: &mut String, run: &mut usize| {
        match *run {
            0 => {}
            1 => out.push_str("⟨obj⟩"),
            n => out.push_str(&format!("⟨obj×{n}⟩")),
        }
        *run = 0;
    };
    for c in text.chars() {
        if c == EMBEDDED_OBJECT {
            run += 1;
        } else {
            flush(&mut out, &mut run);
            out.push(c);
        }
    }
    flush(&mut out, &mut run);
    Some(out.into())
}

/// Whether `text` says nothing the name does not: empty, or the name again (case and outer
/// white space aside), or contained in it.
fn repeats_name(text: &str, name: &str) -> bool {
    let (t, n) = (text.trim().to_lowercase(), name.trim().to_lowercase());
    t.is_empty() || (!n.is_empty() && n.contains(&t))
}

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

/// A duration for messages: `1.5 s`, `12 s`, `300 ms`.
pub fn seconds(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) || ms >= 10_000 {
        format!("{} s", (ms + 500) / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// `1 event`, `2 events`: a count with its noun (`one` / `many`).
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// States worth showing on a tree line (all states are in JSON and the details pane).
pub fn key_states(n: &Node) -> Vec<&'static str> {
    let mut out = Vec::new();
    // States it did not give are unknown: no word is said of them (an element with none is
    // not "disabled").
    if n.lacks_answer("GetState") {
        return out;
    }
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

/// A node's value for display, by the rules in the module doc; secrets are never shown, only
/// their length.
pub fn value_text(n: &Node) -> Option<String> {
    let v = n.value.as_ref()?;
    if n.is_secret()
        && let Value::Text { text } = v
    {
        return Some(format!(
            "(secret, {})",
            super::count(text.as_str().chars().count(), "char")
        ));
    }
    let bearing = value_bearing(n);
    match v {
        Value::Text { text } => {
            match embedded_marked(text) {
                Some(t) if bearing || !repeats_name(t.as_str(), n.name.as_str()) => {
                    Some(sanitize(&t.quoted(0), 60).into_owned())
                }
                // A field that holds only embedded objects still says it holds something.
                None if bearing => Some("⟨obj⟩".into()),
                _ => None,
            }
        }
        _ if bearing => Some(sanitize(&v.display(), 60).into_owned()),
        // A number, toggle or choice on an element of another role: shown only when it is not
        // the name again.
        _ => {
            let d = v.as_text()?;
            (!repeats_name(d.as_str(), n.name.as_str()))
                .then(|| sanitize(&v.display(), 60).into_owned())
        }
    }
}

/// An element as messages and paths name it: `button "OK"`, or its role alone when it has no
/// name.
pub fn described(n: &Node) -> String {
    if n.name.is_empty() {
        n.role.as_str().to_string()
    } else {
        format!("{} {}", n.role, n.name.quoted(40))
    }
}

/// One tree line: `row  role "name" = value [states]`.
pub fn node_line(n: &Node) -> String {
    let mut s = n.role.to_string();
    if !n.name.is_empty() {
        s.push_str(&format!(" {}", n.name.quoted(80)));
    }
    if let Some(v) = value_text(n) {
        s.push_str(" = ");
        s.push_str(&v);
    }
    let states = key_states(n);
    if !states.is_empty() {
        s.push_str(&format!(" [{}]", states.join(" ")));
    }
    for note in notes(n) {
        s.push_str(&note);
    }
    s
}

/// What a line says of a node besides its role, name, value and states, each with its own
/// leading separator: children not enumerated, a child count that lied, calls it did not
/// answer, and whether it repeats an element placed elsewhere. The tree pane shows the same.
pub fn notes(n: &Node) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(m) = &n.managed {
        out.push(format!(" — {}", m.describe()));
    }
    if let Some(claimed) = n.child_count_claimed {
        out.push(format!(
            " — says it has {} children, gave {}",
            super::group_digits(claimed),
            super::group_digits(n.children.len() as i64)
        ));
    }
    if !n.unanswered.is_empty() {
        out.push(format!(" ⚠ no answer to {}", n.unanswered.join(", ")));
    }
    if !n.malformed.is_empty() {
        out.push(format!(" ⚠ wrong answer to {}", n.malformed.join(", ")));
    }
    if !n.vanished.is_empty() {
        out.push(format!(
            " ⚠ vanished during the read ({})",
            n.vanished.join(", ")
        ));
    }
    if !n.refused.is_empty() {
        out.push(format!(" ⚠ refused: {}", n.refused.join("; ")));
    }
    if let Some(r) = &n.repeat {
        out.push(if r.cycle {
            format!(
                " ⟲ cycle: its own ancestor (row {}), not entered again",
                r.of
            )
        } else {
            format!(" ↪ also a child here: shown at row {}", r.of)
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeId, Toggle};

    fn node(role: Role, name: &str, value: Value) -> Node {
        let mut n = Node::new(NodeId("x".into()), role, "x");
        n.name = name.into();
        n.value = Some(value);
        n
    }

    fn text(t: &str) -> Value {
        Value::Text { text: t.into() }
    }

    #[test]
    fn values_show_for_value_bearing_roles() {
        assert_eq!(
            value_text(&node(Role::Text, "Name", text("Ada"))).as_deref(),
            Some("\"Ada\"")
        );
        assert_eq!(
            value_text(&node(Role::Text, "Name", text(""))).as_deref(),
            Some("\"\"")
        );
        // A field named after its content is still a field: its value shows.
        assert_eq!(
            value_text(&node(Role::Text, "Ada", text("Ada"))).as_deref(),
            Some("\"Ada\"")
        );
        let on = Value::Toggle { state: Toggle::On };
        assert_eq!(
            value_text(&node(Role::CheckBox, "S", on)).as_deref(),
            Some("on")
        );
    }

    #[test]
    fn static_text_shows_only_when_it_adds_to_the_name() {
        assert_eq!(
            value_text(&node(Role::Label, "Quantity", text("Quantity"))),
            None
        );
        assert_eq!(value_text(&node(Role::Heading, "X", text(" x "))), None);
        assert_eq!(value_text(&node(Role::Label, "", text(""))), None);
        assert_eq!(
            value_text(&node(Role::Label, "", text("Saved 3 files"))).as_deref(),
            Some("\"Saved 3 files\"")
        );
        assert_eq!(
            value_text(&node(Role::Paragraph, "Intro", text("Read more"))).as_deref(),
            Some("\"Read more\"")
        );
    }

    #[test]
    fn embedded_objects_are_marked_or_left_out() {
        let run = "\u{FFFC}\u{FFFC}\u{FFFC}\u{FFFC}";
        assert_eq!(value_text(&node(Role::Panel, "", text(run))), None);
        assert_eq!(value_text(&node(Role::Frame, "Page", text(run))), None);
        assert_eq!(
            value_text(&node(
                Role::Paragraph,
                "",
                text("See \u{FFFC} or \u{FFFC}\u{FFFC}.")
            ))
            .as_deref(),
            Some("\"See ⟨obj⟩ or ⟨obj×2⟩.\"")
        );
        assert_eq!(
            value_text(&node(Role::Text, "Note", text("\u{FFFC}"))).as_deref(),
            Some("⟨obj⟩")
        );
    }
}
