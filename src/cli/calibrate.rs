//! `sincro calibrate`: how strong is the search on one buggy variant (a user's own included)?
//! Several campaigns of the same length at distant seed offsets, per strategy: the
//! failing-seed rate and the seeds each campaign needed to its first failure, with their
//! median ([`crate::calibrate`]).

use super::{
    bad_input, check_jobs, interrupt_flag, monitor, note_nodes_raised, prepare_out_dir, targets,
    ScenarioArgs, StrategyArg,
};
use crate::calibrate::{calibrate, Calibration, CampaignResult, Median, StrategyResult};
use crate::exit;
use crate::fuzz::{FuzzConfig, Live, Target};
use crate::harness::gen::{GenOptions, Strategy};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Options of `sincro calibrate`.
#[derive(clap::Args)]
pub(super) struct CalibrateArgs {
    /// Algorithms: `all`, a name, a family glob (`election.*`), or a comma list of these; `!`
    /// excludes (as in `fuzz`).
    #[arg(long, short, default_value = "all")]
    algorithm: String,
    /// The variant to calibrate on; `buggy`: every buggy variant of the algorithms; `all`:
    /// every variant, the correct ones too (a correct variant gives 0 failing seeds, or shows
    /// a false alarm).
    #[arg(long, default_value = "buggy")]
    variant: String,
    /// Strategies to compare (comma-separated), each with its own campaigns.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "mix,random")]
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
    /// seeds, at most --seeds: a campaign runs no further [default: 1000, or --seeds when
    /// fewer]
    #[arg(long)]
    within: Option<u64>,
    /// Wall-clock budget for the whole calibration, e.g. 90s, 10m: the campaign in flight
    /// ends there, cut short, and no other starts; the figures count only what ran, and say
    /// so (exit 0). Without it every campaign runs whole.
    #[arg(long, value_name = "DURATION", value_parser = crate::fuzz::parse_duration)]
    time: Option<std::time::Duration>,
    /// Worker threads, 1 to 256 (0 is taken as 1).
    #[arg(long, short, default_value_t = 1)]
    jobs: usize,
    #[command(flatten)]
    scenarios: ScenarioArgs,
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
    // The signal handlers first, before any output is made: a signal in the first
    // milliseconds killed the process (no exit 130, an empty --out left behind, stop 73's
    // probe); caught now, it stops the campaign before it starts.
    let _ = interrupt_flag();
    if let Err(e) = check(a) {
        return bad_input(e);
    }
    let selected = match a.variant.as_str() {
        "buggy" => targets(&a.algorithm, "all").map(|t| {
            t.into_iter()
                .filter(|t| t.variant.buggy)
                .collect::<Vec<Target>>()
        }),
        v => targets(&a.algorithm, v),
    };
    let targets = match selected {
        Ok(t) if t.is_empty() => {
            return bad_input(format!(
                "`{}` has no buggy variant to calibrate on",
                a.algorithm
            ))
        }
        Ok(t) => t,
        Err(e) => return bad_input(e),
    };
    if let Some(s) = a
        .strategy
        .iter()
        .enumerate()
        .find(|(i, s)| a.strategy[..*i].contains(s))
        .map(|(_, s)| *s)
    {
        let name: crate::harness::gen::Strategy = s.into();
        return bad_input(format!(
            "--strategy names {} twice: its campaigns would run twice and count as another \
             strategy's",
            name.name()
        ));
    }
    let cal = Calibration {
        cfg: FuzzConfig {
            seed_start: a.seed_start,
            seeds: a.seeds,
            jobs: a.jobs.max(1),
            keep_going: true,
            check_determinism: false,
            gen: a.scenarios.gen(GenOptions::default()),
            out_dir: a.out.clone(),
            max_files: 1,
            coverage: !a.no_coverage,
        },
        strategies: a.strategy.iter().map(|&s| s.into()).collect(),
        offsets: a.offsets,
        stride: a.stride,
        // (a budget past the clock's range is no budget)
        deadline: a.time.and_then(|t| Instant::now().checked_add(t)),
    };
    let out_of_time = || cal.deadline.is_some_and(|d| Instant::now() >= d);
    // Why campaigns asked for did not run, or ran short.
    let cut = || {
        if out_of_time() && !interrupt_flag().load(Ordering::Relaxed) {
            "out of time"
        } else {
            "interrupted"
        }
    };
    if let Some(e) = cal.error() {
        return bad_input(e);
    }
    if let Err(e) = prepare_out_dir(&a.out) {
        return bad_input(format!("--out: {e}"));
    }
    note_nodes_raised(&targets, &cal.cfg.gen);
    println!(
        "calibration of {} target(s): {} campaign(s) of {} seeds per strategy, starting at seed {} and every {} seeds after",
        targets.len(),
        a.offsets,
        a.seeds,
        a.seed_start,
        a.stride
    );
    let stop = interrupt_flag();
    let started = Instant::now();
    let live = Live::default();
    let mut code = exit::PASS;
    let mut done = Vec::new();
    for target in &targets {
        if stop.load(Ordering::Relaxed) || out_of_time() {
            break;
        }
        let name = target.name();
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
                "[{:>5} s] {name} {} {}/{} (seeds {}..): {} failing of {}, {found}",
                started.elapsed().as_secs(),
                s.name(),
                k + 1,
                a.offsets,
                c.seed_start,
                c.failing,
                c.seeds
            );
        };
        let results = std::thread::scope(|s| {
            let h = s.spawn(|| calibrate(target, &cal, stop, &live, &progress));
            monitor(&live, started, None, a.quiet, &|| h.is_finished());
            h.join().expect("the calibration thread does not panic")
        });
        // The settings were checked above, with the flags' names; this is the library's check.
        let results = match results {
            Ok(r) => r,
            Err(e) => return bad_input(e),
        };
        let buggy = if target.variant.buggy { " [bug]" } else { "" };
        print!(
            "\n{name}{buggy}\n{}",
            summary(&results, a.offsets, within(a), cut())
        );
        if results.len() > 1 && !target.algorithm.strategies_apply() {
            let mut note = same_search_note(target.algorithm.info().name);
            if !a.no_coverage {
                // Guidance mutates the scenarios it kept for every strategy but `random`: the
                // note said the rows were one measurement while they read 58, 65 and 65.
                note.push_str(
                    " (only coverage guidance, which `random` does not use, makes the others \
                     differ; --no-coverage makes every row the same)",
                );
            }
            println!("{note}");
        }
        for c in results.iter().flat_map(|r| &r.campaigns) {
            if let Some((seed, msg)) = &c.bad_input {
                eprintln!(
                    "error: {name} seed {seed}: the engine refused the generated scenario: {msg}"
                );
                code = exit::BAD_INPUT;
            }
            for e in &c.write_errors {
                eprintln!("error: {}", super::for_program(&e.to_string()));
                code = exit::BAD_INPUT;
            }
        }
        done.push(results);
        if code != exit::PASS {
            // Bad input: stop here, as `fuzz` does.
            break;
        }
    }
    let buggy: Vec<bool> = targets.iter().map(|t| t.variant.buggy).collect();
    print!("{}", closing(&done, &buggy, within(a), a.offsets, cut()));
    // (a budget that ran out as the last campaign ended cut nothing)
    let short = done.len() < targets.len()
        || done.iter().flatten().any(|r| {
            r.campaigns.len() as u64 != a.offsets || r.campaigns.iter().any(|c| !c.complete)
        });
    if code == exit::PASS && !stop.load(Ordering::Relaxed) && out_of_time() && short {
        if let Some(t) = a.time {
            println!(
                "time budget reached ({}): the figures above count only the campaigns that ran",
                humantime::format_duration(t)
            );
        }
        return code;
    }
    if code == exit::PASS && stop.load(Ordering::Relaxed) {
        // Said where the figures are, as `fuzz` and `matrix` say it (only stderr named it).
        println!(
            "interrupted ({}): the figures above count only the campaigns that ran",
            crate::stop::cause()
        );
        return crate::fuzz::INTERRUPTED_EXIT;
    }
    code
}

