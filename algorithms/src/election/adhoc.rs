//! Election in a wireless ad-hoc network (Vasudevan et al. 2004; seed 000 §6.5.2, Fig. 6.21;
//! seed 001 "Eleição em rede ad hoc sem fio").
//!
//! **Algorithm**: any node, the *source*, starts an election by sending ELECTION to its
//! immediate neighbours (only the scenario's topology links: nodes in radio range). A node
//! that receives ELECTION for the first time takes the sender as its parent and sends
//! ELECTION to all its neighbours but the parent; it acknowledges its parent only when all
//! those neighbours have acknowledged it — an echo over the spanning tree the ELECTION
//! messages build. A node that already has a parent in this election acknowledges at once
//! (with no candidate). Each acknowledgement carries the best `(capacity, id)` seen in the
//! subtree; the source thus learns the best node of the network and broadcasts it (flooded:
//! each node passes the first announcement of an election on to its neighbours).
//!
//! **Concurrent elections**: each election is tagged with a unique election id; nodes take
//! part only in the election with the highest id and drop out of any other. The id is the
//! pair `(sequence, source id)`: a node starting an election takes one more than the highest
//! sequence it has seen, so two concurrent elections are resolved by the source id (the
//! highest wins), and an election started later supersedes one that already finished.
//!
//! **Parameters**: `capacities`, one per node (default: all 1, so the highest id wins).
//!
//! **Fault model**: reliable links, any delay, slow processes; no timers. The text's
//! "small adjustments" for partitions and nodes that join or leave are not modelled: no
//! crashes, no loss, no partitions.
//!
//! **Promises**: uniqueness, agreement, termination; the leader has the best
//! `(capacity, id)`.

use super::rings_common::Input;
use crate::spec::{complete_default, Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, Scenario, SimRng};
use std::collections::BTreeSet;

/// An election id: `(sequence, source)`, compared in that order.
pub type ElectionId = (u64, NodeId);

/// `(capacity, node)`, compared in that order: the best is the largest.
pub type Candidate = (u64, NodeId);

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// ELECTION of election `eid`.
    Election {
        /// Election id.
        eid: ElectionId,
    },
    /// Acknowledgement of an ELECTION, with the best node of the subtree (none when the
    /// sender already had a parent).
    Ack {
        /// Election id.
        eid: ElectionId,
        /// Best `(capacity, node)` below the sender.
        best: Option<Candidate>,
    },
    /// The winner, broadcast by the source.
    Leader {
        /// Election id.
        eid: ElectionId,
        /// Winner `(capacity, node)`.
        best: Candidate,
    },
}

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Capacity of each node (battery, resources); default 1 for every node.
    #[serde(default)]
    pub capacities: Vec<u64>,
}

impl Params {
    /// The capacities of `n` nodes, checked.
    pub fn resolve(&self, n: usize) -> Result<Vec<u64>, String> {
        if self.capacities.is_empty() {
            Ok(vec![1; n])
        } else if self.capacities.len() != n {
            Err(format!(
                "params.capacities has {} entries for {n} nodes",
                self.capacities.len()
            ))
        } else {
            Ok(self.capacities.clone())
        }
    }
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the text's protocol over neighbours only; params.capacities";
    }
}

/// One node.
#[derive(Debug)]
pub struct AdHoc {
    capacity: u64,
    eid: Option<ElectionId>,
    parent: Option<NodeId>,
    pending: BTreeSet<NodeId>,
    best: Candidate,
    announced: Option<ElectionId>,
    leader: Option<NodeId>,
}

impl AdHoc {
    /// A node of capacity `capacity`.
    pub fn new(capacity: u64) -> Self {
        AdHoc {
            capacity,
            eid: None,
            parent: None,
            pending: BTreeSet::new(),
            best: (capacity, 0),
            announced: None,
            leader: None,
        }
    }

    /// The node's parent in the current election's tree.
    pub fn parent(&self) -> Option<NodeId> {
        self.parent
    }

    fn join(&mut self, ctx: &mut Ctx<'_, Self>, eid: ElectionId, parent: Option<NodeId>) {
        self.eid = Some(eid);
        self.parent = parent;
        ctx.observe(Observation::Leader {
            leader: None,
            term: 0,
        });
        self.best = (self.capacity, ctx.id());
        self.pending = ctx
            .neighbours()
            .iter()
            .copied()
            .filter(|&q| Some(q) != parent)
            .collect();
        for &q in &self.pending {
            ctx.send(q, Msg::Election { eid });
        }
        self.maybe_report(ctx);
    }

    fn maybe_report(&mut self, ctx: &mut Ctx<'_, Self>) {
        if !self.pending.is_empty() {
            return;
        }
        let eid = self.eid.expect("in an election");
        match self.parent {
            Some(p) => ctx.send(
                p,
                Msg::Ack {
                    eid,
                    best: Some(self.best),
                },
            ),
            None => self.decide(ctx, eid, self.best, None),
        }
    }

    fn decide(
        &mut self,
        ctx: &mut Ctx<'_, Self>,
        eid: ElectionId,
        best: Candidate,
        from: Option<NodeId>,
    ) {
        self.announced = Some(eid);
        self.leader = Some(best.1);
        ctx.observe(Observation::Leader {
            leader: Some(best.1),
            term: 0,
        });
        let to: Vec<NodeId> = ctx
            .neighbours()
            .iter()
            .copied()
            .filter(|&q| Some(q) != from)
            .collect();
        for q in to {
            ctx.send(q, Msg::Leader { eid, best });
        }
    }
}

