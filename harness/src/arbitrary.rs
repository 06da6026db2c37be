//! Fuzzer bytes to a valid scenario (cargo feature `arbitrary`, off by default).
//!
//! [`FuzzInput`] implements [`Arbitrary`], so a coverage-guided fuzzer (cargo-fuzz, with
//! `fuzz_target!(|input: FuzzInput| …)`) can produce it from raw bytes. [`FuzzInput::draft`]
//! turns it into a scenario skeleton for a named algorithm, in three layers:
//!
//! 1. the swarm generation of [`gen`](crate::gen) from `seed` (its fault plan kept or not);
//! 2. explicit network and clock settings (latency, reordering, loss, duplication, drift bound,
//!    offsets, per-node drifts);
//! 3. an explicit fault list of at most [`MAX_FAULTS`] entries, each a window that closes inside
//!    the active phase (a crash with its restart, a pause with its resume, a partition with its
//!    heal), node ids taken modulo the node count, times modulo the active phase.
//!
//! Only fault classes inside the given [`FaultModel`] are used (every class with
//! [`GenOptions::beyond_model`]); a fault outside it is skipped. Loss and duplication are
//! switched off again at the end of the active phase, as in generated scenarios, so liveness can
//! be judged after it. The result always passes [`Scenario::validate`](crate::Scenario::validate).
//!
//! The harness does not know the algorithms: the draft has no workload. The algorithm adds it,
//! e.g. `sincro_algorithms::Algorithm::complete`.

use crate::fault::{Fault, FaultClass, FaultModel, TimedFault};
use crate::gen::{self, Draft, GenOptions};
use crate::net::{Latency, LinkOverride};
use crate::scenario::NodeClock;
use crate::NodeId;
use ::arbitrary::Arbitrary;

/// At most this many explicit faults are taken from one input (each may add a closing fault).
pub const MAX_FAULTS: usize = 16;

/// Fuzzer-chosen ingredients of a scenario; see the [module documentation](self).
#[derive(Arbitrary, Clone, Debug, PartialEq, Eq)]
pub struct FuzzInput {
    /// Seed of the run and of the swarm generation.
    pub seed: u64,
    /// Number of nodes, taken into `[nodes_min, nodes_max]` of the [`GenOptions`].
    pub nodes: u8,
    /// Keep the fault plan the swarm generation drew (otherwise only the explicit faults).
    pub swarm_faults: bool,
    /// Latency of every link, instead of the drawn one.
    pub latency: Option<FuzzLatency>,
    /// Reordering probability, in 255ths (when reordering is in the model).
    pub reorder: Option<u8>,
    /// Loss probability, in percent up to 50 (when loss is in the model).
    pub loss: Option<u8>,
    /// Duplication probability, in percent up to 50 (when duplication is in the model).
    pub duplicate: Option<u8>,
    /// Clock settings (when clock drift is in the model).
    pub clocks: Option<FuzzClocks>,
    /// Explicit faults; the first [`MAX_FAULTS`] are used.
    pub faults: Vec<FuzzFault>,
}

/// A latency distribution, in whole milliseconds.
#[derive(Arbitrary, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuzzLatency {
    /// Always `ms`.
    Constant {
        /// The latency.
        ms: u8,
    },
    /// Uniform in `[min, min + width]`, `min` up to 20 ms, `width` up to 100 ms.
    Uniform {
        /// Smallest latency (modulo 21).
        min_ms: u8,
        /// Width of the range (modulo 101).
        width_ms: u8,
    },
    /// Exponential from `min` (up to 20 ms) with mean `min + 1 + extra` (extra up to 29 ms),
    /// capped at `mean * (1 + factor)` (factor 1 to 4).
    Exponential {
        /// Smallest latency (modulo 21).
        min_ms: u8,
        /// Mean above the minimum (modulo 30, plus 1).
        mean_extra_ms: u8,
        /// Cap as a multiple of the mean (modulo 4, plus 2).
        cap_factor: u8,
    },
}

impl FuzzLatency {
    /// The latency it stands for.
    pub fn latency(self) -> Latency {
        match self {
            FuzzLatency::Constant { ms } => Latency::Constant { ms: ms as f64 },
            FuzzLatency::Uniform { min_ms, width_ms } => {
                let min = (min_ms % 21) as f64;
                Latency::Uniform {
                    min_ms: min,
                    max_ms: min + (width_ms % 101) as f64,
                }
            }
            FuzzLatency::Exponential {
                min_ms,
                mean_extra_ms,
                cap_factor,
            } => {
                let min = (min_ms % 21) as f64;
                let mean = min + 1.0 + (mean_extra_ms % 30) as f64;
                Latency::Exponential {
                    min_ms: min,
                    mean_ms: mean,
                    max_ms: mean * (2 + cap_factor % 4) as f64,
                }
            }
        }
    }
}

