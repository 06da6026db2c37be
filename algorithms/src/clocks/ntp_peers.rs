//! NTP in symmetric mode, with strata.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.1.3, seed `000`): every node exchanges the Fig. 6.6
//! timestamps with every peer, both ways (B also asks A), and keeps 8 (θ, δ) pairs per peer.
//! The node with the reference clock (`params.server`, node 0) is a stratum-1 server; the
//! others start unsynchronized (stratum 16). A node adjusts its clock only towards a peer of a
//! *lower* stratum than its own — the lowest it hears, using the θ of that peer's least δ —
//! and then becomes stratum k + 1 when the peer is stratum k. A node never adjusts to a peer
//! of its own or a higher stratum, so strata only go down and no loop forms. Corrections step
//! forward and slew back, as in `clock.cristian`.
//!
//! **Fault model**: as `clock.cristian` (any delay, loss, duplication, reordering, partitions,
//! crashes, pauses, drift up to 100 ppm, clock jumps scaled to at most 50 ms); during a
//! partition a node cut off from the server synchronizes to a reachable peer of a lower
//! stratum (becoming stratum 3, 4 ...), and back to the server when it heals.
//!
//! **Promises**: `bounded_skew` (internal, and external against the stratum-1 reference),
//! `monotonic_clock`.

use super::samples::{max_delay_ns, Filter};
use super::{correct, Corrections, NoInput, Textbook};
use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::FaultModel;
use sincro_harness::gen::{Draft, GenOptions};
use sincro_harness::{Ctx, NodeId, Process, Scenario, SimRng};
use std::collections::BTreeMap;

/// Stratum of an unsynchronized node.
pub const UNSYNCHRONIZED: u8 = 16;

/// Parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Poll period, ms of the node's clock.
    pub period_ms: u64,
    /// Samples kept per peer.
    pub samples: usize,
    /// The stratum-1 server (reference clock).
    pub server: NodeId,
    /// Samples whose delay δ exceeds this are discarded: the server was paused or a clock
    /// jumped during the round trip (0: the scenario's largest latency plus 1 ms).
    pub max_delay_ms: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            period_ms: sincro_checkers::bounded_skew::DEFAULT_PERIOD_MS,
            samples: sincro_checkers::bounded_skew::DEFAULT_SAMPLES,
            server: 0,
            max_delay_ms: 0,
        }
    }
}

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// A poll, sent at T1 by a node of stratum `stratum`.
    Poll {
        /// Poll number.
        id: u64,
        /// T1.
        t1: i64,
        /// The sender's stratum.
        stratum: u8,
    },
    /// The answer.
    Reply {
        /// The poll answered.
        id: u64,
        /// T1 echoed.
        t1: i64,
        /// Arrival of the poll.
        t2: i64,
        /// Departure of the reply.
        t3: i64,
        /// The replier's stratum.
        stratum: u8,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Poll every peer.
    Poll,
}

#[derive(Debug, Default)]
struct Peer {
    stratum: Option<u8>,
    outstanding: Option<u64>,
    /// The peer's stratum when its samples were taken: a peer that changes stratum has moved
    /// its clock, so its older samples are dropped.
    filter_stratum: Option<u8>,
    filter: Filter,
}

/// A node.
#[derive(Debug)]
pub struct NtpPeer {
    params: Params,
    stratum: u8,
    next_id: u64,
    peers: BTreeMap<NodeId, Peer>,
}

impl NtpPeer {
    /// Node `id` with `params`.
    pub fn new(id: NodeId, params: Params) -> Self {
        NtpPeer {
            stratum: if id == params.server {
                1
            } else {
                UNSYNCHRONIZED
            },
            params,
            next_id: 0,
            peers: BTreeMap::new(),
        }
    }

    /// This node's stratum.
    pub fn stratum(&self) -> u8 {
        self.stratum
    }

    fn poll(&mut self, ctx: &mut Ctx<'_, Self>) {
        let t1 = ctx.now();
        let peers: Vec<NodeId> = ctx.neighbours().to_vec();
        for p in peers {
            self.next_id += 1;
            self.peers.entry(p).or_default().outstanding = Some(self.next_id);
            ctx.send(
                p,
                Msg::Poll {
                    id: self.next_id,
                    t1,
                    stratum: self.stratum,
                },
            );
        }
        ctx.set_timer_ms(self.params.period_ms, Timer::Poll);
    }

    /// The peer to follow: the lowest stratum heard, if lower than ours (lowest id on a tie).
    fn system_peer(&self) -> Option<(NodeId, u8)> {
        self.peers
            .iter()
            .filter_map(|(&p, peer)| peer.stratum.map(|s| (s, p)))
            .filter(|&(s, _)| s < self.stratum)
            .min()
            .map(|(s, p)| (p, s))
    }
}

