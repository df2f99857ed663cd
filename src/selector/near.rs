//! Near misses: when a target names nothing, the nodes that come closest, each with what it
//! lacks (wrong role, a state off, outside the ancestor, a different label or neighbour, text
//! only similar).

use super::distance::{close_enough, edit_distance};
use super::index::FIELDS;
use super::parse::shown;
use super::resolve::{Candidate, Context, Engine, Field, Filter, Level, Prepared};
use super::{QueryMode, RoleSpec, StateReq, Target};
use crate::model::{AppText, sanitize};

/// At most this many near misses are listed.
pub const NEAR_MISS_LIMIT: usize = 5;

/// Nodes differing from the target in more ways than this are not "near".
const MAX_MISSES: usize = 2;

/// Names longer than this are not compared by edit distance (it costs their length squared).
const MAX_SIMILAR_CHARS: usize = 64;

/// One way a node falls short of the target.
enum Miss {
    Role,
    State(StateReq),
    Within,
    /// The label relation does not meet the label query.
    Label,
    /// The nearest neighbour of that role before it does not meet the neighbour query.
    After,
    /// The text meets the query in a tier its mode does not allow.
    Mode(Level),
    /// The name is this many edits from the query, and nothing meets it.
    Similar(usize),
}

pub(crate) fn near_misses(engine: &Engine<'_>, target: &Target, ctx: &Context) -> Vec<Candidate> {
    let query = target.query().map(Prepared::new);
    let judge = Judge {
        engine,
        target,
        filter: Filter::new(target, ctx),
        label: target.label().map(Prepared::new),
        levels: query
            .as_ref()
            .map_or_else(Vec::new, |q| engine.plain_levels(q)),
        query,
        query_chars: target.query().map_or(0, |q| q.text().chars().count()),
    };
    // (how many misses, how good the text match is, row): ranked without building any text.
    // A name about as long as the query is the closer one among equals ("Email" before
    // "Email settings 32" for "email").
    let gap = |row: usize| {
        let name = engine.ix.folded_field(row, 0).len();
        judge
            .query
            .as_ref()
            .map_or(0, |q| name.abs_diff(q.folded().len()))
    };
    // Ranked by what the user typed, role first (`Rank`), then by misses and text.
    let mut near: Vec<(Rank, usize, u32, usize, usize)> = (0..engine.snap.nodes.len())
        .filter_map(|row| {
            let (misses, quality) = judge.analyse(row, None)?;
            Some((judge.rank(row), misses, quality, gap(row), row))
        })
        .collect();
    // Elements of the role asked for whose names are not close are still closer than an
    // element of another role that only shares some letters: listed by name distance.
    let far = judge.far_names(&near);
    near.extend(
        far.iter()
            .map(|&(d, row)| (Rank::RoleFarName, 0, d as u32, gap(row), row)),
    );
    near.sort_unstable();
    near.truncate(NEAR_MISS_LIMIT);
    near.into_iter()
        .map(|(rank, _, quality, _, row)| {
            let mut found = Vec::new();
            judge.analyse(row, Some(&mut found));
            if rank == Rank::RoleFarName {
                found.push(Miss::Similar(quality as usize));
            }
            let why: Vec<String> = found.iter().map(|m| judge.describe(row, m)).collect();
            engine.candidate(row, why.join("; "))
        })
        .collect()
}

/// How a near miss ranks against what the user typed (lower first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// The role asked for, its text meeting the query or a typo away.
    Role,
    /// Another role, with the query's text exactly or as a substring.
    Text,
    /// The role asked for, its name not close ([`Judge::far_names`]).
    RoleFarName,
    /// Another role, its text only fuzzily like the query (or no query).
    Other,
}

/// Measures nodes against one target.
struct Judge<'a> {
    engine: &'a Engine<'a>,
    target: &'a Target,
    filter: Filter<'a>,
    label: Option<Prepared<'a>>,
    query: Option<Prepared<'a>>,
    /// Each row's exact or substring level for the query, found in one pass.
    levels: Vec<Option<Level>>,
    query_chars: usize,
}

