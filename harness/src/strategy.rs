//! [proptest](mod@proptest) strategies that produce scenarios (cargo feature `proptest`, on by default).
//!
//! [`scenario_strategy`] draws a seed with `any::<u64>()` and turns it into a scenario with
//! the swarm generation of [`crate::gen`]. proptest's own shrinking then shrinks the seed
//! (towards 0), which gives another generated scenario, not a smaller one: to minimize a
//! failing scenario, run [`shrink`](crate::shrink::shrink) on it.
//!
//! The harness does not know the algorithms, so the scenarios drawn here have no workload and
//! last only the active phase ([`GenOptions::active_ms`]). Complete scenarios, with the
//! algorithm's workload and a duration long enough to judge liveness, come from
//! `sincro_algorithms::strategy::scenarios`.
//!
//! ```
//! use proptest::prelude::*;
//! use sincro_harness::fault::{FaultClass, FaultModel};
//! use sincro_harness::gen::GenOptions;
//! use sincro_harness::strategy::scenario_strategy;
//!
//! let model = FaultModel { tolerates: vec![FaultClass::Pauses], summary: "pauses only", ..FaultModel::default() };
//! let strategy = scenario_strategy("mutex.centralized", "correct", model, GenOptions::default());
//! proptest!(|(sc in strategy)| {
//!     prop_assert!(sc.validate().is_ok());
//!     prop_assert!(sc.faults.iter().all(|f| f.fault.class() == FaultClass::Pauses));
//! });
//! ```

use crate::fault::FaultModel;
use crate::gen::{self, GenOptions};
use crate::scenario::Scenario;
use proptest::prelude::*;

/// Scenarios of `algorithm`/`variant` drawn by the swarm generation from a proptest-chosen
/// seed: faults inside `model` (unless `opts.beyond_model`), no workload, `duration_ms` = the
/// active phase. Every scenario passes [`Scenario::validate`].
pub fn scenario_strategy(
    algorithm: &str,
    variant: &str,
    model: FaultModel,
    opts: GenOptions,
) -> impl Strategy<Value = Scenario> {
    let (algorithm, variant) = (algorithm.to_string(), variant.to_string());
    any::<u64>()
        .prop_map(move |seed| gen::generate(&algorithm, &variant, seed, &model, &opts).scenario)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::FaultClass;

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 64,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5EED),
            ..ProptestConfig::default()
        })]

        #[test]
        fn drawn_scenarios_are_valid_and_inside_the_model(
            sc in scenario_strategy(
                "x",
                "v",
                FaultModel { tolerates: vec![FaultClass::Pauses, FaultClass::Partitions], summary: "", ..FaultModel::default() },
                GenOptions::default(),
            )
        ) {
            prop_assert!(sc.validate().is_ok(), "{}", sc.to_json());
            prop_assert_eq!(&sc.algorithm, "x");
            prop_assert_eq!(&sc.variant, "v");
            prop_assert!(sc.faults.iter().all(|f| matches!(
                f.fault.class(),
                FaultClass::Pauses | FaultClass::Partitions
            )));
            prop_assert!(sc.workload.is_empty());
        }
    }
}
