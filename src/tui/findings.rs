//! The accessibility checks (`crate::audit`) on the shown tree, kept live: the rules engine
//! runs again whenever the tree changes (a whole read, a patch that changes what a rule looks
//! at), never per keystroke, and not on a tree still being read. The findings give the tree's
//! badges, the details pane's list, the findings overlay (`overlay::findings`) and stepping
//! through them in tree order (`]`, `[`).
//!
//! The rules cost about 11 ms at 10,000 nodes and 75 ms at 50,000 (`cargo bench --bench
//! audit`). On a tree of more than [`AUDIT_AT_ONCE`] nodes
//! they run once the tree has been quiet for [`AUDIT_WAIT`], so a burst of events on a big
//! window costs one run, not one per event; until then the last findings stay when their rows
//! still hold (the same snapshot, patched), and none are shown on a new snapshot.

/// Trees up to this size are judged at once after each change.
pub const AUDIT_AT_ONCE: usize = 10_000;
/// How long a bigger tree must be quiet before it is judged again.
pub const AUDIT_WAIT: Duration = Duration::from_millis(300);

use std::time::Duration;

use super::app::{App, Effect, Pane, TimerId};
use crate::audit::{self, Finding, NotEvaluated, Options, Read, Severity};
use crate::model::{SnapshotId, Toolkit, Truncation};

/// The audit of the shown tree.
#[derive(Debug)]
pub struct Findings {
    /// The (snapshot, audit version) it was made for.
    pub key: (SnapshotId, u64),
    pub state: AuditState,
}

#[derive(Debug)]
pub enum AuditState {
    /// The first read of the window is still running: nothing is judged on a part of it.
    Waiting,
    /// A big tree changed to a new snapshot: judged once it is quiet ([`AUDIT_WAIT`]).
    Checking,
    Done(Report),
}

/// The findings on one tree.
#[derive(Debug)]
pub struct Report {
    /// In tree (row) order; on one row, the worst first.
    pub findings: Vec<Finding>,
    /// Indexes into `findings`, by severity (worst first), then rule order, then row.
    pub by_severity: Vec<usize>,
    /// Errors, warnings, review.
    pub counts: [usize; 3],
    /// Whether the tree was read whole (otherwise the findings are on what was read).
    pub complete: bool,
    /// The suggested target of each row with findings, by row: how the findings name their
    /// elements (the engine's target for every node is not kept: 100,000 of them are tens of
    /// MB).
    targets: Vec<(usize, String)>,
    pub not_evaluated: Vec<NotEvaluated>,
}

impl Report {
    /// The findings on `row`, worst first.
    pub fn of_row(&self, row: usize) -> &[Finding] {
        let a = self.findings.partition_point(|f| f.row < row);
        let b = self.findings.partition_point(|f| f.row <= row);
        &self.findings[a..b]
    }

    /// The findings a tree line shows: its row's and those of the wrappers folded into it
    /// (its `folded` nearest ancestors, found with `parent`), worst first. A folded wrapper
    /// has no line of its own, so its findings would otherwise show nowhere in the tree.
    pub fn of_line(
        &self,
        row: usize,
        folded: usize,
        parent: impl Fn(usize) -> Option<usize>,
    ) -> Vec<&Finding> {
        let mut here: Vec<&Finding> = self.of_row(row).iter().collect();
        let mut r = row;
        for _ in 0..folded {
            let Some(p) = parent(r) else { break };
            here.extend(self.of_row(p));
            r = p;
        }
        // Stable: on one row the worst already comes first.
        here.sort_by_key(|f| std::cmp::Reverse(f.rule.severity));
        here
    }

    /// The worst severity on `row`.
    pub fn worst(&self, row: usize) -> Option<Severity> {
        self.of_row(row).first().map(|f| f.rule.severity)
    }

