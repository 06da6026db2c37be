//! Bounded exhaustive exploration of one scenario: every order of its events (and, within
//! [`Bounds`], every loss, duplication and crash) up to a depth, breadth first, so the first
//! violation found has a shortest schedule.
//!
//! **What is explored.** The exploration engine ([`crate::engine::explore`]) runs the
//! scenario with every message in flight over a delivery window of its link's latencies;
//! a *choice* is which enabled event happens next (see that module for the timed and untimed
//! semantics). A path is a sequence of choices from the start; its length is its *depth*.
//!
//! **Stateless search.** A [`Process`] cannot be cloned or hashed, so every path is
//! re-executed from the start (stateless model checking). A global state is *fingerprinted*
//! as: global time; for each node, a hash of every event it took part in (starts, inputs,
//! timers, deliveries with sender and content, faults, each with its global time: a
//! deterministic process's fields, stable storage, RNG and timers are a function of that
//! history), whether it is up; the messages in flight (link, content, window, and send order
//! on FIFO links); which inputs and plan entries are done; the fault budgets spent. Two paths
//! that reach one fingerprint continue identically, so the second is not expanded. This is
//! sound for checkers whose judgement of what follows depends only on each node's own events
//! (every built-in checker: they judge per-node observations, and happens-before, which is a
//! function of the per-node histories), not on how concurrent events of different nodes were
//! interleaved. Fingerprints are 128-bit hashes: a collision (probability about states² /
//! 2^129) would merge two states.
//!
//! **Reduction: sleep sets** (Godefroid 1996), with the state-caching rule that keeps them
//! sound (a revisited state is expanded again for the choices its stored sleep set held and
//! the new one does not). Two choices are *independent* when both are due now (taking either
//! does not move time), they change different nodes, and they are not the same message nor
//! two injected faults drawing on one budget: either order reaches the same state. After a
//! state's choice `a` is explored, a sibling `b` independent of `a` carries `a` in its sleep
//! set: the path `b, a` is not re-executed, as `a, b` reached the same state. Sleep sets
//! prune transitions (re-executions), never states: every reachable state within the depth is
//! still visited, and, since equivalent paths have equal lengths, at its smallest depth.
//!
//! **Judgement.** Checkers run online on every path, exactly as in a run (the same checkers
//! the algorithm's run builds); a safety violation or a panic anywhere is a counterexample.
//! A checker that judges an instant once it is over (at the next later event) has it judged
//! as soon as nothing enabled can happen at it, so a counterexample ends at its violating
//! event, and a path the depth bound cuts there is judged too
//! ([`World::judge_closed_instant`]).
//! A path with no enabled choice left (quiescent, or at the scenario's end) is *complete*: the
//! checkers' end-of-run judgement (liveness) applies to it as in a run. A path cut by the depth
//! bound is judged only for what happened on it, never for liveness, and never counts as a
//! pass. Neither is a complete path on which a pause the search injected lasted past
//! `Bounds::faults_until_ns` (liveness is judged from the end of the faults; a node paused to
//! the end looks crashed): it is counted as [`UNJUDGED_PAUSE`]; nor one on which more nodes
//! the search crashed are still down at that time than the model lets stay down for good
//! (`Bounds::crash_stops`): [`UNJUDGED_CRASH`].
//!
//! **Bounds.** Depth, distinct states and wall time ([`ExploreOptions`]): the search always
//! ends, and the report says which bound ended it.

