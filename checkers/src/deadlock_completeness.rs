//! Deadlock completeness: every real deadlock is reported. Every cycle of the ground-truth
//! wait-for graph that persists is reported (`deadlock_detected`) by one of its members within
//! a bound after it formed, counted from when the faults stopped if that is later.
//!
//! A cycle forms when the last of its edges appears; it is done with when any of its edges
//! ends (it was transient, or was resolved) or when a member reports a deadlock after it
//! formed. *Every* simple cycle is owed a report, not just the shortest one an edge closes:
//! when edges 1→2, 2→0 and 1→0 exist, 0→1 closes both 0-1-0 and 0-1-2-0, and if 1→0 then ends,
//! 0-1-2-0 is still a deadlock to report. A cycle still unreported at the end of the run whose
//! deadline is not past cannot be judged, and the checker says so.
//!
//! **How, without listing the cycles** (there may be exponentially many): a cycle's deadline
//! is set by its newest edge (the one that closed it). So the checker keeps, for each edge `e`
//! that closed at least one cycle, one *obligation*: "some cycle through `e`, made of edges no
//! newer than `e`, none of whose members has reported since `e` appeared" — with a witness
//! cycle. Such a cycle exists exactly when the graph restricted to those edges and nodes has a
//! path from `e`'s head back to its tail, so the obligation is re-checked (one breadth-first
//! search) only when its witness breaks: an edge of it ends or a member reports. It is dropped
//! when no such path is left (every cycle it stood for was broken or reported), or when `e`
//! ends. An obligation still open at its deadline is an unreported persistent cycle: its
//! witness is reported.
//!
//! # Contract
//!
//! - **Reads:** `wait_for` / `wait_end` observations and `crash` / `restart` faults (the
//!   ground-truth graph, see [`crate::deadlock_graph`]), and `deadlock_detected` observations.
//!   Every simple cycle of the graph is judged, from the event that closed it (the appearance
//!   of its newest edge) for as long as all its edges last. A `deadlock_detected` whose node
//!   is a member of a cycle marks that cycle reported, whatever cycle the report was about; a
//!   report made before the cycle formed does not count. Ignored: messages, partitions,
//!   pauses.
//! - **Events at one instant are judged as a set.** Nothing orders two nodes' events of one
//!   global time, so the verdict never depends on their line order: an instant's events are
//!   applied each node's in its own program order, every report as late as those orders
//!   allow. A report at the instant a cycle forms counts for it unless its own node formed
//!   the cycle after reporting. The order is chosen, not searched (unlike
//!   [`crate::deadlock_soundness`]): every appearance of an edge before any end, so two
//!   nodes' conflicting changes of one edge at one instant (one ends it, the other adds it)
//!   leave it absent, whichever node has the lower number.
//! - **Settings:** the quiet time (`scenario.quiet_from_ms()`) and the liveness bound; not the
//!   node count. A cycle formed at `t` must be reported by `max(t, quiet) + bound`; a bound of
//!   0 is taken literally (reported at that very instant); the checker has no default bound
//!   ([`crate::Property::NEEDS_BOUND`]).
//! - **Cost:** one breadth-first search of the graph when an edge appears, and one for each
//!   open obligation whose witness an ending edge or a report breaks.
//! - **When the run ends before it can judge:** `finish` reports an unreported cycle whose
//!   deadline is before the end of the run; if an unreported cycle is still open with its
//!   deadline at or after the end, the run is **not judged** ([`Checker::could_not_judge`]
//!   names the cycle, its deadline and the end).
//! - **Class:** liveness.

use crate::deadlock_graph::{by_node, cycle_text, is_report, reads, Change, OwnEnds, WaitForGraph};
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation, NS_PER_MS};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "deadlock_completeness";

/// The cycles an edge closed, still unreported: some cycle through `edge`, of edges no newer
/// than it and of members that have not reported since it appeared.
#[derive(Debug, Clone)]
struct Obligation {
    /// `(waiter, on)`: the newest edge of the cycles.
    edge: (NodeId, NodeId),
    /// When it appeared ([`WaitForGraph::seq`]).
    born: u64,
    /// The `wait_for` event that made it appear.
    event: u64,
    formed_ns: u64,
    deadline_ns: u64,
    /// One such cycle, `[waiter, on, ..., waiter]`.
    witness: Vec<NodeId>,
}

