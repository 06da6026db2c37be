//! `sincro show`, `sincro check` and `sincro diff` end to end.

use sincro::harness::{Scenario, Verdict};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const LEASE: &str = "corpus/mutex/centralized-lease-timeout-overlap.json";
const PASS: &str = "corpus/mutex/centralized-pass.json";
const CRASH: &str = "corpus/mutex/centralized-coordinator-crash.json";

fn sincro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sincro"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("show-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited")
}

/// Records the trace of a corpus scenario with `sincro replay --trace`.
fn record(scenario: &str, name: &str) -> PathBuf {
    let path = tmp(name);
    let o = sincro(&["replay", scenario, "--trace", path.to_str().unwrap()]);
    assert!(path.exists(), "{}", stderr(&o));
    path
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn show_renders_a_scenario_in_every_format() {
    let text = sincro(&["show", LEASE]);
    assert_eq!(code(&text), 0, "{}", stderr(&text));
    let t = stdout(&text);
    assert!(
        t.contains(">>      64.000 ms  n2   @      64.000  observe   cs_enter r0"),
        "{t}"
    );
    assert!(t.contains("# verdict: VIOLATION (Safety): mutual_exclusion"));

    let mermaid = sincro(&["show", LEASE, "--format", "mermaid"]);
    assert_eq!(code(&mermaid), 0, "{}", stderr(&mermaid));
    let m = stdout(&mermaid);
    assert!(m.starts_with("sequenceDiagram\n"), "{m}");
    for line in [
        "    participant n2",
        "    n1->>n0: Request",
        "    n0->>n2: Grant { lease: 1 }",
        "    Note over n1: pause n1",
        "    Note over n0: timer LeaseExpired { lease: 0 }",
        "    rect rgb(255,200,200)",
    ] {
        assert!(m.lines().any(|l| l == line), "missing `{line}` in\n{m}");
    }
    assert!(m.contains("⚠ VIOLATION mutual_exclusion at 64.000 ms"));

    let out = tmp("lease.html");
    let html = sincro(&["show", LEASE, "--format", "html", "--out", p(&out)]);
    assert_eq!(code(&html), 0, "{}", stderr(&html));
    assert!(stdout(&html).is_empty());
    assert!(stderr(&html).starts_with("wrote "), "{}", stderr(&html));
    let h = std::fs::read_to_string(&out).unwrap();
    assert!(h.starts_with("<!DOCTYPE html>"));
    assert!(h.contains("centralized-lease-timeout-overlap: mutex.centralized / lease-timeout"));
    assert!(h.contains("<div class=\"verdict violation\">"));
    assert_eq!(h.matches("<line class=\"msg").count(), 4, "four messages");
    assert_eq!(h.matches("<g class=\"mark obs violating\">").count(), 2);
    assert!(!h.contains("http://") && !h.contains("https://"));
    // The summary's counts are the trace's, and the view's are labelled as such (it gave
    // the view's message counts beside the trace's event count).
    let o = sincro(&["show", LEASE, "--format", "html", "--only", "observations"]);
    let part = stdout(&o);
    let meta = part
        .lines()
        .find(|l| l.contains("class=\"meta\""))
        .unwrap_or_else(|| panic!("{part}"));
    assert!(
        meta.contains("shown) · 4 messages delivered, 0 dropped (0 and 0 in this view)"),
        "{meta}"
    );

    let jsonl = sincro(&["show", LEASE, "--format", "jsonl"]);
    assert_eq!(code(&jsonl), 0, "{}", stderr(&jsonl));
    // `--out` says what it wrote: the whole trace (it said "17 of 163 events shown", the
    // size of the views' default selection).
    let out = tmp("lease-show-out.jsonl");
    let o = sincro(&["show", LEASE, "--format", "jsonl", "--out", p(&out)]);
    let n = stdout(&jsonl).lines().count() - 1; // the header
    assert!(
        stderr(&o).contains(&format!("({n} of {n} events written;")),
        "{}",
        stderr(&o)
    );
    let recorded = std::fs::read_to_string(record(LEASE, "lease-show.jsonl")).unwrap();
    assert_eq!(
        stdout(&jsonl),
        recorded,
        "the same trace as `replay --trace`"
    );

    // The same bytes every time, and on turmoil too.
    assert_eq!(
        stdout(&sincro(&["show", LEASE, "--format", "mermaid"])),
        m,
        "deterministic"
    );
    let turmoil = sincro(&["show", LEASE, "--format", "html", "--engine", "turmoil"]);
    assert_eq!(code(&turmoil), 0, "{}", stderr(&turmoil));
    assert!(stdout(&turmoil).contains("turmoil engine"));
}

#[test]
fn show_renders_a_trace_without_a_verdict_unless_asked_to_check() {
    let trace = record(LEASE, "lease-for-show.jsonl");
    let plain = sincro(&["show", p(&trace), "--format", "html"]);
    assert_eq!(code(&plain), 0, "{}", stderr(&plain));
    let h = stdout(&plain);
    assert!(h.contains("<div class=\"verdict none\">"));
    assert!(!h.contains("violating\""));
    assert!(h.contains("<title>trace lease-for-show.jsonl</title>"));

    let checked = sincro(&[
        "show",
        p(&trace),
        "--format",
        "mermaid",
        "--check",
        "mutual_exclusion",
    ]);
    assert_eq!(code(&checked), 0, "{}", stderr(&checked));
    assert!(stdout(&checked).contains("⚠ VIOLATION mutual_exclusion"));

    let text = sincro(&["show", p(&trace)]);
    assert!(!stdout(&text).contains(">>"));
    assert!(!stdout(&text).contains("# verdict"));
}

#[test]
fn show_rejects_bad_input_with_exit_2() {
    let missing = sincro(&["show", "no/such/file.json"]);
    assert_eq!(code(&missing), 2);
    assert!(
        stderr(&missing).contains("cannot read no/such/file.json"),
        "{}",
        stderr(&missing)
    );

    let broken = tmp("broken.jsonl");
    std::fs::write(
        &broken,
        "{\"sincro_trace\": 1, \"nodes\": 2}\n{\"id\": 0}\n",
    )
    .unwrap();
    let o = sincro(&["show", p(&broken)]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("not a trace: line 2"), "{}", stderr(&o));

    let far = tmp("far-node.jsonl");
    std::fs::write(
        &far,
        "{\"sincro_trace\": 1, \"nodes\": 2}\n{\"id\":0,\"t_ns\":0,\"node\":7,\"kind\":{\"type\":\"start\",\"incarnation\":0}}\n",
    )
    .unwrap();
    let o = sincro(&["show", p(&far), "--format", "html"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("names node 7 (where it happened), but the trace has 2 nodes"),
        "{}",
        stderr(&o)
    );

    // Time going back and a delivery before its send are not traces a run could produce:
    // bad input naming the line, never a verdict.
    let back = tmp("time-back.jsonl");
    std::fs::write(
        &back,
        "{\"sincro_trace\": 1, \"nodes\": 2}\n\
         {\"id\":0,\"t_ns\":5,\"node\":0,\"kind\":{\"type\":\"start\",\"incarnation\":0}}\n\
         {\"id\":1,\"t_ns\":4,\"node\":1,\"kind\":{\"type\":\"start\",\"incarnation\":0}}\n",
    )
    .unwrap();
    for cmd in [
        vec!["show", p(&back)],
        vec!["check", p(&back), "--properties", "mutual_exclusion"],
    ] {
        let o = sincro(&cmd);
        assert_eq!(code(&o), 2, "{cmd:?}");
        assert!(
            stderr(&o).contains("line 3: time goes back"),
            "{cmd:?}: {}",
            stderr(&o)
        );
    }
    let early = tmp("deliver-before-send.jsonl");
    std::fs::write(
        &early,
        "{\"sincro_trace\": 1, \"nodes\": 2}\n\
         {\"id\":0,\"t_ns\":1,\"node\":1,\"kind\":{\"type\":\"deliver\",\"msg_id\":0,\"from\":0,\"sent\":1,\"msg\":\"m\"}}\n\
         {\"id\":1,\"t_ns\":2,\"node\":0,\"kind\":{\"type\":\"send\",\"msg_id\":0,\"to\":1,\"msg\":\"m\"}}\n",
    )
    .unwrap();
    let o = sincro(&["check", p(&early), "--properties", "causal_delivery"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("line 2: event 0 delivers message 0, which no earlier event sends"),
        "{}",
        stderr(&o)
    );
    let huge = tmp("huge-header.jsonl");
    std::fs::write(&huge, "{\"sincro_trace\": 1, \"nodes\": 1000000000}\n").unwrap();
    for cmd in [
        vec!["show", p(&huge)],
        vec!["check", p(&huge), "--properties", "vector_causality"],
    ] {
        let o = sincro(&cmd);
        assert_eq!(code(&o), 2, "{cmd:?}");
        assert!(
            stderr(&o).contains("declares 1000000000 nodes"),
            "{cmd:?}: {}",
            stderr(&o)
        );
    }

    let bad_scenario = tmp("bad-scenario.json");
    std::fs::write(
        &bad_scenario,
        r#"{"algorithm": "mutex.nope", "nodes": 3, "seed": 1, "duration_ms": 10}"#,
    )
    .unwrap();
    let o = sincro(&["show", p(&bad_scenario)]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("unknown algorithm `mutex.nope`"));
}

#[test]
fn check_judges_a_recorded_trace_offline() {
    let lease = record(LEASE, "lease-check.jsonl");
    let o = sincro(&["check", p(&lease), "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("VIOLATION (Safety): mutual_exclusion violated at 64.000 ms: node 2 entered the critical section of resource 0 while node 1 was still inside (events [13, 18])\n"),
        "{out}"
    );
    assert!(out.contains("  >>      14.000 ms  n1   @      14.000  observe   cs_enter r0"));

    let pass = record(PASS, "pass-check.jsonl");
    let o = sincro(&[
        "check",
        p(&pass),
        "--properties",
        // spaces after the commas are trimmed, as `fuzz -a "x, y"` trims its names
        "mutual_exclusion, liveness",
        "--liveness-bound-ms",
        "400",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).starts_with("PASS: mutual_exclusion, liveness held (50 events, 4 nodes"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("liveness from 130 ms within 400 ms"));
    // A property whose events the trace does not have passed vacuously: it is not judged.
    for (property, kinds) in [
        ("leader_uniqueness", "(`leader` naming its own node)"),
        ("causal_delivery", "(`delivered`)"),
        ("lamport_condition", "(`logical_time`)"),
    ] {
        let o = sincro(&[
            "check",
            p(&pass),
            "--properties",
            &format!("mutual_exclusion,{property}"),
        ]);
        assert_eq!(code(&o), 6, "{}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).starts_with(&format!(
                "COULD NOT JUDGE {property}: the trace has no event of the kinds it reads {kinds}"
            )),
            "{}",
            stdout(&o)
        );
    }

    // The coordinator crash: node 2's request is never granted. The trace's last event is the
    // restart at 60 ms, so the deadline (260 ms) is judged only when the run is said to last
    // longer (the scenario ran for 500 ms).
    let crash = record(CRASH, "crash-check.jsonl");
    let args = [
        "check",
        p(&crash),
        "--properties",
        "liveness",
        "--liveness-bound-ms",
        "200",
    ];
    // Judged up to the last event, node 2's request is still pending before its deadline:
    // the checker could not judge it (exit 6), which is not a pass.
    let o = sincro(&args);
    assert_eq!(code(&o), 6, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("COULD NOT JUDGE liveness"),
        "{}",
        stdout(&o)
    );
    let o = sincro(&[&args[..], &["--end-ms", "500"]].concat());
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("liveness violated at 260.000 ms"));
    let o = sincro(&[&args[..], &["--end-ms", "500", "--quiet-from-ms", "400"]].concat());
    assert_eq!(code(&o), 6, "deadline moved past the end: {}", stdout(&o));
    // A quiet time before the trace's own faults (the coordinator down from 20 to 60 ms)
    // blamed a request made while it was down "after the faults stopped (at 0.000 ms)".
    let o = sincro(&[&args[..], &["--end-ms", "500", "--quiet-from-ms", "0"]].concat());
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("--quiet-from-ms 0 is before the trace's faults end (60 ms)"),
        "{}",
        stderr(&o)
    );
    // An end before the last event (the restart at 60 ms) contradicts the trace: the checkers
    // judged the events after it and said "judged up to 10 ms".
    let o = sincro(&[&args[..], &["--end-ms", "10"]].concat());
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("--end-ms 10 is before the trace's last event, at 60.000 ms"),
        "{}",
        stderr(&o)
    );
}

