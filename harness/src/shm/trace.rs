//! The trace of a shared-memory run, and its conversion into a harness [`Trace`] so the
//! renderers (`sincro show`, `sincro replay`) work on it.

use super::{Pid, Reg};
use crate::fault::Fault;
use crate::process::Observation;
use crate::trace::{Event, EventKind, Trace};
use serde::{Deserialize, Serialize};

/// Global time of a step in the harness trace: one step is one microsecond.
pub const NS_PER_STEP: u64 = 1_000;

/// One thing that happened in a shared-memory run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShmEvent {
    /// Global step.
    pub step: u64,
    /// The process it is about (`None`: the run as a whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<Pid>,
    /// What happened.
    #[serde(flatten)]
    pub kind: ShmEventKind,
}

/// The kinds of shared-memory trace events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum ShmEventKind {
    /// The process's `join()` returned: it is a member. The service's output (ground truth,
    /// [`super::ShmProcess::service`]) just before and just after.
    Join {
        /// Output over the members before the join.
        leader_before: Option<Pid>,
        /// Output over the members after it.
        leader_after: Option<Pid>,
    },
    /// The process leaves for good.
    Leave {
        /// The service's output at that moment.
        leader: Option<Pid>,
    },
    /// The process crashes.
    Crash {
        /// The service's output at that moment.
        leader: Option<Pid>,
    },
    /// The timely regime starts for this process.
    Timely {
        /// Its steps between two steps of any other process.
        lead_steps: u32,
    },
    /// A read (only with `trace_ops`).
    Read {
        /// The register.
        reg: Reg,
        /// The value read.
        value: u64,
    },
    /// A write (only with `trace_ops`).
    Write {
        /// The register.
        reg: Reg,
        /// The value written.
        value: u64,
    },
    /// An atomic snapshot (only with `trace_ops`).
    Snapshot,
    /// No more reads, writes or snapshots are recorded from here on: `recorded` were, the
    /// most [`super::ShmConfig::max_traced_ops`] allows.
    OpsCut {
        /// Reads, writes and snapshots recorded before.
        recorded: u64,
    },
    /// The process's `leader()` returned something else than its previous call (or this is
    /// its first call).
    Leader {
        /// The result.
        leader: Pid,
    },
    /// A round of the algorithm ended and did not find these members updated (recorded when
    /// the set differs from the one of the process's previous round, which starts empty).
    Round {
        /// Members not found updated (punished).
        not_updated: Vec<Pid>,
    },
    /// Per-process totals at the end of the run.
    Summary {
        /// Steps it took.
        steps: u64,
        /// Rounds it completed.
        rounds: u64,
        /// Step of its last completed round.
        last_round_step: Option<u64>,
        /// `leader()` calls.
        leader_calls: u64,
        /// Step of its last `leader()` call.
        last_leader_step: Option<u64>,
    },
    /// The process panicked (the run stops).
    Panic {
        /// The message.
        message: String,
    },
}

/// A recorded shared-memory run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShmTrace {
    /// Processes of the run (ids `0..processes`).
    pub processes: usize,
    /// Steps the run took.
    pub steps: u64,
    /// The events, in order.
    pub events: Vec<ShmEvent>,
}

impl ShmTrace {
    /// The trace as JSON Lines: a header, then one event per line.
    pub fn to_jsonl(&self) -> String {
        let mut out = serde_json::json!({
            "sincro_shm_trace": 1,
            "processes": self.processes,
            "steps": self.steps,
        })
        .to_string();
        out.push('\n');
        for e in &self.events {
            out.push_str(&serde_json::to_string(e).expect("events serialize"));
            out.push('\n');
        }
        out
    }

    /// The same run as a harness [`Trace`], one event per shared-memory event (so event ids
    /// are the indices in [`ShmTrace::events`]): a step is 1 µs of global time; crashes are
    /// crash faults, leader changes are [`Observation::Leader`] (term 0), everything else is
    /// an [`Observation::Note`].
    pub fn to_harness(&self) -> Trace {
        let mut t = Trace::new(self.processes, Vec::with_capacity(self.events.len()));
        for (i, e) in self.events.iter().enumerate() {
            let note = |text: String| EventKind::Observe {
                obs: Observation::Note { text },
            };
            let who = |p: &Option<Pid>| p.map_or("none".to_string(), |p| format!("p{p}"));
            let kind = match &e.kind {
                ShmEventKind::Join {
                    leader_before,
                    leader_after,
                } => note(format!(
                    "join() returned; leader() was {} and is {}",
                    who(leader_before),
                    who(leader_after)
                )),
                ShmEventKind::Leave { leader } => {
                    note(format!("leaves for good; leader() is {}", who(leader)))
                }
                ShmEventKind::Crash { .. } => EventKind::Fault {
                    fault: Fault::Crash {
                        node: e.pid.unwrap_or(0),
                    },
                },
                ShmEventKind::Timely { lead_steps } => note(format!(
                    "timely from now on: at least {lead_steps} steps between two steps of any other process"
                )),
                ShmEventKind::Read { reg, value } => note(format!(
                    "read r{}.{}[{}] = {value}",
                    reg.owner, reg.name, reg.index
                )),
                ShmEventKind::Write { reg, value } => note(format!(
                    "write r{}.{}[{}] := {value}",
                    reg.owner, reg.name, reg.index
                )),
                ShmEventKind::Snapshot => note("snapshot".into()),
                ShmEventKind::OpsCut { recorded } => note(format!(
                    "reads, writes and snapshots are no longer recorded: {recorded} were, the \
                     most limits.max_trace_bytes allows"
                )),
                ShmEventKind::Leader { leader } => EventKind::Observe {
                    obs: Observation::Leader {
                        leader: Some(*leader),
                        term: 0,
                    },
                },
                ShmEventKind::Round { not_updated } => {
                    note(format!("rounds now punish {not_updated:?} (not updated)"))
                }
                ShmEventKind::Summary {
                    steps,
                    rounds,
                    leader_calls,
                    ..
                } => note(format!(
                    "summary: {steps} steps, {rounds} rounds, {leader_calls} leader() calls"
                )),
                ShmEventKind::Panic { message } => EventKind::Panic {
                    message: message.clone(),
                },
            };
            t.events_mut().push(Event {
                id: i as u64,
                t_ns: e.step * NS_PER_STEP,
                node: e.pid,
                local_ns: None,
                kind,
            });
        }
        t
    }
}
