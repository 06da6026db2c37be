//! Engines execute a scenario: the native discrete-event engine ([`native`]), the turmoil
//! engine ([`turmoil`]) and, in builds with `RUSTFLAGS="--cfg madsim"`, the madsim engine
//! (`madsim`) run the very same [`Process`] code. Both share the recording and
//! checking machinery of this module, so a scenario's verdict does not depend on the engine
//! (traces may differ in timing; properties do not).

pub mod bare;
pub mod explore;
#[cfg(madsim)]
pub mod madsim;
pub mod native;
mod queue;
#[cfg(any(feature = "turmoil", madsim))]
mod socket;
mod timers;
#[cfg(feature = "turmoil")]
pub mod turmoil;

/// True in builds with `RUSTFLAGS="--cfg madsim"`, which have the madsim engine.
pub const MADSIM: bool = cfg!(madsim);

/// Why a build without `--cfg madsim` cannot run the madsim engine, and how to get one.
pub const MADSIM_MISSING: &str = "the madsim engine is not in this build: it was built \
    without --cfg madsim; build the binary again with RUSTFLAGS=\"--cfg madsim\" and a \
    target dir of its own (Sincro's own: RUSTFLAGS=\"--cfg madsim\" cargo run --release \
    --target-dir target/madsim -- run SCENARIO --engine madsim; a crate of yours: the same \
    with the features and binary it builds, e.g. --features cli --bin lease-sincro; its \
    tests: RUSTFLAGS=\"--cfg madsim\" cargo test --target-dir target/madsim)";

use crate::check::{Checker, Violation};
use crate::clock::{HwClock, SoftClock};
use crate::process::{Observation, Process};
use crate::rng::{stream, SimRng};
use crate::scenario::{EngineKind, Scenario, ScenarioError};
use crate::trace::{Event, EventKind, Text, Trace};
use crate::{NodeId, NS_PER_MS};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::rc::Rc;

/// How to run: what to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Keep every event (with rendered messages) in [`Outcome::trace`].
    pub record_trace: bool,
    /// Render each message, timer and input of the trace as its type word only (`Request` of
    /// `Request { ts: 3 }`, see [`type_word`](crate::trace::type_word)), each word shared:
    /// for a trace read only for what kinds of events it holds (a pilot run listing its
    /// moments), it spares rendering everything in full. The native engine honours it; the
    /// others render in full (the type word of either is the same).
    pub type_words_only: bool,
    /// A run that holds none of the events a checker reads could not judge it: its pass
    /// would be a pass on nothing (a mutual exclusion run with no request). Honoured by every
    /// algorithm described with a `Spec` (its checkers watch for their evidence as the events
    /// pass, trace or none).
    pub require_evidence: bool,
}

impl RunOptions {
    /// Options that record the trace or not, messages rendered in full.
    pub const fn new(record_trace: bool) -> Self {
        RunOptions {
            record_trace,
            type_words_only: false,
            require_evidence: false,
        }
    }

    /// The same options, a checker that saw none of the events it reads reporting *could not
    /// judge* ([`RunOptions::require_evidence`]).
    pub const fn requiring_evidence(self) -> Self {
        RunOptions {
            require_evidence: true,
            ..self
        }
    }

    /// The same options, messages, timers and inputs rendered as their type words only.
    pub const fn type_words_only(self) -> Self {
        RunOptions {
            type_words_only: true,
            ..self
        }
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions::new(true)
    }
}

/// The verdict of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every checked property held.
    Pass,
    /// A property was violated.
    Violation(Violation),
    /// The algorithm panicked.
    Panic {
        /// The node whose callback panicked.
        node: NodeId,
        /// Global time, ns.
        t_ns: u64,
        /// The panic message.
        message: String,
    },
    /// A run limit was hit (the run was cut short; nothing was judged after).
    LimitExceeded {
        /// Which limit and its value.
        limit: String,
    },
    /// No property was violated, but a checker could not judge the run (it ended before the
    /// property could be decided, or a limit of the checker was reached): never a pass.
    Unjudged {
        /// The property that could not be judged.
        property: String,
        /// Why.
        reason: String,
    },
}

impl Verdict {
    /// Short label: `pass`, `violation:<property>`, `panic`, `limit_exceeded`.
    pub fn label(&self) -> String {
        match self {
            Verdict::Pass => "pass".into(),
            Verdict::Violation(v) => format!("violation:{}", v.property),
            Verdict::Panic { .. } => "panic".into(),
            Verdict::LimitExceeded { .. } => "limit_exceeded".into(),
            Verdict::Unjudged { property, .. } => format!("unjudged:{property}"),
        }
    }

    /// True for [`Verdict::Pass`].
    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }

    /// True for a run stopped before its end by a stop request ([`stoppable`]): it says
    /// nothing of the algorithm.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Verdict::Unjudged { property, .. } if property == INTERRUPTED)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Pass => write!(f, "PASS: every checked property held"),
            Verdict::Violation(v) => write!(f, "VIOLATION ({:?}): {v}", v.class),
            Verdict::Panic {
                node,
                t_ns,
                message,
            } => {
                write!(
                    f,
                    "PANIC in node {node} at {:.3} ms: {message}",
                    *t_ns as f64 / 1e6
                )
            }
            Verdict::LimitExceeded { limit } => write!(f, "LIMIT EXCEEDED: {limit}"),
            Verdict::Unjudged { property, reason } => {
                write!(f, "COULD NOT JUDGE {property}: {reason}")
            }
        }
    }
}

/// Counters of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Events processed (deliveries, timers, inputs, faults, starts).
    pub events: u64,
    /// Messages sent.
    pub sent: u64,
    /// Messages delivered.
    pub delivered: u64,
    /// Messages dropped (loss, partition, crashed destination...).
    pub dropped: u64,
    /// Timers fired.
    pub timers: u64,
    /// Largest number of messages in flight at once.
    pub max_in_flight: u64,
    /// Global time at which the run ended, ns.
    pub end_t_ns: u64,
}

/// The result of a run.
#[derive(Debug)]
pub struct Outcome {
    /// Pass, violation, panic or limit.
    pub verdict: Verdict,
    /// The trace, when recorded.
    pub trace: Option<Trace>,
    /// Counters.
    pub stats: Stats,
}

/// Builds the process of a node (at start and at each restart).
pub type Factory<P> = Rc<dyn Fn(NodeId) -> P>;

/// Runs `scenario` on the engine it names.
///
/// A panic outside the nodes' callbacks (those are caught one by one: [`Verdict::Panic`]) —
/// in a checker's `on_event` or `finish`, or in the node factory — ends the run as
/// [`Verdict::Unjudged`] of the pseudo-property [`HARNESS_PANIC`], with the panic's message,
/// instead of unwinding through a campaign's worker and losing the seed that caused it. A
/// broken invariant of the engine itself ends it so too, as [`ENGINE_INVARIANT`].
pub fn run<P: Process>(
    scenario: &Scenario,
    factory: Factory<P>,
    checkers: Vec<Box<dyn Checker>>,
    options: RunOptions,
) -> Result<Outcome, ScenarioError> {
    let traced = options.record_trace;
    // Marked as the algorithm's code: a panic of a checker or of the node factory is reported
    // in the verdict with its place, and kept quiet (each printed its backtrace, 18 of them
    // for one failure shrunk, under RUST_BACKTRACE=1).
    in_callback(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_on_engine(scenario, factory, checkers, options)
        }))
    })
    .unwrap_or_else(|payload| {
        let message = panic_message(&*payload);
        let verdict = if engine_bug_caught() {
            Verdict::Unjudged {
                property: ENGINE_INVARIANT.to_string(),
                reason: engine_bug_reason(&message),
            }
        } else {
            Verdict::Unjudged {
                property: HARNESS_PANIC.to_string(),
                reason: format!(
                    "the run panicked outside the nodes' callbacks (a checker's on_event or \
                     finish, or the node factory), so nothing was judged: {message}"
                ),
            }
        };
        Ok(Outcome {
            verdict,
            trace: traced.then(|| Trace::new(scenario.nodes, Vec::new())),
            stats: Stats::default(),
        })
    })
}

