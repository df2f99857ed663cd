//! Targets: naming elements by meaning — the grammar (parse ⇄ canonical print, string and JSON
//! forms), resolution against a snapshot, and the shortest unique target of a node, graded by how
//! well it survives changes to the app. Pure: no IO.
//!
//! # String form
//!
//! ```text
//! target = clause { "in" clause }        the element, then an ancestor, then its ancestor, …
//! clause = item { item }                 each kind of item at most once, any order
//! item   = ROLE                          a normalised role name, lower case: check-box, button, …
//!        | "role:" STRING                a raw toolkit role, compared case-insensitively
//!        | QUERY                         matched against name, description, value
//!        | "[" state { sep state } "]"   states; "!" before a name means it must not hold;
//!                                        sep is white space or a comma
//!        | "labelled-by" QUERY           matched against the element's label relation
//!        | "after" [ROLE] QUERY          the nearest named sibling of ROLE (default: label)
//!                                        before the element meets QUERY
//!        | "#" N                         the N-th match (1-based) in document order
//! QUERY  = [ "=" | "*" | "~" ] STRING    bare = tiered, = exact, * substring, ~ fuzzy
//! STRING = '"' { char | escape } '"'     escapes: \" \\ \n \r \t \0 \xHH \u{H…}
//! ```
//!
//! Examples: `check-box "Enable" [enabled !checked] in frame "Settings"`, `button`,
//! `="Save"`, `~"emvl"`, `role:"push button" *"save" in dialog`, `[focused]`,
//! `text labelled-by "Full name:"`, `text after label "City:"`, `check-box "checkbutton" #3`.
//!
//! The canonical printer writes items in the order role, query, states (sorted in declaration
//! order of [`State`]), `labelled-by`, `after` (always with its role), `#N`, one space apart,
//! and escapes `"`, `\` and every character the model's [`sanitize`](crate::model::sanitize)
//! would escape, so a printed target never carries a raw control character, ANSI escape or bidi
//! override to a terminal. Every target [`Target::parse`] accepts prints to a string that parses
//! back to an equal target.
//!
//! Decisions where the contract is silent:
//! - Role names, `in`, `after` and `labelled-by` are lower case only; `Button` is not a role,
//!   so the TUI's lenient parse treats a capitalised word as text to search for. `labeled-by`
//!   (one l) is accepted and printed as `labelled-by`.
//! - Query text and raw roles are trimmed of outer white space when built; an empty query is
//!   an error. Matching trims node fields the same way.
//! - A position needs something to count: a clause of only `#N` is refused, and so is `#0`.
//! - A string of at most [`MAX_TARGET_CHARS`] characters is accepted only when its canonical
//!   form also fits, so every parsed target can be stored in a workflow file.
//! - `within` nests at most [`MAX_WITHIN`] levels; deeper input is refused with a clear error,
//!   so no code path recurses deeper than that.
//! - Element tokens (`s0000002a:11`) are not targets: the caller tells them apart first.
//!
//! # JSON form
//!
//! `{"role": "check-box" | "spin button" | {"raw": "push button"}, "query": "Save" |
//! {"text": "Save", "mode": "exact|substring|fuzzy|tiered"}, "states": ["enabled", "!checked"],
//! "label": QUERY, "after": "City:" | {"role": "label", "query": QUERY}, "nth": 3,
//! "within": {…}}`, every field optional but at least one of role, query, states, label and
//! after present. A `role` string that is not a normalised role name but is a raw AT-SPI role
//! name (`"spin button"`) is taken as that raw role (the string form `role:"spin button"`).
//! [`Target::parse`] takes the JSON form when the input starts with `{`;
//! `Serialize`/`Deserialize` produce and accept it.
//!
//! Resolution rules are documented in [`resolve`](resolve()); suggestion rules and grades in
//! [`suggest`](suggest()).

mod distance;
mod index;
mod json;
mod near;
mod parse;
mod print;
mod resolve;
mod suggest;

pub use index::SnapshotIndex;
pub use near::NEAR_MISS_LIMIT;
pub use parse::ParseError;
pub use resolve::{
    CANDIDATE_LIMIT, Candidate, Field, Resolution, Tier, match_all, matches, resolve,
    resolve_for_write, resolve_with,
};
pub use suggest::{
    RowSuggester, suggest, suggest_all, suggest_all_with, suggest_rows_with, suggest_with,
};

use crate::model::{Role, State};

/// The longest target string accepted (the workflow format stores targets in this many
/// characters).
pub const MAX_TARGET_CHARS: usize = 1024;

/// How many `in` levels a target may nest.
pub const MAX_WITHIN: usize = 32;

