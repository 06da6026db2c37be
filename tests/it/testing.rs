//! The `cargo test` entry point (`sincro::testing::check`) on a built-in spec: a correct
//! variant passes, a buggy one is caught, a failure says what, where and how to replay, and
//! persists to be replayed first.

use sincro::algorithms::mutex::centralized::{CentralizedSpec, Variant};
use sincro::harness::fault::FaultClass;
use sincro::harness::{Scenario, Verdict};
use sincro::testing::check;
use std::path::PathBuf;
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sincro-testing-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_correct_variant_passes_every_seed() {
    let report = check(CentralizedSpec)
        .ignore_env()
        .nodes(3..=4)
        .faults([FaultClass::Pauses])
        .seeds(30)
        .no_regressions()
        .run()
        .unwrap();
    assert_eq!(report.runs, 30);
    assert_eq!(report.algorithm, "mutex.centralized");
    assert!(report.to_string().contains("30 seeds"), "{report}");
}

/// Run limits of one's own: every generated run stops at them, and the failure's scenario
/// carries them, so its replay stops where the run did.
#[test]
fn a_checks_run_limits_apply_to_every_run_and_its_failure() {
    let limits = sincro::harness::Limits {
        max_events: 7,
        ..Default::default()
    };
    let f = check(CentralizedSpec)
        .ignore_env()
        .seeds(3)
        .no_regressions()
        .limits(limits.clone())
        .run()
        .unwrap_err();
    assert!(f.to_string().contains("limits.max_events = 7"), "{f}");
    // The seed rebuilds the failure (the test sets the same limits again): the replay line
    // says so, not that coverage guidance drew it (it did, while the limits made the
    // regenerated scenario differ from the one run).
    let seed = f.seed.expect("a seed");
    assert!(
        f.to_string()
            .contains(&format!("replay: SINCRO_SEED={seed} cargo test")),
        "{f}"
    );
    let sc = f.scenario.as_ref().expect("the failing scenario");
    assert_eq!(sc.limits, limits);
    let out = sincro::algorithms::run_scenario(sc, Default::default()).unwrap();
    assert!(
        matches!(&out.verdict, Verdict::LimitExceeded { limit } if limit.contains("= 7")),
        "{:?}",
        out.verdict
    );
}

#[test]
fn a_buggy_variant_is_discovered_with_its_shrunk_scenario() {
    let found = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .seeds(200)
        .expect_violation("mutual_exclusion")
        .unwrap();
    let out = sincro::algorithms::run_scenario(&found.scenario, Default::default()).unwrap();
    assert!(matches!(&out.verdict, Verdict::Violation(v) if v.property == "mutual_exclusion"));
    // The other property is not what this variant breaks: asking for it is an error.
    let wrong = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .seeds(200)
        .expect_violation("liveness")
        .unwrap_err();
    assert!(
        wrong
            .headline
            .contains("expected a violation of `liveness`"),
        "{wrong}"
    );
    // A correct variant never gives what was expected.
    let none = check(CentralizedSpec)
        .ignore_env()
        .seeds(5)
        .expect_violation("mutual_exclusion")
        .unwrap_err();
    assert!(none.headline.contains("no seed of 5 violated"), "{none}");
}

