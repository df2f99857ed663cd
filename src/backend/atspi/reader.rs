//! Reading a whole tree fast and safely: one `Cache.GetItems` call paints most of it, concurrent
//! per-node calls fill its gaps, and a concurrent walk (each element's children read as soon as
//! it is listed) serves apps without a cache (Qt). Only the calls in `calls.rs` are sent; a property that fails to read costs that
//! field, never the node; an app that leaves the bus ends the read with the reason said.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream;

use super::bus::*;
use super::calls::{CacheItemWire, Caller, Listable, Unlisted, ValueProp};
use super::toolkit::{Toolkit, normalise_states};
use crate::backend::progress::READ;
use crate::backend::{BackendError, Limits};
use crate::model::{
    AppText, Interface, Interfaces, Managed, ManagedReason, Node, Role, Snapshot, SnapshotId,
    State, States, Toggle, Truncation, Value, preorder,
};

/// How many calls one phase keeps in flight on the connection.
const IN_FLIGHT: usize = 256;

/// How often a read in progress hands the inspector what it has (`progress::READ`).
const PARTIAL_EVERY: Duration = Duration::from_millis(200);

/// AT-SPI relation type `ATSPI_RELATION_LABELLED_BY`.
const RELATION_LABELLED_BY: u32 = 2;

/// One element as read off the bus, before layout.
#[derive(Debug, Clone)]
pub struct RawNode {
    pub obj: ObjRef,
    /// Child count as the cache or `ChildCount` gave it (−1: unknown).
    pub child_count: i32,
    pub role: Role,
    pub raw_role: String,
    pub name: String,
    pub description: String,
    pub states: States,
    pub interfaces: Interfaces,
}

/// Reads all of one element but its children and value: role, states and interfaces (methods),
/// name, description and child count (`Properties.Get` each), concurrently. A name or
/// description that fails to read is left empty, a child count −1; the element counts as
/// unreadable only when its role, states or interfaces cannot be read.
pub async fn read_raw(c: &Caller, obj: &ObjRef, toolkit: Toolkit) -> Result<RawNode, BackendError> {
    read_raw_with(c, obj, toolkit, true).await
}

/// [`read_raw`] without the child count (−1), for reads that never list the element: a single
/// element re-read (`read_node`, every read-back sample of a write), a managed descendant.
pub async fn read_fields(
    c: &Caller,
    obj: &ObjRef,
    toolkit: Toolkit,
) -> Result<RawNode, BackendError> {
    read_raw_with(c, obj, toolkit, false).await
}

async fn read_raw_with(
    c: &Caller,
    obj: &ObjRef,
    toolkit: Toolkit,
    with_count: bool,
) -> Result<RawNode, BackendError> {
    let count = async {
        if with_count {
            c.child_count(obj).await
        } else {
            Ok(-1)
        }
    };
    let (role, states, ifaces, name, description, count) = tokio::join!(
        c.role(obj),
        c.state(obj),
        c.interfaces(obj),
        c.name(obj),
        c.description(obj),
        count,
    );
    let (role, raw_role) = role_of(role?);
    let interfaces = interfaces_of(&ifaces?);
    let mut states = states_of(&states?);
    normalise_states(toolkit, role, &mut states, interfaces);
    Ok(RawNode {
        obj: obj.clone(),
        child_count: optional(count, obj, "ChildCount")?.unwrap_or(-1),
        role,
        raw_role,
        name: field(name, obj, "Name")?,
        description: field(description, obj, "Description")?,
        states,
        interfaces,
    })
}

/// A string property that may fail alone: the toolkit refusing it leaves it empty (and is
/// logged); the element or app being gone, or a timeout, still ends the element's read.
fn field(
    r: Result<String, BackendError>,
    obj: &ObjRef,
    what: &str,
) -> Result<String, BackendError> {
    match r {
        Ok(s) => Ok(s),
        Err(BackendError::Failed(e)) | Err(BackendError::Unsupported(e)) => {
            tracing::debug!(bus = %obj.bus, path = %obj.path, field = what, error = %e, "field unreadable");
            Ok(String::new())
        }
        Err(e) => Err(e),
    }
}

/// Whether an element may be asked for its children, by what was read of it.
pub fn listable(raw: &RawNode) -> Result<Listable<'_>, Unlisted> {
    Listable::check(
        &raw.obj,
        raw.states.has(State::ManagesDescendants),
        raw.child_count,
    )
}

/// The children of an element read whole, or `None` when they are not to be enumerated (it
/// manages its descendants or has more than `LIST_MAX`). A child count the reads did not give
/// is asked first (`ChildCount`), never guessed.
pub async fn list(c: &Caller, raw: &RawNode) -> Result<Option<Vec<ObjRef>>, BackendError> {
    Ok(list_counted(c, raw).await?.1)
}

/// [`list`], with the child count it went by (−1 when the toolkit would not say).
async fn list_counted(
    c: &Caller,
    raw: &RawNode,
) -> Result<(i32, Option<Vec<ObjRef>>), BackendError> {
    let mut raw = std::borrow::Cow::Borrowed(raw);
    if matches!(listable(&raw), Err(Unlisted::CountUnknown)) {
        let n = optional(c.child_count(&raw.obj).await, &raw.obj, "ChildCount")?;
        let Some(n) = n else { return Ok((-1, None)) };
        raw.to_mut().child_count = n;
    }
    let manages = raw.states.has(State::ManagesDescendants);
    list_checked(c, &raw.obj, manages, raw.child_count).await
}

/// Lists `obj` when [`Listable::check`] allows (none when its count is 0), with the count.
async fn list_checked(
    c: &Caller,
    obj: &ObjRef,
    manages: bool,
    count: i32,
) -> Result<(i32, Option<Vec<ObjRef>>), BackendError> {
    match Listable::check(obj, manages, count) {
        Ok(_) if count == 0 => Ok((0, Some(Vec::new()))),
        Ok(l) => Ok((count, Some(c.children(&l).await?))),
        Err(_) => Ok((count, None)),
    }
}

/// The children of an element not read yet (GTK 4's discovery): its states and child count
/// first, so it is listed only when [`listable`] allows.
async fn discover(c: &Caller, obj: &ObjRef) -> Result<(i32, Option<Vec<ObjRef>>), BackendError> {
    let (states, count) = tokio::join!(c.state(obj), c.child_count(obj));
    let count = optional(count, obj, "ChildCount")?.unwrap_or(-1);
    let manages = states_of(&states?).has(State::ManagesDescendants);
    list_checked(c, obj, manages, count).await
}

/// [`optional`] for what is read of a managed element's visible part: its descendants come and
/// go as the toolkit makes them, so one gone (or refused) costs that one, not the element.
fn soft<T>(
    r: Result<T, BackendError>,
    obj: &ObjRef,
    what: &str,
) -> Result<Option<T>, BackendError> {
    match r {
        Err(BackendError::Vanished(e)) => {
            tracing::debug!(bus = %obj.bus, path = %obj.path, field = what, error = %e, "managed part gone");
            Ok(None)
        }
        r => optional(r, obj, what),
    }
}

/// The most cells [`small_table_cells`] asks for.
pub const SMALL_TABLE: i64 = 1_000;

/// Every cell of an element that is not enumerated but is a table of at most [`SMALL_TABLE`]
/// cells by its own `NRows` × `NColumns` (an option list), row by row, each asked by
/// `Table.GetAccessibleAt`; empty for anything else (a sheet, a document). For option lists
/// only: a snapshot shows the visible part of such elements.
pub async fn small_table_cells(c: &Caller, raw: &RawNode) -> Result<Vec<ObjRef>, BackendError> {
    if !raw.interfaces.has(Interface::Table) {
        return Ok(Vec::new());
    }
    let o = &raw.obj;
    let Some((rows, cols)) = soft(c.table_size(o).await, o, "Table size")? else {
        return Ok(Vec::new());
    };
    if rows <= 0 || cols <= 0 || rows as i64 * cols as i64 > SMALL_TABLE {
        return Ok(Vec::new());
    }
    table_cells(c, o, 0, 0, rows, cols).await
}

