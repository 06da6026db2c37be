//! Eventual leader Ω for a dynamic shared-memory system: Khouri & Greve, Algorithm 1
//! (seed 004, §4).
//!
//! Code for process `p_i`, over atomic 1-writer/n-reader registers
//! ([`sincro_harness::shm`]):
//! - `Alive[i]` (register `ALIVE[0]` of `i`): TASK 1 keeps incrementing it (lines 4–6).
//! - `Punishments[i][j]` (register `PUNISHMENTS[j]` of `i`): how often `i` punished `j`.
//! - TASK 0 (line 3), upon the `join()` of `p_r`:
//!   `Punishments[i][r] ← Punishments[i][leader()] + 1`, so the newcomer starts more
//!   suspected than the current leader (Lemma 4).
//! - TASK 2 (lines 7–18): `updated ← {i}`; while `|updated| < α`, one pass over every
//!   member not yet updated reads `Alive[j]` and adds `j` when it changed since the last read
//!   (the pass is not cut short once `α` is reached, as in the text); then every member not
//!   updated is punished (read `Punishments[i][j]`, write it + 1).
//! - `leader()` (lines 19–25): the member `j` with the least `(Σ_k Punishments[k][j], j)`.
//!
//! **What α changes.** Line 9 tests `|updated| < α` only between full passes, so α changes a
//! round only when a full pass finds fewer than `α − 1` other members updated (slow, crashed
//! or departed ones). When every pass finds more, any smaller α gives the same reads,
//! punishments and trace, step for step: at equal speeds, α = 2 and α = 6 of 8 processes
//! run alike. With α = |STABLE| a round waits until every stable process has moved, so no
//! stable process is punished any more and the leadership settles within a few rounds of the
//! last crash; a smaller α punishes slow stable processes and the leadership wanders longer;
//! α > |STABLE| ends no round once too few processes are left (`sincro table omega`
//! measures all three).
//!
//! Steps: a process alternates TASK 1 (even local steps) with TASK 2 (odd ones); every
//! `leader_every`-th odd step is a `leader()` query instead, reported to the trace. Each step
//! is one memory operation; `leader()` is modelled as one atomic snapshot (the text reads the
//! `n²` registers one by one; a snapshot is a stronger, shorter model of the same query), and
//! so is the `leader()` inside TASK 0.
//!
//! **Departed members and Lemma 4 (a deviation, on by default).** The text has every member
//! run TASK 0 at a `join()`; a crashed or departed process takes no step, so it cannot, and
//! its `Punishments[k][r]` about the newcomer stays 0 while its punishments of the leader
//! still count: the newcomer's sum comes out below the leader's and demotes it, the very
//! thing Lemma 4 rules out (its proof assumes every `Punishments[k][r]` was written). The
//! simulator therefore runs TASK 0 for departed members too, from their frozen state
//! (param `join_covers_departed`, default `true`, `harness::shm::World`); with `false`, the
//! text as written, the correct variant breaks `newcomer_never_demotes` (stop 64's probe: 3
//! processes, p0 crashed at step 1,400, a join at 1,500).
//!
//! Fault model (§2): asynchronous processes of unknown, varying speeds; finite arrival;
//! crashes and departures (a returning process is a new one). Eventual leadership needs
//! `|STABLE| ≥ α` and Property 1 (the memory access pattern): from some time on, some stable
//! process is always among the processes each stable process finds updated.
//!
//! Variants: `join-zero` initializes the newcomer's punishments to 0 instead of one more
//! than the leader's (a newcomer demotes the elected stable leader: Lemma 4 caught);
//! `never-punish` skips the writes of lines 17–18 (a crashed leader stays elected: Lemma 3
//! and eventual leadership caught).
//!
//! **Running it** (`omega.khouri-greve`, [`OmegaKhouriGreve`]): it runs on the shared-memory
//! model ([`sincro_harness::shm`]), not on the message-passing engines, so it is a
//! hand-written [`Algorithm`] rather than a [`Spec`](crate::spec::Spec) (whose nodes are
//! [`Process`](sincro_harness::Process)es run by `sincro_harness::engine::run`). Scenario
//! mapping: `nodes` = processes present at step 0; `duration_ms` × 1000 = steps (one step is
//! 1 µs of global time); everything else is in `params` ([`Params`]): α, the churn, the
//! speeds, the timely process (when the memory-access-pattern property is arranged) and the
//! judged suffix. `faults`, `network`, `clocks` and `workload` do not apply and must be
//! empty. The shared-memory trace is converted to a harness trace (leader changes as `leader`
//! observations, crashes as crash faults, the rest as notes) so `show` and `replay` work on
//! it.

use crate::spec::{parse_params, Variant as _};
use crate::{Algorithm, AlgorithmInfo, VariantInfo};
use serde::{Deserialize, Serialize};
use sincro_checkers::omega::{self as check, OmegaReport, OMEGA_PROPERTIES};
use sincro_harness::engine::{Outcome, RunOptions, Stats, Verdict};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::gen::{self, Draft, GenOptions};
use sincro_harness::shm::{
    Churn, ChurnEvent, Memory, Pid, Reg, ShmConfig, ShmCtx, ShmOutcome, ShmProcess, Speeds, Timely,
    World, NS_PER_STEP,
};
use sincro_harness::{Scenario, ScenarioError, SimRng, Violation, WorkloadItem};

/// Register array `Alive` (index 0).
pub const ALIVE: u32 = 0;
/// Register array `Punishments` (index: the punished process).
pub const PUNISHMENTS: u32 = 1;

crate::variants! {
    /// Which version of the algorithm runs.
    pub enum Variant {
        Correct = "correct", "Algorithm 1 as in the text";
        JoinZero = "join-zero" (buggy), "TASK 0 initializes the newcomer's punishments to 0: a newcomer demotes the stable leader (Lemma 4)";
        NeverPunish = "never-punish" (buggy), "TASK 2 never writes a punishment: a crashed leader stays elected (Lemma 3)";
    }
}

/// `Punishments[k][j]`.
pub fn punishments(k: Pid, j: Pid) -> Reg {
    Reg {
        owner: k,
        name: PUNISHMENTS,
        index: j as u64,
    }
}

