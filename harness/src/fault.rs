//! The fault plan: timed partitions, heals, crashes, restarts, pauses, clock faults and link
//! changes, and each algorithm's declared fault model.

use crate::net::{Latency, LinkOverride};
use crate::scenario::Scenario;
use crate::NodeId;
use serde::{Deserialize, Serialize};

/// One fault, applied at a global time by the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Splits the nodes into groups (unlisted nodes form one more group); links between groups
    /// are cut both ways.
    Partition {
        /// The groups.
        groups: Vec<Vec<NodeId>>,
    },
    /// Cuts the links from every node of `from` to every node of `to`, one way only.
    PartitionOneway {
        /// Senders whose messages are cut.
        from: Vec<NodeId>,
        /// Receivers that no longer hear them.
        to: Vec<NodeId>,
    },
    /// Repairs every partition.
    Heal,
    /// The node stops: its volatile state and timers are lost, messages to it are dropped.
    Crash {
        /// The node.
        node: NodeId,
    },
    /// The node starts again from scratch (amnesia); its stable storage is kept. A crashed
    /// node recovers; a running one is rebooted: its volatile state and timers are lost as in a
    /// [`Fault::Crash`], at the same instant, and the trace holds this `Restart` alone, with no
    /// `Crash` before it. A checker that forgets what a crashed node held must forget it on a
    /// `Restart` as well.
    Restart {
        /// The node.
        node: NodeId,
    },
    /// The node stops taking steps (a slow process): deliveries, timers and inputs wait.
    Pause {
        /// The node.
        node: NodeId,
    },
    /// A paused node catches up on what waited, in order.
    Resume {
        /// The node.
        node: NodeId,
    },
    /// The node's hardware clock jumps by `delta_ms` (negative: backwards).
    ClockJump {
        /// The node.
        node: NodeId,
        /// Size of the jump.
        delta_ms: f64,
    },
    /// The node's hardware clock drift becomes `drift_ppm`.
    DriftChange {
        /// The node.
        node: NodeId,
        /// The new drift, parts per million.
        drift_ppm: f64,
    },
    /// Changes latency or loss (or duplication, reordering) of some links.
    SetLinks(Box<LinkOverride>),
}

impl Fault {
    /// The node this fault is about, if one.
    pub fn node(&self) -> Option<NodeId> {
        match *self {
            Fault::Crash { node }
            | Fault::Restart { node }
            | Fault::Pause { node }
            | Fault::Resume { node }
            | Fault::ClockJump { node, .. }
            | Fault::DriftChange { node, .. } => Some(node),
            _ => None,
        }
    }

    /// The nodes this fault is about, as the views draw and filter it: a node's own fault
    /// its node, a one-way partition its two sides, a change of one link its two ends. Empty
    /// for a fault of the whole network: a partition, a heal, a link change with an end left
    /// open (every node).
    pub fn nodes_about(&self) -> Vec<NodeId> {
        match self {
            Fault::PartitionOneway { from, to } => from.iter().chain(to).copied().collect(),
            Fault::SetLinks(o) => o.from.zip(o.to).map_or_else(Vec::new, |(a, b)| vec![a, b]),
            f => f.node().into_iter().collect(),
        }
    }

    /// Whether this is a partition that cuts no link among `n` nodes: groups that, with the
    /// nodes none of them lists (one more group), make a single group, or a one-way cut with
    /// an empty side. Every other fault is false.
    pub fn cuts_nothing(&self, n: usize) -> bool {
        match self {
            Fault::Partition { groups } => {
                let listed: usize = groups.iter().map(Vec::len).sum();
                let nonempty = groups.iter().filter(|g| !g.is_empty()).count();
                nonempty + usize::from(listed < n) <= 1
            }
            Fault::PartitionOneway { from, to } => from.is_empty() || to.is_empty(),
            _ => false,
        }
    }

