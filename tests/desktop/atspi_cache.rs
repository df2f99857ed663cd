//! A one-shot read gets the app's cache. The ATK bridge (GTK 3, Chromium) builds its
//! `org.a11y.atspi.Cache` only once some client has registered for an event; until then
//! `Cache.GetItems` does not exist and a tree costs six calls per element. `treeglass tree`
//! registers one rare event kind before reading, so the bridge wakes.
//!
//! The test runs alone (`common::turn::alone`) on purpose: any other client registering events
//! on the same bus (a pyatspi walk, the TUI, a fresh resolution) would wake the bridge too and
//! hide a regression.
//! The app is started and waited for with `treeglass apps`, which reads no tree.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{json_of, registered_app, repo, require_stack, treeglass};

fn cache_answers(pid: u32) -> bool {
    let o = Command::new("/usr/bin/python3")
        .arg(format!("{}/scripts/bus-baselines.py", repo()))
        .args(["--pid", &pid.to_string(), "--probe"])
        .output()
        .expect("run scripts/bus-baselines.py");
    assert!(
        o.status.success(),
        "bus-baselines --probe: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("probe JSON");
    v["cache"].as_bool().expect("cache: bool")
}

#[test]
fn a_one_shot_tree_wakes_the_atk_bridge_cache() {
    let _turn = common::turn::alone();
    require_stack();
    let mut child = Command::new("gtk3-widget-factory")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gtk3-widget-factory (Debian package gtk-3-examples)");
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(30);
    while registered_app(pid).is_none() {
        assert!(
            Instant::now() < deadline,
            "gtk3-widget-factory never registered on the bus"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    assert!(
        !cache_answers(pid),
        "the bridge already had a cache before treeglass read anything: some other client is \
         registered for events on this bus, so this test cannot tell"
    );
    let o = treeglass(&["tree", "--pid", &pid.to_string(), "--json"]);
    assert!(
        o.status.success(),
        "tree: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json_of(&o);
    assert!(v["node_count"].as_u64().unwrap_or(0) > 50, "{v}");
    assert!(
        cache_answers(pid),
        "after `treeglass tree` the app still has no Cache.GetItems: the read walked the tree"
    );

    assert!(
        child.try_wait().expect("wait").is_none(),
        "gtk3-widget-factory died"
    );
    assert!(
        registered_app(pid).is_some(),
        "gtk3-widget-factory left the bus"
    );
    let _ = child.kill();
    let _ = child.wait();
}
