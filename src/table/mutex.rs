//! `sincro table mutex`: Table 6.1 of Tanenbaum & van Steen measured in simulation.
//!
//! For each registered mutual exclusion algorithm and several `n`, the same workload runs on
//! the native engine with a constant latency `L` (one "message time"):
//! - **light load**: one process asks once while nobody else wants the resource;
//! - **heavy load**: every process asks `k` times at once, so the resource is never idle.
//!
//! Messages per entry/exit = messages sent up to the last exit / critical-section entries;
//! delay before entry =
//! mean time from `cs_request` to `cs_enter`, in message times, minus the time spent waiting
//! for other holders' critical sections (which the table's delay column leaves out).
//!
//! The decentralized row (voting, §6.3.3) is measured beside the book's 3mk / 2m with its
//! messages broken down (requests, votes, grants handed back, releases), the attempts k per
//! entry, how often a waiting request is overtaken and the utilization under contention (the
//! book's "starvation, low efficiency"). `sincro table voting` compares the violation formula
//! with measured rates and computes the text's example (n = 32, m = 24, p = 10 s / 3 h: below
//! 1e-40) in log space.

use super::TableArgs;
use crate::algorithms::{find, Algorithm};
use crate::harness::engine::RunOptions;
use crate::harness::{EventKind, Observation, Scenario};
use std::collections::BTreeMap;

const LAT_MS: u64 = 10;
const HOLD_MS: u64 = 5;

/// One measured cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// Messages sent per critical-section entry.
    pub msgs_per_entry: f64,
    /// Mean delay before entry, in message times (time in others' critical sections excluded).
    pub delay_msg_times: f64,
    /// Entries observed.
    pub entries: usize,
    /// Critical sections wanted (the workload's `acquire` inputs).
    pub wanted: usize,
    /// Messages sent up to the last exit, by kind (the message's name: `Request`, `Grant`…).
    pub sent_by_kind: BTreeMap<String, usize>,
    /// The most entries by others between a request and its own entry (or the run's end):
    /// how often one waiting request was overtaken.
    pub max_overtaken: usize,
}

fn scenario(alg: &str, n: usize, acquires: &[(usize, u64)]) -> Scenario {
    let workload: Vec<_> = acquires
        .iter()
        .map(|&(node, at)| serde_json::json!({"at_ms": at, "node": node, "input": {"acquire": {"hold_ms": HOLD_MS}}}))
        .collect();
    let doc = serde_json::json!({
        "algorithm": alg, "nodes": n, "seed": 61,
        // long enough for every entry, short enough that an idle token ring stays cheap
        "duration_ms": 200 + 9 * n as u64 * (HOLD_MS + 2 * LAT_MS),
        "network": {"latency": {"constant": {"ms": LAT_MS}}},
        "workload": workload,
    });
    Scenario::from_json(&doc.to_string()).expect("table scenarios are valid")
}

