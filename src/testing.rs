//! Your own algorithm in `cargo test`: [`check`] fuzzes any [`Spec`] from a `#[test]`.
//!
//! ```no_run
//! # use sincro::algorithms::mutex::centralized::{CentralizedSpec as MyLock, Variant};
//! use sincro::harness::fault::FaultClass;
//!
//! #[test]
//! fn my_lock_keeps_mutual_exclusion() {
//!     sincro::testing::check(MyLock)
//!         .nodes(3..=5)
//!         .faults([FaultClass::Pauses, FaultClass::Reordering])
//!         .seeds(200)
//!         .run()
//!         .unwrap(); // the error's Display: the violation, its events, the replay line
//! }
//!
//! #[test]
//! fn the_lease_twin_is_caught() {
//!     sincro::testing::check(MyLock)
//!         .variant(Variant::LeaseTimeout)
//!         .expect_violation("mutual_exclusion")
//!         .unwrap();
//! }
//! ```
//!
//! What a run does, in order:
//! 1. With `SINCRO_REPLAY=<file>`, it only replays that scenario file and reports.
//! 2. Otherwise it first replays every file of the regressions directory
//!    (`<crate>/sincro-regressions/`) naming this algorithm and variant whose fault plan stays
//!    within this test's fault classes (a failure another test found with `.faults([..])`
//!    outside the model is that test's), so a failure found once is tried first ever after
//!    (proptest's habit); a regressions path that is not a readable directory is an error,
//!    one named on purpose that does not exist yet is noted on stderr;
//! 3. then it fuzzes generated scenarios (swarm faults inside the algorithm's fault model, or
//!    the classes given to [`Check::faults`]), stops at the first failure, shrinks it, writes
//!    the shrunk scenario to the regressions directory (`<algorithm>.<variant>.seed<N>.json`,
//!    or `…seed<N>-2.json` when another test's failure already holds that name: no regression
//!    replaces another), and returns it as a [`Failure`].
//!
//! Environment variables (each overrides the builder; a bad value is reported as a failure
//! naming the variable):
//!
//! | variable | meaning |
//! |---|---|
//! | `SINCRO_SEED=N` | run only seed `N` (not with `SINCRO_SEEDS`) |
//! | `SINCRO_SEEDS=N` | run `N` seeds |
//! | `SINCRO_TIME=30s` | a wall-clock budget (`90s`, `5m`, `1h30m`; a bare number is seconds); with it and no `SINCRO_SEEDS`, seeds are unbounded |
//! | `SINCRO_CHECK_DETERMINISM=1` | run every seed twice and compare the traces event by event |
//! | `SINCRO_REPLAY=path.json` | replay one scenario file (e.g. the one a failure names) in the tests of its algorithm and variant; `expect_violation` refuses it |
//! | `SINCRO_ENGINE=native\|turmoil\|madsim` | the engine of generated scenarios |
//! | `SINCRO_JOBS=N` | worker threads (each run stays single-threaded) |
//! | `SINCRO_REGRESSIONS=dir\|off` | where failures persist (default `<crate>/sincro-regressions`) |

// A `Failure` is returned once per test, at its end, with everything a person needs to read:
// its size does not matter, and boxing it would only make `failure.verdict` harder to reach.
#![allow(clippy::result_large_err)]

use crate::algorithms::spec::{Spec, Variant};
use crate::algorithms::{Algorithm, AlgorithmInfo, CheckerFactory};
use crate::checkers::Property;
use crate::fuzz::{self, CampaignOptions, FuzzConfig, Live, Target, TargetRun};
use crate::harness::engine::{Outcome, RunOptions};
use crate::harness::fault::{FaultClass, FaultModel};
use crate::harness::gen::{Draft, GenOptions, Strategy};
use crate::harness::render::{event_line_in, Columns};
use crate::harness::scenario::MAX_NODES;
use crate::harness::shrink::{ScenarioSize, ShrinkOptions};
use crate::harness::{
    Checker, EngineKind, Limits, Scenario, ScenarioError, SimRng, Trace, Verdict, WorkloadItem,
    MAX_TIME_MS,
};
use std::fmt;
use std::io::Write as _;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Whether fault class `c` of a scenario's plan is inside a model that tolerates `allowed`:
/// delays are always on (a link slowed and restored is a delay), and a crash with no restart
/// is inside a model of crashes that also tolerates crash-stop.
fn in_model(allowed: &[FaultClass], c: FaultClass) -> bool {
    c == FaultClass::Delays || allowed.contains(&c)
}

/// What [`Check::audit_sample`] found.
struct Sample {
    /// Properties no sampled run gave anything to judge, with the event kinds they read.
    never_judged: Vec<(String, &'static [&'static str])>,
    /// A checker whose verdict depends on line order or on the events the engines pass it
    /// (its gate), as the failure to report.
    dependent: Option<Failure>,
}

/// The first of `sc`'s checkers (as `alg` builds them) whose verdict on `trace` (a run ending
/// at `end_t_ns`) differs from its verdict on the same run with each instant's lines in
/// another order ([`crate::harness::reorder::reorder_instants`]): its property and the two
/// verdicts. `None` when every checker judges both alike (or they cannot be built).
pub fn line_order_dependence(
    alg: &dyn Algorithm,
    sc: &Scenario,
    trace: &Trace,
    end_t_ns: u64,
) -> Option<(String, Verdict, Verdict)> {
    let reordered = crate::harness::reorder::reorder_instants(trace);
    let (Ok(mut a), Ok(mut b)) = (alg.checkers(sc), alg.checkers(sc)) else {
        return None;
    };
    a.iter_mut().zip(b.iter_mut()).find_map(|(ca, cb)| {
        let property = ca.property().to_string();
        let va = crate::harness::check::judge_trace(trace, end_t_ns, std::slice::from_mut(ca));
        let vb = crate::harness::check::judge_trace(&reordered, end_t_ns, std::slice::from_mut(cb));
        (va.label() != vb.label()).then_some((property, va, vb))
    })
}

/// The first of `sc`'s checkers (as `alg` builds them) whose verdict on `trace` (a run ending
/// at `end_t_ns`) with every event passed differs from its verdict with only the events its
/// gate lets through, as the engines pass them online
/// ([`crate::harness::check::gate_dependence`]): a checker whose `interest()` or
/// `wake_at_ns()` leaves out an event it reads. `None` when every checker judges alike both
/// ways (or they cannot be built).
pub fn gate_dependence(
    alg: &dyn Algorithm,
    sc: &Scenario,
    trace: &Trace,
    end_t_ns: u64,
) -> Option<crate::harness::check::GateDependence> {
    let (Ok(mut every), Ok(mut gated)) = (alg.checkers(sc), alg.checkers(sc)) else {
        return None;
    };
    crate::harness::check::gate_dependence(trace, end_t_ns, &mut every, &mut gated)
}

/// Most seeds a passing check re-runs traced to see that each property had something to
/// judge (see [`Check::run`]).
pub const EVIDENCE_SAMPLE: u64 = 20;

/// Starts a test of `spec`'s correct variant (the first of its variants) with the defaults:
/// 3–6 nodes, faults inside its declared model, 100 seeds, native engine.
pub fn check<S: Spec>(spec: S) -> Check<S> {
    Check {
        spec,
        variant: S::Variant::ALL[0],
        nodes: 3..=6,
        faults: None,
        properties: None,
        active_ms: 1_000,
        seeds: 100,
        seed_start: 0,
        time: None,
        engine: EngineKind::Native,
        strategy: Strategy::Mix,
        phase_swarm: true,
        coverage: true,
        check_determinism: false,
        jobs: 1,
        regressions: Regressions::Default,
        shrink_runs: ShrinkOptions::default().max_runs,
        shrink_time: SHRINK_TIME_DEFAULT,
        limits: Limits::default(),
        read_env: true,
        extra: Vec::new(),
        watch: Arc::default(),
        stall_after: fuzz::LONG_RUN,
    }
}

#[derive(Clone, Debug)]
enum Regressions {
    Default,
    Off,
    At(PathBuf),
}

/// How long [`Check`] shrinks a failure at most unless told ([`Check::shrink_time`]): as
/// `sincro fuzz --shrink-time`'s default.
pub const SHRINK_TIME_DEFAULT: Duration = Duration::from_secs(60);

