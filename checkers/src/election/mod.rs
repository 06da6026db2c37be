//! Leader election properties, judged from what each node reports with
//! [`Observation::Leader`] and from the fault events of the trace.
//!
//! # Interface for algorithms
//!
//! * A node reports `Observation::Leader { leader: Some(l), term }` whenever it comes to believe
//!   that `l` leads (itself included: `l == own id` means "I am the leader"), and
//!   `Observation::Leader { leader: None, term }` when it **starts or joins an election** (it no
//!   longer knows a leader). Algorithms without terms report `term: 0`. A leader is one of the
//!   run's nodes, `0..nodes`: the checkers never count a leader named outside that range as
//!   alive (`leader_validity` reports it at once, `leader_agreement` never agrees on it,
//!   `election_termination` does not count it as the end of an election).
//! * An algorithm that has a leader from the start reports it when its nodes start; one that
//!   elects only when asked (the ring family) reports nothing until then. A run in which no
//!   node ever reports is not judged by `leader_agreement` (see its module).
//! * A crash ends every belief of the node; a restarted node believes nothing until it reports
//!   again.
//!
//! # Checkers
//!
//! | property | type | class | constructor |
//! |---|---|---|---|
//! | `leader_uniqueness` | [`LeaderUniqueness`] | safety | `new(nodes)` |
//! | `leader_agreement` | [`LeaderAgreement`] | liveness | `new(nodes, quiet_from_ms, bound_ms)` |
//! | `election_termination` | [`ElectionTermination`] | liveness | `new(nodes, quiet_from_ms, bound_ms)` |
//! | `leader_validity` | [`LeaderValidity`] | safety after quiet + bound | `new(nodes, quiet_from_ms, bound_ms)` (highest id wins) or `with_ranks(nodes, quiet_from_ms, bound_ms, Option<Vec<u64>>)` |
//! | `leader_stability` | [`LeaderStability`] | safety after quiet | `new(nodes, quiet_from_ms)` |
//! | `single_acting_leader` | [`SingleActingLeader`] | safety | `new(nodes)` |
//! | `one_leader_per_term` | [`OneLeaderPerTerm`] | safety | `new(nodes)` |
//! | `one_vote_per_term` | [`OneVotePerTerm`] | safety | `new(nodes)` |
//! | `no_abdication` | [`NoAbdication`] | safety | `new(nodes)` |
//!
//! `quiet_from_ms` is [`sincro_harness::Scenario::quiet_from_ms`] (when the fault plan's last
//! fault happens); `bound_ms` is the algorithm's liveness bound. [`crate::by_name`] builds all
//! five from a scenario; an algorithm whose winner is not the highest id builds
//! [`LeaderValidity::with_ranks`] itself (ranks such as ad-hoc capacities, or `None` when it
//! promises only a live leader).
//!
//! The shared bookkeeping (who is alive, who believes what, which partitions and crashes are in
//! effect) is [`ElectionView`], public so other election checkers can reuse it. Each checker's
//! module states its contract: the events it reads, its settings, and what it does when the
//! run ends before it can judge.

pub mod abdication;
pub mod agreement;
pub mod per_term;
pub mod per_term_vote;
pub mod single_acting;
pub mod stability;
pub mod termination;
pub mod uniqueness;
pub mod validity;

pub use abdication::NoAbdication;
pub use agreement::LeaderAgreement;
pub use per_term::OneLeaderPerTerm;
pub use per_term_vote::OneVotePerTerm;
pub use single_acting::SingleActingLeader;
pub use stability::LeaderStability;
pub use termination::ElectionTermination;
pub use uniqueness::LeaderUniqueness;
pub use validity::LeaderValidity;

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Fault, NodeId, Observation};
use std::collections::BTreeMap;

/// What a node last reported about the leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Belief {
    /// The leader it names (`None`: in an election, no leader known).
    pub leader: Option<NodeId>,
    /// The term it reported.
    pub term: u64,
    /// The observation's event id.
    pub event: u64,
    /// When, global ns.
    pub t_ns: u64,
}

