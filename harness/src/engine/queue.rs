//! The native engine's event queue: a monotone radix queue of `(time, slot)` keys that pops
//! the earliest time first and, among equal times, the earliest pushed first — the order of a
//! binary heap on `(time, sequence number)`, at a fraction of its cost on large queues.
//!
//! A discrete-event loop never schedules into the past: every push is at or after the time
//! last popped. A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990) exploits that: a key
//! goes to the bucket named by the highest bit where it differs from the last time popped
//! (bucket 0: equal to it). Pushing appends to a bucket; popping takes bucket 0's next key, and
//! when bucket 0 is empty, the lowest non-empty bucket is redistributed around its minimum
//! into lower buckets (each key moves down at most 64 times in all). Every touch is a sequential
//! pass over a vector, where a binary heap of 250,000 keys misses the cache on most of its
//! 18 levels per pop.
//!
//! **Ties keep push order**, so no sequence number is stored: every bucket stays in push order,
//! since a push appends a key newer than every queued one, and a redistribution fills empty
//! buckets in the order of the bucket it empties.
//!
//! **Small queues** (at most [`SMALL_MAX`] keys, the usual case of a generated fuzz run with a
//! handful of nodes) are a vector kept sorted, latest key first: a pop takes the last element
//! and a push inserts before every key of its time (each of them pushed earlier). With
//! nanosecond times and millisecond delays, a radix queue moves each key down up to twenty
//! times before it pops; the sorted vector moves it once. A queue that grows past
//! [`SMALL_MAX`] keys moves them to the buckets in pop order (so ties stay in push order there
//! too) and comes back once it holds [`SMALL_BACK`] keys or fewer (a stable sort by time: keys
//! of one time share a bucket, in push order). Either form pops the same keys in the same
//! order.

use super::{invariant, invariant_broken};
use std::cell::RefCell;

/// Buckets: 0 for keys equal to the last time, `b` for keys whose highest bit differing from
/// it is bit `b - 1`.
const BUCKETS: usize = 65;

/// A bucket buffer above this capacity is freed when its bucket is emptied by a
/// redistribution (a burst's memory goes back; small buffers are kept for reuse).
const KEEP_CAPACITY_MAX: usize = 4096;

/// Consumed keys at the front of bucket 0 past which they are compacted away (a process that
/// keeps scheduling at the current time never empties bucket 0).
const COMPACT_AFTER: usize = 4096;

/// Most keys a dropped queue's buckets may hold room for and still be kept for the thread's
/// next run (a campaign runs thousands of short runs; a big run's memory goes back).
const SPARE_KEYS_MAX: usize = 1 << 16;

/// Most keys the sorted vector holds before the queue moves them to the buckets. Callgrind's
/// instruction counts of `fuzz -a election.terms --variant correct --seeds 300 -j 1`
/// (guided): 6.75 G with 32, 6.49 G with 128 (-3.9 %), 6.49 G with 512 (its queues stay
/// under 128 keys); a Ricart-Agrawala campaign and the token ring bench do not move.
pub(crate) const SMALL_MAX: usize = 128;

/// Keys at or below which a bucketed queue goes back to the sorted vector (well below
/// [`SMALL_MAX`], so a queue near the limit does not switch at every push and pop).
pub(crate) const SMALL_BACK: usize = 32;

/// Most keys [`TimeQueue::next_slot_hint`] scans for the earliest one of a bucket.
const HINT_SCAN_MAX: usize = 16;

/// A dropped queue's emptied storage, for the thread's next queue.
struct Spare {
    small: Vec<Key>,
    buckets: Vec<Vec<Key>>,
}

thread_local! {
    /// The emptied buckets and vector of the thread's last queue dropped, reused by its next
    /// (a short run then allocates none). Capacity never changes what a queue pops.
    static SPARE: RefCell<Option<Spare>> = const { RefCell::new(None) };
}

/// A queued key: the event's global time (ns) and its slot in the engine's slab.
pub(crate) type Key = (u64, u32);

