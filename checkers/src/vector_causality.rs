//! Vector clocks characterize causality exactly: `VC(a) < VC(b)` if and only if `a → b`.
//!
//! The labelled events are the algorithm's `logical_time` observations carrying a vector
//! (the observation is the event its clocks belong to). Happens-before is the harness's ground
//! truth ([`HappensBefore`]), never the algorithm's clocks. Every new labelled event `b` is
//! judged against every earlier one `a` (the trace order is consistent with happens-before, so
//! `b ↛ a`): the algorithm must say `VC(a) < VC(b)` exactly when `a → b`, and never
//! `VC(b) < VC(a)`. A vector of the wrong length is a violation too.
//!
//! **Every labelled event is judged, without comparing all pairs.** The earlier labelled
//! events of one node `j` are a chain in program order, and the ones that happened before `b`
//! are a prefix of it (those whose own entry of the ground-truth stamp is at most `b`'s entry
//! `j`). Once the chain's vectors are known to increase (each new event is judged against its
//! node's previous one, which happened before it), each of the three conditions fails on an
//! interval of the chain: `VC(a) < VC(b)` holds on a prefix, `VC(b) < VC(a)` on a suffix. So a
//! binary search per node finds the earliest offending `a` of each node, and the violation
//! reported is the one the all-pairs comparison would report (the earliest `a` in trace
//! order). Cost: `O(n² log m)` per labelled event for `n` nodes and `m` labelled events, so a
//! long run is judged to its end.
//!
//! # Contract
//!
//! - **Reads:** the `vector` of `logical_time` observations (its `lamport` value is ignored;
//!   an empty vector is a vector of the wrong length once any observation of the run carries
//!   a vector, and a run where none does, Lamport clocks alone, is not judged); for the ground truth, every event of a
//!   node in `0..nodes` (program order) and `send` → `deliver` edges. Events without a node or
//!   of a node out of range are ignored. Crashes and restarts are not special: a restarted
//!   node continues its program order, so a process that restarts its vector from zero is
//!   reported.
//! - **Settings:** the node count (the expected vector length). No quiet time, no bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes; every
//!   labelled event was judged when it happened (there is no limit on their number). A run
//!   whose `logical_time` observations carry no vector at all could not be judged (stop 74's
//!   probe: a Lamport-only trace was a violation, "a vector of 0 entries").
//! - **Class:** safety.

use sincro_harness::trace::{Event, EventKind, HappensBefore};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};

/// Property name.
pub const PROPERTY: &str = "vector_causality";

/// One labelled event of a node's chain.
#[derive(Debug, Clone)]
struct Labelled {
    id: u64,
    /// The node's own entry of the ground-truth stamp (its position in program order).
    own: u32,
    vc: Vec<u64>,
}

/// `a < b` componentwise-`<=` and different.
fn less(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x <= y) && a != b
}

/// The first index of `chain` where `pred` holds, for a `pred` false then true along it.
fn first_true(chain: &[Labelled], pred: impl Fn(&Labelled) -> bool) -> Option<usize> {
    let i = chain.partition_point(|a| !pred(a));
    (i < chain.len()).then_some(i)
}

/// The vector clock causality checker.
#[derive(Debug)]
pub struct VectorCausality {
    nodes: usize,
    hb: HappensBefore,
    /// per node, its labelled events so far, in program order
    chains: Vec<Vec<Labelled>>,
    /// a `logical_time` with a vector went by
    vectors_seen: bool,
    /// the first `logical_time` without a vector, while none with one has gone by: a
    /// violation once one does (id, node, time)
    first_empty: Option<(u64, NodeId, u64)>,
}

impl VectorCausality {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        VectorCausality {
            nodes,
            hb: HappensBefore::new(nodes),
            chains: vec![Vec::new(); nodes],
            vectors_seen: false,
            first_empty: None,
        }
    }
}