/// A test of one algorithm variant, built like a sentence and ended by [`Check::run`] or
/// [`Check::expect_violation`].
#[derive(Clone)]
#[must_use = "a check does nothing until `run()` or `expect_violation()`"]
pub struct Check<S: Spec> {
    spec: S,
    variant: S::Variant,
    nodes: RangeInclusive<usize>,
    faults: Option<Vec<FaultClass>>,
    properties: Option<Vec<String>>,
    active_ms: u64,
    seeds: u64,
    seed_start: u64,
    time: Option<Duration>,
    engine: EngineKind,
    strategy: Strategy,
    phase_swarm: bool,
    coverage: bool,
    check_determinism: bool,
    jobs: usize,
    regressions: Regressions,
    shrink_runs: usize,
    shrink_time: Duration,
    limits: Limits,
    read_env: bool,
    extra: Vec<(&'static str, Arc<CheckerFactory>)>,
    /// What the check runs now, for its watcher (made afresh by `run` and
    /// `expect_violation`).
    watch: Arc<Watch>,
    /// How long a run goes on before the watcher names it ([`fuzz::LONG_RUN`]).
    stall_after: Duration,
}

/// What a check runs now, for the watcher thread of [`Check::run`] and
/// [`Check::expect_violation`]: a run that does not return (a callback looping without asking
/// for anything, which no limit inside a run can stop) is named on stderr with the line that
/// runs it alone, where `cargo test` would wait on it in silence.
#[derive(Debug, Default)]
struct Watch {
    /// The campaign's: the seed each worker runs.
    live: Live,
    /// A run outside the campaign (a regression or replayed file, a sampled seed of the
    /// audit, a failure's re-run): what it is, and since when.
    single: Mutex<Option<(String, Instant)>>,
}

impl Watch {
    /// Runs `f`, one run outside the campaign described by `what`, under the watch.
    fn single<T>(&self, what: impl FnOnce() -> String, f: impl FnOnce() -> T) -> T {
        *self.single.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((what(), Instant::now()));
        let out = f();
        *self.single.lock().unwrap_or_else(PoisonError::into_inner) = None;
        out
    }
}

/// Runs `f` (a check of `name`) while a watcher thread names on stderr, once each, the runs of
/// `watch` that go on for `after`, with the line that runs a seed alone (`replay`: the test's
/// `cargo test` arguments). It writes to stderr itself: the test harness shows what a test
/// prints only once the test ends, which a stuck run never does.
fn watched<T>(
    watch: &Watch,
    after: Duration,
    name: &str,
    replay: &str,
    f: impl FnOnce() -> T,
) -> T {
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let say = |line: String| {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    };
    let why = format!(
        "has run for {} without returning: a long run, or a callback that never returns (one \
         looping without asking for a send, timer or observation cannot be stopped inside a \
         run)",
        humantime::format_duration(after)
    );
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut seeds = fuzz::StallWatch::after(after);
            let mut named: Option<Instant> = None;
            let tick = (after / 4).clamp(Duration::from_millis(5), Duration::from_secs(1));
            // until `f` returns (or unwinds): then `done` is dropped
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(tick) {
                let now = Instant::now();
                for seed in seeds.look(&watch.live.running.snapshot(), now) {
                    say(format!(
                        "sincro::testing: {name}: seed {seed} {why}; run it alone: \
                         SINCRO_SEED={seed} cargo test{replay}"
                    ));
                }
                let single = watch.single.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some((what, since)) = &*single {
                    if now.duration_since(*since) >= after && named != Some(*since) {
                        named = Some(*since);
                        say(format!("sincro::testing: {name}: {what} {why}"));
                    }
                }
            }
        });
        let out = f();
        drop(done);
        out
    })
}

impl<S: Spec> Check<S> {
    /// Also judges every run with this checker, built for each scenario (with its liveness
    /// bound, ms), beside the properties the algorithm promises: any `impl Checker` of the
    /// test's own. `name` is its property name. A replay through `SINCRO_REPLAY` applies it
    /// too; for `replay` on the command line, register it with `Registry::with_checker` and
    /// name it in the algorithm's properties instead.
    pub fn checker(
        mut self,
        name: &'static str,
        build: impl Fn(&Scenario, u64) -> Box<dyn Checker> + Send + Sync + 'static,
    ) -> Self {
        self.extra.push((name, Arc::new(build)));
        self
    }

    /// Also judges every run with a built-in checker chosen by type, e.g.
    /// `.check::<MutualExclusion>()` (see [`Property`] for the list).
    pub fn check<P: Property>(self) -> Self {
        self.checker(P::NAME, |sc, bound_ms| {
            Box::new(P::for_scenario(sc, bound_ms))
        })
    }
    /// The variant to test (default: the first, the correct one).
    pub fn variant(mut self, v: S::Variant) -> Self {
        self.variant = v;
        self
    }
    /// Node counts to draw from (default `3..=6`, at most [`MAX_NODES`]); `n..=n` for exactly
    /// `n`. A range reaching below the algorithm's `nodes_min` is raised to it; one wholly
    /// below it is refused when the check runs.
    pub fn nodes(mut self, range: RangeInclusive<usize>) -> Self {
        self.nodes = range;
        self
    }
    /// Fault classes the swarm draws from, instead of the algorithm's declared model
    /// (exploration beyond the model when they are outside it). Delays are always on.
    pub fn faults(mut self, classes: impl IntoIterator<Item = FaultClass>) -> Self {
        self.faults = Some(classes.into_iter().collect());
        self
    }
    /// Check only these of the properties the algorithm promises (default: all of them).
    pub fn properties<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Self {
        self.properties = Some(names.into_iter().map(str::to_string).collect());
        self
    }
    /// Length of the faulty phase of each scenario (default 1 s; then everything heals and
    /// liveness is judged; 10 ms to [`MAX_TIME_MS`], checked when the check runs). Each seed's
    /// phase is ¼, ½, 1, 2 or 4 times it unless
    /// [`Check::fixed_phase`] is set (see [`crate::harness::gen::phase_ms`]).
    pub fn active(mut self, d: Duration) -> Self {
        self.active_ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        self
    }
    /// Every seed's faulty phase exactly [`Check::active`] (by default each seed draws ¼, ½,
    /// 1, 2 or 4 times it: swarm testing over the phase length).
    pub fn fixed_phase(mut self) -> Self {
        self.phase_swarm = false;
        self
    }
    /// Number of seeds (default 100).
    pub fn seeds(mut self, n: u64) -> Self {
        self.seeds = n;
        self
    }
    /// First seed (default 0).
    pub fn seed_start(mut self, seed: u64) -> Self {
        self.seed_start = seed;
        self
    }
    /// How long one run may go on before the check names it on stderr, with the line that
    /// runs its seed alone (default 60 s, as `sincro fuzz`'s notice). A callback that loops
    /// without asking for a send, timer or observation cannot be stopped inside a run (one
    /// that asks is stopped by `limits.max_ops_per_callback`): the test would wait on it in
    /// silence, `cargo test` showing only that it runs long. The notice is written to stderr
    /// at once, past the test harness's capture. Raise it for runs that are long on purpose.
    pub fn stall_after(mut self, after: Duration) -> Self {
        self.stall_after = after;
        self
    }