#[test]
fn a_failure_explains_itself_persists_and_is_replayed_first() {
    let dir = scratch("regressions");
    let failed = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .seeds(200)
        .regressions(&dir)
        .run()
        .unwrap_err();
    let text = failed.to_string();
    assert!(
        text.contains("mutex.centralized / lease-timeout failed at seed"),
        "{text}"
    );
    assert!(text.contains("mutual_exclusion violated at"), "{text}");
    assert!(
        text.contains("  > "),
        "the violating events are marked: {text}"
    );
    assert!(text.contains("SINCRO_REPLAY="), "{text}");
    let path = failed
        .path
        .clone()
        .expect("written to the regressions directory");
    assert!(path.starts_with(&dir), "{}", path.display());
    let written = Scenario::load(&path).unwrap();
    assert_eq!(
        written.expect, None,
        "a regression file must pass once fixed"
    );
    assert_eq!(Some(&written), failed.scenario.as_ref());

    // The next run tries the regression first: it fails on the file, not on a new seed.
    let again = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .seed_start(1_000_000)
        .seeds(1)
        .regressions(&dir)
        .run()
        .unwrap_err();
    assert!(again.headline.starts_with("regression "), "{again}");
    assert_eq!(again.path.as_ref(), Some(&path));
    // The correct variant does not replay the twin's file, and passes.
    let ok = check(CentralizedSpec)
        .ignore_env()
        .seeds(3)
        .regressions(&dir)
        .run()
        .unwrap();
    assert_eq!(ok.regressions_replayed, 0);
    // Nor another algorithm's file whose name starts the same way (an algorithm may be
    // named `mutex.centralized.correct`): the file says whose it is.
    let other = std::fs::read_to_string("corpus/mutex/token-ring-late-token.json").unwrap();
    std::fs::write(dir.join("mutex.centralized.correct.seed7.json"), other).unwrap();
    let ok = check(CentralizedSpec)
        .ignore_env()
        .seeds(3)
        .regressions(&dir)
        .run()
        .unwrap();
    assert_eq!(ok.regressions_replayed, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shrunk failure keeps only what made it fail, and may end before liveness can be judged
/// (a partition never healed, a run cut short). Once the bug is fixed such a file fails nothing
/// the test can judge: it is reported, not failed on (a user's fixed algorithm failed for
/// ever on its own regression, COULD NOT JUDGE, until the file was deleted by hand).
#[test]
fn a_regression_that_can_no_longer_be_judged_does_not_fail_the_test() {
    use sincro::algorithms::Algorithm;
    let dir = scratch("unjudged-regression");
    std::fs::create_dir_all(&dir).unwrap();
    let mut sc = CentralizedSpec.generate("correct", 7, &Default::default());
    // cut right after the last request, as a shrunk file may be
    sc.faults.clear();
    sc.duration_ms = sc.workload.iter().map(|w| w.at_ms).max().unwrap() + 1;
    let out = CentralizedSpec.run(&sc, Default::default()).unwrap();
    assert!(
        matches!(out.verdict, Verdict::Unjudged { .. }),
        "the file must be one that cannot be judged: {}",
        out.verdict
    );
    std::fs::write(
        dir.join("mutex.centralized.correct.seed7.json"),
        sc.to_json(),
    )
    .unwrap();
    let ok = check(CentralizedSpec)
        .ignore_env()
        .seeds(3)
        .regressions(&dir)
        .run()
        .unwrap();
    assert_eq!(ok.regressions_replayed, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A failure found with `.faults([DelaySpikes])` outside the token ring's model, shrunk to
/// the `set_links` of its spike, is that test's regression: the model's own test does not
/// replay it. The spike's override counted as plain delays, which every model tolerates, and
/// the correct variant's test failed on it for ever (stop 73's probe). A `set_links` within
/// the network's latency bound is still a delay, replayed.
#[test]
fn a_regression_found_with_delay_spikes_is_not_replayed_by_the_models_test() {
    use sincro::algorithms::mutex::token_ring::TokenRingSpec;
    use sincro::algorithms::Algorithm;
    use sincro::harness::net::{Latency, LinkOverride};
    use sincro::harness::{Fault, TimedFault};
    let dir = scratch("spike-regressions");
    std::fs::create_dir_all(&dir).unwrap();
    let with_latency = |ms: f64| {
        let mut sc = TokenRingSpec.generate("correct", 3, &Default::default());
        sc.faults.clear();
        sc.faults.push(TimedFault {
            at_ms: 20,
            fault: Fault::SetLinks(Box::new(LinkOverride::latency_from(
                0,
                Latency::Constant { ms },
            ))),
        });
        sc
    };
    // A spike, as the generator draws them (750 ms, far past the law's bound): not replayed.
    let spike = with_latency(750.0);
    assert!(spike.classes_in_use().contains(&FaultClass::DelaySpikes));
    let file = dir.join("mutex.token-ring.correct.seed3.json");
    std::fs::write(&file, spike.to_json()).unwrap();
    let ok = check(TokenRingSpec)
        .ignore_env()
        .seeds(1)
        .regressions(&dir)
        .run()
        .unwrap_or_else(|f| panic!("the model's test replayed the spike's regression: {f}"));
    assert_eq!(ok.regressions_replayed, 0);
    // Within the bound, a delay: replayed.
    let bound_ms = spike.network.latency.max_ns() as f64 / 1e6;
    let delay = with_latency(bound_ms);
    assert!(!delay.classes_in_use().contains(&FaultClass::DelaySpikes));
    std::fs::write(&file, delay.to_json()).unwrap();
    let ok = check(TokenRingSpec)
        .ignore_env()
        .seeds(1)
        .regressions(&dir)
        .run()
        .unwrap();
    assert_eq!(ok.regressions_replayed, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without a regressions directory a failure has no file: its replay line is the seed, with
/// this test's name as `cargo test`'s filter, and that seed alone fails the same way.
#[test]
fn a_failure_without_a_file_replays_by_its_seed_in_this_test() {
    let failed = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .seeds(200)
        .no_regressions()
        .run()
        .unwrap_err();
    assert_eq!(failed.path, None);
    let seed = failed.seed.expect("a fuzzed failure names its seed");
    assert!(
        failed.seed_replays,
        "seed {seed} was generated, not mutated"
    );
    let text = failed.to_string();
    // the package and test binary this test runs in, then the test's own name
    let filter = match std::thread::current().name() {
        Some(t) if t != "main" => format!(" -p sincro --test it -- --exact {t}"),
        _ => String::new(),
    };
    assert!(
        text.contains(&format!("replay: SINCRO_SEED={seed} cargo test{filter}\n")),
        "{text}"
    );
    // What the line runs: that one seed, which fails again.
    let again = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .seed_start(seed)
        .seeds(1)
        .no_regressions()
        .run()
        .unwrap_err();
    assert_eq!(again.seed, Some(seed));
    assert_eq!(again.scenario, failed.scenario);
}

#[test]
fn bad_builder_values_are_errors_not_panics() {
    let e = check(CentralizedSpec)
        .ignore_env()
        .nodes(0..=3)
        .run()
        .unwrap_err();
    assert!(e.headline.contains("nodes(0..=3)"), "{e}");
    let e = check(CentralizedSpec)
        .ignore_env()
        .seeds(0)
        .run()
        .unwrap_err();
    assert!(e.headline.contains("seeds(0)"), "{e}");
    let e = check(CentralizedSpec)
        .ignore_env()
        .seed_start(u64::MAX - 1)
        .seeds(3)
        .run()
        .unwrap_err();
    assert!(e.headline.contains("at most 2 start there"), "{e}");
    // A check of no property would judge nothing and pass.
    let e = check(CentralizedSpec)
        .ignore_env()
        .properties([])
        .run()
        .unwrap_err();
    assert!(e.headline.contains("properties([])"), "{e}");
    // Values the command line refuses by flag are refused here by builder name, before any
    // seed: a node count past the limit used to panic while generating seed 0.
    let refused = [
        (
            check(CentralizedSpec).nodes(3..=usize::MAX),
            "nodes(..=18446744073709551615)",
        ),
        (
            check(CentralizedSpec).active(Duration::ZERO),
            "active(0 ms)",
        ),
        (check(CentralizedSpec).jobs(100_000), "jobs(100000)"),
        // 0 was made 1 silently, where SINCRO_JOBS=0 is refused.
        (check(CentralizedSpec).jobs(0), "jobs(0)"),
        (check(CentralizedSpec).shrink_runs(0), "shrink_runs(0)"),
        (
            check(CentralizedSpec).shrink_time(Duration::ZERO),
            "shrink_time(0)",
        ),
        (check(CentralizedSpec).time(Duration::ZERO), "time(0 s)"),
        (
            check(CentralizedSpec).limits(sincro::harness::Limits {
                max_in_flight: 0,
                ..Default::default()
            }),
            "limits(max_in_flight: 0)",
        ),
        // A deadline past what `Instant` holds panicked; u64::MAX seeds never end.
        (check(CentralizedSpec).time(Duration::MAX), "under 10^9 s"),
        (check(CentralizedSpec).seeds(u64::MAX), "seeds(u64::MAX)"),
    ];
    for (c, named) in refused {
        let e = c.ignore_env().no_regressions().run().unwrap_err();
        assert!(e.headline.contains(named), "{named}: {e}");
    }
    // A budget that ends before any seed ran checked nothing: an error, not a pass.
    let e = check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .time(Duration::from_nanos(1))
        .run()
        .unwrap_err();
    assert!(e.headline.contains("before any seed ran"), "{e}");
    // A property name nothing judges is the builder's mistake, said before any seed (it was
    // "the scenario of seed 0 was refused"); one that leaves nothing judged says so (it
    // listed nothing after "they judge:").
    let e = check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .properties(["nope"])
        .run()
        .unwrap_err();
    assert!(
        e.headline.contains("does not judge `nope`")
            && e.headline.contains("mutual_exclusion")
            && !e.headline.contains("seed 0"),
        "{e}"
    );
    let e = check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .properties(["nope"])
        .expect_violation("nope")
        .unwrap_err();
    assert!(
        e.headline
            .contains("names nothing mutex.centralized judges"),
        "{e}"
    );
    // A shrink cap that ends at once still reports a failure that fails (the smallest
    // verified by then: at worst the scenario as found).
    let d = check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .variant(Variant::LeaseTimeout)
        .shrink_time(Duration::from_nanos(1))
        .expect_violation("mutual_exclusion")
        .unwrap();
    let replayed = sincro::algorithms::find("mutex.centralized")
        .unwrap()
        .run(&d.scenario, sincro::harness::RunOptions::default())
        .unwrap();
    assert_eq!(replayed.verdict.label(), "violation:mutual_exclusion");
    // A misspelt property is refused at once, not after every seed "did not violate" it.
    let e = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .expect_violation("mutual_exclusio")
        .unwrap_err();
    assert!(
        e.headline.contains("do not judge `mutual_exclusio`")
            && e.headline.contains("mutual_exclusion, liveness"),
        "{e}"
    );
}

/// A safety violation of `property` at event `ev`, the one event it names: what the tests'
/// own checkers report.
fn safety_at(
    property: &str,
    ev: &sincro::harness::Event,
    explanation: String,
) -> sincro::harness::Violation {
    sincro::harness::Violation {
        property: property.into(),
        class: sincro::harness::PropertyClass::Safety,
        explanation,
        t_ns: ev.t_ns,
        events: vec![ev.id],
    }
}

/// A test's own checker: nobody may ever enter (so any entry is a violation).
struct NobodyEnters;

impl sincro::harness::Checker for NobodyEnters {
    fn property(&self) -> &'static str {
        "nobody_enters"
    }
    fn on_event(&mut self, ev: &sincro::harness::Event) -> Result<(), sincro::harness::Violation> {
        use sincro::harness::{EventKind, Observation};
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::CsEnter { .. },
            } => Err(safety_at(
                "nobody_enters",
                ev,
                format!("node {:?} entered", ev.node),
            )),
            _ => Ok(()),
        }
    }
    fn finish(&mut self, _end_t_ns: u64) -> Result<(), sincro::harness::Violation> {
        Ok(())
    }
    fn evidence(&self) -> &'static [&'static str] {
        &[]
    }
}

#[test]
fn a_tests_own_checker_judges_every_run_and_its_shrunk_replay() {
    let found = check(CentralizedSpec)
        .ignore_env()
        .checker("nobody_enters", |_, _| Box::new(NobodyEnters))
        .seeds(20)
        .expect_violation("nobody_enters")
        .unwrap();
    assert!(
        found.explanation.contains("entered"),
        "{}",
        found.explanation
    );
    // shrunk to a single input: one entry is enough
    assert_eq!(
        found.scenario.workload.len(),
        1,
        "{}",
        found.scenario.to_json()
    );
    // without the extra checker the same scenario passes
    let out = sincro::algorithms::run_scenario(&found.scenario, Default::default()).unwrap();
    assert!(out.verdict.is_pass(), "{}", out.verdict);
}

#[test]
fn a_tests_own_checker_is_judged_under_its_given_name_and_can_be_the_only_property() {
    // The name given to `.checker` is the property: the violation carries it, and
    // `.properties([..])` may name it, alone (it was refused as a property the algorithm
    // does not promise). Here the test's own copy of mutual exclusion, named `exclusive`:
    // with every promised property judged, the built-in one reports the same event first;
    // judging only `exclusive`, its violation is the one found.
    use sincro::checkers::MutualExclusion;
    let own = || {
        check(CentralizedSpec)
            .ignore_env()
            .variant(Variant::LeaseTimeout)
            .checker("exclusive", |sc, _| {
                Box::new(MutualExclusion::new(sc.nodes))
            })
            .seeds(50)
    };
    let e = own().expect_violation("exclusive").unwrap_err();
    assert!(
        e.headline.contains("add `.properties([\"exclusive\"])`"),
        "{e}"
    );
    let found = own()
        .properties(["exclusive"])
        .expect_violation("exclusive")
        .unwrap();
    assert!(
        found.explanation.contains("still inside"),
        "{}",
        found.explanation
    );
    assert_eq!(
        found.scenario.checks.properties.as_deref(),
        Some(&["exclusive".to_string()][..])
    );
    // and a passing check of it alone passes: the sampled runs audited after the campaign
    // (evidence, line order) were built without the test's own names, and failed with
    // "names `exclusive`, which mutex.centralized does not promise"
    let report = check(CentralizedSpec)
        .ignore_env()
        .checker("exclusive", |sc, _| {
            Box::new(MutualExclusion::new(sc.nodes))
        })
        .properties(["exclusive"])
        .seeds(20)
        .no_regressions()
        .run();
    assert!(report.is_ok(), "{}", report.unwrap_err());
    // a failure of it replays in the test only: `sincro replay FILE` does not know the
    // test's own checker (it said COULD NOT JUDGE where the test found the violation)
    let dir = scratch("own-checker-replay");
    let failed = own()
        .properties(["exclusive"])
        .regressions(&dir)
        .run()
        .unwrap_err();
    let text = failed.to_string();
    assert!(text.contains("SINCRO_REPLAY="), "{text}");
    assert!(!text.contains("or `replay"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_built_in_checker_chosen_by_type_judges_a_spec_that_does_not_promise_it() {
    // A correct algorithm still passes with a built-in checker added by type.
    use sincro::algorithms::mutex::voting::{Mode, VotingSpec};
    use sincro::checkers::MutualExclusion;
    let report = check(VotingSpec(Mode::Voting))
        .ignore_env()
        .no_regressions()
        .check::<MutualExclusion>()
        .seeds(10)
        .run()
        .unwrap();
    assert_eq!(report.runs, 10);
    // The lease twin of the centralized lock breaks mutual exclusion: the checker added by type
    // catches it even when the scenario's own properties are limited to liveness.
    let found = check(CentralizedSpec)
        .ignore_env()
        .variant(Variant::LeaseTimeout)
        .properties(["liveness"])
        .check::<MutualExclusion>()
        .seeds(200)
        .expect_violation("mutual_exclusion")
        .unwrap();
    assert!(
        found.explanation.contains("still inside"),
        "{}",
        found.explanation
    );
}

/// A regression file is replayed by the tests whose fault classes cover its plan's: every
/// generated in-model scenario of every built-in algorithm stays inside its model's classes
/// (delays aside), so a test never skips a failure it found itself.
#[test]
fn generated_in_model_plans_stay_inside_their_models_classes() {
    use sincro::algorithms::Registry;
    use sincro::harness::fault::FaultClass;
    use sincro::harness::gen::GenOptions;
    for alg in Registry::builtin().algorithms() {
        let info = alg.info();
        let allowed = info.fault_model.tolerates.clone();
        for v in info.variants.iter().filter(|v| !v.buggy) {
            for seed in 0..6 {
                let sc = alg.generate(v.name, seed, &GenOptions::default());
                for c in sc.fault_classes() {
                    assert!(
                        c == FaultClass::Delays || allowed.contains(&c),
                        "{} / {} seed {seed}: {c:?} outside {allowed:?}",
                        info.name,
                        v.name
                    );
                }
            }
        }
    }
}

/// A test's checker that reads one kind of observation and finds nothing wrong.
struct Reads(&'static [&'static str]);

impl sincro::harness::Checker for Reads {
    fn property(&self) -> &'static str {
        "reads"
    }
    fn on_event(&mut self, _: &sincro::harness::Event) -> Result<(), sincro::harness::Violation> {
        Ok(())
    }
    fn finish(&mut self, _end_t_ns: u64) -> Result<(), sincro::harness::Violation> {
        Ok(())
    }
    fn evidence(&self) -> &'static [&'static str] {
        self.0
    }
}

/// A property no run gave anything to judge passed on nothing, so the check says it could
/// not judge it: a checker reading an observation the algorithm never makes fails the test;
/// one reading `cs_enter`, which the runs have, passes.
#[test]
fn a_property_no_run_gave_anything_to_judge_is_not_a_pass() {
    let e = check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .checker("reads", |_, _| Box::new(Reads(&["primary_on"])))
        .seeds(5)
        .run()
        .unwrap_err();
    assert!(
        e.headline.contains("could not judge `reads`") && e.headline.contains("primary_on"),
        "{e}"
    );
    check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .checker("reads", |_, _| Box::new(Reads(&["cs_enter"])))
        .seeds(5)
        .run()
        .unwrap();
}

/// A test's own checker that takes the first node to start as the coordinator and expects it
/// to be node 0: true of the order the native engine records the starts of one instant in,
/// but nothing orders them (another engine, or a hand-made trace, may start node 2 first).
struct FirstStartIsNodeZero {
    seen: bool,
}

impl sincro::harness::Checker for FirstStartIsNodeZero {
    fn property(&self) -> &'static str {
        "first_start"
    }
    fn on_event(&mut self, ev: &sincro::harness::Event) -> Result<(), sincro::harness::Violation> {
        use sincro::harness::EventKind;
        if self.seen || !matches!(ev.kind, EventKind::Start { .. }) {
            return Ok(());
        }
        self.seen = true;
        if ev.node == Some(0) {
            return Ok(());
        }
        Err(safety_at(
            "first_start",
            ev,
            format!("node {:?} started first", ev.node),
        ))
    }
    fn finish(&mut self, _end_t_ns: u64) -> Result<(), sincro::harness::Violation> {
        Ok(())
    }
    fn evidence(&self) -> &'static [&'static str] {
        &[]
    }
}

