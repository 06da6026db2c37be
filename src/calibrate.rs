//! Calibration: how strong is the search on a bug you know is there?
//!
//! A campaign that finds nothing says "correct" or "the search never got there", and only the
//! search's power on a *planted* bug tells the two apart. [`calibrate`] fuzzes one target (a
//! buggy variant, a user's own included) in several campaigns of the same length at distant
//! `--seed-start` offsets, per strategy, and reports for each strategy the failing-seed rate
//! over every seed and the seeds each campaign needed to its first failure, with their median:
//! the measure issue 14 asks for, as one command (`sincro calibrate`).
//!
//! Every campaign is an ordinary campaign of `fuzz` with `keep_going` (the failing seeds are
//! counted, the smallest is written as a replayable file), so the figures are deterministic:
//! the same binary, target, strategy, offsets and seeds give the same counts.

use crate::fuzz::{CampaignOptions, FuzzConfig, Live, Target, TargetRun};
use sincro_harness::gen::Strategy;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// Campaigns per strategy, at most.
pub const OFFSETS_MAX: u64 = 1000;

/// What to calibrate: each strategy gets `offsets` campaigns of `cfg.seeds` seeds starting at
/// `cfg.seed_start`, `cfg.seed_start + stride`, `cfg.seed_start + 2·stride`, …
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The campaigns' settings (`seed_start` is the first offset's; `keep_going` is forced on,
    /// `strategy` and `coverage` are set per strategy).
    pub cfg: FuzzConfig,
    /// The strategies compared, in order.
    pub strategies: Vec<Strategy>,
    /// Campaigns per strategy (1 ..= [`OFFSETS_MAX`]).
    pub offsets: u64,
    /// Distance between two campaigns' first seeds (at least `cfg.seeds`, so no seed is run
    /// twice).
    pub stride: u64,
    /// When the whole calibration stops (`--time`): the campaign in flight ends there, cut
    /// short, and no other starts; `None`: every campaign runs whole.
    pub deadline: Option<std::time::Instant>,
}

impl Calibration {
    /// Why these settings cannot run (a clear message naming the value), or `None`.
    pub fn error(&self) -> Option<String> {
        if self.strategies.is_empty() {
            return Some("no strategy to calibrate".into());
        }
        if !(1..=OFFSETS_MAX).contains(&self.offsets) {
            return Some(format!(
                "--offsets = {} is outside 1 ..= {OFFSETS_MAX}",
                self.offsets
            ));
        }
        if self.cfg.seeds == 0 || self.cfg.seeds == crate::fuzz::UNBOUNDED {
            return Some(format!(
                "--seeds = {} is outside 1 ..= {}",
                self.cfg.seeds,
                crate::fuzz::UNBOUNDED - 1
            ));
        }
        // one campaign shares its seeds with no other, whatever the stride
        if self.offsets > 1 && self.stride < self.cfg.seeds {
            return Some(format!(
                "--stride = {} is below --seeds = {}: two campaigns would share seeds",
                self.stride, self.cfg.seeds
            ));
        }
        let last = (self.offsets - 1)
            .checked_mul(self.stride)
            .and_then(|d| self.cfg.seed_start.checked_add(d));
        match last {
            None => Some(format!(
                "--seed-start {} + ({} - 1) × --stride {} is past the last seed, 2^64 − 1",
                self.cfg.seed_start, self.offsets, self.stride
            )),
            Some(start) => crate::fuzz::seed_range_error(start, self.cfg.seeds)
                .map(|e| format!("the last campaign's seeds: {e}"))
                .or_else(|| self.cfg.error()),
        }
    }

    /// The first seed of campaign `k` (0-based).
    pub fn start_of(&self, k: u64) -> u64 {
        self.cfg.seed_start + k * self.stride
    }
}

