//! Checkers judge a run event by event (online, stopping at the first violation) and at its
//! end; the same code judges a trace file recorded elsewhere (offline).

use crate::trace::{Event, EventKind, Trace};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Safety properties can be violated at an instant; liveness ones only by waiting too long.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PropertyClass {
    /// "Nothing bad happens" (mutual exclusion, uniqueness, order...).
    Safety,
    /// "Something good eventually happens" (judged after the faults stop, within a bound).
    Liveness,
}

/// A property that does not hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// Property name, e.g. `mutual_exclusion`.
    pub property: String,
    /// Safety or liveness.
    pub class: PropertyClass,
    /// One sentence saying what went wrong.
    pub explanation: String,
    /// Global time (ns) at which the violation was established.
    pub t_ns: u64,
    /// The trace events involved (ids), for renderers to highlight.
    pub events: Vec<u64>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} violated at {:.3} ms: {} (events ",
            self.property,
            self.t_ns as f64 / 1e6,
            self.explanation,
        )?;
        match self.events.as_slice() {
            // A long list (a violation every node of a large run took part in) is cut: the
            // first ids, the last and how many; renderers still mark every one.
            [.., last] if self.events.len() > EVENTS_LISTED_MAX => {
                let head: Vec<String> = self.events[..EVENTS_LISTED_MAX / 2]
                    .iter()
                    .map(u64::to_string)
                    .collect();
                write!(
                    f,
                    "[{}, …, {last}]: {} events)",
                    head.join(", "),
                    self.events.len()
                )
            }
            events => write!(f, "{events:?})"),
        }
    }
}

/// Event ids a violation's one-line form lists in full; past this, the first ones, the last
/// and the count.
pub const EVENTS_LISTED_MAX: usize = 16;

/// An online property checker.
pub trait Checker {
    /// The property's name.
    fn property(&self) -> &'static str;
    /// Judges one event; events arrive in trace order.
    fn on_event(&mut self, ev: &Event) -> Result<(), Violation>;
    /// The run ended at global time `end_t_ns`: judge what is still open.
    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation>;
    /// Asked after [`finish`](Checker::finish) returned `Ok`: why the checker could not judge
    /// the run (it ended before the property could be decided, a limit of the checker was
    /// reached, an input it needs was missing), or `None` when it judged. "Could not judge" is
    /// its own outcome ([`Verdict::Unjudged`](crate::Verdict::Unjudged)), never a pass.
    fn could_not_judge(&self) -> Option<String> {
        None
    }
    /// Whether its verdict reads when the faults stop (the scenario's quiet time, or which
    /// of the plan's faults are still in effect), as a liveness property's does by its class
    /// ([`PropertyClass::Liveness`]), though its own class is safety: `leader_stability`,
    /// `leader_validity`. A run in which a fault the plan does not hold outlives the plan's
    /// faults (a pause the explorer injected and never resumed) cannot be judged for it: the
    /// explorer counts such a path unjudged instead of reporting a violation its native
    /// replay, whose plan holds that pause, does not show (stop 64). False by default.
    fn judged_once_the_faults_stop(&self) -> bool {
        false
    }
    /// The kinds of events of which a trace must hold at least one for this checker to judge
    /// anything: a trace with none of them passes it vacuously, which `sincro check` reports
    /// as "could not judge", never as a pass. A user's observations by their kind
    /// (`Observation::user("primary_on", ..)` is `primary_on`), the built-in ones by their
    /// JSON name (`cs_enter`, `leader`, ...), `leader_claim` for a `leader` observation
    /// that names a node (not "no leader"), and `leader_self_claim` for one that names its own
    /// node (a leader's claim, not a follower's belief). The built-in checkers return their
    /// `Property::EVIDENCE` (in `sincro-checkers`); campaigns and `check` ask the checker
    /// itself, so one of your own under a built-in property's name is judged by what it
    /// reads.
    ///
    /// Required: with a default of "nothing", a checker that never saw an event of its own
    /// passed every run, a pass on nothing that `testing::check` could not tell from a judged
    /// one (stop 64's probe). `&[]` says the checker needs no event to judge (one that
    /// forbids something, judged well by a run without it).
    fn evidence(&self) -> &'static [&'static str];
    /// The kinds of events that can change what this checker holds or decides. An engine
    /// may leave out an event of any other kind whose time is before
    /// [`wake_at_ns`](Checker::wake_at_ns): for such an event [`on_event`](Checker::on_event)
    /// must do nothing that any later call, [`finish`](Checker::finish) or
    /// [`could_not_judge`](Checker::could_not_judge) could tell. Asked once, before the first
    /// event. Every kind by default ([`Interest::ALL`]): every event is passed.
    ///
    /// A message's text is rendered as it is sent only for a run with a checker whose
    /// interest holds [`Interest::SEND`] or [`Interest::DELIVER`]; in other traced runs it
    /// is rendered when the trace is read, and a send or delivery passed to a checker (one
    /// that asked for every event until [`wake_at_ns`](Checker::wake_at_ns)) carries the
    /// empty text.
    ///
    /// Most checkers read observations and faults only, while most events of a run are
    /// sends, deliveries and timers: a campaign of a mutual exclusion spent 15 % of its time
    /// calling checkers with events they ignore (issue 15).
    fn interest(&self) -> Interest {
        Interest::ALL
    }
    /// The earliest global time at which an event of any kind, outside
    /// [`interest`](Checker::interest) too, must be passed: an instant the checker holds open
    /// is closed by the first event of a later time, a deadline is judged at the first event
    /// past it. `u64::MAX` when nothing waits for time; `0`, the default, asks for every
    /// event. Asked after every call of [`on_event`](Checker::on_event), and before the first.
    fn wake_at_ns(&self) -> u64 {
        0
    }
}

