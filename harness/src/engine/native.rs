//! The native engine: a single-threaded discrete-event loop.
//!
//! A priority queue ordered by global time, ties in the order pushed (a sorted vector while
//! small, a monotone radix queue past that: nothing is ever scheduled into the past; see
//! `engine/queue.rs`), holds every pending delivery, timer, input, fault
//! and start; [`Sim::step`] pops one and jumps time straight to it; [`Sim::run`] loops `step`
//! until the queue is empty, the duration is reached, a checker reports a violation, a process
//! panics or a limit is hit.

use super::queue::TimeQueue;
use super::timers::Timers;
use super::{
    in_flight_less_one, interrupted, invariant, invariant_broken, invoke, prefetch, stop_requested,
    Call, Factory, Held, Outcome, Prepared, Recorder, RunOptions, Stats, Verdict, STOP_POLL_STEPS,
};
use crate::check::{Checker, Interest};
use crate::clock::SoftClock;
use crate::fault::{Fault, TimedFault};
use crate::net::{DropReason, Network, Route};
use crate::process::{Ctx, Effects, Peers, Process, TimerId};
use crate::rng::{stream, SimRng};
use crate::scenario::{Limits, Scenario, ScenarioError};
use crate::trace::EventKind;
use crate::{ms_to_ns, NodeId, NS_PER_MS};
use std::collections::VecDeque;

enum Item<P: Process> {
    Start(NodeId),
    Deliver {
        from: NodeId,
        to: NodeId,
        msg_id: u64,
        sent: u64,
        cut: u32,
        msg: P::Msg,
    },
    Timer {
        node: NodeId,
        id: TimerId,
        gen: u32,
    },
    Input(usize),
    Fault(usize),
    /// The next item a resumed node held while paused, taken in the order it arrived
    /// (`gen` is the node's `pause_gen` at its resume: a crash or a new pause voids it).
    Drain {
        node: NodeId,
        gen: u32,
    },
}

struct PendingTimer<T> {
    deadline_local_ns: i64,
    gen: u32,
    timer: T,
}

struct Node<P: Process> {
    proc: Option<P>,
    stable: P::Stable,
    clock: SoftClock,
    rng: SimRng,
    timers: Timers<PendingTimer<P::Timer>>,
    next_timer: u64,
    incarnation: u32,
    paused: bool,
    /// Resumed, with items held while paused still `waiting`: they are taken one `Drain`
    /// step at a time, and what reaches the node meanwhile queues behind them, so a link
    /// stays FIFO across a resume (a message arriving at the resume's instant overtook every
    /// held one, which turmoil does not do).
    draining: bool,
    /// Bumped at each pause, resume and crash: a `Drain` of an earlier one does nothing.
    pause_gen: u32,
    waiting: VecDeque<Item<P>>,
}

impl<P: Process> Node<P> {
    /// Whether what reaches the node now waits (paused, or still taking what waited).
    fn holds(&self) -> bool {
        self.proc.is_some() && (self.paused || self.draining)
    }
}

/// A running simulation on the native engine.
pub struct Sim<P: Process> {
    n: usize,
    now_ns: u64,
    end_ns: u64,
    /// Keys (time, slab slot): the queue moves only these; the items wait in the slab.
    queue: TimeQueue,
    slab: Vec<Option<Item<P>>>,
    free: Vec<u32>,
    nodes: Vec<Node<P>>,
    net: Network,
    net_rng: SimRng,
    faults: Vec<TimedFault>,
    inputs: Vec<Option<(NodeId, P::Input)>>,
    fx: Effects<P>,
    factory: Factory<P>,
    rec: Recorder,
    next_msg_id: u64,
    in_flight: u64,
    limits: Limits,
    stats: Stats,
    /// `stats.events` when simulated time last moved: a run stuck at one instant (a loop of
    /// zero-latency messages) says so when it hits the step limit.
    events_when_time_moved: u64,
    /// The clock reading of one node at `now_ns`, kept while nothing can change it: a
    /// delivery, the observations of its callback and the send it makes read the same clock
    /// at the same instant (see [`Sim::reading_of`]).
    reading: Option<(NodeId, i64)>,
    /// The messages of the sends recorded to be rendered when the trace is read
    /// ([`Recorder::emit_send_later`]), given to the trace when the run ends.
    later_msgs: Vec<P::Msg>,
}

/// The native engine's half of the callback core ([`super::after_callback`]).
impl<P: Process> super::Host<P> for Sim<P> {
    fn now_ns(&self) -> u64 {
        self.now_ns
    }

    fn local_ns(&mut self, id: NodeId) -> i64 {
        self.reading_of(id)
    }

    fn rec(&mut self) -> &mut Recorder {
        &mut self.rec
    }

    fn fx(&mut self) -> &mut Effects<P> {
        &mut self.fx
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: P::Msg) {
        Sim::send(self, from, to, msg, false);
    }

    fn send_copy(&mut self, from: NodeId, to: NodeId, msg: P::Msg) {
        Sim::send(self, from, to, msg, true);
    }

    fn set_timer(&mut self, id: NodeId, tid: TimerId, deadline_local_ns: i64, timer: P::Timer) {
        let node = &mut self.nodes[id];
        node.timers.insert(
            tid,
            PendingTimer {
                deadline_local_ns,
                gen: 0,
                timer,
            },
        );
        let at = node.clock.global_time_at(self.now_ns, deadline_local_ns);
        self.push(
            at,
            Item::Timer {
                node: id,
                id: tid,
                gen: 0,
            },
        );
    }

    fn cancel_timer(&mut self, id: NodeId, tid: TimerId) {
        self.nodes[id].timers.remove(tid);
    }

    fn clock_changed(&mut self, id: NodeId) {
        self.reading = None;
        self.reschedule_timers(id);
    }

    fn clock_mut(&mut self, id: NodeId) -> &mut crate::clock::SoftClock {
        self.reading = None;
        &mut self.nodes[id].clock
    }

    fn sent_and_limit(&self) -> (u64, u64) {
        (self.stats.sent, self.limits.max_sent)
    }
}

impl<P: Process> Sim<P> {
    /// Prepares `scenario` (validated; workload inputs parsed) for a run.
    pub fn new(
        scenario: &Scenario,
        factory: Factory<P>,
        checkers: Vec<Box<dyn Checker>>,
        options: RunOptions,
    ) -> Result<Self, ScenarioError> {
        let prep = Prepared::<P>::new(scenario)?;
        let n = scenario.nodes;
        let mut net = Network::new(n, &scenario.network)
            .map_err(|e| ScenarioError(format!("network: {e}")))?;
        net.set_schedule(&scenario.schedule);
        let nodes = prep
            .clocks
            .into_iter()
            .zip(prep.rngs)
            .map(|(clock, rng)| Node {
                proc: None,
                stable: P::Stable::default(),
                clock,
                rng,
                timers: Timers::new(),
                next_timer: 0,
                incarnation: 0,
                paused: false,
                draining: false,
                pause_gen: 0,
                waiting: VecDeque::new(),
            })
            .collect();
        let mut sim = Sim {
            n,
            now_ns: 0,
            events_when_time_moved: 0,
            end_ns: prep.end_ns,
            queue: TimeQueue::new(),
            // the items known at the start, and as many again in flight, without a regrowth
            slab: Vec::with_capacity(2 * (n + scenario.faults.len() + prep.inputs.len())),
            free: Vec::new(),
            nodes,
            net,
            net_rng: SimRng::derive(scenario.seed, stream::NETWORK),
            faults: scenario.faults.clone(),
            inputs: Vec::new(),
            fx: Effects::with_ops_max(scenario.limits.max_ops_per_callback),
            factory,
            rec: Recorder::new(n, checkers, options, scenario.limits.max_trace_bytes),
            next_msg_id: 0,
            in_flight: 0,
            limits: scenario.limits.clone(),
            stats: Stats::default(),
            reading: None,
            later_msgs: Vec::new(),
        };
        sim.rec.render_texts_later();
        // Queued at once, in this order (it decides among items of one time): the starts,
        // the faults, the inputs.
        let mut keys = Vec::with_capacity(n + sim.faults.len() + prep.inputs.len());
        for node in 0..n {
            keys.push((0, sim.place(Item::Start(node))));
        }
        for i in 0..sim.faults.len() {
            let at = sim.faults[i].at_ms * NS_PER_MS;
            keys.push((at, sim.place(Item::Fault(i))));
        }
        for (i, (at, node, input)) in prep.inputs.into_iter().enumerate() {
            sim.inputs.push(Some((node, input)));
            keys.push((at, sim.place(Item::Input(i))));
        }
        sim.queue.push_all(keys);
        Ok(sim)
    }

    #[inline(always)]
    fn push(&mut self, at: u64, item: Item<P>) {
        let slot = self.free_slot();
        self.fill(slot, item);
        self.queue.push(at, slot);
    }

    /// Puts `item` in a slab slot and returns the slot (the run's first items).
    fn place(&mut self, item: Item<P>) -> u32 {
        let slot = self.free_slot();
        self.fill(slot, item);
        slot
    }

    /// A free slab slot (a new one if none is free), to [fill](Sim::fill) at once: with both
    /// inlined where an item is built, it is written straight into its slot. Built on the
    /// stack and copied by a call, the copy's wide loads stalled on the narrow stores that
    /// had just written it (`place` was 3 % of a campaign of generated scenarios, two thirds
    /// of it on one load: `perf annotate`).
    #[inline(always)]
    fn free_slot(&mut self) -> u32 {
        match self.free.pop() {
            Some(slot) => slot,
            None => self.new_slot(),
        }
    }

    /// A new, empty slab slot (the slab grows: rare once a run is under way).
    #[inline(never)]
    fn new_slot(&mut self) -> u32 {
        invariant(
            self.slab.len() < u32::MAX as usize,
            "slab slots fit in u32",
            || format!("{} slots", self.slab.len()),
        );
        self.slab.push(None);
        (self.slab.len() - 1) as u32
    }

    /// Puts `item` in `slot`, from [`Sim::free_slot`].
    #[inline(always)]
    fn fill(&mut self, slot: u32, item: Item<P>) {
        let cell = &mut self.slab[slot as usize];
        invariant(cell.is_none(), "a free slab slot holds no item", || {
            format!("slot {slot} was on the free list while holding an item")
        });
        *cell = Some(item);
    }

