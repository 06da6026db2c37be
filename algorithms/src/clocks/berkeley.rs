//! The Berkeley algorithm (Gusella and Zatti, 1989).
//!
//! **Algorithm** (Tanenbaum & van Steen §6.1.3, Fig. 6.7, seed `000`; seed `003`): the time
//! daemon (`params.daemon`, node 0) is active: every `period_ms` it stamps T0 and asks every
//! machine for its time; a machine answers with its clock C; at the answer's arrival T the
//! daemon estimates the machine's offset as C + (T − T0)/2 − T (round-trip correction),
//! ignoring answers slower than `timeout_ms`. When `timeout_ms` has passed it averages the
//! offsets (its own is 0) and tells every machine how much to adjust — `average − offset`,
//! a relative amount, so message delays do not matter — and adjusts itself by the average.
//! Machines step forward and slew back, never go backwards. Rounds are numbered: a late,
//! duplicated or reordered adjustment of an older round is ignored. No reference clock: the
//! synchronization is internal only.
//!
//! **Fault model**: any delay, loss, duplication, reordering, partitions, crashes with
//! restart, pauses, drift up to 100 ppm, clock jumps scaled to at most 50 ms (see
//! `clock.cristian`). Skew is judged after the faults stop plus a convergence time.
//!
//! **Promises**: `bounded_skew` (internal: I = s·max(1, (2n−3)/n) + 2ρ(Δ+4d_max) + 2σ·2d_max:
//! a round's adjustments reach the n nodes at different times, and in between an adjusted
//! node is compared with one that is not; see `sincro_checkers::bounded_skew::berkeley_spread_ns`),
//! `monotonic_clock`.
//!
//! **Variant `step-backwards`** (buggy): machines apply the adjustment as a step, also a
//! negative one — their clocks run backwards, caught by `monotonic_clock`.

use super::{correct, Corrections, NoInput};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{Ctx, NodeId, Process, Scenario, SimRng};
use std::collections::BTreeMap;

/// Parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Polling period, ms of the daemon's clock.
    pub period_ms: u64,
    /// The time daemon.
    pub daemon: NodeId,
    /// How long the daemon waits for answers (0: twice the largest latency plus 2 ms).
    pub timeout_ms: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            period_ms: sincro_checkers::bounded_skew::DEFAULT_PERIOD_MS,
            daemon: 0,
            timeout_ms: 0,
        }
    }
}

crate::variants! {
    /// Variants.
    pub enum Variant {
        Correct = "correct", "the textbook algorithm; steps forward, slews back";
        StepBackwards = "step-backwards" (buggy), "negative adjustments are applied as steps: clocks run backwards";
    }
}

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// The daemon asks for the time.
    Poll {
        /// Round number.
        round: u64,
    },
    /// A machine's clock when the poll arrived.
    Time {
        /// Round answered.
        round: u64,
        /// The machine's clock, ns.
        clock: i64,
    },
    /// How much to adjust.
    Adjust {
        /// Round.
        round: u64,
        /// Adjustment, ns (negative: slow down).
        delta_ns: i64,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Start a round.
    Poll,
    /// Stop waiting for answers of `round`.
    Collect(u64),
}

/// A machine (the daemon is one of them).
#[derive(Debug)]
pub struct Berkeley {
    params: Params,
    timeout_ms: u64,
    variant: Variant,
    // daemon
    round: u64,
    t0: i64,
    offsets: BTreeMap<NodeId, i64>,
    // machine
    last_round: u64,
}

impl Berkeley {
    /// A machine; `timeout_ms` is the daemon's wait for answers.
    pub fn new(params: Params, timeout_ms: u64, variant: Variant) -> Self {
        Berkeley {
            params,
            timeout_ms,
            variant,
            round: 0,
            t0: 0,
            offsets: BTreeMap::new(),
            last_round: 0,
        }
    }

    fn start_round(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.round += 1;
        self.t0 = ctx.now();
        self.offsets.clear();
        ctx.broadcast(Msg::Poll { round: self.round });
        ctx.set_timer_ms(self.timeout_ms, Timer::Collect(self.round));
        ctx.set_timer_ms(self.params.period_ms, Timer::Poll);
    }

    fn adjust(&mut self, ctx: &mut Ctx<'_, Self>, delta_ns: i64) {
        correct(ctx, delta_ns, self.variant == Variant::StepBackwards);
    }
}

