//! YoYo election on any connected graph (seed 002, "Algoritmo do YoYo").
//!
//! **Phase 1** (orientation): every process sends its identifier to its neighbours and marks
//! each edge as pointing from the smaller to the larger identifier. Processes with only
//! outgoing edges are *sources* (local minima), with only incoming ones *sinks*, the others
//! *internal*.
//!
//! **Phase 2**, in iterations ("yo-yo"):
//! - *YO-*: each source sends its identifier on its outgoing edges; an internal process that has
//!   received values on all its incoming edges sends the smallest, `m`, on all its outgoing
//!   ones; a sink waits for values on all its incoming edges.
//! - *-YO*: a sink answers YES (`S`) to the in-neighbours that sent the smallest value `m` and
//!   NO (`N`) to the others; an internal process, once it has the answers of all its
//!   out-neighbours, answers YES to those that sent `m` and NO to the others if every answer
//!   was YES, and NO to all if any was NO (the standard rule; the seed's wording "se recebeu
//!   algum S" would let a source survive that a smaller identifier should eliminate). A NO
//!   reverses the edge it travels on. A source that gets only YES stays a source.
//! - *Pruning*: a process that receives the same value from several in-neighbours asks all
//!   but one of them to cut their edge (the answer carries `prune`), and a sink left with a
//!   single in-neighbour cuts that edge too and leaves. Pruning is what lets the last source
//!   know it won: it ends an iteration with no edge left.
//!
//! The winner — the smallest identifier — then floods `Leader` over the physical neighbours.
//! Messages carry their iteration; one from a later iteration (a reversed edge can deliver the
//! next iteration's value before this iteration ends) waits until the process gets there.
//!
//! **Topology**: the scenario's network (`graph` edges, a ring, or complete); it must be
//! connected. Identifiers are the node ids. `params.down_links` lists links the processes
//! know to be down from the start (a link layer that reports a dead link): phase 1 and the
//! flood run without them.
//!
//! **Fault model**: reliable links, any delay, slow processes; no timers. No crashes, no loss,
//! no partitions. A cut link breaks it in one of two ways (seed 002 asks "suppose the link
//! between 2 and 10 stops working"; both runs are in `corpus/election/`):
//! - *noticed* (`down_links` plus the partition): each side runs its own election on its own
//!   component and elects its own smallest id, the seed's two leaders (split brain,
//!   `leader_uniqueness`);
//! - *silent* (the partition alone): with no timers a process cannot tell a cut link from a
//!   slow one, so the phase or iteration waiting on it never ends and nobody is elected
//!   (`leader_agreement`). Silent cuts never give two leaders: a winner needs every edge of
//!   its component removed by a vote, and a vote lost on the cut link leaves its receiver
//!   waiting.
//!
//! **Promises**: uniqueness, agreement, termination; the leader is the smallest node id.

use super::rings_common::Input;
use crate::spec::{complete_default, Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, Scenario, SimRng};
use std::collections::{BTreeMap, BTreeSet};

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// Links of the topology the processes know to be down from the start, as `[a, b]`
    /// pairs: phase 1, the iterations and the `Leader` flood ignore them (a link layer that
    /// reports a dead link, the seed's premise for "the link between 2 and 10 stops
    /// working"). Default: none. When the rest of the graph is disconnected the run is
    /// outside the fault model: each component elects its own leader.
    pub down_links: Vec<[NodeId; 2]>,
}

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// Phase 1: "my identifier".
    Id,
    /// YO-: the smallest source identifier seen on the way down.
    Value {
        /// Iteration.
        iter: u32,
        /// The value.
        value: NodeId,
    },
    /// -YO: YES or NO, and whether the edge is to be cut.
    Vote {
        /// Iteration.
        iter: u32,
        /// YES (`S`) or NO (`N`); NO reverses the edge.
        yes: bool,
        /// Cut this edge.
        prune: bool,
    },
    /// The winner, flooded to everyone.
    Leader {
        /// The leader.
        leader: NodeId,
    },
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "YoYo with pruning (standard -YO rule: any NO from below means NO to all)";
    }
}

