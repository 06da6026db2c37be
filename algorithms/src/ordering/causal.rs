//! Causally ordered multicast with vector clocks.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.2.2, "Imposição de comunicação causal", Fig. 6.13,
//! seed `000`): clocks are adjusted only when sending and delivering: a process increments
//! `VC_i[i]` when it multicasts (and stamps the message with `VC_i`), and on delivering a
//! message `m` from `P_i` sets `VC_j[k] <- max(VC_j[k], ts(m)[k])`. `P_j` holds `m` back until
//! (1) `ts(m)[i] = VC_j[i] + 1` — `m` is the next message it expects from `P_i` — and
//! (2) `ts(m)[k] <= VC_j[k]` for every `k != i` — it has seen everything `P_i` had seen when it
//! sent `m`. A process delivers its own messages at once. In Fig. 6.13, `m*` reaches `P2`
//! before `m` and waits until `m` has been delivered.
//!
//! **Fault model**: the text assumes no loss; the reliable link layer ([`super::link`], here
//! releasing messages in arrival order: the delivery rule itself restores each sender's order)
//! provides it over loss, duplication, reordering and partitions; pauses, drift and jumps only
//! delay retransmissions. No crashes (the clocks and the hold-back queue are volatile).
//!
//! **Promises**: `causal_delivery`, and `replica_agreement` over the set of messages each node
//! delivered, its count and an order-independent digest of its ids (after the faults stop,
//! every node delivers every multicast).
//!
//! **Variant `fifo-only`** (buggy): messages from one sender are delivered in the order sent
//! (FIFO links), but without condition (2): `m*` overtakes `m` at `P2`.

use super::link::{Link, Mode, Wire};
use super::DeliveredSet;
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng};
use std::collections::{BTreeMap, BTreeSet};

/// An application message, stamped with the sender's vector clock: its id and stamp behind
/// one shared pointer, so the copies sent to each of the `n − 1` receivers and kept for
/// retransmission share them (a multicast of a 500-node group allocates once, not 1000
/// times), and a message is a pointer wide: the link layer's per-peer state holding one fits
/// in half a cache line (at n = 500, 250,000 of them). Reads as a [`BodyData`] (`body.id`,
/// `body.ts`); renders and serializes as `Body { id, ts }` did when they were its fields.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Body(std::sync::Arc<BodyData>);

/// What a [`Body`] holds.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyData {
    /// Application id.
    pub id: Box<str>,
    /// Vector timestamp `ts(m)`. Entries count multicasts, which a scenario (at most
    /// [`sincro_harness::scenario::MAX_SCENARIO_BYTES`] of inputs) keeps far below 2^31: 32 bits
    /// halve the memory a delivery's walk reads and double the entries one vector
    /// instruction compares.
    pub ts: Box<[u32]>,
}

impl Body {
    /// Message `id` stamped `ts`.
    pub fn new(id: &str, ts: &[u32]) -> Body {
        Body(std::sync::Arc::new(BodyData {
            id: id.into(),
            ts: ts.into(),
        }))
    }
}

impl std::ops::Deref for Body {
    type Target = BodyData;
    fn deref(&self) -> &BodyData {
        &self.0
    }
}

impl std::fmt::Debug for Body {
    /// `Body { id: "m3", ts: [1, 0, 0] }`, as when the id and stamp were its own fields (the
    /// traces' rendering of a message).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Body")
            .field("id", &self.0.id)
            .field("ts", &self.0.ts)
            .finish()
    }
}

/// Messages on the wire.
pub type Msg = Wire<Body>;

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Resend what the link has not had acknowledged.
    Retransmit,
}