/// A checker whose verdict depends on the order of one instant's lines passes every seed on
/// the native engine and would fail on another: the check judges its sampled runs again with
/// each instant in another order the run allows and says so. The built-in checkers of the
/// same check judge both orders alike (the check passes without the test's checker).
#[test]
fn a_checker_that_depends_on_line_order_fails_the_check() {
    let e = check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .checker("first_start", |_, _| {
            Box::new(FirstStartIsNodeZero { seen: false })
        })
        .seeds(10)
        .run()
        .unwrap_err();
    assert!(
        e.headline
            .contains("the checker of `first_start` depends on line order")
            && e.headline.contains("PASS")
            && e.headline.contains("started first"),
        "{e}"
    );
    assert_eq!(e.seed, Some(0), "{e}");
    assert!(
        e.to_string().contains("replay: SINCRO_SEED=0 cargo test"),
        "{e}"
    );
    check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .seeds(10)
        .run()
        .unwrap();
}

/// A test's own checker that forbids entering a critical section but says it reads only
/// starts (`Checker::interest`) and never needs other events (`wake_at_ns`): online, where the
/// engines pass it only those, it passes every run; passed every event, it finds the entry.
struct BlindToEntries;

impl sincro::harness::Checker for BlindToEntries {
    fn property(&self) -> &'static str {
        "no_entry"
    }
    fn on_event(&mut self, ev: &sincro::harness::Event) -> Result<(), sincro::harness::Violation> {
        use sincro::harness::{EventKind, Observation};
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::CsEnter { .. },
            } => Err(safety_at("no_entry", ev, "a node entered".into())),
            _ => Ok(()),
        }
    }
    fn finish(&mut self, _end_t_ns: u64) -> Result<(), sincro::harness::Violation> {
        Ok(())
    }
    fn evidence(&self) -> &'static [&'static str] {
        &[]
    }
    fn interest(&self) -> sincro::harness::Interest {
        sincro::harness::Interest::START
    }
    fn wake_at_ns(&self) -> u64 {
        u64::MAX
    }
}

