//! Differential tests: every checker against its reference oracle (`oracle.rs`) on small
//! random traces in the property's vocabulary, and on those traces mutated (an event shifted
//! by 1 ns, two lines of one instant swapped, an event duplicated or dropped, an event's node
//! relabelled, a clock jump added). The verdict *kinds* (pass / violation of the property /
//! unjudged) must agree.
//!
//! One test per property, run by default. The run ends at a random distance after the last
//! event: at it, a little later, or past every deadline (so the liveness properties are judged
//! as well as left unjudged). A checker bug found here that cannot be fixed at once is marked
//! on its test with `#[ignore = "known bug: ..."]` (the macro below takes attributes), and its
//! shrunk trace goes into the adversarial corpus.
//!
//! Deterministic: a fixed ChaCha seed per test, no failure persistence, 256 cases each.

use crate::oracle::{self, Params, MS};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use sincro_harness::process::ClockAdjust;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Fault, NodeId, Observation, Scenario, TimedFault, Trace, Verdict};
use std::collections::BTreeSet;

/// Cases per property: 256 in a local run, 4,096 in CI (`SINCRO_FULL_SWEEPS=1`), or
/// `SINCRO_SWEEP_CASES` for a deep sweep. At 8,192 the completeness oracle was found judging a
/// report that held back its node's closing edge less kindly than the checker's contract
/// (stop 83); 32,768 cases of every test passed after. At 65,536 `bounded_waiting` was found
/// counting entries at the "exit" of a node that was not inside (stop 84).
pub(crate) fn cases() -> u32 {
    if let Some(n) = std::env::var("SINCRO_SWEEP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var_os("SINCRO_FULL_SWEEPS").is_some_and(|v| v == "1") {
        4096
    } else {
        256
    }
}

/// The ChaCha seed of a test's runner: fixed by `salt`, so every run draws the same cases,
/// unless `SINCRO_SWEEP_SEED` (a whole number) is set, which mixes it into the last eight bytes:
/// a deep sweep at another seed draws cases no earlier sweep drew (stop 84's 1,048,576 cases
/// were one sequence's prefix).
pub(crate) fn sweep_seed(salt: u8) -> [u8; 32] {
    let mut seed: [u8; 32] = std::array::from_fn(|i| (i as u8) ^ salt);
    if let Ok(v) = std::env::var("SINCRO_SWEEP_SEED") {
        let n: u64 = v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("SINCRO_SWEEP_SEED = {v:?} is not a whole number"));
        for (b, x) in seed[24..].iter_mut().zip(n.to_le_bytes()) {
            *b ^= x;
        }
    }
    seed
}

/// The checker `by_name` builds for `property`, judging `trace` with `p`: its verdict kind.
pub fn checker_verdict(property: &str, trace: &Trace, p: &Params) -> (String, String) {
    let mut sc =
        Scenario::from_json(r#"{"algorithm":"x","nodes":1,"seed":0,"duration_ms":1}"#).unwrap();
    sc.nodes = trace.nodes;
    if p.quiet_ms > 0 {
        sc.faults = vec![TimedFault {
            at_ms: p.quiet_ms,
            fault: Fault::Heal,
        }];
    }
    assert_eq!(sc.quiet_from_ms(), p.quiet_ms);
    let c = sincro_checkers::by_name(property, &sc, p.bound_ms).expect("a known property");
    let mut cs = vec![c];
    match sincro_harness::check::judge_trace(trace, p.end_ns, &mut cs) {
        Verdict::Pass => ("pass".into(), String::new()),
        Verdict::Violation(v) if v.property == property => ("violation".into(), v.explanation),
        Verdict::Unjudged { reason, .. } => ("unjudged".into(), reason),
        other => (format!("other: {other:?}"), String::new()),
    }
}

/// The verdict of the checker `by_name` builds for `property` on `trace` (wrapped as a run's
/// are, to need its evidence), with the event it was reached at (`None`: at the end): every
/// event passed to it (`gated` false, what `check` does) or only those its
/// [`Gate`](sincro_harness::check::Gate) lets through (what the engines do online, where the
/// event a violation is reached at ends the run).
pub fn judged_at(property: &str, trace: &Trace, p: &Params, gated: bool) -> (Option<u64>, Verdict) {
    let mut sc =
        Scenario::from_json(r#"{"algorithm":"x","nodes":1,"seed":0,"duration_ms":1}"#).unwrap();
    sc.nodes = trace.nodes;
    if p.quiet_ms > 0 {
        sc.faults = vec![TimedFault {
            at_ms: p.quiet_ms,
            fault: Fault::Heal,
        }];
    }
    let mut c = sincro_checkers::needing_evidence(
        sincro_checkers::by_name(property, &sc, p.bound_ms).expect("a known property"),
    );
    sincro_harness::check::judge_one(trace, p.end_ns, &mut c, gated)
}

// ---------------------------------------------------------------------------------------
// Generation: raw bytes interpreted per property into a valid trace.

/// Which vocabulary a property reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Vocab {
    Mutex,
    Clocks,
    Multicast,
    Deadlock,
    Monotonic,
    Election,
    /// Votes of terms (`one_vote_per_term`), with leaders, crashes and restarts.
    Votes,
    Replica,
}

fn vocab(property: &str) -> Vocab {
    match property {
        "mutual_exclusion" | "liveness" | "no_deadlock" | "bounded_waiting" => Vocab::Mutex,
        "lamport_condition" | "vector_causality" => Vocab::Clocks,
        "causal_delivery" | "total_order" => Vocab::Multicast,
        "deadlock_soundness" | "deadlock_completeness" => Vocab::Deadlock,
        "monotonic_clock" => Vocab::Monotonic,
        "replica_agreement" => Vocab::Replica,
        "one_vote_per_term" => Vocab::Votes,
        _ => Vocab::Election,
    }
}

/// Whether faults must happen at or before the quiet time (the properties that take it).
fn uses_quiet(property: &str) -> bool {
    matches!(
        property,
        "liveness"
            | "no_deadlock"
            | "deadlock_completeness"
            | "leader_agreement"
            | "election_termination"
            | "leader_validity"
            | "leader_stability"
            | "replica_agreement"
    )
}

#[derive(Clone, Debug)]
struct Raw {
    nodes: usize,
    quiet_ms: u64,
    bound_ms: u64,
    end_extra: u8,
    ops: Vec<(u8, u8, u8, u8)>,
    mutations: Vec<(u8, u8, u8)>,
}

fn raw() -> impl Strategy<Value = Raw> {
    (
        1usize..=4,
        0u64..=8,
        0u64..=6,
        any::<u8>(),
        prop::collection::vec((0u8..4, any::<u8>(), any::<u8>(), any::<u8>()), 0..28),
        prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..3),
    )
        .prop_map(
            |(nodes, quiet_ms, bound_ms, end_extra, ops, mutations)| Raw {
                nodes,
                quiet_ms,
                bound_ms,
                end_extra,
                ops,
                mutations,
            },
        )
}

