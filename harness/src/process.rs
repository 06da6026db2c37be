//! The sans-IO process: an algorithm is a state machine that reacts to start, messages, timers
//! and workload inputs, and acts only through [`Ctx`].

use crate::clock::SoftClock;
use crate::rng::SimRng;
use crate::NodeId;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// An `Option` field that must be present in JSON (`null` for `None`): serde reads a missing
/// `Option` field as `None` unless the field has a `deserialize_with`, which this is.
fn required_option<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

/// An algorithm's node: a deterministic state machine.
///
/// It never touches a socket, a real clock, a thread or a global RNG: the same code runs on the
/// native discrete-event engine, on turmoil and on madsim. Plain fields are volatile (lost on a
/// crash); what must survive goes to [`Ctx::stable_mut`].
pub trait Process: Sized + 'static {
    /// Messages between nodes (serde-encoded on the socket-based engines). Plain data,
    /// `Send + Sync`: a traced run keeps the messages it sends and the trace renders them
    /// with `Debug` only when it is read, so a message's rendering must not change once it
    /// is sent (no shared cell whose contents a node changes later).
    type Msg: Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// Timer payloads.
    type Timer: Clone + Debug + 'static;
    /// Workload commands, read from the scenario's `workload` (e.g. "acquire the lock").
    /// Inputs are plain data, `Send + Sync`: a generated scenario holds them as they are
    /// ([`WorkloadInput::typed`](crate::WorkloadInput::typed)) until it is written.
    type Input: Clone + Debug + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// Stable storage: survives crashes and restarts.
    type Stable: Clone + Debug + Default + 'static;

    /// The node starts (at time 0, or when a [`Fault::Restart`](crate::Fault::Restart) starts
    /// it again: after a crash, or rebooting it while it ran). Default: nothing.
    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        let _ = ctx;
    }
    /// A message from `from` arrives.
    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Self::Msg);
    /// A timer set with [`Ctx::set_timer`] fires. Default: nothing.
    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Self::Timer) {
        let _ = (ctx, timer);
    }
    /// A workload command arrives. Default: nothing.
    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Self::Input) {
        let _ = (ctx, input);
    }
}

/// Handle of a pending timer, to cancel it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TimerId(pub u64);

/// What a process reports for checkers to judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Observation {
    /// The node asks for the critical section of `resource`.
    CsRequest {
        /// Resource id (0 when there is one).
        resource: u32,
    },
    /// The node enters the critical section of `resource`.
    CsEnter {
        /// Resource id.
        resource: u32,
    },
    /// The node leaves the critical section of `resource`.
    CsExit {
        /// Resource id.
        resource: u32,
    },
    /// The node gives up a request (e.g. it was denied and backs off for good).
    CsAbandon {
        /// Resource id.
        resource: u32,
    },
    /// The node believes `leader` leads in `term` (`None`: no leader known).
    Leader {
        /// The leader, if any. Required in JSON, `null` for none: a trace line that leaves
        /// it out is refused, not read as "no leader".
        #[serde(deserialize_with = "required_option")]
        leader: Option<NodeId>,
        /// Term or epoch (0 for algorithms without terms).
        term: u64,
    },
    /// The node grants its vote in `term` to `candidate` (a candidate's vote for itself
    /// included): what `one_vote_per_term` judges (an algorithm with terms and majority votes
    /// grants at most one vote per term, kept across crashes).
    Vote {
        /// The term of the vote.
        term: u64,
        /// Who gets it.
        candidate: NodeId,
    },
    /// The node delivers an application message to its upper layer.
    Delivered {
        /// Application-level id of the message.
        id: String,
    },
    /// The node multicasts the application message `id` (causal and total order checkers).
    Multicast {
        /// Application-level id of the message.
        id: String,
    },
    /// The node's replicated state after an update, rendered (replica agreement checker).
    State {
        /// The state, e.g. `$1111.00`.
        value: String,
    },
    /// The logical clocks the algorithm assigns to this event (Lamport and vector clock
    /// checkers): the event is this observation itself.
    LogicalTime {
        /// Lamport clock value.
        lamport: u64,
        /// Vector clock (empty when the algorithm keeps none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        vector: Vec<u64>,
    },
    /// Ground truth of a wait-for graph (reported by the resource's owner, who knows it
    /// first-hand): `waiter` starts waiting for a resource that `on` holds.
    WaitFor {
        /// The blocked process.
        waiter: NodeId,
        /// The process holding what it waits for.
        on: NodeId,
    },
    /// The wait-for edge `waiter` -> `on` ends (the resource changed hands).
    WaitEnd {
        /// The process that was waiting.
        waiter: NodeId,
        /// The process it waited for.
        on: NodeId,
    },
    /// The node, as `initiator` of a probe that came back to it, declares a deadlock.
    DeadlockDetected {
        /// The probe's initiator (the reporting node).
        initiator: NodeId,
    },
    /// Free text (shown in traces, ignored by checkers).
    Note {
        /// The text.
        text: String,
    },
    /// A user's own observation, for a user's own checker: a `kind` the checker matches on
    /// and any JSON `data` (see [`Observation::user`]). Traces record it and renderers show
    /// it as `kind data`; the built-in checkers ignore it.
    User {
        /// What is observed, e.g. `primary_on`.
        kind: String,
        /// Its details (`null` when there are none).
        #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
        data: serde_json::Value,
    },
}

