//! `set` and `invoke`: the element resolved (exact and substring matches only), the write
//! carried out by the application layer, its verdict printed (with where it landed) and turned
//! into the exit code; `--record FILE` appends it as a workflow step.

use std::time::Duration;

use super::args::{InvokeArgs, SetArgs};
use super::read::element;
use super::{answered, code, warn};
use crate::app::locate::{Located, Purpose};
use crate::app::write::{Act, Verdict, Written, write};
use crate::app::{Answer, Error, Kind, record};
use crate::model::sanitize;
use crate::session::Session;
use crate::write::{WriteOptions, WriteResult};

/// A `set` whose target did not resolve to one element — not unique, or its app does not
/// answer or left — is a refusal, printed with the resolution's own exit code; bad arguments
/// and a missing app or window stay errors.
fn refusal(e: Error, args: &SetArgs, shown: &str) -> Result<(String, i32), Error> {
    if matches!(
        e.kind,
        Kind::Usage | Kind::Token | Kind::TargetSyntax | Kind::NoSuch | Kind::BusUnavailable
    ) {
        return Err(e);
    }
    if args.record.is_some() {
        warn("not recorded: the target did not resolve to one element");
    }
    let verdict = Verdict::unlocated(&args.element.target, &e, shown);
    Ok(answered(&verdict, args.json))
}

/// The verdict printed with where the write landed, and its exit code; a step that could not
/// be recorded turns a success into the recording's error.
fn printed(w: Written<Option<Result<(), Error>>>, json: bool) -> (String, i32) {
    let Written {
        result,
        landed,
        recorded,
    } = w;
    let verdict = Verdict::of(result, landed);
    let (out, mut exit) = answered(&verdict, json);
    if let Some(Err(e)) = recorded {
        warn(&format!("not recorded: {}", e.message));
        if verdict.kind().is_none() {
            exit = code(Some(e.kind));
        }
    }
    (out, exit)
}

/// `--record FILE`: appends the write as a step and says so.
fn record_to(
    path: Option<&std::path::Path>,
    act: Act<'_>,
) -> impl FnOnce(&crate::model::Snapshot, usize, &WriteResult) -> Option<Result<(), Error>> {
    move |snap, row, result| {
        let path = path?;
        Some(record::to_file(path, act, snap, row, result).map(|step| {
            if let Some(s) = step {
                warn(&format!(
                    "recorded step {} into {}{}",
                    sanitize(&s.step.id, 80),
                    path.display(),
                    if s.flagged {
                        format!(" (flagged: {})", sanitize(&s.flags.join("; "), 200))
                    } else {
                        String::new()
                    }
                ));
            }
        }))
    }
}

/// The value to write: as given, or read from standard input for `-`.
fn value(args: &SetArgs) -> Result<String, Error> {
    if args.value != "-" {
        return Ok(args.value.clone());
    }
    let bytes = crate::files::read_capped_from(
        std::io::stdin().lock(),
        crate::files::MAX_STDIN_VALUE_BYTES,
        "standard input",
    )
    .map_err(|e| Error::usage(format!("cannot read the value: {e}")))?;
    let s = String::from_utf8(bytes)
        .map_err(|_| Error::usage("the value on standard input is not UTF-8 text"))?;
    Ok(s.strip_suffix('\n').map(str::to_string).unwrap_or(s))
}

/// `treeglass set`.
pub async fn set(session: &Session, args: &SetArgs) -> Result<(String, i32), Error> {
    let value = value(args)?;
    let opts = WriteOptions {
        timeout: Duration::from_millis(args.readback_ms),
        settle: Duration::from_millis(args.settle_ms),
        watch: Duration::from_millis(args.watch_ms),
        force: args.force,
        ..WriteOptions::default()
    };
    // The value as given; one read from standard input may be a secret: its length.
    let shown = if args.value == "-" {
        format!(
            "(from standard input, {})",
            crate::model::count(value.chars().count(), "char")
        )
    } else {
        value.clone()
    };
    let at = match element(session, &args.element, Purpose::Write).await {
        Ok(at) => at,
        Err(e) => return refusal(e, args, &shown),
    };
    let act = Act::Set(&value);
    Ok(carry_out(session, &at, act, &opts, &args.output()).await)
}

/// `treeglass invoke`.
pub async fn invoke(session: &Session, args: &InvokeArgs) -> Result<(String, i32), Error> {
    let opts = WriteOptions {
        timeout: Duration::from_millis(args.readback_ms),
        ..WriteOptions::default()
    };
    let at = element(session, &args.element, Purpose::Write).await?;
    let act = Act::Invoke(args.action.as_deref());
    Ok(carry_out(session, &at, act, &opts, &args.output()).await)
}

/// What `set` and `invoke` print besides the verdict, and where they record it.
struct Output<'a> {
    json: bool,
    changes: bool,
    record: Option<&'a std::path::Path>,
}

impl SetArgs {
    fn output(&self) -> Output<'_> {
        Output {
            json: self.json,
            changes: self.changes,
            record: self.record.as_deref(),
        }
    }
}

impl InvokeArgs {
    fn output(&self) -> Output<'_> {
        Output {
            json: self.json,
            changes: self.changes,
            record: self.record.as_deref(),
        }
    }
}

/// Writes `act` into the element `at` names and prints the verdict.
async fn carry_out(
    session: &Session,
    at: &Located,
    act: Act<'_>,
    opts: &WriteOptions,
    out: &Output<'_>,
) -> (String, i32) {
    let w = write(
        session,
        at,
        act,
        opts,
        out.changes,
        record_to(out.record, act),
    )
    .await;
    printed(w, out.json)
}
