//! GNP, Global Network Positioning (Ng and Zhang 2002; Tanenbaum & van Steen §6.4).
//!
//! 1. The `L` landmarks measure their pairwise latencies, and a central node computes their
//!    coordinates minimizing the aggregate error
//!    `Σ_{i<j} [(d(b_i,b_j) − d̂(b_i,b_j)) / d(b_i,b_j)]²`. Here: gradient descent with a
//!    backtracking step, from a classical multidimensional-scaling layout and seeded random
//!    ones (`restarts` in all), keeping the best: the error surface has local minima (folded
//!    layouts) that a random start alone often falls into.
//! 2. Every other node `P` measures its latency to each landmark and computes its own
//!    coordinates minimizing `Σ_i [(d(b_i,P) − d̂(b_i,P)) / d(b_i,P)]²`, with the downhill
//!    simplex (Nelder–Mead) method GNP uses, restarted from the best vertex until it stops
//!    improving.
//!
//! The dimension `m` must be below `L` (the text: "L > m always").

use super::{dist, LatencyMatrix, MAX_DIM};
use sincro_harness::SimRng;

/// Knobs of GNP.
#[derive(Clone, Debug, PartialEq)]
pub struct GnpOptions {
    /// Dimension `m` of the space.
    pub dim: usize,
    /// The landmark nodes (distinct indices of the matrix, more than `dim`).
    pub landmarks: Vec<usize>,
    /// Starting layouts for the landmark stage: classical MDS, then seeded random ones.
    pub restarts: usize,
    /// Gradient steps per landmark layout.
    pub iterations: usize,
    /// Seed of the starting layouts.
    pub seed: u64,
}

impl GnpOptions {
    /// `dim` dimensions with the first `landmarks` nodes as landmarks, default effort.
    pub fn new(dim: usize, landmarks: usize, seed: u64) -> Self {
        GnpOptions {
            dim,
            landmarks: (0..landmarks).collect(),
            restarts: 4,
            iterations: 10_000,
            seed,
        }
    }
}

/// Coordinates of every node, and the landmarks' aggregate error.
#[derive(Clone, Debug, PartialEq)]
pub struct GnpResult {
    /// One point per node of the matrix.
    pub coords: Vec<Vec<f64>>,
    /// The landmark stage's final aggregate error (sum of squared relative errors).
    pub landmark_error: f64,
}

/// Runs GNP on `m`.
pub fn fit(m: &LatencyMatrix, opts: &GnpOptions) -> Result<GnpResult, String> {
    let dim = opts.dim;
    let lm = &opts.landmarks;
    if dim == 0 || dim > MAX_DIM {
        return Err(format!("dim must be within 1..={MAX_DIM}, got {dim}"));
    }
    if lm.len() <= dim {
        return Err(format!(
            "GNP needs more landmarks than dimensions (L > m): {} landmarks for m = {dim}",
            lm.len()
        ));
    }
    let mut seen = vec![false; m.len()];
    for &b in lm {
        if b >= m.len() || std::mem::replace(&mut seen[b], true) {
            return Err(format!(
                "landmark {b} is out of range or listed twice (n = {})",
                m.len()
            ));
        }
    }
    if opts.restarts == 0 {
        return Err("restarts must be at least 1".into());
    }

    // Stage 1: the landmarks.
    let scale = lm
        .iter()
        .flat_map(|&i| lm.iter().map(move |&j| (i, j)))
        .map(|(i, j)| m.get(i, j))
        .fold(0.0, f64::max);
    let mut rng = SimRng::derive(opts.seed, 0x6E70);
    // The first start is classical multidimensional scaling (exact for Euclidean distances);
    // the others are seeded random layouts.
    let mds = classical_mds(m, lm, dim, &mut rng);
    let mut best = Some(descend_landmarks(m, lm, mds, opts.iterations));
    for _ in 1..opts.restarts {
        let start: Vec<Vec<f64>> = lm
            .iter()
            .map(|_| (0..dim).map(|_| (rng.unit() - 0.5) * scale).collect())
            .collect();
        let (err, layout) = descend_landmarks(m, lm, start, opts.iterations);
        if best.as_ref().is_none_or(|(e, _)| err < *e) {
            best = Some((err, layout));
        }
    }
    let (landmark_error, layout) = best.expect("at least one restart");

    // Stage 2: every other node against the landmarks.
    let mut coords = vec![Vec::new(); m.len()];
    for (k, &b) in lm.iter().enumerate() {
        coords[b] = layout[k].clone();
    }
    for p in 0..m.len() {
        if seen[p] {
            continue;
        }
        let d: Vec<f64> = lm.iter().map(|&b| m.get(b, p)).collect();
        let f = |x: &[f64]| {
            layout
                .iter()
                .zip(&d)
                .map(|(b, &dp)| {
                    let e = (dp - dist(b, x)) / dp;
                    e * e
                })
                .sum::<f64>()
        };
        // Two starts: the GPS-style linearized solution of the text's equations
        // d_i² = ‖x − b_i‖² (exact for Euclidean distances), and the closest landmark nudged
        // off by its distance; the simplex polishes both and the better one wins.
        let (nearest, _) = d
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .expect("landmarks");
        let mut near = layout[nearest].clone();
        near[0] += d[nearest];
        let mut starts = vec![near];
        starts.extend(trilaterate(&layout, &d));
        coords[p] = starts
            .into_iter()
            .map(|x0| nelder_mead(&f, x0, scale.max(1.0) / 4.0, 1e-12, 400 * dim.max(1)))
            .min_by(|a, b| f(a).total_cmp(&f(b)))
            .expect("a start");
    }
    Ok(GnpResult {
        coords,
        landmark_error,
    })
}