/// The names of the built-in observations and of the other event kinds the built-in
/// properties read (`Property::EVIDENCE`): a user observation may not take one as its
/// `kind`. A user `vote` counted as a vote, so a trace with no vote at all passed
/// `one_vote_per_term` (stop 58); the renderers showed it as one too.
pub const RESERVED_KINDS: &[&str] = &[
    "cs_request",
    "cs_enter",
    "cs_exit",
    "cs_abandon",
    "leader",
    "leader_claim",
    "leader_self_claim",
    "vote",
    "delivered",
    "multicast",
    "state",
    "logical_time",
    "wait_for",
    "wait_end",
    "deadlock_detected",
    "note",
    "user",
    "clock_adjust",
    "clock_jump",
    "drift_change",
    "local_ns",
];

/// Calls macro `$m` with every [`Observation`] variant and its fields, `Variant { field, … }`
/// (one list for the code that moves an observation field by field; the match it builds is
/// exhaustive, so a new variant must be listed here).
macro_rules! observation_variants {
    ($m:ident) => {
        $m!(
            CsRequest { resource },
            CsEnter { resource },
            CsExit { resource },
            CsAbandon { resource },
            Leader { leader, term },
            Vote { term, candidate },
            Delivered { id },
            Multicast { id },
            State { value },
            LogicalTime { lamport, vector },
            WaitFor { waiter, on },
            WaitEnd { waiter, on },
            DeadlockDetected { initiator },
            Note { text },
            User { kind, data },
        )
    };
}
pub(crate) use observation_variants;

impl Observation {
    /// Whether the observation owns memory on the heap (a text, a vector, JSON): the others
    /// need no drop.
    #[inline]
    pub(crate) fn owns_heap(&self) -> bool {
        match self {
            Observation::CsRequest { .. }
            | Observation::CsEnter { .. }
            | Observation::CsExit { .. }
            | Observation::CsAbandon { .. }
            | Observation::Leader { .. }
            | Observation::Vote { .. }
            | Observation::WaitFor { .. }
            | Observation::WaitEnd { .. }
            | Observation::DeadlockDetected { .. } => false,
            Observation::Delivered { .. }
            | Observation::Multicast { .. }
            | Observation::State { .. }
            | Observation::LogicalTime { .. }
            | Observation::Note { .. }
            | Observation::User { .. } => true,
        }
    }

