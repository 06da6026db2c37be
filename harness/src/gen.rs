//! Scenario generation with swarm testing.
//!
//! From one seed, [`generate`] draws a network, clocks and a fault plan: first which fault
//! classes are switched on for this run (each allowed class with probability 1/2, the swarm),
//! then their events inside an *active phase*; at its end everything heals (partitions repaired,
//! crashed nodes restarted, paused ones resumed, loss and duplication switched off) and the run
//! goes on long enough for liveness to be judged. The algorithm supplies the workload.

use crate::fault::{
    Fault, FaultClass, FaultModel, TimedFault, GEN_CLOCK_JUMP_MS_MAX, GEN_DRIFT_PPM_MAX,
};
use crate::net::{Latency, LinkOverride, NetworkSpec};
use crate::rng::SimRng;
use crate::scenario::{CheckSpec, ClockSpec, EngineKind, Limits, Scenario};
use crate::schedule::Schedule;
use crate::NodeId;

/// Knobs of scenario generation.
#[derive(Clone, Debug, PartialEq)]
pub struct GenOptions {
    /// Smallest number of nodes.
    pub nodes_min: usize,
    /// Largest number of nodes.
    pub nodes_max: usize,
    /// Length of the active phase (faults and workload happen inside it), ms.
    pub active_ms: u64,
    /// Draw fault classes outside the algorithm's declared model too.
    pub beyond_model: bool,
    /// Engine the scenarios name.
    pub engine: EngineKind,
    /// Force the swarm to exactly this one class, even outside the algorithm's model (the
    /// fault-tolerance matrix). `Some(FaultClass::Delays)` means no fault class beyond the
    /// always-on delays. `None`: the usual swarm draw.
    pub only: Option<FaultClass>,
    /// How each seed's schedule and moment faults are chosen ([`Strategy::Mix`] by default).
    pub strategy: Strategy,
    /// Swarm over the length of the active phase: each seed's phase is ¼, ½, 1, 2 or 4 times
    /// `active_ms`, drawn from the seed ([`phase_ms`]). Off in [`GenOptions::default`] (every
    /// phase is `active_ms`); on in `sincro fuzz` and `sincro::testing::check` unless asked
    /// otherwise.
    pub phase_swarm: bool,
}

/// A campaign's search strategy: what shapes each seed's scenario beyond the swarm of fault
/// classes. Every choice is drawn from the seed (a stream of its own, so the swarm, network,
/// clocks, faults and workload of a seed are the same under every strategy) and recorded in
/// the scenario, so a failure replays exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// Each seed draws one of the others, swarm style: random 1/15, PCT 1/15, POS 1/15,
    /// moments 10/15, PCT with moments 2/15.
    #[default]
    Mix,
    /// Every delay drawn from its link's latency law, faults at drawn times only (the
    /// generation of Sincro before the other strategies).
    Random,
    /// PCT-style node priorities of depth 1 to 3 ([`crate::schedule::Schedule::Pct`]).
    Pct,
    /// Partial-order sampling ([`crate::schedule::Schedule::Pos`]).
    Pos,
    /// Random delays, plus faults injected right after protocol moments a pilot run shows (a
    /// node enters the critical section, becomes leader, restarts and sends…), one per round,
    /// 1 to 80 rounds ([`moment_rounds`]); added by the algorithm's `generate` (it can run the
    /// scenario), inside the fault model.
    Moments,
}

impl Strategy {
    /// Every strategy, `mix` first.
    pub const ALL: [Strategy; 5] = [
        Strategy::Mix,
        Strategy::Random,
        Strategy::Pct,
        Strategy::Pos,
        Strategy::Moments,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Mix => "mix",
            Strategy::Random => "random",
            Strategy::Pct => "pct",
            Strategy::Pos => "pos",
            Strategy::Moments => "moments",
        }
    }

    /// What this strategy does to `seed`'s scenario: its schedule, and how many moment faults
    /// rounds the algorithm adds (0, or [`moment_rounds`]).
    pub fn draw(
        self,
        seed: u64,
        nodes: usize,
        active_ms: u64,
        engine: EngineKind,
    ) -> (Schedule, usize) {
        let mut rng = SimRng::derive(seed, 0x5C4E);
        let concrete = match self {
            // Weighed on the four deep bugs over 3 × 20,000 guided seeds each (README,
            // "Search strategies"): faults at moments find the fault-deep ones, PCT the
            // schedule-deep ones, and PCT with moments does both; random and POS keep a share.
            Strategy::Mix => match rng.index(15) {
                0 => Strategy::Random,
                1 => Strategy::Pct,
                2 => Strategy::Pos,
                3..=12 => Strategy::Moments,
                _ => Strategy::Mix, // PCT with moments
            },
            s => s,
        };
        let moments = match concrete {
            Strategy::Moments | Strategy::Mix => moment_rounds(&mut rng),
            _ => 0,
        };
        let schedule = match concrete {
            _ if engine == EngineKind::Turmoil => Schedule::Random, // turmoil draws its own
            Strategy::Pct | Strategy::Mix => {
                let depth = 1 + rng.index(3);
                Schedule::draw_pct(&mut rng, nodes, depth, active_ms)
            }
            Strategy::Pos => Schedule::Pos,
            Strategy::Random | Strategy::Moments => Schedule::Random,
        };
        (schedule, moments)
    }
}