/// `Alive[j]`.
pub fn alive(j: Pid) -> Reg {
    Reg {
        owner: j,
        name: ALIVE,
        index: 0,
    }
}

/// `leader()` over `members` (lines 19–25): the least `(Σ_k Punishments[k][j], j)`.
pub fn leader_of(mem: &Memory, members: &[Pid]) -> Option<Pid> {
    members
        .iter()
        .map(|&j| {
            let sum: u64 = members.iter().map(|&k| mem.get(punishments(k, j))).sum();
            (sum, j)
        })
        .min()
        .map(|(_, j)| j)
}

/// Where TASK 2 is.
#[derive(Clone, Debug)]
enum Phase {
    /// Line 8: a new round starts.
    Start,
    /// Lines 10–15: reading `Alive[queue[idx]]`.
    Scan { queue: Vec<Pid>, idx: usize },
    /// Lines 16–18: punishing `list[idx]`; `read` holds line 17's value once read.
    Punish {
        list: Vec<Pid>,
        idx: usize,
        read: Option<u64>,
    },
}

/// One process of Algorithm 1.
#[derive(Clone, Debug)]
pub struct Omega {
    variant: Variant,
    alpha: usize,
    leader_every: u64,
    /// `alive_i`.
    alive: u64,
    /// `last_alive_i[j]`, indexed by pid (0 past the end: never read).
    last_alive: Vec<u64>,
    /// `updated_i`, as a membership flag per pid (false past the end).
    updated: Vec<bool>,
    /// `|updated_i|`.
    updated_len: usize,
    phase: Phase,
    local_steps: u64,
    odd_steps: u64,
}

impl Omega {
    /// A process with parameter `alpha` (at least 1) that queries `leader()` every
    /// `leader_every`-th TASK 2 slot (at least 1).
    pub fn new(variant: Variant, alpha: usize, leader_every: u64) -> Self {
        Omega {
            variant,
            alpha: alpha.max(1),
            leader_every: leader_every.max(1),
            alive: 0,
            last_alive: Vec::new(),
            updated: Vec::new(),
            updated_len: 0,
            phase: Phase::Start,
            local_steps: 0,
            odd_steps: 0,
        }
    }

    fn not_updated(&self, members: &[Pid]) -> Vec<Pid> {
        members
            .iter()
            .copied()
            .filter(|&j| !self.is_updated(j))
            .collect()
    }

    fn is_updated(&self, j: Pid) -> bool {
        self.updated.get(j).copied().unwrap_or(false)
    }

    /// `updated_i ← updated_i ∪ {j}`.
    fn mark_updated(&mut self, j: Pid) {
        if self.updated.len() <= j {
            self.updated.resize(j + 1, false);
        }
        if !std::mem::replace(&mut self.updated[j], true) {
            self.updated_len += 1;
        }
    }

    /// One step of TASK 2: at most one memory operation.
    fn task2(&mut self, ctx: &mut ShmCtx<'_>) {
        let me = ctx.id();
        // Bounded: each transition without a memory operation moves the phase forward, and
        // at most one pass restarts per step.
        for _ in 0..4 {
            match &mut self.phase {
                Phase::Start => {
                    self.updated.fill(false);
                    self.updated_len = 0;
                    self.mark_updated(me);
                    self.phase = Phase::Scan {
                        queue: self.not_updated(ctx.members()),
                        idx: 0,
                    };
                    if self.updated_len >= self.alpha {
                        self.phase = Phase::Punish {
                            list: self.not_updated(ctx.members()),
                            idx: 0,
                            read: None,
                        };
                    }
                }
                Phase::Scan { queue, idx } => {
                    if let Some(&j) = queue.get(*idx) {
                        *idx += 1;
                        let v = ctx.read(alive(j));
                        if self.last_alive.get(j).copied().unwrap_or(0) != v {
                            if self.last_alive.len() <= j {
                                self.last_alive.resize(j + 1, 0);
                            }
                            self.last_alive[j] = v;
                            self.mark_updated(j);
                        }
                        return;
                    }
                    let rest = self.not_updated(ctx.members());
                    if self.updated_len < self.alpha {
                        // line 9: another pass
                        let empty = rest.is_empty();
                        self.phase = Phase::Scan {
                            queue: rest,
                            idx: 0,
                        };
                        if empty {
                            return; // nobody to read: an idle step
                        }
                    } else {
                        self.phase = Phase::Punish {
                            list: rest,
                            idx: 0,
                            read: None,
                        };
                    }
                }
                Phase::Punish { list, idx, read } => {
                    let Some(&j) = list.get(*idx) else {
                        let list = std::mem::take(list);
                        ctx.report_round(list);
                        self.phase = Phase::Start;
                        continue;
                    };
                    if self.variant == Variant::NeverPunish {
                        *idx = list.len();
                        continue;
                    }
                    match read.take() {
                        None => *read = Some(ctx.read(punishments(me, j))), // line 17
                        Some(v) => {
                            ctx.write(PUNISHMENTS, j as u64, v + 1); // line 18
                            *idx += 1;
                        }
                    }
                    return;
                }
            }
        }
    }
}

impl ShmProcess for Omega {
    fn on_join(&mut self, ctx: &mut ShmCtx<'_>) {
        // join(): the newcomer's registers, Alive[r] = 0 and Punishments[r][j] = 0.
        let me = ctx.id();
        ctx.write(ALIVE, 0, 0);
        let members = ctx.members().to_vec();
        for j in members.into_iter().chain([me]) {
            ctx.write(PUNISHMENTS, j as u64, 0);
        }
    }

    fn on_join_request(&mut self, ctx: &mut ShmCtx<'_>, newcomer: Pid) {
        // TASK 0, line 3.
        let value = match self.variant {
            Variant::JoinZero => 0,
            _ => {
                let members = ctx.members();
                let l = leader_of(ctx.snapshot(), members);
                match l {
                    Some(l) => ctx.read(punishments(ctx.id(), l)) + 1,
                    None => 0,
                }
            }
        };
        ctx.write(PUNISHMENTS, newcomer as u64, value);
    }

