//! Fuzzer bytes -> a scenario of the correct centralized mutex, inside its fault model.
//!
//! Fails (panics) when the verdict is not `pass`, or when running the scenario twice gives two
//! different traces. A crash artifact replays with
//! `cargo +nightly fuzz run scenario fuzz/artifacts/scenario/crash-…`; the panic message carries
//! the scenario's JSON, which `sincro replay` takes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sincro_algorithms::{find, run_scenario};
use sincro_harness::arbitrary::FuzzInput;
use sincro_harness::engine::RunOptions;
use sincro_harness::gen::GenOptions;

fuzz_target!(|input: FuzzInput| {
    let alg = find("mutex.centralized").expect("registered");
    let info = alg.info();
    let opts = GenOptions::default();
    let draft = input.draft(info.name, "correct", &info.fault_model, &opts);
    let sc = alg.complete(draft, &opts);
    if let Err(e) = sc.validate() {
        panic!("FuzzInput gave an invalid scenario: {e}\n{}", sc.to_json());
    }

    let first = run_scenario(&sc, RunOptions::default()).expect("a valid scenario runs");
    if !first.verdict.is_pass() {
        panic!(
            "the correct centralized mutex failed inside its fault model: {}\n{}",
            first.verdict,
            sc.to_json()
        );
    }

    let second = run_scenario(&sc, RunOptions::default()).expect("a valid scenario runs");
    let (a, b) = (
        first.trace.expect("recorded").to_jsonl(),
        second.trace.expect("recorded").to_jsonl(),
    );
    if a != b {
        panic!(
            "the same scenario gave two different traces\n{}",
            sc.to_json()
        );
    }
});
