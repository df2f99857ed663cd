//! An audit as text, JSON (`audit --json`, the MCP `audit` tool) and SARIF 2.1.0.

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
        for f in found {
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
    let [e, w, r] = a.counts();
    let rules: Vec<Json> = a
        .evaluated
        .iter()
        .map(|rule| {
            let mut v = rule_json(rule);
            let found: Vec<Json> = a
                .findings
                .iter()
                .filter(|f| f.rule.id == rule.id)
                .map(|f| finding_json(a, snap, f))
                .collect();
            v["count"] = found.len().into();
            v["findings"] = found.into();
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

/// `audit --sarif`: a SARIF 2.1.0 log with one run. Every rule is in the driver (its help,
/// standard and anchor); each finding is a result whose logical location is the element's
/// path, with its suggested target, token and row in `properties`. The run's invocation
/// fails (`executionSuccessful: false`) when the tree was not read whole.
pub fn sarif(a: &Audit, snap: &Snapshot) -> Json {
    let rules: Vec<Json> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.message},
                "fullDescription": {"text": r.help},
                "help": {"text": r.help},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {
                    "tags": ["accessibility", r.standard, r.group],
                    "standard": r.standard,
                    "anchor": r.anchor,
                    "severity": r.severity,
                },
            })
        })
        .collect();
    let results: Vec<Json> = a
        .findings
        .iter()
        .map(|f| {
            let index = RULES.iter().position(|r| r.id == f.rule.id).unwrap_or(0);
            let path = snap.path_string(f.row);
            let (target, grade) = target_of(a, f.row).unwrap_or_default();
            json!({
                "ruleId": f.rule.id,
                "ruleIndex": index,
                "level": level(f.rule.severity),
                "message": {"text": format!("{}: {}", f.rule.message, f.detail)},
                "locations": [{
                    "logicalLocations": [{
                        "name": target,
                        "fullyQualifiedName": path,
                        "kind": "element",
                    }],
                }],
                "partialFingerprints": {"treeglassPath/v1": format!("{}|{}", f.rule.id, path)},
                "properties": {
                    "target": target,
                    "grade": grade,
                    "token": snap.token(f.row).to_string(),
                    "row": f.row,
                    "fix": f.fix,
                },
            })
        })
        .collect();
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
    if !snap.complete() {
        notes.push(json!({
            "level": "error",
            "message": {"text": summary(a, snap)},
        }));
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "treeglass",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "automationDetails": {"id": format!("treeglass-audit/{}", crate::model::sanitize(snap.app.as_str(), 80))},
            "invocations": [{
                "executionSuccessful": snap.complete(),
                "toolExecutionNotifications": notes,
            }],
            "results": results,
            "properties": {
                "app": snap.app,
                "window": snap.window,
                "snapshot": snap.id.to_string(),
                "node_count": snap.nodes.len(),
            },
        }],
    })
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
        let s = super::sarif(&a, &snap);
        assert_eq!(s["version"], "2.1.0");
        let results = s["runs"][0]["results"].as_array().unwrap();
        assert!(results.iter().any(|r| r["ruleId"] == "name-missing"
            && r["level"] == "error"
            && r["properties"]["row"] == 2));
        assert_eq!(s["runs"][0]["invocations"][0]["executionSuccessful"], true);
    }
}
