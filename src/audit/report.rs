//! An audit as text, JSON (`audit --json`, the MCP `audit` tool) and SARIF 2.1.0.

use std::path::Path;

use serde_json::{Value as Json, json};

use super::{Audit, Finding, LEFT_OUT, RULES, Rule, Severity};
use crate::model::{Snapshot, group_digits};

/// `3 findings (1 error, 2 warnings, 0 review) on 251 elements`, plus what was not evaluated
/// and whether the tree was read whole.
pub fn summary(a: &Audit, snap: &Snapshot) -> String {
    let [e, w, r] = a.counts();
    let total = a.findings.len();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut s = format!(
        "{} ({}, {}, {} review) on {} elements, {} rules",
        plural(total, "finding", "findings"),
        plural(e, "error", "errors"),
        plural(w, "warning", "warnings"),
        r,
        group_digits(snap.nodes.len() as i64),
        a.evaluated.len()
    );
    if a.min_severity > Severity::Review {
        s.push_str(&format!(" (at least {})", a.min_severity));
    }
    if !a.not_evaluated.is_empty() {
        s.push_str(&format!(
            "; not evaluated: {}",
            a.not_evaluated
                .iter()
                .map(|n| format!("{} ({})", n.rule, n.reason))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if a.facts_unreadable > 0 {
        s.push_str(&format!(
            "; {} of the audit's own reads failed (refused, or the element vanished): those \
             elements were not judged by the rules that need them",
            a.facts_unreadable
        ));
    }
    if !snap.complete() {
        s.push_str(&format!(
            "; INCOMPLETE tree ({}{}): not a clean bill",
            snap.truncated.map_or("", |t| t.as_str()),
            if snap.unreadable > 0 {
                format!(
                    "{}{} unreadable",
                    if snap.truncated.is_some() { ", " } else { "" },
                    snap.unreadable
                )
            } else {
                String::new()
            }
        ));
    }
    s
}

fn target_of(a: &Audit, row: usize) -> Option<(String, &'static str)> {
    a.targets
        .get(row)?
        .as_ref()
        .map(|t| (t.to_string(), t.grade().as_str()))
}

/// The findings grouped by rule, each with its element's suggested target, path, token and
/// row, then the summary line.
pub fn text(a: &Audit, snap: &Snapshot) -> String {
    text_capped(a, snap, None)
}

/// [`text`] with at most `per_rule` findings listed under each rule, the rest counted.
pub fn text_capped(a: &Audit, snap: &Snapshot, per_rule: Option<usize>) -> String {
    let mut out = String::new();
    for rule in &a.evaluated {
        let found: Vec<&Finding> = a.findings.iter().filter(|f| f.rule.id == rule.id).collect();
        if found.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "{:<7}  {}  {} ({}; {})  ×{}\n",
            rule.severity.as_str(),
            rule.id,
            rule.message,
            rule.standard,
            rule.anchor,
            found.len()
        ));
        let listed = per_rule.unwrap_or(usize::MAX).min(found.len());
        let more = found.len() - listed;
        for f in found.into_iter().take(listed) {
            let (target, grade) = target_of(a, f.row).unwrap_or_default();
            out.push_str(&format!("  ⇒ {target}  ({grade})\n"));
            out.push_str(&format!(
                "      {}\n",
                crate::model::sanitize(&f.detail, 300)
            ));
            if let Some(fix) = &f.fix {
                out.push_str(&format!(
                    "      fix: {}\n",
                    crate::model::sanitize(fix, 300)
                ));
            }
            out.push_str(&format!(
                "      path: {}\n      token {}  row {}\n",
                snap.path_string(f.row),
                snap.token(f.row),
                f.row
            ));
        }
        if more > 0 {
            out.push_str(&format!("  … and {more} more\n"));
        }
    }
    out.push_str(&summary(a, snap));
    out.push('\n');
    out
}

fn rule_json(r: &Rule) -> Json {
    json!({
        "id": r.id,
        "group": r.group,
        "severity": r.severity,
        "message": r.message,
        "standard": r.standard,
        "anchor": r.anchor,
        "help": r.help,
    })
}

fn finding_json(a: &Audit, snap: &Snapshot, f: &Finding) -> Json {
    let n = &snap.nodes[f.row];
    let (target, grade) = match target_of(a, f.row) {
        Some((t, g)) => (Json::from(t), Json::from(g)),
        None => (Json::Null, Json::Null),
    };
    json!({
        "rule": f.rule.id,
        "severity": f.rule.severity,
        "row": f.row,
        "token": snap.token(f.row).to_string(),
        "id": n.id,
        "role": n.role,
        "name": n.name,
        "path": snap.path_string(f.row),
        "target": target,
        "grade": grade,
        "detail": f.detail,
        "fix": f.fix,
    })
}

/// `audit --json`: the snapshot, completeness, the summary, and every evaluated rule with its
/// findings (grouped), the rules not evaluated and why, and the checks left out.
pub fn json(a: &Audit, snap: &Snapshot) -> Json {
    json_capped(a, snap, None)
}

/// [`json`] with at most `per_rule` findings listed under each rule (`count` is still all of
/// them, and `more` how many are not listed): an agent's answer stays a size it can read.
pub fn json_capped(a: &Audit, snap: &Snapshot, per_rule: Option<usize>) -> Json {
    let [e, w, r] = a.counts();
    let rules: Vec<Json> = a
        .evaluated
        .iter()
        .map(|rule| {
            let mut v = rule_json(rule);
            let all: Vec<&crate::audit::Finding> =
                a.findings.iter().filter(|f| f.rule.id == rule.id).collect();
            let listed = per_rule.unwrap_or(usize::MAX).min(all.len());
            let found: Vec<Json> = all[..listed]
                .iter()
                .map(|f| finding_json(a, snap, f))
                .collect();
            v["count"] = all.len().into();
            v["findings"] = found.into();
            if listed < all.len() {
                v["more"] = (all.len() - listed).into();
            }
            v
        })
        .collect();
    json!({
        "app": snap.app,
        "window": snap.window,
        "snapshot": snap.id.to_string(),
        "node_count": snap.nodes.len(),
        "complete": snap.complete(),
        "truncated": snap.truncated.map(|t| t.as_str()),
        "unreadable": snap.unreadable,
        "min_severity": a.min_severity,
        "summary": {
            "text": summary(a, snap),
            "findings": a.findings.len(),
            "error": e,
            "warning": w,
            "review": r,
            "rules": a.evaluated.len(),
        },
        "rules": rules,
        "not_evaluated": a.not_evaluated,
        "facts_unreadable": a.facts_unreadable,
        "left_out": LEFT_OUT.iter().map(|(what, why)| json!({"check": what, "why": why})).collect::<Vec<_>>(),
    })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Review => "note",
    }
}