/// Builds a trace event by event.
struct B {
    nodes: usize,
    t: u64,
    quiet_limit: Option<u64>,
    events: Vec<Event>,
    alive: Vec<bool>,
    /// Each node's last start's incarnation.
    incarnation: Vec<u32>,
}

impl B {
    fn push(&mut self, node: Option<NodeId>, local: Option<i64>, kind: EventKind) -> u64 {
        let id = self.events.len() as u64;
        self.events.push(Event {
            id,
            t_ns: self.t,
            node,
            local_ns: local,
            kind,
        });
        id
    }
    fn observe(&mut self, node: NodeId, obs: Observation) {
        self.push(Some(node), Some(self.t as i64), EventKind::Observe { obs });
    }
    fn can_fault(&self) -> bool {
        self.quiet_limit.is_none_or(|q| self.t <= q)
    }
    fn fault(&mut self, fault: Fault) {
        if !self.can_fault() {
            return;
        }
        let restarted = match fault {
            Fault::Crash { node } => {
                self.alive[node] = false;
                None
            }
            Fault::Restart { node } => {
                self.alive[node] = true;
                Some(node)
            }
            _ => None,
        };
        self.push(fault.node(), None, EventKind::Fault { fault });
        // a restart starts the node's next incarnation, as every engine records it
        if let Some(node) = restarted {
            self.incarnation[node] += 1;
            let incarnation = self.incarnation[node];
            self.push(Some(node), None, EventKind::Start { incarnation });
        }
    }
    fn note(&mut self, node: NodeId) {
        self.push(
            Some(node),
            Some(self.t as i64),
            EventKind::Input { input: "x".into() },
        );
    }
}

