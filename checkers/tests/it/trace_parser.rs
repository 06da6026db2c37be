//! The trace reader, the trace validator and every checker never panic, whatever the text:
//! the adversarial corpus's traces with numbers swapped for extremes, lines swapped,
//! duplicated or dropped, the header's node count blown up, and the text itself damaged. A
//! damaged trace is either refused (by [`Trace::read_jsonl`] or [`Trace::validate_with_nodes`],
//! as `sincro check`, `show` and `diff` do) or judged by every property's checker (`by_name` +
//! `judge_trace`) with extreme settings; a node count past [`MAX_TRACE_NODES`] is always
//! refused, so nothing allocates per declared node. In a debug build any arithmetic overflow
//! on the way panics, so this exercises the checkers' saturating arithmetic too.
//!
//! Deterministic: a fixed ChaCha seed, no failure persistence.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use sincro_harness::trace::MAX_TRACE_NODES;
use sincro_harness::{Fault, Scenario, TimedFault, Trace, MAX_TIME_MS};
use std::path::Path;

/// Every `.jsonl` of the adversarial corpus, sorted by path.
fn bases() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adversarial");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|x| x == "jsonl") {
                    files.push(f);
                }
            }
        }
    }
    files.sort();
    assert!(files.len() > 100, "the adversarial corpus is missing");
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect()
}

/// What a mutation puts in place of a number of the text.
fn extreme() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just(u64::MAX.to_string()),
        Just(i64::MIN.to_string()),
        Just("18446744073709551616".to_string()),
        Just("1e300".to_string()),
        Just("0.5".to_string()),
        Just("null".to_string()),
        Just("\"x\"".to_string()),
        Just(((MAX_TRACE_NODES as u64) + 1).to_string()),
        Just("1000000000".to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        (0u64..16).prop_map(|n| n.to_string()),
    ]
}

/// One edit of the text.
#[derive(Clone, Debug)]
enum Edit {
    /// Replace the i-th number of the text (modulo their count).
    Number(usize, String),
    /// Swap lines i and j (modulo the line count; the header is line 0).
    Swap(usize, usize),
    /// Repeat line i.
    Duplicate(usize),
    /// Drop line i.
    Drop(usize),
    /// Insert junk at byte i, or cut the text there.
    Damage(usize, String, bool),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        6 => (any::<usize>(), extreme()).prop_map(|(i, v)| Edit::Number(i, v)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
        1 => any::<usize>().prop_map(Edit::Duplicate),
        1 => any::<usize>().prop_map(Edit::Drop),
        1 => (
            any::<usize>(),
            prop_oneof![
                Just("\n".to_string()),
                Just("[".repeat(200)),
                Just("{}".to_string()),
                Just("\u{0}".to_string()),
                "[ -~]{0,8}",
            ],
            any::<bool>()
        )
            .prop_map(|(i, junk, cut)| Edit::Damage(i, junk, cut)),
    ]
}

/// The byte ranges of the numbers in `text` (a `-` sign included).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i] == b'-' && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            i += 1;
        }
        if b[i].is_ascii_digit() && (start == 0 || !b[start - 1].is_ascii_alphanumeric()) {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            out.push((start, i));
        } else {
            i = start + 1;
        }
    }
    out
}

fn apply(text: &str, e: &Edit) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let n = lines.len().max(1);
    match e {
        Edit::Number(i, v) => {
            let nums = numbers(text);
            if nums.is_empty() {
                return text.to_string();
            }
            let (a, b) = nums[i % nums.len()];
            format!("{}{v}{}", &text[..a], &text[b..])
        }
        Edit::Swap(i, j) => {
            if !lines.is_empty() {
                lines.swap(i % n, j % n);
            }
            lines.join("\n")
        }
        Edit::Duplicate(i) => {
            if !lines.is_empty() {
                let l = lines[i % n];
                lines.insert(i % n, l);
            }
            lines.join("\n")
        }
        Edit::Drop(i) => {
            if !lines.is_empty() {
                lines.remove(i % n);
            }
            lines.join("\n")
        }
        Edit::Damage(i, junk, cut) => {
            let mut at = i % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if *cut {
                format!("{}{junk}", &text[..at])
            } else {
                format!("{}{junk}{}", &text[..at], &text[at..])
            }
        }
    }
}

