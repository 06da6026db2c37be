//! The clock synchronization algorithms as registered [`Algorithm`]s: names, variants, fault
//! models, parameter checks, and generated scenarios (no workload; drift at most 100 ppm;
//! clock jumps at most 50 ms; a reference clock at the server; long enough to converge).

use super::{berkeley, cristian, ntp_peers, rbs};
use crate::registry::{
    check_variant, checkers, max_latency_ms, parse_params, Algorithm, AlgorithmInfo, VariantInfo,
};
use sincro_checkers::bounded_skew;
use sincro_harness::engine::{self, Factory, Outcome, RunOptions};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::scenario::NodeClock;
use sincro_harness::{Fault, NodeId, Scenario, ScenarioError, SimRng, WorkloadItem};
use std::rc::Rc;

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[
    &ClockAlg(Kind::Cristian),
    &ClockAlg(Kind::NtpPeers),
    &ClockAlg(Kind::Berkeley),
    &ClockAlg(Kind::Rbs),
];

/// Largest drift of generated scenarios, ppm: a fifth of the 500 ppm slew rate.
pub const MAX_RHO_PPM: f64 = 100.0;

/// Largest clock jump of generated scenarios, ms.
pub const MAX_JUMP_MS: f64 = 50.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Cristian,
    NtpPeers,
    Berkeley,
    Rbs,
}

struct ClockAlg(Kind);

const PROPERTIES: [&str; 2] = [bounded_skew::PROPERTY, "monotonic_clock"];

fn model() -> FaultModel {
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
        summary: "any delay, loss, duplication, reordering, partitions, crashes, pauses; drift up to 100 ppm (generated rho capped: a clock faster than the 500 ppm slew rate cannot be held back without stepping it back); clock jumps (generated ones scaled down 10x, to at most 50 ms: a 500 ms jump ahead takes 1000 s to slew back); skew judged after the faults stop plus the time to slew away the worst offset",
    }
}

fn check_node(what: &str, node: NodeId, sc: &Scenario) -> Result<(), ScenarioError> {
    if node >= sc.nodes {
        return Err(ScenarioError(format!(
            "params.{what} = {node} does not exist (nodes = {})",
            sc.nodes
        )));
    }
    Ok(())
}

fn check_period(period_ms: u64, sc: &Scenario) -> Result<(), ScenarioError> {
    if period_ms == 0 || period_ms > 86_400_000 {
        return Err(ScenarioError(format!(
            "params.period_ms must be within [1, 86400000], got {period_ms}"
        )));
    }
    let rtt = 2 * max_latency_ms(sc);
    if period_ms <= rtt {
        return Err(ScenarioError(format!(
            "params.period_ms = {period_ms} must exceed a round trip ({rtt} ms)"
        )));
    }
    Ok(())
}

fn check_samples(what: &str, n: usize) -> Result<(), ScenarioError> {
    if !(1..=1024).contains(&n) {
        return Err(ScenarioError(format!(
            "params.{what} must be within [1, 1024], got {n}"
        )));
    }
    Ok(())
}

impl ClockAlg {
    fn period_ms(&self, sc: &Scenario) -> u64 {
        sc.params
            .get("period_ms")
            .and_then(|v| v.as_u64())
            .unwrap_or(bounded_skew::DEFAULT_PERIOD_MS)
    }
}

