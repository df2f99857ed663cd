//! What `audit` reads of a window beyond its snapshot ([`crate::audit::Facts`]), for the
//! elements on screen only, with calls libatspi itself sends (see `calls/` for each):
//!
//! - `Component.GetExtents` of every element on screen with the Component interface;
//! - `GetIndexInParent` of every element on screen whose parent was listed (not one that
//!   manages its descendants), and `GetChildAtIndex` of that index on the parent;
//! - `GetRelationSet` of every interactive element, label and radio button on screen, then of
//!   the elements their label relations point to; `GetAttributes` of radio buttons, and of
//!   the named buttons, images and cells of a page (where the engine says a name comes from)
//!   and its unnamed alerts, frames and embedded objects (their ARIA role);
//! - `Text.CharacterCount` of unnamed leaves of content (a heading, a paragraph, a header that
//!   keep their words in their Text interface);
//! - for a table on screen: its size, then `GetIndexAt`, `GetRowAtIndex` and
//!   `GetColumnAtIndex` for its first 4 × 4 cells (and `GetAccessibleAt` of both places to
//!   tell a spanning cell from a mismatch).
//!
//! Nothing here lists children. An element that fails a call (the toolkit says no, or it
//! vanished) is left out of what that call judges; an app that stops answering or leaves ends
//! the read with that error.

use futures::StreamExt;

use super::bus::ObjRef;
use super::calls::{Caller, Coords, Listable};
use crate::audit::facts::{CellMismatch, Facts, IndexMismatch, Related, Relations, TableCheck};
use crate::backend::BackendError;
use crate::model::{Bounds, FastMap, Interface, Node, Role, Snapshot, State};

/// Calls in flight at once: what a round of the tree read keeps in flight.
const IN_FLIGHT: usize = 64;

/// How many rows and columns of each table are sampled.
const TABLE_SAMPLE: i32 = 4;

/// Whether an error ends the read (the app is hung or gone) rather than costing one element.
fn fatal(e: &BackendError) -> bool {
    matches!(
        e,
        BackendError::Timeout { .. }
            | BackendError::AppGone { .. }
            | BackendError::NotResponding { .. }
    )
}

/// Runs `f` on every item, [`IN_FLIGHT`] at a time: the answers in item order, `None` for an
/// element that failed; the first fatal error ends it.
async fn each<T, R, F, Fut>(
    items: Vec<T>,
    f: F,
    unreadable: &mut usize,
) -> Result<Vec<(T, R)>, BackendError>
where
    T: Clone,
    F: Fn(T) -> Fut,
    Fut: std::future::Future<Output = Result<R, BackendError>>,
{
    let answers: Vec<(T, Result<R, BackendError>)> = futures::stream::iter(items)
        .map(|t| {
            let fut = f(t.clone());
            async move { (t, fut.await) }
        })
        .buffered(IN_FLIGHT)
        .collect()
        .await;
    let mut out = Vec::with_capacity(answers.len());
    for (t, r) in answers {
        match r {
            Ok(v) => out.push((t, v)),
            Err(e) if fatal(&e) => return Err(e),
            Err(e) => {
                tracing::debug!(error = %e, "audit fact unreadable");
                *unreadable += 1;
            }
        }
    }
    Ok(out)
}

/// Reads the facts of `snap`'s elements that are on screen (`on_screen`: `showing`, or
/// `visible` where the toolkit never says `showing`); bounds in the coordinates the app's
/// toolkit answers right (`coords`: all in one frame, which is what the rules compare).
pub async fn read(
    c: &Caller,
    snap: &Snapshot,
    on_screen: State,
    coords: Coords,
) -> Result<Facts, BackendError> {
    let nodes = &snap.nodes;
    let shown: Vec<usize> = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.states.has(on_screen) && n.role != Role::Application)
        .filter(|(row, _)| ObjRef::from_id(&nodes[*row].id).is_ok())
        .map(|(row, _)| row)
        .collect();
    let on = OnScreen {
        c,
        coords,
        nodes,
        shown,
        rows: snap.rows_by_id(),
    };
    let mut facts = Facts::of(snap.id);
    let mut unreadable = 0;
    facts.bounds = Some(on.bounds(&mut unreadable).await?);
    facts.index = Some(on.index(&mut unreadable).await?);
    facts.relations = Some(on.relations(&mut unreadable).await?);
    facts.tables = Some(on.tables(&mut unreadable).await?);
    facts.name_from = Some(on.name_from(on_screen, &mut unreadable).await?);
    facts.text_chars = Some(on.text_chars(&mut unreadable).await?);
    facts.unreadable = unreadable;
    Ok(facts)
}

/// The elements of a snapshot that are on screen, and what reads their facts: one method per
/// fact, each counting in `unreadable` the elements whose calls failed.
struct OnScreen<'a> {
    c: &'a Caller,
    coords: Coords,
    nodes: &'a [Node],
    /// The rows on screen (not the application) that name an element.
    shown: Vec<usize>,
    rows: FastMap<&'a crate::model::NodeId, usize>,
}

