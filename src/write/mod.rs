//! set_value: pure rules (what a value means per role, preconditions, verdicts) and the driver
//! that dispatches and reads back.

pub mod engine;
pub mod rules;

pub use engine::{Placement, Sample, WriteOptions, WriteResult, invoke, set_value};
pub use rules::{MismatchKind, Outcome, Requested};
