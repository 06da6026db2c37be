//! Ring election with the list of ids.
//!
//! **Algorithm** (Tanenbaum & van Steen §6.5.1, seed `000`, "Algoritmo de anel", Fig. 6.20):
//! processes are ordered in a logical ring (`i -> i + 1 mod n`). A process that notices the
//! coordinator is gone (a workload `probe` it sends the coordinator goes unanswered; or it
//! recovers from a crash) reports that it knows no leader and sends ELECTION with the list
//! `[own id]` to its successor. If the successor is down, the sender skips it and tries the
//! next one, and so on, until a live process takes the message (each hop is acknowledged, and
//! an unacknowledged hop is retried past the silent successor). Each process appends its id and
//! passes it on. When the message comes back to a process already on the list (normally the
//! initiator), it becomes COORDINATOR, naming the highest id of the list, and circulates once
//! more; every process it reaches adopts that coordinator. Several concurrent initiators (2 and
//! 5 in Fig. 6.20) each run their own circulation, with the same result.
//!
//! **Taking power safely**: the elected process believes itself coordinator only once its
//! COORDINATOR message has gone all the way round (so the previous coordinator, if alive, has
//! adopted the new one); the process where the round closes tells it with READY, if it still
//! follows that process (one that adopted another leader since, or restarted, closes a stale
//! round: `corpus/election/ring-uniqueness-seed7003447.json`, a split brain). A process that
//! receives a COORDINATOR naming a lower process than itself drops it and calls an election (a
//! recovered process that the list missed); one that receives a result naming a lower process
//! than the leader it knows, which the list missed, first probes that leader: it drops the
//! result if the leader answers (a stale election that raced with a recovered leader's) and
//! goes on with it if the leader is silent; any message from that leader, or a newer election
//! passing through, drops the results kept aside. A process already in power that receives a
//! stale COORDINATOR naming a lower process re-asserts itself with a COORDINATOR round of its
//! own instead of calling an election, and a second round naming it leaves it in power. A
//! probe of the leader that times out while an election passes through waits for that
//! election's result. A process answers a probe while it leads, is about to, or knows no
//! leader (back from a crash, running its own election): silence means gone. An initiator whose
//! election did not end after `(2n + 2)` hop timeouts starts again.
//!
//! **Restarts** (stop 28; the searches of issue 14 found these cases): a process counts its
//! starts in stable storage. A restarted process waits two probe timeouts before it takes
//! power: a probe it missed while down has timed out by then, so no process takes it for dead
//! once it leads. The elected process stamps the round with its claim (incarnation, number),
//! and the READY that closes the round echoes it: power comes only for the claim pending now,
//! never from a round of an earlier life or one that skipped it (a READY that arrives while a
//! restarted process waits is kept for that claim only). A process waiting for its own claim
//! calls no election on a workload probe. (The regressions
//! `corpus/election/ring-stability-seed*.json` are the schedules that broke `leader_stability`
//! before these rules.)
//!
//! **Buggy variant `stale-coordinator`**: the seed-14540 bug put back. A leader that a stale
//! COORDINATOR naming a lower process reaches — a result of an election that raced with the
//! newer round that made it leader — takes it for a list that missed it and calls an election:
//! a live leader steps down (`no_abdication`, at once; `leader_stability` when the leadership
//! then moves with no fault in effect). It needs a crash that starts two elections and a
//! result that overtakes the other: a deep bug, the calibration of the search strategies
//! (issue 14) measures it.
//!
//! **Messages** (the coordinator `n − 1` crashed, process 0 notices, no other fault): the
//! textbook's part is `4n` — 0's probe of the coordinator, two circulations of `n` hops each
//! (the hop to the dead `n − 1` included), `2(n − 1)` ACKs and one READY. On top of it each of
//! the `n − 2` processes `1 ..= n − 2` receives a COORDINATOR naming `n − 2`, lower than the
//! coordinator `n − 1` it knows and missing from the list, and probes `n − 1` once before
//! adopting it (the stale-result rule above): `5n − 2` in all (`sincro table election`).
//!
//! **Fault model**: synchronous links (delays below the bound the hop timeout comes from), crashes
//! with restart, reordering and drift. No loss, duplication, pauses, clock jumps or partitions.
//!
//! **Promises**: `no_abdication` (a live leader gives up power only to a higher process),
//! `leader_uniqueness`, `leader_agreement`, `election_termination`, `leader_validity` (the
//! highest live id), `leader_stability`.