impl Process for NtpPeer {
    type Msg = Msg;
    type Timer = Timer;
    type Input = NoInput;
    type Stable = Corrections;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.poll(ctx);
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Poll { id, t1, stratum } => {
                self.peers.entry(from).or_default().stratum = Some(stratum);
                let t2 = ctx.now();
                ctx.send(
                    from,
                    Msg::Reply {
                        id,
                        t1,
                        t2,
                        t3: t2,
                        stratum: self.stratum,
                    },
                );
            }
            Msg::Reply {
                id,
                t1,
                t2,
                t3,
                stratum,
            } => {
                let keep = self.params.samples;
                let max_delay_ns = max_delay_ns(self.params.max_delay_ms);
                let peer = self.peers.entry(from).or_default();
                if peer.outstanding != Some(id) {
                    return; // stale or duplicated
                }
                peer.outstanding = None;
                peer.stratum = Some(stratum);
                if peer.filter_stratum != Some(stratum) {
                    peer.filter_stratum = Some(stratum);
                    peer.filter = Filter::default();
                }
                let Some(delta_ns) = peer.filter.record(ctx, (t1, t2, t3), keep, max_delay_ns)
                else {
                    return; // too slow
                };
                // adjust only towards the lowest lower stratum, when this reply is from it
                // (θ of that peer's least δ)
                if let Some((sys, s)) = self.system_peer() {
                    if sys == from {
                        correct(ctx, delta_ns, false);
                        self.stratum = s + 1;
                    }
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Poll => self.poll(ctx),
        }
    }

    fn on_input(&mut self, _ctx: &mut Ctx<'_, Self>, input: NoInput) {
        match input {}
    }
}

/// `clock.ntp-peers`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct NtpPeersSpec;

impl Spec for NtpPeersSpec {
    type Node = NtpPeer;
    type Params = Params;
    type Variant = Textbook;

    fn name(&self) -> &'static str {
        "clock.ntp-peers"
    }
    fn summary(&self) -> &'static str {
        "NTP symmetric peers with strata: adjust only towards a lower stratum k, become k+1"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.1.3 (NTP)"
    }
    fn properties(&self) -> Vec<&'static str> {
        super::PROPERTIES.to_vec()
    }
    /// `bounded_skew` compares two clocks at least.
    fn nodes_min(&self) -> usize {
        2
    }
    fn fault_model(&self) -> FaultModel {
        super::fault_model()
    }
    /// No workload; `max_delay_ms` defaults to the largest latency plus 1 ms, and must exceed
    /// the usual largest one.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_no_workload(self, setup)?;
        if setup.params.max_delay_ms == 0 {
            setup.params.max_delay_ms = setup.for_fast_clocks_ms(setup.max_latency_ms() + 1);
        }
        super::check_max_delay(setup.params.max_delay_ms, setup)?;
        super::check_period(setup.params.period_ms, setup)?;
        super::check_samples("samples", setup.params.samples)?;
        super::check_node("server", setup.params.server, setup)
    }
    fn node(&self, _: Textbook, params: &Params, id: NodeId) -> NtpPeer {
        NtpPeer::new(id, params.clone())
    }
    /// None: the peers poll on their own timers.
    fn workload(&self, _rng: &mut SimRng, _nodes: usize, _active_ms: u64) -> Vec<Timed<NoInput>> {
        Vec::new()
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        super::liveness_bound_ms(setup)
    }
    /// The family's scenarios, with node 0 (the stratum-1 server) a perfect reference.
    fn complete(&self, draft: Draft, opts: &GenOptions) -> Scenario {
        super::complete(draft, opts, true)
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, EventKind, Scenario};

    #[test]
    fn replays_exactly() {
        assert_replays_exactly("clock.ntp-peers", &["correct"], 2);
    }

    #[test]
    fn in_model_fuzzing_passes() {
        assert_in_model_passes("clock.ntp-peers", "correct", 30, EngineKind::Native);
    }

    #[test]
    fn only_the_server_sets_the_time_and_strata_follow_a_partition() {
        // Node 2 is cut off from the server at first: it follows node 1 (stratum 2) and
        // becomes stratum 3; after the heal it follows the server. Nobody ever adjusts to a
        // peer of the same stratum, and the server never adjusts.
        let sc = Scenario::from_json(
            r#"{"algorithm": "clock.ntp-peers", "nodes": 3, "seed": 3, "duration_ms": 200000,
                "params": {"period_ms": 1000},
                "network": {"latency": {"constant": {"ms": 2}}},
                "clocks": {"rho_ppm": 50, "offset_ms_max": 5, "nodes": [{"node": 0}]},
                "faults": [{"at_ms": 0, "fault": {"partition_oneway": {"from": [0], "to": [2]}}},
                           {"at_ms": 10000, "fault": "heal"}]}"#,
        )
        .unwrap();
        let out = find("clock.ntp-peers")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap();
        assert!(out.verdict.is_pass(), "{}", out.verdict);
        let trace = out.trace.unwrap();
        let adjusts = |node| {
            trace
                .events()
                .iter()
                .filter(|e| e.node == Some(node) && matches!(e.kind, EventKind::ClockAdjust { .. }))
                .count()
        };
        assert_eq!(adjusts(0), 0);
        assert!(adjusts(1) > 100 && adjusts(2) > 100);
        // node 2 was synchronized before the heal (through node 1)
        assert!(trace.events().iter().any(|e| e.node == Some(2)
            && e.t_ns < 10_000_000_000
            && matches!(e.kind, EventKind::ClockAdjust { .. })));
    }
}
