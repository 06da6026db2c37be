//! The integration tests of `sincro-algorithms`, one module per file, in one test binary (the
//! crates are linked once for all of them). Run one file's tests with a filter:
//! `cargo test -p sincro-algorithms --test it shrink::`.

mod proptest;
mod scenario_parser;
mod shrink;