/// Workload commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Input {
    /// Multicast a message to the group.
    Multicast {
        /// Its id (default: `n<node>.<k>`). Ids must be unique in the run.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        name: String,
    },
}

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Retransmission period of the link layer, local ms (0: derived from the latencies).
    #[serde(default)]
    pub retry_ms: u64,
    /// Number of nodes of the run (the length of the vector clocks): not a scenario parameter,
    /// [`CausalSpec`]'s `prepare` sets it from the scenario.
    #[serde(skip)]
    pub nodes: usize,
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the delivery rule of §6.2.2 over reliable (unordered) links";
        FifoOnly = "fifo-only" (buggy), "FIFO per sender without the causal condition: m* overtakes m";
    }
}

/// One process.
#[derive(Debug)]
pub struct CausalOrder {
    variant: Variant,
    retry_ms: u64,
    vc: Vec<u32>,
    sent: u64,
    delivered: DeliveredSet,
    link: Link<Body>,
    retransmitting: bool,
    /// Messages held back, by arrival number: (sender, message).
    held: BTreeMap<u64, (NodeId, Body)>,
    /// Arrival number of the next message held back.
    arrivals: u64,
    /// `(k, need, a)`: held message `a` is blocked on entry `k` of the clock, which must reach
    /// `need`. A held message waits on one entry at a time: the first, in index order, its
    /// stamp still needs. The conditions only become true as the clock grows, so each message
    /// walks its stamp once, and a delivery from `P_i` (which advances `vc[i]` alone) wakes
    /// only the messages waiting on entry `i`, smallest `need` first. One ordered set of the
    /// node, not a heap per entry: at n = 500 the 250,000 empty heaps of the group took 6 MiB,
    /// fresh memory a first run faults in.
    waiting: BTreeSet<(usize, u64, u64)>,
    /// Bit `k` set while something waits on entry `k`: a delivery wakes entry `k` after
    /// reading one bit of a few cache lines, not the set (on most deliveries nothing waits).
    waiting_on: Vec<u64>,
    /// Held messages that satisfy the rule, by arrival number: the earliest arrival is
    /// delivered first, as a scan of the hold-back queue in arrival order would.
    ready: BTreeSet<u64>,
    /// What the link released from the message being handled (empty between messages; kept
    /// for its memory).
    released: Vec<Body>,
}

impl CausalOrder {
    /// Process `id` of `n`.
    pub fn new(variant: Variant, n: usize, retry_ms: u64) -> Self {
        let mode = match variant {
            Variant::Correct => Mode::Unordered,
            Variant::FifoOnly => Mode::Fifo,
        };
        CausalOrder {
            variant,
            retry_ms: retry_ms.max(1),
            vc: vec![0; n],
            sent: 0,
            delivered: DeliveredSet::default(),
            link: Link::new(mode, n),
            retransmitting: false,
            held: BTreeMap::new(),
            arrivals: 0,
            waiting: BTreeSet::new(),
            waiting_on: vec![0; n.div_ceil(64)],
            ready: BTreeSet::new(),
            released: Vec::new(),
        }
    }

    /// Holds back message `body` from `from` (its stamp has the group's length and is ahead
    /// of `vc[from]`), `first` the first entry it still needs (its `blocked` from entry 0).
    fn hold(&mut self, from: NodeId, body: Body, first: Option<(usize, u64)>) {
        debug_assert_eq!(first, blocked(from, &body.ts, &self.vc, 0));
        let a = self.arrivals;
        self.arrivals += 1;
        self.held.insert(a, (from, body));
        self.place(a, first);
    }

    /// Moves held message `a` to the first entry from `k` on that its stamp still needs, or
    /// to `ready` when it needs none.
    fn walk(&mut self, a: u64, from_k: usize) {
        let (i, body) = &self.held[&a];
        let first = blocked(*i, &body.ts, &self.vc, from_k);
        self.place(a, first);
    }

    /// Puts held message `a` where `first`, the first entry it still needs, says: waiting on
    /// that entry, or ready.
    fn place(&mut self, a: u64, first: Option<(usize, u64)>) {
        match first {
            Some((k, need)) => {
                self.waiting.insert((k, need, a));
                self.waiting_on[k / 64] |= 1 << (k % 64);
            }
            None => {
                self.ready.insert(a);
            }
        }
    }

