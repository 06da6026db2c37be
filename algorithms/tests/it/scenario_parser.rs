//! The scenario parser and validation never panic, whatever the JSON: corpus scenarios with
//! their numbers mutated to extremes (huge, negative, fractional, out of every range), arrays
//! blown up, fields dropped, and the text itself damaged. A mutated scenario that validation
//! accepts is run (capped at a few thousand events, trace recorded): in a debug build any
//! arithmetic overflow on the way would panic, so this exercises the range checks too.

use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::Value;
use sincro_algorithms::run_scenario;
use sincro_harness::engine::RunOptions;
use sincro_harness::Scenario;

/// A few corpus scenarios of different families, as bases to mutate.
const BASES: [&str; 6] = [
    include_str!("../../../corpus/mutex/centralized-lease-timeout-overlap.json"),
    include_str!("../../../corpus/mutex/token-ring-lost-token.json"),
    include_str!("../../../corpus/clocks/cristian-fig-6-6.json"),
    include_str!("../../../corpus/clocks/berkeley-step-backwards.json"),
    include_str!("../../../corpus/election/bully-partition-probe.json"),
    include_str!("../../../corpus/ordering/causal-fig-6-13.json"),
];

/// Numbers a mutation puts in place of one of the scenario's.
fn extreme() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::from(0)),
        Just(Value::from(-1)),
        Just(Value::from(u64::MAX)),
        Just(Value::from(i64::MIN)),
        Just(Value::from(1e300)),
        Just(Value::from(-1e300)),
        Just(Value::from(9.2e12)),
        Just(Value::from(1_000_000_001u64)),
        Just(Value::from(1e15)),
        Just(Value::from(0.5)),
        Just(Value::from(1e-300)),
        Just(Value::from(9_007_199_254_740_993u64)),
        Just(Value::from(100_000)),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |f| f.is_finite())
            .prop_map(Value::from),
    ]
}

/// One edit of the JSON tree.
#[derive(Clone, Debug)]
enum Edit {
    /// Replace the i-th number (modulo their count).
    Number(usize, Value),
    /// Repeat the first element of the i-th array this many times.
    Blow(usize, usize),
    /// Drop the i-th object key.
    Drop(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        6 => (any::<usize>(), extreme()).prop_map(|(i, v)| Edit::Number(i, v)),
        1 => (any::<usize>(), 0usize..20_000).prop_map(|(i, n)| Edit::Blow(i, n)),
        1 => any::<usize>().prop_map(Edit::Drop),
    ]
}

/// Calls `f` on every value of the tree, depth first, with a running index per kind.
fn visit(v: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    f(v);
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| visit(x, f)),
        Value::Object(m) => m.values_mut().for_each(|x| visit(x, f)),
        _ => {}
    }
}

fn count(v: &mut Value, pick: fn(&Value) -> bool) -> usize {
    let mut n = 0;
    visit(v, &mut |x| n += usize::from(pick(x)));
    n
}

fn apply(v: &mut Value, e: &Edit) {
    let (pick, target): (fn(&Value) -> bool, usize) = match e {
        Edit::Number(i, _) => (Value::is_number, *i),
        Edit::Blow(i, _) => (|x| x.as_array().is_some_and(|a| !a.is_empty()), *i),
        Edit::Drop(i) => (|x| x.as_object().is_some_and(|m| !m.is_empty()), *i),
    };
    let n = count(v, pick);
    if n == 0 {
        return;
    }
    let want = target % n;
    let mut seen = 0;
    visit(v, &mut |x| {
        if !pick(x) {
            return;
        }
        if seen == want {
            match e {
                Edit::Number(_, new) => *x = new.clone(),
                Edit::Blow(_, times) => {
                    let a = x.as_array_mut().expect("picked an array");
                    let first = a[0].clone();
                    a.extend(std::iter::repeat_n(first, *times));
                }
                Edit::Drop(_) => {
                    let m = x.as_object_mut().expect("picked an object");
                    let key = m.keys().next().cloned().expect("non-empty");
                    m.remove(&key);
                }
            }
        }
        seen += 1;
    });
}

/// The largest mutated text exercised. Blow-ups of nested arrays multiply (a 20,000-fold
/// partition group inside a 20,000-fold fault list made 111 MB of JSON, 2.4 GB and 14 s to
/// parse in a debug build); `Scenario::load` refuses files past 64 MiB anyway, and a few
/// hundred KiB already hold every array far past its limit.
const TEXT_BYTES_MAX: usize = 1 << 20;

/// Parses, validates and (when accepted) runs `text`: none of it may panic.
fn exercise(text: &str) {
    if text.len() > TEXT_BYTES_MAX {
        return;
    }
    let Ok(mut sc) = Scenario::from_json(text) else {
        return;
    };
    // Bounded work per case: a few thousand events; the trace is recorded so its limits count.
    sc.limits.max_events = sc.limits.max_events.min(5_000);
    sc.limits.max_in_flight = sc.limits.max_in_flight.min(5_000);
    sc.engine = sincro_harness::EngineKind::Native;
    let _ = run_scenario(&sc, RunOptions::new(true));
}

proptest! {
    // A fixed seed: the same cases, and the same cost, on every run (a random one made this
    // test take from 2 to 48 s).
    #![proptest_config(ProptestConfig {
        cases: 192,
        rng_seed: RngSeed::Fixed(0x5CE7_A210),
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_scenarios_never_panic(
        base in 0..BASES.len(),
        edits in proptest::collection::vec(edit(), 1..4),
    ) {
        let mut v: Value = serde_json::from_str(BASES[base]).expect("corpus JSON");
        for e in &edits {
            apply(&mut v, e);
        }
        exercise(&v.to_string());
    }

    #[test]
    fn damaged_text_never_panics(
        base in 0..BASES.len(),
        at in any::<usize>(),
        junk in prop_oneof![
            Just("NaN".to_string()),
            Just("1e400".to_string()),
            Just("-0".to_string()),
            Just("[".repeat(200)),
            Just("18446744073709551616".to_string()),
            Just("\u{0}".to_string()),
            "[ -~]{0,8}",
        ],
        cut in any::<bool>(),
    ) {
        let text = BASES[base];
        let mut at = at % text.len();
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let damaged = if cut {
            format!("{}{junk}", &text[..at])
        } else {
            format!("{}{junk}{}", &text[..at], &text[at..])
        };
        exercise(&damaged);
    }
}
