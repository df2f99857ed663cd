//! Resolution: which nodes of a snapshot a target names, ranked in tiers, and an honest outcome
//! (unique, ambiguous, not found with near misses, or incomplete).

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use serde::Serialize;

use super::index::{FIELDS, SnapshotIndex, fold};
use super::{QueryMode, RoleSpec, Target};
use crate::model::{Role, Snapshot, Token, sanitize};

/// At most this many candidates are listed; the count is always the total.
pub const CANDIDATE_LIMIT: usize = 10;

/// Fuzzy matching looks at the first this many bytes of a field: a long document value would
/// cost the matcher time in proportion to its length for matches nobody could read.
const FUZZY_MAX_BYTES: usize = 1024;

/// How a node's text met the query. Ordered best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Equal to the query, case-sensitively, outer white space aside.
    Exact,
    /// Contains the query, case-insensitively.
    Substring,
    /// Contains the query's characters in order (skim fuzzy matching).
    Fuzzy,
    /// The target has no query: role, states and ancestor alone decided.
    Any,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Substring => "substring",
            Tier::Fuzzy => "fuzzy",
            Tier::Any => "any",
        }
    }

    pub(crate) fn allowed_by(self, mode: QueryMode) -> bool {
        match mode {
            QueryMode::Tiered => true,
            QueryMode::Exact => self == Tier::Exact,
            QueryMode::Substring => self == Tier::Substring,
            QueryMode::Fuzzy => self == Tier::Fuzzy,
        }
    }
}

/// Which text of a node met the query. Ordered best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Name,
    Description,
    Value,
}

impl Field {
    pub const ALL: [Field; FIELDS] = [Field::Name, Field::Description, Field::Value];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
            Field::Value => "value",
        }
    }
}

/// A tier and field together; tier decides first, then field (exact value beats substring name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Level {
    pub(crate) tier: Tier,
    pub(crate) field: Option<Field>,
}

impl Level {
    const ANY: Level = Level {
        tier: Tier::Any,
        field: None,
    };

    fn of(tier: Tier, field: Field) -> Level {
        Level {
            tier,
            field: Some(field),
        }
    }

    /// 0 (exact name) … 8 (fuzzy value), for ranking near misses.
    pub(crate) fn rank(self) -> u32 {
        let tier = match self.tier {
            Tier::Exact => 0,
            Tier::Substring => 1,
            Tier::Fuzzy => 2,
            Tier::Any => 3,
        };
        tier * FIELDS as u32 + self.field.map_or(0, |f| f as u32)
    }
}

/// One node that met a clause.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub(crate) row: usize,
    pub(crate) level: Level,
    /// The fuzzy score (higher is better); 0 for other tiers.
    pub(crate) score: i64,
}

/// A node a target could mean, or nearly meant, with why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub row: usize,
    pub token: Token,
    /// From the root: `frame "Settings" > panel > check-box "Enable"`.
    pub path: String,
    pub role: Role,
    /// The node's name, escaped for terminals and shortened.
    pub name: String,
    /// How it matched (`name exact`, `value fuzzy 57`), or for a near miss what is off
    /// (`role is button, not check-box`).
    pub why: String,
}

/// What a target names in a snapshot. Never "the first match": several matches are reported
/// as such, and on an incomplete tree even one match is not claimed unique.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Resolution {
    /// Exactly one node in the winning tier.
    Unique {
        row: usize,
        token: Token,
        tier: Tier,
        why: String,
        path: String,
    },
    /// Several nodes in the winning tier: the total and the first [`CANDIDATE_LIMIT`].
    Ambiguous {
        count: usize,
        candidates: Vec<Candidate>,
    },
    /// No node; the closest near misses (up to five), each with what it lacks.
    NotFound { near_misses: Vec<Candidate> },
    /// The snapshot was cut short or lost nodes, so uniqueness cannot be claimed. `count` and
    /// `candidates` are what the partial tree holds; `near_misses` is filled when it holds none.
    Incomplete {
        count: usize,
        candidates: Vec<Candidate>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        near_misses: Vec<Candidate>,
        reason: String,
    },
}

