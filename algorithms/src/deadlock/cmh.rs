//! Chandy–Misra–Haas distributed deadlock detection by probe messages, over a resource-locking
//! workload.
//!
//! **Workload** (the wait-for graph it builds): every node owns one resource (resource `r` is
//! owned by node `r`) and is also a process that runs lock jobs. A job `lock { resources,
//! hold_ms }` asks for its resources one at a time, in the order given, keeping what it got
//! (hold and wait, no preemption), then holds them all for `hold_ms` and releases them. A
//! request goes to the resource's owner, which grants it when the resource is free and queues
//! it (FIFO) otherwise, telling the waiter who holds the resource (`Queued { holder, grant }`,
//! again whenever the holder changes). A process that waits is blocked: it waits for exactly
//! one other process, so the wait-for graph has out-degree at most one. Random orders of the
//! resources create circular waits: deadlocks. The owner reports the ground-truth edges
//! (`wait_for` / `wait_end` observations) for the checkers; the algorithm never reads them.
//!
//! **Algorithm** (seed `003` §4.4, "Algoritmo de detecção distribuída"): when a process has to
//! wait for a resource used by another process, it sends a probe message to the holder with
//! three parts: the number of the process that blocks (the initiator), of the sender and of the
//! receiver. A process that receives a probe and is itself waiting for a resource held by
//! another process forwards it, keeping the initiator and replacing sender and receiver with
//! itself and the process it waits for. If the probe comes back to its initiator, there is a
//! cycle: the initiator declares a deadlock (`deadlock_detected`). Every process sends a fresh
//! probe whenever it learns who it waits for (when it blocks, and when the holder changes).
//! The text sends the probe to *every* holder a process waits for ("Se está bloqueado devido a
//! diversos processos, então a mensagem é enviada para todos"); here a process waits for one
//! resource at a time (the workload above), so it has one holder, and the probe goes to it
//! alone: the many-holders rule is not implemented, and no workload here would exercise it.
//!
//! What makes it sound — the condition of Chandy, Misra and Haas that "k has not yet replied to
//! all requests of j", which the seed text leaves implicit: a probe travels along a wait-for
//! edge `j -> k`, and the edge may have ended while the probe was in flight. So the probe also
//! names the edge: the resource `j` waits for and the owner's grant number of `k`'s tenure (a
//! per-resource counter). `k` forwards it only if it still holds that resource under that very
//! grant (then `j` has been waiting for `k` ever since); the initiator accepts its probe only
//! if it still holds the resource under that grant and is still blocked in the episode in which
//! it sent the probe. Each process forwards a given probe at most once per blocked episode (the
//! text's probe would otherwise circle forever in a cycle that does not contain its
//! initiator). Messages carry grant numbers, so a stale `Queued` that arrives late (reordering)
//! never overrides newer news.
//!
//! **Fault model**: reliable channels (no loss, duplication or partition: a lost grant or
//! probe loses a detection, a lost release is itself a deadlock) with any delay and reordering,
//! slow processes (pauses), drifting clocks (only hold times use clocks). No crashes: a crashed
//! holder never releases. No resolution: a detected deadlock stays (victim abort is not done).
//!
//! **Promises**: `deadlock_soundness` (every reported deadlock is a cycle of the ground-truth
//! wait-for graph at the time of the report, through the reporter) and `deadlock_completeness`
//! (every cycle that persists is reported by one of its members within a bound after it forms).
//!
//! **Variant `stale-edge`** (buggy): the seed text taken literally: a receiver forwards a probe
//! whenever it is blocked, and the initiator declares a deadlock whenever it is blocked, without
//! checking that the edge the probe came along still exists. A probe in flight when its edge
//! ended (the holder released, and later blocked on the former waiter) reports a phantom
//! deadlock.
//!
//! **Variant `forward-once`** (buggy): the guard against probes circling for ever, misread.
//! The seed text only stops a probe when it comes back to its initiator, so a probe that enters
//! a cycle without its initiator would go round for ever; Chandy, Misra and Haas stop it with a
//! flag *per initiator* (`dependent_k(i)`: `k` forwards a probe of initiator `i` only the first
//! time it sees one). This variant keeps a single flag per blocked episode ("already forwarded
//! a probe"): a blocked process forwards the first probe it receives and drops every later one,
//! whoever started it. That is sound (fewer probes cannot invent a cycle) but incomplete: when
//! a process forwarded an earlier probe (of a process waiting on the cycle, or of a member that
//! blocked before the cycle closed, whose probe died at a member not yet blocked), the closing
//! probe of the last member to block is dropped there, and a real deadlock is never reported.

