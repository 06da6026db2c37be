//! Shrinking: minimize a failing scenario while it keeps failing the same way.
//!
//! (Stub: the delta-debugging implementation lands next; this returns the input unchanged.)

use crate::scenario::Scenario;

/// Knobs of shrinking.
#[derive(Clone, Debug)]
pub struct ShrinkOptions {
    /// Stop after this many candidate runs.
    pub max_runs: usize,
}

impl Default for ShrinkOptions {
    fn default() -> Self {
        ShrinkOptions { max_runs: 2_000 }
    }
}

/// The size of a scenario, as shrinking counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ScenarioSize {
    /// Entries of the fault plan.
    pub faults: usize,
    /// Workload inputs.
    pub inputs: usize,
    /// Nodes.
    pub nodes: usize,
    /// Duration, ms.
    pub duration_ms: u64,
}

impl ScenarioSize {
    /// The size of `sc`.
    pub fn of(sc: &Scenario) -> Self {
        ScenarioSize {
            faults: sc.faults.len(),
            inputs: sc.workload.len(),
            nodes: sc.nodes,
            duration_ms: sc.duration_ms,
        }
    }
}

/// A shrunk scenario and what it took.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest scenario found that still fails.
    pub scenario: Scenario,
    /// Candidate runs made.
    pub runs: usize,
    /// Accepted shrinking steps.
    pub steps: usize,
}

/// Shrinks `original` (which must fail: `still_fails(original)` is true) to a smaller scenario
/// for which `still_fails` is still true.
pub fn shrink(
    original: &Scenario,
    still_fails: &mut dyn FnMut(&Scenario) -> bool,
    opts: &ShrinkOptions,
) -> Shrunk {
    let _ = (still_fails, opts);
    Shrunk {
        scenario: original.clone(),
        runs: 0,
        steps: 0,
    }
}
