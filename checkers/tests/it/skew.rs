//! `bounded_skew` against its reference oracle ([`oracle::bounded_skew`]): the other
//! properties' checkers are built by name over a generic scenario (`differential.rs`), but
//! this one reads the scenario itself (the initial clocks, the algorithm, its params, the
//! delays and the fault plan), so its cases draw a scenario as well as a trace: 1 to 4 nodes
//! under each clock algorithm (or one of a user's, judged like Berkeley), drifting and offset
//! clocks or a perfect reference, usable and unusable params; then steps, slews, clock jumps,
//! drift changes, crashes and restarts over tens of seconds, so that runs end before the
//! convergence time, after it within the bounds, and over them. The verdict kinds must
//! agree, with every event passed to the checker and with only those its gate lets through
//! (as the engines do), and whatever the order of an instant's lines across nodes.
//!
//! Deterministic: a fixed ChaCha seed, no failure persistence; the case count is the
//! differential tests' ([`cases`]).

use crate::differential::{cases, relabel, renumber};
use crate::oracle::{self, OracleVerdict, MS};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use sincro_checkers::bounded_skew::{BoundedSkew, SkewSpec};
use sincro_harness::process::ClockAdjust;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, Scenario, TimedFault, Trace, Verdict};

/// A case: the scenario's knobs, the trace's steps and the run's end.
#[derive(Clone, Debug)]
struct Raw {
    nodes: usize,
    algorithm: u8,
    params: u8,
    clocks: u8,
    latency_max_ms: u64,
    quiet_ms: u64,
    plan_jump: bool,
    ops: Vec<(u8, u8, u8, u8)>,
    mutations: Vec<(u8, u8, u8)>,
    end_extra: u8,
}

fn raw() -> impl Strategy<Value = Raw> {
    (
        (
            prop_oneof![1 => Just(1usize), 6 => 2usize..=4],
            any::<u8>(),
            any::<u8>(),
            any::<u8>(),
            1u64..=4,
        ),
        (0u64..=1_000, any::<u8>(), any::<u8>()),
        prop::collection::vec((0u8..6, any::<u8>(), any::<u8>(), any::<u8>()), 0..32),
        prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..3),
    )
        .prop_map(
            |(
                (nodes, algorithm, params, clocks, latency_max_ms),
                (quiet_ms, jump, end_extra),
                ops,
                mutations,
            )| Raw {
                nodes,
                algorithm,
                params,
                clocks,
                latency_max_ms,
                quiet_ms,
                plan_jump: jump % 4 == 0,
                ops,
                mutations,
                end_extra,
            },
        )
}

const ALGORITHMS: [&str; 5] = [
    "clock.cristian",
    "clock.ntp-peers",
    "clock.berkeley",
    "clock.rbs",
    "own.clock-sync",
];

/// The scenario `raw` stands for. Short periods and few samples keep the convergence time
/// within the traces' tens of seconds; one case in eight has a param the bound cannot use.
fn scenario(raw: &Raw) -> Scenario {
    let n = raw.nodes;
    let algorithm = ALGORITHMS[raw.algorithm as usize % ALGORITHMS.len()];
    let p = raw.params;
    let mut params = serde_json::Map::new();
    match p % 16 {
        0 => {}
        1 => {
            params.insert("period_ms".into(), 0.into());
        }
        2 => {
            params.insert("samples".into(), serde_json::json!(2.5));
        }
        _ => {
            params.insert(
                "period_ms".into(),
                [5u64, 20, 100, 400][(p / 8 % 4) as usize].into(),
            );
            params.insert("samples".into(), (1 + u64::from(p / 32 % 3)).into());
        }
    }
    let special = (p / 64) as usize % n.max(1);
    params.insert(
        if algorithm == "clock.rbs" {
            "beacon"
        } else {
            "server"
        }
        .into(),
        special.into(),
    );
    if algorithm == "clock.rbs" && p % 2 == 1 {
        params.insert("mode".into(), "regression".into());
    }
    let c = raw.clocks;
    let rho = [0.0, 20.0, 100.0][(c % 3) as usize];
    let offset = [0.0, 0.2, 1.0][(c / 3 % 3) as usize];
    // half the cases pin the server's (or beacon's) clock, a perfect reference when exact
    let pinned = if c / 9 % 2 == 0 {
        format!(
            r#"[{{"node": {special}, "offset_ms": {}, "drift_ppm": 0}}]"#,
            if c / 18 % 2 == 0 { 0.0 } else { 0.3 }
        )
    } else {
        "[]".to_string()
    };
    let mut sc = Scenario::from_json(&format!(
        r#"{{"algorithm": "{algorithm}", "nodes": {n}, "seed": {c}, "duration_ms": 1,
            "network": {{"latency": {{"uniform": {{"min_ms": 1, "max_ms": {}}}}}}},
            "clocks": {{"rho_ppm": {rho}, "offset_ms_max": {offset}, "nodes": {pinned}}}}}"#,
        raw.latency_max_ms
    ))
    .expect("a valid scenario");
    sc.params = serde_json::Value::Object(params);
    if raw.quiet_ms > 0 {
        sc.faults.push(TimedFault {
            at_ms: raw.quiet_ms,
            fault: Fault::Heal,
        });
    }
    if raw.plan_jump {
        sc.faults.insert(
            0,
            TimedFault {
                at_ms: raw.quiet_ms / 2,
                fault: Fault::ClockJump {
                    node: 0,
                    delta_ms: 1.5,
                },
            },
        );
    }
    sc
}

