//! The one error kind that crosses layers: what a use case ended as when it did not simply
//! succeed. The command line turns a [`Kind`] into its exit code, MCP into its error `kind` and
//! `exit_code`; nothing compares integers to decide what happened.

use crate::backend::BackendError;

/// What went wrong, or which non-success verdict a use case reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Anything else (an IO error, an internal failure).
    Error,
    /// Bad arguments: a pattern that does not compile, a bad file, a missing choice.
    Usage,
    /// No such app, window or element.
    NoSuch,
    /// No accessibility bus (or API): the platform's backend did not start.
    BusUnavailable,
    /// A token refused: stale, or not issued by this process.
    Token,
    /// The application exited or dropped its accessibility connection.
    AppGone,
    /// `doctor`: problems found.
    ProblemsFound,
    /// The application owns its bus name but answers nothing.
    NotResponding,
    /// One element does not answer a call while its application answers others.
    ElementSilent,
    /// `diff`: the trees differ.
    Differs,
    Ambiguous,
    NotFound,
    /// The tree was not read whole: uniqueness (or a clean audit) cannot be claimed.
    Incomplete,
    /// A target that does not parse.
    TargetSyntax,
    /// `audit`: findings at or above the minimum severity.
    Findings,
    Mismatch,
    Unconfirmed,
    Refused,
    WorkflowInvalid,
    WorkflowFailed,
    /// A valid workflow refused before its first step: inputs missing or bad, what a desktop
    /// run cannot do, no window to run in. Nothing was run.
    WorkflowRefused,
}

impl Kind {
    /// Every kind, in the order of their exit codes.
    pub const ALL: [Kind; 21] = [
        Kind::Error,
        Kind::Usage,
        Kind::NoSuch,
        Kind::BusUnavailable,
        Kind::Token,
        Kind::AppGone,
        Kind::ProblemsFound,
        Kind::NotResponding,
        Kind::Differs,
        Kind::Ambiguous,
        Kind::NotFound,
        Kind::Incomplete,
        Kind::TargetSyntax,
        Kind::Findings,
        Kind::ElementSilent,
        Kind::Mismatch,
        Kind::Unconfirmed,
        Kind::Refused,
        Kind::WorkflowInvalid,
        Kind::WorkflowFailed,
        Kind::WorkflowRefused,
    ];

    /// The one table of exit codes (documented in the README and `--help`). MCP replies carry
    /// the same number as `exit_code`, so it lives here, below both front ends.
    pub const fn exit_code(self) -> i32 {
        match self {
            Kind::Error => 1,
            Kind::Usage => 2,
            Kind::NoSuch => 3,
            Kind::BusUnavailable => 4,
            Kind::Token => 5,
            Kind::AppGone => 6,
            Kind::ProblemsFound => 7,
            Kind::NotResponding => 8,
            Kind::Differs => 9,
            Kind::Ambiguous => 10,
            Kind::NotFound => 11,
            Kind::Incomplete => 12,
            Kind::TargetSyntax => 13,
            Kind::Findings => 14,
            Kind::ElementSilent => 15,
            Kind::Mismatch => 20,
            Kind::Unconfirmed => 21,
            Kind::Refused => 22,
            Kind::WorkflowInvalid => 30,
            Kind::WorkflowFailed => 31,
            Kind::WorkflowRefused => 32,
        }
    }

