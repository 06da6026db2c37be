//! Leader stability: after the faults stop and the live nodes agree on a leader, no node starts
//! a new election or changes leader (or term) while that leader is alive and reachable from it.
//!
//! Once every live node names the same live leader `L` in the same term `t` at or after
//! `quiet + settle` (by default `settle` = 0), any later leader report of a live node `n` other
//! than `(L, t)` is a violation if `L` is alive and no partition separates `L` from any live
//! node (a node cut from `L` may rightly start an election that disrupts the others too).
//! `settle` is for failure detectors: a timer a follower started before the faults stopped (its
//! last heartbeat was lost) may still fire up to one timeout after them, so an algorithm built
//! on timeouts passes its largest one ([`LeaderStability::with_settle`]). If a new agreement forms (e.g. after `L`
//! became unreachable), it is the new reference. (Agreement on the leader alone is not enough:
//! a follower that lags a term behind will legitimately catch up.)
//!
//! # Contract
//!
//! - **Reads:** `leader` observations (beliefs with their terms), `crash` / `restart` faults
//!   (who is alive; a restart clears the node's belief) and `partition` / `partition_oneway`
//!   / `heal` faults (the leader must be reachable, with no cut in either direction, from
//!   every live node for a change to be blamed). Pauses are ignored: a paused node is live and
//!   must agree. A node's first report after it (re)started is not judged (it had no belief to
//!   change).
//! - **Events at one instant are judged as a set.** Nothing orders two nodes' events of one
//!   global time: a change is blamed only when in *no* order of its instant (each node's
//!   events in its own order) the leader is dead or cut off at the change. A crash of the
//!   leader at the instant of a change excuses it whichever line comes first. Past 4,096
//!   orders of an instant's faults, the change is not judged (*could not judge*).
//! - **Settings:** the node count and the quiet time (`scenario.quiet_from_ms()`), plus the
//!   settle time of [`LeaderStability::with_settle`]; [`crate::by_name`] (and
//!   [`crate::Property`]) build [`LeaderStability::new`], settle 0. No liveness bound (unused).
//!   An agreement counts once it held over an interval ending after `quiet + settle`.
//! - **Between faults** ([`LeaderStability::between_faults`], what the elections of this
//!   crate judge with): also from each fault of the plan, or of the trace, before the quiet
//!   time, when nothing is left in effect after it — no node down or paused, no partition —
//!   until the next fault, the same rule from that fault (plus the settle time) on. The run up
//!   to the next fault is the run of the scenario cut after this one, whose faults stop
//!   there: a correct algorithm passes it as it passes the scenario's own quiet time. A
//!   change at the instant of a fault is never blamed in this mode's intervals. Without it,
//!   only the quiet time counts (a trace judged with no scenario).
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes. If the
//!   live nodes never agree on a leader in one term where the rule applies — after the quiet
//!   time (plus settle), or, between faults, in an interval with nothing in effect — (the run
//!   ended before, or no agreement formed), nothing was judged: *could not judge*, never a
//!   pass (stop 69: a 1 ms run with no leader passed). An agreement inside such an interval
//!   was judged there, even when none forms after the quiet time: the verdict is then a pass
//!   (the oracle counts it so too).
//! - **Class:** safety (once agreement is reached).

use super::ElectionView;
use sincro_harness::fault::{in_effect_at_the_end, TimedFault};
use sincro_harness::net::Network;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::Scenario;
use sincro_harness::{
    Checker, Fault, Interest, NodeId, Observation, PropertyClass, Violation, NS_PER_MS,
};

/// Property name.
pub const PROPERTY: &str = "leader_stability";

