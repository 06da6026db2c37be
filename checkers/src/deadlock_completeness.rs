//! Deadlock completeness: every real deadlock is reported. A cycle of the ground-truth
//! wait-for graph that persists is reported (`deadlock_detected`) by one of its members within
//! a bound after it formed, counted from when the faults stopped if that is later.
//!
//! The cycle is found when its last edge appears (a shortest path back from the edge's head to
//! its tail). It is done with when any of its edges ends (it was transient, or was resolved) or
//! when a member reports a deadlock. A cycle still unreported at the end of the run whose
//! deadline is not past cannot be judged, and the checker says so.
//!
//! # Contract
//!
//! - **Reads:** `wait_for` / `wait_end` observations and `crash` / `restart` faults (the
//!   ground-truth graph, see [`crate::deadlock_graph`]), and `deadlock_detected` observations.
//!   An edge that closes cycles opens *one* cycle: the shortest path back from its head to its
//!   tail (other cycles closed by the same edge are not tracked). A `deadlock_detected` whose
//!   node is a member of an open cycle marks that cycle reported, whatever cycle the report
//!   was about; a report made before the cycle formed does not count. Ignored: messages,
//!   partitions, pauses.
//! - **Settings:** the quiet time (`scenario.quiet_from_ms()`) and the liveness bound; not the
//!   node count. A cycle formed at `t` must be reported by `max(t, quiet) + bound`; a bound of
//!   0 is taken literally (reported at that very instant); the checker has no default bound
//!   ([`crate::Property::NEEDS_BOUND`]).
//! - **When the run ends before it can judge:** `finish` reports an unreported cycle whose
//!   deadline is before the end of the run; if an unreported cycle is still open with its
//!   deadline at or after the end, the run is **not judged** ([`Checker::could_not_judge`]
//!   names the cycle, its deadline and the end).
//! - **Class:** liveness.

use crate::deadlock_graph::{cycle_text, Change, WaitForGraph};
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation, NS_PER_MS};

/// Property name.
pub const PROPERTY: &str = "deadlock_completeness";

#[derive(Debug, Clone)]
struct Open {
    /// `[a, b, ..., a]`
    cycle: Vec<NodeId>,
    /// The event that closed it.
    event: u64,
    formed_ns: u64,
    deadline_ns: u64,
    reported: bool,
}

impl Open {
    fn has_edge(&self, w: NodeId, on: NodeId) -> bool {
        self.cycle.windows(2).any(|p| p[0] == w && p[1] == on)
    }
}

/// The deadlock completeness checker.
#[derive(Debug)]
pub struct DeadlockCompleteness {
    graph: WaitForGraph,
    quiet_ns: u64,
    bound_ns: u64,
    open: Vec<Open>,
    unjudged: Option<String>,
}

impl DeadlockCompleteness {
    /// Cycles must be reported within `bound_ms` of `max(formed, quiet_from_ms)`.
    pub fn new(quiet_from_ms: u64, bound_ms: u64) -> Self {
        DeadlockCompleteness {
            graph: WaitForGraph::new(),
            quiet_ns: quiet_from_ms * NS_PER_MS,
            bound_ns: bound_ms * NS_PER_MS,
            open: Vec::new(),
            unjudged: None,
        }
    }

    fn judge(&self, now_ns: u64) -> Result<(), Violation> {
        let Some(late) = self
            .open
            .iter()
            .filter(|o| !o.reported && o.deadline_ns < now_ns)
            .min_by_key(|o| o.deadline_ns)
        else {
            return Ok(());
        };
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!(
                "the deadlock {} formed at {:.3} ms was not reported by any of its members within {} ms",
                cycle_text(&late.cycle),
                late.formed_ns as f64 / 1e6,
                self.bound_ns / NS_PER_MS
            ),
            t_ns: late.deadline_ns,
            events: vec![late.event],
        })
    }
}

