//! The UI Automation calls treeglass makes, each named as Windows names it and with who answers
//! it, so that a call that fails is said once, the same way everywhere: the call, its HRESULT,
//! and who refused it — the system (COM), the UI Automation client library in this process, or
//! the app's provider behind it.
//!
//! An HRESULT alone does not say who refused. What does:
//! - the call: COM answers `CoCreateInstance`; the client alone answers what it keeps in this
//!   process (cache requests, conditions, cached values); a provider is asked the rest;
//! - for a call a provider is asked, the HRESULT when only the app's side gives it (the element
//!   gone, the process gone, no answer in time) or only the system does (`E_ACCESSDENIED`);
//! - otherwise (`E_NOTIMPL`, `E_FAIL`, …), the same call on the desktop's root element, which
//!   no app provides: refused the same way there, the client refused it; answered there, the
//!   app did. Without that check the message says it cannot tell.

use super::hresult::{self, E_ACCESSDENIED, ErrorKind};
use super::read::Fault;
use crate::backend::BackendError;

/// Who answers a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// COM itself.
    System,
    /// The client library alone, in this process: no app is asked.
    Client,
    /// The element's provider, asked by the client: the app's, or for the desktop and plain
    /// windows the system's own.
    Provider,
}

/// A call: its name as Windows documents it (with the argument that matters), who answers it,
/// and whether the same call can be made on the desktop to tell who refused it (cheaply, and
/// meaning the same there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub name: String,
    pub answers: Answers,
    pub on_desktop: bool,
}

impl Call {
    fn new(name: impl Into<String>, answers: Answers) -> Call {
        Call {
            name: name.into(),
            answers,
            on_desktop: false,
        }
    }

    /// The same call can be made on the desktop.
    fn on_desktop(mut self) -> Call {
        self.on_desktop = true;
        self
    }
}

/// `CoInitializeEx(COINIT_MULTITHREADED)`.
pub fn co_initialize() -> Call {
    Call::new("CoInitializeEx(COINIT_MULTITHREADED)", Answers::System)
}

/// `CoCreateInstance(CUIAutomation)`: the client created.
pub fn create_client() -> Call {
    Call::new("CoCreateInstance(CUIAutomation)", Answers::System)
}

/// `IUIAutomation::GetRootElement`: the desktop.
pub fn root_element() -> Call {
    Call::new("IUIAutomation::GetRootElement", Answers::Client)
}

/// `IUIAutomation::CreateCacheRequest`.
pub fn create_cache_request() -> Call {
    Call::new("IUIAutomation::CreateCacheRequest", Answers::Client)
}

/// `IUIAutomationCacheRequest::AddProperty(NAME)`.
pub fn add_property(property: &str) -> Call {
    Call::new(
        format!("IUIAutomationCacheRequest::AddProperty({property})"),
        Answers::Client,
    )
}

/// `IUIAutomationCacheRequest::put_TreeScope(TreeScope_SCOPE)`.
pub fn tree_scope(scope: &str) -> Call {
    Call::new(
        format!("IUIAutomationCacheRequest::put_TreeScope(TreeScope_{scope})"),
        Answers::Client,
    )
}

/// `IUIAutomation::CreateTrueCondition`.
pub fn true_condition() -> Call {
    Call::new("IUIAutomation::CreateTrueCondition", Answers::Client)
}

/// `IUIAutomationElement::GetCachedChildren`: answered from the client's cache.
pub fn cached_children() -> Call {
    Call::new("IUIAutomationElement::GetCachedChildren", Answers::Client)
}

/// `IUIAutomationElement::get_CachedPROPERTY` (`get_CachedName`): answered from the client's
/// cache.
pub fn cached(name: &str) -> Call {
    Call::new(
        format!("IUIAutomationElement::get_Cached{name}"),
        Answers::Client,
    )
}

/// `IUIAutomationElement::GetCachedPropertyValue(PROPERTY)`: answered from the client's cache.
pub fn cached_property(name: &str) -> Call {
    Call::new(
        format!("IUIAutomationElement::GetCachedPropertyValue({name})"),
        Answers::Client,
    )
}

/// `IUIAutomationElement::BuildUpdatedCache` (`what` the request holds: `TreeScope_Subtree`).
pub fn build_cache(what: &str) -> Call {
    Call::new(
        format!("IUIAutomationElement::BuildUpdatedCache({what})"),
        Answers::Provider,
    )
}

/// `IUIAutomationElement::FindAllBuildCache(TreeScope_Children)`.
pub fn find_children() -> Call {
    Call::new(
        "IUIAutomationElement::FindAllBuildCache(TreeScope_Children)",
        Answers::Provider,
    )
    .on_desktop()
}

/// `IUIAutomationElement::GetRuntimeId`.
pub fn runtime_id() -> Call {
    Call::new("IUIAutomationElement::GetRuntimeId", Answers::Provider).on_desktop()
}

/// `IUIAutomationElement::GetCurrentPattern(PatternPattern)`.
pub fn pattern(name: &str) -> Call {
    Call::new(
        format!("IUIAutomationElement::GetCurrentPattern({name}Pattern)"),
        Answers::Provider,
    )
    .on_desktop()
}