/// The trace `raw` stands for, for `property`.
fn build(property: &str, raw: &Raw) -> Trace {
    let n = raw.nodes;
    let voc = vocab(property);
    let mut b = B {
        nodes: n,
        t: 0,
        quiet_limit: uses_quiet(property).then_some(raw.quiet_ms * MS),
        events: Vec::new(),
        alive: vec![true; n],
        incarnation: vec![0; n],
    };
    // per-vocabulary state
    let mut inside: BTreeSet<(NodeId, u32)> = BTreeSet::new();
    let mut requested: BTreeSet<(NodeId, u32)> = BTreeSet::new();
    let mut lamport = vec![0u64; n];
    let mut vc = vec![vec![0u64; n]; n];
    let mut in_flight: Vec<(u64, u64, NodeId, NodeId, u64, Vec<u64>)> = Vec::new(); // (msg, send ev, from, to, L, VC)
    let mut next_msg = 0u64;
    let mut multicasts: Vec<(String, NodeId, bool)> = Vec::new(); // (id, sender, sender delivers)
    let mut delivered: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut edges: Vec<(NodeId, NodeId)> = Vec::new();
    let mut offset = vec![0i64; n];
    for &(dt, a, x, c) in &raw.ops {
        let dt_ms = [0, 0, 1, 2][dt as usize];
        b.t += dt_ms * MS;
        let node = x as usize % n;
        if !b.alive[node] {
            if b.can_fault() && a % 2 == 0 {
                b.fault(Fault::Restart { node });
            }
            continue;
        }
        match voc {
            Vocab::Mutex => {
                let res = u32::from(c % 4 == 3);
                let free = !inside.iter().any(|&(_, r)| r == res);
                let ins = inside.contains(&(node, res));
                match a % 16 {
                    0..=3 => {
                        requested.insert((node, res));
                        b.observe(node, Observation::CsRequest { resource: res })
                    }
                    4..=6 if free && requested.contains(&(node, res)) => {
                        requested.remove(&(node, res));
                        inside.insert((node, res));
                        b.observe(node, Observation::CsEnter { resource: res })
                    }
                    4..=6 => b.observe(node, Observation::CsRequest { resource: res }),
                    7 => {
                        inside.insert((node, res));
                        b.observe(node, Observation::CsEnter { resource: res })
                    }
                    8..=10 | 15 if ins || a % 16 == 15 => {
                        inside.remove(&(node, res));
                        b.observe(node, Observation::CsExit { resource: res })
                    }
                    8..=10 => {}
                    11 => {
                        requested.remove(&(node, res));
                        b.observe(node, Observation::CsAbandon { resource: res })
                    }
                    12 => {
                        if b.can_fault() {
                            inside.retain(|k| k.0 != node);
                            requested.retain(|k| k.0 != node);
                        }
                        b.fault(Fault::Crash { node })
                    }
                    13 => b.fault(Fault::Restart { node }),
                    _ => b.note(node),
                }
            }
            Vocab::Clocks => match a % 10 {
                0..=2 => {
                    let to = c as usize % n;
                    lamport[node] += 1;
                    vc[node][node] += 1;
                    let id = b.push(
                        Some(node),
                        Some(b.t as i64),
                        EventKind::Send {
                            msg_id: next_msg,
                            to,
                            msg: "m".into(),
                        },
                    );
                    in_flight.push((next_msg, id, node, to, lamport[node], vc[node].clone()));
                    next_msg += 1;
                }
                3..=5 if !in_flight.is_empty() => {
                    let (msg_id, sent, from, to, l, v) =
                        in_flight.remove(c as usize % in_flight.len());
                    if !b.alive[to] {
                        continue;
                    }
                    lamport[to] = lamport[to].max(l) + 1;
                    for k in 0..n {
                        vc[to][k] = vc[to][k].max(v[k]);
                    }
                    vc[to][to] += 1;
                    b.push(
                        Some(to),
                        Some(b.t as i64),
                        EventKind::Deliver {
                            msg_id,
                            from,
                            sent,
                            msg: "m".into(),
                        },
                    );
                }
                6..=8 => {
                    let mut l = lamport[node] + 1;
                    let mut v = vc[node].clone();
                    v[node] += 1;
                    match c % 12 {
                        0 => l = l.saturating_sub(2),
                        1 => {
                            let k = (c as usize / 12) % n;
                            v[k] = v[k].saturating_sub(1)
                        }
                        2 => v[(c as usize / 12) % n] += 1,
                        3 => {}
                        _ => {
                            lamport[node] = l;
                            vc[node] = v.clone();
                        }
                    }
                    b.observe(
                        node,
                        Observation::LogicalTime {
                            lamport: l,
                            vector: v,
                        },
                    );
                }
                _ => b.note(node),
            },
            Vocab::Multicast => match a % 8 {
                0..=1 => {
                    let id = format!("m{}", multicasts.len());
                    multicasts.push((id.clone(), node, c % 4 != 0));
                    b.observe(node, Observation::Multicast { id });
                }
                2..=5 => {
                    let cand: Vec<usize> = (0..multicasts.len())
                        .filter(|&k| {
                            !delivered[node].contains(&k)
                                && (multicasts[k].1 != node || multicasts[k].2)
                        })
                        .collect();
                    if cand.is_empty() {
                        continue;
                    }
                    let k = if c % 4 != 0 {
                        cand[0]
                    } else {
                        cand[(c as usize / 4) % cand.len()]
                    };
                    delivered[node].insert(k);
                    b.observe(
                        node,
                        Observation::Delivered {
                            id: multicasts[k].0.clone(),
                        },
                    );
                }
                6 => {
                    let id = format!("m{}", c as usize % (multicasts.len() + 2));
                    b.observe(node, Observation::Delivered { id });
                }
                _ => b.note(node),
            },
            Vocab::Deadlock => match a % 10 {
                0..=3 => {
                    let mut on = c as usize % n;
                    if on == node && n > 1 && c % 8 != 7 {
                        on = (on + 1) % n;
                    }
                    edges.push((node, on));
                    b.observe(on, Observation::WaitFor { waiter: node, on });
                }
                4..=5 if !edges.is_empty() => {
                    let (w, on) = edges.remove(c as usize % edges.len());
                    b.observe(on, Observation::WaitEnd { waiter: w, on });
                }
                4..=7 => {
                    // an honest report (6) only from a node on a cycle; 7: anyone
                    let g = oracle::wait_for_graph(&b.events);
                    let on_cycle = {
                        let mut seen = BTreeSet::new();
                        let mut stack = vec![node];
                        while let Some(y) = stack.pop() {
                            for &(w, on) in g.keys() {
                                if w == y && seen.insert(on) {
                                    stack.push(on);
                                }
                            }
                        }
                        seen.contains(&node)
                    };
                    if a % 10 == 7 || on_cycle {
                        let initiator = if c % 8 == 0 { c as usize / 8 % n } else { node };
                        b.observe(node, Observation::DeadlockDetected { initiator });
                    }
                }
                8 => {
                    if b.can_fault() {
                        edges.retain(|&(w, on)| w != node && on != node);
                    }
                    b.fault(Fault::Crash { node })
                }
                _ => b.note(node),
            },
            Vocab::Monotonic => {
                let local = |o: &Vec<i64>, t: u64| t as i64 + o[node];
                match a % 10 {
                    0..=3 => {
                        let l = local(&offset, b.t);
                        b.push(Some(node), Some(l), EventKind::Input { input: "x".into() });
                    }
                    4 | 5 => {
                        let d = if a % 10 == 5 && c % 3 == 0 {
                            -(MS as i64)
                        } else {
                            (c % 3) as i64 * MS as i64
                        };
                        offset[node] += d;
                        let l = local(&offset, b.t);
                        b.push(
                            Some(node),
                            Some(l),
                            EventKind::ClockAdjust {
                                how: ClockAdjust::Step,
                                delta_ns: d,
                            },
                        );
                    }
                    6 => {
                        let d = ((c % 5) as i64 - 1) * MS as i64 / 2;
                        offset[node] += d;
                        let l = local(&offset, b.t);
                        b.push(
                            Some(node),
                            Some(l),
                            EventKind::ClockAdjust {
                                how: ClockAdjust::Slew,
                                delta_ns: d,
                            },
                        );
                    }
                    7 => {
                        let d = (c % 7) as i64 - 3;
                        let l = local(&offset, b.t);
                        offset[node] += d * MS as i64;
                        b.push(
                            Some(node),
                            Some(l),
                            EventKind::Fault {
                                fault: Fault::ClockJump {
                                    node,
                                    delta_ms: d as f64,
                                },
                            },
                        );
                    }
                    8 => {
                        let l = local(&offset, b.t) - (c % 3) as i64 * MS as i64;
                        b.push(Some(node), Some(l), EventKind::Input { input: "x".into() });
                    }
                    _ => {
                        b.push(
                            Some(node),
                            None,
                            EventKind::Timer {
                                timer_id: 0,
                                timer: "t".into(),
                            },
                        );
                    }
                }
            }
            Vocab::Election => {
                // one id past the last node: a leader that does not exist
                let pick = |c: u8| c as usize % (n + 1);
                match a % 12 {
                    0..=2 => b.observe(
                        node,
                        Observation::Leader {
                            leader: Some(pick(c)),
                            term: u64::from(c / 8 % 2),
                        },
                    ),
                    3 | 4 => b.observe(
                        node,
                        Observation::Leader {
                            leader: Some(node),
                            term: u64::from(c % 2),
                        },
                    ),
                    5 => b.observe(
                        node,
                        Observation::Leader {
                            leader: None,
                            term: u64::from(c % 2),
                        },
                    ),
                    6 | 7 => {
                        let live: Vec<NodeId> = (0..n).filter(|&v| b.alive[v]).collect();
                        let l = if c % 2 == 0 {
                            *live.last().unwrap()
                        } else {
                            pick(c / 2)
                        };
                        for v in live {
                            b.observe(
                                v,
                                Observation::Leader {
                                    leader: Some(l),
                                    term: u64::from(c / 4 % 3),
                                },
                            );
                        }
                    }
                    8 => {
                        if (0..n).filter(|&v| b.alive[v]).count() > 1 {
                            b.fault(Fault::Crash { node })
                        }
                    }
                    9 => b.fault(Fault::Restart {
                        node: c as usize % n,
                    }),
                    10 => b.fault(Fault::Partition {
                        groups: vec![vec![node]],
                    }),
                    _ => b.fault(Fault::Heal),
                }
            }
            Vocab::Votes => {
                // one id past the last node: a candidate that does not exist
                let pick = |c: u8| c as usize % (n + 1);
                match a % 10 {
                    0..=4 => b.observe(
                        node,
                        Observation::Vote {
                            term: u64::from(c / 8 % 2),
                            candidate: pick(c),
                        },
                    ),
                    5 | 6 => b.observe(
                        node,
                        Observation::Vote {
                            term: u64::from(c % 3),
                            candidate: node,
                        },
                    ),
                    7 => b.observe(
                        node,
                        Observation::Leader {
                            leader: Some(node),
                            term: u64::from(c % 2),
                        },
                    ),
                    8 => {
                        if (0..n).filter(|&v| b.alive[v]).count() > 1 {
                            b.fault(Fault::Crash { node })
                        }
                    }
                    _ => b.fault(Fault::Restart {
                        node: c as usize % n,
                    }),
                }
            }
            Vocab::Replica => match a % 7 {
                // an input: the update the replicas must agree on may be on its way
                6 => b.note(node),
                0..=3 => b.observe(
                    node,
                    Observation::State {
                        value: format!("v{}", c % 2),
                    },
                ),
                4 => {
                    for v in (0..n).filter(|&v| b.alive[v]).collect::<Vec<_>>() {
                        b.observe(
                            v,
                            Observation::State {
                                value: format!("v{}", c % 2),
                            },
                        );
                    }
                }
                _ => b.fault(Fault::Crash { node }),
            },
        }
    }
    let _ = b.nodes;
    Trace::new(n, b.events)
}

