//! Shrinking: minimize a failing scenario while it keeps failing the same way.
//!
//! [`shrink`] is delta debugging over the parts of a [`Scenario`]. It proposes smaller
//! candidates, runs each through the caller's `still_fails` predicate (which decides what "the
//! same way" means, typically "the same property is violated"), and adopts a candidate whenever
//! the failure survives. The passes, repeated until a whole round adopts nothing:
//!
//! 1. **Faults.** Drop chunks of the fault plan, halving the chunk size down to one (ddmin).
//!    A `crash` and its `restart`, a `pause` and its `resume`, a `partition` (or
//!    `partition_oneway`) and its `heal` are dropped as a pair first, then one by one.
//! 2. **Workload.** Drop chunks of workload inputs, then single ones.
//! 3. **Nodes.** Remove the highest node ids, in a block first, then each node one at a time
//!    (ids above it move down by one). Faults, inputs, clock settings, link overrides and
//!    topology edges of a removed node are dropped with it.
//! 4. **Fault merging.** Two windows of the same kind become one (`partition … heal partition
//!    … heal` becomes one partition spanning both, likewise two pauses or crashes of one node),
//!    two clock jumps of one node become one, and a fault moves to the time of the fault
//!    before it.
//! 5. **Duration.** Binary search of `duration_ms` down to the time of the last fault or input.
//! 6. **Latency.** A range becomes a constant (its smallest, largest or middle value),
//!    exponential becomes uniform, a uniform range narrows from either end, the largest latency
//!    halves, a constant latency halves (whole milliseconds).
//! 7. **Probabilities and clocks.** Loss, duplication and reordering go to zero, link
//!    overrides go away, clock drift and offsets go to zero.
//! 8. **Params lists.** Each list at the top of `params` (an algorithm's own plan, e.g. Ω's
//!    `churn`) loses chunks of entries, then single ones, as faults do. (A list with one entry
//!    per node loses the removed node's entry in pass 3.) A candidate the algorithm refuses
//!    does not fail, so it is not kept.
//!
//! Every candidate must pass [`Scenario::validate`] before it is run; invalid ones are skipped,
//! as are candidates already tried. When no budget limit is hit the result is 1-minimal: no
//! single step of the passes above keeps the failure. Runs are counted and shrinking stops at
//! [`ShrinkOptions::max_runs`].
//!
//! The result keeps the seed, algorithm, variant and params of the original; its name gets a
//! `-shrunk` suffix and its description a first line saying from which size to which size it
//! was shrunk.
//!
//! ```
//! use sincro_harness::shrink::{shrink, ScenarioSize, ShrinkOptions};
//! use sincro_harness::Scenario;
//!
//! let sc = Scenario::from_json(r#"{"algorithm": "x", "nodes": 3, "seed": 1, "duration_ms": 500,
//!     "workload": [{"at_ms": 10, "node": 1, "input": "a"}, {"at_ms": 20, "node": 2, "input": "b"}]}"#)
//!     .unwrap();
//! // A stand-in for "run it and see whether the same property is violated".
//! let mut fails = |s: &Scenario| s.workload.iter().any(|w| w.node == 1);
//! let out = shrink(&sc, &mut fails, &ShrinkOptions::default());
//! assert_eq!(ScenarioSize::of(&out.scenario).inputs, 1);
//! assert_eq!(out.scenario.nodes, 2);
//! assert_eq!(out.scenario.duration_ms, 10);
//! assert_eq!(out.scenario.name, "-shrunk");
//! ```

use crate::fault::{Fault, TimedFault};
use crate::net::{Latency, LinkOverride, Topology};
use crate::scenario::{Scenario, WorkloadItem};
use crate::NodeId;
use std::collections::BTreeSet;
use std::fmt;

/// Knobs of shrinking.
#[derive(Clone, Debug)]
pub struct ShrinkOptions {
    /// Stop after this many candidate runs.
    pub max_runs: usize,
    /// Also shrink with the failing run's schedule pinned, so that removing an input or a
    /// fault keeps every surviving message's delay (`sincro::fuzz::shrink_scenario`; on by
    /// default). Off, every candidate's delays are redrawn from the seed, as all shrinking
    /// did before stop 48: kept to measure what the pinned schedule gains (`sincro table
    /// shrink`).
    pub keep_schedule: bool,
}

impl Default for ShrinkOptions {
    fn default() -> Self {
        ShrinkOptions {
            max_runs: 2_000,
            keep_schedule: true,
        }
    }
}

/// The size of a scenario, as shrinking counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ScenarioSize {
    /// Entries of the fault plan.
    pub faults: usize,
    /// Workload inputs.
    pub inputs: usize,
    /// Nodes.
    pub nodes: usize,
    /// Duration, ms.
    pub duration_ms: u64,
    /// Entries of the lists at the top of `params` (an algorithm's own plan, e.g. Ω's
    /// `churn`, which the shrinker shrinks too).
    pub params_entries: usize,
}

impl ScenarioSize {
    /// The size of `sc`.
    pub fn of(sc: &Scenario) -> Self {
        ScenarioSize {
            faults: sc.faults.len(),
            inputs: sc.workload.len(),
            nodes: sc.nodes,
            duration_ms: sc.duration_ms,
            params_entries: params_lists(sc)
                .iter()
                .map(|k| params_list(sc, k).map_or(0, Vec::len))
                .sum(),
        }
    }
}

