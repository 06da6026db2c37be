//! # sincro-harness
//!
//! What a simulation *is*: the sans-IO [`Process`] trait and its [`Ctx`], the [`Scenario`]
//! document that fully determines a run, the network model ([`net`]), per-node drifting clocks
//! ([`clock`]), the timed fault plan ([`fault`]), the engines that execute a scenario
//! ([`engine`]), the recorded [`Trace`] with ground-truth happens-before, and the online
//! [`Checker`] interface.
//!
//! Determinism rules: one seed drives the run; every random draw comes from a [`SimRng`]
//! derived from it; no wall clock, no threads, no hash-order iteration inside a run.

#![warn(missing_docs)]

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
pub mod builder;
pub mod check;
pub mod clock;
pub mod diff;
pub mod engine;
pub mod fault;
pub mod gen;
pub mod net;
pub mod process;
pub mod render;
pub mod rng;
pub mod scenario;
pub mod shm;
pub mod shrink;
#[cfg(feature = "proptest")]
pub mod strategy;
pub mod trace;

pub use builder::ScenarioBuilder;
pub use check::{Checker, PropertyClass, Violation};
pub use engine::{Outcome, RunOptions, Stats, Verdict};
pub use fault::{Fault, FaultModel, TimedFault};
pub use process::{Ctx, Observation, Process, TimerId};
pub use rng::SimRng;
pub use scenario::{EngineException, EngineKind, Expect, Scenario, ScenarioError, WorkloadItem};
pub use trace::{Event, EventKind, Trace, TraceDifference};

/// Identifies a node (process) in a run: `0..nodes`.
pub type NodeId = usize;

/// Nanoseconds per millisecond: global simulated time and local clocks are kept in nanoseconds.
pub const NS_PER_MS: u64 = 1_000_000;

/// Converts milliseconds (possibly fractional) to nanoseconds, rounding to the nearest.
pub fn ms_to_ns(ms: f64) -> u64 {
    (ms * NS_PER_MS as f64).round().max(0.0) as u64
}
