//! # sincro-checkers
//!
//! One property per module. Each checker is online (judges event by event through
//! [`sincro_harness::Checker`], stopping at the first violation) and works offline on a
//! recorded trace with [`sincro_harness::check::check_trace`]; the Ω properties of [`omega`]
//! are functions over a whole shared-memory trace instead.
//!
//! | property | module | class | settings |
//! |---|---|---|---|
//! | `mutual_exclusion` (no two nodes inside the critical section of one resource at once; the events of one instant are judged as a set) | [`mutual_exclusion`] | safety | — |
//! | `liveness` (every request granted within a bound after the faults stop) | [`liveness`] | liveness | quiet, bound |
//! | `bounded_waiting` (a waiting request is overtaken at most n − 1 times) | [`bounded_waiting`] | safety | n |
//! | `no_deadlock` (while requests wait, someone enters within a bound after the faults stop) | [`no_deadlock`] | liveness | quiet, bound |
//! | `lamport_condition` (a → b ⇒ C(a) < C(b), against ground-truth happens-before) | [`lamport_condition`] | safety | n |
//! | `vector_causality` (VC(a) < VC(b) ⇔ a → b) | [`vector_causality`] | safety | n |
//! | `causal_delivery` (multicast(m) → multicast(m') ⇒ m delivered before m' everywhere) | [`causal_delivery`] | safety | n |
//! | `total_order` (replicas deliver common messages in the same relative order) | [`total_order`] | safety | n |
//! | `replica_agreement` (the replicas that reported a state, at least two, end in the same one; judged once, at the end of the run) | [`replica_agreement`] | liveness | n |
//! | `deadlock_soundness` (every reported deadlock is a cycle of the ground-truth wait-for graph through the reporter, who names itself as initiator) | [`deadlock_soundness`] | safety | n |
//! | `deadlock_completeness` (every persistent wait-for cycle is reported by a member within a bound) | [`deadlock_completeness`] | liveness | quiet, bound |
//! | `bounded_skew` (after convergence, clocks within a bound of each other and of real time) | [`bounded_skew`] | safety | the whole scenario (clocks, delays, faults, algorithm, `params.*`); no bound |
//! | `monotonic_clock` (no software clock is ever set back; a backward clock jump excuses its own amount) | [`monotonic_clock`] | safety | n |
//! | `leader_uniqueness` (at most one live node believes itself leader in a term, at any time; the events of one instant are judged as a set) | [`election::uniqueness`] | safety | n |
//! | `single_acting_leader` (at most one live node acts as leader at any instant, whatever the terms: a lease's promise) | [`election::single_acting`] | safety | n |
//! | `leader_agreement` (after the faults stop, every live node names the same live leader within a bound; a run with no election at all is not judged) | [`election::agreement`] | liveness | n, quiet, bound |
//! | `election_termination` (every election started ends with a leader, one of the run's nodes, within a bound after the faults stop) | [`election::termination`] | liveness | n, quiet, bound |
//! | `leader_validity` (after quiet + bound, the named leader is alive and the best by rank among the live nodes the namer reaches; highest id from [`by_name`]) | [`election::validity`] | safety | n, quiet, bound |
//! | `leader_stability` (after the live nodes agree on a leader in a term, no node starts an election or changes leader or term while that leader is alive and reachable: from the quiet time on, and between two faults when nothing is left in effect) | [`election::stability`] | safety | n, quiet, the fault plan and network |
//! | `eventual_leadership`, `crashed_never_elected`, `newcomer_never_demotes` (Ω over a shared-memory trace, after checking the `memory_access_pattern` assumption) | [`omega`] | liveness, liveness, safety | α, start of the judged suffix |
//!
//! *n* is the scenario's node count, *quiet* [`Scenario::quiet_from_ms`] (the time of the fault
//! plan's last fault), *bound* the liveness bound passed to [`by_name`]; a bound of 0 is taken
//! literally, never as "no bound": the properties that read it ([`Property::NEEDS_BOUND`],
//! [`needs_liveness_bound`]) have no default, so a caller that does not know the algorithm's
//! bound must refuse to judge them (`sincro check` asks for `--liveness-bound-ms`). Every row
//! but the last is a [`Property`], built by [`by_name`]; [`PROPERTIES`] lists them all but
//! `bounded_skew`, which needs the recorded run's scenario (its clocks are rebuilt from the
//! seed and the clock settings), not the minimal one an offline judgement has. Each module's
//! `# Contract` states exactly which events it reads, what it takes from the scenario, what it
//! does when the run ends before it can judge, and its class.
//!
//! **Could not judge.** A checker that cannot decide a run says so through
//! [`Checker::could_not_judge`] (a [`sincro_harness::Verdict::Unjudged`], never a pass): the
//! liveness properties when an item is still open at the end of the run with its deadline not
//! past, `leader_agreement` also when no node reported anything (no election happened),
//! `leader_validity` when the run ends by `quiet + bound`, `bounded_skew` when the run ends
//! before convergence or its params are unusable, `replica_agreement` when a replica never
//! reported a state (a one-node run whose replica reported passes: it agrees with itself).

