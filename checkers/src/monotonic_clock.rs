//! Monotonic clocks: no software clock is ever set back by its algorithm.
//!
//! Tanenbaum & van Steen §6.1.3 (seed `000`): "time can never run backwards" — a clock that is
//! ahead must be slowed down (slewed), never set back, or a file compiled just after the
//! correction gets an older time than a source edited just before it. The checker flags:
//! - a `clock_adjust` **step** with a negative amount (the algorithm set its clock back), and
//! - the node's software clock (`local_ns` of its events) decreasing between two consecutive
//!   events of that node.
//!
//! A hardware `clock_jump` fault is the environment, not the algorithm: a jump back by `d`
//! excuses a reading up to `d` below the previous one, and nothing more. A forward jump excuses
//! nothing (a reading after it that is below the previous one was set back by someone else).
//! Jumps between two readings add up: +5 ms then −3 ms is a net +2 ms and excuses nothing.
//! The reading recorded with a `clock_jump` fault is the node's clock just *before* the jump:
//! it is judged like any other reading (against the previous one), and the jump then applies
//! to the readings after it. Works offline on any trace: it only reads the events.
//!
//! # Contract
//!
//! - **Reads:** `clock_adjust` events (a step with a negative amount is a violation; slews are
//!   not judged by their amount, only through the readings), the `local_ns` of every event of
//!   a node (events without a node or without `local_ns` are skipped; the reading recorded
//!   with a `clock_jump` fault, taken before the jump, is one of the node's readings), and
//!   `clock_jump` faults: the signed sum `J` of the node's jumps since its previous reading
//!   (`delta_ms`, rounded to ns as the engines apply it; a jump counts after the reading of its
//!   own event) lowers the floor of the next reading to `previous + min(J, 0)`.
//!   Ignored otherwise: `drift_change`
//!   faults, and crashes and restarts — the comparison carries on across a restart, as the
//!   engine keeps a node's clock across it.
//! - **Settings:** the node count (it grows if the trace names a larger id). No quiet time
//!   (the faulty phase is judged too), no bound.
//! - **When the run ends before it can judge:** nothing is pending — `finish` passes. A run
//!   in which no node had two readings to compare, nor stepped its clock, is *could not
//!   judge* (a trace of the nodes' start events alone passed).
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
    /// Signed sum of the hardware clock jumps since this reading, ns (128 bits: a 64-bit
    /// sum saturated, and jumps that cancel out left it far below zero, excusing any fall).
    jumps_ns: i128,
    /// The last of those jumps (for the explanation).
    jump_event: Option<u64>,
}

/// The monotonic clock checker.
#[derive(Debug)]
pub struct MonotonicClock {
    last: Vec<Option<Last>>,
    /// Some node had two readings compared, or stepped its clock: something was judged.
    judged: bool,
}

