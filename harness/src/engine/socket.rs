//! What the socket engines ([`turmoil`](super::turmoil) and, in `--cfg madsim` builds,
//! `madsim`) share: the per-node glue between a simulator that carries datagrams and Sincro's
//! [`Process`] code.
//!
//! Both engines keep, outside the simulator, a [`World`] shared by every node's software and
//! by the engine's driver (`Rc<RefCell<World>>`, never borrowed across an `.await`). It holds,
//! for each node, a [`Slot`]: what the node has outside its process value (software clock,
//! random generator, stable storage, timers, incarnation, crash and pause flags, the workload
//! inputs still to come); and for the run: Sincro's network model ([`Network`], with the
//! partition epoch of every link), the `network` random stream, the recorder, the counters and
//! the limits. This module does with it everything that does not depend on the simulator:
//!
//! * building the world from a scenario ([`World::new`]) and the fault plan ([`fault_plan`]);
//! * running a callback through a [`Ctx`] inside `catch_unwind` ([`World::boot`],
//!   [`World::deliver`], [`World::fire_timer`], [`World::input`]); what follows its return (a
//!   panic recorded, or its operations applied in program order) is the callback core every
//!   engine shares, [`super::after_callback`], with this layer's timers and sends behind it;
//! * the bookkeeping around a send ([`World::record_send`], [`World::reserve`]) and a drop
//!   ([`World::drop_msg`]); partition epochs ([`World::cut_link`]); faults that only touch
//!   Sincro's state (the fault event itself, clock faults); inputs due at crashed nodes
//!   (recorded as ignored); and the run's end ([`World::outcome`]).
//!
//! Each engine supplies, through [`Engine`], what is really its own: the per-node state its
//! transport needs ([`Engine::Node`]: an inbox and what waits for a resume on turmoil, the
//! datagrams to read and a resume hold on madsim), the handle a node sends through
//! ([`Engine::Io`]), how a node decides what is due and when to wake ([`Engine::turn`]) and
//! how a message is routed and carried ([`Engine::send`]: turmoil draws loss, duplication and
//! reordering itself and keeps FIFO order with sequence numbers; madsim asks
//! [`Network::route`] for arrival times). How nodes are spawned, how datagrams are read and how
//! faults map to the simulator's own primitives also stay in the engine files.

use super::{invoke, Call, Factory, Held, Outcome, Prepared, Recorder, RunOptions, Stats, Verdict};
use crate::check::Checker;
use crate::clock::SoftClock;
use crate::fault::Fault;
use crate::net::{DropReason, Network};
use crate::process::{Ctx, Effects, Peers, Process, TimerId};
use crate::rng::{stream, SimRng};
use crate::scenario::{Limits, Scenario, ScenarioError};
use crate::trace::EventKind;
use crate::{NodeId, NS_PER_MS};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Debug;
use std::rc::Rc;
use tokio::sync::Notify;

/// A socket engine's world at one instant of one node's turn: the socket layer's half of the
/// callback core ([`super::after_callback`]).
struct At<'a, P: Process, E: Engine<P>> {
    w: &'a mut World<P, E>,
    io: &'a E::Io,
    now: u64,
}

impl<P: Process, E: Engine<P>> super::Host<P> for At<'_, P, E> {
    fn now_ns(&self) -> u64 {
        self.now
    }

    fn local_ns(&mut self, id: NodeId) -> i64 {
        self.w.nodes[id].clock.read(self.now)
    }

    fn rec(&mut self) -> &mut Recorder {
        &mut self.w.rec
    }

    fn fx(&mut self) -> &mut Effects<P> {
        &mut self.w.fx
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: P::Msg) {
        E::send(self.w, from, to, msg, self.io, self.now);
    }

    fn set_timer(&mut self, id: NodeId, tid: TimerId, deadline_local_ns: i64, timer: P::Timer) {
        let slot = &mut self.w.nodes[id];
        let fresh = slot
            .timers
            .insert(tid, (deadline_local_ns, timer))
            .is_none()
            && slot.schedule.insert((deadline_local_ns, tid));
        // (A node's pending timers are its schedule's plus those waiting for its resume, so
        // the two are not the same size while it is paused.)
        super::invariant(fresh, "a timer id is set once", || {
            format!("node {id} timer {} set twice", tid.0)
        });
    }

    fn cancel_timer(&mut self, id: NodeId, tid: TimerId) {
        let slot = &mut self.w.nodes[id];
        if let Some((deadline, _)) = slot.timers.remove(&tid) {
            slot.schedule.remove(&(deadline, tid));
        }
    }

    fn clock_changed(&mut self, _id: NodeId) {
        // A node's sleep is recomputed from its clock after its turn: nothing to move.
    }

    fn clock_mut(&mut self, id: NodeId) -> &mut crate::clock::SoftClock {
        &mut self.w.nodes[id].clock
    }

    fn sent_and_limit(&self) -> (u64, u64) {
        (self.w.stats.sent, self.w.limits.max_sent)
    }
}

