//! Trace renderers: a plain text timeline (what the corpus snapshots with insta).

use crate::engine::Verdict;
use crate::fault::Fault;
use crate::process::Observation;
use crate::trace::{Event, EventKind, Trace};
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
        Observation::Delivered { id } => format!("delivered {id}"),
        Observation::Note { text } => format!("note {text}"),
    }
}

/// A short text for a fault.
pub fn fault_text(f: &Fault) -> String {
    match f {
        Fault::Partition { groups } => format!("partition {groups:?} | rest"),
        Fault::PartitionOneway { from, to } => format!("partition one-way {from:?} -/-> {to:?}"),
        Fault::Heal => "heal".into(),
        Fault::Crash { node } => format!("crash n{node}"),
        Fault::Restart { node } => format!("restart n{node}"),
        Fault::Pause { node } => format!("pause n{node}"),
        Fault::Resume { node } => format!("resume n{node}"),
        Fault::ClockJump { node, delta_ms } => format!("clock jump n{node} {delta_ms:+} ms"),
        Fault::DriftChange { node, drift_ppm } => format!("drift n{node} = {drift_ppm} ppm"),
        Fault::SetLinks(o) => format!("set links {}", serde_json::to_string(o).unwrap_or_default()),
    }
}

/// One line for an event (without the highlight marker).
pub fn event_line(e: &Event) -> String {
    let who = match e.node {
        Some(n) => format!("n{n:<3}"),
        None => "--  ".into(),
    };
    let local = match e.local_ns {
        Some(l) => format!("@{:>12.3}", l as f64 / 1e6),
        None => " ".repeat(13),
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
                serde_json::to_value(reason)
                    .unwrap_or_default()
                    .as_str()
                    .unwrap_or("")
            )
        }
        EventKind::Timer { timer, .. } => format!("timer     {timer}"),
        EventKind::Input { input } => format!("input     {input}"),
        EventKind::Fault { fault } => format!("FAULT     {}", fault_text(fault)),
        EventKind::ClockAdjust { how, delta_ns } => {
            format!(
                "clock     {} {:+.3} ms",
                serde_json::to_value(how)
                    .unwrap_or_default()
                    .as_str()
                    .unwrap_or(""),
                *delta_ns as f64 / 1e6
            )
        }
        EventKind::Observe { obs } => format!("observe   {}", observation_text(obs)),
        EventKind::Panic { message } => format!("PANIC     {message}"),
    };
    format!("{:>12.3} ms  {who} {local}  {what}", e.t_ns as f64 / 1e6)
}

/// The whole trace as a text timeline: one line per event, global time first, then the node
/// and its local clock; the events a violation points at are marked `>>`; the verdict last.
pub fn text(trace: &Trace, verdict: Option<&Verdict>) -> String {
    let marked: Vec<u64> = match verdict {
        Some(Verdict::Violation(v)) => v.events.clone(),
        _ => Vec::new(),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} nodes, {} events; columns: global time, node, @local clock (ms), event",
        trace.nodes,
        trace.events.len()
    );
    for e in &trace.events {
        let mark = if marked.contains(&e.id) { ">>" } else { "  " };
        let _ = writeln!(out, "{mark}{}", event_line(e));
    }
    if let Some(v) = verdict {
        let _ = writeln!(out, "# verdict: {v}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_violating_events() {
        let trace = Trace {
            nodes: 2,
            events: vec![Event {
                id: 0,
                t_ns: 1_500_000,
                node: Some(1),
                local_ns: Some(1_400_000),
                kind: EventKind::Observe {
                    obs: Observation::CsEnter { resource: 0 },
                },
            }],
        };
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
}
