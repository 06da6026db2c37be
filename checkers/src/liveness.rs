//! Liveness of requests: after the faults stop, every pending request for a critical section
//! is granted within a bound.
//!
//! A request (`cs_request`) is served by the node's next `cs_enter` on that resource, or
//! withdrawn by `cs_abandon`. A request pending at time `t` must be served by
//! `max(t, quiet) + bound`, where `quiet` is when the fault plan's last fault happened. A crash
//! (or restart) of the requester cancels its requests: a crashed process asks for nothing.
//! A request still pending at the end of the run whose deadline is not past cannot be judged
//! (the run was too short to tell), and the checker says so.
//!
//! # Contract
//!
//! - **Reads:** `cs_request` (a request becomes pending), `cs_enter` and `cs_abandon` (each
//!   removes the node's oldest pending request on that resource; one without a pending request
//!   is ignored) observations, and `crash` / `restart` faults (drop every pending request of
//!   the node). Ignored: `cs_exit`, messages, partitions, and pauses — a request of a paused
//!   node stays pending and its deadline runs.
//! - **Settings:** the quiet time (`scenario.quiet_from_ms()`, the time of the fault plan's
//!   last fault of any kind) and the liveness bound; not the node count. A request made at `t`
//!   must be served by `max(t, quiet) + bound`. The bound is taken as given: 0 is not "no
//!   bound" but "served at that very instant", so with 0 almost every request that waits at
//!   all is reported. There is no "missing" bound here; callers must pass the algorithm's
//!   ([`crate::Property::NEEDS_BOUND`]).
//! - **When the run ends before it can judge:** `finish` reports a request whose deadline is
//!   before the end of the run; if a request is still pending with its deadline at or after
//!   the end, the run is **not judged** ([`Checker::could_not_judge`] names the request, its
//!   deadline and the end). A run that ends with nothing pending is judged.
//! - **Class:** liveness (reported online, at the first event past a deadline, or at the end).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{
    Checker, Fault, Interest, NodeId, Observation, PropertyClass, Violation, NS_PER_MS,
};
use std::collections::{BTreeMap, VecDeque};

/// Property name.
pub const PROPERTY: &str = "liveness";

#[derive(Debug, Clone, Copy)]
struct Pending {
    event: u64,
    /// The request's place among every request made (a key's pending requests are a suffix
    /// of its requests, so a deadline entry is still pending when its key's oldest is not
    /// younger).
    seq: u64,
    t_ns: u64,
    deadline_ns: u64,
}

/// A request's deadline entry: (deadline, node, resource, event), ordered as reported (ties:
/// the lowest node and resource, then the oldest), and the request's `seq`.
type Deadline = ((u64, NodeId, u32, u64), u64);

/// The liveness checker.
#[derive(Debug)]
pub struct Liveness {
    quiet_ns: u64,
    bound_ns: u64,
    /// (node, resource) -> pending requests, oldest first; a key keeps its (possibly empty)
    /// queue, so a node that requests again and again reuses it
    pending: BTreeMap<(NodeId, u32), VecDeque<Pending>>,
    /// The deadline entries of the requests made, sorted, the first pending: the first is
    /// the one whose deadline passes first, found without a scan (a scan at each entry made
    /// 10^5 requests take 10 s). A request served or dropped leaves its entry until it
    /// reaches the front (a `BTreeSet` removed each, a tenth of a campaign's checking). A
    /// deadline, `max(t, quiet) + bound`, never decreases as events come in time order, so
    /// an entry is pushed at the back; one that sorts before the back (events not in time
    /// order, or a tie with a lower node) is inserted in its place.
    deadlines: VecDeque<Deadline>,
    /// Requests made so far (the next one's `seq`).
    requests: u64,
    /// earliest deadline of any pending request (for a cheap online test)
    earliest_ns: u64,
    unjudged: Option<String>,
}

impl Liveness {
    /// Requests must be served within `bound_ms` of `max(request time, quiet_from_ms)`.
    pub fn new(quiet_from_ms: u64, bound_ms: u64) -> Self {
        Liveness {
            quiet_ns: quiet_from_ms * NS_PER_MS,
            bound_ns: bound_ms * NS_PER_MS,
            pending: BTreeMap::new(),
            deadlines: VecDeque::new(),
            requests: 0,
            earliest_ns: u64::MAX,
            unjudged: None,
        }
    }

    /// Whether deadline entry `d` belongs to a request still pending.
    fn is_pending(&self, &((_, node, resource, _), seq): &Deadline) -> bool {
        self.pending
            .get(&(node, resource))
            .and_then(VecDeque::front)
            .is_some_and(|oldest| oldest.seq <= seq)
    }

