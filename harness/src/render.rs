//! Trace renderers: a plain text timeline (what the corpus snapshots with insta), a Mermaid
//! `sequenceDiagram` ([`mermaid`]) and a self-contained HTML page with an SVG space-time
//! diagram ([`html`]).
//!
//! Every renderer is a pure function of the trace and the verdict: the same input gives the
//! same bytes.

use crate::engine::Verdict;
use crate::fault::Fault;
use crate::net::{DropReason, Latency, LinkOverride};
use crate::process::{ClockAdjust, Observation};
use crate::trace::{Event, EventKind, Trace};
use crate::view::{self, Selection};
use crate::NodeId;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// A short text for an observation.
pub fn observation_text(obs: &Observation) -> String {
    match obs {
        Observation::CsRequest { resource } => format!("cs_request r{resource}"),
        Observation::CsEnter { resource } => format!("cs_enter r{resource}"),
        Observation::CsExit { resource } => format!("cs_exit r{resource}"),
        Observation::CsAbandon { resource } => format!("cs_abandon r{resource}"),
        Observation::Leader {
            leader: Some(l),
            term,
        } => format!("leader n{l} term {term}"),
        Observation::Leader { leader: None, term } => format!("no leader term {term}"),
        Observation::Vote { term, candidate } => format!("vote n{candidate} term {term}"),
        Observation::Delivered { id } => format!("delivered {id}"),
        Observation::Multicast { id } => format!("multicast {id}"),
        Observation::State { value } => format!("state {value}"),
        Observation::LogicalTime { lamport, vector } if vector.is_empty() => {
            format!("clock L={lamport}")
        }
        Observation::LogicalTime { lamport, vector } => format!("clock L={lamport} V={vector:?}"),
        Observation::WaitFor { waiter, on } => format!("wait_for n{waiter} -> n{on}"),
        Observation::WaitEnd { waiter, on } => format!("wait_end n{waiter} -> n{on}"),
        Observation::DeadlockDetected { initiator } => format!("DEADLOCK detected by n{initiator}"),
        Observation::Note { text } => format!("note {text}"),
        Observation::User { kind, data } if data.is_null() => kind.clone(),
        Observation::User { kind, data } => format!("{kind} {data}"),
    }
}

/// A short text for a fault, the run's node count unknown: a partition ends with `| rest`,
/// the group of every node its groups do not list (see [`fault_text_among`]).
pub fn fault_text(f: &Fault) -> String {
    fault_text_among(f, None)
}

/// A short text for a fault of a run of `nodes` nodes: a partition whose groups list every
/// one of them leaves no rest, and says none (stop 64: `partition [[0], [1, 2]] | rest` of
/// three nodes named a group that did not exist).
pub fn fault_text_among(f: &Fault, nodes: Option<usize>) -> String {
    match f {
        Fault::Partition { groups } => {
            let listed: BTreeSet<NodeId> = groups.iter().flatten().copied().collect();
            match nodes {
                Some(n) if (0..n).all(|v| listed.contains(&v)) => format!("partition {groups:?}"),
                _ => format!("partition {groups:?} | rest"),
            }
        }
        Fault::PartitionOneway { from, to } => format!("partition one-way {from:?} -/-> {to:?}"),
        Fault::Heal => "heal".into(),
        Fault::Crash { node } => format!("crash n{node}"),
        Fault::Restart { node } => format!("restart n{node}"),
        Fault::Pause { node } => format!("pause n{node}"),
        Fault::Resume { node } => format!("resume n{node}"),
        // (a generated jump printed `+28.700000000000003 ms`)
        Fault::ClockJump { node, delta_ms } => {
            let sign = if *delta_ms >= 0.0 { "+" } else { "" };
            format!("clock jump n{node} {sign}{} ms", short_number(*delta_ms))
        }
        Fault::DriftChange { node, drift_ppm } => {
            format!("drift n{node} = {} ppm", short_number(*drift_ppm))
        }
        Fault::SetLinks(o) => links_text(o),
    }
}

/// A number for a reader: three decimals at most, without trailing zeros (`-4.161`, `50`),
/// and in scientific notation when those would round a nonzero value to 0 (`4.2e-5`). A
/// generated drift printed all 16 digits (`-4.161366533070556 ppm`); the scenario file keeps
/// the exact value, and `diff` prints it where two runs differ below what this shows.
pub fn short_number(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.0005 {
        return format!("{x:.1e}");
    }
    let s = format!("{x:.3}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    match s {
        "-0" => "0".to_string(),
        s => s.to_string(),
    }
}

/// A percentage without trailing zeros: `20%`, `2.5%`.
fn percent(p: f64) -> String {
    let s = format!("{:.2}", p * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// A link override in words: `links n1 → n2: latency 1000 ms`, `links all → n0: loss 20%,
/// latency 1–10 ms`.
pub fn links_text(o: &LinkOverride) -> String {
    let end = |n: Option<NodeId>| n.map_or_else(|| "all".to_string(), |n| format!("n{n}"));
    let mut what = Vec::new();
    match &o.latency {
        Some(Latency::Constant { ms }) => what.push(format!("latency {ms} ms")),
        Some(Latency::Uniform { min_ms, max_ms }) => {
            what.push(format!("latency {min_ms}–{max_ms} ms"))
        }
        Some(Latency::Exponential {
            min_ms,
            mean_ms,
            max_ms,
        }) => what.push(format!("latency {min_ms}–{max_ms} ms, mean {mean_ms} ms")),
        None => {}
    }
    for (name, p) in [
        ("loss", o.loss),
        ("duplication", o.duplicate),
        ("reordering", o.reorder),
    ] {
        if let Some(p) = p {
            what.push(format!("{name} {}", percent(p)));
        }
    }
    if what.is_empty() {
        what.push("unchanged".into());
    }
    format!("links {} → {}: {}", end(o.from), end(o.to), what.join(", "))
}

/// The name of a drop reason, as in JSON (`loss`, `partitioned`, ...).
pub fn drop_reason_text(reason: DropReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A clock adjustment: `step +1.500 ms`, `slew -0.010 ms`.
pub fn clock_adjust_text(how: ClockAdjust, delta_ns: i64) -> String {
    format!(
        "{} {:+.3} ms",
        serde_json::to_value(how)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        delta_ns as f64 / 1e6
    )
}

/// The widths of a text timeline's columns, and the node count its fault texts are read
/// against: wide enough for the longest time, local clock and node id of a trace, so that
/// no line of it shifts (stop 64: a time of 10^8 ms or more, a local clock past ±10^7 ms or a
/// node from n1000 on pushed its line's text right of the others').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Characters of the global time, in ms with three decimals (at least 12).
    pub time: usize,
    /// Characters of the local clock, in ms with three decimals (at least 12).
    pub local: usize,
    /// Characters of a node id after its `n` (at least 3).
    pub node: usize,
    /// The run's node count, when known: a partition whose groups list every node is then
    /// not said to leave a rest ([`fault_text_among`]).
    pub nodes: Option<usize>,
}

impl Default for Columns {
    /// The widths that hold times and clocks below 10^8 ms and nodes below 1000, with the
    /// node count unknown.
    fn default() -> Columns {
        Columns {
            time: 12,
            local: 12,
            node: 3,
            nodes: None,
        }
    }
}

impl Columns {
    /// The columns that fit every event of `trace`.
    pub fn of(trace: &Trace) -> Columns {
        Columns::fitting(trace.events(), trace.nodes)
    }

    /// The columns that fit `events`, of a run of `nodes` nodes.
    pub fn fitting<'a>(events: impl IntoIterator<Item = &'a Event>, nodes: usize) -> Columns {
        let ms = |ns: f64| format!("{:.3}", ns / 1e6).len();
        let digits = |n: usize| n.checked_ilog10().map_or(1, |d| d as usize + 1);
        let mut c = Columns {
            nodes: Some(nodes),
            node: digits(nodes.saturating_sub(1)).max(3),
            ..Columns::default()
        };
        for e in events {
            c.time = c.time.max(ms(e.t_ns as f64));
            if let Some(l) = e.local_ns {
                c.local = c.local.max(ms(l as f64));
            }
            if let Some(n) = e.node {
                c.node = c.node.max(digits(n));
            }
        }
        c
    }
}

/// One line for an event (without the highlight marker), in the default [`Columns`].
pub fn event_line(e: &Event) -> String {
    event_line_in(e, &Columns::default())
}

/// One line for an event (without the highlight marker) in the columns `c`.
pub fn event_line_in(e: &Event, c: &Columns) -> String {
    let who = match e.node {
        Some(n) => format!("n{n:<w$}", w = c.node),
        None => format!("--{}", " ".repeat(c.node - 1)),
    };
    let local = match e.local_ns {
        Some(l) => format!("@{:>w$.3}", l as f64 / 1e6, w = c.local),
        None => " ".repeat(c.local + 1),
    };
    let what = match &e.kind {
        EventKind::Start { incarnation: 0 } => "start".to_string(),
        EventKind::Start { incarnation } => format!("start     (incarnation {incarnation})"),
        EventKind::Send { msg_id, to, msg } => format!("send      #{msg_id} -> n{to}  {msg}"),
        EventKind::Deliver {
            msg_id, from, msg, ..
        } => format!("deliver   #{msg_id} <- n{from}  {msg}"),
        EventKind::Drop {
            msg_id,
            from,
            to,
            reason,
        } => {
            format!(
                "drop      #{msg_id} n{from} -> n{to}  ({})",
                drop_reason_text(*reason)
            )
        }
        EventKind::Timer { timer, .. } => format!("timer     {timer}"),
        EventKind::Input { input } => format!("input     {input}"),
        EventKind::Fault { fault } => {
            format!("FAULT     {}", fault_text_among(fault, c.nodes))
        }
        EventKind::ClockAdjust { how, delta_ns } => {
            format!("clock     {}", clock_adjust_text(*how, *delta_ns))
        }
        EventKind::Observe { obs } => format!("observe   {}", observation_text(obs)),
        EventKind::Panic { message } => format!("PANIC     {message}"),
        EventKind::Cut {
            reason,
            run_stopped,
        } => format!(
            "CUT       {reason}: the {}",
            if *run_stopped {
                "run stopped"
            } else {
                "trace stops here, the run went on unrecorded"
            }
        ),
    };
    format!(
        "{:>w$.3} ms  {who} {local}  {}",
        e.t_ns as f64 / 1e6,
        one_line(&what),
        w = c.time
    )
}

/// Whether `c` must be escaped on a line of the text timeline: a control character, a
/// line or paragraph separator (U+2028, U+2029), or a bidirectional formatting character
/// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which reorders what a
/// terminal shows after it.
pub fn unsafe_on_a_line(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with its control, separator and bidirectional characters escaped (`\n`,
/// `\u{1b}`, `\u{202e}`): an event is one line of the timeline, so a message or input of a
/// hand-made trace cannot draw lines that look like events of their own, move the terminal's
/// cursor or reverse what follows. Text without any is returned as is.
pub(crate) fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(unsafe_on_a_line) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| {
                if unsafe_on_a_line(c) {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// The whole trace as a text timeline: one line per event, global time first, then the node
/// and its local clock; the events a violation points at are marked `>>`; the verdict last.
pub fn text(trace: &Trace, verdict: Option<&Verdict>) -> String {
    text_view(trace, &Selection::all(trace), verdict)
}

/// The events `sel` selects of `trace` as a text timeline ([`text`]), with a line under the
/// header saying what was left out (see [`crate::view`]).
pub fn text_view(trace: &Trace, sel: &Selection, verdict: Option<&Verdict>) -> String {
    let marked = marked_ids(trace, verdict);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} nodes, {} events; columns: global time, node, @local clock (ms), event",
        trace.nodes,
        trace.len()
    );
    // A note is wrapped to 100 columns (it was one line of up to 265), its continuation
    // lines indented.
    for note in &sel.notes {
        for (i, line) in wrap(&one_line(note), 96).lines().enumerate() {
            let _ = writeln!(out, "{}{line}", if i == 0 { "# " } else { "#   " });
        }
    }
    let shown = sel.events(trace);
    let columns = Columns::fitting(shown.iter().copied(), trace.nodes);
    for e in shown {
        let mark = if marked.contains(&e.id) { ">>" } else { "  " };
        let _ = writeln!(out, "{mark}{}", event_line_in(e, &columns));
    }
    if let Some(v) = verdict {
        // One line, as every comment line (a panic's message may hold line breaks).
        let _ = writeln!(out, "# verdict: {}", one_line(&v.to_string()));
    }
    out
}

/// The ids of the events a verdict points at, for highlighting: a violation's `events`, or
/// the panic a panic verdict names (its node's `panic` event at its time; a panic was marked
/// in no view).
fn marked_ids(trace: &Trace, verdict: Option<&Verdict>) -> BTreeSet<u64> {
    match verdict {
        Some(Verdict::Violation(v)) => v.events.iter().copied().collect(),
        Some(Verdict::Panic { node, t_ns, .. }) => trace
            .events()
            .iter()
            .filter(|e| {
                e.node == Some(*node)
                    && e.t_ns == *t_ns
                    && matches!(e.kind, EventKind::Panic { .. })
            })
            .map(|e| e.id)
            .collect(),
        _ => BTreeSet::new(),
    }
}

/// Every node an event names: where it happened, and the other end of a message.
fn nodes_named(e: &Event) -> Vec<NodeId> {
    let mut v: Vec<NodeId> = e.node.into_iter().collect();
    match &e.kind {
        EventKind::Send { to, .. } => v.push(*to),
        EventKind::Deliver { from, .. } => v.push(*from),
        EventKind::Drop { from, to, .. } => v.extend([*from, *to]),
        EventKind::Fault { fault } => v.extend(fault_nodes(fault)),
        _ => {}
    }
    v
}

/// The nodes a fault is about (empty: the whole network): [`Fault::nodes_about`].
fn fault_nodes(f: &Fault) -> Vec<NodeId> {
    f.nodes_about()
}

/// Up to this many nodes, a diagram draws every node's lane; past it, only up to the highest
/// node an event it shows names (stop 64: a 10,000-node trace declared 10,000 Mermaid
/// participants and drew 10,000 lanes, where its 400 drawn events named 400 nodes).
pub const LANES_ALL_MAX: usize = 64;

/// Number of lanes a diagram of `events` (of a run of `nodes` nodes) draws: every node's up to
/// [`LANES_ALL_MAX`] nodes, or more if an event names a higher node; past it, up to the
/// highest node an event names.
fn lanes(events: &[&Event], nodes: usize) -> usize {
    let named = node_count(events, 1);
    if nodes <= LANES_ALL_MAX {
        named.max(nodes)
    } else {
        named
    }
}

/// What a diagram of `lanes` lanes says of the nodes of `nodes` it leaves out, if any.
fn lanes_note(lanes: usize, nodes: usize) -> Option<String> {
    (lanes < nodes).then(|| {
        format!(
            "n{lanes}–n{} are not drawn: no event shown names them",
            nodes - 1
        )
    })
}

/// Number of nodes to draw: the trace's, or more if an event names a higher node.
fn node_count(events: &[&Event], nodes: usize) -> usize {
    events
        .iter()
        .flat_map(|e| nodes_named(e))
        .map(|n| n.saturating_add(1))
        .fold(nodes.max(1), usize::max)
}

/// The rendered message of every send, by message id (the first send of an id wins).
fn message_texts(events: &[Event]) -> BTreeMap<u64, &Event> {
    let mut sends = BTreeMap::new();
    for e in events {
        if let EventKind::Send { msg_id, .. } = &e.kind {
            sends.entry(*msg_id).or_insert(e);
        }
    }
    sends
}

/// The message ids some event of `events` delivers or drops.
fn arrivals<'a>(events: impl IntoIterator<Item = &'a Event>) -> BTreeSet<u64> {
    events
        .into_iter()
        .filter_map(|e| match &e.kind {
            EventKind::Deliver { msg_id, .. } | EventKind::Drop { msg_id, .. } => Some(*msg_id),
            _ => None,
        })
        .collect()
}

/// Why a send of a view has no arrow: its message arrives outside the view, is dropped
/// outside it (every copy: a partition, a crash, loss), or never arrives, as it was still in
/// flight when the trace ended.
fn unarrived_reason(msg_id: u64, m: &Messages<'_>) -> &'static str {
    if m.delivered.contains(&msg_id) {
        "arrives outside this view"
    } else if m.all.contains(&msg_id) {
        "dropped outside this view"
    } else {
        "still in flight when the trace ends"
    }
}

/// The message ids some event of `events` delivers.
fn deliveries(events: &[Event]) -> BTreeSet<u64> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Deliver { msg_id, .. } => Some(*msg_id),
            _ => None,
        })
        .collect()
}

