//! The tests that need no accessibility stack: no bus, no display, no app. They run on the
//! demo and fixture backends, recorded traces and the parsers, and drive the binary in tmux
//! where a terminal is needed. One module per area; `cargo test --test offline` is the fast
//! loop (see docs/testing.md).
//!
//! The modules' tests run in parallel in this one process: no two modules share a scratch
//! path or a tmux server, and a test that changes process-wide state runs in a child process
//! of its own (`alone`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../workflow_support/mod.rs"]
mod workflow_support;

mod cli_demo;
mod cli_harden;
mod hostile_output;
mod junit;
mod mcp_fixture;
mod mcp_raw;
mod mcp_schemas;
mod mcp_unavailable;
mod readme_quickstart;
mod target_fuzz;
mod target_parse;
mod target_resolve;
mod tui_audit;
mod tui_export;
mod tui_filter;
mod tui_live;
mod tui_plain;
mod tui_signals;
mod tui_tree;
mod tui_view;
mod tui_write;
mod uia_ax_traces;
mod workflow_record;
mod workflow_run;
mod workflow_validate;
mod write_fixture;
mod write_named;

/// For a test that changes process-wide state: true in a child process of this binary that
/// runs only the test `path` (its module path and name), where the test goes on; false in the
/// parent, which starts that child and fails unless it ran exactly that test and passed.
fn alone(path: &str) -> bool {
    const CHILD: &str = "TREEGLASS_TEST_ALONE";
    if std::env::var(CHILD).as_deref() == Ok(path) {
        return true;
    }
    let o = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([path, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, path)
        .output()
        .expect("run this test binary again");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("test result: ok. 1 passed"),
        "{path} in a process of its own: exit {:?}\n{out}{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    false
}