    /// Checks node ids and values against a run of `n` nodes with drift bound `rho_ppm`.
    pub fn validate(&self, n: usize, rho_ppm: f64) -> Result<(), String> {
        let check = |v: NodeId| {
            if v < n {
                Ok(())
            } else {
                Err(format!("node {v} does not exist (nodes = {n})"))
            }
        };
        match self {
            Fault::Partition { groups } => {
                let mut seen = vec![false; n];
                for (i, g) in groups.iter().enumerate() {
                    if g.is_empty() {
                        return Err(format!("partition.groups[{i}] is empty"));
                    }
                    for &m in g {
                        check(m)?;
                        if std::mem::replace(&mut seen[m], true) {
                            return Err(format!("node {m} is in two partition groups"));
                        }
                    }
                }
                if self.cuts_nothing(n) {
                    return Err(format!(
                        "partition {} cuts no link: every node is in one group (the nodes no \
                         group lists form one more group; nodes = {n})",
                        serde_json::to_string(groups).unwrap_or_default()
                    ));
                }
                Ok(())
            }
            Fault::PartitionOneway { from, to } => {
                for (side, list) in [("from", from), ("to", to)] {
                    if list.is_empty() {
                        return Err(format!("partition_oneway.{side} is empty: it cuts no link"));
                    }
                    for (i, &m) in list.iter().enumerate() {
                        check(m)?;
                        if list[..i].contains(&m) {
                            return Err(format!("partition_oneway.{side} lists node {m} twice"));
                        }
                    }
                }
                // a node is never cut from itself: on both sides it cuts nothing of its own
                match from.iter().find(|m| to.contains(m)) {
                    Some(m) => Err(format!(
                        "partition_oneway: node {m} is on both sides (from and to)"
                    )),
                    None => Ok(()),
                }
            }
            Fault::Heal => Ok(()),
            Fault::ClockJump { node, delta_ms } => {
                check(*node)?;
                let max = crate::MAX_TIME_MS as f64;
                if delta_ms.is_finite() && delta_ms.abs() <= max {
                    Ok(())
                } else {
                    Err(format!(
                        "clock_jump.delta_ms = {} is outside [-{max}, {max}] ms (the limit on any time)",
                        crate::show_f64(*delta_ms)
                    ))
                }
            }
            Fault::DriftChange { node, drift_ppm } => {
                check(*node)?;
                if drift_ppm.is_finite() && drift_ppm.abs() <= rho_ppm {
                    Ok(())
                } else {
                    Err(format!(
                        "drift_change.drift_ppm = {} exceeds the bound clocks.rho_ppm = {}",
                        crate::show_f64(*drift_ppm),
                        crate::show_f64(rho_ppm)
                    ))
                }
            }
            Fault::SetLinks(o) => o.validate(n).map_err(|e| format!("set_links: {e}")),
            Fault::Crash { node }
            | Fault::Restart { node }
            | Fault::Pause { node }
            | Fault::Resume { node } => check(*node),
        }
    }

    /// The fault class, for swarm testing and the fault-tolerance matrix.
    pub fn class(&self) -> FaultClass {
        match self {
            Fault::Partition { .. } | Fault::Heal => FaultClass::Partitions,
            Fault::PartitionOneway { .. } => FaultClass::OnewayPartitions,
            Fault::Crash { .. } | Fault::Restart { .. } => FaultClass::Crashes,
            Fault::Pause { .. } | Fault::Resume { .. } => FaultClass::Pauses,
            Fault::ClockJump { .. } => FaultClass::ClockJumps,
            Fault::DriftChange { .. } => FaultClass::ClockDrift,
            Fault::SetLinks(o) if o.loss.is_some_and(|p| p > 0.0) => FaultClass::Loss,
            Fault::SetLinks(o) if o.duplicate.is_some_and(|p| p > 0.0) => FaultClass::Duplication,
            Fault::SetLinks(o) if o.reorder.is_some_and(|p| p > 0.0) => FaultClass::Reordering,
            Fault::SetLinks(_) => FaultClass::Delays,
        }
    }
}

/// Whether `faults`, in time order, leave one in effect at the end: a pause never resumed
/// (a crash or a restart of the paused node ends its pause) or a partition never healed.
/// Liveness is judged from when the faults stop, which such a plan never does
/// ([`Scenario::quiet_from_ms`](crate::Scenario::quiet_from_ms)).
pub fn in_effect_at_the_end<'a>(faults: impl IntoIterator<Item = &'a Fault>) -> bool {
    // The nodes paused, each once: a plan pauses a few at a time, so a vector's search is
    // cheaper than a set's (generation asks this for every plan it proposes).
    let mut paused: Vec<NodeId> = Vec::new();
    let mut partitioned = false;
    for f in faults {
        match f {
            Fault::Pause { node } if !paused.contains(node) => paused.push(*node),
            Fault::Resume { node } | Fault::Crash { node } | Fault::Restart { node } => {
                paused.retain(|p| p != node);
            }
            Fault::Partition { .. } | Fault::PartitionOneway { .. } => partitioned = true,
            Fault::Heal => partitioned = false,
            _ => {}
        }
    }
    !paused.is_empty() || partitioned
}