// ---------------------------------------------------------------------------------------
// Mutations

/// Renumbers ids to positions, pointing each delivery at its send's new position (a send
/// that is gone: `u64::MAX`).
pub(crate) fn renumber(events: &mut [Event]) {
    let mut first: std::collections::BTreeMap<u64, u64> = Default::default();
    for (i, e) in events.iter().enumerate() {
        first.entry(e.id).or_insert(i as u64);
    }
    for (i, e) in events.iter_mut().enumerate() {
        if let EventKind::Deliver { sent, .. } = &mut e.kind {
            *sent = first.get(sent).copied().unwrap_or(u64::MAX);
        }
        e.id = i as u64;
    }
}

/// Time-ordered, node ids in range, deliveries after their sends (or of a send not in the
/// trace), nothing done by a crashed node, and (if `quiet_ns`) crashes, restarts and
/// partitions at or before the quiet time.
fn valid(t: &Trace, quiet_ns: Option<u64>) -> bool {
    let n = t.nodes;
    let mut alive = vec![true; n];
    for (i, e) in t.events().iter().enumerate() {
        if i > 0 && t.events()[i - 1].t_ns > e.t_ns {
            return false;
        }
        if e.node.is_some_and(|x| x >= n) {
            return false;
        }
        match &e.kind {
            EventKind::Fault { fault } => {
                if fault.node().is_some_and(|x| x >= n) || fault.node() != e.node {
                    return false;
                }
                if !matches!(fault, Fault::ClockJump { .. }) && quiet_ns.is_some_and(|q| e.t_ns > q)
                {
                    return false;
                }
                match fault {
                    Fault::Crash { node } => alive[*node] = false,
                    Fault::Restart { node } => alive[*node] = true,
                    _ => {}
                }
            }
            _ => {
                if e.node.is_some_and(|x| !alive[x]) {
                    return false;
                }
            }
        }
        if let EventKind::Deliver { sent, .. } = e.kind {
            if sent != u64::MAX
                && !t.events()[..i]
                    .iter()
                    .any(|s| s.id == sent && matches!(s.kind, EventKind::Send { .. }))
            {
                return false;
            }
        }
    }
    true
}