#![warn(missing_docs)]

pub mod bounded_skew;
pub mod bounded_waiting;
pub mod causal_delivery;
pub mod deadlock_completeness;
pub mod deadlock_graph;
pub mod deadlock_soundness;
pub mod election;
pub mod grouped;
pub mod lamport_condition;
pub mod liveness;
pub mod monotonic_clock;
pub mod mutual_exclusion;
pub mod no_deadlock;
pub mod omega;
pub mod orders;
pub mod replica_agreement;
#[cfg(test)]
mod test_events;
pub mod total_order;
pub mod vector_causality;

pub use bounded_skew::BoundedSkew;
pub use bounded_waiting::BoundedWaiting;
pub use causal_delivery::CausalDelivery;
pub use deadlock_completeness::DeadlockCompleteness;
pub use deadlock_soundness::DeadlockSoundness;
pub use election::{
    ElectionTermination, LeaderAgreement, LeaderStability, LeaderUniqueness, LeaderValidity,
    NoAbdication, OneLeaderPerTerm, OneVotePerTerm, SingleActingLeader,
};
pub use lamport_condition::LamportCondition;
pub use liveness::Liveness;
pub use monotonic_clock::MonotonicClock;
pub use mutual_exclusion::MutualExclusion;
pub use no_deadlock::NoDeadlock;
pub use replica_agreement::ReplicaAgreement;
pub use total_order::TotalOrder;
pub use vector_causality::VectorCausality;

use sincro_harness::trace::Event;
use sincro_harness::{Checker, Fault, Interest, Observation, Scenario, Violation};

/// A built-in checker chosen by type (`check(spec).check::<MutualExclusion>()`): its property
/// name and how to build it for a scenario.
///
/// Implemented by every checker [`by_name`] builds, and [`by_name`] is built on it: for each
/// implementor `P`, `by_name(P::NAME, sc, b)` is `P::for_scenario(sc, b)`, boxed. The settings
/// each one takes from the scenario (node count, quiet time, `params.*`) and whether it uses
/// the liveness bound are in its module's `# Contract`.
pub trait Property: Checker + Sized + 'static {
    /// The property's name, as scenarios, `sincro check` and `Spec::properties` write it.
    const NAME: &'static str;
    /// True when the checker judges against the liveness bound passed to
    /// [`for_scenario`](Property::for_scenario): it has no meaningful default (0 is taken
    /// literally), so a caller that does not know the algorithm's bound (offline judging of a
    /// trace) must ask for one rather than pass 0. See [`needs_liveness_bound`].
    const NEEDS_BOUND: bool = false;
    /// The kinds of events of which a trace must hold at least one for the checker to judge
    /// anything (see [`has_evidence`]): a trace with none of them passes every checker
    /// vacuously, which `sincro check` reports as "could not judge", never as a pass (a
    /// mutual exclusion trace checked for `leader_uniqueness`). Observation kinds by their
    /// JSON name (`cs_enter`, `leader`, ...), `leader_claim` (a `leader` naming a node),
    /// `leader_self_claim` (a `leader` naming its own node), `clock_adjust`, the faults
    /// `clock_jump` and `drift_change`, and `local_ns` (any event of a node with a clock
    /// reading). Empty: no such requirement.
    const EVIDENCE: &'static [&'static str] = &[];
    /// The checker for `scenario`, with `liveness_bound_ms` for the properties that need a bound.
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self;
}

