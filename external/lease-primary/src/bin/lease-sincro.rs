//! Every `sincro` command over the built-in algorithms plus `demo.lease-primary`:
//! `cargo run --features cli --bin lease-sincro -- fuzz -a demo.lease-primary`.

use lease_primary::{AtMostOnePrimary, LeasePrimary, AT_MOST_ONE_PRIMARY};
use sincro::algorithms::Registry;

fn main() -> std::process::ExitCode {
    let registry = Registry::builtin()
        .with(LeasePrimary)
        .with_checker(AT_MOST_ONE_PRIMARY, |_, _| {
            Box::new(AtMostOnePrimary::default())
        });
    sincro::cli::main_with(registry)
}
