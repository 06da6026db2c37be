//! # sincro-algorithms
//!
//! The classic synchronization algorithms as sans-IO state machines ([`sincro_harness::Process`]),
//! one file per algorithm, grouped by family, each with its declared fault model, the
//! properties it promises, and named buggy variants where the seed texts show how it breaks.
//!
//! The [`registry`] makes them runnable by name from a [`Scenario`].

#![warn(missing_docs)]

pub mod clocks;
pub mod coverage;
pub mod deadlock;
pub mod election;
pub mod moments;
pub mod mutex;
pub mod omega;
pub mod ordering;
pub mod positioning;
mod registry;
pub mod spec;
#[cfg(feature = "proptest")]
pub mod strategy;
#[cfg(test)]
mod test_support;

pub use registry::{
    closest, find, info_error, name_error, registry, run_scenario, select, unknown_variant,
    Algorithm, AlgorithmInfo, CheckerFactory, Registry, VariantInfo, DEEP_BUG_SEEDS,
};
pub use spec::{Correct, Links, Setup, Spec, Timed, Variant};

#[doc(no_inline)]
pub use sincro_harness::Scenario;