use crate::spec::{Setup, Spec, Timed};
use serde::{Deserialize, Serialize};
use sincro_harness::fault::{FaultClass, FaultModel};
use sincro_harness::{Ctx, NodeId, Observation, Process, SimRng};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Msg {
    /// Process -> owner: asks for the owner's resource.
    Request,
    /// Owner -> process: the resource is yours, under grant number `grant`.
    Grant {
        /// The owner's grant counter for this tenure.
        grant: u64,
    },
    /// Owner -> waiting process: you are queued; `holder` holds the resource under `grant`.
    Queued {
        /// Current holder.
        holder: NodeId,
        /// Its grant number.
        grant: u64,
    },
    /// Process -> owner: gives back the resource held under `grant`.
    Release {
        /// The grant being released.
        grant: u64,
    },
    /// A probe `(initiator, sender, receiver)`, sent along the edge `sender -> receiver`,
    /// which exists while `receiver` holds `resource` under `grant` and `sender` waits for it.
    Probe {
        /// The blocked process that started the probe.
        initiator: NodeId,
        /// The initiator's probe number (unique per initiator).
        seq: u64,
        /// Who sends it (waits for `receiver`).
        sender: NodeId,
        /// Who receives it (holds what `sender` waits for).
        receiver: NodeId,
        /// The resource `sender` waits for.
        resource: NodeId,
        /// `receiver`'s grant number for it, as `sender` knows it.
        grant: u64,
    },
}

/// Timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The job has held all its resources for its `hold_ms`.
    HoldDone,
}

/// Workload commands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Input {
    /// Lock `resources` one at a time, in this order, hold them all `hold_ms`, release them.
    Lock {
        /// Resource ids (= owner node ids), in request order.
        resources: Vec<NodeId>,
        /// Time holding them all, local ms.
        hold_ms: u64,
    },
}

crate::variants! {
    /// Which behaviour.
    pub enum Variant {
        Correct = "correct", "probes name the edge they travel (resource, grant); stale edges and episodes are discarded";
        StaleEdge = "stale-edge" (buggy), "the text taken literally: forward and accept whenever blocked, even along an edge that already ended";
        ForwardOnce = "forward-once" (buggy), "CMH's per-initiator flag dependent_k(i) read as one flag: a blocked process forwards only the first probe it gets, so a cycle's closing probe can be dropped";
    }
}

/// The owner's side: one resource.
#[derive(Clone, Debug, Default)]
struct Resource {
    /// Holder and its grant number.
    holder: Option<(NodeId, u64)>,
    /// Waiting processes, FIFO.
    queue: VecDeque<NodeId>,
    /// Grants given so far.
    grants: u64,
}

/// A lock job in progress.
#[derive(Clone, Debug)]
struct Job {
    resources: Vec<NodeId>,
    hold_ms: u64,
    /// Index of the next resource to ask for.
    next: usize,
    /// Held: resource -> grant.
    held: BTreeMap<NodeId, u64>,
}

/// Blocked on one resource.
#[derive(Clone, Debug)]
struct Blocked {
    resource: NodeId,
    /// Who holds it and under which grant, as the owner last told us.
    holder: Option<(NodeId, u64)>,
    /// Blocked-episode number.
    episode: u64,
    /// Probes already forwarded in this episode: (initiator, seq).
    forwarded: BTreeSet<(NodeId, u64)>,
}

/// One node: a resource owner and a process running lock jobs.
#[derive(Debug)]
pub struct Cmh {
    variant: Variant,
    resource: Resource,
    job: Option<Job>,
    backlog: VecDeque<(Vec<NodeId>, u64)>,
    blocked: Option<Blocked>,
    episodes: u64,
    /// Probes this node started: seq -> blocked episode.
    probes: BTreeMap<u64, u64>,
    next_seq: u64,
}

impl Cmh {
    /// A fresh node.
    pub fn new(variant: Variant) -> Self {
        Cmh {
            variant,
            resource: Resource::default(),
            job: None,
            backlog: VecDeque::new(),
            blocked: None,
            episodes: 0,
            probes: BTreeMap::new(),
            next_seq: 0,
        }
    }

