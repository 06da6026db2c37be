//! Schedule strategies: how a run orders the deliveries of concurrent messages.
//!
//! A scenario's [`Schedule`] decides each delivered message's delay *inside its link's latency
//! bounds* (never outside them: a strategy reorders, it does not invent slower links than the
//! scenario declares). It is recorded in the scenario, so a run replays exactly.
//!
//! * [`Schedule::Random`] (the default): every delay is drawn from the link's latency law.
//! * [`Schedule::Pct`]: PCT-style priorities (Burckhardt et al., *A randomized scheduler with
//!   probabilistic guarantees of finding bugs*, ASPLOS 2010), carried over to timed
//!   deliveries. Every node has a priority; a message sent by the node of rank `r` (0 the
//!   highest, `n - 1` the lowest) takes `min + (max - min) · r / (n - 1)` of its link's
//!   bounds, so the messages of high-priority nodes overtake those of low-priority ones
//!   whenever they race. At each of the `d - 1` change points the node then on top drops
//!   below every node not yet demoted (the `i`-th demoted node takes priority `i` of PCT,
//!   under all the initial ones). A bug of depth `d` — `d` orderings that must all go one
//!   way — then shows with a probability that does not shrink with the run's length, where
//!   independent random delays make it exponentially unlikely.
//! * [`Schedule::Pos`]: partial-order sampling (Yuan et al., CAV 2018), carried over the same
//!   way: every delivery gets an independent priority, uniform over the link's bounds, whatever
//!   the shape of the latency law. Where a law puts most of its mass near the minimum (the
//!   exponential one), random delays rarely reorder racing messages; here every order of
//!   racing messages is as likely as any other.
//!
//! Node-level strategies (faults injected at protocol moments) live with the algorithms,
//! which can run a pilot of the scenario: see `sincro_algorithms::moments`.

use crate::rng::SimRng;
use crate::NodeId;
use serde::{Deserialize, Serialize};

/// How a run orders concurrent deliveries (see the [module](self) documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Schedule {
    /// Every delay drawn from its link's latency law.
    #[default]
    Random,
    /// PCT-style node priorities with change points.
    Pct(Pct),
    /// Partial-order sampling: every delay uniform over its link's bounds.
    Pos,
    /// The fates of a recorded run's messages, replayed where the same message is sent
    /// again (see [`Recorded`]); other messages get delays from their link's law. The
    /// shrinker pins a failure's schedule this way, so removing an input or a fault does not
    /// redraw every other delay. A fate is replayed only as far as the scenario allows it at
    /// the send: no loss on a link that loses nothing, no second copy on one that
    /// duplicates nothing, a delay clamped to the link's latency bounds (or its FIFO hold),
    /// so a record never carries a fault the scenario does not declare.
    Recorded(Vec<Recorded>),
}

/// One recorded message: the `nth` (from 0) message with this exact rendering sent `from` ->
/// `to`, and the delays after which its copies arrived (none: lost; two: duplicated).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    /// Sender.
    pub from: NodeId,
    /// Destination.
    pub to: NodeId,
    /// The message as rendered in traces (`Debug`).
    pub msg: String,
    /// Its number among the messages `from` sent `to` with this rendering (0 first).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub nth: u32,
    /// Delay of each arrival, ns, as the recorded run had it.
    pub delays_ns: Vec<u64>,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

/// The most messages a [`Schedule::Recorded`] may list.
pub const MAX_RECORDED: usize = 1_000_000;

/// The parameters of a [`Schedule::Pct`] run, all recorded so the run replays exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pct {
    /// Nodes from the highest priority down. Nodes not listed come after the listed ones, in
    /// id order (so removing a node, as the shrinker does, keeps the others' order).
    pub priorities: Vec<NodeId>,
    /// Global times (ms) at which the node then on top is demoted (the PCT change points:
    /// `d - 1` of them for depth `d`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub change_points_ms: Vec<u64>,
}

/// The most change points a [`Pct`] schedule may name.
pub const MAX_CHANGE_POINTS: usize = 64;

