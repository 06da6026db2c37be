//! The shared-memory model: a dynamic set of asynchronous processes communicating through
//! atomic 1-writer/n-reader registers (the system model of seed 004, Khouri & Greve §2).
//!
//! - **Registers** ([`Reg`], [`Memory`]): each register has one owner, the only process that
//!   may write it; every process may read it. The scheduler executes one operation at a time,
//!   so every read and write is atomic (linearizable: its linearization point is its step).
//!   A register never written reads as 0.
//! - **Steps**: a process acts only in [`ShmProcess::step`], and a step performs at most one
//!   memory operation (a read, a write, or an atomic [`ShmCtx::snapshot`]); the run's global
//!   time is the step count ([`World::step`] runs one step, [`World::run`] loops it).
//! - **Asynchrony**: a deterministic seeded scheduler picks which process takes the next step,
//!   weighted by per-process speeds that are drawn per run and redrawn over time
//!   ([`Speeds`]). Optionally one process is *timely* from some step on ([`Timely`]): between
//!   two steps of any other process it takes at least `lead_steps` steps (the regime in which
//!   the memory-access-pattern property of seed 004 holds).
//! - **Dynamic membership** ([`Churn`]): processes join (ids are handed out in join order,
//!   the initial ones first), leave or crash; a process that comes back is a new process with
//!   a new id. Arrival is finite: the churn list is finite. `join()` is one atomic operation
//!   of the memory layer (the paper leaves its implementation out of scope): it runs the
//!   newcomer's [`ShmProcess::on_join`] and every member's [`ShmProcess::on_join_request`]
//!   (TASK 0 of seed 004) at the same instant; a departed member's registers are initialized
//!   by the memory layer on its behalf (with its frozen state) unless
//!   [`ShmConfig::join_covers_departed`] is off. Only after `join()` returns is the newcomer
//!   a member ([`ShmCtx::members`]).
//! - **Trace** ([`ShmTrace`]): joins, leaves, crashes, the start of the timely regime,
//!   changes of the `leader()` results and of the sets of members a round finds not updated
//!   (punishes) reported by the algorithm, and per-process summaries;
//!   every read and write too with [`ShmConfig::trace_ops`]. Same configuration and seed:
//!   byte-identical JSON Lines.
//!
//! Limits: at most [`MAX_STEPS`] steps and [`MAX_PROCESSES`] processes per run.

mod trace;
mod world;

pub use trace::{ShmEvent, ShmEventKind, ShmTrace, NS_PER_STEP};
pub use world::{ShmFactory, ShmOutcome, World};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A process id: handed out in join order, never reused.
pub type Pid = usize;

/// Most steps a run may take.
pub const MAX_STEPS: u64 = 50_000_000;
/// Most processes (initial plus joins) a run may have.
pub const MAX_PROCESSES: usize = 1_000;

/// A register's address: `name[index]` owned (written) by `owner`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Reg {
    /// The only process that writes it.
    pub owner: Pid,
    /// Which array (the algorithm's numbering, e.g. 0 = `Alive`, 1 = `Punishments`).
    pub name: u32,
    /// Index in the array (0 for a scalar).
    pub index: u64,
}

/// Registers with an array number below this and an index below [`DENSE_INDEX_LIMIT`] are
/// kept in plain vectors (one per owner and array); any other register in an ordered map.
const DENSE_NAME_LIMIT: u32 = 16;
/// See [`DENSE_NAME_LIMIT`].
const DENSE_INDEX_LIMIT: u64 = 4_096;

/// The shared memory: every register's current value (absent registers read 0).
///
/// Registers are kept in vectors indexed by owner, array and index (a read is three bounds
/// checks, not a search), with an ordered map for the rare register outside the dense range.
/// Nothing iterates in an order that depends on how the memory was filled: [`Memory::entries`]
/// lists the registers in [`Reg`] order, and equality compares contents only.
#[derive(Clone, Default)]
pub struct Memory {
    /// `dense[owner][name][index]`: `Some(value)` once written.
    dense: Vec<Vec<Vec<Option<u64>>>>,
    /// Registers outside the dense range.
    sparse: BTreeMap<Reg, u64>,
    /// Registers written so far.
    written: usize,
}

