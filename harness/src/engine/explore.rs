//! The exploration engine: one execution of a scenario in which every nondeterministic choice
//! is taken from outside, one [`Choice`] at a time ([`World::step`]), for the bounded
//! exhaustive search of [`crate::explore`].
//!
//! The native engine draws a latency for every message from the seed; here a message is
//! instead *in flight* with a delivery window `[sent + min latency, sent + max latency]` of its
//! link, and the search decides which pending event happens next:
//!
//! - **Timed semantics** (the default): an event is *enabled* when its earliest time is not
//!   after the *horizon*, the smallest latest time of all pending events (so taking it cannot
//!   make another event late), and not after the scenario's end. Taking it moves global time
//!   to `max(now, earliest)`. Timers fire exactly at their deadline (window of one instant),
//!   workload inputs and the fault plan's entries exactly at their `at_ms`. Every explored
//!   path is therefore a run the native engine could produce with some latency draw (each
//!   event at the earliest instant its window and the order allow): a counterexample is
//!   real. Not every timed run is explored (an event is never taken later than that instant).
//! - **Untimed semantics** (`timed = false`): messages and timers have no latest time; any
//!   pending message or timer may be taken next, after any others (asynchrony: timeouts can
//!   misfire). Inputs and the fault plan stay at their times. Use it only for algorithms whose
//!   fault model is asynchronous, else it finds violations outside the model.
//!
//! Links with `reorder = 0` are FIFO (as on the native engine): only the oldest message in
//! flight on a link is deliverable. Nodes start at time 0, in id order, before anything else.
//!
//! Besides the schedule, the search may choose faults, each bounded by a count in
//! [`Bounds`] and only before `Bounds::faults_until_ns`: lose a message in flight, duplicate
//! one, crash a node, restart a node it crashed.
//!
//! The fault plan of the scenario may hold crashes, restarts, clock jumps, drift changes and
//! heals (a no-op: the explorer has no partitions); other faults are refused.

use super::{
    invariant, invoke, Call, Factory, Held, Outcome, Prepared, Recorder, RunOptions, Stats, Verdict,
};
use crate::check::Checker;
use crate::clock::SoftClock;
use crate::fault::Fault;
use crate::fault::TimedFault;
use crate::net::{DropReason, Network};
use crate::process::{Ctx, Effects, Peers, Process, TimerId};
use crate::rng::SimRng;
use crate::scenario::{Expect, Limits, Scenario, ScenarioError};
use crate::schedule::{Recorded, Schedule};
use crate::trace::EventKind;
use crate::{NodeId, NS_PER_MS};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// One nondeterministic choice: what happens next. Every field names the event in a way that
/// does not depend on how concurrent events were interleaved before it (a message by its
/// sender and the sender's own count of callbacks), so a choice also names "the same event"
/// in another state (sleep sets rely on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    /// The scenario's fault plan entry `index` happens (at its time).
    Fault {
        /// Index in `faults`.
        index: usize,
    },
    /// The workload input `index` is given (at its time).
    Input {
        /// Index in `workload`.
        index: usize,
    },
    /// Timer `id` of `node` fires.
    Timer {
        /// The node.
        node: NodeId,
        /// Its incarnation (a restart forgets timers).
        incarnation: u32,
        /// The timer.
        id: u64,
    },
    /// A message is delivered.
    Deliver(MsgKey),
    /// A message in flight is lost.
    Lose(MsgKey),
    /// A message in flight is duplicated (one more copy in flight, same window).
    Duplicate(MsgKey),
    /// The search crashes `node`.
    Crash {
        /// The node.
        node: NodeId,
    },
    /// The search restarts `node`, which it crashed.
    Restart {
        /// The node.
        node: NodeId,
    },
    /// The search pauses `node` (a slow process: its deliveries, timers and inputs wait).
    Pause {
        /// The node.
        node: NodeId,
    },
    /// The search resumes `node`, which it paused: what waited is taken in arrival order.
    Resume {
        /// The node.
        node: NodeId,
    },
}

impl Choice {
    /// Whether the search injects this fault (a loss, a duplicate, a crash or a pause; a
    /// restart or a resume only ends one, and a planned fault is the scenario's).
    pub fn is_injected(&self) -> bool {
        matches!(
            self,
            Choice::Lose(_) | Choice::Duplicate(_) | Choice::Crash { .. } | Choice::Pause { .. }
        )
    }
}

/// Names a message in flight independently of the interleaving: its link, the sender's
/// callback count when it was sent, its position among that callback's sends, and a copy
/// number (duplicates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct MsgKey {
    /// Destination.
    pub to: NodeId,
    /// Sender.
    pub from: NodeId,
    /// The sender's callback count at the send.
    pub call: u64,
    /// The send's position in that callback's sends.
    pub op: u32,
    /// 0 for the original, k for the k-th duplicate.
    pub copy: u32,
}

impl Choice {
    /// The node whose state the choice changes (`None`: only the network).
    fn node(&self) -> Option<NodeId> {
        match *self {
            Choice::Timer { node, .. }
            | Choice::Crash { node }
            | Choice::Restart { node }
            | Choice::Pause { node }
            | Choice::Resume { node } => Some(node),
            Choice::Deliver(k) => Some(k.to),
            Choice::Lose(_) | Choice::Duplicate(_) => None,
            Choice::Input { .. } | Choice::Fault { .. } => None, // resolved by the world
        }
    }

    /// A fault the search injects (not the schedule, not the scenario).
    fn is_injected_fault(&self) -> bool {
        matches!(
            self,
            Choice::Lose(_)
                | Choice::Duplicate(_)
                | Choice::Crash { .. }
                | Choice::Restart { .. }
                | Choice::Pause { .. }
                | Choice::Resume { .. }
        )
    }

    /// A node fault the search injects: it becomes an entry of the native fault plan, so it
    /// happens at a whole millisecond (see [`World::enabled`]).
    fn is_node_fault(&self) -> bool {
        matches!(
            self,
            Choice::Crash { .. }
                | Choice::Restart { .. }
                | Choice::Pause { .. }
                | Choice::Resume { .. }
        )
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Fault { index } => write!(f, "fault plan entry {index}"),
            Choice::Input { index } => write!(f, "workload input {index}"),
            Choice::Timer { node, id, .. } => write!(f, "timer {id} of node {node} fires"),
            Choice::Deliver(k) => {
                write!(f, "deliver {}->{} (send {}.{})", k.from, k.to, k.call, k.op)
            }
            Choice::Lose(k) => write!(f, "lose {}->{} (send {}.{})", k.from, k.to, k.call, k.op),
            Choice::Duplicate(k) => {
                write!(
                    f,
                    "duplicate {}->{} (send {}.{})",
                    k.from, k.to, k.call, k.op
                )
            }
            Choice::Crash { node } => write!(f, "crash node {node}"),
            Choice::Restart { node } => write!(f, "restart node {node}"),
            Choice::Pause { node } => write!(f, "pause node {node}"),
            Choice::Resume { node } => write!(f, "resume node {node}"),
        }
    }
}

/// What the search may do beyond choosing the order of events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// Timed semantics (see the module documentation); false: untimed.
    pub timed: bool,
    /// Messages the search may lose.
    pub loss: u32,
    /// Messages the search may duplicate.
    pub duplicate: u32,
    /// Crashes the search may inject.
    pub crashes: u32,
    /// Whether a crashed node may be restarted (crash-recovery rather than crash-stop).
    pub restarts: bool,
    /// Nodes the search may leave crashed for good: a complete path on which more nodes it
    /// crashed are still down when the faults end is not judged for liveness (a model of
    /// crashes with restart promises liveness once they are back: 0; one that also tolerates
    /// crash-stop, with one node gone for good, as the generator draws it: 1; `u32::MAX`:
    /// judge every path, as before this bound; files written before it read as 0, which
    /// does not change how their schedule replays).
    #[serde(default)]
    pub crash_stops: u32,
    /// Pauses the search may inject (each resumed later by a choice of the search).
    #[serde(default)]
    pub pauses: u32,
    /// Injected faults only strictly before this global time, ns.
    pub faults_until_ns: u64,
}

