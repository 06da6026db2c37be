//! The ground-truth wait-for graph, rebuilt from `wait_for` / `wait_end` observations, shared by
//! [`crate::deadlock_soundness`] and [`crate::deadlock_completeness`].
//!
//! An edge `waiter -> on` is added by a `wait_for` observation and removed by the matching
//! `wait_end` (an edge observed twice needs two ends). The node that observes an edge is the
//! resource's owner, whose queue is the ground truth: when that node crashes or restarts its
//! queue is gone, so the observations it made go too; a crashed waiter waits for nothing.
//!
//! Not a checker: it judges nothing. It reads `wait_for` / `wait_end` observations (a
//! `wait_end` withdraws the ending node's own observation of the edge, and is ignored when
//! that node holds none, as a crash of a node withdraws only its own) and `crash` / `restart`
//! faults, and ignores every other event. A `wait_end` of an edge its node never observed
//! breaks that contract: [`OwnEnds`] tells the checkers, which then judge no further (before
//! stop 74 it withdrew another node's observation, so a node that never saw an edge could
//! end it, turn a real deadlock's report into a "phantom" and hide an unreported one). A
//! crash or restart of a node removes every edge it waits on and its observations of the
//! others: an edge goes when no observation of it is left.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Fault, NodeId, Observation};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// How the graph changed with one event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing changed.
    None,
    /// The edge `(waiter, on)` appeared.
    Added(NodeId, NodeId),
    /// These edges disappeared.
    Removed(Vec<(NodeId, NodeId)>),
}

#[derive(Clone, Debug)]
struct Edge {
    /// The nodes whose observations keep it (one entry per `wait_for` not yet ended), oldest
    /// first.
    observers: Vec<Option<NodeId>>,
    /// The `wait_for` event that (last) created it.
    event: u64,
    /// [`WaitForGraph::seq`] of the event that made it appear (its first observation not yet ended).
    born: u64,
}

/// A graph's edges with their observers ([`WaitForGraph::key`]).
pub type GraphKey = Vec<((NodeId, NodeId), Vec<Option<NodeId>>)>;

/// A wait-for graph.
#[derive(Clone, Debug, Default)]
pub struct WaitForGraph {
    edges: BTreeMap<(NodeId, NodeId), Edge>,
    /// waiter -> the last `wait_end` event of one of its edges
    last_end: BTreeMap<NodeId, u64>,
    /// Events applied so far.
    seq: u64,
}

impl WaitForGraph {
    /// An empty graph.
    pub fn new() -> Self {
        WaitForGraph::default()
    }