    /// `10 findings (1 error, 6 warnings, 3 review)`.
    pub fn summary(&self) -> String {
        let [e, w, r] = self.counts;
        let total = e + w + r;
        if total == 0 {
            return "no findings".into();
        }
        let mut parts = Vec::new();
        if e > 0 {
            parts.push(crate::model::display::counted(e, "error", "errors"));
        }
        if w > 0 {
            parts.push(crate::model::display::counted(w, "warning", "warnings"));
        }
        if r > 0 {
            parts.push(format!("{r} review"));
        }
        format!(
            "{} ({})",
            crate::model::display::counted(total, "finding", "findings"),
            parts.join(", ")
        )
    }

    /// How a finding names its element: the suggested target, else `role "name"`.
    pub fn label(&self, snap: &crate::model::Snapshot, row: usize) -> String {
        match self.targets.binary_search_by_key(&row, |(r, _)| *r) {
            Ok(i) => self.targets[i].1.clone(),
            Err(_) => snap.nodes.get(row).map(audit::shown).unwrap_or_default(),
        }
    }

    /// The worst severity of any finding.
    pub fn worst_overall(&self) -> Option<Severity> {
        self.by_severity
            .first()
            .and_then(|&i| self.findings.get(i))
            .map(|f| f.rule.severity)
    }
}

/// The position of a rule in report order.
fn rule_order(f: &Finding) -> usize {
    audit::RULES
        .iter()
        .position(|r| r.id == f.rule.id)
        .unwrap_or(usize::MAX)
}

/// The TUI's accessibility checks: what they were made for, their answer, and what they need
/// beyond the tree.
#[derive(Debug, Default)]
pub struct Audit {
    /// Bumped when the tree changes in what the accessibility rules look at (a re-read, a
    /// patch of roles, names, states, interfaces, labels or read bounds) — not when the
    /// details pane's fresh read only adds action names.
    pub version: u64,
    /// The checks on the shown tree, made for (snapshot, `version`).
    pub findings: Option<Findings>,
    /// A [`TimerId::Audit`](super::app::TimerId::Audit) is running.
    pub(super) timer: bool,
    /// What the rules need beyond the tree, read on the last whole read and carried through
    /// its patches; and the whole read they were last asked for.
    pub(super) facts: Option<crate::audit::facts::Carried>,
    pub(super) facts_asked: Option<crate::model::SnapshotId>,
}

impl App {
    /// The report on the shown tree, when it is made.
    pub fn report(&self) -> Option<&Report> {
        let f = self.audit.findings.as_ref()?;
        // Rows are a snapshot's: a report on another one says nothing about this tree.
        if self.view.tree.as_ref().map(|t| t.snap.id) != Some(f.key.0) {
            return None;
        }
        match &f.state {
            AuditState::Done(r) => Some(r),
            AuditState::Waiting | AuditState::Checking => None,
        }
    }

    /// Whether a big tree's changed snapshot waits to be judged.
    pub fn audit_checking(&self) -> bool {
        self.view.tree.is_some()
            && self.report().is_none()
            && !self.audit_waiting()
            && self.audit.findings.is_some()
    }

    /// Whether the audit waits for the first read to finish.
    pub fn audit_waiting(&self) -> bool {
        self.audit
            .findings
            .as_ref()
            .is_some_and(|f| matches!(f.state, AuditState::Waiting))
    }

    /// Runs the rules again when the tree changed since the last run (a big tree: once it
    /// is quiet).
    pub(super) fn sync_findings(&mut self, fx: &mut Vec<Effect>) {
        self.judge(false, fx);
    }

    /// The quiet time after a big tree's change is over.
    pub(super) fn audit_timer(&mut self, fx: &mut Vec<Effect>) {
        self.audit.timer = false;
        self.judge(true, fx);
    }

