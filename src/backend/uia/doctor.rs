//! `treeglass doctor --backend uia`: each thing a read needs, tried in order, the first that
//! fails named with its call, its HRESULT, who refused it and what to do, the rest said to be
//! untried. A read that failed is said to have failed, never shown as an empty value. The
//! steps are taken by the IO module on Windows; this part words them, and is tested everywhere.

use super::calls::{Party, Refusal};
use super::hresult::{E_ACCESSDENIED, REGDB_E_CLASSNOTREG};
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
    /// It worked in part: what was had, and the refusal that kept the rest.
    Partial(String, Refusal),
    /// It could not be tried for a reason of its own (no element with a pattern).
    Skip(String),
    /// The call that failed, how, and who refused it.
    Failed(Refusal),
}

/// A value read for the report, or the read's failure said as such: `ClassName "#32769"`,
/// `ClassName not read: IUIAutomationElement::GetCurrentPropertyValue(ClassName) failed: …`.
pub fn read_or_why(what: &str, read: Result<String, Refusal>) -> (String, Option<Refusal>) {
    match read {
        Ok(v) => (
            format!(
                "{what} {}",
                crate::model::AppText::from(v.as_str()).quoted(60)
            ),
            None,
        ),
        Err(r) => (format!("{what} not read"), Some(r)),
    }
}

