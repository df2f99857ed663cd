//! The toolkit matrix: real apps of every toolkit treeglass claims (GTK 3, GTK 4, Qt 5, Qt 6,
//! Chromium), started inside the private accessibility stack, settled, and checked to be alive
//! and registered after everything a test does to them.

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{repo, require_stack};

/// One app of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kit {
    /// gtk3-widget-factory (Debian gtk-3-examples).
    Gtk3,
    /// gtk4-widget-factory 4.8 (Debian gtk-4-examples), with the cairo renderer under Xvfb.
    Gtk4,
    /// The Qt 5.15 widget gallery example (Debian qtbase5-examples).
    Qt5,
    /// qt6ct, a Qt 6.4 app from Debian.
    Qt6,
    /// Debian's Chromium on the project's form page (tests/web/form.html).
    Chromium,
    /// Chromium on the big page: 2,000 form rows (`tests/web/bigpage.py`), about 28,000 nodes.
    BigPage,
    /// Firefox ESR on the same big page.
    FirefoxBigPage,
    /// Firefox ESR (Gecko) on the project's form page.
    Firefox,
    /// LibreOffice Calc (VCL gtk3) on a new sheet: its table manages a million rows of cells.
    Calc,
    /// LibreOffice Writer (VCL gtk3) on a new document.
    Writer,
}

impl Kit {
    pub const ALL: [Kit; 5] = [Kit::Gtk3, Kit::Gtk4, Kit::Qt5, Kit::Qt6, Kit::Chromium];

    pub fn label(self) -> &'static str {
        match self {
            Kit::Gtk3 => "gtk3-widget-factory",
            Kit::Gtk4 => "gtk4-widget-factory",
            Kit::Qt5 => "Qt 5 gallery",
            Kit::Qt6 => "qt6ct",
            Kit::Chromium => "Chromium form page",
            Kit::BigPage => "Chromium big page",
            Kit::FirefoxBigPage => "Firefox big page",
            Kit::Firefox => "Firefox form page",
            Kit::Calc => "LibreOffice Calc",
            Kit::Writer => "LibreOffice Writer",
        }
    }

    /// The toolkit name treeglass reports for it.
    pub fn toolkit(self) -> &'static str {
        match self {
            Kit::Gtk3 | Kit::Gtk4 => "gtk",
            Kit::Qt5 | Kit::Qt6 => "qt",
            Kit::Chromium | Kit::BigPage => "chromium",
            Kit::FirefoxBigPage | Kit::Firefox => "gecko",
            Kit::Calc | Kit::Writer => "gtk",
        }
    }

    /// Whether a `tree --json` read (`v`, its text `out`) shows the app ready: what the app
    /// itself shows once it has started (its window, the content the tests use), never a node
    /// count, which changes with the toolkit's version (gtk4-widget-factory: 949 nodes on GTK
    /// 4.8, 277 on 4.18).
    fn ready(self, v: &Value, out: &str, page: Option<&str>, rows: usize) -> bool {
        let root = &v["root"];
        match self {
            // Gecko names a field after its label a little after the page shows.
            Kit::Chromium | Kit::Firefox => match page {
                Some(heading) => has_node(root, "heading", heading),
                None => has_node(root, "text", "Full name:"),
            },
            Kit::BigPage | Kit::FirefoxBigPage => out.contains(&format!("Row {rows} done")),
            Kit::Calc => out.contains("Sheet1") && shown(root),
            Kit::Writer => shown(root) && has_role(root, "document"),
            Kit::Gtk3 | Kit::Gtk4 => shown(root) && has_role(root, "check-box"),
            Kit::Qt5 | Kit::Qt6 => shown(root) && has_role(root, "button"),
        }
    }

    /// Whether it is a browser on the big page.
    pub fn is_big_page(self) -> bool {
        matches!(self, Kit::BigPage | Kit::FirefoxBigPage)
    }

    /// Whether it is LibreOffice.
    pub fn is_office(self) -> bool {
        matches!(self, Kit::Calc | Kit::Writer)
    }
}

/// LibreOffice's own binary (Debian libreoffice-core).
const SOFFICE: &str = "/usr/lib/libreoffice/program/soffice.bin";

/// The big page's rows.
pub const BIG_PAGE_ROWS: usize = 2_000;

