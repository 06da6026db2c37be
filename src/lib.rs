//! # Sincro
//!
//! A deterministic test harness and fault-injection framework for the classic synchronization
//! algorithms of distributed systems. This crate is the facade: it re-exports the harness
//! ([`harness`]), the property checkers ([`checkers`]) and the algorithms ([`algorithms`]), and
//! holds the pieces of the `sincro` command line that are worth a library API (fuzz campaigns
//! and benchmarks).

#![warn(missing_docs)]

#[cfg(feature = "cli")]
pub mod bench;
#[cfg(feature = "cli")]
pub mod cli;
pub mod fuzz;
#[cfg(feature = "cli")]
pub mod show;
#[cfg(feature = "cli")]
pub mod table;
pub mod testing;

pub use sincro_algorithms as algorithms;
pub use sincro_checkers as checkers;
pub use sincro_harness as harness;

static PROGRAM: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The name of the command that replays a failure, as replay lines print it: `sincro`, or the
/// name of a user's own binary over [`cli::main_with`](crate::cli).
pub fn program_name() -> &'static str {
    PROGRAM.get().map_or("sincro", String::as_str)
}

/// Sets the name [`program_name`] returns (the first call wins).
pub fn set_program_name(name: impl Into<String>) {
    let _ = PROGRAM.set(name.into());
}

/// Exit codes of the `sincro` command.
pub mod exit {
    /// Every checked property held (or, for `fuzz`, every verdict was as expected).
    pub const PASS: i32 = 0;
    /// A property was violated (for `fuzz`: an unexpected verdict).
    pub const VIOLATION: i32 = 1;
    /// Bad input: malformed scenario, unknown algorithm, impossible parameter (clap's usage
    /// errors use 2 as well).
    pub const BAD_INPUT: i32 = 2;
    /// The algorithm under test panicked.
    pub const PANIC: i32 = 3;
    /// A run limit (events, messages in flight) was hit.
    pub const LIMIT: i32 = 4;
    /// The same scenario gave two different traces (`--check-determinism`).
    pub const NONDETERMINISM: i32 = 5;
    /// A campaign was interrupted (Ctrl-C); what it found was written and summarized.
    pub const INTERRUPTED: i32 = 130;
}

/// The exit code for a verdict.
pub fn exit_code(v: &harness::Verdict) -> i32 {
    match v {
        harness::Verdict::Pass => exit::PASS,
        harness::Verdict::Violation(_) => exit::VIOLATION,
        harness::Verdict::Panic { .. } => exit::PANIC,
        harness::Verdict::LimitExceeded { .. } => exit::LIMIT,
    }
}
