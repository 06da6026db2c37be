//! Voting mutual exclusion: decentralized voting (Lin et al.) and seed 002's quorum variant.
//!
//! **Decentralized voting** (Tanenbaum & van Steen §6.3.3, seed `000`; seed `001`): the resource
//! is replicated on `n` coordinators (nodes `0..n`). A process that wants it asks every
//! coordinator; a coordinator votes GRANT if it has not granted the resource to anyone else,
//! DENY otherwise. With `m > n/2` grants the process enters; as soon as `m` grants are out of
//! reach it releases the grants it got and backs off for a random time before trying again. On
//! leaving it releases every grant. A coordinator that crashes and recovers **forgets the votes
//! it gave** (amnesia) and may grant again: if `2m − n` coordinators of a holder's majority
//! restart, a second process can collect `m` votes — the violation probability
//! `Σ_{k=2m−n}^{n} C(m,k) p^k (1−p)^{m−k}` of the text. Under heavy contention nobody
//! collects `m` votes for a while: utilization collapses.
//!
//! **Quorum** (seed `002` "Exclusão Mútua — quórum"): as above but a busy coordinator queues the
//! request instead of denying it; the process waits for `m` grants, and releases to all `n` on
//! leaving; a release from a process still queued removes it from that queue. Seed 002 shows
//! it breaking the same way when `Coord2` fails and recovers.
//!
//! **Fault model**: reliable links with any delay and reordering, slow processes, drifting
//! clocks; no crashes — with crashes and amnesia mutual exclusion holds only with the
//! probability above (measure it with `sincro table voting`).
//!
//! **Promises**: `mutual_exclusion`. Neither promises liveness: the quorum variant can deadlock
//! when coordinators queue requests in different orders, and voting can livelock — under
//! contention every attempt is denied and backs off while requests keep coming (fuzzing with
//! the `no_deadlock` checker finds such runs within a few seeds: the text's "starvation, low
//! efficiency").

use crate::spec::{Correct, Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng};
use std::collections::{BTreeSet, VecDeque};

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// Client -> coordinator: attempt `attempt` asks for the resource.
    Request {
        /// The client's attempt number (answers echo it).
        attempt: u64,
    },
    /// Coordinator -> client: my vote is yours.
    Grant {
        /// Attempt answered.
        attempt: u64,
    },
    /// Coordinator -> client: I voted for someone else (voting only).
    Deny {
        /// Attempt answered.
        attempt: u64,
    },
    /// Client -> coordinator: give back the vote of attempt `attempt` / forget that request.
    Release {
        /// Attempt whose vote or request is given up.
        attempt: u64,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Time inside the critical section is over.
    HoldDone,
    /// Back-off after a failed attempt is over.
    Retry,
}

pub use super::centralized::Input;

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Number of coordinators (nodes `0..coordinators`); default: every node.
    #[serde(default)]
    pub coordinators: usize,
    /// Votes needed (`m > coordinators / 2`); default: a simple majority.
    #[serde(default)]
    pub m: usize,
    /// Shortest back-off after a denied attempt, local ms.
    #[serde(default = "Params::default_backoff_min_ms")]
    pub backoff_min_ms: u64,
    /// Longest back-off, local ms.
    #[serde(default = "Params::default_backoff_max_ms")]
    pub backoff_max_ms: u64,
}

impl Params {
    fn default_backoff_min_ms() -> u64 {
        5
    }
    fn default_backoff_max_ms() -> u64 {
        50
    }

    /// Fills the defaults for `nodes` and checks the values.
    pub fn resolve(mut self, nodes: usize) -> Result<Self, String> {
        if self.coordinators == 0 {
            self.coordinators = nodes;
        }
        if self.coordinators > nodes {
            return Err(format!(
                "params.coordinators = {} exceeds nodes = {nodes}",
                self.coordinators
            ));
        }
        if self.m == 0 {
            self.m = self.coordinators / 2 + 1;
        }
        if 2 * self.m <= self.coordinators || self.m > self.coordinators {
            return Err(format!(
                "params.m = {} must be a majority of the {} coordinators (n/2 < m <= n)",
                self.m, self.coordinators
            ));
        }
        if self.backoff_min_ms > self.backoff_max_ms {
            return Err("params.backoff_min_ms must not exceed params.backoff_max_ms".into());
        }
        // A back-off of nothing retries a denied request at the same instant: three
        // contenders sent 4,438 messages in 3 s and none entered.
        if self.backoff_max_ms == 0 {
            return Err(
                "params.backoff_max_ms = 0: a denied requester would retry at once, for ever \
                 against the same votes; give a back-off of at least 1 ms"
                    .into(),
            );
        }
        Ok(self)
    }
}

