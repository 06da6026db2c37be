//! Election with terms, majority votes and leader leases: at most one node *acts* as leader
//! at any instant, whatever the terms.
//!
//! **Why.** [`election.terms`](super::terms) (seed `002`, "Split-brain": "só aceitar que um
//! líder seja declarado se seus votos carregarem mais da metade do peso do sistema ...
//! mandatos") keeps one leader per term, but an old leader cut off by a partition goes on
//! believing it leads its old term while the majority elects a new one: two nodes act as
//! leader at once, which Raft tolerates (the old one cannot commit) but a primary that serves
//! reads or drives an actuator must not. A lease closes the gap: the old leader stops before
//! anyone can start (Gray and Cheriton's leases; Raft's leader leases, Ongaro's thesis §6.4).
//!
//! **Algorithm.** Terms and votes as in `election.terms`: a follower that hears no heartbeat
//! for a randomized election timeout moves to the next term and asks for votes; one vote per
//! term, kept in stable storage; a candidate with votes from a majority leads the term; any
//! message of a higher term makes the receiver a follower of that term. On top of that:
//! - **Promises.** A node that grants a vote to another node `c`, or acknowledges a heartbeat
//!   of leader `l`, promises (in stable storage) to vote for no one else for `lease_ms` of its
//!   own clock from that moment. It grants no vote to another node while the promise runs,
//!   and starts no candidacy of its own either. A candidate promises nothing to itself: it
//!   would vote for no one else while it stood again, and with a lease longer than the
//!   election timeouts a split vote never resolved (its voters renew their promises to it
//!   at every re-vote). The old leader needs no promise of its own in the argument below:
//!   it votes in a higher term only after moving to it, and then it has stopped acting.
//! - **Leases.** The leader sends heartbeats carrying their send time `s` (its own clock) and
//!   counts acknowledgements; once a majority (itself included) acknowledged the heartbeat of
//!   `s` (or granted the votes of a request sent at `s`), it holds the lease until
//!   `s + lease_ms × 9/10`. It *acts* as leader (reports `leader: Some(itself)`) only while it
//!   holds the lease, and steps down to follower when the lease runs out unrenewed. Votes
//!   that came slowly give a lease that may end before the first heartbeats can renew it:
//!   such a leader stops acting at the lease's end and only goes on leading (heartbeats,
//!   counting acknowledgements) for `lease_ms × 9/10` after it won, acting again if a
//!   majority renews the lease by then, stepping down if not. (It acted through that grace
//!   before stop 51, beside a new leader whose voters' promises to it had run out.)
//!
//! **Why at most one acting leader.** Take the old leader's last lease, from heartbeat `s`
//! acknowledged by majority `M`, and the new leader's voters `V`. Some node `v` is in both.
//! `v` acknowledged `s` in the old term, so before it moved to the new term, so before it
//! voted in it; its promise made it wait `lease_ms` of its clock after acknowledging, which
//! was after `s`. The old lease ends `lease_ms × 9/10` after `s` on the old leader's clock:
//! earlier, as long as the two clocks' rates differ by less than 10 % (any drift within the
//! generator's 1000 ppm). The new leader acts only after `v`'s vote. A node that moves to a
//! higher term stops acting at once.
//!
//! **Fault model.** Any delay, loss, duplication and reordering; partitions (two-way and
//! one-way); crashes with restart or for good (the term, the vote and the promise are in
//! stable storage; a crashed node does not act); clock drift up to 1000 ppm (the 10 % margin
//! covers far more). Not pauses: a leader paused past its lease cannot step down in time, and
//! acts again when it resumes (the classic stop-the-world pause of lease-based systems). Not
//! clock jumps: a lease is a duration on a clock.
//!
//! **Promises:** `single_acting_leader` (the point of the lease), `one_vote_per_term` (a vote
//! is in stable storage, as in `election.terms`), `leader_uniqueness` (per term),
//! `leader_agreement`, `election_termination`, `leader_validity` (the leader is alive),
//! `leader_stability`.
//!
//! **Variant `no-step-down`** (buggy): the leader goes on acting until it hears a heartbeat of
//! another leader: neither its lease running out nor a higher term stops it (the behaviour of
//! `election.terms`, seen from a primary that serves reads). Cut off by a partition, or simply
//! outvoted after lost heartbeats, the old leader acts beside the new one:
//! `single_acting_leader` fails, while `leader_uniqueness`, judged per term, still passes.
//!
//! **Variant `forget-promise`** (buggy, a deep one: it needs a node cut off and brought back
//! at the right moment): a node that moves to a higher term clears its promise together with
//! its vote, as if the promise belonged to the old term ("new term, fresh state"). Raft's
//! thesis warns of exactly this (§4.2.3: a server that heard from a current leader within the
//! minimum election timeout neither updates its term nor grants its vote). Nothing goes wrong
//! while the cluster is connected: a node that hears the leader's heartbeats never starts a
//! candidacy. The sequence that breaks it: a node `X` is cut off from the leader `L` (a
//! partition, or heartbeats lost in a row) long enough for its election timer to fire, so it
//! moves to a higher term, while `L` keeps its lease with the others' promises; then `X`'s vote
//! request of the higher term reaches a majority (after the heal) before it reaches `L`;
//! those followers adopt the term, forget their promise to `L` and vote for `X`; `X` acts
//! while `L`'s lease, which their promises were covering, still runs, until `L` hears of the
//! higher term: `single_acting_leader`.

