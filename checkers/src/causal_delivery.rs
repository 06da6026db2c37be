//! Causal delivery: if `multicast(m) → multicast(m')` then every node that delivers both
//! delivers `m` before `m'` (Tanenbaum & van Steen §6.2.2).
//!
//! Happens-before here is Lamport's relation over the application's events, computed by the
//! checker from the `multicast` and `delivered` observations (program order at each node, and
//! `multicast(m)` before every `delivered(m)`), never from the algorithm's clocks. A message
//! that reached a node's middleware but was not delivered yet creates no dependency: causal
//! multicast orders what the application saw. Since one sender's multicasts are ordered by its
//! program order, the causal past of a multicast is a vector of per-sender counts, and node `j`
//! may deliver `m'` only when it has delivered every message of that past. Delivering a message
//! twice is reported too.
//!
//! A sender's own multicasts are in its causal past by program order, whether or not it
//! delivers them to itself: it need not self-deliver. When it does, the order rule holds for
//! those deliveries too — delivering its own `m` after a message `m'` it already delivered,
//! with `multicast(m) → multicast(m')`, is reported.
//!
//! # Contract
//!
//! - **Reads:** `multicast` and `delivered` observations of nodes in `0..nodes` (messages are
//!   matched by their application id). Multicasting an id twice and delivering an id twice at
//!   one node are reported. A node delivering `m'` must first have delivered every message of
//!   `m'`'s causal past sent by *other* nodes; its own multicasts are already in its past (it
//!   may deliver them to itself, or not, but not after something they precede). A `delivered` of
//!   an id not multicast by the end of its instant creates no dependency and is not judged;
//!   a multicast of that id at a later instant is reported (a delivery before its send), and
//!   a trace whose deliveries are all of such ids could not be judged. **Events at one instant are unordered across nodes**: a delivery
//!   listed before its message's multicast of the same instant is judged after it (with its
//!   node's later events of the instant), so the verdict does not depend on the trace's line
//!   order; a delivery that no order puts after its multicast (listed before it at its own
//!   node, or in a cycle of such at one instant) is reported. Ignored: transport events
//!   (`send`, `deliver`, drops), crashes and restarts (a restarted node keeps what it delivered
//!   before, so delivering a message again after a restart is reported as delivered twice),
//!   partitions, pauses.
//! - **Settings:** the node count only. No quiet time, no bound.
//! - **When the run ends before it can judge:** `finish` judges the last instant; nothing else
//!   is pending. A message
//!   never delivered somewhere is not a violation here: this checks order, not delivery.
//! - **Class:** safety.

use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Checker, NodeId, Observation, PropertyClass, Violation};
use std::collections::HashMap;

/// Property name.
pub const PROPERTY: &str = "causal_delivery";

#[derive(Debug, Clone)]
struct Sent {
    id: String,
    sender: NodeId,
    /// causal past: per sender, how many of its multicasts precede (this one included);
    /// shared, so judging a delivery does not copy it
    past: std::sync::Arc<[u32]>,
    event: u64,
}

/// The causal delivery checker.
#[derive(Debug)]
pub struct CausalDelivery {
    nodes: usize,
    /// message id -> its index in `sent` (one string lookup per event; the rest is by index).
    /// Hashed with fixed keys and only looked up, never iterated: no order can leak from it.
    /// A tree compared about nine ids per lookup at n = 500, 5 % of the run; SipHash was 3 %.
    index: HashMap<String, u32, rustc_hash::FxBuildHasher>,
    /// every multicast, in order
    sent: Vec<Sent>,
    /// per sender, its multicasts in order (indices in `sent`)
    by_sender: Vec<Vec<u32>>,
    /// per node, how many messages it multicast
    own: Vec<u32>,
    /// per node, its causal past merged delivery by delivery: what [`Self::past_of`] gives
    /// without the merge, checked against it at every multicast in debug builds
    #[cfg(debug_assertions)]
    merged_past: Vec<Vec<u32>>,
    /// A violation was reported: the merged pasts no longer follow (nothing is promised of
    /// a checker called after its first violation).
    #[cfg(debug_assertions)]
    violated: bool,
    /// per node, what it delivered (see [`Deliveries`])
    delivered: Vec<Deliveries>,
    /// per node, per sender: length of the prefix of that sender's multicasts all delivered
    /// (a node's row is made, `nodes` entries, when it first multicasts or delivers: a trace
    /// of 10,000 nodes that multicast nothing took 400 MB for rows never read)
    prefix: Vec<Vec<u32>>,
    /// Entries held in `prefix` rows and multicasts' pasts, at most `entries_max`.
    entries: usize,
    /// [`ENTRIES_MAX`] unless set lower ([`CausalDelivery::with_entries_max`]).
    entries_max: usize,
    /// per node: of what it delivered, the message whose causal past holds the most of the
    /// node's own multicasts — (that count, message id, delivery event)
    own_in_past: Vec<Option<(u32, String, u64)>>,
    /// the current instant; its events judged at its end, in trace order (deliveries listed
    /// before their multicast of the same instant, and what their node does after them)
    now_ns: u64,
    deferred: Vec<Event>,
    /// the nodes with events in `deferred`
    waiting: std::collections::BTreeSet<NodeId>,
    /// close instants with the scan that rescans the instant for every event (the reference
    /// the tests compare [`Self::close_instant`] with)
    #[cfg(test)]
    naive_close: bool,
    /// deliveries of an id no node had multicast by the end of their instant, by id: (node,
    /// event, time) of the first; a multicast of that id later is a delivery before its send
    orphans: std::collections::BTreeMap<String, (NodeId, u64, u64)>,
    /// deliveries judged (their multicast known)
    judged: u64,
    /// More multicasts than [`MULTICASTS_MAX`]: nothing more is judged (could not judge).
    overflowed: bool,
    /// More entries than `entries_max` needed: nothing more is judged (could not judge).
    over_memory: bool,
}

