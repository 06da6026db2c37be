//! Vivaldi (Dabek et al. 2004; Tanenbaum & van Steen §6.4): every pair of nodes is joined by a
//! spring whose rest length is their measured latency; `|d(P,Q) − d̂(P,Q)|` is how far the
//! spring is stretched or compressed. Each node moves a little along the force of the springs
//! it measures, and the system settles where the aggregate error is minimal.
//!
//! The adaptive-timestep algorithm of the paper: node `i` keeps coordinates `x_i` and a
//! confidence `e_i` (its recent relative error, starting at 1). When it measures latency `rtt`
//! to node `j`, with `j`'s coordinates and confidence:
//! `w = e_i / (e_i + e_j)`, `e_s = |‖x_i − x_j‖ − rtt| / rtt`,
//! `e_i ← e_s·c_e·w + e_i·(1 − c_e·w)`, `δ = c_c·w`,
//! `x_i ← x_i + δ·(rtt − ‖x_i − x_j‖)·u(x_i − x_j)`, with `u` the unit vector (a seeded random
//! direction when the two points coincide).
//!
//! One round: every node, in id order, measures `samples` peers drawn from its own seeded
//! stream; a measurement is the matrix latency times `1 + jitter·N(0,1)` (clamped).

use super::{dist, error_summary, gaussian, LatencyMatrix, MAX_DIM};
use sincro_harness::SimRng;

/// Knobs of Vivaldi.
#[derive(Clone, Debug, PartialEq)]
pub struct VivaldiOptions {
    /// Dimension of the space.
    pub dim: usize,
    /// Rounds to run.
    pub rounds: usize,
    /// Peers each node measures per round.
    pub samples: usize,
    /// `c_c`, the fraction of the way a node moves towards rest (paper: 0.25).
    pub cc: f64,
    /// `c_e`, the weight of a new error sample (paper: 0.25).
    pub ce: f64,
    /// Relative measurement noise (standard deviation).
    pub jitter: f64,
    /// Seed of peer choices, noise and random directions.
    pub seed: u64,
}

impl VivaldiOptions {
    /// `dim` dimensions, `rounds` rounds, the paper's constants, 4 samples a round, no jitter.
    pub fn new(dim: usize, rounds: usize, seed: u64) -> Self {
        VivaldiOptions {
            dim,
            rounds,
            samples: 4,
            cc: 0.25,
            ce: 0.25,
            jitter: 0.0,
            seed,
        }
    }
}

/// What a run of Vivaldi produced.
#[derive(Clone, Debug, PartialEq)]
pub struct VivaldiResult {
    /// Final coordinates, one per node.
    pub coords: Vec<Vec<f64>>,
    /// Final confidence (local error estimate) of each node.
    pub confidence: Vec<f64>,
    /// `(round, median, p90)` relative error over every pair after the listed rounds.
    pub history: Vec<(usize, f64, f64)>,
}

/// Runs Vivaldi on `m`, recording the error after each round listed in `record` (0: the
/// starting point, every node at the origin).
pub fn run(
    m: &LatencyMatrix,
    opts: &VivaldiOptions,
    record: &[usize],
) -> Result<VivaldiResult, String> {
    let dim = opts.dim;
    if dim == 0 || dim > MAX_DIM {
        return Err(format!("dim must be within 1..={MAX_DIM}, got {dim}"));
    }
    if opts.samples == 0 || opts.rounds > 1_000_000 {
        return Err("samples must be at least 1 and rounds at most 1000000".into());
    }
    for (name, v) in [("cc", opts.cc), ("ce", opts.ce), ("jitter", opts.jitter)] {
        if !(0.0..=1.0).contains(&v) {
            return Err(format!("{name} must be within [0, 1], got {v}"));
        }
    }
    let n = m.len();
    let mut rng = SimRng::derive(opts.seed, 0x717A);
    let mut x = vec![vec![0.0; dim]; n];
    let mut e = vec![1.0_f64; n];
    let mut history = Vec::new();
    let note = |round: usize, x: &[Vec<f64>], history: &mut Vec<(usize, f64, f64)>| {
        if record.contains(&round) {
            let (median, p90) = error_summary(m, x);
            history.push((round, median, p90));
        }
    };
    note(0, &x, &mut history);
    for round in 1..=opts.rounds {
        for i in 0..n {
            for _ in 0..opts.samples {
                let mut j = rng.index(n - 1);
                if j >= i {
                    j += 1;
                }
                let noise = (1.0 + opts.jitter * gaussian(&mut rng)).clamp(0.5, 2.0);
                let rtt = m.get(i, j) * noise;
                let w = e[i] / (e[i] + e[j]).max(1e-12);
                let d = dist(&x[i], &x[j]);
                let es = (d - rtt).abs() / rtt;
                e[i] = (es * opts.ce * w + e[i] * (1.0 - opts.ce * w)).max(1e-9);
                let delta = opts.cc * w;
                let mut u: Vec<f64> = x[i].iter().zip(&x[j]).map(|(a, b)| a - b).collect();
                if d > 1e-12 {
                    u.iter_mut().for_each(|v| *v /= d);
                } else {
                    u = (0..dim).map(|_| gaussian(&mut rng)).collect();
                    let len = u.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-12);
                    u.iter_mut().for_each(|v| *v /= len);
                }
                for (xk, uk) in x[i].iter_mut().zip(&u) {
                    *xk += delta * (rtt - d) * uk;
                }
            }
        }
        note(round, &x, &mut history);
    }
    Ok(VivaldiResult {
        coords: x,
        confidence: e,
        history,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plane(n: usize, seed: u64) -> LatencyMatrix {
        let mut rng = SimRng::new(seed);
        let pts: Vec<Vec<f64>> = (0..n)
            .map(|_| vec![rng.unit() * 100.0, rng.unit() * 100.0])
            .collect();
        LatencyMatrix::from_points(&pts).unwrap()
    }

    #[test]
    fn points_in_a_plane_converge_to_near_zero_error() {
        let m = plane(40, 3);
        let r = run(&m, &VivaldiOptions::new(2, 1_500, 1), &[0, 10, 1_500]).unwrap();
        let (_, median, p90) = *r.history.last().unwrap();
        assert!(median < 0.01 && p90 < 0.03, "median {median} p90 {p90}");
        // the error falls over time
        assert!(r.history[0].1 > 0.9, "everyone starts at the origin");
        assert!(r.history[1].1 < r.history[0].1);
        assert!(median < r.history[1].1);
    }

    #[test]
    fn deterministic_and_seeded() {
        let m = LatencyMatrix::synthetic(30, 9, 100.0, 0.1, 0.1).unwrap();
        let mut o = VivaldiOptions::new(3, 50, 5);
        o.jitter = 0.05;
        let a = run(&m, &o, &[50]).unwrap();
        assert_eq!(a, run(&m, &o, &[50]).unwrap());
        o.seed = 6;
        assert_ne!(a.coords, run(&m, &o, &[50]).unwrap().coords);
    }

    #[test]
    fn bad_options_are_rejected() {
        let m = plane(5, 1);
        assert!(run(&m, &VivaldiOptions::new(0, 5, 1), &[]).is_err());
        let mut o = VivaldiOptions::new(2, 5, 1);
        o.cc = 2.0;
        assert!(run(&m, &o, &[]).unwrap_err().contains("cc"));
    }
}