    /// A message `body` from `from` arrives (its stamp has the group's length and is ahead of
    /// `vc[from]`): delivered with what it makes deliverable, or held back. One deliverable
    /// while nothing else is (the common case) is delivered without entering the queue, as
    /// holding it and delivering the ready ones would: it is the only one ready.
    fn arrive(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, body: Body) {
        // Walked once: a message held back is placed by this walk, not walked again.
        let first = blocked(from, &body.ts, &self.vc, 0);
        if !self.ready.is_empty() || first.is_some() {
            self.hold(from, body, first);
        } else {
            self.arrivals += 1; // its arrival number, as if held
            debug_assert_eq!(body.ts[from], self.vc[from] + 1);
            self.vc[from] += 1;
            self.deliver(ctx, body);
            self.wake(from);
        }
        self.deliver_ready(ctx);
    }

    /// Delivers held messages while one satisfies the rule, the earliest arrival first.
    fn deliver_ready(&mut self, ctx: &mut Ctx<'_, Self>) {
        while let Some(a) = self.ready.pop_first() {
            let (i, body) = self.held.remove(&a).expect("a ready message is held");
            if body.ts[i] != self.vc[i] + 1 {
                continue; // a second copy of a message already delivered: never deliverable
            }
            debug_assert!((0..body.ts.len()).all(|k| k == i || body.ts[k] <= self.vc[k]));
            // The rule leaves vc[i] the only entry to merge.
            self.vc[i] += 1;
            self.deliver(ctx, body);
            self.wake(i); // only vc[i] moved (by one)
        }
    }

    /// Moves on the held messages waiting on entry `k` that the clock now satisfies.
    fn wake(&mut self, k: usize) {
        let waits_on =
            |w: &BTreeSet<(usize, u64, u64)>| w.range((k, 0, 0)..).next().is_some_and(|e| e.0 == k);
        debug_assert_eq!(
            self.waiting_on[k / 64] >> (k % 64) & 1 == 1,
            waits_on(&self.waiting)
        );
        if self.waiting_on[k / 64] >> (k % 64) & 1 == 0 {
            return;
        }
        let vc_k = u64::from(self.vc[k]);
        // Whether something still waits on entry `k` once the satisfied ones moved on.
        let still_waits = loop {
            match self.waiting.range((k, 0, 0)..).next() {
                Some(&(kk, need, w)) if kk == k && need <= vc_k => {
                    self.waiting.remove(&(kk, need, w));
                    // Walking on never places it back on entry `k` (it goes past it).
                    self.walk(w, k + 1);
                }
                Some(&(kk, _, _)) => break kk == k,
                None => break false,
            }
        };
        if !still_waits {
            self.waiting_on[k / 64] &= !(1 << (k % 64));
        }
    }

    /// Delivers `body` to the application (the caller has merged its stamp into `vc`).
    fn deliver(&mut self, ctx: &mut Ctx<'_, Self>, body: Body) {
        ctx.observe(Observation::Delivered {
            id: String::from(&*body.id),
        });
        self.report_delivered(ctx, &body.id);
    }

    /// Every node ends up delivering every multicast: the set delivered, as the replicated
    /// "state" of the delivery log (checked by `replica_agreement`: equal reports mean equal
    /// sets, [`DeliveredSet`]).
    fn report_delivered(&mut self, ctx: &mut Ctx<'_, Self>, id: &str) {
        self.delivered.add(id);
        let mut value = String::with_capacity(48);
        self.delivered.push_to(&mut value);
        ctx.observe(Observation::State { value });
    }
}