/// A checker whose interest leaves out the events it judges passes every seed online and
/// would fail on the same runs passed every event (`sincro check` of their traces): the check
/// judges its sampled runs both ways and says so, with the seed that replays it.
#[test]
fn a_checker_whose_interest_leaves_out_what_it_reads_fails_the_check() {
    let e = check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .checker("no_entry", |_, _| Box::new(BlindToEntries))
        .seeds(5)
        .run()
        .unwrap_err();
    assert!(
        e.headline.contains(
            "the checker of `no_entry` judges the run differently as the engines pass it events"
        ) && e.headline.contains("violation:no_entry at event")
            && e.headline
                .contains("with every event, pass with only the events of its `interest()`"),
        "{e}"
    );
    assert_eq!(e.seed, Some(0), "{e}");
}

/// Every built-in checker judges each instant as a set, and declares every event it reads:
/// on generated runs of every algorithm and variant, faults of every class included, each
/// checker gives the same verdict on the run as recorded and with each instant's lines in
/// another order the run allows, and the same verdict, at the same event, passed every event
/// as passed only those its gate lets through (`Checker::interest`, `Checker::wake_at_ns`: how
/// the engines pass them online). The trace is one `Trace::validate` accepts. `SINCRO_ORDER_SEEDS` runs more seeds per variant
/// (default 6 in a full sweep, as CI runs it; 3 in a quick debug run).
#[test]
fn built_in_checkers_do_not_depend_on_line_order_or_on_the_gate() {
    use sincro::harness::gen::GenOptions;
    use sincro::harness::RunOptions;
    let seeds: u64 = std::env::var("SINCRO_ORDER_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(crate::common::sweep(6, 3));
    let gen = GenOptions {
        beyond_model: true,
        ..GenOptions::default()
    };
    let mut judged = 0;
    let mut found = Vec::new();
    for alg in sincro::algorithms::Registry::current().algorithms() {
        for variant in alg.info().variants {
            for seed in 0..seeds {
                let sc = alg.generate(variant.name, seed, &gen);
                let Ok(out) = alg.run(&sc, RunOptions::new(true)) else {
                    continue;
                };
                let Some(trace) = &out.trace else { continue };
                if let Err(e) = trace.validate() {
                    found.push(format!(
                        "{} / {} seed {seed}: invalid trace: {e}",
                        alg.info().name,
                        variant.name
                    ));
                }
                judged += 1;
                if let Some((p, a, b)) =
                    sincro::testing::line_order_dependence(*alg, &sc, trace, out.stats.end_t_ns)
                {
                    found.push(format!(
                        "{} / {} seed {seed}: {p}: {a} / reordered {b}",
                        alg.info().name,
                        variant.name
                    ));
                }
                if let Some(d) =
                    sincro::testing::gate_dependence(*alg, &sc, trace, out.stats.end_t_ns)
                {
                    found.push(format!(
                        "{} / {} seed {seed}: {}: {d}",
                        alg.info().name,
                        variant.name,
                        d.property
                    ));
                }
            }
        }
    }
    // most runs of the 40-odd variants are judged
    assert!(judged > 40 * seeds, "{judged} of {seeds} seeds per variant");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Generated scenarios inside each algorithm's fault model stop their faults: none leaves a
/// link losing messages at the end (liveness is judged after the faults stop; a loss that
/// never stops is a fault that never stops, so such a scenario could never be judged).
/// 20 seeds per variant in a full sweep (CI), 5 in a quick debug run.
#[test]
fn generated_scenarios_stop_losing_messages() {
    use sincro::harness::fault::FaultClass;
    use sincro::harness::gen::GenOptions;
    // In the model, and the fault-tolerance matrix's loss column (beyond it).
    let matrix_loss = GenOptions {
        beyond_model: true,
        only: Some(FaultClass::Loss),
        ..GenOptions::default()
    };
    let mut lossy = Vec::new();
    for gen in [GenOptions::default(), matrix_loss] {
        for alg in sincro::algorithms::Registry::current().algorithms() {
            for variant in alg.info().variants {
                for seed in 0..crate::common::sweep(20, 5) {
                    let sc = alg.generate(variant.name, seed, &gen);
                    if sc.loses_at_the_end() {
                        lossy.push(format!(
                            "{} / {} seed {seed}",
                            alg.info().name,
                            variant.name
                        ));
                    }
                }
            }
        }
    }
    assert!(lossy.is_empty(), "{}", lossy.join("\n"));
}

/// A spec that promises no property, checked with none of the test's own: every run would
/// pass on nothing. `check` refuses it, as it refuses `.properties([])`, and a `fuzz`
/// campaign of it is COULD NOT JUDGE (both said "passed" / "no violation").
#[test]
fn a_spec_that_promises_nothing_is_not_passed_on_nothing() {
    use serde::{Deserialize, Serialize};
    use sincro::algorithms::Algorithm;
    use sincro::harness::{Ctx, NodeId, Process};
    use std::sync::atomic::AtomicBool;

    #[derive(Default)]
    struct Quiet;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Poke;
    impl Process for Quiet {
        type Msg = ();
        type Timer = ();
        type Input = Poke;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _: Poke) {
            ctx.broadcast(());
        }
    }
    #[allow(non_upper_case_globals)]
    const QuietSpec: OneInput<Quiet> = OneInput::new("test.quiet", &[]);

    let e = check(QuietSpec)
        .ignore_env()
        .seeds(5)
        .no_regressions()
        .run()
        .unwrap_err();
    assert!(e.headline.contains("promises no property"), "{e}");
    // a property of the test's own makes it a check again
    check(QuietSpec)
        .ignore_env()
        .check::<sincro::checkers::MutualExclusion>()
        .seeds(5)
        .no_regressions()
        .run()
        .map(|_| ())
        .unwrap_or_else(|e| assert!(!e.headline.contains("promises no property"), "{e}"));

    let alg: &'static dyn Algorithm = Box::leak(Box::new(QuietSpec));
    let target = sincro::fuzz::Target {
        algorithm: alg,
        variant: alg.info().variants[0].clone(),
    };
    let cfg = sincro::fuzz::FuzzConfig {
        seeds: 5,
        coverage: false,
        out_dir: scratch("quiet-fuzz"),
        ..Default::default()
    };
    let report = sincro::fuzz::campaign(
        &[target],
        &cfg,
        &Default::default(),
        None,
        &AtomicBool::new(false),
        &Default::default(),
    );
    let (as_expected, text) = sincro::fuzz::outcome(&report.targets[0], false);
    assert!(!as_expected, "{text}");
    assert!(
        text.contains("COULD NOT JUDGE: test.quiet promises no property"),
        "{text}"
    );
}

/// A panic in a spec's own code while a scenario is generated (its workload here) is an
/// error naming the seed and the spec's line, guided or not: it unwound through the
/// campaign's worker ("a scoped thread panicked", no seed, the line inside Sincro).
#[test]
fn a_panic_in_a_specs_workload_is_reported_for_its_seed() {
    use serde::{Deserialize, Serialize};
    use sincro::harness::{Ctx, NodeId, Process};

    #[derive(Default)]
    struct Idle;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Poke;
    impl Process for Idle {
        type Msg = ();
        type Timer = ();
        type Input = Poke;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
    }
    #[allow(non_upper_case_globals)]
    const Panicky: OneInput<Idle> =
        OneInput::new("test.panicky", &["mutual_exclusion"]).panicking_in_its_workload();
    for coverage in [false, true] {
        let e = check(Panicky)
            .ignore_env()
            .seeds(4)
            .coverage(coverage)
            .no_regressions()
            .run()
            .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("seed 0")
                && text.contains("generating its scenario panicked")
                && text.contains("index() over an empty range")
                && text.contains("tests/it/testing.rs"),
            "coverage {coverage}: {text}"
        );
    }
}