    /// Drops the entries of requests no longer pending from the front and takes the
    /// earliest deadline from the first left.
    fn recompute_earliest(&mut self) {
        while let Some(d) = self.deadlines.front() {
            if self.is_pending(d) {
                break;
            }
            self.deadlines.pop_front();
        }
        self.earliest_ns = self.deadlines.front().map_or(u64::MAX, |d| d.0 .0);
    }

    /// Adds a pending request's deadline entry in its sorted place.
    fn add_deadline(&mut self, d: Deadline) {
        if self.deadlines.back().is_none_or(|last| last.0 <= d.0) {
            self.deadlines.push_back(d);
        } else {
            let at = self.deadlines.partition_point(|e| e.0 <= d.0);
            self.deadlines.insert(at, d);
        }
        // the first entry was pending, and so is a new first
        self.earliest_ns = self.deadlines.front().map_or(u64::MAX, |d| d.0 .0);
    }

    /// The pending request whose deadline passes first, with its (node, resource).
    fn first_due(&self) -> Option<((NodeId, u32), &Pending)> {
        let &((_, node, resource, _), seq) = self.deadlines.front()?;
        let p = self.pending[&(node, resource)]
            .iter()
            .find(|p| p.seq == seq)
            .expect("the first deadline belongs to a pending request");
        Some(((node, resource), p))
    }

    /// Whether a pending request's deadline has passed by `now_ns` (checked on every event:
    /// the common answer, none, is one comparison).
    #[inline]
    fn judge(&self, now_ns: u64) -> Result<(), Violation> {
        if now_ns <= self.earliest_ns {
            return Ok(());
        }
        Err(self.overdue())
    }

    /// The violation of the request whose deadline passed first.
    #[cold]
    #[inline(never)]
    fn overdue(&self) -> Violation {
        let ((node, resource), p) = self
            .first_due()
            .expect("earliest deadline belongs to a pending request");
        Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!(
                "node {node}'s request for resource {resource} made at {:.3} ms was not granted within {} ms after the faults stopped (at {:.3} ms)",
                p.t_ns as f64 / 1e6,
                self.bound_ns / NS_PER_MS,
                self.quiet_ns as f64 / 1e6
            ),
            t_ns: p.deadline_ns,
            events: vec![p.event],
        }
    }
}

impl Checker for Liveness {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    /// Requests, entries, abandons and crashes; any other event only judges a deadline.
    fn interest(&self) -> Interest {
        Interest::OBSERVE.or(Interest::FAULT)
    }

    /// The first event past the earliest pending deadline judges it.
    fn wake_at_ns(&self) -> u64 {
        self.earliest_ns.saturating_add(1)
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        self.judge(ev.t_ns)?;
        let node = ev.node.unwrap_or(usize::MAX);
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::CsRequest { resource },
            } => {
                let deadline_ns = ev.t_ns.max(self.quiet_ns).saturating_add(self.bound_ns);
                let key = (node, *resource);
                let seq = self.requests;
                self.requests += 1;
                self.pending.entry(key).or_default().push_back(Pending {
                    event: ev.id,
                    seq,
                    t_ns: ev.t_ns,
                    deadline_ns,
                });
                self.add_deadline(((deadline_ns, node, *resource, ev.id), seq));
            }
            EventKind::Observe {
                obs: Observation::CsEnter { resource } | Observation::CsAbandon { resource },
            } => {
                let key = (node, *resource);
                let served = self.pending.get_mut(&key).and_then(VecDeque::pop_front);
                // only the first entry's leaving changes the earliest deadline
                if served.is_some_and(|p| self.deadlines.front().is_some_and(|d| d.1 == p.seq)) {
                    self.recompute_earliest();
                }
            }
            EventKind::Fault {
                fault: Fault::Crash { node } | Fault::Restart { node },
            } => {
                for (_, q) in self.pending.range_mut((*node, 0)..=(*node, u32::MAX)) {
                    q.clear();
                }
                self.recompute_earliest();
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        self.judge(end_t_ns)?;
        self.unjudged = self
            .first_due()
            .map(|((node, resource), p)| {
                format!(
                    "node {node}'s request for resource {resource} made at {:.3} ms was still pending when the run ended at {:.3} ms, {} its deadline {:.3} ms: too short to judge",
                    p.t_ns as f64 / 1e6,
                    end_t_ns as f64 / 1e6,
                    crate::before_or_at(end_t_ns, p.deadline_ns),
                    p.deadline_ns as f64 / 1e6
                )
            });
        Ok(())
    }

