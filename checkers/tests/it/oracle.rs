//! Reference oracles: one small, obviously correct (often quadratic) function per property,
//! written from the property's *definition* over the whole trace — not from the checkers'
//! code. `differential.rs` compares them with the online checkers on random and mutated
//! traces; `adversarial.rs` uses them to double-check the hand-made corpus.
//!
//! Conventions shared by every oracle (they are the definitions the checkers' docs give):
//! - Times are global ns. `end_ns` is the end of the run; a deadline `d` is *missed* when the
//!   awaited thing is still outstanding at some instant `> d` that the run reached, and *not
//!   judged* (→ `Unjudged`) when it is outstanding at the end and `d >= end_ns`.
//! - `quiet_ms` is the scenario's quiet time (its last fault), `bound_ms` the liveness bound.
//! - Happens-before is the ground truth: program order of each node in `0..nodes` plus an edge
//!   from a `send` event to every later `deliver` naming it in `sent`.
#![allow(dead_code)]
// Index loops read closest to the definitions.
#![allow(clippy::needless_range_loop)]

use sincro_harness::process::ClockAdjust;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{Fault, NodeId, Observation, Trace};
use std::collections::{BTreeMap, BTreeSet};

pub const MS: u64 = 1_000_000;

/// What an oracle says about a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OracleVerdict {
    Pass,
    Violation(String),
    Unjudged(String),
}

impl OracleVerdict {
    /// `pass`, `violation` or `unjudged`.
    pub fn kind(&self) -> &'static str {
        match self {
            OracleVerdict::Pass => "pass",
            OracleVerdict::Violation(_) => "violation",
            OracleVerdict::Unjudged(_) => "unjudged",
        }
    }
}

use OracleVerdict::{Pass, Unjudged, Violation};

/// The settings a property may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub quiet_ms: u64,
    pub bound_ms: u64,
    pub end_ns: u64,
}

/// The oracle for `property` (a name of `sincro_checkers::by_name`).
pub fn judge(property: &str, trace: &Trace, p: &Params) -> OracleVerdict {
    let n = trace.nodes;
    let ev = trace.events();
    match property {
        "mutual_exclusion" => mutual_exclusion(ev),
        "lamport_condition" => lamport_condition(ev, n),
        "vector_causality" => vector_causality(ev, n),
        "causal_delivery" => causal_delivery(ev, n),
        "total_order" => total_order(ev, n),
        "deadlock_soundness" => match foreign_end_ns(ev) {
            None => deadlock_soundness(ev, n),
            Some(t) => judged_before(deadlock_soundness(&before(ev, t), n), t),
        },
        "monotonic_clock" => monotonic_clock(ev),
        "leader_uniqueness" => leader_uniqueness(ev, n),
        "one_leader_per_term" => one_leader_per_term(ev, n),
        "one_vote_per_term" => one_vote_per_term(ev, n),
        "no_abdication" => no_abdication(ev, n),
        "single_acting_leader" => single_acting_leader(ev, n),
        "leader_stability" => {
            // the plan `checker_verdict`'s scenario has: a heal at the quiet time
            let plan: Vec<(u64, Fault)> = if p.quiet_ms > 0 {
                vec![(p.quiet_ms * MS, Fault::Heal)]
            } else {
                Vec::new()
            };
            leader_stability_between_faults(ev, n, &plan, p.quiet_ms, p.end_ns)
        }
        "bounded_waiting" => bounded_waiting(ev, n.saturating_sub(1)),
        "liveness" => liveness(ev, p),
        "no_deadlock" => no_deadlock(ev, p),
        "election_termination" => election_termination(ev, n, p),
        "leader_agreement" => leader_agreement(ev, n, p),
        "leader_validity" => leader_validity(ev, n, p),
        "deadlock_completeness" => match foreign_end_ns(ev) {
            None => deadlock_completeness(ev, n, p),
            Some(t) => {
                let cut = Params { end_ns: t, ..*p };
                judged_before(deadlock_completeness(&before(ev, t), n, &cut), t)
            }
        },
        "replica_agreement" => replica_agreement(ev, n, p),
        other => panic!("no oracle for {other}"),
    }
}

/// The time of the first `wait_end` whose node never observed (`wait_for`) that edge before
/// it: the deadlock properties' contract (the observer ends its edges) is broken there.
fn foreign_end_ns(ev: &[Event]) -> Option<u64> {
    let mut seen: BTreeSet<(Option<NodeId>, NodeId, NodeId)> = BTreeSet::new();
    for e in ev {
        match obs(e) {
            Some(Observation::WaitFor { waiter, on }) => {
                seen.insert((e.node, *waiter, *on));
            }
            Some(Observation::WaitEnd { waiter, on })
                if !seen.contains(&(e.node, *waiter, *on)) =>
            {
                return Some(e.t_ns)
            }
            _ => {}
        }
    }
    None
}

/// The events of the instants before `t_ns`.
fn before(ev: &[Event], t_ns: u64) -> Vec<Event> {
    ev.iter().filter(|e| e.t_ns < t_ns).cloned().collect()
}

/// A violation of the instants before a broken contract at `t_ns` stands; anything else is
/// not judged.
fn judged_before(v: OracleVerdict, t_ns: u64) -> OracleVerdict {
    match v {
        Violation(why) => Violation(why),
        _ => Unjudged(format!(
            "a wait_end by a node that never observed its edge at {t_ns}"
        )),
    }
}

fn obs(e: &Event) -> Option<&Observation> {
    match &e.kind {
        EventKind::Observe { obs } => Some(obs),
        _ => None,
    }
}

/// The node a crash or restart fault is about.
fn crash_or_restart(e: &Event) -> Option<NodeId> {
    match &e.kind {
        EventKind::Fault {
            fault: Fault::Crash { node } | Fault::Restart { node },
        } => Some(*node),
        _ => None,
    }
}

/// `a` is before `b` where `None` is +infinity.
fn lt(a: u64, b: Option<u64>) -> bool {
    b.is_none_or(|b| a < b)
}

/// Two half-open intervals `[s1, e1)`, `[s2, e2)` (`None`: open to the end) share an instant.
/// Events of one instant are a set: `[t, t)` shares an instant with `[s, e)` only when
/// `s < t < e`, and an exit and an entry at the same `t` are a hand-over.
fn overlap(s1: u64, e1: Option<u64>, s2: u64, e2: Option<u64>) -> bool {
    lt(s1, e2) && lt(s2, e1)
}

// ---------------------------------------------------------------------------------------
// Happens-before (ground truth)

/// `hb[i][j]`: event `i` happened before event `j` (both of a node in `0..nodes`).
pub fn happens_before(ev: &[Event], nodes: usize) -> Vec<Vec<bool>> {
    let len = ev.len();
    let in_range = |e: &Event| e.node.is_some_and(|n| n < nodes);
    let mut hb = vec![vec![false; len]; len];
    for j in 0..len {
        if !in_range(&ev[j]) {
            continue;
        }
        let mut direct: Vec<usize> = Vec::new();
        // program order: the previous event of the same node
        if let Some(i) = (0..j)
            .rev()
            .find(|&i| in_range(&ev[i]) && ev[i].node == ev[j].node)
        {
            direct.push(i);
        }
        // message: every earlier send event named by the delivery
        if let EventKind::Deliver { sent, .. } = ev[j].kind {
            for i in 0..j {
                if in_range(&ev[i])
                    && ev[i].id == sent
                    && matches!(ev[i].kind, EventKind::Send { .. })
                {
                    direct.push(i);
                }
            }
        }
        for i in direct {
            hb[i][j] = true;
            for k in 0..i {
                if hb[k][i] {
                    hb[k][j] = true;
                }
            }
        }
    }
    hb
}

// ---------------------------------------------------------------------------------------
// Safety properties

/// No two nodes inside the critical section of one resource at the same global time; a node
/// entering again without leaving is reported. A crash or restart ends the node's stay.
pub fn mutual_exclusion(ev: &[Event]) -> OracleVerdict {
    // (node, resource, enter t, exit t)
    let mut stays: Vec<(NodeId, u32, u64, Option<u64>)> = Vec::new();
    let mut open: BTreeMap<(NodeId, u32), usize> = BTreeMap::new();
    for e in ev {
        if let Some(x) = crash_or_restart(e) {
            let keys: Vec<_> = open.keys().filter(|k| k.0 == x).copied().collect();
            for k in keys {
                let i = open.remove(&k).unwrap();
                stays[i].3 = Some(e.t_ns);
            }
            continue;
        }
        let Some(n) = e.node else { continue };
        match obs(e) {
            Some(Observation::CsEnter { resource }) => {
                if open.contains_key(&(n, *resource)) {
                    return Violation(format!("node {n} entered resource {resource} twice"));
                }
                open.insert((n, *resource), stays.len());
                stays.push((n, *resource, e.t_ns, None));
            }
            Some(Observation::CsExit { resource }) => {
                if let Some(i) = open.remove(&(n, *resource)) {
                    stays[i].3 = Some(e.t_ns);
                }
            }
            _ => {}
        }
    }
    for (i, a) in stays.iter().enumerate() {
        for b in &stays[i + 1..] {
            if a.0 != b.0 && a.1 == b.1 && overlap(a.2, a.3, b.2, b.3) {
                return Violation(format!(
                    "nodes {} and {} inside resource {} together",
                    a.0, b.0, a.1
                ));
            }
        }
    }
    // Intervals cannot see an instant whose orders each put two nodes in one section while
    // every resource alone has a hand-over (a swap): every order of each instant is tried.
    let mut holders: BTreeSet<(NodeId, u32)> = BTreeSet::new();
    let mut i = 0;
    while i < ev.len() {
        let t = ev[i].t_ns;
        // (node, Some((resource, enter)) or None for a crash or restart), in trace order
        let mut moves: BTreeMap<NodeId, Vec<Option<(u32, bool)>>> = BTreeMap::new();
        while i < ev.len() && ev[i].t_ns == t {
            let e = &ev[i];
            i += 1;
            if let Some(x) = crash_or_restart(e) {
                moves.entry(x).or_default().push(None);
                continue;
            }
            let Some(n) = e.node else { continue };
            match obs(e) {
                Some(Observation::CsEnter { resource }) => {
                    moves.entry(n).or_default().push(Some((*resource, true)))
                }
                Some(Observation::CsExit { resource }) => {
                    moves.entry(n).or_default().push(Some((*resource, false)))
                }
                _ => {}
            }
        }
        let lists: Vec<NodeMoves> = moves.into_iter().collect();
        if !interleaves(
            &lists,
            &mut vec![0; lists.len()],
            &mut holders.clone(),
            &take_section,
        ) {
            return Violation(format!(
                "no order of the events at {t} ns keeps the sections exclusive"
            ));
        }
        for (n, list) in &lists {
            for m in list {
                match *m {
                    Some((r, true)) => {
                        holders.insert((*n, r));
                    }
                    Some((r, false)) => {
                        holders.remove(&(*n, r));
                    }
                    None => holders.retain(|h| h.0 != *n),
                }
            }
        }
    }
    Pass
}

