//! `sincro bench`'s engine comparison on generated fuzz scenarios (issue 15: "≥ 20× madsim and
//! ≥ 500× turmoil in runs/s on generated fuzz scenarios, not only on the bench").
//!
//! Each engine runs the scenarios a campaign of `fuzz --strategy random --fixed-phase`
//! generates for seeds `0..`, on the correct variant of a few algorithms: the trace off and the
//! algorithm's checkers on, as a campaign runs them, and the generation timed with the run, as
//! a campaign pays for it. `--strategy random` so that no pilot runs (the pilots are
//! generation, not the engine). The native engine runs many more seeds than turmoil and madsim
//! (they are hundreds of times slower); each engine's rate is over its own seeds, drawn the
//! same way. madsim's scenarios draw links of at least 3 ms, its transport floor, so they are
//! not byte for byte native's. One thread, wall time.

use crate::algorithms::Algorithm;
use crate::harness::engine::RunOptions;
use crate::harness::gen::{GenOptions, Strategy};
use crate::harness::{EngineKind, Verdict};
use std::time::Instant;

/// The algorithms compared (the README's table): a coordinator, an election and a
/// message-heavy mutual exclusion.
pub const ALGORITHMS: [&str; 3] = [
    "mutex.centralized",
    "election.bully",
    "mutex.ricart-agrawala",
];

/// The target: native runs/s at least this many times turmoil's.
pub const TURMOIL_RATIO_MIN: f64 = 500.0;

/// The target: native runs/s at least this many times madsim's.
pub const MADSIM_RATIO_MIN: f64 = 20.0;

/// The most seeds per engine `--fuzz-seeds` and `--fuzz-slow-seeds` accept.
pub const SEEDS_MAX: u64 = 10_000_000;

/// One engine on one algorithm's generated scenarios.
#[derive(Clone, Debug)]
pub struct FuzzRow {
    /// The algorithm (its correct variant).
    pub algorithm: &'static str,
    /// `native`, `turmoil` or `madsim`.
    pub engine: &'static str,
    /// Seeds run.
    pub seeds: u64,
    /// Wall seconds for them (the best of the repeats on native).
    pub secs: f64,
    /// Runs whose verdict was not a pass (a correct variant: 0 expected).
    pub not_passed: u64,
    /// Why the engine has no figure (madsim outside a `--cfg madsim` build).
    pub missing: Option<String>,
}

impl FuzzRow {
    /// Runs per wall second.
    pub fn runs_per_s(&self) -> f64 {
        self.seeds as f64 / self.secs.max(1e-9)
    }
}

/// Generates and runs seeds `0..seeds` of `alg`'s correct variant on `engine`; the wall
/// seconds and the runs that did not pass, or why the engine cannot run them.
fn time_engine(alg: &dyn Algorithm, engine: EngineKind, seeds: u64) -> Result<(f64, u64), String> {
    let opts = GenOptions {
        strategy: Strategy::Random,
        phase_swarm: false,
        engine,
        ..GenOptions::default()
    };
    let start = Instant::now();
    let mut not_passed = 0;
    for seed in 0..seeds {
        let sc = alg.generate("correct", seed, &opts);
        let out = alg.run(&sc, RunOptions::new(false)).map_err(|e| e.0)?;
        if !matches!(out.verdict, Verdict::Pass) {
            not_passed += 1;
        }
    }
    Ok((start.elapsed().as_secs_f64(), not_passed))
}

/// Measures every algorithm of [`ALGORITHMS`] on native (`native_seeds`, the best of
/// `repeat` passes), turmoil and madsim (`slow_seeds`, one pass each).
pub fn measure(native_seeds: u64, slow_seeds: u64, repeat: u32) -> Vec<FuzzRow> {
    let mut rows = Vec::new();
    for name in ALGORITHMS {
        let alg = crate::algorithms::find(name).expect("a built-in algorithm");
        for (engine, kind, seeds, passes) in [
            ("native", EngineKind::Native, native_seeds, repeat.max(1)),
            ("turmoil", EngineKind::Turmoil, slow_seeds, 1),
            ("madsim", EngineKind::Madsim, slow_seeds, 1),
        ] {
            let mut best: Option<(f64, u64)> = None;
            let mut missing = None;
            for _ in 0..passes {
                match time_engine(alg, kind, seeds) {
                    Ok((secs, bad)) if best.is_none_or(|(b, _)| secs < b) => {
                        best = Some((secs, bad))
                    }
                    Ok(_) => {}
                    Err(why) => {
                        missing = Some(why);
                        break;
                    }
                }
            }
            let (secs, not_passed) = best.unwrap_or((0.0, 0));
            rows.push(FuzzRow {
                algorithm: name,
                engine,
                seeds: if missing.is_some() { 0 } else { seeds },
                secs,
                not_passed,
                missing,
            });
        }
    }
    rows
}

