//! Leader agreement: after the faults stop, every live node names the same live leader within
//! a bound.
//!
//! Let `quiet` be the time of the fault plan's last fault. Some instant in
//! `[quiet, quiet + bound]` must see every live node name the same live node (terms may
//! differ). And at the end of the run, if no node has reported anything for `bound`, they must
//! still agree (elections started by the workload after quiet must settle too). Deadlines after
//! the end of the run are not judged.
//!
//! # Contract
//!
//! - **Reads:** `leader` observations (each node's current belief, and the time of the last
//!   report of any node; terms are ignored) and `crash` / `restart` faults (a crashed node is
//!   not live and its belief ends; a restarted node believes nothing until it reports again).
//!   Partitions and pauses are ignored: a partitioned or paused node must agree too.
//! - **Settings:** the node count (every node of `0..nodes` is live from the start and must
//!   have reported: one that never reports blocks agreement), the quiet time
//!   (`scenario.quiet_from_ms()`) and the liveness bound. Agreement must hold in a state that
//!   lasts over an interval ending after `quiet` and no later than `quiet + bound` (a state
//!   between two events of the same instant does not count). A bound of 0 is taken literally
//!   (agreement right after the last fault); there is no "missing" bound.
//! - **When the run ends before it can judge:** `finish` reports when the run ends after
//!   `quiet + bound` without agreement having been reached, and when the run ends disagreeing
//!   more than `bound` after both the quiet time and the last leader report. A run that ends
//!   at or before `quiet + bound` without agreement, or that ends disagreeing within `bound`
//!   of the last report, **passes silently**. When every node has crashed, the first
//!   judgement reports a violation (no live leader to agree on) while the end-of-run one is
//!   excused.
//! - **Class:** liveness.

use super::ElectionView;
use sincro_harness::trace::Event;
use sincro_harness::{Checker, NodeId, PropertyClass, Violation, NS_PER_MS};

/// Property name.
pub const PROPERTY: &str = "leader_agreement";

/// The leader agreement checker.
#[derive(Debug)]
pub struct LeaderAgreement {
    view: ElectionView,
    quiet_ns: u64,
    bound_ns: u64,
    reached: bool,
    last_report_ns: u64,
    last_t_ns: u64,
}

impl LeaderAgreement {
    /// Agreement must be reached within `bound_ms` after `quiet_from_ms`, in a run of `nodes`.
    pub fn new(nodes: usize, quiet_from_ms: u64, bound_ms: u64) -> Self {
        LeaderAgreement {
            view: ElectionView::new(nodes),
            quiet_ns: quiet_from_ms * NS_PER_MS,
            bound_ns: bound_ms * NS_PER_MS,
            reached: false,
            last_report_ns: 0,
            last_t_ns: 0,
        }
    }

    fn deadline_ns(&self) -> u64 {
        self.quiet_ns.saturating_add(self.bound_ns)
    }

    fn disagreement(&self) -> (String, Vec<u64>) {
        let mut parts = Vec::new();
        let mut events = Vec::new();
        for v in self.view.live_nodes() {
            match self.view.belief(v) {
                Some(b) => {
                    events.push(b.event);
                    match b.leader {
                        Some(l) if !self.view.alive(l) => {
                            parts.push(format!("n{v}: n{l} (crashed)"))
                        }
                        Some(l) => parts.push(format!("n{v}: n{l}")),
                        None => parts.push(format!("n{v}: none")),
                    }
                }
                None => parts.push(format!("n{v}: never reported")),
            }
        }
        (parts.join(", "), events)
    }

    fn violation(&self, t_ns: u64, what: String) -> Violation {
        let (state, events) = self.disagreement();
        Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!("{what}; live nodes name: {state}"),
            t_ns,
            events,
        }
    }

    fn agreed(&self) -> Option<NodeId> {
        self.view.agreed()
    }
}

