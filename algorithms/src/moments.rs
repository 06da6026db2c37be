//! Faults at protocol moments: crash, pause, cut off, slow down or jump the clock of a node right
//! before or right after something happens in the protocol — it enters the critical section,
//! becomes leader, grants, restarts and sends its first message — in the spirit of FoundationDB's
//! BUGGIFY and Antithesis' fault injection at interesting points.
//!
//! A generated scenario is a plan of faults at fixed times, and so is one with moment faults:
//! [`add_moment_faults`] runs a *pilot* of the scenario, picks a moment from its trace (a kind of
//! event first, uniformly among the protocol's states half the time ([`STATE_SHARE`]) and among
//! every kind the run shows otherwise, then one event of that kind), and adds a fault of a class of
//! the fault model around it — right before it (at the start of its millisecond: the message it
//! sends leaves into the fault, the one it receives finds the node down), right after it (the next
//! millisecond), or a little later — with its end (restart, resume, heal, restored latency) inside
//! the active phase; a quarter of the rounds ([`BURST_SHARE`]) put one more fault at the same
//! moment. Every second round (a seed draws 1 to 80,
//! [`moment_rounds`](sincro_harness::gen::moment_rounds); [`FAULTS_PER_PILOT`]) runs the new
//! scenario as its pilot, so moments chain: a node crashed at one moment can be hit again right after its restart. A
//! pilot runs a phase past the active one ([`PILOT_PHASES`]) and is judged: the rounds stop at
//! the first one whose scenario breaks a property, even one that breaks only after the faults
//! stop. The
//! scenario's description names each moment; the scenario file holds plain timed faults, so it
//! replays exactly on every engine and shrinks like any other.
//!
//! Every fault stays inside the fault model the generator uses (the declared model, the buggy
//! variant's [`bug_classes`](crate::registry::Algorithm::bug_classes), everything with
//! `beyond_model`, only the forced class in the matrix), never touches a node another fault
//! already holds down over the same window, and adds no second crash-stop: moment faults
//! reach new states of the protocol without leaving the model.

use crate::registry::Algorithm;
use sincro_harness::fault::{Fault, FaultClass, FaultModel, TimedFault, GEN_CLOCK_JUMP_MS_MAX};
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::net::{Latency, LinkOverride};
use sincro_harness::{EventKind, NodeId, RunOptions, Scenario, SimRng, Trace, Verdict};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The fault classes a moment fault can take, in the order they are drawn from.
pub const MOMENT_CLASSES: [FaultClass; 7] = [
    FaultClass::Crashes,
    FaultClass::CrashStop,
    FaultClass::Pauses,
    FaultClass::Partitions,
    FaultClass::OnewayPartitions,
    FaultClass::ClockJumps,
    FaultClass::DelaySpikes,
];

/// How many moments of one run a round tries before it gives up (a fault that would clash
/// with the plan is skipped, and another moment drawn).
const TRIES: usize = 8;

/// Share of the rounds whose moment gets a burst: 1 to [`BURST_EXTRA_MAX`] more faults at the
/// same moment (another node crashed, the leader paused too, the window ended as well), for
/// one pilot. A deep bug often needs two things to go wrong at once around one event; one
/// fault a round reaches that only when two rounds draw the same moment. Stop 27, failing
/// seeds of 60,000 (three offsets, default mix) without bursts and with them (1/4 of the
/// rounds, one more fault): `stale-coordinator` 194 and 259, `volatile-vote` 41 and 82,
/// `forget-promise` 653 and 491, `clock-fresh-ok` 622 and 524 (the README's search tables).
pub const BURST_SHARE: f64 = 0.25;

/// The most faults a burst adds to its round's first one.
pub const BURST_EXTRA_MAX: usize = 1;

/// How many faults the rounds add from one pilot's moments before they run the next pilot:
/// each accepted fault used to pay for a pilot of its own. With two faults a pilot, a seed
/// draws up to twice the faults ([`MOMENT_ROUNDS_MAX`](sincro_harness::gen::MOMENT_ROUNDS_MAX) 80, not 40) for about the pilots it
/// ran before; the second fault aims at a moment of a run without the first, which still
/// comes at its time unless the first fault changed what happens then. Stop 74, `sincro
/// calibrate -a A --variant V --strategy mix --offsets 5 --seeds 2000 -j 2` (failing seeds
/// of 10,000, wall time), rounds 1–40 a pilot each (before) → 1–80 two a pilot (now) → 1–80
/// a pilot each → 1–160 four a pilot:
///
/// | variant | 1–40, 1 a pilot | 1–80, 2 a pilot | 1–80, 1 a pilot | 1–160, 4 a pilot |
/// |---|---:|---:|---:|---:|
/// | `stale-coordinator` | 59, 15 s | 128, 23 s | 140, 39 s | 191, 38 s |
/// | `volatile-vote` | 2,406, 19 s | 3,630, 17 s | | 4,638, 15 s |
/// | `forget-promise` | 130, 48 s | 188, 48 s | | 190, 51 s |
/// | `clock-fresh-ok` | 564, 3 s | 498, 4 s | | 473, 5 s |
///
/// Over 20 offsets (40,000 seeds) `stale-coordinator` went from 0.59 % (stop 73, 5 offsets)
/// to 1.20 % (480 failing seeds, median 71 seeds to the first failure against 125).
pub const FAULTS_PER_PILOT: usize = 2;

