//! `sincro table clocks`: physical clock synchronization measured in simulation (§6.1 of
//! Tanenbaum & van Steen, seed `000`).
//!
//! 1. For each synchronization algorithm, the largest skew measured after convergence (exact:
//!    the `bounded_skew` checker rebuilds every clock) against the bound it promises, over the
//!    drift ρ, the spread of the delays and the resync period Δ.
//! 2. Without synchronization two clocks at ±ρ drift apart by 2ρΔt.
//! 3. Problem 2 of ch. 6: clocks at 1000 and 990 ticks/ms, UTC updates once a minute: the
//!    skew reaches 600 ms (measured with `clock.cristian`, period one minute).
//! 4. RBS: least-squares regression against averaging, over drift, delay jitter and window.
//!    Regression follows the drift that averaging lags behind, but reading a fitted line at the
//!    newest reference amplifies the receive-time jitter about 1.8× (W = 8): with little drift
//!    and much jitter averaging wins, and the table shows both regimes with the predicted lag
//!    and noise beside the measured skews.
//! 5. Resynchronizing every δ/2ρ keeps two clocks drifting at ±ρ within δ of each other (plus
//!    the synchronization's own error), run with Cristian and Berkeley; four times slower,
//!    the skew exceeds δ.

use super::TableArgs;
use crate::algorithms::find;
use crate::checkers::bounded_skew::{BoundedSkew, SkewSpec};
use crate::harness::clock::{HwClock, SoftClock};
use crate::harness::engine::RunOptions;
use crate::harness::trace::EventKind;
use crate::harness::{Scenario, Verdict, NS_PER_MS};

/// One measured run.
#[derive(Clone, Debug, PartialEq)]
pub struct SkewMeasure {
    /// Largest `|C_p − C_q|` after convergence, ms.
    pub internal_ms: f64,
    /// Its bound, ms.
    pub internal_bound_ms: f64,
    /// Largest `|C_p − t|` after convergence, ms (with a reference clock).
    pub external_ms: Option<f64>,
    /// Its bound, ms.
    pub external_bound_ms: Option<f64>,
    /// The run's verdict passed.
    pub pass: bool,
}

/// A scenario for `alg` with `n` nodes, drift `rho_ppm`, delays `lat_ms..lat_ms+spread_ms`,
/// period `period_ms`, initial offsets up to 20 ms; long enough to converge and then judge 20
/// periods.
pub fn scenario(
    alg: &str,
    params: serde_json::Value,
    n: usize,
    rho_ppm: f64,
    spread_ms: f64,
    period_ms: u64,
    seed: u64,
) -> Scenario {
    let lat_ms = 5.0;
    let reference = matches!(alg, "clock.cristian" | "clock.ntp-peers");
    let mut params = params;
    params["period_ms"] = period_ms.into();
    let mut doc = serde_json::json!({
        "algorithm": alg, "nodes": n, "seed": seed, "duration_ms": 1,
        "params": params,
        "network": {"latency": {"uniform": {"min_ms": lat_ms, "max_ms": lat_ms + spread_ms}}},
        "clocks": {"rho_ppm": rho_ppm, "offset_ms_max": 20.0,
                   "nodes": if reference { serde_json::json!([{"node": 0}]) } else { serde_json::json!([]) }},
    });
    let sc = Scenario::from_json(&doc.to_string()).expect("table scenarios are valid");
    let converge = crate::checkers::bounded_skew::convergence_ms(&sc);
    doc["duration_ms"] = (converge + 20 * period_ms).into();
    Scenario::from_json(&doc.to_string()).expect("table scenarios are valid")
}

