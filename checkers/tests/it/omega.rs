//! The Ω properties (`sincro_checkers::omega`: `newcomer_never_demotes`,
//! `crashed_never_elected`, `eventual_leadership`, after the model's assumption) against
//! their reference oracle ([`oracle::omega`]), on random shared-memory traces shaped as the
//! engine records them: processes that join (fresh ids, some at step 0, some later), leave or
//! crash; each process's `leader()` results and its rounds' sets of members not updated,
//! recorded when they change; a summary of each at the end. The verdict — its kind and the
//! property it names — must agree.
//!
//! Deterministic: a fixed ChaCha seed, no failure persistence; the case count is the
//! differential tests' ([`cases`]).

use crate::differential::cases;
use crate::oracle;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use sincro_checkers::omega::{self, OMEGA_PROPERTIES};
use sincro_harness::shm::{Pid, ShmEvent, ShmEventKind, ShmTrace};

/// Steps of every generated run.
const STEPS: u64 = 60;

#[derive(Clone, Debug)]
struct Raw {
    initial: usize,
    alpha: usize,
    judge_from: u64,
    properties: u8,
    /// (step, what, process, argument)
    ops: Vec<(u64, u8, u8, u8)>,
    /// Per process: whether its summary's last round and last `leader()` steps are late.
    summaries: Vec<(bool, bool)>,
}

fn raw() -> impl Strategy<Value = Raw> {
    (
        1usize..=4,
        1usize..=3,
        0u64..=STEPS,
        any::<u8>(),
        prop::collection::vec((0..STEPS, any::<u8>(), any::<u8>(), any::<u8>()), 0..40),
        prop::collection::vec((any::<u8>(), any::<u8>()), 8),
    )
        .prop_map(|(initial, alpha, judge_from, properties, ops, s)| Raw {
            initial,
            alpha,
            // most suffixes are the second half of the run, after the churn
            judge_from: if properties % 4 == 0 {
                judge_from
            } else {
                STEPS / 2 + judge_from % (STEPS / 2)
            },
            properties,
            ops,
            // one summary step in eight comes before most suffixes
            summaries: s
                .into_iter()
                .map(|(a, b)| (a % 8 != 0, b % 8 != 0))
                .collect(),
        })
}

/// The trace `raw` stands for: `initial` processes join at step 0, the ops add joins, leaves
/// and crashes (in the first third of the run), `leader()` results and round sets (a quarter
/// of them at the suffix's first step) (a process's records of one kind at distinct
/// steps, only while it is a member), then a summary of every process at the end.
fn trace(raw: &Raw) -> ShmTrace {
    let mut events: Vec<ShmEvent> = Vec::new();
    let mut members: Vec<Pid> = Vec::new();
    let mut gone: Vec<Pid> = Vec::new();
    let mut next: Pid = 0;
    // (pid, kind) -> step of its last record: one record a step, as a round or a call is one
    let mut last_record: std::collections::BTreeMap<(Pid, bool), u64> = Default::default();
    let mut ops: Vec<(u64, u8, u8, u8)> = raw
        .ops
        .iter()
        .map(|&(step, what, who, arg)| {
            let step = match what % 8 {
                0 | 1 => step / 3,
                // a quarter of the records at the suffix's first step: its boundary
                _ if who % 4 == 0 => raw.judge_from.min(STEPS - 1),
                _ => step,
            };
            (step, what, who, arg)
        })
        .collect();
    ops.sort_by_key(|o| o.0); // stable: the ops of one step keep their order
    let pick = |x: u8, among: usize| x as usize % among.max(1);
    for _ in 0..raw.initial {
        let leader = members.first().copied();
        events.push(ShmEvent {
            step: 0,
            pid: Some(next),
            kind: ShmEventKind::Join {
                leader_before: leader,
                leader_after: leader.or(Some(next)),
            },
        });
        members.push(next);
        next += 1;
    }
    for (step, what, who, arg) in ops {
        let everyone = next;
        let kind = match what % 8 {
            0 if next < 8 => {
                // a newcomer; its join keeps the leader, or (rarely) demotes it
                let before = members.get(pick(arg, members.len())).copied();
                let after = if arg % 4 == 3 { Some(next) } else { before };
                members.push(next);
                next += 1;
                events.push(ShmEvent {
                    step,
                    pid: Some(next - 1),
                    kind: ShmEventKind::Join {
                        leader_before: before,
                        leader_after: after,
                    },
                });
                continue;
            }
            1 if members.len() > 1 => {
                let p = members.remove(pick(who, members.len()));
                gone.push(p);
                let leader = Some(pick(arg, everyone));
                events.push(ShmEvent {
                    step,
                    pid: Some(p),
                    kind: if arg % 2 == 0 {
                        ShmEventKind::Crash { leader }
                    } else {
                        ShmEventKind::Leave { leader }
                    },
                });
                continue;
            }
            2..=4 => (
                true,
                ShmEventKind::Leader {
                    leader: pick(arg, everyone),
                },
            ),
            5..=6 => {
                let not_updated: Vec<Pid> = (0..everyone)
                    .filter(|k| arg >> (k % 8) & 1 == 1 && arg % 3 == 0)
                    .collect();
                (false, ShmEventKind::Round { not_updated })
            }
            _ => continue,
        };
        let (leader, kind) = kind;
        let Some(&p) = members.get(pick(who, members.len())) else {
            continue;
        };
        if last_record.get(&(p, leader)).is_some_and(|&s| s >= step) {
            continue;
        }
        last_record.insert((p, leader), step);
        events.push(ShmEvent {
            step,
            pid: Some(p),
            kind,
        });
    }
    for p in 0..next {
        let (round_late, leader_late) = raw.summaries[p % raw.summaries.len()];
        let last = |late: bool| {
            Some(if late {
                STEPS - 1
            } else {
                (p as u64 * 7) % STEPS / 2
            })
        };
        events.push(ShmEvent {
            step: STEPS,
            pid: Some(p),
            kind: ShmEventKind::Summary {
                steps: STEPS,
                rounds: 1,
                last_round_step: last(round_late),
                leader_calls: 1,
                last_leader_step: last(leader_late),
            },
        });
    }
    ShmTrace {
        processes: next,
        steps: STEPS,
        events,
    }
}