/// The property a run that panicked outside the nodes' callbacks could not judge (see
/// [`run`]).
pub const HARNESS_PANIC: &str = "checker_or_factory_panic";

/// The property a run stopped by a broken invariant of the engine itself could not judge
/// (see [`run`]): a bug in Sincro, reported as such with the scenario that replays it, never
/// blamed on the algorithm or its checkers (it was, as [`HARNESS_PANIC`], until stop 84).
pub const ENGINE_INVARIANT: &str = "engine_invariant";

/// The pseudo-property of a run stopped before its end by a stop request ([`stoppable`]):
/// [`Verdict::Unjudged`] of it, never a pass and never a violation; a campaign does not
/// count such a run.
pub const INTERRUPTED: &str = "interrupted";

/// Engines look at the stop flag once per this many steps (a thread-local read and an
/// atomic load: nothing measurable at that rate), and turmoil once per this many ticks.
pub const STOP_POLL_STEPS: u64 = 1024;

/// What stops the runs on a thread (see [`stoppable_until`]): a flag (null: none) and a
/// wall-clock deadline.
#[derive(Clone, Copy)]
struct StopWhen {
    flag: *const std::sync::atomic::AtomicBool,
    deadline: Option<std::time::Instant>,
}

thread_local! {
    /// What stops the runs on this thread, set by [`stoppable_until`] for the length of its
    /// borrow of the flag.
    static STOP_WHEN: std::cell::Cell<StopWhen> = const {
        std::cell::Cell::new(StopWhen { flag: std::ptr::null(), deadline: None })
    };
}

/// Runs `f` with the runs it makes on this thread stoppable by `flag`: once the flag is set,
/// a run in flight ends within [`STOP_POLL_STEPS`] steps (or ticks) as
/// [`Verdict::Unjudged`] of [`INTERRUPTED`], its recorded trace ending in a `cut` event,
/// instead of going on to its end (a long turmoil run took minutes after Ctrl-C). The
/// `sincro` command line sets its signal flag so around a campaign's runs; a library user
/// may do the same with a flag of their own. Nested calls restore the outer flag.
pub fn stoppable<R>(flag: &std::sync::atomic::AtomicBool, f: impl FnOnce() -> R) -> R {
    stoppable_until(flag, None, f)
}

/// [`stoppable`], the runs also stopped once `deadline` (wall clock) has passed: a campaign's
/// time budget ends the run in flight too. Only a run's *stopping* reads the clock, and a
/// stopped run is "interrupted", which no campaign counts: what a counted run does never
/// depends on the time.
pub fn stoppable_until<R>(
    flag: &std::sync::atomic::AtomicBool,
    deadline: Option<std::time::Instant>,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore(StopWhen);
    impl Drop for Restore {
        fn drop(&mut self) {
            STOP_WHEN.with(|c| c.set(self.0));
        }
    }
    let when = StopWhen {
        flag: std::ptr::from_ref(flag),
        deadline,
    };
    let _restore = Restore(STOP_WHEN.with(|c| c.replace(when)));
    f()
}

/// Whether the runs on this thread were asked to stop (see [`stoppable_until`]).
pub(crate) fn stop_requested() -> bool {
    STOP_WHEN.with(|c| {
        let when = c.get();
        // SAFETY: the pointer is set only by `stoppable_until` from a reference it borrows
        // for the whole time the pointer is set, and restored when that borrow ends (a drop
        // guard, so a panic restores it too): while it is non-null it points to a live flag.
        (!when.flag.is_null() && unsafe { &*when.flag }.load(std::sync::atomic::Ordering::Relaxed))
            || when
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
    })
}

/// The verdict of a run stopped at `t_ns` by a stop request: [`Verdict::Unjudged`] of
/// [`INTERRUPTED`] (an engine of a user's own, or a model such as Ω's shared registers, gives
/// it too).
pub fn interrupted(t_ns: u64) -> Verdict {
    Verdict::Unjudged {
        property: INTERRUPTED.to_string(),
        reason: format!(
            "the run was stopped at {:.3} ms, before its end, by a stop request (Ctrl-C, \
             SIGTERM, SIGHUP or the time budget): nothing after that was judged",
            t_ns as f64 / 1e6
        ),
    }
}

fn run_on_engine<P: Process>(
    scenario: &Scenario,
    factory: Factory<P>,
    checkers: Vec<Box<dyn Checker>>,
    options: RunOptions,
) -> Result<Outcome, ScenarioError> {
    match scenario.engine {
        EngineKind::Native => Ok(native::Sim::new(scenario, factory, checkers, options)?.run()),
        #[cfg(feature = "turmoil")]
        EngineKind::Turmoil => turmoil::run(scenario, factory, checkers, options),
        #[cfg(not(feature = "turmoil"))]
        EngineKind::Turmoil => Err(ScenarioError(
            "this build has no turmoil engine (feature `turmoil`)".into(),
        )),
        #[cfg(madsim)]
        EngineKind::Madsim => madsim::run(scenario, factory, checkers, options),
        #[cfg(not(madsim))]
        EngineKind::Madsim => {
            let _ = (factory, checkers, options);
            Err(ScenarioError(MADSIM_MISSING.into()))
        }
    }
}

/// The software clock of every node at the start of `sc` (offsets and drifts drawn from the
/// seed, or set per node), exactly as both engines build them: a checker replays clock faults
/// and the algorithm's adjustments on these to know every clock at every instant.
pub fn initial_clocks(sc: &Scenario) -> Vec<SoftClock> {
    let mut crng = SimRng::derive(sc.seed, stream::CLOCKS);
    let rho_ppb = (sc.clocks.rho_ppm * 1000.0).round() as i64;
    let off_max_ns = (sc.clocks.offset_ms_max * 1e6).round() as i64;
    (0..sc.nodes)
        .map(|node| {
            // Always draw both values so an explicit setting never shifts other nodes' draws.
            let off = crng.range_u64(0, 2 * off_max_ns as u64) as i64 - off_max_ns;
            let drift = crng.range_u64(0, 2 * rho_ppb as u64) as i64 - rho_ppb;
            let (off, drift) = match sc.clocks.nodes.iter().find(|c| c.node == node) {
                Some(c) => (
                    (c.offset_ms * 1e6).round() as i64,
                    (c.drift_ppm * 1000.0).round() as i64,
                ),
                None => (off, drift),
            };
            SoftClock::new(HwClock::new(off, drift))
        })
        .collect()
}

/// What both engines derive from a scenario before running it.
pub(crate) struct Prepared<P: Process> {
    pub clocks: Vec<SoftClock>,
    pub rngs: Vec<SimRng>,
    /// (global time ns, node, input), in scenario order.
    pub inputs: Vec<(u64, NodeId, P::Input)>,
    pub end_ns: u64,
}

impl<P: Process> Prepared<P> {
    pub fn new(sc: &Scenario) -> Result<Self, ScenarioError> {
        sc.validate()?;
        let clocks = initial_clocks(sc);
        let rngs = (0..sc.nodes)
            .map(|n| SimRng::derive(sc.seed, stream::NODE_BASE + n as u64))
            .collect();
        let inputs = sc
            .workload
            .iter()
            .enumerate()
            .map(|(i, w)| {
                // the typed value itself, or decoded from the borrowed JSON
                let input = w.input.decode::<P::Input>().map_err(|e| {
                    ScenarioError(format!(
                        "workload[{i}].input is not an input of {}: {e}",
                        sc.algorithm
                    ))
                })?;
                Ok((w.at_ms * NS_PER_MS, w.node, input))
            })
            .collect::<Result<Vec<_>, ScenarioError>>()?;
        Ok(Prepared {
            clocks,
            rngs,
            inputs,
            end_ns: sc.duration_ms * NS_PER_MS,
        })
    }
}

