//! Leader agreement: after the faults stop, every live node names the same live leader within
//! a bound.
//!
//! Let `quiet` be the time of the fault plan's last fault, and `start` the later of `quiet`
//! and the first leader report (the first election). Some instant in `[quiet, start + bound]`
//! must see every live node name the same live node (terms may differ). And at the end of the run, if no node has reported anything for `bound`, they must
//! still agree (elections started by the workload after quiet must settle too).
//!
//! Agreement is owed once there is an election: by the election interface
//! ([`crate::election`]) a node reports `leader: None` when it starts or joins one and
//! `leader: Some(_)` when it knows a leader, and an algorithm that has a leader from the start
//! (bully, ring with a list) reports it when its nodes start. A run in which **no node ever
//! reports** had no election: the ring family (Chang–Roberts, Franklin, Anel 1 and 2, YoYo...)
//! elects only when a node is asked to (a `start` input), so with no input nothing happens,
//! rightly. That is not a disagreement, and the checker cannot tell it from an algorithm that
//! should have elected and stayed silent: the run is **not judged** (could not judge), never a
//! violation and never a pass.
//!
//! # Contract
//!
//! - **Reads:** `leader` observations (each node's current belief, and the time of the last
//!   report of any node; terms are ignored) and `crash` / `restart` faults (a crashed node is
//!   not live and its belief ends; a restarted node believes nothing until it reports again).
//!   Partitions and pauses are ignored: a partitioned or paused node must agree too. A leader
//!   named outside `0..nodes` is no node at all: never alive, so never agreed on.
//! - **Settings:** the node count (every node of `0..nodes` is live from the start and must
//!   have reported: one that never reports blocks agreement), the quiet time
//!   (`scenario.quiet_from_ms()`) and the liveness bound ([`crate::Property::NEEDS_BOUND`]).
//!   Agreement must hold in a state that lasts over an interval ending after `quiet` and no
//!   later than `start + bound` (a state between two events of the same instant does not
//!   count). A bound of 0 is taken literally (agreement right after the last fault); the
//!   checker has no default bound.
//! - **When nothing was elected yet:** agreement is owed `bound` after the faults stopped or
//!   after the first report, whichever is later: a ring algorithm asked to elect only after
//!   the faults stopped has its whole bound from that request (nothing had happened to agree
//!   on before). If no node reports during the whole run, the run is **not judged**
//!   ([`Checker::could_not_judge`]: no election was started and no leader named).
//! - **When the run ends before it can judge:** `finish` reports when the run ends after
//!   `start + bound` without agreement having been reached, and when the run ends disagreeing
//!   more than `bound` after both the quiet time and the last leader report. A run that ends
//!   at or before `start + bound` without agreement, or that ends disagreeing within `bound`
//!   of the last report, is **not judged** ([`Checker::could_not_judge`] says which). When
//!   every node has crashed, the first judgement reports a violation (no live leader to agree
//!   on) while the end-of-run one is excused.
//! - **Class:** liveness.

use super::ElectionView;
use sincro_harness::trace::Event;
use sincro_harness::{Checker, Interest, NodeId, PropertyClass, Violation, NS_PER_MS};

/// Property name.
pub const PROPERTY: &str = "leader_agreement";

/// The leader agreement checker.
#[derive(Debug)]
pub struct LeaderAgreement {
    view: ElectionView,
    quiet_ns: u64,
    bound_ns: u64,
    reached: bool,
    /// The judgement at `start + bound` was made.
    deadline_judged: bool,
    last_report_ns: u64,
    /// When the first leader report came.
    first_report_ns: Option<u64>,
    last_t_ns: u64,
    unjudged: Option<String>,
}

impl LeaderAgreement {
    /// Agreement must be reached within `bound_ms` after `quiet_from_ms`, in a run of `nodes`.
    pub fn new(nodes: usize, quiet_from_ms: u64, bound_ms: u64) -> Self {
        LeaderAgreement {
            view: ElectionView::new(nodes),
            quiet_ns: quiet_from_ms * NS_PER_MS,
            bound_ns: bound_ms * NS_PER_MS,
            reached: false,
            deadline_judged: false,
            last_report_ns: 0,
            first_report_ns: None,
            last_t_ns: 0,
            unjudged: None,
        }
    }

    /// When agreement is owed: `bound` after the faults stopped or the first report, whichever
    /// is later; `None` before any report.
    fn deadline_ns(&self) -> Option<u64> {
        let first = self.first_report_ns?;
        Some(self.start_ns(first).saturating_add(self.bound_ns))
    }

