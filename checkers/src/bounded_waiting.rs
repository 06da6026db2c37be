//! Bounded waiting: while a process waits for the critical section, the others enter at most
//! `k` times before it does.
//!
//! Counted per request from the moment it is at the head of its process's queue (made, and
//! the process's previous entry is over), in entries by other processes, on global time. A
//! crash or restart of the requester cancels its requests. Algorithms that serve requests in a
//! fixed rotation promise `k = n − 1` (the token ring); fair-by-timestamp ones can be overtaken
//! by requests still in flight, so they promise only liveness.
//!
//! **Events at one instant are judged as a set**, as `mutual_exclusion` judges them: nothing
//! orders two nodes' events of one global time, so the verdict must not depend on the order
//! the trace lists them in. A request waits from the instant `h` it reaches the head of its
//! queue with its process outside the section to the instant `e` it is served, abandoned or
//! dropped; an entry by another process overtakes it when it happens strictly between the two
//! (`h < t < e`). An entry at `h` may have come before the request or the abandon that started
//! the wait, and one at `e` after the requester's own entry, so neither is counted; but when
//! the wait starts with the requester's own `cs_exit` from the resource (its request made
//! before it, the requester inside until then), an entry into that resource at `h` comes after
//! the exit in every order that keeps mutual exclusion, the order `mutual_exclusion` finds, and
//! it is counted (stop 57: a trace overtaken twice with `k = 1` passed both properties, each by
//! an order of its own). Not when the requester entered at `h` too and the other node leaves
//! again at `h`: the other's section may then come before the requester's, and its entry
//! before the request (stop 84). An exit of a node that is not inside starts no wait.
//! Likewise at `e`: when the requester enters there and stays inside (no other step on the
//! resource in the instant), another node's entry that it also leaves at `e` came before the
//! requester's entry in every such order, and it is counted (stop 71: the mirror case passed).
//!
//! # Contract
//!
//! - **Reads:** `cs_request` (queued per node and resource), `cs_enter` (serves the node's
//!   oldest request on that resource, marks it inside, and counts one overtake against the
//!   head request of every *other* node that has waited on that resource since an earlier
//!   instant, or since this one by its own `cs_exit` from the resource (unless that node
//!   entered at this instant and this entry is left again in it), and whose wait does
//!   not end at this one — or ends there with an entry that stays inside, the overtaking entry
//!   left again at this instant), `cs_exit` (no longer inside: the head request waits from here),
//!   `cs_abandon` (drops the node's oldest request) observations,
//!   and `crash` / `restart` faults (drop the node's requests and its being inside). Ignored:
//!   times other than the global one, messages, pauses, partitions — overtakes are counted in
//!   entries, not in time.
//! - **Settings:** only `k`, the number of overtakes allowed; [`crate::by_name`] uses
//!   `nodes − 1` (0 for a single node). No quiet time (faulty phase included) and no liveness
//!   bound.
//! - **When the run ends before it can judge:** nothing is left to judge — `finish` judges the
//!   last instant and passes; a request still waiting at the end with at most `k` overtakes is
//!   fine (whether it is ever served is `liveness`'s question).
//! - **Class:** safety (stops at the `(k + 1)`-th overtaking `cs_enter`, once its instant's
//!   events have all been seen: at the first later event, or at the end).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, PropertyClass, Violation};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Property name.
pub const PROPERTY: &str = "bounded_waiting";

#[derive(Debug, Clone)]
struct Waiting {
    request_event: u64,
    overtakes: Vec<u64>,
    /// The instant it started waiting: at the head of its queue, its node outside the section
    /// (`None` before that).
    since_ns: Option<u64>,
}

/// One event of the current instant this checker reads, in trace order.
#[derive(Debug, Clone, Copy)]
enum Step {
    Request(u32, u64),
    Enter(u32, u64),
    Exit(u32),
    Abandon(u32),
    /// A crash or restart of the node.
    Leave,
}

