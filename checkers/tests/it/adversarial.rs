//! The adversarial corpus: hand-made traces for every checker, in
//! `tests/adversarial/<property>/<expected>-<name>.jsonl` (`Trace::read_jsonl` format) with
//! the settings in the sibling `<expected>-<name>.params.json` (`quiet_ms`, `bound_ms`,
//! `end_ms` or `end_ns`, all optional: 0, 0 and the last event's time; `note`: why).
//! `expected` (`pass`, `violation`, `unjudged`) is what the property's definition says. The
//! traces are written by `tests/adversarial/make_corpus.py`.
//!
//! Every case is judged by the checker (`by_name` + `judge_trace`) and by the reference oracle;
//! every mismatch is reported, not just the first. A case a checker gets wrong that cannot be
//! fixed at once is listed in [`KNOWN_BUGS`] with the reason: `corpus_checkers` skips it,
//! `corpus_checkers_on_listed_bugs` (ignored) expects it right, and
//! `listed_cases_still_fail_here` makes sure a fixed case is taken off the list. The list is
//! empty: every case of the corpus is judged right by its checker.

use crate::oracle::{self, Params, MS};
use sincro_harness::{Fault, Scenario, TimedFault, Trace, Verdict};
use std::path::{Path, PathBuf};

/// `property/case`: the checker is wrong on it (a known bug, with the reason). Empty: the
/// bugs the oracles found (same-instant hand-overs of mutual exclusion and leadership, clock
/// jumps, self-delivery, phantom and mislabelled deadlock reports, out-of-range leaders, open
/// items at an early end, the second cycle closed by one edge) are fixed.
const KNOWN_BUGS: &[(&str, &str)] = &[];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adversarial")
}

struct Case {
    key: String,
    property: String,
    expected: String,
    trace: Trace,
    params: Params,
}

fn load() -> Vec<Case> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let property = dir.file_name().unwrap().to_str().unwrap().to_string();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            let name = f.file_stem().unwrap().to_str().unwrap().to_string();
            let expected = name.split('-').next().unwrap().to_string();
            assert!(
                ["pass", "violation", "unjudged"].contains(&expected.as_str()),
                "{}: the name starts with pass-, violation- or unjudged-",
                f.display()
            );
            let text = std::fs::read_to_string(&f).unwrap();
            let trace = Trace::read_jsonl(text.as_bytes())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let pf = f.with_extension("params.json");
            let p: serde_json::Value = match std::fs::read_to_string(&pf) {
                Ok(s) => {
                    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{}: {e}", pf.display()))
                }
                Err(_) => serde_json::json!({}),
            };
            let get = |k: &str| p.get(k).and_then(|v| v.as_u64());
            let last = trace.events().last().map_or(0, |e| e.t_ns);
            let end_ns = get("end_ns")
                .or(get("end_ms").map(|m| m * MS))
                .unwrap_or(last);
            out.push(Case {
                key: format!("{property}/{name}"),
                property: property.clone(),
                expected,
                trace,
                params: Params {
                    quiet_ms: get("quiet_ms").unwrap_or(0),
                    bound_ms: get("bound_ms").unwrap_or(0),
                    end_ns,
                },
            });
        }
    }
    out
}

fn checker_kind(c: &Case) -> String {
    let mut sc =
        Scenario::from_json(r#"{"algorithm":"x","nodes":1,"seed":0,"duration_ms":1}"#).unwrap();
    sc.nodes = c.trace.nodes;
    if c.params.quiet_ms > 0 {
        sc.faults = vec![TimedFault {
            at_ms: c.params.quiet_ms,
            fault: Fault::Heal,
        }];
    }
    let checker = sincro_checkers::by_name(&c.property, &sc, c.params.bound_ms)
        .unwrap_or_else(|| panic!("{}: not a property", c.key));
    match sincro_harness::check::judge_trace(&c.trace, c.params.end_ns, &mut [checker]) {
        Verdict::Pass => "pass".into(),
        Verdict::Violation(v) if v.property == c.property => "violation".into(),
        Verdict::Unjudged { .. } => "unjudged".into(),
        other => format!("{other:?}"),
    }
}

fn listed(key: &str) -> Option<&'static str> {
    KNOWN_BUGS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, note)| *note)
}

/// Every case whose checker verdict is not the expected one (among `cases`).
fn checker_mismatches(cases: &[&Case]) -> Vec<String> {
    cases
        .iter()
        .filter_map(|c| {
            let got = checker_kind(c);
            (got != c.expected)
                .then(|| format!("{}: expected {}, checker says {got}", c.key, c.expected))
        })
        .collect()
}

