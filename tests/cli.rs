//! The `sincro` command end to end: exit codes, error messages, fuzz-then-replay.

use std::path::PathBuf;
use std::process::{Command, Output};

fn sincro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn malformed_and_impossible_scenarios_exit_2_with_a_message() {
    let cases = [
        ("broken.json", "{ \"algorithm\": ", "invalid scenario"),
        (
            "unknown-field.json",
            r#"{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 10, "colour": 1}"#,
            "unknown field `colour`",
        ),
        (
            "zero-nodes.json",
            r#"{"algorithm": "mutex.centralized", "nodes": 0, "seed": 1, "duration_ms": 10}"#,
            "nodes must be at least 1",
        ),
        (
            "unknown-alg.json",
            r#"{"algorithm": "mutex.nope", "nodes": 3, "seed": 1, "duration_ms": 10}"#,
            "unknown algorithm `mutex.nope`; known algorithms: mutex.centralized",
        ),
        (
            "bad-variant.json",
            r#"{"algorithm": "mutex.centralized", "variant": "nope", "nodes": 3, "seed": 1, "duration_ms": 10}"#,
            "unknown variant `nope`",
        ),
        (
            "bad-input.json",
            r#"{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 10, "workload": [{"at_ms": 1, "node": 1, "input": {"dance": {}}}]}"#,
            "workload[0].input is not an input of mutex.centralized",
        ),
        (
            "bad-param.json",
            r#"{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 10, "params": {"coordinator": 9}}"#,
            "params.coordinator = 9 does not exist",
        ),
    ];
    for (file, body, needle) in cases {
        let path = tmp(file);
        std::fs::write(&path, body).unwrap();
        let out = sincro(&["run", path.to_str().unwrap()]);
        let (_, err) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(needle), "{file}: stderr was {err:?}");
        assert!(!err.contains("panicked"), "{file}: {err}");
    }
    let out = sincro(&["run", "/nonexistent/scenario.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("cannot read scenario"));
}

#[test]
fn a_violation_exits_1_and_prints_the_replay_command() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-lease-timeout-overlap.json"
    );
    let trace = tmp("lease.jsonl");
    let out = sincro(&["replay", path, "--trace", trace.to_str().unwrap()]);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(">>"), "the violating events are marked");
    assert!(
        stdout.contains(&format!("replay: sincro replay {path}")),
        "{stdout}"
    );
    let jsonl = std::fs::read_to_string(&trace).unwrap();
    assert!(
        jsonl.starts_with("{\"nodes\":3,\"sincro_trace\":1}")
            || jsonl.starts_with("{\"sincro_trace\""),
        "{jsonl}"
    );
    assert!(jsonl.lines().count() > 10);
}

#[test]
fn fuzz_finds_the_lease_bug_and_its_file_replays_to_the_same_violation() {
    let dir = tmp("fuzz-out");
    let _ = std::fs::remove_dir_all(&dir);
    let out = sincro(&[
        "fuzz",
        "--algorithm",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "300",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a buggy variant caught is the expected outcome\n{stdout}{stderr}"
    );
    assert!(stdout.contains("ok: caught after"), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("replay: sincro replay "))
        .expect("replay line");
    let file = line
        .trim_start()
        .trim_start_matches("replay: sincro replay ");
    let replay = sincro(&["run", file]);
    let (rs, _) = text(&replay);
    assert_eq!(replay.status.code(), Some(1), "{rs}");
    assert!(
        rs.contains("mutual_exclusion violated") && rs.contains("as expected"),
        "{rs}"
    );
}

#[test]
fn fuzz_of_the_correct_variant_passes_and_list_shows_it() {
    let out = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "correct",
        "--seeds",
        "200",
        "--jobs",
        "2",
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("ok: no violation"), "{stdout}");
    let list = text(&sincro(&["list"])).0;
    assert!(
        list.contains("mutex.centralized")
            && list.contains("lease-timeout")
            && list.contains("[buggy]"),
        "{list}"
    );
    let bad = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "nope",
        "--seeds",
        "1",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}
