//! `sincro table shrink`: what keeping the failing run's schedule gains the shrinker.
//!
//! For every buggy variant of the selection, the first [`FAILURES`] failing seeds of the
//! default mix among `0..N` (a failure as a campaign counts it: a violation the correct
//! variant does not share) are each shrunk twice, with the shrinker's default cap of candidate
//! runs and [`SHRINK_TIME`] at most:
//! - *delays redrawn*: every candidate's delays drawn again from the seed
//!   ([`ShrinkOptions::keep_schedule`] off), as every shrink did before stop 48: removing an
//!   input or a fault moved every later message, so the interleaving the bug needed was lost;
//! - *schedule kept*: as `sincro fuzz` and `sincro shrink` do it, the failing run's schedule
//!   pinned (each surviving message keeps its delay), the smaller of that and the redrawn
//!   search, then shrunk again with its own schedule until a round finds nothing smaller.
//!
//! Each row gives the mean faults, inputs, nodes and messages sent of the generated failures
//! and of each shrunk form, and for how many failures the kept schedule ended smaller, the
//! same or larger (by faults + inputs + nodes, then messages sent).

use super::TableArgs;
use crate::algorithms::Algorithm;
use crate::fuzz::{shared_by_correct, shrink_scenario};
use crate::harness::gen::{GenOptions, Strategy};
use crate::harness::shrink::{ScenarioSize, ShrinkOptions};
use crate::harness::{RunOptions, Scenario, Verdict};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failing seeds shrunk per buggy variant.
pub const FAILURES: usize = 5;
/// Default seeds searched per buggy variant for its failures.
pub const SEEDS_DEFAULT: u64 = 2_000;
/// Most seeds searched per buggy variant.
pub const SEEDS_MAX: u64 = 1_000_000;
/// Longest one shrink may take (`sincro fuzz --shrink-time`'s default).
pub const SHRINK_TIME: Duration = Duration::from_secs(60);

/// The size of a failing scenario: faults, inputs, nodes, and messages its run sends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Size {
    /// Entries of the fault plan.
    pub faults: u64,
    /// Workload inputs.
    pub inputs: u64,
    /// Nodes.
    pub nodes: u64,
    /// Messages its run sends.
    pub sent: u64,
}

impl Size {
    /// The size of `sc`, run once to count its messages.
    pub fn of(alg: &dyn Algorithm, sc: &Scenario) -> Self {
        let z = ScenarioSize::of(sc);
        let sent = alg
            .run(sc, RunOptions::new(false))
            .map_or(0, |o| o.stats.sent);
        Size {
            faults: z.faults as u64,
            inputs: z.inputs as u64,
            nodes: z.nodes as u64,
            sent,
        }
    }

    /// The order the comparison column uses: faults + inputs + nodes, then messages.
    fn key(&self) -> (u64, u64) {
        (self.faults + self.inputs + self.nodes, self.sent)
    }
}

/// The means of `sizes` as `faults/inputs/nodes/messages`, one decimal each.
pub fn mean_text(sizes: &[Size]) -> String {
    if sizes.is_empty() {
        return "-".into();
    }
    let n = sizes.len() as f64;
    let mean = |f: fn(&Size) -> u64| sizes.iter().map(f).sum::<u64>() as f64 / n;
    format!(
        "{:.1}/{:.1}/{:.1}/{:.1}",
        mean(|s| s.faults),
        mean(|s| s.inputs),
        mean(|s| s.nodes),
        mean(|s| s.sent)
    )
}

/// The generator of `sincro fuzz`'s seeds: the default mix, each seed's phase from the swarm.
fn fuzz_gen() -> GenOptions {
    GenOptions {
        strategy: Strategy::Mix,
        phase_swarm: true,
        ..GenOptions::default()
    }
}

/// The label of `sc`'s failure as a campaign counts one (a violation the correct variant
/// does not share), or `None`.
fn failure(alg: &dyn Algorithm, sc: &Scenario) -> Option<String> {
    let out = alg.run(sc, RunOptions::new(false)).ok()?;
    let label = out.verdict.label();
    (matches!(out.verdict, Verdict::Violation(_)) && !shared_by_correct(alg, sc, &label))
        .then_some(label)
}