#[test]
fn corpus_covers_every_property() {
    let cases = load();
    let mut props: Vec<&str> = sincro_checkers::PROPERTIES.to_vec();
    props.push("bounded_waiting");
    for p in props {
        for kind in ["pass", "violation"] {
            let n = cases
                .iter()
                .filter(|c| c.property == p && c.expected == kind)
                .count();
            assert!(n >= 3, "{p}: {n} {kind} cases, want at least 3");
        }
    }
    for (k, _) in KNOWN_BUGS {
        assert!(
            cases.iter().any(|c| c.key == *k),
            "listed case {k} is not in the corpus"
        );
    }
}

#[test]
fn corpus_oracles() {
    let bad: Vec<String> = load()
        .iter()
        .filter_map(|c| {
            let got = oracle::judge(&c.property, &c.trace, &c.params);
            (got.kind() != c.expected)
                .then(|| format!("{}: expected {}, oracle says {got:?}", c.key, c.expected))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn corpus_checkers() {
    let cases = load();
    let unlisted: Vec<&Case> = cases.iter().filter(|c| listed(&c.key).is_none()).collect();
    let bad = checker_mismatches(&unlisted);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
#[ignore = "the cases of KNOWN_BUGS (none at present)"]
fn corpus_checkers_on_listed_bugs() {
    let cases = load();
    let listed_cases: Vec<&Case> = cases.iter().filter(|c| listed(&c.key).is_some()).collect();
    let bad: Vec<String> = checker_mismatches(&listed_cases)
        .into_iter()
        .map(|m| {
            let key = m.split(':').next().unwrap();
            format!("{m} ({})", listed(key).unwrap())
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The listed cases really are wrong on this branch's checkers (so the lists stay honest).
#[test]
fn listed_cases_still_fail_here() {
    let cases = load();
    let fixed: Vec<&str> = cases
        .iter()
        .filter(|c| listed(&c.key).is_some() && checker_kind(c) == c.expected)
        .map(|c| c.key.as_str())
        .collect();
    assert!(
        fixed.is_empty(),
        "these listed cases now pass: take them off KNOWN_BUGS: {fixed:?}"
    );
}

/// vector_causality judges every labelled event, however many (the oracle does; the checker
/// used to stop comparing after 20 000).
#[test]
fn vector_causality_judges_past_20000_events() {
    use sincro_harness::trace::{Event, EventKind};
    use sincro_harness::Observation;
    let n = 20_001u64;
    let mut events: Vec<Event> = (0..n)
        .map(|i| Event {
            id: i,
            t_ns: i,
            node: Some(0),
            local_ns: Some(i as i64),
            kind: EventKind::Observe {
                obs: Observation::LogicalTime {
                    lamport: 0,
                    vector: vec![i + 1, 0],
                },
            },
        })
        .collect();
    // node 1's first event, concurrent with all of node 0's, claims to follow them all
    events.push(Event {
        id: n,
        t_ns: n,
        node: Some(1),
        local_ns: Some(n as i64),
        kind: EventKind::Observe {
            obs: Observation::LogicalTime {
                lamport: 0,
                vector: vec![n, 1],
            },
        },
    });
    let case = Case {
        key: "vector_causality/violation-after-20000".into(),
        property: "vector_causality".into(),
        expected: "violation".into(),
        trace: Trace::new(2, events),
        params: Params {
            quiet_ms: 0,
            bound_ms: 0,
            end_ns: n,
        },
    };
    assert_eq!(checker_kind(&case), "violation");
}

/// Every hand-made trace of the corpus, packed as a run records it, reads back the same:
/// events, last event, count, JSON Lines, and equality with the trace as read.
#[test]
fn every_corpus_trace_packs_to_the_same_events() {
    let cases = load();
    assert!(cases.len() > 200, "{} cases", cases.len());
    for c in &cases {
        let mut packed = Trace::packed(c.trace.nodes);
        for e in c.trace.events() {
            packed.push(e.clone());
        }
        assert!(packed.is_packed(), "{}", c.key);
        assert_eq!(packed.len(), c.trace.len(), "{}", c.key);
        assert_eq!(packed.last().as_ref(), c.trace.events().last(), "{}", c.key);
        assert_eq!(packed.to_jsonl(), c.trace.to_jsonl(), "{}", c.key);
        assert_eq!(packed, c.trace, "{}", c.key);
        assert_eq!(packed.events(), c.trace.events(), "{}", c.key);
    }
}