/// The most rounds of faults at moments one seed adds (see [`moment_rounds`]).
pub const MOMENT_ROUNDS_MAX: usize = 80;

/// How many rounds of faults at moments a seed adds: uniform in `1..=`[`MOMENT_ROUNDS_MAX`].
/// Each round runs a pilot (about the cost of a run) and adds one fault.
///
/// Deep bugs need several faults, each at the right moment, and the rate at which seeds find
/// them grows with the faults a seed adds. With `--strategy moments --no-coverage` and 20,000
/// seeds, failing seeds of `stale-coordinator`, `volatile-vote`, `forget-promise` and
/// `clock-fresh-ok`, and the CPU time of the four campaigns:
///
/// | rounds | failing seeds | wall, `-j 2` |
/// |---|---|---:|
/// | uniform 1–3 (before) | 10, 2, 72, 139 | 22 s |
/// | uniform 1–20 | 55, 19, 142, 152 | 50 s |
/// | uniform 1–40 (stop 24 to 73) | 103, 36, 204, 161 | 91 s |
/// | uniform 1–80 | 153, 48, 286, 169 | 198 s |
/// | log-uniform 1–128 | 102, 39, 184, 153 | 141 s |
///
/// Per seed, more rounds are better; per CPU second, 1–20 and 1–40 find the two deepest bugs
/// about 2.5 and 4 times as fast as 1–3, and the two others at 0.3–0.9 times the speed.
/// These rows ran a pilot for every fault; since stop 74 a pilot serves two faults
/// (`sincro_algorithms::moments::FAULTS_PER_PILOT`), so 1–80 rounds cost about what 1–40
/// did, and find the fault-deep bugs in more seeds (that constant's table).
pub fn moment_rounds(rng: &mut SimRng) -> usize {
    1 + rng.index(MOMENT_ROUNDS_MAX)
}

/// Share of generated seeds whose workload comes in one burst ([`input_burst`]).
pub const INPUT_BURST_SHARE: f64 = 0.5;

/// A burst of a generated workload: every input time `t` of the active phase becomes
/// `start_ms + t · width_ms / active_ms` ([`InputBurst::squeeze`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputBurst {
    /// Where the burst starts, ms.
    pub start_ms: u64,
    /// How long it lasts, ms (at least 1).
    pub width_ms: u64,
    /// The active phase the workload was drawn over, ms (at least 1).
    pub active_ms: u64,
}

impl InputBurst {
    /// Where an input drawn at `at_ms` comes in the burst: the order of the inputs is kept,
    /// and every time stays inside the active phase (one drawn after it stays where it is).
    pub fn squeeze(&self, at_ms: u64) -> u64 {
        if at_ms > self.active_ms {
            return at_ms;
        }
        let t = u128::from(at_ms);
        let scaled = t * u128::from(self.width_ms) / u128::from(self.active_ms);
        // scaled <= width_ms, and start_ms + width_ms <= active_ms
        self.start_ms + scaled as u64
    }
}

/// Swarm testing over the density of the inputs: for [`INPUT_BURST_SHARE`] of the seeds, the
/// generated workload is squeezed into one window of a twentieth to a quarter of the active
/// phase, at a random place in it; `None` for the others (the workload stays as drawn).
///
/// Inputs that come together start concurrent rounds of the protocol — several elections at
/// once, requests that race — which a workload spread over the whole phase reaches only by
/// chance. The active phase's own swarm (¼ to 4 times `--active-ms`) packs faults and inputs
/// together; this packs the inputs alone, wherever they are among the faults. Stop 61,
/// `calibrate --strategy mix --offsets 10 --seeds 2000`, failing seeds of 20,000 of
/// `election.ring`'s `stale-coordinator` (its two elections racing after a crash): 88 without
/// bursts, 124 with half the seeds in a burst, 138 with every seed (the README's search tables
/// give every variant).
///
/// `rng` is the workload's generator once the workload is drawn: a copy of it is drawn from,
/// so whatever a completion draws from the generator after the workload is unchanged.
pub fn input_burst(rng: &SimRng, active_ms: u64) -> Option<InputBurst> {
    let mut rng = rng.clone();
    if !rng.chance(INPUT_BURST_SHARE) {
        return None;
    }
    let active_ms = active_ms.max(1);
    let width_ms = rng.range_u64(active_ms / 20, active_ms / 4).max(1);
    let start_ms = rng.range_u64(0, active_ms - width_ms);
    Some(InputBurst {
        start_ms,
        width_ms,
        active_ms,
    })
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions {
            nodes_min: 3,
            nodes_max: 6,
            active_ms: 1_000,
            beyond_model: false,
            engine: EngineKind::Native,
            only: None,
            strategy: Strategy::Mix,
            phase_swarm: false,
        }
    }
}

