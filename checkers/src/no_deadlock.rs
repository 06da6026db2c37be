//! No deadlock: after the faults stop, while some request is pending, *someone* enters the
//! critical section within a bound.
//!
//! Weaker than [`crate::liveness`] (which wants *every* request served): a starving process
//! does not violate it, a system where everybody waits for everybody does. Requests, entries,
//! abandons and crashes are read as the liveness checker reads them. The clock starts when a
//! wait begins (a request becomes pending while none was), at the quiet time, or at the last
//! entry or exit, whichever is latest. A request given up (`cs_abandon`) is no longer waited
//! on, but giving up is not progress: nobody entered, and while another request still waits
//! the wait goes on from when it began.
//!
//! # Contract
//!
//! - **Reads:** `cs_request` (pending), `cs_enter` and `cs_abandon` (remove the node's oldest
//!   pending request on that resource), `cs_exit` observations, and `crash` / `restart` faults
//!   (drop the node's pending requests, and leave it outside every critical section).
//!   Progress — which restarts the clock — is *any* `cs_enter` of any node on any resource,
//!   or a `cs_exit` of a node inside that critical section (one resource's progress excuses
//!   another's standstill). An exit by a node that is not inside is no progress: nobody
//!   entered, and a trace with nothing but such exits would otherwise pass every standstill. A `cs_abandon` withdraws the request but is not progress: while
//!   others still wait, the clock runs on. Ignored: messages, partitions, pauses (a paused
//!   requester's request stays pending).
//! - **Settings:** the quiet time (`scenario.quiet_from_ms()`) and the liveness bound; not the
//!   node count. While a request is pending, someone must make progress within `bound` of the
//!   latest of: the last progress, the quiet time, the beginning of the wait. A wait begins
//!   at an instant after which a request is pending while none was after the instant
//!   before (the oldest withdrawing while younger ones wait does not begin a new wait, nor
//!   does a request given up and made again at one instant). Judged per instant, so the
//!   order of an instant's lines changes nothing. A bound of 0 is
//!   taken literally (any wait past that instant is reported as a deadlock); the checker has
//!   no default bound ([`crate::Property::NEEDS_BOUND`]).
//! - **When the run ends before it can judge:** `finish` reports a standstill whose deadline
//!   is before the end of the run; if requests are still pending at the end and the
//!   standstill's deadline is at or after it, the run is **not judged**
//!   ([`Checker::could_not_judge`] names the waiting requests, the deadline and the end). A
//!   run that ends with no request pending is judged.
//! - **Class:** liveness.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, PropertyClass, Violation, NS_PER_MS};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "no_deadlock";

/// The no-deadlock checker.
#[derive(Debug)]
pub struct NoDeadlock {
    quiet_ns: u64,
    bound_ns: u64,
    /// (node, resource) -> pending requests (event id, time), oldest first
    pending: BTreeMap<(NodeId, u32), Vec<(u64, u64)>>,
    /// last time someone made progress (entered or left)
    progress_ns: u64,
    /// (node, resource) -> how many times the node is inside it (entered, not exited)
    inside: BTreeMap<(NodeId, u32), u32>,
    unjudged: Option<String>,
    /// The current instant, and whether a request was pending before it.
    now_ns: u64,
    waiting_before: bool,
    /// When the current wait began (some request pending throughout since), if one is on.
    wait_from_ns: Option<u64>,
}

impl NoDeadlock {
    /// Someone must enter within `bound_ms` while requests are pending after `quiet_from_ms`.
    pub fn new(quiet_from_ms: u64, bound_ms: u64) -> Self {
        NoDeadlock {
            quiet_ns: quiet_from_ms * NS_PER_MS,
            bound_ns: bound_ms * NS_PER_MS,
            pending: BTreeMap::new(),
            progress_ns: 0,
            inside: BTreeMap::new(),
            unjudged: None,
            now_ns: 0,
            waiting_before: false,
            wait_from_ns: None,
        }
    }

    /// When the current standstill started: the latest of the last progress, the quiet time
    /// and the beginning of the wait (`None` when nothing is pending).
    fn since_ns(&self) -> Option<u64> {
        Some(self.progress_ns.max(self.quiet_ns).max(self.wait_from_ns?))
    }

    /// Closes the current instant: the wait goes on while some request is pending after it
    /// and was before it (whichever: one given up and made again at one instant leaves no
    /// gap), begins at it when none was pending before, ends when none is after.
    fn close_instant(&mut self) {
        let pending = self.pending.values().any(|v| !v.is_empty());
        self.wait_from_ns = match (pending, self.waiting_before) {
            (false, _) => None,
            (true, true) => self.wait_from_ns,
            (true, false) => Some(self.now_ns),
        };
        self.waiting_before = pending;
    }