/// A set of kinds of [`EventKind`]: what a checker reads ([`Checker::interest`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interest(u16);

impl Interest {
    /// No kind.
    pub const NONE: Interest = Interest(0);
    /// Every kind.
    pub const ALL: Interest = Interest((1 << 11) - 1);
    /// [`EventKind::Start`].
    pub const START: Interest = Interest(1 << 0);
    /// [`EventKind::Send`].
    pub const SEND: Interest = Interest(1 << 1);
    /// [`EventKind::Deliver`].
    pub const DELIVER: Interest = Interest(1 << 2);
    /// [`EventKind::Drop`].
    pub const DROP: Interest = Interest(1 << 3);
    /// [`EventKind::Timer`].
    pub const TIMER: Interest = Interest(1 << 4);
    /// [`EventKind::Input`].
    pub const INPUT: Interest = Interest(1 << 5);
    /// [`EventKind::Fault`].
    pub const FAULT: Interest = Interest(1 << 6);
    /// [`EventKind::ClockAdjust`].
    pub const CLOCK_ADJUST: Interest = Interest(1 << 7);
    /// [`EventKind::Observe`].
    pub const OBSERVE: Interest = Interest(1 << 8);
    /// [`EventKind::Panic`].
    pub const PANIC: Interest = Interest(1 << 9);
    /// [`EventKind::Cut`].
    pub const CUT: Interest = Interest(1 << 10);

    /// The kinds of both.
    pub const fn or(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }

    /// True when the two sets share a kind.
    pub const fn intersects(self, other: Interest) -> bool {
        self.0 & other.0 != 0
    }

    /// The one kind of `kind`.
    #[inline]
    pub fn of(kind: &EventKind) -> Interest {
        match kind {
            EventKind::Start { .. } => Interest::START,
            EventKind::Send { .. } => Interest::SEND,
            EventKind::Deliver { .. } => Interest::DELIVER,
            EventKind::Drop { .. } => Interest::DROP,
            EventKind::Timer { .. } => Interest::TIMER,
            EventKind::Input { .. } => Interest::INPUT,
            EventKind::Fault { .. } => Interest::FAULT,
            EventKind::ClockAdjust { .. } => Interest::CLOCK_ADJUST,
            EventKind::Observe { .. } => Interest::OBSERVE,
            EventKind::Panic { .. } => Interest::PANIC,
            EventKind::Cut { .. } => Interest::CUT,
        }
    }

    /// True when `kind`'s kind is in the set.
    #[inline]
    pub fn reads(self, kind: &EventKind) -> bool {
        self.0 & Interest::of(kind).0 != 0
    }
}

/// Passes a run's events to its checkers, each only the events it can be concerned with
/// ([`Checker::interest`], [`Checker::wake_at_ns`]): what the engines judge online with.
/// [`check_trace`] passes every event to every checker; the two give the same verdicts,
/// which the checkers' differential tests compare on every case.
#[derive(Clone, Debug)]
pub struct Gate {
    /// Per checker, in order: its interest and when it must next see any event.
    of: Vec<(Interest, u64)>,
    /// Every checker's interest, and the earliest wake time: an event of no kind in `any`
    /// before `wake_min_ns` is passed to none ([`Gate::wants`]).
    any: Interest,
    wake_min_ns: u64,
}