/// [`Property::EVIDENCE`] of the property named `name`; `None` for a name no built-in
/// checker has (a user's property: no requirement is known).
pub fn evidence(name: &str) -> Option<&'static [&'static str]> {
    let e = match name {
        MutualExclusion::NAME => MutualExclusion::EVIDENCE,
        Liveness::NAME => Liveness::EVIDENCE,
        NoDeadlock::NAME => NoDeadlock::EVIDENCE,
        BoundedWaiting::NAME => BoundedWaiting::EVIDENCE,
        LamportCondition::NAME => LamportCondition::EVIDENCE,
        VectorCausality::NAME => VectorCausality::EVIDENCE,
        CausalDelivery::NAME => CausalDelivery::EVIDENCE,
        TotalOrder::NAME => TotalOrder::EVIDENCE,
        ReplicaAgreement::NAME => ReplicaAgreement::EVIDENCE,
        DeadlockSoundness::NAME => DeadlockSoundness::EVIDENCE,
        DeadlockCompleteness::NAME => DeadlockCompleteness::EVIDENCE,
        BoundedSkew::NAME => BoundedSkew::EVIDENCE,
        MonotonicClock::NAME => MonotonicClock::EVIDENCE,
        LeaderUniqueness::NAME => LeaderUniqueness::EVIDENCE,
        LeaderAgreement::NAME => LeaderAgreement::EVIDENCE,
        ElectionTermination::NAME => ElectionTermination::EVIDENCE,
        LeaderValidity::NAME => LeaderValidity::EVIDENCE,
        LeaderStability::NAME => LeaderStability::EVIDENCE,
        SingleActingLeader::NAME => SingleActingLeader::EVIDENCE,
        OneLeaderPerTerm::NAME => OneLeaderPerTerm::EVIDENCE,
        OneVotePerTerm::NAME => OneVotePerTerm::EVIDENCE,
        NoAbdication::NAME => NoAbdication::EVIDENCE,
        _ => return None,
    };
    Some(e)
}

/// An evidence kind of [`Property::EVIDENCE`] as a message names it: `` `cs_enter` ``, and
/// `leader_claim` and `leader_self_claim` as what they are in a trace (a `leader` observation
/// naming a node, naming its own node).
pub fn evidence_text(kind: &str) -> String {
    match kind {
        "leader_claim" => "`leader` naming a node".to_string(),
        "leader_self_claim" => "`leader` naming its own node".to_string(),
        k => format!("`{k}`"),
    }
}

/// Whether `event` is of one of the `kinds` of [`Property::EVIDENCE`].
pub fn is_evidence(event: &Event, kinds: &[&str]) -> bool {
    use sincro_harness::EventKind;
    let kind = match &event.kind {
        EventKind::Observe { obs } => match obs {
            Observation::CsRequest { .. } => "cs_request",
            Observation::CsEnter { .. } => "cs_enter",
            Observation::CsExit { .. } => "cs_exit",
            Observation::CsAbandon { .. } => "cs_abandon",
            Observation::Leader { .. } => "leader",
            Observation::Vote { .. } => "vote",
            Observation::Delivered { .. } => "delivered",
            Observation::Multicast { .. } => "multicast",
            Observation::State { .. } => "state",
            Observation::LogicalTime { .. } => "logical_time",
            Observation::WaitFor { .. } => "wait_for",
            Observation::WaitEnd { .. } => "wait_end",
            Observation::DeadlockDetected { .. } => "deadlock_detected",
            // a user's observation, by its kind (`Checker::evidence` names it); never as a
            // built-in kind, which it may not take (`RESERVED_KINDS`)
            Observation::User { kind, .. }
                if !sincro_harness::process::RESERVED_KINDS.contains(&kind.as_str()) =>
            {
                kind.as_str()
            }
            _ => "",
        },
        EventKind::ClockAdjust { .. } => "clock_adjust",
        EventKind::Fault {
            fault: Fault::ClockJump { .. },
        } => "clock_jump",
        EventKind::Fault {
            fault: Fault::DriftChange { .. },
        } => "drift_change",
        _ => "",
    };
    // A node claiming a leader (`leader` with a node, not "no leader"): what the properties
    // about leaders at once judge; a run where none was ever claimed has nothing for them.
    let claim = matches!(
        &event.kind,
        EventKind::Observe {
            obs: Observation::Leader {
                leader: Some(_),
                ..
            }
        }
    );
    // A node claiming leadership itself (`leader` naming its own node): what the properties
    // about leaders' claims read; followers' beliefs alone give them nothing to judge.
    let self_claim = claim
        && matches!(
            &event.kind,
            EventKind::Observe {
                obs: Observation::Leader { leader, .. }
            } if *leader == event.node
        );
    (!kind.is_empty() && kinds.contains(&kind))
        || (claim && kinds.contains(&"leader_claim"))
        || (self_claim && kinds.contains(&"leader_self_claim"))
        || (kinds.contains(&"local_ns") && event.node.is_some() && event.local_ns.is_some())
}