/// The queue (see the [module](self) documentation).
pub(crate) struct TimeQueue {
    /// The last time popped (or peeked): no key is earlier.
    last: u64,
    /// Keys queued.
    len: usize,
    /// True while the keys are in `small` (every bucket empty), false while in the buckets
    /// (`small` empty).
    is_small: bool,
    /// The keys of a small queue, latest first; among equal times, the last pushed first.
    small: Vec<Key>,
    /// Bucket 0's next key.
    head: usize,
    /// Bit `b` set when bucket `b` holds a key not yet popped.
    nonempty: u128,
    buckets: Vec<Vec<Key>>,
}

/// The bucket of a key at `at` when the last time is `last`.
#[inline]
fn bucket(last: u64, at: u64) -> usize {
    (u64::BITS - (at ^ last).leading_zeros()) as usize
}

impl TimeQueue {
    /// An empty queue at time 0.
    pub(crate) fn new() -> TimeQueue {
        let spare = SPARE.try_with(|s| s.borrow_mut().take()).ok().flatten();
        let Spare { small, buckets } = spare.unwrap_or_else(|| Spare {
            small: Vec::with_capacity(SMALL_MAX + 1),
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
        });
        invariant(
            buckets.len() == BUCKETS && buckets.iter().all(Vec::is_empty) && small.is_empty(),
            "a reused queue starts empty",
            || format!("{} buckets, {} small keys", buckets.len(), small.len()),
        );
        TimeQueue {
            last: 0,
            len: 0,
            is_small: true,
            small,
            head: 0,
            nonempty: 0,
            buckets,
        }
    }

    /// Keys queued.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Queues `slot` at time `at`, which is not before the last time popped.
    #[inline]
    pub(crate) fn push(&mut self, at: u64, slot: u32) {
        invariant(at >= self.last, "the queue never goes back in time", || {
            format!("push at {at} ns after popping {} ns", self.last)
        });
        self.len += 1;
        if self.is_small {
            // Before every key of its time (each pushed earlier, so popped earlier).
            let i = self.small.partition_point(|&(t, _)| t > at);
            self.small.insert(i, (at, slot));
            if self.small.len() > SMALL_MAX {
                self.spill_to_buckets();
            }
            return;
        }
        self.push_bucket(at, slot);
    }

    /// Queues `keys` into an empty queue, in the order given: what pushing each in turn
    /// does (among equal times, the first given pops first), with one sort instead of an
    /// insertion each. A run's setup queues its starts, faults and inputs so; pushed one by
    /// one in time order, each went in front of every key already queued (the small form is
    /// latest first) and moved them all.
    pub(crate) fn push_all(&mut self, mut keys: Vec<Key>) {
        invariant(
            self.len == 0 && self.is_small,
            "push_all fills an empty queue",
            || format!("{} keys queued", self.len),
        );
        if keys.len() > SMALL_MAX {
            for (at, slot) in keys {
                self.push(at, slot);
            }
            return;
        }
        for &(at, _) in &keys {
            invariant(at >= self.last, "the queue never goes back in time", || {
                format!("push at {at} ns after popping {} ns", self.last)
            });
        }
        // A stable sort keeps the given order among equal times; reversed, the first given
        // of each time is nearest the end, where a pop takes it first.
        keys.sort_by_key(|&(at, _)| at);
        keys.reverse();
        self.len = keys.len();
        self.small.extend_from_slice(&keys);
    }

    #[inline]
    fn push_bucket(&mut self, at: u64, slot: u32) {
        let b = bucket(self.last, at);
        self.buckets[b].push((at, slot));
        self.nonempty |= 1 << b;
    }

    /// Moves a small queue's keys to the buckets, in pop order.
    #[cold]
    fn spill_to_buckets(&mut self) {
        let mut small = std::mem::take(&mut self.small);
        self.is_small = false;
        for &(at, slot) in small.iter().rev() {
            self.push_bucket(at, slot);
        }
        small.clear();
        self.small = small;
    }