/// How long a pilot runs, in active phases: through the active phase and as long again after
/// it, or to the scenario's end if that comes first ([`pilot_end_ms`]). Moments are drawn from
/// the active phase alone; the time after it is there to judge. Some properties can break
/// only once the faults have stopped (`leader_stability` is judged from the quiet time on, so
/// a stale message still circulating after the last restart breaks it there): a pilot cut at
/// the phase's end never saw them, and the next rounds went on adding faults that could hide
/// the break. Now the rounds stop at the first scenario whose pilot breaks a property, and
/// the seed fails with it. The moments drawn do not change (a run is the same up to any time
/// whatever its end), so an unguided seed that failed before still fails. Stop 39, guided
/// campaigns of 20,000 seeds (failing seeds per offset 0 to 4 million, `1` → `2`):
/// `stale-coordinator` 5, 8, 3, 2, 5 → 22, 19, 19, 23, 17 (the README's search tables).
pub const PILOT_PHASES: u64 = 2;

/// Where a pilot of a scenario of `duration_ms` with an active phase of `active_ms` ends:
/// `pilot_phases` phases in, or at the scenario's end if that comes first.
pub fn pilot_end_ms(duration_ms: u64, active_ms: u64, pilot_phases: u64) -> u64 {
    duration_ms.min(active_ms.saturating_mul(pilot_phases))
}

/// A moment of a pilot run: an event of `node` at `t_ns`, of a `kind` such as `cs_enter`,
/// `leader`, `send:Request`, `deliver:Grant`, `timer:Retry`, `restart` or
/// `first_send_after_restart`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moment {
    /// The kind of event (shared by every moment of that kind).
    pub kind: Arc<str>,
    /// The node it happened at.
    pub node: NodeId,
    /// The other node it involves, if any: a message's destination or sender, the leader an
    /// observation names.
    pub peer: Option<NodeId>,
    /// Its global time, ns.
    pub t_ns: u64,
    /// Its number among the events of this kind at this node (1 for the first).
    pub nth: usize,
}

/// What a kind's name starts with: the word after it is a message's or a timer's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prefix {
    None,
    Send,
    Deliver,
    Timer,
}

impl Prefix {
    fn text(self) -> &'static str {
        match self {
            Prefix::None => "",
            Prefix::Send => "send:",
            Prefix::Deliver => "deliver:",
            Prefix::Timer => "timer:",
        }
    }
}

/// A moment as [`collect`] keeps it: its kind is the [`Kind`] that holds it (no shared name
/// to count references to: a pilot has thousands of moments, and one is drawn).
#[derive(Clone, Copy, Debug)]
struct At {
    node: NodeId,
    peer: Option<NodeId>,
    t_ns: u64,
    nth: usize,
}

impl At {
    fn moment(&self, kind: &Arc<str>) -> Moment {
        Moment {
            kind: kind.clone(),
            node: self.node,
            peer: self.peer,
            t_ns: self.t_ns,
            nth: self.nth,
        }
    }
}

/// One kind of moment, with its moments in time order.
struct Kind {
    prefix: Prefix,
    word: String,
    name: Arc<str>,
    moments: Vec<At>,
    /// Moments of this kind so far, per node.
    counts: Vec<usize>,
}

/// The moments of `trace` before `before_ns`, grouped by kind (in name order). Messages and
/// timers are told apart by their type (the first word of their rendering, `Request` of
/// `Request { ts: 3 }`), so a rare message type is drawn as often as a common one.
pub fn moments(trace: &Trace, before_ns: u64) -> BTreeMap<String, Vec<Moment>> {
    collect(trace, before_ns)
        .into_iter()
        .map(|k| {
            let moments = k.moments.iter().map(|a| a.moment(&k.name)).collect();
            (k.name.to_string(), moments)
        })
        .collect()
}

/// [`moments`] as [`add_moment_faults`] draws from them: the kinds in name order, each name
/// once.
fn collect(trace: &Trace, before_ns: u64) -> Vec<Kind> {
    // A pilot has thousands of events of a few dozen kinds: each event finds its kind by a
    // short search on (prefix, word), with no string built; names are built once per kind.
    let mut kinds: Vec<Kind> = Vec::new();
    let mut restarted = vec![false; trace.nodes];
    let mut note = |prefix: Prefix, word: &str, node: NodeId, peer: Option<NodeId>, t_ns| {
        let k = match kinds
            .iter()
            .position(|k| k.prefix == prefix && k.word == word)
        {
            Some(k) => k,
            None => {
                kinds.push(Kind {
                    prefix,
                    word: word.to_string(),
                    name: format!("{}{word}", prefix.text()).into(),
                    moments: Vec::new(),
                    counts: vec![0; trace.nodes],
                });
                kinds.len() - 1
            }
        };
        let kind = &mut kinds[k];
        kind.counts[node] += 1;
        kind.moments.push(At {
            node,
            peer: peer.filter(|&p| p < trace.nodes && p != node),
            t_ns,
            nth: kind.counts[node],
        });
    };
    for e in trace.events() {
        let Some(node) = e.node else { continue };
        if e.t_ns >= before_ns || node >= trace.nodes {
            continue;
        }
        let t = e.t_ns;
        match &e.kind {
            EventKind::Start { incarnation } if *incarnation > 0 => {
                restarted[node] = true;
                note(Prefix::None, "restart", node, None, t);
            }
            EventKind::Send { to, msg, .. } => {
                note(Prefix::Send, type_word(msg), node, Some(*to), t);
                if std::mem::take(&mut restarted[node]) {
                    note(Prefix::None, "first_send_after_restart", node, Some(*to), t);
                }
            }
            EventKind::Deliver { from, msg, .. } => {
                note(Prefix::Deliver, type_word(msg), node, Some(*from), t);
            }
            EventKind::Timer { timer, .. } => {
                note(Prefix::Timer, type_word(timer), node, None, t);
            }
            EventKind::Input { .. } => note(Prefix::None, "input", node, None, t),
            EventKind::Observe { obs } => {
                let peer = match obs {
                    sincro_harness::Observation::Leader { leader, .. } => *leader,
                    _ => None,
                };
                note(Prefix::None, &observation_kind_of(obs), node, peer, t);
            }
            _ => {}
        }
    }
    // In name order; were two kinds to share a name, the one found last would stand for it.
    kinds.reverse();
    kinds.sort_by(|a, b| a.name.cmp(&b.name)); // stable: the last found comes first
    kinds.dedup_by(|later, first| later.name == first.name);
    kinds
}