/// What a socket engine supplies to the shared layer (see the module documentation).
pub(crate) trait Engine<P: Process>: Sized {
    /// The engine's own part of a node's [`Slot`].
    type Node;
    /// What a node's software sends through (its socket or endpoint).
    type Io: ?Sized;

    /// Handles everything due at `now` for node `id`, then says when to look again.
    fn turn(w: &mut World<P, Self>, id: NodeId, proc: &mut P, io: &Self::Io, now: u64) -> Next;

    /// Sends `msg` from `from` to `to` (operation `Send` of a callback of `from`): records it
    /// ([`World::record_send`]), routes it, takes its place in flight ([`World::reserve`]) and
    /// hands it to the simulator, or drops it.
    fn send(w: &mut World<P, Self>, from: NodeId, to: NodeId, msg: P::Msg, io: &Self::Io, now: u64);
}

/// What a node has outside its process value: survives crashes, except what a crash clears.
pub(crate) struct Slot<P: Process, X> {
    /// The node's software clock.
    pub clock: SoftClock,
    /// The node's random generator (`ctx.rng()`).
    pub rng: SimRng,
    /// Stable storage (survives crashes).
    pub stable: P::Stable,
    /// Pending timers: local deadline and payload.
    pub timers: BTreeMap<TimerId, (i64, P::Timer)>,
    /// The pending timers by local deadline (on turmoil, not those waiting for a resume).
    pub schedule: BTreeSet<(i64, TimerId)>,
    /// The next timer id of the node.
    pub next_timer: u64,
    /// How many times the node was restarted.
    pub incarnation: u32,
    /// The node is down.
    pub crashed: bool,
    /// The node is paused.
    pub paused: bool,
    /// Workload inputs still to come: (global time ns, input), by time.
    pub inputs: VecDeque<(u64, P::Input)>,
    /// Wakes the node's software.
    pub notify: Rc<Notify>,
    /// The engine's own part ([`Engine::Node`]).
    pub eng: X,
}

impl<P: Process, X> Slot<P, X> {
    /// The shared bookkeeping of a crash: down, not paused, timers dropped.
    pub fn crash(&mut self) {
        self.crashed = true;
        self.paused = false;
        self.timers.clear();
        self.schedule.clear();
    }
}

/// A message that reached its destination's world (read from the simulator, or sent to itself).
pub(crate) struct Arrived<M> {
    /// The message id.
    pub msg_id: u64,
    /// The sender.
    pub from: NodeId,
    /// The send event.
    pub sent: u64,
    /// The link's partition epoch when it was sent.
    pub cut: u32,
    /// The message.
    pub msg: M,
}

/// What a node's software does after a turn.
pub(crate) enum Next {
    /// Sleep until this global time (or until woken); `None`: until woken.
    Sleep(Option<u64>),
    /// The run is over (a verdict): do nothing more.
    Halt,
}

/// Everything the nodes' software and the engine's driver share.
pub(crate) struct World<P: Process, E: Engine<P>> {
    /// Number of nodes.
    pub n: usize,
    /// Every node's slot.
    pub nodes: Vec<Slot<P, E::Node>>,
    /// Sincro's network model.
    pub net: Network,
    /// The run's `network` random stream.
    pub net_rng: SimRng,
    /// Times each directed link was cut (absent: never).
    pub cuts: BTreeMap<(NodeId, NodeId), u32>,
    /// The effects of the callback running (reused).
    pub fx: Effects<P>,
    /// Builds a node's process (at start and restart).
    pub factory: Factory<P>,
    /// Event ids, trace and checkers.
    pub rec: Recorder,
    /// The next message id.
    pub next_msg_id: u64,
    /// Messages (copies) in flight.
    pub in_flight: u64,
    /// The scenario's limits.
    pub limits: Limits,
    /// Counters.
    pub stats: Stats,
    /// The engine's own part.
    pub eng: E,
}

