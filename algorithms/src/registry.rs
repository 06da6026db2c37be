//! The registry: every algorithm runnable by name, with its variants, properties and fault
//! model.

use serde::de::DeserializeOwned;
use sincro_harness::engine::{Outcome, RunOptions};
use sincro_harness::fault::FaultModel;
use sincro_harness::gen::{self, Draft, GenOptions};
use sincro_harness::{Checker, Scenario, ScenarioError, SimRng, WorkloadItem};

/// A variant of an algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantInfo {
    /// Name used in scenarios (`correct` for the textbook algorithm).
    pub name: &'static str,
    /// True for a deliberately broken variant (fuzzing must find its violation).
    pub buggy: bool,
    /// What it does differently.
    pub summary: &'static str,
}

/// What `sincro list` shows about an algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlgorithmInfo {
    /// Registered name, `family.algorithm`.
    pub name: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Where the seed texts describe it.
    pub source: &'static str,
    /// Variants, `correct` first.
    pub variants: Vec<VariantInfo>,
    /// Properties it promises (checker names).
    pub properties: Vec<&'static str>,
    /// Faults it tolerates.
    pub fault_model: FaultModel,
}

/// An algorithm the CLI and tests can run by name.
pub trait Algorithm: Sync {
    /// Name, variants, properties, fault model.
    fn info(&self) -> AlgorithmInfo;
    /// Runs a scenario naming this algorithm (checkers from its declared properties).
    fn run(&self, scenario: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError>;
    /// A workload for a generated scenario: inputs inside `[0, active_ms]`.
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem>;
    /// Default liveness bound (ms after the faults stop) for this scenario.
    fn liveness_bound_ms(&self, scenario: &Scenario) -> u64;

    /// A complete scenario from `seed`: swarm faults (inside the fault model unless
    /// `opts.beyond_model`), this algorithm's workload, and a duration long enough to judge
    /// liveness after the faults stop.
    fn generate(&self, variant: &str, seed: u64, opts: &GenOptions) -> Scenario {
        let info = self.info();
        let draft = gen::generate(info.name, variant, seed, &info.fault_model, opts);
        self.complete(draft, opts)
    }

    /// Completes a scenario skeleton (from [`gen::generate`], or from fuzzer bytes through
    /// `sincro_harness::arbitrary::FuzzInput::draft`): adds this algorithm's workload inside
    /// the active phase and sets a duration long enough to judge liveness after the faults stop.
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        let mut draft = draft;
        let sc = &mut draft.scenario;
        sc.workload = self.workload(&mut draft.workload_rng, sc.nodes, opts.active_ms);
        sc.duration_ms = opts.active_ms;
        let bound = self.liveness_bound_ms(sc);
        sc.duration_ms = sc.quiet_from_ms().max(opts.active_ms) + bound + bound / 2 + 1;
        draft.scenario
    }
}

/// Every registered algorithm, in a fixed order.
pub fn registry() -> Vec<&'static dyn Algorithm> {
    let mut all: Vec<&'static dyn Algorithm> = Vec::new();
    all.extend(crate::mutex::registered::ALGORITHMS);
    all.extend(crate::omega::registered::ALGORITHMS);
    all
}

/// The algorithm called `name`, or an error listing the known names.
pub fn find(name: &str) -> Result<&'static dyn Algorithm, ScenarioError> {
    registry()
        .into_iter()
        .find(|a| a.info().name == name)
        .ok_or_else(|| {
            let known: Vec<_> = registry().iter().map(|a| a.info().name).collect();
            ScenarioError(format!(
                "unknown algorithm `{name}`; known algorithms: {}",
                known.join(", ")
            ))
        })
}

/// Runs a scenario with the algorithm it names.
pub fn run_scenario(scenario: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
    find(&scenario.algorithm)?.run(scenario, options)
}

pub(crate) fn parse_params<T: DeserializeOwned + Default>(
    sc: &Scenario,
) -> Result<T, ScenarioError> {
    if sc.params.is_null() {
        return Ok(T::default());
    }
    serde_json::from_value(sc.params.clone())
        .map_err(|e| ScenarioError(format!("params are not valid for {}: {e}", sc.algorithm)))
}

pub(crate) fn check_variant(info: &AlgorithmInfo, variant: &str) -> Result<(), ScenarioError> {
    if info.variants.iter().any(|v| v.name == variant) {
        Ok(())
    } else {
        let known: Vec<_> = info.variants.iter().map(|v| v.name).collect();
        Err(ScenarioError(format!(
            "unknown variant `{variant}` of {}; known variants: {}",
            info.name,
            known.join(", ")
        )))
    }
}

/// Checkers for the properties the scenario asks for (default: all the algorithm declares).
pub(crate) fn checkers(
    info: &AlgorithmInfo,
    sc: &Scenario,
    bound_ms: u64,
) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
    let wanted: Vec<String> = match &sc.checks.properties {
        Some(p) => p.clone(),
        None => info.properties.iter().map(|p| p.to_string()).collect(),
    };
    wanted
        .iter()
        .map(|p| {
            if !info.properties.contains(&p.as_str()) {
                return Err(ScenarioError(format!(
                    "checks.properties names `{p}`, which {} does not promise; it promises: {}",
                    info.name,
                    info.properties.join(", ")
                )));
            }
            sincro_checkers::by_name(p, sc, bound_ms)
                .ok_or_else(|| ScenarioError(format!("no checker for property `{p}`")))
        })
        .collect()
}

pub(crate) fn max_latency_ms(sc: &Scenario) -> u64 {
    let base = sc.network.latency.max_ns();
    let over = sc
        .network
        .links
        .iter()
        .filter_map(|l| l.latency.as_ref())
        .map(|l| l.max_ns());
    let faults = sc.faults.iter().filter_map(|f| match &f.fault {
        sincro_harness::Fault::SetLinks(o) => o.latency.as_ref().map(|l| l.max_ns()),
        _ => None,
    });
    std::iter::once(base)
        .chain(over)
        .chain(faults)
        .max()
        .unwrap_or(0)
        .div_ceil(sincro_harness::NS_PER_MS)
}
