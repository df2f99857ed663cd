//! What an audit reads of a window beyond its snapshot: bounds, how each element's parent
//! lists it, relations, tables. One call or a few per showing element, so only `audit` asks
//! for them ([`crate::backend::Backend::audit_facts`]), after the snapshot, for the elements
//! the rules judge. Keyed by the snapshot's rows; data only.

use crate::model::{Bounds, FastMap as HashMap, NodeId, Snapshot, SnapshotId};

/// An element a relation points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Related {
    /// An element of the snapshot (its row).
    Row(usize),
    /// An element the snapshot does not hold (elsewhere in the app, or not read).
    Elsewhere,
}

/// The relations an audit judges, of one element (AT-SPI `labelled-by`, `label-for`,
/// `member-of`; the element itself left out of its own lists).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Relations {
    pub labelled_by: Vec<Related>,
    pub label_for: Vec<Related>,
    pub member_of: Vec<Related>,
    /// It has a set position (`posinset` object attribute): it says where it is in a set
    /// without a `member-of` relation. Read for radio buttons only.
    pub in_set: bool,
}

/// An element whose own index in its parent does not lead back to it: the parent's child at
/// that index is another element, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexMismatch {
    /// What the element says (`GetIndexInParent`).
    pub reported: i32,
    /// What the parent has at that index (`None`: nothing).
    pub there: Option<Related>,
    /// How many children the snapshot has of the parent.
    pub siblings: usize,
}

/// A cell of a table whose index does not lead back to it: `GetIndexAt(row, col)` is `index`,
/// and the table says that index is at `back` (row, column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellMismatch {
    pub row: i32,
    pub col: i32,
    pub index: i32,
    pub back: (i32, i32),
}

/// The tables checked and what disagreed, by the table's row.
#[derive(Debug, Clone, Default)]
pub struct TableCheck {
    /// How many (row, column) pairs were asked.
    pub sampled: usize,
    pub mismatches: Vec<CellMismatch>,
}

/// Everything an audit read beyond one snapshot. Each part is `None` when it was not read
/// (the backend cannot, or the reads failed), and the rules that need it are then not
/// evaluated.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The snapshot these rows belong to: facts of another snapshot are never used.
    pub snapshot: Option<SnapshotId>,
    /// Bounds of the elements on screen, by row.
    pub bounds: Option<HashMap<usize, Bounds>>,
    /// The elements on screen whose index in parent does not lead back to them, by row.
    pub index: Option<HashMap<usize, IndexMismatch>>,
    /// Relations of the elements read (on screen: every interactive element, label and radio
    /// button, and the elements their label relations point to), by row.
    pub relations: Option<HashMap<usize, Relations>>,
    /// The tables on screen, by row.
    pub tables: Option<HashMap<usize, TableCheck>>,
    /// Where a web engine says the names of named buttons, images and cells on screen in a
    /// page come from, and what ARIA role the page gave its unnamed alerts, by row.
    pub name_from: Option<HashMap<usize, NameFrom>>,
    /// How many characters the unnamed leaves of content on screen hold in their Text
    /// interface (a heading, a paragraph, a header), by row: whether their words name them.
    pub text_chars: Option<HashMap<usize, i32>>,
    /// How many reads failed (the toolkit said no, or the element vanished), each costing one
    /// element one fact: it is not judged by the rules that need it.
    pub unreadable: usize,
}

impl Facts {
    /// Facts read for `snapshot`.
    pub fn of(snapshot: SnapshotId) -> Facts {
        Facts {
            snapshot: Some(snapshot),
            ..Facts::default()
        }
    }
}

/// Where a web engine says an element's name comes from: its object attributes `name-from`
/// (Chromium: `attribute`, `contents`, `value`, `related-element`, `tooltip`, …; Gecko does
/// not say), `explicit-name` (both engines: the page named it), `tag` and `xml-roles`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameFrom {
    pub from: Option<String>,
    pub explicit: bool,
    pub tag: Option<String>,
    /// The ARIA role the page gave (`xml-roles`): both engines say it.
    pub xml_roles: Option<String>,
}

impl NameFrom {
    /// From an element's object attributes.
    pub fn of(attrs: &std::collections::HashMap<String, String>) -> NameFrom {
        NameFrom {
            from: attrs.get("name-from").cloned(),
            explicit: attrs.get("explicit-name").is_some_and(|v| v == "true"),
            tag: attrs.get("tag").cloned(),
            xml_roles: attrs.get("xml-roles").cloned(),
        }
    }
}

/// Facts read on one snapshot, carried to the later states of the same window (the inspector
/// patches its tree from events; rows move, elements keep their ids): each fact follows its
/// element, and elements added since have none.
#[derive(Debug, Clone)]
pub struct Carried {
    /// The element of each row of the snapshot the facts were read on.
    ids: Vec<NodeId>,
    facts: Facts,
}

impl Carried {
    pub fn new(snap: &Snapshot, facts: Facts) -> Carried {
        Carried {
            ids: snap.nodes.iter().map(|n| n.id.clone()).collect(),
            facts,
        }
    }

    /// The facts on `snap`'s rows.
    pub fn on(&self, snap: &Snapshot) -> Facts {
        let rows = snap.rows_by_id();
        let row = |old: usize| self.ids.get(old).and_then(|id| rows.get(id).copied());
        let related = |t: &Related| match t {
            Related::Row(r) => row(*r).map_or(Related::Elsewhere, Related::Row),
            Related::Elsewhere => Related::Elsewhere,
        };
        fn moved<T: Clone>(
            m: &Option<HashMap<usize, T>>,
            row: impl Fn(usize) -> Option<usize>,
            f: impl Fn(&T) -> T,
        ) -> Option<HashMap<usize, T>> {
            m.as_ref().map(|m| {
                m.iter()
                    .filter_map(|(&r, v)| Some((row(r)?, f(v))))
                    .collect()
            })
        }
        Facts {
            snapshot: Some(snap.id),
            bounds: moved(&self.facts.bounds, row, |b| *b),
            index: moved(&self.facts.index, row, |m| IndexMismatch {
                there: m.there.as_ref().map(related),
                ..*m
            }),
            relations: moved(&self.facts.relations, row, |r| Relations {
                labelled_by: r.labelled_by.iter().map(related).collect(),
                label_for: r.label_for.iter().map(related).collect(),
                member_of: r.member_of.iter().map(related).collect(),
                in_set: r.in_set,
            }),
            tables: moved(&self.facts.tables, row, Clone::clone),
            name_from: moved(&self.facts.name_from, row, Clone::clone),
            text_chars: moved(&self.facts.text_chars, row, |c| *c),
            unreadable: self.facts.unreadable,
        }
    }
}
