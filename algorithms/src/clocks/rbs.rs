//! Reference Broadcast Synchronization (Elson et al., 2002).
//!
//! **Algorithm** (Tanenbaum & van Steen §6.1.3, Fig. 6.8, seed `000`): a sender (the beacon,
//! `params.beacon`, node 0) broadcasts a reference message every `period_ms`; it carries no
//! time and the sender is out of the loop. Every receiver p records the arrival T_{p,m} on
//! its own raw clock and sends it to the other receivers. With the arrivals of a reference at
//! every receiver, p knows its offset to the receivers' mean, `T_{p,m} − mean_q T_{q,m}`, for
//! each of the last `window` references. In mode `avg` it takes the average of those offsets
//! (Offset\[p,q\] = Σ (T_{p,k} − T_{q,k}) / M of the text); in mode `regression` it fits
//! offset(t) = αt + β by least squares and uses the line at the current time, which follows
//! drift where the average lags behind by half the window. p then corrects its clock to the
//! receivers' mean: a step forward or a slew back. Raw clocks (the clock less the node's own
//! corrections) are used throughout, so corrections do not look like drift. Synchronization
//! is internal, among the receivers; the beacon's clock is not synchronized.
//!
//! **Fault model**: any delay, loss, duplication, reordering, partitions, crashes with
//! restart, pauses, drift up to 100 ppm, clock jumps scaled to at most 50 ms (see
//! `clock.cristian`); a reference counts only when every receiver reported it.
//!
//! **Promises**: `bounded_skew` among the receivers (I = s + 4ρ(W+1)(Δ+2d_max) averaging,
//! L·s + 4ρ(Δ+2d_max) with regression), `monotonic_clock`.

use super::{correct, raw_now, Corrections, NoInput, Textbook};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{Ctx, NodeId, Process, Scenario, SimRng};
use std::collections::BTreeMap;

/// How the offsets of the window are combined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Average of the offsets.
    #[default]
    Avg,
    /// Least-squares line offset(t) = αt + β, read at the current time.
    Regression,
}

/// Parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Reference period, ms of the beacon's clock.
    pub period_ms: u64,
    /// The reference sender.
    pub beacon: NodeId,
    /// References used for an estimate.
    pub window: usize,
    /// `avg` or `regression`.
    pub mode: Mode,
    /// Number of nodes of the run: not a scenario parameter, [`RbsSpec`]'s `prepare` sets it
    /// from the scenario.
    #[serde(skip)]
    pub nodes: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            period_ms: sincro_checkers::bounded_skew::DEFAULT_PERIOD_MS,
            beacon: 0,
            window: sincro_checkers::bounded_skew::DEFAULT_SAMPLES,
            mode: Mode::Avg,
            nodes: 0,
        }
    }
}

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// A reference broadcast, named by the beacon's clock when sent (an id only).
    Reference {
        /// Reference id.
        id: i64,
    },
    /// A receiver's raw arrival time of reference `id`.
    Arrival {
        /// Reference id.
        id: i64,
        /// Raw arrival time, ns.
        raw: i64,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Broadcast the next reference.
    Beacon,
}

/// A node (the beacon or a receiver).
#[derive(Debug)]
pub struct Rbs {
    params: Params,
    receivers: usize,
    /// reference id -> receiver -> raw arrival
    arrivals: BTreeMap<i64, BTreeMap<NodeId, i64>>,
    last_used: Option<i64>,
}

/// Least-squares line through `points` (x, y), as (α, β); `None` with fewer than two
/// distinct x.
pub fn least_squares(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let alpha = sxy / sxx;
    Some((alpha, my - alpha * mx))
}

impl Rbs {
    /// A node of a run with `nodes` nodes.
    pub fn new(params: Params, nodes: usize) -> Self {
        Rbs {
            params,
            receivers: nodes.saturating_sub(1),
            arrivals: BTreeMap::new(),
            last_used: None,
        }
    }

    fn record(&mut self, id: i64, node: NodeId, raw: i64) {
        self.arrivals.entry(id).or_default().insert(node, raw);
        while self.arrivals.len() > 4 * self.params.window.max(1) {
            self.arrivals.pop_first();
        }
    }

    /// Offset of this node's raw clock to the receivers' mean, at raw time `raw_now`.
    fn estimate(&self, me: NodeId, raw_now: i64) -> Option<f64> {
        let complete: Vec<(f64, f64)> = self
            .arrivals
            .values()
            .filter(|a| a.len() == self.receivers)
            .filter_map(|a| {
                let mine = *a.get(&me)?;
                let mean = a.values().map(|&r| r as f64).sum::<f64>() / a.len() as f64;
                // x relative to now keeps the regression well conditioned
                Some(((mine - raw_now) as f64, mine as f64 - mean))
            })
            .collect();
        let window = &complete[complete.len().saturating_sub(self.params.window.max(1))..];
        if window.is_empty() {
            return None;
        }
        let avg = window.iter().map(|p| p.1).sum::<f64>() / window.len() as f64;
        Some(match self.params.mode {
            Mode::Avg => avg,
            // the line at x = 0, i.e. now
            Mode::Regression => least_squares(window).map_or(avg, |(_, beta)| beta),
        })
    }
}

