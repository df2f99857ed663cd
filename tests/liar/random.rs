//! Lies drawn at random, several at once: whatever they are, every run ends honestly,
//! within its deadline and its memory.
use super::*;
use proptest::prelude::*;

fn one_lie() -> impl Strategy<Value = String> {
    let el = prop_oneof![
        Just("OK"),
        Just("Slow"),
        Just("Check"),
        Just("Field"),
        Just("Body")
    ];
    let method = prop_oneof![
        Just("GetState"),
        Just("GetRole"),
        Just("GetChildren"),
        Just("Name"),
        Just("GetInterfaces"),
        Just("GetText")
    ];
    prop_oneof![
        Just("cycle".to_string()),
        (1u32..800).prop_map(|n| format!("deep={n}")),
        (el.clone(), method.clone()).prop_map(|(e, m)| format!("silent-element={e}:{m}")),
        method.clone().prop_map(|m| format!("bad-signature={m}")),
        Just("bad-signature=GetItems".to_string()),
        Just("huge-strings=1".to_string()),
        Just("huge-arrays=states".to_string()),
        Just("bad-text".to_string()),
        Just("invalid-utf8".to_string()),
        Just("flip-names".to_string()),
        Just("vanish-children=half".to_string()),
        (0u32..2_000_000).prop_map(|n| format!("child-count={n}")),
        Just("no-interface=Value".to_string()),
        Just("no-interface=Text".to_string()),
        Just("dangling".to_string()),
        Just("tiny-window".to_string()),
        (0u32..15).prop_map(|ms| format!("slow={ms}")),
        Just("stale-cache".to_string()),
        Just("gdbus-errors".to_string()),
        (0u32..300).prop_map(|n| format!("silent-after={n}")),
        Just("bad-signature=*".to_string()),
        (el.clone(), method.clone()).prop_map(|(e, m)| format!("bad-signature={e}:{m}")),
        Just("flicker".to_string()),
        Just("vanish-after-name".to_string()),
        Just("refuse-past-end".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]
    /// And, when no cap or silence cut the read, the tree and the elements named
    /// unreadable are exactly the elements the app handed out (`accounted`).
    #[test]
    fn random_lies_end_honestly(lies in proptest::collection::vec(one_lie(), 1..5)) {
        let mut l = liar();
        let lies: Vec<&str> = lies.iter().map(String::as_str).collect();
        l.only(&lies);
        let pid = l.pid;
        // Every element the app handed out is in the tree once, or named unreadable, less
        // what Body's last list withdrew (`accounted`). Not where children die under a count
        // that sends the reader to the list: each list and each index mints new dead paths.
        let disagree = lies.iter().any(|x| x.starts_with("vanish-children"))
            && lies.iter().any(|x| x.starts_with("child-count"));
        if !disagree {
            accounted(pid, &mut l, &format!("{lies:?}"));
        }
        let runs = vec![
            ("tree --json", run(pid, &["tree", "--json"])),
            ("find", run(pid, &["find", "check-box", "--wait-ms", "1000"])),
            ("audit", run(pid, &["audit"])),
        ];
        check_honest(&format!("{lies:?}"), &runs);
        // Only an app that answers nothing may be called not responding.
        let hung = lies.iter().any(|x| x.starts_with("silent-after"));
        for (name, r) in &runs {
            prop_assert!(hung || r.code != Some(8), "{lies:?}: {name} called the app hung: {}", r.stderr);
        }
        let _ = l.cmd("wake");
        recovered(&mut l, &format!("{lies:?}"));
    }
}
