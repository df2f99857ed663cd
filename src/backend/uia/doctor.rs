//! `treeglass doctor --backend uia`: each thing a read needs, tried in order, the first that
//! fails named with its HRESULT and what to do, the rest said to be untried. The steps are
//! taken by the IO module on Windows; this part words them, and is tested everywhere.

use super::map::REGDB_E_CLASSNOTREG;
use super::read::Fault;
use crate::doctor::{Check, Report, Status};

/// The steps, in the order they are tried: (name, what it is).
pub const STEPS: &[(&str, &str)] = &[
    (
        "automation",
        "COM started (multithreaded) and the UI Automation client created (CUIAutomation)",
    ),
    ("root", "the desktop's root element"),
    ("window", "one top-level window read with one cache request"),
    (
        "pattern",
        "one control pattern of an element in that window",
    ),
];

/// How one step came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Ok(String),
    /// It worked, but something is off (no windows to read).
    Warn(String),
    /// It could not be tried for a reason of its own (no element with a pattern).
    Skip(String),
    /// The call that failed, and how.
    Failed(&'static str, Fault),
}

/// What to do about a step that failed with `fault`.
fn fix(step: &str, fault: &Fault) -> String {
    match (step, fault.code) {
        ("automation", REGDB_E_CLASSNOTREG) => "UI Automation's client is part of Windows \
             (UIAutomationCore.dll): on Windows, repair the system files (`sfc /scannow`). Wine \
             has no UI Automation client, so the uia backend cannot run there; the demo app \
             does (`--backend fixture`)"
            .into(),
        ("automation", _) => "COM could not start the UI Automation client in this process; \
             run treeglass from a normal desktop session"
            .into(),
        _ => "the desktop's accessibility provider refused this call; try again with the app \
             in front, and compare with Inspect or Accessibility Insights"
            .into(),
    }
}

/// The report of the steps taken, in [`STEPS`] order: every step after the first failure is
/// "not tried".
pub fn report(outcomes: &[Outcome]) -> Report {
    let mut checks = Vec::new();
    let mut failed: Option<&str> = None;
    for (i, (name, what)) in STEPS.iter().enumerate() {
        let check = match (failed, outcomes.get(i)) {
            (Some(first), _) => Check::new(
                name,
                Status::Skip,
                format!("{what}: not tried ({first} failed)"),
            ),
            (None, Some(Outcome::Ok(detail))) => Check::new(name, Status::Ok, detail.clone()),
            (None, Some(Outcome::Warn(detail))) => Check::new(name, Status::Warn, detail.clone()),
            (None, Some(Outcome::Skip(why))) => {
                Check::new(name, Status::Skip, format!("{what}: {why}"))
            }
            (None, Some(Outcome::Failed(call, fault))) => {
                failed = Some(name);
                Check::new(
                    name,
                    Status::Fail,
                    format!("{call} failed: {}", fault.describe()),
                )
                .fix(fix(name, fault))
            }
            (None, None) => Check::new(name, Status::Skip, format!("{what}: not tried")),
        };
        checks.push(check);
    }
    Report {
        backend: "uia".into(),
        checks,
        apps: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_failure_is_named_with_its_hresult_and_the_rest_not_tried() {
        let r = report(&[Outcome::Failed(
            "CoCreateInstance(CUIAutomation)",
            Fault::new(REGDB_E_CLASSNOTREG),
        )]);
        let lines: Vec<(Status, &str)> = r
            .checks
            .iter()
            .map(|c| (c.status, c.detail.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (
                    Status::Fail,
                    "CoCreateInstance(CUIAutomation) failed: 0x80040154 (REGDB_E_CLASSNOTREG): \
                     no UI Automation client is registered on this system"
                ),
                (
                    Status::Skip,
                    "the desktop's root element: not tried (automation failed)"
                ),
                (
                    Status::Skip,
                    "one top-level window read with one cache request: not tried (automation \
                     failed)"
                ),
                (
                    Status::Skip,
                    "one control pattern of an element in that window: not tried (automation \
                     failed)"
                ),
            ]
        );
        assert!(r.checks[0].fix.as_deref().unwrap_or("").contains("Wine"));
        assert!(!r.healthy());
    }

    #[test]
    fn a_later_failure_keeps_what_worked() {
        let r = report(&[
            Outcome::Ok("CUIAutomation created".into()),
            Outcome::Ok("the desktop".into()),
            Outcome::Failed(
                "BuildUpdatedCache",
                Fault::new(super::super::map::E_NOTIMPL),
            ),
        ]);
        let statuses: Vec<Status> = r.checks.iter().map(|c| c.status).collect();
        assert_eq!(
            statuses,
            [Status::Ok, Status::Ok, Status::Fail, Status::Skip]
        );
        assert_eq!(
            r.checks[2].detail,
            "BuildUpdatedCache failed: 0x80004001 (E_NOTIMPL): the provider does not implement \
             this"
        );
        assert_eq!(
            r.checks[3].detail,
            "one control pattern of an element in that window: not tried (window failed)"
        );
    }
}