/// The message text of a send event, or `#id` when the trace did not record texts.
fn send_text(send: Option<&&Event>, msg_id: u64) -> String {
    match send.map(|e| &e.kind) {
        Some(EventKind::Send { msg, .. }) if !msg.is_empty() => msg.to_string(),
        _ => format!("message #{msg_id}"),
    }
}

/// Why a view too long to draw whole keeps its last events: where a run limit stopped the
/// run, or where the violation is (the verdict says which; a limit is never claimed for a
/// run that hit none).
fn tail_reason(verdict: Option<&Verdict>) -> &'static str {
    match verdict {
        Some(Verdict::LimitExceeded { .. }) => "where the run limit stopped it",
        Some(Verdict::Violation(_)) => "up to the violation",
        Some(Verdict::Panic { .. }) => "up to the panic",
        _ => "where the trace ends",
    }
}

/// Most events [`mermaid`] draws; a note says how many more the trace has.
pub const MERMAID_MAX_EVENTS: usize = 400;

/// Escapes a label for Mermaid: `;`, `#` and `&` become entity codes, `<` and `>` too
/// (Mermaid would read them as HTML), line breaks become `<br/>`, other control characters
/// spaces, and bidirectional and separator characters their escapes (`\u{202e}`).
pub fn mermaid_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '<' => out.push_str("#60;"),
            '>' => out.push_str("#62;"),
            // `&amp;` would come out as `&amp#59;`: the entity's own `;` is escaped.
            '&' => out.push_str("#38;"),
            // `%%{init: …}%%` anywhere in the diagram is a directive Mermaid applies (its
            // pattern is not anchored to a line's start): a label's text must not make one.
            '%' => out.push_str("#37;"),
            '\n' => out.push_str("<br/>"),
            '\r' => {}
            c if c.is_control() => out.push(' '),
            // A bidirectional or separator character would reorder the diagram's label, as
            // it would a line of the text timeline: written as its escape, as there.
            c if unsafe_on_a_line(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// Breaks `text` into lines of at most about `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split(' ') {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
    }
    out
}

/// `n0` or `n0,n4`: the participants a note spans.
fn mermaid_span(lo: NodeId, hi: NodeId) -> String {
    if lo == hi {
        format!("n{lo}")
    } else {
        format!("n{lo},n{hi}")
    }
}

/// What a diagram knows of the messages: the send of every message id, and which messages
/// arrive (are delivered or dropped) in the drawing and in the whole trace. A send is drawn
/// as the arrow of its arrival; one whose arrival is not drawn is a note of its own.
struct Messages<'a> {
    sends: BTreeMap<u64, &'a Event>,
    drawn: BTreeSet<u64>,
    all: BTreeSet<u64>,
    /// The messages some event of the whole trace delivers (the others of `all` are dropped).
    delivered: BTreeSet<u64>,
}

/// The Mermaid statement for one event (`None`: not drawn, e.g. a send, drawn at delivery).
fn mermaid_statement(e: &Event, m: &Messages<'_>, nodes: usize) -> Option<String> {
    let all = mermaid_span(0, nodes - 1);
    let sends = &m.sends;
    let note = |node: Option<NodeId>, text: String| {
        node.map(|n| format!("Note over n{n}: {}", mermaid_escape(&text)))
    };
    match &e.kind {
        EventKind::Send { msg_id, to, .. } if !m.drawn.contains(msg_id) => note(
            e.node,
            format!(
                "sends {} to n{to} ({})",
                send_text(sends.get(msg_id), *msg_id),
                unarrived_reason(*msg_id, m)
            ),
        ),
        EventKind::Start { incarnation: 0 } | EventKind::Send { .. } => None,
        EventKind::Start { incarnation } => {
            note(e.node, format!("restart (incarnation {incarnation})"))
        }
        EventKind::Deliver { msg_id, from, .. } => e.node.map(|to| {
            let text = send_text(sends.get(msg_id), *msg_id);
            format!("n{from}->>n{to}: {}", mermaid_escape(&text))
        }),
        EventKind::Drop {
            msg_id,
            from,
            to,
            reason,
        } => {
            let text = send_text(sends.get(msg_id), *msg_id);
            Some(format!(
                "n{from}-x n{to}: {}",
                mermaid_escape(&format!("{text} ({})", drop_reason_text(*reason)))
            ))
        }
        EventKind::Timer { timer, .. } => note(e.node, format!("timer {timer}")),
        EventKind::Input { input } => note(e.node, format!("input {input}")),
        EventKind::Fault { fault } => {
            let concerned = fault_nodes(fault);
            let span = match (concerned.iter().min(), concerned.iter().max()) {
                (Some(&lo), Some(&hi)) => mermaid_span(lo, hi),
                _ => all,
            };
            Some(format!(
                "Note over {span}: {}",
                mermaid_escape(&fault_text_among(fault, Some(nodes)))
            ))
        }
        EventKind::ClockAdjust { how, delta_ns } => note(
            e.node,
            format!("clock {}", clock_adjust_text(*how, *delta_ns)),
        ),
        EventKind::Observe { obs } => note(e.node, observation_text(obs)),
        EventKind::Panic { message } => note(e.node, format!("PANIC {message}")),
        EventKind::Cut { reason, .. } => Some(format!(
            "Note over {all}: {}",
            mermaid_escape(&format!("the trace stops here: {reason}"))
        )),
    }
}

/// The trace as a Mermaid `sequenceDiagram`: one participant per node; a delivered message is
/// an arrow from sender to receiver drawn at its delivery (`n1->>n0: Request`), a dropped one
/// a lost arrow (`n1-x n2: Grant (loss)`); observations, timers, inputs, restarts and clock
/// adjustments are notes over their node, faults notes over the nodes concerned (or all).
/// The events a violation points at are drawn in a red `rect` block, followed by a
/// `⚠ VIOLATION` note with the explanation; other verdicts end the diagram as a note.
/// At most [`MERMAID_MAX_EVENTS`] events are drawn, then a note says how many were left out.
pub fn mermaid(trace: &Trace, verdict: Option<&Verdict>) -> String {
    mermaid_view(trace, &Selection::all(trace), verdict)
}

/// The events `sel` selects of `trace` as a Mermaid diagram ([`mermaid`]); a note at the top
/// says what the selection left out. The cap keeps the violating events and their causal
/// past first ([`view::cut`]).
pub fn mermaid_view(trace: &Trace, sel: &Selection, verdict: Option<&Verdict>) -> String {
    let sel = &sel.drawable(trace);
    let marked = marked_ids(trace, verdict);
    let kept = view::cut(trace, verdict, &sel.shown, MERMAID_MAX_EVENTS);
    let prefix = sel.shown.starts_with(&kept);
    let shown: Vec<&Event> = kept.iter().filter_map(|&i| trace.events().get(i)).collect();
    let all_events: Vec<&Event> = trace.events().iter().collect();
    let in_trace = node_count(&all_events, trace.nodes);
    let nodes = lanes(&shown, in_trace);
    let all = mermaid_span(0, nodes - 1);
    let messages = Messages {
        sends: message_texts(trace.events()),
        drawn: arrivals(shown.iter().copied()),
        all: arrivals(trace.events()),
        delivered: deliveries(trace.events()),
    };
    let mut out = String::from("sequenceDiagram\n");
    let _ = writeln!(
        out,
        "    %% sincro trace: {} nodes, {} events",
        in_trace,
        trace.len()
    );
    for n in 0..nodes {
        let _ = writeln!(out, "    participant n{n}");
    }
    for note in lanes_note(nodes, in_trace).iter().chain(&sel.notes) {
        let _ = writeln!(out, "    Note over {all}: {}", mermaid_escape(note));
    }
    let violation_note = |out: &mut String| {
        if let Some(Verdict::Violation(v)) = verdict {
            let involved: Vec<NodeId> = trace
                .events()
                .iter()
                .filter(|e| marked.contains(&e.id))
                .flat_map(nodes_named)
                .filter(|&n| n < nodes)
                .collect();
            let span = match (involved.iter().min(), involved.iter().max()) {
                (Some(&lo), Some(&hi)) => mermaid_span(lo, hi),
                _ => all.clone(),
            };
            let _ = writeln!(
                out,
                "    Note over {span}: {}",
                mermaid_escape(&format!(
                    "⚠ VIOLATION {} at {:.3} ms:\n{}",
                    v.property,
                    v.t_ns as f64 / 1e6,
                    wrap(&v.explanation, 60)
                ))
            );
        }
    };
    // The violation's note goes after its last event, or later, at the violation's time (a
    // liveness deadline passes well after the request it points at).
    let violation_t = match verdict {
        Some(Verdict::Violation(v)) => v.t_ns,
        _ => 0,
    };
    let last_marked = shown.iter().rposition(|e| marked.contains(&e.id)).map(|i| {
        shown
            .iter()
            .rposition(|e| e.t_ns <= violation_t)
            .map_or(i, |j| j.max(i))
    });
    // Where the cap left events out between two it draws, a note says so: a diagram that
    // jumped from a leader's claim to heartbeats 150 ms later, the election between them
    // not drawn, read as a run with no election (stop 58's probe).
    let position = |i: usize| sel.shown.binary_search(&i).unwrap_or(0);
    let mut previous: Option<usize> = None;
    for (i, e) in shown.iter().enumerate() {
        if !prefix {
            let here = position(kept[i]);
            let skipped = previous.map_or(here, |p| here - p - 1);
            previous = Some(here);
            if skipped > 0 {
                let _ = writeln!(
                    out,
                    "    Note over {all}: … {skipped} event{} not drawn here",
                    if skipped == 1 { "" } else { "s" }
                );
            }
        }
        if let Some(stmt) = mermaid_statement(e, &messages, nodes) {
            if marked.contains(&e.id) {
                let _ = writeln!(out, "    rect rgb(255,200,200)\n        {stmt}\n    end");
            } else {
                let _ = writeln!(out, "    {stmt}");
            }
        }
        if Some(i) == last_marked {
            violation_note(&mut out);
        }
    }
    // ... and after the last one it draws (stop 66: those had no note of their own).
    let after = previous.map_or(0, |p| sel.shown.len() - p - 1);
    if !prefix && after > 0 {
        let _ = writeln!(
            out,
            "    Note over {all}: … {after} event{} not drawn here",
            if after == 1 { "" } else { "s" }
        );
    }
    if shown.len() < sel.shown.len() {
        let which = if prefix {
            format!("the first {} of {}", shown.len(), sel.shown.len())
        } else if sel.shown.ends_with(&kept) {
            format!(
                "the last {} of {}, {}",
                shown.len(),
                sel.shown.len(),
                tail_reason(verdict)
            )
        } else {
            format!(
                "{} of {}: the violating events and their causal past first",
                shown.len(),
                sel.shown.len()
            )
        };
        // The notes between events counted those left out: this is their sum, not more.
        let _ = writeln!(
            out,
            "    Note over {all}: … {} {} not drawn (the diagram shows {which})",
            sel.shown.len() - shown.len(),
            if prefix {
                "more events"
            } else {
                "events in all"
            },
        );
    }
    match verdict {
        Some(Verdict::Violation(_)) if last_marked.is_none() => violation_note(&mut out),
        Some(Verdict::Violation(_)) | None => {}
        Some(v) => {
            let _ = writeln!(
                out,
                "    Note over {all}: {}",
                mermaid_escape(&format!("verdict: {v}"))
            );
        }
    }
    out
}

/// Most events [`html`] draws; a note says how many more the trace has.
pub const HTML_MAX_EVENTS: usize = 5000;

/// Escapes text for HTML and SVG (element content and attribute values); a control
/// character becomes a space and a separator or bidirectional formatting character its
/// escape (`\u{202e}`), as on a line of the text timeline ([`unsafe_on_a_line`]).
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' => out.push(' '),
            // (a U+202E in a message drew its diagram label reversed, stop 66)
            c if c != '\n' && unsafe_on_a_line(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// A tick step of 1, 2 or 5 × 10^k µs giving at most `max_ticks` ticks up to `t_ns`.
fn tick_step_ns(t_ns: u64, max_ticks: u64) -> u64 {
    let mut base = 1_000u64;
    loop {
        for m in [1, 2, 5] {
            let step = base.saturating_mul(m);
            if t_ns / step < max_ticks {
                return step;
            }
        }
        base = base.saturating_mul(10);
    }
}

/// A tick label: `25 ms`, `2.5 ms`, ... with as many decimals as the step needs.
fn tick_label(t_ns: u64, step_ns: u64) -> String {
    let decimals = match step_ns {
        s if s % 1_000_000 == 0 => 0,
        s if s % 100_000 == 0 => 1,
        s if s % 10_000 == 0 => 2,
        _ => 3,
    };
    format!("{:.*} ms", decimals, t_ns as f64 / 1e6)
}

/// Shortens a label to `max` characters.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Kinds of small marks drawn on a node's line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MarkKind {
    Observe,
    Timer,
    Input,
    Fault,
    Clock,
    Restart,
    Panic,
    /// A send whose message arrives outside the view, or never.
    Unarrived,
}

