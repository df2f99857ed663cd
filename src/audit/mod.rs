//! Accessibility checks over one snapshot: model in, findings out, no IO.
//!
//! Every rule has an id, a severity, a one-line message, the standard it serves, where it comes
//! from (an Accerciser validator, an axe-windows rule, or ours) and a help text. Rules live in
//! one module per group (names, keyboard, states, structure, geometry, uniqueness, automation) and see the
//! snapshot through [`Context`], which also holds every node's suggested target (the finding
//! says how to name the element, and automation readiness judges by it).
//!
//! Elements that are not `showing` are not judged: what is not on screen cannot be used (a
//! notebook's other pages, a closed menu), and toolkits keep hidden inner twins of what they
//! show. The name rules judge more: what a person reaches without its being drawn (an empty
//! link Tab lands on, a page's zero-size image a screen reader reads; [`Context::judged`]). A rule that needs a field the snapshot did not read (bounds, the label relation) is
//! not evaluated, and the report says so: no rule guesses.

mod automation;
pub mod facts;
mod geometry;
mod keyboard;
pub mod name_roles;
mod names;
pub mod report;
pub mod rule_map;
mod states;
mod structure;
mod unique;

use std::sync::Arc;

use serde::Serialize;

pub use facts::Facts;
// The AT-SPI backend's facts read the audit's text leaves (Linux only).
#[cfg(target_os = "linux")]
pub(crate) use names::text_leaf as names_text_leaf;

use crate::model::{Node, Role, Snapshot, State, Toolkit};
use crate::selector::{Grade, RowSuggester, SnapshotIndex, Target};

/// How much a finding matters. Ordered: `Review < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth a look by a person: often a defect, sometimes a choice.
    Review,
    /// Very likely a defect that makes the element harder to use with assistive technology.
    Warning,
    /// A defect: the element cannot be used, or is announced wrongly, with assistive technology.
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Review];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Review => "review",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn from_name(s: &str) -> Option<Severity> {
        match s.trim().to_ascii_lowercase().as_str() {
            "review" | "note" => Some(Severity::Review),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a rule needs read beyond roles, names, states and interfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// The label relation (`Node::label`): without it an unnamed field may be labelled.
    Labels,
    /// Element bounds (`Node::bounds`, or read for the audit: [`Facts::bounds`]).
    Bounds,
    /// Each element's own index in its parent ([`Facts::index`]).
    Index,
    /// Relations beyond the label's names ([`Facts::relations`]).
    Relations,
    /// Tables' own numbering of their cells ([`Facts::tables`]).
    Tables,
}

/// One rule.
#[derive(Debug, Serialize)]
pub struct Rule {
    pub id: &'static str,
    /// The group (and module) it belongs to.
    pub group: &'static str,
    pub severity: Severity,
    /// One line: what is wrong.
    pub message: &'static str,
    /// The standard it serves (`WCAG 4.1.2`).
    pub standard: &'static str,
    /// Where it comes from: an Accerciser validator, an axe-windows rule, or `treeglass`.
    pub anchor: &'static str,
    /// Why it matters and how to fix it, with the exceptions the rule makes.
    pub help: &'static str,
    #[serde(skip)]
    pub needs: Needs,
    #[serde(skip)]
    check: fn(&Context, &mut Vec<Hit>),
}

/// What a rule found on one element, before it becomes a [`Finding`].
#[derive(Debug)]
pub struct Hit {
    pub row: usize,
    /// What exactly is wrong with this element (`2 of 6 siblings named "checkbutton"`).
    pub detail: String,
    /// What a developer could change (automation readiness says how to name it stably).
    pub fix: Option<String>,
}

impl Hit {
    fn new(row: usize, detail: impl Into<String>) -> Hit {
        Hit {
            row,
            detail: detail.into(),
            fix: None,
        }
    }
}

/// One finding: a rule on an element.
#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static Rule,
    pub row: usize,
    pub detail: String,
    pub fix: Option<String>,
}

