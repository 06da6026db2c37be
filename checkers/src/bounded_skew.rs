//! Bounded skew: after a convergence time, every two synchronized clocks are within a bound of
//! each other (internal synchronization), and within a bound of real time when a reference
//! clock exists (external synchronization).
//!
//! Tanenbaum & van Steen §6.1 (seed `000`): clocks drifting by at most ρ diverge by up to
//! `2ρΔt`; resynchronizing every Δ keeps them within a bound that also pays for the
//! uncertainty of the message delays.
//!
//! **How the checker sees every clock.** It rebuilds each node's software clock exactly, with
//! the harness's own clock types: the initial clocks of the scenario
//! ([`sincro_harness::engine::initial_clocks`]: offsets and drifts drawn from the seed or set
//! per node), then every `clock_jump` and `drift_change` fault and every `clock_adjust` (step or
//! slew) of the trace, at its global time. Between two such changes (or the end of a slew)
//! every clock is linear in global time, so the largest skew on an interval is reached at one of
//! its ends: the checker evaluates `max_p C_p − min_q C_q` (and `|C_p(t) − t|`) just before and
//! just after every change and at every slew's end, from the convergence time on — the exact
//! maximum over all global times, not a sample. Crashed nodes are left out until they restart.
//!
//! **The bound** is derived from the scenario (rho, the spread of the delays `d_max − d_min`,
//! the resync period Δ and the sample window W of the algorithm named by the scenario, see
//! [`SkewSpec::for_scenario`]) and stated in the violation message. **Convergence** starts when
//! the fault plan is quiet ([`Scenario::quiet_from_ms`]) plus the time to slew away the largest
//! offset the run can have built up (initial offsets, clock jumps, drift) at the 500 ppm slew
//! rate less the drift, plus W + 2 periods.
//!
//! # Contract
//!
//! - **Reads:** `clock_adjust` events (step or slew, and the amount) and `clock_jump`,
//!   `drift_change`, `crash` and `restart` faults, each applied to the event's node (nodes out
//!   of range and events without a node are ignored). A crashed node is left out of the
//!   comparison until it restarts, with its clock carried on across the restart. Every other
//!   event is ignored except to note it as the node's latest event (quoted in a violation):
//!   observations, messages, pauses, partitions. The clocks are rebuilt from the scenario,
//!   not read from the events' `local_ns`; `sincro check --scenario` refuses a trace whose
//!   readings are not those clocks' ([`readings_agree`]), so the two cannot tell two stories.
//! - **Settings:** the scenario, not the liveness bound (unused). From it: the node count; the
//!   initial clocks (`seed`, `clocks.rho_ppm`, `clocks.offset_ms_max`, `clocks.nodes`); the
//!   delays (`network.latency`, the links' latencies and those of `set_links` faults); the
//!   fault plan (the quiet time `scenario.quiet_from_ms()`, clock jumps, pauses); the
//!   `algorithm` name (`clock.cristian`, `clock.ntp-peers`, `clock.rbs`, anything else like
//!   Berkeley); and these `params`:
//!   - `params.period_ms`: the algorithm's resync period Δ, in ms of its local clock (the
//!     bound grows with it: drift accumulates over a period, and the convergence time waits
//!     for W + 3 periods). **Absent:** [`DEFAULT_PERIOD_MS`] (4000 ms), the period the
//!     built-in clock algorithms use when it is absent (they read the same constant); the
//!     derivation quoted in every violation then says `Δ = 4000 ms (params.period_ms absent:
//!     the built-in algorithms' default)`, so an algorithm of one's own with another period
//!     must set it.
//!   - `params.samples` or `params.window`: samples (or rounds) W the algorithm keeps;
//!     absent: [`DEFAULT_SAMPLES`], the built-in algorithms' default.
//!   - `params.server` (Cristian / NTP, absent: node 0), `params.beacon` (RBS, absent: node 0)
//!     and `params.mode` (RBS, `"regression"`; anything else averages).
//!
//!   A numeric param that is present but not a whole number (`period_ms`, `samples`,
//!   `window`, `server`, `beacon`), or a `period_ms` or `samples` of 0, makes the bound
//!   underivable: the run is **not judged** ([`BoundedSkew::param_problems`], reported by
//!   [`Checker::could_not_judge`]), never judged with a default in its place. Skew is judged
//!   from `quiet + `[`convergence_ms`]; with the default params that is at least 48 s after
//!   the last fault (11 periods of 4 s to refill the window, plus at least 4 s of slewing).
//! - **When the run ends before it can judge:** a run that ends before the convergence time is
//!   **not judged** ([`Checker::could_not_judge`] gives the end and the convergence time;
//!   [`BoundedSkew::max_internal_ns`] stays 0). Once the reference clock jumps or changes
//!   drift, the external bound is dropped for the rest of the run (the internal one is still
//!   judged), and a moment when fewer than two members are alive judges no internal skew. A
//!   run in which no moment after convergence had anything to compare (two live members, or
//!   one against a trusted reference) is **not judged** either.
//! - **Events at one instant** are judged as a set: the clocks are judged just before an
//!   instant's first change and just after its last, never between two of its events (a
//!   half-applied instant is no moment of the run, and its line order is arbitrary).
//! - **Class:** safety (after convergence; stops at the first instant over a bound).

use sincro_harness::clock::{SoftClock, SLEW_RATE_PPB};
use sincro_harness::engine::initial_clocks;
use sincro_harness::process::ClockAdjust;
use sincro_harness::trace::{Event, EventKind};
use sincro_harness::{
    Checker, Fault, NodeId, PropertyClass, Scenario, Trace, Violation, NS_PER_MS,
};
use std::collections::BTreeSet;

/// Property name.
pub const PROPERTY: &str = "bounded_skew";

/// Default resync period of the clock synchronization algorithms, ms (`params.period_ms`).
pub const DEFAULT_PERIOD_MS: u64 = 4_000;

/// Default number of samples an algorithm keeps (`params.samples` or `params.window`).
pub const DEFAULT_SAMPLES: usize = 8;