/// The leader stability checker.
#[derive(Debug)]
pub struct LeaderStability {
    view: ElectionView,
    quiet_ns: u64,
    /// The agreed leader, its term, and when agreement was seen.
    agreed: Option<(NodeId, u64, u64)>,
    last_t_ns: u64,
    /// The current instant's changes of belief, judged when it closes.
    pending: Vec<Pending>,
    /// The current instant's events that change who is alive or reachable (crashes,
    /// restarts, partitions, heals), while a leader is agreed.
    faults: Vec<Event>,
    /// The view before the first of them.
    before: Option<ElectionView>,
    /// Why the run could not be judged, if it could not.
    unjudged: Option<String>,
    /// Whether an agreement ever counted (an interval under it was judged): a run with none
    /// judged nothing, and is *could not judge*, not a pass.
    judged: bool,
    /// The quiet time without the settle time, ns.
    quiet_raw_ns: u64,
    /// The settle time, ns.
    settle_ns: u64,
    /// Whether the intervals between faults are judged ([`LeaderStability::between_faults`]).
    between: bool,
    /// The plan's fault instants up to the quiet time, ns, each with whether a fault of the
    /// plan is left in effect after it (a node down or paused, a partition).
    plan: Vec<(u64, bool)>,
    /// The next of them not yet reached.
    next_plan: usize,
    /// Whether the plan leaves a fault in effect now.
    plan_in_effect: bool,
    /// From when an agreement counts in the current interval between faults, ns.
    interval_from_ns: u64,
}

/// The most orders of one instant's faults searched for a change's excuse; past it the
/// change is not judged.
const ORDERS_MAX: usize = 4096;

/// A change of belief under the agreed leader, judged when its instant closes: nothing orders
/// two nodes' events of one instant, so it is excused when, in *some* order of them (each
/// node's own in its order), the leader was dead or cut off at the change (a crash of the
/// leader listed just after the change excused it listed just before).
#[derive(Debug)]
struct Pending {
    violation: Violation,
    node: NodeId,
    /// How many of the instant's `faults` recorded at `node` came before the change.
    own_before: usize,
}

impl LeaderStability {
    /// Stability is judged once the live nodes agree, at or after `quiet_from_ms`.
    pub fn new(nodes: usize, quiet_from_ms: u64) -> Self {
        Self::with_settle(nodes, quiet_from_ms, 0)
    }

    /// Stability is judged once the live nodes agree, at or after
    /// `quiet_from_ms + settle_ms`.
    pub fn with_settle(nodes: usize, quiet_from_ms: u64, settle_ms: u64) -> Self {
        LeaderStability {
            view: ElectionView::new(nodes),
            quiet_ns: quiet_from_ms.saturating_add(settle_ms) * NS_PER_MS,
            agreed: None,
            last_t_ns: 0,
            pending: Vec::new(),
            faults: Vec::new(),
            before: None,
            unjudged: None,
            judged: false,
            quiet_raw_ns: quiet_from_ms.saturating_mul(NS_PER_MS),
            settle_ns: settle_ms.saturating_mul(NS_PER_MS),
            between: false,
            plan: Vec::new(),
            next_plan: 0,
            plan_in_effect: false,
            interval_from_ns: settle_ms.saturating_mul(NS_PER_MS),
        }
    }

    /// Also judges each interval between two faults of the scenario's plan (and of the trace)
    /// that leaves nothing in effect — no node down or paused, no partition, every link as it
    /// is once the faults stop — from the fault that opens it plus the settle time, as the
    /// quiet time is judged. The run up to
    /// the next fault is the run of the scenario cut after this one, so a correct algorithm
    /// must pass it; a leader that abdicates with no fault in effect breaks stability even if
    /// faults follow later (the ring's `stale-coordinator` bug mostly acts so).
    pub fn between_faults(mut self, scenario: &Scenario) -> Self {
        let Some((at_start, plan)) = interval_starts(scenario, self.quiet_raw_ns) else {
            return self; // a network the engine refuses: the run is refused too
        };
        self.between = true;
        self.plan_in_effect = at_start;
        self.plan = plan;
        self
    }

    /// A fault at `t_ns`, up to the quiet time, in [`Self::between_faults`] mode: the
    /// agreement is forgotten (a change of its instant is not blamed) and the next interval
    /// counts from `t_ns` plus the settle time.
    fn fault_at(&mut self, t_ns: u64) {
        self.agreed = None;
        self.interval_from_ns = t_ns.saturating_add(self.settle_ns);
    }

