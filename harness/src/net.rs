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
                return Err(format!("{name} probability must be within [0, 1], got {p}"));
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
                    return Err(format!("{name} probability must be within [0, 1], got {p}"));
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
            }
        }
        for (i, o) in self.links.iter().enumerate() {
            o.validate(n).map_err(|e| format!("links[{i}]: {e}"))?;
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
}

/// Runtime network state: per-link parameters, partitions and FIFO bookkeeping.
#[derive(Clone, Debug)]
pub struct Network {
    n: usize,
    adjacent: Vec<bool>,
    links: Vec<LinkSpec>,
    rt: Vec<LinkRt>,
    blocked: Vec<bool>,
    last_arrival_ns: Vec<u64>,
    neighbours: Vec<Vec<NodeId>>,
    schedule: crate::schedule::ScheduleRt,
}

impl Network {
    /// Builds the network for `n` nodes; fails on an invalid spec.
    pub fn new(n: usize, spec: &NetworkSpec) -> Result<Self, String> {
        let link = spec.link();
        link.validate()?;
        let mut adjacent = vec![false; n * n];
        match &spec.topology {
            Topology::Complete => {
                for a in 0..n {
                    for b in 0..n {
                        adjacent[a * n + b] = a != b;
                    }
                }
            }
            Topology::Ring => {
                for a in 0..n {
                    for b in [(a + 1) % n, (a + n - 1) % n] {
                        if a != b {
                            adjacent[a * n + b] = true;
                        }
                    }
                }
            }
            Topology::Graph { edges } => {
                for (i, &[a, b]) in edges.iter().enumerate() {
                    if a >= n || b >= n {
                        return Err(format!("network.topology.graph.edges[{i}] = [{a}, {b}] names a node >= nodes ({n})"));
                    }
                    if a == b {
                        return Err(format!(
                            "network.topology.graph.edges[{i}] is a self-loop on node {a}"
                        ));
                    }
                    adjacent[a * n + b] = true;
                    adjacent[b * n + a] = true;
                }
            }
        }
        let neighbours = (0..n)
            .map(|a| (0..n).filter(|&b| adjacent[a * n + b]).collect())
            .collect();
        let mut net = Network {
            n,
            adjacent,
            rt: vec![LinkRt::from(&link); n * n],
            links: vec![link; n * n],
            blocked: vec![false; n * n],
            last_arrival_ns: vec![0; n * n],
            neighbours,
            schedule: Default::default(),
        };
        for (i, o) in spec.links.iter().enumerate() {
            net.apply_override(o)
                .map_err(|e| format!("network.links[{i}]: {e}"))?;
        }
        Ok(net)
    }

    /// Applies a link change (from the scenario or a fault).
    pub fn apply_override(&mut self, o: &LinkOverride) -> Result<(), String> {
        for (what, v) in [("from", o.from), ("to", o.to)] {
            if let Some(v) = v {
                if v >= self.n {
                    return Err(format!("{what} = {v} is not a node (nodes = {})", self.n));
                }
            }
        }
        for a in 0..self.n {
            for b in 0..self.n {
                if o.from.is_some_and(|f| f != a) || o.to.is_some_and(|t| t != b) {
                    continue;
                }
                let l = &mut self.links[a * self.n + b];
                if let Some(lat) = &o.latency {
                    l.latency = lat.clone();
                }
                if let Some(p) = o.loss {
                    l.loss = p;
                }
                if let Some(p) = o.duplicate {
                    l.duplicate = p;
                }
                if let Some(p) = o.reorder {
                    l.reorder = p;
                }
                l.validate()?;
                self.rt[a * self.n + b] = LinkRt::from(&*l);
            }
        }
        Ok(())
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

    /// The nodes `a` has a link to.
    pub fn neighbours(&self, a: NodeId) -> &[NodeId] {
        &self.neighbours[a]
    }

    /// True when the topology has a link from `a` to `b`.
    pub fn adjacent(&self, a: NodeId, b: NodeId) -> bool {
        self.adjacent[a * self.n + b]
    }

    /// The parameters of link `a -> b`.
    pub fn link(&self, a: NodeId, b: NodeId) -> &LinkSpec {
        &self.links[a * self.n + b]
    }

    /// True when a partition blocks `a -> b`.
    pub fn blocked(&self, a: NodeId, b: NodeId) -> bool {
        self.blocked[a * self.n + b]
    }

    /// Blocks or unblocks `a -> b`.
    pub fn set_blocked(&mut self, a: NodeId, b: NodeId, blocked: bool) {
        self.blocked[a * self.n + b] = blocked;
    }

    /// Partitions the nodes into `groups` (nodes not listed form one more group): links between
    /// different groups are blocked both ways; links inside a group are left as they are.
    pub fn partition(&mut self, groups: &[Vec<NodeId>]) {
        let mut group_of = vec![usize::MAX; self.n];
        for (g, members) in groups.iter().enumerate() {
            for &m in members {
                group_of[m] = g;
            }
        }
        for a in 0..self.n {
            for b in 0..self.n {
                if a != b && group_of[a] != group_of[b] {
                    self.set_blocked(a, b, true);
                }
            }
        }
    }

    /// Removes every partition.
    pub fn heal(&mut self) {
        self.blocked.iter_mut().for_each(|b| *b = false);
    }

    /// Decides the fate of a message sent `a -> b` at `now_ns`: `Err(reason)` when it is lost,
    /// otherwise the arrival times (two when duplicated).
    #[inline]
    pub fn route(&mut self, a: NodeId, b: NodeId, now_ns: u64, rng: &mut SimRng) -> Route {
        self.route_text(a, b, now_ns, rng, None)
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
        let i = a * self.n + b;
        // Counted first, so the occurrences match the record's whatever happens to them.
        let recorded = text.and_then(|t| self.schedule.recorded(a, b, t));
        if !self.adjacent[i] {
            return Route::Dropped(DropReason::NoLink);
        }
        if self.blocked[i] {
            return Route::Dropped(DropReason::Partitioned);
        }
        // Drawn even for a recorded message, so the random stream, and with it the delays of
        // the messages the record does not list, stay those of the recorded run.
        let sampled = self.sample_route(i, a, now_ns, rng);
        let Some(delays) = recorded else {
            return sampled;
        };
        // The run's own delays (a FIFO link may have held one past its law's maximum).
        let at = |d: u64| now_ns.saturating_add(d);
        match delays[..] {
            [] => Route::Dropped(DropReason::Loss),
            [d] => Route::Once(at(d)),
            [d, e, ..] => Route::Twice(at(d), at(e)),
        }
    }

    /// Loss, duplication and arrival times of a message on link `i` from the link's law and
    /// the schedule.
    #[inline]
    fn sample_route(&mut self, i: usize, a: NodeId, now_ns: u64, rng: &mut SimRng) -> Route {
        let link = self.rt[i];
        if rng.chance(link.loss) {
            return Route::Dropped(DropReason::Loss);
        }
        let dup = rng.chance(link.duplicate);
        let schedule = &mut self.schedule;
        let last_arrival_ns = &mut self.last_arrival_ns;
        let mut arrival = |rng: &mut SimRng| {
            let lat = schedule.delay_ns(a, now_ns, link.latency.bounds(), rng, |rng| {
                link.latency.sample(rng)
            });
            let mut at = now_ns.saturating_add(lat);
            if !rng.chance(link.reorder) {
                at = at.max(last_arrival_ns[i]);
                last_arrival_ns[i] = at;
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
