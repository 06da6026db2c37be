//! Leader validity: once the faults have stopped and the bound has passed, the leader a live
//! node names is alive and, where the algorithm promises it, the best by rank among the live
//! nodes it can reach.
//!
//! Judged at `quiet + bound` on every live node's current belief, and afterwards on every
//! leader report. The rank policy is set by the constructor: [`LeaderValidity::new`] — the
//! highest id wins (bully, ring election, Chang–Roberts...); [`LeaderValidity::with_ranks`] with
//! `Some(ranks)` — the highest `ranks[node]` wins, ties broken by the higher id (e.g. ad-hoc
//! election by capacity); with `None` — any live node is a valid leader (term-based elections
//! promise no particular winner). A node that names no leader is not judged here (see
//! `leader_agreement` and `election_termination`). A leader named outside `0..nodes` is no
//! node at all: that is reported at once, whenever it is named (before `quiet + bound` too).
//!
//! # Contract
//!
//! - **Reads:** `leader` observations (each node's belief; terms are ignored), `crash` /
//!   `restart` faults (who is alive), and `partition` / `partition_oneway` / `heal` faults
//!   (the best is taken among the live nodes the judged node reaches with no cut in either
//!   direction; the named leader itself need only be alive). Pauses are ignored: a paused node
//!   is live and may be the best. A node that names no leader, or has not reported since it
//!   (re)started, is not judged. A leader outside `0..nodes` is a violation at any time, the
//!   faulty phase included (no node can ever be it).
//! - **Settings:** the node count, the quiet time (`scenario.quiet_from_ms()`), the liveness
//!   bound and the rank policy. [`crate::by_name`] (and [`crate::Property`]) build
//!   [`LeaderValidity::new`]: the highest live id must win, whatever the algorithm. Judged from
//!   `quiet + bound`: once on every live node's belief, then on every leader report of a live
//!   node, then once more at the end. A bound of 0 judges from the quiet time on; the checker
//!   has no default bound ([`crate::Property::NEEDS_BOUND`]).
//! - **When the run ends before it can judge:** a run that ends at or before `quiet + bound`
//!   is **not judged** ([`Checker::could_not_judge`] gives the end and the deadline), unless
//!   it named a leader outside `0..nodes`, which is a violation.
//! - **Class:** safety (from `quiet + bound` on).

use super::ElectionView;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Interest, NodeId, Observation, PropertyClass, Violation, NS_PER_MS};

/// Property name.
pub const PROPERTY: &str = "leader_validity";

/// Who may win.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RankPolicy {
    /// Any live node.
    AliveOnly,
    /// The live node with the highest id.
    HighestId,
    /// The live node with the highest rank (`ranks[node]`, ties: higher id; missing: 0).
    Ranks(Vec<u64>),
}

/// The leader validity checker.
#[derive(Debug)]
pub struct LeaderValidity {
    view: ElectionView,
    deadline_ns: u64,
    policy: RankPolicy,
    judged_all: bool,
    unjudged: Option<String>,
}

impl LeaderValidity {
    /// The highest live id must win, judged from `quiet_from_ms + bound_ms` on.
    pub fn new(nodes: usize, quiet_from_ms: u64, bound_ms: u64) -> Self {
        Self::with_policy(nodes, quiet_from_ms, bound_ms, RankPolicy::HighestId)
    }

    /// `Some(ranks)`: the best-ranked live node must win; `None`: any live node may.
    pub fn with_ranks(
        nodes: usize,
        quiet_from_ms: u64,
        bound_ms: u64,
        ranks: Option<Vec<u64>>,
    ) -> Self {
        let policy = match ranks {
            Some(r) => RankPolicy::Ranks(r),
            None => RankPolicy::AliveOnly,
        };
        Self::with_policy(nodes, quiet_from_ms, bound_ms, policy)
    }

    /// With an explicit [`RankPolicy`].
    pub fn with_policy(
        nodes: usize,
        quiet_from_ms: u64,
        bound_ms: u64,
        policy: RankPolicy,
    ) -> Self {
        LeaderValidity {
            view: ElectionView::new(nodes),
            deadline_ns: quiet_from_ms
                .saturating_add(bound_ms)
                .saturating_mul(NS_PER_MS),
            policy,
            judged_all: false,
            unjudged: None,
        }
    }