/// One partition in force: the directed links it cuts.
#[derive(Clone, Debug)]
enum Cut {
    /// Links between nodes of different groups (each node's group; `usize::MAX`: unlisted).
    Groups(Vec<usize>),
    /// Links from a node of the first sorted list to one of the second.
    Oneway(Vec<NodeId>, Vec<NodeId>),
}

impl Cut {
    /// True when this partition cuts `a -> b` (`a != b`, both nodes).
    fn cuts(&self, a: NodeId, b: NodeId) -> bool {
        a != b
            && match self {
                Cut::Groups(group_of) => group_of[a] != group_of[b],
                Cut::Oneway(from, to) => {
                    from.binary_search(&a).is_ok() && to.binary_search(&b).is_ok()
                }
            }
    }
}

/// The live nodes' beliefs, tallied as events apply, so that agreement is known in O(1) rather
/// than by a scan of every node at every event (a Chang–Roberts announcement at n = 10,000 made
/// that scan a third of the run).
#[derive(Clone, Debug, Default)]
struct Tally {
    /// Live nodes.
    live: usize,
    /// Live nodes that name no leader of the run (no belief, an election, a leader outside
    /// `0..nodes`).
    unnamed: usize,
    /// Per leader `0..nodes`: the live nodes that name it.
    naming: Vec<usize>,
    /// Leaders named by at least one live node.
    distinct: usize,
    /// The sum of the leaders the live nodes name (`live` times the leader when all agree).
    sum: u128,
    /// The terms of the live nodes that name a leader, with how many report each.
    terms: BTreeMap<u64, usize>,
}

/// Liveness, beliefs and faults in effect, maintained event by event.
#[derive(Clone, Debug, Default)]
pub struct ElectionView {
    n: usize,
    alive: Vec<bool>,
    belief: Vec<Option<Belief>>,
    tally: Tally,
    /// The partitions in force (since the last heal): O(n) each, never an `n × n` table.
    cuts: Vec<Cut>,
    /// Partition fault events since the last heal.
    partitions: Vec<u64>,
    /// node -> crash event, for crashed nodes.
    crashed: BTreeMap<NodeId, u64>,
    /// node -> pause event, for paused nodes.
    paused: BTreeMap<NodeId, u64>,
}

impl ElectionView {
    /// A view of `nodes` nodes (ids `0..nodes`), all alive and believing nothing. The view
    /// never grows: events of a node outside `0..nodes` are ignored (traces are validated
    /// before they are judged), and a leader named outside `0..nodes` is never alive (see
    /// [`ElectionView::exists`]).
    pub fn new(nodes: usize) -> Self {
        ElectionView {
            n: nodes,
            alive: vec![true; nodes],
            belief: vec![None; nodes],
            tally: Tally {
                live: nodes,
                unnamed: nodes,
                naming: vec![0; nodes],
                ..Tally::default()
            },
            ..ElectionView::default()
        }
    }

    /// Counts (`add`) or uncounts node `v`'s belief in the tally, if `v` is alive.
    fn tally(&mut self, v: NodeId, add: bool) {
        if !self.alive[v] {
            return;
        }
        let t = &mut self.tally;
        let step = |x: &mut usize| {
            *x = if add {
                *x + 1
            } else {
                x.checked_sub(1).expect("an uncounted belief was counted")
            }
        };
        match self.belief[v] {
            Some(Belief {
                leader: Some(l),
                term,
                ..
            }) if l < self.n => {
                let before = t.naming[l];
                step(&mut t.naming[l]);
                match (before, t.naming[l]) {
                    (0, _) => t.distinct += 1,
                    (_, 0) => t.distinct -= 1,
                    _ => {}
                }
                if add {
                    t.sum += l as u128;
                    *t.terms.entry(term).or_insert(0) += 1;
                } else {
                    t.sum -= l as u128;
                    let k = t.terms.get_mut(&term).expect("a counted term");
                    step(k);
                    if *k == 0 {
                        t.terms.remove(&term);
                    }
                }
            }
            _ => step(&mut t.unnamed),
        }
    }

