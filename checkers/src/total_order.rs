//! Total order: every replica delivers the same sequence — any two messages delivered by two
//! nodes are delivered by both in the same relative order (Tanenbaum & van Steen §6.2.1,
//! totally ordered multicast).
//!
//! Judged online from `delivered` observations: when node `n` delivers `x`, every other node
//! `m` that delivered `x` must have delivered, before `x`, each message that `n` delivered
//! before `x` and `m` also delivered. Checking at every delivery catches every inverted pair
//! at the later of its four deliveries. A message delivered twice by one node is reported too.
//! At the end, the nodes' orders together must fit one sequence: three nodes that each share
//! only one pair (`a` before `b` at one, `b` before `c` at another, `c` before `a` at a third)
//! invert no pair, yet no single sequence holds all three (a cycle of the union of the
//! orders).
//!
//! # Contract
//!
//! - **Reads:** `delivered` observations of nodes in `0..nodes` (messages matched by their
//!   application id). Only the *relative* order of messages two nodes both delivered is
//!   compared, and at the end that all the orders fit one sequence: gaps are allowed, and a
//!   message delivered by some nodes and never by others is not a violation (agreement on
//!   *what* is delivered is not checked). Ignored: `multicast`,
//!   transport events, crashes and restarts (a restarted node keeps its delivery sequence, so
//!   a re-delivery after a restart is reported as delivered twice), partitions, pauses.
//! - **Settings:** the node count only. No quiet time, no bound.
//! - **When the run ends before it can judge:** nothing is pending; `finish` looks for a
//!   cycle of the orders.
//! - **Class:** safety.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "total_order";

/// The most nodes for which the checker keeps its pair table ([`TotalOrder`]'s `latest`):
/// 4096² entries of 4 bytes, 64 MiB, when every node delivers. Above it each delivery scans
/// the deliverer's sequence, as before the table (quadratic in the deliveries of a node).
pub const PAIR_TABLE_NODES_MAX: usize = 4096;

/// The total order checker.
#[derive(Debug)]
pub struct TotalOrder {
    /// per node: id -> (position, event)
    pos: Vec<BTreeMap<String, (usize, u64)>>,
    /// per node: ids in delivery order
    seq: Vec<Vec<String>>,
    /// `latest[n][m]`: 1 + the latest position at `m` of a message both `n` and `m` delivered
    /// (0: none yet); a row is allocated when its node first shares a message. When `n`
    /// delivers `x`, which `m` delivered at `px`, an earlier delivery of `n` that `m`
    /// delivered after `x` exists exactly when `latest[n][m] > px + 1`: one comparison per
    /// node instead of a scan of `n`'s sequence, which made the checker quadratic (stop 69's
    /// probe: 20,000 deliveries of two nodes took 46 s, a `run` of 40,000 deposits did not end
    /// in 120 s). Empty above [`PAIR_TABLE_NODES_MAX`] nodes.
    latest: Vec<Vec<u32>>,
}

impl TotalOrder {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        TotalOrder {
            pos: vec![BTreeMap::new(); nodes],
            seq: vec![Vec::new(); nodes],
            latest: if nodes <= PAIR_TABLE_NODES_MAX {
                vec![Vec::new(); nodes]
            } else {
                Vec::new()
            },
        }
    }

    /// Whether `n` delivered, before now, a message `m` delivered after position `px`, by
    /// the pair table; `None` without one.
    fn inverted(&self, n: NodeId, m: NodeId, px: usize) -> Option<bool> {
        let row = self.latest.get(n)?;
        Some(row.get(m).is_some_and(|&l| l as usize > px + 1))
    }

    /// Records that `n` delivered a message at `pn` that `m` delivered at `pm`.
    fn share(&mut self, n: NodeId, pn: usize, m: NodeId, pm: usize) {
        let nodes = self.pos.len();
        for (a, b, p) in [(n, m, pm), (m, n, pn)] {
            let Some(row) = self.latest.get_mut(a) else {
                return;
            };
            if row.is_empty() {
                *row = vec![0; nodes];
            }
            // Positions count deliveries of one node: far below 2^32 in any run or readable
            // trace (a trace is at most 1 GiB).
            let p = u32::try_from(p + 1).unwrap_or(u32::MAX);
            row[b] = row[b].max(p);
        }
    }
}

