//! The AX calls treeglass makes, named as macOS names them, and a failed one worded once: the
//! call, its `AXError` by name, what it means and who refused — the system (this process is
//! not allowed to use accessibility, or refused the call's arguments) or the app (its element
//! gone, no answer in time, an attribute or action it does not have). `kAXErrorFailure` does
//! not say which, and the message says so.

use super::map::{self, ErrorKind};
use crate::backend::BackendError;

/// `AXUIElementCopyAttributeValue(kAXChildren)` for the attribute `AXChildren`.
pub fn copy_attribute(attribute: &str) -> String {
    format!("AXUIElementCopyAttributeValue(k{attribute})")
}

/// `AXUIElementSetAttributeValue(kAXValue)`.
pub fn set_attribute(attribute: &str) -> String {
    format!("AXUIElementSetAttributeValue(k{attribute})")
}

/// `AXUIElementPerformAction(kAXPress)`.
pub fn perform_action(action: &str) -> String {
    format!("AXUIElementPerformAction(k{action})")
}

/// `AXError`s: code, name, what it means, who says it (`None`: AX does not tell).
const AX_ERRORS: &[(i32, &str, &str, Option<Who>)] = &[
    (
        map::AX_ERROR_FAILURE,
        "kAXErrorFailure",
        "a system error",
        None,
    ),
    (
        map::AX_ERROR_ILLEGAL_ARGUMENT,
        "kAXErrorIllegalArgument",
        "an argument was rejected",
        Some(Who::System),
    ),
    (
        map::AX_ERROR_INVALID_UI_ELEMENT,
        "kAXErrorInvalidUIElement",
        "the element is no longer there",
        Some(Who::App),
    ),
    (
        map::AX_ERROR_CANNOT_COMPLETE,
        "kAXErrorCannotComplete",
        "no answer within the messaging timeout",
        Some(Who::App),
    ),
    (
        map::AX_ERROR_ATTRIBUTE_UNSUPPORTED,
        "kAXErrorAttributeUnsupported",
        "the element has no such attribute",
        Some(Who::App),
    ),
    (
        map::AX_ERROR_ACTION_UNSUPPORTED,
        "kAXErrorActionUnsupported",
        "the element has no such action",
        Some(Who::App),
    ),
    (
        map::AX_ERROR_NOT_IMPLEMENTED,
        "kAXErrorNotImplemented",
        "the app does not implement accessibility for this",
        Some(Who::App),
    ),
    (
        map::AX_ERROR_API_DISABLED,
        "kAXErrorAPIDisabled",
        "this process is not allowed to use accessibility",
        Some(Who::System),
    ),
    (
        map::AX_ERROR_NO_VALUE,
        "kAXErrorNoValue",
        "the attribute has no value",
        Some(Who::App),
    ),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    System,
    App,
}

/// `-25204 (kAXErrorCannotComplete): no answer within the messaging timeout`.
pub fn describe(code: i32) -> String {
    match AX_ERRORS.iter().find(|(c, ..)| *c == code) {
        Some((_, name, meaning, _)) => format!("{code} ({name}): {meaning}"),
        None => format!("AXError {code}: not one macOS documents"),
    }
}

/// Who refused a call that failed with `code`, in words.
pub fn who(code: i32) -> &'static str {
    match AX_ERRORS
        .iter()
        .find(|(c, ..)| *c == code)
        .and_then(|e| e.3)
    {
        Some(Who::System) => "refused by the system, not by the app",
        Some(Who::App) if code == map::AX_ERROR_CANNOT_COMPLETE => {
            "the app did not answer: busy or hung"
        }
        Some(Who::App) if code == map::AX_ERROR_INVALID_UI_ELEMENT => "on the app's side",
        Some(Who::App) => "refused by the app",
        None => "refused by the system or by the app; the AXError does not say which",
    }
}

/// `AXUIElementCopyAttributeValue(kAXChildren) failed: -25204 (kAXErrorCannotComplete): no
/// answer within the messaging timeout (the app did not answer: busy or hung)`.
pub fn failure(call: &str, code: i32) -> String {
    format!("{call} failed: {} ({})", describe(code), who(code))
}

/// A failed AX call as a backend error.
pub fn error(call: &str, code: i32) -> BackendError {
    let why = failure(call, code);
    match map::classify_error(code) {
        ErrorKind::Vanished => BackendError::Vanished(why),
        ErrorKind::Timeout => BackendError::Timeout { what: why, ms: 0 },
        ErrorKind::NotTrusted => BackendError::Unavailable(format!(
            "{why}: in System Settings › Privacy & Security › Accessibility, turn on the app \
             that runs treeglass (your terminal: Terminal, iTerm2, …), then quit and reopen it"
        )),
        ErrorKind::Unsupported => BackendError::Unsupported(why),
        ErrorKind::Failed => BackendError::Failed(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_the_call_the_axerror_and_who_refused() {
        assert_eq!(
            failure(&copy_attribute("AXChildren"), map::AX_ERROR_CANNOT_COMPLETE),
            "AXUIElementCopyAttributeValue(kAXChildren) failed: -25204 \
             (kAXErrorCannotComplete): no answer within the messaging timeout (the app did not \
             answer: busy or hung)"
        );
        assert_eq!(
            failure(&perform_action("AXPress"), map::AX_ERROR_ACTION_UNSUPPORTED),
            "AXUIElementPerformAction(kAXPress) failed: -25206 (kAXErrorActionUnsupported): the \
             element has no such action (refused by the app)"
        );
        assert_eq!(
            failure(&set_attribute("AXValue"), map::AX_ERROR_FAILURE),
            "AXUIElementSetAttributeValue(kAXValue) failed: -25200 (kAXErrorFailure): a system \
             error (refused by the system or by the app; the AXError does not say which)"
        );
        assert_eq!(
            failure(&copy_attribute("AXRole"), -1),
            "AXUIElementCopyAttributeValue(kAXRole) failed: AXError -1: not one macOS \
             documents (refused by the system or by the app; the AXError does not say which)"
        );
    }

    #[test]
    fn each_axerror_is_the_error_its_meaning_calls_for() {
        let call = copy_attribute("AXFocusedApplication");
        let e = error(&call, map::AX_ERROR_API_DISABLED);
        assert!(matches!(e, BackendError::Unavailable(_)), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("kAXErrorAPIDisabled"), "{text}");
        assert!(
            text.contains("refused by the system, not by the app"),
            "{text}"
        );
        assert!(
            text.contains("Privacy & Security › Accessibility"),
            "{text}"
        );
        assert!(matches!(
            error(&call, map::AX_ERROR_INVALID_UI_ELEMENT),
            BackendError::Vanished(_)
        ));
        assert!(matches!(
            error(&call, map::AX_ERROR_CANNOT_COMPLETE),
            BackendError::Timeout { .. }
        ));
        assert!(matches!(
            error(&call, map::AX_ERROR_NO_VALUE),
            BackendError::Unsupported(_)
        ));
        // No Linux words in what a macOS error says of its call.
        for code in [
            -25200, -25201, -25202, -25204, -25205, -25206, -25208, -25211, -25212,
        ] {
            let text = failure(&call, code);
            assert!(!text.contains(" bus ") && !text.contains(" bus:"), "{text}");
        }
    }
}