impl Algorithm for ClockAlg {
    fn info(&self) -> AlgorithmInfo {
        let correct = VariantInfo {
            name: "correct",
            buggy: false,
            summary: "the textbook algorithm; steps forward, slews back",
        };
        let (name, summary, source, variants) = match self.0 {
            Kind::Cristian => (
                "clock.cristian",
                "Cristian / NTP client-server: θ and δ from T1..T4, 8 samples, θ of the least δ",
                "seed 000 §6.1.3 (Fig. 6.6); seed 003",
                vec![correct],
            ),
            Kind::NtpPeers => (
                "clock.ntp-peers",
                "NTP symmetric peers with strata: adjust only towards a lower stratum k, become k+1",
                "seed 000 §6.1.3 (NTP)",
                vec![correct],
            ),
            Kind::Berkeley => (
                "clock.berkeley",
                "Berkeley: an active daemon polls, averages with round-trip correction, sends each its adjustment",
                "seed 000 §6.1.3 (Fig. 6.7); seed 003",
                vec![
                    correct,
                    VariantInfo {
                        name: "step-backwards",
                        buggy: true,
                        summary: "negative adjustments are applied as steps: clocks run backwards",
                    },
                ],
            ),
            Kind::Rbs => (
                "clock.rbs",
                "Reference Broadcast Sync: receivers exchange arrival times; average or least-squares offset(t) = αt + β",
                "seed 000 §6.1.3 (Fig. 6.8)",
                vec![correct],
            ),
        };
        AlgorithmInfo {
            name,
            summary,
            source,
            variants,
            properties: PROPERTIES.to_vec(),
            fault_model: model(),
        }
    }

    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        let info = self.info();
        check_variant(&info, &sc.variant)?;
        if !sc.workload.is_empty() {
            return Err(ScenarioError(format!(
                "{} takes no workload (it runs on its own timers)",
                info.name
            )));
        }
        let checkers = checkers(&info, sc, 0)?;
        match self.0 {
            Kind::Cristian => {
                let mut p: cristian::Params = parse_params(sc)?;
                if p.max_delay_ms == 0 {
                    p.max_delay_ms = max_latency_ms(sc) + 1;
                }
                check_period(p.period_ms, sc)?;
                check_samples("samples", p.samples)?;
                check_node("server", p.server, sc)?;
                let f: Factory<cristian::Cristian> =
                    Rc::new(move |_| cristian::Cristian::new(p.clone()));
                engine::run(sc, f, checkers, options)
            }
            Kind::NtpPeers => {
                let mut p: ntp_peers::Params = parse_params(sc)?;
                if p.max_delay_ms == 0 {
                    p.max_delay_ms = max_latency_ms(sc) + 1;
                }
                check_period(p.period_ms, sc)?;
                check_samples("samples", p.samples)?;
                check_node("server", p.server, sc)?;
                let f: Factory<ntp_peers::NtpPeer> =
                    Rc::new(move |id| ntp_peers::NtpPeer::new(id, p.clone()));
                engine::run(sc, f, checkers, options)
            }
            Kind::Berkeley => {
                let p: berkeley::Params = parse_params(sc)?;
                check_period(p.period_ms, sc)?;
                check_node("daemon", p.daemon, sc)?;
                let timeout_ms = if p.timeout_ms > 0 {
                    p.timeout_ms
                } else {
                    2 * max_latency_ms(sc) + 2
                };
                if timeout_ms >= p.period_ms {
                    return Err(ScenarioError(format!(
                        "params.timeout_ms = {timeout_ms} must be below params.period_ms = {}",
                        p.period_ms
                    )));
                }
                let variant = match sc.variant.as_str() {
                    "step-backwards" => berkeley::Variant::StepBackwards,
                    _ => berkeley::Variant::Correct,
                };
                let f: Factory<berkeley::Berkeley> =
                    Rc::new(move |_| berkeley::Berkeley::new(p.clone(), timeout_ms, variant));
                engine::run(sc, f, checkers, options)
            }
            Kind::Rbs => {
                let p: rbs::Params = parse_params(sc)?;
                check_period(p.period_ms, sc)?;
                check_samples("window", p.window)?;
                check_node("beacon", p.beacon, sc)?;
                if sc.nodes < 3 {
                    return Err(ScenarioError(format!(
                        "clock.rbs needs a beacon and at least two receivers (nodes >= 3), got nodes = {}",
                        sc.nodes
                    )));
                }
                let n = sc.nodes;
                let f: Factory<rbs::Rbs> = Rc::new(move |_| rbs::Rbs::new(p.clone(), n));
                engine::run(sc, f, checkers, options)
            }
        }
    }

    fn workload(&self, _rng: &mut SimRng, _nodes: usize, _active_ms: u64) -> Vec<WorkloadItem> {
        Vec::new()
    }

    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        bounded_skew::convergence_ms(sc)
    }

    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        let mut sc = draft.scenario;
        sc.workload = Vec::new();
        fit_clocks(&mut sc, matches!(self.0, Kind::Cristian | Kind::NtpPeers));
        sc.duration_ms = sc.quiet_from_ms().max(opts.active_ms)
            + bounded_skew::convergence_ms(&sc)
            + 10 * self.period_ms(&sc);
        sc
    }
}

/// Brings a generated scenario inside the family's clock model: drift at most
/// [`MAX_RHO_PPM`] (drift changes scaled with it), clock jumps at most [`MAX_JUMP_MS`], and,
/// with `reference`, node 0's clock a perfect reference.
fn fit_clocks(sc: &mut Scenario, reference: bool) {
    if sc.clocks.rho_ppm > MAX_RHO_PPM {
        let scale = MAX_RHO_PPM / sc.clocks.rho_ppm;
        sc.clocks.rho_ppm = MAX_RHO_PPM;
        for f in &mut sc.faults {
            if let Fault::DriftChange { drift_ppm, .. } = &mut f.fault {
                *drift_ppm *= scale;
            }
        }
    }
    for f in &mut sc.faults {
        if let Fault::ClockJump { delta_ms, .. } = &mut f.fault {
            // the generator draws 1..500 ms: scaled down ten times
            *delta_ms = (*delta_ms / 10.0).clamp(-MAX_JUMP_MS, MAX_JUMP_MS);
        }
    }
    if reference && (sc.clocks.rho_ppm > 0.0 || sc.clocks.offset_ms_max > 0.0) {
        sc.clocks.nodes.push(NodeClock {
            node: 0,
            offset_ms: 0.0,
            drift_ppm: 0.0,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::find;
    use sincro_checkers::BoundedSkew;

    /// Generated runs are judged, not vacuous: skew is measured after convergence (and stays
    /// within the bound), the run lasts long enough, and the reference has no drift.
    #[test]
    fn generated_runs_are_judged_after_convergence() {
        for name in [
            "clock.cristian",
            "clock.ntp-peers",
            "clock.berkeley",
            "clock.rbs",
        ] {
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
                assert!(sc.clocks.rho_ppm <= MAX_RHO_PPM);
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
}