    /// A user observation of `kind` with `data` serialized to JSON (e.g. a struct of the
    /// user's, or `()` for none).
    ///
    /// # Panics
    /// If `data` cannot be serialized to JSON (a map with non-string keys, say), or `kind` is
    /// one of the [`RESERVED_KINDS`] (a built-in observation's name): a programming error in
    /// the algorithm under test, reported like any of its panics.
    #[track_caller]
    pub fn user(kind: impl Into<String>, data: impl Serialize) -> Self {
        let kind = kind.into();
        assert!(
            !RESERVED_KINDS.contains(&kind.as_str()),
            "a user observation's kind `{kind}` is the name of a built-in one: the built-in \
             properties would take it for theirs; choose another name"
        );
        Observation::User {
            kind,
            data: serde_json::to_value(data).expect("an observation's data serializes to JSON"),
        }
    }

    /// The kind and data of a [`Observation::User`], if this is one.
    pub fn as_user(&self) -> Option<(&str, &serde_json::Value)> {
        match self {
            Observation::User { kind, data } => Some((kind, data)),
            _ => None,
        }
    }
}

/// A clock adjustment made by the algorithm, as recorded in the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockAdjust {
    /// Instant step (may go backwards).
    Step,
    /// Gradual slew.
    Slew,
}

/// One action of a callback, kept in program order so the trace (and the ground-truth
/// happens-before) shows them exactly as the algorithm did them.
pub(crate) enum Op<P: Process> {
    Send(NodeId, P::Msg),
    /// A copy of the message of the `Send` (or `SendCopy`) just before it, to another
    /// destination: a broadcast's next copy, which a trace renders once for all.
    SendCopy(NodeId, P::Msg),
    SetTimer {
        id: TimerId,
        deadline_local_ns: i64,
        timer: P::Timer,
    },
    CancelTimer(TimerId),
    Observe(Observation),
    Clock(ClockAdjust, i64),
}

/// What a callback asked for; the engine applies it when the callback returns.
pub(crate) struct Effects<P: Process> {
    pub ops: Vec<Op<P>>,
    /// `limits.max_ops_per_callback`: a callback asking for more is stopped
    /// ([`OpsLimitReached`]).
    pub ops_max: usize,
    /// Whether `ops` holds a clock step ([`Ctx::step_clock`]): only then does the engine
    /// look for the steps to undo before applying the operations (see
    /// `engine::after_callback`), which is taken back to false with `ops`.
    pub any_step: bool,
}

impl<P: Process> Default for Effects<P> {
    /// No limit (the bench's bare loop).
    fn default() -> Self {
        Effects {
            ops: Vec::new(),
            ops_max: usize::MAX,
            any_step: false,
        }
    }
}

impl<P: Process> Effects<P> {
    /// Effects of callbacks limited to `ops_max` operations each.
    pub fn with_ops_max(ops_max: usize) -> Self {
        Effects {
            ops: Vec::new(),
            ops_max,
            any_step: false,
        }
    }

    /// Makes room for `k` more operations, or stops the callback when they would pass
    /// `ops_max`. The limit is looked at only when the operations outgrow their room, which
    /// never exceeds `ops_max` ([`Self::grow`]): nothing is added to a push that fits.
    #[inline]
    fn room_for(&mut self, k: usize) {
        if self.ops.capacity() - self.ops.len() < k {
            self.grow(k);
        }
    }

    /// [`Self::room_for`] past the room: doubles it, up to `ops_max` exactly.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, k: usize) {
        let need = self.ops.len().saturating_add(k);
        if need > self.ops_max {
            ops_limit_reached();
        }
        let room = need
            .max(self.ops.capacity().saturating_mul(2))
            .max(8)
            .min(self.ops_max);
        self.ops.reserve_exact(room - self.ops.len());
    }
}

/// What a callback unwinds with when it asks for more than `limits.max_ops_per_callback`
/// operations (raised with `resume_unwind`: no panic hook runs, nothing is printed; the
/// engine ends the run with `limit_exceeded`).
pub(crate) struct OpsLimitReached;

