//! How a UI Automation tree is read, apart from the COM calls themselves: the walk down a
//! subtree-cached element, what is done when a provider refuses part of it, and what is said
//! then. The IO module runs it over live elements; a trace replays it over recorded ones with
//! their recorded faults ([`UiaElement::faults`]), so a fault trace takes the path a live read
//! takes.
//!
//! - Children come from the cache (`GetCachedChildren`). A null array (the crate's error code
//!   0) is how UIA says "no children". Any other error is a refusal: the children are then
//!   found live (`FindAll(TreeScope_Children)` with the same cache request), and when that
//!   fails too the element is kept, marked as read in part with both refusals (call, HRESULT,
//!   who refused), so the tree is incomplete (exit 12) and never a silent leaf.
//! - A client that refuses a cache request for a subtree ([`Client::no_subtree`]: Wine's
//!   refuses `put_TreeScope` beyond `TreeScope_Element`) is read element by element: each
//!   element cached alone, its children found with `FindAll`. An empty answer is "no children"
//!   only from a client whose `FindAll` is not known to find nothing ([`Client::find_all_blind`]:
//!   it found none of the desktop's top-level windows); from one that is, the children are
//!   missing, and named so.
//! - A cache request the provider rejects (`BuildUpdatedCache` failing for a reason other than
//!   the element going away or not answering) is retried with only the properties that say
//!   what an element is ([`map::CORE_PROPERTIES`]); each element read so is marked as read in
//!   part, naming the properties left out and why.

use super::calls::{self, Refusal};
use super::map::{self, UiaElement};
use super::trace::UiaClient;
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

    /// `0x80004001 (E_NOTIMPL): not implemented` (who refused is the [`Refusal`]'s to say).
    pub fn describe(&self) -> String {
        map::describe_error(self.code, &self.message)
    }

    /// The null array UIA gives for an element without children (no HRESULT at all).
    pub fn is_null(&self) -> bool {
        self.code == 0
    }
}

/// What the client lets a read do, found when the backend starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Client {
    /// The client refused a cache request for a subtree: elements are read one at a time.
    pub no_subtree: Option<Refusal>,
    /// The client's `FindAll` found no top-level window of the desktop while `EnumWindows`
    /// found this many: its empty answers say nothing.
    pub find_all_blind: Option<usize>,
}

impl Client {
    /// Whether `FindAll` is known to find nothing on this client: it found no top-level window
    /// while `EnumWindows` found `enumerated` (visible, titled) ones.
    pub fn find_all_is_blind(found: usize, enumerated: usize) -> Option<usize> {
        (found == 0 && enumerated > 0).then_some(enumerated)
    }
}

/// The calls the walk makes on one element.
pub trait Provider {
    type El;
    /// What the client lets this read do.
    fn client(&self) -> &Client;
    /// The element's own cached properties (no children); remembers the element for later
    /// calls.
    fn record(&mut self, el: &Self::El) -> UiaElement;
    /// `GetCachedChildren`.
    fn cached_children(&mut self, el: &Self::El) -> Result<Vec<Self::El>, Refusal>;
    /// `FindAll(TreeScope_Children)` with the read's cache request: the children, found live,
    /// each with what the request caches.
    fn find_children(&mut self, el: &Self::El) -> Result<Vec<Self::El>, Refusal>;
}

/// The element's children: the cached ones, else the ones found live; element by element, the
/// ones found live. `Err` names every refusal when none answered, or why an empty answer says
/// nothing.
pub fn children<P: Provider>(p: &mut P, el: &P::El) -> Result<Vec<P::El>, String> {
    if let Some(no_subtree) = p.client().no_subtree.clone() {
        let blind = p.client().find_all_blind;
        return match p.find_children(el) {
            Ok(kids) if !kids.is_empty() => Ok(kids),
            Ok(kids) => match blind {
                None => Ok(kids),
                Some(windows) => Err(format!(
                    "children ({no_subtree}; {} answered no element, as it does on the \
                     desktop, where EnumWindows finds {windows} top-level window{}: this \
                     client's FindAll finds nothing)",
                    calls::find_children().name,
                    if windows == 1 { "" } else { "s" }
                )),
            },
            Err(found) => Err(format!("children ({no_subtree}; {found})")),
        };
    }
    match p.cached_children(el) {
        Ok(kids) => Ok(kids),
        Err(r) if r.fault.is_null() => Ok(Vec::new()),
        Err(cached) => p
            .find_children(el)
            .map_err(|found| format!("children ({cached}; {found})")),
    }
}

/// What an element read with only [`map::CORE_PROPERTIES`] is marked with: the rest is unknown.
pub fn core_only(rejected: &Refusal) -> String {
    format!(
        "cached properties other than {} ({rejected})",
        map::CORE_PROPERTIES.join(", ")
    )
}