impl Bounds {
    /// Checks the bounds read from a file: the end of the injected faults must fall within
    /// the limit on any time (a run lasts 1 ms past it). The counts are upper bounds on what
    /// a schedule may inject, so any count is valid.
    pub fn validate(&self) -> Result<(), String> {
        let max_ns = (crate::MAX_TIME_MS - 1) * NS_PER_MS;
        if self.faults_until_ns > max_ns {
            return Err(format!(
                "bounds.faults_until_ns = {} is outside [0, {max_ns}] ns (the run lasts 1 ms past \
                 it, within the limit on any time)",
                self.faults_until_ns
            ));
        }
        Ok(())
    }
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            timed: true,
            loss: 0,
            duplicate: 0,
            crashes: 0,
            restarts: false,
            crash_stops: 0,
            pauses: 0,
            faults_until_ns: 0,
        }
    }
}

/// A small deterministic 128-bit hasher (two multiply-xorshift lanes): fingerprints and
/// histories. Not cryptographic; a collision merges two states (probability about
/// `states² / 2^129`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct H(pub u64, pub u64);

impl H {
    #[inline]
    pub fn u(&mut self, x: u64) {
        self.0 = mix(self.0 ^ x, 0x9E37_79B9_7F4A_7C15);
        self.1 = mix(self.1.wrapping_add(x), 0xC2B2_AE3D_27D4_EB4F);
    }
    pub fn get(self) -> u128 {
        ((self.0 as u128) << 64) | self.1 as u128
    }
}

#[inline]
fn mix(x: u64, k: u64) -> u64 {
    let mut z = x.wrapping_mul(k);
    z ^= z >> 29;
    z = z.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 32)
}

impl fmt::Write for H {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for chunk in s.as_bytes().chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.u(u64::from_le_bytes(b));
        }
        Ok(())
    }
}

fn hash_debug(v: &dyn fmt::Debug) -> u64 {
    use fmt::Write as _;
    let mut h = H::default();
    let _ = write!(h, "{v:?}");
    h.0 ^ h.1.rotate_left(17)
}

struct InFlight<P: Process> {
    key: MsgKey,
    msg: P::Msg,
    msg_id: u64,
    /// Index of its send event in the trace.
    sent: u64,
    /// Global time of the send.
    sent_at: u64,
    /// Global send order (FIFO links deliver in it; duplicates share it).
    fifo: u64,
    /// The native engine's queue order (its push order; FIFO links deliver in it;
    /// duplicates share it and are told apart by their copy number).
    seq: u64,
    earliest: u64,
    latest: u64,
    content: u64,
    /// When it reached a node that was paused (it waited there; see [`World::resume`]).
    arrival: Option<u64>,
    /// Its entry in the native export ([`Export`]), if exported.
    rec: Option<usize>,
    /// The most messages in flight at any send since its own, itself included: a duplicate
    /// made now was, on the native engine, in flight at each of those sends too (the native
    /// engine counts both copies of a duplicated message from its send on).
    peak: u64,
}

struct XTimer<T> {
    at: u64,
    deadline_local_ns: i64,
    timer: T,
    /// The native engine's queue order.
    seq: u64,
}

/// What the native engine needs to reproduce an execution: each message's fate (its arrival
/// delays, or lost) keyed as [`Schedule::Recorded`] keys it, and the faults the search injected.
#[derive(Default)]
struct Export {
    recorded: Vec<(Recorded, bool)>,
    nth: BTreeMap<(NodeId, NodeId, String), u32>,
    injected: Vec<TimedFault>,
}

/// Queue order bands of the native engine: starts, then the fault plan (index order), then
/// the workload (index order), then everything pushed while running.
const INPUT_BAND: u64 = 1 << 40;
const DYNAMIC_BAND: u64 = 1 << 41;

struct XNode<P: Process> {
    proc: Option<P>,
    stable: P::Stable,
    clock: SoftClock,
    rng: SimRng,
    timers: BTreeMap<TimerId, XTimer<P::Timer>>,
    next_timer: u64,
    incarnation: u32,
    /// Callbacks run so far (all incarnations).
    calls: u64,
    /// Hash of every event this node took part in (all incarnations, with global times): a
    /// deterministic process's state, stable storage, RNG and timers are a function of it.
    history: H,
    crashed_by_search: bool,
    /// Paused by the search and not resumed yet.
    paused_by_search: bool,
    /// Paused since this global time (`None`: running).
    paused_at: Option<u64>,
    /// When a restart last started this node: the search crashes it no earlier than the next
    /// ms, since the native engine does not run a node restarted and crashed (or restarted
    /// again) in one ms (its fault plan holds the injected crash after the restart).
    restarted_at: Option<u64>,
}

/// One execution of a scenario driven by explicit choices.
pub struct World<P: Process> {
    n: usize,
    now: u64,
    end_ns: u64,
    nodes: Vec<XNode<P>>,
    net: Network,
    msgs: Vec<InFlight<P>>,
    /// Workload inputs: time, node, the input (taken: `None`), native queue order.
    inputs: Vec<(u64, NodeId, Option<P::Input>, u64)>,
    faults: Vec<(u64, Fault, bool)>,
    fx: Effects<P>,
    factory: Factory<P>,
    rec: Recorder,
    next_msg_id: u64,
    next_seq: u64,
    limits: Limits,
    stats: Stats,
    bounds: Bounds,
    lost: u32,
    duplicated: u32,
    crashed: u32,
    paused: u32,
    /// Whether a pause the search injected ended at or after `Bounds::faults_until_ns`.
    late_resume: bool,
    /// The last time a delivery, timer or input was taken (a fault of the native plan at
    /// that instant would come before it, so an injected fault waits for the next ms).
    last_event_at: Option<u64>,
    /// The node of the callback running now (for [`Choice`] keys of its sends).
    sending: (NodeId, u64, u32),
    export: Option<Export>,
}

const NEVER: u64 = u64::MAX;

/// A pending event as the native queue holds it: the choice that takes it, its queue order,
/// its earliest and latest times, and whether it is a message (whose time may still move).
type Queued = (Choice, (u64, u32), u64, u64, bool);

/// The explorer's half of the callback core ([`super::after_callback`]).
impl<P: Process> super::Host<P> for World<P> {
    fn now_ns(&self) -> u64 {
        self.now
    }

    fn local_ns(&mut self, id: NodeId) -> i64 {
        self.nodes[id].clock.read(self.now)
    }

    fn rec(&mut self) -> &mut Recorder {
        &mut self.rec
    }

    fn fx(&mut self) -> &mut Effects<P> {
        &mut self.fx
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: P::Msg) {
        World::send(self, from, to, msg);
    }

    fn set_timer(&mut self, id: NodeId, tid: TimerId, deadline_local_ns: i64, timer: P::Timer) {
        let node = &mut self.nodes[id];
        let at = node.clock.global_time_at(self.now, deadline_local_ns);
        self.next_seq += 1;
        node.timers.insert(
            tid,
            XTimer {
                at,
                deadline_local_ns,
                timer,
                seq: self.next_seq,
            },
        );
    }

    fn cancel_timer(&mut self, id: NodeId, tid: TimerId) {
        self.nodes[id].timers.remove(&tid);
    }

    fn clock_changed(&mut self, id: NodeId) {
        self.reschedule_timers(id);
    }

    fn clock_mut(&mut self, id: NodeId) -> &mut crate::clock::SoftClock {
        &mut self.nodes[id].clock
    }

    fn sent_and_limit(&self) -> (u64, u64) {
        (self.stats.sent, self.limits.max_sent)
    }
}

impl<P: Process> World<P> {
    /// Prepares `scenario` and starts every node (time 0, id order).
    pub fn new(
        scenario: &Scenario,
        factory: Factory<P>,
        checkers: Vec<Box<dyn Checker>>,
        bounds: Bounds,
        options: RunOptions,
    ) -> Result<Self, ScenarioError> {
        Self::build(scenario, factory, checkers, bounds, options, false)
    }

