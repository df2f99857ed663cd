//! Pure write rules: what a requested value means for a role, the preconditions checked before
//! anything is sent, and how a read-back is classified. No IO.

use serde::Serialize;

use crate::model::{AppText, Node, Role, State, Toggle, Value, format_number};

pub use crate::model::Requested;

/// What a write ended as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Verified,
    Already,
    Mismatch,
    Unconfirmed,
    Secure,
    Refused,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Verified => "verified",
            Outcome::Already => "already",
            Outcome::Mismatch => "mismatch",
            Outcome::Unconfirmed => "unconfirmed",
            Outcome::Secure => "secure",
            Outcome::Refused => "refused",
        }
    }

    /// Whether the outcome counts as success (exit 0, workflow step passes).
    pub fn is_ok(self) -> bool {
        matches!(self, Outcome::Verified | Outcome::Already | Outcome::Secure)
    }

    /// What the user should do, in one line.
    pub fn advice(self) -> &'static str {
        match self {
            Outcome::Verified | Outcome::Already | Outcome::Secure => "nothing to do",
            Outcome::Mismatch => {
                "inspect the app's rules for this field; retrying the same write will not help"
            }
            Outcome::Unconfirmed => {
                "terminal: observe the tree before doing anything; never write again blindly"
            }
            Outcome::Refused => "nothing was sent; fix the input and try again",
        }
    }
}

/// How a mismatch differs from the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MismatchKind {
    /// The app changed what it was given (e.g. upper-cased it).
    Transformed,
    /// Only part of the request landed (e.g. a length limit).
    Partial,
    /// A number was limited to min–max.
    Clamped,
    /// Nothing changed and the toolkit said the write failed.
    Unchanged,
    /// The value changed, then went back.
    Reverted,
}

impl MismatchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MismatchKind::Transformed => "transformed",
            MismatchKind::Partial => "partial",
            MismatchKind::Clamped => "clamped",
            MismatchKind::Unchanged => "unchanged",
            MismatchKind::Reverted => "reverted",
        }
    }
}

/// Why a write was refused before anything was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("element is disabled (not enabled/sensitive)")]
    Disabled,
    #[error("element is read-only")]
    ReadOnly,
    #[error("a {role} does not take a value")]
    NotEditable { role: String },
    #[error("{0}")]
    BadValue(String),
    #[error(
        "{value} is outside {min}–{max} (the app would clamp it); a forced write sends it \
         anyway: `set --force` on the command line, `force: true` over MCP (the TUI never forces)"
    )]
    OutOfRange {
        value: String,
        min: String,
        max: String,
    },
    #[error("no option matches {asked:?}; options: {}", list(.options))]
    UnknownOption {
        asked: String,
        options: Vec<AppText>,
    },
    #[error("{count} options match {asked:?}: {}", list(.options))]
    AmbiguousOption {
        asked: String,
        count: usize,
        options: Vec<AppText>,
    },
    #[error("element has no way to write this value ({0})")]
    NoMethod(String),
    /// It did not answer a call that says what it is; whether it may be written is unknown.
    #[error("{0}; nothing is sent to an element treeglass cannot read")]
    Unanswered(String),
}

