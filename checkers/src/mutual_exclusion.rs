//! Mutual exclusion: no two nodes are inside the critical section of the same resource at the
//! same global time.
//!
//! Judged on global time from `cs_enter` / `cs_exit` observations. A node that crashes while
//! inside leaves the section with the crash (its process is gone); a node that enters twice
//! without leaving is also reported, as the algorithm has lost track of its own state.
//!
//! **Events at one instant are judged as a set.** The trace lists events of the same global
//! time in some order, but nothing orders two nodes' events at one instant, so the verdict must
//! not depend on it. Each node's own events keep their order (program order); across nodes, an
//! instant is fine when its events *can* be ordered so that no two nodes are ever inside at
//! once. That comes down to: at the end of the instant at most one node is inside, and a node
//! that was inside before the instant and does not leave during it (by `cs_exit` or a crash)
//! sees nobody else enter. So an `cs_exit` of A and a `cs_enter` of B at the same instant are a
//! hand-over (whichever line comes first), while two `cs_enter`s at one instant with no exit
//! between them, or an entry while the holder stays, are violations. Where several nodes act
//! on several resources at one instant, those per-resource rules are not enough (a
//! hand-over-hand swap: each node enters the other's section before leaving its own passes
//! them for each resource alone), so the orders of the instant are searched for one that
//! serves every resource at once (at most [`ORDERS_MAX`](crate::orders::ORDERS_MAX) points of the nodes' progress; past
//! that the run could not be judged).
//!
//! # Contract
//!
//! - **Reads:** `cs_enter` and `cs_exit` observations (per resource, on global time) and
//!   `crash` / `restart` faults (the node leaves every section it was in). A `cs_exit` of a
//!   node that is not inside is ignored. Everything else is ignored: `cs_request` and
//!   `cs_abandon`, messages, pauses (a paused node inside stays inside), partitions, clocks.
//!   Events of one instant are judged together, as above; events without a node are ignored.
//! - **Settings:** none. The node count is accepted and unused; no quiet time, no bound.
//! - **When the run ends before it can judge:** `finish` judges the last instant; a node
//!   still inside at the end is fine.
//! - **Class:** safety (reported at the instant of the overlapping `cs_enter`, once the
//!   instant's events have all been seen: at the first later event, or at the end).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, Interest, NodeId, Observation, PropertyClass, Violation};
use std::collections::{BTreeMap, BTreeSet};

/// Property name.
pub const PROPERTY: &str = "mutual_exclusion";

/// One node's event of the current instant, in its program order.
#[derive(Clone, Copy, Debug)]
enum Step {
    Enter(u32, u64),
    Exit(u32),
    /// A crash or restart: leaves every section.
    Leave,
}

/// The mutual exclusion checker.
#[derive(Debug, Default)]
pub struct MutualExclusion {
    /// resource -> holders (node, enter event id) at the end of the last judged instant, both
    /// sorted: most runs have one resource and at most one holder, entering and leaving on
    /// every pass, so a resource keeps its (possibly empty) list instead of reallocating it
    holders: BTreeMap<u32, Vec<(NodeId, u64)>>,
    /// the current instant and its events, in trace order (each node's in program order)
    now_ns: u64,
    steps: Vec<(NodeId, Step)>,
    /// the resources an instant touches (kept to reuse its memory)
    touched: Vec<u32>,
    /// An instant whose orders were too many to search ([`ORDERS_MAX`](crate::orders::ORDERS_MAX)): not judged.
    undecided: Option<String>,
    /// The points of the trace's order search spent so far
    /// ([`ORDERS_TOTAL_MAX`](crate::orders::ORDERS_TOTAL_MAX)).
    order_points_spent: usize,
    /// judge every instant by the general path (tests compare it with the one-node path)
    #[cfg(test)]
    general_only: bool,
}

impl MutualExclusion {
    /// A checker for a run of `nodes` nodes.
    pub fn new(_nodes: usize) -> Self {
        MutualExclusion::default()
    }

    /// The holders of resource `r` (sorted by node).
    fn held(&self, r: u32) -> &[(NodeId, u64)] {
        self.holders.get(&r).map_or(&[], Vec::as_slice)
    }