/// `IUIAutomationElement::GetCurrentPropertyValue(PROPERTY)`.
pub fn property(name: &str) -> Call {
    Call::new(
        format!("IUIAutomationElement::GetCurrentPropertyValue({name})"),
        Answers::Provider,
    )
    .on_desktop()
}

/// `IUIAutomationElement::get_CurrentPROPERTY` (`get_CurrentBoundingRectangle`).
pub fn current(name: &str) -> Call {
    Call::new(
        format!("IUIAutomationElement::get_Current{name}"),
        Answers::Provider,
    )
    .on_desktop()
}

/// `IUIAutomation::ElementFromHandle`: a top-level window's element.
pub fn from_handle() -> Call {
    Call::new("IUIAutomation::ElementFromHandle", Answers::Provider)
}

/// A pattern's method (`IUIAutomationValuePattern::SetValue`), named as the write's method
/// (`ValuePattern.SetValue`).
pub fn pattern_method(method: &str) -> Call {
    let name = match method.split_once('.') {
        Some((pattern, m)) if pattern.ends_with("Pattern") => {
            format!("IUIAutomation{pattern}::{m}")
        }
        _ => method.to_string(),
    };
    Call::new(name, Answers::Provider)
}

/// Who refused a call that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Party {
    /// COM, or Windows' own rules (integrity levels).
    System,
    /// The UI Automation client, which answers the call itself.
    Client,
    /// The client, for a call a provider is asked: it refuses the same call on the desktop,
    /// which no app provides.
    ClientEverywhere,
    /// The app (its provider): the HRESULT is the app side's, or the desktop answers the call.
    App,
    /// The client or the app's provider; nothing told them apart.
    ClientOrApp,
}

impl Party {
    /// Who, in words, for after the HRESULT.
    pub fn words(self) -> &'static str {
        match self {
            Party::System => "refused by the system, not by UI Automation or an app",
            Party::Client => "refused by the UI Automation client itself; no app was asked",
            Party::ClientEverywhere => {
                "refused by the UI Automation client itself, not by the app: it refuses the same \
                 call on the desktop, which no app provides"
            }
            Party::App => "refused by the app's UI Automation provider",
            Party::ClientOrApp => {
                "refused by the UI Automation client or by the app's provider; the HRESULT does \
                 not say which"
            }
        }
    }

    /// Whether the client refused (so no app can do anything about it).
    pub fn is_client(self) -> bool {
        matches!(self, Party::Client | Party::ClientEverywhere)
    }
}

/// Who refused `call` with `code`. `desktop` makes the same call on the desktop's root element
/// (`None`: it could not be made); it is asked only when the HRESULT leaves it open and the call
/// can be made there ([`Call::on_desktop`]).
pub fn party(call: &Call, code: i32, desktop: impl FnOnce() -> Option<Result<(), i32>>) -> Party {
    match call.answers {
        Answers::System => Party::System,
        Answers::Client => Party::Client,
        Answers::Provider => match hresult::classify_hresult(code) {
            // The element or its process gone, or no answer in time: the app's side.
            ErrorKind::Vanished | ErrorKind::Timeout => Party::App,
            _ if code == E_ACCESSDENIED => Party::System,
            // What UI Automation says of an element on the provider's behalf.
            _ if matches!(
                code,
                hresult::UIA_E_NOTSUPPORTED
                    | hresult::UIA_E_ELEMENTNOTENABLED
                    | hresult::UIA_E_INVALIDOPERATION
            ) =>
            {
                Party::App
            }
            _ if !call.on_desktop => Party::ClientOrApp,
            _ => match desktop() {
                Some(Err(c)) if c == code => Party::ClientEverywhere,
                Some(_) => Party::App,
                None => Party::ClientOrApp,
            },
        },
    }
}

/// A call that failed: which, how, and who refused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub call: String,
    pub fault: Fault,
    pub party: Party,
}

impl Refusal {
    /// `call` failed with `fault`; who refused from [`party`].
    pub fn new(
        call: &Call,
        fault: Fault,
        desktop: impl FnOnce() -> Option<Result<(), i32>>,
    ) -> Refusal {
        Refusal {
            party: party(call, fault.code, desktop),
            call: call.name.clone(),
            fault,
        }
    }

    /// `call` failed with `fault`, with no desktop to ask.
    pub fn of(call: &Call, fault: Fault) -> Refusal {
        Refusal::new(call, fault, || None)
    }

    /// `IUIAutomationCacheRequest::put_TreeScope(TreeScope_Subtree) failed: 0x80004001
    /// (E_NOTIMPL): not implemented (refused by the UI Automation client itself; no app was
    /// asked)`.
    pub fn describe(&self) -> String {
        let who = match hresult::classify_hresult(self.fault.code) {
            // Nobody refused: the element or its app is gone, or did not answer.
            ErrorKind::Vanished | ErrorKind::Timeout if self.party == Party::App => {
                "on the app's side"
            }
            _ => self.party.words(),
        };
        format!("{} failed: {} ({who})", self.call, self.fault.describe())
    }

