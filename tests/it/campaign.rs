//! Campaigns end to end: shards, time budgets, JUnit reports, shrunk failures that replay,
//! Ctrl-C, and the fault-tolerance matrix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `sincro` as a user who installed it does: found through `PATH`, so its replay lines
/// name it `sincro` (started by a path no `PATH` holds, they would name that path).
fn sincro(args: &[&str]) -> Output {
    Command::new("sincro")
        .env("PATH", crate::common::path_with_sincro())
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A fresh, empty directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("campaign-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The `seeds` column of a variant's row in the summary table.
fn seeds_of(stdout: &str, variant: &str) -> u64 {
    // `mutex.centralized / <variant> [bug]   <seeds> ...`
    let row = stdout
        .lines()
        .find(|l| {
            let f: Vec<_> = l.split_whitespace().collect();
            f.len() > 3 && f[0] == "mutex.centralized" && f[2] == variant
        })
        .unwrap_or_else(|| panic!("no row for {variant}:\n{stdout}"));
    let f: Vec<_> = row.split_whitespace().collect();
    let at = if f[3] == "[bug]" { 4 } else { 3 };
    f[at].parse().unwrap()
}

#[test]
fn shards_split_the_seed_range_and_bad_shards_exit_2() {
    let out = dir("shards");
    let run = |shard: &str| {
        let o = sincro(&[
            "fuzz",
            "-a",
            "mutex.centralized",
            "--variant",
            "correct",
            "--seeds",
            "61",
            "--seed-start",
            "5",
            "--shard",
            shard,
            "--out",
            s(&out),
        ]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{shard}: {stdout}{stderr}");
        assert!(stdout.contains(&format!("shard {shard}")), "{stdout}");
        seeds_of(&stdout, "correct")
    };
    let (a, b, c) = (run("1/3"), run("2/3"), run("3/3"));
    assert_eq!((a, b, c), (21, 20, 20));
    assert_eq!(a + b + c, run("1/1"));
    for bad in ["0/3", "4/3", "x/y", "3"] {
        let o = sincro(&["fuzz", "--seeds", "1", "--shard", bad]);
        let (_, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{bad}: {stderr}");
        assert!(stderr.contains("shard"), "{bad}: {stderr}");
    }
    // A shard of no seed ran nothing and passed (exit 0): more shards than seeds is refused.
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--seeds",
        "2",
        "--shard",
        "3/3",
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("has no seed for shard 3 of 3"), "{stderr}");
}

#[test]
fn a_time_budget_ends_the_campaign_by_itself() {
    let out = dir("time");
    let started = Instant::now();
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "correct",
        "--time",
        "500ms",
        "--jobs",
        "2",
        "--out",
        s(&out),
    ]);
    let took = started.elapsed();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(took >= Duration::from_millis(500), "{took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(
        stdout.contains("runs/s") && stdout.contains("(budget 500ms)"),
        "{stdout}"
    );
    assert!(seeds_of(&stdout, "correct") > 0, "{stdout}");
    assert!(stdout.contains("peak RSS"), "{stdout}");
    assert!(parse_duration_errors_exit_2());
}

fn parse_duration_errors_exit_2() -> bool {
    let o = sincro(&["fuzz", "--time", "10 parsecs"]);
    o.status.code() == Some(2) && text(&o).1.contains("not a duration")
}

#[test]
fn junit_reports_every_target_and_escapes_failures() {
    let out = dir("junit");
    let report = out.join("report.xml");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--seeds",
        "100",
        "--junit",
        s(&report),
        "--out",
        s(&out),
        "--quiet",
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let xml = std::fs::read_to_string(&report).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    // quick-junit's strict schema: <testsuites> around one <testsuite> with a timestamp and
    // a hostname.
    assert_eq!(doc.root_element().tag_name().name(), "testsuites");
    let suite = doc
        .root_element()
        .children()
        .find(|n| n.has_tag_name("testsuite"))
        .expect("a <testsuite>");
    assert_eq!(suite.attribute("name"), Some("sincro fuzz"));
    assert_eq!(suite.attribute("failures"), Some("0"));
    assert!(suite.attribute("hostname").is_some_and(|h| !h.is_empty()));
    let stamp = suite.attribute("timestamp").expect("a timestamp");
    assert!(
        stamp.len() >= 19 && stamp.as_bytes()[10] == b'T' && stamp.starts_with("20"),
        "{stamp}"
    );
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<_> = cases
        .iter()
        .map(|c| {
            (
                c.attribute("classname").unwrap(),
                c.attribute("name").unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("mutex.centralized", "correct"),
            ("mutex.centralized", "lease-timeout")
        ]
    );
    assert!(cases.iter().all(|c| c.attribute("time").is_some()));
    let caught = cases[1]
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap();
    assert!(caught.contains("caught at seed"), "{caught}");
    assert!(caught.contains(".shrunk.json"), "{caught}");

    // A bug that is not caught within the seeds is a failing testcase (random delays first
    // catch this one at seed 11).
    let report = out.join("failing.xml");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--strategy",
        "random",
        "--seeds",
        "3",
        "--junit",
        s(&report),
        "--out",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let xml = std::fs::read_to_string(&report).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_eq!(doc.root_element().attribute("failures"), Some("1"));
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .expect("a <failure>");
    assert!(
        failure.attribute("message").unwrap().contains("not caught"),
        "{xml}"
    );
}

#[test]
fn a_buggy_variant_is_written_and_shrunk_and_the_shrunk_file_replays() {
    let out = dir("shrunk");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "300",
        "--jobs",
        "2",
        "--out",
        s(&out),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("caught after"), "{stdout}");
    let files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let shrunk = files
        .iter()
        .find(|f| f.ends_with(".shrunk.json"))
        .unwrap_or_else(|| panic!("no shrunk file in {files:?}"));
    let original = shrunk.replace(".shrunk.json", ".json");
    assert!(files.contains(&original), "{files:?}");
    // Only the reported (smallest) failing seed has files, however the two workers raced:
    // a larger failing seed found meanwhile (seed 33 here) is not left behind.
    assert_eq!(files.len(), 2, "{files:?}\n{stdout}{stderr}");
    assert!(
        files.iter().all(|f| !f.contains(".tmp")),
        "no temporary file is left: {files:?}"
    );
    let shrunk_path = out.join(shrunk);
    assert!(
        stdout.contains(&format!("replay: sincro replay {}", shrunk_path.display())),
        "{stdout}"
    );
    for file in [shrunk_path, out.join(&original)] {
        // The files expect their violation: `run` meets it (0), `replay` shows it (1).
        let r = sincro(&["run", s(&file)]);
        let (rs, _) = text(&r);
        assert_eq!(r.status.code(), Some(0), "{}: {rs}", file.display());
        let replay = sincro(&["replay", s(&file), "--render", "none"]);
        assert_eq!(replay.status.code(), Some(1), "{}", file.display());
        assert!(
            rs.contains("mutual_exclusion violated") && rs.contains("as expected"),
            "{rs}"
        );
    }

    // Again into the same directory without shrinking: the new original replaces the old,
    // and the old shrunk file, no longer its shrunk form, is removed and said so (it stayed).
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "300",
        "--no-shrink",
        "--out",
        s(&out),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!out.join(shrunk).exists(), "{stdout}{stderr}");
    assert!(stderr.contains("the shrunk form of an earlier"), "{stderr}");

    let plain = dir("no-shrink");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "300",
        "--no-shrink",
        "--out",
        s(&plain),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let files: Vec<_> = std::fs::read_dir(&plain).unwrap().collect();
    assert_eq!(files.len(), 1, "only the original is written");
    let (plain_out, _) = text(&o);
    assert!(!plain_out.contains("with no file"), "{plain_out}");

    // Keep going past the cap: the summary counts the failing seeds left with no file (it
    // said nothing: 58 failing seeds, 3 files, and no word of the other 55).
    let capped = dir("max-files");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "200",
        "--keep-going",
        "--no-shrink",
        "--max-files",
        "3",
        "--out",
        s(&capped),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    let written = std::fs::read_dir(&capped).unwrap().count() as u64;
    // The summary's row: the target's name in four words, then seeds and failing seeds.
    let failing: u64 = stdout
        .lines()
        .find(|l| l.starts_with("mutex.centralized / lease-timeout [bug]"))
        .and_then(|l| l.split_whitespace().nth(5))
        .and_then(|f| f.parse().ok())
        .unwrap_or_else(|| panic!("no failing count:\n{stdout}"));
    assert!(failing > written && written == 3, "{stdout}");
    assert!(
        stdout.contains(&format!(
            "{} of mutex.centralized / lease-timeout [bug]",
            failing - written
        )) && stdout.contains("failing seeds with no file (--max-files"),
        "{stdout}"
    );
}