    /// A wall-clock budget; seeds stop at whichever of `seeds` and the budget ends first. A
    /// budget that ends before any seed ran is an error: nothing was checked.
    pub fn time(mut self, budget: Duration) -> Self {
        self.time = Some(budget);
        self
    }
    /// The engine of generated scenarios (default native).
    pub fn engine(mut self, engine: EngineKind) -> Self {
        self.engine = engine;
        self
    }
    /// The search strategy (default [`Strategy::Mix`]: each seed draws random delays, PCT
    /// priorities, partial-order sampling or faults at protocol moments).
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }
    /// Coverage guidance (default on; off with [`Strategy::Random`]): scenarios that reach
    /// something new are kept and mutated, see [`crate::guide`].
    pub fn coverage(mut self, on: bool) -> Self {
        self.coverage = on;
        self
    }
    /// Run every seed twice and compare the traces.
    pub fn check_determinism(mut self, on: bool) -> Self {
        self.check_determinism = on;
        self
    }
    /// Worker threads (default 1, at most [`fuzz::MAX_JOBS`]; each run stays single-threaded
    /// and deterministic).
    pub fn jobs(mut self, n: usize) -> Self {
        // 0 is refused when the check runs, as `SINCRO_JOBS=0` is.
        self.jobs = n;
        self
    }
    /// Where failures persist and are replayed first (default `<crate>/sincro-regressions`).
    pub fn regressions(mut self, dir: impl Into<PathBuf>) -> Self {
        self.regressions = Regressions::At(dir.into());
        self
    }
    /// No regressions directory: nothing replayed first, nothing written.
    pub fn no_regressions(mut self) -> Self {
        self.regressions = Regressions::Off;
        self
    }
    /// At most this many candidate runs when shrinking a failure (default 2000).
    pub fn shrink_runs(mut self, n: usize) -> Self {
        // 0 is refused when the check runs.
        self.shrink_runs = n;
        self
    }
    /// At most this long shrinking a failure (default 60 s, as `sincro fuzz --shrink-time`);
    /// the smallest scenario verified by then is reported. The budget of [`Check::time`], when
    /// it ends first, stops shrinking too. (Without a cap, an algorithm whose every run
    /// stops at a run limit took minutes per candidate in a debug build: 323 s for one seed.)
    pub fn shrink_time(mut self, cap: Duration) -> Self {
        // 0 is refused when the check runs.
        self.shrink_time = cap;
        self
    }
    /// The run limits of every generated scenario (default [`Limits::default`]: 10,000,000
    /// steps, 100,000 messages in flight): e.g. `Limits { max_events: 100_000,
    /// ..Limits::default() }` reports a livelock as `limit_exceeded` after 100,000 steps
    /// instead of 10,000,000. Each limit at least 1, checked when the check runs; a failure's
    /// scenario carries them, so its replay stops where the run did.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    /// Ignore the `SINCRO_*` environment variables (for tests of this module).
    pub fn ignore_env(mut self) -> Self {
        self.read_env = false;
        self
    }

    /// Runs the check: every property must hold on every seed. `Err` holds the first failure,
    /// shrunk, written to the regressions directory, with the way to replay it; or names a
    /// property that no run gave anything to judge (the event kinds its checker reads never
    /// happened in the first [`EVIDENCE_SAMPLE`] seeds' runs): a pass on nothing is none.
    pub fn run(self) -> Result<Report, Failure> {
        quiet_callback_panics();
        let this = self.with_env()?.watch_afresh()?;
        let env = this.replay_env();
        let (watch, after, name) = (this.watch.clone(), this.stall_after, this.name());
        watched(&watch, after, &name, &test_filter(), || this.run_with_env()).map_err(|mut f| {
            // What the failure itself needs (a regression that failed its determinism check)
            // is kept beside the check's own settings.
            for e in env.iter() {
                if !f.replay_env.contains(e) {
                    f.replay_env.push(e.clone());
                }
            }
            f
        })
    }

    /// The check with a watch of its own (a clone shares its original's).
    fn watch_afresh(mut self) -> Result<Self, Failure> {
        if self.stall_after.is_zero() {
            return Err(Failure::headline(
                "stall_after(0 s): every run would be named as not returning; give at least \
                 1 ms"
                    .into(),
            ));
        }
        self.watch = Arc::default();
        Ok(self)
    }

    /// `algorithm / variant`.
    fn name(&self) -> String {
        format!("{} / {}", self.spec.name(), self.variant.name())
    }

    /// The environment settings a replay of this check's failure needs besides the seed or
    /// the file: the engine, and the determinism check that may be what failed.
    fn replay_env(&self) -> Vec<String> {
        let mut env = Vec::new();
        if self.engine != EngineKind::Native {
            let name = serde_json::to_value(self.engine).expect("an engine serializes");
            env.push(format!(
                "SINCRO_ENGINE={}",
                name.as_str().unwrap_or_default()
            ));
        }
        if self.check_determinism {
            env.push("SINCRO_CHECK_DETERMINISM=1".to_string());
        }
        env
    }

    /// [`Check::run`] once the environment is read.
    fn run_with_env(self) -> Result<Report, Failure> {
        let this = self;
        let started = Instant::now();
        let alg = this.algorithm();
        if let Some(path) = this.replay_path() {
            return this.replay_one(alg, &path, started);
        }
        let replayed = this.replay_regressions(alg)?;
        let found = this.fuzz(alg, true)?;
        match found {
            Found::None { runs: 0 } => Err(Failure::headline(format!(
                "{} / {}: the time budget ended before any seed ran: nothing was checked \
                 (give a longer {}, or none)",
                alg.info().name,
                this.variant.name(),
                if this.read_env && std::env::var_os("SINCRO_TIME").is_some() {
                    "SINCRO_TIME"
                } else {
                    "`time`"
                }
            ))),
            Found::None { runs } => {
                let sample = this.audit_sample(alg, runs)?;
                if let Some(dependent) = sample.dependent {
                    return Err(dependent);
                }
                // "Could not judge" is never a pass: a property no run gave anything to judge.
                if let Some((property, kinds)) = sample.never_judged.first() {
                    return Err(Failure::headline(format!(
                        "{} / {}: could not judge `{property}`: none of the first {} seeds' runs \
                         had an event it reads ({}), so its {runs} passing runs judged nothing; \
                         make the workload or the faults reach it, or leave it out with \
                         .properties([..])",
                        alg.info().name,
                        this.variant.name(),
                        runs.min(EVIDENCE_SAMPLE),
                        kinds
                            .iter()
                            .map(|k| crate::checkers::evidence_text(k))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
                Ok(Report {
                    algorithm: alg.info().name.to_string(),
                    variant: this.variant.name().to_string(),
                    runs,
                    regressions_replayed: replayed,
                    wall: started.elapsed(),
                })
            }
            Found::Failure(f) => Err(*f),
        }
    }

    /// Runs the check expecting a violation of `property` (stateright's `assert_discovery`):
    /// `Ok` with the shrunk counterexample when a seed violates it; `Err` when no seed does,
    /// or when a seed fails another way. Nothing is written to the regressions directory.
    pub fn expect_violation(self, property: &str) -> Result<Discovery, Failure> {
        quiet_callback_panics();
        let this = self.with_env()?.watch_afresh()?;
        let env = this.replay_env();
        let (watch, after, name) = (this.watch.clone(), this.stall_after, this.name());
        watched(&watch, after, &name, &test_filter(), || {
            this.expect_with_env(property)
        })
        .map_err(|mut f| {
            // What the failure itself needs (a regression that failed its determinism check)
            // is kept beside the check's own settings.
            for e in env.iter() {
                if !f.replay_env.contains(e) {
                    f.replay_env.push(e.clone());
                }
            }
            // It does not read SINCRO_REPLAY: a file's replay line must name another test.
            f.replays_files = false;
            f
        })
    }

    /// [`Check::expect_violation`] once the environment is read.
    fn expect_with_env(self, property: &str) -> Result<Discovery, Failure> {
        let this = self;
        if let Some(path) = this.replay_path() {
            // It searches for a violation from seeds: a file it would not read must not look
            // replayed.
            return Err(Failure::headline(format!(
                "SINCRO_REPLAY={} is not read by expect_violation (it fuzzes for the \
                 violation); replay the file with a test that calls `.run()`, or unset it",
                path.display()
            )));
        }
        let alg = this.algorithm();
        let name = format!("{} / {}", alg.info().name, this.variant.name());
        this.judged(alg, property)?;
        match this.fuzz(alg, false)? {
            Found::None { runs } => Err(Failure::headline(format!(
                "{name}: no seed of {runs} violated `{property}` (expected a violation)"
            ))),
            Found::Failure(f) => match &f.verdict {
                Some(Verdict::Violation(v)) if v.property == property => Ok(Discovery {
                    seed: f.seed.unwrap_or(0),
                    explanation: v.explanation.clone(),
                    scenario: f
                        .scenario
                        .clone()
                        .expect("a found failure has its scenario"),
                }),
                other => {
                    // Another property broke first: say how to judge only the one expected.
                    let hint = match other {
                        Some(Verdict::Violation(_)) if this.properties.is_none() => format!(
                            " (to judge `{property}` alone, add `.properties([\"{property}\"])`)"
                        ),
                        _ => String::new(),
                    };
                    Err(Failure {
                        headline: format!(
                            "{name}: expected a violation of `{property}`, but {}{hint}",
                            f.headline
                        ),
                        ..*f
                    })
                }
            },
        }
    }

    /// `Err` unless the runs judge `property`: one the algorithm promises (among
    /// [`Check::properties`] when they are given), or a checker of this test's. Otherwise a check
    /// expecting its violation would run every seed and report "no seed violated" for a
    /// misspelt name.
    fn judged(&self, alg: &dyn Algorithm, property: &str) -> Result<(), Failure> {
        let info = alg.info();
        let mut names: Vec<&str> = info.properties.clone();
        if let Some(only) = &self.properties {
            names.retain(|n| only.iter().any(|o| o == n));
        }
        // A test's own checkers judge every run, whatever `properties` says.
        names.extend(self.extra.iter().map(|(n, _)| *n));
        if names.contains(&property) {
            return Ok(());
        }
        if names.is_empty() {
            return Err(Failure::headline(format!(
                "expect_violation(\"{property}\"): `.properties([..])` names nothing {} judges, \
                 so its runs judge no property at all (it judges: {})",
                info.name,
                info.properties.join(", ")
            )));
        }
        Err(Failure::headline(format!(
            "expect_violation(\"{property}\"): the runs of {} do not judge `{property}`; they \
             judge: {} (a property of your own is added with `.checker(name, ..)` or \
             `.check::<P>()`)",
            info.name,
            names.join(", ")
        )))
    }

    /// The algorithm as the fuzzer sees it: the spec, with the fault classes of
    /// [`Check::faults`] as its model if given, and the test's own checkers. Leaked: a test
    /// process is short-lived.
    fn algorithm(&self) -> &'static dyn Algorithm {
        let spec: &'static S = Box::leak(Box::new(self.spec.clone()));
        if self.faults.is_none() && self.extra.is_empty() {
            return spec;
        }
        Box::leak(Box::new(Tested {
            inner: spec,
            classes: self.faults.clone(),
            extra: self.extra.clone(),
        }))
    }

    fn with_env(mut self) -> Result<Self, Failure> {
        if !self.read_env {
            return Ok(self);
        }
        let bad = |var: &str, v: &str, why: String| {
            Failure::headline(format!("bad environment variable {var}={v:?}: {why}"))
        };
        // A value that is not UTF-8 is refused, not read as unset.
        for var in [
            "SINCRO_SEEDS",
            "SINCRO_SEED",
            "SINCRO_TIME",
            "SINCRO_JOBS",
            "SINCRO_CHECK_DETERMINISM",
            "SINCRO_ENGINE",
            "SINCRO_REGRESSIONS",
        ] {
            if let Err(std::env::VarError::NotUnicode(v)) = std::env::var(var) {
                return Err(bad(var, &v.to_string_lossy(), "not UTF-8 text".into()));
            }
        }
        let num = |var: &str| -> Result<Option<u64>, Failure> {
            match std::env::var(var) {
                Ok(v) => v
                    .trim()
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|e| bad(var, &v, e.to_string())),
                Err(_) => Ok(None),
            }
        };
        // SINCRO_SEED runs one seed: a SINCRO_SEEDS beside it would be silently dropped.
        if let (Ok(one), Ok(many)) = (std::env::var("SINCRO_SEED"), std::env::var("SINCRO_SEEDS")) {
            return Err(bad(
                "SINCRO_SEEDS",
                &many,
                format!("SINCRO_SEED={one} runs that one seed; set one of the two"),
            ));
        }
        if let Some(n) = num("SINCRO_SEEDS")? {
            if n == 0 {
                return Err(bad("SINCRO_SEEDS", "0", "must be at least 1".into()));
            }
            // u64::MAX is the builder's "unbounded": named here, not as a `seeds(..)` call
            // the test never made (stop 73's probe).
            if n == fuzz::UNBOUNDED && std::env::var_os("SINCRO_TIME").is_none() {
                return Err(bad(
                    "SINCRO_SEEDS",
                    &n.to_string(),
                    "that many seeds never end; give a smaller number, or set SINCRO_TIME".into(),
                ));
            }
            self.seeds = n;
        }
        if let Ok(v) = std::env::var("SINCRO_TIME") {
            let budget = fuzz::parse_duration(&v).map_err(|e| bad("SINCRO_TIME", &v, e))?;
            self.time = Some(budget);
            if std::env::var_os("SINCRO_SEEDS").is_none() {
                self.seeds = fuzz::UNBOUNDED;
            }
        }
        if let Some(seed) = num("SINCRO_SEED")? {
            self.seed_start = seed;
            self.seeds = 1;
        }
        if let Some(n) = num("SINCRO_JOBS")? {
            if !(1..=256).contains(&n) {
                return Err(bad("SINCRO_JOBS", &n.to_string(), "must be 1..=256".into()));
            }
            self.jobs = n as usize;
        }
        if let Ok(v) = std::env::var("SINCRO_CHECK_DETERMINISM") {
            self.check_determinism = match v.trim() {
                "1" | "true" | "yes" | "on" => true,
                "0" | "false" | "no" | "off" | "" => false,
                _ => return Err(bad("SINCRO_CHECK_DETERMINISM", &v, "use 1 or 0".into())),
            };
        }
        if let Ok(v) = std::env::var("SINCRO_ENGINE") {
            self.engine = serde_json::from_value(serde_json::Value::String(v.trim().into()))
                .map_err(|_| bad("SINCRO_ENGINE", &v, "use native, turmoil or madsim".into()))?;
        }
        if let Ok(v) = std::env::var("SINCRO_REGRESSIONS") {
            self.regressions = match v.trim() {
                "off" | "0" => Regressions::Off,
                // An unset CI variable expanded to nothing must not turn replay off unseen.
                "" => {
                    return Err(bad(
                        "SINCRO_REGRESSIONS",
                        &v,
                        "is empty: name a directory, or `off` to replay none".into(),
                    ))
                }
                dir => Regressions::At(dir.into()),
            };
        }
        Ok(self)
    }

    fn replay_path(&self) -> Option<PathBuf> {
        if !self.read_env {
            return None;
        }
        std::env::var_os("SINCRO_REPLAY").map(PathBuf::from)
    }

    fn regressions_dir(&self) -> Option<PathBuf> {
        match &self.regressions {
            Regressions::Off => None,
            Regressions::At(p) => Some(p.clone()),
            Regressions::Default => {
                let root = std::env::var_os("CARGO_MANIFEST_DIR")
                    .map(PathBuf::from)
                    .or_else(|| std::env::current_dir().ok())?;
                Some(root.join("sincro-regressions"))
            }
        }
    }

    /// `SINCRO_REPLAY`: runs one scenario file (twice with the determinism check).
    fn replay_one(
        &self,
        alg: &dyn Algorithm,
        path: &Path,
        started: Instant,
    ) -> Result<Report, Failure> {
        let sc =
            Scenario::load(path).map_err(|e| Failure::headline(format!("SINCRO_REPLAY: {e}")))?;
        let name = alg.info().name;
        if sc.algorithm != name {
            return Err(Failure::headline(format!(
                "SINCRO_REPLAY={} names algorithm `{}`, but this test checks `{name}`; \
                 run the test of that algorithm",
                path.display(),
                sc.algorithm
            )));
        }
        if sc.variant != self.variant.name() {
            return Err(Failure::headline(format!(
                "SINCRO_REPLAY={} is a scenario of variant `{}`, but this test checks `{}`; \
                 run the test of that variant",
                path.display(),
                sc.variant,
                self.variant.name()
            )));
        }
        self.judge_file(alg, &sc, path, "replayed")?;
        Ok(Report {
            algorithm: name.to_string(),
            variant: sc.variant.clone(),
            runs: 1,
            regressions_replayed: 0,
            wall: started.elapsed(),
        })
    }

    /// Runs a scenario file; `Err` with its context unless every property holds.
    fn judge_file(
        &self,
        alg: &dyn Algorithm,
        sc: &Scenario,
        path: &Path,
        what: &str,
    ) -> Result<(), Failure> {
        // The file is a scenario; this test judges it its own way: its properties (a file
        // another test wrote under `.properties(["mine"])` names a property this test may not
        // know, or leaves out one it checks) and its own checkers (in `alg`).
        let mut own = sc.clone();
        own.checks.properties.clone_from(&self.properties);
        let sc = &own;
        let run = || {
            self.watch.single(
                || format!("{what} {}", path.display()),
                || alg.run(sc, RunOptions::new(true)),
            )
        };
        let out = run().map_err(|e| Failure::headline(format!("{}: {e}", path.display())))?;
        // A regression is always run twice: the file does not say whether it was a
        // determinism failure, and one that was would pass every plain run after it.
        if self.check_determinism || what == "regression" {
            let again = run().map_err(|e| Failure::headline(format!("{}: {e}", path.display())))?;
            if let (Some(a), Some(b)) = (&out.trace, &again.trace) {
                if let Some(d) = a.first_difference(b) {
                    let mut f = Failure::headline(format!(
                        "{what} {}: the same scenario gave two different traces; {d}",
                        path.display()
                    ));
                    f.scenario = Some(sc.clone());
                    f.path = Some(path.to_path_buf());
                    f.replay_env = vec!["SINCRO_CHECK_DETERMINISM=1".into()];
                    // `sincro replay` runs a file once: it would not show this.
                    f.cli_judges = false;
                    return Err(f);
                }
            }
        }
        if out.verdict.is_pass() {
            return Ok(());
        }
        let mut f = Failure::of_run(sc, &out, format!("{what} {} fails", path.display()));
        f.path = Some(path.to_path_buf());
        f.cli_judges = !self.own_property(&f);
        Err(f)
    }

    /// Whether `f` is a violation of a property only a checker of this test's own judges.
    fn own_property(&self, f: &Failure) -> bool {
        matches!(&f.verdict, Some(Verdict::Violation(v))
            if self.extra.iter().any(|(name, _)| *name == v.property))
    }

    /// Replays the regressions directory's files of this algorithm and variant, in name order.
    fn replay_regressions(&self, alg: &dyn Algorithm) -> Result<usize, Failure> {
        let Some(dir) = self.regressions_dir() else {
            return Ok(0);
        };
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            // No directory yet: nothing failed before. One named on purpose (a typo in a CI
            // variable would turn replay off unseen) is said.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if matches!(self.regressions, Regressions::At(_)) {
                    eprintln!(
                        "note: the regressions directory {} does not exist: no regression \
                         replayed (it is created at the first failure)",
                        dir.display()
                    );
                }
                return Ok(0);
            }
            // a file, or a folder that cannot be read: its regressions would be skipped
            Err(e) => {
                return Err(Failure::headline(format!(
                    "the regressions directory {} cannot be read: {e}",
                    dir.display()
                )))
            }
        };
        let prefix = format!("{}.{}.", alg.info().name, self.variant.name());
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
            })
            .collect();
        files.sort();
        // The fault classes this test runs (its model, and those its variant's bug needs): a
        // failure another test of the same variant found with classes of its own
        // (`.faults([Loss, ..])`) is that test's regression; a test inside the model must not
        // fail on it. The network's loss, duplication and reordering and the clocks' drift
        // count, not only the fault plan's (`Scenario::classes_in_use`).
        let mut allowed = alg.info().fault_model.tolerates;
        allowed.extend(alg.bug_classes(self.variant.name()));
        let mut replayed = 0;
        for path in &files {
            let sc = Scenario::load(path)
                .map_err(|e| Failure::headline(format!("regression file: {e}")))?;
            // The prefix does not tell `a.b` + `c` from `a` + `b.c`... nor another algorithm
            // whose name starts with this one's: the file says whose it is.
            if sc.algorithm != alg.info().name || sc.variant != self.variant.name() {
                continue;
            }
            let outside: Vec<String> = sc
                .classes_in_use()
                .into_iter()
                .filter(|c| !in_model(&allowed, *c))
                .map(|c| c.name().to_string())
                .collect();
            if !outside.is_empty() {
                eprintln!(
                    "note: regression {} not replayed: its faults ({}) are outside this test's \
                     fault classes (another test's `.faults([..])` found it)",
                    path.display(),
                    outside.join(", ")
                );
                continue;
            }
            match self.judge_file(alg, &sc, path, "regression") {
                // A shrunk failure keeps only what made it fail: its run may end before a
                // liveness property can be judged (cut short, a partition never healed). Once
                // the bug is fixed such a file fails nothing this test can judge, and it must
                // not fail the test for ever (nor a file another test wrote with a checker of
                // its own): it is reported, not failed on.
                Err(f) if matches!(f.verdict, Some(Verdict::Unjudged { .. })) => eprintln!(
                    "note: regression {} no longer fails: {} (delete it once its bug is fixed)",
                    path.display(),
                    f.headline
                ),
                other => other?,
            }
            replayed += 1;
        }
        Ok(replayed)
    }

    /// How this check generates each seed's scenario.
    fn gen_options(&self) -> GenOptions {
        GenOptions {
            nodes_min: *self.nodes.start(),
            nodes_max: *self.nodes.end(),
            active_ms: self.active_ms,
            beyond_model: false,
            engine: self.engine,
            only: None,
            strategy: self.strategy,
            phase_swarm: self.phase_swarm,
        }
    }

    /// After a passing campaign of `runs` seeds, the first seeds' runs ([`EVIDENCE_SAMPLE`]
    /// at most) re-run traced:
    /// - the properties none of them gave anything to judge, with the event kinds their
    ///   checkers read ([`Property::EVIDENCE`], a user's [`Checker::evidence`]). Such a
    ///   property passed on nothing: a mutual exclusion no run entered, a primary no run
    ///   elected;
    /// - the first checker whose verdict on one of them changes when each instant's lines
    ///   come in another order the run allows
    ///   ([`crate::harness::reorder::reorder_instants`]): it judges line order, which
    ///   nothing fixes (each engine records an instant in its own order);
    /// - before that, the first checker whose verdict on one of them changes when it is
    ///   passed only the events its gate lets through ([`gate_dependence`]): online, where
    ///   the engines pass them so, it misses an event it reads.
    fn audit_sample(&self, alg: &dyn Algorithm, runs: u64) -> Result<Sample, Failure> {
        let gen = self.gen_options();
        let mut open: Option<Vec<(String, &'static [&'static str])>> = None;
        let last = self.seed_start.saturating_add(runs.min(EVIDENCE_SAMPLE));
        for seed in self.seed_start..last {
            let mut sc = alg.generate(self.variant.name(), seed, &gen);
            sc.checks.properties.clone_from(&self.properties);
            let checkers = alg
                .checkers(&sc)
                .map_err(|e| Failure::headline(format!("seed {seed}: {e}")))?;
            let want = open.get_or_insert_with(|| fuzz::evidence_wanted(&checkers));
            let out = self
                .watch
                .single(
                    || {
                        format!(
                            "seed {seed} (run again by the audit of what its checkers judge; \
                             SINCRO_SEED={seed} runs it alone)"
                        )
                    },
                    || alg.run(&sc, RunOptions::new(true)),
                )
                .map_err(|e| Failure::headline(format!("seed {seed}: {e}")))?;
            let Some(trace) = &out.trace else { continue };
            want.retain(|(_, kinds)| !crate::checkers::has_evidence(trace.events(), kinds));
            let end = out.stats.end_t_ns;
            let (name, variant) = (alg.info().name, self.variant.name());
            let dependent = gate_dependence(alg, &sc, trace, end)
                .map(|found| {
                    format!(
                        "{name} / {variant}, seed {seed}: the checker of `{}` judges the run \
                         differently as the engines pass it events: {found}",
                        found.property
                    )
                })
                .or_else(|| {
                    let (property, as_recorded, reordered) =
                        line_order_dependence(alg, &sc, trace, end)?;
                    Some(format!(
                        "{name} / {variant}, seed {seed}: the checker of `{property}` depends on \
                         line order: {as_recorded} on the run as recorded, {reordered} on the \
                         same run with each instant's lines in another order it allows \
                         (sincro::harness::reorder::reorder_instants). Nothing orders two \
                         nodes' events of one instant (each engine records them in its own \
                         order): judge each instant as a set"
                    ))
                });
            if let Some(headline) = dependent {
                return Ok(Sample {
                    never_judged: Vec::new(),
                    // The sampled seed's scenario is generated from it alone: SINCRO_SEED
                    // runs that seed, and the audit finds it again.
                    dependent: Some(Failure {
                        seed: Some(seed),
                        seed_replays: true,
                        ..Failure::headline(headline)
                    }),
                });
            }
        }
        Ok(Sample {
            never_judged: open.unwrap_or_default(),
            dependent: None,
        })
    }

    /// Fuzzes; on a failure, shrinks it and (with `persist`) writes it to the regressions
    /// directory.
    fn fuzz(&self, alg: &'static dyn Algorithm, persist: bool) -> Result<Found, Failure> {
        if *self.nodes.start() == 0 || self.nodes.start() > self.nodes.end() {
            return Err(Failure::headline(format!(
                "nodes({}..={}): need 1 <= first <= last",
                self.nodes.start(),
                self.nodes.end()
            )));
        }
        if *self.nodes.end() > MAX_NODES {
            return Err(Failure::headline(format!(
                "nodes(..={}): above the limit of {MAX_NODES} nodes",
                self.nodes.end()
            )));
        }
        // The generator raises the range to what the algorithm needs: a range wholly below
        // it would test node counts the test never asked for.
        if *self.nodes.end() < alg.nodes_min() {
            return Err(Failure::headline(format!(
                "nodes({}..={}): {} needs at least {} nodes (its nodes_min)",
                self.nodes.start(),
                self.nodes.end(),
                alg.info().name,
                alg.nodes_min()
            )));
        }
        if !(10..=MAX_TIME_MS).contains(&self.active_ms) {
            return Err(Failure::headline(format!(
                "active({} ms): the faulty phase must be 10 ms ..= {MAX_TIME_MS} ms",
                self.active_ms
            )));
        }
        if self.jobs == 0 || self.jobs > fuzz::MAX_JOBS {
            return Err(Failure::headline(format!(
                "jobs({}): worker threads are 1 ..= {}",
                self.jobs,
                fuzz::MAX_JOBS
            )));
        }
        if self.shrink_time.is_zero() {
            return Err(Failure::headline(
                "shrink_time(0): a shrink with no time cannot verify a smaller failure; give \
                 at least 1 ms"
                    .into(),
            ));
        }
        if let Some(name) = [
            ("max_events", self.limits.max_events),
            ("max_in_flight", self.limits.max_in_flight as u64),
            ("max_trace_bytes", self.limits.max_trace_bytes),
            ("max_ticks", self.limits.max_ticks),
            ("max_sent", self.limits.max_sent),
            (
                "max_ops_per_callback",
                self.limits.max_ops_per_callback as u64,
            ),
        ]
        .iter()
        .find_map(|&(name, v)| (v == 0).then_some(name))
        {
            return Err(Failure::headline(format!(
                "limits({name}: 0): each limit must be at least 1"
            )));
        }
        if self.shrink_runs == 0 {
            return Err(Failure::headline(
                "shrink_runs(0): a shrink of no candidate run cannot keep a failure's smallest \
                 form; give at least 1"
                    .into(),
            ));
        }
        if self.time.is_some_and(|t| t.is_zero()) {
            return Err(Failure::headline(
                "time(0 s): a budget of nothing runs no seed and checks nothing".into(),
            ));
        }
        // As SINCRO_TIME and `fuzz --time`: a deadline past what `Instant` holds panicked.
        if let Some(t) = self.time.filter(|t| t.as_secs() >= 1_000_000_000) {
            return Err(Failure::headline(format!(
                "time({t:?}): a budget must be under 10^9 s"
            )));
        }
        if self.seeds == 0 {
            return Err(Failure::headline("seeds(0): need at least 1 seed".into()));
        }
        if self.seeds == fuzz::UNBOUNDED && self.time.is_none() {
            return Err(Failure::headline(
                "seeds(u64::MAX): that many seeds never end; give a number, or a time budget"
                    .into(),
            ));
        }
        if self.properties.as_ref().is_some_and(Vec::is_empty) {
            return Err(Failure::headline(
                "properties([]): a check of no property judges nothing and passes; name at \
                 least one, or leave properties out to check every promised one"
                    .into(),
            ));
        }
        if let Some(e) = crate::algorithms::info_error(&alg.info()) {
            return Err(Failure::headline(e));
        }
        // A spec of one's own under a built-in's name: its regression files, failure files
        // and replay lines would be taken for the built-in's (`Registry::with` refuses it
        // too). The built-in specs themselves live in `sincro_algorithms`.
        let name = alg.info().name;
        if crate::algorithms::Registry::builtin().find(name).is_ok()
            && !std::any::type_name::<S>().starts_with("sincro_algorithms::")
        {
            return Err(Failure::headline(format!(
                "{name} is the name of a built-in algorithm: give your spec a name of its own \
                 (e.g. `myteam.{}`)",
                name.rsplit('.').next().unwrap_or(name)
            )));
        }
        if alg.info().properties.is_empty() && self.extra.is_empty() {
            return Err(Failure::headline(format!(
                "{} promises no property (its Spec::properties is empty) and this check adds \
                 none: every run would pass on nothing; list what it promises, or add a \
                 property with `.checker(name, ..)` or `.check::<P>()`",
                alg.info().name
            )));
        }
        // A name `properties` gives that nothing judges is the builder's mistake, said so
        // before any seed (it was "the scenario of seed 0 was refused").
        let info = alg.info();
        let judged =
            |p: &str| info.properties.contains(&p) || self.extra.iter().any(|(n, _)| *n == p);
        if let Some(p) = self
            .properties
            .iter()
            .flatten()
            .find(|p| !judged(p.as_str()))
        {
            let mut known: Vec<&str> = info.properties.clone();
            known.extend(self.extra.iter().map(|(n, _)| *n));
            return Err(Failure::headline(format!(
                "properties([.. \"{p}\" ..]): {} does not judge `{p}`; it judges: {} (a \
                 property of your own is added with `.checker(name, ..)` or `.check::<P>()`)",
                info.name,
                known.join(", ")
            )));
        }
        if let Some(e) = fuzz::seed_range_error(self.seed_start, self.seeds) {
            return Err(Failure::headline(format!("seed_start and seeds: {e}")));
        }
        let info = alg.info();
        let variant = info
            .variants
            .iter()
            .find(|v| v.name == self.variant.name())
            .cloned()
            .expect("the spec lists its own variants");
        let target = Target {
            algorithm: alg,
            variant,
        };
        let scratch = scratch_dir();
        let cfg = FuzzConfig {
            seed_start: self.seed_start,
            seeds: self.seeds,
            jobs: self.jobs,
            keep_going: false,
            check_determinism: self.check_determinism,
            gen: self.gen_options(),
            out_dir: scratch.clone(),
            max_files: 1,
            coverage: self.coverage,
        };
        let opts = CampaignOptions {
            shrink: Some(ShrinkOptions {
                max_runs: self.shrink_runs,
                ..ShrinkOptions::default()
            }),
            properties: self.properties.clone(),
            shrink_time: Some(self.shrink_time),
            limits: (self.limits != Limits::default()).then(|| self.limits.clone()),
            ..Default::default()
        };
        let deadline = self.time.map(|t| Instant::now() + t);
        let mut run = TargetRun::new(&target, &cfg, &opts).with_deadline(deadline);
        let stop = AtomicBool::new(false);
        run.run(&stop, deadline, &self.watch.live, &|_| {});
        let report = run.report();
        if let Some((seed, msg)) = &report.bad_input {
            let _ = std::fs::remove_dir_all(&scratch);
            return Err(Failure::headline(format!(
                "{}: the scenario of seed {seed} was refused (bad input, not a verdict): {msg}",
                target.name()
            )));
        }
        let result = match report.first.or(report.nondeterministic) {
            None => Ok(Found::None { runs: report.runs }),
            Some(f) => {
                let unwritten = f.path.is_none() && !report.write_errors.is_empty();
                self.failure(alg, &target, f, &cfg.gen, persist)
                    .map(|mut failure| {
                        if unwritten {
                            // The scenario that failed was not saved: the seed's scenario
                            // regenerated stands in for it, which for a guided mutation is
                            // another one.
                            failure.seed_replays = false;
                            failure.notes.extend(report.write_errors.iter().map(|e| {
                                format!(
                                    "the failing scenario could not be saved ({e}): what is \
                                     shown is the seed's scenario regenerated, which coverage \
                                     guidance may have mutated before it failed"
                                )
                            }));
                        }
                        failure
                    })
                    .map(Found::Failure)
            }
        };
        let _ = std::fs::remove_dir_all(&scratch);
        result
    }

    /// The failure of a campaign, with the shrunk scenario re-run for its events.
    fn failure(
        &self,
        alg: &dyn Algorithm,
        target: &Target,
        f: fuzz::Failure,
        gen: &GenOptions,
        persist: bool,
    ) -> Result<Box<Failure>, Failure> {
        let shrunk_path = f.shrunk.as_ref().and_then(|s| s.path.clone());
        let from = shrunk_path.as_ref().or(f.path.as_ref());
        let regenerated = alg.generate(target.variant.name, f.seed, gen);
        let mut sc = match from {
            Some(p) => Scenario::load(p).map_err(|e| Failure::headline(e.to_string()))?,
            None => regenerated.clone(),
        };
        // `SINCRO_SEED=<seed>` generates the seed's scenario afresh; one that coverage
        // guidance mutated from earlier seeds' is not rebuilt that way.
        let seed_replays = match &f.path {
            None => true,
            Some(p) => Scenario::load(p).is_ok_and(|original| {
                let mut fresh = regenerated;
                fresh.expect.clone_from(&original.expect);
                fresh
                    .checks
                    .properties
                    .clone_from(&original.checks.properties);
                // `.limits(..)` is the campaign's, set on every scenario it runs (the seed
                // replays with it: the same test sets it again).
                fresh.limits.clone_from(&original.limits);
                fresh == original
            }),
        };
        sc.expect = None;
        let headline = format!("{} failed at seed {}", target.name(), f.seed);
        let rerun = self.watch.single(
            || format!("the failure of seed {} (run again for its trace)", f.seed),
            || alg.run(&sc, RunOptions::new(true)),
        );
        let mut failure = match rerun {
            Ok(out) if !out.verdict.is_pass() => Failure::of_run(&sc, &out, headline),
            // e.g. nondeterminism: the verdict of one run is a pass
            _ => Failure {
                headline: format!("{headline}: {}", f.detail),
                ..Failure::headline(String::new())
            },
        };
        if let Some(why) = f.shrunk.as_ref().and_then(|s| s.irreproducible.as_ref()) {
            failure
                .notes
                .push(format!("NONDETERMINISTIC: not shrunk: {why}"));
        }
        failure.seed = Some(f.seed);
        failure.seed_replays = seed_replays;
        failure.cli_judges = !self.own_property(&failure);
        failure.scenario = Some(sc.clone());
        if persist {
            if let Some(dir) = self.regressions_dir() {
                let stem = format!("{}.{}.seed{}", alg.info().name, target.variant.name, f.seed);
                match write_regression(&dir, &stem, &sc.to_json()) {
                    Ok(path) => failure.path = Some(path),
                    Err(e) => failure.notes.push(format!(
                        "could not write the regression file {}: {e}",
                        dir.join(format!("{stem}.json")).display()
                    )),
                }
            }
        }
        Ok(Box::new(failure))
    }
}