#[test]
fn a_node_range_wholly_below_what_the_algorithm_needs_is_refused() {
    use sincro::algorithms::clocks::berkeley::BerkeleySpec;
    // Berkeley needs 2 nodes (a master and a slave): a test asking for exactly 1 would run
    // 2 without a word.
    let err = check(BerkeleySpec)
        .ignore_env()
        .nodes(1..=1)
        .seeds(2)
        .no_regressions()
        .run()
        .unwrap_err();
    assert!(
        err.headline.contains("nodes(1..=1)") && err.headline.contains("at least 2 nodes"),
        "{err}"
    );
    // A range reaching what it needs is raised to it, as the command line does.
    let report = check(BerkeleySpec)
        .ignore_env()
        .nodes(1..=2)
        .seeds(2)
        .no_regressions()
        .run()
        .unwrap();
    assert_eq!(report.runs, 2);
    // A scenario of fewer nodes than the spec's least is refused by its run, so a shrinker
    // never reaches one (stop 64: it shrank a failure to 1 node, where another bug showed).
    use sincro::algorithms::Algorithm;
    let mut sc = BerkeleySpec.generate("correct", 0, &Default::default());
    sc.nodes = 1;
    let err = BerkeleySpec
        .run(&sc, sincro::harness::RunOptions::default())
        .unwrap_err();
    assert!(
        err.0
            .contains("needs at least 2 nodes (its Spec::nodes_min)"),
        "{err}"
    );
}