/// Most type words longer than [`Text::INLINE_MAX`] a recorder shares (each message of a
/// shared word reuses one allocation; shorter words are held in place); a run has a few dozen
/// message types.
const TYPE_WORDS_SHARED_MAX: usize = 64;

/// A `Debug` rendering's sink that keeps its type word and stops it there: it takes text up
/// to the first character that cannot be part of a word and then fails, which ends the
/// formatting (a derived `Debug` writes the type's name first).
struct TypeWord<'a>(&'a mut String);

impl fmt::Write for TypeWord<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = crate::trace::word_prefix_len(s);
        self.0.push_str(&s[..end]);
        if end < s.len() || self.0.len() > crate::trace::TYPE_WORD_BYTES_MAX {
            return Err(fmt::Error);
        }
        Ok(())
    }
}

/// Event ids, trace recording and online checking, shared by the engines.
pub(crate) struct Recorder {
    pub record: bool,
    pub observing: bool,
    pub next_id: u64,
    pub trace: Option<Trace>,
    pub checkers: Vec<Box<dyn Checker>>,
    /// Which of `checkers` each event is passed to.
    gate: crate::check::Gate,
    pub verdict: Option<Verdict>,
    /// Reused buffer for rendering messages.
    buf: String,
    /// `RunOptions::type_words_only`, and the type words rendered so far (shared).
    type_words: Option<Vec<Text>>,
    /// `limits.max_trace_bytes`, and the estimated size of the trace so far.
    max_trace_bytes: u64,
    trace_bytes: u64,
    /// Why the recorded trace stopped growing before the run ended, if it did, and the time
    /// of the first event left out.
    cut: Option<(String, u64)>,
    /// The global time of the last event emitted (recorded or not).
    last_t_ns: u64,
    /// The last send recorded: its id, node and text (a broadcast's next copy takes its
    /// text, and so does the delivery of the message sent last, the usual one of a ring).
    last_send: Option<(u64, NodeId, Text)>,
    /// Whether sends are recorded to be rendered when the trace is read
    /// ([`Recorder::render_texts_later`]).
    later: bool,
    /// The last send recorded so: its id, node and message index (a broadcast's next copy
    /// shares the message).
    last_later: Option<(u64, NodeId, u64)>,
}

/// The estimated heap size of an event's texts (its fixed size is counted apart). A message
/// text is counted once, at its send (deliveries share it).
#[inline]
fn text_bytes(kind: &EventKind) -> usize {
    match kind {
        EventKind::Send { msg, .. } => msg.len(),
        EventKind::Timer { timer, .. } => timer.len(),
        EventKind::Input { input, .. } => input.len(),
        EventKind::Panic { message, .. } => message.len(),
        EventKind::Observe { .. } => 64,
        _ => 0,
    }
}

impl Recorder {
    /// Renders `value` with `Debug` into a text (held in place up to [`Text::INLINE_MAX`]
    /// bytes, one shared allocation past that), or the empty text when the trace is not
    /// recorded; only its type word with [`RunOptions::type_words_only`], a long word shared by
    /// every event of that type.
    #[inline]
    pub fn render(&mut self, value: &dyn fmt::Debug) -> Text {
        if !self.record {
            return Text::EMPTY;
        }
        self.write_to_buf(value);
        match &mut self.type_words {
            // a short word is kept in place: nothing to share
            Some(words) if self.buf.len() > Text::INLINE_MAX => {
                match words.iter().find(|w| w.as_str() == self.buf) {
                    Some(word) => word.clone(),
                    None if words.len() < TYPE_WORDS_SHARED_MAX => {
                        let word = Text::from(self.buf.as_str());
                        words.push(word.clone());
                        word
                    }
                    // Words past the first few (a message that is a bare number renders as one
                    // word per value) are not shared: the search stays short.
                    None => Text::from(self.buf.as_str()),
                }
            }
            _ => Text::from(self.buf.as_str()),
        }
    }

    /// [`Recorder::render`] of a copy of the message `from` sent just before (a broadcast's
    /// next copy): that send's text, shared, when it is among the trace's last two events (a
    /// drop may follow a send), so a broadcast is rendered once for all its copies; otherwise
    /// `value` rendered.
    #[inline]
    pub fn render_copy(&mut self, from: NodeId, value: &dyn fmt::Debug) -> Text {
        if !self.record {
            return Text::EMPTY;
        }
        let last = self.last_send.as_ref().and_then(|(id, node, text)| {
            // among the last two events emitted, and recorded (once the trace stops growing at
            // its size limit, the send it recorded last is not the message being sent)
            (*node == from && self.next_id - id <= 2).then(|| text.clone())
        });
        match last {
            Some(text) => text,
            None => self.render(value),
        }
    }

    /// [`Recorder::render`] for a timer's or an input's label (an owned string).
    pub fn label(&mut self, value: &dyn fmt::Debug) -> String {
        if !self.record {
            return String::new();
        }
        self.write_to_buf(value);
        self.buf.clone()
    }

    /// `value` rendered into `buf`: in full, or its type word only.
    fn write_to_buf(&mut self, value: &dyn fmt::Debug) {
        use std::fmt::Write as _;
        self.buf.clear();
        if self.type_words.is_some() {
            let _ = write!(TypeWord(&mut self.buf), "{value:?}");
            // The sink kept word characters only: the type word is the text cut to its
            // longest length (at a character boundary), with no second scan.
            debug_assert_eq!(crate::trace::word_prefix_len(&self.buf), self.buf.len());
            let mut word = self.buf.len().min(crate::trace::TYPE_WORD_BYTES_MAX);
            while !self.buf.is_char_boundary(word) {
                word -= 1;
            }
            self.buf.truncate(word);
        } else {
            let _ = write!(self.buf, "{value:?}");
        }
    }

    pub fn new(
        nodes: usize,
        checkers: Vec<Box<dyn Checker>>,
        options: RunOptions,
        max_trace_bytes: u64,
    ) -> Self {
        let observing = options.record_trace || !checkers.is_empty();
        Recorder {
            record: options.record_trace,
            observing,
            next_id: 0,
            // a full recording is packed; a pilot's trace of type words, read once whole by
            // its moments, is kept as events
            trace: options.record_trace.then(|| {
                if options.type_words_only {
                    Trace::with_spare_buffer(nodes)
                } else {
                    Trace::packed(nodes)
                }
            }),
            gate: crate::check::Gate::new(&checkers),
            checkers,
            verdict: None,
            buf: String::new(),
            type_words: options.type_words_only.then(Vec::new),
            max_trace_bytes,
            trace_bytes: 0,
            cut: None,
            last_t_ns: 0,
            last_send: None,
            later: false,
            last_later: None,
        }
    }

    /// Lets the engine record sends to be rendered when the trace is read
    /// ([`Recorder::emit_send_later`]) when nothing else reads their texts: a full recording
    /// (not a pilot's type words) whose checkers ask for no sends or deliveries. Its
    /// deliveries then carry the empty text ([`Recorder::sent_text`]), which names the send.
    pub fn render_texts_later(&mut self) {
        let texts_read = crate::check::Interest::SEND.or(crate::check::Interest::DELIVER);
        self.later = self.record
            && self.type_words.is_none()
            && self
                .checkers
                .iter()
                .all(|c| !c.interest().intersects(texts_read));
    }

    /// Whether a send may be recorded to be rendered when the trace is read
    /// ([`Recorder::emit_send_later`]), while the trace still grows.
    #[inline]
    pub fn defers_texts(&self) -> bool {
        self.later && self.cut.is_none()
    }

    /// Whether messages are rendered as they are sent: the engine renders none later, or
    /// something reads their texts ([`Recorder::render_texts_later`]). When not, a send the
    /// trace no longer records (it was cut) is not rendered at all.
    #[inline]
    pub fn texts_read(&self) -> bool {
        !self.later
    }