    /// [`World::new`], also recording what [`World::native_scenario`] needs (each message's
    /// rendering and fate: slower, for replaying one schedule).
    pub fn exporting(
        scenario: &Scenario,
        factory: Factory<P>,
        checkers: Vec<Box<dyn Checker>>,
        bounds: Bounds,
        options: RunOptions,
    ) -> Result<Self, ScenarioError> {
        Self::build(scenario, factory, checkers, bounds, options, true)
    }

    fn build(
        scenario: &Scenario,
        factory: Factory<P>,
        checkers: Vec<Box<dyn Checker>>,
        bounds: Bounds,
        options: RunOptions,
        export: bool,
    ) -> Result<Self, ScenarioError> {
        let prep = Prepared::<P>::new(scenario)?;
        let n = scenario.nodes;
        explorable(scenario)?;
        let net = Network::new(n, &scenario.network)
            .map_err(|e| ScenarioError(format!("network: {e}")))?;
        let nodes = prep
            .clocks
            .into_iter()
            .zip(prep.rngs)
            .map(|(clock, rng)| XNode {
                proc: None,
                stable: P::Stable::default(),
                clock,
                rng,
                timers: BTreeMap::new(),
                next_timer: 0,
                incarnation: 0,
                calls: 0,
                history: H::default(),
                crashed_by_search: false,
                restarted_at: None,
                paused_by_search: false,
                paused_at: None,
            })
            .collect();
        let mut w = World {
            n,
            now: 0,
            end_ns: prep.end_ns,
            nodes,
            net,
            msgs: Vec::new(),
            inputs: prep
                .inputs
                .into_iter()
                .enumerate()
                .map(|(j, (at, node, i))| (at, node, Some(i), INPUT_BAND + j as u64))
                .collect(),
            faults: scenario
                .faults
                .iter()
                .map(|f| (f.at_ms * NS_PER_MS, f.fault.clone(), false))
                .collect(),
            fx: Effects::with_ops_max(scenario.limits.max_ops_per_callback),
            factory,
            rec: Recorder::new(n, checkers, options, scenario.limits.max_trace_bytes),
            next_msg_id: 0,
            next_seq: DYNAMIC_BAND,
            limits: scenario.limits.clone(),
            stats: Stats::default(),
            bounds,
            lost: 0,
            duplicated: 0,
            crashed: 0,
            paused: 0,
            late_resume: false,
            last_event_at: None,
            sending: (0, 0, 0),
            export: export.then(Export::default),
        };
        for id in 0..n {
            if w.rec.verdict.is_some() {
                break;
            }
            w.start(id);
        }
        Ok(w)
    }

    /// Global time now, ns.
    pub fn now_ns(&self) -> u64 {
        self.now
    }

    /// The verdict so far (`None` while nothing went wrong).
    pub fn verdict(&self) -> Option<&Verdict> {
        self.rec.verdict.as_ref()
    }

    /// Ends the execution at the scenario's end (checkers judge what is open) and returns the
    /// outcome. Call it only on a complete execution (no choice left) for a judgement of
    /// liveness; the explorer does not call it on paths cut by a bound.
    pub fn finish(mut self) -> Outcome {
        let end = if self.rec.verdict.is_some() {
            self.now
        } else {
            self.end_ns.max(self.now)
        };
        let verdict = self.rec.finish(end);
        self.stats.end_t_ns = end;
        Outcome {
            verdict,
            trace: self.rec.trace.take(),
            stats: self.stats,
        }
    }

    /// When no enabled choice can happen at the current instant, the instant is over in
    /// every continuation, and the checkers that judge an instant once it is over (mutual
    /// exclusion, one leader per term, …: at the next later event, or at the end) judge it
    /// now: the safety violation one of them finds, if any, becomes the verdict. Without this
    /// the search saw such a violation only one choice later, at the next instant's first
    /// event: a "shortest" counterexample carried one unrelated step, and a path the depth
    /// bound cut right after the violating event was never judged (stop 57). The checkers
    /// have then judged their end: take no further step (finish or drop the world).
    ///
    /// A loss or a duplication the search may still inject does not keep the instant open:
    /// it is always enabled (its window is `(now, never)`) and adds nothing any of these
    /// checkers reads at this instant (a message due now has its delivery enabled now, which
    /// does keep it open). Counted, a spare `--dup` or `--loss` budget kept every instant
    /// open: a 4-choice violation cut at depth 4 was "no violation within the bound", and
    /// without the cut the counterexample carried one unrelated step.
    pub fn judge_closed_instant(&mut self, enabled: &[Choice]) -> Option<&Verdict> {
        let closed = !enabled.is_empty()
            && enabled
                .iter()
                .filter(|c| !matches!(c, Choice::Lose(_) | Choice::Duplicate(_)))
                .all(|c| self.window(c).0 > self.now);
        if self.rec.verdict.is_some() || !closed {
            return None;
        }
        self.judge_instant_now()
    }

    /// [`World::judge_closed_instant`] at the end of a path, where nothing is enabled: its
    /// last instant is over. A path not judged as a whole (a pause or a crash of the search
    /// outlived the faults) still breaks a safety property there: two nodes entering at the
    /// last instant were no violation on such a path (stop 65's probe).
    pub fn judge_last_instant(&mut self) -> Option<&Verdict> {
        if self.rec.verdict.is_some() {
            return None;
        }
        self.judge_instant_now()
    }

    fn judge_instant_now(&mut self) -> Option<&Verdict> {
        let now = self.now;
        let found = self.rec.checkers.iter_mut().find_map(|c| {
            c.finish(now)
                .err()
                .filter(|v| v.class == crate::PropertyClass::Safety)
        })?;
        self.rec.verdict = Some(Verdict::Violation(found));
        self.rec.verdict.as_ref()
    }

    /// Whether the checker of `property` reads when the faults stop
    /// ([`Checker::judged_once_the_faults_stop`]; a liveness property does by its class).
    pub fn judged_once_the_faults_stop(&self, property: &str) -> bool {
        self.rec
            .checkers
            .iter()
            .any(|c| c.property() == property && c.judged_once_the_faults_stop())
    }

    /// True when a pause the search injected outlived the faults (resumed at or after
    /// `Bounds::faults_until_ns`, or never): liveness, judged from the end of the faults,
    /// cannot be judged on such a path (a node paused to the end looks like a crashed one).
    pub fn pause_outlived_faults(&self) -> bool {
        self.late_resume
            || self
                .nodes
                .iter()
                .any(|n| n.paused_by_search && n.proc.is_some())
    }

    /// True when more nodes the search crashed are still down than
    /// [`Bounds::crash_stops`] allows: liveness, judged from the end of the faults, is
    /// promised once crashed nodes are back (or with at most that many gone for good), so it
    /// cannot be judged on such a path.
    pub fn crash_outlived_faults(&self) -> bool {
        let down = self
            .nodes
            .iter()
            .filter(|n| n.crashed_by_search && n.proc.is_none())
            .count();
        down > self.bounds.crash_stops as usize
    }

    /// Ends an execution cut before it was complete: a violation or panic found on the way
    /// stands; otherwise nothing at the end is judged (liveness could still be met), so the
    /// verdict is [`Verdict::Unjudged`], never a pass.
    pub fn finish_cut(mut self, why: &str) -> Outcome {
        let verdict = match self.rec.verdict.take() {
            Some(v) => v,
            None => Verdict::Unjudged {
                property: "exploration".into(),
                reason: why.into(),
            },
        };
        self.stats.end_t_ns = self.now;
        Outcome {
            verdict,
            trace: self.rec.trace.take(),
            stats: self.stats,
        }
    }

    /// The trace recorded so far (when recording).
    pub fn trace(&self) -> Option<&crate::Trace> {
        self.rec.trace.as_ref()
    }