/// The most entries (`u32`, 256 MiB) the checker holds in its per-node rows and the pasts of
/// the multicasts, each `nodes` long, as the ground-truth happens-before does
/// ([`HappensBefore::ENTRIES_MAX`](sincro_harness::trace::HappensBefore::ENTRIES_MAX)): past
/// it the checker stops and cannot judge the rest, instead of taking the machine's memory.
pub const ENTRIES_MAX: usize = 1 << 26;

/// The most multicasts the checker judges: every count it compares stays below 2^31, so
/// [`all_within`] compares by the sign of a wrapping subtraction, which vectorizes on every
/// x86-64 (an unsigned compare does not: it was a tenth of a 500-node run). No run or trace
/// file comes near it (a trace file holds at most about 2^25 events).
const MULTICASTS_MAX: usize = (1 << 31) - 1;

impl CausalDelivery {
    /// A checker for a run of `nodes` nodes.
    pub fn new(nodes: usize) -> Self {
        Self::with_entries_max(nodes, ENTRIES_MAX)
    }

    /// [`CausalDelivery::new`], holding at most `entries_max` entries (of `nodes` per node
    /// that multicasts or delivers, and per multicast) before it stops and cannot judge.
    pub fn with_entries_max(nodes: usize, entries_max: usize) -> Self {
        CausalDelivery {
            nodes,
            index: HashMap::default(),
            sent: Vec::new(),
            by_sender: vec![Vec::new(); nodes],
            own: vec![0; nodes],
            #[cfg(debug_assertions)]
            merged_past: vec![Vec::new(); nodes],
            #[cfg(debug_assertions)]
            violated: false,
            delivered: vec![Deliveries::default(); nodes],
            prefix: vec![Vec::new(); nodes],
            entries: 0,
            entries_max,
            own_in_past: vec![None; nodes],
            now_ns: 0,
            deferred: Vec::new(),
            waiting: std::collections::BTreeSet::new(),
            #[cfg(test)]
            naive_close: false,
            orphans: Default::default(),
            judged: 0,
            overflowed: false,
            over_memory: false,
        }
    }

    /// Holds `more` entries, unless that goes past [`ENTRIES_MAX`]: then `false`, and the
    /// checker stops judging.
    fn hold(&mut self, more: usize) -> bool {
        match self.entries.checked_add(more) {
            Some(total) if total <= self.entries_max => {
                self.entries = total;
                true
            }
            _ => {
                self.over_memory = true;
                false
            }
        }
    }

    /// Makes node `j`'s row of delivered prefixes; `false` when the memory limit stops it.
    fn make_row(&mut self, j: NodeId) -> bool {
        if !self.prefix[j].is_empty() {
            return true;
        }
        if !self.hold(self.nodes) {
            return false;
        }
        self.prefix[j] = vec![0; self.nodes];
        #[cfg(debug_assertions)]
        {
            self.merged_past[j] = vec![0; self.nodes];
        }
        true
    }

    /// The causal past of node `j`'s next multicast (its own count already raised): per
    /// sender, the messages of `j`'s past. A delivery counts only once judged, and a judged
    /// delivery of `m` from `s` found every message of `m`'s past from the other senders
    /// delivered and `s`'s earlier ones too; so the messages `j` delivered from each sender
    /// `k` form a prefix of `k`'s multicasts, that prefix holds `k`'s part of every delivered
    /// message's past, and `j`'s past is its delivered prefixes and its own count. No
    /// per-delivery merge of `n` entries, which was a third of the checker at n = 500.
    fn past_of(&self, j: NodeId) -> std::sync::Arc<[u32]> {
        let mut past = self.prefix[j].clone();
        past[j] = self.own[j];
        past.into()
    }

