//! `sincro table positioning`: node positioning of §6.4 — GNP and Vivaldi — measured as the
//! distribution of the relative error `|d̂(P,Q) − d(P,Q)| / d(P,Q)` over every pair of nodes.
//!
//! Three latency matrices, all seeded:
//! - **plane**: points in a plane (exactly embeddable: both methods should reach ~0);
//! - **internet-like**: points in a plane plus per-node access delays, 10 % noise and 10 % of
//!   pairs on 1.5–3x detours (triangle inequality violations, as the text warns);
//! - **network-model**: the harness network model (`NetworkSpec`) of a random geometric graph
//!   (every node linked to its 4 nearest), each link's latency its length, paths multi-hop.
//!
//! GNP uses 16 landmarks (the first 16 nodes: random, not chosen); Vivaldi runs 200 rounds of
//! 4 measurements per node with 5 % jitter. Dimensions 2, 3, 5 and 7.
//!
//! §6.4's claim (after Szymaniak et al.): with well-chosen landmarks, 6 or 7 dimensions predict
//! the latency of arbitrary pairs within a factor of 2. The table gives, per method, matrix and
//! dimension, the fraction of pairs with `d̂/d` in `[0.5, 2]` and the worst pair's factor.

use super::TableArgs;
use crate::algorithms::positioning::{gnp, vivaldi, within_factor, LatencyMatrix};
use crate::harness::net::{Latency, LinkOverride, NetworkSpec, Topology};
use crate::harness::SimRng;

const SEED: u64 = 42;
const LANDMARKS: usize = 16;
const ROUNDS: usize = 200;
const DIMS: [usize; 4] = [2, 3, 5, 7];
/// Rounds at which Vivaldi's error is reported.
pub const HISTORY: [usize; 10] = [0, 1, 2, 5, 10, 20, 50, 100, 150, 200];

/// One row: median and 90th percentile relative error of a method at a dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Matrix name.
    pub matrix: &'static str,
    /// `gnp` or `vivaldi`.
    pub method: &'static str,
    /// Dimension.
    pub dim: usize,
    /// Median relative error.
    pub median: f64,
    /// 90th-percentile relative error.
    pub p90: f64,
    /// Fraction of pairs predicted within a factor of 2 (`d̂/d` in `[0.5, 2]`).
    pub within2: f64,
    /// The worst pair's factor, `max(d̂/d, d/d̂)`.
    pub worst: f64,
}

/// The three matrices of the table, for `n` nodes.
pub fn matrices(n: usize) -> Result<Vec<(&'static str, LatencyMatrix)>, String> {
    let mut rng = SimRng::derive(SEED, 0x7AB1);
    let pts: Vec<Vec<f64>> = (0..n)
        .map(|_| vec![rng.unit() * 150.0, rng.unit() * 150.0])
        .collect();
    Ok(vec![
        ("plane", LatencyMatrix::from_points(&pts)?),
        (
            "internet-like",
            LatencyMatrix::synthetic(n, SEED, 150.0, 0.1, 0.1)?,
        ),
        ("network-model", network_model(n)?),
    ])
}

/// A random geometric graph in the harness network model: each node linked to its 4 nearest,
/// link latency = distance (ms) + 1.
pub fn network_spec(n: usize) -> NetworkSpec {
    let mut rng = SimRng::derive(SEED, 0x6E37);
    let pts: Vec<(f64, f64)> = (0..n)
        .map(|_| (rng.unit() * 100.0, rng.unit() * 100.0))
        .collect();
    let d =
        |a: usize, b: usize| ((pts[a].0 - pts[b].0).powi(2) + (pts[a].1 - pts[b].1).powi(2)).sqrt();
    let mut edges = std::collections::BTreeSet::new();
    for a in 0..n {
        let mut near: Vec<usize> = (0..n).filter(|&b| b != a).collect();
        near.sort_by(|&x, &y| d(a, x).total_cmp(&d(a, y)));
        for &b in near.iter().take(4) {
            edges.insert([a.min(b), a.max(b)]);
        }
    }
    // keep it connected: chain node i to i+1 too
    for a in 1..n {
        edges.insert([a - 1, a]);
    }
    let links = edges
        .iter()
        .flat_map(|&[a, b]| [(a, b), (b, a)])
        .map(|(a, b)| LinkOverride {
            from: Some(a),
            to: Some(b),
            latency: Some(Latency::Constant { ms: d(a, b) + 1.0 }),
            loss: None,
            duplicate: None,
            reorder: None,
        })
        .collect();
    NetworkSpec {
        topology: Topology::Graph {
            edges: edges.into_iter().collect(),
        },
        links,
        ..NetworkSpec::default()
    }
}