/// Runs `sc` and measures its skews with the checker `sc` promises.
pub fn measure(sc: &Scenario) -> Result<SkewMeasure, String> {
    let alg = find(&sc.algorithm).map_err(|e| e.0)?;
    let out = alg.run(sc, RunOptions::default()).map_err(|e| e.0)?;
    // A trace that stops short, judged to the end, would read as a skew violation of clocks
    // left free-running: the algorithm never had it.
    match &out.verdict {
        Verdict::LimitExceeded { limit } => {
            let name = limit.split(' ').next().unwrap_or(limit);
            return Err(format!("run cut short by {name}"));
        }
        Verdict::Panic { .. } => return Err(format!("{}", out.verdict)),
        _ => {}
    }
    if let Some(EventKind::Cut { reason, .. }) = out
        .trace
        .as_ref()
        .and_then(|t| t.events().last())
        .map(|e| &e.kind)
    {
        // the run went on, its record did not: measured from the trace, the clocks would
        // run free past the cut
        let name = reason.split(' ').next().unwrap_or(reason);
        return Err(format!("trace cut short by {name}"));
    }
    let spec = SkewSpec::for_scenario(sc);
    let mut c = BoundedSkew::new(sc, spec.clone());
    let pass = c
        .check(
            out.trace.as_ref().expect("recorded"),
            sc.duration_ms * NS_PER_MS,
        )
        .is_ok()
        && out.verdict.is_pass();
    Ok(SkewMeasure {
        internal_ms: c.max_internal_ns() as f64 / 1e6,
        internal_bound_ms: spec.internal_bound_ns as f64 / 1e6,
        external_ms: spec
            .external_bound_ns
            .map(|_| c.max_external_ns() as f64 / 1e6),
        external_bound_ms: spec.external_bound_ns.map(|b| b as f64 / 1e6),
        pass,
    })
}

/// The largest distance between two unsynchronized clocks at `+rho_ppm` and `−rho_ppm` after
/// `dt_ms`, ms (read from the harness's clocks).
pub fn free_running_skew_ms(rho_ppm: f64, dt_ms: u64) -> f64 {
    let ppb = (rho_ppm * 1000.0).round() as i64;
    let a = SoftClock::new(HwClock::new(0, ppb));
    let b = SoftClock::new(HwClock::new(0, -ppb));
    let t = dt_ms * NS_PER_MS;
    (a.read(t) - b.read(t)) as f64 / 1e6
}

/// Problem 2: a perfect time server and a client ticking 990 times per ms (−10 000 ppm),
/// resynchronized once a minute of its own clock by `clock.cristian`; the largest skew, ms.
pub fn problem_2_skew_ms() -> Result<f64, String> {
    let doc = serde_json::json!({
        "algorithm": "clock.cristian", "nodes": 2, "seed": 2, "duration_ms": 600_000,
        "params": {"period_ms": 60_000},
        "network": {"latency": {"constant": {"ms": 0}}},
        "clocks": {"rho_ppm": 10_000, "nodes": [{"node": 0}, {"node": 1, "drift_ppm": -10_000}]},
        "checks": {"properties": ["monotonic_clock"]},
    });
    let sc = Scenario::from_json(&doc.to_string()).map_err(|e| e.0)?;
    let alg = find(&sc.algorithm).map_err(|e| e.0)?;
    let out = alg.run(&sc, RunOptions::default()).map_err(|e| e.0)?;
    if !out.verdict.is_pass() {
        return Err(out.verdict.to_string());
    }
    let mut spec = SkewSpec::for_scenario(&sc);
    spec.converge_from_ns = 0;
    spec.internal_bound_ns = u64::MAX / 4;
    spec.external_bound_ns = None;
    let mut c = BoundedSkew::new(&sc, spec);
    c.check(
        out.trace.as_ref().expect("recorded"),
        sc.duration_ms * NS_PER_MS,
    )
    .map_err(|v| v.to_string())?;
    Ok(c.max_internal_ns() as f64 / 1e6)
}

/// The cells of the resynchronization experiment: (ρ ppm, δ ms, delay spread ms).
pub const RESYNC_CELLS: &[(f64, f64, f64)] = &[
    (100.0, 1.0, 0.0),
    (50.0, 1.0, 0.0),
    (10.0, 0.5, 0.0),
    (100.0, 5.0, 0.0),
    (100.0, 5.0, 1.0),
];