pub(crate) fn relabel(e: &mut Event, to: NodeId) {
    if e.node.is_none() {
        return;
    }
    e.node = Some(to);
    if let EventKind::Fault {
        fault:
            Fault::Crash { node }
            | Fault::Restart { node }
            | Fault::Pause { node }
            | Fault::Resume { node }
            | Fault::ClockJump { node, .. }
            | Fault::DriftChange { node, .. },
    } = &mut e.kind
    {
        *node = to;
    }
}

/// Applies the mutations of `raw` one by one, skipping any that would make the trace invalid.
fn mutate(property: &str, raw: &Raw, mut t: Trace) -> Trace {
    let quiet_ns = uses_quiet(property).then_some(raw.quiet_ms * MS);
    for &(kind, idx, arg) in &raw.mutations {
        if t.events().is_empty() {
            break;
        }
        let i = idx as usize % t.len();
        let mut m = t.clone();
        let m_nodes = m.nodes;
        let ev = m.events_mut();
        match kind % 7 {
            0 => {
                ev[i].t_ns += 1;
                ev.sort_by_key(|e| e.t_ns);
            }
            1 => {
                if ev[i].t_ns == 0 {
                    continue;
                }
                ev[i].t_ns -= 1;
                ev.sort_by_key(|e| e.t_ns);
            }
            2 => {
                if i + 1 >= ev.len() || ev[i].t_ns != ev[i + 1].t_ns {
                    continue;
                }
                ev.swap(i, i + 1);
            }
            3 => {
                let e = ev[i].clone();
                ev.insert(i + 1, e);
            }
            4 => {
                ev.remove(i);
            }
            5 => relabel(&mut ev[i], arg as usize % m_nodes),
            _ => {
                let node = arg as usize % m_nodes;
                let e = Event {
                    id: u64::MAX - 1,
                    t_ns: ev[i].t_ns,
                    node: Some(node),
                    local_ns: ev[i].local_ns,
                    kind: EventKind::Fault {
                        fault: Fault::ClockJump {
                            node,
                            delta_ms: f64::from(arg / 8 % 7) - 3.0,
                        },
                    },
                };
                ev.insert(i + 1, e);
            }
        }
        renumber(m.events_mut());
        if valid(&m, quiet_ns) {
            t = m;
        }
    }
    t
}

fn case(property: &str, raw: &Raw) -> (Trace, Params) {
    let t = build(property, raw);
    let t = mutate(property, raw, t);
    let last = t.events().last().map_or(0, |e| e.t_ns);
    // past every deadline: no deadline is later than max(t, quiet) + bound
    let past = (raw.quiet_ms + raw.bound_ms + 1) * MS + u64::from(raw.end_extra / 8 % 4);
    let extra = [0, 1, MS, 3 * MS, 7 * MS, 15 * MS, past, past][raw.end_extra as usize % 8];
    (
        t,
        Params {
            quiet_ms: raw.quiet_ms,
            bound_ms: raw.bound_ms,
            end_ns: last + extra,
        },
    )
}

/// The case `raw` stands for, with the verdict's kind, when the checker agrees with the
/// oracle on it; a test failure naming both verdicts and the trace when it does not.
fn agreeing_case(
    property: &str,
    raw: &Raw,
) -> Result<(Trace, Params, &'static str), TestCaseError> {
    let (trace, p) = case(property, raw);
    let expected = oracle::judge(property, &trace, &p);
    let (got, why) = checker_verdict(property, &trace, &p);
    // The engines pass a checker only the events it reads and those past its wake time: the
    // same verdict, in full, reached at the same event, as with every event passed.
    // So also with an input every millisecond to the end, which crosses every deadline.
    for t in [trace.clone(), with_ticks(&trace, p.end_ns)] {
        let (gated, every) = (
            judged_at(property, &t, &p, true),
            judged_at(property, &t, &p, false),
        );
        if gated != every {
            return Err(TestCaseError::fail(format!(
                "{property}: the gated checker says {gated:?}, with every event {every:?}\nparams {p:?}\n{}",
                t.to_jsonl()
            )));
        }
    }
    if got != expected.kind() {
        return Err(TestCaseError::fail(format!(
            "{property}: checker says {got} ({why}), oracle says {expected:?}\nparams {p:?}\n{}",
            trace.to_jsonl()
        )));
    }
    Ok((trace, p, expected.kind()))
}