use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_checkers::election::validity::RankPolicy;
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, Scenario, SimRng, TimerId};
use std::collections::{BTreeMap, BTreeSet};

/// Messages; every one carries the sender's term.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// A candidate asks for a vote in `term`; `sent` is its clock when it asked, ns.
    RequestVote {
        /// The candidate's term.
        term: u64,
        /// The candidate's clock when it asked, ns (echoed in the vote).
        sent: i64,
    },
    /// The answer to a vote request.
    Vote {
        /// The voter's term.
        term: u64,
        /// Whether the vote is granted (and the promise made).
        granted: bool,
        /// The request's `sent`.
        sent: i64,
    },
    /// The leader of `term` is alive; `sent` is its clock when it sent this, ns.
    Heartbeat {
        /// The leader's term.
        term: u64,
        /// The leader's clock, ns (echoed in the acknowledgement).
        sent: i64,
    },
    /// A follower acknowledges the heartbeat of `sent` and promises not to vote for anyone
    /// else for `lease_ms`.
    Ack {
        /// The follower's term.
        term: u64,
        /// The heartbeat's `sent`.
        sent: i64,
    },
    /// Answer to a stale heartbeat: the current term, so the old leader steps down.
    Stale {
        /// The receiver's (higher) term.
        term: u64,
    },
}

impl Msg {
    fn term(&self) -> u64 {
        match *self {
            Msg::RequestVote { term, .. }
            | Msg::Vote { term, .. }
            | Msg::Heartbeat { term, .. }
            | Msg::Ack { term, .. }
            | Msg::Stale { term } => term,
        }
    }
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// No heartbeat for too long (or the candidacy got no majority): start an election.
    Election,
    /// Time for the leader's next heartbeat.
    Heartbeat,
    /// The leader's lease may have run out.
    Expire,
}

/// Workload commands: none, as in `election.terms` (elections start by themselves when
/// heartbeats stop).
pub use super::terms::Input;

/// Stable storage: the term, the vote given in it and the running promise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stable {
    /// Current term.
    pub term: u64,
    /// Who got our vote in `term`.
    pub voted_for: Option<NodeId>,
    /// Promised to vote for no one but this node until this local time, ns.
    pub promise: Option<(NodeId, i64)>,
}

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Heartbeat period, local ms (0: derived from the latencies).
    #[serde(default)]
    pub heartbeat_ms: u64,
    /// Smallest election timeout, local ms; each timeout is drawn in `[e, 3e)` (0: derived).
    #[serde(default)]
    pub election_timeout_ms: u64,
    /// Length of a promise, local ms; the leader's lease is 9/10 of it (0: the election
    /// timeout). At least twice the heartbeat period, so a lease is renewed before it ends,
    /// and at most twice the election timeout, so a split vote resolves.
    #[serde(default)]
    pub lease_ms: u64,
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "the leader acts only while a majority's promises cover it";
        NoStepDown = "no-step-down" (buggy), "the leader keeps acting, lease run out or term lost, until it hears another leader: two act at once";
        ForgetPromise = "forget-promise" (deep), "a node moving to a higher term clears its promise with its vote: a node back from a partition with a higher term is voted in while the old leader's lease runs";
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Role {
    Follower,
    Candidate {
        votes: BTreeSet<NodeId>,
        sent: i64,
    },
    Leader {
        /// Heartbeats sent (their `sent`) and who acknowledged each.
        acks: BTreeMap<i64, BTreeSet<NodeId>>,
        /// The lease: acting until this local time, ns.
        lease_end: i64,
        /// Leading (heartbeats sent, acknowledgements counted) at least until this local
        /// time, ns, even past the lease: votes that came too slowly give a lease that ends
        /// before the first heartbeats can renew it. Acting stops at `lease_end` whatever.
        grace_end: i64,
    },
}

