//! Logical clocks and ordered multicast (Tanenbaum & van Steen §6.2, seed `000`; seed `003`):
//! reusable Lamport and vector clocks ([`clocks`]), the clocks on every event with Fig. 6.9's
//! crystals ([`lamport`]), totally ordered multicast with the replicated bank account
//! ([`total`]), causally ordered multicast ([`causal`]), over a reliable link layer ([`link`]).
//!
//! Each algorithm's file holds its [`Process`](sincro_harness::Process), its [`Spec`] and
//! its pinned tests. This module holds what the family shares: the node limit, the fault
//! model of the reliable links and their liveness bound.

pub mod causal;
pub mod clocks;
pub mod lamport;
pub mod link;
pub mod total;

use crate::spec::{Setup, Spec};
use crate::Algorithm;
use sincro_harness::fault::{FaultClass, FaultModel};

/// The family's algorithms, in the order `sincro list` shows them.
pub(crate) const ALGORITHMS: &[&dyn Algorithm] = &[
    &lamport::LamportSpec,
    &total::TotalSpec,
    &causal::CausalSpec,
];

/// The set of messages a replica delivered, as `replica_agreement` compares it: how many, and
/// an order-independent 64-bit digest of their ids (a sum of mixed hashes), so that equal
/// reports mean equal sets. A count alone did not: three nodes each delivering their own
/// multicast and the next one's reported "2 delivered" alike, though none had all three
/// (stop 64's probe); a balance alone missed a replica that skipped updates adding up to 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeliveredSet {
    count: u64,
    digest: u64,
}

impl DeliveredSet {
    /// Adds message `id` (each id once: a replica delivers a message once).
    pub fn add(&mut self, id: &str) {
        self.count += 1;
        self.digest = self.digest.wrapping_add(mix(fnv1a(id.as_bytes())));
    }

    /// Writes `N delivered, set XXXXXXXXXXXXXXXX` (the digest in hex) after `out`.
    pub fn push_to(&self, out: &mut String) {
        push_decimal(out, self.count);
        out.push_str(" delivered, set ");
        // The digest's 16 nibbles, most significant first, as ASCII bytes written at once
        // (pushed a `char` at a time they were two thirds of this call, once per delivery).
        let mut hex = [0u8; 16];
        for (i, b) in hex.iter_mut().enumerate() {
            let nibble = (self.digest >> ((15 - i) * 4)) & 0xf;
            *b = b"0123456789abcdef"[nibble as usize];
        }
        out.push_str(std::str::from_utf8(&hex).expect("hex digits are ASCII"));
    }
}

/// FNV-1a over `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// SplitMix64's finalizer: spreads a hash over all 64 bits before the digest adds it.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Writes `n` in decimal after `out`, digit by digit (`format!` was a tenth of a 500-node
/// causal run, one per delivery).
pub(crate) fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut rest = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[i..]).expect("decimal digits are ASCII"));
}

/// Largest number of nodes of a logical clock run (vectors are carried on every message).
pub const MAX_NODES: usize = 1_000;

/// Checks the node count against [`MAX_NODES`].
pub fn check_nodes<S: Spec>(setup: &Setup<'_, S>) -> Result<(), String> {
    if setup.nodes() > MAX_NODES {
        return Err(format!(
            "{} supports at most {MAX_NODES} nodes, got {}",
            setup.scenario.algorithm,
            setup.nodes()
        ));
    }
    Ok(())
}

/// Every fault class but crashes: the reliable link layer covers loss, duplication,
/// reordering and partitions.
pub fn reliable_link_model(summary: &'static str) -> FaultModel {
    FaultModel {
        tolerates: vec![
            FaultClass::Loss,
            FaultClass::Duplication,
            FaultClass::Reordering,
            FaultClass::Partitions,
            FaultClass::OnewayPartitions,
            FaultClass::Pauses,
            FaultClass::ClockDrift,
            FaultClass::ClockJumps,
        ],
        summary,
        ..FaultModel::default()
    }
}

/// Retransmission period of the link layer: `param`, or a round trip when it is 0.
pub fn retry_ms<S: Spec>(setup: &Setup<'_, S>, param: u64) -> u64 {
    if param > 0 {
        param
    } else {
        2 * setup.max_latency_ms() + 2
    }
}

/// After the faults stop, every message gets through within a few retransmissions (`retry`
/// ms apart); a backward clock jump (up to 500 ms in generated scenarios) can delay a
/// retransmission timer by as much.
pub fn reliable_bound_ms<S: Spec>(setup: &Setup<'_, S>, retry: u64) -> u64 {
    let lat = setup.max_latency_ms();
    let jumps: u64 = setup
        .scenario
        .faults
        .iter()
        .filter_map(|f| match f.fault {
            sincro_harness::Fault::ClockJump { delta_ms, .. } if delta_ms < 0.0 => {
                Some((-delta_ms).ceil() as u64)
            }
            _ => None,
        })
        .sum();
    20 * (retry + lat) + jumps + 100
}

#[cfg(test)]
mod tests {
    use super::DeliveredSet;

    fn set(ids: &[&str]) -> String {
        let mut d = DeliveredSet::default();
        for id in ids {
            d.add(id);
        }
        let mut out = String::new();
        d.push_to(&mut out);
        out
    }

    /// Equal reports mean equal sets, whatever the order of delivery; a count alone said
    /// three nodes that each missed another message agreed (stop 64's probe).
    #[test]
    fn a_delivered_set_is_told_by_its_members_not_its_size() {
        assert_eq!(set(&["n0.1", "n1.1"]), set(&["n1.1", "n0.1"]));
        let cycle = [set(&["x", "y"]), set(&["y", "z"]), set(&["z", "x"])];
        assert_ne!(cycle[0], cycle[1]);
        assert_ne!(cycle[1], cycle[2]);
        assert_ne!(cycle[0], cycle[2]);
        assert!(cycle[0].starts_with("2 delivered, set "), "{}", cycle[0]);
        assert_eq!(set(&[]), "0 delivered, set 0000000000000000");
        // +$100 and -$100 skipped: another set, though the balance is the same
        assert_ne!(set(&["a", "b", "c"]), set(&["a"]));
    }

    /// The report written byte by byte reads as `format!` writes it (the oracle), for counts
    /// and digests from 0 to their largest.
    #[test]
    fn the_report_is_what_format_writes() {
        let mut rng = sincro_harness::SimRng::new(76);
        let mut cases = vec![(0, 0), (u64::MAX, u64::MAX), (9, 0xf), (10, 1 << 60)];
        cases.extend((0..500).map(|_| (rng.range_u64(0, u64::MAX), rng.range_u64(0, u64::MAX))));
        for (count, digest) in cases {
            let d = DeliveredSet { count, digest };
            let mut out = String::from("x");
            d.push_to(&mut out);
            assert_eq!(out, format!("x{count} delivered, set {digest:016x}"));
            let mut dec = String::new();
            super::push_decimal(&mut dec, count);
            assert_eq!(dec, count.to_string());
        }
    }
}
