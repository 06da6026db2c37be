//! The deadlock detection algorithms as registered [`Algorithm`]s.

use super::cmh;
use crate::registry::{check_variant, checkers, max_latency_ms, Algorithm, AlgorithmInfo};
use crate::VariantInfo;
use sincro_harness::engine::{self, Factory, Outcome, RunOptions};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Scenario, ScenarioError, SimRng, WorkloadItem};
use std::collections::BTreeSet;
use std::rc::Rc;

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[&DeadlockCmh];

/// `deadlock.cmh`.
struct DeadlockCmh;

impl Algorithm for DeadlockCmh {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "deadlock.cmh",
            summary: "Chandy–Misra–Haas probes (initiator, sender, receiver) along the wait-for edges of a resource-locking workload",
            source: "seed 003 §4.4 (Algoritmo de detecção distribuída)",
            variants: vec![
                VariantInfo {
                    name: "correct",
                    buggy: false,
                    summary: "probes name the edge they travel (resource, grant); stale edges and episodes are discarded",
                },
                VariantInfo {
                    name: "stale-edge",
                    buggy: true,
                    summary: "the text taken literally: forward and accept whenever blocked, even along an edge that already ended",
                },
                VariantInfo {
                    name: "forward-once",
                    buggy: true,
                    summary: "CMH's per-initiator flag dependent_k(i) read as one flag: a blocked process forwards only the first probe it gets, so a cycle's closing probe can be dropped",
                },
            ],
            properties: vec!["deadlock_soundness", "deadlock_completeness"],
            fault_model: FaultModel {
                tolerates: vec![FaultClass::Reordering, FaultClass::Pauses, FaultClass::ClockDrift],
                summary: "reliable channels with any delay and reordering, slow processes, drifting clocks; no loss, duplication, partitions or crashes",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        if !sc.params.is_null() && sc.params != serde_json::json!({}) {
            return Err(ScenarioError(
                "deadlock.cmh takes no params (pass {} or leave them out)".into(),
            ));
        }
        check_workload(sc)?;
        let variant = match sc.variant.as_str() {
            "stale-edge" => cmh::Variant::StaleEdge,
            "forward-once" => cmh::Variant::ForwardOnce,
            _ => cmh::Variant::Correct,
        };
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = checkers(&info, sc, bound)?;
        let factory: Factory<cmh::Cmh> = Rc::new(move |_| cmh::Cmh::new(variant));
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        lock_workload(rng, nodes, active_ms)
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        // Once the cycle has formed (and the faults stopped), the last member learns whom it
        // waits for within one message time, and its probe goes round the cycle (at most n
        // hops).
        let lat = max_latency_ms(sc);
        (sc.nodes as u64 + 2) * (lat + 1) + 10
    }
}

/// Every workload input must be a `lock` of distinct, existing resources.
fn check_workload(sc: &Scenario) -> Result<(), ScenarioError> {
    for (i, w) in sc.workload.iter().enumerate() {
        let input: cmh::Input = serde_json::from_value(w.input.clone()).map_err(|e| {
            ScenarioError(format!(
                "workload[{i}].input is not a deadlock.cmh input ({e}); expected {{\"lock\": {{\"resources\": [..], \"hold_ms\": ..}}}}"
            ))
        })?;
        let cmh::Input::Lock { resources, .. } = input;
        let mut seen = BTreeSet::new();
        for r in resources {
            if r >= sc.nodes {
                return Err(ScenarioError(format!(
                    "workload[{i}] locks resource {r}, which does not exist (resource r is owned by node r; nodes = {})",
                    sc.nodes
                )));
            }
            if !seen.insert(r) {
                return Err(ScenarioError(format!(
                    "workload[{i}] locks resource {r} twice"
                )));
            }
        }
    }
    Ok(())
}

/// Workload of the family: `2n` to `5n` lock jobs at random nodes and times, each locking two
/// or three distinct resources in a random order (hold and wait: circular waits happen) and
/// holding them 1–50 ms. About half the generated runs deadlock.
pub(crate) fn lock_workload(rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
    let count = rng.range_u64(2 * nodes as u64, 5 * nodes as u64);
    let mut items: Vec<WorkloadItem> = (0..count)
        .map(|_| {
            let k = rng.range_u64(nodes.min(2) as u64, nodes.min(3) as u64) as usize;
            let mut all: Vec<usize> = (0..nodes).collect();
            for i in 0..k {
                let j = i + rng.index(nodes - i);
                all.swap(i, j);
            }
            all.truncate(k);
            WorkloadItem {
                at_ms: rng.range_u64(0, active_ms),
                node: rng.index(nodes),
                input: serde_json::json!({ "lock": { "resources": all, "hold_ms": rng.range_u64(1, 50) } }),
            }
        })
        .collect();
    items.sort_by_key(|w| w.at_ms);
    items
}
