//! Election termination: every election a node starts ends, with a leader known at that node,
//! within a bound after the faults stop.
//!
//! A node starts (or joins) an election when it reports `Leader { leader: None, .. }`; the
//! election ends for it at its next `Leader { leader: Some(l), .. }` naming one of the run's
//! nodes (`l` in `0..nodes`: a leader named outside that range is no leader, and ends
//! nothing). An election started at
//! `t` must end by `max(t, quiet) + bound`. A crash (or restart) of the node cancels it.
//! An election still open at the end of the run whose deadline is not past is not judged, and
//! the checker says so (could not judge).
//!
//! # Contract
//!
//! - **Reads:** `leader` observations of a node (`leader: None` starts an election — a second
//!   one while it is open keeps the first start; `leader: Some(l)` with `l` in `0..nodes` ends
//!   it, one naming a leader outside `0..nodes` does not; terms are ignored)
//!   and `crash` / `restart` faults (cancel the node's open election). Ignored: partitions and
//!   pauses (a cut-off or paused node's election must still end), messages. A node that never
//!   reports `leader: None` has no election to judge, and a run where every node only names
//!   leaders passes (its evidence is a `leader` report of any kind, not an election's start):
//!   the ring, bully and the others elect only when something fails, so a fault-free run, or
//!   an exploration's path where no fault struck the leader, would otherwise be "could not
//!   judge" however much else it judged (stop 74 tried it: `explore` of the ring with one
//!   probe answered exited 6). `leader_agreement` is the property that is not judged with no
//!   election at all.
//! - **Settings:** the node count (which leaders exist), the quiet time
//!   (`scenario.quiet_from_ms()`) and the liveness bound. A bound of 0 is taken literally (an election must end at the instant it
//!   starts, or at the quiet time); the checker has no default bound
//!   ([`crate::Property::NEEDS_BOUND`]).
//! - **When the run ends before it can judge:** `finish` reports an open election whose
//!   deadline is before the end of the run; if one is still open with its deadline at or after
//!   the end, the run is **not judged** ([`Checker::could_not_judge`] names the election, its
//!   deadline and the end). A run in which no election is open at the end is judged.
//! - **Class:** liveness.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{
    Checker, Fault, Interest, NodeId, Observation, PropertyClass, Violation, NS_PER_MS,
};
use std::collections::{BTreeMap, BTreeSet};

/// Property name.
pub const PROPERTY: &str = "election_termination";

#[derive(Debug, Clone, Copy)]
struct Started {
    event: u64,
    t_ns: u64,
    deadline_ns: u64,
}

/// The election termination checker.
#[derive(Debug)]
pub struct ElectionTermination {
    nodes: usize,
    quiet_ns: u64,
    bound_ns: u64,
    pending: BTreeMap<NodeId, Started>,
    /// `(deadline, node)` of every pending election: the earliest deadline without a scan
    /// (a scan per event made a Chang–Roberts worst case at n = 2000 quadratic).
    deadlines: BTreeSet<(u64, NodeId)>,
    unjudged: Option<String>,
}

impl ElectionTermination {
    /// Elections must end, with a leader in `0..nodes`, within `bound_ms` of
    /// `max(start, quiet_from_ms)`.
    pub fn new(nodes: usize, quiet_from_ms: u64, bound_ms: u64) -> Self {
        ElectionTermination {
            nodes,
            quiet_ns: quiet_from_ms * NS_PER_MS,
            bound_ns: bound_ms * NS_PER_MS,
            pending: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            unjudged: None,
        }
    }

    /// The pending election with the earliest deadline (the lowest node among equal ones).
    fn earliest(&self) -> Option<(NodeId, &Started)> {
        debug_assert_eq!(self.deadlines.len(), self.pending.len());
        let &(_, node) = self.deadlines.first()?;
        Some((node, &self.pending[&node]))
    }

    fn close(&mut self, node: NodeId) {
        if let Some(s) = self.pending.remove(&node) {
            let was = self.deadlines.remove(&(s.deadline_ns, node));
            debug_assert!(was, "every pending election is indexed by its deadline");
        }
    }

    fn judge(&self, now_ns: u64) -> Result<(), Violation> {
        let Some((node, s)) = self.earliest().filter(|(_, s)| now_ns > s.deadline_ns) else {
            return Ok(());
        };
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!(
                "the election node {node} started at {:.3} ms did not end with a leader within {} ms after the faults stopped (at {:.3} ms)",
                s.t_ns as f64 / 1e6,
                self.bound_ns / NS_PER_MS,
                self.quiet_ns as f64 / 1e6
            ),
            t_ns: s.deadline_ns,
            events: vec![s.event],
        })
    }
}

impl Checker for ElectionTermination {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    /// Leader reports, crashes and restarts; any other event only judges a deadline.
    fn interest(&self) -> Interest {
        Interest::OBSERVE.or(Interest::FAULT)
    }