/// How many of the knobs pass 7 turns off are still on in `sc`: network loss, duplication
/// and reordering above zero, link overrides, clock offset and drift bounds above zero, and
/// per-node clock entries with an offset or a drift. A shrink that keeps the counts of
/// [`ScenarioSize`] but turns a knob off is smaller: a shrunk failure that still advertised
/// `reorder: 1.0`, which played no part in it, lost it only when shrunk again (stop 73's
/// probe).
pub fn noise(sc: &Scenario) -> usize {
    let n = &sc.network;
    let c = &sc.clocks;
    [n.loss, n.duplicate, n.reorder, c.offset_ms_max, c.rho_ppm]
        .iter()
        .filter(|&&p| p != 0.0)
        .count()
        + n.links.len()
        + c.nodes
            .iter()
            .map(|k| usize::from(k.offset_ms != 0.0) + usize::from(k.drift_ppm != 0.0))
            .sum::<usize>()
}

impl fmt::Display for ScenarioSize {
    /// `4 faults, 7 inputs, 5 nodes, 1630 ms`, and `, 3 params entries` when there are any.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} faults, {} inputs, {} nodes, {} ms",
            self.faults, self.inputs, self.nodes, self.duration_ms
        )?;
        if self.params_entries > 0 {
            write!(f, ", {} params entries", self.params_entries)?;
        }
        Ok(())
    }
}

/// A shrunk scenario and what it took.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest scenario found that still fails.
    pub scenario: Scenario,
    /// Candidate runs made.
    pub runs: usize,
    /// Accepted shrinking steps.
    pub steps: usize,
}

/// Shrinks `original` (which must fail: `still_fails(original)` is true) to a smaller scenario
/// for which `still_fails` is still true.
///
/// `still_fails` is called only on candidates that pass [`Scenario::validate`], at most
/// `opts.max_runs` times, and never twice on the same candidate. See the [module
/// documentation](self) for the passes.
pub fn shrink(
    original: &Scenario,
    still_fails: &mut dyn FnMut(&Scenario) -> bool,
    opts: &ShrinkOptions,
) -> Shrunk {
    shrink_until(original, still_fails, opts, &|| false)
}

/// [`shrink`] that ends as soon as `stop` says so (time up, Ctrl-C): no further candidate is
/// built, and the smallest scenario that failed so far is the result. `stop` is asked before
/// every candidate, so a large scenario (thousands of inputs, each candidate a copy of it)
/// stops within one candidate, not after building and rejecting every one left.
pub fn shrink_until(
    original: &Scenario,
    still_fails: &mut dyn FnMut(&Scenario) -> bool,
    opts: &ShrinkOptions,
    stop: &dyn Fn() -> bool,
) -> Shrunk {
    let mut s = Shrinker {
        best: original.clone(),
        still_fails,
        stop,
        max_runs: opts.max_runs,
        runs: 0,
        steps: 0,
        tried: BTreeSet::new(),
        classes: original.fault_classes(),
    };
    s.tried.insert(key(original));
    let passes: [fn(&mut Shrinker<'_>) -> bool; 8] = [
        |s| s.drop_faults(),
        |s| s.drop_workload(),
        |s| s.fewer_nodes(),
        |s| s.merge_faults(),
        |s| s.shorter_duration(),
        |s| s.smaller_latencies(),
        |s| s.quieter_network_and_clocks(),
        |s| s.drop_params_entries(),
    ];
    while !s.exhausted() {
        let mut progress = false;
        // Once stopped, no pass starts: a pass builds its candidates before `accept` asks,
        // and on a large scenario each is a copy of it (stop 57: 40–160 s past the cap).
        for pass in passes {
            if s.exhausted() {
                break;
            }
            progress |= pass(&mut s);
        }
        if !progress {
            break;
        }
    }
    let mut scenario = s.best;
    let (from, to) = (ScenarioSize::of(original), ScenarioSize::of(&scenario));
    scenario.name = format!("{}-shrunk", original.name);
    let line = format!("shrunk from {from} to {to}");
    scenario.description = if original.description.is_empty() {
        line
    } else {
        format!("{line}\n{}", original.description)
    };
    Shrunk {
        scenario,
        runs: s.runs,
        steps: s.steps,
    }
}

/// The identity of a candidate, for "already tried".
fn key(sc: &Scenario) -> String {
    // (a typed input with no JSON fails to serialize: its error stands for it)
    serde_json::to_string(sc).unwrap_or_else(|e| format!("<{e}>"))
}

struct Shrinker<'a> {
    best: Scenario,
    still_fails: &'a mut dyn FnMut(&Scenario) -> bool,
    /// Asked with the run budget: once it says so, the shrinker ends.
    stop: &'a dyn Fn() -> bool,
    max_runs: usize,
    runs: usize,
    steps: usize,
    tried: BTreeSet<String>,
    /// The fault classes of the original: candidates may use no other.
    classes: BTreeSet<crate::fault::FaultClass>,
}

/// Which list of the scenario a ddmin pass works on.
#[derive(Clone, Copy)]
enum List<'k> {
    Faults,
    Workload,
    ClockNodes,
    /// The list under this key of `params`.
    Params(&'k str),
}

/// The list under `key` of `sc.params`, if it is one.
fn params_list<'s>(sc: &'s Scenario, key: &str) -> Option<&'s Vec<serde_json::Value>> {
    sc.params.get(key)?.as_array()
}

/// The keys of `sc.params` whose values are non-empty lists, in key order.
fn params_lists(sc: &Scenario) -> Vec<String> {
    sc.params.as_object().map_or_else(Vec::new, |o| {
        o.iter()
            .filter(|(_, v)| v.as_array().is_some_and(|a| !a.is_empty()))
            .map(|(k, _)| k.clone())
            .collect()
    })
}

