//! Chang–Roberts ring election (seed 002, "Algoritmo de Chang e Robert"; seed 000 §6.5.1).
//!
//! **Algorithm**: a process `p` that thinks the leader is dead becomes a participant and sends
//! `(p)` to its right. When `p` receives `(q)`: if `q = p`, its message went round the ring
//! and `p` is the leader; if `q > p` it passes `(q)` on; if `q < p` it drops it — and, if it
//! was not yet a participant, sends its own `(p)` instead (the classic rule that lets any set
//! of initiators elect; the seed's text has every process start). Messages have size `O(1)`;
//! only the largest identifier's message goes all the way round. With everyone starting at
//! once, `2n − 1` messages when the identifiers grow along the direction of travel (best
//! case) and `n(n+1)/2` when they decrease (worst case, `O(n²)`, the seed's exercise).
//!
//! As the seed's second exercise asks ("como você o corrigiria para que terminasse?"), the
//! leader then sends `Elected` once round the ring so that every process learns it (`n` more
//! messages).
//!
//! **Fault model**: reliable FIFO links with any delay (no reordering: a smaller `Elect`
//! overtaken by `Elected` would restart a process that already left the election), slow
//! processes; no timers. No crashes, no loss.
//!
//! **Promises**: uniqueness, agreement, termination; the leader has the largest identifier.

use super::rings_common::{right, Cand, Input, RingParams};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, SimRng};

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// A candidate's identifier on its way round.
    Elect {
        /// `(identifier, node)` of the candidate.
        cand: Cand,
    },
    /// The leader, announced once round the ring.
    Elected {
        /// `(identifier, node)` of the leader.
        leader: Cand,
    },
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "classic Chang–Roberts (non-participants replace a smaller id by their own), plus an Elected round";
    }
}

/// One process.
#[derive(Debug)]
pub struct ChangRoberts {
    id: u64,
    participant: bool,
    leader: Option<NodeId>,
}

impl ChangRoberts {
    /// A process with identifier `id`.
    pub fn new(id: u64) -> Self {
        ChangRoberts {
            id,
            participant: false,
            leader: None,
        }
    }
}

impl ChangRoberts {
    /// Becomes a participant (reported as joining an election).
    fn join(&mut self, ctx: &mut Ctx<'_, Self>) {
        if !self.participant {
            self.participant = true;
            ctx.observe(Observation::Leader {
                leader: None,
                term: 0,
            });
        }
    }
}

impl Process for ChangRoberts {
    type Msg = Msg;
    type Timer = ();
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, msg: Msg) {
        let next = right(ctx.id(), ctx.nodes());
        let me = (self.id, ctx.id());
        match msg {
            Msg::Elect { cand } if cand == me => {
                self.leader = Some(ctx.id());
                ctx.observe(Observation::Leader {
                    leader: Some(ctx.id()),
                    term: 0,
                });
                ctx.send(next, Msg::Elected { leader: me });
            }
            Msg::Elect { cand } if cand.0 > self.id => {
                if self.leader.is_none() {
                    self.join(ctx);
                }
                ctx.send(next, Msg::Elect { cand });
            }
            Msg::Elect { .. } => {
                if !self.participant {
                    self.join(ctx);
                    ctx.send(next, Msg::Elect { cand: me });
                }
            }
            Msg::Elected { leader } => {
                if leader.1 != ctx.id() {
                    self.leader = Some(leader.1);
                    self.participant = false;
                    ctx.observe(Observation::Leader {
                        leader: Some(leader.1),
                        term: 0,
                    });
                    ctx.send(next, Msg::Elected { leader });
                }
            }
        }
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_, Self>, _timer: ()) {}

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Start = input;
        if !self.participant && self.leader.is_none() {
            self.join(ctx);
            ctx.send(
                right(ctx.id(), ctx.nodes()),
                Msg::Elect {
                    cand: (self.id, ctx.id()),
                },
            );
        }
    }
}

/// `election.chang-roberts`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChangRobertsSpec;

impl Spec for ChangRobertsSpec {
    type Node = ChangRoberts;
    type Params = RingParams;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.chang-roberts"
    }
    fn summary(&self) -> &'static str {
        "Chang–Roberts: forward only larger ids, the largest comes back to its owner; O(n) to O(n²) messages by ring ordering"
    }
    fn source(&self) -> &'static str {
        "seed 002, Algoritmo de Chang e Robert; seed 000 §6.5.1"
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
    fn node(&self, _: Variant, params: &RingParams, id: NodeId) -> ChangRoberts {
        ChangRoberts::new(params.ids[id])
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::start_workload(rng, nodes, active_ms)
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        // wake the best node (n), its message round (n), the announcement (n)
        super::ring_bound_ms(setup, |n| 4 * n)
    }
    /// Validity with the algorithm's own ranks: the largest id is the best.
    fn checker(
        &self,
        property: &str,
        setup: &Setup<'_, Self>,
        bound_ms: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        Ok(super::ranked_validity(property, setup, bound_ms, || {
            setup.params.ids.clone()
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::election::testing::*;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::EngineKind;

    fn all_start(n: usize, ids: Vec<u64>) -> sincro_harness::Outcome {
        let starts: Vec<_> = (0..n).map(|v| (v, 0)).collect();
        let mut doc = scenario("election.chang-roberts", n, &starts);
        doc["params"] = serde_json::json!({ "ids": ids });
        run(doc)
    }

    #[test]
    fn best_ordering_sends_2n_minus_1_and_worst_n_n_plus_1_over_2() {
        for n in [1usize, 2, 5, 16] {
            // ids grow along the direction of travel: every message dies after one hop
            let best = all_start(n, (0..n as u64).collect());
            assert!(best.verdict.is_pass(), "{}", best.verdict);
            assert_eq!(sent(&best, "Elect {"), 2 * n - 1, "best n={n}");
            assert_eq!(sent(&best, "Elected"), n);
            assert_eq!(final_leaders(&best, n), vec![Some(n - 1); n]);
            // ids shrink along it: the message of position i travels n - i hops
            let worst = all_start(n, (0..n as u64).rev().collect());
            assert!(worst.verdict.is_pass(), "{}", worst.verdict);
            assert_eq!(sent(&worst, "Elect {"), n * (n + 1) / 2, "worst n={n}");
            assert_eq!(final_leaders(&worst, n), vec![Some(0); n]);
        }
    }

    #[test]
    fn a_single_low_initiator_still_elects_the_largest() {
        let out = run(scenario("election.chang-roberts", 7, &[(0, 0)]));
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(self_declared(&out), vec![6]);
        assert_eq!(final_leaders(&out, 7), vec![Some(6); 7]);
    }

    #[test]
    fn replays_exactly_and_passes_in_model() {
        assert_replays_exactly("election.chang-roberts", &["correct"], 5);
        assert_in_model_passes("election.chang-roberts", "correct", 300, EngineKind::Native);
    }
}