    /// Current global time, ns.
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// Node `id`'s clock reading now, read once per instant and node while nothing changes
    /// it. What can is forgotten at once: a new step (time moves, or a fault jumps a clock),
    /// a callback that panicked (it may have stepped its clock, with its operations dropped),
    /// and [`Host::clock_mut`] / [`Host::clock_changed`], through which every step and slew a
    /// callback makes is applied (a slew changes no reading at its own instant, and a step
    /// made inside a callback is always followed by its `Op::Clock`, which goes through
    /// `clock_mut` before any event of the callback is recorded).
    ///
    /// [`Host::clock_mut`]: super::Host::clock_mut
    /// [`Host::clock_changed`]: super::Host::clock_changed
    #[inline]
    fn reading_of(&mut self, id: NodeId) -> i64 {
        match self.reading {
            Some((node, local)) if node == id => {
                debug_assert_eq!(local, self.nodes[id].clock.read(self.now_ns));
                local
            }
            _ => {
                let local = self.nodes[id].clock.read(self.now_ns);
                self.reading = Some((id, local));
                local
            }
        }
    }

    /// The verdict so far (`None` while nothing went wrong).
    pub fn verdict(&self) -> Option<&Verdict> {
        self.rec.verdict.as_ref()
    }

    /// Processes the next event. Returns false when the run is over.
    pub fn step(&mut self) -> bool {
        if self.rec.verdict.is_some() {
            return false;
        }
        match self.queue.peek() {
            Some(at) if at <= self.end_ns => {}
            _ => return false,
        }
        let (at, slot) = self.queue.pop().held("the event peeked is queued");
        let Some(item) = self.slab[slot as usize].take() else {
            invariant_broken(
                "a queued slot holds its item",
                format!("slot {slot} is empty"),
            );
        };
        self.free.push(slot);
        if let Some(next) = self.queue.next_slot_hint() {
            prefetch(&self.slab[next as usize]);
        }
        invariant(
            self.queue.len() + self.free.len() == self.slab.len(),
            "every slab slot is either queued or free",
            || {
                format!(
                    "{} queued + {} free != {} slots",
                    self.queue.len(),
                    self.free.len(),
                    self.slab.len()
                )
            },
        );
        invariant(at >= self.now_ns, "time never goes back", || {
            format!("event at {at} ns popped at {} ns", self.now_ns)
        });
        if at != self.now_ns {
            self.events_when_time_moved = self.stats.events;
        }
        self.now_ns = at;
        // Bookkeeping that is no step of the run is handled, not counted (the answer goes to
        // `handle`, which does not ask again).
        let counted = u64::from(self.takes_a_step(&item));
        self.stats.events += counted;
        if counted == 1 && self.stats.events % STOP_POLL_STEPS == 0 && stop_requested() {
            // Not taken, as a step past `max_events`: a message leaves with the run.
            if let Item::Deliver { msg_id, .. } = item {
                self.in_flight = in_flight_less_one(self.in_flight, msg_id);
            }
            self.stats.events -= 1;
            self.rec.verdict = Some(interrupted(at));
            return false;
        }
        if counted == 1 && self.stats.events > self.limits.max_events {
            if let Item::Deliver { msg_id, .. } = item {
                // never delivered: it leaves the network with the run
                self.in_flight = in_flight_less_one(self.in_flight, msg_id);
            }
            self.rec.verdict = Some(Verdict::LimitExceeded {
                limit: format!(
                    "limits.max_events = {} steps reached at {:.3} ms{}",
                    self.limits.max_events,
                    at as f64 / 1e6,
                    self.time_stood_still()
                ),
            });
            // The step refused never happened: the count is the steps taken (it said 2
            // steps of a run that took 1).
            self.stats.events -= 1;
            return false;
        }
        self.handle(item, counted == 1);
        self.rec.verdict.is_none()
    }

    /// Whether handling `item` now is a step of the run, what `stats.events` and
    /// `limits.max_events` count, as the other engines count them: a start, a fault, an
    /// input, a delivery, a timer that fires. Not a step: a queued timer cancelled or
    /// superseded, or not yet due on its node's clock (set back or slowed since), and an
    /// item that reaches a paused node (it is a step when taken at the resume). Counted, they
    /// made the same scenario hit `max_events` on native and pass on turmoil (16 steps of a
    /// run whose trace held 14).
    #[inline(always)]
    fn takes_a_step(&self, item: &Item<P>) -> bool {
        let parked = |id: NodeId| self.nodes[id].holds();
        match item {
            Item::Start(_) | Item::Fault(_) => true,
            // A message dropped where it arrives (its destination crashed, or a partition
            // cut it) is no delivery: not a step, as on turmoil and madsim (native counted
            // it, and hit `max_events` where they passed, stop 73's probe).
            Item::Deliver { from, to, cut, .. } => {
                !parked(*to)
                    && self.nodes[*to].proc.is_some()
                    && !(from != to && self.net.cut_since(*from, *to, *cut))
            }
            Item::Input(i) => self.inputs[*i].as_ref().is_none_or(|(id, _)| !parked(*id)),
            // (One not yet due on its node's clock is uncounted where it is found, in
            // `handle`: rare, and the clock is read there anyway.)
            Item::Timer { node, id, gen } => {
                let n = &self.nodes[*node];
                !parked(*node) && n.timers.get(*id).is_some_and(|p| p.gen == *gen)
            }
            // A step when it takes a held delivery or input, or a timer still pending.
            Item::Drain { node, gen } => {
                let n = &self.nodes[*node];
                n.pause_gen == *gen
                    && match n.waiting.front() {
                        Some(Item::Timer { id, gen, .. }) => {
                            n.timers.get(*id).is_some_and(|p| p.gen == *gen)
                        }
                        Some(_) => true,
                        None => false,
                    }
            }
        }
    }

    /// When most of the steps happened at the current instant, and many more than each node
    /// acting a few times (a limit of 1 step at the starts is no stall), why the run could
    /// not get past it; otherwise empty.
    fn time_stood_still(&self) -> String {
        let still = self.stats.events - self.events_when_time_moved;
        let few = 10u64.saturating_mul(self.nodes.len() as u64);
        if still.saturating_mul(2) <= self.limits.max_events || still < few {
            return String::new();
        }
        format!(
            "; the last {still} steps all happened at this instant: simulated time stopped \
             advancing (messages or timers that take no time, e.g. a zero latency, keep \
             making more work for the same instant; turmoil, which ticks whole \
             milliseconds, would not show this)"
        )
    }

    /// Runs to the end and returns the outcome.
    pub fn run(mut self) -> Outcome {
        while self.step() {}
        self.finish()
    }

    /// Checks, once per run, that the in-flight count is the number of deliveries still
    /// queued or waiting at a paused node (O(queue)).
    fn check_in_flight(&self) {
        let is_delivery = |i: &Item<P>| matches!(i, Item::Deliver { .. });
        let queued = self
            .slab
            .iter()
            .flatten()
            .filter(|i| is_delivery(i))
            .count();
        let waiting: usize = self
            .nodes
            .iter()
            .map(|n| n.waiting.iter().filter(|i| is_delivery(i)).count())
            .sum();
        invariant(
            self.in_flight == (queued + waiting) as u64,
            "in_flight counts the deliveries queued or waiting",
            || {
                format!(
                    "in_flight = {}, {queued} queued + {waiting} waiting at paused nodes",
                    self.in_flight
                )
            },
        );
    }

    fn finish(mut self) -> Outcome {
        self.check_in_flight();
        let end = if self.rec.verdict.is_some() {
            self.now_ns
        } else {
            self.end_ns
        };
        let verdict = self.rec.finish(end);
        self.stats.end_t_ns = end;
        let mut trace = self.rec.trace.take();
        if let Some(t) = trace.as_mut().filter(|_| !self.later_msgs.is_empty()) {
            let msgs = std::mem::take(&mut self.later_msgs);
            t.set_later(std::sync::Arc::new(crate::trace::LaterMsgs(msgs)));
        }
        Outcome {
            verdict,
            trace,
            stats: self.stats,
        }
    }

    /// Handles `item`, which [`Sim::takes_a_step`] said is a step of the run or not
    /// (`counted`): a delivery that is none is held or dropped without asking again.
    fn handle(&mut self, item: Item<P>, counted: bool) {
        // a new step: time moved, or a fault may jump a clock
        self.reading = None;
        if !counted && matches!(item, Item::Deliver { .. }) {
            self.hold_or_drop(item);
            return;
        }
        match item {
            Item::Start(node) => self.start(node),
            Item::Drain { node, gen } => self.drain_one(node, gen),
            Item::Fault(i) => {
                let fault = self.faults[i].fault.clone();
                let down_at_once = self.down_again_at_once(i);
                self.apply_fault(fault, down_at_once);
            }
            Item::Deliver {
                from,
                to,
                msg_id,
                sent,
                cut: _,
                msg,
            } => {
                self.in_flight = in_flight_less_one(self.in_flight, msg_id);
                self.stats.delivered += 1;
                // the answer's link, if the node answers (a hint: no effect on any result)
                if let Some(slot) = self.net.fifo_slot_hint(to, from) {
                    prefetch(slot);
                }
                if self
                    .rec
                    .unless_wanted(Interest::DELIVER, self.now_ns)
                    .is_none()
                {
                    let msg = self.rec.sent_text(sent);
                    let local = self.reading_of(to);
                    self.rec
                        .emit_deliver(self.now_ns, to, local, msg_id, from, sent, msg);
                }
                self.call(to, Call::Message(from, msg));
            }
            Item::Timer {
                node: id,
                id: tid,
                gen,
            } => {
                let node = &mut self.nodes[id];
                match node.timers.get(tid) {
                    Some(p) if p.gen == gen => {}
                    Some(p) => {
                        // rescheduled: only an older generation can still be queued
                        invariant(
                            gen < p.gen,
                            "a queued timer is never newer than its timer",
                            || {
                                format!(
                                    "node {id} timer {} queued gen {gen} > pending gen {}",
                                    tid.0, p.gen
                                )
                            },
                        );
                        return;
                    }
                    None => return, // cancelled, fired or lost in a crash
                }
                if node.holds() {
                    node.waiting.push_back(Item::Timer {
                        node: id,
                        id: tid,
                        gen,
                    });
                    return;
                }
                let local = node.clock.read(self.now_ns);
                let deadline = match node.timers.get(tid) {
                    Some(p) => p.deadline_local_ns,
                    None => invariant_broken("a timer due is pending", format!("{tid:?}")),
                };
                if local < deadline {
                    // The clock was slowed or set back since the timer was scheduled: not
                    // due yet, so no step (counted by `step`, which did not read the clock).
                    self.stats.events -= 1;
                    let at = node
                        .clock
                        .global_time_at(self.now_ns, deadline)
                        .max(self.now_ns + 1);
                    self.push(
                        at,
                        Item::Timer {
                            node: id,
                            id: tid,
                            gen,
                        },
                    );
                    return;
                }
                let timer = node.timers.remove(tid).held("a timer due is pending").timer;
                self.stats.timers += 1;
                if self
                    .rec
                    .unless_wanted(Interest::TIMER, self.now_ns)
                    .is_none()
                {
                    let label = self.rec.label(&timer);
                    self.rec.emit(
                        self.now_ns,
                        Some(id),
                        Some(local),
                        EventKind::Timer {
                            timer_id: tid.0,
                            timer: label,
                        },
                    );
                }
                self.call(id, Call::Timer(timer));
            }
            Item::Input(i) => {
                let (id, input) = self.inputs[i].take().held("each input fires once");
                let node = &mut self.nodes[id];
                if node.holds() {
                    self.inputs[i] = Some((id, input));
                    node.waiting.push_back(Item::Input(i));
                    return;
                }
                let crashed = node.proc.is_none();
                self.record_input(id, &input, crashed);
                if !crashed {
                    self.call(id, Call::Input(input));
                }
            }
        }
    }

