//! The logical clock and ordered multicast algorithms as registered [`Algorithm`]s: names,
//! variants, fault models, parameter checks and workloads.

use super::{causal, lamport, total};
use crate::registry::{
    check_variant, checkers, max_latency_ms, parse_params, Algorithm, AlgorithmInfo, VariantInfo,
};
use sincro_harness::engine::{self, Factory, Outcome, RunOptions};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Scenario, ScenarioError, SimRng, WorkloadItem};
use std::rc::Rc;

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[&OrderLamport, &OrderTotal, &OrderCausal];

/// Largest number of nodes of a logical clock run (vectors are carried on every message).
const MAX_NODES: usize = 1_000;

fn check_nodes(sc: &Scenario) -> Result<(), ScenarioError> {
    if sc.nodes > MAX_NODES {
        return Err(ScenarioError(format!(
            "{} supports at most {MAX_NODES} nodes, got {}",
            sc.algorithm, sc.nodes
        )));
    }
    Ok(())
}

/// Every fault class but crashes: the reliable link layer covers loss, duplication,
/// reordering and partitions.
fn reliable_link_model(summary: &'static str) -> FaultModel {
    FaultModel {
        tolerates: vec![
            FaultClass::Loss,
            FaultClass::Duplication,
            FaultClass::Reordering,
            FaultClass::Partitions,
            FaultClass::OnewayPartitions,
            FaultClass::Pauses,
            FaultClass::ClockDrift,
            FaultClass::ClockJumps,
        ],
        summary,
    }
}

/// Retransmission period: a round trip, unless the params say otherwise.
fn retry_ms(sc: &Scenario, param: u64) -> u64 {
    if param > 0 {
        param
    } else {
        2 * max_latency_ms(sc) + 2
    }
}

/// After the faults stop, every message gets through within a few retransmissions; a backward
/// clock jump (up to 500 ms in generated scenarios) can delay a retransmission timer by as much.
fn reliable_bound_ms(sc: &Scenario, retry: u64) -> u64 {
    let lat = max_latency_ms(sc);
    let jumps: u64 = sc
        .faults
        .iter()
        .filter_map(|f| match f.fault {
            sincro_harness::Fault::ClockJump { delta_ms, .. } if delta_ms < 0.0 => {
                Some((-delta_ms).ceil() as u64)
            }
            _ => None,
        })
        .sum();
    20 * (retry + lat) + jumps + 100
}

/// `order.lamport`.
struct OrderLamport;

impl Algorithm for OrderLamport {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "order.lamport",
            summary: "Lamport and vector clocks on every send and receipt; Fig. 6.9's clocks ticking 6/8/10",
            source: "seed 000 §6.2.1 (Fig. 6.9), §6.2.2; seed 003",
            variants: vec![
                VariantInfo { name: "correct", buggy: false, summary: "the text's three steps for both clocks" },
                VariantInfo {
                    name: "no-correction",
                    buggy: true,
                    summary: "the receiver does not correct its Lamport clock (Fig. 6.9(a): m3 arrives at 56)",
                },
                VariantInfo {
                    name: "no-merge",
                    buggy: true,
                    summary: "the receiver ticks its vector clock without merging the message's",
                },
            ],
            properties: vec!["lamport_condition", "vector_causality"],
            fault_model: FaultModel {
                tolerates: vec![
                    FaultClass::Loss,
                    FaultClass::Duplication,
                    FaultClass::Reordering,
                    FaultClass::Partitions,
                    FaultClass::OnewayPartitions,
                    FaultClass::Crashes,
                    FaultClass::Pauses,
                    FaultClass::ClockDrift,
                    FaultClass::ClockJumps,
                ],
                summary: "any network or clock fault; crashes with restart (clocks in stable storage)",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        check_nodes(sc)?;
        let params: lamport::Params = parse_params(sc)?;
        if !params.ticks.is_empty() && params.ticks.len() != sc.nodes {
            return Err(ScenarioError(format!(
                "params.ticks has {} entries for {} nodes",
                params.ticks.len(),
                sc.nodes
            )));
        }
        for (i, w) in sc.workload.iter().enumerate() {
            if let Some(to) = w.input.pointer("/send/to").and_then(|v| v.as_u64()) {
                if to as usize >= sc.nodes {
                    return Err(ScenarioError(format!(
                        "workload[{i}] sends to node {to}, which does not exist (nodes = {})",
                        sc.nodes
                    )));
                }
            }
        }
        let variant = match sc.variant.as_str() {
            "no-correction" => lamport::Variant::NoCorrection,
            "no-merge" => lamport::Variant::NoMerge,
            _ => lamport::Variant::Correct,
        };
        let checkers = checkers(&info, sc, self.liveness_bound_ms(sc))?;
        let n = sc.nodes;
        let step_ms = if params.step_ms == 0 {
            10
        } else {
            params.step_ms
        };
        let factory: Factory<lamport::LamportProcess> = Rc::new(move |id| {
            let tick = params.ticks.get(id).copied().unwrap_or(0);
            lamport::LamportProcess::new(variant, id, n, tick, step_ms)
        });
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        let count = rng.range_u64(1, 6 * nodes as u64);
        let mut items: Vec<WorkloadItem> = (0..count)
            .map(|_| {
                let node = rng.index(nodes);
                let mut to = rng.index(nodes.max(2) - 1);
                if to >= node {
                    to += 1;
                }
                WorkloadItem {
                    at_ms: rng.range_u64(0, active_ms),
                    node,
                    input: serde_json::json!({ "send": { "to": to.min(nodes - 1) } }),
                }
            })
            .collect();
        items.sort_by_key(|w| w.at_ms);
        items
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        2 * max_latency_ms(sc) + 10
    }
}

