//! The JSON object form of a target: `Serialize`, a depth-limited `Deserialize`, and parsing
//! it from a string with a character column for errors.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::distance::closest;
use super::parse::{ParseError, shown};
use super::{MAX_WITHIN, Neighbour, Parts, Query, QueryMode, RoleSpec, StateReq, Target};
use crate::model::{Role, State};

const FIELDS: &[&str] = &["role", "query", "states", "label", "after", "nth", "within"];

#[derive(Serialize)]
struct RawRoleJson<'a> {
    raw: &'a str,
}

#[derive(Serialize)]
struct QueryJson<'a> {
    text: &'a str,
    mode: &'static str,
}

/// A query as JSON: the bare text when tiered, else `{"text", "mode"}`.
struct QueryOut<'a>(&'a Query);

impl Serialize for QueryOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.mode {
            QueryMode::Tiered => s.serialize_str(&self.0.text),
            mode => QueryJson {
                text: &self.0.text,
                mode: mode.as_str(),
            }
            .serialize(s),
        }
    }
}

#[derive(Serialize)]
struct NeighbourJson<'a> {
    role: &'static str,
    query: QueryOut<'a>,
}

impl Serialize for Target {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match &self.role {
            Some(RoleSpec::Role(r)) => m.serialize_entry("role", r.as_str())?,
            Some(RoleSpec::Raw(raw)) => m.serialize_entry("role", &RawRoleJson { raw })?,
            None => {}
        }
        if let Some(q) = &self.query {
            m.serialize_entry("query", &QueryOut(q))?;
        }
        if !self.states.is_empty() {
            let names: Vec<String> = self
                .states
                .iter()
                .map(|r| format!("{}{}", if r.present { "" } else { "!" }, r.state))
                .collect();
            m.serialize_entry("states", &names)?;
        }
        if let Some(label) = &self.label {
            m.serialize_entry("label", &QueryOut(label))?;
        }
        if let Some(after) = &self.after {
            m.serialize_entry(
                "after",
                &NeighbourJson {
                    role: after.role.as_str(),
                    query: QueryOut(&after.query),
                },
            )?;
        }
        if let Some(n) = self.nth {
            m.serialize_entry("nth", &n)?;
        }
        // Recursion here is bounded by MAX_WITHIN, which every constructor enforces.
        if let Some(w) = &self.within {
            m.serialize_entry("within", w.as_ref())?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Target, D::Error> {
        TargetSeed { depth: 0 }.deserialize(d)
    }
}

/// Carries the nesting depth down, so `within` deeper than the limit fails with our message
/// before any deserializer's own recursion limit (serde_json: 128) or the stack is reached.
struct TargetSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for TargetSeed {
    type Value = Target;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Target, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TargetSeed {
    type Value = Target;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a target object with role, query, states, label, after, nth and/or within")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Target, A::Error> {
        let mut role: Option<RoleSpec> = None;
        let mut query: Option<Query> = None;
        let mut states: Vec<StateReq> = Vec::new();
        let mut label: Option<Query> = None;
        let mut after: Option<Neighbour> = None;
        let mut nth: Option<u32> = None;
        let mut within: Option<Target> = None;
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let Some(&field) = FIELDS.iter().find(|f| **f == key) else {
                return Err(de::Error::custom(format!(
                    "unknown field {}; a target has role, query, states, label, after, nth and \
                     within",
                    shown(&key)
                )));
            };
            if seen.contains(&field) {
                return Err(de::Error::custom(format!("field `{field}` appears twice")));
            }
            seen.push(field);
            match field {
                "role" => role = map.next_value::<Option<RoleJson>>()?.map(|r| r.0),
                "query" => query = map.next_value::<Option<QueryIn>>()?.map(|q| q.0),
                "states" => {
                    states = map
                        .next_value::<Option<Vec<StateJson>>>()?
                        .unwrap_or_default()
                        .into_iter()
                        .map(|s| s.0)
                        .collect()
                }
                "label" => label = map.next_value::<Option<QueryIn>>()?.map(|q| q.0),
                "after" => after = map.next_value::<Option<NeighbourIn>>()?.map(|n| n.0),
                "nth" => nth = map.next_value::<Option<u32>>()?,
                _ => {
                    let depth = self.depth + 1;
                    if depth > MAX_WITHIN {
                        return Err(de::Error::custom(format!(
                            "`within` nests more than {MAX_WITHIN} levels deep; the limit is \
                             {MAX_WITHIN}"
                        )));
                    }
                    within = map.next_value_seed(OptionalTarget { depth })?;
                }
            }
        }
        let t = Target::from_parts(Parts {
            role,
            query,
            states,
            label,
            after,
            nth,
        })
        .map_err(de::Error::custom)?;
        match within {
            Some(w) => t.inside(w).map_err(de::Error::custom),
            None => Ok(t),
        }
    }
}