/// The cells of `table` in the `rows` × `cols` block from (`r0`, `c0`), row by row, all asked
/// at once (`Table.GetAccessibleAt`); cells the toolkit does not give are left out.
async fn table_cells(
    c: &Caller,
    table: &ObjRef,
    r0: i32,
    c0: i32,
    rows: i32,
    cols: i32,
) -> Result<Vec<ObjRef>, BackendError> {
    let cells = futures::future::join_all(
        (0..rows)
            .flat_map(|r| (0..cols).map(move |k| (r0 + r, c0 + k)))
            .map(|(r, k)| c.table_cell(table, r, k)),
    )
    .await;
    let mut out = Vec::with_capacity(cells.len());
    for cell in cells {
        if let Some(cell) = soft(cell, table, "GetAccessibleAt")?.flatten() {
            out.push(cell);
        }
    }
    Ok(out)
}

/// How many of a table's `cells`, in order, lie inside its bounds before the first that does
/// not (or is not there): all asked concurrently.
async fn visible_run(
    c: &Caller,
    table: &ObjRef,
    cells: impl Iterator<Item = (i32, i32)>,
    inside: &impl Fn(Option<(i32, i32, i32, i32)>) -> bool,
) -> Result<i32, BackendError> {
    let seen = futures::future::join_all(cells.map(|(r, k)| async move {
        let Some(cell) = soft(c.table_cell(table, r, k).await, table, "GetAccessibleAt")?.flatten()
        else {
            return Ok(false);
        };
        Ok::<_, BackendError>(inside(soft(c.extents(&cell).await, &cell, "GetExtents")?))
    }))
    .await;
    let mut n = 0;
    for s in seen {
        if !s? {
            break;
        }
        n += 1;
    }
    Ok(n)
}

/// The most descendants read of one element that is not enumerated: what fits on a screen.
const MANAGED_SHOWN: usize = 200;
/// The most columns of such a table read in one row.
const MANAGED_COLUMNS: i32 = 40;
/// The most points asked down an element that is not a table, and the step between points
/// that hit nothing.
const MANAGED_PROBES: usize = 400;
const PROBE_STEP: i32 = 12;

/// What a person can see of an element whose children are not enumerated (it manages its
/// descendants, or says it has more than `LIST_MAX`): its size as it reports it and the
/// descendants on screen, found the way Orca and Accerciser find them — for a table, the cell
/// at its top-left corner (`Component.GetAccessibleAtPoint`) and the cells right of and below
/// it (`Table.GetAccessibleAt`) while they lie inside the element's bounds; for anything else,
/// the descendant at each point down its middle. At most
/// [`MANAGED_SHOWN`] descendants, each read like any element but never listed itself.
async fn read_managed(
    c: &Caller,
    raw: &RawNode,
    why: Unlisted,
    toolkit: Toolkit,
) -> Result<(Managed, Vec<RawNode>), BackendError> {
    let o = &raw.obj;
    let mut m = Managed {
        reason: match why {
            Unlisted::TooMany => ManagedReason::TooManyChildren,
            _ => ManagedReason::ManagesDescendants,
        },
        child_count: raw.child_count.max(0) as i64,
        rows: None,
        columns: None,
        shown: 0,
    };
    // The cache says −1 for such elements: ask (a property, not an enumeration).
    if raw.child_count < 0
        && let Some(n) = soft(c.child_count(o).await, o, "ChildCount")?
    {
        m.child_count = n.max(0) as i64;
    }
    let table = raw.interfaces.has(Interface::Table);
    if table && let Some((r, cl)) = soft(c.table_size(o).await, o, "Table size")? {
        m.rows = Some(r as i64);
        m.columns = Some(cl as i64);
    }
    if !raw.interfaces.has(Interface::Component) {
        return Ok((m, Vec::new()));
    }
    let Some((x, y, w, h)) = soft(c.extents(o).await, o, "GetExtents")? else {
        return Ok((m, Vec::new()));
    };
    if w <= 0 || h <= 0 {
        return Ok((m, Vec::new()));
    }
    let (right, bottom) = (x.saturating_add(w), y.saturating_add(h));
    let inside = |e: Option<(i32, i32, i32, i32)>| match e {
        Some((cx, cy, cw, ch)) => cw > 0 && ch > 0 && cx < right && cy < bottom,
        None => false,
    };
    let mut found: Vec<ObjRef> = Vec::new();
    // A table's first visible cell: the one at its corner, else (Qt, whose corner is a header
    // or the frame) the first cell, kept only if it lies inside the bounds.
    let first = if table {
        soft(c.accessible_at_point(o, x + 1, y + 1).await, o, "AtPoint")?
            .flatten()
            .filter(|f| f != o)
    } else {
        None
    };
    let start = match &first {
        Some(f) => match soft(c.index_in_parent(f).await, f, "IndexInParent")? {
            Some(i) if i >= 0 => soft(c.table_position(o, i).await, o, "Table position")?,
            _ => None,
        },
        None => None,
    }
    .filter(|(r, c)| *r >= 0 && *c >= 0)
    .or(table.then_some((0, 0)));
    if let Some((r0, c0)) = start {
        // How many columns and rows lie inside the bounds, along the first row and column:
        // each cell of a line asked at once (a toolkit answers ~1 call per ms: one round trip
        // instead of one per cell), counted up to the first one outside.
        let left = |total: Option<i64>, from: i32| {
            total.map_or(i32::MAX, |t| {
                (t - from as i64).clamp(0, i32::MAX as i64) as i32
            })
        };
        let cols = MANAGED_COLUMNS.min(left(m.columns, c0));
        let cols = visible_run(c, o, (0..cols).map(|k| (r0, c0 + k)), &inside)
            .await?
            .max(1);
        let rows = (MANAGED_SHOWN as i32 / cols).max(1).min(left(m.rows, r0));
        let rows = visible_run(c, o, (0..rows).map(|r| (r0 + r, c0)), &inside).await?;
        found = table_cells(c, o, r0, c0, rows.max(1), cols).await?;
    } else {
        // Down the middle (a document's paragraphs sit between its margins): the descendant
        // at each point, then the one just below it; where there is none (a page's margin),
        // a little further down.
        let px = x + w / 2;
        let mut py = y + 1;
        let mut probes = 0;
        while found.len() < MANAGED_SHOWN && py < bottom && probes < MANAGED_PROBES {
            probes += 1;
            let at = soft(c.accessible_at_point(o, px, py).await, o, "AtPoint")?
                .flatten()
                .filter(|d| d != o && !found.contains(d));
            let Some(at) = at else {
                py += PROBE_STEP;
                continue;
            };
            let e = soft(c.extents(&at).await, &at, "GetExtents")?;
            match e {
                Some((_, cy, _, ch)) if inside(e) => {
                    found.push(at);
                    py = (cy + ch).max(py + 1);
                }
                _ => py += PROBE_STEP,
            }
        }
    }
    found.truncate(MANAGED_SHOWN);
    let raws = futures::future::join_all(found.iter().map(|k| read_fields(c, k, toolkit))).await;
    let mut shown = Vec::with_capacity(raws.len());
    for r in raws {
        match r {
            Ok(mut r) => {
                // A managed descendant's own children are managed too: never listed.
                r.child_count = 0;
                shown.push(r);
            }
            Err(e @ (BackendError::AppGone { .. } | BackendError::Timeout { .. })) => {
                return Err(e);
            }
            Err(_) => {}
        }
    }
    m.shown = shown.len();
    Ok((m, shown))
}

