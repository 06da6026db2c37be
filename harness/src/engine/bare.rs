//! The reference limit for benchmarks: the smallest discrete-event loop that runs the same
//! [`Process`] code through the same [`Ctx`] — a `BinaryHeap` of messages, uniform latency,
//! no network model, no faults, no timers, no trace, no checks, no limits. The native engine
//! is measured against it (`sincro bench`); nothing else should use it.

use crate::clock::{HwClock, SoftClock};
use crate::process::{Ctx, Effects, Op, Peers, Process};
use crate::rng::SimRng;
use crate::NodeId;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Msg<M> {
    at: u64,
    seq: u64,
    from: NodeId,
    to: NodeId,
    msg: M,
}

impl<M> PartialEq for Msg<M> {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl<M> Eq for Msg<M> {}
impl<M> PartialOrd for Msg<M> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<M> Ord for Msg<M> {
    fn cmp(&self, o: &Self) -> Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// Runs `n` processes from `factory` on a complete graph with latency uniform in
/// `[lat_min_ns, lat_max_ns]` until no message is left; returns the messages delivered.
pub fn run<P: Process>(
    n: usize,
    factory: impl Fn(NodeId) -> P,
    seed: u64,
    lat_min_ns: u64,
    lat_max_ns: u64,
) -> u64 {
    let mut procs: Vec<P> = (0..n).map(&factory).collect();
    let mut clock = SoftClock::new(HwClock::new(0, 0));
    let mut rng = SimRng::new(seed);
    let mut net_rng = SimRng::new(seed ^ 1);
    let mut stable = P::Stable::default();
    let mut fx = Effects::<P>::default();
    let mut next_timer = 0;
    let neighbours: Vec<Vec<NodeId>> = (0..n)
        .map(|a| (0..n).filter(|&b| b != a).collect())
        .collect();
    let mut heap: BinaryHeap<Msg<P::Msg>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut delivered = 0u64;
    let mut flush =
        |fx: &mut Effects<P>, heap: &mut BinaryHeap<Msg<P::Msg>>, now: u64, from: NodeId| {
            for op in fx.ops.drain(..) {
                if let Op::Send(to, msg) | Op::SendCopy(to, msg) = op {
                    seq += 1;
                    let at = now + net_rng.range_u64(lat_min_ns, lat_max_ns);
                    heap.push(Msg {
                        at,
                        seq,
                        from,
                        to,
                        msg,
                    });
                }
            }
        };
    for (id, p) in procs.iter_mut().enumerate() {
        let mut ctx = Ctx {
            id,
            nodes: n,
            t_ns: 0,
            clock: &mut clock,
            rng: &mut rng,
            stable: &mut stable,
            fx: &mut fx,
            neighbours: Peers::List(&neighbours[id]),
            next_timer: &mut next_timer,
        };
        p.on_start(&mut ctx);
        flush(&mut fx, &mut heap, 0, id);
    }
    while let Some(m) = heap.pop() {
        delivered += 1;
        let mut ctx = Ctx {
            id: m.to,
            nodes: n,
            t_ns: m.at,
            clock: &mut clock,
            rng: &mut rng,
            stable: &mut stable,
            fx: &mut fx,
            neighbours: Peers::List(&neighbours[m.to]),
            next_timer: &mut next_timer,
        };
        procs[m.to].on_message(&mut ctx, m.from, m.msg);
        flush(&mut fx, &mut heap, m.at, m.to);
    }
    delivered
}