/// Share of the moments drawn among the protocol's states (observations, restarts, first
/// sends after a restart, inputs) rather than among every kind, messages and timers included.
/// A run shows a few state kinds among dozens of message and timer kinds, while the faults that
/// matter most hit a node in a role: the leader right after it is named, the holder inside its
/// critical section, the voter just restarted.
pub const STATE_SHARE: f64 = 0.5;

/// True for a kind of moment that is a protocol state (an observation, a restart, the first
/// send after one, an input), not a single message or timer.
fn is_state_kind(kind: &str) -> bool {
    !(kind.starts_with("send:") || kind.starts_with("deliver:") || kind.starts_with("timer:"))
}

pub(crate) use sincro_harness::trace::type_word;

/// The name of an observation's kind, without serializing the common ones (see
/// [`observation_kind`]).
pub(crate) fn observation_kind_of(
    obs: &sincro_harness::Observation,
) -> std::borrow::Cow<'static, str> {
    use sincro_harness::Observation as O;
    use std::borrow::Cow::Borrowed;
    match obs {
        O::CsRequest { .. } => Borrowed("cs_request"),
        O::CsEnter { .. } => Borrowed("cs_enter"),
        O::CsExit { .. } => Borrowed("cs_exit"),
        O::CsAbandon { .. } => Borrowed("cs_abandon"),
        O::Leader { .. } => Borrowed("leader"),
        O::Delivered { .. } => Borrowed("delivered"),
        O::Multicast { .. } => Borrowed("multicast"),
        O::State { .. } => Borrowed("state"),
        O::LogicalTime { .. } => Borrowed("logical_time"),
        O::WaitFor { .. } => Borrowed("wait_for"),
        O::WaitEnd { .. } => Borrowed("wait_end"),
        O::DeadlockDetected { .. } => Borrowed("deadlock_detected"),
        O::Note { .. } => Borrowed("note"),
        other => std::borrow::Cow::Owned(observation_kind(other)),
    }
}

/// The name of an observation's kind: its JSON tag (`cs_enter`, `leader`…), `user:<kind>`
/// for a user's own.
fn observation_kind(obs: &sincro_harness::Observation) -> String {
    if let sincro_harness::Observation::User { kind, .. } = obs {
        return format!("user:{kind}");
    }
    match serde_json::to_value(obs) {
        Ok(serde_json::Value::Object(m)) => m.keys().next().cloned().unwrap_or_default(),
        Ok(serde_json::Value::String(s)) => s,
        _ => "observation".into(),
    }
}

/// Adds up to `rounds` faults at protocol moments to the scenario skeleton `draft` (see the
/// [module](self) documentation), drawn from `seed`; `model` is the fault model generation
/// used. The faults go into the skeleton, so the algorithm's
/// [`complete`](Algorithm::complete) then sizes the run with them (as it does for the
/// generator's own faults). Returns the moments' descriptions (also appended to the
/// scenario's description). Each round's pilot runs a phase past the active one
/// ([`PILOT_PHASES`]); the rounds stop at the first pilot that breaks a property (the draft
/// keeps the faults that broke it). A run the engine refuses, a model with no class to draw
/// from, or an algorithm whose completion drops timed faults (Ω's shared-memory model) adds
/// nothing; a fault the completed scenario would not show is never added. A round that adds
/// nothing leaves the pilot as it was, so the next round draws from the same pilot's moments
/// without running it again.
pub fn add_moment_faults<A: Algorithm + ?Sized>(
    alg: &A,
    draft: &mut Draft,
    model: &FaultModel,
    seed: u64,
    rounds: usize,
    opts: &GenOptions,
) -> Vec<String> {
    add_moment_faults_piloted(alg, draft, model, seed, rounds, opts, PILOT_PHASES)
}

