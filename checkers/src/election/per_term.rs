//! One leader per term (Raft's *Election Safety*): over the whole run, at most one node is
//! ever leader of a given term.
//!
//! [`crate::election::uniqueness`] forbids two leaders of one term *at once*; an algorithm
//! with terms and majority votes promises more: a term elects one leader, once. Two leaders of
//! one term one after the other (the first crashed, or stepped down, before the second won
//! the same term) pass `leader_uniqueness` and break this property: the second could only win
//! with a vote some voter gave twice in that term (a vote forgotten in a restart).
//!
//! # Contract
//!
//! - **Reads:** `leader` observations that claim leadership (`leader: Some(own id)`), with
//!   their terms. The first node to claim a term is its leader; a claim of the same term by
//!   any other node, at any later time (whatever crashed, restarted or stepped down in
//!   between), is a violation. A node claiming its own term again (after a restart, or
//!   repeating itself) is not. Reports of nodes outside `0..nodes`, reports without a node
//!   and every other event are ignored.
//! - **Events at one instant are judged as a set:** the claimants of a term up to an instant
//!   do not depend on the order of its lines, so neither does the verdict; when two nodes first
//!   claim a term at one instant, the violation names them by node id, not by line.
//! - **Settings:** the node count. No quiet time (the faulty phase is judged too), no bound.
//! - **When the run ends before it can judge:** nothing is pending; `finish` judges the last
//!   instant.
//! - **Class:** safety (reported at the instant of the second claimant's claim, once the
//!   instant's events have all been seen: at the first later event, or at the end).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "one_leader_per_term";

/// A claim of a term: when, by whom, which event.
#[derive(Clone, Copy, Debug)]
struct Claim {
    t_ns: u64,
    node: NodeId,
    event: u64,
}

/// The one-leader-per-term checker.
#[derive(Debug)]
pub struct OneLeaderPerTerm {
    nodes: usize,
    /// term -> its first claimant (the lowest node among those of its first instant).
    leaders: BTreeMap<u64, Claim>,
    /// The current instant's first claims of a term by another node than its leader.
    second: Vec<(u64, Claim)>,
    now_ns: u64,
}

impl OneLeaderPerTerm {
    /// A checker over nodes `0..nodes`.
    pub fn new(nodes: usize) -> Self {
        OneLeaderPerTerm {
            nodes,
            leaders: BTreeMap::new(),
            second: Vec::new(),
            now_ns: 0,
        }
    }

    /// Closes the instant: the violation of its lowest term claimed twice, if any.
    fn close_instant(&mut self) -> Result<(), Violation> {
        let Some(&(term, other)) = self.second.iter().min_by_key(|(t, c)| (*t, c.node)) else {
            return Ok(());
        };
        self.second.clear();
        let first = self.leaders[&term];
        let (a, b) = if (first.t_ns, first.node) <= (other.t_ns, other.node) {
            (first, other)
        } else {
            (other, first)
        };
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation: format!(
                "nodes {} and {} were both leader of term {term} (claimed at {:.3} ms and {:.3} ms): a term elects one leader",
                a.node,
                b.node,
                a.t_ns as f64 / 1e6,
                b.t_ns as f64 / 1e6
            ),
            t_ns: other.t_ns,
            events: vec![a.event, b.event],
        })
    }
}

impl Checker for OneLeaderPerTerm {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if ev.t_ns > self.now_ns {
            self.close_instant()?;
            self.now_ns = ev.t_ns;
        }
        let (
            Some(node),
            EventKind::Observe {
                obs:
                    Observation::Leader {
                        leader: Some(l),
                        term,
                    },
            },
        ) = (ev.node.filter(|&n| n < self.nodes), &ev.kind)
        else {
            return Ok(());
        };
        if *l != node {
            return Ok(());
        }
        let claim = Claim {
            t_ns: ev.t_ns,
            node,
            event: ev.id,
        };
        match self.leaders.get_mut(term) {
            None => {
                self.leaders.insert(*term, claim);
            }
            Some(first) if first.node == node => {}
            // Two first claims at one instant: the lower node is the term's leader, whichever
            // line comes first.
            Some(first) if first.t_ns == ev.t_ns && node < first.node => {
                let other = std::mem::replace(first, claim);
                self.second.retain(|(t, _)| t != term);
                self.second.push((*term, other));
            }
            // Another claimant: the lowest of the instant's is named, whichever line comes
            // first (nodes 0, 2 and 3 at once named "0 and 2" or "0 and 3" by line order).
            Some(_) => match self.second.iter_mut().find(|(t, _)| t == term) {
                None => self.second.push((*term, claim)),
                Some((_, c)) if node < c.node => *c = claim,
                Some(_) => {}
            },
        }
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
    use sincro_harness::{Fault, NS_PER_MS};

    fn run(t: T) -> Result<(), Violation> {
        t.check(3, 1_000, OneLeaderPerTerm::new(3))
    }

    #[test]
    fn two_leaders_of_one_term_one_after_the_other_are_caught() {
        // node 0 leads term 1, crashes; node 1 then claims term 1: leader_uniqueness passes
        // this (never two at once), a term elects one leader
        let t = T::default()
            .leader(10, 0, Some(0), 1)
            .fault(20, Fault::Crash { node: 0 })
            .leader(30, 1, Some(1), 1);
        let v = run(t).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.t_ns, 30 * NS_PER_MS);
        assert!(
            v.explanation
                .contains("nodes 0 and 1 were both leader of term 1"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn one_leader_per_term_passes_and_its_own_repeats_too() {
        let t = T::default()
            .leader(10, 0, Some(0), 1)
            .leader(10, 1, Some(0), 1)
            .fault(20, Fault::Crash { node: 0 })
            .fault(25, Fault::Restart { node: 0 })
            .leader(30, 0, Some(0), 1) // its own term again
            .leader(40, 1, Some(1), 2) // a new term, a new leader
            .leader(40, 2, Some(1), 2);
        run(t).unwrap();
    }

    /// Two first claims of one term at one instant: a violation in either line order, naming
    /// the nodes the same way.
    #[test]
    fn two_claims_at_one_instant_are_one_verdict_in_either_order() {
        let a = run(T::default()
            .leader(10, 2, Some(2), 1)
            .leader(10, 1, Some(1), 1))
        .unwrap_err();
        let b = run(T::default()
            .leader(10, 1, Some(1), 1)
            .leader(10, 2, Some(2), 1))
        .unwrap_err();
        assert_eq!(a.explanation, b.explanation);
        assert!(a.explanation.contains("nodes 1 and 2"), "{}", a.explanation);
    }

    /// Three first claims of one term at one instant: the two lowest are named in every line
    /// order (nodes 0, 3, 2 in that order named "0 and 3").
    #[test]
    fn three_claims_at_one_instant_name_the_two_lowest_in_every_order() {
        for order in [
            [0, 2, 3],
            [0, 3, 2],
            [3, 2, 0],
            [2, 3, 0],
            [3, 0, 2],
            [2, 0, 3],
        ] {
            let mut t = T::default();
            for n in order {
                t = t.leader(10, n, Some(n), 1);
            }
            let v = t.check(4, 1_000, OneLeaderPerTerm::new(4)).unwrap_err();
            assert!(
                v.explanation.starts_with("nodes 0 and 2 were both"),
                "{order:?}: {v}"
            );
        }
    }
}
