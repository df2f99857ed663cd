//! Workflows: recording writes, actions and observed changes as steps, exporting them to the
//! workflow-v1 JSON format (validated against the embedded schema before anything is written),
//! and validating workflow files. Running them is a use case of the application layer
//! (`crate::app::run`).
//!
//! - [`record`]: [`Recorder`] — steps from writes (`record_write`), actions (`record_invoke`),
//!   waits, observations and observed changes; recording files; export.
//! - [`watch`]: [`Watch`] — observed recording from accessibility events.
//! - [`validate`]: size, JSON syntax, schemaVersion, schema and semantic checks.
//! - [`format`]: the file format as typed data; [`schema`]: the embedded JSON Schema.

pub mod format;
pub mod record;
pub mod schema;
pub mod validate;
pub mod watch;

pub use format::{Action, Predicate, Step, Transaction, Workflow};
pub use record::{
    ExportError, ExportOptions, RecordError, RecordedStep, Recorder, Recording, slug,
    step_for_state,
};
pub use schema::Issue;
pub use validate::{MAX_FILE_BYTES, Validation, validate_bytes, validate_path, validate_value};
pub use watch::{SharedRecorder, Watch, WatchOptions, WatchSummary};
