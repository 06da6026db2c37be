//! Shrinking a real failure: the lease-timeout bug of the centralized mutex, found by fuzzing,
//! shrunk to a scenario a person can read.

use sincro_algorithms::{find, Algorithm};
use sincro_harness::engine::RunOptions;
use sincro_harness::gen::GenOptions;
use sincro_harness::shrink::{shrink, ScenarioSize, ShrinkOptions};
use sincro_harness::{Scenario, Verdict};

/// True when `sc` runs to a `mutual_exclusion` violation.
fn violates_mutual_exclusion(alg: &dyn Algorithm, sc: &Scenario) -> bool {
    let run = RunOptions::new(false);
    matches!(alg.run(sc, run), Ok(out)
        if matches!(&out.verdict, Verdict::Violation(v) if v.property == "mutual_exclusion"))
}

#[test]
fn a_lease_timeout_failure_shrinks_to_a_few_faults_and_inputs() {
    let alg = find("mutex.centralized").unwrap();
    let (seed, original) = (0..1_000)
        .map(|seed| {
            (
                seed,
                alg.generate("lease-timeout", seed, &GenOptions::default()),
            )
        })
        .find(|(_, sc)| violates_mutual_exclusion(alg, sc))
        .expect("lease-timeout violates mutual exclusion within 1000 seeds");

    let mut still_fails = |sc: &Scenario| violates_mutual_exclusion(alg, sc);
    let out = shrink(&original, &mut still_fails, &ShrinkOptions::default());
    let (before, after) = (ScenarioSize::of(&original), ScenarioSize::of(&out.scenario));
    println!(
        "seed {seed}: shrunk from {before} to {after} in {} runs, {} steps\n{}",
        out.runs,
        out.steps,
        out.scenario.to_json()
    );

    let s = &out.scenario;
    assert!(violates_mutual_exclusion(alg, s), "still the same failure");
    assert!(s.faults.len() <= 3, "{after}");
    assert!(s.workload.len() <= 3, "{after}");
    assert!(s.nodes <= original.nodes, "{after}");
    assert!(after <= before);
    assert_eq!(
        (s.seed, &s.algorithm, &s.variant, &s.params),
        (
            original.seed,
            &original.algorithm,
            &original.variant,
            &original.params
        )
    );
    assert_eq!(s.name, format!("{}-shrunk", original.name));
    assert!(s
        .description
        .starts_with(&format!("shrunk from {before} to {after}")));

    // It replays: the same trace, byte for byte, and the same verdict from its JSON.
    let a = alg.run(s, RunOptions::default()).unwrap();
    let b = alg.run(s, RunOptions::default()).unwrap();
    assert_eq!(a.trace.unwrap().to_jsonl(), b.trace.unwrap().to_jsonl());
    let reloaded = Scenario::from_json(&s.to_json()).unwrap();
    assert!(violates_mutual_exclusion(alg, &reloaded));
}
