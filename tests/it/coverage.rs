//! Coverage guidance of campaigns: deterministic whatever the job count, goals reported as
//! reached or never reached, goals a fault model rules out left out, and the CLI's summary.

use sincro::algorithms::{find, Algorithm};
use sincro::fuzz::{fuzz_target, FuzzConfig, Target, TargetReport};
use sincro::harness::gen::GenOptions;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;

fn out_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("coverage-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn campaign(alg: &str, variant: &str, seeds: u64, jobs: usize, coverage: bool) -> TargetReport {
    campaign_writing(alg, variant, seeds, jobs, coverage, 0).0
}

/// A campaign that writes up to `max_files` failure files, and the folder they are in.
fn campaign_writing(
    alg: &str,
    variant: &str,
    seeds: u64,
    jobs: usize,
    coverage: bool,
    max_files: usize,
) -> (TargetReport, PathBuf) {
    let algorithm: &'static dyn Algorithm = find(alg).unwrap();
    let target = Target {
        algorithm,
        variant: algorithm
            .info()
            .variants
            .into_iter()
            .find(|v| v.name == variant)
            .unwrap(),
    };
    let cfg = FuzzConfig {
        seeds,
        jobs,
        keep_going: true,
        coverage,
        gen: GenOptions {
            nodes_min: 3,
            nodes_max: 4,
            active_ms: 400,
            ..GenOptions::default()
        },
        out_dir: out_dir(&format!("{alg}.{variant}.{jobs}.{coverage}.{max_files}")),
        max_files,
        ..FuzzConfig::default()
    };
    let report = fuzz_target(&target, &cfg, &AtomicBool::new(false), &|_| {});
    (report, cfg.out_dir)
}

/// A mutated scenario is named after the campaign seed that ran it, as its file is (stop 64:
/// `…seed107.json` was named `…-seed0`, its parent's, with `"seed": 108`: three seeds).
#[test]
fn a_mutated_failure_is_named_after_its_own_seed() {
    let (_, dir) = campaign_writing("mutex.ricart-agrawala", "no-tiebreak", 150, 1, true, 150);
    let mut mutated = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let sc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let description = sc["description"].as_str().unwrap();
        let Some(rest) = description.split(" | mutated at seed ").nth(1) else {
            continue;
        };
        mutated += 1;
        let seed = rest.split(' ').next().unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        assert!(file.ends_with(&format!(".seed{seed}.json")), "{file}");
        assert_eq!(
            sc["name"].as_str().unwrap(),
            format!("mutex.ricart-agrawala-no-tiebreak-seed{seed}"),
            "{file}"
        );
    }
    assert!(mutated > 0, "no mutated failure among {}", dir.display());
}

#[test]
fn a_guided_campaign_is_the_same_on_one_job_and_on_two() {
    let one = campaign("mutex.ricart-agrawala", "no-tiebreak", 150, 1, true);
    let two = campaign("mutex.ricart-agrawala", "no-tiebreak", 150, 2, true);
    let cov = one.coverage.clone().expect("guided");
    assert_eq!(one.coverage, two.coverage);
    assert_eq!(one.failures, two.failures);
    assert_eq!(one.first.map(|f| f.seed), two.first.map(|f| f.seed));
    // Guidance did something: a corpus, and mutations once the first batches were merged.
    assert!(cov.corpus > 0 && cov.features > cov.corpus, "{cov:?}");
    // A share of the seeds past the first two batches (whose corpus is still empty).
    let eligible = (150 - 2 * sincro::guide::BATCH) as f64;
    let expected = eligible * sincro::guide::MUTATE_SHARE;
    let mutated = cov.mutated as f64;
    assert!(
        mutated > expected * 0.5 && mutated < expected * 1.5,
        "{cov:?}"
    );
    assert_eq!(cov.runs, 150);
    // Off, there is no report and no mutation.
    assert!(
        campaign("mutex.ricart-agrawala", "no-tiebreak", 20, 1, false)
            .coverage
            .is_none()
    );
}

