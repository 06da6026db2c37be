//! Fuzz campaigns: many generated scenarios per (algorithm, variant), failures written as
//! replayable scenario files.
//!
//! Each run is single-threaded and deterministic; `jobs` threads take seeds from a shared
//! counter. The first failing seed reported is the smallest one whatever the number of jobs, so
//! a campaign's summary does not depend on thread timing.

use crate::algorithms::{Algorithm, VariantInfo};
use crate::harness::engine::RunOptions;
use crate::harness::gen::GenOptions;
use crate::harness::{Expect, Scenario, Verdict};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// What to fuzz and how.
#[derive(Clone, Debug)]
pub struct FuzzConfig {
    /// First seed.
    pub seed_start: u64,
    /// Number of seeds per target.
    pub seeds: u64,
    /// Worker threads (each run stays single-threaded).
    pub jobs: usize,
    /// Keep running after the first failure of a target (count them all).
    pub keep_going: bool,
    /// Run each seed twice and compare the traces byte for byte.
    pub check_determinism: bool,
    /// Scenario generation knobs.
    pub gen: GenOptions,
    /// Where failing scenarios are written.
    pub out_dir: PathBuf,
    /// At most this many failure files per target.
    pub max_files: usize,
}

/// One (algorithm, variant) to fuzz.
#[derive(Clone)]
pub struct Target {
    /// The algorithm.
    pub algorithm: &'static dyn Algorithm,
    /// The variant.
    pub variant: VariantInfo,
}

/// A failing seed.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The seed.
    pub seed: u64,
    /// Verdict label (`violation:<property>`, `panic`, `limit_exceeded`, `nondeterministic`).
    pub label: String,
    /// The verdict, in one line.
    pub detail: String,
    /// Where the scenario was written (if it was).
    pub path: Option<PathBuf>,
}

/// The result of fuzzing one target.
#[derive(Clone, Debug)]
pub struct TargetReport {
    /// Algorithm name.
    pub algorithm: String,
    /// Variant name.
    pub variant: String,
    /// Whether the variant is a known-buggy one (a failure is then expected).
    pub buggy: bool,
    /// Runs done.
    pub runs: u64,
    /// Failing runs found (only the first unless `keep_going`).
    pub failures: u64,
    /// The smallest failing seed, with its file.
    pub first: Option<Failure>,
    /// Messages delivered over all runs.
    pub delivered: u64,
    /// Events processed over all runs.
    pub events: u64,
    /// Whether the outcome is as expected: no failure for a correct variant, a failure for a
    /// buggy one.
    pub as_expected: bool,
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// Runs one seed; `Err(failure)` on a failing verdict or a determinism mismatch.
fn run_seed(
    t: &Target,
    cfg: &FuzzConfig,
    seed: u64,
) -> Result<(u64, u64), Box<(Scenario, Failure)>> {
    let sc = t.algorithm.generate(t.variant.name, seed, &cfg.gen);
    let opts = RunOptions {
        record_trace: cfg.check_determinism,
    };
    let out = match t.algorithm.run(&sc, opts) {
        Ok(o) => o,
        Err(e) => {
            let f = Failure {
                seed,
                label: "bad_scenario".into(),
                detail: e.0,
                path: None,
            };
            return Err(Box::new((sc, f)));
        }
    };
    if cfg.check_determinism {
        let again = t.algorithm.run(&sc, opts).expect("ran once already");
        let (a, b) = (
            out.trace.as_ref().map(|t| t.to_jsonl()),
            again.trace.as_ref().map(|t| t.to_jsonl()),
        );
        if a != b {
            let f = Failure {
                seed,
                label: "nondeterministic".into(),
                detail: "the same scenario gave two different traces".into(),
                path: None,
            };
            return Err(Box::new((sc, f)));
        }
    }
    match &out.verdict {
        Verdict::Pass => Ok((out.stats.events, out.stats.delivered)),
        v => Err(Box::new((
            sc,
            Failure {
                seed,
                label: v.label(),
                detail: v.to_string(),
                path: None,
            },
        ))),
    }
}

/// Fuzzes one target; `progress` is called after each run with (failures so far).
pub fn fuzz_target(
    t: &Target,
    cfg: &FuzzConfig,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> TargetReport {
    let next = AtomicU64::new(0);
    let best = AtomicU64::new(u64::MAX);
    let failures = AtomicU64::new(0);
    let runs = AtomicU64::new(0);
    let events = AtomicU64::new(0);
    let delivered = AtomicU64::new(0);
    let found: Mutex<Vec<Failure>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..cfg.jobs.max(1) {
            s.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cfg.seeds || (!cfg.keep_going && i >= best.load(Ordering::Relaxed)) {
                    return;
                }
                let seed = cfg.seed_start + i;
                runs.fetch_add(1, Ordering::Relaxed);
                match run_seed(t, cfg, seed) {
                    Ok((e, d)) => {
                        events.fetch_add(e, Ordering::Relaxed);
                        delivered.fetch_add(d, Ordering::Relaxed);
                    }
                    Err(failure) => {
                        let (mut sc, mut f) = *failure;
                        best.fetch_min(i, Ordering::Relaxed);
                        let n = failures.fetch_add(1, Ordering::Relaxed) + 1;
                        if (n as usize) <= cfg.max_files || !cfg.keep_going {
                            sc.expect = match f.label.split_once(':') {
                                Some(("violation", p)) => Some(Expect::Violation(p.to_string())),
                                _ if f.label == "panic" => Some(Expect::Panic),
                                _ => None,
                            };
                            let path = cfg
                                .out_dir
                                .join(format!("{}.{}.seed{}.json", sc.algorithm, sc.variant, seed));
                            if write_atomically(&path, &sc.to_json()).is_ok() {
                                f.path = Some(path);
                            }
                        }
                        found.lock().expect("no poisoning").push(f);
                    }
                }
                progress(failures.load(Ordering::Relaxed));
            });
        }
    });
    let mut found = found.into_inner().expect("no poisoning");
    found.sort_by_key(|f| f.seed);
    let first = found.into_iter().next();
    let failures = if cfg.keep_going {
        failures.into_inner()
    } else {
        u64::from(first.is_some())
    };
    TargetReport {
        algorithm: t.algorithm.info().name.to_string(),
        variant: t.variant.name.to_string(),
        buggy: t.variant.buggy,
        runs: if cfg.keep_going {
            runs.into_inner()
        } else {
            first
                .as_ref()
                .map_or(runs.into_inner(), |f| f.seed - cfg.seed_start + 1)
        },
        failures,
        as_expected: first.is_some() == t.variant.buggy,
        first,
        delivered: delivered.into_inner(),
        events: events.into_inner(),
    }
}
