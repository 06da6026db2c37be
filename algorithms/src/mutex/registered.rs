//! The mutual exclusion algorithms as registered [`Algorithm`]s: names, variants, fault
//! models, parameter checks and workloads.

use super::{centralized, ricart_agrawala, token_ring, voting};
use crate::registry::{
    check_variant, checkers, max_latency_ms, parse_params, usual_latency_ms, Algorithm,
    AlgorithmInfo, VariantInfo,
};
use sincro_harness::engine::{self, Factory, Outcome, RunOptions};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Scenario, ScenarioError, SimRng, WorkloadItem};
use std::rc::Rc;

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[
    &MutexCentralized,
    &MutexVoting(voting::Mode::Voting),
    &MutexVoting(voting::Mode::Quorum),
    &MutexRicartAgrawala { ft: false },
    &MutexRicartAgrawala { ft: true },
    &MutexTokenRing,
];

/// `mutex.centralized`.
struct MutexCentralized;

impl Algorithm for MutexCentralized {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "mutex.centralized",
            summary: "centralized coordinator: request / grant / release with a FIFO queue",
            source: "seed 000 §6.3.2; seed 002 \"Exclusão Mútua\" (algoritmo centralizado)",
            variants: vec![
                VariantInfo { name: "correct", buggy: false, summary: "the textbook algorithm" },
                VariantInfo {
                    name: "lease-timeout",
                    buggy: true,
                    summary: "the coordinator reclaims a grant after lease_ms: a slow holder overlaps the next",
                },
            ],
            properties: vec!["mutual_exclusion", "liveness"],
            fault_model: FaultModel {
                tolerates: vec![FaultClass::Reordering, FaultClass::Pauses, FaultClass::ClockDrift],
                summary: "reliable links with any delay and reordering, slow processes, drifting clocks; no crashes",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        let params: centralized::Params = parse_params(sc)?;
        if params.coordinator >= sc.nodes {
            return Err(ScenarioError(format!(
                "params.coordinator = {} does not exist (nodes = {})",
                params.coordinator, sc.nodes
            )));
        }
        if params.lease_ms == 0 {
            return Err(ScenarioError("params.lease_ms must be at least 1".into()));
        }
        let variant = match sc.variant.as_str() {
            "lease-timeout" => centralized::Variant::LeaseTimeout,
            _ => centralized::Variant::Correct,
        };
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = checkers(&info, sc, bound)?;
        let factory: Factory<centralized::Centralized> =
            Rc::new(move |_| centralized::Centralized::new(variant, params.clone()));
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        mutex_workload(rng, nodes, active_ms)
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        mutex_liveness_bound_ms(sc)
    }
}

/// Workload of the mutual exclusion family: up to `4n` acquires at random nodes and times,
/// each holding the resource 1–30 ms.
pub(crate) fn mutex_workload(rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
    let count = rng.range_u64(1, 4 * nodes as u64);
    let mut items: Vec<WorkloadItem> = (0..count)
        .map(|_| WorkloadItem {
            at_ms: rng.range_u64(0, active_ms),
            node: rng.index(nodes),
            input: serde_json::json!({ "acquire": { "hold_ms": rng.range_u64(1, 30) } }),
        })
        .collect();
    items.sort_by_key(|w| w.at_ms);
    items
}

/// Liveness bound of a FIFO-fair mutex (centralized, Ricart–Agrawala): a request waits behind
/// at most every other node's request (one outstanding request per node), each taking its hold
/// time plus two message times (release and grant, or exit OK and the next entry); then its own
/// two message times.
pub(crate) fn mutex_liveness_bound_ms(sc: &Scenario) -> u64 {
    let hold_max = sc
        .workload
        .iter()
        .filter_map(|w| w.input.pointer("/acquire/hold_ms").and_then(|v| v.as_u64()))
        .max()
        .unwrap_or(0);
    let lat = max_latency_ms(sc);
    let per_holder = hold_max + 2 * lat + 1;
    let bound = sc.nodes as u64 * per_holder + 2 * lat;
    // Clock drift (at most rho) stretches local hold times a little; allow 10 %.
    bound + bound / 10 + 10
}

/// `mutex.ricart-agrawala` and, with `ft`, `mutex.ricart-agrawala-ft`.
struct MutexRicartAgrawala {
    ft: bool,
}