/// One process.
#[derive(Debug)]
pub struct Lease {
    variant: Variant,
    heartbeat_ms: u64,
    election_ms: u64,
    lease_ns: i64,
    role: Role,
    leader: Option<NodeId>,
    election_timer: Option<TimerId>,
    heartbeat_timer: Option<TimerId>,
    expire_timer: Option<TimerId>,
    reported: Option<(Option<NodeId>, u64)>,
}

impl Lease {
    /// A process of `variant` with the prepared parameters.
    pub fn new(variant: Variant, params: &Params) -> Self {
        Lease {
            variant,
            heartbeat_ms: params.heartbeat_ms.max(1),
            election_ms: params.election_timeout_ms.max(1),
            lease_ns: i64::try_from(params.lease_ms.max(1).saturating_mul(1_000_000))
                .unwrap_or(i64::MAX),
            role: Role::Follower,
            leader: None,
            election_timer: None,
            heartbeat_timer: None,
            expire_timer: None,
            reported: None,
        }
    }

    /// (Re)arms the one lease check at local time `at`.
    fn check_lease_at(&mut self, ctx: &mut Ctx<'_, Self>, at: i64) {
        if let Some(id) = self.expire_timer.take() {
            ctx.cancel_timer(id);
        }
        self.expire_timer = Some(ctx.set_timer_at(at, Timer::Expire));
    }

    /// The lease a majority's promises made at or after `sent` cover: until `sent + 9/10 of
    /// a promise`.
    fn lease_from(&self, sent: i64) -> i64 {
        sent.saturating_add(self.lease_ns / 10 * 9)
    }

    fn report(&mut self, ctx: &mut Ctx<'_, Self>) {
        let me = ctx.id();
        if self.variant == Variant::NoStepDown
            && self.leader.is_none()
            && self.reported.is_some_and(|(l, _)| l == Some(me))
        {
            return; // the bug: it goes on acting until it hears of another leader
        }
        let now = (self.leader, ctx.stable().term);
        if self.reported != Some(now) {
            self.reported = Some(now);
            ctx.observe(Observation::Leader {
                leader: now.0,
                term: now.1,
            });
        }
    }

    /// True while this node promised someone else not to vote for anyone but them.
    fn promised_to_other(&self, ctx: &Ctx<'_, Self>, other_than: NodeId) -> bool {
        matches!(ctx.stable().promise, Some((to, until)) if to != other_than && ctx.now() < until)
    }

    fn promise(&self, ctx: &mut Ctx<'_, Self>, to: NodeId) {
        let until = ctx.now().saturating_add(self.lease_ns);
        ctx.stable_mut().promise = Some((to, until));
    }

    fn reset_election_timer(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let Some(id) = self.election_timer.take() {
            ctx.cancel_timer(id);
        }
        let after = ctx.rng().range_u64(self.election_ms, 3 * self.election_ms);
        self.election_timer = Some(ctx.set_timer_ms(after, Timer::Election));
    }

    /// Becomes a follower (of `term`, when higher than ours, with no vote): stops acting.
    fn step_down(&mut self, ctx: &mut Ctx<'_, Self>, term: Option<u64>) {
        if let Some(term) = term {
            let forget = self.variant == Variant::ForgetPromise;
            let st = ctx.stable_mut();
            st.term = term;
            st.voted_for = None;
            if forget {
                st.promise = None; // the bug: the promise outlives terms, not this node's memory
            }
        }
        let was_leader = matches!(self.role, Role::Leader { .. });
        self.role = Role::Follower;
        self.leader = None;
        if was_leader {
            for id in [self.heartbeat_timer.take(), self.expire_timer.take()]
                .into_iter()
                .flatten()
            {
                ctx.cancel_timer(id);
            }
            self.reset_election_timer(ctx);
        }
    }

    fn become_candidate(&mut self, ctx: &mut Ctx<'_, Self>) {
        let me = ctx.id();
        let sent = ctx.now();
        let st = ctx.stable_mut();
        st.term += 1;
        st.voted_for = Some(me);
        let term = st.term;
        ctx.observe(Observation::Vote {
            term,
            candidate: me,
        });
        // No promise to itself: it kept the candidate from voting for another while it stood
        // again and again (stop 66's probe: four nodes split 2-2 for 85 terms with no fault,
        // at a lease past three election timeouts, now refused). Safety does not need it: a
        // node that votes in a higher term has stopped acting first.
        self.role = Role::Candidate {
            votes: BTreeSet::from([me]),
            sent,
        };
        self.leader = None;
        self.report(ctx);
        ctx.broadcast(Msg::RequestVote { term, sent });
        self.reset_election_timer(ctx);
        self.maybe_lead(ctx);
    }