/// Reads, validates and (when accepted) judges `text` under every property: none of it may
/// panic. Returns whether the trace was accepted.
fn exercise(text: &str, quiet_ms: u64, bound_ms: u64, extra_ns: u64) -> Result<bool, String> {
    let Ok(trace) = Trace::read_jsonl(text.as_bytes()) else {
        return Ok(false);
    };
    if trace.validate_with_nodes(trace.nodes).is_err() {
        return Ok(false);
    }
    if trace.nodes == 0 || trace.nodes > MAX_TRACE_NODES {
        return Err(format!("accepted a trace of {} nodes", trace.nodes));
    }
    let mut sc =
        Scenario::from_json(r#"{"algorithm":"x","nodes":1,"seed":0,"duration_ms":1}"#).unwrap();
    sc.nodes = trace.nodes;
    if quiet_ms > 0 {
        sc.faults = vec![TimedFault {
            at_ms: quiet_ms,
            fault: Fault::Heal,
        }];
    }
    let last = trace.events().last().map_or(0, |e| e.t_ns);
    let end_ns = last.saturating_add(extra_ns);
    let mut props: Vec<&str> = sincro_checkers::PROPERTIES.to_vec();
    props.push("bounded_waiting");
    for p in props {
        let checker = sincro_checkers::by_name(p, &sc, bound_ms)
            .ok_or_else(|| format!("{p}: not a property"))?;
        let _ = sincro_harness::check::judge_trace(&trace, end_ns, &mut [checker]);
    }
    Ok(true)
}

#[test]
fn damaged_traces_are_refused_or_judged_never_a_panic() {
    let bases = bases();
    let config = Config {
        cases: 4096,
        failure_persistence: None,
        max_shrink_iters: 2048,
        ..Config::default()
    };
    let seed: [u8; 32] = std::array::from_fn(|i| i as u8 ^ 0x5A);
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let settings = (
        prop_oneof![Just(0u64), 0..2_000u64, Just(MAX_TIME_MS)],
        prop_oneof![Just(0u64), 0..2_000u64, Just(MAX_TIME_MS)],
        prop_oneof![Just(0u64), 0..10_000_000u64, Just(u64::MAX)],
    );
    let accepted = std::cell::Cell::new(0u32);
    let result = runner.run(
        &(
            0..bases.len(),
            proptest::collection::vec(edit(), 1..4),
            settings,
        ),
        |(base, edits, (quiet_ms, bound_ms, extra_ns))| {
            let mut text = bases[base].clone();
            for e in &edits {
                text = apply(&text, e);
            }
            if exercise(&text, quiet_ms, bound_ms, extra_ns).map_err(TestCaseError::fail)? {
                accepted.set(accepted.get() + 1);
            }
            Ok(())
        },
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    // Both paths were taken: some damaged traces were judged, others refused.
    assert!(
        accepted.get() > 20 && accepted.get() < 4096,
        "{} of 4096 accepted",
        accepted.get()
    );
}

#[test]
fn a_header_past_the_node_limit_is_refused_before_anything_is_allocated() {
    for nodes in [MAX_TRACE_NODES as u64 + 1, 1_000_000_000, u64::MAX] {
        let text = format!("{{\"sincro_trace\": 1, \"nodes\": {nodes}}}\n");
        let refused = match Trace::read_jsonl(text.as_bytes()) {
            Err(_) => true,
            Ok(t) => t.validate_with_nodes(t.nodes).is_err(),
        };
        assert!(refused, "{nodes} nodes accepted");
    }
    // The largest allowed header is accepted (an empty trace is a trace).
    let text = format!("{{\"sincro_trace\": 1, \"nodes\": {MAX_TRACE_NODES}}}\n");
    let t = Trace::read_jsonl(text.as_bytes()).unwrap();
    assert!(t.validate_with_nodes(t.nodes).is_ok());
}
