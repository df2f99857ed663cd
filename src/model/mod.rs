//! Pure data shared by every layer: nodes, roles, states, values, snapshots and tokens. No IO.

pub mod display;
mod escape;
pub mod json;
mod node;
mod request;
mod role;
mod snapshot;
mod states;
mod toolkit;

pub use escape::{AppText, is_hostile, literal, quoted, sanitize, scrub_lines};
pub use node::{
    Bounds, Managed, ManagedReason, Node, NodeId, Repeat, Toggle, Value, count, format_number,
    group_digits,
};
pub use request::{Requested, echo_json, number_json, secret_json};
pub use role::{RawKind, Role};
pub use snapshot::{
    Cuts, ManagedShown, Snapshot, SnapshotId, Token, TokenError, Truncation, UNREADABLE_NAMED,
    Unreadable, preorder,
};
pub use states::{Interface, Interfaces, State, States};
pub use toolkit::Toolkit;

/// A hash map with a fast hasher seeded per process (foldhash), for the maps keyed by what a
/// tree holds — names, rows — on trees of 50,000 elements, where SipHash was a fifth of an
/// audit's time. Seeded, so names an app chooses cannot be made to collide.
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