    /// Whether an agreement seen at an event of `t_ns` counts: past the quiet time (plus the
    /// settle time), or in [`Self::between_faults`] mode past the current interval's start
    /// with nothing in effect.
    fn counts_at(&self, t_ns: u64) -> bool {
        if t_ns > self.quiet_ns {
            return true;
        }
        self.between
            && t_ns < self.quiet_raw_ns
            && t_ns > self.interval_from_ns
            && !self.plan_in_effect
            && !self.view.any_fault_in_effect()
    }

    /// Closes the instant: its first change excused in no order of it is the violation.
    fn close_instant(&mut self) -> Result<(), Violation> {
        let pending = std::mem::take(&mut self.pending);
        let faults = std::mem::take(&mut self.faults);
        let before = self.before.take();
        let Some((l, _, _)) = self.agreed else {
            return Ok(());
        };
        for p in pending {
            let excused = match &before {
                // nothing moved in the instant: the state now is the state at the change
                None => leader_gone(&self.view, l),
                Some(before) => match excused_in_some_order(before, &faults, &p, l) {
                    Some(excused) => excused,
                    None => {
                        self.unjudged.get_or_insert_with(|| {
                            format!(
                                "{} faults at {:.3} ms can be ordered in more than {ORDERS_MAX} \
                                 ways around node {}'s change of leader",
                                faults.len(),
                                p.violation.t_ns as f64 / 1e6,
                                p.node
                            )
                        });
                        true
                    }
                },
            };
            if !excused {
                return Err(p.violation);
            }
        }
        Ok(())
    }
}

/// The scenario's fault instants up to `quiet_raw_ns`, each with whether the plan leaves a
/// fault in effect after it: a node crashed and not restarted, a pause not resumed, a
/// partition not healed, or a link that does not behave as it will once the faults stop.
/// First, whether a link differs from it at the start. `None` when the scenario's network
/// cannot be built.
fn interval_starts(scenario: &Scenario, quiet_raw_ns: u64) -> Option<(bool, Vec<(u64, bool)>)> {
    let mut sorted: Vec<&TimedFault> = scenario.faults.iter().collect();
    sorted.sort_by_key(|f| f.at_ms);
    let mut net = Network::new(scenario.nodes, &scenario.network).ok()?;
    let mut last = net.clone();
    for f in &sorted {
        if let Fault::SetLinks(o) = &f.fault {
            last.apply_override(o).ok()?;
        }
    }
    // A link that still loses messages at the end is a fault that never stops: no instant of
    // the run is free of it (a correct election under `network.loss: 0.5` was blamed).
    let lossy = scenario.loses_at_the_end();
    let at_start = lossy || !net.same_links(&last);
    let mut instants: Vec<(u64, bool)> = Vec::new();
    // Kept as `fault::in_effect_at_the_end` reads a plan, one fault at a time: a crash or a
    // restart ends a pause, a heal every partition.
    let mut down = std::collections::BTreeSet::new();
    let mut paused = std::collections::BTreeSet::new();
    let mut partitioned = false;
    for (i, f) in sorted.iter().enumerate() {
        match &f.fault {
            Fault::Crash { node } => {
                down.insert(*node);
                paused.remove(node);
            }
            Fault::Restart { node } => {
                down.remove(node);
                paused.remove(node);
            }
            Fault::Pause { node } => {
                paused.insert(*node);
            }
            Fault::Resume { node } => {
                paused.remove(node);
            }
            Fault::Partition { .. } | Fault::PartitionOneway { .. } => partitioned = true,
            Fault::Heal => partitioned = false,
            Fault::SetLinks(o) => net.apply_override(o).ok()?,
            Fault::ClockJump { .. } | Fault::DriftChange { .. } => {}
        }
        // (quadratic: checked on small plans only)
        debug_assert!(
            sorted.len() > 64
                || (!paused.is_empty() || partitioned)
                    == in_effect_at_the_end(sorted[..=i].iter().map(|f| &f.fault))
        );
        let last_of_instant = sorted.get(i + 1).is_none_or(|g| g.at_ms != f.at_ms);
        let t_ns = f.at_ms.saturating_mul(NS_PER_MS);
        if last_of_instant && t_ns <= quiet_raw_ns {
            let in_effect = lossy
                || !down.is_empty()
                || !paused.is_empty()
                || partitioned
                || !net.same_links(&last);
            instants.push((t_ns, in_effect));
        }
    }
    // The quiet time closes the last interval, whether a fault falls there or not (a plan
    // whose pause is never resumed stops at the end of the run).
    if instants.last().is_none_or(|&(t, _)| t < quiet_raw_ns) && quiet_raw_ns > 0 {
        instants.push((quiet_raw_ns, true));
    }
    Some((at_start, instants))
}