/// [`add_moment_faults`] with pilots that run `pilot_phases` active phases (see
/// [`PILOT_PHASES`]); the tests compare pilots cut at the phase's end with the default.
fn add_moment_faults_piloted<A: Algorithm + ?Sized>(
    alg: &A,
    draft: &mut Draft,
    model: &FaultModel,
    seed: u64,
    rounds: usize,
    opts: &GenOptions,
    pilot_phases: u64,
) -> Vec<String> {
    let classes: Vec<FaultClass> = MOMENT_CLASSES
        .into_iter()
        .filter(|&c| match opts.only {
            Some(only) => only == c,
            None if c == FaultClass::CrashStop => {
                opts.beyond_model || model.crash_stop_allowed(draft.scenario.nodes)
            }
            None => opts.beyond_model || model.allows(c),
        })
        .collect();
    let mut added = Vec::new();
    if classes.is_empty() {
        return added;
    }
    // The draft's own phase (a swarm may have drawn it from `opts.active_ms`).
    let opts = &opts.for_draft(draft);
    let active_ms = opts.active_ms.max(10);
    // The scenario the draft completes to, and its pilot's moments: a round that adds no fault
    // leaves both as they were, so the next round draws from them again without a new pilot.
    let mut done = alg.complete(draft.clone(), opts);
    if !draft.scenario.faults.is_empty() && done.faults.is_empty() {
        // The algorithm's completion drops timed faults (Ω's shared-memory model has none):
        // a moment fault could change nothing.
        return added;
    }
    let mut pilot_moments: Option<Vec<Kind>> = None;
    for round in 0..rounds {
        let mut rng = SimRng::derive(seed, 0x3043_0000 + round as u64);
        if pilot_moments.is_none() {
            let Some(trace) = pilot(alg, &done, active_ms, pilot_phases) else {
                break;
            };
            pilot_moments = Some(collect(&trace, active_ms.saturating_sub(1) * 1_000_000));
        }
        let by_kind = pilot_moments.as_ref().expect("the pilot ran");
        if by_kind.is_empty() {
            break;
        }
        let kinds: Vec<&Kind> = by_kind.iter().collect();
        let states: Vec<&Kind> = by_kind
            .iter()
            .filter(|kind| is_state_kind(&kind.name))
            .collect();
        let mut accepted = None;
        for _ in 0..TRIES {
            let pool = if !states.is_empty() && rng.chance(STATE_SHARE) {
                &states
            } else {
                &kinds
            };
            let kind = pool[rng.index(pool.len())];
            let m = &kind.moments[rng.index(kind.moments.len())].moment(&kind.name);
            // The whole plan with one more fault (or a window ended), in time order: a burst's
            // next proposal and `node_free` read the plan in that order.
            let propose = |sc: &Scenario, rng: &mut SimRng| {
                let class = classes[rng.index(classes.len())];
                let proposal = if rng.chance(0.5) {
                    end_window(sc, m, rng)
                } else {
                    plan(sc, m, class, active_ms, model, rng).map(|(faults, what)| {
                        let mut all = sc.faults.clone();
                        all.extend(faults);
                        (all, what)
                    })
                };
                proposal.map(|(mut all, what)| {
                    all.sort_by_key(|f| f.at_ms); // stable
                    (all, what)
                })
            };
            let mut proposal = propose(&draft.scenario, &mut rng);
            if proposal.is_some() && rng.chance(BURST_SHARE) {
                // A burst: more faults at the same moment, each on the plan the last one made.
                for _ in 0..1 + rng.index(BURST_EXTRA_MAX) {
                    let (faults, what) = proposal.clone().expect("checked above");
                    let mut sc = draft.scenario.clone();
                    sc.faults = faults;
                    if let Some((more, also)) = propose(&sc, &mut rng) {
                        proposal = Some((more, format!("{what}; {also}")));
                    }
                }
            }
            if let Some((faults, what)) = proposal {
                let mut cand = draft.clone();
                cand.scenario.faults = faults;
                let completed = alg.complete(cand.clone(), opts);
                // A fault the completed scenario does not show changes nothing: not added.
                if completed.faults != done.faults && completed.validate().is_ok() {
                    accepted = Some((cand, completed, what));
                    break;
                }
            }
        }
        if let Some((cand, completed, what)) = accepted {
            *draft = cand;
            done = completed;
            added.push(what);
            // A new pilot every FAULTS_PER_PILOT faults: the next one is drawn from the same
            // run's moments until then.
            if added.len() % FAULTS_PER_PILOT == 0 {
                pilot_moments = None;
            }
        }
    }
    if !added.is_empty() {
        let sc = &mut draft.scenario;
        sc.description = format!("{}; moments: {}", sc.description, added.join("; "));
    }
    added
}

/// The trace of the pilot of `done` (the scenario a draft completes to): its active phase and
/// the time after it, to [`pilot_end_ms`]. `None` when there is nothing to add: the run is
/// refused, panics, hits a limit, or already breaks a property by then (the draft then fails
/// as it stands: its next rounds could only hide the break).
fn pilot<A: Algorithm + ?Sized>(
    alg: &A,
    done: &Scenario,
    active_ms: u64,
    pilot_phases: u64,
) -> Option<Trace> {
    let mut sc = done.clone();
    // The moments come from the active phase, and a run is the same up to any time whatever
    // its end: the pilot stops a phase after it (the rest of a clock run is 1,000 s of
    // convergence), late enough to see a property break once the faults have stopped.
    sc.duration_ms = pilot_end_ms(sc.duration_ms, active_ms, pilot_phases);
    // Moments read only the kinds of events: messages, timers and inputs as type words.
    let out = alg.run(&sc, RunOptions::new(true).type_words_only()).ok()?;
    match out.verdict {
        Verdict::Pass | Verdict::Unjudged { .. } => out.trace,
        _ => None,
    }
}