/// Runs `alg` on `acquires` and measures messages and delay.
pub fn measure(
    alg: &dyn Algorithm,
    n: usize,
    acquires: &[(usize, u64)],
) -> Result<Measure, super::RowFailure> {
    let sc = scenario(alg.info().name, n, acquires);
    let out = alg
        .run(&sc, RunOptions::default())
        .map_err(|e| super::RowFailure::bad_input(e.0))?;
    if !out.verdict.is_pass() {
        return Err(super::RowFailure::of(
            format!("{} n={n}", alg.info().name),
            &out.verdict,
        ));
    }
    let trace = out.trace.expect("recorded");
    let mut asked: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    let mut delays = Vec::new();
    let mut entries = 0;
    // time some other node spent inside while a request waited is not "access delay"
    let mut busy_since: Option<u64> = None;
    let mut busy_total: u64 = 0;
    let mut busy_at_request: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    // entries (by anyone) when each waiting request was made
    let mut entries_at_request: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut max_overtaken = 0;
    for e in trace.events() {
        let node = e.node.unwrap_or(usize::MAX);
        match &e.kind {
            EventKind::Observe {
                obs: Observation::CsRequest { .. },
            } => {
                asked.entry(node).or_default().push(e.t_ns);
                entries_at_request.entry(node).or_default().push(entries);
                let busy_now = busy_total + busy_since.map_or(0, |s| e.t_ns - s);
                busy_at_request.entry(node).or_default().push(busy_now);
            }
            EventKind::Observe {
                obs: Observation::CsEnter { .. },
            } => {
                if let Some(v) = entries_at_request.get_mut(&node) {
                    if !v.is_empty() {
                        max_overtaken = max_overtaken.max(entries - v.remove(0));
                    }
                }
                entries += 1;
                let t0 = asked
                    .get_mut(&node)
                    .and_then(|v| (!v.is_empty()).then(|| v.remove(0)));
                let b0 = busy_at_request
                    .get_mut(&node)
                    .and_then(|v| (!v.is_empty()).then(|| v.remove(0)));
                if let (Some(t0), Some(b0)) = (t0, b0) {
                    let waited_inside = busy_total + busy_since.map_or(0, |s| e.t_ns - s) - b0;
                    delays.push((e.t_ns - t0).saturating_sub(waited_inside));
                }
                busy_since = Some(e.t_ns);
            }
            EventKind::Observe {
                obs: Observation::CsExit { .. },
            } => {
                if let Some(s) = busy_since.take() {
                    busy_total += e.t_ns - s;
                }
            }
            _ => {}
        }
    }
    if entries == 0 {
        return Err(super::RowFailure {
            what: format!("{} n={n}: nobody entered", alg.info().name),
            code: crate::exit::VIOLATION,
        });
    }
    // requests still waiting at the end were overtaken by every entry since they were made
    for v in entries_at_request.values() {
        for &at in v {
            max_overtaken = max_overtaken.max(entries - at);
        }
    }
    // Count the messages up to the last exit: what the entries cost, not an idle tail.
    let last_exit = trace
        .events()
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Observe {
                    obs: Observation::CsExit { .. }
                }
            )
        })
        .map(|e| e.t_ns)
        .max()
        .unwrap_or(u64::MAX);
    let mut sent_by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for e in trace.events().iter().filter(|e| e.t_ns <= last_exit) {
        if let EventKind::Send { msg, .. } = &e.kind {
            let kind = msg
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .unwrap_or_default();
            *sent_by_kind.entry(kind.to_string()).or_default() += 1;
        }
    }
    let sent: usize = sent_by_kind.values().sum();
    let lat_ns = (LAT_MS * 1_000_000) as f64;
    Ok(Measure {
        msgs_per_entry: sent as f64 / entries as f64,
        delay_msg_times: delays.iter().sum::<u64>() as f64 / delays.len().max(1) as f64 / lat_ns,
        entries,
        wanted: acquires.len(),
        sent_by_kind,
        max_overtaken,
    })
}

struct Row {
    name: &'static str,
    formula_msgs: &'static str,
    formula_delay: &'static str,
    expect: fn(usize) -> (f64, f64),
}

const ROWS: &[Row] = &[
    Row {
        name: "mutex.token-ring",
        formula_msgs: "1 to inf (x2: each hop is acked)",
        formula_delay: "0 to n-1",
        expect: |n| (1.0, (n - 1) as f64),
    },
    Row {
        name: "mutex.centralized",
        formula_msgs: "3",
        formula_delay: "2",
        expect: |_| (3.0, 2.0),
    },
    Row {
        name: "mutex.decentralized",
        formula_msgs: "3mk, k = 1 (m = n/2+1)",
        formula_delay: "2m",
        expect: |n| (3.0 * (n / 2 + 1) as f64, 2.0 * (n / 2 + 1) as f64),
    },
    Row {
        name: "mutex.ricart-agrawala",
        formula_msgs: "2(n-1)",
        formula_delay: "2(n-1)",
        expect: |n| (2.0 * (n as f64 - 1.0), 2.0 * (n as f64 - 1.0)),
    },
];

