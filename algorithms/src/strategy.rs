//! [proptest](mod@proptest) strategies of complete scenarios (cargo feature `proptest`, on by default).
//!
//! [`scenarios`] draws a seed with `any::<u64>()` and turns it into a complete scenario with
//! [`Algorithm::generate`]: the swarm's network, clocks and fault plan (inside the algorithm's
//! fault model unless [`GenOptions::beyond_model`]), the algorithm's own workload, and a
//! duration long enough to judge liveness. proptest shrinks the seed when a case fails; to
//! minimize the failing scenario itself, run [`sincro_harness::shrink::shrink`] on it.
//!
//! # Writing a property
//!
//! In a test file (`tests/my_props.rs`), with `proptest` among the dev-dependencies (the
//! example is compiled, and run for real in this crate's `tests/it/proptest.rs`):
//!
//! ```no_run
//! use proptest::prelude::*;
//! use sincro_algorithms::{find, run_scenario, strategy::scenarios};
//! use sincro_harness::engine::RunOptions;
//! use sincro_harness::gen::GenOptions;
//!
//! proptest! {
//!     // Few cases keep CI fast; a fixed seed makes the run the same every time.
//!     #![proptest_config(ProptestConfig {
//!         cases: 64,
//!         rng_seed: proptest::test_runner::RngSeed::Fixed(1),
//!         ..ProptestConfig::default()
//!     })]
//!
//!     #[test]
//!     fn the_correct_mutex_never_fails(
//!         sc in scenarios(find("mutex.centralized").unwrap(), "correct", GenOptions::default())
//!     ) {
//!         let out = run_scenario(&sc, RunOptions::new(false)).unwrap();
//!         prop_assert!(out.verdict.is_pass(), "{}\n{}", out.verdict, sc.to_json());
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! A failing case prints the scenario's JSON: save it to a file and replay it with
//! `sincro replay FILE`.

use crate::Algorithm;
use proptest::prelude::*;
use sincro_harness::gen::GenOptions;
use sincro_harness::Scenario;

/// Complete scenarios of `algorithm`/`variant`, each [`Algorithm::generate`]d from a
/// proptest-chosen seed with `opts`.
pub fn scenarios(
    algorithm: &'static dyn Algorithm,
    variant: &'static str,
    opts: GenOptions,
) -> impl Strategy<Value = Scenario> {
    any::<u64>().prop_map(move |seed| algorithm.generate(variant, seed, &opts))
}
