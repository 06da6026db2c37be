//! Leader election algorithms (Tanenbaum & van Steen §6.5; seed `002` "Eleição de Líderes").
//!
//! Every process reports what it believes with `Observation::Leader`: `Some(l)` when it
//! believes `l` leads (itself included), `None` when it starts an election; algorithms with
//! terms report them, the others report term 0. The checkers are in
//! `sincro_checkers::election`.

//!
//! Each algorithm's file holds its [`Process`](sincro_harness::Process), its [`Spec`] and
//! its pinned tests. This module holds what the family shares: the promised properties and
//! their checkers, the workloads, the topology checks and the liveness bound of the ring
//! family.

pub mod adhoc;
pub mod anel1;
pub mod anel2;
pub mod bully;
pub mod chang_roberts;
pub mod franklin;
pub mod lease;
pub mod ring_list;
pub mod rings_common;
pub mod superpeer;
pub mod terms;
pub mod yoyo;

use crate::spec::{Setup, Spec, Timed};
use crate::Algorithm;
use sincro_checkers::election::stability;
use sincro_checkers::election::validity::{self, RankPolicy};
use sincro_checkers::{LeaderStability, LeaderValidity};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::gen::Draft;
use sincro_harness::net::{Adjacency, Topology};
use sincro_harness::{Checker, NodeId, SimRng};
use std::collections::BTreeSet;

/// The family's algorithms, in the order `sincro list` shows them: the bully, ring (with the
/// list of ids) and term-based elections, then the ring family of seed 002, YoYo and the
/// ad-hoc wireless election.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[
    &bully::BullySpec,
    &ring_list::RingListSpec,
    &terms::TermsSpec,
    &lease::LeaseSpec,
    &anel1::Anel1Spec,
    &anel2::Anel2Spec,
    &chang_roberts::ChangRobertsSpec,
    &franklin::FranklinSpec,
    &yoyo::YoYoSpec,
    &adhoc::AdHocSpec,
];

/// Every election property, in the order they are checked (bully, ring, terms).
pub const ELECTION_PROPERTIES: [&str; 5] = [
    "leader_uniqueness",
    "leader_agreement",
    "election_termination",
    "leader_validity",
    "leader_stability",
];

/// What the ring family and the graph elections promise (they have no failure detector, so
/// no `leader_stability`).
pub const RING_PROPERTIES: [&str; 4] = [
    "leader_uniqueness",
    "leader_agreement",
    "election_termination",
    "leader_validity",
];

/// The checkers the bully, ring and terms elections build themselves: `leader_validity`
/// judged under `policy`, `leader_stability` from `settle_ms` after the faults stop (the
/// longest failure-detector timeout). `None` for the other properties (the built-in ones).
pub fn detector_checker<S: Spec>(
    property: &str,
    setup: &Setup<'_, S>,
    bound_ms: u64,
    policy: RankPolicy,
    settle_ms: u64,
) -> Option<Box<dyn Checker>> {
    let sc = setup.scenario;
    if property == validity::PROPERTY {
        Some(Box::new(LeaderValidity::with_policy(
            sc.nodes,
            sc.quiet_from_ms(),
            bound_ms,
            policy,
        )))
    } else if property == stability::PROPERTY {
        Some(Box::new(
            LeaderStability::with_settle(sc.nodes, sc.quiet_from_ms(), settle_ms)
                .between_faults(sc),
        ))
    } else {
        None
    }
}

/// `leader_validity` with the algorithm's own ranks (the best node has the highest rank);
/// `None` for the other properties.
pub fn ranked_validity<S: Spec>(
    property: &str,
    setup: &Setup<'_, S>,
    bound_ms: u64,
    ranks: impl FnOnce() -> Vec<u64>,
) -> Option<Box<dyn Checker>> {
    (property == validity::PROPERTY).then(|| {
        let sc = setup.scenario;
        Box::new(LeaderValidity::with_ranks(
            sc.nodes,
            sc.quiet_from_ms(),
            bound_ms,
            Some(ranks()),
        )) as Box<dyn Checker>
    })
}