/// The first `want` failing seeds of `variant` among `0..seeds`, in order, run on `jobs`
/// threads. Seeds are taken in order and every seed taken is run, so the answer does not
/// depend on `jobs`.
pub fn first_failing(
    alg: &dyn Algorithm,
    variant: &str,
    want: usize,
    seeds: u64,
    jobs: usize,
) -> Vec<u64> {
    let next = std::sync::atomic::AtomicU64::new(0);
    let found = Mutex::new(Vec::new());
    let gen = fuzz_gen();
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                if found.lock().expect("no worker panics").len() >= want {
                    break;
                }
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed >= seeds {
                    break;
                }
                let sc = alg.generate(variant, seed, &gen);
                if failure(alg, &sc).is_some() {
                    found.lock().expect("no worker panics").push(seed);
                }
                super::progress::tick();
            });
        }
    });
    let mut found = found.into_inner().expect("no worker panics");
    found.sort_unstable();
    found.truncate(want);
    found
}

/// One failure shrunk one way.
#[derive(Clone, Copy, Debug)]
pub struct Shrunk {
    /// Its size once shrunk.
    pub size: Size,
    /// The shrinker verified the result (false: the original came back).
    pub verified: bool,
    /// [`SHRINK_TIME`] cut it short.
    pub cut: bool,
}

/// Shrinks seed `seed`'s failure of `variant`, keeping the failing run's schedule or not.
pub fn shrink_seed(alg: &dyn Algorithm, variant: &str, seed: u64, keep_schedule: bool) -> Shrunk {
    let sc = alg.generate(variant, seed, &fuzz_gen());
    let Some(label) = failure(alg, &sc) else {
        return Shrunk {
            size: Size::of(alg, &sc),
            verified: false,
            cut: false,
        };
    };
    let opts = ShrinkOptions {
        keep_schedule,
        ..ShrinkOptions::default()
    };
    let deadline = Instant::now() + SHRINK_TIME;
    let out = shrink_scenario(
        alg,
        &sc,
        &label,
        &opts,
        &mut || Instant::now() >= deadline,
        None,
        Some(deadline),
    );
    Shrunk {
        size: Size::of(alg, &out.scenario),
        verified: out.verified,
        cut: out.interrupted,
    }
}

/// The row of one variant: the generated sizes and both shrunk forms of each failure.
struct Row {
    generated: Vec<Size>,
    redrawn: Vec<Shrunk>,
    kept: Vec<Shrunk>,
}

/// Measures one variant: its first failures, each shrunk both ways on `jobs` threads.
fn measure(alg: &dyn Algorithm, variant: &str, seeds: u64, jobs: usize) -> (Vec<u64>, Row) {
    let name = format!("{} / {variant}", alg.info().name);
    super::progress::start(format!("shrink: {name}: seeds searched"), seeds);
    let failing = first_failing(alg, variant, FAILURES, seeds, jobs);
    let gen = fuzz_gen();
    let generated = failing
        .iter()
        .map(|&s| Size::of(alg, &alg.generate(variant, s, &gen)))
        .collect();
    // Both shrinks of every failure, as one queue.
    let work: Vec<(u64, bool)> = failing
        .iter()
        .flat_map(|&s| [(s, false), (s, true)])
        .collect();
    super::progress::start(format!("shrink: {name}: shrinks"), work.len() as u64);
    let next = AtomicUsize::new(0);
    let done = Mutex::new(vec![None; work.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(seed, keep)) = work.get(i) else {
                    break;
                };
                let out = shrink_seed(alg, variant, seed, keep);
                done.lock().expect("no worker panics")[i] = Some(out);
                super::progress::tick();
            });
        }
    });
    let done: Vec<Shrunk> = done
        .into_inner()
        .expect("no worker panics")
        .into_iter()
        .map(|d| d.expect("every shrink ran"))
        .collect();
    let (redrawn, kept) = (
        done.iter().step_by(2).copied().collect(),
        done.iter().skip(1).step_by(2).copied().collect(),
    );
    (
        failing,
        Row {
            generated,
            redrawn,
            kept,
        },
    )
}