impl List<'_> {
    fn len(self, sc: &Scenario) -> usize {
        match self {
            List::Faults => sc.faults.len(),
            List::Workload => sc.workload.len(),
            List::ClockNodes => sc.clocks.nodes.len(),
            List::Params(key) => params_list(sc, key).map_or(0, Vec::len),
        }
    }

    /// `sc` without the entries whose indices are in `drop`.
    fn without(self, sc: &Scenario, drop: &BTreeSet<usize>) -> Scenario {
        fn keep<T: Clone>(v: &[T], drop: &BTreeSet<usize>) -> Vec<T> {
            v.iter()
                .enumerate()
                .filter(|(i, _)| !drop.contains(i))
                .map(|(_, x)| x.clone())
                .collect()
        }
        let mut c = sc.clone();
        match self {
            List::Faults => c.faults = keep(&sc.faults, drop),
            List::Workload => c.workload = keep(&sc.workload, drop),
            List::ClockNodes => c.clocks.nodes = keep(&sc.clocks.nodes, drop),
            List::Params(key) => {
                if let Some(list) = params_list(sc, key) {
                    c.params[key] = serde_json::Value::Array(keep(list, drop));
                }
            }
        }
        c
    }
}

impl Shrinker<'_> {
    fn exhausted(&self) -> bool {
        self.runs >= self.max_runs || (self.stop)()
    }

    /// Runs `cand` when it is new and valid; adopts it when it still fails.
    fn accept(&mut self, cand: Scenario) -> bool {
        if self.exhausted() || cand == self.best || cand.validate().is_err() {
            return false;
        }
        // A smaller scenario must not use a fault class the original did not (dropping a
        // restart alone turns a crash into a crash-stop, which the model may not tolerate).
        if !cand.fault_classes().is_subset(&self.classes) {
            return false;
        }
        if !self.tried.insert(key(&cand)) {
            return false;
        }
        self.runs += 1;
        if (self.still_fails)(&cand) {
            self.best = cand;
            self.steps += 1;
            true
        } else {
            false
        }
    }

    /// Tries the candidates in order and adopts the first that still fails.
    fn accept_first(&mut self, cands: impl IntoIterator<Item = Scenario>) -> bool {
        for c in cands {
            if self.exhausted() {
                return false;
            }
            if self.accept(c) {
                return true;
            }
        }
        false
    }

    /// ddmin over `list`: drops chunks of units (each unit a set of indices dropped together),
    /// halving the chunk size down to single units. `units` recomputes them from the current
    /// scenario; `start_chunk_at_one` skips the large chunks.
    fn ddmin(
        &mut self,
        list: List<'_>,
        units: &dyn Fn(&Scenario) -> Vec<Vec<usize>>,
        start_chunk_at_one: bool,
    ) -> bool {
        let mut progress = false;
        let mut chunk = if start_chunk_at_one {
            1
        } else {
            (units(&self.best).len() / 2).max(1)
        };
        loop {
            let mut removed = false;
            let mut start = 0;
            loop {
                let us = units(&self.best);
                if start >= us.len() || self.exhausted() {
                    break;
                }
                let end = (start + chunk).min(us.len());
                let drop: BTreeSet<usize> = us[start..end].iter().flatten().copied().collect();
                if self.accept(list.without(&self.best, &drop)) {
                    removed = true;
                    progress = true;
                } else {
                    start = end;
                }
            }
            if self.exhausted() || list.len(&self.best) == 0 {
                return progress;
            }
            if !removed {
                if chunk == 1 {
                    return progress;
                }
                chunk /= 2;
            }
        }
    }

    fn drop_faults(&mut self) -> bool {
        let pairs = self.ddmin(List::Faults, &fault_units, false);
        let singles = self.ddmin(List::Faults, &singletons_of_faults, true);
        pairs | singles
    }

    fn drop_workload(&mut self) -> bool {
        self.ddmin(List::Workload, &singletons_of_workload, false)
    }

    fn drop_params_entries(&mut self) -> bool {
        let mut progress = false;
        for key in params_lists(&self.best) {
            let units = |sc: &Scenario| singletons(params_list(sc, &key).map_or(0, Vec::len));
            progress |= self.ddmin(List::Params(&key), &units, false);
        }
        progress
    }

    fn fewer_nodes(&mut self) -> bool {
        let mut progress = false;
        // The highest ids in a block, halving the block.
        let mut block = self.best.nodes / 2;
        while block >= 1 && !self.exhausted() {
            let n = self.best.nodes;
            let block_now = block.min(n - 1);
            if block_now == 0 {
                break;
            }
            let mut c = self.best.clone();
            for k in (n - block_now..n).rev() {
                c = without_node(&c, k);
            }
            if self.accept(c) {
                progress = true;
            } else {
                block /= 2;
            }
        }
        // Then each node, highest first (ids above it move down).
        let mut k = self.best.nodes;
        while k > 0 && !self.exhausted() {
            k -= 1;
            if self.best.nodes > 1 && k < self.best.nodes {
                let c = without_node(&self.best, k);
                progress |= self.accept(c);
            }
        }
        progress
    }

    fn merge_faults(&mut self) -> bool {
        let mut progress = false;
        // Two windows of the same kind into one.
        'windows: loop {
            let units = fault_units(&self.best);
            let windows: Vec<&Vec<usize>> = units.iter().filter(|u| u.len() == 2).collect();
            for (a, wa) in windows.iter().enumerate() {
                for wb in windows.iter().skip(a + 1) {
                    let faults = &self.best.faults;
                    if window_kind(&faults[wa[0]].fault) != window_kind(&faults[wb[0]].fault) {
                        continue;
                    }
                    // One window from the first opening to the second closing.
                    let span = [wa[1], wb[0]].into_iter().collect();
                    let c1 = List::Faults.without(&self.best, &span);
                    // The second window alone, opened at the time of the first.
                    let mut c2 = self.best.clone();
                    c2.faults[wb[0]].at_ms = c2.faults[wa[0]].at_ms;
                    let c2 = List::Faults.without(&c2, &[wa[0], wa[1]].into_iter().collect());
                    if self.accept_first([c1, sorted(c2)]) {
                        progress = true;
                        continue 'windows;
                    }
                    if self.exhausted() {
                        return progress;
                    }
                }
            }
            break;
        }
        // Two clock jumps of one node into one.
        'jumps: loop {
            let faults = self.best.faults.clone();
            for i in 0..faults.len() {
                let Fault::ClockJump { node, delta_ms } = faults[i].fault else {
                    continue;
                };
                let next = (i + 1..faults.len()).find(
                    |&j| matches!(faults[j].fault, Fault::ClockJump { node: m, .. } if m == node),
                );
                if let Some(j) = next {
                    let Fault::ClockJump { delta_ms: d2, .. } = faults[j].fault else {
                        unreachable!()
                    };
                    let mut c = self.best.clone();
                    c.faults[i].fault = Fault::ClockJump {
                        node,
                        delta_ms: delta_ms + d2,
                    };
                    c.faults.remove(j);
                    if self.accept(c) {
                        progress = true;
                        continue 'jumps;
                    }
                }
            }
            break;
        }
        // A fault to the time of the one before it.
        let mut i = 1;
        while i < self.best.faults.len() && !self.exhausted() {
            let prev = self.best.faults[i - 1].at_ms;
            if prev < self.best.faults[i].at_ms {
                let mut c = self.best.clone();
                c.faults[i].at_ms = prev;
                progress |= self.accept(c);
            }
            i += 1;
        }
        progress
    }

    fn shorter_duration(&mut self) -> bool {
        let sc = &self.best;
        let (mut lo, mut hi) = (sc.last_planned_ms().max(1), sc.duration_ms);
        let mut progress = false;
        // Invariant: `hi` fails (it is the current duration).
        while lo < hi && !self.exhausted() {
            let mid = lo + (hi - lo) / 2;
            let mut c = self.best.clone();
            c.duration_ms = mid;
            // Change points past the new end never applied before it: dropped, not refused.
            if let crate::schedule::Schedule::Pct(p) = &mut c.schedule {
                p.change_points_ms.retain(|&t| t <= mid);
            }
            if self.accept(c) {
                hi = mid;
                progress = true;
            } else {
                lo = mid + 1;
            }
        }
        progress
    }

    fn smaller_latencies(&mut self) -> bool {
        if matches!(self.best.schedule, crate::schedule::Schedule::Recorded(_)) {
            // The recorded messages keep their own delays: smaller bounds would only describe
            // the messages that are not recorded, and misdescribe the others.
            return false;
        }
        let mut progress = false;
        let mut slot = 0;
        // Slots: the network's latency, then each link override's, then each set_links fault's.
        loop {
            if self.exhausted() {
                return progress;
            }
            let Some(current) = latency_slot(&mut self.best.clone(), slot).cloned() else {
                break;
            };
            let cands: Vec<Scenario> = simpler_latencies(&current)
                .into_iter()
                .map(|l| {
                    let mut c = self.best.clone();
                    *latency_slot(&mut c, slot).expect("the slot exists") = l;
                    c
                })
                .collect();
            if self.accept_first(cands) {
                progress = true; // and simplify the same slot further
            } else {
                slot += 1;
            }
        }
        progress
    }

    fn quieter_network_and_clocks(&mut self) -> bool {
        let mut progress = false;
        // Everything at once first, then one knob at a time.
        let mut all = self.best.clone();
        all.network.loss = 0.0;
        all.network.duplicate = 0.0;
        all.network.reorder = 0.0;
        all.network.links.clear();
        all.clocks = Default::default();
        all.faults
            .retain(|f| !matches!(f.fault, Fault::DriftChange { .. }));
        progress |= self.accept(all);

        let knobs: [fn(&mut Scenario); 5] = [
            |c| c.network.loss = 0.0,
            |c| c.network.duplicate = 0.0,
            |c| c.network.reorder = 0.0,
            |c| c.clocks.offset_ms_max = 0.0,
            |c| c.clocks.rho_ppm = 0.0,
        ];
        for knob in knobs {
            if self.exhausted() {
                return progress;
            }
            let mut c = self.best.clone();
            knob(&mut c);
            progress |= self.accept(c);
        }
        // Link overrides: each dropped, then their probabilities removed.
        let mut i = 0;
        while i < self.best.network.links.len() && !self.exhausted() {
            let mut c = self.best.clone();
            c.network.links.remove(i);
            if self.accept(c) {
                progress = true;
                continue;
            }
            for field in 0..3 {
                let mut c = self.best.clone();
                let p = override_probability(&mut c.network.links[i], field);
                if p.is_some() {
                    *p = None;
                    progress |= self.accept(c);
                }
            }
            i += 1;
        }
        // Probabilities of set_links faults: the scenario is copied only for a fault that
        // has one (it was copied three times for every fault: minutes on a plan of
        // thousands), and not once the shrinker is stopped.
        for i in 0..self.best.faults.len() {
            for field in 0..3 {
                if self.exhausted() {
                    return progress;
                }
                let has = match &self.best.faults[i].fault {
                    Fault::SetLinks(o) => [o.loss, o.duplicate, o.reorder][field].is_some(),
                    _ => false,
                };
                if !has {
                    continue;
                }
                let mut c = self.best.clone();
                if let Fault::SetLinks(o) = &mut c.faults[i].fault {
                    *override_probability(o, field) = None;
                }
                progress |= self.accept(c);
            }
        }
        // Per-node clocks: entries dropped, then their offset and drift zeroed.
        progress |= self.ddmin(List::ClockNodes, &singletons_of_clock_nodes, true);
        for i in 0..self.best.clocks.nodes.len() {
            if self.exhausted() {
                return progress;
            }
            let mut c = self.best.clone();
            c.clocks.nodes[i].offset_ms = 0.0;
            progress |= self.accept(c);
            let mut c = self.best.clone();
            c.clocks.nodes[i].drift_ppm = 0.0;
            progress |= self.accept(c);
        }
        progress
    }
}