/// `within` may be `null`.
struct OptionalTarget {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for OptionalTarget {
    type Value = Option<Target>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Target>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for OptionalTarget {
    type Value = Option<Target>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a target object or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Target>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Target>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Target>, D::Error> {
        TargetSeed { depth: self.depth }.deserialize(d).map(Some)
    }
}

/// `"check-box"` or `{"raw": "push button"}`.
struct RoleJson(RoleSpec);

impl<'de> Deserialize<'de> for RoleJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RoleJson, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RoleJson;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a role name, a raw toolkit role name or {\"raw\": \"toolkit role\"}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RoleJson, E> {
                if let Some(r) = Role::from_name(s) {
                    return Ok(RoleJson(RoleSpec::Role(r)));
                }
                // The contract accepts the raw toolkit role too: a role name a backend reports
                // is taken as that raw role (`role:"spin button"` in the string form). Unknown
                // words stay errors, so a typo never silently becomes a role that matches
                // nothing.
                if crate::backend::raw_role(s.trim()).is_some() {
                    return Ok(RoleJson(RoleSpec::Raw(s.trim().to_string())));
                }
                let guess = closest(s, Role::ALL.iter().map(|r| r.as_str()), 1);
                let hint = match guess.first() {
                    Some(g) => format!("did you mean {}? ", shown(g)),
                    None => String::new(),
                };
                Err(E::custom(format!(
                    "unknown role {} ({hint}a raw toolkit role is written {{\"raw\": {}}})",
                    shown(s),
                    shown(s)
                )))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RoleJson, A::Error> {
                let mut raw: Option<String> = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "raw" || raw.is_some() {
                        return Err(de::Error::custom(format!(
                            "a raw role object has exactly one field, raw; found {}",
                            shown(&key)
                        )));
                    }
                    raw = Some(map.next_value()?);
                }
                raw.map(|r| RoleJson(RoleSpec::Raw(r)))
                    .ok_or_else(|| de::Error::custom("a raw role object needs a raw field"))
            }
        }
        d.deserialize_any(V)
    }
}

/// `"Save"` (tiered) or `{"text": "Save", "mode": "exact"}`.
struct QueryIn(Query);

impl<'de> Deserialize<'de> for QueryIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<QueryIn, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = QueryIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a query string or {\"text\": …, \"mode\": …}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<QueryIn, E> {
                Query::tiered(s).map(QueryIn).map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<QueryIn, A::Error> {
                let mut text: Option<String> = None;
                let mut mode: Option<QueryMode> = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "text" if text.is_none() => text = Some(map.next_value()?),
                        "mode" if mode.is_none() => {
                            let name: String = map.next_value()?;
                            mode = Some(QueryMode::from_name(&name).ok_or_else(|| {
                                de::Error::custom(format!(
                                    "unknown query mode {}; modes are exact, substring, fuzzy \
                                     and tiered",
                                    shown(&name)
                                ))
                            })?);
                        }
                        _ => {
                            return Err(de::Error::custom(format!(
                                "a query object has text and mode, each once; found {}",
                                shown(&key)
                            )));
                        }
                    }
                }
                let text = text.ok_or_else(|| de::Error::custom("a query object needs text"))?;
                Query::new(text, mode.unwrap_or_default())
                    .map(QueryIn)
                    .map_err(de::Error::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// `"City:"` (a label's text, tiered) or `{"role": "label", "query": …}` (role optional,
/// default label).
struct NeighbourIn(Neighbour);

impl<'de> Deserialize<'de> for NeighbourIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NeighbourIn, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NeighbourIn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a label's text or {\"role\": …, \"query\": …}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<NeighbourIn, E> {
                Query::tiered(s)
                    .map(|q| NeighbourIn(Neighbour::label(q)))
                    .map_err(E::custom)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NeighbourIn, A::Error> {
                let mut role: Option<Role> = None;
                let mut query: Option<Query> = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "role" if role.is_none() => {
                            let name: String = map.next_value()?;
                            role = Some(Role::from_name(&name).ok_or_else(|| {
                                de::Error::custom(format!(
                                    "unknown role {} in after (a normalised role name such as \
                                     label or heading)",
                                    shown(&name)
                                ))
                            })?);
                        }
                        "query" if query.is_none() => query = Some(map.next_value::<QueryIn>()?.0),
                        _ => {
                            return Err(de::Error::custom(format!(
                                "an after object has role and query, each once; found {}",
                                shown(&key)
                            )));
                        }
                    }
                }
                let query =
                    query.ok_or_else(|| de::Error::custom("an after object needs query"))?;
                Ok(NeighbourIn(Neighbour::new(
                    role.unwrap_or(Role::Label),
                    query,
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// `"checked"` or `"!checked"`.
struct StateJson(StateReq);

impl<'de> Deserialize<'de> for StateJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<StateJson, D::Error> {
        let s = String::deserialize(d)?;
        let (present, name) = match s.strip_prefix('!') {
            Some(rest) => (false, rest),
            None => (true, s.as_str()),
        };
        let state = State::from_name(name)
            .or_else(|| State::from_loose_name(name))
            .ok_or_else(|| {
                let close: Vec<String> = closest(name, State::ALL.iter().map(|s| s.as_str()), 3)
                    .into_iter()
                    .map(shown)
                    .collect();
                let hint = if close.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", close.join(" or "))
                };
                de::Error::custom(format!("unknown state {}{hint}", shown(name)))
            })?;
        Ok(StateJson(StateReq { state, present }))
    }
}

/// Parses the JSON form from a whole input string.
pub(super) fn parse_json(s: &str) -> Result<Target, ParseError> {
    serde_json::from_str::<Target>(s).map_err(|e| {
        let location = format!(" at line {} column {}", e.line(), e.column());
        let full = e.to_string();
        let message = full.strip_suffix(&location).unwrap_or(&full);
        ParseError::new(
            char_column(s, e.line(), e.column()),
            "a JSON target object",
            message,
        )
    })
}

/// serde_json reports a 1-based line and a 1-based byte column in that line; this turns them
/// into a 1-based character position in the whole input.
fn char_column(s: &str, line: usize, byte_col: usize) -> usize {
    let line_start = s
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let mut end = (line_start + byte_col.saturating_sub(1)).min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].chars().count() + 1
}
