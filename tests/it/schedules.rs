//! Schedules: a recorded schedule replays its run exactly, keeps the surviving messages'
//! delays when an input goes, and the fuzz shrinker pins a failure's schedule.

use sincro::algorithms::{self, Algorithm};
use sincro::harness::gen::{GenOptions, Strategy};
use sincro::harness::schedule::Schedule;
use sincro::harness::{EventKind, RunOptions, Scenario, Trace};
use std::collections::BTreeMap;

fn trace(alg: &dyn Algorithm, sc: &Scenario) -> Trace {
    alg.run(sc, RunOptions::new(true))
        .expect("runs")
        .trace
        .expect("recorded")
}

/// (from, to, rendering, nth) -> arrival delays, over the delivered messages.
fn delays(t: &Trace) -> BTreeMap<(usize, usize, String, u32), Vec<u64>> {
    let Schedule::Recorded(list) = Schedule::record(t) else {
        unreachable!()
    };
    list.into_iter()
        .map(|r| ((r.from, r.to, r.msg, r.nth), r.delays_ns))
        .collect()
}

/// The record holds a lost message and a duplicated one (else a test of them shows nothing).
fn assert_loss_and_duplicate_recorded(list: &[sincro::harness::schedule::Recorded]) {
    assert!(
        list.iter().any(|r| r.delays_ns.is_empty()),
        "no loss recorded"
    );
    assert!(
        list.iter().any(|r| r.delays_ns.len() == 2),
        "no duplicate recorded"
    );
}

/// A total-order scenario on links that lose and duplicate a fifth of the messages.
fn lossy_total_order() -> (&'static dyn Algorithm, Scenario) {
    let alg = algorithms::find("order.total").unwrap();
    let mut sc = alg.generate(
        "correct",
        3,
        &GenOptions {
            strategy: Strategy::Random,
            ..GenOptions::default()
        },
    );
    sc.network.loss = 0.2;
    sc.network.duplicate = 0.2;
    (alg, sc)
}

#[test]
fn a_recorded_schedule_replays_its_run_event_for_event() {
    let opts = GenOptions {
        strategy: Strategy::Random,
        ..GenOptions::default()
    };
    for (name, variant) in [
        ("mutex.ricart-agrawala", "correct"),
        ("order.total", "unordered"),
        ("election.bully", "correct"),
    ] {
        let alg = algorithms::find(name).unwrap();
        for seed in 0..6 {
            let sc = alg.generate(variant, seed, &opts);
            let original = trace(alg, &sc);
            let mut pinned = sc.clone();
            pinned.schedule = Schedule::record(&original);
            pinned.validate().unwrap();
            let again = trace(alg, &pinned);
            assert_eq!(
                original.events(),
                again.events(),
                "{name}/{variant} seed {seed}: the pinned run differs"
            );
        }
    }
}

#[test]
fn without_an_input_the_recorded_messages_keep_their_delays() {
    // Centralized: its messages carry no clock, so most are sent again with the same rendering
    // when an input goes.
    let alg = algorithms::find("mutex.centralized").unwrap();
    let opts = GenOptions {
        strategy: Strategy::Random,
        ..GenOptions::default()
    };
    let (mut kept_pinned, mut kept_random, mut common) = (0, 0, 0);
    for seed in 0..20 {
        let sc = alg.generate("correct", seed, &opts);
        if sc.workload.len() < 2 {
            continue;
        }
        let original = trace(alg, &sc);
        let before = delays(&original);
        let mut smaller = sc.clone();
        smaller.workload.remove(0);
        let mut pinned = smaller.clone();
        pinned.schedule = Schedule::record(&original);
        let after_pinned = delays(&trace(alg, &pinned));
        let after_random = delays(&trace(alg, &smaller));
        for (k, d) in &before {
            if let (Some(p), Some(r)) = (after_pinned.get(k), after_random.get(k)) {
                common += 1;
                kept_pinned += usize::from(p == d);
                kept_random += usize::from(r == d);
            }
        }
    }
    assert!(common > 50, "only {common} messages in common");
    // Pinned: every message sent again with the same rendering and occurrence keeps its delay
    // unless a FIFO link holds it behind another; redrawn from the seed, few do.
    assert!(
        kept_pinned * 10 >= common * 9,
        "pinned kept {kept_pinned} of {common}"
    );
    assert!(
        kept_random * 2 < common,
        "redrawn kept {kept_random} of {common}: the test shows nothing"
    );
}

#[test]
fn recorded_losses_and_duplicates_replay_and_bad_records_are_refused() {
    let (alg, sc) = lossy_total_order();
    let original = trace(alg, &sc);
    let kinds = |t: &Trace| {
        t.events()
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Drop { .. } | EventKind::Deliver { .. }))
            .count()
    };
    let mut pinned = sc.clone();
    pinned.schedule = Schedule::record(&original);
    assert_eq!(kinds(&original), kinds(&trace(alg, &pinned)));
    let Schedule::Recorded(list) = &pinned.schedule else {
        unreachable!()
    };
    assert_loss_and_duplicate_recorded(list);
    let mut bad = pinned.clone();
    if let Schedule::Recorded(list) = &mut bad.schedule {
        list[0].to = 99;
    }
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .contains("schedule.recorded[0]"));
}

/// A record made under loss and duplication, replayed on a scenario that has neither (as
/// when the shrinker removes the faults of a pinned failure), loses and duplicates nothing:
/// the record does not carry faults the scenario no longer declares.
#[test]
fn a_record_does_not_carry_faults_the_scenario_no_longer_has() {
    let (alg, sc) = lossy_total_order();
    let recorded = Schedule::record(&trace(alg, &sc));
    let Schedule::Recorded(list) = &recorded else {
        unreachable!()
    };
    assert_loss_and_duplicate_recorded(list);
    let mut reliable = sc.clone();
    reliable.network.loss = 0.0;
    reliable.network.duplicate = 0.0;
    reliable.schedule = recorded;
    let t = trace(alg, &reliable);
    let lost = t
        .events()
        .iter()
        .filter(|e| {
            matches!(&e.kind, EventKind::Drop { reason, .. }
                if *reason == sincro::harness::net::DropReason::Loss)
        })
        .count();
    assert_eq!(
        lost, 0,
        "a recorded loss replayed on a link that loses nothing"
    );
    let mut copies: BTreeMap<u64, usize> = BTreeMap::new();
    for e in t.events() {
        if let EventKind::Deliver { msg_id, .. } = &e.kind {
            *copies.entry(*msg_id).or_default() += 1;
        }
    }
    assert!(!copies.is_empty());
    assert!(
        copies.values().all(|&c| c == 1),
        "a recorded duplicate replayed on a link that duplicates nothing"
    );
}
