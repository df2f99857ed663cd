//! set_value and invoke: pure rules (what a value means per role, preconditions, verdicts), the
//! driver that carries out the planner's plan and reads back, and `invoke`'s attribution of the
//! app's reaction.

pub mod engine;
pub mod invoke;
pub mod landed;
mod readback;
pub mod rules;

pub use engine::{
    DEFAULT_WATCH, LateChange, Placement, Sample, WriteOptions, WriteResult, set_value,
};
pub use invoke::invoke;
pub use rules::{MismatchKind, Outcome, Requested};