impl Process for Berkeley {
    type Msg = Msg;
    type Timer = Timer;
    type Input = NoInput;
    type Stable = Corrections;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if ctx.id() == self.params.daemon {
            self.start_round(ctx);
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        let daemon = self.params.daemon;
        match msg {
            Msg::Poll { round } if from == daemon => {
                if round <= self.last_round {
                    // the daemon restarted and counts from 1 again
                    self.last_round = round - 1;
                }
                let clock = ctx.now();
                ctx.send(from, Msg::Time { round, clock });
            }
            Msg::Time { round, clock } if ctx.id() == daemon && round == self.round => {
                let now = ctx.now();
                let rtt = now - self.t0;
                if (0..=(self.timeout_ms * 1_000_000) as i64).contains(&rtt) {
                    self.offsets.insert(from, clock + rtt / 2 - now);
                }
            }
            Msg::Adjust { round, delta_ns } if from == daemon && round > self.last_round => {
                self.last_round = round;
                self.adjust(ctx, delta_ns);
            }
            // stale rounds, duplicates, messages from a non-daemon
            Msg::Poll { .. } | Msg::Time { .. } | Msg::Adjust { .. } => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Poll => self.start_round(ctx),
            Timer::Collect(round) if round == self.round => {
                let offsets = std::mem::take(&mut self.offsets);
                let n = offsets.len() as i128 + 1; // the daemon's own offset is 0
                let avg = (offsets.values().map(|&o| o as i128).sum::<i128>() / n) as i64;
                for (&node, &off) in &offsets {
                    ctx.send(
                        node,
                        Msg::Adjust {
                            round,
                            delta_ns: avg - off,
                        },
                    );
                }
                self.adjust(ctx, avg);
            }
            Timer::Collect(_) => {}
        }
    }

    fn on_input(&mut self, _ctx: &mut Ctx<'_, Self>, input: NoInput) {
        match input {}
    }
}

/// `clock.berkeley`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct BerkeleySpec;