    /// The holders of resource `r`, to change.
    fn held_mut(&mut self, r: u32) -> &mut Vec<(NodeId, u64)> {
        // A tree, not a sorted vector: 10^5 resources entered in descending order shifted the
        // vector at each new one (5.9 s).
        self.holders.entry(r).or_default()
    }

    /// The resources `node` holds.
    fn held_by(&self, node: NodeId) -> impl Iterator<Item = u32> + '_ {
        self.holders
            .iter()
            .filter(move |(_, h)| h.iter().any(|&(n, _)| n == node))
            .map(|(&r, _)| r)
    }

    fn violation(t_ns: u64, explanation: String, mut events: Vec<u64>) -> Violation {
        events.sort_unstable();
        events.dedup();
        Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns,
            events,
        }
    }

    /// Judges the instant `now_ns` from its events (in any order across nodes) and moves the
    /// holders to its end.
    #[inline]
    fn close_instant(&mut self) -> Result<(), Violation> {
        if self.steps.is_empty() {
            return Ok(()); // most instants have no event this checker reads
        }
        self.close_steps()
    }

    /// [`Self::close_instant`] of an instant with events.
    #[inline(never)]
    fn close_steps(&mut self) -> Result<(), Violation> {
        let Some(&(first, _)) = self.steps.first() else {
            return Ok(());
        };
        #[cfg(test)]
        let one_node_path = !self.general_only;
        #[cfg(not(test))]
        let one_node_path = true;
        let result = if one_node_path && self.steps.iter().all(|&(n, _)| n == first) {
            self.close_one_node(first)
        } else {
            let mut steps: BTreeMap<NodeId, Vec<Step>> = BTreeMap::new();
            for &(node, step) in &self.steps {
                steps.entry(node).or_default().push(step);
            }
            self.close_general(&steps)
        };
        self.steps.clear();
        result
    }

    /// [`Self::close_instant`] when one node has every event of the instant (the common case:
    /// one callback's observations), without allocating. Same verdicts, explanations and
    /// events as [`Self::close_general`], in the same order: per resource in ascending order,
    /// a second entry first, then a holder that stays while this node enters, then two
    /// holders at the end.
    fn close_one_node(&mut self, node: NodeId) -> Result<(), Violation> {
        let t = self.now_ns;
        if let Some(r) = self.one_resource() {
            // (the loop below with one resource touched, without gathering it)
            return self.close_one_resource(node, r, t);
        }
        let mut touched = std::mem::take(&mut self.touched);
        touched.clear();
        for &(_, step) in &self.steps {
            match step {
                Step::Enter(r, _) | Step::Exit(r) => touched.push(r),
                Step::Leave => touched.extend(self.held_by(node)),
            }
        }
        touched.sort_unstable();
        touched.dedup();
        let mut result = Ok(());
        for &r in &touched {
            result = self.close_one_resource(node, r, t);
            if result.is_err() {
                break;
            }
        }
        self.touched = touched;
        result
    }

    /// The resource every step of the instant enters or exits, when there is one and no
    /// step is a crash or restart (which leaves every resource the node holds).
    fn one_resource(&self) -> Option<u32> {
        let mut one = None;
        for &(_, step) in &self.steps {
            let r = match step {
                Step::Enter(r, _) | Step::Exit(r) => r,
                Step::Leave => return None,
            };
            match one {
                None => one = Some(r),
                Some(o) if o == r => {}
                Some(_) => return None,
            }
        }
        one
    }

    /// One resource `r` of [`Self::close_one_node`].
    fn close_one_resource(&mut self, node: NodeId, r: u32, t: u64) -> Result<(), Violation> {
        let held_before = self.held(r);
        let mine_before = held_before
            .iter()
            .find(|&&(n, _)| n == node)
            .map(|&(_, id)| id);
        let mut mine = mine_before;
        let mut entered = None;
        for &(_, step) in &self.steps {
            match step {
                Step::Enter(res, id) if res == r => {
                    if let Some(first) = mine {
                        return Err(Self::violation(
                            t,
                            format!("node {node} entered the critical section of resource {r} again without leaving it"),
                            vec![first, id],
                        ));
                    }
                    mine = Some(id);
                    entered.get_or_insert(id);
                }
                Step::Enter(..) => {}
                Step::Exit(res) if res != r => {}
                Step::Exit(_) | Step::Leave => mine = None,
            }
        }
        // a holder that stays through the instant (every other node does) sees nobody enter
        if let Some(id) = entered {
            if let Some(&(holder, held)) = held_before.iter().find(|&&(h, _)| h != node) {
                return Err(Self::violation(
                    t,
                    format!(
                        "node {node} entered the critical section of resource {r} while node {holder} was still inside"
                    ),
                    vec![held, id],
                ));
            }
        }
        let held_after: &[(NodeId, u64)] = if mine != mine_before {
            let held = self.held_mut(r);
            let at = held.binary_search_by_key(&node, |e| e.0);
            match (mine, at) {
                (Some(id), Ok(i)) => held[i].1 = id,
                (Some(id), Err(i)) => held.insert(i, (node, id)),
                (None, Ok(i)) => {
                    held.remove(i);
                }
                (None, Err(_)) => {}
            }
            held
        } else {
            held_before
        };
        // at most one inside at the end of the instant
        match held_after {
            &[(a, ea), (b, eb), ..] => {
                Err(Self::violation(
                    t,
                    format!(
                        "nodes {a} and {b} both entered the critical section of resource {r} at {:.6} ms and neither left",
                        t as f64 / 1e6
                    ),
                    vec![ea, eb],
                ))
            }
            _ => Ok(()),
        }
    }

    /// [`Self::close_instant`] for any instant: `steps` are each node's events of it, in
    /// program order.
    fn close_general(&mut self, steps: &BTreeMap<NodeId, Vec<Step>>) -> Result<(), Violation> {
        let t = self.now_ns;
        let mut resources: BTreeSet<u32> = BTreeSet::new();
        for (node, list) in steps {
            for step in list {
                match *step {
                    Step::Enter(r, _) | Step::Exit(r) => {
                        resources.insert(r);
                    }
                    Step::Leave => resources.extend(self.held_by(*node)),
                }
            }
        }
        // Several nodes over several resources: each resource alone may have a hand-over
        // order while no order serves them all (a hand-over-hand swap: each node enters the
        // other's section before leaving its own). Searched once the per-resource rules pass.
        let before: BTreeMap<u32, BTreeSet<NodeId>> = resources
            .iter()
            .map(|&r| (r, self.held(r).iter().map(|&(n, _)| n).collect()))
            .collect();
        let cross = steps.len() > 1 && resources.len() > 1;
        self.close_per_resource(steps, resources, t)?;
        if !cross {
            return Ok(());
        }
        let total = crate::orders::ORDERS_TOTAL_MAX;
        let mut left = total.saturating_sub(self.order_points_spent);
        let fits = some_order_fits(steps, &before, &mut left);
        self.order_points_spent = total - left;
        match fits {
            Some(Ok(())) => Ok(()),
            Some(Err(group)) => {
                // the nodes no order serves, not the bystanders of other sections
                let entries: Vec<u64> = group
                    .iter()
                    .flat_map(|n| &steps[n])
                    .filter_map(|s| match *s {
                        Step::Enter(_, id) => Some(id),
                        _ => None,
                    })
                    .collect();
                // As the event list is cut past `EVENTS_LISTED_MAX`: 2,000 nodes made a
                // 10 KB line.
                let mut nodes: Vec<String> = group.iter().map(|n| n.to_string()).collect();
                let max = sincro_harness::check::EVENTS_LISTED_MAX;
                if nodes.len() > max {
                    let (count, last) = (nodes.len(), nodes[nodes.len() - 1].clone());
                    nodes.truncate(max / 2);
                    nodes.push(format!("…, {last} ({count} nodes)"));
                }
                Err(Self::violation(
                    t,
                    format!(
                        "no order of the events of nodes {} at {:.6} ms keeps one node at a time \
                         in each critical section (each node's events in its own order): one \
                         enters a section before leaving the one another is waiting for",
                        nodes.join(", "),
                        t as f64 / 1e6
                    ),
                    entries,
                ))
            }
            None => {
                self.undecided
                    .get_or_insert(crate::orders::undecided_why(t, left));
                Ok(())
            }
        }
    }

    /// The rules of [`Self::close_general`] judged per resource (a second entry, a holder
    /// that stays while another enters, two holders at the end), moving the holders to the
    /// end of the instant.
    fn close_per_resource(
        &mut self,
        steps: &BTreeMap<NodeId, Vec<Step>>,
        resources: BTreeSet<u32>,
        t: u64,
    ) -> Result<(), Violation> {
        for r in resources {
            let before: BTreeMap<NodeId, u64> = self.held(r).iter().copied().collect();
            // each node's own events, in its order: who is inside at the end, who left, who
            // entered (and a second entry without leaving)
            let mut inside = before.clone();
            let mut left: BTreeSet<NodeId> = BTreeSet::new();
            let mut entered: BTreeMap<NodeId, u64> = BTreeMap::new();
            for (&node, list) in steps {
                for step in list {
                    match *step {
                        Step::Enter(res, id) if res == r => {
                            if let Some(&first) = inside.get(&node) {
                                return Err(Self::violation(
                                    t,
                                    format!("node {node} entered the critical section of resource {r} again without leaving it"),
                                    vec![first, id],
                                ));
                            }
                            inside.insert(node, id);
                            entered.entry(node).or_insert(id);
                        }
                        Step::Enter(..) => {}
                        Step::Exit(res) if res != r => {}
                        Step::Exit(_) | Step::Leave => {
                            let was_inside = inside.remove(&node).is_some();
                            if was_inside {
                                left.insert(node);
                            }
                        }
                    }
                }
            }
            // a holder that stays through the instant sees nobody else enter
            for (&holder, &held) in before.iter().filter(|(n, _)| !left.contains(n)) {
                if let Some((&other, &id)) = entered.iter().find(|(&n, _)| n != holder) {
                    return Err(Self::violation(
                        t,
                        format!(
                            "node {other} entered the critical section of resource {r} while node {holder} was still inside"
                        ),
                        vec![held, id],
                    ));
                }
            }
            // at most one inside at the end of the instant
            if inside.len() > 1 {
                let mut it = inside.iter();
                let (&a, &ea) = it.next().expect("two holders");
                let (&b, &eb) = it.next().expect("two holders");
                return Err(Self::violation(
                    t,
                    format!(
                        "nodes {a} and {b} both entered the critical section of resource {r} at {:.6} ms and neither left",
                        t as f64 / 1e6
                    ),
                    vec![ea, eb],
                ));
            }
            let held = self.held_mut(r);
            held.clear();
            held.extend(inside);
        }
        Ok(())
    }
}