    /// The number of events applied so far: the sequence number of the last one (1 for the
    /// first), which orders the events whatever their ids.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Applies one trace event.
    pub fn apply(&mut self, ev: &Event) -> Change {
        self.seq += 1;
        let seq = self.seq;
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::WaitFor { waiter, on },
            } => {
                let e = self.edges.entry((*waiter, *on)).or_insert(Edge {
                    observers: Vec::new(),
                    event: ev.id,
                    born: seq,
                });
                e.observers.push(ev.node);
                e.event = ev.id;
                if e.observers.len() == 1 {
                    Change::Added(*waiter, *on)
                } else {
                    Change::None
                }
            }
            EventKind::Observe {
                obs: Observation::WaitEnd { waiter, on },
            } => {
                self.last_end.insert(*waiter, ev.id);
                let Some(e) = self.edges.get_mut(&(*waiter, *on)) else {
                    return Change::None;
                };
                let Some(k) = e.observers.iter().position(|&o| o == ev.node) else {
                    return Change::None;
                };
                e.observers.remove(k);
                if e.observers.is_empty() {
                    self.edges.remove(&(*waiter, *on));
                    Change::Removed(vec![(*waiter, *on)])
                } else {
                    Change::None
                }
            }
            EventKind::Fault {
                fault: Fault::Crash { node } | Fault::Restart { node },
            } => {
                let mut gone: Vec<(NodeId, NodeId)> = Vec::new();
                self.edges.retain(|&k, e| {
                    e.observers.retain(|&o| o != Some(*node));
                    let keep = k.0 != *node && !e.observers.is_empty();
                    if !keep {
                        gone.push(k);
                    }
                    keep
                });
                if gone.is_empty() {
                    Change::None
                } else {
                    Change::Removed(gone)
                }
            }
            _ => Change::None,
        }
    }

    /// How many edges the graph has.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// What decides the graph's future: each edge with its observers, in order (not when or
    /// by which event it appeared). Two graphs with one key judge every later event alike.
    pub fn key(&self) -> GraphKey {
        self.edges
            .iter()
            .map(|(&k, e)| (k, e.observers.clone()))
            .collect()
    }

    /// The processes `node` waits for, in id order.
    pub fn successors(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.edges
            .range((node, 0)..=(node, NodeId::MAX))
            .map(|(&(_, on), _)| on)
    }

    /// True when the edge `waiter -> on` exists.
    pub fn has_edge(&self, waiter: NodeId, on: NodeId) -> bool {
        self.edges.contains_key(&(waiter, on))
    }

    /// The `wait_for` event that created the edge, if it exists.
    pub fn edge_event(&self, waiter: NodeId, on: NodeId) -> Option<u64> {
        self.edges.get(&(waiter, on)).map(|e| e.event)
    }

    /// When the edge `waiter -> on` appeared ([`WaitForGraph::seq`] of that event), if it
    /// exists.
    pub fn edge_born(&self, waiter: NodeId, on: NodeId) -> Option<u64> {
        self.edges.get(&(waiter, on)).map(|e| e.born)
    }

    /// The last `wait_end` event of an edge out of `waiter`.
    pub fn last_end(&self, waiter: NodeId) -> Option<u64> {
        self.last_end.get(&waiter).copied()
    }

    /// A shortest path `from -> ... -> to` (both included; at least one edge), if any.
    pub fn path(&self, from: NodeId, to: NodeId) -> Option<Vec<NodeId>> {
        self.path_within(from, to, u64::MAX, |_| true)
    }

    /// A shortest path `from -> ... -> to` (both included; at least one edge) over the edges
    /// that appeared at or before `born_by` ([`WaitForGraph::seq`]) and through nodes `via`
    /// accepts (`from` and `to` are not asked), if any.
    pub fn path_within(
        &self,
        from: NodeId,
        to: NodeId,
        born_by: u64,
        via: impl Fn(NodeId) -> bool,
    ) -> Option<Vec<NodeId>> {
        let next = |n: NodeId| {
            self.edges
                .range((n, 0)..=(n, NodeId::MAX))
                .filter(move |(_, e)| e.born <= born_by)
                .map(|(&(_, on), _)| on)
        };
        // breadth-first, stopping as soon as `to` is discovered (its distance is then known)
        let mut parent: HashMap<NodeId, NodeId> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        while let Some(n) = queue.pop_front() {
            for s in next(n) {
                if s == to {
                    let mut path = vec![to, n];
                    let mut cur = n;
                    while cur != from {
                        cur = parent[&cur];
                        path.push(cur);
                    }
                    path.reverse();
                    return Some(path);
                }
                if s != from && via(s) && !parent.contains_key(&s) {
                    parent.insert(s, n);
                    queue.push_back(s);
                }
            }
        }
        None
    }

    /// A shortest cycle through `node`: `[node, a, b, ..., node]`, if any.
    pub fn cycle_through(&self, node: NodeId) -> Option<Vec<NodeId>> {
        self.path(node, node)
    }

    /// Where `node`'s wait leads, following the first edge each time, in words (for
    /// explanations): `n2 -> n0 -> n4, which waits for nobody`.
    /// A chain of more than 16 nodes is cut in the middle ([`crate::grouped::elide`]).
    pub fn describe_chain(&self, node: NodeId) -> String {
        let mut hops = vec![format!("n{node}")];
        let mut seen = BTreeSet::from([node]);
        let mut cur = node;
        loop {
            let Some(next) = self.successors(cur).next() else {
                if cur == node {
                    return format!("n{node} waits for nobody");
                }
                let out = crate::grouped::elide(&hops, " -> ");
                return format!("{out}, which waits for nobody");
            };
            hops.push(format!("n{next}"));
            if !seen.insert(next) {
                let out = crate::grouped::elide(&hops, " -> ");
                return format!("{out}, a cycle without n{node}");
            }
            cur = next;
        }
    }
}

/// The contract the deadlock checkers judge under: the node that ends an edge (`wait_end`)
/// is one that observed it (`wait_for`) before, as the resource's owner does. Each node's
/// own events come in program order, so whether one broke it does not depend on how one
/// instant's events of different nodes are ordered.
#[derive(Clone, Debug, Default)]
pub struct OwnEnds {
    /// (observer, waiter, on) of every `wait_for` so far
    observed: BTreeSet<(Option<NodeId>, NodeId, NodeId)>,
    /// the first `wait_end` of an edge its node never observed, in words
    broken: Option<String>,
}