/// The first entry, from `from_k` on, that a message of `P_i` stamped `ts` still needs of
/// clock `vc` — `(k, the value vc[k] must reach)` — or `None` when the delivery rule holds.
fn blocked(i: NodeId, ts: &[u32], vc: &[u32], from_k: usize) -> Option<(usize, u64)> {
    // The first entry in lo..hi where condition (2) fails (ts[k] > vc[k]).
    let ahead = |lo: usize, hi: usize| -> Option<(usize, u64)> {
        let lo = lo.min(hi);
        let p = lo + first_greater(&ts[lo..hi], &vc[lo..hi])?;
        Some((p, u64::from(ts[p])))
    };
    // Condition (1) at i, reached from below: vc[i] = ts[i] - 1.
    let at_i = || (from_k <= i && vc[i] < ts[i] - 1).then(|| (i, u64::from(ts[i] - 1)));
    ahead(from_k, i)
        .or_else(at_i)
        .or_else(|| ahead(from_k.max(i + 1), ts.len()))
}

/// The first `k` with `t[k] > v[k]` (slices of one length). Chunks of 64 are tested with no
/// early exit (vectorized, see [`any_greater`]); only a chunk with such an entry is searched
/// for the first one, 16 entries at a time (see [`greater_mask`]): a deliverable message's
/// walk is a plain compare, and a blocked one's search no longer steps entry by entry (two
/// fifths of `blocked` at n = 500).
#[inline]
fn first_greater(t: &[u32], v: &[u32]) -> Option<usize> {
    debug_assert_eq!(t.len(), v.len());
    let mut base = 0;
    for (tc, vc) in t.chunks(64).zip(v.chunks(64)) {
        if any_greater(tc, vc) {
            return first_in_chunk(tc, vc).map(|p| base + p);
        }
        base += tc.len();
    }
    None
}

/// [`first_greater`] within one chunk.
#[inline]
fn first_in_chunk(t: &[u32], v: &[u32]) -> Option<usize> {
    let mut base = 0;
    for (tr, vr) in t.chunks_exact(16).zip(v.chunks_exact(16)) {
        let (Ok(a), Ok(b)) = (<&[u32; 16]>::try_from(tr), <&[u32; 16]>::try_from(vr)) else {
            unreachable!("chunks_exact(16) gives runs of 16");
        };
        let mask = greater_mask(a, b);
        if mask != 0 {
            return Some(base + mask.trailing_zeros() as usize);
        }
        base += 16;
    }
    t[base..]
        .iter()
        .zip(&v[base..])
        .position(|(a, b)| a > b)
        .map(|p| base + p)
}

/// Bit `k` set when `t[k] > v[k]`: an exact compare of every value, which the compiler turns
/// into vector compares.
#[inline]
fn greater_mask(t: &[u32; 16], v: &[u32; 16]) -> u32 {
    let mut mask = 0u32;
    for k in 0..16 {
        mask |= u32::from(t[k] > v[k]) << k;
    }
    mask
}

/// Whether `t[k] > v[k]` for some `k` (slices of one length, every value below 2^31), with no
/// branch per entry: then `t[k] > v[k]` is the sign bit of `v[k] - t[k]` (wrapping), and a
/// subtraction and an `or` per 4 entries vectorize on every x86-64. Every clock entry and
/// stamp is below 2^31: an entry counts a node's multicasts, each one checked against
/// [`COUNT_MAX`] when it is made, and every other entry is copied from a stamp.
#[inline]
fn any_greater(t: &[u32], v: &[u32]) -> bool {
    debug_assert_eq!(t.len(), v.len());
    debug_assert!(t.iter().chain(v).all(|&x| x <= COUNT_MAX));
    let mut diff = 0u32;
    for (&a, &b) in t.iter().zip(v) {
        diff |= b.wrapping_sub(a);
    }
    diff >> 31 != 0
}

/// The most multicasts one node makes: far more than a scenario file (at most 64 MiB of
/// inputs) can ask for, and low enough for [`any_greater`]'s sign-bit compare.
const COUNT_MAX: u32 = (1 << 31) - 1;