/// The fault plan in units that are dropped together: a `crash` with the next `restart` of its
/// node, a `pause` with the next `resume` of its node, a `partition` or `partition_oneway` with
/// the next `heal`; every other fault alone. Indices within a unit are increasing.
fn fault_units(sc: &Scenario) -> Vec<Vec<usize>> {
    let f = &sc.faults;
    let mut taken = vec![false; f.len()];
    let mut units = Vec::new();
    for i in 0..f.len() {
        if taken[i] {
            continue;
        }
        taken[i] = true;
        let closes = |g: &Fault| match (&f[i].fault, g) {
            (Fault::Crash { node: a }, Fault::Restart { node: b })
            | (Fault::Pause { node: a }, Fault::Resume { node: b }) => a == b,
            (Fault::Partition { .. } | Fault::PartitionOneway { .. }, Fault::Heal) => true,
            _ => false,
        };
        match (i + 1..f.len()).find(|&j| !taken[j] && closes(&f[j].fault)) {
            Some(j) => {
                taken[j] = true;
                units.push(vec![i, j]);
            }
            None => units.push(vec![i]),
        }
    }
    units
}

fn singletons(n: usize) -> Vec<Vec<usize>> {
    (0..n).map(|i| vec![i]).collect()
}

fn singletons_of_faults(sc: &Scenario) -> Vec<Vec<usize>> {
    singletons(sc.faults.len())
}

