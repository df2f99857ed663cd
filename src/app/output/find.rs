//! A resolution (`find`): its rows, its JSON, its text with candidates and what a wait did.

use super::*;

fn candidate_lines(out: &mut String, cands: &[Candidate], suggested: &[(usize, Suggested)]) {
    for c in cands {
        let hidden = if c.hidden { "; hidden" } else { "" };
        let target = suggested
            .iter()
            .find(|(row, _)| *row == c.row)
            .map(|(_, s)| format!("  {}", s.text()))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {}  {}  ({}{hidden}){target}\n",
            c.token, c.path, c.why
        ));
    }
}

/// The rows a resolution names: its element, candidates and near misses.
pub fn resolution_rows(r: &Resolution) -> Vec<usize> {
    match r {
        Resolution::Unique { row, .. } => vec![*row],
        Resolution::Ambiguous { candidates, .. } => candidates.iter().map(|c| c.row).collect(),
        Resolution::NotFound { near_misses, .. } => near_misses.iter().map(|c| c.row).collect(),
        Resolution::Incomplete {
            candidates,
            near_misses,
            ..
        } => candidates
            .iter()
            .chain(near_misses)
            .map(|c| c.row)
            .collect(),
    }
}

/// A resolution's JSON with the suggested target and grade of its element (`suggestion`) and
/// of each candidate and near miss.
pub fn resolution_json(r: &Resolution, snap: &Snapshot) -> Json {
    let suggested = suggestions_for(snap, resolution_rows(r));
    let find = |row: &Json| {
        row.as_u64()
            .and_then(|row| suggested.iter().find(|(r, _)| *r as u64 == row))
            .map_or(Json::Null, |(_, s)| s.json())
    };
    let mut v = serde_json::to_value(r).unwrap_or_default();
    if let Resolution::Unique { .. } = r {
        v["suggestion"] = find(&v["row"]);
    }
    for list in ["candidates", "near_misses"] {
        if let Some(items) = v.get_mut(list).and_then(Json::as_array_mut) {
            for item in items {
                item["suggestion"] = find(&item["row"]);
            }
        }
    }
    // Elements whose off-screen descendants were not searched (only their visible ones).
    let managed = managed_rows(snap);
    if !managed.is_empty() {
        v["not_searched"] = managed
            .iter()
            .map(|&row| {
                serde_json::json!({
                    "token": snap.token(row).to_string(),
                    "path": snap.path_string(row),
                    "managed": snap.nodes[row].managed,
                })
            })
            .collect();
    }
    v
}

/// Human form of a resolution, as the command line words it.
pub fn resolution_text(target: &Target, fresh: &Fresh) -> String {
    resolution_text_with(target, fresh, "--wait-ms MS")
}

/// Human form of a resolution; `wait_option` is how the front end asks for a wait (the command
/// line's `--wait-ms MS`, MCP's `wait_ms`).
pub fn resolution_text_with(target: &Target, fresh: &Fresh, wait_option: &str) -> String {
    let mut out = String::new();
    let t = target.to_string();
    // A narrowed snapshot holds the element's path alone: nothing suggested from it would be
    // unique for the window.
    let suggested = match fresh.narrowed {
        Some(_) => Vec::new(),
        None => suggestions_for(&fresh.snapshot, resolution_rows(&fresh.resolution)),
    };
    match &fresh.resolution {
        Resolution::Unique {
            row,
            token,
            why,
            path,
            ..
        } => {
            out.push_str(&format!("unique: {token} (row {row})  {path}  ({why})\n"));
            if let Some((_, s)) = suggested.first() {
                out.push_str(&format!("suggested target: {}  ({})\n", s.target, s.grade));
            }
            if let Some(n) = fresh.narrowed {
                out.push_str(&format!(
                    "searched: {} the application found for the role (Collection); the tree \
                     was not read\n",
                    if n == 1 {
                        "1 element".to_string()
                    } else {
                        format!("{} elements", crate::model::group_digits(n as i64))
                    }
                ));
            }
        }
        Resolution::Ambiguous { count, candidates } => {
            out.push_str(&format!(
                "ambiguous: {count} elements match {t}; candidates:\n"
            ));
            candidate_lines(&mut out, candidates, &suggested);
        }
        Resolution::NotFound {
            count,
            near_misses,
            fuzzy_only,
        } => {
            let after = waited(fresh, wait_option);
            if *fuzzy_only {
                out.push_str(&format!(
                    "not found: nothing matches {t} exactly or as a substring ({after}); a \
                     write never goes to a fuzzy match — name one of these exactly:\n"
                ));
                candidate_lines(&mut out, near_misses, &suggested);
                out.push_str(&managed_note(&fresh.snapshot));
                return out;
            }
            if *count > 0 {
                out.push_str(&format!(
                    "not found: {t} asks for #{}, but only {count} element{} match without the \
                     position ({after})\n",
                    target.nth().unwrap_or(0),
                    if *count == 1 { "" } else { "s" },
                ));
            } else {
                out.push_str(&format!("not found: nothing matches {t} ({after})\n"));
            }
            if !near_misses.is_empty() {
                out.push_str(if *count > 0 {
                    "matches:\n"
                } else {
                    "closest:\n"
                });
                candidate_lines(&mut out, near_misses, &suggested);
            }
        }
        Resolution::Incomplete {
            count,
            candidates,
            near_misses,
            reason,
        } => {
            out.push_str(&format!(
                "incomplete tree ({reason}): {count} matches in what was read; uniqueness cannot be claimed\n"
            ));
            candidate_lines(&mut out, candidates, &suggested);
            if !near_misses.is_empty() {
                out.push_str("closest:\n");
                candidate_lines(&mut out, near_misses, &suggested);
            }
        }
    }
    out.push_str(&managed_note(&fresh.snapshot));
    out
}