/// Writes the big page (`tests/web/bigpage.py`) into `dir` and returns its address.
pub fn big_page_url(dir: &std::path::Path, rows: usize) -> String {
    let file = dir.join("big.html");
    let ok = Command::new("/usr/bin/python3")
        .arg(format!("{}/tests/web/bigpage.py", repo()))
        .arg(&file)
        .arg(rows.to_string())
        .status()
        .expect("run tests/web/bigpage.py")
        .success();
    assert!(ok, "tests/web/bigpage.py failed");
    format!("file://{}", file.display())
}

/// Whether the `tree --json` tree under `n` holds an element of this (neutral or raw) role.
fn has_role(n: &Value, role: &str) -> bool {
    let raw = n["raw_role"].as_str().unwrap_or("");
    n["role"] == role
        || raw.split(' ').any(|w| w == role)
        || n["children"]
            .as_array()
            .is_some_and(|k| k.iter().any(|c| has_role(c, role)))
}

/// Whether a window of the read (the root, or a frame, dialog or window in it) is showing.
fn shown(n: &Value) -> bool {
    let showing = n["states"]
        .as_array()
        .is_some_and(|s| s.iter().any(|s| s == "showing"));
    (showing && ["frame", "dialog", "window"].contains(&n["role"].as_str().unwrap_or("")))
        || n["children"]
            .as_array()
            .is_some_and(|k| k.iter().any(shown))
}

/// Whether the `tree --json` tree under `n` holds an element of this role and name.
fn has_node(n: &Value, role: &str, name: &str) -> bool {
    (n["role"] == role && n["name"] == name)
        || n["children"]
            .as_array()
            .is_some_and(|k| k.iter().any(|c| has_node(c, role, name)))
}

/// gtk4-widget-factory's elements the tests write, as treeglass's own suggestions name them.
/// A target written for one GTK version may find nothing on another: GTK 4.8 names unnamed
/// widgets after their class (`text "GtkEntry" #3`), GTK 4.18 leaves them unnamed (`text #3`).
/// Each is found by what it is (role, states, value, whether it has actions) in tree order,
/// on the first page, and named by the target `tree --targets` suggests for it.
#[derive(Debug, Clone)]
pub struct Gtk4Targets {
    /// The first enabled, empty, single-line text field.
    pub entry: String,
    /// The enabled spin button.
    pub spin: String,
    pub password: String,
    /// The first enabled check box ("checkbutton") that is on, off, mixed.
    pub on_box: String,
    pub off_box: String,
    pub mixed_box: String,
    /// The switch: the first enabled check box with an action (check buttons have none).
    pub switch: String,
    /// The first enabled combo box with no text field of its own.
    pub combo: String,
}

