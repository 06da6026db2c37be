//! The turmoil engine (placeholder while it is being written).
use super::{Factory, Outcome, RunOptions};
use crate::check::Checker;
use crate::process::Process;
use crate::scenario::{Scenario, ScenarioError};

/// Runs `scenario` with each node as a turmoil host.
pub fn run<P: Process>(
    _scenario: &Scenario,
    _factory: Factory<P>,
    _checkers: Vec<Box<dyn Checker>>,
    _options: RunOptions,
) -> Result<Outcome, ScenarioError> {
    Err(ScenarioError("turmoil engine not yet available".into()))
}
