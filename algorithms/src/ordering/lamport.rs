//! Lamport clocks and vector clocks on every event of a message-passing run, with Fig. 6.9's
//! clocks that tick at different rates.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.2.1 and §6.2.2, seed `000`): each process keeps a
//! Lamport clock `C_i` and a vector clock `VC_i`. A workload input makes a process send a
//! message to another; the send and the receipt are the run's events. Before each event the
//! process ticks (`C_i <- C_i + 1`, `VC_i[i] <- VC_i[i] + 1`); a message carries the clocks of
//! its send event; on receipt the process sets `C_j <- max(C_j, ts(m))` and
//! `VC_j[k] <- max(VC_j[k], ts(m)[k])`, then ticks. Each event is reported as a
//! `logical_time` observation, so the checkers can compare the clocks with the harness's
//! ground-truth happens-before.
//!
//! **Fig. 6.9** (param `ticks`): the Lamport clock is also driven by the process's own crystal:
//! every `step_ms` of local time it advances by `ticks[i]` (6, 8 and 10 in the figure). An
//! event's clock is the crystal reading plus the corrections made so far, and at least one more
//! than the previous event's; a receipt whose reading is not above the message's time is
//! corrected to one more than it ("the times can only be corrected by adding a positive
//! value"). So m3, sent at 60, arrives at 61 instead of 56, and m4 arrives at 70 instead of 54.
//! With no `ticks` the clock is the plain event counter of Raynal and Singhal.
//!
//! **Fault model**: any delay, loss, duplication, reordering, partitions, pauses, clock drift
//! and jumps (the clocks never go backwards: a backward jump of the crystal is absorbed by the
//! correction), and crashes with restart: the clocks live in stable storage.
//!
//! **Promises**: `lamport_condition` (a → b ⇒ C(a) < C(b)) and `vector_causality`
//! (VC(a) < VC(b) ⇔ a → b).
//!
//! **Variant `no-correction`** (buggy): the receiver does not adjust its Lamport clock, as in
//! Fig. 6.9(a): m3 "arrives at 56" although it left at 60. **Variant `no-merge`** (buggy): the
//! receiver ticks its vector clock without merging the message's vector, so a receipt does not
//! look caused by the send.

use super::clocks::{LamportClock, VectorClock};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng, NS_PER_MS};

/// A message: the clocks of its send event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Msg {
    /// Lamport timestamp `ts(m)`.
    pub lamport: u64,
    /// Vector timestamp.
    pub vector: Vec<u64>,
}

/// Workload commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Input {
    /// Send a message to `to`.
    Send {
        /// Destination.
        to: NodeId,
    },
}

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Per node, how much its Lamport clock advances every `step_ms` of local time on its own
    /// (Fig. 6.9: `[6, 8, 10]`). Empty: no crystal, a pure event counter.
    #[serde(default)]
    pub ticks: Vec<u64>,
    /// The crystal's step, local ms (default 10).
    #[serde(default)]
    pub step_ms: u64,
    /// Number of nodes of the run (the length of the vector clocks): not a scenario parameter,
    /// [`LamportSpec`]'s `prepare` sets it from the scenario.
    #[serde(skip)]
    pub nodes: usize,
}

/// Largest `params.ticks` entry: a million per step, so that a run's clocks (at most
/// `limits.max_events` steps and events) stay far below `u64::MAX`.
pub const MAX_TICK: u64 = 1_000_000;

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the text's three steps for both clocks";
        NoCorrection = "no-correction" (buggy), "the receiver does not correct its Lamport clock (Fig. 6.9(a): m3 arrives at 56)";
        NoMerge = "no-merge" (buggy), "the receiver ticks its vector clock without merging the message's";
    }
}

/// The clocks, kept in stable storage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clocks {
    /// Corrections added to the crystal reading so far.
    pub correction: u64,
    /// The Lamport clock (value of the last event).
    pub lamport: LamportClock,
    /// The vector clock.
    pub vector: VectorClock,
}

/// One process.
#[derive(Debug)]
pub struct LamportProcess {
    variant: Variant,
    tick: u64,
    step_ns: u64,
    clocks: Clocks,
}

impl LamportProcess {
    /// Process `id` of `n`, its crystal adding `tick` every `step_ms` (0: none).
    pub fn new(variant: Variant, id: NodeId, n: usize, tick: u64, step_ms: u64) -> Self {
        LamportProcess {
            variant,
            tick,
            step_ns: step_ms.max(1).saturating_mul(NS_PER_MS),
            clocks: Clocks {
                correction: 0,
                lamport: LamportClock::new(id, 0),
                vector: VectorClock::new(id, n),
            },
        }
    }

