//! Superpeer selection on a DHT identifier space (Lo et al. 2005; seed 000 §6.5.3).
//!
//! Every node has an `m`-bit identifier, drawn uniformly. The first `k` bits of the space are
//! reserved for superpeers: the superpeer of a key `p` is the node responsible (on a Chord
//! ring: the successor) for `p AND mask`, where `mask` has the `k` high bits set (for `m = 8`,
//! `k = 3`: `p AND 11100000`). A node `id` is a superpeer when the lookup of `id AND mask`
//! is routed to itself. A fraction `2^(k−m)` of the identifier space sits on a superpeer
//! point, and the text says the number of superpeers is on average `2^(k−m)·N`. That holds
//! only when every identifier is taken (`N = 2^m`, `2^k` superpeers). With fewer nodes each
//! superpeer point with a node at or after it within its prefix's range makes one: about one
//! superpeer per occupied `k`-bit prefix, at most `2^k`, far above `2^(k−m)·N` (measured by
//! `sincro table election`: 249 superpeers for m = 16, k = 8, N = 1,000, where the text's
//! formula gives 3.9; 7 of the 8 nodes of this module's example at m = 8, k = 3, whose ids
//! are chosen here: the text gives the rule and the formula, no set of nodes).
//!
//! A pure computation (no messages): the node ids of a run are the DHT identifiers given to
//! [`SuperpeerRing::new`]. `sincro table election` measures the fraction.

use sincro_harness::SimRng;

/// A Chord-like ring of `m`-bit identifiers with `k`-bit superpeer prefixes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuperpeerRing {
    m: u32,
    k: u32,
    /// Sorted, distinct identifiers.
    ids: Vec<u64>,
}

impl SuperpeerRing {
    /// A ring of the given identifiers (deduplicated); `1 <= k <= m <= 63`, at least one id,
    /// every id below `2^m`.
    pub fn new(m: u32, k: u32, ids: &[u64]) -> Result<Self, String> {
        if !(1..=63).contains(&m) || k == 0 || k > m {
            return Err(format!(
                "superpeers need 1 <= k <= m <= 63, got m={m} k={k}"
            ));
        }
        if ids.is_empty() {
            return Err("superpeers need at least one node".into());
        }
        if let Some(&bad) = ids.iter().find(|&&id| id >> m != 0) {
            return Err(format!("identifier {bad} does not fit in m={m} bits"));
        }
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        ids.dedup();
        Ok(SuperpeerRing { m, k, ids })
    }

    /// `n` distinct identifiers drawn uniformly from the `m`-bit space with `rng`
    /// (`n <= 2^m`).
    pub fn random(m: u32, k: u32, n: usize, rng: &mut SimRng) -> Result<Self, String> {
        if m > 63 || (n as u128) > (1u128 << m) {
            return Err(format!("{n} nodes do not fit in an {m}-bit space"));
        }
        let mut ids = std::collections::BTreeSet::new();
        let space = 1u64 << m;
        while ids.len() < n {
            ids.insert(rng.range_u64(0, space - 1));
        }
        Self::new(m, k, &ids.into_iter().collect::<Vec<_>>())
    }

    /// The mask with the `k` high bits of `m` set.
    pub fn mask(&self) -> u64 {
        ((1u64 << self.k) - 1) << (self.m - self.k)
    }

    /// The identifiers, sorted.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }

    /// The node responsible for `key`: its successor on the ring (the first id `>= key`,
    /// wrapping round).
    pub fn successor(&self, key: u64) -> u64 {
        match self.ids.binary_search(&key) {
            Ok(i) => self.ids[i],
            Err(i) => self.ids[i % self.ids.len()],
        }
    }

    /// The superpeer of `key`: the node responsible for `key AND mask`.
    pub fn superpeer_of(&self, key: u64) -> u64 {
        self.successor(key & self.mask())
    }

    /// True when the lookup of `id AND mask` is routed to `id` itself.
    pub fn is_superpeer(&self, id: u64) -> bool {
        self.superpeer_of(id) == id
    }

    /// The superpeers, sorted.
    pub fn superpeers(&self) -> Vec<u64> {
        self.ids
            .iter()
            .copied()
            .filter(|&id| self.is_superpeer(id))
            .collect()
    }

    /// The expected number of superpeers by the text's formula, `2^(k−m)·N`.
    pub fn expected_superpeers(&self) -> f64 {
        self.ids.len() as f64 * 2f64.powi(self.k as i32 - self.m as i32)
    }

    /// The nodes whose identifier is a superpeer point (`id AND mask = id`): a fraction
    /// `2^(k−m)` of the identifier space.
    pub fn on_superpeer_points(&self) -> usize {
        self.ids
            .iter()
            .filter(|&&id| id & self.mask() == id)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_texts_example_m8_k3() {
        let r = SuperpeerRing::new(8, 3, &[5, 40, 64, 100, 130, 200, 224, 250]).unwrap();
        assert_eq!(r.mask(), 0b1110_0000);
        // 100 AND 11100000 = 96, whose successor is 100: a superpeer.
        assert!(r.is_superpeer(100));
        // 130 AND mask = 128 -> successor 130: a superpeer; 250 -> 224: not one.
        assert!(r.is_superpeer(130));
        assert_eq!(r.superpeer_of(250), 224);
        assert!(!r.is_superpeer(250));
        assert_eq!(r.superpeer_of(5), 5);
        assert_eq!(r.superpeers(), vec![5, 40, 64, 100, 130, 200, 224]);
    }

    #[test]
    fn a_full_space_has_exactly_two_to_the_k_superpeers() {
        let all: Vec<u64> = (0..256).collect();
        let r = SuperpeerRing::new(8, 3, &all).unwrap();
        assert_eq!(r.superpeers().len(), 8);
        assert_eq!(r.expected_superpeers(), 8.0);
        assert_eq!(r.on_superpeer_points(), 8);
        // every node's superpeer is its prefix point
        assert!(all.iter().all(|&id| r.superpeer_of(id) == id & 0b1110_0000));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(SuperpeerRing::new(8, 9, &[1]).is_err());
        assert!(SuperpeerRing::new(8, 3, &[]).is_err());
        assert!(SuperpeerRing::new(8, 3, &[256]).is_err());
        assert!(SuperpeerRing::random(4, 2, 17, &mut SimRng::new(1)).is_err());
    }
}
