//! `sincro table search`: how well each search strategy finds the planted bugs.
//!
//! For every buggy variant (of the selected algorithms) and every strategy asked for, the
//! seeds `0..N` are generated with that strategy and run; the table gives the failing-seed
//! rate, the first failing seed, and the median number of seeds to the first failure from 20
//! different starting offsets (`k · N/20`, as 20 campaigns with `--seed-start k·N/20` would
//! see it; a `>` marks a median whose campaigns did not all fail before seed `N`). A failure is
//! a violation of any property; a run that passes, could not be judged or hit a limit is not.
//! The target is a rate of at least 1 % with the default mix; rows below it are
//! flagged.
//!
//! `guided` is the default mix with coverage guidance, as `sincro fuzz` runs it: seeds are no
//! longer independent, so its rate is that of one campaign of `N` seeds (every failure
//! counted), and its median is over 20 campaigns started at the same offsets, each stopping at
//! its first failure (or at seed `N`).

use super::TableArgs;
use crate::algorithms::{self, Algorithm};
use crate::harness::gen::{GenOptions, Strategy};
use crate::harness::{RunOptions, Verdict};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Default seeds per (variant, strategy).
pub const SEEDS_DEFAULT: u64 = 20_000;

/// Most seeds per (buggy variant, strategy).
pub const SEEDS_MAX: u64 = 1_000_000;
/// How many starting offsets the seeds-to-find median is taken over.
pub const OFFSETS: u64 = 20;

/// The failing seeds of `variant` of `alg` among `0..seeds` under `strategy`, in order,
/// run on `jobs` threads (each run single-threaded and deterministic).
pub fn failing_seeds(
    alg: &dyn Algorithm,
    variant: &str,
    strategy: Strategy,
    seeds: u64,
    jobs: usize,
) -> Vec<u64> {
    // As `sincro fuzz` draws them: each seed's phase from the swarm.
    let opts = GenOptions {
        strategy,
        phase_swarm: true,
        ..GenOptions::default()
    };
    super::progress::start(
        format!(
            "search: {} / {variant} / {}: seeds run",
            alg.info().name,
            strategy.name()
        ),
        seeds,
    );
    let next = AtomicU64::new(0);
    let found = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed >= seeds {
                    break;
                }
                let sc = alg.generate(variant, seed, &opts);
                // As a campaign counts them: a failure the correct variant shares is no
                // catch ([`crate::fuzz::shared_by_correct`]).
                let failed = matches!(
                    alg.run(&sc, RunOptions::new(false)),
                    Ok(out) if matches!(out.verdict, Verdict::Violation(_))
                        && !crate::fuzz::shared_by_correct(alg, &sc, &out.verdict.label())
                );
                if failed {
                    found.lock().expect("no worker panics").push(seed);
                }
                super::progress::tick();
            });
        }
    });
    let mut found = found.into_inner().expect("no worker panics");
    found.sort_unstable();
    found
}

/// Seeds to the first failure from each of [`OFFSETS`] starting points `k · seeds/OFFSETS`
/// (1 when the starting seed fails); `None` when no seed from there to `seeds` fails.
pub fn seeds_to_find(failing: &[u64], seeds: u64) -> Vec<Option<u64>> {
    (0..OFFSETS)
        .map(|k| {
            let start = k * seeds / OFFSETS;
            let i = failing.partition_point(|&s| s < start);
            failing.get(i).map(|&s| s - start + 1)
        })
        .collect()
}

/// The median of `xs` (`None` = not found, above every found value), as text: `37`, `2.5`,
/// or `not found by half` when half the campaigns or more found nothing.
pub fn median_text(xs: &[Option<u64>], seeds: u64) -> String {
    let mut v: Vec<u64> = xs.iter().map(|x| x.unwrap_or(u64::MAX)).collect();
    v.sort_unstable();
    if v.is_empty() {
        return "-".into();
    }
    let (a, b) = (v[(v.len() - 1) / 2], v[v.len() / 2]);
    if b == u64::MAX {
        // Half the campaigns or more ran out of seeds (the one from offset k had
        // `seeds - k·seeds/OFFSETS` of them) before a failure.
        let _ = seeds;
        return "not found by half".into();
    }
    if a == b {
        format!("{a}")
    } else {
        format!("{:.1}", (a as f64 + b as f64) / 2.0)
    }
}