impl Obligation {
    fn has_edge(&self, w: NodeId, on: NodeId) -> bool {
        self.witness.windows(2).any(|p| p[0] == w && p[1] == on)
    }
}

/// The deadlock completeness checker.
#[derive(Debug)]
pub struct DeadlockCompleteness {
    graph: WaitForGraph,
    quiet_ns: u64,
    bound_ns: u64,
    /// node -> [`WaitForGraph::seq`] of its last `deadlock_detected`
    last_report: BTreeMap<NodeId, u64>,
    open: Vec<Obligation>,
    /// The earliest deadline of `open` (`u64::MAX`: none): lowered when an obligation opens,
    /// worked out again only after one holding it is dropped, so an instant is judged without
    /// a scan of `open` (40,000 open cycles over 20,000 instants: 4.1 s before).
    earliest_ns: u64,
    /// An obligation with the earliest deadline was dropped: `earliest_ns` may be too low.
    earliest_stale: bool,
    /// node -> how many entries of open witnesses name it: a report of a node no witness
    /// names re-checks nothing, without a scan (20,000 bystander reports took 4 s of scans)
    members: BTreeMap<NodeId, usize>,
    unjudged: Option<String>,
    /// The current instant and the events of it this checker reads, in trace order.
    now_ns: u64,
    instant: Vec<Event>,
    /// Whether every `wait_end` came from a node that observed its edge.
    own_ends: OwnEnds,
}

impl DeadlockCompleteness {
    /// Cycles must be reported within `bound_ms` of `max(formed, quiet_from_ms)`.
    pub fn new(quiet_from_ms: u64, bound_ms: u64) -> Self {
        DeadlockCompleteness {
            graph: WaitForGraph::new(),
            quiet_ns: quiet_from_ms * NS_PER_MS,
            bound_ns: bound_ms * NS_PER_MS,
            last_report: BTreeMap::new(),
            open: Vec::new(),
            earliest_ns: u64::MAX,
            earliest_stale: false,
            members: BTreeMap::new(),
            unjudged: None,
            now_ns: 0,
            instant: Vec::new(),
            own_ends: OwnEnds::default(),
        }
    }

    /// A cycle through `(w, on)` of edges that appeared by `born` and of nodes that have not
    /// reported since: `[w, on, ..., w]`.
    fn witness(&self, (w, on): (NodeId, NodeId), born: u64) -> Option<Vec<NodeId>> {
        let unreported = |x: NodeId| self.last_report.get(&x).is_none_or(|&r| r < born);
        if !unreported(w) || !unreported(on) || self.graph.edge_born(w, on)? > born {
            return None;
        }
        if w == on {
            return Some(vec![w, w]);
        }
        let mut cycle = self.graph.path_within(on, w, born, unreported)?;
        cycle.insert(0, w);
        Some(cycle)
    }

    /// Counts the entries of `nodes` (a witness's) in or out of [`Self::members`].
    fn count_members(&mut self, nodes: &[NodeId], add: bool) {
        for &n in nodes {
            if add {
                *self.members.entry(n).or_default() += 1;
            } else if let Some(c) = self.members.get_mut(&n) {
                *c -= 1;
                if *c == 0 {
                    self.members.remove(&n);
                }
            } else {
                debug_assert!(false, "node {n} counted out more often than in");
            }
        }
    }

    /// Re-checks the obligations `broken` says are hit; drops those left without a cycle.
    fn recheck(&mut self, broken: impl Fn(&Obligation) -> bool) {
        let mut open = std::mem::take(&mut self.open);
        let mut stale = false;
        let mut gone: Vec<Vec<NodeId>> = Vec::new();
        let mut came: Vec<NodeId> = Vec::new();
        open.retain_mut(|o| {
            if !broken(o) {
                return true;
            }
            match self.witness(o.edge, o.born) {
                Some(w) => {
                    gone.push(std::mem::replace(&mut o.witness, w));
                    came.extend(&o.witness);
                    true
                }
                None => {
                    stale |= o.deadline_ns == self.earliest_ns;
                    gone.push(std::mem::take(&mut o.witness));
                    false
                }
            }
        });
        self.open = open;
        self.earliest_stale |= stale;
        for w in gone {
            self.count_members(&w, false);
        }
        self.count_members(&came, true);
    }