/// The file a SARIF log places its results in. An audited window has no source line we know,
/// so this names a real file — the one `--sarif-artifact` named (the window's `.ui` or source
/// file, in CI relative to the repository root), else the application's executable — and the
/// element itself is in the result's logical location and message. Line 1 stands for the file
/// as a whole: GitHub code scanning requires `region.startLine`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// A relative reference (to the directory treeglass ran in, the `%SRCROOT%` base: GitHub
    /// reads it as relative to the repository root) or an absolute `file:` URI.
    pub uri: String,
    pub relative: bool,
    /// What the file is, for `run.artifacts[].description`.
    pub what: String,
}

impl Artifact {
    /// `path`, absolute with its symlinks resolved (GitHub cannot show results in a file it
    /// reaches through a symlink), as an artifact: relative to `cwd` (resolved too) when it is
    /// under it, else an absolute `file:` URI.
    pub fn at(path: &Path, cwd: Option<&Path>, what: impl Into<String>) -> Artifact {
        let what = what.into();
        match cwd.and_then(|c| path.strip_prefix(c).ok()) {
            Some(rel) if !rel.as_os_str().is_empty() => Artifact {
                uri: encode_path(&rel.to_string_lossy()),
                relative: true,
                what,
            },
            _ => Artifact {
                uri: file_uri(path, false),
                relative: false,
                what,
            },
        }
    }
}

/// Where a SARIF log's results are placed: the artifact, or why none is known (then each
/// result has only its logical location and a tool notification says why), and the directory
/// treeglass ran in.
#[derive(Debug, Clone)]
pub struct Place {
    pub artifact: Result<Artifact, String>,
    /// The `file:` URI of the working directory, ending in `/`: the `%SRCROOT%` base of a
    /// relative artifact, and `invocations[0].workingDirectory`, which GitHub uses to make an
    /// absolute URI relative when the upload names no checkout path.
    pub working_dir: Option<String>,
}

