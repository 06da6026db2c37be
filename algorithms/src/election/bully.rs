//! The bully election algorithm (Garcia-Molina, 1982).
//!
//! **Algorithm** (Tanenbaum & van Steen §6.5.1, seed `000`, Fig. 6.19; seed `002`, "Algoritmo
//! do Brigão"): a process that notices the coordinator is gone (a workload `probe` it sends the
//! coordinator goes unanswered) reports that it knows no leader and starts an election: it
//! sends ELECTION to every higher-numbered process and waits `answer_timeout_ms` for an OK. A
//! process that receives ELECTION from a lower one answers OK ("I am alive and take over") and
//! starts an election of its own unless it is already in one (or re-announces itself if it is
//! the coordinator). A process that gets an OK waits for the winner's COORDINATOR; if none comes
//! in time it starts again. A process that gets no OK has won: it announces COORDINATOR to
//! everybody. A process that recovers from a crash starts an election, so the highest live
//! process always ends up coordinator ("o indivíduo mais poderoso da cidade sempre ganha").
//!
//! **Taking power safely**: as in Garcia-Molina's paper (the text's "quando estiver pronto para
//! tomar o poder"), the winner believes itself coordinator only once the others have answered
//! its COORDINATOR (ACK: "I follow you") or the announcement timeout has passed: a process that
//! knows a better live candidate answers NACK and the announcement is abandoned. Without this
//! phase a recovered highest process would lead while the previous coordinator still does
//! (until the announcement reaches it), two coordinators at the same global time. A process
//! that receives COORDINATOR from a lower process than the coordinator it knows first probes
//! that coordinator: it follows the candidate (ACK) if the coordinator is silent, and answers
//! NACK if it is alive (a stale announcement that raced with a recovered coordinator's). It
//! keeps the coordinator it knows through an election of its own that a lower process's
//! ELECTION started, so the rule holds there too (`corpus/election/bully-stability-seed835.json`).
//!
//! **Fault model**: a synchronous system — every delay is below the latency bound the timeouts
//! are derived from — with crashes and restarts (amnesia), reordering and drifting clocks. No
//! loss, pauses, clock jumps or partitions: any of them makes a live process look dead. Under a
//! partition each side elects its own coordinator: split brain (seed `002`, "Split-brain"),
//! which fuzzing beyond the model finds.
//!
//! **Promises**: `leader_uniqueness`, `leader_agreement`, `election_termination`,
//! `leader_validity` (the highest live id), `leader_stability`.
//!
//! **Variant `short-timeout`** (buggy, seed `002`): "se o tempo esperado por um candidato antes
//! de se declarar líder for muito curto, mais de um processo pode se declarar líder" — the
//! candidate waits 1 ms (less than any round trip) for an OK and declares itself as soon as it
//! announces; a higher live process does the same a moment later: two coordinators.

use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_checkers::election::validity::RankPolicy;
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Checker, Ctx, NodeId, Observation, Process, SimRng, TimerId};
use std::collections::BTreeSet;

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// "I call an election": sent to every higher process.
    Election,
    /// Answer to ELECTION from a higher process: "I am alive and take over".
    Ok,
    /// "I am the new coordinator".
    Coordinator,
    /// "I follow you" (answer to COORDINATOR).
    Ack,
    /// "I know a better live candidate" (answer to COORDINATOR): the announcement is abandoned.
    Nack,
    /// "Are you alive (and coordinator)?"
    Probe,
    /// "Yes": answer to a probe from the coordinator.
    Alive,
}

/// Timers (each tagged with the round it belongs to; stale ones are ignored).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// No OK arrived from a higher process.
    Answer {
        /// Round.
        round: u64,
    },
    /// An OK arrived but no COORDINATOR followed.
    Coordinator {
        /// Round.
        round: u64,
    },
    /// End of the announcement: take power unless someone said NACK.
    Announce {
        /// Round.
        round: u64,
    },
    /// The coordinator did not answer a probe.
    Probe,
}

/// Workload commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// Check that the coordinator is alive (an election starts if it does not answer): the
    /// text's "quando qualquer processo nota que o coordenador não está mais respondendo".
    Probe,
}