impl Schedule {
    /// Checks the schedule against a run of `nodes` nodes; the error names the field.
    pub fn validate(&self, nodes: usize) -> Result<(), String> {
        if let Schedule::Recorded(list) = self {
            if list.len() > MAX_RECORDED {
                return Err(format!(
                    "schedule.recorded lists {} messages, above the limit of {MAX_RECORDED}",
                    list.len()
                ));
            }
            // one message listed twice: which fate it gets would be the list's order
            let mut seen = std::collections::BTreeMap::new();
            for (i, r) in list.iter().enumerate() {
                if let Some(j) = seen.insert((r.from, r.to, r.msg.as_str(), r.nth), i) {
                    return Err(format!(
                        "schedule.recorded[{i}] repeats schedule.recorded[{j}] (message {:?} \
                         #{} from {} to {}): each message has one recorded fate",
                        r.msg, r.nth, r.from, r.to
                    ));
                }
                if r.from >= nodes || r.to >= nodes {
                    return Err(format!(
                        "schedule.recorded[{i}] names a node >= nodes ({nodes}): {} -> {}",
                        r.from, r.to
                    ));
                }
                if r.from == r.to {
                    return Err(format!(
                        "schedule.recorded[{i}] is from node {} to itself: a node's messages to \
                         itself do not cross the network, so they have no recorded fate",
                        r.from
                    ));
                }
                if r.delays_ns.len() > 2 {
                    return Err(format!(
                        "schedule.recorded[{i}] has {} arrivals (at most 2: a duplicate)",
                        r.delays_ns.len()
                    ));
                }
                if let Some(d) = r
                    .delays_ns
                    .iter()
                    .find(|&&d| d > crate::MAX_TIME_MS * 1_000_000)
                {
                    return Err(format!(
                        "schedule.recorded[{i}] has a delay of {d} ns, above the longest run"
                    ));
                }
            }
            return Ok(());
        }
        let Schedule::Pct(p) = self else {
            return Ok(());
        };
        let mut seen = vec![false; nodes];
        for (i, &v) in p.priorities.iter().enumerate() {
            if v >= nodes {
                return Err(format!(
                    "schedule.pct.priorities[{i}] = {v} is not a node (nodes = {nodes})"
                ));
            }
            if std::mem::replace(&mut seen[v], true) {
                return Err(format!(
                    "schedule.pct.priorities[{i}] = {v} names node {v} twice"
                ));
            }
        }
        if p.change_points_ms.len() > MAX_CHANGE_POINTS {
            return Err(format!(
                "schedule.pct.change_points_ms has {} entries, above the limit of {MAX_CHANGE_POINTS}",
                p.change_points_ms.len()
            ));
        }
        if let Some(&t) = p.change_points_ms.iter().find(|&&t| t > crate::MAX_TIME_MS) {
            return Err(format!(
                "schedule.pct.change_points_ms has {t}, above the longest run ({} ms)",
                crate::MAX_TIME_MS
            ));
        }
        Ok(())
    }

    /// A short name for summaries: `random`, `pct(d=3)`, `pos`.
    pub fn label(&self) -> String {
        match self {
            Schedule::Random => "random".into(),
            Schedule::Pct(p) => format!("pct(d={})", p.change_points_ms.len() + 1),
            Schedule::Pos => "pos".into(),
            Schedule::Recorded(list) => format!("recorded({} messages)", list.len()),
        }
    }