impl Place {
    /// No artifact known, for `why`.
    pub fn unknown(why: impl Into<String>) -> Place {
        Place {
            artifact: Err(why.into()),
            working_dir: None,
        }
    }
}

/// A path as a URI path: `/` between components, every byte but the unreserved ones
/// percent-encoded (a SARIF artifact location is a URI, not a file name).
fn encode_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `file:` URI of an absolute path (`file:///C:/…` for a Windows drive), a directory's
/// ending in `/`.
pub fn file_uri(path: &Path, dir: bool) -> String {
    let text = path.to_string_lossy();
    let text = text.strip_prefix(r"\\?\").unwrap_or(&text);
    let mut p = encode_path(text);
    // The drive's colon stays as it is (`C:`).
    if p.len() > 3 && p.as_bytes()[0].is_ascii_alphabetic() && p[1..].starts_with("%3A/") {
        p = format!("/{}:{}", &p[..1], &p[4..]);
    }
    if dir && !p.ends_with('/') {
        p.push('/');
    }
    format!("file://{p}")
}

/// A stable 64-bit FNV-1a hash, in hex.
fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// `audit --sarif`: a SARIF 2.1.0 log with one run. Every rule is in the driver (its help,
/// standard and anchor); each finding is a result whose location is the element's path (a
/// logical location) and, when one is known, the artifact of `place` at line 1 (a physical
/// location: GitHub code scanning rejects a result without one), with its suggested target,
/// token and row in `properties`. With no artifact known the log says so in a tool
/// notification. The run's invocation fails (`executionSuccessful: false`) when the tree was
/// not read whole.
pub fn sarif(a: &Audit, snap: &Snapshot, place: &Place) -> Json {
    let rules = sarif_rules();
    let artifact_location = place.artifact.as_ref().ok().map(|art| {
        let mut loc = json!({"uri": art.uri, "index": 0});
        if art.relative {
            loc["uriBaseId"] = "%SRCROOT%".into();
        }
        loc
    });
    let results = sarif_results(a, snap, artifact_location.as_ref());
    let invocation = sarif_invocation(a, snap, place);
    // The category (all but the part after the last `/`) is per app: GitHub replaces an
    // analysis with the next one of the same category.
    let app = crate::model::sanitize(snap.app.as_str(), 80).replace('/', "∕");
    let mut run = json!({
        "tool": {"driver": {
            "name": "treeglass",
            "version": env!("CARGO_PKG_VERSION"),
            "rules": rules,
        }},
        "automationDetails": {"id": format!("treeglass-audit/{app}/")},
        "invocations": [invocation],
        "results": results,
        "properties": {
            "app": snap.app,
            "window": snap.window,
            "snapshot": snap.id.to_string(),
            "node_count": snap.nodes.len(),
        },
    });
    if let (Ok(art), Some(loc)) = (&place.artifact, artifact_location) {
        run["artifacts"] = json!([{
            "location": loc,
            "description": {"text": format!(
                "{}: the audited window's findings are placed in it at line 1, which stands for \
                 the file as a whole; each result's logical location names the element",
                art.what
            )},
        }]);
        if art.relative
            && let Some(dir) = &place.working_dir
        {
            run["originalUriBaseIds"] = json!({
                "%SRCROOT%": {
                    "uri": dir,
                    "description": {"text": "the directory treeglass ran in"},
                },
            });
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    })
}

/// SARIF's rule descriptors: every rule, with its axe counterparts as tags and its help page.
fn sarif_rules() -> Vec<Json> {
    RULES
        .iter()
        .map(|r| {
            let mapped = super::rule_map::of(r.id);
            let mut tags = vec![
                "accessibility".to_string(),
                r.standard.to_string(),
                r.group.to_string(),
            ];
            if let Some(m) = mapped {
                tags.extend(m.axe.iter().map(|a| format!("axe:{a}")));
                tags.extend(m.axe_windows.iter().map(|a| format!("axe-windows:{a}")));
            }
            let mut rule = json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.message},
                "fullDescription": {"text": r.help},
                "help": {"text": r.help},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {
                    "tags": tags,
                    "standard": r.standard,
                    "anchor": r.anchor,
                    "severity": r.severity,
                    "axe": mapped.map_or(&[][..], |m| m.axe),
                    "axe_windows": mapped.map_or(&[][..], |m| m.axe_windows),
                },
            });
            // The page of the axe-core rule it corresponds to first, where there is one.
            if let Some(a) = mapped.and_then(|m| m.axe.first()) {
                rule["helpUri"] = super::rule_map::axe_url(a).into();
            }
            rule
        })
        .collect()
}