/// Parameters (`params` in the scenario).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// How long a candidate waits for an OK, local ms (0: derived from the latencies).
    #[serde(default)]
    pub answer_timeout_ms: u64,
    /// The coordinator every process knows at the start (default: the highest id).
    #[serde(default)]
    pub initial_leader: Option<NodeId>,
    /// The scenario's largest latency, ms, the timeouts come from: not a scenario parameter,
    /// [`BullySpec`]'s `prepare` sets it.
    #[serde(skip)]
    pub max_latency_ms: u64,
    /// The scenario's drift bound, ppm, the timeouts are lengthened for (a fast clock counts
    /// a round trip as more of its own ms): set by `prepare` as `max_latency_ms` is.
    #[serde(skip)]
    pub drift_ppm_max: u32,
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "Garcia-Molina's algorithm, taking power after the announcement is answered";
        ShortTimeout = "short-timeout" (buggy), "the candidate waits 1 ms for an OK and declares itself at once: two coordinators (seed 002)";
    }
}

/// Timeouts, local ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Wait for an OK.
    pub answer_ms: u64,
    /// Wait for the COORDINATOR after an OK.
    pub coordinator_ms: u64,
    /// Announcement: wait for ACK/NACK.
    pub announce_ms: u64,
    /// Wait for a probe's answer.
    pub probe_ms: u64,
}

impl Timeouts {
    /// [`Timeouts::for_latency`] lengthened for clocks fast by up to `drift_ppm`
    /// ([`for_fast_clocks_ms`](crate::spec::for_fast_clocks_ms)), with `answer_timeout_ms`
    /// as the answer timeout when it is set (not 0): the nodes and the liveness bound use the
    /// same timeouts.
    pub fn with_answer(max_latency_ms: u64, answer_timeout_ms: u64, drift_ppm: u32) -> Self {
        let fast = |ms| crate::spec::for_fast_clocks_ms(ms, drift_ppm);
        let t = Self::for_latency(max_latency_ms);
        let mut t = Timeouts {
            answer_ms: fast(t.answer_ms),
            coordinator_ms: fast(t.coordinator_ms),
            announce_ms: fast(t.announce_ms),
            probe_ms: fast(t.probe_ms),
        };
        if answer_timeout_ms > 0 {
            t.answer_ms = answer_timeout_ms;
        }
        t
    }

