//! Ricart–Agrawala distributed mutual exclusion.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.3.4, seed `000`; seed `001` slides; Lamport clocks of
//! §6.2.1): a process that wants the resource stamps a REQUEST with its Lamport clock and its
//! process id and sends it to every other process. A receiver that neither holds nor wants the
//! resource answers OK; one that holds it queues the request; one that wants it compares
//! stamps: the lower `(clock, id)` wins, so it answers OK if the incoming stamp is lower and
//! queues it otherwise. With OKs from all `n - 1` others, the process enters; on leaving, it
//! answers OK to everyone it queued. `2(n - 1)` messages per entry/exit and `2(n - 1)`
//! message times before entry when messages are sent one after the other (Table 6.1).
//!
//! **Fault model**: reliable channels (no loss, no duplication) with any delay and reordering,
//! slow processes, drifting clocks. No crashes: a crashed process never answers, and its
//! silence blocks everyone (the text's "n points of failure").
//!
//! **Promises**: `mutual_exclusion`, `liveness` (no deadlock, no starvation: requests are served
//! in stamp order).
//!
//! **`mutex.ricart-agrawala-ft`**, the fix the text proposes: a receiver always answers, OK or
//! DENY (a DENY promises a later OK); a requester resends after `retry_ms` to every peer that
//! has not said OK (a lost request, a lost answer or a lost later OK), and declares a peer dead
//! after `max_retries` sends without any answer, assuming its permission. Fault model: crashes
//! (with restarts), delays and drift. Loss is survived only while fewer than `max_retries`
//! round trips in a row are lost; pauses and partitions make a live peer look dead, and two
//! processes enter — the text's "circumstances where even this is insufficient" (problem 11),
//! measured by `sincro matrix`.
//!
//! **Variant `clock-fresh-ok`** of `mutex.ricart-agrawala-ft` (buggy, a deep one: it needs
//! a resend to cross an OK, then a release and a new request before the second OK lands, from
//! a peer whose clock ran ahead): the requester tells an answer to its current request from
//! a stale one by the OK's Lamport clock instead of the request it names: an OK whose clock is
//! above the current request's must have been sent after that request arrived. That reads
//! the clock condition backwards (a → b ⇒ C(a) < C(b), seed `000` §6.2.1, but not the
//! converse). The fix's resends make OKs to one request arrive twice: `P` asks `Q` (request
//! `c1`); `Q` answers (at once, or when it leaves the section) while `P`'s resend of `c1` is
//! on its way; the resend reaches `Q` after it answered, and `Q` answers OK again. `P` enters
//! on the first OK, leaves, and asks again (`c2`) before the second OK of `c1` arrives;
//! meanwhile `Q` wants the resource again with a lower stamp, so it defers `c2`. The stale OK
//! carries `Q`'s clock, above `c2` when `Q`'s clock ran ahead of `P`'s, so it passes for a
//! fresh answer: `P` enters while `Q` holds, `mutual_exclusion`. The correct fix matches the
//! request the OK names ("an answer to an older request").
//!
//! **Variant `no-tiebreak`** (buggy): stamps are compared by clock value only, and a receiver
//! answers OK when the incoming stamp is not higher than its own. Two processes that request
//! with equal clocks both answer OK to each other and both enter: the total order of events
//! needs the process-id tie break.

use crate::ordering::clocks::{LamportClock, LamportStamp};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A request stamp: Lamport clock, then process id (the reusable [`LamportStamp`]).
pub type Stamp = LamportStamp;

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// Asks for the resource, stamped `(clock, id)`.
    Request {
        /// Lamport clock of the request.
        clock: u64,
    },
    /// Permission.
    Ok {
        /// Lamport clock of the sender.
        clock: u64,
        /// Clock of the request answered (fault-tolerant variant; 0 otherwise).
        to_request: u64,
    },
    /// Fault-tolerant variant: "not now, I will send OK later" (an answer, so the requester
    /// knows the receiver is alive).
    Deny {
        /// Lamport clock of the sender.
        clock: u64,
        /// Clock of the request answered.
        to_request: u64,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Time inside the critical section is over.
    HoldDone,
    /// Fault-tolerant variant: resend the request of clock `request` to whoever has not
    /// answered OK yet.
    Retry {
        /// The request's clock.
        request: u64,
    },
}