    /// The message index of the send `from` recorded just before to be rendered later, when
    /// it is among the trace's last two events (a broadcast's next copy shares it, as
    /// [`Recorder::render_copy`] shares a text).
    #[inline]
    pub fn later_copy(&self, from: NodeId) -> Option<u64> {
        self.last_later
            .and_then(|(id, node, k)| (node == from && self.next_id - id <= 2).then_some(k))
    }

    /// Records the send of message `msg_id` from `from` to `to` at `t_ns` without its text:
    /// the trace renders message `k` of the messages the engine gives it when the run ends
    /// ([`Trace::set_later`]). Counted in `limits.max_trace_bytes` at `msg_bytes`, the
    /// bytes of the message's data (`data_size`). Only while [`Recorder::defers_texts`]; the
    /// event's id.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn emit_send_later(
        &mut self,
        t_ns: u64,
        from: NodeId,
        local_ns: i64,
        msg_id: u64,
        to: NodeId,
        k: u64,
        msg_bytes: usize,
    ) -> u64 {
        debug_assert!(
            self.defers_texts(),
            "a send rendered later while texts are read"
        );
        let id = self.count(t_ns);
        let ev = Event {
            id,
            t_ns,
            node: Some(from),
            local_ns: Some(local_ns),
            kind: EventKind::Send {
                msg_id,
                to,
                msg: Text::EMPTY,
            },
        };
        // (its text, the empty one, is kept in place: the event owns nothing)
        self.record_owning_nothing(ev, Some((k, msg_bytes)), true)
    }

    /// Records the delivery of message `msg_id` (sent by event `sent` of node `from`, its
    /// text `msg`) to node `to`, whose clock reads `local_ns`, at `t_ns`: [`Recorder::emit`]
    /// of a [`EventKind::Deliver`], dropped without the drop of every kind when its text is
    /// kept in place.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn emit_deliver(
        &mut self,
        t_ns: u64,
        to: NodeId,
        local_ns: i64,
        msg_id: u64,
        from: NodeId,
        sent: u64,
        msg: Text,
    ) -> u64 {
        let owns_nothing = msg.is_inline();
        let id = self.count(t_ns);
        let ev = Event {
            id,
            t_ns,
            node: Some(to),
            local_ns: Some(local_ns),
            kind: EventKind::Deliver {
                msg_id,
                from,
                sent,
                msg,
            },
        };
        self.record_owning_nothing(ev, None, owns_nothing)
    }

    /// [`Recorder::record`] of `ev`, which owns nothing to drop when `owns_nothing` (its
    /// fields are numbers, its text kept in place): then it is not dropped, where the drop of
    /// every kind reloaded the kind just stored (`perf annotate`: two thirds of that drop on
    /// the load, 2 % of a traced token ring).
    #[inline(always)]
    fn record_owning_nothing(
        &mut self,
        ev: Event,
        later: Option<(u64, usize)>,
        owns_nothing: bool,
    ) -> u64 {
        let id = ev.id;
        if self.record_ref(&ev, later) {
            if let Some(t) = &mut self.trace {
                t.push(ev);
                return id;
            }
        }
        if owns_nothing {
            std::mem::forget(ev);
        }
        id
    }

    /// Records that message `msg_id` from `from` to `to` was dropped at `t_ns` for `reason`
    /// (when observing); the caller counts it in its stats.
    pub fn drop_msg(
        &mut self,
        t_ns: u64,
        msg_id: u64,
        from: NodeId,
        to: NodeId,
        reason: crate::net::DropReason,
    ) {
        if self.observing {
            self.emit(
                t_ns,
                None,
                None,
                EventKind::Drop {
                    msg_id,
                    from,
                    to,
                    reason,
                },
            );
        }
    }

    /// Whether an event of `kind` at `t_ns` is read by anyone: the trace, or a checker (of
    /// that kind, or woken by then) while the run has no verdict. One read by no one need
    /// not be made: [`Recorder::count`] gives it its id, as [`Recorder::emit`] would.
    #[inline(always)]
    pub fn wants(&self, kind: crate::check::Interest, t_ns: u64) -> bool {
        self.record || (self.verdict.is_none() && self.gate.wants(kind, t_ns))
    }

    /// Counts an event no one reads ([`Recorder::wants`]) at `t_ns`: its id, the next, as if
    /// emitted (later events and the checkers' evidence keep the ids a recorded run has).
    #[inline(always)]
    pub fn count(&mut self, t_ns: u64) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.last_t_ns = t_ns;
        id
    }

    /// Whether an event of `kind` at `t_ns` is to be made: `None` when it is (the run
    /// observes, and the trace or a checker reads it: [`Recorder::wants`]); otherwise `Some`
    /// of the id it was [counted](Recorder::count) under, or 0 when the run observes nothing.
    #[inline(always)]
    pub fn unless_wanted(&mut self, kind: crate::check::Interest, t_ns: u64) -> Option<u64> {
        if !self.observing {
            return Some(0);
        }
        if self.wants(kind, t_ns) {
            return None;
        }
        Some(self.count(t_ns))
    }

    /// Records an event (when observing) and returns its id.
    #[inline(always)]
    pub fn emit(
        &mut self,
        t_ns: u64,
        node: Option<NodeId>,
        local_ns: Option<i64>,
        kind: EventKind,
    ) -> u64 {
        self.emit_with(t_ns, node, local_ns, kind, None)
    }

    /// [`Recorder::emit`]; `later`: a send recorded to be rendered later, its message index
    /// and size ([`Recorder::emit_send_later`]).
    #[inline(always)]
    fn emit_with(
        &mut self,
        t_ns: u64,
        node: Option<NodeId>,
        local_ns: Option<i64>,
        kind: EventKind,
        later: Option<(u64, usize)>,
    ) -> u64 {
        let id = self.count(t_ns);
        let ev = Event {
            id,
            t_ns,
            node,
            local_ns,
            kind,
        };
        self.record(ev, later)
    }

    /// Records observation `obs` of node `node` (local reading `local_ns`) at `t_ns`, moved
    /// out of where the callback put it, and returns its event id. Each variant is moved
    /// field by field into the event built in place: copied whole just after the callback
    /// wrote it, its wide loads stalled on the callback's narrow stores (two fifths of
    /// `Host::emit` on a traced token ring, `perf annotate`).
    ///
    /// # Safety
    /// `obs` is never used or dropped again (it is moved out).
    #[inline(always)]
    pub(crate) unsafe fn emit_observation(
        &mut self,
        t_ns: u64,
        node: NodeId,
        local_ns: i64,
        obs: &mut Observation,
    ) -> u64 {
        let id = self.count(t_ns);
        macro_rules! record_each {
            ($($variant:ident { $($field:ident),* }),* $(,)?) => {
                match obs {
                    $(Observation::$variant { $($field),* } => {
                        let ev = Event {
                            id,
                            t_ns,
                            node: Some(node),
                            local_ns: Some(local_ns),
                            // SAFETY: the caller gives up the observation: each field is
                            // moved out once, and the original is never dropped.
                            kind: EventKind::Observe {
                                obs: Observation::$variant {
                                    $($field: unsafe { std::ptr::read($field) }),*
                                },
                            },
                        };
                        self.record_observation(&ev);
                        // Dropped field by field, where its variant is known: nothing to do
                        // for most (a whole event's drop walks every kind: 46 instructions).
                        let Event {
                            kind: EventKind::Observe {
                                obs: Observation::$variant { $($field),* },
                            },
                            ..
                        } = ev
                        else {
                            unreachable!("the event built just above")
                        };
                        let _fields = ($($field,)*);
                    })*
                }
            };
        }
        crate::process::observation_variants!(record_each);
        id
    }

    /// [`Recorder::record`] of an observation its caller keeps and drops (one copy of it for
    /// every variant of [`Recorder::emit_observation`]).
    #[inline(never)]
    fn record_observation(&mut self, ev: &Event) {
        if self.record_ref(ev, None) {
            if let Some(t) = &mut self.trace {
                t.push(ev.clone());
            }
        }
    }

    /// Records event `ev`, given its id by [`Recorder::count`] (see [`Recorder::emit_with`]),
    /// and returns the id.
    #[inline(always)]
    fn record(&mut self, ev: Event, later: Option<(u64, usize)>) -> u64 {
        self.record_owning_nothing(ev, later, false)
    }

    /// [`Recorder::record`] of an event the caller keeps (and drops); true when the trace is
    /// unpacked and is still to take the event itself.
    #[inline(always)]
    fn record_ref(&mut self, ev: &Event, later: Option<(u64, usize)>) -> bool {
        let (id, t_ns) = (ev.id, ev.t_ns);
        if self.verdict.is_none() {
            if let Err(v) = self.gate.pass(&mut self.checkers, ev) {
                self.verdict = Some(Verdict::Violation(v));
            }
        }
        if let Some(t) = &mut self.trace {
            let text = match later {
                Some((_, msg_bytes)) => msg_bytes,
                None => text_bytes(&ev.kind),
            };
            self.trace_bytes += (std::mem::size_of::<Event>() + text) as u64;
            if self.trace_bytes > self.max_trace_bytes {
                // The trace stops growing and the run goes on to the verdict an untraced run
                // gets: recording must not change it (`run` passed where `replay`, which
                // records, hit the limit). A full trace ends with a `cut` event saying so.
                if self.type_words.is_none() && self.cut.is_none() {
                    let reason = format!(
                        "limits.max_trace_bytes = {} reached at {:.3} ms",
                        self.max_trace_bytes,
                        t_ns as f64 / 1e6
                    );
                    self.cut = Some((reason, t_ns));
                }
                // no send recorded from here on is the last one sent
                self.last_send = None;
                self.last_later = None;
                return false;
            }
            if let (EventKind::Send { msg, .. }, Some(from)) = (&ev.kind, ev.node) {
                match later {
                    // (a send rendered later has no text to keep: `sent_text` and
                    // `render_copy` do not read `last_send` while sends are rendered later,
                    // and copying its empty text just made stalled on the stores that made
                    // it, a third of the traced ring's `call`: `perf annotate`)
                    Some((k, _)) => self.last_later = Some((id, from, k)),
                    None => {
                        self.last_send = Some((id, from, msg.clone()));
                        self.last_later = None;
                    }
                }
            }
            if !t.is_packed() {
                return true;
            }
            t.push_ref_later(ev, later.map(|(k, _)| k));
        }
        false
    }

    /// The rendered message of send event `sent` (shared, not copied), when recording: the
    /// last send's kept at hand (a ring delivers the message sent last), any other read back
    /// from the trace.
    #[inline]
    pub fn sent_text(&self, sent: u64) -> Text {
        if self.later {
            // every send recorded is rendered later: a delivery names it with no text
            return Text::EMPTY;
        }
        if let Some((id, _, text)) = &self.last_send {
            if *id == sent {
                return text.clone();
            }
        }
        self.trace
            .as_ref()
            .and_then(|t| t.send_text(usize::try_from(sent).ok()?))
            .unwrap_or(Text::EMPTY)
    }

    /// Ends the run at `end_ns`: lets checkers judge what is open and returns the verdict.
    pub fn finish(&mut self, end_ns: u64) -> Verdict {
        let limit = match &self.verdict {
            Some(Verdict::LimitExceeded { limit }) => Some(limit.clone()),
            _ => None,
        };
        if let Some(Verdict::Unjudged { reason, .. }) =
            self.verdict.as_ref().filter(|v| v.is_interrupted())
        {
            // Stopped on request: nothing is judged, not even the instants complete (the
            // verdict stays "interrupted", which no campaign counts).
            let reason = reason.clone();
            self.end_cut_trace(end_ns, Some(reason));
            return self.verdict.clone().unwrap_or(Verdict::Pass);
        }
        if limit.is_some() && self.last_t_ns < end_ns {
            // A run limit stopped the run at `end_ns`, after every event emitted: their
            // instants are complete, and the checkers that judge an instant once it is over
            // (mutual exclusion, leader uniqueness, …) judge them, as `check` of its trace
            // does. A violation there came before the limit: it is the run's verdict.
            if let Some(v) = crate::check::finish_all(&mut self.checkers, end_ns) {
                self.verdict = Some(Verdict::Violation(v));
            }
        }
        if self.verdict.is_none() {
            if let Some(v) = crate::check::finish_all(&mut self.checkers, end_ns) {
                self.verdict = Some(Verdict::Violation(v));
            }
        }
        if self.verdict.is_none() {
            self.verdict = crate::check::unjudged(&self.checkers);
        }
        self.end_cut_trace(end_ns, limit);
        self.verdict.clone().unwrap_or(Verdict::Pass)
    }

    /// Ends a full recorded trace that stops before the run's end with a `cut` event: the
    /// trace reached `limits.max_trace_bytes`, or a run limit stopped the run. A checker
    /// reading the trace later must not judge past it (`check` would have failed a liveness
    /// property the run never got to).
    fn end_cut_trace(&mut self, end_ns: u64, limit: Option<String>) {
        if self.type_words.is_some() {
            return;
        }
        let (reason, run_stopped, cut_ns) = match (&self.cut, limit) {
            (Some((why, at_ns)), _) => (why.clone(), false, Some(*at_ns)),
            (None, Some(limit)) => (limit, true, None),
            _ => return,
        };
        let Some(t) = &mut self.trace else { return };
        // where the run stopped, or where the recording did: at the first event left out,
        // the time its reason gives (no earlier than the last event recorded)
        let last_ns = t.last_t_ns().unwrap_or(0);
        let t_ns = match cut_ns {
            Some(at_ns) => last_ns.max(at_ns),
            None => last_ns.max(end_ns),
        };
        let id = t.len() as u64;
        t.push(Event {
            id,
            t_ns,
            node: None,
            local_ns: None,
            kind: EventKind::Cut {
                reason,
                run_stopped,
            },
        });
    }
}

