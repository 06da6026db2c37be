//! Replica agreement: after the faults stop and the run goes quiet, every replica ends in the
//! same state.
//!
//! Judged at the end of the run from each node's last `state` observation (the replicated
//! state after its last update). A replica that never reported a state cannot be compared, so
//! a run with one is not judged (an algorithm reports its initial state at start, as the
//! built-in ones do, to have such a replica compared). The run is
//! expected to last long enough after the last fault for updates to reach every replica (the
//! algorithm's liveness bound), so a disagreement at the end is a replica that diverged or
//! never caught up.
//!
//! # Contract
//!
//! - **Reads:** `state` observations of nodes in `0..nodes` — only each node's last one.
//!   Everything else is ignored, crashes included: a node that crashed keeps its last state
//!   and is compared with the others (a replica that crashed before it caught up fails the
//!   run), and a restarted node keeps its pre-crash state until it reports a new one.
//! - **Settings:** the node count; from a scenario ([`ReplicaAgreement::with_bound`], which
//!   `Property::for_scenario` uses), also the quiet time (the last fault) and the liveness
//!   bound: the time the algorithm needs for an update to reach every replica.
//! - **When the run ends before it can judge:** all the judging is in `finish`, at the end of
//!   the run. Replicas that differ then are a violation only when the run lasted a bound past
//!   both the quiet time and its last input (the last update made); before that, an update
//!   may still be travelling, and the run is **not judged** ([`Checker::could_not_judge`]):
//!   a correct `order.total` run of 34 ms with a deposit at 26 ms was called a violation.
//!   [`ReplicaAgreement::new`] takes no bound and judges whenever the run ends. When the
//!   replicas that reported agree but some replica never reported a state, the run is **not
//!   judged** (it may never have received an update: a silent replica used to pass); a
//!   disagreement among those that reported is judged as above. A run of one node whose one
//!   replica reported passes (it agrees with itself).
//! - **Class:** liveness (an end state, judged once at the end).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "replica_agreement";

/// The replica agreement checker.
#[derive(Debug)]
pub struct ReplicaAgreement {
    /// per node: (last state, its event)
    last: Vec<Option<(String, u64)>>,
    unjudged: Option<String>,
    /// the faults stop here, ns
    quiet_ns: u64,
    /// an update reaches every replica within this, ns
    bound_ns: u64,
    /// the last input (update) of the run, ns
    last_input_ns: u64,
}

impl ReplicaAgreement {
    /// A checker for a run of `nodes` nodes that judges whenever the run ends.
    pub fn new(nodes: usize) -> Self {
        ReplicaAgreement::with_bound(nodes, 0, 0)
    }

    /// A checker for a run of `nodes` nodes whose faults stop at `quiet_from_ms` and whose
    /// updates reach every replica within `bound_ms`: replicas that differ at an end earlier
    /// than a bound past the quiet time and the last input are not judged.
    pub fn with_bound(nodes: usize, quiet_from_ms: u64, bound_ms: u64) -> Self {
        ReplicaAgreement {
            last: vec![None; nodes],
            unjudged: None,
            quiet_ns: quiet_from_ms.saturating_mul(1_000_000),
            bound_ns: bound_ms.saturating_mul(1_000_000),
            last_input_ns: 0,
        }
    }
}