/// One campaign of a calibration.
#[derive(Clone, Debug)]
pub struct CampaignResult {
    /// Its first seed.
    pub seed_start: u64,
    /// Seeds judged (all of them unless interrupted).
    pub seeds: u64,
    /// Failing seeds among them.
    pub failing: u64,
    /// Seeds up to and including the first failing one (`None`: no failure).
    pub seeds_to_find: Option<u64>,
    /// The first failure: its seed and the file it was written to (if it was).
    pub first: Option<(u64, Option<PathBuf>)>,
    /// Wall seconds of the campaign.
    pub wall_s: f64,
    /// Every seed of the campaign was judged (false when interrupted).
    pub complete: bool,
    /// A generated scenario the engine or the algorithm refused: the seed and why (bad input).
    pub bad_input: Option<(u64, String)>,
    /// Files that could not be written.
    pub write_errors: Vec<String>,
}

/// The campaigns of one strategy.
#[derive(Clone, Debug)]
pub struct StrategyResult {
    /// The strategy.
    pub strategy: Strategy,
    /// Its campaigns, in offset order (fewer than asked when interrupted).
    pub campaigns: Vec<CampaignResult>,
}

impl StrategyResult {
    /// Seeds judged over every campaign.
    pub fn seeds(&self) -> u64 {
        self.campaigns.iter().map(|c| c.seeds).sum()
    }

    /// Failing seeds over every campaign.
    pub fn failing(&self) -> u64 {
        self.campaigns.iter().map(|c| c.failing).sum()
    }

    /// Campaigns that found the bug.
    pub fn found(&self) -> usize {
        self.campaigns
            .iter()
            .filter(|c| c.seeds_to_find.is_some())
            .count()
    }

    /// Campaigns that found it within `n` seeds.
    pub fn found_within(&self, n: u64) -> usize {
        self.campaigns
            .iter()
            .filter(|c| c.seeds_to_find.is_some_and(|s| s <= n))
            .count()
    }

    /// The median of the seeds to the first failure, a campaign that found nothing counting
    /// as more than its seeds: `Some(Median::Seeds(m))`, or `Some(Median::Beyond(n))` when
    /// half the campaigns or more found nothing within `n` seeds; `None` with no campaign.
    pub fn median(&self) -> Option<Median> {
        self.median_of(self.campaigns.len())
    }

    /// [`Self::median`] over the `asked` campaigns a calibration asked for: one not run, or
    /// interrupted before it found the bug, is unknown (an interrupted calibration's median
    /// was taken over the campaigns it ran: "found 1 of 5", median 90). `Some` only when
    /// every outcome of the unknown ones gives the same median.
    pub fn median_of(&self, asked: usize) -> Option<Median> {
        // known: a campaign that ran every seed, or found the bug before it stopped
        let known: Vec<&CampaignResult> = self
            .campaigns
            .iter()
            .filter(|c| c.complete || c.seeds_to_find.is_some())
            .collect();
        let unknown = asked.saturating_sub(known.len());
        let beyond = known
            .iter()
            .filter(|c| c.seeds_to_find.is_none())
            .map(|c| c.seeds)
            .min();
        let finds = known.iter().map(|c| c.seeds_to_find);
        // every unknown one a find at its first seed, or every one a miss
        let lower = median_of(finds.clone().chain((0..unknown).map(|_| Some(1))), beyond);
        let upper = median_of(finds.chain((0..unknown).map(|_| None)), beyond);
        (lower == upper).then_some(lower).flatten()
    }
}

/// The median of seeds to the first failure (`None`: a miss, more than `beyond` seeds), a
/// miss sorting after every find; `None` with no value.
fn median_of(values: impl Iterator<Item = Option<u64>>, beyond: Option<u64>) -> Option<Median> {
    // u64::MAX stands for "more than its seeds"
    let mut v: Vec<u64> = values.map(|f| f.unwrap_or(u64::MAX)).collect();
    let n = v.len();
    if n == 0 {
        return None;
    }
    v.sort_unstable();
    let (lo, hi) = (v[(n - 1) / 2], v[n / 2]);
    if hi == u64::MAX {
        return Some(Median::Beyond(beyond.unwrap_or(0)));
    }
    // Both middle values are finds: their mean, rounded half up.
    Some(Median::Seeds(lo + (hi - lo).div_ceil(2)))
}

/// A median of seeds to the first failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Median {
    /// This many seeds.
    Seeds(u64),
    /// More than this many: at least half the campaigns found nothing in their seeds.
    Beyond(u64),
}