/// The trace `raw` stands for: clock steps and slews of live nodes, clock jumps and drift
/// changes, crashes and restarts (each restart followed by the node's next start), and
/// events no clock reads, over tens of seconds.
fn trace(raw: &Raw) -> Trace {
    let n = raw.nodes;
    let mut events: Vec<Event> = Vec::new();
    let mut alive = vec![true; n];
    let mut incarnation = vec![0u32; n];
    let mut t = 0u64;
    let push = |events: &mut Vec<Event>, t: u64, node: NodeId, kind: EventKind| {
        events.push(Event {
            id: events.len() as u64,
            t_ns: t,
            node: Some(node),
            local_ns: Some(t as i64),
            kind,
        });
    };
    for &(dt, a, x, arg) in &raw.ops {
        t += [0, 0, MS, 100 * MS, 2_000 * MS, 5_000 * MS][dt as usize];
        let node = x as usize % n;
        if !alive[node] {
            if a % 2 == 0 {
                alive[node] = true;
                incarnation[node] += 1;
                push(
                    &mut events,
                    t,
                    node,
                    EventKind::Fault {
                        fault: Fault::Restart { node },
                    },
                );
                let incarnation = incarnation[node];
                push(&mut events, t, node, EventKind::Start { incarnation });
            }
            continue;
        }
        // a clock changes in half the steps, mostly by less than the bounds
        let kind = match a % 16 {
            0..=2 => EventKind::ClockAdjust {
                how: ClockAdjust::Step,
                delta_ns: [
                    50_000, -80_000, 300_000, -300_000, 2_000_000, -2_000_000, 10_000_000, 120_000,
                ][(arg % 8) as usize],
            },
            3 | 4 => EventKind::ClockAdjust {
                how: ClockAdjust::Slew,
                delta_ns: [
                    1_000_000, -1_000_000, 5_000_000, -5_000_000, 200_000, 20_000_000, -300_000, 0,
                ][(arg % 8) as usize],
            },
            5 => EventKind::Fault {
                fault: Fault::ClockJump {
                    node,
                    delta_ms: f64::from(arg % 7) - 3.0,
                },
            },
            6 => EventKind::Fault {
                fault: Fault::DriftChange {
                    node,
                    drift_ppm: [-200.0, -20.0, 0.0, 20.0, 100.0, 400.0][(arg % 6) as usize],
                },
            },
            7 => {
                alive[node] = false;
                EventKind::Fault {
                    fault: Fault::Crash { node },
                }
            }
            8..=11 => EventKind::Observe {
                obs: Observation::Note { text: "n".into() },
            },
            _ => EventKind::Input { input: "x".into() },
        };
        push(&mut events, t, node, kind);
    }
    Trace::new(n, events)
}

/// Whether the events are in time order, name nodes in range, and a crashed node does
/// nothing but restart.
fn valid(t: &Trace) -> bool {
    let mut alive = vec![true; t.nodes];
    for (i, e) in t.events().iter().enumerate() {
        if i > 0 && t.events()[i - 1].t_ns > e.t_ns {
            return false;
        }
        let Some(node) = e.node.filter(|&x| x < t.nodes) else {
            return false;
        };
        match &e.kind {
            EventKind::Fault { fault } => {
                if fault.node() != Some(node) {
                    return false;
                }
                match fault {
                    Fault::Crash { .. } => alive[node] = false,
                    Fault::Restart { .. } => alive[node] = true,
                    _ if !alive[node] => return false,
                    _ => {}
                }
            }
            _ if !alive[node] => return false,
            _ => {}
        }
    }
    true
}