/// Slack for integer rounding and timer scheduling, ns.
const SLACK_NS: f64 = 50_000.0;

/// What the checker compares, from when, and against which bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct SkewSpec {
    /// Nodes whose clocks are synchronized (compared with each other).
    pub members: Vec<NodeId>,
    /// The node holding the reference clock (no offset, no drift), when one exists.
    pub reference: Option<NodeId>,
    /// Global time from which skew is judged, ns.
    pub converge_from_ns: u64,
    /// Bound on `max |C_p − C_q|`, ns.
    pub internal_bound_ns: u64,
    /// Bound on `|C_p − t|`, ns (with a reference clock).
    pub external_bound_ns: Option<u64>,
    /// How the bound was derived (quoted in violations).
    pub why: String,
}

/// The knobs of a run that the bound depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct Knobs {
    /// Largest drift, as a fraction (ppm / 1e6).
    pub rho: f64,
    /// Smallest one-way delay, ns.
    pub d_min_ns: f64,
    /// Largest one-way delay, ns.
    pub d_max_ns: f64,
    /// Resync period, ns of local time.
    pub period_ns: f64,
    /// Samples (or rounds) the algorithm keeps.
    pub samples: usize,
}

impl Knobs {
    /// Reads the knobs of `sc` (`params.period_ms`, `params.samples` / `params.window`).
    pub fn of(sc: &Scenario) -> Knobs {
        let (d_min, d_max) = latency_range_ns(sc);
        let p = |k: &str| sc.params.get(k).and_then(|v| v.as_u64());
        Knobs {
            rho: sc.clocks.rho_ppm / 1e6,
            d_min_ns: d_min as f64,
            d_max_ns: d_max as f64,
            period_ns: (p("period_ms")
                .unwrap_or(DEFAULT_PERIOD_MS)
                .saturating_mul(NS_PER_MS)) as f64,
            samples: p("samples")
                .or_else(|| p("window"))
                .map_or(DEFAULT_SAMPLES, |v| v as usize)
                .max(1),
        }
    }

    /// `d_max − d_min`, ns.
    pub fn spread_ns(&self) -> f64 {
        self.d_max_ns - self.d_min_ns
    }
}

/// Smallest and largest one-way delay the scenario's network can produce, ns.
pub fn latency_range_ns(sc: &Scenario) -> (u64, u64) {
    let mut lats = vec![&sc.network.latency];
    lats.extend(sc.network.links.iter().filter_map(|l| l.latency.as_ref()));
    lats.extend(sc.faults.iter().filter_map(|f| match &f.fault {
        Fault::SetLinks(o) => o.latency.as_ref(),
        _ => None,
    }));
    let min = lats.iter().map(|l| l.min_ns()).min().unwrap_or(0);
    let max = lats.iter().map(|l| l.max_ns()).max().unwrap_or(0);
    (min, max)
}

/// True when `node`'s clock is a perfect reference at the start of `sc`.
pub fn is_reference(sc: &Scenario, node: NodeId) -> bool {
    if node >= sc.nodes {
        return false;
    }
    match sc.clocks.nodes.iter().find(|c| c.node == node) {
        Some(c) => c.offset_ms == 0.0 && c.drift_ppm == 0.0,
        None => sc.clocks.rho_ppm == 0.0 && sc.clocks.offset_ms_max == 0.0,
    }
}

/// The largest offset a run can have built up by the time its faults stop, ns: twice the
/// largest initial offset, every clock jump, the drift over the faulty phase, one spread of
/// delays for a wrong estimate, and the length of every pause (a paused node reads a message's
/// arrival late by up to that much).
pub fn worst_offset_ns(sc: &Scenario, k: &Knobs) -> f64 {
    let jumps: f64 = sc
        .faults
        .iter()
        .filter_map(|f| match f.fault {
            Fault::ClockJump { delta_ms, .. } => Some(delta_ms.abs() * 1e6),
            _ => None,
        })
        .sum();
    let offsets = sc
        .clocks
        .nodes
        .iter()
        .map(|c| c.offset_ms.abs())
        .fold(sc.clocks.offset_ms_max, f64::max)
        * 1e6;
    let mut paused_at = std::collections::BTreeMap::new();
    let mut pauses = 0.0;
    // in time order, as the run applies the plan (a plan built in code may list it otherwise)
    let mut plan: Vec<&sincro_harness::TimedFault> = sc.faults.iter().collect();
    plan.sort_by_key(|f| f.at_ms); // stable
    for f in plan {
        match f.fault {
            Fault::Pause { node } => {
                paused_at.entry(node).or_insert(f.at_ms);
            }
            Fault::Resume { node } => {
                if let Some(a) = paused_at.remove(&node) {
                    pauses += f.at_ms.saturating_sub(a) as f64 * 1e6;
                }
            }
            _ => {}
        }
    }
    2.0 * offsets
        + jumps
        + pauses
        + 2.0 * k.rho * (sc.quiet_from_ms() * NS_PER_MS) as f64
        + k.spread_ns()
        + 1e6
}

/// Convergence time after the faults stop, ms: slew away twice the worst offset (a restarted
/// node's lost bookkeeping can shift the group once more) at the slew rate less the drift,
/// then refill the sample window.
pub fn convergence_ms(sc: &Scenario) -> u64 {
    let k = Knobs::of(sc);
    let slew = SLEW_RATE_PPB as f64 / 1e9;
    let net = (slew - k.rho).max(slew / 10.0);
    let slew_ns = 2.0 * worst_offset_ns(sc, &k) / net;
    let refill_ns = (k.samples as f64 + 3.0) * (k.period_ns * (1.0 + k.rho) + 4.0 * k.d_max_ns);
    ((slew_ns + refill_ns) / 1e6).ceil() as u64
}

