//! Another line order of the same run: a checker must judge each instant as a set.
//!
//! Nothing orders two nodes' events of one global time: the native engine records them in its
//! queue's order, turmoil and madsim in theirs, and a hand-made trace in whatever order its
//! author wrote. A checker whose verdict changes with that order gives different verdicts on
//! different engines for one run. [`reorder_instants`] writes the run in another order it
//! could have been recorded in, so a test can judge both and compare (`sincro::testing` does,
//! for every checker of a passing check, built-in and the user's own).

use crate::trace::{Event, EventKind, Trace};
use std::collections::{BTreeMap, BinaryHeap, HashMap};

/// The same run, each instant's lines in another order it could have been recorded in:
/// - each node's own events keep their order;
/// - a delivery or a drop stays after its send when both are of this instant;
/// - an event at no node (a partition, a heal, a change of links, the cut) stays where it is,
///   with what came before it before it and what came after it after it;
/// - among the events free to go next, the one of the highest node goes first (the engines'
///   orders mostly go the other way), ties in their recorded order.
///
/// Ids are renumbered in the new order (a delivery's `sent` follows its send). The trace is
/// taken as recorded: events in time order (a trace out of time order keeps its order
/// between instants; [`Trace::validate`] refuses it).
pub fn reorder_instants(trace: &Trace) -> Trace {
    let events = trace.events();
    let mut order: Vec<usize> = Vec::with_capacity(events.len());
    let mut start = 0;
    while start < events.len() {
        let t = events[start].t_ns;
        let end = start + events[start..].iter().take_while(|e| e.t_ns == t).count();
        // Events at no node are barriers: what lies between two of them is reordered alone.
        let mut seg = start;
        for i in start..end {
            if events[i].node.is_none() {
                order.extend(reorder_segment(events, seg, i));
                order.push(i);
                seg = i + 1;
            }
        }
        order.extend(reorder_segment(events, seg, end));
        start = end;
    }
    debug_assert_eq!(order.len(), events.len());
    renumber(trace, &order)
}

/// The positions `lo..hi` (events at nodes, of one instant) in the new order.
fn reorder_segment(events: &[Event], lo: usize, hi: usize) -> Vec<usize> {
    if hi <= lo + 1 {
        return (lo..hi).collect();
    }
    // Edges: each event to the next of its node; a send to its deliveries and drops here.
    let mut next_of_node: Vec<Option<usize>> = vec![None; hi - lo];
    let mut after_send: Vec<Vec<usize>> = vec![Vec::new(); hi - lo];
    let mut indegree = vec![0u32; hi - lo];
    let mut last_of_node: BTreeMap<usize, usize> = BTreeMap::new();
    let mut sends: HashMap<u64, usize> = HashMap::new();
    for i in lo..hi {
        let e = &events[i];
        let node = e.node.expect("a segment holds events at nodes");
        if let Some(prev) = last_of_node.insert(node, i) {
            next_of_node[prev - lo] = Some(i);
            indegree[i - lo] += 1;
        }
        match &e.kind {
            EventKind::Send { msg_id, .. } => {
                sends.insert(*msg_id, i);
            }
            EventKind::Deliver { msg_id, .. } | EventKind::Drop { msg_id, .. } => {
                if let Some(&s) = sends.get(msg_id) {
                    after_send[s - lo].push(i);
                    indegree[i - lo] += 1;
                }
            }
            _ => {}
        }
    }
    // Kahn's algorithm, the highest node first, then the recorded order.
    let key = |i: usize| (events[i].node.unwrap_or(0), std::cmp::Reverse(i));
    let mut ready: BinaryHeap<_> = (lo..hi)
        .filter(|&i| indegree[i - lo] == 0)
        .map(key)
        .collect();
    let mut out = Vec::with_capacity(hi - lo);
    while let Some((_, std::cmp::Reverse(i))) = ready.pop() {
        out.push(i);
        let freed = next_of_node[i - lo]
            .into_iter()
            .chain(after_send[i - lo].clone());
        for j in freed {
            indegree[j - lo] -= 1;
            if indegree[j - lo] == 0 {
                ready.push(key(j));
            }
        }
    }
    // A delivery recorded before its send (a hand-made trace) forms no cycle with the node
    // chains but never gets free: what is left keeps its recorded order.
    if out.len() < hi - lo {
        let placed: std::collections::BTreeSet<usize> = out.iter().copied().collect();
        out.extend((lo..hi).filter(|i| !placed.contains(i)));
    }
    out
}