/// What the snapshot read, so rules that need more are not evaluated rather than guessing.
#[derive(Debug, Clone, Copy)]
pub struct Read {
    /// Whether the label relation was read of every interactive element and every unnamed
    /// element that may need a name (`name_roles::reads_label`; AT-SPI with `Limits::labels`,
    /// the fixture backend; not yet UI Automation or AX).
    pub labels: bool,
    /// Whether the snapshot's bounds were read. `None`: decide from the snapshot (some node has
    /// bounds). Bounds read for the audit ([`Facts::bounds`]) count whatever this says.
    pub bounds: Option<bool>,
    /// The app's toolkit, where known: GTK 4.8 reports `showing` on its windows only, so there
    /// `visible` stands for it.
    pub toolkit: Option<Toolkit>,
}

/// Which rules run and what is reported.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rule ids or group names; empty: every rule.
    pub rules: Vec<String>,
    /// Findings below this are not reported.
    pub min_severity: Severity,
    pub read: Read,
    /// What was read for this audit beyond the snapshot (used only with the snapshot it was
    /// read for).
    pub facts: Option<Arc<Facts>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rules: Vec::new(),
            min_severity: Severity::Review,
            read: Read {
                labels: true,
                bounds: None,
                toolkit: None,
            },
            facts: None,
        }
    }
}

/// A rule that did not run, and why.
#[derive(Debug, Clone, Serialize)]
pub struct NotEvaluated {
    pub rule: &'static str,
    pub reason: &'static str,
}

/// The audit of one snapshot.
#[derive(Debug)]
pub struct Audit {
    /// In rule order, then row order.
    pub findings: Vec<Finding>,
    /// The suggested target, by row, of every row with a finding and every interactive
    /// element on screen (what automation readiness judges), and of their ancestors; `None`
    /// elsewhere.
    pub targets: Vec<Option<Target>>,
    /// The rules that ran.
    pub evaluated: Vec<&'static Rule>,
    pub not_evaluated: Vec<NotEvaluated>,
    pub min_severity: Severity,
    /// How many of the audit's own reads failed (the toolkit said no, or the element
    /// vanished): those elements were not judged by the rules that need them.
    pub facts_unreadable: usize,
}

impl Audit {
    /// How many findings of each severity (error, warning, review).
    pub fn counts(&self) -> [usize; 3] {
        let mut c = [0; 3];
        for f in &self.findings {
            c[match f.rule.severity {
                Severity::Error => 0,
                Severity::Warning => 1,
                Severity::Review => 2,
            }] += 1;
        }
        c
    }

    /// How many findings a rule has.
    pub fn count_of(&self, id: &str) -> usize {
        self.findings.iter().filter(|f| f.rule.id == id).count()
    }
}

/// What rules see: the snapshot, every node's suggested target, and small per-row facts
/// computed once.
pub struct Context<'s> {
    pub snap: &'s Snapshot,
    pub targets: &'s [Option<Target>],
    /// The state that says an element is on screen: `showing`, or `visible` where the toolkit
    /// never reports `showing` (GTK 4.8).
    pub on_screen: State,
    /// What the audit read beyond the snapshot, if anything.
    pub facts: Option<&'s Facts>,
    /// The app's toolkit, where known.
    pub toolkit: Option<Toolkit>,
    /// For each row, whether it is inside a document ([`in_pages`]).
    pub in_page: &'s [bool],
}