/// `trace` with the mutations of `raw` that keep it valid: an event moved by 1 ns, two lines
/// of one instant swapped, an event duplicated, dropped or given to another node.
fn mutate(raw: &Raw, mut t: Trace) -> Trace {
    for &(kind, idx, arg) in &raw.mutations {
        if t.events().is_empty() {
            break;
        }
        let i = idx as usize % t.len();
        let mut m = t.clone();
        let nodes = m.nodes;
        let ev = m.events_mut();
        match kind % 6 {
            0 => {
                ev[i].t_ns += 1;
                ev.sort_by_key(|e| e.t_ns);
            }
            1 if ev[i].t_ns > 0 => {
                ev[i].t_ns -= 1;
                ev.sort_by_key(|e| e.t_ns);
            }
            2 if i + 1 < ev.len() && ev[i].t_ns == ev[i + 1].t_ns => ev.swap(i, i + 1),
            3 => {
                let e = ev[i].clone();
                ev.insert(i + 1, e);
            }
            4 => {
                ev.remove(i);
            }
            5 => relabel(&mut ev[i], arg as usize % nodes),
            _ => continue,
        }
        renumber(m.events_mut());
        if valid(&m) {
            t = m;
        }
    }
    t
}

/// The case: the scenario, its trace and the run's end (at the last event, a little after,
/// or long after: past the convergence time of most cases).
fn case(raw: &Raw) -> (Scenario, Trace, u64) {
    let sc = scenario(raw);
    let t = mutate(raw, trace(raw));
    let last = t.events().last().map_or(0, |e| e.t_ns);
    let extra = [0, 1, MS, 20_000 * MS, 60_000 * MS, 60_000 * MS][raw.end_extra as usize % 6];
    (sc, t, last + extra)
}

/// The checker's verdict kind on the case, every event passed to it (`sincro check`).
fn checker_kind(sc: &Scenario, trace: &Trace, end_ns: u64) -> (String, String) {
    let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(BoundedSkew::for_scenario(sc))];
    match sincro_harness::check::judge_trace(trace, end_ns, &mut cs) {
        Verdict::Pass => ("pass".into(), String::new()),
        Verdict::Violation(v) if v.property == "bounded_skew" => {
            ("violation".into(), v.explanation)
        }
        Verdict::Unjudged { reason, .. } => ("unjudged".into(), reason),
        other => (format!("other: {other:?}"), String::new()),
    }
}

/// The checker's verdict on the case and the event it was reached at, as the engines judge
/// (`gated`: only the events its gate lets through) or as `check` does.
fn judged_at(sc: &Scenario, trace: &Trace, end_ns: u64, gated: bool) -> (Option<u64>, Verdict) {
    let mut c = sincro_checkers::needing_evidence(Box::new(BoundedSkew::for_scenario(sc)));
    sincro_harness::check::judge_one(trace, end_ns, &mut c, gated)
}

/// The trace with each instant's lines sorted by node, highest first (each node's own lines
/// keep their order).
fn reorder_instants(t: &Trace) -> Trace {
    let mut events = t.events().to_vec();
    let mut i = 0;
    while i < events.len() {
        let at = events[i].t_ns;
        let j = i + events[i..].iter().take_while(|e| e.t_ns == at).count();
        events[i..j].sort_by_key(|e| std::cmp::Reverse(e.node));
        i = j;
    }
    renumber(&mut events);
    Trace::new(t.nodes, events)
}

fn runner(salt: u8) -> TestRunner {
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let seed = crate::differential::sweep_seed(salt);
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed))
}