use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_checkers::election::validity::RankPolicy;
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, SimRng, TimerId};
use std::collections::BTreeMap;

/// What travels round the ring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ring {
    /// An election collecting the ids of the live processes.
    Election {
        /// Ids, in the order the message visited them.
        list: Vec<NodeId>,
    },
    /// The result: `leader` is the highest id of `list`.
    Coordinator {
        /// The elected process.
        leader: NodeId,
        /// The members of the new ring.
        list: Vec<NodeId>,
        /// Who adopted it so far (the converter first).
        told: Vec<NodeId>,
        /// The elected process's claim, stamped when the round reached it: the READY that
        /// closes the round echoes it (`None`: the round has not reached it, or it already
        /// held power).
        claim: Option<Claim>,
    },
}

/// A claim to power: the claimant's incarnation and the number of its claim in that
/// incarnation. A READY gives power only for the claim pending now: not for one of an earlier
/// life, nor for a round that skipped the claimant (a generated scenario, seed 6617 of one
/// campaign, did that on stop 27's code: a READY of a round that never reached the restarted 3
/// gave it power while 2 took power by its own round).
pub type Claim = (u64, u64);

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// A ring message, hop number `seq` of its sender.
    Hop {
        /// The sender's hop number (echoed by the ACK).
        seq: u64,
        /// The message.
        ring: Ring,
    },
    /// "Got your hop `seq`".
    HopAck {
        /// The hop.
        seq: u64,
    },
    /// "Your COORDINATOR went all the way round: take power" (for that claim).
    Ready {
        /// The claim the round carried.
        claim: Claim,
    },
    /// "Are you alive (and coordinator)?"
    Probe,
    /// "Yes".
    Alive,
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Hop `seq` was not acknowledged: skip that successor.
    Hop {
        /// The hop.
        seq: u64,
    },
    /// The election started (or the claim awaited) did not end: start again.
    Retry,
    /// The coordinator did not answer a probe.
    Probe,
    /// A restarted process may take power from now on.
    Settled,
}

/// Workload commands: the same as the bully algorithm's.
pub use super::bully::Input;

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The coordinator every process knows at the start (default: the highest id).
    #[serde(default)]
    pub initial_leader: Option<NodeId>,
    /// How long a node waits for its successor's ACK, local ms, from the scenario's largest
    /// latency: not a scenario parameter, [`RingListSpec`]'s `prepare` sets it.
    #[serde(skip)]
    pub hop_ms: u64,
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the textbook algorithm, taking power once the COORDINATOR went round";
        StaleCoordinator = "stale-coordinator" (deep), "a leader that a stale COORDINATOR naming a lower process reaches calls an election instead of re-asserting itself (the seed-14540 bug): a live leader steps down";
    }
}

/// One process.
#[derive(Debug)]
pub struct RingList {
    hop_ms: u64,
    initial_leader: Option<NodeId>,
    leader: Option<NodeId>,
    reported: Option<Option<NodeId>>,
    /// Forwarded an election since adopting `leader`: that belief is being replaced.
    in_election: bool,
    /// Started an election that has not ended.
    initiated: bool,
    /// Elected, waiting for its COORDINATOR to go round.
    pending_claim: bool,
    /// Claims made in this incarnation (the current one is the last).
    claims: u64,
    /// Restarted less than [`RingList::settle_ms`] ago: power waits (`Some` once a READY
    /// came for the pending claim meanwhile).
    settling: Option<Option<Claim>>,
    next_seq: u64,
    /// Unacknowledged hops: seq -> (to, message).
    hops: BTreeMap<u64, (NodeId, Ring)>,
    probe: Option<(NodeId, TimerId)>,
    /// Results waiting for the probe of the leader we know.
    deferred: Vec<Ring>,
    /// This process's incarnation (0 until its first restart).
    life: u64,
    retry: Option<TimerId>,
    /// The `stale-coordinator` variant's bug.
    bug_stale_coordinator: bool,
}