/// Runs `sincro table shrink`; returns the exit code.
pub fn main(args: &TableArgs) -> i32 {
    let seeds = args.seeds.unwrap_or(SEEDS_DEFAULT);
    if !(1..=SEEDS_MAX).contains(&seeds) {
        eprintln!("error: --seeds must be within [1, {SEEDS_MAX}] for `table shrink`");
        return crate::exit::BAD_INPUT;
    }
    let jobs = args.jobs.unwrap_or(1).max(1);
    if jobs > 256 {
        eprintln!("error: --jobs must be within [1, 256] (0 is taken as 1)");
        return crate::exit::BAD_INPUT;
    }
    let algs = match super::buggy_selection(args, "to shrink the failures of") {
        Ok(a) => a,
        Err(code) => return code,
    };
    println!(
        "Shrinking with the schedule kept against delays redrawn: the first {FAILURES} failing \
         seeds (default mix) among 0..{seeds} of every buggy variant, each shrunk both ways \
         (at most {} candidate runs and {} s each); means of faults/inputs/nodes/messages \
         sent; `kept </=/>`: the failures the kept schedule ended smaller, the same or larger\n",
        ShrinkOptions::default().max_runs,
        SHRINK_TIME.as_secs()
    );
    println!("| variant | seeds | generated | delays redrawn | schedule kept | kept </=/> | s |");
    println!("|---|---|---|---|---|---|---:|");
    let (mut cut, mut unverified, mut missing) = (0, 0, Vec::new());
    for alg in algs {
        let info = alg.info();
        for v in info.variants.iter().filter(|v| v.buggy) {
            let t0 = Instant::now();
            let (failing, row) = measure(alg, v.name, seeds, jobs);
            let name = format!("{} / {}", info.name, v.name);
            if failing.is_empty() {
                missing.push(name.clone());
            }
            let sizes = |s: &[Shrunk]| s.iter().map(|x| x.size).collect::<Vec<_>>();
            let mut cmp = [0; 3];
            for (r, k) in row.redrawn.iter().zip(&row.kept) {
                cmp[match k.size.key().cmp(&r.size.key()) {
                    std::cmp::Ordering::Less => 0,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => 2,
                }] += 1;
            }
            for s in row.redrawn.iter().chain(&row.kept) {
                cut += usize::from(s.cut);
                unverified += usize::from(!s.verified);
            }
            println!(
                "| {name} | {} | {} | {} | {} | {}/{}/{} | {:.1} |",
                if failing.is_empty() {
                    "none".to_string()
                } else {
                    failing
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(" ")
                },
                mean_text(&row.generated),
                mean_text(&sizes(&row.redrawn)),
                mean_text(&sizes(&row.kept)),
                cmp[0],
                cmp[1],
                cmp[2],
                t0.elapsed().as_secs_f64()
            );
        }
    }
    if cut > 0 {
        println!("\n{cut} shrink(s) cut short at {} s", SHRINK_TIME.as_secs());
    }
    if unverified > 0 {
        println!("\n{unverified} shrink(s) found nothing smaller that fails the same way");
    }
    if !missing.is_empty() {
        println!(
            "\nno failure among seeds 0..{seeds} (more --seeds to measure them): {}",
            missing.join(", ")
        );
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_means_are_per_column_and_an_empty_row_is_a_dash() {
        let a = Size {
            faults: 1,
            inputs: 2,
            nodes: 3,
            sent: 10,
        };
        let b = Size {
            faults: 2,
            inputs: 4,
            nodes: 3,
            sent: 15,
        };
        assert_eq!(mean_text(&[a, b]), "1.5/3.0/3.0/12.5");
        assert_eq!(mean_text(&[]), "-");
        assert!(a.key() < b.key());
    }

    /// The first failures do not depend on the worker count, and each shrink, either way,
    /// ends no larger than the failure it started from and still verified.
    #[test]
    fn the_first_failures_shrink_both_ways_and_never_grow() {
        let alg = crate::algorithms::find("order.total").expect("built in");
        let one = first_failing(alg, "unordered", 2, 200, 1);
        assert_eq!(one, first_failing(alg, "unordered", 2, 200, 2));
        assert_eq!(one.len(), 2, "{one:?}");
        let seed = one[0];
        let generated = Size::of(alg, &alg.generate("unordered", seed, &fuzz_gen()));
        for keep in [false, true] {
            let s = shrink_seed(alg, "unordered", seed, keep);
            assert!(s.verified && !s.cut, "keep {keep}: {s:?}");
            assert!(s.size.key() <= generated.key(), "keep {keep}: {s:?}");
        }
        assert!(first_failing(alg, "correct", 1, 50, 2).is_empty());
    }
}