/// The fault plan of `sc`: (global time ns, fault), by time (plan order at the same instant).
pub(crate) fn fault_plan(sc: &Scenario) -> Vec<(u64, Fault)> {
    let mut faults: Vec<(u64, Fault)> = sc
        .faults
        .iter()
        .map(|f| (f.at_ms * NS_PER_MS, f.fault.clone()))
        .collect();
    faults.sort_by_key(|(at, _)| *at); // stable: plan order at the same instant
    faults
}

/// The group of every node of a partition into `groups` (`usize::MAX`: in none).
pub(crate) fn group_of(n: usize, groups: &[Vec<NodeId>]) -> Vec<usize> {
    let mut group_of = vec![usize::MAX; n];
    for (g, members) in groups.iter().enumerate() {
        for &m in members {
            group_of[m] = g;
        }
    }
    group_of
}

impl<P: Process, E: Engine<P>> World<P, E> {
    /// The world of `sc` (already `prep`ared): one slot per node, with `node()` as the
    /// engine's part, and `eng` as the engine's part of the world.
    pub fn new(
        sc: &Scenario,
        prep: Prepared<P>,
        factory: Factory<P>,
        checkers: Vec<Box<dyn Checker>>,
        options: RunOptions,
        eng: E,
        mut node: impl FnMut() -> E::Node,
    ) -> Result<Self, ScenarioError> {
        let n = sc.nodes;
        let mut net =
            Network::new(n, &sc.network).map_err(|e| ScenarioError(format!("network: {e}")))?;
        net.set_schedule(&sc.schedule);
        let mut inputs: Vec<Vec<(u64, P::Input)>> = (0..n).map(|_| Vec::new()).collect();
        for (at, node, input) in prep.inputs {
            inputs[node].push((at, input));
        }
        let nodes = prep
            .clocks
            .into_iter()
            .zip(prep.rngs)
            .zip(inputs)
            .map(|((clock, rng), mut inputs)| {
                inputs.sort_by_key(|(at, _)| *at); // stable: scenario order at the same instant
                Slot {
                    clock,
                    rng,
                    stable: P::Stable::default(),
                    timers: BTreeMap::new(),
                    schedule: BTreeSet::new(),
                    next_timer: 0,
                    incarnation: 0,
                    crashed: false,
                    paused: false,
                    inputs: inputs.into(),
                    notify: Rc::new(Notify::new()),
                    eng: node(),
                }
            })
            .collect();
        Ok(World {
            n,
            nodes,
            net,
            net_rng: SimRng::derive(sc.seed, stream::NETWORK),
            cuts: BTreeMap::new(),
            fx: Effects::with_ops_max(sc.limits.max_ops_per_callback),
            factory,
            rec: Recorder::new(n, checkers, options, sc.limits.max_trace_bytes),
            next_msg_id: 0,
            in_flight: 0,
            limits: sc.limits.clone(),
            stats: Stats::default(),
            eng,
        })
    }

    /// Ends the run at `end` (ns): the checkers' final verdict, the trace and the counters.
    pub fn outcome(&mut self, end: u64) -> Outcome {
        let verdict = self.rec.finish(end);
        self.stats.end_t_ns = end;
        Outcome {
            verdict,
            trace: self.rec.trace.take(),
            stats: std::mem::take(&mut self.stats),
        }
    }

    /// Counts one processed event; false (and a verdict) past the limit.
    pub fn count_event(&mut self, now: u64) -> bool {
        self.stats.events += 1;
        if self.stats.events % super::STOP_POLL_STEPS == 0 && super::stop_requested() {
            self.rec.verdict.get_or_insert(super::interrupted(now));
            self.stats.events -= 1;
            return false;
        }
        if self.stats.events > self.limits.max_events {
            let limit = format!(
                "limits.max_events = {} steps reached at {:.3} ms",
                self.limits.max_events,
                now as f64 / 1e6
            );
            self.rec
                .verdict
                .get_or_insert(Verdict::LimitExceeded { limit });
            // The step refused never happened: the count is the steps taken.
            self.stats.events -= 1;
            return false;
        }
        true
    }

