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
//! | `eventual_leadership`, `crashed_never_elected`, `newcomer_never_demotes` (Ω over a shared-memory trace, after checking the `memory_access_pattern` assumption) | [`omega`] | liveness, liveness, safety |

#![warn(missing_docs)]

pub mod bounded_waiting;
pub mod liveness;
pub mod mutual_exclusion;
pub mod no_deadlock;
pub mod omega;

pub use bounded_waiting::BoundedWaiting;
pub use liveness::Liveness;
pub use mutual_exclusion::MutualExclusion;
pub use no_deadlock::NoDeadlock;

use sincro_harness::{Checker, Scenario};

/// Names of every property this crate can check.
pub const PROPERTIES: &[&str] = &[
    mutual_exclusion::PROPERTY,
    liveness::PROPERTY,
    no_deadlock::PROPERTY,
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
        _ => None,
    }
}