impl Process for AdHoc {
    type Msg = Msg;
    type Timer = ();
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Election { eid } => match self.eid {
                Some(cur) if eid < cur => {} // a lower election: not taking part
                Some(cur) if eid == cur => ctx.send(from, Msg::Ack { eid, best: None }),
                _ => self.join(ctx, eid, Some(from)),
            },
            Msg::Ack { eid, best } => {
                if self.eid == Some(eid) && self.pending.remove(&from) {
                    if let Some(b) = best {
                        self.best = self.best.max(b);
                    }
                    self.maybe_report(ctx);
                }
            }
            Msg::Leader { eid, best } => {
                let fresh = self.announced.is_none_or(|a| eid > a);
                let current = self.eid.is_none_or(|cur| eid >= cur);
                if fresh && current {
                    self.decide(ctx, eid, best, Some(from));
                }
            }
        }
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_, Self>, _timer: ()) {}

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Start = input;
        let seq = self.eid.map_or(0, |(s, _)| s + 1);
        self.join(ctx, (seq, ctx.id()), None);
    }
}

/// `election.adhoc`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct AdHocSpec;

impl Spec for AdHocSpec {
    type Node = AdHoc;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.adhoc"
    }
    fn summary(&self) -> &'static str {
        "wireless ad-hoc election (Vasudevan et al.): echo over the spanning tree of ELECTION messages, acks carry the best (capacity, id), highest election id wins"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.5.2, Fig. 6.21; seed 001"
    }
    fn properties(&self) -> Vec<&'static str> {
        super::RING_PROPERTIES.to_vec()
    }
    fn fault_model(&self) -> FaultModel {
        super::ring_model("reliable FIFO links with any delay on the scenario's (connected) topology, slow processes; no timers; the text's adjustments for partitions, joins and departures are not modelled")
    }
    /// The topology's links only: it sends to its neighbours, and [`Spec::prepare`] checks
    /// that it is connected.
    fn links(&self) -> crate::spec::Links {
        crate::spec::Links::Topology
    }
    /// At least one node, on a connected topology; the capacities resolved.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_ring_topology(self, setup, true, false)?;
        setup.params.capacities = setup.params.resolve(setup.nodes())?;
        Ok(())
    }
    fn node(&self, _: Variant, params: &Params, id: NodeId) -> AdHoc {
        AdHoc::new(params.capacities[id])
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::start_workload(rng, nodes, active_ms)
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        // tree (n), echo (n), broadcast (n), twice (a later election supersedes)
        super::ring_bound_ms(setup, |n| 6 * n)
    }
    /// Validity with the algorithm's own ranks: the highest capacity is the best.
    fn checker(
        &self,
        property: &str,
        setup: &Setup<'_, Self>,
        bound_ms: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        Ok(super::ranked_validity(property, setup, bound_ms, || {
            setup.params.capacities.clone()
        }))
    }
    /// A generated scenario on the complete topology gets a random connected graph and
    /// random capacities.
    fn complete(&self, mut draft: Draft, opts: &GenOptions) -> Scenario {
        super::draw_graph(&mut draft, true);
        complete_default(self, draft, opts)
    }
}

#[cfg(test)]
mod tests {
    use crate::election::testing::*;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::EngineKind;

    /// Fig. 6.21 (nodes a..j = 0..9), as in `corpus/election/adhoc-fig-6-21.json`.
    pub(crate) fn fig_6_21(starts: &[(usize, u64)]) -> serde_json::Value {
        let mut doc = scenario("election.adhoc", 10, starts);
        doc["params"] = serde_json::json!({"capacities": [4, 2, 5, 1, 3, 4, 6, 8, 2, 4]});
        doc["network"]["topology"] = serde_json::json!({"graph": {"edges": [
            [0, 1], [0, 9], [1, 2], [1, 6], [2, 3], [3, 9], [4, 6], [6, 7], [4, 5], [7, 8], [5, 8]
        ]}});
        doc
    }

    #[test]
    fn fig_6_21_h_with_8_wins() {
        let out = run(fig_6_21(&[(0, 0)]));
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(final_leaders(&out, 10), vec![Some(7); 10]);
        // g (6) reports [h, 8] to its parent b (1)
        let trace = out.trace.as_ref().unwrap();
        assert!(trace.events().iter().any(|e| e.node == Some(6)
            && matches!(&e.kind, sincro_harness::EventKind::Send { to: 1, msg, .. }
                if msg.contains("Ack") && msg.contains("Some((8, 7))"))));
        assert_eq!(self_declared(&out), vec![7]);
    }

    #[test]
    fn concurrent_elections_the_highest_election_id_wins() {
        let out = run(fig_6_21(&[(0, 0), (8, 0), (3, 5)]));
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(final_leaders(&out, 10), vec![Some(7); 10]);
        // only the election of source i (8) completes: the others never get all their acks
        assert_eq!(sent(&out, "Leader { eid: (0, 8)"), sent(&out, "Leader"));
    }

    #[test]
    fn replays_exactly_and_passes_in_model() {
        assert_replays_exactly("election.adhoc", &["correct"], 5);
        assert_in_model_passes("election.adhoc", "correct", 300, EngineKind::Native);
    }
}