/// An element's runtime id. When `GetRuntimeId` is refused, a window's element gets the id
/// Windows itself gives one (`42` and its window handle); `Err` when it has no window handle
/// either (its id is then made up for one read, and says so).
pub fn identity(runtime_id: Result<Vec<i32>, Refusal>, hwnd: i64) -> Result<Vec<i32>, Refusal> {
    match runtime_id {
        Ok(id) if !id.is_empty() => Ok(id),
        // A window handle is 32 bits wide, on 64-bit Windows too.
        _ if hwnd != 0 => Ok(vec![42, hwnd as i32]),
        Ok(_) => Err(Refusal::of(&calls::runtime_id(), Fault::new(0))),
        Err(r) => Err(r),
    }
}

/// What an element whose properties were read one call at a time is marked with for the reads
/// that were refused: the properties refused the same way together (`ClassName, HelpText
/// (…refusal…)`), in the order they were read.
pub fn refused_reads(refused: &[(String, Refusal)]) -> Vec<String> {
    // (the call with the property left out, the refusal, the properties)
    let mut groups: Vec<(String, &Refusal, Vec<&str>)> = Vec::new();
    for (name, r) in refused {
        let call = r.call.replacen(name.as_str(), "…", 1);
        match groups
            .iter_mut()
            .find(|(c, g, _)| *c == call && g.fault.code == r.fault.code && g.party == r.party)
        {
            Some((_, _, names)) => names.push(name),
            None => groups.push((call, r, vec![name])),
        }
    }
    groups
        .into_iter()
        .map(|(call, r, names)| {
            let call = match names.as_slice() {
                [one] => call.replacen('…', one, 1),
                _ => call,
            };
            format!(
                "{} not read ({call} failed: {} ({}))",
                names.join(", "),
                r.fault.describe(),
                r.party.words()
            )
        })
        .collect()
}

/// What an element whose id was made up is marked with.
pub fn made_up_id(refused: &Refusal) -> String {
    format!("its runtime id ({refused}): its id holds for this read only")
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

/// A recorded tree as a provider: each element's recorded faults are what its calls answer,
/// and the trace's [`UiaClient`] what the client refuses everywhere.
pub struct Recorded {
    recorded: UiaClient,
    client: Client,
    /// The cache request was rejected on the element the read started from: every element is
    /// read with the core properties only.
    core_only: Option<Refusal>,
}

impl Recorded {
    /// The provider for a read of `root` with `client`: element by element when the client
    /// refuses a subtree cache request; with only the core properties when `root`'s
    /// `BuildUpdatedCache` fault says the full request is rejected.
    pub fn new(root: &UiaElement, client: &UiaClient) -> Result<Recorded, Refusal> {
        let mut recorded = Recorded {
            recorded: client.clone(),
            client: Client {
                no_subtree: client.refusal(&calls::tree_scope("Subtree")),
                find_all_blind: client
                    .find_all_finds_nothing
                    .then(|| Client::find_all_is_blind(0, client.top_level_windows))
                    .flatten(),
            },
            core_only: None,
        };
        if recorded.client.no_subtree.is_some() {
            return Ok(recorded);
        }
        let call = calls::build_cache("TreeScope_Subtree");
        if let Some(f) = root.fault("BuildUpdatedCache") {
            let r = recorded.refusal(&call, f);
            match map::classify_hresult(r.fault.code) {
                // Gone or not answering: a smaller request would fare no better.
                map::ErrorKind::Vanished | map::ErrorKind::Timeout => return Err(r),
                _ => recorded.core_only = Some(r),
            }
        }
        Ok(recorded)
    }

    /// `call` failed with `fault` on an element; the desktop answers as the trace's client does.
    fn refusal(&self, call: &calls::Call, fault: Fault) -> Refusal {
        Refusal::new(call, fault, || Some(self.recorded.desktop_answer(call)))
    }
}

impl Provider for Recorded {
    type El = UiaElement;

    fn client(&self) -> &Client {
        &self.client
    }

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
        if let Some(fault) = self.recorded.refused(&calls::runtime_id()) {
            let refused = self.refusal(&calls::runtime_id(), fault);
            match identity(Err(refused), el.native_window_handle) {
                Ok(id) => rec.runtime_id = id,
                Err(r) => rec.unread.push(made_up_id(&r)),
            }
        }
        rec
    }

    fn cached_children(&mut self, el: &UiaElement) -> Result<Vec<UiaElement>, Refusal> {
        let call = calls::cached_children();
        match self
            .recorded
            .refused(&call)
            .or_else(|| el.fault("GetCachedChildren"))
        {
            Some(f) => Err(self.refusal(&call, f)),
            None if el.children.is_empty() => Err(Refusal::of(&call, Fault::new(0))),
            None => Ok(el.children.clone()),
        }
    }

    fn find_children(&mut self, el: &UiaElement) -> Result<Vec<UiaElement>, Refusal> {
        let call = calls::find_children();
        if self.recorded.find_all_finds_nothing {
            return Ok(Vec::new());
        }
        match self.recorded.refused(&call).or_else(|| el.fault("FindAll")) {
            Some(f) => Err(self.refusal(&call, f)),
            None => Ok(el.children.clone()),
        }
    }
}
