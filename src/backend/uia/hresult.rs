//! HRESULTs as a UI Automation client meets them: each named, with what it means, and what it
//! means for the caller (gone, not answering, unsupported, failed).

/// `UIA_E_ELEMENTNOTAVAILABLE`: the element is gone.
pub const UIA_E_ELEMENTNOTAVAILABLE: i32 = 0x8004_0201_u32 as i32;
/// `UIA_E_ELEMENTNOTENABLED`: the element is disabled.
pub const UIA_E_ELEMENTNOTENABLED: i32 = 0x8004_0200_u32 as i32;
/// `UIA_E_NOTSUPPORTED`: the pattern or property is not supported.
pub const UIA_E_NOTSUPPORTED: i32 = 0x8004_0204_u32 as i32;
/// `UIA_E_TIMEOUT`: the provider did not answer in time.
pub const UIA_E_TIMEOUT: i32 = 0x8013_1505_u32 as i32;
/// `UIA_E_INVALIDOPERATION`: the call is not valid now (e.g. a read-only value).
pub const UIA_E_INVALIDOPERATION: i32 = 0x8013_1509_u32 as i32;
/// `RPC_E_DISCONNECTED` / `CO_E_OBJNOTCONNECTED`: the providing process went away.
pub const RPC_E_DISCONNECTED: i32 = 0x8001_0108_u32 as i32;
pub const CO_E_OBJNOTCONNECTED: i32 = 0x8004_01FD_u32 as i32;

/// `E_NOTIMPL`: whoever answered does not implement the call (the client or a provider).
pub const E_NOTIMPL: i32 = 0x8000_4001_u32 as i32;
/// `E_NOINTERFACE`: the interface is not offered (a pattern an element lacks).
pub const E_NOINTERFACE: i32 = 0x8000_4002_u32 as i32;
/// `REGDB_E_CLASSNOTREG`: `CoCreateInstance` found no such class (no UI Automation client).
pub const REGDB_E_CLASSNOTREG: i32 = 0x8004_0154_u32 as i32;

/// `RPC_E_CHANGED_MODE`: COM was started on the thread in another mode.
pub const RPC_E_CHANGED_MODE: i32 = 0x8001_0106_u32 as i32;
/// `E_ACCESSDENIED`: the system refused (an app running at a higher integrity level).
pub const E_ACCESSDENIED: i32 = 0x8007_0005_u32 as i32;

/// HRESULTs by name, with what each means. The meanings do not say who answered: a failed
/// call is worded with its party by [`super::calls`].
const HRESULTS: &[(i32, &str, &str)] = &[
    (
        REGDB_E_CLASSNOTREG,
        "REGDB_E_CLASSNOTREG",
        "no UI Automation client is registered on this system",
    ),
    (E_NOTIMPL, "E_NOTIMPL", "not implemented"),
    (E_NOINTERFACE, "E_NOINTERFACE", "no such interface"),
    (
        0x8000_4003_u32 as i32,
        "E_POINTER",
        "a null pointer was passed or returned",
    ),
    (
        0x8000_4005_u32 as i32,
        "E_FAIL",
        "failed without saying why",
    ),
    (
        E_ACCESSDENIED,
        "E_ACCESSDENIED",
        "access denied (an app running as administrator can only be read by a treeglass \
         running as administrator too)",
    ),
    (0x8007_000E_u32 as i32, "E_OUTOFMEMORY", "out of memory"),
    (
        0x8007_0057_u32 as i32,
        "E_INVALIDARG",
        "an argument was rejected",
    ),
    (
        0x8004_01F0_u32 as i32,
        "CO_E_NOTINITIALIZED",
        "COM is not initialized on this thread",
    ),
    (
        RPC_E_CHANGED_MODE,
        "RPC_E_CHANGED_MODE",
        "COM was initialized on this thread in another mode",
    ),
    (
        CO_E_OBJNOTCONNECTED,
        "CO_E_OBJNOTCONNECTED",
        "the providing process went away",
    ),
    (
        RPC_E_DISCONNECTED,
        "RPC_E_DISCONNECTED",
        "the providing process went away",
    ),
    (
        0x8007_06BA_u32 as i32,
        "RPC_S_SERVER_UNAVAILABLE",
        "the providing process is not there",
    ),
    (
        UIA_E_ELEMENTNOTENABLED,
        "UIA_E_ELEMENTNOTENABLED",
        "the element is not enabled",
    ),
    (
        UIA_E_ELEMENTNOTAVAILABLE,
        "UIA_E_ELEMENTNOTAVAILABLE",
        "the element is no longer available",
    ),
    (
        0x8004_0202_u32 as i32,
        "UIA_E_NOCLICKABLEPOINT",
        "the element has no clickable point",
    ),
    (
        0x8004_0203_u32 as i32,
        "UIA_E_PROXYASSEMBLYNOTLOADED",
        "the provider's proxy could not be loaded",
    ),
    (
        UIA_E_NOTSUPPORTED,
        "UIA_E_NOTSUPPORTED",
        "the element does not support this",
    ),
    (
        UIA_E_TIMEOUT,
        "UIA_E_TIMEOUT",
        "the provider did not answer in time",
    ),
    (
        UIA_E_INVALIDOPERATION,
        "UIA_E_INVALIDOPERATION",
        "the operation is not valid now",
    ),
];

/// A UIA error as a person reads it: the HRESULT in hex, its name and what it means
/// (`0x80040154 (REGDB_E_CLASSNOTREG): no UI Automation client is registered on this system`).
/// `message` is the system's own text for the code (`FormatMessage`, often empty or absent),
/// kept for codes this table does not name. Codes that are not HRESULTs (0 or positive: the
/// `uiautomation` crate's own errors) are its message, or the bare code.
pub fn describe_error(code: i32, message: &str) -> String {
    let message = message.trim();
    if code >= 0 {
        return if message.is_empty() {
            format!("error {code}")
        } else {
            message.to_string()
        };
    }
    let hex = format!("0x{:08X}", code as u32);
    match HRESULTS.iter().find(|(c, _, _)| *c == code) {
        Some((_, name, meaning)) => format!("{hex} ({name}): {meaning}"),
        None if message.is_empty() => format!("{hex}: no description from the system"),
        None => format!("{hex}: {message}"),
    }
}

/// What a failed UIA call means for the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Vanished,
    Timeout,
    Unsupported,
    Failed,
}

/// Classifies an HRESULT (the `uiautomation` crate's `Error::code`).
pub fn classify_hresult(code: i32) -> ErrorKind {
    match code {
        UIA_E_ELEMENTNOTAVAILABLE | RPC_E_DISCONNECTED | CO_E_OBJNOTCONNECTED => {
            ErrorKind::Vanished
        }
        UIA_E_TIMEOUT => ErrorKind::Timeout,
        // "Not implemented" and "no such interface" are how partial providers say they lack
        // a pattern or call: unsupported, so the planner takes its next way.
        UIA_E_NOTSUPPORTED
        | UIA_E_ELEMENTNOTENABLED
        | UIA_E_INVALIDOPERATION
        | E_NOTIMPL
        | E_NOINTERFACE => ErrorKind::Unsupported,
        _ => ErrorKind::Failed,
    }
}

/// An HRESULT as a trace writes it: a name [`describe_error`] knows, or hex.
pub fn parse_hresult(s: &str) -> Option<i32> {
    if let Some((code, _, _)) = HRESULTS.iter().find(|(_, name, _)| *name == s) {
        return Some(*code);
    }
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    u32::from_str_radix(hex, 16).ok().map(|c| c as i32)
}