impl Judge<'_> {
    /// Where a near miss ranks: by its role first, then by how its text meets the query.
    fn rank(&self, row: usize) -> Rank {
        let engine = self.engine;
        if self.target.role().is_some() && self.filter.role_ok(engine.ix, engine.snap, row) {
            Rank::Role
        } else if self.levels.get(row).copied().flatten().is_some() {
            Rank::Text
        } else {
            Rank::Other
        }
    }

    /// Elements of the target's role that are not near misses (their names not close to the
    /// query), with their names' edit distance from it: at most [`NEAR_MISS_LIMIT`], closest
    /// first. None when the target names no role or no query, or when some element of the
    /// role is already a near miss (the typed role then has its answer).
    fn far_names(&self, near: &[(Rank, usize, u32, usize, usize)]) -> Vec<(usize, usize)> {
        let engine = self.engine;
        let (Some(_), Some(q)) = (self.target.role(), &self.query) else {
            return Vec::new();
        };
        if near.iter().any(|n| n.0 == Rank::Role) || self.query_chars > MAX_SIMILAR_CHARS {
            return Vec::new();
        }
        let mut far: Vec<(usize, usize)> = (0..engine.snap.nodes.len())
            .filter(|&row| self.filter.role_ok(engine.ix, engine.snap, row))
            .filter_map(|row| {
                let name = engine.ix.folded_field(row, 0);
                let chars = name.chars().count();
                (chars > 0 && chars <= MAX_SIMILAR_CHARS)
                    .then(|| (edit_distance(name, q.folded()), row))
            })
            .collect();
        far.sort_unstable();
        far.truncate(NEAR_MISS_LIMIT);
        far
    }

    /// How far `row` is from the target: the number of misses and the quality of its text
    /// match (lower is better), or `None` when it is not near (or not a miss at all). Pushes
    /// the misses into `out` when given.
    fn analyse(&self, row: usize, mut out: Option<&mut Vec<Miss>>) -> Option<(usize, u32)> {
        let engine = self.engine;
        let node = engine.snap.nodes.get(row)?;
        let mut misses = 0usize;
        let mut note = |m: Miss, misses: &mut usize| {
            *misses += 1;
            if let Some(out) = out.as_deref_mut() {
                out.push(m);
            }
        };
        if !self.filter.role_ok(engine.ix, engine.snap, row) {
            note(Miss::Role, &mut misses);
        }
        for req in self.target.states() {
            if node.states.has(req.state) != req.present {
                note(Miss::State(*req), &mut misses);
            }
        }
        if !self.filter.under_ok(row) {
            note(Miss::Within, &mut misses);
        }
        if let (Some(q), Some(spec)) = (&self.label, self.target.label()) {
            let labels = engine.ix.labels(engine.snap);
            let meets = engine
                .label_level(labels, row, q)
                .is_some_and(|(tier, _)| tier.allowed_by(spec.mode()));
            if !meets {
                note(Miss::Label, &mut misses);
            }
        }
        if !self.filter.after_ok(row) {
            note(Miss::After, &mut misses);
        }
        // Text matching is the costly part: skip it for nodes already too far off.
        if misses > MAX_MISSES {
            return None;
        }
        let quality = match (&self.query, self.target.query()) {
            (Some(q), Some(spec)) => match self
                .levels
                .get(row)
                .copied()
                .flatten()
                .or_else(|| engine.fuzzy_level(row, q).map(|(level, _)| level))
            {
                Some(level) if level.tier.allowed_by(spec.mode()) => level.rank(),
                Some(level) => {
                    note(Miss::Mode(level), &mut misses);
                    10 + level.rank()
                }
                // A similar name counts only on a node that is otherwise right: "the same
                // role with a typo in the name", not every name that happens to be close.
                None if misses == 0 => {
                    let d = self.similarity(row, q)?;
                    note(Miss::Similar(d), &mut misses);
                    20 + d as u32
                }
                None => return None,
            },
            _ => 0,
        };
        (misses > 0 && misses <= MAX_MISSES).then_some((misses, quality))
    }

    /// Edits between the node's name and the query, when close enough to be a likely typo.
    fn similarity(&self, row: usize, q: &Prepared<'_>) -> Option<usize> {
        let name = self.engine.ix.folded_field(row, 0);
        if name.is_empty() || self.query_chars > MAX_SIMILAR_CHARS {
            return None;
        }
        let limit = close_enough(q.folded());
        let name_chars = name.chars().count();
        if name_chars > MAX_SIMILAR_CHARS || name_chars.abs_diff(self.query_chars) > limit {
            return None;
        }
        let d = edit_distance(name, q.folded());
        (d <= limit).then_some(d)
    }

    fn describe(&self, row: usize, miss: &Miss) -> String {
        let target = self.target;
        let Some(node) = self.engine.snap.nodes.get(row) else {
            return String::new();
        };
        match miss {
            Miss::Role => match target.role() {
                Some(RoleSpec::Raw(raw)) => {
                    format!("raw role is {}, not {}", shown(&node.raw_role), shown(raw))
                }
                Some(RoleSpec::Role(r)) => format!("role is {}, not {r}", node.role),
                None => String::new(),
            },
            Miss::State(req) if req.present => format!("state {} is not set", req.state),
            Miss::State(req) => format!("state {} is set", req.state),
            Miss::Within => match target.within() {
                Some(w) => format!("not inside {}", sanitize(&w.to_string(), 60)),
                None => String::new(),
            },
            Miss::Label => match node.label.as_ref().map(AppText::as_str).map(str::trim) {
                Some(l) if !l.is_empty() => format!(
                    "label is {}",
                    shown(&l.chars().take(60).collect::<String>())
                ),
                _ => "has no label".to_string(),
            },
            Miss::After => match target.after() {
                Some(nb) => format!(
                    "not after {} {}",
                    nb.role(),
                    shown(&nb.query().text().chars().take(60).collect::<String>())
                ),
                None => String::new(),
            },
            Miss::Mode(level) => {
                let field = level.field.unwrap_or(Field::Name);
                let text = self.engine.ix.exact.get(row * FIELDS + field as usize);
                let folded = self.engine.ix.folded_field(row, field as usize);
                let mode = target.query().map_or(QueryMode::Tiered, |q| q.mode());
                if mode == QueryMode::Exact
                    && self.query.as_ref().is_some_and(|q| q.folded() == folded)
                {
                    format!(
                        "{} {} differs from the query only in case",
                        field.as_str(),
                        shown(&text.chars().take(60).collect::<String>())
                    )
                } else {
                    format!(
                        "{} matches as {}, but the query asks for {}",
                        field.as_str(),
                        level.tier.as_str(),
                        mode.as_str()
                    )
                }
            }
            Miss::Similar(d) => format!(
                "name {} is {d} edit{} from the query",
                shown(&node.name.as_str().chars().take(60).collect::<String>()),
                if *d == 1 { "" } else { "s" }
            ),
        }
    }
}