/// Native's runs/s over `row`'s, when both have figures.
fn native_ratio(rows: &[FuzzRow], row: &FuzzRow) -> Option<f64> {
    let native = rows
        .iter()
        .find(|n| n.algorithm == row.algorithm && n.engine == "native" && n.missing.is_none())?;
    (row.missing.is_none() && row.seeds > 0).then(|| native.runs_per_s() / row.runs_per_s())
}

/// The comparison as a markdown table.
pub fn table(rows: &[FuzzRow]) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    t.push_str(
        "| algorithm (correct) | engine | seeds | runs/s | native / engine | not passed |\n",
    );
    t.push_str("|---|---|---:|---:|---:|---:|\n");
    // Why an engine has no figure, once below the table: madsim's paragraph filled a cell of
    // each of its rows (five times).
    let mut notes = crate::bench::Notes::default();
    for r in rows {
        match &r.missing {
            Some(why) => {
                let _ = writeln!(
                    t,
                    "| {} | {} | – | – | – | no figure (note {}) |",
                    r.algorithm,
                    r.engine,
                    notes.number(why)
                );
            }
            None => {
                let ratio = native_ratio(rows, r).map_or("–".into(), |x| format!("{x:.0}×"));
                let _ = writeln!(
                    t,
                    "| {} | {} | {} | {:.0} | {ratio} | {} |",
                    r.algorithm,
                    r.engine,
                    r.seeds,
                    r.runs_per_s(),
                    r.not_passed
                );
            }
        }
    }
    t.push_str(&notes.render());
    t
}

/// One line per algorithm and slow engine with a figure: the ratio against the target.
pub fn verdicts(rows: &[FuzzRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| {
            let min = match r.engine {
                "turmoil" => TURMOIL_RATIO_MIN,
                "madsim" => MADSIM_RATIO_MIN,
                _ => return None,
            };
            let ratio = native_ratio(rows, r)?;
            let met = if ratio >= min { "met" } else { "NOT met" };
            Some(format!(
                "{} on generated scenarios: native/{} = {ratio:.0}× (target >= {min:.0}×: {met})",
                r.algorithm, r.engine
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_runs_the_correct_variants_and_the_ratios_follow_the_rates() {
        let rows = measure(20, 2, 1);
        assert_eq!(rows.len(), ALGORITHMS.len() * 3);
        for r in rows.iter().filter(|r| r.engine != "madsim") {
            assert!(r.missing.is_none(), "{r:?}");
            assert_eq!(r.not_passed, 0, "a correct variant passes: {r:?}");
            assert!(r.secs > 0.0, "{r:?}");
        }
        let madsim = rows.iter().find(|r| r.engine == "madsim").expect("a row");
        if crate::harness::engine::MADSIM {
            assert!(madsim.missing.is_none(), "{madsim:?}");
        } else {
            let why = madsim.missing.as_deref().expect("no madsim engine here");
            assert!(why.contains("madsim"), "{why}");
        }
        let native = &rows[0];
        let turmoil = &rows[1];
        let ratio = native_ratio(&rows, turmoil).expect("both measured");
        assert!((ratio - native.runs_per_s() / turmoil.runs_per_s()).abs() < 1e-9);
        let t = table(&rows);
        assert!(t.contains("| mutex.ricart-agrawala | turmoil | 2 |"), "{t}");
        let v = verdicts(&rows);
        let slow_engines = if crate::harness::engine::MADSIM { 2 } else { 1 };
        assert_eq!(v.len(), ALGORITHMS.len() * slow_engines);
        assert!(v.iter().all(|l| l.contains("target >= ")), "{v:?}");
    }

    #[test]
    fn a_missing_engine_gives_no_ratio_and_no_verdict() {
        let row = |engine, secs, missing: Option<&str>| FuzzRow {
            algorithm: "a",
            engine,
            seeds: 10,
            secs,
            not_passed: 0,
            missing: missing.map(String::from),
        };
        let rows = [
            row("native", 0.01, None),
            row("turmoil", 10.0, None),
            row("madsim", 0.0, Some("needs --cfg madsim")),
        ];
        assert_eq!(
            native_ratio(&rows, &rows[1]).map(|x| x.round()),
            Some(1000.0)
        );
        assert_eq!(native_ratio(&rows, &rows[2]), None);
        assert_eq!(
            verdicts(&rows),
            ["a on generated scenarios: native/turmoil = 1000× (target >= 500×: met)"]
        );
        let t = table(&rows);
        assert!(
            t.contains("| a | madsim | – | – | – | no figure (note 1) |"),
            "{t}"
        );
        assert_eq!(t.matches("needs --cfg madsim").count(), 1, "{t}");
        assert!(t.ends_with("\nnote 1: needs --cfg madsim\n"), "{t}");
    }
}