/// A target that cannot be built as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("a target needs a role, a query or states")]
    Empty,
    #[error("the query is empty")]
    EmptyQuery,
    #[error("the raw role is empty")]
    EmptyRawRole,
    #[error("state {0} is listed twice")]
    DuplicateState(State),
    #[error("state {0} is required both to hold and not to hold")]
    ContradictoryStates(State),
    #[error("`in` nests {depth} levels deep; the limit is {MAX_WITHIN}")]
    TooDeep { depth: usize },
    #[error("positions count from 1: #0 names nothing")]
    ZeroPosition,
    #[error("a position needs something to count: add a role, a query, states, a label or after")]
    PositionAlone,
    #[error("the text is {0} characters long; a target holds at most {MAX_TARGET_CHARS}")]
    TooLong(usize),
}

/// Which role a target asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RoleSpec {
    /// A normalised role, matched against [`Node::role`](crate::model::Node).
    Role(Role),
    /// A raw toolkit role name (`push button`), matched case-insensitively against
    /// [`Node::raw_role`](crate::model::Node).
    Raw(String),
}

impl From<Role> for RoleSpec {
    fn from(role: Role) -> Self {
        RoleSpec::Role(role)
    }
}

/// How a query's text is compared with a node's name, description and value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QueryMode {
    /// Exact, else case-insensitive substring, else fuzzy: the best tier with any match wins.
    #[default]
    Tiered,
    /// Case-sensitive equality (outer white space aside) only.
    Exact,
    /// Case-insensitive substring only.
    Substring,
    /// Fuzzy (skim) only.
    Fuzzy,
}

impl QueryMode {
    /// The name used in the JSON form.
    pub fn as_str(self) -> &'static str {
        match self {
            QueryMode::Tiered => "tiered",
            QueryMode::Exact => "exact",
            QueryMode::Substring => "substring",
            QueryMode::Fuzzy => "fuzzy",
        }
    }

    /// Parses a JSON mode name.
    pub fn from_name(name: &str) -> Option<QueryMode> {
        [
            QueryMode::Tiered,
            QueryMode::Exact,
            QueryMode::Substring,
            QueryMode::Fuzzy,
        ]
        .into_iter()
        .find(|m| m.as_str() == name)
    }

    /// The prefix that selects this mode in the string form.
    pub fn prefix(self) -> &'static str {
        match self {
            QueryMode::Tiered => "",
            QueryMode::Exact => "=",
            QueryMode::Substring => "*",
            QueryMode::Fuzzy => "~",
        }
    }
}

/// Text to look for in name, description and value. The text is trimmed and never empty.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Query {
    text: String,
    mode: QueryMode,
}

impl Query {
    /// A query; outer white space is dropped because matching ignores it anyway.
    pub fn new(text: impl Into<String>, mode: QueryMode) -> Result<Query, TargetError> {
        let text: String = text.into();
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(TargetError::EmptyQuery);
        }
        let text = if trimmed.len() == text.len() {
            text
        } else {
            trimmed.to_string()
        };
        Ok(Query { text, mode })
    }

    /// A tiered query (exact, else substring, else fuzzy).
    pub fn tiered(text: impl Into<String>) -> Result<Query, TargetError> {
        Query::new(text, QueryMode::Tiered)
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn mode(&self) -> QueryMode {
        self.mode
    }
}

/// A state that must hold (`present`) or must not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateReq {
    pub state: State,
    pub present: bool,
}

impl StateReq {
    pub fn must(state: State) -> StateReq {
        StateReq {
            state,
            present: true,
        }
    }

    pub fn must_not(state: State) -> StateReq {
        StateReq {
            state,
            present: false,
        }
    }
}

/// The neighbour an element must follow: the nearest sibling before it that has this role and
/// a name (default role: label), whose text meets the query (`after label "City:"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Neighbour {
    role: Role,
    query: Query,
}

impl Neighbour {
    pub fn new(role: Role, query: Query) -> Neighbour {
        Neighbour { role, query }
    }

    /// The nearest named label before the element.
    pub fn label(query: Query) -> Neighbour {
        Neighbour::new(Role::Label, query)
    }

    pub fn role(&self) -> Role {
        self.role
    }

    pub fn query(&self) -> &Query {
        &self.query
    }
}

/// How well a target survives changes to the app, judged from the target alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// Names the element by what it is: role, name, description.
    Stable,
    /// Leans on its surroundings or condition: states, a label, a neighbour, an ancestor.
    Contextual,
    /// Counts look-alikes (`#n`): breaks when one is added or removed before it.
    Positional,
}

impl Grade {
    pub fn as_str(self) -> &'static str {
        match self {
            Grade::Stable => "stable",
            Grade::Contextual => "contextual",
            Grade::Positional => "positional",
        }
    }
}