fn singletons_of_workload(sc: &Scenario) -> Vec<Vec<usize>> {
    singletons(sc.workload.len())
}

fn singletons_of_clock_nodes(sc: &Scenario) -> Vec<Vec<usize>> {
    singletons(sc.clocks.nodes.len())
}

/// Windows that may merge: partitions of either kind, or crashes or pauses of one node.
fn window_kind(f: &Fault) -> Option<(u8, NodeId)> {
    match *f {
        Fault::Partition { .. } | Fault::PartitionOneway { .. } => Some((0, 0)),
        Fault::Crash { node } => Some((1, node)),
        Fault::Pause { node } => Some((2, node)),
        _ => None,
    }
}

/// The fault plan in time order (stable: equal times keep their order).
fn sorted(mut sc: Scenario) -> Scenario {
    sc.faults.sort_by_key(|f| f.at_ms);
    sc
}

/// `sc` without node `k`: what names it is dropped, higher ids move down by one.
fn without_node(sc: &Scenario, k: NodeId) -> Scenario {
    let map = |v: NodeId| if v > k { v - 1 } else { v };
    let map_list =
        |l: &[NodeId]| -> Vec<NodeId> { l.iter().filter(|&&v| v != k).map(|&v| map(v)).collect() };
    let map_override = |o: &LinkOverride| -> Option<LinkOverride> {
        if o.from == Some(k) || o.to == Some(k) {
            return None;
        }
        let mut o = o.clone();
        o.from = o.from.map(map);
        o.to = o.to.map(map);
        Some(o)
    };
    let mut c = sc.clone();
    c.nodes = sc.nodes - 1;
    c.faults = sc
        .faults
        .iter()
        .filter_map(|tf| {
            let fault = match &tf.fault {
                f if f.node() == Some(k) => return None,
                Fault::Crash { node } => Fault::Crash { node: map(*node) },
                Fault::Restart { node } => Fault::Restart { node: map(*node) },
                Fault::Pause { node } => Fault::Pause { node: map(*node) },
                Fault::Resume { node } => Fault::Resume { node: map(*node) },
                Fault::ClockJump { node, delta_ms } => Fault::ClockJump {
                    node: map(*node),
                    delta_ms: *delta_ms,
                },
                Fault::DriftChange { node, drift_ppm } => Fault::DriftChange {
                    node: map(*node),
                    drift_ppm: *drift_ppm,
                },
                Fault::Partition { groups } => {
                    let groups: Vec<Vec<NodeId>> = groups
                        .iter()
                        .map(|g| map_list(g))
                        .filter(|g| !g.is_empty())
                        .collect();
                    let f = Fault::Partition { groups };
                    if f.cuts_nothing(c.nodes) {
                        return None;
                    }
                    f
                }
                Fault::PartitionOneway { from, to } => {
                    let (from, to) = (map_list(from), map_list(to));
                    if from.is_empty() || to.is_empty() {
                        return None;
                    }
                    Fault::PartitionOneway { from, to }
                }
                Fault::Heal => Fault::Heal,
                Fault::SetLinks(o) => Fault::SetLinks(Box::new(map_override(o)?)),
            };
            Some(TimedFault {
                at_ms: tf.at_ms,
                fault,
            })
        })
        .collect();
    c.workload = sc
        .workload
        .iter()
        .filter(|w| w.node != k)
        .map(|w| WorkloadItem {
            node: map(w.node),
            ..w.clone()
        })
        .collect();
    match &mut c.schedule {
        crate::schedule::Schedule::Pct(p) => p.priorities = map_list(&p.priorities),
        crate::schedule::Schedule::Recorded(list) => {
            list.retain(|r| r.from != k && r.to != k);
            for r in list.iter_mut() {
                (r.from, r.to) = (map(r.from), map(r.to));
            }
        }
        _ => {}
    }
    c.clocks.nodes.retain(|nc| nc.node != k);
    for nc in &mut c.clocks.nodes {
        nc.node = map(nc.node);
    }
    // A params list with one entry per node (ids, capacities, initial clocks) loses the
    // node's entry; the algorithm refuses the candidate if the list was something else.
    if let Some(o) = c.params.as_object_mut() {
        for v in o.values_mut() {
            if let Some(list) = v.as_array_mut().filter(|l| l.len() == sc.nodes) {
                list.remove(k);
            }
        }
    }
    c.network.links = sc.network.links.iter().filter_map(map_override).collect();
    if let Topology::Graph { edges } = &mut c.network.topology {
        edges.retain(|e| !e.contains(&k));
        for e in edges.iter_mut() {
            *e = [map(e[0]), map(e[1])];
        }
    }
    c
}

