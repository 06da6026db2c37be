//! Cristian's algorithm / the NTP client–server exchange.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.1.3, Fig. 6.6, seed `000`; seed `003`): every
//! `period_ms` of its own clock, a client A sends a request stamped T1 to the time server B;
//! B stamps its arrival T2 and the reply's departure T3; A stamps the reply's arrival T4. A
//! estimates its offset θ = ((T2 − T1) + (T3 − T4)) / 2 and the delay δ = ((T2 − T1) +
//! (T4 − T3)) / 2, keeps the last 8 (θ, δ) pairs (NTP's clock filter) and corrects by the θ of
//! the least δ — stepping forward when behind, slewing when ahead ("time cannot run
//! backwards"). Stored θs are kept on the raw clock, so a client's own corrections do not
//! corrupt older samples. One request is outstanding at a time: a late or duplicated reply to
//! an older request is ignored. The server (`params.server`, node 0) has the reference clock:
//! generated scenarios give it no offset and no drift.
//!
//! **Fault model**: any delay, loss, duplication, reordering, partitions (one- or two-way),
//! crashes with restart, pauses, clock drift up to 100 ppm (a fifth of the 500 ppm slew rate:
//! a clock that runs faster than the slew rate cannot be held back without stepping it back)
//! and clock jumps (generated jumps scaled to at most 50 ms: slewing back a clock that jumped
//! 500 ms ahead takes 1000 s). Skew is judged after the faults stop plus the time to slew away
//! the worst offset (see `sincro_checkers::bounded_skew`).
//!
//! **Promises**: `bounded_skew` (internal and external: |C_p − t| ≤ E = s/2 + ρ(W+1)(Δ+2d_max)
//! + (σ+ρ)·2d_max), `monotonic_clock`.

use super::samples::{max_delay_ns, Filter};
use super::{correct, Corrections, NoInput, Textbook};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{Ctx, NodeId, Process, Scenario, SimRng};

/// Parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Resync period, ms of the client's clock.
    pub period_ms: u64,
    /// Samples kept by the clock filter.
    pub samples: usize,
    /// The time server.
    pub server: NodeId,
    /// Samples whose delay δ exceeds this are discarded: the server was paused or a clock
    /// jumped during the round trip (0: the scenario's largest latency plus 1 ms).
    pub max_delay_ms: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            period_ms: sincro_checkers::bounded_skew::DEFAULT_PERIOD_MS,
            samples: sincro_checkers::bounded_skew::DEFAULT_SAMPLES,
            server: 0,
            max_delay_ms: 0,
        }
    }
}

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// "What time is it?", sent at T1.
    Request {
        /// Request number.
        id: u64,
        /// T1, client clock.
        t1: i64,
    },
    /// The answer.
    Reply {
        /// The request answered.
        id: u64,
        /// T1 echoed.
        t1: i64,
        /// Arrival of the request, server clock.
        t2: i64,
        /// Departure of the reply, server clock.
        t3: i64,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Time to ask the server again.
    Poll,
}

/// A node: the server answers, clients poll and correct.
#[derive(Debug)]
pub struct Cristian {
    params: Params,
    next_id: u64,
    outstanding: Option<u64>,
    filter: Filter,
}

impl Cristian {
    /// A node with `params`.
    pub fn new(params: Params) -> Self {
        Cristian {
            params,
            next_id: 0,
            outstanding: None,
            filter: Filter::default(),
        }
    }

    fn poll(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.next_id += 1;
        self.outstanding = Some(self.next_id);
        let t1 = ctx.now();
        ctx.send(
            self.params.server,
            Msg::Request {
                id: self.next_id,
                t1,
            },
        );
        ctx.set_timer_ms(self.params.period_ms, Timer::Poll);
    }
}

