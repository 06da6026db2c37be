//! Shared checks of the algorithm tests: every algorithm replays byte for byte on every
//! engine, passes fuzzing inside its fault model, and (for buggy variants) gets caught.

use crate::registry::find;
use sincro_harness::engine::RunOptions;
use sincro_harness::gen::GenOptions;
use sincro_harness::{EngineKind, EventKind, Observation, Outcome};

/// Longest simulated time of a replay check on turmoil, ms. turmoil steps every millisecond
/// whatever the work, and a run is the same up to any time whatever its end, so the check
/// compares the first minute: a clock run's ~560 s took 3–4 s of a debug build per run
/// (the four clock families' replay tests were 54 s of `cargo test`). The native engine
/// replays the whole run.
pub const TURMOIL_REPLAY_MS_MAX: u64 = 60_000;

/// [`TURMOIL_REPLAY_MS_MAX`] of a quick run (see [`full_sweeps`]): the first 10 s (each
/// replay must still record more than three events).
pub const TURMOIL_REPLAY_MS_MAX_QUICK: u64 = 10_000;

/// Runs `seeds` generated scenarios of each variant twice on each engine and requires
/// byte-identical JSON Lines traces (and non-trivial runs), and on the native engine the
/// same trace again from the scenario read back from its JSON (whose workload inputs are
/// JSON, not the typed values generation made); on turmoil, the first
/// [`TURMOIL_REPLAY_MS_MAX`] of each. A quick run (see [`full_sweeps`]) replays every seed on
/// the native engine and a quarter of them (at least one) on turmoil, over its first
/// [`TURMOIL_REPLAY_MS_MAX_QUICK`]: turmoil steps every millisecond, and in a debug build
/// those replays were 60 of the 110 CPU-seconds of this crate's tests. CI runs them whole.
pub fn assert_replays_exactly(algorithm: &str, variants: &[&str], seeds: u64) {
    let alg = find(algorithm).unwrap();
    let full = full_sweeps();
    let trace = |sc: &sincro_harness::Scenario| {
        alg.run(sc, RunOptions::default())
            .unwrap()
            .trace
            .unwrap()
            .to_jsonl()
    };
    for engine in [EngineKind::Native, EngineKind::Turmoil] {
        let opts = GenOptions {
            engine,
            ..GenOptions::default()
        };
        let (seeds, window_ms) = match engine {
            EngineKind::Turmoil if !full => ((seeds / 4).max(1), TURMOIL_REPLAY_MS_MAX_QUICK),
            EngineKind::Turmoil => (seeds, TURMOIL_REPLAY_MS_MAX),
            _ => (seeds, u64::MAX),
        };
        for variant in variants {
            for seed in 0..seeds {
                let mut sc = alg.generate(variant, seed, &opts);
                sc.duration_ms = sc.duration_ms.min(window_ms);
                let a = trace(&sc);
                let b = trace(&sc);
                assert!(
                    a.lines().count() > 3,
                    "{algorithm} {engine:?} {variant} seed {seed}: an empty run proves nothing"
                );
                assert_eq!(a, b, "{algorithm} {engine:?} {variant} seed {seed}");
                if engine == EngineKind::Native {
                    // The generated inputs are typed; the file of the scenario gives back
                    // their JSON: both must be the same run (what `fuzz` found, `replay`
                    // runs).
                    assert!(
                        sc.workload.iter().all(|w| w.input.is_typed()),
                        "{algorithm} {variant} seed {seed}: a generated input is not typed"
                    );
                    let file = serde_json::to_string(&sc).unwrap();
                    let read: sincro_harness::Scenario = serde_json::from_str(&file).unwrap();
                    assert!(read.workload.iter().all(|w| !w.input.is_typed()));
                    assert_eq!(read, sc);
                    let c = trace(&read);
                    assert_eq!(
                        a, c,
                        "{algorithm} {variant} seed {seed}: its typed inputs and their JSON \
                         run differently"
                    );
                }
            }
        }
    }
}

/// Set to `1` to run every in-model sweep of the algorithm tests over all its seeds (CI does,
/// in `ci/check.sh`); otherwise a debug build runs a tenth of them.
pub const FULL_SWEEPS_VAR: &str = "SINCRO_FULL_SWEEPS";

/// Whether the algorithm tests run whole: in a release build, or with
/// [`FULL_SWEEPS_VAR`]`=1` (CI); otherwise a quick run trims its sweeps ([`sweep_seeds`]) and
/// its turmoil replays ([`assert_replays_exactly`]).
pub fn full_sweeps() -> bool {
    !cfg!(debug_assertions) || std::env::var(FULL_SWEEPS_VAR).is_ok_and(|v| v.trim() == "1")
}

