//! Which events a rendered view shows: the causal past of a violation, filters by node, time
//! and kind, and cuts that never lose the violation.
//!
//! A failing run can be thousands of events long, most of them heartbeats that have nothing
//! to do with the failure. The violation's *causal past* (every event that happened before a
//! violating event, by the ground-truth happens-before the trace records: each node's events
//! in trace order, and each delivery after the send it names) is what explains it. A view is a
//! [`Selection`] of the trace's events:
//!
//! - by default ([`select`] with [`Filter::default`]) a trace longer than
//!   [`LONG_TRACE_EVENTS`] events with a violation shows the violating events, their causal
//!   past and every fault, up to the violation (for a liveness violation also every
//!   observation up to its deadline); a shorter one, or one without a violation, shows
//!   everything;
//! - [`Filter::all`] shows every event; [`Filter::nodes`], [`Filter::from_ns`] /
//!   [`Filter::to_ns`] and [`Filter::only`] select by node, time window and kind instead, and
//!   the violating events inside the window are always kept;
//! - a renderer that draws at most so many events cuts with [`cut`], which keeps the
//!   violating events, the faults and the causal past before anything else.
//!
//! Everything here is a pure function of the trace and the verdict.

use crate::check::PropertyClass;
use crate::engine::Verdict;
use crate::trace::{Event, EventKind, Trace};
use crate::NodeId;
use std::collections::{BTreeMap, BTreeSet};

/// A trace longer than this many events is shown, by default, as the causal past of its
/// violation (short traces are shown whole).
pub const LONG_TRACE_EVENTS: usize = 150;

/// Kinds of events a view can be restricted to ([`Filter::only`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventClass {
    /// Observations the algorithm reports (`observe`).
    Observations,
    /// Faults of the plan.
    Faults,
    /// Sends, deliveries and drops.
    Messages,
    /// Timers firing.
    Timers,
    /// Workload inputs.
    Inputs,
    /// Clock adjustments.
    Clocks,
    /// Starts, restarts and panics.
    Lifecycle,
}

impl EventClass {
    /// The class of an event kind.
    pub fn of(kind: &EventKind) -> EventClass {
        match kind {
            EventKind::Observe { .. } => EventClass::Observations,
            EventKind::Fault { .. } => EventClass::Faults,
            EventKind::Send { .. } | EventKind::Deliver { .. } | EventKind::Drop { .. } => {
                EventClass::Messages
            }
            EventKind::Timer { .. } => EventClass::Timers,
            EventKind::Input { .. } => EventClass::Inputs,
            EventKind::ClockAdjust { .. } => EventClass::Clocks,
            EventKind::Start { .. } | EventKind::Panic { .. } | EventKind::Cut { .. } => {
                EventClass::Lifecycle
            }
        }
    }

    /// The class's name, as the command line spells it (`observations`, `faults`, ...).
    pub fn name(self) -> &'static str {
        match self {
            EventClass::Observations => "observations",
            EventClass::Faults => "faults",
            EventClass::Messages => "messages",
            EventClass::Timers => "timers",
            EventClass::Inputs => "inputs",
            EventClass::Clocks => "clocks",
            EventClass::Lifecycle => "lifecycle",
        }
    }
}

/// What a view asks for. The default is the causal view of a long failing trace and the whole
/// of anything else.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Every event (no reduction to the causal past); the other fields still apply.
    pub all: bool,
    /// Only events of these classes (empty: every class). The violating events are kept.
    pub only: Vec<EventClass>,
    /// Only events at these nodes, their messages to and from other nodes, and the faults
    /// that concern them or the whole network (empty: every node). The violating events are
    /// kept.
    pub nodes: Vec<NodeId>,
    /// Only events at or after this global time, ns.
    pub from_ns: Option<u64>,
    /// Only events at or before this global time, ns.
    pub to_ns: Option<u64>,
}

impl Filter {
    /// True when the filter names nodes, a window or classes (the causal reduction is then
    /// off: the filter says what to show).
    pub fn selects(&self) -> bool {
        !self.only.is_empty()
            || !self.nodes.is_empty()
            || self.from_ns.is_some()
            || self.to_ns.is_some()
    }
}

/// The events a view shows, and what it left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Positions in the trace's events, ascending.
    pub shown: Vec<usize>,
    /// What was left out and how to see it, one sentence each (empty: the whole trace).
    pub notes: Vec<String>,
    /// The window's start, ns (the time axis of a diagram starts here).
    pub from_ns: u64,
    /// The window's end, ns, when the view was given one (`--to-ms`).
    pub to_ns: Option<u64>,
}

impl Selection {
    /// Every event of `trace`.
    pub fn all(trace: &Trace) -> Selection {
        Selection {
            shown: (0..trace.len()).collect(),
            notes: Vec::new(),
            from_ns: 0,
            to_ns: None,
        }
    }

    /// The selection without the nodes' first starts (`Start` of incarnation 0), which a
    /// diagram draws nothing for: at 450 nodes they filled Mermaid's whole cap and not one
    /// message was drawn (stop 72's probe). What a diagram caps and counts is this.
    pub fn drawable(&self, trace: &Trace) -> Selection {
        let first_start = |i: &usize| {
            matches!(
                trace.events().get(*i).map(|e| &e.kind),
                Some(EventKind::Start { incarnation: 0 })
            )
        };
        Selection {
            shown: self
                .shown
                .iter()
                .copied()
                .filter(|i| !first_start(i))
                .collect(),
            notes: self.notes.clone(),
            from_ns: self.from_ns,
            to_ns: self.to_ns,
        }
    }