/// Workload of the bully and ring elections: up to `2n` probes of the coordinator at random
/// nodes and times (a probe that goes unanswered starts an election).
pub fn probe_workload(rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<bully::Input>> {
    let count = rng.range_u64(1, 2 * nodes as u64);
    let mut items: Vec<Timed<bully::Input>> = (0..count)
        .map(|_| Timed {
            at_ms: rng.range_u64(0, active_ms),
            node: rng.index(nodes),
            input: bully::Input::Probe,
        })
        .collect();
    items.sort_by_key(|w| w.at_ms);
    items
}

/// `params.initial_leader`, when set, names the highest node: these elections promise that
/// the highest live id leads, and with every process up nothing calls an election, so a
/// lower initial leader broke `leader_validity` with no fault at all (a misconfiguration,
/// not a finding).
pub fn check_initial_leader<S: Spec>(
    setup: &Setup<'_, S>,
    initial_leader: Option<NodeId>,
) -> Result<(), String> {
    let n = setup.nodes();
    match initial_leader {
        Some(l) if l >= n => Err(format!(
            "params.initial_leader = {l} does not exist (nodes = {n})"
        )),
        Some(l) if l + 1 < n => Err(format!(
            "params.initial_leader = {l} is not the highest id ({}): the highest live id \
             leads, and with every process up nothing would elect it (leave it out)",
            n - 1
        )),
        _ => Ok(()),
    }
}

/// The fault model of the ring family and the graph elections: no timers, so only slow
/// processes and clock faults.
pub fn ring_model(summary: &'static str) -> FaultModel {
    FaultModel {
        tolerates: vec![
            FaultClass::Pauses,
            FaultClass::ClockDrift,
            FaultClass::ClockJumps,
        ],
        summary,
        ..FaultModel::default()
    }
}

/// The summary of the ring family's fault model.
pub const RING_MODEL: &str = "reliable FIFO links with any delay, slow processes; no timers, so clocks do not matter; no crashes, loss, duplication or partitions";

/// Workload of the ring family and the graph elections: someone suspects the leader early
/// (agreement is judged from when the faults stop), then more suspicions at random times.
pub fn start_workload(
    rng: &mut SimRng,
    nodes: usize,
    active_ms: u64,
) -> Vec<Timed<rings_common::Input>> {
    let item = |at_ms, node| Timed {
        at_ms,
        node,
        input: rings_common::Input::Start,
    };
    let mut items = Vec::new();
    items.push(item(rng.range_u64(0, 10.min(active_ms)), rng.index(nodes)));
    for _ in 0..rng.range_u64(0, nodes as u64) {
        items.push(item(rng.range_u64(0, active_ms), rng.index(nodes)));
    }
    items.sort_by_key(|w| w.at_ms);
    items
}

/// The checks every election of the ring family and the graph elections makes: at least one
/// node, and a topology that carries the logical ring 0 → 1 → … → n−1 → 0 (both ways with
/// `both_ways`), or, with `graph`, any connected topology.
pub fn check_ring_topology<S: Spec>(
    spec: &S,
    setup: &Setup<'_, S>,
    graph: bool,
    both_ways: bool,
) -> Result<(), String> {
    let n = setup.nodes();
    if n == 0 {
        return Err("an election needs at least one node".into());
    }
    let adj = adjacency(setup.scenario)?;
    if graph {
        if !adj.is_connected() {
            return Err(format!(
                "{} needs a connected network.topology; this one is not",
                spec.name()
            ));
        }
        return Ok(());
    }
    for a in 0..n {
        let r = (a + 1) % n;
        let missing =
            (r != a && !adj.contains(a, r)) || (both_ways && r != a && !adj.contains(r, a));
        if missing {
            return Err(format!(
                "{} runs on the logical ring 0 → 1 → … → {} → 0, but the topology has no link {a} – {r}",
                spec.name(),
                n - 1
            ));
        }
    }
    Ok(())
}

/// Liveness bound of the ring family and the graph elections, from the number of message
/// hops `hops(n)` an election takes at worst.
pub fn ring_bound_ms<S: Spec>(setup: &Setup<'_, S>, hops: impl FnOnce(u64) -> u64) -> u64 {
    let n = setup.nodes().max(1) as u64;
    let hop = setup.max_latency_ms() + 1;
    let bound = (hops(n) + 4) * hop;
    bound + bound / 10 + 10
}

/// For the graph elections: a generated scenario on the complete topology gets a random
/// connected graph instead (drawn from the scenario's seed), and, with `capacities`, random
/// node capacities 1–10 in `params`.
pub fn draw_graph(draft: &mut Draft, capacities: bool) {
    let sc = &mut draft.scenario;
    if sc.network.topology != Topology::Complete {
        return;
    }
    let mut grng = SimRng::derive(sc.seed, 0x96A9);
    sc.network.topology = Topology::Graph {
        edges: random_connected_edges(&mut grng, sc.nodes),
    };
    if capacities {
        let caps: Vec<u64> = (0..sc.nodes).map(|_| grng.range_u64(1, 10)).collect();
        sc.params = serde_json::json!({ "capacities": caps });
    }
}

/// The links of the scenario's topology (no `n × n` table: a complete topology of 10,000
/// nodes is checked in O(n)).
fn adjacency(sc: &sincro_harness::Scenario) -> Result<Adjacency, String> {
    Adjacency::new(sc.nodes, &sc.network.topology)
}

/// A random connected graph: a random tree plus a few more edges.
pub fn random_connected_edges(rng: &mut SimRng, n: usize) -> Vec<[NodeId; 2]> {
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

/// What each node last reported about the leader (`None` for a node that reported nothing).
#[cfg(test)]
pub(crate) fn final_leaders(out: &sincro_harness::Outcome, nodes: usize) -> Vec<Option<usize>> {
    use sincro_harness::{EventKind, Observation};
    let mut last = vec![None; nodes];
    for e in out.trace.as_ref().expect("recorded").events() {
        if let (
            Some(n),
            EventKind::Observe {
                obs: Observation::Leader { leader, .. },
            },
        ) = (e.node, &e.kind)
        {
            last[n] = *leader;
        }
    }
    last
}

/// The messages sent, as `(from, to, rendered message)`.
#[cfg(test)]
pub(crate) fn sends(out: &sincro_harness::Outcome) -> Vec<(usize, usize, String)> {
    use sincro_harness::EventKind;
    out.trace
        .as_ref()
        .expect("recorded")
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Send { to, msg, .. } => Some((e.node?, *to, msg.to_string())),
            _ => None,
        })
        .collect()
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
        for e in out.trace.as_ref().expect("recorded").events() {
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
            .events()
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
            .events()
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
    use sincro_harness::engine::RunOptions;
    use sincro_harness::gen::GenOptions;
    use sincro_harness::Scenario;

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
            assert!(adjacency(&sc).unwrap().is_connected(), "seed {seed}");
            assert!(matches!(sc.network.topology, Topology::Graph { .. }));
            assert!(!sc.workload.is_empty());
        }
    }
}
