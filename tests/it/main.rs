//! The integration tests of `sincro`, one module per file, in one test binary: the library and
//! its generic code are compiled and linked once for all of them, not once per file. Run one
//! file's tests with a filter: `cargo test --test it cli::`.
//!
//! `tests/testing_env.rs` is a binary of its own: it sets `SINCRO_*` environment variables,
//! which every thread of a test process shares.

mod campaign;
mod cli;
mod clocks;
mod common;
mod corpus;
mod coverage;
mod engines;
mod explore;
/// The checkers' reference oracles, shared with `clocks.rs`.
#[path = "../../checkers/tests/it/oracle.rs"]
mod oracle;
mod panic;
mod schedules;
mod show;
mod testing;