/// One process.
#[derive(Debug, Default)]
pub struct YoYo {
    /// Neighbours across links known to be down (`params.down_links`): ignored.
    down: BTreeSet<NodeId>,
    started: bool,
    ids_heard: BTreeSet<NodeId>,
    oriented: bool,
    out_edges: BTreeSet<NodeId>,
    in_edges: BTreeSet<NodeId>,
    iter: u32,
    /// Values received this iteration, by in-neighbour.
    values: BTreeMap<NodeId, NodeId>,
    /// The smallest value this iteration (sent down by a source or an internal process).
    sent: Option<NodeId>,
    /// Answers received this iteration, by out-neighbour: (yes, prune).
    votes: BTreeMap<NodeId, (bool, bool)>,
    /// Messages of later iterations (or before orientation), in arrival order.
    later: Vec<(NodeId, Msg)>,
    /// Out of phase 2 (pruned, or the winner).
    finished: bool,
    leader: Option<NodeId>,
    iterations_run: u32,
}

impl YoYo {
    /// A process.
    pub fn new() -> Self {
        Self::default()
    }

    /// A process that knows its links to `down` are down and runs without them.
    pub fn with_down_links(down: BTreeSet<NodeId>) -> Self {
        YoYo {
            down,
            ..Self::default()
        }
    }

    /// The neighbours over links that work (as far as this process knows).
    fn neighbours(&self, ctx: &Ctx<'_, Self>) -> Vec<NodeId> {
        ctx.neighbours()
            .iter()
            .copied()
            .filter(|q| !self.down.contains(q))
            .collect()
    }

    /// Iterations of phase 2 this process took part in.
    pub fn iterations(&self) -> u32 {
        self.iterations_run
    }

    fn start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if self.started {
            return;
        }
        self.started = true;
        ctx.observe(Observation::Leader {
            leader: None,
            term: 0,
        });
        for q in self.neighbours(ctx) {
            ctx.send(q, Msg::Id);
        }
        self.try_orient(ctx);
    }

    fn try_orient(&mut self, ctx: &mut Ctx<'_, Self>) {
        let neighbours = self.neighbours(ctx);
        if self.oriented || self.ids_heard.len() < neighbours.len() {
            return;
        }
        self.oriented = true;
        let me = ctx.id();
        for q in neighbours {
            if q < me {
                self.in_edges.insert(q);
            } else {
                self.out_edges.insert(q);
            }
        }
        self.begin_iteration(ctx);
    }

    fn begin_iteration(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.values.clear();
        self.votes.clear();
        self.sent = None;
        if self.in_edges.is_empty() && self.out_edges.is_empty() {
            // No edge left and not pruned: the last source.
            self.finished = true;
            self.announce(ctx, ctx.id(), None);
            return;
        }
        self.iterations_run += 1;
        if self.in_edges.is_empty() {
            let (iter, value) = (self.iter, ctx.id());
            self.sent = Some(value);
            for &q in &self.out_edges {
                ctx.send(q, Msg::Value { iter, value });
            }
        }
        // Messages of this iteration that came early.
        let waiting = std::mem::take(&mut self.later);
        for (from, msg) in waiting {
            self.handle(ctx, from, msg);
        }
    }

    fn announce(&mut self, ctx: &mut Ctx<'_, Self>, leader: NodeId, except: Option<NodeId>) {
        self.leader = Some(leader);
        ctx.observe(Observation::Leader {
            leader: Some(leader),
            term: 0,
        });
        let to: Vec<NodeId> = self
            .neighbours(ctx)
            .into_iter()
            .filter(|&q| Some(q) != except)
            .collect();
        for q in to {
            ctx.send(q, Msg::Leader { leader });
        }
    }

    fn handle(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Id => {
                self.ids_heard.insert(from);
                self.try_orient(ctx);
            }
            Msg::Leader { leader } => {
                if self.leader.is_none() {
                    self.finished = true;
                    self.announce(ctx, leader, Some(from));
                }
            }
            Msg::Value { iter, .. } | Msg::Vote { iter, .. }
                if !self.oriented || iter > self.iter =>
            {
                self.later.push((from, msg));
            }
            _ if self.finished => {}
            // Outside the fault model (a duplicate, or a stale iteration): not ours to count.
            Msg::Value { iter, .. } | Msg::Vote { iter, .. } if iter < self.iter => {}
            Msg::Value { .. }
                if !self.in_edges.contains(&from) || self.values.contains_key(&from) => {}
            Msg::Vote { .. }
                if !self.out_edges.contains(&from) || self.votes.contains_key(&from) => {}
            Msg::Value { value, .. } => {
                self.values.insert(from, value);
                if self.values.len() == self.in_edges.len() {
                    let Some(&m) = self.values.values().min() else {
                        return;
                    };
                    self.sent = Some(m);
                    if self.out_edges.is_empty() {
                        self.answer(ctx, true, true);
                    } else {
                        let iter = self.iter;
                        for &q in &self.out_edges {
                            ctx.send(q, Msg::Value { iter, value: m });
                        }
                    }
                }
            }
            Msg::Vote { yes, prune, .. } => {
                self.votes.insert(from, (yes, prune));
                if self.votes.len() == self.out_edges.len() {
                    let all_yes = self.votes.values().all(|&(y, _)| y);
                    for (q, (y, p)) in std::mem::take(&mut self.votes) {
                        if p || !y {
                            self.out_edges.remove(&q);
                        }
                        if !p && !y {
                            self.in_edges.insert(q); // NO reverses the edge
                        }
                    }
                    if self.values.is_empty() && self.sent == Some(ctx.id()) {
                        // a source: its answers are in; on to the next iteration
                        self.iter += 1;
                        self.begin_iteration(ctx);
                    } else {
                        self.answer(ctx, all_yes, false);
                    }
                }
            }
        }
    }

    /// -YO at an internal process or a sink: answers every in-neighbour, prunes, reverses.
    fn answer(&mut self, ctx: &mut Ctx<'_, Self>, downstream_yes: bool, sink: bool) {
        let Some(m) = self.sent else {
            return;
        };
        // keep one edge per distinct value (the lowest neighbour), cut the duplicates
        let mut kept: BTreeMap<NodeId, NodeId> = BTreeMap::new();
        let mut answers: Vec<(NodeId, bool, bool)> = Vec::new();
        for (&q, &v) in &self.values {
            let duplicate = kept.contains_key(&v);
            if !duplicate {
                kept.insert(v, q);
            }
            answers.push((q, downstream_yes && v == m, duplicate));
        }
        // a sink left with a single in-edge cuts it and leaves
        if sink && kept.len() == 1 {
            for a in &mut answers {
                a.2 = true;
            }
        }
        let iter = self.iter;
        for (q, yes, prune) in answers {
            ctx.send(q, Msg::Vote { iter, yes, prune });
            self.in_edges.remove(&q);
            if !prune && !yes {
                self.out_edges.insert(q);
            } else if !prune {
                self.in_edges.insert(q);
            }
        }
        self.iter += 1;
        if self.in_edges.is_empty() && self.out_edges.is_empty() {
            self.finished = true; // pruned: wait for the leader
            self.later.clear();
        } else {
            self.begin_iteration(ctx);
        }
    }
}