impl Spec for BerkeleySpec {
    type Node = Berkeley;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "clock.berkeley"
    }
    fn summary(&self) -> &'static str {
        "Berkeley: an active daemon polls, averages with round-trip correction, sends each its adjustment"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.1.3 (Fig. 6.7); seed 003"
    }
    fn properties(&self) -> Vec<&'static str> {
        super::PROPERTIES.to_vec()
    }
    /// `bounded_skew` compares two clocks at least.
    fn nodes_min(&self) -> usize {
        2
    }
    fn fault_model(&self) -> FaultModel {
        super::fault_model()
    }
    /// No workload; `timeout_ms` defaults to a round trip plus 2 ms, must exceed a round trip
    /// of the usual links, and stays below the period.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_no_workload(self, setup)?;
        super::check_period(setup.params.period_ms, setup)?;
        super::check_node("daemon", setup.params.daemon, setup)?;
        if setup.params.timeout_ms == 0 {
            setup.params.timeout_ms = setup.for_fast_clocks_ms(2 * setup.max_latency_ms() + 2);
        }
        super::check_answer_timeout(setup.params.timeout_ms, setup)?;
        let p = &setup.params;
        if p.timeout_ms >= p.period_ms {
            return Err(format!(
                "params.timeout_ms = {} must be below params.period_ms = {}",
                p.timeout_ms, p.period_ms
            ));
        }
        Ok(())
    }
    fn node(&self, variant: Variant, params: &Params, _id: NodeId) -> Berkeley {
        Berkeley::new(params.clone(), params.timeout_ms, variant)
    }
    /// None: the daemon polls on its own timer.
    fn workload(&self, _rng: &mut SimRng, _nodes: usize, _active_ms: u64) -> Vec<Timed<NoInput>> {
        Vec::new()
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        super::liveness_bound_ms(setup)
    }
    /// The family's scenarios (internal synchronization only: no reference clock).
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        super::complete(draft, opts, false)
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::{RunOptions, MADSIM};
    use sincro_harness::process::ClockAdjust;
    use sincro_harness::{EngineKind, EventKind, Scenario};

    #[test]
    fn replays_exactly() {
        assert_replays_exactly("clock.berkeley", &["correct", "step-backwards"], 2);
    }

    #[test]
    fn in_model_fuzzing_passes() {
        assert_in_model_passes("clock.berkeley", "correct", 40, EngineKind::Native);
    }

    /// A round's adjustments reach the nodes at different times: in between, an adjusted node
    /// and one not yet adjusted compare the round's new average with the old. A correct run of
    /// 10 nodes (stop 87's campaign) put node 9, stepped +13.949 ms, 25.90 ms ahead of node 3,
    /// whose adjustment was still on its way: past s = 25 ms, which the bound counted alone
    /// (25.102 ms with its drift and slew terms), and within s·(2n − 3)/n, which it counts now.
    #[test]
    fn a_node_adjusted_before_another_is_within_the_bound() {
        use sincro_checkers::bounded_skew::berkeley_spread_ns;
        use sincro_checkers::BoundedSkew;
        let sc = Scenario::from_json(include_str!("berkeley-adjustments-in-flight.json")).unwrap();
        let out = find("clock.berkeley")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap();
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        let mut c = BoundedSkew::for_scenario(&sc);
        c.check(out.trace.as_ref().unwrap(), sc.duration_ms * 1_000_000)
            .unwrap();
        let (s, n) = (25_000_000.0, sc.nodes);
        assert_eq!(n, 10);
        assert_eq!(berkeley_spread_ns(s, n), 42_500_000.0);
        // the bound without the transient, and the skew the run reached past it
        let settled_ns = c.spec().internal_bound_ns as f64 - berkeley_spread_ns(s, n) + s;
        assert!(
            (25_101_000.0..25_103_000.0).contains(&settled_ns),
            "{settled_ns}"
        );
        assert_eq!(c.max_internal_ns(), 25_899_522);
        assert!(c.max_internal_ns() as f64 > settled_ns);
    }

    #[test]
    fn step_backwards_is_caught_by_monotonic_clock() {
        let seed = first_failing_seed("clock.berkeley", "step-backwards", 50, EngineKind::Native);
        assert_eq!(seed, Some(0));
    }

    /// The corpus cases of Fig. 6.7 (ms for minutes): the daemon at 3:00, machines at 2:50
    /// and 3:25.
    const FIG_6_7: &str = include_str!("../../../corpus/clocks/berkeley-fig-6-7.json");
    const STEP_BACKWARDS: &str =
        include_str!("../../../corpus/clocks/berkeley-step-backwards.json");

    fn engines() -> Vec<EngineKind> {
        let mut e = vec![EngineKind::Native, EngineKind::Turmoil];
        if MADSIM {
            e.push(EngineKind::Madsim);
        }
        e
    }

    /// The clock adjustments of a run of `json` on `engine`, by node, and whether its verdict
    /// is the one the corpus case expects.
    fn run_case(json: &str, engine: EngineKind) -> (Vec<(usize, ClockAdjust, i64)>, bool) {
        let mut sc = Scenario::from_json(json).unwrap();
        sc.engine = engine;
        let out = find("clock.berkeley")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap();
        let expected = sc.expect.clone().unwrap().matches(&out.verdict);
        let mut adj: Vec<_> = out
            .trace
            .unwrap()
            .events()
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::ClockAdjust { how, delta_ns } => Some((e.node.unwrap(), how, delta_ns)),
                _ => None,
            })
            .collect();
        adj.sort_by_key(|a| a.0);
        (adj, expected)
    }

    /// Fig. 6.7: the average is 3:05; the daemon moves +5, the slow machine +15 and the fast
    /// one −20 (slewed; stepped back by the buggy variant, caught by `monotonic_clock`). The
    /// 5 ms links outlast madsim's 2 ms transport floor, so the round trips are symmetric and
    /// the answers beat the 12 ms collect timer on every engine: exact on native and turmoil,
    /// within a few µs on madsim (its executor adds some hundred ns to every step).
    #[test]
    fn fig_6_7_adjustments_on_every_engine() {
        let near = |engine, got: i64, want: i64| {
            let tolerance_ns = if engine == EngineKind::Madsim {
                10_000
            } else {
                0
            };
            (got - want).abs() <= tolerance_ns
        };
        for engine in engines() {
            let (adj, expected) = run_case(FIG_6_7, engine);
            assert!(expected, "{engine:?}: unexpected verdict");
            let want = [
                (0, ClockAdjust::Step, 5_000_000),
                (1, ClockAdjust::Step, 15_000_000),
                (2, ClockAdjust::Slew, -20_000_000),
            ];
            assert_eq!(adj.len(), want.len(), "{engine:?}: {adj:?}");
            for (got, want) in adj.iter().zip(want) {
                assert_eq!((got.0, got.1), (want.0, want.1), "{engine:?}: {adj:?}");
                assert!(near(engine, got.2, want.2), "{engine:?}: {adj:?}");
            }
            // the buggy variant steps node 2 back by those 20 ms, and is caught
            let (adj, expected) = run_case(STEP_BACKWARDS, engine);
            assert!(expected, "{engine:?}: step-backwards not caught: {adj:?}");
            assert!(
                adj.iter().any(|&(node, how, delta_ns)| node == 2
                    && how == ClockAdjust::Step
                    && near(engine, delta_ns, -20_000_000)),
                "{engine:?}: {adj:?}"
            );
        }
    }
}