/// A field that may be refused alone: `Ok(None)` when the toolkit said no.
fn optional<T>(
    r: Result<T, BackendError>,
    obj: &ObjRef,
    what: &str,
) -> Result<Option<T>, BackendError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(BackendError::Failed(e)) | Err(BackendError::Unsupported(e)) => {
            tracing::debug!(bus = %obj.bus, path = %obj.path, field = what, error = %e, "field unreadable");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Action names for programs (`GetName(i)`; never the localized `GetActions` names, which some
/// bridges fill with `;;` or nothing), and the localized ones for display when `labels`.
pub async fn read_actions(
    c: &Caller,
    obj: &ObjRef,
    labels: bool,
) -> Result<(Vec<String>, Vec<String>), BackendError> {
    let n = match optional(c.n_actions(obj).await, obj, "NActions")? {
        Some(n) => n.clamp(0, 64),
        None => return Ok((Vec::new(), Vec::new())),
    };
    let names = futures::future::join_all((0..n).map(|i| c.action_name(obj, i))).await;
    let mut out = Vec::with_capacity(n as usize);
    for (i, r) in names.into_iter().enumerate() {
        out.push(optional(r, obj, "Action.GetName")?.unwrap_or_else(|| format!("action {i}")));
    }
    let shown = if labels {
        optional(c.action_list(obj).await, obj, "Action.GetActions")?
            .map(|l| l.into_iter().map(|(name, _, _)| name).collect::<Vec<_>>())
            .filter(|l| l.len() == out.len() && *l != out)
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Ok((out, shown))
}

/// Whether the model shows a value for this element: text fields, numbers, toggles, choices.
/// Labels, headings and containers carry their text in their name (or children).
pub fn has_value(role: Role, states: States, interfaces: Interfaces) -> bool {
    role.is_toggle()
        || role.is_choice()
        || (role.is_numeric() || role == Role::ProgressBar) && interfaces.has(Interface::Value)
        || role.is_text() && interfaces.has(Interface::Text)
        || states.has(State::Editable) && interfaces.has(Interface::EditableText)
}

/// The current value of a value-bearing element (see [`has_value`]); `None` for others. A
/// number whose current value cannot be read has no value; a bound that cannot be read is
/// `None` in the value (Chromium cannot read some sliders' minimum).
pub async fn get_value(
    c: &Caller,
    raw: &RawNode,
    toolkit: Toolkit,
    known: Option<&Known>,
) -> Result<Option<Value>, BackendError> {
    let (obj, role, states, interfaces) = (&raw.obj, raw.role, raw.states, raw.interfaces);
    if !has_value(role, states, interfaces) {
        return Ok(None);
    }
    if role.is_toggle() {
        let state = if states.has(State::Indeterminate) {
            Toggle::Mixed
        } else if states.has(State::Checked) || states.has(State::Pressed) {
            Toggle::On
        } else {
            Toggle::Off
        };
        return Ok(Some(Value::Toggle { state }));
    }
    if (role.is_numeric() || role == Role::ProgressBar) && interfaces.has(Interface::Value) {
        let (cur, min, max, step) = tokio::join!(
            c.value(obj, ValueProp::Current),
            c.value(obj, ValueProp::Minimum),
            c.value(obj, ValueProp::Maximum),
            c.value(obj, ValueProp::Increment),
        );
        let Some(current) = optional(cur, obj, "CurrentValue")? else {
            return Ok(None);
        };
        return Ok(Some(Value::Number {
            current,
            min: optional(min, obj, "MinimumValue")?,
            max: optional(max, obj, "MaximumValue")?,
            step: optional(step, obj, "MinimumIncrement")?,
        }));
    }
    if role.is_choice() {
        let selected = match selected_label(c, raw, known).await {
            Ok(s) => s,
            Err(e @ (BackendError::AppGone { .. } | BackendError::Timeout { .. })) => {
                return Err(e);
            }
            Err(_) => None,
        };
        // Where the selection cannot be read, Qt and GTK 3 name a combo after its current
        // text; GTK 4.8 names it after its class ("GtkComboBox") and Chromium after its label,
        // so there the value stays unknown rather than wrong.
        let named_after_value = toolkit.is_qt() || toolkit == Toolkit::Gtk3;
        let selected = selected
            .or_else(|| (named_after_value && !raw.name.is_empty()).then(|| raw.name.clone()));
        return Ok(match selected {
            Some(s) => Some(Value::Choice {
                selected: Some(s.into()),
            }),
            None if named_after_value => Some(Value::Choice { selected: None }),
            None => None,
        });
    }
    if interfaces.has(Interface::Text) {
        let Some(mut text) = optional(get_text(c, obj, toolkit).await, obj, "Text")? else {
            return Ok(None);
        };
        // Qt hides a password's text entirely (an empty string) but counts its characters:
        // a mask of that length says what can be known.
        if text.is_empty()
            && role == Role::PasswordText
            && let Some(n) = optional(c.character_count(obj).await, obj, "CharacterCount")?
        {
            text = "●".repeat(n.clamp(0, 1 << 20) as usize);
        }
        return Ok(Some(Value::Text { text: text.into() }));
    }
    Ok(None)
}

/// Whole text of a Text element: `GetText(0, -1)` in one call; GTK 4 answers "" to that, so
/// there an empty answer is checked against `CharacterCount`.
pub async fn get_text(c: &Caller, obj: &ObjRef, toolkit: Toolkit) -> Result<String, BackendError> {
    let all = c.text(obj, 0, -1).await?;
    if !all.is_empty() || toolkit != Toolkit::Gtk4 {
        return Ok(all);
    }
    let count = c.character_count(obj).await?;
    if count <= 0 {
        return Ok(String::new());
    }
    c.text(obj, 0, count).await
}

/// Roles and names already read in this snapshot, so value and label reads can skip calls.
pub type Known = HashMap<ObjRef, (Role, String)>;

/// The label of a combo box's selected option: the combo's selected child, or (GTK 3) the
/// selected child of the menu the combo selects.
async fn selected_label(
    c: &Caller,
    raw: &RawNode,
    known: Option<&Known>,
) -> Result<Option<String>, BackendError> {
    let combo = &raw.obj;
    let mut holder = combo.clone();
    for _ in 0..2 {
        let sel = c.selected_child(&holder, 0).await.ok().flatten();
        let Some(sel) = sel else {
            // No selection on this level: GTK 3 keeps it on the combo's only (menu) child.
            if holder != *combo {
                return Ok(None);
            }
            match list(c, raw).await?.unwrap_or_default().as_slice() {
                [menu] => {
                    holder = menu.clone();
                    continue;
                }
                _ => return Ok(None),
            }
        };
        let (role, name) = match known.and_then(|k| k.get(&sel)) {
            Some((r, n)) => (*r, Some(n.clone())),
            None => (role_of(c.role(&sel).await?).0, None),
        };
        if role == Role::Menu {
            holder = sel;
            continue;
        }
        return Ok(Some(match name {
            Some(n) => n,
            None => c.name(&sel).await?,
        }));
    }
    Ok(None)
}

/// The names of the elements that label `obj` (`labelled-by`), joined with a space.
pub async fn read_label(
    c: &Caller,
    obj: &ObjRef,
    known: Option<&Known>,
) -> Result<Option<String>, BackendError> {
    let Some(rels) = optional(c.relations(obj).await, obj, "GetRelationSet")? else {
        return Ok(None);
    };
    let targets: Vec<ObjRef> = rels
        .into_iter()
        .filter(|(kind, _)| *kind == RELATION_LABELLED_BY)
        .flat_map(|(_, t)| t)
        .filter(|t| t != obj)
        .take(4)
        .collect();
    if targets.is_empty() {
        return Ok(None);
    }
    let mut names = Vec::with_capacity(targets.len());
    for t in &targets {
        let mut name = match known.and_then(|k| k.get(t)) {
            Some((_, n)) => n.clone(),
            None => match c.name(t).await {
                Ok(n) => n,
                Err(e @ (BackendError::AppGone { .. } | BackendError::Timeout { .. })) => {
                    return Err(e);
                }
                Err(_) => String::new(),
            },
        };
        // A browser's <label> has no name of its own: its text is what labels the field (as
        // libatspi's clients read it).
        if name.trim().is_empty() {
            match c.text(t, 0, -1).await {
                Ok(text) => name = text.replace(crate::model::display::EMBEDDED_OBJECT, " "),
                Err(e @ (BackendError::AppGone { .. } | BackendError::Timeout { .. })) => {
                    return Err(e);
                }
                Err(_) => {}
            }
        }
        if !name.trim().is_empty() {
            names.push(name.trim().to_string());
        }
    }
    Ok((!names.is_empty()).then(|| names.join(" ")))
}

/// Action names already read, by element. Toolkits fix an element's actions when they create
/// it, so snapshots that ask for actions reuse them; writes always read them afresh.
pub type ActionCache = Arc<Mutex<HashMap<ObjRef, Vec<String>>>>;

/// Bound on remembered elements; the cache starts over past it.
const ACTION_CACHE_MAX: usize = 200_000;

/// What a snapshot reads of an element beyond the cache's fields.
#[derive(Debug, Clone, Default)]
struct Extras {
    actions: Vec<String>,
    value: Option<Value>,
    label: Option<String>,
}

/// Whether an element needs calls beyond its raw fields in this read.
fn needs_extras(raw: &RawNode, limits: &Limits) -> bool {
    has_value(raw.role, raw.states, raw.interfaces)
        || limits.labels && raw.role.is_interactive()
        || limits.actions && raw.interfaces.has(Interface::Action)
}

/// An element's value, label (interactive roles) and, when asked, action names.
async fn read_extras(
    c: &Caller,
    raw: &RawNode,
    toolkit: Toolkit,
    known: &Known,
    limits: &Limits,
    actions: &ActionCache,
) -> Result<Extras, BackendError> {
    let o = &raw.obj;
    let acts = async {
        if !limits.actions || !raw.interfaces.has(Interface::Action) {
            return Ok(Vec::new());
        }
        let cached = actions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(o)
            .cloned();
        if let Some(a) = cached {
            return Ok(a);
        }
        let (a, _) = read_actions(c, o, false).await?;
        let mut cache = actions.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= ACTION_CACHE_MAX {
            cache.clear();
        }
        cache.insert(o.clone(), a.clone());
        Ok(a)
    };
    let val = get_value(c, raw, toolkit, Some(known));
    let label = async {
        if limits.labels && raw.role.is_interactive() {
            read_label(c, o, Some(known)).await
        } else {
            Ok(None)
        }
    };
    let (a, v, l) = tokio::join!(acts, val, label);
    Ok(Extras {
        actions: a?,
        value: v?,
        label: l?,
    })
}

/// Turns a raw node into a model node (children are filled by layout).
fn to_node(raw: &RawNode) -> Node {
    let mut n = Node::new(raw.obj.id(), raw.role, raw.raw_role.clone());
    n.name = raw.name.as_str().into();
    n.description = raw.description.as_str().into();
    n.states = raw.states;
    n.interfaces = raw.interfaces;
    n
}

struct Walk {
    nodes: HashMap<ObjRef, RawNode>,
    /// Children by parent, from the cache: (index in parent, child).
    cached_kids: HashMap<ObjRef, Vec<(i32, ObjRef)>>,
    truncated: Option<Truncation>,
    unreadable: usize,
    /// The read must stop: a call timed out (the app is hung) or the app left the bus.
    stop: bool,
    failed_calls: usize,
    /// The read's own deadline: a call that times out before it means the app went silent.
    deadline: Instant,
}

/// Why a read that got no answer stops: its deadline passed (`--read-timeout`), or, before
/// that, the app answered nothing for the call timeout (busy or hung).
fn silence(deadline: Instant) -> Truncation {
    if Instant::now() >= deadline {
        Truncation::Timeout
    } else {
        Truncation::NotResponding
    }
}

impl Walk {
    /// Books one failed element read: a timeout or the app leaving stops the read (and says
    /// why); anything else makes the element unreadable.
    fn note_error(&mut self, o: &ObjRef, e: &BackendError) {
        self.failed_calls += 1;
        tracing::debug!(bus = %o.bus, path = %o.path, error = %e, "element unreadable");
        match e {
            BackendError::Timeout { .. } => {
                self.stop = true;
                let why = silence(self.deadline);
                self.truncated.get_or_insert(why);
            }
            BackendError::AppGone { .. } => {
                self.stop = true;
                // The app leaving outranks any limit: it is why the tree is short.
                self.truncated = Some(Truncation::AppGone);
            }
            _ => self.unreadable += 1,
        }
    }

    fn load_cache(&mut self, items: Vec<CacheItemWire>, toolkit: Toolkit) {
        for (obj, _app, parent, index, children, ifaces, name, role, desc, states) in items {
            let obj = ObjRef::from_wire(&obj);
            let parent = ObjRef::from_wire(&parent);
            let (role, raw_role) = role_of(role);
            let interfaces = interfaces_of(&ifaces);
            let mut st = states_of(&states);
            normalise_states(toolkit, role, &mut st, interfaces);
            if !parent.is_null() {
                self.cached_kids
                    .entry(parent.clone())
                    .or_default()
                    .push((index, obj.clone()));
            }
            self.nodes.insert(
                obj.clone(),
                RawNode {
                    obj,
                    child_count: children,
                    role,
                    raw_role,
                    name,
                    description: desc,
                    states: st,
                    interfaces,
                },
            );
        }
    }

    /// Children of `obj` from the cache when the cache is whole for it.
    fn kids_from_cache(&self, obj: &ObjRef) -> Option<Vec<ObjRef>> {
        let raw = self.nodes.get(obj)?;
        if raw.states.has(State::ManagesDescendants) || raw.child_count < 0 {
            return None;
        }
        let mut kids = self.cached_kids.get(obj).cloned().unwrap_or_default();
        if kids.len() != raw.child_count as usize || kids.iter().any(|(i, _)| *i < 0) {
            return None;
        }
        kids.sort_by_key(|(i, _)| *i);
        Some(kids.into_iter().map(|(_, k)| k).collect())
    }
}

/// What one pass over the known part of the tree found: the layout so far and what is missing.
#[derive(Default)]
struct Pass {
    /// Placed elements in breadth-first order (the root first).
    order: Vec<ObjRef>,
    /// Children of each placed element, in order, already capped.
    kids: HashMap<ObjRef, Vec<ObjRef>>,
    truncated: Option<Truncation>,
    /// Placed elements whose children list must be fetched.
    need_list: Vec<ObjRef>,
    /// Placed elements not read yet.
    need_raw: Vec<ObjRef>,
    /// Placed, read elements whose extras are not read yet.
    need_extras: Vec<ObjRef>,
    /// Placed elements whose children are not enumerated and whose visible part is not read
    /// yet, with why.
    need_managed: Vec<(ObjRef, Unlisted)>,
}

/// What was read of elements whose children are not enumerated: their summary and the visible
/// descendants placed as their children.
type ManagedKids = HashMap<ObjRef, (Managed, Vec<ObjRef>)>;

/// Lays out what is known, breadth-first from `root`, within the caps.
fn layout(
    w: &Walk,
    root: &ObjRef,
    limits: &Limits,
    fetched: &HashMap<ObjRef, Vec<ObjRef>>,
    extras: &HashMap<ObjRef, Extras>,
    failed: &HashSet<ObjRef>,
    managed: &ManagedKids,
) -> Pass {
    let mut p = Pass::default();
    let mut seen: HashSet<ObjRef> = [root.clone()].into_iter().collect();
    let mut level = vec![root.clone()];
    p.order.push(root.clone());
    let mut depth = 0usize;
    'levels: while !level.is_empty() {
        let mut next = Vec::new();
        for o in &level {
            match w.nodes.get(o) {
                None => {
                    if !failed.contains(o) {
                        p.need_raw.push(o.clone());
                    }
                    // Discovered but not read yet: lay out below it all the same.
                    if !fetched.contains_key(o) {
                        continue;
                    }
                }
                Some(raw) => {
                    if !extras.contains_key(o) && !failed.contains(o) && needs_extras(raw, limits) {
                        p.need_extras.push(o.clone());
                    }
                    if raw.child_count == 0 && !fetched.contains_key(o) {
                        continue;
                    }
                }
            }
            let mut list = match fetched.get(o) {
                Some(k) => Some(k.clone()),
                None => w.kids_from_cache(o),
            };
            // Never enumerated: an element that manages its descendants or has too many
            // children gets its visible descendants instead.
            if list.is_none()
                && let Some(raw) = w.nodes.get(o)
                && let Err(why @ (Unlisted::ManagesDescendants | Unlisted::TooMany)) = listable(raw)
            {
                match managed.get(o) {
                    Some((_, shown)) => list = Some(shown.clone()),
                    None => {
                        if !failed.contains(o) {
                            p.need_managed.push((o.clone(), why));
                        }
                        continue;
                    }
                }
            }
            let Some(mut list) = list else {
                if !failed.contains(o) {
                    p.need_list.push(o.clone());
                }
                continue;
            };
            if depth >= limits.max_depth {
                if !list.is_empty() {
                    p.truncated.get_or_insert(Truncation::DepthCap);
                }
                continue;
            }
            if list.len() > limits.max_siblings {
                list.truncate(limits.max_siblings);
                p.truncated.get_or_insert(Truncation::SiblingCap);
            }
            list.retain(|k| seen.insert(k.clone()));
            let mut placed = Vec::with_capacity(list.len());
            for k in list {
                if p.order.len() >= limits.max_nodes {
                    p.truncated.get_or_insert(Truncation::NodeCap);
                    p.kids.insert(o.clone(), placed);
                    break 'levels;
                }
                p.order.push(k.clone());
                next.push(k.clone());
                placed.push(k);
            }
            p.kids.insert(o.clone(), placed);
        }
        level = next;
        depth += 1;
    }
    p
}

/// An element the cache did not know, read whole: its fields, children (`None`: not to be
/// enumerated) and extras.
type Unknown = Result<(RawNode, Option<Vec<ObjRef>>, Extras), BackendError>;

/// One concurrent round's answers.
enum Answer {
    /// A children list, with the child count it went by (`None`: not to be enumerated).
    List(ObjRef, Result<(i32, Option<Vec<ObjRef>>), BackendError>),
    /// The visible part of an element that is not enumerated.
    Managed(ObjRef, Result<(Managed, Vec<RawNode>), BackendError>),
    /// An element the cache did not know, read with its children list and extras.
    Raw(ObjRef, Box<Unknown>),
    /// One of the round's unknown elements and what was read below it ([`read_below`]).
    Below(Vec<Answer>),
    Extras(ObjRef, Result<Extras, BackendError>),
}

/// How many elements the reads of one round may go on to below the unknown elements it was
/// given ([`read_below`]), all branches together. A toolkit without a cache (Qt) is then read
/// in a round or two instead of one round per level, each waiting for its slowest element;
/// what is left past it is read the next round (and a partial tree is shown in between).
const DESCENT: usize = 2_000;

/// What the reads below the unknown elements of one round share.
struct Descent<'a> {
    toolkit: Toolkit,
    known: &'a Known,
    limits: &'a Limits,
    actions: &'a ActionCache,
    /// Elements still to be read below this round's own (see [`DESCENT`]).
    budget: std::sync::atomic::AtomicUsize,
    /// One permit per element whose calls are in flight: as many as a round keeps in flight.
    gate: tokio::sync::Semaphore,
    /// Set once the app answered nothing or left: nothing more is started.
    halt: std::sync::atomic::AtomicBool,
}

impl Descent<'_> {
    /// Takes one element of the budget.
    fn take(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        !self.halt.load(Relaxed)
            && !READ.cancelled()
            && self
                .budget
                .fetch_update(Relaxed, Relaxed, |b| b.checked_sub(1))
                .is_ok()
    }
}

