//! Distributed deadlock detection (seed `003` §4.4): Chandy–Misra–Haas probes over a wait-for
//! graph built by a resource-locking workload.
//!
//! The algorithm's file holds its [`Process`](sincro_harness::Process), its
//! [`Spec`](crate::spec::Spec) and its pinned tests; this module holds the family's workload.

pub mod cmh;

use crate::spec::Timed;
use crate::Algorithm;
use cmh::Input;
use sincro_harness::SimRng;

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[&cmh::CmhSpec];

/// Workload of the family: `2n` to `5n` lock jobs at random nodes and times, each locking two
/// or three distinct resources in a random order (hold and wait: circular waits happen) and
/// holding them 1–50 ms. About half the generated runs deadlock.
pub fn workload(rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
    let count = rng.range_u64(2 * nodes as u64, 5 * nodes as u64);
    let mut items: Vec<Timed<Input>> = (0..count)
        .map(|_| {
            let k = rng.range_u64(nodes.min(2) as u64, nodes.min(3) as u64) as usize;
            let mut all: Vec<usize> = (0..nodes).collect();
            for i in 0..k {
                let j = i + rng.index(nodes - i);
                all.swap(i, j);
            }
            all.truncate(k);
            Timed {
                at_ms: rng.range_u64(0, active_ms),
                node: rng.index(nodes),
                input: Input::Lock {
                    resources: all,
                    hold_ms: rng.range_u64(1, 50),
                },
            }
        })
        .collect();
    items.sort_by_key(|w| w.at_ms);
    items
}