impl MarkKind {
    fn class(self) -> &'static str {
        match self {
            MarkKind::Observe => "obs",
            MarkKind::Timer => "timer",
            MarkKind::Input => "input",
            MarkKind::Fault => "fault",
            MarkKind::Clock => "clock",
            MarkKind::Restart => "restart",
            MarkKind::Panic => "panic",
            MarkKind::Unarrived => "unarrived",
        }
    }

    /// Timers and inputs are labelled under the line, the rest above.
    fn below(self) -> bool {
        matches!(self, MarkKind::Timer | MarkKind::Input)
    }

    /// The mark's shape at (x, y), as SVG.
    fn shape(self, x: f64, y: f64) -> String {
        match self {
            MarkKind::Observe => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="4.5"/>"#),
            MarkKind::Timer => format!(r#"<path d="M{:.1} {:.1} l5 8 h-10 z"/>"#, x, y + 3.0),
            MarkKind::Input => format!(
                r#"<rect x="{:.1}" y="{:.1}" width="8" height="8"/>"#,
                x - 4.0,
                y + 3.0
            ),
            MarkKind::Fault => format!(r#"<path d="M{:.1} {:.1} l4 -7 h-8 z"/>"#, x, y - 2.0),
            MarkKind::Clock => format!(
                r#"<path d="M{:.1} {:.1} l4 4 l-4 4 l-4 -4 z"/>"#,
                x,
                y - 4.0
            ),
            MarkKind::Restart => format!(
                r#"<rect x="{:.1}" y="{:.1}" width="3" height="16"/>"#,
                x - 1.5,
                y - 8.0
            ),
            MarkKind::Panic => format!(
                r#"<path d="M{:.1} {:.1} l10 10 m0 -10 l-10 10"/>"#,
                x - 5.0,
                y - 5.0
            ),
            MarkKind::Unarrived => {
                format!(r#"<path d="M{:.1} {:.1} l9 5 l-9 5 z"/>"#, x - 3.0, y - 5.0)
            }
        }
    }
}

/// A mark on a node's line.
struct Mark {
    node: NodeId,
    t_ns: u64,
    kind: MarkKind,
    marked: bool,
    title: String,
    label: Option<String>,
}

/// A message arrow: delivered (ends at the receiver) or dropped (ends in an ✕ half-way).
struct Arrow {
    from: NodeId,
    to: NodeId,
    sent_ns: u64,
    end_ns: u64,
    dropped: bool,
    marked: bool,
    title: String,
    label: String,
}

/// A shaded interval: on one node's line (crash, pause, critical section) or across the
/// diagram (partition, `node == None`).
struct Span {
    node: Option<NodeId>,
    from_ns: u64,
    to_ns: Option<u64>,
    class: &'static str,
    marked: bool,
    title: String,
    label: String,
}

/// What the HTML renderer draws, gathered from the events.
#[derive(Default)]
struct Drawing {
    marks: Vec<Mark>,
    arrows: Vec<Arrow>,
    spans: Vec<Span>,
}

impl Drawing {
    /// The marks, arrows and spans of `events`; `sends` names every send of the trace by
    /// message id (a delivery's send may be outside the view), `all_arrivals` the messages
    /// the trace delivers or drops (a send whose arrival is not among `events` is a mark).
    fn gather(
        events: &[&Event],
        sends: &BTreeMap<u64, &Event>,
        all_arrivals: &BTreeSet<u64>,
        marked: &BTreeSet<u64>,
        nodes: usize,
    ) -> Drawing {
        let mut d = Drawing::default();
        let drawn = arrivals(events.iter().copied());
        // Open intervals: (node, kind) -> span index; open critical sections by (node, resource).
        let mut open: BTreeMap<(NodeId, &'static str), usize> = BTreeMap::new();
        let mut open_cs: BTreeMap<(NodeId, u32), usize> = BTreeMap::new();
        let mut open_partitions: Vec<usize> = Vec::new();
        let columns = Columns {
            nodes: Some(nodes),
            ..Columns::default()
        };
        let title_of = |e: &Event| event_line_in(e, &columns).trim().to_string();
        for &e in events {
            let is_marked = marked.contains(&e.id);
            let mut mark = |kind: MarkKind, label: Option<String>| {
                if let Some(node) = e.node {
                    d.marks.push(Mark {
                        node,
                        t_ns: e.t_ns,
                        kind,
                        marked: is_marked,
                        title: title_of(e),
                        label,
                    });
                }
            };
            match &e.kind {
                EventKind::Send { msg_id, to, .. } if !drawn.contains(msg_id) => mark(
                    MarkKind::Unarrived,
                    Some(format!(
                        "→ n{to} {} ({})",
                        send_text(sends.get(msg_id), *msg_id),
                        if all_arrivals.contains(msg_id) {
                            "outside the view"
                        } else {
                            "in flight at the end"
                        }
                    )),
                ),
                EventKind::Start { incarnation: 0 } | EventKind::Send { .. } => {}
                EventKind::Start { incarnation } => {
                    mark(MarkKind::Restart, Some(format!("restart #{incarnation}")))
                }
                EventKind::Timer { timer, .. } => mark(MarkKind::Timer, Some(timer.clone())),
                EventKind::Input { input } => mark(MarkKind::Input, Some(input.clone())),
                EventKind::ClockAdjust { how, delta_ns } => mark(
                    MarkKind::Clock,
                    Some(format!("clock {}", clock_adjust_text(*how, *delta_ns))),
                ),
                EventKind::Panic { .. } => mark(MarkKind::Panic, Some("PANIC".into())),
                // at no node: the page's end and the verdict say it
                EventKind::Cut { .. } => {}
                EventKind::Observe { obs } => {
                    mark(MarkKind::Observe, Some(observation_text(obs)));
                    if let Some(node) = e.node {
                        match obs {
                            Observation::CsEnter { resource } => {
                                open_cs.insert((node, *resource), d.spans.len());
                                d.spans.push(Span {
                                    node: Some(node),
                                    from_ns: e.t_ns,
                                    to_ns: None,
                                    class: "cs",
                                    marked: is_marked,
                                    title: format!(
                                        "n{node} in the critical section of r{resource} from {:.3} ms",
                                        e.t_ns as f64 / 1e6
                                    ),
                                    label: String::new(),
                                });
                            }
                            Observation::CsExit { resource } => {
                                if let Some(i) = open_cs.remove(&(node, *resource)) {
                                    d.spans[i].to_ns = Some(e.t_ns);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                EventKind::Deliver {
                    msg_id, from, sent, ..
                } => {
                    let Some(to) = e.node else { continue };
                    let send = sends.get(msg_id);
                    let sent_ns = send.map_or(e.t_ns, |s| s.t_ns);
                    let text = send_text(send, *msg_id);
                    d.arrows.push(Arrow {
                        from: *from,
                        to,
                        sent_ns,
                        end_ns: e.t_ns,
                        dropped: false,
                        marked: is_marked || marked.contains(sent),
                        title: format!(
                            "#{msg_id} n{from} → n{to}: {text}; sent at {:.3} ms, delivered at {:.3} ms",
                            sent_ns as f64 / 1e6,
                            e.t_ns as f64 / 1e6
                        ),
                        label: text,
                    });
                }
                EventKind::Drop {
                    msg_id,
                    from,
                    to,
                    reason,
                } => {
                    let send = sends.get(msg_id);
                    let sent_ns = send.map_or(e.t_ns, |s| s.t_ns);
                    let text = send_text(send, *msg_id);
                    d.arrows.push(Arrow {
                        from: *from,
                        to: *to,
                        sent_ns,
                        end_ns: e.t_ns,
                        dropped: true,
                        marked: is_marked || send.is_some_and(|s| marked.contains(&s.id)),
                        title: format!(
                            "#{msg_id} n{from} → n{to}: {text}; sent at {:.3} ms, dropped at {:.3} ms ({})",
                            sent_ns as f64 / 1e6,
                            e.t_ns as f64 / 1e6,
                            drop_reason_text(*reason)
                        ),
                        label: format!("{text} ✕ {}", drop_reason_text(*reason)),
                    });
                }
                EventKind::Fault { fault } => {
                    let text = fault_text_among(fault, Some(nodes));
                    let mut open_span = |node: NodeId, class: &'static str, label: &str| {
                        open.entry((node, class)).or_insert_with(|| {
                            d.spans.push(Span {
                                node: Some(node),
                                from_ns: e.t_ns,
                                to_ns: None,
                                class,
                                marked: is_marked,
                                title: format!(
                                    "n{node} {label} from {:.3} ms",
                                    e.t_ns as f64 / 1e6
                                ),
                                label: label.to_string(),
                            });
                            d.spans.len() - 1
                        });
                    };
                    match fault {
                        Fault::Crash { node } => {
                            open_span(*node, "crashed", "crashed");
                            // A crashed process leaves its critical sections.
                            let gone: Vec<_> = open_cs
                                .range((*node, 0)..=(*node, u32::MAX))
                                .map(|(k, _)| *k)
                                .collect();
                            for k in gone {
                                if let Some(i) = open_cs.remove(&k) {
                                    d.spans[i].to_ns = Some(e.t_ns);
                                }
                            }
                        }
                        Fault::Pause { node } => open_span(*node, "paused", "paused"),
                        Fault::Restart { node } | Fault::Resume { node } => {
                            let class = if matches!(fault, Fault::Restart { .. }) {
                                "crashed"
                            } else {
                                "paused"
                            };
                            if let Some(i) = open.remove(&(*node, class)) {
                                d.spans[i].to_ns = Some(e.t_ns);
                                let _ =
                                    write!(d.spans[i].title, " to {:.3} ms", e.t_ns as f64 / 1e6);
                            }
                        }
                        Fault::Partition { .. } | Fault::PartitionOneway { .. } => {
                            open_partitions.push(d.spans.len());
                            d.spans.push(Span {
                                node: None,
                                from_ns: e.t_ns,
                                to_ns: None,
                                class: "partition",
                                marked: is_marked,
                                title: format!("{text} from {:.3} ms", e.t_ns as f64 / 1e6),
                                label: text.clone(),
                            });
                        }
                        Fault::Heal => {
                            for i in open_partitions.drain(..) {
                                d.spans[i].to_ns = Some(e.t_ns);
                                let _ = write!(
                                    d.spans[i].title,
                                    " to {:.3} ms (heal)",
                                    e.t_ns as f64 / 1e6
                                );
                            }
                        }
                        _ => {}
                    }
                    // Every fault also gets a mark where it happened (network-wide faults on
                    // the nodes they concern, or on the first line).
                    let on: Vec<NodeId> = match fault {
                        Fault::Partition { .. } | Fault::Heal => Vec::new(),
                        _ => {
                            let n = fault_nodes(fault);
                            if n.is_empty() {
                                vec![0]
                            } else {
                                n
                            }
                        }
                    };
                    let label = match fault {
                        Fault::ClockJump { .. }
                        | Fault::DriftChange { .. }
                        | Fault::SetLinks(_) => Some(shorten(&text, 40)),
                        _ => None,
                    };
                    for node in on {
                        d.marks.push(Mark {
                            node,
                            t_ns: e.t_ns,
                            kind: MarkKind::Fault,
                            marked: is_marked,
                            title: title_of(e),
                            label: label.clone(),
                        });
                    }
                }
            }
        }
        d
    }
}

/// Line height of stacked labels, px.
const LABEL_H: f64 = 14.0;
/// Most label levels above (and below) a node's line.
const LABEL_LEVELS: usize = 4;
/// Estimated width of one label character, px (12 px sans-serif).
const CHAR_W: f64 = 7.0;
/// Estimated width of one message label character, px (11 px sans-serif).
const MSG_CHAR_W: f64 = 6.4;

/// A label's box, to keep labels from overlapping.
#[derive(Clone, Copy, Debug)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    /// The box of `chars` characters of text starting at `x` on baseline `y`.
    fn text(x: f64, y: f64, chars: usize, char_w: f64) -> Rect {
        Rect {
            x0: x,
            y0: y - 11.0,
            x1: x + chars as f64 * char_w,
            y1: y + 3.0,
        }
    }

    /// True when the boxes overlap or come within 3 px of each other side by side.
    fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 + 3.0 && o.x0 < self.x1 + 3.0 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Places labels in levels so that they do not overlap: returns each label's level (`None`:
/// no room, tooltip only) and the number of levels used. `items` are `(x, characters,
/// first)` in the order of their x; those marked `first` (a violating event's) are placed
/// before the others, so they are never the ones left to their tooltips, on up to
/// [`LABEL_LEVELS`] levels; the others on up to `cap` (or as many as those took).
fn layout_labels(items: &[(f64, usize, bool)], cap: usize) -> (Vec<Option<usize>>, usize) {
    // Per level: the extents of the labels placed first, and the end of the last other one.
    let mut taken: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut ends: Vec<f64> = Vec::new();
    let mut levels = vec![None; items.len()];
    let free = |spans: &[(f64, f64)], x0: f64, x1: f64| {
        spans.iter().all(|&(a, b)| b + 6.0 <= x0 || x1 + 6.0 <= a)
    };
    for pass_first in [true, false] {
        let limit = if pass_first {
            LABEL_LEVELS
        } else {
            cap.clamp(1, LABEL_LEVELS).max(ends.len())
        };
        for (i, &(x, chars, first)) in items.iter().enumerate() {
            if first != pass_first {
                continue;
            }
            let end = x + chars as f64 * CHAR_W;
            let found = (0..ends.len())
                .find(|&l| free(&taken[l], x, end) && (pass_first || ends[l] + 6.0 <= x));
            let level = found.or_else(|| {
                (ends.len() < limit).then(|| {
                    taken.push(Vec::new());
                    ends.push(f64::NEG_INFINITY);
                    ends.len() - 1
                })
            });
            if let Some(l) = level {
                if pass_first {
                    taken[l].push((x, end));
                } else {
                    ends[l] = end;
                }
                levels[i] = Some(l);
            }
        }
    }
    (levels, ends.len())
}

const HTML_STYLE: &str = r#"
body { font: 14px/1.4 -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; color: #1a202c; margin: 20px 24px; background: #fff; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 14px 0 6px; }
.verdict { padding: 8px 12px; border-radius: 4px; margin: 8px 0; font-weight: 600; border-left: 6px solid; }
.verdict.violation, .verdict.panic, .verdict.limit { background: #fde8e8; border-color: #7f1d1d; color: #7f1d1d; }
.verdict.pass { background: #e6f6ea; border-color: #2f855a; color: #22543d; }
.verdict.none { background: #edf2f7; border-color: #a0aec0; color: #4a5568; font-weight: normal; }
.meta { color: #4a5568; margin: 4px 0 10px; }
.diagram { overflow-x: auto; border: 1px solid #e2e8f0; border-radius: 4px; }
.note { color: #9c4221; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 10px 0; color: #2d3748; font-size: 13px; }
.legend span { display: inline-flex; align-items: center; gap: 5px; }
pre { font-size: 12px; background: #f7fafc; padding: 8px; overflow-x: auto; }
pre .violating { color: #e00000; font-weight: bold; }
svg text { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; }
.axis line, .grid { stroke: #e2e8f0; }
.axis text { font-size: 11px; fill: #4a5568; }
.node-line { stroke: #2d3748; stroke-width: 1.5; }
.node-label { font-size: 14px; font-weight: bold; fill: #1a202c; }
.msg { stroke: #4a5568; stroke-width: 1.3; fill: none; }
.msg.drop { stroke: #a0aec0; stroke-dasharray: 5 3; }
.msg.early { stroke-dasharray: 2 3; }
.msg.violating { stroke: #e00000; stroke-width: 2.5; }
.send { fill: #4a5568; }
.send.violating { fill: #e00000; }
.x { stroke: #c05621; stroke-width: 2.2; fill: none; }
.msg-label { font-size: 11px; fill: #4a5568; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.msg-label.violating { fill: #c00000; font-weight: bold; }
.label { font-size: 12px; fill: #1a202c; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.label.violating { fill: #e00000; font-weight: bold; }
.mark.obs { fill: #2b6cb0; }
.mark.timer { fill: #dd6b20; }
.mark.input { fill: #6b46c1; }
.mark.fault { fill: #744210; }
.mark.clock { fill: #319795; }
.mark.restart { fill: #2f855a; }
.mark.panic { stroke: #e00000; stroke-width: 3; fill: none; }
.mark.unarrived { fill: #4a5568; }
.mark.violating { fill: #e00000; }
.ring { fill: none; stroke: #e00000; stroke-width: 2.5; }
.span.paused { fill: #ecc94b; fill-opacity: 0.35; stroke: #d69e2e; stroke-width: 1; }
.span.crashed { fill: url(#hatch); stroke: #718096; stroke-width: 1; }
.span.partition { fill: #90cdf4; fill-opacity: 0.25; stroke: #4299e1; stroke-dasharray: 4 3; }
.span.partition.violating { fill: #e00000; fill-opacity: 0.12; stroke: #e00000; stroke-width: 2; }
.span.partition.violating .span-label { fill: #c00000; font-weight: bold; }
.span.cs { fill: #48bb78; fill-opacity: 0.45; }
.span.cs.violating { fill: #e00000; fill-opacity: 0.55; }
.span.waiting { fill: #e00000; fill-opacity: 0.8; }
.span-label { font-size: 12px; fill: #744210; fill-opacity: 1; stroke: none; font-style: italic; }
.span-label.partition { fill: #2b6cb0; }
.break rect { fill: #f1f5f9; fill-opacity: 0.75; stroke: #a0aec0; stroke-dasharray: 2 3; }
.break-label { font-size: 11px; fill: #4a5568; }
.vline { stroke: #e00000; stroke-width: 1.5; stroke-dasharray: 6 4; }
.vlabel { font-size: 12px; fill: #e00000; font-weight: bold; }
"#;

/// A small legend sample: an inline SVG of `w` × 16 px.
fn legend_item(svg: &str, w: u32, text: &str) -> String {
    format!(
        r#"<span><svg width="{w}" height="16" viewBox="0 0 {w} 16">{svg}</svg>{}</span>"#,
        html_escape(text)
    )
}

/// The SVG `<defs>`: arrowheads and the hatch pattern of crashed intervals.
const SVG_DEFS: &str = r##"<defs>
<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#4a5568"/></marker>
<marker id="arrow-red" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#e00000"/></marker>
<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#edf2f7"/><line x1="0" y1="0" x2="0" y2="6" stroke="#718096" stroke-width="2"/></pattern>
</defs>
"##;

/// The trace as a self-contained HTML page (inline CSS and SVG; no script, font or network
/// reference) with a space-time diagram: one horizontal line per node, global time left to
/// right with tick labels in ms; each delivered message an arrow from (sender, send time) to
/// (receiver, delivery time); each dropped message an arrow ending in an ✕ half-way;
/// observations, timers, inputs, restarts, clock adjustments and faults as small marks with
/// `<title>` tooltips (and labels where they fit); crash→restart and pause→resume intervals
/// shaded on the node's line, partition→heal as a band across the diagram; critical
/// sections (`cs_enter`→`cs_exit`) as bars on the line. The events a violation points at are
/// drawn in red (class `violating`), with a red line at the violation's time and the verdict
/// at the top of the page. At most [`HTML_MAX_EVENTS`] events are drawn (a note says how many
/// were left out); an event list (the text timeline) closes the page.
pub fn html(trace: &Trace, verdict: Option<&Verdict>, title: &str) -> String {
    html_view(trace, &Selection::all(trace), verdict, title)
}

/// A drawn space-time diagram.
struct Diagram {
    /// The `<svg>` element.
    svg: String,
    /// Its width, px.
    width: f64,
    /// Messages drawn delivered and dropped.
    delivered: usize,
    dropped: usize,
}

/// Width of the first screen the HTML page is read on, px: a diagram wider than this is
/// preceded by a close-up of the violation and its causal past.
pub const FIRST_SCREEN_W: f64 = 1340.0;

/// Height of that first screen, px.
pub const FIRST_SCREEN_H: f64 = 900.0;

/// About how far down the page its first diagram starts, px: the title, the verdict, the
/// line of counts, the notes and the close-up's heading above it, each wrapped at the first
/// screen's width (estimated on the generous side: a diagram fitted below it fits).
fn header_px(title: &str, verdict: &str, notes: &[String], closeup: bool) -> f64 {
    let lines = |text: &str, char_px: f64| {
        (text.chars().count() as f64 * char_px / (FIRST_SCREEN_W - 40.0))
            .ceil()
            .max(1.0)
    };
    let title_px = lines(title, 12.0) * 28.0 + 8.0;
    let verdict_px = lines(verdict, 8.6) * 19.6 + 16.0 + 16.0;
    let counts_px = 2.0 * 19.6 + 14.0;
    let notes_px: f64 = notes.iter().map(|n| lines(n, 8.0) * 19.6 + 14.0).sum();
    let closeup_px = if closeup { 42.0 } else { 0.0 };
    20.0 + title_px + verdict_px + counts_px + notes_px + closeup_px + 2.0
}

/// Most events per node line in the close-up that opens a wide page: drawn 14 px apart,
/// they fit the first screen.
const CLOSEUP_PER_NODE: usize = 70;

/// Smallest width of the plotted time axis, px.
const MIN_PLOT_W: f64 = 1000.0;

/// Width of an idle gap drawn as a break, px.
const BREAK_W: f64 = 44.0;

/// A stretch of the time axis: drawn to scale, or an idle gap drawn as a short break.
#[derive(Clone, Copy, Debug)]
struct Segment {
    t0: u64,
    t1: u64,
    x0: f64,
    x1: f64,
    idle: bool,
}

/// The time axis: global time to x, piecewise linear, idle gaps compressed.
#[derive(Debug)]
struct TimeAxis {
    segments: Vec<Segment>,
    /// End of the axis, ns.
    t_end: u64,
    /// Total time drawn to scale, ns, and its width, px.
    active_ns: u64,
    active_px: f64,
}

impl TimeAxis {
    /// An axis from `t0` over the instants `times` (ascending, all at or after `t0`) on
    /// `plot_w` px starting at `left`. A gap between two instants longer than a twentieth
    /// of the whole and ten times the median gap is idle: it is drawn [`BREAK_W`] px wide.
    fn new(times: &[u64], t0: u64, plot_w: f64, left: f64) -> TimeAxis {
        let t_max = times.last().copied().unwrap_or(t0).max(t0);
        let span = (t_max - t0).max(1_000_000);
        let mut gaps: Vec<u64> = times
            .windows(2)
            .map(|w| w[1] - w[0])
            .filter(|&g| g > 0)
            .collect();
        gaps.sort_unstable();
        let median = gaps.get(gaps.len() / 2).copied().unwrap_or(0);
        let threshold = (span / 20).max(median.saturating_mul(10)).max(1_000_000);
        let gaps: Vec<(u64, u64)> = times
            .windows(2)
            .filter(|w| w[1] - w[0] > threshold)
            .map(|w| (w[0], w[1]))
            .collect();
        // About 12 px of room on each side of a break, at the scale of the time kept.
        let kept_ns = span - gaps.iter().map(|(a, b)| b - a).sum::<u64>();
        let keep = ((kept_ns as f64 / plot_w * 12.0) as u64).max(1);
        let mut idle: Vec<(u64, u64)> = gaps
            .into_iter()
            .filter(|(a, b)| b - a > 4 * keep)
            .map(|(a, b)| (a + keep, b - keep))
            .collect();
        let break_w = if idle.len() as f64 * BREAK_W > plot_w / 3.0 {
            plot_w / 3.0 / idle.len() as f64
        } else {
            BREAK_W
        };
        let idle_ns: u64 = idle.iter().map(|(a, b)| b - a).sum();
        // A little room after the last instant (a thirtieth of the time drawn to scale).
        let t_end = t_max + ((t_max - t0 - idle_ns) / 30).max(1);
        let active_ns = (t_end - t0 - idle_ns).max(1);
        let active_px = plot_w - idle.len() as f64 * break_w;
        let px_per_ns = active_px / active_ns as f64;
        let mut segments = Vec::new();
        let (mut t, mut x) = (t0, left);
        idle.push((t_end, t_end));
        for (a, b) in idle {
            let x1 = x + (a - t) as f64 * px_per_ns;
            segments.push(Segment {
                t0: t,
                t1: a,
                x0: x,
                x1,
                idle: false,
            });
            if b > a {
                segments.push(Segment {
                    t0: a,
                    t1: b,
                    x0: x1,
                    x1: x1 + break_w,
                    idle: true,
                });
                x = x1 + break_w;
            } else {
                x = x1;
            }
            t = b;
        }
        TimeAxis {
            segments,
            t_end,
            active_ns,
            active_px,
        }
    }

    /// The x of global time `t` (clamped to the axis).
    fn x(&self, t: u64) -> f64 {
        let first = self.segments[0];
        let t = t.clamp(first.t0, self.t_end);
        let i = self
            .segments
            .partition_point(|s| s.t1 < t)
            .min(self.segments.len() - 1);
        let s = self.segments[i];
        if s.t1 <= s.t0 {
            s.x0
        } else {
            s.x0 + (t - s.t0) as f64 / (s.t1 - s.t0) as f64 * (s.x1 - s.x0)
        }
    }
}

/// Draws the space-time diagram of `shown` (events of `trace`), its time axis starting at
/// `from_ns`; with `height_px`, its labels take fewer levels where that keeps the violating
/// events' lines within that height.
fn diagram(
    trace: &Trace,
    shown: &[&Event],
    verdict: Option<&Verdict>,
    from_ns: u64,
    height_px: Option<f64>,
) -> Diagram {
    let marked = marked_ids(trace, verdict);
    let nodes = lanes(shown, trace.nodes);
    let sends = message_texts(trace.events());
    let mut d = Drawing::gather(
        shown,
        &sends,
        &arrivals(trace.events()),
        &marked,
        trace.nodes,
    );
    // A liveness violation: the request waited from its event to the deadline.
    if let Some(Verdict::Violation(v)) = verdict {
        if v.class == crate::check::PropertyClass::Liveness {
            for e in shown.iter().filter(|e| marked.contains(&e.id)) {
                if let Some(node) = e.node {
                    d.spans.push(Span {
                        node: Some(node),
                        from_ns: e.t_ns,
                        to_ns: Some(v.t_ns.max(e.t_ns)),
                        class: "waiting",
                        marked: true,
                        title: format!(
                            "n{node} waiting from {:.3} ms past its deadline at {:.3} ms",
                            e.t_ns as f64 / 1e6,
                            v.t_ns as f64 / 1e6
                        ),
                        label: String::new(),
                    });
                }
            }
        }
    }

    // Time axis.
    let violation_t = match verdict {
        Some(Verdict::Violation(v)) if v.t_ns >= from_ns => Some(v.t_ns),
        _ => None,
    };
    let mut times: Vec<u64> = shown
        .iter()
        .map(|e| e.t_ns)
        .chain(violation_t)
        .chain(d.arrows.iter().map(|a| a.sent_ns))
        .chain(
            d.spans
                .iter()
                .flat_map(|s| [Some(s.from_ns), s.to_ns])
                .flatten(),
        )
        .chain([from_ns])
        .map(|t| t.max(from_ns))
        .collect();
    times.sort_unstable();
    times.dedup();
    // Wider for busy traces (the page scrolls), with a tick every 80 px or more.
    let mut per_node = vec![0usize; nodes];
    for e in shown {
        if let Some(n) = e.node.filter(|&n| n < nodes) {
            per_node[n] += 1;
        }
    }
    let busiest = per_node.iter().copied().max().unwrap_or(0);
    let plot_w = (busiest as f64 * 14.0).clamp(MIN_PLOT_W, 24000.0);
    let left = 60.0;
    let axis = TimeAxis::new(&times, from_ns, plot_w, left);
    let step = tick_step_ns(axis.active_ns, ((axis.active_px / 80.0) as u64).max(1));
    let t_end = axis.t_end;
    let x = |t: u64| axis.x(t);

    // Labels: per node, above and below the line, in levels. Marks' labels go above the line
    // (timers and inputs below it), the labels of shaded intervals below it.
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Owner {
        Mark(usize),
        Span(usize),
    }
    // (label x, owner, characters, a violating event's) by (node, below the line).
    type Slots = BTreeMap<(NodeId, bool), Vec<(f64, Owner, usize, bool)>>;
    let mut slots = Slots::new();
    for (i, m) in d.marks.iter().enumerate() {
        if let Some(l) = &m.label {
            slots.entry((m.node, m.kind.below())).or_default().push((
                x(m.t_ns) + 5.0,
                Owner::Mark(i),
                shorten(l, 40).chars().count(),
                m.marked,
            ));
        }
    }
    for (i, s) in d.spans.iter().enumerate() {
        if let (Some(node), false) = (s.node, s.label.is_empty()) {
            slots.entry((node, true)).or_default().push((
                x(s.from_ns) + 3.0,
                Owner::Span(i),
                s.label.chars().count(),
                s.marked,
            ));
        }
    }
    for items in slots.values_mut() {
        items.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    }
    // The labels laid out with at most `cap` levels a side (a violating event's always
    // placed): each mark's (below, level), each span's level, the levels used per node.
    let lay_out = |cap: usize| {
        let mut mark_label: Vec<Option<(bool, usize)>> = vec![None; d.marks.len()];
        let mut span_label: Vec<Option<usize>> = vec![None; d.spans.len()];
        let mut levels_above = vec![0usize; nodes];
        let mut levels_below = vec![0usize; nodes];
        for ((node, below), items) in &slots {
            let xs: Vec<(f64, usize, bool)> = items
                .iter()
                .map(|&(x, _, c, first)| (x, c, first))
                .collect();
            let (levels, used) = layout_labels(&xs, cap);
            if *node < nodes {
                if *below {
                    levels_below[*node] = used;
                } else {
                    levels_above[*node] = used;
                }
            }
            for (&(_, owner, _, _), l) in items.iter().zip(levels) {
                match owner {
                    Owner::Mark(i) => mark_label[i] = l.map(|l| (*below, l)),
                    Owner::Span(i) => span_label[i] = l,
                }
            }
        }
        (mark_label, span_label, levels_above, levels_below)
    };
    // Baseline of a label at `level` above or below a line at `line_y`.
    let label_y = |line_y: f64, below: bool, level: usize| {
        if below {
            line_y + 24.0 + level as f64 * LABEL_H
        } else {
            line_y - 10.0 - level as f64 * LABEL_H
        }
    };

    // Partition labels, across the top of the diagram: in levels too (stop 66: nine of them
    // within 70 ms were drawn on one line, over each other).
    let mut partition_label: Vec<Option<usize>> = vec![None; d.spans.len()];
    let partition_levels = {
        let mut items: Vec<(f64, usize, usize)> = d
            .spans
            .iter()
            .enumerate()
            .filter(|(_, s)| s.node.is_none())
            .map(|(i, s)| (x(s.from_ns) + 4.0, i, shorten(&s.label, 50).chars().count()))
            .collect();
        items.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let xs: Vec<(f64, usize, bool)> = items
            .iter()
            .map(|&(x, i, c)| (x, c, d.spans[i].marked))
            .collect();
        let (levels, used) = layout_labels(&xs, LABEL_LEVELS);
        for (&(_, i, _), l) in items.iter().zip(levels) {
            partition_label[i] = l;
        }
        used
    };

    // Rows: as many label levels as the labels take, fewer when that puts the violating
    // events' lowest line below `height_px` (the first screen; their labels keep their place).
    let axis_h = 44.0;
    let lowest_violating = d
        .marks
        .iter()
        .filter(|m| m.marked && m.node < nodes)
        .map(|m| m.node)
        .max();
    let rows = |above: &[usize], below: &[usize]| {
        let mut row_y = Vec::with_capacity(nodes);
        let mut cursor = axis_h + 10.0 + partition_levels.saturating_sub(1) as f64 * LABEL_H;
        for n in 0..nodes {
            cursor += 44.0 + above[n] as f64 * LABEL_H;
            row_y.push(cursor);
            cursor += 34.0 + below[n] as f64 * LABEL_H;
        }
        (row_y, cursor)
    };
    let mut cap = LABEL_LEVELS;
    let (mark_label, span_label, row_y, cursor) = loop {
        let (marks, spans, above, below) = lay_out(cap);
        let (row_y, cursor) = rows(&above, &below);
        let fits = match (height_px, lowest_violating) {
            (Some(h), Some(n)) => row_y[n] + 20.0 <= h,
            _ => true,
        };
        if fits || cap == 1 {
            break (marks, spans, row_y, cursor);
        }
        cap -= 1;
    };
    let height = cursor + 20.0;
    let width = left + plot_w + 220.0;
    let y = |n: NodeId| row_y.get(n).copied().unwrap_or(cursor);
    let (top, bottom) = (axis_h, height - 10.0);

    // Where labels already are (message labels are placed around them).
    let mut placed: Vec<Rect> = Vec::new();
    for (m, pos) in d.marks.iter().zip(&mark_label) {
        if let (Some(label), Some((below, level))) = (&m.label, pos) {
            placed.push(Rect::text(
                x(m.t_ns) + 5.0,
                label_y(y(m.node), *below, *level),
                shorten(label, 40).chars().count(),
                CHAR_W,
            ));
        }
    }
    for (s, pos) in d.spans.iter().zip(&span_label) {
        if let (Some(node), Some(level)) = (s.node, pos) {
            placed.push(Rect::text(
                x(s.from_ns) + 3.0,
                label_y(y(node), true, *level),
                s.label.chars().count(),
                CHAR_W,
            ));
        }
    }

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="space-time diagram">"#
    );
    svg.push_str(SVG_DEFS);

    // Partitions: bands across the whole diagram, behind everything; a label with no room
    // left has its tooltip only.
    for (s, level) in d.spans.iter().zip(&partition_label) {
        if s.node.is_some() {
            continue;
        }
        let (x0, x1) = (x(s.from_ns), x(s.to_ns.unwrap_or(t_end)));
        let label = level.map_or(String::new(), |l| {
            format!(
                r#"<text class="span-label partition" x="{:.1}" y="{:.1}">{}</text>"#,
                x0 + 4.0,
                top + 12.0 + l as f64 * LABEL_H,
                html_escape(&shorten(&s.label, 50))
            )
        });
        let _ = writeln!(
            svg,
            r#"<g class="span partition{}"><title>{}</title><rect x="{x0:.1}" y="{top:.1}" width="{:.1}" height="{:.1}"/>{label}</g>"#,
            if s.marked { " violating" } else { "" },
            html_escape(&s.title),
            (x1 - x0).max(1.0),
            bottom - top,
        );
    }

    // Idle gaps: a short grey break with the time it skips.
    for s in axis.segments.iter().filter(|s| s.idle) {
        let _ = writeln!(
            svg,
            r#"<g class="break"><title>no event drawn for {:.3} ms ({:.3} – {:.3} ms): a break, not to scale</title><rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{:.1}"/><text class="break-label" transform="translate({:.1} {:.1}) rotate(-90)">{}</text></g>"#,
            (s.t1 - s.t0) as f64 / 1e6,
            s.t0 as f64 / 1e6,
            s.t1 as f64 / 1e6,
            s.x0,
            s.x1 - s.x0,
            bottom - top,
            (s.x0 + s.x1) / 2.0 + 4.0,
            bottom - 6.0,
            html_escape(&format!("… {} …", tick_label(s.t1 - s.t0, 1_000_000)))
        );
    }
    // Axis: ticks, labels and grid lines (none inside a break); the violation's time is
    // labelled on it too, in place of the ticks next to it (stop 66: a close-up of short
    // stretches between breaks had no tick after 150 ms, its violation at 486 ms unlabelled).
    svg.push_str("<g class=\"axis\">\n");
    let violation_x = violation_t.map(|t| (x(t), t));
    let mut last_tick_x = f64::NEG_INFINITY;
    for s in axis.segments.iter().filter(|s| !s.idle) {
        let mut t = s.t0.div_ceil(step) * step;
        while t <= s.t1 {
            let tx = x(t);
            let room = axis
                .segments
                .iter()
                .filter(|b| b.idle)
                .all(|b| tx < b.x0 - 24.0 || tx > b.x1 + 24.0);
            let clear = violation_x.is_none_or(|(vx, _)| (tx - vx).abs() >= 70.0);
            if tx - last_tick_x >= 60.0 && room && clear {
                last_tick_x = tx;
                let _ = writeln!(
                    svg,
                    r#"<line class="grid" x1="{tx:.1}" y1="{:.1}" x2="{tx:.1}" y2="{bottom:.1}"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                    top - 6.0,
                    top - 12.0,
                    tick_label(t, step)
                );
            }
            t += step;
        }
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="14" text-anchor="end">global time →</text>"#,
        left + plot_w
    );
    svg.push_str("</g>\n");
    if let Some((vx, t)) = violation_x {
        let _ = writeln!(
            svg,
            r#"<text class="vlabel" x="{vx:.1}" y="{:.1}" text-anchor="middle">{:.3} ms</text>"#,
            top - 12.0,
            t as f64 / 1e6
        );
    }

    // Node lines and their shaded intervals.
    for n in 0..nodes {
        let ny = y(n);
        let _ = writeln!(
            svg,
            r#"<line class="node-line" x1="{left:.1}" y1="{ny:.1}" x2="{:.1}" y2="{ny:.1}"/><text class="node-label" x="{:.1}" y="{:.1}" text-anchor="end">n{n}</text>"#,
            left + plot_w,
            left - 12.0,
            ny + 5.0
        );
    }
    // Crashes and pauses first, critical sections over them.
    let spans_in_order = d
        .spans
        .iter()
        .zip(&span_label)
        .filter(|(s, _)| s.class != "cs")
        .chain(
            d.spans
                .iter()
                .zip(&span_label)
                .filter(|(s, _)| s.class == "cs"),
        );
    for (s, pos) in spans_in_order {
        let Some(n) = s.node else { continue };
        let (x0, x1) = (x(s.from_ns), x(s.to_ns.unwrap_or(t_end)));
        let h = match s.class {
            "cs" => 7.0,
            "waiting" => 3.0,
            _ => 20.0,
        };
        let _ = write!(
            svg,
            r#"<g class="span {}{}"><title>{}</title><rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{h:.1}"/>"#,
            s.class,
            if s.marked { " violating" } else { "" },
            html_escape(&s.title),
            y(n) - h / 2.0,
            (x1 - x0).max(2.0),
        );
        if let Some(level) = pos {
            let _ = write!(
                svg,
                r#"<text class="span-label" x="{:.1}" y="{:.1}">{}</text>"#,
                x0 + 3.0,
                label_y(y(n), true, *level),
                html_escape(&s.label)
            );
        }
        svg.push_str("</g>\n");
    }

    // Messages.
    let label_messages = d.arrows.len() <= 150;
    for a in &d.arrows {
        let (x0, y0) = (x(a.sent_ns), y(a.from));
        let (x1, y1) = if a.dropped {
            // The ✕ goes most of the way towards the receiver, off any other node's line.
            let mut end = if a.from == a.to {
                y0 - 18.0
            } else {
                y0 + (y(a.to) - y0) * 0.7
            };
            if row_y.iter().any(|&ry| (ry - end).abs() < 12.0) {
                end += if y(a.to) > y0 { -14.0 } else { 14.0 };
            }
            (x(a.end_ns).max(x0 + 6.0), end)
        } else {
            (x(a.end_ns), y(a.to))
        };
        let v = if a.marked { " violating" } else { "" };
        // Sent before the window: the line comes in from its left edge, dashed, with no
        // send dot (a dot on the edge drew a send at a time nothing was sent).
        let early = a.sent_ns < from_ns;
        let _ = write!(
            svg,
            r#"<g><title>{}</title><line class="msg{}{}{v}" x1="{x0:.1}" y1="{y0:.1}" x2="{x1:.1}" y2="{y1:.1}"{}/>{}"#,
            html_escape(&a.title),
            if a.dropped { " drop" } else { "" },
            if early { " early" } else { "" },
            if a.dropped {
                ""
            } else if a.marked {
                r#" marker-end="url(#arrow-red)""#
            } else {
                r#" marker-end="url(#arrow)""#
            },
            if early {
                String::new()
            } else {
                format!(r#"<circle class="send{v}" cx="{x0:.1}" cy="{y0:.1}" r="2.5"/>"#)
            },
        );
        if a.dropped {
            let _ = write!(
                svg,
                r#"<path class="x" d="M{:.1} {:.1} l10 10 m0 -10 l-10 10"/>"#,
                x1 - 5.0,
                y1 - 5.0
            );
        }
        if label_messages {
            let text = shorten(&a.label, 32);
            let chars = text.chars().count();
            // Along the arrow, right of it first, then left of it; never over another label.
            let spot = [0.5, 0.35, 0.65, 0.2, 0.8].iter().find_map(|&f| {
                let (px, py) = (x0 + (x1 - x0) * f, y0 + (y1 - y0) * f + 4.0);
                [(px + 5.0, "start"), (px - 5.0, "end")]
                    .into_iter()
                    .map(|(lx, anchor)| {
                        let from = if anchor == "end" {
                            lx - chars as f64 * MSG_CHAR_W
                        } else {
                            lx
                        };
                        (lx, py, anchor, Rect::text(from, py, chars, MSG_CHAR_W))
                    })
                    .find(|(_, _, _, r)| {
                        r.x0 >= left && r.y0 >= top && !placed.iter().any(|p| p.overlaps(r))
                    })
            });
            if let Some((lx, ly, anchor, rect)) = spot {
                placed.push(rect);
                let _ = write!(
                    svg,
                    r#"<text class="msg-label{v}" x="{lx:.1}" y="{ly:.1}" text-anchor="{anchor}">{}</text>"#,
                    html_escape(&text)
                );
            }
        }
        svg.push_str("</g>\n");
    }

    // Marks and their labels.
    for (m, pos) in d.marks.iter().zip(&mark_label) {
        let (mx, my) = (x(m.t_ns), y(m.node));
        let v = if m.marked { " violating" } else { "" };
        let _ = write!(
            svg,
            r#"<g class="mark {}{v}"><title>{}</title>{}"#,
            m.kind.class(),
            html_escape(&m.title),
            m.kind.shape(mx, my)
        );
        if m.marked {
            let _ = write!(
                svg,
                r#"<circle class="ring" cx="{mx:.1}" cy="{my:.1}" r="9"/>"#
            );
        }
        if let (Some(label), Some((below, level))) = (&m.label, pos) {
            let ly = label_y(my, *below, *level);
            let _ = write!(
                svg,
                r#"<text class="label{v}" x="{:.1}" y="{ly:.1}">{}</text>"#,
                mx + 5.0,
                html_escape(&shorten(label, 40))
            );
        }
        svg.push_str("</g>\n");
    }

    // The violation's instant; none when the window starts after it (it was drawn at the
    // window's start, a time it did not happen at: the notes say it is not shown).
    if let Some(v) = verdict.and_then(|v| match v {
        Verdict::Violation(v) if v.t_ns >= from_ns => Some(v),
        _ => None,
    }) {
        let vx = x(v.t_ns);
        let _ = writeln!(
            svg,
            r#"<g><title>{}</title><line class="vline" x1="{vx:.1}" y1="{top:.1}" x2="{vx:.1}" y2="{bottom:.1}"/><text class="vlabel" x="{:.1}" y="{:.1}">⚠ {}</text></g>"#,
            html_escape(&v.to_string()),
            vx + 4.0,
            bottom - 4.0,
            html_escape(&v.property)
        );
    }
    svg.push_str("</svg>\n");
    Diagram {
        svg,
        width,
        delivered: d.arrows.iter().filter(|a| !a.dropped).count(),
        dropped: d.arrows.iter().filter(|a| a.dropped).count(),
    }
}

/// The events `sel` selects of `trace` as an HTML page ([`html`]): the notes of the
/// selection under the verdict; idle gaps drawn as breaks; the time axis from the window's
/// start. When the diagram is wider than [`FIRST_SCREEN_W`], a close-up of the violation and
/// its causal past comes first. The cap keeps the violating events and their causal past
/// first ([`view::cut`]).
pub fn html_view(trace: &Trace, sel: &Selection, verdict: Option<&Verdict>, title: &str) -> String {
    let sel = &sel.drawable(trace);
    let marked = marked_ids(trace, verdict);
    let total = trace.len();
    let kept = view::cut(trace, verdict, &sel.shown, HTML_MAX_EVENTS);
    let prefix = sel.shown.starts_with(&kept);
    let shown: Vec<&Event> = kept.iter().filter_map(|&i| trace.events().get(i)).collect();
    let nodes = node_count(&shown, trace.nodes);

    // The page.
    let (vclass, vtext) = match verdict {
        None => (
            "none",
            "No verdict: this trace was rendered without being judged.".to_string(),
        ),
        Some(v @ Verdict::Pass) => ("pass", format!("✔ {v}")),
        Some(v @ Verdict::Violation(_)) => ("violation", format!("⚠ {v}")),
        Some(v @ Verdict::Panic { .. }) => ("panic", format!("⚠ {v}")),
        Some(v @ Verdict::LimitExceeded { .. }) => ("limit", format!("⚠ {v}")),
        Some(v @ Verdict::Unjudged { .. }) => ("limit", format!("⚠ {v}")),
    };
    // The first diagram keeps its violating events on the first screen, below what the page
    // says above it.
    let notes: Vec<String> = lanes_note(lanes(&shown, nodes), nodes)
        .into_iter()
        .chain(sel.notes.iter().cloned())
        .collect();
    let first_screen =
        |closeup: bool| FIRST_SCREEN_H - header_px(title, &vtext, &notes, closeup) - 10.0;
    let mut main = diagram(
        trace,
        &shown,
        verdict,
        sel.from_ns,
        Some(first_screen(false)),
    );
    // A wide diagram puts the violation off the first screen: its causal view first.
    let closeup = if main.width > FIRST_SCREEN_W {
        // Of the selection only: a close-up of events a filter (`--node`, a time window,
        // `--only`) left out would show what the page says is not shown.
        let selected: BTreeSet<usize> = sel.shown.iter().copied().collect();
        let mut close = view::closeup(trace, verdict, CLOSEUP_PER_NODE);
        close.retain(|i| selected.contains(i));
        // ... and only with the violation in it: it is what the close-up is of.
        Some(close)
            .filter(|c| {
                !c.is_empty()
                    && c.len() < shown.len()
                    && (marked.is_empty()
                        || c.iter().any(|&i| marked.contains(&trace.events()[i].id)))
            })
            .map(|c| {
                let events: Vec<&Event> = c.iter().map(|&i| &trace.events()[i]).collect();
                let first = Some(first_screen(true));
                (
                    c.len(),
                    diagram(trace, &events, verdict, sel.from_ns, first),
                )
            })
    } else {
        None
    };
    if closeup.is_some() {
        main = diagram(trace, &shown, verdict, sel.from_ns, None);
    }
    let start_ms = sel.from_ns as f64 / 1e6;
    // An empty window: its own end, or its start (it said `100.000 – 0.000 ms`).
    let end_ms = shown.last().map_or_else(
        || sel.to_ns.unwrap_or(sel.from_ns) as f64 / 1e6,
        |e| e.t_ns as f64 / 1e6,
    );
    // The trace's counts, and the view's when it shows part of it: the line gave the view's
    // message counts beside the trace's event count, unlabelled (18 delivered where the run
    // delivered 194).
    let (delivered, dropped) = trace
        .events()
        .iter()
        .fold((0, 0), |(d, x), e| match e.kind {
            EventKind::Deliver { .. } => (d + 1, x),
            EventKind::Drop { .. } => (d, x + 1),
            _ => (d, x),
        });
    let counts = if shown.len() < total {
        format!(
            "{total} events ({} shown) · {delivered} messages delivered, {dropped} dropped \
             ({} and {} in this view)",
            shown.len(),
            main.delivered,
            main.dropped
        )
    } else {
        format!("{total} events · {delivered} messages delivered, {dropped} dropped")
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{HTML_STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n<div class=\"verdict {vclass}\">{}</div>\n<p class=\"meta\">{nodes} nodes · {counts} · global time {start_ms:.3} – {end_ms:.3} ms{}</p>\n",
        html_escape(title),
        html_escape(title),
        html_escape(&vtext),
        match (verdict, trace.events().last()) {
            (Some(Verdict::Violation(v)), Some(last))
                if shown.last() == Some(&last) && v.events.contains(&last.id) =>
            {
                " (the run stopped at the violation)"
            }
            _ => "",
        },
    );
    for note in &notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", html_escape(note));
    }
    if let Some((n, close)) = &closeup {
        let _ = writeln!(
            out,
            "<h2>Close-up: the violation and the end of its causal past ({n} events)</h2>\n<div class=\"diagram\">\n{}</div>\n<h2>The run ({} events drawn)</h2>",
            close.svg,
            shown.len()
        );
    }
    out.push_str("<div class=\"diagram\">\n");
    out.push_str(&main.svg);
    out.push_str("</div>\n");
    if shown.len() < sel.shown.len() {
        let which = if prefix {
            format!(
                "Only the first {} of {} events are drawn",
                shown.len(),
                sel.shown.len()
            )
        } else if sel.shown.ends_with(&kept) {
            format!(
                "Only the last {} of {} events are drawn, {}",
                shown.len(),
                sel.shown.len(),
                tail_reason(verdict)
            )
        } else {
            format!(
                "{} of {} events are drawn, the violating events and their causal past first",
                shown.len(),
                sel.shown.len()
            )
        };
        // The page's counts line gives the trace's total: say what the two differ by (8,442
        // events beside "5000 of 8439", stop 73's probe).
        let other = total.saturating_sub(sel.shown.len());
        let others = match other {
            0 => String::new(),
            1 => "; the trace's 1 other event is not in this view (a node's first start \
                  draws nothing)"
                .to_string(),
            n => format!(
                "; the trace's {n} other events are not in this view (a node's first start \
                 draws nothing)"
            ),
        };
        let _ = writeln!(
            out,
            "<p class=\"note\">{which} ({} left out{others}).</p>",
            sel.shown.len() - shown.len()
        );
    }
    let legend = [
        legend_item(
            r##"<line x1="2" y1="8" x2="30" y2="8" stroke="#4a5568" stroke-width="1.3" marker-end="url(#arrow)"/>"##,
            34,
            "message (send → delivery)",
        ),
        legend_item(
            r##"<line x1="2" y1="8" x2="22" y2="8" stroke="#a0aec0" stroke-width="1.3" stroke-dasharray="5 3"/><path d="M21 3 l10 10 m0 -10 l-10 10" stroke="#c05621" stroke-width="2.2"/>"##,
            34,
            "dropped message",
        ),
        legend_item(
            r##"<path d="M5 3 l9 5 l-9 5 z" fill="#4a5568"/>"##,
            16,
            "send arriving outside the view, or never",
        ),
        legend_item(
            r##"<circle cx="8" cy="8" r="4.5" fill="#2b6cb0"/>"##,
            16,
            "observation",
        ),
        legend_item(
            r##"<path d="M8 3 l5 8 h-10 z" fill="#dd6b20"/>"##,
            16,
            "timer",
        ),
        legend_item(
            r##"<rect x="4" y="4" width="8" height="8" fill="#6b46c1"/>"##,
            16,
            "input",
        ),
        legend_item(
            r##"<path d="M8 12 l4 -7 h-8 z" fill="#744210"/>"##,
            16,
            "fault",
        ),
        legend_item(
            r##"<rect x="1" y="4" width="26" height="8" fill="#48bb78" fill-opacity="0.45"/>"##,
            28,
            "in critical section",
        ),
        legend_item(
            r##"<rect x="1" y="1" width="26" height="14" fill="#ecc94b" fill-opacity="0.35" stroke="#d69e2e"/>"##,
            28,
            "paused",
        ),
        legend_item(
            r##"<rect x="1" y="1" width="26" height="14" fill="url(#hatch)" stroke="#718096"/>"##,
            28,
            "crashed",
        ),
        legend_item(
            r##"<rect x="1" y="1" width="26" height="14" fill="#90cdf4" fill-opacity="0.25" stroke="#4299e1" stroke-dasharray="4 3"/>"##,
            28,
            "partitioned",
        ),
        legend_item(
            r##"<circle cx="8" cy="8" r="4" fill="#e00000"/><circle cx="8" cy="8" r="7" fill="none" stroke="#e00000" stroke-width="2"/>"##,
            16,
            "violating event",
        ),
        legend_item(
            r##"<line x1="1" y1="8" x2="27" y2="8" stroke="#e00000" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
            28,
            "time of the violation",
        ),
    ];
    let _ = writeln!(out, "<div class=\"legend\">{}</div>", legend.join(""));
    out.push_str("<details>\n<summary>Event list (text timeline)</summary>\n<pre>");
    let columns = Columns::fitting(shown.iter().copied(), trace.nodes);
    for e in shown {
        let line = html_escape(&event_line_in(e, &columns));
        if marked.contains(&e.id) {
            let _ = writeln!(out, "<span class=\"violating\">&gt;&gt;{line}</span>");
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
    out.push_str("</pre>\n</details>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No line of a timeline shifts: a time of 10^8 ms or more, a local clock past 10^7 ms
    /// and node n1000 widen their columns for every line (stop 64: their lines' text began
    /// further right than the others').
    #[test]
    fn the_text_columns_fit_the_longest_time_clock_and_node() {
        let ev = |id: u64, t_ns: u64, node: NodeId, local_ns: i64| Event {
            id,
            t_ns,
            node: Some(node),
            local_ns: Some(local_ns),
            kind: EventKind::Start { incarnation: 0 },
        };
        let trace = Trace::new(
            1001,
            vec![
                ev(0, 1_000_000, 0, 1_000_000),
                ev(1, 150_000_000_000_000, 1000, -12_345_678_000_000),
            ],
        );
        let s = text(&trace, None);
        let starts: Vec<usize> = s
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.find("start").unwrap())
            .collect();
        assert_eq!(starts.len(), 2, "{s}");
        assert_eq!(starts[0], starts[1], "{s}");
        assert!(s.contains("150000000.000 ms  n1000 @-12345678.000"), "{s}");
        // Below the limits the default widths hold: the lines are as before.
        let small = Trace::new(2, vec![ev(0, 1_000_000, 1, 1_000_000)]);
        let c = Columns::of(&small);
        assert_eq!(
            event_line_in(&small.events()[0], &c),
            event_line(&small.events()[0])
        );
    }

    /// A diagram of many nodes draws the lanes its events name, and says so; a small run
    /// keeps a lane for every node, idle ones included.
    #[test]
    fn a_diagram_of_many_nodes_draws_the_lanes_its_events_name() {
        // (a node's first start draws nothing, and names no lane: a note does)
        let start = |id: u64, node: NodeId| Event {
            id,
            t_ns: 0,
            node: Some(node),
            local_ns: Some(0),
            kind: EventKind::Observe {
                obs: Observation::Note { text: "up".into() },
            },
        };
        let trace = Trace::new(10_000, vec![start(0, 0), start(1, 1), start(2, 2)]);
        let m = mermaid(&trace, None);
        assert_eq!(m.matches("participant ").count(), 3, "{m}");
        assert!(m.contains("%% sincro trace: 10000 nodes"), "{m}");
        let note = "n3–n9999 are not drawn: no event shown names them";
        assert!(m.contains(note), "{m}");
        let h = html(&trace, None, "t");
        assert!(h.contains(note));
        assert!(h.contains("10000 nodes ·"));
        assert!(h.contains(">n2<") && !h.contains(">n3<"));
        // Up to LANES_ALL_MAX nodes, every lane, named or not.
        let small = Trace::new(LANES_ALL_MAX, vec![start(0, 0)]);
        let m = mermaid(&small, None);
        assert_eq!(m.matches("participant ").count(), LANES_ALL_MAX, "{m}");
        assert!(!m.contains("not drawn"));
    }

    /// A partition names a rest only where some node is in none of its groups.
    #[test]
    fn a_partition_of_every_node_names_no_rest() {
        let p = Fault::Partition {
            groups: vec![vec![0], vec![1, 2]],
        };
        assert_eq!(fault_text_among(&p, Some(3)), "partition [[0], [1, 2]]");
        assert_eq!(
            fault_text_among(&p, Some(4)),
            "partition [[0], [1, 2]] | rest"
        );
        assert_eq!(fault_text(&p), "partition [[0], [1, 2]] | rest");
        let fault = Event {
            id: 0,
            t_ns: 0,
            node: None,
            local_ns: None,
            kind: EventKind::Fault { fault: p },
        };
        let trace = Trace::new(3, vec![fault]);
        for view in [
            text(&trace, None),
            mermaid(&trace, None),
            html(&trace, None, "t"),
        ] {
            assert!(view.contains("partition [[0], [1, 2]]"), "{view}");
            assert!(!view.contains("| rest"), "{view}");
        }
    }

    /// A drift reads as a few digits, never as 0 when it is not (stop 64: 16 digits).
    #[test]
    fn a_drift_prints_a_short_number() {
        let drift = |drift_ppm| fault_text(&Fault::DriftChange { node: 1, drift_ppm });
        assert_eq!(drift(-4.161366533070556), "drift n1 = -4.161 ppm");
        assert_eq!(drift(50.0), "drift n1 = 50 ppm");
        assert_eq!(drift(2.5), "drift n1 = 2.5 ppm");
        assert_eq!(drift(0.0), "drift n1 = 0 ppm");
        assert_eq!(drift(-0.0), "drift n1 = 0 ppm");
        assert_eq!(drift(0.00004), "drift n1 = 4.0e-5 ppm");
        assert_eq!(drift(-0.0004), "drift n1 = -4.0e-4 ppm");
        assert_eq!(drift(0.0005), "drift n1 = 0.001 ppm");
    }

    /// A panic verdict marks its panic event in every view (none was marked).
    #[test]
    fn marks_the_panic_of_a_panic_verdict() {
        let panic = |id: u64, node: NodeId| Event {
            id,
            t_ns: 2_000_000,
            node: Some(node),
            local_ns: Some(2_000_000),
            kind: EventKind::Panic {
                message: "boom".into(),
            },
        };
        let trace = Trace::new(2, vec![panic(0, 0), panic(1, 1)]);
        let v = Verdict::Panic {
            node: 1,
            t_ns: 2_000_000,
            message: "boom".into(),
        };
        assert_eq!(marked_ids(&trace, Some(&v)), BTreeSet::from([1]));
        let s = text(&trace, Some(&v));
        assert_eq!(s.matches(">>").count(), 1, "{s}");
        assert!(s.contains(">>       2.000 ms  n1"), "{s}");
        assert!(mermaid(&trace, Some(&v)).contains("rect"), "the red block");
        assert!(html(&trace, Some(&v), "t").contains("violating"));
    }

    #[test]
    fn marks_violating_events() {
        let trace = Trace::new(
            2,
            vec![Event {
                id: 0,
                t_ns: 1_500_000,
                node: Some(1),
                local_ns: Some(1_400_000),
                kind: EventKind::Observe {
                    obs: Observation::CsEnter { resource: 0 },
                },
            }],
        );
        let v = Verdict::Violation(crate::Violation {
            property: "p".into(),
            class: crate::PropertyClass::Safety,
            explanation: "x".into(),
            t_ns: 0,
            events: vec![0],
        });
        let s = text(&trace, Some(&v));
        assert!(
            s.contains(">>       1.500 ms  n1   @       1.400  observe   cs_enter r0"),
            "{s}"
        );
        assert!(
            s.ends_with("# verdict: VIOLATION (Safety): p violated at 0.000 ms: x (events [0])\n"),
            "{s}"
        );
    }

    /// A verdict whose text holds a line break (a panic's message) stays on the footer's
    /// comment line: its second line was printed bare, as if it were an event.
    #[test]
    fn the_verdict_footer_is_one_line() {
        let trace = Trace::new(1, Vec::new());
        let v = Verdict::Panic {
            node: 0,
            t_ns: 0,
            message: "boom\n;#% bad".into(),
        };
        let s = text(&trace, Some(&v));
        let footer = s.lines().last().unwrap();
        assert!(
            footer.starts_with("# verdict: ") && footer.ends_with(r";#% bad"),
            "{s}"
        );
        assert!(s.lines().all(|l| l.starts_with('#')), "{s}");
    }

    /// A message or input holding line breaks (a hand-made trace) stays on its event's line.
    #[test]
    fn an_event_is_one_line_whatever_its_text() {
        let e = Event {
            id: 0,
            t_ns: 1_000_000,
            node: Some(0),
            local_ns: None,
            kind: EventKind::Input {
                input: "x\n       2.000 ms  n1   observe   cs_enter r0\u{1b}[2J".into(),
            },
        };
        let line = event_line(&e);
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(
            line.ends_with(r"input     x\n       2.000 ms  n1   observe   cs_enter r0\u{1b}[2J"),
            "{line}"
        );
        let plain = Event {
            kind: EventKind::Input {
                input: "Acquire { hold_ms: 3 }".into(),
            },
            ..e
        };
        assert!(event_line(&plain).ends_with("input     Acquire { hold_ms: 3 }"));
        // A right-to-left override or a line separator would reorder or break the line on a
        // terminal: escaped too. Other text outside ASCII stays as it is.
        let bidi = Event {
            kind: EventKind::Input {
                input: "a\u{202e}b\u{2028}c\u{2066}d é".into(),
            },
            ..plain
        };
        assert!(
            event_line(&bidi).ends_with(r"input     a\u{202e}b\u{2028}c\u{2066}d é"),
            "{}",
            event_line(&bidi)
        );
    }

    /// Appends an event at `t_ms` of global time (and of `node`'s clock).
    fn push_at(events: &mut Vec<Event>, t_ms: u64, node: Option<NodeId>, kind: EventKind) {
        events.push(Event {
            id: events.len() as u64,
            t_ns: t_ms * 1_000_000,
            node,
            local_ns: node.map(|_| (t_ms * 1_000_000) as i64),
            kind,
        });
    }

    /// A hand-made run of 3 nodes: a request and its delivery, a grant lost on the way, a
    /// crash and restart, a partition and heal, a pause, a timer, a self-message, and two
    /// nodes entering the critical section together (the violation: events 18 and 19).
    fn hand_trace() -> (Trace, Verdict) {
        let mut events = Vec::new();
        let mut ev = |t_ms: u64, node: Option<NodeId>, kind: EventKind| {
            push_at(&mut events, t_ms, node, kind)
        };
        for n in 0..3 {
            ev(0, Some(n), EventKind::Start { incarnation: 0 });
        }
        ev(
            1,
            Some(1),
            EventKind::Input {
                input: "Acquire".into(),
            },
        );
        ev(
            1,
            Some(1),
            EventKind::Send {
                msg_id: 0,
                to: 0,
                msg: "Request".into(),
            },
        );
        ev(
            3,
            Some(0),
            EventKind::Deliver {
                msg_id: 0,
                from: 1,
                sent: 4,
                msg: "Request".into(),
            },
        );
        ev(
            3,
            Some(0),
            EventKind::Send {
                msg_id: 1,
                to: 2,
                msg: "Grant; #1\n<b>".into(),
            },
        );
        ev(
            4,
            None,
            EventKind::Drop {
                msg_id: 1,
                from: 0,
                to: 2,
                reason: DropReason::Loss,
            },
        );
        ev(
            5,
            Some(2),
            EventKind::Fault {
                fault: Fault::Crash { node: 2 },
            },
        );
        ev(
            8,
            Some(2),
            EventKind::Fault {
                fault: Fault::Restart { node: 2 },
            },
        );
        ev(8, Some(2), EventKind::Start { incarnation: 1 });
        ev(
            10,
            None,
            EventKind::Fault {
                fault: Fault::Partition {
                    groups: vec![vec![0], vec![1, 2]],
                },
            },
        );
        ev(
            12,
            Some(0),
            EventKind::Timer {
                timer_id: 3,
                timer: "Retry".into(),
            },
        );
        ev(
            12,
            Some(0),
            EventKind::Send {
                msg_id: 2,
                to: 0,
                msg: "Self".into(),
            },
        );
        ev(
            12,
            Some(0),
            EventKind::Deliver {
                msg_id: 2,
                from: 0,
                sent: 13,
                msg: "Self".into(),
            },
        );
        ev(
            13,
            Some(1),
            EventKind::Fault {
                fault: Fault::Pause { node: 1 },
            },
        );
        ev(
            14,
            Some(1),
            EventKind::Fault {
                fault: Fault::Resume { node: 1 },
            },
        );
        ev(15, None, EventKind::Fault { fault: Fault::Heal });
        ev(
            16,
            Some(1),
            EventKind::Observe {
                obs: Observation::CsEnter { resource: 0 },
            },
        );
        ev(
            17,
            Some(2),
            EventKind::Observe {
                obs: Observation::CsEnter { resource: 0 },
            },
        );
        let verdict = Verdict::Violation(crate::Violation {
            property: "mutual_exclusion".into(),
            class: crate::PropertyClass::Safety,
            explanation: "node 2 entered while node 1 was inside; really".into(),
            t_ns: 17_000_000,
            events: vec![18, 19],
        });
        (Trace::new(3, events), verdict)
    }

    #[test]
    fn mermaid_draws_messages_drops_faults_and_the_violation() {
        let (trace, verdict) = hand_trace();
        let m = mermaid(&trace, Some(&verdict));
        let lines: Vec<&str> = m.lines().map(str::trim).collect();
        assert_eq!(lines[0], "sequenceDiagram", "{m}");
        for expected in [
            "participant n0",
            "participant n2",
            "n1->>n0: Request",
            "n0-x n2: Grant#59; #35;1<br/>#60;b#62; (loss)",
            "Note over n1: input Acquire",
            "Note over n2: crash n2",
            "Note over n2: restart (incarnation 1)",
            "Note over n0,n2: partition [[0], [1, 2]]",
            "Note over n0: timer Retry",
            "n0->>n0: Self",
            "Note over n1: pause n1",
            "Note over n0,n2: heal",
        ] {
            assert!(lines.contains(&expected), "missing `{expected}` in\n{m}");
        }
        // Each violating event inside a red block, then the explanation.
        let enter = lines
            .iter()
            .position(|l| *l == "Note over n1: cs_enter r0")
            .expect("n1 enters");
        assert_eq!(lines[enter - 1], "rect rgb(255,200,200)");
        assert_eq!(lines[enter + 1], "end");
        assert_eq!(lines[enter + 2], "rect rgb(255,200,200)");
        assert_eq!(lines[enter + 3], "Note over n2: cs_enter r0");
        assert_eq!(
            lines[enter + 5],
            "Note over n1,n2: ⚠ VIOLATION mutual_exclusion at 17.000 ms:<br/>node 2 entered while node 1 was inside#59; really"
        );
        // Sends are drawn at their delivery only; no label carries a raw `;` or `#`.
        assert!(!m.contains("Note over n1: send"));
        for l in &lines[1..] {
            let label = l.split_once(": ").map_or("", |(_, t)| t);
            assert!(
                !label.contains(';') || label.contains("#59;"),
                "unescaped label: {l}"
            );
        }
        assert_eq!(mermaid(&trace, Some(&verdict)), m, "deterministic");
    }

    /// `&` is an entity code (`&amp;` came out as `&amp#59;`), and a bidirectional character
    /// is written as its escape (it reversed the label after it), as on the text timeline.
    #[test]
    fn mermaid_escapes_ampersands_and_bidirectional_characters() {
        assert_eq!(
            mermaid_escape("a&amp;b\u{202e}c\u{2066}d;#<>\n\u{1b}é"),
            "a#38;amp#59;b\\u{202e}c\\u{2066}d#59;#35;#60;#62;<br/> é"
        );
        // no directive from a label (stop 58's probe: an observation's text set the theme)
        let label = mermaid_escape("a\n%%{init: {\"theme\":\"dark\"}}%%\nb");
        assert!(!label.contains('%'), "{label}");
        assert!(label.contains("#37;#37;{init"), "{label}");
    }

    /// A send whose message arrives outside the view (a node filter, a window) or never (in
    /// flight when the trace ends) has no arrow: it is drawn as a note (Mermaid) or a mark
    /// (HTML) of its own, saying which, not left out of a view that counts it as shown.
    #[test]
    fn a_send_without_its_arrival_in_the_view_is_drawn_and_says_why() {
        let ev = |id: u64, t_ms: u64, node: NodeId, kind: EventKind| Event {
            id,
            t_ns: t_ms * 1_000_000,
            node: Some(node),
            local_ns: None,
            kind,
        };
        let send = |id, t, from, msg_id, to, msg: &str| {
            ev(
                id,
                t,
                from,
                EventKind::Send {
                    msg_id,
                    to,
                    msg: msg.into(),
                },
            )
        };
        let trace = Trace::new(
            2,
            vec![
                send(0, 1, 0, 0, 1, "Grant"),
                ev(
                    1,
                    2,
                    1,
                    EventKind::Deliver {
                        msg_id: 0,
                        from: 0,
                        sent: 0,
                        msg: "Grant".into(),
                    },
                ),
                send(2, 3, 1, 1, 0, "Release"),
            ],
        );
        let m = mermaid(&trace, None);
        assert!(m.contains("n0->>n1: Grant"), "{m}");
        assert!(
            m.contains("Note over n1: sends Release to n0 (still in flight when the trace ends)"),
            "{m}"
        );
        // node 0 alone: the grant's delivery is on node 1, outside the view
        let only_n0 = Selection {
            shown: vec![0],
            notes: vec![],
            from_ns: 0,
            to_ns: None,
        };
        let m = mermaid_view(&trace, &only_n0, None);
        assert!(
            m.contains("Note over n0: sends Grant to n1 (arrives outside this view)"),
            "{m}"
        );
        let h = html_view(&trace, &only_n0, None, "t");
        assert!(h.contains("→ n1 Grant (outside the view)"), "{h}");
        let h = html(&trace, None, "t");
        assert!(h.contains("→ n0 Release (in flight at the end)"), "{h}");
        assert!(
            !h.contains("→ n1 Grant"),
            "a delivered message is an arrow: {h}"
        );
    }

    /// A trace of `n` notes `step i` at node 0, one a ns.
    fn steps_at_node_0(n: u64) -> Trace {
        let events = (0..n)
            .map(|i| Event {
                id: i,
                t_ns: i,
                node: Some(0),
                local_ns: Some(0),
                kind: EventKind::Observe {
                    obs: Observation::Note {
                        text: format!("step {i}"),
                    },
                },
            })
            .collect();
        Trace::new(1, events)
    }

    #[test]
    fn mermaid_keeps_the_past_of_each_violating_event_and_marks_its_gaps() {
        // 500 steps at one node, violating events 0 and 499: the cap keeps what is nearest
        // either (the past of the first was ranked by its distance to the second, dropped).
        let trace = steps_at_node_0(500);
        let v = Verdict::Violation(crate::check::Violation {
            property: "p".into(),
            class: crate::check::PropertyClass::Safety,
            explanation: "x".into(),
            t_ns: 499,
            events: vec![0, 499],
        });
        let m = mermaid(&trace, Some(&v));
        assert!(
            m.contains("note step 1\n") && m.contains("note step 498\n"),
            "{m}"
        );
        assert!(!m.contains("note step 250\n"), "{m}");
        // the 100 steps left out in the middle, where they are
        assert!(
            m.contains("Note over n0: … 100 events not drawn here\n"),
            "{m}"
        );
        let gap = m.find("not drawn here").unwrap();
        assert!(m[..gap].contains("note step 199\n") && m[gap..].contains("note step 300\n"));
    }

    #[test]
    fn the_nodes_first_starts_do_not_use_up_the_cap() {
        // 450 (and 5,200) nodes start, then node 3 notes ten steps: every diagram draws the
        // steps (the starts alone filled Mermaid's 400 and HTML's 5,000, stop 72's probe).
        for nodes in [450u64, HTML_MAX_EVENTS as u64 + 200] {
            let mut events: Vec<Event> = (0..nodes)
                .map(|n| Event {
                    id: n,
                    t_ns: 0,
                    node: Some(n as NodeId),
                    local_ns: Some(0),
                    kind: EventKind::Start { incarnation: 0 },
                })
                .collect();
            events.extend((0..10).map(|i| Event {
                id: nodes + i,
                t_ns: 1 + i,
                node: Some(3),
                local_ns: Some(1 + i as i64),
                kind: EventKind::Observe {
                    obs: Observation::Note {
                        text: format!("step {i}"),
                    },
                },
            }));
            let trace = Trace::new(nodes as usize, events);
            let m = mermaid(&trace, Some(&Verdict::Pass));
            assert_eq!(m.matches("note step").count(), 10, "{nodes} nodes");
            assert!(!m.contains("not drawn (the diagram shows"), "{m}");
            let h = html(&trace, Some(&Verdict::Pass), "t");
            assert!(h.contains("step 9"), "{nodes} nodes");
            assert!(!h.contains("Only the first"), "{nodes} nodes");
        }
    }

    #[test]
    fn mermaid_caps_long_traces_and_notes_other_verdicts() {
        let trace = steps_at_node_0(MERMAID_MAX_EVENTS as u64 + 25);
        let m = mermaid(&trace, Some(&Verdict::Pass));
        assert_eq!(
            m.matches("Note over n0: note step").count(),
            MERMAID_MAX_EVENTS
        );
        assert!(
            m.contains(
                "Note over n0: … 25 more events not drawn (the diagram shows the first 400 of 425)"
            ),
            "{m}"
        );
        assert!(
            m.ends_with("Note over n0: verdict: PASS: every checked property held\n"),
            "{m}"
        );
        // A run limit stopped the run at its end: the end is drawn.
        let limit = Verdict::LimitExceeded {
            limit: "max_events = 425".into(),
        };
        let m = mermaid(&trace, Some(&limit));
        assert!(
            m.contains("note step 424") && !m.contains("note step 0\n"),
            "{m}"
        );
        assert!(
            m.contains("(the diagram shows the last 400 of 425, where the run limit stopped it)"),
            "{m}"
        );
        // A violation at the end keeps the end too; no run limit is claimed for it.
        let violation = Verdict::Violation(crate::check::Violation {
            property: "p".into(),
            class: crate::PropertyClass::Safety,
            explanation: "at the end".into(),
            t_ns: 424,
            events: vec![424],
        });
        let m = mermaid(&trace, Some(&violation));
        assert!(m.contains("note step 424"), "{m}");
        assert!(!m.contains("run limit"), "{m}");
        assert!(
            m.contains("the last 400 of 425, up to the violation)"),
            "{m}"
        );
    }

    #[test]
    fn html_draws_one_line_per_message_and_highlights_the_violation() {
        let (trace, verdict) = hand_trace();
        let h = html(&trace, Some(&verdict), "hand <made>");
        assert!(h.starts_with("<!DOCTYPE html>"));
        assert!(h.contains("<title>hand &lt;made&gt;</title>"));
        // Two delivered messages (one to itself) and one dropped, each one <line>.
        assert_eq!(h.matches("<line class=\"msg").count(), 3, "{h}");
        assert_eq!(h.matches("<line class=\"msg drop").count(), 1);
        assert_eq!(
            h.matches("<path class=\"x\"").count(),
            1,
            "the drop ends in an ✕"
        );
        // The two violating observations, in red, and the verdict at the top.
        assert_eq!(h.matches("<g class=\"mark obs violating\">").count(), 2);
        assert!(
            h.contains("<div class=\"verdict violation\">⚠ VIOLATION (Safety): mutual_exclusion")
        );
        assert!(h.contains("class=\"vline\""));
        // Crash→restart and pause→resume on the node's line, partition→heal across.
        assert_eq!(h.matches("<g class=\"span crashed\">").count(), 1);
        assert_eq!(h.matches("<g class=\"span paused\">").count(), 1);
        assert_eq!(h.matches("<g class=\"span partition\">").count(), 1);
        assert!(
            h.contains("<title>n2 crashed from 5.000 ms to 8.000 ms</title>"),
            "{h}"
        );
        // Tooltips, ticks in ms, node labels, a legend.
        assert!(h.contains("<title>16.000 ms  n1   @      16.000  observe   cs_enter r0</title>"));
        assert!(h.contains(">10 ms</text>"), "{h}");
        assert!(h.contains(">n2</text>"));
        assert!(h.contains("class=\"legend\""));
        // Self-contained: no script, no external reference.
        for banned in ["http://", "https://", "<script", "<link", "@import", "src="] {
            assert!(!h.contains(banned), "found {banned}");
        }
        assert_eq!(
            html(&trace, Some(&verdict), "hand <made>"),
            h,
            "deterministic"
        );
    }

    /// Stop 66's probe of the views: five nodes whose lines carry four stacked labels each,
    /// the violation on the last one, drew its rings below the first screen (the header above
    /// the diagram and 190 px a line); the fewer label levels that fit keep the violating
    /// event's own label. Nine partitions within 70 ms were labelled on one line, over each
    /// other; a close-up of short stretches left the violation's time unlabelled; a label
    /// with U+202E was drawn reversed; a clock jump printed `+28.700000000000003 ms`.
    #[test]
    fn html_keeps_the_violation_on_the_first_screen_and_labels_readable() {
        let mut events = Vec::new();
        let mut ev = |t_ms: u64, node: Option<NodeId>, kind: EventKind| {
            push_at(&mut events, t_ms, node, kind)
        };
        for n in 0..5 {
            for k in 0..4 {
                ev(
                    10,
                    Some(n),
                    EventKind::Observe {
                        obs: Observation::User {
                            kind: format!("busy{k}"),
                            data: serde_json::json!(n),
                        },
                    },
                );
            }
        }
        for p in 0..9 {
            ev(
                20 + p,
                None,
                EventKind::Fault {
                    fault: Fault::Partition {
                        groups: vec![vec![0], vec![1, 2, 3, 4]],
                    },
                },
            );
        }
        ev(
            40,
            Some(1),
            EventKind::Fault {
                fault: Fault::ClockJump {
                    node: 1,
                    delta_ms: 28.700000000000003,
                },
            },
        );
        ev(
            50,
            Some(4),
            EventKind::Observe {
                obs: Observation::User {
                    kind: "bad\u{202e}".into(),
                    data: serde_json::json!(1),
                },
            },
        );
        let last = events.len() as u64 - 1;
        let trace = Trace::new(5, events);
        let verdict = Verdict::Violation(crate::check::Violation {
            property: "p".into(),
            class: crate::PropertyClass::Safety,
            explanation: "n4 ".repeat(60),
            t_ns: 50_000_000,
            events: vec![last],
        });
        let h = html(&trace, Some(&verdict), "five lines");
        let ring_y: f64 = h
            .split("<circle class=\"ring\"")
            .nth(1)
            .and_then(|r| r.split("cy=\"").nth(1))
            .and_then(|r| r.split('"').next())
            .and_then(|y| y.parse().ok())
            .expect("a ring");
        let (_, vtext) = ("", format!("⚠ {verdict}"));
        let header = header_px("five lines", &vtext, &[], false);
        assert!(
            header + ring_y + 12.0 <= FIRST_SCREEN_H,
            "ring at {ring_y} px below a header of {header} px"
        );
        // The violating event's label is drawn; some others are left to their tooltips.
        assert!(h.contains("bad\\u{202e}"), "{h}");
        assert!(!h.contains('\u{202e}'));
        assert!(h.matches(">busy3 ").count() < 5, "levels were not reduced");
        // Partition labels on distinct lines.
        let ys: BTreeSet<&str> = h
            .match_indices("<text class=\"span-label partition\"")
            .filter_map(|(i, _)| h[i..].split("y=\"").nth(1)?.split('"').next())
            .collect();
        assert!(ys.len() > 1, "{ys:?}");
        // The violation's time on the axis; the jump rounded.
        assert!(h.contains(">50.000 ms</text>"), "{h}");
        assert!(h.contains("clock jump n1 +28.7 ms"), "{h}");
        assert!(!h.contains("28.700000000000003"));
    }

    /// A violating event's label takes a level before the others, past the cap if need be.
    #[test]
    fn violating_labels_are_placed_first() {
        let items = [(0.0, 10, false), (5.0, 10, false), (10.0, 10, true)];
        let (levels, used) = layout_labels(&items, 1);
        assert_eq!(levels, vec![None, None, Some(0)]);
        assert_eq!(used, 1);
        let (levels, used) = layout_labels(&items, 4);
        assert!(levels.iter().all(Option::is_some));
        assert_eq!(used, 3);
    }

    /// A link change is marked on its ends' lines (it was on node 0's); a violating partition
    /// is drawn red (its class had no style); a window that starts after the violation draws
    /// no violation line (it was drawn at the window's start); an empty window's header gives
    /// the window (it said `100.000 – 0.000 ms`).
    #[test]
    fn html_places_link_changes_partitions_and_windows_where_they_are() {
        let mut events = Vec::new();
        let mut ev = |t_ms: u64, kind: EventKind| {
            events.push(Event {
                id: events.len() as u64,
                t_ns: t_ms * 1_000_000,
                node: None,
                local_ns: None,
                kind,
            });
        };
        let link = crate::net::LinkOverride {
            from: Some(1),
            to: Some(2),
            latency: Some(crate::net::Latency::Constant { ms: 1000.0 }),
            loss: None,
            duplicate: None,
            reorder: None,
        };
        ev(
            5,
            EventKind::Fault {
                fault: Fault::SetLinks(Box::new(link)),
            },
        );
        ev(
            10,
            EventKind::Fault {
                fault: Fault::Partition {
                    groups: vec![vec![0], vec![1, 2]],
                },
            },
        );
        ev(30, EventKind::Fault { fault: Fault::Heal });
        let trace = Trace::new(3, events);
        let verdict = Verdict::Violation(crate::check::Violation {
            property: "p".into(),
            class: crate::PropertyClass::Safety,
            explanation: "the partition".into(),
            t_ns: 10_000_000,
            events: vec![1],
        });
        let h = html(&trace, Some(&verdict), "t");
        // the link change's mark: on n1 and n2, none on n0
        let marks: Vec<&str> = h
            .match_indices("<g class=\"mark fault")
            .map(|(i, _)| &h[i..i + h[i..].find("</g>").unwrap()])
            .collect();
        assert_eq!(marks.len(), 2, "{marks:?}");
        assert_eq!(
            h.matches("<g class=\"span partition violating\">").count(),
            1
        );
        assert!(HTML_STYLE.contains(".span.partition.violating {"));
        assert!(h.contains("class=\"vline\""));
        let window = |from_ms: u64, to_ms: Option<u64>| {
            let filter = crate::view::Filter {
                from_ns: Some(from_ms * 1_000_000),
                to_ns: to_ms.map(|t| t * 1_000_000),
                ..Default::default()
            };
            let sel = crate::view::select(&trace, Some(&verdict), &filter).unwrap();
            html_view(&trace, &sel, Some(&verdict), "t")
        };
        let after = window(20, None);
        assert!(!after.contains("class=\"vline\""), "{after}");
        let empty = window(12, Some(20));
        assert!(empty.contains("global time 12.000 – 20.000 ms"), "{empty}");
    }

    /// A message sent before a window's start comes in from its left edge, dashed, with no
    /// send dot (a dot on the edge drew a send at a time nothing was sent).
    #[test]
    fn html_a_message_sent_before_the_window_has_no_send_dot() {
        let (trace, verdict) = hand_trace();
        let filter = crate::view::Filter {
            from_ns: Some(2_000_000),
            to_ns: Some(3_000_000),
            ..crate::view::Filter::default()
        };
        let sel = crate::view::select(&trace, Some(&verdict), &filter).unwrap();
        let h = html_view(&trace, &sel, Some(&verdict), "w");
        // the Request, sent at 1 ms and delivered at 3 ms: early, no dot
        assert_eq!(h.matches("<line class=\"msg early").count(), 1, "{h}");
        let whole = html(&trace, Some(&verdict), "w");
        assert!(!whole.contains("msg early"));
        assert!(
            h.matches("<circle class=\"send").count()
                < whole.matches("<circle class=\"send").count()
        );
    }

    #[test]
    fn html_without_verdict_caps_the_drawing() {
        let mut events = Vec::new();
        for i in 0..(HTML_MAX_EVENTS as u64 + 10) {
            events.push(Event {
                id: i,
                t_ns: i * 1000,
                node: Some((i % 2) as usize),
                local_ns: None,
                kind: EventKind::Timer {
                    timer_id: i,
                    timer: "T".into(),
                },
            });
        }
        let mut with_starts = events.clone();
        let h = html(&Trace::new(2, events), None, "big");
        assert!(h.contains("<div class=\"verdict none\">"));
        assert_eq!(
            h.matches("<g class=\"mark timer\">").count(),
            HTML_MAX_EVENTS
        );
        assert!(h.contains("Only the first 5000 of 5010 events are drawn (10 left out)."));
        assert!(!h.contains("violating\""));
        // The counts line gives the trace's 5,012 events: the note says what the 2 node
        // starts, which draw nothing, are.
        for node in [1, 0] {
            with_starts.insert(
                0,
                Event {
                    id: 0,
                    t_ns: 0,
                    node: Some(node),
                    local_ns: None,
                    kind: EventKind::Start { incarnation: 0 },
                },
            );
        }
        for (i, e) in with_starts.iter_mut().enumerate() {
            e.id = i as u64;
        }
        let h = html(&Trace::new(2, with_starts), None, "big");
        assert!(h.contains("5012 events (5000 shown)"), "{h}");
        assert!(
            h.contains(
                "Only the first 5000 of 5010 events are drawn (10 left out; the trace's 2 \
                 other events are not in this view (a node's first start draws nothing))."
            ),
            "{h}"
        );
    }

    #[test]
    fn link_changes_read_as_words() {
        let o = LinkOverride {
            from: Some(1),
            to: None,
            latency: Some(Latency::Uniform {
                min_ms: 1.0,
                max_ms: 10.0,
            }),
            loss: Some(0.2),
            duplicate: None,
            reorder: Some(0.025),
        };
        assert_eq!(
            fault_text(&Fault::SetLinks(Box::new(o))),
            "links n1 → all: latency 1–10 ms, loss 20%, reordering 2.5%"
        );
    }

    #[test]
    fn idle_gaps_are_drawn_as_short_breaks() {
        // Events at 0–10 ms and 1000–1010 ms: the 990 ms between is drawn as a break.
        let mut events = Vec::new();
        for (i, t_ms) in [0u64, 5, 10, 1000, 1005, 1010].into_iter().enumerate() {
            events.push(Event {
                id: i as u64,
                t_ns: t_ms * 1_000_000,
                node: Some(0),
                local_ns: None,
                kind: EventKind::Timer {
                    timer_id: i as u64,
                    timer: "T".into(),
                },
            });
        }
        let trace = Trace::new(1, events);
        let h = html(&trace, None, "gap");
        assert_eq!(h.matches("<g class=\"break\">").count(), 1, "{h}");
        assert!(
            h.contains("no event drawn for 989.520 ms (10.240 – 999.760 ms)"),
            "{h}"
        );
        assert!(h.contains(">… 990 ms …</text>"), "{h}");
        // The two bursts share the axis: 1000 ms sits near the middle (linear: 99 % along).
        let axis = TimeAxis::new(
            &[0, 10_000_000, 1_000_000_000, 1_010_000_000],
            0,
            1000.0,
            60.0,
        );
        let (x10, x1000) = (axis.x(10_000_000), axis.x(1_000_000_000));
        assert!(x1000 - x10 < 250.0 && x1000 < 60.0 + 600.0, "{x10} {x1000}");
        assert!(axis.x(1_010_000_000) > 900.0);
        // Evenly spread events have no break.
        let even: Vec<u64> = (0..20).map(|i| i * 50_000_000).collect();
        let axis = TimeAxis::new(&even, 0, 1000.0, 60.0);
        assert!(axis.segments.iter().all(|s| !s.idle));
    }

    #[test]
    fn tick_steps_are_1_2_5() {
        assert_eq!(tick_step_ns(64_000_000, 14), 5_000_000);
        assert_eq!(tick_step_ns(17_000_000, 14), 2_000_000);
        assert_eq!(tick_step_ns(1_000_000, 14), 100_000);
        assert_eq!(tick_label(2_500_000, 500_000), "2.5 ms");
        assert_eq!(tick_label(20_000_000, 5_000_000), "20 ms");
    }
}