/// `l` is dead or cut from a live node in `view`.
fn leader_gone(view: &ElectionView, l: NodeId) -> bool {
    !view.alive(l) || !view.live_nodes().all(|v| view.reachable(v, l))
}

/// Whether some order of the instant's `faults` (from the state `before` them; each node's in
/// its own order, the change's node's first `own_before` before it) has `l` gone at the
/// change; `None` past [`ORDERS_MAX`] orders. The state at the change is what a prefix of
/// each node's faults made, so the prefixes are enumerated.
fn excused_in_some_order(
    before: &ElectionView,
    faults: &[Event],
    p: &Pending,
    l: NodeId,
) -> Option<bool> {
    let mut seqs: Vec<Vec<&Event>> = Vec::new();
    let mut keys: Vec<Option<NodeId>> = Vec::new();
    for ev in faults {
        match keys.iter().position(|&k| k == ev.node) {
            Some(i) => seqs[i].push(ev),
            None => {
                keys.push(ev.node);
                seqs.push(vec![ev]);
            }
        }
    }
    // The prefix lengths each sequence can have at the change.
    let choices: Vec<Vec<usize>> = seqs
        .iter()
        .zip(&keys)
        .map(|(seq, &k)| {
            if k == Some(p.node) {
                vec![p.own_before]
            } else {
                (0..=seq.len()).collect()
            }
        })
        .collect();
    let total = choices
        .iter()
        .try_fold(1usize, |acc, c| acc.checked_mul(c.len()))
        .filter(|&t| t <= ORDERS_MAX)?;
    for mut k in 0..total {
        let mut view = before.clone();
        for (seq, c) in seqs.iter().zip(&choices) {
            let len = c[k % c.len()];
            k /= c.len();
            for ev in &seq[..len] {
                view.apply(ev);
            }
        }
        if leader_gone(&view, l) {
            return Some(true);
        }
    }
    Some(false)
}

/// Events that change who is alive or reachable.
fn moves_liveness(ev: &Event) -> bool {
    matches!(
        &ev.kind,
        EventKind::Fault {
            fault: Fault::Crash { .. }
                | Fault::Restart { .. }
                | Fault::Partition { .. }
                | Fault::PartitionOneway { .. }
                | Fault::Heal
        }
    )
}