impl GenOptions {
    /// Why scenarios cannot be generated with these options, naming the field and its range,
    /// or `None`. Generation assumes they are valid (a node count of `usize::MAX` would not fit
    /// in memory), so every campaign checks them first: `sincro fuzz` with its flags' names,
    /// `sincro::testing::check` with its builder's, a library campaign with these.
    pub fn error(&self) -> Option<String> {
        if self.nodes_min == 0 || self.nodes_min > self.nodes_max {
            return Some(format!(
                "need 1 <= nodes_min <= nodes_max, got {} and {}",
                self.nodes_min, self.nodes_max
            ));
        }
        if self.nodes_max > crate::scenario::MAX_NODES {
            return Some(format!(
                "nodes_max = {} is above the limit of {}",
                self.nodes_max,
                crate::scenario::MAX_NODES
            ));
        }
        if !(10..=crate::MAX_TIME_MS).contains(&self.active_ms) {
            return Some(format!(
                "active_ms = {} is outside 10 ..= {} ms",
                self.active_ms,
                crate::MAX_TIME_MS
            ));
        }
        if self.engine == EngineKind::Turmoil
            && matches!(self.strategy, Strategy::Pct | Strategy::Pos)
        {
            // It ran as `random` and said nothing.
            return Some(format!(
                "strategy {} shapes every message's delay, and the turmoil engine draws its \
                 own: use the native or madsim engine, or strategy random or moments (mix \
                 runs on turmoil with random delays)",
                self.strategy.name()
            ));
        }
        None
    }

    /// These options with at least `nodes_min` nodes (the range raised to it where it
    /// starts, or ends, below): an algorithm that needs more nodes than a campaign asks for.
    pub fn with_nodes_at_least(&self, nodes_min: usize) -> GenOptions {
        GenOptions {
            nodes_min: self.nodes_min.max(nodes_min),
            nodes_max: self.nodes_max.max(nodes_min),
            ..self.clone()
        }
    }

    /// These options with the active phase of `draft` (its seed's [`phase_ms`]): what to
    /// complete, mutate or add faults to a draft with.
    pub fn for_draft(&self, draft: &Draft) -> GenOptions {
        GenOptions {
            active_ms: draft.active_ms,
            ..self.clone()
        }
    }
}

/// The factors of `active_ms` a seed's phase is drawn among, with [`GenOptions::phase_swarm`].
///
/// No one length suits every bug: a short phase packs the workload and the faults together,
/// a long one leaves room for more rounds of a protocol. Guided campaigns of 20,000 seeds at
/// seed 0 (default mix, `--keep-going --no-shrink`), failing seeds of `stale-coordinator`,
/// `volatile-vote`, `forget-promise` and `clock-fresh-ok` with every phase at 250, 500,
/// 1,000, 2,000 and 4,000 ms: 2, 6, 107, 448; 3, 19, 32, 648; 6, 12, 117, 123; 5, 38, 266, 28;
/// 8, 12, 657, 6 (README, "Search strategies").
/// Swarm testing (Groce et al., ISSTA 2012): drawing the configuration per seed gets near
/// the best of each without knowing which bug is there.
pub const PHASE_FACTORS: [(u64, u64); 5] = [(1, 4), (1, 2), (1, 1), (2, 1), (4, 1)];

/// The active phase of `seed`'s scenario, ms: `opts.active_ms` (at least 10), or with
/// [`GenOptions::phase_swarm`] one of [`PHASE_FACTORS`] times it, drawn on a stream of its own
/// (within 10 ..= [`MAX_TIME_MS`](crate::MAX_TIME_MS)).
pub fn phase_ms(seed: u64, opts: &GenOptions) -> u64 {
    let active = opts.active_ms.max(10);
    if !opts.phase_swarm {
        return active;
    }
    let (num, den) = PHASE_FACTORS[SimRng::derive(seed, 0xFA5E).index(PHASE_FACTORS.len())];
    (active.saturating_mul(num) / den).clamp(10, crate::MAX_TIME_MS.max(active))
}

/// A generated scenario before the algorithm adds its workload and sets its duration.
#[derive(Clone, Debug)]
pub struct Draft {
    /// The scenario so far (no workload; `duration_ms` = end of the active phase).
    pub scenario: Scenario,
    /// Fault classes switched on in this run.
    pub swarm: Vec<FaultClass>,
    /// Generator for the workload (derived from the seed, independent of the fault draws).
    pub workload_rng: SimRng,
    /// How many faults at protocol moments the algorithm should add ([`Strategy::Moments`]).
    pub moments: usize,
    /// The length of its active phase, ms ([`phase_ms`]): faults and workload fall inside it.
    pub active_ms: u64,
}

/// The smallest latency the generator draws for the madsim engine, ms (its transport floor,
/// see `engine::madsim`).
pub const MADSIM_LATENCY_MS_MIN: f64 = 3.0;