thread_local! {
    static IN_CALLBACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static LAST_LOCATION: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// Set by [`invariant_broken`] before it panics, taken by [`engine_bug_caught`].
    static ENGINE_BUG: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A callback of a process, as the engines deliver it.
pub(crate) enum Call<P: Process> {
    Start,
    Message(NodeId, P::Msg),
    Timer(P::Timer),
    Input(P::Input),
}

/// Why a callback did not return.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// It panicked: the message, with its location when the panic hook is installed.
    Panic(String),
    /// It asked for more than `limits.max_ops_per_callback` operations (this many).
    OpsLimit(usize),
}

/// Runs one callback of `proc`, catching a panic inside it, or its stop at
/// `limits.max_ops_per_callback`.
pub(crate) fn invoke<P: Process>(
    proc: &mut P,
    ctx: &mut crate::process::Ctx<'_, P>,
    call: Call<P>,
) -> Result<(), Stopped> {
    let ops_max = ctx.fx.ops_max;
    in_callback(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match call {
            Call::Start => proc.on_start(ctx),
            Call::Message(from, m) => proc.on_message(ctx, from, m),
            Call::Timer(t) => proc.on_timer(ctx, t),
            Call::Input(i) => proc.on_input(ctx, i),
        }))
    })
    .map_err(|payload| {
        if ENGINE_BUG.with(std::cell::Cell::get) {
            // not the callback's panic: the engine's own, reported as such where the run is
            // caught (the mark stays set for it)
            std::panic::resume_unwind(payload);
        }
        if payload.is::<crate::process::OpsLimitReached>() {
            return Stopped::OpsLimit(ops_max);
        }
        Stopped::Panic(panic_message(&*payload))
    })
}

