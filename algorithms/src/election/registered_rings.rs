//! The ring family of seed 002 (Anel 1, Anel 2, Chang–Roberts, Franklin), YoYo and the ad-hoc
//! wireless election as registered [`Algorithm`]s: names, variants, fault models, parameter
//! checks, workloads and liveness bounds.

use super::rings_common::{Input, RingParams};
use super::{adhoc, anel1, anel2, chang_roberts, franklin, yoyo};
use crate::registry::{
    check_variant, checkers_with, max_latency_ms, parse_params, Algorithm, AlgorithmInfo,
    VariantInfo,
};
use sincro_checkers::election::validity;
use sincro_checkers::LeaderValidity;
use sincro_harness::engine::{self, Factory, Outcome, RunOptions};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::net::Topology;
use sincro_harness::{Checker, NodeId, Scenario, ScenarioError, SimRng, WorkloadItem};
use std::collections::BTreeSet;
use std::rc::Rc;

/// The algorithms of this file, in the order `sincro list` shows them.
pub(crate) const RINGS: &[&dyn Algorithm] = &[
    &Rings(Kind::Anel1),
    &Rings(Kind::Anel2),
    &Rings(Kind::ChangRoberts),
    &Rings(Kind::Franklin),
    &Rings(Kind::YoYo),
    &Rings(Kind::AdHoc),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Anel1,
    Anel2,
    ChangRoberts,
    Franklin,
    YoYo,
    AdHoc,
}

struct Rings(Kind);

const PROMISES: [&str; 4] = [
    "leader_uniqueness",
    "leader_agreement",
    "election_termination",
    "leader_validity",
];

fn model(summary: &'static str) -> FaultModel {
    FaultModel {
        tolerates: vec![
            FaultClass::Pauses,
            FaultClass::ClockDrift,
            FaultClass::ClockJumps,
        ],
        summary,
    }
}

fn correct(summary: &'static str) -> Vec<VariantInfo> {
    vec![VariantInfo {
        name: "correct",
        buggy: false,
        summary,
    }]
}

/// The neighbours of each node under the scenario's topology.
fn adjacency(sc: &Scenario) -> Vec<BTreeSet<NodeId>> {
    let n = sc.nodes;
    let mut adj = vec![BTreeSet::new(); n];
    match &sc.network.topology {
        Topology::Complete => {
            for (a, set) in adj.iter_mut().enumerate() {
                set.extend((0..n).filter(|&b| b != a));
            }
        }
        Topology::Ring => {
            for (a, set) in adj.iter_mut().enumerate() {
                set.extend(
                    [(a + 1) % n, (a + n - 1) % n]
                        .into_iter()
                        .filter(|&b| b != a),
                );
            }
        }
        Topology::Graph { edges } => {
            for &[a, b] in edges {
                if a < n && b < n && a != b {
                    adj[a].insert(b);
                    adj[b].insert(a);
                }
            }
        }
    }
    adj
}

fn connected(adj: &[BTreeSet<NodeId>]) -> bool {
    let mut seen = vec![false; adj.len()];
    let mut stack = vec![0];
    if adj.is_empty() {
        return true;
    }
    seen[0] = true;
    while let Some(a) = stack.pop() {
        for &b in &adj[a] {
            if !std::mem::replace(&mut seen[b], true) {
                stack.push(b);
            }
        }
    }
    seen.into_iter().all(|s| s)
}

/// A random connected graph: a random tree plus a few more edges.
pub(crate) fn random_connected_edges(rng: &mut SimRng, n: usize) -> Vec<[NodeId; 2]> {
    let mut edges: BTreeSet<[NodeId; 2]> = BTreeSet::new();
    for b in 1..n {
        let a = rng.index(b);
        edges.insert([a, b]);
    }
    for a in 0..n {
        for b in a + 1..n {
            if rng.chance(0.25) {
                edges.insert([a, b]);
            }
        }
    }
    edges.into_iter().collect()
}

impl Rings {
    fn ids(sc: &Scenario) -> Result<Vec<u64>, ScenarioError> {
        let p: RingParams = parse_params(sc)?;
        p.resolve(sc.nodes).map_err(ScenarioError)
    }

    /// Ranks for `leader_validity`: the best node has the highest rank.
    fn ranks(&self, sc: &Scenario) -> Result<Vec<u64>, ScenarioError> {
        Ok(match self.0 {
            Kind::Anel1 | Kind::ChangRoberts | Kind::Franklin => Self::ids(sc)?,
            Kind::Anel2 => {
                let ids = Self::ids(sc)?;
                let top = ids.iter().copied().max().unwrap_or(0);
                ids.iter().map(|&i| top - i).collect()
            }
            Kind::YoYo => (0..sc.nodes as u64).rev().collect(),
            Kind::AdHoc => {
                let p: adhoc::Params = parse_params(sc)?;
                p.resolve(sc.nodes).map_err(ScenarioError)?
            }
        })
    }

