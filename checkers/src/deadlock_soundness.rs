//! Deadlock soundness: every reported deadlock is real. When a node reports a deadlock
//! (`deadlock_detected`), a cycle of the ground-truth wait-for graph passes through it at that
//! instant — no phantom deadlock.
//!
//! The ground truth is the graph of [`crate::deadlock_graph`], rebuilt from the resource
//! owners' `wait_for` / `wait_end` observations, never from the detector's own belief.
//!
//! # Contract
//!
//! - **Reads:** `wait_for` / `wait_end` observations and `crash` / `restart` faults (the
//!   ground-truth graph, see [`crate::deadlock_graph`]), and `deadlock_detected` observations.
//!   The reporter is the node of the `deadlock_detected` event; its `initiator` field is not
//!   read, and a report without a node is ignored. The cycle must pass through the reporter
//!   at that instant (edges ended at the same instant but earlier in the trace are gone).
//!   Ignored: messages, partitions, pauses, times.
//! - **Settings:** none (no node count, no quiet time, no bound).
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes; every
//!   report was judged when made.
//! - **Class:** safety.

use crate::deadlock_graph::{cycle_text, WaitForGraph};
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Observation, PropertyClass, Violation};

/// Property name.
pub const PROPERTY: &str = "deadlock_soundness";

/// The deadlock soundness checker.
#[derive(Debug, Default)]
pub struct DeadlockSoundness {
    graph: WaitForGraph,
    /// Reports judged sound so far (for tests and summaries).
    confirmed: Vec<Vec<usize>>,
}

impl DeadlockSoundness {
    /// A checker with an empty wait-for graph.
    pub fn new() -> Self {
        DeadlockSoundness::default()
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
        self.graph.apply(ev);
        if let EventKind::Observe {
            obs: Observation::DeadlockDetected { .. },
        } = &ev.kind
        {
            let Some(node) = ev.node else { return Ok(()) };
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
            events.sort_unstable();
            events.dedup();
            return Err(Violation {
                property: PROPERTY.into(),
                class: PropertyClass::Safety,
                explanation: format!(
                    "node {node} reported a deadlock at {:.3} ms, but no cycle of the wait-for graph passes through it: {} (a phantom deadlock)",
                    ev.t_ns as f64 / 1e6,
                    self.graph.describe_chain(node)
                ),
                t_ns: ev.t_ns,
                events,
            });
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
    use sincro_harness::{NodeId, Trace};

    pub(crate) use crate::test_events::observe_ms as obs;

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace { nodes: 3, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockSoundness::new())];
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
        let mut c = DeadlockSoundness::new();
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