impl Process for YoYo {
    type Msg = Msg;
    type Timer = ();
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        if self.down.contains(&from) {
            return; // a link this process takes as down
        }
        self.start(ctx);
        self.handle(ctx, from, msg);
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_, Self>, _timer: ()) {}

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Start = input;
        self.start(ctx);
        if self.neighbours(ctx).is_empty() && self.leader.is_none() {
            self.finished = true;
            self.announce(ctx, ctx.id(), None);
        }
    }
}

/// `election.yoyo`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct YoYoSpec;

impl Spec for YoYoSpec {
    type Node = YoYo;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.yoyo"
    }
    fn summary(&self) -> &'static str {
        "YoYo on any connected graph: orient edges low→high, sources send down, sinks answer YES/NO up, NO reverses edges, pruning; the smallest id wins"
    }
    fn source(&self) -> &'static str {
        "seed 002, Algoritmo do YoYo"
    }
    fn properties(&self) -> Vec<&'static str> {
        super::RING_PROPERTIES.to_vec()
    }
    fn fault_model(&self) -> FaultModel {
        super::ring_model("reliable FIFO links with any delay on the scenario's (connected) topology, slow processes; no timers; no partitions (a silent cut link stalls it; a noticed one, params.down_links, splits it into two elections and two leaders: the seed's link 2–10), crashes or loss")
    }
    /// The topology's links only: it sends to its neighbours, and [`Spec::prepare`] checks
    /// that it is connected.
    fn links(&self) -> crate::spec::Links {
        crate::spec::Links::Topology
    }
    /// At least one node, on a connected topology; every down link is a link of it.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_ring_topology(self, setup, true, false)?;
        let adj = super::adjacency(setup.scenario)?;
        // A link is named once, either way round, as a topology's edges are (stop 74's probe:
        // `[[2, 10], [10, 2]]` was taken).
        let mut named = std::collections::BTreeMap::new();
        for (i, &[a, b]) in setup.params.down_links.iter().enumerate() {
            if !adj.contains(a, b) {
                return Err(format!(
                    "params.down_links: [{a}, {b}] is not a link of network.topology"
                ));
            }
            if let Some(first) = named.insert((a.min(b), a.max(b)), i) {
                return Err(format!(
                    "params.down_links[{i}] = [{a}, {b}] repeats down_links[{first}] (a link \
                     is down both ways)"
                ));
            }
        }
        Ok(())
    }
    fn node(&self, _: Variant, params: &Params, id: NodeId) -> YoYo {
        let down = params
            .down_links
            .iter()
            .filter_map(|&[a, b]| match id {
                _ if a == id => Some(b),
                _ if b == id => Some(a),
                _ => None,
            })
            .collect();
        YoYo::with_down_links(down)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::start_workload(rng, nodes, active_ms)
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        // orientation, then iterations of at most 2n hops down and up, then the flood
        super::ring_bound_ms(setup, |n| 2 * n * (n + 2))
    }
    /// Validity with the algorithm's own ranks: the smallest node is the best.
    fn checker(
        &self,
        property: &str,
        setup: &Setup<'_, Self>,
        bound_ms: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        Ok(super::ranked_validity(property, setup, bound_ms, || {
            (0..setup.nodes() as u64).rev().collect()
        }))
    }
    /// A generated scenario on the complete topology gets a random connected graph.
    fn complete(&self, mut draft: Draft, opts: &GenOptions) -> Scenario {
        super::draw_graph(&mut draft, false);
        complete_default(self, draft, opts)
    }
}

