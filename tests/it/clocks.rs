//! `bounded_skew` on the clock algorithms' own runs: the reference oracle of
//! `checkers/tests/it/skew.rs` (its random traces are short and synthetic) judges the traces
//! of generated scenarios of every clock algorithm and variant, half of them with faults
//! outside the model — steps and slews over minutes of drifting clocks, crashes, restarts,
//! clock jumps and partitions — and must
//! agree with the checker judging the same trace (what `sincro check --scenario` does) and
//! with the run's own verdict on the property.

use crate::oracle;
use sincro::algorithms::find;
use sincro::checkers::bounded_skew::{BoundedSkew, SkewSpec};
use sincro::harness::engine::RunOptions;
use sincro::harness::gen::GenOptions;
use sincro::harness::{Checker, Verdict};

const ALGORITHMS: [&str; 4] = [
    "clock.cristian",
    "clock.ntp-peers",
    "clock.berkeley",
    "clock.rbs",
];

/// The verdict's kind for `bounded_skew`: `pass`, `violation`, `unjudged`, or `other` (a
/// verdict about another property, or none of these).
fn kind(v: &Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Violation(v) if v.property == "bounded_skew" => "violation",
        Verdict::Unjudged { property, .. } if property == "bounded_skew" => "unjudged",
        _ => "other",
    }
}

#[test]
fn bounded_skew_agrees_with_its_oracle_on_the_clock_algorithms_runs() {
    let seeds = crate::common::sweep(40, 8);
    let mut seen = std::collections::BTreeMap::<&str, u32>::new();
    for name in ALGORITHMS {
        let alg = find(name).expect("a built-in algorithm");
        for variant in alg.info().variants.iter().map(|v| v.name) {
            for seed in 0..seeds {
                // every other seed also draws faults outside the model: runs that break the
                // bound, so that the oracle and the checker disagree on something if they can
                let opts = GenOptions {
                    beyond_model: seed % 2 == 1,
                    ..GenOptions::default()
                };
                let sc = alg.generate(variant, 86_000 + seed, &opts);
                let out = alg
                    .run(&sc, RunOptions::new(true))
                    .expect("a generated scenario runs");
                let trace = out.trace.as_ref().expect("recorded");
                let end_ns = out.stats.end_t_ns;
                let spec = SkewSpec::for_scenario(&sc);
                let expected = oracle::bounded_skew(&sc, &spec, trace.events(), end_ns);
                let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(BoundedSkew::for_scenario(&sc))];
                let checked = sincro::harness::check::judge_trace(trace, end_ns, &mut cs);
                let replay = format!("{name} / {variant} seed {}", 86_000 + seed);
                assert_eq!(
                    kind(&checked),
                    expected.kind(),
                    "{replay}: the checker on the trace says {checked:?}, the oracle {expected:?}"
                );
                // the run judged online as the trace is judged, unless another property
                // decided it first
                let run = kind(&out.verdict);
                assert!(
                    run == "other" || run == expected.kind(),
                    "{replay}: the run says {:?}, the oracle {expected:?}",
                    out.verdict
                );
                *seen.entry(expected.kind()).or_default() += 1;
            }
        }
    }
    eprintln!("bounded_skew on the clock runs: {seen:?}");
    // some runs pass, and some (outside the model) break the bound
    assert!(seen.get("pass").copied().unwrap_or(0) > 0, "{seen:?}");
    assert!(seen.get("violation").copied().unwrap_or(0) > 0, "{seen:?}");
}
