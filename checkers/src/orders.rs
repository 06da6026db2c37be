//! The orders of one instant's events. Nothing orders two nodes' events of one global time,
//! so a checker that judges an instant as a set asks whether *some* order of them, each node
//! keeping its own program order, satisfies the property throughout
//! ([`crate::mutual_exclusion`], [`crate::election::uniqueness`]).
//!
//! Two limits bound the search: [`ORDERS_MAX`] points in one instant, and [`ORDERS_TOTAL_MAX`]
//! over a whole trace (each checker its own count), so that a trace of many hard instants ends
//! in seconds, *could not judge*, rather than in minutes. Nodes that share nothing (no term, no
//! resource) are searched apart ([`components`]): their events never constrain each other.

use std::collections::{BTreeMap, BTreeSet};

/// The most points of the nodes' progress [`some_order`] visits in one instant; past it the
/// instant is not judged (the checker could not judge the run).
pub const ORDERS_MAX: usize = 100_000;

/// The most entries (points visited × nodes of the instant) [`some_order`] keeps in one
/// instant: a point is one count per node, so an instant of thousands of nodes reaches its
/// memory limit long before [`ORDERS_MAX`] points (2,000 nodes entering 2,000 sections at once
/// took 19 GB before the search was bounded this way).
pub const ORDER_CELLS_MAX: usize = 16_000_000;

/// The most points [`some_order`] visits over one trace, all instants together (each checker
/// keeps its own count; about 10 s of search). Past it every instant that needs a search is
/// not judged: a hand-made trace of 2,000 instants, each past [`ORDERS_MAX`], took about 17
/// minutes to say *could not judge*.
pub const ORDERS_TOTAL_MAX: usize = 2_000_000;

/// Why an instant at `t_ns` was not judged when [`some_order`] gave no answer, `left` points of
/// the trace's search being left after it.
pub fn undecided_why(t_ns: u64, left: usize) -> String {
    if left == 0 {
        format!(
            "the search of the instants' orders reached its bound for the whole trace \
             ({ORDERS_TOTAL_MAX} points) at {:.6} ms; later instants that need it are not \
             judged",
            t_ns as f64 / 1e6
        )
    } else {
        format!(
            "the events at {:.6} ms have more than {ORDERS_MAX} orders to search",
            t_ns as f64 / 1e6
        )
    }
}

/// Whether each group of `items` (grouped by what they `touches`, [`components`]) `fits`:
/// `Err` holds the first group that does not, `None` says some group could not be decided
/// (and none was found not to fit).
pub fn each_group_fits<T: Copy, K: Ord + Copy>(
    items: &[T],
    touches: &[Vec<K>],
    mut fits: impl FnMut(&[T]) -> Option<bool>,
) -> Option<Result<(), Vec<T>>> {
    let mut all = Some(Ok(()));
    for group in components(touches) {
        let group: Vec<T> = group.iter().map(|&i| items[i]).collect();
        match fits(&group) {
            Some(false) => return Some(Err(group)),
            None => all = None,
            Some(true) => {}
        }
    }
    all
}

