//! `sincro table omega`: how long Ω (seed 004, Khouri & Greve) takes to stabilize, against α
//! and n, on the shared-memory model.
//!
//! **Churn table.** For each n (initial processes, `--n`, default 4, 8, 12) and α (2, 3, 4;
//! α < n), seeded runs (`--runs`, at most 200 per cell) draw up to 2 joins, 1–3 crashes or
//! departures, varying speeds, and a timely process from some step on (the
//! memory-access-pattern property); membership changes stop within the first 4000 steps.
//! The scenarios are drawn once per (n, seed), keeping `|STABLE| ≥` the row's largest α, so
//! every α of a row runs the *same* scenarios and only the algorithm's α differs. The
//! stabilization step is the step after which every `leader()` of every stable process
//! returns the same stable process; the table gives its p50 / p90 / max, in steps after the
//! system *settles* (last membership change and start of the timely regime) and in absolute
//! steps, how many runs passed every check, and how many gave a trace byte-identical to α = 2.
//!
//! **Why α rarely matters there.** TASK 2 (lines 9–15 of Algorithm 1) tests `|updated| < α`
//! only between *full* passes over the members, so α changes a round only when a full pass
//! finds fewer than α − 1 other members updated. A pass takes at least `2(n − 1)` of the
//! reader's own steps (TASK 1 alternates with TASK 2), and with n ≥ 8 and at most three
//! departures some three others nearly always move in that time: α = 2, 3 and 4 then read,
//! punish and report alike, step for step.
//!
//! **Where α binds.** A second table fixes one scenario family in which it does: 8 processes,
//! speeds 1–8 redrawn every 500 steps, p7 timely from step 1000, and the first leader p0
//! crashing at step 2000, so `|STABLE| = 7`; α goes from 2 to 8. With α = |STABLE| a round
//! waits until every stable process has moved, so no stable process is ever punished again:
//! after the crash the leadership moves once, to p1, and stays. With a smaller α a slow stable
//! process is punished whenever a pass misses it, and the leadership wanders among the stable
//! processes before it settles. With α = 8 > |STABLE| no round ends after the crash, the crashed
//! p0 is never punished, and the run is blamed on the assumption (`memory_access_pattern`).

use super::TableArgs;
use crate::algorithms::omega::{draw, prepare, run_prepared, Draw, Params};
use crate::checkers::omega::MEMORY_ACCESS_PATTERN;
use crate::harness::shm::{Churn, ChurnEvent, ShmEventKind, ShmTrace, Speeds, Timely};
use crate::harness::{Scenario, SimRng};
use std::collections::{BTreeMap, BTreeSet};

/// Most runs per cell.
const RUNS_MAX: u64 = 200;
/// Membership changes and the timely regime start within these first steps.
const ACTIVE_STEPS: u64 = 4_000;
/// α values of the churn table (those below n).
const ALPHAS: [usize; 3] = [2, 3, 4];

/// Processes of the table where α binds.
pub const BIND_N: usize = 8;
/// Step at which the first leader, p0, crashes in the table where α binds.
pub const BIND_CRASH_STEP: u64 = 2_000;
/// Step from which p7 is timely in the table where α binds.
pub const BIND_TIMELY_FROM: u64 = 1_000;

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
    /// Runs blamed on the model's assumption (`memory_access_pattern`).
    pub assumption_not_met: u64,
    /// Runs whose trace is byte-identical to the same scenario's with α = 2.
    pub same_as_alpha2: u64,
    /// Stabilization steps after the system settles, sorted.
    pub after_settle: Vec<u64>,
    /// Absolute stabilization steps, sorted.
    pub absolute: Vec<u64>,
    /// Changes of `leader()` results of stable processes per passing run (each process's first
    /// result not counted), sorted.
    pub leader_changes: Vec<u64>,
}

impl Cell {
    fn new(n: usize, alpha: usize, runs: u64) -> Cell {
        Cell {
            n,
            alpha,
            runs,
            passed: 0,
            assumption_not_met: 0,
            same_as_alpha2: 0,
            after_settle: Vec::new(),
            absolute: Vec::new(),
            leader_changes: Vec::new(),
        }
    }

    fn sort(&mut self) {
        self.after_settle.sort_unstable();
        self.absolute.sort_unstable();
        self.leader_changes.sort_unstable();
    }
}

/// The α values of the churn table's row for `n` processes.
pub fn alphas(n: usize) -> Vec<usize> {
    ALPHAS.iter().copied().filter(|&a| a < n).collect()
}

