//! Physical clock synchronization (Tanenbaum & van Steen §6.1, seed `000` §6.1.3; seed `003`).
//!
//! Every algorithm runs on the harness's per-node drifting clocks and corrects its software
//! clock only through [`Ctx::step_clock`] and [`Ctx::slew_clock`]: a clock that is behind is
//! stepped forward, a clock that is ahead is slewed back at the 500 ppm slew rate, never set
//! back ("time can never run backwards"). Promised properties: `bounded_skew` (after the
//! faults stop and a convergence time, see `sincro_checkers::bounded_skew`) and
//! `monotonic_clock`.
//!
//! Each algorithm's file holds its [`Process`], its [`Spec`] and its pinned tests. This module
//! holds what the family shares: the corrections, the fault model, the parameter checks and
//! the generated scenarios (no workload; drift at most 100 ppm; clock jumps at most 50 ms; a
//! reference clock at the server; long enough to converge).

pub mod berkeley;
pub mod cristian;
pub mod ntp_peers;
pub mod rbs;
pub mod samples;

use crate::spec::{Setup, Spec};
use crate::Algorithm;
use serde::{Deserialize, Serialize};
use sincro_checkers::bounded_skew;
use sincro_harness::clock::SLEW_RATE_PPB;
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::scenario::NodeClock;
use sincro_harness::{Ctx, Fault, NodeId, Process, Scenario};

pub use samples::{Filter, Sample};

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[
    &cristian::CristianSpec,
    &ntp_peers::NtpPeersSpec,
    &berkeley::BerkeleySpec,
    &rbs::RbsSpec,
];

/// Largest drift of the family's model, ppm: a fifth of the 500 ppm slew rate (the fault
/// model's [`FaultModel::drift_ppm_max`]).
pub const MAX_RHO_PPM: u32 = 100;

/// Largest clock jump of the family's model, ms (the fault model's
/// [`FaultModel::clock_jump_ms_max`]: generated jumps of up to 500 ms are scaled down ten
/// times).
pub const MAX_JUMP_MS: u32 = 50;

/// The properties every clock synchronization algorithm promises.
pub const PROPERTIES: [&str; 2] = [bounded_skew::PROPERTY, "monotonic_clock"];

crate::variants! {
    /// The variant of the clock synchronization algorithms without twins.
    pub enum Textbook {
        Correct = "correct", "the textbook algorithm; steps forward, slews back";
    }
}

/// The fault model every clock synchronization algorithm declares.
pub fn fault_model() -> FaultModel {
    FaultModel {
        tolerates: vec![
            FaultClass::Loss,
            FaultClass::Duplication,
            FaultClass::Reordering,
            FaultClass::Partitions,
            FaultClass::OnewayPartitions,
            FaultClass::Crashes,
            FaultClass::Pauses,
            FaultClass::ClockDrift,
            FaultClass::ClockJumps,
        ],
        summary: "any delay, loss, duplication, reordering, partitions, crashes with restart, pauses (not crash-stop: with its time source or master gone for good, nothing keeps the clocks together); generated pauses over 30 ms shortened 10x (the skew is judged only after the time to slew away what every pause could have cost); drift up to 100 ppm (generated rho capped: a clock faster than the 500 ppm slew rate cannot be held back without stepping it back); clock jumps (generated ones scaled down 10x, to at most 50 ms: a 500 ms jump ahead takes 1000 s to slew back); skew judged after the faults stop plus the time to slew away the worst offset",
        drift_ppm_max: Some(MAX_RHO_PPM),
        clock_jump_ms_max: Some(MAX_JUMP_MS),
        ..FaultModel::default()
    }
}

/// These algorithms run on their own timers: the workload must be empty.
pub fn check_no_workload<S: Spec>(spec: &S, setup: &Setup<'_, S>) -> Result<(), String> {
    if !setup.scenario.workload.is_empty() {
        return Err(format!(
            "{} takes no workload (it runs on its own timers)",
            spec.name()
        ));
    }
    Ok(())
}

/// `params.<what>` names an existing node.
pub fn check_node<S: Spec>(what: &str, node: NodeId, setup: &Setup<'_, S>) -> Result<(), String> {
    if node >= setup.nodes() {
        return Err(format!(
            "params.{what} = {node} does not exist (nodes = {})",
            setup.nodes()
        ));
    }
    Ok(())
}