/// Said under the rows of an algorithm no strategy shapes: they are one measurement.
pub(crate) fn same_search_note(algorithm: &str) -> String {
    format!(
        "note: {algorithm} has no message schedule and no fault plan for a strategy to shape \
         (a shared-memory model): every strategy generates the same scenarios, so its rows \
         are one measurement, not a comparison"
    )
}

/// The closing lines: how many targets were found in every campaign, and within `within`
/// seeds at the median; where the first failures are, and how to replay them.
///
/// `buggy` says, for each target in order, whether it is a buggy variant: only those count
/// as found or missed; a correct one that failed is said apart (stop 72's probe: `--variant
/// all` counted the correct variant as a bug not found).
fn closing(
    done: &[Vec<StrategyResult>],
    buggy: &[bool],
    within: u64,
    offsets: u64,
    cut: &str,
) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let asked = buggy.iter().filter(|&&b| b).count();
    let all = done.iter().flatten();
    let files = all
        .clone()
        .flat_map(|r| &r.campaigns)
        .filter_map(|c| c.first.as_ref().and_then(|(_, p)| p.as_ref()))
        .collect::<Vec<&PathBuf>>();
    if let Some(f) = files.first() {
        let p = crate::program_name();
        let _ = writeln!(
            s,
            "\n{} first failure(s) written, e.g. {} (replay: {p} replay FILE; shrink: {p} shrink FILE)",
            files.len(),
            f.display()
        );
    }
    for (k, strategy) in done
        .first()
        .into_iter()
        .flatten()
        .map(|r| r.strategy)
        .enumerate()
    {
        let ran: Vec<&StrategyResult> = done.iter().filter_map(|t| t.get(k)).collect();
        if ran.iter().all(|r| r.campaigns.is_empty()) {
            // Interrupted before it ran: "0 of 1 found" read as a measured miss.
            let _ = writeln!(
                s,
                "{}: not run (stopped before its first campaign)",
                strategy.name()
            );
            continue;
        }
        let of_kind = |want_buggy: bool| {
            done.iter()
                .zip(buggy)
                .filter(move |(_, &b)| b == want_buggy)
                .filter_map(move |(t, _)| t.get(k))
        };
        let correct = of_kind(false).count();
        let false_alarms = of_kind(false).filter(|r| r.failing() > 0).count();
        if correct > 0 && false_alarms == 0 {
            let _ = writeln!(
                s,
                "{}: no failure of the {correct} correct target(s)",
                strategy.name()
            );
        } else if false_alarms > 0 {
            let _ = writeln!(
                s,
                "{}: ⚠ {false_alarms} correct target(s) failed: a bug in the variant or a \
                 scenario outside its model (replay the first failure file)",
                strategy.name()
            );
        }
        if asked == 0 {
            continue;
        }
        let rows: Vec<&StrategyResult> = of_kind(true).collect();
        // every campaign asked for ran (an interrupted calibration runs fewer) and found it
        let every = rows
            .iter()
            .filter(|r| r.campaigns.len() as u64 == offsets && r.found() == r.campaigns.len())
            .count();
        // found, but its failure file is lost (the campaign stopped there)
        let lost = ran
            .iter()
            .filter(|r| r.campaigns.iter().any(|c| !c.write_errors.is_empty()))
            .count();
        let median_within = rows
            .iter()
            .filter(
                |r| matches!(r.median_of(offsets as usize), Some(Median::Seeds(m)) if m <= within),
            )
            .count();
        // An interrupt can leave a median unknown (`?` in the table): not a measured miss.
        let unknown = rows
            .iter()
            .filter(|r| r.median_of(offsets as usize).is_none())
            .count();
        let _ = writeln!(
            s,
            "{}: {every} of {asked} buggy target(s) found in every campaign, {median_within} at a median within {within} seeds{}{}",
            strategy.name(),
            match unknown {
                0 => String::new(),
                k => format!(" ({k} with a median not known: {cut})"),
            },
            match lost {
                0 => String::new(),
                k => format!("; {k} with a failure file not written (its campaign stopped there)"),
            }
        );
    }
    s
}

