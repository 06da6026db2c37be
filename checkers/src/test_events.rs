//! Hand-made trace events for the checkers' tests.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{NodeId, Observation};

/// Whether a test runs at its full size: in a release build, or with `SINCRO_FULL_SWEEPS=1`
/// (CI's test step), as the algorithms' sweeps; a quick debug run takes smaller inputs of
/// the same shape where a test's cost grows with its size.
pub(crate) fn full_size() -> bool {
    !cfg!(debug_assertions) || std::env::var("SINCRO_FULL_SWEEPS").is_ok_and(|v| v.trim() == "1")
}

pub(crate) fn at(id: u64, node: NodeId, kind: EventKind) -> Event {
    Event {
        id,
        t_ns: id * 1_000,
        node: Some(node),
        local_ns: Some((id * 1_000) as i64),
        kind,
    }
}

/// Observation `obs` at `node`, `t_ms` ms into the run (no local clock).
pub(crate) fn observe_ms(id: u64, t_ms: u64, node: NodeId, obs: Observation) -> Event {
    Event {
        id,
        t_ns: t_ms * sincro_harness::NS_PER_MS,
        node: Some(node),
        local_ns: None,
        kind: EventKind::Observe { obs },
    }
}

pub(crate) fn observe(id: u64, node: NodeId, obs: Observation) -> Event {
    at(id, node, EventKind::Observe { obs })
}

pub(crate) fn send(id: u64, node: NodeId, msg_id: u64, to: NodeId) -> Event {
    at(
        id,
        node,
        EventKind::Send {
            msg_id,
            to,
            msg: "m".into(),
        },
    )
}

/// Delivery at `node` of message `msg_id` from `from`, sent as event `sent`.
pub(crate) fn deliver(id: u64, node: NodeId, msg_id: u64, from: NodeId, sent: u64) -> Event {
    at(
        id,
        node,
        EventKind::Deliver {
            msg_id,
            from,
            sent,
            msg: "m".into(),
        },
    )
}

pub(crate) fn delivered(id: u64, node: NodeId, m: &str) -> Event {
    observe(id, node, Observation::Delivered { id: m.into() })
}

pub(crate) fn multicast(id: u64, node: NodeId, m: &str) -> Event {
    observe(id, node, Observation::Multicast { id: m.into() })
}