/// Least-squares solution of `2 (b_i − b_0) · x = d_0² − d_i² + ‖b_i‖² − ‖b_0‖²` (the
/// text's circle equations, linearized by subtracting the first); `None` when the landmarks
/// are degenerate (e.g. collinear in the plane).
fn trilaterate(b: &[Vec<f64>], d: &[f64]) -> Option<Vec<f64>> {
    let dim = b[0].len();
    let norm2 = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
    // normal equations A^T A x = A^T y
    let mut ata = vec![vec![0.0; dim]; dim];
    let mut aty = vec![0.0; dim];
    for i in 1..b.len() {
        let a: Vec<f64> = (0..dim).map(|k| 2.0 * (b[i][k] - b[0][k])).collect();
        let y = d[0] * d[0] - d[i] * d[i] + norm2(&b[i]) - norm2(&b[0]);
        for r in 0..dim {
            aty[r] += a[r] * y;
            for c in 0..dim {
                ata[r][c] += a[r] * a[c];
            }
        }
    }
    solve(ata, aty)
}

/// Gaussian elimination with partial pivoting; `None` for a (nearly) singular system.
#[allow(clippy::needless_range_loop)] // matrix code reads best with indices
fn solve(mut a: Vec<Vec<f64>>, mut y: Vec<f64>) -> Option<Vec<f64>> {
    let n = y.len();
    let scale = a
        .iter()
        .flatten()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-300);
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-10 * scale {
            return None;
        }
        a.swap(col, piv);
        y.swap(col, piv);
        for r in col + 1..n {
            let f = a[r][col] / a[col][col];
            for c in col..n {
                a[r][c] -= f * a[col][c];
            }
            y[r] -= f * y[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| a[r][c] * x[c]).sum();
        x[r] = (y[r] - s) / a[r][r];
    }
    Some(x)
}

