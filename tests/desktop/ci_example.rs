//! docs/ci.md's commands, run as a CI job runs them: the block between its `ci-commands`
//! markers, by `sh`, from an environment of `PATH` and `HOME` only (no bus, no display), on
//! the project's GTK fixture app, with a workflow and a baseline kept beside the test. Its
//! exit status, and the JUnit and SARIF reports it leaves, are checked; then the same with a
//! baseline the app no longer matches.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{self, xml};

const BEGIN: &str = "<!-- ci-commands -->";
const END: &str = "<!-- end:ci-commands -->";

/// The shell block of docs/ci.md.
fn commands() -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ci.md")).unwrap();
    let start = doc.find(BEGIN).expect("docs/ci.md has the commands") + BEGIN.len();
    let stop = start + doc[start..].find(END).expect("the commands end");
    doc[start..stop]
        .lines()
        .filter(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `script` with `sh` in `dir`, as a CI job would: only `PATH` (this build's treeglass
/// first) and `HOME`, and the job's variables.
fn job(dir: &Path, script: &str, vars: &[(&str, String)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_treeglass")).parent().unwrap();
    let mut c = Command::new("/bin/sh");
    c.arg("-c")
        .arg(script)
        .current_dir(dir)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env(
            "HOME",
            std::env::var_os("HOME").unwrap_or_else(|| "/root".into()),
        );
    for (k, v) in vars {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn validates(path: &Path) {
    xml::valid_junit(path);
}

#[test]
fn the_ci_example_passes_on_the_fixture_app_and_fails_on_a_changed_baseline() {
    let _turn = common::turn::shared();
    let dir: PathBuf = std::env::temp_dir().join(format!("tg-ci-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let name = format!("tgci-{}", std::process::id());
    let app_cmd = format!(
        "/usr/bin/python3 {}/tests/fixture_app.py --name {name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let app = format!("^{name}$");
    let ui = dir.join("main-window.ui");
    std::fs::write(&ui, "<interface/>\n").unwrap();
    let vars = |baseline: &str| {
        vec![
            ("APP_CMD", app_cmd.clone()),
            ("APP", app.clone()),
            (
                "WORKFLOW",
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/fixtures/ci/fixture-profile.workflow.json"
                )
                .to_string(),
            ),
            ("BASELINE", baseline.to_string()),
            ("AUDIT_MIN_SEVERITY", "error".to_string()),
            ("SARIF_ARTIFACT", "main-window.ui".to_string()),
        ]
    };

    // The baseline, made once (as on a desktop): the app's tree in its own session.
    let o = job(
        &dir,
        "treeglass session --app-cmd \"$APP_CMD\" -- treeglass tree --baseline --app \"$APP\" \
         > baseline.json",
        &vars("baseline.json"),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // The job: every check passes.
    let script = commands();
    let o = job(&dir, &script, &vars("baseline.json"));
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("PASSED: 2/2 step executions passed"), "{out}");
    assert!(out.contains("no differences"), "{out}");
    for report in ["workflow.xml", "audit.xml"] {
        validates(&dir.join("reports").join(report));
    }
    let sarif: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("reports/audit.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");

    // The app no longer matches its baseline (a button the baseline calls otherwise): the job
    // fails, and the other checks still ran and reported.
    let text = std::fs::read_to_string(dir.join("baseline.json"))
        .unwrap()
        .replacen("\"name\": \"Press me\"", "\"name\": \"Press\"", 1);
    assert!(text.contains("\"Press\""));
    std::fs::write(dir.join("old.json"), text).unwrap();
    std::fs::remove_dir_all(dir.join("reports")).unwrap();
    let o = job(&dir, &script, &vars("old.json"));
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("name: \"Press\" → \"Press me\""), "{out}");
    validates(&dir.join("reports/workflow.xml"));
    validates(&dir.join("reports/audit.xml"));
    let _ = std::fs::remove_dir_all(&dir);
}
