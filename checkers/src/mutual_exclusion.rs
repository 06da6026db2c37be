//! Mutual exclusion: no two nodes are inside the critical section of the same resource at the
//! same global time.
//!
//! Judged on global time from `cs_enter` / `cs_exit` observations. A node that crashes while
//! inside leaves the section with the crash (its process is gone); a node that enters twice
//! without leaving is also reported, as the algorithm has lost track of its own state.
//!
//! # Contract
//!
//! - **Reads:** `cs_enter` and `cs_exit` observations (per resource, on global time) and
//!   `crash` / `restart` faults (the node leaves every section it was in). A `cs_exit` of a
//!   node that is not inside is ignored. Everything else is ignored: `cs_request` and
//!   `cs_abandon`, messages, pauses (a paused node inside stays inside), partitions, clocks.
//! - **Settings:** none. The node count is accepted and unused; no quiet time, no bound.
//! - **When the run ends before it can judge:** nothing is left to judge — `finish` passes; a
//!   node still inside at the end is fine.
//! - **Class:** safety (stops at the overlapping `cs_enter`).

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, Observation, PropertyClass, Violation};
use std::collections::BTreeMap;

/// Property name.
pub const PROPERTY: &str = "mutual_exclusion";

/// The mutual exclusion checker.
#[derive(Debug, Default)]
pub struct MutualExclusion {
    /// resource -> (holder, enter event id)
    holders: BTreeMap<u32, Vec<(NodeId, u64)>>,
}

impl MutualExclusion {
    /// A checker for a run of `nodes` nodes.
    pub fn new(_nodes: usize) -> Self {
        MutualExclusion::default()
    }

    fn violation(ev: &Event, explanation: String, events: Vec<u64>) -> Violation {
        Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns: ev.t_ns,
            events,
        }
    }
}

impl Checker for MutualExclusion {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        match &ev.kind {
            EventKind::Observe {
                obs: Observation::CsEnter { resource },
            } => {
                let node = ev.node.unwrap_or(usize::MAX);
                let inside = self.holders.entry(*resource).or_default();
                if let Some(&(other, enter)) = inside.first() {
                    let explanation = if other == node {
                        format!("node {node} entered the critical section of resource {resource} again without leaving it")
                    } else {
                        format!(
                            "node {node} entered the critical section of resource {resource} while node {other} was still inside"
                        )
                    };
                    return Err(Self::violation(ev, explanation, vec![enter, ev.id]));
                }
                inside.push((node, ev.id));
            }
            EventKind::Observe {
                obs: Observation::CsExit { resource },
            } => {
                if let Some(inside) = self.holders.get_mut(resource) {
                    inside.retain(|&(n, _)| Some(n) != ev.node);
                }
            }
            EventKind::Fault {
                fault: Fault::Crash { node } | Fault::Restart { node },
            } => {
                for inside in self.holders.values_mut() {
                    inside.retain(|&(n, _)| n != *node);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn obs(id: u64, t_ns: u64, node: NodeId, obs: Observation) -> Event {
        Event {
            id,
            t_ns,
            node: Some(node),
            local_ns: Some(t_ns as i64),
            kind: EventKind::Observe { obs },
        }
    }

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace { nodes: 3, events };
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(MutualExclusion::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    #[test]
    fn overlapping_holders_are_caught() {
        let v = run(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 20, 2, Observation::CsEnter { resource: 0 }),
            obs(2, 30, 1, Observation::CsExit { resource: 0 }),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 1]);
        assert!(
            v.explanation.contains("node 2") && v.explanation.contains("node 1 was still inside")
        );
    }

    #[test]
    fn sequential_holders_and_other_resources_pass() {
        run(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            obs(1, 15, 2, Observation::CsEnter { resource: 1 }),
            obs(2, 20, 1, Observation::CsExit { resource: 0 }),
            obs(3, 20, 0, Observation::CsEnter { resource: 0 }),
        ])
        .unwrap();
    }

    #[test]
    fn a_crash_releases_the_holder() {
        let crash = Event {
            id: 1,
            t_ns: 15,
            node: Some(1),
            local_ns: None,
            kind: EventKind::Fault {
                fault: Fault::Crash { node: 1 },
            },
        };
        run(vec![
            obs(0, 10, 1, Observation::CsEnter { resource: 0 }),
            crash,
            obs(2, 20, 2, Observation::CsEnter { resource: 0 }),
        ])
        .unwrap();
    }
}