    fn judge(&mut self, due: bool, fx: &mut Vec<Effect>) {
        let Some(tree) = &self.view.tree else {
            self.audit.findings = None;
            return;
        };
        let key = (tree.snap.id, self.audit.version);
        if self
            .audit
            .findings
            .as_ref()
            .is_some_and(|f| f.key == key && !matches!(f.state, AuditState::Checking))
        {
            return;
        }
        if tree.snap.truncated == Some(Truncation::Reading) {
            self.audit.findings = Some(Findings {
                key,
                state: AuditState::Waiting,
            });
            return;
        }
        if tree.snap.nodes.len() > AUDIT_AT_ONCE && !due {
            if !self.audit.timer {
                self.audit.timer = true;
                fx.push(Effect::Timer {
                    id: TimerId::Audit,
                    after: AUDIT_WAIT,
                });
            }
            // The last findings stay while their rows hold (the same snapshot).
            let same = self
                .audit
                .findings
                .as_ref()
                .is_some_and(|f| f.key.0 == key.0);
            if !same {
                self.audit.findings = Some(Findings {
                    key,
                    state: AuditState::Checking,
                });
            }
            return;
        }
        let toolkit = self.view.shown.as_ref().and_then(|s| {
            let a = self.apps.iter().find(|a| a.bus_name == s.bus_name)?;
            let name = a.toolkit.as_ref()?;
            let version = a.toolkit_version.as_ref().map_or("", |v| v.as_str());
            Some(Toolkit::detect(name.as_str(), version))
        });
        // What the rules need beyond the tree: read once per whole read where the backend
        // reads them (the others' snapshots carry bounds, and none has the rest yet), then carried
        // through the tree's patches.
        let on_screen = audit::on_screen(toolkit);
        if tree.snap.complete()
            && self.audit.facts_asked != Some(tree.snap.id)
            && self.config.audit_reads.facts
        {
            self.audit.facts_asked = Some(tree.snap.id);
            fx.push(Effect::AuditFacts {
                snap: std::sync::Arc::new(tree.snap.clone()),
                on_screen,
            });
        }
        let facts = self
            .audit
            .facts
            .as_ref()
            .map(|c| std::sync::Arc::new(c.on(&tree.snap)));
        let opts = Options {
            facts,
            read: Read {
                labels: self.config.audit_reads.labels,
                // Decided by the whole read: the details pane's fresh reads add bounds to one
                // element at a time, which must not turn geometry on for the whole tree.
                bounds: Some(tree.bounds_read),
                toolkit,
            },
            ..Options::default()
        };
        let state = match audit::audit_with(&tree.index, &tree.snap, &opts) {
            Ok(a) => {
                let mut findings = a.findings;
                findings.sort_by_key(|f| (f.row, std::cmp::Reverse(f.rule.severity)));
                let mut targets: Vec<(usize, String)> = Vec::new();
                for f in &findings {
                    if targets.last().is_none_or(|(r, _)| *r != f.row)
                        && let Some(Some(t)) = a.targets.get(f.row)
                    {
                        targets.push((f.row, t.to_string()));
                    }
                }
                drop(a.targets);
                let mut by_severity: Vec<usize> = (0..findings.len()).collect();
                by_severity.sort_by_key(|&i| {
                    let f = &findings[i];
                    (std::cmp::Reverse(f.rule.severity), rule_order(f), f.row)
                });
                let counts = {
                    let mut c = [0; 3];
                    for f in &findings {
                        c[match f.rule.severity {
                            Severity::Error => 0,
                            Severity::Warning => 1,
                            Severity::Review => 2,
                        }] += 1;
                    }
                    c
                };
                AuditState::Done(Report {
                    findings,
                    by_severity,
                    counts,
                    complete: tree.snap.complete(),
                    targets,
                    not_evaluated: a.not_evaluated,
                })
            }
            // Every rule is selected: this cannot fail; show nothing rather than panic.
            Err(_) => AuditState::Waiting,
        };
        self.audit.findings = Some(Findings { key, state });
    }

