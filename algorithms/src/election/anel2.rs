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
//! **Fault model**: the ring family's: reliable FIFO links with any delay, slow processes; no
//! timers. No crashes, no loss.
//!
//! **Promises**: uniqueness, agreement, termination (after any start); the leader is the node
//! with the smallest identifier.

use super::rings_common::{right, Cand, Input, RingParams};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, SimRng};

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

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the seed's algorithm, plus an Elected round so everyone learns the leader";
    }
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

/// `election.anel2`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct Anel2Spec;

impl Spec for Anel2Spec {
    type Node = Anel2;
    type Params = RingParams;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.anel2"
    }
    fn summary(&self) -> &'static str {
        "\"Anel 2\": the initiator's list collects every id round the ring; the smallest wins (up to n² messages of up to n ids)"
    }
    fn source(&self) -> &'static str {
        "seed 002, Algoritmo do Anel 2"
    }
    fn properties(&self) -> Vec<&'static str> {
        super::RING_PROPERTIES.to_vec()
    }
    fn fault_model(&self) -> FaultModel {
        super::ring_model(super::RING_MODEL)
    }
    /// The topology's links only: it sends to its neighbours, and [`Spec::prepare`] checks
    /// that it carries the logical ring.
    fn links(&self) -> crate::spec::Links {
        crate::spec::Links::Topology
    }
    /// At least one node, on a topology that carries the logical ring; the ids resolved.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_ring_topology(self, setup, false, false)?;
        setup.params.ids = setup.params.resolve(setup.nodes())?;
        Ok(())
    }
    fn node(&self, _: Variant, params: &RingParams, id: NodeId) -> Anel2 {
        Anel2::new(params.ids[id])
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::start_workload(rng, nodes, active_ms)
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        // wake the best node (n), its message round (n), the announcement (n)
        super::ring_bound_ms(setup, |n| 4 * n)
    }
    /// Validity with the algorithm's own ranks: the smallest id is the best.
    fn checker(
        &self,
        property: &str,
        setup: &Setup<'_, Self>,
        bound_ms: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        Ok(super::ranked_validity(property, setup, bound_ms, || {
            let ids = &setup.params.ids;
            let top = ids.iter().copied().max().unwrap_or(0);
            ids.iter().map(|&i| top - i).collect()
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::election::testing::*;
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
