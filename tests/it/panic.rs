//! A panic inside an algorithm under test is caught, reported as a `panic` failure, and the
//! failing scenario is written so it replays.

use sincro::algorithms::{Algorithm, AlgorithmInfo, VariantInfo};
use sincro::fuzz::{fuzz_target, FuzzConfig, Target};
use sincro::harness::engine::{self, Outcome, RunOptions};
use sincro::harness::fault::FaultModel;
use sincro::harness::gen::GenOptions;
use sincro::harness::{
    Ctx, Expect, NodeId, Process, Scenario, ScenarioError, SimRng, Verdict, WorkloadItem,
};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;

/// Panics when it hears a message while its counter is odd: a planted bug.
struct Fragile {
    count: u32,
}

impl Process for Fragile {
    type Msg = u32;
    type Timer = ();
    type Input = u32;
    type Stable = ();
    fn on_start(&mut self, _: &mut Ctx<'_, Self>) {}
    fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, m: u32) {
        self.count += m;
        assert!(self.count < 3, "fragile counter overflowed: {}", self.count);
    }
    fn on_timer(&mut self, _: &mut Ctx<'_, Self>, _: ()) {}
    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, m: u32) {
        ctx.broadcast(m);
    }
}

struct FragileAlg;

impl Algorithm for FragileAlg {
    fn info(&self) -> AlgorithmInfo {
        AlgorithmInfo {
            name: "test.fragile",
            summary: "panics on a large enough sum",
            source: "tests/it/panic.rs",
            variants: vec![VariantInfo {
                name: "correct",
                buggy: false,
                deep: false,
                summary: "",
            }],
            properties: vec![],
            fault_model: FaultModel {
                tolerates: vec![],
                summary: "",
                ..FaultModel::default()
            },
        }
    }
    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        engine::run(sc, Rc::new(|_| Fragile { count: 0 }), vec![], options)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        (0..3)
            .map(|_| WorkloadItem {
                at_ms: rng.range_u64(0, active_ms),
                node: rng.index(nodes),
                input: serde_json::json!(rng.range_u64(0, 2)).into(),
            })
            .collect()
    }
    fn liveness_bound_ms(&self, _: &Scenario) -> u64 {
        10
    }
}

static FRAGILE: FragileAlg = FragileAlg;

#[test]
fn a_panicking_algorithm_is_reported_and_its_scenario_written() {
    engine::install_panic_hook();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("panic-tests");
    let _ = std::fs::remove_dir_all(&dir);
    let cfg = FuzzConfig {
        seed_start: 0,
        seeds: 200,
        jobs: 2,
        keep_going: false,
        check_determinism: false,
        gen: GenOptions {
            nodes_min: 2,
            nodes_max: 3,
            active_ms: 100,
            ..Default::default()
        },
        out_dir: dir.clone(),
        max_files: 5,
        coverage: true,
    };
    let target = Target {
        algorithm: &FRAGILE,
        variant: FRAGILE.info().variants[0].clone(),
    };
    let report = fuzz_target(&target, &cfg, &AtomicBool::new(false), &|_| {});
    let first = report.first.expect("the planted panic is found");
    assert_eq!(first.label, "panic");
    assert!(
        first.detail.contains("fragile counter overflowed"),
        "{}",
        first.detail
    );
    assert!(
        first.detail.contains("tests/it/panic.rs"),
        "the location is reported: {}",
        first.detail
    );
    let path = first.path.expect("written");
    let sc = Scenario::load(&path).unwrap();
    assert_eq!(sc.expect, Some(Expect::Panic));
    let again = FRAGILE.run(&sc, RunOptions::default()).unwrap();
    assert!(
        matches!(again.verdict, Verdict::Panic { .. }),
        "the file replays to the same panic"
    );
    // the smallest failing seed, whatever the number of jobs
    let single = fuzz_target(
        &target,
        &FuzzConfig { jobs: 1, ..cfg },
        &AtomicBool::new(false),
        &|_| {},
    );
    assert_eq!(single.first.unwrap().seed, first.seed);
}

/// Sends to the node one past the last: an off-by-one destination.
struct OffByOne;

impl Process for OffByOne {
    type Msg = ();
    type Timer = ();
    type Input = ();
    type Stable = ();
    fn on_message(&mut self, _: &mut Ctx<'_, Self>, _: NodeId, _: ()) {}
    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, _: ()) {
        let n = ctx.nodes();
        ctx.send(n, ());
    }
}

/// A send to a node that does not exist is the algorithm's bug: a panic of the sender, on
/// every engine (it was dropped as `no_such_node` and the run passed, in a model with no
/// loss).
#[test]
fn a_send_to_a_node_that_does_not_exist_is_a_panic_of_the_sender() {
    engine::install_panic_hook();
    for engine in ["native", "turmoil"] {
        let sc = Scenario::from_json(&format!(
            r#"{{"algorithm": "test.off-by-one", "nodes": 3, "seed": 1, "duration_ms": 50,
                "engine": "{engine}", "workload": [{{"at_ms": 5, "node": 1, "input": null}}]}}"#
        ))
        .unwrap();
        let out = engine::run(&sc, Rc::new(|_| OffByOne), vec![], RunOptions::new(true)).unwrap();
        match &out.verdict {
            Verdict::Panic { node, message, .. } => {
                assert_eq!(*node, 1, "{engine}");
                assert!(
                    message.contains("send to node 3, which does not exist (nodes = 3)"),
                    "{engine}: {message}"
                );
                // The algorithm's line is named, not the harness's assert (`#[track_caller]`).
                assert!(
                    message.contains("tests/it/panic.rs") && !message.contains("process.rs"),
                    "{engine}: {message}"
                );
            }
            v => panic!("{engine}: {v}"),
        }
    }
}

/// An algorithm implemented without a `Spec` answers `checkers_with` as it answers
/// `checkers` (the default delegates; a test's own checkers are added by the caller).
#[test]
fn an_algorithm_without_a_spec_answers_checkers_with_as_checkers() {
    let sc = FRAGILE.generate("correct", 1, &GenOptions::default());
    let plain = FRAGILE.checkers(&sc).map(|c| c.len()).map_err(|e| e.0);
    let with = FRAGILE
        .checkers_with(&sc, &["mine"])
        .map(|c| c.len())
        .map_err(|e| e.0);
    assert_eq!(plain, with);
}