/// The bounded-waiting checker.
#[derive(Debug)]
pub struct BoundedWaiting {
    k: usize,
    /// (resource, node) -> queue of the node's pending requests on the resource (only the
    /// head counts overtakes); never empty: an emptied queue is removed, so an entry visits
    /// only the nodes waiting on its resource
    pending: BTreeMap<(u32, NodeId), VecDeque<Waiting>>,
    /// (node, resource) currently inside
    inside: BTreeSet<(NodeId, u32)>,
    /// the current instant and the events of it this checker reads
    now_ns: u64,
    steps: Vec<(NodeId, Step)>,
}

impl BoundedWaiting {
    /// At most `k` entries by others while a request waits at the head of its queue.
    pub fn new(k: usize) -> Self {
        BoundedWaiting {
            k,
            pending: BTreeMap::new(),
            inside: BTreeSet::new(),
            now_ns: 0,
            steps: Vec::new(),
        }
    }

    /// Judges the instant's entries against the waits begun before it, then applies its
    /// events (each node's in its order; different nodes' events touch different state).
    fn close_instant(&mut self) -> Result<(), Violation> {
        if self.steps.is_empty() {
            return Ok(());
        }
        let steps = std::mem::take(&mut self.steps);
        let t = self.now_ns;
        // The waits that end at this instant: their node enters, abandons or leaves in it.
        let mut ending: BTreeSet<(NodeId, u32)> = BTreeSet::new();
        let mut leaving: BTreeSet<NodeId> = BTreeSet::new();
        for &(node, step) in &steps {
            match step {
                Step::Enter(r, _) | Step::Abandon(r) => {
                    ending.insert((node, r));
                }
                Step::Leave => {
                    leaving.insert(node);
                }
                Step::Request(..) | Step::Exit(_) => {}
            }
        }
        let by_exit = self.waits_from_own_exit(&steps);
        let served_inside = served_and_inside(&steps, &leaving);
        // Whether each step is an entry its node leaves again at this instant (an exit from
        // the resource follows it in the node's order): such an entry comes before any entry
        // that stays inside.
        let mut exits_seen: BTreeSet<(NodeId, u32)> = BTreeSet::new();
        let mut left_again = vec![false; steps.len()];
        for (i, &(node, step)) in steps.iter().enumerate().rev() {
            match step {
                Step::Exit(r) => {
                    exits_seen.insert((node, r));
                }
                Step::Enter(r, _) => left_again[i] = exits_seen.contains(&(node, r)),
                _ => {}
            }
        }
        for (i, &(node, step)) in steps.iter().enumerate() {
            let Step::Enter(resource, id) = step else {
                continue;
            };
            let left = left_again[i];
            let waiters = self
                .pending
                .range_mut((resource, 0)..=(resource, NodeId::MAX));
            for (&(r, other), q) in waiters {
                let ends_here =
                    ending.contains(&(other, r)) && !(left && served_inside.contains(&(other, r)));
                if other == node || ends_here || leaving.contains(&other) {
                    continue;
                }
                let Some(head) = q.front_mut().filter(|h| h.since_ns.is_some()) else {
                    continue;
                };
                debug_assert!(
                    head.since_ns < Some(t),
                    "a wait begun at an earlier instant"
                );
                head.overtakes.push(id);
                overtaken(head, self.k, other, r, node, t)?;
            }
        }
        // Entries into a resource at the instant a waiter's own exit from it starts its wait;
        // not one its node leaves again there when the waiter entered there too: the two
        // nodes' sections may come in either order, and in one the entry precedes the request.
        let late: Vec<(NodeId, u32, NodeId, u64)> = by_exit
            .iter()
            .flat_map(|(&(waiter, r), &entered_here)| {
                let left_again = &left_again;
                steps
                    .iter()
                    .enumerate()
                    .filter_map(move |(i, &(node, step))| match step {
                        Step::Enter(resource, id)
                            if resource == r
                                && node != waiter
                                && !(entered_here && left_again[i]) =>
                        {
                            Some((waiter, r, node, id))
                        }
                        _ => None,
                    })
            })
            .collect();
        for (node, step) in steps {
            self.apply(node, step, t);
        }
        for (waiter, r, node, id) in late {
            let head = self
                .pending
                .get_mut(&(r, waiter))
                .and_then(|q| q.front_mut());
            if let Some(head) = head.filter(|h| h.since_ns == Some(t)) {
                head.overtakes.push(id);
                overtaken(head, self.k, waiter, r, node, t)?;
            }
        }
        Ok(())
    }

