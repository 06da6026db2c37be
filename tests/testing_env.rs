//! The `SINCRO_*` environment variables of `sincro::testing::check`. One test in its own
//! binary, because the environment is shared by every thread of a test process.

use sincro::algorithms::mutex::centralized::{CentralizedSpec, Variant};
use sincro::testing::check;

#[test]
fn environment_variables_choose_seeds_replay_and_report_bad_values() {
    let dir = std::env::temp_dir().join(format!("sincro-testing-env-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("SINCRO_REGRESSIONS", &dir);

    std::env::set_var("SINCRO_SEEDS", "7");
    assert_eq!(check(CentralizedSpec).run().unwrap().runs, 7);
    std::env::set_var("SINCRO_SEED", "3");
    assert_eq!(
        check(CentralizedSpec).run().unwrap().runs,
        1,
        "SINCRO_SEED runs one seed"
    );
    std::env::remove_var("SINCRO_SEED");
    std::env::remove_var("SINCRO_SEEDS");

    std::env::set_var("SINCRO_SEEDS", "lots");
    let e = check(CentralizedSpec).run().unwrap_err();
    assert!(e.headline.contains("SINCRO_SEEDS=\"lots\""), "{e}");
    std::env::set_var("SINCRO_SEEDS", "200");

    // A failure, then SINCRO_REPLAY of its file gives the same violation, byte for byte.
    let failed = check(CentralizedSpec)
        .variant(Variant::LeaseTimeout)
        .run()
        .unwrap_err();
    let path = failed.path.clone().unwrap();
    std::env::set_var("SINCRO_REPLAY", &path);
    std::env::set_var("SINCRO_CHECK_DETERMINISM", "1");
    let replayed = check(CentralizedSpec).run().unwrap_err();
    assert_eq!(replayed.verdict, failed.verdict);
    assert_eq!(replayed.context, failed.context);
    std::env::remove_var("SINCRO_REPLAY");
    std::env::remove_var("SINCRO_CHECK_DETERMINISM");

    std::env::set_var("SINCRO_ENGINE", "warp");
    let e = check(CentralizedSpec).run().unwrap_err();
    assert!(e.headline.contains("SINCRO_ENGINE"), "{e}");
    std::env::remove_var("SINCRO_ENGINE");
    let _ = std::fs::remove_dir_all(&dir);
}