fn network_model(n: usize) -> Result<LatencyMatrix, String> {
    LatencyMatrix::from_network(n, &network_spec(n))
}

/// Vivaldi's `(round, median, p90)` relative error after each recorded round.
pub type History = Vec<(usize, f64, f64)>;

/// GNP and Vivaldi on `m` at `dim`; Vivaldi's history at [`HISTORY`].
pub fn measure(
    name: &'static str,
    m: &LatencyMatrix,
    dim: usize,
) -> Result<(Row, Row, History), String> {
    let landmarks = LANDMARKS.min(m.len());
    let g = gnp::fit(m, &gnp::GnpOptions::new(dim, landmarks, SEED))?;
    let (gm, g90) = crate::algorithms::positioning::error_summary(m, &g.coords);
    let (g2, gw) = within_factor(m, &g.coords, 2.0);
    let mut vo = vivaldi::VivaldiOptions::new(dim, ROUNDS, SEED);
    vo.jitter = 0.05;
    let v = vivaldi::run(m, &vo, &HISTORY)?;
    let &(_, vm, v90) = v.history.last().expect("the last round is recorded");
    let (v2, vw) = within_factor(m, &v.coords, 2.0);
    Ok((
        Row {
            matrix: name,
            method: "gnp",
            dim,
            median: gm,
            p90: g90,
            within2: g2,
            worst: gw,
        },
        Row {
            matrix: name,
            method: "vivaldi",
            dim,
            median: vm,
            p90: v90,
            within2: v2,
            worst: vw,
        },
        v.history,
    ))
}

fn pct(v: f64) -> String {
    format!("{:.1} %", 100.0 * v)
}