/// The `slot`-th latency of the scenario: the network's, then each link override's, then each
/// `set_links` fault's.
fn latency_slot(sc: &mut Scenario, slot: usize) -> Option<&mut Latency> {
    let links = sc
        .network
        .links
        .iter_mut()
        .filter_map(|o| o.latency.as_mut());
    let faults = sc.faults.iter_mut().filter_map(|f| match &mut f.fault {
        Fault::SetLinks(o) => o.latency.as_mut(),
        _ => None,
    });
    std::iter::once(&mut sc.network.latency)
        .chain(links)
        .chain(faults)
        .nth(slot)
}

/// Half of `x`, rounded down to whole milliseconds.
fn half(x: f64) -> f64 {
    (x / 2.0).floor()
}

/// Simpler latencies than `l`, simplest first: constant ones (the smallest, largest and middle
/// value of `l`), then narrower or halved ranges. Each is strictly smaller in (shape, largest
/// value, width), so repeated simplification ends.
fn simpler_latencies(l: &Latency) -> Vec<Latency> {
    let constant = |ms: f64| Latency::Constant { ms };
    let uniform = |min_ms: f64, max_ms: f64| Latency::Uniform { min_ms, max_ms };
    let mut out = match *l {
        Latency::Exponential {
            min_ms,
            mean_ms,
            max_ms,
        } => {
            let mut v = vec![
                constant(min_ms),
                constant(max_ms),
                constant(mean_ms),
                uniform(min_ms, mean_ms),
                uniform(min_ms, max_ms),
            ];
            if half(max_ms) >= min_ms {
                v.push(Latency::Exponential {
                    min_ms,
                    mean_ms: mean_ms.min(half(max_ms)),
                    max_ms: half(max_ms),
                });
            }
            v
        }
        Latency::Uniform { min_ms, max_ms } => {
            let w = max_ms - min_ms;
            vec![
                constant(min_ms),
                constant(max_ms),
                constant(min_ms + half(w)),
                uniform(min_ms, min_ms + half(w)),
                uniform(max_ms - half(w), max_ms),
                uniform(half(min_ms), half(max_ms)),
            ]
        }
        Latency::Constant { ms } => vec![constant(half(ms))],
    };
    out.retain(|c| c != l && c.validate().is_ok());
    let mut unique: Vec<Latency> = Vec::new();
    for c in out {
        if !unique.contains(&c) {
            unique.push(c);
        }
    }
    unique
}