/// Reads an element the cache did not know ([`read_unknown`]), then, as soon as its children
/// are listed, each of them the same way while the round's budget lasts: no level waits for
/// the slowest element of the level above. Every element is read whole before it is listed
/// (its states and count decide, [`listable`]), exactly as a round would; one that is not to
/// be enumerated gets its visible part read ([`read_managed`]) at once. Each element comes back
/// with its own answers; children left unread are read in the next round.
fn read_below<'a>(
    c: &'a Caller,
    o: ObjRef,
    kids: Option<Vec<ObjRef>>,
    d: &'a Descent<'a>,
) -> futures::future::BoxFuture<'a, Vec<Answer>> {
    Box::pin(async move {
        let listed = {
            let _permit = d.gate.acquire().await;
            read_listed(c, &o, kids, d.toolkit).await
        };
        let (raw, kids) = match listed {
            Ok(v) => v,
            Err(e) => {
                if matches!(
                    e,
                    BackendError::Timeout { .. } | BackendError::AppGone { .. }
                ) {
                    d.halt.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                return vec![Answer::Raw(o, Box::new(Err(e)))];
            }
        };
        // Not to be enumerated: its visible part, read now rather than in a round of its own.
        let managed = async {
            match (&kids, listable(&raw)) {
                (None, Err(why @ (Unlisted::ManagesDescendants | Unlisted::TooMany))) => {
                    let _permit = d.gate.acquire().await;
                    Some(read_managed(c, &raw, why, d.toolkit).await)
                }
                _ => None,
            }
        };
        let below: Vec<ObjRef> = kids
            .iter()
            .flatten()
            .take_while(|_| d.take())
            .cloned()
            .collect();
        let extras = async {
            if needs_extras(&raw, d.limits) {
                let _permit = d.gate.acquire().await;
                read_extras(c, &raw, d.toolkit, d.known, d.limits, d.actions).await
            } else {
                Ok(Extras::default())
            }
        };
        let deeper =
            futures::future::join_all(below.into_iter().map(|k| read_below(c, k, None, d)));
        let (extras, deeper, managed) = tokio::join!(extras, deeper, managed);
        let mut out = Vec::with_capacity(2 + deeper.iter().map(Vec::len).sum::<usize>());
        if let Some(m) = managed {
            out.push(Answer::Managed(o.clone(), m));
        }
        out.push(Answer::Raw(o, Box::new(extras.map(|ex| (raw, kids, ex)))));
        out.extend(deeper.into_iter().flatten());
        out
    })
}

