//! The run's random numbers: one seed, sub-seeded per node and per purpose.

use rand::{Rng, RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A deterministic, portable random number generator (xoshiro256++), seeded from the scenario.
///
/// Sub-generators for a node or a purpose come from [`SimRng::derive`], so adding a draw in one
/// place never shifts the draws of another.
#[derive(Clone, Debug)]
pub struct SimRng(Xoshiro256PlusPlus);

impl SimRng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        SimRng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// An independent generator for a purpose (`stream`) under `seed`.
    pub fn derive(seed: u64, stream: u64) -> Self {
        // splitmix-style mixing of the pair so neighbouring streams are unrelated
        let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        SimRng::new(z ^ (z >> 31))
    }

    /// A uniform `u64`.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform value in `[lo, hi]` (inclusive); `lo` when `hi <= lo`.
    #[inline]
    pub fn range_u64(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            self.0.gen_range(lo..=hi)
        }
    }

    /// A uniform index in `0..n` (`n > 0`).
    ///
    /// # Panics
    ///
    /// If `n == 0`; the panic names the caller's line, not this one.
    #[track_caller]
    pub fn index(&mut self, n: usize) -> usize {
        assert!(n > 0, "index() over an empty range");
        self.0.gen_range(0..n)
    }

    /// A uniform `f64` in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        self.0.gen::<f64>()
    }

    /// True with probability `p` (no draw at all when `p <= 0`, so disabled faults cost nothing
    /// and do not shift the stream).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }
}

/// Purposes of derived streams (kept apart so draws of one never shift another).
pub(crate) mod stream {
    pub const NETWORK: u64 = 1;
    pub const CLOCKS: u64 = 2;
    pub const NODE_BASE: u64 = 1 << 32;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_streams_differ() {
        let a: Vec<u64> = (0..8).map(|_| SimRng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = SimRng::derive(7, 1);
        let mut y = SimRng::derive(7, 2);
        assert_ne!(x.next_u64(), y.next_u64());
    }

    #[test]
    fn range_is_inclusive_and_degenerate_safe() {
        let mut r = SimRng::new(1);
        for _ in 0..1000 {
            let v = r.range_u64(3, 5);
            assert!((3..=5).contains(&v));
        }
        assert_eq!(r.range_u64(9, 2), 9);
        assert!(!r.chance(0.0));
    }
}
