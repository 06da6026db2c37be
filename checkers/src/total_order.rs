//! Total order: every replica delivers the same sequence — any two messages delivered by two
//! nodes are delivered by both in the same relative order (Tanenbaum & van Steen §6.2.1,
//! totally ordered multicast).
//!
//! Judged online from `delivered` observations: when node `n` delivers `x`, every other node
//! `m` that delivered `x` must have delivered, before `x`, each message that `n` delivered
//! before `x` and `m` also delivered. Checking at every delivery catches every inverted pair
//! at the later of its four deliveries. A message delivered twice by one node is reported too.
//!
//! # Contract
//!
//! - **Reads:** `delivered` observations of nodes in `0..nodes` (messages matched by their
//!   application id). Only the *relative* order of messages two nodes both delivered is
//!   compared: gaps are allowed, and a message delivered by some nodes and never by others is
//!   not a violation (agreement on *what* is delivered is not checked). Ignored: `multicast`,
//!   transport events, crashes and restarts (a restarted node keeps its delivery sequence, so
//!   a re-delivery after a restart is reported as delivered twice), partitions, pauses.
//! - **Settings:** the node count only. No quiet time, no bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes.
//! - **Class:** safety.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "total_order";

/// The total order checker.
#[derive(Debug)]
pub struct TotalOrder {
    /// per node: id -> (position, event)
    pos: Vec<BTreeMap<String, (usize, u64)>>,
    /// per node: ids in delivery order
    seq: Vec<Vec<String>>,
}

impl TotalOrder {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        TotalOrder {
            pos: vec![BTreeMap::new(); nodes],
            seq: vec![Vec::new(); nodes],
        }
    }
}

impl Checker for TotalOrder {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let EventKind::Observe {
            obs: Observation::Delivered { id: x },
        } = &ev.kind
        else {
            return Ok(());
        };
        let Some(n) = ev.node.filter(|&n| n < self.pos.len()) else {
            return Ok(());
        };
        let fail = |explanation: String, events: Vec<u64>| Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns: ev.t_ns,
            events,
        };
        if let Some(&(_, first)) = self.pos[n].get(x) {
            return Err(fail(
                format!("node {n} delivered {x} twice"),
                vec![first, ev.id],
            ));
        }
        for (m, pos_m) in self.pos.iter().enumerate() {
            if m == n {
                continue;
            }
            let Some(&(px, ex)) = pos_m.get(x) else {
                continue;
            };
            for z in &self.seq[n] {
                if let Some(&(pz, ez)) = pos_m.get(z) {
                    if pz > px {
                        let (_, nz) = self.pos[n][z];
                        return Err(fail(
                            format!(
                                "node {n} delivered {z} before {x}, but node {m} delivered {x} before {z}",
                            ),
                            vec![nz, ev.id, ex, ez],
                        ));
                    }
                }
            }
        }
        let at = self.seq[n].len();
        self.seq[n].push(x.clone());
        self.pos[n].insert(x.clone(), (at, ev.id));
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
}

/// The nodes' delivery sequences (for reports and tests).
impl TotalOrder {
    /// Node `n`'s deliveries so far, in order.
    pub fn sequence(&self, n: NodeId) -> &[String] {
        self.seq.get(n).map(Vec::as_slice).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::delivered;
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace { nodes: 3, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(TotalOrder::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    #[test]
    fn fig_6_11_opposite_orders_are_caught() {
        // San Francisco applies the deposit first, New York the interest first.
        let v = run(vec![
            delivered(0, 0, "deposit"),
            delivered(1, 1, "interest"),
            delivered(2, 0, "interest"),
            delivered(3, 1, "deposit"),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![1, 3, 0, 2]);
        assert!(
            v.explanation
                .contains("node 1 delivered interest before deposit, but node 0 delivered deposit before interest"),
            "{}",
            v.explanation
        );
        // The inversion is found whichever delivery comes last.
        let v = run(vec![
            delivered(0, 0, "a"),
            delivered(1, 0, "b"),
            delivered(2, 1, "b"),
            delivered(3, 2, "a"),
            delivered(4, 1, "a"),
        ])
        .unwrap_err();
        assert_eq!(v.events[1], 4);
    }

    #[test]
    fn same_relative_order_passes_even_with_gaps() {
        run(vec![
            delivered(0, 0, "a"),
            delivered(1, 1, "a"),
            delivered(2, 0, "b"),
            delivered(3, 2, "c"),
            delivered(4, 0, "c"),
            delivered(5, 1, "c"), // node 1 has not delivered b yet: fine
            delivered(6, 2, "x"),
        ])
        .unwrap();
        let v = run(vec![delivered(0, 0, "a"), delivered(1, 0, "a")]).unwrap_err();
        assert!(v.explanation.contains("twice"));
    }
}