impl Checker for LeaderAgreement {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        // The state before this event held from the previous event's time until now: it
        // counts if that lasted a while and reaches past quiet (states between events of the
        // same instant are transient).
        if !self.reached
            && ev.t_ns > self.quiet_ns
            && ev.t_ns > self.last_t_ns
            && self.agreed().is_some()
        {
            self.reached = true;
        }
        if !self.reached && ev.t_ns > self.deadline_ns() {
            return Err(self.violation(
                self.deadline_ns(),
                format!(
                    "the live nodes did not agree on a live leader within {} ms after the faults stopped (at {:.3} ms)",
                    self.bound_ns / NS_PER_MS,
                    self.quiet_ns as f64 / 1e6
                ),
            ));
        }
        if self.view.apply(ev).is_some() {
            self.last_report_ns = ev.t_ns;
        }
        self.last_t_ns = ev.t_ns;
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        let agreed = self.agreed().is_some();
        if !self.reached && agreed && end_t_ns > self.quiet_ns && end_t_ns > self.last_t_ns {
            self.reached = true;
        }
        if !self.reached && end_t_ns > self.deadline_ns() {
            return Err(self.violation(
                self.deadline_ns(),
                format!(
                    "the live nodes did not agree on a live leader within {} ms after the faults stopped (at {:.3} ms)",
                    self.bound_ns / NS_PER_MS,
                    self.quiet_ns as f64 / 1e6
                ),
            ));
        }
        let settled_ns = self
            .last_report_ns
            .max(self.quiet_ns)
            .saturating_add(self.bound_ns);
        if !agreed && end_t_ns > settled_ns && self.view.live_nodes().next().is_some() {
            return Err(self.violation(
                end_t_ns,
                format!(
                    "the run ended with the live nodes disagreeing, {} ms after the last leader report",
                    (end_t_ns - self.last_report_ns) / NS_PER_MS
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::election::test_util::T;
    use sincro_harness::check::check_trace;
    use sincro_harness::{Fault, Trace};

    fn run(t: T, quiet_ms: u64, bound_ms: u64, end_ms: u64) -> Result<(), Violation> {
        let trace = Trace {
            nodes: 3,
            events: t.events,
        };
        let mut cs: Vec<Box<dyn Checker>> =
            vec![Box::new(LeaderAgreement::new(3, quiet_ms, bound_ms))];
        check_trace(&trace, end_ms * NS_PER_MS, &mut cs)
    }

    #[test]
    fn disagreement_after_the_bound_is_caught() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .fault(100, Fault::Crash { node: 2 })
            .leader(120, 1, Some(1), 0);
        // node 0 still names the crashed node 2
        let v = run(t, 100, 200, 1000).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.class, PropertyClass::Liveness);
        assert_eq!(v.t_ns, 300 * NS_PER_MS);
        assert!(
            v.explanation.contains("n0: n2 (crashed)"),
            "{}",
            v.explanation
        );
        assert!(v.explanation.contains("n1: n1"), "{}", v.explanation);
        // judged online too
        let t = T::default()
            .leader(10, 0, Some(0), 0)
            .leader(900, 1, Some(0), 0);
        assert!(run(t, 0, 100, 1000).is_err());
    }

    #[test]
    fn agreement_within_the_bound_and_short_runs_pass() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .fault(100, Fault::Crash { node: 2 })
            .leader(120, 1, Some(1), 0)
            .leader(150, 0, Some(1), 0);
        run(t, 100, 200, 1000).unwrap();
        // the deadline is after the end of the run: not judged
        let t = T::default().leader(10, 0, None, 0);
        run(t, 100, 2000, 1000).unwrap();
    }

    #[test]
    fn an_unsettled_end_is_caught() {
        // agreed in time, then node 1 starts an election that never ends
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(300, 1, None, 0);
        let v = run(t, 0, 100, 1000).unwrap_err();
        assert!(v.explanation.contains("n1: none"), "{}", v.explanation);
    }
}