#[test]
fn goals_are_reported_and_those_the_fault_model_rules_out_are_left_out() {
    // mutex.centralized tolerates pauses but not crashes: of the three mutual exclusion
    // goals only the pause is in, and within 300 seeds a holder is paused inside the
    // critical section.
    let r = campaign("mutex.centralized", "correct", 300, 2, true);
    let goals = r.coverage.expect("guided").goals;
    let names: Vec<String> = goals.iter().map(|g| g.name.clone()).collect();
    let alg = find("mutex.centralized").unwrap();
    let model = alg.info().fault_model;
    let expected: Vec<String> = alg
        .goals()
        .into_iter()
        .filter(|g| g.possible_under(&model))
        .map(|g| g.name)
        .collect();
    assert_eq!(alg.goals().len(), 3);
    assert_eq!(names, expected);
    assert_eq!(names, ["paused_in_cs"]);
    let paused = goals
        .iter()
        .find(|g| g.name == "paused_in_cs")
        .expect("allowed");
    assert!(paused.runs > 0, "{goals:?}");
    assert!(paused.first_seed.is_some_and(|s| s < 300));
    // The fault-tolerant Ricart-Agrawala tolerates crashes: its crash goals are in.
    let ft = campaign("mutex.ricart-agrawala-ft", "correct", 20, 1, true);
    let ft_goals: Vec<String> = ft
        .coverage
        .unwrap()
        .goals
        .into_iter()
        .map(|g| g.name)
        .collect();
    assert!(
        ft_goals.iter().any(|g| g == "crashed_in_cs"),
        "{ft_goals:?}"
    );
}