/// `trace`'s events in `order` (positions), ids renumbered and `sent` links followed.
fn renumber(trace: &Trace, order: &[usize]) -> Trace {
    let new_id: HashMap<u64, u64> = order
        .iter()
        .enumerate()
        .map(|(new, &old)| (trace.events()[old].id, new as u64))
        .collect();
    let events = order
        .iter()
        .enumerate()
        .map(|(new, &old)| {
            let mut e = trace.events()[old].clone();
            e.id = new as u64;
            if let EventKind::Deliver { sent, .. } = &mut e.kind {
                if let Some(&s) = new_id.get(sent) {
                    *sent = s;
                }
            }
            e
        })
        .collect();
    Trace::new(trace.nodes, events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::Fault;
    use crate::trace::Text;
    use crate::Observation;

    fn ev(id: u64, t_ms: u64, node: Option<usize>, kind: EventKind) -> Event {
        Event {
            id,
            t_ns: t_ms * 1_000_000,
            node,
            local_ns: None,
            kind,
        }
    }

    fn obs(id: u64, t_ms: u64, node: usize, value: &str) -> Event {
        ev(
            id,
            t_ms,
            Some(node),
            EventKind::Observe {
                obs: Observation::State {
                    value: value.into(),
                },
            },
        )
    }

    fn send(id: u64, t_ms: u64, node: usize, msg_id: u64, to: usize) -> Event {
        ev(
            id,
            t_ms,
            Some(node),
            EventKind::Send {
                msg_id,
                to,
                msg: Text::from("M"),
            },
        )
    }

    fn deliver(id: u64, t_ms: u64, node: usize, msg_id: u64, from: usize, sent: u64) -> Event {
        ev(
            id,
            t_ms,
            Some(node),
            EventKind::Deliver {
                msg_id,
                from,
                sent,
                msg: Text::from("M"),
            },
        )
    }

    fn label(e: &Event) -> String {
        match &e.kind {
            EventKind::Observe {
                obs: Observation::State { value },
            } => value.clone(),
            EventKind::Send { msg_id, .. } => format!("s{msg_id}"),
            EventKind::Deliver { msg_id, sent, .. } => format!("d{msg_id}<{sent}"),
            EventKind::Fault { .. } => "fault".into(),
            _ => "?".into(),
        }
    }

    /// Each node's events keep their order, the highest node goes first, a delivery of the
    /// instant stays after its send (whose new id it names), an event at no node is a
    /// barrier, and instants never mix.
    #[test]
    fn an_instant_is_rewritten_in_another_order_the_run_allows() {
        let heal = ev(6, 2, None, EventKind::Fault { fault: Fault::Heal });
        let trace = Trace::new(
            3,
            vec![
                obs(0, 1, 0, "a0"),
                obs(1, 1, 0, "b0"),
                send(2, 1, 0, 7, 2),
                obs(3, 1, 1, "a1"),
                deliver(4, 1, 2, 7, 0, 2),
                obs(5, 2, 0, "c0"),
                heal,
                obs(7, 2, 2, "c2"),
                obs(8, 2, 1, "c1"),
            ],
        );
        let r = reorder_instants(&trace);
        let labels: Vec<String> = r.events().iter().map(label).collect();
        assert_eq!(
            labels,
            ["a1", "a0", "b0", "s7", "d7<3", "c0", "fault", "c2", "c1"],
            "{r:?}"
        );
        assert!(r.events().iter().enumerate().all(|(i, e)| e.id == i as u64));
        r.validate().unwrap();
        // Reordered twice: the same order (the highest node was already first).
        assert_eq!(reorder_instants(&r).events(), r.events());
    }
}
