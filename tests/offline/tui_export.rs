//! The inspector's `w` export: atomic, always to a new file, never through a link planted at
//! the name it would take.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crossterm::event::KeyCode;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::tui::Recorder;
use treeglass::tui::harness::Harness;

fn exported_path(message: &str) -> std::path::PathBuf {
    message.rsplit(" to ").next().unwrap().into()
}

#[tokio::test]
async fn exports_go_to_new_files_and_never_through_links() {
    let b = FixtureBackend::demo();
    let mut h = Harness::start(Arc::new(b), 140, 40, None).await.unwrap();
    h.key(KeyCode::Char('r'));
    assert!(h.app.recording);
    h.select("button \"Save\"");
    h.key(KeyCode::Char('i'));
    h.verdict().await.unwrap();
    assert_eq!(h.completed.len(), 1);

    let dir = std::env::temp_dir().join(format!("treeglass-tui-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut rec = treeglass::tui::WorkflowRecorder::new(&dir);
    rec.start(
        &"treeglass-demo".into(),
        &"Settings — treeglass demo".into(),
    )
    .unwrap();
    rec.record(&h.completed[0]);

    let first = exported_path(&rec.export().unwrap());
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(name, "settings-treeglass-demo.workflow.json");
    let first_text = std::fs::read_to_string(&first).unwrap();

    // A second export never replaces the first.
    let second = exported_path(&rec.export().unwrap());
    assert_eq!(
        second.file_name().unwrap(),
        "settings-treeglass-demo-2.workflow.json"
    );
    assert_eq!(std::fs::read_to_string(&first).unwrap(), first_text);

    // A link planted at the next name is skipped, and its target left alone.
    #[cfg(unix)]
    {
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("settings-treeglass-demo-3.workflow.json"))
            .unwrap();
        let third = exported_path(&rec.export().unwrap());
        assert_eq!(
            third.file_name().unwrap(),
            "settings-treeglass-demo-4.workflow.json"
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    let leftovers: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
