//! "Anel 1": election on an anonymous ring (seed 002, "Algoritmo do Anel 1").
//!
//! **Algorithm**: every process starts as *Seguidor* (follower). One that thinks the leader is
//! dead becomes *Candidato* and sends `VoteEmMim` to its right. A follower passes `VoteEmMim`
//! and `HabemosLider` on to the right; a candidate that receives `VoteEmMim` declares itself
//! *Eleito* and sends `HabemosLider` to its right; an elected process that receives
//! `HabemosLider` becomes *Empossado*. The processes have no identifiers: nothing in the
//! algorithm reads one (the node id is used only to name, in the observation, who declared
//! itself elected, and to find the ring's right-hand neighbour).
//!
//! **It is wrong on purpose**: seed 002 shows that when two processes become candidates at
//! the same time, each receives the other's `VoteEmMim` while still a candidate, and both
//! declare themselves elected — nothing distinguishes them, so no algorithm on an anonymous
//! ring can break the symmetry. This is the canary of `leader_uniqueness`: with two
//! simultaneous candidates on reliable FIFO links the violation happens in every run.
//!
//! **Fault model**: reliable FIFO links, any delay; no timers, so clocks do not matter.
//! Registered as `election.anel1`, variant `anonymous` (buggy: fuzzing must catch it).

use super::rings_common::{right, Input};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng};

/// Messages (the seed's names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// "Vote for me", passed around by followers.
    VoteEmMim,
    /// "We have a leader", passed around by followers.
    HabemosLider,
}

/// The state `C` of a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Seguidor.
    Follower,
    /// Candidato.
    Candidate,
    /// Eleito.
    Elected,
    /// Empossado.
    Inaugurated,
}

crate::variants! {
    /// Which behaviour: only the seed's own.
    pub enum Variant {
        Anonymous = "anonymous" (buggy), "the seed's algorithm: nothing tells two simultaneous candidates apart, so both declare themselves elected (the canary of leader_uniqueness)";
    }
}

/// One process of the anonymous ring.
#[derive(Debug)]
pub struct Anel1 {
    state: State,
}

impl Anel1 {
    /// A follower.
    pub fn new() -> Self {
        Anel1 {
            state: State::Follower,
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }
}

impl Default for Anel1 {
    fn default() -> Self {
        Self::new()
    }
}

impl Process for Anel1 {
    type Msg = Msg;
    type Timer = ();
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, msg: Msg) {
        let next = right(ctx.id(), ctx.nodes());
        match (msg, self.state) {
            (Msg::VoteEmMim, State::Follower) => ctx.send(next, Msg::VoteEmMim),
            (Msg::VoteEmMim, State::Candidate) => {
                self.state = State::Elected;
                // Only the observation names the node; the algorithm never reads an id.
                ctx.observe(Observation::Leader {
                    leader: Some(ctx.id()),
                    term: 0,
                });
                ctx.send(next, Msg::HabemosLider);
            }
            (Msg::HabemosLider, State::Follower) => ctx.send(next, Msg::HabemosLider),
            (Msg::HabemosLider, State::Elected) => self.state = State::Inaugurated,
            // The seed says nothing about the other cases: the message stops here.
            (Msg::VoteEmMim | Msg::HabemosLider, _) => {}
        }
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_, Self>, _timer: ()) {}

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Start = input;
        if self.state == State::Follower {
            self.state = State::Candidate;
            ctx.observe(Observation::Leader {
                leader: None,
                term: 0,
            });
            ctx.send(right(ctx.id(), ctx.nodes()), Msg::VoteEmMim);
        }
    }
}

/// `election.anel1`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct Anel1Spec;

