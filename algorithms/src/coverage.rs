//! Coverage feedback: what a run reached, goals it should reach, and mutations of scenarios
//! that reached something new.
//!
//! A guided campaign (`sincro fuzz` with the default strategy) keeps a corpus of the scenarios
//! whose runs reached a [feature](features) no earlier run had, and draws part of its later
//! seeds as [mutations](mutate) of them, in the spirit of coverage-guided fuzzers (AFL,
//! libFuzzer) applied to schedules and fault plans rather than bytes. The features are
//! abstract, so they carry over between runs of any size:
//! - per node, each pair of consecutive events by kind (`restart` then `deliver:Coordinator`,
//!   `cs_enter` then `fault:pauses`);
//! - each fault by class, with the last observation of the node it hits (a pause of a node
//!   whose last observation is `cs_enter`);
//! - each message type delivered, with the last observation of the receiving node;
//! - how many times a run shows each kind of fault, restart and observation, in buckets
//!   (1, 2, 3, 4–7, 8–15…), so a second crash window or a third change of leader is new;
//! - each [goal](Goal) reached.
//!
//! Goals are `sometimes`/`reachable` assertions in the sense of Antithesis and FoundationDB:
//! states a campaign should reach ("a holder paused inside the critical section", "the leader
//! crashed"). A campaign reports which were reached and which never were, so "nothing broke"
//! can be told from "the search never got there". An algorithm declares its own
//! ([`Spec::goals`](crate::spec::Spec::goals)); the properties it promises bring theirs
//! ([`goals_for_properties`]).

use crate::moments::{observation_kind_of, type_word};
use crate::registry::Algorithm;
use sincro_harness::fault::{Fault, FaultClass, FaultModel, TimedFault};
use sincro_harness::gen::{Draft, GenOptions, Strategy};
use sincro_harness::{EngineKind, Event, EventKind, SimRng, Trace};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// The kind of a trace event, as coverage and goals name it: `start`, `restart`,
/// `send:<Type>`, `deliver:<Type>`, `drop`, `timer:<Type>`, `input`, `fault:<kind>`,
/// `clock_adjust`, `panic`, or an observation's kind (`cs_enter`, `leader`, `user:<kind>`…).
pub fn event_kind(e: &Event) -> String {
    let (a, b) = kind_parts(e);
    format!("{a}{b}")
}

/// [`event_kind`] in two parts (a prefix such as `send:` and the rest), without allocating.
fn kind_parts(e: &Event) -> (&'static str, &str) {
    match &e.kind {
        EventKind::Start { incarnation: 0 } => ("", "start"),
        EventKind::Start { .. } => ("", "restart"),
        EventKind::Send { msg, .. } => ("send:", type_word(msg)),
        EventKind::Deliver { msg, .. } => ("deliver:", type_word(msg)),
        EventKind::Drop { .. } => ("", "drop"),
        EventKind::Timer { timer, .. } => ("timer:", type_word(timer)),
        EventKind::Input { .. } => ("", "input"),
        EventKind::Fault { fault } => ("fault:", fault_kind(fault)),
        EventKind::ClockAdjust { .. } => ("", "clock_adjust"),
        EventKind::Observe {
            obs: sincro_harness::Observation::User { kind, .. },
        } => ("user:", kind.as_str()),
        EventKind::Observe { obs } => match observation_kind_of(obs) {
            Cow::Borrowed(k) => ("", k),
            Cow::Owned(_) => ("", "observation"),
        },
        EventKind::Panic { .. } => ("", "panic"),
        EventKind::Cut { .. } => ("", "cut"),
    }
}

/// Whether `e` is of kind `kind` (as [`event_kind`] names it).
fn is_kind(e: &Event, kind: &str) -> bool {
    let (a, b) = kind_parts(e);
    kind.strip_prefix(a) == Some(b)
}

/// The hash of an event's kind, as a feature part.
fn kind_hash(e: &Event) -> u64 {
    let (a, b) = kind_parts(e);
    hash(&[a.as_bytes(), b.as_bytes()])
}

/// A fault's kind: its class, with crash and restart, pause and resume, partition and heal
/// told apart.
fn fault_kind(f: &Fault) -> &'static str {
    match f {
        Fault::Crash { .. } => "crash",
        Fault::Restart { .. } => "restart",
        Fault::Pause { .. } => "pause",
        Fault::Resume { .. } => "resume",
        Fault::Heal => "heal",
        Fault::Partition { .. } => "partition",
        Fault::PartitionOneway { .. } => "oneway_partition",
        f => f.class().name(),
    }
}