/// Whether the events of one instant (`steps`, each node's in program order) can be ordered
/// so that no node enters a section another node is in, starting from the holders `before`
/// ([`crate::orders::some_order`]: how many of its events each node has taken fixes who is
/// inside). `None` when there are too many orders to search; `Err` names the nodes, sharing
/// something, that no order serves. Nodes that share no resource
/// are searched apart ([`crate::orders::components`]).
fn some_order_fits(
    steps: &BTreeMap<NodeId, Vec<Step>>,
    before: &BTreeMap<u32, BTreeSet<NodeId>>,
    left: &mut usize,
) -> Option<Result<(), Vec<NodeId>>> {
    let nodes: Vec<(NodeId, &[Step])> = steps.iter().map(|(&n, l)| (n, l.as_slice())).collect();
    let touches: Vec<Vec<u32>> = nodes
        .iter()
        .map(|&(n, list)| {
            let held = before
                .iter()
                .filter(|(_, h)| h.contains(&n))
                .map(|(&r, _)| r);
            let used = list.iter().filter_map(|s| match *s {
                Step::Enter(r, _) | Step::Exit(r) => Some(r),
                Step::Leave => None,
            });
            held.chain(used).collect()
        })
        .collect();
    crate::orders::each_group_fits(&nodes, &touches, |group| {
        group_fits(group, steps, before, left)
    })
    .map(|r| r.map_err(|group| group.iter().map(|&(n, _)| n).collect()))
}