/// Runs `sincro table`; returns the exit code.
/// `sincro table mutex`: Table 6.1 measured.
pub fn main(args: &TableArgs) -> i32 {
    let ns = args.n_or(&[3, 5, 10, 20]);
    if ns.iter().any(|&n| n < 3) {
        eprintln!("error: --n values must be at least 3 (the workload uses nodes 1 and 2)");
        return crate::exit::BAD_INPUT;
    }
    println!(
        "Table 6.1 measured: constant latency {LAT_MS} ms = 1 message time, hold {HOLD_MS} ms."
    );
    println!(
        "light = one request, nobody else interested; heavy = every node asks 3 times at once.\n"
    );
    println!("| algorithm | n | msgs/entry light | heavy | book | delay light (msg times) | heavy | book |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut code = crate::exit::PASS;
    let mut cut: Vec<String> = Vec::new();
    for row in ROWS {
        let Ok(alg) = find(row.name) else { continue };
        for &n in &ns {
            let light = measure(alg, n, &[(1, 10)]);
            let heavy_w: Vec<(usize, u64)> = (0..n)
                .flat_map(|node| (0..3).map(move |_| (node, 10)))
                .collect();
            let heavy = measure(alg, n, &heavy_w);
            // A row whose run was cut (a run limit, a verdict) keeps its place and the cells
            // it has: at n = 400 the two mutexes' rows were left out whole, light figures too.
            let cell = |m: &Result<Measure, super::RowFailure>, f: fn(&Measure) -> f64| {
                m.as_ref()
                    .map_or_else(|_| "—".to_string(), |m| format!("{:.2}", f(m)))
            };
            let (em, ed) = (row.expect)(n);
            println!(
                "| {} | {n} | {} | {} | {} = {em} | {} | {} | {} = {ed} |",
                row.name,
                cell(&light, |m| m.msgs_per_entry),
                cell(&heavy, |m| m.msgs_per_entry),
                row.formula_msgs,
                cell(&light, |m| m.delay_msg_times),
                cell(&heavy, |m| m.delay_msg_times),
                row.formula_delay
            );
            for (load, m) in [("light", light), ("heavy", heavy)] {
                if let Err(e) = m {
                    eprintln!("error: {e}");
                    cut.push(format!("{load} load, {}", e.what));
                    if code == crate::exit::PASS {
                        code = e.code;
                    }
                }
            }
        }
    }
    for c in &cut {
        println!("— not measured: {c}");
    }
    println!("\nToken ring: every hop is a TOKEN plus its ACK, so the book's 1 message per entry under heavy");
    println!("load is 2 here; under light load the idle token circulates until someone wants it, so messages");
    println!("per entry grow with the idle time (the book's inf; here the request comes at 10 ms), and the");
    println!("delay is the hops still to go to the requester (0..n-1).");
    println!("The heavy-load delay also counts the message times of the hand-offs between the holders ahead");
    println!("(their time inside is excluded); the book's delay column is the light-load case.");
    println!(
        "Ricart–Agrawala's book delay 2(n-1) assumes the n-1 requests and n-1 replies are sent one"
    );
    println!("after the other; the simulated network carries them in parallel, so the measured delay is 2.");
    println!(
        "Decentralized: the same holds for its m votes, and it asks all n coordinators (below)."
    );
    if let Err(e) = decentralized_rows(&ns) {
        eprintln!("error: {e}");
        if code == crate::exit::PASS {
            code = e.code;
        }
    }
    code
}

/// One row of the decentralized section: `mutex.decentralized` with `n` coordinators (every
/// node) and `m = ⌊n/2⌋ + 1`, on the light or the heavy workload of the table.
pub fn decentralized_row(n: usize, heavy: bool) -> Result<Measure, super::RowFailure> {
    let alg = find("mutex.decentralized").map_err(|e| super::RowFailure::bad_input(e.0))?;
    if heavy {
        let w: Vec<(usize, u64)> = (0..n)
            .flat_map(|node| (0..3).map(move |_| (node, 10)))
            .collect();
        measure(alg, n, &w)
    } else {
        measure(alg, n, &[(1, 10)])
    }
}

/// The decentralized row of Table 6.1, measured, with its messages broken down.
fn decentralized_rows(ns: &[usize]) -> Result<(), super::RowFailure> {
    println!("\n## The decentralized row (mutex.decentralized, Lin et al., seed 000 §6.3.3)\n");
    println!(
        "n coordinators (every node), m = ⌊n/2⌋ + 1 votes needed; same workloads and message time."
    );
    println!(
        "The book: 3mk messages per entry/exit for k attempts, 2m message times before entry;"
    );
    println!("problems: starvation, low efficiency. k is measured (attempts / entries).\n");
    println!("| n | m | load | entries / wanted | k | msgs/entry | = requests + votes + handed back + releases | book 3mk | delay (msg times) | book 2m | most overtaken |");
    println!("|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|");
    for &n in ns {
        let m = n / 2 + 1;
        for heavy in [false, true] {
            let r = decentralized_row(n, heavy)?;
            let e = r.entries as f64;
            let kind = |k: &str| r.sent_by_kind.get(k).copied().unwrap_or(0) as f64;
            let attempts = kind("Request") / n as f64;
            let k = attempts / e;
            let exit_releases = (n * r.entries) as f64;
            println!(
                "| {n} | {m} | {} | {} / {} | {k:.2} | {:.2} | {:.2} + {:.2} + {:.2} + {:.2} | {:.2} | {:.2} | {} | {} |",
                if heavy { "heavy" } else { "light" },
                r.entries,
                r.wanted,
                r.msgs_per_entry,
                kind("Request") / e,
                (kind("Grant") + kind("Deny")) / e,
                (kind("Release") - exit_releases) / e,
                exit_releases / e,
                3.0 * m as f64 * k,
                r.delay_msg_times,
                2 * m,
                r.max_overtaken,
            );
        }
    }
    let (d, c) = (
        utilization("mutex.decentralized", 7, 7, 2000)?,
        utilization("mutex.centralized", 7, 7, 2000)?,
    );
    println!("\nThis implementation, like Lin et al., asks all n coordinators in parallel (not m one after");
    println!(
        "the other): an attempt costs n requests and n votes and 2 message times, a denied attempt"
    );
    println!(
        "hands its grants back, and the exit releases all n. So the light row is 3n messages and 2"
    );
    println!("message times where the book counts 3m and 2m. Under heavy load k > 1: denied attempts back");
    println!("off 5-50 ms and retry. The problems, measured: a waiting request is overtaken again and again");
    println!("(most overtaken; no bound, unlike the token ring's n-1), and with 7 contenders asking 50 times");
    println!(
        "each the resource is in use {:.1} % of a 2 s run (centralized: {:.1} %); see `{} table voting`.",
        100.0 * d,
        100.0 * c,
        crate::program_name()
    );
    Ok(())
}

/// ln C(n, k) for `k <= n`, summed term by term (exact to a few ulps for the sizes used here).
fn ln_choose(n: u64, k: u64) -> f64 {
    let k = k.min(n - k);
    (0..k)
        .map(|i| ((n - i) as f64).ln() - ((i + 1) as f64).ln())
        .sum()
}

/// ln of the text's violation probability of decentralized voting,
/// `Σ_{k=2m−n}^{n} C(m,k) p^k (1−p)^{m−k}` (terms with k > m are 0), summed in log space
/// (log-sum-exp): it neither underflows to 0 nor drops small terms, so 1e-40 or 1e-500 come
/// out as they are. −∞ when no term can occur.
pub fn violation_ln(n: u64, m: u64, p: f64) -> f64 {
    let lo = (2 * m).saturating_sub(n);
    if lo > m || p.is_nan() {
        return f64::NEG_INFINITY;
    }
    if p <= 0.0 {
        // only k = 0 has probability, (1 − p)^m = 1
        return if lo == 0 { 0.0 } else { f64::NEG_INFINITY };
    }
    if p >= 1.0 {
        // every coordinator resets: k = m, which is in range
        return 0.0;
    }
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    let terms: Vec<f64> = (lo..=m)
        .map(|k| ln_choose(m, k) + k as f64 * lp + (m - k) as f64 * lq)
        .collect();
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()
}

/// The text's violation probability of decentralized voting: at least `2m - n` of the `m`
/// coordinators behind a holder reset during its critical section, each with probability `p`
/// ([`violation_ln`], exponentiated: below about 1e-308 it is 0 as an `f64`; read the log then).
pub fn violation_probability(n: u64, m: u64, p: f64) -> f64 {
    violation_ln(n, m, p).exp()
}

/// The text's example (seed 000 §6.3.3): a DHT node stays about three hours, a process holds
/// the resource Δt = 10 s, so a coordinator resets during Δt with p = 10 s / 3 h = 1/1080.
pub const TEXT_EXAMPLE_P: f64 = 10.0 / (3.0 * 3600.0);

/// Wilson score interval (95 %) for `hits` out of `runs`.
pub fn wilson(hits: u64, runs: u64) -> (f64, f64) {
    let (n, z) = (runs as f64, 1.96f64);
    let p = hits as f64 / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// One run of the experiment behind the violation probability: holder A (node `n`) holds the
/// votes of exactly coordinators `0..m` (its requests to the others are slow), each coordinator
/// resets (crash and restart with amnesia) during A's critical section with probability `p`,
/// then B (node `n + 1`) asks everyone: B enters beside A iff at least `2m - n` of A's
/// coordinators forgot their vote.
pub fn voting_experiment(n: usize, m: usize, p: f64, seed: u64) -> Result<bool, String> {
    let mut rng = crate::harness::SimRng::new(seed);
    let faults: Vec<_> = (0..n)
        .filter(|_| rng.chance(p))
        .flat_map(|c| {
            [
                serde_json::json!({"at_ms": 20, "fault": {"crash": {"node": c}}}),
                serde_json::json!({"at_ms": 21, "fault": {"restart": {"node": c}}}),
            ]
        })
        .collect();
    let slow: Vec<_> = (m..n)
        .map(|c| serde_json::json!({"from": n, "to": c, "latency": {"constant": {"ms": 1000}}}))
        .collect();
    let doc = serde_json::json!({
        "algorithm": "mutex.decentralized", "nodes": n + 2, "seed": seed, "duration_ms": 200,
        "params": {"coordinators": n, "m": m},
        "network": {"latency": {"constant": {"ms": 2}}, "links": slow},
        "faults": faults,
        "workload": [
            {"at_ms": 10, "node": n, "input": {"acquire": {"hold_ms": 100}}},
            {"at_ms": 30, "node": n + 1, "input": {"acquire": {"hold_ms": 10}}}
        ],
    });
    let sc = Scenario::from_json(&doc.to_string()).map_err(|e| e.0)?;
    let out = find("mutex.decentralized")
        .map_err(|e| e.0)?
        .run(&sc, RunOptions::new(false))
        .map_err(|e| e.0)?;
    Ok(
        matches!(out.verdict, crate::harness::Verdict::Violation(ref v) if v.property == "mutual_exclusion"),
    )
}

/// Utilization of the resource (fraction of time someone is inside) under `contenders`
/// processes that each want it `k` times at once, over `duration_ms`.
pub fn utilization(
    alg: &str,
    nodes: usize,
    contenders: usize,
    duration_ms: u64,
) -> Result<f64, super::RowFailure> {
    let workload: Vec<_> = (0..contenders)
        .flat_map(|i| (0..50).map(move |_| serde_json::json!({"at_ms": 1, "node": i % nodes, "input": {"acquire": {"hold_ms": 5}}})))
        .collect();
    let doc = serde_json::json!({
        "algorithm": alg, "nodes": nodes, "seed": 5, "duration_ms": duration_ms,
        "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 10}}},
        "workload": workload, "checks": {"properties": ["mutual_exclusion"]},
    });
    let refused = |e: crate::harness::ScenarioError| super::RowFailure::bad_input(e.0);
    let sc = Scenario::from_json(&doc.to_string()).map_err(refused)?;
    let out = find(alg)
        .map_err(refused)?
        .run(&sc, RunOptions::default())
        .map_err(refused)?;
    let trace = out.trace.expect("recorded");
    let (mut inside, mut since) = (0u64, None);
    for e in trace.events() {
        match e.kind {
            EventKind::Observe {
                obs: Observation::CsEnter { .. },
            } => since = Some(e.t_ns),
            EventKind::Observe {
                obs: Observation::CsExit { .. },
            } => {
                if let Some(s) = since.take() {
                    inside += e.t_ns - s;
                }
            }
            _ => {}
        }
    }
    Ok(inside as f64 / (duration_ms * 1_000_000) as f64)
}

/// `sincro table voting`: the violation probability of decentralized voting, computed and
/// measured, and utilization under contention.
pub fn voting_table(runs: u64, ps: &[f64]) -> i32 {
    println!(
        "Decentralized voting: P[violation] = sum_(k=2m-n..n) C(m,k) p^k (1-p)^(m-k), against the"
    );
    println!("rate measured over {runs} seeded runs (each coordinator resets during the holder's critical");
    println!("section with probability p; 95% Wilson interval).\n");
    println!("| n | m | p | P formula | measured | 95% interval | inside |");
    println!("|---:|---:|---:|---:|---:|---|---|");
    let (mut cells, mut inside_count) = (0u32, 0u32);
    for &(n, m) in &[(5usize, 3usize), (5, 4), (7, 5)] {
        for &p in ps {
            let mut hits = 0;
            super::progress::start(format!("voting: n = {n}, m = {m}, p = {p}: runs"), runs);
            for seed in 0..runs {
                super::progress::tick();
                match voting_experiment(n, m, p, seed) {
                    Ok(true) => hits += 1,
                    Ok(false) => {}
                    Err(e) => {
                        eprintln!("error: {e}");
                        return crate::exit::BAD_INPUT;
                    }
                }
            }
            let formula = violation_probability(n as u64, m as u64, p);
            let (lo, hi) = wilson(hits, runs);
            let inside = (lo..=hi).contains(&formula);
            cells += 1;
            inside_count += u32::from(inside);
            println!(
                "| {n} | {m} | {p} | {formula:.4} | {:.4} | [{lo:.4}, {hi:.4}] | {} |",
                hits as f64 / runs as f64,
                if inside { "yes" } else { "NO" }
            );
        }
    }
    println!("\n{inside_count} of {cells} formula values lie inside the measured 95% interval (about 95% are expected to).");
    println!(
        "\nThe text's example (§6.3.3): n = 32, m = 0.75n = 24, so 2m - n = 16 of the holder's 24"
    );
    println!("coordinators must reset; a node stays about 3 hours and Δt = 10 s, so p = 10 s / 3 h = 1/1080.");
    println!("The sum is taken in log space, term by term (no underflow, no approximation).\n");
    println!("| n | m | p | P[violation] | log10 | the text: < 1e-40 |");
    println!("|---:|---:|---|---:|---:|---|");
    let mut example_holds = true;
    for (label, p) in [("1/1080", TEXT_EXAMPLE_P), ("0.001", 0.001)] {
        let l10 = violation_ln(32, 24, p) / std::f64::consts::LN_10;
        example_holds &= l10 < -40.0;
        println!(
            "| 32 | 24 | {label} | {:.4e} | {l10:.3} | {} |",
            violation_probability(32, 24, p),
            if l10 < -40.0 { "holds" } else { "FAILS" }
        );
    }
    println!("\nUtilization collapse: fraction of a 2 s run the resource is in use, every contender asking");
    println!("50 times (hold 5 ms, latency 1-10 ms), 7 nodes.\n");
    println!("| contenders | decentralized | centralized |");
    println!("|---:|---:|---:|");
    for contenders in [1usize, 2, 3, 5, 7] {
        let d = utilization("mutex.decentralized", 7, contenders, 2000);
        let c = utilization("mutex.centralized", 7, contenders, 2000);
        match (d, c) {
            (Ok(d), Ok(c)) => println!("| {contenders} | {d:.3} | {c:.3} |"),
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("error: {e}");
                return crate::exit::BAD_INPUT;
            }
        }
    }
    if example_holds {
        crate::exit::PASS
    } else {
        crate::exit::VIOLATION
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_violation_formula_and_its_experiment_agree() {
        // n = 5, m = 3: one forgotten vote among the holder's three suffices
        assert!((violation_probability(5, 3, 0.1) - (1.0 - 0.9f64.powi(3))).abs() < 1e-12);
        assert_eq!(violation_probability(5, 3, 0.0), 0.0);
        // no reset: never two inside; every one of A's coordinators reset: always
        assert!(!voting_experiment(5, 3, 0.0, 1).unwrap());
        assert!(voting_experiment(5, 3, 1.0, 1).unwrap());
        let runs = 400;
        let hits = (0..runs)
            .filter(|&s| voting_experiment(5, 3, 0.2, s).unwrap())
            .count() as u64;
        let (lo, hi) = wilson(hits, runs);
        let p = violation_probability(5, 3, 0.2);
        assert!(
            lo <= p && p <= hi,
            "{p} outside [{lo}, {hi}] ({hits}/{runs})"
        );
    }

    #[test]
    fn table_6_1_exact_entries_match() {
        for n in [3usize, 5, 10] {
            let c = measure(find("mutex.centralized").unwrap(), n, &[(1, 10)]).unwrap();
            assert_eq!(
                (c.msgs_per_entry, c.delay_msg_times),
                (3.0, 2.0),
                "centralized n={n}"
            );
            let r = measure(find("mutex.ricart-agrawala").unwrap(), n, &[(1, 10)]).unwrap();
            assert_eq!(r.msgs_per_entry, 2.0 * (n as f64 - 1.0), "RA n={n}");
            assert_eq!(
                r.delay_msg_times, 2.0,
                "RA sends in parallel: 2 message times"
            );
            let heavy: Vec<(usize, u64)> = (0..n)
                .flat_map(|node| (0..3).map(move |_| (node, 10)))
                .collect();
            let h = measure(find("mutex.centralized").unwrap(), n, &heavy).unwrap();
            assert_eq!(h.entries, 3 * n);
            assert_eq!(h.msgs_per_entry, 3.0);
        }
    }

    /// The text's example (§6.3.3): n = 32, m = 24, p = 10 s / 3 h gives less than 1e-40,
    /// against the sums computed exactly with rational arithmetic (Python's `fractions`:
    /// `sum(comb(24,k) * p**k * (1-p)**(24-k) for k in range(16, 25))`).
    #[test]
    fn the_text_example_is_below_1e_minus_40() {
        let rel = |got: f64, want: f64| ((got - want) / want).abs();
        let p = violation_probability(32, 24, TEXT_EXAMPLE_P);
        assert!(rel(p, 2.131_848_882_196_178e-43) < 1e-9, "{p:e}");
        assert!(p < 1e-40);
        let p = violation_probability(32, 24, 0.001);
        assert!(rel(p, 7.299_516_064_138_91e-43) < 1e-9, "{p:e}");
        // far below f64's range the log stays exact: n = 200, m = 150, p = 1e-6
        let l10 = violation_ln(200, 150, 1e-6) / std::f64::consts::LN_10;
        assert!((l10 - -559.696_206_615_999_2).abs() < 1e-9, "{l10}");
        assert_eq!(violation_probability(200, 150, 1e-6), 0.0);
        // the edges
        assert_eq!(violation_probability(5, 3, 1.0), 1.0);
        assert_eq!(violation_ln(5, 3, 0.0), f64::NEG_INFINITY);
        assert!((violation_probability(5, 3, 0.2) - 0.488).abs() < 1e-12);
    }

    /// The decentralized row: asking all n coordinators in parallel costs 3n messages and 2
    /// message times with one attempt (the book's 3m and 2m count m coordinators one after the
    /// other); under contention attempts are denied (k > 1) and a waiting request is overtaken
    /// more often than any bounded-waiting algorithm allows (the text's starvation).
    #[test]
    fn the_decentralized_row_is_measured() {
        for n in [3usize, 5, 10] {
            let l = decentralized_row(n, false).unwrap();
            assert_eq!((l.entries, l.wanted), (1, 1));
            assert_eq!(l.msgs_per_entry, 3.0 * n as f64, "n = {n}: {l:?}");
            assert_eq!(l.delay_msg_times, 2.0, "n = {n}");
            for kind in ["Request", "Grant", "Release"] {
                assert_eq!(l.sent_by_kind[kind], n, "n = {n}: {kind}");
            }
        }
        let h = decentralized_row(5, true).unwrap();
        let attempts = h.sent_by_kind["Request"] as f64 / 5.0;
        assert!(attempts / h.entries as f64 > 1.5, "{h:?}");
        assert!(
            h.sent_by_kind.get("Deny").copied().unwrap_or(0) > 0,
            "{h:?}"
        );
        assert!(
            h.max_overtaken > 4,
            "overtaken more than n - 1 times: {h:?}"
        );
    }
}