use crate::check::Checker;
use crate::engine::explore::{Bounds, Choice, World};
use crate::engine::{Factory, Held, Outcome, RunOptions, Verdict};
use crate::process::Process;
use crate::scenario::{Scenario, ScenarioError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::time::{Duration, Instant};

pub use crate::engine::explore::MsgKey;

/// The label of a complete path not judged for liveness because a pause the search injected
/// outlived the faults (see `World::pause_outlived_faults`).
pub const UNJUDGED_PAUSE: &str = "unjudged: a pause outlived the faults";

/// The label of a complete path not judged for liveness because more nodes the search crashed
/// than `Bounds::crash_stops` allows were still down when the faults ended (see
/// `World::crash_outlived_faults`).
pub const UNJUDGED_CRASH: &str = "unjudged: a crash outlived the faults";

/// The most memory a search's bookkeeping may take, bytes: 1 GiB of the tables it grows (the
/// states visited with their sleep sets, the search tree, and the paths queued for the current
/// and the next depth), counted at their capacity, and what the next growth of each would
/// take. Past it the search stops as at its state bound ([`Stop::MemoryBound`]): at ~640 bytes
/// a state (6 nodes), `max_states` of 10^6 asked for gigabytes, and a 16-node search aborted
/// on an allocation of 671 MB. [`ExploreOptions::max_bytes`] may lower it.
pub const MAX_SEARCH_BYTES: u64 = 1 << 30;

/// Heap bytes of a sleep set of `len` choices (its buffer, with the allocator's rounding).
fn sleep_heap_bytes(len: usize) -> u64 {
    if len == 0 {
        0
    } else {
        16 + 4 * len as u64
    }
}

/// Bytes of a table of `capacity` slots of `slot` bytes, and what it takes once it grows
/// (it doubles when full: the old and the new buffer are both held while it moves).
fn table_bytes(len: usize, capacity: usize, slot: usize) -> u64 {
    let now = (capacity * slot) as u64;
    if len < capacity {
        now
    } else {
        now + 2 * (capacity.max(4) * slot) as u64
    }
}

/// How far to search.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Semantics and injected faults.
    pub bounds: Bounds,
    /// Longest path, in choices.
    pub max_depth: usize,
    /// Most distinct states.
    pub max_states: u64,
    /// Wall-time budget (`None`: none). It only decides where the search stops: the states
    /// explored before it are the same on every run.
    pub max_time: Option<Duration>,
    /// Most memory of the search's own tables, bytes ([`MAX_SEARCH_BYTES`] by default, and at
    /// most): past it the search stops ([`Stop::MemoryBound`]).
    pub max_bytes: u64,
    /// Use sleep sets (a partial-order reduction; see the module documentation).
    pub sleep_sets: bool,
    /// Set (by a Ctrl-C handler) to end the search as the time budget does, with what it
    /// explored so far ([`Stop::Interrupted`]).
    pub stop: Option<&'static std::sync::atomic::AtomicBool>,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            bounds: Bounds::default(),
            max_depth: 40,
            max_states: 1_000_000,
            max_time: Some(Duration::from_secs(60)),
            max_bytes: MAX_SEARCH_BYTES,
            sleep_sets: true,
            stop: None,
        }
    }
}

/// Why the search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Every state reachable within the depth bound was visited, and no path was cut by it:
    /// the whole (finite) state space.
    Exhausted,
    /// Every state within the depth bound was visited; some paths were cut by it.
    DepthBound,
    /// No counterexample, but some paths ended at a run limit of the scenario (its
    /// `limits`): those were not judged, so the search answers nothing about them.
    RunLimit,
    /// The state bound was reached first.
    StateBound,
    /// The search's own memory reached [`MAX_SEARCH_BYTES`] first (states visited, the
    /// search tree and the paths queued: a large `max_states` took gigabytes).
    MemoryBound,
    /// The time budget ran out first.
    TimeBound,
    /// The [`ExploreOptions::stop`] flag was set (Ctrl-C).
    Interrupted,
    /// A counterexample was found.
    Violation,
}

/// A shortest failing schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Counterexample {
    /// The choices, from the start.
    pub schedule: Vec<Choice>,
    /// The verdict at its end.
    pub verdict: Verdict,
    /// The same execution as a scenario of the native engine (`sincro run` reads it): every
    /// message's delays pinned (a recorded schedule), the injected faults in its plan, and
    /// `expect` set to the verdict. `None` under untimed semantics (no native run has its
    /// late timers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<Scenario>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExploreReport {
    /// Distinct states visited.
    pub states: u64,
    /// Paths executed (each from the start): one per transition explored.
    pub executions: u64,
    /// Transitions that reached a state already visited (not expanded again).
    pub revisits: u64,
    /// Transitions not executed thanks to sleep sets.
    pub slept: u64,
    /// Complete paths judged, by verdict label (`pass`, `unjudged:<property>` ...).
    pub complete: BTreeMap<String, u64>,
    /// Why, for each `unjudged:<property>` label of [`ExploreReport::complete`]: the first
    /// path's reason.
    #[serde(default)]
    pub unjudged_reasons: BTreeMap<String, String>,
    /// Paths cut by the depth bound.
    pub cut: u64,
    /// Paths ended by a run limit of the scenario (`limits`).
    pub limited: u64,
    /// Deepest level reached.
    pub max_depth: usize,
    /// Fault choices (a loss, a duplicate, a crash or a pause the search injects) enabled in
    /// the states visited: 0 when the bounds allow faults but none was ever possible (a fault
    /// window that ends before any message is sent), which a "no violation" must say.
    #[serde(default)]
    pub fault_choices: u64,
    /// Every state reachable within this many choices was visited (the last level searched
    /// to its end).
    pub depth_complete: usize,
    /// Why the search ended.
    pub stop: Stop,
    /// Wall time, ms.
    pub elapsed_ms: u64,
    /// The shortest counterexample, if one was found.
    pub counterexample: Option<Counterexample>,
}