impl<'s> Context<'s> {
    fn nodes(&self) -> &'s [Node] {
        &self.snap.nodes
    }

    /// Rows of showing nodes.
    fn showing(&self) -> impl Iterator<Item = (usize, &'s Node)> + 's {
        let on_screen = self.on_screen;
        self.snap
            .nodes
            .iter()
            .enumerate()
            .filter(move |(_, n)| n.states.has(on_screen))
    }

    /// Rows the name rules judge: those on screen, and those a person reaches without their
    /// being drawn. In a page, whatever is `visible` (an engine leaves out of the tree what it
    /// does not render, and says `visible` of what it renders, however small or scrolled
    /// away: a screen reader's browse mode reads it, an empty link Tab lands on). Elsewhere,
    /// what takes the focus and is `visible` under a parent on screen. What is under a hidden
    /// parent in a toolkit's window (another notebook page, a closed menu) is left out: no
    /// keyboard reaches it.
    fn judged(&self) -> impl Iterator<Item = (usize, &'s Node, Drawn)> + 's {
        let on_screen = self.on_screen;
        let nodes = &self.snap.nodes;
        let in_page = self.in_page;
        nodes.iter().enumerate().filter_map(move |(row, n)| {
            if n.states.has(on_screen) {
                return Some((row, n, Drawn::Yes));
            }
            if !n.states.has(State::Visible) || n.repeat.is_some() {
                return None;
            }
            let focusable = n.states.has(State::Focusable);
            if in_page[row] {
                return Some((
                    row,
                    n,
                    if focusable {
                        Drawn::Focusable
                    } else {
                        Drawn::InPage
                    },
                ));
            }
            let parent_shown = n
                .parent
                .and_then(|p| nodes.get(p))
                .is_some_and(|p| p.states.has(on_screen));
            (focusable && parent_shown).then_some((row, n, Drawn::Focusable))
        })
    }

    /// Whether the element is inside a document (a web page's content).
    fn in_document(&self, row: usize) -> bool {
        self.in_page.get(row).copied().unwrap_or(false)
    }

    /// Whether the element is on screen (see [`Context::on_screen`]).
    fn is_showing(&self, n: &Node) -> bool {
        n.states.has(self.on_screen)
    }

    /// Whether a descendant of `row` within `levels` levels satisfies `pred`.
    fn descendant(&self, row: usize, levels: u32, pred: impl Fn(&Node) -> bool) -> bool {
        let nodes = &self.snap.nodes;
        let mut stack: Vec<(usize, u32)> = match nodes.get(row) {
            Some(n) => n.children.iter().map(|&c| (c, 1)).collect(),
            None => return false,
        };
        while let Some((r, depth)) = stack.pop() {
            let Some(n) = nodes.get(r) else { continue };
            if pred(n) {
                return true;
            }
            if depth < levels {
                stack.extend(n.children.iter().map(|&c| (c, depth + 1)));
            }
        }
        false
    }

    fn ancestors(&self, row: usize) -> impl Iterator<Item = (usize, &'s Node)> + 's {
        let nodes = &self.snap.nodes;
        let mut cur = nodes.get(row).and_then(|n| n.parent);
        std::iter::from_fn(move || {
            let r = cur?;
            let n = nodes.get(r)?;
            cur = n.parent.filter(|&p| p < r);
            Some((r, n))
        })
    }

    /// The element's bounds: the snapshot's, or those read for the audit.
    fn bounds(&self, row: usize) -> Option<crate::model::Bounds> {
        self.snap.nodes.get(row)?.bounds.or_else(|| {
            self.facts
                .and_then(|f| f.bounds.as_ref())
                .and_then(|b| b.get(&row).copied())
        })
    }

    /// The top-level window (frame, window or dialog) an element is in: its nearest such
    /// ancestor below the application.
    fn window_of(&self, row: usize) -> Option<(usize, &'s Node)> {
        self.ancestors(row)
            .find(|(_, n)| matches!(n.role, Role::Frame | Role::Window | Role::Dialog))
    }

    fn grade(&self, row: usize) -> Option<Grade> {
        self.targets.get(row)?.as_ref().map(Target::grade)
    }
}

/// For each row, whether a document (a web page's content) is among its ancestors: one pass
/// in pre-order, a parent's row coming before its children's.
pub(crate) fn in_pages(nodes: &[Node]) -> Vec<bool> {
    let mut in_page = vec![false; nodes.len()];
    for (r, n) in nodes.iter().enumerate() {
        if let Some(p) = n.parent.filter(|&p| p < r) {
            in_page[r] = in_page[p] || nodes[p].role == Role::Document;
        }
    }
    in_page
}

/// Whether an element the name rules judge is drawn, and if not, how a person reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drawn {
    Yes,
    /// Not on screen, but it takes the focus.
    Focusable,
    /// Not on screen, but in a page's reading order.
    InPage,
}

impl Drawn {
    /// What a finding adds about it: nothing when it is drawn.
    pub(crate) fn unless_drawn(self) -> &'static str {
        match self {
            Drawn::Yes => "",
            Drawn::Focusable => {
                "; it is not drawn (no size, or off screen), yet the keyboard reaches it"
            }
            Drawn::InPage => {
                "; it is not drawn (no size), yet a screen reader reads it in the page"
            }
        }
    }
}