impl Memory {
    /// The value of `reg` (0 if never written). Not a step: for the model, the checkers and
    /// inside an atomic [`ShmCtx::snapshot`].
    #[inline]
    pub fn get(&self, reg: Reg) -> u64 {
        if reg.name < DENSE_NAME_LIMIT && reg.index < DENSE_INDEX_LIMIT {
            self.dense
                .get(reg.owner)
                .and_then(|arrays| arrays.get(reg.name as usize))
                .and_then(|array| array.get(reg.index as usize))
                .copied()
                .flatten()
                .unwrap_or(0)
        } else {
            self.sparse.get(&reg).copied().unwrap_or(0)
        }
    }

    /// Number of registers written so far.
    pub fn len(&self) -> usize {
        self.written
    }

    /// True when no register was written.
    pub fn is_empty(&self) -> bool {
        self.written == 0
    }

    /// Every register written so far and its value, in [`Reg`] order.
    pub fn entries(&self) -> Vec<(Reg, u64)> {
        let mut all: Vec<(Reg, u64)> = Vec::with_capacity(self.written);
        for (owner, arrays) in self.dense.iter().enumerate() {
            for (name, array) in arrays.iter().enumerate() {
                for (index, value) in array.iter().enumerate() {
                    if let Some(v) = value {
                        let reg = Reg {
                            owner,
                            name: name as u32,
                            index: index as u64,
                        };
                        all.push((reg, *v));
                    }
                }
            }
        }
        all.extend(self.sparse.iter().map(|(&r, &v)| (r, v)));
        all.sort_unstable_by_key(|&(r, _)| r);
        all
    }

    fn set(&mut self, reg: Reg, value: u64) {
        if reg.name < DENSE_NAME_LIMIT && reg.index < DENSE_INDEX_LIMIT {
            if self.dense.len() <= reg.owner {
                self.dense.resize_with(reg.owner + 1, Vec::new);
            }
            let arrays = &mut self.dense[reg.owner];
            let name = reg.name as usize;
            if arrays.len() <= name {
                arrays.resize_with(name + 1, Vec::new);
            }
            let array = &mut arrays[name];
            let index = reg.index as usize;
            if array.len() <= index {
                array.resize(index + 1, None);
            }
            if array[index].replace(value).is_none() {
                self.written += 1;
            }
        } else if self.sparse.insert(reg, value).is_none() {
            self.written += 1;
        }
    }
}

impl PartialEq for Memory {
    fn eq(&self, other: &Self) -> bool {
        self.written == other.written && self.entries() == other.entries()
    }
}

impl Eq for Memory {}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory")
            .field(
                "regs",
                &self.entries().into_iter().collect::<BTreeMap<_, _>>(),
            )
            .finish()
    }
}

/// A membership change of the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ChurnEvent {
    /// A new process joins (it gets the next id).
    Join,
    /// The process stops deliberately (leaves the system for good).
    Leave(Pid),
    /// The process crashes (stops taking steps for good).
    Crash(Pid),
}

/// A membership change and the step at which it happens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Churn {
    /// Global step.
    pub at_step: u64,
    /// What happens.
    pub event: ChurnEvent,
}

/// Process speeds: each process's relative speed is drawn uniformly in `[min, max]` at its
/// join and redrawn every `period_steps` steps (0: never redrawn).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Speeds {
    /// Slowest speed (at least 1).
    pub min: u32,
    /// Fastest speed.
    pub max: u32,
    /// Redraw period, steps (0: speeds fixed for the run).
    #[serde(default)]
    pub period_steps: u64,
}

impl Default for Speeds {
    fn default() -> Self {
        Speeds {
            min: 1,
            max: 8,
            period_steps: 500,
        }
    }
}

/// From `from_step` on, process `pid` takes at least `lead_steps` steps between two steps of
/// any other process (while it is alive).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timely {
    /// The timely process.
    pub pid: Pid,
    /// When the regime starts, global step.
    pub from_step: u64,
    /// Its steps between two steps of any other process.
    #[serde(default = "Timely::default_lead")]
    pub lead_steps: u32,
}