/// `params.max_delay_ms`, the clock filter's bound on a sample's delay δ (half a round
/// trip), is within a day and exceeds the links' largest usual one-way latency: a smaller
/// bound discards samples of ordinary round trips, and with none kept the correct variant
/// never synchronizes with no fault at all (a misconfiguration, not a finding). A delay
/// spike of the fault plan is a fault: its samples may be discarded.
pub fn check_max_delay<S: Spec>(max_delay_ms: u64, setup: &Setup<'_, S>) -> Result<(), String> {
    if max_delay_ms > 86_400_000 {
        return Err(format!(
            "params.max_delay_ms must be within [1, 86400000], got {max_delay_ms}"
        ));
    }
    // as a clock fast by the run's drift bound counts it
    let lat = setup.for_fast_clocks_ms(setup.usual_latency_ms());
    if max_delay_ms <= lat {
        return Err(format!(
            "params.max_delay_ms = {max_delay_ms} must exceed the links' largest one-way \
             latency ({lat} ms): the samples of ordinary round trips would be discarded"
        ));
    }
    Ok(())
}

/// `params.timeout_ms`, a daemon's wait for the answers to its poll, exceeds a round trip of
/// the usual links: a shorter wait ignores every answer and the correct variant never
/// synchronizes with no fault at all. A delay spike of the fault plan is a fault: not counted.
pub fn check_answer_timeout<S: Spec>(timeout_ms: u64, setup: &Setup<'_, S>) -> Result<(), String> {
    let rtt = setup.for_fast_clocks_ms(2 * setup.usual_latency_ms());
    if timeout_ms <= rtt {
        return Err(format!(
            "params.timeout_ms = {timeout_ms} must exceed a round trip of the links ({rtt} \
             ms): every answer would come too late"
        ));
    }
    Ok(())
}

/// `params.period_ms` is within a day and longer than a round trip.
pub fn check_period<S: Spec>(period_ms: u64, setup: &Setup<'_, S>) -> Result<(), String> {
    if period_ms == 0 || period_ms > 86_400_000 {
        return Err(format!(
            "params.period_ms must be within [1, 86400000], got {period_ms}"
        ));
    }
    let rtt = 2 * setup.max_latency_ms();
    if period_ms <= rtt {
        return Err(format!(
            "params.period_ms = {period_ms} must exceed a round trip ({rtt} ms)"
        ));
    }
    Ok(())
}

/// `params.<what>`, a sample count, is within `[1, 1024]`.
pub fn check_samples(what: &str, n: usize) -> Result<(), String> {
    if !(1..=1024).contains(&n) {
        return Err(format!("params.{what} must be within [1, 1024], got {n}"));
    }
    Ok(())
}

/// The liveness bound of the family: the convergence time of `bounded_skew`.
pub fn liveness_bound_ms<S: Spec>(setup: &Setup<'_, S>) -> u64 {
    bounded_skew::convergence_ms(setup.scenario)
}

/// Completes a generated scenario of the family: no workload, the clocks brought inside the
/// family's model ([`fit_clocks`], with a perfect reference at node 0 when `reference`), and
/// a run long enough to converge after the faults stop and then judge ten periods.
pub fn complete(draft: Draft, opts: &GenOptions, reference: bool) -> Scenario {
    let mut sc = draft.scenario;
    sc.workload = Vec::new();
    fit_clocks(&mut sc, reference);
    if shorten_pauses(&mut sc) {
        sc.description = format!(
            "{}; pauses over {PAUSE_SHORT_MS} ms shortened {PAUSE_SCALE}x for the clock family",
            sc.description
        );
    }
    let mut period_ms = sc
        .params
        .get("period_ms")
        .and_then(|v| v.as_u64())
        .unwrap_or(bounded_skew::DEFAULT_PERIOD_MS);
    // A delay spike outside the family's model (`--beyond-model`) may outlast half a period,
    // which `prepare` refuses (a round trip must fit in a period, and Berkeley's timeout
    // below it): the period is lengthened to whole seconds past it, and the campaign runs
    // the spike instead of aborting on a refused scenario.
    let fits_ms = 2 * crate::spec::max_latency_ms(&sc) + 3;
    if period_ms < fits_ms {
        period_ms = fits_ms.div_ceil(1000) * 1000;
        if let Some(params) = sc.params.as_object_mut() {
            params.insert("period_ms".into(), period_ms.into());
        } else {
            sc.params = serde_json::json!({ "period_ms": period_ms });
        }
        sc.description = format!(
            "{}; resync period lengthened to {period_ms} ms, past a round trip of its delay \
             spikes",
            sc.description
        );
    }
    sc.duration_ms =
        sc.quiet_from_ms().max(opts.active_ms) + bounded_skew::convergence_ms(&sc) + 10 * period_ms;
    sc
}

