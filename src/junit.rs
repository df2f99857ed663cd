//! JUnit XML reports, the format CI systems (GitHub Actions' test reporters, GitLab, Jenkins,
//! Azure Pipelines) read: one `<testsuite>` in `<testsuites>`, one `<testcase>` per workflow
//! step or per audit rule, a `<failure>` with its message and the detail in its text, a
//! `<skipped>` for what did not run. Text from apps is escaped, and characters XML 1.0 cannot
//! hold (most control characters) are replaced with U+FFFD.

/// One test case.
#[derive(Debug, Clone)]
pub struct Case {
    pub classname: String,
    pub name: String,
    pub seconds: f64,
    pub outcome: Outcome,
}

/// How a test case ended.
#[derive(Debug, Clone)]
pub enum Outcome {
    Passed,
    /// `kind` is a word (the verdict, the rule's severity); `detail` the failure's text.
    Failed {
        kind: String,
        message: String,
        detail: String,
    },
    Skipped {
        message: String,
    },
}

/// One suite: a workflow run or an audit.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub seconds: f64,
    pub cases: Vec<Case>,
}

/// Text as XML character data or an attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20
                || (0xD800..=0xDFFF).contains(&(c as u32))
                || c == '\u{FFFE}'
                || c == '\u{FFFF}' =>
            {
                out.push('\u{FFFD}')
            }
            c => out.push(c),
        }
    }
    out
}

fn secs(s: f64) -> String {
    format!("{:.3}", s.max(0.0))
}

/// The suite as a JUnit XML document.
pub fn write(suite: &Suite) -> String {
    let failures = suite
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Failed { .. }))
        .count();
    let skipped = suite
        .cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Skipped { .. }))
        .count();
    let counts = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{}\"",
        suite.cases.len(),
        secs(suite.seconds)
    );
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"{}\" {counts}>\n",
        escape(&suite.name)
    ));
    out.push_str(&format!(
        "  <testsuite name=\"{}\" {counts}>\n",
        escape(&suite.name)
    ));
    for c in &suite.cases {
        let head = format!(
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"",
            escape(&c.classname),
            escape(&c.name),
            secs(c.seconds)
        );
        match &c.outcome {
            Outcome::Passed => out.push_str(&format!("{head}/>\n")),
            Outcome::Failed {
                kind,
                message,
                detail,
            } => out.push_str(&format!(
                "{head}>\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                escape(kind),
                escape(message),
                escape(detail)
            )),
            Outcome::Skipped { message } => out.push_str(&format!(
                "{head}>\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                escape(message)
            )),
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// Writes the report to `path` (atomically; an existing file is replaced). A report that
/// cannot be written loses nothing else: the command's own output is printed as ever, the
/// failure is said on standard error, and a command that would have exited 0 exits 1 (a CI
/// job must not pass without its report). Returns the exit code to use.
pub fn save(path: &std::path::Path, suite: &Suite, code: i32) -> i32 {
    match crate::files::write_atomic(
        path,
        write(suite).as_bytes(),
        crate::files::Existing::Replace,
    ) {
        Ok(()) => code,
        Err(e) => {
            eprintln!("treeglass: --junit: the report was not written: {e}");
            if code == 0 { 1 } else { code }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_text_cannot_break_the_document() {
        assert_eq!(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(escape("x\u{1b}[31my\u{0}"), "x\u{FFFD}[31my\u{FFFD}");
        let s = Suite {
            name: "w".into(),
            seconds: 1.5,
            cases: vec![
                Case {
                    classname: "c".into(),
                    name: "ok".into(),
                    seconds: 0.25,
                    outcome: Outcome::Passed,
                },
                Case {
                    classname: "c".into(),
                    name: "bad </testcase>".into(),
                    seconds: 0.0,
                    outcome: Outcome::Failed {
                        kind: "mismatch".into(),
                        message: "m".into(),
                        detail: "]]> <x>".into(),
                    },
                },
                Case {
                    classname: "c".into(),
                    name: "later".into(),
                    seconds: 0.0,
                    outcome: Outcome::Skipped {
                        message: "not run".into(),
                    },
                },
            ],
        };
        let x = write(&s);
        assert!(
            x.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""),
            "{x}"
        );
        assert!(x.contains("name=\"bad &lt;/testcase&gt;\""), "{x}");
        assert!(x.ends_with("</testsuites>\n"));
    }
}
