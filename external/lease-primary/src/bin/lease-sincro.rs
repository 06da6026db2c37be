//! Every `sincro` command over the built-in algorithms plus `demo.lease-primary`:
//! `cargo run --features cli --bin lease-sincro -- fuzz -a demo.lease-primary`.
//!
//! The spec alone is enough: runs, fuzzing and shrinking judge `at_most_one_primary` with the
//! checker `Spec::checker` builds, and so does `check TRACE --scenario S` offline.
//! (`Registry::with_checker` would also let `check` judge it without the scenario.)

use lease_primary::LeasePrimary;
use sincro::algorithms::Registry;

fn main() -> std::process::ExitCode {
    sincro::cli::main_with(Registry::builtin().with(LeasePrimary))
}