/// Workload commands: the same as the centralized algorithm's.
pub use super::centralized::Input;

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Lamport clock of each node at start (default 0): lets a scenario reproduce the stamps of
    /// a worked example, e.g. Fig. 6.15's 8 and 12.
    #[serde(default)]
    pub initial_clocks: Vec<u64>,
    /// Fault-tolerant variant: resend period, local ms (0: derived from the latencies).
    #[serde(default)]
    pub retry_ms: u64,
    /// Fault-tolerant variant: unanswered sends before a peer is declared dead (0: 3).
    #[serde(default)]
    pub max_retries: u32,
}

/// Which behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The textbook algorithm.
    Correct,
    /// Stamps compared without the process-id tie break.
    NoTiebreak,
    /// The text's fix: always answer (OK or DENY), resend after a timeout, and declare a peer
    /// dead after `max_retries` unanswered sends.
    FaultTolerant,
    /// The fault-tolerant variant judging an OK fresh by its Lamport clock (`clock-fresh-ok`).
    FaultTolerantClockFreshOk,
}

/// A set of node ids kept as a sorted vector: the peers whose OK a request holds. A request
/// fills it with up to `n − 1` ids and drops it on entry; as a `BTreeSet` its insertions and
/// its drop were about 4 % of a Ricart–Agrawala campaign. Iterates and prints (`{1, 2}`) in
/// the same order a `BTreeSet` does.
#[derive(Clone, Default, PartialEq, Eq)]
struct NodeSet(Vec<NodeId>);

impl NodeSet {
    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: NodeId) -> bool {
        match self.0.binary_search(&id) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, id);
                true
            }
        }
    }

    /// Removes `id`; false when it was not there.
    fn remove(&mut self, id: &NodeId) -> bool {
        match self.0.binary_search(id) {
            Ok(at) => {
                self.0.remove(at);
                true
            }
            Err(_) => false,
        }
    }

    fn contains(&self, id: &NodeId) -> bool {
        self.0.binary_search(id).is_ok()
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

impl std::fmt::Debug for NodeSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(&self.0).finish()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Released,
    Wanted {
        stamp: Stamp,
        hold_ms: u64,
        oks: NodeSet,
        /// fault-tolerant: peers heard from (any message) since the last resend — alive
        answered: BTreeSet<NodeId>,
        /// fault-tolerant: sends per peer since it last spoke
        unanswered: BTreeMap<NodeId, u32>,
        /// fault-tolerant: peers declared dead (their permission assumed)
        dead: BTreeSet<NodeId>,
    },
    Held,
}

/// One process.
#[derive(Debug)]
pub struct RicartAgrawala {
    variant: Variant,
    retry_ms: u64,
    max_retries: u32,
    clock: LamportClock,
    state: State,
    /// Requests to answer OK on leaving: (node, clock of its request).
    deferred: Vec<(NodeId, u64)>,
    backlog: VecDeque<u64>,
}

impl RicartAgrawala {
    /// A process of the run with its Lamport clock `clock` (whose pid is the process's id: the
    /// tie break of its stamps). `retry_ms` and `max_retries` only matter to the
    /// fault-tolerant variant.
    pub fn new(variant: Variant, clock: LamportClock, retry_ms: u64, max_retries: u32) -> Self {
        RicartAgrawala {
            variant,
            retry_ms: retry_ms.max(1),
            max_retries: max_retries.max(1),
            clock,
            state: State::Released,
            deferred: Vec::new(),
            backlog: VecDeque::new(),
        }
    }

