//! Mutual exclusion algorithms (Tanenbaum & van Steen §6.3; seeds `001`, `002`, `003` §4.3).
//!
//! Each file holds one algorithm: its `Process`, its
//! [`Spec`] (name, variants, fault model, workload, liveness bound) and its
//! pinned tests. This module holds what the family shares: the workload and the FIFO bound.

pub mod centralized;
pub mod ricart_agrawala;
pub mod token_ring;
pub mod voting;

use crate::spec::{Setup, Spec, Timed};
use crate::Algorithm;
use centralized::Input;
use sincro_harness::{Process, SimRng};

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[
    &centralized::CentralizedSpec,
    &voting::VotingSpec(voting::Mode::Voting),
    &voting::VotingSpec(voting::Mode::Quorum),
    &ricart_agrawala::RicartAgrawalaSpec,
    &ricart_agrawala::RicartAgrawalaFtSpec,
    &token_ring::TokenRingSpec,
];

/// Workload of the mutual exclusion family: up to `4n` acquires at random nodes and times,
/// each holding the resource 1–30 ms.
pub fn workload(rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
    let count = rng.range_u64(1, 4 * nodes as u64);
    let mut items: Vec<Timed<Input>> = (0..count)
        .map(|_| Timed {
            at_ms: rng.range_u64(0, active_ms),
            node: rng.index(nodes),
            input: Input::Acquire {
                hold_ms: rng.range_u64(1, 30),
            },
        })
        .collect();
    items.sort_by_key(|w| w.at_ms);
    items
}

/// The longest hold time of a run's workload, ms.
pub fn hold_max_ms<S>(setup: &Setup<'_, S>) -> u64
where
    S: Spec,
    S::Node: Process<Input = Input>,
{
    setup
        .inputs()
        .map(|t| match t.input {
            Input::Acquire { hold_ms } => hold_ms,
        })
        .max()
        .unwrap_or(0)
}

/// Liveness bound of a FIFO-fair mutex (centralized, Ricart–Agrawala): a request waits behind
/// at most every other node's request (one outstanding request per node), each taking its hold
/// time plus two message times (release and grant, or exit OK and the next entry); then its own
/// two message times.
pub fn fifo_liveness_bound_ms<S>(setup: &Setup<'_, S>) -> u64
where
    S: Spec,
    S::Node: Process<Input = Input>,
{
    let lat = setup.max_latency_ms();
    let per_holder = hold_max_ms(setup) + 2 * lat + 1;
    let bound = setup.nodes() as u64 * per_holder + 2 * lat;
    // Clock drift (at most rho) stretches local hold times a little; allow 10 %.
    bound + bound / 10 + 10
}