impl Gtk4Targets {
    pub fn learn(app: &MatrixApp) -> Gtk4Targets {
        assert_eq!(app.kit, Kit::Gtk4, "gtk4-widget-factory's targets");
        let o = app.treeglass(&["tree", "--json", "--targets", "--actions"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: Value = serde_json::from_slice(&o.stdout).expect("tree JSON");
        let mut nodes = Vec::new();
        let mut stack = vec![&v["root"]];
        while let Some(n) = stack.pop() {
            nodes.push(n);
            if let Some(k) = n["children"].as_array() {
                stack.extend(k.iter().rev());
            }
        }
        let has = |n: &Value, st: &str| {
            n["states"]
                .as_array()
                .is_some_and(|s| s.iter().any(|x| x == st))
        };
        let enabled = |n: &Value| has(n, "enabled");
        let find = |what: &str, ok: &dyn Fn(&Value) -> bool| -> String {
            let n = nodes
                .iter()
                .find(|n| ok(n))
                .unwrap_or_else(|| panic!("gtk4-widget-factory shows no {what}"));
            n["target"]
                .as_str()
                .unwrap_or_else(|| panic!("no suggested target for the {what}: {n}"))
                .to_string()
        };
        let toggle = |n: &Value, state: &str| {
            n["role"] == "check-box"
                && enabled(n)
                && n["actions"].as_array().is_none_or(|a| a.is_empty())
                && n["value"]["state"] == state
        };
        let holds_text = |n: &Value| {
            let mut stack = vec![n];
            while let Some(m) = stack.pop() {
                if m["role"] == "text" {
                    return true;
                }
                if let Some(k) = m["children"].as_array() {
                    stack.extend(k.iter());
                }
            }
            false
        };
        Gtk4Targets {
            entry: find("empty text field", &|n| {
                n["role"] == "text"
                    && enabled(n)
                    && has(n, "editable")
                    && !has(n, "multi-line")
                    && n["value"]["text"] == ""
            }),
            spin: find("enabled spin button", &|n| {
                n["role"] == "spin-button" && enabled(n)
            }),
            password: find("password field", &|n| {
                n["role"] == "password-text" && enabled(n)
            }),
            on_box: find("check box that is on", &|n| toggle(n, "on")),
            off_box: find("check box that is off", &|n| toggle(n, "off")),
            mixed_box: find("mixed check box", &|n| toggle(n, "mixed")),
            switch: find("switch", &|n| {
                n["role"] == "check-box"
                    && enabled(n)
                    && n["actions"].as_array().is_some_and(|a| !a.is_empty())
            }),
            combo: find("combo box without a text field", &|n| {
                n["role"] == "combo-box" && enabled(n) && !holds_text(n)
            }),
        }
    }
}

/// A running matrix app. Killed on drop.
pub struct MatrixApp {
    pub kit: Kit,
    child: Child,
    pub pid: u32,
    profile: Option<PathBuf>,
    /// The rows of a big page ([`BIG_PAGE_ROWS`] unless started by [`MatrixApp::start_page`]).
    pub rows: usize,
    /// The page a browser was started on instead of the form page, and the heading that says
    /// it has loaded.
    page: Option<(String, &'static str)>,
    /// When the step that [`MatrixApp::assert_alive`] closes began (its start, or the last
    /// check): each check prints the step's seconds, which a failing test shows.
    step: Instant,
}

/// The file in an app's scratch directory that holds what it printed.
const PRINTED: &str = "printed.txt";

/// A new scratch directory for one app's profile and files.
fn scratch(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tg-{what}-{}-{}",
        std::process::id(),
        super::next_id()
    ));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The form page's address.
pub fn form_url() -> String {
    format!("file://{}/tests/web/form.html", repo())
}

impl MatrixApp {
    /// Starts `kit` and waits until it is registered and its tree has stopped growing.
    pub fn start(kit: Kit) -> MatrixApp {
        MatrixApp::start_rows(kit, BIG_PAGE_ROWS, None)
    }

    /// Chromium or Firefox on one of the project's pages (`tests/web/NAME`), settled once a
    /// heading of this name is in its tree.
    pub fn start_on(kit: Kit, name: &str, heading: &'static str) -> MatrixApp {
        assert!(matches!(kit, Kit::Chromium | Kit::Firefox), "a browser");
        let url = format!("file://{}/tests/web/{name}", repo());
        MatrixApp::start_rows(kit, BIG_PAGE_ROWS, Some((url, heading)))
    }

    /// Chromium on a generated form page of `rows` rows (about 13 nodes a row).
    pub fn start_page(rows: usize) -> MatrixApp {
        MatrixApp::start_rows(Kit::BigPage, rows, None)
    }

    fn start_rows(kit: Kit, rows: usize, page: Option<(String, &'static str)>) -> MatrixApp {
        require_stack();
        let step = Instant::now();
        let mut profile = None;
        let mut cmd = match kit {
            Kit::Gtk3 => Command::new("gtk3-widget-factory"),
            Kit::Gtk4 => {
                let mut c = Command::new("gtk4-widget-factory");
                c.env("GSK_RENDERER", "cairo");
                c
            }
            Kit::Qt5 => {
                Command::new("/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/gallery/gallery")
            }
            Kit::Qt6 => Command::new("qt6ct"),
            Kit::FirefoxBigPage | Kit::Firefox => {
                let dir = scratch("firefox");
                let url = if kit == Kit::Firefox {
                    page.as_ref().map_or_else(form_url, |p| p.0.clone())
                } else {
                    big_page_url(&dir, rows)
                };
                let mut c = Command::new("firefox-esr");
                c.args(["--no-remote", "--new-instance", "--profile"])
                    .arg(&dir)
                    .arg(url)
                    .env("MOZ_DISABLE_CONTENT_SANDBOX", "1")
                    .env("GNOME_ACCESSIBILITY", "1");
                profile = Some(dir);
                c
            }
            Kit::Calc | Kit::Writer => {
                let dir = scratch("office");
                // soffice.bin itself (the `soffice` script forks it): the pid is the app's. A
                // new profile makes the first start exit to be restarted (81): made first.
                let made = Command::new(SOFFICE)
                    .args(["--terminate_after_init", "--norestore", "--nologo"])
                    .arg(format!("-env:UserInstallation=file://{}", dir.display()))
                    .env("SAL_USE_VCLPLUGIN", "gtk3")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .expect("start LibreOffice (scripts/install-deps installs it)");
                assert!(
                    made.success(),
                    "LibreOffice could not make its profile: {made}"
                );
                let mut c = Command::new(SOFFICE);
                c.arg(if kit == Kit::Calc {
                    "--calc"
                } else {
                    "--writer"
                })
                .args(["--norestore", "--nologo", "--nofirststartwizard"])
                .arg(format!("-env:UserInstallation=file://{}", dir.display()))
                .env("SAL_USE_VCLPLUGIN", "gtk3");
                profile = Some(dir);
                c
            }
            Kit::Chromium | Kit::BigPage => {
                let dir = scratch("chromium");
                let url = if kit == Kit::BigPage {
                    big_page_url(&dir, rows)
                } else {
                    page.as_ref().map_or_else(form_url, |p| p.0.clone())
                };
                let mut c = Command::new("chromium");
                c.args([
                    "--no-sandbox",
                    "--force-renderer-accessibility",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                    "--no-default-browser-check",
                    "--disable-gpu",
                    "--password-store=basic",
                    "--window-position=0,0",
                    "--window-size=1000,900",
                ])
                .arg(format!("--user-data-dir={}", dir.display()))
                .arg(url);
                if super::on_wayland() {
                    c.arg("--ozone-platform=wayland");
                }
                profile = Some(dir);
                c
            }
        };
        // What the app prints, kept where it has a scratch directory (the browsers, LibreOffice):
        // a test that sees it die shows the end of it.
        let printed = profile
            .as_ref()
            .and_then(|d| std::fs::File::create(d.join(PRINTED)).ok());
        let (out, err) = match printed.and_then(|f| f.try_clone().ok().map(|g| (f, g))) {
            Some((f, g)) => (Stdio::from(f), Stdio::from(g)),
            None => (Stdio::null(), Stdio::null()),
        };
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "start {} (scripts/install-deps installs it): {e}",
                    kit.label()
                )
            });
        let mut app = MatrixApp {
            kit,
            pid: child.id(),
            child,
            profile,
            rows,
            page,
            step,
        };
        app.wait_settled();
        app
    }

