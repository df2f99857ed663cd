//! JUnit reports for CI (`workflow run --junit`, `audit --junit`) on the demo app: each
//! validated with xmllint against the JUnit schema CI test reporters read
//! (tests/fixtures/junit/junit.xsd), and its counts held against the same run's JSON.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::xml;

fn treeglass(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(["--backend", "fixture"])
        .args(args)
        .output()
        .unwrap()
}

/// A directory of this test's own (the tests of this binary run at once).
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tg-junit-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn valid(path: &Path) -> String {
    xml::valid_junit(path)
}

/// The suite's `name="…"`-style attribute `key` as a number.
fn count(xml: &str, key: &str) -> usize {
    let suite = &xml[xml.find("<testsuite ").unwrap()..];
    let at = suite.find(&format!(" {key}=\"")).unwrap() + key.len() + 3;
    suite[at..].split('"').next().unwrap().parse().unwrap()
}

#[test]
fn the_schema_refuses_what_ci_would_not_read() {
    let d = dir("schema");
    let bad = d.join("bad.xml");
    std::fs::write(
        &bad,
        "<testsuites><testsuite name=\"s\" tests=\"1\" failures=\"0\" errors=\"0\">\
         <testcase name=\"no classname\" time=\"0\"/></testsuite></testsuites>",
    )
    .unwrap();
    let schema = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/junit/junit.xsd"
    );
    let o = Command::new("xmllint")
        .args(["--noout", "--schema", schema])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(
        !o.status.success(),
        "a test case without a classname is refused"
    );
}

#[test]
fn a_workflow_run_gives_one_case_per_step_and_its_failures() {
    let d = dir("workflow");
    let flow = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/workflows/good-demo.json"
    );

    // Passing: six steps and the terminal condition.
    let xml_path = d.join("pass.xml");
    let o = treeglass(&[
        "workflow",
        "run",
        flow,
        "--input",
        "password=x",
        "--json",
        "--junit",
        xml_path.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let xml = valid(&xml_path);
    assert_eq!(
        (count(&xml, "tests"), count(&xml, "failures")),
        (7, 0),
        "{xml}"
    );

    // Failing: the first step expects what it does not get.
    let text = std::fs::read_to_string(flow).unwrap().replacen(
        "\"textContains\": \"Grace Hopper\"",
        "\"textContains\": \"Ada\"",
        1,
    );
    let failing = d.join("failing.json");
    std::fs::write(&failing, text).unwrap();
    let xml_path = d.join("fail.xml");
    let o = treeglass(&[
        "workflow",
        "run",
        failing.to_str().unwrap(),
        "--input",
        "password=x",
        "--json",
        "--junit",
        xml_path.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let xml = valid(&xml_path);
    let steps = report["steps"].as_array().unwrap();
    let failed_steps = steps.iter().filter(|s| s["passed"] != true).count();
    let terminal_failed = usize::from(report["terminal"]["holds"] == false);
    let reached = steps
        .iter()
        .map(|s| s["index"].as_u64().unwrap() + 1)
        .max()
        .unwrap_or(0);
    assert!(failed_steps >= 1, "{report:#}");
    assert_eq!(
        count(&xml, "failures"),
        failed_steps + terminal_failed,
        "{xml}"
    );
    assert_eq!(count(&xml, "skipped"), 6 - reached as usize, "{xml}");
    let first = &steps[0];
    assert!(
        xml.contains(&format!(
            "<failure type=\"{}",
            first["outcome"].as_str().unwrap()
        )),
        "the failure says the step's verdict: {xml}"
    );

    // Refused before its first step (a required input missing): one failed case says why.
    let xml_path = d.join("not-run.xml");
    let o = treeglass(&[
        "workflow",
        "run",
        flow,
        "--junit",
        xml_path.to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0));
    let xml = valid(&xml_path);
    assert_eq!(
        (count(&xml, "tests"), count(&xml, "failures")),
        (1, 1),
        "{xml}"
    );
    assert!(xml.contains("missing required inputs: password"), "{xml}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn an_audit_gives_one_case_per_rule() {
    let d = dir("audit");
    let xml_path = d.join("audit.xml");
    let o = treeglass(&["audit", "--json", "--junit", xml_path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(14), "the demo has findings");
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let xml = valid(&xml_path);
    let with_findings = report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["findings"].as_array().unwrap().is_empty())
        .count();
    let not_evaluated = report["not_evaluated"].as_array().unwrap().len();
    assert!(with_findings > 0);
    assert_eq!(count(&xml, "failures"), with_findings, "{xml}");
    assert_eq!(count(&xml, "skipped"), not_evaluated, "{xml}");
    // Each finding's element is named by its target in the failure's text.
    let first = &report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| !r["findings"].as_array().unwrap().is_empty())
        .unwrap()["findings"][0];
    let target = first["target"].as_str().unwrap().replace('"', "&quot;");
    assert!(xml.contains(&target), "{target} in {xml}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A report that cannot be written loses nothing else: the run's output is printed, the
/// failure said, and a run that passed does not pass without its report.
#[test]
fn a_report_that_cannot_be_written_fails_a_passing_run_and_keeps_its_output() {
    let flow = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/workflows/good-demo.json"
    );
    let o = treeglass(&[
        "workflow",
        "run",
        flow,
        "--input",
        "password=x",
        "--junit",
        "/nonexistent-dir/report.xml",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("PASSED: 6/6"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--junit: the report was not written"));
    // A run that already fails keeps its own code.
    let o = treeglass(&["audit", "--junit", "/nonexistent-dir/report.xml"]);
    assert_eq!(o.status.code(), Some(14));
}