/// `role "name"` of a node, for details (the name escaped and cut).
pub(crate) fn shown(n: &Node) -> String {
    if n.name.as_str().trim().is_empty() {
        n.role.as_str().to_string()
    } else {
        format!("{} {}", n.role, n.name.quoted(40))
    }
}

/// Whether a person operates the element (by role, or because it takes the focus).
pub(crate) fn interactive(n: &Node) -> bool {
    interactive_as(n.role, n.states)
}

/// [`interactive`] of an element known by its role and states alone (a read in progress).
pub(crate) fn interactive_as(role: Role, states: crate::model::States) -> bool {
    role.is_interactive() || states.has(State::Focusable) && !is_container(role)
}

/// Roles that hold other elements; a focusable one (a list, a scroll pane) is not a control.
pub(crate) fn is_container(role: Role) -> bool {
    role.is_wrapper()
        || matches!(
            role,
            Role::Application
                | Role::Window
                | Role::Frame
                | Role::Dialog
                | Role::Alert
                | Role::List
                | Role::Tree
                | Role::Table
                | Role::TabList
                | Role::Menu
                | Role::MenuBar
                | Role::ToolBar
                | Role::StatusBar
                | Role::Document
                | Role::SplitPane
                | Role::Canvas
        )
}

/// Every rule, in report order.
pub static RULES: &[Rule] = &[
    names::NAME_MISSING,
    names::NAME_BLANK,
    names::NAME_IS_ROLE,
    names::NAME_TOO_LONG,
    names::IMAGE_UNNAMED,
    names::HEADING_EMPTY,
    names::HEADER_UNNAMED,
    keyboard::ACTION_NOT_FOCUSABLE,
    keyboard::FOCUSED_NOT_FOCUSABLE,
    keyboard::FOCUS_MULTIPLE,
    states::CHECKED_NOT_CHECKABLE,
    states::SELECTED_NOT_SELECTABLE,
    states::EXPANDED_NOT_EXPANDABLE,
    structure::RADIO_NO_GROUP,
    structure::LABEL_NOT_RECIPROCAL,
    structure::LABEL_DANGLING,
    structure::LABEL_NAME_MISMATCH,
    structure::INDEX_IN_PARENT,
    structure::TABLE_INDEX_MISMATCH,
    geometry::BOUNDS_EMPTY,
    geometry::BOUNDS_OUTSIDE_PARENT,
    geometry::BOUNDS_OUTSIDE_WINDOW,
    unique::SIBLINGS_NOT_UNIQUE,
    automation::TARGET_POSITIONAL,
];

