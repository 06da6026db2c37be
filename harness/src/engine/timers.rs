//! A node's pending timers on the native engine: a vector sorted by timer id.
//!
//! A node has a handful of pending timers at a time (a retry, an election timeout, a
//! heartbeat), and it sets and fires them all the time: an election algorithm resets its
//! timeout at every heartbeat. A `BTreeMap` allocated its leaf at the first insert and freed it
//! at the last remove, so a node with one timer at a time paid an allocation and a free for
//! each one, and a search through the tree's machinery for each lookup. The vector keeps its
//! memory for the run, appends (ids only grow, so a new timer goes last) and finds an id by a
//! binary search over a few entries. It iterates in id order, as the map did, so rescheduling
//! after a clock step pushes the same keys in the same order.

use super::invariant;
use crate::process::TimerId;

/// Pending timers of one node, by id (see the [module](self) documentation).
pub(crate) struct Timers<T> {
    /// Sorted by id, no id twice.
    entries: Vec<(TimerId, T)>,
}

impl<T> Timers<T> {
    /// No timer pending.
    pub(crate) fn new() -> Self {
        Timers {
            entries: Vec::new(),
        }
    }

    /// Where `tid` is, or would go.
    #[inline]
    fn find(&self, tid: TimerId) -> Result<usize, usize> {
        // Ids grow, so a lookup is most often for the last one or near it; a binary search of
        // a few entries is a couple of compares either way.
        self.entries.binary_search_by_key(&tid, |&(id, _)| id)
    }

    /// Adds timer `tid` (replacing the one of that id, if any, as a map would).
    #[inline]
    pub(crate) fn insert(&mut self, tid: TimerId, value: T) {
        let i = match self.entries.last() {
            Some(&(last, _)) if last >= tid => match self.find(tid) {
                Ok(i) => {
                    self.entries[i].1 = value;
                    return;
                }
                Err(i) => i,
            },
            _ => self.entries.len(),
        };
        self.entries.insert(i, (tid, value));
        invariant(
            (i == 0 || self.entries[i - 1].0 < tid)
                && self.entries.get(i + 1).is_none_or(|&(next, _)| tid < next),
            "pending timers stay sorted by id",
            || format!("timer {} inserted at {i} of {}", tid.0, self.entries.len()),
        );
    }

    /// Removes timer `tid` and returns it, if pending.
    #[inline]
    pub(crate) fn remove(&mut self, tid: TimerId) -> Option<T> {
        let i = self.find(tid).ok()?;
        Some(self.entries.remove(i).1)
    }

    /// Timer `tid`, if pending.
    #[inline]
    pub(crate) fn get(&self, tid: TimerId) -> Option<&T> {
        self.find(tid).ok().map(|i| &self.entries[i].1)
    }

    /// Every pending timer, in id order.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (TimerId, &mut T)> {
        self.entries.iter_mut().map(|(id, v)| (*id, v))
    }

    /// Pending timers.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets every timer (a crash), keeping the memory.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The vector answers as the map it replaces, whatever the order of ids and operations.
    #[test]
    fn answers_as_a_btreemap() {
        let mut rng = crate::SimRng::new(11);
        for _ in 0..200 {
            let (mut t, mut m) = (Timers::new(), BTreeMap::new());
            let mut next = 0u64;
            for step in 0..60u64 {
                match rng.index(5) {
                    0 | 1 => {
                        // mostly growing ids, sometimes an old or a repeated one
                        let id = if rng.chance(0.8) {
                            next += 1;
                            next
                        } else {
                            rng.range_u64(0, next + 1)
                        };
                        t.insert(TimerId(id), step);
                        m.insert(TimerId(id), step);
                    }
                    2 => {
                        let id = TimerId(rng.range_u64(0, next + 1));
                        assert_eq!(t.remove(id), m.remove(&id));
                    }
                    3 => {
                        let id = TimerId(rng.range_u64(0, next + 1));
                        assert_eq!(t.get(id), m.get(&id));
                    }
                    _ => {
                        for ((a, x), (b, y)) in t.iter_mut().zip(m.iter_mut()) {
                            assert_eq!(a, *b);
                            assert_eq!(*x, *y);
                            *x += 1;
                            *y += 1;
                        }
                    }
                }
                assert_eq!(t.len(), m.len());
            }
            t.clear();
            assert_eq!(t.len(), 0);
            assert_eq!(t.get(TimerId(1)), None);
        }
    }
}
