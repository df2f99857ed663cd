//! How a UI Automation tree is read, apart from the COM calls themselves: the walk down a
//! subtree-cached element, what is done when a provider refuses part of it, and what is said
//! then. The IO module runs it over live elements; a trace replays it over recorded ones with
//! their recorded faults ([`UiaElement::faults`]), so a fault trace takes the path a live read
//! takes.
//!
//! - Children come from the cache (`GetCachedChildren`). A null array (the crate's error code
//!   0) is how UIA says "no children". Any other error is a provider refusing: the children are
//!   then found live (`FindAll(TreeScope_Children)` with the same cache request), and when that
//!   fails too the element is kept, marked as read in part with both HRESULTs, so the tree is
//!   incomplete (exit 12) and never a silent leaf.
//! - A cache request the provider rejects (`BuildUpdatedCache` failing for a reason other than
//!   the element going away or not answering) is retried with only the properties that say
//!   what an element is ([`map::CORE_PROPERTIES`]); each element read so is marked as read in
//!   part, naming the properties left out and why.

use super::map::{self, UiaElement};
use crate::backend::Limits;
use crate::model::Truncation;

/// A failed call: its HRESULT (or the crate's own code) and the system's text for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub code: i32,
    pub message: String,
}

impl Fault {
    pub fn new(code: i32) -> Fault {
        Fault {
            code,
            message: String::new(),
        }
    }

    /// `0x80004001 (E_NOTIMPL): the provider does not implement this`.
    pub fn describe(&self) -> String {
        map::describe_error(self.code, &self.message)
    }

    /// The failed call `what` as a backend error.
    pub fn error(&self, what: &str) -> crate::backend::BackendError {
        map::backend_error(self.code, &self.message, what)
    }

    /// The null array UIA gives for an element without children (no HRESULT at all).
    fn is_null(&self) -> bool {
        self.code == 0
    }
}

/// The calls the walk makes on one element.
pub trait Provider {
    type El;
    /// The element's own cached properties (no children); remembers the element for later
    /// calls.
    fn record(&mut self, el: &Self::El) -> UiaElement;
    /// `GetCachedChildren`.
    fn cached_children(&mut self, el: &Self::El) -> Result<Vec<Self::El>, Fault>;
    /// `FindAll(TreeScope_Children)` with the subtree cache request: the children, found live,
    /// each with its own subtree cached.
    fn find_children(&mut self, el: &Self::El) -> Result<Vec<Self::El>, Fault>;
}

/// The element's children: the cached ones, else the ones found live; `Err` names both
/// refusals when neither answered.
pub fn children<P: Provider>(p: &mut P, el: &P::El) -> Result<Vec<P::El>, String> {
    match p.cached_children(el) {
        Ok(kids) => Ok(kids),
        Err(f) if f.is_null() => Ok(Vec::new()),
        Err(cached) => p.find_children(el).map_err(|found| {
            format!(
                "children (GetCachedChildren: {}; FindAll: {})",
                cached.describe(),
                found.describe()
            )
        }),
    }
}

/// What an element read with only [`map::CORE_PROPERTIES`] is marked with: the rest is unknown.
pub fn core_only(rejected: &Fault) -> String {
    format!(
        "cached properties other than {} (BuildUpdatedCache: {})",
        map::CORE_PROPERTIES.join(", "),
        rejected.describe()
    )
}

/// The record tree under `el`, within the caps (depth, children per element, nodes: `budget`
/// counts the nodes still allowed), with the first cap that cut it in `truncated`.
pub fn build<P: Provider>(
    p: &mut P,
    el: &P::El,
    depth: usize,
    limits: &Limits,
    budget: &mut usize,
    truncated: &mut Option<Truncation>,
) -> UiaElement {
    let mut rec = p.record(el);
    let mut kids = match children(p, el) {
        Ok(kids) => kids,
        Err(why) => {
            rec.unread.push(why);
            return rec;
        }
    };
    if kids.is_empty() {
        return rec;
    }
    if depth >= limits.max_depth {
        truncated.get_or_insert(Truncation::DepthCap);
        return rec;
    }
    if kids.len() > limits.max_siblings {
        kids.truncate(limits.max_siblings);
        truncated.get_or_insert(Truncation::SiblingCap);
    }
    for kid in &kids {
        if *budget == 0 {
            truncated.get_or_insert(Truncation::NodeCap);
            break;
        }
        *budget -= 1;
        let child = build(p, kid, depth + 1, limits, budget, truncated);
        rec.children.push(child);
    }
    rec
}

/// A recorded tree as a provider: each element's recorded faults are what its calls answer.
pub struct Recorded {
    /// The cache request was rejected on the element the read started from: every element is
    /// read with the core properties only.
    core_only: Option<Fault>,
}

impl Recorded {
    /// The provider for a read of `root`: with only the core properties when `root`'s
    /// `BuildUpdatedCache` fault says the full request is rejected.
    pub fn new(root: &UiaElement) -> Result<Recorded, Fault> {
        let core_only = match root.fault("BuildUpdatedCache") {
            None => None,
            Some(f) => match map::classify_hresult(f.code) {
                // Gone or not answering: a smaller request would fare no better.
                map::ErrorKind::Vanished | map::ErrorKind::Timeout => return Err(f),
                _ => Some(f),
            },
        };
        Ok(Recorded { core_only })
    }
}

impl Provider for Recorded {
    type El = UiaElement;

    fn record(&mut self, el: &UiaElement) -> UiaElement {
        let mut rec = UiaElement {
            children: Vec::new(),
            faults: Default::default(),
            ..el.clone()
        };
        if let Some(f) = &self.core_only {
            rec = rec.core_only();
            rec.unread.push(core_only(f));
        }
        rec
    }

    fn cached_children(&mut self, el: &UiaElement) -> Result<Vec<UiaElement>, Fault> {
        match el.fault("GetCachedChildren") {
            Some(f) => Err(f),
            None if el.children.is_empty() => Err(Fault::new(0)),
            None => Ok(el.children.clone()),
        }
    }

    fn find_children(&mut self, el: &UiaElement) -> Result<Vec<UiaElement>, Fault> {
        match el.fault("FindAll") {
            Some(f) => Err(f),
            None => Ok(el.children.clone()),
        }
    }
}