impl Checker for LeaderStability {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    /// Judged from the quiet time on (and, for stability, between faults of the plan).
    fn judged_once_the_faults_stop(&self) -> bool {
        true
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    /// Leader reports and faults (the view); any other event only moves time on.
    fn interest(&self) -> Interest {
        Interest::OBSERVE.or(Interest::FAULT)
    }

    /// The first event of a later instant while the instant holds changes to judge, or
    /// while the live nodes agree on a leader not yet counted (the agreement counts from the
    /// event before it); the first event at or after the plan's next fault instant (in
    /// [`Self::between_faults`] mode).
    fn wake_at_ns(&self) -> u64 {
        let next = self.last_t_ns.saturating_add(1);
        if !self.pending.is_empty() {
            return next;
        }
        if let Some(now) = self.view.agreed_in_term() {
            if self.agreed.map(|a| (a.0, a.1)) != Some(now) {
                return next;
            }
        }
        match self.plan.get(self.next_plan) {
            Some(&(t_ns, _)) if self.between => t_ns,
            _ => u64::MAX,
        }
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if ev.t_ns > self.last_t_ns {
            self.close_instant()?;
        }
        while let Some(&(t_ns, in_effect)) = self.plan.get(self.next_plan) {
            if t_ns > ev.t_ns {
                break;
            }
            self.fault_at(t_ns);
            self.plan_in_effect = in_effect;
            self.next_plan += 1;
        }
        if ev.t_ns > self.last_t_ns {
            // The state before this event held since the previous event: an agreement counts
            // once it lasted a while past quiet (states between events of one instant are
            // transient).
            if self.counts_at(ev.t_ns) {
                let from = if ev.t_ns > self.quiet_ns {
                    self.quiet_ns
                } else {
                    self.interval_from_ns
                };
                match self.view.agreed_in_term() {
                    Some((l, t)) if self.agreed.map(|a| (a.0, a.1)) != Some((l, t)) => {
                        self.agreed = Some((l, t, self.last_t_ns.max(from)));
                        self.judged = true;
                    }
                    _ => {}
                }
            }
        }
        self.last_t_ns = ev.t_ns;
        if self.between
            && ev.t_ns <= self.quiet_raw_ns
            && matches!(ev.kind, EventKind::Fault { .. })
        {
            self.fault_at(ev.t_ns);
        }
        if self.agreed.is_some() && moves_liveness(ev) {
            if self.before.is_none() {
                self.before = Some(self.view.clone());
            }
            self.faults.push(ev.clone());
        }
        let prev = self.view.apply(ev);
        if let (
            Some(Some(prev)),
            Some(node),
            Some((l, t, since_ns)),
            EventKind::Observe {
                obs: Observation::Leader { leader, term },
            },
        ) = (prev, ev.node, self.agreed, &ev.kind)
        {
            if *leader != Some(l) || *term != t {
                let what = match leader {
                    None => format!("started a new election (term {term})"),
                    Some(x) if *x == l => {
                        format!("moved from term {t} to term {term} with the same leader")
                    }
                    Some(x) => format!("changed its leader to node {x} (term {term})"),
                };
                self.pending.push(Pending {
                    violation: Violation {
                        property: PROPERTY.into(),
                        class: PropertyClass::Safety,
                        explanation: format!(
                            "node {node} {what} while the agreed leader node {l} (agreed since {:.3} ms) was alive and reachable",
                            since_ns as f64 / 1e6
                        ),
                        t_ns: ev.t_ns,
                        events: vec![prev.event, ev.id],
                    },
                    node,
                    own_before: self.faults.iter().filter(|f| f.node == Some(node)).count(),
                });
            }
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        self.close_instant()?;
        // An agreement that held from the last event to the end counts as one seen at an
        // event then would: nothing changed under it.
        if end_t_ns > self.last_t_ns
            && self.counts_at(end_t_ns)
            && self.view.agreed_in_term().is_some()
        {
            self.judged = true;
        }
        Ok(())
    }

    fn could_not_judge(&self) -> Option<String> {
        if self.unjudged.is_some() || self.judged {
            return self.unjudged.clone();
        }
        Some(format!(
            "the live nodes never agreed on one leader in one term after {:.3} ms (the quiet \
             time{}) before the run ended: stability is judged only under an agreed leader",
            self.quiet_ns as f64 / 1e6,
            if self.settle_ns > 0 {
                " plus the settle time"
            } else {
                ""
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::election::test_util::T;
    use sincro_harness::check::check_trace;
    use sincro_harness::{Fault, Scenario, Trace};

    fn run(t: T, quiet_ms: u64) -> Result<(), Violation> {
        t.check(3, 10_000, LeaderStability::new(3, quiet_ms))
    }

    /// The verdict of a trace of `t` with `checker`, as `sincro check` gives it: a violation,
    /// could not judge, or a pass.
    fn verdict(t: T, end_ms: u64, checker: LeaderStability) -> Result<Option<String>, Violation> {
        let trace = Trace::new(3, t.events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(checker)];
        check_trace(&trace, end_ms * NS_PER_MS, &mut cs)?;
        Ok(cs[0].could_not_judge())
    }

    /// A run in which the live nodes never agree after the quiet time judged nothing: it
    /// passed (stop 69's probe: a 1 ms run with no leader, and a hand-made 100 s trace in
    /// which no node ever named one). An agreement that holds to the end is judged.
    #[test]
    fn no_agreement_after_the_quiet_time_is_could_not_judge_never_a_pass() {
        let no_leader = || T::default().leader(0, 0, None, 0).leader(0, 1, None, 0);
        let why = verdict(no_leader(), 100_000, LeaderStability::new(3, 0)).unwrap();
        assert!(why.is_some_and(|w| w.contains("never agreed")));
        // agreed, but the run ends before the quiet time plus the settle time
        let early = || T::default().all(10, &[0, 1, 2], 2, 0);
        let why = verdict(early(), 1, LeaderStability::with_settle(3, 0, 5)).unwrap();
        assert!(why.is_some_and(|w| w.contains("plus the settle time")));
        let why = verdict(early(), 40, LeaderStability::with_settle(3, 20, 5)).unwrap();
        assert!(why.is_none(), "{why:?}");
        // agreed, and the agreement is seen at a later event
        let later = early().leader(60, 0, Some(2), 0);
        assert_eq!(
            verdict(later, 60, LeaderStability::new(3, 20)).unwrap(),
            None
        );
        // an agreement that broke before the end and never formed again was judged
        let broke = early().leader(50, 0, None, 1);
        assert!(verdict(broke, 60, LeaderStability::new(3, 0)).is_err());
    }

    #[test]
    fn a_new_election_under_a_live_reachable_leader_is_caught() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(50, 0, None, 0);
        let v = run(t, 0).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 3]);
        assert!(
            v.explanation.contains("node 0 started a new election"),
            "{}",
            v.explanation
        );
        // a new term with the same leader is a new election too
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 4)
            .leader(50, 1, Some(2), 5);
        let v = run(t, 0).unwrap_err();
        assert!(
            v.explanation.contains("term 4 to term 5"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn the_settle_time_and_a_one_way_cut_of_the_leader_excuse_a_change() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(50, 0, None, 0);
        run(t, 0).unwrap_err();
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(50, 0, None, 0);
        let trace = Trace::new(3, t.events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(LeaderStability::with_settle(3, 0, 60))];
        check_trace(&trace, 10_000 * NS_PER_MS, &mut cs).unwrap();
        // node 2 cannot reach node 1: node 0's election is excused
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .fault(
                20,
                Fault::PartitionOneway {
                    from: vec![2],
                    to: vec![1],
                },
            )
            .leader(50, 0, None, 0);
        run(t, 0).unwrap();
    }

    /// Nothing orders two nodes' events of one instant: a change at the instant the leader
    /// crashes (or is cut off) is excused whichever is listed first, and a crash of another
    /// node excuses nothing in either order.
    #[test]
    fn a_change_at_the_instant_the_leader_goes_is_excused_in_either_line_order() {
        let change = |t: T| t.leader(50, 0, Some(1), 0);
        let crash = |t: T, node| t.fault(50, Fault::Crash { node });
        let cut = |t: T| {
            t.fault(
                50,
                Fault::Partition {
                    groups: vec![vec![2]],
                },
            )
        };
        let base = || T::default().all(10, &[0, 1, 2], 2, 0);
        run(crash(change(base()), 2), 0).unwrap();
        run(change(crash(base(), 2)), 0).unwrap();
        run(cut(change(base())), 0).unwrap();
        run(change(cut(base())), 0).unwrap();
        for t in [crash(change(base()), 1), change(crash(base(), 1))] {
            let v = run(t, 0).unwrap_err();
            assert!(v
                .explanation
                .contains("node 0 changed its leader to node 1"));
            assert_eq!(v.t_ns, 50 * NS_PER_MS);
        }
    }

    /// A scenario of 3 nodes with `faults` (JSON) over `network` (JSON).
    fn scenario(network: &str, faults: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm":"x","nodes":3,"seed":0,"duration_ms":100,"network":{network},"faults":{faults}}}"#
        ))
        .unwrap()
    }

    /// Between faults: a change with nothing in effect before the quiet time is caught; not
    /// while the plan has a node down, or a link that differs from the one after the faults
    /// (a lossy network the plan repairs at the end), nor at the instant of a fault.
    #[test]
    fn a_change_between_faults_with_nothing_in_effect_is_caught() {
        let lossless = r#"{"latency":{"constant":{"ms":1.0}}}"#;
        let lossy = r#"{"latency":{"constant":{"ms":1.0}},"loss":0.2}"#;
        let repaired = r#"[{"at_ms":2,"fault":{"clock_jump":{"node":0,"delta_ms":1.0}}},
            {"at_ms":20,"fault":{"set_links":{"loss":0.0}}}]"#;
        let judge = |sc: &Scenario, t: T| {
            let checker = LeaderStability::new(3, sc.quiet_from_ms()).between_faults(sc);
            t.check(3, 10_000, checker)
        };
        let change = || {
            T::default()
                .fault(
                    2,
                    Fault::ClockJump {
                        node: 0,
                        delta_ms: 1.0,
                    },
                )
                .all(5, &[0, 1, 2], 2, 0)
                .leader(10, 0, None, 1)
        };
        // the clock jump at 2 ms opens an interval with nothing in effect: caught at 10 ms
        let sc = scenario(lossless, repaired);
        assert_eq!(sc.quiet_from_ms(), 20);
        let v = judge(&sc, change()).unwrap_err();
        assert_eq!(v.t_ns, 10 * NS_PER_MS);
        // judged from the quiet time only, it passes
        change()
            .check(3, 10_000, LeaderStability::new(3, 20))
            .unwrap();
        // the links are lossy until 20 ms: not judged
        judge(&scenario(lossy, repaired), change()).unwrap();
        // node 1 down from 3 to 15 ms by the plan: not judged
        let down = r#"[{"at_ms":3,"fault":{"crash":{"node":1}}},
            {"at_ms":15,"fault":{"restart":{"node":1}}}, {"at_ms":20,"fault":"heal"}]"#;
        let t = T::default()
            .all(1, &[0, 1, 2], 2, 0)
            .fault(3, Fault::Crash { node: 1 })
            .leader(10, 0, None, 1);
        judge(&scenario(lossless, down), t).unwrap();
        // a change at the instant of a fault is not blamed; one after it is
        let at_fault = |at: u64| {
            T::default()
                .all(1, &[0, 1, 2], 2, 0)
                .leader(4, 0, Some(2), 0)
                .fault(
                    5,
                    Fault::ClockJump {
                        node: 1,
                        delta_ms: 1.0,
                    },
                )
                .leader(at, 0, None, 1)
        };
        let jump = r#"[{"at_ms":5,"fault":{"clock_jump":{"node":1,"delta_ms":1.0}}},
            {"at_ms":20,"fault":"heal"}]"#;
        judge(&scenario(lossless, jump), at_fault(5)).unwrap();
        judge(&scenario(lossless, jump), at_fault(6)).unwrap_err();
    }

    #[test]
    fn a_follower_catching_up_a_term_is_not_a_new_election() {
        let t = T::default()
            .leader(10, 0, Some(2), 4) // node 0 lags a term behind: no agreement in a term yet
            .all(10, &[1, 2], 2, 5)
            .leader(50, 0, Some(2), 5);
        run(t, 0).unwrap();
    }

    #[test]
    fn changes_before_quiet_or_when_the_leader_is_gone_pass() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(20, 0, None, 0) // before quiet: not judged
            .fault(
                30,
                Fault::Partition {
                    groups: vec![vec![2]],
                },
            )
            .leader(40, 0, Some(2), 0)
            .leader(50, 1, None, 0) // node 2 unreachable: allowed
            .leader(60, 1, Some(1), 0)
            .leader(60, 0, Some(1), 0)
            .fault(70, Fault::Crash { node: 1 })
            .leader(80, 0, None, 0); // node 2 still unreachable: allowed
        run(t, 30).unwrap();
    }
}