impl Process for CausalOrder {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    type Stable = ();

    /// Reports the empty delivery log, so that a replica that delivers nothing is compared
    /// with the others (`replica_agreement` cannot judge a replica that never reported).
    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        let mut value = String::new();
        DeliveredSet::default().push_to(&mut value);
        ctx.observe(Observation::State { value });
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        // The released payloads go to a buffer kept between messages: no allocation a message.
        let mut bodies = std::mem::take(&mut self.released);
        if let Some(ack) = self.link.receive_into(from, msg, &mut bodies) {
            ctx.send(from, ack);
        }
        for body in bodies.drain(..) {
            match self.variant {
                Variant::FifoOnly => {
                    for (c, t) in self.vc.iter_mut().zip(body.ts.iter()) {
                        *c = (*c).max(*t);
                    }
                    self.deliver(ctx, body)
                }
                Variant::Correct => {
                    if body.ts.len() != self.vc.len() || body.ts[from] <= self.vc[from] {
                        continue; // malformed, or already delivered
                    }
                    self.arrive(ctx, from, body);
                }
            }
        }
        self.released = bodies;
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        let Timer::Retransmit = timer;
        for (to, wire) in self.link.unacked() {
            ctx.send(to, wire);
        }
        self.retransmitting = self.link.pending();
        if self.retransmitting {
            ctx.set_timer_ms(self.retry_ms, Timer::Retransmit);
        }
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Multicast { name } = input;
        let me = ctx.id();
        self.sent += 1;
        let id = if name.is_empty() {
            format!("n{me}.{}", self.sent)
        } else {
            name
        };
        // A scenario file of at most 64 MiB holds far fewer than 2^31 inputs.
        self.vc[me] = self.vc[me]
            .checked_add(1)
            .filter(|&c| c <= COUNT_MAX)
            .expect("fewer than 2^31 multicasts from one node");
        // A (malformed) held message may wait on this entry; it is delivered with the next
        // message, as before.
        self.wake(me);
        let body = Body::new(&id, &self.vc);
        ctx.observe(Observation::Multicast { id: id.clone() });
        ctx.observe(Observation::Delivered { id: id.clone() });
        self.report_delivered(ctx, &id);
        for to in 0..ctx.nodes() {
            if to != me {
                let wire = self.link.send(to, body.clone());
                ctx.send(to, wire);
            }
        }
        if !self.retransmitting && self.link.pending() {
            self.retransmitting = true;
            ctx.set_timer_ms(self.retry_ms, Timer::Retransmit);
        }
    }
}

/// `order.causal`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct CausalSpec;