    fn maybe_lead(&mut self, ctx: &mut Ctx<'_, Self>) {
        let Role::Candidate { votes, sent } = &self.role else {
            return;
        };
        if votes.len() * 2 <= ctx.nodes() {
            return;
        }
        let lease_end = self.lease_from(*sent);
        // Votes that came too slowly give a short lease, or none: the first heartbeats must
        // renew it. Until they can, the node leads without acting; without a renewal by then,
        // it steps down.
        let grace_end = lease_end.max(ctx.now().saturating_add(self.lease_ns / 10 * 9));
        self.role = Role::Leader {
            acks: BTreeMap::new(),
            lease_end,
            grace_end,
        };
        if let Some(id) = self.election_timer.take() {
            ctx.cancel_timer(id);
        }
        // The first check is at the lease's end, where acting stops unless it was renewed.
        // (It was armed at the grace's end, and the leader acted up to it: past its lease,
        // beside a new leader whose voters' promises to it had run out.)
        self.check_lease_at(ctx, lease_end);
        self.heartbeat(ctx);
        self.act_if_leased(ctx);
    }

    fn heartbeat(&mut self, ctx: &mut Ctx<'_, Self>) {
        let (me, now, term) = (ctx.id(), ctx.now(), ctx.stable().term);
        let horizon = now.saturating_sub(self.lease_ns);
        if let Role::Leader { acks, .. } = &mut self.role {
            acks.retain(|&s, _| s >= horizon);
            acks.insert(now, BTreeSet::new());
        }
        // Its own promise counts: alone (one node) it is the majority that renews the lease.
        self.count_ack(ctx, me, now);
        ctx.broadcast(Msg::Heartbeat { term, sent: now });
        if let Some(id) = self.heartbeat_timer.take() {
            ctx.cancel_timer(id);
        }
        self.heartbeat_timer = Some(ctx.set_timer_ms(self.heartbeat_ms, Timer::Heartbeat));
    }

    /// Reports itself as leader while it holds the lease (for `no-step-down`, once it has
    /// held one).
    fn act_if_leased(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let Role::Leader { lease_end, .. } = self.role {
            if ctx.now() < lease_end && self.leader.is_none() {
                self.leader = Some(ctx.id());
                self.report(ctx);
            }
        }
    }

    fn on_ack(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, sent: i64) {
        self.count_ack(ctx, from, sent);
        self.act_if_leased(ctx);
    }

    /// Counts `from`'s promise for the heartbeat sent at `sent`; once a majority promised,
    /// the lease runs from it.
    fn count_ack(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, sent: i64) {
        let nodes = ctx.nodes();
        let lease = self.lease_from(sent);
        let mut renewed = false;
        if let Role::Leader {
            acks, lease_end, ..
        } = &mut self.role
        {
            if let Some(acked) = acks.get_mut(&sent) {
                acked.insert(from);
                if acked.len() * 2 > nodes && lease > *lease_end {
                    *lease_end = lease;
                    renewed = true;
                }
            }
        }
        if renewed {
            self.check_lease_at(ctx, lease);
        }
    }

    /// The lease check: still leased, checked again at the lease's end; run out, it stops
    /// acting, and steps down unless its grace after slow votes still runs (then it is
    /// checked again at the grace's end: a renewal by then makes it act again).
    fn on_expire(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.expire_timer = None;
        let Role::Leader {
            lease_end,
            grace_end,
            ..
        } = self.role
        else {
            return;
        };
        let now = ctx.now();
        if now < lease_end {
            self.check_lease_at(ctx, lease_end);
            return;
        }
        if self.variant == Variant::NoStepDown {
            return;
        }
        if now < grace_end {
            if self.leader.take().is_some() {
                self.report(ctx);
            }
            self.check_lease_at(ctx, grace_end);
            return;
        }
        self.step_down(ctx, None);
        self.report(ctx);
    }