/// Checks that the issue lists and this engine does not make, and why: shown in `--help`, the
/// docs/audit.md and the JSON's `left_out`.
pub const LEFT_OUT: &[(&str, &str)] = &[
    (
        "element wholly outside the screen",
        "the screen's size is not read: an element is judged against its window instead \
         (`bounds-outside-window`)",
    ),
    (
        "reciprocity of relations other than labels (controller-for, flows-to, described-by, \
         member-of …)",
        "only the label relations and `member-of` are read",
    ),
    (
        "a table's cells beyond its first 4 × 4",
        "each asked cell may be made on demand by the toolkit; the first 4 × 4 are sampled",
    ),
];

/// Rules a toolkit is not judged by: what its bridge never says, so the rule would find
/// every element of the kind whatever the app does (measured on the matrix apps; docs/audit.md).
pub const TOOLKIT_EXCEPTIONS: &[(&str, &[Toolkit], &str)] = &[
    (
        "radio-no-group",
        &[Toolkit::Gtk4, Toolkit::Qt5, Toolkit::Qt6],
        "this toolkit's bridge reports no group for any radio button (GTK 4.8 and Qt 5/6 have \
         no member-of relation and no set position)",
    ),
    (
        "label-not-reciprocal",
        &[Toolkit::Gtk4],
        "GTK 4.8 reports labelled-by and never label-for",
    ),
    (
        "label-dangling",
        &[Toolkit::Gtk4],
        "GTK 4.8's buttons and other controls report labelled-by their own inner label or \
         image, which its bridge keeps out of the tree (33 in gtk4-widget-factory)",
    ),
    (
        "bounds-empty",
        &[Toolkit::Gtk4],
        "GTK 4.8 never reports showing: what it does not draw (another stack page, an overlay \
         scroll bar at rest) says visible and has 0×0 bounds",
    ),
];

/// Why `rule` is not judged on `toolkit`, if it is not.
pub fn toolkit_exception(rule: &str, toolkit: Option<Toolkit>) -> Option<&'static str> {
    let toolkit = toolkit?;
    TOOLKIT_EXCEPTIONS
        .iter()
        .find(|(id, kits, _)| *id == rule && kits.contains(&toolkit))
        .map(|(_, _, why)| *why)
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The groups, in order.
pub fn groups() -> Vec<&'static str> {
    let mut g: Vec<&'static str> = Vec::new();
    for r in RULES {
        if !g.contains(&r.group) {
            g.push(r.group);
        }
    }
    g
}

/// The rules `--rules` names (ids or groups, comma-separated or repeated), or why not.
pub fn select(names: &[String]) -> Result<Vec<&'static Rule>, String> {
    let words: Vec<&str> = names
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if words.is_empty() {
        return Ok(RULES.iter().collect());
    }
    let mut out: Vec<&'static Rule> = Vec::new();
    for w in words {
        let matched: Vec<&'static Rule> =
            RULES.iter().filter(|r| r.id == w || r.group == w).collect();
        if matched.is_empty() {
            return Err(format!(
                "unknown rule or group `{}` (rules: {}; groups: {})",
                crate::model::sanitize(w, 60),
                RULES.iter().map(|r| r.id).collect::<Vec<_>>().join(", "),
                groups().join(", ")
            ));
        }
        for r in matched {
            if !out.iter().any(|o| o.id == r.id) {
                out.push(r);
            }
        }
    }
    // Report order, whatever order they were asked in.
    out.sort_by_key(|r| RULES.iter().position(|x| x.id == r.id));
    Ok(out)
}

/// The state that says an element is on screen for a toolkit: `showing`, or `visible` where
/// the toolkit never reports `showing` (GTK 4.8).
pub fn on_screen(toolkit: Option<Toolkit>) -> State {
    match toolkit {
        Some(Toolkit::Gtk4) => State::Visible,
        _ => State::Showing,
    }
}

/// Runs the selected rules on `snap`. Unknown rule names are an error (see [`select`]).
pub fn audit(snap: &Snapshot, opts: &Options) -> Result<Audit, String> {
    run(None, snap, opts)
}