/// A spec may build its own checker under a built-in property's name, reading other events
/// (`Spec::checker`): the check asks that checker what it reads. It used the built-in's
/// (`cs_enter`), so a correct algorithm whose nodes observe `enter` failed every time with
/// "could not judge".
#[test]
fn a_specs_own_checker_under_a_built_in_name_is_judged_by_what_it_reads() {
    use serde::{Deserialize, Serialize};
    use sincro::harness::{Ctx, NodeId, Observation, Process};

    #[derive(Default)]
    struct Enters;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Go;
    impl Process for Enters {
        type Msg = ();
        type Timer = ();
        type Input = Go;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _: Go) {
            ctx.observe(Observation::user("enter", ()));
        }
    }
    struct Own(Reads);
    impl sincro::harness::Checker for Own {
        fn property(&self) -> &'static str {
            "mutual_exclusion"
        }
        fn on_event(
            &mut self,
            ev: &sincro::harness::Event,
        ) -> Result<(), sincro::harness::Violation> {
            self.0.on_event(ev)
        }
        fn finish(&mut self, end: u64) -> Result<(), sincro::harness::Violation> {
            self.0.finish(end)
        }
        fn evidence(&self) -> &'static [&'static str] {
            self.0.evidence()
        }
    }
    let own_lock = OneInput::<Enters>::new("test.own-lock", &["mutual_exclusion"])
        .with_checker(|| Box::new(Own(Reads(&["enter"]))));
    let report = check(own_lock)
        .ignore_env()
        .no_regressions()
        .seeds(10)
        .run();
    assert!(report.is_ok(), "{}", report.unwrap_err());
}

/// A determinism failure persists like any other, and its regression file stays a failure in
/// the plain runs after it (it passed them: the file does not say how it failed, and only a
/// run twice shows it); its message says how to replay it.
#[test]
fn a_nondeterministic_regression_keeps_failing_without_the_env_variable() {
    use serde::{Deserialize, Serialize};
    use sincro::harness::{Ctx, NodeId, Observation, Process};
    use std::sync::atomic::{AtomicU64, Ordering};

    static CALLS: AtomicU64 = AtomicU64::new(0);
    #[derive(Default)]
    struct Drifting;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Go;
    impl Process for Drifting {
        type Msg = ();
        type Timer = ();
        type Input = Go;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _: Go) {
            // State outside the run: a different trace every run.
            let n = CALLS.fetch_add(1, Ordering::Relaxed);
            ctx.observe(Observation::user("tick", n));
        }
    }
    let dir = scratch("nondeterministic");
    let check_it = || {
        check(OneInput::<Drifting>::new("test.drifting", &[]))
            .ignore_env()
            .checker("reads", |_, _| Box::new(Reads(&["tick"])))
            .seeds(3)
            .regressions(&dir)
    };
    let found = check_it().check_determinism(true).run().unwrap_err();
    assert!(
        found.to_string().contains("two different traces"),
        "{found}"
    );
    let again = check_it().run().unwrap_err();
    let text = again.to_string();
    assert!(
        text.contains("regression") && text.contains("two different traces"),
        "{text}"
    );
    assert!(text.contains("SINCRO_CHECK_DETERMINISM=1"), "{text}");
    assert!(text.contains("SINCRO_REPLAY="), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A test spec: nodes `N::default()`, a workload of one input (`N::Input::default()`) at a
/// random node and time, the properties it promises, and optionally a checker it builds
/// itself for them (`Spec::checker`).
struct OneInput<N> {
    name: &'static str,
    properties: &'static [&'static str],
    own: Option<fn() -> Box<dyn sincro::harness::Checker>>,
    /// The workload panics (`SimRng::index(0)`): the spec's own code, not a node's.
    panics: bool,
    node: std::marker::PhantomData<fn() -> N>,
}