    /// A delivery that is no step ([`Sim::takes_a_step`]): held while its destination is
    /// paused, or dropped, its destination crashed or a partition cut since it was sent.
    #[cold]
    #[inline(never)]
    fn hold_or_drop(&mut self, item: Item<P>) {
        let Item::Deliver {
            from,
            to,
            msg_id,
            cut,
            ..
        } = item
        else {
            invariant_broken("only a delivery is held or dropped here", String::new());
        };
        let node = &mut self.nodes[to];
        if node.holds() {
            node.waiting.push_back(item);
            return;
        }
        self.in_flight = in_flight_less_one(self.in_flight, msg_id);
        let reason = if node.proc.is_none() {
            DropReason::DestinationCrashed
        } else {
            invariant(
                from != to && self.net.cut_since(from, to, cut),
                "a delivery that is no step is held, or dropped for a reason",
                || format!("message {msg_id} {from} -> {to}"),
            );
            DropReason::Partitioned
        };
        self.drop_msg(msg_id, from, to, reason);
    }

    /// Records input `input` reaching node `id` now (when observing), `ignored` when the
    /// node is crashed and the input is lost with it.
    fn record_input(&mut self, id: NodeId, input: &P::Input, ignored: bool) {
        if !self.rec.observing {
            return;
        }
        let local = self.nodes[id].clock.read(self.now_ns);
        let mut label = self.rec.label(input);
        if ignored {
            label.push_str(" (ignored: node is crashed)");
        }
        self.rec.emit(
            self.now_ns,
            Some(id),
            Some(local),
            EventKind::Input { input: label },
        );
    }