    fn key(&self, v: NodeId) -> (u64, NodeId) {
        match &self.policy {
            RankPolicy::Ranks(r) => (r.get(v).copied().unwrap_or(0), v),
            _ => (0, v),
        }
    }

    /// The best live node `node` can reach, under the policy (`None` for `AliveOnly`).
    fn best_for(&self, node: NodeId) -> Option<NodeId> {
        if self.policy == RankPolicy::AliveOnly {
            return None;
        }
        if !self.view.partitioned() && self.view.exists(node) {
            return self.best_live();
        }
        self.view
            .live_nodes()
            .filter(|&v| self.view.reachable(node, v))
            .max_by_key(|&v| self.key(v))
    }

    /// The best live node under the policy: the one every node reaches when no partition is
    /// in force (`None` for `AliveOnly`). The highest live id is found from the top, without
    /// scanning every node.
    fn best_live(&self) -> Option<NodeId> {
        match &self.policy {
            RankPolicy::AliveOnly => None,
            RankPolicy::HighestId => (0..self.view.nodes()).rev().find(|&v| self.view.alive(v)),
            RankPolicy::Ranks(_) => self.view.live_nodes().max_by_key(|&v| self.key(v)),
        }
    }

    fn judge_node(&self, node: NodeId, t_ns: u64) -> Result<(), Violation> {
        self.judge_node_with(node, t_ns, None)
    }

    /// [`Self::judge_node`], with the best live node already known when no partition is in
    /// force (`judge_all` finds it once, not once per node: O(n), not O(n²)).
    fn judge_node_with(
        &self,
        node: NodeId,
        t_ns: u64,
        best_unpartitioned: Option<Option<NodeId>>,
    ) -> Result<(), Violation> {
        let Some(b) = self.view.belief(node) else {
            return Ok(());
        };
        let Some(l) = b.leader else {
            return Ok(());
        };
        let fail = |explanation: String| Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns,
            events: vec![b.event],
        };
        if !self.view.exists(l) {
            return Err(fail(format!(
                "node {node} names node {l} as leader, but there is no node {l} (the run has {} nodes)",
                self.view.nodes()
            )));
        }
        if !self.view.alive(l) {
            return Err(fail(format!(
                "node {node} names node {l} as leader, but node {l} has crashed"
            )));
        }
        let best = match best_unpartitioned {
            Some(best) => best,
            None => self.best_for(node),
        };
        if let Some(best) = best {
            if self.key(best) > self.key(l) {
                let why = match &self.policy {
                    RankPolicy::Ranks(_) => format!(
                        "node {best} (rank {}) outranks it (rank {})",
                        self.key(best).0,
                        self.key(l).0
                    ),
                    _ => format!("node {best} has a higher id"),
                };
                return Err(fail(format!(
                    "node {node} names node {l} as leader, but live and reachable {why}"
                )));
            }
        }
        Ok(())
    }

    fn judge_all(&mut self, t_ns: u64) -> Result<(), Violation> {
        self.judged_all = true;
        let best = (!self.view.partitioned()).then(|| self.best_live());
        let live: Vec<NodeId> = self.view.live_nodes().collect();
        for v in live {
            self.judge_node_with(v, t_ns, best)?;
        }
        Ok(())
    }
}