impl<N> Clone for OneInput<N> {
    fn clone(&self) -> Self {
        OneInput {
            node: std::marker::PhantomData,
            ..*self
        }
    }
}

impl<N> OneInput<N> {
    const fn new(name: &'static str, properties: &'static [&'static str]) -> Self {
        OneInput {
            name,
            properties,
            own: None,
            panics: false,
            node: std::marker::PhantomData,
        }
    }

    const fn panicking_in_its_workload(mut self) -> Self {
        self.panics = true;
        self
    }

    fn with_checker(mut self, own: fn() -> Box<dyn sincro::harness::Checker>) -> Self {
        self.own = Some(own);
        self
    }
}

impl<N> sincro::algorithms::spec::Spec for OneInput<N>
where
    N: sincro::harness::Process + Default + 'static,
    N::Input: Default,
{
    type Node = N;
    type Params = ();
    type Variant = sincro::algorithms::spec::Correct;
    fn name(&self) -> &'static str {
        self.name
    }
    fn properties(&self) -> Vec<&'static str> {
        self.properties.to_vec()
    }
    fn fault_model(&self) -> sincro::harness::fault::FaultModel {
        sincro::harness::fault::FaultModel::default()
    }
    fn node(&self, _: sincro::algorithms::spec::Correct, _: &(), _: sincro::harness::NodeId) -> N {
        N::default()
    }
    fn workload(
        &self,
        rng: &mut sincro::harness::SimRng,
        nodes: usize,
        active_ms: u64,
    ) -> Vec<sincro::algorithms::spec::Timed<N::Input>> {
        if self.panics {
            rng.index(0);
        }
        vec![sincro::algorithms::spec::Timed {
            at_ms: rng.range_u64(0, active_ms),
            node: rng.index(nodes),
            input: N::Input::default(),
        }]
    }
    fn checker(
        &self,
        property: &str,
        _: &sincro::algorithms::spec::Setup<'_, Self>,
        _: u64,
    ) -> Result<Option<Box<dyn sincro::harness::Checker>>, String> {
        Ok(self
            .own
            .filter(|_| self.properties.contains(&property))
            .map(|build| build()))
    }
}

/// A spec's checker that panics makes the paths it panics on "could not judge" in `explore`,
/// as a run is in `fuzz`; the search is not aborted (stop 64: the panic unwound through the
/// search, and `sincro explore` ended with exit 101, nothing written).
#[test]
fn a_checker_that_panics_in_explore_leaves_its_paths_unjudged() {
    use serde::{Deserialize, Serialize};
    use sincro::algorithms::Algorithm;
    use sincro::harness::engine::explore::Bounds;
    use sincro::harness::explore::ExploreOptions;
    use sincro::harness::{Ctx, NodeId, Observation, Process};

    #[derive(Default)]
    struct Marks;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Go;
    impl Process for Marks {
        type Msg = ();
        type Timer = ();
        type Input = Go;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _: Go) {
            ctx.observe(Observation::user("mark", ()));
        }
    }
    struct Blows;
    impl sincro::harness::Checker for Blows {
        fn property(&self) -> &'static str {
            "blows"
        }
        fn on_event(
            &mut self,
            ev: &sincro::harness::Event,
        ) -> Result<(), sincro::harness::Violation> {
            assert!(
                !matches!(ev.kind, sincro::harness::EventKind::Observe { .. }),
                "the checker blew up"
            );
            Ok(())
        }
        fn finish(&mut self, _: u64) -> Result<(), sincro::harness::Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &[]
        }
    }
    let spec = OneInput::<Marks>::new("test.blows", &["blows"]).with_checker(|| Box::new(Blows));
    let sc = spec.generate("correct", 0, &sincro::harness::gen::GenOptions::default());
    let options = ExploreOptions {
        bounds: Bounds::default(),
        max_depth: 10,
        max_states: 10_000,
        max_time: None,
        max_bytes: sincro::harness::explore::MAX_SEARCH_BYTES,
        sleep_sets: true,
        stop: None,
    };
    let report = spec.explore(&sc, &options).expect("the search ends");
    assert!(report.counterexample.is_none(), "{report}");
    let unjudged = report.could_not_judge();
    assert_eq!(
        unjudged.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        ["unjudged:checker_or_factory_panic"],
        "{report}"
    );
    assert!(
        report.to_string().contains("the checker blew up"),
        "{report}"
    );
}