    /// Starts the next job of the backlog if idle.
    fn start_next(&mut self, ctx: &mut Ctx<'_, Self>) {
        if self.job.is_some() {
            return;
        }
        let Some((mut resources, hold_ms)) = self.backlog.pop_front() else {
            return;
        };
        // A resource asked for twice, or one that does not exist, is skipped ([`CmhSpec`]
        // rejects such workloads up front).
        let n = ctx.nodes();
        let mut seen = BTreeSet::new();
        resources.retain(|&r| r < n && seen.insert(r));
        self.job = Some(Job {
            resources,
            hold_ms,
            next: 0,
            held: BTreeMap::new(),
        });
        self.request_next(ctx);
    }

    /// Asks for the job's next resource, or starts holding when it has them all.
    fn request_next(&mut self, ctx: &mut Ctx<'_, Self>) {
        let Some(job) = &mut self.job else { return };
        if let Some(&r) = job.resources.get(job.next) {
            job.next += 1;
            self.episodes += 1;
            self.blocked = Some(Blocked {
                resource: r,
                holder: None,
                episode: self.episodes,
                forwarded: BTreeSet::new(),
            });
            ctx.send(r, Msg::Request);
        } else {
            ctx.set_timer_ms(job.hold_ms, Timer::HoldDone);
        }
    }

    /// Owner: gives the resource to the next waiter, if any.
    fn grant_next(&mut self, ctx: &mut Ctx<'_, Self>) {
        let Some(next) = self.resource.queue.pop_front() else {
            return;
        };
        self.resource.grants += 1;
        let grant = self.resource.grants;
        self.resource.holder = Some((next, grant));
        ctx.send(next, Msg::Grant { grant });
        for &w in &self.resource.queue {
            ctx.observe(Observation::WaitFor {
                waiter: w,
                on: next,
            });
            ctx.send(
                w,
                Msg::Queued {
                    holder: next,
                    grant,
                },
            );
        }
    }

    /// Sends a probe `(initiator, me, holder)` along this node's current wait-for edge.
    fn send_probe(&self, ctx: &mut Ctx<'_, Self>, initiator: NodeId, seq: u64) {
        if let Some(Blocked {
            resource,
            holder: Some((holder, grant)),
            ..
        }) = &self.blocked
        {
            ctx.send(
                *holder,
                Msg::Probe {
                    initiator,
                    seq,
                    sender: ctx.id(),
                    receiver: *holder,
                    resource: *resource,
                    grant: *grant,
                },
            );
        }
    }

    /// True when this node's job holds `resource` under `grant`.
    fn holds(&self, resource: NodeId, grant: u64) -> bool {
        self.job
            .as_ref()
            .is_some_and(|j| j.held.get(&resource) == Some(&grant))
    }

    fn on_probe(
        &mut self,
        ctx: &mut Ctx<'_, Self>,
        initiator: NodeId,
        seq: u64,
        resource: NodeId,
        grant: u64,
    ) {
        let me = ctx.id();
        let checks_edge = self.variant != Variant::StaleEdge;
        // The edge sender -> me still exists only while I hold `resource` under `grant`.
        if checks_edge && !self.holds(resource, grant) {
            return;
        }
        let Some(blocked) = &mut self.blocked else {
            return; // not waiting for anyone: no cycle through me
        };
        if initiator == me {
            let same_episode = self.probes.get(&seq) == Some(&blocked.episode);
            if !checks_edge || same_episode {
                self.probes.remove(&seq);
                ctx.observe(Observation::DeadlockDetected { initiator: me });
            }
            return;
        }
        if self.variant == Variant::ForwardOnce && !blocked.forwarded.is_empty() {
            return; // the bug: "already forwarded a probe", whoever's it was
        }
        if blocked.holder.is_none() || !blocked.forwarded.insert((initiator, seq)) {
            return;
        }
        self.send_probe(ctx, initiator, seq);
    }
}

impl Process for Cmh {
    type Msg = Msg;
    type Timer = Timer;
    type Input = Input;
    type Stable = ();

