//! Deadlock soundness: every reported deadlock is real. When a node reports a deadlock
//! (`deadlock_detected`), a cycle of the ground-truth wait-for graph passes through it at that
//! instant — no phantom deadlock.
//!
//! The ground truth is the graph of [`crate::deadlock_graph`], rebuilt from the resource
//! owners' `wait_for` / `wait_end` observations, never from the detector's own belief. Only the
//! run's nodes `0..nodes` can wait: a `wait_for` naming any other id is not an edge of the
//! ground truth, so a cycle through a non-existent node never makes a report sound.
//!
//! # Contract
//!
//! - **Reads:** `wait_for` / `wait_end` observations and `crash` / `restart` faults (the
//!   ground-truth graph, see [`crate::deadlock_graph`]; a `wait_for` or `wait_end` naming a
//!   node outside `0..nodes` is left out of it, and named in the explanation of a report it
//!   would have made sound), and `deadlock_detected` observations. The reporter is the node of
//!   the `deadlock_detected` event and must name itself as `initiator` (the probe that came
//!   back to it is its own): a report naming another initiator is a violation, and so is a
//!   report by a node outside `0..nodes`; a report without a node is ignored. The cycle must
//!   pass through the reporter at that instant (edges ended at the same instant but earlier in
//!   the trace are gone). Ignored: messages, partitions, pauses, times.
//! - **Settings:** the node count (the ids that exist). No quiet time, no bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes; every
//!   report was judged when made.
//! - **Class:** safety.

use crate::deadlock_graph::{cycle_text, WaitForGraph};
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};

/// Property name.
pub const PROPERTY: &str = "deadlock_soundness";

/// The deadlock soundness checker.
#[derive(Debug)]
pub struct DeadlockSoundness {
    nodes: usize,
    graph: WaitForGraph,
    /// Reports judged sound so far (for tests and summaries).
    confirmed: Vec<Vec<usize>>,
    /// `wait_for` observations left out of the graph because they name a node outside
    /// `0..nodes`: (event, waiter, on).
    invalid: Vec<(u64, NodeId, NodeId)>,
}

impl DeadlockSoundness {
    /// A checker for a run of `nodes` nodes, with an empty wait-for graph.
    pub fn new(nodes: usize) -> Self {
        DeadlockSoundness {
            nodes,
            graph: WaitForGraph::new(),
            confirmed: Vec::new(),
            invalid: Vec::new(),
        }
    }

    /// The cycles confirmed so far, one per sound report.
    pub fn confirmed(&self) -> &[Vec<usize>] {
        &self.confirmed
    }
}

impl Checker for DeadlockSoundness {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::WaitFor { waiter, on } | Observation::WaitEnd { waiter, on },
            } if *waiter >= self.nodes || *on >= self.nodes => {
                if matches!(
                    ev.kind,
                    EventKind::Observe {
                        obs: Observation::WaitFor { .. }
                    }
                ) {
                    self.invalid.push((ev.id, *waiter, *on));
                }
            }
            _ => {
                self.graph.apply(ev);
            }
        }
        if let EventKind::Observe {
            obs: Observation::DeadlockDetected { initiator },
        } = &ev.kind
        {
            let Some(node) = ev.node else { return Ok(()) };
            let fail = |explanation: String, events: Vec<u64>| Violation {
                property: PROPERTY.into(),
                class: PropertyClass::Safety,
                explanation,
                t_ns: ev.t_ns,
                events,
            };
            if node >= self.nodes {
                return Err(fail(
                    format!(
                        "node {node} reported a deadlock at {:.3} ms, but there is no node {node} (the run has {} nodes)",
                        ev.t_ns as f64 / 1e6,
                        self.nodes
                    ),
                    vec![ev.id],
                ));
            }
            if *initiator != node {
                return Err(fail(
                    format!(
                        "node {node} reported a deadlock at {:.3} ms naming node {initiator} as the initiator: a deadlock is declared by the initiator of the probe that came back to it",
                        ev.t_ns as f64 / 1e6
                    ),
                    vec![ev.id],
                ));
            }
            if let Some(cycle) = self.graph.cycle_through(node) {
                self.confirmed.push(cycle);
                return Ok(());
            }
            let mut events: Vec<u64> = self
                .graph
                .successors(node)
                .filter_map(|on| self.graph.edge_event(node, on))
                .collect();
            events.extend(self.graph.last_end(node));
            events.push(ev.id);
            let ignored = if self.invalid.is_empty() {
                String::new()
            } else {
                events.extend(self.invalid.iter().map(|&(e, _, _)| e));
                let edges: Vec<String> = self
                    .invalid
                    .iter()
                    .map(|&(e, w, on)| format!("n{w} -> n{on} (event {e})"))
                    .collect();
                format!(
                    "; left out of the wait-for graph, as they name a node outside 0..{}: {}",
                    self.nodes,
                    crate::grouped::elide(&edges, ", ")
                )
            };
            events.sort_unstable();
            events.dedup();
            return Err(fail(
                format!(
                    "node {node} reported a deadlock at {:.3} ms, but no cycle of the wait-for graph passes through it: {} (a phantom deadlock){ignored}",
                    ev.t_ns as f64 / 1e6,
                    self.graph.describe_chain(node)
                ),
                events,
            ));
        }
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
}

