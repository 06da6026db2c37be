//! "Anel 2": ring election collecting the identifiers (seed 002, "Algoritmo do Anel 2").
//!
//! **Algorithm**: a process that thinks the leader is dead sends the list `[p]` to its right.
//! A process `p` that receives a list `l` without `p` in it sends `[p:l]` to its right; one
//! that finds itself in `l` (the list went all the way round) chooses the smallest identifier
//! in `l` as the leader. Up to `n²` messages when everyone starts at once, and messages grow to
//! `n` identifiers. As the seed's exercise asks for Chang–Roberts, the decision is then made
//! known: the deciding process sends `Elected` round the ring, and it stops at the first
//! process that already knows the leader (another initiator that decided too).
//!
//! A process that has already started (or knows a leader) does not start again.
//!
//! **Fault model**: reliable links, any delay, slow processes; no timers. No crashes, no loss.
//!
//! **Promises**: uniqueness, agreement, termination (after any start); the leader is the node
//! with the smallest identifier.

use super::rings_common::{right, Cand, Input};
use serde::{Deserialize, Serialize};
use sincro_harness::{Ctx, NodeId, Observation, Process};

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// The identifiers collected so far, the initiator's first.
    Collect {
        /// `(identifier, node)` pairs.
        ids: Vec<Cand>,
    },
    /// The leader chosen by an initiator.
    Elected {
        /// The leader's node.
        leader: NodeId,
    },
}

/// One process.
#[derive(Debug)]
pub struct Anel2 {
    id: u64,
    started: bool,
    leader: Option<NodeId>,
}

impl Anel2 {
    /// A process with identifier `id`.
    pub fn new(id: u64) -> Self {
        Anel2 {
            id,
            started: false,
            leader: None,
        }
    }

    fn learn(&mut self, ctx: &mut Ctx<'_, Self>, leader: NodeId) {
        self.leader = Some(leader);
        ctx.observe(Observation::Leader {
            leader: Some(leader),
            term: 0,
        });
    }
}

impl Process for Anel2 {
    type Msg = Msg;
    type Timer = ();
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, msg: Msg) {
        let next = right(ctx.id(), ctx.nodes());
        match msg {
            Msg::Collect { mut ids } => {
                if ids.iter().any(|&(id, _)| id == self.id) {
                    let &(_, leader) = ids.iter().min().expect("the list holds p");
                    if self.leader != Some(leader) {
                        self.learn(ctx, leader);
                        ctx.send(next, Msg::Elected { leader });
                    }
                } else {
                    ids.push((self.id, ctx.id()));
                    ctx.send(next, Msg::Collect { ids });
                }
            }
            Msg::Elected { leader } => {
                if self.leader.is_none() {
                    self.learn(ctx, leader);
                    ctx.send(next, Msg::Elected { leader });
                }
            }
        }
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_, Self>, _timer: ()) {}

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Start = input;
        if !self.started && self.leader.is_none() {
            self.started = true;
            ctx.observe(Observation::Leader {
                leader: None,
                term: 0,
            });
            let ids = vec![(self.id, ctx.id())];
            ctx.send(right(ctx.id(), ctx.nodes()), Msg::Collect { ids });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::election::registered_rings::testing::*;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::EngineKind;

    #[test]
    fn the_smallest_id_wins_and_everyone_learns_it() {
        let mut doc = scenario("election.anel2", 5, &[(1, 0)]);
        doc["params"] = serde_json::json!({"ids": [3, 1, 4, 0, 2]});
        let out = run(doc);
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(final_leaders(&out, 5), vec![Some(3); 5]);
        // one list round the ring, one Elected round (stopping at the initiator)
        assert_eq!(sent(&out, "Collect"), 5);
        assert_eq!(sent(&out, "Elected"), 5);
    }

    #[test]
    fn everyone_starting_sends_n_squared_lists() {
        let n = 6;
        let starts: Vec<_> = (0..n).map(|v| (v, 0)).collect();
        let out = run(scenario("election.anel2", n, &starts));
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(sent(&out, "Collect"), n * n);
        assert_eq!(final_leaders(&out, n), vec![Some(0); n]);
    }

    #[test]
    fn replays_exactly_and_passes_in_model() {
        assert_replays_exactly("election.anel2", &["correct"], 5);
        assert_in_model_passes("election.anel2", "correct", 300, EngineKind::Native);
    }
}
