//! No abdication: a live leader gives up power only to a higher process. Once a node reports
//! itself leader, every later report of that node, until it crashes or restarts, names itself
//! or a higher node.
//!
//! In the elections where the highest live id leads (the ring with the list of ids, seed `000`
//! §6.5.1), a leader has no reason to step down while it lives: a process higher than it may
//! come back and take over, and nothing else may move power. [`crate::election::stability`]
//! judges the same slip by its outcome, the leadership changing once the faults stopped (or
//! between two faults that leave nothing in effect); this property sees it where it happens,
//! whatever faults are in effect elsewhere: a leader that calls an election (it reports "no
//! leader") or adopts a lower node while alive breaks it at once.
//!
//! # Contract
//!
//! - **Reads:** `leader` observations of nodes in `0..nodes`, and `crash` / `restart` faults
//!   of those nodes. A node is *in power* from a report naming itself until its next report
//!   that does not, or its next crash or restart (of the life that made the claim). A report of a node in power that names no
//!   leader, or a lower node, is a violation; one that names a higher node (even one outside
//!   `0..nodes`: `leader_validity` judges who may lead) ends its power. Terms are not read.
//!   Pauses and partitions do not excuse a step-down: the property is for algorithms whose
//!   fault model has neither. Reports of nodes outside `0..nodes`, reports without a node and
//!   every other event are ignored.
//! - **Events at one instant are judged as a set:** each node's events are read in their own
//!   order, its crash and restart lines included (a fault of one node is recorded at that
//!   node: every engine writes it so, and `sincro check` refuses a trace that does not). A
//!   report after its node's restart line belongs to the new life (a claim there puts it in
//!   power); one before its crash or restart line, at the same instant, to the life that
//!   ended (a step-down there is a step-down while alive). Lines of other nodes do not
//!   matter: when several nodes step down at one instant, the violation names the lowest
//!   node, not the first line.
//! - **Settings:** the node count. No quiet time (the faulty phase is judged too), no bound.
//! - **When the run ends before it can judge:** nothing is pending; `finish` judges the last
//!   instant.
//! - **Class:** safety (reported at the instant of the step-down, once the instant's events
//!   have all been seen: at the first later event, or at the end).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, PropertyClass, Violation};

/// Property name.
pub const PROPERTY: &str = "no_abdication";

/// A report: when, which event.
#[derive(Clone, Copy, Debug)]
struct Report {
    t_ns: u64,
    event: u64,
}

/// A step-down seen in the current instant, judged when it closes.
#[derive(Clone, Copy, Debug)]
struct StepDown {
    node: NodeId,
    /// The claim that put the node in power (its first of the uninterrupted run of claims).
    since: Report,
    /// The report that gave it up.
    at: Report,
    /// What that report named.
    named: Option<NodeId>,
}

/// The no-abdication checker.
#[derive(Debug)]
pub struct NoAbdication {
    /// Per node, the claim that put it in power, if it is.
    power: Vec<Option<Report>>,
    /// The current instant's step-downs.
    pending: Vec<StepDown>,
    now_ns: u64,
}

impl NoAbdication {
    /// A checker over nodes `0..nodes`.
    pub fn new(nodes: usize) -> Self {
        NoAbdication {
            power: vec![None; nodes],
            pending: Vec::new(),
            now_ns: 0,
        }
    }

    /// Closes the instant: the lowest node's first step-down in it is the violation.
    fn close_instant(&mut self) -> Result<(), Violation> {
        let pending = std::mem::take(&mut self.pending);
        let Some(s) = pending.into_iter().min_by_key(|s| s.node) else {
            return Ok(());
        };
        let named = match s.named {
            None => "no leader (it calls an election)".to_string(),
            Some(l) => format!("node {l}, a lower node"),
        };
        Err(Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation: format!(
                "node {} stepped down while alive: it led from {:.3} ms and at {:.3} ms named \
                 {named}, with no crash or restart of its own in between; a live leader gives \
                 up power only to a higher node",
                s.node,
                s.since.t_ns as f64 / 1e6,
                s.at.t_ns as f64 / 1e6,
            ),
            t_ns: s.at.t_ns,
            events: vec![s.since.event, s.at.event],
        })
    }

    /// A `leader` report of `node` naming `leader`.
    fn on_report(&mut self, node: NodeId, leader: Option<NodeId>, at: Report) {
        let in_power = self.power[node];
        self.power[node] = match (in_power, leader) {
            (Some(since), Some(l)) if l == node => Some(since),
            (None, Some(l)) if l == node => Some(at),
            (Some(_), Some(l)) if l > node => None,
            (Some(since), named) => {
                self.pending.push(StepDown {
                    node,
                    since,
                    at,
                    named,
                });
                None
            }
            (None, _) => None,
        };
    }
}