    fn on_start(&mut self, _ctx: &mut Ctx<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Ctx<'_, Self>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Request => match self.resource.holder {
                None => {
                    self.resource.queue.push_back(from);
                    self.grant_next(ctx);
                }
                Some((holder, grant)) => {
                    self.resource.queue.push_back(from);
                    ctx.observe(Observation::WaitFor {
                        waiter: from,
                        on: holder,
                    });
                    ctx.send(from, Msg::Queued { holder, grant });
                }
            },
            Msg::Release { grant } => {
                if self.resource.holder != Some((from, grant)) {
                    return; // not the current tenure (cannot happen on reliable channels)
                }
                self.resource.holder = None;
                for &w in &self.resource.queue {
                    ctx.observe(Observation::WaitEnd {
                        waiter: w,
                        on: from,
                    });
                }
                self.grant_next(ctx);
            }
            Msg::Grant { grant } => {
                let r = from;
                if self.blocked.as_ref().map(|b| b.resource) != Some(r) {
                    return; // not waiting for it (cannot happen on reliable channels)
                }
                self.blocked = None;
                // Probes of the ended episode can never be accepted any more.
                self.probes.clear();
                if let Some(job) = &mut self.job {
                    job.held.insert(r, grant);
                }
                self.request_next(ctx);
            }
            Msg::Queued { holder, grant } => {
                let Some(b) = &mut self.blocked else { return };
                if b.resource != from || b.holder.is_some_and(|(_, g)| g >= grant) {
                    return; // late news of an older tenure
                }
                b.holder = Some((holder, grant));
                // A fresh probe along the new edge.
                self.next_seq += 1;
                let seq = self.next_seq;
                self.probes.insert(seq, b.episode);
                let me = ctx.id();
                self.send_probe(ctx, me, seq);
            }
            Msg::Probe {
                initiator,
                seq,
                resource,
                grant,
                ..
            } => self.on_probe(ctx, initiator, seq, resource, grant),
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_, Self>, timer: Timer) {
        match timer {
            Timer::HoldDone => {
                let Some(job) = self.job.take() else { return };
                for (r, grant) in job.held {
                    ctx.send(r, Msg::Release { grant });
                }
                // Probes of finished episodes can never be accepted again.
                self.probes.clear();
                self.start_next(ctx);
            }
        }
    }

    fn on_input(&mut self, ctx: &mut Ctx<'_, Self>, input: Input) {
        let Input::Lock { resources, hold_ms } = input;
        self.backlog.push_back((resources, hold_ms));
        self.start_next(ctx);
    }
}

/// `deadlock.cmh`: the algorithm's description for the registry, fuzzing and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct CmhSpec;

impl Spec for CmhSpec {
    type Node = Cmh;
    /// No parameters: `null` or `{}` (anything else is refused in `prepare`, by name).
    /// No parameters: `params` is left out or `{}`.
    type Params = crate::spec::NoParams;
    type Variant = Variant;