/// [`audit`] with an index built already (its suggestion groups are reused).
pub fn audit_with(ix: &SnapshotIndex, snap: &Snapshot, opts: &Options) -> Result<Audit, String> {
    run(Some(ix), snap, opts)
}

fn run(ix: Option<&SnapshotIndex>, snap: &Snapshot, opts: &Options) -> Result<Audit, String> {
    // A node that repeats an element placed elsewhere (a cycle, a second parent) is not an
    // element of its own: judged, it would make a focused element focused twice and a unique
    // name a duplicate. It is judged as nothing: no role, name or state.
    let neutral;
    let snap = if snap.nodes.iter().any(|n| n.repeat.is_some()) {
        let mut copy = snap.clone();
        for n in copy.nodes.iter_mut().filter(|n| n.repeat.is_some()) {
            n.role = crate::model::Role::Unknown;
            n.name = Default::default();
            n.description = Default::default();
            n.label = None;
            n.value = None;
            n.states = crate::model::States::EMPTY;
            n.bounds = None;
        }
        neutral = copy;
        &neutral
    } else {
        snap
    };
    let selected = select(&opts.rules)?;
    let on_screen = on_screen(opts.read.toolkit);
    let facts = opts
        .facts
        .as_deref()
        .filter(|f| f.snapshot == Some(snap.id));
    let bounds = facts.is_some_and(|f| f.bounds.is_some())
        || opts
            .read
            .bounds
            .unwrap_or_else(|| snap.nodes.iter().any(|n| n.bounds.is_some()));
    let mut evaluated = Vec::new();
    let mut not_evaluated = Vec::new();
    for rule in selected {
        let missing = match rule.needs {
            Needs::Labels if !opts.read.labels => {
                Some("the label relation was not read (this backend does not read it yet)")
            }
            Needs::Bounds if !bounds => Some("the snapshot has no bounds (not read)"),
            Needs::Index if facts.is_none_or(|f| f.index.is_none()) => {
                Some("the elements' own indexes were not read")
            }
            Needs::Relations if facts.is_none_or(|f| f.relations.is_none()) => {
                Some("the relations were not read")
            }
            Needs::Tables if facts.is_none_or(|f| f.tables.is_none()) => {
                Some("tables' cell numbering was not read")
            }
            _ => toolkit_exception(rule.id, opts.read.toolkit),
        };
        match missing {
            Some(reason) => not_evaluated.push(NotEvaluated {
                rule: rule.id,
                reason,
            }),
            None => evaluated.push(rule),
        }
    }
    let run: Vec<&'static Rule> = evaluated
        .iter()
        .copied()
        .filter(|r| r.severity >= opts.min_severity)
        .collect();
    // The suggestions automation readiness judges by (the interactive elements on screen)
    // are made on a second thread while the other rules run: on a 50,000-node tree they are
    // most of the audit's time.
    let judges_targets = |r: &Rule| r.id == automation::TARGET_POSITIONAL.id;
    let wants = run.iter().any(|r| judges_targets(r));
    let mut targets: Vec<Option<Target>> = vec![None; snap.nodes.len()];
    let in_page = in_pages(&snap.nodes);
    let rule_hits = |rules: &[&'static Rule], targets: &[Option<Target>]| {
        let cx = Context {
            snap,
            targets,
            on_screen,
            facts,
            toolkit: opts.read.toolkit,
            in_page: &in_page,
        };
        rules
            .iter()
            .map(|&rule| {
                let mut hits = Vec::new();
                (rule.check)(&cx, &mut hits);
                hits.sort_by_key(|h| h.row);
                hits.dedup_by_key(|h| h.row);
                (rule, hits)
            })
            .collect::<Vec<_>>()
    };
    let (first, later): (Vec<&'static Rule>, Vec<&'static Rule>) =
        run.iter().partition(|r| !judges_targets(r));
    let (suggester, mut hits) = std::thread::scope(|scope| {
        let made = scope.spawn(|| {
            let sg = RowSuggester::new(ix, snap);
            if wants {
                sg.fill(&mut targets, |row| {
                    automation::judged(&snap.nodes[row], on_screen)
                });
            }
            sg
        });
        let hits = rule_hits(&first, &[]);
        let sg = made.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        (sg, hits)
    });
    hits.extend(rule_hits(&later, &targets));
    // In rule order, then row order.
    hits.sort_by_key(|(rule, _)| RULES.iter().position(|r| r.id == rule.id));
    let findings: Vec<Finding> = hits
        .into_iter()
        .flat_map(|(rule, hits)| {
            hits.into_iter().map(move |h| Finding {
                rule,
                row: h.row,
                detail: h.detail,
                fix: h.fix,
            })
        })
        .collect();
    // Every finding names its element: the rows with findings get their suggestions now.
    let with: std::collections::HashSet<usize> = findings.iter().map(|f| f.row).collect();
    suggester.fill(&mut targets, |row| with.contains(&row));
    Ok(Audit {
        findings,
        targets,
        evaluated,
        not_evaluated,
        min_severity: opts.min_severity,
        facts_unreadable: facts.map_or(0, |f| f.unreadable),
    })
}