impl Checker for NoAbdication {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if ev.t_ns > self.now_ns {
            self.close_instant()?;
            self.now_ns = ev.t_ns;
        }
        let nodes = self.power.len();
        match &ev.kind {
            EventKind::Fault {
                fault: Fault::Crash { node } | Fault::Restart { node },
            } if *node < nodes => {
                self.power[*node] = None;
            }
            EventKind::Observe {
                obs: Observation::Leader { leader, .. },
            } => {
                if let Some(node) = ev.node.filter(|&n| n < nodes) {
                    let at = Report {
                        t_ns: ev.t_ns,
                        event: ev.id,
                    };
                    self.on_report(node, *leader, at);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        self.close_instant()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(id: u64, t_ms: u64, node: NodeId, leader: Option<NodeId>) -> Event {
        Event {
            id,
            t_ns: t_ms * 1_000_000,
            node: Some(node),
            local_ns: None,
            kind: EventKind::Observe {
                obs: Observation::Leader { leader, term: 0 },
            },
        }
    }

    fn fault(id: u64, t_ms: u64, fault: Fault) -> Event {
        Event {
            id,
            t_ns: t_ms * 1_000_000,
            node: fault.node(),
            local_ns: None,
            kind: EventKind::Fault { fault },
        }
    }

    fn judge(events: &[Event]) -> Result<(), Violation> {
        let mut c = NoAbdication::new(4);
        for e in events {
            c.on_event(e)?;
        }
        c.finish(events.last().map_or(0, |e| e.t_ns))
    }

    /// The path of `election.ring`'s stale-coordinator bug: the leader 3, reached by a stale
    /// result naming 2, calls an election (reports no leader) with no fault of its own.
    #[test]
    fn a_leader_that_calls_an_election_while_alive_is_caught() {
        let v = judge(&[
            report(0, 1, 3, Some(3)),
            fault(1, 2, Fault::Crash { node: 1 }),
            report(2, 5, 3, Some(3)),
            report(3, 9, 3, None),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.t_ns, 9_000_000);
        assert_eq!(v.events, vec![0, 3]);
        assert!(
            v.explanation.starts_with(
                "node 3 stepped down while alive: it led from 1.000 ms and at 9.000 ms named no leader"
            ),
            "{}",
            v.explanation
        );
        // adopting a lower node is a step-down too
        let v = judge(&[report(0, 1, 2, Some(2)), report(1, 4, 2, Some(0))]).unwrap_err();
        assert!(v.explanation.contains("named node 0, a lower node"));
    }

    #[test]
    fn yielding_upward_crashing_and_restarting_pass() {
        judge(&[
            // 2 yields to 3, then names none: it no longer led
            report(0, 1, 2, Some(2)),
            report(1, 2, 2, Some(3)),
            report(2, 3, 2, None),
            // 3 leads, crashes, comes back and calls an election
            report(3, 4, 3, Some(3)),
            fault(4, 5, Fault::Crash { node: 3 }),
            fault(5, 6, Fault::Restart { node: 3 }),
            report(6, 7, 3, None),
            // 1 leads, is rebooted (a bare restart) and names 0
            report(7, 8, 1, Some(1)),
            fault(8, 9, Fault::Restart { node: 1 }),
            report(9, 10, 1, Some(0)),
            // a node outside the run is ignored
            report(10, 11, 7, Some(7)),
            report(11, 12, 7, None),
        ])
        .unwrap();
    }

    /// At the instant of its node's restart, a report after the restart line belongs to the
    /// new life and one before it to the old: the node's own line order decides.
    #[test]
    fn a_restart_at_the_instant_splits_the_lives_by_the_nodes_own_order() {
        let restart = fault(1, 5, Fault::Restart { node: 3 });
        // rebooted, then no leader: the new life knows none
        judge(&[
            report(0, 1, 3, Some(3)),
            restart.clone(),
            report(2, 5, 3, None),
        ])
        .unwrap();
        // no leader, then rebooted: the old life stepped down while alive
        let v = judge(&[
            report(0, 1, 3, Some(3)),
            report(2, 5, 3, None),
            restart.clone(),
        ])
        .unwrap_err();
        assert_eq!(v.events, vec![0, 2]);
        // a claim before the reboot ends with that life
        judge(&[
            report(2, 5, 3, Some(3)),
            restart.clone(),
            report(3, 8, 3, None),
        ])
        .unwrap();
        // a claim right after it is the new life's (the highest node claims as it recovers)
        let v = judge(&[restart, report(2, 5, 3, Some(3)), report(3, 8, 3, None)]).unwrap_err();
        assert_eq!(v.events, vec![2, 3]);
    }

    /// Two nodes stepping down at one instant: the violation names the lower, in either order.
    #[test]
    fn two_step_downs_at_one_instant_name_the_lower_node() {
        let claims = [report(0, 1, 1, Some(1)), report(1, 1, 2, Some(2))];
        let a = [report(2, 4, 2, None), report(3, 4, 1, None)];
        let b = [report(3, 4, 1, None), report(2, 4, 2, None)];
        let va = judge(&[claims.as_slice(), &a].concat()).unwrap_err();
        let vb = judge(&[claims.as_slice(), &b].concat()).unwrap_err();
        assert_eq!(va.explanation, vb.explanation);
        assert!(va.explanation.starts_with("node 1 stepped down"));
    }
}