impl Timely {
    fn default_lead() -> u32 {
        2
    }
}

/// Everything that determines a shared-memory run besides the algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShmConfig {
    /// Processes present from step 0 (ids `0..initial`).
    pub initial: usize,
    /// Joins, leaves and crashes (any order; applied by step, then list order).
    pub churn: Vec<Churn>,
    /// Speeds.
    pub speeds: Speeds,
    /// A timely process, if any.
    pub timely: Option<Timely>,
    /// Length of the run, steps.
    pub steps: u64,
    /// The memory layer initializes a departed member's registers about a newcomer.
    pub join_covers_departed: bool,
    /// Record every read, write and snapshot in the trace (large).
    pub trace_ops: bool,
    /// With `trace_ops`, the most reads, writes and snapshots recorded: past them the trace
    /// says so once ([`ShmEventKind::OpsCut`]) and records no more of them (three processes
    /// over 10,000,000 steps recorded 1.2 GB of them and aborted). The other events, which
    /// the checkers read, are always recorded.
    pub max_traced_ops: u64,
    /// Seed of the scheduler.
    pub seed: u64,
}

impl ShmConfig {
    /// Checks the configuration: the limits, speeds, and that every leave or crash names a
    /// process that exists and is still there at that step. Returns the number of processes
    /// the run will have.
    pub fn validate(&self) -> Result<usize, String> {
        if self.steps == 0 || self.steps > MAX_STEPS {
            return Err(format!(
                "the run must last 1 to {MAX_STEPS} steps, got {}",
                self.steps
            ));
        }
        if self.speeds.min == 0 || self.speeds.max < self.speeds.min || self.speeds.max > 1000 {
            return Err(format!(
                "speeds must satisfy 1 <= min <= max <= 1000, got min {} max {}",
                self.speeds.min, self.speeds.max
            ));
        }
        let mut gone = vec![false; self.initial];
        for c in self.ordered_churn() {
            match c.event {
                ChurnEvent::Join => gone.push(false),
                ChurnEvent::Leave(p) | ChurnEvent::Crash(p) => match gone.get_mut(p) {
                    Some(g) if !*g => *g = true,
                    Some(_) => {
                        return Err(format!(
                            "churn at step {}: process {p} has already left or crashed",
                            c.at_step
                        ))
                    }
                    None => {
                        return Err(format!(
                            "churn at step {}: process {p} has not joined by then",
                            c.at_step
                        ))
                    }
                },
            }
        }
        let total = gone.len();
        if total == 0 {
            return Err("the run has no process (initial = 0 and no join)".into());
        }
        if total > MAX_PROCESSES {
            return Err(format!(
                "{total} processes exceed the limit of {MAX_PROCESSES}"
            ));
        }
        if let Some(t) = &self.timely {
            if t.pid >= total {
                return Err(format!("timely.pid = {} never joins", t.pid));
            }
            if t.lead_steps == 0 {
                return Err("timely.lead_steps must be at least 1".into());
            }
        }
        Ok(total)
    }

    /// The churn in the order it is applied (by step, then list order).
    pub fn ordered_churn(&self) -> Vec<Churn> {
        let mut c = self.churn.clone();
        c.sort_by_key(|c| c.at_step);
        c
    }

    /// The step from which membership no longer changes and the timely regime (if any) has
    /// begun.
    pub fn settled_from_step(&self) -> u64 {
        let churn = self.churn.iter().map(|c| c.at_step).max().unwrap_or(0);
        churn.max(self.timely.as_ref().map_or(0, |t| t.from_step))
    }
}