#[test]
fn the_summary_lists_goals_and_random_turns_guidance_off() {
    let dir = out_dir("cli");
    let run = |seeds: &str, extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_sincro"))
            .args([
                "fuzz",
                "-a",
                "election.bully",
                "--variant",
                "correct",
                "--seeds",
                seeds,
            ])
            .args(["--out", dir.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        String::from_utf8(o.stdout).unwrap()
    };
    let guided = run("40", &[]);
    assert!(guided.contains("coverage guidance: "), "{guided}");
    assert!(guided.contains("goals (sometimes): "), "{guided}");
    // A buggy target stops at its first failure: its goals are not judged.
    let both = Command::new(env!("CARGO_BIN_EXE_sincro"))
        .args([
            "fuzz",
            "-a",
            "election.bully",
            "--seeds",
            "40",
            "--no-shrink",
        ])
        .args(["--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(both.status.success(), "{both:?}");
    let both = String::from_utf8(both.stdout).unwrap();
    assert!(
        both.contains("over 1 targets (1 stopped at their first failure not counted)"),
        "{both}"
    );
    assert!(!both.contains("short-timeout [bug]: "), "{both}");
    // With guidance on, the line is printed after any number of runs: 20 seeds tell.
    assert!(run("20", &[]).contains("coverage guidance: "));
    for off in [&["--no-coverage"][..], &["--strategy", "random"][..]] {
        let plain = run("20", off);
        assert!(!plain.contains("coverage guidance"), "{plain}");
    }
}

#[test]
fn a_failure_signature_names_the_violating_events_and_tells_other_events_apart() {
    use sincro::fuzz::failure_signature;
    use sincro::harness::{EventKind, RunOptions, Scenario, Verdict};
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/mutex/centralized-lease-timeout-overlap.json"
    ))
    .unwrap();
    let sc = Scenario::from_json(&text).unwrap();
    let alg = find(&sc.algorithm).unwrap();
    let out = alg.run(&sc, RunOptions::new(true)).unwrap();
    let sig = failure_signature(&out);
    assert!(sig.starts_with("violation:mutual_exclusion ["), "{sig}");
    assert!(sig.contains("cs_enter"), "{sig}");
    // The same label through other events is another failure.
    let mut other = alg.run(&sc, RunOptions::new(true)).unwrap();
    let Verdict::Violation(v) = &mut other.verdict else {
        panic!("a violation")
    };
    let trace = other.trace.as_ref().unwrap();
    let input = trace
        .events()
        .iter()
        .find(|e| matches!(e.kind, EventKind::Input { .. }))
        .unwrap()
        .id;
    v.events = vec![input];
    assert_eq!(other.verdict.label(), out.verdict.label());
    assert_ne!(failure_signature(&other), sig);
    // Without a trace, only the label is known.
    let bare = alg.run(&sc, RunOptions::new(false)).unwrap();
    assert!(bare.trace.is_none());
    assert_eq!(failure_signature(&bare), out.verdict.label());
}

/// An algorithm leaves out the goals of its properties it can never reach
/// (`Spec::goals_unreachable`): a user's lease server that reports no `cs_request` was told
/// after every campaign that `crashed_waiting` was never reached (stop 65's probe). A name no
/// goal has is refused by every run, naming the goals there are.
#[test]
fn an_algorithm_leaves_out_the_goals_it_can_never_reach() {
    use sincro::algorithms::spec::{Spec, Timed};
    use sincro::harness::{Ctx, NodeId, Observation, Process, SimRng};

    sincro::algorithms::variants! {
        pub enum Variant {
            Correct = "correct", "node 0 enters once";
        }
    }
    struct Node;
    impl Process for Node {
        type Msg = ();
        type Timer = ();
        type Input = ();
        type Stable = ();
        fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
            if ctx.id() == 0 {
                ctx.observe(Observation::CsEnter { resource: 0 });
                ctx.observe(Observation::CsExit { resource: 0 });
            }
        }
        fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
        fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
        fn on_input(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
    }
    #[derive(Clone, Copy, Debug)]
    struct Once(&'static [&'static str]);
    impl Spec for Once {
        type Node = Node;
        type Params = ();
        type Variant = Variant;
        fn name(&self) -> &'static str {
            "test.once"
        }
        fn properties(&self) -> Vec<&'static str> {
            vec!["mutual_exclusion"]
        }
        fn node(&self, _: Variant, _: &(), _: NodeId) -> Node {
            Node
        }
        fn workload(&self, _: &mut SimRng, _: usize, _: u64) -> Vec<Timed<()>> {
            Vec::new()
        }
        fn goals_unreachable(&self) -> Vec<&'static str> {
            self.0.to_vec()
        }
        fn fault_model(&self) -> sincro::harness::fault::FaultModel {
            use sincro::harness::fault::{FaultClass, FaultModel};
            FaultModel {
                tolerates: vec![FaultClass::Crashes],
                summary: "crashes",
                ..FaultModel::default()
            }
        }
    }
    let names =
        |a: &dyn Algorithm| -> Vec<String> { a.goals().into_iter().map(|g| g.name).collect() };
    static ALL: Once = Once(&[]);
    static LEFT_OUT: Once = Once(&["crashed_waiting"]);
    static MISSPELT: Once = Once(&["crashed_wating"]);
    assert!(
        names(&ALL).iter().any(|n| n == "crashed_waiting"),
        "{:?}",
        names(&ALL)
    );
    let left = names(&LEFT_OUT);
    assert!(!left.iter().any(|n| n == "crashed_waiting"), "{left:?}");
    assert_eq!(left.len() + 1, names(&ALL).len(), "{left:?}");
    let sc: sincro::harness::Scenario = serde_json::from_str(
        r#"{"algorithm": "test.once", "nodes": 3, "seed": 1, "duration_ms": 100}"#,
    )
    .unwrap();
    let run = |a: &dyn Algorithm| a.run(&sc, sincro::harness::engine::RunOptions::new(false));
    assert!(run(&LEFT_OUT).is_ok());
    let e = run(&MISSPELT).unwrap_err().0;
    assert!(
        e.contains("goals_unreachable names `crashed_wating`") && e.contains("crashed_waiting"),
        "{e}"
    );
}