impl Default for Params {
    fn default() -> Self {
        Params {
            coordinators: 0,
            m: 0,
            backoff_min_ms: Self::default_backoff_min_ms(),
            backoff_max_ms: Self::default_backoff_max_ms(),
        }
    }
}

/// Deny and back off (voting), or queue (quorum).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Lin et al.'s decentralized voting.
    Voting,
    /// Seed 002's quorum with coordinator queues.
    Quorum,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Client {
    Idle,
    Asking {
        hold_ms: u64,
        grants: BTreeSet<NodeId>,
        denies: usize,
    },
    BackingOff {
        hold_ms: u64,
    },
    Holding,
}

/// One node: a client, and a coordinator when its id is below `coordinators`.
#[derive(Debug)]
pub struct Voting {
    mode: Mode,
    params: Params,
    client: Client,
    attempt: u64,
    backlog: VecDeque<u64>,
    // coordinator side (volatile: forgotten on a crash)
    voted_for: Option<(NodeId, u64)>,
    queue: VecDeque<(NodeId, u64)>,
}

impl Voting {
    /// A node of the run (`params` resolved).
    pub fn new(mode: Mode, params: Params) -> Self {
        Voting {
            mode,
            params,
            client: Client::Idle,
            attempt: 0,
            backlog: VecDeque::new(),
            voted_for: None,
            queue: VecDeque::new(),
        }
    }

    fn ask(&mut self, ctx: &mut Ctx<'_, Self>, hold_ms: u64) {
        self.attempt += 1;
        self.client = Client::Asking {
            hold_ms,
            grants: BTreeSet::new(),
            denies: 0,
        };
        for c in 0..self.params.coordinators {
            ctx.send(
                c,
                Msg::Request {
                    attempt: self.attempt,
                },
            );
        }
    }

    fn release_all(&mut self, ctx: &mut Ctx<'_, Self>, to: impl IntoIterator<Item = NodeId>) {
        let attempt = self.attempt;
        for c in to {
            ctx.send(c, Msg::Release { attempt });
        }
    }

    fn vote_next(&mut self, ctx: &mut Ctx<'_, Self>) {
        if self.voted_for.is_none() {
            if let Some((c, attempt)) = self.queue.pop_front() {
                self.voted_for = Some((c, attempt));
                ctx.send(c, Msg::Grant { attempt });
            }
        }
    }
}

impl Process for Voting {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            // ---- coordinator ----
            Msg::Request { attempt } => match (self.voted_for, self.mode) {
                (None, _) => {
                    self.voted_for = Some((from, attempt));
                    ctx.send(from, Msg::Grant { attempt });
                }
                (Some(_), Mode::Voting) => ctx.send(from, Msg::Deny { attempt }),
                (Some(_), Mode::Quorum) => self.queue.push_back((from, attempt)),
            },
            Msg::Release { attempt } => {
                self.queue.retain(|&q| q != (from, attempt));
                if self.voted_for == Some((from, attempt)) {
                    self.voted_for = None;
                    self.vote_next(ctx);
                }
            }
            // ---- client ----
            Msg::Grant { attempt } | Msg::Deny { attempt } if attempt != self.attempt => {
                // An answer to an attempt we gave up: hand a stale grant straight back.
                if matches!(msg, Msg::Grant { .. }) {
                    ctx.send(from, Msg::Release { attempt });
                }
            }
            Msg::Grant { attempt } => {
                let m = self.params.m;
                let Client::Asking {
                    hold_ms, grants, ..
                } = &mut self.client
                else {
                    // A grant of this attempt we no longer ask with: holding, it is released
                    // on leaving (to every coordinator); backing off (it came after the
                    // denies that made us give up) or idle (our release overtook the request,
                    // and the coordinator voted after it), it is handed straight back. Kept,
                    // it held the coordinator's vote for the rest of the run, and every later
                    // request from anyone was denied (stop 64's probe: unequal delays, inside
                    // the fault model, were enough).
                    if self.client != Client::Holding {
                        ctx.send(from, Msg::Release { attempt });
                    }
                    return;
                };
                grants.insert(from);
                if grants.len() >= m {
                    let hold_ms = *hold_ms;
                    self.client = Client::Holding;
                    ctx.observe(Observation::CsEnter { resource: 0 });
                    ctx.set_timer_ms(hold_ms, Timer::HoldDone);
                }
            }
            Msg::Deny { .. } => {
                let (n, m) = (self.params.coordinators, self.params.m);
                let Client::Asking {
                    hold_ms,
                    grants,
                    denies,
                } = &mut self.client
                else {
                    return;
                };
                *denies += 1;
                if *denies > n - m {
                    // m grants are out of reach: give back what we got and try again later.
                    let (hold_ms, got) = (*hold_ms, std::mem::take(grants));
                    self.release_all(ctx, got);
                    self.client = Client::BackingOff { hold_ms };
                    let (lo, hi) = (self.params.backoff_min_ms, self.params.backoff_max_ms);
                    let wait = ctx.rng().range_u64(lo, hi);
                    ctx.set_timer_ms(wait, Timer::Retry);
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::HoldDone => {
                assert_eq!(self.client, Client::Holding, "hold timer while not holding");
                self.client = Client::Idle;
                ctx.observe(Observation::CsExit { resource: 0 });
                // Release to every coordinator: the quorum variant also leaves their queues.
                self.release_all(ctx, 0..self.params.coordinators);
                if let Some(hold_ms) = self.backlog.pop_front() {
                    ctx.observe(Observation::CsRequest { resource: 0 });
                    self.ask(ctx, hold_ms);
                }
            }
            Timer::Retry => {
                if let Client::BackingOff { hold_ms } = self.client {
                    self.ask(ctx, hold_ms);
                }
            }
        }
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Acquire { hold_ms } = input;
        if self.client == Client::Idle {
            ctx.observe(Observation::CsRequest { resource: 0 });
            self.ask(ctx, hold_ms);
        } else {
            self.backlog.push_back(hold_ms);
        }
    }
}

