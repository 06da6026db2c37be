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

/// What one endpoint keeps of one peer, in one cache line: at n = 500 the 250,000 peers of a
/// group do not fit in a cache, and four separate tables (next seq, acknowledged prefix,
/// out-of-order map, retransmission buffer) were four misses a message, a seventh of a
/// 500-node causal multicast. A data message from the peer reads `upto` (and `more` only if
/// messages wait out of order); an acknowledgement reads `head` (and `more` only if more than
/// one message waits): with one message on a link at a time, the common case, neither
/// allocates nor leaves the line.
#[derive(Clone, Debug)]
#[repr(align(32))]
struct Peer<M> {
    /// every seq up to here was received from the peer (32 bits: a link numbers a message or
    /// two per multicast of the workload, whose inputs a scenario file of at most
    /// [`MAX_SCENARIO_BYTES`](sincro_harness::scenario::MAX_SCENARIO_BYTES) keeps far below
    /// 2^31; with a pointer-wide message the peer then fits in half a cache line)
    upto: u32,
    /// the seq of the next message to the peer
    next_seq: u32,
    /// the earliest message sent to the peer and not acknowledged yet, with its seq; `None`
    /// only while no other is waiting either
    head: Option<(u64, M)>,
    /// the rest, allocated only while something is in it
    more: Option<Box<More<M>>>,
}

/// The part of a [`Peer`] a link holding one message at a time never needs.
#[derive(Clone, Debug)]
struct More<M> {
    /// received beyond `upto` (Fifo: waiting for the gap; Unordered: released); a message
    /// arriving in order never enters it
    ahead: BTreeMap<u64, Option<M>>,
    /// the messages sent to the peer and not acknowledged after `head`, by increasing seq
    /// (acknowledgements are cumulative, so they remove a prefix)
    unacked: VecDeque<(u64, M)>,
}

impl<M> Default for More<M> {
    fn default() -> Self {
        More {
            ahead: BTreeMap::new(),
            unacked: VecDeque::new(),
        }
    }
}

impl<M> Peer<M> {
    fn new() -> Self {
        Peer {
            upto: 0,
            next_seq: 1,
            head: None,
            more: None,
        }
    }

    /// Frees `more` once it holds nothing.
    fn tidy(&mut self) {
        if self
            .more
            .as_ref()
            .is_some_and(|m| m.ahead.is_empty() && m.unacked.is_empty())
        {
            self.more = None;
        }
    }

    /// How many messages wait for an acknowledgement.
    fn unacked_len(&self) -> usize {
        usize::from(self.head.is_some()) + self.more.as_ref().map_or(0, |m| m.unacked.len())
    }

    /// Keeps message `seq` until acknowledged.
    fn keep(&mut self, seq: u64, body: M) {
        if self.head.is_none() {
            debug_assert!(self.more.as_ref().is_none_or(|m| m.unacked.is_empty()));
            self.head = Some((seq, body));
        } else {
            let more = self.more.get_or_insert_with(Box::default);
            more.unacked.push_back((seq, body));
        }
    }

    /// Drops every kept message up to `upto`.
    fn acknowledged(&mut self, upto: u64) {
        while self.head.as_ref().is_some_and(|&(seq, _)| seq <= upto) {
            self.head = self.more.as_mut().and_then(|m| m.unacked.pop_front());
        }
        self.tidy();
    }

    /// The kept messages, by increasing seq.
    fn unacked(&self) -> impl Iterator<Item = &(u64, M)> {
        self.head
            .iter()
            .chain(self.more.iter().flat_map(|m| m.unacked.iter()))
    }

    /// Whether message `seq` was received out of order (and is still waiting, or released).
    fn has_ahead(&self, seq: u64) -> bool {
        self.more
            .as_ref()
            .is_some_and(|m| m.ahead.contains_key(&seq))
    }

