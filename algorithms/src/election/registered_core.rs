//! The bully, ring (with the list of ids) and term-based elections as registered
//! [`Algorithm`]s: names, variants, fault models, parameter checks and workloads.

use super::{bully, ring_list, terms};
use crate::registry::{
    check_variant, max_latency_ms, parse_params, Algorithm, AlgorithmInfo, VariantInfo,
};
use sincro_checkers::election::validity::RankPolicy;
use sincro_checkers::{LeaderStability, LeaderValidity};
use sincro_harness::engine::{self, Factory, Outcome, RunOptions};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Checker, Scenario, ScenarioError, SimRng, WorkloadItem};
use std::rc::Rc;

/// The algorithms of this file, in the order `sincro list` shows them.
pub(crate) const CORE: &[&dyn Algorithm] = &[&ElectionBully, &ElectionRing, &ElectionTerms];

/// Every election property, in the order they are checked.
const ELECTION_PROPERTIES: [&str; 5] = [
    "leader_uniqueness",
    "leader_agreement",
    "election_termination",
    "leader_validity",
    "leader_stability",
];

/// Checkers for the properties the scenario asks for (default: all the algorithm declares),
/// with `leader_validity` judged under `policy` and `leader_stability` from `settle_ms` after
/// the faults stop (the longest failure-detector timeout).
fn election_checkers(
    info: &AlgorithmInfo,
    sc: &Scenario,
    bound_ms: u64,
    policy: RankPolicy,
    settle_ms: u64,
) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
    let mut cs = crate::registry::checkers(info, sc, bound_ms)?;
    for c in cs.iter_mut() {
        if c.property() == sincro_checkers::election::validity::PROPERTY {
            *c = Box::new(LeaderValidity::with_policy(
                sc.nodes,
                sc.quiet_from_ms(),
                bound_ms,
                policy.clone(),
            ));
        } else if c.property() == sincro_checkers::election::stability::PROPERTY {
            *c = Box::new(LeaderStability::with_settle(
                sc.nodes,
                sc.quiet_from_ms(),
                settle_ms,
            ));
        }
    }
    Ok(cs)
}

/// Workload of the bully and ring elections: up to `2n` probes of the coordinator at random
/// nodes and times (a probe that goes unanswered starts an election).
fn probe_workload(rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
    let count = rng.range_u64(1, 2 * nodes as u64);
    let mut items: Vec<WorkloadItem> = (0..count)
        .map(|_| WorkloadItem {
            at_ms: rng.range_u64(0, active_ms),
            node: rng.index(nodes),
            input: serde_json::json!("probe"),
        })
        .collect();
    items.sort_by_key(|w| w.at_ms);
    items
}

fn check_initial_leader(sc: &Scenario, l: Option<usize>) -> Result<(), ScenarioError> {
    match l {
        Some(l) if l >= sc.nodes => Err(ScenarioError(format!(
            "params.initial_leader = {l} does not exist (nodes = {})",
            sc.nodes
        ))),
        _ => Ok(()),
    }
}

/// `election.bully`.
struct ElectionBully;

impl ElectionBully {
    fn timeouts(sc: &Scenario) -> bully::Timeouts {
        bully::Timeouts::for_latency(max_latency_ms(sc))
    }
}

impl Algorithm for ElectionBully {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "election.bully",
            summary: "bully (Garcia-Molina): ELECTION / OK / COORDINATOR, the highest live id wins; a recovered process calls an election",
            source: "seed 000 §6.5.1 (Fig. 6.19); seed 002 \"Eleição de Líderes\" (Algoritmo do Brigão, split-brain)",
            variants: vec![
                VariantInfo { name: "correct", buggy: false, summary: "Garcia-Molina's algorithm, taking power after the announcement is answered" },
                VariantInfo {
                    name: "short-timeout",
                    buggy: true,
                    summary: "the candidate waits 1 ms for an OK and declares itself at once: two coordinators (seed 002)",
                },
            ],
            properties: ELECTION_PROPERTIES.to_vec(),
            fault_model: FaultModel {
                tolerates: vec![
                    FaultClass::Reordering,
                    FaultClass::Duplication,
                    FaultClass::Crashes,
                    FaultClass::ClockDrift,
                ],
                summary: "synchronous: delays below the bound the timeouts come from, crashes with restart, duplication, reordering, drifting clocks; no loss, pauses, clock jumps or partitions (a live process would look dead: split brain)",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        let params: bully::Params = parse_params(sc)?;
        check_initial_leader(sc, params.initial_leader)?;
        let variant = match sc.variant.as_str() {
            "short-timeout" => bully::Variant::ShortTimeout,
            _ => bully::Variant::Correct,
        };
        let mut t = Self::timeouts(sc);
        if params.answer_timeout_ms > 0 {
            t.answer_ms = params.answer_timeout_ms;
        }
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = election_checkers(&info, sc, bound, RankPolicy::HighestId, 0)?;
        let initial = params.initial_leader;
        let factory: Factory<bully::Bully> =
            Rc::new(move |_| bully::Bully::new(variant, t, initial));
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        probe_workload(rng, nodes, active_ms)
    }