/// Runs `sincro table positioning`.
pub fn main(args: &TableArgs) -> i32 {
    let ns = args.n_or(&[64]);
    if ns.iter().any(|&n| !(LANDMARKS + 1..=500).contains(&n)) {
        eprintln!(
            "error: --n values must be within {}..=500 (GNP uses {LANDMARKS} landmarks)",
            LANDMARKS + 1
        );
        return crate::exit::BAD_INPUT;
    }
    for n in ns {
        let mats = match matrices(n) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                return crate::exit::BAD_INPUT;
            }
        };
        println!(
            "Node positioning (§6.4), n = {n}: relative error |d̂ − d| / d over all {} pairs.",
            n * (n - 1) / 2
        );
        println!(
            "GNP: {LANDMARKS} landmarks; Vivaldi: {ROUNDS} rounds x 4 measurements per node, 5 % jitter.\n"
        );
        println!("| matrix | triangle violations | method | dim | median | 90th pct | within x2 | worst factor |");
        println!("|---|---:|---|---:|---:|---:|---:|---:|");
        let mut histories = Vec::new();
        let mut rows = Vec::new();
        for (name, m) in &mats {
            let tiv = pct(m.triangle_violations());
            for dim in DIMS {
                match measure(name, m, dim) {
                    Ok((g, v, hist)) => {
                        for r in [g, v] {
                            println!(
                                "| {} | {tiv} | {} | {} | {} | {} | {} | {:.2} |",
                                r.matrix,
                                r.method,
                                r.dim,
                                pct(r.median),
                                pct(r.p90),
                                pct(r.within2),
                                r.worst
                            );
                            rows.push(r);
                        }
                        histories.push((*name, dim, hist));
                    }
                    Err(e) => {
                        eprintln!("error: {name} dim {dim}: {e}");
                        return crate::exit::BAD_INPUT;
                    }
                }
            }
        }
        println!("\nWithin a factor of 2 (§6.4, after Szymaniak et al.: with well-chosen landmarks 6 or 7");
        println!("dimensions predict d(P,Q) within a factor of 2 for arbitrary P and Q): the fraction of pairs");
        println!("with d̂/d in [0.5, 2], and the worst pair's factor max(d̂/d, d/d̂), against the dimension.\n");
        let head: Vec<String> = DIMS.iter().map(|d| format!("{d} dims")).collect();
        println!("| matrix | method | {} |", head.join(" | "));
        println!("|---|---|{}", "---:|".repeat(DIMS.len()));
        for (name, _) in &mats {
            for method in ["gnp", "vivaldi"] {
                let cells: Vec<String> = DIMS
                    .iter()
                    .filter_map(|&d| {
                        rows.iter()
                            .find(|r| r.matrix == *name && r.method == method && r.dim == d)
                    })
                    .map(|r| format!("{} (worst {:.2})", pct(r.within2), r.worst))
                    .collect();
                println!("| {name} | {method} | {} |", cells.join(" | "));
            }
        }
        println!("\nVivaldi's error over time (median / 90th pct after each round):\n");
        let head: Vec<String> = HISTORY.iter().map(|r| r.to_string()).collect();
        println!("| matrix | dim | {} |", head.join(" | "));
        println!("|---|---:|{}", "---:|".repeat(HISTORY.len()));
        for (name, dim, hist) in histories {
            let cells: Vec<String> = hist
                .iter()
                .map(|&(_, m, p)| format!("{:.0} / {:.0} %", 100.0 * m, 100.0 * p))
                .collect();
            println!("| {name} | {dim} | {} |", cells.join(" | "));
        }
        println!();
    }
    crate::exit::PASS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "4 s of a debug build; CI runs it (ci/check.sh: cargo test -p sincro --lib -- --ignored positioning)"]
    fn the_plane_is_embedded_and_vivaldi_improves_over_time() {
        let mats = matrices(24).unwrap();
        let (name, plane) = &mats[0];
        let (g, v, hist) = measure(name, plane, 2).unwrap();
        assert!(g.median < 1e-3 && g.p90 < 1e-2, "{g:?}");
        assert!(v.median < 0.05, "{v:?}");
        assert_eq!(hist.len(), HISTORY.len());
        assert!(hist.last().unwrap().1 < hist[1].1);
        // the network model's multi-hop latencies are not a plane: some error remains
        let (name, net) = &mats[2];
        let (g, _, _) = measure(name, net, 2).unwrap();
        assert!(g.median > 1e-3, "{g:?}");
    }

    /// §6.4's "within a factor of 2": on the network model (no triangle-inequality violation)
    /// 7 dimensions predict at least 99 % of the pairs within a factor of 2 with both methods,
    /// and the error is lower than at 2 dimensions; on the Internet-like matrix the detours
    /// (10 % of pairs inflated 1.5–3×, two thirds of them beyond 2×) keep about 6 % of the
    /// pairs outside whatever the dimension.
    #[test]
    #[ignore = "15 s of a debug build; CI runs it (ci/check.sh: cargo test -p sincro --lib -- --ignored positioning)"]
    fn a_handful_of_dimensions_predicts_within_a_factor_of_2() {
        let mats = matrices(64).unwrap();
        let (name, net) = &mats[2];
        let (g2, v2, _) = measure(name, net, 2).unwrap();
        let (g7, v7, _) = measure(name, net, 7).unwrap();
        for r in [&g7, &v7] {
            assert!(r.within2 >= 0.99, "{r:?}");
            assert!(r.worst < 3.0, "{r:?}");
        }
        assert!(
            g7.median < g2.median && v7.median < v2.median,
            "{g2:?} {g7:?} {v2:?} {v7:?}"
        );
        assert!(v7.worst < v2.worst, "{v2:?} {v7:?}");
        let (name, inet) = &mats[1];
        let (g, v, _) = measure(name, inet, 7).unwrap();
        for r in [&g, &v] {
            assert!((0.90..0.97).contains(&r.within2), "{r:?}");
            assert!(r.worst > 2.0, "{r:?}");
        }
    }
}