/// The properties `raw` asks for: all three in half the cases, a non-empty subset otherwise.
fn properties(raw: &Raw) -> Vec<&'static str> {
    let bits = if raw.properties % 2 == 0 {
        7
    } else {
        (raw.properties >> 1) % 7 + 1
    };
    OMEGA_PROPERTIES
        .iter()
        .enumerate()
        .filter(|(i, _)| bits >> i & 1 == 1)
        .map(|(_, p)| *p)
        .collect()
}

/// What `omega::judge` says, in the oracle's terms (a suffix too short is could not judge).
fn checker(
    t: &ShmTrace,
    alpha: usize,
    judge_from: u64,
    properties: &[&str],
) -> (&'static str, String) {
    match omega::judge(t, alpha, judge_from, properties) {
        Ok(_) => ("pass", String::new()),
        Err(v) if omega::too_short_to_judge(&v) => ("unjudged", v.property),
        Err(v) => ("violation", v.property),
    }
}

/// The checker agrees with the oracle on every case, and the cases reach every verdict of
/// every property.
#[test]
fn the_omega_properties_agree_with_their_oracle() {
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    let seed = crate::differential::sweep_seed(0x3c);
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let seen = std::cell::RefCell::new(std::collections::BTreeMap::<(String, String), u32>::new());
    let result = runner.run(&raw(), |raw| {
        let t = trace(&raw);
        let props = properties(&raw);
        let expected = oracle::omega(&t, raw.alpha, raw.judge_from, &props);
        let got = checker(&t, raw.alpha, raw.judge_from, &props);
        if got != expected {
            return Err(TestCaseError::fail(format!(
                "checker says {got:?}, oracle says {expected:?}\nalpha {}, judge_from {}, properties {props:?}\n{}",
                raw.alpha,
                raw.judge_from,
                t.to_jsonl()
            )));
        }
        *seen
            .borrow_mut()
            .entry((expected.0.to_string(), expected.1))
            .or_default() += 1;
        Ok(())
    });
    eprintln!(
        "omega: oracle verdicts over the cases run: {:?}",
        seen.borrow()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    let seen = seen.borrow();
    let reached = |kind: &str, property: &str| {
        seen.get(&(kind.to_string(), property.to_string()))
            .copied()
            .unwrap_or(0)
    };
    assert!(reached("pass", "") > 0, "{seen:?}");
    for p in OMEGA_PROPERTIES {
        assert!(reached("violation", p) > 0, "no violation of {p}: {seen:?}");
    }
    assert!(
        reached("unjudged", omega::MEMORY_ACCESS_PATTERN) > 0,
        "{seen:?}"
    );
    assert!(
        reached("violation", omega::MEMORY_ACCESS_PATTERN) > 0,
        "{seen:?}"
    );
}