impl Checker for VectorCausality {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let Some(stamp) = self.hb.stamp(ev) else {
            return Ok(());
        };
        let EventKind::Observe {
            obs: Observation::LogicalTime { vector, .. },
        } = &ev.kind
        else {
            return Ok(());
        };
        let truth = stamp.to_vec();
        let node = ev.node.unwrap_or(0);
        let fail = |explanation: String, events: Vec<u64>| Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns: ev.t_ns,
            events,
        };
        // No vector at all: a run of Lamport clocks has nothing to judge, but one that stamps
        // some events with vectors and not others stamps the others wrongly.
        if vector.is_empty() && !self.vectors_seen {
            self.first_empty.get_or_insert((ev.id, node, ev.t_ns));
            return Ok(());
        }
        if !vector.is_empty() {
            self.vectors_seen = true;
            if let Some((id, at, t_ns)) = self.first_empty.take() {
                return Err(Violation {
                    t_ns,
                    ..fail(
                        format!(
                            "node {at} stamped event {id} with no vector, in a run whose event {} at node {node} carries one of {} entries",
                            ev.id,
                            vector.len()
                        ),
                        vec![id, ev.id],
                    )
                });
            }
        }
        if vector.len() != self.nodes {
            return Err(fail(
                format!(
                    "node {node} stamped event {} with a vector of {} entries in a run of {} nodes",
                    ev.id,
                    vector.len(),
                    self.nodes
                ),
                vec![ev.id],
            ));
        }
        let vc = vector;
        // The earliest offending earlier event (by trace id), over every node's chain.
        let mut worst: Option<(u64, NodeId, String)> = None;
        for (j, chain) in self.chains.iter().enumerate() {
            // chain[..split] happened before this event, chain[split..] is concurrent with it
            let split = chain.partition_point(|a| a.own <= truth[j]);
            let (before, concurrent) = chain.split_at(split);
            let mut candidates: Vec<(u64, String)> = Vec::new();
            // a → b but VC(a) ≮ VC(b): fails on a suffix of `before`
            if let Some(i) = first_true(before, |a| !less(&a.vc, vc)) {
                let a = &before[i];
                candidates.push((
                    a.id,
                    format!(
                        "event {} at node {j} happened before event {} at node {node}, but {:?} is not below {:?}",
                        a.id, ev.id, a.vc, vc
                    ),
                ));
            }
            // a ∥ b but VC(a) < VC(b): fails on a prefix of `concurrent`
            if let Some(a) = concurrent.first().filter(|a| less(&a.vc, vc)) {
                candidates.push((
                    a.id,
                    format!(
                        "events {} at node {j} and {} at node {node} are concurrent, but {:?} < {:?} says the first happened before",
                        a.id, ev.id, a.vc, vc
                    ),
                ));
            }
            // VC(b) < VC(a) although b ↛ a: fails on a suffix of the whole chain
            if let Some(i) = first_true(chain, |a| less(vc, &a.vc)) {
                let a = &chain[i];
                candidates.push((
                    a.id,
                    format!(
                        "event {} at node {node} did not happen before event {} at node {j}, but {:?} < {:?} says it did",
                        ev.id, a.id, vc, a.vc
                    ),
                ));
            }
            // the earliest `a`; for one `a`, the first condition above that fails (the
            // all-pairs order)
            if let Some((id, why)) = candidates.into_iter().min_by_key(|(id, _)| *id) {
                if worst.as_ref().is_none_or(|(w, _, _)| id < *w) {
                    worst = Some((id, j, why));
                }
            }
        }
        if let Some((a, _, why)) = worst {
            return Err(fail(why, vec![a, ev.id]));
        }
        self.chains[node].push(Labelled {
            id: ev.id,
            own: truth[node],
            vc: vc.clone(),
        });
        Ok(())
    }

    /// Its ground-truth happens-before stopped at its entry limit: the rest was not judged.
    /// Nor is a run whose `logical_time` observations carry no vector.
    fn could_not_judge(&self) -> Option<String> {
        self.hb.over_limit().or_else(|| {
            self.first_empty.map(|(id, node, _)| {
                format!(
                    "no `logical_time` of the run carries a vector (the first, event {id} at node {node}, has only a Lamport value): no vector clock to judge"
                )
            })
        })
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::{deliver, observe, send};
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn vt(vector: Vec<u64>) -> Observation {
        Observation::LogicalTime { lamport: 0, vector }
    }

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(VectorCausality::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    #[test]
    fn a_receipt_that_does_not_merge_is_caught() {
        // P0 sends at (1,0,0); P1 receives but only ticks: (0,1,0) is not above (1,0,0).
        let v = run(vec![
            observe(0, 0, vt(vec![1, 0, 0])),
            send(1, 0, 1, 1),
            deliver(2, 1, 1, 0, 1),
            observe(3, 1, vt(vec![0, 1, 0])),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 3]);
        assert!(
            v.explanation.contains("happened before"),
            "{}",
            v.explanation
        );
    }

    /// Stop 74's probe: a trace of Lamport clocks alone (no `vector`) was a violation, "a
    /// vector of 0 entries". It is not judged; a run that stamps some events with vectors and
    /// not others is caught, in either order.
    #[test]
    fn lamport_clocks_alone_are_not_judged_and_a_missing_vector_among_vectors_is_caught() {
        let trace = Trace::new(
            3,
            vec![observe(0, 0, vt(vec![])), observe(1, 1, vt(vec![]))],
        );
        let mut c = VectorCausality::new(3);
        for e in trace.events() {
            c.on_event(e).unwrap();
        }
        c.finish(1_000).unwrap();
        let why = c.could_not_judge().expect("no vector: not judged");
        assert!(
            why.contains("no `logical_time` of the run carries a vector"),
            "{why}"
        );
        let v = run(vec![
            observe(0, 0, vt(vec![])),
            observe(1, 1, vt(vec![0, 1, 0])),
        ])
        .unwrap_err();
        assert_eq!((v.events.clone(), v.t_ns), (vec![0, 1], 0), "{v:?}");
        assert!(
            v.explanation.contains("with no vector"),
            "{}",
            v.explanation
        );
        let v = run(vec![
            observe(0, 1, vt(vec![0, 1, 0])),
            observe(1, 0, vt(vec![])),
        ])
        .unwrap_err();
        assert_eq!(v.events, vec![1]);
        assert!(v.explanation.contains("0 entries"), "{}", v.explanation);
        // with vectors throughout, judged as before
        let mut c = VectorCausality::new(3);
        c.on_event(&observe(0, 0, vt(vec![1, 0, 0]))).unwrap();
        assert_eq!(c.could_not_judge(), None);
    }

    #[test]
    fn a_vector_that_claims_a_false_dependency_is_caught() {
        let v = run(vec![
            observe(0, 0, vt(vec![1, 0, 0])),
            observe(1, 2, vt(vec![1, 0, 1])),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("concurrent"), "{}", v.explanation);
    }

    /// Two nodes exchanging a message (each way in turn) every 10 labelled events, stamped
    /// correctly, with
    /// `labelled` labelled events in all; then `last` at node 1, if any.
    fn long_run(labelled: u64, last: Option<Vec<u64>>) -> Result<(), Violation> {
        let mut events = Vec::new();
        let mut vc = [[0u64; 3]; 2];
        let mut id = 0;
        let mut msg = 0;
        for k in 0..labelled {
            let n = (k % 2) as usize;
            vc[n][n] += 1;
            events.push(observe(id, n, vt(vc[n].to_vec())));
            id += 1;
            if k % 10 == 9 {
                // one node, each way in turn, sends to the other, which merges on receipt
                let n = ((k / 10) % 2) as usize;
                let to = 1 - n;
                vc[n][n] += 1;
                events.push(send(id, n, msg, to));
                let sent = id;
                id += 1;
                let (sender, mut receiver) = (vc[n], vc[to]);
                for c in 0..3 {
                    receiver[c] = receiver[c].max(sender[c]);
                }
                receiver[to] += 1;
                vc[to] = receiver;
                events.push(deliver(id, to, msg, n, sent));
                id += 1;
                msg += 1;
            }
        }
        if let Some(v) = last {
            events.push(observe(id, 1, vt(v)));
        }
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(VectorCausality::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    #[test]
    fn every_labelled_event_of_a_long_run_is_judged() {
        // well past the old cut-off of 20,000 labelled events
        long_run(30_000, None).unwrap();
        // a last event at node 1 that claims nothing of node 0's history is caught
        let v = long_run(30_000, Some(vec![0, 1_000_000, 0])).unwrap_err();
        assert!(v.explanation.contains("is not below"), "{}", v.explanation);
        // and one that claims the future of node 0 too
        let v = long_run(30_000, Some(vec![1_000_000, 1_000_000, 0])).unwrap_err();
        assert!(v.explanation.contains("concurrent"), "{}", v.explanation);
    }

    #[test]
    fn correct_vectors_pass() {
        run(vec![
            observe(0, 0, vt(vec![1, 0, 0])),
            send(1, 0, 1, 1),
            observe(2, 2, vt(vec![0, 0, 1])),
            deliver(3, 1, 1, 0, 1),
            observe(4, 1, vt(vec![1, 1, 0])),
            observe(5, 0, vt(vec![2, 0, 0])),
        ])
        .unwrap();
        let v = run(vec![observe(0, 0, vt(vec![1, 0]))]).unwrap_err();
        assert!(v.explanation.contains("2 entries"));
    }

    /// The all-pairs definition, for comparison: the first violating pair `(a, b)`, `b` in
    /// trace order and then `a` in trace order, as event ids.
    fn all_pairs(events: &[Event], nodes: usize) -> Option<(u64, u64)> {
        let mut hb = HappensBefore::new(nodes);
        let mut seen: Vec<(u64, Vec<u32>, Vec<u64>)> = Vec::new();
        for e in events {
            let Some(stamp) = hb.stamp(e) else { continue };
            let stamp = stamp.to_vec();
            let EventKind::Observe {
                obs: Observation::LogicalTime { vector, .. },
            } = &e.kind
            else {
                continue;
            };
            if vector.len() != nodes {
                return Some((e.id, e.id));
            }
            for (a, truth, vc) in &seen {
                let hb = sincro_harness::trace::happened_before(truth, &stamp);
                if hb != less(vc, vector) || less(vector, vc) {
                    return Some((*a, e.id));
                }
            }
            seen.push((e.id, stamp, vector.clone()));
        }
        None
    }

    #[test]
    fn agrees_with_the_all_pairs_comparison_on_random_traces() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut violations = 0;
        for _ in 0..2_000 {
            let nodes = 3;
            let mut vc = vec![vec![0u64; nodes]; nodes];
            let mut in_flight: Vec<(u64, usize, usize, Vec<u64>, u64)> = Vec::new();
            let mut events = Vec::new();
            let mut msg = 0;
            for id in 0..(5 + rnd(25)) {
                let n = rnd(nodes as u64) as usize;
                match rnd(3) {
                    0 => {
                        let to = (n + 1 + rnd(2) as usize) % nodes;
                        vc[n][n] += 1;
                        in_flight.push((msg, n, to, vc[n].clone(), id));
                        events.push(send(id, n, msg, to));
                        msg += 1;
                    }
                    1 if !in_flight.is_empty() => {
                        let (m, from, to, v, sent) =
                            in_flight.remove(rnd(in_flight.len() as u64) as usize);
                        for c in 0..nodes {
                            vc[to][c] = vc[to][c].max(v[c]);
                        }
                        vc[to][to] += 1;
                        events.push(deliver(id, to, m, from, sent));
                    }
                    _ => {
                        vc[n][n] += 1;
                        let mut v = vc[n].clone();
                        if rnd(8) == 0 {
                            // a wrong stamp, now and then
                            let c = rnd(nodes as u64) as usize;
                            v[c] = v[c].saturating_add_signed(rnd(5) as i64 - 2);
                        }
                        events.push(observe(id, n, vt(v)));
                    }
                }
            }
            let trace = Trace::new(nodes, events.clone());
            let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(VectorCausality::new(nodes))];
            let fast = check_trace(&trace, 1_000, &mut cs)
                .err()
                .map(|v| (v.events[0], *v.events.last().unwrap()));
            assert_eq!(fast, all_pairs(&events, nodes), "{events:?}");
            violations += fast.is_some() as u32;
        }
        assert!(violations > 100, "{violations}");
    }
}