fn omega_scenario(n: usize, seed: u64, duration_ms: u64, params: &Params) -> Scenario {
    let doc = serde_json::json!({
        "algorithm": "omega.khouri-greve", "nodes": n, "seed": seed,
        "duration_ms": duration_ms, "params": params,
    });
    Scenario::from_json(&doc.to_string()).expect("table scenarios are valid")
}

/// The scenario of run `seed` of cell (n, α) of the churn table: drawn with departures that
/// keep `|STABLE|` at least the row's largest α, so it is the same for every α of the row but
/// `params.alpha`.
pub fn scenario(n: usize, alpha: usize, seed: u64) -> Scenario {
    let mut rng = SimRng::derive(seed, 0x0E6A_7AB1);
    let row_max = alphas(n).into_iter().max().unwrap_or(alpha).max(alpha);
    let (mut params, duration_ms) = draw(
        &mut rng,
        &Draw {
            nodes: n,
            alpha: Some(row_max),
            joins_max: 2,
            crashes: true,
            vary_speeds: true,
            pam: true,
            active_steps: ACTIVE_STEPS,
        },
    );
    params.alpha = alpha;
    omega_scenario(n, seed, duration_ms, &params)
}

/// The scenario of run `seed` where α binds: [`BIND_N`] processes, speeds 1–8 redrawn every
/// 500 steps, p7 timely from [`BIND_TIMELY_FROM`], p0 crashing at [`BIND_CRASH_STEP`]
/// (`|STABLE| = 7`), 40,000 steps (extended while the leadership still moves).
pub fn binding_scenario(alpha: usize, seed: u64) -> Scenario {
    let params = Params {
        alpha,
        churn: vec![Churn {
            at_step: BIND_CRASH_STEP,
            event: ChurnEvent::Crash(0),
        }],
        speeds: Speeds {
            min: 1,
            max: 8,
            period_steps: 500,
        },
        timely: Some(Timely {
            pid: BIND_N - 1,
            from_step: BIND_TIMELY_FROM,
            lead_steps: 2,
        }),
        ..Params::default()
    };
    omega_scenario(BIND_N, seed, 40, &params)
}

/// Changes of `leader()` results of the processes that never crash or leave (each one's first
/// result is not a change).
pub fn stable_leader_changes(trace: &ShmTrace) -> u64 {
    let gone: BTreeSet<usize> = trace
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                ShmEventKind::Crash { .. } | ShmEventKind::Leave { .. }
            )
        })
        .filter_map(|e| e.pid)
        .collect();
    let mut seen: BTreeMap<usize, u64> = BTreeMap::new();
    for e in &trace.events {
        if let (ShmEventKind::Leader { .. }, Some(p)) = (&e.kind, e.pid) {
            if !gone.contains(&p) {
                *seen.entry(p).or_default() += 1;
            }
        }
    }
    seen.values().map(|c| c - 1).sum()
}

/// Runs `sc` into `cell`; `alpha2` is the same scenario's trace with α = 2 (when known).
/// Returns the run's trace (JSON Lines).
fn run_into(cell: &mut Cell, sc: &Scenario, settled: u64, alpha2: Option<&str>) -> String {
    let prepared = prepare(sc).expect("table scenarios are valid");
    let (out, judged) = run_prepared(&prepared);
    let jsonl = out.trace.to_jsonl();
    if alpha2.is_none_or(|t| t == jsonl) {
        cell.same_as_alpha2 += 1;
    }
    match judged {
        Some(Ok(report)) => {
            cell.passed += 1;
            let s = report.stabilized_at_step.unwrap_or(0);
            cell.absolute.push(s);
            cell.after_settle.push(s.saturating_sub(settled));
            cell.leader_changes.push(stable_leader_changes(&out.trace));
        }
        Some(Err(v)) if v.property == MEMORY_ACCESS_PATTERN => cell.assumption_not_met += 1,
        _ => {}
    }
    jsonl
}

/// Measures the churn table's row for `n` over `runs` seeds: one cell per α of [`alphas`].
pub fn measure_row(n: usize, runs: u64) -> Vec<Cell> {
    let alphas = alphas(n);
    let mut cells: Vec<Cell> = alphas.iter().map(|&a| Cell::new(n, a, runs)).collect();
    super::progress::start(format!("omega: the row of n = {n}: seeds run"), runs);
    for seed in 0..runs {
        super::progress::tick();
        let mut first: Option<String> = None;
        for (cell, &alpha) in cells.iter_mut().zip(&alphas) {
            let sc = scenario(n, alpha, seed);
            let settled = prepare(&sc)
                .expect("table scenarios are valid")
                .config
                .settled_from_step();
            let t = run_into(cell, &sc, settled, first.as_deref());
            first.get_or_insert(t);
        }
    }
    cells.iter_mut().for_each(Cell::sort);
    cells
}