/// How many of a sweep's `seeds` a test runs: all of them in a release build or with
/// [`FULL_SWEEPS_VAR`]`=1`; otherwise a tenth (never fewer than 10, nor more than asked). The
/// sweeps were about 150 of the 624 CPU-seconds of a fresh clone's `cargo test --workspace`
/// at stop 44 (a fifth of them then; a tenth since stop 48, 14 CPU-s less). CI keeps them whole, with debug assertions, and its release campaigns (`fuzz --algorithm
/// all --seeds 2000`, the determinism sweep) run every correct variant over far more seeds.
pub fn sweep_seeds(seeds: u64) -> u64 {
    if full_sweeps() {
        seeds
    } else {
        (seeds / 10).max(seeds.min(10))
    }
}

/// [`sweep_seeds`] on `engine`: on turmoil, which steps every simulated millisecond, a quick
/// run takes a fifth of the seeds with no floor of 10 (at least 2): its 10-seed sweeps of the
/// ordering algorithms were 9 CPU-seconds of a debug build.
pub fn sweep_seeds_on(seeds: u64, engine: EngineKind) -> u64 {
    match engine {
        EngineKind::Turmoil if !full_sweeps() => (seeds / 5).max(seeds.min(2)),
        _ => sweep_seeds(seeds),
    }
}

/// Fuzzes `variant` over [`sweep_seeds_on`]`(seeds, engine)` seeds inside the fault model on
/// `engine`; every run must pass.
pub fn assert_in_model_passes(algorithm: &str, variant: &str, seeds: u64, engine: EngineKind) {
    let alg = find(algorithm).unwrap();
    let opts = GenOptions {
        engine,
        ..GenOptions::default()
    };
    for seed in 0..sweep_seeds_on(seeds, engine) {
        let v = alg
            .run(&alg.generate(variant, seed, &opts), RunOptions::new(false))
            .unwrap()
            .verdict;
        assert!(
            v.is_pass(),
            "{algorithm} {variant} {engine:?} seed {seed}: {v}"
        );
    }
}

/// The first seed below `seeds` at which fuzzing `variant` fails, if any.
pub fn first_failing_seed(
    algorithm: &str,
    variant: &str,
    seeds: u64,
    engine: EngineKind,
) -> Option<u64> {
    let alg = find(algorithm).unwrap();
    let opts = GenOptions {
        engine,
        ..GenOptions::default()
    };
    (0..seeds).find(|&seed| {
        !alg.run(&alg.generate(variant, seed, &opts), RunOptions::new(false))
            .unwrap()
            .verdict
            .is_pass()
    })
}

/// The nodes that entered the critical section, in order.
pub fn enters(out: &Outcome) -> Vec<usize> {
    out.trace
        .as_ref()
        .expect("recorded")
        .events()
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Observe {
                    obs: Observation::CsEnter { .. }
                }
            )
        })
        .map(|e| e.node.expect("observations have a node"))
        .collect()
}

/// A buggy twin's pinned schedule (a corpus scenario, `json`) violates `property` for the
/// twin, and the same schedule keeps `property` for the correct variant (whose run may stay
/// unjudged on other properties, or break liveness when the schedule leaves a node paused):
/// the planted bug, not the schedule, breaks the property.
pub fn assert_only_the_twin_breaks(json: &str, property: &str) {
    let mut sc = sincro_harness::Scenario::from_json(json).unwrap();
    let alg = find(&sc.algorithm).unwrap();
    let twin = alg.run(&sc, RunOptions::default()).unwrap().verdict;
    assert_eq!(twin.label(), format!("violation:{property}"), "{twin}");
    sc.variant = "correct".into();
    sc.expect = None;
    let correct = alg.run(&sc, RunOptions::default()).unwrap().verdict;
    let label = correct.label();
    assert!(
        label != twin.label() && label != "panic" && label != "limit_exceeded",
        "{} correct: {correct}",
        sc.algorithm
    );
}

#[test]
fn a_sweep_runs_a_tenth_of_its_seeds_unless_asked_for_all() {
    let full =
        !cfg!(debug_assertions) || std::env::var(FULL_SWEEPS_VAR).is_ok_and(|v| v.trim() == "1");
    assert_eq!(full_sweeps(), full);
    assert_eq!(sweep_seeds(300), if full { 300 } else { 30 });
    assert_eq!(sweep_seeds(30), if full { 30 } else { 10 });
    assert_eq!(sweep_seeds(7), 7, "a short sweep is run whole");
    assert_eq!(sweep_seeds_on(300, EngineKind::Native), sweep_seeds(300));
    assert_eq!(
        sweep_seeds_on(30, EngineKind::Turmoil),
        if full { 30 } else { 6 }
    );
    assert_eq!(
        sweep_seeds_on(1, EngineKind::Turmoil),
        1,
        "never more than asked"
    );
}
