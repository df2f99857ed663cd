//! The step mapping: what a write, an action or an observed state becomes as a workflow step
//! — its action, transaction, text or value, expectation, and the readable part of its id.

use crate::model::{AppText, Node, Role, Snapshot, State, Toggle, Value, format_number};
use crate::selector::{Query, Resolution, RoleSpec, StateReq, Target, resolve, suggest};
use crate::workflow::format::*;

/// The action, `text`/`value` and expectation a write maps to (before secrets are handled).
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    pub action: Action,
    pub transaction: Transaction,
    pub text: Option<String>,
    pub value: Option<String>,
    /// Why the mapping is doubtful (the value does not fit the role).
    pub problem: Option<String>,
}

impl Mapping {
    pub(super) fn new(action: Action) -> Mapping {
        Mapping {
            action,
            transaction: match action {
                Action::Click => Transaction::NonIdempotent,
                Action::Wait | Action::Observe => Transaction::ReadOnly,
                _ => Transaction::Idempotent,
            },
            text: None,
            value: None,
            problem: None,
        }
    }
}

/// The mapping table of the contract (semantics §5) for a value written into `node`.
pub fn map_write(node: &Node, raw: &str) -> Mapping {
    let role = node.role;
    if role.is_numeric() {
        let mut m = Mapping::new(Action::Type);
        match raw.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => m.text = Some(format_number(v)),
            _ => {
                m.text = Some(raw.trim().to_string());
                m.problem = Some(format!("a {role} takes a number"));
            }
        }
        return m;
    }
    if node.takes_text() {
        if raw.is_empty() {
            return Mapping::new(Action::Clear);
        }
        let mut m = Mapping::new(Action::Type);
        m.text = Some(raw.to_string());
        return m;
    }
    let boolean = crate::write::rules::parse_bool(raw);
    if role.is_toggle() || role == Role::Expander {
        return match boolean {
            Some(true) => Mapping::new(Action::Check),
            Some(false) => Mapping::new(Action::Uncheck),
            None => {
                let mut m = Mapping::new(Action::Check);
                m.problem = Some(format!("a {role} takes true or false"));
                m
            }
        };
    }
    if role.is_choice() {
        let mut m = Mapping::new(Action::Select);
        m.value = Some(raw.trim().to_string());
        if raw.trim().is_empty() {
            m.problem = Some("no option label".into());
            m.value = None;
        }
        return m;
    }
    if role.is_selectable_item() {
        let mut m = Mapping::new(Action::Select);
        if boolean != Some(true) {
            m.problem = Some(format!("a {role} is selected by writing true"));
        }
        return m;
    }
    let mut m = Mapping::new(Action::Type);
    m.text = Some(raw.to_string());
    m.problem = Some(format!("a {role} does not take a value"));
    m
}

/// The action `invoke` presses when none is named (the write engine's order).
pub fn default_action(node: &Node) -> Option<AppText> {
    ["click", "press", "activate", "toggle", "select", "expand"]
        .iter()
        .find_map(|p| {
            node.actions
                .iter()
                .find(|a| a.as_str().eq_ignore_ascii_case(p))
        })
        .or_else(|| node.actions.first())
        .cloned()
}

/// `lower-case-words` of `s` joined by `sep`, at most 48 characters; empty when `s` has no
/// letters or digits. The one slug: step ids, input names and exported file names.
pub fn slug(s: &str, sep: char) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with(sep) {
            out.push(sep);
        }
        if out.chars().count() >= 48 {
            break;
        }
    }
    out.trim_end_matches(sep).to_string()
}

/// The readable part of a step id: the element's name, unless the name is only its current
/// value (a combo box named after its option), then its description, else its role.
pub(super) fn id_label(node: &Node) -> String {
    let value = node.value.as_ref().and_then(Value::as_text);
    let name_is_value = value.is_some_and(|v| v.as_str().trim() == node.name.as_str().trim());
    [
        (!name_is_value).then_some(node.name.as_str()),
        Some(node.description.as_str()),
    ]
    .into_iter()
    .flatten()
    .map(|s| slug(s, '-'))
    .find(|s| !s.is_empty())
    .unwrap_or_else(|| slug(node.role.as_str(), '-'))
}

