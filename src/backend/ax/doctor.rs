//! `treeglass doctor` on macOS: whether this process may use the Accessibility API, and whether
//! it lists applications. The IO (connecting the AX backend, listing its apps) is done by
//! `backend::pick`; this part words it, and is tested everywhere.

use crate::backend::BackendError;
use crate::doctor::{Check, Report, Status};

/// The report of a start of the AX backend (`started`) and, when it started, its count of
/// applications with a window (`apps`).
pub fn report(
    started: Result<(), BackendError>,
    apps: Option<Result<usize, BackendError>>,
) -> Report {
    let mut checks = Vec::new();
    match started {
        Ok(()) => checks.push(Check::new(
            "accessibility",
            Status::Ok,
            "this process may use the Accessibility API (the system-wide element answers \
             AXFocusedApplication)",
        )),
        Err(e) => checks.push(Check::new("accessibility", Status::Fail, e.to_string())),
    }
    checks.push(match apps {
        None => Check::new("apps", Status::Skip, "not tried (accessibility failed)"),
        Some(Ok(0)) => Check::new(
            "apps",
            Status::Warn,
            "no application with a window: open one and run doctor again",
        ),
        Some(Ok(n)) => Check::new(
            "apps",
            Status::Ok,
            format!(
                "{n} application{} with a window",
                if n == 1 { "" } else { "s" }
            ),
        ),
        Some(Err(e)) => Check::new("apps", Status::Fail, e.to_string()),
    });
    Report {
        backend: "ax".into(),
        checks,
        apps: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ax::{calls, map};

    #[test]
    fn a_process_not_allowed_says_which_call_and_switch() {
        let refused = calls::error(
            &calls::copy_attribute("AXFocusedApplication"),
            map::AX_ERROR_API_DISABLED,
        );
        let r = report(Err(refused), None);
        assert!(!r.healthy());
        let text = r.text();
        let want = format!(
            "[FAIL] accessibility: {}: AXUIElementCopyAttributeValue(kAXFocusedApplication) \
             failed: -25211 (kAXErrorAPIDisabled): this process is not allowed to use \
             accessibility (refused by the system, not by the app): in System Settings",
            crate::backend::pick::UNAVAILABLE
        );
        assert!(text.contains(&want), "{text}");
        assert!(text.contains("[skip] apps: not tried"), "{text}");
    }

    #[test]
    fn apps_are_counted_and_none_is_a_warning() {
        assert!(report(Ok(()), Some(Ok(3))).healthy());
        let r = report(Ok(()), Some(Ok(0)));
        assert!(!r.healthy());
        assert!(
            r.text()
                .contains("[warn] apps: no application with a window")
        );
    }
}