/// A fault and when it happens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedFault {
    /// Global time of the fault, ms from the start of the run.
    pub at_ms: u64,
    /// What happens.
    pub fault: Fault,
}

/// The classes of faults an algorithm may or may not tolerate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultClass {
    /// Variable message delays (always on: latency distributions).
    Delays,
    /// Message loss.
    Loss,
    /// Message duplication.
    Duplication,
    /// Non-FIFO links.
    Reordering,
    /// Two-way partitions (healed later).
    Partitions,
    /// One-way partitions.
    OnewayPartitions,
    /// Crashes, with restart from stable storage (amnesia of volatile state).
    Crashes,
    /// Slow processes (pause, then resume).
    Pauses,
    /// Clock drift within rho.
    ClockDrift,
    /// Clock step jumps.
    ClockJumps,
    /// Delay spikes: for a while every message a node sends takes far longer than the latency
    /// distribution's bound (a congested or slow link). Timeouts sized for the usual latency then
    /// misfire: a token or a reply is late, not lost. (In a scenario file a spike is a
    /// `set_links` latency override; by itself such an override counts as
    /// [`FaultClass::Delays`], and in a scenario, past the network's latency bound, as a spike:
    /// [`Scenario::fault_classes`](crate::Scenario::fault_classes).)
    DelaySpikes,
    /// Crash-stop: a node crashes and never restarts (it stays dead to the end of the run).
    /// A model that tolerates it promises its properties to the live nodes with some nodes
    /// gone for good; [`FaultClass::Crashes`] alone promises them only once crashed nodes are
    /// back.
    CrashStop,
}

impl FaultClass {
    /// Every class, in a fixed order.
    pub const ALL: [FaultClass; 12] = [
        FaultClass::Delays,
        FaultClass::Loss,
        FaultClass::Duplication,
        FaultClass::Reordering,
        FaultClass::Partitions,
        FaultClass::OnewayPartitions,
        FaultClass::Crashes,
        FaultClass::Pauses,
        FaultClass::ClockDrift,
        FaultClass::ClockJumps,
        FaultClass::DelaySpikes,
        FaultClass::CrashStop,
    ];

    /// Snake-case name, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            FaultClass::Delays => "delays",
            FaultClass::Loss => "loss",
            FaultClass::Duplication => "duplication",
            FaultClass::Reordering => "reordering",
            FaultClass::Partitions => "partitions",
            FaultClass::OnewayPartitions => "oneway_partitions",
            FaultClass::Crashes => "crashes",
            FaultClass::Pauses => "pauses",
            FaultClass::ClockDrift => "clock_drift",
            FaultClass::ClockJumps => "clock_jumps",
            FaultClass::DelaySpikes => "delay_spikes",
            FaultClass::CrashStop => "crash_stop",
        }
    }
}