impl ExploreReport {
    /// Distinct states per wall second.
    pub fn states_per_s(&self) -> f64 {
        self.states as f64 / (self.elapsed_ms.max(1) as f64 / 1000.0)
    }

    /// Complete paths a checker could not judge, by label (`unjudged:liveness` ...): the run
    /// ended before a property's bound. Unlike a pause or a crash that outlived the faults
    /// (outside what liveness promises), this is a scenario too short to answer, so "no
    /// violation" does not hold for them.
    pub fn could_not_judge(&self) -> Vec<(&str, u64)> {
        self.complete
            .iter()
            .filter(|(k, _)| {
                k.starts_with("unjudged:") && *k != UNJUDGED_PAUSE && *k != UNJUDGED_CRASH
            })
            .map(|(k, &v)| (k.as_str(), v))
            .collect()
    }

    /// The closing note on complete paths that were not judged for liveness, if any.
    fn unjudged_note(&self) -> String {
        let mut note: String = [(UNJUDGED_PAUSE, "a pause"), (UNJUDGED_CRASH, "a crash")]
            .iter()
            .filter_map(|(label, what)| {
                self.complete.get(*label).map(|n| {
                    format!(" (liveness not judged on {n} complete paths where {what} outlived the faults)")
                })
            })
            .collect();
        if self.complete.is_empty() && self.stop != Stop::Exhausted {
            note.push_str(
                "; no path ran to the scenario's end, so nothing that is judged at the end \
                 (liveness) was judged: safety only",
            );
        }
        if self.limited > 0 && self.stop != Stop::RunLimit {
            note.push_str(&format!(
                "; but {} paths ended at a run limit of the scenario and were not judged",
                self.limited
            ));
        }
        for (label, n) in self.could_not_judge() {
            let property = label.trim_start_matches("unjudged:");
            let why = self
                .unjudged_reasons
                .get(label)
                .map_or("the scenario ends before its bound", String::as_str);
            note.push_str(&format!(
                "; but {property} could not be judged on {}: {why}",
                paths(n)
            ));
        }
        note
    }
}

/// `n` complete path(s), singular for one.
fn paths(n: u64) -> String {
    if n == 1 {
        "1 complete path".to_string()
    } else {
        format!("{n} complete paths")
    }
}