    fn window(&self, c: &Choice) -> (u64, u64) {
        match *c {
            Choice::Fault { index } => (self.faults[index].0, self.faults[index].0),
            Choice::Input { index } => (self.inputs[index].0, self.inputs[index].0),
            Choice::Timer { node, id, .. } => {
                let at = self.nodes[node].timers[&TimerId(id)].at.max(self.now);
                (at, if self.bounds.timed { at } else { NEVER })
            }
            Choice::Deliver(k) => {
                let m = self.msg(&k).held("explore: a pending message is in flight");
                (m.earliest.max(self.now), m.latest)
            }
            Choice::Crash { .. }
            | Choice::Restart { .. }
            | Choice::Pause { .. }
            | Choice::Resume { .. } => {
                let t = self.node_fault_instant();
                (t, t)
            }
            Choice::Lose(_) | Choice::Duplicate(_) => (self.now, NEVER),
        }
    }

    /// When an injected node fault happens: at a whole millisecond (the native fault plan is
    /// in ms), now if now is one and no delivery, timer or input was taken at it yet (the
    /// native engine takes the plan's entries before those at one instant), else the next.
    fn node_fault_instant(&self) -> u64 {
        if self.now % NS_PER_MS == 0 && self.last_event_at != Some(self.now) {
            self.now
        } else {
            (self.now / NS_PER_MS + 1) * NS_PER_MS
        }
    }

    fn msg(&self, k: &MsgKey) -> Option<&InFlight<P>> {
        self.msgs.iter().find(|m| m.key == *k)
    }

    fn is_paused(&self, id: NodeId) -> bool {
        self.nodes[id].paused_at.is_some()
    }

    /// The native engine's queue order of a pending event (`None`: injected faults and
    /// network faults, which are not queued).
    fn order_of(&self, c: &Choice) -> Option<(u64, u32)> {
        match *c {
            Choice::Fault { index } => Some((index as u64, 0)),
            Choice::Input { index } => Some((self.inputs[index].3, 0)),
            Choice::Timer { node, id, .. } => Some((self.nodes[node].timers[&TimerId(id)].seq, 0)),
            Choice::Deliver(k) => self.msg(&k).map(|m| (m.seq, k.copy)),
            _ => None,
        }
    }

    /// The pending events the native engine would pop (events of a paused node wait there
    /// instead): (choice, queue order, earliest time, latest time, is a message).
    fn queued(&self) -> Vec<Queued> {
        let mut out = Vec::new();
        for (i, f) in self.faults.iter().enumerate() {
            if !f.2 {
                out.push((Choice::Fault { index: i }, (i as u64, 0), f.0, f.0, false));
            }
        }
        for (i, inp) in self.inputs.iter().enumerate() {
            if inp.2.is_some() && !self.is_paused(inp.1) {
                out.push((Choice::Input { index: i }, (inp.3, 0), inp.0, inp.0, false));
            }
        }
        for (id, node) in self.nodes.iter().enumerate() {
            if node.paused_at.is_some() {
                continue;
            }
            for (tid, t) in &node.timers {
                let c = Choice::Timer {
                    node: id,
                    incarnation: node.incarnation,
                    id: tid.0,
                };
                out.push((c, (t.seq, 0), t.at, t.at, false));
            }
        }
        for m in &self.msgs {
            if !self.is_paused(m.key.to) {
                let c = Choice::Deliver(m.key);
                out.push((c, (m.seq, m.key.copy), m.earliest, m.latest, true));
            }
        }
        out
    }

    /// Every choice enabled now, in a canonical order (empty: the execution is complete).
    ///
    /// Besides the horizon, an event is taken only where the native engine's queue order
    /// allows it (so that every explored path is a native run with some delays, which
    /// [`World::native_scenario`] writes down): at one instant the native engine pops in push
    /// order, so an event at `t` is enabled only if every pending event pushed before it
    /// that could come at `t` can be delayed past `t` (a message whose window reaches past
    /// `t`: [`World::step`] then moves its earliest time to `t + 1 ns`); a timer, an input or
    /// a plan entry due at `t` and pushed before it is taken first.
    pub fn enabled(&self) -> Vec<Choice> {
        if self.rec.verdict.is_some() {
            return Vec::new();
        }
        let queued = self.queued();
        let mut events: Vec<Choice> = Vec::new();
        for &(c, ..) in &queued {
            if let Choice::Deliver(k) = c {
                let fifo = self.net.link(k.from, k.to).reorder == 0.0 && k.from != k.to;
                let order = self
                    .msg(&k)
                    .held("explore: a queued message is in flight")
                    .fifo;
                if fifo
                    && self
                        .msgs
                        .iter()
                        .any(|m| m.key.from == k.from && m.key.to == k.to && m.fifo < order)
                {
                    continue;
                }
            }
            events.push(c);
        }
        // The horizon: nothing may be taken later than some pending event's latest time.
        let mut horizon = self.end_ns;
        for &(_, _, _, latest, _) in &queued {
            horizon = horizon.min(latest);
        }
        let windows: Vec<(u64, u64)> = events.iter().map(|c| self.window(c)).collect();
        let mut i = 0;
        events.retain(|c| {
            let t = windows[i].0;
            i += 1;
            t <= horizon && self.in_native_order(c, t, &queued)
        });
        let mut keys: Vec<MsgKey> = self.msgs.iter().map(|m| m.key).collect();
        keys.sort();
        if self.now < self.bounds.faults_until_ns
            && (self.lost < self.bounds.loss || self.duplicated < self.bounds.duplicate)
        {
            for &k in &keys {
                if k.from == k.to {
                    continue;
                }
                if self.lost < self.bounds.loss {
                    events.push(Choice::Lose(k));
                }
                // (a copy needs room in flight at every send since the message's own: the
                // native engine counts both copies of a duplicated message from its send on)
                let room = self
                    .msg(&k)
                    .is_some_and(|m| m.peak < self.limits.max_in_flight as u64);
                if self.duplicated < self.bounds.duplicate && room {
                    events.push(Choice::Duplicate(k));
                }
            }
        }
        // Injected node faults: at a whole ms, after the plan's entries due by then.
        let t = self.node_fault_instant();
        let plan_due = self.faults.iter().any(|f| !f.2 && f.0 <= t);
        if t <= horizon && !plan_due {
            let injecting = t < self.bounds.faults_until_ns;
            for (id, node) in self.nodes.iter().enumerate() {
                let up = node.proc.is_some();
                let restarted_now = node.restarted_at == Some(t);
                if injecting && up && !restarted_now && self.crashed < self.bounds.crashes {
                    events.push(Choice::Crash { node: id });
                }
                if injecting && !up && node.crashed_by_search && self.bounds.restarts {
                    events.push(Choice::Restart { node: id });
                }
                if injecting && up && node.paused_at.is_none() && self.paused < self.bounds.pauses {
                    events.push(Choice::Pause { node: id });
                }
                if node.paused_by_search && node.paused_at.is_some_and(|p| p < t) {
                    // A pause the search made may end at any time (not only before
                    // `faults_until`); one of the plan ends only where the plan ends it.
                    events.push(Choice::Resume { node: id });
                }
            }
        }
        events
    }

    /// Whether the native engine can take `c` at `t` now: every queued event pushed before
    /// it that could come at `t` is a message that may still come later.
    fn in_native_order(&self, c: &Choice, t: u64, queued: &[Queued]) -> bool {
        let Some(order) = self.order_of(c) else {
            return true;
        };
        queued.iter().all(|&(f, o, earliest, latest, is_msg)| {
            f == *c || o > order || earliest > t || (is_msg && latest > t)
        })
    }

    /// The node a choice changes, if any.
    fn node_of(&self, c: &Choice) -> Option<NodeId> {
        match *c {
            Choice::Input { index } => Some(self.inputs[index].1),
            Choice::Fault { index } => self.faults[index].1.node(),
            _ => c.node(),
        }
    }