    /// The shown events.
    pub fn events<'t>(&self, trace: &'t Trace) -> Vec<&'t Event> {
        self.shown
            .iter()
            .filter_map(|&i| trace.events().get(i))
            .collect()
    }
}

/// The events a verdict points at, as positions in the trace: a violation's events, or the
/// panic event of a panic. Ids the trace does not have are ignored.
pub fn anchors(trace: &Trace, verdict: Option<&Verdict>) -> Vec<usize> {
    let mut out: Vec<usize> = match verdict {
        Some(Verdict::Violation(v)) => v
            .events
            .iter()
            .filter_map(|&id| position(trace, id))
            .collect(),
        Some(Verdict::Panic { node, .. }) => trace
            .events()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.node == Some(*node) && matches!(e.kind, EventKind::Panic { .. }))
            .map(|(i, _)| i)
            .collect(),
        _ => Vec::new(),
    };
    out.sort_unstable();
    out.dedup();
    out
}

/// The position of the trace's `cut` event (its last, when it was cut short), if any: every
/// view that reaches it keeps it, counted in the notes' figures, and a renderer's cap keeps
/// it and the events just before it.
fn cut_position(trace: &Trace) -> Option<usize> {
    let last = trace.len().checked_sub(1)?;
    matches!(trace.events()[last].kind, EventKind::Cut { .. }).then_some(last)
}

/// The position of event `id` (ids are positions in a valid trace; otherwise searched).
fn position(trace: &Trace, id: u64) -> Option<usize> {
    let i = usize::try_from(id).ok()?;
    match trace.events().get(i) {
        Some(e) if e.id == id => Some(i),
        _ => trace.events().iter().position(|e| e.id == id),
    }
}

/// The time a verdict is established: a violation's time, a panic's; `None` otherwise.
fn verdict_time(verdict: Option<&Verdict>) -> Option<u64> {
    match verdict {
        Some(Verdict::Violation(v)) => Some(v.t_ns),
        Some(Verdict::Panic { t_ns, .. }) => Some(*t_ns),
        _ => None,
    }
}

/// The causal past of the events at positions `of`, themselves included: `past[i]` is true
/// when event `i` happened before one of them (or is one). Happens-before is the harness's
/// ground truth: the events of a node in trace order, and a delivery after the send it names;
/// a drop is after its send. Linear in the trace.
pub fn causal_past(trace: &Trace, of: &[usize]) -> Vec<bool> {
    let n = trace.len();
    let mut past = vec![false; n];
    // frontier[node]: the latest position at that node in the past so far.
    let mut frontier: BTreeMap<NodeId, usize> = BTreeMap::new();
    let mut extra: BTreeSet<usize> = BTreeSet::new();
    let mut sends: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, e) in trace.events().iter().enumerate() {
        if let EventKind::Send { msg_id, .. } = e.kind {
            sends.entry(msg_id).or_insert(i);
        }
    }
    for &i in of.iter().filter(|&&i| i < n) {
        match trace.events()[i].node {
            Some(node) => {
                let f = frontier.entry(node).or_insert(i);
                *f = (*f).max(i);
            }
            None => {
                extra.insert(i);
            }
        }
    }
    for i in (0..n).rev() {
        let e = &trace.events()[i];
        let inside = match e.node {
            Some(node) => frontier.get(&node).is_some_and(|&f| i <= f),
            None => extra.contains(&i),
        };
        if !inside {
            continue;
        }
        past[i] = true;
        let sender = match &e.kind {
            EventKind::Deliver { sent, .. } => position(trace, *sent).filter(|&s| s < i),
            EventKind::Drop { msg_id, .. } => sends.get(msg_id).copied().filter(|&s| s < i),
            _ => None,
        };
        if let Some(s) = sender {
            match trace.events()[s].node {
                Some(node) => {
                    let f = frontier.entry(node).or_insert(s);
                    *f = (*f).max(s);
                }
                None => {
                    extra.insert(s);
                }
            }
        }
    }
    past
}

/// The nodes an event concerns: where it happened, the other end of a message, the nodes of
/// a fault (empty for a fault on the whole network).
fn concerns(e: &Event) -> Vec<NodeId> {
    let mut v: Vec<NodeId> = e.node.into_iter().collect();
    match &e.kind {
        EventKind::Drop { from, to, .. } => v.extend([*from, *to]),
        EventKind::Fault { fault } => v.extend(fault.nodes_about()),
        _ => {}
    }
    v
}

/// True when the event is about one of `nodes` (a network-wide fault is about every node).
fn about(e: &Event, nodes: &[NodeId]) -> bool {
    let c = concerns(e);
    (c.is_empty() && matches!(e.kind, EventKind::Fault { .. }))
        || c.iter().any(|n| nodes.contains(n))
}

/// A time as the views print it, rounded to whole µs, in ns (`86.719 ms`, 86,719,000 ns, for
/// 86,719,063 ns).
fn printed(t_ns: u64) -> u64 {
    t_ns.saturating_add(500) / 1000 * 1000
}

/// Whether an event at `t_ns` is outside the window `from ..= to` (ns), its time taken as the
/// views print it: a time copied from a timeline (`--to-ms 86.719`) keeps the event printed
/// at it, which is at 86,719,063 ns (stop 58's probe: it was left out); a bound finer than
/// that (`--to-ms 63.9999999`) still leaves out what prints as after it.
fn outside_window(t_ns: u64, from: u64, to: u64) -> bool {
    printed(t_ns) < from || printed(t_ns) > to
}