    fn advance_prefix(&mut self, j: NodeId, s: NodeId) {
        loop {
            let p = self.prefix[j][s] as usize;
            match self.by_sender[s].get(p) {
                Some(&m) if self.delivered[j].has(m) => self.prefix[j][s] += 1,
                _ => break,
            }
        }
    }
}

impl Checker for CausalDelivery {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        if ev.t_ns != self.now_ns {
            self.close_instant()?;
            self.now_ns = ev.t_ns;
        }
        let Some(node) = ev.node.filter(|&n| n < self.nodes) else {
            return Ok(());
        };
        // The delivered message's index, looked up once for both questions.
        let (unknown, found) = match &ev.kind {
            EventKind::Observe {
                obs: Observation::Delivered { id },
            } => {
                let found = self.index.get(id).copied();
                (found.is_none(), found)
            }
            EventKind::Observe {
                obs: Observation::Multicast { .. },
            } => (false, None),
            _ => return Ok(()),
        };
        if unknown || self.waiting.contains(&node) {
            // Its multicast may come later in this instant, listed after it: judged when the
            // instant closes (and so is everything its node does after it in the instant).
            self.deferred.push(ev.clone());
            self.waiting.insert(node);
            return Ok(());
        }
        self.judge_found(ev, found)
    }

    fn finish(&mut self, _end_t_ns: u64) -> Result<(), Violation> {
        self.close_instant()
    }

    fn could_not_judge(&self) -> Option<String> {
        if self.overflowed {
            return Some(format!(
                "more than {MULTICASTS_MAX} multicasts: the checker judges no more than that"
            ));
        }
        if self.over_memory {
            return Some(format!(
                "the causal pasts of this trace's multicasts need more than {} entries ({} \
                 nodes each): the checker stopped at that memory limit, after {} judged \
                 deliveries",
                self.entries_max, self.nodes, self.judged
            ));
        }
        // Deliveries, none of a message anyone multicast: nothing was judged (an algorithm
        // that never observes its multicasts).
        (self.judged == 0 && !self.orphans.is_empty()).then(|| {
            format!(
                "{} messages were delivered, none of them multicast (no `multicast` \
                 observation of their ids): no delivery could be judged",
                self.orphans.len()
            )
        })
    }
}

impl CausalDelivery {
    /// [`Self::judge`], remembering a violation (debug builds).
    fn judge_one(&mut self, ev: &Event) -> Result<(), Violation> {
        let found = match &ev.kind {
            EventKind::Observe {
                obs: Observation::Delivered { id },
            } => self.index.get(id).copied(),
            _ => None,
        };
        self.judge_found(ev, found)
    }

    /// [`Self::judge_one`] of an event whose message index (of a delivery) is already looked
    /// up: `found`, `None` for a multicast or a delivery of an unknown id.
    fn judge_found(&mut self, ev: &Event, found: Option<u32>) -> Result<(), Violation> {
        let result = self.judge(ev, found);
        #[cfg(debug_assertions)]
        {
            self.violated |= result.is_err();
        }
        result
    }