impl std::fmt::Display for Median {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Median::Seeds(n) => write!(f, "{n}"),
            Median::Beyond(n) => write!(f, "> {n}"),
        }
    }
}

/// Runs the calibration of `target` (see the [module](self) documentation); `stop` ends it
/// early (the campaigns done are returned, the one running is cut and kept with the seeds it
/// judged); `live` counts the runs as they go (its current target names the strategy and the
/// campaign, for a progress display polling it from another thread); `progress` is told each
/// campaign's result as it ends. Settings out of range ([`Calibration::error`]) are refused
/// before any seed runs: the last campaign's first seed would wrap past `u64::MAX`.
pub fn calibrate(
    target: &Target,
    cal: &Calibration,
    stop: &AtomicBool,
    live: &Live,
    progress: &dyn Fn(Strategy, u64, &CampaignResult),
) -> Result<Vec<StrategyResult>, String> {
    if let Some(e) = cal.error() {
        return Err(e);
    }
    let mut out = Vec::new();
    for &strategy in &cal.strategies {
        let mut res = StrategyResult {
            strategy,
            campaigns: Vec::new(),
        };
        for k in 0..cal.offsets {
            let out_of_time = cal.deadline.is_some_and(|d| std::time::Instant::now() >= d);
            if stop.load(Ordering::Relaxed) || out_of_time {
                break;
            }
            let mut cfg = cal.cfg.clone();
            cfg.seed_start = cal.start_of(k);
            cfg.keep_going = true;
            cfg.gen.strategy = strategy;
            // Guidance is part of the default search; `random` is Sincro's plain generator.
            cfg.coverage = cal.cfg.coverage && strategy != Strategy::Random;
            // Each strategy's files apart: two strategies run the same seeds.
            let opts = CampaignOptions {
                file_tag: Some(strategy.name().to_string()),
                ..CampaignOptions::default()
            };
            let mut run = TargetRun::new(target, &cfg, &opts);
            *live.current.lock().expect("no poisoning") = Some((
                format!(
                    "{} [{} {}/{}]",
                    target.name(),
                    strategy.name(),
                    k + 1,
                    cal.offsets
                ),
                cfg.seeds,
            ));
            live.target_runs.store(0, Ordering::Relaxed);
            run.run(stop, cal.deadline, live, &|_| {});
            let report = run.report();
            let c = CampaignResult {
                seed_start: cfg.seed_start,
                seeds: report.runs,
                failing: report.failures,
                seeds_to_find: report.seeds_to_find,
                first: report.first.as_ref().map(|f| (f.seed, f.path.clone())),
                wall_s: report.wall_s,
                complete: report.complete,
                bad_input: report.bad_input.clone(),
                write_errors: report.write_errors.clone(),
            };
            progress(strategy, k, &c);
            let refused = c.bad_input.is_some();
            res.campaigns.push(c);
            if refused {
                // Bad input: every other campaign of this target would be refused too.
                out.push(res);
                return Ok(out);
            }
        }
        out.push(res);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaign(seeds: u64, found: Option<u64>) -> CampaignResult {
        CampaignResult {
            seed_start: 0,
            seeds,
            failing: u64::from(found.is_some()),
            seeds_to_find: found,
            first: None,
            wall_s: 0.0,
            complete: true,
            bad_input: None,
            write_errors: Vec::new(),
        }
    }

    fn result(c: Vec<CampaignResult>) -> StrategyResult {
        StrategyResult {
            strategy: Strategy::Mix,
            campaigns: c,
        }
    }

    /// A stride below the seeds of a campaign makes campaigns share seeds, which one campaign
    /// cannot: `--offsets 1 --seeds 2000000` was refused for a stride it never uses.
    #[test]
    fn one_campaign_takes_any_stride() {
        let cal = |offsets| Calibration {
            deadline: None,
            cfg: FuzzConfig {
                seeds: 2_000_000,
                ..FuzzConfig::default()
            },
            strategies: vec![Strategy::Mix],
            offsets,
            stride: 1_000_000,
        };
        assert_eq!(cal(1).error(), None);
        let e = cal(2).error().expect("two campaigns would overlap");
        assert!(e.contains("two campaigns would share seeds"), "{e}");
    }

    #[test]
    fn the_median_counts_a_miss_as_more_than_its_seeds() {
        let r = result(vec![
            campaign(100, Some(7)),
            campaign(100, None),
            campaign(100, Some(3)),
        ]);
        assert_eq!(r.median(), Some(Median::Seeds(7)));
        assert_eq!(
            (r.found(), r.found_within(5), r.failing(), r.seeds()),
            (2, 1, 2, 300)
        );
        let even = result(vec![campaign(100, Some(4)), campaign(100, Some(9))]);
        assert_eq!(
            even.median(),
            Some(Median::Seeds(7)),
            "the mean, rounded up"
        );
        let half = result(vec![campaign(100, Some(4)), campaign(100, None)]);
        assert_eq!(half.median(), Some(Median::Beyond(100)));
        assert_eq!(half.median().unwrap().to_string(), "> 100");
        assert_eq!(result(vec![]).median(), None);
    }

    /// An interrupted calibration's median is over the campaigns asked for: one not run (or
    /// cut before it found the bug) may have found it at once or never, so the median is
    /// known only when both give the same.
    #[test]
    fn an_interrupted_calibration_states_a_median_only_when_it_is_known() {
        let one = result(vec![campaign(100, Some(90))]);
        assert_eq!(one.median(), Some(Median::Seeds(90)));
        assert_eq!(one.median_of(5), None, "1 of 5 ran: unknown");
        let three = result(vec![
            campaign(100, Some(10)),
            campaign(100, Some(20)),
            campaign(100, Some(30)),
        ]);
        assert_eq!(three.median_of(4), None);
        let misses = result(vec![
            campaign(100, None),
            campaign(100, None),
            campaign(100, None),
        ]);
        assert_eq!(
            misses.median_of(4),
            Some(Median::Beyond(100)),
            "3 misses of 4"
        );
        let mut cut = campaign(40, None);
        cut.complete = false;
        let with_cut = result(vec![campaign(100, Some(5)), cut]);
        assert_eq!(with_cut.median_of(2), None, "the cut campaign is unknown");
    }

    #[test]
    fn settings_out_of_range_are_named() {
        let cal = |offsets, stride, seeds, start| Calibration {
            deadline: None,
            cfg: FuzzConfig {
                seeds,
                seed_start: start,
                ..FuzzConfig::default()
            },
            strategies: vec![Strategy::Mix],
            offsets,
            stride,
        };
        assert_eq!(cal(20, 1_000_000, 2000, 0).error(), None);
        assert!(cal(0, 1_000_000, 2000, 0)
            .error()
            .unwrap()
            .contains("--offsets"));
        assert!(cal(20, 1000, 2000, 0).error().unwrap().contains("--stride"));
        assert!(cal(20, 1_000_000, 0, 0)
            .error()
            .unwrap()
            .contains("--seeds"));
        let past = cal(3, u64::MAX / 2, 10, 0).error().unwrap();
        assert!(past.contains("past the last seed"), "{past}");
        let end = cal(2, 1000, 1000, u64::MAX - 1500).error().unwrap();
        assert!(end.contains("last campaign"), "{end}");
        let mut none = cal(2, 1000, 1000, 0);
        none.strategies.clear();
        assert!(none.error().is_some());
        // The campaign's own limits too (the flags are checked by the CLI first).
        let mut many = cal(2, 1000, 1000, 0);
        many.cfg.jobs = 100_000;
        assert!(many.error().unwrap().contains("jobs = 100000"));
        // A library caller gets the refusal, not a campaign whose seeds wrap past u64::MAX.
        let algorithm = crate::algorithms::select("mutex.centralized")
            .expect("a built-in")
            .remove(0);
        let target = Target {
            algorithm,
            variant: algorithm.info().variants.remove(0),
        };
        let refused = calibrate(
            &target,
            &cal(3, u64::MAX / 2, 10, 0),
            &AtomicBool::new(false),
            &Live::default(),
            &|_, _, _| {},
        );
        assert!(refused.unwrap_err().contains("past the last seed"));
    }
}
