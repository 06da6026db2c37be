//! The scaling curve of `sincro bench --scale`: one workload at growing node counts, each size
//! run in a child process of the same binary (`sincro bench --scale-one WORKLOAD:N`), so the
//! peak resident set it reports (`getrusage` `ru_maxrss` of that child) is the size's own.
//!
//! Workloads, on the native engine with the algorithm's checkers on and the trace off:
//! - `election`: `election.chang-roberts` on the ring, ids a seeded permutation, every node
//!   starting at 1 ms, constant 1 ms links (about n·H(n) messages);
//! - `causal`: `order.causal`, every node multicasting once at a seeded time in the first
//!   100 ms over 1–10 ms links (2·n·(n − 1) messages, each stamped with an n-entry vector
//!   clock; at most [`crate::algorithms::ordering::MAX_NODES`] nodes).
//!
//! Wall time is measured in the child around building the scenario and running it (not the
//! process start).

use crate::harness::engine::RunOptions;
use crate::harness::{Scenario, SimRng};

/// Node counts of the election curve by default.
pub const DEFAULT_SCALE_N: &[usize] = &[10, 100, 1000, 10_000];

/// Node counts of the causal multicast curve by default, up to `order.causal`'s limit (1000
/// took about 20 s when the curve was added, 3.4–4.1 s and 110–113 MiB at stop 77).
pub const DEFAULT_CAUSAL_N: &[usize] = &[10, 100, 500, 1000];

/// The workloads of the curve.
pub const WORKLOADS: &[&str] = &["election", "causal"];

/// One measured size.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Workload name.
    pub workload: String,
    /// Nodes.
    pub n: usize,
    /// Events processed.
    pub events: u64,
    /// Messages sent.
    pub sent: u64,
    /// Wall seconds of building and running the scenario.
    pub secs: f64,
    /// Peak resident set of the process, KiB (`None` where `getrusage` is missing).
    pub peak_kib: Option<u64>,
    /// The run's verdict label (`pass` unless something went wrong).
    pub verdict: String,
}

/// The scenario of `workload` at `n` nodes; an unknown workload or a size the algorithm
/// refuses is an error naming it.
pub fn scenario(workload: &str, n: usize) -> Result<Scenario, String> {
    if n < 2 {
        return Err(format!("{workload} at n = {n}: nodes must be at least 2"));
    }
    let doc = match workload {
        "election" if n > crate::harness::scenario::MAX_NODES => {
            return Err(format!(
                "election: n = {n} is above the {} nodes a scenario may have",
                crate::harness::scenario::MAX_NODES
            ))
        }
        "election" => serde_json::json!({
            "algorithm": "election.chang-roberts", "nodes": n, "seed": 65,
            "duration_ms": 60_000 + 40 * n as u64,
            "params": {"ids": crate::table::election::shuffled(n, 1)},
            "network": {"latency": {"constant": {"ms": 1}}},
            "workload": (0..n)
                .map(|v| serde_json::json!({"at_ms": 1, "node": v, "input": "start"}))
                .collect::<Vec<_>>(),
            "limits": {"max_events": 50_000_000u64, "max_in_flight": 5_000_000usize},
        }),
        "causal" => {
            let max = crate::algorithms::ordering::MAX_NODES;
            if n > max {
                return Err(format!(
                    "causal: n = {n} is above order.causal's {max} nodes"
                ));
            }
            let mut rng = SimRng::new(2);
            let mut at: Vec<(u64, usize)> = (0..n).map(|v| (rng.range_u64(0, 99), v)).collect();
            at.sort_unstable();
            serde_json::json!({
                "algorithm": "order.causal", "nodes": n, "seed": 7, "duration_ms": 2000,
                "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 10}}},
                "workload": at
                    .iter()
                    .map(|&(t, v)| serde_json::json!({"at_ms": t, "node": v,
                        "input": {"multicast": {"name": format!("m{v}")}}}))
                    .collect::<Vec<_>>(),
                "limits": {"max_events": 50_000_000u64, "max_in_flight": 5_000_000usize},
            })
        }
        w => {
            return Err(format!(
                "unknown scale workload `{w}` (one of: {})",
                WORKLOADS.join(", ")
            ))
        }
    };
    Scenario::from_json(&doc.to_string()).map_err(|e| format!("{workload} at n = {n}: {e}"))
}

/// Builds and runs `workload` at `n` nodes in this process.
pub fn run_here(workload: &str, n: usize) -> Result<Point, String> {
    let start = std::time::Instant::now();
    let sc = scenario(workload, n)?;
    let out = crate::algorithms::run_scenario(&sc, RunOptions::new(false)).map_err(|e| e.0)?;
    let secs = start.elapsed().as_secs_f64();
    Ok(Point {
        workload: workload.to_string(),
        n,
        events: out.stats.events,
        sent: out.stats.sent,
        secs,
        peak_kib: peak_rss_kib(),
        verdict: out.verdict.label(),
    })
}