    /// Applies one event of a closed instant to the graph and the obligations.
    fn apply(&mut self, ev: &Event) {
        let change = self.graph.apply(ev);
        let seq = self.graph.seq();
        match change {
            Change::Added(w, on) => {
                if let Some(witness) = self.witness((w, on), seq) {
                    let deadline_ns = ev.t_ns.max(self.quiet_ns) + self.bound_ns;
                    self.earliest_ns = self.earliest_ns.min(deadline_ns);
                    self.count_members(&witness, true);
                    self.open.push(Obligation {
                        edge: (w, on),
                        born: seq,
                        event: ev.id,
                        formed_ns: ev.t_ns,
                        deadline_ns,
                        witness,
                    });
                }
            }
            Change::Removed(edges) => {
                let earliest = self.earliest_ns;
                let mut stale = false;
                let mut gone: Vec<NodeId> = Vec::new();
                self.open.retain(|o| {
                    let keep = !edges.contains(&o.edge);
                    stale |= !keep && o.deadline_ns == earliest;
                    if !keep {
                        gone.extend(&o.witness);
                    }
                    keep
                });
                self.earliest_stale |= stale;
                self.count_members(&gone, false);
                self.recheck(|o| edges.iter().any(|&(w, on)| o.has_edge(w, on)));
            }
            Change::None => {}
        }
        if let (
            EventKind::Observe {
                obs: Observation::DeadlockDetected { .. },
            },
            Some(node),
        ) = (&ev.kind, ev.node)
        {
            self.last_report.insert(node, seq);
            if self.members.contains_key(&node) {
                self.recheck(|o| o.witness.contains(&node));
            }
        }
    }

    /// Applies the current instant's events, each node's in its own order, every report as
    /// late as those orders allow.
    fn close_instant(&mut self) {
        if self.instant.is_empty() {
            return;
        }
        let events = std::mem::take(&mut self.instant);
        for ev in reports_last(&events) {
            self.apply(ev);
        }
        self.instant = events;
        self.instant.clear();
        if std::mem::take(&mut self.earliest_stale) {
            self.earliest_ns = self
                .open
                .iter()
                .map(|o| o.deadline_ns)
                .min()
                .unwrap_or(u64::MAX);
        }
        debug_assert_eq!(
            self.earliest_ns,
            self.open
                .iter()
                .map(|o| o.deadline_ns)
                .min()
                .unwrap_or(u64::MAX),
            "the earliest deadline kept"
        );
        debug_assert_eq!(
            self.members.values().sum::<usize>(),
            self.open.iter().map(|o| o.witness.len()).sum::<usize>(),
            "every witness entry counted"
        );
    }

    fn judge(&self, now_ns: u64) -> Result<(), Violation> {
        if now_ns <= self.earliest_ns {
            debug_assert!(self.open.iter().all(|o| o.deadline_ns >= now_ns));
            return Ok(());
        }
        let Some(late) = self
            .open
            .iter()
            .filter(|o| o.deadline_ns < now_ns)
            .min_by_key(|o| o.deadline_ns)
        else {
            return Ok(());
        };
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!(
                "the deadlock {} formed at {:.3} ms was not reported by any of its members within {} ms",
                cycle_text(&late.witness),
                late.formed_ns as f64 / 1e6,
                self.bound_ns / NS_PER_MS
            ),
            t_ns: late.deadline_ns,
            events: vec![late.event],
        })
    }
}

/// Whether `ev` adds a wait-for edge.
fn is_wait_for(ev: &&Event) -> bool {
    matches!(
        ev.kind,
        EventKind::Observe {
            obs: Observation::WaitFor { .. }
        }
    )
}

