//! `sincro calibrate`: how strong is the search on one buggy variant (a user's own included)?
//! Several campaigns of the same length at distant seed offsets, per strategy: the
//! failing-seed rate and the seeds each campaign needed to its first failure, with their
//! median ([`crate::calibrate`]).

use super::{
    bad_input, check_jobs, interrupt_flag, monitor, prepare_out_dir, targets, StrategyArg,
};
use crate::calibrate::{calibrate, Calibration, CampaignResult, StrategyResult};
use crate::exit;
use crate::fuzz::{FuzzConfig, Live};
use crate::harness::gen::{GenOptions, Strategy};
use crate::harness::scenario::MAX_NODES;
use crate::harness::MAX_TIME_MS;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Options of `sincro calibrate`.
#[derive(clap::Args)]
pub(super) struct CalibrateArgs {
    /// The algorithm (one name).
    #[arg(long, short)]
    algorithm: String,
    /// The variant to calibrate on: a buggy one, whose bug the search should find (a correct
    /// one gives 0 failing seeds, or shows a false alarm).
    #[arg(long)]
    variant: String,
    /// Strategies to compare (comma-separated), each with its own campaigns.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["mix", "random"])]
    strategy: Vec<StrategyArg>,
    /// Campaigns per strategy (1 to 1000).
    #[arg(long, default_value_t = 20)]
    offsets: u64,
    /// Seeds per campaign (every one is run: failing seeds are counted, not only the first).
    #[arg(long, default_value_t = 2000)]
    seeds: u64,
    /// First seed of the first campaign.
    #[arg(long, default_value_t = 0)]
    seed_start: u64,
    /// Distance between two campaigns' first seeds (at least --seeds).
    #[arg(long, default_value_t = 1_000_000)]
    stride: u64,
    /// The "found within" column counts the campaigns that found the bug within this many
    /// seeds.
    #[arg(long, default_value_t = 1000)]
    within: u64,
    /// Worker threads (at most 256).
    #[arg(long, short, default_value_t = 1)]
    jobs: usize,
    /// Length of each scenario's faulty phase, ms (swarmed ¼ to 4 × unless --fixed-phase).
    #[arg(long, default_value_t = 1000)]
    active_ms: u64,
    /// Every seed's faulty phase exactly --active-ms.
    #[arg(long)]
    fixed_phase: bool,
    /// Smallest node count.
    #[arg(long, default_value_t = 3)]
    nodes_min: usize,
    /// Largest node count.
    #[arg(long, default_value_t = 6)]
    nodes_max: usize,
    /// No coverage guidance for any strategy (by default every strategy but `random` is
    /// guided, as in `fuzz`).
    #[arg(long)]
    no_coverage: bool,
    /// Directory for each campaign's first failure
    /// (`<alg>.<variant>.<strategy>.seed<N>.json`, not shrunk).
    #[arg(long, default_value = "failures")]
    out: PathBuf,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// `sincro calibrate`. Exit 0 when every campaign ran (whatever it found), 2 on bad input or
/// a failure file that could not be written, 130 when interrupted (what ran is reported).
pub(super) fn main(a: &CalibrateArgs) -> i32 {
    if let Err(e) = check(a) {
        return bad_input(e);
    }
    let target = match targets(&a.algorithm, &a.variant) {
        Ok(t) if t.len() == 1 => t.into_iter().next().expect("one"),
        Ok(t) => {
            return bad_input(format!(
                "calibrate takes one algorithm and one variant; `{}` / `{}` names {}",
                a.algorithm,
                a.variant,
                t.len()
            ))
        }
        Err(e) => return bad_input(e),
    };
    let cal = Calibration {
        cfg: FuzzConfig {
            seed_start: a.seed_start,
            seeds: a.seeds,
            jobs: a.jobs.max(1),
            keep_going: true,
            check_determinism: false,
            gen: GenOptions {
                nodes_min: a.nodes_min,
                nodes_max: a.nodes_max,
                active_ms: a.active_ms,
                phase_swarm: !a.fixed_phase,
                ..GenOptions::default()
            },
            out_dir: a.out.clone(),
            max_files: 1,
            coverage: !a.no_coverage,
        },
        strategies: a.strategy.iter().map(|&s| s.into()).collect(),
        offsets: a.offsets,
        stride: a.stride,
    };
    if let Some(e) = cal.error() {
        return bad_input(e);
    }
    if let Err(e) = prepare_out_dir(&a.out) {
        return bad_input(format!("--out: {e}"));
    }
    let name = target.name();
    let buggy = if target.variant.buggy { " [bug]" } else { "" };
    println!(
        "calibration of {name}{buggy}: {} campaign(s) of {} seeds per strategy, starting at seed {} and every {} seeds after",
        a.offsets, a.seeds, a.seed_start, a.stride
    );
    let stop = interrupt_flag();
    let started = Instant::now();
    let progress = |s: Strategy, k: u64, c: &CampaignResult| {
        if a.quiet {
            return;
        }
        let found = match c.seeds_to_find {
            Some(1) => "the first seed fails".into(),
            Some(n) => format!("first failure after {n} seeds"),
            None => "none".into(),
        };
        eprintln!(
            "[{:>5} s] {} {}/{} (seeds {}..): {} failing of {}, {found}",
            started.elapsed().as_secs(),
            s.name(),
            k + 1,
            a.offsets,
            c.seed_start,
            c.failing,
            c.seeds
        );
    };
    let live = Live::default();
    let results = std::thread::scope(|s| {
        let h = s.spawn(|| calibrate(&target, &cal, stop, &live, &progress));
        monitor(&live, started, None, a.quiet, &|| h.is_finished());
        h.join().expect("the calibration thread does not panic")
    });
    print!("{}", summary(&results, a.offsets, a.within));
    let mut code = exit::PASS;
    for c in results.iter().flat_map(|r| &r.campaigns) {
        if let Some((seed, msg)) = &c.bad_input {
            eprintln!(
                "error: {name} seed {seed}: the engine refused the generated scenario: {msg}"
            );
            code = exit::BAD_INPUT;
        }
        for e in &c.write_errors {
            eprintln!("error: {e}");
            code = exit::BAD_INPUT;
        }
    }
    if code == exit::PASS && stop.load(Ordering::Relaxed) {
        return crate::fuzz::INTERRUPTED_EXIT;
    }
    code
}

/// The ranges `fuzz` checks, for the same options.
fn check(a: &CalibrateArgs) -> Result<(), String> {
    if a.nodes_min == 0 || a.nodes_min > a.nodes_max {
        return Err(format!(
            "need 1 <= --nodes-min <= --nodes-max, got {} and {}",
            a.nodes_min, a.nodes_max
        ));
    }
    if a.nodes_max > MAX_NODES {
        return Err(format!(
            "--nodes-max = {} is above the limit of {MAX_NODES}",
            a.nodes_max
        ));
    }
    if !(10..=MAX_TIME_MS).contains(&a.active_ms) {
        return Err(format!(
            "--active-ms = {} is outside 10 ..= {MAX_TIME_MS}",
            a.active_ms
        ));
    }
    if a.within == 0 {
        return Err("--within must be at least 1".into());
    }
    check_jobs(a.jobs)
}

/// The table of a calibration: a row per strategy, then each campaign's seeds to find.
pub(crate) fn summary(results: &[StrategyResult], offsets: u64, within: u64) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let within_head = format!("found ≤ {within}");
    let _ = writeln!(
        s,
        "\n{:<9} {:>22} {:>9} {:>10} {:>14} {:>15}",
        "strategy", "failing seeds", "rate", "found", within_head, "median to find"
    );
    for r in results {
        let seeds = r.seeds();
        let rate = if seeds == 0 {
            "-".to_string()
        } else {
            format!("{:.3} %", 100.0 * r.failing() as f64 / seeds as f64)
        };
        let n = r.campaigns.len();
        let median = r.median().map_or("-".to_string(), |m| m.to_string());
        let _ = writeln!(
            s,
            "{:<9} {:>22} {:>9} {:>10} {:>14} {:>15}",
            r.strategy.name(),
            format!("{} of {seeds}", r.failing()),
            rate,
            format!("{} of {n}", r.found()),
            format!("{} of {n}", r.found_within(within)),
            median
        );
    }
    let _ = writeln!(s, "\nseeds to the first failure, per campaign (- : none):");
    for r in results {
        let list: Vec<String> = r
            .campaigns
            .iter()
            .map(|c| c.seeds_to_find.map_or("-".into(), |n| n.to_string()))
            .collect();
        let cut = if (r.campaigns.len() as u64) < offsets || r.campaigns.iter().any(|c| !c.complete)
        {
            " (interrupted)"
        } else {
            ""
        };
        let _ = writeln!(s, "  {:<8} {}{cut}", r.strategy.name(), list.join(" "));
    }
    let files: Vec<&PathBuf> = results
        .iter()
        .flat_map(|r| &r.campaigns)
        .filter_map(|c| c.first.as_ref().and_then(|(_, p)| p.as_ref()))
        .collect();
    if let Some(f) = files.first() {
        let _ = writeln!(
            s,
            "\n{} first failure(s) written, e.g. {} (replay: {} replay FILE; shrink: {} shrink FILE)",
            files.len(),
            f.display(),
            crate::program_name(),
            crate::program_name()
        );
    }
    s
}
