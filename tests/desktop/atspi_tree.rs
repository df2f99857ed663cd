//! The AT-SPI reader on the real bus: the project's GTK fixture and gtk3-widget-factory,
//! cross-checked against a pyatspi walk; apps that die or hang mid-read.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::*;
use treeglass::backend::atspi::AtspiBackend;
use treeglass::backend::{Backend, BackendError, Limits};
use treeglass::model::{Role, Truncation};

#[test]
fn fixture_tree_has_every_widget_with_roles_and_values() {
    let _turn = common::turn::shared();
    let app = FixtureApp::start("tree");
    let o = treeglass(&["tree", "--app", &app.app_arg(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = json_of(&o);
    assert_eq!(v["complete"], true);
    assert!(v["snapshot"].as_str().unwrap().starts_with('s'));
    let mut nodes = Vec::new();
    flatten(&v["root"], &mut nodes);
    assert_eq!(nodes.len() as u64, v["node_count"].as_u64().unwrap());
    // Rows are the pre-order index.
    for (i, n) in nodes.iter().enumerate() {
        assert_eq!(n.2, i as u64);
    }
    let has = |role: &str, name: &str| nodes.iter().any(|(r, n, _)| r == role && n == name);
    for (role, name) in [
        ("text", "Full name"),
        ("password text", "Password"),
        ("spin button", "Quantity"),
        ("slider", "Volume"),
        ("check box", "Subscribe"),
        ("toggle button", "Bold"),
        ("combo box", "Colour"),
        ("text", "Account ID"),
        ("text", "Locked field"),
        ("list box", "Fruits"),
        ("list item", "Banana"),
        ("page tab", "Advanced"),
        ("push button", "Add item"),
    ] {
        assert!(has(role, name), "missing {role} {name:?} in {nodes:?}");
    }
    // Values and states come with the snapshot.
    let text = stdout(&treeglass(&["tree", "--app", &app.app_arg()]));
    assert!(text.contains("spin-button \"Quantity\" = 5"), "{text}");
    assert!(text.contains("slider \"Volume\" = 20"), "{text}");
    assert!(
        text.contains("check-box \"Mixed option\" = mixed"),
        "{text}"
    );
    assert!(text.contains("combo-box \"Colour\" = \"Red\""), "{text}");
    assert!(
        text.contains("text \"Account ID\" = \"ACC-0001\" [read-only]"),
        "{text}"
    );
    assert!(
        text.contains("text \"Locked field\" = \"locked\" [disabled]"),
        "{text}"
    );
}

/// (raw role, name) in pre-order from treeglass's JSON tree and from the pyatspi walk (without
/// the walk's application node, since treeglass read the app's window).
type Pairs = Vec<(String, String)>;
fn roles_and_names(ours: &serde_json::Value, reference: &serde_json::Value) -> (Pairs, Pairs) {
    let mut flat = Vec::new();
    flatten_enumerated(&ours["root"], &mut flat);
    let theirs = reference["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|n| {
            (
                common::walk_role(n),
                n["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (flat.into_iter().map(|(r, n, _)| (r, n)).collect(), theirs)
}

#[test]
fn fixture_count_matches_pyatspi_walk() {
    let _turn = common::turn::shared();
    let app = FixtureApp::start("count");
    let v = json_of(&treeglass(&["tree", "--app", &app.app_arg(), "--json"]));
    let reference = pyatspi_walk(&app.name, &[]);
    let (ours, theirs) = roles_and_names(&v, &reference);
    // The walker counts from the application node; treeglass read the app's only window. Both
    // leave out what the list box manages (treeglass adds the rows on screen to its tree).
    assert_eq!(
        ours.len() + 1,
        reference["node_count"].as_u64().unwrap() as usize,
        "treeglass {} (enumerated {}) vs pyatspi {}",
        v["node_count"],
        ours.len(),
        reference["node_count"]
    );
    assert_eq!(ours, theirs, "same roles and names in the same pre-order");
}

#[test]
fn widget_factory_matches_pyatspi_walk() {
    let _turn = common::turn::shared();
    let mut wf = start_widget_factory();
    let v = json_of(&treeglass(&[
        "tree",
        "--app",
        "^gtk3-widget-factory$",
        "--json",
    ]));
    let reference = pyatspi_walk("gtk3-widget-factory", &[]);
    let _ = wf.kill();
    let _ = wf.wait();
    assert_eq!(v["complete"], true, "{}", v["truncated"]);
    let (ours, theirs) = roles_and_names(&v, &reference);
    assert_eq!(
        ours.len(),
        theirs.len(),
        "node count (pyatspi counts the app node too)"
    );
    assert_eq!(ours, theirs, "same roles and names in the same pre-order");
}

/// Far beyond any read's own deadline: only a read that never ends reaches it.
const HANG: Duration = Duration::from_secs(60);

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn root_of(b: &AtspiBackend, name: &str) -> treeglass::model::NodeId {
    let apps = b.apps().await.expect("apps");
    let app = apps
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("{name} not on the bus"));
    app.windows[0].id.clone()
}

#[test]
fn killed_app_gives_a_clear_error_not_a_panic() {
    let _turn = common::turn::shared();
    let mut app = FixtureApp::start("kill");
    rt().block_on(async {
        let b = AtspiBackend::connect(Duration::from_secs(5))
            .await
            .expect("connect");
        let root = root_of(&b, &app.name).await;
        let first = b
            .snapshot(&root, &Limits::default())
            .await
            .expect("snapshot");
        assert!(first.complete());
        app.signal("KILL");
        app.wait_exit();
        // A hang guard, not a timing assertion: the read must end at all.
        let read = tokio::time::timeout(HANG, b.snapshot(&root, &Limits::default()))
            .await
            .expect("a read of a dead app ends");
        // The app is gone, not an element: the error says so.
        match read {
            Err(e) => assert!(
                matches!(e, BackendError::AppGone { .. })
                    && e.to_string()
                        .contains("exited or dropped its accessibility connection"),
                "{e:?}"
            ),
            Ok(s) => panic!("a dead app cannot give a snapshot: {} nodes", s.nodes.len()),
        }
        // The app list no longer has it, and the backend still works.
        let apps = b.apps().await.expect("apps after the kill");
        assert!(apps.iter().all(|a| a.name != app.name));
    });
}

#[test]
fn stopped_app_snapshot_returns_within_its_deadline_marked_incomplete() {
    let _turn = common::turn::shared();
    let app = FixtureApp::start("stop");
    rt().block_on(async {
        let b = AtspiBackend::connect(Duration::from_secs(5))
            .await
            .expect("connect");
        let root = root_of(&b, &app.name).await;
        app.signal("STOP");
        let limits = Limits {
            timeout: Duration::from_millis(1500),
            call_timeout: Duration::from_millis(500),
            ..Limits::default()
        };
        let snap = tokio::time::timeout(HANG, b.snapshot(&root, &limits))
            .await
            .expect("a read of a stopped app ends")
            .expect("a hung app still yields a snapshot");
        app.signal("CONT");
        // It ended by its own deadline: the snapshot says the timeout cut it short.
        assert_eq!(snap.truncated, Some(Truncation::Timeout));
        assert!(!snap.complete());
        // Once it runs again, reads work again.
        let again = b
            .snapshot(&root, &Limits::default())
            .await
            .expect("snapshot after SIGCONT");
        assert!(again.complete());
        assert_eq!(again.nodes[0].role, Role::Frame);
    });
}
