//! JUnit reports held to the schema CI test reporters read (tests/fixtures/junit/junit.xsd),
//! with xmllint.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

/// The report at `path`, after xmllint has validated it against the schema.
pub fn valid_junit(path: &Path) -> String {
    let schema = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/junit/junit.xsd"
    );
    let o = Command::new("xmllint")
        .args(["--noout", "--schema", schema])
        .arg(path)
        .output()
        .expect("xmllint (Debian package libxml2-utils; scripts/install-deps installs it)");
    assert!(
        o.status.success(),
        "{} does not validate: {}",
        path.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read_to_string(path).unwrap()
}