/// A failure that does not come back when its scenario runs again is not shrunk, and says
/// why: it was shrunk towards what the second run gave, a pass, and the "shrunk" file (1
/// node, 0 inputs, 1 ms) passed its replay (stop 64's probe).
#[test]
fn a_failure_that_does_not_come_back_is_not_shrunk_towards_a_pass() {
    use serde::{Deserialize, Serialize};
    use sincro::harness::{Ctx, NodeId, Observation, Process};
    use std::sync::atomic::{AtomicU64, Ordering};

    static CALLS: AtomicU64 = AtomicU64::new(0);
    #[derive(Default)]
    struct OnceBad;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Go;
    impl Process for OnceBad {
        type Msg = ();
        type Timer = ();
        type Input = Go;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _: Go) {
            // State outside the run: only the process's first input ever is bad.
            let bad = CALLS.fetch_add(1, Ordering::Relaxed) == 0;
            ctx.observe(Observation::user(if bad { "bad" } else { "good" }, ()));
        }
    }
    struct NoBad;
    impl sincro::harness::Checker for NoBad {
        fn property(&self) -> &'static str {
            "no_bad"
        }
        fn on_event(
            &mut self,
            ev: &sincro::harness::Event,
        ) -> Result<(), sincro::harness::Violation> {
            match &ev.kind {
                sincro::harness::EventKind::Observe {
                    obs: Observation::User { kind, .. },
                } if kind == "bad" => Err(safety_at("no_bad", ev, "a bad input".into())),
                _ => Ok(()),
            }
        }
        fn finish(&mut self, _: u64) -> Result<(), sincro::harness::Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &[]
        }
    }
    let dir = scratch("once-bad");
    let failure = check(
        OneInput::<OnceBad>::new("test.once-bad", &["no_bad"]).with_checker(|| Box::new(NoBad)),
    )
    .ignore_env()
    .seeds(1)
    .regressions(&dir)
    .run()
    .unwrap_err();
    let text = failure.to_string();
    assert!(text.contains("NONDETERMINISTIC: not shrunk"), "{text}");
    assert!(text.contains("not `violation:no_bad`"), "{text}");
    // The regression is the original, not a scenario shrunk towards a pass.
    let written = failure.path.clone().expect("a regression file");
    let sc = sincro::harness::Scenario::load(&written).unwrap();
    assert_eq!(sc.workload.len(), 1, "{}", sc.to_json());
    assert!(
        !sc.description.contains("shrunk from"),
        "{}",
        sc.description
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A spec's checker must carry the name the spec built it for: under another, its
/// violations never matched `expect_violation` of the listed name, and `list` named one
/// property while every verdict named another (stop 64's probe).
#[test]
fn a_specs_checker_under_another_name_is_refused() {
    struct Other;
    impl sincro::harness::Checker for Other {
        fn property(&self) -> &'static str {
            "something_else"
        }
        fn on_event(
            &mut self,
            _: &sincro::harness::Event,
        ) -> Result<(), sincro::harness::Violation> {
            Ok(())
        }
        fn finish(&mut self, _: u64) -> Result<(), sincro::harness::Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &[]
        }
    }
    #[derive(Default)]
    struct Quiet;
    impl sincro::harness::Process for Quiet {
        type Msg = ();
        type Timer = ();
        type Input = ();
        type Stable = ();
        fn on_message(
            &mut self,
            _: &mut sincro::harness::Ctx<'_, Self>,
            _: sincro::harness::NodeId,
            _: (),
        ) {
        }
        fn on_input(&mut self, _: &mut sincro::harness::Ctx<'_, Self>, _: ()) {}
    }
    let err = check(
        OneInput::<Quiet>::new("test.misnamed", &["pinged_seen"]).with_checker(|| Box::new(Other)),
    )
    .ignore_env()
    .no_regressions()
    .seeds(2)
    .run()
    .unwrap_err();
    assert!(
        err.to_string().contains(
            "Spec::checker(\"pinged_seen\") built a checker whose property() is `something_else`"
        ),
        "{err}"
    );
}

/// A spec of one's own under a built-in's name is refused, as `Registry::with` refuses it:
/// its regression files and replay lines would be taken for the built-in's. The built-in
/// spec of that name is checked as ever.
#[test]
fn a_users_spec_named_like_a_built_in_is_refused() {
    use serde::{Deserialize, Serialize};
    use sincro::harness::{Ctx, NodeId, Process};
    #[derive(Default)]
    struct Idle;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Go;
    impl Process for Idle {
        type Msg = ();
        type Timer = ();
        type Input = Go;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
    }
    let e = check(OneInput::<Idle>::new("mutex.centralized", &["liveness"]))
        .ignore_env()
        .no_regressions()
        .seeds(1)
        .run()
        .unwrap_err();
    assert!(
        e.headline
            .contains("mutex.centralized is the name of a built-in algorithm"),
        "{e}"
    );
    let own = check(OneInput::<Idle>::new("test.idle", &["liveness"]))
        .ignore_env()
        .no_regressions()
        .seeds(1)
        .run();
    assert!(
        !own.is_err_and(|e| e.headline.contains("built-in")),
        "a name of its own is not refused as a built-in's"
    );
    check(CentralizedSpec)
        .ignore_env()
        .no_regressions()
        .seeds(1)
        .run()
        .unwrap();
}

/// A run that does not return is named on stderr while it runs, with the line that runs its
/// seed alone, past `cargo test`'s capture: a callback looping without asking for anything
/// cannot be stopped inside a run, and a test waited on it in silence. The check runs in a
/// child process (this test again, captured as `cargo test` captures it), whose seed's
/// callback spins for a second against a `stall_after` of 50 ms: once in the campaign, once
/// in the audit's sample of the same seed.
#[test]
fn a_run_that_does_not_return_is_named_on_stderr_at_once() {
    use serde::{Deserialize, Serialize};
    use sincro::harness::{Ctx, NodeId, Observation, Process};
    use std::time::Instant;

    const NAME: &str = "testing::a_run_that_does_not_return_is_named_on_stderr_at_once";
    #[derive(Default)]
    struct Spins;
    #[derive(Clone, Debug, Default, Serialize, Deserialize)]
    struct Go;
    impl Process for Spins {
        type Msg = ();
        type Timer = ();
        type Input = Go;
        type Stable = ();
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _: Go) {
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(1) {
                std::hint::spin_loop();
            }
            ctx.observe(Observation::CsEnter { resource: 0 });
            ctx.observe(Observation::CsExit { resource: 0 });
        }
    }
    #[allow(non_upper_case_globals)]
    const SpinsSpec: OneInput<Spins> = OneInput::new("test.spins", &[]);

    if std::env::var_os("SINCRO_TEST_STALL_CHILD").is_some() {
        let e = check(SpinsSpec)
            .ignore_env()
            .stall_after(Duration::ZERO)
            .run()
            .unwrap_err();
        assert!(e.headline.contains("stall_after(0 s)"), "{e}");
        check(SpinsSpec)
            .ignore_env()
            .check::<sincro::checkers::MutualExclusion>()
            .seeds(1)
            .jobs(1)
            .stall_after(Duration::from_millis(50))
            .no_regressions()
            .run()
            .unwrap();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", NAME, "--test-threads", "1"])
        .env("SINCRO_TEST_STALL_CHILD", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{}\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("sincro::testing: test.spins / correct: "))
        .collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].contains("seed 0 has run for 50ms without returning")
            && lines[0].contains(&format!(
                "run it alone: SINCRO_SEED=0 cargo test -p sincro --test it -- --exact {NAME}"
            )),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("seed 0 (run again by the audit")
            && lines[1].contains("has run for 50ms"),
        "{}",
        lines[1]
    );
}