/// A node's section moves of one instant, in its order: `Some((resource, enters))`, or `None`
/// for a crash or restart (it leaves every section).
type NodeMoves = (NodeId, Vec<Option<(u32, bool)>>);

/// Whether the nodes' remaining moves (from `at`) have an interleaving, each node keeping its
/// own order, in which `take` accepts every move (it applies the move to `state`, or refuses
/// it): tried one by one, no memo (the cases are small).
fn interleaves<M: Copy, S: Clone>(
    lists: &[(NodeId, Vec<M>)],
    at: &mut Vec<usize>,
    state: &mut S,
    take: &dyn Fn(&mut S, NodeId, M) -> bool,
) -> bool {
    if lists.iter().zip(at.iter()).all(|((_, l), &k)| k == l.len()) {
        return true;
    }
    for i in 0..lists.len() {
        let (n, list) = &lists[i];
        let Some(&m) = list.get(at[i]) else { continue };
        let saved = state.clone();
        if take(state, *n, m) {
            at[i] += 1;
            let fits = interleaves(lists, at, state, take);
            at[i] -= 1;
            if fits {
                return true;
            }
        }
        *state = saved;
    }
    false
}

/// A section move of [`mutual_exclusion`]'s search: enter or leave a resource, or (`None`) a
/// crash or restart, which leaves every section; refused when another node holds it.
fn take_section(holders: &mut BTreeSet<(NodeId, u32)>, n: NodeId, m: Option<(u32, bool)>) -> bool {
    match m {
        Some((r, true)) if holders.iter().any(|h| h.1 == r && h.0 != n) => return false,
        Some((r, true)) => {
            holders.insert((n, r));
        }
        Some((r, false)) => {
            holders.remove(&(n, r));
        }
        None => holders.retain(|h| h.0 != n),
    }
    true
}

/// A claim move of [`leader_uniqueness`]'s search: claim a term (refused when another node
/// claims it), or (`None`) end the node's claim.
fn take_claim(claiming: &mut BTreeMap<NodeId, u64>, n: NodeId, m: Option<u64>) -> bool {
    match m {
        Some(term) if claiming.iter().any(|(o, t)| *o != n && *t == term) => return false,
        Some(term) => {
            claiming.insert(n, term);
        }
        None => {
            claiming.remove(&n);
        }
    }
    true
}

fn logical(e: &Event, nodes: usize) -> Option<(u64, &Vec<u64>)> {
    if e.node.is_none_or(|n| n >= nodes) {
        return None;
    }
    match obs(e) {
        Some(Observation::LogicalTime { lamport, vector }) => Some((*lamport, vector)),
        _ => None,
    }
}

/// a → b ⇒ C(a) < C(b) over the `logical_time` observations.
pub fn lamport_condition(ev: &[Event], nodes: usize) -> OracleVerdict {
    let hb = happens_before(ev, nodes);
    for (i, a) in ev.iter().enumerate() {
        let Some((ca, _)) = logical(a, nodes) else {
            continue;
        };
        for (j, b) in ev.iter().enumerate() {
            let Some((cb, _)) = logical(b, nodes) else {
                continue;
            };
            if hb[i][j] && ca >= cb {
                return Violation(format!("event {i} -> {j} but C {ca} >= {cb}"));
            }
        }
    }
    Pass
}

fn vless(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x <= y) && a != b
}

/// VC(a) < VC(b) ⇔ a → b over the `logical_time` observations; every vector has `nodes`
/// entries. Judged over the whole trace, however long.
pub fn vector_causality(ev: &[Event], nodes: usize) -> OracleVerdict {
    let labelled: Vec<(usize, &Vec<u64>)> = ev
        .iter()
        .enumerate()
        .filter_map(|(i, e)| logical(e, nodes).map(|(_, v)| (i, v)))
        .collect();
    // Lamport clocks alone: no vector to judge (an empty vector among others is the wrong
    // length)
    if !labelled.is_empty() && labelled.iter().all(|(_, v)| v.is_empty()) {
        return Unjudged("no logical_time carries a vector".into());
    }
    if let Some((i, v)) = labelled.iter().find(|(_, v)| v.len() != nodes) {
        return Violation(format!("event {i} has a vector of {} entries", v.len()));
    }
    let hb = happens_before(ev, nodes);
    for &(i, vi) in &labelled {
        for &(j, vj) in &labelled {
            if i != j && hb[i][j] != vless(vi, vj) {
                return Violation(format!(
                    "events {i}, {j}: hb {} but VC< {}",
                    hb[i][j],
                    vless(vi, vj)
                ));
            }
        }
    }
    Pass
}

/// If multicast(m) → multicast(m'), every node that delivers m' has delivered m before —
/// except the sender of m, which need not deliver its own message at all (but if it does,
/// then before m'). Happens-before over the application events only (program order of the
/// `multicast` / `delivered` observations and multicast(m) → delivered(m)), whatever the
/// order of the lines of one instant. A `delivered` of an id not multicast by the end of its
/// instant is ignored; multicasting an id twice, delivering an id twice at one node, and
/// deliveries that happen before their own multicast (a cycle within one instant) are
/// violations.
pub fn causal_delivery(ev: &[Event], nodes: usize) -> OracleVerdict {
    // id -> time of its multicast
    let mut multicast_t: BTreeMap<&str, u64> = BTreeMap::new();
    for e in ev {
        if let (Some(n), Some(Observation::Multicast { id })) = (e.node, obs(e)) {
            if n < nodes && multicast_t.insert(id, e.t_ns).is_some() {
                return Violation(format!("{id} multicast twice"));
            }
        }
    }
    // A delivery at an earlier instant than its message's multicast came before its send;
    // deliveries that are all of messages never multicast judged nothing.
    let (mut judged, mut never) = (0, 0);
    for e in ev {
        if let (Some(n), Some(Observation::Delivered { id })) = (e.node, obs(e)) {
            match multicast_t.get(id.as_str()) {
                _ if n >= nodes => {}
                Some(&t) if t > e.t_ns => {
                    return Violation(format!("node {n} delivered {id} before its multicast"))
                }
                Some(_) => judged += 1,
                None => never += 1,
            }
        }
    }
    if judged == 0 && never > 0 {
        return Unjudged(format!("{never} deliveries, none of a multicast message"));
    }
    // application events: (position, node, is_multicast, id)
    let mut app: Vec<(usize, NodeId, bool, &str)> = Vec::new();
    let mut sender: BTreeMap<&str, (NodeId, usize)> = BTreeMap::new(); // id -> (node, app index)
    for (i, e) in ev.iter().enumerate() {
        let Some(n) = e.node.filter(|&n| n < nodes) else {
            continue;
        };
        match obs(e) {
            Some(Observation::Multicast { id }) => {
                sender.insert(id, (n, app.len()));
                app.push((i, n, true, id));
            }
            Some(Observation::Delivered { id })
                if multicast_t.get(id.as_str()).is_some_and(|&t| t <= e.t_ns) =>
            {
                if app.iter().any(|a| !a.2 && a.1 == n && a.3 == id) {
                    return Violation(format!("node {n} delivered {id} twice"));
                }
                app.push((i, n, false, id));
            }
            _ => {}
        }
    }
    // reach[a][b]: app event a happened before app event b (transitive closure of program
    // order and multicast -> delivery, in any direction of the trace's lines)
    let len = app.len();
    let mut reach = vec![vec![false; len]; len];
    for b in 0..len {
        if let Some(a) = (0..b).rev().find(|&a| app[a].1 == app[b].1) {
            reach[a][b] = true;
        }
        if !app[b].2 {
            reach[sender[app[b].3].1][b] = true;
        }
    }
    for k in 0..len {
        for a in 0..len {
            if reach[a][k] {
                for b in 0..len {
                    if reach[k][b] {
                        reach[a][b] = true;
                    }
                }
            }
        }
    }
    if let Some(a) = (0..len).find(|&a| reach[a][a]) {
        return Violation(format!(
            "node {} delivered {} before its multicast (a cycle within one instant)",
            app[a].1, app[a].3
        ));
    }
    let delivery =
        |node: NodeId, id: &str| app.iter().position(|a| !a.2 && a.1 == node && a.3 == id);
    for (m, &(sm, am)) in &sender {
        for (m2, &(_, am2)) in &sender {
            if m == m2 || !reach[am][am2] {
                continue;
            }
            for j in 0..nodes {
                let Some(d2) = delivery(j, m2) else { continue };
                match delivery(j, m) {
                    Some(d) if d < d2 => {}
                    None if j == sm => {}
                    _ => {
                        return Violation(format!(
                            "node {j} delivered {m2} without having delivered {m} first"
                        ))
                    }
                }
            }
        }
    }
    Pass
}

/// Any two messages delivered by two nodes are delivered by both in the same order; no node
/// delivers a message twice; and one sequence fits every node's order (the transitive
/// closure of "some node delivered x before y" relates no message to itself).
pub fn total_order(ev: &[Event], nodes: usize) -> OracleVerdict {
    let mut seq: Vec<Vec<&str>> = vec![Vec::new(); nodes];
    for e in ev {
        let Some(n) = e.node.filter(|&n| n < nodes) else {
            continue;
        };
        if let Some(Observation::Delivered { id }) = obs(e) {
            if seq[n].contains(&id.as_str()) {
                return Violation(format!("node {n} delivered {id} twice"));
            }
            seq[n].push(id);
        }
    }
    for a in 0..nodes {
        for b in 0..nodes {
            let pos = |s: &Vec<&str>, x: &str| s.iter().position(|y| *y == x);
            for (i, x) in seq[a].iter().enumerate() {
                for y in &seq[a][i + 1..] {
                    if let (Some(px), Some(py)) = (pos(&seq[b], x), pos(&seq[b], y)) {
                        if py < px {
                            return Violation(format!("nodes {a} and {b} disagree on {x}, {y}"));
                        }
                    }
                }
            }
        }
    }
    // Every pair each node ordered, closed transitively (Floyd-Warshall over the ids).
    let mut ids: Vec<&str> = seq.iter().flatten().copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let at = |x: &str| ids.binary_search(&x).expect("an id delivered");
    let k = ids.len();
    let mut before = vec![vec![false; k]; k];
    for s in &seq {
        for (i, x) in s.iter().enumerate() {
            for y in &s[i + 1..] {
                before[at(x)][at(y)] = true;
            }
        }
    }
    for m in 0..k {
        for i in 0..k {
            if before[i][m] {
                for j in 0..k {
                    if before[m][j] {
                        before[i][j] = true;
                    }
                }
            }
        }
    }
    match (0..k).find(|&i| before[i][i]) {
        Some(i) => Violation(format!(
            "no single sequence fits: {} precedes itself",
            ids[i]
        )),
        None => Pass,
    }
}