    /// The (node, resource) pairs whose head request starts waiting at this instant with the
    /// node's own exit from the resource: a request made before that exit (in the node's
    /// order), its wait not ended later in the instant (an entry, an abandon, a crash); and
    /// whether the node entered the resource at this instant before that exit. Another
    /// node's entry into that resource at this instant follows the exit in every order that
    /// keeps mutual exclusion (`mutual_exclusion` judges the instant in such an order), so it
    /// overtakes; excusing it as possibly "before the wait" passed a trace that violates
    /// bounded waiting in every order that does not violate mutual exclusion. Unless the
    /// node entered at this instant and the other leaves again at it: then the other's
    /// section may come before this node's, and its entry before the request (stop 84: two
    /// such entries were counted against `k = 1`).
    ///
    /// Only an exit of a node inside starts a wait: a request made while its node is outside
    /// waits from the request, and an exit of a node that is not inside (ignored, as
    /// `mutual_exclusion` ignores it) orders nothing (the differential test found the checker
    /// counting two entries at the instant of such an exit as overtakes, stop 84).
    fn waits_from_own_exit(&self, steps: &[(NodeId, Step)]) -> BTreeMap<(NodeId, u32), bool> {
        let mut queued: BTreeMap<(NodeId, u32), usize> = BTreeMap::new();
        // (node, resource) -> inside at this point of the node's steps, for those it has one
        let mut inside_now: BTreeMap<(NodeId, u32), bool> = BTreeMap::new();
        // the (node, resource) pairs entered at this instant so far
        let mut entered_here: BTreeSet<(NodeId, u32)> = BTreeSet::new();
        let mut by_exit = BTreeMap::new();
        let pending = &self.pending;
        let count = |queued: &mut BTreeMap<(NodeId, u32), usize>, key: (NodeId, u32)| -> usize {
            *queued
                .entry(key)
                .or_insert_with(|| pending.get(&(key.1, key.0)).map_or(0, VecDeque::len))
        };
        for &(node, step) in steps {
            match step {
                Step::Request(r, _) => {
                    let n = count(&mut queued, (node, r));
                    queued.insert((node, r), n + 1);
                }
                Step::Enter(r, _) | Step::Abandon(r) => {
                    let n = count(&mut queued, (node, r));
                    queued.insert((node, r), n.saturating_sub(1));
                    by_exit.remove(&(node, r));
                    if matches!(step, Step::Enter(..)) {
                        inside_now.insert((node, r), true);
                        entered_here.insert((node, r));
                    }
                }
                Step::Exit(r) => {
                    let was_inside = *inside_now
                        .entry((node, r))
                        .or_insert_with(|| self.inside.contains(&(node, r)));
                    if was_inside && count(&mut queued, (node, r)) > 0 {
                        by_exit.insert((node, r), entered_here.contains(&(node, r)));
                    }
                    inside_now.insert((node, r), false);
                }
                Step::Leave => {
                    queued.retain(|(n, _), _| *n != node);
                    by_exit.retain(|(n, _), _| *n != node);
                    entered_here.retain(|(n, _)| *n != node);
                    inside_now.retain(|(n, _), _| *n != node);
                    for &(n, r) in self.inside.iter().filter(|(n, _)| *n == node) {
                        inside_now.insert((n, r), false);
                    }
                }
            }
        }
        by_exit
    }