/// An element the cache did not know: its fields, then (unless `kids` are known) its children
/// list, which its states and count allow or not ([`list_counted`]).
async fn read_listed(
    c: &Caller,
    o: &ObjRef,
    kids: Option<Vec<ObjRef>>,
    toolkit: Toolkit,
) -> Result<(RawNode, Option<Vec<ObjRef>>), BackendError> {
    // Fields first: whether the element may be listed depends on its states and count.
    let mut raw = read_raw(c, o, toolkit).await?;
    let kids = match kids {
        Some(k) => Some(k),
        None => {
            let (count, kids) = list_counted(c, &raw).await?;
            raw.child_count = count;
            kids
        }
    };
    if let Some(k) = &kids {
        raw.child_count = k.len() as i32;
    }
    Ok((raw, kids))
}

/// Below this many elements missing from a cache, reading them one by one beats asking the
/// whole cache again.
const REQUERY_MIN: usize = 32;

/// Reads the tree under `root` within `limits`: paint from the cache, then fetch everything
/// still missing (children lists of gaps, unknown elements, values, labels and actions when
/// asked) in concurrent rounds; below the elements the cache did not know, a round goes on
/// down as each children list comes back ([`read_below`], up to [`DESCENT`] elements).
///
/// GTK 4 puts an element in its cache only once something on the bus referred to it, so a
/// first read finds most of a GTK 4 window missing. Where the cache answered but misses many
/// elements, the missing part is first *discovered* with children lists alone (one call per
/// element instead of six), then the cache is asked again and now holds them.
pub async fn read_tree(
    caller: &Caller,
    root: &ObjRef,
    limits: &Limits,
    toolkit: Toolkit,
    actions: &ActionCache,
) -> Result<Snapshot, BackendError> {
    let started = Instant::now();
    let _reading = READ.start();
    let caller = caller
        .with_deadline(started + limits.timeout)
        .with_progress();
    let mut w = Walk {
        nodes: HashMap::new(),
        cached_kids: HashMap::new(),
        truncated: None,
        unreadable: 0,
        stop: false,
        failed_calls: 0,
        deadline: started + limits.timeout,
    };
    tracing::debug!(bus = %root.bus, path = %root.path, toolkit = toolkit.as_str(), "read started");
    let mut fetched: HashMap<ObjRef, Vec<ObjRef>> = HashMap::new();
    let mut extras: HashMap<ObjRef, Extras> = HashMap::new();
    let mut failed: HashSet<ObjRef> = HashSet::new();
    let mut managed: ManagedKids = HashMap::new();
    if READ.wants_partials() {
        preview(&caller, root, toolkit, &mut w, &mut fetched).await;
        let pass = layout(&w, root, limits, &fetched, &extras, &failed, &managed);
        READ.set(pass.order.len());
        READ.publish(
            root.id(),
            build(
                &w,
                &pass,
                &extras,
                &managed,
                Some(Truncation::Reading),
                started,
            ),
        );
    }
    // Qt's bridge has no cache of the kind asked for (Qt 5.15 and 6.4 answer GetItems in an
    // older form, with no items): not asked, it is walked from the start.
    let cache = async {
        if toolkit.is_qt() {
            Err(BackendError::Unsupported("Qt has no Cache.GetItems".into()))
        } else {
            caller.cache_items(&root.bus).await
        }
    };
    let Some(cache) = unless_cancelled(cache).await else {
        return Ok(empty_snapshot(started, Truncation::Cancelled));
    };
    let cache_answered = match cache {
        Ok(items) => {
            let any = !items.is_empty();
            w.load_cache(items, toolkit);
            any
        }
        Err(BackendError::Timeout { .. }) => {
            return Ok(empty_snapshot(started, silence(w.deadline)));
        }
        Err(e @ BackendError::AppGone { .. }) => return Err(e),
        // Toolkits without the cache (or with the legacy signature) are walked instead.
        Err(e) => {
            tracing::debug!(bus = %root.bus, error = %e, "no cache; walking");
            false
        }
    };
    let t_cache = started.elapsed();
    let cached = w.nodes.len();
    if !w.nodes.contains_key(root) {
        match read_raw(&caller, root, toolkit).await {
            Ok(r) => {
                w.nodes.insert(root.clone(), r);
            }
            Err(BackendError::Timeout { .. }) => {
                return Ok(empty_snapshot(started, silence(w.deadline)));
            }
            Err(e) => return Err(e),
        }
    }

    // The root's children always come from the element itself: GTK 4's cache says its
    // application has none.
    if cache_answered && let Some(root_raw) = w.nodes.get(root).cloned() {
        let root_raw = RawNode {
            child_count: -1,
            ..root_raw
        };
        match list_counted(&caller, &root_raw).await {
            Ok((_, Some(k))) => {
                fetched.insert(root.clone(), k);
            }
            Ok((count, None)) => {
                if let Some(r) = w.nodes.get_mut(root) {
                    r.child_count = count;
                }
            }
            Err(BackendError::Timeout { .. }) => {
                return Ok(empty_snapshot(started, silence(w.deadline)));
            }
            Err(e @ BackendError::AppGone { .. }) => return Err(e),
            Err(e) => w.note_error(root, &e),
        }
    }
    // Only GTK 4 adds elements to its cache as they are referred to; elsewhere a discovery
    // round would be a round for nothing.
    let mut discovering = cache_answered && toolkit == Toolkit::Gtk4;
    let mut rounds = 0;
    let mut published = started;
    let mut published_nodes = 0usize;
    let pass = loop {
        let mut pass = layout(&w, root, limits, &fetched, &extras, &failed, &managed);
        READ.set(pass.order.len());
        if READ.cancelled() {
            w.stop = true;
            w.truncated = Some(Truncation::Cancelled);
        }

        if rounds == 0 && w.nodes.len() <= limits.max_nodes {
            // First round: everything the cache knows whose children or extras are missing,
            // reachable yet or not, so gaps below gaps do not cost a round each.
            let mut listed: HashSet<ObjRef> = pass.need_list.iter().cloned().collect();
            let mut extra: HashSet<ObjRef> = pass.need_extras.iter().cloned().collect();
            for (o, raw) in &w.nodes {
                if raw.child_count != 0
                    && w.kids_from_cache(o).is_none()
                    && matches!(listable(raw), Ok(_) | Err(Unlisted::CountUnknown))
                    && listed.insert(o.clone())
                {
                    pass.need_list.push(o.clone());
                }
                if needs_extras(raw, limits) && extra.insert(o.clone()) {
                    pass.need_extras.push(o.clone());
                }
            }
        }
        // While discovering, unknown elements only get their children listed; once nothing
        // below is undiscovered, the cache is asked again (when enough is missing).
        let undiscovered: Vec<ObjRef> = if discovering {
            pass.need_raw
                .iter()
                .filter(|o| !fetched.contains_key(*o))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        if discovering && undiscovered.is_empty() && pass.need_list.is_empty() {
            discovering = false;
            if pass.need_raw.len() >= REQUERY_MIN && !w.stop {
                match caller.cache_items(&root.bus).await {
                    Ok(items) => {
                        let mut fresh = Walk {
                            nodes: HashMap::new(),
                            cached_kids: HashMap::new(),
                            truncated: None,
                            unreadable: 0,
                            stop: false,
                            failed_calls: 0,
                            deadline: w.deadline,
                        };
                        fresh.load_cache(items, toolkit);
                        tracing::debug!(
                            missing = pass.need_raw.len(),
                            cached = fresh.nodes.len(),
                            "cache asked again"
                        );
                        w.nodes.extend(fresh.nodes);
                        w.cached_kids = fresh.cached_kids;
                    }
                    Err(e) => w.note_error(root, &e),
                }
                continue;
            }
        }
        let idle = pass.need_list.is_empty()
            && pass.need_raw.is_empty()
            && pass.need_extras.is_empty()
            && pass.need_managed.is_empty();
        if idle || w.stop {
            break pass;
        }
        // Another round follows: the inspector paints what is read so far, at most five
        // times a second.
        let grown = pass.order.len() >= published_nodes + published_nodes / 4 + 100;
        if READ.wants_partials() && grown && published.elapsed() >= PARTIAL_EVERY
            || READ.wants_partials() && pass.order.len() >= 2 * published_nodes + 100
        {
            published = Instant::now();
            published_nodes = pass.order.len();
            let partial = build(
                &w,
                &pass,
                &extras,
                &managed,
                Some(Truncation::Reading),
                started,
            );
            READ.publish(root.id(), partial);
        }
        rounds += 1;
        tracing::debug!(
            round = rounds,
            at_ms = started.elapsed().as_secs_f64() * 1000.0,
            lists = pass.need_list.len(),
            unknown = pass.need_raw.len(),
            discover = undiscovered.len(),
            extras = pass.need_extras.len(),
            managed = pass.need_managed.len(),
            "read round"
        );
        let known: Arc<Known> = Arc::new(
            w.nodes
                .iter()
                .map(|(o, r)| (o.clone(), (r.role, r.name.clone())))
                .collect(),
        );
        let mut jobs: Vec<(u8, ObjRef)> = Vec::new();
        jobs.extend(pass.need_list.iter().map(|o| (0u8, o.clone())));
        if discovering {
            jobs.extend(undiscovered.iter().map(|o| (0u8, o.clone())));
        } else {
            jobs.extend(pass.need_raw.iter().map(|o| (1u8, o.clone())));
        }
        jobs.extend(pass.need_extras.iter().map(|o| (2u8, o.clone())));
        let whys: HashMap<ObjRef, Unlisted> = pass.need_managed.iter().cloned().collect();
        jobs.extend(pass.need_managed.iter().map(|(o, _)| (3u8, o.clone())));
        let raws: HashMap<ObjRef, RawNode> = pass
            .need_extras
            .iter()
            .chain(&pass.need_list)
            .chain(whys.keys())
            .filter_map(|o| w.nodes.get(o).map(|r| (o.clone(), r.clone())))
            .collect();
        let raws = Arc::new(raws);
        let descent = Descent {
            toolkit,
            known: &known,
            limits,
            actions,
            budget: DESCENT
                .min(limits.max_nodes.saturating_sub(w.nodes.len()))
                .into(),
            gate: tokio::sync::Semaphore::new(IN_FLIGHT),
            halt: false.into(),
        };
        let descent = &descent;
        let answers: Vec<Answer> = stream::iter(jobs)
            // A cancelled read sends nothing more; what is in flight comes back.
            .take_while(|_| futures::future::ready(!READ.cancelled()))
            .map(|(kind, o)| {
                let c = caller.clone();
                let known = known.clone();
                let raws = raws.clone();
                let actions = actions.clone();
                let kids = fetched.get(&o).cloned();
                let why = whys.get(&o).copied();
                async move {
                    match kind {
                        0 => {
                            let r = match raws.get(&o) {
                                Some(raw) => list_counted(&c, raw).await,
                                None => discover(&c, &o).await,
                            };
                            Answer::List(o, r)
                        }
                        3 => {
                            let r = match (raws.get(&o), why) {
                                (Some(raw), Some(why)) => read_managed(&c, raw, why, toolkit).await,
                                _ => Err(BackendError::Failed("not read".into())),
                            };
                            Answer::Managed(o, r)
                        }
                        1 => Answer::Below(read_below(&c, o, kids, descent).await),
                        _ => {
                            let r = match raws.get(&o) {
                                Some(raw) => {
                                    read_extras(&c, raw, toolkit, &known, limits, &actions).await
                                }
                                None => Ok(Extras::default()),
                            };
                            Answer::Extras(o, r)
                        }
                    }
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        let answers = answers.into_iter().flat_map(|a| match a {
            Answer::Below(read) => read,
            a => vec![a],
        });
        for a in answers {
            match a {
                Answer::List(o, Ok((_, Some(k)))) => {
                    fetched.insert(o, k);
                }
                Answer::List(o, Ok((count, None))) => match w.nodes.get_mut(&o) {
                    // Now known not to be enumerated (or its count unreadable: unreadable).
                    Some(r) if count >= 0 => r.child_count = count,
                    Some(_) => {
                        w.unreadable += 1;
                        failed.insert(o);
                    }
                    // Not read yet (discovery): its own read decides.
                    None => {}
                },
                Answer::Managed(o, Ok((m, shown))) => {
                    let kids = shown.iter().map(|r| r.obj.clone()).collect();
                    for r in shown {
                        w.nodes.entry(r.obj.clone()).or_insert(r);
                    }
                    managed.insert(o, (m, kids));
                }
                Answer::Managed(o, Err(e)) => {
                    w.note_error(&o, &e);
                    failed.insert(o);
                }
                Answer::Raw(o, r) => match *r {
                    Ok((raw, kids, ex)) => {
                        w.nodes.insert(o.clone(), raw);
                        if let Some(kids) = kids {
                            fetched.insert(o.clone(), kids);
                        }
                        extras.insert(o, ex);
                    }
                    Err(e) => {
                        w.note_error(&o, &e);
                        failed.insert(o);
                    }
                },
                // Flattened above.
                Answer::Below(_) => {}
                Answer::Extras(o, Ok(ex)) => {
                    extras.insert(o, ex);
                }
                Answer::Extras(o, Err(e)) | Answer::List(o, Err(e)) => {
                    w.note_error(&o, &e);
                    failed.insert(o);
                }
            }
        }
    };
    let truncated = w.truncated.or(pass.truncated);
    let snap = build(&w, &pass, &extras, &managed, truncated, started);
    tracing::info!(
        bus = %root.bus,
        toolkit = toolkit.as_str(),
        nodes = snap.nodes.len(),
        cached,
        cache_ms = t_cache.as_secs_f64() * 1000.0,
        total_ms = started.elapsed().as_secs_f64() * 1000.0,
        rounds,
        failed_calls = w.failed_calls,
        unreadable = w.unreadable,
        truncated = truncated.map(|t| t.as_str()).unwrap_or("no"),
        "read finished"
    );
    Ok(snap)
}

/// The snapshot of what `pass` placed: the finished read's, or a partial one
/// (`Truncation::Reading`) while it goes on.
fn build(
    w: &Walk,
    pass: &Pass,
    extras: &HashMap<ObjRef, Extras>,
    managed: &ManagedKids,
    truncated: Option<Truncation>,
    started: Instant,
) -> Snapshot {
    let order: Vec<&ObjRef> = pass
        .order
        .iter()
        .filter(|o| w.nodes.contains_key(*o))
        .collect();
    let index_of: HashMap<&ObjRef, usize> =
        order.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    let mut nodes: Vec<Node> = order
        .iter()
        .map(|o| {
            let mut n = w
                .nodes
                .get(*o)
                .map(to_node)
                .unwrap_or_else(|| Node::new(o.id(), Role::Unknown, "unknown"));
            if let Some(ex) = extras.get(*o) {
                n.actions = ex.actions.iter().map(AppText::from).collect();
                n.value = ex.value.clone();
                n.label = ex.label.as_ref().map(AppText::from);
            }
            if let Some(k) = pass.kids.get(*o) {
                n.children = k.iter().filter_map(|k| index_of.get(k).copied()).collect();
            }
            if let Some((m, _)) = managed.get(*o) {
                n.managed = Some(Box::new(m.clone()));
            }
            n
        })
        .collect();
    let window = match nodes.first() {
        Some(n) if n.role != Role::Application => n.name.clone(),
        _ => AppText::default(),
    };
    let nodes = if nodes.is_empty() {
        nodes
    } else {
        preorder(std::mem::take(&mut nodes), 0)
    };
    Snapshot {
        id: SnapshotId::next(),
        app: AppText::default(),
        window,
        nodes,
        truncated,
        unreadable: w.unreadable,
        read_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}

/// Toolkits whose `Collection.GetMatches` narrows a target's candidates: every element they
/// expose is a real one (a page's DOM, the browser's own UI), so the ATK bridge's walk of the
/// whole subtree, which goes into elements that manage their descendants
/// (`Caller::matches_by_role`), is bounded by what the page holds. Not LibreOffice (its sheet
/// would make a billion cells), not Qt (no Collection interface), not GTK (tree views make
/// their rows on demand).
pub const NARROWS: &[Toolkit] = &[Toolkit::Chromium, Toolkit::Gecko];

/// The element as a target's resolution sees it: its fields, states and value, and its label
/// relation when `label` (no actions, bounds or children).
pub async fn read_candidate(
    c: &Caller,
    obj: &ObjRef,
    toolkit: Toolkit,
    label: bool,
) -> Result<Node, BackendError> {
    let raw = read_fields(c, obj, toolkit).await?;
    candidate_node(c, raw, toolkit, label).await
}

/// A candidate as [`read_candidate`] reads it, from its fields.
async fn candidate_node(
    c: &Caller,
    raw: RawNode,
    toolkit: Toolkit,
    label: bool,
) -> Result<Node, BackendError> {
    let obj = &raw.obj;
    let lab = async {
        if label && raw.role.is_interactive() {
            read_label(c, obj, None).await
        } else {
            Ok(None)
        }
    };
    let (value, lab) = tokio::join!(get_value(c, &raw, toolkit, None), lab);
    let mut n = to_node(&raw);
    n.value = value?;
    n.label = lab?.map(AppText::from);
    Ok(n)
}

/// Whether an element's interfaces change what a target's resolution sees of it: its value
/// ([`has_value`]) or its normalised states (`normalise_states`: text fields). A toggle's value
/// is its states, a choice's its selection, whatever it implements; any other role has a value
/// through its interfaces only when it is a text, number or progress bar, or says it is
/// editable.
fn interfaces_matter(role: Role, states: States) -> bool {
    !(role.is_toggle() || role.is_choice())
        && (role.is_text()
            || role.is_numeric()
            || role == Role::ProgressBar
            || role == Role::SpinButton
            || states.has(State::Editable))
}

/// [`read_candidate`] for an element `Collection.GetMatches` found by one AT-SPI `role` (so it
/// is not asked again): its states, name and description, its interfaces only where
/// [`interfaces_matter`] (otherwise left empty: a candidate serves resolution, which never
/// looks at them; the element it names is read whole on its path), then its value and label.
/// Three calls for a check box instead of five: on a big page the candidates' reads are most
/// of a narrowed `find`.
pub async fn read_match(
    c: &Caller,
    obj: &ObjRef,
    role: u32,
    toolkit: Toolkit,
    label: bool,
) -> Result<Node, BackendError> {
    let (role, raw_role) = role_of(role);
    let (states, name, description) = tokio::join!(c.state(obj), c.name(obj), c.description(obj));
    let mut states = states_of(&states?);
    let interfaces = if interfaces_matter(role, states) {
        interfaces_of(&c.interfaces(obj).await?)
    } else {
        Interfaces::EMPTY
    };
    normalise_states(toolkit, role, &mut states, interfaces);
    let raw = RawNode {
        obj: obj.clone(),
        child_count: -1,
        role,
        raw_role,
        name: field(name, obj, "Name")?,
        description: field(description, obj, "Description")?,
        states,
        interfaces,
    };
    candidate_node(c, raw, toolkit, label).await
}

/// Of the elements `Collection.GetMatches` found, those whose name is exactly `exact`
/// (`Target::name_is_exactly`), by one `Name` call each, in their order. A name the toolkit
/// refuses counts as empty, as a full read would take it. `None` when an element could not be
/// read at all (it vanished, the app is slow): the set would not be whole.
pub async fn named_exactly(
    c: &Caller,
    found: Vec<ObjRef>,
    exact: &str,
) -> Result<Option<Vec<ObjRef>>, BackendError> {
    let names: Vec<(ObjRef, Result<String, BackendError>)> = stream::iter(found)
        .map(|o| async move {
            let name = c.name(&o).await;
            let name = field(name, &o, "Name");
            (o, name)
        })
        .buffered(IN_FLIGHT)
        .collect()
        .await;
    let mut kept = Vec::new();
    for (o, name) in names {
        match name {
            Ok(n) if crate::selector::Target::name_is_exactly(&n, exact) => kept.push(o),
            Ok(_) => {}
            Err(e @ BackendError::AppGone { .. }) => return Err(e),
            Err(e) => {
                tracing::debug!(error = %e, "a candidate's name unreadable: reading the tree");
                return Ok(None);
            }
        }
    }
    Ok(Some(kept))
}

/// How fast the app answers each kind of call an element's read sends: for each kind, every
/// element of `objs` asked at once ([`IN_FLIGHT`] in flight), one kind at a time, in
/// microseconds per call. What a read that asks each element call by call (no cache) cannot
/// beat: the sum of these per element. For the benchmark.
pub async fn call_costs(c: &Caller, objs: &[ObjRef]) -> Vec<(&'static str, f64)> {
    async fn timed<F, Fut, T>(objs: &[ObjRef], f: F) -> f64
    where
        F: Fn(ObjRef) -> Fut,
        Fut: std::future::Future<Output = Result<T, BackendError>>,
    {
        let started = Instant::now();
        let _: Vec<_> = stream::iter(objs.iter().cloned().map(f))
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        started.elapsed().as_secs_f64() * 1e6 / objs.len().max(1) as f64
    }
    vec![
        (
            "GetRole",
            timed(objs, |o| async move { c.role(&o).await }).await,
        ),
        (
            "GetState",
            timed(objs, |o| async move { c.state(&o).await }).await,
        ),
        (
            "GetInterfaces",
            timed(objs, |o| async move { c.interfaces(&o).await }).await,
        ),
        (
            "Name",
            timed(objs, |o| async move { c.name(&o).await }).await,
        ),
        (
            "Description",
            timed(objs, |o| async move { c.description(&o).await }).await,
        ),
        (
            "ChildCount",
            timed(objs, |o| async move { c.child_count(&o).await }).await,
        ),
    ]
}

/// The elements from `root` down to `obj`: `root` first, `obj` last, each read by
/// [`read_candidate`]. Fails when `obj` is not under `root` (within 256 levels).
pub async fn path_to(
    c: &Caller,
    root: &ObjRef,
    obj: &ObjRef,
    toolkit: Toolkit,
    label: bool,
) -> Result<Vec<Node>, BackendError> {
    let mut chain = vec![obj.clone()];
    while chain.last() != Some(root) {
        if chain.len() > 256 {
            return Err(BackendError::Failed(
                "the element is not under the window".into(),
            ));
        }
        let up = c.parent(chain.last().unwrap_or(root)).await?;
        if up.is_null() {
            return Err(BackendError::Failed(
                "the element is not under the window".into(),
            ));
        }
        chain.push(up);
    }
    chain.reverse();
    let nodes =
        futures::future::join_all(chain.iter().map(|o| read_candidate(c, o, toolkit, label))).await;
    nodes.into_iter().collect()
}

/// How deep and how big the inspector's first paint is (see [`preview`]).
const PREVIEW_DEPTH: usize = 4;
const PREVIEW_NODES: usize = 200;

/// The inspector's first paint: the top levels under `root`, read element by element, before
/// the cache call, which takes seconds on a big page and which a toolkit answering on one
/// thread (Chromium) would answer first. Bounded by [`PREVIEW_DEPTH`] and [`PREVIEW_NODES`];
/// what it reads stays in the walk. Any failure ends it quietly: the read proper decides.
async fn preview(
    c: &Caller,
    root: &ObjRef,
    toolkit: Toolkit,
    w: &mut Walk,
    fetched: &mut HashMap<ObjRef, Vec<ObjRef>>,
) {
    let mut level = vec![root.clone()];
    for depth in 0..PREVIEW_DEPTH {
        let last = depth + 1 == PREVIEW_DEPTH;
        let read = futures::future::join_all(level.iter().map(|o| async move {
            let raw = read_raw(c, o, toolkit).await?;
            let kids = if last { None } else { list(c, &raw).await? };
            Ok::<_, BackendError>((raw, kids))
        }))
        .await;
        let mut next = Vec::new();
        for (o, r) in level.iter().zip(read) {
            let Ok((raw, kids)) = r else {
                return;
            };
            w.nodes.insert(o.clone(), raw);
            if let Some(k) = kids {
                next.extend(k.iter().cloned());
                fetched.insert(o.clone(), k);
            }
        }
        next.truncate(PREVIEW_NODES.saturating_sub(w.nodes.len()));
        if next.is_empty() {
            return;
        }
        level = next;
    }
}

/// `fut`'s answer, or `None` as soon as the reads are cancelled (`progress::READ`): a long
/// call (a big page's cache takes seconds) is not waited for.
async fn unless_cancelled<T>(fut: impl std::future::Future<Output = T>) -> Option<T> {
    tokio::pin!(fut);
    loop {
        tokio::select! {
            r = &mut fut => return Some(r),
            _ = tokio::time::sleep(Duration::from_millis(50)) => {
                if READ.cancelled() {
                    return None;
                }
            }
        }
    }
}

fn empty_snapshot(started: Instant, why: Truncation) -> Snapshot {
    Snapshot {
        id: SnapshotId::next(),
        app: AppText::default(),
        window: AppText::default(),
        nodes: Vec::new(),
        truncated: Some(why),
        unreadable: 0,
        read_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}