    fn on_vote_request(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, term: u64, sent: i64) {
        let voted = ctx.stable().voted_for;
        let granted = self.role == Role::Follower
            && voted.is_none_or(|v| v == from)
            && !self.promised_to_other(ctx, from);
        if granted {
            ctx.stable_mut().voted_for = Some(from);
            ctx.observe(Observation::Vote {
                term,
                candidate: from,
            });
            self.promise(ctx, from);
            self.reset_election_timer(ctx);
        }
        ctx.send(
            from,
            Msg::Vote {
                term,
                granted,
                sent,
            },
        );
    }
}

impl Process for Lease {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    type Stable = Stable;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.role = Role::Follower;
        self.leader = None;
        self.report(ctx);
        self.reset_election_timer(ctx);
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        let current = ctx.stable().term;
        let term = msg.term();
        if term < current {
            // A stale term: dropped; a stale leader is told the current term.
            if let Msg::Heartbeat { .. } = msg {
                ctx.send(from, Msg::Stale { term: current });
            }
            return;
        }
        if term > current {
            self.step_down(ctx, Some(term));
            if !matches!(msg, Msg::Heartbeat { .. }) {
                self.report(ctx);
            }
        }
        match msg {
            Msg::RequestVote { term, sent } => self.on_vote_request(ctx, from, term, sent),
            Msg::Vote { granted, sent, .. } => {
                if let Role::Candidate { votes, sent: ours } = &mut self.role {
                    if granted && sent == *ours {
                        votes.insert(from);
                    }
                }
                self.maybe_lead(ctx);
            }
            Msg::Heartbeat { term, sent } => {
                // Only one leader per term: whoever sends a heartbeat of our term leads it.
                self.role = Role::Follower;
                self.leader = Some(from);
                self.promise(ctx, from);
                self.report(ctx);
                self.reset_election_timer(ctx);
                ctx.send(from, Msg::Ack { term, sent });
            }
            Msg::Ack { sent, .. } => self.on_ack(ctx, from, sent),
            Msg::Stale { .. } => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Election => {
                self.election_timer = None;
                if matches!(self.role, Role::Leader { .. }) {
                    return;
                }
                if self.promised_to_other(ctx, ctx.id()) {
                    // Still promised to someone: wait until the promise runs out.
                    self.reset_election_timer(ctx);
                } else {
                    self.become_candidate(ctx);
                }
            }
            Timer::Heartbeat => {
                self.heartbeat_timer = None;
                if matches!(self.role, Role::Leader { .. }) {
                    self.heartbeat(ctx);
                }
            }
            Timer::Expire => self.on_expire(ctx),
        }
    }

    fn on_input(&mut self, _ctx: &mut Ctx<'_, Self>, _input: Input) {}
}

/// `election.lease`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct LeaseSpec;