/// The gate of no checker.
impl Default for Gate {
    fn default() -> Gate {
        Gate::new(&[])
    }
}

impl Gate {
    /// The gate of `checkers` (in their order), before their first event.
    pub fn new(checkers: &[Box<dyn Checker>]) -> Gate {
        let mut gate = Gate {
            of: checkers
                .iter()
                .map(|c| (c.interest(), c.wake_at_ns()))
                .collect(),
            any: Interest::NONE,
            wake_min_ns: u64::MAX,
        };
        gate.any = gate.of.iter().fold(Interest::NONE, |a, &(i, _)| a.or(i));
        gate.rewake();
        gate
    }

    /// Whether [`Gate::pass`] would pass an event of `kind` at `t_ns` to any checker: an
    /// engine need not make an event no checker reads (when no trace records it either),
    /// only count it.
    #[inline(always)]
    pub fn wants(&self, kind: Interest, t_ns: u64) -> bool {
        self.any.0 & kind.0 != 0 || t_ns >= self.wake_min_ns
    }

    fn rewake(&mut self) {
        self.wake_min_ns = self.of.iter().map(|&(_, w)| w).min().unwrap_or(u64::MAX);
    }

    /// Passes `ev` to every checker of `checkers` (the ones given to [`Gate::new`], in the
    /// same order) that reads its kind or whose wake time it reached; the first violation.
    #[inline]
    pub fn pass(&mut self, checkers: &mut [Box<dyn Checker>], ev: &Event) -> Result<(), Violation> {
        debug_assert_eq!(checkers.len(), self.of.len(), "a gate of other checkers");
        let kind = Interest::of(&ev.kind);
        // the earliest wake time after this event, found on the way (one pass, not two)
        let mut wake_min_ns = u64::MAX;
        for (c, (interest, wake_ns)) in checkers.iter_mut().zip(&mut self.of) {
            if interest.0 & kind.0 != 0 || ev.t_ns >= *wake_ns {
                let judged = c.on_event(ev);
                *wake_ns = c.wake_at_ns();
                if judged.is_err() {
                    self.rewake();
                    return judged;
                }
            }
            wake_min_ns = wake_min_ns.min(*wake_ns);
        }
        self.wake_min_ns = wake_min_ns;
        debug_assert_eq!(
            Some(wake_min_ns),
            self.of.iter().map(|&(_, w)| w).min().or(Some(u64::MAX))
        );
        Ok(())
    }
}

/// Runs checkers over a recorded trace (offline): the first violation, else
/// [`Verdict::Unjudged`](crate::Verdict::Unjudged) when a checker could not judge, else
/// [`Verdict::Pass`](crate::Verdict::Pass). The trace is not validated here; see
/// [`Trace::validate`](crate::trace::Trace::validate).
pub fn judge_trace(
    trace: &Trace,
    end_t_ns: u64,
    checkers: &mut [Box<dyn Checker>],
) -> crate::Verdict {
    if let Err(v) = check_trace(trace, end_t_ns, checkers) {
        return crate::Verdict::Violation(v);
    }
    unjudged(checkers).unwrap_or(crate::Verdict::Pass)
}

/// How one checker judges a trace: the event its violation was reached at (`None`: at the
/// end, or none) and its verdict, with every event passed to it (`gated` false, as
/// [`check_trace`] does) or only those its [`Gate`] lets through (as the engines judge a run
/// online, where the event a violation is reached at ends the run).
pub fn judge_one(
    trace: &Trace,
    end_t_ns: u64,
    checker: &mut Box<dyn Checker>,
    gated: bool,
) -> (Option<u64>, crate::Verdict) {
    let one = std::slice::from_mut(checker);
    let mut gate = Gate::new(one);
    for e in trace.events() {
        let judged = if gated {
            gate.pass(one, e)
        } else {
            one[0].on_event(e)
        };
        if let Err(v) = judged {
            return (Some(e.id), crate::Verdict::Violation(v));
        }
    }
    let verdict = match finish_all(one, end_t_ns) {
        Some(v) => crate::Verdict::Violation(v),
        None => unjudged(one).unwrap_or(crate::Verdict::Pass),
    };
    (None, verdict)
}

