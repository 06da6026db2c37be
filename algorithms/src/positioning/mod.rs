//! Global node positioning (Tanenbaum & van Steen §6.4, seed `000`): give every node
//! coordinates in an `m`-dimensional space so that the distance between two nodes predicts
//! their latency.
//!
//! - [`gnp`]: GNP (Ng and Zhang): `L` landmarks place themselves by minimizing the aggregate
//!   relative error `Σ_{i<j} [(d(b_i,b_j) − d̂(b_i,b_j)) / d(b_i,b_j)]²`, then every other node
//!   places itself by minimizing `Σ_i [(d(b_i,P) − d̂(b_i,P)) / d(b_i,P)]²` against them.
//! - [`vivaldi`]: Vivaldi (Dabek et al.): nodes joined by springs whose rest length is the
//!   measured latency; each measurement moves a node a little along the spring's force, and the
//!   system settles where the aggregate error is minimal.
//!
//! Both work on a [`LatencyMatrix`]: from the harness network model
//! ([`LatencyMatrix::from_network`]: mean link latencies, shortest paths over the topology), from
//! points (exactly embeddable), or synthetic Internet-like ([`LatencyMatrix::synthetic`]: points
//! in a plane plus access delays, noise and detours that violate the triangle inequality).
//! Everything is deterministic: randomness only from a seeded [`SimRng`].
//!
//! These are offline computations, not [`sincro_harness::Process`]es: what the text measures
//! is the prediction error, which `sincro table positioning` reports.

pub mod gnp;
pub mod vivaldi;

use sincro_harness::net::{Latency, NetworkSpec};
use sincro_harness::SimRng;

/// Largest matrix accepted (the computations are quadratic or worse in n).
pub const MAX_NODES: usize = 2_000;
/// Largest dimension accepted.
pub const MAX_DIM: usize = 16;

/// A symmetric matrix of latencies between `n` nodes, ms (zero diagonal).
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyMatrix {
    n: usize,
    d: Vec<f64>,
}

impl LatencyMatrix {
    /// A matrix from rows; it must be square, symmetric, finite, positive off the diagonal.
    pub fn new(rows: Vec<Vec<f64>>) -> Result<Self, String> {
        let n = rows.len();
        if !(2..=MAX_NODES).contains(&n) {
            return Err(format!(
                "a latency matrix needs 2 to {MAX_NODES} nodes, got {n}"
            ));
        }
        let mut d = Vec::with_capacity(n * n);
        for (i, row) in rows.iter().enumerate() {
            if row.len() != n {
                return Err(format!("row {i} has {} entries, expected {n}", row.len()));
            }
            d.extend_from_slice(row);
        }
        let m = LatencyMatrix { n, d };
        for i in 0..n {
            for j in 0..n {
                let v = m.get(i, j);
                if i == j {
                    if v != 0.0 {
                        return Err(format!("d({i},{i}) must be 0, got {v}"));
                    }
                } else if !(v.is_finite() && v > 0.0) {
                    return Err(format!("d({i},{j}) must be finite and > 0, got {v}"));
                } else if (v - m.get(j, i)).abs() > 1e-9 * v.max(1.0) {
                    return Err(format!("the matrix is not symmetric at ({i},{j})"));
                }
            }
        }
        Ok(m)
    }

    /// Euclidean distances between `points` (all of the same dimension): exactly embeddable.
    pub fn from_points(points: &[Vec<f64>]) -> Result<Self, String> {
        let rows = points
            .iter()
            .map(|p| points.iter().map(|q| dist(p, q)).collect())
            .collect();
        Self::new(rows)
    }