    fn request(&mut self, ctx: &mut Ctx<'_, Self>, hold_ms: u64) {
        let stamp = self.clock.tick();
        let clock = stamp.time;
        let me = ctx.id();
        let peers: Vec<NodeId> = (0..ctx.nodes()).filter(|&p| p != me).collect();
        // The textbook algorithm never resends: only the fault-tolerant fix counts sends.
        let unanswered = if self.fault_tolerant() {
            peers.iter().map(|&p| (p, 1)).collect()
        } else {
            BTreeMap::new()
        };
        self.state = State::Wanted {
            stamp,
            hold_ms,
            // room for every peer's OK: one allocation a request
            oks: NodeSet(Vec::with_capacity(peers.len())),
            answered: BTreeSet::new(),
            unanswered,
            dead: BTreeSet::new(),
        };
        ctx.observe(Observation::CsRequest { resource: 0 });
        for to in peers {
            ctx.send(to, Msg::Request { clock });
        }
        if self.fault_tolerant() {
            ctx.set_timer_ms(self.retry_ms, Timer::Retry { request: clock });
        }
        self.maybe_enter(ctx);
    }

    fn maybe_enter(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let State::Wanted { hold_ms, oks, .. } = &self.state {
            if oks.len() == ctx.nodes() - 1 {
                let hold_ms = *hold_ms;
                self.state = State::Held;
                ctx.observe(Observation::CsEnter { resource: 0 });
                ctx.set_timer_ms(hold_ms, Timer::HoldDone);
            }
        }
    }

    /// True when a request stamped `theirs` must wait for us.
    fn defer(&self, theirs: Stamp) -> bool {
        match &self.state {
            State::Released => false,
            State::Held => true,
            State::Wanted { stamp, .. } => match self.variant {
                Variant::Correct | Variant::FaultTolerant | Variant::FaultTolerantClockFreshOk => {
                    *stamp < theirs
                }
                // The bug: equal clocks count as "theirs is not higher", so both sides yield.
                Variant::NoTiebreak => stamp.time < theirs.time,
            },
        }
    }

    /// The text's fix (always answer, resend, declare the silent dead), buggy twin included.
    fn fault_tolerant(&self) -> bool {
        matches!(
            self.variant,
            Variant::FaultTolerant | Variant::FaultTolerantClockFreshOk
        )
    }

    /// The clock of our pending request, if we want the resource.
    fn wanted_clock(&self) -> Option<u64> {
        match &self.state {
            State::Wanted { stamp, .. } => Some(stamp.time),
            _ => None,
        }
    }
}

impl Process for RicartAgrawala {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    /// The Lamport clock, kept in stable storage: a process that restarts with amnesia must not
    /// come back with a lower clock, or its new request would outrank one it already granted.
    type Stable = u64;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.clock.advance_to(*ctx.stable());
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        self.handle_message(ctx, from, msg);
        *ctx.stable_mut() = self.clock.time();
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        self.handle_timer(ctx, timer);
        *ctx.stable_mut() = self.clock.time();
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Acquire { hold_ms } = input;
        if self.state == State::Released {
            self.request(ctx, hold_ms);
        } else {
            self.backlog.push_back(hold_ms);
        }
        *ctx.stable_mut() = self.clock.time();
    }
}