/// A checker whose verdict depends on which events it is passed ([`gate_dependence`]): what
/// it says with every event and with only those its [`Gate`] lets through.
#[derive(Clone, Debug, PartialEq)]
pub struct GateDependence {
    /// The checker's property.
    pub property: String,
    /// Its verdict with every event passed, and the event it was reached at (`None`: at the
    /// end).
    pub every: (Option<u64>, crate::Verdict),
    /// Its verdict with only the events of its [`Checker::interest`] and those from its
    /// [`Checker::wake_at_ns`] passed, as the engines pass them, and the event it was reached
    /// at.
    pub gated: (Option<u64>, crate::Verdict),
}

impl fmt::Display for GateDependence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let said = |(at, v): &(Option<u64>, crate::Verdict)| match at {
            Some(id) => format!("{} at event {id}", v.label()),
            None => v.label(),
        };
        let (every, gated) = (said(&self.every), said(&self.gated));
        let (every, gated) = if every == gated {
            // the same label and event: the verdicts differ in their details
            (format!("{:?}", self.every.1), format!("{:?}", self.gated.1))
        } else {
            (every, gated)
        };
        write!(
            f,
            "its verdict depends on which events it is passed: {every} with every event, \
             {gated} with only the events of its `interest()` and those from its \
             `wake_at_ns()`, as the engines pass them online; an event it reads is left out \
             (widen its interest, or wake it earlier)"
        )
    }
}

/// The first checker whose verdict on `trace` (a run ending at `end_t_ns`) with every event
/// passed differs from its verdict with only the events its [`Gate`] lets through, as the
/// engines judge a run online: its [`Checker::interest`] or [`Checker::wake_at_ns`] leaves
/// out an event it reads. `every` and `gated` are two fresh sets of the same checkers, in the
/// same order; each checker is judged alone, and the verdicts compare whole, with the event
/// each was reached at. `None` when every checker judges alike both ways. A checker that
/// declares neither (the default: every event) never depends on it.
///
/// `sincro check` judges every trace both ways, and `sincro::testing::check` every sampled
/// run: a checker of one's own that declares what it reads is caught when it leaves out
/// something it needs.
///
/// # Panics
/// When `every` and `gated` hold different numbers of checkers.
pub fn gate_dependence(
    trace: &Trace,
    end_t_ns: u64,
    every: &mut [Box<dyn Checker>],
    gated: &mut [Box<dyn Checker>],
) -> Option<GateDependence> {
    assert_eq!(
        every.len(),
        gated.len(),
        "gate_dependence needs the same checkers twice"
    );
    every.iter_mut().zip(gated.iter_mut()).find_map(|(a, b)| {
        if a.interest() == Interest::ALL {
            return None; // the gate passes it every event
        }
        let all = judge_one(trace, end_t_ns, a, false);
        let some = judge_one(trace, end_t_ns, b, true);
        (all != some).then(|| GateDependence {
            property: a.property().to_string(),
            every: all,
            gated: some,
        })
    })
}

/// The first checker (in order) that could not judge, as a verdict.
pub fn unjudged(checkers: &[Box<dyn Checker>]) -> Option<crate::Verdict> {
    checkers.iter().find_map(|c| {
        c.could_not_judge().map(|reason| crate::Verdict::Unjudged {
            property: c.property().to_string(),
            reason,
        })
    })
}

/// Runs checkers over a recorded trace (offline), returning the first violation (a checker
/// that could not judge is not a violation: use [`judge_trace`] for the full verdict).
pub fn check_trace(
    trace: &Trace,
    end_t_ns: u64,
    checkers: &mut [Box<dyn Checker>],
) -> Result<(), Violation> {
    for e in trace.events() {
        for c in checkers.iter_mut() {
            c.on_event(e)?;
        }
    }
    match finish_all(checkers, end_t_ns) {
        Some(v) => Err(v),
        None => Ok(()),
    }
}