impl Resolution {
    /// `unique`, `ambiguous`, `not_found` or `incomplete`.
    pub fn outcome(&self) -> &'static str {
        match self {
            Resolution::Unique { .. } => "unique",
            Resolution::Ambiguous { .. } => "ambiguous",
            Resolution::NotFound { .. } => "not_found",
            Resolution::Incomplete { .. } => "incomplete",
        }
    }

    /// The row, when (and only when) the target named exactly one node of a complete tree.
    pub fn unique_row(&self) -> Option<usize> {
        match self {
            Resolution::Unique { row, .. } => Some(*row),
            _ => None,
        }
    }
}

/// The role a clause asks for, prepared for comparison.
enum RoleFilter {
    Role(Role),
    /// Folded raw role name.
    Raw(String),
}

/// Everything a node must satisfy before its text is looked at.
pub(crate) struct Filter<'a> {
    role: Option<RoleFilter>,
    must: u64,
    must_not: u64,
    under: Option<&'a [bool]>,
}

impl<'a> Filter<'a> {
    pub(crate) fn new(clause: &Target, under: Option<&'a [bool]>) -> Filter<'a> {
        let role = clause.role().map(|r| match r {
            RoleSpec::Role(r) => RoleFilter::Role(*r),
            RoleSpec::Raw(raw) => RoleFilter::Raw(fold(raw)),
        });
        let bits = |present: bool| {
            clause
                .states()
                .iter()
                .filter(|s| s.present == present)
                .fold(0u64, |acc, s| acc | 1 << s.state as u32)
        };
        Filter {
            role,
            must: bits(true),
            must_not: bits(false),
            under,
        }
    }

    pub(crate) fn role_ok(&self, ix: &SnapshotIndex, snap: &Snapshot, row: usize) -> bool {
        match &self.role {
            None => true,
            Some(RoleFilter::Role(r)) => snap.nodes.get(row).is_some_and(|n| n.role == *r),
            Some(RoleFilter::Raw(raw)) => ix.raw_roles.get(row) == raw,
        }
    }

    pub(crate) fn under_ok(&self, row: usize) -> bool {
        self.under
            .is_none_or(|u| u.get(row).copied().unwrap_or(false))
    }

    fn passes(&self, ix: &SnapshotIndex, snap: &Snapshot, row: usize) -> bool {
        let Some(node) = snap.nodes.get(row) else {
            return false;
        };
        let bits = node.states.0;
        bits & self.must == self.must
            && bits & self.must_not == 0
            && self.role_ok(ix, snap, row)
            && self.under_ok(row)
    }
}

/// A query prepared once per evaluation.
pub(crate) struct Prepared<'q> {
    /// Trimmed text, case kept.
    exact: &'q str,
    folded: String,
    mode: QueryMode,
}

impl<'q> Prepared<'q> {
    pub(crate) fn new(q: &'q super::Query) -> Prepared<'q> {
        Prepared {
            exact: q.text(),
            folded: fold(q.text()),
            mode: q.mode(),
        }
    }

    pub(crate) fn folded(&self) -> &str {
        &self.folded
    }
}

/// Runs targets against one snapshot and its index.
pub(crate) struct Engine<'a> {
    pub(crate) ix: &'a SnapshotIndex,
    pub(crate) snap: &'a Snapshot,
    skim: SkimMatcherV2,
}

/// Whether `needle`'s bytes occur in `hay` in order: necessary for a fuzzy match of the same
/// (folded) strings, and far cheaper than the matcher.
fn is_subsequence(hay: &[u8], needle: &[u8]) -> bool {
    let mut rest = hay.iter();
    needle.iter().all(|b| rest.any(|h| h == b))
}

/// Keeps the hits at the best level, in row order.
fn keep_best(mut hits: Vec<Hit>) -> Vec<Hit> {
    if let Some(best) = hits.iter().map(|h| h.level).min() {
        hits.retain(|h| h.level == best);
    }
    hits
}