/// SARIF's results: each finding at its element's path, and at line 1 of the artifact when
/// one is known (`artifact_location`).
fn sarif_results(a: &Audit, snap: &Snapshot, artifact_location: Option<&Json>) -> Vec<Json> {
    a.findings
        .iter()
        .map(|f| {
            let index = RULES.iter().position(|r| r.id == f.rule.id).unwrap_or(0);
            let path = snap.path_string(f.row);
            let (target, grade) = target_of(a, f.row).unwrap_or_default();
            let mut location = json!({
                "logicalLocations": [{
                    "name": target,
                    "fullyQualifiedName": path,
                    "kind": "element",
                }],
            });
            if let Some(loc) = artifact_location {
                location["physicalLocation"] = json!({
                    "artifactLocation": loc,
                    "region": {"startLine": 1},
                });
            }
            let identity = format!("{}|{}", f.rule.id, path);
            json!({
                "ruleId": f.rule.id,
                "ruleIndex": index,
                "level": level(f.rule.severity),
                "message": {"text": format!("{}: {}", f.rule.message, f.detail)},
                "locations": [location],
                // GitHub matches alerts across runs by `primaryLocationLineHash` alone, and
                // upload-sarif would hash line 1 of the artifact, the same for every finding:
                // the element's rule and path tell one finding from another instead.
                "partialFingerprints": {
                    "treeglassPath/v1": identity,
                    "primaryLocationLineHash": fingerprint(&identity),
                },
                "properties": {
                    "target": target,
                    "grade": grade,
                    "token": snap.token(f.row).to_string(),
                    "row": f.row,
                    "fix": f.fix,
                },
            })
        })
        .collect()
}