impl Checker for LeaderValidity {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    /// Judged from the quiet time on (and, for stability, between faults of the plan).
    fn judged_once_the_faults_stop(&self) -> bool {
        true
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    /// Leader reports and faults (the view); any other event only judges the deadline.
    fn interest(&self) -> Interest {
        Interest::OBSERVE.or(Interest::FAULT)
    }

    /// The first event past the deadline judges every live node, once.
    fn wake_at_ns(&self) -> u64 {
        if self.judged_all {
            u64::MAX
        } else {
            self.deadline_ns.saturating_add(1)
        }
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if !self.judged_all && ev.t_ns > self.deadline_ns {
            self.judge_all(self.deadline_ns)?;
        }
        self.view.apply(ev);
        if let (
            Some(node),
            EventKind::Observe {
                obs: Observation::Leader {
                    leader: Some(l), ..
                },
            },
        ) = (ev.node, &ev.kind)
        {
            if !self.view.exists(*l) && self.view.exists(node) {
                self.judge_node(node, ev.t_ns)?;
            }
        }
        if ev.t_ns > self.deadline_ns {
            if let (
                Some(node),
                EventKind::Observe {
                    obs: Observation::Leader { .. },
                },
            ) = (ev.node, &ev.kind)
            {
                if self.view.alive(node) {
                    self.judge_node(node, ev.t_ns)?;
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        if end_t_ns > self.deadline_ns {
            // no event since the deadline: the state judged now is the state at the deadline
            let t_ns = if self.judged_all {
                end_t_ns
            } else {
                self.deadline_ns
            };
            self.judge_all(t_ns)?;
        } else {
            self.unjudged = Some(format!(
                "the run ended at {:.3} ms, at or before quiet + bound = {:.3} ms, from when the leaders are judged: too short to judge",
                end_t_ns as f64 / 1e6,
                self.deadline_ns as f64 / 1e6
            ));
        }
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
    use sincro_harness::{Fault, Trace, Verdict};

    fn run(t: T, c: LeaderValidity, end_ms: u64) -> Result<(), Violation> {
        t.check(4, end_ms, c)
    }

    #[test]
    fn a_lower_leader_than_a_live_higher_node_is_caught() {
        let t = T::default().all(10, &[0, 1, 2, 3], 2, 0);
        let v = run(t, LeaderValidity::new(4, 0, 100), 1000).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert!(
            v.explanation.contains("node 3 has a higher id"),
            "{}",
            v.explanation
        );
        // with ranks, node 2 is the best: passes
        let t = T::default().all(10, &[0, 1, 2, 3], 2, 0);
        run(
            t,
            LeaderValidity::with_ranks(4, 0, 100, Some(vec![1, 1, 9, 3])),
            1000,
        )
        .unwrap();
        // and with ranks naming node 1 the best, node 2 is caught
        let t = T::default().all(10, &[0, 1, 2, 3], 2, 0);
        let v = run(
            t,
            LeaderValidity::with_ranks(4, 0, 100, Some(vec![1, 20, 9, 3])),
            1000,
        )
        .unwrap_err();
        assert!(v.explanation.contains("rank 20"), "{}", v.explanation);
    }

    #[test]
    fn a_crashed_leader_is_caught_even_without_ranks() {
        let t = T::default()
            .all(10, &[0, 1, 2, 3], 1, 0)
            .fault(20, Fault::Crash { node: 1 });
        let v = run(t, LeaderValidity::with_ranks(4, 20, 100, None), 1000).unwrap_err();
        assert!(v.explanation.contains("has crashed"), "{}", v.explanation);
        assert_eq!(v.t_ns, 120 * NS_PER_MS);
    }

    #[test]
    fn the_highest_live_node_passes() {
        let t = T::default()
            .all(10, &[0, 1, 2, 3], 3, 0)
            .fault(20, Fault::Crash { node: 3 })
            .all(60, &[0, 1, 2], 2, 0);
        run(t, LeaderValidity::new(4, 20, 100), 1000).unwrap();
    }

    #[test]
    fn a_run_that_ends_before_the_deadline_is_not_judged() {
        // a stale belief before the deadline is not judged, and the run is not a pass
        let t = T::default().all(10, &[0, 1, 2, 3], 0, 0);
        let trace = Trace::new(4, t.events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(LeaderValidity::new(4, 0, 2000))];
        match judge_trace(&trace, 1000 * NS_PER_MS, &mut cs) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                assert!(reason.contains("2000.000 ms"), "{reason}");
            }
            v => panic!("{v}"),
        }
        // judged once the run reaches the deadline: node 3 is live and higher
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(LeaderValidity::new(4, 0, 2000))];
        assert!(matches!(
            judge_trace(&trace, 3000 * NS_PER_MS, &mut cs),
            Verdict::Violation(_)
        ));
    }

    #[test]
    fn a_leader_outside_the_nodes_is_caught_at_once() {
        // node 9 in a run of 4, named during the faulty phase (before quiet + bound)
        let t = T::default().all(10, &[0, 1, 2, 3], 9, 0);
        let v = run(t, LeaderValidity::with_ranks(4, 500, 100, None), 1000).unwrap_err();
        assert!(v.explanation.contains("no node 9"), "{}", v.explanation);
        assert_eq!(v.t_ns, 10 * NS_PER_MS);
        // a real node passes under the same policy
        let t = T::default().all(10, &[0, 1, 2, 3], 1, 0);
        run(t, LeaderValidity::with_ranks(4, 500, 100, None), 1000).unwrap();
    }
}