    /// `node 1 (resource 0), node 2 (resource 0)`; in a large run, grouped by resource
    /// ([`crate::grouped`]). A node waiting for two resources is listed for each.
    fn waiting(&self) -> String {
        let mut keys: Vec<(NodeId, u32)> = self.pending.keys().copied().collect();
        if keys.len() > crate::grouped::LISTED_MAX {
            // By resource, so each group's nodes ascend.
            keys.sort_by_key(|&(n, r)| (r, n));
        }
        let facts: Vec<(NodeId, String)> = keys
            .into_iter()
            .map(|(n, r)| (n, format!("resource {r}")))
            .collect();
        crate::grouped::describe(
            &facts,
            "",
            |n, r| format!("node {n} ({r})"),
            |nodes, k, r| format!("nodes {nodes} ({k} nodes, {r})"),
        )
    }

    fn judge(&self, now_ns: u64) -> Result<(), Violation> {
        let Some(since) = self.since_ns() else {
            return Ok(());
        };
        if now_ns <= since + self.bound_ns {
            return Ok(());
        }
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!(
                "nobody entered a critical section for {} ms after {:.3} ms although {} waited: deadlock",
                self.bound_ns / NS_PER_MS,
                since as f64 / 1e6,
                self.waiting()
            ),
            t_ns: since + self.bound_ns,
            events: self.pending.values().flatten().map(|&(id, _)| id).collect(),
        })
    }
}

