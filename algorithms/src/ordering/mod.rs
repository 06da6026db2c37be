//! Logical clocks and ordered multicast (Tanenbaum & van Steen §6.2, seed `000`; seed `003`):
//! reusable Lamport and vector clocks ([`clocks`]), the clocks on every event with Fig. 6.9's
//! crystals ([`lamport`]), totally ordered multicast with the replicated bank account
//! ([`total`]), causally ordered multicast ([`causal`]), over a reliable link layer ([`link`]).
//!
//! Each algorithm's file holds its [`Process`](sincro_harness::Process), its [`Spec`] and
//! its pinned tests. This module holds what the family shares: the node limit, the fault
//! model of the reliable links and their liveness bound.

pub mod causal;
pub mod clocks;
pub mod lamport;
pub mod link;
pub mod total;

use crate::spec::{Setup, Spec};
use crate::Algorithm;
use sincro_harness::fault::{FaultClass, FaultModel};

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[
    &lamport::LamportSpec,
    &total::TotalSpec,
    &causal::CausalSpec,
];

/// Largest number of nodes of a logical clock run (vectors are carried on every message).
pub const MAX_NODES: usize = 1_000;

/// Checks the node count against [`MAX_NODES`].
pub fn check_nodes<S: Spec>(setup: &Setup<'_, S>) -> Result<(), String> {
    if setup.nodes() > MAX_NODES {
        return Err(format!(
            "{} supports at most {MAX_NODES} nodes, got {}",
            setup.scenario.algorithm,
            setup.nodes()
        ));
    }
    Ok(())
}

/// Every fault class but crashes: the reliable link layer covers loss, duplication,
/// reordering and partitions.
pub fn reliable_link_model(summary: &'static str) -> FaultModel {
    FaultModel {
        tolerates: vec![
            FaultClass::Loss,
            FaultClass::Duplication,
            FaultClass::Reordering,
            FaultClass::Partitions,
            FaultClass::OnewayPartitions,
            FaultClass::Pauses,
            FaultClass::ClockDrift,
            FaultClass::ClockJumps,
        ],
        summary,
        ..FaultModel::default()
    }
}

/// Retransmission period of the link layer: `param`, or a round trip when it is 0.
pub fn retry_ms<S: Spec>(setup: &Setup<'_, S>, param: u64) -> u64 {
    if param > 0 {
        param
    } else {
        2 * setup.max_latency_ms() + 2
    }
}

/// After the faults stop, every message gets through within a few retransmissions (`retry`
/// ms apart); a backward clock jump (up to 500 ms in generated scenarios) can delay a
/// retransmission timer by as much.
pub fn reliable_bound_ms<S: Spec>(setup: &Setup<'_, S>, retry: u64) -> u64 {
    let lat = setup.max_latency_ms();
    let jumps: u64 = setup
        .scenario
        .faults
        .iter()
        .filter_map(|f| match f.fault {
            sincro_harness::Fault::ClockJump { delta_ms, .. } if delta_ms < 0.0 => {
                Some((-delta_ms).ceil() as u64)
            }
            _ => None,
        })
        .sum();
    20 * (retry + lat) + jumps + 100
}