/// `checker`, which also cannot judge a run that holds none of the events it reads (the
/// kinds of [`evidence`], else its own [`Checker::evidence`]): it watches the events as they
/// pass, so a run judged without a recorded trace (an exploration's paths) says "could not
/// judge" where `sincro check` of its trace would, never a pass on nothing.
pub fn needing_evidence(checker: Box<dyn Checker>) -> Box<dyn Checker> {
    let kinds = evidence(checker.property()).unwrap_or_else(|| checker.evidence());
    Box::new(NeedsEvidence {
        inner: checker,
        kinds,
        seen: kinds.is_empty(),
    })
}

/// See [`needing_evidence`].
struct NeedsEvidence {
    inner: Box<dyn Checker>,
    kinds: &'static [&'static str],
    /// An event of `kinds` went by (or none is needed).
    seen: bool,
}

impl Checker for NeedsEvidence {
    fn property(&self) -> &'static str {
        self.inner.property()
    }
    fn on_event(&mut self, ev: &Event) -> Result<(), Violation> {
        self.seen = self.seen || is_evidence(ev, self.kinds);
        self.inner.on_event(ev)
    }
    fn finish(&mut self, end_t_ns: u64) -> Result<(), Violation> {
        self.inner.finish(end_t_ns)
    }
    fn could_not_judge(&self) -> Option<String> {
        self.inner.could_not_judge().or_else(|| {
            let kinds: Vec<String> = self.kinds.iter().map(|k| format!("`{k}`")).collect();
            (!self.seen).then(|| {
                format!(
                    "the run has no event of the kinds it reads ({}): nothing was judged",
                    kinds.join(", ")
                )
            })
        })
    }
    fn evidence(&self) -> &'static [&'static str] {
        self.kinds
    }
    fn judged_once_the_faults_stop(&self) -> bool {
        self.inner.judged_once_the_faults_stop()
    }
    /// The inner checker's, with the kinds of the evidence it watches for.
    fn interest(&self) -> Interest {
        self.inner.interest().or(evidence_interest(self.kinds))
    }
    fn wake_at_ns(&self) -> u64 {
        self.inner.wake_at_ns()
    }
}

/// The kinds of events [`is_evidence`] can find `kinds` in: an observation's, a clock
/// adjustment's or a fault's, every kind for `local_ns`.
fn evidence_interest(kinds: &[&str]) -> Interest {
    kinds.iter().fold(Interest::NONE, |acc, k| {
        acc.or(match *k {
            "clock_adjust" => Interest::CLOCK_ADJUST,
            "clock_jump" | "drift_change" => Interest::FAULT,
            "local_ns" => Interest::ALL,
            _ => Interest::OBSERVE,
        })
    })
}

/// Whether `events` hold at least one event of the `kinds` of [`Property::EVIDENCE`] (always
/// true when `kinds` is empty).
pub fn has_evidence(events: &[Event], kinds: &[&str]) -> bool {
    kinds.is_empty() || events.iter().any(|e| is_evidence(e, kinds))
}

impl Property for MutualExclusion {
    const NAME: &'static str = mutual_exclusion::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["cs_enter"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        MutualExclusion::new(scenario.nodes)
    }
}

impl Property for Liveness {
    const NAME: &'static str = liveness::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["cs_request"];
    const NEEDS_BOUND: bool = true;
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self {
        Liveness::new(scenario.quiet_from_ms(), liveness_bound_ms)
    }
}

impl Property for NoDeadlock {
    const NAME: &'static str = no_deadlock::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["cs_request"];
    const NEEDS_BOUND: bool = true;
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self {
        NoDeadlock::new(scenario.quiet_from_ms(), liveness_bound_ms)
    }
}