fn list(options: &[AppText]) -> String {
    options
        .iter()
        .map(|o| o.quoted(60))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses a boolean as the contract spells it: true/false, on/off, 1/0 (case-insensitive).
pub fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Some(true),
        "false" | "off" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// Interprets `raw` for `node`'s role and checks every precondition that needs no IO.
pub fn plan_request(node: &Node, raw: &str, force: bool) -> Result<Requested, Refusal> {
    if let Some(why) = node.unanswered_note() {
        return Err(Refusal::Unanswered(why));
    }
    let role = node.role;
    let editable_kind = node.is_editable_kind();
    if !editable_kind {
        return Err(Refusal::NotEditable {
            role: role.to_string(),
        });
    }
    if !node.is_enabled() {
        return Err(Refusal::Disabled);
    }
    if role.is_text() || node.states.has(State::Editable) && !role.is_numeric() && !role.is_choice()
    {
        if node.states.has(State::ReadOnly) || !node.states.has(State::Editable) {
            return Err(Refusal::ReadOnly);
        }
        return Ok(Requested::Text(raw.to_string()));
    }
    if role.is_numeric() {
        if node.states.has(State::ReadOnly) {
            return Err(Refusal::ReadOnly);
        }
        let v: f64 = raw.trim().parse().map_err(|_| {
            Refusal::BadValue(format!("{raw:?} is not a number (a {role} takes a number)"))
        })?;
        if !v.is_finite() {
            return Err(Refusal::BadValue(format!("{raw:?} is not a finite number")));
        }
        if let Some(Value::Number { min, max, .. }) = node.value {
            // A bound the toolkit could not report does not limit anything.
            let sane = match (min, max) {
                (Some(lo), Some(hi)) => lo <= hi,
                _ => true,
            };
            let outside = min.is_some_and(|lo| v < lo) || max.is_some_and(|hi| v > hi);
            if outside && sane && !force {
                let bound = |b: Option<f64>| b.map_or("?".to_string(), format_number);
                return Err(Refusal::OutOfRange {
                    value: format_number(v),
                    min: bound(min),
                    max: bound(max),
                });
            }
        }
        return Ok(Requested::Number(v));
    }
    let boolean = || {
        parse_bool(raw).ok_or_else(|| {
            Refusal::BadValue(format!(
                "{raw:?} is not a boolean (use true/false, on/off or 1/0 for a {role})"
            ))
        })
    };
    if role.is_toggle() {
        return Ok(Requested::Toggle(boolean()?));
    }
    if role.is_choice() {
        return Ok(Requested::Option(raw.trim().to_string()));
    }
    if role.is_selectable_item() {
        let b = boolean()?;
        if !b {
            return Err(Refusal::BadValue(
                "write true to select; selecting another item deselects this one".into(),
            ));
        }
        return Ok(Requested::Select(true));
    }
    if role == Role::Expander {
        return Ok(Requested::Expand(boolean()?));
    }
    Err(Refusal::NotEditable {
        role: role.to_string(),
    })
}

/// Picks the single option whose label matches `asked` (case-insensitive, outer space ignored).
pub fn choose_option(asked: &str, options: &[AppText]) -> Result<usize, Refusal> {
    let want = asked.trim().to_lowercase();
    let hits: Vec<usize> = options
        .iter()
        .enumerate()
        .filter(|(_, o)| o.as_str().trim().to_lowercase() == want)
        .map(|(i, _)| i)
        .collect();
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err(Refusal::UnknownOption {
            asked: asked.to_string(),
            options: options.to_vec(),
        }),
        many => Err(Refusal::AmbiguousOption {
            asked: asked.to_string(),
            count: many.len(),
            options: options.to_vec(),
        }),
    }
}

/// What a node's current state says about a request, comparable across reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Observed {
    /// The app's text.
    Text(AppText),
    Number(f64),
    Bool(bool),
    Mixed,
    /// The app's selected option (or the element's name).
    Option(Option<AppText>),
    Missing,
}

impl Observed {
    /// Shown in results; `secret` shows only the length.
    pub fn display(&self, secret: bool) -> String {
        match self {
            Observed::Text(t) if secret => {
                format!(
                    "(secret, {})",
                    crate::model::count(t.as_str().chars().count(), "char")
                )
            }
            Observed::Text(t) => t.quoted(crate::model::display::ECHO_CHARS),
            Observed::Number(n) => format_number(*n),
            Observed::Bool(b) => b.to_string(),
            Observed::Mixed => "mixed".into(),
            Observed::Option(Some(o)) => o.quoted(crate::model::display::ECHO_CHARS),
            Observed::Option(None) => "(none)".into(),
            Observed::Missing => "(no value)".into(),
        }
    }

    /// Typed JSON, like [`Requested::json`]; a mixed check box is `"mixed"`, no value `null`.
    pub fn json(&self, secret: bool) -> serde_json::Value {
        match self {
            Observed::Text(t) if secret => crate::model::secret_json(t.as_str().chars().count()),
            Observed::Text(t) => crate::model::echo_json(t.as_str()),
            Observed::Number(n) => crate::model::number_json(*n),
            Observed::Bool(b) => (*b).into(),
            Observed::Mixed => "mixed".into(),
            Observed::Option(o) => o.as_ref().map_or(serde_json::Value::Null, |o| {
                crate::model::echo_json(o.as_str())
            }),
            Observed::Missing => serde_json::Value::Null,
        }
    }
}