/// A process of the shared-memory model: a deterministic state machine whose only door to
/// the world is its [`ShmCtx`].
pub trait ShmProcess: Sized + 'static {
    /// Inside its own `join()`: initialize its registers (any number of operations).
    fn on_join(&mut self, ctx: &mut ShmCtx<'_>);
    /// Inside the `join()` of `newcomer`: initialize this process's registers about it (any
    /// number of operations; TASK 0 of seed 004). `ctx.members()` does not include the
    /// newcomer yet.
    fn on_join_request(&mut self, ctx: &mut ShmCtx<'_>, newcomer: Pid);
    /// One step: at most one memory operation.
    fn step(&mut self, ctx: &mut ShmCtx<'_>);
    /// The service's output if queried now over `members` (ground truth for checkers, e.g.
    /// `leader()` of Ω); recorded at every membership change.
    fn service(memory: &Memory, members: &[Pid]) -> Option<Pid>;
}

/// What a process reports for the trace and the checkers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Report {
    Leader(Pid),
    Round { not_updated: Vec<Pid> },
}

/// The only door from a process to the shared memory.
pub struct ShmCtx<'a> {
    pid: Pid,
    step: u64,
    mem: &'a mut Memory,
    members: &'a [Pid],
    /// Operations still allowed in this callback (`None`: unlimited, inside `join()`).
    budget: Option<u32>,
    ops: &'a mut Vec<(Pid, ShmEventKind)>,
    trace_ops: bool,
    reports: &'a mut Vec<Report>,
}

impl<'a> ShmCtx<'a> {
    /// This process's id.
    pub fn id(&self) -> Pid {
        self.pid
    }

    /// The global step.
    pub fn now_step(&self) -> u64 {
        self.step
    }