/// How far apart the offset errors of a Berkeley round can put two of `n` clocks, for delays
/// spread over `s` ns: s once every adjustment of the round has arrived, s·(2n − 3)/n while
/// some have and some have not.
///
/// With D the daemon's clock, a machine k at D + x_k before the round (|x_k| ≤ s/2: the last
/// round's error) is measured at an offset o_k = x_k + ε_k (|ε_k| ≤ s/2: asymmetric delays),
/// and the daemon adjusts everyone to the average a = Σo_k / n (its own offset 0): k to
/// D + a − ε_k. A machine i already adjusted and a machine j not yet differ by
/// a − ε_i − x_j = (Σ_{k≠i,j} o_k + x_i + ε_j)/n − ε_i(1 − 1/n) − x_j(1 − 1/n), at most
/// s(n − 3)/n + s/n + s(n − 1)/n = s(2n − 3)/n. (The daemon against a machine: at most
/// s(3n − 4)/(2n), less.) Not counting it, the bound was s, and a run of 10 nodes broke it
/// while correct: node 9 stepped +13.9 ms on its adjustment 11.98 ms ahead of node 3, whose
/// own had not arrived (25.90 ms apart against a bound of 25.10; `fuzz -a clock.berkeley
/// --nodes-min 5 --nodes-max 10`, seed 23,013,930, stop 87).
pub fn berkeley_spread_ns(s: f64, n: usize) -> f64 {
    let n = n.max(1) as f64;
    s * ((2.0 * n - 3.0) / n).max(1.0)
}

impl SkewSpec {
    /// The spec for the clock synchronization algorithm `sc` names (`clock.cristian`,
    /// `clock.ntp-peers`, `clock.berkeley`, `clock.rbs`; anything else is judged like
    /// Berkeley: internal only). With ρ the drift bound, s = d_max − d_min, Δ the period
    /// (stretched by ρ: timers run on drifting clocks), W the samples kept, and σ the 500 ppm
    /// slew rate:
    /// - client–server (Cristian, NTP): a sample's offset is wrong by at most s/2 (asymmetric
    ///   delays) plus the drift and slew over its round trip; the best of W samples is at most
    ///   W periods old; the clock drifts ρ(Δ + 2·d_max) until the next correction:
    ///   `E = s/2 + ρ(W+1)(Δ + 2d_max) + (σ + ρ)·2d_max`, external bound E, internal 2E;
    /// - Berkeley: each node's offset is wrong by at most s/2, two nodes by s, once a round's
    ///   adjustments have all arrived. They arrive at different times, and until the last one
    ///   has, a node with the new adjustment and one without compare the new average with the
    ///   old: with n nodes, their clocks differ by up to s·(2n − 3)/n (each measured offset
    ///   is at most s, and the average moves the daemon and every adjusted node; derivation
    ///   in [`berkeley_spread_ns`]). Two clocks drift apart 2ρ per period:
    ///   `I = s·max(1, (2n−3)/n) + 2ρ(Δ + 4d_max) + 2σ·2d_max`;
    /// - RBS: receive times differ by at most s; averaging W rounds lags the drift by W + 1
    ///   periods; regression extrapolates (noise weight L = Σ|w_i| of the least-squares
    ///   prediction, 1.86 for W = 8) but does not lag: `I = L·s + 4ρ(W+1)(Δ + 2d_max)`
    ///   (average) or `L·s + 4ρ(Δ + 2d_max)` (regression); the beacon is not synchronized.
    pub fn for_scenario(sc: &Scenario) -> SkewSpec {
        let k = Knobs::of(sc);
        let s = k.spread_ns();
        let sigma = SLEW_RATE_PPB as f64 / 1e9;
        let per = k.period_ns * (1.0 + k.rho);
        let w = k.samples as f64;
        let param_node = |key: &str| {
            sc.params
                .get(key)
                .and_then(|v| v.as_u64())
                .map_or(0, |v| v as usize)
        };
        let all: Vec<NodeId> = (0..sc.nodes).collect();
        let absent = |key: &str| sc.params.get(key).is_none();
        let desc = format!(
            "rho = {} ppm, delays {:.3}–{:.3} ms (spread s = {:.3} ms), resync period Δ = {} ms{}, W = {}{}",
            sc.clocks.rho_ppm,
            k.d_min_ns / 1e6,
            k.d_max_ns / 1e6,
            s / 1e6,
            k.period_ns / 1e6,
            if absent("period_ms") {
                " (params.period_ms absent: the built-in algorithms' default)"
            } else {
                ""
            },
            k.samples,
            if absent("samples") && absent("window") {
                " (params.samples absent: the built-in algorithms' default)"
            } else {
                ""
            }
        );
        let (members, reference, internal, external, formula) = match sc.algorithm.as_str() {
            "clock.cristian" | "clock.ntp-peers" => {
                let server = param_node("server");
                let e = s / 2.0
                    + k.rho * (w + 1.0) * (per + 2.0 * k.d_max_ns)
                    + (sigma + k.rho) * 2.0 * k.d_max_ns
                    + SLACK_NS;
                let reference = is_reference(sc, server).then_some(server);
                (
                    all,
                    reference,
                    2.0 * e,
                    reference.map(|_| e),
                    "E = s/2 + ρ(W+1)(Δ+2d_max) + (σ+ρ)·2d_max; internal 2E",
                )
            }
            "clock.rbs" => {
                let beacon = param_node("beacon");
                let regression =
                    sc.params.get("mode").and_then(|m| m.as_str()) == Some("regression");
                let (l, lag) = if regression {
                    (regression_noise_weight(k.samples), 1.0)
                } else {
                    (1.0, w + 1.0)
                };
                let i = l * s + 4.0 * k.rho * lag * (per + 2.0 * k.d_max_ns) + SLACK_NS;
                (
                    all.into_iter().filter(|&p| p != beacon).collect(),
                    None,
                    i,
                    None,
                    if regression {
                        "I = L·s + 4ρ(Δ+2d_max), L = Σ|w_i| of the regression prediction"
                    } else {
                        "I = s + 4ρ(W+1)(Δ+2d_max)"
                    },
                )
            }
            _ => {
                let i = berkeley_spread_ns(s, sc.nodes)
                    + 2.0 * k.rho * (per + 4.0 * k.d_max_ns)
                    + 2.0 * sigma * 2.0 * k.d_max_ns
                    + SLACK_NS;
                (
                    all,
                    None,
                    i,
                    None,
                    "I = s·max(1, (2n−3)/n) + 2ρ(Δ+4d_max) + 2σ·2d_max",
                )
            }
        };
        let converge_ms = sc.quiet_from_ms().saturating_add(convergence_ms(sc));
        let why = format!(
            "{formula} with {desc}: internal bound {:.3} ms{}, judged from {} ms (faults quiet at {} ms + convergence)",
            internal / 1e6,
            external.map_or(String::new(), |e| format!(", external bound {:.3} ms", e / 1e6)),
            converge_ms,
            sc.quiet_from_ms(),
        );
        SkewSpec {
            members,
            reference,
            converge_from_ns: converge_ms.saturating_mul(NS_PER_MS),
            internal_bound_ns: internal.ceil() as u64,
            external_bound_ns: external.map(|e| e.ceil() as u64),
            why,
        }
    }
}