/// Reads what matters for `req` from a freshly read node.
pub fn observe(node: &Node, req: &Requested) -> Observed {
    match req {
        Requested::Text(_) => match &node.value {
            Some(Value::Text { text }) => Observed::Text(text.clone()),
            _ => Observed::Missing,
        },
        Requested::Number(_) => match &node.value {
            Some(Value::Number { current, .. }) => Observed::Number(*current),
            _ => Observed::Missing,
        },
        Requested::Toggle(_) => {
            if node.states.has(State::Indeterminate) {
                Observed::Mixed
            } else {
                match &node.value {
                    Some(Value::Toggle {
                        state: Toggle::Mixed,
                    }) => Observed::Mixed,
                    Some(Value::Toggle { state }) => Observed::Bool(*state == Toggle::On),
                    _ => Observed::Bool(
                        node.states.has(State::Checked) || node.states.has(State::Pressed),
                    ),
                }
            }
        }
        Requested::Option(_) => match &node.value {
            Some(Value::Choice { selected }) => Observed::Option(selected.clone()),
            // No readable selection (GTK 4 combos): unknown, not the element's name.
            _ => Observed::Missing,
        },
        Requested::Select(_) => Observed::Bool(node.states.has(State::Selected)),
        Requested::Expand(_) => Observed::Bool(node.states.has(State::Expanded)),
    }
}

fn norm_text(s: &str) -> String {
    s.replace("\r\n", "\n")
        .replace('\r', "\n")
        .trim()
        .to_string()
}

/// Whether `obs` satisfies `req`: equal text (line endings and outer white space aside), the
/// toolkit's formatting of a number (`50` → `50.0`), the same boolean, the option label.
pub fn satisfies(req: &Requested, obs: &Observed, step: f64) -> bool {
    match (req, obs) {
        (Requested::Text(want), Observed::Text(got)) => norm_text(want) == norm_text(got.as_str()),
        (Requested::Number(want), Observed::Number(got)) => {
            let tol = if step > 0.0 { step / 2.0 } else { 1e-9 };
            (want - got).abs() <= tol.max(want.abs() * 1e-9)
        }
        (Requested::Number(want), Observed::Text(got)) => got
            .as_str()
            .trim()
            .parse::<f64>()
            .is_ok_and(|g| (g - want).abs() < 1e-9),
        (Requested::Toggle(w), Observed::Bool(g))
        | (Requested::Select(w), Observed::Bool(g))
        | (Requested::Expand(w), Observed::Bool(g)) => w == g,
        (Requested::Option(w), Observed::Option(Some(g))) => {
            let g = g.as_str();
            w.trim().eq_ignore_ascii_case(g.trim())
                || w.trim().to_lowercase() == g.trim().to_lowercase()
        }
        _ => false,
    }
}

