//! `treeglass clipboard`: read the clipboard's types (and text), or write exactly one value and
//! keep serving it.

use std::io;
use std::time::Duration;

use super::args::ClipboardCommand;
use super::{Printed, emit, exit, finish};
use crate::app::output::{self, clipboard_text};
use crate::app::{Error, Kind};

/// `treeglass clipboard`.
pub fn clipboard(cmd: &ClipboardCommand) -> Result<String, Error> {
    use crate::clipboard::{self as cb, Item};
    let fail = Error::from;
    let mut owner = None;
    let (contents, json) = match cmd {
        ClipboardCommand::Read { text, json } => (cb::read(*text).map_err(fail)?, *json),
        ClipboardCommand::Write {
            text,
            image,
            file,
            keep_ms,
            json,
        } => {
            let item = match (text, image, file) {
                (Some(t), _, _) => Item::Text(t.clone()),
                (_, Some(i), _) => Item::Image(i.clone()),
                (_, _, Some(f)) => Item::File(f.clone()),
                _ => return Err(Error::usage("give --text, --image or --file")),
            };
            let written = cb::write(&item, Duration::from_millis(*keep_ms)).map_err(fail)?;
            let contents = written.contents.clone();
            owner = Some(written);
            (contents, *json)
        }
    };
    let out = if json {
        output::json_pretty(&serde_json::to_value(&contents).unwrap_or_default())
    } else {
        clipboard_text(&contents)
    };
    // Say what the clipboard holds now, then keep serving it (X11 clipboards live in their owner).
    if let Some(owner) = owner {
        let written = emit(Printed::Text(out), &mut io::stdout().lock());
        owner.serve();
        return match finish(exit::OK, written) {
            exit::OK => Ok(String::new()),
            // Only a failed write of the output turns a success into an error.
            _ => Err(Error::new(
                Kind::Error,
                "the clipboard was written and served",
            )),
        };
    }
    Ok(out)
}