/// SARIF's invocation: whether the read was whole, with the rules not evaluated, a missing
/// artifact and an incomplete tree as notifications.
fn sarif_invocation(a: &Audit, snap: &Snapshot, place: &Place) -> Json {
    let mut notes: Vec<Json> = a
        .not_evaluated
        .iter()
        .map(|n| {
            json!({
                "level": "note",
                "message": {"text": format!("{} not evaluated: {}", n.rule, n.reason)},
                "descriptor": {"id": n.rule},
            })
        })
        .collect();
    if let Err(why) = &place.artifact {
        notes.push(json!({
            "level": "warning",
            "message": {"text": format!(
                "no artifact known for the audited window ({why}): each result has only a \
                 logical location (the element's path); GitHub code scanning rejects results \
                 without a physical location, so name the window's file with --sarif-artifact"
            )},
        }));
    }
    if !snap.complete() {
        notes.push(json!({
            "level": "error",
            "message": {"text": summary(a, snap)},
        }));
    }
    let mut invocation = json!({
        "executionSuccessful": snap.complete(),
        "toolExecutionNotifications": notes,
    });
    if let Some(dir) = &place.working_dir {
        invocation["workingDirectory"] = json!({"uri": dir});
    }
    invocation
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Options, audit};
    use crate::model::Role;

    #[test]
    fn json_text_and_sarif_carry_each_finding() {
        let snap = tree(vec![(
            n(Role::Panel, "Box"),
            vec![
                focusable(n(Role::Button, "")),
                focusable(n(Role::Button, "OK")),
            ],
        )]);
        let a = audit(&snap, &Options::default()).unwrap();
        let v = super::json(&a, &snap);
        let missing = v["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "name-missing")
            .unwrap();
        assert_eq!(missing["count"], 1);
        let f = &missing["findings"][0];
        assert_eq!(f["row"], 2);
        assert_eq!(f["target"], "button #1");
        assert!(f["token"].as_str().unwrap().ends_with(":2"));
        let t = super::text(&a, &snap);
        assert!(t.contains("name-missing"), "{t}");
        assert!(t.contains("row 2"), "{t}");
        let s = super::sarif(&a, &snap, &super::Place::unknown("test"));
        assert_eq!(s["version"], "2.1.0");
        let results = s["runs"][0]["results"].as_array().unwrap();
        assert!(results.iter().any(|r| r["ruleId"] == "name-missing"
            && r["level"] == "error"
            && r["properties"]["row"] == 2));
        assert_eq!(s["runs"][0]["invocations"][0]["executionSuccessful"], true);
    }

    fn unnamed_button() -> (crate::model::Snapshot, super::super::Audit) {
        let snap = tree(vec![(
            n(Role::Panel, "Box"),
            vec![focusable(n(Role::Button, ""))],
        )]);
        let a = audit(&snap, &Options::default()).unwrap();
        (snap, a)
    }

    #[test]
    fn a_named_artifact_places_every_result_at_its_line_1_beside_the_logical_location() {
        use std::path::Path;
        let (snap, a) = unnamed_button();
        let art = super::Artifact::at(
            Path::new("/repo/ui/main window.ui"),
            Some(Path::new("/repo")),
            "named by --sarif-artifact",
        );
        assert_eq!(art.uri, "ui/main%20window.ui");
        assert!(art.relative);
        let place = super::Place {
            artifact: Ok(art),
            working_dir: Some(super::file_uri(Path::new("/repo"), true)),
        };
        let s = super::sarif(&a, &snap, &place);
        let run = &s["runs"][0];
        let r = run["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["ruleId"] == "name-missing")
            .unwrap();
        let loc = &r["locations"][0];
        let phys = &loc["physicalLocation"];
        assert_eq!(phys["artifactLocation"]["uri"], "ui/main%20window.ui");
        assert_eq!(phys["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(phys["region"], serde_json::json!({"startLine": 1}));
        assert_eq!(loc["logicalLocations"][0]["kind"], "element");
        assert!(loc["logicalLocations"][0]["fullyQualifiedName"].is_string());
        let hash = r["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .unwrap();
        assert_eq!(hash.len(), 16);
        assert_eq!(
            run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///repo/"
        );
        assert_eq!(
            run["invocations"][0]["workingDirectory"]["uri"],
            "file:///repo/"
        );
        assert_eq!(
            run["artifacts"][0]["location"]["uri"],
            "ui/main%20window.ui"
        );
        assert!(
            run["invocations"][0]["toolExecutionNotifications"]
                .as_array()
                .unwrap()
                .iter()
                .all(|n| n["level"] != "warning")
        );
        // Outside the working directory: an absolute file URI, no base.
        let exe = super::Artifact::at(Path::new("/usr/bin/gedit"), Some(Path::new("/repo")), "x");
        assert_eq!(exe.uri, "file:///usr/bin/gedit");
        assert!(!exe.relative);
        let s = super::sarif(
            &a,
            &snap,
            &super::Place {
                artifact: Ok(exe),
                working_dir: None,
            },
        );
        let phys = &s["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
        assert_eq!(phys["artifactLocation"]["uri"], "file:///usr/bin/gedit");
        assert!(phys["artifactLocation"]["uriBaseId"].is_null());
        assert!(s["runs"][0]["originalUriBaseIds"].is_null());
    }

    #[test]
    fn with_no_artifact_known_results_keep_only_the_logical_location_and_a_notification_says_why() {
        let (snap, a) = unnamed_button();
        let s = super::sarif(&a, &snap, &super::Place::unknown("no pid"));
        let run = &s["runs"][0];
        for r in run["results"].as_array().unwrap() {
            let loc = &r["locations"][0];
            assert!(loc["physicalLocation"].is_null(), "{r}");
            assert!(loc["logicalLocations"][0]["fullyQualifiedName"].is_string());
        }
        assert!(run["artifacts"].is_null());
        let notes = run["invocations"][0]["toolExecutionNotifications"]
            .as_array()
            .unwrap();
        let warn = notes.iter().find(|n| n["level"] == "warning").unwrap();
        let text = warn["message"]["text"].as_str().unwrap();
        assert!(
            text.contains("no pid") && text.contains("--sarif-artifact"),
            "{text}"
        );
        // A complete read still succeeds: the missing artifact is the log's, not the audit's.
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
    }

    #[test]
    fn file_uris_encode_and_keep_a_drive() {
        use std::path::Path;
        assert_eq!(
            super::file_uri(Path::new("/a b/c#d"), false),
            "file:///a%20b/c%23d"
        );
        assert_eq!(super::file_uri(Path::new("/w"), true), "file:///w/");
        assert_eq!(
            super::file_uri(Path::new(r"C:\w\x.ui"), false),
            "file:///C:/w/x.ui"
        );
    }
}