    fn could_not_judge(&self) -> Option<String> {
        self.unjudged.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::check::{check_trace, judge_trace};
    use sincro_harness::{Trace, Verdict};

    use crate::test_events::observe_ms as obs;

    fn run(events: Vec<Event>, quiet_ms: u64, bound_ms: u64, end_ms: u64) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(Liveness::new(quiet_ms, bound_ms))];
        check_trace(&trace, end_ms * NS_PER_MS, &mut cs)
    }

    #[test]
    fn a_request_never_granted_is_caught() {
        let v = run(
            vec![obs(0, 10, 1, Observation::CsRequest { resource: 0 })],
            50,
            100,
            1000,
        )
        .unwrap_err();
        assert_eq!(v.class, PropertyClass::Liveness);
        assert_eq!(v.events, vec![0]);
        assert_eq!(
            v.t_ns,
            150 * NS_PER_MS,
            "deadline counts from the end of the faults"
        );
    }

    #[test]
    fn a_late_grant_is_caught_online() {
        let v = run(
            vec![
                obs(0, 10, 1, Observation::CsRequest { resource: 0 }),
                obs(1, 500, 1, Observation::CsEnter { resource: 0 }),
            ],
            0,
            100,
            1000,
        )
        .unwrap_err();
        assert!(v.explanation.contains("node 1"), "{}", v.explanation);
    }

    #[test]
    fn a_request_pending_at_an_early_end_is_not_judged() {
        let events = || vec![obs(0, 10, 1, Observation::CsRequest { resource: 0 })];
        let judge = |end_ms: u64| {
            let trace = Trace::new(3, events());
            let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(Liveness::new(50, 100))];
            judge_trace(&trace, end_ms * NS_PER_MS, &mut cs)
        };
        match judge(120) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                assert!(reason.contains("node 1's request"), "{reason}");
                assert!(reason.contains("150.000 ms"), "{reason}");
                assert!(reason.contains("before its deadline"), "{reason}");
            }
            v => panic!("{v}"),
        }
        // Ended at the deadline itself: not "before" it.
        match judge(150) {
            Verdict::Unjudged { reason, .. } => {
                assert!(
                    reason.contains("ended at 150.000 ms, at its deadline"),
                    "{reason}"
                );
            }
            v => panic!("{v}"),
        }
        assert!(matches!(judge(151), Verdict::Violation(_)));
    }

    #[test]
    fn timely_grants_and_crashes_pass() {
        let mut events = vec![
            obs(0, 10, 1, Observation::CsRequest { resource: 0 }),
            obs(1, 60, 1, Observation::CsEnter { resource: 0 }),
            obs(2, 70, 2, Observation::CsRequest { resource: 0 }),
            Event {
                id: 3,
                t_ns: 80 * NS_PER_MS,
                node: Some(2),
                local_ns: None,
                kind: EventKind::Fault {
                    fault: Fault::Crash { node: 2 },
                },
            },
        ];
        let judge = |events: Vec<Event>| {
            let trace = Trace::new(3, events);
            let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(Liveness::new(0, 100))];
            judge_trace(&trace, 950 * NS_PER_MS, &mut cs)
        };
        assert_eq!(judge(events.clone()), Verdict::Pass);
        // a request made within the bound of the end is not judged: not a pass
        events.push(obs(4, 900, 0, Observation::CsRequest { resource: 0 }));
        assert!(matches!(judge(events), Verdict::Unjudged { .. }));
    }

    #[test]
    fn the_first_deadline_is_reported_whatever_was_served_or_asked_in_between() {
        let req = |id, t, node, resource| obs(id, t, node, Observation::CsRequest { resource });
        let enter = |id, t, node, resource| obs(id, t, node, Observation::CsEnter { resource });
        // (why, events, quiet ms, bound ms, the event reported and when, ms)
        let cases = [
            // Before the quiet time every request has the same deadline (quiet + bound): the
            // lowest node is reported though it asked last, and a served request of the
            // lowest node no longer counts.
            (
                "same deadline: the lowest node still waiting",
                vec![
                    req(0, 10, 2, 0),
                    req(1, 20, 1, 1),
                    req(2, 30, 1, 0),
                    enter(3, 40, 1, 0),
                ],
                100,
                50,
                (1, 150),
            ),
            (
                "served in another order than asked: the one left, at its deadline",
                vec![
                    req(0, 10, 0, 0),
                    req(1, 20, 1, 0),
                    req(2, 30, 2, 0),
                    enter(3, 40, 1, 0),
                    enter(4, 45, 0, 0),
                ],
                0,
                100,
                (2, 130),
            ),
            (
                "a node's second request, after its first was served, is its own deadline",
                vec![
                    req(0, 10, 0, 0),
                    enter(1, 20, 0, 0),
                    req(2, 30, 0, 0),
                    req(3, 35, 1, 0),
                ],
                0,
                100,
                (2, 130),
            ),
        ];
        for (why, events, quiet_ms, bound_ms, (event, t_ms)) in cases {
            let v = run(events, quiet_ms, bound_ms, 1000).unwrap_err();
            assert_eq!(
                (v.events.clone(), v.t_ns),
                (vec![event], t_ms * NS_PER_MS),
                "{why}: {v:?}"
            );
        }
    }
}