    /// The crystal's reading plus the corrections.
    fn reading(&self, ctx: &Ctx<'_, Self>) -> u64 {
        let steps = ctx.now().max(0) as u64 / self.step_ns;
        steps
            .saturating_mul(self.tick)
            .saturating_add(self.clocks.correction)
    }

    /// An event: the clock becomes at least the reading, one more than the last event and,
    /// for a receipt with correction, one more than `ts`; corrections only add.
    fn event(&mut self, ctx: &Ctx<'_, Self>, ts: Option<u64>) -> u64 {
        let reading = self.reading(ctx);
        let mut c = reading.max(self.clocks.lamport.time().saturating_add(1));
        if let Some(ts) = ts {
            if self.variant != Variant::NoCorrection {
                c = c.max(ts.saturating_add(1));
            }
        }
        self.clocks.correction = self.clocks.correction.saturating_add(c - reading);
        self.clocks.lamport.advance_to(c);
        c
    }

    fn report(ctx: &mut Ctx<'_, Self>, lamport: u64, vector: Vec<u64>) {
        ctx.observe(Observation::LogicalTime { lamport, vector });
    }
}

impl Process for LamportProcess {
    type Msg = Msg;
    type Timer = ();
    type Input = Input;
    type Stable = Option<Clocks>;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let Some(c) = ctx.stable() {
            self.clocks = c.clone();
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, _from: NodeId, msg: Msg) {
        let lamport = self.event(ctx, Some(msg.lamport));
        let vector = match self.variant {
            Variant::NoMerge => self.clocks.vector.tick(),
            _ => self.clocks.vector.receive(&msg.vector),
        };
        Self::report(ctx, lamport, vector);
        *ctx.stable_mut() = Some(self.clocks.clone());
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_, Self>, _timer: ()) {}

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Send { to } = input;
        if to >= ctx.nodes() {
            ctx.observe(Observation::Note {
                text: format!("no node {to} to send to"),
            });
            return;
        }
        let lamport = self.event(ctx, None);
        let vector = self.clocks.vector.tick();
        Self::report(ctx, lamport, vector.clone());
        ctx.send(to, Msg { lamport, vector });
        *ctx.stable_mut() = Some(self.clocks.clone());
    }
}

/// `order.lamport`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct LamportSpec;

