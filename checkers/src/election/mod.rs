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

pub mod agreement;
pub mod single_acting;
pub mod stability;
pub mod termination;
pub mod uniqueness;
pub mod validity;

pub use agreement::LeaderAgreement;
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

/// Liveness, beliefs and faults in effect, maintained event by event.
#[derive(Clone, Debug, Default)]
pub struct ElectionView {
    n: usize,
    alive: Vec<bool>,
    belief: Vec<Option<Belief>>,
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
            ..ElectionView::default()
        }
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
        let mut agreed = None;
        for v in self.live_nodes() {
            let l = self.belief[v]?.leader?;
            if agreed.is_some_and(|a| a != l) {
                return None;
            }
            agreed = Some(l);
        }
        agreed.filter(|&l| self.alive(l))
    }

    /// Like [`ElectionView::agreed`], but every live node must also report the same term:
    /// `(leader, term)`.
    pub fn agreed_in_term(&self) -> Option<(NodeId, u64)> {
        let l = self.agreed()?;
        let mut term = None;
        for v in self.live_nodes() {
            let t = self.belief[v]?.term;
            if term.is_some_and(|x| x != t) {
                return None;
            }
            term = Some(t);
        }
        term.map(|t| (l, t))
    }

    /// Applies one event. Returns the node's previous belief when the event is a leader
    /// observation (`Some(None)` when it believed nothing).
    pub fn apply(&mut self, ev: &Event) -> Option<Option<Belief>> {
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::Leader { leader, term },
            } => {
                let node = ev.node.filter(|&n| n < self.n)?;
                let prev = self.belief[node];
                self.belief[node] = Some(Belief {
                    leader: *leader,
                    term: *term,
                    event: ev.id,
                    t_ns: ev.t_ns,
                });
                return Some(prev);
            }
            EventKind::Fault { fault } => match fault {
                Fault::Crash { node } | Fault::Restart { node } if *node >= self.n => {}
                Fault::Crash { node } => {
                    self.alive[*node] = false;
                    self.belief[*node] = None;
                    self.crashed.insert(*node, ev.id);
                }
                Fault::Restart { node } => {
                    self.alive[*node] = true;
                    self.belief[*node] = None;
                    self.crashed.remove(node);
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
            let trace = sincro_harness::Trace {
                nodes,
                events: self.events,
            };
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
