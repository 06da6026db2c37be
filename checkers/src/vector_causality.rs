//! Vector clocks characterize causality exactly: `VC(a) < VC(b)` if and only if `a → b`.
//!
//! The labelled events are the algorithm's `logical_time` observations carrying a vector
//! (the observation is the event its clocks belong to). Happens-before is the harness's ground
//! truth ([`HappensBefore`]), never the algorithm's clocks. Every new labelled event `b` is
//! compared with every earlier one `a` (the trace order is consistent with happens-before, so
//! `b ↛ a`): the algorithm must say `VC(a) < VC(b)` exactly when `a → b`, and never
//! `VC(b) < VC(a)`. A vector of the wrong length is a violation too.
//!
//! # Contract
//!
//! - **Reads:** the `vector` of `logical_time` observations (its `lamport` value is ignored;
//!   an empty vector is a vector of the wrong length); for the ground truth, every event of a
//!   node in `0..nodes` (program order) and `send` → `deliver` edges. Events without a node or
//!   of a node out of range are ignored. Crashes and restarts are not special: a restarted
//!   node continues its program order, so a process that restarts its vector from zero is
//!   reported.
//! - **Settings:** the node count (the expected vector length). No quiet time, no bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes. But only
//!   the first [`MAX_LABELLED`] labelled events are compared: later ones are **not judged and
//!   pass silently**, so a long run can pass without its end having been checked.
//! - **Class:** safety.

use sincro_harness::trace::{happened_before, Event, EventKind, HappensBefore};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};

/// Property name.
pub const PROPERTY: &str = "vector_causality";

/// Most labelled events compared (the check is quadratic); later ones are not judged.
pub const MAX_LABELLED: usize = 20_000;

#[derive(Debug, Clone)]
struct Labelled {
    id: u64,
    node: NodeId,
    truth: Vec<u32>,
    vc: Vec<u64>,
}

/// `a < b` componentwise-`<=` and different.
fn less(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x <= y) && a != b
}

/// The vector clock causality checker.
#[derive(Debug)]
pub struct VectorCausality {
    nodes: usize,
    hb: HappensBefore,
    seen: Vec<Labelled>,
}

impl VectorCausality {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        VectorCausality {
            nodes,
            hb: HappensBefore::new(nodes),
            seen: Vec::new(),
        }
    }
}

impl Checker for VectorCausality {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let Some(stamp) = self.hb.stamp(ev) else {
            return Ok(());
        };
        let EventKind::Observe {
            obs: Observation::LogicalTime { vector, .. },
        } = &ev.kind
        else {
            return Ok(());
        };
        if self.seen.len() >= MAX_LABELLED {
            return Ok(());
        }
        let node = ev.node.unwrap_or(0);
        let fail = |explanation: String, events: Vec<u64>| Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns: ev.t_ns,
            events,
        };
        if vector.len() != self.nodes {
            return Err(fail(
                format!(
                    "node {node} stamped event {} with a vector of {} entries in a run of {} nodes",
                    ev.id,
                    vector.len(),
                    self.nodes
                ),
                vec![ev.id],
            ));
        }
        let b = Labelled {
            id: ev.id,
            node,
            truth: stamp.to_vec(),
            vc: vector.clone(),
        };
        for a in &self.seen {
            let hb = happened_before(&a.truth, &b.truth);
            let said = less(&a.vc, &b.vc);
            let explanation = if hb && !said {
                format!(
                    "event {} at node {} happened before event {} at node {}, but {:?} is not below {:?}",
                    a.id, a.node, b.id, b.node, a.vc, b.vc
                )
            } else if !hb && said {
                format!(
                    "events {} at node {} and {} at node {} are concurrent, but {:?} < {:?} says the first happened before",
                    a.id, a.node, b.id, b.node, a.vc, b.vc
                )
            } else if less(&b.vc, &a.vc) {
                format!(
                    "event {} at node {} did not happen before event {} at node {}, but {:?} < {:?} says it did",
                    b.id, b.node, a.id, a.node, b.vc, a.vc
                )
            } else {
                continue;
            };
            return Err(fail(explanation, vec![a.id, b.id]));
        }
        self.seen.push(b);
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::{deliver, observe, send};
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn vt(vector: Vec<u64>) -> Observation {
        Observation::LogicalTime { lamport: 0, vector }
    }

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace { nodes: 3, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(VectorCausality::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    #[test]
    fn a_receipt_that_does_not_merge_is_caught() {
        // P0 sends at (1,0,0); P1 receives but only ticks: (0,1,0) is not above (1,0,0).
        let v = run(vec![
            observe(0, 0, vt(vec![1, 0, 0])),
            send(1, 0, 1, 1),
            deliver(2, 1, 1, 0, 1),
            observe(3, 1, vt(vec![0, 1, 0])),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 3]);
        assert!(
            v.explanation.contains("happened before"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn a_vector_that_claims_a_false_dependency_is_caught() {
        let v = run(vec![
            observe(0, 0, vt(vec![1, 0, 0])),
            observe(1, 2, vt(vec![1, 0, 1])),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("concurrent"), "{}", v.explanation);
    }

    #[test]
    fn correct_vectors_pass() {
        run(vec![
            observe(0, 0, vt(vec![1, 0, 0])),
            send(1, 0, 1, 1),
            observe(2, 2, vt(vec![0, 0, 1])),
            deliver(3, 1, 1, 0, 1),
            observe(4, 1, vt(vec![1, 1, 0])),
            observe(5, 0, vt(vec![2, 0, 0])),
        ])
        .unwrap();
        let v = run(vec![observe(0, 0, vt(vec![1, 0]))]).unwrap_err();
        assert!(v.explanation.contains("2 entries"));
    }
}