impl RicartAgrawala {
    fn handle_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        let ft = self.fault_tolerant();
        // Whoever speaks is alive: never declare it dead for this request (it may just have
        // restarted, and asked us while we waited for its answer). If we had already declared
        // it dead, its assumed permission is void: ask it again. (Only the fault-tolerant fix
        // keeps track of who is alive.)
        if let (
            true,
            State::Wanted {
                stamp,
                answered,
                dead,
                oks,
                ..
            },
        ) = (ft, &mut self.state)
        {
            answered.insert(from);
            if dead.remove(&from) {
                oks.remove(&from);
                let request = stamp.time;
                ctx.send(from, Msg::Request { clock: request });
            }
        }
        match msg {
            Msg::Request { clock: theirs } => {
                self.clock.receive(theirs);
                if self.defer(LamportStamp {
                    time: theirs,
                    pid: from,
                }) {
                    if !self.deferred.contains(&(from, theirs)) {
                        self.deferred.push((from, theirs));
                    }
                    if ft {
                        let clock = self.clock.tick().time;
                        ctx.send(
                            from,
                            Msg::Deny {
                                clock,
                                to_request: theirs,
                            },
                        );
                    }
                } else {
                    let clock = self.clock.tick().time;
                    ctx.send(
                        from,
                        Msg::Ok {
                            clock,
                            to_request: if ft { theirs } else { 0 },
                        },
                    );
                }
            }
            Msg::Ok { clock, to_request } => {
                self.clock.receive(clock);
                let stale = match self.variant {
                    Variant::FaultTolerant => self.wanted_clock() != Some(to_request),
                    // The bug: "sent after my request, since its clock is higher".
                    Variant::FaultTolerantClockFreshOk => {
                        self.wanted_clock().is_none_or(|wanted| clock <= wanted)
                    }
                    Variant::Correct | Variant::NoTiebreak => false,
                };
                if stale {
                    return; // an answer to an older request
                }
                if let State::Wanted { oks, answered, .. } = &mut self.state {
                    oks.insert(from);
                    if ft {
                        answered.insert(from);
                    }
                }
                self.maybe_enter(ctx);
            }
            Msg::Deny { clock, to_request } => {
                self.clock.receive(clock);
                if self.wanted_clock() == Some(to_request) {
                    if let State::Wanted { answered, .. } = &mut self.state {
                        answered.insert(from);
                    }
                }
            }
        }
    }

    fn handle_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::HoldDone => {
                assert_eq!(self.state, State::Held, "hold timer while not holding");
                self.state = State::Released;
                ctx.observe(Observation::CsExit { resource: 0 });
                let clock = self.clock.tick().time;
                let ft = self.fault_tolerant();
                for (to, theirs) in std::mem::take(&mut self.deferred) {
                    ctx.send(
                        to,
                        Msg::Ok {
                            clock,
                            to_request: if ft { theirs } else { 0 },
                        },
                    );
                }
                if let Some(hold_ms) = self.backlog.pop_front() {
                    self.request(ctx, hold_ms);
                }
            }
            Timer::Retry { request } => {
                if self.wanted_clock() != Some(request) {
                    return;
                }
                let max_retries = self.max_retries;
                let State::Wanted {
                    oks,
                    answered,
                    unanswered,
                    dead,
                    ..
                } = &mut self.state
                else {
                    return;
                };
                let mut resend = Vec::new();
                for (&peer, sends) in unanswered.iter_mut() {
                    if oks.contains(&peer) {
                        continue;
                    }
                    if answered.remove(&peer) {
                        // It spoke since the last send (a DENY, a request): alive. Count its
                        // silence afresh from this resend, so a peer that answered and then
                        // crashed for good is still declared dead in time.
                        *sends = 0;
                    } else if *sends >= max_retries {
                        // Silent through every retry: declared dead, its permission assumed.
                        oks.insert(peer);
                        dead.insert(peer);
                        ctx.observe(Observation::Note {
                            text: format!("node {peer} declared dead"),
                        });
                        continue;
                    }
                    // Alive but denied (its later OK may be lost), or not answered yet: ask again.
                    *sends += 1;
                    resend.push(peer);
                }
                for peer in resend {
                    ctx.send(peer, Msg::Request { clock: request });
                }
                ctx.set_timer_ms(self.retry_ms, Timer::Retry { request });
                self.maybe_enter(ctx);
            }
        }
    }
}

crate::variants! {
    /// The variants of `mutex.ricart-agrawala`.
    pub enum RaVariant {
        Correct = "correct", "the textbook algorithm";
        NoTiebreak = "no-tiebreak" (buggy), "stamps compared without the process id: equal clocks let both enter";
    }
}