    /// Judges the instant's deferred events in an order the trace's lines do not decide: each
    /// node's in its program order, a delivery after its message's multicast when that is in
    /// the instant too (the first such event in trace order each time; any order keeping
    /// those two rules gives the same verdict). A delivery whose multicast is nowhere before
    /// the end of the instant stays unjudged, as one never multicast; one that no order puts
    /// after its multicast (behind it at its own node, or in a cycle of such) is a violation.
    ///
    /// Each node's events queue in trace order; a head is ready when it is no delivery, or
    /// its message's multicast was judged or is nowhere left in the instant. The ready heads
    /// are kept by trace position and the blocked ones by the id they wait for, so each
    /// event is judged in O(log k) (it rescanned the instant for every event: 15,000 events at
    /// one instant did not end in 120 s).
    fn close_instant(&mut self) -> Result<(), Violation> {
        use std::collections::{BTreeMap, BTreeSet, VecDeque};
        #[cfg(test)]
        if self.naive_close {
            return self.close_instant_naive();
        }
        if self.deferred.is_empty() {
            // Nothing was deferred (the common case: an instant closes at every change of
            // time): the tables below were built and dropped empty, about 370 instructions
            // a close, 8 % of a 300-node causal multicast.
            debug_assert!(
                self.waiting.is_empty(),
                "a waiting node has deferred events"
            );
            return Ok(());
        }
        let mut rest: Vec<Option<Event>> = std::mem::take(&mut self.deferred)
            .into_iter()
            .map(Some)
            .collect();
        self.waiting.clear();
        let delivered = |e: &Event| match &e.kind {
            EventKind::Observe {
                obs: Observation::Delivered { id },
            } => Some(id.clone()),
            _ => None,
        };
        // Each node's events, in trace order; the multicasts of each id still to judge.
        let mut queues: BTreeMap<Option<NodeId>, VecDeque<usize>> = BTreeMap::new();
        let mut multicasts: BTreeMap<String, usize> = BTreeMap::new();
        for (i, e) in rest.iter().enumerate() {
            let e = e.as_ref().expect("all here");
            queues.entry(e.node).or_default().push_back(i);
            if let EventKind::Observe {
                obs: Observation::Multicast { id },
            } = &e.kind
            {
                *multicasts.entry(id.clone()).or_default() += 1;
            }
        }
        let mut ready: BTreeSet<usize> = BTreeSet::new();
        let mut blocked: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        // Files head `i` as ready or blocked on the id it waits for.
        let file = |i: usize,
                    this: &Self,
                    rest: &[Option<Event>],
                    multicasts: &BTreeMap<String, usize>,
                    ready: &mut BTreeSet<usize>,
                    blocked: &mut BTreeMap<String, Vec<usize>>| {
            match delivered(rest[i].as_ref().expect("not judged yet")) {
                Some(id)
                    if !this.index.contains_key(&id)
                        && multicasts.get(&id).is_some_and(|&c| c > 0) =>
                {
                    blocked.entry(id).or_default().push(i);
                }
                _ => {
                    ready.insert(i);
                }
            }
        };
        for q in queues.values() {
            let head = *q.front().expect("a queue holds an event");
            file(head, self, &rest, &multicasts, &mut ready, &mut blocked);
        }
        let mut left = rest.len();
        while left > 0 {
            let Some(next) = ready.pop_first() else {
                // Every node's next event is a delivery whose multicast waits behind another
                // such delivery: a delivery before its own multicast in every order. The
                // first event left in trace order is a head (its node's earlier ones are
                // judged), so the first blocked head.
                let first = blocked.values().flatten().min().copied();
                let ev = rest[first.expect("events are left")].take().expect("left");
                let id = delivered(&ev).expect("only a delivery waits");
                return Err(Violation {
                    property: PROPERTY.into(),
                    class: PropertyClass::Safety,
                    explanation: format!(
                        "node {} delivered {id} before its multicast: no order of the events at \
                         {:.6} ms puts the multicast first",
                        ev.node.unwrap_or_default(),
                        ev.t_ns as f64 / 1e6
                    ),
                    t_ns: ev.t_ns,
                    events: vec![ev.id],
                });
            };
            let ev = rest[next].take().expect("a head is judged once");
            left -= 1;
            self.judge_one(&ev)?;
            let q = queues.get_mut(&ev.node).expect("its node's queue");
            assert_eq!(
                q.pop_front(),
                Some(next),
                "a node's events are judged in order"
            );
            if let Some(&head) = q.front() {
                file(head, self, &rest, &multicasts, &mut ready, &mut blocked);
            }
            if let EventKind::Observe {
                obs: Observation::Multicast { id },
            } = &ev.kind
            {
                let c = multicasts.get_mut(id).expect("counted");
                *c -= 1;
                if let Some(waiting) = blocked.remove(id) {
                    for i in waiting {
                        file(i, self, &rest, &multicasts, &mut ready, &mut blocked);
                    }
                }
            }
        }
        Ok(())
    }
}

