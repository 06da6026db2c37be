//! Replays every scenario under `corpus/`: each must reach its expected verdict, replay to a
//! byte-identical trace, and render to the text timeline snapshotted with insta
//! (`cargo insta review` to accept a deliberate change). Each scenario also runs on the other
//! engine, which must reach the same verdict; its trace is snapshotted as `<name>@<engine>`
//! (not for a PCT or POS schedule, which turmoil refuses: `engines.rs` runs those on madsim).

use sincro::algorithms::run_scenario;
use sincro::harness::engine::RunOptions;
use sincro::harness::{render, EngineKind, Scenario};

use crate::common;

use std::path::Path;

#[test]
fn corpus_scenarios_reach_their_verdicts_and_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let files = common::corpus_files();
    assert!(files.len() >= 2, "the corpus is missing");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root.join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let _guard = settings.bind_to_scope();
    // Every scenario is checked, and every mismatch reported, before the test fails (as
    // `insta::glob!` does, keeping the snapshots' names).
    let mut failed = Vec::new();
    for path in files {
        let one = std::panic::catch_unwind(|| check_one(&root, &path));
        if one.is_err() {
            failed.push(path.display().to_string());
        }
    }
    failed.extend(SNAPSHOT_FAILURES.with(|f| f.take()));
    assert!(
        failed.is_empty(),
        "{} corpus check(s) failed (each one's message is above):\n  {}",
        failed.len(),
        failed.join("\n  ")
    );
}

thread_local! {
    /// Snapshots that did not match, by name.
    static SNAPSHOT_FAILURES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Asserts a snapshot; a mismatch is reported (insta prints it) and noted, and the checks go
/// on.
fn snapshot(name: &str, text: String) {
    if std::panic::catch_unwind(|| insta::assert_snapshot!(name.to_string(), text)).is_err() {
        SNAPSHOT_FAILURES.with(|f| f.borrow_mut().push(format!("snapshot {name}")));
    }
}

/// Checks one corpus scenario: its verdict, byte-identical replay and snapshot, on its engine
/// and on the other one.
fn check_one(root: &Path, path: &Path) {
    {
        let rel = path.strip_prefix(root).unwrap().with_extension("");
        let name = rel.to_string_lossy().replace(['/', '\\'], "__");
        let sc = Scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
        let expect = sc
            .expect
            .clone()
            .unwrap_or_else(|| panic!("{}: corpus scenarios need `expect`", path.display()));
        let out = run_scenario(&sc, RunOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            expect.matches(&out.verdict),
            "{}: expected {expect:?}, got {}\nreplay: sincro replay {}",
            path.display(),
            out.verdict,
            path.display()
        );
        let trace = out.trace.expect("recorded");
        trace
            .validate()
            .unwrap_or_else(|e| panic!("{}: the trace is not valid: {e}", path.display()));
        let again = run_scenario(&sc, RunOptions::default())
            .unwrap()
            .trace
            .unwrap();
        assert_eq!(
            trace.to_jsonl(),
            again.to_jsonl(),
            "{}: replay is not byte-identical",
            path.display()
        );
        snapshot(&name, render::text(&trace, Some(&out.verdict)));

        // The same scenario on the other engine reaches the same verdict (traces differ in
        // timing: turmoil works in 1 ms ticks), and replays byte-identically there too.
        let other = match sc.engine {
            EngineKind::Native => EngineKind::Turmoil,
            EngineKind::Turmoil | EngineKind::Madsim => EngineKind::Native,
        };
        if other == EngineKind::Turmoil && !sc.schedule.is_random() {
            // turmoil refuses PCT and POS schedules (it draws every latency itself); the
            // engines test compares such a scenario on madsim.
            return;
        }
        // Ω runs on its shared-memory model alone, and refuses another engine.
        if sincro::algorithms::find(&sc.algorithm).is_ok_and(|a| a.runs_on(other).is_err()) {
            return;
        }
        let sc2 = Scenario {
            engine: other,
            ..sc.clone()
        };
        let out2 = run_scenario(&sc2, RunOptions::default()).unwrap();
        assert_eq!(
            out2.verdict.label(),
            out.verdict.label(),
            "{}: {} engine disagrees: {}",
            path.display(),
            other.name(),
            out2.verdict
        );
        let t2 = out2.trace.unwrap();
        t2.validate().unwrap_or_else(|e| {
            panic!(
                "{} on {}: the trace is not valid: {e}",
                path.display(),
                other.name()
            )
        });
        let again2 = run_scenario(&sc2, RunOptions::default())
            .unwrap()
            .trace
            .unwrap();
        assert_eq!(
            t2.to_jsonl(),
            again2.to_jsonl(),
            "{} on {}: not byte-identical",
            path.display(),
            other.name()
        );
        snapshot(
            &format!("{name}@{}", other.name()),
            render::text(&t2, Some(&out2.verdict)),
        );
    }
}