/// Classical (Torgerson) multidimensional scaling of the landmarks: the top `dim` eigenvectors
/// of the double-centred squared-distance matrix, by power iteration with deflation.
#[allow(clippy::needless_range_loop)]
fn classical_mds(m: &LatencyMatrix, lm: &[usize], dim: usize, rng: &mut SimRng) -> Vec<Vec<f64>> {
    let l = lm.len();
    let sq: Vec<Vec<f64>> = lm
        .iter()
        .map(|&i| lm.iter().map(|&j| m.get(i, j).powi(2)).collect())
        .collect();
    let row: Vec<f64> = sq
        .iter()
        .map(|r| r.iter().sum::<f64>() / l as f64)
        .collect();
    let all = row.iter().sum::<f64>() / l as f64;
    let mut b: Vec<Vec<f64>> = (0..l)
        .map(|i| {
            (0..l)
                .map(|j| -0.5 * (sq[i][j] - row[i] - row[j] + all))
                .collect()
        })
        .collect();
    let mut coords = vec![vec![0.0; dim]; l];
    for k in 0..dim {
        let mut v: Vec<f64> = (0..l).map(|_| rng.unit() - 0.5).collect();
        let mut lambda = 0.0;
        for _ in 0..1_000 {
            let w: Vec<f64> = b
                .iter()
                .map(|r| r.iter().zip(&v).map(|(a, x)| a * x).sum())
                .collect();
            let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm < 1e-300 {
                break;
            }
            lambda = v.iter().zip(&w).map(|(a, c)| a * c).sum::<f64>()
                / v.iter().map(|x| x * x).sum::<f64>();
            v = w.iter().map(|x| x / norm).collect();
        }
        let s = lambda.max(0.0).sqrt();
        for i in 0..l {
            coords[i][k] = v[i] * s;
        }
        for i in 0..l {
            for j in 0..l {
                b[i][j] -= lambda * v[i] * v[j];
            }
        }
    }
    coords
}

/// Aggregate relative error of the landmark layout, and its gradient.
fn landmark_error(m: &LatencyMatrix, lm: &[usize], x: &[Vec<f64>], grad: &mut [Vec<f64>]) -> f64 {
    for g in grad.iter_mut() {
        g.iter_mut().for_each(|v| *v = 0.0);
    }
    let mut err = 0.0;
    for a in 0..lm.len() {
        for b in a + 1..lm.len() {
            let d = m.get(lm[a], lm[b]);
            let dh = dist(&x[a], &x[b]);
            let e = (dh - d) / d;
            err += e * e;
            if dh > 1e-12 {
                let c = 2.0 * e / d / dh;
                for k in 0..x[a].len() {
                    let diff = x[a][k] - x[b][k];
                    grad[a][k] += c * diff;
                    grad[b][k] -= c * diff;
                }
            }
        }
    }
    err
}