impl RingList {
    /// A process whose hops time out after `hop_ms` (local ms); `initial_leader`: the
    /// coordinator known at start (default: the highest id).
    pub fn new(hop_ms: u64, initial_leader: Option<NodeId>) -> Self {
        RingList {
            hop_ms: hop_ms.max(1),
            initial_leader,
            leader: None,
            reported: None,
            in_election: false,
            initiated: false,
            pending_claim: false,
            claims: 0,
            settling: None,
            next_seq: 0,
            hops: BTreeMap::new(),
            probe: None,
            deferred: Vec::new(),
            life: 0,
            retry: None,
            bug_stale_coordinator: false,
        }
    }

    fn report(&mut self, ctx: &mut Ctx<'_, Self>) {
        if self.reported != Some(self.leader) {
            self.reported = Some(self.leader);
            ctx.observe(Observation::Leader {
                leader: self.leader,
                term: 0,
            });
        }
    }

    fn retry_ms(&self, n: usize) -> u64 {
        (2 * n as u64 + 2) * self.hop_ms
    }

    fn set_retry(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let Some(id) = self.retry.take() {
            ctx.cancel_timer(id);
        }
        let after = self.retry_ms(ctx.nodes());
        self.retry = Some(ctx.set_timer_ms(after, Timer::Retry));
    }