/// The checker agrees with the oracle on every case, gated or not; the cases reach every
/// verdict (a test whose cases all pass would prove nothing).
#[test]
fn bounded_skew_agrees_with_its_oracle() {
    let kinds = std::cell::RefCell::new(std::collections::BTreeMap::<&str, u32>::new());
    let result = runner(0x5e).run(&raw(), |raw| {
        let (sc, trace, end_ns) = case(&raw);
        let spec = SkewSpec::for_scenario(&sc);
        let expected = oracle::bounded_skew(&sc, &spec, trace.events(), end_ns);
        let (got, why) = checker_kind(&sc, &trace, end_ns);
        if got != expected.kind() {
            return Err(TestCaseError::fail(format!(
                "bounded_skew: checker says {got} ({why}), oracle says {expected:?}\nspec {spec:?}\nend {end_ns} ns\nscenario {}\n{}",
                sc.to_json(),
                trace.to_jsonl()
            )));
        }
        let (gated, every) = (
            judged_at(&sc, &trace, end_ns, true),
            judged_at(&sc, &trace, end_ns, false),
        );
        if gated != every {
            return Err(TestCaseError::fail(format!(
                "bounded_skew: the gated checker says {gated:?}, with every event {every:?}\nscenario {}\n{}",
                sc.to_json(),
                trace.to_jsonl()
            )));
        }
        *kinds.borrow_mut().entry(expected.kind()).or_default() += 1;
        Ok(())
    });
    eprintln!(
        "bounded_skew: oracle verdicts over the cases run: {:?}",
        kinds.borrow()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    let kinds = kinds.borrow();
    for kind in ["pass", "violation", "unjudged"] {
        assert!(
            kinds.get(kind).copied().unwrap_or(0) >= cases() / 20,
            "too few `{kind}` cases to prove anything: {kinds:?}"
        );
    }
}

/// Neither the checker nor the oracle reads an instant's lines in their order across nodes.
#[test]
fn bounded_skew_ignores_an_instants_line_order() {
    let reordered = std::cell::Cell::new(0u32);
    let violations = std::cell::Cell::new(0u32);
    let result = runner(0xa7).run(&raw(), |raw| {
        let (sc, trace, end_ns) = case(&raw);
        let other = reorder_instants(&trace);
        if other == trace {
            return Ok(());
        }
        reordered.set(reordered.get() + 1);
        let spec = SkewSpec::for_scenario(&sc);
        let (a, why_a) = checker_kind(&sc, &trace, end_ns);
        let (b, why_b) = checker_kind(&sc, &other, end_ns);
        let oa = oracle::bounded_skew(&sc, &spec, trace.events(), end_ns);
        let ob = oracle::bounded_skew(&sc, &spec, other.events(), end_ns);
        violations.set(violations.get() + u32::from(a == "violation"));
        if a != b || oa.kind() != ob.kind() {
            return Err(TestCaseError::fail(format!(
                "checker {a} ({why_a}) / {b} ({why_b}), oracle {oa:?} / {ob:?}\nscenario {}\n{}\nreordered:\n{}",
                sc.to_json(),
                trace.to_jsonl(),
                other.to_jsonl()
            )));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        reordered.get() > cases() / 8,
        "{} reordered",
        reordered.get()
    );
    assert!(
        violations.get() > 0,
        "no violation among the reordered cases"
    );
}

/// The oracle can fail: two clocks 3 ms apart after convergence, under a bound of about 1 ms,
/// are a violation, and the same clocks stepped back together pass.
#[test]
fn the_skew_oracle_catches_a_spread_and_passes_its_repair() {
    let sc = two_berkeley_clocks();
    let spec = SkewSpec::for_scenario(&sc);
    assert!(spec.internal_bound_ns < 3 * MS, "{spec:?}");
    let at = spec.converge_from_ns + 1_000 * MS;
    let step = |id: u64, t_ns: u64, node: NodeId, delta_ns: i64| Event {
        id,
        t_ns,
        node: Some(node),
        local_ns: None,
        kind: EventKind::ClockAdjust {
            how: ClockAdjust::Step,
            delta_ns,
        },
    };
    let spread = vec![step(0, at, 1, 3 * MS as i64)];
    let end = at + 1_000 * MS;
    assert!(matches!(
        oracle::bounded_skew(&sc, &spec, &spread, end),
        OracleVerdict::Violation(_)
    ));
    let repaired = vec![
        step(0, at, 1, 3 * MS as i64),
        step(1, at, 1, -(3 * MS as i64)),
    ];
    assert_eq!(
        oracle::bounded_skew(&sc, &spec, &repaired, end),
        OracleVerdict::Pass
    );
    // ended before convergence: not judged, whatever the clocks
    assert!(matches!(
        oracle::bounded_skew(&sc, &spec, &spread, spec.converge_from_ns - 1),
        OracleVerdict::Unjudged(_)
    ));
}

/// A slew that ends between two events is a moment of the run: node 1's clock, slowed by
/// 400 ppm and slewed 5 ms ahead at 500 ppm, gains 1 ms on node 0 over the 10 s of the slew
/// and loses it again in the 2.5 s after; at the events (its start, and 12.5 s later) the
/// clocks agree. Only the slew's end shows the spread, and both the checker and the oracle
/// find it there (a checker that judged the events only passed it).
#[test]
fn a_slew_that_ends_between_events_is_judged_at_its_end() {
    let sc = two_berkeley_clocks();
    let spec = SkewSpec::for_scenario(&sc);
    let t0 = 5_000 * MS;
    assert!(spec.converge_from_ns < t0, "{spec:?}");
    let at = |id: u64, t_ns: u64, kind: EventKind| Event {
        id,
        t_ns,
        node: Some(1),
        local_ns: None,
        kind,
    };
    let events = vec![
        at(
            0,
            t0,
            EventKind::Fault {
                fault: Fault::DriftChange {
                    node: 1,
                    drift_ppm: -400.0,
                },
            },
        ),
        at(
            1,
            t0,
            EventKind::ClockAdjust {
                how: ClockAdjust::Slew,
                delta_ns: 5 * MS as i64,
            },
        ),
        at(2, t0 + 12_500 * MS, EventKind::Input { input: "x".into() }),
    ];
    let trace = Trace::new(2, events);
    let end_ns = t0 + 12_500 * MS;
    let slew_end_ns = t0 + 10_000 * MS;
    let (kind, why) = checker_kind(&sc, &trace, end_ns);
    assert_eq!(kind, "violation", "{why}");
    let (_, verdict) = judged_at(&sc, &trace, end_ns, false);
    let Verdict::Violation(v) = verdict else {
        panic!("{verdict:?}");
    };
    assert_eq!(v.t_ns, slew_end_ns, "{}", v.explanation);
    let oracle = oracle::bounded_skew(&sc, &spec, trace.events(), end_ns);
    assert!(
        matches!(&oracle, OracleVerdict::Violation(w) if w.starts_with(&format!("at {slew_end_ns} ns"))),
        "{oracle:?}"
    );
    // the same run ended 100 ms into the slew: 10 µs apart, within the bound
    let before = Trace::new(2, trace.events()[..2].to_vec());
    assert_eq!(checker_kind(&sc, &before, t0 + 100 * MS).0, "pass");
    assert_eq!(
        oracle::bounded_skew(&sc, &spec, before.events(), t0 + 100 * MS),
        OracleVerdict::Pass
    );
}

/// The moment before an instant's changes is judged: node 1's clock, sped up by 200 ppm, is
/// 2 ms ahead after 10 s, when a step sets it back. Just after the step the clocks agree;
/// just before it they were 2 ms apart, and both the checker and the oracle say so there.
#[test]
fn a_correction_is_judged_against_the_spread_it_corrects() {
    let sc = two_berkeley_clocks();
    let spec = SkewSpec::for_scenario(&sc);
    let (t0, t1) = (5_000 * MS, 15_000 * MS);
    let event = |id: u64, t_ns: u64, kind: EventKind| Event {
        id,
        t_ns,
        node: Some(1),
        local_ns: None,
        kind,
    };
    let drift = EventKind::Fault {
        fault: Fault::DriftChange {
            node: 1,
            drift_ppm: 200.0,
        },
    };
    let step = EventKind::ClockAdjust {
        how: ClockAdjust::Step,
        delta_ns: -2 * MS as i64,
    };
    let trace = Trace::new(
        2,
        vec![event(0, t0, drift.clone()), event(1, t1, step.clone())],
    );
    let (_, verdict) = judged_at(&sc, &trace, t1, false);
    let Verdict::Violation(v) = verdict else {
        panic!("{verdict:?}");
    };
    assert_eq!(v.t_ns, t1, "{}", v.explanation);
    let oracle = oracle::bounded_skew(&sc, &spec, trace.events(), t1);
    assert!(matches!(oracle, OracleVerdict::Violation(_)), "{oracle:?}");
    // corrected every 100 ms instead, by 20 µs: never more than the bound apart
    let mut events = vec![event(0, t0, drift)];
    for k in 1..=100u64 {
        events.push(event(
            k,
            t0 + k * 100 * MS,
            EventKind::ClockAdjust {
                how: ClockAdjust::Step,
                delta_ns: -20_000,
            },
        ));
    }
    let corrected = Trace::new(2, events);
    assert_eq!(checker_kind(&sc, &corrected, t1).0, "pass");
    assert_eq!(
        oracle::bounded_skew(&sc, &spec, corrected.events(), t1),
        OracleVerdict::Pass
    );
}

/// Two clocks under Berkeley with no drift or offset, 1 ms links, a 10 ms period and one
/// sample: converged after about 4 s, under a bound of about 52 µs.
fn two_berkeley_clocks() -> Scenario {
    Scenario::from_json(
        r#"{"algorithm": "clock.berkeley", "nodes": 2, "seed": 1, "duration_ms": 1,
            "network": {"latency": {"constant": {"ms": 1}}},
            "params": {"period_ms": 10, "samples": 1}}"#,
    )
    .unwrap()
}
