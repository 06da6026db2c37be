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
//! | `lamport_condition` (a → b ⇒ C(a) < C(b), against ground-truth happens-before) | [`lamport_condition`] | safety |
//! | `vector_causality` (VC(a) < VC(b) ⇔ a → b) | [`vector_causality`] | safety |
//! | `causal_delivery` (multicast(m) → multicast(m') ⇒ m delivered before m' everywhere) | [`causal_delivery`] | safety |
//! | `total_order` (replicas deliver common messages in the same relative order) | [`total_order`] | safety |
//! | `replica_agreement` (replicas end in the same state) | [`replica_agreement`] | liveness |
//! | `deadlock_soundness` (every reported deadlock is a cycle of the ground-truth wait-for graph through the reporter) | [`deadlock_soundness`] | safety |
//! | `deadlock_completeness` (every persistent wait-for cycle is reported by a member within a bound) | [`deadlock_completeness`] | liveness |
//! | `bounded_skew` (after convergence, clocks within a bound of each other and of real time; needs the scenario) | [`bounded_skew`] | safety |
//! | `monotonic_clock` (no software clock is ever set back) | [`monotonic_clock`] | safety |
//! | `leader_uniqueness` (at most one live node believes itself leader in a term, at any time) | [`election::uniqueness`] | safety |
//! | `leader_agreement` (after the faults stop, every live node names the same live leader within a bound) | [`election::agreement`] | liveness |
//! | `election_termination` (every election started ends with a leader within a bound after the faults stop) | [`election::termination`] | liveness |
//! | `leader_validity` (after quiet + bound, the named leader is alive and the best by rank; highest id by default) | [`election::validity`] | safety |
//! | `leader_stability` (after agreement, no new election while the leader is alive and reachable) | [`election::stability`] | safety |
//! | `eventual_leadership`, `crashed_never_elected`, `newcomer_never_demotes` (Ω over a shared-memory trace, after checking the `memory_access_pattern` assumption) | [`omega`] | liveness, liveness, safety |

#![warn(missing_docs)]

pub mod bounded_skew;
pub mod bounded_waiting;
pub mod causal_delivery;
pub mod deadlock_completeness;
pub mod deadlock_graph;
pub mod deadlock_soundness;
pub mod election;
pub mod lamport_condition;
pub mod liveness;
pub mod monotonic_clock;
pub mod mutual_exclusion;
pub mod no_deadlock;
pub mod omega;
pub mod replica_agreement;
#[cfg(test)]
mod test_events;
pub mod total_order;
pub mod vector_causality;

pub use bounded_skew::BoundedSkew;
pub use bounded_waiting::BoundedWaiting;
pub use causal_delivery::CausalDelivery;
pub use deadlock_completeness::DeadlockCompleteness;
pub use deadlock_soundness::DeadlockSoundness;
pub use election::{
    ElectionTermination, LeaderAgreement, LeaderStability, LeaderUniqueness, LeaderValidity,
};
pub use lamport_condition::LamportCondition;
pub use liveness::Liveness;
pub use monotonic_clock::MonotonicClock;
pub use mutual_exclusion::MutualExclusion;
pub use no_deadlock::NoDeadlock;
pub use replica_agreement::ReplicaAgreement;
pub use total_order::TotalOrder;
pub use vector_causality::VectorCausality;

use sincro_harness::{Checker, Scenario};

/// Names of every property this crate can check.
pub const PROPERTIES: &[&str] = &[
    mutual_exclusion::PROPERTY,
    liveness::PROPERTY,
    no_deadlock::PROPERTY,
    lamport_condition::PROPERTY,
    vector_causality::PROPERTY,
    causal_delivery::PROPERTY,
    total_order::PROPERTY,
    replica_agreement::PROPERTY,
    deadlock_soundness::PROPERTY,
    deadlock_completeness::PROPERTY,
    monotonic_clock::PROPERTY,
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
        lamport_condition::PROPERTY => Some(Box::new(LamportCondition::new(scenario.nodes))),
        vector_causality::PROPERTY => Some(Box::new(VectorCausality::new(scenario.nodes))),
        causal_delivery::PROPERTY => Some(Box::new(CausalDelivery::new(scenario.nodes))),
        total_order::PROPERTY => Some(Box::new(TotalOrder::new(scenario.nodes))),
        replica_agreement::PROPERTY => Some(Box::new(ReplicaAgreement::new(scenario.nodes))),
        deadlock_soundness::PROPERTY => Some(Box::new(DeadlockSoundness::new())),
        deadlock_completeness::PROPERTY => Some(Box::new(DeadlockCompleteness::new(
            scenario.quiet_from_ms(),
            liveness_bound_ms,
        ))),
        bounded_skew::PROPERTY => Some(Box::new(BoundedSkew::for_scenario(scenario))),
        monotonic_clock::PROPERTY => Some(Box::new(MonotonicClock::new(scenario.nodes))),
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