    fn name(&self) -> &'static str {
        "deadlock.cmh"
    }
    fn summary(&self) -> &'static str {
        "Chandy–Misra–Haas probes (initiator, sender, receiver) along the wait-for edges of a resource-locking workload"
    }
    fn source(&self) -> &'static str {
        "seed 003 §4.4 (Algoritmo de detecção distribuída)"
    }
    fn properties(&self) -> Vec<&'static str> {
        vec!["deadlock_soundness", "deadlock_completeness"]
    }
    fn fault_model(&self) -> FaultModel {
        FaultModel {
            tolerates: vec![FaultClass::Reordering, FaultClass::Pauses, FaultClass::ClockDrift],
            summary: "reliable channels with any delay and reordering, slow processes, drifting clocks; no loss, duplication, partitions or crashes",
            ..FaultModel::default()
        }
    }
    /// Every workload input is a `lock` of distinct, existing resources.
    fn prepare(&self, setup: &mut Setup<'_, Self>) -> Result<(), String> {
        let n = setup.nodes();
        for (i, w) in setup.scenario.workload.iter().enumerate() {
            let input = w.input.decode::<Input>().map_err(|e| {
                format!(
                    "workload[{i}].input is not a deadlock.cmh input ({e}); expected {{\"lock\": {{\"resources\": [..], \"hold_ms\": ..}}}}"
                )
            })?;
            let Input::Lock { resources, .. } = input;
            let mut seen = BTreeSet::new();
            for r in resources {
                if r >= n {
                    return Err(format!(
                        "workload[{i}] locks resource {r}, which does not exist (resource r is owned by node r; nodes = {n})"
                    ));
                }
                if !seen.insert(r) {
                    return Err(format!("workload[{i}] locks resource {r} twice"));
                }
            }
        }
        Ok(())
    }
    fn node(&self, variant: Variant, _params: &crate::spec::NoParams, _id: NodeId) -> Cmh {
        Cmh::new(variant)
    }
    fn workload(&self, rng: &mut SimRng, nodes: usize, active_ms: u64) -> Vec<Timed<Input>> {
        super::workload(rng, nodes, active_ms)
    }
    /// Once the cycle has formed (and the faults stopped), the last member learns whom it
    /// waits for within one message time, and its probe goes round the cycle (at most n hops).
    fn liveness_bound_ms(&self, setup: &Setup<'_, Self>) -> u64 {
        (setup.nodes() as u64 + 2) * (setup.max_latency_ms() + 1) + 10
    }
    /// Lock jobs go on after the active phase (a job waits for its locks, then holds them), and
    /// a deadlock can form until the last of them has run: the usual duration is lengthened by
    /// the time every job would take one after the other (its hold plus a round trip per
    /// resource), so a deadlock formed late is still judged within the run (50,000 seeds left
    /// 42 such runs unjudged before).
    fn complete(
        &self,
        draft: sincro_harness::gen::Draft,
        opts: &sincro_harness::gen::GenOptions,
    ) -> sincro_harness::Scenario {
        let mut sc = crate::spec::complete_default(self, draft, opts);
        let round_trip_ms = 2 * (crate::spec::max_latency_ms(&sc) + 1);
        let tail_ms: u64 = sc
            .workload
            .iter()
            .map(|w| {
                let hold = w.input.pointer("/lock/hold_ms").and_then(|h| h.as_u64());
                let resources = w
                    .input
                    .pointer("/lock/resources")
                    .and_then(|r| r.as_array())
                    .map_or(0, |r| r.len() as u64);
                hold.unwrap_or(0) + resources * round_trip_ms
            })
            .sum();
        sc.duration_ms = sc.duration_ms.saturating_add(tail_ms);
        sc
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::find;
    use crate::test_support::{assert_in_model_passes, assert_replays_exactly, first_failing_seed};
    use sincro_harness::engine::RunOptions;
    use sincro_harness::gen::GenOptions;
    use sincro_harness::{EngineKind, EventKind, Observation, Outcome, Scenario, Verdict};

    fn corpus(name: &str) -> Scenario {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/deadlock")
            .join(name);
        Scenario::load(&path).unwrap()
    }

    fn run(sc: &Scenario) -> Outcome {
        find("deadlock.cmh")
            .unwrap()
            .run(sc, RunOptions::default())
            .unwrap()
    }

    /// (node, observation) of every wait-for or deadlock observation, in order.
    fn observations(out: &Outcome) -> Vec<(usize, Observation)> {
        out.trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Observe { obs } => Some((e.node.unwrap(), obs.clone())),
                _ => None,
            })
            .collect()
    }

    fn reporters(out: &Outcome) -> Vec<usize> {
        observations(out)
            .into_iter()
            .filter(|(_, o)| matches!(o, Observation::DeadlockDetected { .. }))
            .map(|(n, _)| n)
            .collect()
    }

    #[test]
    fn a_three_process_cycle_is_detected_by_every_member() {
        let out = run(&corpus("cmh-three-process-cycle.json"));
        assert_eq!(out.verdict, Verdict::Pass);
        let edges: Vec<_> = observations(&out)
            .into_iter()
            .filter_map(|(_, o)| match o {
                Observation::WaitFor { waiter, on } => Some((waiter, on)),
                _ => None,
            })
            .collect();
        assert_eq!(edges, vec![(0, 1), (1, 2), (2, 0)]);
        // every member's probe comes back: three reports, one per initiator
        assert_eq!(reporters(&out), vec![0, 1, 2]);
    }

    #[test]
    fn a_chain_without_a_cycle_is_never_reported() {
        let out = run(&corpus("cmh-chain-no-cycle.json"));
        assert_eq!(out.verdict, Verdict::Pass);
        let obs = observations(&out);
        assert!(obs.contains(&(1, Observation::WaitFor { waiter: 0, on: 1 })));
        assert!(obs.contains(&(2, Observation::WaitFor { waiter: 1, on: 2 })));
        assert!(reporters(&out).is_empty());
        // probes did travel the chain (0 -> 1 -> 2) and stopped at the unblocked end
        let probes = out
            .trace
            .as_ref()
            .unwrap()
            .events()
            .iter()
            .filter(|e| matches!(&e.kind, EventKind::Send { msg, .. } if msg.starts_with("Probe")))
            .count();
        assert_eq!(probes, 3);
    }

    #[test]
    fn a_probe_along_a_stale_edge_is_a_phantom_only_for_the_literal_text() {
        let sc = corpus("cmh-stale-edge-phantom.json");
        let out = run(&sc);
        match &out.verdict {
            Verdict::Violation(v) => {
                assert_eq!(v.property, "deadlock_soundness");
                assert!(v.explanation.contains("node 0"), "{}", v.explanation);
            }
            other => panic!("expected a phantom deadlock, got {other}"),
        }
        let fixed = run(&Scenario {
            variant: "correct".into(),
            ..sc
        });
        assert_eq!(fixed.verdict, Verdict::Pass);
        assert!(reporters(&fixed).is_empty());
    }

    #[test]
    fn one_forward_flag_for_all_initiators_loses_a_real_cycle() {
        let sc = corpus("cmh-forward-once-missed-cycle.json");
        let out = run(&sc);
        match &out.verdict {
            Verdict::Violation(v) => {
                assert_eq!(v.property, "deadlock_completeness");
                assert!(
                    v.explanation.contains("n2 -> n0 -> n1 -> n2"),
                    "{}",
                    v.explanation
                );
            }
            other => panic!("expected a missed deadlock, got {other}"),
        }
        assert!(reporters(&out).is_empty());
        // the same cycle, with the flag per initiator: 2's probe goes round and 2 reports it
        let fixed = run(&Scenario {
            variant: "correct".into(),
            ..sc
        });
        assert_eq!(fixed.verdict, Verdict::Pass);
        assert_eq!(reporters(&fixed), vec![2]);
    }

    #[test]
    fn fuzzing_finds_forward_once_as_a_missed_deadlock() {
        let alg = find("deadlock.cmh").unwrap();
        let seed = first_failing_seed("deadlock.cmh", "forward-once", 300, EngineKind::Native)
            .expect("fuzzing finds forward-once");
        let sc = alg.generate("forward-once", seed, &GenOptions::default());
        match alg.run(&sc, RunOptions::default()).unwrap().verdict {
            Verdict::Violation(v) => assert_eq!(v.property, "deadlock_completeness", "{v}"),
            other => panic!("seed {seed}: expected a violation, got {other}"),
        }
        // the correct variant passes the very same generated scenario (faults and workload)
        let fixed = alg
            .run(
                &Scenario {
                    variant: "correct".into(),
                    ..sc
                },
                RunOptions::default(),
            )
            .unwrap();
        assert_eq!(fixed.verdict, Verdict::Pass, "seed {seed}");
        assert!(
            !reporters(&fixed).is_empty(),
            "seed {seed}: a real deadlock"
        );
    }

    #[test]
    fn deterministic_on_both_engines_and_fuzzing_separates_the_variants() {
        assert_replays_exactly(
            "deadlock.cmh",
            &["correct", "stale-edge", "forward-once"],
            4,
        );
        assert!(
            first_failing_seed("deadlock.cmh", "stale-edge", 300, EngineKind::Native).is_some()
        );
        assert_in_model_passes("deadlock.cmh", "correct", 300, EngineKind::Native);
    }

    #[test]
    fn the_generated_workload_makes_real_deadlocks() {
        // Fuzzing the correct variant is not vacuous: many runs deadlock and report it.
        let alg = find("deadlock.cmh").unwrap();
        let with_reports = (0..100)
            .filter(|&seed| {
                let sc = alg.generate("correct", seed, &GenOptions::default());
                !reporters(&alg.run(&sc, RunOptions::default()).unwrap()).is_empty()
            })
            .count();
        assert!(
            with_reports >= 30,
            "only {with_reports} of 100 runs deadlocked"
        );
    }

    #[test]
    fn bad_workloads_and_params_are_rejected() {
        let alg = find("deadlock.cmh").unwrap();
        let mut sc = corpus("cmh-three-process-cycle.json");
        sc.workload[0].input =
            serde_json::json!({"lock": {"resources": [0, 3], "hold_ms": 5}}).into();
        let e = alg.run(&sc, RunOptions::default()).unwrap_err();
        assert!(e.0.contains("resource 3"), "{e}");
        sc.workload[0].input =
            serde_json::json!({"lock": {"resources": [1, 1], "hold_ms": 5}}).into();
        assert!(alg
            .run(&sc, RunOptions::default())
            .unwrap_err()
            .0
            .contains("twice"));
        sc.workload[0].input = serde_json::json!({"acquire": {"hold_ms": 5}}).into();
        assert!(alg.run(&sc, RunOptions::default()).is_err());
        let mut sc = corpus("cmh-three-process-cycle.json");
        sc.params = serde_json::json!({"x": 1});
        let e = alg.run(&sc, RunOptions::default()).unwrap_err();
        assert!(e.0.contains("unknown field `x`"), "{e}");
        sc.params = serde_json::json!({});
        assert!(alg.run(&sc, RunOptions::default()).is_ok());
    }
}