impl Property for BoundedWaiting {
    const NAME: &'static str = bounded_waiting::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["cs_request"];
    /// `k = nodes − 1`: the rotation bound of the token ring.
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        BoundedWaiting::new(scenario.nodes.saturating_sub(1))
    }
}

impl Property for LamportCondition {
    const NAME: &'static str = lamport_condition::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["logical_time"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        LamportCondition::new(scenario.nodes)
    }
}

impl Property for VectorCausality {
    const NAME: &'static str = vector_causality::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["logical_time"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        VectorCausality::new(scenario.nodes)
    }
}

impl Property for CausalDelivery {
    const NAME: &'static str = causal_delivery::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["delivered"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        CausalDelivery::new(scenario.nodes)
    }
}

impl Property for TotalOrder {
    const NAME: &'static str = total_order::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["delivered"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        TotalOrder::new(scenario.nodes)
    }
}

impl Property for ReplicaAgreement {
    const NAME: &'static str = replica_agreement::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["state"];
    const NEEDS_BOUND: bool = true;
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self {
        ReplicaAgreement::with_bound(scenario.nodes, scenario.quiet_from_ms(), liveness_bound_ms)
    }
}

impl Property for DeadlockSoundness {
    const NAME: &'static str = deadlock_soundness::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["wait_for", "deadlock_detected"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        DeadlockSoundness::new(scenario.nodes)
    }
}

impl Property for DeadlockCompleteness {
    const NAME: &'static str = deadlock_completeness::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["wait_for"];
    const NEEDS_BOUND: bool = true;
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self {
        DeadlockCompleteness::new(scenario.quiet_from_ms(), liveness_bound_ms)
    }
}

impl Property for BoundedSkew {
    const NAME: &'static str = bounded_skew::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["clock_adjust", "clock_jump", "drift_change"];
    /// [`BoundedSkew::for_scenario`]: the bound comes from the scenario, not from
    /// `liveness_bound_ms`.
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        BoundedSkew::for_scenario(scenario)
    }
}

impl Property for MonotonicClock {
    const NAME: &'static str = monotonic_clock::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["local_ns"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        MonotonicClock::new(scenario.nodes)
    }
}

impl Property for LeaderUniqueness {
    const NAME: &'static str = election::uniqueness::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader_self_claim"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        LeaderUniqueness::new(scenario.nodes)
    }
}

impl Property for OneLeaderPerTerm {
    const NAME: &'static str = election::per_term::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader_self_claim"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        OneLeaderPerTerm::new(scenario.nodes)
    }
}

impl Property for OneVotePerTerm {
    const NAME: &'static str = election::per_term_vote::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["vote"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        OneVotePerTerm::new(scenario.nodes)
    }
}

impl Property for NoAbdication {
    const NAME: &'static str = election::abdication::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader_self_claim"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        NoAbdication::new(scenario.nodes)
    }
}

impl Property for SingleActingLeader {
    const NAME: &'static str = election::single_acting::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader_self_claim"];
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        SingleActingLeader::new(scenario.nodes)
    }
}

impl Property for LeaderAgreement {
    const NAME: &'static str = election::agreement::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader"];
    const NEEDS_BOUND: bool = true;
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self {
        LeaderAgreement::new(scenario.nodes, scenario.quiet_from_ms(), liveness_bound_ms)
    }
}

impl Property for ElectionTermination {
    const NAME: &'static str = election::termination::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader"];
    const NEEDS_BOUND: bool = true;
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self {
        ElectionTermination::new(scenario.nodes, scenario.quiet_from_ms(), liveness_bound_ms)
    }
}

impl Property for LeaderValidity {
    const NAME: &'static str = election::validity::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader_claim"];
    const NEEDS_BOUND: bool = true;
    /// [`LeaderValidity::new`]: the highest live id must win (an algorithm with another
    /// winner builds [`LeaderValidity::with_ranks`] itself).
    fn for_scenario(scenario: &Scenario, liveness_bound_ms: u64) -> Self {
        LeaderValidity::new(scenario.nodes, scenario.quiet_from_ms(), liveness_bound_ms)
    }
}