    /// True when `a` and `b` (both enabled now) commute and neither disables the other: they
    /// change different nodes (or only the network, on different messages), and neither moves
    /// time (both are due now), so either order reaches the same state. A fault of the plan
    /// without a node (a heal) and a message's loss, duplication or delivery of the same
    /// message are dependent.
    pub fn independent(&self, a: &Choice, b: &Choice) -> bool {
        let msg_of = |c: &Choice| match *c {
            Choice::Deliver(k) | Choice::Lose(k) | Choice::Duplicate(k) => Some(k),
            _ => None,
        };
        if let (Some(x), Some(y)) = (msg_of(a), msg_of(b)) {
            if x == y {
                return false;
            }
        }
        // Injected faults spend a shared budget: two of the same kind do not commute
        // (one may use up what the other needs).
        if a.is_injected_fault()
            && b.is_injected_fault()
            && std::mem::discriminant(a) == std::mem::discriminant(b)
        {
            return false;
        }
        // A crash or restart changes whether a node takes events, and a crashed sender still
        // has its messages in flight, so only the destination's events conflict.
        let (na, nb) = (self.node_of(a), self.node_of(b));
        let global = |c: &Choice| matches!(c, Choice::Fault { .. }) && self.node_of(c).is_none();
        if global(a) || global(b) {
            return false;
        }
        if na.is_some() && na == nb {
            return false;
        }
        // A delivery, timer or input taken now moves an injected node fault to the next ms.
        let queued = |c: &Choice| {
            matches!(
                c,
                Choice::Deliver(_) | Choice::Timer { .. } | Choice::Input { .. }
            )
        };
        if (a.is_node_fault() && queued(b)) || (b.is_node_fault() && queued(a)) {
            return false;
        }
        let due = |c: &Choice| self.window(c).0 <= self.now;
        due(a) && due(b)
    }

    /// A fingerprint of the global state: time, each node's history hash and liveness, the
    /// messages in flight (link, content, window; in send order on FIFO links), the inputs and
    /// plan entries done, and the fault budgets spent.
    pub fn fingerprint(&self) -> u128 {
        let mut h = H::default();
        h.u(self.now);
        for node in &self.nodes {
            h.u(node.history.0);
            h.u(node.history.1);
            h.u(node.proc.is_some() as u64);
            h.u(node.crashed_by_search as u64);
            h.u(node.paused_by_search as u64);
            h.u(node.paused_at.map_or(NEVER, |p| p));
        }
        // The native queue order of what is pending (it decides what may come first at one
        // instant), and whether an injected fault must wait for the next ms.
        let mut order: Vec<((u64, u32), u64)> = Vec::new();
        for (id, node) in self.nodes.iter().enumerate() {
            for (tid, t) in &node.timers {
                order.push(((t.seq, 0), (id as u64) << 48 | tid.0));
            }
        }
        for m in &self.msgs {
            order.push((
                (m.seq, m.key.copy),
                m.content ^ ((m.key.from as u64) << 56 | (m.key.to as u64) << 48),
            ));
        }
        for (j, i) in self.inputs.iter().enumerate() {
            if i.2.is_some() {
                order.push(((i.3, 0), j as u64));
                h.u(i.0);
            }
        }
        order.sort_unstable();
        for (_, id) in order {
            h.u(id);
        }
        h.u((self.last_event_at == Some(self.now)) as u64);
        h.u(self.paused as u64);
        h.u(self.late_resume as u64);
        let mut msgs: Vec<(NodeId, NodeId, u64, u64, u64, u64)> = self
            .msgs
            .iter()
            .map(|m| {
                let fifo = self.net.link(m.key.from, m.key.to).reorder == 0.0;
                // On a FIFO link the order matters: key by the sender's callback count.
                let order = if fifo {
                    m.key.call << 20 | m.key.op as u64
                } else {
                    0
                };
                (m.key.from, m.key.to, order, m.content, m.earliest, m.latest)
            })
            .collect();
        msgs.sort_unstable();
        h.u(msgs.len() as u64);
        for m in msgs {
            h.u(m.0 as u64);
            h.u(m.1 as u64);
            h.u(m.2);
            h.u(m.3);
            h.u(m.4);
            h.u(m.5);
        }
        for i in &self.inputs {
            h.u(i.2.is_some() as u64);
        }
        for f in &self.faults {
            h.u(f.2 as u64);
        }
        h.u(self.lost as u64);
        h.u(self.duplicated as u64);
        h.u(self.crashed as u64);
        h.get()
    }

    /// Takes `choice`, which must be enabled (see [`World::enabled`]).
    pub fn step(&mut self, choice: Choice) {
        let (earliest, _) = self.window(&choice);
        let before_ns = self.now;
        self.take(choice, earliest);
        // Invariants of every step (TigerBeetle style: checked in release too). Not the
        // count of messages in flight: crashing a paused node drops every message that
        // waited at it.
        invariant(
            self.now >= before_ns,
            "explore: time never goes back",
            || format!("from {before_ns} to {} ns", self.now),
        );
        invariant(
            self.lost <= self.bounds.loss
                && self.duplicated <= self.bounds.duplicate
                && self.crashed <= self.bounds.crashes
                && self.paused <= self.bounds.pauses,
            "explore: the search injects faults within its bounds",
            || {
                format!(
                    "lost {}, duplicated {}, crashed {}, paused {} against {:?}",
                    self.lost, self.duplicated, self.crashed, self.paused, self.bounds
                )
            },
        );
        invariant(
            self.stats.events <= self.limits.max_events,
            "explore: steps stay within limits.max_events",
            || format!("{} steps", self.stats.events),
        );
        self.check_in_flight();
    }

