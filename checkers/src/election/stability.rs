//! Leader stability: after the faults stop and the live nodes agree on a leader, no node starts
//! a new election or changes leader (or term) while that leader is alive and reachable from it.
//!
//! Once every live node names the same live leader `L` in the same term `t` at or after
//! `quiet + settle` (by default `settle` = 0), any later leader report of a live node `n` other
//! than `(L, t)` is a violation if `L` is alive and no partition separates `L` from any live
//! node (a node cut from `L` may rightly start an election that disrupts the others too).
//! `settle` is for failure detectors: a timer a follower started before the faults stopped (its
//! last heartbeat was lost) may still fire up to one timeout after them, so an algorithm built
//! on timeouts passes its largest one ([`LeaderStability::with_settle`]). If a new agreement forms (e.g. after `L`
//! became unreachable), it is the new reference. (Agreement on the leader alone is not enough:
//! a follower that lags a term behind will legitimately catch up.)
//!
//! # Contract
//!
//! - **Reads:** `leader` observations (beliefs with their terms), `crash` / `restart` faults
//!   (who is alive; a restart clears the node's belief) and `partition` / `partition_oneway`
//!   / `heal` faults (the leader must be reachable, with no cut in either direction, from
//!   every live node for a change to be blamed). Pauses are ignored: a paused node is live and
//!   must agree. A node's first report after it (re)started is not judged (it had no belief to
//!   change).
//! - **Settings:** the node count and the quiet time (`scenario.quiet_from_ms()`), plus the
//!   settle time of [`LeaderStability::with_settle`]; [`crate::by_name`] (and
//!   [`crate::Property`]) build [`LeaderStability::new`], settle 0. No liveness bound (unused).
//!   An agreement counts once it held over an interval ending after `quiet + settle`.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes. If the
//!   live nodes never agree on a leader in one term after the quiet time, nothing is judged
//!   and the run **passes** (asking for agreement is `leader_agreement`'s job).
//! - **Class:** safety (once agreement is reached).

use super::ElectionView;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation, NS_PER_MS};

/// Property name.
pub const PROPERTY: &str = "leader_stability";

/// The leader stability checker.
#[derive(Debug)]
pub struct LeaderStability {
    view: ElectionView,
    quiet_ns: u64,
    /// The agreed leader, its term, and when agreement was seen.
    agreed: Option<(NodeId, u64, u64)>,
    last_t_ns: u64,
}

impl LeaderStability {
    /// Stability is judged once the live nodes agree, at or after `quiet_from_ms`.
    pub fn new(nodes: usize, quiet_from_ms: u64) -> Self {
        Self::with_settle(nodes, quiet_from_ms, 0)
    }

    /// Stability is judged once the live nodes agree, at or after
    /// `quiet_from_ms + settle_ms`.
    pub fn with_settle(nodes: usize, quiet_from_ms: u64, settle_ms: u64) -> Self {
        LeaderStability {
            view: ElectionView::new(nodes),
            quiet_ns: quiet_from_ms.saturating_add(settle_ms) * NS_PER_MS,
            agreed: None,
            last_t_ns: 0,
        }
    }
}

impl Checker for LeaderStability {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        // The state before this event held since the previous event: an agreement counts once
        // it lasted a while past quiet (states between events of one instant are transient).
        if ev.t_ns > self.quiet_ns && ev.t_ns > self.last_t_ns {
            match self.view.agreed_in_term() {
                Some((l, t)) if self.agreed.map(|a| (a.0, a.1)) != Some((l, t)) => {
                    self.agreed = Some((l, t, self.last_t_ns.max(self.quiet_ns)));
                }
                _ => {}
            }
        }
        self.last_t_ns = ev.t_ns;
        let prev = self.view.apply(ev);
        if let (
            Some(Some(prev)),
            Some(node),
            Some((l, t, since_ns)),
            EventKind::Observe {
                obs: Observation::Leader { leader, term },
            },
        ) = (prev, ev.node, self.agreed, &ev.kind)
        {
            let changed = *leader != Some(l) || *term != t;
            let connected = self.view.live_nodes().all(|v| self.view.reachable(v, l));
            if changed && self.view.alive(l) && connected {
                let what = match leader {
                    None => format!("started a new election (term {term})"),
                    Some(x) if *x == l => {
                        format!("moved from term {t} to term {term} with the same leader")
                    }
                    Some(x) => format!("changed its leader to node {x} (term {term})"),
                };
                return Err(Violation {
                    property: PROPERTY.into(),
                    class: PropertyClass::Safety,
                    explanation: format!(
                        "node {node} {what} while the agreed leader node {l} (agreed since {:.3} ms) was alive and reachable",
                        since_ns as f64 / 1e6
                    ),
                    t_ns: ev.t_ns,
                    events: vec![prev.event, ev.id],
                });
            }
        }
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
    use sincro_harness::{Fault, Trace};

    fn run(t: T, quiet_ms: u64) -> Result<(), Violation> {
        t.check(3, 10_000, LeaderStability::new(3, quiet_ms))
    }

    #[test]
    fn a_new_election_under_a_live_reachable_leader_is_caught() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(50, 0, None, 0);
        let v = run(t, 0).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 3]);
        assert!(
            v.explanation.contains("node 0 started a new election"),
            "{}",
            v.explanation
        );
        // a new term with the same leader is a new election too
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 4)
            .leader(50, 1, Some(2), 5);
        let v = run(t, 0).unwrap_err();
        assert!(
            v.explanation.contains("term 4 to term 5"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn the_settle_time_and_a_one_way_cut_of_the_leader_excuse_a_change() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(50, 0, None, 0);
        run(t, 0).unwrap_err();
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(50, 0, None, 0);
        let trace = Trace {
            nodes: 3,
            events: t.events,
        };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(LeaderStability::with_settle(3, 0, 60))];
        check_trace(&trace, 10_000 * NS_PER_MS, &mut cs).unwrap();
        // node 2 cannot reach node 1: node 0's election is excused
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .fault(
                20,
                Fault::PartitionOneway {
                    from: vec![2],
                    to: vec![1],
                },
            )
            .leader(50, 0, None, 0);
        run(t, 0).unwrap();
    }

    #[test]
    fn a_follower_catching_up_a_term_is_not_a_new_election() {
        let t = T::default()
            .leader(10, 0, Some(2), 4) // node 0 lags a term behind: no agreement in a term yet
            .all(10, &[1, 2], 2, 5)
            .leader(50, 0, Some(2), 5);
        run(t, 0).unwrap();
    }

    #[test]
    fn changes_before_quiet_or_when_the_leader_is_gone_pass() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(20, 0, None, 0) // before quiet: not judged
            .fault(
                30,
                Fault::Partition {
                    groups: vec![vec![2]],
                },
            )
            .leader(40, 0, Some(2), 0)
            .leader(50, 1, None, 0) // node 2 unreachable: allowed
            .leader(60, 1, Some(1), 0)
            .leader(60, 0, Some(1), 0)
            .fault(70, Fault::Crash { node: 1 })
            .leader(80, 0, None, 0); // node 2 still unreachable: allowed
        run(t, 30).unwrap();
    }
}
