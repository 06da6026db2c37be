//! The `sincro` command end to end: exit codes, error messages, fuzz-then-replay.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `sincro` as a user who installed it does: found through `PATH`, so its replay lines
/// name it `sincro` (started by a path no `PATH` holds, they would name that path).
fn sincro(args: &[&str]) -> Output {
    Command::new("sincro")
        .env("PATH", crate::common::path_with_sincro())
        .args(args)
        .output()
        .expect("the binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// [`tmp`], emptied and created.
fn fresh(name: &str) -> PathBuf {
    let dir = tmp(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
            "a-trace.jsonl",
            "{\"nodes\":2,\"sincro_trace\":1}\n",
            "this is a trace (JSON Lines), not a scenario",
        ),
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
            "unknown algorithm `mutex.nope`; an algorithm of your own is known only to a \
             binary that registers it",
        ),
        (
            "bad-variant.json",
            r#"{"algorithm": "mutex.centralized", "variant": "nope", "nodes": 3, "seed": 1, "duration_ms": 10}"#,
            "unknown variant `nope`",
        ),
        (
            "short-variant.json",
            r#"{"algorithm": "mutex.centralized", "variant": "lease", "nodes": 3, "seed": 1, "duration_ms": 10}"#,
            "unknown variant `lease` of mutex.centralized; did you mean `lease-timeout`?",
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

/// A verdict quotes the scenario's own texts: its line is one line, with what would act on
/// the terminal escaped, in `run`, `replay` and `shrink` alike (a message name's escape
/// sequence and line break were printed raw, stop 72's probe).
#[test]
fn a_verdict_line_prints_no_control_character_of_the_scenario() {
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/ordering/causal-fig-6-13-fifo-only.json"
    );
    let body = std::fs::read_to_string(corpus)
        .unwrap()
        .replace(r#""name": "m*""#, r#""name": "m\u001b[31mRED\u202eX\n""#);
    let path = fresh("escaped-names").join("causal.json");
    std::fs::write(&path, body).unwrap();
    let p = path.to_str().unwrap();
    let shrunk = path.with_extension("shrunk.json");
    // Runs `args`: no exit 2 or worse, nothing raw on either stream; its (stdout, stderr).
    let escaped = |args: &[&str]| {
        let out = sincro(args);
        let (stdout, stderr) = text(&out);
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{args:?}: {stderr}"
        );
        for t in [&stdout, &stderr] {
            assert!(
                !t.contains('\u{1b}') && !t.contains('\u{202e}'),
                "{args:?}: {t}"
            );
        }
        (stdout, stderr)
    };
    for args in [
        vec!["run", p],
        vec!["replay", p],
        vec!["shrink", p, "--out", shrunk.to_str().unwrap()],
    ] {
        let (stdout, _) = escaped(&args);
        let verdict = stdout
            .lines()
            .find(|l| l.starts_with("order.causal / fifo-only"))
            .unwrap_or_else(|| panic!("{args:?}: {stdout}"));
        assert!(verdict.contains(r"RED\u{202e}X\n before m"), "{verdict}");
    }
    // Offline too: `check`'s verdict line and `show --out`'s closing line quote the trace's
    // texts, escaped (stop 73's probe: printed raw, `\r\u{1b}[2KPASS` hid a violation).
    let trace = path.with_extension("jsonl");
    let html = path.with_extension("html");
    let _ = sincro(&[
        "replay",
        p,
        "--render",
        "none",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    let t = trace.to_str().unwrap();
    for args in [
        vec!["check", t, "--properties", "causal_delivery"],
        vec![
            "show",
            t,
            "--check",
            "causal_delivery",
            "--format",
            "html",
            "--out",
            html.to_str().unwrap(),
        ],
    ] {
        let (stdout, stderr) = escaped(&args);
        assert!(
            format!("{stdout}{stderr}").contains(r"RED\u{202e}X\n before m"),
            "{args:?}: {stdout}{stderr}"
        );
    }
}

/// A campaign of `mutex.centralized / lease-timeout` (300 seeds, plus `extra`) writing into a
/// fresh folder `name`: the folder and the command's output.
fn fuzz_lease_timeout(name: &str, extra: &[&str]) -> (PathBuf, Output) {
    let dir = tmp(name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = vec![
        "fuzz",
        "--algorithm",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "300",
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = sincro(&args);
    (dir, out)
}

#[test]
fn fuzz_finds_the_lease_bug_and_its_file_replays_to_the_same_violation() {
    let out = fuzz_lease_timeout("fuzz-out", &[]).1;
    let (stdout, stderr) = text(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a buggy variant caught is the expected outcome\n{stdout}{stderr}"
    );
    assert!(stdout.contains("caught after"), "{stdout}");
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("replay: sincro replay "))
        .expect("replay line");
    let file = line
        .trim_start()
        .trim_start_matches("replay: sincro replay ");
    // The written file expects this violation: `run` meets it (0), `replay` shows it (1).
    let replay = sincro(&["run", file]);
    let (rs, _) = text(&replay);
    assert_eq!(replay.status.code(), Some(0), "{rs}");
    assert_eq!(
        sincro(&["replay", file, "--render", "none"]).status.code(),
        Some(1)
    );
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
    assert!(stdout.contains("no violation"), "{stdout}");
    let list = text(&sincro(&["list"])).0;
    assert!(
        list.contains("mutex.centralized")
            && list.contains("lease-timeout")
            && list.contains("[buggy]"),
        "{list}"
    );
    // A variant name past the usual column widens it: no name runs into its tags.
    assert!(
        list.contains("    variant stale-coordinator [buggy, deep] "),
        "{list}"
    );
    assert!(
        !list.contains("source:      \n"),
        "no empty source line: {list}"
    );
    // A clock fault the model leaves out has no cap: the lease said "jumps up to any".
    let lease = list
        .split("\nelection.lease")
        .nth(1)
        .and_then(|rest| rest.lines().find(|l| l.contains("clock caps:")))
        .unwrap_or_else(|| panic!("no clock caps for election.lease: {list}"));
    assert!(lease.contains("jumps none (not in the model)"), "{lease}");
    assert!(!list.contains("up to any"), "{list}");
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

/// Writes `body` to a scratch file and runs `sincro run` on it: exit code and stderr.
fn run_body(name: &str, body: &str, extra: &[&str]) -> (Option<i32>, String) {
    let path = tmp(name);
    std::fs::write(&path, body).unwrap();
    let mut args = vec!["run", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = sincro(&args);
    let err = text(&out).1;
    assert!(!err.contains("panicked"), "{name}: {err}");
    (out.status.code(), err)
}

#[test]
fn huge_times_and_sizes_are_bad_input_never_a_wrapped_verdict() {
    let mutex = |extra: &str| {
        format!(
            r#"{{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 400{extra}}}"#
        )
    };
    let cases = [
        (
            "latency.json",
            mutex(r#", "network": {"latency": {"constant": {"ms": 1e300}}}"#),
            "latency 1e300 ms is outside [0, 1000000000] ms",
        ),
        (
            "override.json",
            mutex(r#", "network": {"links": [{"from": 0, "latency": {"uniform": {"min_ms": 1, "max_ms": 1e13}}}]}"#),
            "network: links[0]: latency 1e13 ms is outside",
        ),
        (
            "hold.json",
            mutex(
                r#", "workload": [{"at_ms": 10, "node": 1, "input": {"acquire": {"hold_ms": 9300000000000}}}]"#,
            ),
            "workload[0].input.acquire.hold_ms = 9300000000000 is outside [0, 1000000000] ms",
        ),
        (
            "param.json",
            r#"{"algorithm": "mutex.centralized", "variant": "lease-timeout", "nodes": 3, "seed": 1, "duration_ms": 400, "params": {"lease_ms": 18446744073709551615}}"#.to_string(),
            "params.lease_ms = 18446744073709551615 is outside",
        ),
        (
            "jump.json",
            r#"{"algorithm": "clock.cristian", "nodes": 3, "seed": 1, "duration_ms": 30,
                "faults": [{"at_ms": 5, "fault": {"clock_jump": {"node": 1, "delta_ms": 9.2e12}}}]}"#
                .to_string(),
            "faults[0]: clock_jump.delta_ms = 9.2e12 is outside [-1000000000, 1000000000] ms",
        ),
        (
            "offset.json",
            mutex(r#", "clocks": {"nodes": [{"node": 0, "offset_ms": -1e18}]}"#),
            "clocks.nodes[0].offset_ms = -1e18 is outside",
        ),
        (
            "clock-twice.json",
            mutex(r#", "clocks": {"nodes": [{"node": 0, "offset_ms": 1}, {"node": 0}]}"#),
            "clocks.nodes[1].node = 0 is set twice (clocks.nodes[0] sets it too)",
        ),
        (
            "no-checks.json",
            mutex(r#", "checks": {"properties": []}"#),
            "checks.properties is empty: the run would judge nothing and pass",
        ),
        (
            "bound.json",
            mutex(r#", "checks": {"liveness_bound_ms": 18446744073709551615}"#),
            "checks.liveness_bound_ms = 18446744073709551615 is above the limit",
        ),
        (
            "nodes.json",
            r#"{"algorithm": "mutex.centralized", "nodes": 100000, "seed": 1, "duration_ms": 10}"#
                .to_string(),
            "nodes = 100000 is above the limit of 10000",
        ),
        (
            "ticks.json",
            r#"{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 1000000000, "engine": "turmoil"}"#
                .to_string(),
            "above limits.max_ticks = 1000000",
        ),
        (
            "turmoil-cost.json",
            r#"{"algorithm": "election.bully", "nodes": 256, "seed": 1, "duration_ms": 1000000, "engine": "turmoil"}"#
                .to_string(),
            "is too costly on turmoil",
        ),
        (
            "lamport-start.json",
            r#"{"algorithm": "mutex.ricart-agrawala", "nodes": 3, "seed": 1, "duration_ms": 40, "params": {"initial_clocks": [18446744073709551615, 0, 5]}}"#.to_string(),
            "params.initial_clocks[0] = 18446744073709551615 is past 9007199254740992",
        ),
        (
            "lamport-ticks.json",
            r#"{"algorithm": "order.lamport", "nodes": 3, "seed": 1, "duration_ms": 40, "params": {"ticks": [6, 18446744073709551615, 10]}}"#.to_string(),
            "params.ticks[1] = 18446744073709551615 is past 1000000",
        ),
        (
            "expect.json",
            mutex(r#", "expect": {"violation": "nonsense"}"#),
            "expect names the property `nonsense`, which mutex.centralized does not promise; it promises: mutual_exclusion, liveness",
        ),
        (
            "expect-unchecked.json",
            mutex(
                r#", "checks": {"properties": ["liveness"]}, "expect": {"violation": "mutual_exclusion"}"#,
            ),
            "expect names the property `mutual_exclusion`, which checks.properties leaves unchecked (it checks liveness): it could never be met",
        ),
    ];
    for (file, body, needle) in cases {
        let (code, err) = run_body(file, &body, &[]);
        assert_eq!(code, Some(2), "{file}: {err}");
        assert!(err.contains(needle), "{file}: stderr was {err:?}");
    }
    // The engine's own limits, when --engine overrides the scenario's.
    let (code, err) = run_body(
        "turmoil-nodes.json",
        r#"{"algorithm": "mutex.centralized", "nodes": 1000, "seed": 1, "duration_ms": 10}"#,
        &["--engine", "turmoil"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("turmoil engine's limit of 256"), "{err}");
    // No size cap used to let /dev/zero take 4 GB before failing.
    if std::path::Path::new("/dev/zero").exists() {
        let out = sincro(&["run", "/dev/zero"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out)
                .1
                .contains("larger than the limit of 67108864 bytes"),
            "{}",
            text(&out).1
        );
    }
}

/// At 2 nodes with the coordinator crashed, election.ring's process 0 is alone: the table
/// says the count holds from 3 nodes on instead of calling 3 messages a departure from 5n − 2.
#[test]
fn the_election_table_at_two_nodes_is_no_false_alarm() {
    let o = sincro(&["table", "election", "--n", "2"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("the count holds from"), "{out}");
    // a row an algorithm cannot have at n is said, not dropped (the default n = 1000 lost
    // anel2's; n = 1 the ring's and bully's)
    let o = sincro(&["table", "election", "--n", "1,257", "--markdown"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("not run: above its 256 nodes"), "{out}");
    assert_eq!(out.matches("not run: one process").count(), 2, "{out}");
    // in the order of `--n`, as the others' rows (anel2's row not run came first)
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle} in\n{out}"))
    };
    assert!(
        at("| election.anel2 | everyone starts | 1 |")
            < at("| election.anel2 | everyone starts | 257 |"),
        "{out}"
    );
}

/// A formula in a narrow column keeps together: `⌈log2 n⌉` was split at its space, its
/// halves on two lines.
#[test]
fn the_election_tables_formulas_are_not_split_inside() {
    let o = sincro(&["table", "election", "--n", "8"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("⌈log2(n)⌉+1"), "{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 100), "{out}");
    assert!(
        !out.lines().any(|l| l.trim_end().ends_with("⌈log2")),
        "{out}"
    );
}

/// A table's prose fits 100 columns, a paragraph wrapped as one: a source line a little over
/// the width left its last words alone on a line before the next one (stop 64's probe:
/// "timely process;").
#[test]
fn a_tables_prose_wraps_as_paragraphs_within_100_columns() {
    let o = sincro(&["table", "omega", "--runs", "1", "--n", "4"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.lines().all(|l| l.chars().count() <= 100), "{out}");
    assert!(!out.lines().any(|l| l.trim() == "timely process;"), "{out}");
    assert!(
        out.contains("varying speeds; a\ntimely process; the same scenarios"),
        "{out}"
    );
}

/// An algorithm a pattern selects (`all`, `omega.*`) that does not run on the engine asked
/// for is left out with a note; one named is refused (`fuzz --engine turmoil` refused the
/// default selection, for Ω).
#[test]
fn a_pattern_leaves_out_what_does_not_run_on_the_engine() {
    let out = tmp("turmoil-pattern");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized,omega.*",
        "--variant",
        "correct",
        "--engine",
        "turmoil",
        "--seeds",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains("note: left out omega.khouri-greve: it does not run on the turmoil engine"),
        "{stderr}"
    );
    assert!(stdout.contains("1/1 targets as expected"), "{stdout}");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized,omega.khouri-greve",
        "--engine",
        "turmoil",
        "--seeds",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("does not run on the turmoil engine"),
        "{}",
        text(&o).1
    );
}

#[test]
fn huge_command_line_values_are_bad_input() {
    let cases: [(&[&str], &str); 51] = [
        // Options the command would not use: accepted and ignored before.
        (
            &["bench", "--only", "hand", "--turmoil-messages", "333333323"],
            "--turmoil-messages sizes the turmoil rows, and --only `hand` keeps none",
        ),
        (
            &["bench", "--scale-one", "election:3", "--scale-n", "7"],
            "--scale-one `election:3` runs the one size it names",
        ),
        // Refused with no fault to inject as well (it was accepted then).
        (
            &[
                "explore",
                "-a",
                "mutex.ricart-agrawala",
                "--pauses",
                "0",
                "--faults-until-ms",
                "18446744073709551615",
            ],
            "--faults-until-ms = 18446744073709551615 is outside",
        ),
        // u64::MAX seeds is no count: it ran until the budget ended, as if unbounded.
        (
            &[
                "fuzz",
                "-a",
                "election.terms",
                "--seeds",
                "18446744073709551615",
            ],
            "--seeds 18446744073709551615: at most 18446744073709551614",
        ),
        // A table's counts are bounded, and an option it does not read is refused, not
        // silently ignored (`table voting --n 3` measured n = 5 and 7).
        (
            &["table", "voting", "--runs", "18446744073709551615"],
            "--runs = 18446744073709551615 is outside [1, 100000]",
        ),
        (
            &["table", "voting", "--runs", "10", "--p", "NaN"],
            "--p = NaN is outside [0, 1]",
        ),
        (
            &["table", "voting", "--n", "3"],
            "--n is not an option of `table voting` (it reads --runs, --p)",
        ),
        // a value given twice printed its rows twice
        (&["table", "mutex", "--n", "3,3"], "--n names `3` twice"),
        (
            &["table", "voting", "--p", "0.1,0.1"],
            "--p names `0.1` twice",
        ),
        (
            &["table", "omega", "--runs", "2000"],
            "--runs = 2000 is outside [1, 200]",
        ),
        (
            &["table", "omega", "--n", "2", "--runs", "1"],
            "--n = 2 is outside [3, 100]",
        ),
        (
            &["table", "mutex", "--seeds", "5"],
            "--seeds is not an option of `table mutex`",
        ),
        (
            &["table", "clocks", "--n", "2"],
            "`table clocks` takes one --n, 3 ..= 16",
        ),
        // n = 100 ran for minutes with nothing printed past the header.
        (
            &["table", "clocks", "--n", "100"],
            "`table clocks` takes one --n, 3 ..= 16",
        ),
        (&["bench", "--only", ""], "--only is empty"),
        // Ω runs on no engine: refused before any seed runs (it "ran" on turmoil, and on a
        // madsim this build does not have).
        (
            &[
                "fuzz", "-a", "omega.*", "--engine", "turmoil", "--seeds", "1",
            ],
            "omega.khouri-greve does not run on the turmoil engine",
        ),
        (
            &["table", "search", "--seeds", "18446744073709551615"],
            "--seeds must be within [20, 1000000]",
        ),
        (
            &["bench", "--fuzz-seeds", "0"],
            "--fuzz-seeds and --fuzz-slow-seeds must be 1..=10000000, got 0",
        ),
        (
            &["bench", "--fuzz-slow-seeds", "99999999999"],
            "must be 1..=10000000, got 99999999999",
        ),
        (
            &["table", "mutex", "--n", "100000"],
            "--n = 100000 is above the limit of 10000",
        ),
        // Seeds past u64::MAX: the campaign would run one seed and report it as all.
        (
            &[
                "fuzz",
                "-a",
                "election.terms",
                "--seed-start",
                "18446744073709551615",
                "--seeds",
                "10",
            ],
            "10 seeds from seed 18446744073709551615 run past the last seed, \
             18446744073709551615: at most 1 start there",
        ),
        // The default count too: it was refused as a generated scenario, after the header.
        (
            &[
                "fuzz",
                "-a",
                "mutex.centralized",
                "--seed-start",
                "18446744073709551615",
            ],
            "--seed-start 18446744073709551615: 1000 seeds from seed 18446744073709551615 \
             run past the last seed",
        ),
        (
            &[
                "matrix",
                "-a",
                "election.terms",
                "--seed-start",
                "18446744073709551610",
                "--seeds",
                "7",
            ],
            "at most 6 start there",
        ),
        // u64::MAX is "no count" inside: every cell ran one seed, "cut short", exit 0.
        (
            &[
                "matrix",
                "-a",
                "mutex.centralized",
                "--seed-start",
                "18446744073709551615",
                "--seeds",
                "18446744073709551615",
            ],
            "--seeds 18446744073709551615: at most 18446744073709551614",
        ),
        (
            &["bench", "--repeat", "0"],
            "--repeat must be 1..=100, got 0",
        ),
        (
            &["fuzz", "--max-files", "0", "--keep-going", "--seeds", "1"],
            "--max-files must be at least 1",
        ),
        // Options the campaign would ignore: refused by name.
        (
            &["fuzz", "--max-files", "5", "--seeds", "1"],
            "--keep-going",
        ),
        (
            &["fuzz", "--no-shrink", "--shrink-runs", "5", "--seeds", "1"],
            "'--no-shrink' cannot be used with '--shrink-runs <N>'",
        ),
        (
            &["bench", "--repeat", "4000000000"],
            "--repeat must be 1..=100, got 4000000000",
        ),
        (
            &["bench", "--only", "nothing-matches"],
            "--only `nothing-matches` matches no row's engine",
        ),
        (&["bench", "--scale-n", "10"], "--scale"),
        // clap's `requires` let it through beside another option; it was ignored, exit 0.
        (&["bench", "--no-turmoil", "--scale-n", "0"], "give it too"),
        (
            &["bench", "--scale", "--scale-n", "10,10"],
            "--scale-n names `10` twice",
        ),
        (
            &[
                "table",
                "search",
                "--seeds",
                "20",
                "-a",
                "mutex.decentralized",
            ],
            "no buggy variant to measure the search on",
        ),
        (
            &["table", "search", "--strategy", "random,pct,random"],
            "--strategy names `random` twice",
        ),
        (
            &["table", "shrink", "-a", "mutex.decentralized"],
            "no buggy variant to shrink the failures of",
        ),
        (
            &["table", "shrink", "--seeds", "0"],
            "--seeds must be within [1, 1000000] for `table shrink`",
        ),
        (
            &["table", "shrink", "--strategy", "mix"],
            "--strategy is not an option of `table shrink`",
        ),
        (
            &[
                "explore",
                "-a",
                "order.lamport",
                "--faults-until-ms",
                "1000000000",
            ],
            "--faults-until-ms = 1000000000 is outside",
        ),
        // Options a mode would ignore are refused, not dropped.
        (
            &["bench", "--scale", "--repeat", "5"],
            "'--scale' cannot be used with '--repeat <REPEAT>'",
        ),
        (
            &["bench", "--no-turmoil", "--fuzz-seeds", "5"],
            "'--no-turmoil' cannot be used with '--fuzz-seeds <FUZZ_SEEDS>'",
        ),
        (
            &["bench", "--only", "bare", "--fuzz-slow-seeds", "5"],
            "cannot be used with",
        ),
        (
            &["fuzz", "--jobs", "100000000", "--seeds", "1"],
            "--jobs = 100000000 is above the limit of 256",
        ),
        (
            &["fuzz", "--nodes-max", "100000", "--seeds", "1"],
            "--nodes-max = 100000 is above the limit of 10000",
        ),
        // It ran as `random` and said nothing (stop 57's probe).
        (
            &[
                "fuzz",
                "-a",
                "mutex.centralized",
                "--engine",
                "turmoil",
                "--strategy",
                "pct",
                "--seeds",
                "1",
            ],
            "strategy pct shapes every message's delay, and the turmoil engine draws its own",
        ),
        (
            &[
                "fuzz",
                "-a",
                "mutex.centralized",
                "--engine",
                "turmoil",
                "--strategy",
                "pos",
                "--seeds",
                "1",
            ],
            "strategy pos shapes",
        ),
        (
            &["matrix", "--jobs", "100000000", "--seeds", "1"],
            "--jobs = 100000000 is above the limit of 256",
        ),
        // A phase whose seeds would all last past the longest scenario (stop 69's probe: the
        // campaign ran, then refused every seed).
        (
            &["fuzz", "-a", "clock.cristian", "--active-ms", "1000000000"],
            "--active-ms = 1000000000 is outside 10 ..= 100000000 ms",
        ),
        // Ω's cost grows as n³: the default 200 runs at n = 100 were about an hour and a half.
        (
            &["table", "omega", "--n", "100"],
            "--n = 100 with --runs 200 is too long a table",
        ),
        // A negative number is a bad value for its flag, not an unknown argument `-5`.
        (
            &["fuzz", "-a", "mutex.centralized", "--seeds", "-5"],
            "invalid value '-5' for '--seeds <SEEDS>'",
        ),
        (
            &["table", "voting", "--runs", "-1"],
            "invalid value '-1' for '--runs",
        ),
    ];
    for (args, needle) in cases {
        let out = sincro(args);
        let err = text(&out).1;
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// `run`'s replay line names the engine only when `--engine` overrode the file's: of a file
/// that says turmoil, `--engine turmoil` is no override (stop 65's probe).
#[test]
fn the_replay_line_names_an_engine_only_when_it_overrode_the_files() {
    let dir = tmp("replay-line-engine");
    std::fs::create_dir_all(&dir).unwrap();
    let mut sc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("corpus/mutex/ricart-agrawala-no-tiebreak.json").unwrap(),
    )
    .unwrap();
    sc.as_object_mut().unwrap().remove("expect");
    sc["engine"] = serde_json::json!("turmoil");
    let path = dir.join("turmoil.json");
    std::fs::write(&path, sc.to_string()).unwrap();
    let p = path.to_str().unwrap();
    for (engine, named) in [("turmoil", false), ("native", true)] {
        let o = sincro(&["run", p, "--engine", engine]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}{err}");
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with("replay:"))
            .unwrap_or_else(|| panic!("{out}"));
        assert_eq!(line.contains("--engine"), named, "{engine}: {line}");
    }
}

#[test]
fn outputs_that_cannot_be_written_fail_loudly() {
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-lease-timeout-overlap.json"
    );
    if std::path::Path::new("/dev/full").exists() {
        let out = sincro(&["run", corpus, "--trace", "/dev/full"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            text(&out).1.contains("cannot write trace /dev/full"),
            "{}",
            text(&out).1
        );
        // The verdict is printed first: a trace that cannot be written loses no verdict.
        assert!(
            text(&out)
                .0
                .contains("VIOLATION (Safety): mutual_exclusion"),
            "{}",
            text(&out).0
        );
        let out = sincro(&[
            "fuzz",
            "-a",
            "mutex.centralized",
            "--variant",
            "correct",
            "--seeds",
            "2",
            "-q",
            "--junit",
            "/dev/full",
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out).1);
        assert!(
            text(&out).1.contains("cannot write /dev/full"),
            "{}",
            text(&out).1
        );
        // Help to a full disk is lost output too (it exited 0).
        for args in [&["--help"][..], &["fuzz", "--help"], &["--version"]] {
            let out = Command::new("sincro")
                .env("PATH", crate::common::path_with_sincro())
                .args(args)
                .stdout(std::fs::File::create("/dev/full").unwrap())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(
                text(&out).1.contains("cannot write to standard output"),
                "{args:?}: {}",
                text(&out).1
            );
        }
    }
    // A FIFO no program reads is an error at once (these waited for a reader forever); one
    // with a reader gets the whole report: the probe before the campaign holds its end open
    // (closing it ended the reader's input, and the write then waited forever). A symlink
    // loop is refused before the work, a link to a file not there yet is written through.
    let dir = fresh("fifo-and-links");
    let failures = dir.join("failures");
    let fuzz_junit = |junit: &str| {
        let failures = failures.to_str().unwrap();
        let args = [
            "-a",
            "mutex.centralized",
            "--seeds",
            "2",
            "-q",
            "--out",
            failures,
        ];
        sincro(&[&["fuzz"][..], &args, &["--junit", junit]].concat())
    };
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let f = fifo.to_str().unwrap();
        for args in [
            vec!["run", corpus, "--trace", f],
            vec!["shrink", corpus, "--out", f],
            vec!["show", corpus, "--out", f],
            vec![
                "fuzz",
                "-a",
                "mutex.centralized",
                "--seeds",
                "2",
                "-q",
                "--junit",
                f,
            ],
        ] {
            let out = sincro(&args);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out).1);
            assert!(
                text(&out).1.contains("a FIFO with no reader"),
                "{args:?}: {}",
                text(&out).1
            );
        }
        let copy = dir.join("copy.xml");
        let reader = Command::new("sh")
            .args(["-c", "exec cat \"$0\" > \"$1\""])
            .arg(&fifo)
            .arg(&copy)
            .spawn()
            .unwrap();
        // Wait until the reader has the FIFO open: `sincro` refuses a FIFO with no reader,
        // and a loaded machine starts `cat` late (the campaign then failed and the test
        // waited for the reader forever). Opening the write end blocks until it has; this
        // end stays open until the campaign is done, so the reader sees the end of its
        // input only after the report.
        let (tx, rx) = std::sync::mpsc::channel();
        let fifo_path = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(std::fs::OpenOptions::new().write(true).open(fifo_path));
        });
        let held = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the reader opens the FIFO within a minute")
            .unwrap();
        let out = fuzz_junit(f);
        drop(held);
        let status = reader.wait_with_output().unwrap().status;
        assert!(status.success());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
        let xml = std::fs::read_to_string(&copy).unwrap();
        assert!(xml.trim_end().ends_with("</testsuites>"), "{xml}");
    }
    let looped = dir.join("loop.json");
    std::os::unix::fs::symlink("loop.json", &looped).unwrap();
    let out = sincro(&["shrink", corpus, "--out", looped.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out).1);
    assert!(
        !text(&out).1.contains("shrinking"),
        "refused before the work: {}",
        text(&out).1
    );
    let link = dir.join("report.xml");
    std::os::unix::fs::symlink("reports/junit.xml", &link).unwrap();
    let out = fuzz_junit(link.to_str().unwrap());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    assert!(dir.join("reports/junit.xml").is_file());
    let file = tmp("not-a-dir");
    std::fs::write(&file, "").unwrap();
    let out_dir = file.join("failures");
    for cmd in ["fuzz", "matrix"] {
        let out = sincro(&[
            cmd,
            "-a",
            "mutex.centralized",
            "--seeds",
            "2",
            "-q",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        let err = text(&out).1;
        assert_eq!(out.status.code(), Some(2), "{cmd}: {err}");
        assert!(err.contains("--out: cannot write to"), "{cmd}: {err}");
    }
}

#[cfg(unix)]
/// A program started under another name (a user's `lease-sincro`, here a link) says its own
/// name in `--version`, with the sincro it is built on (it said `sincro 0.1.0`).
#[test]
fn a_program_under_another_name_says_so_in_its_version() {
    let dir = fresh("renamed");
    let link = dir.join("my-sim");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sincro"), &link).unwrap();
    let o = Command::new(&link).arg("--version").output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        out.trim(),
        format!("my-sim (sincro {})", env!("CARGO_PKG_VERSION"))
    );
    let o = sincro(&["--version"]);
    assert_eq!(
        text(&o).0.trim(),
        format!("sincro {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn reports_do_not_replace_symlinks_or_devices() {
    let target = tmp("junit-target.xml");
    let link = tmp("junit-link.xml");
    let _ = std::fs::remove_file(&target);
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "correct",
        "--seeds",
        "2",
        "-q",
        "--junit",
        link.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("<testsuite"));
    let out = sincro(&[
        "matrix",
        "-a",
        "mutex.centralized",
        "--seeds",
        "2",
        "-q",
        "--out",
        tmp("matrix-out").to_str().unwrap(),
        "--markdown",
        "/dev/null",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).1);
    assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
}

/// An algorithm that needs more nodes than a campaign asks for is fuzzed from its own
/// minimum, and the campaign says so: RBS (a beacon and two receivers) at `--nodes-max 1`
/// had every scenario refused (exit 2, and every later target not run), and a clock
/// synchronization at one node judged nothing (every seed COULD NOT JUDGE).
#[test]
fn an_algorithm_that_needs_more_nodes_is_fuzzed_from_its_minimum() {
    let out = sincro(&[
        "fuzz",
        "-a",
        "clock.rbs,clock.cristian",
        "--variant",
        "correct",
        "--seeds",
        "3",
        "--nodes-min",
        "1",
        "--nodes-max",
        "1",
        "-q",
        "--out",
        fresh("raised-out").to_str().unwrap(),
    ]);
    let (stdout, err) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{err}");
    assert!(
        err.contains("note: clock.rbs needs at least 3 nodes: its scenarios have 3 to 3"),
        "{err}"
    );
    assert!(
        err.contains("note: clock.cristian needs at least 2 nodes"),
        "{err}"
    );
    assert!(
        stdout.contains("2/2 targets as expected (0 bugs caught, 2 correct variants held)"),
        "{stdout}"
    );
}

/// An engine that cannot run the campaign at all is refused before any seed runs, naming the
/// flag: one missing from this build, or node counts above its limit.
#[test]
fn an_engine_that_cannot_run_the_campaign_is_refused_before_it_starts() {
    let mut cases = vec![(
        vec!["--engine", "turmoil", "--nodes-max", "300"],
        "--nodes-max = 300 is above the turmoil engine's limit of 256",
    )];
    if cfg!(not(madsim)) {
        cases.push((
            vec!["--engine", "madsim"],
            "--engine madsim: the madsim engine is not in this build",
        ));
    }
    for (flags, msg) in cases {
        let mut args = vec!["fuzz", "-a", "mutex.centralized", "--seeds", "3", "-q"];
        args.extend(flags);
        let out = sincro(&args);
        let (stdout, err) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stdout}{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(stdout.is_empty(), "nothing ran: {stdout}");
    }
}

/// A target the time budget never reached was not tested: NOT RUN, not "as expected"; a
/// shard that holds no seed of the range is refused.
#[test]
fn a_target_the_budget_never_reached_is_not_as_expected() {
    let out = sincro(&[
        "fuzz",
        "-a",
        "mutex.ricart-agrawala",
        "--seeds",
        "20",
        "--time",
        "1ms",
        "-j",
        "1",
        "-q",
        "--out",
        tmp("budget-out").to_str().unwrap(),
        "--junit",
        tmp("budget-out").join("r.xml").to_str().unwrap(),
    ]);
    let (stdout, err) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}{err}");
    assert!(stdout.contains("NOT RUN: the time budget"), "{stdout}");
    assert!(!stdout.contains("2/2 targets as expected"), "{stdout}");
    // The JUnit message is the sentence alone ("… in 0 seeds" was appended to it, stop 73's
    // probe).
    let xml = std::fs::read_to_string(tmp("budget-out").join("r.xml")).unwrap();
    assert!(xml.contains(r#"type="not_run""#), "{xml}");
    assert!(!xml.contains("in 0 seeds\""), "{xml}");
    let out = sincro(&[
        "fuzz",
        "-a",
        "mutex.ricart-agrawala",
        "--seeds",
        "1",
        "--shard",
        "2/2",
        "-q",
        "--out",
        tmp("budget-out").to_str().unwrap(),
    ]);
    let (stdout, err) = text(&out);
    // Stop 56: refused, where it ran nothing and passed (a CI matrix of more shards than
    // seeds went green without fuzzing).
    assert_eq!(out.status.code(), Some(2), "{stdout}{err}");
    assert!(err.contains("has no seed for shard 2 of 2"), "{err}");
}

#[test]
fn run_judges_expect_and_replay_reports_the_verdict() {
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-lease-timeout-overlap.json"
    );
    // The scenario expects this violation: `run` exits 0, `replay` shows the violation (1).
    let out = sincro(&["run", corpus]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).0);
    assert!(text(&out).0.contains("as expected"));
    assert_eq!(
        sincro(&["replay", corpus, "--render", "none"])
            .status
            .code(),
        Some(1)
    );
    // Expecting a pass where the run violates: 1, and said so.
    let body = std::fs::read_to_string(corpus)
        .unwrap()
        .replace(r#"{ "violation": "mutual_exclusion" }"#, r#""pass""#);
    assert!(body.contains(r#""expect": "pass""#), "{body}");
    let path = tmp("expect-pass.json");
    std::fs::write(&path, body).unwrap();
    let out = sincro(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).0.contains("NOT as expected"));
    assert!(
        text(&out).0.contains("expected pass: NOT as expected"),
        "the expectation in words, not in Rust's Debug form: {}",
        text(&out).0
    );
    // A run too short to judge liveness can say so: `expect: {"unjudged": P}` is met by the
    // could-not-judge verdict (exit 0) and by nothing else (a pass would be exit 1, and the
    // verdict's own code, 6, when expecting a pass).
    let short = |expect: &str| {
        format!(
            r#"{{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 100,
                "workload": [{{"at_ms": 99, "node": 1, "input": {{"acquire": {{"hold_ms": 50}}}}}}],
                "expect": {expect}}}"#
        )
    };
    let path = tmp("expect-unjudged.json");
    std::fs::write(&path, short(r#"{"unjudged": "liveness"}"#)).unwrap();
    let out = sincro(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out).0);
    assert!(text(&out)
        .0
        .contains("expected liveness left unjudged: as expected"));
    std::fs::write(&path, short(r#""pass""#)).unwrap();
    assert_eq!(
        sincro(&["run", path.to_str().unwrap()]).status.code(),
        Some(6)
    );
    std::fs::write(&path, short(r#"{"unjudged": "nonsense"}"#)).unwrap();
    let out = sincro(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out)
        .1
        .contains("expect names the property `nonsense`"));
    // A pass where a violation was expected is a failure too: it says how to replay it.
    std::fs::write(
        &path,
        short(r#"{"violation": "mutual_exclusion"}"#).replace("\"at_ms\": 99", "\"at_ms\": 9"),
    )
    .unwrap();
    let out = sincro(&["run", path.to_str().unwrap()]);
    let (stdout, _) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("PASS")
            && stdout.contains("NOT as expected")
            && stdout.contains("replay: "),
        "{stdout}"
    );
}

#[test]
fn explore_exits_1_with_a_replayable_counterexample_0_without_and_2_on_bad_input() {
    // Its own directory: another test empties `explore-out` while this one runs.
    let dir = tmp("explore-exits");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = sincro(&[
        "explore",
        "-a",
        "order.total",
        "--variant",
        "unordered",
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("VIOLATION after 4 choices"), "{out}");
    let file = dir.join("order.total.unordered.explore.json");
    assert!(file.exists(), "{out}");
    // Exploring the native scenario again into the same folder would replace it: refused,
    // the file untouched.
    let native = dir.join("order.total.unordered.explore.native.json");
    let before = std::fs::read(&native).expect("the native scenario is written");
    let o = sincro(&[
        "explore",
        "--scenario",
        native.to_str().unwrap(),
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("is where this search writes its counterexample"),
        "{err}"
    );
    assert_eq!(std::fs::read(&native).unwrap(), before);
    // A symlink under the counterexample's name is replaced, not written through: it wrote
    // the counterexample over whatever file the link named.
    let precious = dir.join("precious.json");
    std::fs::write(&precious, "keep me").unwrap();
    std::fs::remove_file(&native).unwrap();
    std::os::unix::fs::symlink(&precious, &native).unwrap();
    let o = sincro(&[
        "explore",
        "-a",
        "order.total",
        "--variant",
        "unordered",
        "--out",
        d,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).1);
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
    assert!(!std::fs::symlink_metadata(&native).unwrap().is_symlink());
    assert_eq!(std::fs::read(&native).unwrap(), before);
    let o = sincro(&["explore", "--replay", file.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("total_order violated"), "{out}");
    assert!(out.contains("deliver"), "the trace is printed: {out}");
    // a file whose faults end past the limit on any time is refused, naming the field
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["bounds"]["faults_until_ns"] = serde_json::json!(u64::MAX);
    let edited = dir.join("edited-bounds.json");
    std::fs::write(&edited, doc.to_string()).unwrap();
    let o = sincro(&["explore", "--replay", edited.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("bounds.faults_until_ns"), "{err}");
    // A misspelt bound was dropped for its default (`pauzes`: no pause at all), and the last
    // of two equal keys won: both are refused, as in a scenario file.
    let original = std::fs::read_to_string(&file).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&original).unwrap();
    let pauses = doc["bounds"].as_object_mut().unwrap().remove("pauses");
    doc["bounds"]["pauzes"] = pauses.unwrap_or(serde_json::json!(0));
    let twice = original.replacen("\"bounds\": {", "\"bounds\": {\"loss\": 3, ", 1);
    for (name, content, says) in [
        ("typo.json", doc.to_string(), "unknown field `pauzes`"),
        ("twice.json", twice, "duplicate key `loss`"),
    ] {
        let edited = dir.join(name);
        std::fs::write(&edited, content).unwrap();
        let o = sincro(&["explore", "--replay", edited.to_str().unwrap()]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {out}{err}");
        assert!(err.contains(says), "{name}: {err}");
    }
    // A fault budget the window never lets the search spend is said so: a file that plans
    // nothing has its faults end at 1 ms, before the first heartbeat.
    let quiet = dir.join("quiet.json");
    std::fs::write(
        &quiet,
        r#"{"algorithm": "election.lease", "nodes": 3, "seed": 1, "duration_ms": 300,
            "network": {"latency": {"constant": {"ms": 2}}}}"#,
    )
    .unwrap();
    let explore_quiet = |extra: &[&str]| {
        let q = quiet.to_str().unwrap();
        let mut args = vec!["explore", "--scenario", q, "--loss", "1", "--depth", "12"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", d]);
        let o = sincro(&args);
        assert_eq!(o.status.code(), Some(0), "{}{}", text(&o).0, text(&o).1);
        text(&o).0
    };
    let out = explore_quiet(&[]);
    assert!(out.contains("no fault was ever injected"), "{out}");
    let out = explore_quiet(&["--faults-until-ms", "100"]);
    assert!(!out.contains("no fault was ever injected"), "{out}");
    // Nor of a search cut before it got anywhere (`--time 1ns` said it of nothing).
    let o = sincro(&[
        "explore",
        "--scenario",
        quiet.to_str().unwrap(),
        "--loss",
        "1",
        "--time",
        "1ns",
        "--out",
        d,
    ]);
    assert!(
        !text(&o).0.contains("no fault was ever injected"),
        "{}",
        text(&o).0
    );
    // Choices after the violation were neither checked nor run, and the summary counted them.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let schedule = doc["schedule"].as_array_mut().expect("a schedule");
    let last = schedule.last().expect("a choice").clone();
    schedule.push(last);
    let edited = dir.join("edited-longer.json");
    std::fs::write(&edited, doc.to_string()).unwrap();
    let o = sincro(&["explore", "--replay", edited.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("come after the verdict"), "{err}");
    // A file edited past the explorer's node count is refused as a search's scenario is
    // (10,000 nodes replayed for minutes).
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["scenario"]["nodes"] = serde_json::json!(10_000);
    let edited = dir.join("edited-nodes.json");
    std::fs::write(&edited, doc.to_string()).unwrap();
    let o = sincro(&["explore", "--replay", edited.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("10000 nodes: exploration is for small"),
        "{err}"
    );
    // A recorded verdict the schedule does not replay to is said outright (a bare note).
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["verdict"] = serde_json::json!("pass");
    let edited = dir.join("edited-verdict.json");
    std::fs::write(&edited, doc.to_string()).unwrap();
    let o = sincro(&["explore", "--replay", edited.to_str().unwrap()]);
    assert!(
        text(&o)
            .0
            .contains("NOT the recorded verdict: the file records pass"),
        "{}{}",
        text(&o).0,
        text(&o).1
    );

    let o = sincro(&[
        "explore",
        "-a",
        "mutex.ricart-agrawala",
        "--depth",
        "8",
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("no violation"), "{out}");

    // --variant replaces a scenario file's variant: the textbook total order holds, the
    // unordered one breaks on the same file.
    let file = "corpus/ordering/bank-fig-6-11-total-order.json";
    let o = sincro(&["explore", "--scenario", file, "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let o = sincro(&[
        "explore",
        "--scenario",
        file,
        "--variant",
        "unordered",
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(out.contains("total_order violated"), "{out}");

    for (args, msg) in [
        (
            vec![
                "explore",
                "-a",
                "mutex.ricart-agrawala",
                "--variant",
                "nope",
            ],
            "unknown variant `nope`",
        ),
        (vec!["explore", "-a", "mutex.nope"], "unknown algorithm"),
        (
            vec!["explore", "-a", "omega.khouri-greve"],
            "omega.khouri-greve cannot be explored",
        ),
        // What to explore comes from one of three flags: the error names all three (it named
        // `--algorithm` only, as if the other two did not exist).
        (
            vec!["explore"],
            "--algorithm <ALGORITHM>|--scenario <FILE>|--replay <FILE>",
        ),
        (
            vec![
                "explore",
                "--scenario",
                "corpus/ordering/bank-fig-6-11-total-order.json",
                "--variant",
                "nope",
            ],
            "unknown variant `nope`",
        ),
        (
            vec!["explore", "-a", "mutex.ricart-agrawala", "--loss", "1"],
            "does not tolerate loss",
        ),
        (
            vec!["explore", "-a", "mutex.ricart-agrawala", "--nodes", "0"],
            "out of range",
        ),
        (
            vec!["explore", "-a", "mutex.centralized", "--active-ms", "0"],
            "--active-ms = 0 is outside 1 ..= 999999999 ms",
        ),
        (
            vec![
                "explore",
                "-a",
                "mutex.centralized",
                "--active-ms",
                "1000000000",
            ],
            "--active-ms = 1000000000 is outside 1 ..= 999999999 ms",
        ),
        // In range, but a clock run's convergence time past it goes over the limit on any
        // time: the flag is named, not the generated scenario's duration_ms (stop 74's probe).
        (
            vec![
                "explore",
                "-a",
                "clock.cristian",
                "--depth",
                "3",
                "--active-ms",
                "999999999",
            ],
            "--active-ms = 999999999: the scenario clock.cristian generates for it is refused",
        ),
        // A fault the explorer does not model (stop 64: refused after the header).
        (
            vec![
                "explore",
                "--scenario",
                "corpus/mutex/token-ring-late-token-no-generation.json",
            ],
            "faults[0]: the explorer does not model delays faults",
        ),
    ] {
        let o = sincro(&args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        // Refused before the header says a search started.
        assert!(!out.contains("exploring "), "{args:?}: {out}");
    }
}

/// `explore` with an `--out` it cannot write searched in full, then dropped the counterexample
/// it found with the write error (its verdict and schedule were never printed). The output is
/// now checked before the search.
#[test]
fn explore_refuses_an_out_it_cannot_write_before_searching() {
    let dir = fresh("explore-out");
    let file = dir.join("afile");
    std::fs::write(&file, "not a directory").unwrap();
    let out = file.join("x");
    let args = [
        "explore",
        "-a",
        "mutex.ricart-agrawala",
        "--variant",
        "no-tiebreak",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = sincro(&args);
    let (stdout, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{err}");
    assert!(err.contains("--out:"), "{err}");
    assert!(!stdout.contains("exploring"), "searched first: {stdout}");
}

/// `explore --scenario` of a scenario whose params the algorithm refuses names the file, as
/// `run` does (it named nothing).
#[test]
fn explore_names_the_scenario_the_algorithm_refuses() {
    let dir = fresh("explore-params");
    let file = dir.join("bad-params.json");
    std::fs::write(
        &file,
        r#"{"algorithm": "mutex.ricart-agrawala", "nodes": 3, "seed": 1, "duration_ms": 300,
            "params": {"colour": 1}}"#,
    )
    .unwrap();
    let o = sincro(&["explore", "--scenario", file.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("bad-params.json: ") && err.contains("colour"),
        "{err}"
    );
}

/// An output under a file is named as such ("File exists" was the OS's word for it), and
/// `shrink --out` of a directory is refused before shrinking.
#[test]
fn an_output_under_a_file_or_onto_a_directory_says_so() {
    let dir = fresh("out-under-file");
    let file = dir.join("afile");
    std::fs::write(&file, "x").unwrap();
    let scenario = "corpus/mutex/quorum-coordinator-amnesia.json";
    let trace = file.join("t.jsonl");
    let o = sincro(&["run", scenario, "--trace", trace.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("afile is not a directory"), "{err}");
    let o = sincro(&["shrink", scenario, "--out", dir.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("is a directory"), "{err}");
    // With no --out, the default output is named as such (stop 74's probe: "--out X").
    let copy = dir.join("amnesia.json");
    std::fs::copy(scenario, &copy).unwrap();
    std::fs::create_dir_all(dir.join("amnesia.shrunk.json")).unwrap();
    let o = sincro(&["shrink", copy.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("the default output "), "{err}");
    assert!(!err.contains("error: --out"), "{err}");
    // A refused --junit leaves no empty --out behind, and an --out that was there stays.
    let out_dir = dir.join("campaign");
    let out_dir_s = out_dir.to_str().unwrap();
    let refused = || {
        let o = sincro(&[
            "fuzz",
            "-a",
            "mutex.centralized",
            "--seeds",
            "2",
            "-q",
            "--out",
            out_dir_s,
            "--junit",
            out_dir_s,
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o).1);
    };
    for _ in 0..2 {
        refused();
        assert!(!out_dir.exists());
    }
    std::fs::create_dir(&out_dir).unwrap();
    refused();
    assert!(out_dir.is_dir());
    // A folder nothing can be written to is found before the shrink, not after it.
    let o = sincro(&["shrink", scenario, "--out", "/proc/sincro-shrunk.json"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("--out:") && !err.contains("shrinking"),
        "{err}"
    );
}

/// A scenario with nothing to judge is no pass whatever shows it: `run` and `replay` looked
/// for the evidence in the trace, and when `limits.max_trace_bytes` cut the trace before any
/// they passed (exit 0); `show` never looked. Each now says COULD NOT JUDGE; with a request,
/// the cut trace's run passes.
#[test]
fn a_pass_on_nothing_is_none_with_a_cut_trace_or_in_show() {
    let dir = fresh("cut-nothing");
    let file = dir.join("s.json");
    let scenario = |workload: &str, limits: &str| {
        format!(
            r#"{{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 300,
            "network": {{"latency": {{"constant": {{"ms": 2}}}}}}, "workload": [{workload}]{limits}}}"#
        )
    };
    let cut = r#", "limits": {"max_trace_bytes": 100}"#;
    let f = file.to_str().unwrap();
    for limits in ["", cut] {
        std::fs::write(&file, scenario("", limits)).unwrap();
        for cmd in ["run", "replay"] {
            let o = sincro(&[cmd, f]);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(6), "{cmd} {limits}: {out}{err}");
            assert!(out.contains("COULD NOT JUDGE mutual_exclusion"), "{out}");
        }
        let o = sincro(&["show", f]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}{err}");
        assert!(
            out.contains("# verdict: COULD NOT JUDGE mutual_exclusion"),
            "show {limits}: {out}"
        );
    }
    let acquire = r#"{"at_ms": 10, "node": 1, "input": {"acquire": {"hold_ms": 5}}}"#;
    std::fs::write(&file, scenario(acquire, cut)).unwrap();
    let o = sincro(&["run", f]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("PASS"), "{out}");
}

/// A scenario with nothing to judge (a mutual exclusion run without a request) is no pass for
/// `explore` either: `run` says COULD NOT JUDGE (exit 6), and explore passed every one of its
/// paths ("no violation", exit 0). With a request, it passes.
#[test]
fn explore_does_not_pass_a_scenario_that_judged_nothing() {
    let dir = tmp("explore-nothing");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("s.json");
    let scenario = |workload: &str| {
        format!(
            r#"{{"algorithm": "mutex.ricart-agrawala", "nodes": 3, "seed": 1, "duration_ms": 300,
            "network": {{"latency": {{"constant": {{"ms": 2}}}}}}, "workload": [{workload}]}}"#
        )
    };
    let d = dir.to_str().unwrap();
    std::fs::write(&file, scenario("")).unwrap();
    let f = file.to_str().unwrap();
    let o = sincro(&["run", f]);
    assert_eq!(o.status.code(), Some(6), "{}", text(&o).0);
    // Said of a run, as `shrink` of the same file says it (`run` said "the trace").
    assert!(
        text(&o)
            .0
            .contains("the run has no event of the kinds it reads"),
        "{}",
        text(&o).0
    );
    let o = sincro(&["explore", "--scenario", f, "--pauses", "0", "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(6), "{out}{err}");
    assert!(
        out.contains("mutual_exclusion could not be judged on 1 complete path:")
            && out.contains("nothing was judged"),
        "{out}"
    );
    std::fs::write(
        &file,
        scenario(r#"{"at_ms": 10, "node": 1, "input": {"acquire": {"hold_ms": 5}}}"#),
    )
    .unwrap();
    let o = sincro(&["explore", "--scenario", f, "--pauses", "0", "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(!out.contains("could not be judged"), "{out}");
}

/// A counterexample that needs a lost message replays as a native scenario: the native file
/// recorded the loss as a fate with no delay, but a recorded fate is replayed only where the
/// scenario's link can lose, and explored links lose nothing, so `run` delivered the message
/// and passed (bully) or broke at another instant (Berkeley). The file now declares a loss on
/// that link, and `run` and `explore --replay` report the same violation.
#[test]
fn an_explored_loss_replays_in_the_native_scenario() {
    let dir = tmp("explore-loss-native");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    for (alg, variant, extra) in [
        (
            "election.bully",
            "correct",
            &["--beyond-model", "--loss", "1"][..],
        ),
        ("clock.berkeley", "step-backwards", &[][..]),
    ] {
        let args = [
            &["explore", "-a", alg, "--variant", variant, "--out", d][..],
            extra,
        ]
        .concat();
        let o = sincro(&args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{alg}: {out}{err}");
        assert!(
            out.contains(". lose "),
            "{alg}: the path loses a message: {out}"
        );
        let schedule = dir.join(format!("{alg}.{variant}.explore.json"));
        let native = dir.join(format!("{alg}.{variant}.explore.native.json"));
        let verdict_of = |out: &str, prefix: &str| -> String {
            let line = out
                .lines()
                .find(|l| l.starts_with(prefix) && l.contains("VIOLATION"))
                .unwrap_or_else(|| panic!("{alg}: no verdict line in {out}"));
            // The same violation, at the same time, of the same events; their ids may differ
            // by the native file's own `set_links` (the declared loss ends where the search's
            // faults stop).
            let v = &line[line.find("VIOLATION").unwrap()..];
            v[..v.find(" (events").unwrap_or(v.len())].to_string()
        };
        let o = sincro(&["explore", "--replay", schedule.to_str().unwrap()]);
        let explored = verdict_of(&text(&o).0, alg);
        let o = sincro(&["run", native.to_str().unwrap()]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{alg}: {out}{err}");
        assert_eq!(verdict_of(&out, alg), explored, "{alg}");
        let file = std::fs::read_to_string(&native).unwrap();
        assert!(file.contains("\"loss\": 1e-9"), "{alg}: {file}");
    }
}

/// A file that expects one failure and fails another is shrunk to the failure it has, and
/// `shrink` says so (its `expect` was rewritten without a word).
#[test]
fn shrink_says_when_the_input_fails_other_than_it_expects() {
    let dir = tmp("shrink-other-expect");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file =
        std::fs::read_to_string("corpus/mutex/centralized-lease-timeout-overlap.json").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&file).unwrap();
    v["expect"] = serde_json::json!({"violation": "liveness"});
    let input = dir.join("s.json");
    std::fs::write(&input, v.to_string()).unwrap();
    let out = dir.join("out.json");
    let o = sincro(&[
        "shrink",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "note: the input expects a violation of liveness, but it fails this way: the shrunk \
             file keeps this failure, and its `expect` is a violation of mutual_exclusion"
        ),
        "{stdout}"
    );
    // The shrunk file of an input with no `expect` expects its failure, as a campaign's
    // does (`run` of it exited 1); one shrunk from a run limit expects nothing, since no
    // `expect` names a limit (it kept the input's, which `run` could never meet).
    for (name, edit, says, run_code) in [
        (
            "none",
            serde_json::json!(null),
            "the shrunk file's is a violation of mutual_exclusion",
            0,
        ),
        ("limit", serde_json::json!(8), "its `expect` is none", 4),
    ] {
        let mut v: serde_json::Value = serde_json::from_str(&file).unwrap();
        v.as_object_mut().unwrap().remove("expect");
        if name == "limit" {
            v["expect"] = serde_json::json!({"violation": "mutual_exclusion"});
            v["limits"] = serde_json::json!({"max_events": edit});
        }
        let input = dir.join(format!("{name}.json"));
        std::fs::write(&input, v.to_string()).unwrap();
        let out = dir.join(format!("{name}.out.json"));
        let o = sincro(&[
            "shrink",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{name}: {stdout}{stderr}");
        assert!(stdout.contains(says), "{name}: {stdout}");
        let o = sincro(&["run", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(run_code), "{name}: {}", text(&o).0);
    }
}

/// A --shrink-time that ends the shrink is named as such, however short (at 1–20 ms the
/// deadline stopped a run inside the shrinker and the line said "interrupted").
#[test]
fn a_shrink_cut_by_its_time_says_so() {
    let dir = tmp("shrink-time-cut");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("s.json");
    std::fs::copy(
        "corpus/election/lease-forget-promise-after-heal.json",
        &input,
    )
    .unwrap();
    for t in ["1ms", "5ms"] {
        let out = dir.join(format!("out-{t}.json"));
        let o = sincro(&[
            "shrink",
            input.to_str().unwrap(),
            "--shrink-time",
            t,
            "--out",
            out.to_str().unwrap(),
        ]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{t}: {stdout}{stderr}");
        assert!(
            stdout.contains("cut short (--shrink-time reached)"),
            "{t}: {stdout}"
        );
        assert!(!stdout.contains("interrupted"), "{t}: {stdout}");
    }
}

/// A campaign that found nothing must have judged something, as `run` of each of its
/// scenarios must: a 1-node `deadlock.cmh` has no wait-for edge to judge, and `fuzz` called
/// the correct variant "held" (exit 0, JUnit green) where `run` says COULD NOT JUDGE. Now it
/// is not as expected (exit 1), naming the property and the kinds it reads.
#[test]
fn fuzz_does_not_pass_a_campaign_that_judged_nothing() {
    let dir = tmp("fuzz-judged-nothing");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let fuzz = |nodes: &str| {
        sincro(&[
            "fuzz",
            "-a",
            "deadlock.cmh",
            "--variant",
            "correct",
            "--nodes-min",
            nodes,
            "--nodes-max",
            nodes,
            "--seeds",
            "20",
            "-j",
            "1",
            "--out",
            d,
            "--quiet",
        ])
    };
    let o = fuzz("1");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("COULD NOT JUDGE `deadlock_soundness`")
            && out.contains("0/1 targets as expected (0 bugs caught, 0 correct variants held)"),
        "{out}"
    );
    let o = fuzz("4");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("1 correct variant held"), "{out}");
}

/// Loss that never stops is a fault that never stops: a correct election under
/// `network.loss: 0.5` was blamed for `leader_stability` at 192 ms (a safety verdict the same
/// run with the loss restored at 1000 ms passed) and for liveness "after the faults stopped
/// (at 0 ms)". It is now COULD NOT JUDGE (exit 6), as under a partition never healed; with
/// the loss restored it passes.
#[test]
fn loss_that_never_stops_is_not_judged_as_stopped() {
    let dir = tmp("loss-never-stops");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, faults: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                r#"{{"algorithm": "election.terms", "variant": "correct", "nodes": 3, "seed": 1,
                "duration_ms": 5000, "network": {{"latency": {{"uniform": {{"min_ms": 1,
                "max_ms": 5}}}}, "loss": 0.5}}, "faults": [{faults}]}}"#
            ),
        )
        .unwrap();
        path
    };
    let lossy = file("lossy.json", "");
    let o = sincro(&["run", lossy.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(6), "{out}{err}");
    assert!(out.contains("COULD NOT JUDGE"), "{out}");
    let restored = file(
        "restored.json",
        r#"{"at_ms": 1000, "fault": {"set_links": {"loss": 0.0}}}"#,
    );
    let o = sincro(&["run", restored.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
}

/// An algorithm that needs more nodes than `--nodes` gives is explored with its least, and
/// `explore` says so, as `fuzz` does (only the header's count showed it).
#[test]
fn explore_says_when_it_raises_the_node_count() {
    let d = tmp("explore-nodes-min");
    let o = sincro(&[
        "explore",
        "-a",
        "clock.rbs",
        "--nodes",
        "1",
        "--depth",
        "2",
        "--out",
        d.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(
        out.starts_with("note: clock.rbs needs at least 3 nodes: exploring 3 (not --nodes 1)"),
        "{out}{err}"
    );
}

/// `--faults-until-ms` with no fault to inject was ignored: the search judged liveness from
/// the file's own faults, not from the time given (exit 1 "after the faults stopped at 60 ms"
/// for 2000). It is refused, naming the counts; with a fault to inject it is used.
#[test]
fn explore_refuses_faults_until_with_nothing_injected() {
    let f = "corpus/mutex/centralized-coordinator-crash.json";
    let d = tmp("explore-faults-until");
    let d = d.to_str().unwrap();
    let args = |pauses: &str| {
        [
            "explore",
            "--scenario",
            f,
            "--beyond-model",
            "--faults-until-ms",
            "2000",
            "--pauses",
            pauses,
            "--depth",
            "3",
            "--out",
            d,
        ]
        .map(String::from)
    };
    let a = args("0");
    let o = sincro(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("--faults-until-ms = 2000: no fault is injected (--loss 0 --dup 0"),
        "{err}"
    );
    let a = args("1");
    let o = sincro(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (out, err) = text(&o);
    assert_ne!(o.status.code(), Some(2), "{out}{err}");
}

/// A search cut by the depth bound before any path reached the end judged the cut paths'
/// prefixes for safety only: with nothing but properties judged against a liveness bound
/// asked for (`checks.properties`), that is nothing at all, and it passed (exit 0, "safety
/// only"). It is now no answer (exit 6), and the same file with a safety property still passes.
#[test]
fn explore_cut_by_depth_with_only_liveness_properties_is_no_answer() {
    let dir = tmp("explore-liveness-only");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let file = |properties: &[&str]| {
        let text = std::fs::read_to_string("corpus/election/bully-fig-6-19.json").unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v.as_object_mut().unwrap().remove("expect");
        v["checks"]["properties"] = serde_json::json!(properties);
        let path = dir.join(format!("{}.json", properties.join("+")));
        std::fs::write(&path, v.to_string()).unwrap();
        path
    };
    let liveness = file(&["election_termination", "leader_agreement"]);
    let o = sincro(&[
        "explore",
        "--scenario",
        liveness.to_str().unwrap(),
        "--depth",
        "4",
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(6), "{out}{err}");
    assert!(
        out.contains("NOTHING JUDGED: election_termination, leader_agreement are judged"),
        "{out}"
    );
    let safety = file(&["election_termination", "leader_uniqueness"]);
    let o = sincro(&[
        "explore",
        "--scenario",
        safety.to_str().unwrap(),
        "--depth",
        "4",
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        out.contains("safety only") && !out.contains("NOTHING"),
        "{out}"
    );
    // A property judged only from a late time is no answer too: `bounded_skew` from its
    // convergence time (84 s here), `leader_stability` from the quiet time (exit 0 before).
    for (alg, property) in [
        ("clock.cristian", "bounded_skew"),
        ("election.terms", "leader_stability"),
    ] {
        let late = dir.join(format!("{property}.json"));
        std::fs::write(
            &late,
            format!(
                r#"{{"algorithm": "{alg}", "nodes": 3, "seed": 1, "duration_ms": 1000000,
                    "checks": {{"properties": ["{property}"]}}}}"#
            ),
        )
        .unwrap();
        let o = sincro(&[
            "explore",
            "--scenario",
            late.to_str().unwrap(),
            "--depth",
            "3",
            "--out",
            d,
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(6), "{property}: {out}{err}");
        assert!(
            out.contains(&format!("NOTHING JUDGED: {property} is")),
            "{out}"
        );
    }
}

/// A scenario file too short for liveness's bound: every complete path is safe, but a
/// checker could not judge liveness on some, so explore does not pass it (exit 6, and says
/// why); the same file run long enough passes. Flags that shape a generated scenario are
/// refused with a file, and a file's faults window covers its inputs (not the generated
/// scenario's 20 ms, long before a request at 480 ms).
#[test]
fn explore_of_a_file_too_short_to_judge_exits_6_and_generation_flags_are_refused() {
    let dir = tmp("explore-unjudged");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = |duration_ms: u64| {
        format!(
            r#"{{"algorithm": "mutex.ricart-agrawala", "nodes": 2, "seed": 2,
            "duration_ms": {duration_ms},
            "network": {{"latency": {{"constant": {{"ms": 5.0}}}}}},
            "workload": [
                {{"at_ms": 480, "node": 1, "input": {{"acquire": {{"hold_ms": 22}}}}}},
                {{"at_ms": 483, "node": 0, "input": {{"acquire": {{"hold_ms": 6}}}}}}]}}"#
        )
    };
    let (short, long) = (dir.join("short.json"), dir.join("long.json"));
    std::fs::write(&short, scenario(493)).unwrap();
    std::fs::write(&long, scenario(2000)).unwrap();
    let d = dir.to_str().unwrap();
    let o = sincro(&["explore", "--scenario", short.to_str().unwrap(), "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(6), "{out}{err}");
    assert!(out.contains("but liveness could not be judged on"), "{out}");
    let o = sincro(&["explore", "--scenario", long.to_str().unwrap(), "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("no violation"), "{out}");
    assert!(!out.contains("could not be judged"), "{out}");
    // The injected pause lands among the inputs at 480 ms: some paths leave it past the end.
    assert!(out.contains("a pause outlived the faults"), "{out}");
    for flag in ["--nodes", "--seed", "--inputs", "--active-ms"] {
        let o = sincro(&["explore", "--scenario", long.to_str().unwrap(), flag, "5"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{flag}: {out}{err}");
        assert!(err.contains("cannot be used with"), "{flag}: {err}");
    }
}

/// Every line of `text` is at most 100 columns wide.
fn assert_fits(text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} columns: {line}\n{text}",
            line.chars().count()
        );
    }
}

#[test]
fn summaries_and_tables_fit_100_columns() {
    // The longest target names of the registry, with wrapped outcomes (deep bugs not reached).
    let out = tmp("fit-failures");
    let o = sincro(&[
        "fuzz",
        "-a",
        "election.*",
        "--seeds",
        "3",
        "--out",
        out.to_str().unwrap(),
        "--no-shrink",
        "--quiet",
    ]);
    let (stdout, stderr) = text(&o);
    assert!(
        stdout.contains("election.ring / stale-coordinator"),
        "{stdout}{stderr}"
    );
    // Every line but those naming a file (a path is not wrapped).
    let dir = out.to_str().unwrap();
    let prose: Vec<&str> = stdout.lines().filter(|l| !l.contains(dir)).collect();
    assert!(prose.iter().any(|l| l.contains("VIOLATION")), "{stdout}");
    assert_fits(&prose.join("\n"));
    // The columns do not shift: every row's `seeds` figure ends where the header's does.
    let header = stdout.lines().find(|l| l.starts_with("target")).unwrap();
    let end = header.find("seeds").unwrap() + "seeds".len();
    let rows = stdout
        .lines()
        .skip_while(|l| !l.starts_with("target"))
        .take_while(|l| !l.starts_with("total:"))
        .filter(|l| l.starts_with("election."));
    for row in rows {
        let before = &row[..end];
        assert!(
            before.ends_with(|c: char| c.is_ascii_digit())
                && !row[end..].starts_with(|c: char| c.is_ascii_digit()),
            "{row}\n{stdout}"
        );
    }
    // A measured table of `sincro table` and its Markdown form.
    let o = sincro(&["table", "election", "--n", "4,8"]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert_fits(&stdout);
    // Table 6.1: right-aligned columns holding formulas, 110 columns laid out naturally.
    let o = sincro(&["table", "mutex", "--n", "3"]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("mutex.ricart-agrawala"), "{stdout}");
    assert_fits(&stdout);
    let o = sincro(&["table", "election", "--n", "4,8", "--markdown"]);
    assert!(text(&o).0.contains("|---"), "{}", text(&o).0);
}

/// The merged closing line counts a deep bug its shards did not reach, as `fuzz` does: it
/// said "3/3 targets as expected (1 bug caught, 1 correct variant held)" of election.lease's
/// three (stop 65's probe).
#[test]
fn merged_shards_count_a_deep_bug_not_reached() {
    let dir = tmp("merge-deep");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let line =
        "3/3 targets as expected (1 bug caught, 1 deep bug not reached, 1 correct variant held)";
    for shard in ["1/2", "2/2"] {
        let xml = d(&format!("{}.xml", &shard[..1]));
        let o = sincro(&[
            "fuzz",
            "-a",
            "election.lease",
            "--variant",
            "all",
            "--seeds",
            "10",
            "--shard",
            shard,
            "--junit",
            &xml,
            "--out",
            &d("failures"),
            "--no-shrink",
            "--quiet",
        ]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
        assert!(stdout.contains(line), "{stdout}");
    }
    let o = sincro(&["merge-reports", &d("1.xml"), &d("2.xml")]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(line), "{stdout}");
    assert!(
        stdout.contains("deep bug, not reached in 10 seeds"),
        "{stdout}"
    );
}

/// A shrink its time limit stops is counted, however it stopped: the search also ends at its
/// deadline without asking, and the summary said "0 shrink(s) cut short" beside a shrunk
/// file marked "cut short" (stop 65's probe). The JUnit report says it too.
#[test]
fn a_campaigns_shrink_cut_by_its_time_is_counted() {
    let dir = tmp("fuzz-shrink-time-cut");
    let _ = std::fs::remove_dir_all(&dir);
    let xml = dir.join("j.xml");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.token-ring",
        "--variant",
        "no-generation",
        "--seeds",
        "5",
        "--shrink-time",
        "1ms",
        "--out",
        dir.to_str().unwrap(),
        "--junit",
        xml.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(", cut short]"), "{stdout}");
    assert!(
        stdout.contains("1 shrink(s) stopped at the shrink time limit"),
        "{stdout}"
    );
    let junit = std::fs::read_to_string(&xml).unwrap();
    assert!(
        junit.contains(r#"name="shrinks-cut-short" value="1""#),
        "{junit}"
    );
}

#[test]
fn merged_shards_count_as_the_whole_campaign() {
    let dir = tmp("merge");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = |f: &str| dir.join(f).to_str().unwrap().to_string();
    let fuzz_of = |alg: &str, seeds: &str, shard: &str, xml: &str| {
        let o = sincro(&[
            "fuzz",
            "-a",
            alg,
            "--seeds",
            seeds,
            "--shard",
            shard,
            "--junit",
            &d(xml),
            "--out",
            &d("failures"),
            "--no-shrink",
            "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}{}", text(&o).0, text(&o).1);
    };
    let fuzz = |shard: &str, xml: &str| fuzz_of("mutex.centralized", "60", shard, xml);
    fuzz("1/1", "whole.xml");
    fuzz("1/2", "a.xml");
    fuzz("2/2", "b.xml");
    let o = sincro(&[
        "merge-reports",
        &d("a.xml"),
        &d("b.xml"),
        "--junit",
        &d("merged.xml"),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert_fits(&stdout);
    assert!(
        stdout.contains("2/2 targets as expected (1 bug caught, 1 correct variant held)"),
        "{stdout}"
    );
    /// (classname, name) -> (seeds, first failing seed) of each testcase.
    fn cases(xml: &str) -> Vec<(String, String, u64, Option<u64>)> {
        let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        doc.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .map(|c| {
                let prop = |k: &str| {
                    c.descendants()
                        .find(|p| p.has_tag_name("property") && p.attribute("name") == Some(k))
                        .map(|p| p.attribute("value").unwrap().parse::<u64>().unwrap())
                };
                (
                    c.attribute("classname").unwrap().to_string(),
                    c.attribute("name").unwrap().to_string(),
                    prop("seeds").unwrap(),
                    prop("first-failure"),
                )
            })
            .collect()
    }
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let (whole, merged) = (cases(&read("whole.xml")), cases(&read("merged.xml")));
    // The correct variant: the shards' seeds add up to the whole range.
    assert_eq!(merged[0], whole[0]);
    assert_eq!(merged[0].2, 60);
    // The buggy one: caught in each shard, first at the whole campaign's first failing seed.
    assert_eq!((&merged[1].0, &merged[1].1), (&whole[1].0, &whole[1].1));
    assert_eq!(merged[1].3, whole[1].3);
    assert!(stdout.contains("caught in every report"), "{stdout}");
    // A shard that did not catch it (too few seeds for a deep bug): caught, in 1 of 2, not
    // "in every report". (b.xml's buggy testcase, its failures and first failure removed.)
    // b.xml with its buggy testcase's failures set to 0, and its first failure removed or kept.
    let zero_failures = |keep_first: bool| -> String {
        let mut in_buggy = false;
        let lines: Vec<String> = read("b.xml")
            .lines()
            .filter_map(|l| {
                if l.contains("<testcase") {
                    in_buggy = l.contains("name=\"lease-timeout\"");
                }
                if in_buggy && !keep_first && l.contains("name=\"first-failure\"") {
                    return None;
                }
                if in_buggy && l.contains("name=\"failures\"") {
                    return Some("<property name=\"failures\" value=\"0\"/>".to_string());
                }
                Some(l.to_string())
            })
            .collect();
        lines.join("\n")
    };
    let b_uncaught = zero_failures(false);
    std::fs::write(dir.join("b-uncaught.xml"), b_uncaught).unwrap();
    let o = sincro(&["merge-reports", &d("a.xml"), &d("b-uncaught.xml")]);
    let (out, err) = text(&o);
    assert!(out.contains("caught (in 1 of 2 reports)"), "{out}{err}");
    // The merged report written over one of its shards' would lose that shard: refused,
    // and the shard is left as it was.
    let before = read("a.xml");
    let o = sincro(&[
        "merge-reports",
        &d("a.xml"),
        &d("b.xml"),
        "--junit",
        &d("a.xml"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("is one of the reports to merge"),
        "{}",
        text(&o).1
    );
    assert_eq!(read("a.xml"), before);
    // A merged report is no shard: merged again (with itself, or with a shard it holds), its
    // shards counted twice with exit 0, and a partial merge came out whole (stop 58's probe).
    // It says which campaign it merged, and names its inputs unambiguously.
    let m = read("merged.xml");
    assert!(
        m.contains(r#"name="generation" value=""#)
            && m.contains(r#"name="beyond-model" value="false""#),
        "{m}"
    );
    assert!(
        m.contains(&format!(
            r#"name="merged" value="[&quot;{}&quot;"#,
            d("a.xml")
        )),
        "{m}"
    );
    for again in [
        [d("merged.xml"), d("merged.xml")],
        [d("merged.xml"), d("b.xml")],
    ] {
        let o = sincro(&["merge-reports", &again[0], &again[1]]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o).0);
        assert!(
            text(&o).1.contains("is itself a merged report"),
            "{}",
            text(&o).1
        );
    }
    // A caught bug with no failure counted contradicts itself.
    let zero = zero_failures(true);
    assert!(zero.contains("first-failure"));
    std::fs::write(dir.join("b-zero.xml"), zero).unwrap();
    let o = sincro(&["merge-reports", &d("a.xml"), &d("b-zero.xml")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).0);
    assert!(text(&o).1.contains("with 0 failures"), "{}", text(&o).1);
    // A shard given twice is bad input; so is a file that is not such a report.
    let o = sincro(&["merge-reports", &d("a.xml"), &d("a.xml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("given twice"), "{}", text(&o).1);
    // ... however its shard is spelled (the runs counted twice, 80 seeds of 60).
    let a = read("a.xml");
    assert!(a.contains(r#"name="shard" value="1/2""#));
    let edit = |from: &str, to: &str, file: &str| {
        assert!(a.contains(from), "{from}");
        std::fs::write(dir.join(file), a.replacen(from, to, 1)).unwrap();
        d(file)
    };
    let respelled = edit(r#"value="1/2""#, r#"value="01/2""#, "a01.xml");
    let o = sincro(&["merge-reports", &d("a.xml"), &respelled, &d("b.xml")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).0);
    assert!(
        text(&o).1.contains("shard 1/2 is given twice"),
        "{}",
        text(&o).1
    );
    // ... or with its shard property removed (taken for 1/1, its runs counted twice).
    let unnamed = edit(
        r#"<property name="shard" value="1/2"/>"#,
        "",
        "a-noshard.xml",
    );
    let o = sincro(&["merge-reports", &d("a.xml"), &unnamed, &d("b.xml")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).0);
    assert!(text(&o).1.contains("names no shard"), "{}", text(&o).1);
    // Times that add up past a Duration panicked (exit 101).
    let first_time_huge = |xml: &str| {
        let at = xml.find(" time=\"").expect("a time") + " time=\"".len();
        let end = at + xml[at..].find('"').unwrap();
        format!("{}1e19{}", &xml[..at], &xml[end..])
    };
    std::fs::write(dir.join("a-huge.xml"), first_time_huge(&a)).unwrap();
    let b = std::fs::read_to_string(dir.join("b.xml")).unwrap();
    std::fs::write(dir.join("b-huge.xml"), first_time_huge(&b)).unwrap();
    let o = sincro(&["merge-reports", &d("a-huge.xml"), &d("b-huge.xml")]);
    assert_eq!(o.status.code(), Some(2), "{}{}", text(&o).0, text(&o).1);
    assert!(
        text(&o).1.contains("add up past the longest duration"),
        "{}",
        text(&o).1
    );
    // Figures a report contradicts itself with: a suite's runs that are not its targets', a
    // variant buggy in one report and not in another, more seeds than the shard's part of the
    // range, a flag that is neither true nor false.
    for (from, to, file, needle) in [
        (
            r#"name="runs" value=""#,
            r#"name="runs" value="9"#,
            "runs.xml",
            "the suite counts 9",
        ),
        (
            r#"name="buggy" value="false""#,
            r#"name="buggy" value="true""#,
            "buggy.xml",
            "is not a buggy variant here and in another report",
        ),
        (
            r#"name="seeds" value=""#,
            r#"name="seeds" value="1000"#,
            "seeds.xml",
            "gives its shard 30",
        ),
        (
            r#"name="buggy" value="false""#,
            r#"name="buggy" value="maybe""#,
            "maybe.xml",
            r#"`buggy` = "maybe""#,
        ),
        // stop 74's probe: a cut-short flag spelled otherwise was read as false, so a shard
        // a time budget cut short merged as "held"
        (
            r#"name="cut-short" value="false""#,
            r#"name="cut-short" value="True""#,
            "cut-short.xml",
            r#"`cut-short` = "True""#,
        ),
        // stop 72's probe: fewer runs than seeds judged, a deep flag that differs between
        // reports, a first failure past the seeds the shard ran, a name that would print a
        // line of its own
        (
            r#"<property name="runs" value="30"/>"#,
            r#"<property name="runs" value="29"/>"#,
            "fewer-runs.xml",
            "has 30 seeds in 29 runs",
        ),
        (
            r#"name="deep" value="false""#,
            r#"name="deep" value="true""#,
            "deep.xml",
            "a deep bug here and",
        ),
        (
            r#"name="first-failure" value="0""#,
            r#"name="first-failure" value="28""#,
            "late-first.xml",
            "its shard's seed number 15, but it ran 1",
        ),
        (
            r#"classname="mutex.centralized""#,
            r#"classname="mutex.centralized&#10;9/9 targets as expected""#,
            "newline.xml",
            "holds a control character",
        ),
    ] {
        let edited = edit(from, to, file);
        let o = sincro(&["merge-reports", &edited, &d("b.xml")]);
        assert_eq!(o.status.code(), Some(2), "{file}: {}", text(&o).0);
        assert!(text(&o).1.contains(needle), "{file}: {}", text(&o).1);
    }
    // A matrix of more shards than any list could hold: counted, not listed (it took every
    // byte of memory and aborted).
    let wide: String = a
        .replacen(r#"value="1/2""#, &format!(r#"value="1/{}""#, u64::MAX), 1)
        // that shard holds one seed of the range
        .replace(r#"name="seeds" value="30""#, r#"name="seeds" value="1""#)
        .replace(r#"name="seeds" value="2""#, r#"name="seeds" value="1""#)
        .lines()
        .filter(|l| !l.contains(r#"name="first-failure""#))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.join("wide.xml"), wide).unwrap();
    let wide = d("wide.xml");
    let o = sincro(&["merge-reports", &wide]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).0);
    assert!(
        text(&o)
            .1
            .contains(&format!("and {} more are missing", u64::MAX - 11)),
        "{}",
        text(&o).1
    );
    // A missing shard is an error that names it; `--partial` merges and says so.
    let o = sincro(&["merge-reports", &d("a.xml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("shard 2/2 is missing"),
        "{}",
        text(&o).1
    );
    let o = sincro(&[
        "merge-reports",
        &d("a.xml"),
        "--partial",
        "--junit",
        &d("part.xml"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o).0, text(&o).1);
    assert!(
        text(&o).0.contains("PARTIAL: shard 2/2 not merged"),
        "{}",
        text(&o).0
    );
    assert!(read("part.xml").contains(r#"name="missing-shards" value="2/2""#));
    // A count that overflows the sum is named with the sum before it (the huge count may be
    // in the earlier report: the message named only the later one).
    // (A report that adds up by itself: the suite's runs and its targets' both huge.)
    let a = read("a.xml");
    assert!(a.contains(r#"name="runs" value="31""#) && a.contains(r#"name="runs" value="30""#));
    let huge = a
        .replacen(
            r#"name="runs" value="31""#,
            &format!(r#"name="runs" value="{}""#, u64::MAX),
            1,
        )
        .replacen(
            r#"name="runs" value="30""#,
            &format!(r#"name="runs" value="{}""#, u64::MAX - 1),
            1,
        );
    std::fs::write(dir.join("huge.xml"), huge).unwrap();
    let o = sincro(&["merge-reports", &d("huge.xml"), &d("b.xml")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).0);
    assert!(
        text(&o).1.contains(&format!(
            "in this report or the ones before, add up to {}",
            u64::MAX
        )),
        "{}",
        text(&o).1
    );
    // A first failure at a seed the shard never ran (shard 2/2 runs the odd seeds, and the
    // range ends at 60) was merged as the campaign's.
    let b = read("b.xml");
    let key = r#"name="first-failure" value=""#;
    let at = b.find(key).expect("a first failure in shard 2/2") + key.len();
    let end = at + b[at..].find('"').unwrap();
    for seed in ["4", "61"] {
        std::fs::write(
            dir.join("odd.xml"),
            format!("{}{seed}{}", &b[..at], &b[end..]),
        )
        .unwrap();
        let o = sincro(&["merge-reports", &d("a.xml"), &d("odd.xml")]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o).0);
        assert!(
            text(&o)
                .1
                .contains(&format!("fails first at seed {seed}, which its range")),
            "{}",
            text(&o).1
        );
    }
    // Shards of different matrices do not merge.
    let o = sincro(&["merge-reports", &d("a.xml"), &d("whole.xml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("different campaigns"), "{}", text(&o).1);
    // Nor do shards of campaigns over other seeds or other targets: their sum would be
    // called a whole campaign that never ran.
    fuzz_of("mutex.centralized", "90", "2/2", "b-90.xml");
    let o = sincro(&["merge-reports", &d("a.xml"), &d("b-90.xml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("(seeds [0, 60) and seeds [0, 90))"),
        "{}",
        text(&o).1
    );
    // Nor do shards generated another way (a strategy, a node range): their sum is no
    // campaign either. Nor do a shard that kept going and one that stopped at its first
    // failure, or one that checked determinism and one that did not (stop 64: merged, exit 0).
    for (flags, needles) in [
        (
            &["--strategy", "random"][..],
            &["strategy Mix", "strategy Random"][..],
        ),
        (&["--keep-going"], &["coverage on, keep-going"]),
        (
            &["--check-determinism"],
            &["coverage on, determinism checked"],
        ),
    ] {
        let mut args = vec![
            "fuzz",
            "-a",
            "mutex.centralized",
            "--seeds",
            "60",
            "--shard",
            "2/2",
            "--no-shrink",
            "--quiet",
        ];
        args.extend(flags);
        let (junit, out) = (d("b-other.xml"), d("failures-other"));
        args.extend(["--junit", &junit, "--out", &out]);
        let o = sincro(&args);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o).1);
        let o = sincro(&["merge-reports", &d("a.xml"), &junit]);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {}", text(&o).0);
        let err = text(&o).1;
        assert!(err.contains("different campaigns"), "{flags:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{flags:?}: {err}");
        }
    }
    // A shard a time budget cut short keeps saying so in the merge: its unrun seeds are no
    // part of a "no violation" over the range.
    for (shard, xml) in [("1/2", "cut-1.xml"), ("2/2", "cut-2.xml")] {
        let o = sincro(&[
            "fuzz",
            "-a",
            "mutex.centralized",
            "--variant",
            "correct",
            "--seeds",
            "1000000",
            "--time",
            "300ms",
            "--shard",
            shard,
            "--junit",
            &d(xml),
            "--out",
            &d("failures"),
            "--quiet",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    }
    let o = sincro(&["merge-reports", &d("cut-1.xml"), &d("cut-2.xml")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    assert!(text(&o).0.contains("(cut short in"), "{}", text(&o).0);
    // and its closing line, as `fuzz`'s does, counts it apart from the variants that held
    // (it said "1 correct variant held", stop 73's probe)
    assert!(
        text(&o)
            .0
            .contains("0 correct variants held, 1 correct cut short without a violation)"),
        "{}",
        text(&o).0
    );
    // A shard beyond the model and one inside differ by that alone, and the message says so
    // (it showed the same range twice).
    let beyond = read("a.xml").replace(
        r#"name="beyond-model" value="false""#,
        r#"name="beyond-model" value="true""#,
    );
    assert!(
        beyond.contains(r#"name="beyond-model" value="true""#),
        "{beyond}"
    );
    std::fs::write(dir.join("a-beyond.xml"), beyond).unwrap();
    let o = sincro(&["merge-reports", &d("a-beyond.xml"), &d("b.xml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o)
            .1
            .contains("seeds [0, 60) beyond the model and seeds [0, 60) inside the model"),
        "{}",
        text(&o).1
    );
    fuzz_of("mutex.quorum", "60", "2/2", "b-quorum.xml");
    let o = sincro(&["merge-reports", &d("a.xml"), &d("b-quorum.xml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("but not in") && text(&o).1.contains("different campaigns"),
        "{}",
        text(&o).1
    );
    std::fs::write(dir.join("bad.xml"), "<html/>").unwrap();
    let o = sincro(&["merge-reports", &d("bad.xml")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("bad.xml"), "{}", text(&o).1);
    // A report edited into one no campaign writes: refused, never merged (a count of
    // u64::MAX wrapped to 0 seeds; a testcase twice counted its seeds twice).
    let a = read("a.xml");
    let set = |xml: &str, key: &str, value: &str| {
        let at = xml.find(&format!(r#"name="{key}" value=""#)).unwrap() + key.len() + 15;
        let end = at + xml[at..].find('"').unwrap();
        format!("{}{value}{}", &xml[..at], &xml[end..])
    };
    let case_start = a.find("<testcase").unwrap();
    let case_end = a.find("</testcase>").unwrap() + "</testcase>".len();
    let twice = format!("{}{}", &a[..case_end], &a[case_start..]);
    let seeds_prop = a.find(r#"<property name="seeds""#).unwrap();
    let prop_end = seeds_prop + a[seeds_prop..].find("/>").unwrap() + 2;
    let repeated_prop = format!("{}{}", &a[..prop_end], &a[seeds_prop..]);
    for (edit, needle) in [
        (
            set(&a, "seeds", "18446744073709551615"),
            "gives its shard 30",
        ),
        (set(&a, "failures", "99"), "failures in"),
        (set(&a, "interrupted", "maybe"), "expected true or false"),
        (twice, "is in it twice"),
        (repeated_prop, "the property `seeds` twice"),
    ] {
        std::fs::write(dir.join("edited.xml"), &edit).unwrap();
        let o = sincro(&["merge-reports", &d("edited.xml"), &d("b.xml")]);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{needle}: {}{}",
            text(&o).0,
            text(&o).1
        );
        assert!(text(&o).1.contains(needle), "{needle}: {}", text(&o).1);
    }
    // The bug no shard caught: each shard's seeds may be too few for it (a deep bug), but the
    // merged campaign's are judged as a whole. Both shards are edited so that the buggy
    // variant (the second testcase) was not caught in them.
    let uncaught = |xml: &str, seeds: u64, deep: bool| {
        let at = xml.rfind("<testcase").unwrap();
        let (head, case) = xml.split_at(at);
        let mut case = case.to_string();
        if let Some(p) = case.find(r#"<property name="first-failure""#) {
            let end = p + case[p..].find("/>").unwrap() + 2;
            case.replace_range(p..end, "");
        }
        let case = set(&case, "failures", "0");
        let case = set(&case, "seeds", &seeds.to_string());
        let case = set(&case, "deep", &deep.to_string());
        // each seed a run, in the target's count and the suite's
        let get = |xml: &str, key: &str| -> u64 {
            let at = xml.find(&format!(r#"name="{key}" value=""#)).unwrap() + key.len() + 15;
            xml[at..at + xml[at..].find('"').unwrap()].parse().unwrap()
        };
        let suite_runs = get(head, "runs") - get(&case, "runs") + seeds;
        let case = set(&case, "runs", &seeds.to_string());
        let head = set(head, "runs", &suite_runs.to_string());
        // a range that holds that many seeds per shard
        let head = head.replace("seeds [0, 60)", "seeds [0, 200000)");
        format!("{head}{case}")
    };
    let b = read("b.xml");
    for (seeds, deep, code, needle) in [
        (
            30,
            false,
            1,
            "the bug was not caught in the 60 seeds of the merged shards",
        ),
        (40_000, true, 0, "2/2 targets as expected"),
        (
            60_000,
            true,
            1,
            "deep bug was not caught in the 120000 seeds",
        ),
    ] {
        std::fs::write(dir.join("ua.xml"), uncaught(&a, seeds, deep)).unwrap();
        std::fs::write(dir.join("ub.xml"), uncaught(&b, seeds, deep)).unwrap();
        let o = sincro(&["merge-reports", &d("ua.xml"), &d("ub.xml")]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(code), "{seeds} {deep}: {out}{err}");
        assert!(out.contains(needle), "{seeds} {deep}: {out}");
    }
}

#[test]
fn run_counts_the_events_of_its_trace_and_calls_the_engine_counter_steps() {
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-lease-timeout-overlap.json"
    );
    // Its folder is created, as `show --out`'s is.
    let trace = tmp("counted/new-folder/counted.jsonl");
    let _ = std::fs::remove_dir_all(tmp("counted"));
    let o = sincro(&["run", corpus, "--trace", trace.to_str().unwrap()]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    // The trace file: a header line, then one line per event.
    let in_file = std::fs::read_to_string(&trace).unwrap().lines().count() - 1;
    let counts = stdout
        .lines()
        .find(|l| l.contains(" steps, "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        counts
            .trim_start()
            .starts_with(&format!("{in_file} events, ")),
        "{counts} / {in_file} events in the trace"
    );
    // `check` of the same trace counts the same events.
    let o = sincro(&[
        "check",
        trace.to_str().unwrap(),
        "--properties",
        "mutual_exclusion",
    ]);
    assert!(
        text(&o).0.contains(&format!("  {in_file} events, 3 nodes")),
        "{}",
        text(&o).0
    );
    // Without a trace there are only the engine's steps, never called events.
    let o = sincro(&["run", corpus]);
    let (stdout, _) = text(&o);
    let counts = stdout.lines().find(|l| l.contains(" steps, ")).unwrap();
    assert!(!counts.contains("events"), "{counts}");
}

/// `sincro shrink` of a failure a campaign wrote unshrunk: a smaller file that fails the same
/// way, next to it; a passing scenario has nothing to shrink (exit 1), nor has one that could
/// not be judged (exit 6); bad input exits 2.
#[test]
fn shrink_makes_an_unshrunk_failure_smaller_and_it_still_fails_the_same_way() {
    let (dir, out) = fuzz_lease_timeout("shrink-out", &["--no-shrink"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let original = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("the failure file");
    let size = |p: &std::path::Path| {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        let len = |k: &str| v[k].as_array().map_or(0, Vec::len);
        (
            len("faults") + len("workload"),
            v["nodes"].as_u64().unwrap(),
        )
    };
    let shrunk_path = dir.join(format!(
        "{}.shrunk.json",
        original.file_stem().unwrap().to_str().unwrap()
    ));
    let out = sincro(&["shrink", original.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("mutual_exclusion violated"), "{stdout}");
    assert!(
        stdout.contains(&format!("replay: sincro replay {}", shrunk_path.display())),
        "{stdout}"
    );
    let (before, after) = (size(&original), size(&shrunk_path));
    assert!(
        after.0 + after.1 as usize <= before.0 + before.1 as usize,
        "{before:?} -> {after:?}"
    );
    // The shrunk file fails the same way, and says so in its `expect`.
    let run = sincro(&["run", shrunk_path.to_str().unwrap()]);
    let (rs, _) = text(&run);
    assert_eq!(run.status.code(), Some(0), "{rs}");
    assert!(
        rs.contains("mutual_exclusion violated") && rs.contains("as expected"),
        "{rs}"
    );
    // Cut before any candidate ran: it says so, and claims nothing of smaller scenarios.
    let cut_out = tmp("shrink-cut.json");
    let cut = sincro(&[
        "shrink",
        original.to_str().unwrap(),
        "--shrink-time",
        "1ns",
        "--out",
        cut_out.to_str().unwrap(),
    ]);
    let (cs, ce) = text(&cut);
    assert_eq!(cut.status.code(), Some(0), "{cs}{ce}");
    assert!(
        cs.contains("not shrunk before it was cut short") && !cs.contains("no smaller scenario"),
        "{cs}"
    );
    // Out of candidate runs: cut short too (it said "no smaller scenario fails the same
    // way" after one candidate, where twenty shrank it).
    let runs_out = sincro(&[
        "shrink",
        original.to_str().unwrap(),
        "--shrink-runs",
        "1",
        "--out",
        cut_out.to_str().unwrap(),
    ]);
    let (rs, re) = text(&runs_out);
    assert_eq!(runs_out.status.code(), Some(0), "{rs}{re}");
    assert!(
        rs.contains("cut short (--shrink-runs reached)") && !rs.contains("no smaller scenario"),
        "{rs}"
    );
    // A file edited into failing another way than its `expect` says: the shrunk file expects
    // the failure it keeps (it kept the stale one, and `run` said NOT as expected).
    let mut edited: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("corpus/mutex/ricart-agrawala-no-tiebreak.json"),
        )
        .unwrap(),
    )
    .unwrap();
    // Every message lost until 100 ms (a loss that never stops is a fault that never stops:
    // liveness could not be judged), then none: the requests lost are never granted.
    edited["network"]["loss"] = 1.0.into();
    edited["faults"] = serde_json::json!([{"at_ms": 100, "fault": {"set_links": {"loss": 0.0}}}]);
    edited["duration_ms"] = 1000.into();
    let (stale, stale_out) = (tmp("shrink-stale.json"), tmp("shrink-stale.shrunk.json"));
    std::fs::write(&stale, edited.to_string()).unwrap();
    let o = sincro(&[
        "shrink",
        stale.to_str().unwrap(),
        "--out",
        stale_out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    let o = sincro(&["run", stale_out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    assert!(text(&o)
        .0
        .contains("expected a violation of liveness: as expected"));
    // The input is kept, and may not be the output.
    assert!(original.exists());
    let same = sincro(&[
        "shrink",
        original.to_str().unwrap(),
        "--out",
        original.to_str().unwrap(),
    ]);
    assert_eq!(same.status.code(), Some(2));
    assert!(
        text(&same).1.contains("the input itself"),
        "{}",
        text(&same).1
    );
    // A scenario that passes: nothing to shrink, nothing written.
    let passing = tmp("shrink-pass.json");
    std::fs::write(
        &passing,
        r#"{"algorithm": "mutex.centralized", "nodes": 3, "seed": 1, "duration_ms": 500,
            "workload": [{"at_ms": 1, "node": 1, "input": {"acquire": {"hold_ms": 5}}}]}"#,
    )
    .unwrap();
    let pass = sincro(&["shrink", passing.to_str().unwrap()]);
    let (ps, pe) = text(&pass);
    assert_eq!(pass.status.code(), Some(1), "{ps}{pe}");
    assert!(ps.contains("nothing to shrink"), "{ps}");
    assert!(!tmp("shrink-pass.shrunk.json").exists());
    // A run that ends before its election can be judged: not a failure to shrink (a shorter
    // run would only judge less), exit 6 as `run` gives, nothing written.
    let short = tmp("shrink-unjudged.json");
    std::fs::write(
        &short,
        r#"{"algorithm": "election.bully", "nodes": 8, "seed": 1, "duration_ms": 12,
            "faults": [{"at_ms": 5, "fault": {"crash": {"node": 7}}}],
            "workload": [{"at_ms": 10, "node": 4, "input": "probe"}]}"#,
    )
    .unwrap();
    let unjudged = sincro(&["shrink", short.to_str().unwrap()]);
    let (us, ue) = text(&unjudged);
    assert_eq!(unjudged.status.code(), Some(6), "{us}{ue}");
    assert!(
        us.contains("COULD NOT JUDGE leader_agreement") && us.contains("not shrunk"),
        "{us}"
    );
    assert!(!tmp("shrink-unjudged.shrunk.json").exists());
    // Bad input, and outputs that cannot be written: a folder that is a file (refused before
    // any shrinking), a full device (the write fails after it).
    let not_a_dir = tmp("shrink-not-a-dir");
    std::fs::write(&not_a_dir, "").unwrap();
    let under_a_file = not_a_dir.join("x.json");
    let mut cases = vec![
        vec!["shrink", "/nonexistent/x.json"],
        vec!["shrink", original.to_str().unwrap(), "--shrink-runs", "0"],
        vec!["shrink", original.to_str().unwrap(), "--shrink-time", "0s"],
        vec![
            "shrink",
            original.to_str().unwrap(),
            "--out",
            under_a_file.to_str().unwrap(),
        ],
    ];
    if std::path::Path::new("/dev/full").exists() {
        cases.push(vec![
            "shrink",
            original.to_str().unwrap(),
            "--out",
            "/dev/full",
        ]);
    }
    for args in cases {
        let o = sincro(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o).1);
        if args.contains(&"--out") {
            assert!(text(&o).1.contains("cannot write"), "{}", text(&o).1);
        }
    }
}

/// The failing seeds and the seeds to the first failure of one `fuzz` campaign, from its table
/// (`<alg> / <variant> [bug]  seeds  fail  first …`).
fn fuzz_counts(stdout: &str, name: &str, seed_start: u64) -> (u64, Option<u64>) {
    let row = stdout
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no row for {name}\n{stdout}"));
    let f: Vec<&str> = row.split_whitespace().collect();
    let at = f.iter().position(|w| *w == "[bug]").expect("a buggy row") + 1;
    let fail: u64 = f[at + 1].parse().unwrap();
    let first = (fail > 0).then(|| f[at + 2].parse::<u64>().unwrap() - seed_start + 1);
    (fail, first)
}

#[test]
fn calibrate_agrees_with_fuzz_campaign_by_campaign_and_reports_rate_and_median() {
    let dir = tmp("calibrate");
    let _ = std::fs::remove_dir_all(&dir);
    let out = sincro(&[
        "calibrate",
        "-a",
        "election.bully",
        "--variant",
        "short-timeout",
        "--offsets",
        "2",
        "--seeds",
        "40",
        "--stride",
        "1000",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    // The oracle: each campaign is the `fuzz --keep-going` campaign of its seeds.
    let mut per: Vec<(String, u64, Option<u64>)> = Vec::new();
    for strategy in ["mix", "random"] {
        for start in [0u64, 1000] {
            let fz = sincro(&[
                "fuzz",
                "-a",
                "election.bully",
                "--variant",
                "short-timeout",
                "--seeds",
                "40",
                "--seed-start",
                &start.to_string(),
                "--strategy",
                strategy,
                "--keep-going",
                "--no-shrink",
                "--out",
                dir.join("fuzz").to_str().unwrap(),
            ]);
            let (fs, _) = text(&fz);
            let (fail, first) = fuzz_counts(&fs, "election.bully / short-timeout", start);
            per.push((strategy.to_string(), fail, first));
        }
    }
    for (strategy, k) in [("mix", 0), ("random", 2)] {
        let (fail, firsts) = (
            per[k].1 + per[k + 1].1,
            [per[k].2, per[k + 1].2].map(|f| f.map_or("-".to_string(), |n| n.to_string())),
        );
        let row = stdout
            .lines()
            .find(|l| l.starts_with(strategy) && l.contains("of 80"))
            .unwrap_or_else(|| panic!("no {strategy} row\n{stdout}"));
        assert!(
            row.contains(&format!("{fail} of 80")),
            "{row} vs fuzz: {fail}"
        );
        let rate = format!("{:.3} %", 100.0 * fail as f64 / 80.0);
        assert!(row.contains(&rate), "{row}: rate {rate}");
        let list = format!("  {strategy:<8} {} {}", firsts[0], firsts[1]);
        assert!(stdout.contains(&list), "{list:?} in\n{stdout}");
    }
    assert!(
        per.iter().map(|p| p.1).sum::<u64>() > 0,
        "a shallow bug is found"
    );
    // "Found within" counts no further than the campaigns ran (stop 64: `found ≤ 1000` of
    // campaigns of 40 seeds).
    assert!(
        stdout.contains("found ≤ 40") && !stdout.contains("≤ 1000"),
        "{stdout}"
    );
    assert!(stdout.contains("at a median within 40 seeds"), "{stdout}");
    // Each campaign's first failure is written under its strategy's name and replays.
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.to_string_lossy().contains(".random.seed"))
        .expect("a random campaign's first failure");
    let replay = sincro(&["run", file.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay).0);
}

#[test]
fn calibrate_on_a_correct_variant_finds_nothing_and_says_the_median_is_beyond_the_seeds() {
    let dir = tmp("calibrate-correct");
    let out = sincro(&[
        "calibrate",
        "-a",
        "election.bully",
        "--variant",
        "correct",
        "--strategy",
        "random",
        "--offsets",
        "3",
        "--seeds",
        "20",
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    let row = stdout.lines().find(|l| l.starts_with("random")).unwrap();
    assert!(
        row.contains("0 of 60") && row.contains("0 of 3") && row.ends_with("> 20"),
        "{row}"
    );
    assert!(stdout.contains("  random   - - -"), "{stdout}");
    assert!(stderr.is_empty(), "--quiet: {stderr}");
}

#[test]
fn calibrate_refuses_bad_settings_with_exit_2() {
    let dir = tmp("calibrate-bad");
    let d = dir.to_str().unwrap();
    let base = ["calibrate", "--out", d];
    for (extra, msg) in [
        (vec!["--offsets", "0"], "--offsets"),
        (vec!["--stride", "10"], "--stride"),
        (vec!["--seeds", "0"], "--seeds"),
        (vec!["-a", "no.such"], "no.such"),
        (
            vec!["-a", "election.bully", "--variant", "nope"],
            "unknown variant",
        ),
        (
            vec!["--variant", "nope"],
            "no algorithm has a variant `nope`",
        ),
        // A variant the selection leaves out is not said to exist nowhere; a control
        // character in a name is escaped, not printed raw.
        (
            vec!["-a", "mutex.*,!mutex.centralized", "--variant", "lease-timeout"],
            "no selected algorithm has a variant `lease-timeout` (`mutex.*,!mutex.centralized` leaves out mutex.centralized",
        ),
        (
            vec!["-a", "election.bully", "--variant", "short-timout"],
            "unknown variant `short-timout` of election.bully; did you mean `short-timeout`?",
        ),
        (
            vec!["-a", "mutex.centralized", "--variant", "v\u{1b}[1m"],
            "unknown variant `v\\u{1b}[1m`",
        ),
        // An algorithm named in a list that lacks the variant is refused, not dropped (it
        // was, and the rest ran "as expected", stop 72's probe); one a glob brings is not.
        (
            vec![
                "-a",
                "mutex.centralized,mutex.ricart-agrawala",
                "--variant",
                "lease-timeout",
            ],
            "unknown variant `lease-timeout` of mutex.ricart-agrawala",
        ),
        (vec!["--within", "0"], "--within"),
        (
            vec!["--within", "100000"],
            "--within 100000 is more than --seeds",
        ),
        (
            vec!["--seed-start", "18446744073709551000"],
            "past the last seed",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend(extra.iter());
        let out = sincro(&args);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stdout}{stderr}");
        assert!(stderr.contains(msg), "{extra:?}: {stderr}");
    }
}

#[test]
fn calibrate_takes_every_buggy_variant_of_a_selection_and_closes_with_a_count() {
    let dir = tmp("calibrate-many");
    let out = sincro(&[
        "calibrate",
        "-a",
        "election.bully,election.anel1",
        "--offsets",
        "2",
        "--seeds",
        "15",
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    // Each buggy variant gets its own table; no correct variant is calibrated.
    let heads: Vec<&str> = stdout.lines().filter(|l| l.ends_with("[bug]")).collect();
    assert_eq!(
        heads,
        [
            "election.bully / short-timeout [bug]",
            "election.anel1 / anonymous [bug]"
        ],
        "{stdout}"
    );
    assert!(!stdout.contains("/ correct"), "{stdout}");
    assert!(stdout.starts_with("calibration of 2 target(s)"), "{stdout}");
    assert!(
        stdout.contains(
            "mix: 2 of 2 buggy target(s) found in every campaign, 2 at a median within 15 seeds"
        ),
        "{stdout}"
    );
}

/// Standard output that cannot be written (a full disk): every command ends with exit 2 and
/// one line naming it, never a panic's exit 101, and `replay` does not report its verdict's
/// code (0 for a pass) with its timeline lost.
#[test]
fn output_that_cannot_be_written_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full on this system
    };
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-pass.json"
    );
    let commands: [&[&str]; 4] = [
        &["list"],
        &["run", corpus],
        &["replay", corpus],
        &["table", "mutex", "--n", "3"],
    ];
    for args in commands {
        let o = Command::new(env!("CARGO_BIN_EXE_sincro"))
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
    // The trace a run was asked for is written before the verdict is printed: a full
    // standard output does not lose it.
    let dir = tmp("stdout-full-trace");
    let trace = dir.join("t.jsonl");
    for cmd in ["run", "replay"] {
        let _ = std::fs::remove_file(&trace);
        let o = Command::new(env!("CARGO_BIN_EXE_sincro"))
            .args([cmd, corpus, "--trace", trace.to_str().unwrap()])
            .stdout(full.try_clone().unwrap())
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        let written = std::fs::read_to_string(&trace).unwrap_or_default();
        assert!(written.lines().count() > 1, "{cmd}: the trace was lost");
    }
}

/// An exploration cut before it finished its first level searched no bound: it is no answer
/// (exit 6, "NOTHING EXPLORED"), not "no violation within the bound" with exit 0 (the same
/// target fails after 3 choices when given the time).
#[test]
fn an_exploration_that_explored_nothing_is_no_answer() {
    let out = tmp("explore-nothing");
    let o = sincro(&[
        "explore",
        "-a",
        "order.lamport",
        "--variant",
        "no-merge",
        "--max-states",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(6), "{stdout}{stderr}");
    assert!(
        stdout.contains("nothing explored: the state bound ended the search")
            && stdout.contains("NOTHING EXPLORED")
            && !stdout.contains("no violation"),
        "{stdout}"
    );
}

/// An output that is the command's own input is refused before anything is written (`replay
/// S --trace S` turned a failure file into a trace); the replay line of a run on another
/// engine than its file's names that engine; a path that a shell would split is quoted.
#[test]
fn outputs_never_overwrite_their_input_and_replay_lines_replay() {
    let dir = tmp("own-input");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("my out")).unwrap();
    let corpus = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-lease-timeout-overlap.json"
    );
    let sc = dir.join("my out/s.json");
    std::fs::copy(corpus, &sc).unwrap();
    let before = std::fs::read(&sc).unwrap();
    let s = sc.to_str().unwrap();
    // a hard link is the same file under another name (it overwrote the scenario)
    let link = dir.join("my out/link.json");
    std::fs::hard_link(&sc, &link).unwrap();
    let h = link.to_str().unwrap();
    for args in [
        vec!["run", s, "--trace", s],
        vec!["replay", s, "--trace", s],
        vec!["show", s, "--out", s],
        vec!["run", s, "--trace", h],
        vec!["replay", s, "--trace", h],
        vec!["show", s, "--out", h],
    ] {
        let o = sincro(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o).1);
        assert!(text(&o).1.contains("itself"), "{args:?}: {}", text(&o).1);
        assert_eq!(
            std::fs::read(&sc).unwrap(),
            before,
            "{args:?} changed its input"
        );
    }
    let o = sincro(&["run", s, "--engine", "native"]);
    let stdout = text(&o).0;
    let line = stdout
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("replay: "))
        .expect("a replay line");
    // (the file's own engine: no override to name)
    assert!(line.ends_with(&format!("replay '{s}'")), "{line}");
}

/// `--shrink-runs N` bounds the candidates both shrink searches run together, and counts
/// only those run; repeated `calibrate --strategy` and a `bench --only` that matches only rows
/// `--no-turmoil` skips are bad input.
#[test]
fn shrink_caps_and_repeated_options_are_honoured() {
    let (dir, out) = fuzz_lease_timeout("shrink-cap", &["--shrink-runs", "1", "-j", "1"]);
    let stdout = text(&out).0;
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("[1 candidate runs"), "{stdout}");
    assert!(stdout.contains(", cut short]"), "{stdout}");
    let _ = std::fs::remove_dir_all(dir);
    for (args, needle) in [
        (
            vec![
                "calibrate",
                "-a",
                "mutex.centralized",
                "--strategy",
                "mix,mix",
                "--offsets",
                "1",
                "--seeds",
                "5",
            ],
            "--strategy names mix twice",
        ),
        (
            vec!["bench", "--no-turmoil", "--only", "turmoil"],
            "--no-turmoil skips the turmoil rows",
        ),
    ] {
        let o = sincro(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o).1);
        assert!(text(&o).1.contains(needle), "{args:?}: {}", text(&o).1);
    }
}

/// A campaign whose seed range ends at the last seed ends there, complete, even with a time
/// budget left (it spun until the budget ended and called itself cut short); its range is
/// printed with the last seed in it.
#[test]
fn a_range_that_ends_at_the_last_seed_ends_the_campaign() {
    let dir = tmp("last-seed");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "correct",
        "--seed-start",
        "18446744073709551614",
        "--time",
        "20s",
        "--out",
        dir.to_str().unwrap(),
        "-q",
        "-j",
        "1",
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stdout.contains("cut short"), "{stdout}");
    assert!(stdout.contains("no violation"), "{stdout}");
}

/// Explore answers nothing it did not search: fault counts that wrapped a u32 sum to 0 (no
/// faults injected, "whole state space, no violation"), paths cut by the file's own run
/// limits, or a file whose network loses messages by probability (silently explored as
/// reliable) each passed with exit 0. The counterexample files are written before anything is
/// printed about them, so a reader that stops early loses nothing; `--replay` refuses the
/// options it would ignore; an untimed counterexample that needs a late message says so.
#[test]
fn explore_never_passes_what_it_did_not_search() {
    let dir = tmp("explore-honest");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_str().unwrap();
    let ra = [
        "explore",
        "-a",
        "mutex.ricart-agrawala",
        "--pauses",
        "0",
        "--beyond-model",
    ];
    let o = sincro(&[&ra[..], &["--loss", "4294967295", "--dup", "1", "--out", d]].concat());
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "a loss is found: {out}{err}");

    let file = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let text =
            std::fs::read_to_string("corpus/mutex/ricart-agrawala-no-tiebreak.json").unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v.as_object_mut().unwrap().remove("expect");
        edit(&mut v);
        let path = dir.join(name);
        std::fs::write(&path, v.to_string()).unwrap();
        path
    };
    let limited = file("limited.json", &|v| {
        v["limits"] = serde_json::json!({"max_events": 6})
    });
    let o = sincro(&[
        "explore",
        "--scenario",
        limited.to_str().unwrap(),
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(4), "{out}{err}");
    assert!(
        out.contains("NO ANSWER") && !out.contains("whole state space"),
        "{out}"
    );

    let lossy = file("lossy.json", &|v| {
        v["network"]["loss"] = serde_json::json!(1.0)
    });
    let o = sincro(&["explore", "--scenario", lossy.to_str().unwrap(), "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("network.loss = 1"), "{err}");

    let o = sincro(&["explore", "--replay", "x.json", "-a", "mutex.centralized"]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));

    // The reader goes away after the header line: the search goes on, writes its files, and
    // its next line ends it (SIGPIPE).
    let out_dir = dir.join("piped");
    let mut child = Command::new("sincro")
        .env("PATH", crate::common::path_with_sincro())
        .args([
            "explore",
            "-a",
            "order.total",
            "--variant",
            "unordered",
            "--out",
        ])
        .arg(&out_dir)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::BufRead as _;
        let mut header = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut header)
            .unwrap();
        assert!(header.starts_with("exploring"), "{header}");
    }
    child.wait().unwrap();
    for name in ["explore.json", "explore.native.json"] {
        let f = out_dir.join(format!("order.total.unordered.{name}"));
        assert!(f.exists(), "{} was lost", f.display());
    }

    // An earlier search's native scenario of the same name described another execution.
    let stale = dir.join("election.bully.correct.explore.native.json");
    std::fs::write(&stale, "{}").unwrap();
    let o = sincro(&["explore", "-a", "election.bully", "--untimed", "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        out.contains("does not replay under timed semantics"),
        "{out}"
    );
    assert!(out.contains("no native scenario"), "{out}");
    assert!(!stale.exists() && err.contains("removed"), "{err}");
}

/// A matrix cell whose run could not be judged is no break, and a matrix of no cell is no
/// pass: `order.causal`'s crash cell (outside its model) said "breaks" for a run that
/// `replay` calls COULD NOT JUDGE; `election.anel1`, with no correct variant, "held" with 0
/// runs and exit 0. (Since stop 49 order.causal's replicas report their empty log at start,
/// so its crash cells are judged; RBS's crash-stop cell, whose one synchronized clock left
/// nothing to compare, is the unjudged cell.)
#[test]
fn matrix_cells_with_no_answer_are_not_breaks_and_an_empty_matrix_is_refused() {
    let dir = tmp("matrix-answers");
    let d = dir.to_str().unwrap();
    let o = sincro(&[
        "matrix",
        "-a",
        "clock.rbs",
        "--seeds",
        "1",
        "-q",
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let crashes = out
        .lines()
        .find(|l| l.starts_with("crash_stop "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        crashes.contains("could not judge: bounded_skew") && !crashes.contains("breaks"),
        "{crashes}"
    );
    let o = sincro(&["matrix", "-a", "election.anel1", "--seeds", "2", "--out", d]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("nothing to run"), "{err}");
    // A seed with no answer does not end its cell: `election.anel2`'s crash cell for
    // leader_agreement could not judge seed 0 and stopped there, saying "could not judge"
    // where seed 1 breaks (stop 70's probe). It goes on, and the break is the answer.
    let o = sincro(&[
        "matrix",
        "-a",
        "election.anel2",
        "--seeds",
        "3",
        "-q",
        "--out",
        d,
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let crashes: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("crashes "))
        .take(3)
        .collect();
    let cell = crashes.join(" ");
    assert!(
        cell.contains("leader_agreement") && cell.contains("(seed 1,"),
        "{cell}"
    );
    assert!(!cell.contains("could not judge"), "{cell}");
}

/// Without shrinking, the summary's `shrunk` column says none was made (it showed the
/// original's size as if shrunk); the original's size stays in the failure's own block.
#[test]
fn an_unshrunk_failure_has_no_shrunk_size_in_the_summary() {
    let dir = tmp("no-shrink-summary");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "10",
        "--no-shrink",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("mutex.centralized / lease-timeout [bug]"))
        .unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert!(cells.contains(&"-"), "{row}");
    assert!(
        !row.contains("f/"),
        "no size like 9f/19i/5n in the row: {row}"
    );
    assert!(out.contains("original ("), "{out}");
}

/// A shrunk file's description begins with how it was shrunk, then the original's text as
/// what came before; a file with no description gets no dangling "before shrinking:".
#[test]
fn a_shrunk_description_says_what_came_before_only_when_there_was_one() {
    let dir = fresh("shrink-description");
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("corpus/mutex/centralized-lease-timeout-overlap.json").unwrap(),
    )
    .unwrap();
    for (name, description) in [("with", "a story"), ("without", "")] {
        doc["description"] = serde_json::json!(description);
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, doc.to_string()).unwrap();
        let o = sincro(&["shrink", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}{}", text(&o).0, text(&o).1);
        let shrunk =
            sincro::harness::Scenario::load(&dir.join(format!("{name}.shrunk.json"))).unwrap();
        assert!(
            shrunk.description.starts_with("shrunk from "),
            "{}",
            shrunk.description
        );
        if description.is_empty() {
            assert!(
                !shrunk.description.contains("before shrinking"),
                "{}",
                shrunk.description
            );
        } else {
            assert!(
                shrunk.description.ends_with("; before shrinking: a story"),
                "{}",
                shrunk.description
            );
        }
    }
}

/// A list option's default is shown as it is typed, comma-separated (`[default: mix random]`
/// read as one value with a space, which is refused), and parses to the list the command
/// takes for "not given".
#[test]
fn list_defaults_are_shown_comma_separated_and_mean_not_given() {
    let help = text(&sincro(&["calibrate", "--help"])).0;
    assert!(help.contains("[default: mix,random]"), "{help}");
    let help = text(&sincro(&["bench", "--help"])).0;
    // the curve's sizes as typed, and the same lists `bench` takes for "not given"
    let typed = |ns: &[usize]| {
        let ns: Vec<String> = ns.iter().map(usize::to_string).collect();
        format!("[default: {}]", ns.join(","))
    };
    assert_eq!(
        typed(sincro::bench_scale::DEFAULT_SCALE_N),
        "[default: 10,100,1000,10000]"
    );
    assert!(
        help.contains(&typed(sincro::bench_scale::DEFAULT_SCALE_N))
            && help.contains(&typed(sincro::bench_scale::DEFAULT_CAUSAL_N)),
        "{help}"
    );
    // the defaults are "not given": --scale-one runs without a complaint about --scale-n
    let o = sincro(&["bench", "--scale-one", "election:3"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    assert!(
        text(&o).0.starts_with("scale election 3 "),
        "{}",
        text(&o).0
    );
}

/// Ω's shared-memory runs have no schedule for a strategy to shape: its rows of a calibration
/// are one measurement, and the output says so (it printed three identical rows as a
/// comparison).
#[test]
fn strategies_that_cannot_differ_are_not_presented_as_a_comparison() {
    let dir = tmp("omega-strategies");
    let calibrate = |target: &[&str]| {
        let mut args = vec!["calibrate", "--offsets", "1", "--seeds", "5"];
        args.extend(["--strategy", "pct,random", "-q", "--out"]);
        args.push(dir.to_str().unwrap());
        args.extend(target);
        text(&sincro(&args)).0
    };
    let out = calibrate(&["-a", "omega.khouri-greve"]);
    assert!(
        out.contains("note: omega.khouri-greve has no message schedule")
            && out.contains("its rows are one measurement"),
        "{out}"
    );
    // a message-passing algorithm's strategies differ: no such note
    let out = calibrate(&["-a", "mutex.centralized", "--variant", "lease-timeout"]);
    assert!(!out.contains("no message schedule"), "{out}");
}

/// `explore --inputs K` keeps the first K inputs of the generated workload: when it has
/// fewer, the search says how many it explores (the header alone said "1 inputs").
#[test]
fn explore_says_when_the_workload_has_fewer_inputs_than_asked() {
    let dir = tmp("explore-inputs");
    let o = sincro(&[
        "explore",
        "-a",
        "election.ring",
        "--nodes",
        "3",
        "--inputs",
        "4",
        "--time",
        "5s",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let out = text(&o).0;
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o).1);
    assert!(
        out.contains("note: the generated workload (seed 0, --active-ms 20) has 1 input(s): exploring those, not --inputs 4")
            && out.contains(": 3 nodes, 1 input, timed semantics"),
        "{out}"
    );
}

/// The README's example scenario (under "A scenario") meets its own `expect` (stop 64: with
/// one `acquire` nothing could overlap, and it passed, "NOT as expected").
#[test]
fn the_readmes_example_scenario_meets_its_expect() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = &readme[readme.find("## A scenario").expect("the section")..];
    let start = section.find("```json\n").expect("a JSON block") + "```json\n".len();
    let json = &section[start..start + section[start..].find("```").unwrap()];
    let path = tmp("readme-scenario.json");
    std::fs::write(&path, json).unwrap();
    let o = sincro(&["run", path.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("as expected"), "{out}");
}