impl Property for LeaderStability {
    const NAME: &'static str = election::stability::PROPERTY;
    const EVIDENCE: &'static [&'static str] = &["leader"];
    /// [`LeaderStability::new`], judged [between faults](LeaderStability::between_faults)
    /// too: no settle time (an algorithm built on timeouts builds
    /// [`LeaderStability::with_settle`] itself).
    fn for_scenario(scenario: &Scenario, _liveness_bound_ms: u64) -> Self {
        LeaderStability::new(scenario.nodes, scenario.quiet_from_ms()).between_faults(scenario)
    }
}

/// Names of the properties listed to users, in this order: `sincro check` accepts these
/// (through `Registry::properties`). [`by_name`] builds every one of them, and also
/// `bounded_skew`, which is not listed here: it rebuilds the clocks from the recorded run's
/// scenario (seed, clock settings, params), which an offline judgement of a trace does not
/// have, so `sincro check` refuses it (algorithms may still declare it).
pub const PROPERTIES: &[&str] = &[
    MutualExclusion::NAME,
    Liveness::NAME,
    BoundedWaiting::NAME,
    NoDeadlock::NAME,
    LamportCondition::NAME,
    VectorCausality::NAME,
    CausalDelivery::NAME,
    TotalOrder::NAME,
    ReplicaAgreement::NAME,
    DeadlockSoundness::NAME,
    DeadlockCompleteness::NAME,
    MonotonicClock::NAME,
    LeaderUniqueness::NAME,
    LeaderAgreement::NAME,
    ElectionTermination::NAME,
    LeaderValidity::NAME,
    LeaderStability::NAME,
    SingleActingLeader::NAME,
    OneLeaderPerTerm::NAME,
    OneVotePerTerm::NAME,
    NoAbdication::NAME,
];

/// True when `name` is a built-in property that judges against no liveness bound: a bound
/// given for it alone would change nothing (a scenario's `checks.liveness_bound_ms`, `check
/// --liveness-bound-ms`). False for a property judged against one, and for a name that is not
/// built in (a user's own property may read the bound).
pub fn ignores_liveness_bound(name: &str) -> bool {
    evidence(name).is_some() && !needs_liveness_bound(name)
}

/// True when the property `name` judges against a liveness bound
/// ([`Property::NEEDS_BOUND`]): `liveness`, `no_deadlock`, `deadlock_completeness`,
/// `leader_agreement`, `election_termination` and `leader_validity`. A caller without the
/// algorithm's bound must refuse to judge these rather than pass 0 to [`by_name`]. False for
/// every other name, unknown ones included.
pub fn needs_liveness_bound(name: &str) -> bool {
    match name {
        MutualExclusion::NAME => MutualExclusion::NEEDS_BOUND,
        Liveness::NAME => Liveness::NEEDS_BOUND,
        NoDeadlock::NAME => NoDeadlock::NEEDS_BOUND,
        BoundedWaiting::NAME => BoundedWaiting::NEEDS_BOUND,
        LamportCondition::NAME => LamportCondition::NEEDS_BOUND,
        VectorCausality::NAME => VectorCausality::NEEDS_BOUND,
        CausalDelivery::NAME => CausalDelivery::NEEDS_BOUND,
        TotalOrder::NAME => TotalOrder::NEEDS_BOUND,
        ReplicaAgreement::NAME => ReplicaAgreement::NEEDS_BOUND,
        DeadlockSoundness::NAME => DeadlockSoundness::NEEDS_BOUND,
        DeadlockCompleteness::NAME => DeadlockCompleteness::NEEDS_BOUND,
        BoundedSkew::NAME => BoundedSkew::NEEDS_BOUND,
        MonotonicClock::NAME => MonotonicClock::NEEDS_BOUND,
        LeaderUniqueness::NAME => LeaderUniqueness::NEEDS_BOUND,
        LeaderAgreement::NAME => LeaderAgreement::NEEDS_BOUND,
        ElectionTermination::NAME => ElectionTermination::NEEDS_BOUND,
        LeaderValidity::NAME => LeaderValidity::NEEDS_BOUND,
        LeaderStability::NAME => LeaderStability::NEEDS_BOUND,
        SingleActingLeader::NAME => SingleActingLeader::NEEDS_BOUND,
        OneLeaderPerTerm::NAME => OneLeaderPerTerm::NEEDS_BOUND,
        OneVotePerTerm::NAME => OneVotePerTerm::NEEDS_BOUND,
        NoAbdication::NAME => NoAbdication::NEEDS_BOUND,
        _ => false,
    }
}