/// Pauses up to this long, ms, are left as they are by [`shorten_pauses`].
pub const PAUSE_SHORT_MS: u64 = 30;

/// How many times shorter a generated pause longer than [`PAUSE_SHORT_MS`] is in the
/// family's scenarios.
///
/// `bounded_skew` starts judging only after the time to slew away the worst offset the faults
/// can have built up ([`bounded_skew::convergence_ms`]), and it counts every pause in full (a
/// paused node reads a message's arrival late by up to the pause). Generated pauses of up to
/// 300 ms each, one to four of them plus those at protocol moments, made that wait most of a
/// clock run: about 1,100 s of simulated time on average, of which the judged part is ten
/// periods (40 s). A pause a tenth as long is still longer than any generated delay (a late
/// sample that the filters must reject), and the runs are about half as long.
pub const PAUSE_SCALE: u64 = 10;

/// Shortens every pause of a generated scenario longer than [`PAUSE_SHORT_MS`]
/// [`PAUSE_SCALE`] times (rounded up; so shortening twice changes nothing): the resume that
/// ends it comes earlier, and a pause of a node already paused (which
/// changed nothing) is dropped, so it cannot start a new pause after the shortened one. The
/// plan stays sorted by time. True when the plan changed.
pub fn shorten_pauses(sc: &mut Scenario) -> bool {
    let mut changed = false;
    let nodes = sc
        .faults
        .iter()
        .filter_map(|f| f.fault.node())
        .max()
        .map_or(0, |n| n + 1);
    // When each node's current pause began (the plan is in time order).
    let mut since: Vec<Option<u64>> = vec![None; nodes];
    let mut keep = vec![true; sc.faults.len()];
    for (i, f) in sc.faults.iter_mut().enumerate() {
        match f.fault {
            Fault::Pause { node } => {
                if since[node].is_some() {
                    keep[i] = false;
                    changed = true;
                } else {
                    since[node] = Some(f.at_ms);
                }
            }
            Fault::Resume { node } => {
                if let Some(at) = since[node].take() {
                    let len = f.at_ms.saturating_sub(at);
                    if len > PAUSE_SHORT_MS {
                        let short = len.div_ceil(PAUSE_SCALE);
                        f.at_ms = at + short;
                        changed = true;
                    }
                }
            }
            _ => {}
        }
    }
    if changed {
        let mut i = 0;
        sc.faults.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        sc.faults.sort_by_key(|f| f.at_ms); // stable: faults at one time keep their order
    }
    changed
}

/// Gives a generated scenario a perfect reference clock at node 0 when `reference` and the
/// clocks can drift or start apart. (The generator has already brought drift and jumps inside
/// the family's caps, [`MAX_RHO_PPM`] and [`MAX_JUMP_MS`], through
/// [`FaultModel::fit_clocks`].)
pub fn fit_clocks(sc: &mut Scenario, reference: bool) {
    if reference && (sc.clocks.rho_ppm > 0.0 || sc.clocks.offset_ms_max > 0.0) {
        // One entry per node: a scenario fitted twice keeps one.
        sc.clocks.nodes.retain(|nc| nc.node != 0);
        sc.clocks.nodes.push(NodeClock {
            node: 0,
            offset_ms: 0.0,
            drift_ppm: 0.0,
        });
    }
}

/// No workload: clock synchronization runs on its own timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoInput {}

/// A node's record of the corrections it made to its own clock (kept in stable storage, as
/// an OS kernel keeps its `adjtime` state across a daemon's restart).
///
/// `applied(now)` is the part already applied: steps at once, a slew at 500 ppm of elapsed
/// local time (the harness slews at 500 ppm of global time; the difference is ρ·500 ppm of the
/// slew's length, far below a microsecond). `now − applied(now)` is the node's *raw* clock: its
/// hardware clock, which is what filters and regressions must use so that the node's own
/// corrections do not look like drift.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Corrections {
    folded_ns: i64,
    /// (local time the slew started, amount)
    slew: Option<(i64, i64)>,
}

