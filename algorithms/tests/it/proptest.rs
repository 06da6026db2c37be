//! Properties over generated scenarios, with the public strategy
//! `sincro_algorithms::strategy::scenarios`. Few cases and a fixed proptest seed keep CI fast and
//! repeatable.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use sincro_algorithms::{find, run_scenario, strategy::scenarios};
use sincro_harness::engine::RunOptions;
use sincro_harness::gen::GenOptions;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        rng_seed: RngSeed::Fixed(0x51_4C_0C),
        ..ProptestConfig::default()
    })]

    /// The textbook centralized mutex passes every scenario inside its fault model.
    #[test]
    fn the_correct_centralized_mutex_passes_every_scenario(
        sc in scenarios(find("mutex.centralized").unwrap(), "correct", GenOptions::default())
    ) {
        let out = run_scenario(&sc, RunOptions::new(false)).unwrap();
        prop_assert!(out.verdict.is_pass(), "{}\n{}", out.verdict, sc.to_json());
    }

    /// The buggy lease-timeout variant, whatever its verdict, replays byte for byte.
    #[test]
    fn lease_timeout_runs_replay_byte_for_byte(
        sc in scenarios(find("mutex.centralized").unwrap(), "lease-timeout", GenOptions::default())
    ) {
        let a = run_scenario(&sc, RunOptions::default()).unwrap();
        let b = run_scenario(&sc, RunOptions::default()).unwrap();
        prop_assert_eq!(&a.verdict, &b.verdict);
        prop_assert_eq!(a.trace.unwrap().to_jsonl(), b.trace.unwrap().to_jsonl());
    }
}
