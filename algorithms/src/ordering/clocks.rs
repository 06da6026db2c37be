//! Reusable logical clocks (Tanenbaum & van Steen §6.2, seed `000`): Lamport clocks with the
//! process-id tie break, and vector clocks.
//!
//! Both follow the three steps of the text (Raynal and Singhal): tick before every event,
//! stamp outgoing messages with the clock after the tick, and on receipt merge the stamp in
//! and tick. [`LamportClock::stamp`] gives `(time, pid)` pairs, totally ordered ("an event at
//! time 40 at `P_i` gets the stamp 40.i"); [`VectorClock::compare`] gives the partial order of
//! causality (before, after, equal or concurrent).

use serde::{Deserialize, Serialize};
use sincro_harness::NodeId;
use std::cmp::Ordering;

/// A Lamport stamp: clock value, then process id. Ordered lexicographically, so two distinct
/// events never compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LamportStamp {
    /// Clock value.
    pub time: u64,
    /// Process id, the tie break.
    pub pid: NodeId,
}

/// A Lamport clock `C_i` of process `pid`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LamportClock {
    time: u64,
    pid: NodeId,
}

impl LamportClock {
    /// A clock of process `pid` reading `time`.
    pub fn new(pid: NodeId, time: u64) -> Self {
        LamportClock { time, pid }
    }

    /// The current value.
    pub fn time(&self) -> u64 {
        self.time
    }

    /// The owning process.
    pub fn pid(&self) -> NodeId {
        self.pid
    }

    /// Step 1: before an event, `C_i <- C_i + 1`. Returns the event's stamp (also the
    /// timestamp of a message sent as this event, step 2).
    pub fn tick(&mut self) -> LamportStamp {
        self.time = self.time.saturating_add(1);
        self.stamp()
    }

    /// Step 3: on receipt of a message stamped `ts`, `C_j <- max(C_j, ts)`, then tick. Returns
    /// the receive event's stamp.
    pub fn receive(&mut self, ts: u64) -> LamportStamp {
        self.time = self.time.max(ts);
        self.tick()
    }

    /// Moves the clock forward to at least `time` (never backwards).
    pub fn advance_to(&mut self, time: u64) {
        self.time = self.time.max(time);
    }

    /// The current stamp `(time, pid)`.
    pub fn stamp(&self) -> LamportStamp {
        LamportStamp {
            time: self.time,
            pid: self.pid,
        }
    }
}

/// How two vector clocks relate: the partial order of causality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Causality {
    /// Same vector.
    Equal,
    /// The first happened before the second (`<=` everywhere, `<` somewhere).
    Before,
    /// The second happened before the first.
    After,
    /// Neither: concurrent events.
    Concurrent,
}

/// A vector clock `VC_i` of process `pid` over `n` processes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct VectorClock {
    pid: NodeId,
    v: Vec<u64>,
}

impl VectorClock {
    /// The zero vector of process `pid` in a group of `n` (pid must be `< n`; a larger pid
    /// grows the vector to fit).
    pub fn new(pid: NodeId, n: usize) -> Self {
        VectorClock {
            pid,
            v: vec![0; n.max(pid + 1)],
        }
    }

    /// The owning process.
    pub fn pid(&self) -> NodeId {
        self.pid
    }

    /// The entries.
    pub fn as_slice(&self) -> &[u64] {
        &self.v
    }

    /// Entry `k` (0 beyond the vector).
    pub fn get(&self, k: usize) -> u64 {
        self.v.get(k).copied().unwrap_or(0)
    }

    /// Step 1: before an event, `VC_i[i] <- VC_i[i] + 1`. Returns the vector after the tick
    /// (a message sent as this event carries it, step 2).
    pub fn tick(&mut self) -> Vec<u64> {
        let me = self.pid;
        self.v[me] = self.v[me].saturating_add(1);
        self.v.clone()
    }

    /// `VC_i[k] <- max(VC_i[k], ts[k])` for every `k` (no tick).
    pub fn merge(&mut self, ts: &[u64]) {
        if ts.len() > self.v.len() {
            self.v.resize(ts.len(), 0);
        }
        for (c, t) in self.v.iter_mut().zip(ts) {
            *c = (*c).max(*t);
        }
    }

    /// Step 3: merge a received stamp, then tick. Returns the receive event's vector.
    pub fn receive(&mut self, ts: &[u64]) -> Vec<u64> {
        self.merge(ts);
        self.tick()
    }

    /// How `a` relates to `b` (missing entries count as 0).
    pub fn compare(a: &[u64], b: &[u64]) -> Causality {
        let mut less = false;
        let mut greater = false;
        for k in 0..a.len().max(b.len()) {
            let x = a.get(k).copied().unwrap_or(0);
            let y = b.get(k).copied().unwrap_or(0);
            match x.cmp(&y) {
                Ordering::Less => less = true,
                Ordering::Greater => greater = true,
                Ordering::Equal => {}
            }
        }
        match (less, greater) {
            (false, false) => Causality::Equal,
            (true, false) => Causality::Before,
            (false, true) => Causality::After,
            (true, true) => Causality::Concurrent,
        }
    }

    /// True when `a < b`: `a` causally precedes `b`.
    pub fn before(a: &[u64], b: &[u64]) -> bool {
        Self::compare(a, b) == Causality::Before
    }
}