    /// Applies one event of node `node` at instant `t` to the queues.
    fn apply(&mut self, node: NodeId, step: Step, t: u64) {
        match step {
            Step::Request(r, id) => {
                let outside = !self.inside.contains(&(node, r));
                let q = self.pending.entry((r, node)).or_default();
                let head = q.is_empty() && outside;
                q.push_back(Waiting {
                    request_event: id,
                    overtakes: Vec::new(),
                    since_ns: head.then_some(t),
                });
            }
            Step::Enter(r, _) => {
                // served: the head of our own queue leaves it; the next waits from our exit
                self.serve_head(node, r);
                self.inside.insert((node, r));
            }
            Step::Exit(r) => {
                self.inside.remove(&(node, r));
                self.start_waiting(node, r, t);
            }
            Step::Abandon(r) => {
                self.serve_head(node, r);
                if !self.inside.contains(&(node, r)) {
                    self.start_waiting(node, r, t);
                }
            }
            Step::Leave => {
                self.pending.retain(|(_, n), _| *n != node);
                self.inside.retain(|(n, _)| *n != node);
            }
        }
    }

    /// The head request of `node` on `r`, if any, leaves its queue (served or abandoned); an
    /// emptied queue goes.
    fn serve_head(&mut self, node: NodeId, r: u32) {
        if let Some(q) = self.pending.get_mut(&(r, node)) {
            q.pop_front();
            if q.is_empty() {
                self.pending.remove(&(r, node));
            }
        }
    }

    /// The head request of `node` on `r`, if any, waits from `t` on (unless it already does).
    fn start_waiting(&mut self, node: NodeId, r: u32, t: u64) {
        if let Some(head) = self.pending.get_mut(&(r, node)).and_then(|q| q.front_mut()) {
            head.since_ns.get_or_insert(t);
        }
    }
}

/// The (node, resource) pairs served at this instant that stay inside: the node's only step on
/// the resource in the instant is its entry (no request, exit or abandon), and it does not
/// crash or restart. Another node's entry into the resource that it also leaves at this
/// instant comes before that entry in every order that keeps mutual exclusion, so it
/// overtakes the request served (an entry that stays inside too breaks mutual exclusion,
/// and no order tells which came first: not counted).
fn served_and_inside(
    steps: &[(NodeId, Step)],
    leaving: &BTreeSet<NodeId>,
) -> BTreeSet<(NodeId, u32)> {
    // (node, resource) -> (entries, other steps) on it at this instant
    let mut on: BTreeMap<(NodeId, u32), (u32, u32)> = BTreeMap::new();
    for &(node, step) in steps {
        let (r, enter) = match step {
            Step::Enter(r, _) => (r, true),
            Step::Request(r, _) | Step::Exit(r) | Step::Abandon(r) => (r, false),
            Step::Leave => continue,
        };
        let c = on.entry((node, r)).or_default();
        if enter {
            c.0 += 1;
        } else {
            c.1 += 1;
        }
    }
    on.into_iter()
        .filter(|&((node, _), c)| c == (1, 0) && !leaving.contains(&node))
        .map(|(k, _)| k)
        .collect()
}

/// Fails when `head` (node `waiter`'s request on `r`) has now been overtaken more than `k`
/// times, the last by `node` at `t`.
fn overtaken(
    head: &Waiting,
    k: usize,
    waiter: NodeId,
    r: u32,
    node: NodeId,
    t: u64,
) -> Result<(), Violation> {
    if head.overtakes.len() <= k {
        return Ok(());
    }
    let mut events = vec![head.request_event];
    events.extend(&head.overtakes);
    Err(Violation {
        property: PROPERTY.into(),
        class: PropertyClass::Safety,
        explanation: format!(
            "node {waiter}'s request for resource {r} was overtaken {} times (bound {k}): the last by node {node}",
            head.overtakes.len(),
        ),
        t_ns: t,
        events,
    })
}