/// Σ|w_i| of the least-squares prediction one step past `n` equally spaced points: how much the
/// regression can amplify a bounded noise.
pub fn regression_noise_weight(n: usize) -> f64 {
    if n < 2 {
        return 1.0;
    }
    let nf = n as f64;
    let mean = (nf - 1.0) / 2.0;
    let sxx: f64 = (0..n).map(|i| (i as f64 - mean).powi(2)).sum();
    let x0 = nf;
    (0..n)
        .map(|i| (1.0 / nf + (x0 - mean) * (i as f64 - mean) / sxx).abs())
        .sum()
}

/// Whether `trace`'s clock readings (`local_ns`) are those of the clocks this checker
/// rebuilds from `sc` and the trace's clock changes: a trace can carry two clock histories,
/// its readings and its changes, and `bounded_skew` judges the second while
/// `monotonic_clock` reads the first (a trace whose node read its clock 100 s ahead of the
/// others passed). A node's events of one instant may read its clock before or after any of
/// its changes of that instant (the events of one callback are recorded after it ran, with
/// the clock it left); the first event reading something else is returned.
pub fn readings_agree(sc: &Scenario, trace: &Trace) -> Result<(), String> {
    let mut clocks = initial_clocks(sc);
    let events = trace.events();
    let mut i = 0;
    while i < events.len() {
        let t = events[i].t_ns;
        let end = i + events[i..].iter().take_while(|e| e.t_ns == t).count();
        let instant = &events[i..end];
        // node -> the readings its clock takes at `t` (before, and after each change)
        let mut readings: std::collections::BTreeMap<NodeId, Vec<i64>> = Default::default();
        for ev in instant {
            let Some(node) = ev.node.filter(|&n| n < clocks.len()) else {
                continue;
            };
            let clock = &mut clocks[node];
            let seen = readings.entry(node).or_insert_with(|| vec![clock.read(t)]);
            let changed = match &ev.kind {
                EventKind::ClockAdjust { how, delta_ns } => {
                    match how {
                        ClockAdjust::Step => clock.step(t, *delta_ns),
                        ClockAdjust::Slew => clock.slew(t, *delta_ns),
                    }
                    true
                }
                EventKind::Fault {
                    fault: Fault::ClockJump { delta_ms, .. },
                } => {
                    clock.hw_jump(t, (delta_ms * 1e6).round() as i64);
                    true
                }
                EventKind::Fault {
                    fault: Fault::DriftChange { drift_ppm, .. },
                } => {
                    clock.set_drift(t, (drift_ppm * 1000.0).round() as i64);
                    true
                }
                _ => false,
            };
            if changed {
                seen.push(clock.read(t));
            }
        }
        for ev in instant {
            let (Some(node), Some(local)) = (ev.node.filter(|&n| n < clocks.len()), ev.local_ns)
            else {
                continue;
            };
            let seen = &readings[&node];
            if !seen.contains(&local) {
                return Err(format!(
                    "event {} reads node {node}'s clock as {local} ns at {t} ns, but the \
                     scenario's clock with the trace's clock changes reads {} ns there: the \
                     trace's readings and its clock changes are two different histories",
                    ev.id, seen[0]
                ));
            }
        }
        i = end;
    }
    Ok(())
}

/// The most clock readings one run's checker takes (each judged instant reads every clock):
/// about 10 s of readings; past it the run is *could not judge* from that instant on.
pub const READINGS_MAX: u64 = 1 << 31;

/// The bounded-skew checker (online; also measures the largest skews it saw).
#[derive(Debug)]
pub struct BoundedSkew {
    spec: SkewSpec,
    clocks: Vec<SoftClock>,
    alive: Vec<bool>,
    member: Vec<bool>,
    reference_ok: bool,
    /// Global times at which some clock's rate changes (a slew ends).
    breakpoints: BTreeSet<u64>,
    last_event: Vec<Option<u64>>,
    converge_done: bool,
    max_internal_ns: i64,
    max_external_ns: i64,
    /// Why the bound cannot be derived from the scenario's params (nothing is judged).
    problems: Vec<String>,
    unjudged: Option<String>,
    /// Clock readings taken so far (every clock at each judged instant), and the time the
    /// readings stopped at [`READINGS_MAX`], if they did.
    readings: u64,
    readings_cut_ns: Option<u64>,
    /// The instant of the events being read, whether its state before them was judged, and
    /// whether one of them changed a clock (its state after them is judged at the next
    /// instant): the states between two events of one instant are no moment of the run.
    now_ns: u64,
    before_judged: bool,
    changed: bool,
    /// Whether some moment after convergence had something to compare: two live members, or a
    /// live member against a trusted reference.
    compared: bool,
}

impl BoundedSkew {
    /// A checker over the clocks of `sc`, judged by `spec`.
    pub fn new(sc: &Scenario, spec: SkewSpec) -> Self {
        let mut member = vec![false; sc.nodes];
        for &m in &spec.members {
            if m < sc.nodes {
                member[m] = true;
            }
        }
        BoundedSkew {
            clocks: initial_clocks(sc),
            alive: vec![true; sc.nodes],
            member,
            reference_ok: spec.reference.is_some(),
            breakpoints: BTreeSet::new(),
            last_event: vec![None; sc.nodes],
            converge_done: false,
            max_internal_ns: 0,
            max_external_ns: 0,
            problems: Self::param_problems(sc),
            readings: 0,
            readings_cut_ns: None,
            unjudged: None,
            now_ns: 0,
            before_judged: false,
            changed: false,
            compared: false,
            spec,
        }
    }