/// How long a resolution read and waited, and why it stopped waiting when the app was at
/// rest: "after 2 reads in 1204 ms", or "after 1 read in 503 ms; the app is at rest: --wait-ms
/// waits for it to appear".
fn waited(fresh: &Fresh, wait_option: &str) -> String {
    let mut s = format!(
        "after {} in {} ms",
        crate::model::count(fresh.reads, "read"),
        fresh.waited.as_millis()
    );
    if fresh.at_rest {
        s.push_str(&format!(
            "; the app is at rest: {wait_option} waits for it to appear"
        ));
    }
    s
}

/// The elements of `snap` whose children were not enumerated (they manage their descendants):
/// their rows, at most [`MANAGED_NOTED`].
fn managed_rows(snap: &Snapshot) -> Vec<usize> {
    snap.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.managed.is_some())
        .map(|(row, _)| row)
        .take(MANAGED_NOTED)
        .collect()
}

/// How many elements that are not enumerated a resolution names.
const MANAGED_NOTED: usize = 5;

/// What a resolution did not search: the off-screen descendants of elements that manage their
/// own (only the visible ones were read). Empty when there are none.
fn managed_note(snap: &Snapshot) -> String {
    let rows = managed_rows(snap);
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "not searched: what these elements hold off screen (they manage their descendants; only \
         the visible ones were read):\n",
    );
    for row in rows {
        let n = &snap.nodes[row];
        let what = match n.managed.as_deref() {
            Some(m) => m.describe(),
            None => String::new(),
        };
        out.push_str(&format!(
            "  {}  {}  — {what}\n",
            snap.token(row),
            snap.path_string(row)
        ));
    }
    out
}

/// `find --json`: the resolution, the target, the snapshot it was resolved in, how many reads
/// and how long it took.
pub fn find_json(target: &Target, fresh: &Fresh) -> Json {
    let mut v = resolution_json(&fresh.resolution, &fresh.snapshot);
    if let Some(n) = fresh.narrowed {
        // The snapshot holds the element's path alone: no suggestion from it is unique.
        if let Some(o) = v.as_object_mut() {
            o.remove("suggestion");
        }
        v["narrowed"] = serde_json::json!({ "candidates": n });
    }
    if let Some(row) = fresh.resolution.unique_row() {
        v["id"] = serde_json::to_value(&fresh.snapshot.nodes[row].id).unwrap_or_default();
    }
    v["target"] = target.to_string().into();
    v["snapshot"] = fresh.snapshot.id.to_string().into();
    v["reads"] = fresh.reads.into();
    v["waited_ms"] = (fresh.waited.as_millis() as u64).into();
    // The wait ended because the app was at rest: nothing was waited for.
    v["at_rest"] = fresh.at_rest.into();
    v
}