    /// The schedule of `trace`'s run: every message that arrived (its delays) or was lost by
    /// its link, keyed by sender, destination, rendering and occurrence. Messages dropped for
    /// another reason at send time (no link, a partition, the in-flight limit), sent to
    /// themselves, or still in flight at the end are left to the network.
    pub fn record(trace: &crate::Trace) -> Schedule {
        use crate::net::DropReason;
        use crate::EventKind;
        use std::collections::BTreeMap;
        // msg_id -> (index in `out`, send time)
        let mut sent: BTreeMap<u64, (usize, u64)> = BTreeMap::new();
        let mut seen: BTreeMap<(NodeId, NodeId, &str), u32> = BTreeMap::new();
        let mut out: Vec<(Recorded, bool)> = Vec::new(); // (entry, fate known)
                                                         // A message that reached a paused node waits there, and is delivered (or dropped)
                                                         // when the node is resumed, crashed or restarted: its arrival time is not in the
                                                         // trace, and the release time as a delay would replay another order. Left out of the
                                                         // record, it is drawn again from the seed: in the scenario recorded, its own arrival.
        let mut paused: std::collections::BTreeSet<NodeId> = Default::default();
        let mut released_at: BTreeMap<NodeId, u64> = BTreeMap::new();
        let held = |released_at: &BTreeMap<NodeId, u64>, node: NodeId, t: u64| {
            released_at.get(&node) == Some(&t)
        };
        for e in trace.events() {
            match &e.kind {
                EventKind::Fault { fault } => match *fault {
                    crate::Fault::Pause { node } => {
                        paused.insert(node);
                    }
                    crate::Fault::Resume { node }
                    | crate::Fault::Crash { node }
                    | crate::Fault::Restart { node }
                        if paused.remove(&node) =>
                    {
                        released_at.insert(node, e.t_ns);
                    }
                    _ => {}
                },
                EventKind::Send { msg_id, to, msg } => {
                    let Some(from) = e.node else { continue };
                    if from == *to {
                        continue;
                    }
                    let nth = seen.entry((from, *to, msg)).or_default();
                    sent.insert(*msg_id, (out.len(), e.t_ns));
                    out.push((
                        Recorded {
                            from,
                            to: *to,
                            msg: msg.to_string(),
                            nth: *nth,
                            delays_ns: Vec::new(),
                        },
                        false,
                    ));
                    *nth += 1;
                }
                EventKind::Deliver { msg_id, .. } => {
                    if e.node.is_some_and(|x| held(&released_at, x, e.t_ns)) {
                        continue;
                    }
                    if let Some(&(i, t)) = sent.get(msg_id) {
                        out[i].0.delays_ns.push(e.t_ns.saturating_sub(t));
                        out[i].1 = true;
                    }
                }
                EventKind::Drop {
                    msg_id, reason, to, ..
                } => {
                    let Some(&(i, t)) = sent.get(msg_id) else {
                        continue;
                    };
                    if *reason == DropReason::DestinationCrashed && held(&released_at, *to, e.t_ns)
                    {
                        continue;
                    }
                    match reason {
                        DropReason::Loss => out[i].1 = true,
                        DropReason::DestinationCrashed | DropReason::Partitioned if e.t_ns > t => {
                            // Dropped on arrival: it did arrive after this delay.
                            out[i].0.delays_ns.push(e.t_ns - t);
                            out[i].1 = true;
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        Schedule::Recorded(
            out.into_iter()
                .filter(|(r, known)| *known && r.delays_ns.len() <= 2)
                .map(|(r, _)| r)
                .collect(),
        )
    }

    /// True for the default [`Schedule::Random`].
    pub fn is_random(&self) -> bool {
        *self == Schedule::Random
    }

    /// A PCT schedule of depth `depth` (at least 1) for `nodes` nodes: a random priority
    /// order and `depth - 1` change points inside `[0, active_ms)`, drawn from `rng`.
    pub fn draw_pct(rng: &mut SimRng, nodes: usize, depth: usize, active_ms: u64) -> Schedule {
        let mut priorities: Vec<NodeId> = (0..nodes).collect();
        for i in (1..priorities.len()).rev() {
            priorities.swap(i, rng.index(i + 1));
        }
        let mut change_points_ms: Vec<u64> = (1..depth.max(1))
            .map(|_| rng.range_u64(0, active_ms.max(1) - 1))
            .collect();
        change_points_ms.sort_unstable();
        Schedule::Pct(Pct {
            priorities,
            change_points_ms,
        })
    }
}

/// The runtime form of a schedule, kept by the network.
#[derive(Clone, Debug, Default)]
pub(crate) enum ScheduleRt {
    /// Delays from the latency law.
    #[default]
    Random,
    /// PCT: the current order and the change points still to come.
    Pct {
        /// Nodes from the highest priority down.
        order: Vec<NodeId>,
        /// `rank[v]`: position of `v` in `order`.
        rank: Vec<usize>,
        /// Change points, ns, ascending.
        change_points_ns: Vec<u64>,
        /// How many change points were applied.
        applied: usize,
    },
    /// Uniform over the link's bounds.
    Pos,
    /// Recorded fates by (from, to, rendering, nth), and how many of each were sent so far.
    Recorded {
        fates: std::collections::BTreeMap<(NodeId, NodeId, String, u32), Vec<u64>>,
        sent: std::collections::BTreeMap<(NodeId, NodeId, String), u32>,
    },
}

impl ScheduleRt {
    /// True when routing needs each message's rendering ([`ScheduleRt::recorded`]).
    pub(crate) fn wants_text(&self) -> bool {
        matches!(self, ScheduleRt::Recorded { .. })
    }

    /// The recorded arrivals' delays of the message `text` sent `from` -> `to`, if this
    /// schedule recorded it (counts it as sent either way).
    pub(crate) fn recorded(&mut self, from: NodeId, to: NodeId, text: &str) -> Option<Vec<u64>> {
        let ScheduleRt::Recorded { fates, sent } = self else {
            return None;
        };
        let key = (from, to, text.to_string());
        let nth = sent.entry(key.clone()).or_default();
        let k = *nth;
        *nth += 1;
        fates.remove(&(key.0, key.1, key.2, k))
    }

    /// The runtime state of `schedule` for `nodes` nodes (the schedule was validated).
    pub(crate) fn new(schedule: &Schedule, nodes: usize) -> Self {
        match schedule {
            Schedule::Random => ScheduleRt::Random,
            Schedule::Pos => ScheduleRt::Pos,
            Schedule::Recorded(list) => ScheduleRt::Recorded {
                fates: list
                    .iter()
                    .map(|r| ((r.from, r.to, r.msg.clone(), r.nth), r.delays_ns.clone()))
                    .collect(),
                sent: Default::default(),
            },
            Schedule::Pct(p) => {
                let mut order: Vec<NodeId> = p
                    .priorities
                    .iter()
                    .copied()
                    .filter(|&v| v < nodes)
                    .collect();
                let listed = order.clone();
                order.extend((0..nodes).filter(|v| !listed.contains(v)));
                let mut change_points_ns: Vec<u64> = p
                    .change_points_ms
                    .iter()
                    .map(|&ms| ms.saturating_mul(1_000_000))
                    .collect();
                change_points_ns.sort_unstable();
                let mut rt = ScheduleRt::Pct {
                    rank: vec![0; nodes],
                    order,
                    change_points_ns,
                    applied: 0,
                };
                rt.rerank();
                rt
            }
        }
    }

    fn rerank(&mut self) {
        if let ScheduleRt::Pct { order, rank, .. } = self {
            for (r, &v) in order.iter().enumerate() {
                rank[v] = r;
            }
            debug_assert_eq!(order.len(), rank.len());
        }
    }

    /// The delay of a message from `from` sent at `now_ns` over a link with latency bounds
    /// `[lo, hi]` ns; `sample` draws from the link's law (the random schedule).
    #[inline]
    pub(crate) fn delay_ns(
        &mut self,
        from: NodeId,
        now_ns: u64,
        (lo, hi): (u64, u64),
        rng: &mut SimRng,
        sample: impl FnOnce(&mut SimRng) -> u64,
    ) -> u64 {
        match self {
            ScheduleRt::Random | ScheduleRt::Recorded { .. } => sample(rng),
            ScheduleRt::Pos => rng.range_u64(lo, hi),
            ScheduleRt::Pct { .. } => {
                self.advance(now_ns);
                let ScheduleRt::Pct { rank, .. } = self else {
                    unreachable!("matched above")
                };
                let n = rank.len();
                let r = rank.get(from).copied().unwrap_or(n.saturating_sub(1));
                let span = hi - lo;
                let d = lo + ((u128::from(span) * r as u128) / (n.max(2) - 1) as u128) as u64;
                debug_assert!((lo..=hi).contains(&d), "a PCT delay left the link's bounds");
                d
            }
        }
    }

    /// Applies the change points at or before `now_ns`.
    fn advance(&mut self, now_ns: u64) {
        let mut changed = false;
        if let ScheduleRt::Pct {
            order,
            change_points_ns,
            applied,
            ..
        } = self
        {
            while *applied < change_points_ns.len() && change_points_ns[*applied] <= now_ns {
                // PCT: the i-th change point gives the running (top) node priority i, below
                // every initial priority and above the nodes demoted before it.
                let top = order.remove(0);
                let at = order.len().saturating_sub(*applied);
                order.insert(at, top);
                *applied += 1;
                changed = true;
            }
        }
        if changed {
            self.rerank();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pct(priorities: Vec<NodeId>, cps: Vec<u64>) -> Schedule {
        Schedule::Pct(Pct {
            priorities,
            change_points_ms: cps,
        })
    }

    #[test]
    fn pct_delays_follow_the_priorities_inside_the_bounds() {
        let mut rt = ScheduleRt::new(&pct(vec![2, 0, 1], vec![]), 3);
        let mut rng = SimRng::new(1);
        let d = |rt: &mut ScheduleRt, v, rng: &mut SimRng| {
            rt.delay_ns(v, 0, (1_000, 3_000), rng, |_| panic!("PCT never samples"))
        };
        assert_eq!(d(&mut rt, 2, &mut rng), 1_000);
        assert_eq!(d(&mut rt, 0, &mut rng), 2_000);
        assert_eq!(d(&mut rt, 1, &mut rng), 3_000);
    }

    #[test]
    fn change_points_demote_the_top_node_below_the_initial_priorities() {
        // Order 0 > 1 > 2 > 3; at 10 ms node 0 drops to the bottom; at 20 ms node 1 drops
        // just above it (PCT's priority 2 above priority 1).
        let mut rt = ScheduleRt::new(&pct(vec![0, 1, 2, 3], vec![20, 10]), 4);
        let mut rng = SimRng::new(1);
        let ranks = |rt: &mut ScheduleRt, t_ms: u64, rng: &mut SimRng| -> Vec<u64> {
            (0..4)
                .map(|v| rt.delay_ns(v, t_ms * 1_000_000, (0, 3), rng, |_| unreachable!()))
                .collect()
        };
        assert_eq!(ranks(&mut rt, 0, &mut rng), vec![0, 1, 2, 3]);
        assert_eq!(ranks(&mut rt, 10, &mut rng), vec![3, 0, 1, 2]);
        assert_eq!(ranks(&mut rt, 20, &mut rng), vec![3, 2, 0, 1]);
    }

    #[test]
    fn unlisted_nodes_come_last_in_id_order_and_bad_lists_are_refused() {
        let mut rt = ScheduleRt::new(&pct(vec![3], vec![]), 4);
        let mut rng = SimRng::new(1);
        let got: Vec<u64> = (0..4)
            .map(|v| rt.delay_ns(v, 0, (0, 3), &mut rng, |_| unreachable!()))
            .collect();
        assert_eq!(got, vec![1, 2, 3, 0]);
        assert!(pct(vec![0, 4], vec![])
            .validate(4)
            .unwrap_err()
            .contains("priorities[1] = 4"));
        assert!(pct(vec![1, 1], vec![])
            .validate(4)
            .unwrap_err()
            .contains("twice"));
        assert!(pct(vec![], vec![0; 65]).validate(4).is_err());
        assert!(pct(vec![1, 0], vec![5]).validate(2).is_ok());
    }

    /// One message recorded twice would get the fate of whichever entry the list puts first:
    /// refused; the same message's next copy (`nth` 1) is another message.
    #[test]
    fn a_message_recorded_twice_is_refused() {
        let rec = |nth, d| Recorded {
            from: 0,
            to: 1,
            msg: "m".into(),
            nth,
            delays_ns: vec![d],
        };
        let e = Schedule::Recorded(vec![rec(0, 5), rec(1, 5), rec(0, 9)])
            .validate(2)
            .unwrap_err();
        assert!(
            e.contains("recorded[2] repeats schedule.recorded[0]"),
            "{e}"
        );
        assert!(Schedule::Recorded(vec![rec(0, 5), rec(1, 9)])
            .validate(2)
            .is_ok());
        // a message to oneself never crosses the network: no fate is recorded for it
        let own = Recorded { to: 0, ..rec(0, 5) };
        let e = Schedule::Recorded(vec![own]).validate(2).unwrap_err();
        assert!(e.contains("recorded[0] is from node 0 to itself"), "{e}");
    }

    #[test]
    fn pos_is_uniform_over_the_bounds_and_random_samples_the_law() {
        let mut rt = ScheduleRt::new(&Schedule::Pos, 2);
        let mut rng = SimRng::new(7);
        let xs: Vec<u64> = (0..4000)
            .map(|_| rt.delay_ns(0, 0, (0, 100), &mut rng, |_| unreachable!()))
            .collect();
        let high = xs.iter().filter(|&&x| x > 50).count();
        assert!(
            (1800..2200).contains(&high),
            "{high} of 4000 above the middle"
        );
        let mut rt = ScheduleRt::new(&Schedule::Random, 2);
        assert_eq!(rt.delay_ns(0, 0, (0, 100), &mut rng, |_| 42), 42);
    }

    #[test]
    fn schedules_round_trip_through_json() {
        for s in [Schedule::Random, Schedule::Pos, pct(vec![1, 0], vec![3])] {
            let text = serde_json::to_string(&s).unwrap();
            assert_eq!(
                serde_json::from_str::<Schedule>(&text).unwrap(),
                s,
                "{text}"
            );
        }
        assert_eq!(
            serde_json::to_string(&pct(vec![1, 0], vec![3])).unwrap(),
            r#"{"pct":{"priorities":[1,0],"change_points_ms":[3]}}"#
        );
    }

    #[test]
    fn drawn_pct_schedules_are_valid_permutations() {
        let mut rng = SimRng::new(3);
        for depth in 1..5 {
            let s = Schedule::draw_pct(&mut rng, 5, depth, 1000);
            s.validate(5).unwrap();
            let Schedule::Pct(p) = &s else { panic!() };
            let mut sorted = p.priorities.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, vec![0, 1, 2, 3, 4]);
            assert_eq!(p.change_points_ms.len(), depth - 1);
            assert!(p.change_points_ms.iter().all(|&t| t < 1000));
            assert_eq!(s.label(), format!("pct(d={depth})"));
        }
    }
}
