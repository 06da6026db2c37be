//! Bounded exhaustive exploration (`sincro explore`, `Algorithm::explore`): it finds the
//! built-in bugs with short counterexamples that replay, it finds nothing in their correct
//! twins, its fingerprints merge states, and sleep sets prune executions but not states.

use sincro::algorithms::find;
use sincro::explore::small_scenario;
use sincro::harness::engine::explore::Bounds;
use sincro::harness::explore::{ExploreOptions, ExploreReport, Stop};
use sincro::harness::{Scenario, Verdict};

fn options() -> ExploreOptions {
    ExploreOptions {
        bounds: Bounds::default(),
        max_depth: 30,
        max_states: 200_000,
        max_time: None, // deterministic: the state bound ends it
        sleep_sets: true,
    }
}

fn explore(alg: &str, variant: &str, seed: u64, inputs: usize) -> (Scenario, ExploreReport) {
    let a = find(alg).unwrap();
    let sc = small_scenario(a, variant, 3, seed, inputs, 20);
    let report = a.explore(&sc, &options()).unwrap();
    (sc, report)
}

/// Finds the bug, with a counterexample of at most `max_len` choices that replays to the
/// same violation; the correct variant explores its whole (finite) state space without one.
fn finds_bug_and_not_in_correct(alg: &str, bug: &str, seed: u64, property: &str, max_len: usize) {
    let (sc, report) = explore(alg, bug, seed, 2);
    let cx = report
        .counterexample
        .as_ref()
        .unwrap_or_else(|| panic!("{alg}/{bug}: no violation found: {report}"));
    assert_eq!(report.stop, Stop::Violation);
    match &cx.verdict {
        Verdict::Violation(v) => assert_eq!(v.property, property, "{report}"),
        v => panic!("{alg}/{bug}: expected a violation, got {v:?}"),
    }
    assert!(
        cx.schedule.len() <= max_len,
        "{alg}/{bug}: counterexample of {} choices: {report}",
        cx.schedule.len()
    );
    let a = find(alg).unwrap();
    let out = a
        .replay_schedule(&sc, &options().bounds, &cx.schedule)
        .unwrap();
    assert_eq!(
        out.verdict, cx.verdict,
        "the schedule replays to the same verdict"
    );
    assert!(out.trace.is_some_and(|t| !t.events.is_empty()));
    // Breadth first: no shorter schedule exists, so the prefix one shorter does not violate.
    let short = &cx.schedule[..cx.schedule.len() - 1];
    let out = a.replay_schedule(&sc, &options().bounds, short).unwrap();
    assert!(
        !matches!(out.verdict, Verdict::Violation(_)),
        "{:?}",
        out.verdict
    );

    // The correct variant: nothing within (at least) the depth where the bug shows.
    let a = find(alg).unwrap();
    let sc = small_scenario(a, "correct", 3, seed, 2, 20);
    let correct = a
        .explore(
            &sc,
            &ExploreOptions {
                max_depth: cx.schedule.len() + 2,
                ..options()
            },
        )
        .unwrap();
    assert!(correct.counterexample.is_none(), "{alg}/correct: {correct}");
    assert!(
        matches!(correct.stop, Stop::Exhausted | Stop::DepthBound),
        "{alg}/correct: {correct}"
    );
    assert!(correct.depth_complete >= cx.schedule.len(), "{correct}");
    assert!(
        correct.complete.keys().all(|k| k == "pass"),
        "only passing complete paths: {correct}"
    );
}

#[test]
fn finds_ricart_agrawala_without_tiebreak_and_nothing_in_the_textbook_one() {
    finds_bug_and_not_in_correct(
        "mutex.ricart-agrawala",
        "no-tiebreak",
        1,
        "mutual_exclusion",
        12,
    );
}

#[test]
fn finds_unordered_total_order_multicast_and_nothing_in_the_textbook_one() {
    finds_bug_and_not_in_correct("order.total", "unordered", 0, "total_order", 6);
}

#[test]
fn fingerprints_merge_states_and_sleep_sets_prune_executions_not_states() {
    let a = find("mutex.ricart-agrawala").unwrap();
    let sc = small_scenario(a, "correct", 3, 0, 3, 20);
    let with = a.explore(&sc, &options()).unwrap();
    let without = a
        .explore(
            &sc,
            &ExploreOptions {
                sleep_sets: false,
                ..options()
            },
        )
        .unwrap();
    for r in [&with, &without] {
        assert_eq!(r.stop, Stop::Exhausted, "{r}");
        // Paths that reach a state already seen are not expanded again.
        assert!(r.revisits > 0 && r.states < r.executions, "{r}");
    }
    // The reduction skips re-executions but every state is still visited.
    assert_eq!(with.states, without.states);
    assert_eq!(with.complete, without.complete);
    assert!(with.executions < without.executions, "{with}\n{without}");
    assert!(with.slept > 0 && without.slept == 0);
}

#[test]
fn bounds_end_the_search_and_say_so() {
    let a = find("mutex.ricart-agrawala").unwrap();
    let sc = small_scenario(a, "correct", 3, 0, 3, 20);
    let r = a
        .explore(
            &sc,
            &ExploreOptions {
                max_states: 100,
                ..options()
            },
        )
        .unwrap();
    assert_eq!(r.stop, Stop::StateBound);
    assert_eq!(r.states, 100);
    assert!(
        r.to_string().contains("no violation within the bound"),
        "{r}"
    );
    let r = a
        .explore(
            &sc,
            &ExploreOptions {
                max_depth: 5,
                ..options()
            },
        )
        .unwrap();
    assert_eq!(r.stop, Stop::DepthBound);
    assert!(r.cut > 0 && r.max_depth == 5, "{r}");
    // Paths cut by the depth bound are never judged as passing.
    assert_eq!(r.complete.values().sum::<u64>(), 0, "{r}");
}

#[test]
fn loss_is_a_bounded_choice_inside_the_fault_model() {
    // order.total's model tolerates loss: its reliable links resend, so one lost message
    // changes the state space but breaks nothing.
    let a = find("order.total").unwrap();
    let sc = small_scenario(a, "correct", 3, 0, 2, 20);
    let mut o = options();
    o.max_depth = 7;
    let plain = a.explore(&sc, &o).unwrap();
    o.bounds.loss = 1;
    o.bounds.faults_until_ns = 20_000_000;
    let lossy = a.explore(&sc, &o).unwrap();
    assert!(
        plain.counterexample.is_none() && lossy.counterexample.is_none(),
        "{lossy}"
    );
    assert_eq!(plain.stop, Stop::DepthBound, "{plain}");
    assert_eq!(lossy.stop, Stop::DepthBound, "{lossy}");
    assert!(lossy.states > plain.states, "{plain}\n{lossy}");
}