/// Classifies a read-back that does not satisfy the request.
/// `history` holds every distinct observation after dispatch, oldest first.
pub fn classify_mismatch(
    req: &Requested,
    before: &Observed,
    history: &[Observed],
    last: &Observed,
    min_max: Option<(f64, f64)>,
) -> MismatchKind {
    let reached = history.iter().any(|o| satisfies(req, o, 0.0));
    if reached && last == before {
        return MismatchKind::Reverted;
    }
    match (req, last) {
        (Requested::Number(want), Observed::Number(got)) => {
            if let Some((min, max)) = min_max
                && ((*want < min && (got - min).abs() < 1e-9)
                    || (*want > max && (got - max).abs() < 1e-9))
            {
                return MismatchKind::Clamped;
            }
            if last == before {
                MismatchKind::Unchanged
            } else {
                MismatchKind::Transformed
            }
        }
        (Requested::Text(want), Observed::Text(got)) => {
            let (w, g) = (norm_text(want), norm_text(got.as_str()));
            if last == before {
                MismatchKind::Unchanged
            } else if !g.is_empty() && w.starts_with(&g) && g.len() < w.len() {
                MismatchKind::Partial
            } else {
                MismatchKind::Transformed
            }
        }
        _ => {
            if last == before {
                MismatchKind::Unchanged
            } else {
                MismatchKind::Transformed
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeId, States};

    fn node(role: Role, value: Option<Value>, states: &[State]) -> Node {
        let mut n = Node::new(NodeId("x".into()), role, "x");
        n.value = value;
        n.states = states.iter().copied().collect::<States>();
        n
    }

    #[test]
    fn booleans() {
        for (s, b) in [
            ("true", true),
            ("OFF", false),
            ("1", true),
            ("On", true),
            ("0", false),
        ] {
            assert_eq!(parse_bool(s), Some(b), "{s}");
        }
        assert_eq!(parse_bool("maybe"), None);
    }

    #[test]
    fn preconditions() {
        let text = node(Role::Text, None, &[State::Enabled, State::Editable]);
        assert_eq!(
            plan_request(&text, "hi", false),
            Ok(Requested::Text("hi".into()))
        );
        let disabled = node(Role::Text, None, &[State::Editable]);
        assert_eq!(plan_request(&disabled, "hi", false), Err(Refusal::Disabled));
        let ro = node(Role::Text, None, &[State::Enabled, State::ReadOnly]);
        assert_eq!(plan_request(&ro, "hi", false), Err(Refusal::ReadOnly));
        let label = node(Role::Label, None, &[State::Enabled]);
        assert!(matches!(
            plan_request(&label, "hi", false),
            Err(Refusal::NotEditable { .. })
        ));
        let slider = node(
            Role::Slider,
            Some(Value::Number {
                current: 1.0,
                min: Some(0.0),
                max: Some(100.0),
                step: Some(1.0),
            }),
            &[State::Enabled],
        );
        assert!(matches!(
            plan_request(&slider, "1000", false),
            Err(Refusal::OutOfRange { .. })
        ));
        assert_eq!(
            plan_request(&slider, "1000", true),
            Ok(Requested::Number(1000.0))
        );
        assert!(matches!(
            plan_request(&slider, "abc", false),
            Err(Refusal::BadValue(_))
        ));
        let check = node(Role::CheckBox, None, &[State::Enabled]);
        assert_eq!(
            plan_request(&check, "on", false),
            Ok(Requested::Toggle(true))
        );
        assert!(matches!(
            plan_request(&check, "perhaps", false),
            Err(Refusal::BadValue(_))
        ));
    }

    #[test]
    fn options() {
        let opts: Vec<AppText> = ["Red", "Green", "Dark Red"]
            .iter()
            .map(|s| AppText::from(*s))
            .collect();
        assert_eq!(choose_option("green", &opts), Ok(1));
        assert_eq!(choose_option(" RED ", &opts), Ok(0));
        assert!(matches!(
            choose_option("Purple", &opts),
            Err(Refusal::UnknownOption { .. })
        ));
        let dup: Vec<AppText> = ["A", "a"].iter().map(|s| AppText::from(*s)).collect();
        assert!(matches!(
            choose_option("A", &dup),
            Err(Refusal::AmbiguousOption { count: 2, .. })
        ));
    }

    #[test]
    fn satisfaction() {
        let t = Requested::Text("hello\n".into());
        assert!(satisfies(&t, &Observed::Text("  hello\r\n".into()), 0.0));
        assert!(!satisfies(&t, &Observed::Text("HELLO".into()), 0.0));
        assert!(satisfies(
            &Requested::Number(50.0),
            &Observed::Number(50.0000000001),
            0.0
        ));
        assert!(satisfies(
            &Requested::Number(50.0),
            &Observed::Text("50.0".into()),
            0.0
        ));
        assert!(satisfies(
            &Requested::Option("dark red".into()),
            &Observed::Option(Some("Dark Red".into())),
            0.0
        ));
    }

    #[test]
    fn mismatch_kinds() {
        let req = Requested::Text("hello".into());
        let before = Observed::Text("".into());
        assert_eq!(
            classify_mismatch(&req, &before, &[], &Observed::Text("HELLO".into()), None),
            MismatchKind::Transformed
        );
        assert_eq!(
            classify_mismatch(&req, &before, &[], &Observed::Text("hel".into()), None),
            MismatchKind::Partial
        );
        assert_eq!(
            classify_mismatch(
                &req,
                &before,
                &[Observed::Text("hello".into())],
                &before,
                None
            ),
            MismatchKind::Reverted
        );
        assert_eq!(
            classify_mismatch(
                &Requested::Number(1000.0),
                &Observed::Number(5.0),
                &[],
                &Observed::Number(100.0),
                Some((0.0, 100.0))
            ),
            MismatchKind::Clamped
        );
        assert_eq!(
            classify_mismatch(&req, &before, &[], &before, None),
            MismatchKind::Unchanged
        );
    }
}
