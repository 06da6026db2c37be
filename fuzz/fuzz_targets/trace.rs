//! Fuzzer bytes -> a trace file, as `sincro check`, `show` and `diff` read one.
//!
//! Fails (panics) when reading, validating or judging the text panics or aborts: the bytes are
//! read with `Trace::read_jsonl`; a trace `Trace::validate` accepts must declare 1 to
//! `MAX_TRACE_NODES` nodes, must pack and unpack to the same events (what a recorded run
//! keeps, `Trace::packed`) and is then judged by every property's checker. A refused trace is
//! fine (it is bad input, exit 2 on the command line). Run it with
//! `cargo +nightly fuzz run trace -- -max_len=65536`; seed it with the adversarial corpus:
//! `cargo +nightly fuzz run trace checkers/tests/adversarial/*/`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sincro_harness::trace::MAX_TRACE_NODES;
use sincro_harness::{Scenario, Trace};

fuzz_target!(|data: &[u8]| {
    let Ok(trace) = Trace::read_jsonl(data) else {
        return;
    };
    if trace.validate().is_err() {
        return;
    }
    assert!(
        (1..=MAX_TRACE_NODES).contains(&trace.nodes),
        "accepted a trace of {} nodes",
        trace.nodes
    );
    let mut packed = Trace::packed(trace.nodes);
    for e in trace.events() {
        packed.push(e.clone());
    }
    assert_eq!(packed.last().as_ref(), trace.events().last());
    assert_eq!(packed.to_jsonl(), trace.to_jsonl(), "packed, the trace reads the same");
    assert_eq!(packed.events(), trace.events());
    let mut sc = Scenario::from_json(r#"{"algorithm":"x","nodes":1,"seed":0,"duration_ms":1}"#)
        .expect("a valid scenario");
    sc.nodes = trace.nodes;
    let end_ns = trace.events().last().map_or(0, |e| e.t_ns);
    for property in sincro_checkers::PROPERTIES.iter().chain(["bounded_waiting"].iter()) {
        for bound_ms in [0, 1_000] {
            let checker = sincro_checkers::by_name(property, &sc, bound_ms).expect("a property");
            let _ = sincro_harness::check::judge_trace(&trace, end_ns, &mut [checker]);
        }
    }
});