impl Process for Cristian {
    type Msg = Msg;
    type Timer = Timer;
    type Input = NoInput;
    type Stable = Corrections;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if ctx.id() != self.params.server {
            self.poll(ctx);
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Request { id, t1 } if ctx.id() == self.params.server => {
                let t2 = ctx.now();
                // answered at once: T3 = T2 (a real server's T3 − T2 is its processing time)
                ctx.send(from, Msg::Reply { id, t1, t2, t3: t2 });
            }
            Msg::Reply { id, t1, t2, t3 }
                if from == self.params.server && self.outstanding == Some(id) =>
            {
                self.outstanding = None;
                let keep = self.params.samples;
                let max_delay_ns = max_delay_ns(self.params.max_delay_ms);
                if let Some(delta_ns) = self.filter.record(ctx, (t1, t2, t3), keep, max_delay_ns) {
                    // θ of the least δ, as it stands now on the corrected clock
                    correct(ctx, delta_ns, false);
                }
            }
            // a request to a client, or a stale, duplicated or foreign reply
            Msg::Request { .. } | Msg::Reply { .. } => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Poll => self.poll(ctx),
        }
    }

    fn on_input(&mut self, _ctx: &mut Ctx<'_, Self>, input: NoInput) {
        match input {}
    }
}

/// `clock.cristian`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct CristianSpec;

impl Spec for CristianSpec {
    type Node = Cristian;
    type Params = Params;
    type Variant = Textbook;

    fn name(&self) -> &'static str {
        "clock.cristian"
    }
    fn summary(&self) -> &'static str {
        "Cristian / NTP client-server: θ and δ from T1..T4, 8 samples, θ of the least δ"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.1.3 (Fig. 6.6); seed 003"
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
    /// No workload; `max_delay_ms` defaults to the largest latency plus 1 ms, and must exceed
    /// the usual largest one.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_no_workload(self, setup)?;
        if setup.params.max_delay_ms == 0 {
            setup.params.max_delay_ms = setup.for_fast_clocks_ms(setup.max_latency_ms() + 1);
        }
        super::check_max_delay(setup.params.max_delay_ms, setup)?;
        super::check_period(setup.params.period_ms, setup)?;
        super::check_samples("samples", setup.params.samples)?;
        super::check_node("server", setup.params.server, setup)
    }
    fn node(&self, _: Textbook, params: &Params, _id: NodeId) -> Cristian {
        Cristian::new(params.clone())
    }
    /// None: the clients poll on their own timers.
    fn workload(&self, _rng: &mut SimRng, _nodes: usize, _active_ms: u64) -> Vec<Timed<NoInput>> {
        Vec::new()
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        super::liveness_bound_ms(setup)
    }
    /// The family's scenarios, with node 0 (the server) a perfect reference.
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        super::complete(draft, opts, true)
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, EventKind, Scenario};

    #[test]
    fn replays_exactly() {
        assert_replays_exactly("clock.cristian", &["correct"], 2);
    }

    #[test]
    fn in_model_fuzzing_passes() {
        assert_in_model_passes("clock.cristian", "correct", 40, EngineKind::Native);
    }

    #[test]
    fn a_client_ahead_slews_and_one_behind_steps() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "clock.cristian", "nodes": 3, "seed": 7, "duration_ms": 210000,
                "network": {"latency": {"constant": {"ms": 5}}},
                "clocks": {"rho_ppm": 0, "nodes": [{"node": 1, "offset_ms": 20}, {"node": 2, "offset_ms": -20}]}}"#,
        )
        .unwrap();
        let out = find("clock.cristian")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap();
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        let trace = out.trace.unwrap();
        let first = |node| {
            trace
                .events()
                .iter()
                .find_map(|e| match e.kind {
                    EventKind::ClockAdjust { how, delta_ns } if e.node == Some(node) => {
                        Some((how, delta_ns))
                    }
                    _ => None,
                })
                .unwrap()
        };
        use sincro_harness::process::ClockAdjust;
        // symmetric delays: θ is exact
        assert_eq!(first(1), (ClockAdjust::Slew, -20_000_000));
        assert_eq!(first(2), (ClockAdjust::Step, 20_000_000));
        // the slew of 20 ms at 500 ppm is done within 40 s; at the end both clocks read t
        let end = sc.duration_ms * 1_000_000;
        let last = trace
            .events()
            .iter()
            .rev()
            .find(|e| e.node == Some(1))
            .unwrap();
        assert!(
            (last.local_ns.unwrap() - last.t_ns as i64).abs() < 1_000,
            "{last:?}"
        );
        assert!(last.t_ns <= end);
    }
}