/// A `total_order` cycle through 3,000 messages (three nodes, each two sharing one message,
/// no pair inverted): a violation whose explanation spells out the first steps and counts the
/// rest, and whose involved events are printed up to a limit, the rest counted.
#[test]
fn check_tells_a_long_violation_in_short() {
    let path = tmp("long-cycle.jsonl");
    let mut text = String::from("{\"sincro_trace\": 1, \"nodes\": 3}\n");
    let mut id = 0;
    for node in 0..3 {
        for i in node * 1000..=(node + 1) * 1000 {
            text.push_str(&format!(
                "{{\"id\":{id},\"t_ns\":{},\"node\":{node},\"kind\":{{\"type\":\"observe\",\"obs\":{{\"delivered\":{{\"id\":\"m{}\"}}}}}}}}\n",
                id * 1000,
                i % 3000
            ));
            id += 1;
        }
    }
    std::fs::write(&path, text).unwrap();
    let o = sincro(&["check", p(&path), "--properties", "total_order"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("more steps back to"), "{out}");
    assert!(out.contains("… and 2953 more events involved"), "{out}");
    assert!(out.lines().count() < 60, "{} lines", out.lines().count());
}

#[test]
fn check_rejects_bad_input_with_exit_2() {
    let lease = record(LEASE, "lease-check-bad.jsonl");
    let o = sincro(&[
        "check",
        p(&lease),
        "--properties",
        "mutual_exclusion,fairness",
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o)
            .contains("unknown property `fairness`; known properties: mutual_exclusion, liveness"),
        "{}",
        stderr(&o)
    );
    // An empty item is said as such (it read "unknown property ``", stop 72's probe).
    for list in [",", "mutual_exclusion,"] {
        let o = sincro(&["check", p(&lease), "--properties", list]);
        assert_eq!(code(&o), 2, "{list}");
        assert!(
            stderr(&o).contains("--properties has an empty item"),
            "{list}: {}",
            stderr(&o)
        );
    }
    // A byte that is not UTF-8 is named with its line (it named no line).
    let mut bytes = std::fs::read(&lease).unwrap();
    let third = bytes
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(1)
        .map(|(i, _)| i + 1)
        .unwrap();
    bytes.insert(third + 2, 0xff);
    let bad = tmp("lease-check-not-utf8.jsonl");
    std::fs::write(&bad, bytes).unwrap();
    let o = sincro(&["check", p(&bad), "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("not UTF-8 text: line 3 holds the byte 0xff"),
        "{}",
        stderr(&o)
    );
    // A misspelling of an algorithm's own property is named, and the list has it (it listed
    // the properties `check` judges alone).
    let o = sincro(&["check", p(&lease), "--properties", "bounded_skw"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("did you mean `bounded_skew`?")
            && stderr(&o).contains("newcomer_never_demotes"),
        "{}",
        stderr(&o)
    );
    // a property named twice, as `checks.properties` refuses it
    for cmd in ["check", "show"] {
        let flag = if cmd == "check" {
            "--properties"
        } else {
            "--check"
        };
        let o = sincro(&[cmd, p(&lease), flag, "mutual_exclusion,mutual_exclusion"]);
        assert_eq!(code(&o), 2, "{cmd}");
        assert!(stderr(&o).contains("named twice"), "{}", stderr(&o));
        // A property the scenario's algorithm does not promise: the error names the option
        // of this command (`show` was told of a `--properties` it does not have).
        let o = sincro(&[
            cmd,
            p(&lease),
            "--scenario",
            LEASE,
            flag,
            "leader_uniqueness",
        ]);
        assert_eq!(code(&o), 2, "{cmd}");
        assert!(
            stderr(&o).contains(&format!("{flag} names `leader_uniqueness`, which")),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    // `show --out` naming the --scenario file would replace the scenario with the render.
    let scenario_copy = tmp("show-out-is-the-scenario.json");
    std::fs::copy(LEASE, &scenario_copy).unwrap();
    let before = std::fs::read(&scenario_copy).unwrap();
    let sc = p(&scenario_copy);
    let o = sincro(&[
        "show",
        p(&lease),
        "--check",
        "mutual_exclusion",
        "--scenario",
        sc,
        "--out",
        sc,
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is the --scenario file"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&scenario_copy).unwrap(), before);
    // The election properties each algorithm judges its own way need the scenario; its
    // node count and quiet time come from it, not from flags as well.
    let o = sincro(&["check", p(&lease), "--properties", "leader_validity"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("give --scenario"), "{}", stderr(&o));
    let o = sincro(&[
        "check",
        p(&lease),
        "--properties",
        "mutual_exclusion",
        "--scenario",
        LEASE,
        "--nodes",
        "3",
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--nodes, --quiet-from-ms and --end-ms come from the scenario"),
        "{}",
        stderr(&o)
    );
    // --end-ms below the scenario's duration judged its run as stopped early: a liveness
    // violation read "could not judge".
    let o = sincro(&["check", p(&lease), "--scenario", LEASE, "--end-ms", "100"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("--end-ms come from the scenario"),
        "{}",
        stderr(&o)
    );
    let o = sincro(&[
        "check",
        p(&lease),
        "--properties",
        "leader_validity",
        "--scenario",
        LEASE,
    ]);
    assert_eq!(code(&o), 2);
    // The option named, not the scenario's `checks.properties` it replaces.
    assert!(
        stderr(&o).contains(
            "--properties names `leader_validity`, which mutex.centralized does not promise"
        ),
        "{}",
        stderr(&o)
    );
    // Ω's property is judged on its registers during a run: said so, not "unknown", and
    // not sent to `--scenario`, which refuses it in turn.
    let o = sincro(&["check", p(&lease), "--properties", "newcomer_never_demotes"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(
            "`newcomer_never_demotes` is judged by omega.khouri-greve on its own state during \
             a run, not from a trace: `check` cannot judge it"
        ),
        "{}",
        stderr(&o)
    );
    // A property of several algorithms names each (it named the first, clock.cristian, of a
    // Berkeley trace), and the properties judged without a scenario leave out those that
    // need one.
    let o = sincro(&["check", p(&lease), "--properties", "bounded_skew"]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(
        e.contains("clock.cristian") && e.contains("clock.berkeley") && e.contains("each its own"),
        "{e}"
    );
    let judged = e.split("judges are: ").nth(1).unwrap_or_default();
    assert!(
        judged.contains("mutual_exclusion") && !judged.contains("leader_validity"),
        "{e}"
    );
    let o = sincro(&["check", p(&lease), "--properties", "liveness"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("needs --liveness-bound-ms"),
        "{}",
        stderr(&o)
    );
    // A time past the longest possible run is refused, not judged (u64::MAX ms used to be
    // taken: a deadline no run reaches).
    for flag in ["--liveness-bound-ms", "--quiet-from-ms", "--end-ms"] {
        let mut a = vec!["check", p(&lease), "--properties", "liveness"];
        if flag != "--liveness-bound-ms" {
            a.extend(["--liveness-bound-ms", "100"]);
        }
        a.extend([flag, "18446744073709551615"]);
        let o = sincro(&a);
        assert_eq!(code(&o), 2, "{flag}: {}{}", stdout(&o), stderr(&o));
        assert!(
            stderr(&o).contains(&format!("{flag} = 18446744073709551615 is outside")),
            "{}",
            stderr(&o)
        );
    }
    // A bound of 0, refused in a scenario, was taken here (and the run "ended at 60.000 ms,
    // before its deadline 60.000 ms").
    let o = sincro(&[
        "check",
        p(&lease),
        "--properties",
        "liveness",
        "--liveness-bound-ms",
        "0",
    ]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("--liveness-bound-ms 0: nothing that takes a message or a step"),
        "{}",
        stderr(&o)
    );
    // A bound no property judged uses was taken and changed nothing.
    let o = sincro(&[
        "check",
        p(&lease),
        "--properties",
        "mutual_exclusion",
        "--liveness-bound-ms",
        "100",
    ]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("--liveness-bound-ms 100 is given, but no property judged here"),
        "{}",
        stderr(&o)
    );
    let o = sincro(&["check", LEASE, "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("not a trace"), "{}", stderr(&o));
    let o = sincro(&["check", "nope.jsonl", "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 2);
    let o = sincro(&["check", p(&lease)]);
    assert_eq!(code(&o), 2, "--properties is required");
    // `--nodes` against the header: a count the header contradicts is refused, fewer (the
    // events name node 2) or more (nodes that never started counted as live changed a
    // verdict); a header of 0 nodes takes it, and the events must then fit it.
    let with_nodes = |trace: &Path, nodes: &str| {
        sincro(&[
            "check",
            p(trace),
            "--properties",
            "mutual_exclusion",
            "--nodes",
            nodes,
        ])
    };
    for n in ["2", "9"] {
        let o = with_nodes(&lease, n);
        assert_eq!(code(&o), 2, "{}", stdout(&o));
        assert!(
            stderr(&o).contains(&format!("--nodes {n} contradicts the trace's header")),
            "{}",
            stderr(&o)
        );
    }
    let text = std::fs::read_to_string(&lease).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    assert!(head.contains("\"nodes\":"), "{head}");
    let zero = lease.with_file_name("lease-zero-nodes.jsonl");
    std::fs::write(&zero, format!("{{\"nodes\":0,\"sincro_trace\":1}}\n{rest}")).unwrap();
    let o = sincro(&["check", p(&zero), "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("give --nodes"), "{}", stderr(&o));
    let o = with_nodes(&zero, "2");
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("names node 2 (where it happened), but the trace has 2 nodes"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn diff_finds_the_first_divergence() {
    let a = record(LEASE, "lease-diff.jsonl");
    let same = sincro(&["diff", p(&a), p(&a)]);
    assert_eq!(code(&same), 0, "{}", stderr(&same));
    assert_eq!(stdout(&same), "identical (22 events)\n");

    // A header of 0 nodes (a trace recorded elsewhere) takes --nodes, as `check` does.
    let text = std::fs::read_to_string(&a).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let zero = tmp("lease-diff-zero-nodes.jsonl");
    let header: serde_json::Value = serde_json::from_str(head).unwrap();
    assert_eq!(header["nodes"], 3, "{head}");
    std::fs::write(
        &zero,
        format!("{}\n{rest}", head.replace("\"nodes\":3", "\"nodes\":0")),
    )
    .unwrap();
    assert_eq!(code(&sincro(&["diff", p(&zero), p(&zero)])), 2);
    let o = sincro(&["diff", p(&zero), p(&zero), "--nodes", "3"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // A scenario is run and compared with its recorded trace.
    let o = sincro(&["diff", LEASE, p(&a)]);
    assert_eq!(
        (code(&o), stdout(&o)),
        (0, "identical (22 events)\n".to_string())
    );

    // Event 13 changed: node 1 leaves instead of entering.
    let text = std::fs::read_to_string(&a).unwrap();
    let changed: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 14 {
                assert!(l.contains("cs_enter"), "{l}");
                l.replace("cs_enter", "cs_exit")
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect();
    let b = tmp("lease-diff-changed.jsonl");
    std::fs::write(&b, changed).unwrap();
    let o = sincro(&["diff", p(&a), p(&b), "--context", "2"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("traces diverge at event 13 (a has 22 events, b has 22); differs in: kind.obs.cs_enter, kind.obs.cs_exit\n"),
        "{out}"
    );
    assert!(out.contains("  [11]       14.000 ms  n0"), "{out}");
    assert!(!out.contains("  [10]"), "{out}");
    assert!(out.contains("- [13]       14.000 ms  n1   @      14.000  observe   cs_enter r0"));
    assert!(out.contains("+ [13]       14.000 ms  n1   @      14.000  observe   cs_exit r0"));
    assert!(out.contains("+ [15]"), "{out}");

    // Different scenarios: different node counts and events.
    let o = sincro(&["diff", PASS, LEASE]);
    assert_eq!(code(&o), 1);
    let out = stdout(&o);
    assert!(
        out.starts_with("the scenarios differ in: ") && out.contains("nodes"),
        "{out}"
    );
    assert!(
        out.contains("\nnode counts differ: a has 4 nodes, b has 3\n"),
        "{out}"
    );

    // Traces cut by their size limit are identical up to the cut: said, with what was not
    // compared (stop 72's probe: "identical" of runs that ended in different verdicts).
    let body = std::fs::read_to_string(LEASE).unwrap();
    let body = body.trim_end().trim_end_matches('}').to_string()
        + r#", "limits": {"max_trace_bytes": 600}}"#;
    let cut = tmp("lease-diff-cut.json");
    std::fs::write(&cut, body).unwrap();
    let c = record(p(&cut), "lease-diff-cut.jsonl");
    let o = sincro(&["diff", p(&c), p(&c)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("both were cut at") && stdout(&o).contains("not compared"),
        "{}",
        stdout(&o)
    );

    let o = sincro(&["diff", p(&a), "missing.jsonl"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("cannot read missing.jsonl"));
}

#[test]
fn a_liveness_violation_is_noted_at_its_deadline() {
    let o = sincro(&["show", CRASH, "--format", "mermaid"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = stdout(&o);
    let lines: Vec<&str> = m.lines().collect();
    let request = lines
        .iter()
        .position(|l| l.trim() == "Note over n2: cs_request r0")
        .expect("n2's request");
    assert_eq!(lines[request - 1].trim(), "rect rgb(255,200,200)");
    assert!(
        lines[lines.len() - 1].starts_with("    Note over n2: ⚠ VIOLATION liveness at 260.000 ms:"),
        "{m}"
    );
    assert_eq!(
        lines[lines.len() - 2],
        "    Note over n0: restart (incarnation 1)"
    );

    let o = sincro(&["show", CRASH, "--format", "html"]);
    assert!(stdout(&o).contains("<g class=\"span waiting violating\">"));
}

/// `single_acting_leader` judges any election trace offline: the shrunk bully split brain
/// (two nodes acting in term 0) is caught; the term election under the same partition, whose
/// old leader steps down, passes.
#[test]
fn single_acting_leader_catches_a_split_brain_and_passes_a_step_down() {
    let bully = record(
        "corpus/election/bully-partition-split-brain-shrunk.json",
        "bully-split.jsonl",
    );
    let o = sincro(&["check", p(&bully), "--properties", "single_acting_leader"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("node 0 acted as leader at 501.000 ms while node 1 (term 0, since 0.000 ms) kept acting"),
        "{}",
        stdout(&o)
    );
    let terms = record(
        "corpus/election/terms-partition-one-leader-per-term.json",
        "terms-partition.jsonl",
    );
    let o = sincro(&["check", p(&terms), "--properties", "single_acting_leader"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

/// A long failing corpus case (371 events) and the token-ring late token, whose violating
/// events come after the 400th event.
const LONG: &str = "corpus/election/lease-no-step-down-split-brain.json";
const LATE: &str = "corpus/mutex/token-ring-late-token-no-generation.json";

/// The violating lines (`>>`) of a text timeline.
fn violating_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with(">>")).collect()
}

#[test]
fn a_long_failure_shows_the_violation_and_its_causal_past_first() {
    let all = stdout(&sincro(&["show", LONG, "--all"]));
    assert_eq!(all.lines().count(), 371 + 2, "header, every event, verdict");
    assert!(!all.contains("# showing"), "{all}");
    let reduced = sincro(&["show", LONG]);
    assert_eq!(code(&reduced), 0, "{}", stderr(&reduced));
    let t = stdout(&reduced);
    let lines: Vec<&str> = t.lines().collect();
    // The note, wrapped to 100 columns (it was one line of 230), continued indented.
    let note: Vec<&str> = lines[1..]
        .iter()
        .take_while(|l| l.starts_with("# "))
        .copied()
        .collect();
    assert!(
        note.len() > 1 && note.iter().all(|l| l.chars().count() <= 100),
        "{note:?}"
    );
    assert!(note[1..].iter().all(|l| l.starts_with("#   ")), "{note:?}");
    let note = note
        .iter()
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        note.starts_with("showing 67 of 371 events up to the violation at 280.000 ms: ")
            && note.ends_with("; 304 hidden (`--all` shows every event)"),
        "{note}"
    );
    let lines: Vec<&str> = lines
        .iter()
        .filter(|l| !l.starts_with("#   "))
        .copied()
        .collect();
    assert_eq!(lines.len(), 67 + 3);
    // The same violating events, and every shown line is a line of the whole trace, in order.
    assert_eq!(violating_lines(&t), violating_lines(&all));
    assert_eq!(violating_lines(&t).len(), 2);
    let mut rest = all.lines();
    for l in &lines[2..] {
        assert!(
            rest.any(|a| a == *l),
            "`{l}` is not in the whole trace, in order"
        );
    }
    // The partition that split the leaders is kept.
    assert!(t.contains("FAULT     partition"), "{t}");
    // `replay` prints the same view, and all of it with --all.
    let replay = stdout(&sincro(&["replay", LONG]));
    assert!(replay.starts_with(&t), "{replay}");
    let replay_all = stdout(&sincro(&["replay", LONG, "--all"]));
    assert!(replay_all.starts_with(&all));

    // HTML: the default view fits the first screen; the whole run opens with a close-up.
    let h = stdout(&sincro(&["show", LONG, "--format", "html"]));
    let first_svg_width = |h: &str| -> f64 {
        let i = h.find("<svg width=\"").expect("an svg") + 12;
        h[i..].split('"').next().unwrap().parse().unwrap()
    };
    assert!(first_svg_width(&h) <= 1340.0, "{}", first_svg_width(&h));
    assert_eq!(h.matches("<g class=\"mark obs violating\">").count(), 2);
    assert!(h.contains("<p class=\"note\">showing 67 of 371 events"));
    let whole = stdout(&sincro(&["show", LONG, "--format", "html", "--all"]));
    let close = whole
        .find("<h2>Close-up: the violation and the end of its causal past")
        .expect("a close-up first");
    assert!(close < whole.find("<div class=\"diagram\">").unwrap());
    assert!(first_svg_width(&whole) <= 1340.0);
    assert!(whole.matches("<svg width=\"").count() >= 2);
}

#[test]
fn mermaid_keeps_a_late_violation_past_its_cap() {
    for args in [
        vec!["show", LATE, "--format", "mermaid"],
        vec!["show", LATE, "--format", "mermaid", "--all"],
    ] {
        let m = stdout(&sincro(&args));
        assert_eq!(
            m.matches("rect rgb(255,200,200)").count(),
            2,
            "{args:?}\n{m}"
        );
        assert!(
            m.contains("⚠ VIOLATION mutual_exclusion at 1100.000 ms"),
            "{args:?}"
        );
        assert!(
            m.contains("events in all not drawn (the diagram shows 400 of ")
                && m.contains(": the violating events and their causal past first)"),
            "{args:?}\n{m}"
        );
        // The notes between the events drawn, and after the last, add up to the closing
        // note's count (stop 66: it said "… 1095 more" beside notes counting 1092 of them).
        let count = |l: &str, tail: &str| -> Option<usize> {
            l.split_once("Note over ")?
                .1
                .split_once(": … ")?
                .1
                .strip_suffix(tail)
                .and_then(|rest| rest.split(' ').next()?.parse().ok())
        };
        let gaps: usize = m
            .lines()
            .filter_map(|l| {
                count(l, " events not drawn here").or_else(|| count(l, " event not drawn here"))
            })
            .sum();
        let total = m
            .lines()
            .find(|l| l.contains("events in all not drawn"))
            .and_then(|l| {
                l.split_once(": … ")?
                    .1
                    .split(' ')
                    .next()?
                    .parse::<usize>()
                    .ok()
            })
            .expect("a closing note");
        assert_eq!(gaps, total, "{args:?}\n{m}");
    }
    // `--out` says what the file draws (it said every event of the selection was shown)
    let out = tmp("late.mermaid");
    let o = sincro(&[
        "show",
        LATE,
        "--format",
        "mermaid",
        "--all",
        "--out",
        p(&out),
    ]);
    assert!(stderr(&o).contains("(400 of "), "{}", stderr(&o));
}

#[test]
fn filters_select_a_node_a_window_and_kinds_in_show_and_replay() {
    let node = stdout(&sincro(&["show", LEASE, "--node", "2"]));
    assert!(
        node.replace("\n#   ", " ").contains("# showing 7 of 22 events: node n2; up to the verdict at 64.000 ms (`--to-ms` or `--all` shows the 3 events after it) (the violating events are always shown)"),
        "{node}"
    );
    for l in node.lines().filter(|l| !l.starts_with('#')) {
        assert!(
            l.contains(" n2 ") || l.starts_with(">>"),
            "not about n2: {l}"
        );
    }
    // A failure's filtered view ends at the verdict; `--all` shows what follows it.
    let all = stdout(&sincro(&["show", LEASE, "--node", "2", "--all"]));
    assert!(
        all.contains("# showing 10 of 22 events: node n2 (the violating events are always shown)"),
        "{all}"
    );
    let window = stdout(&sincro(&[
        "show",
        LEASE,
        "--from-ms",
        "10",
        "--to-ms",
        "20",
        "--only",
        "observations,faults",
    ]));
    let events: Vec<&str> = window.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(events.len(), 4, "{window}");
    for l in &events {
        let t: f64 = l[2..].split_whitespace().next().unwrap().parse().unwrap();
        assert!((10.0..=20.0).contains(&t), "{l}");
        assert!(l.contains("observe") || l.contains("FAULT"), "{l}");
    }
    let h = stdout(&sincro(&[
        "show",
        LEASE,
        "--format",
        "html",
        "--from-ms",
        "10",
    ]));
    assert!(
        h.contains("global time 10.000 – "),
        "the axis starts at the window"
    );
    let r = sincro(&["replay", LEASE, "--only", "observations"]);
    assert_eq!(code(&r), 1, "replay still exits with the verdict");
    assert!(stdout(&r)
        .lines()
        .filter(|l| l.contains("ms  n"))
        .all(|l| l.contains("observe")));
}

#[test]
fn bad_view_options_exit_2_naming_the_problem() {
    for (args, message) in [
        (
            vec!["show", LONG, "--node", "9"],
            "--node 9 is not in the trace: it has 5 nodes (0 to 4)",
        ),
        (
            vec!["replay", LONG, "--node", "5"],
            "--node 5 is not in the trace: it has 5 nodes (0 to 4)",
        ),
        (
            vec!["show", LONG, "--from-ms", "50", "--to-ms", "10"],
            "--from-ms 50 is after --to-ms 10: the time window is reversed",
        ),
        (
            vec![
                "show",
                LONG,
                "--from-ms",
                "5.0000004",
                "--to-ms",
                "5.0000006",
            ],
            "--from-ms 5.0000004 to --to-ms 5.0000006 holds no whole nanosecond",
        ),
        (
            vec!["show", LONG, "--from-ms", "NaN"],
            "--from-ms NaN: a time in ms from 0",
        ),
        (
            vec!["show", LONG, "--to-ms", "1e300"],
            "--to-ms 1e300: a time in ms from 0",
        ),
        (
            vec!["show", LONG, "--only", "pings"],
            "invalid value 'pings' for '--only",
        ),
        (
            vec!["show", LONG, "--format", "jsonl", "--all"],
            "--format jsonl writes the whole trace",
        ),
        // Options the output would silently ignore are refused.
        (
            vec![
                "show",
                LONG,
                "--format",
                "jsonl",
                "--check",
                "leader_uniqueness",
            ],
            "--format jsonl writes the trace as it is",
        ),
        (
            vec!["show", LONG, "--liveness-bound-ms", "5"],
            "without --check nothing is judged",
        ),
        (
            vec!["show", LONG, "--title", "x"],
            "--title names the HTML page",
        ),
        (
            vec!["show", LONG, "--format", "html", "--title", " "],
            "--title is empty",
        ),
        (
            vec!["run", LONG, "--node", "1"],
            "--render none prints none: add --render text",
        ),
        (
            vec!["replay", LONG, "--render", "none", "--all"],
            "--render none prints none: add --render text",
        ),
    ] {
        let o = sincro(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
    // On a trace input, --engine (which runs a scenario) is refused; --nodes gives the count
    // a header of 0 nodes leaves out, and a blank file is no trace.
    let trace = record(PASS, "engine-on-trace.jsonl");
    for args in [
        vec!["show", p(&trace), "--engine", "turmoil"],
        vec!["diff", p(&trace), p(&trace), "--engine", "turmoil"],
    ] {
        let o = sincro(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(
            stderr(&o).contains("--engine runs a scenario input"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let text = std::fs::read_to_string(&trace).unwrap();
    let (header, events) = text.split_once('\n').unwrap();
    let nodes: serde_json::Value = serde_json::from_str(header).unwrap();
    let zero = tmp("zero-nodes.jsonl");
    std::fs::write(
        &zero,
        format!("{{\"nodes\":0,\"sincro_trace\":1}}\n{events}"),
    )
    .unwrap();
    let n = nodes["nodes"].to_string();
    let o = sincro(&["show", p(&zero), "--nodes", &n]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = sincro(&["show", p(&zero)]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Which count is wrong, the header's or --nodes' (a --nodes out of range was called the
    // header's), and where a header of 0 gets its count.
    assert!(
        stderr(&o).contains("the header declares 0 nodes") && stderr(&o).contains("--nodes N"),
        "{}",
        stderr(&o)
    );
    let o = sincro(&["show", p(&zero), "--nodes", "10001"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not a valid trace of --nodes 10001")
            && !stderr(&o).contains("header declares"),
        "{}",
        stderr(&o)
    );
    let empty = tmp("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    for args in [
        vec!["show", p(&empty)],
        vec![
            "check",
            p(&empty),
            "--properties",
            "mutual_exclusion",
            "--nodes",
            "3",
        ],
    ] {
        let o = sincro(&args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(
            stderr(&o).contains("the file is empty"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// Every property a built-in algorithm promises finds the events it reads
/// (`Property::EVIDENCE`) in that algorithm's own traces, so `sincro check` never calls a real
/// trace of it unjudged for want of them: the first few generated seeds of the correct variant
/// hold them.
#[test]
fn each_promised_property_finds_its_evidence_in_its_algorithms_traces() {
    use sincro::algorithms::Registry;
    use sincro::harness::gen::GenOptions;
    let opts = GenOptions::default();
    for alg in Registry::builtin().algorithms() {
        let info = alg.info();
        // its correct variant, or the first (election.anel1 has only its buggy one)
        let variant = info
            .variants
            .iter()
            .find(|v| !v.buggy)
            .unwrap_or(&info.variants[0])
            .name;
        let traces: Vec<_> = (0..4)
            .map(|seed| {
                let sc = alg.generate(variant, seed, &opts);
                alg.run(&sc, sincro::harness::RunOptions::new(true))
                    .expect("a generated scenario runs")
                    .trace
                    .expect("recorded")
            })
            .collect();
        for p in &info.properties {
            let Some(kinds) = sincro::checkers::evidence(p) else {
                continue; // judged on the algorithm's own state (Ω's registers)
            };
            assert!(
                traces
                    .iter()
                    .any(|t| sincro::checkers::has_evidence(t.events(), kinds)),
                "{}: no trace of 4 seeds has an event of {kinds:?}, which `{p}` reads",
                info.name
            );
        }
    }
}

/// `check --scenario` gives the run's verdict: every corpus scenario's trace, judged offline
/// with the checkers its algorithm builds, is judged as the run judged it (the election
/// properties with each algorithm's own ranking and settle time; a generic rule called correct
/// Chang–Roberts, ad hoc and terms runs violations).
#[test]
fn check_with_the_scenario_gives_the_runs_verdict_on_every_corpus_scenario() {
    use sincro::show::{judge, JudgeArgs};
    let mut compared = 0;
    for path in crate::common::corpus_files() {
        let sc = Scenario::load(&path).unwrap();
        let alg = sincro::algorithms::find(&sc.algorithm).unwrap();
        let out = alg
            .run(&sc, sincro::harness::RunOptions::new(true))
            .unwrap();
        let (Verdict::Pass | Verdict::Violation(_)) = &out.verdict else {
            continue; // a panic or a limit is no property's verdict
        };
        let properties: Vec<String> = match &sc.checks.properties {
            Some(p) => p.clone(),
            None => alg
                .info()
                .properties
                .iter()
                .map(|p| p.to_string())
                .collect(),
        };
        if properties
            .iter()
            .any(|p| sincro::checkers::evidence(p).is_none())
        {
            continue; // judged on the algorithm's own state (Ω's registers), not a trace
        }
        let args = JudgeArgs {
            nodes: None,
            quiet_from_ms: None,
            liveness_bound_ms: None,
            // the end is the scenario's, or where the trace stops
            end_ms: None,
            scenario: Some(path.clone()),
            ..JudgeArgs::default()
        };
        let trace = out.trace.as_ref().unwrap();
        let (offline, _) =
            judge(trace, &properties, &args).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match (&out.verdict, &offline) {
            (Verdict::Violation(a), Verdict::Violation(b)) => {
                assert_eq!(a.property, b.property, "{}", path.display());
                assert_eq!(a.t_ns, b.t_ns, "{}", path.display());
            }
            (Verdict::Pass, Verdict::Pass) => {}
            (run, check) => panic!("{}: run {run}, check {check}", path.display()),
        }
        compared += 1;
    }
    assert!(compared >= 40, "only {compared} corpus scenarios compared");
}

/// `check --scenario` judges liveness from the scenario's quiet time, so a trace with a fault
/// after the scenario's last is not a trace of it (exit 2): a crash of the leader 4 ms before
/// the end was judged a liveness violation. The run's own trace is judged as before.
#[test]
fn check_with_a_scenario_refuses_a_trace_with_a_fault_after_the_scenarios_last() {
    let sc = "corpus/election/bully-madsim-restart-coordinator.json";
    let (trace, check) = recorded_and_judged(sc, "late-fault.jsonl", "leader_agreement");
    assert_eq!(code(&check(&trace)), 0, "{}", stdout(&check(&trace)));
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let last: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    let (id, t_ns) = (
        last["id"].as_u64().unwrap() + 1,
        last["t_ns"].as_u64().unwrap(),
    );
    lines.push(format!(
        r#"{{"id": {id}, "t_ns": {t_ns}, "node": 2, "local_ns": {t_ns}, "kind": {{"type": "fault", "fault": {{"crash": {{"node": 2}}}}}}}}"#
    ));
    let late = tmp("late-fault-added.jsonl");
    std::fs::write(&late, lines.join("\n") + "\n").unwrap();
    refused_saying(
        &check(&late),
        &[
            "the trace has a fault (crash n2",
            "it is not a trace of that scenario",
        ],
    );
}

/// The trace of scenario `sc` (its run met its `expect`), recorded as `name`, and a judge of
/// a trace with `check --scenario sc --properties properties`.
fn recorded_and_judged<'a>(
    sc: &'a str,
    name: &str,
    properties: &'a str,
) -> (
    std::path::PathBuf,
    impl Fn(&Path) -> std::process::Output + 'a,
) {
    let trace = tmp(name);
    let o = sincro(&["run", sc, "--trace", p(&trace)]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let check =
        move |t: &Path| sincro(&["check", p(t), "--scenario", sc, "--properties", properties]);
    (trace, check)
}

/// `o` is bad input (exit 2) and its error says each of `needles`.
fn refused_saying(o: &std::process::Output, needles: &[&str]) {
    assert_eq!(code(o), 2, "{}{}", stdout(o), stderr(o));
    for needle in needles {
        assert!(stderr(o).contains(needle), "{needle}: {}", stderr(o));
    }
}

/// A trace's clock readings must be the clocks `bounded_skew` rebuilds from the scenario and
/// the trace's clock changes: a trace whose node 2 read its clock 100 s ahead passed
/// `bounded_skew` (which judged the rebuilt clocks) while `monotonic_clock` read the other
/// history. It is refused (exit 2); the run's own trace is judged.
#[test]
fn check_refuses_clock_readings_that_contradict_the_clock_changes() {
    let sc = "corpus/clocks/cristian-fig-6-6.json";
    let (trace, check) = recorded_and_judged(
        sc,
        "cristian-readings.jsonl",
        "bounded_skew,monotonic_clock",
    );
    assert_ne!(code(&check(&trace)), 2, "{}", stderr(&check(&trace)));
    let text = std::fs::read_to_string(&trace).unwrap();
    let shifted: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if v["node"] == 2 {
                let local = v["local_ns"].as_i64().unwrap();
                v["local_ns"] = (local + 100_000_000_000).into();
            }
            v.to_string()
        })
        .collect();
    let ahead = tmp("cristian-readings-ahead.jsonl");
    std::fs::write(&ahead, shifted.join("\n") + "\n").unwrap();
    refused_saying(
        &check(&ahead),
        &["reads node 2's clock as", "two different histories"],
    );
}

/// A violation judged at the cut of a trace is a judgement of the run's end, which the
/// trace does not reach: replicas "disagreed at the end" on a state of 10 ms, where the cut
/// instant (left out, it may be half recorded) held the newer one. The run's limit, as with
/// a cut a little later.
#[test]
fn a_violation_at_the_cut_is_no_judgement_of_the_runs_end() {
    let head = r#"{"sincro_trace": 1, "nodes": 2}"#;
    let state = |id: u64, ms: u64, node: u64, v: &str| {
        format!(
            r#"{{"id": {id}, "t_ns": {}, "node": {node}, "kind": {{"type": "observe", "obs": {{"state": {{"value": "{v}"}}}}}}}}"#,
            ms * 1_000_000
        )
    };
    let cut = |id: u64, ms: u64| {
        format!(
            r#"{{"id": {id}, "t_ns": {}, "kind": {{"type": "cut", "reason": "limits.max_events = 6 steps reached", "run_stopped": true}}}}"#,
            ms * 1_000_000
        )
    };
    let lines = [
        state(0, 0, 0, "x"),
        state(1, 0, 1, "x"),
        state(2, 10, 0, "y"),
        state(3, 20, 1, "y"),
    ];
    for (name, cut_ms) in [("at", 20), ("after", 25)] {
        let trace = tmp(&format!("replica-cut-{name}.jsonl"));
        let mut text = vec![head.to_string()];
        text.extend(lines.iter().cloned());
        text.push(cut(4, cut_ms));
        std::fs::write(&trace, text.join("\n") + "\n").unwrap();
        let o = sincro(&[
            "check",
            p(&trace),
            "--properties",
            "replica_agreement",
            "--liveness-bound-ms",
            "5",
        ]);
        assert_eq!(code(&o), 4, "cut {name}: {}{}", stdout(&o), stderr(&o));
    }
}

/// The corpus scenario `rel` (under `corpus/`) with its `limits` replaced by `limits`.
fn corpus_with_limits(rel: &str, limits: serde_json::Value) -> serde_json::Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["limits"] = limits;
    v
}

/// A run stopped by a limit records where (a `cut` event ends its trace), and `check` judges
/// the trace only up to there: its verdict is the run's limit (exit 4), never a liveness
/// violation at a deadline the run never reached (it said election_termination was violated
/// at 800 ms in a run that stopped at 68 ms). A trace cut by its own size limit while the
/// run went on gives the run's verdict to `run` and `replay` alike, and `check` cannot judge
/// past the cut.
#[test]
fn a_trace_cut_short_is_judged_only_up_to_its_cut() {
    let with_limit = |limits: &str| {
        corpus_with_limits(
            "election/lease-no-step-down-split-brain.json",
            serde_json::from_str(limits).unwrap(),
        )
        .to_string()
    };
    for (name, limits) in [
        ("in-flight", r#"{"max_in_flight": 1}"#),
        ("events", r#"{"max_events": 50}"#),
    ] {
        let sc = tmp(&format!("cut-{name}.json"));
        std::fs::write(&sc, with_limit(limits)).unwrap();
        let trace = tmp(&format!("cut-{name}.jsonl"));
        let o = sincro(&["run", p(&sc), "--trace", p(&trace)]);
        assert_eq!(code(&o), 4, "{}", stdout(&o));
        let last = std::fs::read_to_string(&trace).unwrap();
        assert!(
            last.lines().last().unwrap().contains(r#""type":"cut""#),
            "{last}"
        );
        let o = sincro(&[
            "check",
            p(&trace),
            "--scenario",
            p(&sc),
            "--properties",
            "election_termination,leader_agreement",
        ]);
        assert_eq!(code(&o), 4, "{name}: {}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("LIMIT EXCEEDED"), "{}", stdout(&o));
    }
    let sc = tmp("cut-bytes.json");
    std::fs::write(&sc, with_limit(r#"{"max_trace_bytes": 5000}"#)).unwrap();
    let run = sincro(&["run", p(&sc)]);
    let replay = sincro(&["replay", p(&sc)]);
    assert_eq!(code(&run), 0, "{}", stdout(&run));
    for o in [&run, &replay] {
        let out = stdout(o);
        assert!(
            out.contains("VIOLATION (Safety): single_acting_leader violated at 280.000 ms")
                && out.contains("as expected"),
            "{out}"
        );
    }
    assert!(
        stdout(&replay).contains("the trace stops here"),
        "{}",
        stdout(&replay)
    );
    let trace = tmp("cut-bytes.jsonl");
    // The cut stands where its reason says: at the first event left out (it stood at the
    // last one recorded, earlier than the time its reason gave when the two differ).
    let mut later = 0;
    for bytes in (2_000..9_000).step_by(100) {
        let sc = tmp(&format!("cut-bytes-{bytes}.json"));
        let limits = format!(r#"{{"max_trace_bytes": {bytes}}}"#);
        std::fs::write(&sc, with_limit(&limits)).unwrap();
        sincro(&["run", p(&sc), "--trace", p(&trace)]);
        let text = std::fs::read_to_string(&trace).unwrap();
        let line = |l: &str| serde_json::from_str::<serde_json::Value>(l).unwrap();
        let mut lines = text.lines().rev();
        let cut = line(lines.next().unwrap());
        let before = line(lines.next().unwrap())["t_ns"].as_u64().unwrap();
        let t_ns = cut["t_ns"].as_u64().unwrap();
        let reason = cut["kind"]["reason"].as_str().unwrap();
        let at = format!("reached at {:.3} ms", t_ns as f64 / 1e6);
        assert!(reason.ends_with(&at), "{reason} / {at}: {cut}");
        later += usize::from(t_ns > before);
    }
    assert!(later > 0, "no cut fell between two times");
    sincro(&["run", p(&sc), "--trace", p(&trace)]);
    let o = sincro(&[
        "check",
        p(&trace),
        "--scenario",
        p(&sc),
        "--properties",
        "leader_agreement",
    ]);
    assert_eq!(code(&o), 6, "{}", stdout(&o));
}

/// A pass on nothing is none for `run`, `replay` and `shrink` too: a mutual exclusion scenario with no
/// request judged nothing, `run` said PASS and `check --scenario` on its trace COULD NOT
/// JUDGE. With a request, a pass.
#[test]
fn run_and_replay_do_not_pass_a_scenario_that_judged_nothing() {
    let sc = tmp("no-work.json");
    let text = |workload: &str| {
        format!(
            r#"{{"algorithm": "mutex.centralized", "nodes": 3, "seed": 7, "duration_ms": 400,
                "checks": {{"properties": ["mutual_exclusion"]}}, "workload": [{workload}]}}"#
        )
    };
    std::fs::write(&sc, text("")).unwrap();
    for cmd in ["run", "replay", "shrink"] {
        let o = sincro(&[cmd, p(&sc)]);
        assert_eq!(code(&o), 6, "{cmd}: {}", stdout(&o));
        assert!(stdout(&o).contains("nothing was judged"), "{}", stdout(&o));
    }
    std::fs::write(
        &sc,
        text(r#"{"at_ms": 10, "node": 1, "input": {"acquire": {"hold_ms": 5}}}"#),
    )
    .unwrap();
    let o = sincro(&["run", p(&sc)]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

/// A run stopped by a limit after its last event judges the instants before the limit, as
/// `check` of its trace does: a split brain in the last complete instant was the run's
/// LIMIT EXCEEDED and `check`'s violation.
#[test]
fn a_run_limit_after_the_last_event_still_judges_its_instant() {
    let mut v = corpus_with_limits(
        "election/yoyo-cut-link-2-10-split-brain.json",
        serde_json::json!({"max_events": 120}),
    );
    v.as_object_mut().unwrap().remove("expect");
    let sc = tmp("yoyo-limit.json");
    std::fs::write(&sc, v.to_string()).unwrap();
    let trace = tmp("yoyo-limit.jsonl");
    let run = sincro(&["run", p(&sc), "--trace", p(&trace)]);
    let needle = "VIOLATION (Safety): leader_uniqueness violated at 69.064 ms";
    assert!(stdout(&run).contains(needle), "{}", stdout(&run));
    let check = sincro(&[
        "check",
        p(&trace),
        "--scenario",
        p(&sc),
        "--properties",
        "leader_uniqueness",
    ]);
    assert!(stdout(&check).contains(needle), "{}", stdout(&check));
}

/// The instant a trace is cut in may be half recorded: `check` leaves it out (an entry
/// recorded without the same instant's exit of the holder was a mutual exclusion violation);
/// the instants before the cut are judged.
#[test]
fn the_instant_of_a_cut_is_not_judged() {
    let trace = tmp("cut-instant.jsonl");
    let head = r#"{"sincro_trace": 1, "nodes": 2}"#;
    let lines = [
        r#"{"id": 0, "t_ns": 1000000, "node": 1, "kind": {"type": "observe", "obs": {"cs_enter": {"resource": 0}}}}"#,
        r#"{"id": 1, "t_ns": 10000000, "node": 0, "kind": {"type": "observe", "obs": {"cs_enter": {"resource": 0}}}}"#,
        r#"{"id": 2, "t_ns": 10000000, "kind": {"type": "cut", "reason": "limits.max_trace_bytes = 500 reached at 10.000 ms", "run_stopped": false}}"#,
    ];
    std::fs::write(&trace, format!("{head}\n{}\n", lines.join("\n"))).unwrap();
    let o = sincro(&["check", p(&trace), "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 6, "{}", stdout(&o));
    assert!(stdout(&o).contains("the trace stops at"), "{}", stdout(&o));
    // the same entry an instant before the cut is judged: a violation
    let early = lines[1].replace("10000000", "9000000");
    std::fs::write(
        &trace,
        format!("{head}\n{}\n{early}\n{}\n", lines[0], lines[2]),
    )
    .unwrap();
    let o = sincro(&["check", p(&trace), "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    // a panic ends the run: another node's event of its instant may be listed after it, a
    // cut of its instant may follow it; either way the verdict is the panic
    let enter = r#"{"id": 0, "t_ns": 2000000, "node": 1, "kind": {"type": "observe", "obs": {"cs_enter": {"resource": 0}}}}"#;
    let panic =
        r#"{"id": 1, "t_ns": 5000000, "node": 0, "kind": {"type": "panic", "message": "boom"}}"#;
    for after in [
        r#"{"id": 2, "t_ns": 5000000, "node": 1, "kind": {"type": "observe", "obs": {"cs_exit": {"resource": 0}}}}"#,
        r#"{"id": 2, "t_ns": 5000000, "kind": {"type": "cut", "reason": "limits.max_events = 4 steps reached at 5.000 ms", "run_stopped": true}}"#,
    ] {
        std::fs::write(&trace, format!("{head}\n{enter}\n{panic}\n{after}\n")).unwrap();
        let o = sincro(&["check", p(&trace), "--properties", "mutual_exclusion"]);
        assert_eq!(code(&o), 3, "{after}: {}{}", stdout(&o), stderr(&o));
    }
}

/// A pause never resumed, a `set_links` loss never lifted and the network's own loss are
/// still in effect when the run ends: the run and `check`, with or without the scenario, call
/// liveness under them COULD NOT JUDGE, not a violation "after the faults stopped" at the
/// fault's own time (offline, the two losses were: VIOLATION where the run said exit 6).
#[test]
fn liveness_under_a_fault_that_outlasts_the_run_is_not_judged_online_or_offline() {
    for (name, network, faults) in [
        (
            "paused-for-good",
            "",
            r#"[{"at_ms": 20, "fault": {"pause": {"node": 1}}}]"#,
        ),
        (
            "lossy-for-good",
            "",
            r#"[{"at_ms": 5, "fault": {"set_links": {"loss": 1.0}}}]"#,
        ),
        ("lossy-network", r#", "loss": 0.5"#, "[]"),
    ] {
        let sc = tmp(&format!("{name}.json"));
        std::fs::write(
            &sc,
            format!(
                r#"{{"algorithm": "mutex.centralized", "nodes": 3, "seed": 3, "duration_ms": 1000,
            "network": {{"latency": {{"uniform": {{"min_ms": 1, "max_ms": 5}}}}{network}}},
            "faults": {faults},
            "workload": [{{"at_ms": 10, "node": 1, "input": {{"acquire": {{"hold_ms": 30}}}}}},
                         {{"at_ms": 12, "node": 2, "input": {{"acquire": {{"hold_ms": 30}}}}}}]}}"#
            ),
        )
        .unwrap();
        let trace = tmp(&format!("{name}.jsonl"));
        let o = sincro(&["run", p(&sc), "--trace", p(&trace)]);
        assert_eq!(code(&o), 6, "{name}: {}", stdout(&o));
        for extra in [
            vec!["--liveness-bound-ms", "156", "--end-ms", "1000"],
            vec!["--scenario", p(&sc)],
        ] {
            let mut args = vec!["check", p(&trace), "--properties", "liveness"];
            args.extend(extra);
            let o = sincro(&args);
            assert_eq!(code(&o), 6, "{name} {args:?}: {}", stdout(&o));
            assert!(
                stdout(&o).contains("COULD NOT JUDGE liveness"),
                "{name}: {}",
                stdout(&o)
            );
        }
    }
}

/// An algorithm that judges its runs on its own state (Ω) is named as the reason a trace
/// cannot be judged with its scenario, even when its newcomers make the trace larger than the
/// scenario (the node counts were blamed: "it is not a trace of that scenario").
#[test]
fn check_with_the_scenario_of_an_algorithm_that_judges_its_own_state_says_so() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/omega/churn-pass.json");
    let trace = record(file, "omega-churn.jsonl");
    let o = sincro(&[
        "check",
        p(&trace),
        "--properties",
        "newcomer_never_demotes",
        "--scenario",
        file,
    ]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("judges its runs on its own state"),
        "{}",
        stderr(&o)
    );
    // Without the scenario, the refusal says outright that no trace can be judged so: it
    // sent the user to `--scenario`, which is refused in turn.
    let o = sincro(&["check", p(&trace), "--properties", "newcomer_never_demotes"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("on its own state during a run, not from a trace")
            && !stderr(&o).contains("give --scenario"),
        "{}",
        stderr(&o)
    );
    // `show --check` is named as what was typed (it said `check`).
    let o = sincro(&["show", p(&trace), "--check", "newcomer_never_demotes"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("`show --check` cannot judge it"),
        "{}",
        stderr(&o)
    );
}

/// `check TRACE --scenario S` judges what a run of `S` judges when no `--properties` is
/// given (it required them, though the scenario's algorithm knows its promises); without a
/// scenario they are still required.
#[test]
fn check_with_a_scenario_judges_its_properties_by_default() {
    let sc = "corpus/mutex/ricart-agrawala-no-tiebreak-shrunk.json";
    let trace = tmp("default-properties.jsonl");
    sincro(&["run", sc, "--trace", p(&trace)]);
    let o = sincro(&["check", p(&trace), "--scenario", sc]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("mutual_exclusion"), "{}", stdout(&o));
    let o = sincro(&["check", p(&trace)]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--properties"), "{}", stderr(&o));
    // A pass names what held (it said "PASS:  held").
    let trace = tmp("default-properties-pass.jsonl");
    sincro(&["run", PASS, "--trace", p(&trace)]);
    let o = sincro(&["check", p(&trace), "--scenario", PASS]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).starts_with("PASS: mutual_exclusion, liveness held"),
        "{}",
        stdout(&o)
    );
}

/// `check --scenario` reads the scenario's fault plan (quiet time, crashed and paused nodes),
/// so the trace must hold that plan: a scenario with a pause its trace lacks moved the quiet
/// time and passed a late grant, and one crashing another node was accepted.
#[test]
fn check_with_a_scenario_refuses_a_trace_missing_one_of_its_planned_faults() {
    // The coordinator's crash is never repaired: a liveness violation, judged.
    let (trace, check) = recorded_and_judged(CRASH, "plan-crash.jsonl", "liveness");
    assert_eq!(code(&check(&trace)), 1, "{}", stdout(&check(&trace)));
    let base: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(CRASH).unwrap()).unwrap();
    let with_faults = |name: &str, faults: serde_json::Value| {
        let mut sc = base.clone();
        sc["faults"] = faults;
        let path = tmp(name);
        std::fs::write(&path, sc.to_string()).unwrap();
        path
    };
    let planned = base["faults"].as_array().unwrap().clone();
    let mut extra = planned.clone();
    extra.push(serde_json::json!({"at_ms": 30, "fault": {"pause": {"node": 1}}}));
    extra.push(serde_json::json!({"at_ms": 31, "fault": {"resume": {"node": 1}}}));
    let extra = with_faults("plan-extra.json", serde_json::Value::Array(extra));
    let judge = |sc: &Path| {
        sincro(&[
            "check",
            p(&trace),
            "--scenario",
            p(sc),
            "--properties",
            "liveness",
        ])
    };
    refused_saying(
        &judge(&extra),
        &[
            r#"the scenario's fault {"pause":{"node":1}} at 30.000 ms is not in the trace"#,
            "it is not a trace of that scenario",
        ],
    );
    // The same times, another node.
    let other: Vec<serde_json::Value> = planned
        .iter()
        .map(|f| {
            let text = f.to_string().replace(r#""node":0"#, r#""node":1"#);
            serde_json::from_str(&text).unwrap()
        })
        .collect();
    assert_ne!(other, planned, "the plan names node 0");
    let other = with_faults("plan-other.json", serde_json::Value::Array(other));
    refused_saying(&judge(&other), &["is not in the trace"]);
    // A fault planned after the trace's last instant, before the scenario's end: a run that
    // did not stop at a violation first records it, so the trace was cut short. (A fault
    // after the violation a run stopped at is not required: the corpus's
    // `centralized-lease-timeout-overlap` resumes a node after its violation, and
    // `check_with_the_scenario_gives_the_runs_verdict_on_every_corpus_scenario` judges it.)
    let mut late = planned.clone();
    late.push(serde_json::json!({"at_ms": 499, "fault": {"pause": {"node": 1}}}));
    let late = with_faults("plan-late.json", serde_json::Value::Array(late));
    refused_saying(
        &judge(&late),
        &[
            "before the scenario's fault pause n1 at 499.000 ms",
            "cut short",
        ],
    );
}

/// A trace ends in at most one cut: two at its last instant were both trimmed with it, and
/// the verdict followed whichever came last (LIMIT EXCEEDED or COULD NOT JUDGE).
#[test]
fn check_refuses_a_second_cut_as_show_does() {
    let trace = record(PASS, "two-cuts.jsonl");
    let text = std::fs::read_to_string(&trace).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let (id, t_ns) = (last["id"].as_u64().unwrap(), last["t_ns"].as_u64().unwrap());
    let cut = |id: u64, stopped: bool| {
        format!(
            r#"{{"id":{id},"t_ns":{t_ns},"kind":{{"type":"cut","reason":"r{id}","run_stopped":{stopped}}}}}"#
        )
    };
    for (a, b) in [(true, false), (false, true)] {
        let two = tmp("two-cuts-added.jsonl");
        std::fs::write(
            &two,
            format!("{text}{}\n{}\n", cut(id + 1, a), cut(id + 2, b)),
        )
        .unwrap();
        let o = sincro(&["check", p(&two), "--properties", "mutual_exclusion"]);
        refused_saying(&o, &["(cut) must be the trace's last event"]);
    }
}

/// The properties about leaders at once (uniqueness, one per term, a single acting leader,
/// validity) judge the leaders nodes claim: a trace where every `leader` observation says
/// "no leader" has nothing for them, COULD NOT JUDGE (exit 6), not a pass.
#[test]
fn leader_properties_need_a_claimed_leader_to_judge() {
    let sc = "corpus/election/bully-madsim-restart-coordinator.json";
    let trace = record(sc, "claims.jsonl");
    let judged = |t: &Path, property: &str| {
        sincro(&["check", p(t), "--scenario", sc, "--properties", property])
    };
    assert_eq!(code(&judged(&trace, "leader_uniqueness")), 0);
    let text = std::fs::read_to_string(&trace).unwrap();
    let nobody: String = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if let Some(obs) = v.pointer_mut("/kind/obs/leader") {
                obs["leader"] = serde_json::Value::Null;
            }
            v.to_string() + "\n"
        })
        .collect();
    assert_ne!(nobody, text);
    let none = tmp("claims-none.jsonl");
    std::fs::write(&none, nobody).unwrap();
    let alone = |t: &Path, property: &str| sincro(&["check", p(t), "--properties", property]);
    for (property, o) in [
        ("leader_uniqueness", judged(&none, "leader_uniqueness")),
        ("leader_validity", judged(&none, "leader_validity")),
        ("one_leader_per_term", alone(&none, "one_leader_per_term")),
        ("single_acting_leader", alone(&none, "single_acting_leader")),
    ] {
        assert_eq!(code(&o), 6, "{property}: {}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("COULD NOT JUDGE"), "{}", stdout(&o));
    }
}

/// Two nodes' panics in the run's last instant: the one reported is the lowest node's,
/// whatever the lines' order (it followed line order).
#[test]
fn the_panic_reported_does_not_follow_line_order() {
    let trace = record(PASS, "two-panics.jsonl");
    let text = std::fs::read_to_string(&trace).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let (id, t_ns) = (last["id"].as_u64().unwrap(), last["t_ns"].as_u64().unwrap());
    let panic = |id: u64, node: u64| {
        format!(
            r#"{{"id":{id},"t_ns":{t_ns},"node":{node},"local_ns":{t_ns},"kind":{{"type":"panic","message":"boom at {node}"}}}}"#
        )
    };
    let verdicts: Vec<String> = [(1, 3), (3, 1)]
        .iter()
        .map(|&(a, b)| {
            let two = tmp(&format!("two-panics-{a}{b}.jsonl"));
            let body = format!("{text}{}\n{}\n", panic(id + 1, a), panic(id + 2, b));
            std::fs::write(&two, body).unwrap();
            let o = sincro(&["check", p(&two), "--properties", "mutual_exclusion"]);
            assert_eq!(code(&o), 3, "{}{}", stdout(&o), stderr(&o));
            stdout(&o)
        })
        .collect();
    assert!(verdicts[0].contains("boom at 1"), "{}", verdicts[0]);
    assert_eq!(verdicts[0], verdicts[1]);
}

/// A trace has no end marker: one cut short by hand was judged with `--scenario` up to the
/// scenario's end, as if the run had gone quiet, and passed where the run failed. A run
/// records its planned faults and inputs (at a node not paused) at their times, so a trace
/// stopping before one of them is refused (exit 2); one that stops at its violation, or
/// says it stops early (a cut), is judged.
#[test]
fn check_with_a_scenario_refuses_a_trace_cut_short_by_hand() {
    let trace = record(PASS, "cut-by-hand.jsonl");
    let text = std::fs::read_to_string(&trace).unwrap();
    let ok = sincro(&["check", p(&trace), "--scenario", PASS]);
    assert_eq!(code(&ok), 0, "{}{}", stdout(&ok), stderr(&ok));
    // The header and the events before the pause at 30 ms.
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["t_ns"].as_u64().is_none_or(|t| t < 30_000_000)
        })
        .collect();
    assert!(kept.len() > 5, "{kept:?}");
    let short = tmp("cut-by-hand-short.jsonl");
    std::fs::write(&short, kept.join("\n") + "\n").unwrap();
    let o = sincro(&["check", p(&short), "--scenario", PASS]);
    refused_saying(
        &o,
        &[
            "before the scenario's fault pause n2 at 30.000 ms",
            "it was cut short",
        ],
    );
    // A scenario with one input more than the trace (node 3's at 50 ms, in mid-trace).
    let mut sc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(PASS).unwrap()).unwrap();
    sc["workload"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"at_ms": 50, "node": 3, "input": {"acquire": {"hold_ms": 5}}}));
    let more = tmp("cut-by-hand-more.json");
    std::fs::write(&more, sc.to_string()).unwrap();
    let o = sincro(&["check", p(&trace), "--scenario", p(&more)]);
    refused_saying(
        &o,
        &["the scenario's input to node 3 at 50.000 ms is not in the trace"],
    );
}

/// A trace cut where no planned input or fault is missing still holds messages whose fate the
/// run recorded later: a message sent at 10 ms over links of at most 40 ms, neither delivered
/// nor dropped in a trace that stops at 30 ms, shows the cut (stop 65's probe: the first 30
/// events of a mutual exclusion violation passed, and the first 43 of a passing run were
/// judged a liveness violation). The whole traces are judged as before.
#[test]
fn check_with_a_scenario_refuses_a_trace_whose_messages_never_arrive() {
    for (scenario, lines, whole) in [
        ("corpus/mutex/quorum-coordinator-amnesia.json", 30, 1),
        (PASS, 43, 0),
    ] {
        let trace = record(scenario, "overdue.jsonl");
        let o = sincro(&["check", p(&trace), "--scenario", scenario]);
        assert_eq!(code(&o), whole, "{}{}", stdout(&o), stderr(&o));
        let text = std::fs::read_to_string(&trace).unwrap();
        let kept: Vec<&str> = text.lines().take(lines).collect();
        let short = tmp("overdue-short.jsonl");
        std::fs::write(&short, kept.join("\n") + "\n").unwrap();
        let o = sincro(&["check", p(&short), "--scenario", scenario]);
        refused_saying(&o, &["is neither delivered nor dropped", "was cut short"]);
    }
}

/// A trace judged with a scenario holds only what a run of it can do: an event past the
/// scenario's end was "judged up to 1000000000.000 ms" of a 600 ms scenario, and a message
/// delivered twice where no link duplicates was taken (stop 65's probe).
#[test]
fn check_with_a_scenario_refuses_events_its_runs_cannot_have() {
    let trace = record(PASS, "impossible.jsonl");
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let write = |name: &str, lines: &[serde_json::Value]| {
        let path = tmp(name);
        let text: Vec<String> = lines.iter().map(|v| v.to_string()).collect();
        std::fs::write(&path, text.join("\n") + "\n").unwrap();
        path
    };
    let mut late = lines.clone();
    late.last_mut().unwrap()["t_ns"] = serde_json::json!(1_000_000_000_000_000u64);
    let o = sincro(&["check", p(&write("late.jsonl", &late)), "--scenario", PASS]);
    refused_saying(
        &o,
        &["at 1000000000.000 ms is after the scenario's end at 600.000 ms"],
    );
    // the first delivery again, as the last event (same time as the last, next id)
    let last = lines.last().unwrap().clone();
    let mut again = lines
        .iter()
        .find(|v| v["kind"]["type"] == "deliver")
        .unwrap()
        .clone();
    again["id"] = serde_json::json!(last["id"].as_u64().unwrap() + 1);
    again["t_ns"] = last["t_ns"].clone();
    again["local_ns"] = serde_json::Value::Null;
    lines.push(again);
    let o = sincro(&[
        "check",
        p(&write("twice.jsonl", &lines)),
        "--scenario",
        PASS,
    ]);
    refused_saying(
        &o,
        &["is delivered twice", "no link of the scenario duplicates"],
    );
}

/// Of two violations established at the end, the earliest is reported, whatever the order of
/// `--properties`: a leader change at 1,500 ms, the last instant of the trace (which
/// `leader_stability` closes only at the end), was reported as `leader_agreement`'s liveness
/// violation at 8,000 ms when that property came first (stop 65's probe).
#[test]
fn check_reports_the_earliest_of_the_violations_found_at_the_end() {
    let scenario = "corpus/election/ring-stability-seed14540.json";
    let trace = record(scenario, "earliest.jsonl");
    let mut text = std::fs::read_to_string(&trace).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let id = last["id"].as_u64().unwrap() + 1;
    text.push_str(&format!(
        r#"{{"id":{id},"t_ns":1500000000,"node":2,"local_ns":1500000000,"kind":{{"type":"observe","obs":{{"leader":{{"leader":3,"term":0}}}}}}}}"#
    ));
    text.push('\n');
    let changed = tmp("earliest-changed.jsonl");
    std::fs::write(&changed, text).unwrap();
    for props in [
        "leader_stability,leader_agreement",
        "leader_agreement,leader_stability",
    ] {
        let o = sincro(&[
            "check",
            p(&changed),
            "--scenario",
            scenario,
            "--properties",
            props,
        ]);
        assert_eq!(code(&o), 1, "{props}: {}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).starts_with("VIOLATION (Safety): leader_stability violated at 1500.000 ms"),
            "{props}: {}",
            stdout(&o)
        );
    }
}

/// Found by a probe of the views:
/// - the HTML close-up ignored the filters, drawing the violation a window left out;
/// - Mermaid said a message a partition dropped "arrives outside this view";
/// - `--to-ms` rounded to the nearest ns, taking in events after the bound;
/// - `--nodes` was ignored for a scenario input, where a trace's header is checked;
/// - `diff` of two different scenarios read as a run's difference.
#[test]
fn views_keep_to_their_filters_and_say_what_they_show() {
    let split = "corpus/election/lease-no-step-down-split-brain.json";
    let html = tmp("window.html");
    let o = sincro(&[
        "show",
        split,
        "--format",
        "html",
        "--from-ms",
        "150",
        "--out",
        p(&html),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("are not shown"),
        "the window leaves part of the violation out"
    );
    // The close-up draws only events of the window (it drew 59, from 0 ms on).
    let close =
        &page[page.find("Close-up").expect("a close-up")..page.find("<h2>The run").unwrap()];
    let times: Vec<f64> = close
        .split("<title>")
        .skip(1)
        .filter_map(|t| t.split(" ms ").next()?.trim().parse().ok())
        .collect();
    assert!(!times.is_empty(), "{close}");
    assert!(times.iter().all(|&t| t >= 150.0), "{times:?}");
    let o = sincro(&["show", split, "--format", "mermaid"]);
    let m = stdout(&o);
    assert!(m.contains("dropped outside this view"), "{m}");
    // every message of this view that is never delivered is dropped: none "arrives"
    for l in m
        .lines()
        .filter(|l| l.contains("arrives outside this view"))
    {
        assert!(!l.contains("Heartbeat { term: 2"), "{l}");
    }
    let o = sincro(&["show", LEASE, "--to-ms", "63.9999999"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        !stdout(&o)
            .lines()
            .any(|l| !l.starts_with('#') && l.contains("  64.000")),
        "{}",
        stdout(&o)
    );
    let o = sincro(&["show", LEASE, "--to-ms", "64"]);
    assert!(stdout(&o).contains("64.000"), "{}", stdout(&o));
    let o = sincro(&["show", LEASE, "--nodes", "7"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("--nodes 7 contradicts the scenario"),
        "{}",
        stderr(&o)
    );
    let o = sincro(&["diff", LEASE, CRASH]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains("the scenarios differ in:") && stdout(&o).contains("variant"),
        "{}",
        stdout(&o)
    );
    let o = sincro(&["diff", LEASE, LEASE]);
    assert_eq!(code(&o), 0);
    assert!(!stdout(&o).contains("differ in"), "{}", stdout(&o));
    // `show --check` names its own option, not `check`'s --properties and --scenario.
    let o = sincro(&["show", PASS, "--check", "leader_validity"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("--check names `leader_validity`")
            && !stderr(&o).contains("--scenario"),
        "{}",
        stderr(&o)
    );
}

/// A trace ends where its run stopped: at a violation of any property the run judged. Asked
/// for another property only (`--check mutual_exclusion` of a run that stopped at a liveness
/// violation), `show` and `check --scenario` called the trace cut short (exit 2).
#[test]
fn a_trace_that_stopped_at_a_violation_is_judged_for_any_one_property() {
    let out = tmp("subset-matrix");
    let _ = std::fs::remove_dir_all(&out);
    let o = sincro(&[
        "matrix",
        "-a",
        "mutex.centralized",
        "--seeds",
        "1",
        "-j",
        "1",
        "-q",
        "--out",
        p(&out),
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let sc = out.join("mutex.centralized.correct.crashes.liveness.seed0.json");
    assert!(
        sc.exists(),
        "the matrix finds the crash's liveness counterexample"
    );
    let o = sincro(&["show", p(&sc), "--check", "liveness"]);
    assert!(stdout(&o).contains("liveness violated"), "{}", stdout(&o));
    let o = sincro(&["show", p(&sc), "--check", "mutual_exclusion"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("PASS"), "{}", stdout(&o));
    let trace = tmp("subset.jsonl");
    let o = sincro(&["show", p(&sc), "--format", "jsonl", "--out", p(&trace)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = sincro(&[
        "check",
        p(&trace),
        "--scenario",
        p(&sc),
        "--properties",
        "mutual_exclusion",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
}

/// A run stopped at its first violation (here `single_acting_leader` at 283 ms of an 800 ms
/// scenario) is judged, for other properties asked with `--scenario`, up to where it stopped:
/// `leader_validity` "held, judged up to 900 ms" on nothing, and `leader_agreement` was
/// refused as a trace "cut short". (A stale-coordinator run stopped at 263 ms was judged
/// `leader_agreement` "violated at 2471 ms" the same way.)
#[test]
fn check_with_a_scenario_judges_up_to_where_its_run_stopped() {
    let sc = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/election/lease-no-step-down-split-brain.json"
    );
    let trace = tmp("stopped-run.jsonl");
    let o = sincro(&["run", sc, "--trace", p(&trace)]);
    // the violation its file expects: exit 0
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let check = |property: &str| {
        sincro(&[
            "check",
            p(&trace),
            "--scenario",
            sc,
            "--properties",
            property,
        ])
    };
    for property in ["leader_validity", "leader_agreement"] {
        let o = check(property);
        assert_eq!(code(&o), 6, "{property}: {}{}", stdout(&o), stderr(&o));
        assert!(
            stdout(&o).starts_with(&format!(
                "COULD NOT JUDGE {property}: the run ended at 283.000 ms"
            )) && stdout(&o).contains("judged up to 283.000 ms"),
            "{property}: {}",
            stdout(&o)
        );
    }
    // the run's own property is judged as the run judged it
    let o = check("single_acting_leader");
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    // ... and so is every property at once: up to where the run stopped, not to the
    // scenario's end (stop 64: "judged up to 4967.000 ms" of a trace ending at 167.5 ms).
    let o = sincro(&["check", p(&trace), "--scenario", sc]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("judged up to 283.000 ms"),
        "{}",
        stdout(&o)
    );
}

/// A failure's context shows the faults that led to its violation, in their place: the
/// coordinator's restart at 30 ms, far before the entry at 52 ms that broke mutual
/// exclusion, was left in the `…` between the events shown (stop 65's probe of a user's
/// lease server: "the restart n0 at 495 ms, the whole bug, is inside the `…`").
#[test]
fn a_failures_context_shows_the_faults_in_its_causal_past() {
    use sincro::harness::engine::RunOptions;
    let sc = Scenario::load(std::path::Path::new(
        "corpus/mutex/quorum-coordinator-amnesia.json",
    ))
    .unwrap();
    let out = sincro::algorithms::run_scenario(&sc, RunOptions::new(true)).unwrap();
    let trace = out.trace.as_ref().unwrap();
    let Verdict::Violation(v) = &out.verdict else {
        panic!("{}", out.verdict)
    };
    // only the last event of the violation, one event around it: the restart is far before
    let mut late = v.clone();
    late.events = vec![*v.events.iter().max().unwrap()];
    let lines = sincro::testing::context_lines(trace, &Verdict::Violation(late), 1, 24);
    let text = lines.join("\n");
    assert!(text.contains("restart n1"), "{text}");
    assert!(text.contains("    …"), "{text}");
    assert!(
        text.find("restart n1").unwrap() < text.find("  > ").unwrap(),
        "{text}"
    );
}

/// A property that reads the node count itself (`bounded_waiting` allows n − 1 overtakes) is
/// judged offline only on a count the trace confirms: a hand-made trace with no `start` events
/// whose three busy nodes overtake a request three times failed under its header of 3 nodes and
/// passed under a header of 10 (stop 74's probe). Now the second is refused, naming the silent
/// node, and a property that does not read the count still judges it.
#[test]
fn check_refuses_a_node_count_the_trace_does_not_confirm() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("checkers/tests/adversarial/bounded_waiting/violation-three-overtakes.jsonl");
    let text = std::fs::read_to_string(&case).unwrap();
    let three = tmp("bw-three-nodes.jsonl");
    std::fs::write(&three, &text).unwrap();
    let o = sincro(&["check", p(&three), "--properties", "bounded_waiting"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("overtaken 3 times (bound 2)"),
        "{}",
        stdout(&o)
    );

    let ten = tmp("bw-ten-nodes.jsonl");
    let header = "{\"sincro_trace\": 1, \"nodes\": 3}";
    assert!(text.starts_with(header));
    std::fs::write(
        &ten,
        text.replacen(header, "{\"sincro_trace\": 1, \"nodes\": 10}", 1),
    )
    .unwrap();
    let o = sincro(&["check", p(&ten), "--properties", "bounded_waiting"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o)
            .contains("`bounded_waiting` depends on the node count (10), and node 3 has no event"),
        "{}",
        stderr(&o)
    );
    // mutual exclusion does not read the count: judged (and held) whatever the header says
    let o = sincro(&["check", p(&ten), "--properties", "mutual_exclusion"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
}