    /// `v` rendered with `Debug` when the trace is recorded, else empty.
    fn render(&self, v: &impl Debug) -> String {
        if self.rec.record {
            format!("{v:?}")
        } else {
            String::new()
        }
    }

    /// Records an event of node `id` at `now` (with its local clock reading); its id.
    pub fn emit_at(&mut self, id: NodeId, now: u64, kind: EventKind) -> u64 {
        let local = self.nodes[id].clock.read(now);
        self.rec.emit(now, Some(id), Some(local), kind)
    }

    /// The partition epoch of link `a -> b`: how many times it was cut.
    pub fn cut(&self, a: NodeId, b: NodeId) -> u32 {
        self.cuts.get(&(a, b)).copied().unwrap_or(0)
    }

    /// Blocks link `a -> b` in Sincro's model (a new partition epoch if it was open).
    pub fn cut_link(&mut self, a: NodeId, b: NodeId) {
        if !self.net.blocked(a, b) {
            self.net.block_link(a, b);
            *self.cuts.entry((a, b)).or_default() += 1;
        }
    }

    /// The (re)started software of `id` begins: records `Start`, calls `on_start`, then takes
    /// a turn.
    pub fn boot(&mut self, id: NodeId, proc: &mut P, io: &E::Io, now: u64) -> Next {
        if self.rec.verdict.is_some() {
            return Next::Halt;
        }
        if self.count_event(now) {
            if self.rec.observing {
                let incarnation = self.nodes[id].incarnation;
                self.emit_at(id, now, EventKind::Start { incarnation });
            }
            self.call(id, proc, io, now, Call::Start);
        }
        E::turn(self, id, proc, io, now)
    }

    /// Delivers `a` to `id` now (dropped, `partitioned`, if its link was cut since it was sent).
    pub fn deliver(&mut self, id: NodeId, proc: &mut P, io: &E::Io, now: u64, a: Arrived<P::Msg>) {
        if !self.count_event(now) {
            return;
        }
        self.leave(a.msg_id);
        if a.from != id && self.cut(a.from, id) != a.cut {
            self.drop_msg(now, a.msg_id, a.from, id, DropReason::Partitioned);
            return;
        }
        self.stats.delivered += 1;
        if self.rec.observing {
            let msg = self.rec.sent_text(a.sent);
            let kind = EventKind::Deliver {
                msg_id: a.msg_id,
                from: a.from,
                sent: a.sent,
                msg,
            };
            self.emit_at(id, now, kind);
        }
        self.call(id, proc, io, now, Call::Message(a.from, a.msg));
    }

    /// Fires pending timer `tid` of `id` now (its schedule entry already removed).
    pub fn fire_timer(&mut self, id: NodeId, proc: &mut P, io: &E::Io, now: u64, tid: TimerId) {
        if !self.count_event(now) {
            return;
        }
        let (_, timer) = self.nodes[id]
            .timers
            .remove(&tid)
            .held("a fired timer is pending");
        self.stats.timers += 1;
        if self.rec.observing {
            let label = self.render(&timer);
            let kind = EventKind::Timer {
                timer_id: tid.0,
                timer: label,
            };
            self.emit_at(id, now, kind);
        }
        self.call(id, proc, io, now, Call::Timer(timer));
    }

    /// Hands workload input `input` to `id` now.
    pub fn input(&mut self, id: NodeId, proc: &mut P, io: &E::Io, now: u64, input: P::Input) {
        if !self.count_event(now) {
            return;
        }
        if self.rec.observing {
            let label = self.render(&input);
            self.emit_at(id, now, EventKind::Input { input: label });
        }
        self.call(id, proc, io, now, Call::Input(input));
    }

    /// Records the workload inputs due at `horizon` or before at `id` as ignored while it is
    /// crashed (the native engine does the same). False when the event limit was hit.
    pub fn ignore_inputs(&mut self, id: NodeId, horizon: u64, now: u64) -> bool {
        while self.nodes[id].crashed
            && self.nodes[id]
                .inputs
                .front()
                .is_some_and(|(at, _)| *at <= horizon)
        {
            let (_, input) = self.nodes[id]
                .inputs
                .pop_front()
                .held("an input due is queued");
            if !self.ignore_input(id, now, &input) {
                return false;
            }
        }
        true
    }