/// Installs, once per process, the hook that keeps a panic inside an algorithm's callback
/// quiet ([`crate::harness::engine::install_panic_hook`]): each is caught and reported as a
/// `panic` verdict, and shrinking one runs it dozens of times (34 panic reports, each with
/// its backtrace, came before the one failure). Other panics, a failing test's own among
/// them, reach the hook there was.
fn quiet_callback_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(crate::harness::engine::install_panic_hook);
}

/// The most files one seed's regressions may take (`<stem>.json`, `<stem>-2.json`, …).
const REGRESSIONS_PER_SEED_MAX: u32 = 1000;

/// Writes a regression under `dir` without replacing another one: `<stem>.json`, or, when
/// that name holds a different scenario (another test of the same variant, with other
/// options, failed at the same seed), the first free `<stem>-<k>.json`. A file that already
/// holds the same text is reused. The file appears whole (a hard link of a synced temporary
/// file), and two tests writing at once never take the same name.
fn write_regression(dir: &Path, stem: &str, text: &str) -> std::io::Result<PathBuf> {
    static N: AtomicU64 = AtomicU64::new(0);
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{stem}.{}.json.tmp{}",
        N.fetch_add(1, Ordering::Relaxed),
        std::process::id()
    ));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        for k in 1..=REGRESSIONS_PER_SEED_MAX {
            let path = match k {
                1 => dir.join(format!("{stem}.json")),
                k => dir.join(format!("{stem}-{k}.json")),
            };
            match std::fs::hard_link(&tmp, &path) {
                Ok(()) => return Ok(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
                        return Ok(path);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other(format!(
            "{REGRESSIONS_PER_SEED_MAX} regression files of {stem} already exist"
        )))
    })();
    let _ = std::fs::remove_file(&tmp);
    written
}