#[cfg(test)]
mod tests {
    use crate::election::random_connected_edges;
    use crate::election::testing::*;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::{EngineKind, SimRng};

    fn on_graph(
        n: usize,
        edges: &[[usize; 2]],
        starts: &[(usize, u64)],
    ) -> sincro_harness::Outcome {
        let mut doc = scenario("election.yoyo", n, starts);
        doc["network"]["topology"] = serde_json::json!({ "graph": { "edges": edges } });
        run(doc)
    }

    #[test]
    fn the_smallest_id_wins_on_a_line_a_ring_a_star_and_complete() {
        let line: Vec<[usize; 2]> = (0..5).map(|i| [i, i + 1]).collect();
        let out = on_graph(6, &line, &[(3, 0)]);
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(final_leaders(&out, 6), vec![Some(0); 6]);
        let ring: Vec<[usize; 2]> = (0..7).map(|i| [i, (i + 1) % 7]).collect();
        let out = on_graph(7, &ring, &[(3, 0), (5, 0)]);
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(self_declared(&out), vec![0]);
        let star: Vec<[usize; 2]> = (0..5).map(|i| [5, i]).collect();
        let out = on_graph(6, &star, &[(5, 0)]);
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(final_leaders(&out, 6), vec![Some(0); 6]);
        let out = run(scenario("election.yoyo", 5, &[(4, 0)]));
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        assert_eq!(final_leaders(&out, 5), vec![Some(0); 5]);
        let out = run(scenario("election.yoyo", 1, &[(0, 0)]));
        assert_eq!(final_leaders(&out, 1), vec![Some(0)]);
    }

    #[test]
    fn many_sources_on_random_graphs() {
        let mut rng = SimRng::new(11);
        for _ in 0..200 {
            let n = 2 + rng.index(14);
            // shuffle the ids over a random graph so that there are many local minima
            let edges = random_connected_edges(&mut rng, n);
            let out = on_graph(n, &edges, &[(rng.index(n), 0)]);
            assert!(out.verdict.is_pass(), "n={n} {edges:?}: {}", out.verdict);
            assert_eq!(self_declared(&out), vec![0], "n={n} {edges:?}");
            assert_eq!(final_leaders(&out, n), vec![Some(0); n]);
        }
    }