/// The ground-truth wait-for graph after `ev`: edge -> the observers of its live
/// observations (a `wait_for` adds one, a `wait_end` removes one — the ending node's own if
/// any, else nothing; a crash or restart of `x` removes every edge out of `x` and every
/// observation made by `x`).
pub fn wait_for_graph(ev: &[Event]) -> WaitGraph {
    let mut g = WaitGraph::new();
    for e in ev {
        wait_step(&mut g, e);
    }
    g
}

/// A wait-for graph: edge -> the observers of its live observations.
pub type WaitGraph = BTreeMap<(NodeId, NodeId), Vec<Option<NodeId>>>;

/// [`wait_for_graph`] after one more event (a `wait_end` by a node holding no observation
/// of its edge ends nothing).
fn wait_step(g: &mut WaitGraph, e: &Event) {
    if let Some(x) = crash_or_restart(e) {
        g.retain(|&(w, _), obs| {
            obs.retain(|o| *o != Some(x));
            w != x && !obs.is_empty()
        });
        return;
    }
    match obs(e) {
        Some(Observation::WaitFor { waiter, on }) => {
            g.entry((*waiter, *on)).or_default().push(e.node)
        }
        Some(Observation::WaitEnd { waiter, on }) => {
            if let Some(obs) = g.get_mut(&(*waiter, *on)) {
                if let Some(k) = obs.iter().position(|o| *o == e.node) {
                    obs.remove(k);
                    if obs.is_empty() {
                        g.remove(&(*waiter, *on));
                    }
                }
            }
        }
        _ => {}
    }
}

/// Whether `e` changes a wait-for graph or reports a deadlock.
fn deadlock_event(e: &Event) -> bool {
    crash_or_restart(e).is_some()
        || matches!(
            obs(e),
            Some(
                Observation::WaitFor { .. }
                    | Observation::WaitEnd { .. }
                    | Observation::DeadlockDetected { .. }
            )
        )
}

/// The deadlock events of `ev[first..end]` (one instant), each node's in trace order.
fn deadlock_lists(ev: &[Event], first: usize, end: usize) -> Vec<Vec<&Event>> {
    let mut lists: BTreeMap<Option<NodeId>, Vec<&Event>> = BTreeMap::new();
    for e in ev[first..end].iter().filter(|e| deadlock_event(e)) {
        lists.entry(e.node).or_default().push(e);
    }
    lists.into_values().collect()
}

/// Every state that some order of `lists` (each list in its own order) leaves, from `state`,
/// `take` allowing each step: an exhaustive enumeration, no pruning.
fn every_order<M: Copy, S: Clone + Ord>(
    lists: &[Vec<M>],
    at: &mut Vec<usize>,
    state: &S,
    take: &dyn Fn(&mut S, M) -> bool,
    ends: &mut BTreeSet<S>,
) {
    if lists.iter().zip(at.iter()).all(|(l, &k)| k == l.len()) {
        ends.insert(state.clone());
        return;
    }
    for i in 0..lists.len() {
        let Some(&m) = lists[i].get(at[i]) else {
            continue;
        };
        let mut next = state.clone();
        if take(&mut next, m) {
            at[i] += 1;
            every_order(lists, at, &next, take, ends);
            at[i] -= 1;
        }
    }
}

/// Nodes reachable from `from` in one or more edges, over nodes in `0..nodes`.
fn reachable_from(edges: &BTreeSet<(NodeId, NodeId)>, from: NodeId) -> BTreeSet<NodeId> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(x) = stack.pop() {
        for &(w, on) in edges {
            if w == x && seen.insert(on) {
                stack.push(on);
            }
        }
    }
    seen
}

fn edge_set(
    g: &BTreeMap<(NodeId, NodeId), Vec<Option<NodeId>>>,
    nodes: usize,
) -> BTreeSet<(NodeId, NodeId)> {
    g.keys()
        .filter(|(w, on)| *w < nodes && *on < nodes)
        .copied()
        .collect()
}

/// Every `deadlock_detected` of node `r` names `r` as initiator, and when it is made a
/// cycle of the wait-for graph over existing nodes passes through `r`, for some order of
/// each instant's events (each node's in trace order): every order of every instant is
/// tried from every graph the orders of the instants before can have left.
pub fn deadlock_soundness(ev: &[Event], nodes: usize) -> OracleVerdict {
    for e in ev {
        if let (Some(Observation::DeadlockDetected { initiator }), Some(r)) = (obs(e), e.node) {
            if *initiator != r {
                return Violation(format!(
                    "node {r} reported a deadlock as initiator {initiator}"
                ));
            }
        }
    }
    let take = |g: &mut WaitGraph, e: &Event| {
        wait_step(g, e);
        match (obs(e), e.node) {
            (Some(Observation::DeadlockDetected { .. }), Some(r)) => {
                reachable_from(&edge_set(g, nodes), r).contains(&r)
            }
            _ => true,
        }
    };
    let mut graphs = BTreeSet::from([WaitGraph::new()]);
    for (t, first, end) in instants(ev) {
        let lists = deadlock_lists(ev, first, end);
        let mut next = BTreeSet::new();
        for g in &graphs {
            every_order(&lists, &mut vec![0; lists.len()], g, &take, &mut next);
        }
        if next.is_empty() {
            return Violation(format!(
                "no order of the events at {t} ns has a cycle under every report"
            ));
        }
        graphs = next;
    }
    Pass
}

/// No software clock is set back by its algorithm: no negative `step`, and each reading of a
/// node's clock (`local_ns` of its events) is at least its previous reading plus the clock
/// jumps (faults) in between when their sum is negative. A jump's own event carries the
/// reading before the jump, judged like any other.
pub fn monotonic_clock(ev: &[Event]) -> OracleVerdict {
    let mut prev: BTreeMap<NodeId, i64> = BTreeMap::new();
    let mut jumped: BTreeMap<NodeId, i64> = BTreeMap::new();
    for e in ev {
        let Some(n) = e.node else { continue };
        if let EventKind::ClockAdjust {
            how: ClockAdjust::Step,
            delta_ns,
        } = e.kind
        {
            if delta_ns < 0 {
                return Violation(format!("node {n} stepped back by {delta_ns}"));
            }
        }
        if let Some(local) = e.local_ns {
            if let Some(&p) = prev.get(&n) {
                let allowed = jumped.get(&n).copied().unwrap_or(0).min(0);
                if local < p + allowed {
                    return Violation(format!("node {n}'s clock went back from {p} to {local}"));
                }
            }
            prev.insert(n, local);
            jumped.remove(&n);
        }
        if let EventKind::Fault {
            fault: Fault::ClockJump { node, delta_ms },
        } = &e.kind
        {
            *jumped.entry(*node).or_default() += (delta_ms * 1e6).round() as i64;
        }
    }
    // Judged only where some node has two readings, or a clock step.
    let mut readings: BTreeMap<NodeId, usize> = BTreeMap::new();
    for e in ev.iter().filter(|e| e.local_ns.is_some()) {
        if let Some(n) = e.node {
            *readings.entry(n).or_default() += 1;
        }
    }
    let stepped = ev.iter().any(|e| {
        e.node.is_some()
            && matches!(
                e.kind,
                EventKind::ClockAdjust {
                    how: ClockAdjust::Step,
                    ..
                }
            )
    });
    if !stepped && readings.values().all(|&k| k < 2) {
        return Unjudged("no node has two clock readings".into());
    }
    Pass
}

/// At any global time, at most one live node claims (`leader: Some(own id)`) a given term. A
/// claim lasts from the report to the node's next report of anything else, or its crash or
/// restart; claims are compared as intervals (same-instant events are a set).
pub fn leader_uniqueness(ev: &[Event], nodes: usize) -> OracleVerdict {
    // (node, term, from, to)
    let mut claims: Vec<(NodeId, u64, u64, Option<u64>)> = Vec::new();
    let mut open: BTreeMap<NodeId, usize> = BTreeMap::new();
    for e in ev {
        if let Some(x) = crash_or_restart(e) {
            if let Some(i) = open.remove(&x) {
                claims[i].3 = Some(e.t_ns);
            }
            continue;
        }
        let Some(n) = e.node.filter(|&n| n < nodes) else {
            continue;
        };
        let Some(Observation::Leader { leader, term }) = obs(e) else {
            continue;
        };
        let same_claim = open.get(&n).is_some_and(|&i| claims[i].1 == *term) && *leader == Some(n);
        if same_claim {
            continue;
        }
        if let Some(i) = open.remove(&n) {
            claims[i].3 = Some(e.t_ns);
        }
        if *leader == Some(n) {
            open.insert(n, claims.len());
            claims.push((n, *term, e.t_ns, None));
        }
    }
    for (i, a) in claims.iter().enumerate() {
        for b in &claims[i + 1..] {
            if a.0 != b.0 && a.1 == b.1 && overlap(a.2, a.3, b.2, b.3) {
                return Violation(format!("nodes {} and {} both lead term {}", a.0, b.0, a.1));
            }
        }
    }
    // Intervals cannot see an instant where every order puts two claimants on a term while
    // each term alone has a hand-over (two leaders swapping terms): every order is tried.
    let mut claiming: BTreeMap<NodeId, u64> = BTreeMap::new();
    let mut i = 0;
    while i < ev.len() {
        let t = ev[i].t_ns;
        // node -> its moves of the instant: Some(term) claims it, None ends its claim
        let mut moves: BTreeMap<NodeId, Vec<Option<u64>>> = BTreeMap::new();
        while i < ev.len() && ev[i].t_ns == t {
            let e = &ev[i];
            i += 1;
            if let Some(x) = crash_or_restart(e) {
                moves.entry(x).or_default().push(None);
                continue;
            }
            let Some(n) = e.node.filter(|&n| n < nodes) else {
                continue;
            };
            if let Some(Observation::Leader { leader, term }) = obs(e) {
                moves
                    .entry(n)
                    .or_default()
                    .push((*leader == Some(n)).then_some(*term));
            }
        }
        let lists: Vec<(NodeId, Vec<Option<u64>>)> = moves.into_iter().collect();
        if !interleaves(
            &lists,
            &mut vec![0; lists.len()],
            &mut claiming.clone(),
            &take_claim,
        ) {
            return Violation(format!(
                "no order of the claims at {t} ns keeps one per term"
            ));
        }
        for (n, list) in &lists {
            match list.last() {
                Some(Some(term)) => {
                    claiming.insert(*n, *term);
                }
                Some(None) => {
                    claiming.remove(n);
                }
                None => {}
            }
        }
    }
    Pass
}