/// The loss (0), duplication (1) or reordering (2) field of a link override.
fn override_probability(o: &mut LinkOverride, field: usize) -> &mut Option<f64> {
    match field {
        0 => &mut o.loss,
        1 => &mut o.duplicate,
        _ => &mut o.reorder,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::NetworkSpec;
    use crate::scenario::{ClockSpec, NodeClock};
    use serde_json::json;

    fn tf(at_ms: u64, fault: Fault) -> TimedFault {
        TimedFault { at_ms, fault }
    }

    fn input(at_ms: u64, node: NodeId) -> WorkloadItem {
        WorkloadItem {
            at_ms,
            node,
            input: json!({"acquire": {"hold_ms": 10}}).into(),
        }
    }

    /// A scenario with a bit of everything.
    fn busy() -> Scenario {
        let mut sc = Scenario::from_json(
            r#"{"name": "busy", "description": "generated", "algorithm": "x", "variant": "v",
                "params": {"p": 1}, "nodes": 5, "seed": 99, "duration_ms": 1000}"#,
        )
        .unwrap();
        sc.network = NetworkSpec {
            topology: Topology::Complete,
            latency: Latency::Exponential {
                min_ms: 3.0,
                mean_ms: 8.0,
                max_ms: 32.0,
            },
            loss: 0.05,
            duplicate: 0.01,
            reorder: 0.5,
            links: vec![LinkOverride {
                from: Some(3),
                to: None,
                latency: Some(Latency::Uniform {
                    min_ms: 10.0,
                    max_ms: 90.0,
                }),
                loss: None,
                duplicate: None,
                reorder: Some(1.0),
            }],
        };
        sc.clocks = ClockSpec {
            rho_ppm: 100.0,
            offset_ms_max: 20.0,
            nodes: vec![NodeClock {
                node: 4,
                offset_ms: 3.0,
                drift_ppm: -50.0,
            }],
        };
        sc.faults = vec![
            tf(10, Fault::Pause { node: 1 }),
            tf(20, Fault::Crash { node: 2 }),
            tf(
                25,
                Fault::DriftChange {
                    node: 0,
                    drift_ppm: 80.0,
                },
            ),
            tf(30, Fault::Resume { node: 1 }),
            tf(50, Fault::Restart { node: 2 }),
            tf(
                60,
                Fault::Partition {
                    groups: vec![vec![0, 3]],
                },
            ),
            tf(
                70,
                Fault::ClockJump {
                    node: 4,
                    delta_ms: -40.0,
                },
            ),
            tf(80, Fault::Heal),
            tf(
                90,
                Fault::PartitionOneway {
                    from: vec![4],
                    to: vec![1, 2],
                },
            ),
            tf(95, Fault::Heal),
        ];
        sc.workload = vec![input(5, 0), input(15, 1), input(40, 3), input(45, 1)];
        sc.validate().unwrap();
        sc
    }

    /// Shrinks with `pred`, checking every candidate is valid and counting the calls.
    fn run(
        sc: &Scenario,
        mut pred: impl FnMut(&Scenario) -> bool,
        max_runs: usize,
    ) -> (Shrunk, usize) {
        let mut calls = 0;
        let mut f = |c: &Scenario| {
            c.validate().expect("only valid candidates are run");
            calls += 1;
            pred(c)
        };
        let out = shrink(
            sc,
            &mut f,
            &ShrinkOptions {
                max_runs,
                ..ShrinkOptions::default()
            },
        );
        (out, calls)
    }

    #[test]
    fn synthetic_failure_shrinks_to_exactly_the_minimal_scenario() {
        // Fails iff node 2 crashes and node 1 gets an input.
        let pred = |c: &Scenario| {
            c.faults.iter().any(|f| f.fault == Fault::Crash { node: 2 })
                && c.workload.iter().any(|w| w.node == 1)
        };
        let sc = busy();
        let mut seen = Vec::new();
        let (out, calls) = run(
            &sc,
            |c| {
                seen.push(c.faults.clone());
                pred(c)
            },
            2_000,
        );
        assert_eq!(out.runs, calls);
        // The crash and its restart were dropped together before the restart alone.
        let has = |f: &[TimedFault], x: Fault| f.iter().any(|t| t.fault == x);
        let first = seen
            .iter()
            .find(|f| !has(f, Fault::Restart { node: 2 }))
            .unwrap();
        assert!(!has(first, Fault::Crash { node: 2 }));
        assert!(out.runs < 2_000, "reached a fixpoint within the budget");

        let mut want = Scenario::from_json(
            r#"{"name": "busy-shrunk", "algorithm": "x", "variant": "v", "params": {"p": 1},
                "nodes": 3, "seed": 99, "duration_ms": 45,
                "network": {"latency": {"constant": {"ms": 0}}},
                "faults": [{"at_ms": 20, "fault": {"crash": {"node": 2}}},
                           {"at_ms": 20, "fault": {"restart": {"node": 2}}}],
                "workload": [{"at_ms": 45, "node": 1, "input": {"acquire": {"hold_ms": 10}}}]}"#,
        )
        .unwrap();
        // The restart stays: without it the crash would be a crash-stop, a fault class the
        // original does not use (merged to the crash's time instead).
        want.description = "shrunk from 10 faults, 4 inputs, 5 nodes, 1000 ms \
                            to 2 faults, 1 inputs, 3 nodes, 45 ms\ngenerated"
            .into();
        assert_eq!(out.scenario, want, "{}", out.scenario.to_json());
        assert!(pred(&out.scenario));
    }

    /// A shorter duration drops the PCT change points it leaves behind (the run never reached
    /// them), instead of being refused at the last one: the shrunk run ends near the failure.
    #[test]
    fn a_shorter_run_drops_the_change_points_past_its_end() {
        let mut sc = busy();
        sc.schedule = crate::schedule::Schedule::Pct(crate::schedule::Pct {
            priorities: vec![4, 3, 2, 1, 0],
            change_points_ms: vec![10, 900],
        });
        sc.validate().unwrap();
        let (out, _) = run(&sc, |c| c.workload.iter().any(|w| w.node == 1), 2_000);
        assert!(out.scenario.duration_ms < 900, "{}", out.scenario.to_json());
        let crate::schedule::Schedule::Pct(p) = &out.scenario.schedule else {
            panic!("the schedule stays PCT: {}", out.scenario.to_json());
        };
        assert!(
            p.change_points_ms
                .iter()
                .all(|&t| t <= out.scenario.duration_ms),
            "{}",
            out.scenario.to_json()
        );
    }

    #[test]
    fn pairs_go_together_and_remaining_ids_move_down() {
        // Fails iff some node is paused, later resumed, and also gets an input: node 3 here,
        // so nodes 0..3 can go and node 3 becomes node 0.
        let pred = |c: &Scenario| {
            (0..c.nodes).any(|n| {
                let at = |f: Fault| c.faults.iter().position(|x| x.fault == f);
                matches!((at(Fault::Pause { node: n }), at(Fault::Resume { node: n })),
                         (Some(p), Some(r)) if p < r)
                    && c.workload.iter().any(|w| w.node == n)
            })
        };
        let mut sc = busy();
        sc.faults.insert(0, tf(1, Fault::Pause { node: 3 }));
        sc.faults.push(tf(200, Fault::Resume { node: 3 }));
        sc.faults.retain(|f| f.fault.node() != Some(1));
        sc.network.topology = Topology::Graph {
            edges: vec![[0, 1], [1, 2], [2, 3], [3, 4], [4, 0]],
        };
        sc.workload.push(input(300, 3));
        assert!(pred(&sc));
        let (out, _) = run(&sc, pred, 2_000);
        let s = &out.scenario;
        assert_eq!(s.nodes, 1, "{}", s.to_json());
        assert_eq!(
            s.faults,
            vec![
                tf(1, Fault::Pause { node: 0 }),
                tf(1, Fault::Resume { node: 0 })
            ],
            "the resume moved to the pause's time"
        );
        assert_eq!(s.workload, vec![input(300, 0)]);
        assert_eq!(s.network.topology, Topology::Graph { edges: vec![] });
        assert_eq!(s.duration_ms, 300);
    }

    #[test]
    fn two_partition_windows_merge_into_one() {
        // Fails iff the plan pairs every partition with a heal before the next one, and node 0
        // is cut from node 1 at 15 ms and at 35 ms.
        let cut_at = |c: &Scenario, t: u64| {
            let mut groups: Option<&Vec<Vec<NodeId>>> = None;
            for f in c.faults.iter().filter(|f| f.at_ms <= t) {
                match &f.fault {
                    Fault::Partition { groups: g } => groups = Some(g),
                    Fault::Heal => groups = None,
                    _ => {}
                }
            }
            groups.is_some_and(|g| {
                let of = |n| g.iter().position(|x| x.contains(&n));
                of(0) != of(1)
            })
        };
        let pred = |c: &Scenario| {
            let paired = c.faults.windows(2).all(|w| {
                !matches!(
                    (&w[0].fault, &w[1].fault),
                    (Fault::Partition { .. }, Fault::Partition { .. }) | (Fault::Heal, Fault::Heal)
                )
            }) && c
                .faults
                .first()
                .is_some_and(|f| matches!(f.fault, Fault::Partition { .. }))
                && c.faults.last().is_some_and(|f| f.fault == Fault::Heal);
            paired && cut_at(c, 15) && cut_at(c, 35)
        };
        let mut sc = busy();
        sc.faults = vec![
            tf(
                10,
                Fault::Partition {
                    groups: vec![vec![0]],
                },
            ),
            tf(20, Fault::Heal),
            tf(
                30,
                Fault::Partition {
                    groups: vec![vec![0, 2]],
                },
            ),
            tf(40, Fault::Heal),
        ];
        assert!(pred(&sc));
        let (out, _) = run(&sc, pred, 2_000);
        assert_eq!(
            out.scenario.faults,
            vec![
                tf(
                    10,
                    Fault::Partition {
                        groups: vec![vec![0]]
                    }
                ),
                tf(40, Fault::Heal)
            ]
        );
    }

    #[test]
    fn the_budget_is_respected() {
        let (out, calls) = run(&busy(), |_| true, 7);
        assert_eq!((out.runs, calls), (7, 7));
        assert!(ScenarioSize::of(&out.scenario) < ScenarioSize::of(&busy()));
        let (out, calls) = run(&busy(), |_| false, 0);
        assert_eq!((out.runs, calls, out.steps), (0, 0, 0));
        assert_eq!(out.scenario.faults, busy().faults);
    }

    /// Once `stop` says so the shrinker ends: no further candidate is run (a large
    /// scenario's rejected candidates used to be built, checked and remembered one by one for
    /// seconds after a Ctrl-C or a time cap).
    #[test]
    fn a_stop_ends_the_shrinker_at_once() {
        let calls = std::cell::Cell::new(0usize);
        let stopped = std::cell::Cell::new(false);
        let mut still_fails = |_: &Scenario| {
            calls.set(calls.get() + 1);
            if calls.get() == 3 {
                stopped.set(true);
                return false;
            }
            true
        };
        let opts = ShrinkOptions::default();
        let out = shrink_until(&busy(), &mut still_fails, &opts, &|| stopped.get());
        assert_eq!(calls.get(), 3);
        assert_eq!((out.runs, out.steps), (3, 2));
        assert!(ScenarioSize::of(&out.scenario) < ScenarioSize::of(&busy()));
    }

    #[test]
    fn everything_goes_when_anything_fails() {
        let (out, _) = run(&busy(), |_| true, 2_000);
        let s = &out.scenario;
        assert_eq!(
            ScenarioSize::of(s).to_string(),
            "0 faults, 0 inputs, 1 nodes, 1 ms"
        );
        assert_eq!(
            s.network,
            NetworkSpec {
                latency: Latency::Constant { ms: 0.0 },
                ..Default::default()
            }
        );
        assert_eq!(s.clocks, ClockSpec::default());
        assert_eq!((s.seed, s.variant.as_str()), (99, "v"));
        assert_eq!(s.params, json!({"p": 1}));
    }

    /// An algorithm's own plan in `params` (Ω's `churn`) shrinks as the fault plan does; a
    /// list with one entry per node follows the nodes; a candidate the algorithm would refuse
    /// (a per-node list of the wrong length) does not fail, so it is not kept.
    #[test]
    fn params_lists_shrink_and_per_node_lists_follow_the_nodes() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "x", "nodes": 5, "seed": 1, "duration_ms": 100,
            "params": {"plan": ["a", "b", "c", "d"], "ids": [50, 40, 30, 20, 10], "p": 1}}"#,
        )
        .unwrap();
        let fails = |s: &Scenario| {
            let ids = s.params["ids"].as_array().unwrap();
            let plan = s.params["plan"].as_array().unwrap();
            // the algorithm refuses ids that are not one per node; the bug needs plan entry
            // "c" and the node whose id is 40
            ids.len() == s.nodes && plan.contains(&json!("c")) && ids.contains(&json!(40))
        };
        let (out, _) = run(&sc, fails, 2_000);
        let s = &out.scenario;
        // the size counts the lists' entries, so a shrink of them alone is a shrink
        assert_eq!(ScenarioSize::of(&sc).params_entries, 9);
        assert_eq!(ScenarioSize::of(s).params_entries, 2);
        assert!(ScenarioSize::of(s)
            .to_string()
            .ends_with(", 2 params entries"));
        assert_eq!(s.params["plan"], json!(["c"]));
        assert_eq!((s.nodes, &s.params["ids"]), (1, &json!([40])));
        assert_eq!(s.params["p"], json!(1));
    }

    #[test]
    fn latencies_simplify_towards_a_constant() {
        let e = Latency::Exponential {
            min_ms: 2.0,
            mean_ms: 6.0,
            max_ms: 24.0,
        };
        let s = simpler_latencies(&e);
        assert_eq!(s[0], Latency::Constant { ms: 2.0 });
        assert!(s.contains(&Latency::Exponential {
            min_ms: 2.0,
            mean_ms: 6.0,
            max_ms: 12.0
        }));
        assert_eq!(
            simpler_latencies(&Latency::Constant { ms: 0.0 }),
            Vec::<Latency>::new()
        );
    }
}