/// Milliseconds for a note: `824.000 ms`.
fn ms(t_ns: u64) -> String {
    format!("{:.3} ms", t_ns as f64 / 1e6)
}

/// The events to show of `trace` under `filter` (see the module documentation). Errors name
/// a node the trace does not have or a reversed window.
///
/// A trace that ends in a `cut` (a trace size limit, or a run limit) keeps its cut event in
/// every view whose window reaches it, and a note says where the trace stops, why, and which
/// violating events lie past it, unrecorded: a view of a cut trace showed neither (stop 58's
/// probe), and its header named a violation time the timeline never reached.
pub fn select(
    trace: &Trace,
    verdict: Option<&Verdict>,
    filter: &Filter,
) -> Result<Selection, String> {
    let mut sel = select_events(trace, verdict, filter)?;
    let Some((i, cut)) = trace.events().iter().enumerate().next_back() else {
        return Ok(sel);
    };
    let EventKind::Cut { reason, .. } = &cut.kind else {
        return Ok(sel);
    };
    let in_window = !outside_window(
        cut.t_ns,
        filter.from_ns.unwrap_or(0),
        filter.to_ns.unwrap_or(u64::MAX),
    );
    if in_window {
        if let Err(at) = sel.shown.binary_search(&i) {
            sel.shown.insert(at, i);
        }
    }
    let past: Vec<String> = match verdict {
        Some(Verdict::Violation(v)) => v
            .events
            .iter()
            .filter(|&&id| position(trace, id).is_none())
            .map(|id| format!("#{id}"))
            .collect(),
        _ => Vec::new(),
    };
    let mut note = format!("the trace is cut at {}: {reason}", ms(cut.t_ns));
    if !past.is_empty() {
        let (s, lie) = if past.len() == 1 {
            ("", "lies")
        } else {
            ("s", "lie")
        };
        note.push_str(&format!(
            "; the violating event{s} {} {lie} past the cut, unrecorded",
            past.join(", ")
        ));
    }
    sel.notes.push(note);
    Ok(sel)
}

