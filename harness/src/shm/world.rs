//! The scheduler of the shared-memory model: membership changes, speeds, the timely regime,
//! one step at a time.

use super::trace::{ShmEvent, ShmEventKind, ShmTrace};
use super::{ChurnEvent, Memory, Pid, Report, ShmConfig, ShmCtx, ShmProcess};
use crate::engine::{in_callback, panic_message};
use crate::rng::SimRng;

/// Stream of the scheduler's choices.
const STREAM_SCHED: u64 = 0x5348_4D01;
/// Stream of the speed draws.
const STREAM_SPEED: u64 = 0x5348_4D02;

/// Builds the process with a given id when it joins.
pub type ShmFactory<P> = Box<dyn Fn(Pid) -> P>;

struct Slot<P> {
    proc: P,
    alive: bool,
    speed: u32,
    /// Steps of the timely process since this one's last step.
    since_timely: u32,
    steps: u64,
    rounds: u64,
    last_round_step: Option<u64>,
    leader_calls: u64,
    last_leader_step: Option<u64>,
    last_leader: Option<Pid>,
    last_round_set: Vec<Pid>,
}

/// The result of a shared-memory run.
#[derive(Debug)]
pub struct ShmOutcome {
    /// What happened.
    pub trace: ShmTrace,
    /// The process that panicked, the step and the message, if one did.
    pub panic: Option<(Pid, u64, String)>,
    /// The memory at the end.
    pub memory: Memory,
    /// The step at which a stop request ended the run before its end (Ctrl-C, SIGTERM, a
    /// time budget: [`crate::engine::stoppable_until`]); nothing after it ran, and the run
    /// is not to be judged.
    pub stopped_at: Option<u64>,
}

/// A shared-memory run in progress.
pub struct World<P: ShmProcess> {
    cfg: ShmConfig,
    factory: ShmFactory<P>,
    mem: Memory,
    procs: Vec<Slot<P>>,
    members: Vec<Pid>,
    churn: Vec<super::Churn>,
    next_churn: usize,
    step: u64,
    timely_on: bool,
    sched: SimRng,
    speed_rng: SimRng,
    trace: ShmTrace,
    panic: Option<(Pid, u64, String)>,
    ops: Vec<(Pid, ShmEventKind)>,
    /// Reads, writes and snapshots recorded so far (`cfg.max_traced_ops` at most).
    traced_ops: u64,
    /// The trace said no more of them are recorded ([`ShmEventKind::OpsCut`]).
    ops_cut: bool,
    reports: Vec<Report>,
    eligible: Vec<Pid>,
    /// The step a stop request ended the run at.
    stopped_at: Option<u64>,
}

impl<P: ShmProcess> World<P> {
    /// A run of `cfg` whose processes `factory` builds; the initial processes join at step 0.
    pub fn new(cfg: ShmConfig, factory: ShmFactory<P>) -> Result<Self, String> {
        let total = cfg.validate()?;
        let churn = cfg.ordered_churn();
        let mut w = World {
            sched: SimRng::derive(cfg.seed, STREAM_SCHED),
            speed_rng: SimRng::derive(cfg.seed, STREAM_SPEED),
            factory,
            mem: Memory::default(),
            procs: Vec::with_capacity(total),
            members: Vec::with_capacity(total),
            churn,
            next_churn: 0,
            step: 0,
            timely_on: false,
            trace: ShmTrace {
                processes: total,
                steps: 0,
                events: Vec::new(),
            },
            panic: None,
            ops: Vec::new(),
            traced_ops: 0,
            ops_cut: false,
            reports: Vec::new(),
            eligible: Vec::new(),
            stopped_at: None,
            cfg,
        };
        for _ in 0..w.cfg.initial {
            w.join();
        }
        Ok(w)
    }

    /// The current global step.
    pub fn now_step(&self) -> u64 {
        self.step
    }

    /// The memory.
    pub fn memory(&self) -> &Memory {
        &self.mem
    }

    /// Members (joined processes, departed ones included), in id order.
    pub fn members(&self) -> &[Pid] {
        &self.members
    }

    /// True once the run is over (its length reached, or a process panicked).
    pub fn is_done(&self) -> bool {
        self.step >= self.cfg.steps || self.panic.is_some() || self.stopped_at.is_some()
    }

    fn emit(&mut self, pid: Option<Pid>, kind: ShmEventKind) {
        self.trace.events.push(ShmEvent {
            step: self.step,
            pid,
            kind,
        });
    }

