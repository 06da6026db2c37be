//! Ricart–Agrawala distributed mutual exclusion.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.3.4, seed `000`; seed `001` slides; Lamport clocks of
//! §6.2.1): a process that wants the resource stamps a REQUEST with its Lamport clock and its
//! process id and sends it to every other process. A receiver that neither holds nor wants the
//! resource answers OK; one that holds it queues the request; one that wants it compares
//! stamps: the lower `(clock, id)` wins, so it answers OK if the incoming stamp is lower and
//! queues it otherwise. With OKs from all `n - 1` others, the process enters; on leaving, it
//! answers OK to everyone it queued. `2(n - 1)` messages per entry/exit and `2(n - 1)`
//! message times before entry when messages are sent one after the other (Table 6.1).
//!
//! **Fault model**: reliable channels (no loss, no duplication) with any delay and reordering,
//! slow processes, drifting clocks. No crashes: a crashed process never answers, and its
//! silence blocks everyone (the text's "n points of failure").
//!
//! **Promises**: `mutual_exclusion`, `liveness` (no deadlock, no starvation: requests are served
//! in stamp order).
//!
//! **Variant `no-tiebreak`** (buggy): stamps are compared by clock value only, and a receiver
//! answers OK when the incoming stamp is not higher than its own. Two processes that request
//! with equal clocks both answer OK to each other and both enter: the total order of events
//! needs the process-id tie break.

use serde::{Deserialize, Serialize};
use sincro_harness::{Ctx, NodeId, Observation, Process};
use std::collections::{BTreeSet, VecDeque};

/// A request stamp: Lamport clock, then process id.
pub type Stamp = (u64, NodeId);

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// Asks for the resource, stamped `(clock, id)`.
    Request {
        /// Lamport clock of the request.
        clock: u64,
    },
    /// Permission.
    Ok {
        /// Lamport clock of the sender.
        clock: u64,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Time inside the critical section is over.
    HoldDone,
}

/// Workload commands: the same as the centralized algorithm's.
pub use super::centralized::Input;

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Lamport clock of each node at start (default 0): lets a scenario reproduce the stamps of
    /// a worked example, e.g. Fig. 6.15's 8 and 12.
    #[serde(default)]
    pub initial_clocks: Vec<u64>,
}

/// Which behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The textbook algorithm.
    Correct,
    /// Stamps compared without the process-id tie break.
    NoTiebreak,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    Released,
    Wanted {
        stamp: Stamp,
        hold_ms: u64,
        oks: BTreeSet<NodeId>,
    },
    Held,
}

/// One process.
#[derive(Debug)]
pub struct RicartAgrawala {
    variant: Variant,
    clock: u64,
    state: State,
    deferred: Vec<NodeId>,
    backlog: VecDeque<u64>,
}

impl RicartAgrawala {
    /// A process of the run, its Lamport clock starting at `clock`.
    pub fn new(variant: Variant, clock: u64) -> Self {
        RicartAgrawala {
            variant,
            clock,
            state: State::Released,
            deferred: Vec::new(),
            backlog: VecDeque::new(),
        }
    }

    fn tick(&mut self, seen: u64) -> u64 {
        self.clock = self.clock.max(seen) + 1;
        self.clock
    }

    fn request(&mut self, ctx: &mut Ctx<'_, Self>, hold_ms: u64) {
        let clock = self.tick(0);
        let stamp = (clock, ctx.id());
        self.state = State::Wanted {
            stamp,
            hold_ms,
            oks: BTreeSet::new(),
        };
        ctx.observe(Observation::CsRequest { resource: 0 });
        let me = ctx.id();
        for to in (0..ctx.nodes()).filter(|&p| p != me) {
            ctx.send(to, Msg::Request { clock });
        }
        self.maybe_enter(ctx);
    }

    fn maybe_enter(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let State::Wanted { hold_ms, oks, .. } = &self.state {
            if oks.len() == ctx.nodes() - 1 {
                let hold_ms = *hold_ms;
                self.state = State::Held;
                ctx.observe(Observation::CsEnter { resource: 0 });
                ctx.set_timer_ms(hold_ms, Timer::HoldDone);
            }
        }
    }

    /// True when a request stamped `theirs` must wait for us.
    fn defer(&self, theirs: Stamp) -> bool {
        match &self.state {
            State::Released => false,
            State::Held => true,
            State::Wanted { stamp, .. } => match self.variant {
                Variant::Correct => *stamp < theirs,
                // The bug: equal clocks count as "theirs is not higher", so both sides yield.
                Variant::NoTiebreak => stamp.0 < theirs.0,
            },
        }
    }
}