/// Stops the callback: see [`OpsLimitReached`].
#[cold]
#[inline(never)]
fn ops_limit_reached() -> ! {
    std::panic::resume_unwind(Box::new(OpsLimitReached))
}

/// The only door from a process to the world.
pub struct Ctx<'a, P: Process> {
    // (`t_ns` is not next to `nodes`: the native engine keeps the two side by side, and
    // copied as one wide word, the load stalled on the store of the time just made: 7 % of
    // its `call` on a token ring, `perf annotate`.)
    pub(crate) t_ns: u64,
    pub(crate) id: NodeId,
    pub(crate) nodes: usize,
    pub(crate) clock: &'a mut SoftClock,
    pub(crate) rng: &'a mut SimRng,
    pub(crate) stable: &'a mut P::Stable,
    pub(crate) fx: &'a mut Effects<P>,
    pub(crate) neighbours: Peers<'a>,
    pub(crate) next_timer: &'a mut u64,
}

/// Where a [`Ctx`] finds its node's neighbours: a list, or the network's topology (whose
/// complete-graph lists are built only for the nodes that ask for them).
#[derive(Clone, Copy)]
pub(crate) enum Peers<'a> {
    /// An explicit list.
    List(&'a [NodeId]),
    /// The topology of the run.
    Topology(&'a crate::net::Adjacency),
}

impl<P: Process> Ctx<'_, P> {
    /// This node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// Number of nodes in the run (ids are `0..nodes()`).
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The nodes this one has a link to (every other node on a complete topology).
    pub fn neighbours(&self) -> &[NodeId] {
        match self.neighbours {
            Peers::List(l) => l,
            Peers::Topology(adj) => adj.neighbours(self.id),
        }
    }

    /// The local software clock, in ns (may differ from global time: offset, drift, jumps).
    pub fn now(&self) -> i64 {
        self.clock.read(self.t_ns)
    }

    /// The local software clock, in ms.
    pub fn now_ms(&self) -> f64 {
        self.now() as f64 / 1e6
    }

    /// Sends `msg` to `to` (to itself: delivered at once, never lost).
    ///
    /// # Panics
    ///
    /// If `to` is not a node of the run (`to >= self.nodes()`): a destination off by one is
    /// the algorithm's bug, and the run reports it as a panic of this node, as an index out
    /// of bounds would be (it was a message silently dropped, and the run passed).
    #[track_caller]
    pub fn send(&mut self, to: NodeId, msg: P::Msg) {
        assert!(
            to < self.nodes,
            "send to node {to}, which does not exist (nodes = {})",
            self.nodes
        );
        self.push(Op::Send(to, msg));
    }

    /// Queues `op`, unless the callback has asked for `limits.max_ops_per_callback` already:
    /// then the callback stops here ([`OpsLimitReached`]).
    #[inline]
    fn push(&mut self, op: Op<P>) {
        self.fx.room_for(1);
        let ops = &mut self.fx.ops;
        let len = ops.len();
        // SAFETY: `room_for(1)` left room for one more past `len` (or did not return), so the
        // slot is inside the allocation and unused; it is counted in the length at once.
        // (`Vec::push` would check the room a second time on every operation.)
        unsafe {
            ops.as_mut_ptr().add(len).write(op);
            ops.set_len(len + 1);
        }
    }

    /// Sends `msg` to every neighbour.
    pub fn broadcast(&mut self, msg: P::Msg) {
        let copies = match self.neighbours {
            Peers::List(l) => l.len(),
            Peers::Topology(adj) => adj.neighbours_len(self.id),
        };
        self.fx.room_for(copies);
        let ops = &mut self.fx.ops;
        // The first copy is a plain send; the others are its copies (rendered once in a trace).
        let first = ops.len();
        let mut push = |to: NodeId| {
            let op = if ops.len() > first {
                Op::SendCopy(to, msg.clone())
            } else {
                Op::Send(to, msg.clone())
            };
            ops.push(op);
        };
        match self.neighbours {
            Peers::List(l) => l.iter().for_each(|&to| push(to)),
            Peers::Topology(adj) => adj.for_each_neighbour(self.id, push),
        }
    }

    /// Sets a timer that fires when the local clock has advanced by `after_ns`.
    pub fn set_timer(&mut self, after_ns: u64, timer: P::Timer) -> TimerId {
        let after = i64::try_from(after_ns).unwrap_or(i64::MAX);
        let deadline = self.now().saturating_add(after);
        self.set_timer_at(deadline, timer)
    }

    /// Sets a timer that fires after `after_ms` of local clock time.
    pub fn set_timer_ms(&mut self, after_ms: u64, timer: P::Timer) -> TimerId {
        self.set_timer(after_ms.saturating_mul(crate::NS_PER_MS), timer)
    }

    /// Sets a timer that fires when the local clock reads `local_ns` (at once if it already
    /// does).
    pub fn set_timer_at(&mut self, local_ns: i64, timer: P::Timer) -> TimerId {
        let id = TimerId(*self.next_timer);
        *self.next_timer += 1;
        self.push(Op::SetTimer {
            id,
            deadline_local_ns: local_ns,
            timer,
        });
        id
    }

    /// Cancels a pending timer (no effect if it already fired).
    pub fn cancel_timer(&mut self, id: TimerId) {
        self.push(Op::CancelTimer(id));
    }

    /// Steps the software clock by `delta_ns` at once (negative: backwards).
    pub fn step_clock(&mut self, delta_ns: i64) {
        self.push(Op::Clock(ClockAdjust::Step, delta_ns));
        self.fx.any_step = true;
        self.clock.step(self.t_ns, delta_ns);
    }

    /// Slews the software clock by `delta_ns`, at most 500 ppm, never backwards; replaces an
    /// unfinished slew.
    pub fn slew_clock(&mut self, delta_ns: i64) {
        self.push(Op::Clock(ClockAdjust::Slew, delta_ns));
        self.clock.slew(self.t_ns, delta_ns);
    }

    /// This node's seeded random generator.
    pub fn rng(&mut self) -> &mut SimRng {
        self.rng
    }

    /// Stable storage (survives crashes).
    pub fn stable(&self) -> &P::Stable {
        self.stable
    }

    /// Stable storage, to write.
    pub fn stable_mut(&mut self) -> &mut P::Stable {
        self.stable
    }

    /// Reports an observation to the checkers (and the trace).
    #[inline(always)]
    pub fn observe(&mut self, obs: Observation) {
        self.fx.room_for(1);
        let ops = &mut self.fx.ops;
        let len = ops.len();
        let slot = ops.as_mut_ptr().wrapping_add(len);
        // Each variant is written from its fields into its slot (one arm each). Built whole
        // on the stack and copied, the copy's wide loads stalled on the narrow stores that
        // had just built it: two thirds of a token ring node's callback, which observes
        // twice (`perf annotate`); `push(Op::Observe(obs))` copies so.
        macro_rules! write_each {
            ($($variant:ident { $($field:ident),* }),* $(,)?) => {
                match obs {
                    $(Observation::$variant { $($field),* } => {
                        // SAFETY: `room_for(1)` left room for one more past `len` (or did not
                        // return): the slot is inside the allocation and unused; it is
                        // counted in the length at once.
                        unsafe { slot.write(Op::Observe(Observation::$variant { $($field),* })) }
                    })*
                }
            };
        }
        observation_variants!(write_each);
        // SAFETY: the slot was written just above.
        unsafe { ops.set_len(len + 1) };
    }
}