crate::variants! {
    /// The variants of `mutex.ricart-agrawala-ft`.
    pub enum FtVariant {
        Correct = "correct", "the text's fix";
        ClockFreshOk = "clock-fresh-ok" (deep), "an OK counts for the current request when its Lamport clock is above the request's (C(a) < C(b) read as a -> b): a resend's second OK from a peer whose clock ran ahead, landing after a release and a new request, lets two in";
    }
}

/// `mutex.ricart-agrawala`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct RicartAgrawalaSpec;

/// `mutex.ricart-agrawala-ft`, the text's fault-tolerant fix.
#[derive(Clone, Copy, Debug, Default)]
pub struct RicartAgrawalaFtSpec;

/// The parameters both specs check: one initial clock per node, if any.
/// Largest `params.initial_clocks` entry: 2^53, the largest integer every JSON reader keeps
/// exact; a run's ticks (at most `limits.max_events`) then stay far below `u64::MAX`, where a
/// Lamport clock would stop advancing.
pub const MAX_INITIAL_CLOCK: u64 = 1 << 53;

fn check_initial_clocks(p: &Params, nodes: usize) -> Result<(), String> {
    if !p.initial_clocks.is_empty() && p.initial_clocks.len() != nodes {
        return Err(format!(
            "params.initial_clocks has {} entries for {nodes} nodes",
            p.initial_clocks.len()
        ));
    }
    if let Some((i, c)) = p
        .initial_clocks
        .iter()
        .enumerate()
        .find(|(_, &c)| c > MAX_INITIAL_CLOCK)
    {
        return Err(format!(
            "params.initial_clocks[{i}] = {c} is past {MAX_INITIAL_CLOCK} (2^53)"
        ));
    }
    Ok(())
}

/// A node with its Lamport clock at `params.initial_clocks[id]` (0 by default).
fn build(variant: Variant, p: &Params, id: NodeId) -> RicartAgrawala {
    let time = p.initial_clocks.get(id).copied().unwrap_or(0);
    RicartAgrawala::new(
        variant,
        LamportClock::new(id, time),
        p.retry_ms,
        p.max_retries,
    )
}

impl Spec for RicartAgrawalaSpec {
    type Node = RicartAgrawala;
    type Params = Params;
    type Variant = RaVariant;

    fn name(&self) -> &'static str {
        "mutex.ricart-agrawala"
    }
    fn summary(&self) -> &'static str {
        "distributed: Lamport-stamped requests to all, lowest (clock, id) wins, deferred OKs"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.3.4 (Fig. 6.15); seed 001"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["mutual_exclusion", "liveness"]
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![FaultClass::Reordering, FaultClass::Pauses, FaultClass::ClockDrift],
            summary: "reliable channels with any delay and reordering, slow processes, drifting clocks; no crashes",
            ..FaultModel::default()
        }
    }
    /// The textbook algorithm never resends: `retry_ms` and `max_retries`, which only the
    /// fault-tolerant one reads, are refused rather than ignored.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        let p = &setup.params;
        if p.retry_ms != 0 || p.max_retries != 0 {
            return Err(
                "params.retry_ms and params.max_retries are mutex.ricart-agrawala-ft's: the \
                 textbook algorithm never resends (they would be ignored)"
                    .into(),
            );
        }
        check_initial_clocks(&setup.params, setup.nodes())
    }
    fn node(&self, variant: RaVariant, params: &Params, id: NodeId) -> RicartAgrawala {
        let variant = match variant {
            RaVariant::Correct => Variant::Correct,
            RaVariant::NoTiebreak => Variant::NoTiebreak,
        };
        build(variant, params, id)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::workload(rng, nodes, active_ms)
    }
    fn complete(
        &self,
        draft: sincro_harness::gen::Draft,
        opts: &sincro_harness::gen::GenOptions,
    ) -> sincro_harness::Scenario {
        super::complete(self, draft, opts)
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        super::fifo_liveness_bound_ms(setup)
    }
}