    /// After the faults stop: a probe, then at most a few rounds of election, announcement and
    /// the wait for the coordinator (a NACK from a process with a stale coordinator costs one
    /// more round).
    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        let t = Self::timeouts(sc);
        let round = t.probe_ms + t.answer_ms + t.announce_ms + t.coordinator_ms;
        4 * round + 10 * (max_latency_ms(sc) + 1)
    }
}

/// `election.ring`.
struct ElectionRing;

impl ElectionRing {
    fn hop_ms(sc: &Scenario) -> u64 {
        2 * (max_latency_ms(sc) + 1) + 2
    }
}

impl Algorithm for ElectionRing {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "election.ring",
            summary: "ring election with the list of ids: skip dead successors, the highest id on the list wins, COORDINATOR circulates",
            source: "seed 000 §6.5.1 (Algoritmo de anel, Fig. 6.20)",
            variants: vec![VariantInfo { name: "correct", buggy: false, summary: "the textbook algorithm, taking power once the COORDINATOR went round" }],
            properties: ELECTION_PROPERTIES.to_vec(),
            fault_model: FaultModel {
                tolerates: vec![FaultClass::Reordering, FaultClass::Crashes, FaultClass::ClockDrift],
                summary: "synchronous: delays below the bound the hop timeout comes from, crashes with restart, reordering, drifting clocks; no loss, duplication, pauses, clock jumps or partitions",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        let params: ring_list::Params = parse_params(sc)?;
        check_initial_leader(sc, params.initial_leader)?;
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let checkers = election_checkers(&info, sc, bound, RankPolicy::HighestId, 0)?;
        let hop_ms = Self::hop_ms(sc);
        let initial = params.initial_leader;
        let factory: Factory<ring_list::RingList> =
            Rc::new(move |_| ring_list::RingList::new(hop_ms, initial));
        engine::run(sc, factory, checkers, options)
    }

    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        probe_workload(rng, nodes, active_ms)
    }

    /// A probe, then up to four election attempts, each at most `2n + 2` hop timeouts (two
    /// circulations with skipped successors, and the READY).
    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        let hop = Self::hop_ms(sc);
        hop + 4 * (2 * sc.nodes as u64 + 2) * hop + 10
    }
}

/// `election.terms`.
struct ElectionTerms;

impl Algorithm for ElectionTerms {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "election.terms",
            summary: "elections with terms and majority votes (Raft's): one vote per term in stable storage, at most one leader per term, stale terms dropped",
            source: "seed 002 \"Eleição de Líderes\" (Split-brain: pesos, mandatos)",
            variants: vec![VariantInfo { name: "correct", buggy: false, summary: "majority votes, one per term" }],
            properties: ELECTION_PROPERTIES.to_vec(),
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
                ],
                summary: "safe under any delay, loss, duplication, reordering, partitions, crashes with restart, pauses and drift; a leader is elected once a majority is connected with delays below the timeouts; not clock jumps (a leader whose clock jumps back stops its heartbeats for that long: a needless election, unstable though still safe)",
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        let params: terms::Params = parse_params(sc)?;
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.liveness_bound_ms(sc));
        let (hb, el) = params.timeouts(max_latency_ms(sc));
        // A follower's election timer (at most 3e) started before the faults stopped may fire
        // after them: stability is judged from then on.
        let checkers = election_checkers(&info, sc, bound, RankPolicy::AliveOnly, 3 * el)?;
        let factory: Factory<terms::Terms> = Rc::new(move |_| terms::Terms::new(hb, el));
        engine::run(sc, factory, checkers, options)
    }

    /// No workload: elections start by themselves when heartbeats stop.
    fn workload(&self, _rng: &mut SimRng, _nodes: usize, _active_ms: u64) -> Vec<WorkloadItem> {
        Vec::new()
    }

    /// Randomized timeouts make split votes possible, each costing one more timeout (drawn in
    /// `[e, 3e)`): allow 20 of them.
    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        let params: terms::Params = parse_params(sc).unwrap_or_default();
        let (_, el) = params.timeouts(max_latency_ms(sc));
        20 * 3 * el
    }
}