/// The confirmed cycles as text (`n0 -> n1 -> n0`), for reports.
pub fn describe(cycles: &[Vec<usize>]) -> Vec<String> {
    cycles.iter().map(|c| cycle_text(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    pub(crate) use crate::test_events::observe_ms as obs;

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace { nodes: 3, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockSoundness::new(3))];
        check_trace(&trace, 1_000_000_000, &mut cs)
    }

    fn wf(waiter: NodeId, on: NodeId) -> Observation {
        Observation::WaitFor { waiter, on }
    }

    fn we(waiter: NodeId, on: NodeId) -> Observation {
        Observation::WaitEnd { waiter, on }
    }

    #[test]
    fn a_report_on_a_real_cycle_passes() {
        let mut c = DeadlockSoundness::new(3);
        for e in [
            obs(0, 1, 1, wf(0, 1)),
            obs(1, 2, 2, wf(1, 2)),
            obs(2, 3, 0, wf(2, 0)),
            obs(3, 9, 1, Observation::DeadlockDetected { initiator: 1 }),
        ] {
            c.on_event(&e).unwrap();
        }
        assert_eq!(describe(c.confirmed()), vec!["n1 -> n2 -> n0 -> n1"]);
    }

    #[test]
    fn a_report_on_an_ended_edge_is_a_phantom() {
        // 0 -> 1 -> 2 -> 0 existed, but 2 -> 0 ended before 1 reported
        let v = run(vec![
            obs(0, 1, 1, wf(0, 1)),
            obs(1, 2, 2, wf(1, 2)),
            obs(2, 3, 0, wf(2, 0)),
            obs(3, 5, 0, we(2, 0)),
            obs(4, 9, 1, Observation::DeadlockDetected { initiator: 1 }),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.class, PropertyClass::Safety);
        assert!(
            v.explanation.contains("n1 -> n2, which waits for nobody"),
            "{}",
            v.explanation
        );
        assert_eq!(v.events, vec![1, 4]);
    }

    #[test]
    fn a_long_chain_is_explained_by_its_ends() {
        // n0 -> n1 -> ... -> n39 waits for nobody; n0 reports a deadlock. The explanation
        // used to list all 40 nodes; it names the first 8, how many are left out, and the end.
        let n = 40;
        let mut events: Vec<Event> = (0..n - 1)
            .map(|i| obs(i as u64, i as u64 + 1, i, wf(i, i + 1)))
            .collect();
        events.push(obs(
            n as u64,
            100,
            0,
            Observation::DeadlockDetected { initiator: 0 },
        ));
        let trace = Trace { nodes: n, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockSoundness::new(n))];
        let v = check_trace(&trace, 1_000_000_000, &mut cs).unwrap_err();
        assert!(
            v.explanation.contains(
                "n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6 -> n7 -> … 30 more … -> n38 -> n39, \
                 which waits for nobody"
            ),
            "{}",
            v.explanation
        );
        assert!(!v.explanation.contains("n20"), "{}", v.explanation);
    }

    #[test]
    fn a_cycle_through_a_node_that_does_not_exist_is_a_phantom() {
        // n0 -> n7 -> n0 in a run of 3 nodes
        let v = run(vec![
            obs(0, 1, 0, wf(0, 7)),
            obs(1, 2, 0, wf(7, 0)),
            obs(2, 9, 0, Observation::DeadlockDetected { initiator: 0 }),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert!(v.explanation.contains("phantom"), "{}", v.explanation);
        assert!(
            v.explanation.contains("n0 -> n7 (event 0)"),
            "{}",
            v.explanation
        );
        assert_eq!(v.events, vec![0, 1, 2]);
        // the same cycle through node 2, which exists, is sound
        run(vec![
            obs(0, 1, 0, wf(0, 2)),
            obs(1, 2, 0, wf(2, 0)),
            obs(2, 9, 0, Observation::DeadlockDetected { initiator: 0 }),
        ])
        .unwrap();
    }

    #[test]
    fn the_initiator_must_be_the_reporter() {
        let cycle = || vec![obs(0, 1, 1, wf(0, 1)), obs(1, 2, 0, wf(1, 0))];
        let mut events = cycle();
        events.push(obs(2, 9, 1, Observation::DeadlockDetected { initiator: 0 }));
        let v = run(events).unwrap_err();
        assert!(
            v.explanation.contains("naming node 0 as the initiator"),
            "{}",
            v.explanation
        );
        assert_eq!(v.events, vec![2]);
        let mut events = cycle();
        events.push(obs(2, 9, 1, Observation::DeadlockDetected { initiator: 1 }));
        run(events).unwrap();
    }

    #[test]
    fn a_cycle_that_does_not_contain_the_reporter_is_not_its_deadlock() {
        let v = run(vec![
            obs(0, 1, 1, wf(0, 1)),
            obs(1, 2, 2, wf(1, 2)),
            obs(2, 3, 1, wf(2, 1)),
            obs(3, 9, 0, Observation::DeadlockDetected { initiator: 0 }),
        ])
        .unwrap_err();
        assert!(
            v.explanation.contains("a cycle without n0"),
            "{}",
            v.explanation
        );
    }
}