    fn flush_ops(&mut self) {
        if self.ops.is_empty() {
            return;
        }
        // The buffer is handed back, so a run allocates it once.
        let mut ops = std::mem::take(&mut self.ops);
        for (pid, kind) in ops.drain(..) {
            if self.traced_ops < self.cfg.max_traced_ops {
                self.traced_ops += 1;
                self.emit(Some(pid), kind);
            } else {
                // said once; the calls after it collect none (see `call`)
                let recorded = self.traced_ops;
                self.emit(None, ShmEventKind::OpsCut { recorded });
                self.ops_cut = true;
                break;
            }
        }
        ops.clear();
        self.ops = ops;
    }

    /// Runs `f` on process `pid` with a context allowing `budget` operations; a panic is
    /// recorded and ends the run.
    fn call(&mut self, pid: Pid, budget: Option<u32>, f: impl FnOnce(&mut P, &mut ShmCtx<'_>)) {
        let slot = &mut self.procs[pid];
        let mut ctx = ShmCtx {
            pid,
            step: self.step,
            mem: &mut self.mem,
            members: &self.members,
            budget,
            ops: &mut self.ops,
            trace_ops: self.cfg.trace_ops && !self.ops_cut,
            reports: &mut self.reports,
        };
        let proc = &mut slot.proc;
        let r = in_callback(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(proc, &mut ctx)))
        });
        self.flush_ops();
        if let Err(payload) = r {
            let message = panic_message(&*payload);
            self.emit(
                Some(pid),
                ShmEventKind::Panic {
                    message: message.clone(),
                },
            );
            self.panic = Some((pid, self.step, message));
        }
    }

    fn join(&mut self) {
        let pid = self.procs.len();
        let leader_before = P::service(&self.mem, &self.members);
        let speed = self
            .speed_rng
            .range_u64(self.cfg.speeds.min as u64, self.cfg.speeds.max as u64)
            as u32;
        self.procs.push(Slot {
            proc: (self.factory)(pid),
            alive: true,
            speed,
            since_timely: 0,
            steps: 0,
            rounds: 0,
            last_round_step: None,
            leader_calls: 0,
            last_leader_step: None,
            last_leader: None,
            last_round_set: Vec::new(),
        });
        self.call(pid, None, |p, ctx| p.on_join(ctx));
        let members = self.members.clone();
        for k in members {
            if self.panic.is_some() {
                return;
            }
            if self.procs[k].alive || self.cfg.join_covers_departed {
                self.call(k, None, |p, ctx| p.on_join_request(ctx, pid));
            }
        }
        self.reports.clear();
        self.members.push(pid);
        let leader_after = P::service(&self.mem, &self.members);
        self.emit(
            Some(pid),
            ShmEventKind::Join {
                leader_before,
                leader_after,
            },
        );
    }

    fn apply_churn(&mut self) {
        while self.panic.is_none()
            && self
                .churn
                .get(self.next_churn)
                .is_some_and(|c| c.at_step <= self.step)
        {
            let c = self.churn[self.next_churn].clone();
            self.next_churn += 1;
            match c.event {
                ChurnEvent::Join => self.join(),
                ChurnEvent::Leave(p) | ChurnEvent::Crash(p) => {
                    self.procs[p].alive = false;
                    let leader = P::service(&self.mem, &self.members);
                    let kind = if matches!(c.event, ChurnEvent::Leave(_)) {
                        ShmEventKind::Leave { leader }
                    } else {
                        ShmEventKind::Crash { leader }
                    };
                    self.emit(Some(p), kind);
                }
            }
        }
    }

    /// The timely process, when its regime is on and it is alive.
    fn timely_now(&self) -> Option<(Pid, u32)> {
        let t = self.cfg.timely.as_ref()?;
        (self.timely_on && self.procs.get(t.pid).is_some_and(|s| s.alive))
            .then_some((t.pid, t.lead_steps))
    }

    fn choose(&mut self) -> Option<Pid> {
        let timely = self.timely_now();
        self.eligible.clear();
        let mut total: u64 = 0;
        for (pid, s) in self.procs.iter().enumerate() {
            if !s.alive {
                continue;
            }
            if let Some((l, lead)) = timely {
                if pid != l && s.since_timely < lead {
                    continue;
                }
            }
            self.eligible.push(pid);
            total += s.speed as u64;
        }
        if self.eligible.is_empty() {
            return timely.map(|(l, _)| l);
        }
        let mut r = self.sched.range_u64(0, total - 1);
        for &pid in &self.eligible {
            let w = self.procs[pid].speed as u64;
            if r < w {
                return Some(pid);
            }
            r -= w;
        }
        self.eligible.last().copied()
    }

    /// Runs one global step: membership changes due now, speed redraws, then one step of
    /// the process the scheduler picks (none when nobody is alive). False once the run is
    /// over.
    pub fn step(&mut self) -> bool {
        if self.is_done() {
            return false;
        }
        // A stop request ends the run, as on the message-passing engines (an Ω run of
        // millions of steps went on for seconds after Ctrl-C and past a shrink's time cap).
        if self.step > 0
            && self.step % crate::engine::STOP_POLL_STEPS == 0
            && crate::engine::stop_requested()
        {
            self.stopped_at = Some(self.step);
            return false;
        }
        self.apply_churn();
        if self.panic.is_some() {
            return false;
        }
        if let Some(t) = &self.cfg.timely {
            if !self.timely_on && self.step >= t.from_step {
                self.timely_on = true;
                let (pid, lead) = (t.pid, t.lead_steps);
                if self.procs.get(pid).is_some_and(|s| s.alive) {
                    self.emit(Some(pid), ShmEventKind::Timely { lead_steps: lead });
                }
            }
        }
        let period = self.cfg.speeds.period_steps;
        if period > 0 && self.step > 0 && self.step % period == 0 {
            let (lo, hi) = (self.cfg.speeds.min as u64, self.cfg.speeds.max as u64);
            for s in self.procs.iter_mut().filter(|s| s.alive) {
                s.speed = self.speed_rng.range_u64(lo, hi) as u32;
            }
        }
        if let Some(pid) = self.choose() {
            self.call(pid, Some(1), |p, ctx| p.step(ctx));
            let timely = self.timely_now().map(|(l, _)| l);
            if timely == Some(pid) {
                for s in &mut self.procs {
                    s.since_timely = s.since_timely.saturating_add(1);
                }
            } else {
                self.procs[pid].since_timely = 0;
            }
            self.procs[pid].steps += 1;
            let mut reports = std::mem::take(&mut self.reports);
            for r in reports.drain(..) {
                match r {
                    Report::Leader(l) => {
                        let s = &mut self.procs[pid];
                        s.leader_calls += 1;
                        s.last_leader_step = Some(self.step);
                        if s.last_leader != Some(l) {
                            s.last_leader = Some(l);
                            self.emit(Some(pid), ShmEventKind::Leader { leader: l });
                        }
                    }
                    Report::Round { not_updated } => {
                        let s = &mut self.procs[pid];
                        s.rounds += 1;
                        s.last_round_step = Some(self.step);
                        if s.last_round_set != not_updated {
                            s.last_round_set = not_updated.clone();
                            self.emit(Some(pid), ShmEventKind::Round { not_updated });
                        }
                    }
                }
            }
            self.reports = reports;
        }
        self.step += 1;
        !self.is_done()
    }

    /// The trace so far (summaries come with [`World::finish`]).
    pub fn trace(&self) -> &ShmTrace {
        &self.trace
    }

    /// Runs steps until global step `end_step` (or the run's length, or a panic).
    pub fn run_until(&mut self, end_step: u64) {
        while self.step < end_step && self.step() {}
    }

    /// Runs to the end and returns the trace (with per-process summaries) and the memory.
    pub fn run(mut self) -> ShmOutcome {
        while self.step() {}
        self.finish()
    }

    /// Ends the run now: adds per-process summaries and returns the trace and the memory.
    pub fn finish(mut self) -> ShmOutcome {
        self.trace.steps = self.step;
        if self.panic.is_none() {
            for pid in 0..self.procs.len() {
                let s = &self.procs[pid];
                let kind = ShmEventKind::Summary {
                    steps: s.steps,
                    rounds: s.rounds,
                    last_round_step: s.last_round_step,
                    leader_calls: s.leader_calls,
                    last_leader_step: s.last_leader_step,
                };
                self.emit(Some(pid), kind);
            }
        }
        ShmOutcome {
            trace: self.trace,
            panic: self.panic,
            memory: self.mem,
            stopped_at: self.stopped_at,
        }
    }
}
