//! The network model: topology, per-link latency distributions, loss, duplication, reordering
//! and partitions.
//!
//! Links are FIFO unless a message is drawn for reordering (probability `reorder`): a FIFO
//! message is never delivered before an earlier message on the same link. Partitions block a
//! directed link; a message is judged when it is sent and again when it arrives, so a message in
//! flight across a link that is cut is lost (as a packet on a cable that is pulled).

use crate::rng::SimRng;
use crate::{ms_to_ns, NodeId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A latency distribution for one link, in milliseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Latency {
    /// Always the same latency.
    Constant {
        /// Latency in ms.
        ms: f64,
    },
    /// Uniform in `[min_ms, max_ms]`.
    Uniform {
        /// Smallest latency.
        min_ms: f64,
        /// Largest latency.
        max_ms: f64,
    },
    /// `min_ms` plus an exponential tail of mean `mean_ms - min_ms`, capped at `max_ms`.
    Exponential {
        /// Smallest latency.
        min_ms: f64,
        /// Mean latency (must be at least `min_ms`).
        mean_ms: f64,
        /// The tail is cut here (a message is never slower).
        max_ms: f64,
    },
}

impl Default for Latency {
    fn default() -> Self {
        Latency::Uniform {
            min_ms: 1.0,
            max_ms: 10.0,
        }
    }
}

impl Latency {
    /// Checks the parameters; the error names the problem.
    pub fn validate(&self) -> Result<(), String> {
        let max = crate::MAX_TIME_MS as f64;
        let ok = |v: f64| v.is_finite() && (0.0..=max).contains(&v);
        if let Some(v) = self.values().into_iter().find(|&v| !ok(v)) {
            return Err(format!(
                "latency {} ms is outside [0, {}] ms (the limit on any time)",
                crate::show_f64(v),
                crate::MAX_TIME_MS
            ));
        }
        match *self {
            Latency::Uniform { min_ms, max_ms } if !ok(min_ms) || !ok(max_ms) || min_ms > max_ms => Err(format!(
                "uniform latency needs 0 <= min_ms <= max_ms, got min_ms={min_ms} max_ms={max_ms}"
            )),
            Latency::Exponential { min_ms, mean_ms, max_ms }
                if !ok(min_ms) || !ok(mean_ms) || !ok(max_ms) || min_ms > mean_ms || mean_ms > max_ms =>
            {
                Err(format!(
                    "exponential latency needs 0 <= min_ms <= mean_ms <= max_ms, got {min_ms}/{mean_ms}/{max_ms}"
                ))
            }
            _ => Ok(()),
        }
    }

    /// Every number of the distribution, ms.
    fn values(&self) -> Vec<f64> {
        match *self {
            Latency::Constant { ms } => vec![ms],
            Latency::Uniform { min_ms, max_ms } => vec![min_ms, max_ms],
            Latency::Exponential {
                min_ms,
                mean_ms,
                max_ms,
            } => vec![min_ms, mean_ms, max_ms],
        }
    }

    /// The largest latency this distribution can produce, in ns.
    pub fn max_ns(&self) -> u64 {
        match *self {
            Latency::Constant { ms } => ms_to_ns(ms),
            Latency::Uniform { max_ms, .. } | Latency::Exponential { max_ms, .. } => {
                ms_to_ns(max_ms)
            }
        }
    }

    /// The smallest latency this distribution can produce, in ns.
    pub fn min_ns(&self) -> u64 {
        match *self {
            Latency::Constant { ms } => ms_to_ns(ms),
            Latency::Uniform { min_ms, .. } | Latency::Exponential { min_ms, .. } => {
                ms_to_ns(min_ms)
            }
        }
    }

    /// Draws one latency in ns.
    pub fn sample_ns(&self, rng: &mut SimRng) -> u64 {
        LatencyNs::from(self).sample(rng)
    }
}

/// A latency distribution converted to ns once, so sampling does no float work for the
/// constant and uniform cases.
#[derive(Clone, Copy, Debug, PartialEq)]
enum LatencyNs {
    Constant(u64),
    Uniform(u64, u64),
    Exponential {
        min_ms: f64,
        tail_mean_ms: f64,
        max_ms: f64,
    },
}

impl From<&Latency> for LatencyNs {
    fn from(l: &Latency) -> Self {
        match *l {
            Latency::Constant { ms } => LatencyNs::Constant(ms_to_ns(ms)),
            Latency::Uniform { min_ms, max_ms } => {
                LatencyNs::Uniform(ms_to_ns(min_ms), ms_to_ns(max_ms))
            }
            Latency::Exponential {
                min_ms,
                mean_ms,
                max_ms,
            } => LatencyNs::Exponential {
                min_ms,
                tail_mean_ms: mean_ms - min_ms,
                max_ms,
            },
        }
    }
}

impl LatencyNs {
    /// The smallest and largest delay, ns.
    fn bounds(&self) -> (u64, u64) {
        match *self {
            LatencyNs::Constant(ns) => (ns, ns),
            LatencyNs::Uniform(lo, hi) => (lo, hi),
            LatencyNs::Exponential { min_ms, max_ms, .. } => (ms_to_ns(min_ms), ms_to_ns(max_ms)),
        }
    }

    #[inline]
    fn sample(&self, rng: &mut SimRng) -> u64 {
        match *self {
            LatencyNs::Constant(ns) => ns,
            LatencyNs::Uniform(lo, hi) => rng.range_u64(lo, hi),
            LatencyNs::Exponential {
                min_ms,
                tail_mean_ms,
                max_ms,
            } => {
                let u = rng.unit();
                let x = min_ms - tail_mean_ms * (1.0 - u).ln();
                ms_to_ns(x.min(max_ms))
            }
        }
    }
}

/// Which links exist.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// Every node can send to every other node.
    #[default]
    Complete,
    /// Node `i` is linked (both ways) to `i-1` and `i+1` modulo n.
    Ring,
    /// Only the listed undirected edges exist.
    Graph {
        /// Undirected edges `[a, b]`.
        edges: Vec<[NodeId; 2]>,
    },
}

/// Link behaviour: latency and the probabilities of loss, duplication and reordering.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Latency distribution.
    #[serde(default)]
    pub latency: Latency,
    /// Probability a message is lost.
    #[serde(default)]
    pub loss: f64,
    /// Probability a message is delivered twice.
    #[serde(default)]
    pub duplicate: f64,
    /// Probability a message may overtake earlier ones on its link (0: FIFO links).
    #[serde(default)]
    pub reorder: f64,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec {
            latency: Latency::default(),
            loss: 0.0,
            duplicate: 0.0,
            reorder: 0.0,
        }
    }
}