impl Spec for RicartAgrawalaFtSpec {
    type Node = RicartAgrawala;
    type Params = Params;
    type Variant = FtVariant;

    fn name(&self) -> &'static str {
        "mutex.ricart-agrawala-ft"
    }
    fn summary(&self) -> &'static str {
        "Ricart–Agrawala fixed as the text proposes: always answer OK or DENY, resend on timeout, declare the silent dead"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.3.4 (the fix, and problem 11 of ch. 6)"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["mutual_exclusion", "liveness"]
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![
                FaultClass::Reordering,
                FaultClass::Crashes,
                FaultClass::CrashStop,
                FaultClass::ClockDrift,
            ],
            summary: "crashes with restart or for good (crash-stop), any delay and reordering, drifting clocks; loss only while fewer than max_retries sends in a row are lost; not pauses or partitions (a live peer would be declared dead)",
            ..FaultModel::default()
        }
    }
    /// Resend period and retries default to values derived from the scenario's latencies.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        check_initial_clocks(&setup.params, setup.nodes())?;
        let lat = setup.max_latency_ms();
        let usual = setup.usual_latency_ms();
        // As a clock fast by the run's drift bound counts them.
        let (retry_default, round_trip) = (
            setup.for_fast_clocks_ms(2 * lat + 2),
            setup.for_fast_clocks_ms(2 * usual),
        );
        let p = &mut setup.params;
        if p.retry_ms == 0 {
            p.retry_ms = retry_default;
        }
        // An answer comes back within a round trip of the usual links: a shorter resend
        // period runs out the retries of a live peer, declared dead, and the correct variant
        // lets two in with no fault at all (a misconfiguration, not a finding).
        if p.retry_ms <= round_trip {
            return Err(format!(
                "params.retry_ms = {} must exceed a round trip of the links ({round_trip} ms): \
                 live peers would be declared dead",
                p.retry_ms,
            ));
        }
        if p.max_retries == 0 {
            p.max_retries = 3;
        }
        Ok(())
    }
    fn node(&self, variant: FtVariant, params: &Params, id: NodeId) -> RicartAgrawala {
        let variant = match variant {
            FtVariant::Correct => Variant::FaultTolerant,
            FtVariant::ClockFreshOk => Variant::FaultTolerantClockFreshOk,
        };
        build(variant, params, id)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::workload(rng, nodes, active_ms)
    }
    fn complete(
        &self,
        draft: sincro_harness::gen::Draft,
        opts: &sincro_harness::gen::GenOptions,
    ) -> sincro_harness::Scenario {
        super::complete(self, draft, opts)
    }
    /// Each hand-off may wait for a resend (a lost OK), plus declaring the dead.
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        let (retry_ms, max_retries) = (setup.params.retry_ms, setup.params.max_retries);
        super::fifo_liveness_bound_ms(setup)
            + setup.nodes() as u64 * retry_ms
            + (u64::from(max_retries) + 1).saturating_mul(retry_ms)
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, EventKind, Observation, Scenario, Verdict};

    /// The sorted-vector set answers, iterates and prints as the `BTreeSet` it replaced (the
    /// oracle), over random insertions and removals with repeats.
    #[test]
    fn the_node_set_behaves_as_a_btree_set() {
        let mut rng = sincro_harness::SimRng::new(76);
        for _ in 0..200 {
            let (mut ours, mut oracle) =
                (super::NodeSet::default(), std::collections::BTreeSet::new());
            for _ in 0..rng.range_u64(0, 40) {
                let id = rng.range_u64(0, 12) as usize;
                if rng.range_u64(0, 2) == 0 {
                    assert_eq!(ours.remove(&id), oracle.remove(&id));
                } else {
                    assert_eq!(ours.insert(id), oracle.insert(id));
                }
                assert_eq!(ours.len(), oracle.len());
                assert_eq!(ours.contains(&id), oracle.contains(&id));
                assert_eq!(format!("{ours:?}"), format!("{oracle:?}"));
            }
            assert!(ours.0.iter().eq(oracle.iter()));
        }
    }

    /// The bound grows with `max_retries` up to the largest value: `u32::MAX` sends once
    /// wrapped round to none and judged a correct run a liveness violation.
    #[test]
    fn the_liveness_bound_grows_with_max_retries_without_wrapping() {
        let alg = find("mutex.ricart-agrawala-ft").unwrap();
        let bound = |max_retries: u32| {
            let sc = Scenario::from_json(&format!(
                r#"{{"algorithm": "mutex.ricart-agrawala-ft", "nodes": 3, "seed": 1,
                    "duration_ms": 500, "params": {{"retry_ms": 100, "max_retries": {max_retries}}}}}"#
            ))
            .unwrap();
            alg.liveness_bound_ms(&sc)
        };
        assert!(bound(4) > bound(3));
        assert!(bound(u32::MAX) > bound(u32::MAX - 1));
        assert!(bound(u32::MAX) > 400_000_000_000, "{}", bound(u32::MAX));
    }

    fn two_requesters(n: usize, variant: &str, clocks: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "mutex.ricart-agrawala", "variant": "{variant}", "nodes": {n}, "seed": 1,
                "duration_ms": 500, "params": {{"initial_clocks": {clocks}}},
                "network": {{"latency": {{"constant": {{"ms": 5}}}}}},
                "workload": [{{"at_ms": 10, "node": 0, "input": {{"acquire": {{"hold_ms": 20}}}}}},
                             {{"at_ms": 10, "node": 2, "input": {{"acquire": {{"hold_ms": 20}}}}}}]}}"#
        ))
        .unwrap()
    }

    #[test]
    fn fig_6_15_lowest_stamp_enters_first_then_the_deferred_one() {
        let out = find("mutex.ricart-agrawala")
            .unwrap()
            .run(
                &two_requesters(3, "correct", "[7, 0, 11]"),
                RunOptions::default(),
            )
            .unwrap();
        assert_eq!(out.verdict, Verdict::Pass);
        let enters: Vec<_> = out
            .trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Observe {
                        obs: Observation::CsEnter { .. }
                    }
                )
            })
            .map(|e| (e.node.unwrap(), e.t_ns / 1_000_000))
            .collect();
        // 0 (stamp 8) enters when both OKs are in (10 + 5 + 5); 2 (stamp 12) after 0's exit OK
        assert_eq!(enters, vec![(0, 20), (2, 45)]);
    }

    #[test]
    fn two_n_minus_one_messages_per_entry() {
        for n in [3usize, 5, 8, 13] {
            let clocks = serde_json::to_string(&vec![0u64; n]).unwrap();
            let out = find("mutex.ricart-agrawala")
                .unwrap()
                .run(
                    &two_requesters(n, "correct", &clocks),
                    RunOptions::default(),
                )
                .unwrap();
            assert_eq!(out.verdict, Verdict::Pass);
            assert_eq!(
                out.stats.sent,
                2 * 2 * (n as u64 - 1),
                "n = {n}: two entries, 2(n-1) each"
            );
        }
    }

    #[test]
    fn equal_clocks_without_tie_break_let_both_in() {
        let out = find("mutex.ricart-agrawala")
            .unwrap()
            .run(
                &two_requesters(3, "no-tiebreak", "[0, 0, 0]"),
                RunOptions::default(),
            )
            .unwrap();
        assert!(
            matches!(&out.verdict, Verdict::Violation(v) if v.property == "mutual_exclusion"),
            "{}",
            out.verdict
        );
        let ok = find("mutex.ricart-agrawala")
            .unwrap()
            .run(
                &two_requesters(3, "correct", "[0, 0, 0]"),
                RunOptions::default(),
            )
            .unwrap();
        assert_eq!(
            ok.verdict,
            Verdict::Pass,
            "the tie break settles equal clocks"
        );
    }

    #[test]
    fn deterministic_on_both_engines_and_fuzzing_separates_the_variants() {
        assert_replays_exactly("mutex.ricart-agrawala", &["correct", "no-tiebreak"], 5);
        assert!(first_failing_seed(
            "mutex.ricart-agrawala",
            "no-tiebreak",
            200,
            EngineKind::Native
        )
        .is_some());
        assert_in_model_passes("mutex.ricart-agrawala", "correct", 300, EngineKind::Native);
    }

    fn crash_scenario(alg: &str, fault: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "{alg}", "nodes": 3, "seed": 4, "duration_ms": 600,
                "network": {{"latency": {{"constant": {{"ms": 5}}}}}},
                "faults": [{fault}],
                "workload": [{{"at_ms": 50, "node": 0, "input": {{"acquire": {{"hold_ms": 30}}}}}},
                             {{"at_ms": 52, "node": 1, "input": {{"acquire": {{"hold_ms": 30}}}}}}],
                "checks": {{"liveness_bound_ms": 300}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn the_fix_survives_a_crashed_peer_that_blocks_the_original() {
        let crash = r#"{"at_ms": 10, "fault": {"crash": {"node": 2}}}"#;
        let plain = find("mutex.ricart-agrawala")
            .unwrap()
            .run(
                &crash_scenario("mutex.ricart-agrawala", crash),
                RunOptions::default(),
            )
            .unwrap();
        assert!(
            matches!(&plain.verdict, Verdict::Violation(v) if v.property == "liveness"),
            "{}",
            plain.verdict
        );
        let ft = find("mutex.ricart-agrawala-ft")
            .unwrap()
            .run(
                &crash_scenario("mutex.ricart-agrawala-ft", crash),
                RunOptions::default(),
            )
            .unwrap();
        assert_eq!(
            ft.verdict,
            Verdict::Pass,
            "the silent node is declared dead and both enter in turn"
        );
    }

    #[test]
    fn the_fix_is_insufficient_when_a_live_peer_is_only_slow() {
        // Problem 11 of ch. 6: node 0 holds the resource and is paused; its silence looks like
        // death to node 1, which declares it dead and enters too.
        let sc = Scenario::from_json(
            r#"{"algorithm": "mutex.ricart-agrawala-ft", "nodes": 3, "seed": 4, "duration_ms": 600,
                "network": {"latency": {"constant": {"ms": 5}}},
                "faults": [{"at_ms": 25, "fault": {"pause": {"node": 0}}},
                           {"at_ms": 400, "fault": {"resume": {"node": 0}}}],
                "workload": [{"at_ms": 10, "node": 0, "input": {"acquire": {"hold_ms": 100}}},
                             {"at_ms": 50, "node": 1, "input": {"acquire": {"hold_ms": 30}}}]}"#,
        )
        .unwrap();
        let ft = find("mutex.ricart-agrawala-ft")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap();
        assert!(
            matches!(&ft.verdict, Verdict::Violation(v) if v.property == "mutual_exclusion"),
            "{}",
            ft.verdict
        );
    }

    #[test]
    fn the_fix_passes_in_model_fuzzing_and_replays_exactly() {
        assert_in_model_passes(
            "mutex.ricart-agrawala-ft",
            "correct",
            300,
            EngineKind::Native,
        );
        assert_replays_exactly("mutex.ricart-agrawala-ft", &["correct"], 3);
    }

    /// `clock-fresh-ok`: the second OK of a resent request, landing after a release and a new
    /// request with a clock above it, lets two in; the correct fix drops it by `to_request`.
    #[test]
    fn a_stale_ok_with_a_high_clock_lets_two_in() {
        crate::test_support::assert_only_the_twin_breaks(
            include_str!(
                "../../../corpus/mutex/ricart-agrawala-ft-clock-fresh-ok-two-holders.json"
            ),
            "mutual_exclusion",
        );
    }
}