/// Clock settings.
#[derive(Arbitrary, Clone, Debug, PartialEq, Eq)]
pub struct FuzzClocks {
    /// Drift bound: 10, 100 or 1000 ppm (modulo 3).
    pub rho: u8,
    /// Bound on initial offsets, ms (modulo 51).
    pub offset_ms_max: u8,
    /// Explicit drifts `(node, fraction of rho in 127ths)`; one per node at most.
    pub drifts: Vec<(u8, i8)>,
}

/// One explicit fault. `at` is taken modulo the active phase; a window lasts `1 + len` ms
/// (`len` modulo half the active phase) and is cut at the end of the active phase.
#[derive(Arbitrary, Clone, Debug, PartialEq, Eq)]
pub enum FuzzFault {
    /// The nodes whose bit is set in `members` are cut from the others, then healed.
    Partition {
        /// Start.
        at: u32,
        /// Length.
        len: u32,
        /// Node `i` is on the cut side when bit `i % 32` is set.
        members: u32,
    },
    /// Messages from `from` to the nodes whose bit is set in `to` are cut, then healed.
    PartitionOneway {
        /// Start.
        at: u32,
        /// Length.
        len: u32,
        /// The sender.
        from: u8,
        /// Node `i` stops hearing `from` when bit `i % 32` is set.
        to: u32,
    },
    /// The node crashes, then restarts.
    Crash {
        /// Start.
        at: u32,
        /// Length.
        len: u32,
        /// The node.
        node: u8,
    },
    /// The node pauses, then resumes.
    Pause {
        /// Start.
        at: u32,
        /// Length.
        len: u32,
        /// The node.
        node: u8,
    },
    /// The node's clock jumps by `delta_ms` (modulo 1001, either sign).
    ClockJump {
        /// When.
        at: u32,
        /// The node.
        node: u8,
        /// The jump.
        delta_ms: i16,
    },
    /// The node's drift becomes `fraction / 127` of the drift bound.
    DriftChange {
        /// When.
        at: u32,
        /// The node.
        node: u8,
        /// The new drift, in 127ths of the bound.
        fraction: i8,
    },
    /// Links from `from` to `to` (all nodes when absent) change.
    SetLinks {
        /// When.
        at: u32,
        /// Sending end.
        from: Option<u8>,
        /// Receiving end.
        to: Option<u8>,
        /// New latency.
        latency: Option<FuzzLatency>,
        /// New loss probability, percent up to 50 (when loss is in the model).
        loss: Option<u8>,
        /// New duplication probability, percent up to 50 (when in the model).
        duplicate: Option<u8>,
        /// New reordering probability, 255ths (when in the model).
        reorder: Option<u8>,
    },
}

/// A probability in percent, at most 50 %.
fn percent(p: u8) -> f64 {
    (p % 51) as f64 / 100.0
}

/// Nodes whose bit is set in `mask`.
fn members(mask: u32, n: usize) -> Vec<NodeId> {
    (0..n).filter(|i| mask & (1 << (i % 32)) != 0).collect()
}