    fn start(&mut self, id: NodeId) {
        let node = &mut self.nodes[id];
        node.proc = Some((self.factory)(id));
        if self.rec.observing {
            let local = node.clock.read(self.now_ns);
            let incarnation = node.incarnation;
            self.rec.emit(
                self.now_ns,
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
        let mut ctx = Ctx {
            id,
            nodes: self.n,
            t_ns: self.now_ns,
            clock: &mut node.clock,
            rng: &mut node.rng,
            stable: &mut node.stable,
            fx: &mut self.fx,
            neighbours: Peers::Topology(self.net.adjacency()),
            next_timer: &mut node.next_timer,
        };
        let result = invoke(proc, &mut ctx, call);
        if result.is_err() {
            // it may have stepped its clock before panicking, its operations dropped
            self.reading = None;
        }
        super::after_callback(self, id, result);
    }

    /// Sends `msg`; `copy`: a copy of the message `from` sent just before (a broadcast's),
    /// whose rendering the trace shares.
    fn send(&mut self, from: NodeId, to: NodeId, msg: P::Msg, copy: bool) {
        let msg_id = self.next_msg_id;
        self.next_msg_id += 1;
        self.stats.sent += 1;
        let sent = match self.rec.unless_wanted(Interest::SEND, self.now_ns) {
            Some(counted) => counted,
            None => self.record_send(from, to, msg_id, &msg, copy),
        };
        let route = if to >= self.n {
            Route::Dropped(DropReason::NoSuchNode)
        } else if to == from {
            Route::Once(self.now_ns)
        } else if self.net.wants_text() {
            let text = format!("{msg:?}");
            self.net
                .route_text(from, to, self.now_ns, &mut self.net_rng, Some(&text))
        } else {
            self.net.route(from, to, self.now_ns, &mut self.net_rng)
        };
        let copies = match route {
            Route::Dropped(reason) => {
                self.drop_msg(msg_id, from, to, reason);
                return;
            }
            Route::Once(_) => 1,
            Route::Twice(..) => 2,
        };
        if self.in_flight + copies > self.limits.max_in_flight as u64 {
            self.drop_msg(msg_id, from, to, DropReason::InFlightLimit);
            self.rec.verdict.get_or_insert(Verdict::LimitExceeded {
                limit: format!(
                    "limits.max_in_flight = {} reached at {:.3} ms",
                    self.limits.max_in_flight,
                    self.now_ns as f64 / 1e6
                ),
            });
            return;
        }
        self.in_flight += copies;
        self.stats.max_in_flight = self.stats.max_in_flight.max(self.in_flight);
        let cut = self.net.cut_epoch();
        match route {
            Route::Once(at) => self.push(
                at,
                Item::Deliver {
                    from,
                    to,
                    msg_id,
                    sent,
                    cut,
                    msg,
                },
            ),
            Route::Twice(a, b) => {
                self.push(
                    a,
                    Item::Deliver {
                        from,
                        to,
                        msg_id,
                        sent,
                        cut,
                        msg: msg.clone(),
                    },
                );
                self.push(
                    b,
                    Item::Deliver {
                        from,
                        to,
                        msg_id,
                        sent,
                        cut,
                        msg,
                    },
                );
            }
            Route::Dropped(_) => {
                invariant_broken("a dropped message is not queued", msg_id.to_string())
            }
        }
    }

    /// Records the send of `msg` (message `msg_id`, `from` → `to`; `copy` as in
    /// [`Sim::send`]) and returns its event id.
    fn record_send(
        &mut self,
        from: NodeId,
        to: NodeId,
        msg_id: u64,
        msg: &P::Msg,
        copy: bool,
    ) -> u64 {
        let local = self.reading_of(from);
        if self.rec.defers_texts() {
            // kept, to be rendered when the trace is read (a broadcast's copies share it)
            // counted in the trace's size at its data's bytes, heap included (a copy that
            // shares the message, nothing)
            let (k, msg_bytes) = match self.rec.later_copy(from).filter(|_| copy) {
                Some(k) => (k, 0),
                None => {
                    self.later_msgs.push(msg.clone());
                    let bytes =
                        crate::data_size::data_bytes(msg).unwrap_or(std::mem::size_of::<P::Msg>());
                    (self.later_msgs.len() as u64 - 1, bytes)
                }
            };
            return self
                .rec
                .emit_send_later(self.now_ns, from, local, msg_id, to, k, msg_bytes);
        }
        let rendered = if !self.rec.texts_read() {
            // the trace was cut, and no checker reads the text
            crate::trace::Text::EMPTY
        } else if copy {
            self.rec.render_copy(from, msg)
        } else {
            self.rec.render(msg)
        };
        self.rec.emit(
            self.now_ns,
            Some(from),
            Some(local),
            EventKind::Send {
                msg_id,
                to,
                msg: rendered,
            },
        )
    }

    fn drop_msg(&mut self, msg_id: u64, from: NodeId, to: NodeId, reason: DropReason) {
        self.stats.dropped += 1;
        self.rec.drop_msg(self.now_ns, msg_id, from, to, reason);
    }

    /// After a clock discontinuity, every pending timer of `id` gets a fresh global deadline.
    fn reschedule_timers(&mut self, id: NodeId) {
        let now = self.now_ns;
        let node = &mut self.nodes[id];
        let mut fresh = Vec::with_capacity(node.timers.len());
        for (tid, p) in node.timers.iter_mut() {
            p.gen = match p.gen.checked_add(1) {
                Some(g) => g,
                None => invariant_broken(
                    "timer generations do not wrap",
                    format!("node {id} timer {}", tid.0),
                ),
            };
            fresh.push((
                node.clock.global_time_at(now, p.deadline_local_ns),
                tid,
                p.gen,
            ));
        }
        for (at, tid, gen) in fresh {
            self.push(
                at,
                Item::Timer {
                    node: id,
                    id: tid,
                    gen,
                },
            );
        }
    }

    /// Whether fault `i`, a restart, is followed in the same millisecond by a crash or a
    /// restart of the same node (later in the plan): the node is down again before it would
    /// run, as on turmoil and madsim, whose restarted host runs after the faults of that
    /// instant. Started at once, it sent from `on_start` before its crash, and the correct
    /// `election.bully` adopted a dead leader on native only.
    fn down_again_at_once(&self, i: usize) -> bool {
        let TimedFault {
            at_ms,
            fault: Fault::Restart { node },
        } = &self.faults[i]
        else {
            return false;
        };
        self.faults[i + 1..].iter().any(|f| {
            f.at_ms == *at_ms
                && matches!(f.fault, Fault::Crash { node: n } | Fault::Restart { node: n } if n == *node)
        })
    }

    fn apply_fault(&mut self, fault: Fault, down_at_once: bool) {
        let node = fault.node();
        let local = node.map(|id| self.nodes[id].clock.read(self.now_ns));
        if self.rec.observing {
            self.rec.emit(
                self.now_ns,
                node,
                local,
                EventKind::Fault {
                    fault: fault.clone(),
                },
            );
        }
        match fault {
            Fault::Partition { groups } => self.net.partition(&groups),
            Fault::PartitionOneway { from, to } => self.net.partition_oneway(&from, &to),
            Fault::Heal => self.net.heal(),
            Fault::Crash { node } => self.crash(node),
            Fault::Restart { node } => {
                if self.nodes[node].proc.is_some() {
                    self.crash(node);
                }
                self.nodes[node].incarnation += 1;
                if !down_at_once {
                    self.start(node);
                }
            }
            Fault::Pause { node } => {
                let n = &mut self.nodes[node];
                if n.proc.is_some() {
                    n.paused = true;
                    n.draining = false;
                    n.pause_gen = n.pause_gen.wrapping_add(1);
                }
            }
            Fault::Resume { node } => {
                let n = &mut self.nodes[node];
                if n.paused {
                    n.paused = false;
                    n.pause_gen = n.pause_gen.wrapping_add(1);
                    if !n.waiting.is_empty() {
                        n.draining = true;
                        let gen = n.pause_gen;
                        self.push(self.now_ns, Item::Drain { node, gen });
                    }
                }
            }
            Fault::ClockJump { node, delta_ms } => {
                let delta = (delta_ms * 1e6).round() as i64;
                self.nodes[node].clock.hw_jump(self.now_ns, delta);
                self.reschedule_timers(node);
            }
            Fault::DriftChange { node, drift_ppm } => {
                self.nodes[node]
                    .clock
                    .set_drift(self.now_ns, (drift_ppm * 1000.0).round() as i64);
                self.reschedule_timers(node);
            }
            Fault::SetLinks(o) => {
                self.net
                    .apply_override(&o)
                    .held("a fault's links were validated with the scenario");
            }
        }
    }

    /// Takes the first item node `id` held while paused, as if it arrived now, and queues
    /// the next `Drain` while more wait (what reaches the node meanwhile waits behind them).
    fn drain_one(&mut self, id: NodeId, gen: u32) {
        let node = &mut self.nodes[id];
        if node.pause_gen != gen || !node.draining {
            return; // paused again or crashed since the resume
        }
        let Some(item) = node.waiting.pop_front() else {
            invariant_broken(
                "a draining node has items waiting",
                format!("node {id} drains an empty queue"),
            );
        };
        node.draining = false;
        let more = !node.waiting.is_empty();
        let counted = self.takes_a_step(&item);
        self.handle(item, counted);
        let node = &mut self.nodes[id];
        // The item's own handling cannot pause or crash the node (faults are items of
        // their own), so the node is as it was.
        invariant(
            node.pause_gen == gen && !node.paused,
            "taking a held item leaves the node resumed",
            || format!("node {id}"),
        );
        if more {
            node.draining = true;
            self.push(self.now_ns, Item::Drain { node: id, gen });
        }
    }

    fn crash(&mut self, id: NodeId) {
        let node = &mut self.nodes[id];
        node.proc = None;
        node.timers.clear();
        node.paused = false;
        node.draining = false;
        node.pause_gen = node.pause_gen.wrapping_add(1);
        let waiting = std::mem::take(&mut node.waiting);
        for item in waiting {
            match item {
                Item::Deliver {
                    from, to, msg_id, ..
                } => {
                    self.in_flight = in_flight_less_one(self.in_flight, msg_id);
                    self.drop_msg(msg_id, from, to, DropReason::DestinationCrashed);
                }
                // An input held while the node was paused reaches a crashed node: recorded
                // as ignored, as one arriving after the crash is (it vanished from the trace).
                Item::Input(i) => {
                    let (to, input) = self.inputs[i].take().held("a held input fires once");
                    debug_assert_eq!(to, id);
                    self.record_input(id, &input, true);
                }
                _ => {}
            }
        }
    }
}

/// Latency helper for tests and generators: ms to ns.
pub fn ms(v: f64) -> u64 {
    ms_to_ns(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::Observation;
    use serde::{Deserialize, Serialize};
    use std::rc::Rc;

    /// A small probe process: pings its neighbours on start and on every input, re-arms a
    /// periodic timer, counts what it hears in stable storage, and panics on demand.
    #[derive(Default)]
    struct Probe {
        heard: u32,
    }

    #[derive(Clone, Debug, Serialize, Deserialize)]
    enum Msg {
        Ping,
        Pong,
    }

    #[derive(Clone, Debug, Serialize, Deserialize)]
    enum Input {
        Ping,
        Panic,
        Flood(u32),
        /// Sends without end (a user's bug).
        Endless,
    }

    impl Process for Probe {
        type Msg = Msg;
        type Timer = u32;
        type Input = Input;
        type Stable = u32;

        fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
            ctx.set_timer_ms(10, 0);
        }
        fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
            self.heard += 1;
            *ctx.stable_mut() += 1;
            if let Msg::Ping = msg {
                ctx.send(from, Msg::Pong);
            }
        }
        fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, k: u32) {
            ctx.observe(Observation::Note {
                text: format!("tick {k} heard {} stable {}", self.heard, ctx.stable()),
            });
            ctx.set_timer_ms(10, k + 1);
        }
        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
            match input {
                Input::Ping => ctx.broadcast(Msg::Ping),
                Input::Panic => panic!("probe asked to panic"),
                Input::Flood(k) => {
                    for _ in 0..k {
                        ctx.broadcast(Msg::Ping);
                    }
                }
                Input::Endless => loop {
                    ctx.send(0, Msg::Ping);
                },
            }
        }
    }

    fn run(json: &str) -> Outcome {
        sim(json).run()
    }

    fn count(out: &Outcome, pred: impl Fn(&EventKind) -> bool) -> usize {
        out.trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .filter(|e| pred(&e.kind))
            .count()
    }

    #[test]
    fn a_panic_is_caught_and_reported_with_its_location() {
        crate::engine::install_panic_hook();
        let out = run(
            r#"{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 100,
            "workload": [{"at_ms": 5, "node": 1, "input": "Panic"}]}"#,
        );
        match &out.verdict {
            Verdict::Panic {
                node: 1,
                t_ns: 5_000_000,
                message,
            } => {
                assert!(message.contains("probe asked to panic"), "{message}");
                assert!(
                    message.contains("(at harness/src/engine/native.rs:"),
                    "{message}"
                );
            }
            v => panic!("expected a panic verdict, got {v:?}"),
        }
        assert_eq!(count(&out, |k| matches!(k, EventKind::Panic { .. })), 1);
    }

    /// A checker that panics (a user's checker with a bug) ends its run as "could not judge"
    /// with the panic's message and place, through `engine::run`, instead of unwinding through
    /// the caller (a campaign's worker, which lost the seed); the hook keeps it quiet as a
    /// callback's panic, and the mark is put back once the run is over.
    #[test]
    fn a_panicking_checker_ends_the_run_unjudged_with_its_message() {
        crate::engine::install_panic_hook();
        struct Boom;
        impl Checker for Boom {
            fn property(&self) -> &'static str {
                "boom"
            }
            fn on_event(
                &mut self,
                ev: &crate::trace::Event,
            ) -> Result<(), crate::check::Violation> {
                assert!(ev.id < 3, "checker bug at event {}", ev.id);
                Ok(())
            }
            fn finish(&mut self, _end_t_ns: u64) -> Result<(), crate::check::Violation> {
                Ok(())
            }
            fn evidence(&self) -> &'static [&'static str] {
                &[]
            }
        }
        let sc = Scenario::from_json(PING).unwrap();
        let out = crate::engine::run(
            &sc,
            Rc::new(|_| Probe::default()),
            vec![Box::new(Boom)],
            RunOptions::default(),
        )
        .unwrap();
        match &out.verdict {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, crate::engine::HARNESS_PANIC);
                assert!(reason.contains("checker bug at event 3"), "{reason}");
                assert!(
                    reason.contains("(at harness/src/engine/native.rs:"),
                    "{reason}"
                );
            }
            v => panic!("expected could-not-judge, got {v:?}"),
        }
        assert!(out.trace.is_some(), "a traced run still has a trace");
        assert!(
            !super::super::IN_CALLBACK.with(|c| c.get()),
            "the mark is put back after the run"
        );
    }

    /// A callback that sends without end is stopped at `limits.max_ops_per_callback`: the
    /// run ends there with `limit_exceeded`, none of that callback's operations applied. It
    /// grew its operations until the machine's memory was gone (stop 84). A broadcast that
    /// would pass the limit is stopped before it starts.
    #[test]
    fn a_callback_that_never_stops_sending_ends_the_run_at_the_ops_limit() {
        let out = run(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 100,
            "limits": {"max_ops_per_callback": 1000},
            "workload": [{"at_ms": 5, "node": 1, "input": "Endless"},
                         {"at_ms": 50, "node": 2, "input": "Ping"}]}"#,
        );
        match &out.verdict {
            Verdict::LimitExceeded { limit } => assert!(
                limit.starts_with("limits.max_ops_per_callback = 1000 operations")
                    && limit.contains("callback of node 1 at 5.000 ms"),
                "{limit}"
            ),
            v => panic!("expected the ops limit, got {v:?}"),
        }
        assert_eq!(
            count(&out, |k| matches!(k, EventKind::Send { .. })),
            0,
            "no send of the stopped callback is applied, and the run ends there"
        );
        let flood = |ops: usize, copies: u32| {
            run(&format!(
                r#"{{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 100,
                "limits": {{"max_ops_per_callback": {ops}}},
                "workload": [{{"at_ms": 5, "node": 1, "input": {{"Flood": {copies}}}}}]}}"#
            ))
            .verdict
        };
        // the socket layer's engines share the callback core: turmoil stops there too
        let sc = Scenario::from_json(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 100,
            "engine": "turmoil", "limits": {"max_ops_per_callback": 1000},
            "workload": [{"at_ms": 5, "node": 1, "input": "Endless"}]}"#,
        )
        .unwrap();
        let out = crate::engine::run(
            &sc,
            Rc::new(|_| Probe::default()),
            vec![],
            RunOptions::default(),
        )
        .unwrap();
        assert!(
            matches!(&out.verdict, Verdict::LimitExceeded { limit }
                if limit.starts_with("limits.max_ops_per_callback = 1000")),
            "{:?}",
            out.verdict
        );
        // two broadcasts to two neighbours: four operations
        assert!(flood(4, 2).is_pass(), "{:?}", flood(4, 2));
        assert!(matches!(flood(3, 2), Verdict::LimitExceeded { .. }));
        // a limit must be at least 1, and at most MAX_OPS_PER_CALLBACK
        for bad in [0, Limits::MAX_OPS_PER_CALLBACK + 1] {
            let e = Scenario::from_json(&format!(
                r#"{{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 10,
                "limits": {{"max_ops_per_callback": {bad}}}}}"#
            ))
            .map(|_| ())
            .unwrap_err()
            .0;
            assert!(e.contains("limits.max_ops_per_callback"), "{e}");
        }
    }

    /// A broken engine invariant is a bug in Sincro: the run says so (`engine_invariant`),
    /// whether the engine's code broke it between callbacks or under one (the node's
    /// callback catches panics: it must not take the engine's for the algorithm's), and the
    /// next run on the thread is not blamed for it. Until stop 84 it was reported as a
    /// checker's or the node factory's panic (the explorer's invariants too).
    #[test]
    fn a_broken_engine_invariant_is_reported_as_a_bug_in_sincro() {
        crate::engine::install_panic_hook();
        let sc = Scenario::from_json(PING).unwrap();
        let engine_bug = |out: Outcome| match out.verdict {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, crate::engine::ENGINE_INVARIANT, "{reason}");
                assert!(
                    reason.contains("Sincro engine invariant broken: a probe's invariant")
                        && reason.contains("a bug in Sincro, not in the algorithm"),
                    "{reason}"
                );
            }
            v => panic!("expected could-not-judge, got {v:?}"),
        };
        // between callbacks (here: while the factory builds a node)
        let broken =
            |_| -> Probe { crate::engine::invariant_broken("a probe's invariant", "probe".into()) };
        let out = crate::engine::run(&sc, Rc::new(broken), vec![], RunOptions::default());
        engine_bug(out.unwrap());
        // under a callback: not the node's panic
        #[derive(Default)]
        struct Breaks;
        impl Process for Breaks {
            type Msg = ();
            type Timer = ();
            type Input = Input;
            type Stable = ();
            fn on_start(&mut self, _: &mut Ctx<'_, Self>) {
                crate::engine::invariant_broken("a probe's invariant", "probe".into())
            }
            fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
            fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
            fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: Input) {}
        }
        let out = crate::engine::run(&sc, Rc::new(|_| Breaks), vec![], RunOptions::default());
        engine_bug(out.unwrap());
        // the mark is taken: a checker's panic afterwards is the checker's
        assert!(!crate::engine::engine_bug_caught());
        let out = crate::engine::run(
            &sc,
            Rc::new(|_| -> Probe { panic!("factory bug") }),
            vec![],
            RunOptions::default(),
        )
        .unwrap();
        assert!(
            matches!(&out.verdict, Verdict::Unjudged { property, .. }
                if property == crate::engine::HARNESS_PANIC),
            "{:?}",
            out.verdict
        );
    }

    /// A run that cannot get past one instant (zero-latency messages answering each other)
    /// says so when it hits the step limit; a run that merely lasts long does not.
    #[test]
    fn a_run_stuck_at_one_instant_says_time_stood_still() {
        let limit = |json: &str| match run(json).verdict {
            Verdict::LimitExceeded { limit } => limit,
            v => panic!("expected a limit, got {v:?}"),
        };
        let stuck = limit(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 1000,
            "network": {"latency": {"constant": {"ms": 0}}},
            "limits": {"max_events": 50},
            "workload": [{"at_ms": 1, "node": 0, "input": {"Flood": 40}}]}"#,
        );
        assert!(
            stuck.contains("simulated time stopped advancing"),
            "{stuck}"
        );
        let long = limit(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 1000,
            "limits": {"max_events": 50}}"#,
        );
        assert!(!long.contains("stopped advancing"), "{long}");
        // A tiny limit hit among the starts is no stall either.
        let tiny = limit(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 1000,
            "limits": {"max_events": 1}}"#,
        );
        assert!(!tiny.contains("stopped advancing"), "{tiny}");
    }

    /// A stop request ends a run in flight within [`STOP_POLL_STEPS`] steps, as
    /// "interrupted" (never a pass), its trace ending in a cut; only inside
    /// [`stoppable`](crate::engine::stoppable), whose flag is the innermost one and is
    /// forgotten when it returns.
    #[test]
    fn a_stop_request_ends_the_run_in_flight_as_interrupted() {
        use std::sync::atomic::AtomicBool;
        // 3 nodes ticking every 10 ms for 100 s: 30,000 steps
        let json = r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 100000}"#;
        let (set, unset) = (AtomicBool::new(true), AtomicBool::new(false));
        let out = crate::engine::stoppable(&set, || run(json));
        assert!(out.verdict.is_interrupted(), "{:?}", out.verdict);
        assert!(!out.verdict.is_pass());
        assert_eq!(out.stats.events, STOP_POLL_STEPS - 1);
        let last = out
            .trace
            .as_ref()
            .and_then(|t| t.events().last())
            .expect("events");
        assert!(
            matches!(&last.kind, EventKind::Cut { reason, run_stopped: true } if reason.contains("stop request")),
            "{last:?}"
        );
        // Not set, or outside `stoppable`: the run goes to its end.
        let whole = crate::engine::stoppable(&unset, || run(json));
        assert!(whole.verdict.is_pass(), "{:?}", whole.verdict);
        assert!(whole.stats.events > 30_000 - 10);
        assert!(run(json).verdict.is_pass());
        // Nested: the inner flag, then the outer one again.
        crate::engine::stoppable(&set, || {
            assert!(crate::engine::stoppable(&unset, || run(json))
                .verdict
                .is_pass());
            assert!(run(json).verdict.is_interrupted());
        });
        // A deadline passed stops it too; one far off does not.
        let now = std::time::Instant::now();
        let passed = crate::engine::stoppable_until(&unset, Some(now), || run(json));
        assert!(passed.verdict.is_interrupted(), "{:?}", passed.verdict);
        let far = now + std::time::Duration::from_secs(3600);
        let ahead = crate::engine::stoppable_until(&unset, Some(far), || run(json));
        assert!(ahead.verdict.is_pass(), "{:?}", ahead.verdict);
    }

    #[test]
    fn limits_end_the_run_and_say_which() {
        let out = run(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 1000,
            "limits": {"max_events": 50}}"#,
        );
        assert!(
            matches!(&out.verdict, Verdict::LimitExceeded { limit } if limit.contains("max_events = 50"))
        );
        // The steps counted are the steps taken: the limit's, not one more.
        assert_eq!(out.stats.events, 50);
        // the trace says where the run stopped, and why
        let trace = out.trace.expect("recorded");
        let last = trace.events().last().expect("events");
        assert!(
            matches!(&last.kind, EventKind::Cut { reason, run_stopped: true } if reason.contains("max_events = 50")),
            "{last:?}"
        );
        let out = run(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 1000,
            "limits": {"max_in_flight": 10},
            "workload": [{"at_ms": 5, "node": 0, "input": {"Flood": 20}}]}"#,
        );
        assert!(
            matches!(&out.verdict, Verdict::LimitExceeded { limit } if limit.contains("max_in_flight = 10"))
        );
        // Sends the network drops count too: with every message lost, nothing is ever in
        // flight, and a flood of 20 stops at the 7th send.
        let out = run(
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 1000,
            "network": {"loss": 1.0}, "limits": {"max_sent": 7},
            "workload": [{"at_ms": 5, "node": 0, "input": {"Flood": 20}}]}"#,
        );
        assert!(
            matches!(&out.verdict, Verdict::LimitExceeded { limit } if limit.contains("max_sent = 7")),
            "{}",
            out.verdict
        );
        assert_eq!((out.stats.sent, out.stats.dropped), (7, 7));
        // The recorded trace is bounded in bytes too: a long run cannot take gigabytes. It
        // stops growing and ends with a cut; the verdict is the untraced run's (recording
        // must not change it: `replay` hit the limit where `run` passed). The same for a
        // trace of type words (coverage guidance, pilots), which has no cut.
        let json = r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 1000,
            "limits": {"max_trace_bytes": 2000}}"#;
        let sc = Scenario::from_json(json).unwrap();
        let with = |options| {
            Sim::new(&sc, Rc::new(|_| Probe::default()), vec![], options)
                .unwrap()
                .run()
        };
        let untraced = with(RunOptions::new(false));
        assert!(untraced.verdict.is_pass(), "{:?}", untraced.verdict);
        let full = with(RunOptions::new(true));
        assert_eq!(full.verdict, untraced.verdict);
        let trace = full.trace.expect("recorded");
        assert!(trace.len() < 2000 / 32);
        let last = trace.events().last().expect("events");
        assert!(
            matches!(&last.kind, EventKind::Cut { reason, run_stopped: false } if reason.contains("max_trace_bytes = 2000")),
            "{last:?}"
        );
        let words = with(RunOptions::new(true).type_words_only());
        assert_eq!(words.verdict, untraced.verdict);
        let trace = words.trace.expect("recorded");
        assert!(trace.len() < 2000 / 32);
        assert!(!matches!(
            trace.events().last().map(|e| &e.kind),
            Some(EventKind::Cut { .. })
        ));
    }

    /// A message held at a paused node is left out of a recorded schedule (its arrival time
    /// is not in the trace; its release time replayed as a delay gave another order), and the
    /// run pinned to the record is the recorded run, event for event.
    #[test]
    fn a_schedule_recorded_across_a_pause_replays_the_run() {
        let json = r#"{"algorithm": "probe", "nodes": 3, "seed": 3, "duration_ms": 200,
            "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 9}}},
            "faults": [{"at_ms": 5, "fault": {"pause": {"node": 1}}},
                       {"at_ms": 60, "fault": {"resume": {"node": 1}}}],
            "workload": [{"at_ms": 10, "node": 0, "input": "Ping"},
                         {"at_ms": 11, "node": 2, "input": "Ping"},
                         {"at_ms": 70, "node": 0, "input": "Ping"}]}"#;
        let sc = Scenario::from_json(json).unwrap();
        let with = |sc: &Scenario| {
            Sim::new(
                sc,
                Rc::new(|_| Probe::default()),
                vec![],
                RunOptions::new(true),
            )
            .unwrap()
            .run()
        };
        let out = with(&sc);
        let trace = out.trace.expect("recorded");
        let record = crate::schedule::Schedule::record(&trace);
        let crate::schedule::Schedule::Recorded(list) = &record else {
            panic!("{record:?}")
        };
        // the pings 0 -> 1 and 2 -> 1 sent during the pause are not listed; the later ones are
        assert!(!list.iter().any(|r| r.to == 1 && r.nth == 0), "{list:?}");
        assert!(
            list.iter().any(|r| r.from == 0 && r.to == 1 && r.nth == 1),
            "{list:?}"
        );
        let mut pinned = sc.clone();
        pinned.schedule = record;
        let again = with(&pinned).trace.expect("recorded");
        assert_eq!(trace.first_difference(&again), None);
    }

    /// The inputs of one instant run in the order the workload lists them, after that
    /// instant's faults, whatever the order of the list's times (README, "A scenario").
    #[test]
    fn inputs_of_one_instant_run_in_the_listed_order_after_its_faults() {
        let at_5 = |order: [usize; 2]| {
            let json = format!(
                r#"{{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 50,
                "faults": [{{"at_ms": 5, "fault": {{"crash": {{"node": 2}}}}}}],
                "workload": [{{"at_ms": 20, "node": 1, "input": "Ping"}},
                             {{"at_ms": 5, "node": {}, "input": "Ping"}},
                             {{"at_ms": 5, "node": {}, "input": "Ping"}}]}}"#,
                order[0], order[1]
            );
            let trace = run(&json).trace.expect("recorded");
            trace
                .events()
                .iter()
                .filter(|e| e.t_ns == 5_000_000)
                .filter_map(|e| match e.kind {
                    EventKind::Fault { .. } => Some(("fault", e.node)),
                    EventKind::Input { .. } => Some(("input", e.node)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        for order in [[0, 1], [1, 0]] {
            let seen = at_5(order);
            assert_eq!(seen.len(), 3, "{seen:?}");
            assert_eq!(seen[0].0, "fault", "{seen:?}");
            assert_eq!(
                [seen[1].1, seen[2].1],
                [Some(order[0]), Some(order[1])],
                "{seen:?}"
            );
        }
    }

    /// An input held at a paused node that is then restarted is recorded as ignored, not
    /// lost from the trace without a word.
    #[test]
    fn an_input_held_at_a_paused_node_that_crashes_is_recorded_as_ignored() {
        let out = run(
            r#"{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 100,
            "faults": [{"at_ms": 10, "fault": {"pause": {"node": 1}}},
                       {"at_ms": 30, "fault": {"restart": {"node": 1}}}],
            "workload": [{"at_ms": 20, "node": 1, "input": "Ping"}]}"#,
        );
        let trace = out.trace.expect("recorded");
        let inputs: Vec<&crate::trace::Event> = trace
            .events()
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Input { .. }))
            .collect();
        assert_eq!(inputs.len(), 1, "{inputs:?}");
        assert_eq!(inputs[0].t_ns, 30 * 1_000_000);
        assert!(
            matches!(&inputs[0].kind, EventKind::Input { input } if input.ends_with("(ignored: node is crashed)")),
            "{inputs:?}"
        );
    }

    #[test]
    fn a_partition_drops_messages_in_flight_and_after_until_healed() {
        let out = run(
            r#"{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 100,
            "network": {"latency": {"constant": {"ms": 10}}},
            "faults": [{"at_ms": 5, "fault": {"partition": {"groups": [[0]]}}},
                       {"at_ms": 40, "fault": "heal"}],
            "workload": [{"at_ms": 1, "node": 0, "input": "Ping"},
                         {"at_ms": 20, "node": 0, "input": "Ping"},
                         {"at_ms": 50, "node": 0, "input": "Ping"}]}"#,
        );
        let dropped = out.trace.as_ref().unwrap().events().iter().filter(|e| {
            matches!(
                e.kind,
                EventKind::Drop {
                    reason: DropReason::Partitioned,
                    ..
                }
            )
        });
        assert_eq!(
            dropped.count(),
            2,
            "one in flight at the cut, one sent during it"
        );
        // only the third ping and its pong get through
        assert_eq!(out.stats.delivered, 2);
    }

    #[test]
    fn a_paused_node_catches_up_in_order_on_resume() {
        let out = run(
            r#"{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 100,
            "network": {"latency": {"constant": {"ms": 1}}},
            "faults": [{"at_ms": 2, "fault": {"pause": {"node": 1}}},
                       {"at_ms": 50, "fault": {"resume": {"node": 1}}}],
            "workload": [{"at_ms": 5, "node": 0, "input": "Ping"}]}"#,
        );
        let trace = out.trace.unwrap();
        let deliver_at = trace
            .events()
            .iter()
            .find(|e| e.node == Some(1) && matches!(e.kind, EventKind::Deliver { .. }))
            .map(|e| e.t_ns);
        assert_eq!(
            deliver_at,
            Some(50_000_000),
            "the ping waits for the resume"
        );
        let ticks_while_paused = trace
            .events()
            .iter()
            .filter(|e| e.node == Some(1) && matches!(e.kind, EventKind::Timer { .. }))
            .filter(|e| (2_000_001..50_000_000).contains(&e.t_ns))
            .count();
        assert_eq!(ticks_while_paused, 0);
    }

    /// A link stays FIFO across a resume: a message arriving at the resume's very instant
    /// is taken after those held while paused (it overtook them all, where turmoil keeps the
    /// order; stop 67's probe). Paused again at that instant, the node holds them all.
    #[test]
    fn a_message_arriving_at_the_resume_waits_behind_the_held_ones() {
        let deliveries = |faults: &str| {
            let out = run(&format!(
                r#"{{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 200,
                "network": {{"latency": {{"constant": {{"ms": 10}}}}}},
                "faults": {faults},
                "workload": [{{"at_ms": 20, "node": 0, "input": "Ping"}},
                             {{"at_ms": 40, "node": 0, "input": "Ping"}},
                             {{"at_ms": 60, "node": 0, "input": "Ping"}}]}}"#
            ));
            assert!(out.verdict.is_pass(), "{}", out.verdict);
            let trace = out.trace.unwrap();
            trace
                .events()
                .iter()
                .filter(|e| e.node == Some(1))
                .filter_map(|e| match e.kind {
                    EventKind::Deliver { msg_id, .. } => Some((e.t_ns / 1_000_000, msg_id)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let resumed = deliveries(
            r#"[{"at_ms": 10, "fault": {"pause": {"node": 1}}},
                {"at_ms": 70, "fault": {"resume": {"node": 1}}}]"#,
        );
        let ids: Vec<u64> = resumed.iter().map(|&(_, id)| id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted, "{resumed:?}");
        assert_eq!(resumed.len(), 3, "{resumed:?}");
        assert!(resumed.iter().all(|&(t, _)| t == 70), "{resumed:?}");
        let paused_again = deliveries(
            r#"[{"at_ms": 10, "fault": {"pause": {"node": 1}}},
                {"at_ms": 70, "fault": {"resume": {"node": 1}}},
                {"at_ms": 70, "fault": {"pause": {"node": 1}}},
                {"at_ms": 90, "fault": {"resume": {"node": 1}}}]"#,
        );
        assert_eq!(
            paused_again,
            resumed.iter().map(|&(_, id)| (90, id)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_restart_forgets_fields_but_keeps_stable_storage() {
        let out = run(
            r#"{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 45,
            "network": {"latency": {"constant": {"ms": 1}}},
            "faults": [{"at_ms": 15, "fault": {"crash": {"node": 1}}},
                       {"at_ms": 25, "fault": {"restart": {"node": 1}}}],
            "workload": [{"at_ms": 2, "node": 0, "input": "Ping"},
                         {"at_ms": 18, "node": 0, "input": "Ping"}]}"#,
        );
        let trace = out.trace.unwrap();
        let notes: Vec<String> = trace
            .events()
            .iter()
            .filter(|e| e.node == Some(1))
            .filter_map(|e| match &e.kind {
                EventKind::Observe {
                    obs: Observation::Note { text },
                } => Some(text.clone()),
                _ => None,
            })
            .collect();
        // before the crash: heard one ping; after the restart: the field is back to 0, the
        // stable counter still says 1
        assert_eq!(
            notes,
            vec![
                "tick 0 heard 1 stable 1",
                "tick 0 heard 0 stable 1",
                "tick 1 heard 0 stable 1"
            ]
        );
        assert!(trace
            .events()
            .iter()
            .any(|e| matches!(e.kind, EventKind::Start { incarnation: 1 })));
        assert!(trace.events().iter().any(|e| matches!(
            e.kind,
            EventKind::Drop {
                reason: DropReason::DestinationCrashed,
                ..
            }
        )));
    }

    #[test]
    fn timers_run_on_the_drifting_local_clock() {
        // +10% drift (100000 ppm): a 10 ms local timer fires after ~9.09 ms of global time.
        let out = run(
            r#"{"algorithm": "probe", "nodes": 1, "seed": 1, "duration_ms": 12,
            "clocks": {"rho_ppm": 100000, "nodes": [{"node": 0, "drift_ppm": 100000}]}}"#,
        );
        let trace = out.trace.unwrap();
        let fire = trace
            .events()
            .iter()
            .find(|e| matches!(e.kind, EventKind::Timer { .. }))
            .unwrap();
        // the first global ns at which the local clock reads at least 10 ms
        assert_eq!(fire.t_ns, 9_090_910);
        assert!(fire.local_ns.unwrap() >= 10_000_000 && fire.local_ns.unwrap() < 10_000_002);
    }

    fn sim(json: &str) -> Sim<Probe> {
        let sc = Scenario::from_json(json).unwrap();
        Sim::new(
            &sc,
            Rc::new(|_| Probe::default()),
            vec![],
            RunOptions::default(),
        )
        .unwrap()
    }

    /// What a callback does before it steps its clock reads the clock without the step (it
    /// happened first); what it does after, with it; the clock it leaves is the stepped one.
    /// (The sends of a Berkeley master that stepped back after sending were recorded at the
    /// stepped reading, ahead of the step: a backwards clock blamed on a send.)
    #[test]
    fn events_before_a_step_read_the_clock_without_it() {
        struct Stepper;
        impl Process for Stepper {
            type Msg = u8;
            type Timer = u8;
            type Input = ();
            type Stable = ();
            fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
                if ctx.id() == 0 {
                    ctx.set_timer_ms(10, 0);
                }
            }
            fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: u8) {}
            fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, k: u8) {
                if k == 0 {
                    ctx.send(1, 1);
                    ctx.step_clock(-4_000_000);
                    ctx.send(1, 2);
                    ctx.step_clock(1_000_000);
                    ctx.observe(Observation::Note {
                        text: "after".into(),
                    });
                    // 20 ms local from the clock the steps left (7 ms at 10 ms): fires at
                    // 30 ms global, 27 ms local
                    ctx.set_timer_ms(20, 1);
                } else {
                    // steps that add up to nothing: what comes between reads the first
                    ctx.step_clock(2_000_000);
                    ctx.send(1, 3);
                    ctx.step_clock(-2_000_000);
                }
            }
            fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
        }
        let sc = Scenario::from_json(
            r#"{"algorithm": "stepper", "nodes": 2, "seed": 1, "duration_ms": 100}"#,
        )
        .unwrap();
        let out = Sim::new(&sc, Rc::new(|_| Stepper), vec![], RunOptions::default())
            .unwrap()
            .run();
        let trace = out.trace.unwrap();
        let at = |t_ns: u64| -> Vec<(String, i64)> {
            trace
                .events()
                .iter()
                .filter(|e| e.node == Some(0) && e.t_ns == t_ns)
                .map(|e| {
                    let word = serde_json::to_value(&e.kind).unwrap()["type"].to_string();
                    (word, e.local_ns.unwrap() / 1_000_000)
                })
                .collect()
        };
        let at_10 = at(10_000_000);
        let expect = [
            ("timer", 10),
            ("send", 10),
            ("clock_adjust", 6),
            ("send", 6),
            ("clock_adjust", 7),
            ("observe", 7),
        ];
        let expect: Vec<(String, i64)> =
            expect.iter().map(|(w, l)| (format!("{w:?}"), *l)).collect();
        assert_eq!(at_10, expect);
        // the timer set after both steps counts from the clock they left: 30 ms global
        assert_eq!(out.stats.timers, 2, "{:?}", out.stats);
        let words = |v: &[(&str, i64)]| -> Vec<(String, i64)> {
            v.iter().map(|(w, l)| (format!("{w:?}"), *l)).collect()
        };
        assert_eq!(
            at(30_000_000),
            words(&[
                ("timer", 27),
                ("clock_adjust", 29),
                ("send", 29),
                ("clock_adjust", 27),
            ])
        );
    }

    #[test]
    fn a_broadcast_records_one_send_per_copy_its_short_text_in_place() {
        // Node 0 pings its 4 neighbours; node 2 is cut off, so its copy is dropped (a `drop`
        // event between two copies) and the others are answered by a pong each.
        let out = run(
            r#"{"algorithm": "probe", "nodes": 5, "seed": 1, "duration_ms": 100,
            "faults": [{"at_ms": 0, "fault": {"partition": {"groups": [[2]]}}}],
            "workload": [{"at_ms": 1, "node": 0, "input": "Ping"}]}"#,
        );
        let trace = out.trace.as_ref().unwrap();
        let sends = |pick: &dyn Fn(NodeId) -> bool| -> Vec<crate::Text> {
            let texts = trace.events().iter().filter_map(|e| match &e.kind {
                EventKind::Send { msg, .. } if e.node.is_some_and(pick) => Some(msg.clone()),
                _ => None,
            });
            texts.collect()
        };
        let pings = sends(&|v| v == 0);
        assert_eq!(pings.len(), 4);
        assert!(pings.iter().all(|t| t.as_str() == "Ping"));
        // short texts are kept in place: no allocation to share (a long one is shared:
        // `engine::tests::a_broadcast_is_rendered_once`)
        assert!(pings.iter().all(|t| t.is_inline()));
        assert_eq!(
            count(&out, |k| matches!(k, EventKind::Drop { to: 2, .. })),
            1
        );
        // The pongs are sends of their own, each rendered apart.
        let pongs = sends(&|v| v != 0);
        assert_eq!(pongs.len(), 3);
        assert!(pongs.iter().all(|t| t.as_str() == "Pong"));
        assert!(pongs.iter().all(|t| t.is_inline()));
    }

    /// A traced run whose checkers read no sends or deliveries keeps each message and
    /// renders it when its trace is read, not when it is sent: the trace is, event for event,
    /// the one recorded by a run that renders as it sends (a checker that reads sends makes
    /// it one, and sees each text as it is sent), a broadcast's copies and the deliveries
    /// included; a checker of observations alone leaves the rendering for later (and finds
    /// the empty text in a send it is passed).
    #[test]
    fn a_trace_renders_its_messages_when_read_with_the_texts_of_one_rendered_when_sent() {
        use crate::check::Interest;
        use crate::engine::ReadsTexts;
        let sc = Scenario::from_json(
            r#"{"algorithm": "probe", "nodes": 4, "seed": 3, "duration_ms": 60,
            "network": {"duplicate": 0.3},
            "workload": [{"at_ms": 1, "node": 0, "input": "Ping"},
                         {"at_ms": 7, "node": 2, "input": {"Flood": 3}},
                         {"at_ms": 9, "node": 3, "input": "Ping"}]}"#,
        )
        .unwrap();
        let run = |interest: Option<Interest>| {
            let reads = interest.map(ReadsTexts::new);
            let seen = reads.as_ref().map(|r| r.seen.clone()).unwrap_or_default();
            let checkers: Vec<Box<dyn Checker>> = reads
                .map(|r| Box::new(r) as Box<dyn Checker>)
                .into_iter()
                .collect();
            let out = Sim::new(
                &sc,
                Rc::new(|_| Probe::default()),
                checkers,
                RunOptions::new(true),
            )
            .unwrap()
            .run();
            let seen = seen.lock().unwrap().clone();
            (out.trace.unwrap(), seen)
        };
        let (later, _) = run(None);
        let (observing, seen_by_observer) = run(Some(Interest::OBSERVE));
        let (sent, seen) = run(Some(Interest::SEND.or(Interest::DELIVER)));
        assert!(later.renders_later() && observing.renders_later());
        assert!(
            !sent.renders_later(),
            "a checker reads the texts as they are sent"
        );
        // passed sends it did not ask for (it asks for every event until it says when it
        // must next see one), it finds no text in them: it said it reads none
        assert!(!seen_by_observer.is_empty());
        assert!(seen_by_observer.iter().all(String::is_empty));
        assert_eq!(later, sent);
        assert_eq!(sent, later);
        assert_eq!(observing, later);
        assert_eq!(later.events(), sent.events());
        assert_eq!(later.to_jsonl(), sent.to_jsonl());
        // the texts are there, as the checker saw them sent and delivered
        let texts: Vec<String> = later
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Send { msg, .. } | EventKind::Deliver { msg, .. } => {
                    Some(msg.to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(texts, seen);
        assert!(
            texts.iter().filter(|t| *t == "Ping").count() >= 6,
            "{texts:?}"
        );
        assert!(texts.iter().any(|t| t == "Pong"), "{texts:?}");
        // a send's text read alone, and each send's the same as the delivery naming it
        for e in later.events() {
            if let EventKind::Deliver { sent, msg, .. } = &e.kind {
                assert_eq!(later.send_text(*sent as usize).as_ref(), Some(msg));
            }
        }
    }

    /// A message whose every rendering is counted.
    #[derive(Clone, Serialize, Deserialize)]
    struct Counted(u32);

    /// Renderings of [`Counted`] (only the test below sends one).
    static RENDERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    impl std::fmt::Debug for Counted {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            RENDERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            write!(f, "Counted({})", self.0)
        }
    }

    /// Two nodes that pass a counted message back and forth 200 times.
    #[derive(Debug)]
    struct Rally;

    impl Process for Rally {
        type Msg = Counted;
        type Timer = ();
        type Input = ();
        type Stable = ();
        fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
            if ctx.id() == 0 {
                ctx.send(1, Counted(0));
            }
        }
        fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, Counted(n): Counted) {
            if n < 200 {
                ctx.send(from, Counted(n + 1));
            }
        }
        fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
        fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
    }

    /// A traced run renders no message while it runs when nothing reads the texts: each
    /// recorded send is rendered once, when the trace is first read (its delivery shares
    /// the text), and a send past the trace's size limit never. A checker that reads sends
    /// has each rendered as it is sent.
    #[test]
    fn a_message_is_rendered_once_when_read_and_never_past_the_trace_limit() {
        use crate::check::Interest;
        use crate::engine::ReadsTexts;
        use std::sync::atomic::Ordering::Relaxed;
        let run = |max_trace_bytes: u64, checkers: Vec<Box<dyn Checker>>| {
            let mut sc = Scenario::from_json(
                r#"{"algorithm": "rally", "nodes": 2, "seed": 1, "duration_ms": 60000}"#,
            )
            .unwrap();
            sc.limits.max_trace_bytes = max_trace_bytes;
            RENDERS.store(0, Relaxed);
            let out = Sim::new(&sc, Rc::new(|_| Rally), checkers, RunOptions::new(true))
                .unwrap()
                .run();
            assert!(out.verdict.is_pass(), "{}", out.verdict);
            let during = RENDERS.load(Relaxed);
            let trace = out.trace.unwrap();
            let sends = trace
                .events()
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Send { .. }))
                .count();
            let when_read = RENDERS.load(Relaxed) - during;
            let _ = trace.to_jsonl();
            assert_eq!(RENDERS.load(Relaxed) - during, when_read, "rendered once");
            (during, when_read, sends)
        };
        assert_eq!(run(1 << 20, vec![]), (0, 201, 201));
        let (during, when_read, sends) = run(20_000, vec![]);
        assert!(sends < 201, "the trace was cut: {sends} sends");
        assert_eq!((during, when_read), (0, sends));
        let (during, when_read, sends) =
            run(1 << 20, vec![Box::new(ReadsTexts::new(Interest::SEND))]);
        assert_eq!((during, when_read, sends), (201, 0, 201));
    }

    #[test]
    fn a_trace_of_type_words_is_the_full_trace_with_each_text_cut_to_its_type_word() {
        let json = r#"{"algorithm": "probe", "nodes": 3, "seed": 4, "duration_ms": 60,
            "workload": [{"at_ms": 1, "node": 0, "input": "Ping"},
                         {"at_ms": 7, "node": 2, "input": {"Flood": 2}}]}"#;
        let sc = Scenario::from_json(json).unwrap();
        let run = |opts| {
            Sim::new(&sc, Rc::new(|_| Probe::default()), vec![], opts)
                .unwrap()
                .run()
                .trace
                .unwrap()
        };
        let full = run(RunOptions::new(true));
        let words = run(RunOptions::new(true).type_words_only());
        assert_eq!(full.len(), words.len());
        let text = |k: &EventKind| match k {
            EventKind::Send { msg, .. } | EventKind::Deliver { msg, .. } => Some(msg.to_string()),
            EventKind::Timer { timer, .. } => Some(timer.clone()),
            EventKind::Input { input } => Some(input.clone()),
            _ => None,
        };
        let mut cut = 0;
        for (f, w) in full.events().iter().zip(words.events()) {
            assert_eq!((f.id, f.t_ns, f.node), (w.id, w.t_ns, w.node));
            match (text(&f.kind), text(&w.kind)) {
                (Some(f), Some(w)) => {
                    assert_eq!(w, crate::trace::type_word(&f), "{f}");
                    cut += usize::from(w != f);
                }
                (None, None) => assert_eq!(f.kind, w.kind),
                (f, w) => panic!("{f:?} against {w:?}"),
            }
        }
        assert!(cut >= 1, "no text was longer than its type word (Flood(2))");
        let pings = words
            .events()
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Send { msg, .. } if msg == "Ping"));
        assert!(pings.count() >= 4, "the pings of the input and the flood");
    }

    const PING: &str = r#"{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 30,
        "workload": [{"at_ms": 1, "node": 0, "input": "Ping"}]}"#;

    /// The invariants hold on ordinary runs (paused, crashed, limited), and each one that
    /// breaks panics naming itself.
    #[test]
    fn engine_invariants_hold_and_name_themselves_when_broken() {
        // in_flight is checked against the queue at the end of every run, including runs cut
        // by the event limit with deliveries queued and nodes paused or crashed
        for json in [
            PING,
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 60,
               "faults": [{"at_ms": 2, "fault": {"pause": {"node": 1}}},
                          {"at_ms": 9, "fault": {"crash": {"node": 2}}}],
               "workload": [{"at_ms": 1, "node": 0, "input": {"Flood": 3}}]}"#,
            r#"{"algorithm": "probe", "nodes": 3, "seed": 1, "duration_ms": 60,
               "limits": {"max_events": 9},
               "workload": [{"at_ms": 1, "node": 0, "input": {"Flood": 3}}]}"#,
        ] {
            sim(json).run();
        }
        let broken = |f: fn(&mut Sim<Probe>)| {
            let mut s = sim(PING);
            f(&mut s);
            let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                while s.step() {}
                s.check_in_flight();
            }))
            .expect_err("the broken invariant is caught");
            crate::engine::panic_message(&*payload)
        };
        let m = broken(|s| {
            while s.in_flight == 0 {
                assert!(s.step(), "the ping is sent");
            }
            s.in_flight = 0;
        });
        assert!(
            m.contains("invariant broken: in_flight never goes below 0"),
            "{m}"
        );
        let m = broken(|s| s.in_flight = 5);
        assert!(
            m.contains("in_flight counts the deliveries queued or waiting"),
            "{m}"
        );
        let m = broken(|s| s.free.push(0));
        assert!(
            m.contains("every slab slot is either queued or free"),
            "{m}"
        );
        let m = broken(|s| s.now_ns = u64::MAX);
        assert!(m.contains("time never goes back"), "{m}");
    }

    /// The engine reads a node's clock once per instant while nothing can change it: a
    /// callback that steps its clock and then observes, sends or panics has those events
    /// read the stepped clock, not the reading its delivery was recorded at.
    #[test]
    fn events_after_a_step_or_a_panic_read_the_stepped_clock() {
        struct Jumper;
        impl Process for Jumper {
            type Msg = u8;
            type Timer = ();
            type Input = ();
            type Stable = ();
            fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
                if ctx.id() == 0 {
                    ctx.send(1, 1);
                    ctx.send(1, 2);
                }
            }
            fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _: NodeId, m: u8) {
                ctx.observe(Observation::Note {
                    text: "before".into(),
                });
                ctx.step_clock(3_000_000);
                ctx.observe(Observation::Note {
                    text: "after".into(),
                });
                assert!(m == 1, "second message");
            }
            fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
            fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
        }
        let sc = Scenario::from_json(
            r#"{"algorithm": "jumper", "nodes": 2, "seed": 3, "duration_ms": 100,
            "clocks": {"rho_ppm": 100, "nodes": [{"node": 1, "drift_ppm": 100}]}}"#,
        )
        .unwrap();
        let out = Sim::new(&sc, Rc::new(|_| Jumper), vec![], RunOptions::default())
            .unwrap()
            .run();
        assert!(
            matches!(out.verdict, Verdict::Panic { node: 1, .. }),
            "{}",
            out.verdict
        );
        let trace = out.trace.unwrap();
        let at_node_1: Vec<(&str, i64)> = trace
            .events()
            .iter()
            .filter(|e| e.node == Some(1))
            .filter_map(|e| {
                let word = match &e.kind {
                    EventKind::Deliver { .. } => "deliver",
                    EventKind::Observe { .. } => "observe",
                    EventKind::ClockAdjust { .. } => "step",
                    EventKind::Panic { .. } => "panic",
                    _ => return None,
                };
                Some((word, e.local_ns.unwrap()))
            })
            .collect();
        let words: Vec<&str> = at_node_1.iter().map(|w| w.0).collect();
        assert_eq!(
            words,
            ["deliver", "observe", "step", "observe", "deliver", "panic"],
            "{at_node_1:?}"
        );
        let (first, second) = (at_node_1[0].1, at_node_1[4].1);
        assert_eq!(
            at_node_1[1].1, first,
            "before the step: the delivery's reading"
        );
        assert_eq!(
            at_node_1[2].1,
            first + 3_000_000,
            "the step, then its reading"
        );
        assert_eq!(at_node_1[3].1, first + 3_000_000);
        // the second callback stepped its clock again, then panicked: its operations are
        // dropped, but the panic reads the clock it left
        assert_eq!(at_node_1[5].1, second + 3_000_000, "{at_node_1:?}");
    }

    /// The operations of a callback are read where the callback wrote them and moved out or
    /// dropped in place (`after_callback`): every message made is dropped exactly once, those
    /// sent and those a send limit left behind alike, traced or not; the observations after
    /// the limit are never recorded.
    #[test]
    fn every_operation_is_moved_out_or_dropped_once_even_past_a_send_limit() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        static MADE: AtomicUsize = AtomicUsize::new(0);
        static DROPPED: AtomicUsize = AtomicUsize::new(0);
        #[derive(Debug, Serialize, Deserialize)]
        struct Counted(String);
        impl Clone for Counted {
            fn clone(&self) -> Counted {
                MADE.fetch_add(1, SeqCst);
                Counted(self.0.clone())
            }
        }
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPPED.fetch_add(1, SeqCst);
            }
        }
        fn made(text: &str) -> Counted {
            MADE.fetch_add(1, SeqCst);
            Counted(text.to_string())
        }
        struct Burst;
        impl Process for Burst {
            type Msg = Counted;
            type Timer = ();
            type Input = ();
            type Stable = ();
            fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
                if ctx.id() != 0 {
                    return;
                }
                for k in 0..6 {
                    ctx.observe(Observation::Note {
                        text: format!("before send {k}"),
                    });
                    ctx.send(1, made(&format!("message {k} of a long enough text")));
                    ctx.broadcast(made("a broadcast"));
                }
                ctx.observe(Observation::CsEnter { resource: 3 });
            }
            fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: Counted) {}
            fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
            fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
        }
        for (max_sent, traced) in [(1000, false), (1000, true), (5, false), (5, true)] {
            MADE.store(0, SeqCst);
            DROPPED.store(0, SeqCst);
            let json = format!(
                r#"{{"algorithm": "burst", "nodes": 3, "seed": 1, "duration_ms": 100,
                "limits": {{"max_sent": {max_sent}}}}}"#
            );
            let sc = Scenario::from_json(&json).unwrap();
            let out = Sim::new(&sc, Rc::new(|_| Burst), vec![], RunOptions::new(traced))
                .unwrap()
                .run();
            let limited = max_sent == 5;
            assert_eq!(
                matches!(out.verdict, Verdict::LimitExceeded { .. }),
                limited,
                "{}",
                out.verdict
            );
            assert_eq!(out.stats.sent, if limited { 5 } else { 18 });
            if let Some(trace) = &out.trace {
                let notes = trace
                    .events()
                    .iter()
                    .filter(|e| {
                        matches!(
                            &e.kind,
                            EventKind::Observe {
                                obs: Observation::Note { .. }
                            }
                        )
                    })
                    .count();
                // a note before each round of 3 sends (one, then a broadcast to 2): the 6th
                // send, the second round's broadcast's second copy, is refused
                assert_eq!(notes, if limited { 2 } else { 6 }, "max_sent {max_sent}");
                let entered = trace.events().iter().any(|e| {
                    matches!(
                        &e.kind,
                        EventKind::Observe {
                            obs: Observation::CsEnter { resource: 3 }
                        }
                    )
                });
                assert_eq!(entered, !limited);
            }
            drop(out);
            assert_eq!(
                (MADE.load(SeqCst), DROPPED.load(SeqCst)),
                (MADE.load(SeqCst), MADE.load(SeqCst)),
                "max_sent {max_sent}, traced {traced}: every message made is dropped once"
            );
            assert!(MADE.load(SeqCst) >= 12);
        }
    }

    /// A delivery's text is its own send's, whether that send is the last one recorded (kept
    /// at hand by the recorder) or an older one (read back from the packed trace).
    #[test]
    fn every_delivery_carries_the_text_of_its_own_send() {
        struct Chatter;
        impl Process for Chatter {
            type Msg = (usize, u32);
            type Timer = ();
            type Input = ();
            type Stable = ();
            fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
                let n = ctx.nodes();
                for k in 1..n {
                    ctx.send((ctx.id() + k) % n, (ctx.id(), 0));
                }
            }
            fn on_message(
                &mut self,
                ctx: &mut Ctx<'_, Self>,
                from: NodeId,
                (_, hop): (usize, u32),
            ) {
                if hop < 20 {
                    ctx.send(from, (ctx.id(), hop + 1));
                    ctx.send((from + 1) % ctx.nodes(), (ctx.id(), hop + 1000));
                }
            }
            fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
            fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
        }
        let sc = Scenario::from_json(
            r#"{"algorithm": "chatter", "nodes": 4, "seed": 9, "duration_ms": 60,
            "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 9}}}}"#,
        )
        .unwrap();
        let out = Sim::new(&sc, Rc::new(|_| Chatter), vec![], RunOptions::default())
            .unwrap()
            .run();
        let trace = out.trace.unwrap();
        let events = trace.events();
        let (mut last_sent, mut older) = (0, 0);
        for e in events {
            if let EventKind::Deliver { sent, msg, .. } = &e.kind {
                let EventKind::Send { msg: sent_msg, .. } = &events[*sent as usize].kind else {
                    panic!("event {sent} is no send");
                };
                assert_eq!(msg, sent_msg, "delivery {}", e.id);
                let last_send = events[..e.id as usize]
                    .iter()
                    .rposition(|s| matches!(s.kind, EventKind::Send { .. }));
                if last_send == Some(*sent as usize) {
                    last_sent += 1;
                } else {
                    older += 1;
                }
            }
        }
        assert!(
            last_sent > 10 && older > 10,
            "{last_sent} of the last send, {older} older"
        );
    }

    #[test]
    fn step_advances_one_event_at_a_time() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "probe", "nodes": 2, "seed": 1, "duration_ms": 30}"#,
        )
        .unwrap();
        let mut sim = Sim::new(
            &sc,
            Rc::new(|_| Probe::default()),
            vec![],
            RunOptions::default(),
        )
        .unwrap();
        let mut steps = 0;
        let mut last = 0;
        while sim.step() {
            assert!(sim.now_ns() >= last, "time never goes back");
            last = sim.now_ns();
            steps += 1;
        }
        assert_eq!(
            steps,
            2 + 2 * 3,
            "two starts, then three ticks per node within 30 ms"
        );
    }
}