impl Checker for BoundedWaiting {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        // Any event of a later time closes the instant (so a violation stops the run there).
        if ev.t_ns != self.now_ns {
            self.close_instant()?;
            self.now_ns = ev.t_ns;
        }
        let step = match (&ev.kind, ev.node) {
            (EventKind::Observe { obs }, Some(node)) => match obs {
                Observation::CsRequest { resource } => (node, Step::Request(*resource, ev.id)),
                Observation::CsEnter { resource } => (node, Step::Enter(*resource, ev.id)),
                Observation::CsExit { resource } => (node, Step::Exit(*resource)),
                Observation::CsAbandon { resource } => (node, Step::Abandon(*resource)),
                _ => return Ok(()),
            },
            (
                EventKind::Fault {
                    fault: Fault::Crash { node } | Fault::Restart { node },
                },
                _,
            ) => (*node, Step::Leave),
            _ => return Ok(()),
        };
        self.steps.push(step);
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        self.close_instant()
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
        let trace = Trace::new(3, events);
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

    fn at(id: u64, t_ns: u64, node: NodeId, o: Observation) -> Event {
        Event {
            t_ns,
            ..obs(id, node, o)
        }
    }

    /// `lines` (node, observation, ms) as a trace with ids in line order.
    fn trace(lines: &[(NodeId, Observation, u64)]) -> Vec<Event> {
        lines
            .iter()
            .enumerate()
            .map(|(i, (n, o, ms))| at(i as u64, ms * 1_000_000, *n, o.clone()))
            .collect()
    }

    /// Node 0 asks at the instant node 1 enters, and node 1 enters once more before node 0
    /// does: whichever line of the first instant comes first, node 0 was overtaken once (the
    /// entry at the instant of its request is not counted), within k = 1. Listing node 0's
    /// request first made it twice, a violation; listing it after, a pass.
    #[test]
    fn an_entry_at_the_instant_of_a_request_is_not_an_overtake_in_any_line_order() {
        use Observation::{CsEnter, CsExit, CsRequest};
        let r = 0;
        let req = CsRequest { resource: r };
        let (enter, exit) = (CsEnter { resource: r }, CsExit { resource: r });
        let first = trace(&[
            (0, req.clone(), 1),
            (1, req.clone(), 1),
            (1, enter.clone(), 1),
            (1, exit.clone(), 2),
            (1, req.clone(), 3),
            (1, enter.clone(), 3),
            (1, exit.clone(), 4),
        ]);
        let mut swapped = first.clone();
        swapped.swap(0, 2);
        swapped.swap(1, 2); // n1 req, n1 enter, n0 req: node 1's order kept
        for (i, e) in swapped.iter_mut().enumerate() {
            e.id = i as u64;
        }
        assert_eq!(run(first.clone(), 1), Ok(()));
        assert_eq!(run(swapped, 1), Ok(()));
        // A third entry is a violation, again whatever the first instant's order.
        let mut more = first.clone();
        more.extend(trace(&[(1, req.clone(), 5), (1, enter.clone(), 5)]));
        for (i, e) in more.iter_mut().enumerate() {
            e.id = i as u64;
        }
        let v = run(more.clone(), 1).unwrap_err();
        assert!(
            v.explanation.contains("overtaken 2 times (bound 1)"),
            "{}",
            v.explanation
        );
        more.swap(0, 2);
        more.swap(1, 2);
        assert!(run(more, 1).is_err());
    }