impl MonotonicClock {
    /// A checker for `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        MonotonicClock {
            last: vec![None; nodes],
            judged: false,
        }
    }

    fn slot(&mut self, node: NodeId) -> &mut Option<Last> {
        if node >= self.last.len() {
            self.last.resize(node + 1, None);
        }
        &mut self.last[node]
    }

    /// Compares `node`'s reading `local_ns` (of `ev`) with its previous one, then makes it the
    /// previous one.
    fn judge_reading(&mut self, ev: &Event, node: NodeId, local_ns: i64) -> Result<(), Violation> {
        // a reading with a previous one to compare it with: something is judged
        self.judged |= self.last.get(node).is_some_and(Option::is_some);
        let slot = self.slot(node);
        if let Some(prev) = *slot {
            let floor = i128::from(prev.local_ns) + prev.jumps_ns.min(0);
            if i128::from(local_ns) < floor {
                let (excuse, mut events) = match prev.jump_event {
                    Some(j) if prev.jumps_ns < 0 => (
                        format!(
                            "; the hardware clock jumped back by only {:.6} ms in between",
                            -prev.jumps_ns as f64 / 1e6
                        ),
                        vec![prev.event, j, ev.id],
                    ),
                    // a jump that rounds to 0 ns (`-0.0`, `-1e-300` ms) moved nothing
                    // (stop 74's probe: "jumped forward by 0.000000 ms")
                    Some(j) if prev.jumps_ns == 0 => (
                        "; the hardware clock jumps in between add up to 0 ms, which excuses no fall"
                            .to_string(),
                        vec![prev.event, j, ev.id],
                    ),
                    Some(j) => (
                        format!(
                            "; the hardware clock jumped forward by {:.6} ms in between, which excuses no fall",
                            prev.jumps_ns as f64 / 1e6
                        ),
                        vec![prev.event, j, ev.id],
                    ),
                    None => (String::new(), vec![prev.event, ev.id]),
                };
                events.sort_unstable();
                events.dedup();
                let before_jump = if matches!(
                    ev.kind,
                    EventKind::Fault {
                        fault: Fault::ClockJump { .. }
                    }
                ) {
                    " (the reading recorded with a clock jump, before the jump)"
                } else {
                    ""
                };
                return Err(violation(
                    ev,
                    format!(
                        "node {node}'s software clock went back from {:.6} ms to {:.6} ms ({:.6} ms){before_jump}{excuse}",
                        prev.local_ns as f64 / 1e6,
                        local_ns as f64 / 1e6,
                        (prev.local_ns - local_ns) as f64 / 1e6
                    ),
                    events,
                ));
            }
        }
        *slot = Some(Last {
            event: ev.id,
            local_ns,
            jumps_ns: 0,
            jump_event: None,
        });
        Ok(())
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
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

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
            self.judged = true;
            if delta_ns < 0 {
                return Err(violation(
                    ev,
                    format!(
                        "node {node} stepped its clock back by {:.6} ms at local time {:.6} ms",
                        -(delta_ns as f64) / 1e6,
                        ev.local_ns.unwrap_or(0) as f64 / 1e6
                    ),
                    vec![ev.id],
                ));
            }
        }
        // A jump fault's own reading is taken before the jump: judged first, then the jump
        // applies to what follows (when the fault carries no reading, to the previous one).
        let jump_ns = match ev.kind {
            EventKind::Fault {
                fault: Fault::ClockJump { delta_ms, .. },
            } => Some((delta_ms * 1e6).round() as i64),
            _ => None,
        };
        if let Some(local_ns) = ev.local_ns {
            self.judge_reading(ev, node, local_ns)?;
        }
        if let (Some(j), Some(prev)) = (jump_ns, self.slot(node)) {
            prev.jumps_ns += i128::from(j);
            prev.jump_event = Some(ev.id);
        }
        Ok(())
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        Ok(())
    }

    /// No node had two readings to compare (nor stepped its clock): a trace of the nodes'
    /// start events alone passed.
    fn could_not_judge(&self) -> Option<String> {
        (!self.judged).then(|| {
            "no node has two clock readings to compare (nor a clock step): nothing was judged"
                .to_string()
        })
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
        let trace = Trace::new(2, events);
        let mut c: Vec<Box<dyn Checker>> = vec![Box::new(MonotonicClock::new(2))];
        check_trace(&trace, 1_000_000, &mut c)
    }

    /// One reading per node compares nothing: not a pass (a trace of start events passed).
    #[test]
    fn one_reading_per_node_is_not_judged_two_are() {
        let judged = |events: Vec<Event>| {
            let mut c = MonotonicClock::new(2);
            for e in &events {
                c.on_event(e).unwrap();
            }
            c.finish(1_000_000).unwrap();
            c.could_not_judge()
        };
        let why = judged(vec![input(0, 0, 0), input(1, 1, 0)]).expect("not judged");
        assert!(why.contains("no node has two clock readings"), "{why}");
        assert_eq!(
            judged(vec![input(0, 0, 0), input(1, 1, 0), input(2, 1, 5)]),
            None
        );
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

    /// Jumps that cancel out excuse nothing: 10,000 jumps of +10⁹ ms, then as many of
    /// −10⁹ ms (recorded with no reading), then a reading 7·10¹¹ ms below the first. A 64-bit
    /// sum saturated at the
    /// forward jumps, the backward ones then took it 10¹⁹ ns below zero, and the fall passed.
    #[test]
    fn jumps_that_cancel_out_excuse_no_fall() {
        let mut events = vec![input(0, 0, 800_000_000_000_000_000)];
        for delta_ms in [1e9, -1e9] {
            for _ in 0..10_000 {
                // a jump recorded with no reading: it applies to the last one
                let mut j = jump(events.len() as u64, 0, 0, delta_ms);
                j.local_ns = None;
                events.push(j);
            }
        }
        let id = events.len() as u64;
        events.push(input(id, 0, 100_000_000_000_000_000));
        let v = run(events).unwrap_err();
        assert!(v.explanation.contains("went back"), "{v}");
        assert_eq!(v.events.last(), Some(&id));
    }

    fn jump(id: u64, node: NodeId, local_ns: i64, delta_ms: f64) -> Event {
        ev(
            id,
            node,
            local_ns,
            EventKind::Fault {
                fault: Fault::ClockJump { node, delta_ms },
            },
        )
    }

    #[test]
    fn a_forward_jump_does_not_excuse_a_backward_reading() {
        // +1 ms jump, then a reading 50 ns below the previous one
        let v = run(vec![
            input(0, 0, 100),
            jump(1, 0, 110, 1.0),
            input(2, 0, 50),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("jumped forward"), "{v}");
        // the previous reading is the jump's own (110 ns, before the jump)
        assert_eq!(v.events, vec![1, 2]);
        assert!(v.explanation.contains("from 0.000110 ms"), "{v}");
        // a backward jump excuses only its own amount (1 µs here), not 1 µs + 1 ns
        let v = run(vec![
            input(0, 0, 2_000),
            jump(1, 0, 2_000, -0.001),
            input(2, 0, 999),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("back by only 0.001000 ms"), "{v}");
        // a jump of -0.0 ms (or one that rounds to 0 ns) moved nothing, and says so
        for delta_ms in [-0.0, -1e-300] {
            let v = run(vec![
                input(0, 0, 2_000),
                jump(1, 0, 2_000, delta_ms),
                input(2, 0, 999),
            ])
            .unwrap_err();
            assert!(v.explanation.contains("add up to 0 ms"), "{delta_ms}: {v}");
        }
        run(vec![
            input(0, 0, 2_000),
            jump(1, 0, 2_000, -0.001),
            input(2, 0, 1_000),
        ])
        .unwrap();
        // jumps between two readings add up: -1 µs then +1 µs is no jump at all
        let unread = |mut e: Event| {
            e.local_ns = None;
            e
        };
        assert!(run(vec![
            input(0, 0, 2_000),
            unread(jump(1, 0, 2_000, -0.001)),
            unread(jump(2, 0, 1_000, 0.001)),
            input(3, 0, 1_500),
        ])
        .is_err());
        // a reading in between (the second jump's, at 1 µs) is the new previous reading
        run(vec![
            input(0, 0, 2_000),
            jump(1, 0, 2_000, -0.001),
            jump(2, 0, 1_000, 0.001),
            input(3, 0, 1_500),
        ])
        .unwrap();
    }

    /// The reading a `clock_jump` fault carries (the clock before the jump) is judged: 10 ms,
    /// then a jump recorded at 7 ms, is a clock set back by 3 ms before any jump (it used to
    /// pass: the jump's reading only reset the baseline).
    #[test]
    fn the_reading_recorded_with_a_jump_is_judged() {
        const MS: i64 = 1_000_000;
        let v = run(vec![input(0, 0, 10 * MS), jump(1, 0, 7 * MS, -5.0)]).unwrap_err();
        assert_eq!(v.events, vec![0, 1]);
        assert!(
            v.explanation.contains("from 10.000000 ms to 7.000000 ms")
                && v.explanation.contains("before the jump"),
            "{v}"
        );
        // at or above the previous reading it passes, and the jump then excuses its amount
        run(vec![
            input(0, 0, 10 * MS),
            jump(1, 0, 10 * MS, -5.0),
            input(2, 0, 5 * MS),
        ])
        .unwrap();
        // a second jump's reading is judged against the first jump's
        let v = run(vec![
            input(0, 0, 10 * MS),
            jump(1, 0, 10 * MS, -5.0),
            jump(2, 0, 4 * MS, -5.0),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("back by only 5.000000 ms"), "{v}");
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