impl FuzzInput {
    /// A valid scenario skeleton for `algorithm`/`variant` (no workload; `duration_ms` = the
    /// active phase), faults restricted to `model` unless `opts.beyond_model`.
    pub fn draft(
        &self,
        algorithm: &str,
        variant: &str,
        model: &FaultModel,
        opts: &GenOptions,
    ) -> Draft {
        let lo = opts.nodes_min.max(1);
        let hi = opts.nodes_max.max(lo);
        let n = lo + self.nodes as usize % (hi - lo + 1);
        let gen_opts = GenOptions {
            nodes_min: n,
            nodes_max: n,
            // The faults below fall inside `opts.active_ms`: every phase is that one.
            phase_swarm: false,
            ..opts.clone()
        };
        let mut draft = gen::generate(algorithm, variant, self.seed, model, &gen_opts);
        let allowed = |c: FaultClass| opts.beyond_model || model.allows(c);
        let active = opts.active_ms.max(10);
        let sc = &mut draft.scenario;
        if !self.swarm_faults {
            sc.faults.clear();
            sc.network.loss = 0.0;
            sc.network.duplicate = 0.0;
        }
        sc.description = format!("from fuzz input; {}", sc.description);

        if let Some(l) = self.latency {
            sc.network.latency = l.latency();
        }
        if let (Some(p), true) = (self.reorder, allowed(FaultClass::Reordering)) {
            sc.network.reorder = p as f64 / 255.0;
        }
        if let (Some(p), true) = (self.loss, allowed(FaultClass::Loss)) {
            sc.network.loss = percent(p);
        }
        if let (Some(p), true) = (self.duplicate, allowed(FaultClass::Duplication)) {
            sc.network.duplicate = percent(p);
        }
        if let (Some(c), true) = (&self.clocks, allowed(FaultClass::ClockDrift)) {
            let rho = [10.0, 100.0, 1000.0][c.rho as usize % 3];
            sc.clocks.rho_ppm = rho;
            sc.clocks.offset_ms_max = (c.offset_ms_max % 51) as f64;
            sc.clocks.nodes.clear();
            for &(node, fraction) in &c.drifts {
                let node = node as usize % n;
                if sc.clocks.nodes.iter().all(|nc| nc.node != node) {
                    sc.clocks.nodes.push(NodeClock {
                        node,
                        offset_ms: 0.0,
                        drift_ppm: drift(fraction, rho),
                    });
                }
            }
        }
        // The generated drift changes were drawn within the generated bound.
        let rho = sc.clocks.rho_ppm;
        for f in &mut sc.faults {
            if let Fault::DriftChange { drift_ppm, .. } = &mut f.fault {
                *drift_ppm = drift_ppm.clamp(-rho, rho);
            }
        }

        let at_of = |at: u32| at as u64 % (active + 1);
        let end_of = |start: u64, len: u32| (start + 1 + len as u64 % (active / 2)).min(active);
        let mut plan: Vec<TimedFault> = Vec::new();
        let mut push = |at_ms: u64, fault: Fault| plan.push(TimedFault { at_ms, fault });
        let mut lossy = sc.network.loss > 0.0 || sc.network.duplicate > 0.0;
        let mut partitioned = false;
        for f in self.faults.iter().take(MAX_FAULTS) {
            match *f {
                FuzzFault::Partition {
                    at,
                    len,
                    members: m,
                } if allowed(FaultClass::Partitions) && n > 1 => {
                    let mut side = members(m, n);
                    if side.is_empty() || side.len() == n {
                        side = vec![at as usize % n];
                    }
                    let a = at_of(at);
                    push(a, Fault::Partition { groups: vec![side] });
                    push(end_of(a, len), Fault::Heal);
                    partitioned = true;
                }
                FuzzFault::PartitionOneway { at, len, from, to }
                    if allowed(FaultClass::OnewayPartitions) && n > 1 =>
                {
                    let from = from as usize % n;
                    let mut to: Vec<NodeId> =
                        members(to, n).into_iter().filter(|&x| x != from).collect();
                    if to.is_empty() {
                        to = vec![(from + 1) % n];
                    }
                    let a = at_of(at);
                    push(
                        a,
                        Fault::PartitionOneway {
                            from: vec![from],
                            to,
                        },
                    );
                    push(end_of(a, len), Fault::Heal);
                    partitioned = true;
                }
                FuzzFault::Crash { at, len, node } if allowed(FaultClass::Crashes) => {
                    let (a, node) = (at_of(at), node as usize % n);
                    push(a, Fault::Crash { node });
                    push(end_of(a, len), Fault::Restart { node });
                }
                FuzzFault::Pause { at, len, node } if allowed(FaultClass::Pauses) => {
                    let (a, node) = (at_of(at), node as usize % n);
                    push(a, Fault::Pause { node });
                    push(end_of(a, len), Fault::Resume { node });
                }
                FuzzFault::ClockJump { at, node, delta_ms } if allowed(FaultClass::ClockJumps) => {
                    push(
                        at_of(at),
                        Fault::ClockJump {
                            node: node as usize % n,
                            delta_ms: (delta_ms % 1001) as f64,
                        },
                    );
                }
                FuzzFault::DriftChange { at, node, fraction }
                    if allowed(FaultClass::ClockDrift) =>
                {
                    push(
                        at_of(at),
                        Fault::DriftChange {
                            node: node as usize % n,
                            drift_ppm: drift(fraction, rho),
                        },
                    );
                }
                FuzzFault::SetLinks {
                    at,
                    from,
                    to,
                    latency,
                    loss,
                    duplicate,
                    reorder,
                } => {
                    let o = LinkOverride {
                        from: from.map(|v| v as usize % n),
                        to: to.map(|v| v as usize % n),
                        latency: latency.map(FuzzLatency::latency),
                        loss: loss.filter(|_| allowed(FaultClass::Loss)).map(percent),
                        duplicate: duplicate
                            .filter(|_| allowed(FaultClass::Duplication))
                            .map(percent),
                        reorder: reorder
                            .filter(|_| allowed(FaultClass::Reordering))
                            .map(|p| p as f64 / 255.0),
                    };
                    // one that would do nothing (every field outside the model, or a node to
                    // itself) is refused by validation: left out
                    if o.validate(n).is_ok() {
                        lossy |=
                            o.loss.is_some_and(|p| p > 0.0) || o.duplicate.is_some_and(|p| p > 0.0);
                        push(at_of(at), Fault::SetLinks(Box::new(o)));
                    }
                }
                // A class outside the model, or a partition of a single node.
                _ => {}
            }
        }
        // As in generated scenarios: the active phase ends with everything healed.
        if partitioned {
            plan.push(TimedFault {
                at_ms: active,
                fault: Fault::Heal,
            });
        }
        if lossy {
            plan.push(TimedFault {
                at_ms: active,
                fault: Fault::SetLinks(Box::new(LinkOverride {
                    from: None,
                    to: None,
                    latency: None,
                    loss: Some(0.0),
                    duplicate: Some(0.0),
                    reorder: None,
                })),
            });
        }
        sc.faults.extend(plan);
        sc.faults.sort_by_key(|f| f.at_ms); // stable: a window keeps its order at equal times
        sc.duration_ms = sc.duration_ms.max(active);
        model.fit_clocks(sc);
        debug_assert!(sc.validate().is_ok(), "{:?}", sc.validate());
        draft
    }
}