impl Checker for TotalOrder {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let EventKind::Observe {
            obs: Observation::Delivered { id: x },
        } = &ev.kind
        else {
            return Ok(());
        };
        let Some(n) = ev.node.filter(|&n| n < self.pos.len()) else {
            return Ok(());
        };
        let fail = |explanation: String, events: Vec<u64>| Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns: ev.t_ns,
            events,
        };
        if let Some(&(_, first)) = self.pos[n].get(x) {
            return Err(fail(
                format!("node {n} delivered {x} twice"),
                vec![first, ev.id],
            ));
        }
        let at = self.seq[n].len();
        for m in 0..self.pos.len() {
            if m == n {
                continue;
            }
            let pos_m = &self.pos[m];
            let Some(&(px, ex)) = pos_m.get(x) else {
                continue;
            };
            if self.inverted(n, m, px) == Some(false) {
                self.share(n, at, m, px);
                continue;
            }
            // Which earlier delivery of `n` it is: the first in `n`'s order, as the scan
            // without the table reports it.
            for z in &self.seq[n] {
                if let Some(&(pz, ez)) = pos_m.get(z) {
                    if pz > px {
                        let (_, nz) = self.pos[n][z];
                        return Err(fail(
                            format!(
                                "node {n} delivered {z} before {x}, but node {m} delivered {x} before {z}",
                            ),
                            vec![nz, ev.id, ex, ez],
                        ));
                    }
                }
            }
            debug_assert!(self.latest.is_empty(), "the pair table saw an inversion");
        }
        self.seq[n].push(x.clone());
        self.pos[n].insert(x.clone(), (at, ev.id));
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        match self.cycle() {
            None => Ok(()),
            Some(steps) => {
                let mut said: Vec<String> = steps
                    .iter()
                    .take(CYCLE_STEPS_SAID)
                    .map(|&(n, x, y, _, _)| format!("node {n} delivered {x} before {y}"))
                    .collect();
                if steps.len() > CYCLE_STEPS_SAID {
                    said.push(format!(
                        "and {} more steps back to {}",
                        steps.len() - CYCLE_STEPS_SAID,
                        steps[0].1
                    ));
                }
                let mut events: Vec<u64> =
                    steps.iter().flat_map(|&(_, _, _, a, b)| [a, b]).collect();
                events.sort_unstable();
                events.dedup();
                Err(Violation {
                    property: PROPERTY.into(),
                    class: PropertyClass::Safety,
                    explanation: format!(
                        "no single sequence fits the nodes' orders: {}",
                        said.join(", ")
                    ),
                    t_ns: end_t_ns,
                    events,
                })
            }
        }
    }
}

/// One step of a cycle: node, the message it delivered first, the next one, their events.
type Step<'a> = (NodeId, &'a str, &'a str, u64, u64);

/// The steps of a cycle a violation spells out (the rest are counted; its events name them
/// all): a cycle through 160,000 messages made a one-line explanation of 160,000 steps.
pub const CYCLE_STEPS_SAID: usize = 12;

impl TotalOrder {
    /// A cycle of the union of the nodes' orders, if any: each step is two messages one node
    /// delivered one right after the other (consecutive deliveries suffice: each node's
    /// order is a chain). Kahn's algorithm removes what precedes nothing; what is left holds
    /// a cycle, followed from any message left until one repeats.
    fn cycle(&self) -> Option<Vec<Step<'_>>> {
        let mut next: BTreeMap<&str, Vec<Step<'_>>> = BTreeMap::new();
        // the steps into each message, as (source, its place in `next[source]`)
        let mut prev: BTreeMap<&str, Vec<(&str, usize)>> = BTreeMap::new();
        let mut into: BTreeMap<&str, usize> = BTreeMap::new();
        for (n, seq) in self.seq.iter().enumerate() {
            for w in seq.windows(2) {
                let (x, y) = (w[0].as_str(), w[1].as_str());
                let step = (n, x, y, self.pos[n][x].1, self.pos[n][y].1);
                let from_x = next.entry(x).or_default();
                prev.entry(y).or_default().push((x, from_x.len()));
                from_x.push(step);
                into.entry(x).or_default();
                *into.entry(y).or_default() += 1;
            }
        }
        let mut free: Vec<&str> = into
            .iter()
            .filter(|&(_, &k)| k == 0)
            .map(|(&m, _)| m)
            .collect();
        while let Some(m) = free.pop() {
            into.remove(m);
            for &(_, _, y, _, _) in next.get(m).map(Vec::as_slice).unwrap_or(&[]) {
                let k = into.get_mut(y).expect("a successor not yet removed");
                *k -= 1;
                if *k == 0 {
                    free.push(y);
                }
            }
        }
        // Every message left has a predecessor left (else Kahn's would have removed it):
        // walking back from one must repeat, and the repeat closes a cycle.
        let start = *into.keys().next()?;
        let mut back: Vec<Step<'_>> = Vec::new();
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut at = start;
        loop {
            if let Some(&i) = seen.get(at) {
                let mut cycle = back.split_off(i);
                cycle.reverse();
                return Some(cycle);
            }
            seen.insert(at, back.len());
            // The first such step in `next`'s order (by source, then as found), as the scan
            // of every step chose it: a lookup of the steps into `at`, not a scan (a cycle
            // through 80,000 messages took 46 s).
            let (x, i) = prev
                .get(at)
                .into_iter()
                .flatten()
                .filter(|(x, _)| into.contains_key(x))
                .min()
                .copied()
                .expect("a message left has a predecessor left");
            let step = next[x][i];
            back.push(step);
            at = step.1;
        }
    }
}