/// One instant's events in the order chosen to judge its reports kindly: each node's in its
/// program order; a graph change whenever some node's next event is one, an edge's
/// appearance before any end (so that when one node adds an edge another ends at the same
/// instant, it ends up absent, whatever the nodes' numbers);
/// when every node's next event is a report, first one that holds back its node's changes
/// (so that the other reports come after them), and the reports that end their sequences
/// last. A report counts for the cycles formed before it, and moving it past other nodes'
/// changes of the instant only lets it count for more (a cycle broken before it needs no
/// report, one formed before it is reported). The order is chosen, not searched: among
/// appearances, among ends, and among reports that each hold back changes, the lowest
/// node's goes first (appearances commute with each other, and so do ends).
fn reports_last(events: &[Event]) -> Vec<&Event> {
    let mut seqs: Vec<std::collections::VecDeque<&Event>> =
        by_node(events).into_iter().map(Into::into).collect();
    if seqs.len() == 1 {
        return seqs.pop().map(Vec::from).unwrap_or_default();
    }
    let mut out = Vec::with_capacity(events.len());
    loop {
        let next = seqs
            .iter()
            .position(|q| q.front().is_some_and(is_wait_for))
            .or_else(|| {
                seqs.iter()
                    .position(|q| q.front().is_some_and(|e| !is_report(e)))
            })
            .or_else(|| {
                // a report with changes behind it: taking it lets them in before the others
                seqs.iter()
                    .position(|q| q.front().is_some() && q.iter().any(|e| !is_report(e)))
            })
            .or_else(|| seqs.iter().position(|q| !q.is_empty()));
        let Some(k) = next else { break };
        out.extend(seqs[k].pop_front());
    }
    debug_assert_eq!(out.len(), events.len());
    out
}

impl Checker for DeadlockCompleteness {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if self.own_ends.broken().is_some() {
            return Ok(()); // not judged past a `wait_end` its node had no edge to end
        }
        if ev.t_ns != self.now_ns {
            self.close_instant();
            self.now_ns = ev.t_ns;
            self.judge(ev.t_ns)?;
        }
        if self.own_ends.apply(ev) {
            return Ok(()); // judged up to this instant
        }
        if reads(ev) {
            self.instant.push(ev.clone());
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        if self.own_ends.broken().is_some() {
            return Ok(());
        }
        self.close_instant();
        self.judge(end_t_ns)?;
        self.unjudged = self.open.iter().min_by_key(|o| o.deadline_ns).map(|o| {
            format!(
                "the deadlock {} formed at {:.3} ms was not reported yet when the run ended at {:.3} ms, {} its deadline {:.3} ms: too short to judge",
                cycle_text(&o.witness),
                o.formed_ns as f64 / 1e6,
                end_t_ns as f64 / 1e6,
                crate::before_or_at(end_t_ns, o.deadline_ns),
                o.deadline_ns as f64 / 1e6
            )
        });
        Ok(())
    }

    fn could_not_judge(&self) -> Option<String> {
        self.unjudged
            .clone()
            .or_else(|| self.own_ends.broken().map(str::to_string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::check::{check_trace, judge_trace};
    use sincro_harness::{Trace, Verdict};

    use crate::test_events::observe_ms as obs;

    fn wf(waiter: NodeId, on: NodeId) -> Observation {
        Observation::WaitFor { waiter, on }
    }

    fn run(events: Vec<Event>, end_ms: u64) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockCompleteness::new(0, 100))];
        check_trace(&trace, end_ms * NS_PER_MS, &mut cs)
    }

    fn cycle() -> Vec<Event> {
        vec![
            obs(0, 1, 1, wf(0, 1)),
            obs(1, 2, 2, wf(1, 2)),
            obs(2, 3, 0, wf(2, 0)),
        ]
    }

