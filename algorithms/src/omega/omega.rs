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
//! Steps: a process alternates TASK 1 (even local steps) with TASK 2 (odd ones); every
//! `leader_every`-th odd step is a `leader()` query instead, reported to the trace. Each step
//! is one memory operation; `leader()` is modelled as one atomic snapshot (the text reads the
//! `n²` registers one by one; a snapshot is a stronger, shorter model of the same query), and
//! so is the `leader()` inside TASK 0.
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

use sincro_harness::shm::{Memory, Pid, Reg, ShmCtx, ShmProcess};
use std::collections::{BTreeMap, BTreeSet};

/// Register array `Alive` (index 0).
pub const ALIVE: u32 = 0;
/// Register array `Punishments` (index: the punished process).
pub const PUNISHMENTS: u32 = 1;

/// Which version of the algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Algorithm 1 as in the text.
    Correct,
    /// TASK 0 writes 0 instead of `Punishments[i][leader()] + 1`.
    JoinZero,
    /// TASK 2 never writes a punishment.
    NeverPunish,
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
    /// `last_alive_i[j]` (0 when absent).
    last_alive: BTreeMap<Pid, u64>,
    /// `updated_i`.
    updated: BTreeSet<Pid>,
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
            last_alive: BTreeMap::new(),
            updated: BTreeSet::new(),
            phase: Phase::Start,
            local_steps: 0,
            odd_steps: 0,
        }
    }

    fn not_updated(&self, members: &[Pid]) -> Vec<Pid> {
        members
            .iter()
            .copied()
            .filter(|j| !self.updated.contains(j))
            .collect()
    }

    /// One step of TASK 2: at most one memory operation.
    fn task2(&mut self, ctx: &mut ShmCtx<'_>) {
        let me = ctx.id();
        // Bounded: each transition without a memory operation moves the phase forward, and
        // at most one pass restarts per step.
        for _ in 0..4 {
            match &mut self.phase {
                Phase::Start => {
                    self.updated.clear();
                    self.updated.insert(me);
                    self.phase = Phase::Scan {
                        queue: self.not_updated(ctx.members()),
                        idx: 0,
                    };
                    if self.updated.len() >= self.alpha {
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
                        if self.last_alive.get(&j).copied().unwrap_or(0) != v {
                            self.last_alive.insert(j, v);
                            self.updated.insert(j);
                        }
                        return;
                    }
                    let rest = self.not_updated(ctx.members());
                    if self.updated.len() < self.alpha {
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