impl Checker for NoDeadlock {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if ev.t_ns != self.now_ns {
            self.close_instant();
            self.now_ns = ev.t_ns;
        }
        self.judge(ev.t_ns)?;
        let node = ev.node.unwrap_or(usize::MAX);
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::CsRequest { resource },
            } => {
                self.pending
                    .entry((node, *resource))
                    .or_default()
                    .push((ev.id, ev.t_ns));
            }
            EventKind::Observe {
                obs: Observation::CsEnter { resource } | Observation::CsAbandon { resource },
            } => {
                if let Some(v) = self.pending.get_mut(&(node, *resource)) {
                    if !v.is_empty() {
                        v.remove(0);
                    }
                    if v.is_empty() {
                        self.pending.remove(&(node, *resource));
                    }
                }
                if matches!(
                    ev.kind,
                    EventKind::Observe {
                        obs: Observation::CsEnter { .. }
                    }
                ) {
                    *self.inside.entry((node, *resource)).or_default() += 1;
                    self.progress_ns = ev.t_ns;
                }
            }
            EventKind::Observe {
                obs: Observation::CsExit { resource },
            } => {
                // Only a node inside leaves: an exit by one that never entered is no progress.
                if let Some(count) = self.inside.get_mut(&(node, *resource)) {
                    *count -= 1;
                    if *count == 0 {
                        self.inside.remove(&(node, *resource));
                    }
                    self.progress_ns = ev.t_ns;
                }
            }
            EventKind::Fault {
                fault: Fault::Crash { node } | Fault::Restart { node },
            } => {
                self.pending.retain(|(n, _), _| n != node);
                self.inside.retain(|(n, _), _| n != node);
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        self.close_instant();
        self.judge(end_t_ns)?;
        self.unjudged = self.since_ns().map(|since| {
            format!(
                "{} still waited when the run ended at {:.3} ms, with nobody having entered since {:.3} ms; the standstill deadline {:.3} ms is after the end: too short to judge",
                self.waiting(),
                end_t_ns as f64 / 1e6,
                since as f64 / 1e6,
                (since + self.bound_ns) as f64 / 1e6
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

    fn run(events: Vec<Event>, end_ms: u64) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(NoDeadlock::new(0, 100))];
        check_trace(&trace, end_ms * NS_PER_MS, &mut cs)
    }

    #[test]
    fn everyone_waiting_and_nobody_entering_is_a_deadlock() {
        let v = run(
            vec![
                obs(0, 10, 1, Observation::CsRequest { resource: 0 }),
                obs(1, 10, 2, Observation::CsRequest { resource: 0 }),
            ],
            500,
        )
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 1]);
        assert!(
            v.explanation.contains("node 1") && v.explanation.contains("node 2"),
            "{}",
            v.explanation
        );
    }

    /// An exit by a node that never entered was progress: a trace where nobody ever entered
    /// passed (a probe's hand-made trace). It is none; a real holder's exit still is.
    #[test]
    fn an_exit_without_an_entry_is_no_progress() {
        let bogus = run(
            vec![
                obs(0, 10, 1, Observation::CsRequest { resource: 0 }),
                obs(1, 100, 0, Observation::CsExit { resource: 0 }),
                obs(2, 190, 1, Observation::CsAbandon { resource: 0 }),
            ],
            500,
        )
        .unwrap_err();
        assert!(
            bogus.explanation.contains("after 10.000 ms"),
            "{}",
            bogus.explanation
        );
        let real = run(
            vec![
                obs(0, 5, 0, Observation::CsEnter { resource: 0 }),
                obs(1, 10, 1, Observation::CsRequest { resource: 0 }),
                obs(2, 100, 0, Observation::CsExit { resource: 0 }),
                obs(3, 190, 1, Observation::CsAbandon { resource: 0 }),
            ],
            500,
        );
        assert_eq!(real, Ok(()));
    }

    /// Past 8 waiting requests, the nodes waiting for one resource are grouped.
    #[test]
    fn many_waiting_nodes_are_grouped_by_resource() {
        let events: Vec<Event> = (0..12u64)
            .map(|i| {
                let r = u32::from(i == 11);
                obs(i, 10, i as usize, Observation::CsRequest { resource: r })
            })
            .collect();
        let trace = Trace::new(12, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(NoDeadlock::new(0, 100))];
        let v = check_trace(&trace, 500 * NS_PER_MS, &mut cs).unwrap_err();
        assert!(
            v.explanation
                .contains("nodes 0-10 (11 nodes, resource 0); node 11 (resource 1)"),
            "{}",
            v.explanation
        );
    }

    fn verdict(events: Vec<Event>, end_ms: u64) -> Verdict {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(NoDeadlock::new(0, 100))];
        judge_trace(&trace, end_ms * NS_PER_MS, &mut cs)
    }

    #[test]
    fn progress_by_someone_is_enough_even_if_one_starves() {
        let mut events = vec![obs(0, 10, 1, Observation::CsRequest { resource: 0 })];
        let mut id = 1;
        for k in 0..8 {
            let t = 20 + k * 60;
            events.push(obs(id, t, 2, Observation::CsEnter { resource: 0 }));
            events.push(obs(id + 1, t + 10, 2, Observation::CsExit { resource: 0 }));
            id += 2;
        }
        // no standstill of 100 ms while node 1 waited: no violation; node 1 still waits at
        // the end, 50 ms after the last exit, so the last stretch is undecided
        run(events.clone(), 500).unwrap();
        assert!(matches!(
            verdict(events.clone(), 500),
            Verdict::Unjudged { .. }
        ));
        // node 1 is served at last: a pass
        events.push(obs(id, 480, 1, Observation::CsEnter { resource: 0 }));
        assert_eq!(verdict(events, 500), Verdict::Pass);
    }

    #[test]
    fn the_clock_starts_when_the_request_is_made() {
        // progress long ago, a request near the end: not yet a deadlock, and not judged
        let events = vec![
            obs(0, 5, 2, Observation::CsEnter { resource: 0 }),
            obs(1, 6, 2, Observation::CsExit { resource: 0 }),
            obs(2, 450, 1, Observation::CsRequest { resource: 0 }),
        ];
        run(events.clone(), 500).unwrap();
        match verdict(events.clone(), 500) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                assert!(reason.contains("node 1 (resource 0)"), "{reason}");
                assert!(reason.contains("550.000 ms"), "{reason}");
            }
            v => panic!("{v}"),
        }
        assert!(matches!(verdict(events, 600), Verdict::Violation(_)));
    }

    #[test]
    fn an_abandon_is_not_progress() {
        // node 1 waits from 10 ms; node 2 asks and gives up at 80 ms; nobody ever enters
        let events = vec![
            obs(0, 10, 1, Observation::CsRequest { resource: 0 }),
            obs(1, 20, 2, Observation::CsRequest { resource: 0 }),
            obs(2, 80, 2, Observation::CsAbandon { resource: 0 }),
        ];
        let v = run(events, 150).unwrap_err();
        assert_eq!(v.t_ns, 110 * NS_PER_MS, "{v}");
        assert_eq!(v.events, vec![0]);
        // an entry at 80 ms instead is progress: no deadlock by 150 ms
        let events = vec![
            obs(0, 10, 1, Observation::CsRequest { resource: 0 }),
            obs(1, 20, 2, Observation::CsRequest { resource: 0 }),
            obs(2, 80, 2, Observation::CsEnter { resource: 0 }),
        ];
        run(events, 150).unwrap();
    }
}