impl OnScreen<'_> {
    /// The element of `row`, when its id names one.
    fn obj(&self, row: usize) -> Option<ObjRef> {
        ObjRef::from_id(&self.nodes[row].id).ok()
    }

    /// Where a relation's target is: its row in the snapshot, or elsewhere.
    fn related(&self, t: &ObjRef) -> Related {
        match self.rows.get(&t.id()) {
            Some(&row) => Related::Row(row),
            None => Related::Elsewhere,
        }
    }

    /// The rows on screen that `keep` keeps.
    fn shown_where(&self, keep: impl Fn(&Node) -> bool) -> Vec<usize> {
        self.shown
            .iter()
            .copied()
            .filter(|&r| keep(&self.nodes[r]))
            .collect()
    }

    /// Bounds of the elements with the Component interface.
    async fn bounds(&self, unreadable: &mut usize) -> Result<FastMap<usize, Bounds>, BackendError> {
        let c = self.c;
        let with_component = self.shown_where(|n| n.interfaces.has(Interface::Component));
        let extents = each(
            with_component,
            |r| {
                let o = self.obj(r);
                let coords = self.coords;
                async move { c.extents(o.as_ref().expect("filtered"), coords).await }
            },
            unreadable,
        )
        .await?;
        // ATK's "extents not known" (Gecko answers it for what it has not laid out): no bounds.
        Ok(extents
            .into_iter()
            .filter(|(_, e)| *e != (-1, -1, -1, -1))
            .map(|(r, (x, y, width, height))| {
                (
                    r,
                    Bounds {
                        x,
                        y,
                        width,
                        height,
                    },
                )
            })
            .collect())
    }

    /// Index in parent: the parent's child at the index the element reports must be the
    /// element (Accerciser's `ParentChildIndexMatch`). Asked of the parent, not compared with
    /// the snapshot's order: where the cache gave the children, that order is the elements'
    /// own indexes.
    async fn index(
        &self,
        unreadable: &mut usize,
    ) -> Result<FastMap<usize, IndexMismatch>, BackendError> {
        let (c, nodes) = (self.c, self.nodes);
        let listed = |n: &Node| n.managed.is_none() && !n.states.has(State::ManagesDescendants);
        let placed: Vec<(usize, usize)> = self
            .shown
            .iter()
            .filter_map(|&r| {
                let p = nodes[r].parent?;
                let parent = nodes.get(p)?;
                (listed(parent) && self.obj(p).is_some()).then_some((r, p))
            })
            .collect();
        let asked = each(
            placed,
            |(r, p)| {
                let (o, po, count) = (self.obj(r), self.obj(p), nodes[p].children.len());
                async move {
                    let (o, po) = (o.expect("filtered"), po.expect("filtered"));
                    let i = c.index_in_parent(&o).await?;
                    let Ok(list) = Listable::check(&po, false, count as i32) else {
                        return Ok(None);
                    };
                    let at = if i < 0 {
                        None
                    } else {
                        c.child_at_index(&list, i).await?
                    };
                    Ok((at.as_ref() != Some(&o)).then_some((i, at)))
                }
            },
            unreadable,
        )
        .await?;
        Ok(asked
            .into_iter()
            .filter_map(|((r, p), wrong)| {
                let (reported, at) = wrong?;
                Some((
                    r,
                    IndexMismatch {
                        reported,
                        there: at.as_ref().map(|t| self.related(t)),
                        siblings: nodes[p].children.len(),
                    },
                ))
            })
            .collect())
    }

    /// Relations: interactive elements, labels and radio buttons, then what their labels name.
    async fn relations(
        &self,
        unreadable: &mut usize,
    ) -> Result<FastMap<usize, Relations>, BackendError> {
        let (c, nodes) = (self.c, self.nodes);
        let radio = |n: &Node| matches!(n.role, Role::RadioButton | Role::RadioMenuItem);
        let first =
            self.shown_where(|n| crate::audit::interactive(n) || n.role == Role::Label || radio(n));
        let mut relations: FastMap<usize, Relations> = FastMap::default();
        let mut round = first;
        for _ in 0..2 {
            let read = each(
                round,
                |r| {
                    let o = self.obj(r);
                    let wants_set = radio(&nodes[r]);
                    async move {
                        let o = o.expect("filtered");
                        let rels = c.relations(&o).await?;
                        let in_set = if wants_set {
                            match c.attributes(&o).await {
                                Ok(a) => a.contains_key("posinset"),
                                Err(e) if fatal(&e) => return Err(e),
                                Err(_) => false,
                            }
                        } else {
                            false
                        };
                        Ok((o, rels, in_set))
                    }
                },
                unreadable,
            )
            .await?;
            for (r, (o, rels, in_set)) in read {
                let mut out = Relations {
                    in_set,
                    ..Relations::default()
                };
                for (kind, targets) in rels {
                    let list = match kind {
                        RELATION_LABEL_FOR => &mut out.label_for,
                        RELATION_LABELLED_BY => &mut out.labelled_by,
                        RELATION_MEMBER_OF => &mut out.member_of,
                        _ => continue,
                    };
                    list.extend(targets.iter().filter(|t| **t != o).map(|t| self.related(t)));
                }
                relations.insert(r, out);
            }
            // The elements the label relations point to, read next so both ends can be judged.
            let mut next: Vec<usize> = relations
                .values()
                .flat_map(|r| r.labelled_by.iter().chain(&r.label_for))
                .filter_map(|t| match t {
                    Related::Row(row) => Some(*row),
                    Related::Elsewhere => None,
                })
                .filter(|row| !relations.contains_key(row) && self.obj(*row).is_some())
                .collect();
            next.sort_unstable();
            next.dedup();
            if next.is_empty() {
                break;
            }
            round = next;
        }
        Ok(relations)
    }

    /// Tables: the first cells' numbering, both ways.
    async fn tables(
        &self,
        unreadable: &mut usize,
    ) -> Result<FastMap<usize, TableCheck>, BackendError> {
        let c = self.c;
        let tables = self.shown_where(|n| n.interfaces.has(Interface::Table));
        let checked = each(
            tables,
            |r| {
                let o = self.obj(r);
                async move { check_table(c, &o.expect("filtered")).await }
            },
            unreadable,
        )
        .await?;
        Ok(checked.into_iter().collect())
    }

    /// Where a web engine says a name comes from: named buttons, images and cells in a page
    /// (an image button's default name, "Submit", is the browser's, not the page's); and the
    /// ARIA role of an unnamed alert (Gecko's ARIA alert, a live region, and Chromium's alert
    /// dialog are both AT-SPI `alert`), frame or embedded object (a finding says when the page
    /// made it presentational and the engine shows it anyway), and the tag of an unnamed
    /// `static` (an `img`).
    async fn name_from(
        &self,
        on_screen: State,
        unreadable: &mut usize,
    ) -> Result<FastMap<usize, crate::audit::facts::NameFrom>, BackendError> {
        let (c, nodes) = (self.c, self.nodes);
        let in_document = crate::audit::in_pages(nodes);
        // Unnamed ones are few: asked wherever the page renders them (the name rules judge them
        // there), not only on screen (Gecko shows an image whose alt text is a space as a
        // zero-size `static`).
        let unnamed_kinds = ["alert", "internal frame", "embedded", "static"];
        let named: Vec<usize> = (0..nodes.len())
            .filter(|&r| {
                let n = &nodes[r];
                let on = n.states.has(on_screen);
                in_document[r]
                    && (on
                        && !n.name.is_empty()
                        && matches!(n.role, Role::Button | Role::Image | Role::TableCell)
                        || (on || n.states.has(State::Visible))
                            && n.name.as_str().trim().is_empty()
                            && unnamed_kinds
                                .iter()
                                .any(|k| n.raw_role.eq_ignore_ascii_case(k)))
                    && self.obj(r).is_some()
            })
            .collect();
        let attrs = each(
            named,
            |r| {
                let o = self.obj(r);
                async move { c.attributes(&o.expect("filtered")).await }
            },
            unreadable,
        )
        .await?;
        Ok(attrs
            .into_iter()
            .map(|(r, a)| (r, crate::audit::facts::NameFrom::of(&a)))
            .collect())
    }

    /// The characters of unnamed leaves of content (Gecko keeps a heading's or a paragraph's
    /// words in its Text interface): whether their words name them and what holds them.
    async fn text_chars(
        &self,
        unreadable: &mut usize,
    ) -> Result<FastMap<usize, i32>, BackendError> {
        let c = self.c;
        let leaves = self.shown_where(crate::audit::names_text_leaf);
        let counted = each(
            leaves,
            |r| {
                let o = self.obj(r);
                async move { c.character_count(&o.expect("filtered")).await }
            },
            unreadable,
        )
        .await?;
        Ok(counted.into_iter().collect())
    }
}

