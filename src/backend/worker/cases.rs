//! Table checks the UI Automation and AX mapping tests share.

use std::fmt::Debug;

use crate::model::{State, States};

/// Checks each row, (an element, a state, whether it has it), against the states `of` gives.
pub fn states<E: Debug>(cases: Vec<(E, State, bool)>, of: impl Fn(&E) -> States) {
    for (e, state, want) in cases {
        assert_eq!(of(&e).has(state), want, "{state:?} for {e:?}");
    }
}

/// Checks each row, (a platform error code, the kind it means), against `classify`.
pub fn codes<C: Debug + Copy, K: Debug + PartialEq>(cases: &[(C, K)], classify: impl Fn(C) -> K) {
    for &(code, ref kind) in cases {
        assert_eq!(&classify(code), kind, "{code:?} ({code:#x?})");
    }
}