/// [`some_order_fits`] of one group of `nodes` sharing resources.
fn group_fits(
    nodes: &[(NodeId, &[Step])],
    steps: &BTreeMap<NodeId, Vec<Step>>,
    before: &BTreeMap<u32, BTreeSet<NodeId>>,
    left: &mut usize,
) -> Option<bool> {
    // Whether node `n`, having taken `k` of its steps, is inside resource `r`.
    let inside = |n: NodeId, list: &[Step], k: usize, r: u32| {
        let mut inside = before.get(&r).is_some_and(|h| h.contains(&n));
        for step in &list[..k] {
            match *step {
                Step::Enter(res, _) if res == r => inside = true,
                Step::Exit(res) if res == r => inside = false,
                Step::Leave => inside = false,
                _ => {}
            }
        }
        inside
    };
    let lens: Vec<usize> = nodes.iter().map(|(_, l)| l.len()).collect();
    crate::orders::some_order(&lens, left, |at, i| {
        let (n, list) = nodes[i];
        let Step::Enter(r, _) = list[at[i]] else {
            return true;
        };
        let idle_holder = before
            .get(&r)
            .is_some_and(|h| h.iter().any(|m| *m != n && !steps.contains_key(m)));
        !idle_holder
            && !nodes
                .iter()
                .enumerate()
                .any(|(j, &(m, l))| j != i && inside(m, l, at[j], r))
    })
}