/// What to do about a step that `refusal` stopped (or kept partial).
fn fix(step: &str, refusal: &Refusal) -> String {
    match (step, refusal.fault.code, refusal.party) {
        ("automation", REGDB_E_CLASSNOTREG, _) => "UI Automation's client is part of Windows \
             (UIAutomationCore.dll): on Windows, repair the system files (`sfc /scannow`). Wine \
             8 and older have no UI Automation client, so the uia backend cannot run there \
             (Wine 10 has a partial one); the demo app runs anywhere (`--backend fixture`)"
            .into(),
        ("automation", _, _) => "COM could not start the UI Automation client in this process; \
             run treeglass from a normal desktop session"
            .into(),
        (_, E_ACCESSDENIED, _) => "Windows keeps a process from reading an app that runs at a \
             higher integrity level: run treeglass as administrator to read an app that runs \
             as administrator"
            .into(),
        ("window", _, p) if p.is_client() => "the UI Automation client itself refused this, so \
             no app or app setting can change it: it is a partial client (as Wine's is). \
             treeglass lists the top-level windows (EnumWindows) and reads each alone; their \
             children need a client that caches subtrees, as Windows' own does"
            .into(),
        (_, _, p) if p.is_client() => "the UI Automation client itself refused this, so no app \
             or app setting can change it: it is a partial client (as Wine's is), and what \
             needs this call cannot work with it"
            .into(),
        (_, _, Party::ClientOrApp) => "the UI Automation client or the app refused this: \
             compare with Inspect or Accessibility Insights, which use the same client; if they \
             read the app, the client is whole and the app refused"
            .into(),
        _ => "the app's accessibility provider refused this call; try again with the app in \
             front, and compare with Inspect or Accessibility Insights"
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
            (None, Some(Outcome::Partial(detail, refusal))) => {
                Check::new(name, Status::Warn, format!("{detail}: {refusal}"))
                    .fix(fix(name, refusal))
            }
            (None, Some(Outcome::Skip(why))) => {
                Check::new(name, Status::Skip, format!("{what}: {why}"))
            }
            (None, Some(Outcome::Failed(refusal))) => {
                failed = Some(name);
                Check::new(name, Status::Fail, refusal.describe()).fix(fix(name, refusal))
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
    use crate::backend::uia::calls;
    use crate::backend::uia::hresult::E_NOTIMPL;
    use crate::backend::uia::read::Fault;

    #[test]
    fn the_first_failure_is_named_with_its_hresult_and_the_rest_not_tried() {
        let r = report(&[Outcome::Failed(Refusal::of(
            &calls::create_client(),
            Fault::new(REGDB_E_CLASSNOTREG),
        ))]);
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
                     no UI Automation client is registered on this system (refused by the \
                     system, not by UI Automation or an app)"
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
        let fix = r.checks[0].fix.as_deref().unwrap_or("");
        assert!(
            fix.contains("Wine 8 and older have no UI Automation client"),
            "{fix}"
        );
        assert!(fix.contains("Wine 10 has a partial one"), "{fix}");
        assert!(!r.healthy());
    }

    #[test]
    fn a_later_failure_keeps_what_worked() {
        let r = report(&[
            Outcome::Ok("CUIAutomation created".into()),
            Outcome::Ok("the desktop".into()),
            Outcome::Failed(Refusal::new(
                &calls::pattern("Value"),
                Fault::new(E_NOTIMPL),
                || Some(Ok(())),
            )),
        ]);
        let statuses: Vec<Status> = r.checks.iter().map(|c| c.status).collect();
        assert_eq!(
            statuses,
            [Status::Ok, Status::Ok, Status::Fail, Status::Skip]
        );
        assert_eq!(
            r.checks[2].detail,
            "IUIAutomationElement::GetCurrentPattern(ValuePattern) failed: 0x80004001 \
             (E_NOTIMPL): not implemented (refused by the app's UI Automation provider)"
        );
        assert!(
            r.checks[2]
                .fix
                .as_deref()
                .unwrap_or("")
                .contains("app in front")
        );
        assert_eq!(
            r.checks[3].detail,
            "one control pattern of an element in that window: not tried (window failed)"
        );
    }

    /// A client that refuses is never advised away by bringing an app to the front, and a
    /// failed read is said to have failed, not printed as an empty value.
    #[test]
    fn a_client_refusal_says_no_app_can_change_it_and_failed_reads_say_so() {
        let scope = Refusal::of(&calls::tree_scope("Children"), Fault::new(E_NOTIMPL));
        let class = Refusal::new(&calls::property("ClassName"), Fault::new(E_NOTIMPL), || {
            Some(Err(E_NOTIMPL))
        });
        let (class_text, class_why) = read_or_why("ClassName", Err(class));
        let class_why = class_why.unwrap_or_else(|| panic!("a failed read has its refusal"));
        let r = report(&[
            Outcome::Ok("the UI Automation client (CUIAutomation) started".into()),
            Outcome::Partial(
                format!("the desktop's root element; {class_text}"),
                class_why,
            ),
            Outcome::Partial(
                "1 top-level window found by EnumWindows, read alone: \"Wine configuration\"; \
                 its children not read"
                    .into(),
                scope,
            ),
        ]);
        let root = &r.checks[1];
        assert_eq!(root.status, Status::Warn);
        assert_eq!(
            root.detail,
            "the desktop's root element; ClassName not read: \
             IUIAutomationElement::GetCurrentPropertyValue(ClassName) failed: 0x80004001 \
             (E_NOTIMPL): not implemented (refused by the UI Automation client itself, not by \
             the app: it refuses the same call on the desktop, which no app provides)"
        );
        assert!(!root.detail.contains("()"), "{}", root.detail);
        let window = &r.checks[2];
        assert_eq!(window.status, Status::Warn);
        assert!(
            window.detail.ends_with(
                "IUIAutomationCacheRequest::put_TreeScope(TreeScope_Children) failed: \
                 0x80004001 (E_NOTIMPL): not implemented (refused by the UI Automation client \
                 itself; no app was asked)"
            ),
            "{}",
            window.detail
        );
        for c in &r.checks[1..3] {
            let fix = c.fix.as_deref().unwrap_or("");
            assert!(fix.contains("no app or app setting can change it"), "{fix}");
            assert!(!fix.contains("in front"), "{fix}");
        }
        let text = r.text();
        assert!(!text.contains("provider does not implement"), "{text}");
        assert_eq!(
            read_or_why("ClassName", Ok("#32769".into())),
            ("ClassName \"#32769\"".to_string(), None)
        );
    }
}