    /// Sets node `v`'s liveness and belief, keeping the tally.
    fn set(&mut self, v: NodeId, alive: bool, belief: Option<Belief>) {
        self.tally(v, false);
        match (self.alive[v], alive) {
            (true, false) => self.tally.live -= 1,
            (false, true) => self.tally.live += 1,
            _ => {}
        }
        self.alive[v] = alive;
        self.belief[v] = belief;
        self.tally(v, true);
    }

    /// True when `node` is one of the run's nodes (`0..nodes`).
    pub fn exists(&self, node: NodeId) -> bool {
        node < self.n
    }

    /// Number of nodes tracked.
    pub fn nodes(&self) -> usize {
        self.n
    }

    /// True when `node` is up (not crashed); false for a node outside `0..nodes`.
    pub fn alive(&self, node: NodeId) -> bool {
        self.alive.get(node).copied().unwrap_or(false)
    }

    /// The live nodes, in id order.
    pub fn live_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.n).filter(|&v| self.alive[v])
    }

    /// What `node` last reported (`None` when it reported nothing since it (re)started).
    pub fn belief(&self, node: NodeId) -> Option<Belief> {
        self.belief.get(node).copied().flatten()
    }

    /// True when a partition is in force (some link may be cut): without one every node
    /// reaches every other.
    pub fn partitioned(&self) -> bool {
        !self.cuts.is_empty()
    }

    /// True when no partition cuts `a -> b` or `b -> a`.
    pub fn reachable(&self, a: NodeId, b: NodeId) -> bool {
        a == b
            || (a < self.n && b < self.n && !self.cuts.iter().any(|c| c.cuts(a, b) || c.cuts(b, a)))
    }

    /// Whether a fault is in effect: a partition not healed, a node crashed or paused.
    pub fn any_fault_in_effect(&self) -> bool {
        !self.cuts.is_empty() || !self.crashed.is_empty() || !self.paused.is_empty()
    }

    /// Event ids of the faults in effect: partitions since the last heal, crashed nodes, paused
    /// nodes (in id order).
    pub fn faults_in_effect(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self
            .partitions
            .iter()
            .chain(self.crashed.values())
            .chain(self.paused.values())
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The leader every live node names, when they all name the same live node (with any
    /// terms). `None` when some live node names none or another, or when no node is alive.
    pub fn agreed(&self) -> Option<NodeId> {
        let t = &self.tally;
        if t.live == 0 || t.unnamed > 0 || t.distinct != 1 {
            return None;
        }
        // Every live node names the same leader: the sum is `live` times it.
        let l = NodeId::try_from(t.sum / t.live as u128).ok()?;
        debug_assert_eq!(t.naming.get(l), Some(&t.live), "the tally's one leader");
        Some(l).filter(|&l| self.alive(l))
    }

    /// Like [`ElectionView::agreed`], but every live node must also report the same term:
    /// `(leader, term)`.
    pub fn agreed_in_term(&self) -> Option<(NodeId, u64)> {
        let l = self.agreed()?;
        // Every live node names `l`, so every live node's term is tallied.
        match self.tally.terms.first_key_value() {
            Some((&term, &k)) if self.tally.terms.len() == 1 && k == self.tally.live => {
                Some((l, term))
            }
            _ => None,
        }
    }

    /// Applies one event. Returns the node's previous belief when the event is a leader
    /// observation (`Some(None)` when it believed nothing).
    ///
    /// Inlined up to the event's kind: most events are sends, deliveries and timers, which
    /// change nothing, and four checkers of every election run apply each event to a view of
    /// their own.
    #[inline]
    pub fn apply(&mut self, ev: &Event) -> Option<Option<Belief>> {
        match &ev.kind {
            EventKind::Observe { .. } | EventKind::Fault { .. } => self.apply_change(ev),
            _ => None,
        }
    }

    /// [`Self::apply`] for an observation or a fault.
    fn apply_change(&mut self, ev: &Event) -> Option<Option<Belief>> {
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::Leader { leader, term },
            } => {
                let node = ev.node.filter(|&n| n < self.n)?;
                let prev = self.belief[node];
                let belief = Belief {
                    leader: *leader,
                    term: *term,
                    event: ev.id,
                    t_ns: ev.t_ns,
                };
                self.set(node, self.alive[node], Some(belief));
                return Some(prev);
            }
            EventKind::Fault { fault } => match fault {
                Fault::Crash { node } | Fault::Restart { node } if *node >= self.n => {}
                // a crash or a restart ends a pause, as the engines apply them
                Fault::Crash { node } => {
                    self.set(*node, false, None);
                    self.crashed.insert(*node, ev.id);
                    self.paused.remove(node);
                }
                Fault::Restart { node } => {
                    self.set(*node, true, None);
                    self.crashed.remove(node);
                    self.paused.remove(node);
                }
                Fault::Pause { node } => {
                    self.paused.insert(*node, ev.id);
                }
                Fault::Resume { node } => {
                    self.paused.remove(node);
                }
                Fault::Partition { groups } => {
                    let mut group_of = vec![usize::MAX; self.n];
                    for (g, members) in groups.iter().enumerate() {
                        for &m in members.iter().filter(|&&m| m < self.n) {
                            group_of[m] = g;
                        }
                    }
                    self.cuts.push(Cut::Groups(group_of));
                    self.partitions.push(ev.id);
                }
                Fault::PartitionOneway { from, to } => {
                    let sorted = |v: &[NodeId]| {
                        let mut v: Vec<NodeId> =
                            v.iter().copied().filter(|&x| x < self.n).collect();
                        v.sort_unstable();
                        v.dedup();
                        v
                    };
                    self.cuts.push(Cut::Oneway(sorted(from), sorted(to)));
                    self.partitions.push(ev.id);
                }
                Fault::Heal => {
                    self.cuts.clear();
                    self.partitions.clear();
                }
                _ => {}
            },
            _ => {}
        }
        None
    }
}