/// Seeds of each cell of the RBS comparison (section 4).
pub const RBS_SEEDS: std::ops::Range<u64> = 0..10;

/// The cells of the RBS comparison: (ρ ppm, delay spread ms, period ms, window W).
pub const RBS_CELLS: &[(f64, f64, u64, usize)] = &[
    // drift, constant delays: the text's case
    (10.0, 0.0, 4000, 8),
    (50.0, 0.0, 4000, 8),
    (100.0, 0.0, 4000, 8),
    // drift, a little jitter
    (100.0, 2.0, 4000, 8),
    (100.0, 5.0, 4000, 8),
    // the jittered rows of section 1, and no drift at all
    (0.0, 10.0, 1000, 8),
    (100.0, 10.0, 1000, 8),
    (100.0, 10.0, 4000, 8),
    (100.0, 40.0, 4000, 8),
    // the same with a longer window
    (0.0, 10.0, 1000, 32),
    (100.0, 10.0, 1000, 32),
    (100.0, 10.0, 4000, 32),
    (100.0, 40.0, 4000, 32),
];

/// RBS averaging against regression on the same scenarios (one per seed).
#[derive(Clone, Debug, PartialEq)]
pub struct RbsCompare {
    /// Mean over the seeds of the largest internal skew with averaging, ms.
    pub avg_ms: f64,
    /// The same with least-squares regression, ms.
    pub reg_ms: f64,
    /// Seeds in which regression's skew was the lower.
    pub reg_lower: usize,
    /// Seeds run.
    pub seeds: usize,
    /// Every run passed its checkers.
    pub pass: bool,
}

/// Runs `clock.rbs` in both modes on the scenarios of `seeds` (`n` nodes, drift `rho_ppm`,
/// delays `5..5+spread_ms` ms, period `period_ms`, window `window`) and compares the largest
/// internal skews after convergence.
pub fn rbs_compare(
    n: usize,
    rho_ppm: f64,
    spread_ms: f64,
    period_ms: u64,
    window: usize,
    seeds: std::ops::Range<u64>,
) -> Result<RbsCompare, String> {
    let mut c = RbsCompare {
        avg_ms: 0.0,
        reg_ms: 0.0,
        reg_lower: 0,
        seeds: 0,
        pass: true,
    };
    for seed in seeds {
        let mut got = [0.0; 2];
        for (i, mode) in ["avg", "regression"].into_iter().enumerate() {
            let params = serde_json::json!({"mode": mode, "window": window});
            let sc = scenario("clock.rbs", params, n, rho_ppm, spread_ms, period_ms, seed);
            let m = measure(&sc)?;
            c.pass &= m.pass;
            got[i] = m.internal_ms;
        }
        c.avg_ms += got[0];
        c.reg_ms += got[1];
        c.reg_lower += usize::from(got[1] < got[0]);
        c.seeds += 1;
    }
    let runs = c.seeds.max(1) as f64;
    c.avg_ms /= runs;
    c.reg_ms /= runs;
    Ok(c)
}

/// How far averaging W references lags behind the drift between two receivers, at most, ms:
/// the average estimates the offset of (W−1)/2 periods ago, and two clocks within ±ρ drift
/// apart at up to 2ρ.
pub fn rbs_lag_ms(rho_ppm: f64, period_ms: u64, window: usize) -> f64 {
    2.0 * rho_ppm * 1e-6 * (window.max(1) - 1) as f64 / 2.0 * period_ms as f64
}

/// Standard deviation of the error of two receivers' offset estimate, ms, with delays uniform
/// over `spread_ms` (variance s²/12 each, s²/6 for a difference of two receive times): the
/// mean of W references (`regression` false) or the least-squares line through them read at
/// the newest one (variance (4W−2)/(W(W+1)) of one reference's).
pub fn rbs_noise_ms(spread_ms: f64, window: usize, regression: bool) -> f64 {
    let w = window.max(1) as f64;
    let factor = if regression && window > 1 {
        (4.0 * w - 2.0) / (w * (w + 1.0))
    } else {
        1.0 / w
    };
    spread_ms * (factor / 6.0).sqrt()
}