    #[test]
    fn an_unreported_persistent_cycle_is_caught() {
        let v = run(cycle(), 1000).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.class, PropertyClass::Liveness);
        assert_eq!(v.events, vec![2], "the edge that closed the cycle");
        assert_eq!(v.t_ns, 103 * NS_PER_MS);
        assert!(
            v.explanation.contains("n2 -> n0 -> n1 -> n2"),
            "{}",
            v.explanation
        );
    }

    /// One node ends its observation of an edge that another adds at one instant: the edge
    /// stays (the other's observation keeps it) whichever node has the lower number. With the
    /// lower one's change first, a renumbering of the two nodes once turned a pass into a
    /// violation.
    #[test]
    fn an_edge_added_and_ended_at_one_instant_judges_alike_whatever_the_numbering() {
        let verdicts: Vec<_> = [(1, 2), (2, 1)]
            .into_iter()
            .map(|(ender, adder)| {
                let events = vec![
                    obs(0, 1, 1, wf(0, 1)),
                    obs(1, 1, 2, wf(1, 2)),
                    obs(2, 2, ender, wf(2, 0)),
                    obs(3, 5, ender, Observation::WaitEnd { waiter: 2, on: 0 }),
                    obs(4, 5, adder, wf(2, 0)),
                ];
                run(events, 1000).map_err(|v| v.t_ns)
            })
            .collect();
        assert_eq!(verdicts, vec![Err(102 * NS_PER_MS); 2]);
    }

    /// Stop 74's probe: a node that never observed an edge ended it (withdrawing the
    /// observer's observation), and an unreported cycle passed. Past such an end the run is
    /// not judged; a cycle owed a report before it is still caught.
    #[test]
    fn an_edge_ended_by_a_node_that_never_observed_it_stops_the_judging() {
        let mut ev = cycle();
        ev.push(obs(3, 50, 1, Observation::WaitEnd { waiter: 2, on: 0 }));
        let trace = Trace::new(3, ev);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockCompleteness::new(0, 100))];
        match judge_trace(&trace, 1000 * NS_PER_MS, &mut cs) {
            Verdict::Unjudged { reason, .. } => {
                assert!(
                    reason.contains("node 1 ended the wait-for edge n2 -> n0"),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
        // the same end after the cycle's deadline (103 ms + 100): caught first
        let mut late = cycle();
        late.push(obs(3, 500, 1, Observation::WaitEnd { waiter: 2, on: 0 }));
        assert_eq!(run(late, 1000).unwrap_err().t_ns, 103 * NS_PER_MS);
    }

    #[test]
    fn a_late_report_is_caught_online() {
        let mut ev = cycle();
        ev.push(obs(
            3,
            500,
            2,
            Observation::DeadlockDetected { initiator: 2 },
        ));
        assert!(run(ev, 1000).is_err());
    }

    #[test]
    fn reported_transient_and_unjudgeable_cycles_pass() {
        let mut reported = cycle();
        reported.push(obs(
            3,
            50,
            0,
            Observation::DeadlockDetected { initiator: 0 },
        ));
        run(reported, 1000).unwrap();
        let mut transient = cycle();
        transient.push(obs(3, 50, 0, Observation::WaitEnd { waiter: 2, on: 0 }));
        run(transient, 1000).unwrap();
    }

    /// Edges 1→2, 2→0, 1→0, then 0→1 closes both 0-1-0 and 0-1-2-0; 1→0 ends and 0-1-2-0
    /// stays deadlocked: it must be reported (it used to pass: only the shortest cycle an edge
    /// closed was tracked).
    #[test]
    fn every_cycle_an_edge_closes_is_owed_a_report() {
        let events = |report: Option<NodeId>| {
            let mut ev = vec![
                obs(0, 1, 2, wf(1, 2)),
                obs(1, 1, 0, wf(2, 0)),
                obs(2, 1, 0, wf(1, 0)),
                obs(3, 2, 1, wf(0, 1)),
                obs(4, 3, 0, Observation::WaitEnd { waiter: 1, on: 0 }),
            ];
            if let Some(n) = report {
                ev.push(obs(
                    5,
                    50,
                    n,
                    Observation::DeadlockDetected { initiator: n },
                ));
            }
            ev
        };
        let v = run(events(None), 1000).unwrap_err();
        assert_eq!(v.events, vec![3], "the edge that closed it");
        assert_eq!(v.t_ns, 102 * NS_PER_MS);
        assert!(
            v.explanation.contains("n0 -> n1 -> n2 -> n0"),
            "{}",
            v.explanation
        );
        // a report by any member of 0-1-2-0 (here node 2, not in 0-1-0) settles it
        run(events(Some(2)), 1000).unwrap();
        // ... by a node outside it does not
        let mut other = events(None);
        other.push(obs(
            5,
            50,
            3,
            Observation::DeadlockDetected { initiator: 3 },
        ));
        assert!(run(other, 1000).is_err());
    }

    /// A report settles only the cycles formed before it: a cycle that forms later through
    /// the same nodes is owed its own report.
    #[test]
    fn a_report_settles_the_cycles_formed_before_it() {
        let ev = vec![
            obs(0, 1, 1, wf(0, 1)),
            obs(1, 1, 0, wf(1, 0)),
            obs(2, 5, 0, Observation::DeadlockDetected { initiator: 0 }),
            // 0-1-2-0 forms after the report, 0-1-0 persists (reported)
            obs(3, 6, 2, wf(1, 2)),
            obs(4, 6, 0, wf(2, 0)),
        ];
        let v = run(ev.clone(), 1000).unwrap_err();
        // the instant's two edges are taken lowest node first: 1 -> 2 (node 2's) closes it
        assert!(
            v.explanation.contains("n1 -> n2 -> n0 -> n1"),
            "{}",
            v.explanation
        );
        let mut reported = ev;
        reported.push(obs(5, 7, 1, Observation::DeadlockDetected { initiator: 1 }));
        run(reported, 1000).unwrap();
    }

    /// Two nodes' events of one instant are judged in no trace order: a report listed before
    /// another node's closing edge of the same instant counts (it may have come after it), one
    /// before its own node's closing edge does not (the node's own order says it came first).
    #[test]
    fn a_report_at_the_instant_a_cycle_forms_counts_unless_its_own_node_formed_it_later() {
        let ev = |observer: NodeId| {
            vec![
                obs(0, 1, 1, wf(0, 1)),
                obs(1, 5, 0, Observation::DeadlockDetected { initiator: 0 }),
                obs(2, 5, observer, wf(1, 0)),
            ]
        };
        run(ev(2), 1000).unwrap();
        let mut swapped = ev(2);
        swapped.swap(1, 2);
        swapped[1].id = 1;
        swapped[2].id = 2;
        run(swapped, 1000).unwrap();
        let v = run(ev(0), 1000).unwrap_err();
        assert!(
            v.explanation.contains("n1 -> n0 -> n1"),
            "{}",
            v.explanation
        );
    }

    /// [`reports_last`] keeps each node's order and takes reports only when no node's next
    /// event changes the graph.
    #[test]
    fn reports_go_last_within_each_nodes_order() {
        let dd = |id, n| obs(id, 5, n, Observation::DeadlockDetected { initiator: n });
        let events = vec![
            dd(0, 0),
            obs(1, 5, 0, wf(0, 1)),
            dd(2, 1),
            obs(3, 5, 2, wf(1, 2)),
            obs(4, 5, 1, wf(2, 1)),
        ];
        let order: Vec<u64> = reports_last(&events).iter().map(|e| e.id).collect();
        assert_eq!(order, vec![3, 0, 1, 2, 4]);
        // node 0 only reports; node 1 reports, then closes a cycle: node 1's report goes
        // first, its change next, node 0's report last (node 0's first missed the cycle)
        let events = vec![dd(0, 0), dd(1, 1), obs(2, 5, 1, wf(1, 2))];
        let order: Vec<u64> = reports_last(&events).iter().map(|e| e.id).collect();
        assert_eq!(order, vec![1, 2, 0]);
    }

    #[test]
    fn a_cycle_open_at_an_early_end_is_not_judged() {
        // the run ends before the deadline (103 ms): could not judge, never a pass
        run(cycle(), 90).unwrap();
        let trace = Trace::new(3, cycle());
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockCompleteness::new(0, 100))];
        match judge_trace(&trace, 90 * NS_PER_MS, &mut cs) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                assert!(reason.contains("103.000 ms"), "{reason}");
            }
            v => panic!("{v}"),
        }
        // reported in time: judged, a pass, even though the run is short
        let mut reported = cycle();
        reported.push(obs(
            3,
            50,
            0,
            Observation::DeadlockDetected { initiator: 0 },
        ));
        let trace = Trace::new(3, reported);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(DeadlockCompleteness::new(0, 100))];
        assert_eq!(judge_trace(&trace, 90 * NS_PER_MS, &mut cs), Verdict::Pass);
    }
}