impl Checker for DeadlockCompleteness {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        self.judge(ev.t_ns)?;
        match self.graph.apply(ev) {
            Change::Added(w, on) => {
                if let Some(mut back) = self.graph.path(on, w) {
                    back.insert(0, w);
                    if !self.open.iter().any(|o| o.cycle == back) {
                        self.open.push(Open {
                            cycle: back,
                            event: ev.id,
                            formed_ns: ev.t_ns,
                            deadline_ns: ev.t_ns.max(self.quiet_ns) + self.bound_ns,
                            reported: false,
                        });
                    }
                }
            }
            Change::Removed(edges) => {
                self.open
                    .retain(|o| !edges.iter().any(|&(w, on)| o.has_edge(w, on)));
            }
            Change::None => {}
        }
        if let EventKind::Observe {
            obs: Observation::DeadlockDetected { .. },
        } = &ev.kind
        {
            if let Some(node) = ev.node {
                for o in &mut self.open {
                    if o.cycle.contains(&node) {
                        o.reported = true;
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        self.judge(end_t_ns)?;
        self.unjudged = self
            .open
            .iter()
            .filter(|o| !o.reported)
            .min_by_key(|o| o.deadline_ns)
            .map(|o| {
                format!(
                    "the deadlock {} formed at {:.3} ms was not reported yet when the run ended at {:.3} ms, before its deadline {:.3} ms: too short to judge",
                    cycle_text(&o.cycle),
                    o.formed_ns as f64 / 1e6,
                    end_t_ns as f64 / 1e6,
                    o.deadline_ns as f64 / 1e6
                )
            });
        Ok(())
    }

    fn could_not_judge(&self) -> Option<String> {
        self.unjudged.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::check::{check_trace, judge_trace};
    use sincro_harness::{Trace, Verdict};

    use crate::test_events::observe_ms as obs;

    fn wf(waiter: NodeId, on: NodeId) -> Observation {
        Observation::WaitFor { waiter, on }
    }

    fn run(events: Vec<Event>, end_ms: u64) -> Result<(), Violation> {
        let trace = Trace { nodes: 3, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockCompleteness::new(0, 100))];
        check_trace(&trace, end_ms * NS_PER_MS, &mut cs)
    }

    fn cycle() -> Vec<Event> {
        vec![
            obs(0, 1, 1, wf(0, 1)),
            obs(1, 2, 2, wf(1, 2)),
            obs(2, 3, 0, wf(2, 0)),
        ]
    }

    #[test]
    fn an_unreported_persistent_cycle_is_caught() {
        let v = run(cycle(), 1000).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.class, PropertyClass::Liveness);
        assert_eq!(v.events, vec![2], "the edge that closed the cycle");
        assert_eq!(v.t_ns, 103 * NS_PER_MS);
        assert!(
            v.explanation.contains("n2 -> n0 -> n1 -> n2"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn a_late_report_is_caught_online() {
        let mut ev = cycle();
        ev.push(obs(
            3,
            500,
            2,
            Observation::DeadlockDetected { initiator: 2 },
        ));
        assert!(run(ev, 1000).is_err());
    }

    #[test]
    fn reported_transient_and_unjudgeable_cycles_pass() {
        let mut reported = cycle();
        reported.push(obs(
            3,
            50,
            0,
            Observation::DeadlockDetected { initiator: 0 },
        ));
        run(reported, 1000).unwrap();
        let mut transient = cycle();
        transient.push(obs(3, 50, 0, Observation::WaitEnd { waiter: 2, on: 0 }));
        run(transient, 1000).unwrap();
    }

    #[test]
    fn a_cycle_open_at_an_early_end_is_not_judged() {
        // the run ends before the deadline (103 ms): could not judge, never a pass
        run(cycle(), 90).unwrap();
        let trace = Trace {
            nodes: 3,
            events: cycle(),
        };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockCompleteness::new(0, 100))];
        match judge_trace(&trace, 90 * NS_PER_MS, &mut cs) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                assert!(reason.contains("103.000 ms"), "{reason}");
            }
            v => panic!("{v}"),
        }
        // reported in time: judged, a pass, even though the run is short
        let mut reported = cycle();
        reported.push(obs(
            3,
            50,
            0,
            Observation::DeadlockDetected { initiator: 0 },
        ));
        let trace = Trace {
            nodes: 3,
            events: reported,
        };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockCompleteness::new(0, 100))];
        assert_eq!(judge_trace(&trace, 90 * NS_PER_MS, &mut cs), Verdict::Pass);
    }
}
