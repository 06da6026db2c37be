//! Mutual exclusion algorithms (Tanenbaum & van Steen §6.3; seeds `001`, `002`, `003` §4.3).
//!
//! Each file holds one algorithm: its `Process`, its
//! [`Spec`] (name, variants, fault model, workload, liveness bound) and its
//! pinned tests. This module holds what the family shares: the workload and the FIFO bound.

pub mod centralized;
pub mod ricart_agrawala;
pub mod token_ring;
pub mod voting;

use crate::spec::{
    complete_default_with_bound, extend_to_judge, serial_drain_ms, Setup, Spec, Timed,
};
use crate::Algorithm;
use centralized::Input;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{Process, Scenario, SimRng};

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

/// [`Spec::complete`] of the mutual-exclusion algorithms:
/// [`complete_default`](crate::spec::complete_default), and a run long enough for the
/// requests to drain. Critical sections follow each other, so a short active phase full of
/// requests takes a while to serve: each takes its hold time and two usual latencies (a
/// request or release, then a grant), one after another
/// ([`serial_drain_ms`]); the last one is then made, and the run leaves it one and a half
/// liveness bounds, as it leaves the faults.
pub fn complete<S>(spec: &S, draft: Draft, opts: &GenOptions) -> Scenario
where
    S: Spec,
    S::Node: Process<Input = Input>,
{
    // The bound reads the node count, the latencies, the fault plan's spikes and the
    // workload, none of which the duration the default completion sets changes.
    let (mut sc, bound) = complete_default_with_bound(spec, draft, opts);
    let lat = crate::spec::usual_latency_ms(&sc);
    let service = |hold_ms: u64| {
        hold_ms
            .saturating_add(lat.saturating_mul(2))
            .saturating_add(1)
    };
    let inputs = sc
        .workload
        .iter()
        .filter_map(|w| match w.input.decode::<Input>() {
            Ok(Input::Acquire { hold_ms }) => Some((w.at_ms, service(hold_ms))),
            Err(_) => None,
        });
    let drained = serial_drain_ms(inputs, sc.quiet_from_ms());
    extend_to_judge(&mut sc, drained, bound);
    sc
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