/// Ends every checker at `end_t_ns` and returns the earliest violation they establish there
/// (the first in order among equal times): what each judges only at the end (an instant
/// closed by the end, a deadline passed) may have happened before another's, and the
/// first checker's in order was reported, a liveness violation at 8,000 ms before a
/// stability one at 1,500 ms, swapped by `--properties` (stop 65's probe).
pub fn finish_all(checkers: &mut [Box<dyn Checker>], end_t_ns: u64) -> Option<Violation> {
    let mut earliest: Option<Violation> = None;
    for c in checkers.iter_mut() {
        if let Err(v) = c.finish(end_t_ns) {
            if earliest.as_ref().is_none_or(|e| v.t_ns < e.t_ns) {
                earliest = Some(v);
            }
        }
    }
    earliest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violation(events: Vec<u64>) -> Violation {
        Violation {
            property: "p".into(),
            class: PropertyClass::Safety,
            explanation: "x".into(),
            t_ns: 0,
            events,
        }
    }

    /// Counts the events it is passed; reads observations, and every event from `wake_ns`.
    /// A checker that notes the ids of the events it is passed. With `wake_after_observe_ns`,
    /// an observation moves its wake time that far after it, and any other event puts it off
    /// for ever (a wake time that moves as it reads).
    struct Counting {
        interest: Interest,
        wake_ns: u64,
        wake_after_observe_ns: Option<u64>,
        seen: std::rc::Rc<std::cell::RefCell<Vec<u64>>>,
    }

    impl Checker for Counting {
        fn property(&self) -> &'static str {
            "counting"
        }
        fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
            self.seen.borrow_mut().push(ev.id);
            if let Some(after_ns) = self.wake_after_observe_ns {
                self.wake_ns = match ev.kind {
                    EventKind::Observe { .. } => ev.t_ns + after_ns,
                    _ => u64::MAX,
                };
            }
            Ok(())
        }
        fn finish(&mut self, _: u64) -> Result<(), Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &[]
        }
        fn interest(&self) -> Interest {
            self.interest
        }
        fn wake_at_ns(&self) -> u64 {
            self.wake_ns
        }
    }

    /// The gate passes a checker the events of its interest and, from its wake time, every
    /// event; a checker that says nothing (the default) gets every event.
    #[test]
    fn the_gate_passes_what_a_checker_reads_and_everything_from_its_wake_time() {
        use crate::process::Observation;
        let ev = |id: u64, t_ns: u64, kind: EventKind| Event {
            id,
            t_ns,
            node: Some(0),
            local_ns: None,
            kind,
        };
        let timer = |id, t_ns| {
            ev(
                id,
                t_ns,
                EventKind::Timer {
                    timer_id: 0,
                    timer: "t".into(),
                },
            )
        };
        let observe = |id, t_ns| {
            ev(
                id,
                t_ns,
                EventKind::Observe {
                    obs: Observation::CsEnter { resource: 0 },
                },
            )
        };
        let events = [
            timer(0, 5),
            observe(1, 5),
            timer(2, 9),
            timer(3, 10),
            timer(4, 11),
        ];
        let gated = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let every = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut checkers: Vec<Box<dyn Checker>> = vec![
            Box::new(Counting {
                interest: Interest::OBSERVE,
                wake_ns: 10,
                wake_after_observe_ns: None,
                seen: gated.clone(),
            }),
            Box::new(Counting {
                interest: Interest::ALL,
                wake_ns: 0,
                wake_after_observe_ns: None,
                seen: every.clone(),
            }),
        ];
        let mut gate = Gate::new(&checkers);
        for e in &events {
            gate.pass(&mut checkers, e).unwrap();
        }
        assert_eq!(*gated.borrow(), vec![1, 3, 4]);
        assert_eq!(*every.borrow(), vec![0, 1, 2, 3, 4]);
        assert!(Interest::OBSERVE.or(Interest::FAULT).reads(&events[1].kind));
        assert!(!Interest::OBSERVE.or(Interest::FAULT).reads(&events[0].kind));
        assert!(Interest::ALL.reads(&events[0].kind) && !Interest::NONE.reads(&events[1].kind));
    }

    /// Reads observations; wakes 3 ns after one, and sleeps again at the next event past it.
    /// `Gate::wants` says, before each event, whether `pass` gives it to any checker (an
    /// engine makes only those events when no trace records them): by the checkers' interests
    /// and their earliest wake time, which moves as they read.
    #[test]
    fn the_gate_wants_exactly_the_events_it_passes_on() {
        use crate::process::Observation;
        let ev = |id: u64, t_ns: u64, observe: bool| Event {
            id,
            t_ns,
            node: Some(0),
            local_ns: None,
            kind: if observe {
                EventKind::Observe {
                    obs: Observation::CsEnter { resource: 0 },
                }
            } else {
                EventKind::Timer {
                    timer_id: 0,
                    timer: "t".into(),
                }
            },
        };
        let (a, b) = (
            std::rc::Rc::new(std::cell::RefCell::new(Vec::new())),
            std::rc::Rc::new(std::cell::RefCell::new(Vec::new())),
        );
        let mut checkers: Vec<Box<dyn Checker>> = vec![
            Box::new(Counting {
                interest: Interest::OBSERVE,
                wake_ns: u64::MAX,
                wake_after_observe_ns: Some(3),
                seen: a.clone(),
            }),
            Box::new(Counting {
                interest: Interest::DROP,
                wake_ns: 20,
                wake_after_observe_ns: None,
                seen: b.clone(),
            }),
        ];
        let mut gate = Gate::new(&checkers);
        let events = [
            ev(0, 1, false),
            ev(1, 2, true),
            ev(2, 4, false),
            ev(3, 5, false),
            ev(4, 6, false),
            ev(5, 7, true),
            ev(6, 12, false),
            ev(7, 12, false),
            ev(8, 20, false),
        ];
        let mut wanted = Vec::new();
        for e in &events {
            let seen_before = a.borrow().len() + b.borrow().len();
            let wants = gate.wants(Interest::of(&e.kind), e.t_ns);
            gate.pass(&mut checkers, e).unwrap();
            let passed = a.borrow().len() + b.borrow().len() > seen_before;
            assert_eq!(wants, passed, "event {}", e.id);
            if wants {
                wanted.push(e.id);
            }
        }
        // the observations, the first event from 3 ns after each, and all from 20 ns
        assert_eq!(wanted, vec![1, 3, 5, 6, 8]);
        assert_eq!(*a.borrow(), vec![1, 3, 5, 6]);
        assert_eq!(*b.borrow(), vec![8]);
        assert!(!Gate::default().wants(Interest::ALL, u64::MAX - 1));
    }

    /// Forbids a timer at or after 9 ns, and declares the interest it is given.
    struct NoLateTimer(Interest);

    impl Checker for NoLateTimer {
        fn property(&self) -> &'static str {
            "no_late_timer"
        }
        fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
            match ev.kind {
                EventKind::Timer { .. } if ev.t_ns >= 9 => Err(Violation {
                    t_ns: ev.t_ns,
                    ..violation(vec![ev.id])
                }),
                _ => Ok(()),
            }
        }
        fn finish(&mut self, _: u64) -> Result<(), Violation> {
            Ok(())
        }
        fn evidence(&self) -> &'static [&'static str] {
            &[]
        }
        fn interest(&self) -> Interest {
            self.0
        }
        fn wake_at_ns(&self) -> u64 {
            u64::MAX
        }
    }

    /// A checker that leaves out of its interest the kind it judges is found, with both
    /// verdicts; declaring it (or nothing) is not.
    #[test]
    fn gate_dependence_finds_a_checker_that_leaves_out_what_it_reads() {
        let timer = |id: u64, t_ns| Event {
            id,
            t_ns,
            node: Some(0),
            local_ns: None,
            kind: EventKind::Timer {
                timer_id: id,
                timer: "t".into(),
            },
        };
        let trace = Trace::new(1, vec![timer(0, 5), timer(1, 9)]);
        let two = |i: Interest| -> [Vec<Box<dyn Checker>>; 2] {
            [
                vec![Box::new(NoLateTimer(i))],
                vec![Box::new(NoLateTimer(i))],
            ]
        };
        let [mut a, mut b] = two(Interest::OBSERVE);
        let found = gate_dependence(&trace, 20, &mut a, &mut b).expect("found");
        assert_eq!(found.property, "no_late_timer");
        assert_eq!(found.every.0, Some(1));
        assert!(matches!(found.every.1, crate::Verdict::Violation(_)));
        assert_eq!(found.gated, (None, crate::Verdict::Pass));
        let said = found.to_string();
        assert!(
            said.contains("violation:p at event 1 with every event, pass with only"),
            "{said}"
        );
        for ok in [Interest::TIMER, Interest::ALL] {
            let [mut a, mut b] = two(ok);
            assert_eq!(gate_dependence(&trace, 20, &mut a, &mut b), None);
        }
    }

    /// Up to [`EVENTS_LISTED_MAX`] event ids are listed; a longer list (a 500-node run's
    /// disagreement named 499) gives its first ids, the last and the count.
    #[test]
    fn a_long_event_list_is_cut_in_the_one_line_form() {
        let short = violation((0..16).collect());
        assert!(
            short
                .to_string()
                .ends_with("(events [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])"),
            "{short}"
        );
        let long = violation((0..499).map(|i| 2 * i + 1).collect());
        assert_eq!(
            long.to_string(),
            "p violated at 0.000 ms: x (events [1, 3, 5, 7, 9, 11, 13, 15, …, 997]: 499 events)"
        );
    }
}