/// `mutex.decentralized` (with [`Mode::Voting`]) and `mutex.quorum` (with [`Mode::Quorum`]).
#[derive(Clone, Copy, Debug)]
pub struct VotingSpec(pub Mode);

impl Spec for VotingSpec {
    type Node = Voting;
    type Params = Params;
    type Variant = Correct;

    fn name(&self) -> &'static str {
        match self.0 {
            Mode::Voting => "mutex.decentralized",
            Mode::Quorum => "mutex.quorum",
        }
    }
    fn summary(&self) -> &'static str {
        match self.0 {
            Mode::Voting => "decentralized voting (Lin et al.): m > n/2 of n coordinators grant or deny; denied requesters back off",
            Mode::Quorum => "quorum of seed 002: requests to all n coordinators, which queue; wait for m grants; release to all",
        }
    }
    fn source(&self) -> &'static str {
        match self.0 {
            Mode::Voting => "seed 000 §6.3.3; seed 001",
            Mode::Quorum => "seed 002 (Exclusão Mútua, quórum)",
        }
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["mutual_exclusion"]
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![FaultClass::Reordering, FaultClass::Pauses, FaultClass::ClockDrift],
            summary: "reliable links with any delay and reordering, slow processes, drifting clocks; coordinator crashes (amnesia) break safety with a computable probability",
            ..FaultModel::default()
        }
    }
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        setup.params = setup.params.clone().resolve(setup.nodes())?;
        Ok(())
    }
    fn node(&self, _: Correct, params: &Params, _id: NodeId) -> Voting {
        Voting::new(self.0, params.clone())
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::workload(rng, nodes, active_ms)
    }
    fn complete(
        &self,
        draft: sincro_harness::gen::Draft,
        opts: &sincro_harness::gen::GenOptions,
    ) -> sincro_harness::Scenario {
        super::complete(self, draft, opts)
    }
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        super::fifo_liveness_bound_ms(setup)
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, EventKind, Observation, Scenario, Verdict};

    fn contend(alg: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"algorithm": "{alg}", "nodes": 5, "seed": 9, "duration_ms": 2000,
                "network": {{"latency": {{"uniform": {{"min_ms": 1, "max_ms": 6}}}}}},
                "workload": [{{"at_ms": 10, "node": 1, "input": {{"acquire": {{"hold_ms": 20}}}}}},
                             {{"at_ms": 10, "node": 3, "input": {{"acquire": {{"hold_ms": 20}}}}}},
                             {{"at_ms": 11, "node": 4, "input": {{"acquire": {{"hold_ms": 20}}}}}}]}}"#
        ))
        .unwrap()
    }

    #[test]
    fn quorum_queues_can_deadlock() {
        // Three contenders, five queuing coordinators, m = 3: the requests reach the
        // coordinators in different orders, each contender holds some votes and waits for the
        // rest forever. Safety holds; nobody ever enters (why the notes' quorum needs more).
        let out = find("mutex.quorum")
            .unwrap()
            .run(&contend("mutex.quorum"), RunOptions::default())
            .unwrap();
        assert_eq!(out.verdict, Verdict::Pass);
        let entered = out.trace.unwrap().events().iter().any(|e| {
            matches!(
                e.kind,
                EventKind::Observe {
                    obs: Observation::CsEnter { .. }
                }
            )
        });
        assert!(!entered, "this schedule deadlocks the quorum variant");
        // ...and the no-deadlock checker, run offline over the trace, says so
        let trace = find("mutex.quorum")
            .unwrap()
            .run(&contend("mutex.quorum"), RunOptions::default())
            .unwrap()
            .trace
            .unwrap();
        let mut checkers: Vec<Box<dyn sincro_harness::Checker>> =
            vec![Box::new(sincro_checkers::NoDeadlock::new(0, 500))];
        let v =
            sincro_harness::check::check_trace(&trace, 2_000_000_000, &mut checkers).unwrap_err();
        assert_eq!(v.property, "no_deadlock");
        // while the decentralized variant's denials and back-offs let everyone through here
        let ok = find("mutex.decentralized")
            .unwrap()
            .run(&contend("mutex.decentralized"), RunOptions::default())
            .unwrap();
        let mut checkers: Vec<Box<dyn sincro_harness::Checker>> =
            vec![Box::new(sincro_checkers::NoDeadlock::new(0, 500))];
        sincro_harness::check::check_trace(&ok.trace.unwrap(), 2_000_000_000, &mut checkers)
            .unwrap();
    }

    /// A back-off of nothing is refused (denied requesters retried at once and nobody ever
    /// entered); 1 ms runs.
    #[test]
    fn a_zero_back_off_is_refused() {
        let alg = find("mutex.decentralized").unwrap();
        let with = |max: u64| {
            let mut v: serde_json::Value =
                serde_json::to_value(contend("mutex.decentralized")).unwrap();
            v["params"] = serde_json::json!({"backoff_min_ms": 0, "backoff_max_ms": max});
            Scenario::from_json(&v.to_string()).unwrap()
        };
        let e = alg.run(&with(0), RunOptions::default()).unwrap_err().0;
        assert!(e.contains("backoff_max_ms = 0"), "{e}");
        assert!(alg.run(&with(1), RunOptions::default()).is_ok());
    }

    #[test]
    fn voting_contenders_all_get_in_one_at_a_time() {
        let alg = "mutex.decentralized";
        let out = find(alg)
            .unwrap()
            .run(&contend(alg), RunOptions::default())
            .unwrap();
        assert_eq!(out.verdict, Verdict::Pass, "{alg}");
        let mut enters: Vec<_> = out
            .trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Observe {
                        obs: Observation::CsEnter { .. }
                    }
                )
            })
            .map(|e| e.node.unwrap())
            .collect();
        enters.sort();
        assert_eq!(enters, vec![1, 3, 4], "{alg}: everyone entered once");
    }

    #[test]
    fn bad_quorum_sizes_are_rejected() {
        let mut sc = contend("mutex.decentralized");
        sc.params = serde_json::json!({"m": 2});
        let e = find("mutex.decentralized")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap_err();
        assert!(e.0.contains("must be a majority"), "{e}");
    }

    #[test]
    fn deterministic_on_both_engines_and_in_model_fuzzing_passes() {
        for name in ["mutex.decentralized", "mutex.quorum"] {
            assert_replays_exactly(name, &["correct"], 4);
            assert_in_model_passes(name, "correct", 200, EngineKind::Native);
        }
    }

    #[test]
    fn voting_does_not_bound_waiting_the_token_ring_does() {
        // The text's "starvation": under contention a denied process backs off while others
        // get in again and again. The bounded-waiting checker (k = n - 1), run offline over
        // generated runs, finds such a run; the token ring, which promises it, passes.
        use sincro_harness::gen::GenOptions;
        let alg = find("mutex.decentralized").unwrap();
        let starved = (0..300).find(|&seed| {
            let sc = alg.generate("correct", seed, &GenOptions::default());
            let trace = alg.run(&sc, RunOptions::default()).unwrap().trace.unwrap();
            let mut checkers: Vec<Box<dyn sincro_harness::Checker>> =
                vec![Box::new(sincro_checkers::BoundedWaiting::new(sc.nodes - 1))];
            sincro_harness::check::check_trace(&trace, sc.duration_ms * 1_000_000, &mut checkers)
                .is_err()
        });
        assert!(starved.is_some(), "no overtaken request in 300 seeds");
    }
}