/// FNV-1a over the parts of a feature: stable across runs, builds and platforms.
fn hash(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The features a run reached (see the [module](self) documentation), sorted, without
/// repeats. Goals are not included: see [`Goal::reached`].
pub fn features(trace: &Trace) -> Vec<u64> {
    const NONE: u64 = 0;
    const RESTARTED: u64 = 1;
    let n = trace.nodes;
    // Per node: the kind of its last event, and its state (its last observation's kind, or
    // "restarted" since its last restart), as hashes.
    let mut last = vec![NONE; n];
    let mut state = vec![NONE; n];
    let mut out = Vec::with_capacity(256);
    // Kinds of the rarer events (faults, restarts, observations), to count per run.
    let mut counted = Vec::new();
    for e in trace.events() {
        let kind = kind_hash(e);
        let Some(node) = e.node.filter(|&v| v < n) else {
            // A fault of the network (a partition, a heal, a link change).
            out.push(hash(&[b"plan", &kind.to_le_bytes()]));
            continue;
        };
        let b = |x: u64| x.to_le_bytes();
        out.push(hash(&[b"pair", &b(last[node]), &b(kind)]));
        match &e.kind {
            EventKind::Fault { .. } => {
                out.push(hash(&[b"in", &b(kind), &b(state[node])]));
                counted.push(kind);
            }
            EventKind::Deliver { .. } => {
                out.push(hash(&[b"in", &b(kind), &b(state[node])]));
            }
            EventKind::Observe { .. } => {
                state[node] = kind;
                counted.push(kind);
            }
            EventKind::Start { incarnation } if *incarnation > 0 => {
                state[node] = RESTARTED;
                counted.push(kind);
            }
            _ => {}
        }
        last[node] = kind;
    }
    // How many times a run shows each of them, in AFL's buckets (1, 2, 3, 4-7, 8-15, ...):
    // a second crash window, a third leader change are new.
    counted.sort_unstable();
    for run in counted.chunk_by(|a, b| a == b) {
        let bucket = match run.len() {
            n @ 1..=3 => n as u64,
            n => 2 + u64::from(n.ilog2()),
        };
        out.push(hash(&[
            b"count",
            &run[0].to_le_bytes(),
            &bucket.to_le_bytes(),
        ]));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A predicate over a run's trace.
type Reached = dyn Fn(&Trace) -> bool + Send + Sync;

/// A state a campaign should reach (a `sometimes` assertion): reported as reached or never
/// reached at the end of a guided campaign, and a feature of coverage when first reached.
#[derive(Clone)]
pub struct Goal {
    /// Short name, e.g. `paused_in_cs`.
    pub name: String,
    /// What it means, in a sentence.
    pub description: String,
    /// Fault classes of which the model must allow one for the goal to be reachable (empty:
    /// always reachable); a campaign leaves out the goals its fault model rules out.
    pub needs: Vec<FaultClass>,
    reached: Arc<Reached>,
    /// Whether `reached` may read more of a message, timer or input than its type word.
    reads_text: bool,
}

impl fmt::Debug for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Goal")
            .field("name", &self.name)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl Goal {
    /// A goal reached when `reached` holds of a run's trace. The trace it is given is a full
    /// one: every message, timer and input rendered in full.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        reached: impl Fn(&Trace) -> bool + Send + Sync + 'static,
    ) -> Goal {
        Goal {
            name: name.into(),
            description: description.into(),
            needs: Vec::new(),
            reached: Arc::new(reached),
            reads_text: true,
        }
    }

    /// Whether the goal may read more of a message, timer or input than its type word (every
    /// goal made with [`Goal::new`]; the other constructors read event kinds only). While no
    /// goal of a target does, its guided runs record type words only
    /// ([`RunOptions::type_words_only`](sincro_harness::RunOptions::type_words_only)): the
    /// coverage features read nothing else.
    pub fn reads_text(&self) -> bool {
        self.reads_text
    }

    /// This goal, marked as reading event kinds and type words only: its predicate is then
    /// given traces whose messages, timers and inputs are cut to their type word (`Ping`
    /// of `Ping { seq: 3 }`), and a campaign none of whose goals reads more records no full
    /// text in its guided runs. A goal of a user's that reads only kinds, as the built-in
    /// constructors do, says so with it (stop 65's probe: only the built-in ones could).
    pub fn of_kinds(mut self) -> Goal {
        self.reads_text = false;
        self
    }

    /// The same goal, reachable only when the fault model allows one of `classes`.
    pub fn needs(mut self, classes: &[FaultClass]) -> Goal {
        self.needs = classes.to_vec();
        self
    }

    /// Whether a campaign under `model` can reach this goal.
    pub fn possible_under(&self, model: &FaultModel) -> bool {
        self.needs.is_empty() || self.needs.iter().any(|&c| model.allows(c))
    }

    /// Whether the run of `trace` reached this goal.
    pub fn reached(&self, trace: &Trace) -> bool {
        (self.reached)(trace)
    }

    /// A fault of kind `fault` (`crash`, `pause`, `clock_jumps`…, as in [`event_kind`]
    /// without `fault:`) hits a node after an event of kind `open` at that node and before its
    /// next event of kind `close` (e.g. a pause between `cs_enter` and `cs_exit`).
    pub fn fault_inside(name: &str, fault: &str, open: &str, close: &str) -> Goal {
        let (fault, open, close) = (
            format!("fault:{fault}"),
            open.to_string(),
            close.to_string(),
        );
        let description = format!("a node gets `{fault}` between its `{open}` and `{close}`");
        Goal::new(name, description, move |t: &Trace| {
            let mut inside = vec![false; t.nodes];
            t.events().iter().any(|e| {
                let Some(node) = e.node.filter(|&v| v < t.nodes) else {
                    return false;
                };
                if is_kind(e, &open) {
                    inside[node] = true;
                } else if is_kind(e, &close) {
                    inside[node] = false;
                } else if inside[node] && is_kind(e, &fault) {
                    return true;
                }
                false
            })
        })
        .of_kinds()
    }

    /// At some node, an event of kind `then` follows one of kind `first` within `within_ms`
    /// (e.g. `restart` then `leader`).
    pub fn sequence(name: &str, first: &str, then: &str, within_ms: u64) -> Goal {
        let (first, then) = (first.to_string(), then.to_string());
        let description = format!("a node's `{then}` follows its `{first}` within {within_ms} ms");
        let within_ns = within_ms.saturating_mul(1_000_000);
        Goal::new(name, description, move |t: &Trace| {
            let mut since: Vec<Option<u64>> = vec![None; t.nodes];
            t.events().iter().any(|e| {
                let Some(node) = e.node.filter(|&v| v < t.nodes) else {
                    return false;
                };
                if since[node].is_some_and(|s| e.t_ns.saturating_sub(s) <= within_ns)
                    && is_kind(e, &then)
                {
                    return true;
                }
                if is_kind(e, &first) {
                    since[node] = Some(e.t_ns);
                }
                false
            })
        })
        .of_kinds()
    }

    /// At least `k` nodes are down (crashed and not restarted) at the same time.
    pub fn nodes_down_together(name: &str, k: usize) -> Goal {
        let description = format!("{k} nodes are down at the same time");
        Goal::new(name, description, move |t: &Trace| {
            let mut down = vec![false; t.nodes];
            let mut count = 0usize;
            t.events().iter().any(|e| {
                match &e.kind {
                    EventKind::Fault {
                        fault: Fault::Crash { node },
                    } if *node < t.nodes && !down[*node] => {
                        down[*node] = true;
                        count += 1;
                    }
                    EventKind::Start { incarnation } if *incarnation > 0 => {
                        if let Some(n) = e.node.filter(|&n| n < t.nodes) {
                            if std::mem::take(&mut down[n]) {
                                count -= 1;
                            }
                        }
                    }
                    _ => {}
                }
                count >= k
            })
        })
        .of_kinds()
    }

    /// A node that last observed itself as leader crashes or is paused.
    pub fn leader_hit(name: &str) -> Goal {
        Goal::new(
            name,
            "a node that believes it leads is crashed or paused",
            |t: &Trace| {
                let mut leads = vec![false; t.nodes];
                t.events().iter().any(|e| {
                    let Some(node) = e.node.filter(|&n| n < t.nodes) else {
                        return false;
                    };
                    match &e.kind {
                        EventKind::Observe {
                            obs: sincro_harness::Observation::Leader { leader, .. },
                        } => leads[node] = *leader == Some(node),
                        EventKind::Fault {
                            fault: Fault::Crash { .. } | Fault::Pause { .. },
                        } => return leads[node],
                        EventKind::Start { .. } => leads[node] = false,
                        _ => {}
                    }
                    false
                })
            },
        )
        .of_kinds()
    }
}

/// The goals the properties an algorithm promises bring: for `mutual_exclusion`, a holder
/// paused or crashed inside the critical section and a requester crashed while waiting; for
/// `leader_uniqueness`, the leader crashed or paused, a restarted node naming a leader soon
/// after, and two nodes down together.
pub fn goals_for_properties(properties: &[&str]) -> Vec<Goal> {
    let mut goals = Vec::new();
    if properties.contains(&"mutual_exclusion") {
        goals.push(
            Goal::fault_inside("paused_in_cs", "pause", "cs_enter", "cs_exit")
                .needs(&[FaultClass::Pauses]),
        );
        goals.push(
            Goal::fault_inside("crashed_in_cs", "crash", "cs_enter", "cs_exit")
                .needs(&[FaultClass::Crashes, FaultClass::CrashStop]),
        );
        goals.push(
            Goal::fault_inside("crashed_waiting", "crash", "cs_request", "cs_enter")
                .needs(&[FaultClass::Crashes, FaultClass::CrashStop]),
        );
    }
    if properties.contains(&"leader_uniqueness") {
        goals.push(Goal::leader_hit("leader_hit").needs(&[
            FaultClass::Crashes,
            FaultClass::CrashStop,
            FaultClass::Pauses,
        ]));
        goals.push(
            Goal::sequence("leader_after_restart", "restart", "leader", 100)
                .needs(&[FaultClass::Crashes]),
        );
        goals.push(
            Goal::nodes_down_together("two_down", 2)
                .needs(&[FaultClass::Crashes, FaultClass::CrashStop]),
        );
    }
    goals
}

/// The fault model generation uses for `variant`: the declared one and the classes its bug
/// needs ([`Algorithm::bug_classes`]).
pub fn generation_model<A: Algorithm + ?Sized>(alg: &A, variant: &str) -> FaultModel {
    let mut model = alg.info().fault_model;
    model.tolerates.extend(alg.bug_classes(variant));
    model
}

/// The most rounds of faults at moments one mutation adds (uniform from 1).
///
/// Guided campaigns of 20,000 seeds (default mix, `--keep-going`), failing seeds of
/// `stale-coordinator`, `volatile-vote`, `forget-promise` and `clock-fresh-ok` with a mutation
/// adding 1 moment fault: 25, 9, 116, 264 (53 s for the four); 1 to 10: 32, 9, 182, 413 (58 s);
/// 1 to 20: 40, 15, 129, 391 (67 s); 1 to 40: 45, 11, 163, 387 (92 s).
pub const MUTATION_MOMENT_ROUNDS_MAX: usize = 10;

/// A mutation of the scenario skeleton `parent` (from the corpus), drawn from `seed`: one or
/// two of
/// - 1 to [`MUTATION_MOMENT_ROUNDS_MAX`] faults at protocol moments of the parent's run, each
///   from a pilot run (as [`add_moment_faults`](crate::moments::add_moment_faults));
/// - the run's randomness redrawn from `seed` (every delay, loss and duplicate), the plan kept;
/// - a new schedule (PCT priorities, POS, random);
/// - one fault moved by a few milliseconds;
/// - one fault removed.
///
/// The workload stays the parent's (it comes from the skeleton's own generator). Every
/// result completes to a valid scenario inside the parent's fault model; a mutation that
/// would not is skipped. Returns the skeleton and what was done.
pub fn mutate<A: Algorithm + ?Sized>(
    alg: &A,
    parent: &Draft,
    variant: &str,
    seed: u64,
    opts: &GenOptions,
) -> (Draft, String) {
    let mut rng = SimRng::derive(seed, 0xC0F0);
    let mut d = parent.clone();
    let mut done = Vec::new();
    // The parent's own phase (a swarm may have drawn it from `opts.active_ms`).
    let opts = &opts.for_draft(parent);
    let active_ms = opts.active_ms.max(10);
    let valid = |d: &Draft| alg.complete(d.clone(), opts).validate().is_ok();
    let rounds = 1 + rng.index(2);
    for round in 0..rounds {
        match rng.index(8) {
            0..=2 => {
                let model = generation_model(alg, variant);
                let sub = seed ^ (0x9E37_79B9_7F4A_7C15u64.wrapping_mul(round as u64 + 1));
                let k = 1 + SimRng::derive(seed, 0x3011).index(MUTATION_MOMENT_ROUNDS_MAX);
                let added = crate::moments::add_moment_faults(alg, &mut d, &model, sub, k, opts);
                if !added.is_empty() {
                    done.push(format!("moment fault ({})", added.join("; ")));
                }
            }
            3 | 4 => {
                d.scenario.seed = seed.wrapping_add(round as u64);
                done.push(format!("randomness redrawn (seed {})", d.scenario.seed));
            }
            5 if opts.engine != EngineKind::Turmoil => {
                let nodes = d.scenario.nodes;
                let (schedule, _) =
                    Strategy::Mix.draw(seed ^ 0x5EED, nodes, active_ms, opts.engine);
                d.scenario.schedule = schedule;
                done.push("new schedule".into());
            }
            6 | 7 => {
                let units = windows(&d.scenario.faults);
                if units.is_empty() {
                    continue;
                }
                let (open, close) = units[rng.index(units.len())];
                let mut cand = d.clone();
                let faults = &mut cand.scenario.faults;
                let at = faults[open].at_ms;
                let what = if rng.chance(0.5) {
                    // Move the whole window (its end too) by 1 to 50 ms, log-uniform.
                    let by = (rng.unit() * 50f64.ln()).exp().round().max(1.0) as u64;
                    let later = rng.chance(0.5);
                    let shift = |t: u64| {
                        if later {
                            t + by
                        } else {
                            t.saturating_sub(by).max(1)
                        }
                    };
                    let end = close.map_or(at, |c| faults[c].at_ms);
                    if shift(end) >= active_ms || shift(at) == at {
                        continue;
                    }
                    for i in [Some(open), close].into_iter().flatten() {
                        faults[i].at_ms = shift(faults[i].at_ms);
                    }
                    format!("fault window at {at} ms moved to {} ms", shift(at))
                } else {
                    // The end first: it comes after the opening fault.
                    for i in [close, Some(open)].into_iter().flatten() {
                        faults.remove(i);
                    }
                    format!("fault window at {at} ms removed")
                };
                cand.scenario.faults.sort_by_key(|f| f.at_ms);
                if no_overlap(&cand.scenario.faults) && valid(&cand) {
                    d = cand;
                    done.push(what);
                }
            }
            _ => {}
        }
    }
    if done.is_empty() {
        d.scenario.seed = seed;
        done.push(format!("randomness redrawn (seed {seed})"));
    }
    (d, done.join(", "))
}

/// The fault windows of a plan, as (index of the opening fault, index of its end): a crash
/// and the node's next restart (none for a crash-stop), a pause and its resume, a partition
/// and the next heal; a clock jump alone. Link changes (delay spikes, whose end is another
/// link change) are left out: a mutation moves or removes whole windows only, so it never
/// leaves a node paused, crashed or cut off for good.
fn windows(faults: &[TimedFault]) -> Vec<(usize, Option<usize>)> {
    let mut out = Vec::new();
    for (i, f) in faults.iter().enumerate() {
        let closes = |g: &Fault| match (&f.fault, g) {
            (Fault::Crash { node }, Fault::Restart { node: m })
            | (Fault::Pause { node }, Fault::Resume { node: m }) => node == m,
            (Fault::Partition { .. } | Fault::PartitionOneway { .. }, Fault::Heal) => true,
            _ => false,
        };
        match &f.fault {
            Fault::Crash { .. }
            | Fault::Pause { .. }
            | Fault::Partition { .. }
            | Fault::PartitionOneway { .. } => {
                let end = faults[i + 1..].iter().position(|g| closes(&g.fault));
                out.push((i, end.map(|k| i + 1 + k)));
            }
            Fault::ClockJump { .. } => out.push((i, None)),
            _ => {}
        }
    }
    out
}

/// True when no two windows of [`windows`] overlap on the same node, and no two partitions
/// overlap (a mutation must not crash a paused node or nest partitions the generator keeps
/// apart).
fn no_overlap(faults: &[TimedFault]) -> bool {
    let spans: Vec<(Option<usize>, u64, u64)> = windows(faults)
        .into_iter()
        .filter(|&(o, _)| !matches!(faults[o].fault, Fault::ClockJump { .. }))
        .map(|(o, c)| {
            let end = c.map_or(u64::MAX, |c| faults[c].at_ms);
            (faults[o].fault.node(), faults[o].at_ms, end)
        })
        .collect();
    spans.iter().enumerate().all(|(i, a)| {
        spans[i + 1..]
            .iter()
            .all(|b| a.0 != b.0 || a.2 <= b.1 || b.2 <= a.1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use sincro_harness::{Observation, RunOptions};

    #[test]
    fn only_a_goal_of_its_own_predicate_reads_message_text() {
        let built_in = goals_for_properties(&["mutual_exclusion", "leader_uniqueness"]);
        assert!(built_in.len() >= 4);
        for g in &built_in {
            assert!(!g.reads_text(), "{} reads kinds only", g.name);
        }
        assert!(!Goal::sequence("s", "restart", "leader", 100).reads_text());
        assert!(Goal::new("mine", "my predicate", |_| false).reads_text());
        assert!(Goal::new("mine", "my predicate", |_| false)
            .needs(&[FaultClass::Crashes])
            .reads_text());
        // a user's goal that reads kinds only says so
        assert!(!Goal::new("mine", "my predicate", |_| false)
            .of_kinds()
            .reads_text());
    }

    fn ev(t_ms: u64, node: usize, kind: EventKind) -> Event {
        Event {
            id: 0,
            t_ns: t_ms * 1_000_000,
            node: Some(node),
            local_ns: None,
            kind,
        }
    }
    fn obs(t_ms: u64, node: usize, obs: Observation) -> Event {
        ev(t_ms, node, EventKind::Observe { obs })
    }
    fn fault(t_ms: u64, f: Fault) -> Event {
        let node = f.node().unwrap_or(0);
        ev(t_ms, node, EventKind::Fault { fault: f })
    }
    fn trace(events: Vec<Event>) -> Trace {
        Trace::new(3, events)
    }

    #[test]
    fn a_pause_inside_the_critical_section_reaches_the_goal_and_one_outside_does_not() {
        let goal = &goals_for_properties(&["mutual_exclusion"])[0];
        assert_eq!(goal.name, "paused_in_cs");
        let inside = trace(vec![
            obs(1, 1, Observation::CsEnter { resource: 0 }),
            fault(2, Fault::Pause { node: 1 }),
            obs(3, 1, Observation::CsExit { resource: 0 }),
        ]);
        assert!(goal.reached(&inside));
        let after = trace(vec![
            obs(1, 1, Observation::CsEnter { resource: 0 }),
            obs(2, 1, Observation::CsExit { resource: 0 }),
            fault(3, Fault::Pause { node: 1 }),
        ]);
        assert!(!goal.reached(&after));
        // Another node's critical section does not count.
        let other = trace(vec![
            obs(1, 2, Observation::CsEnter { resource: 0 }),
            fault(2, Fault::Pause { node: 1 }),
        ]);
        assert!(!goal.reached(&other));
    }

    #[test]
    fn election_goals_see_the_leader_hit_a_restart_then_a_leader_and_two_nodes_down() {
        let goals = goals_for_properties(&["leader_uniqueness"]);
        let by = |n: &str| goals.iter().find(|g| g.name == n).unwrap();
        let leads = |t, n, l| {
            obs(
                t,
                n,
                Observation::Leader {
                    leader: Some(l),
                    term: 0,
                },
            )
        };
        let hit = trace(vec![leads(1, 2, 2), fault(5, Fault::Crash { node: 2 })]);
        assert!(by("leader_hit").reached(&hit));
        let follower = trace(vec![leads(1, 1, 2), fault(5, Fault::Crash { node: 1 })]);
        assert!(!by("leader_hit").reached(&follower));

        let restart = |t, n| ev(t, n, EventKind::Start { incarnation: 1 });
        assert!(by("leader_after_restart").reached(&trace(vec![restart(10, 1), leads(50, 1, 2)])));
        assert!(!by("leader_after_restart").reached(&trace(vec![restart(10, 1), leads(500, 1, 2)])));
        assert!(!by("leader_after_restart").reached(&trace(vec![leads(5, 1, 2), restart(10, 1)])));

        let two = trace(vec![
            fault(1, Fault::Crash { node: 0 }),
            fault(2, Fault::Crash { node: 1 }),
        ]);
        assert!(by("two_down").reached(&two));
        let apart = trace(vec![
            fault(1, Fault::Crash { node: 0 }),
            restart(2, 0),
            fault(3, Fault::Crash { node: 1 }),
        ]);
        assert!(!by("two_down").reached(&apart));
        assert!(goals
            .iter()
            .all(|g| !g.possible_under(&FaultModel::default())));
    }

    #[test]
    fn features_tell_event_orders_apart_and_ignore_repeats() {
        let a = ev(1, 0, EventKind::Input { input: "x".into() });
        let b = fault(2, Fault::Pause { node: 0 });
        let ab = features(&trace(vec![a.clone(), b.clone()]));
        let ba = features(&trace(vec![b.clone(), a.clone()]));
        assert_ne!(ab, ba);
        assert_eq!(ab, features(&trace(vec![a.clone(), b.clone()])));
        let mut sorted = ab.clone();
        sorted.dedup();
        assert_eq!(sorted, ab);
        assert_eq!(event_kind(&b), "fault:pause");
        assert_eq!(
            event_kind(&obs(1, 0, Observation::CsEnter { resource: 0 })),
            "cs_enter"
        );
    }

    #[test]
    fn mutations_stay_valid_inside_the_model_and_never_orphan_a_window() {
        for (name, variant) in [
            ("mutex.ricart-agrawala", "correct"),
            ("election.bully", "correct"),
        ] {
            let alg = find(name).unwrap();
            let opts = GenOptions::default();
            let model = generation_model(alg, variant);
            let mut changed = 0;
            for seed in 0..25 {
                let parent = alg.draft(variant, seed, &opts);
                let (d, what) = mutate(alg, &parent, variant, 1000 + seed, &opts);
                assert!(!what.is_empty());
                let sc = alg.complete(d.clone(), &opts);
                sc.validate().unwrap();
                for c in sc.fault_classes() {
                    assert!(
                        model.allows(c),
                        "{name} seed {seed}: {c:?} outside the model"
                    );
                }
                // Every pause is resumed, and a restart follows each crash but a crash-stop.
                for (i, f) in sc.faults.iter().enumerate() {
                    if let Fault::Pause { node } = f.fault {
                        assert!(
                            sc.faults[i + 1..]
                                .iter()
                                .any(|g| g.fault == Fault::Resume { node }),
                            "{name} seed {seed}: pause of n{node} never resumed after {what}"
                        );
                    }
                }
                // The same seed mutates the same way.
                let (again, _) = mutate(alg, &parent, variant, 1000 + seed, &opts);
                assert_eq!(alg.complete(again, &opts), sc);
                changed += usize::from(alg.complete(parent, &opts) != sc);
                assert!(alg.run(&sc, RunOptions::default()).is_ok());
            }
            assert!(
                changed >= 20,
                "{name}: only {changed} of 25 mutations changed anything"
            );
        }
    }

    /// With a swarm over the phase, a seed's draft, its completion (workload, duration), its
    /// moment faults and its mutations all keep to the draft's own phase.
    #[test]
    fn drafts_and_mutations_keep_to_their_own_phase() {
        let alg = find("mutex.ricart-agrawala").unwrap();
        let opts = GenOptions {
            phase_swarm: true,
            ..GenOptions::default()
        };
        let mut phases = std::collections::BTreeSet::new();
        let mut late_input = false;
        for seed in 0..60 {
            let parent = alg.draft("correct", seed, &opts);
            let phase = parent.active_ms;
            phases.insert(phase);
            let sc = alg.generate("correct", seed, &opts);
            assert_eq!(sc, alg.complete(parent.clone(), &opts.for_draft(&parent)));
            assert!(
                sc.quiet_from_ms() <= phase,
                "seed {seed}: faults past {phase} ms"
            );
            assert!(sc.workload.iter().all(|w| w.at_ms <= phase), "seed {seed}");
            late_input |= sc.workload.iter().any(|w| w.at_ms > 1_000);
            assert!(sc.duration_ms > phase);
            let (d, what) = mutate(alg, &parent, "correct", 1000 + seed, &opts);
            assert_eq!(d.active_ms, phase, "{what}");
            let m = alg.complete(d.clone(), &opts.for_draft(&d));
            m.validate().unwrap();
            assert!(m.quiet_from_ms() <= phase, "seed {seed}: {what}");
        }
        assert_eq!(
            phases.len(),
            sincro_harness::gen::PHASE_FACTORS.len(),
            "{phases:?}"
        );
        assert!(late_input, "no long phase put an input past 1 s");
    }
}