    /// An Internet-like matrix of `n` nodes: random points in a `side_ms` x `side_ms` plane, a
    /// random access delay per node (the "last mile", 0–10 % of `side_ms`) added to every path,
    /// multiplicative noise `1 + noise · N(0,1)` (clamped), and a fraction `detours` of pairs
    /// whose latency is inflated 1.5–3x (routing detours: they violate the triangle inequality).
    pub fn synthetic(
        n: usize,
        seed: u64,
        side_ms: f64,
        noise: f64,
        detours: f64,
    ) -> Result<Self, String> {
        if !(side_ms.is_finite() && side_ms > 0.0) {
            return Err(format!("side_ms must be > 0, got {side_ms}"));
        }
        if !(0.0..=1.0).contains(&noise) || !(0.0..=1.0).contains(&detours) {
            return Err("noise and detours must be within [0, 1]".into());
        }
        if !(2..=MAX_NODES).contains(&n) {
            return Err(format!("n must be within 2..={MAX_NODES}, got {n}"));
        }
        let mut rng = SimRng::derive(seed, 0x9051);
        let pts: Vec<Vec<f64>> = (0..n)
            .map(|_| vec![rng.unit() * side_ms, rng.unit() * side_ms])
            .collect();
        let access: Vec<f64> = (0..n).map(|_| rng.unit() * 0.1 * side_ms).collect();
        let mut rows = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in i + 1..n {
                let base = dist(&pts[i], &pts[j]) + access[i] + access[j];
                let mut v = base * (1.0 + noise * gaussian(&mut rng)).clamp(0.5, 2.0);
                if rng.chance(detours) {
                    v *= 1.5 + 1.5 * rng.unit();
                }
                let v = v.max(0.1);
                rows[i][j] = v;
                rows[j][i] = v;
            }
        }
        Self::new(rows)
    }

    /// The latency matrix of the harness network model for `n` nodes: each link's mean latency
    /// (per-link overrides applied), and for nodes without a direct link (ring or graph
    /// topologies) the shortest path over the links.
    #[allow(clippy::needless_range_loop)] // Floyd–Warshall reads best with indices
    pub fn from_network(n: usize, spec: &NetworkSpec) -> Result<Self, String> {
        let net = sincro_harness::net::Network::new(n, spec)?;
        let mut d = vec![vec![f64::INFINITY; n]; n];
        for (i, row) in d.iter_mut().enumerate() {
            row[i] = 0.0;
            for &j in net.neighbours(i) {
                row[j] = mean_ms(&net.link(i, j).latency).max(1e-3);
            }
        }
        // symmetric: average both directions
        for i in 0..n {
            for j in i + 1..n {
                let v = match (d[i][j].is_finite(), d[j][i].is_finite()) {
                    (true, true) => (d[i][j] + d[j][i]) / 2.0,
                    (true, false) => d[i][j],
                    (false, true) => d[j][i],
                    _ => f64::INFINITY,
                };
                d[i][j] = v;
                d[j][i] = v;
            }
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    let via = d[i][k] + d[k][j];
                    if via < d[i][j] {
                        d[i][j] = via;
                    }
                }
            }
        }
        if d.iter().flatten().any(|v| !v.is_finite()) {
            return Err("the topology is not connected: some latencies are infinite".into());
        }
        Self::new(d)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false (a matrix has at least two nodes).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Latency between `i` and `j`, ms.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.d[i * self.n + j]
    }

    /// Fraction of triples `(i, j, k)` with `d(i,k) > d(i,j) + d(j,k)` (triangle inequality
    /// violations), sampled over every triple for small matrices.
    pub fn triangle_violations(&self) -> f64 {
        let n = self.n;
        let (mut bad, mut all) = (0u64, 0u64);
        for i in 0..n {
            for k in i + 1..n {
                for j in 0..n {
                    if j == i || j == k {
                        continue;
                    }
                    all += 1;
                    if self.get(i, k) > self.get(i, j) + self.get(j, k) + 1e-9 {
                        bad += 1;
                    }
                }
            }
        }
        if all == 0 {
            0.0
        } else {
            bad as f64 / all as f64
        }
    }
}

/// Mean of a latency distribution, ms (an exponential's cap is ignored).
pub fn mean_ms(l: &Latency) -> f64 {
    match *l {
        Latency::Constant { ms } => ms,
        Latency::Uniform { min_ms, max_ms } => (min_ms + max_ms) / 2.0,
        Latency::Exponential { mean_ms, .. } => mean_ms,
    }
}