/// `fraction / 127` of `rho`, within `[-rho, rho]`.
fn drift(fraction: i8, rho: f64) -> f64 {
    (fraction as f64 / 127.0 * rho).clamp(-rho, rho)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SimRng;
    use ::arbitrary::Unstructured;

    fn model(t: &[FaultClass]) -> FaultModel {
        FaultModel {
            tolerates: t.to_vec(),
            summary: "",
            ..FaultModel::default()
        }
    }

    /// Inputs from pseudo-random byte strings of many lengths.
    fn inputs(count: u64) -> impl Iterator<Item = FuzzInput> {
        (0..count).map(|i| {
            let mut rng = SimRng::derive(i, 0xF022);
            let len = rng.range_u64(0, 600) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            FuzzInput::arbitrary_take_rest(Unstructured::new(&bytes)).expect("any bytes do")
        })
    }

    #[test]
    fn every_input_gives_a_valid_scenario() {
        let all = model(&FaultClass::ALL);
        let beyond = GenOptions {
            beyond_model: true,
            nodes_min: 1,
            nodes_max: 9,
            ..Default::default()
        };
        let mut faults = 0;
        for (i, input) in inputs(3_000).enumerate() {
            for (m, o) in [(&all, GenOptions::default()), (&model(&[]), beyond.clone())] {
                let d = input.draft("x", "correct", m, &o);
                let sc = &d.scenario;
                sc.validate()
                    .unwrap_or_else(|e| panic!("input {i}: {e}\n{input:?}\n{}", sc.to_json()));
                assert!((o.nodes_min..=o.nodes_max).contains(&sc.nodes));
                assert!(sc.faults.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
                assert!(sc.faults.iter().all(|f| f.at_ms <= o.active_ms));
                faults += sc.faults.len();
            }
        }
        assert!(faults > 10_000, "the inputs carry faults: {faults}");
    }

    #[test]
    fn only_the_model_is_used() {
        let pauses = model(&[FaultClass::Pauses]);
        let mut saw_pause = false;
        for input in inputs(1_000) {
            let d = input.draft("x", "correct", &pauses, &GenOptions::default());
            let sc = &d.scenario;
            assert!(sc
                .faults
                .iter()
                .all(|f| matches!(f.fault.class(), FaultClass::Pauses | FaultClass::Delays)));
            assert_eq!(
                (sc.network.loss, sc.network.duplicate, sc.network.reorder),
                (0.0, 0.0, 0.0)
            );
            assert_eq!(sc.clocks.rho_ppm, 0.0);
            saw_pause |= sc
                .faults
                .iter()
                .any(|f| matches!(f.fault, Fault::Pause { .. }));
        }
        assert!(saw_pause);
    }

    #[test]
    fn the_same_bytes_give_the_same_scenario() {
        let a: Vec<_> = inputs(50).collect();
        let b: Vec<_> = inputs(50).collect();
        assert_eq!(a, b);
        let m = model(&FaultClass::ALL);
        for x in &a {
            let o = GenOptions::default();
            assert_eq!(
                x.draft("x", "v", &m, &o).scenario,
                x.draft("x", "v", &m, &o).scenario
            );
        }
    }
}
