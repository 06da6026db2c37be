use lease_primary::{LeasePrimary, Variant, AT_MOST_ONE_PRIMARY};
use sincro::testing::check;

#[test]
fn one_primary_at_a_time_under_partitions_crashes_and_loss() {
    // `Err` holds the shrunk failure, written to sincro-regressions/, and its replay line
    // (SINCRO_SEED or SINCRO_REPLAY, which run one seed or one file instead of the 150).
    check(LeasePrimary).nodes(3..=5).seeds(150).run().unwrap();
}

#[test]
fn the_no_step_down_twin_has_split_brain() {
    let found = check(LeasePrimary)
        .variant(Variant::NoStepDown)
        .seeds(300)
        .expect_violation(AT_MOST_ONE_PRIMARY)
        .unwrap();
    assert!(found.explanation.contains("acts as primary while node"));
}

/// The property judges an instant as a set: a hand-over at one instant passes whichever line
/// comes first, and two primaries at once fail in either order.
#[test]
fn an_instants_line_order_does_not_change_the_verdict() {
    use lease_primary::AtMostOnePrimary;
    use sincro::harness::check::{check_trace, gate_dependence};
    use sincro::harness::trace::{Event, EventKind};
    use sincro::harness::{Checker, Fault, Observation, Trace};

    const MS: u64 = 1_000_000;
    let user = |node: usize, t_ms: u64, kind: &str| Event {
        id: 0,
        t_ns: t_ms * MS,
        node: Some(node),
        local_ns: None,
        kind: EventKind::Observe {
            obs: Observation::user(kind, ()),
        },
    };
    let crash = |node: usize, t_ms: u64| Event {
        id: 0,
        t_ns: t_ms * MS,
        node: Some(node),
        local_ns: None,
        kind: EventKind::Fault {
            fault: Fault::Crash { node },
        },
    };
    let judge = |events: Vec<Event>| {
        let events = events
            .into_iter()
            .enumerate()
            .map(|(i, e)| Event { id: i as u64, ..e })
            .collect();
        let trace = Trace::new(3, events);
        // As the engines pass it events (only observations and faults, and any event once an
        // instant is open): the same verdict, reached at the same event.
        let fresh = || -> Vec<Box<dyn Checker>> { vec![Box::new(AtMostOnePrimary::default())] };
        let dependent = gate_dependence(&trace, 100 * MS, &mut fresh(), &mut fresh());
        assert_eq!(dependent, None, "{}", trace.to_jsonl());
        check_trace(&trace, 100 * MS, &mut fresh())
    };
    let timer = |node: usize, t_ms: u64| Event {
        id: 0,
        t_ns: t_ms * MS,
        node: Some(node),
        local_ns: None,
        kind: EventKind::Timer {
            timer_id: 0,
            timer: "Renew".into(),
        },
    };
    let on0 = || user(0, 1, "primary_on");
    // hand-overs at 5 ms, in both line orders
    for (a, b) in [
        (user(0, 5, "primary_off"), user(1, 5, "primary_on")),
        (crash(0, 5), user(1, 5, "primary_on")),
    ] {
        judge(vec![on0(), a.clone(), b.clone()]).unwrap();
        judge(vec![on0(), b, a]).unwrap();
    }
    // node 1 starts while node 0 acts on, in both orders of the instant's lines
    let v = judge(vec![
        on0(),
        user(1, 5, "primary_on"),
        user(2, 5, "primary_off"),
    ])
    .unwrap_err();
    assert!(
        v.explanation
            .contains("node 1 acts as primary while node 0"),
        "{}",
        v.explanation
    );
    judge(vec![
        on0(),
        user(2, 5, "primary_off"),
        user(1, 5, "primary_on"),
    ])
    .unwrap_err();
    // two primaries at 5 ms, found when a timer of a later instant closes it, as online
    let v = judge(vec![
        on0(),
        timer(2, 5),
        user(1, 5, "primary_on"),
        timer(2, 7),
        timer(2, 9),
    ])
    .unwrap_err();
    assert_eq!(v.t_ns, 5 * MS);
    // a momentary primary (on and off at one instant) while node 0 acts across it
    judge(vec![
        on0(),
        user(1, 5, "primary_on"),
        user(1, 5, "primary_off"),
    ])
    .unwrap_err();
    // ... but not at the instant node 0 steps down
    judge(vec![
        on0(),
        user(1, 5, "primary_on"),
        user(1, 5, "primary_off"),
        user(0, 5, "primary_off"),
    ])
    .unwrap();
}