    fn step(&mut self, ctx: &mut ShmCtx<'_>) {
        let s = self.local_steps;
        self.local_steps += 1;
        if s % 2 == 0 {
            // TASK 1, lines 5–6.
            self.alive += 1;
            ctx.write(ALIVE, 0, self.alive);
            return;
        }
        let o = self.odd_steps;
        self.odd_steps += 1;
        if o % self.leader_every == self.leader_every - 1 {
            let members = ctx.members();
            if let Some(l) = leader_of(ctx.snapshot(), members) {
                ctx.report_leader(l);
            }
        } else {
            self.task2(ctx);
        }
    }

    fn service(memory: &Memory, members: &[Pid]) -> Option<Pid> {
        leader_of(memory, members)
    }
}

/// Parameters of an Ω scenario (`params`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Params {
    /// α: lower bound on the number of stable processes, and how many processes a round
    /// must find updated (itself included).
    pub alpha: usize,
    /// Joins, leaves and crashes.
    pub churn: Vec<Churn>,
    /// Process speeds.
    pub speeds: Speeds,
    /// A timely process from some step on (arranges the memory-access-pattern property);
    /// `null`: none (the property may or may not hold).
    pub timely: Option<Timely>,
    /// Every how many TASK 2 slots a process queries `leader()`.
    pub leader_every: u64,
    /// Start of the judged suffix, step (default: three quarters of the run). When set, the
    /// run is never extended.
    pub judge_from_step: Option<u64>,
    /// The run goes on past `duration_ms`, up to this many times it, until `leader()` of the
    /// live processes has not changed in the last quarter of the run (0 or 1: fixed length).
    pub max_extension: u64,
    /// `join()` initializes a departed member's registers about the newcomer too (default
    /// `true`; see "Departed members and Lemma 4" in the module doc: with `false`, the text
    /// as written, a newcomer can demote the stable leader).
    pub join_covers_departed: bool,
    /// Record every read and write in the trace.
    pub trace_ops: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            alpha: 2,
            churn: Vec::new(),
            speeds: Speeds::default(),
            timely: None,
            leader_every: 4,
            judge_from_step: None,
            max_extension: 8,
            join_covers_departed: true,
            trace_ops: false,
        }
    }
}

/// A checked Ω scenario, ready to run.
pub struct Prepared {
    /// The model's configuration.
    pub config: ShmConfig,
    /// The variant.
    pub variant: Variant,
    /// α.
    pub alpha: usize,
    /// `leader()` period.
    pub leader_every: u64,
    /// Nominal length of the run, steps.
    pub nominal_steps: u64,
    /// Start of the judged suffix, when fixed (else the last quarter of the run).
    pub judge_from: Option<u64>,
    /// Properties to check.
    pub properties: Vec<&'static str>,
}