    /// An exit of a node that is not inside starts no wait and orders nothing: node 0 asks
    /// while outside, "exits" at the same instant, and node 1 enters twice there. Every entry
    /// may come before node 0's request, so none overtakes it (with k = 1). The checker took
    /// the exit for the one that starts the wait and counted both (the differential test at
    /// 65,536 cases, stop 84); the oracle passed it.
    #[test]
    fn an_exit_of_a_node_outside_starts_no_wait() {
        use Observation::{CsEnter, CsExit, CsRequest};
        let r = 0;
        let lines = [
            (1, CsEnter { resource: r }, 0),
            (0, CsRequest { resource: r }, 0),
            (1, CsEnter { resource: r }, 0),
            (0, CsExit { resource: r }, 0),
            (0, CsRequest { resource: r }, 0),
        ];
        assert_eq!(run(trace(&lines), 1), Ok(()));
        // Inside, the same exit does start the wait: node 1's entries follow it.
        let mut inside = vec![(0, CsEnter { resource: r }, 0)];
        inside.extend(lines.iter().map(|(n, o, _)| (*n, o.clone(), 1)));
        let v = run(trace(&inside), 1).unwrap_err();
        assert!(
            v.explanation.contains("overtaken 2 times (bound 1)"),
            "{}",
            v.explanation
        );
    }

    /// A waiter that enters, asks again and exits at one instant, while another node enters
    /// and leaves twice there: the other's sections may all come before the waiter's (an
    /// order that keeps mutual exclusion), so they need not overtake the new request; with
    /// k = 1 two were counted (stop 84). Entries that stay inside, or a waiter inside since
    /// an earlier instant, leave no such order: still counted.
    #[test]
    fn sections_that_may_come_before_the_waiters_own_are_not_overtakes() {
        use Observation::{CsEnter, CsExit, CsRequest};
        let r = 0;
        let (enter, exit, req) = (
            CsEnter { resource: r },
            CsExit { resource: r },
            CsRequest { resource: r },
        );
        let waiter = [
            (0, enter.clone(), 1),
            (0, req.clone(), 1),
            (0, exit.clone(), 1),
        ];
        let mut twice = waiter.to_vec();
        twice.extend([
            (1, enter.clone(), 1),
            (1, exit.clone(), 1),
            (1, enter.clone(), 1),
            (1, exit.clone(), 1),
        ]);
        assert_eq!(run(trace(&twice), 1), Ok(()));
        // inside since an earlier instant: node 1's sections follow the exit
        let mut before = vec![(0, enter.clone(), 0)];
        before.extend(twice.iter().skip(1).cloned());
        let v = run(trace(&before), 1).unwrap_err();
        assert!(
            v.explanation.contains("overtaken 2 times (bound 1)"),
            "{}",
            v.explanation
        );
        // node 1 stays inside after its second entry: that one follows the waiter's exit
        // (one overtake), and its next entry makes two
        let mut stays = twice[..6].to_vec();
        stays.push((1, exit.clone(), 2));
        stays.push((1, enter.clone(), 3));
        assert_eq!(run(trace(&stays[..7]), 1), Ok(()), "one overtake");
        let v = run(trace(&stays), 1).unwrap_err();
        assert!(
            v.explanation.contains("overtaken 2 times (bound 1)"),
            "{}",
            v.explanation
        );
    }