#[cfg(test)]
mod owns_heap_tests {
    use super::Observation;

    /// The engine skips the drop of an observation that owns nothing (`after_callback`): each
    /// variant with a text, a vector or JSON must say it owns memory, the others that they
    /// do not (a wrong `false` would leak what it holds).
    #[test]
    fn an_observation_owns_heap_memory_exactly_when_it_holds_a_text_a_vector_or_json() {
        let owning = [
            Observation::Delivered { id: "m1".into() },
            Observation::Multicast { id: "m1".into() },
            Observation::State { value: "$1".into() },
            Observation::LogicalTime {
                lamport: 1,
                vector: vec![1, 2],
            },
            Observation::Note { text: "n".into() },
            Observation::user("primary_on", 3),
        ];
        let plain = [
            Observation::CsRequest { resource: 0 },
            Observation::CsEnter { resource: 0 },
            Observation::CsExit { resource: 0 },
            Observation::CsAbandon { resource: 0 },
            Observation::Leader {
                leader: Some(1),
                term: 2,
            },
            Observation::Vote {
                term: 1,
                candidate: 0,
            },
            Observation::WaitFor { waiter: 0, on: 1 },
            Observation::WaitEnd { waiter: 0, on: 1 },
            Observation::DeadlockDetected { initiator: 0 },
        ];
        assert!(owning.iter().all(Observation::owns_heap));
        assert!(!plain.iter().any(Observation::owns_heap));
        // every variant is listed once above (the engine's own list of variants)
        macro_rules! count {
            ($($variant:ident { $($field:ident),* }),* $(,)?) => {
                [$(stringify!($variant)),*].len()
            };
        }
        assert_eq!(owning.len() + plain.len(), observation_variants!(count));
    }
}

