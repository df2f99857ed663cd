//! The command line against careless and hostile input, on the fixture backend (no bus):
//! closed pipes and full disks, files that must not be written through or read from (links,
//! devices, FIFOs, directories, endless streams), atomic exports, deep and huge trees, the one
//! secrecy rule, and the option names.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn treeglass() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_treeglass"));
    c.env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("A11Y_BUS_ADDRESS")
        .env_remove("DISPLAY")
        .stdin(Stdio::null());
    c
}

fn run(args: &[&str]) -> Output {
    treeglass().args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Waits for `child` within a generous deadline; a child still running then is killed and the
/// test fails (a read that blocks forever is the bug these tests look for).
fn finish_within(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}: still running after 30 s (blocked?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("tg-harden-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn s(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }

    #[cfg(unix)] // used by the tests of links, devices and FIFOs
    fn temporaries(&self) -> Vec<String> {
        std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(unix)] // used by the tests of links, devices and FIFOs
fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// A fixture app whose window holds a chain `depth` levels deep (an outline: deeper than JSON
/// nesting allows) or, with `wide`, that many labels side by side.
fn outline_fixture(path: &Path, n: usize, wide: bool) {
    let mut entries = vec![r#"{"level":0,"role":"frame","name":"Big"}"#.to_string()];
    for i in 1..n {
        let level = if wide { 1 } else { i };
        entries.push(format!(
            r#"{{"level":{level},"role":"label","name":"n{i}"}}"#
        ));
    }
    std::fs::write(
        path,
        format!(
            r#"{{"apps":[{{"name":"big","outline":[{}]}}]}}"#,
            entries.join(",")
        ),
    )
    .unwrap();
}

/// A recording with one step, made through `set --record` on the demo app.
#[cfg(unix)]
fn recording(s: &Scratch) -> String {
    let rec = s.s("rec.json");
    let o = run(&[
        "--backend",
        "fixture",
        "set",
        "text \"Full name\"",
        "Grace",
        "--record",
        &rec,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    rec
}

// --- Output errors ---------------------------------------------------------------------

#[test]
fn a_closed_pipe_ends_quietly_with_the_commands_own_code() {
    let s = Scratch::new("pipe");
    let big = s.path("wide.json");
    outline_fixture(&big, 4_000, true);
    let fixture = format!("fixture:{}", big.display());
    for json in [false, true] {
        let mut args = vec![
            "--backend",
            fixture.as_str(),
            "tree",
            "--max-nodes",
            "30000",
        ];
        if json {
            args.push("--json");
        }
        // `tree | head -1`: far more output than a pipe holds, and the reader leaves.
        let mut child = treeglass()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty());
        let o = finish_within(child, "tree | head -1");
        assert_eq!(o.status.code(), Some(0), "json={json}: {}", text(&o));
        assert!(o.stderr.is_empty(), "json={json}: {}", text(&o));
    }
    // A write whose output nobody reads keeps its verdict's code.
    for (target, code) in [("text \"Full name\"", 0), ("text \"Locked field\"", 22)] {
        let mut child = treeglass()
            .args(["--backend", "fixture", "set", target, "new value"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = finish_within(child, "set with a closed pipe");
        assert_eq!(o.status.code(), Some(code), "{target}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{}", text(&o));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_reported_and_a_verdict_keeps_its_code() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for (args, code) in [
        (vec!["--backend", "fixture", "tree"], 1),
        (vec!["--backend", "fixture", "tree", "--json"], 1),
        (vec!["--backend", "fixture", "apps", "--json"], 1),
        (
            vec!["--backend", "fixture", "set", "text \"Full name\"", "x"],
            1,
        ),
        (
            vec!["--backend", "fixture", "set", "text \"Locked field\"", "x"],
            22,
        ),
    ] {
        let o = treeglass().args(&args).stdout(full()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains("cannot write the output"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // The write happened: the message says how the command itself ended.
    let o = treeglass()
        .args(["--backend", "fixture", "set", "text \"Full name\"", "x"])
        .stdout(full())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("No space left"),
        "{}",
        text(&o)
    );
}

// --- Files written: atomic, never through a link or onto a device ---------------------------

#[cfg(unix)]
#[test]
fn exports_and_recordings_never_write_through_links_or_onto_devices() {
    let s = Scratch::new("links");
    let rec = recording(&s);
    let victim = s.path("victim");
    std::fs::write(&victim, "precious").unwrap();
    let link = s.path("flow.json");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let o = run(&["workflow", "export", &rec, "-o", link.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("symbolic link"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    for device in ["/dev/null", "/dev/full"] {
        let o = run(&["workflow", "export", &rec, "-o", device]);
        assert_ne!(o.status.code(), Some(0), "{device}: {}", text(&o));
        assert!(text(&o).contains("a device"), "{}", text(&o));
    }
    let fifo = s.path("fifo.json");
    mkfifo(&fifo);
    let child = treeglass()
        .args(["workflow", "export", &rec, "-o", fifo.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = finish_within(child, "export onto a FIFO");
    assert!(text(&o).contains("a FIFO"), "{}", text(&o));
    // A recording given as a link is neither read through nor replaced.
    let rec_link = s.path("rec-link.json");
    std::os::unix::fs::symlink(&victim, &rec_link).unwrap();
    let o = run(&[
        "--backend",
        "fixture",
        "set",
        "text \"Full name\"",
        "x",
        "--record",
        rec_link.to_str().unwrap(),
    ]);
    assert!(text(&o).contains("not recorded"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(s.temporaries().is_empty(), "{:?}", s.temporaries());
    // The plain case still works, and replaces a regular file.
    let out = s.s("out.json");
    std::fs::write(&out, "old").unwrap();
    let o = run(&["workflow", "export", &rec, "-o", &out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("\"schemaVersion\": 1")
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_write_that_fails_half_way_leaves_the_old_file_whole() {
    let s = Scratch::new("efbig");
    let rec = recording(&s);
    let out = s.s("flow.json");
    std::fs::write(&out, "the old file").unwrap();
    // A file size limit of 512 bytes makes the export's write fail part way (EFBIG), as a
    // full disk would; SIGXFSZ is ignored so the write returns the error.
    let script = format!(
        "ulimit -f 1; trap '' XFSZ; exec '{}' workflow export '{rec}' -o '{out}'",
        env!("CARGO_BIN_EXE_treeglass")
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("too large"), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "the old file");
    assert!(s.temporaries().is_empty(), "{:?}", s.temporaries());
}

// --- Files read: regular files only, capped, never blocking -------------------------------

#[cfg(unix)]
#[test]
fn fifos_devices_and_directories_are_refused_without_blocking() {
    let s = Scratch::new("fifo");
    let fifo = s.s("in.fifo");
    mkfifo(Path::new(&fifo));
    let good =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/workflows/good-demo.json");
    let good = good.to_str().unwrap();
    let fixture = format!("fixture:{fifo}");
    let dir = s.0.to_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["workflow", "validate", &fifo], "a FIFO"),
        (vec!["workflow", "steps", &fifo], "a FIFO"),
        (vec!["workflow", "export", &fifo, "-o", "-"], "a FIFO"),
        (vec!["workflow", "run", &fifo, "--app", "x"], "a FIFO"),
        (
            vec![
                "--backend",
                "fixture",
                "workflow",
                "run",
                good,
                "--inputs-file",
                &fifo,
            ],
            "a FIFO",
        ),
        (vec!["--backend", &fixture, "apps"], "a FIFO"),
        (vec!["workflow", "steps", "/dev/zero"], "a device"),
        (vec!["workflow", "validate", "/dev/zero"], "a device"),
        (vec!["--backend", "fixture:/dev/zero", "apps"], "a device"),
        (vec!["workflow", "validate", &dir], "a directory"),
        (vec!["workflow", "steps", &dir], "a directory"),
    ];
    for (args, what) in cases {
        let child = treeglass()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let o = finish_within(child, &format!("{args:?}"));
        assert!(
            matches!(o.status.code(), Some(1 | 2)),
            "{args:?}: {}",
            text(&o)
        );
        assert!(text(&o).contains(what), "{args:?}: {}", text(&o));
    }
}

#[test]
fn endless_and_huge_inputs_are_cut_off() {
    let s = Scratch::new("caps");
    // A recording of 9 MB (over its 8 MiB cap) is refused without being parsed.
    let big = s.path("big-rec.json");
    std::fs::write(&big, vec![b' '; 9 << 20]).unwrap();
    let o = run(&["workflow", "steps", big.to_str().unwrap()]);
    assert_ne!(o.status.code(), Some(0));
    assert!(text(&o).contains("larger than"), "{}", text(&o));
    // An inputs file over 1 MiB.
    let inputs = s.path("inputs.json");
    std::fs::write(&inputs, vec![b' '; (1 << 20) + 1]).unwrap();
    let good =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/workflows/good-demo.json");
    let o = run(&[
        "--backend",
        "fixture",
        "workflow",
        "run",
        good.to_str().unwrap(),
        "--inputs-file",
        inputs.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("larger than"), "{}", text(&o));
    // `set … -` reads at most 16 MiB from standard input.
    let mut child = treeglass()
        .args(["--backend", "fixture", "set", "text \"Full name\"", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let chunk = vec![b'a'; 1 << 20];
        // treeglass stops reading after its cap: the pipe closes under the writer.
        for _ in 0..64 {
            if input.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let o = finish_within(child, "set - with an endless value");
    feeder.join().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("standard input"), "{}", text(&o));
}

// --- Deep and huge trees --------------------------------------------------------------------

/// The deepest nesting of a JSON text (strings skipped), without parsing it recursively.
fn max_nesting(json: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut escaped) = (0usize, 0usize, false, false);
    for b in json.bytes() {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth -= 1,
            _ => {}
        }
    }
    assert_eq!(depth, 0, "unbalanced JSON");
    max
}

#[test]
fn a_five_thousand_level_tree_prints_and_its_deepest_node_can_be_found() {
    let s = Scratch::new("deep");
    let deep = s.path("deep.json");
    outline_fixture(&deep, 5000, false);
    let fixture = format!("fixture:{}", deep.display());
    let o = run(&[
        "--backend",
        &fixture,
        "tree",
        "--json",
        "--max-depth",
        "6000",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8(o.stdout).unwrap();
    // The whole chain, as nested objects: the document, then per node its object and its
    // `children` array.
    assert_eq!(max_nesting(&out), 1 + 2 * 5000);
    assert!(out.contains("\"name\": \"n4999\""));
    // Output grows with the node count, not with depth squared: indentation is capped.
    let widest = out
        .lines()
        .map(|l| l.len() - l.trim_start().len())
        .max()
        .unwrap();
    assert_eq!(widest, 128);
    assert!(out.len() < 20 << 20, "{} bytes", out.len());
    // Text output too, its indentation capped as well (deeper lines say their level).
    let o = run(&["--backend", &fixture, "tree", "--max-depth", "6000"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("[4999] label \"n4999\""),
        "{}",
        &out[out.len() - 300..]
    );
    assert!(out.len() < 2 << 20, "{} bytes", out.len());
    // find reads as deep as it is told.
    let o = run(&[
        "--backend",
        &fixture,
        "find",
        "label \"n4999\"",
        "--max-depth",
        "6000",
        "--wait-ms",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).starts_with("unique"), "{}", text(&o));
    // By default the read stops at 128 levels: uniqueness cannot be claimed.
    let o = run(&[
        "--backend",
        &fixture,
        "find",
        "label =\"n4999\"",
        "--wait-ms",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(12), "{}", text(&o));
}

// --- One secrecy rule -----------------------------------------------------------------------

#[test]
fn fields_named_like_secrets_are_never_echoed_or_recorded() {
    let s = Scratch::new("secret");
    let fx = s.path("secrets.json");
    std::fs::write(
        &fx,
        r#"{"apps":[{"name":"bank","windows":[{"role":"frame","name":"Login","children":[
            {"role":"text","name":"Access token","value":{"kind":"text","text":"tok-0001"}},
            {"role":"text","name":"PIN","value":{"kind":"text","text":"8642"}},
            {"role":"text","name":"Shipping address","value":{"kind":"text","text":"Main St"}}
        ]}]}]}"#,
    )
    .unwrap();
    let fixture = format!("fixture:{}", fx.display());
    let o = run(&["--backend", &fixture, "tree"]);
    let out = text(&o);
    assert!(
        out.contains("text \"Access token\" = (secret, 8 chars)"),
        "{out}"
    );
    assert!(out.contains("text \"PIN\" = (secret, 4 chars)"), "{out}");
    assert!(out.contains("\"Main St\""), "{out}");
    let o = run(&["--backend", &fixture, "tree", "--json"]);
    let out = text(&o);
    assert!(!out.contains("tok-0001") && !out.contains("8642"), "{out}");
    assert!(out.contains("\"kind\": \"secret\""), "{out}");
    let rec = s.s("rec.json");
    for json in [false, true] {
        let mut args = vec![
            "--backend",
            fixture.as_str(),
            "set",
            "text \"PIN\"",
            "1357",
            "--record",
            rec.as_str(),
        ];
        if json {
            args.push("--json");
        }
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let out = text(&o);
        assert!(!out.contains("1357") && !out.contains("8642"), "{out}");
        assert!(out.contains("secret, 4 chars"), "{out}");
    }
    let recorded = std::fs::read_to_string(&rec).unwrap();
    assert!(!recorded.contains("1357"), "{recorded}");
    assert!(recorded.contains("${inputs."), "{recorded}");
}

#[test]
fn a_huge_value_is_not_echoed_in_full() {
    let value = "v".repeat(10 << 20);
    for json in [false, true] {
        let mut args = vec!["--backend", "fixture", "set", "text \"Full name\"", "-"];
        if json {
            args.push("--json");
        }
        let mut child = treeglass()
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let v = value.clone();
        let feeder = std::thread::spawn(move || {
            let _ = input.write_all(v.as_bytes());
        });
        let o = finish_within(child, "set a 10 MB value");
        feeder.join().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            o.stdout.len() < 8_000,
            "json={json}: {} bytes echoed",
            o.stdout.len()
        );
    }
}

// --- Option names ---------------------------------------------------------------------------

#[test]
fn each_wait_has_one_name_and_meaning() {
    for cmd in ["find", "get", "set", "invoke"] {
        let o = run(&[cmd, "--help"]);
        let help = text(&o);
        assert!(help.contains("--wait-ms"), "{cmd}: {help}");
        assert!(help.contains("--max-depth"), "{cmd}: {help}");
        assert!(!help.contains("timeout-ms"), "{cmd}: {help}");
        assert_eq!(
            help.contains("--readback-ms"),
            cmd == "set" || cmd == "invoke",
            "{cmd}: {help}"
        );
    }
    // `invoke --wait-ms` is the wait for the target (`--readback-ms` the wait after the action).
    let o = run(&[
        "--backend",
        "fixture",
        "invoke",
        "button \"No such button\"",
        "--wait-ms",
        "100",
        "--readback-ms",
        "100",
    ]);
    assert_eq!(o.status.code(), Some(11), "{}", text(&o));
    // The old names still parse (hidden), with their old meanings.
    let o = run(&[
        "--backend",
        "fixture",
        "find",
        "button",
        "--timeout-ms",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(10), "{}", text(&o));
    let o = run(&[
        "--backend",
        "fixture",
        "get",
        "button",
        "--resolve-timeout-ms",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(10), "{}", text(&o));
}