impl Checker for ReplicaAgreement {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::State { value },
            } => {
                match ev.node.and_then(|n| self.last.get_mut(n)) {
                    // The node's last state's buffer is reused: no allocation a report.
                    Some(Some((last, id))) => {
                        last.clone_from(value);
                        *id = ev.id;
                    }
                    Some(slot) => *slot = Some((value.clone(), ev.id)),
                    None => {}
                }
            }
            EventKind::Input { .. } => self.last_input_ns = self.last_input_ns.max(ev.t_ns),
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        let mut by_value: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (n, s) in self.last.iter().enumerate() {
            if let Some((v, _)) = s {
                by_value.entry(v.as_str()).or_default().push(n);
            }
        }
        if by_value.len() <= 1 {
            let silent: Vec<String> = (0..self.last.len())
                .filter(|&n| self.last[n].is_none())
                .map(|n| n.to_string())
                .collect();
            if !silent.is_empty() {
                let reporters = self.last.len() - silent.len();
                self.unjudged = Some(format!(
                    "{reporters} of the {} replicas reported a state; node{} {} never did, so {} cannot be compared (an algorithm reports its initial state at start to have every replica compared)",
                    self.last.len(),
                    if silent.len() == 1 { "" } else { "s" },
                    crate::grouped::elide(&silent, ", "),
                    if silent.len() == 1 { "it" } else { "they" },
                ));
            }
            return Ok(());
        }
        let from_ns = self.quiet_ns.max(self.last_input_ns);
        let judged_from_ns = from_ns.saturating_add(self.bound_ns);
        if end_t_ns < judged_from_ns {
            self.unjudged = Some(format!(
                "the replicas differ when the run ends at {:.3} ms, before {:.3} ms: the \
                 bound of {:.3} ms after the last input or fault (at {:.3} ms) within which \
                 an update reaches every replica; one may still be on its way, so the run is \
                 too short to judge",
                end_t_ns as f64 / 1e6,
                judged_from_ns as f64 / 1e6,
                self.bound_ns as f64 / 1e6,
                from_ns as f64 / 1e6
            ));
            return Ok(());
        }
        let facts: Vec<(NodeId, String)> = self
            .last
            .iter()
            .enumerate()
            .filter_map(|(n, s)| s.as_ref().map(|(v, _)| (n, v.clone())))
            .collect();
        let parts = crate::grouped::describe(
            &facts,
            "",
            |n, v| format!("node {n} at {v}"),
            |nodes, k, v| format!("nodes {nodes} ({k} nodes) at {v}"),
        );
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Liveness,
            explanation: format!("the replicas disagree at the end of the run: {parts}"),
            t_ns: end_t_ns,
            events: self.last.iter().flatten().map(|(_, e)| *e).collect(),
        })
    }

    fn could_not_judge(&self) -> Option<String> {
        self.unjudged.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::observe;
    use sincro_harness::check::{check_trace, judge_trace};
    use sincro_harness::{Trace, Verdict};

    fn state(v: &str) -> Observation {
        Observation::State { value: v.into() }
    }

    #[test]
    fn fig_6_11_diverged_accounts_are_caught() {
        let trace = Trace::new(
            2,
            vec![
                observe(0, 0, state("$1000.00")),
                observe(1, 1, state("$1000.00")),
                observe(2, 0, state("$1100.00")),
                observe(3, 1, state("$1010.00")),
                observe(4, 0, state("$1111.00")),
                observe(5, 1, state("$1110.00")),
            ],
        );
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ReplicaAgreement::new(2))];
        let v = check_trace(&trace, 9_000, &mut cs).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![4, 5]);
        assert_eq!(
            v.explanation,
            "the replicas disagree at the end of the run: node 0 at $1111.00, node 1 at $1110.00"
        );
    }

    /// Replicas that differ before a bound has passed since the last input may be waiting
    /// for an update on its way: not judged. Once the bound has passed, they diverged.
    #[test]
    fn replicas_that_differ_within_the_bound_of_the_last_input_are_not_judged() {
        let at = |id: u64, t_ms: u64, node: usize, kind: EventKind| Event {
            id,
            t_ns: t_ms * 1_000_000,
            node: Some(node),
            local_ns: None,
            kind,
        };
        let trace = Trace::new(
            2,
            vec![
                at(
                    0,
                    0,
                    0,
                    EventKind::Observe {
                        obs: state("$1000"),
                    },
                ),
                at(
                    1,
                    0,
                    1,
                    EventKind::Observe {
                        obs: state("$1000"),
                    },
                ),
                at(
                    2,
                    26,
                    0,
                    EventKind::Input {
                        input: "deposit 4".into(),
                    },
                ),
                at(
                    3,
                    26,
                    0,
                    EventKind::Observe {
                        obs: state("$1004"),
                    },
                ),
            ],
        );
        let judge = |end_ms: u64| {
            let mut cs: Vec<Box<dyn Checker>> =
                vec![Box::new(ReplicaAgreement::with_bound(2, 0, 100))];
            judge_trace(&trace, end_ms * 1_000_000, &mut cs)
        };
        assert!(
            matches!(judge(34), Verdict::Unjudged { ref reason, .. } if reason.contains("too short to judge")),
            "{}",
            judge(34)
        );
        assert!(
            matches!(judge(126), Verdict::Violation(_)),
            "{}",
            judge(126)
        );
        // without a bound, judged whenever the run ends
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ReplicaAgreement::new(2))];
        assert!(matches!(
            judge_trace(&trace, 34_000_000, &mut cs),
            Verdict::Violation(_)
        ));
    }

    /// Past 8 replicas the explanation groups those at one state (ids as ranges).
    #[test]
    fn many_diverged_replicas_are_grouped_by_state() {
        let events: Vec<Event> = (0..12)
            .map(|n| observe(n as u64, n, state(if n == 5 { "$9" } else { "$1" })))
            .collect();
        let trace = Trace::new(12, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ReplicaAgreement::new(12))];
        let v = check_trace(&trace, 9_000, &mut cs).unwrap_err();
        assert_eq!(
            v.explanation,
            "the replicas disagree at the end of the run: nodes 0-4, 6-11 (11 nodes) at $1; \
             node 5 at $9"
        );
    }

    #[test]
    fn a_single_reporter_is_not_an_agreement() {
        let judge = |nodes: usize, events: Vec<Event>| {
            let trace = Trace::new(nodes, events);
            let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ReplicaAgreement::new(nodes))];
            judge_trace(&trace, 9_000, &mut cs)
        };
        match judge(3, vec![observe(0, 0, state("$1000.00"))]) {
            Verdict::Unjudged { property, reason } => {
                assert_eq!(property, PROPERTY);
                assert!(reason.starts_with("1 of the 3 replicas"), "{reason}");
            }
            v => panic!("{v}"),
        }
        assert!(matches!(judge(3, vec![]), Verdict::Unjudged { .. }));
        // two agreeing reporters of three: the silent one cannot be compared (it passed,
        // though it may never have received an update); all three: a pass; the one replica
        // of a one-node run: a pass
        let two = vec![
            observe(0, 0, state("$1000.00")),
            observe(1, 2, state("$1000.00")),
        ];
        match judge(3, two.clone()) {
            Verdict::Unjudged { reason, .. } => {
                assert!(reason.contains("node 1 never did"), "{reason}")
            }
            v => panic!("{v}"),
        }
        let mut three = two;
        three.push(observe(2, 1, state("$1000.00")));
        assert_eq!(judge(3, three), Verdict::Pass);
        assert_eq!(
            judge(1, vec![observe(0, 0, state("$1000.00"))]),
            Verdict::Pass
        );
    }

    #[test]
    fn agreeing_replicas_pass() {
        let trace = Trace::new(
            3,
            vec![
                observe(0, 0, state("$1000.00")),
                observe(1, 1, state("$1110.00")),
                observe(2, 0, state("$1110.00")),
            ],
        );
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(ReplicaAgreement::new(3))];
        check_trace(&trace, 9_000, &mut cs).unwrap();
    }
}