    /// The last lines the app printed (where they are kept), for a failure's message.
    fn printed(&self) -> String {
        let Some(text) = self
            .profile
            .as_ref()
            .and_then(|d| std::fs::read_to_string(d.join(PRINTED)).ok())
        else {
            return String::new();
        };
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        format!("; the last lines it printed:\n{tail}")
    }

    /// `--pid N` for treeglass commands.
    pub fn scope(&self) -> [String; 2] {
        ["--pid".into(), self.pid.to_string()]
    }

    /// Runs treeglass on this app: `args` then `--pid N`.
    pub fn treeglass(&self, args: &[&str]) -> Output {
        let scope = self.scope();
        let mut all: Vec<&str> = args.to_vec();
        all.push(&scope[0]);
        all.push(&scope[1]);
        super::treeglass(&all)
    }

    fn wait_settled(&mut self) {
        // A big page loads for a while, and every read slows its loading: fewer reads, longer.
        let (limit, pause) = if self.kit.is_big_page() {
            (Duration::from_secs(240), Duration::from_secs(3))
        } else {
            (Duration::from_secs(60), Duration::from_millis(300))
        };
        let deadline = Instant::now() + limit;
        let mut last = 0u64;
        let mut same = 0;
        let mut seen = String::new();
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited while starting: {status}{}",
                    self.kit.label(),
                    self.printed()
                );
            }
            let o = self.treeglass(&["tree", "--json"]);
            if o.status.success() {
                let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
                let count = v["node_count"].as_u64().unwrap_or(0);
                let out = String::from_utf8_lossy(&o.stdout);
                let page = self.page.as_ref().map(|p| p.1);
                let ready = self.kit.ready(&v, &out, page, self.rows);
                if ready && count > 0 && count == last {
                    same += 1;
                    if same >= 2 {
                        return;
                    }
                } else {
                    same = 0;
                }
                last = count;
            } else {
                seen = String::from_utf8_lossy(&o.stderr).into_owned();
            }
            std::thread::sleep(pause);
        }
        panic!(
            "{} never settled on the bus (last count {last}; last error: {seen})",
            self.kit.label()
        );
    }

    /// Panics unless the app's process is alive, still registered on the bus and answering.
    pub fn assert_alive(&mut self, after: &str) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!(
                "{} DIED after {after}: {status} (an inspector must never harm the app){}",
                self.kit.label(),
                self.printed()
            );
        }
        super::assert_answers(self.pid, self.kit.label(), after);
        eprintln!(
            "{}: {after}, and the check after it: {:.1} s",
            self.kit.label(),
            self.step.elapsed().as_secs_f64()
        );
        self.step = Instant::now();
    }

    /// Sends a signal to the app.
    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.pid.to_string())
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{sig} {}", self.pid);
    }

    /// Waits for the app to exit (after a kill) and returns how it ended.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        self.child.wait().expect("wait for the app")
    }

    /// Whether the app's process has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