impl<'a> Engine<'a> {
    pub(crate) fn new(ix: &'a SnapshotIndex, snap: &'a Snapshot) -> Engine<'a> {
        Engine {
            ix,
            snap,
            skim: SkimMatcherV2::default().ignore_case(),
        }
    }

    pub(crate) fn exact_level(&self, row: usize, q: &Prepared<'_>) -> Option<Level> {
        Field::ALL
            .into_iter()
            .find(|&f| self.ix.exact.get(row * FIELDS + f as usize) == q.exact)
            .map(|f| Level::of(Tier::Exact, f))
    }

    pub(crate) fn substring_level(&self, row: usize, q: &Prepared<'_>) -> Option<Level> {
        Field::ALL
            .into_iter()
            .find(|&f| {
                self.ix
                    .folded_field(row, f as usize)
                    .contains(q.folded.as_str())
            })
            .map(|f| Level::of(Tier::Substring, f))
    }

    pub(crate) fn fuzzy_level(&self, row: usize, q: &Prepared<'_>) -> Option<(Level, i64)> {
        Field::ALL.into_iter().find_map(|f| {
            let mut hay = self.ix.folded_field(row, f as usize);
            if hay.len() > FUZZY_MAX_BYTES {
                let mut end = FUZZY_MAX_BYTES;
                while !hay.is_char_boundary(end) {
                    end -= 1;
                }
                hay = &hay[..end];
            }
            if !is_subsequence(hay.as_bytes(), q.folded.as_bytes()) {
                return None;
            }
            self.skim
                .fuzzy_match(hay, &q.folded)
                .map(|score| (Level::of(Tier::Fuzzy, f), score))
        })
    }

    /// Every row's best exact or substring level, ignoring filters and the query's mode, in
    /// one pass (fuzzy, the costly tier, is left to the caller, row by row).
    pub(crate) fn plain_levels(&self, q: &Prepared<'_>) -> Vec<Option<Level>> {
        let mut levels: Vec<Option<Level>> = (0..self.snap.nodes.len())
            .map(|row| self.exact_level(row, q))
            .collect();
        for h in self.substring_hits(q, |row| levels[row].is_none()) {
            levels[h.row] = Some(h.level);
        }
        levels
    }

    /// Substring hits over every node in one scan of the folded text, best field per node,
    /// for the rows `keep` accepts.
    pub(crate) fn substring_hits(
        &self,
        q: &Prepared<'_>,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<Hit> {
        let n = self.snap.nodes.len();
        let hit = |row: usize, level: Level| Hit {
            row,
            level,
            score: 0,
        };
        if q.folded.contains('\0') {
            // The separator would let a match span two fields: look field by field instead.
            return (0..n)
                .filter(|&r| keep(r))
                .filter_map(|r| self.substring_level(r, q).map(|l| hit(r, l)))
                .collect();
        }
        let spans = &self.ix.folded.spans;
        let mut hits = Vec::new();
        let mut entry = 0usize;
        let mut last_row = usize::MAX;
        for (offset, _) in self.ix.folded.text.match_indices(q.folded.as_str()) {
            let end = offset + q.folded.len();
            while spans.get(entry).is_some_and(|&(_, e)| e < end) {
                entry += 1;
            }
            let row = entry / FIELDS;
            // Entries run name, description, value per row, so a row's first hit is its best.
            if row == last_row || row >= n {
                continue;
            }
            last_row = row;
            if keep(row) {
                hits.push(hit(
                    row,
                    Level::of(Tier::Substring, Field::ALL[entry % FIELDS]),
                ));
            }
        }
        hits
    }

    /// Nodes meeting one clause (its own role, states and query) that lie under `under`.
    /// With `all`, every node meeting the query in any allowed tier; otherwise only the nodes
    /// in the best level reached.
    pub(crate) fn eval_clause(
        &self,
        clause: &Target,
        under: Option<&[bool]>,
        all: bool,
    ) -> Vec<Hit> {
        let filter = Filter::new(clause, under);
        let n = self.snap.nodes.len();
        let passing = || (0..n).filter(|&r| filter.passes(self.ix, self.snap, r));
        let Some(query) = clause.query() else {
            return passing()
                .map(|row| Hit {
                    row,
                    level: Level::ANY,
                    score: 0,
                })
                .collect();
        };
        let q = Prepared::new(query);
        let mut hits: Vec<Hit> = Vec::new();
        let mut matched = if all { vec![false; n] } else { Vec::new() };
        let add = |found: Vec<Hit>, hits: &mut Vec<Hit>, matched: &mut Vec<bool>| {
            if all {
                for h in &found {
                    matched[h.row] = true;
                }
            }
            hits.extend(found);
        };
        if Tier::Exact.allowed_by(q.mode) {
            let found: Vec<Hit> = passing()
                .filter_map(|row| {
                    self.exact_level(row, &q).map(|level| Hit {
                        row,
                        level,
                        score: 0,
                    })
                })
                .collect();
            add(found, &mut hits, &mut matched);
            if !all && !hits.is_empty() {
                return keep_best(hits);
            }
        }
        if Tier::Substring.allowed_by(q.mode) {
            let found = self.substring_hits(&q, |row| {
                !matched.get(row).copied().unwrap_or(false)
                    && filter.passes(self.ix, self.snap, row)
            });
            add(found, &mut hits, &mut matched);
            if !all && !hits.is_empty() {
                return keep_best(hits);
            }
        }
        if Tier::Fuzzy.allowed_by(q.mode) {
            let found: Vec<Hit> = passing()
                .filter(|&row| !matched.get(row).copied().unwrap_or(false))
                .filter_map(|row| {
                    self.fuzzy_level(row, &q)
                        .map(|(level, score)| Hit { row, level, score })
                })
                .collect();
            add(found, &mut hits, &mut matched);
        }
        if all {
            hits.sort_by_key(|h| h.row);
            hits
        } else {
            keep_best(hits)
        }
    }

    /// Marks the rows that have a proper ancestor among `hits`.
    pub(crate) fn below(&self, hits: &[Hit]) -> Vec<bool> {
        let nodes = &self.snap.nodes;
        let n = nodes.len();
        let mut in_set = vec![false; n];
        for h in hits {
            in_set[h.row] = true;
        }
        let mut under = vec![false; n];
        for row in 0..n {
            under[row] = match nodes[row].parent {
                // Pre-order (every backend's layout): the parent's answer is already known.
                Some(p) if p < row => under[p] || in_set[p],
                Some(_) => self.walk_up(row, &in_set),
                None => false,
            };
        }
        under
    }

    /// For snapshots not in pre-order: walks up, at most `n` steps so a parent cycle ends.
    fn walk_up(&self, row: usize, in_set: &[bool]) -> bool {
        let nodes = &self.snap.nodes;
        let mut cur = row;
        for _ in 0..nodes.len() {
            match nodes.get(cur).and_then(|n| n.parent) {
                Some(p) if p < nodes.len() => {
                    if in_set[p] {
                        return true;
                    }
                    cur = p;
                }
                _ => return false,
            }
        }
        false
    }

    /// Evaluates a whole target: ancestors from the innermost `in` outwards, each in its own
    /// winning tier, then the element itself. Returns its hits and the ancestor mask it used.
    pub(crate) fn eval(&self, target: &Target, all: bool) -> (Vec<Hit>, Option<Vec<bool>>) {
        let ancestors: Vec<&Target> = target.chain().skip(1).collect();
        let mut under: Option<Vec<bool>> = None;
        for clause in ancestors.iter().rev() {
            let hits = self.eval_clause(clause, under.as_deref(), false);
            under = Some(self.below(&hits));
        }
        let hits = self.eval_clause(target, under.as_deref(), all);
        (hits, under)
    }

    pub(crate) fn candidate(&self, row: usize, why: String) -> Candidate {
        let node = self.snap.nodes.get(row);
        Candidate {
            row,
            token: self.snap.token(row),
            path: self.snap.path_string(row),
            role: node.map_or(Role::Unknown, |n| n.role),
            name: node.map_or(String::new(), |n| sanitize(&n.name, 80).into_owned()),
            why,
        }
    }
}