impl MutexRicartAgrawala {
    /// Resend period and retries of the fault-tolerant variant, defaults derived from the
    /// scenario's latencies.
    fn retry(sc: &Scenario, p: &ricart_agrawala::Params) -> (u64, u32) {
        let retry_ms = if p.retry_ms > 0 {
            p.retry_ms
        } else {
            2 * max_latency_ms(sc) + 2
        };
        let max_retries = if p.max_retries > 0 { p.max_retries } else { 3 };
        (retry_ms, max_retries)
    }
}

impl Algorithm for MutexRicartAgrawala {
    fn info(&self) -> AlgorithmInfo {
        if self.ft {
            return AlgorithmInfo {
                name: "mutex.ricart-agrawala-ft",
                summary: "Ricart–Agrawala fixed as the text proposes: always answer OK or DENY, resend on timeout, declare the silent dead",
                source: "seed 000 §6.3.4 (the fix, and problem 11 of ch. 6)",
                variants: vec![VariantInfo { name: "correct", buggy: false, summary: "the text's fix" }],
                properties: vec!["mutual_exclusion", "liveness"],
                fault_model: FaultModel {
                    tolerates: vec![FaultClass::Reordering, FaultClass::Crashes, FaultClass::ClockDrift],
                    summary: "crashes with restart, any delay and reordering, drifting clocks; loss only while fewer than max_retries sends in a row are lost; not pauses or partitions (a live peer would be declared dead)",
                },
            };
        }
        AlgorithmInfo {
            name: "mutex.ricart-agrawala",
            summary: "distributed: Lamport-stamped requests to all, lowest (clock, id) wins, deferred OKs",
            source: "seed 000 §6.3.4 (Fig. 6.15); seed 001",
            variants: vec![
                VariantInfo { name: "correct", buggy: false, summary: "the textbook algorithm" },
                VariantInfo {
                    name: "no-tiebreak",
                    buggy: true,
                    summary: "stamps compared without the process id: equal clocks let both enter",
                },
            ],
            properties: vec!["mutual_exclusion", "liveness"],
            fault_model: FaultModel {
                tolerates: vec![FaultClass::Reordering, FaultClass::Pauses, FaultClass::ClockDrift],
                summary: "reliable channels with any delay and reordering, slow processes, drifting clocks; no crashes",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        let params: ricart_agrawala::Params = parse_params(sc)?;
        if !params.initial_clocks.is_empty() && params.initial_clocks.len() != sc.nodes {
            return Err(ScenarioError(format!(
                "params.initial_clocks has {} entries for {} nodes",
                params.initial_clocks.len(),
                sc.nodes
            )));
        }
        let variant = match (self.ft, sc.variant.as_str()) {
            (true, _) => ricart_agrawala::Variant::FaultTolerant,
            (false, "no-tiebreak") => ricart_agrawala::Variant::NoTiebreak,
            _ => ricart_agrawala::Variant::Correct,
        };
        let (retry_ms, max_retries) = Self::retry(sc, &params);
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = checkers(&info, sc, bound)?;
        let factory: Factory<ricart_agrawala::RicartAgrawala> = Rc::new(move |id| {
            let time = params.initial_clocks.get(id).copied().unwrap_or(0);
            let clock = crate::ordering::clocks::LamportClock::new(id, time);
            ricart_agrawala::RicartAgrawala::new(variant, clock, retry_ms, max_retries)
        });
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        mutex_workload(rng, nodes, active_ms)
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        let base = mutex_liveness_bound_ms(sc);
        if !self.ft {
            return base;
        }
        // each hand-off may wait for a resend (a lost OK), plus declaring the dead
        let params: ricart_agrawala::Params = parse_params(sc).unwrap_or_default();
        let (retry_ms, max_retries) = Self::retry(sc, &params);
        base + sc.nodes as u64 * retry_ms + u64::from(max_retries + 1) * retry_ms
    }
}

/// `mutex.token-ring`.
struct MutexTokenRing;

impl MutexTokenRing {
    /// Parameters with zeros replaced by defaults derived from the scenario: the ACK timeout
    /// covers a round trip at the worst latency the scenario can produce (a slow successor is
    /// not a dead one); the regeneration timeout covers a full round of the ring at the usual
    /// latency with everyone holding the resource once, three times over — so a delay spike
    /// longer than that makes a late token look lost, the text's dilemma.
    fn params(sc: &Scenario) -> Result<token_ring::Params, ScenarioError> {
        let mut p: token_ring::Params = parse_params(sc)?;
        if p.ack_timeout_ms == 0 {
            p.ack_timeout_ms = 2 * max_latency_ms(sc) + 2;
        }
        if p.regen_timeout_ms == 0 {
            let lat = usual_latency_ms(sc);
            p.regen_timeout_ms = 3 * sc.nodes as u64 * (hold_max_ms(sc) + lat + 1) + 10;
        }
        if p.regen_stagger_ms == 0 {
            let lat = usual_latency_ms(sc);
            p.regen_stagger_ms = sc.nodes as u64 * (hold_max_ms(sc) + lat + 1) + 1;
        }
        Ok(p)
    }
}

pub(crate) fn hold_max_ms(sc: &Scenario) -> u64 {
    sc.workload
        .iter()
        .filter_map(|w| w.input.pointer("/acquire/hold_ms").and_then(|v| v.as_u64()))
        .max()
        .unwrap_or(0)
}

impl Algorithm for MutexTokenRing {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "mutex.token-ring",
            summary: "token passed around a logical ring, acked; dead successors skipped; lost token regenerated",
            source: "seed 000 §6.3.5; seed 002 (algoritmo do anel); seed 001",
            variants: vec![
                VariantInfo {
                    name: "correct",
                    buggy: false,
                    summary: "acked passes, dead successors skipped, lost token regenerated with a generation",
                },
                VariantInfo {
                    name: "no-generation",
                    buggy: true,
                    summary: "a regenerated token has no generation: a late (not lost) token survives beside it",
                },
            ],
            properties: vec!["mutual_exclusion", "liveness", "bounded_waiting"],
            fault_model: FaultModel {
                tolerates: vec![FaultClass::Reordering, FaultClass::ClockDrift],
                summary: "reliable links with any delay and reordering, drifting clocks; timeouts misfire under pauses, crashes and loss",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        let params = Self::params(sc)?;
        let variant = match sc.variant.as_str() {
            "no-generation" => token_ring::Variant::NoGeneration,
            _ => token_ring::Variant::Correct,
        };
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = checkers(&info, sc, bound)?;
        let factory: Factory<token_ring::TokenRing> =
            Rc::new(move |_| token_ring::TokenRing::new(variant, params.clone()));
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        mutex_workload(rng, nodes, active_ms)
    }

    fn bug_classes(&self, variant: &str) -> Vec<FaultClass> {
        match variant {
            "no-generation" => vec![FaultClass::DelaySpikes],
            _ => Vec::new(),
        }
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        // A node's k-th queued request waits at most k rounds of the ring; a round is at most
        // every node holding once plus one hop each.
        let lat = max_latency_ms(sc);
        let round = sc.nodes as u64 * (hold_max_ms(sc) + lat + 1);
        let per_node_max = (0..sc.nodes)
            .map(|n| sc.workload.iter().filter(|w| w.node == n).count() as u64)
            .max()
            .unwrap_or(0);
        let bound = (per_node_max + 1) * round + 2 * lat;
        bound + bound / 10 + 10
    }
}

/// `mutex.decentralized` and `mutex.quorum`.
struct MutexVoting(voting::Mode);

impl Algorithm for MutexVoting {
    fn info(&self) -> AlgorithmInfo {
        let model = FaultModel {
            tolerates: vec![FaultClass::Reordering, FaultClass::Pauses, FaultClass::ClockDrift],
            summary: "reliable links with any delay and reordering, slow processes, drifting clocks; coordinator crashes (amnesia) break safety with a computable probability",
        };
        match self.0 {
            voting::Mode::Voting => AlgorithmInfo {
                name: "mutex.decentralized",
                summary: "decentralized voting (Lin et al.): m > n/2 of n coordinators grant or deny; denied requesters back off",
                source: "seed 000 §6.3.3; seed 001",
                variants: vec![VariantInfo { name: "correct", buggy: false, summary: "the textbook algorithm" }],
                properties: vec!["mutual_exclusion"],
                fault_model: model,
            },
            voting::Mode::Quorum => AlgorithmInfo {
                name: "mutex.quorum",
                summary: "quorum of seed 002: requests to all n coordinators, which queue; wait for m grants; release to all",
                source: "seed 002 (Exclusão Mútua, quórum)",
                variants: vec![VariantInfo { name: "correct", buggy: false, summary: "the notes' algorithm" }],
                properties: vec!["mutual_exclusion"],
                fault_model: model,
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        let params: voting::Params = parse_params(sc)?;
        let params = params.resolve(sc.nodes).map_err(ScenarioError)?;
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = checkers(&info, sc, bound)?;
        let mode = self.0;
        let factory: Factory<voting::Voting> =
            Rc::new(move |_| voting::Voting::new(mode, params.clone()));
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        mutex_workload(rng, nodes, active_ms)
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        mutex_liveness_bound_ms(sc)
    }
}