    /// An entry at the instant the waiter enters, abandons or crashes, or at the instant it
    /// requests, is not counted; one strictly inside the wait is, and one at the instant the
    /// waiter exits with its next request queued (mutual exclusion puts it after the exit).
    #[test]
    fn only_entries_strictly_inside_a_wait_count() {
        use Observation::{CsAbandon, CsEnter, CsExit, CsRequest};
        let (req, enter, exit) = (
            CsRequest { resource: 0 },
            CsEnter { resource: 0 },
            CsExit { resource: 0 },
        );
        // node 0 waits from 1 ms; node 1 enters at 2 ms, the instant node 0 enters: no overtake
        let ends_at_entry = trace(&[
            (0, req.clone(), 1),
            (1, enter.clone(), 2),
            (0, enter.clone(), 2),
        ]);
        assert_eq!(run(ends_at_entry, 0), Ok(()));
        let ends_at_abandon = trace(&[
            (0, req.clone(), 1),
            (1, enter.clone(), 2),
            (0, CsAbandon { resource: 0 }, 2),
        ]);
        assert_eq!(run(ends_at_abandon, 0), Ok(()));
        // node 0 requests at 2 ms, the instant node 1 enters: the entry may come first
        let at_request = trace(&[(1, enter.clone(), 2), (0, req.clone(), 2)]);
        assert_eq!(run(at_request.clone(), 0), Ok(()));
        // ... but an entry at 3 ms, strictly inside node 0's wait, is
        let mut later = at_request;
        later.extend(trace(&[(1, exit.clone(), 3), (1, enter.clone(), 3)]));
        for (i, e) in later.iter_mut().enumerate() {
            e.id = i as u64;
        }
        assert!(run(later, 0).is_err());
        // node 0 inside with a second request queued; node 1 enters as node 0 exits, listed
        // before or after the exit: it follows the exit (or both are inside at once)
        let at_exit = [
            (0, req.clone(), 1),
            (0, enter.clone(), 1),
            (0, req.clone(), 1),
            (1, enter.clone(), 2),
            (0, exit.clone(), 2),
        ];
        let v = run(trace(&at_exit), 0).unwrap_err();
        assert_eq!(v.events, vec![2, 3]);
        let mut swapped = at_exit;
        swapped.swap(3, 4);
        assert!(run(trace(&swapped), 0).is_err());
        // with node 0's next request made after its exit, at the same instant, the entry may
        // come between the two: not counted
        let exit_then_request = trace(&[
            (0, req.clone(), 1),
            (0, enter.clone(), 1),
            (0, exit.clone(), 2),
            (1, enter.clone(), 2),
            (0, req.clone(), 2),
        ]);
        assert_eq!(run(exit_then_request, 0), Ok(()));
    }

    /// Node 0 waits from 1 ms; node 1 enters and leaves at 2 ms and again at 4 ms, the instant
    /// node 0 enters and stays inside: node 1's second entry came before node 0's in every
    /// order that keeps mutual exclusion, so node 0 was overtaken twice (k = 1 for 2 nodes).
    /// This passed, in every line order of the last instant. Had node 0 also left at 4 ms,
    /// or node 1 stayed inside, the order would be open and the entry not counted.
    #[test]
    fn an_entry_left_at_the_instant_the_waiter_enters_and_stays_is_an_overtake() {
        use Observation::{CsEnter, CsExit, CsRequest};
        let (req, enter, exit) = (
            CsRequest { resource: 0 },
            CsEnter { resource: 0 },
            CsExit { resource: 0 },
        );
        let lines = [
            (0, req.clone(), 1),
            (1, enter.clone(), 2),
            (1, exit.clone(), 3),
            (1, enter.clone(), 4),
            (1, exit.clone(), 4),
            (0, enter.clone(), 4),
        ];
        let v = run(trace(&lines), 1).unwrap_err();
        assert!(
            v.explanation.contains("overtaken 2 times (bound 1)"),
            "{}",
            v.explanation
        );
        assert_eq!(v.events, vec![0, 1, 3]);
        // node 0's entry listed first at 4 ms: the same verdict
        let mut reordered = lines.clone();
        reordered.swap(3, 5);
        reordered.swap(4, 5); // n0 enter, n1 enter, n1 exit at 4 ms
        assert!(run(trace(&reordered), 1).is_err());
        // an instant 1 ns apart told the order already: a violation before as now
        let mut apart = trace(&lines);
        apart[5].t_ns += 1;
        assert!(run(apart, 1).is_err());
        // node 0 also leaves at 4 ms: node 1 may have come after it; not counted
        let mut both_leave = lines.to_vec();
        both_leave.push((0, exit.clone(), 4));
        assert_eq!(run(trace(&both_leave), 1), Ok(()));
        // node 1 stays inside at 4 ms too: mutual exclusion breaks, no order: not counted
        let mut stays = lines.to_vec();
        stays.remove(4);
        assert_eq!(run(trace(&stays), 1), Ok(()));
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