/// What decided a match, for `why`.
fn why(target: &Target, hit: &Hit) -> String {
    match hit.level.field {
        Some(field) if hit.level.tier == Tier::Fuzzy => {
            format!("{} fuzzy {}", field.as_str(), hit.score)
        }
        Some(field) => format!("{} {}", field.as_str(), hit.level.tier.as_str()),
        None => {
            let mut parts = Vec::new();
            if target.role().is_some() {
                parts.push("role");
            }
            if !target.states().is_empty() {
                parts.push("states");
            }
            if target.within().is_some() {
                parts.push("within");
            }
            parts.join(", ")
        }
    }
}

/// Why a tree's matches cannot be called unique, or `None` when it is complete.
fn incompleteness(snap: &Snapshot) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(t) = snap.truncated {
        parts.push(format!("the read was cut short ({})", t.as_str()));
    }
    if snap.unreadable > 0 {
        parts.push(format!(
            "{} node{} could not be read",
            snap.unreadable,
            if snap.unreadable == 1 { "" } else { "s" }
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "{}, so the snapshot is incomplete and uniqueness cannot be claimed",
            parts.join(" and ")
        )
    })
}

/// Resolves `target` against `snap`, building a one-off index. For repeated queries against
/// one snapshot, build a [`SnapshotIndex`] once and use [`resolve_with`].
pub fn resolve(snap: &Snapshot, target: &Target) -> Resolution {
    resolve_with(&SnapshotIndex::new(snap), snap, target)
}

