//! Table checks the UI Automation and AX mapping tests share.

use std::fmt::Debug;

use crate::model::{State, States};

/// Checks each row, (an element, a state, whether it has it), against the states `of` gives.
pub fn states<E: Debug>(cases: Vec<(E, State, bool)>, of: impl Fn(&E) -> States) {
    for (e, state, want) in cases {
        assert_eq!(of(&e).has(state), want, "{state:?} for {e:?}");
    }
}
