//! Tables the README and its documents in `docs/` print from the data the code runs on: each
//! sits between `<!-- table:NAME -->` and `<!-- end:NAME -->`, and a unit test beside the
//! table checks the document against it. `TREEGLASS_BLESS=1 cargo test --lib readme_` rewrites the sections.

/// The documents that hold tables: the README and the pages it links to.
const DOCS: [&str; 5] = [
    "README.md",
    "docs/toolkits.md",
    "docs/audit.md",
    "docs/performance.md",
    "docs/testing.md",
];

/// Fails when the section `name` of the document that holds it is not `body`; rewrites it
/// under `TREEGLASS_BLESS=1`.
pub fn check_section(name: &str, body: &str) {
    // Tests run on threads: one rewrite at a time, each on the README the last one left.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let begin = format!("<!-- table:{name} -->\n");
    let end = format!("<!-- end:{name} -->");
    let (path, readme) = DOCS
        .iter()
        .map(|f| format!("{}/{f}", env!("CARGO_MANIFEST_DIR")))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
            (p, text)
        })
        .find(|(_, text)| text.contains(&begin))
        .unwrap_or_else(|| panic!("no document has the marker {begin:?} ({DOCS:?})"));
    let start = readme.find(&begin).unwrap_or_default() + begin.len();
    let stop = start
        + readme[start..]
            .find(&end)
            .unwrap_or_else(|| panic!("{path} has no {end:?} marker"));
    if &readme[start..stop] == body {
        return;
    }
    if std::env::var_os("TREEGLASS_BLESS").is_some_and(|v| v == "1") {
        let new = format!("{}{body}{}", &readme[..start], &readme[stop..]);
        std::fs::write(&path, new).unwrap_or_else(|e| panic!("{path}: {e}"));
        return;
    }
    panic!(
        "{path}'s table {name} is not the code's; rerun with TREEGLASS_BLESS=1 to rewrite \
         it:\n{body}"
    );
}