/// The resynchronization experiment of section 5 (seed 000 §6.1.2: "to keep two clocks
/// within δ of each other, resynchronize at least every δ/2ρ seconds").
#[derive(Clone, Debug, PartialEq)]
pub struct Resync {
    /// The period run, ms: `factor · δ/2ρ`.
    pub period_ms: u64,
    /// Largest `|C_p − C_q|` over the whole run, ms (the clocks start together).
    pub internal_ms: f64,
    /// δ, ms.
    pub delta_ms: f64,
    /// ε, what the synchronization itself leaves on top of δ at the text's period δ/2ρ, ms
    /// ([`resync_error_ms`]).
    pub error_ms: f64,
    /// The run's verdict (`monotonic_clock` and the algorithm's own) passed.
    pub pass: bool,
}

impl Resync {
    /// The skew stayed within δ + ε, the text's bound plus the synchronization's own error.
    pub fn within(&self) -> bool {
        self.internal_ms <= self.delta_ms + self.error_ms
    }
}

/// What the synchronization itself can leave between two clocks on top of δ, ms, at period δ/2ρ,
/// with one-way delays spread over `spread_ms` and `wait_ms` the longest time from a clock's
/// reading to the correction computed from it: each clock's estimate is off by at most s/2
/// (asymmetric delays), s between two clocks; each keeps drifting at up to ρ for `wait_ms`
/// after its reading, 2ρ·wait between two clocks; and a period timed on a clock at −ρ lasts
/// 1/(1 − ρ) of its nominal length in real time: `s + 2ρ·wait + δ·ρ/(1 − ρ)`.
pub fn resync_error_ms(rho_ppm: f64, delta_ms: f64, spread_ms: f64, wait_ms: f64) -> f64 {
    let rho = rho_ppm * 1e-6;
    spread_ms + 2.0 * rho * wait_ms + delta_ms * rho / (1.0 - rho)
}

/// Runs `alg` (`clock.cristian` keeping one sample, or `clock.berkeley`) on three nodes: the
/// server or daemon with a perfect clock, one clock at +ρ and one at −ρ (the text's worst
/// case: drifting apart at 2ρ), all starting together, delays `5..5+spread_ms` ms, resync
/// period `factor · δ/2ρ`, for 20 periods; the largest skew between any two clocks.
pub fn resync_skew(
    alg: &str,
    rho_ppm: f64,
    delta_ms: f64,
    factor: u64,
    spread_ms: f64,
) -> Result<Resync, String> {
    let lat_ms = 5.0;
    let period_ms = (factor as f64 * delta_ms / (2.0 * rho_ppm * 1e-6)).round() as u64;
    let d_max = lat_ms + spread_ms;
    // the wait from a clock's reading to its correction: Cristian's reply trip (the server
    // reads at T2, the client corrects at T4); Berkeley's collect timeout plus the adjustment's
    // trip less the poll's
    let timeout_ms = 2 * d_max.ceil() as u64 + 2;
    let (params, wait_ms) = match alg {
        "clock.cristian" => (
            serde_json::json!({"period_ms": period_ms, "samples": 1}),
            d_max,
        ),
        "clock.berkeley" => (
            serde_json::json!({"period_ms": period_ms, "timeout_ms": timeout_ms}),
            timeout_ms as f64 + spread_ms,
        ),
        other => {
            return Err(format!(
                "resync_skew runs clock.cristian or clock.berkeley, not {other}"
            ))
        }
    };
    let doc = serde_json::json!({
        "algorithm": alg, "nodes": 3, "seed": 7, "duration_ms": 20 * period_ms + 1,
        "params": params,
        "network": {"latency": {"uniform": {"min_ms": lat_ms, "max_ms": lat_ms + spread_ms}}},
        "clocks": {"rho_ppm": rho_ppm, "nodes": [
            {"node": 0},
            {"node": 1, "drift_ppm": rho_ppm},
            {"node": 2, "drift_ppm": -rho_ppm},
        ]},
        "checks": {"properties": ["monotonic_clock"]},
    });
    let sc = Scenario::from_json(&doc.to_string()).map_err(|e| e.0)?;
    let alg_ = find(&sc.algorithm).map_err(|e| e.0)?;
    let out = alg_.run(&sc, RunOptions::default()).map_err(|e| e.0)?;
    let mut spec = SkewSpec::for_scenario(&sc);
    spec.converge_from_ns = 0;
    spec.internal_bound_ns = u64::MAX / 4;
    spec.external_bound_ns = None;
    let mut c = BoundedSkew::new(&sc, spec);
    let judged = c.check(
        out.trace.as_ref().expect("recorded"),
        sc.duration_ms * NS_PER_MS,
    );
    Ok(Resync {
        period_ms,
        internal_ms: c.max_internal_ns() as f64 / 1e6,
        delta_ms,
        error_ms: resync_error_ms(rho_ppm, delta_ms, spread_ms, wait_ms),
        pass: judged.is_ok() && out.verdict.is_pass(),
    })
}