    /// Timeouts for links whose delays are at most `max_latency_ms`.
    pub fn for_latency(max_latency_ms: u64) -> Self {
        let rtt = 2 * (max_latency_ms + 1) + 2;
        // The announcement leaves time for a process to probe the coordinator it knows before
        // answering (a round trip to the candidate plus one to that coordinator).
        let announce_ms = 2 * rtt + 2;
        Timeouts {
            answer_ms: rtt,
            announce_ms,
            probe_ms: rtt,
            coordinator_ms: rtt + announce_ms + rtt,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Not in an election.
    Idle,
    /// Sent ELECTION, waiting for an OK.
    Electing,
    /// Got an OK, waiting for the COORDINATOR.
    Waiting,
    /// Won, announced, waiting for the answers.
    Announcing { acks: BTreeSet<NodeId> },
}

/// One process.
#[derive(Debug)]
pub struct Bully {
    variant: Variant,
    t: Timeouts,
    initial_leader: Option<NodeId>,
    leader: Option<NodeId>,
    reported: Option<Option<NodeId>>,
    phase: Phase,
    round: u64,
    probe: Option<(NodeId, TimerId)>,
    /// A lower candidate whose COORDINATOR waits for the probe of the coordinator we know.
    deferred: Option<NodeId>,
}

impl Bully {
    /// A process with timeouts `t` (the answer timeout is overridden to 1 ms by the
    /// `short-timeout` variant). `initial_leader`: the coordinator known at start (default: the
    /// highest id).
    pub fn new(variant: Variant, t: Timeouts, initial_leader: Option<NodeId>) -> Self {
        let mut t = t;
        if variant == Variant::ShortTimeout {
            t.answer_ms = 1;
        }
        Bully {
            variant,
            t,
            initial_leader,
            leader: None,
            reported: None,
            phase: Phase::Idle,
            round: 0,
            probe: None,
            deferred: None,
        }
    }

    /// Reports the current belief if it changed.
    fn report(&mut self, ctx: &mut Ctx<'_, Self>) {
        if self.reported != Some(self.leader) {
            self.reported = Some(self.leader);
            ctx.observe(Observation::Leader {
                leader: self.leader,
                term: 0,
            });
        }
    }

    fn cancel_probe(&mut self, ctx: &mut Ctx<'_, Self>) {
        if let Some((_, id)) = self.probe.take() {
            ctx.cancel_timer(id);
        }
    }

    /// Sends ELECTION to every higher process. The leader this process follows, if any, is kept
    /// (the caller reports "no leader" where it lost it): an election that a lower process's
    /// ELECTION started does not make a live coordinator's lower rival acceptable without a
    /// probe (seed 835 of stop 27: a process dropped the live leader it had just adopted and
    /// followed the lower process whose announcement came next).
    fn start_election(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.round += 1;
        self.cancel_probe(ctx);
        let me = ctx.id();
        let higher: Vec<NodeId> = (me + 1..ctx.nodes()).collect();
        if higher.is_empty() {
            self.announce(ctx);
            return;
        }
        for to in higher {
            ctx.send(to, Msg::Election);
        }
        self.phase = Phase::Electing;
        ctx.set_timer_ms(self.t.answer_ms, Timer::Answer { round: self.round });
    }

    fn announce(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.round += 1;
        self.phase = Phase::Announcing {
            acks: BTreeSet::new(),
        };
        let me = ctx.id();
        for to in (0..ctx.nodes()).filter(|&p| p != me) {
            ctx.send(to, Msg::Coordinator);
        }
        if self.variant == Variant::ShortTimeout || ctx.nodes() == 1 {
            self.take_power(ctx);
        } else {
            ctx.set_timer_ms(self.t.announce_ms, Timer::Announce { round: self.round });
        }
    }

    fn take_power(&mut self, ctx: &mut Ctx<'_, Self>) {
        self.round += 1;
        self.phase = Phase::Idle;
        self.leader = Some(ctx.id());
        self.report(ctx);
    }

    fn follow(&mut self, ctx: &mut Ctx<'_, Self>, c: NodeId) {
        self.round += 1;
        self.cancel_probe(ctx);
        if let Some(d) = self.deferred.take().filter(|&d| d != c) {
            ctx.send(d, Msg::Nack);
        }
        self.phase = Phase::Idle;
        self.leader = Some(c);
        self.report(ctx);
    }

    fn probe(&mut self, ctx: &mut Ctx<'_, Self>, l: NodeId) {
        if self.probe.is_none() {
            ctx.send(l, Msg::Probe);
            let id = ctx.set_timer_ms(self.t.probe_ms, Timer::Probe);
            self.probe = Some((l, id));
        }
    }
}

impl Process for Bully {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    /// Whether this process ran before: a process that comes back after a crash calls an
    /// election.
    type Stable = bool;

    fn on_start(&mut self, ctx: &mut Ctx<'_, Self>) {
        if *ctx.stable() {
            // "Se um processo que antes estava inativo voltar, convoca uma eleição."
            self.leader = None;
            self.report(ctx);
            self.start_election(ctx);
        } else {
            *ctx.stable_mut() = true;
            self.leader = Some(self.initial_leader.unwrap_or(ctx.nodes() - 1));
            self.report(ctx);
        }
    }

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        let me = ctx.id();
        match msg {
            Msg::Election if from < me => {
                ctx.send(from, Msg::Ok);
                match self.phase {
                    Phase::Idle if self.leader == Some(me) => ctx.send(from, Msg::Coordinator),
                    Phase::Idle => self.start_election(ctx),
                    Phase::Announcing { .. } => ctx.send(from, Msg::Coordinator),
                    Phase::Electing | Phase::Waiting => {}
                }
            }
            Msg::Ok if from > me && self.phase == Phase::Electing => {
                self.phase = Phase::Waiting;
                ctx.set_timer_ms(
                    self.t.coordinator_ms,
                    Timer::Coordinator { round: self.round },
                );
            }
            Msg::Coordinator => {
                let current = match self.phase {
                    Phase::Announcing { .. } => Some(me),
                    _ => self.leader,
                };
                if from > me && current.is_none_or(|l| from >= l) {
                    self.follow(ctx, from);
                    ctx.send(from, Msg::Ack);
                } else if from < me {
                    // A lower process cannot lead while I live.
                    ctx.send(from, Msg::Nack);
                    match self.phase {
                        Phase::Idle if self.leader == Some(me) => ctx.send(from, Msg::Coordinator),
                        Phase::Idle => self.start_election(ctx),
                        _ => {}
                    }
                } else if let Some(l) = self.leader.filter(|&l| l != me) {
                    // me < from < the leader I know: follow the candidate only if that leader
                    // is gone (answer once the probe tells).
                    if let Some(d) = self.deferred.replace(from).filter(|&d| d != from) {
                        ctx.send(d, Msg::Nack);
                    }
                    self.probe(ctx, l);
                }
            }
            Msg::Ack => {
                if let Phase::Announcing { acks } = &mut self.phase {
                    acks.insert(from);
                    if acks.len() + 1 == ctx.nodes() {
                        self.take_power(ctx);
                    }
                }
            }
            Msg::Nack => {
                if matches!(self.phase, Phase::Announcing { .. }) {
                    self.start_election(ctx);
                }
            }
            Msg::Probe => {
                if self.leader == Some(me) || matches!(self.phase, Phase::Announcing { .. }) {
                    ctx.send(from, Msg::Alive);
                }
            }
            Msg::Alive => {
                if self.probe.is_some_and(|(l, _)| l == from) {
                    self.cancel_probe(ctx);
                    if let Some(d) = self.deferred.take() {
                        ctx.send(d, Msg::Nack);
                    }
                }
            }
            // ELECTION from a higher process, or an OK we no longer wait for.
            Msg::Election | Msg::Ok => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::Answer { round } if round == self.round && self.phase == Phase::Electing => {
                self.announce(ctx);
            }
            Timer::Coordinator { round } if round == self.round && self.phase == Phase::Waiting => {
                self.start_election(ctx);
            }
            Timer::Announce { round }
                if round == self.round && matches!(self.phase, Phase::Announcing { .. }) =>
            {
                self.take_power(ctx);
            }
            Timer::Probe => {
                let Some((l, _)) = self.probe.take() else {
                    return;
                };
                if let Some(d) = self.deferred.take() {
                    // The coordinator we knew is gone: follow the candidate.
                    self.follow(ctx, d);
                    ctx.send(d, Msg::Ack);
                    return;
                }
                if self.phase == Phase::Idle && self.leader == Some(l) {
                    // The coordinator is gone: no leader known, call an election.
                    self.leader = None;
                    self.report(ctx);
                    self.start_election(ctx);
                }
            }
            Timer::Answer { .. } | Timer::Coordinator { .. } | Timer::Announce { .. } => {}
        }
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Probe = input;
        if self.phase != Phase::Idle {
            return;
        }
        match self.leader {
            None => {
                self.report(ctx);
                self.start_election(ctx);
            }
            Some(l) if l == ctx.id() => {}
            Some(l) => self.probe(ctx, l),
        }
    }
}

/// `election.bully`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct BullySpec;

impl Spec for BullySpec {
    type Node = Bully;
    type Params = Params;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "election.bully"
    }
    fn summary(&self) -> &'static str {
        "bully (Garcia-Molina): ELECTION / OK / COORDINATOR, the highest live id wins; a recovered process calls an election"
    }
    fn source(&self) -> &'static str {
        "seed 000 §6.5.1 (Fig. 6.19); seed 002 \"Eleição de Líderes\" (Algoritmo do Brigão, split-brain)"
    }
    fn properties(&self) -> Vec<&'static str> {
        super::ELECTION_PROPERTIES.to_vec()
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![
                FaultClass::Reordering,
                FaultClass::Duplication,
                FaultClass::Crashes,
                FaultClass::ClockDrift,
            ],
            summary: "synchronous: delays below the bound the timeouts come from, crashes with restart, duplication, reordering, drifting clocks; no loss, pauses, clock jumps or partitions (a live process would look dead: split brain)",
            ..FaultModel::default()
        }
    }
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        super::check_initial_leader(setup, setup.params.initial_leader)?;
        setup.params.max_latency_ms = setup.max_latency_ms();
        setup.params.drift_ppm_max = setup.drift_ppm_max();
        // An OK takes a round trip to come back: a shorter wait is the `short-timeout` bug
        // (a candidate declares itself over a live higher process) run under another name,
        // as the token ring's ack and Ricart–Agrawala's retry are refused.
        let answer = setup.params.answer_timeout_ms;
        let rtt = setup.for_fast_clocks_ms(2 * setup.params.max_latency_ms);
        if answer > 0 && answer <= rtt {
            return Err(format!(
                "params.answer_timeout_ms = {answer} must exceed a round trip of the links \
                 (2 × {} ms{}): a candidate would declare itself before a live higher \
                 process's OK could arrive (0 derives it from the latencies)",
                setup.params.max_latency_ms,
                match setup.drift_ppm_max() {
                    0 => String::new(),
                    ppm => format!("; {rtt} ms with clocks drifting up to {ppm} ppm"),
                }
            ));
        }
        Ok(())
    }
    /// Timeouts for the scenario's latencies; `answer_timeout_ms`, when set, wins.
    fn node(&self, variant: Variant, params: &Params, _id: NodeId) -> Bully {
        let t = Timeouts::with_answer(
            params.max_latency_ms,
            params.answer_timeout_ms,
            params.drift_ppm_max,
        );
        Bully::new(variant, t, params.initial_leader)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::probe_workload(rng, nodes, active_ms)
    }
    /// After the faults stop: a probe, then at most a few rounds of election, announcement and
    /// the wait for the coordinator (a NACK from a process with a stale coordinator costs one
    /// more round).
    /// Four election rounds of the timeouts the nodes use (`answer_timeout_ms` included).
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        let lat = setup.max_latency_ms();
        let t = Timeouts::with_answer(lat, setup.params.answer_timeout_ms, setup.drift_ppm_max());
        let round = t.probe_ms + t.answer_ms + t.announce_ms + t.coordinator_ms;
        4 * round + 10 * (lat + 1)
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
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::{EngineKind, Outcome, Scenario, Verdict};

    /// A long `answer_timeout_ms` lengthens the liveness bound as it lengthens the election:
    /// Fig. 6.19 with a 600 ms answer timeout settles on 6 by about 650 ms, past the bound of
    /// the default timeouts (524 ms after the crash), and passes.
    #[test]
    fn the_liveness_bound_follows_the_answer_timeout() {
        let json = |answer: u64| {
            let mut v: serde_json::Value =
                serde_json::from_str(include_str!("../../../corpus/election/bully-fig-6-19.json"))
                    .unwrap();
            v["duration_ms"] = 3000.into();
            v["params"] = serde_json::json!({ "answer_timeout_ms": answer });
            v.to_string()
        };
        let alg = find("election.bully").unwrap();
        let bound = |answer| alg.liveness_bound_ms(&Scenario::from_json(&json(answer)).unwrap());
        assert!(
            bound(600) > bound(0) + 4 * 500,
            "{} {}",
            bound(600),
            bound(0)
        );
        let out = run(&json(600));
        assert_eq!(out.verdict, Verdict::Pass, "{:?}", out.verdict);
        assert_eq!(&final_leaders(&out, 8)[..7], &[Some(6); 7]);
    }

    /// An answer timeout no longer than a round trip is refused (1 ms over links of up to
    /// 2 ms made the correct variant declare two leaders with a live one, as `short-timeout`
    /// does); one above it runs.
    #[test]
    fn an_answer_timeout_within_a_round_trip_is_refused() {
        let json = |answer: u64| {
            let mut v: serde_json::Value =
                serde_json::from_str(include_str!("../../../corpus/election/bully-fig-6-19.json"))
                    .unwrap();
            v["network"] = serde_json::json!({"latency": {"constant": {"ms": 2}}});
            v["params"] = serde_json::json!({ "answer_timeout_ms": answer });
            Scenario::from_json(&v.to_string()).unwrap()
        };
        let alg = find("election.bully").unwrap();
        for answer in [1, 4] {
            let e = alg.run(&json(answer), RunOptions::default()).unwrap_err().0;
            assert!(e.contains("must exceed a round trip of the links"), "{e}");
        }
        assert!(alg.run(&json(5), RunOptions::default()).is_ok());
    }

    fn run(json: &str) -> Outcome {
        let sc = Scenario::from_json(json).unwrap();
        find("election.bully")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap()
    }

    #[test]
    fn fig_6_19_four_notices_and_six_wins() {
        let out = run(
            r#"{"algorithm": "election.bully", "nodes": 8, "seed": 1, "duration_ms": 600,
                "network": {"latency": {"constant": {"ms": 5}}},
                "faults": [{"at_ms": 5, "fault": {"crash": {"node": 7}}}],
                "workload": [{"at_ms": 10, "node": 4, "input": "probe"}]}"#,
        );
        assert_eq!(out.verdict, Verdict::Pass);
        let leaders = final_leaders(&out, 8);
        assert_eq!(&leaders[..7], &[Some(6); 7]);
        let s = sends(&out);
        let elections = |from| -> Vec<usize> {
            s.iter()
                .filter(|(f, _, m)| *f == from && m == "Election")
                .map(|(_, t, _)| *t)
                .collect()
        };
        // (a) 4 calls an election at 5, 6, 7; (c) 5 and 6 call their own, to the higher ones
        assert_eq!(elections(4), vec![5, 6, 7]);
        assert_eq!(elections(5), vec![6, 7]);
        assert_eq!(elections(6), vec![7]);
        // (b) 5 and 6 answer 4; (d) 6 answers 5
        let oks: Vec<(usize, usize)> = s
            .iter()
            .filter(|(_, _, m)| m == "Ok")
            .map(|(f, t, _)| (*f, *t))
            .collect();
        assert_eq!(oks, vec![(5, 4), (6, 4), (6, 5)]);
        // (e) only 6 announces
        assert!(s
            .iter()
            .filter(|(_, _, m)| m == "Coordinator")
            .all(|(f, _, _)| *f == 6));
    }

    #[test]
    fn a_too_short_candidate_timeout_makes_two_coordinators() {
        let sc = |variant: &str| {
            format!(
                r#"{{"algorithm": "election.bully", "variant": "{variant}", "nodes": 3, "seed": 1,
                    "duration_ms": 400, "network": {{"latency": {{"constant": {{"ms": 3}}}}}},
                    "faults": [{{"at_ms": 10, "fault": {{"crash": {{"node": 0}}}}}},
                               {{"at_ms": 20, "fault": {{"restart": {{"node": 0}}}}}}]}}"#
            )
        };
        let bad = run(&sc("short-timeout"));
        match &bad.verdict {
            Verdict::Violation(v) => {
                assert_eq!(v.property, "leader_uniqueness");
                assert!(v.explanation.contains("restart n0"), "{}", v.explanation);
            }
            other => panic!("expected split brain, got {other}"),
        }
        let good = run(&sc("correct"));
        assert_eq!(good.verdict, Verdict::Pass);
        assert_eq!(final_leaders(&good, 3), vec![Some(2); 3]);
    }

    #[test]
    fn a_partition_splits_the_brain_outside_the_model() {
        let out = run(
            r#"{"algorithm": "election.bully", "nodes": 5, "seed": 1, "duration_ms": 200,
                "network": {"latency": {"constant": {"ms": 5}}},
                "faults": [{"at_ms": 50, "fault": {"partition": {"groups": [[0, 1, 2], [3, 4]]}}}],
                "workload": [{"at_ms": 60, "node": 2, "input": "probe"}]}"#,
        );
        match &out.verdict {
            Verdict::Violation(v) => {
                assert_eq!(v.property, "leader_uniqueness");
                assert!(
                    v.explanation.contains("node 2") && v.explanation.contains("node 4"),
                    "{}",
                    v.explanation
                );
                assert!(v.explanation.contains("partition"), "{}", v.explanation);
            }
            other => panic!("expected split brain, got {other}"),
        }
    }

    #[test]
    fn the_recovered_highest_process_takes_over_without_two_coordinators() {
        let out = run(
            r#"{"algorithm": "election.bully", "nodes": 4, "seed": 1, "duration_ms": 1900,
                "network": {"latency": {"uniform": {"min_ms": 1, "max_ms": 20}}},
                "faults": [{"at_ms": 5, "fault": {"crash": {"node": 3}}},
                           {"at_ms": 200, "fault": {"restart": {"node": 3}}}],
                "workload": [{"at_ms": 10, "node": 0, "input": "probe"}]}"#,
        );
        assert_eq!(out.verdict, Verdict::Pass);
        assert_eq!(final_leaders(&out, 4), vec![Some(3); 4]);
    }

    #[test]
    fn bad_params_are_reported() {
        let sc = Scenario::from_json(
            r#"{"algorithm": "election.bully", "nodes": 3, "seed": 1, "duration_ms": 10,
                "params": {"initial_leader": 3}}"#,
        )
        .unwrap();
        let e = find("election.bully")
            .unwrap()
            .run(&sc, RunOptions::default())
            .unwrap_err();
        assert!(e.0.contains("initial_leader = 3"), "{e}");
    }

    #[test]
    fn deterministic_and_fuzzing_separates_the_variants() {
        assert_replays_exactly("election.bully", &["correct", "short-timeout"], 3);
        assert!(
            first_failing_seed("election.bully", "short-timeout", 50, EngineKind::Native).is_some()
        );
        assert_in_model_passes("election.bully", "correct", 300, EngineKind::Native);
    }
}