    /// The first event past the earliest pending election's deadline judges it.
    fn wake_at_ns(&self) -> u64 {
        self.deadlines
            .first()
            .map_or(u64::MAX, |&(deadline_ns, _)| deadline_ns.saturating_add(1))
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        self.judge(ev.t_ns)?;
        match (&ev.kind, ev.node) {
            (
                EventKind::Observe {
                    obs: Observation::Leader { leader: None, .. },
                },
                Some(node),
            ) => {
                let deadline_ns = ev.t_ns.max(self.quiet_ns).saturating_add(self.bound_ns);
                if let std::collections::btree_map::Entry::Vacant(v) = self.pending.entry(node) {
                    v.insert(Started {
                        event: ev.id,
                        t_ns: ev.t_ns,
                        deadline_ns,
                    });
                    self.deadlines.insert((deadline_ns, node));
                }
            }
            (
                EventKind::Observe {
                    obs:
                        Observation::Leader {
                            leader: Some(l), ..
                        },
                },
                Some(node),
            ) if *l < self.nodes => {
                self.close(node);
            }
            (
                EventKind::Fault {
                    fault: Fault::Crash { node } | Fault::Restart { node },
                },
                _,
            ) => {
                self.close(*node);
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        self.judge(end_t_ns)?;
        self.unjudged = self.earliest().map(|(node, s)| {
                format!(
                    "the election node {node} started at {:.3} ms was still open when the run ended at {:.3} ms, {} its deadline {:.3} ms: too short to judge",
                    s.t_ns as f64 / 1e6,
                    end_t_ns as f64 / 1e6,
                    crate::before_or_at(end_t_ns, s.deadline_ns),
                    s.deadline_ns as f64 / 1e6
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
    use crate::election::test_util::T;
    use sincro_harness::check::judge_trace;
    use sincro_harness::{Trace, Verdict};

    fn run(t: T, quiet_ms: u64, bound_ms: u64, end_ms: u64) -> Result<(), Violation> {
        t.check(3, end_ms, ElectionTermination::new(3, quiet_ms, bound_ms))
    }

    #[test]
    fn an_election_that_never_ends_is_caught() {
        let t = T::default()
            .leader(10, 0, None, 0)
            .leader(20, 1, None, 0)
            .leader(30, 1, Some(2), 0);
        let v = run(t, 50, 100, 1000).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0]);
        assert_eq!(v.t_ns, 150 * NS_PER_MS);
        assert!(v.explanation.contains("node 0"), "{}", v.explanation);
    }

    #[test]
    fn an_election_open_at_an_early_end_is_not_judged() {
        let t = T::default()
            .leader(10, 0, None, 0)
            .leader(30, 1, Some(1), 0);
        let trace = Trace::new(3, t.events);
        let judge = |end_ms: u64| {
            let mut cs: Vec<Box<dyn Checker>> =
                vec![Box::new(ElectionTermination::new(3, 50, 100))];
            judge_trace(&trace, end_ms * NS_PER_MS, &mut cs)
        };
        // node 0's election (deadline 150 ms) is still open at 120 ms: could not judge
        match judge(120) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                assert!(reason.contains("node 0"), "{reason}");
                assert!(reason.contains("150.000 ms"), "{reason}");
            }
            v => panic!("{v}"),
        }
        // past its deadline: a violation
        assert!(matches!(judge(200), Verdict::Violation(_)));
        // ended in time, with node 1's late election still open at the end: not judged
        let t = T::default()
            .leader(10, 0, None, 0)
            .leader(30, 0, Some(1), 0)
            .leader(900, 1, None, 0);
        let trace = Trace::new(3, t.events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ElectionTermination::new(3, 50, 100))];
        assert!(matches!(
            judge_trace(&trace, 950 * NS_PER_MS, &mut cs),
            Verdict::Unjudged { .. }
        ));
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ElectionTermination::new(3, 50, 100))];
        assert!(matches!(
            judge_trace(&trace, 1100 * NS_PER_MS, &mut cs),
            Verdict::Violation(_)
        ));
    }

    /// A leader outside `0..nodes` is no leader: naming one does not end the election (it
    /// used to, so the run passed).
    #[test]
    fn naming_a_leader_that_does_not_exist_ends_no_election() {
        let t = T::default()
            .leader(10, 0, None, 0)
            .leader(20, 0, Some(7), 0);
        let v = run(t, 0, 100, 1000).unwrap_err();
        assert_eq!(v.events, vec![0]);
        assert_eq!(v.t_ns, 110 * NS_PER_MS);
        // naming node 2 (which exists) ends it
        let t = T::default()
            .leader(10, 0, None, 0)
            .leader(20, 0, Some(7), 0)
            .leader(30, 0, Some(2), 0);
        run(t, 0, 100, 1000).unwrap();
    }

    #[test]
    fn ended_elections_crashed_candidates_and_short_runs_pass() {
        let t = T::default()
            .leader(10, 0, None, 0)
            .leader(20, 1, None, 0)
            .leader(30, 1, Some(1), 0)
            .fault(40, Fault::Crash { node: 2 })
            .leader(120, 0, Some(1), 0)
            .fault(125, Fault::Restart { node: 2 })
            .leader(130, 2, None, 0)
            .fault(140, Fault::Crash { node: 2 })
            .leader(900, 1, None, 0)
            .leader(940, 1, Some(1), 0);
        let trace = Trace::new(3, t.events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ElectionTermination::new(3, 50, 100))];
        assert_eq!(judge_trace(&trace, 950 * NS_PER_MS, &mut cs), Verdict::Pass);
    }
}
