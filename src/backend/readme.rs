//! Tables the README prints from the data the code runs on: each sits between
//! `<!-- table:NAME -->` and `<!-- end:NAME -->`, and a unit test beside the table checks the
//! README against it. `TREEGLASS_BLESS=1 cargo test --lib readme_` rewrites the sections.

/// Fails when the README's section `name` is not `body`; rewrites it under `TREEGLASS_BLESS=1`.
pub fn check_section(name: &str, body: &str) {
    // Tests run on threads: one rewrite at a time, each on the README the last one left.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("README.md is readable");
    let begin = format!("<!-- table:{name} -->\n");
    let end = format!("<!-- end:{name} -->");
    let start = readme
        .find(&begin)
        .unwrap_or_else(|| panic!("README.md has no {begin:?} marker"))
        + begin.len();
    let stop = start
        + readme[start..]
            .find(&end)
            .unwrap_or_else(|| panic!("README.md has no {end:?} marker"));
    if &readme[start..stop] == body {
        return;
    }
    if std::env::var_os("TREEGLASS_BLESS").is_some_and(|v| v == "1") {
        let new = format!("{}{body}{}", &readme[..start], &readme[stop..]);
        std::fs::write(path, new).expect("README.md is writable");
        return;
    }
    panic!(
        "README.md's table {name} is not the code's; rerun with TREEGLASS_BLESS=1 to rewrite \
         it:\n{body}"
    );
}
