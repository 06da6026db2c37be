//! # sincro-checkers
//!
//! One property per module. Each checker is online (judges event by event through
//! [`sincro_harness::Checker`], stopping at the first violation) and works offline on a
//! recorded trace with [`sincro_harness::check::check_trace`].
//!
//! | property | module | class |
//! |---|---|---|
//! | `mutual_exclusion` | [`mutual_exclusion`] | safety |
//! | `liveness` (every request granted within a bound after the faults stop) | [`liveness`] | liveness |
//! | `bounded_waiting` (a waiting request is overtaken at most n − 1 times) | [`bounded_waiting`] | safety |
//! | `no_deadlock` (while requests wait, someone enters within a bound after the faults stop) | [`no_deadlock`] | liveness |
//! | `leader_uniqueness` (at most one live node believes itself leader in a term, at any time) | [`election::uniqueness`] | safety |
//! | `leader_agreement` (after the faults stop, every live node names the same live leader within a bound) | [`election::agreement`] | liveness |
//! | `election_termination` (every election started ends with a leader within a bound after the faults stop) | [`election::termination`] | liveness |
//! | `leader_validity` (after quiet + bound, the named leader is alive and the best by rank; highest id by default) | [`election::validity`] | safety |
//! | `leader_stability` (after agreement, no new election while the leader is alive and reachable) | [`election::stability`] | safety |

#![warn(missing_docs)]

pub mod bounded_waiting;
pub mod election;
pub mod liveness;
pub mod mutual_exclusion;
pub mod no_deadlock;

pub use bounded_waiting::BoundedWaiting;
pub use election::{
    ElectionTermination, LeaderAgreement, LeaderStability, LeaderUniqueness, LeaderValidity,
};
pub use liveness::Liveness;
pub use mutual_exclusion::MutualExclusion;
pub use no_deadlock::NoDeadlock;

use sincro_harness::{Checker, Scenario};

/// Names of every property this crate can check.
pub const PROPERTIES: &[&str] = &[
    mutual_exclusion::PROPERTY,
    liveness::PROPERTY,
    no_deadlock::PROPERTY,
    election::uniqueness::PROPERTY,
    election::agreement::PROPERTY,
    election::termination::PROPERTY,
    election::validity::PROPERTY,
    election::stability::PROPERTY,
];

/// Builds the checker for `property` over `scenario`, with `liveness_bound_ms` used by
/// liveness properties. `None` for an unknown property.
pub fn by_name(
    property: &str,
    scenario: &Scenario,
    liveness_bound_ms: u64,
) -> Option<Box<dyn Checker>> {
    match property {
        mutual_exclusion::PROPERTY => Some(Box::new(MutualExclusion::new(scenario.nodes))),
        liveness::PROPERTY => Some(Box::new(Liveness::new(
            scenario.quiet_from_ms(),
            liveness_bound_ms,
        ))),
        no_deadlock::PROPERTY => Some(Box::new(NoDeadlock::new(
            scenario.quiet_from_ms(),
            liveness_bound_ms,
        ))),
        bounded_waiting::PROPERTY => Some(Box::new(BoundedWaiting::new(
            scenario.nodes.saturating_sub(1),
        ))),
        election::uniqueness::PROPERTY => Some(Box::new(LeaderUniqueness::new(scenario.nodes))),
        election::agreement::PROPERTY => Some(Box::new(LeaderAgreement::new(
            scenario.nodes,
            scenario.quiet_from_ms(),
            liveness_bound_ms,
        ))),
        election::termination::PROPERTY => Some(Box::new(ElectionTermination::new(
            scenario.quiet_from_ms(),
            liveness_bound_ms,
        ))),
        election::validity::PROPERTY => Some(Box::new(LeaderValidity::new(
            scenario.nodes,
            scenario.quiet_from_ms(),
            liveness_bound_ms,
        ))),
        election::stability::PROPERTY => Some(Box::new(LeaderStability::new(
            scenario.nodes,
            scenario.quiet_from_ms(),
        ))),
        _ => None,
    }
}
