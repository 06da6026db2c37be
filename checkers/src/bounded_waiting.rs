//! Bounded waiting: while a process waits for the critical section, the others enter at most
//! `k` times before it does.
//!
//! Counted per request from the moment it is at the head of its process's queue (made, and
//! the process's previous entry is over), in entries by other processes, on global time. A
//! crash or restart of the requester cancels its requests. Algorithms that serve requests in a
//! fixed rotation promise `k = n − 1` (the token ring); fair-by-timestamp ones can be overtaken
//! by requests still in flight, so they promise only liveness.
//!
//! # Contract
//!
//! - **Reads:** `cs_request` (queued per node and resource), `cs_enter` (serves the node's
//!   oldest request on that resource, marks it inside, and counts one overtake against the
//!   head request of every *other* node waiting on that resource and not inside it),
//!   `cs_exit` (no longer inside), `cs_abandon` (drops the node's oldest request) observations,
//!   and `crash` / `restart` faults (drop the node's requests and its being inside). Ignored:
//!   times, messages, pauses, partitions — overtakes are counted in entries, not in time.
//! - **Settings:** only `k`, the number of overtakes allowed; [`crate::by_name`] uses
//!   `nodes − 1` (0 for a single node). No quiet time (faulty phase included) and no liveness
//!   bound.
//! - **When the run ends before it can judge:** nothing is left to judge — `finish` passes; a
//!   request still waiting at the end with at most `k` overtakes is fine (whether it is ever
//!   served is `liveness`'s question).
//! - **Class:** safety (stops at the `(k + 1)`-th overtaking `cs_enter`).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "bounded_waiting";

#[derive(Debug, Clone)]
struct Waiting {
    request_event: u64,
    overtakes: Vec<u64>,
}

/// The bounded-waiting checker.
#[derive(Debug)]
pub struct BoundedWaiting {
    k: usize,
    /// (node, resource) -> queue of its pending requests (only the head counts overtakes)
    pending: BTreeMap<(NodeId, u32), Vec<Waiting>>,
    /// (node, resource) currently inside
    inside: BTreeMap<(NodeId, u32), ()>,
}

impl BoundedWaiting {
    /// At most `k` entries by others while a request waits at the head of its queue.
    pub fn new(k: usize) -> Self {
        BoundedWaiting {
            k,
            pending: BTreeMap::new(),
            inside: BTreeMap::new(),
        }
    }
}

impl Checker for BoundedWaiting {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let node = ev.node.unwrap_or(usize::MAX);
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::CsRequest { resource },
            } => {
                self.pending
                    .entry((node, *resource))
                    .or_default()
                    .push(Waiting {
                        request_event: ev.id,
                        overtakes: Vec::new(),
                    });
            }
            EventKind::Observe {
                obs: Observation::CsEnter { resource },
            } => {
                // served: the head of our own queue leaves it
                if let Some(q) = self.pending.get_mut(&(node, *resource)) {
                    if !q.is_empty() {
                        q.remove(0);
                    }
                }
                self.inside.insert((node, *resource), ());
                // everyone else waiting at the head of its queue (and not inside) is overtaken
                for (&(other, r), q) in self.pending.iter_mut() {
                    if other == node || r != *resource || self.inside.contains_key(&(other, r)) {
                        continue;
                    }
                    if let Some(head) = q.first_mut() {
                        head.overtakes.push(ev.id);
                        if head.overtakes.len() > self.k {
                            let mut events = vec![head.request_event];
                            events.extend(&head.overtakes);
                            return Err(Violation {
                                property: PROPERTY.into(),
                                class: PropertyClass::Safety,
                                explanation: format!(
                                    "node {other}'s request for resource {r} was overtaken {} times (bound {}): the last by node {node}",
                                    head.overtakes.len(),
                                    self.k
                                ),
                                t_ns: ev.t_ns,
                                events,
                            });
                        }
                    }
                }
            }
            EventKind::Observe {
                obs: Observation::CsExit { resource },
            } => {
                self.inside.remove(&(node, *resource));
            }
            EventKind::Observe {
                obs: Observation::CsAbandon { resource },
            } => {
                if let Some(q) = self.pending.get_mut(&(node, *resource)) {
                    if !q.is_empty() {
                        q.remove(0);
                    }
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

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn obs(id: u64, node: NodeId, obs: Observation) -> Event {
        Event {
            id,
            t_ns: id,
            node: Some(node),
            local_ns: None,
            kind: EventKind::Observe { obs },
        }
    }

    fn run(events: Vec<Event>, k: usize) -> Result<(), Violation> {
        let trace = Trace { nodes: 3, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(BoundedWaiting::new(k))];
        check_trace(&trace, 1_000, &mut cs)
    }

    fn cycle(id: &mut u64, node: NodeId) -> Vec<Event> {
        let evs = vec![
            obs(*id, node, Observation::CsEnter { resource: 0 }),
            obs(*id + 1, node, Observation::CsExit { resource: 0 }),
        ];
        *id += 2;
        evs
    }

    #[test]
    fn overtaken_more_than_k_times_is_caught() {
        let mut events = vec![obs(0, 0, Observation::CsRequest { resource: 0 })];
        let mut id = 1;
        for _ in 0..3 {
            events.extend(cycle(&mut id, 1));
        }
        let v = run(events, 2).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 1, 3, 5]);
        assert!(
            v.explanation.contains("overtaken 3 times (bound 2)"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn a_rotation_stays_within_n_minus_one() {
        // 0 waits while 1 and 2 each enter once, then 0 enters: k = 2 holds
        let mut events = vec![obs(0, 0, Observation::CsRequest { resource: 0 })];
        let mut id = 1;
        events.extend(cycle(&mut id, 1));
        events.extend(cycle(&mut id, 2));
        events.extend(cycle(&mut id, 0));
        events.extend(cycle(&mut id, 1));
        run(events, 2).unwrap();
    }
}