impl fmt::Display for ExploreReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let complete: Vec<String> = self
            .complete
            .iter()
            .map(|(k, v)| format!("{v} {k}"))
            .collect();
        writeln!(
            f,
            "explored {} states ({:.0} states/s), {} executions, {} revisits, {} slept; depth {} \
             (every state within {} visited); {} ({}), {} cut by the depth bound, {} by a \
             run limit; {:.2} s",
            self.states,
            self.states_per_s(),
            self.executions,
            self.revisits,
            self.slept,
            self.max_depth,
            self.depth_complete,
            paths(self.complete.values().sum::<u64>()),
            if complete.is_empty() {
                "none".to_string()
            } else {
                complete.join(", ")
            },
            self.cut,
            self.limited,
            self.elapsed_ms as f64 / 1000.0
        )?;
        match (&self.counterexample, self.stop) {
            (Some(c), _) => write!(
                f,
                "VIOLATION after {} choices: {}",
                c.schedule.len(),
                c.verdict
            ),
            (None, Stop::RunLimit) => write!(
                f,
                "NO ANSWER: {} paths ended at a run limit of the scenario (limits.max_events, \
                 limits.max_in_flight, limits.max_sent) and were not judged; no violation on the other paths \
                 (depth {}, {} states){}",
                self.limited,
                self.depth_complete,
                self.states,
                self.unjudged_note()
            ),
            (None, Stop::Exhausted) if self.slept == 0 => write!(
                f,
                "no violation: the whole state space ({} states, depth {}) was explored, in \
                 every order of the events, each taken at the earliest instant it can be (runs \
                 where an event comes later than that are not explored){}",
                self.states,
                self.max_depth,
                self.unjudged_note()
            ),
            // Sleep sets skip states too: a skipped order can reach a state of its own (the
            // fingerprint keeps the native queue order of what is pending; a quarter of
            // `explore -a mutex.ricart-agrawala --seed 1`'s states); "the whole state space"
            // said otherwise (stop 73's probe).
            (None, Stop::Exhausted) => write!(
                f,
                "no violation: every order of the events was explored up to swapping two that \
                 commute ({} states, depth {}; sleep sets left out {} such swaps, and the \
                 states only they reach: --no-sleep-sets explores those too), each event \
                 taken at the earliest instant it can be (runs where an event comes later \
                 than that are not explored){}",
                self.states,
                self.max_depth,
                self.slept,
                self.unjudged_note()
            ),
            (None, stop) if self.depth_complete == 0 => write!(
                f,
                "nothing explored: the {} ended the search before it finished depth 1",
                match stop {
                    Stop::StateBound => "state bound",
                    Stop::MemoryBound => "memory bound",
                    Stop::Interrupted => "interrupt",
                    _ => "time bound",
                }
            ),
            (None, stop) => write!(
                f,
                "no violation within the bound (depth {}, {} states; stopped by the {}){}",
                self.depth_complete,
                self.states,
                match stop {
                    Stop::DepthBound => "depth bound",
                    Stop::StateBound => "state bound",
                    Stop::MemoryBound => "memory bound (1 GiB of the search's own tables)",
                    Stop::Interrupted => "interrupt",
                    _ => "time bound",
                },
                self.unjudged_note()
            ),
        }
    }
}

/// A replayable counterexample file: the scenario, the semantics and the schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleFile {
    /// The explored scenario.
    pub scenario: Scenario,
    /// Semantics and injected-fault bounds of the exploration.
    pub bounds: Bounds,
    /// The choices, from the start.
    pub schedule: Vec<Choice>,
    /// The verdict the explorer saw at its end.
    pub verdict: Verdict,
}

/// Builds a fresh set of checkers for one execution.
pub type CheckerSource<'a> = &'a dyn Fn() -> Result<Vec<Box<dyn Checker>>, ScenarioError>;

struct Entry {
    /// Index of the last transition in `tree` (`u32::MAX`: the root).
    at: u32,
    depth: usize,
    /// The sleep set: the ids of its choices ([`Choices`]), sorted.
    sleep: Vec<u32>,
}

/// The choices the search met, each under a 4-byte id: the search tree and the sleep sets
/// (one per state visited and per state queued, hundreds of choices each at 16 nodes) hold
/// ids, not 40-byte choices. Ids are given in the order the search meets the choices, so
/// they are deterministic; the map is only looked up, never iterated.
#[derive(Default)]
struct Choices {
    ids: HashMap<Choice, u32>,
    all: Vec<Choice>,
}

impl Choices {
    /// The id of `c`, a new one the first time.
    fn id(&mut self, c: Choice) -> u32 {
        let next = u32::try_from(self.all.len()).held("explore: fewer than 2^32 distinct choices");
        let id = *self.ids.entry(c).or_insert(next);
        if id == next {
            self.all.push(c);
        }
        debug_assert_eq!(self.all[id as usize], c, "an id names its choice");
        id
    }

    fn choice(&self, id: u32) -> Choice {
        self.all[id as usize]
    }
}

/// The label a path's violation is counted under instead, when the path cannot be judged for
/// its property: a liveness deadline that passed with a pause (or more crashes than the model
/// tolerates) of the search still in effect, past the end of the faults, is no violation:
/// liveness is promised once the faults stop, and such a path is not judged for it, as a
/// complete one is not (the counterexample replayed as "could not judge": the pause, never
/// resumed, outlives the run). The same for a property judged from the end of the faults
/// whose class is safety (stop 64: `leader_stability` found a leader paused by the search
/// and never resumed "alive and reachable", a violation the native replay did not show).
fn not_judged_here<P: Process>(w: &World<P>) -> Option<&'static str> {
    let Some(Verdict::Violation(v)) = w.verdict() else {
        return None;
    };
    if v.class != crate::PropertyClass::Liveness && !w.judged_once_the_faults_stop(&v.property) {
        return None;
    }
    if w.pause_outlived_faults() {
        Some(UNJUDGED_PAUSE)
    } else if w.crash_outlived_faults() {
        Some(UNJUDGED_CRASH)
    } else {
        None
    }
}