/// A target with one state required (or forbidden) on its element clause, replacing any
/// requirement on that state it had.
pub(super) fn with_state(t: &Target, req: StateReq) -> Option<Target> {
    let mut states: Vec<StateReq> = t
        .states()
        .iter()
        .copied()
        .filter(|s| s.state != req.state)
        .collect();
    states.push(req);
    // A state narrows what a position counts: `#2` among checked ones is another element.
    if t.nth().is_some() {
        return None;
    }
    let out = t
        .with_parts(crate::selector::Parts {
            states,
            ..t.parts()
        })
        .ok()?;
    (out.to_string().chars().count() <= crate::selector::MAX_TARGET_CHARS).then_some(out)
}

/// The first line of `s`, trimmed, at most 1024 characters: a `textContains` that holds
/// wherever `s` is shown.
pub(super) fn contains_text(s: &str) -> Option<String> {
    let line = s.trim().lines().next().unwrap_or("").trim();
    let cut: String = line.chars().take(MAX_PREDICATE_CHARS).collect();
    (!cut.is_empty()).then_some(cut)
}

/// The expectation a step's effect satisfies (see the module doc).
pub(super) fn expect_for(
    action: Action,
    target: Option<&Target>,
    node: Option<&Node>,
    text: Option<&str>,
    value: Option<&str>,
    secret: bool,
) -> Option<Predicate> {
    let target = target?;
    let visible = || Some(Predicate::Visible(target.to_string()));
    let role = node.map(|n| n.role);
    let stateful = |state: State, present: bool| {
        with_state(target, StateReq { state, present })
            .map(|t| Predicate::Visible(t.to_string()))
            .or_else(visible)
    };
    match action {
        Action::Type if secret => visible(),
        Action::Type => text.and_then(contains_text).map(Predicate::TextContains),
        Action::Clear | Action::Wait => visible(),
        Action::Check | Action::Uncheck => {
            let on = action == Action::Check;
            let state = match node {
                Some(n) if n.role == Role::Expander => State::Expanded,
                // A toolkit that marks "on" with `pressed` and not `checked` (seen only while on).
                Some(n) if n.states.has(State::Pressed) && !n.states.has(State::Checked) => {
                    State::Pressed
                }
                _ => State::Checked,
            };
            stateful(state, on)
        }
        Action::Select if role.is_some_and(Role::is_choice) => value
            .and_then(contains_text)
            .map(Predicate::TextContains)
            .or_else(visible),
        Action::Select => stateful(State::Selected, true),
        _ => None,
    }
}

/// The value that brings `node` to the state it is in now through `set` (what an observed change
/// records), or `None` when it holds nothing recordable: a mixed check box, a deselected row, an
/// element with no value. A sensitive field's text is never read: a non-empty one answers a
/// placeholder that the step replaces with an input reference.
pub(super) fn state_value(node: &Node) -> Option<String> {
    let secret = node.is_secret();
    let raw = match (&node.value, node.role) {
        (Some(Value::Text { text }), _) if secret => {
            if text.is_empty() {
                String::new()
            } else {
                // Never read: the step refers to an input.
                "\u{1}".into()
            }
        }
        // The app's text becomes the step's value: workflow data, escaped wherever it is shown.
        (Some(Value::Text { text }), _) => text.as_str().to_string(),
        (Some(Value::Number { current, .. }), _) => format_number(*current),
        (
            Some(Value::Toggle {
                state: Toggle::Mixed,
            }),
            _,
        ) => return None,
        (Some(Value::Toggle { state }), _) => (*state == Toggle::On).to_string(),
        (Some(Value::Choice { selected }), _) => selected.as_ref()?.as_str().to_string(),
        (None, r) if r.is_selectable_item() => {
            if !node.states.has(State::Selected) {
                return None;
            }
            "true".into()
        }
        (None, Role::Expander) => node.states.has(State::Expanded).to_string(),
        (None, r) if r.is_toggle() => {
            (node.states.has(State::Checked) || node.states.has(State::Pressed)).to_string()
        }
        _ => return None,
    };
    Some(raw)
}

/// Whether a suggested target survives a change of the element's value.
pub(super) enum Stability {
    Stable,
    /// The suggestion named the element by its value; this one does not and is unique.
    Replaced(Target),
    /// It names the element by its value (shown) and nothing better is unique.
    ValueNamed(AppText),
}

