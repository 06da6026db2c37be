//! Leader election algorithms (Tanenbaum & van Steen §6.5; seed `002` "Eleição de Líderes").
//!
//! Every process reports what it believes with `Observation::Leader`: `Some(l)` when it
//! believes `l` leads (itself included), `None` when it starts an election; algorithms with
//! terms report them, the others report term 0. The checkers are in
//! `sincro_checkers::election`.

pub mod adhoc;
pub mod anel1;
pub mod anel2;
pub mod bully;
pub mod chang_roberts;
pub mod franklin;
pub(crate) mod registered_core;
pub(crate) mod registered_rings;
pub mod ring_list;
pub mod rings_common;
pub mod superpeer;
pub mod terms;
pub mod yoyo;

/// What each node last reported about the leader (`None` for a node that reported nothing).
#[cfg(test)]
pub(crate) fn final_leaders(out: &sincro_harness::Outcome, nodes: usize) -> Vec<Option<usize>> {
    use sincro_harness::{EventKind, Observation};
    let mut last = vec![None; nodes];
    for e in &out.trace.as_ref().expect("recorded").events {
        if let (
            Some(n),
            EventKind::Observe {
                obs: Observation::Leader { leader, .. },
            },
        ) = (e.node, &e.kind)
        {
            last[n] = *leader;
        }
    }
    last
}

/// The messages sent, as `(from, to, rendered message)`.
#[cfg(test)]
pub(crate) fn sends(out: &sincro_harness::Outcome) -> Vec<(usize, usize, String)> {
    use sincro_harness::EventKind;
    out.trace
        .as_ref()
        .expect("recorded")
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Send { to, msg, .. } => Some((e.node?, *to, msg.to_string())),
            _ => None,
        })
        .collect()
}