/// A guided campaign's view of `variant`: the failing seeds of one campaign over `0..seeds`,
/// and the seeds to the first failure of campaigns started at each of the [`OFFSETS`].
/// The settings of a guided campaign as `sincro fuzz` runs it by default: the mix with
/// coverage guidance, each seed's phase from the swarm (as `FuzzConfig::default()` has it
/// since stop 65; with the generator's fixed phase the guided row measured another generator
/// than `fuzz`'s).
fn guided_config(
    seed_start: u64,
    seeds: u64,
    jobs: usize,
    keep_going: bool,
    out_dir: std::path::PathBuf,
) -> crate::fuzz::FuzzConfig {
    let base = crate::fuzz::FuzzConfig::default();
    crate::fuzz::FuzzConfig {
        seed_start,
        seeds,
        jobs,
        keep_going,
        out_dir,
        max_files: 0,
        gen: GenOptions {
            phase_swarm: true,
            ..base.gen.clone()
        },
        ..base
    }
}

fn guided(
    alg: &'static dyn Algorithm,
    variant: &algorithms::VariantInfo,
    seeds: u64,
    jobs: usize,
) -> (u64, Option<u64>, Vec<Option<u64>>) {
    use crate::fuzz::{fuzz_target, Target};
    let out_dir = std::env::temp_dir().join(format!("sincro-table-search-{}", std::process::id()));
    let target = Target {
        algorithm: alg,
        variant: variant.clone(),
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let campaign = |seed_start: u64, seeds: u64, keep_going: bool| {
        let cfg = guided_config(seed_start, seeds, jobs, keep_going, out_dir.clone());
        fuzz_target(&target, &cfg, &stop, &|_| {})
    };
    super::progress::start(
        format!(
            "search: {} / {} / guided: campaigns run (all seeds, then one per offset)",
            alg.info().name,
            variant.name
        ),
        1 + OFFSETS,
    );
    let all = campaign(0, seeds, true);
    super::progress::tick();
    let to_find = (0..OFFSETS)
        .map(|k| {
            let start = k * seeds / OFFSETS;
            let found = campaign(start, seeds - start, false).seeds_to_find;
            super::progress::tick();
            found
        })
        .collect();
    let _ = std::fs::remove_dir_all(&out_dir);
    (all.failures, all.first.map(|f| f.seed), to_find)
}

/// Runs `sincro table search`; returns the exit code.
pub fn main(args: &TableArgs) -> i32 {
    let seeds = args.seeds.unwrap_or(SEEDS_DEFAULT);
    if !(OFFSETS..=SEEDS_MAX).contains(&seeds) {
        eprintln!(
            "error: --seeds must be within [{OFFSETS}, {SEEDS_MAX}] (at least one per offset of \
             the median)"
        );
        return crate::exit::BAD_INPUT;
    }
    // 0 is taken as 1, as `fuzz`, `matrix` and `calibrate` take it.
    let jobs = args.jobs.unwrap_or(1).max(1);
    if jobs > 256 {
        eprintln!("error: --jobs must be within [1, 256] (0 is taken as 1)");
        return crate::exit::BAD_INPUT;
    }
    let want_guided = args.strategy.iter().any(|s| s == "guided");
    let strategies: Result<Vec<Strategy>, String> = args
        .strategy
        .iter()
        .filter(|s| *s != "guided")
        .map(|s| strategy_named(s))
        .collect();
    let strategies = match strategies {
        Ok(s) if !s.is_empty() || want_guided => s,
        Ok(_) => vec![Strategy::Random, Strategy::Mix],
        Err(e) => {
            eprintln!("error: --strategy: {e}");
            return crate::exit::BAD_INPUT;
        }
    };
    // A strategy named twice would be measured twice, as two rows of the same thing.
    if let Some(twice) = args
        .strategy
        .iter()
        .enumerate()
        .find_map(|(i, s)| args.strategy[..i].contains(s).then_some(s))
    {
        eprintln!("error: --strategy names `{twice}` twice");
        return crate::exit::BAD_INPUT;
    }
    let algs = match super::buggy_selection(args, "to measure the search on") {
        Ok(a) => a,
        Err(code) => return code,
    };
    println!(
        "Search strategies against the planted bugs: seeds 0..{seeds} per row; the median of seeds \
         to the first failure is over {OFFSETS} starting offsets (k·{})\n",
        seeds / OFFSETS
    );
    println!("| variant | strategy | failing seeds | rate | first | median seeds to find | s |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    let mut below = Vec::new();
    let mut same = Vec::new();
    for alg in algs {
        let info = alg.info();
        if strategies.len() > 1 && !alg.strategies_apply() {
            same.push(info.name);
        }
        for v in info.variants.iter().filter(|v| v.buggy) {
            for &strategy in &strategies {
                let t0 = Instant::now();
                let failing = failing_seeds(alg, v.name, strategy, seeds, jobs);
                let rate = failing.len() as f64 / seeds as f64;
                let name = format!("{} / {}", info.name, v.name);
                if strategy == Strategy::Mix && rate < 0.01 {
                    below.push(name.clone());
                }
                println!(
                    "| {name} | {} | {} | {:.2} % | {} | {} | {:.1} |",
                    strategy.name(),
                    failing.len(),
                    rate * 100.0,
                    failing.first().map_or("-".into(), |s| s.to_string()),
                    median_text(&seeds_to_find(&failing, seeds), seeds),
                    t0.elapsed().as_secs_f64()
                );
            }
            if want_guided {
                let t0 = Instant::now();
                let (failures, first, to_find) = guided(alg, v, seeds, jobs);
                println!(
                    "| {} / {} | guided | {failures} | {:.2} % | {} | {} | {:.1} |",
                    info.name,
                    v.name,
                    failures as f64 / seeds as f64 * 100.0,
                    first.map_or("-".into(), |s| s.to_string()),
                    median_text(&to_find, seeds),
                    t0.elapsed().as_secs_f64()
                );
            }
        }
    }
    if !below.is_empty() {
        println!(
            "\nbelow the 1 % target with the default mix: {}",
            below.join(", ")
        );
    }
    for name in same {
        println!("\n{}", crate::cli::same_search_note(name));
    }
    0
}

/// The strategy called `name` (`mix`, `random`, `pct`, `pos`, `moments`).
fn strategy_named(name: &str) -> Result<Strategy, String> {
    Strategy::ALL
        .into_iter()
        .find(|s| s.name() == name)
        .ok_or_else(|| {
            let known: Vec<_> = Strategy::ALL.iter().map(|s| s.name()).collect();
            format!(
                "unknown strategy `{name}`; known: {}, guided",
                known.join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guided row runs the generator `sincro fuzz` runs by default: each seed's phase
    /// from the swarm, as the unguided rows draw it (it kept the fixed phase, and measured
    /// another rate than `fuzz` finds).
    #[test]
    fn the_guided_row_draws_the_phase_as_fuzz_does() {
        let cfg = guided_config(7, 100, 1, true, std::env::temp_dir());
        assert!(cfg.gen.phase_swarm);
        assert_eq!((cfg.seed_start, cfg.seeds, cfg.max_files), (7, 100, 0));
        assert!(crate::fuzz::FuzzConfig::default().gen.phase_swarm);
    }

    #[test]
    fn seeds_to_find_counts_from_each_offset_and_the_median_marks_misses() {
        // 100 seeds, offsets 0, 5, 10, ..., 95; failures at 3 and 50.
        let got = seeds_to_find(&[3, 50], 100);
        assert_eq!(got[0], Some(4)); // 0,1,2,3
        assert_eq!(got[1], Some(46)); // from 5 to 50
        assert_eq!(got[10], Some(1)); // offset 50 fails at once
        assert_eq!(got[11], None); // from 55 nothing fails
        assert_eq!(median_text(&got, 100), "43.5"); // 11 of 20 found: 41 and 46 in the middle
        assert_eq!(
            median_text(&seeds_to_find(&[3], 100), 100),
            "not found by half"
        );
        let all = vec![Some(1), Some(3), Some(2), Some(10)];
        assert_eq!(median_text(&all, 100), "2.5");
    }

    #[test]
    fn a_buggy_variant_fails_on_some_seeds_and_the_same_ones_on_every_job_count() {
        let alg = algorithms::find("order.total").unwrap();
        let one = failing_seeds(alg, "unordered", Strategy::Random, 40, 1);
        let two = failing_seeds(alg, "unordered", Strategy::Random, 40, 2);
        assert!(!one.is_empty() && one.len() < 40, "{one:?}");
        assert_eq!(one, two);
        assert!(failing_seeds(alg, "correct", Strategy::Mix, 40, 2).is_empty());
    }
}