    /// Moves a bucketed queue's keys to the sorted vector.
    #[cold]
    fn gather_small(&mut self) {
        invariant(
            self.small.is_empty(),
            "a bucketed queue keeps no small key",
            || format!("{} small keys", self.small.len()),
        );
        let mut rest = self.nonempty;
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let from = if b == 0 { self.head } else { 0 };
            self.small.extend_from_slice(&self.buckets[b][from..]);
            self.buckets[b].clear();
        }
        self.head = 0;
        self.nonempty = 0;
        // Keys of one time share a bucket, in push order: a stable sort by time keeps that
        // order, and reversing it all leaves the first pushed of each time nearest the end.
        self.small.sort_by_key(|&(at, _)| at);
        self.small.reverse();
        invariant(
            self.small.len() == self.len,
            "every key moves to the small queue",
            || format!("{} moved of {}", self.small.len(), self.len),
        );
        self.is_small = true;
    }

    /// The earliest time queued.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u64> {
        if self.is_small {
            let &(at, _) = self.small.last()?;
            self.last = at;
            return Some(at);
        }
        self.refill().then_some(self.last)
    }

    /// Takes the earliest key (the first pushed among equal times).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Key> {
        if self.is_small {
            let key = self.small.pop()?;
            self.last = key.0;
            self.len -= 1;
            return Some(key);
        }
        if !self.refill() {
            return None;
        }
        let zero = &mut self.buckets[0];
        let key = zero[self.head];
        self.head += 1;
        self.len -= 1;
        if self.head == zero.len() {
            zero.clear();
            self.head = 0;
            self.nonempty &= !1;
        } else if self.head >= COMPACT_AFTER && self.head * 2 >= zero.len() {
            zero.drain(..self.head);
            self.head = 0;
        }
        if self.len <= SMALL_BACK {
            self.gather_small();
        }
        Some(key)
    }

    /// The slot of a key [`Self::pop`] would take next if nothing were pushed, when the queue
    /// is large and finding it is cheap (bucket 0's next key, or the earliest of a lowest
    /// non-empty bucket of at most [`HINT_SCAN_MAX`] keys); `None` otherwise, and always for a
    /// small queue (at most [`SMALL_MAX`] keys: its items stay in the cache, and a hint there
    /// cost a short run 3 % more instructions for nothing). A hint only, with no effect on the
    /// queue: the engine prefetches that slot's item while it handles the current one.
    #[inline]
    pub(crate) fn next_slot_hint(&self) -> Option<u32> {
        if self.is_small {
            return None;
        }
        if let Some(&(_, slot)) = self.buckets[0].get(self.head) {
            return Some(slot);
        }
        let rest = self.nonempty & !1;
        if rest == 0 {
            return None;
        }
        let lowest = &self.buckets[rest.trailing_zeros() as usize];
        if lowest.len() > HINT_SCAN_MAX {
            return None;
        }
        lowest
            .iter()
            .min_by_key(|&&(at, _)| at)
            .map(|&(_, slot)| slot)
    }

    /// Makes bucket 0 hold the earliest keys; false when the queue is empty.
    #[inline]
    fn refill(&mut self) -> bool {
        if self.nonempty & 1 != 0 {
            return true;
        }
        if self.nonempty == 0 {
            invariant(self.len == 0, "an empty queue counts no key", || {
                format!("{} keys counted", self.len)
            });
            return false;
        }
        self.redistribute();
        true
    }

    /// Empties the lowest non-empty bucket into lower ones around its earliest time.
    fn redistribute(&mut self) {
        let j = self.nonempty.trailing_zeros() as usize;
        self.nonempty &= !(1 << j);
        if let [(at, slot)] = self.buckets[j][..] {
            // A small queue's usual case: the one key becomes the earliest.
            self.buckets[j].clear();
            self.last = at;
            self.buckets[0].push((at, slot));
            self.nonempty |= 1;
            return;
        }
        let mut moving = std::mem::take(&mut self.buckets[j]);
        let Some(min) = moving.iter().map(|&(at, _)| at).min() else {
            invariant_broken(
                "a non-empty bucket holds keys",
                format!("bucket {j} is empty"),
            );
        };
        self.last = min;
        for &(at, slot) in &moving {
            let b = bucket(min, at);
            invariant(b < j, "a redistributed key moves down", || {
                format!("{at} ns from bucket {j} to {b}")
            });
            self.buckets[b].push((at, slot));
            self.nonempty |= 1 << b;
        }
        if moving.capacity() <= KEEP_CAPACITY_MAX {
            moving.clear();
            self.buckets[j] = moving;
        }
    }
}