    /// Moves `upto` past the messages waiting in `ahead`, releasing those not released yet.
    fn release_ahead(&mut self, out: &mut Vec<M>) {
        let Some(more) = self.more.as_mut() else {
            return;
        };
        while let Some(next) = more.ahead.remove(&(u64::from(self.upto) + 1)) {
            self.upto += 1;
            out.extend(next);
        }
        self.tidy();
    }
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
            peers: (0..n).map(|_| Peer::new()).collect(),
        }
    }

    /// Numbers `body` for `to` and keeps it until acknowledged; returns what to send.
    pub fn send(&mut self, to: NodeId, body: M) -> Wire<M> {
        let peer = &mut self.peers[to];
        let seq = u64::from(peer.next_seq);
        peer.next_seq = peer
            .next_seq
            .checked_add(1)
            .expect("fewer than 2^32 messages on one link (a scenario's inputs are far fewer)");
        if peer.unacked_len() < MAX_UNACKED {
            peer.keep(seq, body.clone());
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
                peer.acknowledged(upto);
                None
            }
            Wire::Data { seq, body } => {
                let upto = u64::from(peer.upto);
                if seq == upto + 1 {
                    // in order (the common case): released at once, in either mode
                    peer.upto += 1;
                    out.push(body);
                    peer.release_ahead(out);
                } else if seq > upto && !peer.has_ahead(seq) {
                    let ahead = &mut peer.more.get_or_insert_with(Box::default).ahead;
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
                Some(Wire::Ack {
                    upto: u64::from(peer.upto),
                })
            }
        }
    }

    /// Every unacknowledged message, to send again.
    pub fn unacked(&self) -> Vec<(NodeId, Wire<M>)> {
        let mut out = Vec::new();
        for (to, peer) in self.peers.iter().enumerate() {
            for (seq, body) in peer.unacked() {
                out.push((
                    to,
                    Wire::Data {
                        seq: *seq,
                        body: body.clone(),
                    },
                ));
            }
        }
        out
    }

    /// True while something is not acknowledged.
    pub fn pending(&self) -> bool {
        self.peers.iter().any(|p| p.head.is_some())
    }

    /// Senders with messages received out of order and not yet released (Fifo mode).
    pub fn gaps(&self) -> BTreeSet<NodeId> {
        (0..self.peers.len())
            .filter(|&s| {
                self.peers[s]
                    .more
                    .as_ref()
                    .is_some_and(|m| m.ahead.values().any(Option::is_some))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A causal multicast's peer state is half a cache line: two of them share a line, where a
    /// 500-node group's 250,000 of them took 16 MB.
    #[test]
    fn a_causal_peer_is_half_a_cache_line() {
        assert_eq!(
            std::mem::size_of::<Peer<crate::ordering::causal::Body>>(),
            32
        );
        assert_eq!(
            std::mem::align_of::<Peer<crate::ordering::causal::Body>>(),
            32
        );
    }

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
    fn the_kept_messages_stay_in_order_across_the_head_and_the_rest() {
        let mut l: Link<String> = Link::new(Mode::Fifo, 2);
        for body in ["a", "b", "c", "d"] {
            l.send(1, body.into());
        }
        assert_eq!(
            l.unacked(),
            vec![
                (1, data(1, "a")),
                (1, data(2, "b")),
                (1, data(3, "c")),
                (1, data(4, "d"))
            ]
        );
        l.receive(1, Wire::Ack { upto: 2 });
        assert_eq!(l.unacked(), vec![(1, data(3, "c")), (1, data(4, "d"))]);
        l.send(1, "e".into());
        l.receive(1, Wire::Ack { upto: 3 });
        assert_eq!(l.unacked(), vec![(1, data(4, "d")), (1, data(5, "e"))]);
        l.receive(1, Wire::Ack { upto: 5 });
        assert!(!l.pending());
        assert!(l.peers[1].more.is_none(), "the rest's memory is given back");
        l.send(1, "f".into());
        assert_eq!(l.unacked(), vec![(1, data(6, "f"))]);
        assert!(l.peers[1].more.is_none(), "one message is kept in place");
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