/// `P::for_scenario(scenario, liveness_bound_ms)`, boxed.
/// How an unjudged message places a run's end against a deadline it did not reach: `before`,
/// or `at` when the run ended at the deadline itself (it said "ended at 60.000 ms, before its
/// deadline 60.000 ms").
pub(crate) fn before_or_at(end_t_ns: u64, deadline_ns: u64) -> &'static str {
    if end_t_ns < deadline_ns {
        "before"
    } else {
        "at"
    }
}

fn boxed<P: Property>(scenario: &Scenario, liveness_bound_ms: u64) -> Option<Box<dyn Checker>> {
    Some(Box::new(P::for_scenario(scenario, liveness_bound_ms)))
}

/// Builds the checker for `property` over `scenario`, with `liveness_bound_ms` used by
/// liveness properties: [`Property::for_scenario`] of the [`Property`] whose
/// [`NAME`](Property::NAME) is `property`. `None` for an unknown property.
pub fn by_name(
    property: &str,
    scenario: &Scenario,
    liveness_bound_ms: u64,
) -> Option<Box<dyn Checker>> {
    let (sc, b) = (scenario, liveness_bound_ms);
    match property {
        MutualExclusion::NAME => boxed::<MutualExclusion>(sc, b),
        Liveness::NAME => boxed::<Liveness>(sc, b),
        NoDeadlock::NAME => boxed::<NoDeadlock>(sc, b),
        BoundedWaiting::NAME => boxed::<BoundedWaiting>(sc, b),
        LamportCondition::NAME => boxed::<LamportCondition>(sc, b),
        VectorCausality::NAME => boxed::<VectorCausality>(sc, b),
        CausalDelivery::NAME => boxed::<CausalDelivery>(sc, b),
        TotalOrder::NAME => boxed::<TotalOrder>(sc, b),
        ReplicaAgreement::NAME => boxed::<ReplicaAgreement>(sc, b),
        DeadlockSoundness::NAME => boxed::<DeadlockSoundness>(sc, b),
        DeadlockCompleteness::NAME => boxed::<DeadlockCompleteness>(sc, b),
        BoundedSkew::NAME => boxed::<BoundedSkew>(sc, b),
        MonotonicClock::NAME => boxed::<MonotonicClock>(sc, b),
        LeaderUniqueness::NAME => boxed::<LeaderUniqueness>(sc, b),
        LeaderAgreement::NAME => boxed::<LeaderAgreement>(sc, b),
        ElectionTermination::NAME => boxed::<ElectionTermination>(sc, b),
        LeaderValidity::NAME => boxed::<LeaderValidity>(sc, b),
        LeaderStability::NAME => boxed::<LeaderStability>(sc, b),
        SingleActingLeader::NAME => boxed::<SingleActingLeader>(sc, b),
        OneLeaderPerTerm::NAME => boxed::<OneLeaderPerTerm>(sc, b),
        OneVotePerTerm::NAME => boxed::<OneVotePerTerm>(sc, b),
        NoAbdication::NAME => boxed::<NoAbdication>(sc, b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        Scenario::from_json(r#"{"algorithm":"x","nodes":3,"seed":0,"duration_ms":100}"#).unwrap()
    }

    /// `P::NAME` names the checker `P::for_scenario` builds, and `by_name(P::NAME)` builds one
    /// of that name too; `needs_liveness_bound(P::NAME)` is `P::NEEDS_BOUND`. Returns the name.
    fn named<P: Property>() -> &'static str {
        assert_eq!(needs_liveness_bound(P::NAME), P::NEEDS_BOUND, "{}", P::NAME);
        assert_eq!(
            ignores_liveness_bound(P::NAME),
            !P::NEEDS_BOUND,
            "{}",
            P::NAME
        );
        assert!(!ignores_liveness_bound("a_users_own_property"));
        assert_eq!(evidence(P::NAME), Some(P::EVIDENCE), "{}", P::NAME);
        assert!(
            !P::EVIDENCE.is_empty(),
            "{}: every built-in property reads something",
            P::NAME
        );
        let sc = scenario();
        assert_eq!(P::for_scenario(&sc, 100).property(), P::NAME);
        assert_eq!(P::for_scenario(&sc, 0).property(), P::NAME);
        let c = by_name(P::NAME, &sc, 100).expect("by_name builds every Property");
        assert_eq!(c.property(), P::NAME);
        P::NAME
    }

    /// Every kind a built-in property reads is reserved: a user observation of that kind
    /// is no evidence for it (a user `vote` let a trace with no vote pass
    /// `one_vote_per_term`), while a user kind of the user's own is evidence for a checker
    /// that names it.
    #[test]
    fn a_user_observation_is_never_evidence_for_a_built_in_kind() {
        use sincro_harness::process::RESERVED_KINDS;
        for name in PROPERTIES {
            for kind in evidence(name).unwrap_or_default() {
                assert!(RESERVED_KINDS.contains(kind), "{name} reads `{kind}`");
            }
        }
        let user = |kind: &str| Event {
            id: 0,
            t_ns: 0,
            node: Some(0),
            local_ns: None,
            kind: sincro_harness::EventKind::Observe {
                obs: Observation::User {
                    kind: kind.into(),
                    data: serde_json::Value::Null,
                },
            },
        };
        assert!(!is_evidence(&user("vote"), &["vote"]));
        assert!(!is_evidence(&user("leader_claim"), &["leader_claim"]));
        assert!(!is_evidence(
            &user("leader_self_claim"),
            &["leader_self_claim"]
        ));
        // a follower's belief is a claim of a leader, not a leader's own claim
        let leader = |node: usize, leader: Option<usize>| Event {
            id: 0,
            t_ns: 0,
            node: Some(node),
            local_ns: None,
            kind: sincro_harness::EventKind::Observe {
                obs: Observation::Leader { leader, term: 0 },
            },
        };
        assert!(is_evidence(&leader(0, Some(2)), &["leader_claim"]));
        assert!(!is_evidence(&leader(0, Some(2)), &["leader_self_claim"]));
        assert!(is_evidence(&leader(2, Some(2)), &["leader_self_claim"]));
        assert!(!is_evidence(
            &leader(2, None),
            &["leader_self_claim", "leader_claim"]
        ));
        assert!(is_evidence(&user("primary_on"), &["primary_on"]));
    }

    #[test]
    fn every_property_type_is_named_and_built_by_name() {
        let names = [
            named::<MutualExclusion>(),
            named::<Liveness>(),
            named::<NoDeadlock>(),
            named::<BoundedWaiting>(),
            named::<LamportCondition>(),
            named::<VectorCausality>(),
            named::<CausalDelivery>(),
            named::<TotalOrder>(),
            named::<ReplicaAgreement>(),
            named::<DeadlockSoundness>(),
            named::<DeadlockCompleteness>(),
            named::<BoundedSkew>(),
            named::<MonotonicClock>(),
            named::<LeaderUniqueness>(),
            named::<LeaderAgreement>(),
            named::<ElectionTermination>(),
            named::<LeaderValidity>(),
            named::<LeaderStability>(),
            named::<SingleActingLeader>(),
            named::<OneLeaderPerTerm>(),
            named::<OneVotePerTerm>(),
            named::<NoAbdication>(),
        ];
        let mut unique = names.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "two properties share a name");
        // every listed name is one of them; the one left out is the documented one
        for p in PROPERTIES {
            assert!(names.contains(p), "{p}");
        }
        let unlisted: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !PROPERTIES.contains(n))
            .collect();
        assert_eq!(unlisted, vec![BoundedSkew::NAME]);
    }

    #[test]
    fn the_properties_judged_against_a_bound_are_the_documented_ones() {
        let mut needing: Vec<&str> = PROPERTIES
            .iter()
            .chain(&[BoundedSkew::NAME])
            .copied()
            .filter(|p| needs_liveness_bound(p))
            .collect();
        needing.sort_unstable();
        assert_eq!(
            needing,
            vec![
                "deadlock_completeness",
                "election_termination",
                "leader_agreement",
                "leader_validity",
                "liveness",
                "no_deadlock",
                "replica_agreement",
            ]
        );
        assert!(!needs_liveness_bound("no_such_property"));
    }

    #[test]
    fn by_name_builds_every_listed_property_under_its_name() {
        let sc = scenario();
        for &p in PROPERTIES {
            let c = by_name(p, &sc, 100).unwrap_or_else(|| panic!("no checker for {p}"));
            assert_eq!(c.property(), p);
        }
        assert!(by_name("no_such_property", &sc, 100).is_none());
    }
}