impl Corrections {
    /// Total correction applied by local time `now_ns`.
    pub fn applied(&self, now_ns: i64) -> i64 {
        self.folded_ns
            + self.slew.map_or(0, |(start, amount)| {
                let dt = (now_ns - start).max(0) as i128;
                let max = (dt * SLEW_RATE_PPB as i128 / 1_000_000_000) as i64;
                amount.clamp(-max, max)
            })
    }

    fn fold(&mut self, now_ns: i64) {
        self.folded_ns = self.applied(now_ns);
        self.slew = None;
    }
}

/// Node processes whose stable storage is their [`Corrections`].
pub trait Corrects: Process<Stable = Corrections> {}
impl<P: Process<Stable = Corrections>> Corrects for P {}

/// The raw (uncorrected) clock reading.
pub fn raw_now<P: Corrects>(ctx: &Ctx<'_, P>) -> i64 {
    let now = ctx.now();
    now - ctx.stable().applied(now)
}

/// Corrects the clock by `delta_ns`: forward by a step, backward by a slew (replacing an
/// unfinished one: the offset was measured on the clock as it is now). With `step_back`
/// (a buggy variant) a negative correction is a step too.
pub fn correct<P: Corrects>(ctx: &mut Ctx<'_, P>, delta_ns: i64, step_back: bool) {
    let now = ctx.now();
    let mut log = *ctx.stable();
    log.fold(now);
    if delta_ns > 0 || (step_back && delta_ns < 0) {
        ctx.step_clock(delta_ns);
        log.folded_ns += delta_ns;
    } else {
        // also a zero correction: it cancels what is left of a slew that is no longer needed
        ctx.slew_clock(delta_ns);
        if delta_ns != 0 {
            log.slew = Some((now, delta_ns));
        }
    }
    *ctx.stable_mut() = log;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use sincro_checkers::BoundedSkew;
    use sincro_harness::engine::RunOptions;
    use sincro_harness::fault::FaultClass as FC;

    /// The family's algorithms.
    const CLOCKS: [&str; 4] = [
        "clock.cristian",
        "clock.ntp-peers",
        "clock.berkeley",
        "clock.rbs",
    ];

    /// Generated runs are judged, not vacuous: skew is measured after convergence (and stays
    /// within the bound), the run lasts long enough, and the reference has no drift.
    #[test]
    fn generated_runs_are_judged_after_convergence() {
        for name in CLOCKS {
            let alg = find(name).unwrap();
            let mut judged = 0;
            for seed in 0..12 {
                let sc = alg.generate("correct", seed, &GenOptions::default());
                let mut c = BoundedSkew::for_scenario(&sc);
                assert!(c.spec().converge_from_ns < sc.duration_ms * 1_000_000);
                let out = alg.run(&sc, RunOptions::default()).unwrap();
                assert!(out.verdict.is_pass(), "{name} seed {seed}: {}", out.verdict);
                c.check(out.trace.as_ref().unwrap(), sc.duration_ms * 1_000_000)
                    .unwrap();
                assert!(c.max_internal_ns() <= c.spec().internal_bound_ns as i64);
                if sc.clocks.rho_ppm > 0.0 {
                    assert!(
                        c.max_internal_ns() > 0,
                        "{name} seed {seed}: nothing measured"
                    );
                    judged += 1;
                }
                assert!(sc.clocks.rho_ppm <= f64::from(MAX_RHO_PPM));
            }
            assert!(judged > 0, "{name}: no generated run had drifting clocks");
        }
    }

    #[test]
    fn bad_params_are_named() {
        let alg = find("clock.cristian").unwrap();
        let sc = Scenario::from_json(
            r#"{"algorithm": "clock.cristian", "nodes": 3, "seed": 1, "duration_ms": 100,
                "params": {"server": 9}}"#,
        )
        .unwrap();
        assert!(alg
            .run(&sc, RunOptions::default())
            .unwrap_err()
            .0
            .contains("params.server"));
        let sc = Scenario::from_json(
            r#"{"algorithm": "clock.berkeley", "nodes": 3, "seed": 1, "duration_ms": 100,
                "params": {"period_ms": 5}}"#,
        )
        .unwrap();
        let e = find("clock.berkeley")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap_err();
        assert!(e.0.contains("period_ms"), "{e}");
    }

    /// `fuzz --beyond-model` draws delay spikes outside the clocks' model, some longer than
    /// half a resync period: the generator lengthens the period past them, so every clock
    /// algorithm runs them instead of refusing the scenario (which aborted the campaign).
    #[test]
    fn a_delay_spike_longer_than_half_the_period_lengthens_it() {
        let opts = GenOptions {
            beyond_model: true,
            ..GenOptions::default()
        };
        for name in CLOCKS {
            let alg = find(name).unwrap();
            let mut lengthened = 0;
            for seed in 0..16 {
                let sc = alg.generate("correct", seed, &opts);
                if !sc.description.contains("period lengthened") {
                    continue;
                }
                lengthened += 1;
                // Accepted with its lengthened period (the other seeds' runs are the sweeps').
                if let Err(e) = alg.run(&sc, RunOptions::default()) {
                    panic!("{name} seed {seed}: refused: {e}");
                }
            }
            assert!(lengthened > 0, "{name}: no seed drew a long spike");
        }
    }

    #[test]
    fn generated_pauses_are_shortened_and_the_plan_stays_valid() {
        let alg = find("clock.cristian").unwrap();
        let opts = GenOptions {
            only: Some(FC::Pauses),
            ..GenOptions::default()
        };
        let mut shortened = 0;
        for seed in 0..40 {
            let sc = alg.generate("correct", seed, &opts);
            sc.validate().unwrap();
            assert!(sc.faults.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
            // Replayed as the engine applies them: a pause of a paused node changes nothing.
            let mut since = vec![None; sc.nodes];
            for f in &sc.faults {
                match f.fault {
                    Fault::Pause { node } => {
                        assert!(
                            since[node].is_none(),
                            "seed {seed}: a pause of a paused node"
                        );
                        since[node] = Some(f.at_ms);
                    }
                    Fault::Resume { node } => {
                        if let Some(at) = since[node].take() {
                            let len = f.at_ms - at;
                            assert!(len <= 300 / PAUSE_SCALE, "seed {seed}: a pause of {len} ms");
                        }
                    }
                    _ => {}
                }
            }
            assert!(
                since.iter().all(Option::is_none),
                "seed {seed}: a pause never ends"
            );
            shortened += usize::from(sc.description.contains("shortened 10x"));
        }
        assert!(shortened > 10, "only {shortened} of 40 seeds had a pause");
        let mut sc = alg.generate("correct", 1, &opts);
        sc.faults = vec![
            sincro_harness::TimedFault {
                at_ms: 10,
                fault: Fault::Pause { node: 1 },
            },
            sincro_harness::TimedFault {
                at_ms: 12,
                fault: Fault::Heal,
            },
            sincro_harness::TimedFault {
                at_ms: 110,
                fault: Fault::Resume { node: 1 },
            },
        ];
        assert!(shorten_pauses(&mut sc));
        let times: Vec<u64> = sc.faults.iter().map(|f| f.at_ms).collect();
        assert_eq!(times, [10, 12, 20]);
        assert!(!shorten_pauses(&mut sc), "already short");
        // A second pause inside the first was a no-op: dropped, not left to start a new one.
        let tf = |at_ms, fault| sincro_harness::TimedFault { at_ms, fault };
        sc.faults = vec![
            tf(0, Fault::Pause { node: 1 }),
            tf(50, Fault::Pause { node: 1 }),
            tf(200, Fault::Resume { node: 1 }),
        ];
        assert!(shorten_pauses(&mut sc));
        assert_eq!(
            sc.faults,
            vec![
                tf(0, Fault::Pause { node: 1 }),
                tf(20, Fault::Resume { node: 1 })
            ]
        );
    }

    #[test]
    fn corrections_track_steps_and_slews() {
        let mut c = Corrections::default();
        c.fold(0);
        c.folded_ns += 10;
        c.fold(5);
        c.slew = Some((5, -1_000));
        assert_eq!(c.applied(5), 10);
        assert_eq!(c.applied(5 + 1_000_000), 10 - 500);
        assert_eq!(c.applied(5 + 10_000_000), 10 - 1_000);
    }
}