/// What an engine does with the operations of a callback: the engine-specific half of the
/// callback core that every engine (native, explore, and the socket layer of turmoil and
/// madsim) shares through [`after_callback`]. Each engine builds its [`Ctx`] and calls
/// [`invoke`] itself (its process values live in different places); what happens once the
/// callback returns — a panic recorded, or the operations applied in program order, with
/// observations and clock adjustments recorded the same way — is the same code for all.
///
/// [`Ctx`]: crate::process::Ctx
pub(crate) trait Host<P: Process> {
    /// The current global time, ns.
    fn now_ns(&self) -> u64;
    /// The software clock reading of node `id` now (an event's local time).
    fn local_ns(&mut self, id: NodeId) -> i64;
    /// The run's recorder.
    fn rec(&mut self) -> &mut Recorder;
    /// The effects the callback wrote into: its operations buffer (kept between callbacks)
    /// and whether it stepped its clock.
    fn fx(&mut self) -> &mut crate::process::Effects<P>;
    /// Sends `msg` from `from` to `to` (routing, recording, limits: the engine's).
    fn send(&mut self, from: NodeId, to: NodeId, msg: P::Msg);
    /// [`Host::send`] of a copy of the message `from` sent just before (a broadcast's next
    /// copy): an engine may reuse that send's rendering. By default, a plain send.
    fn send_copy(&mut self, from: NodeId, to: NodeId, msg: P::Msg) {
        self.send(from, to, msg);
    }
    /// Sets timer `tid` of `id` to fire when its clock reads `deadline_local_ns`.
    fn set_timer(
        &mut self,
        id: NodeId,
        tid: crate::process::TimerId,
        deadline_local_ns: i64,
        timer: P::Timer,
    );
    /// Cancels timer `tid` of `id` (nothing if it already fired or was cancelled).
    fn cancel_timer(&mut self, id: NodeId, tid: crate::process::TimerId);
    /// The callback of `id` stepped or slewed its clock: its timers' global times moved.
    fn clock_changed(&mut self, id: NodeId);
    /// Node `id`'s software clock.
    fn clock_mut(&mut self, id: NodeId) -> &mut crate::clock::SoftClock;
    /// The messages sent so far in the run (those dropped included), and `limits.max_sent`.
    fn sent_and_limit(&self) -> (u64, u64);

    /// Records `kind` at node `id` now, with its local clock reading; the event's id.
    fn emit(&mut self, id: NodeId, kind: EventKind) -> u64 {
        let (now, local) = (self.now_ns(), self.local_ns(id));
        self.rec().emit(now, Some(id), Some(local), kind)
    }
}

/// The end of a callback of node `id` that returned `result` (see [`Host`]): a panic drops
/// the callback's operations and is recorded (a `Panic` event and verdict); otherwise its
/// operations are applied in program order.
#[inline]
pub(crate) fn after_callback<P: Process, H: Host<P>>(
    h: &mut H,
    id: NodeId,
    result: Result<(), Stopped>,
) {
    use crate::process::Op;
    // Taken back with the operations, whatever becomes of them.
    let any_step = std::mem::take(&mut h.fx().any_step);
    if let Err(Stopped::OpsLimit(most)) = result {
        // Like a panic, the callback did not finish: none of its operations is applied.
        h.fx().ops.clear();
        let t_ns = h.now_ns();
        h.rec().verdict.get_or_insert(Verdict::LimitExceeded {
            limit: format!(
                "limits.max_ops_per_callback = {most} operations (sends, timers, observations, \
                 clock changes) asked for by one callback of node {id} at {:.3} ms: a loop \
                 that never ends?",
                t_ns as f64 / 1e6
            ),
        });
        return;
    }
    if let Err(Stopped::Panic(message)) = result {
        h.fx().ops.clear();
        let t_ns = h.now_ns();
        h.emit(
            id,
            EventKind::Panic {
                message: message.clone(),
            },
        );
        h.rec().verdict = Some(Verdict::Panic {
            node: id,
            t_ns,
            message,
        });
        return;
    }
    if h.fx().ops.is_empty() {
        return;
    }
    let mut ops = std::mem::take(&mut h.fx().ops);
    let mut clock_changed = false;
    // A step changes the clock at once (the callback reads it after stepping), but what the
    // callback did before it happened before it: those events read the clock without the
    // step, which is applied again at its place in program order, and the clock the
    // callback left is put back at the end, exactly. (A Berkeley master's sends, made before
    // it stepped its clock back, were recorded at the stepped-back reading, listed before the
    // step: a backwards clock blamed on a send.) A slew changes no reading at its instant.
    // (`Effects::any_step` says whether to look: most callbacks step no clock.)
    debug_assert_eq!(
        any_step,
        ops.iter()
            .any(|op| matches!(op, Op::Clock(crate::process::ClockAdjust::Step, _)))
    );
    // (any step, even steps that add up to nothing: the events between them read the first)
    let after = any_step.then(|| {
        let steps = ops.iter().fold(0i64, |sum, op| match op {
            Op::Clock(crate::process::ClockAdjust::Step, d) => sum.saturating_add(*d),
            _ => sum,
        });
        let clock = h.clock_mut(id);
        let after = clock.clone();
        *clock = after.before_steps(steps);
        after
    });
    // Each operation is read where the callback wrote it, field by field, and moved out or
    // dropped there: moved out whole (`drain`), its wide loads stalled on the narrow stores
    // the callback had just made (a fifth of the native engine's `call` on a token ring,
    // `perf annotate`).
    let len = ops.len();
    // SAFETY: from here this loop owns elements `0..len`: each is moved out or dropped once
    // (the ones left when the loop breaks by `drop_ops`), and the vector, at length 0, drops
    // none. (A panic in the engine between leaks the rest, which is safe.)
    unsafe { ops.set_len(0) };
    let base = ops.as_mut_ptr();
    for i in 0..len {
        // SAFETY: `i < len`, an element not yet moved out or dropped.
        let op = unsafe { &mut *base.add(i) };
        if matches!(op, Op::Send(..) | Op::SendCopy(..)) && sent_limit_reached(h) {
            // The run ends here: the callback's later operations never happen.
            // SAFETY: elements `i..len` are neither moved out nor dropped yet.
            unsafe { drop_ops(base.add(i), len - i) };
            break;
        }
        match op {
            // SAFETY (each `read` and `take_observation` below): the element is given up
            // here, each field moved out once, and it is never dropped.
            Op::Send(to, msg) => h.send(id, *to, unsafe { std::ptr::read(msg) }),
            Op::SendCopy(to, msg) => h.send_copy(id, *to, unsafe { std::ptr::read(msg) }),
            Op::SetTimer {
                id: tid,
                deadline_local_ns,
                timer,
            } => h.set_timer(id, *tid, *deadline_local_ns, unsafe {
                std::ptr::read(timer)
            }),
            Op::CancelTimer(tid) => h.cancel_timer(id, *tid),
            Op::Observe(obs) => {
                if h.rec().observing {
                    let (now, local) = (h.now_ns(), h.local_ns(id));
                    unsafe { h.rec().emit_observation(now, id, local, obs) };
                } else if obs.owns_heap() {
                    // SAFETY: dropped once, never read again.
                    unsafe { std::ptr::drop_in_place(obs) };
                }
                // (the others own nothing to drop: no call to the drop of every variant)
            }
            &mut Op::Clock(how, delta_ns) => {
                clock_changed = true;
                if how == crate::process::ClockAdjust::Step && after.is_some() {
                    h.clock_mut(id).redo_step(delta_ns);
                }
                if h.rec().observing {
                    h.emit(id, EventKind::ClockAdjust { how, delta_ns });
                }
            }
        }
    }
    h.fx().ops = ops; // keep the allocation
    if let Some(after) = after {
        *h.clock_mut(id) = after;
    }
    if clock_changed {
        h.clock_changed(id);
    }
}

/// Drops the `n` operations from `first` on, in order.
///
/// # Safety
/// They are valid, not dropped or moved out yet, and never used again.
unsafe fn drop_ops<P: Process>(first: *mut crate::process::Op<P>, n: usize) {
    // SAFETY: the caller's.
    unsafe { std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(first, n)) }
}