/// This process's peak resident set, KiB.
#[cfg(unix)]
pub fn peak_rss_kib() -> Option<u64> {
    // SAFETY: getrusage writes into the zeroed struct we own; RUSAGE_SELF is always valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } == 0;
    // Linux reports ru_maxrss in KiB (macOS in bytes).
    let kib = if cfg!(target_os = "macos") {
        ru.ru_maxrss / 1024
    } else {
        ru.ru_maxrss
    };
    (ok && kib > 0).then_some(kib as u64)
}

/// This process's peak resident set (not measured on this platform).
#[cfg(not(unix))]
pub fn peak_rss_kib() -> Option<u64> {
    None
}

/// The line a `--scale-one` child prints, and [`parse_line`] reads.
pub fn line(p: &Point) -> String {
    format!(
        "scale {} {} {} {} {:.6} {} {}",
        p.workload,
        p.n,
        p.events,
        p.sent,
        p.secs,
        p.peak_kib.map_or("-".into(), |k| k.to_string()),
        p.verdict
    )
}

/// Reads a line of [`line()`].
pub fn parse_line(s: &str) -> Option<Point> {
    let f: Vec<&str> = s.split_whitespace().collect();
    match f[..] {
        ["scale", w, n, events, sent, secs, peak, verdict] => Some(Point {
            workload: w.to_string(),
            n: n.parse().ok()?,
            events: events.parse().ok()?,
            sent: sent.parse().ok()?,
            secs: secs.parse().ok()?,
            peak_kib: peak.parse().ok(),
            verdict: verdict.to_string(),
        }),
        _ => None,
    }
}

/// `WORKLOAD:N` of `--scale-one`.
pub fn parse_one(s: &str) -> Result<(String, usize), String> {
    let (w, n) = s
        .split_once(':')
        .ok_or_else(|| format!("--scale-one {s}: expected WORKLOAD:N"))?;
    let n = n
        .parse::<usize>()
        .map_err(|e| format!("--scale-one {s}: N: {e}"))?;
    Ok((w.to_string(), n))
}

/// Runs `workload` at `n` in a child process of this binary and reads its line.
pub fn run_child(workload: &str, n: usize) -> Result<Point, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
    let out = std::process::Command::new(exe)
        .args(["bench", "--scale-one", &format!("{workload}:{n}")])
        .output()
        .map_err(|e| format!("cannot run the child: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout.lines().find_map(parse_line).ok_or_else(|| {
        format!(
            "{workload} at n = {n}: the child printed no result ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })
}

/// The curve as a markdown table.
pub fn table(points: &[Point]) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    t.push_str(
        "| workload | n | events | messages | wall s | events/s | peak memory | verdict |\n",
    );
    t.push_str("|---|---:|---:|---:|---:|---:|---:|---|\n");
    for p in points {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {:.3e} | {} | {} |",
            p.workload,
            p.n,
            p.events,
            p.sent,
            // A small size's run is under a millisecond: its wall time printed as 0.000 s
            // beside the rate it gives (stop 64's probe).
            if p.secs >= 0.01 {
                format!("{:.3}", p.secs)
            } else {
                format!("{:.6}", p.secs)
            },
            p.events as f64 / p.secs.max(1e-9),
            p.peak_kib
                .map_or("n/a".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0)),
            p.verdict
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_workload_runs_and_its_line_reads_back() {
        for w in WORKLOADS {
            let p = run_here(w, 12).unwrap();
            assert_eq!(p.verdict, "pass", "{w}");
            assert!(p.events > 12 && p.sent > 0, "{p:?}");
            let back = parse_line(&line(&p)).unwrap();
            assert_eq!(
                (back.workload.as_str(), back.n, back.events),
                (*w, 12, p.events)
            );
        }
        // every node multicasts once: n − 1 copies and n − 1 acks each
        assert_eq!(run_here("causal", 12).unwrap().sent, 2 * 12 * 11);
        assert!(scenario("causal", 5000).unwrap_err().contains("above"));
        // Checked before the scenario is built: a huge size is refused at once, not built.
        assert!(scenario("election", usize::MAX)
            .unwrap_err()
            .contains("above"));
        assert!(scenario("election", 1).unwrap_err().contains("at least 2"));
        assert!(scenario("gossip", 10).unwrap_err().contains("unknown"));
        assert!(parse_one("election").is_err() && parse_one("election:x").is_err());
        assert_eq!(parse_one("causal:7").unwrap(), ("causal".into(), 7));
    }

    /// A run under 10 ms keeps its digits: `0.000 s` beside its rate read as a division by 0.
    #[test]
    fn a_short_runs_wall_time_keeps_its_digits() {
        let point = |secs| Point {
            workload: "election".into(),
            n: 10,
            events: 30,
            sent: 20,
            secs,
            peak_kib: None,
            verdict: "pass".into(),
        };
        let t = table(&[point(0.000_186), point(1.5)]);
        assert!(t.contains("| 0.000186 | 1.613e5 |"), "{t}");
        assert!(t.contains("| 1.500 | 2.000e1 |"), "{t}");
    }
}
