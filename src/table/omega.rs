//! `sincro table omega`: how long Ω (seed 004, Khouri & Greve) takes to stabilize, against α
//! and n, on the shared-memory model.
//!
//! For each n (initial processes, `--n`, default 4, 8, 12) and α (2, 3, 4; α < n), seeded runs
//! (`--runs`, at most 200 per cell) draw up to 2 joins, 1–3 crashes or departures (keeping
//! `|STABLE| ≥ α`), varying speeds, and a timely process from some step on (the
//! memory-access-pattern property); membership changes stop within the first 4000 steps.
//! The stabilization step is the step after which every `leader()` of every stable process
//! returns the same stable process; the table gives its p50 / p90 / max, in steps after the
//! system *settles* (last membership change and start of the timely regime) and in absolute
//! steps, and how many runs passed every check.

use super::TableArgs;
use crate::algorithms::omega::{draw, prepare, run_prepared, Draw};
use crate::harness::{Scenario, SimRng};

/// Most runs per cell.
const RUNS_MAX: u64 = 200;
/// Membership changes and the timely regime start within these first steps.
const ACTIVE_STEPS: u64 = 4_000;

/// One measured cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Initial processes.
    pub n: usize,
    /// α.
    pub alpha: usize,
    /// Runs.
    pub runs: u64,
    /// Runs that passed every check.
    pub passed: u64,
    /// Stabilization steps after the system settles, sorted.
    pub after_settle: Vec<u64>,
    /// Absolute stabilization steps, sorted.
    pub absolute: Vec<u64>,
}

/// The scenario of run `seed` of cell (n, α).
pub fn scenario(n: usize, alpha: usize, seed: u64) -> Scenario {
    let mut rng = SimRng::derive(seed, 0x0E6A_7AB1);
    let (params, duration_ms) = draw(
        &mut rng,
        &Draw {
            nodes: n,
            alpha: Some(alpha),
            joins_max: 2,
            crashes: true,
            vary_speeds: true,
            pam: true,
            active_steps: ACTIVE_STEPS,
        },
    );
    let doc = serde_json::json!({
        "algorithm": "omega.khouri-greve", "nodes": n, "seed": seed,
        "duration_ms": duration_ms, "params": params,
    });
    Scenario::from_json(&doc.to_string()).expect("table scenarios are valid")
}

/// Measures cell (n, α) over `runs` seeds.
pub fn measure(n: usize, alpha: usize, runs: u64) -> Cell {
    let mut cell = Cell {
        n,
        alpha,
        runs,
        passed: 0,
        after_settle: Vec::new(),
        absolute: Vec::new(),
    };
    for seed in 0..runs {
        let sc = scenario(n, alpha, seed);
        let prepared = prepare(&sc).expect("table scenarios are valid");
        let settled = prepared.config.settled_from_step();
        if let (_, Some(Ok(report))) = run_prepared(&prepared) {
            cell.passed += 1;
            let s = report.stabilized_at_step.unwrap_or(0);
            cell.absolute.push(s);
            cell.after_settle.push(s.saturating_sub(settled));
        }
    }
    cell.after_settle.sort_unstable();
    cell.absolute.sort_unstable();
    cell
}

/// The `q`-quantile (nearest rank) of sorted `v`, or 0 when empty.
pub fn quantile(v: &[u64], q: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// Prints the table; returns the exit code.
pub fn main(args: &TableArgs) -> i32 {
    let ns = args.n_or(&[4, 8, 12]);
    if args.runs == 0 || ns.iter().any(|&n| !(2..=100).contains(&n)) {
        eprintln!("error: --runs must be at least 1 and every --n within [2, 100]");
        return crate::exit::BAD_INPUT;
    }
    let runs = args.runs.min(RUNS_MAX);
    println!(
        "Ω (seed 004, Khouri & Greve): stabilization time in steps, {runs} seeded runs per row"
    );
    println!("(churn: up to 2 joins and 1-3 crashes/departures within the first {ACTIVE_STEPS} steps; varying speeds; a timely process)\n");
    println!("| n | α | passed | after settling p50 | p90 | max | absolute p50 | p90 | max |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut all_pass = true;
    for &n in &ns {
        for alpha in [2usize, 3, 4] {
            if alpha >= n {
                continue;
            }
            let c = measure(n, alpha, runs);
            all_pass &= c.passed == c.runs;
            println!(
                "| {n} | {alpha} | {}/{} | {} | {} | {} | {} | {} | {} |",
                c.passed,
                c.runs,
                quantile(&c.after_settle, 0.5),
                quantile(&c.after_settle, 0.9),
                c.after_settle.last().copied().unwrap_or(0),
                quantile(&c.absolute, 0.5),
                quantile(&c.absolute, 0.9),
                c.absolute.last().copied().unwrap_or(0),
            );
        }
    }
    println!("\nA step is one memory operation of one process (a `leader()` query is one atomic snapshot).");
    if all_pass {
        crate::exit::PASS
    } else {
        eprintln!("some runs failed a check: replay them with `sincro fuzz --algorithm omega.khouri-greve`");
        crate::exit::VIOLATION
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_use_the_nearest_rank() {
        let v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(quantile(&v, 0.5), 5);
        assert_eq!(quantile(&v, 0.9), 9);
        assert_eq!(quantile(&v, 1.0), 10);
        assert_eq!(quantile(&[], 0.5), 0);
    }

    #[test]
    fn a_small_cell_passes_and_measures_every_run() {
        let c = measure(4, 2, 5);
        assert_eq!(c.passed, 5);
        assert_eq!(c.after_settle.len(), 5);
        assert!(c.absolute.windows(2).all(|w| w[0] <= w[1]));
    }
}
