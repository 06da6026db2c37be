//! Leader uniqueness: at any global time, at most one live node believes itself leader in a
//! given term.
//!
//! A node believes itself leader from its `leader: Some(own id)` observation until it reports
//! anything else or crashes. When a second node claims the same term while the first still
//! does, the split brain is reported with both leaders, the term, and the partitions, crashes
//! and pauses in effect at either claim (taken from the trace's fault events).
//!
//! # Contract
//!
//! - **Reads:** `leader` observations (a claim is `leader: Some(own id)`; any other report of
//!   the node ends its claim; reports without a node are ignored) and `crash` / `restart`
//!   faults (end the node's belief; a crashed node is not live). Partitions, heals, pauses and
//!   resumes are read only to name the faults in effect in the explanation: a paused or
//!   partitioned node still counts as live, and its claim stands. Only claims of the same term
//!   conflict. Ignored: messages, timers, clock faults.
//! - **Settings:** the node count (events of nodes outside `0..nodes` are ignored). No quiet time
//!   (the faulty phase is judged too), no bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes; every
//!   claim was judged when made.
//! - **Class:** safety.

use super::{describe_faults, ElectionView};
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "leader_uniqueness";

/// The leader uniqueness checker.
#[derive(Debug)]
pub struct LeaderUniqueness {
    view: ElectionView,
    /// Every fault event seen, by id (to describe them).
    faults: BTreeMap<u64, Fault>,
    /// node -> faults in effect when it claimed leadership.
    claim_faults: BTreeMap<NodeId, Vec<u64>>,
}

impl LeaderUniqueness {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        LeaderUniqueness {
            view: ElectionView::new(nodes),
            faults: BTreeMap::new(),
            claim_faults: BTreeMap::new(),
        }
    }
}

impl Checker for LeaderUniqueness {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if let EventKind::Fault { fault } = &ev.kind {
            self.faults.insert(ev.id, fault.clone());
        }
        self.view.apply(ev);
        let (
            Some(node),
            EventKind::Observe {
                obs:
                    Observation::Leader {
                        leader: Some(l),
                        term,
                    },
            },
        ) = (ev.node, &ev.kind)
        else {
            return Ok(());
        };
        if *l != node {
            return Ok(());
        }
        let now_faults = self.view.faults_in_effect();
        for other in self.view.live_nodes() {
            if other == node {
                continue;
            }
            let Some(b) = self.view.belief(other) else {
                continue;
            };
            if b.leader == Some(other) && b.term == *term {
                let mut involved: Vec<u64> = self
                    .claim_faults
                    .get(&other)
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .chain(now_faults.iter().copied())
                    .collect();
                involved.sort_unstable();
                involved.dedup();
                let mut events = vec![b.event, ev.id];
                events.extend(involved.iter().copied());
                let mut faults = describe_faults(&involved, &self.faults);
                if involved.is_empty() {
                    if let Some((&id, f)) = self.faults.iter().next_back() {
                        faults = format!(
                            "{faults}; last fault before it: {} (event {id})",
                            sincro_harness::render::fault_text(f)
                        );
                        events.push(id);
                    }
                }
                return Err(Violation {
                    property: PROPERTY.into(),
                    class: PropertyClass::Safety,
                    explanation: format!(
                        "split brain: node {node} believes it leads term {term} while node {other} (since {:.3} ms) still does; {faults}",
                        b.t_ns as f64 / 1e6,
                    ),
                    t_ns: ev.t_ns,
                    events,
                });
            }
        }
        self.claim_faults.insert(node, now_faults);
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::election::test_util::T;
    use sincro_harness::check::check_trace;
    use sincro_harness::{Trace, NS_PER_MS};

    fn run(t: T) -> Result<(), Violation> {
        let trace = Trace {
            nodes: 5,
            events: t.events,
        };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(LeaderUniqueness::new(5))];
        check_trace(&trace, 10_000 * NS_PER_MS, &mut cs)
    }

    #[test]
    fn split_brain_under_a_partition_is_caught_with_the_partition() {
        let v = run(T::default()
            .all(10, &[0, 1, 2, 3, 4], 4, 0)
            .fault(
                100,
                Fault::Partition {
                    groups: vec![vec![0, 1, 2]],
                },
            )
            .leader(150, 2, None, 0)
            .leader(200, 2, Some(2), 0))
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.class, PropertyClass::Safety);
        // node 4's claim (event 4), node 2's claim (event 7), the partition (event 5)
        assert_eq!(v.events, vec![4, 7, 5]);
        assert!(v.explanation.contains("node 2") && v.explanation.contains("node 4"));
        assert!(v.explanation.contains("term 0"), "{}", v.explanation);
        assert!(
            v.explanation.contains("partition [[0, 1, 2]]"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn leaders_of_different_terms_a_crash_and_a_handover_pass() {
        run(T::default()
            .all(10, &[0, 1, 2, 3, 4], 4, 1)
            // node 3 leads term 2 while stale node 4 still thinks it leads term 1: allowed
            .leader(50, 3, Some(3), 2)
            .leader(60, 4, Some(3), 2)
            // node 3 crashes: its belief ends there, so node 2 may lead term 2
            .fault(70, Fault::Crash { node: 3 })
            .leader(80, 2, Some(2), 2)
            // a step-down before the next claim
            .leader(90, 2, Some(1), 3)
            .leader(95, 1, Some(1), 3))
        .unwrap();
    }

    #[test]
    fn a_restart_ends_the_old_belief() {
        run(T::default()
            .leader(10, 4, Some(4), 0)
            .fault(20, Fault::Crash { node: 4 })
            .fault(30, Fault::Restart { node: 4 })
            .leader(40, 3, Some(3), 0))
        .unwrap();
        let v = run(T::default()
            .leader(10, 4, Some(4), 0)
            .fault(20, Fault::Crash { node: 1 })
            .leader(40, 3, Some(3), 0))
        .unwrap_err();
        assert!(
            v.explanation.contains("crash n1 (event 1)"),
            "{}",
            v.explanation
        );
    }
}