enum Found {
    None { runs: u64 },
    Failure(Box<Failure>),
}

/// A fresh directory for a campaign's intermediate files.
fn scratch_dir() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "sincro-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// What a passing [`Check::run`] did.
#[derive(Clone, Debug)]
pub struct Report {
    /// Algorithm name.
    pub algorithm: String,
    /// Variant name.
    pub variant: String,
    /// Seeds judged.
    pub runs: u64,
    /// Regression files replayed first.
    pub regressions_replayed: usize,
    /// Wall time.
    pub wall: Duration,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} / {}: {} seeds and {} regression files passed in {:.1} s",
            self.algorithm,
            self.variant,
            self.runs,
            self.regressions_replayed,
            self.wall.as_secs_f64()
        )
    }
}

/// A violation found where [`Check::expect_violation`] expected one.
#[derive(Clone, Debug)]
pub struct Discovery {
    /// The first failing seed.
    pub seed: u64,
    /// The violation, in one sentence.
    pub explanation: String,
    /// The shrunk scenario that shows it.
    pub scenario: Scenario,
}

/// A failed check: what went wrong, the events that show it, and how to replay it. Its
/// `Display` (and its `Debug`, so that `.unwrap()` in a test prints it) is what `cargo test`
/// shows.
#[derive(Clone)]
pub struct Failure {
    /// One line: which algorithm, variant and seed, or what was wrong with the input.
    pub headline: String,
    /// The failing seed, when one was fuzzed.
    pub seed: Option<u64>,
    /// The verdict of the (shrunk) failing scenario.
    pub verdict: Option<Verdict>,
    /// The (shrunk) failing scenario.
    pub scenario: Option<Scenario>,
    /// Where that scenario is written (the regressions directory, or the replayed file).
    pub path: Option<PathBuf>,
    /// The violating events with a few events of context, one rendered line each.
    pub context: Vec<String>,
    /// Anything else worth saying (e.g. a file that could not be written).
    pub notes: Vec<String>,
    /// Whether `SINCRO_SEED=<seed>` rebuilds the failing seed's scenario: false for one that
    /// coverage guidance mutated from earlier seeds' (replay its file, or the scenario shown).
    pub seed_replays: bool,
    /// Environment settings of the failing check that its replay needs besides the seed or
    /// the file (`SINCRO_ENGINE=madsim`, `SINCRO_CHECK_DETERMINISM=1`), printed before each
    /// replay command.
    pub replay_env: Vec<String>,
    /// Whether the failing test reads a file given as `SINCRO_REPLAY` (`expect_violation`
    /// does not): otherwise a file's replay line names a test that calls `.run()`.
    pub replays_files: bool,
    /// Whether the command line judges the failing property: false for a checker of the
    /// test's own (`.checker(..)`), which `sincro replay FILE` does not know (it said COULD
    /// NOT JUDGE where the test found a violation), so the replay line names the test only.
    pub cli_judges: bool,
}