/// At most one node acts as leader at any instant, whatever the terms: a node acts from its
/// `leader: Some(own id)` report (any term) until any other report of it, or a crash or
/// restart of it; two acting intervals of different nodes must not share an instant (same
/// instant rule as [`overlap`]).
pub fn single_acting_leader(ev: &[Event], nodes: usize) -> OracleVerdict {
    // (node, from, to)
    let mut acting: Vec<(NodeId, u64, Option<u64>)> = Vec::new();
    let mut open: BTreeMap<NodeId, usize> = BTreeMap::new();
    for e in ev {
        if let Some(x) = crash_or_restart(e) {
            if let Some(i) = open.remove(&x) {
                acting[i].2 = Some(e.t_ns);
            }
            continue;
        }
        let Some(n) = e.node.filter(|&n| n < nodes) else {
            continue;
        };
        if let EventKind::Start { incarnation } = e.kind {
            if incarnation > 0 {
                if let Some(i) = open.remove(&n) {
                    acting[i].2 = Some(e.t_ns);
                }
            }
            continue;
        }
        let Some(Observation::Leader { leader, .. }) = obs(e) else {
            continue;
        };
        if *leader == Some(n) {
            if let std::collections::btree_map::Entry::Vacant(v) = open.entry(n) {
                v.insert(acting.len());
                acting.push((n, e.t_ns, None));
            }
        } else if let Some(i) = open.remove(&n) {
            acting[i].2 = Some(e.t_ns);
        }
    }
    for (i, a) in acting.iter().enumerate() {
        for b in &acting[i + 1..] {
            if a.0 != b.0 && overlap(a.1, a.2, b.1, b.2) {
                return Violation(format!("nodes {} and {} both act as leader", a.0, b.0));
            }
        }
    }
    Pass
}

/// The election state of a run: who is alive, what each node believes, which links are cut.
#[derive(Clone, Debug)]
pub struct World {
    pub nodes: usize,
    pub alive: Vec<bool>,
    /// (leader, term) of each node's last report since it (re)started.
    pub belief: Vec<Option<(Option<NodeId>, u64)>>,
    /// cut[a][b]: a partition cuts a -> b.
    pub cut: Vec<Vec<bool>>,
}

impl World {
    pub fn new(nodes: usize) -> Self {
        World {
            nodes,
            alive: vec![true; nodes],
            belief: vec![None; nodes],
            cut: vec![vec![false; nodes]; nodes],
        }
    }

    /// A node that exists and has not crashed.
    pub fn is_alive(&self, x: NodeId) -> bool {
        x < self.nodes && self.alive[x]
    }

    pub fn reach(&self, a: NodeId, b: NodeId) -> bool {
        a == b || (a < self.nodes && b < self.nodes && !self.cut[a][b] && !self.cut[b][a])
    }

    pub fn live(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes).filter(|&v| self.alive[v])
    }

    /// Applies `e`; true when it is a leader report of a node in range.
    pub fn apply(&mut self, e: &Event) -> bool {
        let n = self.nodes;
        match &e.kind {
            EventKind::Fault { fault } => match fault {
                Fault::Crash { node } if *node < n => {
                    self.alive[*node] = false;
                    self.belief[*node] = None;
                }
                Fault::Restart { node } if *node < n => {
                    self.alive[*node] = true;
                    self.belief[*node] = None;
                }
                Fault::Partition { groups } => {
                    let group = |x: NodeId| groups.iter().position(|g| g.contains(&x));
                    for a in 0..n {
                        for b in 0..n {
                            if a != b && group(a) != group(b) {
                                self.cut[a][b] = true;
                            }
                        }
                    }
                }
                Fault::PartitionOneway { from, to } => {
                    for &a in from {
                        for &b in to {
                            if a != b && a < n && b < n {
                                self.cut[a][b] = true;
                            }
                        }
                    }
                }
                Fault::Heal => self.cut = vec![vec![false; n]; n],
                _ => {}
            },
            EventKind::Observe {
                obs: Observation::Leader { leader, term },
            } => {
                if let Some(x) = e.node.filter(|&x| x < n) {
                    self.belief[x] = Some((*leader, *term));
                    return true;
                }
            }
            _ => {}
        }
        false
    }

    /// Every live node names the same existing live leader (any terms); at least one live node.
    pub fn agreed(&self) -> Option<NodeId> {
        let mut names = BTreeSet::new();
        for v in self.live() {
            names.insert(self.belief[v]?.0?);
        }
        let l = *names.iter().next()?;
        (names.len() == 1 && self.is_alive(l)).then_some(l)
    }

    /// Like `agreed`, and every live node reports the same term.
    pub fn agreed_in_term(&self) -> Option<(NodeId, u64)> {
        let l = self.agreed()?;
        let terms: BTreeSet<u64> = self.live().map(|v| self.belief[v].unwrap().1).collect();
        (terms.len() == 1).then(|| (l, *terms.iter().next().unwrap()))
    }
}

/// Indices of the events grouped by instant: `(t, first, end)`.
fn instants(ev: &[Event]) -> Vec<(u64, usize, usize)> {
    let mut out: Vec<(u64, usize, usize)> = Vec::new();
    for (i, e) in ev.iter().enumerate() {
        match out.last_mut() {
            Some(last) if last.0 == e.t_ns => last.2 = i + 1,
            _ => out.push((e.t_ns, i, i + 1)),
        }
    }
    out
}

/// Once the live nodes agree on a live leader L in one term t in a state that holds over an
/// interval ending after quiet, no live node that already had a belief reports anything other
/// than (L, t) while L is alive and reachable from every live node. A later agreement on
/// another (leader, term) becomes the reference.
/// Every node that ever claimed leadership of a term (`leader: Some(itself)`), by term: more
/// than one for some term is a violation, whatever the order or the time.
pub fn one_leader_per_term(ev: &[Event], nodes: usize) -> OracleVerdict {
    let mut claimants: BTreeMap<u64, BTreeSet<NodeId>> = BTreeMap::new();
    for e in ev {
        if let (
            Some(x),
            Some(Observation::Leader {
                leader: Some(l),
                term,
            }),
        ) = (e.node, obs(e))
        {
            if x < nodes && *l == x {
                claimants.entry(*term).or_default().insert(x);
            }
        }
    }
    match claimants.iter().find(|(_, c)| c.len() > 1) {
        Some((term, c)) => Violation(format!("term {term} had leaders {c:?}")),
        None => Pass,
    }
}

/// Every candidate each node ever voted for, by (node, term): more than one for some node and
/// term is a violation, whatever the order or the time.
pub fn one_vote_per_term(ev: &[Event], nodes: usize) -> OracleVerdict {
    let mut voted: BTreeMap<(NodeId, u64), BTreeSet<NodeId>> = BTreeMap::new();
    for e in ev {
        if let (Some(x), Some(Observation::Vote { term, candidate })) = (e.node, obs(e)) {
            if x < nodes {
                voted.entry((x, *term)).or_default().insert(*candidate);
            }
        }
    }
    match voted.iter().find(|(_, c)| c.len() > 1) {
        Some(((x, term), c)) => Violation(format!("node {x} voted for {c:?} in term {term}")),
        None => Pass,
    }
}

/// Each node's own lines in order (its reports and its crash and restart faults): a report
/// naming itself, then, with no crash or restart of it in between, its next report naming
/// no leader or a lower node is a violation, whatever the other nodes' lines.
pub fn no_abdication(ev: &[Event], nodes: usize) -> OracleVerdict {
    for x in 0..nodes {
        // Some(report) for a leader report, None for a crash or restart of x
        let own: Vec<Option<Option<NodeId>>> = ev
            .iter()
            .filter_map(|e| match (obs(e), crash_or_restart(e)) {
                (Some(Observation::Leader { leader, .. }), _) if e.node == Some(x) => {
                    Some(Some(*leader))
                }
                (_, Some(n)) if n == x => Some(None),
                _ => None,
            })
            .collect();
        for w in own.windows(2) {
            if let [Some(Some(first)), Some(second)] = w {
                if *first == x && second.is_none_or(|l| l < x) {
                    return Violation(format!("node {x} led and then named {second:?}"));
                }
            }
        }
    }
    Pass
}

/// `leader_stability` judged between faults too: each interval that opens at a fault of the
/// plan or of the trace (or at 0) up to the quiet time, with nothing in effect after it (no
/// node down or paused, no partition, by the plan and by the trace), is judged as the run of
/// the scenario cut there would be: the events before the next such fault, from that fault
/// on. Then the whole run from the quiet time. (`plan`: `(at_ns, fault)`, in time order.)
pub fn leader_stability_between_faults(
    ev: &[Event],
    nodes: usize,
    plan: &[(u64, Fault)],
    quiet_ms: u64,
    end_ns: u64,
) -> OracleVerdict {
    leader_stability_settled(ev, nodes, plan, quiet_ms, 0, end_ns)
}

/// [`leader_stability_between_faults`] with a settle time (`election.terms`,
/// `election.lease`): an agreement counts only `settle_ms` after the start of its interval
/// (a fault of the plan or the trace, or the run's start) and after the quiet time.
pub fn leader_stability_settled(
    ev: &[Event],
    nodes: usize,
    plan: &[(u64, Fault)],
    quiet_ms: u64,
    settle_ms: u64,
    end_ns: u64,
) -> OracleVerdict {
    let quiet = quiet_ms * MS;
    let settle = settle_ms * MS;
    // Whether an agreement counted anywhere: a run with none judged nothing.
    let mut judged = false;
    let mut starts: BTreeSet<u64> = BTreeSet::from([0, quiet]);
    starts.extend(plan.iter().map(|p| p.0).filter(|&t| t <= quiet));
    starts.extend(
        ev.iter()
            .filter(|e| matches!(e.kind, EventKind::Fault { .. }) && e.t_ns <= quiet)
            .map(|e| e.t_ns),
    );
    let starts: Vec<u64> = starts.into_iter().collect();
    for w in starts.windows(2) {
        let (from, to) = (w[0], w[1]);
        let plan_upto: Vec<&Fault> = plan.iter().filter(|p| p.0 <= from).map(|p| &p.1).collect();
        let trace_upto: Vec<&Fault> = ev
            .iter()
            .filter(|e| e.t_ns <= from)
            .filter_map(|e| match &e.kind {
                EventKind::Fault { fault } => Some(fault),
                _ => None,
            })
            .collect();
        if in_effect(&plan_upto) || in_effect(&trace_upto) {
            continue;
        }
        let before: Vec<Event> = ev.iter().filter(|e| e.t_ns < to).cloned().collect();
        // An agreement held up to the interval's end counts when that end is a fault of the
        // trace (the checker sees the state before it at the fault's instant), not at a fault
        // of the plan or the quiet time (it opens the next interval first); a run that ends
        // inside the interval ends its cut there.
        let plan_fault = to == quiet || plan.iter().any(|p| p.0 == to);
        let end = if plan_fault {
            Some(end_ns).filter(|&e| e < to)
        } else {
            Some(end_ns.min(to))
        };
        match stability_run(&before, nodes, from + settle, end) {
            (Violation(why), _) => {
                return Violation(format!("between the faults at {from} and {to} ns: {why}"))
            }
            (_, j) => judged |= j,
        }
    }
    match stability_run(ev, nodes, quiet + settle, Some(end_ns)) {
        (Pass, j) if !(judged || j) => {
            Unjudged("no agreement on one leader in one term counted".into())
        }
        (v, _) => v,
    }
}