impl std::fmt::Display for Grade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything one clause can ask for, for building a [`Target`] with [`Target::from_parts`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parts {
    pub role: Option<RoleSpec>,
    pub query: Option<Query>,
    pub states: Vec<StateReq>,
    pub label: Option<Query>,
    pub after: Option<Neighbour>,
    pub nth: Option<u32>,
}

/// Names elements by meaning: role, query, states, label, neighbour, position, and an ancestor
/// target. At least one of role, query, states, label and neighbour is set, states are sorted
/// and free of duplicates, a position is at least 1, and `within` nests at most
/// [`MAX_WITHIN`] levels; the constructors keep these invariants.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    role: Option<RoleSpec>,
    query: Option<Query>,
    states: Vec<StateReq>,
    label: Option<Query>,
    after: Option<Neighbour>,
    nth: Option<u32>,
    within: Option<Box<Target>>,
}

impl Target {
    /// A target without an ancestor. Raw roles are trimmed; states are sorted.
    pub fn new(
        role: Option<RoleSpec>,
        query: Option<Query>,
        states: Vec<StateReq>,
    ) -> Result<Target, TargetError> {
        Target::from_parts(Parts {
            role,
            query,
            states,
            ..Parts::default()
        })
    }

    /// A target (without an ancestor) from all its parts.
    pub fn from_parts(parts: Parts) -> Result<Target, TargetError> {
        let Parts {
            role,
            query,
            mut states,
            label,
            after,
            nth,
        } = parts;
        let role = match role {
            Some(RoleSpec::Raw(raw)) => {
                let trimmed = raw.trim();
                if trimmed.is_empty() {
                    return Err(TargetError::EmptyRawRole);
                }
                Some(RoleSpec::Raw(trimmed.to_string()))
            }
            other => other,
        };
        if role.is_none()
            && query.is_none()
            && states.is_empty()
            && label.is_none()
            && after.is_none()
        {
            return Err(if nth.is_some() {
                TargetError::PositionAlone
            } else {
                TargetError::Empty
            });
        }
        if nth == Some(0) {
            return Err(TargetError::ZeroPosition);
        }
        states.sort();
        for pair in states.windows(2) {
            if pair[0].state == pair[1].state {
                return Err(if pair[0].present == pair[1].present {
                    TargetError::DuplicateState(pair[0].state)
                } else {
                    TargetError::ContradictoryStates(pair[0].state)
                });
            }
        }
        Ok(Target {
            role,
            query,
            states,
            label,
            after,
            nth,
            within: None,
        })
    }

    /// The same target without what cannot be judged on an element that did not answer the
    /// calls in `unknown` (its states for `GetState`, its name for `Name`, …), and whether the
    /// target asked for any of it. `None` when nothing would be left to ask.
    pub fn without_unknown(&self, unknown: &[String]) -> (bool, Option<Target>) {
        let has = |c: &str| unknown.iter().any(|u| u == c);
        let mut parts = self.parts();
        let mut asked = false;
        if has("GetState") && !parts.states.is_empty() {
            parts.states.clear();
            asked = true;
        }
        if (has("Name") || has("Description")) && (parts.query.is_some() || parts.label.is_some()) {
            parts.query = None;
            parts.label = None;
            asked = true;
        }
        if has("GetRole") && parts.role.is_some() {
            parts.role = None;
            asked = true;
        }
        (asked, self.with_parts(parts).ok())
    }

    /// This clause's parts (without its ancestor).
    pub fn parts(&self) -> Parts {
        Parts {
            role: self.role.clone(),
            query: self.query.clone(),
            states: self.states.clone(),
            label: self.label.clone(),
            after: self.after.clone(),
            nth: self.nth,
        }
    }

    /// The same target with the element clause's parts replaced (the ancestor is kept).
    pub fn with_parts(&self, parts: Parts) -> Result<Target, TargetError> {
        let t = Target::from_parts(parts)?;
        match self.within() {
            Some(w) => t.inside(w.clone()),
            None => Ok(t),
        }
    }

    /// A target asking only for a role.
    pub fn from_role(role: impl Into<RoleSpec>) -> Result<Target, TargetError> {
        Target::new(Some(role.into()), None, Vec::new())
    }

    /// A target asking only for a query.
    pub fn from_query(query: Query) -> Target {
        Target {
            role: None,
            query: Some(query),
            states: Vec::new(),
            label: None,
            after: None,
            nth: None,
            within: None,
        }
    }

    /// This target, required to lie inside `ancestor` (replacing any ancestor it had).
    pub fn inside(mut self, ancestor: Target) -> Result<Target, TargetError> {
        let depth = ancestor.depth() + 1;
        if depth > MAX_WITHIN {
            return Err(TargetError::TooDeep { depth });
        }
        self.within = Some(Box::new(ancestor));
        Ok(self)
    }

    pub fn role(&self) -> Option<&RoleSpec> {
        self.role.as_ref()
    }

    pub fn query(&self) -> Option<&Query> {
        self.query.as_ref()
    }