/// The faults of `class` around moment `m` (right before it, right after it or a little
/// later), and their description; `None` when they would clash with the plan or leave the
/// active phase.
fn plan(
    sc: &Scenario,
    m: &Moment,
    class: FaultClass,
    active_ms: u64,
    model: &FaultModel,
    rng: &mut SimRng,
) -> Option<(Vec<TimedFault>, String)> {
    // The fault hits the moment's node (1/2), the other node it involves (1/3: a message's
    // destination or sender, the leader it names), or any other node.
    let node = match (rng.index(6), m.peer) {
        (0..=2, _) => m.node,
        (3 | 4, Some(peer)) => peer,
        _ if sc.nodes > 1 => (m.node + 1 + rng.index(sc.nodes - 1)) % sc.nodes,
        _ => m.node,
    };
    // When: right before the moment (1/4: at the start of its millisecond, so the message it
    // sends leaves into the fault, late or lost, and the one it receives finds the node down),
    // right after it (3/8: the next millisecond), or a little later (3/8: 2 to 20 ms after).
    let t_ms = m.t_ns / 1_000_000;
    let (at, when) = match rng.index(8) {
        0 | 1 => (t_ms, "before"),
        2..=4 => (t_ms + 1, "after"),
        _ => (t_ms + 1 + rng.range_u64(1, 20), "after"),
    };
    if at >= active_ms {
        return None;
    }
    // Window lengths are log-uniform from 1 ms to `max_len`: as likely to end within the
    // protocol's reaction to the fault (a few latencies) as long after it.
    let until = |rng: &mut SimRng, max_len: u64| {
        let len = (rng.unit() * (max_len.max(1) as f64).ln()).exp().round() as u64;
        (at + len.clamp(1, max_len.max(1))).min(active_ms)
    };
    let tf = |at_ms, fault| TimedFault { at_ms, fault };
    let (faults, what) = match class {
        FaultClass::Crashes => {
            let end = until(rng, active_ms / 2);
            if !node_free(sc, node, at, end) {
                return None;
            }
            let f = vec![
                tf(at, Fault::Crash { node }),
                tf(end, Fault::Restart { node }),
            ];
            (f, format!("crash n{node} at {at} ms, restart at {end} ms"))
        }
        FaultClass::CrashStop => {
            let stopped = sc.fault_classes().contains(&FaultClass::CrashStop);
            if stopped || !node_free(sc, node, at, u64::MAX) {
                return None;
            }
            (
                vec![tf(at, Fault::Crash { node })],
                format!("crash-stop n{node} at {at} ms"),
            )
        }
        FaultClass::Pauses => {
            let end = until(rng, 300);
            if !node_free(sc, node, at, end) {
                return None;
            }
            let f = vec![
                tf(at, Fault::Pause { node }),
                tf(end, Fault::Resume { node }),
            ];
            (f, format!("pause n{node} at {at} ms, resume at {end} ms"))
        }
        FaultClass::Partitions => {
            if sc.nodes < 2 {
                return None;
            }
            let end = until(rng, active_ms / 2);
            let f = vec![
                tf(
                    at,
                    Fault::Partition {
                        groups: vec![vec![node]],
                    },
                ),
                tf(end, Fault::Heal),
            ];
            (f, format!("isolate n{node} at {at} ms, heal at {end} ms"))
        }
        FaultClass::OnewayPartitions => {
            let end = until(rng, active_ms / 2);
            let others: Vec<NodeId> = (0..sc.nodes).filter(|&v| v != node).collect();
            if others.is_empty() {
                return None;
            }
            let (from, to, dir) = if rng.chance(0.5) {
                (vec![node], others, "from")
            } else {
                (others, vec![node], "to")
            };
            let f = vec![
                tf(at, Fault::PartitionOneway { from, to }),
                tf(end, Fault::Heal),
            ];
            (
                f,
                format!("cut the links {dir} n{node} at {at} ms, heal at {end} ms"),
            )
        }
        FaultClass::ClockJumps => {
            let cap = model
                .clock_jump_ms_max
                .unwrap_or(GEN_CLOCK_JUMP_MS_MAX)
                .clamp(1, GEN_CLOCK_JUMP_MS_MAX);
            let size = rng.range_u64(1, u64::from(cap)) as f64;
            let delta_ms = if rng.chance(0.5) { size } else { -size };
            let f = vec![tf(at, Fault::ClockJump { node, delta_ms })];
            (
                f,
                format!("jump n{node}'s clock by {delta_ms} ms at {at} ms"),
            )
        }
        FaultClass::DelaySpikes => {
            let end = until(rng, active_ms / 4);
            let spike_ms = [100.0, 300.0, 1000.0, 3000.0][rng.index(4)];
            let over = |latency: Latency| {
                Fault::SetLinks(Box::new(LinkOverride::latency_from(node, latency)))
            };
            let f = vec![
                tf(at, over(Latency::Constant { ms: spike_ms })),
                tf(end, over(sc.network.latency.clone())),
            ];
            (
                f,
                format!("slow n{node}'s links to {spike_ms} ms at {at} ms, restore at {end} ms"),
            )
        }
        _ => return None,
    };
    let what = format!(
        "{when} n{}'s {} #{} ({:.3} ms): {what}",
        m.node,
        m.kind,
        m.nth,
        m.t_ns as f64 / 1e6
    );
    Some((faults, what))
}

/// For each fault of `faults` (in plan order) that opens a window, the index of the first
/// later fault that ends it: a crash's restart of its node, a pause's resume of its node, a
/// partition's heal; `None` for the others. One pass from the end (a search after every
/// start made [`end_window`] quadratic in the plan, 6 % of a default campaign).
fn window_ends(faults: &[TimedFault]) -> Vec<Option<usize>> {
    let mut ends = vec![None; faults.len()];
    let (mut restart, mut resume) = (BTreeMap::new(), BTreeMap::new());
    let mut heal = None;
    for (j, tf) in faults.iter().enumerate().rev() {
        ends[j] = match &tf.fault {
            Fault::Crash { node } => restart.get(node).copied(),
            Fault::Pause { node } => resume.get(node).copied(),
            Fault::Partition { .. } | Fault::PartitionOneway { .. } => heal,
            _ => None,
        };
        match &tf.fault {
            Fault::Restart { node } => {
                restart.insert(*node, j);
            }
            Fault::Resume { node } => {
                resume.insert(*node, j);
            }
            Fault::Heal => heal = Some(j),
            _ => {}
        }
    }
    ends
}

