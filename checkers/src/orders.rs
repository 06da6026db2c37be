//! The orders of one instant's events. Nothing orders two nodes' events of one global time,
//! so a checker that judges an instant as a set asks whether *some* order of them, each node
//! keeping its own program order, satisfies the property throughout
//! ([`crate::mutual_exclusion`], [`crate::election::uniqueness`]).

use std::collections::BTreeSet;

/// The most points of the nodes' progress [`some_order`] visits in one instant; past it the
/// instant is not judged (the checker could not judge the run).
pub const ORDERS_MAX: usize = 100_000;

/// The most entries (points visited × nodes of the instant) [`some_order`] keeps in one
/// instant: a point is one count per node, so an instant of thousands of nodes reaches its
/// memory limit long before [`ORDERS_MAX`] points (2,000 nodes entering 2,000 sections at once
/// took 19 GB before the search was bounded this way).
pub const ORDER_CELLS_MAX: usize = 16_000_000;

/// Whether the events of one instant — `lens[i]` events of node `i`, taken in its own order —
/// can all be taken, node `i`'s next one only when `allowed(at, i)` (`at[j]`: how many events
/// node `j` has taken, which fixes the state). A depth-first search over those points of
/// progress, each visited once, lowest node first, making one point at a time (its memory is
/// the path and the points seen); `None` when more than [`ORDERS_MAX`] points, or
/// [`ORDER_CELLS_MAX`] entries, would be visited.
pub fn some_order(lens: &[usize], allowed: impl FnMut(&[usize], usize) -> bool) -> Option<bool> {
    some_order_within(
        lens,
        ORDERS_MAX.min(ORDER_CELLS_MAX / lens.len().max(1)),
        allowed,
    )
}

/// [`some_order`] visiting at most `max` points.
fn some_order_within(
    lens: &[usize],
    max: usize,
    mut allowed: impl FnMut(&[usize], usize) -> bool,
) -> Option<bool> {
    let done = |at: &[usize]| at.iter().zip(lens).all(|(k, n)| k == n);
    let mut at = vec![0usize; lens.len()];
    if done(&at) {
        return Some(true);
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
            return Some(true);
        }
        if !seen.insert(at.clone()) {
            at[i] -= 1;
            continue;
        }
        if seen.len() > max {
            return None;
        }
        moved.push(i);
        next.push(0);
    }
    Some(false)
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
        assert_eq!(
            some_order(&[2, 2], |at, i| at[i] == 1
                || !(0..2).any(|j| j != i && holds(at, j))),
            Some(true)
        );
        assert_eq!(some_order(&[1, 1], |_, _| false), Some(false));
        assert_eq!(some_order(&[3; 12], |_, _| false), Some(false));
        // node 23 may never act: every subset of the others' steps is visited first
        assert_eq!(some_order_within(&[1; 24], 1000, |_, i| i != 23), None);
        assert_eq!(some_order_within(&[1; 8], 1000, |_, i| i != 7), Some(false));
    }

    /// A wide instant of independent nodes is one path, not every order: 2,000 nodes each
    /// entering a section of its own used to take 19 GB and not end.
    #[test]
    fn a_wide_instant_of_independent_nodes_is_found_along_one_path() {
        let mut calls = 0u64;
        assert_eq!(
            some_order(&[1; 2000], |_, _| {
                calls += 1;
                true
            }),
            Some(true)
        );
        assert_eq!(calls, 2000, "one allowed move per node");
        // the entries bound: a point is one count per node
        assert!(ORDERS_MAX.min(ORDER_CELLS_MAX / 10_000) < ORDERS_MAX);
        assert_eq!(some_order(&[1; 10_000], |_, i| i != 0), None);
    }
}