/// Checks a scenario of `omega.khouri-greve` and builds its model configuration.
pub fn prepare(sc: &Scenario) -> Result<Prepared, ScenarioError> {
    let variant = Variant::ALL
        .iter()
        .copied()
        .find(|v| v.name() == sc.variant)
        .ok_or_else(|| {
            let known: Vec<_> = Variant::ALL.iter().map(|v| v.name()).collect();
            ScenarioError(crate::registry::unknown_variant(&sc.variant, NAME, &known))
        })?;
    sc.validate()?;
    let p: Params = parse_params(sc)?;
    let err = |m: String| Err(ScenarioError(m));
    // It ran whatever engine was named, and said it ran there (`madsim engine`, in a build
    // without madsim; a turmoil trace identical to native's).
    OmegaKhouriGreve.runs_on(sc.engine).map_err(ScenarioError)?;
    if !sc.faults.is_empty() || !sc.workload.is_empty() {
        return err("omega.khouri-greve runs on the shared-memory model: put joins, leaves and crashes in params.churn; faults and workload must be empty".into());
    }
    if let Some(b) = sc.checks.liveness_bound_ms {
        return err(format!(
            "checks.liveness_bound_ms = {b} is set, but omega.khouri-greve judges no bound: its \
             properties are judged on the suffix from params.judge_from_step"
        ));
    }
    if p.alpha == 0 {
        return err("params.alpha must be at least 1".into());
    }
    if p.alpha > sincro_harness::scenario::MAX_NODES {
        // It ran (α = 10^18 was taken). Above the node count is a run outside the model
        // (the assumption |STABLE| >= α cannot hold: what `--beyond-model` generates), but
        // above the most nodes any run has is no setting at all.
        return err(format!(
            "params.alpha = {} is above the limit of {} (the most processes a run has; above \
             the {} of this run, |STABLE| >= alpha cannot hold)",
            p.alpha,
            sincro_harness::scenario::MAX_NODES,
            sc.nodes
        ));
    }
    if p.leader_every == 0 {
        return err("params.leader_every must be at least 1".into());
    }
    let steps = sc.duration_ms.saturating_mul(1000);
    let cap = if p.judge_from_step.is_some() {
        steps
    } else {
        // Extended at most to the run's own event limit: a run whose nominal length fits
        // is run (a 1,251 ms run was refused because 8 × its steps passed 10,000,000).
        steps
            .saturating_mul(p.max_extension.max(1))
            .min(sincro_harness::shm::MAX_STEPS)
            .min(sc.limits.max_events)
            .max(steps)
    };
    let config = ShmConfig {
        initial: sc.nodes,
        churn: p.churn.clone(),
        speeds: p.speeds.clone(),
        timely: p.timely.clone(),
        steps: cap,
        join_covers_departed: p.join_covers_departed,
        trace_ops: p.trace_ops,
        // each about 160 bytes: the event, and its rendering when shown
        max_traced_ops: sc.limits.max_trace_bytes / 160,
        seed: sc.seed,
    };
    config
        .validate()
        .map_err(|e| ScenarioError(format!("params: {e}")))?;
    check_work(&config, p.leader_every)?;
    // A change after the run's nominal end would happen only in a run extended that far, if
    // any: a pass would be over churn that never happened (a network scenario refuses a
    // fault after its end likewise).
    if let Some((i, c)) = p.churn.iter().enumerate().find(|(_, c)| c.at_step >= steps) {
        return err(format!(
            "params.churn[{i}].at_step = {} is not before the end of the run ({steps} steps: \
             duration_ms × 1000); it would never happen",
            c.at_step
        ));
    }
    // A timely regime that starts at or after the end would never start: the run would be
    // judged as if the memory-access-pattern assumption had been declared and held.
    if let Some(t) = p.timely.as_ref().filter(|t| t.from_step >= steps) {
        return err(format!(
            "params.timely.from_step = {} is not before the end of the run ({steps} steps: \
             duration_ms × 1000); the timely regime would never start",
            t.from_step
        ));
    }
    if let Some(judge_from) = p.judge_from_step.filter(|&j| j >= steps) {
        return err(format!(
            "params.judge_from_step = {judge_from} is not before the end of the run ({steps} steps)"
        ));
    }
    let properties = match &sc.checks.properties {
        None => OMEGA_PROPERTIES.to_vec(),
        Some(ps) => ps
            .iter()
            .map(|p| {
                OMEGA_PROPERTIES
                    .iter()
                    .copied()
                    .find(|q| q == p)
                    .ok_or_else(|| {
                        ScenarioError(format!(
                            "checks.properties names `{p}`, which omega.khouri-greve does not promise; it promises: {}",
                            OMEGA_PROPERTIES.join(", ")
                        ))
                    })
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(Prepared {
        config,
        variant,
        alpha: p.alpha,
        leader_every: p.leader_every,
        nominal_steps: steps,
        judge_from: p.judge_from_step,
        properties,
    })
}

/// The most register reads a run may be expected to make (`leader()` at the joins and in the
/// queries; a larger run is refused before it starts): about 3 minutes
/// here at 4 ns a read.
pub const READS_MAX: u64 = 50_000_000_000;

/// Refuses a run whose `leader()` computations would read more than [`READS_MAX`] registers.
/// `leader()` reads the whole `m × m` punishments matrix: at each join every member computes
/// it once (lines 2–3), so the joins of `N` processes read about `N^4/4` registers, and a
/// query every `leader_every`-th TASK 2 slot reads `N²` more. At 1,000 processes the joins
/// alone took about 16 minutes before the first step, which no step limit counts.
fn check_work(config: &ShmConfig, leader_every: u64) -> Result<(), ScenarioError> {
    let joins = config
        .churn
        .iter()
        .filter(|c| matches!(c.event, sincro_harness::shm::ChurnEvent::Join))
        .count();
    let total = (config.initial + joins) as u128;
    // member m computes leader() over m members for each later join, and the world twice
    let join_reads: u128 = (1..total).map(|m| (m + 2) * m * m).sum();
    let query_reads =
        u128::from(config.steps) / 2 / u128::from(leader_every.max(1)) * total * total;
    let reads = join_reads + query_reads;
    if reads > u128::from(READS_MAX) {
        return Err(ScenarioError(format!(
            "this run of {total} processes would read about {reads:.1e} registers computing \
             leader() ({join_reads:.1e} at the joins: every member reads the {total}×{total} \
             punishments matrix at each join; {query_reads:.1e} in the queries over {} steps, \
             one every params.leader_every = {leader_every} slots), above the limit of \
             {READS_MAX:.0e} (about 3 minutes): use fewer processes, a shorter run or a larger \
             leader_every",
            config.steps
        )));
    }
    Ok(())
}

/// Runs a prepared scenario: the model's outcome and the judgement (`None` when a process
/// panicked). Unless the judged suffix is fixed, the run is extended past its nominal length
/// (up to the configured cap) while `leader()` of a live process changed in its last quarter.
pub fn run_prepared(p: &Prepared) -> (ShmOutcome, Option<Result<OmegaReport, Violation>>) {
    let (variant, alpha, every) = (p.variant, p.alpha, p.leader_every);
    let mut world = World::new(
        p.config.clone(),
        Box::new(move |_| Omega::new(variant, alpha, every)),
    )
    .expect("validated by prepare");
    let mut end = p.nominal_steps;
    loop {
        world.run_until(end);
        if world.is_done() || p.judge_from.is_some() {
            break;
        }
        let change = last_live_leader_change(world.trace());
        if change < end / 4 * 3 {
            break;
        }
        end = (change.saturating_mul(4) / 3 + 1_000).max(end + 1);
    }
    let out = world.finish();
    let judge_from = p.judge_from.unwrap_or(out.trace.steps / 4 * 3);
    // A run a stop request ended is not judged.
    let judged = (out.panic.is_none() && out.stopped_at.is_none())
        .then(|| check::judge(&out.trace, p.alpha, judge_from, &p.properties));
    (out, judged)
}

/// The last step at which `leader()` of a process that is still there changed.
fn last_live_leader_change(trace: &sincro_harness::shm::ShmTrace) -> u64 {
    use sincro_harness::shm::ShmEventKind as K;
    let gone: std::collections::BTreeSet<usize> = trace
        .events
        .iter()
        .filter(|e| matches!(e.kind, K::Crash { .. } | K::Leave { .. }))
        .filter_map(|e| e.pid)
        .collect();
    trace
        .events
        .iter()
        .filter(|e| matches!(e.kind, K::Leader { .. }))
        .filter(|e| e.pid.is_some_and(|p| !gone.contains(&p)))
        .map(|e| e.step)
        .max()
        .unwrap_or(0)
}

/// Scheduler knobs drawn by the generator.
pub struct Draw {
    /// Initial processes.
    pub nodes: usize,
    /// α, or drawn when `None`.
    pub alpha: Option<usize>,
    /// Joins to draw at most.
    pub joins_max: u64,
    /// Departures on.
    pub crashes: bool,
    /// Speeds vary.
    pub vary_speeds: bool,
    /// Arrange the memory-access-pattern property with a timely process.
    pub pam: bool,
    /// Membership changes and the timely regime start within `[0, active_steps]`.
    pub active_steps: u64,
}

/// Draws an Ω scenario's params and length (ms) from `rng`.
pub fn draw(rng: &mut SimRng, d: &Draw) -> (Params, u64) {
    let n = d.nodes.max(1);
    let joins = rng.range_u64(0, d.joins_max) as usize;
    let total = n + joins;
    let alpha = d.alpha.unwrap_or_else(|| {
        if total >= 2 {
            rng.range_u64(2, (total / 2 + 1).max(2) as u64) as usize
        } else {
            1
        }
    });
    let a = d.active_steps.max(10);
    let mut join_steps: Vec<u64> = (0..joins).map(|_| rng.range_u64(1, a)).collect();
    join_steps.sort_unstable();
    let joined_at = |pid: usize| -> u64 {
        if pid < n {
            0
        } else {
            join_steps[pid - n]
        }
    };
    let timely_pid = rng.index(total);
    let mut churn: Vec<Churn> = join_steps
        .iter()
        .map(|&s| Churn {
            at_step: s,
            event: ChurnEvent::Join,
        })
        .collect();
    let departures = if d.crashes && total > alpha {
        rng.range_u64(1, (total - alpha).min(3) as u64) as usize
    } else {
        0
    };
    let mut gone = vec![false; total];
    gone[timely_pid] = d.pam; // the timely process is stable
    for _ in 0..departures {
        let at = rng.range_u64(1, a);
        let candidates: Vec<usize> = (0..total)
            .filter(|&p| !gone[p] && joined_at(p) < at)
            .collect();
        if candidates.is_empty() {
            continue;
        }
        // the initial leader is p0: make it a victim often
        let victim = if candidates.contains(&0) && rng.chance(0.4) {
            0
        } else {
            candidates[rng.index(candidates.len())]
        };
        gone[victim] = true;
        let event = if rng.chance(0.5) {
            ChurnEvent::Crash(victim)
        } else {
            ChurnEvent::Leave(victim)
        };
        churn.push(Churn { at_step: at, event });
    }
    let speeds = if d.vary_speeds {
        Speeds {
            min: 1,
            max: [2, 4, 8, 16][rng.index(4)],
            period_steps: [0, 100, 500, 2000][rng.index(4)],
        }
    } else {
        Speeds {
            min: 1,
            max: 1,
            period_steps: 0,
        }
    };
    let timely = d.pam.then(|| Timely {
        pid: timely_pid,
        from_step: rng.range_u64(0, a).max(joined_at(timely_pid)),
        lead_steps: 2,
    });
    let params = Params {
        alpha,
        churn,
        speeds,
        timely,
        ..Params::default()
    };
    let settled = churn_settled(&params);
    // The judged last quarter starts well after the system settles, and is long enough for
    // every process to finish rounds in it: a process takes about one step in `total`, and a
    // round reads every process's registers, so past 10 processes the floor grows with the
    // square of their number (at 34 processes, 16 × slower ones, a 36,000-step run left one
    // with no round in the judged quarter: too few steps, a run that could not be judged).
    let scale = (total as u64).div_ceil(10).max(1);
    let steps = settled + (3 * settled).max(30_000 * scale * scale);
    (params, steps.div_ceil(1000))
}

fn churn_settled(p: &Params) -> u64 {
    let c = p.churn.iter().map(|c| c.at_step).max().unwrap_or(0);
    c.max(p.timely.as_ref().map_or(0, |t| t.from_step))
}

/// The registered name.
const NAME: &str = "omega.khouri-greve";

/// `omega.khouri-greve`: the algorithm's description for the registry, fuzzing and tests,
/// written by hand (it runs on the shared-memory model, see the module documentation).
#[derive(Clone, Copy, Debug, Default)]
pub struct OmegaKhouriGreve;

impl Algorithm for OmegaKhouriGreve {
    /// Its runs have no messages and no fault plan: every strategy is the same search.
    fn strategies_apply(&self) -> bool {
        false
    }

    fn runs_on(&self, engine: sincro_harness::EngineKind) -> Result<(), String> {
        match engine {
            sincro_harness::EngineKind::Native => Ok(()),
            other => Err(format!(
                "{NAME} does not run on the {} engine: it runs on its own shared-memory model, \
                 which no message-passing engine applies to; leave `engine` native (the \
                 default), or leave it out (`!omega.*`)",
                other.name()
            )),
        }
    }

    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: NAME,
            summary: "eventual leader Ω over shared 1WnR registers in a dynamic system: Alive counters, punishments, leader = min (Σ punishments, id)",
            source: "seed 004 (Khouri & Greve), Algorithm 1, Lemmas 1–4",
            variants: Variant::ALL
                .iter()
                .map(|&v| VariantInfo {
                    name: v.name(),
                    buggy: v.buggy(),
                    deep: v.deep(),
                    summary: v.summary(),
                })
                .collect(),
            properties: OMEGA_PROPERTIES.to_vec(),
            fault_model: FaultModel {
                tolerates: vec![FaultClass::Crashes, FaultClass::Pauses],
                summary: "shared-memory model: asynchronous processes of varying speeds (pauses), finite arrival, crashes and departures, with |STABLE| >= α and the memory-access-pattern property; no network",
                ..FaultModel::default()
            },
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let p = prepare(sc)?;
        if p.config.steps > sc.limits.max_events {
            return Ok(Outcome {
                verdict: Verdict::LimitExceeded {
                    limit: format!(
                        "max_events = {} (the run has {} steps)",
                        sc.limits.max_events, p.config.steps
                    ),
                },
                trace: None,
                stats: Stats::default(),
            });
        }
        let (out, judged) = run_prepared(&p);
        let verdict = match (&out.panic, judged) {
            // Stopped before its end: nothing is judged (a campaign does not count it).
            _ if out.stopped_at.is_some() => sincro_harness::engine::interrupted(
                out.stopped_at.unwrap_or(0).saturating_mul(NS_PER_STEP),
            ),
            (Some((pid, step, message)), _) => Verdict::Panic {
                node: *pid,
                t_ns: step * NS_PER_STEP,
                message: message.clone(),
            },
            // A suffix too short to judge the assumption on is no verdict about the run.
            (None, Some(Err(v))) if check::too_short_to_judge(&v) => Verdict::Unjudged {
                property: v.property,
                reason: v.explanation,
            },
            (None, Some(Err(v))) => Verdict::Violation(v),
            _ => Verdict::Pass,
        };
        let stats = Stats {
            events: out.trace.steps,
            end_t_ns: out.trace.steps * NS_PER_STEP,
            ..Stats::default()
        };
        Ok(Outcome {
            verdict,
            trace: options.record_trace.then(|| out.trace.to_harness()),
            stats,
        })
    }

    fn workload(&self, _rng: &mut SimRng, _nodes: usize, _active_ms: u64) -> Vec<WorkloadItem> {
        Vec::new()
    }

    fn liveness_bound_ms(&self, _scenario: &Scenario) -> u64 {
        0
    }

    fn generate(&self, variant: &str, seed: u64, opts: &GenOptions) -> Scenario {
        let info = self.info();
        let draft = gen::generate(info.name, variant, seed, &info.fault_model, opts);
        let opts = opts.for_draft(&draft);
        self.complete(draft, &opts)
    }

    /// Churn, crashes (when the swarm has crashes), varying speeds (when it has pauses) and,
    /// inside the model, a timely process; beyond the model half the runs have none.
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        let Draft {
            scenario: mut sc,
            swarm,
            workload_rng: mut rng,
            moments: _,
            active_ms: _,
        } = draft;
        let pam = !opts.beyond_model || rng.chance(0.5);
        let (params, duration_ms) = draw(
            &mut rng,
            &Draw {
                nodes: sc.nodes,
                alpha: None,
                joins_max: 3,
                crashes: swarm.contains(&FaultClass::Crashes),
                vary_speeds: swarm.contains(&FaultClass::Pauses),
                pam,
                active_steps: rng_active(opts),
            },
        );
        sc.params = serde_json::to_value(params).expect("params serialize");
        sc.faults.clear();
        sc.workload.clear();
        sc.network = Default::default();
        sc.clocks = Default::default();
        sc.duration_ms = duration_ms;
        sc
    }
}

/// Membership changes happen within the first `4 × active_ms` steps.
fn rng_active(opts: &GenOptions) -> u64 {
    opts.active_ms.clamp(10, 100_000) * 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, first_failing_seed};
    use sincro_harness::EngineKind;
    use std::collections::BTreeSet;

    fn judged(sc: &Scenario) -> Result<OmegaReport, Violation> {
        run_prepared(&prepare(sc).unwrap()).1.unwrap()
    }

    #[test]
    fn same_seed_gives_a_byte_identical_shared_memory_trace() {
        let alg = find(NAME).unwrap();
        for seed in 0..5 {
            let mut sc = alg.generate("correct", seed, &GenOptions::default());
            let mut p: Params = serde_json::from_value(sc.params.clone()).unwrap();
            p.trace_ops = seed == 0;
            sc.params = serde_json::to_value(p).unwrap();
            let prep = prepare(&sc).unwrap();
            let a = run_prepared(&prep).0.trace.to_jsonl();
            let b = run_prepared(&prep).0.trace.to_jsonl();
            assert!(
                a.lines().count() > 5,
                "seed {seed}: an empty run proves nothing"
            );
            assert_eq!(a, b, "seed {seed}");
            let h1 = alg.run(&sc, RunOptions::default()).unwrap().trace.unwrap();
            let h2 = alg.run(&sc, RunOptions::default()).unwrap().trace.unwrap();
            assert_eq!(h1.to_jsonl(), h2.to_jsonl(), "seed {seed}");
        }
    }

    /// A generated run leaves every process rounds to finish in the judged quarter: up to
    /// 10 processes at least 30,000 steps, past that the square of their number in tens (34
    /// processes, 16 × slower ones: 36,000 steps left one with no round in the judged
    /// quarter, and the correct variant "failed" the assumption at 2 of 150 seeds, at 60
    /// processes at 91; now at none).
    #[test]
    fn a_generated_run_grows_with_the_square_of_its_processes_past_ten() {
        let length_ms = |nodes: usize| {
            let d = Draw {
                nodes,
                alpha: None,
                joins_max: 0,
                crashes: false,
                vary_speeds: true,
                pam: true,
                active_steps: 10,
            };
            draw(&mut SimRng::new(7), &d).1
        };
        // the floor in ms, plus at most 1 ms for the settling steps (at most 10 here)
        for (nodes, floor_ms) in [(4, 30), (10, 30), (11, 120), (34, 480), (60, 1_080)] {
            let got = length_ms(nodes);
            assert!(
                (floor_ms..=floor_ms + 1).contains(&got),
                "{nodes} processes: {got} ms"
            );
        }
    }

    /// A run whose nominal length fits `limits.max_events` runs: its extension stops at the
    /// limit. One of 1,500 ms (1,500,000 steps; 8 × that is past the default 10,000,000) was
    /// refused as a limit before a step ran, as generated with `--active-ms 25000`.
    #[test]
    fn a_run_that_fits_the_event_limit_is_run_whatever_its_extension() {
        let alg = find(NAME).unwrap();
        let mut sc = alg.generate("correct", 3, &GenOptions::default());
        sc.duration_ms = 1_500;
        let out = alg.run(&sc, RunOptions::default()).unwrap();
        assert!(
            !matches!(out.verdict, Verdict::LimitExceeded { .. }),
            "{:?}",
            out.verdict
        );
        assert!(out.stats.events >= 1_500_000, "{:?}", out.stats);
        sc.limits.max_events = 1_000_000;
        let out = alg.run(&sc, RunOptions::default()).unwrap();
        assert!(
            matches!(out.verdict, Verdict::LimitExceeded { .. }),
            "{:?}",
            out.verdict
        );
    }

    /// A stop request (Ctrl-C, a campaign's or a shrink's time budget) ends a run within
    /// [`sincro_harness::engine::STOP_POLL_STEPS`] steps as "interrupted", never judged: the
    /// model's step loop never looked, and a shrink went seconds past its time cap (stop 73's
    /// probe).
    #[test]
    fn a_stop_request_ends_the_run_unjudged() {
        let alg = find(NAME).unwrap();
        let mut sc = alg.generate("never-punish", 0, &GenOptions::default());
        sc.duration_ms = 1_000;
        let stop = std::sync::atomic::AtomicBool::new(true);
        let out = sincro_harness::engine::stoppable(&stop, || {
            alg.run(&sc, RunOptions::default()).unwrap()
        });
        assert!(out.verdict.is_interrupted(), "{:?}", out.verdict);
        assert_eq!(out.stats.events, sincro_harness::engine::STOP_POLL_STEPS);
        // Not asked to stop, the same scenario runs its million steps.
        let out = alg.run(&sc, RunOptions::default()).unwrap();
        assert!(!out.verdict.is_interrupted(), "{:?}", out.verdict);
        assert!(out.stats.events >= 1_000_000, "{:?}", out.stats);
    }

    /// A run too short for every process to finish a round in the judged quarter could not
    /// be judged: it was reported as a violation of the access-pattern assumption (exit 1,
    /// a run outside the model) though nothing of the model failed. Long enough, it passes.
    #[test]
    fn a_run_too_short_to_judge_is_no_verdict() {
        let alg = find(NAME).unwrap();
        let run = |duration_ms: u64| {
            let doc = serde_json::json!({"algorithm": NAME, "nodes": 40, "seed": 1,
                "duration_ms": duration_ms});
            let sc = Scenario::from_json(&doc.to_string()).unwrap();
            alg.run(&sc, RunOptions::default()).unwrap().verdict
        };
        match run(1) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, check::MEMORY_ACCESS_PATTERN);
                assert!(reason.contains("too few steps"), "{reason}");
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(run(40), Verdict::Pass);
    }

    /// It runs on its shared-memory model alone: another engine is refused, not named as
    /// the one it ran on (`(madsim engine, seed 7): PASS` in a build without madsim).
    #[test]
    fn another_engine_is_refused() {
        let alg = find(NAME).unwrap();
        for engine in ["turmoil", "madsim"] {
            let doc = serde_json::json!({"algorithm": NAME, "nodes": 4, "seed": 1,
                "duration_ms": 40, "engine": engine});
            let sc = Scenario::from_json(&doc.to_string()).unwrap();
            let e = alg.run(&sc, RunOptions::default()).unwrap_err().0;
            assert!(
                e.contains(&format!("does not run on the {engine} engine")),
                "{e}"
            );
        }
    }

    /// A run whose leader() computations would read past [`READS_MAX`] registers is refused
    /// before it starts (1,000 processes spent about 16 minutes in their joins); one just
    /// below, and the usual sizes, are prepared.
    #[test]
    fn a_run_reading_too_many_registers_is_refused() {
        let prepared = |nodes: usize, duration_ms: u64| {
            let doc = serde_json::json!({"algorithm": NAME, "nodes": nodes, "seed": 1,
                "duration_ms": duration_ms, "params": {"alpha": 2}});
            prepare(&Scenario::from_json(&doc.to_string()).unwrap())
        };
        let e = prepared(1000, 10).err().expect("refused").0;
        assert!(
            e.contains("1000 processes would read about 2.6e11 registers"),
            "{e}"
        );
        // 640 processes read about 4.6e10 registers (4.2e10 at the joins); 680, about 5.8e10
        assert!(prepared(640, 10).is_ok());

        assert!(prepared(680, 10).is_err());
        // a long run of few processes: its queries count
        assert!(prepared(100, 10_000).is_ok());
        let e = prepared(300, 10_000).err().expect("refused").0;
        assert!(e.contains("in the queries over"), "{e}");
    }

    /// An alpha above the most nodes a run has is refused (it ran, "assumption not met");
    /// above this run's node count is a run outside the model, and runs.
    #[test]
    fn an_alpha_above_the_node_count_is_refused() {
        let alg = find(NAME).unwrap();
        for (alpha, ok) in [
            (4u64, true),
            (5, true),
            (10_000, true),
            (10_001, false),
            (u64::MAX / 2, false),
        ] {
            let doc = serde_json::json!({"algorithm": NAME, "nodes": 4, "seed": 1,
                "duration_ms": 40, "params": {"alpha": alpha}});
            let sc = Scenario::from_json(&doc.to_string()).unwrap();
            match alg.run(&sc, RunOptions::default()) {
                Ok(_) => assert!(ok, "alpha {alpha} ran"),
                Err(e) => {
                    assert!(!ok, "alpha {alpha}: {}", e.0);
                    assert!(e.0.contains("is above the limit of 10000"), "{}", e.0);
                }
            }
        }
    }

    #[test]
    fn correct_variant_elects_a_stable_leader_inside_the_model() {
        assert_in_model_passes(NAME, "correct", 60, EngineKind::Native);
    }

    #[test]
    fn lemma_4_holds_for_the_text_and_fails_for_join_zero() {
        let alg = find(NAME).unwrap();
        let seed = first_failing_seed(NAME, "join-zero", 200, EngineKind::Native)
            .expect("join-zero is caught");
        let sc = alg.generate("join-zero", seed, &GenOptions::default());
        let v = judged(&sc).unwrap_err();
        assert_eq!(v.property, check::NEWCOMER_NEVER_DEMOTES, "{v}");
        // the same run with the text's TASK 0 passes Lemma 4
        let fixed = Scenario {
            variant: "correct".into(),
            ..sc
        };
        check::newcomer_never_demotes(&run_prepared(&prepare(&fixed).unwrap()).0.trace).unwrap();
        judged(&fixed).unwrap();
    }

    #[test]
    fn lemma_3_holds_for_the_text_and_fails_for_never_punish() {
        let alg = find(NAME).unwrap();
        let seed = first_failing_seed(NAME, "never-punish", 200, EngineKind::Native)
            .expect("never-punish is caught");
        let sc = alg.generate("never-punish", seed, &GenOptions::default());
        let v = judged(&sc).unwrap_err();
        assert_eq!(v.property, check::CRASHED_NEVER_ELECTED, "{v}");
        let only_omega = Scenario {
            checks: sincro_harness::scenario::CheckSpec {
                properties: Some(vec![check::EVENTUAL_LEADERSHIP.into()]),
                ..Default::default()
            },
            ..sc.clone()
        };
        let v = judged(&only_omega).unwrap_err();
        assert_eq!(v.property, check::EVENTUAL_LEADERSHIP, "{v}");
        let fixed = Scenario {
            variant: "correct".into(),
            ..sc
        };
        let r = judged(&fixed).unwrap();
        assert!(r.stable.contains(&r.leader.unwrap()));
    }

    #[test]
    fn runs_without_the_access_pattern_are_blamed_on_the_assumption() {
        let alg = find(NAME).unwrap();
        let opts = GenOptions {
            beyond_model: true,
            ..GenOptions::default()
        };
        let mut blamed = 0;
        for seed in 0..40 {
            let sc = alg.generate("correct", seed, &opts);
            if let Err(v) = judged(&sc) {
                assert_eq!(v.property, check::MEMORY_ACCESS_PATTERN, "seed {seed}: {v}");
                assert!(v.explanation.starts_with("assumption not met"));
                blamed += 1;
            }
        }
        assert!(blamed > 0, "no generated run violated the assumption");
    }

    /// A static run of `n` processes with `params`, judged: the trace (JSON Lines), the
    /// report, and the changes of `leader()` results of processes that never crash.
    fn alpha_run(n: usize, seed: u64, params: &Params) -> (String, OmegaReport, usize) {
        let doc = serde_json::json!({"algorithm": NAME, "nodes": n, "seed": seed,
            "duration_ms": 40, "params": params});
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        let (out, judged) = run_prepared(&prepare(&sc).unwrap());
        let report = judged
            .unwrap()
            .unwrap_or_else(|v| panic!("seed {seed}: {v}"));
        let crashed: BTreeSet<Pid> = params
            .churn
            .iter()
            .filter_map(|c| match c.event {
                ChurnEvent::Crash(p) | ChurnEvent::Leave(p) => Some(p),
                ChurnEvent::Join => None,
            })
            .collect();
        let reports = out
            .trace
            .events
            .iter()
            .filter(|e| matches!(e.kind, sincro_harness::shm::ShmEventKind::Leader { .. }))
            .filter(|e| e.pid.is_some_and(|p| !crashed.contains(&p)))
            .count();
        (out.trace.to_jsonl(), report, reports - (n - crashed.len()))
    }

    #[test]
    fn alpha_matters_exactly_when_a_full_pass_finds_fewer_than_alpha_updated() {
        // Lines 9-15 test |updated| < α between full passes. With every process at the same
        // speed a pass finds every other process updated, so any α up to n - 2 runs alike
        // (the pattern behind "α = 2 and α = 6 give the same trace").
        let even = Params {
            speeds: Speeds {
                min: 1,
                max: 1,
                period_steps: 0,
            },
            ..Params::default()
        };
        for seed in 0..3 {
            let (a, _, _) = alpha_run(
                8,
                seed,
                &Params {
                    alpha: 2,
                    ..even.clone()
                },
            );
            let (b, _, _) = alpha_run(
                8,
                seed,
                &Params {
                    alpha: 6,
                    ..even.clone()
                },
            );
            assert_eq!(a, b, "seed {seed}: α = 2 and 6 differ at equal speeds");
        }
        // Slow processes, the first leader p0 crashing at step 2000, p4 timely: |STABLE| = 4.
        // With α = |STABLE| a round waits for every stable process, so none is punished
        // again and the leadership settles within a few rounds of the crash; with α = 2
        // slow stable processes are punished and the leadership wanders for longer.
        let base = Params {
            churn: vec![Churn {
                at_step: 2_000,
                event: ChurnEvent::Crash(0),
            }],
            speeds: Speeds {
                min: 1,
                max: 8,
                period_steps: 500,
            },
            timely: Some(Timely {
                pid: 4,
                from_step: 1_000,
                lead_steps: 2,
            }),
            ..Params::default()
        };
        let (mut changes_small, mut changes_exact) = (0, 0);
        let mut slower = 0;
        for seed in 0..6 {
            let (t2, r2, c2) = alpha_run(
                5,
                seed,
                &Params {
                    alpha: 2,
                    ..base.clone()
                },
            );
            let (t4, r4, c4) = alpha_run(
                5,
                seed,
                &Params {
                    alpha: 4,
                    ..base.clone()
                },
            );
            assert_ne!(t2, t4, "seed {seed}: α = 2 and α = |STABLE| = 4 ran alike");
            let (s2, s4) = (
                r2.stabilized_at_step.unwrap(),
                r4.stabilized_at_step.unwrap(),
            );
            assert!(
                s4 < 2_000 + 1_000,
                "seed {seed}: α = 4 settled only at step {s4}"
            );
            slower += usize::from(s2 > s4);
            changes_small += c2;
            changes_exact += c4;
        }
        assert!(
            slower >= 4,
            "α = 2 settled later in only {slower} of 6 runs"
        );
        assert!(
            changes_exact < changes_small,
            "leader changes: α = 4 {changes_exact}, α = 2 {changes_small}"
        );
    }

    #[test]
    fn bad_params_are_scenario_errors() {
        let base = serde_json::json!({"algorithm": NAME, "nodes": 3, "seed": 1, "duration_ms": 10});
        let with = |params: serde_json::Value| {
            let mut doc = base.clone();
            doc["params"] = params;
            let sc = Scenario::from_json(&doc.to_string()).unwrap();
            find(NAME)
                .unwrap()
                .run(&sc, RunOptions::default())
                .unwrap_err()
                .0
        };
        assert!(with(serde_json::json!({"alpha": 0})).contains("alpha"));
        assert!(
            with(serde_json::json!({"churn": [{"at_step": 5, "event": {"crash": 7}}]}))
                .contains("process 7")
        );
        assert!(with(serde_json::json!({"speeds": {"min": 0, "max": 1}})).contains("speeds"));
        assert!(with(serde_json::json!({"colour": 1})).contains("colour"));
        assert!(with(serde_json::json!({"judge_from_step": 10000})).contains("judge_from_step"));
        let mut doc = serde_json::json!({"algorithm": NAME, "nodes": 4, "seed": 1,
            "duration_ms": 2, "checks": {"liveness_bound_ms": 50}});
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        let e = prepare(&sc).map(|_| ()).unwrap_err();
        assert!(e.0.contains("judges no bound"), "{e}");
        doc["checks"] = serde_json::json!({});
        prepare(&Scenario::from_json(&doc.to_string()).unwrap()).unwrap();
        // a crash after the end never happened: its run passed, exit 0
        let late = with(serde_json::json!({"churn": [{"at_step": 10_000, "event": {"crash": 1}}]}));
        assert!(late.contains("params.churn[0].at_step = 10000"), "{late}");
        // nor did a timely regime from the end on (the run passed as if it had held)
        let never = with(serde_json::json!({"timely": {"pid": 0, "from_step": 10_000}}));
        assert!(never.contains("timely.from_step = 10000"), "{never}");
        let within = serde_json::json!({"timely": {"pid": 0, "from_step": 9_999}});
        let mut doc = base.clone();
        doc["params"] = within;
        let sc = Scenario::from_json(&doc.to_string()).unwrap();
        prepare(&sc).map(|_| ()).unwrap();
    }
}
