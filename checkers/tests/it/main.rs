//! The integration tests of `sincro-checkers`, one module per file, in one test binary (the
//! crates are linked once for all of them). Run one file's tests with a filter:
//! `cargo test -p sincro-checkers --test it differential::`.

mod adversarial;
mod differential;
mod omega;
mod oracle;
mod skew;
mod trace_parser;