    /// The processes whose `join()` has returned (departed ones included: nobody can tell a
    /// crashed process from a slow one), in id order.
    pub fn members(&self) -> &'a [Pid] {
        self.members
    }

    fn spend(&mut self, what: &str) {
        if let Some(b) = &mut self.budget {
            assert!(
                *b > 0,
                "process {} tried a second memory operation ({what}) in one step",
                self.pid
            );
            *b -= 1;
        }
    }

    /// Reads `reg` (one operation).
    pub fn read(&mut self, reg: Reg) -> u64 {
        self.spend("read");
        let value = self.mem.get(reg);
        if self.trace_ops {
            self.ops.push((self.pid, ShmEventKind::Read { reg, value }));
        }
        value
    }

    /// Writes `value` into this process's register `name[index]` (one operation).
    pub fn write(&mut self, name: u32, index: u64, value: u64) {
        self.spend("write");
        let reg = Reg {
            owner: self.pid,
            name,
            index,
        };
        self.mem.set(reg, value);
        if self.trace_ops {
            self.ops
                .push((self.pid, ShmEventKind::Write { reg, value }));
        }
    }

    /// Reads every register at once (one operation: an atomic snapshot).
    pub fn snapshot(&mut self) -> &Memory {
        self.spend("snapshot");
        if self.trace_ops {
            self.ops.push((self.pid, ShmEventKind::Snapshot));
        }
        self.mem
    }

    /// Reports the result of a `leader()` query (the trace keeps changes).
    pub fn report_leader(&mut self, leader: Pid) {
        self.reports.push(Report::Leader(leader));
    }

    /// Reports the end of a round that found every member updated except `not_updated`.
    pub fn report_round(&mut self, not_updated: Vec<Pid>) {
        self.reports.push(Report::Round { not_updated });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes its counter on even steps, reads its successor's on odd ones; the service is the
    /// member with the largest counter.
    struct Counter {
        n: u64,
        greedy: bool,
    }

    impl ShmProcess for Counter {
        fn on_join(&mut self, ctx: &mut ShmCtx<'_>) {
            ctx.write(0, 0, 0);
        }
        fn on_join_request(&mut self, ctx: &mut ShmCtx<'_>, newcomer: Pid) {
            ctx.write(1, newcomer as u64, 7);
        }
        fn step(&mut self, ctx: &mut ShmCtx<'_>) {
            self.n += 1;
            if self.n % 2 == 0 {
                ctx.write(0, 0, self.n);
            } else {
                let m = ctx.members();
                let next = m[(m.iter().position(|&p| p == ctx.id()).unwrap() + 1) % m.len()];
                ctx.read(Reg {
                    owner: next,
                    name: 0,
                    index: 0,
                });
            }
            if self.greedy {
                ctx.write(0, 0, 1); // a second operation in one step
            }
        }
        fn service(memory: &Memory, members: &[Pid]) -> Option<Pid> {
            members.iter().copied().max_by_key(|&p| {
                memory.get(Reg {
                    owner: p,
                    name: 0,
                    index: 0,
                })
            })
        }
    }

    fn config(seed: u64) -> ShmConfig {
        ShmConfig {
            initial: 3,
            churn: vec![
                Churn {
                    at_step: 50,
                    event: ChurnEvent::Join,
                },
                Churn {
                    at_step: 80,
                    event: ChurnEvent::Crash(1),
                },
                Churn {
                    at_step: 90,
                    event: ChurnEvent::Leave(3),
                },
            ],
            speeds: Speeds {
                min: 1,
                max: 16,
                period_steps: 40,
            },
            timely: None,
            steps: 400,
            join_covers_departed: true,
            trace_ops: true,
            max_traced_ops: u64::MAX,
            seed,
        }
    }

    fn run(cfg: ShmConfig, greedy: bool) -> ShmOutcome {
        World::new(cfg, Box::new(move |_| Counter { n: 0, greedy }))
            .unwrap()
            .run()
    }

    fn steppers(t: &ShmTrace) -> Vec<(u64, Pid)> {
        t.events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    ShmEventKind::Read { .. } | ShmEventKind::Write { .. }
                )
            })
            .filter(|e| {
                e.step > 0
                    && !t
                        .events
                        .iter()
                        .any(|j| j.step == e.step && matches!(j.kind, ShmEventKind::Join { .. }))
            })
            .map(|e| (e.step, e.pid.unwrap()))
            .collect()
    }

    /// Past `max_traced_ops` no read, write or snapshot is recorded, and the trace says so
    /// once; every other event is recorded as without the bound.
    #[test]
    fn traced_operations_stop_at_their_bound_and_say_so() {
        let is_op = |k: &ShmEventKind| {
            matches!(
                k,
                ShmEventKind::Read { .. } | ShmEventKind::Write { .. } | ShmEventKind::Snapshot
            )
        };
        let full = run(config(1), false).trace;
        let bounded = run(
            ShmConfig {
                max_traced_ops: 10,
                ..config(1)
            },
            false,
        )
        .trace;
        assert!(full.events.iter().filter(|e| is_op(&e.kind)).count() > 10);
        assert_eq!(bounded.events.iter().filter(|e| is_op(&e.kind)).count(), 10);
        let cuts: Vec<&ShmEvent> = bounded
            .events
            .iter()
            .filter(|e| matches!(e.kind, ShmEventKind::OpsCut { .. }))
            .collect();
        assert_eq!(cuts.len(), 1);
        assert_eq!(cuts[0].kind, ShmEventKind::OpsCut { recorded: 10 });
        let others = |t: &ShmTrace| -> Vec<ShmEvent> {
            t.events
                .iter()
                .filter(|e| !is_op(&e.kind) && !matches!(e.kind, ShmEventKind::OpsCut { .. }))
                .cloned()
                .collect()
        };
        assert_eq!(others(&full), others(&bounded));
        assert!(bounded.to_harness().len() < full.to_harness().len());
    }

    #[test]
    fn same_seed_same_trace_and_seeds_differ() {
        let a = run(config(1), false).trace.to_jsonl();
        assert_eq!(a, run(config(1), false).trace.to_jsonl());
        assert_ne!(a, run(config(2), false).trace.to_jsonl());
        assert!(a.lines().count() > 300);
    }

    #[test]
    fn membership_ids_and_crashed_processes_stop() {
        let out = run(config(3), false);
        let t = &out.trace;
        assert_eq!(t.processes, 4);
        let join = t
            .events
            .iter()
            .find(|e| e.pid == Some(3) && matches!(e.kind, ShmEventKind::Join { .. }))
            .unwrap();
        assert_eq!(join.step, 50);
        // TASK-0-like initialization by every member, the crashed ones included
        for k in 0..3 {
            let r = Reg {
                owner: k,
                name: 1,
                index: 3,
            };
            assert_eq!(out.memory.get(r), 7);
        }
        let s = steppers(t);
        assert!(s.iter().all(|&(step, p)| !(p == 1 && step >= 80)));
        assert!(s.iter().all(|&(step, p)| !(p == 3 && step >= 90)));
        assert!(s.iter().any(|&(step, p)| p == 3 && step > 50));
        // speeds vary: step counts differ
        let counts: Vec<u64> = (0..4)
            .filter_map(|p| {
                t.events.iter().find_map(|e| match e.kind {
                    ShmEventKind::Summary { steps, .. } if e.pid == Some(p) => Some(steps),
                    _ => None,
                })
            })
            .collect();
        assert_eq!(counts.len(), 4);
        assert_eq!(counts.iter().sum::<u64>(), 400);
    }

    #[test]
    fn the_timely_process_leads_every_other_by_lead_steps() {
        let mut cfg = config(4);
        cfg.timely = Some(Timely {
            pid: 2,
            from_step: 100,
            lead_steps: 3,
        });
        let t = run(cfg, false).trace;
        let s = steppers(&t);
        let mut since: BTreeMap<Pid, u32> = BTreeMap::new();
        for &(step, p) in s.iter().filter(|&&(step, _)| step >= 100) {
            if p == 2 {
                for v in since.values_mut() {
                    *v += 1;
                }
            } else {
                if let Some(&v) = since.get(&p) {
                    assert!(
                        v >= 3,
                        "p{p} stepped at {step} after {v} steps of the timely one"
                    );
                }
                since.insert(p, 0);
            }
        }
        assert!(!since.is_empty());
    }

    #[test]
    fn a_second_operation_in_one_step_is_a_panic_of_that_process() {
        let out = run(config(5), true);
        let (_, step, message) = out.panic.expect("caught");
        assert_eq!(step, 0);
        assert!(message.contains("second memory operation"), "{message}");
    }

    #[test]
    fn memory_reads_what_was_written_in_and_out_of_the_dense_range() {
        let reg = |owner, name, index| Reg { owner, name, index };
        let regs = [
            reg(3, 1, 7),
            reg(0, 0, 0),
            reg(2, DENSE_NAME_LIMIT, 1),
            reg(2, 0, DENSE_INDEX_LIMIT + 5),
            reg(2, 0, 4),
            reg(1, 1, 0),
        ];
        let mut a = Memory::default();
        assert!(a.is_empty());
        for (i, &r) in regs.iter().enumerate() {
            a.set(r, i as u64 * 10);
        }
        a.set(reg(1, 1, 0), 0); // written with 0: still a register
        a.set(reg(3, 1, 7), 99); // rewritten: not counted twice
        assert_eq!(a.len(), 6);
        assert_eq!(a.get(reg(3, 1, 7)), 99);
        assert_eq!(a.get(reg(2, DENSE_NAME_LIMIT, 1)), 20);
        assert_eq!(a.get(reg(2, 0, DENSE_INDEX_LIMIT + 5)), 30);
        assert_eq!(a.get(reg(2, 0, 4)), 40);
        for never in [
            reg(3, 1, 6),
            reg(9, 0, 0),
            reg(0, 5, 0),
            reg(0, 0, u64::MAX),
        ] {
            assert_eq!(a.get(never), 0);
        }
        // entries in Reg order, whatever the order of the writes
        let mut sorted = regs.to_vec();
        sorted.sort();
        let listed: Vec<Reg> = a.entries().into_iter().map(|(r, _)| r).collect();
        assert_eq!(listed, sorted);
        // equality compares contents, not the order the memory was filled in
        let mut b = Memory::default();
        for (r, v) in a.entries().into_iter().rev() {
            b.set(r, v);
        }
        assert_eq!(a, b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        b.set(reg(0, 0, 1), 0);
        assert_ne!(a, b);
    }

    #[test]
    fn bad_configurations_are_refused() {
        let mut c = config(1);
        c.churn.push(Churn {
            at_step: 95,
            event: ChurnEvent::Crash(1),
        });
        assert!(c.validate().unwrap_err().contains("already left"));
        let mut c = config(1);
        c.churn[1].event = ChurnEvent::Crash(9);
        assert!(c.validate().unwrap_err().contains("has not joined"));
        let mut c = config(1);
        c.speeds.min = 0;
        assert!(c.validate().is_err());
        let mut c = config(1);
        c.steps = 0;
        assert!(c.validate().is_err());
    }
}