/// A panic [`guarded`] caught: its message, and whether it was a broken invariant of the
/// engine (a bug in Sincro) rather than a checker's or the node factory's.
struct Caught {
    message: String,
    engine_bug: bool,
}

impl std::fmt::Display for Caught {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.engine_bug {
            f.write_str(&crate::engine::engine_bug_reason(&self.message))
        } else {
            f.write_str(&self.message)
        }
    }
}

/// Runs `f`, a panic in it (a checker's, the node factory's, a broken invariant of the
/// engine's: the nodes' own are caught as [`Verdict::Panic`]) returned as what it was, and
/// kept quiet as a run's is (but for the engine's).
fn guarded<R>(f: impl FnOnce() -> R) -> Result<R, Caught> {
    crate::engine::in_callback(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)))
        .map_err(|payload| Caught {
            message: crate::engine::panic_message(&*payload),
            engine_bug: crate::engine::engine_bug_caught(),
        })
}

/// Counts a path a checker or the node factory panicked on as not judged, with the first
/// panic's message as the reason; a path the engine's invariants broke on, under a label of
/// its own ([`ENGINE_INVARIANT`](crate::engine::ENGINE_INVARIANT)) that says it is a bug in
/// Sincro.
fn harness_panic(report: &mut ExploreReport, caught: Caught) {
    let property = if caught.engine_bug {
        crate::engine::ENGINE_INVARIANT
    } else {
        crate::engine::HARNESS_PANIC
    };
    let label = format!("unjudged:{property}");
    report
        .unjudged_reasons
        .entry(label.clone())
        .or_insert_with(|| {
            if caught.engine_bug {
                caught.to_string()
            } else {
                format!(
                    "a checker's on_event or finish, or the node factory, panicked, so the path \
                     was not judged: {caught}"
                )
            }
        });
    *report.complete.entry(label).or_default() += 1;
}

/// Whether the sorted id set `set` holds `id`.
fn holds(set: &[u32], id: u32) -> bool {
    set.binary_search(&id).is_ok()
}