impl PartialOrd for VectorClock {
    /// The causal partial order (`None` for concurrent clocks).
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        match Self::compare(&self.v, &other.v) {
            Causality::Equal => Some(Ordering::Equal),
            Causality::Before => Some(Ordering::Less),
            Causality::After => Some(Ordering::Greater),
            Causality::Concurrent => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lamport_steps_of_the_text() {
        // Fig. 6.9(b): m3 leaves P3 at 60 and P2 reads 56: the receipt is stamped 61.
        let mut p2 = LamportClock::new(1, 56);
        assert_eq!(p2.receive(60).time, 61);
        // A stale stamp does not move the clock back; the event still ticks.
        assert_eq!(p2.receive(3).time, 62);
        let mut p1 = LamportClock::new(0, 0);
        assert_eq!(p1.tick(), LamportStamp { time: 1, pid: 0 });
    }

    #[test]
    fn pid_breaks_ties() {
        let a = LamportStamp { time: 40, pid: 1 };
        let b = LamportStamp { time: 40, pid: 2 };
        let c = LamportStamp { time: 39, pid: 7 };
        assert!(a < b && c < a);
        let mut v = vec![b, a, c];
        v.sort();
        assert_eq!(v, vec![c, a, b]);
    }

    #[test]
    fn vector_steps_and_comparisons() {
        let mut p0 = VectorClock::new(0, 3);
        let mut p1 = VectorClock::new(1, 3);
        let mut p2 = VectorClock::new(2, 3);
        let m = p0.tick();
        assert_eq!(m, vec![1, 0, 0]);
        let r = p1.receive(&m);
        assert_eq!(r, vec![1, 1, 0]);
        let x = p2.tick();
        assert_eq!(VectorClock::compare(&m, &r), Causality::Before);
        assert_eq!(VectorClock::compare(&r, &m), Causality::After);
        assert_eq!(VectorClock::compare(&x, &r), Causality::Concurrent);
        assert_eq!(VectorClock::compare(&x, &x), Causality::Equal);
        assert!(VectorClock::before(&m, &r) && !VectorClock::before(&r, &m));
        assert_eq!(p0.partial_cmp(&p1), Some(Ordering::Less));
        assert_eq!(p1.partial_cmp(&p2), None);
        assert_eq!(VectorClock::compare(&[1], &[1, 0, 0]), Causality::Equal);
    }

    /// A random run: each step, process `p` ticks alone or receives a message sent earlier.
    fn run(
        n: usize,
        steps: &[(usize, Option<usize>)],
    ) -> Vec<(usize, LamportStamp, Vec<u64>, Vec<usize>)> {
        let mut l: Vec<LamportClock> = (0..n).map(|p| LamportClock::new(p, 0)).collect();
        let mut v: Vec<VectorClock> = (0..n).map(|p| VectorClock::new(p, n)).collect();
        // (node, lamport, vector, direct predecessors)
        let mut events: Vec<(usize, LamportStamp, Vec<u64>, Vec<usize>)> = Vec::new();
        let mut last: Vec<Option<usize>> = vec![None; n];
        for &(p, recv) in steps {
            let p = p % n;
            let mut preds: Vec<usize> = last[p].into_iter().collect();
            let (ls, vs) = match recv.filter(|_| !events.is_empty()) {
                Some(i) => {
                    let i = i % events.len();
                    preds.push(i);
                    let (t, vec) = (events[i].1.time, events[i].2.clone());
                    (l[p].receive(t), v[p].receive(&vec))
                }
                None => (l[p].tick(), v[p].tick()),
            };
            last[p] = Some(events.len());
            events.push((p, ls, vs, preds));
        }
        events
    }

    fn happened_before(
        events: &[(usize, LamportStamp, Vec<u64>, Vec<usize>)],
        a: usize,
        b: usize,
    ) -> bool {
        // a -> b iff a is reachable backwards from b through predecessor edges.
        let mut stack = vec![b];
        let mut seen = vec![false; events.len()];
        while let Some(x) = stack.pop() {
            for &p in &events[x].3 {
                if p == a {
                    return true;
                }
                if !seen[p] {
                    seen[p] = true;
                    stack.push(p);
                }
            }
        }
        false
    }

    proptest! {
        #[test]
        fn clock_condition_and_exact_causality(
            n in 1usize..5,
            steps in proptest::collection::vec((0usize..5, proptest::option::of(0usize..64)), 1..40),
        ) {
            let ev = run(n, &steps);
            for a in 0..ev.len() {
                for b in 0..ev.len() {
                    if a == b { continue; }
                    let hb = happened_before(&ev, a, b);
                    // Lamport: a -> b implies C(a) < C(b); stamps are all distinct.
                    if hb { prop_assert!(ev[a].1 < ev[b].1); }
                    prop_assert_ne!(ev[a].1, ev[b].1);
                    // Vector clocks characterize causality exactly.
                    prop_assert_eq!(VectorClock::before(&ev[a].2, &ev[b].2), hb);
                }
            }
        }

        #[test]
        fn merge_is_the_least_upper_bound(
            a in proptest::collection::vec(0u64..10, 3),
            b in proptest::collection::vec(0u64..10, 3),
        ) {
            let mut m = VectorClock::new(0, 3);
            m.merge(&a);
            m.merge(&b);
            let ca = VectorClock::compare(&a, m.as_slice());
            let cb = VectorClock::compare(&b, m.as_slice());
            prop_assert!(matches!(ca, Causality::Before | Causality::Equal));
            prop_assert!(matches!(cb, Causality::Before | Causality::Equal));
            for (k, (x, y)) in a.iter().zip(&b).enumerate() { prop_assert_eq!(m.get(k), *x.max(y)); }
            // compare is antisymmetric
            let ab = VectorClock::compare(&a, &b);
            let ba = VectorClock::compare(&b, &a);
            let flipped = match ab {
                Causality::Before => Causality::After,
                Causality::After => Causality::Before,
                c => c,
            };
            prop_assert_eq!(ba, flipped);
        }
    }
}