/// Draws a scenario skeleton for `algorithm`/`variant` from `seed`.
pub fn generate(
    algorithm: &str,
    variant: &str,
    seed: u64,
    model: &FaultModel,
    opts: &GenOptions,
) -> Draft {
    let mut rng = SimRng::derive(seed, 0x6E6E);
    let nodes = rng.range_u64(
        opts.nodes_min as u64,
        opts.nodes_max.max(opts.nodes_min) as u64,
    ) as usize;
    let active = phase_ms(seed, opts);
    let swarm: Vec<FaultClass> = match opts.only {
        Some(FaultClass::Delays) => Vec::new(),
        Some(c) => vec![c],
        None => {
            let allowed = |c: FaultClass| opts.beyond_model || model.allows(c);
            let mut swarm: Vec<FaultClass> = FaultClass::ALL
                .into_iter()
                .filter(|&c| c != FaultClass::Delays && c != FaultClass::CrashStop && allowed(c))
                .filter(|_| rng.chance(0.5))
                .collect();
            // Crash-stop is drawn from a stream of its own, so that adding it left every other
            // draw of a seed unchanged.
            let stop_allowed = opts.beyond_model || model.crash_stop_allowed(nodes);
            if stop_allowed && SimRng::derive(seed, 0xC5).chance(0.5) {
                swarm.push(FaultClass::CrashStop);
            }
            swarm
        }
    };
    let on = |c: FaultClass| swarm.contains(&c);

    let lat_min = rng.range_u64(1, 5) as f64;
    // madsim's transport takes 2 ms (3 for a message sent while the sender's endpoint is
    // being bound), whatever the latency: a faster link cannot be simulated there, and would
    // break the timing bound an algorithm derives from it. (Same draws, so a seed's other
    // choices are the same on every engine.)
    let lat_min = match opts.engine {
        EngineKind::Madsim => lat_min.max(MADSIM_LATENCY_MS_MIN),
        _ => lat_min,
    };
    let latency = if rng.chance(0.5) {
        Latency::Uniform {
            min_ms: lat_min,
            max_ms: lat_min + rng.range_u64(0, 40) as f64,
        }
    } else {
        let mean = lat_min + rng.range_u64(1, 10) as f64;
        Latency::Exponential {
            min_ms: lat_min,
            mean_ms: mean,
            max_ms: mean * 4.0,
        }
    };
    let mut network = NetworkSpec {
        latency,
        ..Default::default()
    };
    let mut faults = Vec::new();
    let mut restore = LinkOverride {
        from: None,
        to: None,
        latency: None,
        loss: None,
        duplicate: None,
        reorder: None,
    };
    if on(FaultClass::Loss) {
        network.loss = [0.01, 0.05, 0.2][rng.index(3)];
        restore.loss = Some(0.0);
    }
    if on(FaultClass::Duplication) {
        network.duplicate = [0.01, 0.05, 0.2][rng.index(3)];
        restore.duplicate = Some(0.0);
    }
    if on(FaultClass::Reordering) {
        network.reorder = [0.1, 0.5, 1.0][rng.index(3)];
    }
    let mut clocks = ClockSpec::default();
    if on(FaultClass::ClockDrift) {
        clocks.rho_ppm = [10.0, 100.0, f64::from(GEN_DRIFT_PPM_MAX)][rng.index(3)];
        clocks.offset_ms_max = rng.range_u64(0, 50) as f64;
        for _ in 0..rng.range_u64(0, 3) {
            let node = rng.index(nodes);
            let drift_ppm = (rng.unit() * 2.0 - 1.0) * clocks.rho_ppm;
            faults.push(TimedFault {
                at_ms: rng.range_u64(0, active),
                fault: Fault::DriftChange { node, drift_ppm },
            });
        }
    }
    let window = |rng: &mut SimRng, max_len: u64| {
        let start = rng.range_u64(0, active - 1);
        let end = (start + rng.range_u64(1, max_len)).min(active);
        (start, end)
    };
    if on(FaultClass::Partitions) {
        for _ in 0..rng.range_u64(1, 3) {
            let (a, b) = window(&mut rng, active / 2);
            let mut side: Vec<NodeId> = (0..nodes).filter(|_| rng.chance(0.5)).collect();
            if side.is_empty() || side.len() == nodes {
                side = vec![rng.index(nodes)];
            }
            // one node alone cuts nothing: drawn all the same, to keep the seed's stream
            if nodes < 2 {
                continue;
            }
            faults.push(TimedFault {
                at_ms: a,
                fault: Fault::Partition { groups: vec![side] },
            });
            faults.push(TimedFault {
                at_ms: b,
                fault: Fault::Heal,
            });
        }
    }
    if on(FaultClass::OnewayPartitions) {
        for _ in 0..rng.range_u64(1, 3) {
            let (a, b) = window(&mut rng, active / 2);
            let from = vec![rng.index(nodes)];
            let mut to: Vec<NodeId> = (0..nodes)
                .filter(|&x| x != from[0] && rng.chance(0.5))
                .collect();
            // an empty side would cut nothing: the next node then (no draw, so the rest of
            // the seed's stream is the same); one node alone has no link to cut
            if to.is_empty() {
                if nodes < 2 {
                    continue;
                }
                to = vec![(from[0] + 1) % nodes];
            }
            faults.push(TimedFault {
                at_ms: a,
                fault: Fault::PartitionOneway { from, to },
            });
            faults.push(TimedFault {
                at_ms: b,
                fault: Fault::Heal,
            });
        }
    }
    if on(FaultClass::Crashes) {
        for _ in 0..rng.range_u64(1, 2) {
            let (a, b) = window(&mut rng, active / 2);
            let node = rng.index(nodes);
            faults.push(TimedFault {
                at_ms: a,
                fault: Fault::Crash { node },
            });
            faults.push(TimedFault {
                at_ms: b,
                fault: Fault::Restart { node },
            });
        }
    }
    if on(FaultClass::Pauses) {
        for _ in 0..rng.range_u64(1, 4) {
            let (a, b) = window(&mut rng, 300);
            let node = rng.index(nodes);
            faults.push(TimedFault {
                at_ms: a,
                fault: Fault::Pause { node },
            });
            faults.push(TimedFault {
                at_ms: b,
                fault: Fault::Resume { node },
            });
        }
    }
    if on(FaultClass::ClockJumps) {
        for _ in 0..rng.range_u64(1, 3) {
            let node = rng.index(nodes);
            let size = rng.range_u64(1, u64::from(GEN_CLOCK_JUMP_MS_MAX)) as f64;
            let delta_ms = if rng.chance(0.5) { size } else { -size };
            faults.push(TimedFault {
                at_ms: rng.range_u64(0, active),
                fault: Fault::ClockJump { node, delta_ms },
            });
        }
    }
    if on(FaultClass::DelaySpikes) {
        // Drawn last, so switching the class on leaves every other draw of the seed unchanged.
        for _ in 0..rng.range_u64(1, 2) {
            let (a, b) = window(&mut rng, active / 4);
            let node = rng.index(nodes);
            let spike_ms = [100.0, 300.0, 1000.0, 3000.0][rng.index(4)];
            let over = |latency: Latency| LinkOverride::latency_from(node, latency);
            faults.push(TimedFault {
                at_ms: a,
                fault: Fault::SetLinks(Box::new(over(Latency::Constant { ms: spike_ms }))),
            });
            faults.push(TimedFault {
                at_ms: b,
                fault: Fault::SetLinks(Box::new(over(network.latency.clone()))),
            });
        }
    }
    if on(FaultClass::CrashStop) {
        // One node crashes for good, at a time of the active phase, and is never restarted: a
        // node the crashes above do not touch (so no restart of theirs brings it back).
        let mut stop_rng = SimRng::derive(seed, 0xC6);
        let touched: Vec<NodeId> = faults
            .iter()
            .filter(|f| matches!(f.fault, Fault::Crash { .. } | Fault::Restart { .. }))
            .filter_map(|f| f.fault.node())
            .collect();
        let free: Vec<NodeId> = (0..nodes).filter(|n| !touched.contains(n)).collect();
        if !free.is_empty() {
            let node = free[stop_rng.index(free.len())];
            faults.push(TimedFault {
                at_ms: stop_rng.range_u64(0, active - 1),
                fault: Fault::Crash { node },
            });
        }
    }
    // Heal everything at the end of the active phase, so liveness can be judged after it.
    if on(FaultClass::Partitions) || on(FaultClass::OnewayPartitions) {
        faults.push(TimedFault {
            at_ms: active,
            fault: Fault::Heal,
        });
    }
    if restore.loss.is_some() || restore.duplicate.is_some() {
        faults.push(TimedFault {
            at_ms: active,
            fault: Fault::SetLinks(Box::new(restore)),
        });
    }
    faults.sort_by_key(|f| f.at_ms); // stable: a pair keeps its order at equal times
    let (schedule, moments) = opts.strategy.draw(seed, nodes, active, opts.engine);

    let mut scenario = Scenario {
        name: format!("{algorithm}-{variant}-seed{seed}"),
        description: format!(
            "generated from seed {seed}; swarm: {}{}{}",
            if swarm.is_empty() {
                "delays only".to_string()
            } else {
                swarm
                    .iter()
                    .map(|c| c.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            if schedule.is_random() {
                String::new()
            } else {
                format!("; schedule: {}", schedule.label())
            },
            if active == opts.active_ms.max(10) {
                String::new()
            } else {
                format!("; active phase {active} ms")
            }
        ),
        algorithm: algorithm.into(),
        variant: variant.into(),
        params: serde_json::Value::Null,
        nodes,
        seed,
        engine: opts.engine,
        duration_ms: active,
        network,
        schedule,
        clocks,
        faults,
        workload: Vec::new(),
        checks: CheckSpec::default(),
        limits: Limits::for_nodes(nodes),
        expect: None,
        engine_exceptions: Vec::new(),
    };
    model.fit_clocks(&mut scenario);
    Draft {
        scenario,
        swarm,
        workload_rng: SimRng::derive(seed, 0x3011),
        moments,
        active_ms: active,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(t: Vec<FaultClass>) -> FaultModel {
        FaultModel {
            tolerates: t,
            summary: "",
            ..FaultModel::default()
        }
    }

    #[test]
    fn generation_is_deterministic_and_valid() {
        let m = model(FaultClass::ALL.to_vec());
        for seed in 0..200 {
            let a = generate("x", "correct", seed, &m, &GenOptions::default());
            let b = generate("x", "correct", seed, &m, &GenOptions::default());
            assert_eq!(a.scenario, b.scenario);
            a.scenario
                .validate()
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(a
                .scenario
                .faults
                .windows(2)
                .all(|w| w[0].at_ms <= w[1].at_ms));
        }
    }

    /// Generated scenarios keep the default limits in small groups; the steps grow with n²
    /// above 31 nodes and the messages in flight are 200 · n² above 22, each up to its cap.
    #[test]
    fn generated_limits_grow_with_the_square_of_the_node_count() {
        let m = model(FaultClass::ALL.to_vec());
        for (nodes, events, in_flight) in [
            (6, 10_000_000, 100_000),
            (31, 10_000_000, 192_200),
            (50, 26_014_568, 500_000),
            (141, 206_878_251, 3_976_200),
            (200, 416_233_090, 4_000_000),
            (1000, Limits::MAX_EVENTS, 4_000_000),
        ] {
            let opts = GenOptions {
                nodes_min: nodes,
                nodes_max: nodes,
                ..GenOptions::default()
            };
            let d = generate("x", "correct", 1, &m, &opts);
            assert_eq!(d.scenario.nodes, nodes);
            let l = &d.scenario.limits;
            assert_eq!(
                (l.max_events, l.max_in_flight),
                (events, in_flight),
                "{nodes} nodes"
            );
            let rest = Limits {
                max_events: Limits::default().max_events,
                max_in_flight: Limits::default().max_in_flight,
                ..l.clone()
            };
            assert_eq!(rest, Limits::default(), "only those two grow");
            d.scenario.validate().unwrap();
        }
    }

    #[test]
    fn the_mix_draws_each_strategy_at_its_weight() {
        // random 1/15, PCT 1/15, POS 1/15, moments 10/15, PCT with moments 2/15
        let mut seen = [0usize; 5];
        let draws = 15_000;
        for seed in 0..draws {
            let k = match Strategy::Mix.draw(seed, 4, 1000, EngineKind::Native) {
                (Schedule::Random, 0) => 0,
                (Schedule::Pct { .. }, 0) => 1,
                (Schedule::Pos, 0) => 2,
                (Schedule::Random, _) => 3,
                (Schedule::Pct { .. }, _) => 4,
                other => panic!("seed {seed}: unexpected draw {other:?}"),
            };
            seen[k] += 1;
        }
        for (k, weight) in [1, 1, 1, 10, 2].into_iter().enumerate() {
            let want = draws as f64 * f64::from(weight) / 15.0;
            let got = seen[k] as f64;
            assert!(
                (got - want).abs() < 5.0 * want.sqrt(),
                "strategy {k}: {got} draws, {want} expected ({seen:?})"
            );
        }
    }

    /// Half the seeds squeeze their inputs into one window inside the active phase, in the
    /// same order; the workload's generator is not advanced.
    #[test]
    fn an_input_burst_keeps_the_order_inside_a_window_of_the_phase() {
        let active = 1000;
        let mut bursts = 0;
        for seed in 0..2000 {
            let rng = SimRng::derive(seed, 0x3011);
            let before = rng.clone().next_u64();
            let Some(b) = input_burst(&rng, active) else {
                continue;
            };
            assert_eq!(rng.clone().next_u64(), before, "the generator moved");
            bursts += 1;
            assert!((active / 20..=active / 4).contains(&b.width_ms), "{b:?}");
            assert!(b.start_ms + b.width_ms <= active, "{b:?}");
            let times: Vec<u64> = (0..=active).step_by(7).map(|t| b.squeeze(t)).collect();
            assert!(times.windows(2).all(|w| w[0] <= w[1]), "{b:?}");
            assert_eq!(b.squeeze(0), b.start_ms);
            assert_eq!(b.squeeze(active), b.start_ms + b.width_ms);
            assert_eq!(
                b.squeeze(active + 5),
                active + 5,
                "after the phase: left alone"
            );
        }
        assert!((900..1100).contains(&bursts), "{bursts} bursts of 2000");
        // a phase shorter than 20 ms still makes a window of 1 ms, and huge times do not wrap
        let b = (0..)
            .find_map(|seed| input_burst(&SimRng::new(seed), 3))
            .unwrap();
        assert!(b.width_ms >= 1 && b.start_ms + b.width_ms <= 3, "{b:?}");
        let wide = InputBurst {
            start_ms: 0,
            width_ms: crate::MAX_TIME_MS,
            active_ms: crate::MAX_TIME_MS,
        };
        assert_eq!(wide.squeeze(crate::MAX_TIME_MS), crate::MAX_TIME_MS);
    }

    #[test]
    fn moment_rounds_are_uniform_from_1_to_the_max() {
        let mut rng = SimRng::derive(7, 1);
        let mut seen = vec![0usize; MOMENT_ROUNDS_MAX + 1];
        for _ in 0..1_000 * MOMENT_ROUNDS_MAX {
            seen[moment_rounds(&mut rng)] += 1;
        }
        assert_eq!(seen[0], 0);
        // Each count of rounds about 1,000 times in 1,000 draws per count.
        assert!(
            seen[1..].iter().all(|&c| (800..1200).contains(&c)),
            "{seen:?}"
        );
        // A moments seed draws its rounds from it; a strategy without moments adds none.
        let (_, rounds) = Strategy::Moments.draw(3, 4, 1000, EngineKind::Native);
        assert!((1..=MOMENT_ROUNDS_MAX).contains(&rounds));
        assert_eq!(Strategy::Pos.draw(3, 4, 1000, EngineKind::Native).1, 0);
    }

    #[test]
    fn madsim_scenarios_have_no_link_faster_than_its_transport() {
        let m = model(FaultClass::ALL.to_vec());
        let min_of = |l: &Latency| match *l {
            Latency::Uniform { min_ms, .. } | Latency::Exponential { min_ms, .. } => min_ms,
            ref other => panic!("unexpected law {other:?}"),
        };
        let (mut fast_native, mut all_madsim_ok) = (0, true);
        for seed in 0..200 {
            let native = generate("x", "correct", seed, &m, &GenOptions::default());
            let opts = GenOptions {
                engine: EngineKind::Madsim,
                ..GenOptions::default()
            };
            let madsim = generate("x", "correct", seed, &m, &opts);
            fast_native += usize::from(min_of(&native.scenario.network.latency) < 3.0);
            all_madsim_ok &= min_of(&madsim.scenario.network.latency) >= MADSIM_LATENCY_MS_MIN;
            // Everything else is the seed's: same nodes, same faults.
            assert_eq!(native.scenario.nodes, madsim.scenario.nodes);
            assert_eq!(native.scenario.faults.len(), madsim.scenario.faults.len());
        }
        assert!(fast_native > 50, "{fast_native}");
        assert!(all_madsim_ok);
    }

    #[test]
    fn only_the_model_unless_beyond() {
        let m = model(vec![FaultClass::Pauses]);
        let mut saw_pause = false;
        for seed in 0..100 {
            let d = generate("x", "correct", seed, &m, &GenOptions::default());
            assert!(d.swarm.iter().all(|&c| c == FaultClass::Pauses));
            assert!(d
                .scenario
                .faults
                .iter()
                .all(|f| f.fault.class() == FaultClass::Pauses));
            assert_eq!(d.scenario.network.loss, 0.0);
            saw_pause |= !d.scenario.faults.is_empty();
        }
        assert!(saw_pause, "the swarm never switched pauses on");
        let opts = GenOptions {
            beyond_model: true,
            ..Default::default()
        };
        let any_crash = (0..100).any(|s| {
            generate("x", "correct", s, &m, &opts)
                .swarm
                .contains(&FaultClass::Crashes)
        });
        assert!(any_crash);
    }

    #[test]
    fn crash_stop_is_drawn_only_when_the_model_lets_a_node_stay_dead() {
        let restart_only = model(vec![FaultClass::Crashes]);
        let stop_too = model(vec![FaultClass::Crashes, FaultClass::CrashStop]);
        let mut stopped = 0;
        for seed in 0..200 {
            let a = generate("x", "correct", seed, &restart_only, &GenOptions::default());
            assert!(
                !a.scenario.fault_classes().contains(&FaultClass::CrashStop),
                "seed {seed}: a crash without restart outside the model"
            );
            let b = generate("x", "correct", seed, &stop_too, &GenOptions::default());
            b.scenario.validate().unwrap();
            let classes = b.scenario.fault_classes();
            assert_eq!(
                classes.contains(&FaultClass::CrashStop),
                b.swarm.contains(&FaultClass::CrashStop),
                "seed {seed}: {:?}",
                b.scenario.faults
            );
            stopped += usize::from(classes.contains(&FaultClass::CrashStop));
            // Switching crash-stop into the model leaves the other draws of the seed alone.
            let mut without: Vec<_> = b.swarm.clone();
            without.retain(|&c| c != FaultClass::CrashStop);
            assert_eq!(without, a.swarm, "seed {seed}");
            assert_eq!(a.scenario.nodes, b.scenario.nodes);
        }
        assert!(
            (50..150).contains(&stopped),
            "crash-stop in {stopped} of 200 seeds"
        );
    }

    /// A quorum model leaves a node down for good only when the others are a majority: never
    /// at 1 or 2 nodes (no leader could be elected after it, so its liveness would fail a
    /// correct algorithm), as often as without the flag from 3 nodes on.
    #[test]
    fn a_majority_model_stops_a_node_for_good_only_when_a_majority_stays_up() {
        let mut quorum = model(vec![FaultClass::Crashes, FaultClass::CrashStop]);
        quorum.majority_for_liveness = true;
        let plain = model(vec![FaultClass::Crashes, FaultClass::CrashStop]);
        for nodes in 1..=5 {
            let opts = GenOptions {
                nodes_min: nodes,
                nodes_max: nodes,
                ..GenOptions::default()
            };
            let (mut q_stops, mut p_stops) = (0, 0);
            for seed in 0..100 {
                let stops = |m: &FaultModel| {
                    let d = generate("x", "correct", seed, m, &opts);
                    usize::from(d.scenario.fault_classes().contains(&FaultClass::CrashStop))
                };
                q_stops += stops(&quorum);
                p_stops += stops(&plain);
            }
            assert!(p_stops > 10, "{nodes} nodes: {p_stops}");
            assert_eq!(
                q_stops,
                if nodes < 3 { 0 } else { p_stops },
                "{nodes} nodes"
            );
            assert_eq!(quorum.crash_stop_allowed(nodes), nodes >= 3);
        }
    }

    #[test]
    fn only_forces_a_single_class_even_outside_the_model() {
        let m = model(vec![FaultClass::Pauses]);
        for class in FaultClass::ALL {
            let opts = GenOptions {
                only: Some(class),
                ..Default::default()
            };
            let mut saw_fault = false;
            for seed in 0..50 {
                let d = generate("x", "correct", seed, &m, &opts);
                d.scenario.validate().unwrap();
                if class == FaultClass::Delays {
                    assert!(d.swarm.is_empty());
                    assert!(d.scenario.faults.is_empty());
                } else {
                    assert_eq!(d.swarm, vec![class], "seed {seed}");
                }
                // Heals and restores at the end of the active phase belong to the class too.
                assert!(d.scenario.fault_classes().into_iter().all(|c| {
                    c == class
                        || (class == FaultClass::OnewayPartitions && c == FaultClass::Partitions)
                        || c == FaultClass::Delays
                }));
                saw_fault |= !d.scenario.faults.is_empty()
                    || d.scenario.network.loss > 0.0
                    || d.scenario.network.duplicate > 0.0
                    || d.scenario.network.reorder > 0.0
                    || d.scenario.clocks.rho_ppm > 0.0;
            }
            assert!(
                saw_fault || class == FaultClass::Delays,
                "{class:?} never drawn"
            );
        }
    }

    /// The largest drift and clock jump of a scenario: the drift bound, every per-node drift
    /// and drift change, every jump.
    fn clock_extremes(sc: &Scenario) -> (f64, f64, f64) {
        let drift = sc
            .faults
            .iter()
            .filter_map(|f| match f.fault {
                Fault::DriftChange { drift_ppm, .. } => Some(drift_ppm.abs()),
                _ => None,
            })
            .chain(sc.clocks.nodes.iter().map(|n| n.drift_ppm.abs()))
            .fold(0.0, f64::max);
        let jump = sc
            .faults
            .iter()
            .filter_map(|f| match f.fault {
                Fault::ClockJump { delta_ms, .. } => Some(delta_ms.abs()),
                _ => None,
            })
            .fold(0.0, f64::max);
        (sc.clocks.rho_ppm, drift, jump)
    }

    #[test]
    fn clock_caps_of_the_model_bound_every_generated_clock_fault() {
        let open = model(vec![FaultClass::ClockDrift, FaultClass::ClockJumps]);
        let capped = FaultModel {
            drift_ppm_max: Some(40),
            clock_jump_ms_max: Some(20),
            ..open.clone()
        };
        let (mut over_rho, mut over_jump) = (false, false);
        for seed in 0..300 {
            let o = generate("x", "correct", seed, &open, &GenOptions::default()).scenario;
            let c = generate("x", "correct", seed, &capped, &GenOptions::default()).scenario;
            let (rho_o, drift_o, jump_o) = clock_extremes(&o);
            let (rho_c, drift_c, jump_c) = clock_extremes(&c);
            over_rho |= rho_o > 40.0;
            over_jump |= jump_o > 20.0;
            // Without caps the generator draws up to 1000 ppm and 500 ms; with them never more.
            assert!(rho_o <= f64::from(GEN_DRIFT_PPM_MAX) && jump_o <= 500.0);
            assert!(
                rho_c <= 40.0 && drift_c <= rho_c && jump_c <= 20.0,
                "seed {seed}"
            );
            // Scaled, not redrawn: the same faults at the same times, smaller.
            assert_eq!(o.faults.len(), c.faults.len());
            assert!(drift_c <= drift_o && jump_c <= jump_o);
            if jump_o > 0.0 {
                assert!((jump_c - (jump_o * 20.0 / 500.0).min(20.0)).abs() < 1e-9);
            }
            c.validate().unwrap();
        }
        assert!(over_rho && over_jump, "300 seeds never drew past the caps");
    }

    /// Off, every seed's phase is `active_ms`; on, each of ¼, ½, 1, 2 and 4 times it is drawn, the
    /// seed's faults fall inside its own phase, the description names a changed phase, and the
    /// other draws of the seed (nodes, swarm, network) do not move.
    #[test]
    fn a_phase_swarm_draws_each_seeds_active_phase() {
        let m = model(vec![FaultClass::Partitions, FaultClass::Crashes]);
        let fixed = GenOptions::default();
        let swarm = GenOptions {
            phase_swarm: true,
            ..GenOptions::default()
        };
        let mut seen = std::collections::BTreeMap::new();
        for seed in 0..300 {
            let f = generate("x", "correct", seed, &m, &fixed);
            assert_eq!(f.active_ms, 1_000);
            let d = generate("x", "correct", seed, &m, &swarm);
            assert_eq!(d.active_ms, phase_ms(seed, &swarm));
            *seen.entry(d.active_ms).or_insert(0) += 1;
            assert_eq!(d.scenario.duration_ms, d.active_ms);
            assert!(d.scenario.quiet_from_ms() <= d.active_ms, "seed {seed}");
            let named = d.scenario.description.contains("active phase");
            assert_eq!(named, d.active_ms != 1_000, "{}", d.scenario.description);
            assert_eq!(
                (d.scenario.nodes, &d.swarm, &d.scenario.network),
                (f.scenario.nodes, &f.swarm, &f.scenario.network)
            );
            assert_eq!(swarm.for_draft(&d).active_ms, d.active_ms);
            // The same seed, the same phase.
            assert_eq!(
                generate("x", "correct", seed, &m, &swarm).active_ms,
                d.active_ms
            );
        }
        let phases: Vec<u64> = seen.keys().copied().collect();
        assert_eq!(phases, vec![250, 500, 1_000, 2_000, 4_000], "{seen:?}");
        assert!(seen.values().all(|&c| c > 35), "{seen:?}");
        // A long phase's faults go past the nominal one.
        let past = (0..300)
            .map(|seed| generate("x", "correct", seed, &m, &swarm))
            .any(|d| d.scenario.quiet_from_ms() > 1_000);
        assert!(past);
        // Within the limits, whatever `active_ms`.
        let huge = GenOptions {
            active_ms: crate::MAX_TIME_MS,
            ..swarm.clone()
        };
        let tiny = GenOptions {
            active_ms: 10,
            ..swarm
        };
        for seed in 0..30 {
            assert!(phase_ms(seed, &huge) <= crate::MAX_TIME_MS);
            assert!(phase_ms(seed, &tiny) >= 10);
        }
    }
}