impl LinkSpec {
    /// Checks the parameters; the error names the problem.
    pub fn validate(&self) -> Result<(), String> {
        self.latency.validate()?;
        for (name, p) in [
            ("loss", self.loss),
            ("duplicate", self.duplicate),
            ("reorder", self.reorder),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(format!(
                    "{name} probability must be within [0, 1], got {}",
                    crate::show_f64(p)
                ));
            }
        }
        Ok(())
    }
}

/// A change to some links: those from `from` to `to` (all nodes when absent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOverride {
    /// Sending end (all nodes when absent).
    #[serde(default)]
    pub from: Option<NodeId>,
    /// Receiving end (all nodes when absent).
    #[serde(default)]
    pub to: Option<NodeId>,
    /// New latency distribution.
    #[serde(default)]
    pub latency: Option<Latency>,
    /// New loss probability.
    #[serde(default)]
    pub loss: Option<f64>,
    /// New duplication probability.
    #[serde(default)]
    pub duplicate: Option<f64>,
    /// New reordering probability.
    #[serde(default)]
    pub reorder: Option<f64>,
}

impl LinkOverride {
    /// Checks the override against a run of `n` nodes: the nodes exist, the latency and the
    /// probabilities are valid (each field on its own, as it replaces that field of a link).
    pub fn validate(&self, n: usize) -> Result<(), String> {
        for (what, v) in [("from", self.from), ("to", self.to)] {
            if let Some(v) = v {
                if v >= n {
                    return Err(format!("{what} = {v} is not a node (nodes = {n})"));
                }
            }
        }
        if let (Some(a), Some(b)) = (self.from, self.to) {
            if a == b {
                return Err(format!(
                    "from node {a} to itself: a node's messages to itself do not cross the \
                     network, so the override would do nothing"
                ));
            }
        }
        if self.latency.is_none()
            && self.loss.is_none()
            && self.duplicate.is_none()
            && self.reorder.is_none()
        {
            return Err(
                "changes nothing: give at least one of latency, loss, duplicate, reorder".into(),
            );
        }
        if let Some(l) = &self.latency {
            l.validate()?;
        }
        for (name, p) in [
            ("loss", self.loss),
            ("duplicate", self.duplicate),
            ("reorder", self.reorder),
        ] {
            if let Some(p) = p {
                if !(0.0..=1.0).contains(&p) {
                    return Err(format!(
                        "{name} probability must be within [0, 1], got {}",
                        crate::show_f64(p)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The network part of a scenario.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// Which links exist.
    #[serde(default)]
    pub topology: Topology,
    /// Latency of every link, unless overridden.
    #[serde(default)]
    pub latency: Latency,
    /// Loss probability of every link.
    #[serde(default)]
    pub loss: f64,
    /// Duplication probability of every link.
    #[serde(default)]
    pub duplicate: f64,
    /// Reordering probability of every link (0: FIFO links).
    #[serde(default)]
    pub reorder: f64,
    /// Per-link overrides, applied in order.
    #[serde(default)]
    pub links: Vec<LinkOverride>,
}

impl NetworkSpec {
    /// Checks the spec for a run of `n` nodes without building the network (which is O(n²)):
    /// the link parameters, the graph's edges and every override. The error names the field.
    pub fn validate(&self, n: usize) -> Result<(), String> {
        self.link().validate()?;
        if let Topology::Graph { edges } = &self.topology {
            let mut listed = std::collections::BTreeMap::new();
            for (i, &[a, b]) in edges.iter().enumerate() {
                if a >= n || b >= n {
                    return Err(format!(
                        "topology.graph.edges[{i}] = [{a}, {b}] names a node >= nodes ({n})"
                    ));
                }
                if a == b {
                    return Err(format!(
                        "topology.graph.edges[{i}] is a self-loop on node {a}"
                    ));
                }
                // an edge links both ways: [a, b] and [b, a] are one edge
                if let Some(j) = listed.insert((a.min(b), a.max(b)), i) {
                    return Err(format!(
                        "topology.graph.edges[{i}] = [{a}, {b}] repeats edges[{j}] (an edge \
                         links both ways)"
                    ));
                }
            }
        }
        let mut seen: std::collections::BTreeMap<(Option<NodeId>, Option<NodeId>), usize> =
            std::collections::BTreeMap::new();
        let end = |v: Option<NodeId>| v.map_or("every node".to_string(), |v| format!("node {v}"));
        for (i, o) in self.links.iter().enumerate() {
            o.validate(n).map_err(|e| format!("links[{i}]: {e}"))?;
            if let Some(j) = seen.insert((o.from, o.to), i) {
                return Err(format!(
                    "links[{i}] is for the same links as links[{j}] (from {} to {}): give one \
                     entry for them (the later would silently replace the earlier's fields, and \
                     the verdict would depend on their order)",
                    end(o.from),
                    end(o.to)
                ));
            }
        }
        Ok(())
    }

    /// The default behaviour of every link.
    pub fn link(&self) -> LinkSpec {
        LinkSpec {
            latency: self.latency.clone(),
            loss: self.loss,
            duplicate: self.duplicate,
            reorder: self.reorder,
        }
    }
}

/// Why a message was not delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The link lost it.
    Loss,
    /// A partition blocked the link at send or arrival.
    Partitioned,
    /// The topology has no such link.
    NoLink,
    /// The destination was crashed when it arrived.
    DestinationCrashed,
    /// The destination is not a node of the run.
    NoSuchNode,
    /// The messages-in-flight limit was reached.
    InFlightLimit,
}

/// A link's parameters in the form `route` uses.
#[derive(Clone, Copy, Debug)]
struct LinkRt {
    latency: LatencyNs,
    loss: f64,
    duplicate: f64,
    reorder: f64,
}

impl From<&LinkSpec> for LinkRt {
    fn from(l: &LinkSpec) -> Self {
        LinkRt {
            latency: LatencyNs::from(&l.latency),
            loss: l.loss,
            duplicate: l.duplicate,
            reorder: l.reorder,
        }
    }
}

impl LinkOverride {
    /// Every link out of `node` takes `latency` (a delay spike, and its restore).
    pub fn latency_from(node: NodeId, latency: Latency) -> Self {
        LinkOverride {
            from: Some(node),
            to: None,
            latency: Some(latency),
            loss: None,
            duplicate: None,
            reorder: None,
        }
    }

    /// Replaces the fields this override sets in `link`.
    fn apply_to(&self, link: &mut LinkSpec) {
        if let Some(lat) = &self.latency {
            link.latency = lat.clone();
        }
        if let Some(p) = self.loss {
            link.loss = p;
        }
        if let Some(p) = self.duplicate {
            link.duplicate = p;
        }
        if let Some(p) = self.reorder {
            link.reorder = p;
        }
    }
}

/// Which links a topology has, for `n` nodes, in O(n + edges) memory: the complete topology
/// keeps no lists (a node's neighbour list is built the first time it is asked for), the ring
/// and a graph keep each node's sorted neighbours.
#[derive(Clone, Debug)]
pub struct Adjacency {
    n: usize,
    /// Sorted, deduplicated neighbours of each node (ring and graph); `None`: complete.
    lists: Option<Vec<Vec<NodeId>>>,
    /// The complete topology's neighbour lists, each built on first use.
    complete: Vec<std::cell::OnceCell<Box<[NodeId]>>>,
}

impl Adjacency {
    /// The links of `topology` over `n` nodes; fails on an edge naming a node `>= n` or a
    /// self-loop.
    pub fn new(n: usize, topology: &Topology) -> Result<Self, String> {
        let lists = match topology {
            Topology::Complete => None,
            Topology::Ring => Some(
                (0..n)
                    .map(|a| {
                        let mut l: Vec<NodeId> = [(a + 1) % n, (a + n - 1) % n]
                            .into_iter()
                            .filter(|&b| b != a)
                            .collect();
                        l.sort_unstable();
                        l.dedup();
                        l
                    })
                    .collect(),
            ),
            Topology::Graph { edges } => {
                let mut lists = vec![Vec::new(); n];
                for (i, &[a, b]) in edges.iter().enumerate() {
                    if a >= n || b >= n {
                        return Err(format!("network.topology.graph.edges[{i}] = [{a}, {b}] names a node >= nodes ({n})"));
                    }
                    if a == b {
                        return Err(format!(
                            "network.topology.graph.edges[{i}] is a self-loop on node {a}"
                        ));
                    }
                    lists[a].push(b);
                    lists[b].push(a);
                }
                for l in &mut lists {
                    l.sort_unstable();
                    l.dedup();
                }
                Some(lists)
            }
        };
        let complete = match lists {
            None => (0..n).map(|_| std::cell::OnceCell::new()).collect(),
            Some(_) => Vec::new(),
        };
        Ok(Adjacency { n, lists, complete })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True for no nodes.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// True when the topology links `a` to `b` (both nodes, `a != b`).
    #[inline]
    pub fn contains(&self, a: NodeId, b: NodeId) -> bool {
        if a >= self.n || b >= self.n || a == b {
            return false;
        }
        match &self.lists {
            None => true,
            Some(lists) => lists[a].binary_search(&b).is_ok(),
        }
    }

    /// The nodes `a` has a link to, in increasing order.
    pub fn neighbours(&self, a: NodeId) -> &[NodeId] {
        match &self.lists {
            Some(lists) => &lists[a],
            None => self.complete[a].get_or_init(|| (0..self.n).filter(|&b| b != a).collect()),
        }
    }

    /// How many neighbours `a` has (without building `a`'s list on the complete topology).
    #[inline]
    pub fn neighbours_len(&self, a: NodeId) -> usize {
        match &self.lists {
            Some(lists) => lists[a].len(),
            None => self.n.saturating_sub(1),
        }
    }

    /// Calls `f` for each neighbour of `a` in increasing order (on the complete topology
    /// without building `a`'s list).
    #[inline]
    pub fn for_each_neighbour(&self, a: NodeId, mut f: impl FnMut(NodeId)) {
        match &self.lists {
            Some(lists) => lists[a].iter().for_each(|&b| f(b)),
            None => match self.complete[a].get() {
                Some(l) => l.iter().for_each(|&b| f(b)),
                None => (0..self.n).filter(|&b| b != a).for_each(f),
            },
        }
    }

    /// True when every node can reach every other one (always, on the complete topology).
    pub fn is_connected(&self) -> bool {
        let Some(lists) = &self.lists else {
            return true;
        };
        if lists.is_empty() {
            return true;
        }
        let mut seen = vec![false; lists.len()];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(a) = stack.pop() {
            for &b in &lists[a] {
                if !std::mem::replace(&mut seen[b], true) {
                    stack.push(b);
                }
            }
        }
        seen.into_iter().all(|s| s)
    }
}

/// A partition: the directed links it blocks.
#[derive(Clone, Debug)]
enum Cut {
    /// Links between nodes of different groups: each node's group (`u32::MAX`: not listed,
    /// the one more group).
    Groups(Vec<u32>),
    /// Links from a node of the first list to a node of the second (both sorted).
    Oneway(Vec<NodeId>, Vec<NodeId>),
}

impl Cut {
    #[inline]
    fn covers(&self, a: NodeId, b: NodeId) -> bool {
        a != b
            && match self {
                Cut::Groups(group_of) => group_of[a] != group_of[b],
                Cut::Oneway(from, to) => {
                    from.binary_search(&a).is_ok() && to.binary_search(&b).is_ok()
                }
            }
    }
}

/// Hashes a link index (`a * n + b`) for the FIFO table of large networks: one 128-bit
/// multiply, folded. Only looked up, never iterated, so the order of the table cannot leak
/// into a run.
#[derive(Clone, Copy, Debug, Default)]
struct LinkHasher(u64);

impl std::hash::Hasher for LinkHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        let p = u128::from(self.0 ^ x) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (p as u64) ^ ((p >> 64) as u64);
    }
    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// Up to this many nodes the FIFO table is a dense `n × n` array (8 MiB at most, allocated
/// zeroed, so only the pages of links that carried a message are ever touched); above, a
/// hash table holding only those links.
const DENSE_FIFO_MAX_NODES: usize = 1024;

/// The latest arrival time scheduled on each directed link (FIFO links deliver no earlier).
#[derive(Clone, Debug)]
enum Fifo {
    Dense(Vec<u64>),
    Sparse(std::collections::HashMap<usize, u64, std::hash::BuildHasherDefault<LinkHasher>>),
}

impl Fifo {
    #[inline]
    fn slot(&mut self, i: usize) -> &mut u64 {
        match self {
            Fifo::Dense(v) => &mut v[i],
            Fifo::Sparse(m) => m.entry(i).or_insert(0),
        }
    }
}

/// Runtime network state: link parameters, partitions and FIFO bookkeeping, in memory that
/// grows with the nodes, the links that differ from the default and the links that carried a
/// message — never with every pair of nodes (a run of 10,000 nodes keeps no `n × n` table).
#[derive(Clone, Debug)]
pub struct Network {
    n: usize,
    adjacency: Adjacency,
    /// Every link's parameters unless listed in `special`.
    default: LinkSpec,
    default_rt: LinkRt,
    /// The links whose parameters differ from `default`, by `a * n + b`.
    special: BTreeMap<usize, (LinkSpec, LinkRt)>,
    /// Every partition of the run, in order: a message sent when `cuts.len()` was `e` is lost
    /// when one of `cuts[e..]` covers its link ([`Network::cut_since`]).
    cuts: Vec<Cut>,
    /// `cuts[healed..]` are in force (a heal moves it to the end).
    healed: usize,
    /// Links blocked one by one ([`Network::block_link`]), until the heal.
    blocked_links: BTreeSet<(NodeId, NodeId)>,
    fifo: Fifo,
    schedule: crate::schedule::ScheduleRt,
}

impl Network {
    /// Builds the network for `n` nodes; fails on an invalid spec.
    pub fn new(n: usize, spec: &NetworkSpec) -> Result<Self, String> {
        let link = spec.link();
        link.validate()?;
        let adjacency = Adjacency::new(n, &spec.topology)?;
        let fifo = if n <= DENSE_FIFO_MAX_NODES {
            Fifo::Dense(vec![0; n * n])
        } else {
            Fifo::Sparse(Default::default())
        };
        let mut net = Network {
            n,
            adjacency,
            default_rt: LinkRt::from(&link),
            default: link,
            special: BTreeMap::new(),
            cuts: Vec::new(),
            healed: 0,
            blocked_links: BTreeSet::new(),
            fifo,
            schedule: Default::default(),
        };
        for (i, o) in spec.links.iter().enumerate() {
            net.apply_override(o)
                .map_err(|e| format!("network.links[{i}]: {e}"))?;
        }
        Ok(net)
    }

    /// Applies a link change (from the scenario or a fault): O(n) for an override of the
    /// links from or to one node, O(links that differ) for one of every link.
    pub fn apply_override(&mut self, o: &LinkOverride) -> Result<(), String> {
        o.validate(self.n)?;
        let n = self.n;
        match (o.from, o.to) {
            (None, None) => {
                o.apply_to(&mut self.default);
                self.default_rt = LinkRt::from(&self.default);
                for (l, rt) in self.special.values_mut() {
                    o.apply_to(l);
                    *rt = LinkRt::from(&*l);
                }
            }
            (Some(a), None) => (0..n).for_each(|b| self.override_link(a * n + b, o)),
            (None, Some(b)) => (0..n).for_each(|a| self.override_link(a * n + b, o)),
            (Some(a), Some(b)) => self.override_link(a * n + b, o),
        }
        let default = &self.default;
        self.special.retain(|_, (l, _)| l != default);
        Ok(())
    }

    fn override_link(&mut self, i: usize, o: &LinkOverride) {
        let (l, rt) = self
            .special
            .entry(i)
            .or_insert_with(|| (self.default.clone(), self.default_rt));
        o.apply_to(l);
        *rt = LinkRt::from(&*l);
    }

    /// Whether every link behaves as in `other` (the same latency law and probabilities;
    /// partitions, topology and schedule are not compared).
    pub fn same_links(&self, other: &Network) -> bool {
        self.n == other.n
            && self.default == other.default
            && self.special.len() == other.special.len()
            && self
                .special
                .iter()
                .zip(&other.special)
                .all(|((i, (a, _)), (j, (b, _)))| i == j && a == b)
    }

    /// Orders deliveries with `schedule` from now on (validated with the scenario).
    pub fn set_schedule(&mut self, schedule: &crate::schedule::Schedule) {
        self.schedule = crate::schedule::ScheduleRt::new(schedule, self.n);
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True for a network of no nodes.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Which links the topology has.
    pub fn adjacency(&self) -> &Adjacency {
        &self.adjacency
    }

    /// The nodes `a` has a link to, in increasing order (on the complete topology the list is
    /// built the first time it is asked for: prefer [`Adjacency::for_each_neighbour`]).
    pub fn neighbours(&self, a: NodeId) -> &[NodeId] {
        self.adjacency.neighbours(a)
    }

    /// True when the topology has a link from `a` to `b`.
    pub fn adjacent(&self, a: NodeId, b: NodeId) -> bool {
        self.adjacency.contains(a, b)
    }

    /// The parameters of link `a -> b`.
    pub fn link(&self, a: NodeId, b: NodeId) -> &LinkSpec {
        match self.special.get(&(a * self.n + b)) {
            Some((l, _)) => l,
            None => &self.default,
        }
    }

    #[inline]
    fn rt(&self, i: usize) -> LinkRt {
        if self.special.is_empty() {
            return self.default_rt;
        }
        self.special.get(&i).map_or(self.default_rt, |&(_, rt)| rt)
    }

    /// True when a partition blocks `a -> b`.
    #[inline]
    pub fn blocked(&self, a: NodeId, b: NodeId) -> bool {
        self.cuts[self.healed..].iter().any(|c| c.covers(a, b))
            || (!self.blocked_links.is_empty() && self.blocked_links.contains(&(a, b)))
    }

    /// Blocks `a -> b` until the next [`Network::heal`] (not counted in
    /// [`Network::cut_epoch`]: the engines that block links one by one keep their own epochs).
    pub fn block_link(&mut self, a: NodeId, b: NodeId) {
        self.blocked_links.insert((a, b));
    }

    /// Partitions the nodes into `groups` (nodes not listed form one more group): links between
    /// different groups are blocked both ways; links inside a group are left as they are.
    pub fn partition(&mut self, groups: &[Vec<NodeId>]) {
        let mut group_of = vec![u32::MAX; self.n];
        for (g, members) in groups.iter().enumerate() {
            for &m in members {
                group_of[m] = g as u32;
            }
        }
        self.cuts.push(Cut::Groups(group_of));
    }

    /// Blocks every link from a node of `from` to a node of `to` (not the other way).
    pub fn partition_oneway(&mut self, from: &[NodeId], to: &[NodeId]) {
        let sorted = |v: &[NodeId]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v.dedup();
            v
        };
        self.cuts.push(Cut::Oneway(sorted(from), sorted(to)));
    }

    /// The partition epoch: how many partitions ([`Network::partition`],
    /// [`Network::partition_oneway`]) the run has had. A message sent at epoch `e` was caught
    /// in flight by a cut when [`Network::cut_since`] says so.
    pub fn cut_epoch(&self) -> u32 {
        self.cuts.len() as u32
    }

    /// True when a partition made since epoch `epoch` blocked `a -> b` (even if healed since):
    /// a message sent over it at that epoch, unblocked then, is lost.
    #[inline]
    pub fn cut_since(&self, a: NodeId, b: NodeId, epoch: u32) -> bool {
        self.cuts[epoch as usize..].iter().any(|c| c.covers(a, b))
    }

    /// Removes every partition.
    pub fn heal(&mut self) {
        self.healed = self.cuts.len();
        self.blocked_links.clear();
    }

    /// Decides the fate of a message sent `a -> b` at `now_ns`: `Err(reason)` when it is lost,
    /// otherwise the arrival times (two when duplicated).
    #[inline]
    pub fn route(&mut self, a: NodeId, b: NodeId, now_ns: u64, rng: &mut SimRng) -> Route {
        if self.is_plain() {
            return self.route_plain(a, b, now_ns, rng);
        }
        self.route_text(a, b, now_ns, rng, None)
    }

    /// True when every link is the default one, which loses, duplicates and reorders nothing,
    /// no partition or blocked link is in force and delays come from the latency law: a
    /// message's fate is then one latency draw behind the link's last arrival
    /// ([`Network::route_plain`]), the same draws as the general path makes.
    #[inline]
    fn is_plain(&self) -> bool {
        let rt = &self.default_rt;
        self.special.is_empty()
            && rt.loss <= 0.0
            && rt.duplicate <= 0.0
            && rt.reorder <= 0.0
            && self.healed == self.cuts.len()
            && self.blocked_links.is_empty()
            && matches!(self.schedule, crate::schedule::ScheduleRt::Random)
    }

    /// [`Network::route`] on a [plain](Network::is_plain) network: what `route_text` does
    /// there, without its checks for what is not in force (`chance(0)` draws nothing, so the
    /// random stream is the same).
    #[inline]
    fn route_plain(&mut self, a: NodeId, b: NodeId, now_ns: u64, rng: &mut SimRng) -> Route {
        if !self.adjacency.contains(a, b) {
            return Route::Dropped(DropReason::NoLink);
        }
        let lat = self.default_rt.latency.sample(rng);
        let last = self.fifo.slot(a * self.n + b);
        let at = now_ns.saturating_add(lat).max(*last);
        *last = at;
        Route::Once(at)
    }

    /// Link `a → b`'s FIFO slot where the table is dense, for a prefetch hint: a node that
    /// receives a message often answers its sender (an acknowledgement, an OK, a reply), and
    /// on hundreds of nodes that answer's slot is a cache miss. `None` on a sparse table.
    #[inline]
    pub(crate) fn fifo_slot_hint(&self, a: NodeId, b: NodeId) -> Option<&u64> {
        match &self.fifo {
            // wrapping: a hint never panics (out of range, `get` says `None`)
            Fifo::Dense(v) => v.get(a.wrapping_mul(self.n).wrapping_add(b)),
            Fifo::Sparse(_) => None,
        }
    }

    /// True when the schedule replays recorded messages: then the engine passes each
    /// message's rendering to [`Network::route_text`].
    #[inline]
    pub fn wants_text(&self) -> bool {
        self.schedule.wants_text()
    }

    /// [`Network::route`], with the message's rendering (`Some` when [`Network::wants_text`]):
    /// a message a [recorded schedule](crate::schedule::Schedule::Recorded) lists gets its
    /// recorded fate (lost, or its arrivals' delays).
    pub fn route_text(
        &mut self,
        a: NodeId,
        b: NodeId,
        now_ns: u64,
        rng: &mut SimRng,
        text: Option<&str>,
    ) -> Route {
        // Counted first, so the occurrences match the record's whatever happens to them.
        let recorded = text.and_then(|t| self.schedule.recorded(a, b, t));
        if !self.adjacency.contains(a, b) {
            return Route::Dropped(DropReason::NoLink);
        }
        if self.blocked(a, b) {
            return Route::Dropped(DropReason::Partitioned);
        }
        // Drawn even for a recorded message, so the random stream, and with it the delays of
        // the messages the record does not list, stay those of the recorded run.
        let i = a * self.n + b;
        // the link's last scheduled arrival before this message (a FIFO link holds it behind)
        let before = recorded.as_ref().map(|_| *self.fifo.slot(i));
        let sampled = self.sample_route(i, a, now_ns, rng);
        let (Some(delays), Some(before)) = (recorded, before) else {
            return sampled;
        };
        self.replay_fate(i, now_ns, &delays, sampled, before)
    }

    /// The recorded fate `delays` of a message sent on link `i` at `now_ns`, as far as the
    /// link can produce it now (`sampled` is the fate its law drew). A record made under a
    /// fault the scenario no longer has is not replayed past what the scenario allows: a loss
    /// on a link that loses nothing, a duplicate on one that duplicates nothing and a delay
    /// outside the link's latency bounds (beyond the FIFO hold behind an earlier message)
    /// would be faults the scenario does not declare. So the shrinker, which pins a
    /// failure's schedule and then removes faults, cannot keep a delay spike or a loss as a
    /// pinned delay once its fault is gone.
    fn replay_fate(
        &mut self,
        i: usize,
        now_ns: u64,
        delays: &[u64],
        sampled: Route,
        before: u64,
    ) -> Route {
        let link = self.rt(i);
        let (lo_ns, hi_ns) = link.latency.bounds();
        // The latest arrival this link has scheduled: a FIFO link holds a message behind it.
        let held = if link.reorder < 1.0 {
            *self.fifo.slot(i)
        } else {
            0
        };
        // A link that never reorders delivers this one no earlier than the one before it: a
        // recorded delay (numbered after a shrink removed messages) must not overtake it.
        let fifo = link.reorder == 0.0;
        let mut earliest = now_ns.saturating_add(lo_ns);
        if fifo {
            earliest = earliest.max(before);
        }
        let latest = now_ns.saturating_add(hi_ns).max(held).max(earliest);
        let at = |d: u64| now_ns.saturating_add(d).clamp(earliest, latest);
        let route = match *delays {
            [] if link.loss > 0.0 => Route::Dropped(DropReason::Loss),
            [] => return sampled,
            [d] => Route::Once(at(d)),
            [d, e, ..] if link.duplicate > 0.0 => Route::Twice(at(d), at(e)),
            [d, ..] => Route::Once(at(d)),
        };
        if fifo {
            // the link's last arrival is the replayed one, not the one drawn and not used
            *self.fifo.slot(i) = match route {
                Route::Dropped(_) => before,
                Route::Once(x) => before.max(x),
                Route::Twice(x, y) => before.max(x).max(y),
            };
        }
        route
    }

    /// Loss, duplication and arrival times of a message on link `i` from the link's law and
    /// the schedule.
    #[inline]
    fn sample_route(&mut self, i: usize, a: NodeId, now_ns: u64, rng: &mut SimRng) -> Route {
        let link = self.rt(i);
        if rng.chance(link.loss) {
            return Route::Dropped(DropReason::Loss);
        }
        let dup = rng.chance(link.duplicate);
        let schedule = &mut self.schedule;
        let fifo = &mut self.fifo;
        let mut arrival = |rng: &mut SimRng| {
            let lat = schedule.delay_ns(a, now_ns, link.latency.bounds(), rng, |rng| {
                link.latency.sample(rng)
            });
            let mut at = now_ns.saturating_add(lat);
            if !rng.chance(link.reorder) {
                let last = fifo.slot(i);
                at = at.max(*last);
                *last = at;
            }
            at
        };
        let first = arrival(rng);
        if dup {
            let second = arrival(rng);
            Route::Twice(first, second)
        } else {
            Route::Once(first)
        }
    }
}

/// The fate of one sent message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Lost at send time.
    Dropped(DropReason),
    /// Arrives once at this global time (ns).
    Once(u64),
    /// Duplicated: arrives at both times.
    Twice(u64, u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded fate is replayed only as far as the link allows it now: a record made under
    /// loss, duplication or a delay spike the scenario no longer has (the shrinker removed
    /// the fault) keeps none of them.
    #[test]
    fn an_override_that_would_do_nothing_is_refused() {
        let o = |from, to, loss| LinkOverride {
            from,
            to,
            latency: None,
            loss,
            duplicate: None,
            reorder: None,
        };
        o(Some(0), Some(1), Some(0.5)).validate(3).unwrap();
        o(None, None, Some(0.0)).validate(3).unwrap();
        let e = o(Some(1), Some(1), Some(0.5)).validate(3).unwrap_err();
        assert!(e.contains("from node 1 to itself"), "{e}");
        let e = o(Some(0), Some(1), None).validate(3).unwrap_err();
        assert!(e.contains("changes nothing"), "{e}");
        // the same rules for the network's overrides and the plan's set_links
        let net = NetworkSpec {
            links: vec![o(None, Some(2), None)],
            ..NetworkSpec::default()
        };
        let e = net.validate(3).unwrap_err();
        assert!(e.starts_with("links[0]: changes nothing"), "{e}");
        let net = NetworkSpec {
            topology: Topology::Graph {
                edges: vec![[0, 1], [1, 2], [1, 0]],
            },
            ..NetworkSpec::default()
        };
        let e = net.validate(3).unwrap_err();
        assert!(e.contains("edges[2] = [1, 0] repeats edges[0]"), "{e}");
        let f = crate::Fault::SetLinks(Box::new(o(Some(2), Some(2), Some(1.0))));
        let e = f.validate(3, 0.0).unwrap_err();
        assert!(e.starts_with("set_links: from node 2 to itself"), "{e}");
    }

    /// The plain network's short path decides every fate as the general one does, with the
    /// same draws: the same arrivals (FIFO holds included) and the same random stream after.
    #[test]
    fn the_plain_path_routes_as_the_general_one() {
        let spec = |json: &str| -> NetworkSpec { serde_json::from_str(json).unwrap() };
        let plain = spec(r#"{"latency": {"uniform": {"min_ms": 1, "max_ms": 9}}}"#);
        let ring = spec(r#"{"topology": "ring", "latency": {"constant": {"ms": 2}}}"#);
        let lossy = spec(r#"{"latency": {"uniform": {"min_ms": 1, "max_ms": 9}}, "loss": 0.3}"#);
        for (spec, is_plain) in [(plain, true), (ring, true), (lossy, false)] {
            let (mut short, mut general) = (
                Network::new(5, &spec).unwrap(),
                Network::new(5, &spec).unwrap(),
            );
            assert_eq!(short.is_plain(), is_plain);
            let (mut r1, mut r2, mut pick) = (SimRng::new(3), SimRng::new(3), SimRng::new(4));
            let mut now_ns = 0;
            for _ in 0..2_000 {
                let (a, b) = (pick.index(5), pick.index(5));
                now_ns += pick.range_u64(0, 3_000_000);
                if a == b {
                    continue;
                }
                let got = short.route(a, b, now_ns, &mut r1);
                let want = general.route_text(a, b, now_ns, &mut r2, None);
                assert_eq!(got, want, "{a} -> {b} at {now_ns} ns");
            }
            assert_eq!(r1.next_u64(), r2.next_u64(), "the same draws");
        }
        // a partition in force, or a link of its own, takes the general path
        let mut net = Network::new(3, &NetworkSpec::default()).unwrap();
        net.partition(&[vec![0]]);
        assert!(!net.is_plain());
        assert_eq!(
            net.route(0, 1, 0, &mut SimRng::new(1)),
            Route::Dropped(DropReason::Partitioned)
        );
        net.heal();
        assert!(net.is_plain());
        net.block_link(1, 2);
        assert!(!net.is_plain());
    }

    #[test]
    fn a_recorded_fate_stays_inside_what_the_link_allows() {
        use crate::schedule::{Recorded, Schedule};
        let rec = |nth, delays_ns: Vec<u64>| Recorded {
            from: 0,
            to: 1,
            msg: "m".into(),
            nth,
            delays_ns,
        };
        let records = vec![
            rec(0, vec![]),
            rec(1, vec![900_000_000]),
            rec(2, vec![3_000_000, 4_000_000]),
            rec(3, vec![1]),
        ];
        let route_all = |spec: NetworkSpec| {
            let mut net = Network::new(2, &spec).unwrap();
            net.set_schedule(&Schedule::Recorded(records.clone()));
            let mut rng = SimRng::new(5);
            (0..4)
                .map(|_| net.route_text(0, 1, 1_000, &mut rng, Some("m")))
                .collect::<Vec<_>>()
        };
        let uniform = Latency::Uniform {
            min_ms: 2.0,
            max_ms: 10.0,
        };
        // A reliable link with FIFO order off: no loss, one copy, delays in 2..=10 ms.
        let plain = route_all(NetworkSpec {
            latency: uniform.clone(),
            reorder: 1.0,
            ..Default::default()
        });
        assert!(matches!(plain[0], Route::Once(_)), "{plain:?}");
        assert_eq!(
            plain[1],
            Route::Once(1_000 + 10_000_000),
            "capped at the maximum"
        );
        assert_eq!(plain[2], Route::Once(1_000 + 3_000_000), "one copy");
        assert_eq!(
            plain[3],
            Route::Once(1_000 + 2_000_000),
            "raised to the minimum"
        );
        // Where the link loses and duplicates, those fates replay; delays stay bounded.
        let faulty = route_all(NetworkSpec {
            latency: uniform,
            loss: 0.5,
            duplicate: 0.5,
            reorder: 1.0,
            ..Default::default()
        });
        assert_eq!(faulty[0], Route::Dropped(DropReason::Loss));
        assert_eq!(faulty[1], Route::Once(1_000 + 10_000_000));
        assert_eq!(
            faulty[2],
            Route::Twice(1_000 + 3_000_000, 1_000 + 4_000_000)
        );
        // On a FIFO link (reorder 0) a replayed delay never overtakes the message before
        // it, and the link's last arrival is the replayed one.
        let mut net = Network::new(
            2,
            &NetworkSpec {
                latency: Latency::Uniform {
                    min_ms: 1.0,
                    max_ms: 10.0,
                },
                ..Default::default()
            },
        )
        .unwrap();
        net.set_schedule(&Schedule::Recorded(vec![
            rec(0, vec![9_000_000]),
            rec(1, vec![1_000_000]),
            rec(2, vec![1_000_000]),
        ]));
        let mut rng = SimRng::new(5);
        let first = net.route_text(0, 1, 0, &mut rng, Some("m"));
        assert_eq!(first, Route::Once(9_000_000));
        let second = net.route_text(0, 1, 1_000_000, &mut rng, Some("m"));
        assert_eq!(second, Route::Once(9_000_000), "held behind the first");
        let third = net.route_text(0, 1, 20_000_000, &mut rng, Some("m"));
        assert_eq!(
            third,
            Route::Once(21_000_000),
            "its own delay once the link is clear"
        );
    }

    #[test]
    fn ring_and_graph_topologies() {
        let net = Network::new(
            4,
            &NetworkSpec {
                topology: Topology::Ring,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(net.neighbours(0), &[1, 3]);
        assert!(!net.adjacent(0, 2));
        let g = NetworkSpec {
            topology: Topology::Graph {
                edges: vec![[0, 2]],
            },
            ..Default::default()
        };
        let net = Network::new(3, &g).unwrap();
        assert!(net.adjacent(2, 0) && !net.adjacent(0, 1));
        let bad = NetworkSpec {
            topology: Topology::Graph {
                edges: vec![[0, 9]],
            },
            ..Default::default()
        };
        assert!(Network::new(3, &bad).unwrap_err().contains("edges[0]"));
    }

    /// Two overrides of the same links, or one of a node to itself, are refused: the later
    /// silently replaced the earlier (a loss of 1 then 0 passed, 0 then 1 failed liveness),
    /// and a self-link does nothing. A wildcard and a specific link may layer.
    #[test]
    fn overrides_of_the_same_links_or_of_a_self_link_are_refused() {
        let link = |from, to, loss| LinkOverride {
            from,
            to,
            latency: None,
            loss: Some(loss),
            duplicate: None,
            reorder: None,
        };
        let spec = |links| NetworkSpec {
            links,
            ..Default::default()
        };
        let layered = spec(vec![link(Some(1), None, 0.5), link(Some(1), Some(0), 1.0)]);
        assert_eq!(layered.validate(3), Ok(()));
        let twice = spec(vec![
            link(Some(1), Some(0), 1.0),
            link(Some(1), Some(0), 0.0),
        ]);
        let e = twice.validate(3).unwrap_err();
        assert!(
            e.starts_with("links[1] is for the same links as links[0] (from node 1 to node 0)"),
            "{e}"
        );
        let everywhere = spec(vec![link(None, None, 0.1), link(None, None, 0.2)]);
        assert!(everywhere
            .validate(3)
            .unwrap_err()
            .contains("from every node to every node"));
        let own = spec(vec![link(Some(2), Some(2), 1.0)]);
        assert!(own
            .validate(3)
            .unwrap_err()
            .contains("links[0]: from node 2 to itself"));
    }

    #[test]
    fn fifo_unless_reordered() {
        let spec = NetworkSpec {
            latency: Latency::Uniform {
                min_ms: 0.0,
                max_ms: 50.0,
            },
            ..Default::default()
        };
        let mut net = Network::new(2, &spec).unwrap();
        let mut rng = SimRng::new(3);
        let mut last = 0;
        for k in 0..200 {
            match net.route(0, 1, k * 100_000, &mut rng) {
                Route::Once(at) => {
                    assert!(at >= last, "FIFO link delivered out of order");
                    last = at;
                }
                r => panic!("unexpected {r:?}"),
            }
        }
        let mut net = Network::new(
            2,
            &NetworkSpec {
                reorder: 1.0,
                ..spec
            },
        )
        .unwrap();
        let arrivals: Vec<u64> = (0..200)
            .map(|k| match net.route(0, 1, k * 100_000, &mut rng) {
                Route::Once(at) => at,
                r => panic!("unexpected {r:?}"),
            })
            .collect();
        assert!(
            arrivals.windows(2).any(|w| w[1] < w[0]),
            "reordering never happened"
        );
    }

    #[test]
    fn partitions_block_between_groups_only() {
        let mut net = Network::new(4, &NetworkSpec::default()).unwrap();
        net.partition(&[vec![0, 1]]);
        assert!(net.blocked(0, 2) && net.blocked(3, 1) && !net.blocked(0, 1) && !net.blocked(2, 3));
        net.heal();
        assert!(!net.blocked(0, 2));
    }

    /// The sparse network against a dense `n × n` model of the same rules: every link's
    /// parameters and blocking, after random overrides, partitions and heals.
    #[test]
    fn sparse_links_and_cuts_match_a_dense_model() {
        let n = 6;
        let mut rng = SimRng::new(11);
        let mut net = Network::new(n, &NetworkSpec::default()).unwrap();
        let mut links = vec![LinkSpec::default(); n * n];
        let mut blocked = vec![false; n * n];
        let pick = |rng: &mut SimRng| (rng.index(3) > 0).then(|| rng.index(n));
        for step in 0..300 {
            match rng.index(4) {
                0 | 1 => {
                    let o = LinkOverride {
                        from: pick(&mut rng),
                        to: pick(&mut rng),
                        latency: rng.chance(0.5).then(|| Latency::Constant {
                            ms: rng.index(4) as f64,
                        }),
                        loss: rng.chance(0.5).then(|| rng.index(3) as f64 / 4.0),
                        duplicate: None,
                        reorder: rng.chance(0.3).then_some(0.5),
                    };
                    if o.validate(n).is_err() {
                        // a self-link or an override changing nothing: refused, not applied
                        assert!(net.apply_override(&o).is_err());
                        continue;
                    }
                    net.apply_override(&o).unwrap();
                    for a in 0..n {
                        for b in 0..n {
                            if o.from.is_none_or(|f| f == a) && o.to.is_none_or(|t| t == b) {
                                o.apply_to(&mut links[a * n + b]);
                            }
                        }
                    }
                }
                2 => {
                    let groups = vec![(0..n).filter(|_| rng.chance(0.4)).collect::<Vec<_>>()];
                    net.partition(&groups);
                    for a in 0..n {
                        for b in 0..n {
                            let side = |v: NodeId| groups[0].contains(&v);
                            blocked[a * n + b] |= a != b && side(a) != side(b);
                        }
                    }
                }
                _ => {
                    net.heal();
                    blocked.iter_mut().for_each(|b| *b = false);
                }
            }
            for a in 0..n {
                for b in 0..n {
                    assert_eq!(
                        net.link(a, b),
                        &links[a * n + b],
                        "step {step}: link {a}->{b}"
                    );
                    assert_eq!(
                        net.blocked(a, b),
                        blocked[a * n + b],
                        "step {step}: {a}->{b}"
                    );
                }
            }
            // only the links that differ from the default are kept
            assert!(net.special.values().all(|(l, _)| *l != net.default));
        }
    }

    /// A message sent before a cut is lost even when the link is healed before it arrives;
    /// one sent after the heal is not; a one-way cut blocks one direction only.
    #[test]
    fn cut_epochs_catch_messages_in_flight() {
        let mut net = Network::new(3, &NetworkSpec::default()).unwrap();
        let sent = net.cut_epoch();
        net.partition_oneway(&[0], &[2, 1]);
        assert!(net.blocked(0, 1) && !net.blocked(1, 0));
        net.heal();
        assert!(!net.blocked(0, 1));
        assert!(net.cut_since(0, 2, sent) && !net.cut_since(2, 0, sent));
        assert!(!net.cut_since(0, 2, net.cut_epoch()));
        net.block_link(1, 2);
        assert!(net.blocked(1, 2) && !net.cut_since(1, 2, sent));
        net.heal();
        assert!(!net.blocked(1, 2));
    }

    /// The prefetch hint of a reply's link is that link's own FIFO slot on a dense table (the
    /// one a send on it then reads and writes), `None` out of range and on a sparse table.
    #[test]
    fn a_reply_hint_names_the_links_fifo_slot() {
        let mut rng = SimRng::new(1);
        let mut net = Network::new(4, &NetworkSpec::default()).unwrap();
        let Route::Once(at) = net.route(2, 1, 5, &mut rng) else {
            panic!("a plain network delivers once")
        };
        assert_eq!(
            net.fifo_slot_hint(2, 1),
            Some(&at),
            "the send wrote that slot"
        );
        assert_eq!(
            net.fifo_slot_hint(1, 2),
            Some(&0),
            "the reverse link is its own"
        );
        assert_eq!(net.fifo_slot_hint(4, 0), None);
        assert_eq!(net.fifo_slot_hint(usize::MAX, usize::MAX), None);
        let big = Network::new(DENSE_FIFO_MAX_NODES + 1, &NetworkSpec::default()).unwrap();
        assert_eq!(big.fifo_slot_hint(0, 1), None);
    }

    /// 10,000 nodes on the complete topology: no `n × n` table is built, a neighbour list
    /// only for the node that asks, and routes and overrides stay per node.
    #[test]
    fn a_complete_network_of_ten_thousand_nodes_keeps_no_pair_table() {
        let n = 10_000;
        let mut net = Network::new(n, &NetworkSpec::default()).unwrap();
        assert!(matches!(net.fifo, Fifo::Sparse(_)));
        let mut seen = Vec::new();
        net.adjacency().for_each_neighbour(7, |b| seen.push(b));
        assert_eq!(seen.len(), n - 1);
        assert!(net.adjacency.complete.iter().all(|c| c.get().is_none()));
        assert_eq!(net.neighbours(7), &seen[..]);
        assert_eq!(
            net.adjacency
                .complete
                .iter()
                .filter(|c| c.get().is_some())
                .count(),
            1
        );
        let mut rng = SimRng::new(1);
        for b in [0, 8, 9_999] {
            assert!(matches!(net.route(7, b, 0, &mut rng), Route::Once(_)));
        }
        assert!(matches!(
            net.route(7, 7, 0, &mut rng),
            Route::Dropped(DropReason::NoLink)
        ));
        net.apply_override(&LinkOverride::latency_from(
            3,
            Latency::Constant { ms: 9.0 },
        ))
        .unwrap();
        assert_eq!(net.special.len(), n);
        assert_eq!(net.link(3, 4).latency, Latency::Constant { ms: 9.0 });
        assert_eq!(net.link(4, 3).latency, Latency::default());
        net.apply_override(&LinkOverride::latency_from(3, Latency::default()))
            .unwrap();
        assert!(
            net.special.is_empty(),
            "a restored link is the default again"
        );
        net.partition(&[vec![0, 1]]);
        assert!(net.blocked(0, 5_000) && !net.blocked(5_000, 9_000) && !net.blocked(1, 0));
    }

    #[test]
    fn adjacency_of_each_topology() {
        let ring = Adjacency::new(2, &Topology::Ring).unwrap();
        assert_eq!(ring.neighbours(0), &[1]);
        assert!(ring.contains(1, 0) && !ring.contains(0, 0) && !ring.contains(0, 2));
        let g = Topology::Graph {
            edges: vec![[0, 1], [1, 0], [2, 3]],
        };
        let adj = Adjacency::new(4, &g).unwrap();
        assert_eq!(adj.neighbours(1), &[0]);
        assert!(!adj.is_connected());
        let g = Topology::Graph {
            edges: vec![[0, 1], [1, 2], [3, 2]],
        };
        assert!(Adjacency::new(4, &g).unwrap().is_connected());
        assert!(Adjacency::new(5, &Topology::Complete)
            .unwrap()
            .is_connected());
        let bad = Topology::Graph {
            edges: vec![[1, 1]],
        };
        assert!(Adjacency::new(3, &bad).unwrap_err().contains("self-loop"));
    }

    #[test]
    fn exponential_tail_is_capped() {
        let lat = Latency::Exponential {
            min_ms: 1.0,
            mean_ms: 5.0,
            max_ms: 20.0,
        };
        let mut rng = SimRng::new(9);
        let xs: Vec<u64> = (0..10_000).map(|_| lat.sample_ns(&mut rng)).collect();
        assert!(xs.iter().all(|&x| (1_000_000..=20_000_000).contains(&x)));
        let mean = xs.iter().sum::<u64>() as f64 / xs.len() as f64 / 1e6;
        assert!((4.0..6.0).contains(&mean), "mean {mean}");
        assert!(Latency::Uniform {
            min_ms: 3.0,
            max_ms: 1.0
        }
        .validate()
        .is_err());
    }
}