impl Failure {
    fn headline(headline: String) -> Self {
        Failure {
            headline,
            seed: None,
            verdict: None,
            scenario: None,
            path: None,
            context: Vec::new(),
            notes: Vec::new(),
            seed_replays: false,
            replay_env: Vec::new(),
            replays_files: true,
            cli_judges: true,
        }
    }

    fn of_run(sc: &Scenario, out: &Outcome, headline: String) -> Self {
        let mut f = Failure::headline(headline);
        f.verdict = Some(out.verdict.clone());
        f.scenario = Some(sc.clone());
        if let Some(trace) = &out.trace {
            f.context = context_lines(trace, &out.verdict, 3, 24);
        }
        f
    }
}

/// The events a verdict points at, with `around` events before and after, at most `max`
/// lines; the violating ones are marked `>`. The faults that led to it are shown too, in
/// their place: those in the violation's causal past (at most [`CONTEXT_FAULTS_MAX`], the
/// latest) and those among the events shown (a restart between two groups of events was
/// left in the `…`, and it was the whole bug: stop 65's probe).
pub fn context_lines(trace: &Trace, verdict: &Verdict, around: usize, max: usize) -> Vec<String> {
    use crate::harness::trace::EventKind;
    let ids: &[u64] = match verdict {
        Verdict::Violation(v) => &v.events,
        _ => &[],
    };
    let marked: Vec<usize> = trace
        .events()
        .iter()
        .enumerate()
        .filter(|(_, e)| ids.contains(&e.id))
        .map(|(i, _)| i)
        .collect();
    let n = trace.len();
    let (lo, hi) = match (marked.first(), marked.last()) {
        (Some(&a), Some(&b)) => (a.saturating_sub(around), (b + around + 1).min(n)),
        // a panic or a limit: the last events
        _ => (n.saturating_sub(2 * around + 1), n),
    };
    let mut shown: std::collections::BTreeSet<usize> = (lo..hi)
        .filter(|&i| {
            marked.is_empty() || marked.iter().any(|&m| i + around >= m && i <= m + around)
        })
        .collect();
    if !marked.is_empty() {
        let past = crate::harness::view::causal_past(trace, &marked);
        let is_fault = |i: usize| matches!(trace.events()[i].kind, EventKind::Fault { .. });
        let faults: Vec<usize> = (0..hi)
            .filter(|&i| is_fault(i) && (past[i] || (lo..hi).contains(&i)))
            .collect();
        let keep = faults.len().saturating_sub(CONTEXT_FAULTS_MAX);
        shown.extend(&faults[keep..]);
    }
    let (Some(&first), Some(&last_shown)) = (shown.first(), shown.last()) else {
        return Vec::new();
    };
    let columns = Columns::fitting(&trace.events()[first..=last_shown], trace.nodes);
    let mut out = Vec::new();
    let mut last = None;
    for i in shown {
        if last.is_some_and(|l: usize| i > l + 1) {
            out.push("    …".to_string());
        }
        let mark = if marked.contains(&i) { ">" } else { " " };
        out.push(format!(
            "  {mark} {}",
            event_line_in(&trace.events()[i], &columns)
        ));
        last = Some(i);
        if out.len() >= max {
            out.push("    … (more in the full trace: see the replay line)".to_string());
            break;
        }
    }
    out
}