#[cfg(test)]
pub(crate) mod testing {
    //! Small trees for the rules' tests.
    use crate::model::{
        Bounds, Interface, Interfaces, Node, NodeId, Role, Snapshot, SnapshotId, State, States,
    };

    /// A node of `role` named `name`, showing, enabled.
    pub fn n(role: Role, name: &str) -> Node {
        let mut node = Node::new(NodeId(format!("t:{name}")), role, role.as_str());
        node.name = name.into();
        node.states = States::EMPTY
            .with(State::Showing)
            .with(State::Visible)
            .with(State::Enabled)
            .with(State::Sensitive);
        node.interfaces = Interfaces::EMPTY.with(Interface::Accessible);
        node
    }

    /// `node` with the raw role a backend reports for `kind`.
    pub fn of_kind(mut node: Node, kind: crate::model::RawKind) -> Node {
        node.raw_role = crate::backend::raw_name_of(kind).into();
        node
    }

    pub fn with(mut node: Node, state: State) -> Node {
        node.states.set(state, true);
        node
    }

    pub fn without(mut node: Node, state: State) -> Node {
        node.states.set(state, false);
        node
    }

    pub fn focusable(node: Node) -> Node {
        with(node, State::Focusable)
    }

    pub fn bounds(mut node: Node, x: i32, y: i32, w: i32, h: i32) -> Node {
        node.bounds = Some(Bounds {
            x,
            y,
            width: w,
            height: h,
        });
        node
    }

    /// A frame holding `kids` (each a node and its own children), laid out in pre-order.
    pub fn tree(kids: Vec<(Node, Vec<Node>)>) -> Snapshot {
        let mut nodes = vec![n(Role::Frame, "Window")];
        for (parent, children) in kids {
            let p = nodes.len();
            nodes[0].children.push(p);
            nodes.push(parent);
            for c in children {
                let r = nodes.len();
                nodes[p].children.push(r);
                nodes.push(c);
            }
        }
        Snapshot {
            id: SnapshotId::next(),
            app: "test".into(),
            window: "Window".into(),
            nodes: crate::model::preorder(nodes, 0),
            truncated: None,
            unreadable: 0,
            unreadable_elements: Vec::new(),
            cuts: Default::default(),
            read_ms: 0.0,
        }
    }

    /// The rows `id` finds in `snap`.
    pub fn rows(snap: &Snapshot, id: &str) -> Vec<usize> {
        let a = super::audit(
            snap,
            &super::Options {
                rules: vec![id.to_string()],
                ..super::Options::default()
            },
        )
        .expect("rule exists");
        a.findings.iter().map(|f| f.row).collect()
    }