impl Process for Rbs {
    type Msg = Msg;
    type Timer = Timer;
    type Input = NoInput;
    type Stable = Corrections;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if ctx.id() == self.params.beacon {
            ctx.set_timer_ms(self.params.period_ms, Timer::Beacon);
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        let me = ctx.id();
        match msg {
            Msg::Reference { id } if from == self.params.beacon && me != self.params.beacon => {
                if self.arrivals.get(&id).is_some_and(|a| a.contains_key(&me)) {
                    return; // a duplicate
                }
                let raw = raw_now(ctx);
                self.record(id, me, raw);
                let beacon = self.params.beacon;
                let others: Vec<NodeId> = ctx
                    .neighbours()
                    .iter()
                    .copied()
                    .filter(|&q| q != beacon)
                    .collect();
                for q in others {
                    ctx.send(q, Msg::Arrival { id, raw });
                }
                self.maybe_correct(ctx, id);
            }
            Msg::Arrival { id, raw } if from != self.params.beacon && me != self.params.beacon => {
                self.record(id, from, raw);
                self.maybe_correct(ctx, id);
            }
            Msg::Reference { .. } | Msg::Arrival { .. } => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Beacon => {
                let id = ctx.now();
                ctx.broadcast(Msg::Reference { id });
                ctx.set_timer_ms(self.params.period_ms, Timer::Beacon);
            }
        }
    }

    fn on_input(&mut self, _ctx: &mut Ctx<'_, Self>, input: NoInput) {
        match input {}
    }
}

impl Rbs {
    /// Once the newest reference is complete, correct towards the receivers' mean.
    fn maybe_correct(&mut self, ctx: &mut Ctx<'_, Self>, id: i64) {
        let complete = self
            .arrivals
            .get(&id)
            .is_some_and(|a| a.len() == self.receivers);
        if !complete || self.last_used.is_some_and(|l| l >= id) {
            return;
        }
        self.last_used = Some(id);
        let now = ctx.now();
        let applied = ctx.stable().applied(now);
        if let Some(offset) = self.estimate(ctx.id(), now - applied) {
            // the clock should read raw − offset: its correction should be −offset
            correct(ctx, -offset.round() as i64 - applied, false);
        }
    }
}

/// `clock.rbs`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct RbsSpec;

impl Spec for RbsSpec {
    type Node = Rbs;
    type Params = Params;
    type Variant = Textbook;

    fn name(&self) -> &'static str {
        "clock.rbs"
    }
    fn summary(&self) -> &'static str {
        "Reference Broadcast Sync: receivers exchange arrival times; average or least-squares offset(t) = αt + β"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.1.3 (Fig. 6.8)"
    }
    fn properties(&self) -> Vec<&'static str> {
        super::PROPERTIES.to_vec()
    }
    /// A beacon and two receivers (`prepare` refuses fewer).
    fn nodes_min(&self) -> usize {
        3
    }
    fn fault_model(&self) -> FaultModel {
        super::fault_model()
    }
    /// No workload; a beacon and at least two receivers.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_no_workload(self, setup)?;
        super::check_period(setup.params.period_ms, setup)?;
        super::check_samples("window", setup.params.window)?;
        super::check_node("beacon", setup.params.beacon, setup)?;
        if setup.nodes() < 3 {
            return Err(format!(
                "clock.rbs needs a beacon and at least two receivers (nodes >= 3), got nodes = {}",
                setup.nodes()
            ));
        }
        setup.params.nodes = setup.nodes();
        Ok(())
    }
    fn node(&self, _: Textbook, params: &Params, _id: NodeId) -> Rbs {
        Rbs::new(params.clone(), params.nodes)
    }
    /// None: the beacon broadcasts on its own timer.
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
    use super::*;
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::EngineKind;

    #[test]
    fn replays_exactly() {
        assert_replays_exactly("clock.rbs", &["correct"], 2);
    }

    #[test]
    fn in_model_fuzzing_passes() {
        assert_in_model_passes("clock.rbs", "correct", 40, EngineKind::Native);
    }

    #[test]
    fn least_squares_recovers_a_line() {
        let pts: Vec<(f64, f64)> = (0..8).map(|i| (i as f64, 3.0 * i as f64 + 2.0)).collect();
        let (a, b) = least_squares(&pts).unwrap();
        assert!((a - 3.0).abs() < 1e-9 && (b - 2.0).abs() < 1e-9);
        assert!(least_squares(&pts[..1]).is_none());
    }

    #[test]
    fn params_are_checked() {
        let sc = sincro_harness::Scenario::from_json(
            r#"{"algorithm": "clock.rbs", "nodes": 3, "seed": 1, "duration_ms": 100,
                "params": {"mode": "median"}}"#,
        )
        .unwrap();
        let e = find("clock.rbs")
            .unwrap()
            .run(&sc, Default::default())
            .unwrap_err();
        assert!(e.0.contains("params"), "{e}");
    }
}