impl Drop for MatrixApp {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-CONT")
            .arg(self.pid.to_string())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(dir) = &self.profile {
            // Chromium's helpers may still be writing for a moment after the browser exits.
            let deadline = Instant::now() + Duration::from_secs(3);
            while std::fs::remove_dir_all(dir).is_err() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// Runs one of the project's pyatspi scripts (`scripts/NAME`, python3-pyatspi) and parses the
/// JSON it prints; panics with its standard error when it fails.
fn pyatspi_script(script: &str, args: &[&str]) -> Value {
    let o = Command::new("/usr/bin/python3")
        .arg(format!("{}/scripts/{script}", repo()))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run scripts/{script} (python3-pyatspi): {e}"));
    assert!(
        o.status.success(),
        "scripts/{script} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("scripts/{script} JSON: {e}"))
}

/// The pyatspi reference walk of the app with this process id.
pub fn pyatspi_walk_pid(pid: u32) -> Value {
    pyatspi_script("pyatspi-walk.py", &["--pid", &pid.to_string(), "--json"])
}

/// What an independent pyatspi read says of the elements with these treeglass ids (bus name +
/// object path), keyed by object path; `null` for one it did not find.
pub fn pyatspi_read(pid: u32, ids: &[&str]) -> Value {
    let pid = pid.to_string();
    let mut args = vec!["--pid", pid.as_str()];
    args.extend(ids.iter().map(|id| id.find('/').map_or(*id, |i| &id[i..])));
    pyatspi_script("pyatspi-read.py", &args)
}

/// Every element of a page's app with a DOM id, by id: its object path, role and name
/// (`scripts/pyatspi-ids.py`).
pub fn pyatspi_ids(pid: u32) -> Value {
    pyatspi_script("pyatspi-ids.py", &["--pid", &pid.to_string()])
}

/// The element a `set --json` / `invoke --json` result was about, read with pyatspi. It must
/// be found (a `null` would read as "nothing to compare" and let every check pass), and be the
/// element the result names: the same name (but for a combo box, which is named by the option
/// it holds).
pub fn pyatspi_of(pid: u32, result: &Value) -> Value {
    let id = result["node"].as_str().expect("result names its node");
    let path = id.find('/').map_or(id, |i| &id[i..]);
    let v = pyatspi_read(pid, &[id]);
    let seen = v[path].clone();
    assert!(
        seen.is_object(),
        "pyatspi did not find {id} (the element of {result})"
    );
    if result["role"] != "combo-box" {
        assert_eq!(
            seen["name"], result["name"],
            "pyatspi's element {id} is not the one the result names: {seen} vs {result}"
        );
    }
    seen
}

/// The project's Qt form (tests/qt_form.py) on Qt 5 or Qt 6, with its stdin protocol as an
/// oracle that is not the accessibility tree.
pub struct QtForm {
    child: Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    pub pid: u32,
    pub name: String,
    pub qt: u8,
}

impl QtForm {
    pub fn start(qt: u8) -> QtForm {
        use std::io::BufRead;
        require_stack();
        let name = format!("tgqt{qt}-{}-{}", std::process::id(), super::next_id());
        let mut child = Command::new("/usr/bin/python3")
            .arg(format!("{}/tests/qt_form.py", repo()))
            .args(["--qt", &qt.to_string(), "--name", &name])
            .env("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")
            .env(
                "QT_QPA_PLATFORM",
                if super::on_wayland() {
                    "wayland"
                } else {
                    "xcb"
                },
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start tests/qt_form.py (python3-pyqt5 / python3-pyqt6)");
        let stdin = child.stdin.take().expect("stdin");
        let out = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut form = QtForm {
            pid: child.id(),
            child,
            stdin,
            lines: rx,
            name,
            qt,
        };
        let ready = form.line();
        assert!(
            ready.contains("ready"),
            "the Qt form did not start: {ready}"
        );
        form.wait_registered();
        form
    }

    fn line(&mut self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("Qt {} form said nothing", self.qt))
    }

    fn wait_registered(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let o = self.treeglass(&["tree", "--json"]);
            if o.status.success() && String::from_utf8_lossy(&o.stdout).contains("Press me") {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("the Qt {} form never appeared on the bus", self.qt);
    }

    /// The form's real state.
    pub fn state(&mut self) -> Value {
        use std::io::Write;
        writeln!(self.stdin, "state").expect("write to the Qt form");
        self.stdin.flush().expect("flush");
        serde_json::from_str(&self.line()).expect("state JSON")
    }

    /// Runs treeglass on this app: `args` then `--pid N`.
    pub fn treeglass(&self, args: &[&str]) -> Output {
        let pid = self.pid.to_string();
        let mut all: Vec<&str> = args.to_vec();
        all.extend_from_slice(&["--pid", &pid]);
        super::treeglass(&all)
    }

    /// Panics unless the form is alive and still registered.
    pub fn assert_alive(&mut self, after: &str) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("the Qt {} form DIED after {after}: {status}", self.qt);
        }
        let o = super::treeglass(&["apps", "--json"]);
        let v: Value = serde_json::from_slice(&o.stdout).expect("apps JSON");
        let registered = v["apps"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["pid"].as_u64() == Some(self.pid as u64)));
        assert!(
            registered,
            "the Qt {} form left the bus after {after}",
            self.qt
        );
    }
}

impl Drop for QtForm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// (raw role, name) in pre-order: treeglass's JSON tree, and the pyatspi walk from the same
/// root (the walk starts at the application; treeglass read the app's only window, if any).
pub fn compare_with_pyatspi(app: &MatrixApp, ours: &Value) {
    let reference = pyatspi_walk_pid(app.pid);
    let mut flat = Vec::new();
    super::flatten_enumerated(&ours["root"], &mut flat);
    let ours: Vec<(String, String)> = flat.into_iter().map(|(r, n, _)| (r, steady(&n))).collect();
    let skip = usize::from(ours.first().is_none_or(|(r, _)| r != "application"));
    let theirs: Vec<(String, String)> = reference["nodes"]
        .as_array()
        .expect("the walk's nodes")
        .iter()
        .skip(skip)
        .map(|n| {
            (
                super::walk_role(n),
                steady(n["name"].as_str().expect("name")),
            )
        })
        .collect();
    if ours != theirs {
        let first = ours
            .iter()
            .zip(&theirs)
            .position(|(a, b)| a != b)
            .unwrap_or(ours.len().min(theirs.len()));
        panic!(
            "{}: treeglass read {} nodes, pyatspi {}; first difference at {first}: ours {:?} vs \
             pyatspi {:?}",
            app.kit.label(),
            ours.len(),
            theirs.len(),
            ours.get(first),
            theirs.get(first)
        );
    }
}

/// A name without the part that changes from one read to the next: Chromium's tab names end
/// in the tab's live memory use (" - Memory usage - 174 MB").
fn steady(name: &str) -> String {
    match name.find(" - Memory usage - ") {
        Some(i) => name[..i].to_string(),
        None => name.to_string(),
    }
}