/// Toolkits often name a combo box after its selected option (GTK does unless the app sets a
/// name), so `combo-box "Red"` stops resolving once Blue is chosen. When the suggestion's query
/// is the element's current value, a target by description, by role alone, or by role inside
/// the parent's suggestion is preferred if it is unique.
pub(super) fn stable_alternative(snap: &Snapshot, row: usize, t: &Target) -> Stability {
    let Some(node) = snap.get(row) else {
        return Stability::Stable;
    };
    let Some(value) = node.value.as_ref().and_then(Value::as_text) else {
        return Stability::Stable;
    };
    let value_named = t.query().is_some_and(|q| {
        !value.as_str().trim().is_empty() && q.text().trim() == value.as_str().trim()
    });
    if !value_named {
        return Stability::Stable;
    }
    let role = Some(RoleSpec::Role(node.role));
    let mut tries: Vec<Target> = Vec::new();
    let desc = node.description.as_str().trim();
    if !desc.is_empty()
        && desc != value.as_str().trim()
        && let Ok(q) = Query::tiered(desc)
    {
        tries.extend(Target::new(role.clone(), Some(q), Vec::new()).ok());
    }
    tries.extend(Target::new(role.clone(), None, Vec::new()).ok());
    if let Some(outer) = node.parent.and_then(|p| suggest(snap, p)) {
        for base in tries.clone() {
            tries.extend(base.inside(outer.clone()).ok());
        }
    }
    let unique_here =
        |c: &Target| matches!(resolve(snap, c), Resolution::Unique { row: r, .. } if r == row);
    match tries.into_iter().find(|c| {
        c.to_string().chars().count() <= crate::selector::MAX_TARGET_CHARS && unique_here(c)
    }) {
        Some(alt) => Stability::Replaced(alt),
        None => Stability::ValueNamed(value),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::Recorder;
    use super::*;
    use crate::model::{NodeId, States};

    fn node(role: Role, name: &str, states: &[State]) -> Node {
        let mut n = Node::new(NodeId("x".into()), role, "x");
        n.name = name.into();
        n.states = states.iter().copied().collect::<States>();
        n
    }

    #[test]
    fn mapping_table() {
        let text = node(Role::Text, "Full name", &[State::Editable]);
        let m = map_write(&text, "Ada");
        assert_eq!(
            (m.action, m.transaction),
            (Action::Type, Transaction::Idempotent)
        );
        assert_eq!(m.text.as_deref(), Some("Ada"));
        assert_eq!(map_write(&text, "").action, Action::Clear);
        let spin = node(Role::SpinButton, "Quantity", &[]);
        assert_eq!(map_write(&spin, " 42.0 ").text.as_deref(), Some("42"));
        assert!(map_write(&spin, "many").problem.is_some());
        let cb = node(Role::CheckBox, "Subscribe", &[]);
        assert_eq!(map_write(&cb, "on").action, Action::Check);
        assert_eq!(map_write(&cb, "0").action, Action::Uncheck);
        assert!(map_write(&cb, "maybe").problem.is_some());
        let combo = node(Role::ComboBox, "Colour", &[]);
        let m = map_write(&combo, "Blue");
        assert_eq!(
            (m.action, m.value.as_deref()),
            (Action::Select, Some("Blue"))
        );
        let tab = node(Role::Tab, "Advanced", &[]);
        let m = map_write(&tab, "true");
        assert_eq!((m.action, m.value.as_deref()), (Action::Select, None));
        let exp = node(Role::Expander, "More", &[]);
        assert_eq!(map_write(&exp, "false").action, Action::Uncheck);
        assert_eq!(
            Mapping::new(Action::Click).transaction,
            Transaction::NonIdempotent
        );
        assert_eq!(
            Mapping::new(Action::Wait).transaction,
            Transaction::ReadOnly
        );
        assert_eq!(
            Mapping::new(Action::Observe).transaction,
            Transaction::ReadOnly
        );
    }

    #[test]
    fn slugs_and_ids() {
        assert_eq!(slug("Full name", '-'), "full-name");
        assert_eq!(slug("  Über—Größe!! ", '-'), "über-größe");
        assert_eq!(slug("***", '-'), "");
        let mut r = Recorder::new("t");
        let a = r.record_observe();
        let b = r.record_observe();
        assert_eq!(r.steps()[a].step.id, "observe");
        assert_eq!(r.steps()[b].step.id, "observe-2");
    }

    #[test]
    fn state_targets() {
        let t = Target::parse("check-box \"Sub\" [!checked] in group \"G\"").unwrap();
        let on = with_state(&t, StateReq::must(State::Checked)).unwrap();
        assert_eq!(on.to_string(), "check-box \"Sub\" [checked] in group \"G\"");
    }
}