/// What "found within" counts up to: `--within`, but no further than a campaign's seeds (stop
/// 64: `--seeds 60` said "found ≤ 1000: 1 of 3" of campaigns that never ran seed 61, where
/// campaigns of 1000 seeds found it in 3 of 3).
fn within(a: &CalibrateArgs) -> u64 {
    a.within.unwrap_or(1000).min(a.seeds)
}

/// The ranges `fuzz` checks, for the same options.
fn check(a: &CalibrateArgs) -> Result<(), String> {
    a.scenarios.check()?;
    match a.within {
        Some(0) => return Err("--within must be at least 1".into()),
        // Said, not cut to --seeds in silence (stop 65's probe: `--within 50` of 10 seeds
        // printed "found ≤ 10").
        Some(w) if w > a.seeds => {
            return Err(format!(
                "--within {w} is more than --seeds {}: a campaign runs no further, so it \
                 cannot tell whether the bug is found within {w} seeds (give at most --seeds)",
                a.seeds
            ))
        }
        _ => {}
    }
    check_jobs(a.jobs)
}

/// The table of a calibration: a row per strategy, then each campaign's seeds to find; `cut`
/// says why campaigns asked for did not run or ran short (`interrupted`, `out of time`).
pub(crate) fn summary(results: &[StrategyResult], offsets: u64, within: u64, cut: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let within_head = format!("found ≤ {within}");
    let _ = writeln!(
        s,
        "{:<9} {:>22} {:>9} {:>10} {:>14} {:>15}",
        "strategy", "failing seeds", "rate", "found", within_head, "median to find"
    );
    for r in results {
        let seeds = r.seeds();
        let rate = if seeds == 0 {
            "-".to_string()
        } else {
            format!("{:.3} %", 100.0 * r.failing() as f64 / seeds as f64)
        };
        // out of the campaigns asked for: an interrupted calibration ran fewer
        let n = offsets;
        // unknown when campaigns asked for did not run (interrupted): "?"
        let median = match r.median_of(n as usize) {
            Some(m) => m.to_string(),
            None if r.campaigns.is_empty() && n == 0 => "-".to_string(),
            None => "?".to_string(),
        };
        if r.campaigns.is_empty() && n > 0 {
            // No campaign of it ran: no figure to give (it read "0 of 0 … 0 of 5").
            let _ = writeln!(s, "{:<9} not run ({cut})", r.strategy.name());
            continue;
        }
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
    let _ = writeln!(s, "seeds to the first failure, per campaign (- : none):");
    for r in results {
        let list: Vec<String> = r
            .campaigns
            .iter()
            .map(|c| c.seeds_to_find.map_or("-".into(), |n| n.to_string()))
            .collect();
        // A campaign stops early at a Ctrl-C, or at a failure file it could not write.
        let stopped = if r.campaigns.iter().any(|c| !c.write_errors.is_empty()) {
            " (stopped: a failure file could not be written)".to_string()
        } else if (r.campaigns.len() as u64) < offsets || r.campaigns.iter().any(|c| !c.complete) {
            format!(" ({cut})")
        } else {
            String::new()
        };
        if r.campaigns.is_empty() && offsets > 0 {
            let _ = writeln!(s, "  {:<8} not run ({cut})", r.strategy.name());
            continue;
        }
        let _ = writeln!(s, "  {:<8} {}{stopped}", r.strategy.name(), list.join(" "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::CampaignResult;

    /// Interrupted after one of three campaigns: the bug was not found "in every campaign",
    /// and the table counts out of the three asked for.
    #[test]
    fn an_interrupted_calibration_claims_nothing_of_the_campaigns_it_did_not_run() {
        let one = StrategyResult {
            strategy: Strategy::Mix,
            campaigns: vec![CampaignResult {
                seed_start: 0,
                seeds: 2000,
                failing: 1,
                seeds_to_find: Some(5),
                first: None,
                wall_s: 0.0,
                complete: false,
                bad_input: None,
                write_errors: Vec::new(),
            }],
        };
        let text = closing(&[vec![one.clone()]], &[true], 1000, 3, "interrupted");
        assert!(
            text.contains("mix: 0 of 1 buggy target(s) found in every campaign"),
            "{text}"
        );
        let table = summary(std::slice::from_ref(&one), 3, 1000, "interrupted");
        assert!(table.contains("1 of 3"), "{table}");
        assert!(table.contains("(interrupted)"), "{table}");
        // a strategy none of whose campaigns ran has no figures, not "0 of 0"
        let none = StrategyResult {
            strategy: Strategy::Random,
            campaigns: Vec::new(),
        };
        let table = summary(&[one.clone(), none.clone()], 3, 1000, "interrupted");
        assert!(
            table.contains("random    not run (interrupted)")
                && table.contains("  random   not run (interrupted)")
                && !table.contains("0 of 0"),
            "{table}"
        );
        // nor a closing line that reads as a measured miss
        let text = closing(&[vec![one.clone(), none]], &[true], 1000, 3, "interrupted");
        assert!(
            text.contains("random: not run (stopped before its first campaign)")
                && !text.contains("random: 0 of 1"),
            "{text}"
        );
        // all three ran and found it
        let all = StrategyResult {
            campaigns: vec![one.campaigns[0].clone(); 3],
            ..one
        };
        assert!(closing(&[vec![all]], &[true], 1000, 3, "interrupted")
            .contains("mix: 1 of 1 buggy target(s) found"));
    }

    /// `--variant all`: a correct variant is neither a bug found nor one missed; one that
    /// failed is said apart, loudly (the line counted it as a bug not found, stop 72's probe).
    #[test]
    fn a_correct_target_is_no_bug_missed_and_its_failure_is_said_apart() {
        let campaign = |failing: u64| CampaignResult {
            seed_start: 0,
            seeds: 20,
            failing,
            seeds_to_find: (failing > 0).then_some(4),
            first: None,
            wall_s: 0.0,
            complete: true,
            bad_input: None,
            write_errors: Vec::new(),
        };
        let of = |failing: u64| StrategyResult {
            strategy: Strategy::Mix,
            campaigns: vec![campaign(failing); 2],
        };
        // the correct target first, then the buggy one
        let text = closing(
            &[vec![of(0)], vec![of(3)]],
            &[false, true],
            1000,
            2,
            "interrupted",
        );
        assert!(
            text.contains("mix: 1 of 1 buggy target(s) found in every campaign")
                && text.contains("mix: no failure of the 1 correct target(s)")
                && !text.contains("correct target(s) failed"),
            "{text}"
        );
        let text = closing(
            &[vec![of(2)], vec![of(3)]],
            &[false, true],
            1000,
            2,
            "interrupted",
        );
        assert!(
            text.contains("mix: ⚠ 1 correct target(s) failed")
                && text.contains("mix: 1 of 1 buggy target(s) found in every campaign"),
            "{text}"
        );
        // only correct targets: no line about bugs
        let text = closing(&[vec![of(0)]], &[false], 1000, 2, "interrupted");
        assert!(!text.contains("buggy target"), "{text}");
        assert!(
            text.contains("mix: no failure of the 1 correct target(s)"),
            "{text}"
        );
    }

    /// A campaign stopped by a failure file it could not write was labelled "interrupted"
    /// with no signal sent, and the closing line did not say a file was lost.
    #[test]
    fn a_campaign_stopped_by_a_write_error_says_so_and_its_lost_file() {
        let lost = StrategyResult {
            strategy: Strategy::Mix,
            campaigns: vec![CampaignResult {
                seed_start: 0,
                seeds: 5,
                failing: 1,
                seeds_to_find: Some(3),
                first: None,
                wall_s: 0.0,
                complete: false,
                bad_input: None,
                write_errors: vec!["cannot write x.json: Is a directory".into()],
            }],
        };
        let table = summary(std::slice::from_ref(&lost), 1, 1000, "interrupted");
        assert!(
            table.contains("(stopped: a failure file could not be written)"),
            "{table}"
        );
        assert!(!table.contains("(interrupted)"), "{table}");
        // It was found (the table says so too); its file is lost, and the line says that.
        let text = closing(&[vec![lost]], &[true], 1000, 1, "interrupted");
        assert!(
            text.contains("mix: 1 of 1 buggy target(s) found in every campaign")
                && text.contains("1 with a failure file not written"),
            "{text}"
        );
    }
}