fn ms(v: f64) -> String {
    format!("{v:.3}")
}

/// The most nodes `table clocks` takes.
pub const CLOCKS_N_MAX: usize = 16;

/// Prints the tables; returns the exit code.
pub fn main(args: &TableArgs) -> i32 {
    let n = match args.n_or(&[5])[..] {
        [n] if (3..=CLOCKS_N_MAX).contains(&n) => n,
        _ => {
            eprintln!(
                "error: `table clocks` takes one --n, 3 ..= {CLOCKS_N_MAX} (a master and two \
                 others at least; every clock algorithm runs minutes of simulated time at each \
                 of its rows, so the table's time grows fast with n: 1 s at n = 5, and it took \
                 88 s at n = 30 before the cap)"
            );
            return crate::exit::BAD_INPUT;
        }
    };
    let mut failed = false;
    println!(
        "# Physical clock synchronization (seed 000 §6.1), n = {n}, initial offsets up to 20 ms\n"
    );
    println!("## 1. Largest skew after convergence vs the promised bound\n");
    println!("| algorithm | rho ppm | delay spread ms | period ms | max internal ms | internal bound ms | max external ms | external bound ms | verdict |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let algs: [(&str, serde_json::Value); 5] = [
        ("clock.cristian", serde_json::json!({})),
        ("clock.ntp-peers", serde_json::json!({})),
        ("clock.berkeley", serde_json::json!({})),
        ("clock.rbs", serde_json::json!({"mode": "avg"})),
        ("clock.rbs", serde_json::json!({"mode": "regression"})),
    ];
    for (alg, params) in &algs {
        for &(rho, spread, period) in &[
            (10.0, 0.0, 1000u64),
            (100.0, 0.0, 1000),
            (100.0, 10.0, 1000),
            (100.0, 10.0, 4000),
            (100.0, 40.0, 4000),
        ] {
            let sc = scenario(alg, params.clone(), n, rho, spread, period, 1);
            let name = match params.get("mode").and_then(|m| m.as_str()) {
                Some(m) => format!("{alg} ({m})"),
                None => alg.to_string(),
            };
            match measure(&sc) {
                Ok(m) => {
                    failed |= !m.pass;
                    println!(
                        "| {name} | {rho} | {spread} | {period} | {} | {} | {} | {} | {} |",
                        ms(m.internal_ms),
                        ms(m.internal_bound_ms),
                        m.external_ms.map_or("-".into(), ms),
                        m.external_bound_ms.map_or("-".into(), ms),
                        if m.pass { "pass" } else { "VIOLATION" }
                    );
                }
                Err(e) => {
                    failed = true;
                    println!("| {name} | {rho} | {spread} | {period} | error: {e} |||||");
                }
            }
        }
    }
    println!("\n## 2. Without synchronization: two clocks at ±rho drift apart by 2·rho·Δt\n");
    println!(
        "| rho ppm | Δt s | measured ms | 2·rho·Δt ms | resync period to keep skew ≤ 1 ms (δ/2ρ) |"
    );
    println!("|---|---|---|---|---|");
    for &rho in &[10.0, 100.0] {
        for &dt_s in &[1u64, 10, 60] {
            let got = free_running_skew_ms(rho, dt_s * 1000);
            let want = 2.0 * rho * 1e-6 * dt_s as f64 * 1000.0;
            failed |= (got - want).abs() > 1e-6;
            println!(
                "| {rho} | {dt_s} | {} | {} | {:.0} ms |",
                ms(got),
                ms(want),
                1.0 / (2.0 * rho * 1e-6)
            );
        }
    }
    println!("\n## 3. Problem 2 of ch. 6: 1000 vs 990 ticks/ms, UTC updates once a minute\n");
    match problem_2_skew_ms() {
        Ok(v) => {
            println!("| | max skew ms |\n|---|---|\n| the text (60 s × 10 ticks/ms ÷ 1000 ticks/ms) | 600.000 |\n| measured, clock.cristian polling every 60 s of the slow clock (60.606 s of real time) | {} |", ms(v));
            failed |= !(599.0..=607.0).contains(&v);
        }
        Err(e) => {
            failed = true;
            println!("error: {e}");
        }
    }
    println!("\n## 4. RBS: least-squares regression against averaging\n");
    println!("Mean over seeds {RBS_SEEDS:?} of the largest internal skew after convergence (n = {n}, delays");
    println!("5..5+spread ms). Predicted, for two receivers: averaging lags the drift by up to");
    println!(
        "2ρ·(W−1)/2·Δ (it estimates the offset of (W−1)/2 periods ago); the noise of a pair's"
    );
    println!("estimate (standard deviation, s²/6 per reference) is s/√(6W) averaged and");
    println!(
        "s·√((4W−2)/(6W(W+1))) for the line read at the newest reference: √((4W−2)/(W+1)) = 1.83×"
    );
    println!("(W = 8) to 1.95× (W = 32) the average's, whatever the drift.\n");
    println!("| rho ppm | spread ms | period ms | W | avg lag ≤ ms | noise σ avg ms | noise σ reg ms | avg: max internal ms | regression: max internal ms | regression lower in | better |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for &(rho, spread, period, window) in RBS_CELLS {
        let (lag, s_avg, s_reg) = (
            rbs_lag_ms(rho, period, window),
            rbs_noise_ms(spread, window, false),
            rbs_noise_ms(spread, window, true),
        );
        match rbs_compare(n, rho, spread, period, window, RBS_SEEDS) {
            Ok(c) => {
                failed |= !c.pass;
                println!(
                    "| {rho} | {spread} | {period} | {window} | {} | {} | {} | {} | {} | {} of {} seeds | {} |",
                    ms(lag),
                    ms(s_avg),
                    ms(s_reg),
                    ms(c.avg_ms),
                    ms(c.reg_ms),
                    c.reg_lower,
                    c.seeds,
                    if c.reg_ms < c.avg_ms { "regression" } else { "average" }
                );
            }
            Err(e) => {
                failed = true;
                println!("| {rho} | {spread} | {period} | {window} | error: {e} |||||||");
            }
        }
    }
    println!("\nRegression wins when averaging's lag outweighs the extra noise regression adds: with drift");
    println!("and small jitter (the text's case, Elson et al.'s wireless receivers). With little drift and");
    println!(
        "much jitter it loses: fitting a slope to W noisy points and reading the line at its end"
    );
    println!(
        "(extrapolating from the window's centre) amplifies the receive-time noise ~1.8×, and the"
    );
    println!(
        "largest skew of a run is a tail of that noise. This is why the jittered rows of section 1"
    );
    println!("favour averaging at W = 8. A longer window shrinks both noises as 1/√W, while averaging's lag");
    println!(
        "grows with W: at W = 32 regression wins again under 100 ppm drift when the period is 4 s."
    );
    println!("\n## 5. Resynchronizing every δ/2ρ keeps two clocks within δ\n");
    println!("Three nodes: a perfect server (Cristian, keeping 1 sample) or daemon (Berkeley), a clock at +ρ");
    println!("and one at −ρ, all starting together; delays 5..5+s ms; period factor·δ/2ρ, 20 periods; the");
    println!("largest |C_p − C_q| of the run. The drift alone builds up factor·δ between two resyncs; the");
    println!("synchronization adds at most ε = s + 2ρ·w + δ·ρ/(1−ρ) (asymmetric delays; drift during the");
    println!("wait w from a clock's reading to its correction: Cristian's reply trip, Berkeley's collect");
    println!("timeout and adjustment trip; a period timed on the slow clock lasts 1/(1−ρ) longer). At the");
    println!("text's period the skew stays within δ + ε; four times slower it reaches about 4δ.\n");
    println!("| algorithm | rho ppm | δ ms | spread s ms | factor | period ms | max skew ms | δ + ε ms | within δ + ε |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for alg in ["clock.cristian", "clock.berkeley"] {
        for &(rho, delta, spread) in RESYNC_CELLS {
            for factor in [1u64, 4] {
                match resync_skew(alg, rho, delta, factor, spread) {
                    Ok(r) => {
                        // within δ + ε at the text's period, past it four times slower: else the
                        // experiment shows nothing
                        failed |= !r.pass || r.within() != (factor == 1);
                        println!(
                            "| {alg} | {rho} | {delta} | {spread} | {factor} | {} | {:.6} | {:.6} | {} |",
                            r.period_ms,
                            r.internal_ms,
                            r.delta_ms + r.error_ms,
                            if r.within() { "yes" } else { "no" }
                        );
                    }
                    Err(e) => {
                        failed = true;
                        println!(
                            "| {alg} | {rho} | {delta} | {spread} | {factor} | error: {e} ||||"
                        );
                    }
                }
            }
        }
    }
    if failed {
        crate::exit::VIOLATION
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_running_clocks_diverge_two_rho_dt() {
        assert_eq!(free_running_skew_ms(100.0, 60_000), 12.0);
    }

    /// A run a limit cuts short is reported as such, not judged to the end as a skew
    /// violation (at `table clocks --n 2000` the trace limit stopped Cristian's runs and the
    /// clocks, free-running past the last event, read 0.424 ms apart against a 0.292 bound).
    #[test]
    fn a_run_cut_short_by_a_limit_is_an_error_not_a_violation() {
        let mut sc = scenario(
            "clock.cristian",
            serde_json::json!({}),
            5,
            10.0,
            0.0,
            1000,
            1,
        );
        let whole = measure(&sc).unwrap();
        assert!(whole.pass, "{whole:?}");
        sc.limits.max_trace_bytes = 20_000;
        let e = measure(&sc).unwrap_err();
        assert_eq!(e, "trace cut short by limits.max_trace_bytes");
    }

    #[test]
    fn problem_2_reaches_600_ms() {
        let v = problem_2_skew_ms().unwrap();
        assert!((600.0..=607.0).contains(&v), "{v}");
    }

    #[test]
    fn regression_beats_averaging_under_drift() {
        let avg = measure(&scenario(
            "clock.rbs",
            serde_json::json!({"mode": "avg"}),
            4,
            100.0,
            0.0,
            4000,
            3,
        ))
        .unwrap();
        let reg = measure(&scenario(
            "clock.rbs",
            serde_json::json!({"mode": "regression"}),
            4,
            100.0,
            0.0,
            4000,
            3,
        ))
        .unwrap();
        assert!(avg.pass && reg.pass);
        assert!(reg.internal_ms < avg.internal_ms, "{reg:?} vs {avg:?}");
    }

    /// The text's case: under drift with little jitter, regression beats averaging (lag
    /// 2.8 ms against a noise of 0.29 ms averaged, 0.53 ms with regression).
    #[test]
    fn regression_beats_averaging_under_drift_with_small_jitter() {
        let c = rbs_compare(4, 100.0, 2.0, 4000, 8, 0..3).unwrap();
        assert!(c.pass, "{c:?}");
        assert_eq!(c.reg_lower, 3, "{c:?}");
        assert!(c.reg_ms < 0.8 * c.avg_ms, "{c:?}");
    }

    /// Without drift, under jitter, regression only adds noise: it loses in every seed, by
    /// about the predicted factor 1.83 on the noise (the largest skew is a tail of it).
    #[test]
    fn regression_loses_to_averaging_without_drift_under_jitter() {
        let c = rbs_compare(4, 0.0, 10.0, 1000, 8, 0..3).unwrap();
        assert!(c.pass, "{c:?}");
        assert_eq!(c.reg_lower, 0, "{c:?}");
        assert!(c.reg_ms > 1.3 * c.avg_ms, "{c:?}");
    }

    /// The noise factors of section 4, against the least-squares weights computed by
    /// `clock.rbs`'s own fit: the variance of the line read at the newest of W equally spaced
    /// points is Σ w_i² = (4W−2)/(W(W+1)) of one point's.
    #[test]
    fn regression_noise_factor_matches_the_least_squares_weights() {
        use crate::algorithms::clocks::rbs::least_squares;
        for w in [2usize, 8, 32] {
            // the prediction at x = 0 (the newest point) is linear in the ys: w_i is the
            // prediction for a unit impulse at point i
            let sum_sq: f64 = (0..w)
                .map(|i| {
                    let pts: Vec<(f64, f64)> = (0..w)
                        .map(|j| (j as f64 - (w - 1) as f64, f64::from(u8::from(i == j))))
                        .collect();
                    least_squares(&pts).unwrap().1.powi(2)
                })
                .sum();
            let predicted = (rbs_noise_ms(1.0, w, true) / rbs_noise_ms(1.0, w, false)).powi(2);
            assert!(
                (sum_sq * w as f64 - predicted).abs() < 1e-9,
                "W = {w}: {sum_sq}"
            );
        }
        assert!((rbs_noise_ms(10.0, 8, false) - 10.0 / 48f64.sqrt()).abs() < 1e-12);
        assert!((rbs_lag_ms(100.0, 4000, 8) - 2.8).abs() < 1e-12);
    }

    /// The text's rule, run: resynchronizing every δ/2ρ keeps two clocks drifting at ±ρ
    /// within δ (plus the synchronization's own error ε, 1.1 µs for Cristian and 2.5 µs for
    /// Berkeley here), and the skew does reach δ; four times slower it reaches 4δ.
    #[test]
    fn resync_every_delta_over_two_rho_keeps_the_skew_within_delta() {
        for alg in ["clock.cristian", "clock.berkeley"] {
            let r = resync_skew(alg, 100.0, 1.0, 1, 0.0).unwrap();
            assert_eq!(r.period_ms, 5000);
            assert!(r.pass && r.within(), "{alg}: {r:?}");
            assert!(r.error_ms < 0.003, "{alg}: {r:?}");
            assert!(r.internal_ms > 0.999, "{alg}: the skew reaches δ: {r:?}");
            let slow = resync_skew(alg, 100.0, 1.0, 4, 0.0).unwrap();
            assert!(slow.pass && !slow.within(), "{alg}: {slow:?}");
            assert!(slow.internal_ms > 3.99, "{alg}: {slow:?}");
        }
    }
}