/// `order.total`.
struct OrderTotal;

impl Algorithm for OrderTotal {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "order.total",
            summary: "totally ordered multicast: Lamport-stamped updates queued by (ts, pid), delivered when acked by all; the replicated bank account",
            source: "seed 000 §6.2.1 (Fig. 6.11, \"Multicast totalmente ordenado\")",
            variants: vec![
                VariantInfo { name: "correct", buggy: false, summary: "the textbook algorithm over reliable FIFO links" },
                VariantInfo {
                    name: "unordered",
                    buggy: true,
                    summary: "apply updates on receipt: Fig. 6.11's replicas end at $1111 and $1110",
                },
            ],
            properties: vec!["total_order", "replica_agreement"],
            fault_model: reliable_link_model(
                "reliable FIFO links built over loss, duplication, reordering and partitions; pauses, drift and jumps; no crashes (every delivery needs every replica's ack)",
            ),
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        check_nodes(sc)?;
        let params: total::Params = parse_params(sc)?;
        let variant = match sc.variant.as_str() {
            "unordered" => total::Variant::Unordered,
            _ => total::Variant::Correct,
        };
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = checkers(&info, sc, bound)?;
        let n = sc.nodes;
        let retry = retry_ms(sc, params.retry_ms);
        let initial = if params.initial_cents == 0 {
            100_000
        } else {
            params.initial_cents
        };
        let factory: Factory<total::TotalOrder> =
            Rc::new(move |id| total::TotalOrder::new(variant, id, n, initial, retry));
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        let count = rng.range_u64(2, 3 * nodes as u64);
        let mut items: Vec<WorkloadItem> = (0..count)
            .map(|_| {
                let input = if rng.chance(0.5) {
                    serde_json::json!({ "deposit": { "dollars": rng.range_u64(1, 500) } })
                } else {
                    serde_json::json!({ "interest": { "percent": rng.range_u64(1, 5) } })
                };
                WorkloadItem {
                    at_ms: rng.range_u64(0, active_ms),
                    node: rng.index(nodes),
                    input,
                }
            })
            .collect();
        items.sort_by_key(|w| w.at_ms);
        items
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        let p: total::Params = parse_params(sc).unwrap_or_default();
        reliable_bound_ms(sc, retry_ms(sc, p.retry_ms))
    }
}

/// `order.causal`.
struct OrderCausal;

impl Algorithm for OrderCausal {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "order.causal",
            summary: "causally ordered multicast: vector clocks counting multicasts, hold back until ts(m)[i] = VC[i]+1 and ts(m)[k] <= VC[k]",
            source: "seed 000 §6.2.2 (Fig. 6.13)",
            variants: vec![
                VariantInfo { name: "correct", buggy: false, summary: "the delivery rule of §6.2.2 over reliable (unordered) links" },
                VariantInfo {
                    name: "fifo-only",
                    buggy: true,
                    summary: "FIFO per sender without the causal condition: m* overtakes m",
                },
            ],
            properties: vec!["causal_delivery", "replica_agreement"],
            fault_model: reliable_link_model(
                "reliable links built over loss, duplication, reordering and partitions; pauses, drift and jumps; no crashes (volatile clocks and hold-back queue)",
            ),
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        check_nodes(sc)?;
        let params: causal::Params = parse_params(sc)?;
        let variant = match sc.variant.as_str() {
            "fifo-only" => causal::Variant::FifoOnly,
            _ => causal::Variant::Correct,
        };
        let checkers = checkers(&info, sc, self.liveness_bound_ms(sc))?;
        let n = sc.nodes;
        let retry = retry_ms(sc, params.retry_ms);
        let factory: Factory<causal::CausalOrder> =
            Rc::new(move |_| causal::CausalOrder::new(variant, n, retry));
        engine::run(sc, factory, checkers, options)
    }

    /// Multicasts at random nodes and times; half of them get a quick follow-up from another
    /// node, which has often delivered the first one by then (a causal chain that a third
    /// node may see reversed).
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        let count = rng.range_u64(2, 3 * nodes as u64);
        let mut items = Vec::new();
        for _ in 0..count {
            let at_ms = rng.range_u64(0, active_ms);
            let node = rng.index(nodes);
            let m = serde_json::json!({ "multicast": {} });
            items.push(WorkloadItem {
                at_ms,
                node,
                input: m.clone(),
            });
            if rng.chance(0.5) {
                let mut other = rng.index(nodes.max(2) - 1);
                if other >= node {
                    other += 1;
                }
                items.push(WorkloadItem {
                    at_ms: (at_ms + rng.range_u64(1, 60)).min(active_ms),
                    node: other.min(nodes - 1),
                    input: m,
                });
            }
        }
        items.sort_by_key(|w| w.at_ms);
        items
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        let p: causal::Params = parse_params(sc).unwrap_or_default();
        reliable_bound_ms(sc, retry_ms(sc, p.retry_ms))
    }
}
