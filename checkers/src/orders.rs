//! The orders of one instant's events. Nothing orders two nodes' events of one global time,
//! so a checker that judges an instant as a set asks whether *some* order of them, each node
//! keeping its own program order, satisfies the property throughout
//! ([`crate::mutual_exclusion`], [`crate::election::uniqueness`]).

use std::collections::BTreeSet;

/// The most points of the nodes' progress [`some_order`] visits in one instant; past it the
/// instant is not judged (the checker could not judge the run).
pub const ORDERS_MAX: usize = 100_000;

/// Whether the events of one instant — `lens[i]` events of node `i`, taken in its own order —
/// can all be taken, node `i`'s next one only when `allowed(at, i)` (`at[j]`: how many events
/// node `j` has taken, which fixes the state). A depth-first search over those points of
/// progress, each visited once; `None` when more than [`ORDERS_MAX`] would be visited.
pub fn some_order(lens: &[usize], allowed: impl FnMut(&[usize], usize) -> bool) -> Option<bool> {
    some_order_within(lens, ORDERS_MAX, allowed)
}

/// [`some_order`] visiting at most `max` points.
fn some_order_within(
    lens: &[usize],
    max: usize,
    mut allowed: impl FnMut(&[usize], usize) -> bool,
) -> Option<bool> {
    let mut seen: BTreeSet<Vec<usize>> = BTreeSet::new();
    let mut stack = vec![vec![0usize; lens.len()]];
    while let Some(at) = stack.pop() {
        if at.iter().zip(lens).all(|(k, n)| k == n) {
            return Some(true);
        }
        if !seen.insert(at.clone()) {
            continue;
        }
        if seen.len() > max {
            return None;
        }
        for i in 0..lens.len() {
            if at[i] < lens[i] && allowed(&at, i) {
                let mut next = at.clone();
                next[i] += 1;
                stack.push(next);
            }
        }
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
}
