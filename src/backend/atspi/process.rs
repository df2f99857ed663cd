//! What `/proc` says about a process, for naming an app that does not answer: its accessible
//! name cannot be asked, so it is named the way `ps` would name it. Nothing is sent to the app.

/// Interpreters whose script, not themselves, names the program (`python3 freeze_app.py`).
const INTERPRETERS: &[&str] = &[
    "python", "python3", "perl", "ruby", "node", "gjs", "sh", "bash", "java",
];

/// The process's command line, split at its NULs (empty when it cannot be read).
pub fn cmdline(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|c| *c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// A short name for the process: its program's file name, or its script's when the program
/// is an interpreter; `comm` when the command line is unreadable.
pub fn label(pid: u32) -> Option<String> {
    let args = cmdline(pid);
    label_of(&args).or_else(|| {
        std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    })
}

/// The words that may stand for the process's name: its label, then each argument of its
/// command line and that argument's file name (`--name treeglass-fixture-a` gives both).
pub fn words(pid: u32) -> Vec<String> {
    let args = cmdline(pid);
    let mut out: Vec<String> = label(pid).into_iter().collect();
    for a in &args {
        out.push(a.clone());
        if base(a) != a {
            out.push(base(a).to_string());
        }
    }
    out
}

fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn label_of(args: &[String]) -> Option<String> {
    let prog = base(args.first()?);
    let is_interpreter = INTERPRETERS.iter().any(|i| {
        prog.strip_prefix(i)
            .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit() || c == '.'))
    });
    if is_interpreter && let Some(script) = args[1..].iter().find(|a| !a.starts_with('-')) {
        return Some(base(script).to_string());
    }
    Some(prog.to_string()).filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_the_program_or_the_interpreted_script() {
        assert_eq!(
            label_of(&args(&[
                "/usr/bin/python3",
                "-u",
                "tests/fixture_app.py",
                "--name",
                "x"
            ])),
            Some("fixture_app.py".into())
        );
        assert_eq!(
            label_of(&args(&["/usr/bin/python3.11", "freeze.py"])),
            Some("freeze.py".into())
        );
        assert_eq!(
            label_of(&args(&["/usr/bin/gtk3-widget-factory"])),
            Some("gtk3-widget-factory".into())
        );
        // A program whose name merely starts like an interpreter is itself.
        assert_eq!(
            label_of(&args(&["/usr/bin/python-gui", "x"])),
            Some("python-gui".into())
        );
        assert_eq!(
            label_of(&args(&["/usr/bin/python3"])),
            Some("python3".into())
        );
        assert_eq!(label_of(&[]), None);
    }
}