/// A short description of the faults `ids` in `trace_faults` (id -> fault), for explanations.
pub(crate) fn describe_faults(ids: &[u64], faults: &BTreeMap<u64, Fault>) -> String {
    if ids.is_empty() {
        return "no partition, crash or pause in effect".into();
    }
    let parts: Vec<String> = ids
        .iter()
        .filter_map(|id| {
            faults
                .get(id)
                .map(|f| format!("{} (event {id})", sincro_harness::render::fault_text(f)))
        })
        .collect();
    format!("faults in effect: {}", parts.join(", "))
}

#[cfg(test)]
pub(crate) mod test_util {
    use sincro_harness::trace::{Event, EventKind};
    use sincro_harness::{Fault, NodeId, Observation, NS_PER_MS};

    /// Builds traces event by event, ids in order, times in ms.
    #[derive(Default)]
    pub struct T {
        pub events: Vec<Event>,
    }

    impl T {
        /// Judges the events as a trace of `nodes` nodes ending at `end_ms` with `checker` alone.
        pub fn check(
            self,
            nodes: usize,
            end_ms: u64,
            checker: impl sincro_harness::Checker + 'static,
        ) -> Result<(), sincro_harness::Violation> {
            let trace = sincro_harness::Trace::new(nodes, self.events);
            let mut cs: Vec<Box<dyn sincro_harness::Checker>> = vec![Box::new(checker)];
            sincro_harness::check::check_trace(&trace, end_ms * NS_PER_MS, &mut cs)
        }

        pub fn leader(
            mut self,
            t_ms: u64,
            node: NodeId,
            leader: Option<NodeId>,
            term: u64,
        ) -> Self {
            let id = self.events.len() as u64;
            self.events.push(Event {
                id,
                t_ns: t_ms * NS_PER_MS,
                node: Some(node),
                local_ns: None,
                kind: EventKind::Observe {
                    obs: Observation::Leader { leader, term },
                },
            });
            self
        }

        pub fn fault(mut self, t_ms: u64, fault: Fault) -> Self {
            let id = self.events.len() as u64;
            self.events.push(Event {
                id,
                t_ns: t_ms * NS_PER_MS,
                node: fault.node(),
                local_ns: None,
                kind: EventKind::Fault { fault },
            });
            self
        }