    /// The messages in flight are well kept (checked after every step, in release too): each
    /// key names one message (the search finds a message by its key: two would alias); no
    /// more of them than `limits.max_in_flight`, nor than the run's recorded maximum; each
    /// between nodes that exist, sent by now, in queue order, a copy only of as many
    /// duplications as were injected, and due in a window that is not empty (the enabling
    /// rule moves a message's earliest time only where its window reaches past it).
    fn check_in_flight(&self) {
        let in_flight = self.msgs.len() as u64;
        invariant(
            in_flight <= self.limits.max_in_flight as u64,
            "explore: messages in flight stay within limits.max_in_flight",
            || format!("{in_flight} in flight, limit {}", self.limits.max_in_flight),
        );
        invariant(
            in_flight <= self.stats.max_in_flight,
            "explore: the most messages in flight is recorded",
            || {
                format!(
                    "{in_flight} in flight, {} recorded",
                    self.stats.max_in_flight
                )
            },
        );
        for m in &self.msgs {
            let k = m.key;
            invariant(
                k.to < self.n && k.from < self.n,
                "explore: a message is between nodes that exist",
                || format!("{k:?} of {} nodes", self.n),
            );
            invariant(
                m.sent_at <= self.now,
                "explore: a message in flight was sent by now",
                || format!("{k:?} sent at {} ns, now {} ns", m.sent_at, self.now),
            );
            invariant(
                m.earliest <= m.latest,
                "explore: a message is due in a window that is not empty",
                || format!("{k:?} due in [{}, {}] ns", m.earliest, m.latest),
            );
            invariant(
                m.fifo <= m.seq && m.seq <= self.next_seq,
                "explore: a message keeps its place in the queue order",
                || {
                    format!(
                        "{k:?}: fifo {}, seq {}, next {}",
                        m.fifo, m.seq, self.next_seq
                    )
                },
            );
            // (the peak may pass the limit: a duplicate raises every message's, also where
            // the send it counts came before the duplicated message's; such a message is
            // only no longer duplicated, which keeps every path a native run)
            invariant(
                in_flight <= m.peak,
                "explore: a message's peak in flight covers now",
                || format!("{k:?}: peak {}, {in_flight} in flight", m.peak),
            );
            invariant(
                k.copy <= self.duplicated,
                "explore: a copy comes of a duplication injected",
                || format!("{k:?}, {} duplications", self.duplicated),
            );
        }
        let mut keys: Vec<MsgKey> = self.msgs.iter().map(|m| m.key).collect();
        keys.sort_unstable();
        if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
            super::invariant_broken(
                "explore: each message in flight has a key of its own",
                format!("two share {:?}", w[0]),
            );
        }
    }

    /// [`World::step`]'s work: takes `choice`, due at `earliest`.
    fn take(&mut self, choice: Choice, earliest: u64) {
        self.stats.events += 1;
        if self.stats.events > self.limits.max_events {
            self.rec.verdict = Some(Verdict::LimitExceeded {
                limit: format!(
                    "limits.max_events = {} steps reached",
                    self.limits.max_events
                ),
            });
            // The step refused never happened: the count is the steps taken.
            self.stats.events -= 1;
            return;
        }
        if let Some(order) = self.order_of(&choice) {
            if self.bounds.timed {
                // Pushed before it and due by now: in the native run it comes after (the
                // enabling rule checked its window reaches past `earliest`).
                let skip = match choice {
                    Choice::Deliver(k) => Some(k),
                    _ => None,
                };
                let paused: Vec<bool> = self.nodes.iter().map(|n| n.paused_at.is_some()).collect();
                for m in &mut self.msgs {
                    if Some(m.key) != skip
                        && !paused[m.key.to]
                        && (m.seq, m.key.copy) < order
                        && m.earliest <= earliest
                    {
                        m.earliest = earliest + 1;
                    }
                }
            }
            if !matches!(choice, Choice::Fault { .. }) {
                self.last_event_at = Some(earliest);
            }
        }
        match choice {
            Choice::Fault { index } => {
                self.now = earliest;
                self.faults[index].2 = true;
                let fault = self.faults[index].1.clone();
                let down_at_once = self.down_again_at_once(index);
                self.apply_fault(fault, down_at_once);
            }
            Choice::Input { index } => {
                self.now = earliest;
                let (_, id, input, _) = &mut self.inputs[index];
                let (id, input) = (
                    *id,
                    input.take().held("explore: an enabled input is pending"),
                );
                let node = &mut self.nodes[id];
                let crashed = node.proc.is_none();
                let local = node.clock.read(self.now);
                node.history.u(0x11);
                node.history.u(self.now);
                node.history.u(hash_debug(&input));
                if self.rec.observing {
                    let mut label = if self.rec.record {
                        format!("{input:?}")
                    } else {
                        String::new()
                    };
                    if crashed {
                        label.push_str(" (ignored: node is crashed)");
                    }
                    self.rec.emit(
                        self.now,
                        Some(id),
                        Some(local),
                        EventKind::Input { input: label },
                    );
                }
                if !crashed {
                    self.call(id, Call::Input(input));
                }
            }
            Choice::Timer {
                node: id, id: tid, ..
            } => {
                self.now = earliest;
                let node = &mut self.nodes[id];
                let timer = node
                    .timers
                    .remove(&TimerId(tid))
                    .held("explore: an enabled timer is pending")
                    .timer;
                let local = node.clock.read(self.now);
                node.history.u(0x22);
                node.history.u(self.now);
                node.history.u(tid);
                self.stats.timers += 1;
                if self.rec.observing {
                    let label = if self.rec.record {
                        format!("{timer:?}")
                    } else {
                        String::new()
                    };
                    self.rec.emit(
                        self.now,
                        Some(id),
                        Some(local),
                        EventKind::Timer {
                            timer_id: tid,
                            timer: label,
                        },
                    );
                }
                self.call(id, Call::Timer(timer));
            }
            Choice::Deliver(k) => {
                self.now = earliest;
                let pos = self
                    .msgs
                    .iter()
                    .position(|m| m.key == k)
                    .held("explore: a message chosen is in flight");
                let m = self.msgs.remove(pos);
                self.record_arrival(&m);
                let node = &mut self.nodes[k.to];
                if node.proc.is_none() {
                    self.drop_msg(m.msg_id, k.from, k.to, DropReason::DestinationCrashed);
                    return;
                }
                node.history.u(0x33);
                node.history.u(self.now);
                node.history.u(k.from as u64);
                node.history.u(m.content);
                self.stats.delivered += 1;
                if self.rec.observing {
                    let msg = self.rec.sent_text(m.sent);
                    let local = node.clock.read(self.now);
                    self.rec.emit(
                        self.now,
                        Some(k.to),
                        Some(local),
                        EventKind::Deliver {
                            msg_id: m.msg_id,
                            from: k.from,
                            sent: m.sent,
                            msg,
                        },
                    );
                }
                self.call(k.to, Call::Message(k.from, m.msg));
            }
            Choice::Lose(k) => {
                let pos = self
                    .msgs
                    .iter()
                    .position(|m| m.key == k)
                    .held("explore: a message chosen is in flight");
                let m = self.msgs.remove(pos);
                if let (Some(x), Some(i)) = (self.export.as_mut(), m.rec) {
                    x.recorded[i].1 = true;
                }
                self.lost += 1;
                self.drop_msg(m.msg_id, k.from, k.to, DropReason::Loss);
            }
            Choice::Duplicate(k) => {
                let m = self.msg(&k).held("explore: a message chosen is in flight");
                let copies = self
                    .msgs
                    .iter()
                    .filter(|o| {
                        o.key.to == k.to
                            && o.key.from == k.from
                            && o.key.call == k.call
                            && o.key.op == k.op
                    })
                    .map(|o| o.key.copy)
                    .max()
                    .unwrap_or(0);
                let mut copy = InFlight {
                    key: MsgKey {
                        copy: copies + 1,
                        ..k
                    },
                    msg: m.msg.clone(),
                    msg_id: m.msg_id,
                    sent: m.sent,
                    sent_at: m.sent_at,
                    fifo: m.fifo,
                    seq: m.seq,
                    earliest: m.earliest,
                    latest: m.latest,
                    content: m.content,
                    arrival: m.arrival,
                    rec: m.rec,
                    peak: m.peak,
                };
                self.duplicated += 1;
                // natively the copy was in flight since the send: one more at every send since
                // any message in flight now was sent
                for o in &mut self.msgs {
                    o.peak += 1;
                }
                copy.peak += 1;
                self.msgs.push(copy);
                self.stats.max_in_flight = self.stats.max_in_flight.max(self.msgs.len() as u64);
            }
            Choice::Crash { node } => {
                self.now = earliest;
                self.crashed += 1;
                self.nodes[node].crashed_by_search = true;
                self.inject(Fault::Crash { node });
            }
            Choice::Restart { node } => {
                self.now = earliest;
                self.nodes[node].crashed_by_search = false;
                self.inject(Fault::Restart { node });
            }
            Choice::Pause { node } => {
                self.now = earliest;
                self.paused += 1;
                self.nodes[node].paused_by_search = true;
                self.inject(Fault::Pause { node });
            }
            Choice::Resume { node } => {
                self.now = earliest;
                let by_search = std::mem::take(&mut self.nodes[node].paused_by_search);
                self.late_resume |= by_search && self.now >= self.bounds.faults_until_ns;
                self.inject(Fault::Resume { node });
            }
        }
    }

    /// Applies a fault the search chose (at a whole ms) and notes it for the native plan.
    fn inject(&mut self, fault: Fault) {
        debug_assert_eq!(self.now % NS_PER_MS, 0);
        if let Some(x) = self.export.as_mut() {
            x.injected.push(TimedFault {
                at_ms: self.now / NS_PER_MS,
                fault: fault.clone(),
            });
        }
        self.apply_fault(fault, false);
    }

    /// Notes when `m` reached its destination, for the native export.
    fn record_arrival(&mut self, m: &InFlight<P>) {
        if let (Some(x), Some(i)) = (self.export.as_mut(), m.rec) {
            let at = m.arrival.unwrap_or(self.now);
            x.recorded[i].0.delays_ns.push(at - m.sent_at);
            x.recorded[i].1 = true;
        }
    }

    /// A paused node resumes at `now`: what reached it while it was paused (timers and
    /// inputs due, messages whose window opened) is queued again now, in the order it
    /// arrived, after everything already queued; what reaches the node at the resume's very
    /// instant comes after it (a message keeps its window), so links stay FIFO, as the native
    /// engine takes them (since stop 67: such a message overtook every held one there).
    /// A message whose window opens before now is taken as having arrived during the pause
    /// (at the pause or at its earliest time), never after the resume.
    fn resume(&mut self, id: NodeId, paused_at: u64) {
        let now = self.now;
        // (arrival, queue order, what): 0 timer id, 1 input index, 2 message index
        let mut waited: Vec<(u64, (u64, u32), u8, u64)> = Vec::new();
        for (tid, t) in &self.nodes[id].timers {
            if t.at <= now {
                waited.push((t.at, (t.seq, 0), 0, tid.0));
            }
        }
        for (j, i) in self.inputs.iter().enumerate() {
            if i.1 == id && i.2.is_some() && i.0 <= now {
                waited.push((i.0, (i.3, 0), 1, j as u64));
            }
        }
        for (j, m) in self.msgs.iter().enumerate() {
            let arrival = m.earliest.max(paused_at);
            if m.key.to == id && arrival <= now {
                waited.push((arrival, (m.seq, m.key.copy), 2, j as u64));
            }
        }
        waited.sort_unstable();
        for (arrival, _, what, x) in waited {
            self.next_seq += 1;
            let seq = self.next_seq;
            match what {
                0 => {
                    let t = self.nodes[id]
                        .timers
                        .get_mut(&TimerId(x))
                        .held("explore: a timer that waited is pending");
                    t.at = now;
                    t.seq = seq;
                }
                1 => {
                    let i = &mut self.inputs[x as usize];
                    i.0 = now;
                    i.3 = seq;
                }
                // One reaching the node now is queued behind, its window kept.
                _ if arrival == now => self.msgs[x as usize].seq = seq,
                _ => {
                    let m = &mut self.msgs[x as usize];
                    m.arrival = Some(arrival);
                    m.earliest = now;
                    m.latest = now;
                    m.seq = seq;
                }
            }
        }
    }

    fn start(&mut self, id: NodeId) {
        let node = &mut self.nodes[id];
        node.proc = Some((self.factory)(id));
        node.history.u(0x44);
        node.history.u(self.now);
        if self.rec.observing {
            let local = node.clock.read(self.now);
            let incarnation = node.incarnation;
            self.rec.emit(
                self.now,
                Some(id),
                Some(local),
                EventKind::Start { incarnation },
            );
        }
        self.call(id, Call::Start);
    }

    fn call(&mut self, id: NodeId, call: Call<P>) {
        let node = &mut self.nodes[id];
        let Some(proc) = node.proc.as_mut() else {
            return;
        };
        node.calls += 1;
        self.sending = (id, node.calls, 0);
        let mut ctx = Ctx {
            id,
            nodes: self.n,
            t_ns: self.now,
            clock: &mut node.clock,
            rng: &mut node.rng,
            stable: &mut node.stable,
            fx: &mut self.fx,
            neighbours: Peers::Topology(self.net.adjacency()),
            next_timer: &mut node.next_timer,
        };
        let result = invoke(proc, &mut ctx, call);
        super::after_callback(self, id, result);
    }

    fn reschedule_timers(&mut self, id: NodeId) {
        let now = self.now;
        let node = &mut self.nodes[id];
        for t in node.timers.values_mut() {
            // The native engine pushes each again (in timer id order).
            self.next_seq += 1;
            t.seq = self.next_seq;
            t.at = node.clock.global_time_at(now, t.deadline_local_ns);
        }
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: P::Msg) {
        let msg_id = self.next_msg_id;
        self.next_msg_id += 1;
        self.stats.sent += 1;
        let (_, call, op) = self.sending;
        self.sending.2 += 1;
        let content = hash_debug(&msg);
        let mut sent = 0;
        if self.rec.observing {
            let rendered = self.rec.render(&msg);
            let local = self.nodes[from].clock.read(self.now);
            sent = self.rec.emit(
                self.now,
                Some(from),
                Some(local),
                EventKind::Send {
                    msg_id,
                    to,
                    msg: rendered,
                },
            );
        }
        let mut rec = None;
        if let Some(x) = self.export.as_mut() {
            if to < self.n && to != from {
                // Keyed as the native engine keys a recorded schedule's messages: counted
                // whatever happens to them, recorded if they enter the network.
                let text = format!("{msg:?}");
                let nth = x.nth.entry((from, to, text.clone())).or_default();
                if self.net.adjacent(from, to) {
                    rec = Some(x.recorded.len());
                    x.recorded.push((
                        Recorded {
                            from,
                            to,
                            msg: text,
                            nth: *nth,
                            delays_ns: Vec::new(),
                        },
                        false,
                    ));
                }
                *nth += 1;
            }
        }
        let (earliest, latest) = if to >= self.n {
            self.drop_msg(msg_id, from, to, DropReason::NoSuchNode);
            return;
        } else if to == from {
            (self.now, self.now)
        } else if !self.net.adjacent(from, to) {
            self.drop_msg(msg_id, from, to, DropReason::NoLink);
            return;
        } else {
            let lat = &self.net.link(from, to).latency;
            let latest = if self.bounds.timed {
                self.now.saturating_add(lat.max_ns())
            } else {
                NEVER
            };
            (self.now.saturating_add(lat.min_ns()), latest)
        };
        if self.msgs.len() as u64 + 1 > self.limits.max_in_flight as u64 {
            self.drop_msg(msg_id, from, to, DropReason::InFlightLimit);
            self.rec.verdict.get_or_insert(Verdict::LimitExceeded {
                limit: format!(
                    "limits.max_in_flight = {} reached",
                    self.limits.max_in_flight
                ),
            });
            return;
        }
        self.next_seq += 1;
        self.msgs.push(InFlight {
            key: MsgKey {
                to,
                from,
                call,
                op,
                copy: 0,
            },
            msg,
            msg_id,
            sent,
            sent_at: self.now,
            fifo: self.next_seq,
            seq: self.next_seq,
            earliest,
            latest,
            content,
            arrival: None,
            rec,
            peak: 0,
        });
        let in_flight = self.msgs.len() as u64;
        for m in &mut self.msgs {
            m.peak = m.peak.max(in_flight);
        }
        self.stats.max_in_flight = self.stats.max_in_flight.max(in_flight);
    }

    fn drop_msg(&mut self, msg_id: u64, from: NodeId, to: NodeId, reason: DropReason) {
        self.stats.dropped += 1;
        self.rec.drop_msg(self.now, msg_id, from, to, reason);
    }

    /// Whether plan entry `index`, a restart, is followed in the same ms by a crash or a
    /// restart of the same node later in the plan: the node is down again before it would
    /// run, and is not started (as on the native engine, `down_again_at_once`; started at
    /// once, the correct `election.bully` sent from `on_start` before its crash, and the
    /// explorer reported a counterexample no native run reproduced).
    fn down_again_at_once(&self, index: usize) -> bool {
        let (at, Fault::Restart { node }, _) = &self.faults[index] else {
            return false;
        };
        self.faults[index + 1..].iter().any(|(t, f, _)| {
            t == at
                && matches!(f, Fault::Crash { node: n } | Fault::Restart { node: n } if n == node)
        })
    }

    fn apply_fault(&mut self, fault: Fault, down_at_once: bool) {
        let node = fault.node();
        let local = node.map(|id| self.nodes[id].clock.read(self.now));
        if let Some(id) = node {
            let h = &mut self.nodes[id].history;
            h.u(0x55);
            h.u(self.now);
            h.u(hash_debug(&fault));
        }
        if self.rec.observing {
            self.rec.emit(
                self.now,
                node,
                local,
                EventKind::Fault {
                    fault: fault.clone(),
                },
            );
        }
        match fault {
            Fault::Crash { node } => self.crash(node),
            Fault::Restart { node } => {
                if self.nodes[node].proc.is_some() {
                    self.crash(node);
                }
                self.nodes[node].incarnation += 1;
                if !down_at_once {
                    self.nodes[node].restarted_at = Some(self.now);
                    self.start(node);
                }
            }
            Fault::Pause { node } => {
                let n = &mut self.nodes[node];
                if n.proc.is_some() && n.paused_at.is_none() {
                    n.paused_at = Some(self.now);
                }
            }
            Fault::Resume { node } => {
                if let Some(p) = self.nodes[node].paused_at.take() {
                    self.resume(node, p);
                }
            }
            Fault::ClockJump { node, delta_ms } => {
                let delta = (delta_ms * 1e6).round() as i64;
                self.nodes[node].clock.hw_jump(self.now, delta);
                self.reschedule_timers(node);
            }
            Fault::DriftChange { node, drift_ppm } => {
                self.nodes[node]
                    .clock
                    .set_drift(self.now, (drift_ppm * 1000.0).round() as i64);
                self.reschedule_timers(node);
            }
            _ => {} // heal: no partition to heal (others are refused in `new`)
        }
    }

    fn crash(&mut self, id: NodeId) {
        let node = &mut self.nodes[id];
        node.proc = None;
        node.timers.clear();
        if let Some(p) = node.paused_at.take() {
            // What waited at the paused node is lost with it: the messages that reached it
            // are dropped now, the inputs forgotten (as on the native engine).
            let now = self.now;
            for i in &mut self.inputs {
                if i.1 == id && i.2.is_some() && i.0 < now {
                    i.2 = None;
                }
            }
            let mut j = 0;
            while j < self.msgs.len() {
                let m = &self.msgs[j];
                let arrival = m.earliest.max(p);
                if m.key.to == id && arrival < now {
                    let mut m = self.msgs.remove(j);
                    m.arrival = Some(arrival);
                    self.record_arrival(&m);
                    self.drop_msg(m.msg_id, m.key.from, id, DropReason::DestinationCrashed);
                } else {
                    j += 1;
                }
            }
        }
    }

    /// The scenario the native engine runs to reproduce this execution (taken so far):
    /// `scenario` with every message's fate pinned (a recorded schedule: the delays this
    /// execution gave it, or lost; a message still in flight arrives after now), the faults
    /// the search injected added to its plan, and `expect` set to `verdict`. `None` when the
    /// world was not built [exporting](World::exporting), or under untimed semantics (whose
    /// late timers no native run has).
    pub fn native_scenario(&self, scenario: &Scenario, verdict: &Verdict) -> Option<Scenario> {
        let x = self.export.as_ref()?;
        if !self.bounds.timed {
            return None;
        }
        let mut recorded = x.recorded.clone();
        for m in &self.msgs {
            if let Some(i) = m.rec {
                let at = m
                    .arrival
                    .unwrap_or_else(|| m.earliest.max(self.now.saturating_add(1)));
                recorded[i].0.delays_ns.push(at - m.sent_at);
                recorded[i].1 = true;
            }
        }
        let mut sc = scenario.clone();
        sc.engine = crate::scenario::EngineKind::Native;
        let recorded: Vec<_> = recorded
            .into_iter()
            .filter(|(r, known)| *known && r.delays_ns.len() <= 2)
            .map(|(r, _)| r)
            .collect();
        declare_recorded_faults(&mut sc, &recorded, self.bounds.faults_until_ns);
        sc.schedule = Schedule::Recorded(recorded);
        // The plan's entries come before the injected ones at one ms (the search took them
        // first); a stable sort keeps that.
        sc.faults.extend(x.injected.iter().cloned());
        sc.faults.sort_by_key(|f| f.at_ms);
        sc.expect = match verdict {
            Verdict::Pass => Some(Expect::Pass),
            Verdict::Violation(v) => Some(Expect::Violation(v.property.clone())),
            Verdict::Unjudged { property, .. } => Some(Expect::Unjudged(property.clone())),
            Verdict::Panic { .. } => Some(Expect::Panic),
            _ => None,
        };
        Some(sc)
    }
}