    pub fn states(&self) -> &[StateReq] {
        &self.states
    }

    /// What the element's label relation must meet.
    pub fn label(&self) -> Option<&Query> {
        self.label.as_ref()
    }

    /// The neighbour the element must follow.
    pub fn after(&self) -> Option<&Neighbour> {
        self.after.as_ref()
    }

    /// The 1-based position among this clause's matches, in document order.
    /// Whether matching needs the label relation (`labelled-by` here or in an ancestor
    /// clause): a backend reads it only when asked (`Limits::labels`).
    /// The name an element must have, exactly, to reach the best level this target's query
    /// can reach (exact, on the name): `Some` for a target with a query in the tiered or exact
    /// mode and no label clause. An element named otherwise can meet such a query only at a
    /// lower level (on its description or value, or as a substring), so when exactly one
    /// element so named passes the target's other clauses, it is the one the target names,
    /// whatever the rest hold: the app can be asked for names first and the rest only of those.
    pub fn exact_name(&self) -> Option<&str> {
        let q = self.query()?;
        let exact_first = matches!(q.mode(), QueryMode::Tiered | QueryMode::Exact);
        (exact_first && self.label().is_none()).then(|| q.text())
    }

    /// Whether `name` meets [`Target::exact_name`]'s `exact` as resolution's exact tier
    /// compares them (outer white space aside, case kept).
    pub fn name_is_exactly(name: &str, exact: &str) -> bool {
        name.trim() == exact
    }

    pub fn uses_labels(&self) -> bool {
        self.label().is_some() || self.within().is_some_and(Target::uses_labels)
    }

    pub fn nth(&self) -> Option<u32> {
        self.nth
    }

    pub fn within(&self) -> Option<&Target> {
        self.within.as_deref()
    }

    /// `positional` when any clause counts (`#n`), else `contextual` when any clause uses
    /// states, a label, a neighbour or an ancestor, else `stable`.
    pub fn grade(&self) -> Grade {
        if self.chain().any(|c| c.nth.is_some()) {
            Grade::Positional
        } else if self.within.is_some()
            || self
                .chain()
                .any(|c| !c.states.is_empty() || c.label.is_some() || c.after.is_some())
        {
            Grade::Contextual
        } else {
            Grade::Stable
        }
    }

    /// How many `in` levels follow this clause.
    pub fn depth(&self) -> usize {
        self.chain().count() - 1
    }

    /// This target's clauses: itself, then its ancestor target, then that one's, ….
    pub fn chain(&self) -> impl Iterator<Item = &Target> {
        std::iter::successors(Some(self), |t| t.within())
    }

    /// Parses the string or JSON form strictly (see the module doc).
    pub fn parse(s: &str) -> Result<Target, ParseError> {
        parse::parse(s)
    }

    /// Parses like [`Target::parse`]; when that fails and `s` has none of `" [ ] { }` (so the
    /// user did not try the target syntax), takes the whole text as a tiered query instead.
    /// The TUI filter bar uses this: `button` finds buttons, `save as` searches text.
    pub fn parse_lenient(s: &str) -> Result<Target, ParseError> {
        parse::parse_lenient(s)
    }
}

impl std::str::FromStr for Target {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Target, ParseError> {
        Target::parse(s)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn constructors_keep_invariants() {
        assert_eq!(Target::new(None, None, vec![]), Err(TargetError::Empty));
        assert_eq!(Query::tiered("  "), Err(TargetError::EmptyQuery));
        assert_eq!(
            Query::tiered(" Save ").map(|q| q.text).as_deref(),
            Ok("Save")
        );
        assert_eq!(
            Target::from_role(RoleSpec::Raw(" ".into())),
            Err(TargetError::EmptyRawRole)
        );
        let t = Target::new(
            None,
            None,
            vec![
                StateReq::must_not(State::Checked),
                StateReq::must(State::Enabled),
            ],
        )
        .map(|t| t.states);
        assert_eq!(
            t,
            Ok(vec![
                StateReq::must(State::Enabled),
                StateReq::must_not(State::Checked)
            ])
        );
        assert_eq!(
            Target::new(
                None,
                None,
                vec![
                    StateReq::must_not(State::Checked),
                    StateReq::must(State::Checked)
                ]
            ),
            Err(TargetError::ContradictoryStates(State::Checked))
        );
    }

    #[test]
    fn nesting_is_capped() {
        let leaf = || Target::from_role(Role::Panel);
        let mut t = leaf().unwrap();
        for _ in 0..MAX_WITHIN {
            t = leaf().unwrap().inside(t).unwrap();
        }
        assert_eq!(t.depth(), MAX_WITHIN);
        assert_eq!(
            leaf().unwrap().inside(t),
            Err(TargetError::TooDeep {
                depth: MAX_WITHIN + 1
            })
        );
    }
}