/// Gradient descent with a backtracking (Armijo) step.
fn descend_landmarks(
    m: &LatencyMatrix,
    lm: &[usize],
    mut x: Vec<Vec<f64>>,
    iterations: usize,
) -> (f64, Vec<Vec<f64>>) {
    let mut grad = x.clone();
    let mut trial_grad = x.clone();
    let mut err = landmark_error(m, lm, &x, &mut grad);
    let mut step = 1.0;
    for _ in 0..iterations {
        let g2: f64 = grad.iter().flatten().map(|v| v * v).sum();
        if g2 < 1e-30 || err < 1e-24 {
            break;
        }
        let mut accepted = false;
        for _ in 0..60 {
            let trial: Vec<Vec<f64>> = x
                .iter()
                .zip(&grad)
                .map(|(p, g)| p.iter().zip(g).map(|(v, gv)| v - step * gv).collect())
                .collect();
            let e = landmark_error(m, lm, &trial, &mut trial_grad);
            if e <= err - 1e-4 * step * g2 {
                x = trial;
                err = e;
                std::mem::swap(&mut grad, &mut trial_grad);
                step *= 2.0;
                accepted = true;
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            break;
        }
    }
    (err, x)
}

/// Downhill simplex (Nelder–Mead) minimization of `f` from `x0` with initial simplex size
/// `size`; restarted around the best vertex while a restart still improves by more than `tol`.
pub fn nelder_mead(
    f: &dyn Fn(&[f64]) -> f64,
    x0: Vec<f64>,
    size: f64,
    tol: f64,
    max_evals: usize,
) -> Vec<f64> {
    let n = x0.len();
    let mut best = x0;
    let mut best_f = f(&best);
    let mut size = size;
    for _restart in 0..8 {
        let mut simplex: Vec<(f64, Vec<f64>)> = Vec::with_capacity(n + 1);
        simplex.push((best_f, best.clone()));
        for i in 0..n {
            let mut v = best.clone();
            v[i] += size;
            simplex.push((f(&v), v));
        }
        let mut evals = n + 1;
        while evals < max_evals {
            simplex.sort_by(|a, b| a.0.total_cmp(&b.0));
            if (simplex[n].0 - simplex[0].0).abs() <= tol * (simplex[0].0.abs() + tol) {
                break;
            }
            let centroid: Vec<f64> = (0..n)
                .map(|k| simplex[..n].iter().map(|(_, v)| v[k]).sum::<f64>() / n as f64)
                .collect();
            let towards = |t: f64| -> Vec<f64> {
                centroid
                    .iter()
                    .zip(&simplex[n].1)
                    .map(|(c, w)| c + t * (c - w))
                    .collect()
            };
            let xr = towards(1.0);
            let fr = f(&xr);
            evals += 1;
            if fr < simplex[0].0 {
                let xe = towards(2.0);
                let fe = f(&xe);
                evals += 1;
                simplex[n] = if fe < fr { (fe, xe) } else { (fr, xr) };
            } else if fr < simplex[n - 1].0 {
                simplex[n] = (fr, xr);
            } else {
                let xc = if fr < simplex[n].0 {
                    towards(0.5)
                } else {
                    towards(-0.5)
                };
                let fc = f(&xc);
                evals += 1;
                if fc < simplex[n].0.min(fr) {
                    simplex[n] = (fc, xc);
                } else {
                    // shrink towards the best vertex
                    let b = simplex[0].1.clone();
                    for (fv, v) in simplex.iter_mut().skip(1) {
                        for k in 0..n {
                            v[k] = b[k] + 0.5 * (v[k] - b[k]);
                        }
                        *fv = f(v);
                    }
                    evals += n;
                }
            }
        }
        simplex.sort_by(|a, b| a.0.total_cmp(&b.0));
        let improved = best_f - simplex[0].0;
        best_f = simplex[0].0;
        best = simplex[0].1.clone();
        if improved <= tol * (best_f.abs() + tol) {
            break;
        }
        size = (size * 0.5).max(1e-9);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::positioning::error_summary;

    fn plane(n: usize, seed: u64) -> LatencyMatrix {
        let mut rng = SimRng::new(seed);
        let pts: Vec<Vec<f64>> = (0..n)
            .map(|_| vec![10.0 + rng.unit() * 100.0, rng.unit() * 100.0])
            .collect();
        LatencyMatrix::from_points(&pts).unwrap()
    }

    #[test]
    fn points_in_a_plane_are_embedded_with_near_zero_error() {
        let m = plane(40, 3);
        let r = fit(&m, &GnpOptions::new(2, 8, 1)).unwrap();
        let (median, p90) = error_summary(&m, &r.coords);
        assert!(r.landmark_error < 1e-8, "{}", r.landmark_error);
        assert!(median < 1e-4 && p90 < 1e-3, "median {median} p90 {p90}");
    }

    #[test]
    fn more_dimensions_also_fit_a_plane() {
        let m = plane(30, 4);
        let r = fit(&m, &GnpOptions::new(3, 8, 2)).unwrap();
        let (median, _) = error_summary(&m, &r.coords);
        assert!(median < 1e-3, "median {median}");
    }

    #[test]
    fn deterministic() {
        let m = LatencyMatrix::synthetic(16, 9, 100.0, 0.1, 0.1).unwrap();
        let a = fit(&m, &GnpOptions::new(3, 8, 5)).unwrap();
        let b = fit(&m, &GnpOptions::new(3, 8, 5)).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn bad_options_are_rejected() {
        let m = plane(10, 1);
        assert!(fit(&m, &GnpOptions::new(0, 5, 1)).is_err());
        assert!(fit(&m, &GnpOptions::new(3, 3, 1))
            .unwrap_err()
            .contains("L > m"));
        let mut o = GnpOptions::new(2, 4, 1);
        o.landmarks = vec![0, 1, 1, 2];
        assert!(fit(&m, &o).unwrap_err().contains("twice"));
        o.landmarks = vec![0, 1, 2, 30];
        assert!(fit(&m, &o).is_err());
    }

    #[test]
    fn nelder_mead_finds_a_quadratic_minimum() {
        let f = |x: &[f64]| (x[0] - 3.0).powi(2) + 10.0 * (x[1] + 1.0).powi(2);
        let x = nelder_mead(&f, vec![0.0, 0.0], 1.0, 1e-14, 2_000);
        assert!(
            (x[0] - 3.0).abs() < 1e-4 && (x[1] + 1.0).abs() < 1e-4,
            "{x:?}"
        );
    }
}