#[cfg(test)]
mod leader_json_tests {
    use super::Observation;

    /// A `leader` line without its `leader` key was read as "no leader": a step-down the
    /// trace never recorded (`no_abdication` blamed it).
    #[test]
    fn a_leader_report_must_name_its_leader_or_null() {
        let missing = serde_json::from_str::<Observation>(r#"{"leader": {"term": 0}}"#);
        assert!(
            missing
                .as_ref()
                .is_err_and(|e| e.to_string().contains("missing field `leader`")),
            "{missing:?}"
        );
        let none: Observation =
            serde_json::from_str(r#"{"leader": {"leader": null, "term": 0}}"#).unwrap();
        assert_eq!(
            none,
            Observation::Leader {
                leader: None,
                term: 0
            }
        );
        let back = serde_json::to_string(&none).unwrap();
        assert_eq!(serde_json::from_str::<Observation>(&back).unwrap(), none);
    }
}

#[cfg(test)]
mod ops_limit_tests {
    use super::{Effects, Op, OpsLimitReached};
    use crate::process::{Ctx, Process};
    use crate::NodeId;

    struct Quiet;
    impl Process for Quiet {
        type Msg = ();
        type Timer = ();
        type Input = ();
        type Stable = ();
        fn on_start(&mut self, _: &mut Ctx<'_, Self>) {}
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
        fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
    }

    /// The room grows by doubling but never past `ops_max`, and asking for one more than
    /// `ops_max` stops the callback with `OpsLimitReached` exactly there (also for several
    /// at once, as a broadcast asks), whatever room earlier callbacks left.
    #[test]
    fn the_room_for_operations_stops_exactly_at_the_limit() {
        let mut fx = Effects::<Quiet>::with_ops_max(20);
        for round in 0..2 {
            for i in 0..20 {
                fx.room_for(1);
                assert!(fx.ops.capacity() <= 20, "round {round}, op {i}");
                fx.ops.push(Op::CancelTimer(super::TimerId(i)));
            }
            let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                fx.room_for(1);
            }))
            .expect_err("the 21st operation stops the callback");
            assert!(stopped.is::<OpsLimitReached>());
            fx.ops.clear(); // the next callback keeps the room
        }
        fx.room_for(20);
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fx.room_for(21);
        }))
        .expect_err("21 at once is past the limit");
        assert!(stopped.is::<OpsLimitReached>());
    }
}