/// Explores `scenario` breadth first (see the module documentation).
pub fn explore<P: Process>(
    scenario: &Scenario,
    factory: Factory<P>,
    checkers: CheckerSource<'_>,
    options: &ExploreOptions,
) -> Result<ExploreReport, ScenarioError> {
    let started = Instant::now();
    let opts = RunOptions::new(false);
    let new_world = || -> Result<World<P>, ScenarioError> {
        World::new(scenario, factory.clone(), checkers()?, options.bounds, opts)
    };
    options.bounds.validate().map_err(ScenarioError)?;
    // Bad input is reported before the search starts.
    guarded(new_world).map_err(|why| {
        ScenarioError(if why.engine_bug {
            format!("the search could not start: {why}")
        } else {
            format!("a checker or the node factory panicked before the search started: {why}")
        })
    })??;
    let mut report = ExploreReport {
        states: 0,
        executions: 0,
        revisits: 0,
        slept: 0,
        complete: BTreeMap::new(),
        unjudged_reasons: BTreeMap::new(),
        cut: 0,
        limited: 0,
        max_depth: 0,
        fault_choices: 0,
        depth_complete: 0,
        stop: Stop::Exhausted,
        elapsed_ms: 0,
        counterexample: None,
    };
    // The search tree: (parent, choice) per transition taken.
    let mut tree: Vec<(u32, u32)> = Vec::new();
    let mut choices = Choices::default();
    let mut visited: HashMap<u128, Vec<u32>> = HashMap::new();
    let mut level = vec![Entry {
        at: u32::MAX,
        depth: 0,
        sleep: Vec::new(),
    }];
    let path_of = |tree: &Vec<(u32, u32)>, choices: &Choices, mut at: u32| {
        let mut path = Vec::new();
        while at != u32::MAX {
            let (parent, c) = tree[at as usize];
            path.push(choices.choice(c));
            at = parent;
        }
        path.reverse();
        path
    };
    let mut stopped = None;
    // The search's own memory (see MAX_SEARCH_BYTES): the sleep sets' heap bytes of the
    // visited states and of the queued paths, kept here; the tables' own from their capacity.
    let max_bytes = options.max_bytes.min(MAX_SEARCH_BYTES);
    let (mut visited_heap, mut queued_heap) = (0u64, 0u64);
    let entry_size = std::mem::size_of::<Entry>();
    let bucket_size = std::mem::size_of::<(u128, Vec<u32>)>() + 1;
    'levels: while !level.is_empty() {
        let mut next: Vec<Entry> = Vec::new();
        let level_heap = queued_heap;
        queued_heap = 0;
        let level_bytes = (level.capacity() * entry_size) as u64 + level_heap;
        for entry in level.drain(..) {
            if let Some(limit) = options.max_time {
                // At every execution: each re-executes a path, far dearer than reading the
                // clock (every 64th let a 1 s budget run 3.9 s at 16 nodes, 60 ms apiece).
                if started.elapsed() >= limit {
                    stopped = Some(Stop::TimeBound);
                    break 'levels;
                }
            }
            if options
                .stop
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
            {
                stopped = Some(Stop::Interrupted);
                break 'levels;
            }
            report.max_depth = report.max_depth.max(entry.depth);
            let path = path_of(&tree, &choices, entry.at);
            report.executions += 1;
            // A checker (or the node factory) that panics on this path ends the path
            // unjudged, as a run of it would be ([`HARNESS_PANIC`]); the search goes on (stop
            // 64: the panic unwound through the search and aborted `sincro explore`).
            let executed = guarded(|| -> Result<_, ScenarioError> {
                let mut w = new_world()?;
                for &c in &path {
                    if w.verdict().is_some() {
                        break;
                    }
                    w.step(c);
                }
                Ok(w)
            });
            let mut w = match executed {
                Ok(r) => r?,
                Err(why) => {
                    harness_panic(&mut report, why);
                    continue;
                }
            };
            // A violation of a property judged once the faults stop, with a fault of the
            // search outliving them: not judged (see `not_judged_here`).
            if let Some(label) = not_judged_here(&w) {
                *report.complete.entry(label.into()).or_default() += 1;
                continue;
            }
            match w.verdict() {
                Some(Verdict::Violation(_) | Verdict::Panic { .. }) => {
                    report.counterexample = Some(counterexample(
                        scenario, &factory, checkers, options, path, w,
                    )?);
                    stopped = Some(Stop::Violation);
                    break 'levels;
                }
                Some(_) => {
                    report.limited += 1;
                    continue;
                }
                None => {}
            }
            let fp = w.fingerprint();
            let enabled = w.enabled();
            let enabled_ids: Vec<u32> = enabled.iter().map(|&c| choices.id(c)).collect();
            let to_explore: Vec<u32> = match visited.get_mut(&fp) {
                None => {
                    if report.states >= options.max_states {
                        stopped = Some(Stop::StateBound);
                        break 'levels;
                    }
                    let used = table_bytes(visited.len(), visited.capacity(), bucket_size)
                        + visited_heap
                        + level_bytes
                        + (next.capacity() * entry_size) as u64
                        + queued_heap
                        + (tree.capacity() * 8) as u64;
                    if used >= max_bytes {
                        stopped = Some(Stop::MemoryBound);
                        break 'levels;
                    }
                    report.states += 1;
                    visited_heap += sleep_heap_bytes(entry.sleep.len());
                    report.fault_choices +=
                        enabled.iter().filter(|c| c.is_injected()).count() as u64;
                    visited.insert(fp, entry.sleep.clone());
                    enabled_ids
                        .iter()
                        .copied()
                        .filter(|&c| !holds(&entry.sleep, c))
                        .collect()
                }
                Some(stored) => {
                    // Expanded before with sleep set `stored`: only what it skipped and this
                    // path does not.
                    let missing: Vec<u32> = stored
                        .iter()
                        .copied()
                        .filter(|&c| !holds(&entry.sleep, c))
                        .collect();
                    if missing.is_empty() {
                        report.revisits += 1;
                        continue;
                    }
                    stored.retain(|&c| holds(&entry.sleep, c));
                    enabled_ids
                        .iter()
                        .copied()
                        .filter(|&c| holds(&missing, c))
                        .collect()
                }
            };
            if enabled.is_empty() {
                let outlived = if w.pause_outlived_faults() {
                    Some(UNJUDGED_PAUSE)
                } else if w.crash_outlived_faults() {
                    Some(UNJUDGED_CRASH)
                } else {
                    None
                };
                if let Some(label) = outlived {
                    // Safety was judged on the way but for the last instant, judged here;
                    // liveness cannot be judged on this path.
                    let found = match guarded(|| w.judge_last_instant().is_some()) {
                        Ok(found) => found,
                        Err(why) => {
                            harness_panic(&mut report, why);
                            continue;
                        }
                    };
                    if found && not_judged_here(&w).is_none() {
                        report.counterexample = Some(counterexample(
                            scenario, &factory, checkers, options, path, w,
                        )?);
                        stopped = Some(Stop::Violation);
                        break 'levels;
                    }
                    *report.complete.entry(label.into()).or_default() += 1;
                    continue;
                }
                // Complete: judged as at the end of a run (liveness included).
                let out: Outcome = match guarded(|| w.finish()) {
                    Ok(out) => out,
                    Err(why) => {
                        harness_panic(&mut report, why);
                        continue;
                    }
                };
                if let Verdict::Violation(_) | Verdict::Panic { .. } = out.verdict {
                    let native = native_scenario(
                        scenario,
                        factory.clone(),
                        checkers()?,
                        options.bounds,
                        &path,
                    )?;
                    report.counterexample = Some(Counterexample {
                        schedule: path,
                        verdict: out.verdict,
                        native,
                    });
                    stopped = Some(Stop::Violation);
                    break 'levels;
                }
                if let Verdict::Unjudged { reason, .. } = &out.verdict {
                    let label = out.verdict.label();
                    report
                        .unjudged_reasons
                        .entry(label)
                        .or_insert_with(|| reason.clone());
                }
                *report.complete.entry(out.verdict.label()).or_default() += 1;
                continue;
            }
            // This path's last instant is over: a violation it completed is found at this
            // depth, not one unrelated choice later, and even where the depth bound cuts the
            // path. (The world takes no further step: only its state is read below.)
            let closed = match guarded(|| w.judge_closed_instant(&enabled).is_some()) {
                Ok(closed) => closed,
                Err(why) => {
                    harness_panic(&mut report, why);
                    continue;
                }
            };
            if closed {
                if let Some(label) = not_judged_here(&w) {
                    *report.complete.entry(label.into()).or_default() += 1;
                    continue;
                }
                report.counterexample = Some(counterexample(
                    scenario, &factory, checkers, options, path, w,
                )?);
                stopped = Some(Stop::Violation);
                break 'levels;
            }
            if entry.depth >= options.max_depth {
                report.cut += 1;
                continue;
            }
            report.slept += (enabled.len() - to_explore.len()) as u64;
            let mut done: Vec<u32> = Vec::new();
            for &id in &to_explore {
                let c = choices.choice(id);
                let sleep: Vec<u32> = if options.sleep_sets {
                    let mut sleep: Vec<u32> = entry
                        .sleep
                        .iter()
                        .chain(done.iter())
                        .copied()
                        .filter(|&z| w.independent(&choices.choice(z), &c))
                        .collect();
                    sleep.sort_unstable();
                    debug_assert!(sleep.windows(2).all(|p| p[0] < p[1]), "a set");
                    sleep
                } else {
                    Vec::new()
                };
                // Checked before the tables grow: one state's children doubled the queue
                // past the bound (the check at a new state came too late).
                let used = (visited.capacity() * bucket_size) as u64
                    + visited_heap
                    + level_bytes
                    + table_bytes(next.len(), next.capacity(), entry_size)
                    + queued_heap
                    + sleep_heap_bytes(sleep.len())
                    + table_bytes(tree.len(), tree.capacity(), 8);
                if used >= max_bytes {
                    stopped = Some(Stop::MemoryBound);
                    break 'levels;
                }
                done.push(id);
                tree.push((entry.at, id));
                queued_heap += sleep_heap_bytes(sleep.len());
                next.push(Entry {
                    at: (tree.len() - 1) as u32,
                    depth: entry.depth + 1,
                    sleep,
                });
            }
        }
        report.depth_complete = report.max_depth;
        level = next;
    }
    report.stop = match stopped {
        Some(s) => s,
        None if report.limited > 0 => Stop::RunLimit,
        None if report.cut > 0 => Stop::DepthBound,
        None => Stop::Exhausted,
    };
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// Replays `schedule` on the exploration engine, recording the trace: the verdict at its end
/// (a complete path is judged as a run's end; a path stopped short without a violation is
/// [`Verdict::Unjudged`]). An error names the first choice that is not enabled where the
/// schedule takes it (the scenario or the algorithm changed).
pub fn replay<P: Process>(
    scenario: &Scenario,
    factory: Factory<P>,
    checkers: Vec<Box<dyn Checker>>,
    bounds: Bounds,
    schedule: &[Choice],
) -> Result<Outcome, ScenarioError> {
    bounds.validate().map_err(ScenarioError)?;
    let mut w = World::new(scenario, factory, checkers, bounds, RunOptions::new(true))?;
    follow(&mut w, schedule)?;
    let enabled = w.enabled();
    if w.verdict().is_none() && !enabled.is_empty() {
        // A schedule the search ended at an instant it judged over ends there.
        w.judge_closed_instant(&enabled);
        return Ok(w.finish_cut("the schedule ends before the execution is complete"));
    }
    Ok(w.finish())
}