    /// Records `input`, which reached `id` crashed (due then, or held while it was paused),
    /// as ignored. False when the event limit was hit.
    pub fn ignore_input(&mut self, id: NodeId, now: u64, input: &P::Input) -> bool {
        if !self.count_event(now) {
            return false;
        }
        if self.rec.observing {
            let mut label = self.render(input);
            label.push_str(" (ignored: node is crashed)");
            self.emit_at(id, now, EventKind::Input { input: label });
        }
        true
    }

    /// Runs one callback of `id` and applies its operations, or records its panic.
    fn call(&mut self, id: NodeId, proc: &mut P, io: &E::Io, now: u64, call: Call<P>) {
        let World {
            n, nodes, net, fx, ..
        } = self;
        let slot = &mut nodes[id];
        let mut ctx = Ctx {
            id,
            nodes: *n,
            t_ns: now,
            clock: &mut slot.clock,
            rng: &mut slot.rng,
            stable: &mut slot.stable,
            fx,
            neighbours: Peers::Topology(net.adjacency()),
            next_timer: &mut slot.next_timer,
        };
        let result = invoke(proc, &mut ctx, call);
        super::after_callback(&mut At { w: self, io, now }, id, result);
    }

    /// Records a panic of `id` (a `Panic` event and verdict).
    pub fn panic(&mut self, id: NodeId, now: u64, message: String) {
        self.emit_at(
            id,
            now,
            EventKind::Panic {
                message: message.clone(),
            },
        );
        self.rec.verdict = Some(Verdict::Panic {
            node: id,
            t_ns: now,
            message,
        });
    }

    /// The first step of a send: a new message id, counted, and its `Send` event recorded.
    /// Returns (message id, send event id; 0 when not observing).
    pub fn record_send(&mut self, from: NodeId, to: NodeId, msg: &P::Msg, now: u64) -> (u64, u64) {
        let msg_id = self.next_msg_id;
        self.next_msg_id += 1;
        self.stats.sent += 1;
        let mut sent = 0;
        if self.rec.observing {
            let rendered = self.rec.render(msg);
            sent = self.emit_at(
                from,
                now,
                EventKind::Send {
                    msg_id,
                    to,
                    msg: rendered,
                },
            );
        }
        (msg_id, sent)
    }

    /// A copy of message `msg_id` leaves the network (delivered, or dropped after it was put
    /// in flight): the in-flight count, checked.
    #[track_caller]
    pub fn leave(&mut self, msg_id: u64) {
        self.in_flight = super::in_flight_less_one(self.in_flight, msg_id);
    }

    /// Puts `copies` copies of message `msg_id` in flight; past `limits.max_in_flight` the
    /// message is dropped, the run ends with `limit_exceeded`, and the answer is false.
    pub fn reserve(
        &mut self,
        copies: u64,
        msg_id: u64,
        from: NodeId,
        to: NodeId,
        now: u64,
    ) -> bool {
        if self.in_flight + copies > self.limits.max_in_flight as u64 {
            self.drop_msg(now, msg_id, from, to, DropReason::InFlightLimit);
            let limit = format!(
                "limits.max_in_flight = {} reached at {:.3} ms",
                self.limits.max_in_flight,
                now as f64 / 1e6
            );
            self.rec
                .verdict
                .get_or_insert(Verdict::LimitExceeded { limit });
            return false;
        }
        self.in_flight += copies;
        self.stats.max_in_flight = self.stats.max_in_flight.max(self.in_flight);
        true
    }

    /// Records message `msg_id` from `from` to `to` as dropped for `reason`.
    pub fn drop_msg(
        &mut self,
        now: u64,
        msg_id: u64,
        from: NodeId,
        to: NodeId,
        reason: DropReason,
    ) {
        self.stats.dropped += 1;
        self.rec.drop_msg(now, msg_id, from, to, reason);
    }

