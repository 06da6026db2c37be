//! Monotonic clocks: no software clock is ever set back by its algorithm.
//!
//! Tanenbaum & van Steen §6.1.3 (seed `000`): "time can never run backwards" — a clock that is
//! ahead must be slowed down (slewed), never set back, or a file compiled just after the
//! correction gets an older time than a source edited just before it. The checker flags:
//! - a `clock_adjust` **step** with a negative amount (the algorithm set its clock back), and
//! - the node's software clock (`local_ns` of its events) decreasing between two consecutive
//!   events of that node.
//!
//! A hardware `clock_jump` fault is the environment, not the algorithm: the comparison across
//! the jump is skipped (the node's next reading becomes the new baseline). Works offline on
//! any trace: it only reads the events.
//!
//! # Contract
//!
//! - **Reads:** `clock_adjust` events (a step with a negative amount is a violation; slews are
//!   not judged by their amount, only through the readings), the `local_ns` of every event of
//!   a node (events without a node or without `local_ns` are skipped), and `clock_jump` faults
//!   (the node's baseline is reset, in either direction). Ignored otherwise: `drift_change`
//!   faults, and crashes and restarts — the comparison carries on across a restart, as the
//!   engine keeps a node's clock across it.
//! - **Settings:** the node count (it grows if the trace names a larger id). No quiet time
//!   (the faulty phase is judged too), no bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes.
//! - **Class:** safety.

use sincro_harness::process::ClockAdjust;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, Fault, NodeId, PropertyClass, Violation};

/// Property name.
pub const PROPERTY: &str = "monotonic_clock";

#[derive(Clone, Copy, Debug)]
struct Last {
    event: u64,
    local_ns: i64,
}

/// The monotonic clock checker.
#[derive(Debug)]
pub struct MonotonicClock {
    last: Vec<Option<Last>>,
}

impl MonotonicClock {
    /// A checker for `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        MonotonicClock {
            last: vec![None; nodes],
        }
    }

    fn slot(&mut self, node: NodeId) -> &mut Option<Last> {
        if node >= self.last.len() {
            self.last.resize(node + 1, None);
        }
        &mut self.last[node]
    }
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

impl Checker for MonotonicClock {
    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let Some(node) = ev.node else { return Ok(()) };
        if let EventKind::ClockAdjust {
            how: ClockAdjust::Step,
            delta_ns,
        } = ev.kind
        {
            if delta_ns < 0 {
                return Err(violation(
                    ev,
                    format!(
                        "node {node} stepped its clock back by {:.6} ms at local time {:.6} ms",
                        -delta_ns as f64 / 1e6,
                        ev.local_ns.unwrap_or(0) as f64 / 1e6
                    ),
                    vec![ev.id],
                ));
            }
        }
        if let EventKind::Fault {
            fault: Fault::ClockJump { .. },
        } = ev.kind
        {
            // The reading recorded with the fault is the one before the jump: start afresh.
            *self.slot(node) = None;
            return Ok(());
        }
        let Some(local_ns) = ev.local_ns else {
            return Ok(());
        };
        let slot = self.slot(node);
        if let Some(prev) = *slot {
            if local_ns < prev.local_ns {
                return Err(violation(
                    ev,
                    format!(
                        "node {node}'s software clock went back from {:.6} ms to {:.6} ms ({:.6} ms)",
                        prev.local_ns as f64 / 1e6,
                        local_ns as f64 / 1e6,
                        (prev.local_ns - local_ns) as f64 / 1e6
                    ),
                    vec![prev.event, ev.id],
                ));
            }
        }
        *slot = Some(Last {
            event: ev.id,
            local_ns,
        });
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

    fn ev(id: u64, node: NodeId, local_ns: i64, kind: EventKind) -> Event {
        Event {
            id,
            t_ns: id * 1000,
            node: Some(node),
            local_ns: Some(local_ns),
            kind,
        }
    }

    fn input(id: u64, node: NodeId, local_ns: i64) -> Event {
        ev(id, node, local_ns, EventKind::Input { input: "x".into() })
    }

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace { nodes: 2, events };
        let mut c: Vec<Box<dyn Checker>> = vec![Box::new(MonotonicClock::new(2))];
        check_trace(&trace, 1_000_000, &mut c)
    }

    #[test]
    fn a_backward_step_is_caught() {
        let v = run(vec![
            input(0, 0, 100),
            ev(
                1,
                0,
                40,
                EventKind::ClockAdjust {
                    how: ClockAdjust::Step,
                    delta_ns: -60,
                },
            ),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert!(v.explanation.contains("stepped its clock back"), "{v}");
        assert_eq!(v.events, vec![1]);
    }

    #[test]
    fn a_decreasing_reading_is_caught() {
        let v = run(vec![input(0, 0, 100), input(1, 1, 5), input(2, 0, 99)]).unwrap_err();
        assert!(v.explanation.contains("went back"), "{v}");
        assert_eq!(v.events, vec![0, 2]);
    }

    #[test]
    fn slews_forward_steps_and_hardware_jumps_pass() {
        let jump = EventKind::Fault {
            fault: Fault::ClockJump {
                node: 0,
                delta_ms: -1.0,
            },
        };
        run(vec![
            input(0, 0, 100),
            ev(
                1,
                0,
                150,
                EventKind::ClockAdjust {
                    how: ClockAdjust::Step,
                    delta_ns: 50,
                },
            ),
            ev(
                2,
                0,
                150,
                EventKind::ClockAdjust {
                    how: ClockAdjust::Slew,
                    delta_ns: -1_000,
                },
            ),
            ev(3, 0, 151, jump),
            input(4, 0, 10), // after the hardware jump: not the algorithm's doing
            input(5, 0, 10),
            input(6, 1, 7),
        ])
        .unwrap();
    }
}