/// The most faults of a violation's causal past a failure's context shows.
pub const CONTEXT_FAULTS_MAX: usize = 4;

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.headline)?;
        if let Some(v) = &self.verdict {
            writeln!(f, "  {v}")?;
        }
        if !self.context.is_empty() {
            writeln!(
                f,
                "  the events that show it ('>' marks those the verdict names):"
            )?;
            for l in &self.context {
                writeln!(f, "  {l}")?;
            }
        }
        if let (Some(sc), Some(path)) = (&self.scenario, &self.path) {
            writeln!(
                f,
                "  scenario: {} ({})",
                path.display(),
                ScenarioSize::of(sc)
            )?;
        }
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        let filter = test_filter();
        let env: String = self.replay_env.iter().map(|e| format!("{e} ")).collect();
        // Where a file is replayed: this test, or (expect_violation) one that reads files.
        let file_filter = if self.replays_files {
            filter.clone()
        } else {
            " -- <a test of this algorithm and variant that calls .run()>".to_string()
        };
        if let Some(path) = &self.path {
            let path = crate::shell_word(path);
            writeln!(f, "  replay:")?;
            writeln!(f, "    SINCRO_REPLAY={path} {env}cargo test{file_filter}")?;
            if self.cli_judges {
                writeln!(
                    f,
                    "    or `replay {path}` with a binary whose registry holds this algorithm \
                     (sincro::cli::main_with)"
                )?;
            }
        } else if let (Some(seed), true) = (self.seed, self.seed_replays) {
            writeln!(f, "  replay: SINCRO_SEED={seed} {env}cargo test{filter}")?;
        } else if let (Some(_), Some(sc)) = (self.seed, &self.scenario) {
            writeln!(
                f,
                "  replay: coverage guidance drew this scenario from earlier seeds', so \
                 SINCRO_SEED does not rebuild it; save it as a file and run \
                 SINCRO_REPLAY=<file> {env}cargo test{file_filter}:"
            )?;
            for l in sc.to_json().lines() {
                writeln!(f, "    {l}")?;
            }
        }
        Ok(())
    }
}

/// The `cargo test` options that select the test binary running now (` -p pkg --test name`,
/// `--example name` or `--lib`), from its path and what cargo sets for a test it runs
/// (`CARGO_PKG_NAME`, `CARGO_MANIFEST_DIR`); empty when they do not say. Without them a
/// replay line ran every binary with a test of that name, and none for a test in an example
/// (plain `cargo test` does not run those).
/// `cargo test`'s own arguments that run the test of this thread alone: libtest names each
/// test's thread after it; the package and test target it runs in, so that one binary runs it
/// (nothing outside a test's thread).
fn test_filter() -> String {
    std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map(|t| {
            format!(
                "{} -- --exact {}",
                cargo_target_args(),
                crate::shell_word(Path::new(t))
            )
        })
        .unwrap_or_default()
}

fn cargo_target_args() -> String {
    let Ok(exe) = std::env::current_exe() else {
        return String::new();
    };
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    target_args_for(
        &exe,
        std::env::var("CARGO_PKG_NAME").ok().as_deref(),
        manifest.as_deref(),
    )
}

