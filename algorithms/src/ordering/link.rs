//! Reliable point-to-point channels over a lossy, duplicating, reordering network: per-link
//! sequence numbers, cumulative acknowledgements, periodic retransmission of what is not
//! acknowledged, and duplicate suppression.
//!
//! The ordered multicasts of §6.2 assume that "no message is lost" (and totally ordered
//! multicast also that messages from one sender arrive in the order sent). This layer provides
//! exactly that so the algorithms above it can be fuzzed with loss, duplication, reordering and
//! partitions: in [`Mode::Fifo`] a receiver releases each sender's messages in sequence order;
//! in [`Mode::Unordered`] it releases each message once, as soon as it arrives (causal
//! multicast does its own ordering with vector clocks). It keeps no state across crashes.

use serde::{Deserialize, Serialize};
use sincro_harness::NodeId;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// What travels on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wire<M> {
    /// A message, numbered per (sender, receiver) link from 1.
    Data {
        /// Sequence number on this link.
        seq: u64,
        /// The payload.
        body: M,
    },
    /// "I hold every message of yours up to `upto`."
    Ack {
        /// Highest contiguous sequence number received.
        upto: u64,
    },
}

/// Release order at the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Each sender's messages in the order sent.
    Fifo,
    /// Each message once, on arrival.
    Unordered,
}

/// Most unacknowledged messages kept per link; beyond it, sends fail (a run limit, not a
/// protocol feature: the workloads stay far below it).
pub const MAX_UNACKED: usize = 100_000;

/// What one endpoint keeps of one peer, in one cache line: a delivery from a peer touches
/// `upto` and `ahead`, an acknowledgement `unacked`, and at n = 500 the 250,000 peers of a
/// group do not fit in a cache (four separate tables were four misses a message, a seventh of
/// a 500-node causal multicast).
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Peer<M> {
    /// every seq up to here was received from the peer
    upto: u64,
    /// the seq of the next message to the peer
    next_seq: u64,
    /// received beyond `upto` (Fifo: waiting for the gap; Unordered: released); a message
    /// arriving in order never enters it, and it is not allocated while empty (boxed: a map
    /// in place is 24 bytes, which would make a peer two cache lines)
    #[allow(clippy::box_collection)]
    ahead: Option<Box<BTreeMap<u64, Option<M>>>>,
    /// (seq, message) sent to the peer and not acknowledged yet, by increasing seq
    /// (acknowledgements are cumulative, so they remove a prefix); no allocation while empty
    unacked: VecDeque<(u64, M)>,
}

/// The reliable link endpoint of one process.
#[derive(Clone, Debug)]
pub struct Link<M> {
    mode: Mode,
    peers: Vec<Peer<M>>,
}

impl<M: Clone> Link<M> {
    /// An endpoint in a group of `n` processes.
    pub fn new(mode: Mode, n: usize) -> Self {
        Link {
            mode,
            peers: (0..n)
                .map(|_| Peer {
                    upto: 0,
                    next_seq: 1,
                    ahead: None,
                    unacked: VecDeque::new(),
                })
                .collect(),
        }
    }

    /// Numbers `body` for `to` and keeps it until acknowledged; returns what to send.
    pub fn send(&mut self, to: NodeId, body: M) -> Wire<M> {
        let peer = &mut self.peers[to];
        let seq = peer.next_seq;
        peer.next_seq += 1;
        if peer.unacked.len() < MAX_UNACKED {
            if peer.unacked.capacity() == 0 {
                // Room for one: a link often holds one message at a time, and the default
                // first allocation (four) made a 500-node group's retransmission buffers
                // four times the memory, each page of it faulted in and zeroed.
                peer.unacked.reserve_exact(1);
            }
            peer.unacked.push_back((seq, body.clone()));
        }
        Wire::Data { seq, body }
    }

    /// Handles an arrival from `from`: returns the payloads to release (in order) and the
    /// acknowledgement to send back, if any.
    pub fn receive(&mut self, from: NodeId, wire: Wire<M>) -> (Vec<M>, Option<Wire<M>>) {
        let mut out = Vec::new();
        let ack = self.receive_into(from, wire, &mut out);
        (out, ack)
    }