    /// The params of `sc` the bound reads but cannot use: a numeric one present but not a
    /// whole number, or a period or sample count of 0. Empty when every one is usable or
    /// absent.
    pub fn param_problems(sc: &Scenario) -> Vec<String> {
        let mut problems = Vec::new();
        for key in ["period_ms", "samples", "window", "server", "beacon"] {
            match sc.params.get(key) {
                None => {}
                Some(v) => match v.as_u64() {
                    None => problems.push(format!("params.{key} = {v} is not a whole number")),
                    Some(0) if matches!(key, "period_ms" | "samples" | "window") => {
                        problems.push(format!("params.{key} = 0 is not a usable value"))
                    }
                    Some(_) => {}
                },
            }
        }
        problems
    }

    /// The checker for the algorithm `sc` names, with [`SkewSpec::for_scenario`].
    pub fn for_scenario(sc: &Scenario) -> Self {
        BoundedSkew::new(sc, SkewSpec::for_scenario(sc))
    }

    /// The spec it judges by.
    pub fn spec(&self) -> &SkewSpec {
        &self.spec
    }

    /// Largest `max |C_p − C_q|` seen after convergence, ns.
    pub fn max_internal_ns(&self) -> i64 {
        self.max_internal_ns
    }

    /// Largest `|C_p − t|` seen after convergence (0 without a reference), ns.
    pub fn max_external_ns(&self) -> i64 {
        self.max_external_ns
    }

    /// Judges a whole recorded trace ending at `end_t_ns`.
    pub fn check(&mut self, trace: &Trace, end_t_ns: u64) -> Result<(), Violation> {
        for e in trace.events() {
            self.on_event(e)?;
        }
        self.finish(end_t_ns)
    }

    fn eval(&mut self, t_ns: u64) -> Result<(), Violation> {
        if t_ns < self.spec.converge_from_ns
            || !self.problems.is_empty()
            || self.readings_cut_ns.is_some()
        {
            return Ok(());
        }
        // Each judged instant reads every clock: past the limit the checker stops, and the
        // run is not judged from there (stop 69's probe: 10,000 nodes under `clock.cristian`
        // read 120 µs of clocks a step, about 20 minutes to the default step limit).
        self.readings = self.readings.saturating_add(self.clocks.len() as u64);
        if self.readings > READINGS_MAX {
            self.readings_cut_ns = Some(t_ns);
            return Ok(());
        }
        let mut hi: Option<(NodeId, i64)> = None;
        let mut lo: Option<(NodeId, i64)> = None;
        let mut worst_ext: Option<(NodeId, i64)> = None;
        for p in 0..self.clocks.len() {
            if !self.member[p] || !self.alive[p] {
                continue;
            }
            let c = self.clocks[p].read(t_ns);
            if hi.is_none_or(|(_, v)| c > v) {
                hi = Some((p, c));
            }
            if lo.is_none_or(|(_, v)| c < v) {
                lo = Some((p, c));
            }
            if self.reference_ok && Some(p) != self.spec.reference {
                let off = c - t_ns as i64;
                if worst_ext.is_none_or(|(_, v)| off.abs() > v.abs()) {
                    worst_ext = Some((p, off));
                }
            }
        }
        let events = |ns: &[NodeId], last: &[Option<u64>]| -> Vec<u64> {
            let mut v: Vec<u64> = ns.iter().filter_map(|&n| last[n]).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        if let (Some((p, cp)), Some((q, cq))) = (hi, lo) {
            let two = (0..self.clocks.len())
                .filter(|&n| self.member[n] && self.alive[n])
                .nth(1)
                .is_some();
            self.compared |= two;
            let skew = cp - cq;
            self.max_internal_ns = self.max_internal_ns.max(skew);
            if skew > self.spec.internal_bound_ns as i64 {
                return Err(Violation {
                    property: PROPERTY.into(),
                    class: PropertyClass::Safety,
                    explanation: format!(
                        "node {p}'s clock ({:.6} ms) is {:.6} ms ahead of node {q}'s ({:.6} ms), above the internal bound {:.6} ms; {}",
                        cp as f64 / 1e6,
                        skew as f64 / 1e6,
                        cq as f64 / 1e6,
                        self.spec.internal_bound_ns as f64 / 1e6,
                        self.spec.why
                    ),
                    t_ns,
                    events: events(&[p, q], &self.last_event),
                });
            }
        }
        if let (Some((p, off)), Some(bound)) = (worst_ext, self.spec.external_bound_ns) {
            self.compared = true;
            self.max_external_ns = self.max_external_ns.max(off.abs());
            if off.unsigned_abs() > bound {
                return Err(Violation {
                    property: PROPERTY.into(),
                    class: PropertyClass::Safety,
                    explanation: format!(
                        "node {p}'s clock is {:.6} ms off real time, above the external bound {:.6} ms; {}",
                        off as f64 / 1e6,
                        bound as f64 / 1e6,
                        self.spec.why
                    ),
                    t_ns,
                    events: events(&[p], &self.last_event),
                });
            }
        }
        Ok(())
    }

    /// Evaluates every breakpoint strictly before `t_ns` (all changes up to them are applied).
    fn drain(&mut self, t_ns: u64) -> Result<(), Violation> {
        if !self.converge_done && self.spec.converge_from_ns < t_ns {
            self.converge_done = true;
            self.eval(self.spec.converge_from_ns)?;
        }
        while let Some(&b) = self.breakpoints.first() {
            if b >= t_ns {
                break;
            }
            self.breakpoints.pop_first();
            self.eval(b)?;
        }
        Ok(())
    }

    /// Judges the state before the current instant's changes, once.
    fn before_change(&mut self) -> Result<(), Violation> {
        if !self.before_judged {
            self.before_judged = true;
            self.eval(self.now_ns)?;
        }
        self.changed = true;
        Ok(())
    }

    /// Moves to the instant `t_ns`, judging the state the last instant's changes left.
    fn enter_instant(&mut self, t_ns: u64) -> Result<(), Violation> {
        if t_ns == self.now_ns {
            return Ok(());
        }
        if self.changed {
            self.changed = false;
            self.eval(self.now_ns)?;
        }
        self.now_ns = t_ns;
        self.before_judged = false;
        Ok(())
    }

    fn note_slew_end(&mut self, node: NodeId, t_ns: u64) {
        let pending = self.clocks[node].slew_pending_ns(t_ns).unsigned_abs() as u128;
        if pending > 0 {
            let dt = (pending * 1_000_000_000).div_ceil(SLEW_RATE_PPB as u128);
            self.breakpoints
                .insert(t_ns.saturating_add(dt.min(u64::MAX as u128) as u64));
        }
    }
}

impl Checker for BoundedSkew {
    /// [`crate::Property::EVIDENCE`]: what a run must hold for this checker to judge anything.
    fn evidence(&self) -> &'static [&'static str] {
        <Self as crate::Property>::EVIDENCE
    }