/// The groups of nodes whose events constrain each other: `touches[i]` lists what node `i`'s
/// events read or change (terms, resources); two nodes are in one group when they touch a
/// common key, directly or through others. Each group lists node indices in increasing order;
/// groups come in the order of their lowest index.
pub fn components<K: Ord + Copy>(touches: &[Vec<K>]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..touches.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first: BTreeMap<K, usize> = BTreeMap::new();
    for (i, keys) in touches.iter().enumerate() {
        for &k in keys {
            let j = *first.entry(k).or_insert(i);
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            // the lower index is the root, so groups keep the order of their lowest node
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..touches.len() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

/// Whether the events of one instant — `lens[i]` events of node `i`, taken in its own order —
/// can all be taken, node `i`'s next one only when `allowed(at, i)` (`at[j]`: how many events
/// node `j` has taken, which fixes the state). A depth-first search over those points of
/// progress, each visited once, lowest node first, making one point at a time (its memory is
/// the path and the points seen); `None` when more than [`ORDERS_MAX`] points, or
/// [`ORDER_CELLS_MAX`] entries, or more than the `left` points of the trace's
/// [`ORDERS_TOTAL_MAX`], would be visited. The points visited are taken from `left`.
pub fn some_order(
    lens: &[usize],
    left: &mut usize,
    allowed: impl FnMut(&[usize], usize) -> bool,
) -> Option<bool> {
    let max = ORDERS_MAX
        .min(ORDER_CELLS_MAX / lens.len().max(1))
        .min(*left);
    let (found, visited) = some_order_within(lens, max, allowed);
    *left = left.saturating_sub(visited);
    found
}

/// [`some_order`] visiting at most `max` points; and the points it visited.
fn some_order_within(
    lens: &[usize],
    max: usize,
    mut allowed: impl FnMut(&[usize], usize) -> bool,
) -> (Option<bool>, usize) {
    let done = |at: &[usize]| at.iter().zip(lens).all(|(k, n)| k == n);
    let mut at = vec![0usize; lens.len()];
    if done(&at) {
        return (Some(true), 0);
    }
    let mut seen: BTreeSet<Vec<usize>> = BTreeSet::from([at.clone()]);
    // per depth: the next node to try there; and the node each depth moved
    let mut next: Vec<usize> = vec![0];
    let mut moved: Vec<usize> = Vec::new();
    while let Some(from) = next.last_mut() {
        let mut step = None;
        while *from < lens.len() {
            let i = *from;
            *from += 1;
            if at[i] < lens[i] && allowed(&at, i) {
                step = Some(i);
                break;
            }
        }
        let Some(i) = step else {
            // every move from here was tried: back up one
            next.pop();
            if let Some(i) = moved.pop() {
                at[i] -= 1;
            }
            continue;
        };
        at[i] += 1;
        if done(&at) {
            return (Some(true), seen.len());
        }
        if !seen.insert(at.clone()) {
            at[i] -= 1;
            continue;
        }
        if seen.len() > max {
            return (None, seen.len());
        }
        moved.push(i);
        next.push(0);
    }
    (Some(false), seen.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two nodes, each taking a token then giving it back, one token: an order exists; two
    /// nodes that each need the other's token first: none; a wide instant: past the bound.
    #[test]
    fn finds_an_order_or_says_there_is_none_or_that_there_are_too_many() {
        // node i's events: take (0), give (1); a take only when nobody holds the token
        let holds = |at: &[usize], j: usize| at[j] == 1;
        let left = &mut ORDERS_TOTAL_MAX.clone();
        assert_eq!(
            some_order(&[2, 2], left, |at, i| at[i] == 1
                || !(0..2).any(|j| j != i && holds(at, j))),
            Some(true)
        );
        assert_eq!(some_order(&[1, 1], left, |_, _| false), Some(false));
        assert_eq!(some_order(&[3; 12], left, |_, _| false), Some(false));
        // node 23 may never act: every subset of the others' steps is visited first
        assert_eq!(some_order_within(&[1; 24], 1000, |_, i| i != 23).0, None);
        assert_eq!(
            some_order_within(&[1; 8], 1000, |_, i| i != 7),
            (Some(false), 128)
        );
    }

    /// The points of a whole trace are counted: a search that would fit in one instant is
    /// not made once the trace's points are spent, and says so (`None`).
    #[test]
    fn the_points_of_a_whole_trace_are_bounded() {
        let mut left = 200;
        // the 2^7 subsets of the nodes that may act, then too few left for a second instant
        assert_eq!(some_order(&[1; 8], &mut left, |_, i| i != 7), Some(false));
        assert_eq!(left, 72);
        assert_eq!(some_order(&[1; 8], &mut left, |_, i| i != 7), None);
        assert_eq!(left, 0);
        // an instant with nothing to order needs no point
        assert_eq!(some_order(&[0, 0], &mut left, |_, _| false), Some(true));
    }

    /// Nodes group by what they touch, through chains of shared keys; a node touching
    /// nothing is alone.
    #[test]
    fn nodes_group_by_shared_keys() {
        let touches: Vec<Vec<u64>> = vec![vec![1], vec![7], vec![2, 1], vec![], vec![2], vec![7]];
        assert_eq!(
            components(&touches),
            vec![vec![0, 2, 4], vec![1, 5], vec![3]]
        );
        // a chain joins its two ends
        let chain: Vec<Vec<u64>> = vec![vec![1], vec![3], vec![2, 3], vec![1, 2]];
        assert_eq!(components(&chain), vec![vec![0, 1, 2, 3]]);
    }

    /// A wide instant of independent nodes is one path, not every order: 2,000 nodes each
    /// entering a section of its own used to take 19 GB and not end.
    #[test]
    fn a_wide_instant_of_independent_nodes_is_found_along_one_path() {
        let mut calls = 0u64;
        let left = &mut ORDERS_TOTAL_MAX.clone();
        assert_eq!(
            some_order(&[1; 2000], left, |_, _| {
                calls += 1;
                true
            }),
            Some(true)
        );
        assert_eq!(calls, 2000, "one allowed move per node");
        // the entries bound: a point is one count per node
        assert!(ORDERS_MAX.min(ORDER_CELLS_MAX / 10_000) < ORDERS_MAX);
        assert_eq!(some_order(&[1; 10_000], left, |_, i| i != 0), None);
    }
}