/// [`cargo_target_args`] for the test binary at `exe` of package `pkg` whose manifest is in
/// `manifest_dir`. cargo names a binary after its target with every `-` made `_`
/// (`tests/atomic-commit.rs` runs as `atomic_commit-<hash>`), so the target is the file of
/// `tests/` (or `examples/`) whose name reads so: the line said no `--test` for a file name
/// with a hyphen, and ran every binary's test of that name (stop 73's probe).
fn target_args_for(exe: &Path, pkg: Option<&str>, manifest_dir: Option<&Path>) -> String {
    let Some(stem) = exe.file_stem().and_then(|s| s.to_str()) else {
        return String::new();
    };
    // `name-<16 hex digits>`: cargo's hash of the target
    let name = match stem.rsplit_once('-') {
        Some((name, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            name
        }
        _ => stem,
    };
    let mut args = pkg.map_or(String::new(), |p| {
        format!(" -p {}", crate::shell_word(Path::new(p)))
    });
    let dir = exe
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|d| d.to_str());
    // The target of `sub` (`tests` or `examples`) named `name` once its `-` are `_`: a file
    // `X.rs` or a folder `X/main.rs`.
    let target_in = |sub: &str| -> Option<String> {
        let folder = manifest_dir?.join(sub);
        let mut found: Vec<String> = std::fs::read_dir(&folder)
            .ok()?
            .filter_map(|e| {
                let e = e.ok()?;
                let file = e.file_name().into_string().ok()?;
                let target = match file.strip_suffix(".rs") {
                    Some(t) if e.path().is_file() => t.to_string(),
                    None if e.path().join("main.rs").is_file() => file,
                    _ => return None,
                };
                (target.replace('-', "_") == name).then_some(target)
            })
            .collect();
        // (the exact name first: `a_b.rs` beside `a-b.rs` cannot both be targets anyway)
        found.sort_by_key(|t| t != name);
        found.into_iter().next()
    };
    match dir {
        Some("examples") => {
            let target = target_in("examples").unwrap_or_else(|| name.to_string());
            args.push_str(&format!(
                " --example {}",
                crate::shell_word(Path::new(&target))
            ));
        }
        Some("deps") => {
            if let Some(target) = target_in("tests") {
                args.push_str(&format!(
                    " --test {}",
                    crate::shell_word(Path::new(&target))
                ));
            } else if pkg.is_some_and(|p| p.replace('-', "_") == name) {
                args.push_str(" --lib");
            }
        }
        _ => {}
    }
    args
}

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `.unwrap()` prints `called `Result::unwrap()` on an `Err` value: {:?}`.
        write!(f, "\n{self}")
    }
}

impl std::error::Error for Failure {}

/// A test's own checker under the name [`Check::checker`] gave it: that name is the property
/// it judges, the one `properties(..)` and `expect_violation(..)` take, whatever the checker's
/// own [`Checker::property`] says (`.checker("mine", |sc, _| Box::new(MutualExclusion::new(..)))`
/// reports `mine`). A violation of another label the checker reports (an assumption it
/// verifies first) keeps its label.
struct Named {
    name: &'static str,
    inner: Box<dyn Checker>,
}

impl Named {
    fn rename(&self, mut v: crate::harness::Violation) -> crate::harness::Violation {
        if v.property == self.inner.property() {
            v.property = self.name.to_string();
        }
        v
    }
}

impl Checker for Named {
    fn property(&self) -> &'static str {
        self.name
    }
    fn on_event(
        &mut self,
        ev: &crate::harness::trace::Event,
    ) -> Result<(), crate::harness::Violation> {
        self.inner.on_event(ev).map_err(|v| self.rename(v))
    }
    fn finish(&mut self, end_t_ns: u64) -> Result<(), crate::harness::Violation> {
        self.inner.finish(end_t_ns).map_err(|v| self.rename(v))
    }
    fn could_not_judge(&self) -> Option<String> {
        self.inner.could_not_judge()
    }
    fn evidence(&self) -> &'static [&'static str] {
        self.inner.evidence()
    }
    fn judged_once_the_faults_stop(&self) -> bool {
        self.inner.judged_once_the_faults_stop()
    }
    fn interest(&self) -> crate::harness::Interest {
        self.inner.interest()
    }
    fn wake_at_ns(&self) -> u64 {
        self.inner.wake_at_ns()
    }
}

/// An algorithm as a test sees it: another set of fault classes as its model
/// ([`Check::faults`]) and the test's own checkers ([`Check::checker`]).
struct Tested {
    inner: &'static dyn Algorithm,
    classes: Option<Vec<FaultClass>>,
    extra: Vec<(&'static str, Arc<CheckerFactory>)>,
}

impl Tested {
    /// This test's own checkers for `sc`, each under its given name.
    fn own_checkers(&self, sc: &Scenario) -> Vec<Box<dyn Checker>> {
        // Clamped as the spec's own checkers' bound is: a spec may answer u64::MAX for
        // "unbounded", and a test's checker computing the bound in ns must not overflow.
        let bound = sc
            .checks
            .liveness_bound_ms
            .unwrap_or_else(|| self.inner.liveness_bound_ms(sc))
            .min(crate::algorithms::spec::MAX_LIVENESS_BOUND_MS);
        self.extra
            .iter()
            .map(|&(name, ref build)| {
                Box::new(Named {
                    name,
                    inner: build(sc, bound),
                }) as Box<dyn Checker>
            })
            .collect()
    }
}

impl Algorithm for Tested {
    fn info(&self) -> AlgorithmInfo {
        let mut info = self.inner.info();
        if let Some(classes) = &self.classes {
            info.fault_model = FaultModel {
                tolerates: classes.clone(),
                summary: "the fault classes this test chose",
                // the model's clock caps still hold for the classes the test chose
                ..info.fault_model
            };
        }
        info
    }
    fn run(&self, sc: &Scenario, options: RunOptions) -> Result<Outcome, ScenarioError> {
        self.inner.run_with(sc, options, self.own_checkers(sc))
    }
    fn checkers(&self, sc: &Scenario) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
        self.checkers_with(sc, &[])
    }
    fn checkers_with(
        &self,
        sc: &Scenario,
        judged_elsewhere: &[&str],
    ) -> Result<Vec<Box<dyn Checker>>, ScenarioError> {
        // The spec's checkers and this test's own, as a run judges with ([`Tested::run`]
        // passes the test's own names on, so `.properties([..])` may name them alone).
        let own = self.own_checkers(sc);
        let mut names: Vec<&str> = own.iter().map(|c| c.property()).collect();
        names.extend_from_slice(judged_elsewhere);
        let mut all = self.inner.checkers_with(sc, &names)?;
        all.extend(own);
        Ok(all)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<WorkloadItem> {
        self.inner.workload(rng, nodes, active_ms)
    }
    fn liveness_bound_ms(&self, sc: &Scenario) -> u64 {
        self.inner.liveness_bound_ms(sc)
    }
    fn bug_classes(&self, variant: &str) -> Vec<FaultClass> {
        self.inner.bug_classes(variant)
    }
    fn goals(&self) -> Vec<crate::algorithms::coverage::Goal> {
        // The spec's own goals keep guiding a test that chose its faults or added checkers.
        self.inner.goals()
    }
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        self.inner.complete(draft, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The replay line names the test target even when its file name has a hyphen, which
    /// cargo turns into `_` in the binary's name (stop 73's probe: no `--test`, so every
    /// binary's test of that name ran).
    #[test]
    fn the_replay_line_names_a_hyphenated_test_target() {
        let dir = scratch_dir();
        std::fs::create_dir_all(dir.join("tests/two-part")).unwrap();
        std::fs::create_dir_all(dir.join("examples")).unwrap();
        for f in [
            "tests/atomic-commit.rs",
            "tests/plain.rs",
            "tests/two-part/main.rs",
        ] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        std::fs::write(dir.join("examples/lease-demo.rs"), "").unwrap();
        let exe = |sub: &str, stem: &str| dir.join("target/debug").join(sub).join(stem);
        let args =
            |sub: &str, stem: &str| target_args_for(&exe(sub, stem), Some("my-crate"), Some(&dir));
        assert_eq!(
            args("deps", "atomic_commit-0123456789abcdef"),
            " -p my-crate --test atomic-commit"
        );
        assert_eq!(
            args("deps", "plain-0123456789abcdef"),
            " -p my-crate --test plain"
        );
        assert_eq!(
            args("deps", "two_part-0123456789abcdef"),
            " -p my-crate --test two-part"
        );
        assert_eq!(
            args("deps", "my_crate-0123456789abcdef"),
            " -p my-crate --lib"
        );
        assert_eq!(
            args("examples", "lease_demo-0123456789abcdef"),
            " -p my-crate --example lease-demo"
        );
        // a binary that is none of these: the package alone
        assert_eq!(args("deps", "other-0123456789abcdef"), " -p my-crate");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_regression_never_replaces_another_of_the_same_seed() {
        let dir = scratch_dir();
        let first = write_regression(&dir, "a.b.seed7", "one").unwrap();
        assert_eq!(first, dir.join("a.b.seed7.json"));
        // the same scenario again: the same file
        assert_eq!(write_regression(&dir, "a.b.seed7", "one").unwrap(), first);
        // another test's failure at the same seed: a file of its own
        let second = write_regression(&dir, "a.b.seed7", "two").unwrap();
        assert_eq!(second, dir.join("a.b.seed7-2.json"));
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "one");
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_mutated_seeds_failure_shows_its_scenario_instead_of_a_seed_that_would_not_rebuild_it() {
        let alg = crate::algorithms::find("mutex.centralized").unwrap();
        let sc = alg.generate("lease-timeout", 5, &GenOptions::default());
        let mut f = Failure::headline("mutex.centralized / lease-timeout failed at seed 5".into());
        f.seed = Some(5);
        f.scenario = Some(sc.clone());
        f.seed_replays = true;
        assert!(
            f.to_string().contains("replay: SINCRO_SEED=5 cargo test"),
            "{f}"
        );
        f.seed_replays = false;
        let text = f.to_string();
        assert!(!text.contains("SINCRO_SEED=5"), "{text}");
        assert!(text.contains("SINCRO_SEED does not rebuild it"), "{text}");
        // the scenario shown is the one to replay, whole
        let shown: String = text
            .lines()
            .skip_while(|l| !l.contains("SINCRO_REPLAY=<file>"))
            .skip(1)
            .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
            .collect();
        assert_eq!(Scenario::from_json(&shown).unwrap(), sc);
    }
}