/// The plan with one fault window that is open at moment `m` (a crashed or paused node, a
/// partition) ended right after it: the node restarts or resumes, the partition heals. `None`
/// when no window is open then.
fn end_window(sc: &Scenario, m: &Moment, rng: &mut SimRng) -> Option<(Vec<TimedFault>, String)> {
    let at = m.t_ns / 1_000_000 + 1;
    let f = &sc.faults;
    let ends = window_ends(f);
    // the indices of the faults that end the windows open then, each once (what each does
    // is said only of the one drawn)
    let mut open: Vec<usize> = Vec::new();
    for (i, start) in f.iter().enumerate() {
        if start.at_ms >= at {
            break;
        }
        if let Some(j) = ends[i] {
            if f[j].at_ms > at && !open.contains(&j) {
                open.push(j);
            }
        }
    }
    if open.is_empty() {
        return None;
    }
    let j = &open[rng.index(open.len())];
    let what = match &f[*j].fault {
        Fault::Restart { node } => format!("restart n{node}"),
        Fault::Resume { node } => format!("resume n{node}"),
        _ => "heal".to_string(),
    };
    let mut faults = f.clone();
    let was = faults[*j].at_ms;
    faults[*j].at_ms = at;
    let what = format!(
        "after n{}'s {} #{} ({:.3} ms): {what} at {at} ms instead of {was} ms",
        m.node,
        m.kind,
        m.nth,
        m.t_ns as f64 / 1e6
    );
    Some((faults, what))
}