impl Spec for LamportSpec {
    type Node = LamportProcess;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "order.lamport"
    }
    fn summary(&self) -> &'static str {
        "Lamport and vector clocks on every send and receipt; Fig. 6.9's clocks ticking 6/8/10"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.2.1 (Fig. 6.9), §6.2.2; seed 003"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["lamport_condition", "vector_causality"]
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![
                FaultClass::Loss,
                FaultClass::Duplication,
                FaultClass::Reordering,
                FaultClass::Partitions,
                FaultClass::OnewayPartitions,
                FaultClass::Crashes,
                FaultClass::CrashStop,
                FaultClass::Pauses,
                FaultClass::ClockDrift,
                FaultClass::ClockJumps,
            ],
            summary: "any network or clock fault; crashes with restart (clocks in stable storage) or for good",
            ..FaultModel::default()
        }
    }
    /// One crystal per node, if any; every `send` to an existing node; `step_ms` 10 by default.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_nodes(setup)?;
        let n = setup.nodes();
        if !setup.params.ticks.is_empty() && setup.params.ticks.len() != n {
            return Err(format!(
                "params.ticks has {} entries for {n} nodes",
                setup.params.ticks.len()
            ));
        }
        if let Some((i, t)) = setup
            .params
            .ticks
            .iter()
            .enumerate()
            .find(|(_, &t)| t > MAX_TICK)
        {
            return Err(format!(
                "params.ticks[{i}] = {t} is past {MAX_TICK} (a clock advancing that much a step would saturate)"
            ));
        }
        // Read from the raw workload (as the engine has not parsed it yet): an item that is
        // not an input at all is the engine's error to report.
        for (i, w) in setup.scenario.workload.iter().enumerate() {
            if let Some(to) = w.input.pointer("/send/to").and_then(|v| v.as_u64()) {
                if to as usize >= n {
                    return Err(format!(
                        "workload[{i}] sends to node {to}, which does not exist (nodes = {n})"
                    ));
                }
            }
        }
        let p = &mut setup.params;
        if p.step_ms == 0 {
            p.step_ms = 10;
        }
        p.nodes = n;
        Ok(())
    }
    fn node(&self, variant: Variant, params: &Params, id: NodeId) -> LamportProcess {
        let tick = params.ticks.get(id).copied().unwrap_or(0);
        LamportProcess::new(variant, id, params.nodes, tick, params.step_ms)
    }
    /// Up to `6n` sends, each from a random node to another, at random times.
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        let count = rng.range_u64(1, 6 * nodes as u64);
        let mut items: Vec<Timed<Input>> = (0..count)
            .map(|_| {
                let node = rng.index(nodes);
                let mut to = rng.index(nodes.max(2) - 1);
                if to >= node {
                    to += 1;
                }
                Timed {
                    at_ms: rng.range_u64(0, active_ms),
                    node,
                    input: Input::Send {
                        to: to.min(nodes - 1),
                    },
                }
            })
            .collect();
        items.sort_by_key(|w| w.at_ms);
        items
    }
    /// No liveness property: long enough for the last message to arrive.
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        2 * setup.max_latency_ms() + 10
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, EventKind, Observation, Scenario};

    /// Fig. 6.9: P1, P2, P3 (nodes 0, 1, 2) tick 6, 8, 10 every 10 ms; m1..m4 as in the figure.
    fn fig_6_9(variant: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "order.lamport", "variant": "{variant}", "nodes": 3, "seed": 69,
                "duration_ms": 120, "params": {{"ticks": [6, 8, 10], "step_ms": 10}},
                "network": {{"latency": {{"constant": {{"ms": 10}}}}}},
                "workload": [{{"at_ms": 10, "node": 0, "input": {{"send": {{"to": 1}}}}}},
                             {{"at_ms": 30, "node": 1, "input": {{"send": {{"to": 2}}}}}},
                             {{"at_ms": 60, "node": 2, "input": {{"send": {{"to": 1}}}}}},
                             {{"at_ms": 80, "node": 1, "input": {{"send": {{"to": 0}}}}}}]}}"#
        ))
        .unwrap()
    }

    /// (node, Lamport value) of every event, in trace order.
    fn clocks(sc: &Scenario) -> (Vec<(usize, u64)>, String) {
        let out = find("order.lamport")
            .unwrap()
            .run(sc, RunOptions::default())
            .unwrap();
        let t = out.trace.unwrap();
        let v = t
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Observe {
                    obs: Observation::LogicalTime { lamport, .. },
                } => Some((e.node.unwrap(), *lamport)),
                _ => None,
            })
            .collect();
        (v, out.verdict.label())
    }

    #[test]
    fn fig_6_9_corrected_arrivals_are_61_and_70() {
        let (c, verdict) = clocks(&fig_6_9("correct"));
        // m1: 6 -> 16, m2: 24 -> 40, m3: 60 -> 61 (not 56), m4: 69 -> 70 (not 54)
        assert_eq!(
            c,
            vec![
                (0, 6),
                (1, 16),
                (1, 24),
                (2, 40),
                (2, 60),
                (1, 61),
                (1, 69),
                (0, 70)
            ]
        );
        assert_eq!(verdict, "pass");
    }

    #[test]
    fn fig_6_9a_without_correction_breaks_the_clock_condition() {
        // The run stops at the first violation: m3's receipt at 56.
        let (c, verdict) = clocks(&fig_6_9("no-correction"));
        assert_eq!(c.last(), Some(&(1, 56)), "m3 arrives at 56");
        assert_eq!(verdict, "violation:lamport_condition");
        // Judged on the vector clocks only, the run goes on: Fig. 6.9(a) in full.
        let mut sc = fig_6_9("no-correction");
        sc.checks.properties = Some(vec!["vector_causality".into()]);
        let (c, verdict) = clocks(&sc);
        assert_eq!(
            c,
            vec![
                (0, 6),
                (1, 16),
                (1, 24),
                (2, 40),
                (2, 60),
                (1, 56),
                (1, 64),
                (0, 54)
            ]
        );
        assert_eq!(verdict, "pass");
    }

    #[test]
    fn replays_exactly() {
        assert_replays_exactly(
            "order.lamport",
            &["correct", "no-correction", "no-merge"],
            3,
        );
    }

    #[test]
    fn in_model_fuzzing_passes() {
        assert_in_model_passes("order.lamport", "correct", 200, EngineKind::Native);
        assert_in_model_passes("order.lamport", "correct", 10, EngineKind::Turmoil);
    }

    #[test]
    fn buggy_variants_are_found() {
        assert!(
            first_failing_seed("order.lamport", "no-correction", 200, EngineKind::Native).is_some()
        );
        assert!(first_failing_seed("order.lamport", "no-merge", 200, EngineKind::Native).is_some());
    }
}
