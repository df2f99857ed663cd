//! The target suggested for each node, with its grade, as printed beside it.

use super::*;

/// A node's suggested target with its grade, as printed beside the node.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggested {
    pub target: String,
    pub grade: Grade,
}

impl Suggested {
    pub fn of(t: &Target) -> Suggested {
        Suggested {
            target: t.to_string(),
            grade: t.grade(),
        }
    }

    /// `{"target": …, "grade": …}`.
    pub fn json(&self) -> Json {
        serde_json::json!({ "target": self.target, "grade": self.grade })
    }

    /// `⇒ target  (grade)`.
    pub fn text(&self) -> String {
        format!("⇒ {}  ({})", self.target, self.grade)
    }
}

/// Every node's suggested target and grade, by row (`None` where there is none).
pub fn suggested_all(snap: &Snapshot) -> Vec<Option<Suggested>> {
    crate::selector::suggest_all(snap)
        .iter()
        .map(|t| t.as_ref().map(Suggested::of))
        .collect()
}

/// The suggestions of some rows of one snapshot, sharing one index.
pub fn suggestions_for(
    snap: &Snapshot,
    rows: impl IntoIterator<Item = usize>,
) -> Vec<(usize, Suggested)> {
    let ix = SnapshotIndex::new(snap);
    rows.into_iter()
        .filter_map(|row| suggest_with(&ix, snap, row).map(|t| (row, Suggested::of(&t))))
        .collect()
}