/// The counterexample of a path whose world `w` reached a violation (or a panic).
fn counterexample<P: Process>(
    scenario: &Scenario,
    factory: &Factory<P>,
    checkers: CheckerSource<'_>,
    options: &ExploreOptions,
    schedule: Vec<Choice>,
    w: World<P>,
) -> Result<Counterexample, ScenarioError> {
    let verdict = w
        .verdict()
        .cloned()
        .held("explore: a counterexample has a verdict");
    let native = native_scenario(
        scenario,
        factory.clone(),
        checkers()?,
        options.bounds,
        &schedule,
    )?;
    Ok(Counterexample {
        schedule,
        verdict,
        native,
    })
}

/// Takes the choices of `schedule` in order on `w`, until a verdict; an error names the first
/// choice that is not enabled.
fn follow<P: Process>(w: &mut World<P>, schedule: &[Choice]) -> Result<(), ScenarioError> {
    for (i, c) in schedule.iter().enumerate() {
        if w.verdict().is_some() {
            // The search ends a path at its verdict: what follows was never explored, and
            // would be neither checked nor run.
            return Err(ScenarioError(format!(
                "schedule[{i}] ({c}) and the {} choice(s) after it come after the verdict \
                 reached at choice {i}: a counterexample ends at its verdict (was the file \
                 edited?)",
                schedule.len() - i - 1
            )));
        }
        if !w.enabled().contains(c) {
            return Err(ScenarioError(format!(
                "schedule[{i}] ({c}) is not enabled at this point: the scenario, the bounds \
                 or the algorithm differ from those explored"
            )));
        }
        w.step(*c);
    }
    Ok(())
}