    /// Checks the topology: the logical ring's links, or a connected graph.
    fn check_topology(&self, sc: &Scenario) -> Result<(), ScenarioError> {
        let adj = adjacency(sc);
        let n = sc.nodes;
        match self.0 {
            Kind::YoYo | Kind::AdHoc => {
                if !connected(&adj) {
                    return Err(ScenarioError(format!(
                        "{} needs a connected network.topology; this one is not",
                        self.info().name
                    )));
                }
            }
            _ => {
                let both = self.0 == Kind::Franklin;
                for a in 0..n {
                    let r = (a + 1) % n;
                    let missing = (r != a && !adj[a].contains(&r))
                        || (both && r != a && !adj[r].contains(&a));
                    if missing {
                        return Err(ScenarioError(format!(
                            "{} runs on the logical ring 0 → 1 → … → {} → 0, but the topology has no link {a} – {r}",
                            self.info().name,
                            n - 1
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn build_checkers(
        &self,
        info: &AlgorithmInfo,
        sc: &Scenario,
        bound: u64,
    ) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
        checkers_with(info, sc, bound, |p| {
            if p != validity::PROPERTY {
                return Ok(None);
            }
            Ok(Some(Box::new(LeaderValidity::with_ranks(
                sc.nodes,
                sc.quiet_from_ms(),
                bound,
                Some(self.ranks(sc)?),
            ))))
        })
    }
}

impl Algorithm for Rings {
    fn info(&self) -> AlgorithmInfo {
        let ring_model = "reliable FIFO links with any delay, slow processes; no timers, so clocks do not matter; no crashes, loss, duplication or partitions";
        match self.0 {
            Kind::Anel1 => AlgorithmInfo {
                name: "election.anel1",
                summary: "\"Anel 1\": identical processes on an anonymous ring, VoteEmMim / HabemosLider; two simultaneous candidates are both elected",
                source: "seed 002 \"Eleição de Líderes\", Algoritmo do Anel 1",
                variants: vec![VariantInfo {
                    name: "anonymous",
                    buggy: true,
                    summary: "the seed's algorithm: nothing tells two simultaneous candidates apart, so both declare themselves elected (the canary of leader_uniqueness)",
                }],
                properties: vec!["leader_uniqueness"],
                fault_model: FaultModel {
                    tolerates: vec![FaultClass::ClockDrift],
                    summary: "reliable FIFO links with any delay; no timers",
                },
            },
            Kind::Anel2 => AlgorithmInfo {
                name: "election.anel2",
                summary: "\"Anel 2\": the initiator's list collects every id round the ring; the smallest wins (up to n² messages of up to n ids)",
                source: "seed 002, Algoritmo do Anel 2",
                variants: correct("the seed's algorithm, plus an Elected round so everyone learns the leader"),
                properties: PROMISES.to_vec(),
                fault_model: model(ring_model),
            },
            Kind::ChangRoberts => AlgorithmInfo {
                name: "election.chang-roberts",
                summary: "Chang–Roberts: forward only larger ids, the largest comes back to its owner; O(n) to O(n²) messages by ring ordering",
                source: "seed 002, Algoritmo de Chang e Robert; seed 000 §6.5.1",
                variants: correct("classic Chang–Roberts (non-participants replace a smaller id by their own), plus an Elected round"),
                properties: PROMISES.to_vec(),
                fault_model: model(ring_model),
            },
            Kind::Franklin => AlgorithmInfo {
                name: "election.franklin",
                summary: "Franklin: rounds on a bidirectional ring, compare with the nearest active left and right, inactive processes relay; O(n log n)",
                source: "seed 002, Algoritmo de Franklin",
                variants: correct("the seed's algorithm, plus an Elected round"),
                properties: PROMISES.to_vec(),
                fault_model: model(ring_model),
            },
            Kind::YoYo => AlgorithmInfo {
                name: "election.yoyo",
                summary: "YoYo on any connected graph: orient edges low→high, sources send down, sinks answer YES/NO up, NO reverses edges, pruning; the smallest id wins",
                source: "seed 002, Algoritmo do YoYo",
                variants: correct("YoYo with pruning (standard -YO rule: any NO from below means NO to all)"),
                properties: PROMISES.to_vec(),
                fault_model: model("reliable FIFO links with any delay on the scenario's (connected) topology, slow processes; no timers; no partitions (the seed's cut link 2–10 makes two leaders), crashes or loss"),
            },
            Kind::AdHoc => AlgorithmInfo {
                name: "election.adhoc",
                summary: "wireless ad-hoc election (Vasudevan et al.): echo over the spanning tree of ELECTION messages, acks carry the best (capacity, id), highest election id wins",
                source: "seed 000 §6.5.2, Fig. 6.21; seed 001",
                variants: correct("the text's protocol over neighbours only; params.capacities"),
                properties: PROMISES.to_vec(),
                fault_model: model("reliable FIFO links with any delay on the scenario's (connected) topology, slow processes; no timers; the text's adjustments for partitions, joins and departures are not modelled"),
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        if sc.nodes == 0 {
            return Err(ScenarioError("an election needs at least one node".into()));
        }
        self.check_topology(sc)?;
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = self.build_checkers(&info, sc, bound)?;
        match self.0 {
            Kind::Anel1 => {
                let f: Factory<anel1::Anel1> = Rc::new(|_| anel1::Anel1::new());
                engine::run(sc, f, checkers, options)
            }
            Kind::Anel2 => {
                let ids = Self::ids(sc)?;
                let f: Factory<anel2::Anel2> = Rc::new(move |v| anel2::Anel2::new(ids[v]));
                engine::run(sc, f, checkers, options)
            }
            Kind::ChangRoberts => {
                let ids = Self::ids(sc)?;
                let f: Factory<chang_roberts::ChangRoberts> =
                    Rc::new(move |v| chang_roberts::ChangRoberts::new(ids[v]));
                engine::run(sc, f, checkers, options)
            }
            Kind::Franklin => {
                let ids = Self::ids(sc)?;
                let f: Factory<franklin::Franklin> =
                    Rc::new(move |v| franklin::Franklin::new(ids[v]));
                engine::run(sc, f, checkers, options)
            }
            Kind::YoYo => {
                let _: serde::de::IgnoredAny = parse_params(sc)?;
                let f: Factory<yoyo::YoYo> = Rc::new(|_| yoyo::YoYo::new());
                engine::run(sc, f, checkers, options)
            }
            Kind::AdHoc => {
                let p: adhoc::Params = parse_params(sc)?;
                let caps = p.resolve(sc.nodes).map_err(ScenarioError)?;
                let f: Factory<adhoc::AdHoc> = Rc::new(move |v| adhoc::AdHoc::new(caps[v]));
                engine::run(sc, f, checkers, options)
            }
        }
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        let start = serde_json::to_value(Input::Start).expect("serializable");
        let item = |at_ms, node| WorkloadItem {
            at_ms,
            node,
            input: start.clone(),
        };
        let mut items = Vec::new();
        if self.0 == Kind::Anel1 {
            // Two (or more) candidates at the same moment: the seed's second scenario.
            let at = rng.range_u64(0, active_ms);
            let a = rng.index(nodes);
            let b = (a + 1 + rng.index(nodes.max(2) - 1)) % nodes;
            items.push(item(at, a));
            if b != a {
                items.push(item(at, b));
            }
        } else {
            // someone suspects the leader early (agreement is judged from when the faults
            // stop), then more suspicions at random times
            items.push(item(rng.range_u64(0, 10.min(active_ms)), rng.index(nodes)));
            for _ in 0..rng.range_u64(0, nodes as u64) {
                items.push(item(rng.range_u64(0, active_ms), rng.index(nodes)));
            }
        }
        items.sort_by_key(|w| w.at_ms);
        items
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        let n = sc.nodes.max(1) as u64;
        let hop = max_latency_ms(sc) + 1;
        let log2 = u64::from(n.next_power_of_two().trailing_zeros());
        let hops = match self.0 {
            // wake the best node (n), its message round (n), the announcement (n)
            Kind::Anel1 | Kind::Anel2 | Kind::ChangRoberts => 4 * n,
            // wake-up (n), at most log2 n + 1 rounds of at most n hops, the announcement (n)
            Kind::Franklin => (log2 + 4) * n,
            // orientation, then iterations of at most 2n hops down and up, then the flood
            Kind::YoYo => 2 * n * (n + 2),
            // tree (n), echo (n), broadcast (n), twice (a later election supersedes)
            Kind::AdHoc => 6 * n,
        };
        let bound = (hops + 4) * hop;
        bound + bound / 10 + 10
    }

    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        let mut draft = draft;
        let sc = &mut draft.scenario;
        if matches!(self.0, Kind::YoYo | Kind::AdHoc) && sc.network.topology == Topology::Complete {
            let mut grng = SimRng::derive(sc.seed, 0x96A9);
            sc.network.topology = Topology::Graph {
                edges: random_connected_edges(&mut grng, sc.nodes),
            };
            if self.0 == Kind::AdHoc {
                let caps: Vec<u64> = (0..sc.nodes).map(|_| grng.range_u64(1, 10)).collect();
                sc.params = serde_json::json!({ "capacities": caps });
            }
        }
        sc.workload = self.workload(&mut draft.workload_rng, sc.nodes, opts.active_ms);
        sc.duration_ms = opts.active_ms;
        let bound = self.liveness_bound_ms(sc);
        sc.duration_ms = sc.quiet_from_ms().max(opts.active_ms) + bound + bound / 2 + 1;
        draft.scenario
    }
}

/// Helpers of the election tests of this directory.
#[cfg(test)]
pub(crate) mod testing {
    use crate::registry::find;
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EventKind, NodeId, Observation, Outcome, Scenario};

    /// Runs a scenario given as JSON (the registered algorithm it names, all its checkers).
    pub fn run(doc: serde_json::Value) -> Outcome {
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        find(&sc.algorithm)
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap()
    }

    /// `n` nodes of `alg`, constant latency 10 ms, `starts` = (node, at_ms).
    pub fn scenario(alg: &str, n: usize, starts: &[(NodeId, u64)]) -> serde_json::Value {
        let workload: Vec<_> = starts
            .iter()
            .map(|&(node, at)| serde_json::json!({"at_ms": at, "node": node, "input": "start"}))
            .collect();
        serde_json::json!({
            "algorithm": alg, "nodes": n, "seed": 7, "duration_ms": 20_000,
            "network": {"latency": {"constant": {"ms": 10}}},
            "workload": workload,
        })
    }

    /// What each node last named as leader (`None`: nothing, or "in an election").
    pub fn final_leaders(out: &Outcome, n: usize) -> Vec<Option<NodeId>> {
        let mut last = vec![None; n];
        for e in &out.trace.as_ref().expect("recorded").events {
            if let EventKind::Observe {
                obs: Observation::Leader { leader, .. },
            } = &e.kind
            {
                last[e.node.unwrap()] = *leader;
            }
        }
        last
    }

    /// The nodes that declared themselves leader, in order.
    pub fn self_declared(out: &Outcome) -> Vec<NodeId> {
        out.trace
            .as_ref()
            .expect("recorded")
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Observe {
                    obs:
                        Observation::Leader {
                            leader: Some(l), ..
                        },
                } if Some(*l) == e.node => Some(*l),
                _ => None,
            })
            .collect()
    }

    /// Messages sent whose rendering starts with `prefix`.
    pub fn sent(out: &Outcome, prefix: &str) -> usize {
        out.trace
            .as_ref()
            .expect("recorded")
            .events
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Send { msg, .. } if msg.starts_with(prefix)))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::registry::find;

    #[test]
    fn bad_input_is_a_clear_error() {
        let cr = find("election.chang-roberts").unwrap();
        let mut doc = scenario("election.chang-roberts", 3, &[(0, 0)]);
        doc["params"] = serde_json::json!({"ids": [1, 1, 2]});
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        let e = cr.run(&sc, RunOptions::default()).unwrap_err();
        assert!(e.0.contains("distinct"), "{e}");
        let mut doc = scenario("election.franklin", 4, &[(0, 0)]);
        doc["network"]["topology"] =
            serde_json::json!({"graph": {"edges": [[0, 1], [1, 2], [2, 3]]}});
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        let e = find("election.franklin")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap_err();
        assert!(e.0.contains("no link 3 – 0"), "{e}");
        let mut doc = scenario("election.yoyo", 4, &[(0, 0)]);
        doc["network"]["topology"] = serde_json::json!({"graph": {"edges": [[0, 1], [2, 3]]}});
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        let e = find("election.yoyo")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap_err();
        assert!(e.0.contains("connected"), "{e}");
        let mut doc = scenario("election.adhoc", 3, &[(0, 0)]);
        doc["params"] = serde_json::json!({"capacities": [1, 2]});
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        let e = find("election.adhoc")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap_err();
        assert!(e.0.contains("capacities"), "{e}");
    }

    #[test]
    fn generated_graph_scenarios_are_connected_and_valid() {
        let alg = find("election.yoyo").unwrap();
        for seed in 0..50 {
            let sc = alg.generate("correct", seed, &GenOptions::default());
            sc.validate().unwrap();
            assert!(connected(&adjacency(&sc)), "seed {seed}");
            assert!(matches!(sc.network.topology, Topology::Graph { .. }));
            assert!(!sc.workload.is_empty());
        }
    }
}
