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
pub(crate) mod data_size;
pub mod diff;
pub mod engine;
pub mod explore;
pub mod fault;
pub mod gen;
pub mod net;
pub mod process;
pub mod render;
pub mod reorder;
pub mod rng;
pub mod scenario;
pub mod schedule;
pub mod shm;
pub mod shrink;
#[cfg(feature = "proptest")]
pub mod strategy;
pub mod trace;
pub mod view;
pub mod workload;

pub use builder::ScenarioBuilder;
pub use check::{Checker, Interest, PropertyClass, Violation};
pub use engine::{Outcome, RunOptions, Stats, Verdict};
pub use fault::{Fault, FaultModel, TimedFault};
pub use process::{Ctx, Observation, Process, TimerId};
pub use rng::SimRng;
pub use scenario::{
    EngineException, EngineKind, Expect, Limits, Scenario, ScenarioError, WorkloadInput,
    WorkloadItem,
};
pub use schedule::Schedule;
pub use trace::{Event, EventKind, Text, Trace, TraceDifference};

/// Identifies a node (process) in a run: `0..nodes`.
pub type NodeId = usize;

/// Nanoseconds per millisecond: global simulated time and local clocks are kept in nanoseconds.
pub const NS_PER_MS: u64 = 1_000_000;

/// The largest time a scenario may give, in ms (1e9 ms, about 11.6 days): `duration_ms`, every
/// `at_ms`, latencies, clock offsets and jumps, `checks.liveness_bound_ms`, and every `*_ms`
/// number of `params` and of workload inputs. In ns it is 1e15, so sums and products of such
/// times stay far inside `u64` and `i64`.
pub const MAX_TIME_MS: u64 = 1_000_000_000;

/// A number from a scenario as an error message shows it: large ones in scientific notation
/// (`1e300`, not three hundred digits).
pub(crate) fn show_f64(v: f64) -> String {
    // very large and very small values in exponent form (`-1e-300`, not 300 digits)
    if v.is_finite() && v != 0.0 && !(1e-6..1e12).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Converts milliseconds (possibly fractional) to nanoseconds, rounding to the nearest (half
/// away from zero); 0 for a negative or NaN value, `u64::MAX` past it.
#[inline]
pub fn ms_to_ns(ms: f64) -> u64 {
    // `(ms * 1e6).round().max(0.0) as u64`, exactly, without `round`: on x86-64 without
    // SSE4.1 it is a library call (with `trunc`, 2-3 % of a campaign of generated
    // Ricart–Agrawala runs, which draw every latency through here). The fraction `x - t` of a
    // double is exact, and from 2^53 on every double is whole (fraction 0).
    let x = ms * NS_PER_MS as f64;
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    if x >= u64::MAX as f64 {
        return u64::MAX; // 2^64 and past it, infinity: `as u64` saturates
    }
    let t = x as u64;
    t + u64::from(x - t as f64 >= 0.5)
}

#[cfg(test)]
mod tests {
    /// The rounding without `round` is the rounding with it, on every kind of double: random
    /// bit patterns, halves, values near 2^53 and 2^64, negatives, infinities and NaN.
    #[test]
    fn ms_to_ns_rounds_as_round_does() {
        let reference = |ms: f64| (ms * super::NS_PER_MS as f64).round().max(0.0) as u64;
        let mut rng = crate::SimRng::new(86);
        let mut cases = vec![
            0.0,
            -0.0,
            0.5e-6,
            1.5e-6,
            2.5e-6,
            // the double just below a half nanosecond
            f64::from_bits(0.5f64.to_bits() - 1) / 1e6,
            -0.5e-6,
            -0.6e-6,
            1.0,
            2f64.powi(53) / 1e6,
            2f64.powi(64) / 1e6,
            2f64.powi(63) / 1e6,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        for _ in 0..200_000 {
            cases.push(f64::from_bits(rng.next_u64()));
            // whole and half nanoseconds, and values around the largest exact integers
            let k = rng.range_u64(0, 1 << 60) as f64;
            cases.push(k / 1e6);
            cases.push((k + 0.5) / 1e6);
            cases.push(rng.unit() * 1e9);
            cases.push((2f64.powi(53) + rng.range_u64(0, 1 << 12) as f64 - 2048.0) / 1e6);
        }
        for ms in cases {
            assert_eq!(super::ms_to_ns(ms), reference(ms), "{ms:e} ms");
        }
    }

    #[test]
    fn values_in_messages_are_short() {
        use super::show_f64;
        assert_eq!(show_f64(2.5), "2.5");
        assert_eq!(show_f64(0.0), "0");
        assert_eq!(show_f64(-0.001), "-0.001");
        assert_eq!(show_f64(1e13), "1e13");
        // 300 digits before
        assert_eq!(show_f64(-1e-300), "-1e-300");
        assert_eq!(show_f64(f64::NAN), "NaN");
    }
}