/// The nodes' delivery sequences (for reports and tests).
impl TotalOrder {
    /// Node `n`'s deliveries so far, in order.
    pub fn sequence(&self, n: NodeId) -> &[String] {
        self.seq.get(n).map(Vec::as_slice).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::delivered;
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(TotalOrder::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    #[test]
    fn fig_6_11_opposite_orders_are_caught() {
        // San Francisco applies the deposit first, New York the interest first.
        let v = run(vec![
            delivered(0, 0, "deposit"),
            delivered(1, 1, "interest"),
            delivered(2, 0, "interest"),
            delivered(3, 1, "deposit"),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![1, 3, 0, 2]);
        assert!(
            v.explanation
                .contains("node 1 delivered interest before deposit, but node 0 delivered deposit before interest"),
            "{}",
            v.explanation
        );
        // The inversion is found whichever delivery comes last.
        let v = run(vec![
            delivered(0, 0, "a"),
            delivered(1, 0, "b"),
            delivered(2, 1, "b"),
            delivered(3, 2, "a"),
            delivered(4, 1, "a"),
        ])
        .unwrap_err();
        assert_eq!(v.events[1], 4);
    }

    /// A cycle through 3,000 messages, no pair inverted (each two nodes share one message):
    /// found by a lookup per step (a scan of every step per step took 46 s at 80,000), closed,
    /// every step two consecutive deliveries of its node, and the explanation says the first
    /// steps and counts the rest while the events name them all.
    #[test]
    fn a_long_cycle_is_followed_and_told_in_short() {
        let k = 1000;
        let m = |i: usize| format!("m{}", i % (3 * k));
        let mut events = Vec::new();
        for node in 0..3 {
            for i in node * k..=(node + 1) * k {
                events.push(delivered(events.len() as u64, node, &m(i)));
            }
        }
        let mut c = TotalOrder::new(3);
        for e in &events {
            c.on_event(e).unwrap();
        }
        let steps: Vec<(NodeId, String, String)> = c
            .cycle()
            .expect("a cycle")
            .iter()
            .map(|&(n, x, y, _, _)| (n, x.to_string(), y.to_string()))
            .collect();
        assert_eq!(steps.len(), 3 * k);
        for (i, s) in steps.iter().enumerate() {
            assert_eq!(s.2, steps[(i + 1) % steps.len()].1, "closed");
            let seq = c.sequence(s.0);
            assert!(
                seq.windows(2).any(|w| (&w[0], &w[1]) == (&s.1, &s.2)),
                "{s:?} is two consecutive deliveries of node {}",
                s.0
            );
        }
        let v = c.finish(1_000).unwrap_err();
        assert_eq!(v.events.len(), events.len(), "every delivery of the cycle");
        assert!(
            v.explanation.ends_with(&format!(
                "and {} more steps back to {}",
                3 * k - CYCLE_STEPS_SAID,
                steps[0].1
            )),
            "{}",
            v.explanation
        );
        assert_eq!(
            v.explanation.matches(" delivered ").count(),
            CYCLE_STEPS_SAID
        );
    }

    /// Three nodes that share one pair each invert none, but their orders a < b, b < c and
    /// c < a fit no single sequence: caught at the end, naming the three.
    #[test]
    fn orders_that_fit_no_single_sequence_are_caught_at_the_end() {
        let v = run(vec![
            delivered(0, 0, "a"),
            delivered(1, 0, "b"),
            delivered(2, 1, "b"),
            delivered(3, 1, "c"),
            delivered(4, 2, "c"),
            delivered(5, 2, "a"),
        ])
        .unwrap_err();
        for step in [
            "node 0 delivered a before b",
            "node 1 delivered b before c",
            "node 2 delivered c before a",
        ] {
            assert!(v.explanation.contains(step), "{}", v.explanation);
        }
        assert_eq!(v.events, vec![0, 1, 2, 3, 4, 5]);
        // A message after the cycle does not hide it, and a chain that is no cycle passes.
        run(vec![
            delivered(0, 0, "a"),
            delivered(1, 1, "b"),
            delivered(2, 1, "c"),
            delivered(3, 2, "a"),
            delivered(4, 2, "c"),
        ])
        .unwrap();
    }

    /// The first violation of `events` (and the event it came at) with the pair table, or by
    /// the scan of each deliverer's sequence (the checker without the table: the reference).
    fn first_violation(events: &[Event], nodes: usize, table: bool) -> Option<(u64, Violation)> {
        let mut c = TotalOrder::new(nodes);
        if !table {
            c.latest.clear();
        }
        events
            .iter()
            .find_map(|e| c.on_event(e).err().map(|v| (e.id, v)))
    }

    proptest::proptest! {
        /// The pair table finds the same first inversion, with the same witnesses, as the
        /// scan it replaced, on random deliveries of four nodes over five messages (repeats
        /// included: a node delivering twice).
        #[test]
        fn the_pair_table_agrees_with_the_scan(
            picks in proptest::collection::vec((0usize..4, 0usize..5), 0..40)
        ) {
            let events: Vec<Event> = picks
                .iter()
                .enumerate()
                .map(|(i, &(n, m))| delivered(i as u64, n, &format!("m{m}")))
                .collect();
            let fast = first_violation(&events, 4, true);
            let slow = first_violation(&events, 4, false);
            proptest::prop_assert_eq!(
                fast.map(|(at, v)| (at, v.events, v.explanation)),
                slow.map(|(at, v)| (at, v.events, v.explanation))
            );
        }
    }

    /// Many deliveries in one order at two nodes: linear, where the scan was quadratic (the
    /// probe's 20,000 took 46 s); the benchmark of the speed is `sincro check` on such a trace.
    #[test]
    fn long_agreeing_sequences_pass_and_a_late_inversion_is_caught() {
        // (the scan it is compared with is quadratic: 1.5 s of a debug run at 3,000)
        let k = if crate::test_events::full_size() {
            3_000
        } else {
            1_000
        };
        let mut events = Vec::new();
        for i in 0..k {
            for n in 0..2 {
                let id = events.len() as u64;
                events.push(delivered(id, n, &format!("m{i}")));
            }
        }
        assert!(first_violation(&events, 2, true).is_none());
        // node 1 delivers the last two in the other order: caught, as the scan catches it
        let id = events.len() as u64;
        events.push(delivered(id, 0, "y"));
        events.push(delivered(id + 1, 0, "z"));
        events.push(delivered(id + 2, 1, "z"));
        events.push(delivered(id + 3, 1, "y"));
        let fast = first_violation(&events, 2, true).unwrap();
        let slow = first_violation(&events, 2, false).unwrap();
        assert_eq!(fast.0, id + 3);
        assert_eq!(fast.1, slow.1);
    }

    #[test]
    fn same_relative_order_passes_even_with_gaps() {
        run(vec![
            delivered(0, 0, "a"),
            delivered(1, 1, "a"),
            delivered(2, 0, "b"),
            delivered(3, 2, "c"),
            delivered(4, 0, "c"),
            delivered(5, 1, "c"), // node 1 has not delivered b yet: fine
            delivered(6, 2, "x"),
        ])
        .unwrap();
        let v = run(vec![delivered(0, 0, "a"), delivered(1, 0, "a")]).unwrap_err();
        assert!(v.explanation.contains("twice"));
    }
}