    /// The failure as a backend error: what it means for the caller, and the whole sentence.
    pub fn error(&self) -> BackendError {
        let why = self.describe();
        match hresult::classify_hresult(self.fault.code) {
            ErrorKind::Vanished => BackendError::Vanished(why),
            ErrorKind::Timeout => BackendError::Timeout { what: why, ms: 0 },
            ErrorKind::Unsupported => BackendError::Unsupported(why),
            ErrorKind::Failed => BackendError::Failed(why),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::uia::hresult::{
        E_NOTIMPL, REGDB_E_CLASSNOTREG, UIA_E_ELEMENTNOTAVAILABLE, UIA_E_TIMEOUT,
    };

    const E_FAIL: i32 = 0x8000_4005_u32 as i32;

    /// Who refused, by call and HRESULT, and whether the desktop was asked.
    #[test]
    fn who_refused_follows_the_call_the_hresult_and_the_desktop() {
        let asked = std::cell::Cell::new(0);
        let desktop = |answer: Option<Result<(), i32>>| {
            asked.set(asked.get() + 1);
            answer
        };
        // (call, HRESULT, the desktop's answer, who refused, whether the desktop was asked)
        type Case = (Call, i32, Option<Result<(), i32>>, Party, bool);
        let cases: &[Case] = &[
            (
                create_client(),
                REGDB_E_CLASSNOTREG,
                None,
                Party::System,
                false,
            ),
            (tree_scope("Subtree"), E_NOTIMPL, None, Party::Client, false),
            (cached_children(), E_FAIL, None, Party::Client, false),
            // Only the app's side says these.
            (
                build_cache("TreeScope_Subtree"),
                UIA_E_ELEMENTNOTAVAILABLE,
                Some(Err(UIA_E_ELEMENTNOTAVAILABLE)),
                Party::App,
                false,
            ),
            (pattern("Value"), UIA_E_TIMEOUT, None, Party::App, false),
            (pattern("Value"), E_ACCESSDENIED, None, Party::System, false),
            // E_NOTIMPL: the desktop tells.
            (
                pattern("Value"),
                E_NOTIMPL,
                Some(Err(E_NOTIMPL)),
                Party::ClientEverywhere,
                true,
            ),
            // The desktop lacks the pattern (a null answer, the crate's code 0): the client
            // implements the call, the app refused it.
            (pattern("Value"), E_NOTIMPL, Some(Err(0)), Party::App, true),
            (runtime_id(), E_NOTIMPL, Some(Ok(())), Party::App, true),
            // Refused differently on the desktop: not the same refusal.
            (runtime_id(), E_NOTIMPL, Some(Err(E_FAIL)), Party::App, true),
            (runtime_id(), E_FAIL, None, Party::ClientOrApp, true),
            // Not asked on the desktop (a subtree of the desktop is no cheap check).
            (
                build_cache("TreeScope_Subtree"),
                E_NOTIMPL,
                Some(Err(E_NOTIMPL)),
                Party::ClientOrApp,
                false,
            ),
        ];
        for (call, code, answer, want, asks) in cases {
            asked.set(0);
            let got = party(call, *code, || desktop(*answer));
            assert_eq!(got, *want, "{} {code:#x}", call.name);
            assert_eq!(asked.get() == 1, *asks, "{} asked the desktop", call.name);
        }
    }

    #[test]
    fn a_refusal_names_the_call_its_hresult_and_who() {
        let r = Refusal::of(&tree_scope("Subtree"), Fault::new(E_NOTIMPL));
        assert_eq!(
            r.describe(),
            "IUIAutomationCacheRequest::put_TreeScope(TreeScope_Subtree) failed: 0x80004001 \
             (E_NOTIMPL): not implemented (refused by the UI Automation client itself; no app \
             was asked)"
        );
        assert!(matches!(r.error(), BackendError::Unsupported(_)));
        let r = Refusal::of(&create_client(), Fault::new(REGDB_E_CLASSNOTREG));
        assert_eq!(
            r.describe(),
            "CoCreateInstance(CUIAutomation) failed: 0x80040154 (REGDB_E_CLASSNOTREG): no UI \
             Automation client is registered on this system (refused by the system, not by UI \
             Automation or an app)"
        );
        let gone = Refusal::of(
            &build_cache("TreeScope_Subtree"),
            Fault::new(UIA_E_ELEMENTNOTAVAILABLE),
        );
        assert!(matches!(gone.error(), BackendError::Vanished(_)));
        assert!(
            gone.describe()
                .ends_with("no longer available (on the app's side)")
        );
    }

    #[test]
    fn pattern_methods_are_named_as_windows_names_them() {
        assert_eq!(
            pattern_method("ValuePattern.SetValue").name,
            "IUIAutomationValuePattern::SetValue"
        );
        assert_eq!(
            pattern_method("SetFocus, TextPattern select all, SendInput").name,
            "SetFocus, TextPattern select all, SendInput"
        );
    }
}