/// [`select`] before the cut is kept and noted.
fn select_events(
    trace: &Trace,
    verdict: Option<&Verdict>,
    filter: &Filter,
) -> Result<Selection, String> {
    let total = trace.len();
    let nodes = trace.nodes;
    for &n in &filter.nodes {
        if n >= nodes {
            return Err(format!(
                "node {n} is not in the trace: it has {nodes} node{} (0 to {})",
                if nodes == 1 { "" } else { "s" },
                nodes.saturating_sub(1)
            ));
        }
    }
    if let (Some(a), Some(b)) = (filter.from_ns, filter.to_ns) {
        if a > b {
            return Err(format!(
                "the time window is reversed: it starts at {} and ends at {}",
                ms(a),
                ms(b)
            ));
        }
    }
    let last_ns = trace.events().last().map_or(0, |e| e.t_ns);
    if let Some(a) = filter.from_ns.filter(|&a| a > printed(last_ns)) {
        return Err(format!(
            "the time window starts at {}, after the trace's last event (at {}): it would \
             show nothing",
            ms(a),
            ms(last_ns)
        ));
    }
    let anchor = anchors(trace, verdict);
    if filter.selects() {
        let from = filter.from_ns.unwrap_or(0);
        // A filtered view of a failure ends at the violation, as the causal view does: what
        // follows it is not the story (`--to-ms` or `--all` shows it).
        let ends_at_verdict = verdict_time(verdict)
            .filter(|&t| filter.to_ns.is_none() && !filter.all && from <= printed(t));
        let to = filter.to_ns.unwrap_or(u64::MAX);
        // The verdict's instant whole, however its time rounds as printed. The violating
        // events and the cut are kept past it (a violating event can lie past the cut).
        let end = ends_at_verdict.map(|t| printed(t).max(t));
        let cut = cut_position(trace);
        let asked = |e: &Event| {
            !outside_window(e.t_ns, from, to)
                && (filter.only.is_empty() || filter.only.contains(&EventClass::of(&e.kind)))
                && (filter.nodes.is_empty() || about(e, &filter.nodes))
        };
        let past_end = |e: &Event| end.is_some_and(|end| printed(e.t_ns) > end);
        let shown: Vec<usize> = (0..total)
            .filter(|&i| {
                let e = &trace.events()[i];
                if outside_window(e.t_ns, from, to) {
                    return false;
                }
                if anchor.binary_search(&i).is_ok() || cut == Some(i) {
                    return true;
                }
                asked(e) && !past_end(e)
            })
            .collect();
        let mut what = Vec::new();
        if !filter.nodes.is_empty() {
            let ns: Vec<String> = filter.nodes.iter().map(|n| format!("n{n}")).collect();
            what.push(format!("node {}", ns.join(", ")));
        }
        if filter.from_ns.is_some() || filter.to_ns.is_some() {
            what.push(format!(
                "from {} to {}",
                ms(from),
                filter.to_ns.map_or_else(|| "the end".to_string(), ms)
            ));
        }
        if let Some(t) = ends_at_verdict {
            let after = (0..total)
                .filter(|&i| {
                    let e = &trace.events()[i];
                    asked(e) && past_end(e) && shown.binary_search(&i).is_err()
                })
                .count();
            if after > 0 {
                what.push(format!(
                    "up to the verdict at {} (`--to-ms` or `--all` shows the {after} event{} after it)",
                    ms(t),
                    if after == 1 { "" } else { "s" }
                ));
            }
        }
        // A window that starts after the verdict does not end there: it shows only what came
        // after the failure, and says so (it read as the lead-up to it, stop 73's probe).
        if let Some(t) = verdict_time(verdict)
            .filter(|&t| filter.to_ns.is_none() && !filter.all && from > printed(t))
        {
            what.push(format!(
                "after the verdict at {}: every event of the window comes after the failure",
                ms(t)
            ));
        }
        if !filter.only.is_empty() {
            let ks: Vec<&str> = filter.only.iter().map(|k| k.name()).collect();
            what.push(format!("only {}", ks.join(", ")));
        }
        let mut note = format!(
            "showing {} of {total} events: {}",
            shown.len(),
            what.join("; ")
        );
        let outside: Vec<String> = anchor
            .iter()
            .map(|&i| trace.events()[i].t_ns)
            .filter(|&t| outside_window(t, from, to))
            .collect::<BTreeSet<u64>>()
            .into_iter()
            .map(ms)
            .collect();
        if !outside.is_empty() {
            // A time window is kept as asked, but never silently without the violation.
            note.push_str(&format!(
                " (violating events outside the window, at {}, are not shown)",
                outside.join(", ")
            ));
        } else if !anchor.is_empty() && (!filter.nodes.is_empty() || !filter.only.is_empty()) {
            note.push_str(" (the violating events are always shown)");
        }
        let window_empty = !trace
            .events()
            .iter()
            .any(|e| !outside_window(e.t_ns, from, to));
        if window_empty && (filter.from_ns.is_some() || filter.to_ns.is_some()) {
            // An empty window inside the trace said only "showing 0": where to look instead.
            let times = trace.events().iter().map(|e| e.t_ns);
            let before = times.clone().filter(|&t| printed(t) < from).max();
            let after = times.filter(|&t| printed(t) > to).min();
            let near: Vec<String> = [
                before.map(|t| format!("the last before it at {}", ms(t))),
                after.map(|t| format!("the first after it at {}", ms(t))),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !near.is_empty() {
                note.push_str(&format!(" (no event in the window: {})", near.join(", ")));
            }
        }
        return Ok(Selection {
            shown,
            notes: vec![note],
            from_ns: filter.from_ns.unwrap_or(0),
            to_ns: filter.to_ns.or(end),
        });
    }
    if filter.all || total <= LONG_TRACE_EVENTS || anchor.is_empty() {
        return Ok(Selection::all(trace));
    }
    Ok(causal_view(trace, verdict).unwrap_or_else(|| Selection::all(trace)))
}

/// The causal view of a failing trace, whatever its length, or `None` when the verdict points
/// at no event or the view would hide nothing.
///
/// The whole causal past of a violation is often most of the run (heartbeats carry every
/// node's past to every other node), so the view keeps its *landmarks* and what led to each:
/// the landmarks are the violating events, every fault up to the violation, and the
/// observations, inputs and restarts in the violating events' causal past (for a liveness
/// violation every observation up to its deadline); around them the view keeps each
/// landmark's causal past since the landmark before it in time. Repeated traffic between two
/// state changes is what it hides; a note says how many events.
pub fn causal_view(trace: &Trace, verdict: Option<&Verdict>) -> Option<Selection> {
    let total = trace.len();
    let anchor = anchors(trace, verdict);
    if anchor.is_empty() {
        return None;
    }
    let end = verdict_time(verdict).unwrap_or(u64::MAX).max(
        anchor
            .iter()
            .map(|&i| trace.events()[i].t_ns)
            .max()
            .unwrap_or(0),
    );
    let liveness =
        matches!(verdict, Some(Verdict::Violation(v)) if v.class == PropertyClass::Liveness);
    let past = causal_past(trace, &anchor);
    let landmark = |i: usize| {
        let e = &trace.events()[i];
        anchor.binary_search(&i).is_ok()
            || (e.t_ns <= end
                && match e.kind {
                    EventKind::Fault { .. } => true,
                    EventKind::Observe { .. } => past[i] || liveness,
                    EventKind::Input { .. } => past[i],
                    EventKind::Start { incarnation } => past[i] && incarnation > 0,
                    _ => false,
                })
    };
    // Landmarks grouped by time; each group's causal past since the group before it.
    let mut groups: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for i in (0..total).filter(|&i| landmark(i)) {
        groups.entry(trace.events()[i].t_ns).or_default().push(i);
    }
    // A group's causal past is followed back to the landmark before it: the last state
    // change, network-wide fault, or fault at one of the group's nodes. Faults are kept as
    // they are (the plan injects them; nothing at the node led to them).
    let mut keep = vec![false; total];
    let mut last_general = 0;
    let mut last_fault_at: BTreeMap<NodeId, u64> = BTreeMap::new();
    for (&t, group) in &groups {
        let (faults, changes): (Vec<usize>, Vec<usize>) = group
            .iter()
            .partition(|&&i| matches!(trace.events()[i].kind, EventKind::Fault { .. }));
        let floor = changes
            .iter()
            .filter_map(|&i| trace.events()[i].node)
            .filter_map(|n| last_fault_at.get(&n).copied())
            .fold(last_general, u64::max);
        for i in causal_past_since(trace, &changes, floor) {
            keep[i] = true;
        }
        for &i in &faults {
            keep[i] = true;
            let nodes = concerns(&trace.events()[i]);
            if nodes.is_empty() {
                last_general = t;
            }
            for n in nodes {
                last_fault_at.insert(n, t);
            }
        }
        if !changes.is_empty() {
            last_general = t;
        }
    }
    if let Some(i) = cut_position(trace) {
        keep[i] = true;
    }
    let shown: Vec<usize> = (0..total).filter(|&i| keep[i]).collect();
    if shown.len() == total {
        return None;
    }
    let what = if liveness {
        "the violating events, the faults and every observation"
    } else {
        "the violating events, the faults, and the state changes (observations, inputs, restarts) of their causal past"
    };
    Some(Selection {
        notes: vec![format!(
            "showing {} of {total} events up to the violation at {}: {what}, each with its causal past since the previous one; {} hidden (`--all` shows every event)",
            shown.len(),
            ms(end),
            total - shown.len()
        )],
        shown,
        from_ns: 0,
        to_ns: None,
    })
}

/// A close-up of a failure small enough for one screen: the violating events, the faults up
/// to the violation, and the end of the causal view ([`causal_view`], or the whole trace when
/// it hides nothing) up to `per_node` events at any one node. Positions, ascending; empty
/// when the verdict points at no event.
pub fn closeup(trace: &Trace, verdict: Option<&Verdict>, per_node: usize) -> Vec<usize> {
    let anchor = anchors(trace, verdict);
    let Some(&last) = anchor.last() else {
        return Vec::new();
    };
    let base = causal_view(trace, verdict).unwrap_or_else(|| Selection::all(trace));
    let end = verdict_time(verdict).unwrap_or(u64::MAX);
    let mut keep: BTreeSet<usize> = anchor.iter().copied().collect();
    keep.extend(base.shown.iter().copied().filter(|&i| {
        let e = &trace.events()[i];
        e.t_ns <= end && matches!(e.kind, EventKind::Fault { .. })
    }));
    let mut count: BTreeMap<NodeId, usize> = BTreeMap::new();
    for &i in base.shown.iter().rev().filter(|&&i| i <= last) {
        if let Some(n) = trace.events()[i].node {
            let c = count.entry(n).or_insert(0);
            *c += 1;
            if *c > per_node {
                break;
            }
        }
        keep.insert(i);
    }
    keep.into_iter().collect()
}

/// The causal past of the events at positions `of` among the events at or after `floor_ns`
/// (the scan stops at the first earlier event), themselves included; for each delivery kept,
/// its send too, wherever it is.
fn causal_past_since(trace: &Trace, of: &[usize], floor_ns: u64) -> Vec<usize> {
    let mut frontier: BTreeMap<NodeId, usize> = BTreeMap::new();
    let mut extra: BTreeSet<usize> = BTreeSet::new();
    let mut out = Vec::new();
    let Some(&top) = of.iter().max() else {
        return out;
    };
    for &i in of {
        match trace.events()[i].node {
            Some(n) => {
                let f = frontier.entry(n).or_insert(i);
                *f = (*f).max(i);
            }
            None => {
                extra.insert(i);
            }
        }
    }
    for i in (0..=top).rev() {
        let e = &trace.events()[i];
        if e.t_ns < floor_ns {
            break;
        }
        let inside = match e.node {
            Some(n) => frontier.get(&n).is_some_and(|&f| i <= f),
            None => extra.contains(&i),
        };
        if !inside {
            continue;
        }
        out.push(i);
        if let EventKind::Deliver { sent, .. } = e.kind {
            if let Some(s) = position(trace, sent).filter(|&s| s < i) {
                if trace.events()[s].t_ns < floor_ns {
                    out.push(s);
                } else if let Some(n) = trace.events()[s].node {
                    let f = frontier.entry(n).or_insert(s);
                    *f = (*f).max(s);
                }
            }
        }
    }
    out
}

/// The distance from position `i` to the nearest of the ascending positions `anchor` (not
/// empty).
fn nearest(anchor: &[usize], i: usize) -> usize {
    let at = anchor.partition_point(|&a| a < i);
    [at.checked_sub(1), Some(at)]
        .into_iter()
        .flatten()
        .filter_map(|k| anchor.get(k))
        .map(|&a| a.abs_diff(i))
        .min()
        .unwrap_or(usize::MAX)
}

/// At most `max` of the `shown` positions, ascending: the violating events first, then the
/// faults, then the rest of their causal past nearest a violating event first, then the other
/// events before the violation nearest one first, then the events after it in order. Without
/// a violation, the first `max`. A renderer's cap never drops the violation this way.
pub fn cut(trace: &Trace, verdict: Option<&Verdict>, shown: &[usize], max: usize) -> Vec<usize> {
    if shown.len() <= max {
        return shown.to_vec();
    }
    let anchor = anchors(trace, verdict);
    let cut_at = cut_position(trace).filter(|i| shown.binary_search(i).is_ok());
    if anchor.is_empty() {
        // A run limit stops the run at its end, and a trace cut short stops at its cut: that
        // end is what to look at (the first events of a run that looped a million times show
        // nothing of the loop's end; a cap that kept a cut trace's first events dropped the
        // cut and the events leading to it).
        if matches!(verdict, Some(Verdict::LimitExceeded { .. })) || cut_at.is_some() {
            return shown[shown.len() - max..].to_vec();
        }
        return shown[..max].to_vec();
    }
    let past = causal_past(trace, &anchor);
    let end = verdict_time(verdict).unwrap_or(u64::MAX);
    let last_anchor = anchor.last().copied().unwrap_or(0);
    // Rank: (tier, distance) — lower is kept first.
    let mut ranked: Vec<(u8, usize, usize)> = shown
        .iter()
        .filter(|&&i| i < trace.len())
        .map(|&i| {
            let e = &trace.events()[i];
            let before = e.t_ns <= end || i <= last_anchor;
            let tier = if anchor.binary_search(&i).is_ok() || cut_at == Some(i) {
                0
            } else if before && matches!(e.kind, EventKind::Fault { .. }) {
                1
            } else if past[i] {
                2
            } else if before {
                3
            } else {
                4
            };
            // Nearest a violating event, whichever: the causal past of the first of two far
            // apart (a leader's election) was ranked by its distance to the second, and
            // dropped first.
            let distance = if tier == 4 { i } else { nearest(&anchor, i) };
            (tier, distance, i)
        })
        .collect();
    ranked.sort_unstable();
    let mut kept: Vec<usize> = ranked.into_iter().take(max).map(|(_, _, i)| i).collect();
    kept.sort_unstable();
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Violation;
    use crate::fault::Fault;

    fn ev(id: u64, node: Option<NodeId>, kind: EventKind) -> Event {
        Event {
            id,
            t_ns: id * 1_000_000,
            node,
            local_ns: node.map(|_| (id * 1_000_000) as i64),
            kind,
        }
    }

    fn send(id: u64, node: NodeId, msg_id: u64, to: NodeId) -> Event {
        ev(
            id,
            Some(node),
            EventKind::Send {
                msg_id,
                to,
                msg: "m".into(),
            },
        )
    }

    fn deliver(id: u64, node: NodeId, msg_id: u64, from: NodeId, sent: u64) -> Event {
        ev(
            id,
            Some(node),
            EventKind::Deliver {
                msg_id,
                from,
                sent,
                msg: "m".into(),
            },
        )
    }

    fn obs(id: u64, node: NodeId) -> Event {
        ev(
            id,
            Some(node),
            EventKind::Observe {
                obs: crate::Observation::CsEnter { resource: 0 },
            },
        )
    }

    /// 0: n0 sends m0 to n1; 1: n2 observes; 2: n1 delivers m0; 3: n1 sends m1 to n2;
    /// 4: n2 observes (concurrent with 2 and 3's delivery); 5: crash n2; 6: n1 observes
    /// (the violating event); 7: n2 delivers m1 (after).
    fn trace() -> Trace {
        Trace::new(
            3,
            vec![
                send(0, 0, 0, 1),
                obs(1, 2),
                deliver(2, 1, 0, 0, 0),
                send(3, 1, 1, 2),
                obs(4, 2),
                ev(
                    5,
                    Some(2),
                    EventKind::Fault {
                        fault: Fault::Crash { node: 2 },
                    },
                ),
                obs(6, 1),
                deliver(7, 2, 1, 1, 3),
            ],
        )
    }

    fn violation(events: Vec<u64>, t_ms: u64) -> Verdict {
        Verdict::Violation(Violation {
            property: "p".into(),
            class: PropertyClass::Safety,
            explanation: "x".into(),
            t_ns: t_ms * 1_000_000,
            events,
        })
    }

    #[test]
    fn the_causal_past_follows_node_order_and_messages_only() {
        let t = trace();
        let past = causal_past(&t, &[6]);
        // n1's own events, and n0's send through the delivery; not n2's concurrent events.
        assert_eq!(past, [true, false, true, true, false, false, true, false]);
        let past = causal_past(&t, &[7]);
        assert_eq!(past, [true, true, true, true, true, true, false, true]);
    }

    #[test]
    fn a_long_failing_trace_is_reduced_to_the_causal_past_and_faults() {
        // n0 sends m0 to n1; n2 observes 200 times; n1 delivers; n2 crashes; n1 observes
        // (the violation); n0 observes (after it).
        let mut events = vec![send(0, 0, 0, 1)];
        for id in 1..=200 {
            events.push(obs(id, 2));
        }
        events.push(deliver(201, 1, 0, 0, 0));
        events.push(ev(
            202,
            Some(2),
            EventKind::Fault {
                fault: Fault::Crash { node: 2 },
            },
        ));
        events.push(obs(203, 1));
        events.push(obs(204, 0));
        let t = Trace::new(3, events);
        t.validate().unwrap();
        let v = violation(vec![203], 203);
        let s = select(&t, Some(&v), &Filter::default()).unwrap();
        assert_eq!(s.shown, [0, 201, 202, 203]);
        assert_eq!(
            s.notes,
            ["showing 4 of 205 events up to the violation at 203.000 ms: the violating events, the faults, and the state changes (observations, inputs, restarts) of their causal past, each with its causal past since the previous one; 201 hidden (`--all` shows every event)"]
        );
        // --all, a short trace, and a pass show everything.
        let all = Filter {
            all: true,
            ..Filter::default()
        };
        assert_eq!(select(&t, Some(&v), &all).unwrap(), Selection::all(&t));
        assert_eq!(
            select(&t, Some(&Verdict::Pass), &Filter::default()).unwrap(),
            Selection::all(&t)
        );
        let short = trace();
        assert_eq!(
            select(&short, Some(&violation(vec![6], 6)), &Filter::default()).unwrap(),
            Selection::all(&short)
        );
    }

    /// A change of one link is shown in the views of its two ends only; one with an open end
    /// (every node) in every node's view (`--node 4` showed a change of the link n0 → n2).
    #[test]
    fn a_link_change_is_about_its_ends() {
        let links = |from, to| {
            let o = crate::net::LinkOverride {
                from,
                to,
                latency: None,
                loss: Some(0.5),
                duplicate: None,
                reorder: None,
            };
            ev(
                0,
                None,
                EventKind::Fault {
                    fault: Fault::SetLinks(Box::new(o)),
                },
            )
        };
        let one = links(Some(0), Some(2));
        assert!(about(&one, &[0]) && about(&one, &[2]));
        assert!(!about(&one, &[4]));
        for open in [
            links(Some(0), None),
            links(None, Some(2)),
            links(None, None),
        ] {
            assert!(about(&open, &[4]), "{open:?}");
        }
    }

    #[test]
    fn filters_select_by_node_window_and_kind_and_keep_the_violation() {
        let t = trace();
        let v = violation(vec![6], 6);
        let by_node = |nodes: Vec<NodeId>| {
            select(
                &t,
                Some(&v),
                &Filter {
                    nodes,
                    ..Filter::default()
                },
            )
            .unwrap()
            .shown
        };
        // n2's events, the message it receives, and the violating event (at n1), up to the
        // violation: n2's delivery at 7 ms comes after it.
        assert_eq!(by_node(vec![2]), [1, 4, 5, 6]);
        assert_eq!(by_node(vec![0]), [0, 6]);
        let n2 = |all, to_ns| {
            let f = Filter {
                nodes: vec![2],
                all,
                to_ns,
                ..Filter::default()
            };
            select(&t, Some(&v), &f).unwrap()
        };
        let ended = n2(false, None);
        assert_eq!(ended.to_ns, Some(6_000_000));
        assert!(
            ended.notes[0].contains(
                "node n2; up to the verdict at 6.000 ms (`--to-ms` or `--all` shows the 1 event after it)"
            ),
            "{:?}",
            ended.notes
        );
        // A window that starts after the verdict shows what follows it, and says so.
        let after = select(
            &t,
            Some(&v),
            &Filter {
                from_ns: Some(6_500_000),
                ..Filter::default()
            },
        )
        .unwrap();
        assert_eq!(after.shown, [7]);
        assert!(
            after.notes[0].contains(
                "after the verdict at 6.000 ms: every event of the window comes after the failure"
            ),
            "{:?}",
            after.notes
        );
        // `--all` or a window's own end shows what follows; so does a passing trace's view.
        assert_eq!(n2(true, None).shown, [1, 4, 5, 6, 7]);
        assert_eq!(n2(false, Some(7_000_000)).shown, [1, 4, 5, 6, 7]);
        let passing = Filter {
            nodes: vec![2],
            ..Filter::default()
        };
        assert_eq!(
            select(&t, Some(&Verdict::Pass), &passing).unwrap().shown,
            [1, 4, 5, 7]
        );
        let only = select(
            &t,
            Some(&v),
            &Filter {
                only: vec![EventClass::Faults],
                ..Filter::default()
            },
        )
        .unwrap();
        assert_eq!(only.shown, [5, 6]);
        assert!(only.notes[0].contains("only faults"), "{:?}", only.notes);
        let window = select(
            &t,
            Some(&v),
            &Filter {
                from_ns: Some(2_000_000),
                to_ns: Some(4_000_000),
                ..Filter::default()
            },
        )
        .unwrap();
        assert_eq!(window.shown, [2, 3, 4]);
        assert_eq!(window.from_ns, 2_000_000);
        assert!(
            window.notes[0].contains("from 2.000 ms to 4.000 ms"),
            "{:?}",
            window.notes
        );
        // The violating event (at 6 ms) is outside that window: the note says so.
        assert!(
            window.notes[0]
                .contains("violating events outside the window, at 6.000 ms, are not shown"),
            "{:?}",
            window.notes
        );
    }

    /// A window inside the trace with no event in it said only "showing 0 of N": it names the
    /// events either side of it.
    #[test]
    fn an_empty_window_names_the_events_either_side() {
        let t = trace();
        let times: BTreeSet<u64> = t.events().iter().map(|e| e.t_ns).collect();
        let times: Vec<u64> = times.into_iter().collect();
        let (a, b) = times
            .windows(2)
            .map(|w| (w[0], w[1]))
            .find(|(a, b)| b - a >= 2_000)
            .expect("a gap between two instants");
        let sel = select(
            &t,
            None,
            &Filter {
                from_ns: Some(a + 1_000),
                to_ns: Some(b - 1_000),
                ..Filter::default()
            },
        )
        .unwrap();
        assert!(sel.shown.is_empty());
        let want = format!(
            "(no event in the window: the last before it at {}, the first after it at {})",
            ms(a),
            ms(b)
        );
        assert!(sel.notes[0].contains(&want), "{:?}", sel.notes);
        // A window with events, none of them of the node asked for, says no such thing.
        let sel = select(
            &t,
            None,
            &Filter {
                from_ns: Some(a),
                to_ns: Some(a),
                nodes: vec![2],
                ..Filter::default()
            },
        )
        .unwrap();
        assert!(
            !sel.notes[0].contains("no event in the window"),
            "{:?}",
            sel.notes
        );
    }

    #[test]
    fn bad_filters_are_errors_naming_the_problem() {
        let t = trace();
        let e = select(
            &t,
            None,
            &Filter {
                nodes: vec![3],
                ..Filter::default()
            },
        )
        .unwrap_err();
        assert_eq!(e, "node 3 is not in the trace: it has 3 nodes (0 to 2)");
        let e = select(
            &t,
            None,
            &Filter {
                from_ns: Some(5_000_000),
                to_ns: Some(1_000_000),
                ..Filter::default()
            },
        )
        .unwrap_err();
        assert!(
            e.contains("reversed: it starts at 5.000 ms and ends at 1.000 ms"),
            "{e}"
        );
        let last = t.events().last().unwrap().t_ns;
        let e = select(
            &t,
            None,
            &Filter {
                from_ns: Some(last + 1000),
                ..Filter::default()
            },
        )
        .unwrap_err();
        assert!(e.contains("after the trace's last event"), "{e}");
        // Compared as printed (whole µs): a time copied from the timeline keeps the event
        // printed at it, either end of the window.
        let mut odd = t.clone();
        for e in odd.events_mut() {
            e.t_ns += 63; // 2.000063 ms prints as 2.000 ms
        }
        let window = |from_ns, to_ns| {
            select(
                &odd,
                None,
                &Filter {
                    from_ns: Some(from_ns),
                    to_ns: Some(to_ns),
                    ..Filter::default()
                },
            )
            .unwrap()
            .shown
        };
        let at_2ms: Vec<usize> = (0..odd.len())
            .filter(|&i| odd.events()[i].t_ns / 1000 == 2000)
            .collect();
        assert!(!at_2ms.is_empty());
        assert_eq!(window(2_000_000, 2_000_000), at_2ms);
        // and a bound finer than that still leaves out what prints after it
        assert!(window(0, 1_999_999)
            .iter()
            .all(|&i| odd.events()[i].t_ns < 2_000_000));
        let last = odd.events().last().unwrap().t_ns;
        assert!(select(
            &odd,
            None,
            &Filter {
                from_ns: Some(last - 63),
                ..Filter::default()
            }
        )
        .is_ok());
    }

    /// A cut trace keeps its cut in every view that reaches it, and says which violating
    /// events lie past it, unrecorded (a view showed neither).
    #[test]
    fn a_cut_trace_shows_its_cut_and_the_violating_events_past_it() {
        let mut t = trace();
        let end = t.events().last().unwrap().t_ns;
        let id = t.len() as u64;
        t.events_mut().push(Event {
            id,
            t_ns: end,
            node: None,
            local_ns: None,
            kind: EventKind::Cut {
                reason: "limits.max_trace_bytes = 100 reached".into(),
                run_stopped: false,
            },
        });
        let v = violation(vec![6, id + 40], 6);
        for filter in [
            Filter::default(),
            Filter {
                only: vec![EventClass::Faults],
                ..Filter::default()
            },
            Filter {
                nodes: vec![0],
                ..Filter::default()
            },
        ] {
            let sel = select(&t, Some(&v), &filter).unwrap();
            assert!(sel.shown.contains(&(id as usize)), "{filter:?}: {sel:?}");
            // the count said is the count shown, the cut included
            if let Some(n) = sel.notes.iter().find_map(|n| n.strip_prefix("showing ")) {
                let said: usize = n.split(' ').next().unwrap().parse().unwrap();
                assert_eq!(said, sel.shown.len(), "{filter:?}: {:?}", sel.notes);
            }
            assert!(
                sel.notes.iter().any(|n| n.contains("the trace is cut at")
                    && n.contains(&format!(
                        "the violating event #{} lies past the cut",
                        id + 40
                    ))),
                "{filter:?}: {:?}",
                sel.notes
            );
        }
        // A renderer's cap keeps the cut and the events just before it, whether or not a
        // violating event was recorded (a cap of the first events dropped them).
        let all: Vec<usize> = (0..t.len()).collect();
        let past_cut = violation(vec![id + 40], 6);
        for verdict in [None, Some(&past_cut), Some(&v)] {
            let kept = cut(&t, verdict, &all, 3);
            assert!(kept.contains(&(id as usize)), "{verdict:?}: {kept:?}");
        }
        assert_eq!(cut(&t, None, &all, 3), all[all.len() - 3..]);
        // A window that ends before it: not shown, still said.
        let sel = select(
            &t,
            Some(&v),
            &Filter {
                to_ns: Some(1_000_000),
                ..Filter::default()
            },
        )
        .unwrap();
        assert!(!sel.shown.contains(&(id as usize)));
        assert!(sel.notes.iter().any(|n| n.contains("the trace is cut at")));
        // An uncut trace has no such note.
        let sel = select(&trace(), Some(&v), &Filter::default()).unwrap();
        assert!(
            !sel.notes.iter().any(|n| n.contains("cut")),
            "{:?}",
            sel.notes
        );
    }

    #[test]
    fn a_cut_keeps_the_violation_and_its_causal_past_first() {
        let t = trace();
        let v = violation(vec![6], 6);
        let all: Vec<usize> = (0..t.len()).collect();
        // Three events: the violating one, the fault, then the causal past nearest it.
        assert_eq!(cut(&t, Some(&v), &all, 3), [3, 5, 6]);
        assert_eq!(cut(&t, Some(&v), &all, 5), [0, 2, 3, 5, 6]);
        // Without a violation: the first ones.
        assert_eq!(cut(&t, Some(&Verdict::Pass), &all, 3), [0, 1, 2]);
        assert_eq!(cut(&t, Some(&v), &all, 100), all);
    }
}