    /// What it means, as the README's table of exit codes says it.
    pub const fn meaning(self) -> &'static str {
        match self {
            Kind::Error => "any other error",
            Kind::Usage => "bad arguments",
            Kind::NoSuch => "no such app, window or element",
            Kind::BusUnavailable => {
                "no accessibility: the platform's own backend (or the one `--backend` names) did \
                 not start"
            }
            Kind::Token => "token refused (stale, or not issued by this process)",
            Kind::AppGone => {
                "the app exited (or dropped its accessibility connection) during the command"
            }
            Kind::ProblemsFound => "`doctor` found problems",
            Kind::NotResponding => {
                "the app does not answer (busy or hung): `tree` prints what it read first; \
                 `set`/`invoke` refused, nothing sent"
            }
            Kind::Differs => "`diff`: the trees differ",
            Kind::Ambiguous => "the target is ambiguous",
            Kind::NotFound => "the target is not found",
            Kind::Incomplete => {
                "incomplete tree (`tree`: the read was cut short by `--read-timeout`, \
                 `--max-depth`, `--max-nodes` or `--max-children`, or elements could not be \
                 read; `find`/`set`: \
                 uniqueness cannot be claimed; `audit`: the read was not whole)"
            }
            Kind::TargetSyntax => "target syntax error",
            Kind::Findings => "`audit`: findings at or above `--min-severity`",
            Kind::ElementSilent => {
                "one element does not answer a call while the app answers others (not a hung app)"
            }
            Kind::Mismatch => "`set`: mismatch",
            Kind::Unconfirmed => "`set`: unconfirmed (observe before writing again)",
            Kind::Refused => "`set`: refused, nothing sent",
            Kind::WorkflowInvalid => "workflow invalid (nothing was run)",
            Kind::WorkflowFailed => "workflow step, terminal condition or required output failed",
            Kind::WorkflowRefused => {
                "workflow run refused before its first step (inputs missing or bad, what a \
                 desktop run cannot do, no window to run in: nothing was run)"
            }
        }
    }

    /// The machine-readable name MCP errors carry as `kind`.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Error => "error",
            Kind::Usage => "bad_arguments",
            Kind::NoSuch => "no_such",
            Kind::BusUnavailable => "bus_unavailable",
            Kind::Token => "token_refused",
            Kind::AppGone => "app_gone",
            Kind::ProblemsFound => "problems_found",
            Kind::NotResponding => "not_responding",
            // `diff` is not an MCP tool; its kind keeps the generic name.
            Kind::Differs => "error",
            Kind::Ambiguous => "ambiguous",
            Kind::NotFound => "not_found",
            Kind::Incomplete => "incomplete",
            Kind::TargetSyntax => "bad_target",
            Kind::Findings => "findings",
            Kind::ElementSilent => "element_silent",
            Kind::Mismatch => "mismatch",
            Kind::Unconfirmed => "unconfirmed",
            Kind::Refused => "refused",
            Kind::WorkflowInvalid => "workflow_invalid",
            Kind::WorkflowFailed => "workflow_failed",
            Kind::WorkflowRefused => "workflow_refused",
        }
    }
}

/// A use case that failed: its kind and the message a person reads (app strings in it already
/// escaped).
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: Kind,
    pub message: String,
}

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Error {
        Error::new(Kind::Usage, message)
    }

    pub fn other(message: impl Into<String>) -> Error {
        Error::new(Kind::Error, message)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<BackendError> for Error {
    fn from(e: BackendError) -> Error {
        let kind = match e {
            BackendError::Unavailable(_) => Kind::BusUnavailable,
            BackendError::Vanished(_) => Kind::NoSuch,
            BackendError::AppGone { .. } => Kind::AppGone,
            BackendError::NotResponding { .. } => Kind::NotResponding,
            BackendError::Silent { .. } => Kind::ElementSilent,
            _ => Kind::Error,
        };
        Error::new(kind, e.to_string())
    }
}

impl From<crate::backend::pick::PickError> for Error {
    /// A backend that is not on this system says so as it is; a bad `--backend` is a usage
    /// error.
    fn from(e: crate::backend::pick::PickError) -> Error {
        use crate::backend::pick::PickError;
        match e {
            PickError::Absent(message) => Error::new(Kind::BusUnavailable, message),
            PickError::Usage(message) => Error::usage(message),
            PickError::Backend(e) => Error::from(e),
        }
    }
}

impl From<crate::files::FileError> for Error {
    /// A file that is not a regular file, too big or in the way is bad input; a failing read
    /// or write is an error.
    fn from(e: crate::files::FileError) -> Error {
        use crate::files::FileError;
        let kind = match e {
            FileError::Io { .. } => Kind::Error,
            _ => Kind::Usage,
        };
        Error::new(kind, e.to_string())
    }
}

impl From<crate::clipboard::ClipboardError> for Error {
    fn from(e: crate::clipboard::ClipboardError) -> Error {
        let kind = match e {
            crate::clipboard::ClipboardError::Input(_) => Kind::Usage,
            _ => Kind::Error,
        };
        Error::new(kind, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_exit_code_and_a_name() {
        let mut codes: Vec<i32> = Kind::ALL.iter().map(|k| k.exit_code()).collect();
        codes.dedup();
        assert_eq!(codes.len(), Kind::ALL.len());
        assert!(codes.iter().all(|&c| c != 0));
        assert!(Kind::ALL.iter().all(|k| k.name() != "ok"));
    }

    /// The README's table of exit codes is this one.
    #[test]
    fn readme_exit_codes() {
        let mut body = String::from(
            "| exit code | MCP `kind` | meaning |\n|---|---|---|\n| 0 | (no error) | ok |\n",
        );
        for k in Kind::ALL {
            body.push_str(&format!(
                "| {} | `{}` | {} |\n",
                k.exit_code(),
                k.name(),
                k.meaning()
            ));
        }
        crate::backend::readme::check_section("exit-codes", &body);
    }
}