        /// Every node of `nodes` names `leader` at `t_ms`.
        pub fn all(mut self, t_ms: u64, nodes: &[NodeId], leader: NodeId, term: u64) -> Self {
            for &n in nodes {
                self = self.leader(t_ms, n, Some(leader), term);
            }
            self
        }
    }
}

#[cfg(test)]
mod tally_tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: agreement by a scan of every live node.
    fn scanned(v: &ElectionView) -> (Option<NodeId>, Option<(NodeId, u64)>) {
        let mut agreed = None;
        let mut term = None;
        for n in v.live_nodes() {
            let Some(Belief {
                leader: Some(l),
                term: t,
                ..
            }) = v.belief(n)
            else {
                return (None, None);
            };
            if agreed.is_some_and(|a| a != l) {
                return (None, None);
            }
            agreed = Some(l);
            term = match term {
                None => Some(Some(t)),
                Some(Some(x)) if x == t => Some(Some(t)),
                _ => Some(None),
            };
        }
        let agreed = agreed.filter(|&l| v.alive(l));
        (agreed, agreed.and_then(|l| term.flatten().map(|t| (l, t))))
    }

    /// An event: 0 a leader report, 1 a crash, 2 a restart, 3 a pause (ignored by the tally).
    fn event(id: u64, n: usize, (what, node, leader, term): (u8, usize, usize, u64)) -> Event {
        let node = node % n;
        let kind = match what {
            0 => EventKind::Observe {
                obs: Observation::Leader {
                    // n + 1 choices: `n` means none, and n - 1 + 2 names a node outside the run
                    leader: match leader % (n + 2) {
                        x if x == n => None,
                        x => Some(x),
                    },
                    term,
                },
            },
            1 => EventKind::Fault {
                fault: Fault::Crash { node },
            },
            2 => EventKind::Fault {
                fault: Fault::Restart { node },
            },
            _ => EventKind::Fault {
                fault: Fault::Pause { node },
            },
        };
        Event {
            id,
            t_ns: id,
            node: Some(node),
            local_ns: None,
            kind,
        }
    }

    proptest! {
        #[test]
        fn the_tally_agrees_with_a_scan_of_every_node(
            n in 1usize..6,
            evs in proptest::collection::vec((0u8..4, 0usize..8, 0usize..9, 0u64..3), 0..80),
        ) {
            let mut v = ElectionView::new(n);
            prop_assert_eq!(v.agreed(), None);
            for (i, e) in evs.into_iter().enumerate() {
                v.apply(&event(i as u64, n, e));
                let (agreed, in_term) = scanned(&v);
                prop_assert_eq!(v.agreed(), agreed);
                prop_assert_eq!(v.agreed_in_term(), in_term);
            }
        }
    }

    #[test]
    fn every_node_naming_one_leader_in_one_term_agrees_and_a_crash_or_a_new_election_ends_it() {
        let mut v = ElectionView::new(3);
        let obs = |id, node, leader, term| event(id, 3, (0, node, leader, term));
        for node in 0..3 {
            assert_eq!(v.agreed(), None);
            v.apply(&obs(node as u64, node, 2, 1));
        }
        assert_eq!((v.agreed(), v.agreed_in_term()), (Some(2), Some((2, 1))));
        v.apply(&obs(3, 0, 2, 2)); // same leader, another term
        assert_eq!((v.agreed(), v.agreed_in_term()), (Some(2), None));
        v.apply(&event(4, 3, (1, 2, 0, 0))); // the leader crashes
        assert_eq!(v.agreed(), None);
        v.apply(&event(5, 3, (2, 2, 0, 0))); // and restarts, naming nobody yet
        assert_eq!(v.agreed(), None);
        v.apply(&obs(6, 2, 2, 1));
        assert_eq!(v.agreed(), Some(2));
        v.apply(&obs(7, 1, 3, 1)); // an election (leader index n: none)
        assert_eq!(v.agreed(), None);
    }
}
