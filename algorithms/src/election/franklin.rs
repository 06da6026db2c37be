//! Franklin's ring election (seed 002, "Algoritmo de Franklin").
//!
//! **Algorithm**, on a bidirectional ring, in rounds: every process starts active and, in each
//! round, sends its identifier to the right and to the left; an active process waits for the
//! identifiers `e` and `d` of the nearest active processes on its left and right in the same
//! round. If `max(e, d) < p` it stays active and starts the next round; if `max(e, d) > p` it
//! becomes inactive; if `max(e, d) = p` its own messages came back round the ring: it is the
//! only active process, and the leader. Inactive processes relay every message to the other
//! side. In each round at least one of every two neighbouring actives is deactivated, so at
//! most `⌈log2 n⌉ + 1` rounds of `2n` messages: `O(n log n)`.
//!
//! Messages carry their round and their direction of travel (so a message from the left is
//! told apart from one from the right even on a ring of two). A process woken by a message
//! before its own start joins round 0 (no message of a later round can reach it first, since
//! its neighbours need its round-0 identifier to leave round 0). The seed's "envia −p" on
//! deactivation is left out: no rule reads it. The leader announces itself once round the
//! ring (`Elected`) so that every process learns it.
//!
//! **Fault model**: reliable FIFO links (a round's messages must not overtake the previous
//! round's), any delay, slow processes; no timers. No crashes, no loss, no reordering.
//!
//! **Promises**: uniqueness, agreement, termination; the leader has the largest identifier.

use super::rings_common::{left, right, Cand, Input, RingParams};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, SimRng};
use std::collections::VecDeque;

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// An active process's identifier in a round.
    Probe {
        /// The round (0, 1, ...).
        round: u32,
        /// `(identifier, node)` of the active process.
        cand: Cand,
        /// True when travelling to the right (so it arrives from the left).
        rightward: bool,
    },
    /// The leader, announced once round the ring.
    Elected {
        /// `(identifier, node)` of the leader.
        leader: Cand,
        /// Rounds the election took.
        rounds: u32,
    },
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the seed's algorithm, plus an Elected round";
    }
}

/// One process.
#[derive(Debug)]
pub struct Franklin {
    id: u64,
    started: bool,
    active: bool,
    round: u32,
    /// Probes of the current or later rounds from the left, in arrival order.
    from_left: VecDeque<(u32, Cand)>,
    /// Probes of the current or later rounds from the right.
    from_right: VecDeque<(u32, Cand)>,
    leader: Option<NodeId>,
}

impl Franklin {
    /// A process with identifier `id`.
    pub fn new(id: u64) -> Self {
        Franklin {
            id,
            started: false,
            active: false,
            round: 0,
            from_left: VecDeque::new(),
            from_right: VecDeque::new(),
            leader: None,
        }
    }

    fn me(&self, ctx: &Ctx<'_, Self>) -> Cand {
        (self.id, ctx.id())
    }

    fn start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if !self.started {
            self.started = true;
            ctx.observe(Observation::Leader {
                leader: None,
                term: 0,
            });
            self.active = true;
            self.round = 0;
            self.send_both(ctx);
        }
    }

    fn send_both(&mut self, ctx: &mut Ctx<'_, Self>) {
        let (n, cand, round) = (ctx.nodes(), self.me(ctx), self.round);
        let (r, l) = (right(ctx.id(), n), left(ctx.id(), n));
        ctx.send(
            r,
            Msg::Probe {
                round,
                cand,
                rightward: true,
            },
        );
        ctx.send(
            l,
            Msg::Probe {
                round,
                cand,
                rightward: false,
            },
        );
    }

    fn relay(ctx: &mut Ctx<'_, Self>, round: u32, cand: Cand, rightward: bool) {
        let n = ctx.nodes();
        let to = if rightward {
            right(ctx.id(), n)
        } else {
            left(ctx.id(), n)
        };
        ctx.send(
            to,
            Msg::Probe {
                round,
                cand,
                rightward,
            },
        );
    }

    /// Plays the rounds whose two probes have arrived.
    fn play(&mut self, ctx: &mut Ctx<'_, Self>) {
        while self.active {
            // On FIFO links the fronts are this round's probes (one per side per round).
            let (Some(&(_, e)), Some(&(_, d))) = (self.from_left.front(), self.from_right.front())
            else {
                return;
            };
            self.from_left.pop_front();
            self.from_right.pop_front();
            let best = e.max(d);
            let me = self.me(ctx);
            if best < me {
                self.round += 1;
                self.send_both(ctx);
            } else if best > me {
                self.active = false;
                // Later rounds that arrived early belong to the other side now.
                for (round, cand) in std::mem::take(&mut self.from_left) {
                    Self::relay(ctx, round, cand, true);
                }
                for (round, cand) in std::mem::take(&mut self.from_right) {
                    Self::relay(ctx, round, cand, false);
                }
            } else {
                self.active = false;
                self.leader = Some(ctx.id());
                ctx.observe(Observation::Leader {
                    leader: Some(ctx.id()),
                    term: 0,
                });
                let rounds = self.round + 1;
                ctx.observe(Observation::Note {
                    text: format!("franklin rounds={rounds}"),
                });
                ctx.send(
                    right(ctx.id(), ctx.nodes()),
                    Msg::Elected { leader: me, rounds },
                );
            }
        }
    }
}