    /// The facts asked for a whole read: kept when that read is still the one shown (patched
    /// or not), and the tree judged again with them.
    pub(super) fn on_audit_facts(
        &mut self,
        snap: &crate::model::Snapshot,
        result: Result<Option<audit::Facts>, crate::backend::BackendError>,
        fx: &mut Vec<Effect>,
    ) {
        match result {
            Ok(Some(facts)) => {
                self.audit.facts = Some(audit::facts::Carried::new(snap, facts));
                self.audit.findings = None;
                self.judge(true, fx);
            }
            Ok(None) => {}
            Err(e) => {
                self.notice = Some(format!(
                    "audit: bounds, indexes and relations not read: {}",
                    crate::model::sanitize(&e.to_string(), 120)
                ));
            }
        }
    }

    /// `]` / `[`: the next (previous) element with findings after (before) the selection, in
    /// tree order, wrapping.
    pub(super) fn step_finding(&mut self, forward: bool) {
        if self.audit_waiting() {
            self.notice = Some("audit: waiting for the whole tree".into());
            return;
        }
        let Some(r) = self.report() else {
            self.notice = Some("audit: checking the changed tree".into());
            return;
        };
        let mut rows: Vec<usize> = r.findings.iter().map(|f| f.row).collect();
        rows.dedup();
        let (Some(&first), Some(&last)) = (rows.first(), rows.last()) else {
            self.notice = Some("no findings".into());
            return;
        };
        let cur = self.selected_node().map(|(r, _)| r);
        let next = match cur {
            None => first,
            Some(c) if forward => rows
                .get(rows.partition_point(|&x| x <= c))
                .copied()
                .unwrap_or(first),
            Some(c) => {
                let i = rows.partition_point(|&x| x < c);
                if i == 0 { last } else { rows[i - 1] }
            }
        };
        let pos = rows.partition_point(|&x| x < next) + 1;
        let total = rows.len();
        let what = r
            .of_row(next)
            .iter()
            .map(|f| f.rule.id)
            .collect::<Vec<_>>()
            .join(", ");
        self.go_to_finding(next);
        self.notice = Some(format!("element {pos} of {total} with findings: {what}"));
    }

    pub(crate) fn go_to_finding(&mut self, row: usize) {
        let Some(tree) = &self.view.tree else {
            return;
        };
        if tree.line_of(row).is_none() && tree.hiding() {
            self.notice = Some("it is in a hidden branch (H shows every branch)".into());
            return;
        }
        self.focus = Pane::Tree;
        self.select_row(row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(id: &str, row: usize) -> Finding {
        Finding {
            rule: audit::rule(id).expect("a rule"),
            row,
            detail: String::new(),
            fix: None,
        }
    }

    /// frame (0) > panel (1, folded) > filler (2, folded) > button (3): the button's line shows
    /// the wrappers' findings too, worst first; the frame's line shows only its own.
    #[test]
    fn a_line_shows_the_findings_of_the_wrappers_folded_into_it() {
        let findings = vec![
            finding("focused-not-focusable", 1),
            finding("name-missing", 2),
            finding("target-positional", 3),
            finding("focus-multiple", 0),
        ];
        let mut sorted = findings;
        sorted.sort_by_key(|f| (f.row, std::cmp::Reverse(f.rule.severity)));
        let report = Report {
            findings: sorted,
            by_severity: Vec::new(),
            counts: [0; 3],
            complete: true,
            targets: Vec::new(),
            not_evaluated: Vec::new(),
        };
        let parent = |r: usize| r.checked_sub(1);
        let ids = |v: Vec<&Finding>| v.iter().map(|f| f.rule.id).collect::<Vec<_>>();
        let line = report.of_line(3, 2, parent);
        assert_eq!(line.len(), 3, "{:?}", ids(line));
        assert!(
            line.windows(2)
                .all(|w| w[0].rule.severity >= w[1].rule.severity),
            "{:?}",
            ids(line)
        );
        assert!(!ids(report.of_line(3, 2, parent)).contains(&"focus-multiple"));
        assert_eq!(ids(report.of_line(3, 0, parent)), ["target-positional"]);
        assert_eq!(ids(report.of_line(0, 0, parent)), ["focus-multiple"]);
    }
}