/// `trace` with an input to node 0 every millisecond after its last event up to `end_ns`
/// (at most 256): events no checker reads, at times that cross its deadlines.
fn with_ticks(trace: &Trace, end_ns: u64) -> Trace {
    let mut events = trace.events().to_vec();
    let mut t = events.last().map_or(0, |e| e.t_ns);
    while t + MS <= end_ns && events.len() < trace.events().len() + 256 {
        t += MS;
        events.push(Event {
            id: events.len() as u64,
            t_ns: t,
            node: Some(0),
            local_ns: Some(t as i64),
            kind: EventKind::Input {
                input: "tick".into(),
            },
        });
    }
    Trace::new(trace.nodes, events)
}

/// Runs [`cases`] cases of `property` against its oracle.
fn differential(property: &str) {
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let seed = sweep_seed(property.len() as u8);
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let kinds = std::cell::RefCell::new(std::collections::BTreeMap::<String, u32>::new());
    let result = runner.run(&raw(), |raw| {
        let (_, _, kind) = agreeing_case(property, &raw)?;
        *kinds.borrow_mut().entry(kind.to_string()).or_default() += 1;
        Ok(())
    });
    eprintln!(
        "{property}: oracle verdicts over the cases run: {:?}",
        kinds.borrow()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The trace with the lines of each instant in another order across nodes: each instant's
/// events sorted by node, highest first (each node's own events keep their order; events with
/// no node go last), sends renumbered.
fn reorder_instants(t: &Trace) -> Trace {
    let mut events = t.events().to_vec();
    let mut i = 0;
    while i < events.len() {
        let at = events[i].t_ns;
        let j = i + events[i..].iter().take_while(|e| e.t_ns == at).count();
        events[i..j].sort_by_key(|e| std::cmp::Reverse(e.node.map_or(0, |n| n + 1)));
        i = j;
    }
    renumber(&mut events);
    Trace::new(t.nodes, events)
}

/// The properties that judge the events of one instant as a set (mutual exclusion, bounded
/// waiting, causal delivery, leader uniqueness, deadlock soundness and completeness) give the
/// same verdict, and so do their oracles, whatever the order of the instant's lines across
/// nodes: `bounded_waiting` and `causal_delivery` did not (a request listed before a
/// same-instant entry counted an overtake; a delivery listed before its same-instant multicast
/// was dropped as "never multicast"), nor did the deadlock checkers (a report listed before
/// another node's closing edge of its instant was a phantom).
#[test]
fn an_instants_line_order_does_not_change_the_verdict() {
    for property in [
        "mutual_exclusion",
        "bounded_waiting",
        "causal_delivery",
        "leader_uniqueness",
        "one_leader_per_term",
        "one_vote_per_term",
        "no_abdication",
        "leader_stability",
        "deadlock_soundness",
        "deadlock_completeness",
    ] {
        let config = Config {
            cases: cases(),
            failure_persistence: None,
            max_shrink_iters: 4096,
            ..Config::default()
        };
        let seed = sweep_seed(0x5a ^ property.len() as u8);
        let mut runner =
            TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
        let reordered_cases = std::cell::Cell::new(0u32);
        let violations = std::cell::Cell::new(0u32);
        let result = runner.run(&raw(), |raw| {
            let (trace, p) = case(property, &raw);
            let other = reorder_instants(&trace);
            if other == trace || !valid(&other, None) {
                return Ok(());
            }
            reordered_cases.set(reordered_cases.get() + 1);
            let (a, why_a) = checker_verdict(property, &trace, &p);
            let (b, why_b) = checker_verdict(property, &other, &p);
            let (oa, ob) = (oracle::judge(property, &trace, &p), oracle::judge(property, &other, &p));
            violations.set(violations.get() + u32::from(a == "violation"));
            if a != b || oa.kind() != ob.kind() {
                return Err(TestCaseError::fail(format!(
                    "{property}: checker {a} ({why_a}) / {b} ({why_b}), oracle {oa:?} / {ob:?}\n{}\nreordered:\n{}",
                    trace.to_jsonl(),
                    other.to_jsonl()
                )));
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
        // The cases must reorder something, and some must be violations, or this proves nothing.
        assert!(
            reordered_cases.get() > cases() / 4,
            "{property}: {} reordered",
            reordered_cases.get()
        );
        assert!(
            violations.get() > 0,
            "{property}: no violation among the reordered cases"
        );
    }
}

/// Judges `trace` with the checker `build` makes for `property` (built as `how` says, as an
/// algorithm builds it rather than by name) and compares it with the oracle's `expected`:
/// the verdict kinds must agree, and so must the checker judging every event and only those
/// its gate lets through. The verdict's kind.
fn built_agrees(
    property: &str,
    how: &str,
    trace: &Trace,
    p: &Params,
    build: &dyn Fn() -> Box<dyn sincro_harness::Checker>,
    expected: &oracle::OracleVerdict,
) -> Result<&'static str, TestCaseError> {
    let got = match sincro_harness::check::judge_trace(trace, p.end_ns, &mut [build()]) {
        Verdict::Pass => "pass",
        Verdict::Violation(v) if v.property == property => "violation",
        Verdict::Unjudged { .. } => "unjudged",
        other => {
            return Err(TestCaseError::fail(format!("{property} {how}: {other:?}")));
        }
    };
    if got != expected.kind() {
        return Err(TestCaseError::fail(format!(
            "{property} {how}: checker says {got}, oracle says {expected:?}\nparams {p:?}\n{}",
            trace.to_jsonl()
        )));
    }
    let judged = |gated| {
        let mut c = sincro_checkers::needing_evidence(build());
        sincro_harness::check::judge_one(trace, p.end_ns, &mut c, gated)
    };
    if judged(true) != judged(false) {
        return Err(TestCaseError::fail(format!(
            "{property} {how}: gated {:?}, every event {:?}\n{}",
            judged(true),
            judged(false),
            trace.to_jsonl()
        )));
    }
    Ok(got)
}

/// `leader_validity` under each rank policy the election algorithms use (any live node:
/// `election.terms` and `election.lease`; the highest id: bully and the ring; ranks of their
/// own: Chang–Roberts, Franklin, YoYo, ad hoc, Anel 2), built as they build it rather than by
/// name, agrees with the oracle ranking the same way, gated or not; ranks tie often, and a
/// list one short leaves the last node unranked (rank 0).
#[test]
fn leader_validity_agrees_under_every_rank_policy() {
    use sincro_checkers::election::validity::{LeaderValidity, RankPolicy};
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let seed = sweep_seed(0x71);
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let violations = std::cell::Cell::new([0u32; 3]);
    let result = runner.run(&raw(), |raw| {
        let (trace, p) = case("leader_validity", &raw);
        let n = trace.nodes;
        let listed = if raw.end_extra % 2 == 0 {
            n.saturating_sub(1)
        } else {
            n
        };
        let ranks: Vec<u64> = (0..listed)
            .map(|v| u64::from(raw.end_extra >> (v % 4)) % 3)
            .collect();
        let policies = [
            (RankPolicy::AliveOnly, oracle::Rank::AliveOnly),
            (RankPolicy::HighestId, oracle::Rank::HighestId),
            (RankPolicy::Ranks(ranks.clone()), oracle::Rank::Ranks(ranks)),
        ];
        for (k, (policy, rank)) in policies.into_iter().enumerate() {
            let build = || -> Box<dyn sincro_harness::Checker> {
                Box::new(LeaderValidity::with_policy(
                    n,
                    p.quiet_ms,
                    p.bound_ms,
                    policy.clone(),
                ))
            };
            let expected = oracle::leader_validity_ranked(trace.events(), n, &p, &rank);
            let got = built_agrees(
                "leader_validity",
                &format!("under {policy:?}"),
                &trace,
                &p,
                &build,
                &expected,
            )?;
            let mut v = violations.get();
            v[k] += u32::from(got == "violation");
            violations.set(v);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // each policy's cases include violations, or this proves nothing about it
    assert!(
        violations.get().iter().all(|&v| v > 0),
        "{:?}",
        violations.get()
    );
}

macro_rules! differential_tests {
    ($($name:ident $(#[$attr:meta])*;)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $name() {
                differential(stringify!($name));
            }
        )*
    };
}

differential_tests! {
    mutual_exclusion;
    lamport_condition;
    vector_causality;
    causal_delivery;
    total_order;
    deadlock_soundness;
    monotonic_clock;
    leader_uniqueness;
    one_leader_per_term;
    one_vote_per_term;
    no_abdication;
    single_acting_leader;
    leader_stability;
    bounded_waiting;
    liveness;
    no_deadlock;
    election_termination;
    leader_agreement;
    leader_validity;
    deadlock_completeness;
    replica_agreement;
}

/// `leader_stability` is judged between faults as well as from the quiet time: the checker
/// agrees with the oracle that judges each interval as the run cut at its next fault, and
/// some cases are violations only there (a change with nothing in effect before quiet), so
/// the mode is exercised, not only the quiet time.
#[test]
fn leader_stability_is_judged_between_faults() {
    let property = "leader_stability";
    let config = Config {
        cases: cases() * 4,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let seed = sweep_seed(0xb7);
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let only_between = std::cell::Cell::new(0u32);
    let result = runner.run(&raw(), |raw| {
        let (trace, p, got) = agreeing_case(property, &raw)?;
        let from_quiet =
            oracle::leader_stability_from(trace.events(), trace.nodes, p.quiet_ms * MS);
        if got == "violation" && from_quiet.kind() == "pass" {
            only_between.set(only_between.get() + 1);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        only_between.get() > 5,
        "{} violations found only between faults",
        only_between.get()
    );
}

/// `leader_stability` with a settle time, built as `election.terms` and `election.lease`
/// build it (`with_settle(..).between_faults(..)`), agrees with the oracle that counts an
/// agreement only once its interval has settled, gated or not; each settle time gives some
/// violations.
#[test]
fn leader_stability_agrees_with_a_settle_time() {
    use sincro_checkers::election::LeaderStability;
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let seed = sweep_seed(0x6d);
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let violations = std::cell::Cell::new([0u32; 3]);
    let result = runner.run(&raw(), |raw| {
        let (trace, p) = case("leader_stability", &raw);
        let n = trace.nodes;
        let mut sc =
            Scenario::from_json(r#"{"algorithm":"x","nodes":1,"seed":0,"duration_ms":1}"#).unwrap();
        sc.nodes = n;
        let plan: Vec<(u64, Fault)> = if p.quiet_ms > 0 {
            sc.faults = vec![TimedFault {
                at_ms: p.quiet_ms,
                fault: Fault::Heal,
            }];
            vec![(p.quiet_ms * MS, Fault::Heal)]
        } else {
            Vec::new()
        };
        for (k, settle_ms) in [1u64, 2, 5].into_iter().enumerate() {
            let build = || -> Box<dyn sincro_harness::Checker> {
                Box::new(LeaderStability::with_settle(n, p.quiet_ms, settle_ms).between_faults(&sc))
            };
            let expected = oracle::leader_stability_settled(
                trace.events(),
                n,
                &plan,
                p.quiet_ms,
                settle_ms,
                p.end_ns,
            );
            let got = built_agrees(
                "leader_stability",
                &format!("settled {settle_ms} ms"),
                &trace,
                &p,
                &build,
                &expected,
            )?;
            let mut v = violations.get();
            v[k] += u32::from(got == "violation");
            violations.set(v);
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        violations.get().iter().all(|&v| v > 0),
        "{:?}",
        violations.get()
    );
}

/// Found at 8,192 cases (stop 83): at one instant node 2 reports, then closes the cycle 1-2
/// (`1 -> 2`); node 1 reports after its own changes. Node 1's report counts: nothing orders
/// it before node 2's closing edge, and the checker takes node 2's report first because a
/// change of its node waits behind it. The oracle took the lowest node's report first and
/// called the cycle unreported; both now pass it, and the cycle is judged when it lasts past
/// the bound with no report (the same trace without node 1's report).
#[test]
fn a_report_that_holds_back_its_nodes_closing_edge_goes_first() {
    let line = |id: u64, node: usize, obs: &str| {
        format!(
            "{{\"id\":{id},\"t_ns\":0,\"node\":{node},\"kind\":{{\"type\":\"observe\",\"obs\":{obs}}}}}\n"
        )
    };
    let wait = |w: usize, on: usize| format!("{{\"wait_for\":{{\"waiter\":{w},\"on\":{on}}}}}");
    let report = "{\"deadlock_detected\":{\"initiator\":0}}";
    let lines = [
        (1, wait(2, 1)),
        (1, wait(0, 1)),
        (1, report.to_string()),
        (2, report.to_string()),
        (2, wait(1, 2)),
    ];
    let p = Params {
        quiet_ms: 0,
        bound_ms: 0,
        end_ns: MS,
    };
    let judge = |skip_node_1s_report: bool| {
        let mut text = "{\"sincro_trace\":1,\"nodes\":3}\n".to_string();
        let kept = lines
            .iter()
            .enumerate()
            .filter(|&(i, _)| !(skip_node_1s_report && i == 2));
        for (id, (_, (node, obs))) in kept.enumerate() {
            text.push_str(&line(id as u64, *node, obs));
        }
        let t = Trace::read_jsonl(text.as_bytes()).unwrap();
        let checker = checker_verdict("deadlock_completeness", &t, &p).0;
        let oracle = oracle::judge("deadlock_completeness", &t, &p);
        (checker, oracle.kind())
    };
    assert_eq!(judge(false), ("pass".to_string(), "pass"));
    assert_eq!(judge(true), ("violation".to_string(), "violation"));
}

/// Found at 65,536 cases (stop 84), and its mirror: at one instant node 0 asks while outside
/// and "exits" (it was not inside), and node 1 enters twice; then node 0 enters, asks again
/// and exits while node 1 enters and leaves twice. Neither exit orders node 1's entries after
/// node 0's request in every order that keeps mutual exclusion, so neither is overtaken
/// (`k = 1`); the checker counted two in both, and the oracle in the second. Inside since an
/// earlier instant, the same exit does order them: a violation for both.
#[test]
fn an_exit_orders_the_entries_of_its_instant_only_when_the_node_was_inside_before() {
    let line = |id: usize, t_ns: u64, node: usize, obs: &str| {
        format!(
            "{{\"id\":{id},\"t_ns\":{t_ns},\"node\":{node},\"kind\":{{\"type\":\"observe\",\"obs\":{{\"{obs}\":{{\"resource\":0}}}}}}}}\n"
        )
    };
    let p = Params {
        quiet_ms: 0,
        bound_ms: 0,
        end_ns: MS,
    };
    let judge = |lines: &[(u64, usize, &str)]| {
        let mut text = "{\"sincro_trace\":1,\"nodes\":2}\n".to_string();
        for (id, (t, node, obs)) in lines.iter().enumerate() {
            text.push_str(&line(id, *t, *node, obs));
        }
        let t = Trace::read_jsonl(text.as_bytes()).unwrap();
        let checker = checker_verdict("bounded_waiting", &t, &p).0;
        let oracle = oracle::judge("bounded_waiting", &t, &p);
        (checker, oracle.kind())
    };
    let outside = [
        (0, 1, "cs_enter"),
        (0, 0, "cs_request"),
        (0, 1, "cs_enter"),
        (0, 0, "cs_exit"),
        (0, 0, "cs_request"),
    ];
    assert_eq!(judge(&outside), ("pass".to_string(), "pass"));
    let entered_here = [
        (0, 0, "cs_enter"),
        (0, 0, "cs_request"),
        (0, 0, "cs_exit"),
        (0, 1, "cs_enter"),
        (0, 1, "cs_exit"),
        (0, 1, "cs_enter"),
        (0, 1, "cs_exit"),
    ];
    assert_eq!(judge(&entered_here), ("pass".to_string(), "pass"));
    let mut inside_before = entered_here;
    inside_before[0].0 = 0;
    for l in &mut inside_before[1..] {
        l.0 = MS / 2;
    }
    assert_eq!(
        judge(&inside_before),
        ("violation".to_string(), "violation")
    );
}