impl Spec for CausalSpec {
    type Node = CausalOrder;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "order.causal"
    }
    fn summary(&self) -> &'static str {
        "causally ordered multicast: vector clocks counting multicasts, hold back until ts(m)[i] = VC[i]+1 and ts(m)[k] <= VC[k]"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.2.2 (Fig. 6.13)"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["causal_delivery", "replica_agreement"]
    }
    fn fault_model(&self) -> FaultModel {
        super::reliable_link_model(
            "reliable links built over loss, duplication, reordering and partitions; pauses, drift and jumps; no crashes (volatile clocks and hold-back queue)",
        )
    }
    /// The link retransmits every round trip, unless the params say otherwise.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_nodes(setup)?;
        setup.params.retry_ms = super::retry_ms(setup, setup.params.retry_ms);
        setup.params.nodes = setup.nodes();
        Ok(())
    }
    fn node(&self, variant: Variant, params: &Params, _id: NodeId) -> CausalOrder {
        CausalOrder::new(variant, params.nodes, params.retry_ms)
    }
    /// Multicasts at random nodes and times; half of them get a quick follow-up from another
    /// node, which has often delivered the first one by then (a causal chain that a third
    /// node may see reversed).
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        let count = rng.range_u64(2, 3 * nodes as u64);
        let m = Input::Multicast {
            name: String::new(),
        };
        let mut items = Vec::new();
        for _ in 0..count {
            let at_ms = rng.range_u64(0, active_ms);
            let node = rng.index(nodes);
            items.push(Timed {
                at_ms,
                node,
                input: m.clone(),
            });
            if rng.chance(0.5) {
                let mut other = rng.index(nodes.max(2) - 1);
                if other >= node {
                    other += 1;
                }
                items.push(Timed {
                    at_ms: (at_ms + rng.range_u64(1, 60)).min(active_ms),
                    node: other.min(nodes - 1),
                    input: m.clone(),
                });
            }
        }
        items.sort_by_key(|w| w.at_ms);
        items
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        super::reliable_bound_ms(setup, setup.params.retry_ms)
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, EventKind, Observation, Scenario};

    /// A message renders and serializes as it did when the id and stamp were its own
    /// fields (the traces' text and the scenario files do not change).
    #[test]
    fn a_body_renders_and_serializes_as_its_fields_did() {
        #[derive(Debug, serde::Serialize)]
        struct Body {
            id: std::rc::Rc<str>,
            ts: std::rc::Rc<[u32]>,
        }
        let ours = super::Body::new("n3.1", &[1, 0, 7]);
        let before = Body {
            id: "n3.1".into(),
            ts: [1, 0, 7].as_slice().into(),
        };
        assert_eq!(format!("{ours:?}"), format!("{before:?}"));
        assert_eq!(format!("{ours:#?}"), format!("{before:#?}"));
        let wire = super::Wire::Data {
            seq: 4,
            body: ours.clone(),
        };
        assert_eq!(
            format!("{wire:?}"),
            r#"Data { seq: 4, body: Body { id: "n3.1", ts: [1, 0, 7] } }"#
        );
        let json = serde_json::to_string(&ours).unwrap();
        assert_eq!(json, serde_json::to_string(&before).unwrap());
        assert_eq!(serde_json::from_str::<super::Body>(&json).unwrap(), ours);
        assert_eq!(
            std::mem::size_of::<super::Body>(),
            std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn push_decimal_writes_what_format_does() {
        for n in [
            0u64,
            1,
            9,
            10,
            99,
            100,
            12_345,
            u64::MAX / 10,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut s = String::from("x");
            super::super::push_decimal(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    /// The sign-bit compare agrees with `>` on every value up to `COUNT_MAX`, at every length
    /// up to 70, and so does the search for the first such entry.
    #[test]
    fn any_greater_is_the_plain_compare() {
        let values = [
            0u32,
            1,
            2,
            7,
            (1 << 30) - 1,
            1 << 30,
            (1 << 31) - 2,
            super::COUNT_MAX,
        ];
        let mut rng = sincro_harness::SimRng::new(5);
        for len in 0..70usize {
            for trial in 0..40 {
                // Half the trials with small values only, half up to the largest.
                let pool = if trial % 2 == 0 {
                    &values[..4]
                } else {
                    &values[..]
                };
                let t: Vec<u32> = (0..len).map(|_| pool[rng.index(pool.len())]).collect();
                let mut v = t.clone();
                if len > 0 && rng.chance(0.7) {
                    let k = rng.index(len);
                    v[k] = pool[rng.index(pool.len())];
                }
                let plain = t.iter().zip(&v).any(|(a, b)| a > b);
                assert_eq!(super::any_greater(&t, &v), plain, "{t:?} {v:?}");
                let first = t.iter().zip(&v).position(|(a, b)| a > b);
                assert_eq!(super::first_greater(&t, &v), first, "{t:?} {v:?}");
            }
        }
    }

    /// `blocked` is the delivery rule read entry by entry from `from_k` on (condition (1) at
    /// the sender's entry, (2) elsewhere), at every length up to 150, every sender and start.
    #[test]
    fn blocked_is_the_rule_entry_by_entry() {
        let mut rng = sincro_harness::SimRng::new(613);
        for trial in 0..4000 {
            let n = 1 + rng.index(150);
            let i = rng.index(n);
            let vc: Vec<u32> = (0..n).map(|_| rng.range_u64(0, 4) as u32).collect();
            let mut ts: Vec<u32> = vc
                .iter()
                .map(|&c| {
                    if rng.chance(0.97) {
                        c.saturating_sub(1)
                    } else {
                        c + 1
                    }
                })
                .collect();
            ts[i] = vc[i] + 1 + u32::from(rng.chance(0.2));
            let from_k = rng.index(n + 1);
            let rule = (from_k..n).find_map(|k| {
                if k == i {
                    (vc[i] < ts[i] - 1).then(|| (i, u64::from(ts[i] - 1)))
                } else {
                    (ts[k] > vc[k]).then(|| (k, u64::from(ts[k])))
                }
            });
            let got = super::blocked(i, &ts, &vc, from_k);
            assert_eq!(
                got, rule,
                "trial {trial}: i {i} from {from_k} ts {ts:?} vc {vc:?}"
            );
        }
    }

    /// Fig. 6.13: P0 multicasts m; P1 delivers it and multicasts m*; the link P0 -> P2 is slow,
    /// so m* reaches P2 first.
    pub(crate) fn fig_6_13(variant: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "order.causal", "variant": "{variant}", "nodes": 3, "seed": 613,
                "duration_ms": 200,
                "network": {{"latency": {{"constant": {{"ms": 5}}}},
                            "links": [{{"from": 0, "to": 2, "latency": {{"constant": {{"ms": 40}}}}}}]}},
                "workload": [{{"at_ms": 10, "node": 0, "input": {{"multicast": {{"name": "m"}}}}}},
                             {{"at_ms": 20, "node": 1, "input": {{"multicast": {{"name": "m*"}}}}}}]}}"#
        ))
        .unwrap()
    }

    /// (node, global ms, id) of every delivery at P2.
    fn at_p2(variant: &str) -> (Vec<(u64, String)>, String) {
        let out = find("order.causal")
            .unwrap()
            .run(&fig_6_13(variant), RunOptions::default())
            .unwrap();
        let d = out
            .trace
            .unwrap()
            .events()
            .iter()
            .filter(|e| e.node == Some(2))
            .filter_map(|e| match &e.kind {
                EventKind::Observe {
                    obs: Observation::Delivered { id },
                } => Some((e.t_ns / 1_000_000, id.clone())),
                _ => None,
            })
            .collect();
        (d, out.verdict.label())
    }

    #[test]
    fn fig_6_13_m_star_waits_for_m_at_p2() {
        let (d, v) = at_p2("correct");
        // m* arrives at 25 ms but is delivered right after m, at 50 ms
        assert_eq!(d, vec![(50, "m".to_string()), (50, "m*".to_string())]);
        assert_eq!(v, "pass");
    }

    #[test]
    fn fig_6_13_fifo_only_delivers_m_star_first() {
        let (d, v) = at_p2("fifo-only");
        // the run stops at the violation: m* delivered at 25 ms, before m
        assert_eq!(d, vec![(25, "m*".to_string())]);
        assert_eq!(v, "violation:causal_delivery");
    }

    #[test]
    fn replays_exactly() {
        assert_replays_exactly("order.causal", &["correct", "fifo-only"], 3);
    }

    #[test]
    fn in_model_fuzzing_passes() {
        assert_in_model_passes("order.causal", "correct", 200, EngineKind::Native);
        assert_in_model_passes("order.causal", "correct", 10, EngineKind::Turmoil);
    }

    #[test]
    fn fifo_only_is_found() {
        assert!(first_failing_seed("order.causal", "fifo-only", 300, EngineKind::Native).is_some());
    }
}
