use super::*;

/// A fake `/proc`: (pid, ppid, executable).
fn procs(rows: &[(u32, u32, &str)]) -> Procs {
    Procs(
        rows.iter()
            .map(|(pid, ppid, exe)| {
                (
                    *pid,
                    Proc {
                        ppid: *ppid,
                        exe: (!exe.is_empty()).then(|| exe.to_string()),
                    },
                )
            })
            .collect(),
    )
}

fn window(pid: u32, id: u32, size: u32) -> OwnedWindow {
    OwnedWindow {
        pid,
        window: u64::from(id),
        label: format!("{id:#x}"),
        width: size,
        height: size,
        title: format!("window {id}"),
    }
}

const SHELL: &str = "/usr/bin/bash";
const FIREFOX: &str = "/usr/lib/firefox-esr/firefox-esr";
const CHROMIUM: &str = "/usr/lib/chromium/chromium";
const CRASHPAD: &str = "/usr/lib/chromium/chrome_crashpad_handler";
const PYTHON: &str = "/usr/bin/python3.11";
const FACTORY: &str = "/usr/bin/gtk3-widget-factory";

/// A desktop as the doctor met it: a shell that started Firefox (content processes under a
/// forkserver), Chromium (zygotes, renderers; crash handlers reparented to init), two
/// copies of one Python GTK app and gtk3-widget-factory.
fn desktop() -> Procs {
    procs(&[
        (1, 0, "/sbin/init"),
        (100, 1, SHELL),
        // Firefox: main, a content process, the forkserver and the tabs under it.
        (200, 100, FIREFOX),
        (201, 200, FIREFOX),
        (202, 200, FIREFOX),
        (203, 202, FIREFOX),
        (204, 202, FIREFOX),
        // Chromium: main, zygotes, a renderer, its GPU process.
        (300, 100, CHROMIUM),
        (301, 300, CHROMIUM),
        (302, 301, CHROMIUM),
        (303, 300, CHROMIUM),
        (310, 1, CRASHPAD),
        (311, 1, CRASHPAD),
        // Two copies of the same Python program, started by the shell.
        (400, 100, PYTHON),
        (401, 100, PYTHON),
        (500, 100, FACTORY),
        // Another user's process: its executable cannot be read.
        (600, 1, ""),
        (601, 600, ""),
    ])
}

#[test]
fn an_apps_processes_are_one_app_through_parents_of_the_same_executable() {
    let p = desktop();
    // Descendants (through a forkserver too) and siblings under the app's own process.
    for pid in [200, 201, 202, 203, 204] {
        assert_eq!(p.app_of(pid), 200, "firefox {pid}");
    }
    for pid in [300, 301, 302, 303] {
        assert_eq!(p.app_of(pid), 300, "chromium {pid}");
    }
    // A crash handler runs another executable: an app of its own (it owns no window).
    assert_eq!(p.app_of(310), 310);
    // Two copies of a program started from one shell are two apps.
    assert_eq!(p.app_of(400), 400);
    assert_eq!(p.app_of(401), 401);
    // Unknown executables never join an app; unknown pids are their own.
    assert_eq!(p.app_of(601), 601);
    assert_eq!(p.app_of(9999), 9999);
}

#[test]
fn a_parent_loop_ends() {
    let p = procs(&[(10, 11, PYTHON), (11, 10, PYTHON)]);
    let a = p.app_of(10);
    assert!(a == 10 || a == 11);
}

#[test]
fn only_windows_of_apps_with_nothing_on_the_bus_are_flagged() {
    let p = desktop();
    let windows = [
        // Firefox's window belongs to its main process, Chromium's to its own.
        window(200, 0x600003, 800),
        window(300, 0xa00002, 900),
        // A window of one of Firefox's content processes: still Firefox's.
        window(203, 0x600010, 100),
        window(400, 0x400007, 400),
        window(401, 0x500007, 400),
        window(500, 0x800004, 600),
        window(500, 0x800009, 200),
        // No process here has this pid (another pid namespace).
        window(7777, 0x900001, 500),
    ];
    // Firefox, Chromium and the first Python copy are registered.
    let registered: HashSet<u32> = [200, 300, 400].into();
    let flagged: Vec<(u32, u64)> = windows_off_the_bus(&p, &windows, &registered, 999)
        .iter()
        .map(|w| (w.pid, w.window))
        .collect();
    // The second Python copy and the factory (by its largest window), nothing else.
    assert_eq!(flagged, vec![(401, 0x500007), (500, 0x800004)]);

    // The app registers through a child process of the same executable: not flagged.
    let registered: HashSet<u32> = [201, 302, 400, 401, 500].into();
    assert!(windows_off_the_bus(&p, &windows[..7], &registered, 999).is_empty());

    // treeglass's own windows (it has none, but never itself).
    assert!(windows_off_the_bus(&p, &windows[4..5], &HashSet::new(), 401).is_empty());
}

#[test]
fn without_windows_only_the_top_process_of_each_app_off_the_bus_is_considered() {
    let p = desktop();
    let registered: HashSet<u32> = [200, 300].into();
    // Firefox's and Chromium's processes are covered; crash handlers, the Python copies,
    // the factory, the shell and init are candidates (the environment then decides).
    assert_eq!(
        apps_off_the_bus(&p, &registered, 100),
        vec![1, 310, 311, 400, 401, 500, 600, 601]
    );
}

#[test]
fn the_parent_pid_is_read_after_the_command_name() {
    assert_eq!(
        parse_ppid("4242 (Web Content) S 4200 4242 4200 0 -1 4194560"),
        Some(4200)
    );
    assert_eq!(parse_ppid("7 (a) b) (c) R 1 7 7"), Some(1));
    assert_eq!(parse_ppid("garbage"), None);
}

#[test]
fn a_silent_app_reads_not_responding_and_one_that_left_reads_exited() {
    let left = unread_report(sample(), Unread::Left, Duration::from_millis(1500));
    assert!(left.responding);
    assert!(left.hint.is_some_and(|h| h.contains("exited")));
    let r = unread_report(sample(), Unread::NotResponding, Duration::from_millis(1500));
    assert!(!r.responding);
    assert_eq!(r.status, Status::Warn);
    let hint = r.hint.unwrap_or_default();
    assert!(
        hint.contains(
            "does not answer accessibility calls (no reply in 1.5 s); it may be busy or hung"
        ),
        "{hint}"
    );
    assert!(!hint.contains("exited"), "{hint}");
}

fn sample() -> AppReport {
    AppReport {
        name: "freeze".into(),
        pid: Some(9),
        toolkit: None,
        toolkit_version: None,
        registered: true,
        nodes: None,
        responding: true,
        window: None,
        status: Status::Ok,
        hint: None,
    }
}