/// True when `node` is up and running at `from_ms` under `sc`'s plan, and no crash, restart,
/// pause or resume of it falls in `[from_ms, to_ms]`.
fn node_free(sc: &Scenario, node: NodeId, from_ms: u64, to_ms: u64) -> bool {
    let (mut crashed, mut paused) = (false, false);
    for f in &sc.faults {
        let touches = matches!(
            f.fault,
            Fault::Crash { node: v } | Fault::Restart { node: v } | Fault::Pause { node: v } | Fault::Resume { node: v }
                if v == node
        );
        if !touches {
            continue;
        }
        if f.at_ms >= from_ms {
            if f.at_ms <= to_ms {
                return false;
            }
            continue;
        }
        match f.fault {
            Fault::Crash { .. } => crashed = true,
            Fault::Restart { .. } => crashed = false,
            Fault::Pause { .. } => paused = true,
            Fault::Resume { .. } => paused = false,
            _ => {}
        }
    }
    !crashed && !paused
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;

    #[test]
    fn window_ends_name_the_first_later_fault_that_closes_each_window() {
        // The definition, searched after each start, against the one pass, over random plans
        // of the faults that open and close windows (and one that does neither).
        let naive = |f: &[TimedFault]| -> Vec<Option<usize>> {
            (0..f.len())
                .map(|i| {
                    (i + 1..f.len()).find(|&j| match (&f[i].fault, &f[j].fault) {
                        (Fault::Crash { node }, Fault::Restart { node: v }) => node == v,
                        (Fault::Pause { node }, Fault::Resume { node: v }) => node == v,
                        (Fault::Partition { .. } | Fault::PartitionOneway { .. }, Fault::Heal) => {
                            true
                        }
                        _ => false,
                    })
                })
                .collect()
        };
        let mut closed = 0;
        for seed in 0..300 {
            let mut rng = SimRng::new(seed);
            let plan: Vec<TimedFault> = (0..rng.index(30))
                .map(|k| {
                    let node = rng.index(3);
                    let fault = match rng.index(8) {
                        0 => Fault::Crash { node },
                        1 => Fault::Restart { node },
                        2 => Fault::Pause { node },
                        3 => Fault::Resume { node },
                        4 => Fault::Partition {
                            groups: vec![vec![0], vec![1, 2]],
                        },
                        5 => Fault::PartitionOneway {
                            from: vec![0],
                            to: vec![1],
                        },
                        6 => Fault::Heal,
                        _ => Fault::ClockJump {
                            node,
                            delta_ms: 1.0,
                        },
                    };
                    TimedFault {
                        at_ms: k as u64,
                        fault,
                    }
                })
                .collect();
            let want = naive(&plan);
            closed += want.iter().flatten().count();
            assert_eq!(window_ends(&plan), want, "seed {seed}: {plan:?}");
        }
        assert!(closed > 300, "the plans close windows: {closed}");
    }

    /// `election.terms`, its declared fault model, and options that generate without moments.
    fn terms() -> (&'static dyn Algorithm, FaultModel, GenOptions) {
        let alg = find("election.terms").unwrap();
        let opts = GenOptions {
            strategy: sincro_harness::gen::Strategy::Random,
            ..GenOptions::default()
        };
        (alg, alg.info().fault_model, opts)
    }

    #[test]
    fn moments_group_events_by_kind_and_count_them_per_node() {
        let alg = find("mutex.centralized").unwrap();
        let opts = GenOptions {
            strategy: sincro_harness::gen::Strategy::Random,
            ..GenOptions::default()
        };
        let sc = alg.generate("correct", 3, &opts);
        let trace = alg.run(&sc, RunOptions::default()).unwrap().trace.unwrap();
        let m = moments(&trace, u64::MAX);
        for kind in ["cs_enter", "cs_exit", "cs_request"] {
            assert!(m.contains_key(kind), "no {kind} moment in {:?}", m.keys());
        }
        assert!(m.keys().any(|k| k.starts_with("send:")), "{:?}", m.keys());
        assert!(
            m.keys().any(|k| k.starts_with("deliver:")),
            "{:?}",
            m.keys()
        );
        assert_eq!(type_word("Request { ts: 3 }"), "Request");
        assert_eq!(type_word("Grant"), "Grant");
        let enters = &m["cs_enter"];
        let first = enters.iter().find(|x| x.nth == 1).unwrap();
        assert!(enters
            .iter()
            .filter(|x| x.node == first.node)
            .all(|x| x.t_ns >= first.t_ns));
        assert!(moments(&trace, 0).is_empty());
    }

    #[test]
    fn states_are_observations_restarts_and_inputs_not_messages_or_timers() {
        for kind in [
            "leader",
            "cs_enter",
            "restart",
            "first_send_after_restart",
            "input",
        ] {
            assert!(is_state_kind(kind), "{kind}");
        }
        for kind in ["send:Ping", "deliver:Grant", "timer:Retry"] {
            assert!(!is_state_kind(kind), "{kind}");
        }
    }

    #[test]
    fn moment_faults_come_around_their_moment_inside_the_model() {
        let (alg, model, opts) = terms();
        let mut hit = 0;
        for seed in 0..30 {
            let draft =
                sincro_harness::gen::generate("election.terms", "correct", seed, &model, &opts);
            let base = alg.complete(draft.clone(), &opts);
            let mut with = draft.clone();
            let added = add_moment_faults(alg, &mut with, &model, seed, 2, &opts);
            let sc = alg.complete(with, &opts);
            assert!(sc.validate().is_ok());
            // A moment adds a fault window, or moves the end of one (same count, other times).
            assert_eq!(sc.faults != base.faults, !added.is_empty());
            for c in sc.fault_classes() {
                assert!(model.allows(c), "seed {seed}: {c:?} is outside the model");
            }
            let stops = sc.faults.iter().enumerate().filter(|(i, f)| {
                matches!(f.fault, Fault::Crash { node } if !sc.faults[i + 1..].iter().any(|g| g.fault == Fault::Restart { node }))
            });
            assert!(stops.count() <= 1, "seed {seed}: two crash-stops");
            assert!(
                sc.quiet_from_ms() <= opts.active_ms,
                "seed {seed}: past the active phase"
            );
            hit += added.len();
            // The same seed adds the same moments.
            let mut again = draft.clone();
            add_moment_faults(alg, &mut again, &model, seed, 2, &opts);
            assert_eq!(alg.complete(again, &opts), sc);
        }
        assert!(
            hit >= 30,
            "only {hit} moment faults in 30 seeds of two rounds"
        );
    }

    #[test]
    fn a_crash_right_before_a_send_stops_it_and_one_right_after_does_not() {
        let (alg, model, opts) = terms();
        let draft = sincro_harness::gen::generate("election.terms", "correct", 1, &model, &opts);
        let done = alg.complete(draft.clone(), &opts);
        let trace = alg.run(&done, RunOptions::new(true));
        let trace = trace.unwrap().trace.unwrap();
        let sends_at = |trace: &Trace, node: NodeId, t_ns: u64| {
            trace.events().iter().any(|e| {
                e.node == Some(node) && e.t_ns == t_ns && matches!(e.kind, EventKind::Send { .. })
            })
        };
        let by_kind = moments(&trace, opts.active_ms * 1_000_000);
        let m = by_kind
            .iter()
            .filter(|(kind, _)| kind.starts_with("send:"))
            .flat_map(|(_, ms)| ms)
            .find(|m| {
                let t_ms = m.t_ns / 1_000_000;
                m.t_ns % 1_000_000 != 0 && node_free(&draft.scenario, m.node, t_ms, t_ms + 21)
            })
            .expect("a send of a node no fault holds, off a millisecond boundary");
        let (mut before, mut after) = (0, 0);
        for i in 0..300 {
            let mut rng = SimRng::new(i);
            let planned = plan(
                &draft.scenario,
                m,
                FaultClass::Crashes,
                opts.active_ms,
                &model,
                &mut rng,
            );
            let Some((faults, what)) = planned else {
                continue;
            };
            if faults[0].fault != (Fault::Crash { node: m.node }) {
                continue;
            }
            let mut cand = draft.clone();
            cand.scenario.faults.extend(faults.clone());
            cand.scenario.faults.sort_by_key(|f| f.at_ms);
            let sc = alg.complete(cand, &opts);
            let run = alg.run(&sc, RunOptions::new(true)).unwrap();
            let sent = sends_at(run.trace.as_ref().unwrap(), m.node, m.t_ns);
            if what.starts_with("before") {
                assert_eq!(faults[0].at_ms, m.t_ns / 1_000_000, "{what}");
                assert!(!sent, "{what}: the node sent although it was down");
                before += 1;
            } else {
                assert!(what.starts_with("after"), "{what}");
                assert!(faults[0].at_ms > m.t_ns / 1_000_000, "{what}");
                assert!(sent, "{what}: a fault after the send changed it");
                after += 1;
            }
        }
        assert!(before > 5 && after > 5, "{before} before, {after} after");
    }

    #[test]
    fn a_burst_puts_several_faults_at_one_moment() {
        let (alg, model, opts) = terms();
        let (mut rounds, mut bursts) = (0, 0);
        for seed in 0..200 {
            let draft =
                sincro_harness::gen::generate("election.terms", "correct", seed, &model, &opts);
            let mut with = draft.clone();
            let added = add_moment_faults(alg, &mut with, &model, seed, 1, &opts);
            let Some(what) = added.first() else { continue };
            rounds += 1;
            // "after n1's leader #1 (38.077 ms): pause n1 ...; before n1's leader #1 ...": each
            // part names the round's one moment.
            let parts: Vec<&str> = what.split("; ").collect();
            let moment = |part: &str| {
                part.split_once("): ")
                    .and_then(|(m, _)| m.split_once(' '))
                    .map(|(_, m)| m.to_string())
            };
            let first = moment(parts[0]).expect("a part names its moment");
            for part in &parts {
                assert!(
                    part.starts_with("before n") || part.starts_with("after n"),
                    "{what}"
                );
                assert_eq!(moment(part).as_ref(), Some(&first), "{what}");
            }
            assert!(parts.len() <= 1 + BURST_EXTRA_MAX, "{what}");
            if parts.len() > 1 {
                bursts += 1;
            }
        }
        // A burst is drawn in a quarter of the rounds, and its extra fault is kept when it
        // fits the plan (a window to end, a node free to hit).
        assert!(rounds >= 100, "only {rounds} rounds added a fault");
        assert!(bursts * 40 >= rounds, "{bursts} bursts in {rounds} rounds");
    }

    #[test]
    fn an_algorithm_whose_completion_drops_timed_faults_gets_no_moment() {
        // Ω runs on the shared-memory model: its completion clears the plan, so a moment fault
        // would change nothing (and each round's pilot would be the same run).
        let alg = find("omega.khouri-greve").unwrap();
        let model = alg.info().fault_model;
        let opts = GenOptions {
            strategy: sincro_harness::gen::Strategy::Random,
            ..GenOptions::default()
        };
        let mut empty_plans = 0;
        for seed in 0..12 {
            let mut draft =
                sincro_harness::gen::generate("omega.khouri-greve", "correct", seed, &model, &opts);
            empty_plans += usize::from(draft.scenario.faults.is_empty());
            let before = draft.scenario.clone();
            let added = add_moment_faults(alg, &mut draft, &model, seed, 40, &opts);
            assert!(added.is_empty(), "seed {seed}: {added:?}");
            assert_eq!(draft.scenario, before, "seed {seed}");
        }
        // Both paths were taken: a generated plan the completion drops, and an empty one.
        assert!(
            (1..12).contains(&empty_plans),
            "{empty_plans} empty plans of 12"
        );
    }

    /// The ring's stale-coordinator draft of `seed` under faults at moments, its rounds' pilots
    /// running `pilot_phases` active phases; and the scenario it completes to.
    fn ring_draft(seed: u64, pilot_phases: u64) -> (Vec<String>, Scenario) {
        let alg = find("election.ring").unwrap();
        let variant = "stale-coordinator";
        let model = crate::coverage::generation_model(alg, variant);
        let opts = GenOptions {
            strategy: sincro_harness::gen::Strategy::Moments,
            ..GenOptions::default()
        };
        let mut draft =
            sincro_harness::gen::generate("election.ring", variant, seed, &model, &opts);
        let rounds = draft.moments;
        let added =
            add_moment_faults_piloted(alg, &mut draft, &model, seed, rounds, &opts, pilot_phases);
        let opts = opts.for_draft(&draft);
        (added, alg.complete(draft, &opts))
    }

    #[test]
    fn a_pilot_judges_past_the_active_phase_and_the_rounds_stop_at_its_break() {
        // Seed 77 (345 until stop 85's READY rule changed the ring's runs; 848 from stop 61,
        // 343 before its input bursts, until stop 74's two faults a pilot): with pilots cut at
        // the active phase's end (before stop 39), 61 rounds add faults and the scenario
        // passes. Pilots that run a phase longer stop after 56 rounds:
        // that scenario breaks the ring's promises after the phase, once its faults have
        // stopped (a stale COORDINATOR reaches the leader, which calls an election: judged as
        // leader_stability before stop 60, as no_abdication since), and the later rounds'
        // faults hid it.
        let alg = find("election.ring").unwrap();
        let (cut, cut_sc) = ring_draft(77, 1);
        let (judged, judged_sc) = ring_draft(77, PILOT_PHASES);
        // The same moments are drawn up to the stop: a run is the same up to any time.
        assert!(
            judged.len() < cut.len(),
            "{} rounds, {} cut",
            judged.len(),
            cut.len()
        );
        assert_eq!(judged[..], cut[..judged.len()]);
        let verdict = |sc: &Scenario| alg.run(sc, RunOptions::new(false)).unwrap().verdict;
        assert!(verdict(&cut_sc).is_pass(), "{}", verdict(&cut_sc));
        let Verdict::Violation(v) = verdict(&judged_sc) else {
            panic!("{}", verdict(&judged_sc));
        };
        assert_eq!(v.property, "no_abdication");
        let active_ns = GenOptions::default().active_ms * 1_000_000;
        assert!(v.t_ns > active_ns, "{v}: inside the active phase");
        assert!(
            judged_sc.quiet_from_ms() * 1_000_000 < v.t_ns,
            "{v}: before the faults stop"
        );
    }

    #[test]
    fn no_class_in_the_model_adds_nothing() {
        let alg = find("order.lamport").unwrap();
        let opts = GenOptions {
            only: Some(FaultClass::Loss),
            strategy: sincro_harness::gen::Strategy::Random,
            ..GenOptions::default()
        };
        let mut draft = sincro_harness::gen::generate(
            "order.lamport",
            "correct",
            1,
            &FaultModel::default(),
            &opts,
        );
        let before = draft.scenario.clone();
        assert!(add_moment_faults(alg, &mut draft, &FaultModel::default(), 1, 2, &opts).is_empty());
        assert_eq!(draft.scenario, before);
    }
}