/// After `faults` in order: a node crashed and not restarted, a node paused and not resumed,
/// or a partition not healed. (A plan's link changes are not generated here.)
fn in_effect(faults: &[&Fault]) -> bool {
    let mut down = BTreeSet::new();
    let mut paused = BTreeSet::new();
    let mut cut = false;
    for f in faults {
        match f {
            // a crash or a restart ends a pause too
            Fault::Crash { node } => {
                down.insert(*node);
                paused.remove(node);
            }
            Fault::Restart { node } => {
                down.remove(node);
                paused.remove(node);
            }
            Fault::Pause { node } => {
                paused.insert(*node);
            }
            Fault::Resume { node } => {
                paused.remove(node);
            }
            Fault::Partition { .. } | Fault::PartitionOneway { .. } => cut = true,
            Fault::Heal => cut = false,
            Fault::SetLinks(_) => panic!("the oracle is not given link changes"),
            _ => {}
        }
    }
    !down.is_empty() || !paused.is_empty() || cut
}

/// `leader_stability` from the quiet time `quiet` (ns) on, whether or not an agreement counted.
pub fn leader_stability_from(ev: &[Event], nodes: usize, quiet: u64) -> OracleVerdict {
    stability_run(ev, nodes, quiet, None).0
}

/// `leader_stability` from `quiet` (ns) on, and whether an agreement counted: one that held
/// from an instant to a later one past `quiet`, or from the last instant to `end` (the run's
/// end, when given).
fn stability_run(
    ev: &[Event],
    nodes: usize,
    quiet: u64,
    end: Option<u64>,
) -> (OracleVerdict, bool) {
    let mut w = World::new(nodes);
    let mut reference: Option<(NodeId, u64)> = None;
    let mut judged = false;
    let mut last = 0;
    for (t, first, end) in instants(ev) {
        last = t;
        // the state after the previous instant held over [previous instant, t)
        if t > quiet {
            if let Some(a) = w.agreed_in_term() {
                reference = Some(a);
                judged = true;
            }
        }
        if let Some((l, term)) = reference {
            // A change is blamed when no order of the instant (each node's events in its own
            // order) has it made with the leader dead or cut from a live node.
            for c in first..end {
                let Some(x) = ev[c].node.filter(|&x| x < nodes) else {
                    continue;
                };
                if !matches!(obs(&ev[c]), Some(Observation::Leader { .. })) {
                    continue;
                }
                let mut lists: Vec<(NodeId, Vec<usize>)> = Vec::new();
                for i in first..end {
                    let key = ev[i].node.unwrap_or(usize::MAX);
                    let moves = matches!(
                        &ev[i].kind,
                        EventKind::Fault {
                            fault: Fault::Crash { .. }
                                | Fault::Restart { .. }
                                | Fault::Partition { .. }
                                | Fault::PartitionOneway { .. }
                                | Fault::Heal
                        }
                    );
                    if !(moves || (key == x && i <= c)) {
                        continue;
                    }
                    match lists.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, l)) => l.push(i),
                        None => lists.push((key, vec![i])),
                    }
                }
                let take = |s: &mut World, _: NodeId, i: usize| {
                    if i == c {
                        let Observation::Leader { leader, term: now } = obs(&ev[c]).unwrap() else {
                            unreachable!()
                        };
                        let had = s.belief[x].is_some();
                        let changed = *leader != Some(l) || *now != term;
                        let connected = s.live().all(|v| s.reach(v, l));
                        if had && changed && s.is_alive(l) && connected {
                            return false; // blamed in this order
                        }
                    }
                    s.apply(&ev[i]);
                    true
                };
                let mut at = vec![0; lists.len()];
                let mut state = w.clone();
                if !interleaves(&lists, &mut at, &mut state, &take) {
                    return (
                        Violation(format!("node {x} left the agreed leader {l} (term {term})")),
                        judged,
                    );
                }
            }
        }
        for e in &ev[first..end] {
            w.apply(e);
        }
    }
    if end.is_some_and(|e| e > last && e > quiet) && w.agreed_in_term().is_some() {
        judged = true;
    }
    (Pass, judged)
}

/// A request waits from the instant `h` it is at the head of its node's queue with the node
/// outside the section, to the instant `e` it is served (the node enters), abandoned, or
/// dropped by a crash or restart of its node (`e` = +infinity if none). Entries of other nodes
/// into the same resource at instants strictly between (`h < t < e`) overtake it, and at `h`
/// itself when the wait began with the node's own exit from the resource (an entry there
/// follows that exit in any order that keeps mutual exclusion; unless the node entered at `h`
/// too and the other leaves again at `h`: its section may then come first), and at `e` itself when the
/// wait ended with the node's entry and the node stays inside (no other step of it on the
/// resource, no crash or restart of it, at that instant) while the other node leaves again at
/// that instant (its entry comes before in any order that keeps mutual exclusion); at most
/// `k` may. Instants, not trace lines: events of one global time are unordered.
pub fn bounded_waiting(ev: &[Event], k: usize) -> OracleVerdict {
    // (node, resource, instant) -> the node's steps on the resource at that instant, and the
    // nodes crashed or restarted at each instant.
    let mut steps_at: BTreeMap<(NodeId, u32, u64), usize> = BTreeMap::new();
    let mut gone_at: BTreeSet<(NodeId, u64)> = BTreeSet::new();
    for e in ev {
        if let Some(x) = crash_or_restart(e) {
            gone_at.insert((x, e.t_ns));
        }
        let (Some(n), Some(o)) = (e.node, obs(e)) else {
            continue;
        };
        if let Observation::CsRequest { resource }
        | Observation::CsEnter { resource }
        | Observation::CsExit { resource }
        | Observation::CsAbandon { resource } = o
        {
            *steps_at.entry((n, *resource, e.t_ns)).or_default() += 1;
        }
    }
    // Whether entry `i` is followed by its node's exit from the resource at the same instant.
    let entered_and_left = |entries: &[(NodeId, u32, u64, usize)], i: usize| -> bool {
        let (m, r, t, line) = entries[i];
        ev.iter().enumerate().any(|(j, e)| {
            j > line
                && e.t_ns == t
                && e.node == Some(m)
                && matches!(obs(e), Some(Observation::CsExit { resource }) if *resource == r)
        })
    };
    let stays = |n: NodeId, r: u32, e: u64| -> bool {
        steps_at.get(&(n, r, e)) == Some(&1) && !gone_at.contains(&(n, e))
    };
    // Each request's wait: (node, resource, h, e); the open ones by (node, resource), in order.
    let mut waits: Vec<(NodeId, u32, Option<u64>, Option<u64>)> = Vec::new();
    // The waits that began with their node's own exit: whether the node entered at that
    // instant.
    let mut from_exit: BTreeMap<usize, bool> = BTreeMap::new();
    // (node, resource) -> the instant of the node's last entry
    let mut entered_at: BTreeMap<(NodeId, u32), u64> = BTreeMap::new();
    let mut queue: BTreeMap<(NodeId, u32), Vec<usize>> = BTreeMap::new();
    let mut inside: BTreeSet<(NodeId, u32)> = BTreeSet::new();
    // (node, resource, instant, line)
    let mut entries: Vec<(NodeId, u32, u64, usize)> = Vec::new();
    // The waits that ended with their node's entry.
    let mut served: BTreeSet<usize> = BTreeSet::new();
    // the head of (n, r) starts waiting at t if the node is outside and it does not already
    let start = |waits: &mut Vec<(NodeId, u32, Option<u64>, Option<u64>)>,
                 queue: &BTreeMap<(NodeId, u32), Vec<usize>>,
                 inside: &BTreeSet<(NodeId, u32)>,
                 key: (NodeId, u32),
                 t: u64| {
        if let Some(&h) = queue.get(&key).and_then(|q| q.first()) {
            if !inside.contains(&key) && waits[h].2.is_none() {
                waits[h].2 = Some(t);
            }
        }
    };
    for (line, e) in ev.iter().enumerate() {
        let t = e.t_ns;
        if let Some(x) = crash_or_restart(e) {
            for (key, q) in queue.iter_mut().filter(|(key, _)| key.0 == x) {
                let _ = key;
                for &w in q.iter() {
                    waits[w].3 = Some(t);
                }
                q.clear();
            }
            inside.retain(|key| key.0 != x);
            continue;
        }
        let Some(n) = e.node else { continue };
        match obs(e) {
            Some(Observation::CsRequest { resource }) => {
                let key = (n, *resource);
                queue.entry(key).or_default().push(waits.len());
                waits.push((n, *resource, None, None));
                start(&mut waits, &queue, &inside, key, t);
            }
            Some(Observation::CsAbandon { resource }) | Some(Observation::CsEnter { resource }) => {
                let key = (n, *resource);
                if let Some(q) = queue.get_mut(&key) {
                    if !q.is_empty() {
                        let w = q.remove(0);
                        waits[w].3 = Some(t);
                        if matches!(obs(e), Some(Observation::CsEnter { .. })) {
                            served.insert(w);
                        }
                    }
                }
                if matches!(obs(e), Some(Observation::CsEnter { .. })) {
                    inside.insert(key);
                    entered_at.insert(key, t);
                    entries.push((n, *resource, t, line));
                } else {
                    start(&mut waits, &queue, &inside, key, t);
                }
            }
            Some(Observation::CsExit { resource }) => {
                let key = (n, *resource);
                inside.remove(&key);
                let head = queue.get(&key).and_then(|q| q.first().copied());
                let waited = head.is_some_and(|h| waits[h].2.is_some());
                start(&mut waits, &queue, &inside, key, t);
                if let Some(h) = head.filter(|_| !waited) {
                    from_exit.insert(h, entered_at.get(&key) == Some(&t));
                }
            }
            _ => {}
        }
    }
    for (i, &(n, r, h, end)) in waits.iter().enumerate() {
        let Some(h) = h else { continue };
        // at `h`, after the exit: unless the node entered at `h` and the other leaves again
        let after = |t: u64, j: usize| {
            h < t
                || (t == h
                    && from_exit
                        .get(&i)
                        .is_some_and(|&entered| !(entered && entered_and_left(&entries, j))))
        };
        let stayed_in = end.is_some_and(|e| served.contains(&i) && stays(n, r, e));
        let c = (0..entries.len())
            .filter(|&j| {
                let (m, rr, t, _) = entries[j];
                let before_end =
                    lt(t, end) || (Some(t) == end && stayed_in && entered_and_left(&entries, j));
                m != n && rr == r && after(t, j) && before_end
            })
            .count();
        if c > k {
            return Violation(format!("request {i} of node {n} overtaken {c} times"));
        }
    }
    Pass
}

