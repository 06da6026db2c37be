//! Single acting leader: at any instant at most one live node acts as leader, whatever the
//! terms.
//!
//! [`leader_uniqueness`](super::uniqueness) is judged per term: an old leader that goes on
//! believing it leads term 1 while a majority elects a leader in term 2 is allowed by it (and by
//! Raft-style algorithms, whose old leader simply cannot commit anything). A lease-based primary
//! promises more: the old primary stops acting (its lease runs out) before any new one starts.
//! This property judges that promise: a node *acts* as leader from its `leader: Some(own id)`
//! report until it reports anything else, crashes or restarts, and no two nodes may act at
//! once.
//!
//! # Contract
//!
//! - **Reads:** `leader` observations of nodes (a claim is `leader: Some(own id)` in any term;
//!   any other report of the node ends its claim), `crash` faults and `start` events of a
//!   restart (both end the node's claim). A paused or partitioned node that claims is still
//!   acting: it would act again the moment it runs or is heard. Ignored: terms, messages,
//!   timers, clock faults, reports of nodes outside `0..nodes`.
//! - **Instants:** the events of one instant are judged as a set, after the last of them, so a
//!   hand-over at one instant (the old leader's step-down and the new leader's claim, in either
//!   line order) is not a violation; two nodes still acting once the instant's events are all
//!   applied are, and so is a node claiming during an instant through which another node kept
//!   acting (even if it steps down again within the instant). The verdict never depends on the
//!   order of lines with equal time.
//! - **Settings:** the node count. No quiet time (the faulty phase is judged too), no bound.
//! - **When the run ends before it can judge:** the last instant is judged at the end; nothing
//!   else is pending, so a run is never left unjudged.
//! - **Class:** safety.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, PropertyClass, Violation};
use std::collections::{BTreeMap, BTreeSet};

/// Property name.
pub const PROPERTY: &str = "single_acting_leader";

/// The single acting leader checker.
#[derive(Debug)]
pub struct SingleActingLeader {
    nodes: usize,
    /// node -> (time it started acting, ns; its claim event; its term).
    acting: BTreeMap<NodeId, (u64, u64, u64)>,
    /// The instant whose events are being applied, ns (`None` before the first event).
    instant: Option<u64>,
    /// Nodes acting when the current instant began.
    held_before: BTreeSet<NodeId>,
    /// Nodes that stopped acting during the current instant.
    dropped: BTreeSet<NodeId>,
    /// Nodes that started acting during the current instant (their claim events).
    claimed: BTreeMap<NodeId, u64>,
}

impl SingleActingLeader {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        SingleActingLeader {
            nodes,
            acting: BTreeMap::new(),
            instant: None,
            held_before: BTreeSet::new(),
            dropped: BTreeSet::new(),
            claimed: BTreeMap::new(),
        }
    }

    /// Judges the instant just closed: at most one node may act once all its events applied,
    /// and no node may claim during it while another kept acting through it.
    fn close_instant(&self) -> Result<(), Violation> {
        let Some(t_ns) = self.instant else {
            return Ok(());
        };
        let through: Vec<NodeId> = self
            .held_before
            .iter()
            .copied()
            .filter(|n| self.acting.contains_key(n) && !self.dropped.contains(n))
            .collect();
        if let Some((&c, &claim)) = self
            .claimed
            .iter()
            .find(|(c, _)| through.iter().any(|h| h != *c))
        {
            let h = *through.iter().find(|&&h| h != c).expect("found above");
            let (since, e, term) = self.acting[&h];
            return Err(Violation {
                property: PROPERTY.into(),
                class: PropertyClass::Safety,
                explanation: format!(
                    "node {c} acted as leader at {:.3} ms while node {h} (term {term}, since {:.3} ms) kept acting",
                    t_ns as f64 / 1e6,
                    since as f64 / 1e6
                ),
                t_ns,
                events: vec![e.min(claim), e.max(claim)],
            });
        }
        if self.acting.len() < 2 {
            return Ok(());
        }
        let mut claims: Vec<(NodeId, (u64, u64, u64))> =
            self.acting.iter().map(|(&n, &c)| (n, c)).collect();
        claims.sort_by_key(|&(n, (since, _, _))| (since, n));
        let who = claims
            .iter()
            .map(|(n, (since, _, term))| {
                format!(
                    "node {n} (term {term}, since {:.3} ms)",
                    *since as f64 / 1e6
                )
            })
            .collect::<Vec<_>>()
            .join(" and ");
        let mut events: Vec<u64> = claims.iter().map(|(_, (_, e, _))| *e).collect();
        events.sort_unstable();
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation: format!(
                "{} nodes act as leader at {:.3} ms: {who}",
                claims.len(),
                t_ns as f64 / 1e6
            ),
            t_ns,
            events,
        })
    }

    fn stop(&mut self, n: NodeId) {
        if self.acting.remove(&n).is_some() {
            self.dropped.insert(n);
        }
    }

    fn apply(&mut self, ev: &Event) {
        match &ev.kind {
            EventKind::Fault {
                fault: Fault::Crash { node } | Fault::Restart { node },
            } => {
                self.stop(*node);
            }
            EventKind::Start { incarnation } if *incarnation > 0 => {
                if let Some(n) = ev.node {
                    self.stop(n);
                }
            }
            EventKind::Observe {
                obs: Observation::Leader { leader, term },
            } => {
                let Some(n) = ev.node.filter(|&n| n < self.nodes) else {
                    return;
                };
                if *leader == Some(n) {
                    if let std::collections::btree_map::Entry::Vacant(v) = self.acting.entry(n) {
                        v.insert((ev.t_ns, ev.id, *term));
                        self.claimed.insert(n, ev.id);
                    }
                } else {
                    self.stop(n);
                }
            }
            _ => {}
        }
    }
}