/// Whether the run has sent `limits.max_sent` messages already: then the verdict (unless the
/// run already has one) says so, and the send asked for is not made.
fn sent_limit_reached<P: Process, H: Host<P>>(h: &mut H) -> bool {
    let (sent, most) = h.sent_and_limit();
    if sent < most {
        return false;
    }
    let t_ns = h.now_ns();
    h.rec().verdict.get_or_insert(Verdict::LimitExceeded {
        limit: format!(
            "limits.max_sent = {most} messages sent (those the network dropped included) \
             reached at {:.3} ms",
            t_ns as f64 / 1e6
        ),
    });
    true
}

/// Panics naming a broken engine invariant (of any engine; the panic's location says
/// which): a bug in Sincro, never in the algorithm under test (those panics are caught inside
/// callbacks and become a verdict). Checked always, in release builds too: they are cheap,
/// and a run that goes on past a broken invariant gives a wrong verdict silently.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn invariant_broken(what: &str, detail: String) -> ! {
    // Marked, so that where the panic is caught it is told from a checker's or the node
    // factory's, and the panic hook lets it through (see `engine_bug_caught`).
    ENGINE_BUG.with(|b| b.set(true));
    panic!("Sincro engine invariant broken: {what} ({detail})")
}

/// Whether the panic just caught on this thread was a broken engine invariant
/// ([`invariant_broken`]); clears the mark. Every place that catches a panic the engine's own
/// code may raise asks it: such a run is [`ENGINE_INVARIANT`], a bug in Sincro, never a
/// checker's or the factory's ([`HARNESS_PANIC`]) nor the algorithm's.
pub(crate) fn engine_bug_caught() -> bool {
    ENGINE_BUG.with(|b| b.replace(false))
}

/// The reason of a run [`ENGINE_INVARIANT`] stopped, from its panic's message.
pub(crate) fn engine_bug_reason(message: &str) -> String {
    format!(
        "an invariant of Sincro's engine broke, so nothing was judged: {message}. This is a \
         bug in Sincro, not in the algorithm or its checkers: please report it with the \
         scenario, which replays it"
    )
}

/// `expect` for the engine's own bookkeeping: a value that is missing is a broken invariant
/// ([`invariant_broken`], a bug in Sincro), reported as such, not as a plain panic (which
/// reads as a checker's or the node factory's).
pub(crate) trait Held<T> {
    /// The value, or [`invariant_broken`] naming `what` held it.
    fn held(self, what: &str) -> T;
}

impl<T> Held<T> for Option<T> {
    #[inline]
    #[track_caller]
    fn held(self, what: &str) -> T {
        match self {
            Some(v) => v,
            None => invariant_broken(what, "it was missing".into()),
        }
    }
}

impl<T, E: std::fmt::Display> Held<T> for Result<T, E> {
    #[inline]
    #[track_caller]
    fn held(self, what: &str) -> T {
        match self {
            Ok(v) => v,
            Err(e) => invariant_broken(what, e.to_string()),
        }
    }
}

/// [`invariant_broken`] unless `ok`; `detail` is built only on failure.
#[inline]
#[track_caller]
pub(crate) fn invariant(ok: bool, what: &str, detail: impl FnOnce() -> String) {
    if !ok {
        invariant_broken(what, detail());
    }
}

/// Asks the CPU to bring `value`'s first cache line in, without waiting for it: the native
/// engine calls it on the next event's slab slot while it handles the current one. At 500
/// nodes the slab of a causal multicast holds hundreds of thousands of items and most pops
/// missed the cache on their slot. A hint only: no effect on any result, and none off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache; it never faults or reads into the program,
    // and SSE, which it needs, is part of every x86-64 target. The pointer comes from a
    // reference, so it is valid anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// `in_flight - 1` for a delivery or a drop of message `msg_id`, checked.
#[inline]
#[track_caller]
pub(crate) fn in_flight_less_one(in_flight: u64, msg_id: u64) -> u64 {
    match in_flight.checked_sub(1) {
        Some(v) => v,
        None => invariant_broken(
            "in_flight never goes below 0",
            format!("message {msg_id} left the network with none in flight"),
        ),
    }
}

/// Runs `f` (a process callback) marked as such, so [`install_panic_hook`] keeps its panics
/// quiet: they are caught and reported as a verdict with the location.
#[inline]
pub(crate) fn in_callback<R>(f: impl FnOnce() -> R) -> R {
    /// Puts the mark back as it was, on return and on unwinding alike: calls nest (a run of
    /// the whole engine holds its nodes' callbacks), and a mark left set would silence a
    /// panic of the test itself.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            IN_CALLBACK.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(IN_CALLBACK.with(|c| c.replace(true)));
    f()
}

/// Runs `f`, code of an algorithm's own outside its nodes' callbacks (generating a scenario
/// calls its workload and liveness bound), catching a panic in it: `Err` carries the panic's
/// message with its location, kept quiet as a callback's is when [`install_panic_hook`] is
/// installed. A campaign reports such a panic for its seed instead of unwinding through the
/// worker that ran it (stop 57: "a scoped thread panicked", with no seed).
pub fn catch_algorithm_panic<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    in_callback(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)))
        .map_err(|payload| panic_message(&*payload))
}

/// Installs a panic hook that silences panics raised inside process callbacks (the engines
/// catch them and report a `panic` verdict naming the location) and leaves every other panic
/// to the previous hook. Call once at program start (the CLI does).
pub fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A broken engine invariant is a bug in Sincro: caught and reported like the others,
        // but printed too (with a backtrace under RUST_BACKTRACE), never kept quiet.
        let engine_bug = ENGINE_BUG.with(std::cell::Cell::get);
        if !IN_CALLBACK.with(|c| c.get()) {
            previous(info);
            return;
        }
        let loc = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        LAST_LOCATION.with(|l| *l.borrow_mut() = loc);
        if engine_bug {
            previous(info);
        }
    }));
}

/// Extracts a readable message from a panic payload (with its location when the hook of
/// [`install_panic_hook`] caught it).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".into()
    };
    match LAST_LOCATION.with(|l| l.borrow_mut().take()) {
        Some(loc) => format!("{text} (at {loc})"),
        None => text,
    }
}