impl Spec for LeaseSpec {
    type Node = Lease;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.lease"
    }
    fn summary(&self) -> &'static str {
        "terms and majority votes with leader leases: a leader acts only while a majority's promises cover it, so two never act at once"
    }
    fn source(&self) -> &'static str {
        "seed 002 \"Eleição de Líderes\" (Split-brain: mandatos); Gray & Cheriton's leases"
    }
    fn properties(&self) -> Vec<&'static str> {
        // One vote per term first (the votes are in stable storage, as in `election.terms`),
        // then the properties of leaders.
        let mut p = vec![sincro_checkers::election::per_term_vote::PROPERTY];
        p.extend(super::ELECTION_PROPERTIES);
        p.push(sincro_checkers::election::single_acting::PROPERTY);
        p
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![
                FaultClass::Loss,
                FaultClass::Duplication,
                FaultClass::Reordering,
                FaultClass::Partitions,
                FaultClass::OnewayPartitions,
                FaultClass::Crashes,
                FaultClass::CrashStop,
                FaultClass::ClockDrift,
            ],
            summary: "safe under any delay, loss, duplication, reordering, partitions, crashes (with restart or for good) and drift up to 1000 ppm (the lease keeps a 10 % margin); a leader is elected once a majority is connected with delays below the timeouts; not pauses (a leader paused past its lease cannot step down) nor clock jumps (a lease is a duration on a clock)",
            drift_ppm_max: Some(1_000),
            majority_for_liveness: true,
            ..FaultModel::default()
        }
    }
    /// The heartbeat period and the election timeout default to values derived from the
    /// scenario's largest latency (as in `election.terms`); the promise defaults to the
    /// election timeout.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        let p = &setup.params;
        let terms = super::terms::Params {
            heartbeat_ms: p.heartbeat_ms,
            election_timeout_ms: p.election_timeout_ms,
        };
        let (hb, el) = terms.timeouts(setup.max_latency_ms(), setup.nodes());
        let lease = if p.lease_ms > 0 { p.lease_ms } else { el };
        if lease < 2 * hb {
            return Err(format!(
                "params.lease_ms = {lease} must be at least twice params.heartbeat_ms = {hb} (a lease must be renewed before it ends)"
            ));
        }
        // With the usual links (a delay spike of the plan is a fault, not counted): a
        // follower hears a live leader's next heartbeat before its election timer fires, and
        // the leader's lease is renewed (a heartbeat and its acknowledgement) before the 9/10
        // of it the leader acts on runs out. Shorter, the correct variant loses its leader
        // with no fault at all, as `election.terms` refuses (a misconfiguration, not a finding).
        let lat = setup.usual_latency_ms();
        let gap = super::terms::heartbeat_gap_ms(setup, hb, lat);
        if el <= gap {
            return Err(format!(
                "params: election_timeout_ms = {el} must exceed heartbeat_ms + the links' \
                 latency ({hb} + {lat}{}): a follower would time out between two \
                 heartbeats of a live leader",
                super::terms::drift_note(setup, gap)
            ));
        }
        super::terms::check_vote_to_heartbeat(setup, el, lat)?;
        // The heartbeat period and the lease are on the leader's own clock; the round trip
        // is real time, as a fast clock counts it.
        let renewal = hb.saturating_add(setup.for_fast_clocks_ms(2 * lat));
        if lease.saturating_mul(9) / 10 <= renewal {
            return Err(format!(
                "params.lease_ms = {lease}: the 9/10 of it a leader acts on must exceed a \
                 heartbeat period and a round trip of the links ({hb} + 2 × {lat} = {renewal} \
                 ms): a live leader's lease would run out before it is renewed"
            ));
        }
        // (stop 66: with a lease of three election timeouts or more, the promises each re-vote
        // renews outlast the candidacies, and a split vote never resolved: three live nodes
        // of four stood in turn for 38 s after the faults, each with one vote, the third
        // node promised to the candidate before; Raft bounds a lease by the election timeout)
        if lease > 2 * el {
            return Err(format!(
                "params.lease_ms = {lease} must be at most twice params.election_timeout_ms = \
                 {el}: a voter's promise would outlast the candidacies, and a split vote could \
                 keep every voter promised to a candidate that cannot win"
            ));
        }
        setup.params = Params {
            heartbeat_ms: hb,
            election_timeout_ms: el,
            lease_ms: lease,
        };
        Ok(())
    }
    /// Half the seeds keep the defaults; the other half set the three timeouts from the
    /// links' usual latency (as the defaults do from the largest) with a lease of one or two
    /// election timeouts, the longest accepted (no generated scenario set one before stop 66,
    /// so a lease past the longest election timeout, which lost its leader for good, was
    /// never fuzzed).
    fn draw_params(&self, rng: &mut SimRng, scenario: &Scenario) -> Option<Params> {
        if rng.chance(0.5) {
            return None;
        }
        let lat = crate::spec::usual_latency_ms(scenario);
        let terms = super::terms::Params::default().timeouts(lat, scenario.nodes);
        let k = 1 + rng.index(2) as u64;
        Some(Params {
            heartbeat_ms: terms.0,
            election_timeout_ms: terms.1,
            lease_ms: k * terms.1,
        })
    }
    fn node(&self, variant: Variant, params: &Params, _id: NodeId) -> Lease {
        Lease::new(variant, params)
    }
    /// No workload: elections start by themselves when heartbeats stop.
    fn workload(&self, _rng: &mut SimRng, _nodes: usize, _active_ms: u64) -> Vec<Timed<Input>> {
        Vec::new()
    }
    /// As `election.terms` (20 split votes, each costing at most 3e), plus the promises a
    /// new candidate waits for.
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        20 * 3 * setup.params.election_timeout_ms + 2 * setup.params.lease_ms
    }
    /// Validity: any live node; stability: from when a follower's election timer (at most
    /// 3e) started before the faults stopped may still fire, or a promise may still hold it.
    fn checker(
        &self,
        property: &str,
        setup: &Setup<'_, Self>,
        bound_ms: u64,
    ) -> Result<Option<Box<dyn Checker>>, String> {
        let settle_ms = 3 * setup.params.election_timeout_ms + setup.params.lease_ms;
        Ok(super::detector_checker(
            property,
            setup,
            bound_ms,
            RankPolicy::AliveOnly,
            settle_ms,
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::election::final_leaders;
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, Scenario, Verdict};

    /// Five nodes; the leader is cut off with one follower from 200 ms to 600 ms.
    fn partition(variant: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "election.lease", "variant": "{variant}", "nodes": 5, "seed": 7,
                "duration_ms": 900, "network": {{"latency": {{"constant": {{"ms": 5}}}}}},
                "faults": [{{"at_ms": 200, "fault": {{"partition": {{"groups": [[3, 4], [0, 1, 2]]}}}}}},
                           {{"at_ms": 600, "fault": "heal"}}],
                "checks": {{"liveness_bound_ms": 200}}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_leader_cut_off_stops_acting_before_the_majority_elects_another() {
        let alg = find("election.lease").unwrap();
        let sc = partition("correct");
        let out = alg.run(&sc, RunOptions::default()).unwrap();
        assert_eq!(out.verdict, Verdict::Pass);
        let leaders = final_leaders(&out, 5);
        assert!(leaders[0].is_some() && leaders.iter().all(|l| *l == leaders[0]));
    }

    /// A lease past twice the election timeout is refused: the promises each re-vote renews
    /// outlasted the candidacies and a split vote never resolved, with no fault (stop 66's
    /// probe: four nodes split 2-2 for 85 terms, seed 13 at a lease of 500 ms; the fuzzer
    /// then found three live nodes of four standing in turn for 38 s, each with one vote).
    /// Twice the election timeout, the longest accepted, elects a leader every time.
    #[test]
    fn a_lease_past_two_election_timeouts_is_refused_and_two_elect() {
        let alg = find("election.lease").unwrap();
        let sc = |seed: u64, lease_ms: u64| {
            Scenario::from_json(&format!(
                r#"{{"algorithm": "election.lease", "nodes": 4, "seed": {seed},
                    "duration_ms": 6000,
                    "params": {{"heartbeat_ms": 10, "election_timeout_ms": 30,
                                "lease_ms": {lease_ms}}},
                    "network": {{"latency": {{"uniform": {{"min_ms": 1, "max_ms": 8}}}}}}}}"#
            ))
            .unwrap()
        };
        let e = alg.run(&sc(13, 61), RunOptions::default()).unwrap_err();
        assert!(
            e.0.contains("params.lease_ms = 61 must be at most twice"),
            "{e}"
        );
        for seed in 0..80 {
            let out = alg.run(&sc(seed, 60), RunOptions::default()).unwrap();
            assert_eq!(out.verdict, Verdict::Pass, "seed {seed}");
            let leaders = final_leaders(&out, 4);
            assert!(leaders[0].is_some() && leaders.iter().all(|l| *l == leaders[0]));
        }
    }

    /// A single node is its own majority: its heartbeats renew its lease with no
    /// acknowledgement to wait for. Before, only acknowledgements renewed it, so the lone
    /// leader's lease expired after 9/10 of a promise and it stepped down and ran again,
    /// every lease (a `leader_stability` violation of the correct variant, seed 0 at n = 1).
    #[test]
    fn a_single_node_keeps_its_lease() {
        let alg = find("election.lease").unwrap();
        let sc = Scenario::from_json(
            r#"{"algorithm": "election.lease", "nodes": 1, "seed": 0, "duration_ms": 6000}"#,
        )
        .unwrap();
        let out = alg.run(&sc, RunOptions::default()).unwrap();
        assert_eq!(out.verdict, Verdict::Pass);
        assert_eq!(final_leaders(&out, 1), vec![Some(0)]);
        let expired = out
            .trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .filter(|e| format!("{:?}", e.kind).contains("Expire"))
            .count();
        assert_eq!(
            expired, 0,
            "every heartbeat renews the lease before it is checked"
        );
    }

    /// Votes that come slowly give a short lease: n0 asks at 51 ms, its votes take 40 ms, so
    /// its lease ends at 96 ms, and a one-way cut from 54 ms keeps its heartbeats from
    /// renewing it. The leader armed its only check at the grace's end (138 ms) and acted up to
    /// it, beside n1, elected at 117 ms once its voters' promises to n0 ran out (a probe's
    /// find; fuzz seed 9001932 of `--strategy moments`). It stops acting at its lease's end.
    #[test]
    fn a_leader_with_slow_votes_stops_acting_at_its_lease_end() {
        let slow = |from: u32| {
            format!(
                r#"{{"at_ms": 0, "fault": {{"set_links": {{"from": {from}, "to": 0,
                    "latency": {{"constant": {{"ms": 40}}}}}}}}}}"#
            )
        };
        let sc = Scenario::from_json(&format!(
            r#"{{"algorithm": "election.lease", "nodes": 3, "seed": 1, "duration_ms": 200,
                "network": {{"latency": {{"constant": {{"ms": 2}}}}}},
                "params": {{"heartbeat_ms": 10, "election_timeout_ms": 50, "lease_ms": 50}},
                "faults": [{}, {},
                    {{"at_ms": 54, "fault": {{"partition_oneway": {{"from": [0], "to": [1, 2]}}}}}}],
                "checks": {{"properties": ["single_acting_leader"]}}}}"#,
            slow(1),
            slow(2)
        ))
        .unwrap();
        let out = find("election.lease")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap();
        assert_eq!(out.verdict, Verdict::Pass);
        // n0 did lead, and n1 after it: the case is the one described
        let leaders: Vec<_> = out
            .trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                sincro_harness::EventKind::Observe {
                    obs:
                        sincro_harness::Observation::Leader {
                            leader: Some(l), ..
                        },
                } if e.node == Some(*l) => Some(*l),
                _ => None,
            })
            .collect();
        assert!(
            leaders.starts_with(&[0]) && leaders.contains(&1),
            "{leaders:?}"
        );
    }

    /// Generated scenarios set the timeouts for half the seeds, with leases of one and two
    /// election timeouts (none did before stop 66, so a lease longer than the default was
    /// never fuzzed); the rest keep the defaults; every drawn setting is accepted and holds.
    #[test]
    fn generated_scenarios_draw_leases_of_one_and_two_election_timeouts() {
        let alg = find("election.lease").unwrap();
        let mut multiples = std::collections::BTreeSet::new();
        let mut defaults = 0;
        // Every drawn setting is run in CI; a quick debug run runs the first few.
        let mut runs_left = crate::test_support::sweep_seeds(80);
        // The parameters are drawn before any pilot run of the moments: random schedules
        // draw the same ones without the pilots (four fifths of this test's time before).
        let opts = sincro_harness::gen::GenOptions {
            strategy: sincro_harness::gen::Strategy::Random,
            ..Default::default()
        };
        for seed in 0..120 {
            let sc = alg.generate("correct", seed, &opts);
            assert_eq!(sc, alg.generate("correct", seed, &opts));
            if seed < 3 {
                let mixed = alg.generate("correct", seed, &Default::default());
                assert_eq!(mixed.params, sc.params, "seed {seed}");
            }
            let p: super::Params = crate::spec::parse_params(&sc).unwrap();
            if p.lease_ms == 0 {
                defaults += 1;
                assert!(!sc.description.contains("params drawn"));
                continue;
            }
            assert!(
                sc.description.contains("params drawn: {"),
                "{}",
                sc.description
            );
            assert_eq!(p.lease_ms % p.election_timeout_ms, 0);
            multiples.insert(p.lease_ms / p.election_timeout_ms);
            if runs_left > 0 {
                runs_left -= 1;
                let out = alg.run(&sc, RunOptions::new(false)).unwrap();
                assert!(out.verdict.is_pass(), "seed {seed}: {}", out.verdict);
            }
        }
        assert!(
            (30..=90).contains(&defaults),
            "{defaults} of 120 kept the defaults"
        );
        assert_eq!(multiples, [1, 2].into(), "{multiples:?}");
    }

    #[test]
    fn deterministic_and_passes_in_model() {
        assert_replays_exactly("election.lease", &["correct", "no-step-down"], 2);
        assert_in_model_passes("election.lease", "correct", 150, EngineKind::Native);
    }

    #[test]
    fn no_step_down_is_caught_by_single_acting_leader_only() {
        assert!(
            first_failing_seed("election.lease", "no-step-down", 200, EngineKind::Native).is_some()
        );
        let alg = find("election.lease").unwrap();
        let out = alg
            .run(&partition("no-step-down"), RunOptions::default())
            .unwrap();
        assert_eq!(
            out.verdict.label(),
            "violation:single_acting_leader",
            "{}",
            out.verdict
        );
    }

    /// `forget-promise`: after the heal, the node that was cut off is voted in by a follower
    /// that forgot its promise to the leader, which still acts; the correct follower refuses.
    #[test]
    fn a_promise_forgotten_with_the_term_lets_two_act_after_a_heal() {
        crate::test_support::assert_only_the_twin_breaks(
            include_str!("../../../corpus/election/lease-forget-promise-after-heal.json"),
            "single_acting_leader",
        );
    }
}