/// Resolves `target` against `snap`.
///
/// - Role, states and the `in` ancestor filter nodes first. An ancestor target is resolved on
///   its own, in its own winning tier (it may match several nodes: any of them will do), and
///   a node qualifies when any proper ancestor is among them.
/// - A query is compared with name, then description, then value (`Value::as_text`; toggles
///   have none), all trimmed: exact (case-sensitive equality) beats case-insensitive
///   substring, which beats fuzzy (skim, on lower-cased text, first 1 KiB of a field); within
///   a tier, name beats description beats value. Each node counts at its best level; the best
///   level any node reaches wins, and uniqueness is judged among the nodes at that level, so
///   `"Open"` is unique when one node is named exactly `Open`, however many contain it.
///   Case-insensitive equality is a substring match, not exact.
/// - One node: `Unique`; several: `Ambiguous`; none: `NotFound` with near misses. When the
///   snapshot is incomplete the answer is always `Incomplete`, carrying the same counts.
pub fn resolve_with(ix: &SnapshotIndex, snap: &Snapshot, target: &Target) -> Resolution {
    let mut slot = None;
    let ix = ix.usable_for(snap, &mut slot);
    let engine = Engine::new(ix, snap);
    let (mut hits, under) = engine.eval(target, false);
    let count = hits.len();
    // Best fuzzy scores first; otherwise tree order.
    hits.sort_by_key(|h| (std::cmp::Reverse(h.score), h.row));
    let candidates = || -> Vec<Candidate> {
        hits.iter()
            .take(CANDIDATE_LIMIT)
            .map(|h| engine.candidate(h.row, why(target, h)))
            .collect()
    };
    let near = || super::near::near_misses(&engine, target, under.as_deref());
    if let Some(reason) = incompleteness(snap) {
        return Resolution::Incomplete {
            count,
            candidates: candidates(),
            near_misses: if count == 0 { near() } else { Vec::new() },
            reason,
        };
    }
    match hits.as_slice() {
        [] => Resolution::NotFound {
            near_misses: near(),
        },
        [hit] => Resolution::Unique {
            row: hit.row,
            token: snap.token(hit.row),
            tier: hit.level.tier,
            why: why(target, hit),
            path: snap.path_string(hit.row),
        },
        _ => Resolution::Ambiguous {
            count,
            candidates: candidates(),
        },
    }
}

/// The rows in the winning tier, in row order: what the TUI highlights and steps through with
/// n/N. Completeness is not considered.
pub fn matches(ix: &SnapshotIndex, snap: &Snapshot, target: &Target) -> Vec<usize> {
    rows(ix, snap, target, false)
}

/// Every row meeting the target in any tier its query allows, in row order.
pub fn match_all(ix: &SnapshotIndex, snap: &Snapshot, target: &Target) -> Vec<usize> {
    rows(ix, snap, target, true)
}

fn rows(ix: &SnapshotIndex, snap: &Snapshot, target: &Target, all: bool) -> Vec<usize> {
    let mut slot = None;
    let ix = ix.usable_for(snap, &mut slot);
    let (hits, _) = Engine::new(ix, snap).eval(target, all);
    hits.into_iter().map(|h| h.row).collect()
}
