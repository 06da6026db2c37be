//! One vote per term: over the whole run, a node grants its vote in a given term to one
//! candidate at most (Raft's `votedFor`, kept across crashes).
//!
//! [`crate::election::per_term`] judges the outcome: a term elects one leader. This property
//! judges the step that outcome rests on: two majorities of one term intersect, and the
//! process in both voted once in that term. A voter that forgets its vote in a restart and
//! votes again in the same term breaks it at once, whether or not the second candidate then
//! wins (it needs more votes, and no heartbeat of the first leader, to win).
//!
//! # Contract
//!
//! - **Reads:** `vote` observations (`term`, `candidate`) of nodes in `0..nodes`, a
//!   candidate's vote for itself included. The first vote of a node in a term fixes its
//!   candidate; a vote of the same node in the same term for another candidate, at any later
//!   time (whatever crashed or restarted in between), is a violation. A vote repeated for the
//!   same candidate is not. Reports of nodes outside `0..nodes`, reports without a node and
//!   every other event are ignored. A vote for a node that does not exist is still a vote.
//! - **Events at one instant are judged as a set:** two votes of one node in one term for
//!   different candidates at one instant are a violation in either line order, and the
//!   violation names the lower candidate first, not the first line.
//! - **Settings:** the node count. No quiet time (the faulty phase is judged too), no bound.
//! - **When the run ends before it can judge:** nothing is pending; `finish` judges the last
//!   instant.
//! - **Class:** safety (reported at the instant of the second vote, once the instant's events
//!   have all been seen: at the first later event, or at the end).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "one_vote_per_term";

/// A vote: when, for whom, which event.
#[derive(Clone, Copy, Debug)]
struct Ballot {
    t_ns: u64,
    candidate: NodeId,
    event: u64,
}

/// The one-vote-per-term checker.
#[derive(Debug)]
pub struct OneVotePerTerm {
    nodes: usize,
    /// (voter, term) -> its first vote (the lowest candidate among those of its first instant).
    votes: BTreeMap<(NodeId, u64), Ballot>,
    /// The current instant's votes for another candidate than the voter's first in that term.
    second: Vec<((NodeId, u64), Ballot)>,
    now_ns: u64,
}

impl OneVotePerTerm {
    /// A checker over nodes `0..nodes`.
    pub fn new(nodes: usize) -> Self {
        OneVotePerTerm {
            nodes,
            votes: BTreeMap::new(),
            second: Vec::new(),
            now_ns: 0,
        }
    }

    /// Closes the instant: the violation of its lowest (voter, term, candidate) voted twice.
    fn close_instant(&mut self) -> Result<(), Violation> {
        let Some(&(key, other)) = self.second.iter().min_by_key(|(k, b)| (*k, b.candidate)) else {
            return Ok(());
        };
        self.second.clear();
        let first = self.votes[&key];
        debug_assert_ne!(
            first.candidate, other.candidate,
            "a second vote names another"
        );
        let (voter, term) = key;
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation: format!(
                "node {voter} voted twice in term {term}: for node {} at {:.3} ms and for node {} \
                 at {:.3} ms; a node grants one vote per term",
                first.candidate,
                first.t_ns as f64 / 1e6,
                other.candidate,
                other.t_ns as f64 / 1e6
            ),
            t_ns: other.t_ns,
            events: vec![first.event, other.event],
        })
    }
}

impl Checker for OneVotePerTerm {
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
            Some(voter),
            EventKind::Observe {
                obs: Observation::Vote { term, candidate },
            },
        ) = (ev.node.filter(|&n| n < self.nodes), &ev.kind)
        else {
            return Ok(());
        };
        let ballot = Ballot {
            t_ns: ev.t_ns,
            candidate: *candidate,
            event: ev.id,
        };
        let key = (voter, *term);
        match self.votes.get_mut(&key) {
            None => {
                self.votes.insert(key, ballot);
            }
            Some(first) if first.candidate == *candidate => {}
            // Two first votes at one instant: the lower candidate is the first, whichever
            // line comes first.
            Some(first) if first.t_ns == ev.t_ns && *candidate < first.candidate => {
                let other = std::mem::replace(first, ballot);
                self.second.push((key, other));
            }
            Some(_) => self.second.push((key, ballot)),
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
    use sincro_harness::Fault;

    fn vote(id: u64, t_ms: u64, node: NodeId, term: u64, candidate: NodeId) -> Event {
        Event {
            id,
            t_ns: t_ms * 1_000_000,
            node: Some(node),
            local_ns: None,
            kind: EventKind::Observe {
                obs: Observation::Vote { term, candidate },
            },
        }
    }

    fn judge(events: &[Event]) -> Result<(), Violation> {
        let mut c = OneVotePerTerm::new(3);
        for e in events {
            c.on_event(e)?;
        }
        c.finish(events.last().map_or(0, |e| e.t_ns))
    }

    /// The path of `election.terms`' volatile-vote bug: node 1 votes for itself in term 1,
    /// restarts (its vote forgotten) and votes for node 2 in term 1.
    #[test]
    fn a_vote_given_again_after_a_restart_is_caught() {
        let restart = Event {
            id: 1,
            t_ns: 3_000_000,
            node: None,
            local_ns: None,
            kind: EventKind::Fault {
                fault: Fault::Restart { node: 1 },
            },
        };
        let v = judge(&[vote(0, 1, 1, 1, 1), restart, vote(2, 7, 1, 1, 2)]).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.t_ns, 7_000_000);
        assert_eq!(v.events, vec![0, 2]);
        assert!(
            v.explanation
                .starts_with("node 1 voted twice in term 1: for node 1 at 1.000 ms and for node 2"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn one_vote_per_term_passes_and_so_do_repeats_and_other_terms_and_nodes() {
        judge(&[
            vote(0, 1, 0, 1, 0),
            vote(1, 2, 1, 1, 0),
            vote(2, 3, 1, 1, 0),
            vote(3, 4, 1, 2, 2),
            vote(4, 5, 2, 1, 1),
            // a node outside the run is ignored
            vote(5, 6, 7, 1, 0),
            vote(6, 7, 7, 1, 1),
        ])
        .unwrap();
    }

    /// Two votes at one instant: a violation in either line order, with the same text.
    #[test]
    fn two_votes_at_one_instant_are_judged_as_a_set() {
        let a = judge(&[vote(0, 4, 0, 3, 2), vote(1, 4, 0, 3, 1)]).unwrap_err();
        let b = judge(&[vote(0, 4, 0, 3, 1), vote(1, 4, 0, 3, 2)]).unwrap_err();
        assert_eq!(a.explanation, b.explanation);
        assert!(a
            .explanation
            .contains("for node 1 at 4.000 ms and for node 2"));
    }
}