    /// Sends `ring` to the first process after `after` (skipping as hops time out); back to
    /// ourselves when every other process is down.
    fn forward(&mut self, ctx: &mut Ctx<'_, Self>, after: NodeId, ring: Ring) {
        let to = (after + 1) % ctx.nodes();
        if to == ctx.id() {
            self.handle(ctx, ring);
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        ctx.send(
            to,
            Msg::Hop {
                seq,
                ring: ring.clone(),
            },
        );
        self.hops.insert(seq, (to, ring));
        ctx.set_timer_ms(self.hop_ms, Timer::Hop { seq });
    }

    fn start_election(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let Some((_, id)) = self.probe.take() {
            ctx.cancel_timer(id);
        }
        self.leader = None;
        self.report(ctx);
        self.in_election = true;
        self.initiated = true;
        self.pending_claim = false;
        self.set_retry(ctx);
        let me = ctx.id();
        self.forward(ctx, me, Ring::Election { list: vec![me] });
    }

    fn adopt(&mut self, ctx: &mut Ctx<'_, Self>, c: NodeId) {
        if let Some((_, id)) = self.probe.take() {
            ctx.cancel_timer(id);
        }
        if let Some(id) = self.retry.take() {
            ctx.cancel_timer(id);
        }
        self.leader = Some(c);
        self.in_election = false;
        self.initiated = false;
        self.pending_claim = false;
        self.report(ctx);
    }

    fn handle(&mut self, ctx: &mut Ctx<'_, Self>, ring: Ring) {
        let me = ctx.id();
        match ring {
            Ring::Election { mut list } => {
                if list.contains(&me) {
                    // Back where it passed before: it becomes COORDINATOR.
                    let c = *list.iter().max().expect("a list holds its initiator");
                    let again = Ring::Election { list: list.clone() };
                    if self.deferred_for_probe(ctx, c, &list, &again) {
                        return;
                    }
                    let claim = if c == me {
                        self.claim(ctx)
                    } else {
                        self.adopt(ctx, c);
                        None
                    };
                    let ring = Ring::Coordinator {
                        leader: c,
                        list,
                        told: vec![me],
                        claim,
                    };
                    self.forward(ctx, me, ring);
                } else {
                    self.in_election = true;
                    // A newer election passes through: its result supersedes the results kept
                    // aside for a probe (seed 119778).
                    self.deferred.clear();
                    list.push(me);
                    self.forward(ctx, me, Ring::Election { list });
                }
            }
            Ring::Coordinator {
                leader: c,
                list,
                mut told,
                mut claim,
            } => {
                if told.contains(&me) {
                    // The round is closed: everyone on the way adopted `c` when it passed.
                    // The process closing it tells `c` only while it still follows `c`: one
                    // that has since adopted another leader, or restarted, closes a stale
                    // round (seed 7003447: 1, following 3 by then, closed a round of 4's
                    // from before 3's restart, and 0, following 4, one of 3's; both took
                    // power). `c`'s retry timer calls an election if no READY comes.
                    if c == me {
                        self.ready(ctx, claim);
                    } else if let Some(claim) = claim.filter(|_| self.leader == Some(c)) {
                        ctx.send(c, Msg::Ready { claim });
                    }
                    return;
                }
                if c < me {
                    self.missed_by(ctx, c, list, told, claim);
                    return;
                }
                let again = Ring::Coordinator {
                    leader: c,
                    list: list.clone(),
                    told: told.clone(),
                    claim,
                };
                if self.deferred_for_probe(ctx, c, &list, &again) {
                    return;
                }
                if c == me {
                    claim = self.claim(ctx);
                } else {
                    self.adopt(ctx, c);
                }
                told.push(me);
                self.forward(
                    ctx,
                    me,
                    Ring::Coordinator {
                        leader: c,
                        list,
                        told,
                        claim,
                    },
                );
            }
        }
    }

    /// A result names this process: it takes power once its COORDINATOR has gone round —
    /// unless it already holds power (a second round naming it, from a concurrent initiator),
    /// which it keeps without waiting again (seed 31432 of `election.ring`). Returns the claim
    /// the round carries on: a new one unless one is pending (every round naming it while it
    /// waits carries the same).
    fn claim(&mut self, ctx: &mut Ctx<'_, Self>) -> Option<Claim> {
        if self.leader == Some(ctx.id()) {
            return None;
        }
        if !self.pending_claim {
            self.pending_claim = true;
            self.claims += 1;
        }
        self.set_retry(ctx);
        Some((self.life, self.claims))
    }

    /// How long a restarted process waits before it takes power: two probe timeouts. A
    /// probe that reached it while it was down has timed out by then, so no process drops it
    /// as dead after it took power (seed 2003666: a result that missed the restarted 5, kept
    /// aside for a probe 5 never got, replaced 5 after 5 took power by a round that reached it
    /// just after its restart; seed 5408 was the same race).
    fn settle_ms(&self) -> u64 {
        2 * self.hop_ms
    }

    /// A round carrying `claim` closed: power, if that is the claim pending (once settled).
    fn ready(&mut self, ctx: &mut Ctx<'_, Self>, claim: Option<Claim>) {
        let pending = self.pending_claim.then_some((self.life, self.claims));
        if claim.is_none() || claim != pending {
            return;
        }
        match self.settling.as_mut() {
            Some(waiting) => *waiting = claim,
            None => {
                let me = ctx.id();
                self.adopt(ctx, me);
            }
        }
    }

    /// A COORDINATOR naming `c`, lower than this process, whose `list` missed it.
    /// - This process already holds power (a newer round made it coordinator after this
    ///   result left): the result is stale. It re-asserts itself with a COORDINATOR round of
    ///   its own, so a process the stale result reached adopts it again, and calls no
    ///   election (the leader stays the same; seed 14540 of `election.ring` was this case).
    /// - It knows a leader higher than itself that the list missed: the result is kept aside
    ///   while that leader is probed (dropped if it answers, handled again if it is silent).
    /// - Otherwise the list missed a live, better process (a recovered one): it calls an
    ///   election.
    fn missed_by(
        &mut self,
        ctx: &mut Ctx<'_, Self>,
        c: NodeId,
        list: Vec<NodeId>,
        told: Vec<NodeId>,
        claim: Option<Claim>,
    ) {
        let me = ctx.id();
        if self.leader == Some(me) && !self.pending_claim && !self.bug_stale_coordinator {
            let mut list = list;
            if !list.contains(&me) {
                list.push(me);
            }
            let ring = Ring::Coordinator {
                leader: me,
                list,
                told: vec![me],
                claim: None,
            };
            self.forward(ctx, me, ring);
            return;
        }
        if let Some(l) = self.leader.filter(|&l| l > me && !list.contains(&l)) {
            self.deferred.push(Ring::Coordinator {
                leader: c,
                list,
                told,
                claim,
            });
            self.send_probe(ctx, l);
            return;
        }
        if !self.initiated {
            self.start_election(ctx);
        }
    }

    /// True when a result naming `c` from `list` names someone lower than the leader we know,
    /// which the list missed: it is kept aside while we probe that leader — dropped if the
    /// leader answers (a stale result), handled again if it is silent (gone).
    fn deferred_for_probe(
        &mut self,
        ctx: &mut Ctx<'_, Self>,
        c: NodeId,
        list: &[NodeId],
        ring: &Ring,
    ) -> bool {
        let me = ctx.id();
        match self
            .leader
            .filter(|&l| l > c && l != me && !list.contains(&l))
        {
            Some(l) => {
                self.deferred.push(ring.clone());
                self.send_probe(ctx, l);
                true
            }
            None => false,
        }
    }

    fn send_probe(&mut self, ctx: &mut Ctx<'_, Self>, l: NodeId) {
        if self.probe.is_none() {
            ctx.send(l, Msg::Probe);
            let id = ctx.set_timer_ms(self.hop_ms, Timer::Probe);
            self.probe = Some((l, id));
        }
    }
}

impl Process for RingList {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    /// How many times this process started: one that comes back after a crash calls an
    /// election, and its claims carry the count.
    type Stable = u64;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.life = *ctx.stable();
        *ctx.stable_mut() = self.life + 1;
        if self.life > 0 {
            self.settling = Some(None);
            ctx.set_timer_ms(self.settle_ms(), Timer::Settled);
            self.start_election(ctx);
        } else {
            self.leader = Some(self.initial_leader.unwrap_or(ctx.nodes() - 1));
            self.report(ctx);
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        let me = ctx.id();
        if self.probe.is_some_and(|(l, _)| l == from) {
            // Any message from the probed leader shows it is alive, even one that is not an
            // answer (it may be running an election of its own that the probe reached before
            // it took power): the results kept aside were stale (seed 61940).
            if let Some((_, id)) = self.probe.take() {
                ctx.cancel_timer(id);
            }
            self.deferred.clear();
        }
        match msg {
            Msg::Hop { seq, ring } => {
                ctx.send(from, Msg::HopAck { seq });
                self.handle(ctx, ring);
            }
            Msg::HopAck { seq } => {
                if self.hops.get(&seq).is_some_and(|(to, _)| *to == from) {
                    self.hops.remove(&seq);
                }
            }
            Msg::Ready { claim } => self.ready(ctx, Some(claim)),
            Msg::Probe => {
                // A process in an election of its own (back from a crash: it knows no leader)
                // answers too: the prober keeps aside a result that missed it, and would take
                // its silence for death (seed 2871: a probe that reached the restarted leader
                // one hop before its own ELECTION came back).
                if self.leader == Some(me) || self.pending_claim || self.leader.is_none() {
                    ctx.send(from, Msg::Alive);
                }
            }
            Msg::Alive => {
                if self.probe.is_some_and(|(l, _)| l == from) {
                    if let Some((_, id)) = self.probe.take() {
                        ctx.cancel_timer(id);
                    }
                    // The leader we know is alive: the results kept aside were stale.
                    self.deferred.clear();
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Hop { seq } => {
                // The successor is silent: skip it.
                if let Some((to, ring)) = self.hops.remove(&seq) {
                    self.forward(ctx, to, ring);
                }
            }
            Timer::Settled => {
                if let Some(waiting) = self.settling.take() {
                    self.ready(ctx, waiting);
                }
            }
            Timer::Retry => {
                self.retry = None;
                if self.leader.is_none() || self.pending_claim || self.in_election {
                    self.start_election(ctx);
                }
            }
            Timer::Probe => {
                let Some((l, _)) = self.probe.take() else {
                    return;
                };
                if !self.deferred.is_empty() && self.leader == Some(l) {
                    // The leader we knew is gone: the results kept aside stand.
                    self.leader = None;
                    for ring in std::mem::take(&mut self.deferred) {
                        self.handle(ctx, ring);
                    }
                    return;
                }
                self.deferred.clear();
                if self.leader == Some(l) {
                    if self.in_election {
                        // An election passed through since the probe left (a probe is sent
                        // only outside one): its result will name the leader, perhaps one that
                        // came back after the probe was lost (seed 18282). Wait for it, and
                        // call an election only if it does not end in time.
                        self.set_retry(ctx);
                    } else {
                        self.start_election(ctx);
                    }
                }
            }
        }
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Probe = input;
        match self.leader {
            // A process waiting for its own claim to go round calls no election: the claim's
            // retry timer does if it never does (seed 8198: a claim made on a probe that the
            // restarted leader missed, then a workload probe, started an election while every
            // process still named that leader).
            None if !self.initiated && !self.pending_claim => self.start_election(ctx),
            Some(l) if l != ctx.id() && !self.in_election => self.send_probe(ctx, l),
            _ => {}
        }
    }
}

/// `election.ring`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct RingListSpec;

impl RingListSpec {
    /// The hop timeout: a round trip at the largest latency, plus 2 ms, lengthened for the
    /// run's fast clocks.
    fn hop_ms(setup: &Setup<'_, Self>) -> u64 {
        setup.for_fast_clocks_ms(2 * (setup.max_latency_ms() + 1) + 2)
    }
}

impl Spec for RingListSpec {
    type Node = RingList;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.ring"
    }
    fn summary(&self) -> &'static str {
        "ring election with the list of ids: skip dead successors, the highest id on the list wins, COORDINATOR circulates"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.5.1 (Algoritmo de anel, Fig. 6.20)"
    }
    /// The election properties, and `no_abdication` first: the highest live id leads, so a
    /// live leader has no reason to give up power but to a higher process back from a crash.
    fn properties(&self) -> Vec<&'static str> {
        let mut properties = vec![sincro_checkers::election::abdication::PROPERTY];
        properties.extend(super::ELECTION_PROPERTIES);
        properties
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![FaultClass::Reordering, FaultClass::Crashes, FaultClass::ClockDrift],
            summary: "synchronous: delays below the bound the hop timeout comes from, crashes with restart, reordering, drifting clocks; no loss, duplication, pauses, clock jumps or partitions",
            ..FaultModel::default()
        }
    }
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_initial_leader(setup, setup.params.initial_leader)?;
        setup.params.hop_ms = Self::hop_ms(setup);
        Ok(())
    }
    fn node(&self, variant: Variant, params: &Params, _id: NodeId) -> RingList {
        let mut node = RingList::new(params.hop_ms, params.initial_leader);
        node.bug_stale_coordinator = variant == Variant::StaleCoordinator;
        node
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::probe_workload(rng, nodes, active_ms)
    }
    /// A probe, then up to four election attempts, each at most `2n + 2` hop timeouts (two
    /// circulations with skipped successors, and the READY).
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        let hop = Self::hop_ms(setup);
        hop + 4 * (2 * setup.nodes() as u64 + 2) * hop + 10
    }
    /// Validity: the highest id; stability: from the end of the faults.
    fn checker(
        &self,
        property: &str,
        setup: &Setup<'_, Self>,
        bound_ms: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        Ok(super::detector_checker(
            property,
            setup,
            bound_ms,
            RankPolicy::HighestId,
            0,
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::election::{final_leaders, sends};
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, Scenario, Verdict};

    #[test]
    fn fig_6_20_two_concurrent_initiators_same_result() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "election.ring", "nodes": 8, "seed": 1, "duration_ms": 1100,
                "network": {"latency": {"constant": {"ms": 5}}},
                "faults": [{"at_ms": 5, "fault": {"crash": {"node": 7}}}],
                "workload": [{"at_ms": 10, "node": 2, "input": "probe"},
                             {"at_ms": 10, "node": 5, "input": "probe"}]}"#,
        )
        .unwrap();
        let out = find("election.ring")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap();
        assert_eq!(out.verdict, Verdict::Pass);
        assert_eq!(&final_leaders(&out, 8)[..7], &[Some(6); 7]);
        let s = sends(&out);
        // Both initiators turn their own message into COORDINATOR naming 6, with the same
        // members (7 skipped), and each circulates once.
        for (init, list) in [(2, "[2, 3, 4, 5, 6, 0, 1]"), (5, "[5, 6, 0, 1, 2, 3, 4]")] {
            let conv =
                format!("Coordinator {{ leader: 6, list: {list}, told: [{init}], claim: None }}");
            assert!(
                s.iter().any(|(f, _, m)| *f == init && m.contains(&conv)),
                "{init} did not convert its election: {s:?}"
            );
        }
        // 6 skipped its dead successor 7 and went on to 0
        assert!(s.iter().any(|(f, t, _)| *f == 6 && *t == 0));
    }

    #[test]
    fn a_crashed_coordinator_noticed_by_0_costs_5n_minus_2_messages() {
        for n in [3usize, 5, 8] {
            let sc = Scenario::from_json(
                &serde_json::json!({"algorithm": "election.ring", "nodes": n, "seed": 65,
                    "duration_ms": 1000,
                    "network": {"latency": {"constant": {"ms": 1}}},
                    "faults": [{"at_ms": 0, "fault": {"crash": {"node": n - 1}}}],
                    "workload": [{"at_ms": 1, "node": 0, "input": "probe"}]})
                .to_string(),
            )
            .unwrap();
            let out = find("election.ring")
                .unwrap()
                .run(&sc, RunOptions::default())
                .unwrap();
            assert_eq!(out.verdict, Verdict::Pass, "n = {n}");
            assert_eq!(
                &final_leaders(&out, n)[..n - 1],
                &vec![Some(n - 2); n - 1][..]
            );
            let s = sends(&out);
            let count = |f: &dyn Fn(&str) -> bool| s.iter().filter(|(_, _, m)| f(m)).count();
            // the textbook's two acked circulations, each with one hop to the dead n − 1
            assert_eq!(count(&|m| m.contains("ring: Election")), n, "n = {n}");
            assert_eq!(count(&|m| m.contains("ring: Coordinator")), n, "n = {n}");
            assert_eq!(count(&|m| m.starts_with("HopAck")), 2 * (n - 1), "n = {n}");
            assert_eq!(count(&|m| m.starts_with("Ready")), 1, "n = {n}");
            // 0's probe, and one probe of the old coordinator by each of 1 ..= n − 2
            let probes: Vec<usize> = s
                .iter()
                .filter(|(_, to, m)| m == "Probe" && *to == n - 1)
                .map(|(from, _, _)| *from)
                .collect();
            assert_eq!(probes, (0..n - 1).collect::<Vec<_>>(), "n = {n}");
            assert_eq!(s.len(), 5 * n - 2, "n = {n}: {s:?}");
        }
    }

    #[test]
    fn deterministic_and_passes_in_model() {
        assert_replays_exactly("election.ring", &["correct"], 3);
        assert_in_model_passes("election.ring", "correct", 300, EngineKind::Native);
    }
}