impl Drop for TimeQueue {
    fn drop(&mut self) {
        let room: usize =
            self.buckets.iter().map(Vec::capacity).sum::<usize>() + self.small.capacity();
        if room > SPARE_KEYS_MAX || self.buckets.len() != BUCKETS {
            return;
        }
        let mut buckets = std::mem::take(&mut self.buckets);
        buckets.iter_mut().for_each(Vec::clear);
        let mut small = std::mem::take(&mut self.small);
        small.clear();
        // At thread exit the slot may be gone: the storage is then simply freed.
        let _ = SPARE.try_with(|s| *s.borrow_mut() = Some(Spare { small, buckets }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// The reference: a binary heap on (time, push number).
    struct Oracle {
        heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
        seq: u64,
    }

    impl Oracle {
        fn push(&mut self, at: u64, slot: u32) {
            self.seq += 1;
            self.heap.push(Reverse((at, self.seq, slot)));
        }
        fn pop(&mut self) -> Option<Key> {
            self.heap.pop().map(|Reverse((at, _, slot))| (at, slot))
        }
    }

    /// Runs a random monotone workload on both queues: each step pops one key (or pushes
    /// `fanout` keys at the time last popped plus a draw from `deltas`), and compares.
    fn agree(seed: u64, steps: usize, deltas: &[u64], fanout: usize) -> usize {
        agree_switching(seed, steps, deltas, fanout, 0.5, false).0
    }

    /// [`agree`] popping with probability `pop`, or with `cycle` in growing and shrinking
    /// phases that take the length past [`SMALL_MAX`] and back under [`SMALL_BACK`]; also
    /// returns how many times the queue changed form (sorted vector to buckets or back).
    fn agree_switching(
        seed: u64,
        steps: usize,
        deltas: &[u64],
        fanout: usize,
        pop: f64,
        cycle: bool,
    ) -> (usize, usize) {
        let mut switches = 0;
        let mut growing = true;
        let mut rng = crate::SimRng::new(seed);
        let (mut q, mut o) = (
            TimeQueue::new(),
            Oracle {
                heap: BinaryHeap::new(),
                seq: 0,
            },
        );
        let (mut now, mut slot, mut popped) = (0u64, 0u32, 0);
        for _ in 0..steps {
            let was_small = q.is_small;
            if q.len() > SMALL_MAX + 8 {
                growing = false;
            } else if q.len() < SMALL_BACK / 2 {
                growing = true;
            }
            let pop = match (cycle, growing) {
                (false, _) => pop,
                (true, true) => 0.5,
                (true, false) => 0.9,
            };
            if q.len() > 0 && rng.chance(pop) {
                let hint = q.next_slot_hint();
                let peeked = q.peek();
                let got = q.pop();
                assert_eq!(got, o.pop(), "seed {seed}");
                if let Some(h) = hint {
                    assert_eq!(Some(h), got.map(|k| k.1), "the hint names the next pop");
                }
                assert_eq!(peeked, got.map(|k| k.0));
                now = got.expect("non-empty").0;
                popped += 1;
            } else {
                for _ in 0..fanout {
                    let at = now.saturating_add(deltas[rng.index(deltas.len())]);
                    slot += 1;
                    q.push(at, slot);
                    o.push(at, slot);
                }
            }
            assert_eq!(q.len(), o.heap.len());
            assert_eq!(
                q.is_small,
                q.small.len() == q.len,
                "one form holds every key"
            );
            switches += usize::from(was_small != q.is_small);
        }
        while let Some(k) = o.pop() {
            assert_eq!(q.pop(), Some(k), "seed {seed}");
            popped += 1;
        }
        assert_eq!(q.pop(), None);
        assert_eq!(q.peek(), None);
        (popped, switches)
    }

    /// The prefetch hint names the key popped next in both forms, including the earliest of
    /// a short lowest bucket (ties: the first pushed), and gives up on a long one.
    #[test]
    fn the_next_slot_hint_names_the_next_pop_or_nothing() {
        let mut q = TimeQueue::new();
        q.push(10, 1);
        q.push(5, 2);
        assert_eq!(q.next_slot_hint(), None, "small form: no hint");
        for slot in 3..=(SMALL_MAX as u32 + 2) {
            q.push(1_000 + u64::from(slot % 3), slot);
        }
        assert!(!q.is_small);
        assert_eq!(q.pop(), Some((5, 2)));
        assert_eq!(q.next_slot_hint(), Some(1), "a bucket of one key");
        assert_eq!(q.pop(), Some((10, 1)));
        // Every other key sits in one long bucket: too long to scan.
        assert!(q.buckets.iter().any(|b| b.len() > HINT_SCAN_MAX));
        assert_eq!(q.next_slot_hint(), None);
        assert_eq!(q.pop(), Some((1_000, 3)));
        // Bucket 0 now holds the other keys at 1,000 ms: the next of them, in push order.
        assert_eq!(q.next_slot_hint(), Some(6));
        assert_eq!(q.pop(), Some((1_000, 6)));
    }

    #[test]
    fn keys_queued_at_once_pop_as_if_pushed_one_by_one() {
        // Sizes around SMALL_MAX (the batch falls back to pushes past it), many ties, and
        // keys in any order; then a run on: pops and pushes interleaved against the oracle.
        for seed in 0..60 {
            let mut rng = crate::SimRng::new(seed);
            let n = [0, 1, 2, 7, SMALL_MAX - 1, SMALL_MAX, SMALL_MAX + 1, 300][seed as usize % 8];
            let keys: Vec<Key> = (0..n as u32)
                .map(|slot| (rng.range_u64(0, 5) * 1_000_000, slot))
                .collect();
            let (mut q, mut o) = (
                TimeQueue::new(),
                Oracle {
                    heap: BinaryHeap::new(),
                    seq: 0,
                },
            );
            q.push_all(keys.clone());
            for &(at, slot) in &keys {
                o.push(at, slot);
            }
            assert_eq!(q.len(), n, "seed {seed}");
            let mut next = n as u32;
            while let Some(k) = o.pop() {
                assert_eq!(q.pop(), Some(k), "seed {seed}");
                if rng.chance(0.3) {
                    let at = k.0 + rng.range_u64(0, 3) * 1_000_000;
                    q.push(at, next);
                    o.push(at, next);
                    next += 1;
                }
            }
            assert_eq!(q.pop(), None, "seed {seed}");
        }
    }

    #[test]
    fn a_queue_moving_between_its_two_forms_keeps_the_order() {
        // fanout 3, growing and shrinking phases across both thresholds
        let deltas = [0, 0, 1, 7, 1_000, 1 << 20, 1 << 33];
        let mut switches = 0;
        for seed in 0..40 {
            switches += agree_switching(seed, 5_000, &deltas, 3, 0.0, true).1;
        }
        assert!(switches > 100, "only {switches} changes of form");
        // ties only: every key at the time last popped
        let ties: usize = (0..20)
            .map(|seed| agree_switching(seed, 5_000, &[0], 3, 0.0, true).1)
            .sum();
        assert!(ties > 10, "only {ties} changes of form");
    }

    #[test]
    fn pops_in_the_order_of_a_binary_heap_on_time_then_push_order() {
        // many ties (0 and repeats), small and huge gaps, bursts
        let deltas = [
            0,
            0,
            1,
            2,
            3,
            1_000,
            999_999,
            1 << 20,
            1 << 40,
            u64::MAX / 4,
        ];
        for seed in 0..200 {
            assert!(agree(seed, 400, &deltas, 1 + (seed as usize % 5)) > 0);
        }
        // one long run through the compaction of bucket 0 and the freeing of big buckets
        assert!(agree(7, 60_000, &[0, 0, 0, 5, 1 << 33], 3) > 10_000);
    }

    #[test]
    fn a_push_into_the_past_breaks_the_invariant() {
        let mut q = TimeQueue::new();
        q.push(10, 0);
        q.push(20, 1);
        assert_eq!(q.pop(), Some((10, 0)));
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| q.push(9, 2)))
            .expect_err("a push into the past panics");
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("the queue never goes back in time"), "{msg}");
    }
}