impl Checker for SingleActingLeader {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if self.instant != Some(ev.t_ns) {
            self.close_instant()?;
            self.instant = Some(ev.t_ns);
            self.held_before = self.acting.keys().copied().collect();
            self.dropped.clear();
            self.claimed.clear();
        }
        self.apply(ev);
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        self.close_instant()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::election::test_util::T;

    use sincro_harness::NS_PER_MS;

    fn run(t: T) -> Result<(), Violation> {
        t.check(3, 10_000, SingleActingLeader::new(3))
    }

    #[test]
    fn an_old_leader_acting_in_an_older_term_is_caught_though_terms_differ() {
        // Elected in term 2 while node 0 still acts in term 1.
        let t = T::default()
            .leader(0, 0, Some(0), 1)
            .leader(10, 1, Some(1), 2);
        let v = run(t).unwrap_err();
        assert_eq!(v.t_ns, 10 * NS_PER_MS);
        assert!(
            v.explanation
                .contains("node 1 acted as leader at 10.000 ms while node 0 (term 1"),
            "{v}"
        );
    }

    #[test]
    fn stepping_down_first_or_crashing_ends_acting() {
        let t = T::default()
            .leader(0, 0, Some(0), 1)
            .leader(5, 0, None, 1)
            .leader(10, 1, Some(1), 2)
            .fault(20, Fault::Crash { node: 1 })
            .leader(30, 2, Some(2), 3);
        run(t).unwrap();
    }

    #[test]
    fn a_hand_over_at_one_instant_passes_in_either_line_order() {
        for claim_first in [false, true] {
            let t = T::default().leader(0, 0, Some(0), 1);
            let t = if claim_first {
                t.leader(10, 1, Some(1), 2).leader(10, 0, Some(1), 2)
            } else {
                t.leader(10, 0, Some(1), 2).leader(10, 1, Some(1), 2)
            };
            let t = t.leader(20, 2, Some(1), 2);
            run(t).unwrap_or_else(|v| panic!("claim first: {claim_first}: {v}"));
        }
    }

    #[test]
    fn a_momentary_claim_while_another_keeps_acting_is_caught() {
        for claim_first in [false, true] {
            let t = T::default().leader(0, 0, Some(0), 1);
            let t = if claim_first {
                t.leader(10, 1, Some(1), 2).leader(10, 1, None, 2)
            } else {
                t.leader(10, 1, Some(1), 2).leader(10, 1, Some(0), 1)
            };
            let v = run(t).unwrap_err();
            assert!(
                v.explanation
                    .contains("node 1 acted as leader at 10.000 ms while node 0"),
                "{v}"
            );
        }
    }

    #[test]
    fn two_claims_at_one_instant_with_no_step_down_are_caught_at_the_end_too() {
        let t = T::default()
            .leader(7, 0, Some(0), 1)
            .leader(7, 2, Some(2), 1);
        let v = run(t).unwrap_err();
        assert_eq!(v.t_ns, 7 * NS_PER_MS);
    }
}