/// Measures the table where α binds, for α = 2 ..= [`BIND_N`], over `runs` seeds; stabilization
/// is counted from the crash.
pub fn measure_binding(runs: u64) -> Vec<Cell> {
    let alphas: Vec<usize> = (2..=BIND_N).collect();
    let mut cells: Vec<Cell> = alphas.iter().map(|&a| Cell::new(BIND_N, a, runs)).collect();
    super::progress::start("omega: the table where alpha binds: seeds run".into(), runs);
    for seed in 0..runs {
        super::progress::tick();
        let mut first: Option<String> = None;
        for (cell, &alpha) in cells.iter_mut().zip(&alphas) {
            let sc = binding_scenario(alpha, seed);
            let t = run_into(cell, &sc, BIND_CRASH_STEP, first.as_deref());
            first.get_or_insert(t);
        }
    }
    cells.iter_mut().for_each(Cell::sort);
    cells
}

/// The `q`-quantile (nearest rank) of sorted `v`, or 0 when empty.
pub fn quantile(v: &[u64], q: f64) -> u64 {
    if v.is_empty() {
        return 0;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// `p50 | p90 | max` of sorted `v`; `– | – | –` with no value (stop 64: runs that never
/// stabilized, α above |STABLE|, printed a stabilization of 0 steps).
fn spread(v: &[u64]) -> String {
    if v.is_empty() {
        return "– | – | –".to_string();
    }
    format!(
        "{} | {} | {}",
        quantile(v, 0.5),
        quantile(v, 0.9),
        v.last().copied().unwrap_or(0)
    )
}

/// The most runs × n³ one row of the table may take: 200 runs at n = 32.
const OMEGA_WORK_MAX: u64 = 200 * 32 * 32 * 32;

/// `n³`, the measure of a run's cost.
fn cube(n: usize) -> u64 {
    (n as u64).saturating_pow(3)
}

/// Prints the table; returns the exit code.
pub fn main(args: &TableArgs) -> i32 {
    let ns = args.n_or(&[4, 8, 12]);
    let runs = args.runs.unwrap_or(RUNS_MAX);
    if !(1..=RUNS_MAX).contains(&runs) {
        eprintln!("error: --runs = {runs} is outside [1, {RUNS_MAX}]");
        return crate::exit::BAD_INPUT;
    }
    // each row needs an α below n (the smallest is 2): --n 2 printed a table of no row
    if let Some(n) = ns.iter().find(|&&n| !(3..=100).contains(&n)) {
        eprintln!("error: --n = {n} is outside [3, 100] (a row's α values are below n, from 2)");
        return crate::exit::BAD_INPUT;
    }
    // A run's cost grows as n³ (here 5 runs took 0.6 s at n = 12, 3.9 s at 32, 32 s at 64):
    // the default 200 runs at n = 100 were about an hour and a half (stop 69's probe).
    if let Some(&n) = ns
        .iter()
        .find(|&&n| cube(n).saturating_mul(runs) > OMEGA_WORK_MAX)
    {
        let most = (OMEGA_WORK_MAX / cube(n)).max(1);
        eprintln!(
            "error: --n = {n} with --runs {runs} is too long a table: a run's cost grows as n³, \
             and runs × n³ may be at most {OMEGA_WORK_MAX} (200 runs at n = 32, a few minutes); \
             at n = {n} give --runs {most} or fewer"
        );
        return crate::exit::BAD_INPUT;
    }
    println!(
        "Ω (seed 004, Khouri & Greve): stabilization time in steps, {runs} seeded runs per row"
    );
    println!("(churn: up to 2 joins and 1-3 crashes/departures within the first {ACTIVE_STEPS} steps; varying speeds; a timely process;");
    println!(" the same scenarios for every α of a row, |STABLE| >= its largest α)\n");
    println!("| n | α | passed | after settling p50 | p90 | max | absolute p50 | p90 | max | leader changes p50 | p90 | max | trace as α = 2 |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut all_pass = true;
    for &n in &ns {
        for c in measure_row(n, runs) {
            all_pass &= c.passed == c.runs;
            println!(
                "| {n} | {} | {}/{} | {} | {} | {} | {}/{} |",
                c.alpha,
                c.passed,
                c.runs,
                spread(&c.after_settle),
                spread(&c.absolute),
                spread(&c.leader_changes),
                c.same_as_alpha2,
                c.runs,
            );
        }
    }
    println!("\nTASK 2 tests |updated| < α only between full passes over the members (lines 9-15), so α changes a");
    println!("round only when a full pass finds fewer than α − 1 others updated; a pass lasts at least 2(n − 1) of the");
    println!("reader's steps, and with n >= 8 some three others nearly always move meanwhile: α = 2, 3, 4 run alike.");
    println!(
        "\nWhere α binds: n = {BIND_N}, speeds 1-8 redrawn every 500 steps, p{} timely from step {BIND_TIMELY_FROM},",
        BIND_N - 1
    );
    println!(
        "the first leader p0 crashes at step {BIND_CRASH_STEP} (|STABLE| = {}); stabilization counted from the crash\n",
        BIND_N - 1
    );
    println!("| α | passed | assumption not met | after the crash p50 | p90 | max | leader changes p50 | p90 | max | trace as α = 2 |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for c in measure_binding(runs) {
        // α above |STABLE| must be blamed on the assumption in every run; the others pass.
        if c.alpha < BIND_N {
            all_pass &= c.passed == c.runs;
        } else {
            all_pass &= c.assumption_not_met == c.runs;
        }
        println!(
            "| {} | {}/{} | {}/{} | {} | {} | {}/{} |",
            c.alpha,
            c.passed,
            c.runs,
            c.assumption_not_met,
            c.runs,
            spread(&c.after_settle),
            spread(&c.leader_changes),
            c.same_as_alpha2,
            c.runs,
        );
    }
    println!("\nWith α = |STABLE| a round waits for every stable process, so none is punished again: the leadership");
    println!("moves once after the crash and stays. A smaller α punishes slow stable processes and the leadership");
    println!("wanders first. α > |STABLE|: no round ends after the crash and p0 is never demoted (assumption not met).");
    println!("\nA step is one memory operation of one process (a `leader()` query is one atomic snapshot).");
    if all_pass {
        crate::exit::PASS
    } else {
        eprintln!(
            "some runs failed a check: replay them with `{} fuzz --algorithm omega.khouri-greve`",
            crate::program_name()
        );
        crate::exit::VIOLATION
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No value is no figure: "–", not a stabilization of 0 steps.
    #[test]
    fn a_spread_of_nothing_is_a_dash() {
        assert_eq!(spread(&[]), "– | – | –");
        assert_eq!(spread(&[1, 2, 3, 4]), "2 | 4 | 4");
    }

    #[test]
    fn quantiles_use_the_nearest_rank() {
        let v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(quantile(&v, 0.5), 5);
        assert_eq!(quantile(&v, 0.9), 9);
        assert_eq!(quantile(&v, 1.0), 10);
        assert_eq!(quantile(&[], 0.5), 0);
    }

    #[test]
    fn a_small_row_passes_and_runs_the_same_scenarios_for_every_alpha() {
        let cells = measure_row(4, 5);
        assert_eq!(cells.len(), 2, "α = 2 and 3 below n = 4");
        for c in &cells {
            assert_eq!(c.passed, 5, "{c:?}");
            assert_eq!(c.after_settle.len(), 5);
            assert!(c.absolute.windows(2).all(|w| w[0] <= w[1]));
        }
        assert_eq!(cells[0].same_as_alpha2, 5, "α = 2 is its own reference");
        for seed in 0..5 {
            let (a, b) = (scenario(4, 2, seed), scenario(4, 3, seed));
            assert_eq!(a.params["churn"], b.params["churn"], "seed {seed}");
            assert_eq!(a.params["timely"], b.params["timely"], "seed {seed}");
            assert_ne!(a.params["alpha"], b.params["alpha"]);
        }
    }

    #[test]
    fn where_alpha_binds_alpha_equal_to_stable_settles_at_once() {
        let cells = measure_binding(4);
        let by = |a: usize| cells.iter().find(|c| c.alpha == a).unwrap();
        let (small, exact, above) = (by(2), by(BIND_N - 1), by(BIND_N));
        assert_eq!(small.passed, 4, "{small:?}");
        assert_eq!(exact.passed, 4, "{exact:?}");
        assert_eq!(above.assumption_not_met, 4, "{above:?}");
        assert_eq!(exact.same_as_alpha2, 0, "α = |STABLE| changes every run");
        // α = |STABLE|: the leadership moves once per stable process (to p1) and settles
        // within a few rounds of the crash; α = 2 wanders much longer.
        assert!(
            quantile(&exact.leader_changes, 0.5) < BIND_N as u64,
            "one move per stable process"
        );
        assert!(quantile(&exact.after_settle, 1.0) < quantile(&small.after_settle, 0.5));
        assert!(
            exact.leader_changes.iter().sum::<u64>() < small.leader_changes.iter().sum::<u64>()
        );
    }
}