/// A campaign that replaces a failure file an earlier one left in its output directory with
/// another failure says so in its summary (it was silent, exit 0); writing the same failure
/// again is no replacement.
#[test]
fn replacing_an_earlier_campaigns_failure_file_is_said() {
    let out = dir("over-an-earlier-campaign");
    let campaign = |extra: &[&str]| {
        let mut args = vec![
            "fuzz",
            "-a",
            "omega.khouri-greve",
            "--variant",
            "join-zero",
            "--seeds",
            "100",
            "--no-shrink",
            "--out",
            s(&out),
        ];
        args.extend_from_slice(extra);
        let o = sincro(&args);
        assert_eq!(o.status.code(), Some(0), "{}{}", text(&o).0, text(&o).1);
        text(&o).0
    };
    let first = campaign(&[]);
    assert!(!first.contains("replaced "), "{first}");
    let again = campaign(&[]);
    assert!(!again.contains("replaced "), "the same failure: {again}");
    let other = campaign(&["--fixed-phase", "--active-ms", "300"]);
    assert!(
        other.contains("replaced 1 failure file an earlier campaign wrote here"),
        "{other}"
    );
}

/// With `--keep-going`, the files a capped campaign writes are those of the smallest failing
/// seeds, whatever order the workers finished in: at `-j 2`, `--max-files 1` wrote 2 files
/// half of the time, and `--max-files 3` a different third file from run to run.
#[test]
fn a_capped_campaign_writes_the_same_files_on_any_job_count() {
    let files = |name: &str, jobs: &str| {
        let out = dir(name);
        let o = sincro(&[
            "fuzz",
            "-a",
            "order.causal",
            "--variant",
            "fifo-only",
            "--seeds",
            "30",
            "--keep-going",
            "--no-shrink",
            "--max-files",
            "1",
            "-j",
            jobs,
            "--quiet",
            "--out",
            s(&out),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}{}", text(&o).0, text(&o).1);
        let mut names: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        names.sort();
        names
    };
    let one = files("capped-j1", "1");
    assert_eq!(
        one.len(),
        1,
        "{:?}",
        one.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for k in 0..4 {
        let two = files(&format!("capped-j2-{k}"), "2");
        assert_eq!(
            two.iter().map(|f| &f.0).collect::<Vec<_>>(),
            one.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        assert!(two == one, "the same bytes");
    }
}

/// Ctrl-C stops a campaign: the summary is written, exit 130, and its JUnit report (and a
/// merge of it) calls the targets it cut short failures, not passes: they said
/// `failures="0"`, which a CI dashboard reads as green.
#[test]
fn ctrl_c_stops_the_campaign_writes_the_summary_and_exits_130() {
    let out = dir("ctrlc");
    let junit = out.join("junit.xml");
    let child = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args(["fuzz", "--time", "60s", "--quiet", "--out", s(&out)])
        .args([
            "-a",
            "mutex.centralized",
            "--variant",
            "correct",
            "--junit",
            s(&junit),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    interrupt_once_ready(&child);
    let started = Instant::now();
    let o = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    assert!(stdout.contains("interrupted (Ctrl-C)"), "{stdout}");
    assert!(stdout.contains("runs/s"), "{stdout}");
    // The closing line agrees with the JUnit report: no pass.
    assert!(
        stdout.contains("0/1 targets as expected")
            && stdout.contains("1 correct cut short by Ctrl-C"),
        "{stdout}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("failures=\"1\"") && xml.contains("type=\"interrupted\""),
        "{xml}"
    );
    let merged = out.join("merged.xml");
    let o = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args(["merge-reports", s(&junit), "--junit", s(&merged)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let xml = std::fs::read_to_string(&merged).unwrap();
    assert!(xml.contains("failures=\"1\""), "{xml}");
}

/// Ctrl-C stops the run in flight too, not only the campaign's next ones: a turmoil run of
/// 500 simulated seconds (many seconds of wall time) went on to its end after the signal
/// (stop 58: minutes for a big one). The run cut short is not counted.
#[test]
fn ctrl_c_stops_the_run_in_flight_and_does_not_count_it() {
    let out = dir("ctrlc-in-flight");
    let child = long_turmoil_campaign(&out, &["--seeds", "1"]);
    interrupt_once_ready(&child);
    let o = wait_bounded(child, "the run in flight was not stopped by Ctrl-C");
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    assert!(
        stdout.contains("total: 0 runs")
            && stdout.contains("runs in flight stopped (not counted)")
            && stdout.contains("INTERRUPTED"),
        "{stdout}"
    );
    assert!(stderr.contains("stopping the runs in flight"), "{stderr}");
}

/// The time budget ends the run in flight too: a turmoil run of 500 simulated seconds went
/// on past `--time` to its end. Cut short, it is not counted.
#[test]
fn the_time_budget_stops_the_run_in_flight() {
    let out = dir("budget-in-flight");
    let child = long_turmoil_campaign(&out, &["--time", "500ms"]);
    let o = wait_bounded(child, "the run in flight went on past the time budget");
    let (stdout, stderr) = text(&o);
    assert!(
        stdout.contains("total: 0 runs") && stdout.contains("time budget reached"),
        "{stdout}{stderr}"
    );
}

/// A campaign of one correct target whose every run is a turmoil run of 500 simulated
/// seconds (many seconds of wall time), with `extra` options.
fn long_turmoil_campaign(out: &Path, extra: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args(["fuzz", "-a", "mutex.centralized", "--variant", "correct"])
        .args([
            "--engine",
            "turmoil",
            "--active-ms",
            "500000",
            "--fixed-phase",
        ])
        .args(extra)
        .args(["-j", "1", "--quiet", "--out", s(out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `child`'s output once it ends; killed, and `hang` the failure, past 120 s (a bound for a
/// hang, not a speed measurement: the run alone takes far longer).
fn wait_bounded(mut child: std::process::Child, hang: &str) -> std::process::Output {
    let waiting = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if waiting.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("{hang}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// SIGTERM (what CI timeouts and `docker stop` send) stops a campaign as Ctrl-C does, and a
/// buggy target it cut short before its bug showed is INTERRUPTED, not "the bug was not
/// caught": it was reported as a missed bug, and its JUnit testcase as `not_caught`. The
/// signal comes twice at once, as coreutils' `timeout` sends it (to the command, then to its
/// process group): that is one stop, not a second one that quits at once (stop 57: the
/// summary and the JUnit report were lost).
#[test]
fn sigterm_stops_the_campaign_and_a_bug_not_yet_caught_is_interrupted_not_missed() {
    let out = dir("sigterm");
    let junit = out.join("junit.xml");
    // From seed 1000 the ring's deep bug first shows after ~690 seeds (-j 1, some seconds):
    // half a second in, it has not.
    let child = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args([
            "fuzz",
            "--time",
            "60s",
            "--quiet",
            "-j",
            "1",
            "--out",
            s(&out),
        ])
        .args(["-a", "election.ring", "--variant", "stale-coordinator"])
        .args(["--seed-start", "1000", "--junit", s(&junit)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    signal_when_ready(&child, "-TERM", 2);
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    assert!(!stderr.contains("quitting at once"), "{stderr}");
    assert!(
        stdout.contains("INTERRUPTED: election.ring / stale-coordinator [bug]: INTERRUPTED")
            && stdout.contains("0/1 targets as expected")
            && stdout.contains("1 buggy cut short by SIGTERM before the bug showed")
            && stdout.contains("INTERRUPTED (SIGTERM) after")
            && !stdout.contains("Ctrl-C")
            && !stdout.contains("not caught"),
        "{stdout}"
    );
    // The messages name the signal received: they all said "Ctrl-C" of a SIGTERM.
    assert!(stderr.contains("interrupted (SIGTERM)"), "{stderr}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("type=\"interrupted\"") && !xml.contains("not_caught"),
        "{xml}"
    );
}

/// An interrupted table prints what it measured: the terminal layout held a table's rows
/// until the table ended, so a signal printed only the title (stop 57). Its header row, held
/// with the rows, shows the block was printed.
#[test]
fn an_interrupted_table_prints_the_rows_it_measured() {
    let child = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args(["table", "search", "-a", "mutex.centralized", "-j", "1"])
        .args(["--seeds", "1000000", "--strategy", "random"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    signal_once_ready(&child, "-TERM");
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    assert!(
        stdout.contains("variant") && stdout.contains("failing seeds"),
        "{stdout}"
    );
    assert!(stderr.contains("interrupted (SIGTERM)"), "{stderr}");
    // ... and says so on standard output, where the table is (stop 64: stderr only).
    assert!(
        stdout.contains("INTERRUPTED (SIGTERM): partial"),
        "{stdout}"
    );
}

/// An interrupted calibration says so where its figures are (only stderr named it), and
/// names the signal received.
#[test]
fn an_interrupted_calibration_says_its_figures_are_partial() {
    let out = dir("calibrate-hup");
    let child = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args([
            "calibrate",
            "-a",
            "mutex.centralized",
            "--variant",
            "lease-timeout",
        ])
        .args(["--offsets", "5", "--seeds", "1000000", "-j", "1", "-q"])
        .args(["--out", s(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    signal_once_ready(&child, "-HUP");
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    assert!(
        stdout.contains("interrupted (SIGHUP): the figures above count only the campaigns"),
        "{stdout}"
    );
}

/// A calibration's time budget ends it by itself: the campaign in flight is cut short, the
/// others never start, and the figures say they are out of time, not interrupted (exit 0).
/// `calibrate` had no budget: a large --seeds ran until a signal (stop 72's probe).
#[test]
fn a_time_budget_ends_a_calibration_and_its_figures_say_so() {
    let out = dir("calibrate-time");
    let o = sincro(&[
        "calibrate",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--offsets",
        "3",
        "--seeds",
        "1000000",
        "--strategy",
        "random",
        "--time",
        "300ms",
        "-q",
        "--out",
        s(&out),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("time budget reached (300ms): the figures above count only"),
        "{stdout}"
    );
    assert!(stdout.contains("(out of time)"), "{stdout}");
    assert!(!stdout.contains("interrupted"), "{stdout}");
}

/// Sends one SIGINT to `child` once its Ctrl-C handler is installed (a loaded CI machine may
/// start it late: SIGINT (2) is bit 1 of the caught-signals mask in /proc/<pid>/status), and
/// half a second of work later.
fn interrupt_once_ready(child: &std::process::Child) {
    signal_once_ready(child, "-INT");
}

/// [`interrupt_once_ready`] with another signal (`-TERM`): the handler catches SIGINT, SIGTERM
/// and SIGHUP from the same instant.
fn signal_once_ready(child: &std::process::Child, signal: &str) {
    signal_when_ready(child, signal, 1);
}

/// [`signal_once_ready`], sending the signal `times` times in one `kill` (microseconds apart).
fn signal_when_ready(child: &std::process::Child, signal: &str, times: usize) {
    let catches_sigint = || {
        std::fs::read_to_string(format!("/proc/{}/status", child.id()))
            .ok()
            .and_then(|st| {
                let mask = st.lines().find(|l| l.starts_with("SigCgt:"))?;
                u64::from_str_radix(mask.trim_start_matches("SigCgt:").trim(), 16).ok()
            })
            .is_some_and(|m| m & (1 << 1) != 0)
    };
    let waiting = Instant::now();
    while !catches_sigint() && waiting.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    let pid = child.id().to_string();
    let killed = Command::new("kill")
        .arg(signal)
        .args(std::iter::repeat_n(&pid, times))
        .status()
        .unwrap();
    assert!(killed.success());
}

/// Ctrl-C ends `explore` as its time budget does: what was explored is reported, and the exit
/// is 130 (it died at once with no summary).
#[test]
fn ctrl_c_ends_an_exploration_with_its_report() {
    let out = dir("explore-ctrlc");
    let child = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args(["explore", "-a", "mutex.ricart-agrawala", "--nodes", "4"])
        .args(["--depth", "400", "--time", "120s", "--out", s(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    interrupt_once_ready(&child);
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    assert!(
        stdout.contains("stopped by the interrupt)") && stdout.contains("INTERRUPTED"),
        "{stdout}"
    );
}

/// The cells of the Markdown row starting with `first`.
fn row<'a>(table: &'a str, first: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
        .find(|cells| cells.len() > 2 && cells[1] == first)
        .unwrap_or_else(|| panic!("no row {first}:\n{table}"))
}

#[test]
fn the_matrix_shows_which_properties_break_under_which_faults() {
    let out = dir("matrix");
    let md = out.join("matrix.md");
    let o = sincro(&[
        "matrix",
        "-a",
        "mutex.centralized",
        "--seeds",
        "20",
        "--jobs",
        "2",
        "--out",
        s(&out),
        "--markdown",
        s(&md),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "nothing breaks inside the model\n{stdout}{stderr}"
    );
    // The terminal gets the matrix within 100 columns; the Markdown file has one line a row.
    // (but for the counterexample lines, whose replay commands are not wrapped).
    assert!(
        stdout
            .lines()
            .filter(|l| !l.contains("sincro replay"))
            .all(|l| l.chars().count() <= 100),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("crashes ")),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&md).unwrap();
    // The file ends with the verdict the terminal closes with (it had every cell but not
    // the verdict, stop 72's probe).
    let verdict = "inside the declared fault models: every property held";
    assert!(stdout.trim_end().ends_with(verdict), "{stdout}");
    assert!(
        written.trim_end().ends_with(&format!("{verdict}\n```")),
        "{written}"
    );
    // the seeds said inclusively, with their count ("0..20" read as 21 of them)
    assert!(
        written.contains("over the 20 seeds 0..=19 with"),
        "{written}"
    );
    let head = row(&written, "fault class");
    let col = |p: &str| head.iter().position(|c| *c == p).unwrap();
    let (me, live) = (col("mutual_exclusion"), col("liveness"));
    let crashes = row(&written, "crashes");
    assert!(
        crashes[live].starts_with("breaks: liveness (seed"),
        "{stdout}"
    );
    assert!(crashes[live].contains("shrunk to"), "{stdout}");
    assert_eq!(crashes[col("in model")], "no");
    let pauses = row(&written, "pauses");
    assert_eq!(pauses[me], "holds (20 seeds)", "{stdout}");
    assert_eq!(pauses[col("in model")], "yes");

    // The crash counterexample replays to the same liveness violation; its replay command
    // is on the line under it (beside it, lines ran to 190 columns).
    let mut lines = stdout.lines();
    lines
        .find(|l| l.starts_with("- crashes / liveness"))
        .unwrap_or_else(|| panic!("{stdout}"));
    let line = lines.next().unwrap();
    assert!(line.starts_with("  `"), "{line}");
    let file = line
        .split("sincro replay ")
        .nth(1)
        .unwrap()
        .trim_end_matches('`');
    assert!(file.ends_with(".shrunk.json"), "{file}");
    let r = sincro(&["run", file]);
    let (rs, _) = text(&r);
    assert_eq!(r.status.code(), Some(0), "{rs}");
    assert_eq!(
        sincro(&["replay", file, "--render", "none"]).status.code(),
        Some(1)
    );
    assert!(
        rs.contains("liveness") && rs.contains("as expected"),
        "{rs}"
    );
}

/// Cells run in parallel, one per worker: the matrix printed and every counterexample file
/// are the same with one worker and with three.
#[test]
fn the_matrix_and_its_files_do_not_depend_on_the_workers() {
    let run = |jobs: &str| {
        let out = dir(&format!("matrix-jobs-{jobs}"));
        let o = sincro(&[
            "matrix",
            "-a",
            "mutex.centralized",
            "--seeds",
            "10",
            "--jobs",
            jobs,
            "--quiet",
            "--out",
            s(&out),
            "--markdown",
            s(&out.join("matrix.md")),
        ]);
        let (stdout, stderr) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
        let md = std::fs::read_to_string(out.join("matrix.md"))
            .unwrap()
            .replace(s(&out), "OUT");
        let mut files: Vec<(String, String)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        files.sort();
        (md, files)
    };
    let (md1, files1) = run("1");
    let (md3, files3) = run("3");
    assert!(md1.contains("breaks:"), "{md1}");
    assert!(files1.len() >= 4, "{} files", files1.len());
    assert_eq!(md1, md3);
    assert_eq!(files1, files3);
}

#[test]
fn a_matrix_out_of_time_says_which_cells_it_cut_short() {
    let out = dir("matrix-time");
    let o = sincro(&[
        "matrix",
        "-a",
        "mutex.centralized",
        "--seeds",
        "1000000000",
        "--time",
        "300ms",
        "--out",
        s(&out),
        "--quiet",
        "--markdown",
        s(&out.join("matrix.md")),
    ]);
    let (stdout, stderr) = text(&o);
    // No cell can run a billion seeds in 300 ms: every one is cut short or not run, and the
    // summary says so instead of claiming the whole matrix.
    let written = std::fs::read_to_string(out.join("matrix.md")).unwrap();
    let pauses = row(&written, "pauses");
    assert!(
        pauses[3].contains("cut short") || pauses[3] == "not run (out of time)",
        "{stdout}"
    );
    assert!(stdout.contains("cells cut short"), "{stdout}");
    // The summary counts as not run exactly the cells the table says were not run (a cell
    // that started with its time already spent ran no seed, was shown as not run, and was
    // neither counted nor, inside the model, failed: the matrix could pass with 0 runs).
    let shown = written.matches("not run (out of time)").count();
    let counted: usize = stdout
        .split("cells cut short, ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the summary's count");
    assert_eq!(shown, counted, "{stdout}");
    // Which cells the budget reached depends on the machine: cut short is a pass over the
    // seeds run, a cell inside the model never run is not (exit 1, listed).
    if stdout.contains("NOT RUN") {
        assert_eq!(o.status.code(), Some(1), "{stdout}{stderr}");
        assert!(stdout.contains("mutex.centralized / "), "{stdout}");
    } else {
        assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
        assert!(
            stdout.contains("every property held in the seeds run"),
            "{stdout}"
        );
    }
}

#[test]
fn a_matrix_cell_inside_the_model_never_run_fails_it() {
    // 1 ms for every cell of two algorithms: the budget ends before the last cells start, and
    // cells inside a declared model that never ran fail the matrix instead of passing it.
    let out = dir("matrix-not-run");
    let o = sincro(&[
        "matrix",
        "-a",
        "mutex.*",
        "--seeds",
        "1000000000",
        "--time",
        "1ms",
        "--out",
        s(&out),
        "--quiet",
    ]);
    let (stdout, stderr) = text(&o);
    assert!(stdout.contains("not run (out of time)"), "{stdout}{stderr}");
    assert_eq!(o.status.code(), Some(1), "{stdout}{stderr}");
    let words = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("NOT RUN:") && words.contains("never ran (out of time)"),
        "{stdout}"
    );
    assert!(!stdout.contains("every property held"), "{stdout}");
    // The closing line is wrapped to the tables' width (it ran to 504 columns).
    let closing = &stdout[stdout.find("NOT RUN:").unwrap()..];
    assert!(
        closing.lines().all(|l| l.chars().count() <= 100),
        "{closing}"
    );
}

/// A failure file that cannot be written mid-campaign stops the campaign (exit 2), and the
/// summary and the JUnit report say the output was lost: the campaign ran on, logging
/// failures it could not keep, and both called it as expected.
#[test]
fn a_failure_file_that_cannot_be_written_stops_the_campaign_and_is_reported() {
    let out = dir("lost-output");
    // lease-timeout's first failure from seed 0 is seed 2: its file's path is a directory.
    std::fs::create_dir_all(out.join("mutex.centralized.lease-timeout.seed2.json")).unwrap();
    let junit = out.join("j.xml");
    let o = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args([
            "fuzz",
            "-a",
            "mutex.centralized",
            "--variant",
            "lease-timeout",
        ])
        .args([
            "--seeds",
            "100",
            "--keep-going",
            "--no-shrink",
            "-j",
            "1",
            "-q",
        ])
        .args(["--out", s(&out), "--junit", s(&junit)])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stdout.contains("[bug]: LOST OUTPUT: a failure file could not be")
            && stdout.contains("0/1 targets as expected (0 bugs caught")
            && stdout.contains("1 with a failure file lost"),
        "{stdout}"
    );
    assert!(stderr.contains("Is a directory"), "{stderr}");
    // It stopped there: no failure file after the lost one.
    let written = std::fs::read_dir(&out).unwrap().count();
    assert!(written <= 3, "{written} entries: the campaign ran on");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(r#"type="write_error""#) && xml.contains("Is a directory"),
        "{xml}"
    );
}

/// An interrupted `matrix --markdown` says in the file that it is partial, and names the
/// algorithms left out: only the terminal said so, and the file outlives it.
#[test]
fn an_interrupted_matrix_says_so_in_its_markdown() {
    let out = dir("matrix-ctrlc");
    let md = out.join("m.md");
    let child = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args(["matrix", "--seeds", "100", "-j", "1", "--out", s(&out)])
        .args(["--markdown", s(&md)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    interrupt_once_ready(&child);
    let o = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(130), "{stdout}{stderr}");
    let doc = std::fs::read_to_string(&md).unwrap();
    assert!(
        doc.contains("**Partial: interrupted (Ctrl-C) before every cell ran.**")
            && doc.contains("omega.khouri-greve"),
        "{doc}"
    );
    // The terminal names the algorithms never reached too (it said only "partial").
    assert!(
        stdout.contains("interrupted (Ctrl-C): the matrix above is partial; not run at all: ")
            && stdout.contains("omega.khouri-greve"),
        "{stdout}"
    );
}

/// Outside the fault models a correct variant may break, or leave a property it cannot
/// judge: the closing line counts what found a failure and what held (it counted the buggy
/// variants alone, 23 of 43), and a run that could not be judged is never "breaks".
#[test]
fn a_campaign_beyond_the_models_counts_every_target_and_never_calls_unjudged_breaks() {
    let out = dir("beyond");
    let o = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args([
            "fuzz",
            "-a",
            "clock.rbs",
            "--variant",
            "correct",
            "--beyond-model",
        ])
        .args([
            "--seeds",
            "12",
            "--keep-going",
            "--no-shrink",
            "-j",
            "1",
            "-q",
        ])
        .args(["--out", s(&out)])
        .output()
        .unwrap();
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("1/1 targets as expected (explored outside their fault models: 1 found a failure, 0 held)"),
        "{stdout}"
    );
    // rbs's seed 0 beyond its model: fewer than two synchronized clocks alive at once.
    assert!(
        stdout.contains("explored: could not judge outside its fault")
            && !stdout.contains("breaks outside"),
        "{stdout}"
    );
}

/// `--markdown` naming a `.json` in `--out` wrote the table over a counterexample the matrix
/// had just written, whose replay line it printed (exit 0): refused before anything runs.
#[test]
fn the_matrix_markdown_never_replaces_a_counterexample() {
    let out = dir("matrix-md-over");
    let over = out.join("mutex.centralized.correct.loss.liveness.seed0.shrunk.json");
    let o = sincro(&[
        "matrix",
        "-a",
        "mutex.centralized",
        "--seeds",
        "2",
        "-j",
        "1",
        "-q",
        "--out",
        s(&out),
        "--markdown",
        s(&over),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("may be one of the counterexamples"),
        "{stderr}"
    );
    assert!(stdout.is_empty(), "nothing ran: {stdout}");
}

/// A correct variant whose runs judged nothing fails, and its JUnit type says why: it was
/// `not_caught`, a buggy variant's type. `--junit` naming a `.json` in `--out` (where the
/// failure files go) is refused before the campaign runs.
#[test]
fn junit_names_an_unjudged_target_and_never_replaces_a_failure_file() {
    let out = dir("junit-unjudged");
    let junit = out.join("report.xml");
    let o = sincro(&[
        "fuzz",
        "-a",
        "deadlock.cmh",
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
        s(&out),
        "--junit",
        s(&junit),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{stdout}{stderr}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains(r#"type="could_not_judge""#), "{xml}");
    let over = out.join("mutex.centralized.lease-timeout.seed2.shrunk.json");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--variant",
        "lease-timeout",
        "--seeds",
        "10",
        "-q",
        "--out",
        s(&out),
        "--junit",
        s(&over),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains("may be one of the failure files"),
        "{stderr}"
    );
    // However the path reaches it: through a folder not made yet and `..`, or a link to a
    // file not there yet, into an --out not made yet (both replaced a failure file whose
    // replay line was printed, stop 72's probe).
    let fresh_out = out.join("not-yet");
    let link = out.join("link.json");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(fresh_out.join("x.seed0.json"), &link).unwrap();
    let through = fresh_out.join("new/../mutex.centralized.lease-timeout.seed0.json");
    for report in [through, link] {
        for cmd in ["fuzz", "matrix"] {
            let flag = if cmd == "fuzz" {
                "--junit"
            } else {
                "--markdown"
            };
            let o = sincro(&[
                cmd,
                "-a",
                "mutex.centralized",
                "--seeds",
                "1",
                "-q",
                "--out",
                s(&fresh_out),
                flag,
                s(&report),
            ]);
            let (stdout, stderr) = text(&o);
            assert_eq!(
                o.status.code(),
                Some(2),
                "{cmd} {report:?}: {stdout}{stderr}"
            );
            assert!(stderr.contains("a .json file in --out"), "{cmd}: {stderr}");
            assert!(!fresh_out.exists(), "{cmd}: refused, nothing made");
        }
    }
    // A matrix with no cell to run is refused, and leaves no --out either.
    let o = sincro(&[
        "matrix",
        "-a",
        "election.anel1",
        "--seeds",
        "1",
        "-q",
        "--out",
        s(&fresh_out),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o).1);
    assert!(!fresh_out.exists());
    // One new path for both: refused as such, and nothing made there (it said the new
    // --out directory was a directory, and left it).
    let same = out.join("same");
    let o = sincro(&[
        "fuzz",
        "-a",
        "mutex.centralized",
        "--seeds",
        "1",
        "-q",
        "--out",
        s(&same),
        "--junit",
        s(&same),
    ]);
    let (stdout, stderr) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("name the same path"), "{stderr}");
    assert!(!same.exists());
}
