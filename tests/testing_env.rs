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
    // Both at once: SINCRO_SEEDS would be silently dropped.
    std::env::set_var("SINCRO_SEED", "3");
    let e = check(CentralizedSpec).run().unwrap_err();
    assert!(e.headline.contains("set one of the two"), "{e}");
    std::env::remove_var("SINCRO_SEEDS");
    assert_eq!(
        check(CentralizedSpec).run().unwrap().runs,
        1,
        "SINCRO_SEED runs one seed"
    );
    std::env::remove_var("SINCRO_SEED");
    // A value that is not UTF-8 is refused, not read as unset.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::env::set_var("SINCRO_SEEDS", std::ffi::OsStr::from_bytes(b"\xff"));
        let e = check(CentralizedSpec).run().unwrap_err();
        assert!(
            e.headline.contains("SINCRO_SEEDS") && e.headline.contains("UTF-8"),
            "{e}"
        );
        std::env::remove_var("SINCRO_SEEDS");
    }
    // A regressions "directory" that is a file would skip every regression: an error.
    let file = dir.with_extension("file");
    std::fs::write(&file, "").unwrap();
    std::env::set_var("SINCRO_REGRESSIONS", &file);
    let e = check(CentralizedSpec).seeds(1).run().unwrap_err();
    assert!(e.headline.contains("cannot be read"), "{e}");
    std::env::set_var("SINCRO_REGRESSIONS", &dir);
    let _ = std::fs::remove_file(&file);
    // A failure another test found outside the model (a coordinator crash) is that test's
    // regression: this test, inside the model, neither fails on it nor counts it.
    std::fs::create_dir_all(&dir).unwrap();
    let crash = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-coordinator-crash.json"
    );
    std::fs::copy(crash, dir.join("mutex.centralized.correct.seed999.json")).unwrap();
    let report = check(CentralizedSpec).seeds(2).run().unwrap();
    assert_eq!(report.regressions_replayed, 0);
    std::fs::remove_file(dir.join("mutex.centralized.correct.seed999.json")).unwrap();

    // The same for a failure whose fault outside the model is in the network, not the plan:
    // a lossy link (`network.loss`, as generation writes loss) is no fault of the plan.
    let mut lossy: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/mutex/centralized-pass.json"
        ))
        .unwrap(),
    )
    .unwrap();
    lossy["network"]["loss"] = serde_json::json!(1.0);
    lossy.as_object_mut().unwrap().remove("expect");
    let lossy_file = dir.join("mutex.centralized.correct.seed998.json");
    std::fs::write(&lossy_file, lossy.to_string()).unwrap();
    let report = check(CentralizedSpec).seeds(2).run().unwrap();
    assert_eq!(
        report.regressions_replayed, 0,
        "a lossy regression was replayed"
    );
    std::fs::remove_file(&lossy_file).unwrap();
    // An empty value (an unset CI variable) does not turn regression replay off unseen.
    std::env::set_var("SINCRO_REGRESSIONS", "");
    let e = check(CentralizedSpec).seeds(1).run().unwrap_err();
    assert!(e.headline.contains("SINCRO_REGRESSIONS"), "{e}");
    std::env::set_var("SINCRO_REGRESSIONS", &dir);

    std::env::set_var("SINCRO_SEEDS", "lots");
    let e = check(CentralizedSpec).run().unwrap_err();
    assert!(e.headline.contains("SINCRO_SEEDS=\"lots\""), "{e}");
    // The largest number names the variable, not a `seeds(u64::MAX)` call the test never
    // made (stop 73's probe).
    std::env::set_var("SINCRO_SEEDS", u64::MAX.to_string());
    let e = check(CentralizedSpec).run().unwrap_err();
    assert!(
        e.headline.contains("SINCRO_SEEDS") && !e.headline.contains("seeds(u64::MAX)"),
        "{e}"
    );
    std::env::set_var("SINCRO_SEEDS", "200");

    // A failure, then SINCRO_REPLAY of its file gives the same violation, byte for byte.
    let failed = check(CentralizedSpec)
        .variant(Variant::LeaseTimeout)
        .run()
        .unwrap_err();
    let path = failed.path.clone().unwrap();
    std::env::set_var("SINCRO_REPLAY", &path);
    std::env::set_var("SINCRO_CHECK_DETERMINISM", "1");
    let replayed = check(CentralizedSpec)
        .variant(Variant::LeaseTimeout)
        .run()
        .unwrap_err();
    assert_eq!(replayed.verdict, failed.verdict);
    assert_eq!(replayed.context, failed.context);
    // Its replay line keeps the environment the failing check had, and names the package and
    // the test binary (a test of that name in another binary would run too).
    assert!(
        replayed.to_string().contains(
            "SINCRO_CHECK_DETERMINISM=1 cargo test -p sincro --test testing_env -- --exact"
        ),
        "{replayed}"
    );
    // The test of another variant does not replay it as its own...
    let e = check(CentralizedSpec).run().unwrap_err();
    assert!(e.headline.contains("variant `lease-timeout`"), "{e}");
    // ... and expect_violation, which fuzzes, says it does not read the file.
    let e = check(CentralizedSpec)
        .variant(Variant::LeaseTimeout)
        .expect_violation("mutual_exclusion")
        .unwrap_err();
    assert!(e.headline.contains("not read by expect_violation"), "{e}");
    std::env::remove_var("SINCRO_REPLAY");
    std::env::remove_var("SINCRO_CHECK_DETERMINISM");
    // A regression file another test wrote judging a property of its own is judged the way
    // this test judges: its `checks.properties` do not make this test fail on a name it does
    // not know.
    let mut named: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    named["checks"] = serde_json::json!({"properties": ["only_in_another_test"]});
    std::fs::write(&path, named.to_string()).unwrap();
    let e = check(CentralizedSpec)
        .variant(Variant::LeaseTimeout)
        .seeds(1)
        .run()
        .unwrap_err();
    assert_eq!(e.verdict, failed.verdict, "{e}");

    // A failure whose scenario could not be saved (no writable temporary directory) says
    // so, and offers no SINCRO_SEED line that might rebuild another scenario.
    std::env::set_var("TMPDIR", "/proc/sincro-no-such-dir");
    std::env::set_var("SINCRO_REGRESSIONS", "off");
    let e = check(CentralizedSpec)
        .variant(Variant::LeaseTimeout)
        .run()
        .unwrap_err();
    std::env::remove_var("TMPDIR");
    std::env::set_var("SINCRO_REGRESSIONS", &dir);
    assert!(
        e.notes.iter().any(|n| n.contains("could not be saved")) && !e.seed_replays,
        "{e}"
    );

    std::env::set_var("SINCRO_ENGINE", "warp");
    let e = check(CentralizedSpec).run().unwrap_err();
    assert!(e.headline.contains("SINCRO_ENGINE"), "{e}");
    std::env::remove_var("SINCRO_ENGINE");
    let _ = std::fs::remove_dir_all(&dir);
}
