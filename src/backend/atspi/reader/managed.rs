//! Elements that manage their descendants (a spreadsheet's sheet, Qt's item views): never
//! listed; their visible descendants found by position instead, bounded.

use super::*;

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
pub(super) async fn table_cells(
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
pub(super) async fn visible_run(
    c: &Caller,
    table: &ObjRef,
    cells: impl Iterator<Item = (i32, i32)>,
    coords: Coords,
    inside: &impl Fn(Option<(i32, i32, i32, i32)>) -> bool,
) -> Result<i32, BackendError> {
    let seen = futures::future::join_all(cells.map(|(r, k)| async move {
        let Some(cell) = soft(c.table_cell(table, r, k).await, table, "GetAccessibleAt")?.flatten()
        else {
            return Ok(false);
        };
        Ok::<_, BackendError>(inside(soft(
            c.extents(&cell, coords).await,
            &cell,
            "GetExtents",
        )?))
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
pub(super) const MANAGED_SHOWN: usize = 200;
/// The most columns of such a table read in one row.
pub(super) const MANAGED_COLUMNS: i32 = 40;
/// The most points asked down an element that is not a table, and the step between points
/// that hit nothing.
pub(super) const MANAGED_PROBES: usize = 400;
pub(super) const PROBE_STEP: i32 = 12;

/// What a person can see of an element whose children are not enumerated (it manages its
/// descendants, or says it has more than `LIST_MAX`): its size as it reports it and the
/// descendants on screen, found the way Orca and Accerciser find them — for a table, the cell
/// at its top-left corner (`Component.GetAccessibleAtPoint`) and the cells right of and below
/// it (`Table.GetAccessibleAt`) while they lie inside the element's bounds; for anything else,
/// the descendant at each point down its middle. At most
/// [`MANAGED_SHOWN`] descendants, each read like any element but never listed itself.
pub(super) async fn read_managed(
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
    // GTK 4 answers SCREEN coordinates wrong (4.18: every element at (0, 0)), so a point asked
    // in them finds nothing: the toolkit's own coordinates, for the bounds and the points.
    let coords = Coords::of(toolkit);
    let Some((x, y, w, h)) = soft(c.extents(o, coords).await, o, "GetExtents")? else {
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
        soft(
            c.accessible_at_point(o, x + 1, y + 1, coords).await,
            o,
            "AtPoint",
        )?
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
        let cols = visible_run(c, o, (0..cols).map(|k| (r0, c0 + k)), coords, &inside)
            .await?
            .max(1);
        let rows = (MANAGED_SHOWN as i32 / cols).max(1).min(left(m.rows, r0));
        let rows = visible_run(c, o, (0..rows).map(|r| (r0 + r, c0)), coords, &inside).await?;
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
            let at = soft(c.accessible_at_point(o, px, py, coords).await, o, "AtPoint")?
                .flatten()
                .filter(|d| d != o && !found.contains(d));
            let Some(at) = at else {
                py += PROBE_STEP;
                continue;
            };
            let e = soft(c.extents(&at, coords).await, &at, "GetExtents")?;
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