impl Spec for Anel1Spec {
    type Node = Anel1;
    /// No parameters: `params` is left out or `{}`.
    type Params = crate::spec::NoParams;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.anel1"
    }
    fn summary(&self) -> &'static str {
        "\"Anel 1\": identical processes on an anonymous ring, VoteEmMim / HabemosLider; two simultaneous candidates are both elected"
    }
    fn source(&self) -> &'static str {
        "seed 002 \"Eleição de Líderes\", Algoritmo do Anel 1"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["leader_uniqueness"]
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![FaultClass::ClockDrift],
            summary: "reliable FIFO links with any delay; no timers",
            ..FaultModel::default()
        }
    }
    /// The topology's links only: it sends to its neighbours, and [`Spec::prepare`] checks
    /// that it carries the logical ring.
    fn links(&self) -> crate::spec::Links {
        crate::spec::Links::Topology
    }
    /// At least one node, on a topology that carries the logical ring.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_ring_topology(self, setup, false, false)
    }
    fn node(&self, _: Variant, _: &crate::spec::NoParams, _id: NodeId) -> Anel1 {
        Anel1::new()
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        // Two (or more) candidates at the same moment: the seed's second scenario.
        let at = rng.range_u64(0, active_ms);
        let a = rng.index(nodes);
        let b = (a + 1 + rng.index(nodes.max(2) - 1)) % nodes;
        let mut items = vec![Timed {
            at_ms: at,
            node: a,
            input: Input::Start,
        }];
        if b != a {
            items.push(Timed {
                at_ms: at,
                node: b,
                input: Input::Start,
            });
        }
        items
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        // wake the best node (n), its message round (n), the announcement (n)
        super::ring_bound_ms(setup, |n| 4 * n)
    }
}

#[cfg(test)]
mod tests {
    use crate::election::testing::*;
    use crate::registry::find;
    use crate::test_support::assert_replays_exactly;
    use sincro_harness::engine::RunOptions;
    use sincro_harness::gen::GenOptions;
    use sincro_harness::{EngineKind, Verdict};

    #[test]
    fn one_candidate_is_elected_alone() {
        let mut doc = scenario("election.anel1", 5, &[(2, 0)]);
        doc["variant"] = "anonymous".into();
        let out = run(doc);
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(self_declared(&out), vec![2]);
        // VoteEmMim round the ring (5) and HabemosLider round the ring (5)
        assert_eq!(out.stats.sent, 10);
    }

    #[test]
    fn two_candidates_at_once_both_declare_themselves_elected() {
        let mut doc = scenario("election.anel1", 2, &[(0, 0), (1, 0)]);
        doc["variant"] = "anonymous".into();
        let out = run(doc);
        let Verdict::Violation(v) = &out.verdict else {
            panic!("expected split brain, got {}", out.verdict)
        };
        assert_eq!(v.property, "leader_uniqueness");
        let mut both = self_declared(&out);
        both.sort_unstable();
        assert_eq!(both, vec![0, 1]);
    }

    /// The canary: every generated run starts two candidates together, and every one of them
    /// is caught by `leader_uniqueness` — on both engines.
    #[test]
    fn the_canary_is_caught_in_every_run_with_two_simultaneous_candidates() {
        let alg = find("election.anel1").unwrap();
        for (engine, seeds) in [(EngineKind::Native, 500), (EngineKind::Turmoil, 30)] {
            let opts = GenOptions {
                engine,
                ..GenOptions::default()
            };
            for seed in 0..seeds {
                let sc = alg.generate("anonymous", seed, &opts);
                let starts: Vec<_> = sc.workload.iter().map(|w| (w.at_ms, w.node)).collect();
                assert_eq!(starts.len(), 2, "seed {seed}");
                assert!(starts[0].0 == starts[1].0 && starts[0].1 != starts[1].1);
                let out = alg.run(&sc, RunOptions::new(false)).unwrap();
                assert!(
                    matches!(&out.verdict, Verdict::Violation(v) if v.property == "leader_uniqueness"),
                    "{engine:?} seed {seed}: {}",
                    out.verdict
                );
            }
        }
    }

    /// Stop 74's probe: any `params` object ran (`serde_json::Value` read every key).
    #[test]
    fn params_are_refused_and_none_or_empty_taken() {
        let mut doc = scenario("election.anel1", 3, &[(0, 0)]);
        doc["variant"] = "anonymous".into();
        for (params, ok) in [
            (serde_json::json!(null), true),
            (serde_json::json!({}), true),
            (serde_json::json!({"zzz": 1}), false),
        ] {
            doc["params"] = params.clone();
            let sc: sincro_harness::Scenario = serde_json::from_value(doc.clone()).unwrap();
            let got = find("election.anel1")
                .unwrap()
                .run(&sc, RunOptions::default());
            match (got, ok) {
                (Ok(_), true) => {}
                (Err(e), false) => assert!(e.0.contains("unknown field `zzz`"), "{e}"),
                (got, _) => panic!("{params}: {:?}", got.map(|o| o.verdict)),
            }
        }
    }

    #[test]
    fn replays_exactly() {
        assert_replays_exactly("election.anel1", &["anonymous"], 5);
    }
}
