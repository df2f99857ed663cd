//! Resolution: which nodes of a snapshot a target names, ranked in tiers, narrowed by label,
//! neighbour, ancestor and position, and an honest outcome (unique, ambiguous, not found with
//! near misses, or incomplete).

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use serde::Serialize;

use super::index::{FIELDS, Labels, SnapshotIndex, fold};
use super::{Neighbour, QueryMode, RoleSpec, Target};
use crate::model::{Role, Snapshot, State, Token};

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
    /// The node is not `showing` (on a hidden page, collapsed, scrolled out by the toolkit):
    /// resolution never drops such a node silently, it says so here.
    pub hidden: bool,
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
    /// No node; the closest near misses (up to five), each with what it lacks. When the target
    /// has a position (`#n`) beyond its matches, `count` is how many there are and the near
    /// misses are those matches; otherwise `count` is 0. `fuzzy_only`: a resolution for a
    /// write found nothing exactly or as a substring, and the near misses are the elements
    /// the query matches only fuzzily — suggestions, never written to.
    NotFound {
        count: usize,
        near_misses: Vec<Candidate>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        fuzzy_only: bool,
    },
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

/// Where a clause may match, worked out before its own text is looked at: below one of its
/// ancestor clause's matches, after one of its neighbour clause's matches, and with a label in
/// the best tier the label query reached.
#[derive(Debug, Default)]
pub(crate) struct Context {
    pub(crate) under: Option<Vec<bool>>,
    pub(crate) after: Option<Vec<bool>>,
    pub(crate) label: Option<Vec<bool>>,
}

fn mask_ok(mask: Option<&[bool]>, row: usize) -> bool {
    mask.is_none_or(|m| m.get(row).copied().unwrap_or(false))
}

/// Everything a node must satisfy before its text is looked at.
pub(crate) struct Filter<'a> {
    role: Option<RoleFilter>,
    must: u64,
    must_not: u64,
    under: Option<&'a [bool]>,
    after: Option<&'a [bool]>,
    label: Option<&'a [bool]>,
}