/// AT-SPI relation types (`AtspiRelationType`).
const RELATION_LABEL_FOR: u32 = 1;
const RELATION_LABELLED_BY: u32 = 2;
const RELATION_MEMBER_OF: u32 = 5;

/// Samples a table's first [`TABLE_SAMPLE`] × [`TABLE_SAMPLE`] cells: the index of each, and
/// the row and column that index leads back to. A cell that spans the place it leads back to
/// (the same element at both) is no mismatch.
async fn check_table(c: &Caller, t: &ObjRef) -> Result<TableCheck, BackendError> {
    let (rows, cols) = c.table_size(t).await?;
    let mut check = TableCheck::default();
    for row in 0..rows.clamp(0, TABLE_SAMPLE) {
        for col in 0..cols.clamp(0, TABLE_SAMPLE) {
            let index = c.table_index_at(t, row, col).await?;
            if index < 0 {
                continue;
            }
            check.sampled += 1;
            let back = c.table_position(t, index).await?;
            if back == (row, col) {
                continue;
            }
            let (here, there) =
                tokio::join!(c.table_cell(t, row, col), c.table_cell(t, back.0, back.1));
            let (here, there) = (here?, there?);
            if here.is_some() && here == there {
                continue;
            }
            check.mismatches.push(CellMismatch {
                row,
                col,
                index,
                back,
            });
        }
    }
    Ok(check)
}
