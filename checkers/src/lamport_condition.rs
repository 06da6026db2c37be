//! Lamport's clock condition: if `a → b` then `C(a) < C(b)`.
//!
//! The labelled events are the algorithm's `logical_time` observations (the observation is the
//! event its clock values belong to). Happens-before is the harness's ground truth
//! ([`HappensBefore`]: program order at each node and send → deliver edges of every message),
//! never the algorithm's own clocks. For each node the checker keeps its labelled events in
//! order with the running maximum of their Lamport values, so a new event `b` is compared
//! with the largest `C(a)` over every labelled `a → b` in `O(n log m)`.
//!
//! # Contract
//!
//! - **Reads:** the `lamport` value of `logical_time` observations (its `vector` is ignored);
//!   for the ground truth, every event of a node in `0..nodes` (program order — faults, starts,
//!   timers and inputs included) and `send` → `deliver` edges (a dropped message makes no
//!   edge). Events without a node or of a node out of range are ignored. Crashes and restarts
//!   are not special: a restarted node continues its program order, so its new labels must
//!   exceed its labels from before the crash (a process that restarts its clock from 0 is
//!   reported).
//! - **Settings:** the node count only. No quiet time (the faulty phase is judged too), no
//!   bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes; every
//!   labelled event was judged when it happened.
//! - **Class:** safety.

use sincro_harness::trace::{Event, EventKind, HappensBefore};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};

/// Property name.
pub const PROPERTY: &str = "lamport_condition";

#[derive(Debug, Clone, Copy)]
struct Labelled {
    /// ground-truth own-event counter of the event at its node
    counter: u32,
    /// max Lamport value over this node's labelled events up to here
    prefix_max: u64,
    /// the event holding that max
    argmax: u64,
}

/// The Lamport clock condition checker.
#[derive(Debug)]
pub struct LamportCondition {
    hb: HappensBefore,
    per_node: Vec<Vec<Labelled>>,
}

impl LamportCondition {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        LamportCondition {
            hb: HappensBefore::new(nodes),
            per_node: vec![Vec::new(); nodes],
        }
    }
}

impl Checker for LamportCondition {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let Some(stamp) = self.hb.stamp(ev) else {
            return Ok(());
        };
        let EventKind::Observe {
            obs: Observation::LogicalTime { lamport, .. },
        } = &ev.kind
        else {
            return Ok(());
        };
        let node: NodeId = ev.node.unwrap_or(0);
        let lamport = *lamport;
        for (k, list) in self.per_node.iter().enumerate() {
            // labelled events of node k that happened before ev: own counter <= stamp[k]
            let upto = list.partition_point(|l| l.counter <= stamp[k]);
            if upto == 0 {
                continue;
            }
            let l = list[upto - 1];
            if l.prefix_max >= lamport {
                return Err(Violation {
                    property: PROPERTY.into(),
                    class: PropertyClass::Safety,
                    explanation: format!(
                        "event {} at node {k} happened before event {} at node {node}, but its Lamport clock {} is not below {lamport}",
                        l.argmax, ev.id, l.prefix_max
                    ),
                    t_ns: ev.t_ns,
                    events: vec![l.argmax, ev.id],
                });
            }
        }
        let counter = stamp[node];
        let list = &mut self.per_node[node];
        let (prefix_max, argmax) = match list.last() {
            Some(l) if l.prefix_max >= lamport => (l.prefix_max, l.argmax),
            _ => (lamport, ev.id),
        };
        list.push(Labelled {
            counter,
            prefix_max,
            argmax,
        });
        Ok(())
    }

    /// Its ground-truth happens-before stopped at its entry limit: the rest was not judged.
    fn could_not_judge(&self) -> Option<String> {
        self.hb.over_limit()
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

    fn time(lamport: u64) -> Observation {
        Observation::LogicalTime {
            lamport,
            vector: vec![],
        }
    }

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(LamportCondition::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    /// Past its happens-before's entry limit the checker stops and cannot judge the run: the
    /// violation after the limit is not reported as a pass, nor judged on stamps it lacks.
    #[test]
    fn past_the_stamp_limit_the_run_is_not_judged() {
        let mut c = LamportCondition {
            hb: HappensBefore::with_entries_max(3, 6),
            per_node: vec![Vec::new(); 3],
        };
        // node 2's stamp (3) and its send (3) fit; node 1's stamp does not
        for e in [
            observe(0, 2, time(60)),
            send(1, 2, 7, 1),
            deliver(2, 1, 7, 2, 1),
            observe(3, 1, time(56)),
        ] {
            c.on_event(&e).unwrap();
        }
        c.finish(1_000).unwrap();
        let why = c.could_not_judge().expect("not judged");
        assert!(why.contains("more than 6 entries"), "{why}");
        // within the limit the same run is a violation
        assert!(run(vec![
            observe(0, 2, time(60)),
            send(1, 2, 7, 1),
            deliver(2, 1, 7, 2, 1),
            observe(3, 1, time(56)),
        ])
        .is_err());
    }

    #[test]
    fn fig_6_9a_uncorrected_arrival_is_caught() {
        // m3 leaves P3 at 60 and arrives at P2 reading 56: the arrival is not after the send.
        let v = run(vec![
            observe(0, 2, time(60)),
            send(1, 2, 7, 1),
            deliver(2, 1, 7, 2, 1),
            observe(3, 1, time(56)),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 3]);
        assert!(
            v.explanation.contains("60 is not below 56"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn corrected_clocks_and_concurrent_events_pass() {
        run(vec![
            observe(0, 2, time(60)),
            send(1, 2, 7, 1),
            observe(2, 0, time(90)), // concurrent with everything: any value
            deliver(3, 1, 7, 2, 1),
            observe(4, 1, time(61)),
            observe(5, 1, time(62)),
        ])
        .unwrap();
    }

    #[test]
    fn program_order_needs_increasing_clocks() {
        let v = run(vec![observe(0, 1, time(5)), observe(1, 1, time(5))]).unwrap_err();
        assert_eq!(v.events, vec![0, 1]);
    }
}