impl<'a> Filter<'a> {
    pub(crate) fn new(clause: &Target, ctx: &'a Context) -> Filter<'a> {
        let mut f = Filter::bare(clause, ctx.under.as_deref());
        f.after = ctx.after.as_deref();
        f.label = ctx.label.as_deref();
        f
    }

    /// Role, states and ancestor only.
    fn bare(clause: &Target, under: Option<&'a [bool]>) -> Filter<'a> {
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
            after: None,
            label: None,
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
        mask_ok(self.under, row)
    }

    pub(crate) fn after_ok(&self, row: usize) -> bool {
        mask_ok(self.after, row)
    }

    fn passes(&self, ix: &SnapshotIndex, snap: &Snapshot, row: usize) -> bool {
        let Some(node) = snap.nodes.get(row) else {
            return false;
        };
        // A node that repeats an element placed elsewhere is not an element of its own.
        if node.repeat.is_some() {
            return false;
        }
        let bits = node.states.0;
        bits & self.must == self.must
            && bits & self.must_not == 0
            && self.role_ok(ix, snap, row)
            && self.under_ok(row)
            && self.after_ok(row)
            && mask_ok(self.label, row)
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
    /// Exact and substring tiers only (for writes: never a guess).
    strict: bool,
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
            strict: false,
        }
    }

    /// The same engine without the fuzzy tier (queries and labels).
    pub(crate) fn strict(mut self) -> Engine<'a> {
        self.strict = true;
        self
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

    /// Nodes meeting one clause's role, states, neighbour, label and query within its context
    /// (not yet its position). With `all`, every node meeting the query in any allowed tier;
    /// otherwise only the nodes in the best level reached.
    pub(crate) fn eval_clause(&self, clause: &Target, ctx: &Context, all: bool) -> Vec<Hit> {
        let filter = Filter::new(clause, ctx);
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
        if !self.strict && Tier::Fuzzy.allowed_by(q.mode) {
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

    /// The rows whose nearest named sibling of the neighbour's role before them is among the
    /// neighbour clause's matches (evaluated over the whole tree, in its own winning tier, like
    /// an ancestor clause).
    pub(crate) fn after_mask(&self, nb: &Neighbour) -> Vec<bool> {
        let n = self.snap.nodes.len();
        let clause = Target::from_parts(super::Parts {
            role: Some(RoleSpec::Role(nb.role())),
            query: Some(nb.query().clone()),
            ..super::Parts::default()
        });
        let mut is_hit = vec![false; n];
        if let Ok(clause) = clause {
            for h in self.eval_clause(&clause, &Context::default(), false) {
                is_hit[h.row] = true;
            }
        }
        nearest_before(self.snap, nb.role())
            .into_iter()
            .map(|p| p != NONE && is_hit[p as usize])
            .collect()
    }

    /// How a row's label meets `q`: its tier and fuzzy score, or `None`.
    pub(crate) fn label_level(
        &self,
        labels: &Labels,
        row: usize,
        q: &Prepared<'_>,
    ) -> Option<(Tier, i64)> {
        let text = labels.exact.get(row);
        if text.is_empty() {
            return None;
        }
        if text == q.exact {
            return Some((Tier::Exact, 0));
        }
        let hay = labels.folded.get(row);
        if hay.contains(q.folded.as_str()) {
            return Some((Tier::Substring, 0));
        }
        let hay = &hay[..floor_boundary(hay, FUZZY_MAX_BYTES)];
        if self.strict || !is_subsequence(hay.as_bytes(), q.folded.as_bytes()) {
            return None;
        }
        self.skim
            .fuzzy_match(hay, &q.folded)
            .map(|score| (Tier::Fuzzy, score))
    }

    /// The rows passing the clause's role, states, ancestor and neighbour whose label meets the
    /// label query in the best tier any of them reaches (and the query's mode allows).
    fn label_mask(&self, clause: &Target, ctx: &Context) -> Option<Vec<bool>> {
        let query = clause.label()?;
        let q = Prepared::new(query);
        let labels = self.ix.labels(self.snap);
        let mut base = Filter::bare(clause, ctx.under.as_deref());
        base.after = ctx.after.as_deref();
        let n = self.snap.nodes.len();
        let mut best: Option<Tier> = None;
        let mut levels: Vec<Option<Tier>> = vec![None; n];
        for (row, level) in levels.iter_mut().enumerate() {
            if labels.exact.get(row).is_empty() || !base.passes(self.ix, self.snap, row) {
                continue;
            }
            if let Some((tier, _)) = self
                .label_level(labels, row, &q)
                .filter(|(t, _)| t.allowed_by(q.mode))
            {
                *level = Some(tier);
                best = Some(best.map_or(tier, |b| b.min(tier)));
            }
        }
        Some(
            levels
                .into_iter()
                .map(|l| l.is_some() && l == best)
                .collect(),
        )
    }

    /// The context of `clause` below an ancestor mask.
    pub(crate) fn context(&self, clause: &Target, under: Option<Vec<bool>>) -> Context {
        let mut ctx = Context {
            under,
            after: clause.after().map(|nb| self.after_mask(nb)),
            label: None,
        };
        ctx.label = self.label_mask(clause, &ctx);
        ctx
    }

    /// Evaluates a whole target: ancestors from the innermost `in` outwards, each in its own
    /// winning tier and at its own position, then the element itself.
    pub(crate) fn eval(&self, target: &Target, all: bool) -> Evaluated {
        let ancestors: Vec<&Target> = target.chain().skip(1).collect();
        let mut under: Option<Vec<bool>> = None;
        for clause in ancestors.iter().rev() {
            let ctx = self.context(clause, under.take());
            let hits = at_position(clause, self.eval_clause(clause, &ctx, false));
            under = Some(self.below(&hits));
        }
        let ctx = self.context(target, under);
        // A position counts the winning tier, so it never takes every tier.
        let unpositioned = self.eval_clause(target, &ctx, all && target.nth().is_none());
        match target.nth() {
            None => Evaluated {
                hits: unpositioned,
                ctx,
                unpositioned: Vec::new(),
            },
            Some(_) => Evaluated {
                hits: at_position(target, unpositioned.clone()),
                ctx,
                unpositioned,
            },
        }
    }

    pub(crate) fn candidate(&self, row: usize, why: String) -> Candidate {
        let node = self.snap.nodes.get(row);
        Candidate {
            row,
            token: self.snap.token(row),
            path: self.snap.path_string(row),
            role: node.map_or(Role::Unknown, |n| n.role),
            name: node.map_or(String::new(), |n| n.name.literal(80).into_owned()),
            why,
            hidden: node.is_some_and(|n| !n.states.has(State::Showing)),
        }
    }
}

/// A whole target's evaluation.
pub(crate) struct Evaluated {
    /// The element clause's matches (at its position, when it has one).
    pub(crate) hits: Vec<Hit>,
    /// The element clause's context, for near misses.
    pub(crate) ctx: Context,
    /// With a position: the matches it counted, in row order; otherwise empty.
    pub(crate) unpositioned: Vec<Hit>,
}

/// Marks "no such row" in row-indexed `u32` tables.
pub(crate) const NONE: u32 = u32::MAX;

/// For every row, the nearest sibling before it that has `role` and a non-blank name (`NONE`
/// when there is none): the neighbour `after` refers to. Labels without text are skipped, as a
/// person reading the form would skip them.
pub(crate) fn nearest_before(snap: &Snapshot, role: Role) -> Vec<u32> {
    let nodes = &snap.nodes;
    let mut out = vec![NONE; nodes.len()];
    for node in nodes {
        let mut last = NONE;
        for &c in &node.children {
            let Some(child) = nodes.get(c) else {
                continue;
            };
            out[c] = last;
            if child.role == role && !child.name.as_str().trim().is_empty() {
                last = c as u32;
            }
        }
    }
    out
}

/// The `n`-th (1-based) of `hits` in row order, or nothing when there are fewer.
fn at_position(clause: &Target, mut hits: Vec<Hit>) -> Vec<Hit> {
    let Some(n) = clause.nth() else {
        return hits;
    };
    hits.sort_by_key(|h| h.row);
    hits.into_iter().nth(n as usize - 1).into_iter().collect()
}

/// The largest char boundary of `s` at or below `max`.
fn floor_boundary(s: &str, max: usize) -> usize {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
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
            if target.label().is_some() {
                parts.push("label");
            }
            if target.after().is_some() {
                parts.push("after");
            }
            if target.within().is_some() {
                parts.push("within");
            }
            parts.join(", ")
        }
    }
}

/// `why` with the position, when the target has one.
fn why_at(target: &Target, hit: &Hit) -> String {
    match target.nth() {
        Some(n) => format!("{}, #{n}", why(target, hit)),
        None => why(target, hit),
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

/// Why the answer cannot be claimed when elements read only in part (they did not answer some
/// calls, `Node::unanswered`) might match: the target asks for what one of them did not give,
/// and it matches once that is left out. Elements read in part that the target cannot be
/// about (`button "OK"` where only `button "Slow"` kept its states back) change nothing.
fn uncertain(engine: &Engine<'_>, snap: &Snapshot, target: &Target) -> Option<String> {
    let partial: Vec<usize> = (0..snap.nodes.len())
        .filter(|&r| snap.nodes[r].is_partial())
        .collect();
    for row in partial {
        let node = &snap.nodes[row];
        let unknown: Vec<String> = node
            .unanswered
            .iter()
            .chain(&node.malformed)
            .chain(&node.vanished)
            .cloned()
            .collect();
        let (asked, relaxed) = target.without_unknown(&unknown);
        if !asked {
            continue;
        }
        let could = match relaxed {
            Some(t) => engine.eval(&t, true).hits.iter().any(|h| h.row == row),
            // Nothing left to ask: it could be anything.
            None => true,
        };
        if could {
            return Some(format!(
                "{} gave no usable answer to {}, and the target asks for what it would say, \
                 so uniqueness cannot be claimed",
                crate::model::display::described(node),
                unknown.join(", ")
            ));
        }
    }
    None
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
    resolve_in(Engine::new(ix, snap), snap, target)
}

/// Resolves `target` for a write: the exact and substring tiers only, of the query and of a
/// `labelled-by` label, so a write never goes to an element the user did not name. When only
/// fuzzy matches exist the answer is `NotFound` with `fuzzy_only` and those matches as near
/// misses (suggestions); fuzzy ranking serves looking (`find`, the filter), never writing.
pub fn resolve_for_write(snap: &Snapshot, target: &Target) -> Resolution {
    let ix = SnapshotIndex::new(snap);
    let strict = resolve_in(Engine::new(&ix, snap).strict(), snap, target);
    match strict {
        Resolution::NotFound { count: 0, .. } => {
            match resolve_in(Engine::new(&ix, snap), snap, target) {
                Resolution::Unique { row, why, .. } => Resolution::NotFound {
                    count: 0,
                    near_misses: vec![Engine::new(&ix, snap).candidate(row, why)],
                    fuzzy_only: true,
                },
                Resolution::Ambiguous { candidates, .. } => Resolution::NotFound {
                    count: 0,
                    near_misses: candidates
                        .into_iter()
                        .take(super::near::NEAR_MISS_LIMIT)
                        .collect(),
                    fuzzy_only: true,
                },
                _ => strict,
            }
        }
        other => other,
    }
}

fn resolve_in(engine: Engine<'_>, snap: &Snapshot, target: &Target) -> Resolution {
    let Evaluated {
        mut hits,
        ctx,
        unpositioned,
    } = engine.eval(target, false);
    let count = hits.len();
    // Best fuzzy scores first; otherwise tree order.
    hits.sort_by_key(|h| (std::cmp::Reverse(h.score), h.row));
    let candidates = || -> Vec<Candidate> {
        hits.iter()
            .take(CANDIDATE_LIMIT)
            .map(|h| engine.candidate(h.row, why_at(target, h)))
            .collect()
    };
    let near = || super::near::near_misses(&engine, target, &ctx);
    // A position beyond the matches: say how many there are, and list them.
    let beyond = || -> Vec<Candidate> {
        let total = unpositioned.len();
        unpositioned
            .iter()
            .take(super::near::NEAR_MISS_LIMIT)
            .enumerate()
            .map(|(i, h)| {
                let why = format!(
                    "{}; match {} of {total}, the target asks for #{}",
                    why(target, h),
                    i + 1,
                    target.nth().unwrap_or(0)
                );
                engine.candidate(h.row, why)
            })
            .collect()
    };
    if let Some(reason) = incompleteness(snap).or_else(|| uncertain(&engine, snap, target)) {
        return Resolution::Incomplete {
            count,
            candidates: candidates(),
            near_misses: match (count, unpositioned.is_empty()) {
                (0, true) => near(),
                (0, false) => beyond(),
                _ => Vec::new(),
            },
            reason,
        };
    }
    match hits.as_slice() {
        [] if !unpositioned.is_empty() => Resolution::NotFound {
            count: unpositioned.len(),
            near_misses: beyond(),
            fuzzy_only: false,
        },
        [] => Resolution::NotFound {
            count: 0,
            near_misses: near(),
            fuzzy_only: false,
        },
        [hit] => Resolution::Unique {
            row: hit.row,
            token: snap.token(hit.row),
            tier: hit.level.tier,
            why: why_at(target, hit),
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
    let mut hits = Engine::new(ix, snap).eval(target, all).hits;
    hits.sort_by_key(|h| h.row);
    hits.into_iter().map(|h| h.row).collect()
}