    fn start_ns(&self, first_report_ns: u64) -> u64 {
        self.quiet_ns.max(first_report_ns)
    }

    /// "after the faults stopped (at …)", or after the first election when that was later.
    fn since(&self) -> String {
        match self.first_report_ns {
            Some(first) if first > self.quiet_ns => format!(
                "after the first election began (at {:.3} ms; the faults stopped at {:.3} ms)",
                first as f64 / 1e6,
                self.quiet_ns as f64 / 1e6
            ),
            _ => format!(
                "after the faults stopped (at {:.3} ms)",
                self.quiet_ns as f64 / 1e6
            ),
        }
    }

    fn disagreement(&self) -> (String, Vec<u64>) {
        let mut parts: Vec<(NodeId, String)> = Vec::new();
        let mut events = Vec::new();
        for v in self.view.live_nodes() {
            let named = match self.view.belief(v) {
                Some(b) => {
                    events.push(b.event);
                    match b.leader {
                        Some(l) if !self.view.exists(l) => format!("n{l} (no such node)"),
                        Some(l) if !self.view.alive(l) => format!("n{l} (crashed)"),
                        Some(l) => format!("n{l}"),
                        None => "none".to_string(),
                    }
                }
                None => "never reported".to_string(),
            };
            parts.push((v, named));
        }
        (describe_beliefs(&parts), events)
    }

    fn violation(&self, t_ns: u64, what: String) -> Violation {
        let (state, events) = self.disagreement();
        Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!("{what}; live nodes name: {state}"),
            t_ns,
            events,
        }
    }

    fn agreed(&self) -> Option<NodeId> {
        self.view.agreed()
    }

    /// The judgement at the deadline, made once, at the first moment past it: agreement must
    /// have been reached.
    fn judge_deadline(&mut self, deadline_ns: u64) -> Result<(), Violation> {
        self.deadline_judged = true;
        if self.reached {
            return Ok(());
        }
        Err(self.violation(
            deadline_ns,
            format!(
                "the live nodes did not agree on a live leader within {} ms {}",
                self.bound_ns / NS_PER_MS,
                self.since()
            ),
        ))
    }

    /// Judges the deadline if `t_ns` is past it and it has not been judged.
    fn judge_deadline_by(&mut self, t_ns: u64) -> Result<(), Violation> {
        match self.deadline_ns() {
            Some(d) if !self.deadline_judged && t_ns > d => self.judge_deadline(d),
            _ => Ok(()),
        }
    }
}

impl Checker for LeaderAgreement {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    /// Leader reports and faults (the view); any other event only moves time on.
    fn interest(&self) -> Interest {
        Interest::OBSERVE.or(Interest::FAULT)
    }

    /// The first event past the deadline judges it. (Whether agreement was reached is
    /// counted by that call too, or by the next report or fault, before the state changes.)
    fn wake_at_ns(&self) -> u64 {
        match self.deadline_ns() {
            Some(d) if !self.deadline_judged => d.saturating_add(1),
            _ => u64::MAX,
        }
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        // The state before this event held from the previous event's time until now: it
        // counts if that lasted a while and reaches past quiet (states between events of the
        // same instant are transient).
        if !self.reached
            && ev.t_ns > self.quiet_ns
            && ev.t_ns > self.last_t_ns
            && self.agreed().is_some()
        {
            self.reached = true;
        }
        self.judge_deadline_by(ev.t_ns)?;
        if self.view.apply(ev).is_some() {
            self.last_report_ns = ev.t_ns;
            self.first_report_ns.get_or_insert(ev.t_ns);
        }
        self.last_t_ns = ev.t_ns;
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        let agreed = self.agreed().is_some();
        if !self.reached && agreed && end_t_ns > self.quiet_ns && end_t_ns > self.last_t_ns {
            self.reached = true;
        }
        self.judge_deadline_by(end_t_ns)?;
        let Some(deadline_ns) = self.deadline_ns() else {
            self.unjudged = Some(format!(
                "no node reported a leader or started an election in the whole run (to {:.3} ms): there was nothing to agree on, and an algorithm that elects only when asked was never asked",
                end_t_ns as f64 / 1e6
            ));
            return Ok(());
        };
        let live = self.view.live_nodes().next().is_some();
        let settled_ns = self
            .last_report_ns
            .max(self.quiet_ns)
            .saturating_add(self.bound_ns);
        if !agreed && live && end_t_ns > settled_ns {
            return Err(self.violation(
                end_t_ns,
                format!(
                    "the run ended with the live nodes disagreeing, {} ms after the last leader report",
                    (end_t_ns - self.last_report_ns) / NS_PER_MS
                ),
            ));
        }
        if !self.reached && end_t_ns <= deadline_ns {
            let (state, _) = self.disagreement();
            // An agreement at the last instant alone never held: the run ended with it.
            let when = if agreed {
                "with the live nodes agreeing only at its last instant (an agreement counts \
                 once it has held)"
            } else {
                "before the live nodes had agreed"
            };
            self.unjudged = Some(format!(
                "the run ended at {:.3} ms, {when}, not past the deadline {:.3} ms ({} ms {}): too short to judge; live nodes name: {state}",
                end_t_ns as f64 / 1e6,
                deadline_ns as f64 / 1e6,
                self.bound_ns / NS_PER_MS,
                self.since()
            ));
        } else if !agreed && live {
            let (state, _) = self.disagreement();
            self.unjudged = Some(format!(
                "the run ended at {:.3} ms with the live nodes disagreeing, within {} ms of the last leader report (at {:.3} ms): too short to tell whether they settle; live nodes name: {state}",
                end_t_ns as f64 / 1e6,
                self.bound_ns / NS_PER_MS,
                self.last_report_ns as f64 / 1e6
            ));
        }
        Ok(())
    }