/// A test checker that asks for the kinds it is given and keeps the text of every send and
/// delivery it is passed (what a recorder's choice to render later changes).
#[cfg(test)]
pub(crate) struct ReadsTexts {
    pub(crate) interest: crate::check::Interest,
    pub(crate) seen: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

#[cfg(test)]
impl ReadsTexts {
    /// One asking for `interest`, with an empty record of texts.
    pub(crate) fn new(interest: crate::check::Interest) -> ReadsTexts {
        ReadsTexts {
            interest,
            seen: Default::default(),
        }
    }
}

#[cfg(test)]
impl Checker for ReadsTexts {
    fn property(&self) -> &'static str {
        "reads_texts"
    }
    fn interest(&self) -> crate::check::Interest {
        self.interest
    }
    fn on_event(&mut self, ev: &crate::trace::Event) -> Result<(), crate::check::Violation> {
        if let EventKind::Send { msg, .. } | EventKind::Deliver { msg, .. } = &ev.kind {
            self.seen
                .lock()
                .expect("not poisoned")
                .push(msg.to_string());
        }
        Ok(())
    }
    fn finish(&mut self, _end_t_ns: u64) -> Result<(), crate::check::Violation> {
        Ok(())
    }
    fn evidence(&self) -> &'static [&'static str] {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_words_stop_the_rendering_and_only_the_first_few_are_shared() {
        #[derive(Debug)]
        #[allow(dead_code)] // read by Debug only
        enum Msg {
            Request { ts: u64, from: usize },
            Hop(u32),
        }
        let options = RunOptions::new(true).type_words_only();
        let mut rec = Recorder::new(2, Vec::new(), options, u64::MAX);
        assert_eq!(rec.render(&Msg::Request { ts: 3, from: 1 }), "Request");
        assert_eq!(rec.render(&Msg::Hop(7)), "Hop");
        assert_eq!(rec.label(&Msg::Hop(8)), "Hop");
        assert_eq!(
            rec.render(&"a quoted string"),
            "",
            "`\"` is no word character"
        );
        // A word past the longest is cut like `type_word` cuts it, at a character boundary.
        let long = format!("{}é tail", "a".repeat(39));
        assert_eq!(rec.render(&format_args!("{long}")), "a".repeat(39).as_str());
        let letters = "é".repeat(30);
        assert_eq!(
            rec.render(&format_args!("{letters}")),
            crate::trace::type_word(&letters)
        );
        // A message that is a bare number is one word per value, kept in place (no more than
        // `Text::INLINE_MAX` bytes); longer words are shared, up to the limit only.
        let shared_before = rec.type_words.as_ref().unwrap().len();
        for v in 0..200u32 {
            let word = rec.render(&v);
            assert_eq!(word, v.to_string().as_str());
            assert!(word.is_inline());
        }
        let shared = rec.type_words.as_ref().unwrap();
        assert_eq!(shared.len(), shared_before, "the two long words above only");
        assert!(shared.iter().all(|w| !w.is_inline()));
        let long = |v: u32| format!("{}{v}", "w".repeat(30));
        for v in 0..200u32 {
            assert_eq!(rec.render(&format_args!("{}", long(v))), long(v).as_str());
        }
        let first = rec.render(&format_args!("{}", long(0)));
        let shared = rec.type_words.as_ref().unwrap();
        assert_eq!(shared.len(), TYPE_WORDS_SHARED_MAX);
        assert!(
            shared.iter().any(|w| w.shares(&first)),
            "a word seen before is shared"
        );
        assert!(!rec
            .render(&format_args!("{}", long(199)))
            .shares(&rec.render(&format_args!("{}", long(199)))));
        // In full, the same values render whole.
        let mut full = Recorder::new(2, Vec::new(), RunOptions::new(true), u64::MAX);
        assert_eq!(full.render(&Msg::Hop(7)), "Hop(7)");
        assert_eq!(full.label(&Msg::Hop(7)), "Hop(7)");
        assert!(full.type_words.is_none());
    }

    /// A recorder renders sends later only when its engine asks and nothing else reads the
    /// texts: then a delivery gets the empty text (which names its send, rendered later);
    /// otherwise (the exploration engine and the socket layer never ask) a delivery gets its
    /// send's text, the last one's or one read back from the trace.
    #[test]
    fn a_recorder_renders_later_only_when_asked_and_no_checker_reads_texts() {
        use crate::check::Interest;
        let reads = |i| Box::new(super::ReadsTexts::new(i)) as Box<dyn Checker>;
        let recorder = |checkers: Vec<Box<dyn Checker>>, options: RunOptions, ask: bool| {
            let mut rec = Recorder::new(2, checkers, options, u64::MAX);
            if ask {
                rec.render_texts_later();
            }
            rec
        };
        let traced = RunOptions::new(true);
        let cases: Vec<(Recorder, bool)> = vec![
            (recorder(vec![], traced, false), false),
            (recorder(vec![], traced, true), true),
            (recorder(vec![reads(Interest::OBSERVE)], traced, true), true),
            (recorder(vec![reads(Interest::SEND)], traced, true), false),
            (
                recorder(vec![reads(Interest::DELIVER)], traced, true),
                false,
            ),
            (recorder(vec![reads(Interest::ALL)], traced, true), false),
            (recorder(vec![], traced.type_words_only(), true), false),
            (recorder(vec![], RunOptions::new(false), true), false),
        ];
        for (i, (mut rec, later)) in cases.into_iter().enumerate() {
            assert_eq!(rec.defers_texts(), later, "case {i}");
            assert_eq!(rec.texts_read(), !later, "case {i}");
            let text = Text::from("Ping");
            for to in [1, 0] {
                let kind = EventKind::Send {
                    msg_id: to as u64,
                    to,
                    msg: text.clone(),
                };
                rec.emit(0, Some(1 - to), None, kind);
            }
            let want = if later || !rec.record {
                Text::EMPTY
            } else {
                text.clone()
            };
            // the last send's, and one read back
            assert_eq!(rec.sent_text(1), want, "case {i}");
            assert_eq!(rec.sent_text(0), want, "case {i}");
        }
    }

    #[test]
    fn a_broadcast_is_rendered_once() {
        /// A message that counts its renderings.
        struct Long(std::cell::Cell<u32>);
        impl fmt::Debug for Long {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.set(self.0.get() + 1);
                f.write_str(
                    "AVeryLongMessageTypeName { text: \"longer than the 22 bytes kept in place\" }",
                )
            }
        }
        // as a pilot records it (texts shared) and as a full recording does (packed)
        let words = Recorder::new(
            3,
            Vec::new(),
            RunOptions::new(true).type_words_only(),
            u64::MAX,
        );
        assert!(!words.trace.as_ref().unwrap().is_packed());
        let mut rec = Recorder::new(3, Vec::new(), RunOptions::new(true), u64::MAX);
        assert!(rec.trace.as_ref().unwrap().is_packed());
        let value = Long(std::cell::Cell::new(0));
        let send = |rec: &mut Recorder, from: NodeId, to: NodeId, msg: Text| {
            let kind = EventKind::Send { msg_id: 0, to, msg };
            rec.emit(0, Some(from), None, kind);
        };
        let renders = || value.0.get();
        let first = rec.render(&value);
        assert!(!first.is_inline());
        assert_eq!(renders(), 1);
        send(&mut rec, 0, 1, first.clone());
        // the next copy takes the text, a drop between copies or not
        let second = rec.render_copy(0, &value);
        assert_eq!((second.as_str(), renders()), (first.as_str(), 1));
        send(&mut rec, 0, 2, second);
        rec.drop_msg(0, 1, 0, 2, crate::net::DropReason::Loss);
        assert_eq!(rec.render_copy(0, &value), first);
        assert_eq!(renders(), 1);
        // another node's message, or one sent long before, is rendered again
        assert_eq!(rec.render_copy(1, &value), first);
        assert_eq!(renders(), 2);
        rec.emit(0, Some(2), None, EventKind::Start { incarnation: 0 });
        rec.emit(0, Some(2), None, EventKind::Start { incarnation: 1 });
        assert_eq!(rec.render_copy(0, &value), first);
        assert_eq!(renders(), 3);
        // a pilot's copies share one allocation
        let mut words = words;
        let word = words.render(&value);
        send(&mut words, 0, 1, word.clone());
        assert!(words.render_copy(0, &value).shares(&word));
        // and a delivery reads its send's text from the packed trace
        assert_eq!(rec.sent_text(0), first);
        assert_eq!(rec.sent_text(2), Text::EMPTY, "event 2 is a drop");
    }

    /// Once the trace stops growing at its size limit, the send it recorded last is not the
    /// message a later broadcast sends: its copy is rendered, not given that old text.
    #[test]
    fn past_the_trace_size_limit_a_broadcast_copy_is_not_an_old_send() {
        let budget = (std::mem::size_of::<Event>() + 8) as u64;
        let mut rec = Recorder::new(2, Vec::new(), RunOptions::new(true), budget);
        let kind = |msg: &str| EventKind::Send {
            msg_id: 0,
            to: 1,
            msg: msg.into(),
        };
        rec.emit(0, Some(0), None, kind("Old(1)"));
        rec.emit(1, Some(0), None, kind("New(2)")); // past the limit: not recorded
        assert_eq!(rec.trace.as_ref().unwrap().len(), 1);
        assert_eq!(rec.render_copy(0, &format_args!("New(2)")), "New(2)");
    }

    #[test]
    fn a_broken_invariant_panics_naming_itself_and_a_kept_one_does_not() {
        assert_eq!(in_flight_less_one(3, 7), 2);
        invariant(true, "never shown", || {
            unreachable!("built only on failure")
        });
        let payload = std::panic::catch_unwind(|| in_flight_less_one(0, 7))
            .expect_err("0 - 1 in flight is caught");
        let m = panic_message(&*payload);
        assert!(
            m.contains("engine invariant broken: in_flight never goes below 0"),
            "{m}"
        );
        assert!(m.contains("message 7"), "{m}");
    }
}
