//! A user's algorithm that Sincro's registry does not know: a lease-based primary and its
//! split-brain twin (the algorithm is the one of the external crate
//! `external/lease-primary`, compiled here as a module).
//!
//! `cargo run --example lease_primary` checks the correct variant, shows how the buggy one
//! fails (the failure's text, as `cargo test` would print it), and runs the same through the
//! command line over a registry that holds it.

#[path = "../external/lease-primary/src/lib.rs"]
mod lease_primary;

use lease_primary::{LeasePrimary, Variant};
use sincro::testing::check;

fn main() {
    let report = check(LeasePrimary).seeds(300).no_regressions().run();
    println!(
        "{}",
        report.expect("the correct lease primary keeps one primary at a time")
    );

    let failure = check(LeasePrimary)
        .variant(Variant::NoStepDown)
        .seeds(300)
        .regressions(std::env::temp_dir().join("sincro-example-regressions"))
        .run()
        .expect_err("the no-step-down twin has split brain");
    println!("\nthe buggy twin, as `cargo test` shows it:\n{failure}");
}

#[cfg(test)]
mod tests {
    use super::lease_primary::{LeasePrimary, Variant, AT_MOST_ONE_PRIMARY};
    use sincro::testing::check;

    #[test]
    fn one_primary_at_a_time() {
        check(LeasePrimary)
            .seeds(100)
            .no_regressions()
            .run()
            .unwrap();
    }

    #[test]
    fn no_step_down_is_caught() {
        let twin = check(LeasePrimary).variant(Variant::NoStepDown);
        twin.expect_violation(AT_MOST_ONE_PRIMARY).unwrap();
    }
}