impl Checker for MutualExclusion {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    /// Observations and faults: any other event only closes an instant, at its wake time.
    fn interest(&self) -> Interest {
        Interest::OBSERVE.or(Interest::FAULT)
    }

    /// The first event after an instant with entries or exits closes it.
    fn wake_at_ns(&self) -> u64 {
        if self.steps.is_empty() {
            u64::MAX
        } else {
            self.now_ns.saturating_add(1)
        }
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        // Any event of a later time closes the instant (so a violation stops the run there).
        if ev.t_ns != self.now_ns {
            self.close_instant()?;
            self.now_ns = ev.t_ns;
        }
        let step = match (&ev.kind, ev.node) {
            (
                EventKind::Observe {
                    obs: Observation::CsEnter { resource },
                },
                Some(node),
            ) => (node, Step::Enter(*resource, ev.id)),
            (
                EventKind::Observe {
                    obs: Observation::CsExit { resource },
                },
                Some(node),
            ) => (node, Step::Exit(*resource)),
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

    fn could_not_judge(&self) -> Option<String> {
        self.undecided.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn obs(id: u64, t_ns: u64, node: NodeId, obs: Observation) -> Event {
        Event {
            id,
            t_ns,
            node: Some(node),
            local_ns: Some(t_ns as i64),
            kind: EventKind::Observe { obs },
        }
    }

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(MutualExclusion::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    /// 2,000 nodes entering 2,000 sections at one instant: one order serves them all, found
    /// along one path (the search made every point's children at once: 19 GB, no end).
    #[test]
    fn a_wide_instant_of_separate_sections_passes_without_an_unbounded_search() {
        let n = 2000;
        let events: Vec<Event> = (0..n)
            .map(|v| {
                crate::test_events::observe_ms(
                    v as u64,
                    1,
                    v,
                    Observation::CsEnter { resource: v as u32 },
                )
            })
            .collect();
        let trace = sincro_harness::Trace::new(n, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(MutualExclusion::new(n))];
        assert_eq!(
            sincro_harness::check::judge_trace(&trace, 10_000_000, &mut cs),
            sincro_harness::Verdict::Pass
        );
    }

    /// A hand-over-hand swap of two sections beside 16 nodes that each enter and leave a
    /// section of their own at the same instant: the bystanders share no section with the
    /// swap, so they are searched apart and the swap is caught (searched together, their
    /// 3^16 points went past the bound and the instant was not judged).
    #[test]
    fn bystanders_in_other_sections_do_not_hide_a_swap() {
        use crate::test_events::observe_ms;
        let mut events = Vec::new();
        let mut push = |t_ms: u64, node: NodeId, o: Observation| {
            let id = events.len() as u64;
            events.push(observe_ms(id, t_ms, node, o));
        };
        push(1, 0, Observation::CsEnter { resource: 0 });
        push(1, 1, Observation::CsEnter { resource: 1 });
        for (v, other) in [(0, 1), (1, 0)] {
            push(2, v, Observation::CsEnter { resource: other });
            push(2, v, Observation::CsExit { resource: v as u32 });
        }
        for v in 2..18 {
            push(
                2,
                v,
                Observation::CsEnter {
                    resource: 10 + v as u32,
                },
            );
            push(
                2,
                v,
                Observation::CsExit {
                    resource: 10 + v as u32,
                },
            );
        }
        let trace = sincro_harness::Trace::new(18, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(MutualExclusion::new(18))];
        let verdict = sincro_harness::check::judge_trace(&trace, 10_000_000, &mut cs);
        let sincro_harness::Verdict::Violation(v) = verdict else {
            panic!("the swap has no order: {verdict}")
        };
        assert!(v.explanation.contains("nodes 0, 1 at"), "{}", v.explanation);
    }

    /// A cycle of waits over many nodes at one instant: the message lists a few nodes and
    /// how many (2,000 nodes made a 10 KB line), as the event list is cut.
    #[test]
    fn an_unsatisfiable_wide_instant_lists_its_nodes_cut_short() {
        use crate::test_events::observe_ms;
        let n = 40;
        let mut events: Vec<Event> = (0..n)
            .map(|v| observe_ms(v as u64, 1, v, Observation::CsEnter { resource: v as u32 }))
            .collect();
        // at 2 ms, each node enters the next one's section, then leaves its own
        for v in 0..n {
            let next = ((v + 1) % n) as u32;
            let id = events.len() as u64;
            events.push(observe_ms(
                id,
                2,
                v,
                Observation::CsEnter { resource: next },
            ));
            let id = events.len() as u64;
            events.push(observe_ms(
                id,
                2,
                v,
                Observation::CsExit { resource: v as u32 },
            ));
        }
        let trace = sincro_harness::Trace::new(n, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(MutualExclusion::new(n))];
        let sincro_harness::Verdict::Violation(v) =
            sincro_harness::check::judge_trace(&trace, 10_000_000, &mut cs)
        else {
            panic!("no order fits: a violation")
        };
        assert!(
            v.explanation
                .contains("nodes 0, 1, 2, 3, 4, 5, 6, 7, …, 39 (40 nodes) at"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn overlapping_holders_are_caught() {
        let v = run(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 20, 2, Observation::CsEnter { resource: 0 }),
            obs(2, 30, 1, Observation::CsExit { resource: 0 }),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 1]);
        assert!(
            v.explanation.contains("node 2") && v.explanation.contains("node 1 was still inside")
        );
    }

    #[test]
    fn sequential_holders_and_other_resources_pass() {
        run(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 15, 2, Observation::CsEnter { resource: 1 }),
            obs(2, 20, 1, Observation::CsExit { resource: 0 }),
            obs(3, 20, 0, Observation::CsEnter { resource: 0 }),
        ])
        .unwrap();
    }

    /// The verdict of `events` and of the same events with the lines of each instant in
    /// every order across nodes (ids kept): all must agree.
    fn order_independent(events: Vec<Event>) -> Result<(), Violation> {
        let first = run(events.clone());
        // reversing the lines of each instant is enough to flip every cross-node order of
        // two events, keeping one node's events in their order
        let mut flipped: Vec<Event> = Vec::new();
        let mut i = 0;
        while i < events.len() {
            let t = events[i].t_ns;
            let mut group: Vec<Event> = events[i..]
                .iter()
                .take_while(|e| e.t_ns == t)
                .cloned()
                .collect();
            i += group.len();
            group.reverse();
            // restore each node's own order inside the reversed group
            let mut by_node: BTreeMap<Option<NodeId>, Vec<Event>> = BTreeMap::new();
            for e in &group {
                by_node.entry(e.node).or_default().push(e.clone());
            }
            for v in by_node.values_mut() {
                v.sort_by_key(|e| e.id);
            }
            let mut cursor: BTreeMap<Option<NodeId>, usize> = BTreeMap::new();
            for e in &group {
                let k = cursor.entry(e.node).or_default();
                flipped.push(by_node[&e.node][*k].clone());
                *k += 1;
            }
        }
        assert_eq!(
            first,
            run(flipped),
            "the verdict depends on the order of one instant"
        );
        first
    }

    #[test]
    fn a_hand_over_at_one_instant_passes_in_either_order() {
        // node 1 leaves and node 2 enters at 20 ns: listed exit first, then enter first
        let exit_first = vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 20, 1, Observation::CsExit { resource: 0 }),
            obs(2, 20, 2, Observation::CsEnter { resource: 0 }),
        ];
        order_independent(exit_first).unwrap();
        let enter_first = vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 20, 2, Observation::CsEnter { resource: 0 }),
            obs(2, 20, 1, Observation::CsExit { resource: 0 }),
        ];
        order_independent(enter_first).unwrap();
    }

    #[test]
    fn two_entries_at_one_instant_are_caught_in_either_order() {
        let v = order_independent(vec![
            obs(0, 20, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 20, 2, Observation::CsEnter { resource: 0 }),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("both entered"), "{}", v.explanation);
        assert_eq!(v.events, vec![0, 1]);
        assert_eq!(v.t_ns, 20);
        // an entry and exit by node 2 at the instant node 1 holds on: caught
        let v = order_independent(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 20, 2, Observation::CsEnter { resource: 0 }),
            obs(2, 20, 2, Observation::CsExit { resource: 0 }),
        ])
        .unwrap_err();
        assert!(
            v.explanation.contains("node 1 was still inside"),
            "{}",
            v.explanation
        );
        // a crash of the holder at the instant another enters is a hand-over too
        order_independent(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 20, 2, Observation::CsEnter { resource: 0 }),
            Event {
                id: 2,
                t_ns: 20,
                node: Some(1),
                local_ns: None,
                kind: EventKind::Fault {
                    fault: Fault::Crash { node: 1 },
                },
            },
        ])
        .unwrap();
    }

    #[test]
    fn a_crash_releases_the_holder() {
        let crash = Event {
            id: 1,
            t_ns: 15,
            node: Some(1),
            local_ns: None,
            kind: EventKind::Fault {
                fault: Fault::Crash { node: 1 },
            },
        };
        run(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            crash,
            obs(2, 20, 2, Observation::CsEnter { resource: 0 }),
        ])
        .unwrap();
    }

    /// The one-node path agrees with the general one: same verdict, explanation and events
    /// after every event of random traces (2–3 nodes, 2 resources, instants of one node and
    /// of several, second entries, exits of nodes not inside, crashes and restarts).
    mod one_node_path {
        use super::*;
        use proptest::prelude::*;

        /// The results up to the first violation (after it, a run stops asking).
        fn feed(mut c: MutualExclusion, events: &[Event]) -> Vec<Result<(), Violation>> {
            let mut out = Vec::new();
            for e in events {
                out.push(c.on_event(e));
                if out.last().is_some_and(|r| r.is_err()) {
                    return out;
                }
            }
            out.push(c.finish(u64::MAX));
            out
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]
            #[test]
            fn agrees_with_the_general_path_up_to_the_first_violation(
                evs in proptest::collection::vec((0u8..4, 0usize..3, 0u32..2, 0u64..3), 0..40),
            ) {
                let mut t = 0;
                let events: Vec<Event> = evs
                    .iter()
                    .enumerate()
                    .map(|(i, &(what, node, resource, dt))| {
                        t += dt;
                        let kind = match what {
                            0 => EventKind::Observe { obs: Observation::CsEnter { resource } },
                            1 => EventKind::Observe { obs: Observation::CsExit { resource } },
                            2 => EventKind::Fault { fault: Fault::Crash { node } },
                            _ => EventKind::Fault { fault: Fault::Restart { node } },
                        };
                        Event { id: i as u64, t_ns: t, node: Some(node), local_ns: None, kind }
                    })
                    .collect();
                let general = MutualExclusion { general_only: true, ..Default::default() };
                prop_assert_eq!(feed(MutualExclusion::new(3), &events), feed(general, &events));
            }
        }

        #[test]
        fn one_node_instants_take_the_one_node_path() {
            // the general path reports a second entry at one instant the same way; this
            // pins that the fast path is the one judging it
            let mut c = MutualExclusion::new(2);
            c.on_event(&obs(0, 10, 1, Observation::CsEnter { resource: 0 }))
                .unwrap();
            c.on_event(&obs(1, 10, 1, Observation::CsEnter { resource: 0 }))
                .unwrap();
            assert!(c.steps.iter().all(|&(n, _)| n == 1));
            let v = c.finish(20).unwrap_err();
            assert!(
                v.explanation.contains("again without leaving"),
                "{}",
                v.explanation
            );
            assert_eq!(v.events, vec![0, 1]);
        }
    }
}