    /// Counts and records fault `fault` at `now`; false when the event limit was hit (the
    /// fault is then not applied).
    pub fn record_fault(&mut self, fault: &Fault, now: u64) -> bool {
        if !self.count_event(now) {
            return false;
        }
        if self.rec.observing {
            let node = fault.node();
            let local = node.map(|id| self.nodes[id].clock.read(now));
            self.rec.emit(
                now,
                node,
                local,
                EventKind::Fault {
                    fault: fault.clone(),
                },
            );
        }
        true
    }

    /// Applies a clock fault (`clock_jump`, `drift_change`) to the node's software clock and
    /// wakes the node to recompute its sleep; any other fault is left alone.
    pub fn clock_fault(&mut self, fault: &Fault, now: u64) {
        match *fault {
            Fault::ClockJump { node, delta_ms } => {
                let slot = &mut self.nodes[node];
                slot.clock.hw_jump(now, (delta_ms * 1e6).round() as i64);
                slot.notify.notify_one();
            }
            Fault::DriftChange { node, drift_ppm } => {
                let slot = &mut self.nodes[node];
                slot.clock
                    .set_drift(now, (drift_ppm * 1000.0).round() as i64);
                slot.notify.notify_one();
            }
            _ => {}
        }
    }
}

/// What the tests of both socket engines share: a ping-pong process and scenario helpers.
#[cfg(test)]
pub(crate) mod testing {
    use crate::engine::{Factory, Outcome, Verdict};
    use crate::net::DropReason;
    use crate::process::{Ctx, Observation, Process};
    use crate::scenario::Scenario;
    use crate::trace::{Event, EventKind};
    use crate::{NodeId, NS_PER_MS};
    use serde::{Deserialize, Serialize};
    use std::collections::{BTreeMap, BTreeSet};
    use std::rc::Rc;

    /// The messages of [`PingPong`].
    #[derive(Clone, Debug, Serialize, Deserialize)]
    pub(crate) enum Msg {
        Ping(u64),
        Pong(u64),
    }

    /// The workload inputs of [`PingPong`].
    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub(crate) enum Input {
        Burst,
        Boom,
    }

    /// Node 0 pings everyone at start and every 10 ms (local); everyone answers pings with a
    /// pong; every node pings its neighbours on a burst input; the stable storage counts starts.
    pub(crate) struct PingPong {
        round: u64,
    }

    impl Process for PingPong {
        type Msg = Msg;
        type Timer = ();
        type Input = Input;
        type Stable = u32;

        fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
            *ctx.stable_mut() += 1;
            let text = format!("start {}", ctx.stable());
            ctx.observe(Observation::Note { text });
            if ctx.id() == 0 {
                ctx.broadcast(Msg::Ping(0));
            }
            ctx.set_timer_ms(10, ());
        }

        fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
            if let Msg::Ping(k) = msg {
                ctx.send(from, Msg::Pong(k));
            }
        }

        fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, _: ()) {
            self.round += 1;
            if ctx.id() == 0 {
                ctx.broadcast(Msg::Ping(self.round));
            }
            ctx.set_timer_ms(10, ());
        }

        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
            match input {
                Input::Burst => {
                    ctx.broadcast(Msg::Ping(1000 + self.round));
                    ctx.send(ctx.id(), Msg::Ping(2000));
                }
                Input::Boom => panic!("boom at round {}", self.round),
            }
        }
    }

    /// Builds [`PingPong`] processes.
    pub(crate) fn factory() -> Factory<PingPong> {
        Rc::new(|_| PingPong { round: 0 })
    }

    /// The base scenario on `engine` (3 nodes, seed 7, 300 ms, default latency `latency`,
    /// drifting clocks) with the top-level fields of `extra` (`, "key": value, ...`) replaced.
    pub(crate) fn scenario_on(engine: &str, latency: serde_json::Value, extra: &str) -> Scenario {
        let mut base = serde_json::json!({
            "algorithm": "test.pingpong", "nodes": 3, "seed": 7, "duration_ms": 300,
            "engine": engine,
            "network": {"latency": latency},
            "clocks": {"rho_ppm": 200, "offset_ms_max": 3}
        });
        let extra: serde_json::Value =
            serde_json::from_str(&format!("{{{}}}", extra.trim().trim_start_matches(','))).unwrap();
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        Scenario::from_json(&base.to_string()).unwrap()
    }

    /// The recorded events of a run.
    pub(crate) fn events(o: &Outcome) -> &[Event] {
        o.trace.as_ref().unwrap().events()
    }

    /// (t ms, from, to) of every delivery.
    pub(crate) fn deliveries(o: &Outcome) -> Vec<(u64, NodeId, NodeId)> {
        events(o)
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Deliver { from, .. } => Some((e.t_ns / NS_PER_MS, from, e.node?)),
                _ => None,
            })
            .collect()
    }

    /// Same scenario, same trace and counters (a pass, with every kind of fault); another seed, another trace.
    pub(crate) fn same_scenario_same_trace(
        scenario: impl Fn(&str) -> Scenario,
        run: impl Fn(&Scenario) -> Outcome,
    ) {
        let sc = scenario(
            r#", "network": {"latency": {"exponential": {"min_ms": 1, "mean_ms": 4, "max_ms": 30}},
                              "loss": 0.1, "duplicate": 0.1, "reorder": 0.2},
                 "workload": [{"at_ms": 25, "node": 2, "input": "burst"}],
                 "faults": [{"at_ms": 60, "fault": {"partition": {"groups": [[0], [1, 2]]}}},
                            {"at_ms": 90, "fault": "heal"},
                            {"at_ms": 100, "fault": {"crash": {"node": 2}}},
                            {"at_ms": 140, "fault": {"restart": {"node": 2}}},
                            {"at_ms": 150, "fault": {"pause": {"node": 1}}},
                            {"at_ms": 170, "fault": {"clock_jump": {"node": 0, "delta_ms": -7}}},
                            {"at_ms": 180, "fault": {"resume": {"node": 1}}}]"#,
        );
        let a = run(&sc);
        let b = run(&sc);
        assert!(a.verdict.is_pass(), "{}", a.verdict);
        let (ta, tb) = (a.trace.as_ref().unwrap(), b.trace.as_ref().unwrap());
        assert!(ta.len() > 100);
        assert_eq!(ta.to_jsonl(), tb.to_jsonl());
        assert_eq!(a.stats, b.stats);
        let mut other = sc.clone();
        other.seed = 8;
        let c = run(&other);
        assert_ne!(
            ta.to_jsonl(),
            c.trace.unwrap().to_jsonl(),
            "the seed matters"
        );
    }

    /// A partition stops the deliveries across it (and drops what is in flight) until the heal; each side still talks inside.
    pub(crate) fn partition_stops_deliveries_until_heal(
        scenario: impl Fn(&str) -> Scenario,
        run: impl Fn(&Scenario) -> Outcome,
    ) {
        let sc = scenario(
            r#", "faults": [{"at_ms": 50, "fault": {"partition": {"groups": [[0, 2], [1]]}}},
                            {"at_ms": 120, "fault": "heal"}]"#,
        );
        let o = run(&sc);
        assert!(o.verdict.is_pass(), "{}", o.verdict);
        let d = deliveries(&o);
        let between = |&&(_, f, t): &&(u64, NodeId, NodeId)| (f, t) == (0, 1) || (f, t) == (1, 0);
        assert!(d.iter().filter(between).any(|&(t, ..)| t < 50));
        assert!(
            !d.iter()
                .filter(between)
                .any(|&(t, ..)| (50..120).contains(&t)),
            "{d:?}"
        );
        assert!(d.iter().filter(between).any(|&(t, ..)| t > 120));
        // Node 2 still talks to node 0 during the partition.
        assert!(d
            .iter()
            .any(|&(t, f, to)| (60..120).contains(&t) && f == 0 && to == 2));
        let parted = events(&o)
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Drop {
                        reason: DropReason::Partitioned,
                        ..
                    }
                )
            })
            .count();
        assert!(parted >= 6, "{parted}");
    }

    /// A one-way partition cuts one direction of a link until the heal, not the other.
    pub(crate) fn oneway_partition_cuts_one_direction(
        scenario: impl Fn(&str) -> Scenario,
        run: impl Fn(&Scenario) -> Outcome,
    ) {
        let sc = scenario(
            r#", "faults": [{"at_ms": 50, "fault": {"partition_oneway": {"from": [1], "to": [0]}}},
                            {"at_ms": 120, "fault": "heal"}]"#,
        );
        let o = run(&sc);
        let d = deliveries(&o);
        assert!(!d
            .iter()
            .any(|&(t, f, to)| (50..120).contains(&t) && (f, to) == (1, 0)));
        assert!(d
            .iter()
            .any(|&(t, f, to)| (60..120).contains(&t) && (f, to) == (0, 1)));
        assert!(d.iter().any(|&(t, f, to)| t > 120 && (f, to) == (1, 0)));
    }

    /// Links are FIFO (duplicates included) unless the scenario allows reordering.
    pub(crate) fn links_are_fifo_unless_reordering(
        scenario: impl Fn(&str) -> Scenario,
        run: impl Fn(&Scenario) -> Outcome,
    ) {
        let fifo = scenario(
            r#", "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 30}}, "duplicate": 0.2},
                 "workload": [{"at_ms": 20, "node": 0, "input": "burst"},
                              {"at_ms": 21, "node": 0, "input": "burst"},
                              {"at_ms": 22, "node": 0, "input": "burst"},
                              {"at_ms": 23, "node": 0, "input": "burst"}]"#,
        );
        let in_order = |o: &Outcome| {
            let mut last: BTreeMap<(NodeId, NodeId), u64> = BTreeMap::new();
            events(o).iter().all(|e| match e.kind {
                EventKind::Deliver { msg_id, from, .. } => {
                    let prev = last.insert((from, e.node.unwrap()), msg_id);
                    prev.is_none_or(|p| p <= msg_id)
                }
                _ => true,
            })
        };
        let o = run(&fifo);
        assert!(in_order(&o));
        let ids: Vec<u64> = events(&o)
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Deliver { msg_id, .. } => Some(msg_id),
                _ => None,
            })
            .collect();
        let unique: BTreeSet<u64> = ids.iter().copied().collect();
        assert!(unique.len() < ids.len(), "some messages are duplicated");
        let mut reorder = fifo.clone();
        reorder.network.reorder = 1.0;
        assert!(!in_order(&run(&reorder)), "reorders when allowed");
    }

    /// A panic in a callback ends the run with a `Panic` verdict naming the node, at the
    /// millisecond of the input; returns the outcome for engine-specific timing checks.
    pub(crate) fn panic_in_a_callback_is_a_verdict(
        scenario: impl Fn(&str) -> Scenario,
        run: impl Fn(&Scenario) -> Outcome,
    ) -> Outcome {
        let sc = scenario(r#", "workload": [{"at_ms": 30, "node": 2, "input": "boom"}]"#);
        let o = run(&sc);
        match &o.verdict {
            Verdict::Panic {
                node,
                t_ns,
                message,
            } => {
                assert_eq!((*node, *t_ns / NS_PER_MS), (2, 30));
                assert!(message.contains("boom"), "{message}");
            }
            v => panic!("expected a panic, got {v}"),
        }
        let last = events(&o).last().unwrap();
        assert!(matches!(last.kind, EventKind::Panic { .. }) && last.node == Some(2));
        assert_eq!(o.stats.end_t_ns / NS_PER_MS, 30);
        o
    }

    /// `limits.max_events`, `limits.max_in_flight` and `limits.max_sent` end the run with `LimitExceeded`;
    /// returns the outcome of the event-limited run.
    pub(crate) fn limits_end_the_run(
        scenario: impl Fn(&str) -> Scenario,
        run: impl Fn(&Scenario) -> Outcome,
    ) -> Outcome {
        let mut sc = scenario("");
        sc.limits.max_events = 40;
        let events_limited = run(&sc);
        assert!(
            matches!(events_limited.verdict, Verdict::LimitExceeded { .. }),
            "{}",
            events_limited.verdict
        );
        let mut sc = scenario(r#", "workload": [{"at_ms": 20, "node": 1, "input": "burst"}]"#);
        sc.limits.max_in_flight = 3;
        let o = run(&sc);
        assert!(
            matches!(o.verdict, Verdict::LimitExceeded { .. }),
            "{}",
            o.verdict
        );
        let mut sc = scenario(r#", "workload": [{"at_ms": 20, "node": 1, "input": "burst"}]"#);
        sc.limits.max_sent = 2;
        let o = run(&sc);
        assert!(
            matches!(&o.verdict, Verdict::LimitExceeded { limit } if limit.contains("max_sent = 2")),
            "{}",
            o.verdict
        );
        assert_eq!(o.stats.sent, 2);
        events_limited
    }
}