    fn could_not_judge(&self) -> Option<String> {
        self.unjudged.clone()
    }
}

/// The live nodes' beliefs, `n0: n2, n1: none`; in a large run, nodes that name the same
/// leader are grouped (`n0-n497, n499 (499 nodes): n498 (crashed)`: [`crate::grouped`]).
fn describe_beliefs(parts: &[(NodeId, String)]) -> String {
    crate::grouped::describe(
        parts,
        "n",
        |v, b| format!("n{v}: {b}"),
        |nodes, k, b| format!("{nodes} ({k} nodes): {b}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::election::test_util::T;
    use sincro_harness::check::judge_trace;
    use sincro_harness::{Fault, Trace, Verdict};

    /// Up to 8 live nodes are listed one by one, as before; past that, nodes naming the same
    /// leader are grouped with their ids as ranges (a 500-node bully run listed 499 of them).
    #[test]
    fn a_large_disagreement_groups_nodes_that_name_the_same_leader() {
        let few: Vec<(NodeId, String)> = (0..3).map(|v| (v, "n5 (crashed)".into())).collect();
        assert_eq!(
            describe_beliefs(&few),
            "n0: n5 (crashed), n1: n5 (crashed), n2: n5 (crashed)"
        );
        let mut many: Vec<(NodeId, String)> = (0..10)
            .filter(|&v| v != 4)
            .map(|v| (v, "n12 (crashed)".to_string()))
            .collect();
        many.push((11, "none".into()));
        many.insert(4, (4, "none".into()));
        assert_eq!(
            describe_beliefs(&many),
            "n0-n3, n5-n9 (9 nodes): n12 (crashed); n4, n11 (2 nodes): none"
        );
    }

    fn run(t: T, quiet_ms: u64, bound_ms: u64, end_ms: u64) -> Result<(), Violation> {
        t.check(3, end_ms, LeaderAgreement::new(3, quiet_ms, bound_ms))
    }

    /// The full verdict (pass, violation or could not judge).
    fn verdict(t: T, quiet_ms: u64, bound_ms: u64, end_ms: u64) -> Verdict {
        let trace = Trace::new(3, t.events);
        let mut cs: Vec<Box<dyn Checker>> =
            vec![Box::new(LeaderAgreement::new(3, quiet_ms, bound_ms))];
        judge_trace(&trace, end_ms * NS_PER_MS, &mut cs)
    }

    fn unjudged(v: Verdict) -> String {
        match v {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                reason
            }
            v => panic!("expected could not judge, got {v}"),
        }
    }

    #[test]
    fn disagreement_after_the_bound_is_caught() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .fault(100, Fault::Crash { node: 2 })
            .leader(120, 1, Some(1), 0);
        // node 0 still names the crashed node 2
        let v = run(t, 100, 200, 1000).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.class, PropertyClass::Liveness);
        assert_eq!(v.t_ns, 300 * NS_PER_MS);
        assert!(
            v.explanation.contains("n0: n2 (crashed)"),
            "{}",
            v.explanation
        );
        assert!(v.explanation.contains("n1: n1"), "{}", v.explanation);
        // judged online too
        let t = T::default()
            .leader(10, 0, Some(0), 0)
            .leader(900, 1, Some(0), 0);
        assert!(run(t, 0, 100, 1000).is_err());
    }

    #[test]
    fn agreement_within_the_bound_passes() {
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .fault(100, Fault::Crash { node: 2 })
            .leader(120, 1, Some(1), 0)
            .leader(150, 0, Some(1), 0);
        assert_eq!(verdict(t, 100, 200, 1000), Verdict::Pass);
    }

    #[test]
    fn a_run_that_ends_before_the_deadline_is_not_judged() {
        // the deadline (2100 ms) is after the end of the run: could not judge, never a pass
        let t = T::default().leader(10, 0, None, 0);
        let why = unjudged(verdict(t, 100, 2000, 1000));
        assert!(why.contains("not past the deadline 2100.000 ms"), "{why}");
        // the same run long enough is a violation
        let t = T::default().leader(10, 0, None, 0);
        assert!(run(t, 100, 2000, 3000).is_err());
        // ending while disagreeing, within the bound of the last report: not judged
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(950, 1, None, 0);
        let why = unjudged(verdict(t, 0, 100, 1000));
        assert!(why.contains("n1: none"), "{why}");
    }

    #[test]
    fn an_election_first_asked_for_after_the_faults_has_its_whole_bound() {
        // The faults stop at 253 ms; a ring algorithm is first asked to elect at 586 ms and
        // everyone names the leader at 826 ms: within the bound (564 ms) of the request,
        // though not of the faults (817 ms). (The shrunk Chang–Roberts case of stop 24.)
        let t = T::default()
            .leader(586, 1, None, 0)
            .leader(606, 2, None, 0)
            .leader(626, 0, None, 0)
            .all(826, &[0, 1, 2], 2, 0);
        assert_eq!(verdict(t, 253, 564, 1500), Verdict::Pass);
        // The same election that never ends is caught at 586 + 564 ms, and the message says
        // which start the bound counts from.
        let t = T::default()
            .leader(586, 1, None, 0)
            .leader(606, 2, None, 0)
            .leader(626, 0, None, 0);
        let v = run(t, 253, 564, 1500).unwrap_err();
        assert_eq!(v.t_ns, 1150 * NS_PER_MS);
        assert!(
            v.explanation.contains(
                "after the first election began (at 586.000 ms; the faults stopped at 253.000 ms)"
            ),
            "{}",
            v.explanation
        );
        // A first report before the faults stop changes nothing: the bound counts from quiet.
        let t = T::default()
            .leader(100, 1, None, 0)
            .all(826, &[0, 1, 2], 2, 0);
        let v = run(t, 253, 564, 1500).unwrap_err();
        assert_eq!(v.t_ns, 817 * NS_PER_MS);
        assert!(v
            .explanation
            .contains("after the faults stopped (at 253.000 ms)"));
    }

    #[test]
    fn an_unsettled_end_is_caught() {
        // agreed in time, then node 1 starts an election that never ends
        let t = T::default()
            .all(10, &[0, 1, 2], 2, 0)
            .leader(300, 1, None, 0);
        let v = run(t, 0, 100, 1000).unwrap_err();
        assert!(v.explanation.contains("n1: none"), "{}", v.explanation);
    }

    #[test]
    fn a_leader_outside_the_nodes_is_never_agreed_on() {
        // every node names node 7 in a run of 3: no such node, not a live leader
        let t = T::default().all(10, &[0, 1, 2], 7, 0);
        let v = run(t, 0, 100, 1000).unwrap_err();
        assert!(
            v.explanation.contains("n0: n7 (no such node)"),
            "{}",
            v.explanation
        );
        // naming node 2, which exists, passes
        let t = T::default().all(10, &[0, 1, 2], 2, 0);
        assert_eq!(verdict(t, 0, 100, 1000), Verdict::Pass);
    }

    #[test]
    fn a_run_without_any_election_is_not_a_disagreement() {
        // nobody started an election and nobody names a leader (a ring election with no
        // input): not a violation, and not a pass either
        let why = unjudged(verdict(T::default(), 0, 100, 1000));
        assert!(why.contains("nothing to agree on"), "{why}");
        let t = T::default().fault(50, Fault::Crash { node: 1 });
        unjudged(verdict(t, 50, 100, 1000));
        // an election started after the deadline must still settle by the end
        let t = T::default().leader(500, 0, None, 0);
        let v = run(t, 0, 100, 1000).unwrap_err();
        assert!(v.explanation.contains("n0: none"), "{}", v.explanation);
        // and one that does settle passes
        let t = T::default()
            .leader(500, 0, None, 0)
            .all(520, &[0, 1, 2], 2, 0);
        assert_eq!(verdict(t, 0, 100, 1000), Verdict::Pass);
    }
}