/// The faults an algorithm declares it tolerates: fuzzing inside this model must never find a
/// violation of a declared property.
///
/// Write it as a struct literal ending in `..FaultModel::default()`, so the optional caps
/// keep their defaults unless the model names them:
///
/// ```
/// use sincro_harness::fault::{FaultClass, FaultModel};
/// let model = FaultModel {
///     tolerates: vec![FaultClass::Loss, FaultClass::ClockDrift],
///     summary: "loss, and drift up to 100 ppm",
///     drift_ppm_max: Some(100),
///     ..FaultModel::default()
/// };
/// assert!(model.allows(FaultClass::ClockDrift));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FaultModel {
    /// Tolerated fault classes.
    pub tolerates: Vec<FaultClass>,
    /// One sentence on the assumptions (for `sincro list` and the docs).
    pub summary: &'static str,
    /// The largest clock drift the model tolerates, ppm (`None`: whatever the generator
    /// draws, at most [`GEN_DRIFT_PPM_MAX`]). Generated scenarios are brought inside it
    /// ([`FaultModel::fit_clocks`]): the drift bound `clocks.rho_ppm` is lowered to it and
    /// every drift scaled with it.
    pub drift_ppm_max: Option<u32>,
    /// The largest clock jump the model tolerates, ms (`None`: whatever the generator draws,
    /// at most [`GEN_CLOCK_JUMP_MS_MAX`]). Generated jumps are scaled by
    /// `clock_jump_ms_max / GEN_CLOCK_JUMP_MS_MAX` (so small and large ones stay apart) and
    /// clamped to it.
    pub clock_jump_ms_max: Option<u32>,
    /// Liveness is promised only while a majority of the nodes is up (a quorum protocol):
    /// a node is then left crashed for good ([`FaultClass::CrashStop`]) only when the others
    /// are a majority, 3 nodes or more ([`FaultModel::crash_stop_allowed`]). Without it, a
    /// generated 2-node scenario whose one node stopped for good failed a correct quorum
    /// election's liveness.
    pub majority_for_liveness: bool,
}

/// The largest drift bound the generator draws, ppm (it draws 10, 100 or 1000).
pub const GEN_DRIFT_PPM_MAX: u32 = 1_000;
/// The largest clock jump the generator draws, ms (it draws 1 to 500, either sign).
pub const GEN_CLOCK_JUMP_MS_MAX: u32 = 500;

impl FaultModel {
    /// True when `class` is inside the model.
    pub fn allows(&self, class: FaultClass) -> bool {
        class == FaultClass::Delays || self.tolerates.contains(&class)
    }

    /// True when a run of `nodes` nodes may leave one crashed for good inside the model: it
    /// tolerates crash-stop and, if its liveness needs a majority up
    /// ([`FaultModel::majority_for_liveness`]), the others are one.
    pub fn crash_stop_allowed(&self, nodes: usize) -> bool {
        self.allows(FaultClass::CrashStop)
            && (!self.majority_for_liveness || nodes.saturating_sub(1) > nodes / 2)
    }

    /// Brings a generated scenario's clocks inside the model's caps: a drift bound above
    /// [`FaultModel::drift_ppm_max`] is lowered to it, and every per-node drift and drift
    /// change scaled by the same factor; clock jumps are scaled by
    /// `clock_jump_ms_max / GEN_CLOCK_JUMP_MS_MAX` and clamped to the cap. Without caps it
    /// changes nothing. The generator calls it on every scenario it draws (the workload and
    /// the algorithm's own completion come after), so a generated scenario never holds a
    /// clock fault larger than the model tolerates.
    pub fn fit_clocks(&self, sc: &mut Scenario) {
        if let Some(cap) = self.drift_ppm_max {
            let cap = f64::from(cap);
            if sc.clocks.rho_ppm > cap {
                let scale = cap / sc.clocks.rho_ppm;
                sc.clocks.rho_ppm = cap;
                for nc in &mut sc.clocks.nodes {
                    nc.drift_ppm = (nc.drift_ppm * scale).clamp(-cap, cap);
                }
                for f in &mut sc.faults {
                    if let Fault::DriftChange { drift_ppm, .. } = &mut f.fault {
                        *drift_ppm = (*drift_ppm * scale).clamp(-cap, cap);
                    }
                }
            }
        }
        if let Some(cap) = self.clock_jump_ms_max {
            let cap = f64::from(cap);
            let scale = (cap / f64::from(GEN_CLOCK_JUMP_MS_MAX)).min(1.0);
            for f in &mut sc.faults {
                if let Fault::ClockJump { delta_ms, .. } = &mut f.fault {
                    *delta_ms = (*delta_ms * scale).clamp(-cap, cap);
                }
            }
        }
    }
}

