//! scratch
use std::time::Instant;
use treeglass::model::*;
use treeglass::target::*;
fn main() {
    let nodes = synthetic::generate(100_000, 1);
    let snap = Snapshot {
        id: SnapshotId::next(),
        app: "a".into(),
        window: "w".into(),
        nodes,
        truncated: None,
        unreadable: 0,
        read_ms: 0.0,
    };
    let t = Instant::now();
    let ix = SnapshotIndex::new(&snap);
    println!("index {:?}", t.elapsed());
    let t = Instant::now();
    let l = treeglass::fold::lines(&snap, false, &|_| false);
    println!("lines {:?} {}", t.elapsed(), l.len());
    for q in [
        "N",
        "Na",
        "Name",
        "Name s",
        "Name settings 5",
        "button",
        "text \"Email\"",
        "zzzq",
        "check-box [checked]",
        "\"Apply 77\"",
        "Apply 77",
        "~\"aply\"",
    ] {
        let Ok(tg) = Target::parse_lenient(q) else {
            println!("{q}: parse err");
            continue;
        };
        let t = Instant::now();
        let m = matches(&ix, &snap, &tg);
        let d1 = t.elapsed();
        let t = Instant::now();
        let r = resolve_with(&ix, &snap, &tg);
        println!(
            "{q:>20}: matches {:?} n={} resolve {:?} {}",
            d1,
            m.len(),
            t.elapsed(),
            r.outcome()
        );
    }
    let t = Instant::now();
    let s = suggest_with(&ix, &snap, 5000);
    println!(
        "suggest first {:?} {:?}",
        t.elapsed(),
        s.map(|t| t.to_string())
    );
    for row in [5001, 77777, 99999, 3] {
        let t = Instant::now();
        let s = suggest_with(&ix, &snap, row);
        println!(
            "suggest {row} {:?} {:?}",
            t.elapsed(),
            s.map(|t| t.to_string())
        );
    }
    let t = Instant::now();
    let c = snap.clone();
    println!("clone {:?} {}", t.elapsed(), c.nodes.len());
    println!("node size {}", std::mem::size_of::<Node>());
}