impl Process for RicartAgrawala {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Request { clock } => {
                self.tick(clock);
                if self.defer((clock, from)) {
                    self.deferred.push(from);
                } else {
                    let clock = self.tick(0);
                    ctx.send(from, Msg::Ok { clock });
                }
            }
            Msg::Ok { clock } => {
                self.tick(clock);
                if let State::Wanted { oks, .. } = &mut self.state {
                    oks.insert(from);
                }
                self.maybe_enter(ctx);
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::HoldDone => {
                assert_eq!(self.state, State::Held, "hold timer while not holding");
                self.state = State::Released;
                ctx.observe(Observation::CsExit { resource: 0 });
                let clock = self.tick(0);
                for to in std::mem::take(&mut self.deferred) {
                    ctx.send(to, Msg::Ok { clock });
                }
                if let Some(hold_ms) = self.backlog.pop_front() {
                    self.request(ctx, hold_ms);
                }
            }
        }
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Acquire { hold_ms } = input;
        if self.state == State::Released {
            self.request(ctx, hold_ms);
        } else {
            self.backlog.push_back(hold_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use sincro_harness::engine::RunOptions;
    use sincro_harness::gen::GenOptions;
    use sincro_harness::{EngineKind, EventKind, Observation, Scenario, Verdict};

    fn two_requesters(n: usize, variant: &str, clocks: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "mutex.ricart-agrawala", "variant": "{variant}", "nodes": {n}, "seed": 1,
                "duration_ms": 500, "params": {{"initial_clocks": {clocks}}},
                "network": {{"latency": {{"constant": {{"ms": 5}}}}}},
                "workload": [{{"at_ms": 10, "node": 0, "input": {{"acquire": {{"hold_ms": 20}}}}}},
                             {{"at_ms": 10, "node": 2, "input": {{"acquire": {{"hold_ms": 20}}}}}}]}}"#
        ))
        .unwrap()
    }

    #[test]
    fn fig_6_15_lowest_stamp_enters_first_then_the_deferred_one() {
        let out = find("mutex.ricart-agrawala")
            .unwrap()
            .run(
                &two_requesters(3, "correct", "[7, 0, 11]"),
                RunOptions::default(),
            )
            .unwrap();
        assert_eq!(out.verdict, Verdict::Pass);
        let enters: Vec<_> = out
            .trace
            .as_ref()
            .unwrap()
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Observe {
                        obs: Observation::CsEnter { .. }
                    }
                )
            })
            .map(|e| (e.node.unwrap(), e.t_ns / 1_000_000))
            .collect();
        // 0 (stamp 8) enters when both OKs are in (10 + 5 + 5); 2 (stamp 12) after 0's exit OK
        assert_eq!(enters, vec![(0, 20), (2, 45)]);
    }

    #[test]
    fn two_n_minus_one_messages_per_entry() {
        for n in [3usize, 5, 8, 13] {
            let clocks = serde_json::to_string(&vec![0u64; n]).unwrap();
            let out = find("mutex.ricart-agrawala")
                .unwrap()
                .run(
                    &two_requesters(n, "correct", &clocks),
                    RunOptions::default(),
                )
                .unwrap();
            assert_eq!(out.verdict, Verdict::Pass);
            assert_eq!(
                out.stats.sent,
                2 * 2 * (n as u64 - 1),
                "n = {n}: two entries, 2(n-1) each"
            );
        }
    }

    #[test]
    fn equal_clocks_without_tie_break_let_both_in() {
        let out = find("mutex.ricart-agrawala")
            .unwrap()
            .run(
                &two_requesters(3, "no-tiebreak", "[0, 0, 0]"),
                RunOptions::default(),
            )
            .unwrap();
        assert!(
            matches!(&out.verdict, Verdict::Violation(v) if v.property == "mutual_exclusion"),
            "{}",
            out.verdict
        );
        let ok = find("mutex.ricart-agrawala")
            .unwrap()
            .run(
                &two_requesters(3, "correct", "[0, 0, 0]"),
                RunOptions::default(),
            )
            .unwrap();
        assert_eq!(
            ok.verdict,
            Verdict::Pass,
            "the tie break settles equal clocks"
        );
    }

    #[test]
    fn deterministic_on_both_engines_and_fuzzing_separates_the_variants() {
        let alg = find("mutex.ricart-agrawala").unwrap();
        for engine in [EngineKind::Native, EngineKind::Turmoil] {
            let opts = GenOptions {
                engine,
                ..GenOptions::default()
            };
            for variant in ["correct", "no-tiebreak"] {
                for seed in 0..5 {
                    let sc = alg.generate(variant, seed, &opts);
                    let a = alg
                        .run(&sc, RunOptions::default())
                        .unwrap()
                        .trace
                        .unwrap()
                        .to_jsonl();
                    let b = alg
                        .run(&sc, RunOptions::default())
                        .unwrap()
                        .trace
                        .unwrap()
                        .to_jsonl();
                    assert_eq!(a, b, "{engine:?} {variant} seed {seed}");
                }
            }
        }
        let fast = RunOptions {
            record_trace: false,
        };
        let opts = GenOptions::default();
        assert!((0..200).any(|s| !alg
            .run(&alg.generate("no-tiebreak", s, &opts), fast)
            .unwrap()
            .verdict
            .is_pass()));
        for seed in 0..300 {
            let v = alg
                .run(&alg.generate("correct", seed, &opts), fast)
                .unwrap()
                .verdict;
            assert!(v.is_pass(), "seed {seed}: {v}");
        }
    }
}