/// The native scenario that reproduces `schedule` (see [`Counterexample::native`]): the
/// schedule is replayed once more, recording each message's rendering and fate, and the
/// verdict it reaches (a complete path judged as a run's end) is the scenario's `expect`.
/// `None` under untimed semantics.
pub fn native_scenario<P: Process>(
    scenario: &Scenario,
    factory: Factory<P>,
    checkers: Vec<Box<dyn Checker>>,
    bounds: Bounds,
    schedule: &[Choice],
) -> Result<Option<Scenario>, ScenarioError> {
    let mut w = World::exporting(scenario, factory, checkers, bounds, RunOptions::new(false))?;
    follow(&mut w, schedule)?;
    let enabled = w.enabled();
    w.judge_closed_instant(&enabled);
    let verdict = match w.verdict() {
        Some(v) => v.clone(),
        None if w.enabled().is_empty() => {
            // Judged at the end: the export is taken before `finish` consumes the world.
            let export = w.native_scenario(scenario, &Verdict::Pass);
            let out = w.finish();
            return Ok(export.map(|mut sc| {
                sc.expect = expect_of(&out.verdict);
                sc
            }));
        }
        None => Verdict::Unjudged {
            property: "exploration".into(),
            reason: "the schedule ends before the execution is complete".into(),
        },
    };
    let mut sc = w.native_scenario(scenario, &verdict);
    if let Some(sc) = sc.as_mut() {
        sc.expect = expect_of(&verdict);
    }
    Ok(sc)
}

fn expect_of(v: &Verdict) -> Option<crate::scenario::Expect> {
    use crate::scenario::Expect;
    match v {
        Verdict::Pass => Some(Expect::Pass),
        Verdict::Violation(x) => Some(Expect::Violation(x.property.clone())),
        Verdict::Panic { .. } => Some(Expect::Panic),
        _ => None,
    }
}