impl Process for Franklin {
    type Msg = Msg;
    type Timer = ();
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, msg: Msg) {
        match msg {
            Msg::Probe {
                round,
                cand,
                rightward,
            } => {
                self.start(ctx);
                if self.active {
                    if rightward {
                        self.from_left.push_back((round, cand));
                    } else {
                        self.from_right.push_back((round, cand));
                    }
                    self.play(ctx);
                } else {
                    Self::relay(ctx, round, cand, rightward);
                }
            }
            Msg::Elected { leader, rounds } => {
                if leader.1 != ctx.id() {
                    self.leader = Some(leader.1);
                    ctx.observe(Observation::Leader {
                        leader: Some(leader.1),
                        term: 0,
                    });
                    ctx.send(
                        right(ctx.id(), ctx.nodes()),
                        Msg::Elected { leader, rounds },
                    );
                }
            }
        }
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_, Self>, _timer: ()) {}

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Start = input;
        self.start(ctx);
    }
}

/// `election.franklin`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct FranklinSpec;

impl Spec for FranklinSpec {
    type Node = Franklin;
    type Params = RingParams;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.franklin"
    }
    fn summary(&self) -> &'static str {
        "Franklin: rounds on a bidirectional ring, compare with the nearest active left and right, inactive processes relay; O(n log n)"
    }
    fn source(&self) -> &'static str {
        "seed 002, Algoritmo de Franklin"
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
        super::check_ring_topology(self, setup, false, true)?;
        setup.params.ids = setup.params.resolve(setup.nodes())?;
        Ok(())
    }
    fn node(&self, _: Variant, params: &RingParams, id: NodeId) -> Franklin {
        Franklin::new(params.ids[id])
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::start_workload(rng, nodes, active_ms)
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        // wake-up (n), at most log2 n + 1 rounds of at most n hops, the announcement (n)
        super::ring_bound_ms(setup, |n| {
            let log2 = u64::from(n.next_power_of_two().trailing_zeros());
            (log2 + 4) * n
        })
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
    use sincro_harness::{EngineKind, EventKind, Observation, SimRng};

    fn rounds(out: &sincro_harness::Outcome) -> u32 {
        out.trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Observe {
                    obs: Observation::Note { text },
                } => text.strip_prefix("franklin rounds=")?.parse().ok(),
                _ => None,
            })
            .expect("the leader notes its rounds")
    }

    #[test]
    fn the_largest_wins_within_log2_n_plus_1_rounds() {
        let mut rng = SimRng::new(5);
        for n in [1usize, 2, 3, 8, 13, 64] {
            for _ in 0..5 {
                let mut ids: Vec<u64> = (0..n as u64).collect();
                for i in (1..n).rev() {
                    ids.swap(i, rng.index(i + 1));
                }
                let winner = ids.iter().position(|&i| i == n as u64 - 1).unwrap();
                let starts: Vec<_> = (0..n).map(|v| (v, 0)).collect();
                let mut doc = scenario("election.franklin", n, &starts);
                doc["params"] = serde_json::json!({ "ids": ids });
                let out = run(doc);
                assert!(out.verdict.is_pass(), "n={n}: {}", out.verdict);
                assert_eq!(final_leaders(&out, n), vec![Some(winner); n]);
                let r = rounds(&out);
                let bound = (n as f64).log2().ceil() as u32 + 1;
                assert!(r <= bound, "n={n}: {r} rounds > {bound}");
                // each round: 2 messages per active process, each travelling to the next active
                assert!(sent(&out, "Probe") <= 2 * n * r as usize, "n={n}");
            }
        }
    }

    #[test]
    fn a_single_initiator_wakes_the_ring() {
        let out = run(scenario("election.franklin", 6, &[(3, 0)]));
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(final_leaders(&out, 6), vec![Some(5); 6]);
    }

    #[test]
    fn replays_exactly_and_passes_in_model() {
        assert_replays_exactly("election.franklin", &["correct"], 5);
        assert_in_model_passes("election.franklin", "correct", 300, EngineKind::Native);
    }
}