impl CausalDelivery {
    /// [`Checker::on_event`]; `found` is the index in `sent` of a delivered message (`None`
    /// for a multicast, or a delivery of an id not multicast).
    fn judge(&mut self, ev: &Event, found: Option<u32>) -> Result<(), Violation> {
        let Some(node) = ev.node.filter(|&n| n < self.nodes) else {
            return Ok(());
        };
        let EventKind::Observe { obs } = &ev.kind else {
            return Ok(());
        };
        if self.overflowed || self.over_memory {
            return Ok(());
        }
        let reads = matches!(
            obs,
            Observation::Multicast { .. } | Observation::Delivered { .. }
        );
        if reads && !self.make_row(node) {
            return Ok(());
        }
        let fail = |explanation: String, events: Vec<u64>| Violation {
            property: PROPERTY.into(),
            class: PropertyClass::Safety,
            explanation,
            t_ns: ev.t_ns,
            events,
        };
        match obs {
            Observation::Multicast { id } => {
                if self.sent.len() >= MULTICASTS_MAX {
                    self.overflowed = true;
                    return Ok(());
                }
                if let Some(&m) = self.index.get(id) {
                    return Err(fail(
                        format!("node {node} multicast message {id} a second time"),
                        vec![self.sent[m as usize].event, ev.id],
                    ));
                }
                if let Some(&(d, first, t)) = self.orphans.get(id) {
                    return Err(fail(
                        format!(
                            "node {d} delivered message {id} at {:.3} ms, before node {node} \
                             multicast it",
                            t as f64 / 1e6
                        ),
                        vec![first, ev.id],
                    ));
                }
                if !self.hold(self.nodes) {
                    return Ok(());
                }
                self.own[node] += 1;
                let past = self.past_of(node);
                #[cfg(debug_assertions)]
                {
                    self.merged_past[node][node] += 1;
                    if !self.violated {
                        assert_eq!(&past[..], &self.merged_past[node][..], "node {node}'s past");
                    }
                }
                let m = self.sent.len() as u32;
                self.index.insert(id.clone(), m);
                self.sent.push(Sent {
                    id: id.clone(),
                    sender: node,
                    past,
                    event: ev.id,
                });
                self.by_sender[node].push(m);
                self.advance_prefix(node, node);
            }
            Observation::Delivered { id } => {
                debug_assert_eq!(found, self.index.get(id).copied());
                let Some(mi) = found else {
                    // delivered without any multicast so far: causality cannot be judged; a
                    // multicast of it later is a delivery before its send
                    self.orphans
                        .entry(id.clone())
                        .or_insert((node, ev.id, ev.t_ns));
                    return Ok(());
                };
                self.judged += 1;
                let m = &self.sent[mi as usize];
                let (sender, past, event) = (m.sender, &m.past, m.event);
                if let Some(first) = self.delivered[node].event(mi) {
                    return Err(fail(
                        format!("node {node} delivered message {id} twice"),
                        vec![first, ev.id],
                    ));
                }
                if sender == node {
                    // Its own multicast, delivered to itself: nothing it already delivered
                    // may have this one in its causal past.
                    let index = past[node]; // this message is the index-th of the node's
                    if let Some((count, later, at)) = &self.own_in_past[node] {
                        if *count >= index {
                            return Err(fail(
                                format!(
                                    "node {node} delivered {later} before {id}, although the multicast of {id} (node {node}) happened before the multicast of {later}"
                                ),
                                vec![event, *at, ev.id],
                            ));
                        }
                    }
                }
                // Fast path: every entry but the sender's and the node's own is compared in
                // branch-free runs (vectorized); the exact scan below runs only on a failure.
                if !all_within(past, &self.prefix[node], sender, node) {
                    self.missing_past(node, sender, past, event, ev, id)?;
                }
                self.delivered[node].set(mi, ev.id);
                let own = past[node];
                if own > 0
                    && self.own_in_past[node]
                        .as_ref()
                        .is_none_or(|(count, _, _)| own > *count)
                {
                    self.own_in_past[node] = Some((own, id.clone(), ev.id));
                }
                #[cfg(debug_assertions)]
                for (c, s) in self.merged_past[node].iter_mut().zip(past.iter()) {
                    *c = (*c).max(*s);
                }
                self.advance_prefix(node, sender);
            }
            _ => {}
        }
        Ok(())
    }
}

/// What one node delivered, by message index in `sent`: a bit a message, read on every
/// delivery (whether it is a second one) and while its delivered prefixes grow, and the
/// delivery event, read only to report a violation. At n = 500 the bits of every node take
/// 32 KiB and stay in the cache, where a table of events (8 KiB a node) missed it on most
/// deliveries (a fifth of the checker). Both are as long as the last index delivered.
#[derive(Debug, Clone, Default)]
struct Deliveries {
    bits: Vec<u64>,
    events: Vec<u64>,
}

impl Deliveries {
    /// Whether message `m` was delivered.
    #[inline]
    fn has(&self, m: u32) -> bool {
        let m = m as usize;
        self.bits
            .get(m / 64)
            .is_some_and(|w| w >> (m % 64) & 1 == 1)
    }

    /// The event at which message `m` was delivered, if it was.
    fn event(&self, m: u32) -> Option<u64> {
        self.has(m).then(|| self.events[m as usize])
    }

    /// Records that message `m` was delivered at event `event`.
    fn set(&mut self, m: u32, event: u64) {
        let m = m as usize;
        if self.events.len() <= m {
            self.events.resize(m + 1, 0);
            self.bits.resize(m / 64 + 1, 0);
        }
        self.events[m] = event;
        self.bits[m / 64] |= 1 << (m % 64);
    }
}

/// Whether node `node`'s delivered prefixes cover the causal past `past` of a message of
/// `sender`: `prefix[k] >= past[k]` for every other sender `k`, `prefix[sender] >=
/// past[sender] - 1` (the message itself is the sender's next), the node's own entry skipped.
fn all_within(past: &[u32], prefix: &[u32], sender: NodeId, node: NodeId) -> bool {
    debug_assert_eq!(past.len(), prefix.len());
    let (lo, hi) = (sender.min(node), sender.max(node));
    // `a > b` or-ed over a run, with no early exit, so the loop vectorizes: every value is
    // below 2^31 (at most [`MULTICASTS_MAX`] multicasts), so `a > b` is the sign bit of
    // `b - a` (wrapping), one subtraction and one `or` per 4 entries on any x86-64.
    debug_assert!(past
        .iter()
        .chain(prefix)
        .all(|&x| x as usize <= MULTICASTS_MAX));
    let short = |a: &[u32], b: &[u32]| -> u32 {
        a.iter()
            .zip(b)
            .fold(0u32, |acc, (&x, &y)| acc | y.wrapping_sub(x))
    };
    let mut bad = short(&past[..lo], &prefix[..lo]);
    if lo < hi {
        bad |= short(&past[lo + 1..hi], &prefix[lo + 1..hi]);
    }
    if hi + 1 < past.len() {
        bad |= short(&past[hi + 1..], &prefix[hi + 1..]);
    }
    bad >> 31 == 0 && (sender == node || past[sender].saturating_sub(1) <= prefix[sender])
}

