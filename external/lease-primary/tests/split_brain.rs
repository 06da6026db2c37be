use lease_primary::{LeasePrimary, Variant, AT_MOST_ONE_PRIMARY};
use sincro::testing::check;

#[test]
fn one_primary_at_a_time_under_partitions_crashes_and_loss() {
    // `Err` holds the shrunk failure, written to sincro-regressions/, and its replay line
    // (SINCRO_SEED or SINCRO_REPLAY, which run one seed or one file instead of the 150).
    check(LeasePrimary).nodes(3..=5).seeds(150).run().unwrap();
}

#[test]
fn the_no_step_down_twin_has_split_brain() {
    let found = check(LeasePrimary)
        .variant(Variant::NoStepDown)
        .seeds(300)
        .expect_violation(AT_MOST_ONE_PRIMARY)
        .unwrap();
    assert!(found.explanation.contains("acts as primary while node"));
}