    /// Two random connected components `a` (the smallest ids first, shuffled) and `b`
    /// joined by one link, the bridge: (n, edges, side a, bridge).
    fn bridged(rng: &mut SimRng) -> (usize, Vec<[usize; 2]>, Vec<usize>, [usize; 2]) {
        let (na, nb) = (2 + rng.index(5), 2 + rng.index(5));
        let n = na + nb;
        let mut perm: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            perm.swap(i, rng.index(i + 1));
        }
        let mut edges: Vec<[usize; 2]> = Vec::new();
        for [x, y] in random_connected_edges(rng, na) {
            edges.push([perm[x], perm[y]]);
        }
        for [x, y] in random_connected_edges(rng, nb) {
            edges.push([perm[na + x], perm[na + y]]);
        }
        let bridge = [perm[rng.index(na)], perm[na + rng.index(nb)]];
        edges.push(bridge);
        (n, edges, perm[..na].to_vec(), bridge)
    }

    #[test]
    fn a_noticed_cut_link_elects_two_leaders_and_a_silent_one_none() {
        let mut rng = SimRng::new(2010);
        for case in 0..60 {
            let (n, edges, side_a, bridge) = bridged(&mut rng);
            let cut_at = rng.range_u64(0, 30);
            let mut doc = scenario("election.yoyo", n, &[(bridge[0], 0), (bridge[1], 0)]);
            doc["network"]["topology"] = serde_json::json!({ "graph": { "edges": edges } });
            doc["network"]["latency"] = serde_json::json!({"uniform": {"min_ms": 1, "max_ms": 5}});
            doc["faults"] = serde_json::json!([{"at_ms": cut_at, "fault": {"partition": {"groups": [side_a]}}}]);
            // silent: the election waits on the cut link (or had ended before it): never two
            // leaders
            let out = run(doc.clone());
            assert!(
                !out.verdict.label().contains("leader_uniqueness"),
                "case {case}: a silent cut made two leaders: {}",
                out.verdict
            );
            assert!(self_declared(&out).len() <= 1, "case {case}");
            // noticed from the start: each side elects its own smallest id
            doc["faults"][0]["at_ms"] = serde_json::json!(0);
            doc["params"] = serde_json::json!({ "down_links": [bridge] });
            let out = run(doc);
            assert_eq!(
                out.verdict.label(),
                "violation:leader_uniqueness",
                "case {case}"
            );
            let min_a = *side_a.iter().min().unwrap();
            let min_b = (0..n).filter(|v| !side_a.contains(v)).min().unwrap();
            let mut leaders = self_declared(&out);
            leaders.sort_unstable();
            assert_eq!(
                leaders,
                vec![min_a.min(min_b), min_a.max(min_b)],
                "case {case}"
            );
        }
    }

    #[test]
    fn a_down_link_must_be_a_link_of_the_topology() {
        let mut doc = scenario("election.yoyo", 3, &[(0, 0)]);
        doc["params"] = serde_json::json!({ "down_links": [[0, 1]] });
        doc["network"]["topology"] = serde_json::json!({"graph": {"edges": [[0, 2], [2, 1]]}});
        let sc = sincro_harness::Scenario::from_json(&doc.to_string()).unwrap();
        let e = crate::registry::find("election.yoyo")
            .unwrap()
            .run(&sc, sincro_harness::engine::RunOptions::default())
            .unwrap_err();
        assert!(e.0.contains("[0, 1] is not a link"), "{e}");
        // a link named twice, either way round, is refused; once, it runs
        for (down, ok) in [
            (serde_json::json!([[0, 2]]), true),
            (serde_json::json!([[0, 2], [0, 2]]), false),
            (serde_json::json!([[0, 2], [2, 0]]), false),
        ] {
            doc["params"] = serde_json::json!({ "down_links": down });
            let sc = sincro_harness::Scenario::from_json(&doc.to_string()).unwrap();
            let got = crate::registry::find("election.yoyo")
                .unwrap()
                .run(&sc, sincro_harness::engine::RunOptions::default());
            match (got, ok) {
                (Ok(_), true) => {}
                (Err(e), false) => assert!(e.0.contains("repeats down_links[0]"), "{e}"),
                (got, _) => panic!("{down}: {:?}", got.map(|o| o.verdict)),
            }
        }
    }

    #[test]
    fn replays_exactly_and_passes_in_model() {
        assert_replays_exactly("election.yoyo", &["correct"], 5);
        assert_in_model_passes("election.yoyo", "correct", 300, EngineKind::Native);
    }
}
