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

/// The reliable link endpoint of one process.
#[derive(Clone, Debug)]
pub struct Link<M> {
    mode: Mode,
    next_seq: Vec<u64>,
    /// per receiver: (seq, message) not acknowledged yet, by increasing seq (acknowledgements
    /// are cumulative, so they remove a prefix); no allocation while empty
    unacked: Vec<VecDeque<(u64, M)>>,
    /// per sender: every seq up to here was received
    upto: Vec<u64>,
    /// per sender: received beyond `upto` (Fifo: waiting for the gap; Unordered: released);
    /// a message arriving in order never enters it
    ahead: Vec<BTreeMap<u64, Option<M>>>,
}

impl<M: Clone> Link<M> {
    /// An endpoint in a group of `n` processes.
    pub fn new(mode: Mode, n: usize) -> Self {
        Link {
            mode,
            next_seq: vec![1; n],
            unacked: (0..n).map(|_| VecDeque::new()).collect(),
            upto: vec![0; n],
            ahead: vec![BTreeMap::new(); n],
        }
    }

    /// Numbers `body` for `to` and keeps it until acknowledged; returns what to send.
    pub fn send(&mut self, to: NodeId, body: M) -> Wire<M> {
        let seq = self.next_seq[to];
        self.next_seq[to] += 1;
        if self.unacked[to].len() < MAX_UNACKED {
            self.unacked[to].push_back((seq, body.clone()));
        }
        Wire::Data { seq, body }
    }

    /// Handles an arrival from `from`: returns the payloads to release (in order) and the
    /// acknowledgement to send back, if any.
    pub fn receive(&mut self, from: NodeId, wire: Wire<M>) -> (Vec<M>, Option<Wire<M>>) {
        match wire {
            Wire::Ack { upto } => {
                let unacked = &mut self.unacked[from];
                while unacked.front().is_some_and(|&(seq, _)| seq <= upto) {
                    unacked.pop_front();
                }
                if unacked.is_empty() {
                    *unacked = VecDeque::new(); // give the memory back
                }
                (Vec::new(), None)
            }
            Wire::Data { seq, body } => {
                let mut out = Vec::new();
                if seq == self.upto[from] + 1 {
                    // in order (the common case): released at once, in either mode
                    self.upto[from] += 1;
                    out.push(body);
                    self.release_ahead(from, &mut out);
                } else if seq > self.upto[from] && !self.ahead[from].contains_key(&seq) {
                    match self.mode {
                        Mode::Fifo => {
                            self.ahead[from].insert(seq, Some(body));
                        }
                        Mode::Unordered => {
                            out.push(body);
                            self.ahead[from].insert(seq, None);
                        }
                    }
                    self.release_ahead(from, &mut out);
                }
                (
                    out,
                    Some(Wire::Ack {
                        upto: self.upto[from],
                    }),
                )
            }
        }
    }

    /// Moves `upto[from]` past the messages of `from` that were waiting in `ahead`, releasing
    /// those not released yet.
    fn release_ahead(&mut self, from: NodeId, out: &mut Vec<M>) {
        let ahead = &mut self.ahead[from];
        if ahead.is_empty() {
            return;
        }
        while let Some(next) = ahead.remove(&(self.upto[from] + 1)) {
            self.upto[from] += 1;
            out.extend(next);
        }
        if ahead.is_empty() {
            *ahead = BTreeMap::new(); // give the memory back
        }
    }

    /// Every unacknowledged message, to send again.
    pub fn unacked(&self) -> Vec<(NodeId, Wire<M>)> {
        let mut out = Vec::new();
        for (to, m) in self.unacked.iter().enumerate() {
            for (seq, body) in m.iter().map(|(seq, body)| (*seq, body)) {
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
        self.unacked.iter().any(|m| !m.is_empty())
    }

    /// Senders with messages received out of order and not yet released (Fifo mode).
    pub fn gaps(&self) -> BTreeSet<NodeId> {
        (0..self.ahead.len())
            .filter(|&s| self.ahead[s].values().any(Option::is_some))
            .collect()
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