/// The loss (or duplication) probability a native scenario declares on a link where the
/// search lost (or duplicated) a message: a recorded fate is replayed only on a link that can
/// produce it ([`Schedule::Recorded`]), and the explored scenario's links lose and duplicate
/// nothing. Small enough that no message the record leaves out is lost or doubled by it in
/// any run short of billions of messages on that link.
pub const DECLARED_FAULT_P: f64 = 1e-9;

/// Declares on `sc`'s links the losses and duplicates of `recorded` (a lost message has no
/// delay, a duplicated one two), [`DECLARED_FAULT_P`] each, so its native run replays them,
/// and restores those links with a `set_links` where the search's faults stop
/// (`faults_until_ns`, rounded up to the ms): a loss that never stops would be a fault that
/// never stops, and liveness could not be judged. The description says why. Without it the
/// native file delivered the lost message and passed, or broke another way, where the
/// search's schedule broke a property.
fn declare_recorded_faults(
    sc: &mut Scenario,
    recorded: &[crate::schedule::Recorded],
    faults_until_ns: u64,
) {
    let mut links: std::collections::BTreeMap<(NodeId, NodeId), (bool, bool)> =
        std::collections::BTreeMap::new();
    for r in recorded {
        let (lost, doubled) = links.entry((r.from, r.to)).or_default();
        *lost |= r.delays_ns.is_empty();
        *doubled |= r.delays_ns.len() == 2;
    }
    let mut named = Vec::new();
    let until_ms = faults_until_ns
        .div_ceil(crate::NS_PER_MS)
        .min(sc.duration_ms);
    for (&(from, to), &(lost, doubled)) in links.iter().filter(|(_, &(l, d))| l || d) {
        let link = |p: f64| crate::net::LinkOverride {
            from: Some(from),
            to: Some(to),
            latency: None,
            loss: lost.then_some(p),
            duplicate: doubled.then_some(p),
            reorder: None,
        };
        sc.network.links.push(link(DECLARED_FAULT_P));
        sc.faults.push(crate::fault::TimedFault {
            at_ms: until_ms,
            fault: crate::Fault::SetLinks(Box::new(link(0.0))),
        });
        named.push(format!("{from}->{to}"));
    }
    if !named.is_empty() {
        let note = format!(
            "links {} lose or duplicate with probability {DECLARED_FAULT_P} until {until_ms} ms: \
             the search lost or duplicated a message there, which the recorded schedule replays",
            named.join(", ")
        );
        sc.description = if sc.description.is_empty() {
            note
        } else {
            format!("{} ({note})", sc.description)
        };
    }
}

