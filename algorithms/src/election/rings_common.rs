//! Pieces shared by the ring family and the graph elections of this directory: the workload
//! input, the logical ring's neighbours, and the identifier parameter.

use serde::{Deserialize, Serialize};
use sincro_harness::NodeId;

/// Workload command of these elections: the node suspects the leader is dead and starts an
/// election ("quando p acha que o líder está morto", seed 002).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// Start (or join) an election.
    Start,
}

/// The next node of the logical ring ("à direita").
pub fn right(me: NodeId, n: usize) -> NodeId {
    (me + 1) % n
}

/// The previous node of the logical ring ("à esquerda").
pub fn left(me: NodeId, n: usize) -> NodeId {
    (me + n - 1) % n
}

/// A candidate as carried in messages: the algorithm's identifier and the node that owns it
/// (the node, so that observations name the leader for the checkers).
pub type Cand = (u64, NodeId);

/// Parameters of the ring elections (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RingParams {
    /// The identifier of the node at each ring position (default: the node id). A permutation
    /// arranges the ring's ordering, e.g. Chang–Roberts' best and worst cases.
    #[serde(default)]
    pub ids: Vec<u64>,
}

impl RingParams {
    /// The identifiers of the `n` nodes, checked: one per node, all distinct.
    pub fn resolve(&self, n: usize) -> Result<Vec<u64>, String> {
        if self.ids.is_empty() {
            return Ok((0..n as u64).collect());
        }
        if self.ids.len() != n {
            return Err(format!(
                "params.ids has {} entries for {n} nodes",
                self.ids.len()
            ));
        }
        let mut sorted = self.ids.clone();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "params.ids must be distinct; {} appears twice",
                w[0]
            ));
        }
        Ok(self.ids.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_neighbours_and_ids() {
        assert_eq!((right(4, 5), left(0, 5)), (0, 4));
        assert_eq!(RingParams::default().resolve(3).unwrap(), vec![0, 1, 2]);
        let bad = RingParams { ids: vec![1, 1] };
        assert!(bad.resolve(2).unwrap_err().contains("distinct"));
        assert!(bad.resolve(3).unwrap_err().contains("3 nodes"));
    }
}