/// Euclidean distance.
pub fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// A standard normal draw (Box–Muller).
pub(crate) fn gaussian(rng: &mut SimRng) -> f64 {
    let u1 = rng.unit().max(1e-12);
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The relative error of a prediction, `|d̂ − d| / d` (the term of §6.4's error function).
pub fn relative_error(actual: f64, predicted: f64) -> f64 {
    (predicted - actual).abs() / actual
}

/// Relative errors of `coords` against `m` over every pair `i < j`, sorted ascending.
pub fn pair_errors(m: &LatencyMatrix, coords: &[Vec<f64>]) -> Vec<f64> {
    let mut out = Vec::with_capacity(m.len() * (m.len() - 1) / 2);
    for i in 0..m.len() {
        for j in i + 1..m.len() {
            out.push(relative_error(m.get(i, j), dist(&coords[i], &coords[j])));
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

/// The `q`-quantile (0..=1) of ascending `sorted` values (nearest rank); 0 when empty.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

/// Median and 90th percentile of the relative error of `coords` over every pair.
pub fn error_summary(m: &LatencyMatrix, coords: &[Vec<f64>]) -> (f64, f64) {
    let e = pair_errors(m, coords);
    (percentile(&e, 0.5), percentile(&e, 0.9))
}

/// How far a prediction is from the real latency as a factor, `max(d̂/d, d/d̂)` (1 is exact;
/// a predicted distance of 0 is infinitely far).
pub fn ratio_error(actual: f64, predicted: f64) -> f64 {
    if predicted <= 0.0 {
        return f64::INFINITY;
    }
    (predicted / actual).max(actual / predicted)
}

/// Over every pair `i < j`: the fraction predicted within a factor `factor` of the real
/// latency (`d̂/d` in `[1/factor, factor]`), and the worst pair's [`ratio_error`]. §6.4 (after
/// Szymaniak et al.): with well-chosen landmarks, 6 or 7 dimensions predict every pair within
/// a factor of 2.
pub fn within_factor(m: &LatencyMatrix, coords: &[Vec<f64>], factor: f64) -> (f64, f64) {
    let (mut inside, mut all, mut worst) = (0u64, 0u64, 1.0f64);
    for i in 0..m.len() {
        for j in i + 1..m.len() {
            let r = ratio_error(m.get(i, j), dist(&coords[i], &coords[j]));
            all += 1;
            inside += u64::from(r <= factor);
            worst = worst.max(r);
        }
    }
    (inside as f64 / all.max(1) as f64, worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_are_validated() {
        assert!(LatencyMatrix::new(vec![vec![0.0]]).is_err());
        assert!(LatencyMatrix::new(vec![vec![0.0, 1.0], vec![2.0, 0.0]])
            .unwrap_err()
            .contains("symmetric"));
        assert!(LatencyMatrix::new(vec![vec![0.0, 0.0], vec![0.0, 0.0]]).is_err());
        assert!(LatencyMatrix::synthetic(1, 1, 100.0, 0.1, 0.1).is_err());
        assert!(LatencyMatrix::synthetic(10, 1, 100.0, 2.0, 0.1).is_err());
    }

    #[test]
    fn synthetic_matrices_are_seeded_and_violate_the_triangle_inequality() {
        let a = LatencyMatrix::synthetic(30, 5, 100.0, 0.1, 0.1).unwrap();
        assert_eq!(a, LatencyMatrix::synthetic(30, 5, 100.0, 0.1, 0.1).unwrap());
        assert_ne!(a, LatencyMatrix::synthetic(30, 6, 100.0, 0.1, 0.1).unwrap());
        assert!(a.triangle_violations() > 0.0);
        let plane = LatencyMatrix::synthetic(30, 5, 100.0, 0.0, 0.0).unwrap();
        assert_eq!(plane.triangle_violations(), 0.0);
    }

    #[test]
    fn the_network_model_gives_mean_latencies_and_shortest_paths() {
        let spec: NetworkSpec = serde_json::from_str(
            r#"{"topology": "ring", "latency": {"uniform": {"min_ms": 2, "max_ms": 4}},
                "links": [{"from": 0, "to": 1, "latency": {"constant": {"ms": 9}}}]}"#,
        )
        .unwrap();
        let m = LatencyMatrix::from_network(4, &spec).unwrap();
        // 0 -> 1: the override one way (9) and the default (3) the other: 6 on average
        assert_eq!(m.get(0, 1), 6.0);
        assert_eq!(m.get(1, 2), 3.0);
        assert_eq!(m.get(0, 2), 6.0, "two hops of 3 ms around the other side");
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(percentile(&v, 0.5), 5.0);
        assert_eq!(percentile(&v, 0.9), 9.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn within_a_factor_counts_both_sides() {
        // three nodes on a line at 0, 1, 3: predicted from coordinates 0, 2, 3
        let m = LatencyMatrix::from_points(&[vec![0.0], vec![1.0], vec![3.0]]).unwrap();
        let coords = [vec![0.0], vec![2.0], vec![3.0]];
        // pairs: (0,1) 1 -> 2: factor 2 (inside); (0,2) 3 -> 3: 1; (1,2) 2 -> 1: factor 2
        let (frac, worst) = within_factor(&m, &coords, 2.0);
        assert_eq!((frac, worst), (1.0, 2.0));
        let (frac, _) = within_factor(&m, &coords, 1.5);
        assert!((frac - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(ratio_error(2.0, 0.0), f64::INFINITY);
        assert_eq!(ratio_error(2.0, 0.5), 4.0);
    }
}