/// Whether the explorer models everything `scenario` asks for: its planned faults are of the
/// kinds it models, and its network draws no losses or duplicates from probabilities (the
/// search injects those itself). The explorer refuses the others when it is built; a command
/// line asks first, so that a refusal comes before it says the search started.
pub fn explorable(scenario: &Scenario) -> Result<(), ScenarioError> {
    for (i, f) in scenario.faults.iter().enumerate() {
        match f.fault {
            Fault::Crash { .. }
            | Fault::Restart { .. }
            | Fault::Pause { .. }
            | Fault::Resume { .. }
            | Fault::ClockJump { .. }
            | Fault::DriftChange { .. }
            | Fault::Heal => {}
            ref other => {
                return Err(ScenarioError(format!(
                    "faults[{i}]: the explorer does not model {} faults (it models crash, \
                     restart, pause, resume, clock_jump, drift_change and heal; loss, \
                     duplication, crashes and pauses it can inject itself)",
                    other.class().name()
                )))
            }
        }
    }
    refuse_drawn_faults(scenario)
}

/// Refuses a scenario whose network draws losses or duplicates from probabilities: the
/// explorer chooses those itself (bounded by [`Bounds::loss`] and [`Bounds::duplicate`]),
/// and silently dropping the probabilities explored a reliable network in place of the
/// lossy one the file describes ("no violation" where every run of the file failed).
/// (`set_links` faults are refused with the other faults the explorer does not model.)
fn refuse_drawn_faults(scenario: &Scenario) -> Result<(), ScenarioError> {
    let net = &scenario.network;
    let links = net.links.iter().enumerate().flat_map(|(i, o)| {
        [
            (format!("network.links[{i}].loss"), o.loss.unwrap_or(0.0)),
            (
                format!("network.links[{i}].duplicate"),
                o.duplicate.unwrap_or(0.0),
            ),
        ]
    });
    let drawn = [
        ("network.loss".to_string(), net.loss),
        ("network.duplicate".to_string(), net.duplicate),
    ]
    .into_iter()
    .chain(links)
    .find(|(_, p)| *p > 0.0);
    match drawn {
        Some((what, p)) => Err(ScenarioError(format!(
            "{what} = {p}: the explorer does not draw losses or duplicates from \
             probabilities; it injects a bounded number of them itself (explore's --loss and \
             --dup): set it to 0"
        ))),
        None => Ok(()),
    }
}