    fn property(&self) -> &'static str {
        PROPERTY
    }

    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        let t = ev.t_ns;
        self.enter_instant(t)?;
        self.drain(t)?;
        let Some(node) = ev.node.filter(|&n| n < self.clocks.len()) else {
            return Ok(());
        };
        self.last_event[node] = Some(ev.id);
        match &ev.kind {
            EventKind::ClockAdjust { how, delta_ns } => {
                self.before_change()?;
                match how {
                    ClockAdjust::Step => self.clocks[node].step(t, *delta_ns),
                    ClockAdjust::Slew => self.clocks[node].slew(t, *delta_ns),
                }
                self.note_slew_end(node, t);
                Ok(())
            }
            EventKind::Fault { fault } => {
                if !matches!(
                    fault,
                    Fault::ClockJump { .. }
                        | Fault::DriftChange { .. }
                        | Fault::Crash { .. }
                        | Fault::Restart { .. }
                ) {
                    return Ok(());
                }
                self.before_change()?;
                match *fault {
                    Fault::ClockJump { delta_ms, .. } => {
                        self.clocks[node].hw_jump(t, (delta_ms * 1e6).round() as i64);
                    }
                    Fault::DriftChange { drift_ppm, .. } => {
                        self.clocks[node].set_drift(t, (drift_ppm * 1000.0).round() as i64);
                    }
                    Fault::Crash { .. } => self.alive[node] = false,
                    Fault::Restart { .. } => self.alive[node] = true,
                    _ => unreachable!("matched above"),
                }
                if Some(node) == self.spec.reference
                    && matches!(fault, Fault::ClockJump { .. } | Fault::DriftChange { .. })
                {
                    // The reference is no longer one: real time is not known any more.
                    self.reference_ok = false;
                }
                self.note_slew_end(node, t);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        if self.changed {
            self.changed = false;
            self.eval(self.now_ns)?;
        }
        self.drain(end_t_ns.saturating_add(1))?;
        self.eval(end_t_ns)?;
        self.unjudged = if !self.problems.is_empty() {
            Some(format!(
                "the skew bound cannot be derived: {}",
                self.problems.join("; ")
            ))
        } else if let Some(cut_ns) = self.readings_cut_ns {
            Some(format!(
                "judged up to {:.3} ms only: every clock is read at each change, and {} clocks \
                 reached the limit of {READINGS_MAX} readings there (fewer nodes, or a shorter \
                 run, is judged whole)",
                cut_ns as f64 / 1e6,
                self.clocks.len()
            ))
        } else if self.spec.converge_from_ns / NS_PER_MS > sincro_harness::MAX_TIME_MS {
            // Offsets or jumps of years: the convergence time (slewing them away) is past any
            // run, and saturated: it is no time to print.
            Some(format!(
                "the run ended at {:.3} ms; with offsets and jumps this large the clocks would \
                 converge only after the longest run a scenario may have ({} ms): nothing can \
                 be judged",
                end_t_ns as f64 / 1e6,
                sincro_harness::MAX_TIME_MS
            ))
        } else if end_t_ns < self.spec.converge_from_ns {
            Some(format!(
                "the run ended at {:.3} ms, before the clocks are judged (from {:.3} ms: the faults stop, then the convergence time): too short to judge",
                end_t_ns as f64 / 1e6,
                self.spec.converge_from_ns as f64 / 1e6
            ))
        } else if !self.compared {
            Some(format!(
                "from {:.3} ms, when the clocks are judged, to the end at {:.3} ms, fewer than two synchronized clocks were alive at once{}: no skew to judge",
                self.spec.converge_from_ns as f64 / 1e6,
                end_t_ns as f64 / 1e6,
                if self.spec.external_bound_ns.is_some() {
                    " and none against a trusted reference"
                } else {
                    ""
                }
            ))
        } else {
            None
        };
        Ok(())
    }

    fn could_not_judge(&self) -> Option<String> {
        self.unjudged.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "clock.berkeley", "nodes": 3, "seed": 5, "duration_ms": 60000,
                "network": {{"latency": {{"uniform": {{"min_ms": 1, "max_ms": 3}}}}}}{extra}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_plan_listed_out_of_time_order_is_read_in_time_order() {
        use sincro_harness::{Fault, TimedFault};
        let pause = TimedFault {
            at_ms: 300,
            fault: Fault::Pause { node: 1 },
        };
        let resume = TimedFault {
            at_ms: 100,
            fault: Fault::Resume { node: 1 },
        };
        // in time order: a resume of a node not paused, then a pause never resumed
        let mut in_order = scenario("");
        in_order.faults = vec![resume.clone(), pause.clone()];
        // the same plan listed backwards, as a plan built in code may be (the pause's 300 ms
        // minus the resume's 100 ms wrapped around, and the skew was judged from 599,999 ms)
        let mut listed_back = in_order.clone();
        listed_back.faults = vec![pause, resume];
        assert_eq!(convergence_ms(&listed_back), convergence_ms(&in_order));
        assert!(convergence_ms(&listed_back) < 60_000);
        // and a file listed backwards is read in time order
        let text = serde_json::to_string(&listed_back).unwrap();
        assert_eq!(Scenario::from_json(&text).unwrap().faults, in_order.faults);
    }

    fn adjust(id: u64, t_ms: u64, node: NodeId, how: ClockAdjust, delta_ns: i64) -> Event {
        Event {
            id,
            t_ns: t_ms * NS_PER_MS,
            node: Some(node),
            local_ns: None,
            kind: EventKind::ClockAdjust { how, delta_ns },
        }
    }

    /// Three clocks at +200, −200 and 0 ppm, never corrected, judged from 10 s on.
    fn drifting_judged_from_10_s() -> (Scenario, SkewSpec) {
        let sc = scenario(
            r#", "clocks": {"rho_ppm": 200, "nodes": [{"node": 0, "drift_ppm": 200},
                {"node": 1, "drift_ppm": -200}, {"node": 2, "drift_ppm": 0}]}"#,
        );
        let mut spec = SkewSpec::for_scenario(&sc);
        spec.converge_from_ns = 10_000 * NS_PER_MS;
        (sc, spec)
    }

    #[test]
    fn unsynchronized_drifting_clocks_exceed_the_bound() {
        // ±200 ppm, never corrected: after 10 s the clocks are 4 ms apart (2ρΔt), above a
        // bound of about 3.7 ms (it would be 24 ms after 60 s).
        let sc = scenario(
            r#", "clocks": {"rho_ppm": 200, "nodes": [{"node": 0, "drift_ppm": 200},
                {"node": 1, "drift_ppm": -200}, {"node": 2, "drift_ppm": 0}]}"#,
        );
        let mut spec = SkewSpec::for_scenario(&sc);
        assert!(spec.internal_bound_ns < 5_000_000, "{}", spec.why);
        spec.converge_from_ns = 10_000 * NS_PER_MS;
        let mut c = BoundedSkew::new(&sc, spec);
        let v = c.finish(60_000 * NS_PER_MS).unwrap_err();
        assert_eq!(v.property, PROPERTY);
        assert!(
            v.explanation.contains("node 0") && v.explanation.contains("node 1"),
            "{v}"
        );
        assert!(v.explanation.contains("rho = 200 ppm"), "{v}");
        // exactly 2ρΔt when judging starts (10 s): the run stops at the first violation
        assert_eq!(v.t_ns, 10_000 * NS_PER_MS);
        assert_eq!(c.max_internal_ns(), 4_000_000);
    }

    /// Past [`READINGS_MAX`] clock readings the checker stops: the run is could not judge
    /// from there, never a pass (the drifting clocks below break the bound at 10 s).
    #[test]
    fn readings_past_the_limit_are_could_not_judge() {
        let (sc, spec) = drifting_judged_from_10_s();
        let mut c = BoundedSkew::new(&sc, spec);
        c.readings = READINGS_MAX - 2;
        c.finish(60_000 * NS_PER_MS).unwrap();
        let why = c.could_not_judge().expect("not judged past the limit");
        assert!(why.contains("judged up to 10000.000 ms only"), "{why}");
    }

    #[test]
    fn the_maximum_between_samples_is_found_and_corrections_pass() {
        // Node 0 starts 10 ms ahead; slewing it back by 10 ms takes 20 s; after that the skew
        // is 0. Without the slew the run fails; with it, it passes once converged.
        let sc = scenario(r#", "clocks": {"rho_ppm": 0, "nodes": [{"node": 0, "offset_ms": 10}]}"#);
        let mut spec = SkewSpec::for_scenario(&sc);
        spec.converge_from_ns = 25_000 * NS_PER_MS;
        let mut bad = BoundedSkew::new(&sc, spec.clone());
        assert!(bad.finish(60_000 * NS_PER_MS).is_err());
        let mut good = BoundedSkew::new(&sc, spec.clone());
        good.on_event(&adjust(0, 100, 0, ClockAdjust::Slew, -10_000_000))
            .unwrap();
        good.finish(60_000 * NS_PER_MS).unwrap();
        assert_eq!(good.max_internal_ns(), 0);
        // judged from 10 s the slew is half done: caught at the convergence instant
        spec.converge_from_ns = 10_000 * NS_PER_MS;
        let mut early = BoundedSkew::new(&sc, spec);
        early
            .on_event(&adjust(0, 100, 0, ClockAdjust::Slew, -10_000_000))
            .unwrap();
        let v = early.finish(60_000 * NS_PER_MS).unwrap_err();
        assert_eq!(v.t_ns, 10_000 * NS_PER_MS, "{v}");
        assert_eq!(v.events, vec![0]);
    }

    #[test]
    fn external_bound_against_a_reference_clock() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "clock.cristian", "nodes": 2, "seed": 1, "duration_ms": 1000,
                "clocks": {"rho_ppm": 0, "nodes": [{"node": 1, "offset_ms": -30}]}}"#,
        )
        .unwrap();
        let mut spec = SkewSpec::for_scenario(&sc);
        assert_eq!(spec.reference, Some(0));
        spec.converge_from_ns = NS_PER_MS;
        let mut c = BoundedSkew::new(&sc, spec.clone());
        let v = c.finish(2 * NS_PER_MS).unwrap_err();
        assert!(v.explanation.contains("internal bound"), "{v}");
        assert!(spec.why.contains("external bound"), "{}", spec.why);
        let mut ok = BoundedSkew::new(&sc, spec);
        ok.on_event(&adjust(0, 0, 1, ClockAdjust::Step, 30_000_000))
            .unwrap();
        ok.finish(2 * NS_PER_MS).unwrap();
        assert_eq!(ok.max_external_ns(), 0);
    }

    /// Nothing orders two nodes' events of one instant: three steps at one instant that leave
    /// the clocks within the bound pass in any line order (a half-applied instant was judged
    /// as a moment: 70 µs ahead after node 1's step alone); steps that leave them apart fail
    /// in any order.
    #[test]
    fn one_instant_is_judged_before_and_after_its_events_not_between() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "clock.berkeley", "nodes": 3, "seed": 1, "duration_ms": 60000,
                "network": {"latency": {"constant": {"ms": 5}}},
                "clocks": {"rho_ppm": 0, "offset_ms_max": 0}}"#,
        )
        .unwrap();
        let mut spec = SkewSpec::for_scenario(&sc);
        spec.converge_from_ns = NS_PER_MS;
        spec.internal_bound_ns = 60_000;
        let judge = |steps: &[(NodeId, i64)]| {
            let mut c = BoundedSkew::new(&sc, spec.clone());
            for (id, &(node, d)) in steps.iter().enumerate() {
                c.on_event(&adjust(id as u64, 50_000, node, ClockAdjust::Step, d))?;
            }
            c.finish(60_000 * NS_PER_MS)
        };
        for order in [[1, 0, 2], [0, 2, 1], [2, 1, 0]] {
            let within: Vec<(NodeId, i64)> = order
                .iter()
                .map(|&n| (n, [30_000, 70_000, 50_000][n]))
                .collect();
            judge(&within).unwrap();
            let apart: Vec<(NodeId, i64)> = order.iter().map(|&n| (n, [0, 70_000, 0][n])).collect();
            let v = judge(&apart).unwrap_err();
            assert_eq!(v.t_ns, 50_000 * NS_PER_MS, "{v}");
        }
    }

    /// After convergence only one synchronized clock was ever alive: nothing was compared, so
    /// the run is not judged (it passed).
    #[test]
    fn a_run_with_one_live_clock_after_convergence_is_not_judged() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "clock.berkeley", "nodes": 3, "seed": 1, "duration_ms": 60000,
                "clocks": {"rho_ppm": 0, "nodes": [{"node": 1, "offset_ms": 1},
                {"node": 2, "offset_ms": -1}]}}"#,
        )
        .unwrap();
        let mut spec = SkewSpec::for_scenario(&sc);
        spec.converge_from_ns = 10_000 * NS_PER_MS;
        spec.internal_bound_ns = NS_PER_MS;
        let crash = |id: u64, node: NodeId| Event {
            id,
            t_ns: NS_PER_MS,
            node: Some(node),
            local_ns: None,
            kind: EventKind::Fault {
                fault: Fault::Crash { node },
            },
        };
        let mut c = BoundedSkew::new(&sc, spec.clone());
        c.on_event(&crash(0, 1)).unwrap();
        c.on_event(&crash(1, 2)).unwrap();
        c.finish(60_000 * NS_PER_MS).unwrap();
        let why = c.could_not_judge().expect("not judged");
        assert!(why.contains("fewer than two"), "{why}");
        // without the crashes, the 2 ms apart clocks are compared, and fail
        let mut all = BoundedSkew::new(&sc, spec);
        assert!(all.finish(60_000 * NS_PER_MS).is_err());
        assert_eq!(all.could_not_judge(), None);
    }

    #[test]
    fn a_run_that_ends_before_convergence_is_not_judged() {
        // the drifting clocks of the first test, but the run ends at 9 s, before judging
        // starts at 10 s: could not judge, never a pass
        let (sc, spec) = drifting_judged_from_10_s();
        let mut c = BoundedSkew::new(&sc, spec.clone());
        c.finish(9_000 * NS_PER_MS).unwrap();
        let why = c.could_not_judge().expect("not judged");
        assert!(why.contains("10000.000 ms"), "{why}");
        // judged (and caught) when it lasts long enough
        let mut c = BoundedSkew::new(&sc, spec);
        assert!(c.finish(10_000 * NS_PER_MS).is_err());
        // perfect clocks, long enough: judged, and a pass
        let sc = scenario("");
        let mut spec = SkewSpec::for_scenario(&sc);
        spec.converge_from_ns = 10_000 * NS_PER_MS;
        let mut c = BoundedSkew::new(&sc, spec);
        c.finish(20_000 * NS_PER_MS).unwrap();
        assert_eq!(c.could_not_judge(), None);
        // offsets of years: the convergence time saturates, and is not printed as a time
        let far = scenario(
            r#", "clocks": {"nodes": [{"node": 0, "offset_ms": 1000000000},
                {"node": 1, "offset_ms": -1000000000}]}"#,
        );
        let spec = SkewSpec::for_scenario(&far);
        assert!(spec.converge_from_ns / NS_PER_MS > sincro_harness::MAX_TIME_MS);
        let mut c = BoundedSkew::new(&far, spec);
        c.finish(20_000 * NS_PER_MS).unwrap();
        let why = c.could_not_judge().expect("not judged");
        assert!(why.contains("longest run a scenario may have"), "{why}");
        assert!(!why.contains("18446744073709"), "{why}");
    }

    #[test]
    fn an_unusable_period_is_not_replaced_by_the_default() {
        let sc = scenario(r#", "params": {"period_ms": "4000"}"#);
        assert_eq!(
            BoundedSkew::param_problems(&sc),
            vec![r#"params.period_ms = "4000" is not a whole number"#.to_string()]
        );
        let mut c = BoundedSkew::for_scenario(&sc);
        c.finish(1_000_000 * NS_PER_MS).unwrap();
        let why = c.could_not_judge().expect("not judged");
        assert!(why.contains("params.period_ms"), "{why}");
        // absent: the default, and the derivation says so
        let sc = scenario("");
        assert!(BoundedSkew::param_problems(&sc).is_empty());
        let spec = SkewSpec::for_scenario(&sc);
        assert!(
            spec.why.contains("Δ = 4000 ms (params.period_ms absent"),
            "{}",
            spec.why
        );
        // given: used as given
        let sc = scenario(r#", "params": {"period_ms": 1000}"#);
        assert!(BoundedSkew::param_problems(&sc).is_empty());
        let spec = SkewSpec::for_scenario(&sc);
        assert!(spec.why.contains("Δ = 1000 ms,"), "{}", spec.why);
    }

    #[test]
    fn regression_weight() {
        assert!((regression_noise_weight(8) - 1.857).abs() < 0.01);
        assert_eq!(regression_noise_weight(1), 1.0);
    }
}