    /// The rows `id` finds in `snap` with `facts` read for it.
    pub fn rows_with(snap: &Snapshot, id: &str, facts: super::Facts) -> Vec<usize> {
        let a = super::audit(
            snap,
            &super::Options {
                rules: vec![id.to_string()],
                facts: Some(std::sync::Arc::new(facts)),
                ..super::Options::default()
            },
        )
        .expect("rule exists");
        a.findings.iter().map(|f| f.row).collect()
    }

    /// The rows of `snap` named `name`.
    pub fn named(snap: &Snapshot, name: &str) -> Vec<usize> {
        snap.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.name.as_str() == name)
            .map(|(r, _)| r)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn rules_are_documented_and_unique() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len(), "rule ids are unique");
        for r in RULES {
            assert!(!r.message.contains('\n'), "{}: one-line message", r.id);
            assert!(r.standard.starts_with("WCAG "), "{}", r.id);
            assert!(!r.help.is_empty() && !r.anchor.is_empty(), "{}", r.id);
        }
    }

    #[test]
    fn a_toolkit_exception_leaves_its_rule_not_evaluated_there_only() {
        let snap = tree(vec![(n(Role::RadioButton, "Alone"), vec![])]);
        let mut f = Facts::of(snap.id);
        f.relations = Some([(1, facts::Relations::default())].into_iter().collect());
        let run = |toolkit| {
            audit(
                &snap,
                &Options {
                    rules: vec!["radio-no-group".into()],
                    facts: Some(Arc::new(f.clone())),
                    read: Read {
                        labels: true,
                        bounds: None,
                        toolkit,
                    },
                    ..Options::default()
                },
            )
            .unwrap()
        };
        assert_eq!(run(Some(Toolkit::Gtk3)).findings.len(), 1);
        let qt = run(Some(Toolkit::Qt6));
        assert!(qt.findings.is_empty());
        assert_eq!(qt.not_evaluated[0].rule, "radio-no-group");
    }

    #[test]
    fn selection_by_id_and_group_and_unknown_names() {
        let s = select(&["keyboard".into(), "name-missing".into()]).unwrap();
        let ids: Vec<&str> = s.iter().map(|r| r.id).collect();
        assert_eq!(ids[0], "name-missing", "report order");
        assert!(ids.contains(&"focus-multiple"));
        assert!(select(&["nonsense".into()]).is_err());
        assert_eq!(select(&[]).unwrap().len(), RULES.len());
    }

    #[test]
    fn rules_needing_what_was_not_read_are_not_evaluated() {
        let snap = tree(vec![(focusable(n(Role::Button, "")), vec![])]);
        let opts = Options {
            read: Read {
                labels: false,
                bounds: None,
                toolkit: None,
            },
            ..Options::default()
        };
        let a = audit(&snap, &opts).unwrap();
        let skipped: Vec<&str> = a.not_evaluated.iter().map(|n| n.rule).collect();
        assert!(skipped.contains(&"name-missing"));
        assert!(skipped.contains(&"bounds-empty"), "no node has bounds");
        assert_eq!(a.count_of("name-missing"), 0);
    }

    #[test]
    fn min_severity_leaves_lower_findings_out() {
        // An unnamed button (error) that is also positional (review).
        let snap = tree(vec![(
            n(Role::Panel, "P"),
            vec![
                focusable(n(Role::Button, "")),
                focusable(n(Role::Button, "")),
            ],
        )]);
        let all = audit(&snap, &Options::default()).unwrap();
        assert!(all.count_of("target-positional") > 0);
        let errors = audit(
            &snap,
            &Options {
                min_severity: Severity::Error,
                ..Options::default()
            },
        )
        .unwrap();
        assert!(
            errors
                .findings
                .iter()
                .all(|f| f.rule.severity == Severity::Error)
        );
        assert!(errors.count_of("name-missing") == 2);
    }
}