/// A latency shorthand used by generators.
pub fn uniform_ms(min_ms: f64, max_ms: f64) -> Latency {
    Latency::Uniform { min_ms, max_ms }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_never_resumed_or_a_partition_never_healed_is_in_effect_at_the_end() {
        let pause = |node| Fault::Pause { node };
        let resume = |node| Fault::Resume { node };
        let part = || Fault::Partition {
            groups: vec![vec![0], vec![1]],
        };
        for (plan, want) in [
            (vec![], false),
            (vec![pause(1)], true),
            (vec![pause(1), resume(1)], false),
            (vec![pause(1), pause(1), resume(1)], false),
            (vec![pause(1), pause(2), resume(1)], true),
            (vec![pause(2), Fault::Crash { node: 2 }], false),
            (vec![pause(2), Fault::Restart { node: 2 }], false),
            (vec![resume(1), pause(1)], true),
            (vec![part()], true),
            (vec![part(), Fault::Heal], false),
            (vec![Fault::Heal, part()], true),
            (vec![part(), Fault::Heal, pause(0)], true),
        ] {
            assert_eq!(in_effect_at_the_end(&plan), want, "{plan:?}");
        }
        // Against a set, over random plans of pauses and their ends.
        for seed in 0..200 {
            let mut rng = crate::SimRng::new(seed);
            let plan: Vec<Fault> = (0..rng.index(20))
                .map(|_| {
                    let node = rng.index(4);
                    match rng.index(4) {
                        0 | 1 => pause(node),
                        2 => resume(node),
                        _ => Fault::Crash { node },
                    }
                })
                .collect();
            let mut set = std::collections::BTreeSet::new();
            for f in &plan {
                match f {
                    Fault::Pause { node } => set.insert(*node),
                    Fault::Resume { node } | Fault::Crash { node } => set.remove(node),
                    _ => unreachable!(),
                };
            }
            assert_eq!(in_effect_at_the_end(&plan), !set.is_empty(), "{plan:?}");
        }
    }

    #[test]
    fn a_partition_that_cuts_no_link_is_refused() {
        let groups = |g: Vec<Vec<NodeId>>| Fault::Partition { groups: g }.validate(3, 0.0);
        let oneway = |from: Vec<NodeId>, to: Vec<NodeId>| {
            Fault::PartitionOneway { from, to }.validate(3, 0.0)
        };
        // cuts: one node alone, two groups, every node listed in two groups
        groups(vec![vec![1]]).unwrap();
        groups(vec![vec![0], vec![1]]).unwrap();
        groups(vec![vec![0, 1], vec![2]]).unwrap();
        oneway(vec![0], vec![1, 2]).unwrap();
        // cuts nothing
        let e = groups(vec![]).unwrap_err();
        assert!(e.contains("cuts no link"), "{e}");
        let e = groups(vec![vec![0, 1, 2]]).unwrap_err();
        assert!(e.contains("cuts no link"), "{e}");
        assert!(Fault::Partition {
            groups: vec![vec![0]]
        }
        .validate(1, 0.0)
        .is_err());
        let e = groups(vec![vec![0], vec![]]).unwrap_err();
        assert!(e.contains("partition.groups[1] is empty"), "{e}");
        let e = oneway(vec![], vec![1]).unwrap_err();
        assert!(e.contains("partition_oneway.from is empty"), "{e}");
        let e = oneway(vec![0], vec![]).unwrap_err();
        assert!(e.contains("partition_oneway.to is empty"), "{e}");
        let e = oneway(vec![0], vec![1, 1]).unwrap_err();
        assert!(e.contains("partition_oneway.to lists node 1 twice"), "{e}");
    }

    #[test]
    fn json_shape_and_validation() {
        let f: TimedFault =
            serde_json::from_str(r#"{"at_ms": 5, "fault": {"crash": {"node": 1}}}"#).unwrap();
        assert_eq!(f.fault, Fault::Crash { node: 1 });
        let h: TimedFault = serde_json::from_str(r#"{"at_ms": 9, "fault": "heal"}"#).unwrap();
        assert_eq!(h.fault, Fault::Heal);
        assert!(Fault::Crash { node: 3 }
            .validate(3, 0.0)
            .unwrap_err()
            .contains("node 3"));
        let p = Fault::Partition {
            groups: vec![vec![0, 1], vec![1]],
        };
        assert!(p
            .validate(3, 0.0)
            .unwrap_err()
            .contains("two partition groups"));
        assert!(Fault::DriftChange {
            node: 0,
            drift_ppm: 50.0
        }
        .validate(1, 10.0)
        .is_err());
        let e =
            serde_json::from_str::<TimedFault>(r#"{"at_ms": 5, "fault": {"crash": {"nod": 1}}}"#)
                .unwrap_err();
        assert!(e.to_string().contains("nod"), "{e}");
    }
}