// ---------------------------------------------------------------------------------------
// Liveness properties

/// Whether something outstanding from `start_t`, closed at `close_t` (`None`: still open at
/// the end), with deadline `deadline`, missed it (`Some(true)`), met it (`Some(false)`), or
/// cannot be judged (`None`).
fn deadline_outcome(close_t: Option<u64>, deadline: u64, end_ns: u64) -> Option<bool> {
    match close_t {
        Some(t) => Some(t > deadline),
        None if end_ns > deadline => Some(true),
        None => None,
    }
}

/// Folds outcomes: any miss is a violation, else any open item is unjudged.
fn fold(outcomes: impl IntoIterator<Item = (Option<bool>, String)>) -> OracleVerdict {
    let mut unjudged = None;
    for (o, what) in outcomes {
        match o {
            Some(true) => return Violation(what),
            None if unjudged.is_none() => unjudged = Some(what),
            _ => {}
        }
    }
    unjudged.map_or(Pass, Unjudged)
}

/// Requests (`cs_request`) and what closes them: the node's next `cs_enter` / `cs_abandon` on
/// the resource (oldest request first), or its crash or restart. (request index, close time)
fn requests(ev: &[Event]) -> Vec<(usize, Option<u64>)> {
    let mut out: Vec<(usize, Option<u64>)> = Vec::new();
    let mut queue: BTreeMap<(NodeId, u32), Vec<usize>> = BTreeMap::new();
    for (i, e) in ev.iter().enumerate() {
        if let Some(x) = crash_or_restart(e) {
            for (_, q) in queue.iter_mut().filter(|(key, _)| key.0 == x) {
                for r in q.drain(..) {
                    out[r].1 = Some(e.t_ns);
                }
            }
            continue;
        }
        let Some(n) = e.node else { continue };
        match obs(e) {
            Some(Observation::CsRequest { resource }) => {
                queue.entry((n, *resource)).or_default().push(out.len());
                out.push((i, None));
            }
            Some(Observation::CsEnter { resource } | Observation::CsAbandon { resource }) => {
                if let Some(q) = queue.get_mut(&(n, *resource)) {
                    if !q.is_empty() {
                        let r = q.remove(0);
                        out[r].1 = Some(e.t_ns);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every request made at `t` is entered or abandoned by `max(t, quiet) + bound`.
pub fn liveness(ev: &[Event], p: &Params) -> OracleVerdict {
    let (quiet, bound) = (p.quiet_ms * MS, p.bound_ms * MS);
    fold(requests(ev).into_iter().map(|(i, close)| {
        let deadline = ev[i].t_ns.max(quiet) + bound;
        (
            deadline_outcome(close, deadline, p.end_ns),
            format!("request at event {i} (deadline {deadline})"),
        )
    }))
}

/// While requests are pending, some node enters or exits a critical section within `bound`
/// of the latest of: the last such progress, quiet, the oldest pending request. An abandon
/// withdraws its request but is not progress (nobody entered), nor is an exit by a node not
/// inside (entered more often than it exited since its last crash or restart). Judged on the
/// state after each instant.
pub fn no_deadlock(ev: &[Event], p: &Params) -> OracleVerdict {
    let (quiet, bound) = (p.quiet_ms * MS, p.bound_ms * MS);
    let reqs = requests(ev);
    let inst = instants(ev);
    let mut progress = 0u64;
    // the requests pending after the last instant, and when the wait they continue began
    let mut before: BTreeSet<usize> = BTreeSet::new();
    let mut wait_from = 0u64;
    // entries minus exits of each (node, resource) since the node's last crash or restart
    let mut inside: BTreeMap<(NodeId, u32), u64> = BTreeMap::new();
    for (k, &(t, first, end)) in inst.iter().enumerate() {
        for e in &ev[first..end] {
            if let Some(x) = crash_or_restart(e) {
                inside.retain(|&(n, _), _| n != x);
            }
            let Some(n) = e.node else { continue };
            match obs(e) {
                Some(Observation::CsEnter { resource }) => {
                    *inside.entry((n, *resource)).or_insert(0) += 1;
                    progress = t;
                }
                Some(Observation::CsExit { resource }) => {
                    let held = inside.entry((n, *resource)).or_insert(0);
                    if *held > 0 {
                        *held -= 1;
                        progress = t;
                    }
                }
                _ => {}
            }
        }
        // pending after this instant: made at or before it, not closed at or before it
        let after: BTreeSet<usize> = reqs
            .iter()
            .filter(|(i, close)| *i < end && close.is_none_or(|c| c > t))
            .map(|(i, _)| *i)
            .collect();
        if before.is_empty() {
            wait_from = t; // a new wait (or none)
        }
        before = after;
        if before.is_empty() {
            continue;
        }
        let deadline = progress.max(quiet).max(wait_from) + bound;
        let next = inst.get(k + 1).map_or(p.end_ns, |x| x.0);
        if next > deadline {
            return Violation(format!("standstill from {deadline}"));
        }
        if k + 1 == inst.len() {
            return Unjudged(format!("pending at the end, deadline {deadline}"));
        }
    }
    Pass
}

/// Every election a node starts (`leader: None` while it has none open) ends at its next
/// report naming an existing node, by `max(start, quiet) + bound`; a crash or restart
/// cancels it.
pub fn election_termination(ev: &[Event], nodes: usize, p: &Params) -> OracleVerdict {
    let (quiet, bound) = (p.quiet_ms * MS, p.bound_ms * MS);
    let mut open: BTreeMap<NodeId, usize> = BTreeMap::new();
    let mut items: Vec<(u64, Option<u64>)> = Vec::new(); // (start, close)
    for e in ev {
        if let Some(x) = crash_or_restart(e) {
            if let Some(i) = open.remove(&x) {
                items[i].1 = Some(e.t_ns);
            }
            continue;
        }
        let Some(n) = e.node else { continue };
        let Some(Observation::Leader { leader, .. }) = obs(e) else {
            continue;
        };
        match leader {
            None => {
                open.entry(n).or_insert_with(|| {
                    items.push((e.t_ns, None));
                    items.len() - 1
                });
            }
            Some(l) if *l < nodes => {
                if let Some(i) = open.remove(&n) {
                    items[i].1 = Some(e.t_ns);
                }
            }
            Some(_) => {}
        }
    }
    fold(items.into_iter().map(|(start, close)| {
        let deadline = start.max(quiet) + bound;
        (
            deadline_outcome(close, deadline, p.end_ns),
            format!("election started at {start}, deadline {deadline}"),
        )
    }))
}

/// A run in which no node (of `0..nodes`) ever reports a leader observation had no election:
/// unjudged. Otherwise, with `start` the later of quiet and the first report: (1) some state
/// holding over an instant in [quiet, start + bound] has every live node naming the same
/// existing live leader (run ending at or before start + bound without that: unjudged).
/// (2) If the run ends disagreeing, its end is at most `bound` after both quiet and the last
/// leader report (else a violation; if within, unjudged). A state holds over [its instant, the
/// next instant) — the last over [its instant, end) — and counts only if that interval is not
/// empty.
pub fn leader_agreement(ev: &[Event], nodes: usize, p: &Params) -> OracleVerdict {
    let (quiet, bound) = (p.quiet_ms * MS, p.bound_ms * MS);
    let report_at = |e: &Event| {
        e.node.is_some_and(|x| x < nodes) && matches!(obs(e), Some(Observation::Leader { .. }))
    };
    let Some(first_report) = ev.iter().filter(|e| report_at(e)).map(|e| e.t_ns).min() else {
        return Unjudged("no node ever reported: no election to agree on".into());
    };
    let deadline = quiet.max(first_report) + bound;
    let mut w = World::new(nodes);
    let inst = instants(ev);
    let mut reached = false;
    let mut last_report = 0u64;
    // the initial state holds over [0, first instant)
    let first_t = inst.first().map_or(p.end_ns, |x| x.0);
    if w.agreed().is_some() && first_t > quiet && first_t > 0 {
        reached = true;
    }
    for (k, &(t, first, end)) in inst.iter().enumerate() {
        for e in &ev[first..end] {
            if w.apply(e) {
                last_report = t;
            }
        }
        let next = inst.get(k + 1).map_or(p.end_ns, |x| x.0);
        if next > t && t <= deadline && next > quiet && w.agreed().is_some() {
            reached = true;
        }
    }
    if !reached {
        return if p.end_ns > deadline {
            Violation("no agreement within the bound after quiet and the first report".into())
        } else {
            Unjudged("the run ended before start + bound without agreement".into())
        };
    }
    if w.agreed().is_none() && w.live().next().is_some() {
        let settled = last_report.max(quiet) + bound;
        return if p.end_ns > settled {
            Violation("the run ended disagreeing".into())
        } else {
            Unjudged("the run ended disagreeing within the bound of the last report".into())
        };
    }
    Pass
}

/// A node (of `0..nodes`) naming a leader outside `0..nodes` is a violation at any time (no
/// node can ever be it). From quiet + bound on (the state at that instant, then after every
/// leader report of a live node later, then at the end), a live node that names a leader
/// names an existing live node with no higher id among the live nodes it reaches (under
/// [`leader_validity_ranked`]: none ranked above it, or only alive). A run ending at or
/// before quiet + bound is otherwise unjudged.
pub fn leader_validity(ev: &[Event], nodes: usize, p: &Params) -> OracleVerdict {
    leader_validity_ranked(ev, nodes, p, &Rank::HighestId)
}

/// How [`leader_validity_ranked`] ranks the live nodes (the checker's `RankPolicy`).
pub enum Rank {
    /// Any live node may lead.
    AliveOnly,
    /// The highest live id must.
    HighestId,
    /// The best `(ranks[node], node)` must (a node past the list ranks 0).
    Ranks(Vec<u64>),
}

/// [`leader_validity`] with the best node chosen by `rank`.
pub fn leader_validity_ranked(
    ev: &[Event],
    nodes: usize,
    p: &Params,
    rank: &Rank,
) -> OracleVerdict {
    let key = |v: NodeId| match rank {
        Rank::Ranks(r) => (r.get(v).copied().unwrap_or(0), v),
        _ => (0, v),
    };
    let deadline = (p.quiet_ms + p.bound_ms) * MS;
    for e in ev {
        if let (
            Some(x),
            Some(Observation::Leader {
                leader: Some(l), ..
            }),
        ) = (e.node, obs(e))
        {
            if x < nodes && *l >= nodes {
                return Violation(format!("node {x} names {l}, which does not exist"));
            }
        }
    }
    if p.end_ns <= deadline {
        return Unjudged("the run ended at or before quiet + bound".into());
    }
    let check = |w: &World, x: NodeId| -> Result<(), String> {
        if let Some((Some(l), _)) = w.belief[x] {
            if !w.is_alive(l) {
                return Err(format!("node {x} names {l}, not alive"));
            }
            if matches!(rank, Rank::AliveOnly) {
                return Ok(());
            }
            if let Some(best) = w.live().filter(|&v| w.reach(x, v)).max_by_key(|&v| key(v)) {
                if key(best) > key(l) {
                    return Err(format!(
                        "node {x} names {l} but {best} is live, reachable and ranked above it"
                    ));
                }
            }
        }
        Ok(())
    };
    let check_all = |w: &World| w.live().try_for_each(|x| check(w, x));
    let mut w = World::new(nodes);
    let mut judged_deadline = false;
    for e in ev {
        if e.t_ns > deadline && !judged_deadline {
            judged_deadline = true;
            if let Err(v) = check_all(&w) {
                return Violation(v);
            }
        }
        if w.apply(e) && e.t_ns > deadline {
            let x = e.node.unwrap();
            if w.is_alive(x) {
                if let Err(v) = check(&w, x) {
                    return Violation(v);
                }
            }
        }
    }
    match check_all(&w) {
        Err(v) => Violation(v),
        Ok(()) => Pass,
    }
}

/// Every simple cycle of the wait-for graph (over existing nodes), from the point it forms,
/// is reported (`deadlock_detected` by one of its members, after it formed) by
/// `max(formed, quiet) + bound`, unless it is broken by then.
pub fn deadlock_completeness(ev: &[Event], nodes: usize, p: &Params) -> OracleVerdict {
    let ev = &reports_last(ev);
    let (quiet, bound) = (p.quiet_ms * MS, p.bound_ms * MS);
    // all simple cycles, as node lists starting at their smallest node
    let mut cycles: Vec<Vec<NodeId>> = Vec::new();
    fn extend(path: &mut Vec<NodeId>, nodes: usize, out: &mut Vec<Vec<NodeId>>) {
        for x in path[0]..nodes {
            if x == path[0] {
                out.push(path.clone());
            } else if x > path[0] && !path.contains(&x) {
                path.push(x);
                extend(path, nodes, out);
                path.pop();
            }
        }
    }
    for s in 0..nodes {
        extend(&mut vec![s], nodes, &mut cycles);
    }
    let graphs: Vec<BTreeSet<(NodeId, NodeId)>> = (0..ev.len())
        .map(|i| edge_set(&wait_for_graph(&ev[..=i]), nodes))
        .collect();
    let exists = |c: &Vec<NodeId>, g: &BTreeSet<(NodeId, NodeId)>| {
        (0..c.len()).all(|k| g.contains(&(c[k], c[(k + 1) % c.len()])))
    };
    let mut outcomes = Vec::new();
    for c in &cycles {
        // (formed at t, reported)
        let mut open: Option<(u64, bool)> = None;
        for (i, e) in ev.iter().enumerate() {
            if let Some((formed, false)) = open {
                if e.t_ns > formed.max(quiet) + bound {
                    return Violation(format!("cycle {c:?} formed at {formed} was not reported"));
                }
            }
            if exists(c, &graphs[i]) {
                match &mut open {
                    None => open = Some((e.t_ns, false)),
                    Some((_, reported)) => {
                        if let (Some(Observation::DeadlockDetected { .. }), Some(x)) =
                            (obs(e), e.node)
                        {
                            *reported |= c.contains(&x);
                        }
                    }
                }
            } else {
                open = None;
            }
        }
        if let Some((formed, false)) = open {
            let deadline = formed.max(quiet) + bound;
            outcomes.push((
                deadline_outcome(None, deadline, p.end_ns),
                format!("cycle {c:?} formed at {formed}, open at the end"),
            ));
        }
    }
    fold(outcomes)
}

/// `ev` with each instant's deadlock events reordered as the checker judges them: each
/// node's in trace order, and of the nodes' next events a graph change (of the lowest such
/// node) before any report; of reports, first the lowest node's that holds back a change of
/// its own (so the change comes before the other nodes' reports), then the lowest node's.
fn reports_last(ev: &[Event]) -> Vec<Event> {
    let mut out = Vec::with_capacity(ev.len());
    for (_, first, end) in instants(ev) {
        let mut lists: Vec<std::collections::VecDeque<&Event>> = deadlock_lists(ev, first, end)
            .into_iter()
            .map(Into::into)
            .collect();
        let report = |e: &Event| matches!(obs(e), Some(Observation::DeadlockDetected { .. }));
        let adds = |e: &Event| matches!(obs(e), Some(Observation::WaitFor { .. }));
        loop {
            // an edge's appearance before any end: one node adding what another ends leaves
            // it absent, whatever their numbers
            let change = lists
                .iter()
                .position(|l| l.front().is_some_and(|e| adds(e)))
                .or_else(|| {
                    lists
                        .iter()
                        .position(|l| l.front().is_some_and(|e| !report(e)))
                });
            let holding = || {
                lists
                    .iter()
                    .position(|l| !l.is_empty() && l.iter().any(|e| !report(e)))
            };
            let Some(k) = change
                .or_else(holding)
                .or_else(|| lists.iter().position(|l| !l.is_empty()))
            else {
                break;
            };
            out.push(lists[k].pop_front().unwrap().clone());
        }
        out.extend(
            ev[first..end]
                .iter()
                .filter(|e| !deadlock_event(e))
                .cloned(),
        );
    }
    out
}

/// At the end of the run, the nodes of `0..nodes` that reported a state all report the same
/// last one. Different last states are a violation once a bound has passed since both the
/// quiet time and the last input (an update may still be on its way before: unjudged). Fewer
/// than every replica reporting, when those that did agree, is unjudged: a silent replica
/// cannot be compared.
pub fn replica_agreement(ev: &[Event], nodes: usize, p: &Params) -> OracleVerdict {
    let mut last: BTreeMap<NodeId, &str> = BTreeMap::new();
    for e in ev {
        if let (Some(n), Some(Observation::State { value })) = (e.node, obs(e)) {
            if n < nodes {
                last.insert(n, value);
            }
        }
    }
    let last_input_ns = ev
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Input { .. }))
        .map(|e| e.t_ns)
        .max()
        .unwrap_or(0);
    let settled_ns = (p.quiet_ms * MS).max(last_input_ns) + p.bound_ms * MS;
    let values: BTreeSet<&str> = last.values().copied().collect();
    if values.len() > 1 && p.end_ns < settled_ns {
        Unjudged(format!(
            "replicas end in {values:?} before the bound has passed, at {settled_ns} ns"
        ))
    } else if values.len() > 1 {
        Violation(format!("replicas end in {values:?}"))
    } else if last.len() < nodes {
        Unjudged(format!(
            "{} of {nodes} replicas reported: the others cannot be compared",
            last.len()
        ))
    } else {
        Pass
    }
}

/// A clock change `bounded_skew` reads, in trace order: at `t_ns`, to the event's node.
enum ClockChange {
    Step(i64),
    Slew(i64),
    Jump(i64),
    Drift(i64),
    Crash,
    Restart,
}

/// The clocks, the live nodes and whether the reference is still one, with every change at a
/// time `< t_ns` applied (`inclusive`: `<= t_ns`), rebuilt from the scenario's initial
/// clocks every time it is asked for.
struct SkewState {
    clocks: Vec<sincro_harness::clock::SoftClock>,
    alive: Vec<bool>,
    reference_ok: bool,
}

fn skew_state(
    sc: &sincro_harness::Scenario,
    reference: Option<NodeId>,
    changes: &[(u64, NodeId, ClockChange)],
    t_ns: u64,
    inclusive: bool,
) -> SkewState {
    let mut s = SkewState {
        clocks: sincro_harness::engine::initial_clocks(sc),
        alive: vec![true; sc.nodes],
        reference_ok: reference.is_some(),
    };
    for (t, node, change) in changes {
        if *t > t_ns || (*t == t_ns && !inclusive) {
            break;
        }
        let clock = &mut s.clocks[*node];
        match *change {
            ClockChange::Step(d) => clock.step(*t, d),
            ClockChange::Slew(d) => clock.slew(*t, d),
            ClockChange::Jump(d) => clock.hw_jump(*t, d),
            ClockChange::Drift(ppb) => clock.set_drift(*t, ppb),
            ClockChange::Crash => s.alive[*node] = false,
            ClockChange::Restart => s.alive[*node] = true,
        }
        if Some(*node) == reference
            && matches!(change, ClockChange::Jump(_) | ClockChange::Drift(_))
        {
            s.reference_ok = false;
        }
    }
    s
}

/// `bounded_skew`, from its contract (`sincro_checkers::bounded_skew`), with the checker's
/// bounds and convergence time `spec` taken as given (their derivation is tested apart): at
/// every moment of the run from `spec.converge_from_ns` to `end_ns`, the live members' clocks
/// are within `internal_bound_ns` of each other, and (while the reference has neither jumped
/// nor changed drift) every live member but the reference is within `external_bound_ns` of
/// real time. The clocks are the scenario's initial ones with the trace's clock adjustments
/// (step, slew) and clock faults (jump, drift change) applied to each event's node; a crashed
/// node is left out until it restarts.
///
/// The moments: just before and just after each instant of the trace that changes a clock or
/// a node's life (never between two of its events), the convergence time, the end, and the
/// end of every slew, found by bisection on the clock's pending slew rather than computed. Every state is rebuilt from scratch.
/// Not judged: an unusable param (a numeric one that is not a whole number, a period or a
/// sample count of 0), a convergence time past the longest run, a run that ends before it,
/// or no moment with two live members or a member against a trusted reference.
pub fn bounded_skew(
    sc: &sincro_harness::Scenario,
    spec: &sincro_checkers::bounded_skew::SkewSpec,
    ev: &[Event],
    end_ns: u64,
) -> OracleVerdict {
    for key in ["period_ms", "samples", "window", "server", "beacon"] {
        let Some(v) = sc.params.get(key) else {
            continue;
        };
        let usable = match v.as_u64() {
            None => false,
            Some(0) => !matches!(key, "period_ms" | "samples" | "window"),
            Some(_) => true,
        };
        if !usable {
            return Unjudged(format!("params.{key} = {v} cannot give a bound"));
        }
    }
    if spec.converge_from_ns / MS > sincro_harness::MAX_TIME_MS {
        return Unjudged("the clocks converge past the longest run".into());
    }
    if end_ns < spec.converge_from_ns {
        return Unjudged(format!(
            "the run ends at {end_ns} ns, before convergence at {} ns",
            spec.converge_from_ns
        ));
    }
    let n = sc.nodes;
    let mut changes: Vec<(u64, NodeId, ClockChange)> = Vec::new();
    for e in ev {
        let Some(node) = e.node.filter(|&x| x < n) else {
            continue;
        };
        let change = match &e.kind {
            EventKind::ClockAdjust { how, delta_ns } => match how {
                ClockAdjust::Step => ClockChange::Step(*delta_ns),
                ClockAdjust::Slew => ClockChange::Slew(*delta_ns),
            },
            EventKind::Fault { fault } => match *fault {
                Fault::ClockJump { delta_ms, .. } => {
                    ClockChange::Jump((delta_ms * 1e6).round() as i64)
                }
                Fault::DriftChange { drift_ppm, .. } => {
                    ClockChange::Drift((drift_ppm * 1000.0).round() as i64)
                }
                Fault::Crash { .. } => ClockChange::Crash,
                Fault::Restart { .. } => ClockChange::Restart,
                _ => continue,
            },
            _ => continue,
        };
        changes.push((e.t_ns, node, change));
    }
    let from = spec.converge_from_ns;
    // Between two instants that change something, every clock is linear in time but for a
    // slew ending: the spread's extremes are at those instants (before and after), at the
    // slew ends, the convergence time and the end. Instants that change nothing add none.
    let mut instants: Vec<u64> = changes.iter().map(|c| c.0).collect();
    instants.dedup();
    let mut moments: BTreeSet<u64> = instants.iter().copied().collect();
    moments.insert(from);
    moments.insert(end_ns);
    // the end of each slew running after an instant, before the next one (or the end)
    for (i, &t) in instants.iter().enumerate() {
        let next = instants.get(i + 1).copied().unwrap_or(end_ns).max(t);
        let s = skew_state(sc, spec.reference, &changes, t, true);
        for clock in &s.clocks {
            if clock.slew_pending_ns(t) == 0 || clock.slew_pending_ns(next) != 0 {
                continue;
            }
            // the first time with nothing pending, in (t, next]
            let (mut lo, mut hi) = (t, next);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if clock.slew_pending_ns(mid) == 0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            moments.insert(hi);
        }
    }
    let members: BTreeSet<NodeId> = spec.members.iter().copied().filter(|&m| m < n).collect();
    let mut compared = false;
    for &t in moments.range(from..=end_ns) {
        for inclusive in [false, true] {
            let s = skew_state(sc, spec.reference, &changes, t, inclusive);
            let live: Vec<(NodeId, i64)> = members
                .iter()
                .filter(|&&m| s.alive[m])
                .map(|&m| (m, s.clocks[m].read(t)))
                .collect();
            if live.len() >= 2 {
                compared = true;
                let hi = live.iter().map(|c| c.1).max().unwrap_or(0);
                let lo = live.iter().map(|c| c.1).min().unwrap_or(0);
                if hi - lo > spec.internal_bound_ns as i64 {
                    return Violation(format!(
                        "at {t} ns the clocks {live:?} spread {} ns, above {}",
                        hi - lo,
                        spec.internal_bound_ns
                    ));
                }
            }
            if let (true, Some(bound)) = (s.reference_ok, spec.external_bound_ns) {
                for &(m, c) in live.iter().filter(|c| Some(c.0) != spec.reference) {
                    compared = true;
                    if (c - t as i64).unsigned_abs() > bound {
                        return Violation(format!(
                            "at {t} ns node {m}'s clock reads {c}, more than {bound} ns off"
                        ));
                    }
                }
            }
        }
    }
    if !compared {
        return Unjudged("no moment had two live members or one against a reference".into());
    }
    Pass
}

/// The Ω properties of `sincro_checkers::omega` from its contract, step by step: what a
/// judged run says, as `(kind, property)` — `("pass", "")`, `("violation", p)` or
/// `("unjudged", p)` (a suffix too short to tell, which the registered algorithm reports as
/// could not judge). The model's assumption (`memory_access_pattern`) first, then
/// `newcomer_never_demotes`, `crashed_never_elected` and `eventual_leadership`, those of
/// `properties` only.
///
/// STABLE: the processes that joined and never left nor crashed. The suffix: every step from
/// `judge_from` to the end of the run (`steps`), both included. At a step `s`, a process's
/// `leader()` result is its last `leader` record at a step `<= s` (none before its first), and
/// its round's set of members not updated is its last `round` record at a step `<= s`.
pub fn omega(
    t: &sincro_harness::shm::ShmTrace,
    alpha: usize,
    judge_from: u64,
    properties: &[&str],
) -> (&'static str, String) {
    use sincro_checkers::omega as o;
    use sincro_harness::shm::ShmEventKind as K;
    let unjudged = |p: &str| ("unjudged", p.to_string());
    let violation = |p: &str| ("violation", p.to_string());
    let mut joined: BTreeSet<usize> = BTreeSet::new();
    let mut departed: BTreeMap<usize, u64> = BTreeMap::new();
    let mut churn_steps: Vec<u64> = Vec::new();
    for e in &t.events {
        let Some(p) = e.pid else { continue };
        match e.kind {
            K::Join { .. } => {
                joined.insert(p);
                churn_steps.push(e.step);
            }
            K::Leave { .. } | K::Crash { .. } => {
                departed.entry(p).or_insert(e.step);
                churn_steps.push(e.step);
            }
            _ => {}
        }
    }
    let stable: BTreeSet<usize> = joined
        .iter()
        .copied()
        .filter(|p| !departed.contains_key(p))
        .collect();
    // a process's records of one kind, (step, value), in trace order
    let records = |p: usize, leader: bool| -> Vec<(u64, Vec<usize>)> {
        t.events
            .iter()
            .filter(|e| e.pid == Some(p))
            .filter_map(|e| match (&e.kind, leader) {
                (K::Leader { leader }, true) => Some((e.step, vec![*leader])),
                (K::Round { not_updated }, false) => Some((e.step, not_updated.clone())),
                _ => None,
            })
            .collect()
    };
    let at = |recs: &[(u64, Vec<usize>)], s: u64| -> Option<Vec<usize>> {
        recs.iter().rev().find(|r| r.0 <= s).map(|r| r.1.clone())
    };
    let suffix = || judge_from..=t.steps;
    // the assumption
    if churn_steps.iter().any(|&s| s >= judge_from) {
        return unjudged(o::MEMORY_ACCESS_PATTERN);
    }
    if stable.len() < alpha {
        return violation(o::MEMORY_ACCESS_PATTERN);
    }
    for &p in &stable {
        let summary = t.events.iter().rev().find_map(|e| match e.kind {
            K::Summary {
                last_round_step,
                last_leader_step,
                ..
            } if e.pid == Some(p) => Some((last_round_step, last_leader_step)),
            _ => None,
        });
        let in_suffix = |s: Option<u64>| s.is_some_and(|s| s >= judge_from);
        if !summary.is_some_and(|(r, l)| in_suffix(r) && in_suffix(l)) {
            return unjudged(o::MEMORY_ACCESS_PATTERN);
        }
    }
    let rounds: Vec<Vec<(u64, Vec<usize>)>> = stable.iter().map(|&j| records(j, false)).collect();
    let never_missed = |x: usize| {
        suffix().all(|s| {
            rounds
                .iter()
                .all(|r| at(r, s).is_none_or(|missed| !missed.contains(&x)))
        })
    };
    if !stable.iter().any(|&x| never_missed(x)) {
        return violation(o::MEMORY_ACCESS_PATTERN);
    }
    // Lemma 4, over the whole run
    if properties.contains(&o::NEWCOMER_NEVER_DEMOTES) {
        for e in &t.events {
            if let (
                Some(_),
                K::Join {
                    leader_before: Some(l),
                    leader_after,
                },
            ) = (e.pid, &e.kind)
            {
                if stable.contains(l) && *leader_after != Some(*l) {
                    return violation(o::NEWCOMER_NEVER_DEMOTES);
                }
            }
        }
    }
    let leaders: BTreeMap<usize, Vec<(u64, Vec<usize>)>> =
        stable.iter().map(|&p| (p, records(p, true))).collect();
    let last_result = |p: usize| leaders[&p].last().map(|r| r.1[0]);
    // Lemma 3, on the suffix: a stable process's result is a process departed by then;
    // "eventually" is refuted only when it still returns a departed process at the end
    if properties.contains(&o::CRASHED_NEVER_ELECTED) {
        let mut unsettled = false;
        for &p in &stable {
            let returns_departed = suffix().any(|s| {
                at(&leaders[&p], s)
                    .is_some_and(|l| departed.get(&l[0]).is_some_and(|&gone| gone <= s))
            });
            if returns_departed {
                match last_result(p) {
                    Some(x) if !departed.contains_key(&x) => unsettled = true,
                    _ => return violation(o::CRASHED_NEVER_ELECTED),
                }
            }
        }
        if unsettled {
            return unjudged(o::CRASHED_NEVER_ELECTED);
        }
    }
    // Ω, on the suffix: one stable process returned by every stable process's leader()
    if properties.contains(&o::EVENTUAL_LEADERSHIP) {
        let mut results: BTreeSet<usize> = BTreeSet::new();
        for &p in &stable {
            for s in suffix() {
                if let Some(l) = at(&leaders[&p], s) {
                    results.insert(l[0]);
                }
            }
        }
        if results.len() > 1 {
            let finals: BTreeSet<Option<usize>> = stable.iter().map(|&p| last_result(p)).collect();
            let settled = finals.len() == 1
                && finals
                    .iter()
                    .next()
                    .copied()
                    .flatten()
                    .is_some_and(|l| stable.contains(&l));
            return if settled {
                unjudged(o::EVENTUAL_LEADERSHIP)
            } else {
                violation(o::EVENTUAL_LEADERSHIP)
            };
        }
        match results.first() {
            None => return violation(o::EVENTUAL_LEADERSHIP),
            Some(l) if !stable.contains(l) => return violation(o::EVENTUAL_LEADERSHIP),
            Some(_) => {}
        }
    }
    ("pass", String::new())
}