impl OwnEnds {
    /// Reads one event; true once the contract is broken (by it or before).
    pub fn apply(&mut self, ev: &Event) -> bool {
        if self.broken.is_none() {
            match &ev.kind {
                EventKind::Observe {
                    obs: Observation::WaitFor { waiter, on },
                } => {
                    self.observed.insert((ev.node, *waiter, *on));
                }
                EventKind::Observe {
                    obs: Observation::WaitEnd { waiter, on },
                } if !self.observed.contains(&(ev.node, *waiter, *on)) => {
                    let by = ev
                        .node
                        .map_or("no node".to_string(), |n| format!("node {n}"));
                    self.broken = Some(format!(
                        "{by} ended the wait-for edge n{waiter} -> n{on} at event {} without having observed it: the node that reports an edge (its resource's owner) ends it; the graph after it is unknown, so nothing from {:.3} ms on was judged",
                        ev.id,
                        ev.t_ns as f64 / 1e6
                    ));
                }
                _ => {}
            }
        }
        self.broken.is_some()
    }

    /// Why the run is not judged past the contract's break, if it broke.
    pub fn broken(&self) -> Option<&str> {
        self.broken.as_deref()
    }
}

/// Whether a deadlock checker reads `ev`: a `wait_for`, `wait_end` or `deadlock_detected`
/// observation, or a crash or restart. The others change neither the graph nor a verdict.
pub fn reads(ev: &Event) -> bool {
    matches!(
        &ev.kind,
        EventKind::Observe {
            obs: Observation::WaitFor { .. }
                | Observation::WaitEnd { .. }
                | Observation::DeadlockDetected { .. }
        } | EventKind::Fault {
            fault: Fault::Crash { .. } | Fault::Restart { .. }
        }
    )
}

/// Whether `ev` is a `deadlock_detected` observation.
pub fn is_report(ev: &Event) -> bool {
    matches!(
        &ev.kind,
        EventKind::Observe {
            obs: Observation::DeadlockDetected { .. }
        }
    )
}

/// One instant's events, each node's in its program order (the events without a node as one
/// more sequence, first): nothing orders two nodes' events of one global time, so the
/// deadlock checkers judge an instant from these sequences, never from the trace's line order.
pub fn by_node<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<Vec<&'a Event>> {
    let mut seqs: BTreeMap<Option<NodeId>, Vec<&Event>> = BTreeMap::new();
    for e in events {
        seqs.entry(e.node).or_default().push(e);
    }
    seqs.into_values().collect()
}

/// Renders a cycle `[a, b, a]` as `n0 -> n1 -> n0` (past 16 nodes, cut in the middle by
/// [`crate::grouped::elide`]).
pub fn cycle_text(cycle: &[NodeId]) -> String {
    let hops: Vec<String> = cycle.iter().map(|n| format!("n{n}")).collect();
    crate::grouped::elide(&hops, " -> ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::observe;

    /// An edge observed by two nodes stays until both observations are gone: a crash of one
    /// observer withdraws only its own (it used to remove the edge with its last observer).
    #[test]
    fn a_crash_withdraws_only_the_crashed_nodes_observations() {
        let mut g = WaitForGraph::new();
        let wf = Observation::WaitFor { waiter: 0, on: 2 };
        assert_eq!(g.apply(&observe(0, 2, wf.clone())), Change::Added(0, 2));
        assert_eq!(g.apply(&observe(1, 1, wf)), Change::None);
        let crash = |id, node| Event {
            id,
            t_ns: id,
            node: Some(node),
            local_ns: None,
            kind: EventKind::Fault {
                fault: Fault::Crash { node },
            },
        };
        assert_eq!(g.apply(&crash(2, 1)), Change::None);
        assert!(g.has_edge(0, 2));
        assert_eq!(g.apply(&crash(3, 2)), Change::Removed(vec![(0, 2)]));
        // a crashed waiter waits for nothing, whoever observed its edges
        g.apply(&observe(4, 2, Observation::WaitFor { waiter: 0, on: 2 }));
        assert_eq!(g.apply(&crash(5, 0)), Change::Removed(vec![(0, 2)]));
        assert_eq!(g.seq(), 6);
    }
}