    /// [`Self::receive`], appending the payloads to release to `out` (a buffer the caller
    /// keeps, so an arrival allocates nothing).
    pub fn receive_into(
        &mut self,
        from: NodeId,
        wire: Wire<M>,
        out: &mut Vec<M>,
    ) -> Option<Wire<M>> {
        let mode = self.mode;
        let peer = &mut self.peers[from];
        match wire {
            Wire::Ack { upto } => {
                let unacked = &mut peer.unacked;
                while unacked.front().is_some_and(|&(seq, _)| seq <= upto) {
                    unacked.pop_front();
                }
                if unacked.is_empty() {
                    *unacked = VecDeque::new(); // give the memory back
                }
                None
            }
            Wire::Data { seq, body } => {
                if seq == peer.upto + 1 {
                    // in order (the common case): released at once, in either mode
                    peer.upto += 1;
                    out.push(body);
                    peer.release_ahead(out);
                } else if seq > peer.upto
                    && !peer.ahead.as_ref().is_some_and(|a| a.contains_key(&seq))
                {
                    let ahead = peer.ahead.get_or_insert_with(Box::default);
                    match mode {
                        Mode::Fifo => {
                            ahead.insert(seq, Some(body));
                        }
                        Mode::Unordered => {
                            out.push(body);
                            ahead.insert(seq, None);
                        }
                    }
                    peer.release_ahead(out);
                }
                Some(Wire::Ack { upto: peer.upto })
            }
        }
    }

    /// Every unacknowledged message, to send again.
    pub fn unacked(&self) -> Vec<(NodeId, Wire<M>)> {
        let mut out = Vec::new();
        for (to, peer) in self.peers.iter().enumerate() {
            for (seq, body) in peer.unacked.iter().map(|(seq, body)| (*seq, body)) {
                out.push((
                    to,
                    Wire::Data {
                        seq,
                        body: body.clone(),
                    },
                ));
            }
        }
        out
    }

    /// True while something is not acknowledged.
    pub fn pending(&self) -> bool {
        self.peers.iter().any(|p| !p.unacked.is_empty())
    }

    /// Senders with messages received out of order and not yet released (Fifo mode).
    pub fn gaps(&self) -> BTreeSet<NodeId> {
        (0..self.peers.len())
            .filter(|&s| {
                self.peers[s]
                    .ahead
                    .as_ref()
                    .is_some_and(|a| a.values().any(Option::is_some))
            })
            .collect()
    }
}

impl<M> Peer<M> {
    /// Moves `upto` past the messages waiting in `ahead`, releasing those not released yet.
    fn release_ahead(&mut self, out: &mut Vec<M>) {
        let Some(ahead) = self.ahead.as_mut() else {
            return;
        };
        while let Some(next) = ahead.remove(&(self.upto + 1)) {
            self.upto += 1;
            out.extend(next);
        }
        if ahead.is_empty() {
            self.ahead = None; // give the memory back
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, body: &str) -> Wire<String> {
        Wire::Data {
            seq,
            body: body.into(),
        }
    }

    #[test]
    fn fifo_releases_in_order_once_and_acks_cumulatively() {
        let mut l: Link<String> = Link::new(Mode::Fifo, 2);
        let (out, ack) = l.receive(0, data(2, "b"));
        assert!(out.is_empty());
        assert_eq!(ack, Some(Wire::Ack { upto: 0 }));
        assert_eq!(l.gaps(), BTreeSet::from([0]));
        let (out, ack) = l.receive(0, data(1, "a"));
        assert_eq!(out, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(ack, Some(Wire::Ack { upto: 2 }));
        let (out, _) = l.receive(0, data(1, "a"));
        assert!(out.is_empty(), "a duplicate is not released again");
    }

    #[test]
    fn unordered_releases_on_arrival_once() {
        let mut l: Link<String> = Link::new(Mode::Unordered, 2);
        assert_eq!(l.receive(1, data(2, "b")).0, vec!["b".to_string()]);
        assert!(l.receive(1, data(2, "b")).0.is_empty());
        assert_eq!(l.receive(1, data(1, "a")).0, vec!["a".to_string()]);
        assert!(l.receive(1, data(1, "a")).0.is_empty());
        assert!(l.gaps().is_empty());
    }

    #[test]
    fn a_peer_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Peer<String>>(), 64);
        assert_eq!(std::mem::align_of::<Peer<String>>(), 64);
    }

    #[test]
    fn the_sender_keeps_what_is_not_acked() {
        let mut l: Link<String> = Link::new(Mode::Fifo, 3);
        l.send(1, "a".into());
        l.send(1, "b".into());
        l.send(2, "c".into());
        assert_eq!(l.unacked().len(), 3);
        l.receive(1, Wire::Ack { upto: 1 });
        assert_eq!(l.unacked(), vec![(1, data(2, "b")), (2, data(1, "c"))]);
        l.receive(1, Wire::Ack { upto: 2 });
        l.receive(2, Wire::Ack { upto: 1 });
        assert!(!l.pending());
    }
}