impl CausalDelivery {
    /// The violation of a delivery by `node` of message `id` (of `sender`, causal past
    /// `past`, multicast at event `event`) whose past it has not all delivered: the first
    /// sender whose message is missing, in node order. Called when [`all_within`] says
    /// something is missing; `Ok` only if nothing is.
    fn missing_past(
        &self,
        node: NodeId,
        sender: NodeId,
        past: &[u32],
        event: u64,
        ev: &Event,
        id: &str,
    ) -> Result<(), Violation> {
        for (k, (&past_k, &prefix_k)) in past.iter().zip(&self.prefix[node]).enumerate() {
            if k == node {
                // the node's own multicasts are in its past by program order
                continue;
            }
            let need = if k == sender {
                past_k.saturating_sub(1)
            } else {
                past_k
            };
            if prefix_k < need {
                let missing = &self.sent[self.by_sender[k][prefix_k as usize] as usize];
                let (before, missing) = (missing.event, &missing.id);
                return Err(Violation {
                            property: PROPERTY.into(),
                            class: PropertyClass::Safety,
                            explanation: format!(
                                "node {node} delivered {id} before {missing}, although the multicast of {missing} (node {k}) happened before the multicast of {id} (node {})",
                                sender
                            ),
                            t_ns: ev.t_ns,
                            events: vec![before, event, ev.id],
                        });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_events::{delivered, multicast};
    use sincro_harness::check::check_trace;
    use sincro_harness::Trace;

    fn run(events: Vec<Event>) -> Result<(), Violation> {
        let trace = Trace::new(3, events);
        let mut cs: Vec<Box<dyn Checker>> = vec![Box::new(CausalDelivery::new(3))];
        check_trace(&trace, 1_000, &mut cs)
    }

    /// Rows are made for the nodes that multicast or deliver, and past the memory limit the
    /// checker stops: could not judge, never a pass, and no violation of the rest reported.
    #[test]
    fn rows_are_made_when_needed_and_the_memory_limit_stops_the_checker() {
        let mut big = CausalDelivery::new(100_000);
        let leader = Event {
            id: 0,
            t_ns: 0,
            node: Some(5),
            local_ns: Some(0),
            kind: EventKind::Observe {
                obs: Observation::Leader {
                    leader: Some(5),
                    term: 0,
                },
            },
        };
        big.on_event(&leader).unwrap();
        big.finish(1).unwrap();
        assert_eq!(
            big.entries, 0,
            "no row for a node that neither multicasts nor delivers"
        );
        // 3 nodes: node 0's row and its multicasts' pasts (9 entries), then node 1's row (12)
        let trace = Trace::new(
            3,
            vec![
                multicast(0, 0, "m"),
                multicast(1, 0, "m2"),
                delivered(2, 1, "m2"), // m2 before m: a violation, past the limit
            ],
        );
        for (max, judged) in [(1_000, true), (9, false)] {
            let mut cs: Vec<Box<dyn Checker>> =
                vec![Box::new(CausalDelivery::with_entries_max(3, max))];
            let got = check_trace(&trace, 1_000, &mut cs);
            if judged {
                assert!(got.unwrap_err().explanation.contains("m2"));
            } else {
                got.unwrap();
                let why = cs[0].could_not_judge().expect("stopped: could not judge");
                assert!(why.contains("more than 9 entries"), "{why}");
            }
        }
    }

    #[test]
    fn fig_6_13_m_star_before_m_is_caught() {
        // P0 multicasts m; P1 delivers it and multicasts m*; P2 delivers m* first.
        let v = run(vec![
            multicast(0, 0, "m"),
            delivered(1, 0, "m"),
            delivered(2, 1, "m"),
            multicast(3, 1, "m*"),
            delivered(4, 1, "m*"),
            delivered(5, 2, "m*"),
            delivered(6, 2, "m"),
        ])
        .unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert_eq!(v.events, vec![0, 3, 5]);
        assert!(
            v.explanation.contains("node 2 delivered m* before m"),
            "{}",
            v.explanation
        );
    }

    impl CausalDelivery {
        /// [`CausalDelivery::close_instant`] as it was: the first ready head in trace order,
        /// found by rescanning the instant for every event.
        pub(super) fn close_instant_naive(&mut self) -> Result<(), Violation> {
            let mut rest = std::mem::take(&mut self.deferred);
            self.waiting.clear();
            while !rest.is_empty() {
                let is_head = |i: usize| rest[..i].iter().all(|e| e.node != rest[i].node);
                let ready = |i: usize| match &rest[i].kind {
                    EventKind::Observe {
                        obs: Observation::Delivered { id },
                    } => {
                        self.index.contains_key(id)
                            || !rest.iter().any(|e| {
                                matches!(&e.kind, EventKind::Observe {
                                    obs: Observation::Multicast { id: m },
                                } if m == id)
                            })
                    }
                    _ => true,
                };
                let Some(next) = (0..rest.len()).find(|&i| is_head(i) && ready(i)) else {
                    let ev = &rest[0];
                    let EventKind::Observe {
                        obs: Observation::Delivered { id },
                    } = &ev.kind
                    else {
                        unreachable!("only a delivery waits")
                    };
                    return Err(Violation {
                        property: PROPERTY.into(),
                        class: PropertyClass::Safety,
                        explanation: format!(
                            "node {} delivered {id} before its multicast: no order of the \
                             events at {:.6} ms puts the multicast first",
                            ev.node.unwrap_or_default(),
                            ev.t_ns as f64 / 1e6
                        ),
                        t_ns: ev.t_ns,
                        events: vec![ev.id],
                    });
                };
                let ev = rest.remove(next);
                self.judge_one(&ev)?;
            }
            Ok(())
        }
    }

    proptest::proptest! {
        /// The instant's events are judged in the order the rescan of every event chose,
        /// with the same verdict and the same events named: multicasts and deliveries of
        /// four ids by four nodes, most at one instant, in any line order.
        #[test]
        fn closing_an_instant_judges_as_the_rescan_did(
            picks in proptest::collection::vec((0usize..4, 0usize..4, proptest::bool::weighted(0.3), 1u64..3), 1..24)
        ) {
            use crate::test_events::observe_ms;
            let names = ["a", "b", "c", "d"];
            let events: Vec<Event> = picks
                .iter()
                .scan(1u64, |t, &(node, x, is_multicast, dt)| {
                    // mostly one instant (dt = 1 keeps it), sometimes the next
                    *t += u64::from(dt == 2);
                    Some((*t, node, x, is_multicast))
                })
                .enumerate()
                .map(|(i, (t, node, x, is_multicast))| {
                    let id = names[x].to_string();
                    let obs = if is_multicast {
                        Observation::Multicast { id }
                    } else {
                        Observation::Delivered { id }
                    };
                    observe_ms(i as u64, t, node, obs)
                })
                .collect();
            let judge = |naive: bool| {
                let mut c = CausalDelivery::new(4);
                c.naive_close = naive;
                let r = events.iter().try_for_each(|e| c.on_event(e)).and_then(|()| c.finish(10_000_000));
                (r, c.could_not_judge(), c.judged)
            };
            proptest::prop_assert_eq!(judge(false), judge(true));
        }
    }

    /// A delivery listed before its multicast of the same instant is judged after it, not
    /// dropped as "never multicast": node 0 multicasts a then b, node 1 delivers b then a, all
    /// at 1 ms but the last: a violation in every line order of the first instant.
    #[test]
    fn a_delivery_listed_before_its_multicast_at_one_instant_is_still_judged() {
        use crate::test_events::observe_ms;
        let m =
            |id, node, x: &str| observe_ms(id, 1, node, Observation::Multicast { id: x.into() });
        let d =
            |id, t, node, x: &str| observe_ms(id, t, node, Observation::Delivered { id: x.into() });
        let listed = [
            vec![m(0, 0, "a"), m(1, 0, "b"), d(2, 1, 1, "b"), d(3, 2, 1, "a")],
            vec![d(0, 1, 1, "b"), m(1, 0, "a"), m(2, 0, "b"), d(3, 2, 1, "a")],
            vec![m(0, 0, "a"), d(1, 1, 1, "b"), m(2, 0, "b"), d(3, 2, 1, "a")],
        ];
        for events in listed {
            let v = run(events.clone()).expect_err("b delivered before a");
            assert!(
                v.explanation.contains("delivered b before a"),
                "{events:?}: {}",
                v.explanation
            );
        }
        // ... and node 1's own later events of the instant wait with it: its multicast c
        // follows its delivery of a, so c's past holds a, and node 2 may not deliver c first.
        let c_after_a = vec![
            d(0, 1, 1, "a"),
            m(1, 1, "c"),
            m(2, 0, "a"),
            d(3, 2, 2, "c"),
            d(4, 3, 2, "a"),
        ];
        // A delivery before its own node's multicast of the same instant: in no order after it.
        let own = run(vec![d(0, 1, 1, "a"), m(1, 1, "a")]).expect_err("delivered first");
        assert!(
            own.explanation
                .contains("node 1 delivered a before its multicast"),
            "{}",
            own.explanation
        );
        let v = run(c_after_a).expect_err("node 2 delivered c before a");
        assert!(
            v.explanation.contains("node 2 delivered c before a"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn fifo_from_one_sender_is_required() {
        let v = run(vec![
            multicast(0, 0, "a"),
            multicast(1, 0, "b"),
            delivered(2, 1, "b"),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("before a"), "{}", v.explanation);
    }

    #[test]
    fn a_sender_need_not_deliver_its_own_multicast() {
        // P0 multicasts a and never delivers it to itself; P1 delivers a, multicasts b; P0
        // delivers b: correct causal delivery
        run(vec![
            multicast(0, 0, "a"),
            delivered(1, 1, "a"),
            multicast(2, 1, "b"),
            delivered(3, 1, "b"),
            delivered(4, 0, "b"),
            delivered(5, 2, "a"),
            delivered(6, 2, "b"),
        ])
        .unwrap();
        // two own multicasts, neither self-delivered, then another's that follows both
        run(vec![
            multicast(0, 0, "a"),
            multicast(1, 0, "a2"),
            delivered(2, 1, "a"),
            delivered(3, 1, "a2"),
            multicast(4, 1, "b"),
            delivered(5, 0, "b"),
        ])
        .unwrap();
    }

    #[test]
    fn a_late_self_delivery_is_still_out_of_order() {
        // P0 delivers b (which follows its own a) and only then delivers a to itself
        let v = run(vec![
            multicast(0, 0, "a"),
            delivered(1, 1, "a"),
            multicast(2, 1, "b"),
            delivered(3, 0, "b"),
            delivered(4, 0, "a"),
        ])
        .unwrap_err();
        assert!(
            v.explanation.contains("node 0 delivered b before a"),
            "{}",
            v.explanation
        );
        assert_eq!(v.events, vec![0, 3, 4]);
        // its own two multicasts self-delivered in reverse order
        let v = run(vec![
            multicast(0, 0, "a"),
            multicast(1, 0, "a2"),
            delivered(2, 0, "a2"),
            delivered(3, 0, "a"),
        ])
        .unwrap_err();
        assert!(
            v.explanation.contains("node 0 delivered a2 before a"),
            "{}",
            v.explanation
        );
    }

    #[test]
    fn causal_order_and_concurrent_reordering_pass() {
        run(vec![
            multicast(0, 0, "m"),
            delivered(1, 0, "m"),
            multicast(2, 2, "x"), // concurrent with m and m*
            delivered(3, 2, "x"),
            delivered(4, 1, "m"),
            multicast(5, 1, "m*"),
            delivered(6, 1, "m*"),
            delivered(7, 2, "m"),
            delivered(8, 2, "m*"),
            delivered(9, 1, "x"),
            delivered(10, 0, "m*"),
            delivered(11, 0, "x"),
        ])
        .unwrap();
        // a receipt that was never delivered creates no dependency
        run(vec![
            multicast(0, 0, "m"),
            multicast(1, 1, "m*"),
            delivered(2, 2, "m*"),
            delivered(3, 2, "m"),
        ])
        .unwrap();
        let v = run(vec![
            multicast(0, 0, "m"),
            delivered(1, 1, "m"),
            delivered(2, 1, "m"),
        ])
        .unwrap_err();
        assert!(v.explanation.contains("twice"));
    }

    /// The vectorized fast path says "covered" exactly when the rule does, entry by entry:
    /// every sender and node position (first, last, equal, adjacent), every entry short by
    /// one, the sender's entry exactly one ahead.
    #[test]
    fn the_fast_path_agrees_with_the_rule_entry_by_entry() {
        let rule = |past: &[u32], prefix: &[u32], sender: usize, node: usize| {
            (0..past.len()).all(|k| {
                k == node
                    || prefix[k]
                        >= if k == sender {
                            past[k].saturating_sub(1)
                        } else {
                            past[k]
                        }
            })
        };
        let mut checked = 0;
        // small counts, and counts near the largest the checker takes (the compare is by the
        // sign of a wrapping subtraction: exact only below 2^31)
        for offset in [0u32, MULTICASTS_MAX as u32 - 8] {
            for n in 1..=9 {
                for sender in 0..n {
                    for node in 0..n {
                        let base: Vec<u32> = (0..n as u32).map(|k| offset + 2 + k % 3).collect();
                        let mut past = base.clone();
                        past[sender] += 1; // the message is the sender's next
                        assert!(all_within(&past, &base, sender, node));
                        assert!(rule(&past, &base, sender, node));
                        for k in 0..n {
                            for delta in [-1i64, 1, 2] {
                                let mut p = past.clone();
                                p[k] = (i64::from(p[k]) + delta) as u32;
                                assert_eq!(
                                    all_within(&p, &base, sender, node),
                                    rule(&p, &base, sender, node),
                                    "n {n} sender {sender} node {node} entry {k} {delta:+}"
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 2 * (1..=9).map(|n| n * n * n * 3).sum::<usize>());
    }
}
